//! Profiling aid for the policy's fresh-instance path: the stateless `admission::validate`
//! (settings read on every call, as in a fresh policy instance), natively, on the inputs of
//! `tests/wapc-host`'s `bench-policy` (`bench_settings`, `pod_security_settings`; that crate
//! is its own workspace with wasmtime, so its generators are mirrored here: keep them in step).
//! Instruction counts are what BENCHMARKS.md compares, since they hold under load:
//!
//! ```text
//! cargo build --release -p placement-core --example admission_fresh
//! valgrind --tool=callgrind target/release/examples/admission_fresh inv100 5
//! ```
//!
//! Arguments: `CASE [CALLS]`, CASE one of `inv100`, `inv1000` (the Deployment against 100 or
//! 1,000 nodes, every policy on), `gk` (the 10 pod-security constraints on a Pod), `ds CALLS
//! NODES` (the DaemonSet that is mutated). One call more than CALLS is made (the first
//! prints the answer).
use serde_json::{json, Value};

fn inventory(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let zone = ["a", "b", "c"][i % 3];
            let line = match i * 100 / n.max(1) {
                0..=69 => format!("general-{i}: ; pool=general, topology.kubernetes.io/zone={zone}; cpu=8, memory=32Gi, pods=110"),
                70..=84 => format!("gpu-{i}: sku=gpu:NoSchedule; pool=gpu, topology.kubernetes.io/zone={zone}; cpu=16, memory=64Gi, pods=110, nvidia.com/gpu=4"),
                85..=94 => format!("infra-{i}: dedicated=infra:NoExecute; pool=infra, topology.kubernetes.io/zone={zone}; cpu=4, memory=16Gi, pods=110"),
                _ => format!("cp-{i}: node-role.kubernetes.io/control-plane:NoSchedule; pool=control-plane, node-role.kubernetes.io/control-plane=; cpu=4, memory=16Gi, pods=110"),
            };
            Value::String(line)
        })
        .collect()
}

fn bench_settings(n: usize) -> Value {
    json!({
        "poolLabel": "pool",
        "nodes": inventory(n),
        "disallowedTolerations": {"keyPrefixes": ["node-role.kubernetes.io/"], "exemptNamespaces": ["kube-system"]},
        "requiredPlacement": {"rules": [{"name": "ml-on-gpu", "namespaces": ["ml"], "pool": "gpu"}]},
        "schedulable": {"daemonSetPools": ["general", "gpu", "infra"]},
        "daemonsetCoverage": {"daemonSets": [{"namespace": "twistlock"}], "pools": ["general", "gpu", "infra"]}
    })
}

const PS: [(&str, &str, &str); 10] = [
    ("privileged-containers", "K8sPSPPrivilegedContainer", "{}"),
    ("host-namespaces", "K8sPSPHostNamespace", "{}"),
    ("host-network-ports", "K8sPSPHostNetworkingPorts", r#"{"hostNetwork": false, "min": 80, "max": 9000}"#),
    (
        "capabilities",
        "K8sPSPCapabilities",
        r#"{"allowedCapabilities": ["NET_BIND_SERVICE"], "requiredDropCapabilities": ["ALL"]}"#,
    ),
    ("allow-privilege-escalation", "K8sPSPAllowPrivilegeEscalationContainer", "{}"),
    ("host-filesystem", "K8sPSPHostFilesystem", "{}"),
    ("proc-mount", "K8sPSPProcMount", r#"{"procMount": "Default"}"#),
    (
        "seccompv2",
        "K8sPSPSeccompV2",
        r#"{"allowedProfiles": ["RuntimeDefault", "Localhost"], "allowedLocalhostFiles": ["*"]}"#,
    ),
    ("users", "K8sPSPAllowedUsers", r#"{"runAsUser": {"rule": "MustRunAsNonRoot"}}"#),
    (
        "volumes",
        "K8sPSPVolumeTypes",
        r#"{"volumes": ["configMap", "emptyDir", "projected", "secret", "persistentVolumeClaim"]}"#,
    ),
];

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read_json(p: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(p)).unwrap()).unwrap()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let case = args.get(1).map(String::as_str).unwrap_or("inv100");
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    let payload = match case {
        "gk" => {
            let templates: Vec<Value> = PS
                .iter()
                .map(|(d, _, _)| {
                    Value::String(
                        std::fs::read_to_string(
                            root().join("gatekeeper/library/pod-security-policy").join(d).join("template.yaml"),
                        )
                        .unwrap(),
                    )
                })
                .collect();
            let constraints: Vec<Value> = PS.iter().enumerate().map(|(i, (_, kind, params))| json!({
                "apiVersion": "constraints.gatekeeper.sh/v1beta1", "kind": kind, "metadata": {"name": format!("psp-{i}")},
                "spec": {"match": {"kinds": [{"apiGroups": [""], "kinds": ["Pod"]}]}, "parameters": serde_json::from_str::<Value>(params).unwrap()}
            })).collect();
            let settings =
                json!({"gatekeeper": {"templates": templates, "constraints": constraints, "defaultExpansions": false}});
            let pod = read_json("core/src/admission/testdata/pod-security-bench.json");
            let request = json!({
                "uid": "7d9f0000-0000-4000-8000-000000000001",
                "kind": {"group": "", "version": "v1", "kind": "Pod"},
                "resource": {"group": "", "version": "v1", "resource": "pods"},
                "name": "web-7d9f", "namespace": "prod", "operation": "CREATE",
                "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller"},
                "object": pod
            });
            serde_json::to_vec(&json!({"request": request, "settings": settings})).unwrap()
        }
        "ds" => {
            let nodes = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
            let r = read_json("core/src/admission/testdata/daemonset-defender.json");
            serde_json::to_vec(&json!({"request": r, "settings": bench_settings(nodes)})).unwrap()
        }
        _ => {
            let nodes = if case == "inv1000" { 1000 } else { 100 };
            let r = read_json("core/src/admission/testdata/deployment-web.json");
            serde_json::to_vec(&json!({"request": r, "settings": bench_settings(nodes)})).unwrap()
        }
    };
    let first = placement_core::admission::validate(&payload);
    eprintln!("{}", serde_json::to_string(&first).unwrap().chars().take(300).collect::<String>());
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(placement_core::admission::validate(&payload));
    }
    eprintln!("{case}: {:.1} us/call", t.elapsed().as_secs_f64() * 1e6 / n as f64);
}
