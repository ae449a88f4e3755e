//! # placement-core
//!
//! A no-IO model of how Kubernetes decides where pods go: kube-scheduler's filter and score
//! plugins with upstream's reason strings, the DaemonSet controller's node rules, and the
//! admission defaults that change placement. Pure functions over parsed manifests: no IO, no
//! clock, no randomness, so it runs the same natively, in a Kubewarden policy and in a browser.
//!
//! The modules follow the stages of the data (ARCHITECTURE.md draws the map):
//!
//! - [`input`]: documents in, typed and validated ([`input::documents::parse_manifests`]);
//! - [`model`]: the objects and their textual forms (quantities, labels, taints, versions);
//! - [`cluster`]: the simulation ([`cluster::simulate::simulate`]), controllers, defaults;
//! - [`scheduler`]: one scheduling cycle over the default profile ([`scheduler::schedule`]);
//! - [`explain`]: fixes and the rendered report ([`explain::render`]);
//! - [`admission`]: the Kubewarden policies; [`gatekeeper`]: ConstraintTemplates in Rego;
//! - [`conformance`]: the engine against upstream's test vectors.
//!
//! ```
//! use placement_core::cluster::simulate::{simulate, SimulateOptions};
//! use placement_core::input::documents::parse_manifests;
//!
//! let yaml = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nspec: {taints: [{key: gpu, effect: NoSchedule}]}\n---\n\
//!             apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: i}]}\n";
//! let report = simulate(&parse_manifests(yaml, "example").unwrap(), &SimulateOptions::default()).unwrap();
//! assert_eq!(
//!     report.workloads[0].pods[0].message.as_deref(),
//!     Some("0/1 nodes are available: 1 node(s) had untolerated taint(s). no new claims to deallocate, \
//!           preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling.")
//! );
//! ```

// Field errors carry the offending value for the message; they are built only on the cold
// path of rejecting input, so their size in `Result` does not matter.
#![allow(clippy::result_large_err)]
// Everything here runs inside the Kubewarden policy module (built with `panic = "abort"`, where a
// panic traps the instance) or in the browser: no unwrap, expect, indexing or explicit panics
// outside tests.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

// The benchmarks' generators (benches/common) name this crate `placement_core`; unit tests
// include them through `testing::bench_common`.
#[cfg(test)]
extern crate self as placement_core;

pub mod admission;
pub mod cluster;
pub mod conformance;
pub mod explain;
pub mod gatekeeper;
pub mod input;
pub mod model;
pub mod parallel;
pub mod scheduler;
#[cfg(test)]
mod testing;
