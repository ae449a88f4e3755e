//! The whole simulation: nodes and workloads in, a report of where every pod lands, why it
//! cannot land elsewhere, what gets evicted and the smallest fix, out.
//!
//! Order of events, as in a cluster that receives the manifests in input order:
//! 1. Pods that already name a node (`spec.nodeName`) are bound there first: they run, use
//!    resources and host ports, and are checked against NoExecute taints.
//! 2. Each workload, in input order, creates its pods one at a time; each pod is scheduled
//!    against the cluster as the pods before it left it. DaemonSets follow the controller.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use crate::cluster::controllers::{self, PodOwner};
use crate::cluster::csi_node_plugins::{self, CannotMount};
use crate::cluster::daemonset::{self, Blocker};
use crate::cluster::defaults::{self, api_defaults, default_toleration_seconds};
use crate::cluster::priority::{PriorityClasses, PriorityError};
use crate::cluster::snapshot::{self, Ownership, Role};
use crate::explain::fixes::{self, Fix};
use crate::input::documents::{DocRef, InputError, Manifests, Workload, WorkloadKind};
use crate::input::validation::{self, validate_node, validate_workload};
use crate::model::storage::{ephemeral_claim_name, stateful_set_claim_name, PersistentVolumeClaim};
use crate::model::taints::{no_execute_eviction, NoExecuteEviction, NO_EXECUTE};
use crate::model::version::{FeatureGates, KubeVersion, Release, ReleaseSource};
use crate::model::{
    Container, Node, ObjectMeta, PersistentVolumeClaimVolumeSource, Pod, PodSpec, PodStatus, ResourceList,
    ResourceRequirements, Taint, Toleration, Volume,
};
use crate::scheduler::framework::{Code, NodeInfo, PlacedPods, SchedulerConfig, Status, DEFAULT_SCHEDULER_NAME};
use crate::scheduler::plugins::node_resources_fit::PodRequests;
use crate::scheduler::plugins::{
    node_affinity, node_name, node_volume_limits, scheduling_gates, taint_toleration, volume_binding,
};
use crate::scheduler::pod_index::PodIndex;
use crate::scheduler::storage::{pod_claims, Storage};
use crate::scheduler::{
    fits_nominated, schedule, schedule_searching, Detail, NodeVerdict, Running, ScheduleResult, StaticCache,
    StaticSeeds,
};

#[derive(Debug, Clone)]
pub struct SimulateOptions {
    pub version: KubeVersion,
    pub gates: FeatureGates,
    /// Apply the admission plugins of a default cluster that change placement
    /// (DefaultTolerationSeconds). On by default.
    pub admission_defaults: bool,
    /// kube-scheduler's `percentageOfNodesToScore` (0, the default: adaptive, `50 - nodes/125`
    /// percent and at least 5%; 100: every node). Only clusters of 100 nodes or more are
    /// searched partly.
    pub percentage_of_nodes_to_score: i32,
    /// How many times a report may re-simulate the input to check its fixes
    /// ([`crate::explain::verify`]); fewer on large inputs. Fixes past it are offered
    /// unverified, saying so.
    pub max_fix_resimulations: usize,
    /// Keep this workload's first scheduling cycle whole ([`Report::recorded_cycle`]): every
    /// node's verdict with each score plugin's raw and normalized score. Off by default: the
    /// playground asks for it only for the matrix cell a user opens.
    pub record_cycle: Option<WorkloadKey>,
    /// Whether the input's storage is the cluster's (the default): the volume plugins then
    /// read it ([`storage_of`]). Off for the admission policy, whose node inventory holds no
    /// claims: a workload's claims are the cluster's business there, not missing.
    pub model_storage: bool,
    /// Where `version` comes from, for the report ([`Release`]).
    pub version_source: ReleaseSource,
}

/// A workload as the report names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadKey {
    pub kind: String,
    pub namespace: String,
    pub name: String,
}

impl WorkloadKey {
    fn names(&self, report: &WorkloadReport) -> bool {
        self.kind == report.kind && self.namespace == report.namespace && self.name == report.name
    }
}

impl Default for SimulateOptions {
    fn default() -> Self {
        Self::for_version(KubeVersion::DEFAULT)
    }
}

impl SimulateOptions {
    pub fn for_version(version: KubeVersion) -> Self {
        Self {
            version,
            gates: FeatureGates::for_version(version),
            admission_defaults: true,
            percentage_of_nodes_to_score: 0,
            max_fix_resimulations: crate::explain::verify::MAX_RESIMULATIONS,
            record_cycle: None,
            model_storage: true,
            version_source: ReleaseSource::Default,
        }
    }

    /// The options for `release`: its version's defaults, and where it came from.
    pub fn for_release(release: Release) -> Self {
        Self { version_source: release.source, ..Self::for_version(release.version) }
    }

    /// The default profile for these options, before any cluster objects are known.
    pub fn scheduler_config(&self) -> SchedulerConfig {
        SchedulerConfig {
            version: self.version,
            gates: self.gates,
            percentage_of_nodes_to_score: self.percentage_of_nodes_to_score,
            ..Default::default()
        }
    }
}

/// The report, in the shape the CLI's JSON output promises (docs/cli.md, "JSON output").
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    pub kube_version: String,
    /// Where `kube_version` comes from: `{"from": "given"}`, `{"from": "default"}`, or
    /// `{"from": "nodes", "kubeletVersion": "v1.33.2"}` (the newest of the input's Nodes).
    pub kube_version_source: ReleaseSource,
    /// With a release read from the Nodes, the sentence the text report starts with.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kube_version_note: Option<String>,
    pub workloads: Vec<WorkloadReport>,
    pub warnings: Vec<String>,
    pub evictions: Vec<Eviction>,
    /// With `--what-if`: what the commands change, against the input as it is; the rest of
    /// the report is the cluster after them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub changes: Option<crate::cluster::changes::Changes>,
    /// With [`SimulateOptions::record_cycle`]: that workload's first cycle (the one its
    /// `nodes` verdicts come from), whole. Not part of the JSON contract.
    #[serde(skip)]
    pub recorded_cycle: Option<ScheduleResult>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadReport {
    pub kind: &'static str,
    pub namespace: String,
    pub name: String,
    /// Pods wanted: replicas, or for a DaemonSet the eligible nodes (`kubectl get ds` DESIRED).
    pub desired: i64,
    /// Pods created, Pending ones included, as `kubectl get ds` counts CURRENT (for a
    /// DaemonSet: the eligible nodes that have a daemon pod). Finished, terminating and
    /// deleted pods are not counted.
    pub current: i64,
    /// Of those, the pods bound to a node.
    pub scheduled: i64,
    /// Of those, the pods without a node: `current - scheduled`.
    pub pending: i64,
    /// The controller is not in the input: the report gathers its pods found by their
    /// `ownerReferences`, and `desired` is how many there are.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub not_in_input: bool,
    /// The input's pods first (those of a snapshot carry `snapshot`), then the pods the
    /// simulation creates.
    pub pods: Vec<PodReport>,
    /// The verdict for one pod of the workload against the cluster as it stood before the
    /// workload's pods were placed; for DaemonSets, whether the daemon pod runs there.
    pub nodes: NodeReports,
    pub fixes: Vec<Fix>,
    /// What admission or the controller added to the pods, visible so nothing is magic.
    pub defaults: Vec<String>,
    /// The controller could not create its pods: the API server refused them (a
    /// `priorityClassName` no PriorityClass has), in the `FailedCreate` event's words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed_create: Option<String>,
    /// Gatekeeper violations of the workload (`simulate --policy`); absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violations: Vec<crate::gatekeeper::Violation>,
    /// The counters are set (a DaemonSet counts by node).
    #[serde(skip)]
    counted: bool,
}

impl WorkloadReport {
    /// A pending pod's own node map ([`PodReport::nodes`]) from its cycle's verdicts: `None`
    /// when it is the map last recorded for the workload (its `nodes`, or an earlier pod's),
    /// or the workload has [`OWN_NODE_MAPS`] already.
    fn own_nodes(&self, verdicts: &[NodeVerdict]) -> Option<NodeReports> {
        let own: Vec<&NodeReports> = self.pods.iter().filter_map(|p| p.nodes.as_ref()).collect();
        if own.len() >= OWN_NODE_MAPS {
            return None;
        }
        let map = NodeReports::of_verdicts(verdicts);
        (map != *own.last().copied().unwrap_or(&self.nodes)).then_some(map)
    }

    /// Counts the pods as `kubectl get` does, unless already counted.
    fn count(&mut self) {
        if self.counted {
            return;
        }
        let active = || self.pods.iter().filter(|p| p.is_active());
        self.current = active().count() as i64;
        self.scheduled = active().filter(|p| p.node.is_some()).count() as i64;
        self.pending = self.current - self.scheduled;
        if self.not_in_input || self.kind == WorkloadKind::Pod.as_str() {
            // A pod is its own desire; a missing controller's desire is what it has.
            self.desired = self.current;
        }
        self.counted = true;
    }
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodReport {
    pub name: String,
    /// Shared with the node's [`NodeInfo`] where the simulation bound it: a snapshot binds
    /// 100,000 pods to 5,000 nodes.
    pub node: Option<Arc<str>>,
    /// The FailedScheduling message when the pod stays Pending.
    pub message: Option<String>,
    /// Why the default scheduler never tries the pod; it stays Pending, holds nothing, and
    /// no FailedScheduling event is written for it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_attempted: Option<NotAttempted>,
    /// For a pod of the input's cluster state (a snapshot): what the snapshot says of it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snapshot: Option<SnapshotPod>,
    /// The PersistentVolumeClaims the pod uses, in volume order, and for a pod the simulation
    /// scheduled what each claim is bound to.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub claims: Vec<ClaimUse>,
    /// Claims the pod cannot mount where it went: their CSI driver's node plugin does not run
    /// on the node (the scheduler does not check it; the pod stays ContainerCreating).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub cannot_mount: Vec<CannotMount>,
    /// The pod found no node until DefaultPreemption made room: where, and whom it evicted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<PreemptionReport>,
    /// The scheduler deleted the pod to make room for a pod of higher priority.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preempted: Option<Preempted>,
    /// A pending pod's own per-node verdicts, where they differ from the workload's `nodes`
    /// (its first pod's cycle): the first pending replica after one that was placed (the
    /// cluster changed under it), or a replica with claims of its own (a StatefulSet's,
    /// each tied to its volume's zone or node). At most [`OWN_NODE_MAPS`] per workload.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<NodeReports>,
}

/// How many pending pods of one workload carry their own node map ([`PodReport::nodes`]): a
/// Parallel StatefulSet of 1,000 pending replicas would otherwise hold 1,000 maps of every node.
pub const OWN_NODE_MAPS: usize = 10;

/// How a pod got its node by preemption (JSON `preemption`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreemptionReport {
    /// The node DefaultPreemption nominated (`status.nominatedNodeName`).
    pub node: String,
    /// The pods deleted for it, `namespace/name`, most important first.
    pub victims: Vec<String>,
    /// The FailedScheduling message of the cycle that preempted: the pod's first event,
    /// before its next cycle bound it.
    pub message: String,
}

/// Why the scheduler deleted a pod (JSON `preempted`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preempted {
    /// The preemptor, `namespace/name`, and the priorities that decided it.
    pub by: String,
    pub by_priority: i32,
    pub priority: i32,
    pub node: String,
    /// The PodDisruptionBudgets the eviction went beyond (preemption minimises such
    /// victims but does not refuse them).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violates: Vec<String>,
    /// The `Preempted` event on the pod, in the scheduler's words (which name the preemptor
    /// by its uid; a pod the simulation created has none, and is named instead).
    pub event: String,
    /// The `DisruptionTarget` condition's message the scheduler sets before deleting it.
    pub condition: String,
    /// The pod its controller created in its place, when the controller is in the input.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replaced_by: Option<String>,
    #[serde(skip)]
    namespace: String,
    #[serde(skip)]
    name: String,
}

/// A claim a pod uses: bound to a PV (`pv`), or to be provisioned for the node the pod went to
/// (`provisionOn`, the `volume.kubernetes.io/selected-node` the scheduler sets); neither while
/// the pod is pending.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimUse {
    pub claim: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pv: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provision_on: Option<String>,
}

/// `data-db-0 -> PersistentVolume pv-1`, `data-db-0 -> provisioned on node-a`,
/// `data-db-0 (not bound)`: how the text report, markdown and the playground show a claim.
impl std::fmt::Display for ClaimUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.pv, &self.provision_on) {
            (Some(pv), _) => write!(f, "{} -> PersistentVolume {pv}", self.claim),
            (None, Some(node)) => write!(f, "{} -> provisioned on {node}", self.claim),
            (None, None) => write!(f, "{} (not bound)", self.claim),
        }
    }
}

impl PodReport {
    pub fn scheduled(name: String, node: impl Into<Arc<str>>) -> Self {
        Self { node: Some(node.into()), ..Self::pending(name, None) }
    }

    /// Pending; `message` is the FailedScheduling message when a cycle ran.
    pub fn pending(name: String, message: Option<String>) -> Self {
        Self {
            name,
            node: None,
            message,
            not_attempted: None,
            snapshot: None,
            claims: Vec::new(),
            cannot_mount: Vec::new(),
            preemption: None,
            preempted: None,
            nodes: None,
        }
    }

    /// Whether the pod counts for its controller: neither finished, terminating, deleted nor
    /// preempted.
    pub fn is_active(&self) -> bool {
        self.preempted.is_none() && self.snapshot.as_ref().is_none_or(SnapshotPod::is_active)
    }

    /// What a pending pod's status says: the FailedScheduling message, or why no cycle ran
    /// (led by the status `kubectl get pods` shows, unless that is plain `Pending`).
    pub fn pending_text(&self) -> String {
        match (&self.message, &self.not_attempted) {
            (Some(m), _) => m.clone(),
            (None, Some(n)) if n.status == NotAttempted::PENDING => n.message.clone(),
            (None, Some(n)) => format!("{}: {}", n.status, n.message),
            (None, None) => String::new(),
        }
    }

    /// `Scheduled`, or for a pod that preempted, whom it evicted.
    fn scheduled_text(&self) -> String {
        match &self.preemption {
            Some(p) => format!("Scheduled by preempting {} on {}", p.victims.join(", "), p.node),
            None => "Scheduled".into(),
        }
    }

    /// The report's STATUS column: `Scheduled`, `Pending: <why>`, or for a gated pod
    /// `SchedulingGated: <the gates>`; a snapshot's pods lead with their own status
    /// (`Running`, `Terminating`, `Succeeded`, ...).
    pub fn status_text(&self) -> String {
        if let Some(p) = &self.preempted {
            return format!(
                "Preempted: deleted by the scheduler for {} (priority {} > {}) on {}",
                p.by, p.by_priority, p.priority, p.node
            );
        }
        if let Some(s) = &self.snapshot {
            if let Some(why) = &s.removed {
                return format!("Deleted: {why}");
            }
            if !s.is_active() || (self.node.is_some() && s.status != SnapshotPod::PENDING) {
                return s.status.clone();
            }
            let now = match (&self.node, &self.not_attempted) {
                (Some(_), _) => self.scheduled_text(),
                (None, Some(n)) if n.status != NotAttempted::PENDING => format!("{}: {}", n.status, n.detail),
                (None, _) => format!("{}: {}", NotAttempted::PENDING, self.pending_text()),
            };
            return match (&s.message, s.message_differs) {
                (Some(m), true) => format!("{now} [differs from the snapshot's PodScheduled message: {m}]"),
                _ => now,
            };
        }
        match (&self.node, &self.not_attempted) {
            (Some(_), _) if self.preemption.is_some() => self.scheduled_text(),
            (Some(_), _) => "Scheduled".into(),
            (None, Some(n)) if n.status != NotAttempted::PENDING => format!("{}: {}", n.status, n.detail),
            (None, _) => format!("{}: {}", NotAttempted::PENDING, self.pending_text()),
        }
    }
}

/// A pod of the input's cluster state, as the snapshot shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SnapshotPod {
    /// What `kubectl get pods` would show: the phase (`Running`, `Pending`, `Succeeded`,
    /// `Failed`), or `Terminating`.
    pub status: String,
    /// The `PodScheduled` condition's message for a pod the scheduler could not place.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// Placement's FailedScheduling message for the pod is not the snapshot's (or Placement
    /// places a pod the snapshot shows unschedulable): a fidelity check on the user's own
    /// cluster, or a cluster that changed since.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub message_differs: bool,
    /// Why its controller deletes it before anything else happens.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removed: Option<String>,
}

impl SnapshotPod {
    pub const PENDING: &'static str = "Pending";
    pub const TERMINATING: &'static str = "Terminating";

    /// What the snapshot says of `w`; `None` for a manifest's own pod (no status, uid or
    /// timestamps, and no controller in the input).
    fn of(w: &Workload, role: &Role) -> Option<Self> {
        let from_snapshot = !w.pod_status.is_empty()
            || !w.metadata.uid.is_empty()
            || w.metadata.creation_timestamp.is_some()
            || w.metadata.deletion_timestamp.is_some();
        if !from_snapshot && role == &Role::Own {
            return None;
        }
        let status = if w.metadata.deletion_timestamp.is_some() {
            Self::TERMINATING.to_string()
        } else if !w.pod_status.phase.is_empty() {
            w.pod_status.phase.clone()
        } else if w.template.spec.node_name.is_empty() {
            Self::PENDING.to_string()
        } else {
            "Running".to_string()
        };
        let message = w.pod_status.unschedulable().map(|c| c.message.clone()).filter(|m| !m.is_empty());
        Some(Self { status, message, message_differs: false, removed: None })
    }

    fn is_active(&self) -> bool {
        self.removed.is_none()
            && self.status != Self::TERMINATING
            && self.status != PodStatus::SUCCEEDED
            && self.status != PodStatus::FAILED
    }

    /// Flags a difference between the snapshot's message and this simulation's (`None`: the
    /// pod was placed).
    fn compare(&mut self, simulated: Option<&str>) {
        if let Some(snapshot) = &self.message {
            self.message_differs = simulated != Some(snapshot.as_str());
        }
    }
}

/// A pod the default scheduler leaves alone.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct NotAttempted {
    /// What `kubectl get pods` shows in STATUS: `SchedulingGated`, or `Pending`.
    pub status: &'static str,
    /// For a gated pod, the PodScheduled condition's message the API server writes; else
    /// Placement's words.
    pub message: String,
    /// The plugin status or field behind it.
    pub detail: String,
}

impl NotAttempted {
    pub const PENDING: &'static str = "Pending";
    pub const SCHEDULING_GATED: &'static str = "SchedulingGated";

    /// Scheduling gates (the SchedulingGates PreEnqueue plugin), or a `schedulerName` that
    /// no profile of the default scheduler serves.
    pub fn of(spec: &PodSpec) -> Option<Self> {
        let gated = scheduling_gates::pre_enqueue(spec);
        if !gated.is_success() {
            return Some(Self {
                status: Self::SCHEDULING_GATED,
                message: "Scheduling is blocked due to non-empty scheduling gates".into(),
                detail: format!("{}: {}", scheduling_gates::NAME, gated.reasons.join(", ")),
            });
        }
        match spec.scheduler_name.as_deref() {
            None | Some("") | Some(DEFAULT_SCHEDULER_NAME) => None,
            Some(other) => Some(Self {
                status: Self::PENDING,
                message: format!(
                    "spec.schedulerName is {other:?}: the default scheduler serves only {DEFAULT_SCHEDULER_NAME:?}, so the pod waits for a scheduler of that name"
                ),
                detail: format!("schedulerName {other}"),
            }),
        }
    }
}

/// A workload's per-node verdicts in cluster order; in JSON the contract's `nodes` object
/// (node name to verdict). Typed rather than a JSON map: the playground re-evaluates on
/// every edit and reads the verdicts back, so they are built and read without detours
/// through `serde_json::Value`. The names are shared with the simulation's other node maps:
/// a drain's what-if re-creates the pods of hundreds of workloads, each with a map of all
/// 5,000 nodes, and a copy of each name per entry was a tenth of its memory. Consecutive
/// nodes with the same verdict share it (most of a large cluster's nodes are "fits, but not
/// scored in this cycle"): the maps' memory is mostly faulted-in pages, and fresh pages are
/// slow to come by.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NodeReports(Vec<(Arc<str>, Arc<NodeReport>)>);

impl NodeReports {
    pub fn get(&self, node: &str) -> Option<&NodeReport> {
        self.0.iter().find(|(n, _)| &**n == node).map(|(_, r)| &**r)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &NodeReport)> {
        self.0.iter().map(|(n, r)| (&**n, &**r))
    }

    /// Node names and verdicts in order, each verdict shared with the node before it when the
    /// same.
    fn sharing(entries: impl ExactSizeIterator<Item = (Arc<str>, NodeReport)>) -> Self {
        // Into a list of its own size: `collect` from a list of larger entries would keep
        // their buffer.
        let mut shared: Vec<(Arc<str>, Arc<NodeReport>)> = Vec::with_capacity(entries.len());
        for (node, report) in entries {
            let report = match shared.last() {
                Some((_, last)) if **last == report => last.clone(),
                _ => Arc::new(report),
            };
            shared.push((node, report));
        }
        Self(shared)
    }

    /// A cycle's verdicts (in cluster order, a subset of the nodes): an explained cycle at
    /// 5,000 nodes lists them all, and a copy of each verdict's name and detail was a quarter
    /// of re-creating a drained pool's pods. Consecutive nodes with the same detail share it.
    fn of_verdicts(verdicts: &[NodeVerdict]) -> Self {
        let mut shared: Vec<(Arc<str>, Arc<NodeReport>)> = Vec::with_capacity(verdicts.len());
        let mut last_shared = Shared::default();
        let mut last: Option<&NodeVerdict> = None;
        for v in verdicts {
            let report = match (last, shared.last()) {
                // A run of nodes failing alike (a tainted or cordoned pool, the nodes not
                // scored): the same report, without building it to find out.
                (Some(prev), Some((_, report))) if same_report(prev, v) => report.clone(),
                (_, previous) => {
                    let report = node_report_sharing(v, &mut last_shared);
                    match previous {
                        Some((_, last)) if **last == report => last.clone(),
                        _ => Arc::new(report),
                    }
                }
            };
            shared.push((v.node.clone(), report));
            last = Some(v);
        }
        Self(shared)
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl FromIterator<(String, NodeReport)> for NodeReports {
    /// Node names are unique (`simulate` rejects duplicates), so this is a map.
    fn from_iter<I: IntoIterator<Item = (String, NodeReport)>>(iter: I) -> Self {
        Self(iter.into_iter().map(|(n, r)| (Arc::from(n), Arc::new(r))).collect())
    }
}

impl Serialize for NodeReports {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = serializer.serialize_map(Some(self.0.len()))?;
        for (name, report) in &self.0 {
            map.serialize_entry(&**name, &**report)?;
        }
        map.end()
    }
}

/// The per-node verdict of the JSON contract.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct NodeReport {
    pub fits: bool,
    pub plugin: Option<&'static str>,
    /// Upstream's reasons joined by ", ", exactly as they count in the FailedScheduling message.
    /// Shared between the nodes of a map that have the same, as `detail` is.
    pub reason: Option<Arc<str>>,
    /// Shared between the nodes of a map that have the same (an explained cycle at 5,000
    /// nodes gives 4,500 of them "fits, but not scored in this cycle: ...").
    pub detail: Option<Arc<str>>,
    pub score: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<Code>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Eviction {
    pub namespace: String,
    pub pod: String,
    pub node: String,
    pub taint: String,
    /// `None`: at once; otherwise after the toleration's seconds.
    pub after_seconds: Option<i64>,
    pub message: String,
}

/// Validates, then simulates. Every invalid document is reported, not just the first.
///
/// The input is read as a cluster snapshot ([`snapshot::resolve`]): the pods it holds are the
/// cluster as it is, and each controller creates only the pods it is missing.
///
/// Every fix offered is then re-checked by simulating the input with it applied
/// ([`crate::explain::verify`]).
pub fn simulate(manifests: &Manifests, opts: &SimulateOptions) -> Result<Report, Vec<InputError>> {
    simulate_resolved(manifests, opts, None)
}

/// [`simulate`] of an input whose ownership the caller has at hand (`snapshot::resolve` of
/// it, or `None` to resolve it here).
pub(crate) fn simulate_resolved(
    manifests: &Manifests,
    opts: &SimulateOptions,
    ownership: Option<&Ownership>,
) -> Result<Report, Vec<InputError>> {
    let mut report = simulate_with(manifests, opts, None, ownership)?;
    crate::explain::verify::verify_fixes(manifests, opts, &mut report);
    Ok(report)
}

/// [`simulate`] with the fixes offered but not yet re-checked (`verified` false): for a caller
/// that shows the verdicts at once and settles the fixes later with
/// [`crate::explain::verify::verify_fixes`] on the same input (the browser playground does it
/// after the frame, so that an edit reaches the screen before the re-simulations run).
pub fn simulate_unverified(manifests: &Manifests, opts: &SimulateOptions) -> Result<Report, Vec<InputError>> {
    simulate_once(manifests, opts, None)
}

/// [`simulate`] without re-checking the fixes: what a fix's re-simulation runs. With
/// `until`, the controllers after that workload create no pods: in input order they cannot
/// change where its pods go, and a fix to one workload reads only its report.
pub(crate) fn simulate_once(
    manifests: &Manifests,
    opts: &SimulateOptions,
    until: Option<usize>,
) -> Result<Report, Vec<InputError>> {
    simulate_with(manifests, opts, until, None)
}

/// The one simulation the entry points above share: validation, the snapshot's ownership
/// (given, or resolved here), the controllers' plan, then the three passes of
/// [`Simulation::run`].
fn simulate_with(
    manifests: &Manifests,
    opts: &SimulateOptions,
    until: Option<usize>,
    ownership: Option<&Ownership>,
) -> Result<Report, Vec<InputError>> {
    validate(manifests, opts)?;
    let resolved;
    let ownership = match ownership {
        Some(given) => given,
        None => {
            resolved = snapshot::resolve(manifests);
            &resolved
        }
    };
    let plan = Plan::new(manifests, ownership);
    let cfg = SchedulerConfig {
        spread_listers: std::sync::Arc::new(controllers::listers(manifests, &plan.owners)),
        storage: if opts.model_storage { storage_of(manifests) } else { None },
        disruption_budgets: Arc::new(manifests.scheduling.disruption_budgets.iter().map(|(_, b)| b.clone()).collect()),
        ..opts.scheduler_config()
    };
    let mut sim = Simulation::new(manifests, opts, cfg);
    if sim.cfg.storage.is_none() && opts.model_storage {
        sim.warnings.extend(unmodelled_claims_warning(manifests));
    }
    sim.warnings.extend(gang_scheduling_warning(manifests, opts));
    sim.until = until;
    sim.warnings.extend(ownership.warnings.iter().cloned());
    sim.run(manifests, ownership, &plan);
    Ok(sim.finish())
}

/// The cluster's PriorityClasses: the input's and the two system classes.
fn priority_classes(manifests: &Manifests) -> PriorityClasses {
    PriorityClasses::new(manifests.scheduling.priority_classes.iter().map(|(_, c)| c))
}

/// The cluster's storage as the volume plugins see it, when the input models storage: it has
/// a claim, volume, class, CSINode, CSIDriver or CSIStorageCapacity, or a workload written by
/// hand (not read back from a cluster) uses claims: a claim it names that the input lacks is
/// then missing, as in a cluster of only what the input holds. Otherwise the volume plugins
/// are skipped and the controllers create no claims ([`unmodelled_claims_warning`]): a
/// `kubectl get nodes,statefulsets,pods` snapshot has its pods' claims elsewhere, not missing.
fn storage_of(manifests: &Manifests) -> Option<Arc<Storage>> {
    let read_back = |w: &Workload| !w.metadata.uid.is_empty() && w.metadata.creation_timestamp.is_some();
    let written_with_claims = manifests.workloads.iter().any(|w| !read_back(w) && uses_claims(w));
    (!manifests.storage.is_empty() || written_with_claims).then(|| Arc::new(Storage::new(&manifests.storage)))
}

/// The workload's pods use claims: named ones, generic ephemeral ones, a StatefulSet's.
fn uses_claims(w: &Workload) -> bool {
    !w.state.claim_templates.is_empty()
        || w.template.spec.volumes.iter().any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some())
}

/// Said when pods name a gang-scheduling group (KEP-4671): no modelled release's default
/// scheduler holds them for it. Its gates (GangScheduling, GenericWorkload) are alpha and off
/// in 1.35 and 1.36 (beta and still off in 1.37: docs/upstream/releases-1.36-1.37.md, section
/// 4): the API server drops the field, the profile has no GangScheduling plugin, and each pod
/// is placed alone, as here.
fn gang_scheduling_warning(manifests: &Manifests, opts: &SimulateOptions) -> Option<String> {
    let grouped: Vec<String> = manifests
        .workloads
        .iter()
        .filter_map(|w| {
            let group = w.template.spec.scheduling_group_name()?;
            Some(format!("{} {}/{} ({group})", w.kind.as_str(), w.namespace, w.name))
        })
        .collect();
    let (first, more) = grouped.split_first()?;
    let others = match more.len() {
        0 => String::new(),
        n => format!(" and {n} more"),
    };
    Some(format!(
        "{first}{others} name a group for gang scheduling (spec.schedulingGroup, spec.workloadRef): Kubernetes {}'s \
         default scheduler does not wait for the group (its gates GenericWorkload and GangScheduling are off by \
         default, and the API server drops the field while they are), so each pod is placed alone",
        opts.version
    ))
}

/// Said when pods use claims but the input has no storage object to check them against.
fn unmodelled_claims_warning(manifests: &Manifests) -> Option<String> {
    let workloads = manifests.workloads.iter().filter(|w| uses_claims(w)).count();
    (workloads > 0).then(|| {
        format!(
            "{workloads} of the input's pods and controllers use PersistentVolumeClaims, but it has no PersistentVolumeClaim, \
             PersistentVolume or StorageClass: the volume plugins (VolumeRestrictions, NodeVolumeLimits, \
             VolumeBinding, VolumeZone) are not evaluated; add them with `kubectl get pvc,pv,storageclass,csinodes -A -o yaml`"
        )
    })
}

/// The API server's validation of every document, and the API versions it serves: all the
/// errors: the nodes', then the workloads' API versions, then the workloads'. [`simulate`] starts with it; the
/// CLI calls it alone to name every invalid document when others failed to read.
pub fn validate(manifests: &Manifests, opts: &SimulateOptions) -> Result<(), Vec<InputError>> {
    let gates = &opts.gates;
    let mut errors = Vec::new();
    for (doc, node) in &manifests.nodes {
        for error in validate_node(node) {
            errors.push(InputError::Invalid { doc: doc.clone(), error });
        }
    }
    // Every workload, read back or not: a cluster serves only what it serves. A version it
    // does not serve is all there is to say: the request never reaches validation (and
    // apps/v1's rules, such as a required selector, are not that version's).
    let mut not_served = Vec::new();
    for (i, w) in manifests.workloads.iter().enumerate() {
        if let Some(detail) = crate::input::validation::not_served(w, opts.version) {
            let (kind, api_version) = (w.kind.as_str().to_string(), w.api_version.clone());
            errors.push(InputError::NotServed { doc: w.doc.clone(), kind, api_version, detail });
            not_served.push(i);
        }
    }
    let validated =
        manifests.workloads.iter().enumerate().filter(|(i, w)| !not_served.contains(i) && !read_from_a_cluster(w));
    let classes = priority_classes(manifests);
    for (_, w) in validated {
        // The Priority admission plugin refuses a Pod whose class does not exist (a
        // controller's pods are refused when it creates them: `failedCreate`).
        if w.kind == WorkloadKind::Pod {
            let mut spec = w.template.spec.clone();
            if let Err(refused) = classes.admit(&mut spec) {
                let (doc, name, reason) = (w.doc.clone(), w.name.clone(), refused.to_string());
                errors.push(InputError::Forbidden { doc, resource: "pods", name, reason });
            }
        }
        for error in validate_workload(w, gates) {
            errors.push(InputError::Invalid { doc: w.doc.clone(), error });
        }
        let templates = crate::input::field::FieldPath::root("spec").child("volumeClaimTemplates");
        for (i, t) in w.state.claim_templates.iter().enumerate() {
            for error in validation::claim_spec_errors(&t.spec, &templates.index(i).child("spec")) {
                errors.push(InputError::Invalid { doc: w.doc.clone(), error });
            }
        }
    }
    // Storage objects written by hand (not read back from a cluster, which admitted them).
    let written = |m: &ObjectMeta| m.uid.is_empty() || m.creation_timestamp.is_none();
    let storage = &manifests.storage;
    let mut add = |doc: &DocRef, errs: Vec<crate::input::field::FieldError>| {
        errors.extend(errs.into_iter().map(|error| InputError::Invalid { doc: doc.clone(), error }));
    };
    for (doc, c) in storage.claims.iter().filter(|(_, c)| written(&c.metadata)) {
        add(doc, validation::validate_persistent_volume_claim(c));
    }
    for (doc, v) in storage.volumes.iter().filter(|(_, v)| written(&v.metadata)) {
        add(doc, validation::validate_persistent_volume(v));
    }
    for (doc, c) in storage.classes.iter().filter(|(_, c)| written(&c.metadata)) {
        add(doc, validation::validate_storage_class(c));
    }
    for (doc, n) in storage.csi_nodes.iter().filter(|(_, n)| written(&n.metadata)) {
        add(doc, validation::validate_csi_node(n));
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors)
    }
}

/// A Pod that carries what only the API server writes (a uid and a creation timestamp): read
/// back from a cluster, so validated when it was created. Its controller's template, if any,
/// is validated; re-validating each of a snapshot's 100,000 pods was half of a simulation.
fn read_from_a_cluster(w: &Workload) -> bool {
    w.kind == WorkloadKind::Pod && !w.metadata.uid.is_empty() && w.metadata.creation_timestamp.is_some()
}

/// What the controllers will create, decided before any pod is placed.
struct Plan {
    /// Each workload's [`controllers::pod_owner`]; for a Deployment whose pods name their
    /// ReplicaSet, that ReplicaSet.
    owners: Vec<Option<PodOwner>>,
    /// Deployments whose template is none of their ReplicaSets' in the input: the Deployment
    /// controller rolls them out to a new ReplicaSet, which replaces the old ones' pods.
    rolled_out: BTreeSet<usize>,
    /// For the other Deployments with ReplicaSets in the input, the current one: the one that
    /// takes the Deployment's scaling.
    current_revision: BTreeMap<usize, usize>,
}

impl Plan {
    fn new(manifests: &Manifests, ownership: &Ownership) -> Self {
        let workloads = &manifests.workloads;
        let mut owners = controllers::pod_owners(manifests);
        let mut rolled_out = BTreeSet::new();
        let mut current_revision = BTreeMap::new();
        for (i, w) in workloads.iter().enumerate() {
            if w.kind != WorkloadKind::Deployment || ownership.role(i) != &Role::Own {
                continue;
            }
            let revisions: Vec<usize> = ownership.revisions(i).collect();
            if revisions.is_empty() {
                // New pods join the ReplicaSet the existing ones name.
                let replica_set = ownership.members(i).find_map(|m| match (ownership.role(m), workloads.get(m)) {
                    (Role::DeploymentPod { replica_set, .. }, Some(pod)) => {
                        let hash = pod.template.metadata.labels.get(controllers::POD_TEMPLATE_HASH_LABEL)?;
                        Some((replica_set.clone(), hash.clone()))
                    }
                    _ => None,
                });
                if let (Some((name, hash)), Some(Some(owner))) = (replica_set, owners.get_mut(i)) {
                    owner.join_replica_set(name, hash);
                }
                continue;
            }
            let current = revisions
                .iter()
                .copied()
                .find(|&r| workloads.get(r).is_some_and(|rs| controllers::same_template(&w.template, &rs.template)));
            match current {
                Some(r) => {
                    current_revision.insert(i, r);
                }
                None => {
                    rolled_out.insert(i);
                }
            }
        }
        Self { owners, rolled_out, current_revision }
    }

    fn owner(&self, i: usize) -> Option<&PodOwner> {
        self.owners.get(i).and_then(Option::as_ref)
    }
}

struct Simulation<'a> {
    opts: &'a SimulateOptions,
    cfg: SchedulerConfig,
    nodes: Vec<NodeInfo>,
    /// Where the next cycle starts searching, and how many bound pods have pod (anti-)affinity
    /// terms (counted by [`Simulation::bind`], through which every pod comes to a node), as a
    /// running kube-scheduler carries them.
    running: Running,
    index: BTreeMap<String, usize>,
    warnings: Vec<String>,
    evictions: Vec<Eviction>,
    /// Pods placed on nodes with NoExecute taints, with their tolerations, for the NoExecute
    /// check at the end.
    placed: Vec<(String, String, usize, Vec<Toleration>)>,
    requests: RequestsMemo,
    /// The cluster's PriorityClasses, for the Priority admission plugin.
    priority_classes: PriorityClasses,
    /// The pods preemption deleted, in order, with who preempted them.
    preempted: Vec<Preempted>,
    /// Shares consecutive bound pods' namespaces and labels.
    placed_pods: PlacedPods,
    /// Static entries of the workloads scheduled so far, for later ones that read the same.
    static_seeds: StaticSeeds,
    reports: Vec<WorkloadReport>,
    /// Step 3 stops after this workload (see [`simulate_once`]).
    until: Option<usize>,
    /// The existing pods by namespace once step 1 bound them, for the first spreading count
    /// of each workload scheduled after.
    pod_index: Option<std::sync::Arc<PodIndex>>,
    recorded_cycle: Option<ScheduleResult>,
}

/// The requests of the last pod asked about, with the spec fields they are computed from: a
/// workload's pods share their containers, so each workload computes them once instead of
/// once per cycle and once per binding. Only what `pod_requests` reads is compared (each
/// container's resources and restart policy): comparing whole containers (env, probes,
/// mounts) for each of a snapshot's 100,000 pods cost more than the requests.
#[derive(Default)]
struct RequestsMemo {
    key: Option<RequestsKey>,
    /// Shared with the pods bound with them ([`PlacedPod::requests`]).
    value: Arc<PodRequests>,
}

#[derive(PartialEq)]
struct RequestsKey {
    init_containers: Vec<ContainerRequests>,
    containers: Vec<ContainerRequests>,
    overhead: ResourceList,
    resources: Option<ResourceRequirements>,
}

/// What a container adds to its pod's requests.
#[derive(PartialEq)]
struct ContainerRequests {
    resources: ResourceRequirements,
    restart_policy: Option<String>,
}

impl ContainerRequests {
    fn of(c: &Container) -> Self {
        Self { resources: c.resources.clone(), restart_policy: c.restart_policy.clone() }
    }

    fn same(&self, c: &Container) -> bool {
        self.resources == c.resources && self.restart_policy == c.restart_policy
    }
}

impl RequestsKey {
    fn of(spec: &PodSpec) -> Self {
        Self {
            init_containers: spec.init_containers.iter().map(ContainerRequests::of).collect(),
            containers: spec.containers.iter().map(ContainerRequests::of).collect(),
            overhead: spec.overhead.clone(),
            resources: spec.resources.clone(),
        }
    }

    fn same(&self, spec: &PodSpec) -> bool {
        let same_list = |key: &[ContainerRequests], list: &[Container]| {
            key.len() == list.len() && key.iter().zip(list).all(|(k, c)| k.same(c))
        };
        same_list(&self.containers, &spec.containers)
            && same_list(&self.init_containers, &spec.init_containers)
            && self.overhead == spec.overhead
            && self.resources == spec.resources
    }
}

impl RequestsMemo {
    fn get(&mut self, spec: &PodSpec, cfg: &SchedulerConfig) -> &Arc<PodRequests> {
        if !self.key.as_ref().is_some_and(|k| k.same(spec)) {
            self.key = Some(RequestsKey::of(spec));
            self.value = Arc::new(PodRequests::of(spec, cfg));
        }
        &self.value
    }
}

/// One entry of the scheduling queue's order over the input ([`Simulation::run`]).
#[derive(Debug, Clone, Copy)]
enum Turn {
    /// An existing pod of the input that waits for a node.
    Waiting(usize),
    /// A controller's missing pods, or a manifest's own pod.
    Controller(usize),
}

impl Turn {
    fn workload(self) -> usize {
        match self {
            Turn::Waiting(i) | Turn::Controller(i) => i,
        }
    }
}

/// What step 3 reads: the input, its ownership, the plan, and the existing pods.
#[derive(Clone, Copy)]
struct RunState<'r> {
    workloads: &'r [Arc<Workload>],
    ownership: &'r Ownership,
    plan: &'r Plan,
    existing: &'r Existing<'r>,
}

/// Where the existing pods of the input stand after the first pass, per controller.
#[derive(Default)]
struct Existing<'w> {
    /// Active (neither finished, terminating nor deleted) pods by their direct owner.
    active: BTreeMap<usize, i64>,
    /// Succeeded pods by their direct owner (a Job's completions).
    succeeded: BTreeMap<usize, i64>,
    /// Pod names by direct owner, so new pods get names not taken (the input's own strings:
    /// a copy of each of a snapshot's 100,000 names was a tenth of binding them).
    names: BTreeMap<usize, BTreeSet<&'w str>>,
    /// For each DaemonSet, the nodes its active pods are for.
    daemon_nodes: BTreeMap<usize, BTreeSet<String>>,
}

impl Existing<'_> {
    fn active(&self, owner: usize) -> i64 {
        self.active.get(&owner).copied().unwrap_or(0)
    }

    /// Whether `name` is one of `owner`'s pods.
    fn taken(&self, owner: usize, name: &str) -> bool {
        self.names.get(&owner).is_some_and(|names| names.contains(name))
    }
}

impl<'a> Simulation<'a> {
    fn new(manifests: &Manifests, opts: &'a SimulateOptions, cfg: SchedulerConfig) -> Self {
        let mut warnings = Vec::new();
        let mut nodes: Vec<NodeInfo> = Vec::with_capacity(manifests.nodes.len());
        let mut index = BTreeMap::new();
        let mut first_doc: BTreeMap<&str, &DocRef> = BTreeMap::new();
        for (doc, node) in &manifests.nodes {
            if let Some(first) = first_doc.insert(&node.metadata.name, doc) {
                let same = manifests.nodes.iter().find(|(d, _)| d == first).is_some_and(|(_, n)| n == node);
                let how = if same { "" } else { " with other content; the first is used" };
                warnings.push(format!("{doc}: the same Node as {first}{how}; given twice, simulated once"));
                first_doc.insert(&node.metadata.name, first);
                continue;
            }
            let info = NodeInfo::shared(node.clone());
            if info.allocatable.is_none() {
                warnings.push(format!(
                    "Node {} has no status.allocatable: resources and pod count are not checked on it",
                    info.name()
                ));
            }
            index.insert(info.name().to_string(), nodes.len());
            nodes.push(info);
        }
        if nodes.is_empty() && !manifests.workloads.is_empty() {
            warnings.push("no Node in the input: every pod stays Pending (0/0 nodes)".into());
        }
        warnings.extend(manifests.ignored.iter().map(ignored_warning));
        let running = Running::new(&nodes, cfg.percentage_of_nodes_to_score);
        Self {
            opts,
            cfg,
            nodes,
            running,
            index,
            warnings,
            evictions: Vec::new(),
            placed: Vec::new(),
            requests: RequestsMemo::default(),
            priority_classes: priority_classes(manifests),
            preempted: Vec::new(),
            placed_pods: PlacedPods::default(),
            static_seeds: StaticSeeds::default(),
            reports: Vec::new(),
            until: None,
            pod_index: None,
            recorded_cycle: None,
        }
    }

    /// In three passes:
    /// 1. the input's existing pods hold their nodes;
    /// 2. its pods that wait for a node are scheduled in creation order;
    /// 3. each controller, in input order, creates the pods it is missing, each scheduled
    ///    against the cluster as the pods before it left it.
    fn run(&mut self, manifests: &Manifests, ownership: &Ownership, plan: &Plan) {
        let workloads = &manifests.workloads;
        let mut slots: BTreeMap<usize, WorkloadReport> = BTreeMap::new();
        let mut existing = Existing::default();
        let removed = self.removed_by_controllers(workloads, ownership, plan);

        // 1. Existing pods.
        // Each report's pod count, so that its list is allocated once: growing the lists of
        // a snapshot's 100,000 pods one doubling at a time touched twice their memory.
        let mut sizes = vec![0u32; workloads.len()];
        for (i, w) in workloads.iter().enumerate() {
            if w.kind == WorkloadKind::Pod {
                if let Some(n) = slot_of(ownership.role(i), i, ownership).and_then(|(slot, _)| sizes.get_mut(slot)) {
                    *n += 1;
                }
            }
        }
        let mut waiting: Vec<usize> = Vec::new();
        for (i, w) in workloads.iter().enumerate() {
            if w.kind != WorkloadKind::Pod {
                continue;
            }
            let role = ownership.role(i);
            let Some((slot, owner)) = slot_of(role, i, ownership) else { continue };
            let snapshot_pod = SnapshotPod::of(w, role);
            if role == &Role::Own && snapshot_pod.is_none() && !w.is_bound_pod() {
                // A manifest's own pod: created in 3.
                continue;
            }
            let report = slots.entry(slot).or_insert_with(|| {
                let mut report = self.slot_report(slot, workloads, ownership);
                report.pods.reserve(sizes.get(slot).map_or(0, |&n| n as usize));
                report
            });
            let mut pod_report = PodReport::pending(w.name.clone(), None);
            pod_report.snapshot = snapshot_pod;
            if let Some(why) = removed.get(&i) {
                if let Some(s) = pod_report.snapshot.as_mut() {
                    s.removed = Some(why.clone());
                }
                pod_report.node =
                    (!w.template.spec.node_name.is_empty()).then(|| w.template.spec.node_name.as_str().into());
                report.pods.push(pod_report);
                continue;
            }
            if w.pod_status.is_terminal() {
                if w.pod_status.phase == PodStatus::SUCCEEDED {
                    *existing.succeeded.entry(owner).or_default() += 1;
                }
                pod_report.node =
                    (!w.template.spec.node_name.is_empty()).then(|| w.template.spec.node_name.as_str().into());
                report.pods.push(pod_report);
                continue;
            }
            existing.names.entry(owner).or_default().insert(&w.name);
            if w.metadata.deletion_timestamp.is_none() {
                *existing.active.entry(owner).or_default() += 1;
            }
            // The DaemonSet controller counts a terminating pod as its node's daemon pod, and
            // creates none beside it (without surge).
            if workloads.get(owner).is_some_and(|o| o.kind == WorkloadKind::DaemonSet) {
                if let Ok(node) = daemonset::target_node_name(&w.template.spec) {
                    existing.daemon_nodes.entry(owner).or_default().insert(node);
                }
            }
            if !w.is_bound_pod() {
                report.pods.push(pod_report);
                waiting.push(i);
                continue;
            }
            let node = &w.template.spec.node_name;
            match self.index.get(node).copied() {
                Some(n) => {
                    let (spec, notes) = self.admitted(&w.template.spec);
                    if pod_report.snapshot.is_none() && role == &Role::Own {
                        report.defaults = notes;
                    }
                    let started = w.pod_status.start_time.as_deref();
                    pod_report.claims = self.bind_started(n, &w.template.metadata, &spec, started);
                    pod_report.node = self.nodes.get(n).map(|info| info.shared_name().clone());
                }
                None => self
                    .warnings
                    .push(format!("{}: spec.nodeName {node:?} is not a Node in the input; the pod is ignored", w.doc)),
            }
            report.pods.push(pod_report);
        }

        self.pod_index = PodIndex::build(&self.nodes).map(std::sync::Arc::new);

        // 2. and 3. The scheduling queue's order over what waits for a node: the input's pods
        // that wait (oldest first) and, after them, the pods each controller is missing (and
        // the manifests' own pods), in input order; all of them by priority first, highest
        // first (`PrioritySort`). Each pod is scheduled against the cluster as the pods before
        // it left it.
        waiting.sort_by(|&a, &b| {
            let created = |i: usize| workloads.get(i).and_then(|w| w.metadata.creation_timestamp.as_deref());
            match (created(a), created(b)) {
                (Some(x), Some(y)) => x.cmp(y),
                (Some(_), None) => std::cmp::Ordering::Less,
                (None, Some(_)) => std::cmp::Ordering::Greater,
                (None, None) => std::cmp::Ordering::Equal,
            }
        });
        let controllers = (0..workloads.len()).filter(|&i| {
            ownership.role(i) == &Role::Own
                && workloads.get(i).is_some_and(|w| !(w.kind == WorkloadKind::Pod && slots.contains_key(&i)))
        });
        let mut turns: Vec<Turn> =
            waiting.into_iter().map(Turn::Waiting).chain(controllers.map(Turn::Controller)).collect();
        let priority = |i: usize| workloads.get(i).map_or(0, |w| self.priority_classes.priority_of(&w.template.spec));
        turns.sort_by_key(|t| std::cmp::Reverse(priority(t.workload())));
        // Pods of one owner share their template: its static filters and scores, and the
        // spreading counts, are carried from one pod's cycle to the next, as for replicas.
        let mut caches: BTreeMap<usize, StaticCache> = BTreeMap::new();
        for turn in turns {
            match turn {
                Turn::Waiting(i) => {
                    let (Some(w), Some((slot, owner))) = (workloads.get(i), slot_of(ownership.role(i), i, ownership))
                    else {
                        continue;
                    };
                    let Some(mut report) = slots.remove(&slot) else { continue };
                    let w_of = workloads.get(slot).map(|w| &**w).filter(|_| ownership.group_at(slot).is_none());
                    let cache =
                        caches.entry(owner).or_insert_with(|| StaticCache::with_pod_index(self.pod_index.clone()));
                    self.schedule_waiting(&mut report, w, w_of, cache);
                    slots.insert(slot, report);
                }
                Turn::Controller(i) => {
                    let Some(w) = workloads.get(i) else { continue };
                    let mut report = slots.remove(&i).unwrap_or_else(|| self.new_report(w));
                    let state = RunState { workloads, ownership, plan, existing: &existing };
                    self.create_missing(&mut report, i, w, &state);
                    slots.insert(i, report);
                    // What comes after cannot change this workload's pods: lower priorities
                    // do not preempt, and equal ones come later in the queue.
                    if self.until == Some(i) {
                        break;
                    }
                }
            }
        }

        // 4. The pods preemption deleted, and their controllers' replacements.
        self.replace_preempted(&mut slots, workloads, plan);
        for report in slots.values_mut() {
            report.count();
        }
        self.reports = slots.into_values().collect();
        self.check_no_execute();
        self.check_mounts(manifests);
    }

    /// The CSI node plugin check ([`csi_node_plugins`]) over every placed pod with claims.
    fn check_mounts(&mut self, manifests: &Manifests) {
        let Some(storage) = self.cfg.storage.clone() else { return };
        let registrars = csi_node_plugins::registrars(manifests);
        // Where each DaemonSet's pods are, from its report: `Some(true)` a pod is placed on
        // the node, `Some(false)` its pod for the node is pending, `None` it has none there.
        let mut daemon_nodes: BTreeMap<(String, String), BTreeMap<String, bool>> = BTreeMap::new();
        for r in self.reports.iter().filter(|r| r.kind == "DaemonSet") {
            let nodes = daemon_nodes.entry((r.namespace.clone(), r.name.clone())).or_default();
            for p in r.pods.iter().filter(|p| p.is_active()) {
                match &p.node {
                    Some(n) => {
                        nodes.insert(n.to_string(), true);
                    }
                    None => {
                        if let Some(n) = p.name.strip_prefix(&format!("{}-", r.name)) {
                            nodes.entry(n.to_string()).or_insert(false);
                        }
                    }
                }
            }
        }
        let runs_on = |ds: &Workload, node: &str| -> Option<bool> {
            daemon_nodes.get(&(ds.namespace.clone(), ds.name.clone())).and_then(|n| n.get(node).copied())
        };
        let mut problems: Vec<(usize, usize, Vec<CannotMount>)> = Vec::new();
        for (ri, r) in self.reports.iter().enumerate() {
            for (pi, p) in r.pods.iter().enumerate() {
                let Some(node_name) = &p.node else { continue };
                if p.claims.is_empty() || !p.is_active() {
                    continue;
                }
                let Some(node) = self.index.get(&**node_name).and_then(|&i| self.nodes.get(i)).map(NodeInfo::node)
                else {
                    continue;
                };
                let mut found = Vec::new();
                for c in &p.claims {
                    let Some(driver) = csi_node_plugins::claim_driver(&storage, &r.namespace, &c.claim) else {
                        continue;
                    };
                    if !csi_node_plugins::known_driver(&storage, &registrars, &driver) {
                        continue;
                    }
                    let missing =
                        csi_node_plugins::missing_reason(&storage, &registrars, &driver, node, &self.cfg, &runs_on);
                    if let Some((daemon_set, reason)) = missing {
                        found.push(CannotMount {
                            claim: c.claim.clone(),
                            driver,
                            node: node_name.to_string(),
                            daemon_set,
                            reason,
                        });
                    }
                }
                if !found.is_empty() {
                    problems.push((ri, pi, found));
                }
            }
        }
        for (ri, pi, found) in problems {
            if let Some(p) = self.reports.get_mut(ri).and_then(|r| r.pods.get_mut(pi)) {
                p.cannot_mount = found;
            }
        }
    }

    /// Existing pods a controller deletes before anything else happens, and why: an old
    /// ReplicaSet's pods when the Deployment is rolled out; a DaemonSet's pods on nodes it
    /// must no longer run on.
    fn removed_by_controllers(
        &self,
        workloads: &[Arc<Workload>],
        ownership: &Ownership,
        plan: &Plan,
    ) -> BTreeMap<usize, String> {
        let mut removed = BTreeMap::new();
        let mut checks: BTreeMap<usize, daemonset::DaemonNodeCheck> = BTreeMap::new();
        for (i, w) in workloads.iter().enumerate() {
            let Role::Member { of, owner } = ownership.role(i) else { continue };
            if plan.rolled_out.contains(of) && owner != of {
                let deployment = workloads.get(*of).map(|d| d.name.as_str()).unwrap_or_default();
                let replica_set = workloads.get(*owner).map(|d| d.name.as_str()).unwrap_or_default();
                removed.insert(
                    i,
                    format!("replaced: Deployment {deployment}'s template differs from ReplicaSet {replica_set}'s, so the Deployment controller rolls it out to a new ReplicaSet"),
                );
                continue;
            }
            let Some(ds) = workloads.get(*of).filter(|d| d.kind == WorkloadKind::DaemonSet) else { continue };
            let Ok(target) = daemonset::target_node_name(&w.template.spec) else { continue };
            let Some(node) = self.index.get(&target).and_then(|&n| self.nodes.get(n)) else { continue };
            let check =
                checks.entry(*of).or_insert_with(|| daemonset::DaemonNodeCheck::new(&ds.template.spec, &self.cfg));
            let verdict = check.check(node.node());
            if !verdict.should_continue_running {
                let why = match &verdict.blocked_by {
                    Some(Blocker::Taint(t)) => format!("untolerated taint {t}"),
                    Some(Blocker::NodeAffinity) => {
                        "the node no longer matches the DaemonSet's node selector or affinity".into()
                    }
                    Some(Blocker::NodeName(n)) => format!("the template asks for node {n:?}"),
                    None => String::new(),
                };
                removed.insert(
                    i,
                    format!("deleted by the DaemonSet controller: the pod must not run on {target} ({why})"),
                );
            }
        }
        removed
    }

    /// The report a slot starts with: the controller's, or an orphan group's.
    fn slot_report(&self, slot: usize, workloads: &[Arc<Workload>], ownership: &Ownership) -> WorkloadReport {
        let group = ownership.group_at(slot);
        match (group, workloads.get(slot)) {
            (Some(g), _) => WorkloadReport {
                kind: g.kind.as_str(),
                namespace: g.namespace.clone(),
                name: g.name.clone(),
                not_in_input: true,
                ..self.new_report_empty()
            },
            (None, Some(w)) => self.new_report(w),
            (None, None) => self.new_report_empty(),
        }
    }

    /// Schedules an existing pod that waits for a node; `w_of` is its controller in the input,
    /// whose fixes it gets.
    fn schedule_waiting(
        &mut self,
        report: &mut WorkloadReport,
        w: &Workload,
        w_of: Option<&Workload>,
        cache: &mut StaticCache,
    ) {
        let Some(position) = report.pods.iter().rposition(|p| p.name == w.name && p.node.is_none()) else { return };
        let mut spec = w.template.spec.clone();
        // Read back from a cluster, so admitted there: nothing here can refuse it.
        let _ = self.admit(&mut spec);
        let pod = Pod { metadata: w.template.metadata.clone(), spec, status: Default::default() };
        let waiting = NotAttempted::of(&pod.spec);
        // The report's first pod gives its node map; the others need verdicts only when they
        // find no node (for the message and the fixes).
        let explain = report.nodes.is_empty();
        let detail = if explain { Detail::Explain } else { Detail::Decision };
        self.static_seeds.seed(cache, &pod.spec, &self.nodes);
        let requests = self.requests.get(&pod.spec, &self.cfg).clone();
        let mut result =
            schedule_searching(&pod, &self.nodes, &self.cfg, detail, Some(cache), &requests, Some(&mut self.running));
        let preemption = self.settle_preemption(&pod, &mut result, &requests);
        if explain {
            self.static_seeds.keep(cache);
            report.nodes = NodeReports::of_verdicts(&result.verdicts);
            self.record(report, &result);
        }
        let Some(pod_report) = report.pods.get_mut(position) else { return };
        if let Some(waiting) = waiting {
            pod_report.not_attempted = Some(waiting);
            return;
        }
        if result.node.is_none() && report.fixes.is_empty() {
            if let Some(w_of) = w_of {
                report.fixes = fixes::suggest(w_of, &pod, &result, &self.nodes, &self.cfg);
            }
        }
        let own_nodes = (!explain && result.node.is_none()).then(|| report.own_nodes(&result.verdicts)).flatten();
        let Some(pod_report) = report.pods.get_mut(position) else { return };
        pod_report.preemption = preemption;
        if let Some(s) = pod_report.snapshot.as_mut() {
            s.compare(result.message.as_deref());
        }
        match result.node {
            Some(n) => {
                pod_report.node = self.nodes.get(n).map(|info| info.shared_name().clone());
                let claims = self.bind(n, &pod.metadata, &pod.spec);
                if let Some(pod_report) = report.pods.get_mut(position) {
                    pod_report.claims = claims;
                }
            }
            None => {
                pod_report.message = result.message;
                pod_report.claims = self.cfg.storage.as_deref().map(|s| claim_uses(&pod, s)).unwrap_or_default();
                pod_report.nodes = own_nodes;
            }
        }
    }

    /// Step 3 for one controller (or a manifest's own pod): the pods it is missing.
    fn create_missing(&mut self, report: &mut WorkloadReport, i: usize, w: &Workload, state: &RunState) {
        let RunState { workloads, ownership, plan, existing } = *state;
        let owner = plan.owner(i);
        let taken = |o: usize| move |name: &str| existing.taken(o, name);
        let succeeded = |o: usize| existing.succeeded.get(&o).copied().unwrap_or(0);
        match w.kind {
            WorkloadKind::Pod => {
                report.desired = 1;
                self.create(report, w, w, None, vec![w.name.clone()]);
            }
            WorkloadKind::DaemonSet => {
                let covered = existing.daemon_nodes.get(&i).cloned().unwrap_or_default();
                self.run_daemonset(report, w, owner, &covered);
            }
            WorkloadKind::Deployment => {
                report.desired = w.replicas;
                let revisions: Vec<usize> = ownership.revisions(i).collect();
                if revisions.is_empty() || plan.rolled_out.contains(&i) {
                    // New pods join the ReplicaSet the existing ones name, or the new one.
                    let named = plan.rolled_out.contains(&i) || existing.names.get(&i).is_some_and(|n| !n.is_empty());
                    let prefix = owner.filter(|_| named).map_or_else(|| w.name.clone(), |o| o.reference.name.clone());
                    let missing =
                        if plan.rolled_out.contains(&i) { w.replicas } else { w.replicas - existing.active(i) };
                    let names = new_pod_names(&prefix, taken(i), missing);
                    self.create(report, w, w, owner, names);
                    return;
                }
                // The current ReplicaSet takes the Deployment's scaling; the others keep
                // their own replicas.
                let current = plan.current_revision.get(&i).copied();
                let others: i64 = revisions
                    .iter()
                    .filter(|&&r| Some(r) != current)
                    .filter_map(|&r| workloads.get(r))
                    .map(|rs| rs.replicas)
                    .sum();
                for r in revisions {
                    let Some(rs) = workloads.get(r) else { continue };
                    let wanted = if Some(r) == current { (w.replicas - others).max(0) } else { rs.replicas };
                    let names = new_pod_names(&rs.name, taken(r), wanted - existing.active(r));
                    self.create(report, w, rs, plan.owner(r), names);
                }
            }
            WorkloadKind::CronJob => {
                let jobs: Vec<usize> = ownership.revisions(i).collect();
                if jobs.is_empty() {
                    // The next run's Job, unless the CronJob is suspended.
                    report.desired = job_wanted(w, 0);
                    let names = new_pod_names(&w.name, taken(i), report.desired);
                    self.create(report, w, w, owner, names);
                    return;
                }
                for r in jobs {
                    let Some(job) = workloads.get(r) else { continue };
                    let wanted = job_wanted(job, succeeded(r));
                    report.desired += wanted;
                    let names = new_pod_names(&job.name, taken(r), wanted - existing.active(r));
                    self.create(report, w, job, plan.owner(r), names);
                }
            }
            WorkloadKind::Job => {
                report.desired = job_wanted(w, succeeded(i));
                let names = new_pod_names(&w.name, taken(i), report.desired - existing.active(i));
                self.create(report, w, w, owner, names);
            }
            WorkloadKind::StatefulSet => {
                report.desired = w.replicas;
                // The missing ordinals below replicas; a terminating pod's ordinal waits for
                // it to go.
                let taken = taken(i);
                let names: Vec<String> =
                    (0..w.replicas).map(|k| format!("{}-{k}", w.name)).filter(|n| !taken(n)).collect();
                if w.state.parallel {
                    self.create(report, w, w, owner, names);
                    return;
                }
                // OrderedReady: one pod at a time, each once the ones before run; a pod that
                // finds no node stops the rest from being created.
                if report.pods.iter().any(|p| p.is_active() && p.node.is_none()) {
                    return;
                }
                self.create_until_pending(report, w, w, owner, names, true);
            }
            WorkloadKind::ReplicaSet | WorkloadKind::ReplicationController => {
                report.desired = w.replicas;
                let names = new_pod_names(&w.name, taken(i), w.replicas - existing.active(i));
                self.create(report, w, w, owner, names);
            }
        }
    }

    /// Keeps the cycle that gave `report` its verdicts, when it is the one asked for.
    fn record(&mut self, report: &WorkloadReport, result: &ScheduleResult) {
        if self.opts.record_cycle.as_ref().is_some_and(|key| key.names(report)) {
            self.recorded_cycle = Some(result.clone());
        }
    }

    fn finish(self) -> Report {
        let release = Release { version: self.opts.version, source: self.opts.version_source.clone() };
        Report {
            kube_version: self.opts.version.to_string(),
            kube_version_note: release.note(),
            kube_version_source: release.source,
            workloads: self.reports,
            warnings: self.warnings,
            evictions: self.evictions,
            changes: None,
            recorded_cycle: self.recorded_cycle,
        }
    }

    fn new_report_empty(&self) -> WorkloadReport {
        WorkloadReport {
            kind: "",
            namespace: String::new(),
            name: String::new(),
            desired: 0,
            current: 0,
            scheduled: 0,
            pending: 0,
            not_in_input: false,
            pods: Vec::new(),
            nodes: NodeReports::default(),
            fixes: Vec::new(),
            defaults: Vec::new(),
            failed_create: None,
            violations: Vec::new(),
            counted: false,
        }
    }

    fn new_report(&self, w: &Workload) -> WorkloadReport {
        WorkloadReport {
            kind: w.kind.as_str(),
            namespace: w.namespace.clone(),
            name: w.name.clone(),
            ..self.new_report_empty()
        }
    }

    /// The pod a workload creates: its template, what its controller adds (`owner`, from
    /// [`controllers::pod_owner`]), API defaults, the given name. A bare Pod keeps its own owner references.
    fn make_pod(&self, w: &Workload, owner: Option<&PodOwner>, name: String, spec: PodSpec) -> Pod {
        let template_meta = &w.template.metadata;
        let mut labels = template_meta.labels.clone();
        let owner_references = match owner {
            Some(owner) => {
                if let Some((k, v)) = &owner.label {
                    labels.insert(k.clone(), v.clone());
                }
                vec![owner.reference.clone()]
            }
            None if w.kind == WorkloadKind::Pod => template_meta.owner_references.clone(),
            None => Vec::new(),
        };
        Pod {
            metadata: ObjectMeta {
                name,
                namespace: Some(w.namespace.clone()),
                labels,
                annotations: template_meta.annotations.clone(),
                owner_references,
                ..Default::default()
            },
            spec,
            status: Default::default(),
        }
    }

    /// `spec` with [`Self::admit`]'s defaults, and what was added; borrowed when admission
    /// adds nothing (every pod read back from a cluster, admitted there): binding 100,000 of
    /// them then copies no spec.
    fn admitted<'s>(&self, spec: &'s PodSpec) -> (std::borrow::Cow<'s, PodSpec>, Vec<String>) {
        if defaults::admission_changes_nothing(spec, &self.opts.gates, self.opts.admission_defaults)
            && !self.priority_classes.changes(spec)
        {
            return (std::borrow::Cow::Borrowed(spec), Vec::new());
        }
        let mut spec = spec.clone();
        // A bound Pod of the input whose class is missing was refused by `validate`.
        let notes = self.admit(&mut spec).unwrap_or_default();
        (std::borrow::Cow::Owned(spec), notes)
    }

    /// The claims the controllers create with the pod: a StatefulSet's replica `i` gets a
    /// volume per claim template naming claim `<template>-<set>-<i>` (replacing a template
    /// volume of that name, as the StatefulSet controller's `updateStorage` does), and that
    /// claim unless it exists; each generic ephemeral volume's claim `<pod>-<volume>` is
    /// created owned by the pod (the ephemeral volume controller). Nothing without storage.
    fn create_claims(&mut self, source: &Workload, pod: &mut Pod) {
        let Some(storage) = self.cfg.storage.as_mut() else { return };
        let namespace = source.namespace.clone();
        if source.kind == WorkloadKind::StatefulSet && !source.state.claim_templates.is_empty() {
            let ordinal = pod.metadata.name.rsplit('-').next().and_then(|o| o.parse::<i64>().ok()).unwrap_or(0);
            let selector_labels = source.selector.as_ref().map(|s| s.match_labels.clone()).unwrap_or_default();
            for template in &source.state.claim_templates {
                let claim_name = stateful_set_claim_name(&template.metadata.name, &source.name, ordinal);
                let volume = Volume {
                    name: template.metadata.name.clone(),
                    persistent_volume_claim: Some(PersistentVolumeClaimVolumeSource {
                        claim_name: claim_name.clone(),
                        read_only: false,
                    }),
                    ..Default::default()
                };
                match pod.spec.volumes.iter_mut().find(|v| v.name == template.metadata.name) {
                    Some(v) => *v = volume,
                    None => pod.spec.volumes.push(volume),
                }
                let mut claim = template.clone();
                claim.metadata.name = claim_name;
                claim.metadata.namespace = Some(namespace.clone());
                claim.metadata.labels.extend(selector_labels.iter().map(|(k, v)| (k.clone(), v.clone())));
                claim.status = Default::default();
                Arc::make_mut(storage).create_claim(claim);
            }
        }
        for v in &pod.spec.volumes {
            let Some(template) = v.ephemeral.as_ref().and_then(|e| e.volume_claim_template.as_ref()) else { continue };
            let claim = PersistentVolumeClaim {
                metadata: ObjectMeta {
                    name: ephemeral_claim_name(&pod.metadata.name, &v.name),
                    namespace: Some(namespace.clone()),
                    labels: template.metadata.labels.clone(),
                    annotations: template.metadata.annotations.clone(),
                    ..Default::default()
                },
                spec: template.spec.clone(),
                status: Default::default(),
            };
            Arc::make_mut(storage).create_claim(claim);
        }
    }

    /// Admission defaults that change placement, and the Priority admission plugin; returns
    /// what was added, or why the API server refuses the pod.
    fn admit(&self, spec: &mut PodSpec) -> Result<Vec<String>, PriorityError> {
        let mut notes = api_defaults(spec, &self.opts.gates);
        if self.opts.admission_defaults {
            notes.extend(default_toleration_seconds(spec));
        }
        if self.priority_classes.changes(spec) {
            self.priority_classes.admit(spec)?;
            let class = spec.priority_class_name.as_deref().unwrap_or_default();
            let priority = crate::cluster::priority::pod_priority(spec);
            notes.push(format!("Priority admission: priorityClassName {class} -> spec.priority {priority}"));
        }
        Ok(notes)
    }

    /// Creates one pod of `source`'s template per name, owned by `owner`, and schedules each in
    /// turn; `w` is the workload reported (a Deployment, for its ReplicaSets' pods), whose
    /// fixes they get.
    fn create(
        &mut self,
        report: &mut WorkloadReport,
        w: &Workload,
        source: &Workload,
        owner: Option<&PodOwner>,
        names: Vec<String>,
    ) {
        self.create_until_pending(report, w, source, owner, names, false);
    }

    /// [`Self::create`]; with `stop_at_pending` (a StatefulSet's OrderedReady), the first
    /// pod that finds no node is the last one created.
    fn create_until_pending(
        &mut self,
        report: &mut WorkloadReport,
        w: &Workload,
        source: &Workload,
        owner: Option<&PodOwner>,
        names: Vec<String>,
        stop_at_pending: bool,
    ) {
        let mut spec = source.template.spec.clone();
        let notes = match self.admit(&mut spec) {
            Ok(notes) => notes,
            Err(refused) => {
                if !names.is_empty() {
                    report.failed_create = Some(failed_create(source, owner, &refused));
                }
                return;
            }
        };
        if report.defaults.is_empty() && (!names.is_empty() || report.pods.is_empty()) {
            report.defaults = notes;
        }
        if let Some(waiting) = NotAttempted::of(&spec) {
            // No cycle runs for these pods: they hold nothing. Still say where one would go
            // once the scheduler takes it.
            if report.nodes.is_empty() {
                let pod = self.make_pod(source, owner, names.first().cloned().unwrap_or_default(), spec);
                report.nodes = NodeReports::of_verdicts(&schedule(&pod, &self.nodes, &self.cfg, true).verdicts);
            }
            report.pods.extend(
                names
                    .into_iter()
                    .map(|name| PodReport { not_attempted: Some(waiting.clone()), ..PodReport::pending(name, None) }),
            );
            return;
        }
        if names.is_empty() {
            if report.nodes.is_empty() && report.pods.is_empty() {
                // Still say where a pod would go: that is the question a scaled-to-zero
                // workload asks.
                let pod = self.make_pod(source, owner, pod_name(w, 0), spec);
                report.nodes = NodeReports::of_verdicts(&schedule(&pod, &self.nodes, &self.cfg, true).verdicts);
            }
            return;
        }
        // A replica that found no node leaves the cluster unchanged, so every later replica,
        // identical but for its name, gets the same answer.
        let mut pending: Option<String> = None;
        // Not so for replicas with claims of their own (a StatefulSet's): each has its own.
        let own_claims = self.cfg.storage.is_some()
            && (!source.state.claim_templates.is_empty() || spec.volumes.iter().any(|v| v.ephemeral.is_some()));
        // Replicas share their spec, so the filters and scores that depend only on the spec
        // and the Node objects are computed once for the workload.
        let mut cache = StaticCache::with_pod_index(self.pod_index.clone());
        for name in names {
            if let Some(message) = pending.as_ref().filter(|_| !own_claims) {
                report.pods.push(PodReport::pending(name, Some(message.clone())));
                continue;
            }
            let mut pod = self.make_pod(source, owner, name.clone(), spec.clone());
            self.create_claims(source, &mut pod);
            // The first pod's verdicts are the report's node map; later ones need verdicts
            // only when they find no node (for the fixes).
            let explain = report.nodes.is_empty();
            let detail = if explain { Detail::Explain } else { Detail::Decision };
            self.static_seeds.seed(&mut cache, &pod.spec, &self.nodes);
            let requests = self.requests.get(&pod.spec, &self.cfg).clone();
            let mut result = schedule_searching(
                &pod,
                &self.nodes,
                &self.cfg,
                detail,
                Some(&mut cache),
                &requests,
                Some(&mut self.running),
            );
            let preemption = self.settle_preemption(&pod, &mut result, &requests);
            if explain {
                self.static_seeds.keep(&cache);
                report.nodes = NodeReports::of_verdicts(&result.verdicts);
                self.record(report, &result);
            }
            // The fixes are for the first pod that found no node (a StatefulSet's later
            // replicas, with claims of their own, may fail otherwise: each has its `nodes`).
            if result.node.is_none() && report.fixes.is_empty() {
                report.fixes = fixes::suggest(w, &pod, &result, &self.nodes, &self.cfg);
            }
            match result.node {
                Some(i) => {
                    let claims = self.bind(i, &pod.metadata, &pod.spec);
                    let node = self.nodes.get(i).map(|n| n.name().to_string()).unwrap_or_default();
                    report.pods.push(PodReport { claims, preemption, ..PodReport::scheduled(name, node) });
                }
                None => {
                    pending = result.message.clone();
                    let claims = self.cfg.storage.as_deref().map(|s| claim_uses(&pod, s)).unwrap_or_default();
                    let nodes = if explain { None } else { report.own_nodes(&result.verdicts) };
                    report.pods.push(PodReport { claims, nodes, ..PodReport::pending(name, result.message) });
                    if stop_at_pending {
                        return;
                    }
                }
            }
        }
    }

    /// The DaemonSet controller: a pod for each node that should run one and has none of the
    /// input's (`covered`).
    fn run_daemonset(
        &mut self,
        report: &mut WorkloadReport,
        w: &Workload,
        owner: Option<&PodOwner>,
        covered: &BTreeSet<String>,
    ) {
        let template = w.template.spec.clone();
        let mut daemon_spec = template.clone();
        daemonset::add_daemon_tolerations(&mut daemon_spec);
        report.defaults.push(format!(
            "DaemonSet controller tolerations: {}",
            daemon_spec
                .tolerations
                .iter()
                .skip(template.tolerations.len())
                .map(|t| format!("{}:{}", t.key, t.effect))
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let mut eligible = Vec::new();
        // Each node's verdict, by node index: ineligible nodes now, daemon pods' nodes below.
        let mut verdicts: Vec<Option<NodeReport>> = vec![None; self.nodes.len()];
        // The controller's check of every node, in node order: the fixes read it too.
        let should_run = daemonset::DaemonNodeCheck::new(&template, &self.cfg);
        let checks: Vec<daemonset::ShouldRun> = self.nodes.iter().map(|info| should_run.check(info.node())).collect();
        // A taint's report reads the node's taints alone: a tainted pool's nodes (every fourth
        // node, in a cluster's order) share the first one's.
        let mut by_taints: Vec<(&[Taint], NodeReport)> = Vec::new();
        for (i, (info, verdict)) in self.nodes.iter().zip(&checks).enumerate() {
            if verdict.should_run {
                eligible.push(i);
                continue;
            }
            let blocker = &verdict.blocked_by;
            let report = if matches!(blocker, Some(Blocker::Taint(_))) {
                let taints = info.node().spec.taints.as_slice();
                match by_taints.iter().find(|(t, _)| *t == taints) {
                    Some((_, known)) => known.clone(),
                    None => {
                        let report = not_eligible_report(&daemon_spec, info.node(), blocker, &self.cfg);
                        if by_taints.len() < MAX_TAINT_REPORTS {
                            by_taints.push((taints, report.clone()));
                        }
                        report
                    }
                }
            } else {
                not_eligible_report(&daemon_spec, info.node(), blocker, &self.cfg)
            };
            if let Some(slot) = verdicts.get_mut(i) {
                *slot = Some(report);
            }
        }
        report.desired = eligible.len() as i64;
        let mut results: Vec<(usize, ScheduleResult)> = Vec::new();
        // The daemon pods differ only in name and in the node their affinity pins them to,
        // and admission reads neither: one pod is admitted once and re-pinned for each node.
        let mut spec = daemon_spec.clone();
        let admitted_notes = match self.admit(&mut spec) {
            Ok(notes) => notes,
            Err(refused) => {
                report.failed_create = (!eligible.is_empty()).then(|| failed_create(w, owner, &refused));
                Vec::new()
            }
        };
        let refused = report.failed_create.is_some();
        let template_affinity = spec.affinity.take();
        let waiting = NotAttempted::of(&spec);
        let mut pod = self.make_pod(w, owner, String::new(), spec);
        // The daemon pods share their containers, so their requests: computed once, rather than
        // each pod's containers compared with the memo's (quantity by quantity) per node.
        let requests = self.requests.get(&pod.spec, &self.cfg).clone();
        let mut created_any = false;
        // The input's daemon pods by node (the first one of each node: the one kept).
        let mut input_pods: BTreeMap<String, usize> = BTreeMap::new();
        for (k, p) in report.pods.iter().enumerate() {
            if let Some(node) = p.node.as_ref().filter(|_| p.snapshot.as_ref().is_none_or(|s| s.removed.is_none())) {
                input_pods.entry(node.to_string()).or_insert(k);
            }
        }
        for &i in &eligible {
            let Some(node_name) = self.nodes.get(i).map(|n| n.shared_name().clone()) else { continue };
            if covered.contains(&*node_name) {
                if let Some(slot) = verdicts.get_mut(i) {
                    let running = input_pods.get(&*node_name).and_then(|&k| report.pods.get(k));
                    *slot = Some(NodeReport {
                        fits: running.is_some(),
                        plugin: None,
                        reason: None,
                        detail: Some(match running {
                            Some(p) if p.is_active() => format!("daemon pod {} of the input runs here", p.name).into(),
                            Some(p) => {
                                format!("daemon pod {} of the input is here, {}", p.name, p.status_text()).into()
                            }
                            None => "a daemon pod of the input waits for this node".into(),
                        }),
                        score: None,
                        code: None,
                    });
                }
                continue;
            }
            created_any = true;
            match pod.spec.affinity.as_mut() {
                Some(pinned) => daemonset::repin(pinned, &node_name),
                None => pod.spec.affinity = Some(daemonset::pin_to_node(template_affinity.clone(), &node_name)),
            }
            pod.metadata.name = format!("{}-{}", w.name, node_name);
            // The pod is pinned to node i, so only node i is evaluated; the other nodes are
            // counted in the FailedScheduling message as upstream counts them.
            if refused {
                // The API server refuses every daemon pod: none is created.
                continue;
            }
            let mut result = schedule_searching(
                &pod,
                &self.nodes,
                &self.cfg,
                Detail::Candidates { hint: Some(i) },
                None,
                &requests,
                Some(&mut self.running),
            );
            let preemption = self.settle_preemption(&pod, &mut result, &requests);
            let position = result.verdicts.iter().position(|v| *v.node == *node_name);
            if let (Some(verdict), Some(slot)) = (position.and_then(|p| result.verdicts.get(p)), verdicts.get_mut(i)) {
                let mut node_verdict = node_report(verdict);
                if let (Some(p), Some(_)) = (&preemption, result.node) {
                    // It did not fit as the node was; it runs once the victims are gone.
                    node_verdict.fits = true;
                    node_verdict.detail = Some(
                        format!(
                            "fits once DefaultPreemption evicts {} ({}: {})",
                            p.victims.join(", "),
                            node_verdict.plugin.unwrap_or_default(),
                            node_verdict.reason.as_deref().unwrap_or_default()
                        )
                        .into(),
                    );
                    node_verdict.plugin = None;
                    node_verdict.reason = None;
                    node_verdict.code = None;
                }
                *slot = Some(node_verdict);
            }
            if let Some(waiting) = &waiting {
                // The controller creates the pod; the default scheduler never tries it.
                report.pods.push(PodReport {
                    not_attempted: Some(waiting.clone()),
                    ..PodReport::pending(pod.metadata.name.clone(), None)
                });
                continue;
            }
            match result.node {
                Some(n) => {
                    let claims = self.bind(n, &pod.metadata, &pod.spec);
                    let scheduled = PodReport::scheduled(pod.metadata.name.clone(), node_name);
                    report.pods.push(PodReport { claims, preemption, ..scheduled });
                }
                None => {
                    report.pods.push(PodReport::pending(pod.metadata.name.clone(), result.message.clone()));
                }
            }
            // The fixes read the verdict of the daemon pod's own node at this position.
            if let Some(p) = position {
                results.push((p, result));
            }
        }
        if created_any {
            report.defaults.extend(admitted_notes);
        }
        // `kubectl get ds` CURRENT counts the nodes that should run a daemon pod and have one
        // (pending or not); pods on other nodes are misscheduled, not counted.
        let (mut current, mut scheduled) = (0, 0);
        for &i in &eligible {
            let Some(name) = self.nodes.get(i).map(NodeInfo::name) else { continue };
            let verdict = verdicts.get(i).and_then(Option::as_ref);
            if covered.contains(name) {
                current += 1;
                scheduled += i64::from(verdict.is_some_and(|v| v.fits));
            }
        }
        for p in report.pods.iter().filter(|p| p.snapshot.is_none()) {
            current += 1;
            scheduled += i64::from(p.node.is_some());
        }
        report.current = current;
        report.scheduled = scheduled;
        report.pending = current - scheduled;
        report.counted = true;
        let verdicts: Vec<_> =
            self.nodes.iter().zip(verdicts).filter_map(|(n, v)| Some((n.shared_name().clone(), v?))).collect();
        report.nodes = NodeReports::sharing(verdicts.into_iter());
        report.fixes = fixes::suggest_daemonset(w, &template, &checks, &results, &self.nodes, &self.cfg);
    }

    /// After a cycle in which DefaultPreemption nominated a node: the victims are deleted
    /// (the scheduler deletes them at once; the simulation does not wait out their grace
    /// period) and the pod's next cycle runs, on the nominated node first
    /// (`evaluateNominatedNode`). `result` then holds that cycle's decision; the report of
    /// the preemption is returned.
    fn settle_preemption(
        &mut self,
        pod: &Pod,
        result: &mut ScheduleResult,
        requests: &PodRequests,
    ) -> Option<PreemptionReport> {
        let candidate = result.preemption.take()?;
        let node_name = self.nodes.get(candidate.node).map(|n| n.name().to_string()).unwrap_or_default();
        let by = format!("{}/{}", pod.metadata.namespace_or_default(), pod.metadata.name);
        let by_priority = crate::cluster::priority::pod_priority(&pod.spec);
        let uid = Some(pod.metadata.uid.as_str()).filter(|u| !u.is_empty()).unwrap_or(&by);
        for v in &candidate.victims {
            let Some(info) = self.nodes.get_mut(candidate.node) else { break };
            let Some(k) = info.pods().iter().position(|p| *p.namespace == *v.namespace && p.name == v.name) else {
                continue;
            };
            if let Some(placed) = info.unbind(k) {
                self.running.affinity_pods.remove(&placed);
            }
            self.placed.retain(|(ns, name, _, _)| !(*ns == *v.namespace && *name == v.name));
            self.preempted.push(Preempted {
                by: by.clone(),
                by_priority,
                priority: v.priority,
                node: node_name.clone(),
                violates: v.violates.clone(),
                event: format!("Preempted by pod {uid} on node {node_name}"),
                condition: format!("{}: preempting to accommodate a higher priority pod", DEFAULT_SCHEDULER_NAME),
                replaced_by: None,
                namespace: v.namespace.to_string(),
                name: v.name.clone(),
            });
        }
        let report = PreemptionReport {
            node: node_name,
            victims: candidate.victims.iter().map(|v| v.key()).collect(),
            message: result.message.clone().unwrap_or_default(),
        };
        if fits_nominated(pod, &self.nodes, &self.cfg, requests, candidate.node, Some(&self.running)) {
            result.node = Some(candidate.node);
            result.message = None;
        } else {
            // The dry run's PreFilter states were the first cycle's (see
            // `default_preemption`): a whole cycle decides, without preempting again.
            let next = schedule_searching(
                pod,
                &self.nodes,
                &self.cfg,
                Detail::Decision,
                None,
                requests,
                Some(&mut self.running),
            );
            if next.node.is_some() {
                result.node = next.node;
                result.message = None;
            }
        }
        Some(report)
    }

    /// Step 4: each pod preemption deleted is marked in its report, and its controller (when
    /// the input has it) creates a pod in its place, scheduled like any other (it may
    /// preempt pods of lower priority in turn).
    fn replace_preempted(
        &mut self,
        slots: &mut BTreeMap<usize, WorkloadReport>,
        workloads: &[Arc<Workload>],
        plan: &Plan,
    ) {
        if self.preempted.is_empty() {
            return;
        }
        // Where each victim's report entry is, by namespace and name: a snapshot has a report
        // per bare pod, 100,000 of them, too many to search for each victim. Pods created
        // below (replacements, which may be preempted in turn) are searched for.
        let victims: BTreeSet<(&str, &str)> =
            self.preempted.iter().map(|v| (v.namespace.as_str(), v.name.as_str())).collect();
        let mut at: std::collections::HashMap<(String, String), (usize, usize)> = std::collections::HashMap::new();
        for (&slot, r) in slots.iter() {
            for (k, p) in r.pods.iter().enumerate() {
                if p.node.is_some() && victims.contains(&(r.namespace.as_str(), p.name.as_str())) {
                    at.entry((r.namespace.clone(), p.name.clone())).or_insert((slot, k));
                }
            }
        }
        // The reports replacements were added to: where a victim not in `at` can be.
        let mut replaced: BTreeSet<usize> = BTreeSet::new();
        let mut done = 0;
        // Each replacement is one pod of lower priority than the pod that preempted the one
        // it replaces, so the chain ends; the bound is a guard.
        let limit = self.preempted.len() + workloads.len() + 10_000;
        while let Some(victim) = self.preempted.get(done).cloned() {
            done += 1;
            if done > limit {
                break;
            }
            let unmarked = |slot: usize, k: usize| {
                slots
                    .get(&slot)
                    .and_then(|r| r.pods.get(k))
                    .is_some_and(|p| p.name == victim.name && p.preempted.is_none() && p.node.is_some())
            };
            let known = at.get(&(victim.namespace.clone(), victim.name.clone())).copied();
            let found = known.filter(|&(slot, k)| unmarked(slot, k)).or_else(|| {
                replaced.iter().find_map(|&slot| {
                    let r = slots.get(&slot)?;
                    if r.namespace != victim.namespace {
                        return None;
                    }
                    let k = r
                        .pods
                        .iter()
                        .position(|p| p.name == victim.name && p.preempted.is_none() && p.node.is_some())?;
                    Some((slot, k))
                })
            });
            let Some((slot, k)) = found else { continue };
            let Some(mut report) = slots.remove(&slot) else { continue };
            if let Some(p) = report.pods.get_mut(k) {
                p.preempted = Some(victim.clone());
            }
            if report.counted {
                // A DaemonSet counts its pods as it creates them.
                report.current -= 1;
                report.scheduled -= 1;
            }
            let controller = workloads.get(slot).filter(|w| !report.not_in_input && w.kind != WorkloadKind::Pod);
            if let (Some(w), None) = (controller, self.until) {
                let replaced_by = self.replace(&mut report, w, plan.owner(slot), &victim);
                replaced.insert(slot);
                if let Some(p) = report.pods.get_mut(k).and_then(|p| p.preempted.as_mut()) {
                    p.replaced_by = replaced_by;
                }
            }
            slots.insert(slot, report);
        }
    }

    /// The controller's pod in place of `victim`: a StatefulSet's has its name, a DaemonSet's
    /// is for its node, the others' get a new one. Its name.
    fn replace(
        &mut self,
        report: &mut WorkloadReport,
        w: &Workload,
        owner: Option<&PodOwner>,
        victim: &Preempted,
    ) -> Option<String> {
        let taken: BTreeSet<String> = report.pods.iter().map(|p| p.name.clone()).collect();
        if w.kind == WorkloadKind::DaemonSet {
            let node = self.index.get(&victim.node).copied()?;
            let mut spec = w.template.spec.clone();
            daemonset::add_daemon_tolerations(&mut spec);
            self.admit(&mut spec).ok()?;
            let node_name = self.nodes.get(node)?.shared_name().clone();
            spec.affinity = Some(daemonset::pin_to_node(spec.affinity.take(), &node_name));
            let pod = self.make_pod(w, owner, victim.name.clone(), spec);
            let requests = self.requests.get(&pod.spec, &self.cfg).clone();
            let detail = Detail::Candidates { hint: Some(node) };
            let mut result =
                schedule_searching(&pod, &self.nodes, &self.cfg, detail, None, &requests, Some(&mut self.running));
            let preemption = self.settle_preemption(&pod, &mut result, &requests);
            let mut pod_report = match result.node {
                Some(n) => {
                    let claims = self.bind(n, &pod.metadata, &pod.spec);
                    PodReport { claims, ..PodReport::scheduled(pod.metadata.name.clone(), node_name) }
                }
                None => PodReport::pending(pod.metadata.name.clone(), result.message),
            };
            pod_report.preemption = preemption;
            report.current += 1;
            report.scheduled += i64::from(pod_report.node.is_some());
            report.pods.push(pod_report);
            return Some(victim.name.clone());
        }
        let name = if w.kind == WorkloadKind::StatefulSet {
            victim.name.clone()
        } else {
            let prefix = victim.name.rsplit_once('-').map_or(victim.name.as_str(), |(p, _)| p);
            new_pod_names(prefix, |n| taken.contains(n), 1).pop()?
        };
        self.create(report, w, w, owner, vec![name.clone()]);
        Some(name)
    }

    fn bind(&mut self, i: usize, metadata: &ObjectMeta, spec: &PodSpec) -> Vec<ClaimUse> {
        self.bind_started(i, metadata, spec, None)
    }

    /// [`Self::bind`] for a pod that started at `started` (`status.startTime`, a snapshot's).
    fn bind_started(
        &mut self,
        i: usize,
        metadata: &ObjectMeta,
        spec: &PodSpec,
        started: Option<&str>,
    ) -> Vec<ClaimUse> {
        let claims = self.bind_volumes(i, metadata, spec);
        self.bind_pod(i, metadata, spec, started);
        claims
    }

    /// VolumeBinding's Reserve and PreBind, and what the PV controller then completes, for a
    /// pod coming to node `i`: its claims bound or provisioned there, and in use. What each
    /// claim is bound to.
    fn bind_volumes(&mut self, i: usize, metadata: &ObjectMeta, spec: &PodSpec) -> Vec<ClaimUse> {
        let Some(storage) = self.cfg.storage.as_mut() else { return Vec::new() };
        if !spec.volumes.iter().any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some()) {
            return Vec::new();
        }
        let Some(info) = self.nodes.get(i) else { return Vec::new() };
        let pod = Pod { metadata: metadata.clone(), spec: spec.clone(), status: Default::default() };
        let (status, state) = volume_binding::pre_filter(&pod, storage, &self.cfg.gates);
        let bindings = match status.code {
            Code::Success => volume_binding::filter(&state, info, storage).unwrap_or_default(),
            _ => Default::default(),
        };
        let (node, labels) = (info.name().to_string(), info.node_labels().clone());
        let storage = Arc::make_mut(storage);
        storage.assume(metadata, spec, &node, &labels, &bindings);
        node_volume_limits::attach_pod(storage, &node, metadata, spec);
        claim_uses(&pod, storage)
    }

    fn bind_pod(&mut self, i: usize, metadata: &ObjectMeta, spec: &PodSpec, started: Option<&str>) {
        let requests = self.requests.get(spec, &self.cfg).clone();
        // `i` is a node index the scheduler returned.
        let Some(info) = self.nodes.get_mut(i) else { return };
        let mut placed = self.placed_pods.place(metadata, spec).with_requests(requests);
        placed.start_time = started.map(Arc::from);
        self.running.affinity_pods.add(&placed);
        info.bind(placed);
        // Node taints do not change during the simulation: a pod on a node without NoExecute
        // taints is never evicted, so only the others are kept for the check at the end.
        if !info.node().spec.taints.iter().any(|t| t.effect == NO_EXECUTE) {
            return;
        }
        self.placed.push((
            metadata.namespace.clone().unwrap_or_default(),
            metadata.name.clone(),
            i,
            spec.tolerations.clone(),
        ));
    }

    /// The taint manager: a pod on a node with an untolerated NoExecute taint is evicted at
    /// once; one whose tolerations all have tolerationSeconds, after the smallest of them.
    fn check_no_execute(&mut self) {
        let cmp = self.cfg.gates.taint_toleration_comparison_operators;
        for (namespace, pod, i, tolerations) in &self.placed {
            let Some(node) = self.nodes.get(*i).map(NodeInfo::node) else { continue };
            let (taint, after_seconds, message) = match no_execute_eviction(&node.spec.taints, tolerations, cmp) {
                NoExecuteEviction::Stays => continue,
                NoExecuteEviction::Now(taint) => {
                    let message = format!("evicted at once: untolerated NoExecute taint {taint}");
                    (taint, None, message)
                }
                NoExecuteEviction::After { seconds, taint } => {
                    let message = format!("evicted after {seconds}s: NoExecute taint {taint} is tolerated only for tolerationSeconds={seconds}");
                    (taint, Some(seconds), message)
                }
            };
            self.evictions.push(Eviction {
                namespace: namespace.clone(),
                pod: pod.clone(),
                node: node.metadata.name.clone(),
                taint: taint.to_string(),
                after_seconds,
                message,
            });
        }
    }
}

/// The `FailedCreate` event of `source`'s controller when the API server refuses its pods
/// (the pods' `generateName`, or a StatefulSet's first missing pod).
fn failed_create(source: &Workload, owner: Option<&PodOwner>, refused: &PriorityError) -> String {
    let generate_name = owner.map_or(source.name.as_str(), |o| o.reference.name.as_str());
    match source.kind {
        WorkloadKind::StatefulSet => format!(
            "create Pod {name}-0 in StatefulSet {name} failed error: pods \"{name}-0\" is forbidden: {refused}",
            name = source.name
        ),
        _ => format!("Error creating: pods \"{generate_name}-\" is forbidden: {refused}"),
    }
}

/// The report an existing pod goes in (its controller's, its group's, its own) and its direct
/// owner; `None` for what is not simulated.
fn slot_of(role: &Role, i: usize, ownership: &Ownership) -> Option<(usize, usize)> {
    match role {
        Role::Duplicate { .. } | Role::Revision { .. } => None,
        Role::Own => Some((i, i)),
        Role::Member { of, owner } => Some((*of, *owner)),
        Role::DeploymentPod { of, .. } => Some((*of, *of)),
        Role::Orphan { group } => {
            let first = *ownership.groups.get(*group)?.pods.first()?;
            Some((first, first))
        }
    }
}

/// The Job controller's wanted active pods: `min(parallelism, completions - succeeded)`;
/// without completions (a work queue), `parallelism` until one pod succeeds; none while
/// suspended or once the Job is Complete or Failed.
fn job_wanted(job: &Workload, succeeded: i64) -> i64 {
    let state = &job.state;
    if state.suspended || state.finished {
        return 0;
    }
    let parallelism = state.parallelism.unwrap_or(job.replicas).max(0);
    match state.completions {
        Some(completions) => parallelism.min((completions - succeeded).max(0)),
        None if succeeded > 0 => 0,
        None => parallelism,
    }
}

/// `count` names `<prefix>-<k>` for the lowest `k` not `taken`: a StatefulSet's missing
/// ordinals exactly; for other controllers in place of the random suffix.
fn new_pod_names(prefix: &str, taken: impl Fn(&str) -> bool, count: i64) -> Vec<String> {
    let mut names = Vec::new();
    let mut k = 0;
    while (names.len() as i64) < count {
        let name = format!("{prefix}-{k}");
        if !taken(&name) {
            names.push(name);
        }
        k += 1;
    }
    names
}

/// Pod names as the controllers spell them, without the random suffixes: StatefulSets use
/// ordinals exactly; other controllers get `-<index>` in place of their hash suffix.
fn pod_name(w: &Workload, replica: i64) -> String {
    match w.kind {
        WorkloadKind::Pod => w.name.clone(),
        _ => format!("{}-{replica}", w.name),
    }
}

/// The report's warning for an object whose kind Placement does not schedule; the text
/// report summarises these by kind ([`crate::explain::render::diagnostics`]).
/// The claims `pod` uses and what each is bound to now: a PV, or the node it is being
/// provisioned for.
fn claim_uses(pod: &Pod, storage: &Storage) -> Vec<ClaimUse> {
    let namespace = pod.metadata.namespace_or_default();
    pod_claims(&pod.metadata.name, &pod.spec.volumes)
        .map(|(_, name, _)| {
            let claim = storage.claim(namespace, &name);
            let pv = claim.filter(|c| c.is_fully_bound()).map(|c| c.spec.volume_name.clone());
            let provision_on =
                claim.and_then(|c| c.selected_node()).filter(|_| storage.provisioned_here(namespace, &name));
            match provision_on {
                Some(node) => ClaimUse { claim: name, pv: None, provision_on: Some(node.to_string()) },
                None => ClaimUse { claim: name, pv, provision_on: None },
            }
        })
        .collect()
}

pub fn ignored_warning(doc: &DocRef) -> String {
    format!("{doc}: kind {} is not a workload Placement schedules; ignored", doc.kind)
}

pub fn node_report(v: &NodeVerdict) -> NodeReport {
    node_report_sharing(v, &mut Shared::default())
}

/// The last detail and reason [`node_report_sharing`] built, for the next node's report.
#[derive(Default)]
struct Shared {
    detail: Option<Arc<str>>,
    reason: Option<Arc<str>>,
}

/// Whether `reasons` joined by ", " are `joined`, without joining them.
fn joins_to(reasons: &[std::borrow::Cow<'static, str>], joined: &str) -> bool {
    let mut rest = joined;
    for (k, r) in reasons.iter().enumerate() {
        if k > 0 {
            let Some(after) = rest.strip_prefix(", ") else { return false };
            rest = after;
        }
        let Some(after) = rest.strip_prefix(&**r) else { return false };
        rest = after;
    }
    rest.is_empty()
}

/// Whether two verdicts give equal [`NodeReport`]s: [`node_report_sharing`] reads their
/// status and score only.
fn same_report(a: &NodeVerdict, b: &NodeVerdict) -> bool {
    a.status == b.status && a.score == b.score
}

/// [`node_report`], its detail and reason shared with `last` (the previous rejected node's)
/// when the same, and kept there for the next.
fn node_report_sharing(v: &NodeVerdict, last: &mut Shared) -> NodeReport {
    let fits = v.status.is_success();
    let detail = v.status.detail.as_ref().map(|d| match &last.detail {
        Some(last) if **last == **d => last.clone(),
        _ => last.detail.insert(d.clone()).clone(),
    });
    let reason = (!fits).then(|| {
        let reasons = &v.status.reasons;
        let same = last.reason.as_ref().filter(|r| joins_to(reasons, r));
        match same {
            Some(r) => r.clone(),
            None => last.reason.insert(Arc::from(reasons.join(", "))).clone(),
        }
    });
    NodeReport { fits, plugin: v.status.plugin, reason, detail, score: v.score, code: (!fits).then_some(v.status.code) }
}

/// At most this many sets of taints keep their DaemonSet report for the nodes after
/// ([`Simulation::run_daemonset`]); nodes with other taints get their own.
const MAX_TAINT_REPORTS: usize = 16;

/// Why the DaemonSet controller will not create a pod for this node, in the words the
/// scheduler would use for the same check.
fn not_eligible_report(
    daemon_spec: &PodSpec,
    node: &Node,
    blocker: &Option<Blocker>,
    cfg: &SchedulerConfig,
) -> NodeReport {
    let status = match blocker {
        Some(Blocker::Taint(_)) => taint_toleration::filter(daemon_spec, node, cfg).with_plugin(taint_toleration::NAME),
        Some(Blocker::NodeAffinity) => {
            node_affinity::State::new(daemon_spec, cfg).filter(node).with_plugin(node_affinity::NAME)
        }
        Some(Blocker::NodeName(name)) => Status::new(Code::UnschedulableAndUnresolvable, node_name::ERR_REASON)
            .with_plugin(node_name::NAME)
            .with_detail(format!("template requests node {name:?}")),
        None => Status::success(),
    };
    NodeReport {
        fits: false,
        plugin: status.plugin,
        reason: Some(status.reasons.join(", ").into()),
        detail: status.detail.map(|d| format!("{d}; the DaemonSet controller creates no pod here").into()),
        score: None,
        code: Some(status.code),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::parse_manifests;

    #[test]
    fn reasons_are_compared_joined_without_joining_them() {
        // (reasons, joined, want)
        let rows: [(&[&str], &str, bool); 8] = [
            (&["a"], "a", true),
            (&["a", "b"], "a, b", true),
            (&["a", "b"], "a, b, c", false),
            (&["a", "b", "c"], "a, b", false),
            (&["a, b"], "a, b", true),
            (&["a", "b"], "ab", false),
            (&[], "", true),
            (&[], "a", false),
        ];
        for (reasons, joined, want) in rows {
            let reasons: Vec<std::borrow::Cow<'static, str>> = reasons.iter().map(|r| r.to_string().into()).collect();
            assert_eq!(joins_to(&reasons, joined), want, "{reasons:?} vs {joined:?}");
            assert_eq!(reasons.join(", ") == joined, want, "the same as joining: {reasons:?}");
        }
    }

    fn run(yaml: &str, opts: &SimulateOptions) -> Report {
        simulate(&parse_manifests(yaml, "").unwrap(), opts).unwrap()
    }

    /// Node maps carry every node's verdict under its name, in cluster order, and the names
    /// are one copy shared by all the workloads' maps.
    #[test]
    fn node_maps_share_the_names() {
        let yaml = "\
apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: b}
spec: {taints: [{key: k, effect: NoSchedule}]}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Pod
metadata: {name: one}
spec: {containers: [{name: c, image: x}]}
---
apiVersion: v1
kind: Pod
metadata: {name: two}
spec: {containers: [{name: c, image: x}]}
";
        let r = run(yaml, &SimulateOptions::default());
        let [one, two] = [&r.workloads[0].nodes, &r.workloads[1].nodes];
        let names = |m: &NodeReports| m.iter().map(|(n, v)| (n.to_string(), v.fits)).collect::<Vec<_>>();
        assert_eq!(names(one), [("a".to_string(), true), ("b".to_string(), false)]);
        assert_eq!(names(one), names(two));
        assert!(one.0.iter().zip(&two.0).all(|((x, _), (y, _))| Arc::ptr_eq(x, y)), "one copy of each name");
        assert_eq!(one.get("b").and_then(|v| v.reason.as_deref()), Some("node(s) had untolerated taint(s)"));
    }

    /// Pods bound earlier in the run draw later pods by their preferred pod affinity, though
    /// the later pods have no terms of their own (the run counts such pods as it binds them,
    /// so a pod without terms skips InterPodAffinity's scoring only when there are none).
    #[test]
    fn bound_pods_preferred_affinity_draws_later_pods() {
        use crate::testing::{controller_doc, node_doc};
        let requests = "containers: [{name: c, image: i, resources: {requests: {cpu: 100m, memory: 64Mi}}}]";
        let magnet = format!(
            "{{nodeSelector: {{disk: ssd}}, affinity: {{podAffinity: {{preferredDuringSchedulingIgnoredDuringExecution: [{{weight: 100, podAffinityTerm: {{labelSelector: {{matchLabels: {{app: follower}}}}, topologyKey: kubernetes.io/hostname}}}}]}}}}, {requests}}}"
        );
        let yaml = [
            node_doc("a", &[], &[], "64"),
            node_doc("b", &[("disk", "ssd")], &[], "4"),
            controller_doc("Deployment", "magnet", Some(1), "magnet", &magnet),
            controller_doc("Deployment", "follower", Some(1), "follower", &format!("{{{requests}}}")),
        ]
        .concat();
        let r = run(&yaml, &SimulateOptions::default());
        let [magnet, follower] = [&r.workloads[0], &r.workloads[1]];
        assert_eq!(magnet.pods[0].node.as_deref(), Some("b"));
        let score = |n: &str| follower.nodes.get(n).and_then(|v| v.score);
        assert!(score("b") > score("a"), "b draws the follower: {:?} vs {:?}", score("b"), score("a"));
        assert_eq!(follower.pods[0].node.as_deref(), Some("b"));
    }

    /// A DaemonSet's report on each node it skips for a taint names that node's own taints,
    /// though nodes with the same taints share one report.
    #[test]
    fn daemonset_reports_name_each_nodes_own_taints() {
        use crate::testing::{controller_doc, node_doc};
        let node = |name: &str, taint: Option<&str>| {
            let taints: Vec<(&str, &str, &str)> = taint.map(|t| (t, "x", "NoSchedule")).into_iter().collect();
            node_doc(name, &[], &taints, "4")
        };
        let yaml = [
            node("a", Some("first")),
            node("b", Some("second")),
            node("c", Some("first")),
            node("d", None),
            node("e", Some("second")),
            controller_doc("DaemonSet", "agent", None, "agent", "{containers: [{name: c, image: i}]}"),
        ]
        .concat();
        let r = run(&yaml, &SimulateOptions::default());
        let nodes = &r.workloads[0].nodes;
        // (node, taint named)
        let rows =
            [("a", Some("first")), ("b", Some("second")), ("c", Some("first")), ("d", None), ("e", Some("second"))];
        for (name, taint) in rows {
            let v = nodes.get(name).expect("a verdict for each node");
            assert_eq!(v.fits, taint.is_none(), "{name}: {v:?}");
            let Some(taint) = taint else { continue };
            let detail = v.detail.as_deref().unwrap_or_default();
            assert!(detail.contains(&format!("{taint}: x")), "{name}: {detail}");
            assert_eq!(v.reason.as_deref(), Some("node(s) had untolerated taint(s)"), "{name}");
        }
        let [a, c] = [nodes.get("a").unwrap(), nodes.get("c").unwrap()];
        assert!(
            Arc::ptr_eq(a.detail.as_ref().unwrap(), c.detail.as_ref().unwrap()),
            "one report for one set of taints"
        );
    }

    /// Pods bound earlier in the run keep later pods away by their required anti-affinity,
    /// whether the later pods have terms of their own or not (the run counts such pods as it
    /// binds them, so a pod without terms skips InterPodAffinity only when there are none):
    /// a Deployment's replicas and a DaemonSet's pods alike.
    #[test]
    fn bound_pods_anti_affinity_keeps_later_pods_away() {
        use crate::testing::{controller_doc, node_doc};
        let requests = "containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]";
        let guard = format!(
            "{{affinity: {{podAntiAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: [{{labelSelector: {{matchLabels: {{app: noisy}}}}, topologyKey: kubernetes.io/hostname}}]}}}}, {requests}}}"
        );
        let yaml = [
            node_doc("a", &[], &[], "4"),
            node_doc("b", &[], &[], "4"),
            node_doc("c", &[], &[], "4"),
            controller_doc("Deployment", "guard", Some(2), "guard", &guard),
            controller_doc("Deployment", "noisy", Some(3), "noisy", &format!("{{{requests}}}")),
            controller_doc("DaemonSet", "agent", None, "noisy", "{containers: [{name: c, image: i}]}"),
        ]
        .concat();
        let r = run(&yaml, &SimulateOptions::default());
        let on = |w: &WorkloadReport| {
            w.pods.iter().map(|p| p.node.as_deref().unwrap_or("-").to_string()).collect::<Vec<_>>()
        };
        let [guard, noisy, agent] = [&r.workloads[0], &r.workloads[1], &r.workloads[2]];
        let guarded = on(guard);
        assert_eq!(guarded.len(), 2, "{guarded:?}");
        let free: Vec<&str> = ["a", "b", "c"].into_iter().filter(|n| !guarded.iter().any(|g| g == n)).collect();
        assert_eq!(free.len(), 1, "{guarded:?}");
        assert_eq!(on(noisy), vec![free[0]; 3], "the replicas avoid the guarded nodes");
        let agent_on = on(agent);
        assert_eq!(agent_on.iter().filter(|n| *n != "-").collect::<Vec<_>>(), [free[0]], "{agent_on:?}");
        assert_eq!(agent.pending, 2, "the daemon pods of the guarded nodes stay Pending: {agent_on:?}");
        for g in &guarded {
            let v = noisy.nodes.get(g).expect("a verdict for each node");
            assert!(!v.fits, "{g}: {v:?}");
            assert_eq!(v.reason.as_deref(), Some("node(s) didn't satisfy existing pods anti-affinity rules"), "{g}");
        }
    }

    /// Recording a workload's first cycle changes nothing in the report, and the recorded
    /// cycle is the one the workload's `nodes` verdicts come from, scores included.
    #[test]
    fn a_recorded_cycle_is_the_one_behind_the_verdicts() {
        let yaml = "\
apiVersion: v1
kind: Node
metadata: {name: a, labels: {disk: ssd}}
status: {allocatable: {cpu: '2', memory: 4Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: b}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: c}
spec: {taints: [{key: k, effect: NoSchedule}]}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: first}
spec:
  replicas: 2
  selector: {matchLabels: {app: first}}
  template:
    metadata: {labels: {app: first}}
    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 500m}}}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: second}
spec:
  replicas: 1
  selector: {matchLabels: {app: second}}
  template:
    metadata: {labels: {app: second}}
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - {weight: 5, preference: {matchExpressions: [{key: disk, operator: Exists}]}}
      containers: [{name: c, image: i, resources: {requests: {cpu: 250m}}}]
";
        let manifests = parse_manifests(yaml, "").unwrap();
        let plain = simulate(&manifests, &SimulateOptions::default()).unwrap();
        let key = WorkloadKey { kind: "Deployment".into(), namespace: "default".into(), name: "second".into() };
        let opts = SimulateOptions { record_cycle: Some(key), ..SimulateOptions::default() };
        let recorded = simulate(&manifests, &opts).unwrap();
        assert_eq!(serde_json::to_string(&plain).unwrap(), serde_json::to_string(&recorded).unwrap());
        assert!(plain.recorded_cycle.is_none());
        let cycle = recorded.recorded_cycle.expect("recorded");
        let second = &recorded.workloads[1];
        assert_eq!(second.name, "second");
        let json = |r: &NodeReport| serde_json::to_value(r).unwrap();
        let from_cycle: Vec<_> = cycle.verdicts.iter().map(|v| (&*v.node, json(&node_report(v)))).collect();
        let shown: Vec<_> = second.nodes.iter().map(|(n, r)| (n, json(r))).collect();
        assert_eq!(from_cycle, shown);
        // Each fitting node's total is its plugins' weighted normalized scores; NodeAffinity's
        // raw score is the matching preferred terms' weight (the first workload's pods on `a`
        // and `b` do not change it).
        for v in cycle.verdicts.iter().filter(|v| v.score.is_some()) {
            assert_eq!(v.score, Some(v.plugin_scores.iter().map(|p| p.score * p.weight).sum()));
            let affinity = v.plugin_scores.iter().find(|p| p.plugin == "NodeAffinity").unwrap();
            assert_eq!(affinity.raw, Some(if &*v.node == "a" { 5 } else { 0 }));
        }
    }

    /// From 100 nodes up, a cycle stops searching once it has `numFeasibleNodesToFind`
    /// feasible nodes (300 nodes: 48%, 144) and the next cycle starts where it stopped; the
    /// first pod's verdicts list the nodes after the stop as fitting but not scored.
    #[test]
    fn large_clusters_are_searched_as_kube_scheduler_searches_them() {
        let mut yaml = String::new();
        for i in 0..300 {
            yaml.push_str(&format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: node-{i:03}}}\nstatus: {{allocatable: {{cpu: '4', memory: 8Gi, pods: '110'}}}}\n---\n"
            ));
        }
        yaml.push_str("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}\n");
        // (name, percentageOfNodesToScore, want nodes, want scored nodes in the first verdicts)
        let rows = [
            // 0-143 scored: node-000; then 144-287: node-144; then 288-299 and 0-131, where
            // node-000 has a pod and node-001 is the first of the emptiest.
            ("adaptive", 0, ["node-000", "node-144", "node-001"], 144),
            ("every node", 100, ["node-000", "node-001", "node-002"], 300),
        ];
        for (name, percentage, want, scored) in rows {
            let opts = SimulateOptions { percentage_of_nodes_to_score: percentage, ..SimulateOptions::default() };
            let report = run(&yaml, &opts);
            let web = &report.workloads[0];
            let nodes: Vec<_> = web.pods.iter().map(|p| p.node.as_deref().unwrap_or_default()).collect();
            assert_eq!(nodes, want, "{name}");
            let with_score = web.nodes.iter().filter(|(_, r)| r.score.is_some()).count();
            assert_eq!(with_score, scored, "{name}");
            assert!(web.nodes.iter().all(|(_, r)| r.fits), "{name}");
            let unscored = web.nodes.iter().filter(|(_, r)| r.score.is_none()).count();
            assert_eq!(unscored, 300 - scored, "{name}");
            if unscored > 0 {
                let (_, r) = web.nodes.iter().find(|(_, r)| r.score.is_none()).unwrap();
                assert!(r.detail.as_deref().unwrap().contains("stopped searching after 144 feasible nodes"), "{r:?}");
            }
        }
    }

    /// A pending pod whose cycle differs from the workload's first carries its own verdicts:
    /// the first pending replica of a Deployment (the later ones are the same pod against
    /// the same cluster), each pending replica of a StatefulSet with claims of its own (its
    /// claim is named in its verdicts), at most `OWN_NODE_MAPS` per workload.
    #[test]
    fn pending_pods_carry_their_own_verdicts_where_they_differ() {
        let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {topology.kubernetes.io/zone: z}}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '110'}}\n---\napiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: local}\nprovisioner: kubernetes.io/no-provisioner\nvolumeBindingMode: WaitForFirstConsumer\n";
        let deployment = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 4\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 400m}}}]}\n";
        let statefulset = "---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {name: db}\nspec:\n  replicas: 14\n  podManagementPolicy: Parallel\n  serviceName: db\n  selector: {matchLabels: {app: db}}\n  template:\n    metadata: {labels: {app: db}}\n    spec: {containers: [{name: c, image: i, volumeMounts: [{name: data, mountPath: /d}]}]}\n  volumeClaimTemplates:\n  - metadata: {name: data}\n    spec: {accessModes: [ReadWriteOnce], storageClassName: local, resources: {requests: {storage: 1Gi}}}\n";
        // (name, workload, want the pods with their own verdicts (by index), want the first
        // one's reason on n)
        let rows = [
            ("deployment, two pods fit", deployment, vec![2], "Insufficient cpu"),
            (
                "statefulset, no volume for any claim",
                statefulset,
                (1..=OWN_NODE_MAPS).collect(),
                "node(s) didn't find available persistent volumes to bind",
            ),
        ];
        for (name, workload, want, reason) in rows {
            let report = run(&format!("{node}{workload}"), &SimulateOptions::default());
            let w = &report.workloads[0];
            let own: Vec<usize> = (0..w.pods.len()).filter(|&i| w.pods[i].nodes.is_some()).collect();
            assert_eq!(own, want, "{name}");
            let first = w.pods.iter().find_map(|p| p.nodes.as_ref()).unwrap();
            assert_eq!(first.get("n").and_then(|v| v.reason.as_deref()), Some(reason), "{name}");
            assert!(w.pods.iter().filter(|p| p.nodes.is_some()).all(|p| p.node.is_none()), "{name}: only pending pods");
            assert!(serde_json::to_value(&w.pods[0]).unwrap().get("nodes").is_none(), "{name}: left out when none");
        }
    }

    /// Gated pods and pods for another scheduler are never attempted: they stay Pending
    /// without a FailedScheduling message and hold nothing, so a later pod still fits.
    #[test]
    fn pods_the_default_scheduler_never_attempts() {
        let node = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: '1', memory: 1Gi, pods: '110'}}\n";
        let pod = |name: &str, extra: &str| {
            format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}}}\nspec: {{{extra}containers: [{{name: c, image: i, resources: {{requests: {{cpu: 800m}}}}}}]}}\n")
        };
        // (name, spec fields, want status)
        let rows = [
            ("gated", "schedulingGates: [{name: example.com/quota}], ", "SchedulingGated"),
            ("other-scheduler", "schedulerName: my-scheduler, ", "Pending"),
        ];
        for (name, extra, status) in rows {
            let yaml = format!("{node}{}{}", pod(name, extra), pod("later", ""));
            let report = run(&yaml, &SimulateOptions::default());
            let first = &report.workloads[0].pods[0];
            assert_eq!((first.node.as_deref(), first.message.as_deref()), (None, None), "{name}");
            assert_eq!(first.not_attempted.as_ref().map(|n| n.status), Some(status), "{name}");
            assert!(first.status_text().starts_with(&format!("{status}: ")), "{name}: {}", first.status_text());
            assert!(!first.status_text().contains("Pending: Pending"), "{name}: {}", first.status_text());
            assert_eq!(report.workloads[1].pods[0].node.as_deref(), Some("n"), "{name}: the first pod holds no cpu");
            assert!(
                report.workloads[0].nodes.get("n").is_some_and(|v| v.fits),
                "{name}: where it would go is still shown"
            );
        }
        let named = format!("{node}{}", pod("mine", "schedulerName: default-scheduler, "));
        assert_eq!(run(&named, &SimulateOptions::default()).workloads[0].pods[0].node.as_deref(), Some("n"));
    }

    /// A Deployment's pods carry the ReplicaSet the Deployment controller creates as their
    /// controller, and its pod-template-hash label.
    #[test]
    fn deployment_pods_belong_to_their_replicaset() {
        let yaml = "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: i}]}\n";
        let m = parse_manifests(yaml, "").unwrap();
        let owner = controllers::pod_owner(&m.workloads[0]).unwrap();
        let (key, hash) = owner.label.clone().unwrap();
        assert_eq!(key, controllers::POD_TEMPLATE_HASH_LABEL);
        assert_eq!(owner.reference.name, format!("web-{hash}"));
        assert_eq!((owner.reference.api_version.as_str(), owner.reference.kind.as_str()), ("apps/v1", "ReplicaSet"));
        let listers = controllers::listers(&m, &controllers::pod_owners(&m));
        let key = crate::scheduler::plugins::pod_topology_spread::Listers::controller_key(
            "apps/v1",
            "ReplicaSet",
            "default",
            &owner.reference.name,
        );
        assert!(listers.controllers.contains_key(&key), "the ReplicaSet is listed with its selector");
    }

    /// A snapshot's Deployment edited since (a fix applied to its template) is rolled out: the
    /// old ReplicaSet's pods are replaced by pods of the new template. A DaemonSet pod on a
    /// node that no longer matches its node selector is deleted by the controller.
    #[test]
    fn snapshot_rollouts_and_daemon_pods_that_must_go() {
        let rs_pod = |name: &str, node: &str| {
            format!(
                "---\napiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, uid: {name}, labels: {{app: web, pod-template-hash: h1}}, ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-h1, uid: rs1, controller: true}}]}}\nspec: {{nodeName: {node}, containers: [{{name: c, image: i, resources: {{requests: {{cpu: 100m}}}}}}]}}\nstatus: {{phase: Running}}\n"
            )
        };
        let nodes = "apiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {disk: ssd}}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\nstatus: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}\n";
        let deployment = |image: &str| {
            format!("---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, uid: d1}}\nspec: {{replicas: 2, selector: {{matchLabels: {{app: web}}}}, template: {{metadata: {{labels: {{app: web}}}}, spec: {{containers: [{{name: c, image: {image}, resources: {{requests: {{cpu: 100m}}}}}}]}}}}}}\n")
        };
        let rs = "---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {name: web-h1, uid: rs1, ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: d1, controller: true}]}\nspec: {replicas: 2, selector: {matchLabels: {app: web, pod-template-hash: h1}}, template: {metadata: {labels: {app: web, pod-template-hash: h1}}, spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}}}\n";
        let pods = format!("{}{}", rs_pod("web-h1-x", "a"), rs_pod("web-h1-y", "b"));
        // (name, deployment image, want pods not deleted, want deleted, want created)
        let rows = [("unchanged", "i", 2, 0, 0), ("template changed", "j", 2, 2, 2)];
        for (name, image, active, deleted, created) in rows {
            let yaml = format!("{nodes}{}{rs}{pods}", deployment(image));
            let report = run(&yaml, &SimulateOptions::default());
            assert_eq!(report.workloads.len(), 1, "{name}: one report for the Deployment");
            let w = &report.workloads[0];
            assert_eq!((w.desired, w.current, w.scheduled), (2, active, active), "{name}");
            let removed = w.pods.iter().filter(|p| p.snapshot.as_ref().is_some_and(|s| s.removed.is_some())).count();
            assert_eq!(removed, deleted, "{name}");
            assert_eq!(w.pods.iter().filter(|p| p.snapshot.is_none()).count(), created, "{name}");
        }

        let ds = "---\napiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, uid: ds1}\nspec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, spec: {nodeSelector: {disk: ssd}, containers: [{name: c, image: i}]}}}\n";
        let daemon_pod = |node: &str| {
            format!("---\napiVersion: v1\nkind: Pod\nmetadata: {{name: agent-{node}, uid: agent-{node}, labels: {{app: agent}}, ownerReferences: [{{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds1, controller: true}}]}}\nspec: {{nodeName: {node}, containers: [{{name: c, image: i}}]}}\nstatus: {{phase: Running}}\n")
        };
        let yaml = format!("{nodes}{ds}{}{}", daemon_pod("a"), daemon_pod("b"));
        let report = run(&yaml, &SimulateOptions::default());
        let w = &report.workloads[0];
        assert_eq!((w.desired, w.current, w.scheduled, w.pending), (1, 1, 1, 0), "{:#?}", w.pods);
        let on_b = w.pods.iter().find(|p| p.name == "agent-b").unwrap();
        assert!(
            on_b.status_text().starts_with("Deleted: deleted by the DaemonSet controller"),
            "{}",
            on_b.status_text()
        );
        assert_eq!(w.pods.len(), 2, "nothing created: a already runs one");
    }

    const NODES: &str = "
apiVersion: v1
kind: Node
metadata: {name: ready}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: failing}
spec: {taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]}
status: {allocatable: {cpu: '8', memory: 16Gi, pods: '110'}}
";

    /// Quantities at the edge of i64 (`5368Ei` of memory saturates at i64::MAX) go through
    /// the resource filter and both resource scores without overflowing: the fuzzer's
    /// `parse_simulate` found LeastAllocated's `(cap - req) * 100` overflowing.
    #[test]
    fn huge_allocatable_and_requests_do_not_overflow() {
        // (node allocatable, pod requests, the node the pod lands on, why)
        let rows = [
            ("{cpu: 1900m, memory: 5368Ei, pods: '815'}", "{cpu: 250m, memory: 512Mi}", Some("big"), "huge memory"),
            (
                "{cpu: '9223372036854775807', memory: 5368Ei, pods: '9'}",
                "{cpu: 250m}",
                Some("big"),
                "cpu near i64::MAX",
            ),
            (
                "{cpu: '1', memory: 1Gi, pods: '9'}",
                "{cpu: '9223372036854775807', memory: 5368Ei}",
                None,
                "huge requests",
            ),
            (
                "{cpu: 5368Ei, memory: 5368Ei, pods: 5368Ei}",
                "{cpu: 5368Ei, memory: 5368Ei}",
                Some("big"),
                "all at the edge",
            ),
        ];
        for (allocatable, requests, node, why) in rows {
            let yaml = format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: big}}\nstatus: {{allocatable: {allocatable}}}\n---\n\
                 apiVersion: v1\nkind: Pod\nmetadata: {{name: p}}\nspec: {{containers: [{{name: c, image: i, resources: {{requests: {requests}}}}}]}}\n---\n\
                 apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: ds}}\nspec: {{selector: {{matchLabels: {{app: ds}}}}, template: {{metadata: {{labels: {{app: ds}}}}, spec: {{containers: [{{name: c, image: i, resources: {{requests: {requests}}}}}]}}}}}}\n"
            );
            let report = run(&yaml, &SimulateOptions::default());
            let pod = &report.workloads[0].pods[0];
            assert_eq!(pod.node.as_deref(), node, "{why}: {:?}", pod.message);
            let score = report.workloads[0].nodes.iter().find(|(n, _)| *n == "big").and_then(|(_, r)| r.score);
            assert!(node.is_none() || score.is_some_and(|s| (0..=1000).contains(&s)), "{why}: score {score:?}");
        }
    }

    #[test]
    fn default_toleration_seconds_admits_then_evicts() {
        // The emptier, bigger node scores higher, and the admission plugin's 300s toleration
        // lets the pod land on it, where the taint manager evicts it after 300s.
        let yaml = format!("{NODES}---\napiVersion: v1\nkind: Pod\nmetadata: {{name: web}}\nspec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: '1'}}}}}}]}}\n");
        let report = run(&yaml, &SimulateOptions::default());
        assert_eq!(report.workloads[0].pods[0].node.as_deref(), Some("failing"));
        assert_eq!(report.evictions.len(), 1);
        assert_eq!(report.evictions[0].after_seconds, Some(300));
        assert!(report.workloads[0].defaults.iter().any(|d| d.contains("DefaultTolerationSeconds")));

        let opts = SimulateOptions { admission_defaults: false, ..Default::default() };
        let report = run(&yaml, &opts);
        assert_eq!(report.workloads[0].pods[0].node.as_deref(), Some("ready"), "without admission the taint filters");
        assert!(report.evictions.is_empty());
    }

    #[test]
    fn running_pods_are_bound_first_and_evicted_at_once() {
        let yaml = format!("{NODES}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec: {{replicas: 1, selector: {{matchLabels: {{app: d}}}}, template: {{metadata: {{labels: {{app: d}}}}, spec: {{containers: [{{name: c, image: i, resources: {{requests: {{cpu: '3'}}}}}}]}}}}}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {{name: old}}\nspec: {{nodeName: ready, tolerations: [{{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute}}], containers: [{{name: c, image: i, resources: {{requests: {{cpu: '2'}}}}}}]}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {{name: stray}}\nspec: {{nodeName: failing, tolerations: [{{key: x, operator: Exists}}], containers: [{{name: c, image: i}}]}}\n");
        let opts = SimulateOptions { admission_defaults: false, ..Default::default() };
        let report = run(&yaml, &opts);
        // The running pod holds 2 of ready's 4 cpus, so the 3-cpu replica cannot go there.
        assert_eq!(report.workloads[0].name, "d", "reports keep input order");
        assert_eq!(report.workloads[0].pods[0].node, None);
        assert!(report.workloads[0].pods[0]
            .message
            .as_deref()
            .unwrap()
            .starts_with("0/2 nodes are available: 1 Insufficient cpu, 1 node(s) had untolerated taint(s)."));
        let stray = report.evictions.iter().find(|e| e.pod == "stray").expect("stray evicted");
        assert_eq!(stray.after_seconds, None);
        assert_eq!(stray.taint, "node.kubernetes.io/not-ready:NoExecute");
    }

    #[test]
    fn api_defaults_request_the_limit() {
        let mut spec = PodSpec::default();
        let mut c = crate::model::Container::default();
        c.resources.limits.insert("cpu".into(), crate::model::quantity::Quantity::parse("2").unwrap());
        spec.containers.push(c);
        let notes = api_defaults(&mut spec, &FeatureGates::default());
        assert_eq!(spec.containers[0].resources.requests["cpu"].milli_value(), 2000);
        assert_eq!(notes.len(), 1);
    }
}
