//! Priorities and preemption over a snapshot written as `kubectl get ... -o yaml` prints it
//! (`tests/fixtures/snapshots/priorities.yaml`) and over hand-written manifests, through
//! placement-core's public API. The expectations follow upstream's rules
//! (`framework/preemption/preemption.go`, `plugins/defaultpreemption/default_preemption.go`,
//! `plugin/pkg/admission/priority`), not Placement's output.

use std::path::Path;

use placement_core::cluster::simulate::{simulate, PodReport, Report, SimulateOptions, WorkloadReport};
use placement_core::input::documents::{parse_manifests, InputError};

fn run_text(text: &str, name: &str) -> Result<Report, Vec<InputError>> {
    let m = parse_manifests(text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    simulate(&m, &SimulateOptions::default())
}

fn snapshot(name: &str) -> Report {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/snapshots").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    run_text(&text, name).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn workload<'a>(r: &'a Report, kind: &str, name: &str) -> &'a WorkloadReport {
    r.workloads.iter().find(|w| w.kind == kind && w.name == name).unwrap_or_else(|| panic!("no {kind} {name}"))
}

fn pod<'a>(w: &'a WorkloadReport, name: &str) -> &'a PodReport {
    w.pods.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no pod {name} in {}", w.name))
}

#[test]
fn a_critical_daemonset_preempts_the_lowest_priority_pods() {
    let r = snapshot("priorities.yaml");
    let agent = workload(&r, "DaemonSet", "agent");
    assert_eq!((agent.desired, agent.current, agent.scheduled), (2, 2, 2));
    for (node, victim) in [("node-a", "jobs/batch-5f7d9-aaaaa"), ("node-b", "jobs/batch-5f7d9-bbbbb")] {
        let p = pod(agent, &format!("agent-{node}"));
        assert_eq!(p.node.as_deref(), Some(node));
        let preemption = p.preemption.as_ref().expect("the daemon pod preempted");
        // The web pod (priority 1000) is given back first and still leaves room: only the
        // batch pod (priority 100) goes.
        assert_eq!(preemption.victims, vec![victim.to_string()]);
        // The first cycle's FailedScheduling event: PostFilter succeeded, so no PostFilter part.
        assert_eq!(
            preemption.message,
            "0/2 nodes are available: 1 Insufficient cpu, 1 node(s) didn't satisfy plugin(s) [NodeAffinity]."
        );
    }
    let batch = workload(&r, "ReplicaSet", "batch-5f7d9");
    let victim = pod(batch, "batch-5f7d9-aaaaa");
    let preempted = victim.preempted.as_ref().expect("the batch pod was preempted");
    assert_eq!(
        (preempted.by.as_str(), preempted.by_priority, preempted.priority),
        ("kube-system/agent-node-a", 2_000_001_000, 100)
    );
    assert_eq!(preempted.condition, "default-scheduler: preempting to accommodate a higher priority pod");
    assert!(!victim.is_active());
    // The ReplicaSet replaces both; the replacements (priority 100) cannot preempt anyone.
    assert_eq!((batch.desired, batch.current, batch.scheduled, batch.pending), (2, 2, 0, 2));
    let replacement = batch.pods.iter().find(|p| p.snapshot.is_none()).expect("a replacement");
    assert_eq!(
        replacement.message.as_deref(),
        Some("0/2 nodes are available: 2 Insufficient cpu. no new claims to deallocate, preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.")
    );
    // The request fix says why preemption cannot help the replacement.
    let warning = batch.fixes.iter().find_map(|f| f.warning.clone()).unwrap_or_default();
    assert!(
        warning.contains(
            "preemption cannot make room on node-a: none of its 3 pods has a priority below this pod's (100)"
        ),
        "{warning}"
    );
    // The web pods, whose budget allows no disruption, keep running.
    assert!(workload(&r, "Pod", "web-1").pods.iter().all(|p| p.preempted.is_none()));
}

const NODE: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a, labels: {kubernetes.io/hostname: node-a}}\nstatus: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}\n---\n";

fn low_pod(name: &str, cpu: &str) -> String {
    format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  nodeName: node-a\n  priorityClassName: low\n  containers: [{{name: c, image: busybox, resources: {{requests: {{cpu: {cpu}}}}}}}]\n---\n")
}

const LOW_CLASS: &str =
    "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: low}\nvalue: 100\n---\n";

#[test]
fn the_issues_daemonset_runs_where_the_low_priority_pod_was() {
    let agent = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: kube-system}\nspec:\n  selector: {matchLabels: {app: agent}}\n  template:\n    metadata: {labels: {app: agent}}\n    spec:\n      priorityClassName: system-node-critical\n      containers: [{name: c, image: agent, resources: {requests: {cpu: '1'}}}]\n";
    let text = format!("{NODE}{LOW_CLASS}{}{agent}", low_pod("batch", "1500m"));
    let r = run_text(&text, "issue").unwrap();
    let ds = workload(&r, "DaemonSet", "agent");
    assert_eq!(pod(ds, "agent-node-a").node.as_deref(), Some("node-a"));
    assert!(ds.fixes.is_empty(), "no fix lowers the agent's requests: {:?}", ds.fixes);
    assert!(pod(workload(&r, "Pod", "batch"), "batch").preempted.is_some());
}

#[test]
fn never_and_equal_priorities_do_not_preempt() {
    let web = |policy: &str| {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: web}}\nspec:\n  priorityClassName: high\n{policy}  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: '1'}}}}}}]\n---\n")
    };
    let high = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n";
    let text = format!("{NODE}{LOW_CLASS}{high}{}{}", low_pod("batch", "1500m"), web("  preemptionPolicy: Never\n"));
    let r = run_text(&text, "never").unwrap();
    assert_eq!(
        pod(workload(&r, "Pod", "web"), "web").message.as_deref(),
        Some("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: not eligible due to preemptionPolicy=Never.")
    );
    // A pod of the same priority as the running one finds no victim.
    let same = format!(
        "{NODE}{LOW_CLASS}{}{}",
        low_pod("batch", "1500m"),
        low_pod("other", "1").replace("nodeName: node-a\n  ", "")
    );
    let r = run_text(&same, "same").unwrap();
    assert_eq!(
        pod(workload(&r, "Pod", "other"), "other").message.as_deref(),
        Some("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.")
    );
}

#[test]
fn the_queue_takes_higher_priorities_first() {
    // Two pods that cannot both fit, the lower-priority one first in the input: the queue
    // schedules the higher one first, and the other stays Pending without preempting.
    let high = "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n---\n";
    let pod_doc = |name: &str, class: &str| {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec:\n  priorityClassName: {class}\n  containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 1500m}}}}}}]\n---\n")
    };
    let text = format!("{NODE}{LOW_CLASS}{high}{}{}", pod_doc("first", "low"), pod_doc("second", "high"));
    let r = run_text(&text, "queue").unwrap();
    assert_eq!(pod(workload(&r, "Pod", "second"), "second").node.as_deref(), Some("node-a"));
    let first = pod(workload(&r, "Pod", "first"), "first");
    assert!(first.node.is_none() && first.preempted.is_none());
}

#[test]
fn a_missing_priority_class_is_refused_in_the_api_servers_words() {
    let pod_doc = "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n  priorityClassName: gold\n  containers: [{name: c, image: nginx}]\n";
    let errors = run_text(&format!("{NODE}{pod_doc}"), "missing").unwrap_err();
    let text: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert!(
        text.iter().any(|e| e.ends_with("pods \"web\" is forbidden: no PriorityClass with name gold was found")),
        "{text:?}"
    );
    // A controller's pods are refused when it creates them: FailedCreate, no pod.
    let deployment = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: api}}\n  template:\n    metadata: {labels: {app: api}}\n    spec:\n      priorityClassName: gold\n      containers: [{name: c, image: nginx}]\n";
    let r = run_text(&format!("{NODE}{deployment}"), "controller").unwrap();
    let api = workload(&r, "Deployment", "api");
    assert_eq!(api.current, 0);
    // The ReplicaSet's pods are named after it (`api-<pod-template-hash>-`).
    let event = api.failed_create.as_deref().unwrap_or_default();
    assert!(event.starts_with("Error creating: pods \"api-"), "{event}");
    assert!(event.ends_with("-\" is forbidden: no PriorityClass with name gold was found"), "{event}");
}

/// The snapshot's budget `shop/web` was read back allowing no disruption: a drain of node-a
/// leaves web-1 there, in kubectl's words, and the JSON names the budget and what unblocks it.
#[test]
fn a_drain_waits_on_the_snapshots_disruption_budget() {
    use placement_core::cluster::pools::PoolLabel;
    use placement_core::cluster::what_if::{simulate_what_if, WhatIf};
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/snapshots/priorities.yaml");
    let text = std::fs::read_to_string(&path).unwrap();
    let m = parse_manifests(&text, "priorities.yaml").unwrap();
    let drain: WhatIf = "kubectl drain node-a --force --ignore-daemonsets --timeout=30s".parse().unwrap();
    let r = simulate_what_if(&m, &[drain], &SimulateOptions::default(), &PoolLabel::Detect).unwrap();
    let json = serde_json::to_value(&r).unwrap();
    let command = &json["changes"]["commands"][0];
    let output: Vec<&str> = command["output"].as_array().unwrap().iter().filter_map(|l| l.as_str()).collect();
    assert!(
        output.contains(&"error when evicting pods/\"web-1\" -n \"shop\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."),
        "{output:#?}"
    );
    assert!(
        output.contains(&"error: unable to drain node \"node-a\" due to error: error when evicting pods/\"web-1\" -n \"shop\": global timeout reached: 30s, continuing command..."),
        "{output:#?}"
    );
    assert!(!output.contains(&"node/node-a drained"), "{output:#?}");
    let blocked = &command["blocked"][0];
    assert_eq!(blocked["pod"], "shop/web-1");
    assert_eq!(blocked["budget"], "shop/web");
    assert_eq!((blocked["disruptionsAllowed"].as_i64(), blocked["desiredHealthy"].as_i64()), (Some(0), Some(2)));
    assert!(blocked["unblock"]
        .as_array()
        .is_some_and(|u| u.iter().any(|w| w.as_str().is_some_and(|w| w.contains("--disable-eviction")))));
    // The batch pod on node-a has no budget: it goes.
    let evicted: Vec<&str> =
        json["changes"]["evicted"].as_array().unwrap().iter().filter_map(|e| e["pod"].as_str()).collect();
    assert!(evicted.contains(&"batch-5f7d9-aaaaa") && !evicted.contains(&"web-1"), "{evicted:?}");
}
