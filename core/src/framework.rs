//! The scheduling framework's vocabulary: status codes, plugin statuses, the per-node state
//! plugins read (`NodeInfo`), and the profile configuration.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::hostports::HostPortInfo;
use crate::model::{Labels, Node, NodeAffinity, Pod, PodAffinityTerm, WeightedPodAffinityTerm};
use crate::resources::Resource;
use crate::version::{FeatureGates, KubeVersion};

/// `framework.Code`, as upstream names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Code {
    Success,
    Unschedulable,
    UnschedulableAndUnresolvable,
    Skip,
}

/// A plugin's verdict. `reasons` are upstream's exact strings; `detail` is Placement's own
/// explanation (which taint, which label, how much cpu) and never replaces a reason.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Status {
    pub code: Code,
    pub reasons: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl Status {
    pub fn success() -> Self {
        Self { code: Code::Success, reasons: Vec::new(), plugin: None, detail: None }
    }

    pub fn skip() -> Self {
        Self { code: Code::Skip, ..Self::success() }
    }

    pub fn new(code: Code, reason: impl Into<String>) -> Self {
        Self { code, reasons: vec![reason.into()], plugin: None, detail: None }
    }

    pub fn with_reasons(code: Code, reasons: Vec<String>) -> Self {
        Self { code, reasons, plugin: None, detail: None }
    }

    pub fn with_detail(mut self, detail: impl Into<String>) -> Self {
        self.detail = Some(detail.into());
        self
    }

    pub fn with_plugin(mut self, plugin: &'static str) -> Self {
        self.plugin = Some(plugin);
        self
    }

    pub fn is_success(&self) -> bool {
        self.code == Code::Success
    }

    pub fn is_rejected(&self) -> bool {
        matches!(self.code, Code::Unschedulable | Code::UnschedulableAndUnresolvable)
    }
}

/// A PreFilter result restricting the candidate nodes (`framework.PreFilterResult`);
/// `None` means all nodes.
pub type NodeNames = Option<BTreeSet<String>>;

/// A pod as the scheduler's cache holds it on a node: enough to answer inter-pod affinity,
/// topology spread and NoExecute questions about it later.
#[derive(Debug, Clone)]
pub struct PlacedPod {
    pub namespace: String,
    pub name: String,
    pub labels: Labels,
    pub required_affinity: Vec<PodAffinityTerm>,
    pub required_anti_affinity: Vec<PodAffinityTerm>,
    pub preferred_affinity: Vec<WeightedPodAffinityTerm>,
    pub preferred_anti_affinity: Vec<WeightedPodAffinityTerm>,
}

impl PlacedPod {
    pub fn from_pod(pod: &Pod) -> Self {
        let affinity = pod.spec.affinity.as_ref();
        let pa = affinity.and_then(|a| a.pod_affinity.as_ref());
        let paa = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
        Self {
            namespace: pod.metadata.namespace.clone().unwrap_or_else(|| "default".into()),
            name: pod.metadata.name.clone(),
            labels: pod.metadata.labels.clone(),
            required_affinity: pa.map(|a| a.required.clone()).unwrap_or_default(),
            required_anti_affinity: paa.map(|a| a.required.clone()).unwrap_or_default(),
            preferred_affinity: pa.map(|a| a.preferred.clone()).unwrap_or_default(),
            preferred_anti_affinity: paa.map(|a| a.preferred.clone()).unwrap_or_default(),
        }
    }
}

/// What the scheduler knows about one node: the node and the pods bound to it.
#[derive(Debug, Clone)]
pub struct NodeInfo {
    pub node: Node,
    /// `status.allocatable`; `None` when the manifest had none (treated as unlimited).
    pub allocatable: Option<Resource>,
    pub requested: Resource,
    /// Requests with scoring's non-zero defaults.
    pub non_zero_requested: Resource,
    pub used_ports: HostPortInfo,
    pub pods: Vec<PlacedPod>,
}

impl NodeInfo {
    pub fn new(node: Node) -> Self {
        let allocatable = node.status.allocatable.as_ref().map(Resource::from_list);
        Self {
            node,
            allocatable,
            requested: Resource::default(),
            non_zero_requested: Resource::default(),
            used_ports: HostPortInfo::default(),
            pods: Vec::new(),
        }
    }

    pub fn name(&self) -> &str {
        &self.node.metadata.name
    }
}

/// The profile: feature gates, plugin arguments and the version whose wording to use.
#[derive(Debug, Clone, Default)]
pub struct SchedulerConfig {
    pub version: KubeVersion,
    pub gates: FeatureGates,
    /// `NodeAffinityArgs.addedAffinity`: enforced on every pod of the profile.
    pub added_affinity: Option<NodeAffinity>,
    /// `NodeResourcesFitArgs.ignoredResources` / `ignoredResourceGroups`.
    pub ignored_resources: Vec<String>,
    pub ignored_resource_groups: Vec<String>,
}

impl SchedulerConfig {
    pub fn for_version(version: KubeVersion) -> Self {
        Self { version, gates: FeatureGates::for_version(version), ..Default::default() }
    }
}
