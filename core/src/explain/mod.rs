//! Explaining a simulation: the smallest fixes, checked before they are offered, and the
//! report as text, markdown and JSON.
//!
//! - [`fixes`]: toleration, selector and request fixes as strategic-merge patches, with the
//!   one strategic merge that both verifies and applies them;
//! - [`label_targets`]: the pools a DaemonSet's node labels were most likely meant for;
//! - [`verify`]: a fix is verified by re-simulating the input with it applied;
//! - [`render`]: the text and markdown reports, including the Gatekeeper section.

pub mod fixes;
pub mod grouping;
pub mod label_targets;
pub mod render;
pub mod verify;
