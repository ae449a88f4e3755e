//! The cluster around the scheduler: the simulation that feeds it pods in order, the
//! controllers that create those pods (ownership, the DaemonSet controller's node rules) and the
//! admission defaults a default cluster applies on the way.
//!
//! - [`simulate`]: nodes and workloads in, the report out;
//! - [`pools`]: node pools from the clouds' labels;
//! - [`changes`]: a change's effect, from the reports before and after it;
//! - [`snapshot`]: the input as a cluster: duplicates, and which pods belong to which controller;
//! - [`controllers`]: owner references, `pod-template-hash`, the selectors the scheduler lists;
//! - [`daemonset`]: `NodeShouldRunDaemonPod` and the daemon pods' tolerations;
//! - [`defaults`]: API defaulting and the admission defaults that change placement;
//! - [`priority`]: the Priority admission plugin (`priorityClassName` into `spec.priority`);
//! - [`disruption`]: the disruptions a PodDisruptionBudget allows, for preemption and drains;
//! - [`what_if`]: kubectl commands (taint, label, cordon, drain, delete nodes) and `add-nodes`
//!   applied to a snapshot before it is simulated.

pub mod changes;
pub mod controllers;
pub mod csi_node_plugins;
pub mod daemonset;
pub mod defaults;
pub mod disruption;
pub mod pools;
pub mod priority;
pub mod simulate;
pub mod snapshot;
pub mod what_if;
