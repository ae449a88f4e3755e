//! Fixes, end to end: manifests in, `Report.fixes` out (tests/fixtures/fixes/). A fix is
//! "verified" only when the whole simulation, re-run with it applied, places every replica
//! (for a DaemonSet, runs a daemon pod on every node it names); lifecycle taints get "repair
//! the node"; capacity fixes say how much is missing and which node to copy; toleration fixes
//! come per pool next to the broad one; DaemonSets held off by their selector get the labels.
//!
//! The table rows are (name, fixture, want). Each `want` names the workload and a fix by
//! `kind` (and scope or pool where several share a kind), then what it must say.

use placement_core::cluster::pools::PoolLabel;
use placement_core::cluster::simulate::{simulate, Report, SimulateOptions, WorkloadReport};
use placement_core::cluster::what_if::WhatIf;
use placement_core::explain::fixes::{apply_to_spec, Fix, FixKind};
use placement_core::input::documents::{parse_manifests, Manifests};

fn fixture(name: &str) -> String {
    let path = format!("{}/fixtures/fixes/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn load(name: &str) -> Manifests {
    parse_manifests(&fixture(name), name).unwrap_or_else(|e| panic!("parse {name}: {e}"))
}

fn run(m: &Manifests) -> Report {
    simulate(m, &SimulateOptions::default()).unwrap_or_else(|e| panic!("simulate: {e:?}"))
}

fn workload<'a>(r: &'a Report, name: &str) -> &'a WorkloadReport {
    r.workloads.iter().find(|w| w.name == name).unwrap_or_else(|| panic!("no workload {name}"))
}

/// What one fix must be.
struct Want {
    workload: &'static str,
    kind: FixKind,
    /// Picks the fix among those of `kind`: its scope, or its pool.
    scope: Option<&'static str>,
    pool: Option<&'static str>,
    verified: bool,
    nodes: &'static [&'static str],
    /// Substrings of the description.
    says: &'static [&'static str],
    command: Option<&'static str>,
    /// Substring of `still_blocked` (unverified fixes only).
    still_blocked: Option<&'static str>,
}

const NOT_READY: &str = "ip-10-0-1-10.ec2.internal";

fn table() -> Vec<(&'static str, &'static str, Want)> {
    let base = |workload, kind| Want {
        workload,
        kind,
        scope: None,
        pool: None,
        verified: true,
        nodes: &[],
        says: &[],
        command: None,
        still_blocked: None,
    };
    vec![
        (
            "a NotReady node is repaired, with its conditions, not tolerated",
            "notready-eks.yaml",
            Want {
                nodes: &[NOT_READY],
                says: &[
                    "repair the node",
                    "node.kubernetes.io/not-ready:NoSchedule",
                    "Ready=False (KubeletNotReady: container runtime network not ready",
                    "cni plugin not initialized",
                ],
                command: Some("kubectl describe node ip-10-0-1-10.ec2.internal"),
                ..base("web", FixKind::RepairNode)
            },
        ),
        (
            "a DaemonSet kept off a NotReady node: repair, not a toleration",
            "notready-eks.yaml",
            Want { nodes: &[NOT_READY], says: &["repair the node", "Ready=False"], ..base("node-agent", FixKind::RepairNode) },
        ),
        (
            "the healthy node is full: add one like it",
            "notready-eks.yaml",
            Want {
                pool: Some("general"),
                says: &["needs 900m more cpu", "add 1 node like ip-10-0-2-20.ec2.internal (pool general)"],
                command: Some("placement simulate --what-if 'add-nodes 1 like ip-10-0-2-20.ec2.internal'"),
                ..base("web", FixKind::Capacity)
            },
        ),
        (
            "GPU capacity: how much is missing and which node to copy",
            "gpu-capacity.yaml",
            Want {
                pool: Some("gpu"),
                nodes: &["gpu-1"],
                says: &["needs 1 more nvidia.com/gpu", "add 1 node like gpu-1 (pool gpu)"],
                command: Some("placement simulate --what-if 'add-nodes 1 like gpu-1'"),
                ..base("inference", FixKind::Capacity)
            },
        ),
        (
            "GPU feature discovery: the label no node has, for the pool with the GPUs",
            "daemonset-selector.yaml",
            Want {
                scope: Some("pool"),
                pool: Some("gpu"),
                nodes: &["gpu-1", "gpu-2"],
                says: &[
                    "label the nodes it should run on: feature.node.kubernetes.io/pci-10de.present=true",
                    "most likely meant: pool gpu (2 nodes: has nvidia.com/gpu: PCI vendor 10de is NVIDIA)",
                    "then pool general (1 node)",
                ],
                command: Some(
                    "kubectl label nodes -l eks.amazonaws.com/nodegroup=gpu feature.node.kubernetes.io/pci-10de.present=true",
                ),
                ..base("gpu-feature-discovery", FixKind::NodeLabels)
            },
        ),
        (
            "eight node groups: the label once, the GPU groups first, the rest counted",
            "daemonset-selector-many-pools.yaml",
            Want {
                scope: Some("pool"),
                pool: Some("inference"),
                nodes: &["inference-1", "inference-2"],
                says: &[
                    "(its nodeSelector/affinity asks for it; 14 of 14 nodes lack it)",
                    "most likely meant: pool inference (2 nodes: has nvidia.com/gpu: PCI vendor 10de is NVIDIA)",
                    "then pool train (1 node: has nvidia.com/gpu: PCI vendor 10de is NVIDIA), pool general (3 nodes)",
                    "5 more groups of nodes lack it",
                ],
                command: Some(
                    "kubectl label nodes -l eks.amazonaws.com/nodegroup=inference feature.node.kubernetes.io/pci-10de.present=true",
                ),
                ..base("gpu-feature-discovery", FixKind::NodeLabels)
            },
        ),
        (
            "GPU feature discovery: or the selector change",
            "daemonset-selector.yaml",
            Want {
                nodes: &["gpu-1", "gpu-2", "cpu-1"],
                says: &["drop nodeSelector feature.node.kubernetes.io/pci-10de.present=true"],
                ..base("gpu-feature-discovery", FixKind::Selector)
            },
        ),
        (
            "a toleration for one pool: exactly its taint, and pods still Pending on cpu",
            "toleration-cpu.yaml",
            Want {
                scope: Some("pool"),
                pool: Some("batch"),
                verified: false,
                nodes: &["batch-1"],
                says: &["tolerate dedicated=batch:NoSchedule (the taints of pool batch)"],
                still_blocked: Some("4 of 8 pods still Pending: 0/3 nodes are available"),
                ..base("worker", FixKind::Toleration)
            },
        ),
        (
            "the broad toleration next to the per-pool ones, still short of cpu",
            "toleration-cpu.yaml",
            Want {
                scope: Some("all"),
                verified: false,
                nodes: &["batch-1", "spot-1"],
                says: &["dedicated=batch:NoSchedule, spot=true:NoSchedule"],
                still_blocked: Some("2 of 8 pods still Pending: 0/3 nodes are available: 3 Insufficient cpu."),
                ..base("worker", FixKind::Toleration)
            },
        ),
        (
            "what the tolerations leave Pending: add nodes",
            "toleration-cpu.yaml",
            Want {
                pool: Some("general"),
                says: &["needs 6 more cpu (6 pods without a node, 1 cpu each): add 3 nodes like general-1"],
                command: Some("placement simulate --what-if 'add-nodes 3 like general-1'"),
                ..base("worker", FixKind::Capacity)
            },
        ),
    ]
}

fn find<'a>(w: &'a WorkloadReport, want: &Want) -> Option<&'a Fix> {
    w.fixes.iter().find(|f| {
        f.kind == want.kind
            && want.scope.is_none_or(|s| f.scope == Some(s))
            && want.pool.is_none_or(|p| f.pool.as_deref() == Some(p))
    })
}

#[test]
fn fixes_table() {
    let mut failures = Vec::new();
    for (name, file, want) in table() {
        let report = run(&load(file));
        let w = workload(&report, want.workload);
        let Some(f) = find(w, &want) else {
            failures.push(format!("{name}: no {:?} fix in {:#?}", want.kind, w.fixes));
            continue;
        };
        let mut wrong = Vec::new();
        if f.verified != want.verified {
            wrong.push(format!("verified {} (still_blocked {:?})", f.verified, f.still_blocked));
        }
        if !want.nodes.is_empty() && f.nodes != want.nodes {
            wrong.push(format!("nodes {:?}", f.nodes));
        }
        for s in want.says {
            if !f.description.contains(s) {
                wrong.push(format!("description lacks {s:?}"));
            }
        }
        if let Some(c) = want.command {
            if f.command.as_deref() != Some(c) {
                wrong.push(format!("command {:?}", f.command));
            }
        }
        match (want.still_blocked, &f.still_blocked) {
            (None, None) => {}
            (Some(s), Some(got)) if got.contains(s) => {}
            (_, got) => wrong.push(format!("still_blocked {got:?}")),
        }
        if !wrong.is_empty() {
            failures.push(format!("{name}: {}\n  {}", wrong.join("; "), f.description));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

const FIXTURES: [&str; 5] = [
    "notready-eks.yaml",
    "gpu-capacity.yaml",
    "daemonset-selector.yaml",
    "daemonset-selector-many-pools.yaml",
    "toleration-cpu.yaml",
];

/// A DaemonSet held off by its selector gets one node-label fix, however many pools miss it:
/// the pools it names are ranked and bounded, and the fix is re-simulated on its nodes.
#[test]
fn node_labels_are_offered_once_with_bounded_targets() {
    for (file, pools) in [("daemonset-selector.yaml", 2), ("daemonset-selector-many-pools.yaml", 8)] {
        let report = run(&load(file));
        let w = workload(&report, "gpu-feature-discovery");
        let labels: Vec<&Fix> = w.fixes.iter().filter(|f| f.kind == FixKind::NodeLabels).collect();
        assert_eq!(labels.len(), 1, "{file}: {:#?}", w.fixes);
        let f = labels[0];
        assert_eq!(f.targets.len(), pools.min(placement_core::explain::label_targets::MAX_TARGETS), "{file}");
        assert_eq!(f.targets.first().map(|t| &t.nodes), Some(&f.nodes), "{file}: the fix is for the first target");
        assert!(f.verified, "{file}: {:?}", f.still_blocked);
        let json = serde_json::to_value(f).unwrap();
        assert_eq!(json["targets"][0]["reasons"][0], "has nvidia.com/gpu: PCI vendor 10de is NVIDIA", "{file}");
    }
}

/// No fix tolerates a taint the node controllers manage, and every fix is either verified or
/// says what still blocks.
#[test]
fn no_lifecycle_toleration_and_no_silent_failure() {
    for file in FIXTURES {
        let report = run(&load(file));
        for w in &report.workloads {
            for f in &w.fixes {
                let patch = f.patch.as_deref().unwrap_or("");
                for key in [
                    "node.kubernetes.io/not-ready",
                    "node.kubernetes.io/unreachable",
                    "node.kubernetes.io/unschedulable",
                ] {
                    assert!(!patch.contains(key), "{file} {}: tolerates {key}: {f:#?}", w.name);
                }
                assert_eq!(f.verified, f.still_blocked.is_none(), "{file} {}: {f:#?}", w.name);
            }
        }
    }
}

/// The oracle for `verified`, independent of the code that sets it: apply each verified patch
/// to the manifest's template, simulate, and count.
#[test]
fn every_verified_patch_places_every_replica_when_applied() {
    let mut checked = 0;
    for file in FIXTURES {
        let manifests = load(file);
        let report = run(&manifests);
        for w in &report.workloads {
            for f in w.fixes.iter().filter(|f| f.patch.is_some()) {
                let mut m = manifests.clone();
                let target = std::sync::Arc::make_mut(
                    m.workloads.iter_mut().find(|x| x.name == w.name).expect("workload in the input"),
                );
                target.template.spec =
                    apply_to_spec(&target.template.spec, f.patch.as_deref().unwrap(), target.kind).expect("applies");
                let after = run(&m);
                let a = workload(&after, &w.name);
                let fixed = if a.kind == "DaemonSet" {
                    f.nodes.iter().all(|n| a.nodes.get(n).is_some_and(|r| r.fits))
                } else {
                    a.pending == 0 && a.scheduled == a.desired
                };
                assert_eq!(fixed, f.verified, "{file} {}: {f:#?}", w.name);
                checked += 1;
            }
        }
    }
    assert!(checked >= 5, "only {checked} patches checked");
}

/// The capacity fix's command, run as a what-if, leaves nothing Pending.
#[test]
fn capacity_command_places_every_replica() {
    for (file, name) in [("gpu-capacity.yaml", "inference"), ("toleration-cpu.yaml", "worker")] {
        let manifests = load(file);
        let report = run(&manifests);
        let fix = workload(&report, name).fixes.iter().find(|f| f.kind == FixKind::Capacity).expect("a capacity fix");
        let command = fix.command.as_deref().unwrap();
        let what_if = command.split('\'').nth(1).expect("a quoted what-if");
        let cmd: WhatIf = what_if.parse().unwrap_or_else(|e| panic!("{what_if}: {e}"));
        let after = placement_core::cluster::what_if::run::simulate_what_if(
            &manifests,
            &[cmd],
            &SimulateOptions::default(),
            &PoolLabel::Detect,
        )
        .unwrap_or_else(|e| panic!("{what_if}: {e:?}"));
        let w = workload(&after, name);
        assert_eq!((w.pending, w.scheduled), (0, w.desired), "{file}: {what_if}");
    }
}

/// A GPU pod is not offered a CPU node: the selector fix that would send it there reaches no
/// node with a GPU, so it is not offered next to the capacity fix that works.
#[test]
fn gpu_selector_fix_that_does_not_fix_is_not_offered() {
    let report = run(&load("gpu-capacity.yaml"));
    let w = workload(&report, "inference");
    assert!(w.fixes.iter().all(|f| f.kind != FixKind::Selector), "{:#?}", w.fixes);
    assert!(w.fixes.iter().all(|f| f.verified), "{:#?}", w.fixes);
}

/// A pod larger than any node: no node to copy, so the capacity fix says what is asked and
/// what the largest node has, and is not verified.
#[test]
fn pod_larger_than_every_node() {
    let yaml = "apiVersion: v1\nkind: Node\nmetadata: {name: small, labels: {kubernetes.io/hostname: small}}\nstatus:\n  allocatable: {cpu: '2', memory: 8Gi, pods: '110'}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: x}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: big}}\n  template:\n    metadata: {labels: {app: big}}\n    spec:\n      containers: [{name: c, image: i, resources: {requests: {cpu: '3'}}}]\n";
    let report = run(&parse_manifests(yaml, "t.yaml").unwrap());
    let w = workload(&report, "big");
    let f = w.fixes.iter().find(|f| f.kind == FixKind::Capacity).unwrap_or_else(|| panic!("{:#?}", w.fixes));
    assert!(!f.verified);
    assert!(f.description.contains("each pod requests 3 cpu (the largest node has 2)"), "{}", f.description);
    assert!(f.command.is_none() && f.patch.is_none());
    let requests = w.fixes.iter().find(|f| f.kind == FixKind::Requests).expect("a requests fix");
    assert!(requests.verified && requests.description.contains("requests.cpu 3 -> 2"), "{requests:#?}");
}

/// The text and markdown reports say what still blocks an unverified fix.
#[test]
fn reports_say_what_still_blocks() {
    let report = run(&load("toleration-cpu.yaml"));
    let text = placement_core::explain::render::text(&report);
    assert!(text.contains("    Not verified: 4 of 8 pods still Pending: 0/3 nodes are available"), "{text}");
    let markdown = placement_core::explain::render::markdown(&report);
    assert!(markdown.contains("> **Not verified:** 2 of 8 pods still Pending"), "{markdown}");
    assert!(markdown.contains("**Fix (NodeResourcesFit, verified)**: needs 6 more cpu"), "{markdown}");
}
