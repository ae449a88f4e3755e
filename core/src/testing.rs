//! Builders shared by the unit tests: small, explicit objects instead of YAML fixtures.

use crate::model::{Labels, Node, Pod};
use crate::scheduler::framework::{NodeInfo, PlacedPod};

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

/// A Node document (ending in `---`) for the simulation's tests: labelled
/// `kubernetes.io/hostname: <name>` and `labels`, tainted with `taints` (key, value, effect),
/// `cpu` allocatable (and 64Gi of memory, 110 pods).
pub fn node_doc(name: &str, labels: &[(&str, &str)], taints: &[(&str, &str, &str)], cpu: &str) -> String {
    let labels: String = labels.iter().map(|(k, v)| format!(", {k}: {v}")).collect();
    let taints: Vec<String> = taints.iter().map(|(k, v, e)| format!("{{key: {k}, value: {v}, effect: {e}}}")).collect();
    format!(
        "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}{labels}}}}}\nspec: {{taints: [{}]}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 64Gi, pods: '110'}}}}\n---\n",
        taints.join(", ")
    )
}

/// A controller's document (ending in `---`): `kind` (`Deployment`, `DaemonSet`) with
/// `replicas` (Deployments), whose pods are labelled `app: <app>` and have the pod spec
/// `spec` (a YAML flow mapping).
pub fn controller_doc(kind: &str, name: &str, replicas: Option<u32>, app: &str, spec: &str) -> String {
    let replicas = replicas.map(|r| format!("  replicas: {r}\n")).unwrap_or_default();
    format!(
        "apiVersion: apps/v1\nkind: {kind}\nmetadata: {{name: {name}}}\nspec:\n{replicas}  selector: {{matchLabels: {{app: {app}}}}}\n  template:\n    metadata: {{labels: {{app: {app}}}}}\n    spec: {spec}\n---\n"
    )
}

/// The manifests of the repository's `examples/` (the playground's gallery), as (file stem,
/// text), sorted by name.
pub fn example_manifests() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|e| e == "yaml"))
        .map(|path| {
            let stem = path.file_stem().unwrap_or_default().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (stem, text)
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no manifests in {}", dir.display());
    out
}

/// The benchmarks' generators (`kubectl get nodes -o yaml` for n nodes and friends), so unit
/// tests read the same inputs the benchmarks measure.
#[path = "../benches/common/mod.rs"]
pub mod bench_common;

/// xorshift64*: deterministic random numbers for the randomized tests, without a dependency.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}
