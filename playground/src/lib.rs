//! # placement-playground
//!
//! The browser playground's model, without a UI: everything the playground does between the
//! text in its editors and what it shows, as plain Rust over [`placement_core`]. It compiles
//! natively and for wasm32 and is tested with `cargo test`; `placement-web` (Leptos) and
//! `placement-web-admission` are thin views over it.
//!
//! - [`evaluation`]: two manifest texts and the options in, the views out (errors placed on
//!   editor lines, the workloads × nodes matrix, node capacity, fixes);
//! - [`breakdown`]: a matrix cell plugin by plugin (filters, raw and normalized scores, rank);
//! - [`export`]: the downloads: the report as the CLI writes it (JSON, Markdown), a fix's patch;
//! - [`state`]: the playground as a value with methods, which the UI holds in a signal;
//! - [`apply_fix`]: a fix's patch applied to the manifest text, with core's
//!   [`placement_core::explain::fixes::strategic_merge`];
//! - [`matrix`]: the matrix's node columns: grouped by pool, filtered, alike nodes collapsed;
//! - [`node_table`]: the nodes as editable rows, and `kubectl describe node` read as YAML;
//! - [`pools`]: the nodes by pool, and the what-if command each pool action stands for;
//! - [`what_if`]: the before/after panel: the pending commands' outcomes and their changes;
//! - [`policy_panel`]: the admission panel's requests and verdicts;
//! - [`prune`]: what share links leave out of objects read back from a cluster;
//! - [`share`]: share links (`#s=…`) and the page's routes;
//! - [`glossary`]: a short glossary of the scheduler plugins, for the page;
//! - [`gallery`]: the examples gallery.

pub mod apply_fix;
pub mod breakdown;
pub mod evaluation;
pub mod export;
pub mod gallery;
pub mod glossary;
pub mod history;
pub mod matrix;
pub mod node_table;
pub mod policy_panel;
pub mod pools;
pub mod prune;
pub mod share;
pub mod state;
pub mod what_if;
pub mod yaml_edit;
