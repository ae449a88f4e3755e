//! The policy benchmark's inputs: `bench-policy` (this crate, in the waPC host) and
//! `core/examples/admission_fresh.rs` (the same inputs natively, for callgrind) both include
//! this file, since this crate is its own workspace. Only `serde_json` and `std`; paths are
//! taken from the repository root the caller passes.

use std::path::Path;

use serde_json::{json, Value};

/// A compact-form inventory of `n` nodes in pools as a typical cluster has them: 70% general
/// (three zones), 15% gpu (tainted), 10% infra (tainted NoExecute), 5% control plane.
pub fn inventory(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let zone = ["a", "b", "c"][i % 3];
            let line = match i * 100 / n.max(1) {
                0..=69 => format!("general-{i}: ; pool=general, topology.kubernetes.io/zone={zone}; cpu=8, memory=32Gi, pods=110"),
                70..=84 => format!(
                    "gpu-{i}: sku=gpu:NoSchedule; pool=gpu, topology.kubernetes.io/zone={zone}; cpu=16, memory=64Gi, pods=110, nvidia.com/gpu=4"
                ),
                85..=94 => format!(
                    "infra-{i}: dedicated=infra:NoExecute; pool=infra, topology.kubernetes.io/zone={zone}; cpu=4, memory=16Gi, pods=110"
                ),
                _ => format!(
                    "cp-{i}: node-role.kubernetes.io/control-plane:NoSchedule; pool=control-plane, node-role.kubernetes.io/control-plane=; cpu=4, memory=16Gi, pods=110"
                ),
            };
            Value::String(line)
        })
        .collect()
}

/// Settings with every validating policy on, over an inventory of `n` nodes.
pub fn bench_settings(n: usize) -> Value {
    json!({
        "poolLabel": "pool",
        "nodes": inventory(n),
        "disallowedTolerations": {"keyPrefixes": ["node-role.kubernetes.io/"], "exemptNamespaces": ["kube-system"]},
        "requiredPlacement": {"rules": [{"name": "ml-on-gpu", "namespaces": ["ml"], "pool": "gpu"}]},
        "schedulable": {"daemonSetPools": ["general", "gpu", "infra"]},
        "daemonsetCoverage": {"daemonSets": [{"namespace": "twistlock"}], "pools": ["general", "gpu", "infra"]}
    })
}

// Gatekeeper benchmark inputs: the pod-security set of `core/benches/gatekeeper.rs`

/// (library folder, constraint kind, parameters) of the 10-template pod-security set.
pub const POD_SECURITY: [(&str, &str, &str); 10] = [
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

/// Settings with only the `gatekeeper` policy: the 10 pod-security templates (as YAML text,
/// the way users paste them) and one constraint each on Pods.
pub fn pod_security_settings(root: &Path) -> Value {
    let templates: Vec<Value> = POD_SECURITY
        .iter()
        .map(|(dir, _, _)| {
            let p = root.join("gatekeeper/library/pod-security-policy").join(dir).join("template.yaml");
            Value::String(std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display())))
        })
        .collect();
    let constraints: Vec<Value> = POD_SECURITY
        .iter()
        .enumerate()
        .map(|(i, (_, kind, params))| {
            json!({
                "apiVersion": "constraints.gatekeeper.sh/v1beta1",
                "kind": kind,
                "metadata": {"name": format!("psp-{i}")},
                "spec": {
                    "match": {"kinds": [{"apiGroups": [""], "kinds": ["Pod"]}]},
                    "parameters": serde_json::from_str::<Value>(params).expect("params"),
                }
            })
        })
        .collect();
    json!({"gatekeeper": {"templates": templates, "constraints": constraints, "defaultExpansions": false}})
}

/// The bench Pod of `core/benches/gatekeeper.rs` (2 containers, 2 volumes, violating 3
/// constraints) as a CREATE AdmissionRequest.
pub fn pod_security_request(root: &Path) -> Value {
    let path = root.join("core/src/admission/testdata/pod-security-bench.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let pod: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    json!({
        "uid": "7d9f0000-0000-4000-8000-000000000001",
        "kind": {"group": "", "version": "v1", "kind": "Pod"},
        "resource": {"group": "", "version": "v1", "resource": "pods"},
        "name": "web-7d9f", "namespace": "prod", "operation": "CREATE",
        "userInfo": {"username": "system:serviceaccount:kube-system:replicaset-controller"},
        "object": pod
    })
}

/// `n` Nodes as the API server lists them, the pools and shapes of [`inventory`] (70%
/// general, 15% gpu, 10% infra, 5% control plane, three zones), each as a kubelet reports it
/// without its image list and managed fields: labels, taints, capacity and allocatable, the
/// five conditions, addresses and nodeInfo, about 1.9 kB of JSON.
pub fn cluster_nodes(n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let zone = ["a", "b", "c"][i % 3];
            let (name, pool, taints, cpu, memory, gpu) = match i * 100 / n.max(1) {
                0..=69 => (format!("general-{i}"), "general", json!([]), "8", "32Gi", None),
                70..=84 => (
                    format!("gpu-{i}"),
                    "gpu",
                    json!([{"key": "sku", "value": "gpu", "effect": "NoSchedule"}]),
                    "16",
                    "64Gi",
                    Some("4"),
                ),
                85..=94 => (
                    format!("infra-{i}"),
                    "infra",
                    json!([{"key": "dedicated", "value": "infra", "effect": "NoExecute"}]),
                    "4",
                    "16Gi",
                    None,
                ),
                _ => (
                    format!("cp-{i}"),
                    "control-plane",
                    json!([{"key": "node-role.kubernetes.io/control-plane", "effect": "NoSchedule"}]),
                    "4",
                    "16Gi",
                    None,
                ),
            };
            let mut resources = json!({"cpu": cpu, "memory": memory, "pods": "110", "ephemeral-storage": "100Gi"});
            if let Some(g) = gpu {
                resources["nvidia.com/gpu"] = json!(g);
            }
            let condition = |t: &str, status: &str, reason: &str, message: &str| {
                json!({"type": t, "status": status, "reason": reason, "message": message,
                       "lastHeartbeatTime": "2026-12-07T10:00:00Z", "lastTransitionTime": "2026-11-01T08:00:00Z"})
            };
            json!({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": name,
                    "uid": format!("5b3c1d2e-0000-4000-8000-{i:012}"),
                    "resourceVersion": format!("{}", 100_000 + i),
                    "creationTimestamp": "2026-11-01T08:00:00Z",
                    "labels": {
                        "beta.kubernetes.io/arch": "amd64", "beta.kubernetes.io/os": "linux",
                        "kubernetes.io/arch": "amd64", "kubernetes.io/os": "linux", "kubernetes.io/hostname": name,
                        "node.kubernetes.io/instance-type": "m6i.2xlarge", "pool": pool,
                        "topology.kubernetes.io/region": "eu-west-1", "topology.kubernetes.io/zone": format!("eu-west-1{zone}"),
                    },
                    "annotations": {"node.alpha.kubernetes.io/ttl": "0", "volumes.kubernetes.io/controller-managed-attach-detach": "true"},
                },
                "spec": {"podCIDR": format!("10.{}.{}.0/24", i / 256, i % 256), "providerID": format!("aws:///eu-west-1{zone}/i-{i:017x}"), "taints": taints},
                "status": {
                    "capacity": resources.clone(),
                    "allocatable": resources,
                    "conditions": [
                        condition("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
                        condition("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
                        condition("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
                        condition("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
                    ],
                    "addresses": [{"type": "InternalIP", "address": format!("10.0.{}.{}", i / 256, i % 256)}, {"type": "Hostname", "address": name}],
                    "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
                    "nodeInfo": {
                        "architecture": "amd64", "bootID": format!("b-{i}"), "containerRuntimeVersion": "containerd://2.1.4",
                        "kernelVersion": "6.8.0-1024-aws", "kubeProxyVersion": "", "kubeletVersion": "v1.35.4",
                        "machineID": format!("m-{i}"), "operatingSystem": "linux", "osImage": "Ubuntu 24.04.3 LTS", "systemUUID": format!("u-{i}"),
                    },
                },
            })
        })
        .collect()
}
