//! Golden outputs of the scheduling engine, for checking that a performance change alters no
//! output byte. `core/examples/golden.sh DIR` runs this example and the release CLI over the
//! same inputs; run it before and after a change and `diff -r` the two directories.
//!
//! ```text
//! cargo run --release -p placement-playground --example golden -- OUT_DIR
//! ```
//!
//! Writes into OUT_DIR:
//! - `inputs/`: generated manifests for the CLI (`nodes5000.yaml`: the benches' 5,000 lean
//!   nodes; `deploy1000.yaml`: the benches' 1,000-replica web Deployment; `ds.yaml`: the
//!   benches' node-exporter DaemonSet; `mixed.yaml`: a small cluster exercising pod
//!   (anti-)affinity, existing pods' anti-affinity, topology spread, host ports, cordoned and
//!   tainted nodes, pinned daemon pods that do not fit, and pending workloads with fixes);
//! - `core/`: outputs computed in-process: `schedule()` of the bench pod against the bench
//!   cluster with and without `explain`, `simulate()` of the DaemonSet scenario over 1,000
//!   nodes, and `evaluation::Evaluation::of` of `synthetic(200, 20)`, `synthetic(40, 12)` and every
//!   gallery example (Debug-printed: the evaluation has no serialized form).

#[path = "../../core/benches/common/mod.rs"]
mod common;

use std::fmt::Write as _;
use std::path::Path;

use placement_core::cluster::simulate::{simulate, SimulateOptions};
use placement_core::model::version::KubeVersion;
use placement_core::scheduler::framework::SchedulerConfig;
use placement_core::scheduler::schedule;
use placement_playground::evaluation::{synthetic, Evaluation};
use placement_playground::share::SharedState;
use serde_json::json;

fn write(dir: &Path, name: &str, text: &str) {
    std::fs::create_dir_all(dir).expect("create the output directory");
    std::fs::write(dir.join(name), text).expect("write a golden file");
}

/// A small cluster and workloads that take every branch the fast paths must not change.
fn mixed_yaml() -> String {
    let mut y = String::new();
    for i in 0..30 {
        let zone = i % 3;
        let mut node = json!({
            "apiVersion": "v1", "kind": "Node",
            "metadata": {"name": format!("m-{i:02}"), "labels": {
                "kubernetes.io/hostname": format!("m-{i:02}"),
                "topology.kubernetes.io/zone": format!("z{zone}"),
                "pool": if i % 5 == 4 { "batch" } else { "general" },
            }},
            "spec": {},
            "status": {"allocatable": {"cpu": if i == 7 { "500m" } else { "4" }, "memory": "16Gi", "pods": "110"}},
        });
        if i % 5 == 4 {
            node["spec"]["taints"] = json!([{"key": "dedicated", "value": "batch", "effect": "NoSchedule"}]);
        }
        if i == 11 {
            node["spec"]["unschedulable"] = json!(true);
        }
        if i == 13 {
            node["spec"]["taints"] = json!([{"key": "node.kubernetes.io/not-ready", "effect": "NoExecute"}]);
        }
        if i == 17 {
            node["status"] = json!({});
        }
        if i == 22 {
            // No zone label: spread and affinity on zone must treat it as missing the key.
            node["metadata"]["labels"].as_object_mut().unwrap().remove("topology.kubernetes.io/zone");
        }
        y.push_str(&serde_yaml::to_string(&node).unwrap());
        y.push_str("---\n");
    }
    y.push_str(
        r#"apiVersion: v1
kind: Pod
metadata: {name: guard, namespace: prod, labels: {app: guard}}
spec:
  nodeName: m-01
  affinity:
    podAntiAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
      - labelSelector: {matchLabels: {app: db}}
        topologyKey: kubernetes.io/hostname
        namespaces: [prod]
  containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: db, namespace: prod}
spec:
  replicas: 12
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: db}}
            topologyKey: kubernetes.io/hostname
      topologySpreadConstraints:
      - maxSkew: 1
        topologyKey: topology.kubernetes.io/zone
        whenUnsatisfiable: DoNotSchedule
        labelSelector: {matchLabels: {app: db}}
      containers: [{name: c, image: i, resources: {requests: {cpu: 1500m, memory: 1Gi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: prod}
spec:
  replicas: 25
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      affinity:
        podAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 50
            podAffinityTerm:
              labelSelector: {matchLabels: {app: db}}
              topologyKey: topology.kubernetes.io/zone
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 10
            preference: {matchExpressions: [{key: pool, operator: In, values: [general]}]}
      topologySpreadConstraints:
      - maxSkew: 2
        topologyKey: kubernetes.io/hostname
        whenUnsatisfiable: ScheduleAnyway
        labelSelector: {matchLabels: {app: web}}
      containers: [{name: c, image: i, resources: {requests: {cpu: 300m, memory: 512Mi}, limits: {memory: 1Gi}}}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: kube-system}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      containers:
      - name: c
        image: i
        ports: [{containerPort: 9100, hostPort: 9100}]
        resources: {requests: {cpu: 600m, memory: 256Mi}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: everywhere, namespace: kube-system}
spec:
  selector: {matchLabels: {app: everywhere}}
  template:
    metadata: {labels: {app: everywhere}}
    spec:
      tolerations: [{operator: Exists}]
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 1
            preference: {matchExpressions: [{key: pool, operator: In, values: [batch]}]}
      containers: [{name: c, image: i, resources: {requests: {cpu: 50m}}}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: batch-only, namespace: kube-system}
spec:
  selector: {matchLabels: {app: batch-only}}
  template:
    metadata: {labels: {app: batch-only}}
    spec:
      nodeSelector: {pool: batch}
      containers: [{name: c, image: i, resources: {requests: {cpu: 3800m}}}]
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: cache, namespace: prod}
spec:
  replicas: 4
  selector: {matchLabels: {app: cache}}
  template:
    metadata: {labels: {app: cache}}
    spec:
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: web}}
            topologyKey: topology.kubernetes.io/zone
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 30
            podAffinityTerm:
              labelSelector: {matchLabels: {app: cache}}
              topologyKey: kubernetes.io/hostname
      containers: [{name: c, image: i, resources: {requests: {cpu: 200m}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: exporter, namespace: prod}
spec:
  replicas: 3
  selector: {matchLabels: {app: exporter}}
  template:
    metadata: {labels: {app: exporter}}
    spec:
      containers: [{name: c, image: i, ports: [{containerPort: 9100, hostPort: 9100}]}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: huge, namespace: prod}
spec:
  replicas: 3
  selector: {matchLabels: {app: huge}}
  template:
    metadata: {labels: {app: huge}}
    spec:
      nodeSelector: {pool: gpu}
      containers: [{name: c, image: i, resources: {requests: {cpu: '64'}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: batchjob, namespace: prod}
spec:
  replicas: 40
  selector: {matchLabels: {app: batchjob}}
  template:
    metadata: {labels: {app: batchjob}}
    spec:
      nodeSelector: {pool: batch}
      tolerations: [{key: dedicated, operator: Equal, value: batch, effect: NoSchedule}]
      containers: [{name: c, image: i, resources: {requests: {cpu: '1', memory: 2Gi}}}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: firstpod, namespace: prod}
spec:
  replicas: 3
  selector: {matchLabels: {app: firstpod}}
  template:
    metadata: {labels: {app: firstpod}}
    spec:
      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector: {matchLabels: {app: firstpod}}
            topologyKey: topology.kubernetes.io/zone
      containers: [{name: c, image: i}]
"#,
    );
    y
}

fn main() {
    let out = std::env::args().nth(1).expect("usage: golden OUT_DIR");
    let out = Path::new(&out);
    let inputs = out.join("inputs");
    let core = out.join("core");

    // CLI inputs.
    let nodes: Vec<_> = (0..5_000).map(common::lean_node_value).collect();
    let list = json!({"apiVersion": "v1", "kind": "List", "items": nodes});
    write(&inputs, "nodes5000.yaml", &serde_yaml::to_string(&list).unwrap());
    let mut deploy = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {"replicas": 1000, "template": common::web_template_value()},
    });
    write(&inputs, "deploy1000.yaml", &serde_yaml::to_string(&deploy).unwrap());
    deploy["spec"]["replicas"] = json!(1);
    write(&inputs, "deploy1.yaml", &serde_yaml::to_string(&deploy).unwrap());
    let ds = json!({
        "apiVersion": "apps/v1", "kind": "DaemonSet",
        "metadata": {"name": "node-exporter", "namespace": "monitoring"},
        "spec": {"template": {
            "metadata": {"labels": {"app": "node-exporter"}},
            "spec": {"containers": [{"name": "node-exporter", "image": "quay.io/prometheus/node-exporter:v1.7.0", "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
        }},
    });
    write(&inputs, "ds.yaml", &serde_yaml::to_string(&ds).unwrap());
    write(&inputs, "mixed.yaml", &mixed_yaml());

    // In-process outputs.
    let cfg = SchedulerConfig::for_version(KubeVersion::LATEST);
    let cluster = common::cluster(5_000, &cfg);
    let pod = common::web_pod();
    for (explain, name) in [(true, "schedule_explain.json"), (false, "schedule_no_explain.json")] {
        let r = schedule(&pod, &cluster, &cfg, explain);
        write(&core, name, &serde_json::to_string_pretty(&r).unwrap());
    }
    let report = simulate(&common::daemonset_manifests(1_000), &SimulateOptions::default()).expect("valid");
    write(&core, "daemonset_1000.json", &serde_json::to_string_pretty(&report).unwrap());

    let mut states: Vec<(String, SharedState)> =
        vec![("synthetic_200_20".into(), synthetic(200, 20)), ("synthetic_40_12".into(), synthetic(40, 12))];
    for e in placement_playground::gallery::EXAMPLES {
        let (nodes, workloads) = e.split();
        states.push((format!("example_{}", e.id), SharedState { workloads, nodes, ..Default::default() }));
    }
    let mixed = mixed_yaml();
    let (nodes, workloads) = placement_playground::gallery::split_nodes(&mixed);
    states.push(("mixed".into(), SharedState { workloads, nodes, ..Default::default() }));
    for (name, state) in states {
        let eval = Evaluation::of(&state);
        let mut text = String::new();
        writeln!(text, "{eval:#?}").unwrap();
        write(&core, &format!("playground_{name}.txt"), &text);
    }
    println!("golden outputs written to {}", out.display());
}
