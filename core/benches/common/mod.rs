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
use placement_core::model::{LabelSelector, Node, Pod, PodTemplateSpec};
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
        .map(|(i, n)| (doc(i + 1, "Node", None, n.metadata.name.clone()), std::sync::Arc::new(n)))
        .collect();
    let template: PodTemplateSpec = serde_json::from_value(web_template_value()).expect("template deserializes");
    let workload = Workload {
        kind: WorkloadKind::Deployment,
        api_version: "apps/v1".into(),
        namespace: "shop".into(),
        name: "web".into(),
        doc: doc(nodes + 1, "Deployment", Some("shop"), "web".into()),
        replicas,
        template,
        // apps/v1 requires it; the template's labels.
        selector: Some(LabelSelector {
            match_labels: [("app", "web"), ("tier", "frontend")].map(|(k, v)| (k.to_string(), v.to_string())).into(),
            ..Default::default()
        }),
        metadata: Default::default(),
        pod_status: Default::default(),
        state: Default::default(),
    };
    Manifests { nodes: node_docs, workloads: vec![workload.into()], ..Default::default() }
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
    let w = std::sync::Arc::make_mut(&mut m.workloads[0]);
    w.kind = WorkloadKind::DaemonSet;
    w.namespace = "monitoring".into();
    w.name = "node-exporter".into();
    w.doc.kind = "DaemonSet".into();
    w.doc.namespace = Some("monitoring".into());
    w.doc.name = "node-exporter".into();
    w.template = template;
    w.selector = Some(LabelSelector {
        match_labels: [("app".to_string(), "node-exporter".to_string())].into(),
        ..Default::default()
    });
    m
}

// ---------------------------------------------------------------------------------------------
// `kubectl get nodes,pods -A -o yaml`: a cluster snapshot
//
// Every node runs `pods_per_node` pods: three DaemonSet pods (kube-proxy, the Cilium agent and
// the Azure Disk CSI node plugin, in kube-system) and Deployment pods of the node's pool, from
// 500 Deployments in 50 namespaces (50 per pool residue, so a Deployment's pods stay in its
// pool, tolerating its taint). One node in 50 runs a Succeeded CronJob pod instead of its first
// Deployment pod. Requests are sized to the pools: with 20 pods a node is about half full by
// CPU and memory, so new replicas still fit.

/// The snapshot's 100-node pool (of 5,000 nodes), for a what-if drain of a whole pool: one
/// general node in 25 is in it instead, with the same machines and no taint.
pub const SNAPSHOT_SMALL_POOL: &str = "batch";

/// The pool of the snapshot's node `i`: [`pool`]'s, but for [`SNAPSHOT_SMALL_POOL`].
pub fn snapshot_pool_name(i: usize) -> &'static str {
    match pool(i).name {
        "general" if (i / 10).is_multiple_of(25) => SNAPSHOT_SMALL_POOL,
        name => name,
    }
}

/// The name of the snapshot's node `i`: AKS names a node after its pool.
pub fn snapshot_node_name(i: usize) -> String {
    format!("aks-{}-31415926-vmss{:06x}", snapshot_pool_name(i), i)
}

/// DaemonSet pods on every node (slots 0 to 2).
pub const DAEMON_PODS_PER_NODE: usize = 3;
/// Deployments of the snapshot's pods (their ReplicaSets own the pods; neither is listed).
pub const SNAPSHOT_DEPLOYMENTS: usize = 500;
/// Namespaces of those Deployments.
pub const SNAPSHOT_NAMESPACES: usize = 50;

/// splitmix64 of `seed`.
fn mix(seed: u64) -> u64 {
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// `len` characters of the alphabet of generated names (apimachinery's `rand.SafeEncodeString`:
/// no vowels, no `0`, `1`, `3`), the digits of `x` in base 27.
fn safe_string(mut x: u64, len: usize) -> String {
    const SAFE: &[u8; 27] = b"bcdfghjklmnpqrstvwxz2456789";
    (0..len)
        .map(|_| {
            let c = SAFE[(x % 27) as usize] as char;
            x /= 27;
            c
        })
        .collect()
}

/// A pod's 5-character name suffix, distinct for every (node, slot) with node < 56,000 and
/// slot < 256: a bijection of `node * 256 + slot` modulo 27^5, spelled in base 27.
fn pod_suffix(node: usize, slot: usize) -> String {
    const M: u64 = 14_348_907; // 27^5
    safe_string(((node * 256 + slot) as u64 % M) * 1_000_003 % M, 5)
}

/// Seconds into May 2024, somewhere in the 20 days before the nodes' last heartbeat.
fn seconds(seed: u64) -> u64 {
    mix(seed) % (20 * 86_400)
}

/// `2024-05-DDTHH:MM:SSZ`, `s` seconds into May 2024.
fn at(s: u64) -> String {
    format!("2024-05-{:02}T{:02}:{:02}:{:02}Z", 1 + s / 86_400, s / 3600 % 24, s / 60 % 60, s % 60)
}

/// Every mapping's keys sorted, as kubectl prints objects.
fn kubectl_order(v: Value) -> Value {
    match v {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(k, v)| (k, kubectl_order(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(kubectl_order).collect()),
        other => other,
    }
}

/// The node's InternalIP, as in [`kubectl_node_value`].
fn node_ip(i: usize) -> String {
    format!("10.224.{}.{}", (i / 250) % 256, 4 + i % 250)
}

const TEAMS: [&str; 10] =
    ["payments", "checkout", "catalog", "search", "identity", "ledger", "shipping", "media", "ads", "insights"];
const TEAM_SUFFIXES: [&str; 5] = ["", "-api", "-workers", "-data", "-edge"];
const COMPONENTS: [&str; 10] =
    ["api", "web", "worker", "gateway", "cache", "scheduler", "notifier", "indexer", "auth", "exporter"];

/// One of the snapshot's Deployments (`d` < [`SNAPSHOT_DEPLOYMENTS`]); its pods run on the
/// nodes of pool `d % 10`.
struct App {
    namespace: String,
    name: String,
    /// `pod-template-hash`: the ReplicaSet is `<name>-<hash>`.
    hash: String,
    pool: Pool,
    cpu_milli: i64,
    memory_mi: i64,
    /// A log shipper beside the app container.
    sidecar: bool,
    /// An init container that waits for the database.
    init: bool,
    /// An emptyDir scratch volume (`kubectl drain` wants --delete-emptydir-data for it).
    empty_dir: bool,
    /// A zone topology spread constraint.
    spread: bool,
    seed: u64,
}

fn app(d: usize) -> App {
    let ns = d % SNAPSHOT_NAMESPACES;
    let team = TEAMS[ns / TEAM_SUFFIXES.len()];
    let pool = pool(d % 10);
    // 0.5, 1, 1 or 1.5 times a fortieth of the pool's CPU and memory.
    let factor = [2, 4, 4, 6][(d / 10) % 4];
    let seed = 0xA11C_E000 + d as u64;
    App {
        namespace: format!("{team}{}", TEAM_SUFFIXES[ns % TEAM_SUFFIXES.len()]),
        name: format!("{team}-{}", COMPONENTS[d / SNAPSHOT_NAMESPACES % COMPONENTS.len()]),
        hash: safe_string(mix(seed), 9 + d % 2),
        cpu_milli: (pool.cpu_milli / 40 * factor / 4) / 10 * 10,
        memory_mi: (pool.memory_ki / 1024 / 40 * factor / 4) / 16 * 16,
        pool,
        sidecar: d.is_multiple_of(4),
        init: d.is_multiple_of(7),
        empty_dir: d.is_multiple_of(5),
        spread: d % 3 == 1,
        seed,
    }
}

/// What runs in slot `slot` of node `node`.
enum Slot {
    Daemon(usize),
    App(usize),
    Job,
}

fn slot(slot: usize, node: usize) -> Slot {
    match slot {
        s if s < DAEMON_PODS_PER_NODE => Slot::Daemon(s),
        s if s == DAEMON_PODS_PER_NODE && node % 50 == 7 => Slot::Job,
        s => {
            // Some Deployments of the pool are bigger than others: u^1.5 of a uniform u.
            let u = (mix((node as u64) << 8 | s as u64) >> 11) as f64 / (1u64 << 53) as f64;
            let local = ((u.powf(1.5) * 50.0) as usize).min(49);
            Slot::App(local * 10 + node % 10)
        }
    }
}

const DAEMONS: [&str; 3] = ["kube-proxy", "cilium", "csi-azuredisk-node"];
const CRONJOB: (&str, &str) = ("insights-data", "nightly-report");

/// The namespace and name of the pod in slot `slot` of node `node`: kubectl lists pods by
/// namespace, then name.
pub fn kubectl_pod_key(slot_index: usize, node: usize) -> (String, String) {
    let suffix = pod_suffix(node, slot_index);
    match slot(slot_index, node) {
        Slot::Daemon(k) => ("kube-system".into(), format!("{}-{suffix}", DAEMONS[k])),
        Slot::App(d) => {
            let a = app(d);
            (a.namespace, format!("{}-{}-{suffix}", a.name, a.hash))
        }
        Slot::Job => (CRONJOB.0.into(), format!("{}-{}-{suffix}", CRONJOB.1, job_id(node))),
    }
}

/// The Job (a CronJob's run, `<cronjob>-<minutes since the epoch>`) of the Job pod on `node`.
fn job_id(node: usize) -> u64 {
    28_598_400 + (node as u64 / 50 % 20) * 1440
}

/// The service-account token volume every pod gets from the ServiceAccount admission plugin.
fn api_access_volume(name: &str) -> Value {
    json!({
        "name": name,
        "projected": {
            "defaultMode": 420,
            "sources": [
                {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
                {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}, "path": "namespace"}]}},
            ],
        },
    })
}

fn api_access_mount(name: &str) -> Value {
    json!({"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "name": name, "readOnly": true})
}

fn http_probe(path: &str, port: &str, initial_delay: i64) -> Value {
    json!({
        "failureThreshold": 3,
        "httpGet": {"path": path, "port": port, "scheme": "HTTP"},
        "initialDelaySeconds": initial_delay,
        "periodSeconds": 10,
        "successThreshold": 1,
        "timeoutSeconds": 1,
    })
}

fn condition(kind: &str, status: &str, time: &str, reason: Option<&str>) -> Value {
    let mut c = json!({"lastProbeTime": null, "lastTransitionTime": time});
    if let Some(r) = reason {
        c["reason"] = json!(r);
    }
    c["status"] = json!(status);
    c["type"] = json!(kind);
    c
}

fn running_status(name: &str, image: &str, seed: u64, started: &str) -> Value {
    let (repo, _) = image.rsplit_once(':').unwrap_or((image, ""));
    json!({
        "containerID": format!("containerd://{}", hex(seed, 64)),
        "image": image,
        "imageID": format!("{repo}@sha256:{}", hex(seed ^ 0x5eed, 64)),
        "lastState": {},
        "name": name,
        "ready": true,
        "restartCount": (mix(seed) % 7 / 5) as i64,
        "started": true,
        "state": {"running": {"startedAt": started}},
    })
}

fn terminated_status(name: &str, image: &str, seed: u64, started: &str, finished: &str) -> Value {
    let (repo, _) = image.rsplit_once(':').unwrap_or((image, ""));
    let id = format!("containerd://{}", hex(seed, 64));
    json!({
        "containerID": id,
        "image": image,
        "imageID": format!("{repo}@sha256:{}", hex(seed ^ 0x5eed, 64)),
        "lastState": {},
        "name": name,
        "ready": false,
        "restartCount": 0,
        "started": false,
        "state": {"terminated": {
            "containerID": id,
            "exitCode": 0,
            "finishedAt": finished,
            "reason": "Completed",
            "startedAt": started,
        }},
    })
}

/// The two NoExecute tolerations the DefaultTolerationSeconds admission plugin adds.
fn default_tolerations() -> Vec<Value> {
    ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]
        .iter()
        .map(|k| json!({"effect": "NoExecute", "key": k, "operator": "Exists", "tolerationSeconds": 300}))
        .collect()
}

/// [`kubectl_node_value`] as kubectl 1.21 and later print it, without `managedFields`
/// (hidden unless `--show-managed-fields` is given), keys sorted.
pub fn kubectl_snapshot_node_value(i: usize) -> Value {
    let mut node = kubectl_node_value(i);
    if let Some(meta) = node["metadata"].as_object_mut() {
        meta.remove("managedFields");
    }
    let pool_name = snapshot_pool_name(i);
    if pool_name != pool(i).name {
        // The pool's name in the node's name, hostname, annotations, addresses, provider ID.
        let text = node.to_string().replace(&format!("aks-{}-", pool(i).name), &format!("aks-{pool_name}-"));
        node = serde_json::from_str(&text).expect("the renamed node is JSON");
        for key in ["agentpool", "kubernetes.azure.com/agentpool"] {
            node["metadata"]["labels"][key] = json!(pool_name);
        }
    }
    kubectl_order(node)
}

/// A running Pod exactly as `kubectl get pods -A -o yaml` prints it with kubectl 1.21 or
/// later, which hides `managedFields` unless `--show-managed-fields` is given (so there are
/// none here): the pod in slot `slot_index` of node `node` (see [`kubectl_pod_key`]). Slots
/// 0 to 2 are DaemonSet pods, pinned to the node by the `matchFields` term the DaemonSet
/// controller writes, with its tolerations; the others are Deployment pods owned by their
/// ReplicaSet, but for a Succeeded Job pod on one node in 50. Keys in kubectl's order
/// (sorted).
pub fn kubectl_pod_value(slot_index: usize, node: usize) -> Value {
    match slot(slot_index, node) {
        Slot::Daemon(k) => daemon_pod(k, slot_index, node),
        Slot::App(d) => app_pod(d, slot_index, node),
        Slot::Job => job_pod(slot_index, node),
    }
}

fn app_pod(d: usize, slot_index: usize, node: usize) -> Value {
    let a = app(d);
    let (namespace, name) = kubectl_pod_key(slot_index, node);
    let seed = mix((node as u64) << 8 | slot_index as u64);
    let node_name = snapshot_node_name(node);
    let t = seconds(seed);
    let (created, started) = (at(t), at(t + 4));
    let rs = format!("{}-{}", a.name, a.hash);
    let token = format!("kube-api-access-{}", safe_string(seed >> 7, 5));
    let image = format!("registry.example.com/{}/{}:1.{}.{}", a.namespace, a.name, d % 9, d % 20);
    let memory_limit = a.memory_mi * 2;
    let mut resources = json!({
        "limits": {"memory": format!("{memory_limit}Mi")},
        "requests": {"cpu": format!("{}m", a.cpu_milli), "memory": format!("{}Mi", a.memory_mi)},
    });
    if d.is_multiple_of(3) {
        resources["limits"] = json!({"cpu": format!("{}m", a.cpu_milli * 2), "memory": format!("{memory_limit}Mi")});
    }
    let mut mounts = vec![json!({"mountPath": "/etc/app", "name": "config", "readOnly": true})];
    if a.empty_dir {
        mounts.push(json!({"mountPath": "/tmp", "name": "scratch"}));
    }
    mounts.push(api_access_mount(&token));
    let mut containers = vec![json!({
        "env": [
            {"name": "PORT", "value": "8080"},
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
            {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability:4317"},
        ],
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "livenessProbe": http_probe("/healthz", "http", 10),
        "name": a.name,
        "ports": [
            {"containerPort": 8080, "name": "http", "protocol": "TCP"},
            {"containerPort": 9090, "name": "metrics", "protocol": "TCP"},
        ],
        "readinessProbe": http_probe("/ready", "http", 5),
        "resources": resources,
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "volumeMounts": mounts,
    })];
    let shipper_image = "cr.fluentbit.io/fluent/fluent-bit:3.0.4";
    if a.sidecar {
        containers.push(json!({
            "image": shipper_image,
            "imagePullPolicy": "IfNotPresent",
            "name": "log-shipper",
            "resources": {"limits": {"memory": "64Mi"}, "requests": {"cpu": "20m", "memory": "32Mi"}},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "volumeMounts": [api_access_mount(&token)],
        }));
    }
    let mut statuses = vec![running_status(&a.name, &image, seed, &started)];
    if a.sidecar {
        statuses.push(running_status("log-shipper", shipper_image, seed + 2, &started));
    }
    let mut tolerations = Vec::new();
    if let Some((key, value, effect)) = a.pool.taint {
        tolerations.push(json!({"effect": effect, "key": key, "operator": "Equal", "value": value}));
    }
    tolerations.extend(default_tolerations());
    let node_selector = match a.pool.name {
        "system" | "general" => json!({"kubernetes.io/os": "linux"}),
        pool => json!({"kubernetes.azure.com/agentpool": pool, "kubernetes.io/os": "linux"}),
    };
    let mut volumes =
        vec![json!({"configMap": {"defaultMode": 420, "name": format!("{}-config", a.name)}, "name": "config"})];
    if a.empty_dir {
        volumes.push(json!({"emptyDir": {"sizeLimit": "1Gi"}, "name": "scratch"}));
    }
    volumes.push(api_access_volume(&token));
    let mut spec = json!({
        "containers": containers,
        "dnsPolicy": "ClusterFirst",
        "enableServiceLinks": true,
        "nodeName": node_name,
        "nodeSelector": node_selector,
        "preemptionPolicy": "PreemptLowerPriority",
        "priority": 0,
        "restartPolicy": "Always",
        "schedulerName": "default-scheduler",
        "securityContext": {"fsGroup": 10001},
        "serviceAccount": a.name,
        "serviceAccountName": a.name,
        "terminationGracePeriodSeconds": 30,
        "tolerations": tolerations,
        "volumes": volumes,
    });
    if a.spread {
        spec["topologySpreadConstraints"] = json!([{
            "labelSelector": {"matchLabels": {"app": a.name}},
            "maxSkew": 1,
            "topologyKey": "topology.kubernetes.io/zone",
            "whenUnsatisfiable": "ScheduleAnyway",
        }]);
    }
    let pod_ip = format!("10.244.{}.{}", node % 256, 2 + slot_index);
    let host_ip = node_ip(node);
    let mut status = running_pod_status(&created, &started, json!(statuses), &host_ip, &pod_ip);
    if a.init {
        let image = "registry.example.com/tools/wait-for:2.2.4";
        spec["initContainers"] = json!([{
            "args": ["postgres.databases:5432", "--timeout=120"],
            "image": image,
            "imagePullPolicy": "IfNotPresent",
            "name": "wait-for-db",
            "resources": {"requests": {"cpu": "10m", "memory": "16Mi"}},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "volumeMounts": [api_access_mount(&token)],
        }]);
        status["initContainerStatuses"] =
            json!([terminated_status("wait-for-db", image, seed + 3, &created, &started)]);
    }
    let labels = json!({
        "app": a.name,
        "app.kubernetes.io/name": a.name,
        "app.kubernetes.io/part-of": a.namespace,
        "app.kubernetes.io/version": format!("1.{}", d % 9),
        "pod-template-hash": a.hash,
        "team": TEAMS[d % SNAPSHOT_NAMESPACES / TEAM_SUFFIXES.len()],
    });
    kubectl_order(json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {
                "kubectl.kubernetes.io/restartedAt": format!("2024-04-{:02}T08:00:00Z", 1 + d % 28),
                "prometheus.io/port": "9090",
                "prometheus.io/scrape": "true",
            },
            "creationTimestamp": created,
            "generateName": format!("{rs}-"),
            "labels": labels,
            "name": name,
            "namespace": namespace,
            "ownerReferences": [{
                "apiVersion": "apps/v1",
                "blockOwnerDeletion": true,
                "controller": true,
                "kind": "ReplicaSet",
                "name": rs,
                "uid": uid(a.seed ^ 0x7e5),
            }],
            "resourceVersion": format!("{}", 183_000_000 + seed % 900_000),
            "uid": uid(seed),
        },
        "spec": spec,
        "status": status,
    }))
}

fn daemon_pod(k: usize, slot_index: usize, node: usize) -> Value {
    let (namespace, name) = kubectl_pod_key(slot_index, node);
    let daemon = DAEMONS[k];
    let seed = mix((node as u64) << 8 | slot_index as u64);
    let node_name = snapshot_node_name(node);
    let host_ip = node_ip(node);
    let t = seconds(node as u64 * 7919) / 20;
    let (created, started) = (at(t), at(t + 9));
    let token = format!("kube-api-access-{}", safe_string(seed >> 7, 5));
    let revision = safe_string(mix(k as u64 + 77), 10);
    let container = |name: &str, image: &str, cpu: &str, memory: &str, mounts: Vec<Value>| {
        let mut mounts = mounts;
        mounts.push(api_access_mount(&token));
        json!({
            "image": image,
            "imagePullPolicy": "IfNotPresent",
            "name": name,
            "resources": {"limits": {"memory": "1Gi"}, "requests": {"cpu": cpu, "memory": memory}},
            "securityContext": {"privileged": true},
            "terminationMessagePath": "/dev/termination-log",
            "terminationMessagePolicy": "File",
            "volumeMounts": mounts,
        })
    };
    let host_path =
        |name: &str, path: &str, kind: &str| json!({"hostPath": {"path": path, "type": kind}, "name": name});
    let mount = |name: &str, path: &str| json!({"mountPath": path, "name": name});
    let (labels, containers, mut volumes, mut tolerations, terms) = match daemon {
        "kube-proxy" => (
            json!({"component": "kube-proxy", "controller-revision-hash": revision, "k8s-app": "kube-proxy", "pod-template-generation": "3", "tier": "node"}),
            vec![{
                let mut c = container(
                    "kube-proxy",
                    "mcr.microsoft.com/oss/kubernetes/kube-proxy:v1.29.4-hotfix.20240411",
                    "100m",
                    "64Mi",
                    vec![
                        mount("kubeconfig", "/var/lib/kubelet"),
                        mount("xtables-lock", "/run/xtables.lock"),
                        mount("lib-modules", "/lib/modules"),
                    ],
                );
                c["command"] = json!([
                    "kube-proxy",
                    "--conntrack-max-per-core=0",
                    "--metrics-bind-address=0.0.0.0:10249",
                    "--cluster-cidr=10.244.0.0/16",
                    "--detect-local-mode=ClusterCIDR",
                    "--kubeconfig=/var/lib/kubelet/kubeconfig",
                    "--v=3"
                ]);
                c
            }],
            vec![
                host_path("kubeconfig", "/var/lib/kubelet", ""),
                host_path("xtables-lock", "/run/xtables.lock", "FileOrCreate"),
                host_path("lib-modules", "/lib/modules", ""),
            ],
            vec![
                json!({"key": "CriticalAddonsOnly", "operator": "Exists"}),
                json!({"effect": "NoExecute", "operator": "Exists"}),
                json!({"effect": "NoSchedule", "operator": "Exists"}),
            ],
            json!([{"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}]}]),
        ),
        "cilium" => (
            json!({"app.kubernetes.io/name": "cilium-agent", "app.kubernetes.io/part-of": "cilium", "controller-revision-hash": revision, "k8s-app": "cilium", "kubernetes.azure.com/managedby": "aks", "pod-template-generation": "2"}),
            vec![{
                let mut c = container(
                    "cilium-agent",
                    "mcr.microsoft.com/oss/cilium/cilium:1.14.10-1",
                    "100m",
                    "128Mi",
                    vec![
                        mount("cilium-run", "/var/run/cilium"),
                        mount("bpf-maps", "/sys/fs/bpf"),
                        mount("etc-cni-netd", "/host/etc/cni/net.d"),
                        mount("lib-modules", "/lib/modules"),
                    ],
                );
                c["command"] = json!(["cilium-agent"]);
                c["args"] = json!(["--config-dir=/tmp/cilium/config-map"]);
                c["env"] = json!([
                    {"name": "K8S_NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
                    {"name": "CILIUM_K8S_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}},
                    {"name": "KUBERNETES_SERVICE_HOST", "value": "prod-aks-dns-12345678.hcp.eastus.azmk8s.io"},
                    {"name": "KUBERNETES_SERVICE_PORT", "value": "443"},
                ]);
                c["livenessProbe"] = json!({"failureThreshold": 10, "httpGet": {"host": "127.0.0.1", "httpHeaders": [{"name": "brief", "value": "true"}], "path": "/healthz", "port": 9879, "scheme": "HTTP"}, "periodSeconds": 30, "successThreshold": 1, "timeoutSeconds": 5});
                c
            }],
            vec![
                host_path("cilium-run", "/var/run/cilium", "DirectoryOrCreate"),
                host_path("bpf-maps", "/sys/fs/bpf", "DirectoryOrCreate"),
                host_path("etc-cni-netd", "/etc/cni/net.d", "DirectoryOrCreate"),
                host_path("lib-modules", "/lib/modules", ""),
            ],
            vec![json!({"operator": "Exists"})],
            json!([{
                "matchExpressions": [{"key": "kubernetes.azure.com/cluster", "operator": "Exists"}, {"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}],
                "matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}],
            }]),
        ),
        _ => (
            json!({"app": "csi-azuredisk-node", "controller-revision-hash": revision, "kubernetes.azure.com/managedby": "aks", "pod-template-generation": "1"}),
            vec![
                container(
                    "liveness-probe",
                    "mcr.microsoft.com/oss/kubernetes-csi/livenessprobe:v2.12.0",
                    "10m",
                    "20Mi",
                    vec![mount("socket-dir", "/csi")],
                ),
                container(
                    "node-driver-registrar",
                    "mcr.microsoft.com/oss/kubernetes-csi/csi-node-driver-registrar:v2.10.1",
                    "10m",
                    "20Mi",
                    vec![mount("socket-dir", "/csi"), mount("registration-dir", "/registration")],
                ),
                container(
                    "azuredisk",
                    "mcr.microsoft.com/oss/kubernetes-csi/azuredisk-csi:v1.29.5",
                    "10m",
                    "20Mi",
                    vec![
                        mount("socket-dir", "/csi"),
                        mount("mountpoint-dir", "/var/lib/kubelet/"),
                        mount("device-dir", "/dev"),
                        mount("sys-devices-dir", "/sys/bus/scsi/devices"),
                    ],
                ),
            ],
            vec![
                host_path("socket-dir", "/var/lib/kubelet/plugins/disk.csi.azure.com", "DirectoryOrCreate"),
                host_path("mountpoint-dir", "/var/lib/kubelet/", "DirectoryOrCreate"),
                host_path("registration-dir", "/var/lib/kubelet/plugins_registry/", "DirectoryOrCreate"),
                host_path("device-dir", "/dev", "Directory"),
                host_path("sys-devices-dir", "/sys/bus/scsi/devices", "Directory"),
            ],
            vec![json!({"operator": "Exists"})],
            json!([{
                "matchExpressions": [{"key": "type", "operator": "NotIn", "values": ["virtual-kubelet"]}],
                "matchFields": [{"key": "metadata.name", "operator": "In", "values": [node_name]}],
            }]),
        ),
    };
    volumes.push(api_access_volume(&token));
    // What the DaemonSet controller adds (AddOrUpdateDaemonPodTolerations), network-unavailable
    // for host-network pods.
    for (key, effect) in [
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
        ("node.kubernetes.io/network-unavailable", "NoSchedule"),
    ] {
        tolerations.push(json!({"effect": effect, "key": key, "operator": "Exists"}));
    }
    let statuses: Vec<Value> = containers
        .iter()
        .enumerate()
        .map(|(c, v)| {
            let name = v["name"].as_str().unwrap_or_default();
            let image = v["image"].as_str().unwrap_or_default();
            running_status(name, image, seed + c as u64, &started)
        })
        .collect();
    let ds_uid = uid(0xDAE_0000 + k as u64);
    kubectl_order(json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "annotations": {"kubernetes.azure.com/set-kube-service-host-fqdn": "true"},
            "creationTimestamp": created,
            "generateName": format!("{daemon}-"),
            "labels": labels,
            "name": name,
            "namespace": namespace,
            "ownerReferences": [{
                "apiVersion": "apps/v1",
                "blockOwnerDeletion": true,
                "controller": true,
                "kind": "DaemonSet",
                "name": daemon,
                "uid": ds_uid,
            }],
            "resourceVersion": format!("{}", 182_000_000 + seed % 900_000),
            "uid": uid(seed),
        },
        "spec": {
            "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": terms}}},
            "containers": containers,
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": true,
            "hostNetwork": true,
            "nodeName": node_name,
            "nodeSelector": {"kubernetes.io/os": "linux"},
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 2_000_001_000,
            "priorityClassName": "system-node-critical",
            "restartPolicy": "Always",
            "schedulerName": "default-scheduler",
            "securityContext": {},
            "serviceAccount": daemon,
            "serviceAccountName": daemon,
            "terminationGracePeriodSeconds": 30,
            "tolerations": tolerations,
            "volumes": volumes,
        },
        "status": running_pod_status(&created, &started, json!(statuses), &host_ip, &host_ip),
    }))
}

fn job_pod(slot_index: usize, node: usize) -> Value {
    let (namespace, name) = kubectl_pod_key(slot_index, node);
    let seed = mix((node as u64) << 8 | slot_index as u64);
    let node_name = snapshot_node_name(node);
    let host_ip = node_ip(node);
    let job = format!("{}-{}", CRONJOB.1, job_id(node));
    let job_uid = uid(job_id(node));
    let t = (job_id(node) - 28_598_400) * 60 + 2 * 86_400;
    let (created, started, finished) = (at(t), at(t + 3), at(t + 250));
    let token = format!("kube-api-access-{}", safe_string(seed >> 7, 5));
    let image = "registry.example.com/insights/report-builder:4.2.0";
    let pod_ip = format!("10.244.{}.{}", node % 256, 2 + slot_index);
    let labels = json!({
        "batch.kubernetes.io/controller-uid": job_uid,
        "batch.kubernetes.io/job-name": job,
        "controller-uid": job_uid,
        "job-name": job,
    });
    kubectl_order(json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": created,
            "generateName": format!("{job}-"),
            "labels": labels,
            "name": name,
            "namespace": namespace,
            "ownerReferences": [{
                "apiVersion": "batch/v1",
                "blockOwnerDeletion": true,
                "controller": true,
                "kind": "Job",
                "name": job,
                "uid": job_uid,
            }],
            "resourceVersion": format!("{}", 181_000_000 + seed % 900_000),
            "uid": uid(seed),
        },
        "spec": {
            "containers": [{
                "args": ["--date=yesterday", "--output=s3://reports/daily"],
                "image": image,
                "imagePullPolicy": "IfNotPresent",
                "name": "report",
                "resources": {"limits": {"memory": "2Gi"}, "requests": {"cpu": "500m", "memory": "1Gi"}},
                "terminationMessagePath": "/dev/termination-log",
                "terminationMessagePolicy": "File",
                "volumeMounts": [api_access_mount(&token)],
            }],
            "dnsPolicy": "ClusterFirst",
            "enableServiceLinks": true,
            "nodeName": node_name,
            "preemptionPolicy": "PreemptLowerPriority",
            "priority": 0,
            "restartPolicy": "OnFailure",
            "schedulerName": "default-scheduler",
            "securityContext": {},
            "serviceAccount": "default",
            "serviceAccountName": "default",
            "terminationGracePeriodSeconds": 30,
            "tolerations": default_tolerations(),
            "volumes": [api_access_volume(&token)],
        },
        "status": {
            "conditions": [
                condition("PodReadyToStartContainers", "False", &finished, None),
                condition("Initialized", "True", &created, Some("PodCompleted")),
                condition("Ready", "False", &finished, Some("PodCompleted")),
                condition("ContainersReady", "False", &finished, Some("PodCompleted")),
                condition("PodScheduled", "True", &created, None),
            ],
            "containerStatuses": [terminated_status("report", image, seed, &started, &finished)],
            "hostIP": host_ip,
            "hostIPs": [{"ip": host_ip}],
            "phase": "Succeeded",
            "podIP": pod_ip,
            "podIPs": [{"ip": pod_ip}],
            "qosClass": "Burstable",
            "startTime": created,
        },
    }))
}

/// A line of serde_yaml's output with kubectl's quoting (go-yaml v2's emitter): a string that
/// would read as another type (`"True"`, `"8080"`) is double-quoted where serde_yaml
/// single-quotes it, and so is a timestamp, which serde_yaml leaves plain. Strings quoted for
/// their characters (JSON in annotations) stay single-quoted, as in kubectl's output.
fn kubectl_quoting(line: &str) -> std::borrow::Cow<'_, str> {
    let value_at = |start: usize| line[..start].ends_with(": ") || line[..start].trim_start_matches(' ').ends_with('-');
    if let Some(inner) = line.strip_suffix('\'') {
        if let Some(open) = inner.rfind('\'') {
            let content = &inner[open + 1..];
            let simple = !content.is_empty()
                && content.bytes().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-' | b'_'));
            if simple && value_at(open) {
                return format!("{}\"{content}\"", &line[..open]).into();
            }
        }
    }
    if let Some(start) = line.rfind(' ').map(|i| i + 1) {
        let v = &line.as_bytes()[start..];
        let timestamp = v.len() == 20
            && v.iter().enumerate().all(|(i, &c)| match i {
                4 | 7 => c == b'-',
                10 => c == b'T',
                13 | 16 => c == b':',
                19 => c == b'Z',
                _ => c.is_ascii_digit(),
            });
        if timestamp && value_at(start) {
            return format!("{}\"{}\"", &line[..start], &line[start..]).into();
        }
    }
    line.into()
}

/// One object as an item of a `kind: List`'s `items` as kubectl prints it: serde_yaml's
/// output of the whole list (`- ` before the item's first line, two spaces before the
/// others), with [`kubectl_quoting`].
fn write_list_item(out: &mut impl std::io::Write, item: &Value) -> std::io::Result<()> {
    let text = serde_yaml::to_string(item).expect("YAML serialization of a generated object");
    for (k, line) in text.lines().enumerate() {
        let prefix: &[u8] = if k == 0 {
            b"- "
        } else if line.is_empty() {
            b""
        } else {
            b"  "
        };
        out.write_all(prefix)?;
        out.write_all(kubectl_quoting(line).as_bytes())?;
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// `kubectl get nodes,pods -A -o yaml` for `nodes` nodes ([`kubectl_snapshot_node_value`])
/// running `pods_per_node` pods each ([`kubectl_pod_value`]), written to `out` one object at
/// a time: one `kind: List` with the nodes (by name), then the pods (by namespace and name),
/// as kubectl prints it.
pub fn write_kubectl_get_nodes_and_pods_yaml(
    out: &mut impl std::io::Write,
    nodes: usize,
    pods_per_node: usize,
) -> std::io::Result<()> {
    write_kubectl_get_storage_nodes_and_pods_yaml(out, nodes, pods_per_node, 0)
}

/// `kubectl get pv,pvc,sc,csinodes,nodes,pods -A -o yaml` of [`write_kubectl_get_nodes_and_pods_yaml`]'s
/// cluster with `claims` PersistentVolumeClaims: one in four of the Deployment pods (in the
/// List's order) mounts a claim `data-<pod>` until `claims` pods do, half of them of the
/// Immediate class `zonal`, half of the WaitForFirstConsumer class `wffc` (provisioned for the
/// pod's node: `volume.kubernetes.io/selected-node`), each bound to its PV pinned to the
/// node's zone. Both classes are `disk.csi.azure.com`'s, whose CSINode on every node allows 64
/// attachments. With `claims` 0, no storage objects at all.
pub fn write_kubectl_get_storage_nodes_and_pods_yaml(
    out: &mut impl std::io::Write,
    nodes: usize,
    pods_per_node: usize,
    claims: usize,
) -> std::io::Result<()> {
    out.write_all(b"apiVersion: v1\nitems:\n")?;
    let mut node_order: Vec<(String, usize)> = (0..nodes).map(|i| (snapshot_node_name(i), i)).collect();
    node_order.sort();
    let mut pod_order: Vec<((String, String), usize, usize)> = (0..nodes)
        .flat_map(|node| (0..pods_per_node).map(move |slot| (kubectl_pod_key(slot, node), slot, node)))
        .collect();
    pod_order.sort();
    // Which pods mount a claim: every fourth Deployment pod, in the order they are listed.
    let mut users: Vec<bool> = vec![false; pod_order.len()];
    let mut apps = 0usize;
    let mut claimed = Vec::new();
    for (k, (key, slot_index, node)) in pod_order.iter().enumerate() {
        if claimed.len() == claims {
            break;
        }
        if matches!(slot(*slot_index, *node), Slot::App(_)) {
            apps += 1;
            if apps.is_multiple_of(4) {
                users[k] = true;
                claimed.push((key.clone(), *node));
            }
        }
    }
    if claims > 0 {
        for (i, ((namespace, pod), node)) in claimed.iter().enumerate() {
            write_list_item(out, &kubectl_order(claim_pv_value(i, namespace, pod, *node)))?;
        }
        for (i, ((namespace, pod), node)) in claimed.iter().enumerate() {
            write_list_item(out, &kubectl_order(claim_value(i, namespace, pod, *node)))?;
        }
        for (name, mode) in [("wffc", "WaitForFirstConsumer"), ("zonal", "Immediate")] {
            write_list_item(out, &kubectl_order(storage_class_value(name, mode)))?;
        }
        for (name, _) in &node_order {
            write_list_item(out, &kubectl_order(csi_node_value(name)))?;
        }
    }
    for (_, i) in &node_order {
        write_list_item(out, &kubectl_snapshot_node_value(*i))?;
    }
    for (k, (_, slot, node)) in pod_order.into_iter().enumerate() {
        let mut pod = kubectl_pod_value(slot, node);
        if users[k] {
            let name = pod["metadata"]["name"].as_str().unwrap_or_default().to_string();
            if let Some(volumes) = pod["spec"]["volumes"].as_array_mut() {
                volumes
                    .insert(0, json!({"name": "data", "persistentVolumeClaim": {"claimName": format!("data-{name}")}}));
            }
        }
        write_list_item(out, &pod)?;
    }
    out.write_all(b"kind: List\nmetadata:\n  resourceVersion: \"\"\n")
}

/// The class of the volumes snapshot's claim `i`: even ones `zonal`, odd ones `wffc`.
fn claim_class(i: usize) -> &'static str {
    if i.is_multiple_of(2) {
        "zonal"
    } else {
        "wffc"
    }
}

const CSI_DRIVER: &str = "disk.csi.azure.com";

/// The PV `pvc-<i>` bound to claim `data-<pod>`, pinned to `node`'s zone.
fn claim_pv_value(i: usize, namespace: &str, pod: &str, node: usize) -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "PersistentVolume",
        "metadata": {
            "annotations": {"pv.kubernetes.io/provisioned-by": CSI_DRIVER},
            "creationTimestamp": "2024-05-02T11:07:44Z",
            "finalizers": ["kubernetes.io/pv-protection"],
            "name": format!("pvc-{i:06}"),
            "resourceVersion": format!("{}", 200_000 + i),
            "uid": format!("pv-{i:06}"),
        },
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "capacity": {"storage": "32Gi"},
            "claimRef": {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "name": format!("data-{pod}"),
                "namespace": namespace,
                "uid": format!("pvc-{i:06}"),
            },
            "csi": {
                "driver": CSI_DRIVER,
                "volumeHandle": format!("/subscriptions/x/resourceGroups/mc/providers/Microsoft.Compute/disks/pvc-{i:06}"),
            },
            "nodeAffinity": {"required": {"nodeSelectorTerms": [{"matchExpressions": [
                {"key": "topology.kubernetes.io/zone", "operator": "In", "values": [ZONES[node % 3]]},
            ]}]}},
            "persistentVolumeReclaimPolicy": "Delete",
            "storageClassName": claim_class(i),
            "volumeMode": "Filesystem",
        },
        "status": {"phase": "Bound"},
    })
}

/// The claim `data-<pod>` of [`claim_pv_value`]'s PV, bound to it.
fn claim_value(i: usize, namespace: &str, pod: &str, node: usize) -> Value {
    let mut annotations = json!({
        "pv.kubernetes.io/bind-completed": "yes",
        "pv.kubernetes.io/bound-by-controller": "yes",
        "volume.kubernetes.io/storage-provisioner": CSI_DRIVER,
    });
    if claim_class(i) == "wffc" {
        annotations["volume.kubernetes.io/selected-node"] = json!(snapshot_node_name(node));
    }
    json!({
        "apiVersion": "v1",
        "kind": "PersistentVolumeClaim",
        "metadata": {
            "annotations": annotations,
            "creationTimestamp": "2024-05-02T11:07:44Z",
            "finalizers": ["kubernetes.io/pvc-protection"],
            "name": format!("data-{pod}"),
            "namespace": namespace,
            "resourceVersion": format!("{}", 100_000 + i),
            "uid": format!("pvc-{i:06}"),
        },
        "spec": {
            "accessModes": ["ReadWriteOnce"],
            "resources": {"requests": {"storage": "32Gi"}},
            "storageClassName": claim_class(i),
            "volumeMode": "Filesystem",
            "volumeName": format!("pvc-{i:06}"),
        },
        "status": {"accessModes": ["ReadWriteOnce"], "capacity": {"storage": "32Gi"}, "phase": "Bound"},
    })
}

fn storage_class_value(name: &str, binding_mode: &str) -> Value {
    json!({
        "allowVolumeExpansion": true,
        "apiVersion": "storage.k8s.io/v1",
        "kind": "StorageClass",
        "metadata": {"creationTimestamp": "2024-05-02T11:07:44Z", "name": name, "resourceVersion": "100", "uid": format!("sc-{name}")},
        "parameters": {"skuname": "Premium_LRS"},
        "provisioner": CSI_DRIVER,
        "reclaimPolicy": "Delete",
        "volumeBindingMode": binding_mode,
    })
}

/// The CSINode of node `name`: the disk driver, 64 attachments, zonal topology.
fn csi_node_value(name: &str) -> Value {
    json!({
        "apiVersion": "storage.k8s.io/v1",
        "kind": "CSINode",
        "metadata": {
            "annotations": {"storage.alpha.kubernetes.io/migrated-plugins": "kubernetes.io/azure-disk,kubernetes.io/azure-file"},
            "creationTimestamp": "2024-05-02T11:07:44Z",
            "name": name,
            "ownerReferences": [{"apiVersion": "v1", "kind": "Node", "name": name, "uid": format!("node-{name}")}],
            "resourceVersion": "300",
            "uid": format!("csinode-{name}"),
        },
        "spec": {"drivers": [{
            "allocatable": {"count": 64},
            "name": CSI_DRIVER,
            "nodeID": name,
            "topologyKeys": ["topology.kubernetes.io/zone"],
        }]},
    })
}

/// [`write_kubectl_get_nodes_and_pods_yaml`] into a String.
pub fn kubectl_get_nodes_and_pods_yaml(nodes: usize, pods_per_node: usize) -> String {
    let mut out = Vec::new();
    write_kubectl_get_nodes_and_pods_yaml(&mut out, nodes, pods_per_node).expect("writing to a Vec");
    String::from_utf8(out).expect("YAML is UTF-8")
}

/// A Deployment of `replicas` pods of [`web_template_value`] in namespace `shop`, as a
/// manifest's YAML.
pub fn web_deployment_yaml(replicas: i64) -> String {
    let mut template = web_template_value();
    template["metadata"]["labels"]["app"] = json!("web");
    let deployment = json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "shop"},
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": "web", "tier": "frontend"}},
            "template": template,
        },
    });
    serde_yaml::to_string(&deployment).expect("YAML serialization of the web Deployment")
}

/// A running pod's `status` as the kubelet writes it: the five conditions, the containers'
/// statuses, its host and pod IPs (a hostNetwork pod's pod IP is its host's).
fn running_pod_status(created: &str, started: &str, statuses: Value, host_ip: &str, pod_ip: &str) -> Value {
    json!({
        "conditions": [
            condition("PodReadyToStartContainers", "True", started, None),
            condition("Initialized", "True", started, None),
            condition("Ready", "True", started, None),
            condition("ContainersReady", "True", started, None),
            condition("PodScheduled", "True", created, None),
        ],
        "containerStatuses": statuses,
        "hostIP": host_ip,
        "hostIPs": [{"ip": host_ip}],
        "phase": "Running",
        "podIP": pod_ip,
        "podIPs": [{"ip": pod_ip}],
        "qosClass": "Burstable",
        "startTime": created,
    })
}

// ---------------------------------------------------------------------------------------------
// Preemption: a full cluster and a critical DaemonSet

/// `nodes` lean nodes, each full by CPU with `pods_per_node` running pods of priority 0
/// (batch pods, read back from a cluster: uid, creation timestamp, start time), and a
/// `system-node-critical` DaemonSet (500m, tolerating every taint) whose pods find no room
/// anywhere until DefaultPreemption evicts one batch pod per node.
pub fn preemption_manifests(nodes: usize, pods_per_node: usize) -> Manifests {
    let mut m = deployment_manifests(nodes, 0);
    let mut workloads = Vec::with_capacity(nodes * pods_per_node + 1);
    for (n, (_, node)) in m.nodes.iter().enumerate() {
        let allocatable = node.status.allocatable.as_ref().map(placement_core::model::resources::Resource::from_list);
        let cpu = allocatable.map_or(4000, |a| a.milli_cpu) / pods_per_node as i64;
        for k in 0..pods_per_node {
            let name = format!("batch-{n}-{k}");
            let pod: Pod = serde_json::from_value(json!({
                "metadata": {
                    "name": name, "namespace": "batch", "uid": format!("uid-{n}-{k}"),
                    "creationTimestamp": "2026-01-01T00:00:00Z", "labels": {"app": format!("batch-{}", k % 10)},
                },
                "spec": {
                    "nodeName": node.metadata.name,
                    "tolerations": [{"operator": "Exists"}],
                    "containers": [{"name": "c", "image": "batch", "resources": {"requests": {"cpu": format!("{cpu}m")}}}],
                },
                "status": {"phase": "Running", "startTime": format!("2026-01-01T{:02}:{:02}:00Z", k % 24, n % 60)},
            }))
            .expect("generated pod deserializes");
            let doc = DocRef {
                index: workloads.len() + nodes + 2,
                source: "bench.yaml".into(),
                kind: "Pod".into(),
                namespace: Some("batch".into()),
                name: name.clone(),
            };
            workloads.push(std::sync::Arc::new(Workload {
                kind: WorkloadKind::Pod,
                api_version: "v1".into(),
                namespace: "batch".into(),
                name,
                doc,
                replicas: 1,
                // As the readers keep a Pod: its metadata is its template's.
                template: PodTemplateSpec { metadata: pod.metadata.clone(), spec: pod.spec },
                selector: None,
                metadata: pod.metadata,
                pod_status: pod.status,
                state: Default::default(),
            }));
        }
    }
    let mut ds = daemonset_manifests(0).workloads.remove(0);
    let w = std::sync::Arc::make_mut(&mut ds);
    w.name = "agent".into();
    w.doc.name = "agent".into();
    w.template.spec.priority_class_name = Some("system-node-critical".into());
    w.template.spec.tolerations =
        serde_json::from_value(json!([{"operator": "Exists"}])).expect("tolerations deserialize");
    w.template.spec.containers[0].resources.requests =
        serde_json::from_value(json!({"cpu": "500m", "memory": "128Mi"})).expect("requests deserialize");
    workloads.push(ds);
    m.workloads = workloads;
    m
}
