//! The Kubernetes object fields that placement depends on, with the API's JSON names.
//!
//! Everything else in a manifest (status conditions, managedFields, images, ...) is ignored
//! while deserializing, so `kubectl get -o yaml` output parses as is. Fields whose values the API
//! server validates (operators, effects) stay strings here: the scheduler treats some invalid
//! values lazily (an unknown node-selector operator just never matches), so validation is a
//! separate pass in [`crate::input::validation`] that knows which mistakes are fatal.
//!
//! Submodules hold the textual forms and the rules on them: [`quantity`] (exact resource
//! quantities), [`labels`] (selectors and label validation), [`taints`] (taints and
//! tolerations), [`node_selector`] (node selector terms as the API and the DaemonSet controller
//! read them), [`resources`] (a pod's effective requests) and [`version`] (Kubernetes releases
//! and feature gates).

pub mod labels;
pub mod node_selector;
pub mod quantity;
pub mod resources;
pub mod scheduling;
pub mod sorted_map;
pub mod storage;
pub mod taints;
pub mod version;

use serde::{Deserialize, Serialize};

use crate::model::quantity::Quantity;

/// Label keys to values ([`sorted_map`]: one small Vec, not a BTreeMap node per map).
pub type Labels = sorted_map::SortedMap<String>;
/// `v1.ResourceList`: resource names to quantities ([`sorted_map`]: one small Vec, not a
/// BTreeMap node per list).
pub type ResourceList = sorted_map::SortedMap<Quantity>;

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectMeta {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub generate_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace: Option<String>,
    #[serde(skip_serializing_if = "Labels::is_empty")]
    pub labels: Labels,
    #[serde(skip_serializing_if = "Labels::is_empty")]
    pub annotations: sorted_map::SortedMap<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owner_references: Vec<OwnerReference>,
    /// Set by the API server; a snapshot's owner references point at it.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    /// RFC 3339 (`2026-11-30T08:15:02Z`), as the API server writes it; orders a snapshot's
    /// pending pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<String>,
    /// Set when the object is being deleted: a pod with it is terminating.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deletion_timestamp: Option<String>,
}

/// `v1.LabelHostname`, the node label every kubelet sets to its node's name.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";

/// The namespace of an object that names none (or an empty one).
pub const DEFAULT_NAMESPACE: &str = "default";

impl ObjectMeta {
    /// The object's namespace, `default` when it names none: the one place that rule lives.
    pub fn namespace_or_default(&self) -> &str {
        namespace_or_default(self.namespace.as_deref())
    }

    /// `metav1.GetControllerOf`: the owner reference with `controller: true`.
    pub fn controller(&self) -> Option<&OwnerReference> {
        self.owner_references.iter().find(|r| r.controller == Some(true))
    }
}

/// `namespace`, or `default` when it is absent or empty.
pub fn namespace_or_default(namespace: Option<&str>) -> &str {
    namespace.filter(|n| !n.is_empty()).unwrap_or(DEFAULT_NAMESPACE)
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OwnerReference {
    pub api_version: String,
    pub kind: String,
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub controller: Option<bool>,
}

// ---------------------------------------------------------------------------------------------
// Services

/// A Service, for the one thing the scheduler reads of it: the selector that PodTopologySpread's
/// system default constraints count pods by.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Service {
    pub metadata: ObjectMeta,
    pub spec: ServiceSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ServiceSpec {
    /// `None` selects nothing (not everything): such a Service has no pods of its own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<Labels>,
}

// ---------------------------------------------------------------------------------------------
// Nodes

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Node {
    pub metadata: ObjectMeta,
    pub spec: NodeSpec,
    pub status: NodeStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSpec {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub taints: Vec<Taint>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unschedulable: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeStatus {
    /// `None` when the manifest has no `status.allocatable` at all: such a node is treated as
    /// unconstrained for resources (hand-written nodes rarely carry status).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocatable: Option<ResourceList>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<ResourceList>,
    /// `Ready`, `MemoryPressure`, ... as the kubelet reports them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_info: Option<NodeSystemInfo>,
    /// The features the node declares (NodeDeclaredFeatures, KEP-5328), kept sorted as
    /// the kubelet writes them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub declared_features: Vec<String>,
}

/// `status.nodeInfo`: the kubelet's version, which tells the release a snapshot's cluster
/// runs at least ([`version::Release::choose`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSystemInfo {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kubelet_version: String,
}

/// A status condition (`PodCondition`, `NodeCondition`): the fields Placement reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Condition {
    #[serde(rename = "type")]
    pub type_: String,
    pub status: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Taint {
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    pub effect: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Toleration {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub key: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub operator: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub value: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub effect: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toleration_seconds: Option<i64>,
}

// ---------------------------------------------------------------------------------------------
// Pods

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Pod {
    pub metadata: ObjectMeta,
    pub spec: PodSpec,
    #[serde(skip_serializing_if = "PodStatus::is_empty")]
    pub status: PodStatus,
}

/// What a snapshot's pod says of itself: its phase, and the scheduler's `PodScheduled`
/// condition when it could not be placed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodStatus {
    /// `Pending`, `Running`, `Succeeded`, `Failed`, `Unknown`; empty for a manifest.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phase: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// When the kubelet started the pod (RFC 3339): preemption spares the longest-running of
    /// pods of equal priority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<String>,
}

impl PodStatus {
    pub const SUCCEEDED: &'static str = "Succeeded";
    pub const FAILED: &'static str = "Failed";

    pub fn is_empty(&self) -> bool {
        self.phase.is_empty() && self.conditions.is_empty() && self.start_time.is_none()
    }

    /// Succeeded or Failed: the pod's containers are done and it holds nothing; the
    /// scheduler's cache leaves it out.
    pub fn is_terminal(&self) -> bool {
        self.phase == Self::SUCCEEDED || self.phase == Self::FAILED
    }

    /// `IsPodReady`, as far as a snapshot tells: a pod is unready when its `Ready` condition
    /// says `False` (the only `Ready` condition a snapshot's pods keep). A pod without one
    /// (written by hand, bound by the simulation, or read back ready) is ready.
    pub fn is_ready(&self) -> bool {
        !self.conditions.iter().any(|c| c.type_ == "Ready" && c.status == "False")
    }

    /// The `PodScheduled` condition, when it says the pod could not be scheduled.
    pub fn unschedulable(&self) -> Option<&Condition> {
        self.conditions.iter().find(|c| c.type_ == "PodScheduled" && c.status == "False")
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodTemplateSpec {
    pub metadata: ObjectMeta,
    pub spec: PodSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodSpec {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub node_name: String,
    /// `None` and `Some(empty)` differ: NodeAffinity's PreFilter skips only a nil selector.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_selector: Option<Labels>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affinity: Option<Affinity>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<Toleration>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub init_containers: Vec<Container>,
    pub containers: Vec<Container>,
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub overhead: ResourceList,
    /// Pod-level resources (`PodLevelResources` feature).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<ResourceRequirements>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub host_network: bool,
    /// `false`: the pod runs in a user namespace (with `hostNetwork`, a feature the node
    /// must declare: NodeDeclaredFeatures).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_users: Option<bool>,
    /// The pod's group for gang scheduling (KEP-4671): `schedulingGroup` from 1.36,
    /// `workloadRef` in 1.35. Their gates are off in every modelled release, so the default
    /// scheduler places such a pod alone ([`PodSpec::scheduling_group_name`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduling_group: Option<Box<PodSchedulingGroup>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workload_ref: Option<Box<WorkloadReference>>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topology_spread_constraints: Vec<TopologySpreadConstraint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scheduler_name: Option<String>,
    /// While any gate is left the scheduler does not try the pod (`SchedulingGates`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub scheduling_gates: Vec<PodSchedulingGate>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority_class_name: Option<String>,
    /// Written by the Priority admission plugin from the class ([`crate::cluster::priority`]);
    /// a snapshot's pods carry it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub priority: Option<i32>,
    /// `PreemptLowerPriority` (the default) or `Never`, from the class likewise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<String>,
    /// Read for `kubectl drain`'s rules (emptyDir is local data).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<Volume>,
}

/// A pod volume, as far as Placement reads it: the sources the volume plugins and
/// `kubectl drain` look at.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Volume {
    pub name: String,
    /// `emptyDir: {}` is present-but-empty: kept as a value so presence is seen.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty_dir: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent_volume_claim: Option<PersistentVolumeClaimVolumeSource>,
    /// A generic ephemeral volume: its claim `<pod>-<volume>` is created by the ephemeral
    /// volume controller from the template.
    ///
    /// This and the in-tree disks are boxed: they are rare, and inline they made a
    /// `Volume` 728 bytes, three or four of them in each of a snapshot's 100,000 pods.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ephemeral: Option<Box<EphemeralVolumeSource>>,
    // The in-tree disks VolumeRestrictions still checks for conflicts between pods on a node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gce_persistent_disk: Option<Box<GcePersistentDiskVolumeSource>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub aws_elastic_block_store: Option<Box<AwsElasticBlockStoreVolumeSource>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iscsi: Option<Box<IscsiVolumeSource>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rbd: Option<Box<RbdVolumeSource>>,
}

impl Volume {
    /// The claim this volume uses in the pod's namespace: its own for a
    /// `persistentVolumeClaim`, `<pod>-<volume>` for a generic ephemeral one.
    pub fn claim_name(&self, pod_name: &str) -> Option<std::borrow::Cow<'_, str>> {
        if let Some(pvc) = &self.persistent_volume_claim {
            return Some(std::borrow::Cow::Borrowed(pvc.claim_name.as_str()));
        }
        self.ephemeral.as_ref().map(|_| std::borrow::Cow::Owned(storage::ephemeral_claim_name(pod_name, &self.name)))
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolumeClaimVolumeSource {
    pub claim_name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct EphemeralVolumeSource {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_claim_template: Option<PersistentVolumeClaimTemplate>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolumeClaimTemplate {
    pub metadata: ObjectMeta,
    pub spec: storage::PersistentVolumeClaimSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct GcePersistentDiskVolumeSource {
    #[serde(rename = "pdName")]
    pub pd_name: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AwsElasticBlockStoreVolumeSource {
    #[serde(rename = "volumeID")]
    pub volume_id: String,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct IscsiVolumeSource {
    pub iqn: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RbdVolumeSource {
    pub monitors: Vec<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub pool: String,
    pub image: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub read_only: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct PodSchedulingGate {
    pub name: String,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Container {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub image: String,
    #[serde(skip_serializing_if = "ResourceRequirements::is_empty")]
    pub resources: ResourceRequirements,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<ContainerPort>,
    /// `Always` on an init container makes it a restartable sidecar.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub restart_policy: Option<String>,
    /// Read for their actions: `RestartAllContainers` requires a node that declares the
    /// feature (NodeDeclaredFeatures).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub restart_policy_rules: Vec<ContainerRestartRule>,
}

impl PodSpec {
    /// The gang-scheduling group the pod names: `PodGroup <name>` (1.36's field) or
    /// `Workload <name>, pod group <group>` (1.35's).
    pub fn scheduling_group_name(&self) -> Option<String> {
        if let Some(name) = self.scheduling_group.as_ref().and_then(|g| g.pod_group_name.as_ref()) {
            return Some(format!("PodGroup {name}"));
        }
        self.workload_ref.as_ref().map(|w| format!("Workload {}, pod group {}", w.name, w.pod_group))
    }
}

/// `spec.schedulingGroup` (core/v1, 1.36): the PodGroup a pod is scheduled with.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodSchedulingGroup {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_group_name: Option<String>,
}

/// `spec.workloadRef` (core/v1, 1.35): the Workload and its pod group a pod belongs to.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WorkloadReference {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub pod_group: String,
}

/// A container's `restartPolicyRules` entry: the action Placement reads.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerRestartRule {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub action: String,
}

impl Container {
    pub fn is_restartable_init(&self) -> bool {
        self.restart_policy.as_deref() == Some("Always")
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ResourceRequirements {
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub requests: ResourceList,
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub limits: ResourceList,
}

impl ResourceRequirements {
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.limits.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ContainerPort {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub container_port: i32,
    #[serde(skip_serializing_if = "is_zero")]
    pub host_port: i32,
    #[serde(rename = "hostIP", skip_serializing_if = "String::is_empty")]
    pub host_ip: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub protocol: String,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

/// `requiredDuringSchedulingIgnoredDuringExecution` of a pod's node affinity, if any: what the
/// NodeAffinity filter, the DaemonSet controller and the fixes read.
pub fn required_node_selector(affinity: Option<&Affinity>) -> Option<&NodeSelector> {
    affinity.and_then(|a| a.node_affinity.as_ref()).and_then(|n| n.required.as_ref())
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Affinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<NodeAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_affinity: Option<PodAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pod_anti_affinity: Option<PodAffinity>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct NodeAffinity {
    #[serde(rename = "requiredDuringSchedulingIgnoredDuringExecution", skip_serializing_if = "Option::is_none")]
    pub required: Option<NodeSelector>,
    #[serde(rename = "preferredDuringSchedulingIgnoredDuringExecution", skip_serializing_if = "Vec::is_empty")]
    pub preferred: Vec<PreferredSchedulingTerm>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSelector {
    pub node_selector_terms: Vec<NodeSelectorTerm>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSelectorTerm {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<NodeSelectorRequirement>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_fields: Vec<NodeSelectorRequirement>,
}

impl NodeSelectorTerm {
    pub fn is_empty(&self) -> bool {
        self.match_expressions.is_empty() && self.match_fields.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct NodeSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PreferredSchedulingTerm {
    #[serde(skip_serializing_if = "is_zero")]
    pub weight: i32,
    pub preference: NodeSelectorTerm,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(default)]
pub struct PodAffinity {
    #[serde(rename = "requiredDuringSchedulingIgnoredDuringExecution", skip_serializing_if = "Vec::is_empty")]
    pub required: Vec<PodAffinityTerm>,
    #[serde(rename = "preferredDuringSchedulingIgnoredDuringExecution", skip_serializing_if = "Vec::is_empty")]
    pub preferred: Vec<WeightedPodAffinityTerm>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodAffinityTerm {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub namespaces: Vec<String>,
    pub topology_key: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub namespace_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_label_keys: Vec<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub mismatch_label_keys: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct WeightedPodAffinityTerm {
    pub weight: i32,
    pub pod_affinity_term: PodAffinityTerm,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelector {
    #[serde(skip_serializing_if = "Labels::is_empty")]
    pub match_labels: Labels,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_expressions: Vec<LabelSelectorRequirement>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct LabelSelectorRequirement {
    pub key: String,
    pub operator: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologySpreadConstraint {
    pub max_skew: i32,
    pub topology_key: String,
    pub when_unsatisfiable: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_domains: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_taints_policy: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_label_keys: Vec<String>,
}
