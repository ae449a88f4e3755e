//! The volume plugins and the CSI node plugin check over snapshots written as `kubectl get
//! nodes,csinodes,storageclasses,pv,pvc,statefulsets,pods -A -o yaml` prints them
//! (`tests/fixtures/snapshots/`), through placement-core's public API. The expected messages
//! are written from upstream's rules (volume_binding.go, binder.go, csi.go,
//! volume_restrictions.go, volume_zone.go; see docs/fidelity.md item 9), not read back from
//! Placement.

use std::path::Path;

use placement_core::cluster::pools::PoolLabel;
use placement_core::cluster::simulate::{simulate, PodReport, Report, SimulateOptions, WorkloadReport};
use placement_core::cluster::what_if::simulate_what_if;
use placement_core::cluster::what_if::WhatIf;
use placement_core::explain::render;
use placement_core::input::documents::parse_manifests;

fn run(name: &str) -> Report {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/snapshots").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let m = parse_manifests(&text, name).unwrap_or_else(|e| panic!("{name}: {e}"));
    simulate(&m, &SimulateOptions::default()).unwrap_or_else(|e| panic!("{name}: {e:?}"))
}

fn workload<'a>(r: &'a Report, kind: &str, name: &str) -> &'a WorkloadReport {
    r.workloads.iter().find(|w| w.kind == kind && w.name == name).unwrap_or_else(|| panic!("no {kind} {name}"))
}

fn pod<'a>(w: &'a WorkloadReport, name: &str) -> &'a PodReport {
    w.pods.iter().find(|p| p.name == name).unwrap_or_else(|| panic!("no pod {name} in {}", w.name))
}

fn claims(p: &PodReport) -> Vec<(String, Option<String>, Option<String>)> {
    p.claims.iter().map(|c| (c.claim.clone(), c.pv.clone(), c.provision_on.clone())).collect()
}

fn s(v: &str) -> Option<String> {
    Some(v.to_string())
}

const POST_FILTER_UNRESOLVABLE_2: &str =
    "no new claims to deallocate, preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.";

#[test]
fn bound_claim_on_a_zonal_volume_conflicts_with_the_node_selector() {
    let r = run("volume-node-affinity-conflict.yaml");
    let db = pod(workload(&r, "Pod", "db-0"), "db-0");
    assert_eq!(db.node, None);
    assert_eq!(
        db.message.as_deref(),
        Some(
            format!(
                "0/2 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had volume \
                 node affinity conflict. {POST_FILTER_UNRESOLVABLE_2}"
            )
            .as_str()
        )
    );
    let w = workload(&r, "Pod", "db-0");
    let b = w.nodes.get("node-b").expect("node-b's verdict");
    assert_eq!(b.plugin, Some("VolumeBinding"));
    assert!(b.detail.as_deref().unwrap_or_default().contains("pv-db-0"), "{:?}", b.detail);
    // The fix that fixes: the workload in the volume's zone.
    assert!(
        w.fixes.iter().any(|f| f.verified && f.patch.as_deref().unwrap_or_default().contains("eastus-1")),
        "{:#?}",
        w.fixes
    );
    // The storage objects are read, not ignored.
    assert!(r.warnings.iter().all(|w| !w.contains("ignored")), "{:#?}", r.warnings);
}

#[test]
fn statefulset_claims_are_provisioned_where_the_class_allows_until_the_attach_limits() {
    let r = run("volumes.yaml");
    let db = workload(&r, "StatefulSet", "db");
    assert_eq!((db.desired, db.scheduled, db.pending), (5, 3, 2));
    assert_eq!(claims(pod(db, "db-0")), [("data-db-0".into(), s("pvc-db-0"), None)]);
    assert_eq!(claims(pod(db, "db-1")), [("data-db-1".into(), None, s("node-2"))]);
    assert_eq!(claims(pod(db, "db-2")), [("data-db-2".into(), None, s("node-1"))]);
    // node-3's zone is outside the class's allowedTopologies.
    let n3 = db.nodes.get("node-3").expect("node-3");
    assert_eq!(
        (n3.plugin, n3.reason.as_deref()),
        (Some("VolumeBinding"), Some("node(s) didn't find available persistent volumes to bind"))
    );
    // node-1 and node-2 hold 2 CSI volumes each (CSINode allocatable.count 2).
    assert_eq!(
        pod(db, "db-3").message.as_deref(),
        Some(
            "0/3 nodes are available: 1 node(s) didn't find available persistent volumes to bind, 2 node(s) exceed max \
             volume count. no new claims to deallocate, preemption: 0/3 nodes are available: 1 Preemption is not \
             helpful for scheduling, 2 No preemption victims found for incoming pod."
        )
    );
    assert_eq!(claims(pod(db, "db-3")), [("data-db-3".into(), None, None)]);
    // The workload's node map is db-0's cycle, where node-1 had room; db-3 carries its own.
    assert!(db.nodes.get("node-1").is_some_and(|v| v.fits), "{:?}", db.nodes.get("node-1"));
    let own = pod(db, "db-3").nodes.as_ref().expect("db-3's own verdicts");
    let verdict = |node: &str| own.get(node).map(|v| (v.fits, v.plugin, v.reason.as_deref()));
    assert_eq!(verdict("node-1"), Some((false, Some("NodeVolumeLimits"), Some("node(s) exceed max volume count"))));
    assert_eq!(verdict("node-2"), Some((false, Some("NodeVolumeLimits"), Some("node(s) exceed max volume count"))));
    assert_eq!(
        verdict("node-3"),
        Some((false, Some("VolumeBinding"), Some("node(s) didn't find available persistent volumes to bind")))
    );
    // The placed replicas need none: their node says where they went.
    assert!(["db-0", "db-1", "db-2"].iter().all(|p| pod(db, p).nodes.is_none()));
    // The text shows the first pending pod's table (-v every one); db-4's claim differs.
    let text = render::text(&r);
    let own_table = text.split_once("  db-3 found no node; its own verdicts:\n").map(|(_, t)| t).unwrap_or_default();
    assert!(own_table.starts_with("  NODE "), "{text}");
    assert!(own_table.contains("NodeVolumeLimits   node(s) exceed max volume count"), "{text}");
    assert!(text.contains("  ... and 1 more pending pod(s) with verdicts of their own (-v lists them)\n"), "{text}");
    let verbose = render::text_with(&r, &render::Options { verbose: true, ..Default::default() });
    assert!(verbose.contains("  db-4 found no node; its own verdicts:\n"), "{verbose}");
    assert!(render::markdown(&r).contains("Its own verdicts:\n\n| Node | Fits |"));
    let fix = db.fixes.iter().find(|f| f.plugin == "NodeVolumeLimits").expect("a capacity fix for the attach limits");
    assert!(fix.verified, "{fix:#?}");
    assert!(fix.command.as_deref().is_some_and(|c| c.contains("like node-1") || c.contains("like node-2")), "{fix:#?}");
}

#[test]
fn read_write_once_pod_missing_and_unbound_immediate_claims() {
    let r = run("volumes.yaml");
    let second = pod(workload(&r, "Pod", "second-user"), "second-user");
    assert_eq!(
        second.message.as_deref(),
        Some(
            "0/3 nodes are available: 3 node has pod using PersistentVolumeClaim with the same name and \
             ReadWriteOncePod access mode. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No \
             preemption victims found for incoming pod."
        )
    );
    // PreFilter rejections before DynamicResources end with its state's `not found`.
    let orphan = pod(workload(&r, "Pod", "orphan"), "orphan");
    assert_eq!(
        orphan.message.as_deref(),
        Some("0/3 nodes are available: persistentvolumeclaim \"nope\" not found. not found")
    );
    let waits = pod(workload(&r, "Pod", "waits"), "waits");
    assert_eq!(
        waits.message.as_deref(),
        Some("0/3 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found")
    );
}

#[test]
fn a_pod_on_a_node_without_its_csi_node_plugin_cannot_mount() {
    let r = run("csi-node-plugin-skips-storage-pool.yaml");
    let db = pod(workload(&r, "StatefulSet", "db"), "db-0");
    assert_eq!(db.node.as_deref(), Some("storage-1"));
    let [c] = db.cannot_mount.as_slice() else { panic!("{:#?}", db.cannot_mount) };
    assert_eq!(c.daemon_set.as_deref(), Some("rook-ceph/csi-rbdplugin"));
    assert_eq!(c.driver, "rook-ceph.rbd.csi.ceph.com");
    assert_eq!(c.reason, "untolerated taint storage=ceph:NoSchedule");
    // The DaemonSet's own report offers the toleration that fixes it.
    let ds = workload(&r, "DaemonSet", "csi-rbdplugin");
    assert!(ds.fixes.iter().any(|f| f.verified && f.nodes.iter().any(|n| n == "storage-1")), "{:#?}", ds.fixes);
}

#[test]
fn draining_the_node_of_a_local_volume_leaves_its_pod_pending() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/snapshots/local-volume-drain.yaml");
    let text = std::fs::read_to_string(path).expect("fixture");
    let m = parse_manifests(&text, "local-volume-drain.yaml").expect("parse");
    let cmd: WhatIf = "kubectl drain node-a --ignore-daemonsets".parse().expect("command");
    let r = simulate_what_if(&m, &[cmd], &SimulateOptions::default(), &PoolLabel::Detect).expect("what-if");
    let notes = &r.changes.as_ref().expect("changes").commands[0].notes;
    assert!(
        notes.iter().any(|n| n.starts_with("pod default/db-0 cannot move") && n.contains("local-pv-a")),
        "{notes:#?}"
    );
    let db = pod(workload(&r, "StatefulSet", "db"), "db-0");
    assert_eq!(db.node, None);
    assert!(
        db.message
            .as_deref()
            // node-b is left out by VolumeBinding's PreFilterResult (the PV names node-a).
            .is_some_and(
                |m| m.contains("1 node(s) didn't satisfy plugin(s) [VolumeBinding], 1 node(s) were unschedulable")
            ),
        "{:?}",
        db.message
    );
    assert_eq!(claims(db), [("data-db-0".into(), s("local-pv-a"), None)]);
}

#[test]
fn hand_written_storage_objects_are_validated_in_the_api_servers_words() {
    let text = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n---\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\nspec:\n  accessModes: [ReadWriteOnce, ReadWriteOncePod]\n  resources: {requests: {cpu: 1}}\n---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: fast}\nprovisioner: disk.csi.azure.com\nvolumeBindingMode: Lazy\n---\napiVersion: v1\nkind: PersistentVolume\nmetadata: {name: pv1}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteOnce]\n  local: {path: /mnt}\n";
    let m = parse_manifests(text, "bad.yaml").expect("parse");
    let errors: Vec<String> = match simulate(&m, &SimulateOptions::default()) {
        Ok(_) => panic!("accepted"),
        Err(e) => e.iter().map(ToString::to_string).collect(),
    };
    let want = [
        "spec.accessModes: Forbidden: may not use ReadWriteOncePod with other access modes",
        "spec.resources[storage]: Required value",
        "spec.nodeAffinity: Required value: Local volume requires node affinity",
        "volumeBindingMode: Unsupported value: \"Lazy\": supported values: \"Immediate\", \"WaitForFirstConsumer\"",
    ];
    for w in want {
        assert!(errors.iter().any(|e| e.ends_with(w)), "{w} not in {errors:#?}");
    }
    assert_eq!(errors.len(), want.len(), "{errors:#?}");
}

/// VolumeBinding's PreFilterResult (`GetEligibleNodes`): a pod whose bound claim's PV names
/// its node by `kubernetes.io/hostname` is evaluated on that node only; the others are absent
/// nodes, counted as upstream's `AbsentNodesStatus` words them, not filtered one by one.
#[test]
fn a_local_volume_restricts_the_pod_to_its_node_before_any_filter_runs() {
    let mut text = String::new();
    for (name, cpu) in [("node-a", "1"), ("node-b", "8"), ("node-c", "8")] {
        text.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata: {{name: {name}, labels: {{kubernetes.io/hostname: {name}}}}}\n\
             status: {{allocatable: {{cpu: '{cpu}', memory: 16Gi, pods: '110'}}}}\n---\n"
        ));
    }
    text.push_str(
        "apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: local}
provisioner: kubernetes.io/no-provisioner
volumeBindingMode: WaitForFirstConsumer
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: local-pv-a}
spec:
  capacity: {storage: 100Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: local
  local: {path: /mnt/disks/ssd1}
  claimRef: {namespace: default, name: data-cache-0}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions:
        - {key: kubernetes.io/hostname, operator: In, values: [node-a]}
status: {phase: Bound}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data-cache-0
  namespace: default
  annotations: {pv.kubernetes.io/bind-completed: 'yes'}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: local
  resources: {requests: {storage: 100Gi}}
  volumeName: local-pv-a
status: {phase: Bound}
---
apiVersion: v1
kind: Pod
metadata: {name: cache-0, namespace: default}
spec:
  containers:
  - name: cache
    image: redis:7
    resources: {requests: {cpu: '2'}}
  volumes:
  - name: data
    persistentVolumeClaim: {claimName: data-cache-0}
",
    );
    let m = parse_manifests(&text, "local.yaml").unwrap();
    let r = simulate(&m, &SimulateOptions::default()).unwrap();
    let w = workload(&r, "Pod", "cache-0");
    // node-a's 1 cpu is less than the pod requests: NodeResourcesFit's unresolvable case, so
    // preemption cannot help on any node.
    assert_eq!(
        pod(w, "cache-0").message.as_deref(),
        Some(
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [VolumeBinding]. no new \
             claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling."
        )
    );
    let b = w.nodes.get("node-b").expect("node-b's verdict");
    assert_eq!(b.plugin, Some("VolumeBinding"));
    assert!(b.detail.as_deref().unwrap_or_default().contains("node-a"), "{:?}", b.detail);
}
