//! # placement-core
//!
//! A no-IO model of how Kubernetes decides where pods go: kube-scheduler's filter and score
//! plugins with upstream's reason strings, the DaemonSet controller's node rules, and the
//! admission defaults that change placement. Pure functions over parsed manifests: no IO, no
//! clock, no randomness, so it runs the same natively, in a Kubewarden policy and in a browser.
//!
//! Entry points: [`documents::parse_manifests`] reads YAML/JSON, [`simulate::simulate`] runs
//! the cluster, [`render`] formats the report, [`conformance`] checks the engine against the
//! upstream test vectors.

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
pub mod scheduler;
#[cfg(test)]
mod testing;
