//! `snapshot_volumes gen PATH` writes the 5,000-node, 100,000-pod snapshot of `peak_memory
//! gen_snapshot_yaml` with storage, as `kubectl get pv,pvc,sc,csinodes,nodes,pods -A -o yaml`
//! prints it: two StorageClasses (`zonal`, Immediate; `wffc`, WaitForFirstConsumer, both
//! disk.csi.azure.com), a CSINode per node (attach limit 64, topology key
//! `topology.kubernetes.io/zone`), and 20,000 bound claims and PVs mounted by 20,000 of the
//! snapshot's running Deployment pods (one in four), half of the `zonal` class and half of
//! `wffc` (provisioned for the pod's node), each PV pinned to its node's zone
//! (`write_kubectl_get_storage_nodes_and_pods_yaml` of the benches' common module).
//!
//! `snapshot_volumes PATH` then reads it and simulates a StatefulSet of 1,000 replicas
//! (Parallel, a `wffc` claim template) as `placement simulate PATH db.yaml` does, with the
//! CLI's allocator: the snapshot read and parsed (streamed), the StatefulSet parsed, the
//! simulation, each timed, and the peak RSS (VmHWM) of the whole process.
//!
//!     cargo build --release -p placement-playground --example snapshot_volumes
//!     target/release/examples/snapshot_volumes gen /tmp/snapshot-volumes.yaml
//!     target/release/examples/snapshot_volumes /tmp/snapshot-volumes.yaml

#[path = "../../core/benches/common/mod.rs"]
mod common;

use std::time::Instant;

use placement_core::cluster::simulate::{simulate, SimulateOptions};
use placement_core::input::documents::{parse_manifests, Manifests};
use placement_core::input::list_stream;

// Measured with the CLI's allocator, as the CLI runs.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

const NODES: usize = 5_000;
const PODS_PER_NODE: usize = 20;
const CLAIMS: usize = 20_000;
const REPLICAS: usize = 1_000;

/// `VmHWM` (the peak) or `VmRSS` (now) of /proc/self/status.
fn rss_mib(field: &str) -> String {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.trim().trim_end_matches(" kB").trim().parse::<u64>().ok())
        .map_or_else(|| "n/a".into(), |kib| format!("{:.0} MiB", kib as f64 / 1024.0))
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
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["gen", path] => generate(path, CLAIMS),
        // The same cluster with fewer claims (0: none, and no storage objects), to compare.
        ["gen", path, "--claims", n] => generate(path, n.parse().expect("--claims N")),
        [path] => run(path),
        _ => panic!("usage: snapshot_volumes gen PATH [--claims N] | snapshot_volumes PATH"),
    }
}

fn generate(path: &str, claims: usize) {
    let file = std::fs::File::create(path).expect("create the snapshot file");
    let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
    common::write_kubectl_get_storage_nodes_and_pods_yaml(&mut out, NODES, PODS_PER_NODE, claims)
        .expect("write the snapshot");
    drop(out);
    let size = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    println!("wrote {path}: {size} bytes ({:.1} MiB)", size as f64 / 1048576.0);
}

fn run(path: &str) {
    let started = Instant::now();
    let file = std::fs::File::open(path).expect("open the snapshot");
    let mut manifests: Manifests =
        list_stream::read(file, path).expect("read the snapshot").expect("a List the streaming reader reads");
    let read = started.elapsed();
    let rss_after_read = rss_mib("VmRSS:");

    let parse_started = Instant::now();
    manifests.extend(parse_manifests(STATEFUL_SET, "db.yaml").expect("the StatefulSet parses"));
    let parse_sts = parse_started.elapsed();

    let sim_started = Instant::now();
    let report = simulate(&manifests, &SimulateOptions::default()).unwrap_or_else(|e| panic!("invalid: {}", e[0]));
    let simulated = sim_started.elapsed();

    let db = report.workloads.iter().find(|w| w.kind == "StatefulSet" && w.name == "db").expect("the StatefulSet");
    let provisioned = db.pods.iter().filter(|p| p.claims.iter().any(|c| c.provision_on.is_some())).count();
    let pending_existing = report.workloads.iter().filter(|w| w.kind != "StatefulSet").map(|w| w.pending).sum::<i64>();
    let claims_in_use = report
        .workloads
        .iter()
        .filter(|w| w.kind != "StatefulSet")
        .flat_map(|w| &w.pods)
        .filter(|p| !p.claims.is_empty())
        .count();
    println!(
        "{} nodes, {} claims and PVs, {claims_in_use} snapshot pods with a claim; StatefulSet db placed {}/{} \
         (claims provisioned: {provisioned}, want {REPLICAS}); other workloads pending {pending_existing}",
        manifests.nodes.len(),
        manifests.storage.claims.len(),
        db.scheduled,
        db.desired
    );
    println!(
        "read+parse snapshot {:.0} ms (RSS after {rss_after_read}), parse StatefulSet {:.1} ms, simulate {:.0} ms; \
         total {:.0} ms; peak RSS {}",
        read.as_secs_f64() * 1e3,
        parse_sts.as_secs_f64() * 1e3,
        simulated.as_secs_f64() * 1e3,
        (read + parse_sts + simulated).as_secs_f64() * 1e3,
        rss_mib("VmHWM:")
    );
}
