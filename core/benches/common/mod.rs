//! Synthetic clusters and workloads for the benchmarks and `examples/peak_memory.rs`.
//!
//! Shared by `benches/scheduling.rs` (`mod common;`) and the example (`#[path]`), never part
//! of the library. Everything is deterministic: the same `n` gives the same cluster.
//!
//! The cluster imitates an AKS cluster in three zones with five node pools:
//!
//! | pool      | share | instance type               | taint                                         |
//! |-----------|-------|-----------------------------|-----------------------------------------------|
//! | system    | 10%   | Standard_D4s_v5             | —                                             |
//! | general   | 50%   | Standard_D8s_v5             | —                                             |
//! | spot      | 10%   | Standard_D16s_v5            | `kubernetes.azure.com/scalesetpriority=spot:NoSchedule` (tolerated by the bench pod) |
//! | gpu       | 20%   | Standard_NC24ads_A100_v4    | `dedicated=gpu:NoSchedule` (not tolerated)    |
//! | memory    | 10%   | Standard_E8s_v5             | —                                             |
#![allow(dead_code)]

use placement_core::input::documents::{DocRef, Manifests, Workload, WorkloadKind};
use placement_core::model::{Node, Pod, PodTemplateSpec};
use placement_core::scheduler::framework::{NodeInfo, PlacedPod, SchedulerConfig};
use placement_core::scheduler::plugins::node_resources_fit::{pod_non_zero_request, pod_request};
use serde_json::{json, Map, Value};

pub const ZONES: [&str; 3] = ["eastus-1", "eastus-2", "eastus-3"];

struct Pool {
    name: &'static str,
    instance_type: &'static str,
    cpu_milli: i64,
    memory_ki: i64,
    gpu: bool,
    taint: Option<(&'static str, &'static str, &'static str)>,
}

/// Pool of node `i`: a repeating pattern of ten nodes gives the shares in the module table.
fn pool(i: usize) -> Pool {
    match i % 10 {
        0 => Pool {
            name: "system",
            instance_type: "Standard_D4s_v5",
            cpu_milli: 4000,
            memory_ki: 16_393_088,
            gpu: false,
            taint: None,
        },
        1 | 2 => Pool {
            name: "gpu",
            instance_type: "Standard_NC24ads_A100_v4",
            cpu_milli: 24_000,
            memory_ki: 230_686_720,
            gpu: true,
            taint: Some(("dedicated", "gpu", "NoSchedule")),
        },
        3 => Pool {
            name: "spot",
            instance_type: "Standard_D16s_v5",
            cpu_milli: 16_000,
            memory_ki: 65_842_100,
            gpu: false,
            taint: Some(("kubernetes.azure.com/scalesetpriority", "spot", "NoSchedule")),
        },
        4 => Pool {
            name: "memory",
            instance_type: "Standard_E8s_v5",
            cpu_milli: 8000,
            memory_ki: 65_842_100,
            gpu: false,
            taint: None,
        },
        _ => Pool {
            name: "general",
            instance_type: "Standard_D8s_v5",
            cpu_milli: 8000,
            memory_ki: 32_863_252,
            gpu: false,
            taint: None,
        },
    }
}

pub fn node_name(i: usize) -> String {
    format!("aks-{}-31415926-vmss{:06x}", pool(i).name, i)
}

/// The ~10 labels every node carries.
fn core_labels(i: usize) -> Map<String, Value> {
    let p = pool(i);
    let zone = ZONES[i % 3];
    let mut l = Map::new();
    l.insert("kubernetes.io/hostname".into(), json!(node_name(i)));
    l.insert("kubernetes.io/os".into(), json!("linux"));
    l.insert("kubernetes.io/arch".into(), json!("amd64"));
    l.insert("node.kubernetes.io/instance-type".into(), json!(p.instance_type));
    l.insert("topology.kubernetes.io/zone".into(), json!(zone));
    l.insert("topology.kubernetes.io/region".into(), json!("eastus"));
    l.insert("kubernetes.azure.com/agentpool".into(), json!(p.name));
    l.insert("agentpool".into(), json!(p.name));
    l.insert("kubernetes.azure.com/mode".into(), json!(if p.name == "system" { "system" } else { "user" }));
    l.insert("kubernetes.azure.com/node-image-version".into(), json!("AKSUbuntu-2204gen2containerd-202405.03.0"));
    if p.name == "spot" {
        l.insert("kubernetes.azure.com/scalesetpriority".into(), json!("spot"));
    }
    if p.gpu {
        l.insert("accelerator".into(), json!("nvidia"));
    }
    l
}

fn resources(i: usize, allocatable: bool) -> Value {
    let p = pool(i);
    // Allocatable is capacity minus kube-reserved and eviction thresholds, as kubelet reports.
    let (cpu, mem) = if allocatable {
        (format!("{}m", p.cpu_milli - 180 - p.cpu_milli / 50), format!("{}Ki", p.memory_ki * 86 / 100))
    } else {
        (format!("{}", p.cpu_milli / 1000), format!("{}Ki", p.memory_ki))
    };
    let mut r = json!({
        "cpu": cpu,
        "memory": mem,
        "pods": "110",
        "ephemeral-storage": if allocatable { "119703055367" } else { "129886128Ki" },
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
    });
    if p.gpu {
        r["nvidia.com/gpu"] = json!("1");
    }
    r
}

fn taints(i: usize) -> Vec<Value> {
    pool(i).taint.map(|(k, v, e)| json!({"key": k, "value": v, "effect": e})).into_iter().collect()
}

/// A Node as a hand-written manifest would have it: name, ~10 labels, taints, allocatable.
pub fn lean_node_value(i: usize) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node_name(i), "labels": core_labels(i)},
        "spec": {"taints": taints(i)},
        "status": {"allocatable": resources(i, true), "capacity": resources(i, false)},
    })
}

pub fn lean_nodes(n: usize) -> Vec<Node> {
    (0..n).map(|i| serde_json::from_value(lean_node_value(i)).expect("generated node deserializes")).collect()
}

// ---------------------------------------------------------------------------------------------
// `kubectl get nodes -o yaml`

/// Deterministic pseudo-random hex (splitmix64), for digests, uids and machine ids.
fn hex(seed: u64, len: usize) -> String {
    let mut out = String::with_capacity(len);
    let mut x = seed;
    while out.len() < len {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        out.push_str(&format!("{z:016x}"));
    }
    out.truncate(len);
    out
}

fn uid(seed: u64) -> String {
    let h = hex(seed, 32);
    format!("{}-{}-{}-{}-{}", &h[0..8], &h[8..12], &h[12..16], &h[16..20], &h[20..32])
}

const IMAGES: [(&str, &str); 20] = [
    ("mcr.microsoft.com/oss/kubernetes/kube-proxy", "v1.29.4-hotfix.20240411"),
    ("mcr.microsoft.com/azuremonitor/containerinsights/ciprod", "3.1.20"),
    ("mcr.microsoft.com/oss/kubernetes-csi/azuredisk-csi", "v1.29.5"),
    ("mcr.microsoft.com/oss/kubernetes-csi/azurefile-csi", "v1.29.4"),
    ("mcr.microsoft.com/oss/kubernetes-csi/csi-node-driver-registrar", "v2.10.1"),
    ("mcr.microsoft.com/oss/kubernetes-csi/livenessprobe", "v2.12.0"),
    ("mcr.microsoft.com/oss/kubernetes/azure-cloud-node-manager", "v1.29.4"),
    ("mcr.microsoft.com/containernetworking/azure-cns", "v1.5.26"),
    ("mcr.microsoft.com/containernetworking/azure-ipam", "v0.2.0"),
    ("mcr.microsoft.com/oss/cilium/cilium", "1.14.10-1"),
    ("mcr.microsoft.com/oss/kubernetes/coredns", "v1.9.4-hotfix.20240411"),
    ("mcr.microsoft.com/oss/kubernetes/pause", "3.6"),
    ("mcr.microsoft.com/oss/kubernetes/ip-masq-agent", "v0.1.10-2"),
    ("mcr.microsoft.com/oss/kubernetes/metrics-server", "v0.6.3-hotfix.20240116"),
    ("mcr.microsoft.com/aks/hcp/hcp-tunnel-front", "master.240307.1"),
    ("mcr.microsoft.com/oss/open-policy-agent/gatekeeper", "v3.14.0-1"),
    ("docker.io/twistlock/defender", "defender_32_00_123"),
    ("ghcr.io/fluxcd/source-controller", "v1.2.4"),
    ("quay.io/prometheus/node-exporter", "v1.7.0"),
    ("registry.k8s.io/ingress-nginx/controller", "v1.10.0"),
];

/// A Node exactly as noisy as `kubectl get nodes -o yaml` prints it: annotations (one long),
/// ~15 labels, managedFields, podCIDR, providerID, addresses, capacity, 5 conditions,
/// daemonEndpoints, 20 images with 2 names each, nodeInfo.
pub fn kubectl_node_value(i: usize) -> Value {
    let name = node_name(i);
    let p = pool(i);
    let mut labels = core_labels(i);
    for (k, v) in [
        ("beta.kubernetes.io/os", "linux".to_string()),
        ("beta.kubernetes.io/arch", "amd64".to_string()),
        ("beta.kubernetes.io/instance-type", p.instance_type.to_string()),
        ("failure-domain.beta.kubernetes.io/zone", ZONES[i % 3].to_string()),
        ("failure-domain.beta.kubernetes.io/region", "eastus".to_string()),
        ("kubernetes.azure.com/cluster", "MC_prod-rg_prod-aks_eastus".to_string()),
        ("kubernetes.azure.com/os-sku", "Ubuntu".to_string()),
    ] {
        labels.insert(k.into(), json!(v));
    }
    let seed = i as u64 * 7919;
    let long_annotation = json!({
        "disk.csi.azure.com": name,
        "file.csi.azure.com": name,
        "blob.csi.azure.com": name,
    })
    .to_string();
    let last_applied_taints = format!(
        "[{{\"key\":\"node.kubernetes.io/unreachable\",\"effect\":\"NoExecute\",\"timeAdded\":null}},{{\"key\":\"{}\",\"value\":\"{}\",\"effect\":\"NoSchedule\"}},{}]",
        p.taint.map(|t| t.0).unwrap_or("none"),
        p.taint.map(|t| t.1).unwrap_or(""),
        (0..6).map(|k| format!("{{\"k\":\"{}\"}}", hex(seed + k, 40))).collect::<Vec<_>>().join(",")
    );
    let images: Vec<Value> = IMAGES
        .iter()
        .enumerate()
        .map(|(k, (repo, tag))| {
            json!({
                "names": [format!("{repo}@sha256:{}", hex(k as u64 * 31, 64)), format!("{repo}:{tag}")],
                "sizeBytes": 10_000_000 + (k as u64 * 7_654_321) % 400_000_000,
            })
        })
        .collect();
    let now = "2024-05-21T09:41:17Z";
    let conditions: Vec<Value> = [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
        ("Ready", "True", "KubeletReady", "kubelet is posting ready status. AppArmor enabled"),
        ("KernelDeadlock", "False", "KernelHasNoDeadlock", "kernel has no deadlock"),
    ]
    .iter()
    .map(|(t, s, r, m)| {
        json!({"lastHeartbeatTime": now, "lastTransitionTime": "2024-05-02T11:07:44Z", "message": m, "reason": r, "status": s, "type": t})
    })
    .collect();
    let label_fields: Map<String, Value> =
        labels.keys().map(|k| (format!("f:{k}"), json!({}))).chain([(".".to_string(), json!({}))]).collect();
    let condition_fields: Map<String, Value> = ["MemoryPressure", "DiskPressure", "PIDPressure", "Ready", "KernelDeadlock"]
        .iter()
        .map(|t| {
            (
                format!("k:{{\"type\":\"{t}\"}}"),
                json!({"f:lastHeartbeatTime": {}, "f:lastTransitionTime": {}, "f:message": {}, "f:reason": {}, "f:status": {}}),
            )
        })
        .chain([(".".to_string(), json!({}))])
        .collect();
    let managed_fields = json!([
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {"f:annotations": {".": {}, "f:node.alpha.kubernetes.io/ttl": {}}},
                "f:spec": {"f:podCIDR": {}, "f:podCIDRs": {".": {}, "v:\"10.244.0.0/24\"": {}}, "f:taints": {}},
            },
            "manager": "kube-controller-manager",
            "operation": "Update",
            "time": "2024-05-02T11:08:01Z",
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:metadata": {
                    "f:annotations": {".": {}, "f:csi.volume.kubernetes.io/nodeid": {}, "f:volumes.kubernetes.io/controller-managed-attach-detach": {}},
                    "f:labels": label_fields,
                },
                "f:spec": {"f:providerID": {}},
            },
            "manager": "kubelet",
            "operation": "Update",
            "time": "2024-05-02T11:07:44Z",
        },
        {
            "apiVersion": "v1",
            "fieldsType": "FieldsV1",
            "fieldsV1": {
                "f:status": {
                    "f:allocatable": {"f:cpu": {}, "f:ephemeral-storage": {}, "f:memory": {}},
                    "f:conditions": condition_fields,
                    "f:images": {},
                    "f:nodeInfo": {"f:bootID": {}, "f:kernelVersion": {}},
                },
            },
            "manager": "kubelet",
            "operation": "Update",
            "subresource": "status",
            "time": now,
        },
    ]);
    let ip = format!("10.224.{}.{}", (i / 250) % 256, 4 + i % 250);
    let mut node = json!({
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "csi.volume.kubernetes.io/nodeid": long_annotation,
                "node.alpha.kubernetes.io/ttl": "0",
                "volumes.kubernetes.io/controller-managed-attach-detach": "true",
                "cluster-autoscaler.kubernetes.io/last-known-taints": last_applied_taints,
            },
            "creationTimestamp": "2024-05-02T11:07:44Z",
            "labels": labels,
            "managedFields": managed_fields,
            "name": name,
            "resourceVersion": format!("{}", 182_736_451 + i * 13),
            "uid": uid(seed),
        },
        "spec": {
            "podCIDR": format!("10.244.{}.0/24", i % 256),
            "podCIDRs": [format!("10.244.{}.0/24", i % 256)],
            "providerID": format!("azure:///subscriptions/{}/resourceGroups/mc_prod-rg_prod-aks_eastus/providers/Microsoft.Compute/virtualMachineScaleSets/aks-{}-31415926-vmss/virtualMachines/{}", uid(7), p.name, i),
        },
        "status": {
            "addresses": [{"address": ip, "type": "InternalIP"}, {"address": name, "type": "Hostname"}],
            "allocatable": resources(i, true),
            "capacity": resources(i, false),
            "conditions": conditions,
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": images,
            "nodeInfo": {
                "architecture": "amd64",
                "bootID": uid(seed + 1),
                "containerRuntimeVersion": "containerd://1.7.15-1",
                "kernelVersion": "5.15.0-1064-azure",
                "kubeProxyVersion": "v1.29.4",
                "kubeletVersion": "v1.29.4",
                "machineID": hex(seed + 2, 32),
                "operatingSystem": "linux",
                "osImage": "Ubuntu 22.04.4 LTS",
                "systemUUID": uid(seed + 3),
            },
        },
    });
    let t = taints(i);
    if !t.is_empty() {
        node["spec"]["taints"] = Value::Array(t);
    }
    node
}

/// `kubectl get nodes -o yaml` for `n` nodes: one `kind: List` document.
pub fn kubectl_get_nodes_yaml(n: usize) -> String {
    let list = json!({
        "apiVersion": "v1",
        "items": (0..n).map(kubectl_node_value).collect::<Vec<_>>(),
        "kind": "List",
        "metadata": {"resourceVersion": ""},
    });
    serde_yaml::to_string(&list).expect("YAML serialization of generated nodes")
}

// ---------------------------------------------------------------------------------------------
// Pods and workloads

/// The pod template of a typical web Deployment: requests and a memory limit, a nodeSelector,
/// two preferred node-affinity terms, and a toleration for the spot pool.
pub fn web_template_value() -> Value {
    json!({
        "metadata": {"labels": {"app": "web", "tier": "frontend", "app.kubernetes.io/version": "2.14.1"}},
        "spec": {
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "affinity": {"nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                {"weight": 50, "preference": {"matchExpressions": [
                    {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["Standard_D8s_v5", "Standard_D16s_v5"]},
                ]}},
                {"weight": 20, "preference": {"matchExpressions": [
                    {"key": "topology.kubernetes.io/zone", "operator": "In", "values": ["eastus-1"]},
                ]}},
            ]}},
            "tolerations": [
                {"key": "kubernetes.azure.com/scalesetpriority", "operator": "Equal", "value": "spot", "effect": "NoSchedule"},
            ],
            "containers": [{
                "name": "web",
                "image": "registry.example.com/shop/web:2.14.1",
                "ports": [{"containerPort": 8080, "name": "http"}],
                "resources": {"requests": {"cpu": "250m", "memory": "512Mi"}, "limits": {"memory": "1Gi"}},
            }],
        },
    })
}

pub fn web_pod() -> Pod {
    let mut v = web_template_value();
    v["metadata"]["name"] = json!("web-0");
    v["metadata"]["namespace"] = json!("shop");
    serde_json::from_value(v).expect("generated pod deserializes")
}

/// Three daemon pods per node (kube-proxy, CNI, CSI), bound the way `simulate` binds them, so
/// the nodes carry requests and pods like a live cluster's.
pub fn system_pods() -> Vec<Pod> {
    [("kube-proxy", "100m", "128Mi"), ("cilium", "100m", "256Mi"), ("csi-azuredisk-node", "30m", "60Mi")]
        .iter()
        .map(|(name, cpu, mem)| {
            serde_json::from_value(json!({
                "metadata": {"name": name, "namespace": "kube-system", "labels": {"k8s-app": name}},
                "spec": {"containers": [{"name": name, "resources": {"requests": {"cpu": cpu, "memory": mem}}}]},
            }))
            .expect("generated pod deserializes")
        })
        .collect()
}

/// `n` nodes as the scheduler sees them, each already running [`system_pods`].
pub fn cluster(n: usize, cfg: &SchedulerConfig) -> Vec<NodeInfo> {
    let daemons = system_pods();
    lean_nodes(n)
        .into_iter()
        .map(|node| {
            let mut info = NodeInfo::new(node);
            for pod in &daemons {
                info.requested.add(&pod_request(&pod.spec, cfg));
                info.non_zero_requested.add(&pod_non_zero_request(&pod.spec, cfg.gates.pod_level_resources));
                info.add_pod(PlacedPod::from_pod(pod));
            }
            info
        })
        .collect()
}

/// Nodes plus one Deployment of `replicas` pods of [`web_template_value`].
pub fn deployment_manifests(nodes: usize, replicas: i64) -> Manifests {
    let doc = |index: usize, kind: &str, namespace: Option<&str>, name: String| DocRef {
        index,
        source: "bench.yaml".into(),
        kind: kind.into(),
        namespace: namespace.map(str::to_string),
        name,
    };
    let node_docs = lean_nodes(nodes)
        .into_iter()
        .enumerate()
        .map(|(i, n)| (doc(i + 1, "Node", None, n.metadata.name.clone()), n))
        .collect();
    let template: PodTemplateSpec = serde_json::from_value(web_template_value()).expect("template deserializes");
    let workload = Workload {
        kind: WorkloadKind::Deployment,
        namespace: "shop".into(),
        name: "web".into(),
        doc: doc(nodes + 1, "Deployment", Some("shop"), "web".into()),
        replicas,
        template,
        selector: None,
        metadata: Default::default(),
        pod_status: Default::default(),
        state: Default::default(),
    };
    Manifests { nodes: node_docs, workloads: vec![workload], services: Vec::new(), ignored: Vec::new() }
}

/// Nodes plus one node-exporter DaemonSet (100m / 128Mi, no tolerations: the 30% tainted
/// nodes are not eligible).
pub fn daemonset_manifests(nodes: usize) -> Manifests {
    let mut m = deployment_manifests(nodes, 0);
    let template: PodTemplateSpec = serde_json::from_value(json!({
        "metadata": {"labels": {"app": "node-exporter"}},
        "spec": {"containers": [{
            "name": "node-exporter",
            "image": "quay.io/prometheus/node-exporter:v1.7.0",
            "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}},
        }]},
    }))
    .expect("template deserializes");
    let w = &mut m.workloads[0];
    w.kind = WorkloadKind::DaemonSet;
    w.namespace = "monitoring".into();
    w.name = "node-exporter".into();
    w.doc.kind = "DaemonSet".into();
    w.doc.namespace = Some("monitoring".into());
    w.doc.name = "node-exporter".into();
    w.template = template;
    m
}
