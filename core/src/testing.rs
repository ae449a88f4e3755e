//! Builders shared by the unit tests: small, explicit objects instead of YAML fixtures.

use crate::framework::{NodeInfo, PlacedPod};
use crate::model::{Labels, Node, Pod};

pub fn labels(pairs: &[(&str, &str)]) -> Labels {
    pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
}

/// A pod in namespace `ns` with the given labels and an empty spec.
pub fn pod(ns: &str, name: &str, l: &[(&str, &str)]) -> Pod {
    let mut p = Pod::default();
    p.metadata.name = name.into();
    p.metadata.namespace = Some(ns.into());
    p.metadata.labels = labels(l);
    p
}

/// A labelled node (no allocatable: unconstrained) with `pods` already bound to it.
pub fn node_info(name: &str, l: &[(&str, &str)], pods: &[Pod]) -> NodeInfo {
    let mut n = Node::default();
    n.metadata.name = name.into();
    n.metadata.labels = labels(l);
    let mut info = NodeInfo::new(n);
    pods.iter().for_each(|p| info.add_pod(PlacedPod::from_pod(p)));
    info
}

/// The benchmarks' generators (`kubectl get nodes -o yaml` for n nodes and friends), so unit
/// tests read the same inputs the benchmarks measure.
#[path = "../benches/common/mod.rs"]
pub mod bench_common;
