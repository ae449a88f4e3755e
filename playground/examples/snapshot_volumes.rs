//! `snapshot_volumes PATH`: the 5,000-node, 100,000-pod snapshot of `peak_memory
//! gen_snapshot_yaml PATH` with storage, as `kubectl get pv,pvc,sc,csinodes -A -o yaml` would
//! add it: two StorageClasses (`zonal`, Immediate; `wffc`, WaitForFirstConsumer, both
//! disk.csi.azure.com), a CSINode per node (attach limit 64, topology key
//! `topology.kubernetes.io/zone`), and 20,000 bound claims and PVs used by 20,000 of the
//! snapshot's running Deployment pods (one in four), half of the `zonal` class and half of
//! `wffc` (provisioned for the pod's node), each PV pinned to its node's zone. Then a
//! StatefulSet of 1,000 replicas (Parallel, a `wffc` claim template) is simulated.
//!
//! Timed as the CLI runs: the snapshot read and parsed (streamed), the storage List parsed (it
//! is written in the same kubectl form first, untimed), the claims added to the pods that use
//! them (untimed: in a real snapshot they are in the pods' text), the simulation. Prints each
//! phase and the peak RSS (VmHWM).
//!
//!     cargo run --release -p placement-playground --example peak_memory -- gen_snapshot_yaml /tmp/snapshot5000.yaml
//!     cargo run --release -p placement-playground --example snapshot_volumes -- /tmp/snapshot5000.yaml

use std::fmt::Write as _;
use std::sync::Arc;
use std::time::Instant;

use placement_core::cluster::simulate::{simulate, SimulateOptions};
use placement_core::input::documents::{parse_manifests, Manifests, WorkloadKind};
use placement_core::input::list_stream;
use placement_core::model::{PersistentVolumeClaimVolumeSource, Volume};

const CLAIMS: usize = 20_000;
const REPLICAS: usize = 1_000;

fn peak_rss_mib() -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
        .map_or_else(|| "n/a".into(), |kib| format!("{:.0} MiB", kib as f64 / 1024.0))
}

/// The storage List for the claims of `users` (`(namespace, pod, node, zone)`), and the node
/// names with their zones for the CSINodes.
fn storage_yaml(users: &[(String, String, String, String)], nodes: &[(String, String)]) -> String {
    let mut y = String::from("apiVersion: v1\nkind: List\nmetadata:\n  resourceVersion: \"\"\nitems:\n");
    for (name, mode) in [("zonal", "Immediate"), ("wffc", "WaitForFirstConsumer")] {
        let _ = write!(
            y,
            "- apiVersion: storage.k8s.io/v1\n  kind: StorageClass\n  metadata:\n    creationTimestamp: \"2024-05-02T11:07:44Z\"\n    name: {name}\n    resourceVersion: \"100\"\n    uid: sc-{name}\n  provisioner: disk.csi.azure.com\n  reclaimPolicy: Delete\n  volumeBindingMode: {mode}\n"
        );
    }
    for (node, _) in nodes {
        let _ = write!(
            y,
            "- apiVersion: storage.k8s.io/v1\n  kind: CSINode\n  metadata:\n    creationTimestamp: \"2024-05-02T11:07:44Z\"\n    name: {node}\n    uid: csinode-{node}\n  spec:\n    drivers:\n    - allocatable:\n        count: 64\n      name: disk.csi.azure.com\n      nodeID: {node}\n      topologyKeys:\n      - topology.kubernetes.io/zone\n"
        );
    }
    for (i, (ns, pod, node, zone)) in users.iter().enumerate() {
        let class = if i % 2 == 0 { "zonal" } else { "wffc" };
        let selected =
            if class == "wffc" { format!("\n      volume.kubernetes.io/selected-node: {node}") } else { String::new() };
        let _ = write!(
            y,
            "- apiVersion: v1\n  kind: PersistentVolume\n  metadata:\n    annotations:\n      pv.kubernetes.io/provisioned-by: disk.csi.azure.com\n    creationTimestamp: \"2024-05-02T11:07:44Z\"\n    finalizers:\n    - kubernetes.io/pv-protection\n    name: pvc-{i:06}\n    uid: pv-{i:06}\n  spec:\n    accessModes:\n    - ReadWriteOnce\n    capacity:\n      storage: 32Gi\n    claimRef:\n      apiVersion: v1\n      kind: PersistentVolumeClaim\n      name: data-{pod}\n      namespace: {ns}\n      uid: pvc-{i:06}\n    csi:\n      driver: disk.csi.azure.com\n      volumeHandle: /subscriptions/x/resourceGroups/mc/providers/Microsoft.Compute/disks/pvc-{i:06}\n    nodeAffinity:\n      required:\n        nodeSelectorTerms:\n        - matchExpressions:\n          - key: topology.kubernetes.io/zone\n            operator: In\n            values:\n            - {zone}\n    persistentVolumeReclaimPolicy: Delete\n    storageClassName: {class}\n    volumeMode: Filesystem\n  status:\n    phase: Bound\n\
             - apiVersion: v1\n  kind: PersistentVolumeClaim\n  metadata:\n    annotations:\n      pv.kubernetes.io/bind-completed: \"yes\"\n      pv.kubernetes.io/bound-by-controller: \"yes\"\n      volume.kubernetes.io/storage-provisioner: disk.csi.azure.com{selected}\n    creationTimestamp: \"2024-05-02T11:07:44Z\"\n    name: data-{pod}\n    namespace: {ns}\n    uid: pvc-{i:06}\n  spec:\n    accessModes:\n    - ReadWriteOnce\n    resources:\n      requests:\n        storage: 32Gi\n    storageClassName: {class}\n    volumeMode: Filesystem\n    volumeName: pvc-{i:06}\n  status:\n    accessModes:\n    - ReadWriteOnce\n    capacity:\n      storage: 32Gi\n    phase: Bound\n"
        );
    }
    y
}

const STATEFUL_SET: &str = "apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: db
  namespace: shop
spec:
  replicas: 1000
  podManagementPolicy: Parallel
  serviceName: db
  selector:
    matchLabels: {app: db}
  template:
    metadata:
      labels: {app: db}
    spec:
      containers:
      - name: db
        image: postgres:17
        resources:
          requests: {cpu: 250m, memory: 512Mi}
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: wffc
      resources:
        requests: {storage: 10Gi}
";

fn main() {
    let path = std::env::args().nth(1).expect("usage: snapshot_volumes PATH (from peak_memory gen_snapshot_yaml)");
    let started = Instant::now();
    let file = std::fs::File::open(&path).expect("open the snapshot");
    let mut manifests: Manifests =
        list_stream::read(file, &path).expect("read the snapshot").expect("a List the streaming reader reads");
    let read = started.elapsed();

    // Untimed: the storage objects in kubectl's form, and the claims in the pods using them.
    let zone_of = |node: &str| {
        manifests
            .nodes
            .iter()
            .find(|(_, n)| n.metadata.name == node)
            .and_then(|(_, n)| n.metadata.labels.get("topology.kubernetes.io/zone").cloned())
            .unwrap_or_default()
    };
    let zones: std::collections::HashMap<String, String> =
        manifests.nodes.iter().map(|(_, n)| (n.metadata.name.clone(), zone_of(&n.metadata.name))).collect();
    let nodes: Vec<(String, String)> =
        manifests.nodes.iter().map(|(_, n)| (n.metadata.name.clone(), zones[&n.metadata.name].clone())).collect();
    let mut users = Vec::new();
    let mut seen = 0usize;
    for w in &mut manifests.workloads {
        let is_deployment_pod = w.kind == WorkloadKind::Pod
            && !w.template.spec.node_name.is_empty()
            && w.metadata.owner_references.iter().any(|o| o.kind == "ReplicaSet");
        if !is_deployment_pod || users.len() >= CLAIMS {
            continue;
        }
        seen += 1;
        if !seen.is_multiple_of(4) {
            continue;
        }
        let w = Arc::make_mut(w);
        let (ns, pod, node) = (w.namespace.clone(), w.name.clone(), w.template.spec.node_name.clone());
        w.template.spec.volumes.push(Volume {
            name: "data".into(),
            persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                claim_name: format!("data-{pod}"),
                read_only: false,
            }),
            ..Default::default()
        });
        let zone = zones.get(&node).cloned().unwrap_or_default();
        users.push((ns, pod, node, zone));
    }
    let storage = storage_yaml(&users, &nodes);

    let parse_started = Instant::now();
    manifests.extend(parse_manifests(&storage, "storage.yaml").expect("the storage List parses"));
    manifests.extend(parse_manifests(STATEFUL_SET, "db.yaml").expect("the StatefulSet parses"));
    let parse_storage = parse_started.elapsed();
    drop(storage);

    let sim_started = Instant::now();
    let report = simulate(&manifests, &SimulateOptions::default()).unwrap_or_else(|e| panic!("invalid: {}", e[0]));
    let simulated = sim_started.elapsed();

    let db = report.workloads.iter().find(|w| w.kind == "StatefulSet" && w.name == "db").expect("the StatefulSet");
    let provisioned = db.pods.iter().filter(|p| p.claims.iter().any(|c| c.provision_on.is_some())).count();
    let pending_existing = report.workloads.iter().filter(|w| w.kind != "StatefulSet").map(|w| w.pending).sum::<i64>();
    assert_eq!(users.len(), CLAIMS, "claims placed on the snapshot's pods");
    println!(
        "{} nodes, {} claims and PVs; StatefulSet db placed {}/{} (claims provisioned: {provisioned}, want {REPLICAS}); \
         other workloads pending {pending_existing}",
        nodes.len(),
        users.len(),
        db.scheduled,
        db.desired
    );
    println!(
        "read+parse snapshot {:.0} ms, parse storage + StatefulSet {:.0} ms, simulate {:.0} ms; total {:.0} ms; peak RSS {}",
        read.as_secs_f64() * 1e3,
        parse_storage.as_secs_f64() * 1e3,
        simulated.as_secs_f64() * 1e3,
        (read + parse_storage + simulated).as_secs_f64() * 1e3,
        peak_rss_mib()
    );
}
