//! The scheduling framework's vocabulary: status codes, plugin statuses, the per-node state
//! plugins read (`NodeInfo`), and the profile configuration.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use serde::Serialize;

use crate::model::labels::LabelIndex;
use crate::model::node_selector::SelectableNode;
use crate::model::resources::Resource;
use crate::model::version::{FeatureGates, KubeVersion};
use crate::model::{Labels, Node, NodeAffinity, Pod, PodAffinityTerm, WeightedPodAffinityTerm};
use crate::scheduler::hostports::HostPortInfo;

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
    /// Upstream's reasons are mostly constants: borrowed, a node's status costs no copy of
    /// them (an explained cycle at 5,000 nodes lists 5,000 statuses).
    pub reasons: Vec<Cow<'static, str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plugin: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<Arc<str>>,
}

impl Status {
    pub fn success() -> Self {
        Self { code: Code::Success, reasons: Vec::new(), plugin: None, detail: None }
    }

    pub fn skip() -> Self {
        Self { code: Code::Skip, ..Self::success() }
    }

    pub fn new(code: Code, reason: impl Into<Cow<'static, str>>) -> Self {
        Self { code, reasons: vec![reason.into()], plugin: None, detail: None }
    }

    pub fn with_reasons(code: Code, reasons: Vec<Cow<'static, str>>) -> Self {
        Self { code, reasons, plugin: None, detail: None }
    }

    pub fn with_detail(mut self, detail: impl Into<Arc<str>>) -> Self {
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
    /// Shared with the other pods of the namespace placed alongside (see [`PlacedPods`]).
    pub namespace: Arc<str>,
    pub name: String,
    /// Shared with the other pods of the same labels placed alongside (see [`PlacedPods`]).
    pub labels: Arc<Labels>,
    pub required_affinity: Vec<PodAffinityTerm>,
    pub required_anti_affinity: Vec<PodAffinityTerm>,
    pub preferred_affinity: Vec<WeightedPodAffinityTerm>,
    pub preferred_anti_affinity: Vec<WeightedPodAffinityTerm>,
    /// The volumes the volume plugins count or compare: claims, generic ephemeral volumes and
    /// in-tree disks (empty for most pods).
    pub volumes: Vec<crate::model::Volume>,
    /// `spec.priority` (0 when unset, `corev1helpers.PodPriority`): who may preempt it.
    pub priority: i32,
    /// `status.startTime` (RFC 3339), for preemption to spare the longest-running of pods of
    /// equal priority; `None` for a pod the simulation created (it has not started).
    pub start_time: Option<Arc<str>>,
    /// What binding the pod added to its node's requests (shared by the pods of one
    /// template), so that preemption can take it off again; `None` where the caller added
    /// nothing ([`NodeInfo::add_pod`]).
    pub requests: Option<Arc<crate::scheduler::plugins::node_resources_fit::PodRequests>>,
    /// Its host ports, taken off the node with it.
    pub host_ports: Vec<crate::scheduler::hostports::HostPort>,
}

impl PlacedPod {
    pub fn from_pod(pod: &Pod) -> Self {
        Self::from_parts(&pod.metadata, &pod.spec)
    }

    /// [`PlacedPod::from_pod`] of a pod given by its parts (a workload's template, say).
    pub fn from_parts(metadata: &crate::model::ObjectMeta, spec: &crate::model::PodSpec) -> Self {
        PlacedPods::default().place(metadata, spec)
    }

    /// The pod with the requests binding adds to its node (and takes off again when
    /// preemption evicts it): see [`NodeInfo::bind`].
    pub fn with_requests(mut self, requests: Arc<crate::scheduler::plugins::node_resources_fit::PodRequests>) -> Self {
        self.requests = Some(requests);
        self
    }

    /// Any pod affinity or anti-affinity term, required or preferred.
    pub fn has_affinity(&self) -> bool {
        !(self.required_affinity.is_empty()
            && self.required_anti_affinity.is_empty()
            && self.preferred_affinity.is_empty()
            && self.preferred_anti_affinity.is_empty())
    }
}

/// Makes [`PlacedPod`]s, sharing the namespace and labels of consecutive pods that have the
/// same: a snapshot lists a controller's pods one after another, all with the same labels,
/// and copying each pod's labels was half of binding a snapshot's 100,000 pods.
#[derive(Debug, Default)]
pub struct PlacedPods {
    namespace: Option<Arc<str>>,
    labels: Option<Arc<Labels>>,
}

impl PlacedPods {
    /// The pod of `metadata` and `spec` as a node holds it.
    pub fn place(&mut self, metadata: &crate::model::ObjectMeta, spec: &crate::model::PodSpec) -> PlacedPod {
        let affinity = spec.affinity.as_ref();
        let pa = affinity.and_then(|a| a.pod_affinity.as_ref());
        let paa = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
        PlacedPod {
            namespace: self.namespace(metadata.namespace_or_default()),
            name: metadata.name.clone(),
            labels: self.labels(&metadata.labels),
            required_affinity: pa.map(|a| a.required.clone()).unwrap_or_default(),
            required_anti_affinity: paa.map(|a| a.required.clone()).unwrap_or_default(),
            preferred_affinity: pa.map(|a| a.preferred.clone()).unwrap_or_default(),
            preferred_anti_affinity: paa.map(|a| a.preferred.clone()).unwrap_or_default(),
            volumes: spec
                .volumes
                .iter()
                .filter(|v| {
                    v.persistent_volume_claim.is_some()
                        || v.ephemeral.is_some()
                        || crate::scheduler::plugins::volume_restrictions::needs_restrictions_check(v)
                })
                .cloned()
                .collect(),
            priority: crate::cluster::priority::pod_priority(spec),
            start_time: None,
            requests: None,
            host_ports: crate::scheduler::hostports::wanted_host_ports(spec),
        }
    }

    /// `namespace`, shared with the last pod's when the same.
    pub fn namespace(&mut self, namespace: &str) -> Arc<str> {
        match &self.namespace {
            Some(last) if **last == *namespace => last.clone(),
            _ => self.namespace.insert(Arc::from(namespace)).clone(),
        }
    }

    /// `labels`, shared with the last pod's when the same.
    pub fn labels(&mut self, labels: &Labels) -> Arc<Labels> {
        match &self.labels {
            Some(last) if **last == *labels => last.clone(),
            _ => self.labels.insert(Arc::new(labels.clone())).clone(),
        }
    }
}

/// What the scheduler knows about one node: the node and the pods bound to it.
///
/// The Node itself is read-only once wrapped (build a new `NodeInfo` to change it): its labels
/// are indexed for the per-node loop, and the index must not go stale. It is shared
/// (`Arc`), so that the policy's node inventory and its `NodeInfo`s hold one copy of each node.
#[derive(Debug, Clone)]
pub struct NodeInfo {
    node: Arc<Node>,
    /// The node's name, shared by the cycles' verdicts and the reports' node maps.
    name: Arc<str>,
    labels: LabelIndex,
    /// `status.allocatable`; `None` when the manifest had none (treated as unlimited).
    pub allocatable: Option<Resource>,
    pub requested: Resource,
    /// Requests with scoring's non-zero defaults.
    pub non_zero_requested: Resource,
    pub used_ports: HostPortInfo,
    pods: Vec<PlacedPod>,
    /// How many pods [`NodeInfo::unbind`] took off: indices into `pods` taken before such a
    /// removal no longer hold ([`crate::scheduler::pod_index`]).
    removals: u32,
    /// Which of `pods` have pod (anti-)affinity terms (upstream's `PodsWithAffinity`,
    /// `PodsWithRequiredAntiAffinity`): so InterPodAffinity skips nodes whose pods cannot
    /// matter without walking them.
    affinity_pods: AffinityPods,
}

/// How many bound pods have any pod (anti-)affinity term, and how many a required
/// anti-affinity term: a node's (in its [`NodeInfo`]) and a cluster's. Upstream's snapshot
/// lists the nodes holding such pods (`HavePodsWithAffinityNodeInfoList`,
/// `HavePodsWithRequiredAntiAffinityNodeInfoList`), so InterPodAffinity does not walk every
/// node to find them; where there are none, a pod without terms of its own skips its
/// PreFilter and scores 0 without walking at all.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct AffinityPods {
    pub with_affinity: usize,
    pub with_required_anti_affinity: usize,
}

impl AffinityPods {
    /// The counts over the pods bound to `nodes`.
    pub fn of(nodes: &[NodeInfo]) -> Self {
        let mut counts = Self::default();
        for n in nodes {
            counts.with_affinity += n.affinity_pods.with_affinity;
            counts.with_required_anti_affinity += n.affinity_pods.with_required_anti_affinity;
        }
        counts
    }

    /// Counts `pod`, bound to one of the nodes.
    pub fn add(&mut self, pod: &PlacedPod) {
        self.with_affinity += usize::from(pod.has_affinity());
        self.with_required_anti_affinity += usize::from(!pod.required_anti_affinity.is_empty());
    }

    /// Stops counting `pod`, taken off one of the nodes.
    pub fn remove(&mut self, pod: &PlacedPod) {
        self.with_affinity -= usize::from(pod.has_affinity()).min(self.with_affinity);
        self.with_required_anti_affinity -=
            usize::from(!pod.required_anti_affinity.is_empty()).min(self.with_required_anti_affinity);
    }
}

impl NodeInfo {
    pub fn new(node: Node) -> Self {
        Self::shared(Arc::new(node))
    }

    /// [`NodeInfo::new`] over a node held elsewhere too.
    pub fn shared(node: Arc<Node>) -> Self {
        let allocatable = node.status.allocatable.as_ref().map(Resource::from_list);
        Self {
            labels: LabelIndex::new(&node.metadata.labels),
            name: Arc::from(node.metadata.name.as_str()),
            node,
            allocatable,
            requested: Resource::default(),
            non_zero_requested: Resource::default(),
            used_ports: HostPortInfo::default(),
            pods: Vec::new(),
            removals: 0,
            affinity_pods: AffinityPods::default(),
        }
    }

    pub fn node(&self) -> &Node {
        &self.node
    }

    /// Changes the Node and re-indexes its labels. `allocatable` is its own field and is
    /// not recomputed.
    pub fn update_node(&mut self, change: impl FnOnce(&mut Node)) {
        change(Arc::make_mut(&mut self.node));
        self.labels = LabelIndex::new(&self.node.metadata.labels);
        if *self.name != *self.node.metadata.name {
            self.name = Arc::from(self.node.metadata.name.as_str());
        }
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The node's name as the verdicts and node maps share it.
    pub fn shared_name(&self) -> &Arc<str> {
        &self.name
    }

    /// The pods bound to the node, in binding order.
    /// The Node object's labels.
    pub fn node_labels(&self) -> &Labels {
        &self.node.metadata.labels
    }

    pub fn pods(&self) -> &[PlacedPod] {
        &self.pods
    }

    /// Binds a pod to the node (its requests and ports are the caller's to add).
    pub fn add_pod(&mut self, pod: PlacedPod) {
        self.affinity_pods.add(&pod);
        self.pods.push(pod);
    }

    /// Binds `pod` with its requests and host ports, as the scheduler's cache holds a bound
    /// pod: what tests and replayed vectors build nodes with.
    pub fn bind_pod(&mut self, pod: &Pod, cfg: &SchedulerConfig) {
        let requests = crate::scheduler::plugins::node_resources_fit::PodRequests::of(&pod.spec, cfg);
        let mut placed = PlacedPod::from_pod(pod).with_requests(Arc::new(requests));
        placed.start_time = pod.status.start_time.as_deref().map(Arc::from);
        self.bind(placed);
    }

    /// Binds a pod with what it takes: its requests (when it carries them) and host ports.
    pub fn bind(&mut self, pod: PlacedPod) {
        if let Some(r) = &pod.requests {
            self.requested.add(&r.request);
            self.non_zero_requested.add(&r.non_zero);
        }
        for p in &pod.host_ports {
            self.used_ports.add(p);
        }
        self.add_pod(pod);
    }

    /// Takes the pod at `index` off the node with what [`NodeInfo::bind`] added
    /// (`NodeInfo.RemovePod`).
    pub fn unbind(&mut self, index: usize) -> Option<PlacedPod> {
        if index >= self.pods.len() {
            return None;
        }
        let pod = self.pods.remove(index);
        self.removals = self.removals.wrapping_add(1);
        if let Some(r) = &pod.requests {
            self.requested.sub(&r.request);
            self.non_zero_requested.sub(&r.non_zero);
        }
        for p in &pod.host_ports {
            self.used_ports.remove(p);
        }
        self.affinity_pods.remove(&pod);
        Some(pod)
    }

    /// How many pods were taken off the node (see [`NodeInfo::unbind`]).
    pub fn removals(&self) -> u32 {
        self.removals
    }

    pub fn has_pods_with_affinity(&self) -> bool {
        self.affinity_pods.with_affinity > 0
    }

    pub fn has_pods_with_required_anti_affinity(&self) -> bool {
        self.affinity_pods.with_required_anti_affinity > 0
    }

    /// The node's labels, indexed: what the per-node loop should look labels up in.
    pub fn labels(&self) -> &LabelIndex {
        &self.labels
    }
}

impl SelectableNode for NodeInfo {
    type Labels = LabelIndex;
    fn labels(&self) -> &LabelIndex {
        &self.labels
    }
    fn node_name(&self) -> &str {
        &self.node.metadata.name
    }
}

/// The default profile's `schedulerName`: the API server defaults an empty
/// `spec.schedulerName` to it, and the default scheduler handles only pods that name it.
pub const DEFAULT_SCHEDULER_NAME: &str = "default-scheduler";

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
    /// What PodTopologySpread's listers hold (Services, ReplicaSets, StatefulSets,
    /// ReplicationControllers), for its system default constraints. Shared: it is the same
    /// for every cycle of a simulation.
    pub spread_listers: std::sync::Arc<crate::scheduler::plugins::pod_topology_spread::Listers>,
    /// The cluster's claims, volumes, classes and CSINodes, as the volume plugins' listers
    /// hold them; `None` where storage is not modelled (an input without any storage object,
    /// the admission policy's node inventory): the volume plugins are then skipped.
    pub storage: Option<std::sync::Arc<crate::scheduler::storage::Storage>>,
    /// The plugins the cycle runs, their order and weights.
    pub profile: crate::scheduler::profile::Profile,
    /// What the PodDisruptionBudget lister holds, for preemption's victim choice.
    pub disruption_budgets: std::sync::Arc<Vec<crate::model::scheduling::PodDisruptionBudget>>,
    /// `percentageOfNodesToScore` (0, the default: adaptive). Read by the cycles of a
    /// simulation ([`crate::scheduler::NodeSearch`]); clusters under 100 nodes are always
    /// searched whole.
    pub percentage_of_nodes_to_score: i32,
}

impl SchedulerConfig {
    pub fn for_version(version: KubeVersion) -> Self {
        Self { version, gates: FeatureGates::for_version(version), ..Default::default() }
    }
}
