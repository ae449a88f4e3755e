//! Cluster snapshots, as `kubectl get ... -o yaml` prints them (`tests/fixtures/snapshots/`),
//! through placement-core's public API (`documents::parse_manifests` then `simulate::simulate`)
//! and through the `placement` binary.
//!
//! The fixtures carry what a live cluster puts in that output: managedFields, uids that the
//! ownerReferences match, resourceVersions, status blocks, pod-template-hash and
//! controller-revision-hash labels, service account token volumes, DefaultTolerationSeconds'
//! tolerations, the DaemonSet controller's tolerations and `matchFields` pin on daemon pods. They
//! are written to read as kubectl prints (go-yaml's key order, quoting, and folding at 80
//! columns), not recorded from a live cluster. Their pending pods' PodScheduled messages are
//! written by hand from upstream's rules (as in
//! `engine.rs`): `0/N nodes are available: ` and the "count reason" entries sorted byte-wise,
//! then DynamicResources' `no new claims to deallocate` and DefaultPreemption's text, where
//! taints count as "Preemption is not helpful for scheduling" and resources as "No preemption
//! victims found for incoming pod".
//!
//! Tests marked `` state what Kubernetes does where Placement does not yet;
//! they fail today.

use std::path::{Path, PathBuf};
use std::process::Command;

use placement_core::cluster::simulate::{simulate, NodeReport, PodReport, Report, SimulateOptions, WorkloadReport};
use placement_core::input::documents::{parse_manifests, parse_manifests_reference, Manifests, WorkloadKind};

// ---------------------------------------------------------------------------------------------
// Reading and running

fn fixture_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/snapshots").join(name)
}

fn fixture(name: &str) -> String {
    let path = fixture_path(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("read {}: {e}", path.display()))
}

/// The fixture's objects, read as the CLI reads them (the file name is the source).
fn manifests(name: &str) -> Manifests {
    parse_manifests(&fixture(name), name).unwrap_or_else(|e| panic!("parse {name}: {e}"))
}

fn simulate_manifests(m: &Manifests, what: &str) -> Report {
    simulate(m, &SimulateOptions::default()).unwrap_or_else(|errors| {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("{what}: simulate rejected the input: {list:#?}")
    })
}

fn run(name: &str) -> Report {
    simulate_manifests(&manifests(name), name)
}

fn json(report: &Report) -> String {
    serde_json::to_string_pretty(report).expect("the report serializes")
}

/// The workload reported as `kind namespace/name`.
fn workload<'a>(report: &'a Report, kind: &str, namespace: &str, name: &str) -> &'a WorkloadReport {
    report
        .workloads
        .iter()
        .find(|w| w.kind == kind && w.namespace == namespace && w.name == name)
        .unwrap_or_else(|| panic!("no {kind} {namespace}/{name} in the report:\n{:#?}", reported(report)))
}

/// `kind namespace/name` of every workload reported, in order.
fn reported(report: &Report) -> Vec<String> {
    report.workloads.iter().map(|w| format!("{} {}/{}", w.kind, w.namespace, w.name)).collect()
}

/// DESIRED, CURRENT, SCHEDULED, PENDING.
fn counters(w: &WorkloadReport) -> [i64; 4] {
    [w.desired, w.current, w.scheduled, w.pending]
}

/// Each pod's name and node, in report order.
fn placements(w: &WorkloadReport) -> Vec<(&str, Option<&str>)> {
    w.pods.iter().map(|p| (p.name.as_str(), p.node.as_deref())).collect()
}

/// Each pod's name and STATUS column, in report order.
fn statuses(w: &WorkloadReport) -> Vec<(&str, String)> {
    w.pods.iter().map(|p| (p.name.as_str(), p.status_text())).collect()
}

/// The pods the simulation creates (a snapshot's own pods carry `snapshot`).
fn created(w: &WorkloadReport) -> Vec<(&str, Option<&str>)> {
    w.pods.iter().filter(|p| p.snapshot.is_none()).map(|p| (p.name.as_str(), p.node.as_deref())).collect()
}

fn pod<'a>(w: &'a WorkloadReport, name: &str) -> &'a PodReport {
    w.pods.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("{}: no pod {name}: {:?}", w.name, placements(w)))
}

fn verdict<'a>(w: &'a WorkloadReport, node: &str) -> &'a NodeReport {
    w.nodes.get(node).unwrap_or_else(|| panic!("{}: no verdict for {node}", w.name))
}

/// (fits, plugin, reason, detail) of a node verdict.
fn verdict_of<'a>(w: &'a WorkloadReport, node: &str) -> (bool, Option<&'a str>, Option<&'a str>, Option<&'a str>) {
    let v = verdict(w, node);
    (v.fits, v.plugin, v.reason.as_deref(), v.detail.as_deref())
}

/// A FailedScheduling message of the default version (1.35): the filter histogram, then
/// DynamicResources' PostFilter text for a pod without claims, then DefaultPreemption's.
fn pending_message(summary: &str, preemption: &str) -> String {
    format!("0/{summary}. no new claims to deallocate, preemption: 0/{preemption}.")
}

/// `text` with `from` replaced by `to` once, in the List item named `item` (the first
/// occurrence after its `name:` line; item fields sit at four spaces).
fn edit_item(text: &str, item: &str, from: &str, to: &str) -> String {
    let start = text.find(&format!("\n    name: {item}\n")).unwrap_or_else(|| panic!("no item {item}"));
    let at = start + text[start..].find(from).unwrap_or_else(|| panic!("no {from:?} in {item}"));
    format!("{}{to}{}", &text[..at], &text[at + from.len()..])
}

// ---------------------------------------------------------------------------------------------
// deployment-two-revisions.yaml: `kubectl get nodes,deploy,rs,pods -A -o yaml` (EKS).
//
// shop/checkout went from revision 1 (checkout:1.14.2, ReplicaSet checkout-5f4c8b7d69, now 0
// replicas) to revision 2 (checkout:1.15.0, checkout-7d9b6c5f84), then was scaled from 2 to 3.
// Each pod requests 1500m cpu. The general node (3920m) holds both running pods and a
// kube-proxy pod (100m): 820m free. The GPU node is tainted nvidia.com/gpu=true:NoSchedule. So
// the third pod is pending, and its PodScheduled message is kube-scheduler 1.35's.

const EKS_GENERAL: &str = "ip-10-0-1-23.eu-west-1.compute.internal";
const EKS_GPU: &str = "ip-10-0-2-117.eu-west-1.compute.internal";

#[test]
fn deployment_with_two_revisions_is_reported_once_with_its_pending_pod_explained() {
    let report = run("deployment-two-revisions.yaml");
    let all = json(&report);
    assert_eq!(
        reported(&report),
        ["Deployment shop/checkout", "DaemonSet kube-system/kube-proxy"],
        "one report for the Deployment, none for its ReplicaSets; kube-proxy's pods under their DaemonSet"
    );
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);
    assert!(report.evictions.is_empty(), "{:#?}", report.evictions);

    let checkout = workload(&report, "Deployment", "shop", "checkout");
    assert_eq!(counters(checkout), [3, 3, 2, 1], "DESIRED CURRENT SCHEDULED PENDING\n{all}");
    assert!(!checkout.not_in_input);
    assert_eq!(
        placements(checkout),
        [
            ("checkout-7d9b6c5f84-7lwnm", Some(EKS_GENERAL)),
            ("checkout-7d9b6c5f84-q5r8t", None),
            ("checkout-7d9b6c5f84-x2kqp", Some(EKS_GENERAL)),
        ]
    );
    assert_eq!(created(checkout), [], "the current ReplicaSet has its 3 pods; the old one wants 0");

    let expected = pending_message(
        "2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)",
        "2 nodes are available: 1 No preemption victims found for incoming pod, \
         1 Preemption is not helpful for scheduling",
    );
    let pending = pod(checkout, "checkout-7d9b6c5f84-q5r8t");
    assert_eq!(pending.message.as_deref(), Some(expected.as_str()), "{all}");
    let snapshot = pending.snapshot.as_ref().expect("a snapshot pod");
    assert_eq!(snapshot.status, "Pending");
    assert_eq!(snapshot.message.as_deref(), Some(expected.as_str()), "the fixture's PodScheduled message");
    assert!(!snapshot.message_differs, "Placement's message is the snapshot's");
    assert_eq!(
        verdict_of(checkout, EKS_GENERAL),
        (false, Some("NodeResourcesFit"), Some("Insufficient cpu"), Some("needs 1500m cpu, 820m free"))
    );
    assert_eq!(
        verdict_of(checkout, EKS_GPU),
        (
            false,
            Some("TaintToleration"),
            Some("node(s) had untolerated taint(s)"),
            Some("untolerated taint {nvidia.com/gpu: true} (NoSchedule)")
        )
    );
    assert_eq!(statuses(checkout)[0].1, "Running");
    assert_eq!(statuses(checkout)[1].1, format!("Pending: {expected}"));

    let kube_proxy = workload(&report, "DaemonSet", "kube-system", "kube-proxy");
    assert!(kube_proxy.not_in_input);
    assert_eq!(counters(kube_proxy), [2, 2, 2, 0]);
    assert_eq!(placements(kube_proxy), [("kube-proxy-2xwbf", Some(EKS_GENERAL)), ("kube-proxy-ljv6h", Some(EKS_GPU))]);
}

// ---------------------------------------------------------------------------------------------
// statefulset.yaml: `kubectl get nodes,statefulsets,pods -n default -o yaml` (kubeadm).
//
// StatefulSet web (3 replicas) right after `kubectl delete pod web-1`: web-0 runs on worker-1,
// web-2 on worker-3. The controller recreates web-1 and nothing else.

#[test]
fn statefulset_creates_exactly_its_missing_ordinal() {
    let report = run("statefulset.yaml");
    assert_eq!(reported(&report), ["StatefulSet default/web"]);
    // The snapshot has no claims, volumes or classes: the volume plugins are not evaluated,
    // and the report says so rather than calling web-1's claim missing.
    assert_eq!(report.warnings.len(), 1, "{:#?}", report.warnings);
    assert!(report.warnings[0].contains("pods and controllers use PersistentVolumeClaims"), "{:#?}", report.warnings);
    let web = workload(&report, "StatefulSet", "default", "web");
    assert_eq!(counters(web), [3, 3, 3, 0], "{}", json(&report));
    assert_eq!(created(web), [("web-1", Some("worker-2"))], "web-1 goes to the node without a web pod");
    assert_eq!(
        statuses(web),
        [("web-0", "Running".to_string()), ("web-2", "Running".to_string()), ("web-1", "Scheduled".to_string())]
    );
    assert_eq!(
        verdict_of(web, "cp-1"),
        (
            false,
            Some("TaintToleration"),
            Some("node(s) had untolerated taint(s)"),
            Some("untolerated taint {node-role.kubernetes.io/control-plane: } (NoSchedule)")
        )
    );
}

/// The same snapshot a moment after `kubectl delete pod web-1` while web-1 still terminates on
/// worker-2. The StatefulSet controller waits until web-1 is gone and then creates web-1 again
/// (`monotonic` OrderedReady stops at a terminating pod); it never creates an ordinal at or
/// above `replicas`.
#[test]

fn statefulset_keeps_the_ordinal_of_its_terminating_pod() {
    let mut m = manifests("statefulset.yaml");
    let mut web1 = (**m.workloads.iter().find(|w| w.name == "web-0").expect("web-0")).clone();
    web1.name = "web-1".into();
    web1.doc.name = "web-1".into();
    web1.metadata.name = "web-1".into();
    web1.metadata.uid = "5b0f6a8e-3c1d-4e7a-9f2b-8d4c6e1a7b39".into();
    web1.metadata.deletion_timestamp = Some("2026-03-22T14:00:10Z".into());
    web1.template.metadata = web1.metadata.clone();
    let labels = &mut web1.template.metadata.labels;
    labels.insert("apps.kubernetes.io/pod-index".into(), "1".into());
    labels.insert("statefulset.kubernetes.io/pod-name".into(), "web-1".into());
    web1.template.spec.node_name = "worker-2".into();
    m.workloads.push(web1.into());
    let report = simulate_manifests(&m, "statefulset.yaml with web-1 terminating");
    let web = workload(&report, "StatefulSet", "default", "web");
    for (name, _) in placements(web) {
        assert!(["web-0", "web-1", "web-2"].contains(&name), "{name}: not an ordinal of 3 replicas\n{}", json(&report));
    }
    assert_eq!(web.pending, 0, "{}", json(&report));
}

// ---------------------------------------------------------------------------------------------
// daemonset-missing-nodes.yaml: `kubectl get nodes,ds,pods -A -o yaml` (EKS).
//
// Four nodes: general ip-10-0-1-23, batch ip-10-0-2-140 and ip-10-0-2-177 (tainted
// workload=batch:NoSchedule), and general ip-10-0-3-91, which joined three minutes ago and has
// no daemon pod yet. monitoring/node-exporter (hostNetwork, hostPort 9100, tolerates every
// taint) runs on the first three; security/security-agent tolerates the control plane only
// and runs on ip-10-0-1-23.
//
// The original bug: every daemon pod was created again beside the running ones, and each
// collided with them on hostPort 9100 (`DESIRED 11 CURRENT 0 PENDING 11 ... host port 9100/TCP
// already in use`).

const DS_GENERAL_OLD: &str = "ip-10-0-1-23.eu-west-1.compute.internal";
const DS_BATCH_A: &str = "ip-10-0-2-140.eu-west-1.compute.internal";
const DS_BATCH_B: &str = "ip-10-0-2-177.eu-west-1.compute.internal";
const DS_GENERAL_NEW: &str = "ip-10-0-3-91.eu-west-1.compute.internal";

#[test]
fn daemonsets_create_pods_only_for_the_node_that_has_none() {
    let report = run("daemonset-missing-nodes.yaml");
    let all = json(&report);
    assert_eq!(reported(&report), ["DaemonSet monitoring/node-exporter", "DaemonSet security/security-agent"]);
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);
    assert!(report.evictions.is_empty(), "{:#?}", report.evictions);
    for w in &report.workloads {
        for p in &w.pods {
            assert_eq!(
                (p.node.is_some(), p.message.as_deref()),
                (true, None),
                "{}/{}: every pod runs\n{all}",
                w.name,
                p.name
            );
        }
    }

    let exporter = workload(&report, "DaemonSet", "monitoring", "node-exporter");
    assert_eq!(counters(exporter), [4, 4, 4, 0], "{all}");
    assert_eq!(
        placements(exporter),
        [
            ("node-exporter-4hn8d", Some(DS_GENERAL_OLD)),
            ("node-exporter-c6tjw", Some(DS_BATCH_B)),
            ("node-exporter-rkx2g", Some(DS_BATCH_A)),
            ("node-exporter-ip-10-0-3-91.eu-west-1.compute.internal", Some(DS_GENERAL_NEW)),
        ]
    );
    assert_eq!(created(exporter).len(), 1, "one pod, for the new node only");
    for node in [DS_GENERAL_OLD, DS_BATCH_A, DS_BATCH_B, DS_GENERAL_NEW] {
        assert!(verdict(exporter, node).fits, "{node}: {:?}", verdict(exporter, node));
    }

    let agent = workload(&report, "DaemonSet", "security", "security-agent");
    assert_eq!(counters(agent), [2, 2, 2, 0], "DESIRED leaves out the tainted batch pool\n{all}");
    assert_eq!(
        placements(agent),
        [
            ("security-agent-b8mzw", Some(DS_GENERAL_OLD)),
            ("security-agent-ip-10-0-3-91.eu-west-1.compute.internal", Some(DS_GENERAL_NEW)),
        ]
    );
    for node in [DS_BATCH_A, DS_BATCH_B] {
        assert_eq!(
            verdict_of(agent, node),
            (
                false,
                Some("TaintToleration"),
                Some("node(s) had untolerated taint(s)"),
                Some("untolerated taint {workload: batch} (NoSchedule); the DaemonSet controller creates no pod here")
            ),
            "{node}"
        );
    }
    assert!(verdict(agent, DS_GENERAL_OLD).fits && verdict(agent, DS_GENERAL_NEW).fits);
}

/// A daemon pod being deleted (`kubectl delete pod`, or a RollingUpdate with maxUnavailable 1)
/// still holds its node and its host port. The DaemonSet controller creates no replacement
/// while it terminates (`podsShouldBeOnNode`: the node has daemon pods, none running, and
/// without surge nothing is created), so nothing is pending.
#[test]

fn daemonset_waits_for_its_terminating_pod() {
    let mut m = manifests("daemonset-missing-nodes.yaml");
    let terminating =
        std::sync::Arc::make_mut(m.workloads.iter_mut().find(|w| w.name == "node-exporter-c6tjw").expect("the pod"));
    terminating.metadata.deletion_timestamp = Some("2026-03-13T07:30:25Z".into());
    let report = simulate_manifests(&m, "daemonset-missing-nodes.yaml with node-exporter-c6tjw terminating");
    let exporter = workload(&report, "DaemonSet", "monitoring", "node-exporter");
    assert_eq!(
        created(exporter),
        [("node-exporter-ip-10-0-3-91.eu-west-1.compute.internal", Some(DS_GENERAL_NEW))],
        "no replacement for {DS_BATCH_B} while node-exporter-c6tjw terminates\n{}",
        json(&report)
    );
    assert_eq!(exporter.pending, 0, "{}", json(&report));
}

// ---------------------------------------------------------------------------------------------
// jobs-and-finished-pods.yaml: `kubectl get nodes,jobs,cronjobs,pods -n reporting -o yaml`.
//
// Job backfill-2026-03 (completions 3, parallelism 1, 1500m cpu per pod): two pods Succeeded on
// batch-1, the third Running on batch-2. CronJob nightly-report: its Job nightly-report-29579160
// completed, its pod (500m) Succeeded on batch-1. Pod adhoc-export (1 cpu, `kubectl run
// --restart=Never`) Failed on batch-1. Counting the finished pods, batch-1 (4 cpu) would be
// over-full: 1500m + 1500m + 500m + 1000m = 4500m.

const DB_MIGRATE: &str = "apiVersion: batch/v1
kind: Job
metadata:
  name: db-migrate
  namespace: reporting
spec:
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: migrate
        image: registry.acme.internal/reporting/migrate:2.8.0
        resources:
          requests: {cpu: \"3\", memory: 2Gi}
";

#[test]
fn finished_pods_hold_nothing_and_done_jobs_create_nothing() {
    let report = run("jobs-and-finished-pods.yaml");
    let all = json(&report);
    assert_eq!(
        reported(&report),
        ["Job reporting/backfill-2026-03", "CronJob reporting/nightly-report", "Pod reporting/adhoc-export"]
    );
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);

    let backfill = workload(&report, "Job", "reporting", "backfill-2026-03");
    assert_eq!(counters(backfill), [1, 1, 1, 0], "two completions done, the third running\n{all}");
    assert_eq!(
        statuses(backfill),
        [
            ("backfill-2026-03-5rj2x", "Succeeded".to_string()),
            ("backfill-2026-03-9wq4n", "Running".to_string()),
            ("backfill-2026-03-tk7dp", "Succeeded".to_string()),
        ]
    );
    assert_eq!(
        placements(backfill),
        [
            ("backfill-2026-03-5rj2x", Some("batch-1")),
            ("backfill-2026-03-9wq4n", Some("batch-2")),
            ("backfill-2026-03-tk7dp", Some("batch-1"))
        ]
    );
    assert_eq!(created(backfill), [], "Succeeded pods count as done completions");

    let nightly = workload(&report, "CronJob", "reporting", "nightly-report");
    assert_eq!(nightly.current, 0, "{all}");
    assert_eq!((nightly.scheduled, nightly.pending), (0, 0));
    assert_eq!(statuses(nightly), [("nightly-report-29579160-mx8fv", "Succeeded".to_string())]);
    assert_eq!(created(nightly), [], "the completed Job creates nothing");

    let adhoc = workload(&report, "Pod", "reporting", "adhoc-export");
    assert_eq!(counters(adhoc), [0, 0, 0, 0], "{all}");
    assert_eq!(statuses(adhoc), [("adhoc-export", "Failed".to_string())]);
    assert_eq!(placements(adhoc), [("adhoc-export", Some("batch-1"))]);
}

/// The snapshot plus a new Job asking for 3 cpu: batch-2 has 2500m free beside the running
/// backfill pod, batch-1 is free only if its finished pods hold nothing.
#[test]
fn a_node_full_only_of_finished_pods_takes_a_new_pod() {
    let mut m = manifests("jobs-and-finished-pods.yaml");
    m.extend(parse_manifests(DB_MIGRATE, "db-migrate.yaml").expect("the Job parses"));
    let report = simulate_manifests(&m, "jobs-and-finished-pods.yaml + db-migrate.yaml");
    let migrate = workload(&report, "Job", "reporting", "db-migrate");
    assert_eq!(counters(migrate), [1, 1, 1, 0], "{}", json(&report));
    assert_eq!(created(migrate), [("db-migrate-0", Some("batch-1"))]);
    assert!(verdict(migrate, "batch-1").fits, "{:?}", verdict(migrate, "batch-1"));
    assert_eq!(
        verdict_of(migrate, "batch-2"),
        (false, Some("NodeResourcesFit"), Some("Insufficient cpu"), Some("needs 3 cpu, 2500m free"))
    );
    let backfill = workload(&report, "Job", "reporting", "backfill-2026-03");
    assert_eq!(created(backfill), [], "the snapshot's Jobs still create nothing");
}

/// What if backfill-2026-03 had completions 5 and parallelism 2? With 2 completions done and
/// 1 pod running, the Job controller wants min(parallelism, completions - succeeded) =
/// min(2, 3) = 2 active pods and creates 1. Placement takes min(parallelism, completions) = 2
/// and subtracts active and succeeded pods: 2 - 1 - 2 < 0, so nothing.
#[test]

fn parallel_job_runs_up_to_its_remaining_completions() {
    let text = fixture("jobs-and-finished-pods.yaml");
    let text = edit_item(&text, "backfill-2026-03", "    completions: 3\n", "    completions: 5\n");
    let text = edit_item(&text, "backfill-2026-03", "    parallelism: 1\n", "    parallelism: 2\n");
    let m = parse_manifests(&text, "jobs-and-finished-pods.yaml").expect("the edited fixture parses");
    let report = simulate_manifests(&m, "jobs-and-finished-pods.yaml, backfill at completions 5, parallelism 2");
    let backfill = workload(&report, "Job", "reporting", "backfill-2026-03");
    assert_eq!(created(backfill).len(), 1, "one more pod beside the running one\n{}", json(&report));
    assert_eq!([backfill.desired, backfill.current], [2, 2], "{}", json(&report));
}

/// A completed Job wants no pod: DESIRED 0, as its CURRENT is, rather than its parallelism.
#[test]

fn completed_job_wants_no_pods() {
    let report = run("jobs-and-finished-pods.yaml");
    let nightly = workload(&report, "CronJob", "reporting", "nightly-report");
    assert_eq!(counters(nightly), [0, 0, 0, 0], "{}", json(&report));
}

// ---------------------------------------------------------------------------------------------
// jobs-suspended-and-failed.yaml: `kubectl get nodes,jobs,cronjobs,pods -n ml -o yaml`.
//
// Job train-resnet50 (parallelism 2) was created suspended (`spec.suspend: true`, held by
// Kueue): the Job controller creates no pod until it is resumed. CronJob feature-backfill's
// last Job failed: backoffLimit 1, two Failed pods, condition Failed=True
// (BackoffLimitExceeded): the Job controller creates no more pods for it.

#[test]

fn suspended_job_creates_no_pods() {
    let report = run("jobs-suspended-and-failed.yaml");
    let train = workload(&report, "Job", "ml", "train-resnet50");
    assert_eq!(placements(train), [], "{}", json(&report));
    assert_eq!(train.current, 0);
}

#[test]

fn failed_job_creates_no_pods() {
    let report = run("jobs-suspended-and-failed.yaml");
    let backfill = workload(&report, "CronJob", "ml", "feature-backfill");
    assert_eq!(created(backfill), [], "{}", json(&report));
    assert_eq!(
        statuses(backfill),
        [
            ("feature-backfill-29579220-8dkzq", "Failed".to_string()),
            ("feature-backfill-29579220-w4ntl", "Failed".to_string())
        ]
    );
    assert_eq!(backfill.current, 0);
}

// ---------------------------------------------------------------------------------------------
// pods-only.yaml: `kubectl get nodes,pods -A -o yaml` (kubeadm), no controller listed.
//
// cp-1 runs the control plane's static pods (owned by the Node) and kube-proxy. shop/web's
// ReplicaSet has two pods on worker-1 (4 cpu: 3 used) and web-6f8b9c7d5f-kq2vd on worker-2,
// deleted 12 s ago and still terminating (30 s grace) beside api-7d4b8c6f9d-n2x8w (2 cpu):
// its replacement web-6f8b9c7d5f-rvl4m (1500m) finds 500m free on worker-2 until the
// terminating pod is gone.

#[test]
fn pods_without_their_controllers_are_grouped_by_owner() {
    let report = run("pods-only.yaml");
    let all = json(&report);
    assert_eq!(
        reported(&report),
        [
            "Pod kube-system/etcd-cp-1",
            "Pod kube-system/kube-apiserver-cp-1",
            "Pod kube-system/kube-controller-manager-cp-1",
            "DaemonSet kube-system/kube-proxy",
            "Pod kube-system/kube-scheduler-cp-1",
            "ReplicaSet shop/api-7d4b8c6f9d",
            "ReplicaSet shop/web-6f8b9c7d5f",
        ]
    );
    assert!(report.warnings.is_empty(), "{:#?}", report.warnings);

    for name in ["etcd-cp-1", "kube-apiserver-cp-1", "kube-controller-manager-cp-1", "kube-scheduler-cp-1"] {
        let w = workload(&report, "Pod", "kube-system", name);
        assert!(!w.not_in_input, "{name}: a static pod stands alone");
        assert_eq!([w.current, w.scheduled, w.pending], [1, 1, 0], "{name}\n{all}");
        assert_eq!(statuses(w), [(name, "Running".to_string())]);
        assert_eq!(placements(w), [(name, Some("cp-1"))]);
    }

    let kube_proxy = workload(&report, "DaemonSet", "kube-system", "kube-proxy");
    assert!(kube_proxy.not_in_input);
    assert_eq!(counters(kube_proxy), [3, 3, 3, 0]);
    assert_eq!(
        placements(kube_proxy),
        [
            ("kube-proxy-5wzrm", Some("worker-2")),
            ("kube-proxy-9bcxd", Some("cp-1")),
            ("kube-proxy-v7xsl", Some("worker-1"))
        ]
    );

    let api = workload(&report, "ReplicaSet", "shop", "api-7d4b8c6f9d");
    assert!(api.not_in_input);
    assert_eq!(counters(api), [1, 1, 1, 0]);

    let web = workload(&report, "ReplicaSet", "shop", "web-6f8b9c7d5f");
    assert!(web.not_in_input);
    assert_eq!(counters(web), [3, 3, 2, 1], "the terminating pod is not counted\n{all}");
    let expected = pending_message(
        "3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu",
        "3 nodes are available: 1 Preemption is not helpful for scheduling, \
         2 No preemption victims found for incoming pod",
    );
    assert_eq!(
        statuses(web),
        [
            ("web-6f8b9c7d5f-2hxkc", "Running".to_string()),
            ("web-6f8b9c7d5f-9tnzq", "Running".to_string()),
            ("web-6f8b9c7d5f-kq2vd", "Terminating".to_string()),
            ("web-6f8b9c7d5f-rvl4m", format!("Pending: {expected}")),
        ]
    );
    assert_eq!(
        placements(web),
        [
            ("web-6f8b9c7d5f-2hxkc", Some("worker-1")),
            ("web-6f8b9c7d5f-9tnzq", Some("worker-1")),
            ("web-6f8b9c7d5f-kq2vd", Some("worker-2")),
            ("web-6f8b9c7d5f-rvl4m", None),
        ]
    );
    let pending = pod(web, "web-6f8b9c7d5f-rvl4m");
    assert!(!pending.snapshot.as_ref().expect("a snapshot pod").message_differs, "{all}");
    assert_eq!(
        verdict_of(web, "worker-2"),
        (false, Some("NodeResourcesFit"), Some("Insufficient cpu"), Some("needs 1500m cpu, 500m free")),
        "the terminating pod still holds its 1500m"
    );
    assert_eq!(
        verdict_of(web, "worker-1"),
        (false, Some("NodeResourcesFit"), Some("Insufficient cpu"), Some("needs 1500m cpu, 1 free"))
    );
    for w in &report.workloads {
        assert_eq!(created(w), [], "{}: nothing is created without controllers", w.name);
    }
}

/// A running pod of no controller in the snapshot is wanted as it is: DESIRED 1 beside
/// CURRENT 1, as for a Pod manifest and as the groups of pods whose controller is missing.
#[test]

fn standalone_snapshot_pods_are_desired() {
    let report = run("pods-only.yaml");
    for name in ["etcd-cp-1", "kube-apiserver-cp-1", "kube-controller-manager-cp-1", "kube-scheduler-cp-1"] {
        assert_eq!(counters(workload(&report, "Pod", "kube-system", name)), [1, 1, 1, 0], "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// duplicates.yaml: `kubectl get nodes -o yaml`, `kubectl get nodes,all -n shop -o yaml` and
// `kubectl get deployment web -n shop -o yaml`, concatenated with `---`: both Nodes and the
// Deployment are given twice. Deployment web (3 replicas of 1 cpu) has one pod on each
// m6i.large node (1930m) and a third pending.

const DUP_A: &str = "ip-10-0-1-50.eu-west-1.compute.internal";
const DUP_B: &str = "ip-10-0-2-61.eu-west-1.compute.internal";

#[test]
fn objects_given_twice_are_simulated_once() {
    let report = run("duplicates.yaml");
    let all = json(&report);
    assert_eq!(
        report.warnings,
        [
            format!(
                "Node {DUP_A} (duplicates.yaml document 3): the same Node as Node {DUP_A} (duplicates.yaml \
                 document 1); given twice, simulated once"
            ),
            format!(
                "Node {DUP_B} (duplicates.yaml document 4): the same Node as Node {DUP_B} (duplicates.yaml \
                 document 2); given twice, simulated once"
            ),
            "Deployment shop/web (duplicates.yaml document 11): the same object as Deployment shop/web \
             (duplicates.yaml document 9); given twice, simulated once"
                .to_string(),
        ]
    );
    assert_eq!(reported(&report), ["Deployment shop/web"]);
    let web = workload(&report, "Deployment", "shop", "web");
    assert_eq!(counters(web), [3, 3, 2, 1], "{all}");
    assert_eq!(
        placements(web),
        [("web-85c7b9d6f4-6ndqz", Some(DUP_B)), ("web-85c7b9d6f4-fb2wk", None), ("web-85c7b9d6f4-tl5xr", Some(DUP_A))]
    );
    assert_eq!(created(web), []);
    // Two nodes, not four, and each holds one web pod, not two.
    let expected = pending_message(
        "2 nodes are available: 2 Insufficient cpu",
        "2 nodes are available: 2 No preemption victims found for incoming pod",
    );
    let pending = pod(web, "web-85c7b9d6f4-fb2wk");
    assert_eq!(pending.message.as_deref(), Some(expected.as_str()), "{all}");
    assert!(!pending.snapshot.as_ref().expect("a snapshot pod").message_differs);
    assert_eq!(web.nodes.len(), 2);
    for node in [DUP_A, DUP_B] {
        assert_eq!(
            verdict_of(web, node),
            (false, Some("NodeResourcesFit"), Some("Insufficient cpu"), Some("needs 1 cpu, 930m free"))
        );
    }
}

// ---------------------------------------------------------------------------------------------
// message-differs.yaml: `kubectl get nodes,deploy,rs,pods -n analytics -o yaml` (EKS).
//
// analytics-worker (4 replicas of 5Gi) runs on the two m6i.large nodes (7024816Ki each) of its
// node group; cluster-autoscaler has just added a third, ip-10-0-3-208. The two pending pods'
// PodScheduled messages are from before it joined. Oldest first, r9ntv takes the new node;
// 2bq7k finds no node among three.

const MD_NEW: &str = "ip-10-0-3-208.eu-west-1.compute.internal";

fn stale_message() -> String {
    pending_message(
        "2 nodes are available: 2 Insufficient memory",
        "2 nodes are available: 2 No preemption victims found for incoming pod",
    )
}

fn current_message() -> String {
    pending_message(
        "3 nodes are available: 3 Insufficient memory",
        "3 nodes are available: 3 No preemption victims found for incoming pod",
    )
}

#[test]
fn a_stale_pod_scheduled_message_is_flagged() {
    let report = run("message-differs.yaml");
    let all = json(&report);
    let worker = workload(&report, "Deployment", "analytics", "analytics-worker");
    assert_eq!(counters(worker), [4, 4, 3, 1], "{all}");
    assert_eq!(created(worker), []);

    let placed = pod(worker, "analytics-worker-6d5f8b4c9d-r9ntv");
    assert_eq!(placed.node.as_deref(), Some(MD_NEW), "{all}");
    let snapshot = placed.snapshot.as_ref().expect("a snapshot pod");
    assert_eq!(snapshot.message.as_deref(), Some(stale_message().as_str()));
    assert!(snapshot.message_differs, "Placement places a pod the snapshot shows unschedulable");
    assert_eq!(
        placed.status_text(),
        format!("Scheduled [differs from the snapshot's PodScheduled message: {}]", stale_message())
    );

    let pending = pod(worker, "analytics-worker-6d5f8b4c9d-2bq7k");
    assert_eq!(pending.node, None);
    assert_eq!(pending.message.as_deref(), Some(current_message().as_str()), "{all}");
    assert!(pending.snapshot.as_ref().expect("a snapshot pod").message_differs);
    assert_eq!(
        pending.status_text(),
        format!(
            "Pending: {} [differs from the snapshot's PodScheduled message: {}]",
            current_message(),
            stale_message()
        )
    );
    for running in ["analytics-worker-6d5f8b4c9d-8fzxm", "analytics-worker-6d5f8b4c9d-ldw5c"] {
        assert!(!pod(worker, running).snapshot.as_ref().expect("a snapshot pod").message_differs);
    }
}

// ---------------------------------------------------------------------------------------------
// The fast reader (parse_manifests prunes what the model does not read) against the reference
// reader (serde_yaml), on kubectl's own formatting: folded single-quoted messages, literal
// last-applied-configuration blocks, `null`s, managedFields keys such as `k:{"type":"Ready"}`.

const FIXTURES: [&str; 8] = [
    "deployment-two-revisions.yaml",
    "statefulset.yaml",
    "daemonset-missing-nodes.yaml",
    "jobs-and-finished-pods.yaml",
    "jobs-suspended-and-failed.yaml",
    "pods-only.yaml",
    "duplicates.yaml",
    "message-differs.yaml",
];

#[test]
fn both_readers_agree_on_every_fixture() {
    for name in FIXTURES {
        let text = fixture(name);
        let reference = parse_manifests_reference(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(json(&run(name)), json(&simulate_manifests(&reference, name)), "{name}");
        let fast = manifests(name);
        assert_eq!(fast.nodes.len(), reference.nodes.len(), "{name}");
        let kinds = |m: &Manifests| m.workloads.iter().map(|w| (w.kind, w.name.clone())).collect::<Vec<_>>();
        assert_eq!(kinds(&fast), kinds(&reference), "{name}");
        assert!(fast.workloads.iter().all(|w| w.kind != WorkloadKind::Pod || !w.metadata.uid.is_empty()), "{name}");
    }
}

// ---------------------------------------------------------------------------------------------
// The binary

/// The `placement` binary of this build: built by `cargo build -p placement-cli` (as the
/// Makefile's corpus step does) beside this test's own binary, in the same target directory.
fn placement_binary() -> PathBuf {
    let exe = std::env::current_exe().expect("the test binary's path");
    // target/<profile>/deps/snapshots-<hash>
    let profile_dir = exe.parent().and_then(Path::parent).expect("target/<profile>");
    let release = profile_dir.file_name().is_some_and(|p| p == "release");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the workspace root");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = Command::new(cargo);
    build.args(["build", "--quiet", "-p", "placement-cli"]).current_dir(root);
    if release {
        build.arg("--release");
    }
    let out = build.output().expect("run cargo build -p placement-cli");
    assert!(out.status.success(), "cargo build -p placement-cli:\n{}", String::from_utf8_lossy(&out.stderr));
    let bin = profile_dir.join(format!("placement{}", std::env::consts::EXE_SUFFIX));
    assert!(bin.is_file(), "no binary at {}", bin.display());
    bin
}

fn placement(bin: &Path, args: &[&str]) -> String {
    let out = Command::new(bin).args(args).output().expect("run placement");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "placement {args:?} failed:\n{stderr}");
    assert!(stderr.is_empty(), "placement {args:?} wrote to stderr:\n{stderr}");
    String::from_utf8(out.stdout).expect("stdout is UTF-8")
}

#[test]
fn cli_prints_a_snapshot_as_text_json_and_markdown() {
    let bin = placement_binary();
    let file = fixture_path("message-differs.yaml");
    let file = file.to_str().expect("a UTF-8 path");
    let (stale, current) = (stale_message(), current_message());

    let text = placement(&bin, &["simulate", "-f", file]);
    let lines: Vec<&str> = text.lines().collect();
    // The release first: the snapshot's Nodes say which.
    assert!(lines[0].starts_with("Kubernetes 1.35: the newest kubelet among the input's nodes is v1.35."), "{text}");
    assert_eq!(
        lines.get(2).copied(),
        Some("Deployment analytics/analytics-worker: DESIRED 4  CURRENT 4  SCHEDULED 3  PENDING 1")
    );
    // The POD table's row of `pod`: its NODE and STATUS columns.
    let row = |pod: &str| -> (String, String) {
        let line = lines.iter().find(|l| l.trim_start().starts_with(&format!("{pod} ")));
        let rest = line.unwrap_or_else(|| panic!("no row for {pod}:\n{text}")).trim_start()[pod.len()..].trim_start();
        let (node, status) = rest.split_once(' ').unwrap_or((rest, ""));
        (node.to_string(), status.trim_start().to_string())
    };
    assert_eq!(
        row("analytics-worker-6d5f8b4c9d-r9ntv"),
        (MD_NEW.to_string(), format!("Scheduled [differs from the snapshot's PodScheduled message: {stale}]"))
    );
    assert_eq!(
        row("analytics-worker-6d5f8b4c9d-2bq7k"),
        (
            "<none>".to_string(),
            format!("Pending: {current} [differs from the snapshot's PodScheduled message: {stale}]")
        )
    );
    assert_eq!(
        row("analytics-worker-6d5f8b4c9d-8fzxm"),
        ("ip-10-0-1-140.eu-west-1.compute.internal".to_string(), "Running".to_string())
    );

    let out = placement(&bin, &["simulate", "-f", file, "-o", "json"]);
    let report: serde_json::Value = serde_json::from_str(&out).expect("JSON");
    assert_eq!(report["kubeVersion"], "1.35");
    assert_eq!(report["warnings"], serde_json::json!([]));
    let w = &report["workloads"][0];
    assert_eq!(
        [&w["kind"], &w["namespace"], &w["name"], &w["desired"], &w["current"], &w["scheduled"], &w["pending"]],
        [
            &serde_json::json!("Deployment"),
            &serde_json::json!("analytics"),
            &serde_json::json!("analytics-worker"),
            &serde_json::json!(4),
            &serde_json::json!(4),
            &serde_json::json!(3),
            &serde_json::json!(1)
        ]
    );
    let insufficient_memory = serde_json::json!({
        "fits": false,
        "plugin": "NodeResourcesFit",
        "reason": "Insufficient memory",
        "detail": "needs 5Gi memory, 1781936Ki free",
        "score": null,
        "code": "Unschedulable"
    });
    assert_eq!(
        w["pods"][0],
        serde_json::json!({
            "name": "analytics-worker-6d5f8b4c9d-2bq7k",
            "node": null,
            "message": current,
            "snapshot": {"status": "Pending", "message": stale, "messageDiffers": true},
            // Its own verdicts: the workload's `nodes` are those of the pod placed before it,
            // which found room on the third node.
            "nodes": {
                "ip-10-0-1-140.eu-west-1.compute.internal": insufficient_memory,
                "ip-10-0-2-33.eu-west-1.compute.internal": insufficient_memory,
                MD_NEW: insufficient_memory,
            }
        })
    );
    assert_eq!(w["nodes"][MD_NEW]["fits"], true, "{w}");
    assert_eq!(
        w["pods"][3],
        serde_json::json!({
            "name": "analytics-worker-6d5f8b4c9d-r9ntv",
            "node": MD_NEW,
            "message": null,
            "snapshot": {"status": "Pending", "message": stale, "messageDiffers": true}
        })
    );
    assert_eq!(w["pods"][1]["snapshot"], serde_json::json!({"status": "Running"}), "no messageDiffers when false");
    assert!(w.get("notInInput").is_none(), "notInInput is left out when false");

    let md = placement(&bin, &["simulate", "-f", file, "-o", "markdown"]);
    let md_body =
        md.split_once("\n\n").map_or("", |(note, rest)| if note.starts_with("Kubernetes 1.35") { rest } else { "" });
    assert!(md_body.starts_with("### Deployment `analytics/analytics-worker`\n\nDESIRED **4**, CURRENT **4**, SCHEDULED **3**, PENDING **1**\n"), "{md}");
    assert!(
        md.contains(&format!(
            "`analytics-worker-6d5f8b4c9d-2bq7k` differs from the snapshot:\n\n> snapshot: {stale}\n>\n> Placement: {current}\n"
        )),
        "{md}"
    );
    assert!(
        md.contains(&format!(
            "`analytics-worker-6d5f8b4c9d-r9ntv` differs from the snapshot:\n\n> snapshot: {stale}\n>\n> Placement: scheduled on {MD_NEW}\n"
        )),
        "{md}"
    );
    assert!(md.contains(&format!("Pending `analytics-worker-6d5f8b4c9d-2bq7k`:\n\n> {current}\n")), "{md}");
}
