//! One scheduling cycle for one pod: PreFilter, Filter (stopping at each node's first failing
//! plugin), PostFilter's preemption message, Score with the default weights, and selection.
//!
//! Deviations from kube-scheduler, all deliberate and documented in docs/modelling.md:
//! - every node is filtered and scored (upstream stops after `numFeasibleNodesToFind` in
//!   clusters above 100 nodes and rotates its starting node);
//! - ties between equally scored nodes go to the node listed first (upstream picks one at
//!   random);
//! - preemption starts at the first node and checks nodes in order (upstream: a random
//!   offset, in parallel), see [`default_preemption`];
//! - ImageLocality and the volume plugins are not modelled.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde::Serialize;

use crate::model::resources::Resource;
use crate::model::{Pod, PodSpec, Taint, Toleration};
use crate::scheduler::fit_error::{absent_nodes_reason, empty_intersection_reason, format_message, FitError};
use crate::scheduler::framework::{AffinityPods, Code, NodeInfo, SchedulerConfig, Status};
use crate::scheduler::hostports::HostPort;
use crate::scheduler::node_search::NodeSearch;
use crate::scheduler::plugins::node_resources_fit::{self, InsufficientResource, PodRequests};
use crate::scheduler::plugins::{
    default_normalized, default_preemption, inter_pod_affinity, node_affinity, node_declared_features, node_name,
    node_ports, node_unschedulable, node_volume_limits, pod_topology_spread, taint_toleration, volume_binding,
    volume_restrictions, volume_zone,
};
use crate::scheduler::profile::{FilterPlugin, ScorePlugin};
use default_preemption::Preemption;

pub const ERR_NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";

/// The verdict for one node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeVerdict {
    /// Shared with the node's [`NodeInfo`]: an explained cycle lists every node.
    pub node: Arc<str>,
    pub status: Status,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub insufficient: Vec<InsufficientResource>,
    /// Weighted total over the score plugins; `None` for nodes that did not fit.
    pub score: Option<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plugin_scores: Vec<PluginScore>,
    /// Rejected at PreFilter: the pod's PreFilter failed, or a PreFilter result left this node
    /// out (`status.plugin` is that PreFilter's plugin). No Filter plugin ran on the node.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub pre_filter: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct PluginScore {
    pub plugin: &'static str,
    /// What the plugin's Score returned, before its NormalizeScore: the same as `score` for
    /// plugins without one (NodeResourcesFit, NodeResourcesBalancedAllocation). `None` where
    /// the plugin did not score: PodTopologySpread's PreScore skipped or ignored the node
    /// (missing a topology key), or InterPodAffinity with a single feasible node (which
    /// normalizes to 0 whatever it scored, so Placement does not compute it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<i64>,
    /// After the plugin's NormalizeScore, before the weight.
    pub score: i64,
    pub weight: i64,
}

/// The outcome of one scheduling cycle.
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleResult {
    /// Index into the cluster's nodes of the chosen node.
    pub node: Option<usize>,
    /// One verdict per cluster node, in cluster order (only failing nodes without `explain`).
    pub verdicts: Vec<NodeVerdict>,
    /// The FailedScheduling message when no node fits.
    pub message: Option<String>,
    /// The Filter plugins whose PreFilter returned Skip: they did not filter any node.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<&'static str>,
    /// No node fits, but DefaultPreemption nominated this one: evicting its victims makes
    /// room (`message` is then the FailedScheduling message of this cycle, without a
    /// PostFilter part). The caller deletes the victims and runs the pod's next cycle
    /// ([`fits_nominated`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption: Option<default_preemption::Candidate>,
}

/// How much of the per-node outcome a caller needs. The decision and the FailedScheduling
/// message are the same in every mode; only the verdicts returned differ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Detail {
    /// Every node's verdict, in cluster order, with the score breakdown of the nodes that fit
    /// (`schedule(.., explain = true)`).
    Explain,
    /// Only the failing nodes' verdicts, in cluster order: enough for the FailedScheduling
    /// message and for fixes (`schedule(.., explain = false)`).
    Failures,
    /// No verdicts when a node is chosen, as `Failures` when none is: what replicas after the
    /// first need, without building a verdict per failing node on every cycle.
    Decision,
    /// As `Explain` without the score breakdown, except that nodes a PreFilter result removed
    /// (the other nodes, for a DaemonSet's pinned pod) are counted in the message but neither
    /// evaluated nor listed. Upstream does the same: the scheduler only filters the nodes a
    /// PreFilterResult names. (A daemon pod's node is not chosen among others, so there is
    /// no ranking to break down, and 1,000 nodes' daemon pods would each build one.)
    ///
    /// `hint` is where the caller expects the one node the result names (a daemon pod's own
    /// node). It is checked by name and, node names being unique as `simulate` ensures, saves
    /// comparing the name with every node's.
    Candidates { hint: Option<usize> },
}

/// Per-node outcomes that depend only on the pod's spec and the Node object, never on the
/// pods bound to the node: the first four filters (NodeUnschedulable, NodeName,
/// TaintToleration, NodeAffinity: upstream's Filter order starts with them, so a node they
/// reject never reaches the others) and the raw TaintToleration and NodeAffinity scores.
///
/// Replicas of one workload have the same spec, so `simulate` keeps one cache per workload and
/// each replica after the first re-runs only NodePorts, NodeResourcesFit, PodTopologySpread,
/// InterPodAffinity and the resource scores. The cache checks its key (the spec fields it
/// depends on, [`same_cached_inputs`], and the node slice) on every use and starts over when
/// either differs; the Node objects in the slice must not change while it is in use (binding
/// pods to them is fine).
#[derive(Debug, Default)]
pub struct StaticCache {
    key: Option<(PodSpec, usize, usize)>,
    entries: Vec<StaticEntry>,
    /// PodTopologySpread's per-node counts, carried from one replica's cycle to the next.
    spread: pod_topology_spread::ScoreCache,
}

#[derive(Debug, Clone, Copy)]
enum StaticEntry {
    Unknown,
    /// Rejected by this static filter. Its status (reason strings, detail) is built only when
    /// a verdict or the FailedScheduling message asks for it: a cycle that finds a node never
    /// does, and most cycles do.
    Fail(FilterPlugin),
    /// Passed the static filters; raw (not normalized) static scores.
    Pass {
        taint: i64,
        affinity: i64,
    },
}

/// How many distinct static failure statuses one cycle keeps for reuse (a nodeSelector on a
/// per-node label would otherwise make the lookup quadratic); past it, the last one is
/// replaced, so a run of nodes failing alike still shares one.
const MAX_STATIC_STATUSES: usize = 16;

/// What a static filter's status for a node it rejects depends on, the pod's part being the
/// same: two rejected nodes with equal keys get the same status.
#[derive(Debug, PartialEq)]
enum StaticStatusKey<'n> {
    /// NodeUnschedulable reads nothing of the node but that it is unschedulable.
    Pod,
    /// TaintToleration: the node's taints.
    Taints(&'n [Taint]),
    /// NodeAffinity: the node's values of the pod's nodeSelector keys
    /// ([`node_affinity::State::status_key`]).
    SelectorValues(Vec<Option<&'n str>>),
}

/// Whether a static filter (`FilterPlugin::is_static`) rejects the node, without building
/// its status.
fn static_rejects(
    filter: FilterPlugin,
    spec: &PodSpec,
    affinity: &node_affinity::State,
    node: &NodeInfo,
    cfg: &SchedulerConfig,
) -> bool {
    match filter {
        FilterPlugin::NodeUnschedulable => node_unschedulable::rejects(spec, node.node(), cfg),
        FilterPlugin::NodeName => node_name::rejects(spec, node.node()),
        FilterPlugin::TaintToleration => taint_toleration::rejects(spec, node.node(), cfg),
        FilterPlugin::NodeAffinity => affinity.rejects(node),
        _ => false,
    }
}

/// The [`StaticStatusKey`] of `node` for `filter`; `None` where that is not cheap to tell.
fn static_status_key<'n>(filter: FilterPlugin, ctx: &PodContext, node: &'n NodeInfo) -> Option<StaticStatusKey<'n>> {
    match filter {
        FilterPlugin::NodeUnschedulable => Some(StaticStatusKey::Pod),
        FilterPlugin::TaintToleration => Some(StaticStatusKey::Taints(&node.node().spec.taints)),
        FilterPlugin::NodeAffinity => ctx.affinity.status_key(node).map(StaticStatusKey::SelectorValues),
        _ => None,
    }
}

/// A static filter's status, with its reasons and detail, for a node it rejects.
fn static_status(filter: FilterPlugin, ctx: &PodContext, node: &NodeInfo, cfg: &SchedulerConfig) -> Status {
    let spec = &ctx.pod.spec;
    let status = match filter {
        FilterPlugin::NodeUnschedulable => node_unschedulable::filter(spec, node.node(), cfg),
        FilterPlugin::NodeName => node_name::filter(spec, node.node()),
        FilterPlugin::TaintToleration => taint_toleration::filter(spec, node.node(), cfg),
        FilterPlugin::NodeAffinity => ctx.affinity.filter(node),
        _ => Status::success(),
    };
    status.with_plugin(filter.name())
}

/// The profile's static filters as a check over nodes, for callers outside a cycle (the
/// admission policy's fast path) that must agree with it: the same plugins, in the same
/// order, with the same PreFilter skips.
pub struct StaticFilters<'a> {
    spec: &'a PodSpec,
    affinity: node_affinity::State<'a>,
    filters: Vec<FilterPlugin>,
    cfg: &'a SchedulerConfig,
}

impl<'a> StaticFilters<'a> {
    pub fn new(spec: &'a PodSpec, cfg: &'a SchedulerConfig) -> Self {
        let skipped: Vec<&str> = [
            (node_name::NAME, node_name::pre_filter(spec).0),
            (node_affinity::NAME, node_affinity::pre_filter(spec, cfg).0),
        ]
        .into_iter()
        .filter(|(_, status)| status.code == Code::Skip)
        .map(|(name, _)| name)
        .collect();
        let filters = cfg.profile.static_filters().filter(|f| !skipped.contains(&f.name())).collect();
        Self { spec, affinity: node_affinity::State::new(spec, cfg), filters, cfg }
    }

    /// The first static filter that rejects the node.
    pub fn rejecting(&self, node: &NodeInfo) -> Option<FilterPlugin> {
        self.filters.iter().copied().find(|&f| static_rejects(f, self.spec, &self.affinity, node, self.cfg))
    }
}

impl StaticCache {
    /// An empty cache whose spreading counts start from `index` (see
    /// [`crate::scheduler::pod_index`]).
    pub fn with_pod_index(index: Option<std::sync::Arc<crate::scheduler::pod_index::PodIndex>>) -> Self {
        Self { spread: pod_topology_spread::ScoreCache::with_index(index), ..Self::default() }
    }

    fn prepare(&mut self, spec: &PodSpec, nodes: &[NodeInfo]) {
        let valid = self.key.as_ref().is_some_and(|(s, ptr, len)| {
            *ptr == nodes.as_ptr() as usize && *len == nodes.len() && same_cached_inputs(s, spec)
        });
        if !valid {
            self.key = Some((spec.clone(), nodes.as_ptr() as usize, nodes.len()));
            self.entries = vec![StaticEntry::Unknown; nodes.len()];
            self.spread = self.spread.emptied();
        }
    }
}

/// Static entries of earlier workloads, to start the caches of later ones whose pods read the
/// same static inputs ([`same_static_inputs`]) on the same nodes: a drain's what-if re-creates
/// the pods of hundreds of workloads that differ in their containers and labels only, and
/// each computed the same 5,000 static entries again. At most [`StaticSeeds::MAX`] sets.
#[derive(Debug, Default)]
pub struct StaticSeeds(Vec<(PodSpec, usize, usize, Vec<StaticEntry>)>);

impl StaticSeeds {
    pub const MAX: usize = 16;

    /// Keeps `cache`'s entries, unless a set for the same static inputs is kept already.
    pub fn keep(&mut self, cache: &StaticCache) {
        let Some((spec, ptr, len)) = &cache.key else { return };
        if self.0.len() >= Self::MAX
            || self.0.iter().any(|(s, p, l, _)| (p, l) == (ptr, len) && same_static_inputs(s, spec))
        {
            return;
        }
        self.0.push((spec.clone(), *ptr, *len, cache.entries.clone()));
    }

    /// Starts `cache`, if it is empty, with the entries kept for pods of `spec` on `nodes`.
    pub fn seed(&self, cache: &mut StaticCache, spec: &PodSpec, nodes: &[NodeInfo]) {
        if cache.key.is_some() {
            return;
        }
        let (ptr, len) = (nodes.as_ptr() as usize, nodes.len());
        if let Some((_, _, _, entries)) =
            self.0.iter().find(|(s, p, l, _)| (*p, *l) == (ptr, len) && same_static_inputs(s, spec))
        {
            cache.key = Some((spec.clone(), ptr, len));
            cache.entries.clone_from(entries);
        }
    }
}

/// Whether pods of `a` and `b` get the same static entries on every node: what
/// [`static_entry`] reads of the pod (NodeUnschedulable and TaintToleration its tolerations,
/// NodeName its node name, NodeAffinity its node selector and node affinity, which also decide
/// the PreFilter skips of the last two).
fn same_static_inputs(a: &PodSpec, b: &PodSpec) -> bool {
    fn node_affinity(s: &PodSpec) -> Option<&crate::model::NodeAffinity> {
        s.affinity.as_ref().and_then(|a| a.node_affinity.as_ref())
    }
    a.node_name == b.node_name
        && a.tolerations == b.tolerations
        && a.node_selector == b.node_selector
        && node_affinity(a) == node_affinity(b)
}

/// Whether a [`StaticCache`] prepared for pods of `a` serves pods of `b`: the same static
/// inputs, and the same topology spread constraints (with the static inputs, what
/// PodTopologySpread's carried counts depend on in the spec). Not the whole spec: a
/// snapshot's pods of one controller differ in their service-account token volume's name,
/// and each of a drain's re-created pods started the cache over.
fn same_cached_inputs(a: &PodSpec, b: &PodSpec) -> bool {
    same_static_inputs(a, b) && a.topology_spread_constraints == b.topology_spread_constraints
}

/// Everything computed once per pod so the per-node work stays small.
struct PodContext<'a> {
    pod: &'a Pod,
    request: Resource,
    /// The incoming pod's requests as NodeResourcesFit's score reads them.
    least_allocated_request: Resource,
    wanted_ports: Vec<HostPort>,
    affinity: node_affinity::State<'a>,
    score_tolerations: Vec<Toleration>,
    /// The static filters not skipped, in order.
    static_filters: Vec<FilterPlugin>,
    /// Whether PreFilter skipped the filters that run on every node on every cycle.
    skip_ports: bool,
    skip_spread: bool,
    skip_inter_pod: bool,
    inter_pod: inter_pod_affinity::PreFilterState,
    spread: pod_topology_spread::PreFilterState,
    /// How many bound pods have pod (anti-)affinity terms, when the caller counts them.
    affinity_pods: Option<usize>,
    /// The volume plugins' states, and which of them PreFilter skipped.
    volumes: VolumeStates,
    skip_volume_restrictions: bool,
    skip_volume_limits: bool,
    skip_volume_binding: bool,
    skip_volume_zone: bool,
    /// NodeDeclaredFeatures' PreFilter: the features the pod requires; `None` skips it.
    declared_features: Option<Vec<&'static str>>,
}

/// Schedules `pod` onto one of `nodes` (the cluster, in input order).
///
/// With `explain` every node's verdict and score breakdown is returned; without it only the
/// failing nodes' reasons are kept (enough for the FailedScheduling message).
pub fn schedule(pod: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig, explain: bool) -> ScheduleResult {
    let detail = if explain { Detail::Explain } else { Detail::Failures };
    schedule_with(pod, nodes, cfg, detail, None)
}

/// An evaluated node's outcome in a cycle (nodes a PreFilter result removed have none).
enum Outcome {
    /// Rejected by a static filter.
    StaticFail(FilterPlugin),
    /// Rejected by NodePorts, NodeResourcesFit, PodTopologySpread or InterPodAffinity.
    DynamicFail(Box<(Status, Vec<InsufficientResource>)>),
    /// Fits; the index into the feasible list.
    Feasible(usize),
    /// Fits, but the search had found the feasible nodes it wanted before it came here
    /// ([`NodeSearch`]): not scored (evaluated only for [`Detail::Explain`]'s verdicts).
    Unscored,
}

/// Sorts a searched cycle's outcomes by node index, and its feasible nodes (with their raw
/// static scores) likewise, renumbering the outcomes' references to them.
fn in_index_order(outcomes: &mut Vec<(usize, Outcome)>, feasible: &mut Vec<usize>, raw_static: &mut Vec<(i64, i64)>) {
    // A search walks the nodes round the cluster from where the last cycle stopped: two
    // ascending runs, which a rotation puts in order.
    let ascending = |w: &[(usize, Outcome)]| matches!(w, [(a, _), (b, _)] if a < b);
    let Some(p) = outcomes.windows(2).position(|w| !ascending(w)).map(|p| p + 1) else {
        // In order already (a daemon pod's one node, a search that did not wrap): so are the
        // feasible nodes, listed as they were evaluated.
        return;
    };
    let (head, tail) = outcomes.split_at(p);
    let wraps_once = tail.windows(2).all(ascending)
        && matches!((tail.last(), head.first()), (Some((last, _)), Some((first, _))) if last < first);
    if wraps_once {
        outcomes.rotate_left(p);
    } else {
        // The node tree's order takes the zones in turn. The indices are distinct and
        // below the node count, so each outcome goes straight to its place: sorting
        // them was 7% of re-creating a drained pool's pods at 5,000 nodes.
        let len = outcomes.iter().map(|(i, _)| i + 1).max().unwrap_or(0);
        let mut places: Vec<Option<Outcome>> = std::iter::repeat_with(|| None).take(len).collect();
        for (i, outcome) in outcomes.drain(..) {
            if let Some(place) = places.get_mut(i) {
                *place = Some(outcome);
            }
        }
        outcomes.extend(places.into_iter().enumerate().filter_map(|(i, o)| Some((i, o?))));
    }
    let (mut sorted, mut sorted_raw) = (Vec::with_capacity(feasible.len()), Vec::with_capacity(raw_static.len()));
    for (i, outcome) in outcomes.iter_mut() {
        if let Outcome::Feasible(k) = outcome {
            sorted_raw.push(raw_static.get(*k).copied().unwrap_or_default());
            *k = sorted.len();
            sorted.push(*i);
        }
    }
    *feasible = sorted;
    *raw_static = sorted_raw;
}

/// [`schedule`] with a choice of [`Detail`] and, for replicas of one workload, a
/// [`StaticCache`] shared between their cycles.
pub fn schedule_with(
    pod: &Pod,
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
    detail: Detail,
    cache: Option<&mut StaticCache>,
) -> ScheduleResult {
    schedule_searching(pod, nodes, cfg, detail, cache, &PodRequests::of(&pod.spec, cfg), None)
}

/// What a simulation carries from one cycle to the next over its nodes, as a running
/// kube-scheduler carries its search position and its snapshot's lists.
#[derive(Debug, Clone)]
pub struct Running {
    /// Where the next cycle starts searching.
    pub search: NodeSearch,
    /// The bound pods with pod (anti-)affinity terms, counted by whoever binds the pods: with
    /// none, a daemon pod's one-node cycle (3,750 of them for five DaemonSets on 1,000 nodes)
    /// no longer walks the 1,000 nodes twice to learn it.
    pub affinity_pods: AffinityPods,
}

impl Running {
    /// A scheduler starting on `nodes`, whose pods are counted.
    pub fn new(nodes: &[NodeInfo], percentage: i32) -> Self {
        Self { search: NodeSearch::new(nodes, percentage), affinity_pods: AffinityPods::of(nodes) }
    }
}

/// [`schedule_with`] as one cycle of a running scheduler, for a pod whose [`PodRequests`] the
/// caller already has (they must be `PodRequests::of(&pod.spec, cfg)`: the pods of one
/// workload share them). With `running` ([`Running`]), a cluster
/// of 100 nodes or more is searched as kube-scheduler searches it ([`NodeSearch`]: from where
/// the last cycle stopped, until `numFeasibleNodesToFind` feasible nodes are found), and only
/// those are scored. Without it every node is searched and scored (a single cycle, or
/// `percentageOfNodesToScore: 100`). With [`Detail::Explain`], the nodes after the search
/// stopped are still filtered, for their verdicts, and listed as feasible but not scored.
/// `running`'s [`AffinityPods`] must count the pods bound to `nodes`: InterPodAffinity
/// believes it rather than walking the nodes.
pub fn schedule_searching(
    pod: &Pod,
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
    detail: Detail,
    cache: Option<&mut StaticCache>,
    requests: &PodRequests,
    running: Option<&mut Running>,
) -> ScheduleResult {
    if nodes.is_empty() {
        // `ErrNoNodesAvailable`, returned before any plugin runs.
        return ScheduleResult {
            node: None,
            verdicts: Vec::new(),
            message: Some(ERR_NO_NODES_AVAILABLE.into()),
            skipped: Vec::new(),
            preemption: None,
        };
    }
    let spec = &pod.spec;
    let (search, affinity_pods) = match running {
        Some(r) => (Some(&mut r.search), Some(r.affinity_pods)),
        None => (None, None),
    };
    let pre = match run_pre_filters(pod, nodes, cfg, affinity_pods.map(|c| c.with_required_anti_affinity)) {
        Ok(pre) => pre,
        Err((status, post_filter)) => return pre_filter_rejection(status, &pod.spec, nodes, post_filter),
    };
    let PreFilterOutcome { skipped, restricted, restricting_plugins, wanted_ports, spread, inter_pod, volumes } = pre;
    let ctx = pod_context(pod, cfg, requests, &skipped, wanted_ports, spread, inter_pod, volumes, affinity_pods);

    // Which nodes to evaluate, in cluster order: all, or those a PreFilter result names. The
    // others are absent: counted in the message, never filtered, and (for a DaemonSet's pinned
    // pod, whose cycle names one node) never walked, so such a cycle does not grow with the
    // cluster.
    let hint = match detail {
        Detail::Candidates { hint } => hint,
        _ => None,
    };
    let candidates: Option<Vec<usize>> = restricted.as_ref().map(|names| named_nodes(nodes, names, hint));
    let mut cache = cache;
    if let Some(c) = cache.as_deref_mut() {
        c.prepare(spec, nodes);
    }
    let mut outcomes: Vec<(usize, Outcome)> = Vec::with_capacity(candidates.as_ref().map_or(nodes.len(), Vec::len));
    let mut feasible = Vec::new();
    // The raw static scores of the feasible nodes, in `feasible` order.
    let mut raw_static = Vec::new();
    // Evaluates node `i`; whether it is feasible. Past the search's end (`beyond`), a
    // feasible node is listed but neither scored nor a candidate.
    let mut evaluate = |i: usize, beyond: bool| -> bool {
        let Some(node) = nodes.get(i) else { return false };
        // The cache holds one entry per node (`prepare`).
        let entry = match cache.as_deref_mut().and_then(|c| c.entries.get_mut(i)) {
            Some(cached) => {
                if matches!(cached, StaticEntry::Unknown) {
                    *cached = static_entry(&ctx, node, cfg);
                }
                *cached
            }
            None => static_entry(&ctx, node, cfg),
        };
        let outcome = match entry {
            StaticEntry::Fail(filter) => Outcome::StaticFail(filter),
            StaticEntry::Unknown | StaticEntry::Pass { .. } => match run_dynamic_filters(&ctx, node, cfg) {
                Some(fail) => Outcome::DynamicFail(Box::new(fail)),
                None if beyond => Outcome::Unscored,
                None => {
                    feasible.push(i);
                    raw_static.push(match entry {
                        StaticEntry::Pass { taint, affinity } => (taint, affinity),
                        _ => (0, 0),
                    });
                    Outcome::Feasible(feasible.len() - 1)
                }
            },
        };
        let fits = matches!(outcome, Outcome::Feasible(_));
        outcomes.push((i, outcome));
        fits
    };
    match search {
        None => match &candidates {
            Some(c) => c.iter().for_each(|&i| {
                evaluate(i, false);
            }),
            None => (0..nodes.len()).for_each(|i| {
                evaluate(i, false);
            }),
        },
        Some(search) => {
            let (order, wanted) = search.plan(candidates.as_deref());
            // Upstream's `processedNodes`: the feasible nodes found and the failing ones met
            // until the search stopped.
            let (mut found, mut evaluated, mut processed) = (0, 0, None);
            for i in order {
                if processed.is_some() && detail != Detail::Explain {
                    break;
                }
                evaluated += 1;
                if evaluate(i, processed.is_some()) {
                    found += 1;
                    if found == wanted {
                        processed = Some(evaluated);
                    }
                }
            }
            search.advance(processed.unwrap_or(evaluated));
            // Back to cluster order: verdicts are listed in it, and among equal scores the
            // node listed first wins, as without a search.
            in_index_order(&mut outcomes, &mut feasible, &mut raw_static);
        }
    }

    // Static failures' statuses by what they depend on, for the next node that fails the same
    // filter on the same inputs: an explained cycle at 5,000 nodes describes a tainted pool's
    // 1,500 nodes, and a nodeSelector's pool rejects the other pools' nodes (alternating in a
    // cluster's order) with one status per pool.
    let known_statuses: RefCell<Vec<(FilterPlugin, StaticStatusKey, Status)>> = RefCell::new(Vec::new());
    let static_status_of = |i: usize, filter: FilterPlugin, node: &NodeInfo| -> Status {
        // The node again, as borrowed from `nodes` (the keys borrow its taints and labels).
        let Some(key) = nodes.get(i).and_then(|n| static_status_key(filter, &ctx, n)) else {
            return static_status(filter, &ctx, node, cfg);
        };
        let mut known = known_statuses.borrow_mut();
        if let Some((_, _, status)) = known.iter().find(|(f, k, _)| *f == filter && *k == key) {
            return status.clone();
        }
        let status = static_status(filter, &ctx, node, cfg);
        if known.len() >= MAX_STATIC_STATUSES {
            known.pop();
        }
        known.push((filter, key, status.clone()));
        status
    };
    // A node's status; `None` for an absent node.
    let status_of = |i: usize, outcome: Option<&Outcome>| -> Option<(Status, Vec<InsufficientResource>)> {
        match outcome {
            None => Some((absent_status(&restricting_plugins, restricted.as_ref()), Vec::new())),
            Some(Outcome::StaticFail(filter)) => {
                nodes.get(i).map(|node| (static_status_of(i, *filter, node), Vec::new()))
            }
            Some(Outcome::DynamicFail(f)) => Some((f.0.clone(), f.1.clone())),
            Some(Outcome::Feasible(_) | Outcome::Unscored) => None,
        }
    };
    // Every node in cluster order (absent ones too) when `list_absent`, else the evaluated ones.
    let listed = |list_absent: bool| -> Vec<(usize, Option<&Outcome>)> {
        if list_absent && candidates.is_some() {
            in_cluster_order(nodes.len(), &outcomes).collect()
        } else {
            outcomes.iter().map(|(i, o)| (*i, Some(o))).collect()
        }
    };
    // A node that was not scored; `o` is `None` for an absent node.
    let unscored =
        |i: usize, o: Option<&Outcome>, (status, insufficient): (Status, Vec<InsufficientResource>)| NodeVerdict {
            node: node_name(nodes, i),
            status,
            insufficient,
            score: None,
            plugin_scores: Vec::new(),
            pre_filter: o.is_none(),
        };
    let failing_verdicts = |list_absent: bool| -> Vec<NodeVerdict> {
        listed(list_absent).into_iter().filter_map(|(i, o)| status_of(i, o).map(|s| unscored(i, o, s))).collect()
    };

    if feasible.is_empty() {
        let list_absent = !matches!(detail, Detail::Candidates { .. });
        let verdicts = failing_verdicts(list_absent);
        let absent = nodes.len() - outcomes.len();
        let failures = outcomes
            .iter()
            .map(|(i, o)| match o {
                Outcome::Feasible(_) => Failure::None,
                _ => status_of(*i, Some(o)).map_or(Failure::None, |(status, _)| Failure::Status(status)),
            })
            .chain(std::iter::repeat_with(|| Failure::Absent).take(absent));
        // DefaultPreemption over the nodes Filter found `Unschedulable` (only dynamic filters
        // return that code; static ones and PreFilter results are unresolvable).
        let potential: Vec<usize> = outcomes
            .iter()
            .filter(|(_, o)| matches!(o, Outcome::DynamicFail(f) if f.0.code == Code::Unschedulable))
            .map(|(i, _)| *i)
            .collect();
        let preemption = preempt(&ctx, nodes, &potential, cfg);
        let post_filter = PostFilter::after_pre_filter(cfg).message(&preemption, nodes.len());
        let message =
            fit_error_message(nodes.len(), failures, &restricting_plugins, restricted.is_some(), &post_filter);
        let preemption = match preemption {
            Preemption::Nominated(candidate) => Some(candidate),
            _ => None,
        };
        return ScheduleResult {
            node: None,
            verdicts,
            message: Some(message),
            skipped: skipped.into_iter().collect(),
            preemption,
        };
    }

    let breakdown = detail == Detail::Explain;
    let spread_cache = cache.map(|c| &mut c.spread);
    let (totals, parts) = score_nodes(&ctx, nodes, &feasible, &raw_static, cfg, breakdown, spread_cache);
    // Highest total wins; on a tie the node listed first (upstream samples one at random).
    let best = feasible.iter().zip(&totals).fold(None::<(usize, i64)>, |best, (&i, &s)| match best {
        Some((_, b)) if b >= s => best,
        _ => Some((i, s)),
    });
    let verdicts = match detail {
        Detail::Decision => Vec::new(),
        Detail::Failures => failing_verdicts(true),
        Detail::Explain | Detail::Candidates { .. } => {
            let mut parts = parts.into_iter();
            // Formatted once, if at all: an explained cycle at 5,000 nodes has 4,500 such
            // nodes, a daemon pod's cycle none.
            let unscored_detail = std::cell::OnceCell::<Arc<str>>::new();
            let unscored_detail = || {
                unscored_detail
                    .get_or_init(|| {
                        format!(
                            "fits, but not scored in this cycle: kube-scheduler stopped searching after {} feasible nodes (percentageOfNodesToScore)",
                            feasible.len()
                        )
                        .into()
                    })
                    .clone()
            };
            listed(detail == Detail::Explain)
                .into_iter()
                .map(|(i, o)| match o {
                    Some(Outcome::Feasible(k)) => NodeVerdict {
                        node: node_name(nodes, i),
                        status: Status::success(),
                        insufficient: Vec::new(),
                        score: totals.get(*k).copied(),
                        plugin_scores: parts.next().unwrap_or_default(),
                        pre_filter: false,
                    },
                    Some(Outcome::Unscored) => NodeVerdict {
                        node: node_name(nodes, i),
                        status: Status::success().with_detail(unscored_detail()),
                        insufficient: Vec::new(),
                        score: None,
                        plugin_scores: Vec::new(),
                        pre_filter: false,
                    },
                    _ => unscored(i, o, status_of(i, o).unwrap_or((Status::success(), Vec::new()))),
                })
                .collect()
        }
    };
    ScheduleResult {
        node: best.map(|(i, _)| i),
        verdicts,
        message: None,
        skipped: skipped.into_iter().collect(),
        preemption: None,
    }
}

/// DefaultPreemption for the pod of `ctx` over the `potential` nodes; its dry runs re-run
/// the dynamic filters with the cycle's PreFilter states.
fn preempt(ctx: &PodContext, nodes: &[NodeInfo], potential: &[usize], cfg: &SchedulerConfig) -> Preemption {
    if let Err(why) = default_preemption::eligible(&ctx.pod.spec) {
        return Preemption::NotEligible(why);
    }
    let budgets =
        if potential.is_empty() { Vec::new() } else { default_preemption::Budget::all(&cfg.disruption_budgets, nodes) };
    let fits = |node: &NodeInfo| run_dynamic_filters(ctx, node, cfg).map_or_else(Status::success, |(s, _)| s);
    default_preemption::preempt(&ctx.pod.spec, nodes, potential, &budgets, fits)
}

/// The pod's next cycle after it preempted: upstream's `evaluateNominatedNode`, which runs
/// PreFilter and then the filters on the nominated node alone, and takes it if it passes.
/// `false` sends the pod through a whole cycle again. `running`, as for
/// [`schedule_searching`], saves InterPodAffinity's PreFilter a walk over every node when no
/// bound pod has terms.
pub fn fits_nominated(
    pod: &Pod,
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
    requests: &PodRequests,
    node: usize,
    running: Option<&Running>,
) -> bool {
    let Some(info) = nodes.get(node) else { return false };
    let affinity_pods = running.map(|r| r.affinity_pods);
    let Ok(pre) = run_pre_filters(pod, nodes, cfg, affinity_pods.map(|c| c.with_required_anti_affinity)) else {
        return false;
    };
    if pre.restricted.as_ref().is_some_and(|names| !names.contains(info.name())) {
        return false;
    }
    let PreFilterOutcome { skipped, wanted_ports, spread, inter_pod, volumes, .. } = pre;
    let ctx = pod_context(pod, cfg, requests, &skipped, wanted_ports, spread, inter_pod, volumes, affinity_pods);
    matches!(static_entry(&ctx, info, cfg), StaticEntry::Pass { .. }) && run_dynamic_filters(&ctx, info, cfg).is_none()
}

/// The [`PodContext`] of a cycle whose PreFilter stage passed.
#[allow(clippy::too_many_arguments)]
fn pod_context<'a>(
    pod: &'a Pod,
    cfg: &SchedulerConfig,
    requests: &PodRequests,
    skipped: &BTreeSet<&'static str>,
    wanted_ports: Vec<HostPort>,
    spread: pod_topology_spread::PreFilterState,
    inter_pod: inter_pod_affinity::PreFilterState,
    volumes: VolumeStates,
    affinity_pods: Option<AffinityPods>,
) -> PodContext<'a> {
    let spec = &pod.spec;
    PodContext {
        pod,
        request: requests.request.clone(),
        least_allocated_request: requests.least_allocated.clone(),
        wanted_ports,
        affinity: node_affinity::State::new(spec, cfg),
        score_tolerations: taint_toleration::score_tolerations(spec),
        skip_ports: skipped.contains(node_ports::NAME),
        skip_spread: skipped.contains(pod_topology_spread::NAME),
        skip_inter_pod: skipped.contains(inter_pod_affinity::NAME),
        static_filters: cfg.profile.static_filters().filter(|f| !skipped.contains(f.name())).collect(),
        inter_pod,
        spread,
        affinity_pods: affinity_pods.map(|c| c.with_affinity),
        skip_volume_restrictions: skipped.contains(volume_restrictions::NAME),
        skip_volume_limits: skipped.contains(node_volume_limits::NAME),
        skip_volume_binding: skipped.contains(volume_binding::NAME),
        skip_volume_zone: skipped.contains(volume_zone::NAME),
        declared_features: node_declared_features::requirements(spec, cfg),
        volumes,
    }
}

/// What the PreFilter stage leaves for Filter: the plugins that skipped, the nodes PreFilter
/// results restrict the cycle to (and which plugins restricted it), and the plugins' states.
struct PreFilterOutcome {
    skipped: BTreeSet<&'static str>,
    restricted: Option<BTreeSet<String>>,
    restricting_plugins: Vec<&'static str>,
    wanted_ports: Vec<HostPort>,
    spread: pod_topology_spread::PreFilterState,
    inter_pod: inter_pod_affinity::PreFilterState,
    volumes: VolumeStates,
}

/// The volume plugins' PreFilter states.
#[derive(Debug, Clone, Default)]
struct VolumeStates {
    restrictions: volume_restrictions::PreFilterState,
    limits: node_volume_limits::PodVolumes,
    binding: volume_binding::PreFilterState,
    zones: Vec<volume_zone::PvTopology>,
}

/// PreFilter over the profile's plugins in order (`RunPreFilterPlugins`). An unresolvable
/// status, or PreFilter results whose intersection is empty, ends the cycle at once, before
/// DynamicResources' PreFilter (the last one) writes its state; an Unschedulable status lets
/// the others run and rejects the pod afterwards (kubernetes#119770). The error carries the
/// rejection and the PostFilter stage it leads to.
/// `anti_affinity_pods`: how many bound pods have required anti-affinity terms, when the
/// caller keeps count ([`Running`]).
fn run_pre_filters(
    pod: &Pod,
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
    anti_affinity_pods: Option<usize>,
) -> Result<PreFilterOutcome, (Status, PostFilter)> {
    let spec = &pod.spec;
    let mut out = PreFilterOutcome {
        skipped: BTreeSet::new(),
        restricted: None,
        restricting_plugins: Vec::new(),
        wanted_ports: Vec::new(),
        spread: pod_topology_spread::PreFilterState::default(),
        inter_pod: inter_pod_affinity::PreFilterState::default(),
        volumes: VolumeStates::default(),
    };
    let mut unschedulable: Option<Status> = None;
    let storage = cfg.storage.as_deref();
    for filter in cfg.profile.enabled_filters(&cfg.gates) {
        let (status, names) = match (filter, storage) {
            // Storage not modelled: the volume plugins have nothing to read.
            (
                FilterPlugin::VolumeRestrictions
                | FilterPlugin::NodeVolumeLimits
                | FilterPlugin::VolumeBinding
                | FilterPlugin::VolumeZone,
                None,
            ) => (Status::skip(), None),
            (FilterPlugin::VolumeRestrictions, Some(storage)) => {
                let (status, state) = volume_restrictions::pre_filter(pod, storage);
                out.volumes.restrictions = state;
                (status, None)
            }
            (FilterPlugin::NodeVolumeLimits, Some(storage)) => {
                let status = node_volume_limits::pre_filter(pod);
                if status.is_success() {
                    out.volumes.limits = node_volume_limits::PodVolumes::of(pod, storage);
                }
                (status, None)
            }
            (FilterPlugin::VolumeBinding, Some(storage)) => {
                let (status, mut state) = volume_binding::pre_filter(pod, storage, &cfg.gates);
                // Its PreFilterResult: the nodes the bound claims' local PVs name (Filter does
                // not read it).
                let names = state.eligible_nodes.take();
                out.volumes.binding = state;
                (status, names)
            }
            (FilterPlugin::VolumeZone, Some(storage)) => {
                let (status, zones) = volume_zone::pre_filter(pod, storage);
                out.volumes.zones = zones;
                (status, None)
            }
            (filter, _) => match filter {
                FilterPlugin::NodeName => node_name::pre_filter(spec),
                FilterPlugin::NodeAffinity => node_affinity::pre_filter(spec, cfg),
                FilterPlugin::NodePorts => {
                    let (status, ports) = node_ports::pre_filter(spec);
                    out.wanted_ports = ports;
                    (status, None)
                }
                FilterPlugin::NodeResourcesFit => (node_resources_fit::pre_filter(spec, cfg), None),
                FilterPlugin::PodTopologySpread => {
                    let (status, state) = pod_topology_spread::pre_filter(pod, nodes, cfg);
                    out.spread = state;
                    (status, None)
                }
                FilterPlugin::InterPodAffinity => {
                    let (status, state) = inter_pod_affinity::pre_filter(pod, nodes, cfg, anti_affinity_pods);
                    out.inter_pod = state;
                    (status, None)
                }
                // Skip when the pod requires nothing (the requirements are read again into
                // the cycle's context: a walk of the containers).
                FilterPlugin::NodeDeclaredFeatures => match node_declared_features::requirements(spec, cfg) {
                    None => (Status::skip(), None),
                    Some(_) => (Status::success(), None),
                },
                // No PreFilter.
                FilterPlugin::NodeUnschedulable | FilterPlugin::TaintToleration => continue,
                FilterPlugin::VolumeRestrictions
                | FilterPlugin::NodeVolumeLimits
                | FilterPlugin::VolumeBinding
                | FilterPlugin::VolumeZone => continue,
            },
        };
        let name = filter.name();
        match status.code {
            Code::Skip => {
                out.skipped.insert(name);
            }
            Code::UnschedulableAndUnresolvable => {
                return Err((status.with_plugin(name), PostFilter::before_dynamic_resources(cfg)));
            }
            Code::Unschedulable => unschedulable = Some(status.with_plugin(name)),
            Code::Success => {
                let Some(names) = names else { continue };
                out.restricting_plugins.push(name);
                let merged = match out.restricted.take() {
                    None => names,
                    Some(prev) => prev.intersection(&names).cloned().collect(),
                };
                if merged.is_empty() {
                    let reason = empty_intersection_reason(&out.restricting_plugins);
                    let status = Status::new(Code::UnschedulableAndUnresolvable, reason).with_plugin(name);
                    return Err((status, PostFilter::before_dynamic_resources(cfg)));
                }
                out.restricted = Some(merged);
            }
        }
    }
    match unschedulable {
        Some(status) => Err((status, PostFilter::after_pre_filter(cfg))),
        None => Ok(out),
    }
}

/// The indices of the nodes named, in cluster order. A DaemonSet's pod names one node: where
/// the `hint` holds it, that is the answer (node names are unique); else each node's name is
/// compared with it rather than searched for in the set.
fn named_nodes(nodes: &[NodeInfo], names: &BTreeSet<String>, hint: Option<usize>) -> Vec<usize> {
    let only = names.first().filter(|_| names.len() == 1);
    if let (Some(only), Some(h)) = (only, hint) {
        if nodes.get(h).is_some_and(|n| n.name() == only) {
            return vec![h];
        }
    }
    let matching = |name: &str| match only {
        Some(only) => name == only,
        None => names.contains(name),
    };
    nodes.iter().enumerate().filter(|(_, n)| matching(n.name())).map(|(i, _)| i).collect()
}

/// Every node index in order with its outcome, `None` for the nodes `outcomes` (sorted by
/// index) does not hold.
fn in_cluster_order(n: usize, outcomes: &[(usize, Outcome)]) -> impl Iterator<Item = (usize, Option<&Outcome>)> {
    let mut next = outcomes.iter().peekable();
    (0..n).map(move |i| match next.peek() {
        Some((j, _)) if *j == i => (i, next.next().map(|(_, o)| o)),
        _ => (i, None),
    })
}

/// The status of a node a PreFilter result removed.
fn absent_status(restricting_plugins: &[&'static str], allowed: Option<&BTreeSet<String>>) -> Status {
    Status::new(Code::UnschedulableAndUnresolvable, absent_nodes_reason(restricting_plugins))
        .with_plugin(restricting_plugins.first().copied().unwrap_or(node_affinity::NAME))
        .with_detail(format!(
            "pod is restricted to node(s) {}",
            allowed.map(|a| a.iter().cloned().collect::<Vec<_>>().join(", ")).unwrap_or_default()
        ))
}

/// One node's part in the FailedScheduling message.
enum Failure {
    /// Removed by a PreFilter result.
    Absent,
    /// Rejected by a filter.
    Status(Status),
    /// Fits.
    None,
}

/// `FitError.Error()` when no node fits: the histogram of the evaluated nodes' reasons, the
/// removed nodes under `AbsentNodesStatus`, and DefaultPreemption's message over all nodes.
fn fit_error_message(
    num_all_nodes: usize,
    failures: impl Iterator<Item = Failure>,
    restricting_plugins: &[&'static str],
    restricted: bool,
    post_filter: &str,
) -> String {
    let absent_reason = absent_nodes_reason(restricting_plugins);
    let mut absent = 0;
    let mut statuses = Vec::new();
    for failure in failures {
        match failure {
            Failure::Absent => absent += 1,
            Failure::Status(status) => statuses.push(status),
            Failure::None => {}
        }
    }
    let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
    for r in statuses.iter().flat_map(|s| &s.reasons) {
        *histogram.entry(r).or_default() += 1;
    }
    if restricted && absent > 0 {
        *histogram.entry(&absent_reason).or_default() += absent;
    }
    format_message(num_all_nodes, "", &histogram, post_filter)
}

/// The static filters in order: the first that rejects the node, or the raw static scores of
/// a node that passes them all.
fn static_entry(ctx: &PodContext, node: &NodeInfo, cfg: &SchedulerConfig) -> StaticEntry {
    for &filter in &ctx.static_filters {
        if static_rejects(filter, &ctx.pod.spec, &ctx.affinity, node, cfg) {
            return StaticEntry::Fail(filter);
        }
    }
    StaticEntry::Pass {
        taint: taint_toleration::score(&ctx.score_tolerations, node.node(), cfg),
        affinity: ctx.affinity.score(node),
    }
}

/// The filters that depend on what is bound to the node or elsewhere in the cluster, in the
/// profile's order; `None` when the node passes them all.
fn run_dynamic_filters(
    ctx: &PodContext,
    node: &NodeInfo,
    cfg: &SchedulerConfig,
) -> Option<(Status, Vec<InsufficientResource>)> {
    for filter in cfg.profile.dynamic_filters() {
        let (status, insufficient) = match filter {
            FilterPlugin::NodePorts if !ctx.skip_ports => (node_ports::filter(&ctx.wanted_ports, node), Vec::new()),
            FilterPlugin::NodeResourcesFit => node_resources_fit::filter(&ctx.request, node, cfg),
            FilterPlugin::PodTopologySpread if !ctx.skip_spread => {
                (pod_topology_spread::filter(&ctx.spread, ctx.pod, node), Vec::new())
            }
            FilterPlugin::InterPodAffinity if !ctx.skip_inter_pod => {
                (inter_pod_affinity::filter(&ctx.inter_pod, ctx.pod, node), Vec::new())
            }
            FilterPlugin::VolumeRestrictions if !ctx.skip_volume_restrictions => {
                (volume_restrictions::filter(&ctx.volumes.restrictions, ctx.pod, node), Vec::new())
            }
            FilterPlugin::NodeVolumeLimits if !ctx.skip_volume_limits => match cfg.storage.as_deref() {
                Some(storage) => {
                    (node_volume_limits::filter_with(&ctx.volumes.limits, ctx.pod, node, storage), Vec::new())
                }
                None => continue,
            },
            FilterPlugin::VolumeBinding if !ctx.skip_volume_binding => match cfg.storage.as_deref() {
                Some(storage) => match volume_binding::filter(&ctx.volumes.binding, node, storage) {
                    Ok(_) => continue,
                    Err(status) => (status, Vec::new()),
                },
                None => continue,
            },
            FilterPlugin::VolumeZone if !ctx.skip_volume_zone => {
                (volume_zone::filter(&ctx.volumes.zones, ctx.pod, node), Vec::new())
            }
            FilterPlugin::NodeDeclaredFeatures => match &ctx.declared_features {
                Some(required) => (node_declared_features::filter(required, node.node(), cfg.version), Vec::new()),
                None => continue,
            },
            _ => continue,
        };
        if !status.is_success() {
            return Some((status.with_plugin(filter.name()), insufficient));
        }
    }
    None
}

/// Scores every feasible node with the profile's score plugins and weights; returns the
/// totals in `feasible` order and, with `breakdown`, each node's per-plugin scores.
fn score_nodes(
    ctx: &PodContext,
    nodes: &[NodeInfo],
    feasible: &[usize],
    raw_static: &[(i64, i64)],
    cfg: &SchedulerConfig,
    breakdown: bool,
    mut spread_cache: Option<&mut pod_topology_spread::ScoreCache>,
) -> (Vec<i64>, Vec<Vec<PluginScore>>) {
    // Each plugin's raw and normalized scores per feasible node, plugin after plugin in one
    // buffer (`n` entries each: a DaemonSet's 1,000 one-node cycles would allocate a vector
    // per plugin each); `None` where the plugin does not score the node (BalancedAllocation
    // for a best-effort pod).
    let plugins = cfg.profile.scores;
    let n = feasible.len();
    let mut scored: Vec<Option<Scored>> = Vec::with_capacity(plugins.len() * n);
    for &(plugin, _) in plugins {
        let cache = spread_cache.as_deref_mut();
        plugin_scores(plugin, ctx, nodes, feasible, raw_static, cfg, cache, &mut scored);
    }
    let mut totals = Vec::with_capacity(n);
    let mut all_parts = Vec::with_capacity(if breakdown { n } else { 0 });
    for k in 0..n {
        let node_scores = plugins
            .iter()
            .enumerate()
            .filter_map(|(p, &(plugin, weight))| scored.get(p * n + k).copied().flatten().map(|s| (plugin, weight, s)));
        totals.push(node_scores.clone().map(|(_, weight, s)| s.normalized * weight).sum());
        if breakdown {
            all_parts.push(
                node_scores
                    .map(|(plugin, weight, s)| PluginScore {
                        plugin: plugin.name(),
                        raw: s.raw,
                        score: s.normalized,
                        weight,
                    })
                    .collect(),
            );
        }
    }
    (totals, all_parts)
}

/// The name of node `i`; the cycle's indices are positions in `nodes`.
fn node_name(nodes: &[NodeInfo], i: usize) -> Arc<str> {
    nodes.get(i).map_or_else(|| Arc::from(""), |n| n.shared_name().clone())
}

/// One plugin's score for one node: what its Score returned and what its NormalizeScore
/// made of it.
#[derive(Debug, Clone, Copy)]
struct Scored {
    raw: Option<i64>,
    normalized: i64,
}

impl Scored {
    /// A plugin without NormalizeScore: the raw score is the score.
    fn plain(score: i64) -> Self {
        Self { raw: Some(score), normalized: score }
    }
}

/// Appends one score plugin's raw and normalized scores for the feasible nodes to `out`, in
/// `feasible` order (one entry per feasible node).
#[allow(clippy::too_many_arguments)]
fn plugin_scores(
    plugin: ScorePlugin,
    ctx: &PodContext,
    nodes: &[NodeInfo],
    feasible: &[usize],
    raw_static: &[(i64, i64)],
    cfg: &SchedulerConfig,
    spread_cache: Option<&mut pod_topology_spread::ScoreCache>,
    out: &mut Vec<Option<Scored>>,
) {
    // `helper.DefaultNormalizeScore` over the raw scores.
    let mut default_normalized = |raw: &mut dyn Iterator<Item = i64>, reverse: bool| {
        let start = out.len();
        out.extend(raw.map(|r| Some(Scored::plain(r))));
        let added = out.get_mut(start..).unwrap_or_default();
        let highest = added.iter().flatten().map(|s| s.normalized).max().unwrap_or(0);
        for s in added.iter_mut().flatten() {
            s.normalized =
                default_normalized(crate::scheduler::plugins::MAX_NODE_SCORE, reverse, highest, s.normalized);
        }
    };
    match plugin {
        ScorePlugin::TaintToleration => default_normalized(&mut raw_static.iter().map(|r| r.0), true),
        ScorePlugin::NodeAffinity => default_normalized(&mut raw_static.iter().map(|r| r.1), false),
        ScorePlugin::NodeResourcesFit => out.extend(feasible.iter().map(|&i| {
            nodes.get(i).map(|node| {
                Scored::plain(node_resources_fit::least_allocated_score(&ctx.least_allocated_request, node))
            })
        })),
        ScorePlugin::PodTopologySpread => {
            match pod_topology_spread::raw_scores(ctx.pod, nodes, feasible, cfg, spread_cache) {
                Some(raw) => {
                    let normalized = pod_topology_spread::normalize_score(&raw);
                    out.extend(
                        raw.into_iter().zip(normalized).map(|(raw, normalized)| Some(Scored { raw, normalized })),
                    );
                }
                // PreScore returned Skip: every node scores 0.
                None => out.extend(feasible.iter().map(|_| Some(Scored { raw: None, normalized: 0 }))),
            }
        }
        // InterPodAffinity's NormalizeScore maps equal scores to 0, and a single feasible node
        // (a daemon pod's own node) always ties with itself: skip PreScore's walk over every pod.
        ScorePlugin::InterPodAffinity if feasible.len() == 1 => out.push(Some(Scored { raw: None, normalized: 0 })),
        ScorePlugin::InterPodAffinity => {
            let raw = inter_pod_affinity::raw_scores(ctx.pod, nodes, feasible, cfg, ctx.affinity_pods);
            let mut normalized = raw.clone();
            inter_pod_affinity::normalize_score(&mut normalized);
            out.extend(
                raw.into_iter().zip(normalized).map(|(raw, normalized)| Some(Scored { raw: Some(raw), normalized })),
            );
        }
        ScorePlugin::NodeResourcesBalancedAllocation => out.extend(feasible.iter().map(|&i| {
            nodes
                .get(i)
                .and_then(|node| node_resources_fit::balanced_allocation_score(&ctx.request, node, cfg.version))
                .map(Scored::plain)
        })),
    }
}

/// A PreFilter rejection: every node shares the status, and the message carries only the
/// PreFilter's reasons.
fn pre_filter_rejection(status: Status, spec: &PodSpec, nodes: &[NodeInfo], post_filter: PostFilter) -> ScheduleResult {
    let verdicts: Vec<NodeVerdict> = nodes
        .iter()
        .map(|n| NodeVerdict {
            node: n.shared_name().clone(),
            status: status.clone(),
            insufficient: Vec::new(),
            score: None,
            plugin_scores: Vec::new(),
            pre_filter: true,
        })
        .collect();
    // Every node has the PreFilter's status: an unresolvable one leaves preemption no node
    // to try. An `Unschedulable` one (VolumeRestrictions' ReadWriteOncePod conflict) has
    // upstream try every node with the PreFilter states updated for each victim removed;
    // Placement does not model that, and finds no victims on any node.
    let tried = if status.code == Code::Unschedulable {
        let no_victims = Status::new(Code::UnschedulableAndUnresolvable, default_preemption::NO_VICTIMS);
        (0..nodes.len()).map(|i| (i, no_victims.clone())).collect()
    } else {
        Vec::new()
    };
    let preemption = match default_preemption::eligible(spec) {
        Err(why) => Preemption::NotEligible(why),
        Ok(()) => Preemption::NoCandidate { tried },
    };
    let fit_error = FitError {
        num_all_nodes: nodes.len(),
        pre_filter_msg: status.reasons.join(", "),
        post_filter_msg: post_filter.message(&preemption, nodes.len()),
        ..Default::default()
    };
    ScheduleResult { node: None, verdicts, message: Some(fit_error.message()), skipped: Vec::new(), preemption: None }
}

/// The PostFilter plugins of the profile, in order, as they stand when a cycle finds no node.
///
/// With DynamicResourceAllocation on, DynamicResources runs before DefaultPreemption
/// (`applyFeatureGates` in upstream's default_plugins.go). For a pod without resource claims
/// its PostFilter returns Unschedulable with `no new claims to deallocate`, and the framework
/// joins every Unschedulable PostFilter's reasons with ", " (`RunPostFilterPlugins`), so the
/// message reads `... no new claims to deallocate, preemption: 0/N nodes ...`. When a
/// PreFilter plugin ordered before it rejected the pod, its PreFilter never wrote its cycle
/// state: its PostFilter fails with the state store's `not found` error, which ends the
/// PostFilter stage before preemption and becomes the message's last part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PostFilter {
    /// DefaultPreemption alone.
    Preemption,
    /// DynamicResources, then DefaultPreemption.
    DynamicResourcesThenPreemption,
    /// DynamicResources without its cycle state: the stage ends in an error.
    DynamicResourcesStateMissing,
}

impl PostFilter {
    /// After every PreFilter ran (a Filter-stage failure or an Unschedulable PreFilter).
    fn after_pre_filter(cfg: &SchedulerConfig) -> Self {
        if cfg.gates.dynamic_resource_allocation {
            Self::DynamicResourcesThenPreemption
        } else {
            Self::Preemption
        }
    }

    /// After a PreFilter plugin ordered before DynamicResources ended the cycle.
    fn before_dynamic_resources(cfg: &SchedulerConfig) -> Self {
        if cfg.gates.dynamic_resource_allocation {
            Self::DynamicResourcesStateMissing
        } else {
            Self::Preemption
        }
    }

    /// The PostFilter part of the FailedScheduling message, DefaultPreemption's outcome
    /// being `preemption`. A nominated node ends the stage with Success: no part at all.
    fn message(self, preemption: &Preemption, num_all_nodes: usize) -> String {
        match (self, preemption) {
            (Self::DynamicResourcesStateMissing, _) => STATE_NOT_FOUND.to_string(),
            (_, Preemption::Nominated(_)) => String::new(),
            (Self::Preemption, p) => p.message(num_all_nodes),
            (Self::DynamicResourcesThenPreemption, p) => format!("{NO_NEW_CLAIMS}, {}", p.message(num_all_nodes)),
        }
    }
}

/// DynamicResources' PostFilter reason for a pod without resource claims.
const NO_NEW_CLAIMS: &str = "no new claims to deallocate";
/// `framework.ErrNotFound`, what reading a cycle state key nobody wrote returns.
const STATE_NOT_FOUND: &str = "not found";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::quantity::Quantity;
    use crate::model::{
        Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration, TopologySpreadConstraint,
        Volume,
    };

    fn node(name: &str, cpu: &str, taint: Option<&str>) -> NodeInfo {
        let mut n = Node::default();
        n.metadata.name = name.into();
        n.status.allocatable = Some(
            [("cpu", cpu), ("memory", "8Gi"), ("pods", "110")]
                .into_iter()
                .map(|(k, v)| (k.to_string(), Quantity::parse(v).unwrap()))
                .collect(),
        );
        if let Some(key) = taint {
            n.spec.taints.push(Taint { key: key.into(), value: String::new(), effect: "NoSchedule".into() });
        }
        NodeInfo::new(n)
    }

    fn pod(cpu: &str) -> Pod {
        let mut p = Pod::default();
        p.metadata.name = "p".into();
        p.metadata.namespace = Some("default".into());
        let mut c = crate::model::Container::default();
        c.resources.requests.insert("cpu".into(), Quantity::parse(cpu).unwrap());
        p.spec.containers.push(c);
        p
    }

    /// Required node affinity with one term per entry, each term a list of
    /// `metadata.name In [...]` requirements.
    fn pin(p: &mut Pod, terms: &[&[&[&str]]]) {
        let field = |values: &[&str]| NodeSelectorRequirement {
            key: "metadata.name".into(),
            operator: "In".into(),
            values: values.iter().map(|s| s.to_string()).collect(),
        };
        let terms = terms
            .iter()
            .map(|reqs| NodeSelectorTerm {
                match_expressions: vec![],
                match_fields: reqs.iter().map(|r| field(r)).collect(),
            })
            .collect();
        p.spec.affinity = Some(crate::model::Affinity {
            node_affinity: Some(crate::model::NodeAffinity {
                required: Some(NodeSelector { node_selector_terms: terms }),
                preferred: vec![],
            }),
            ..Default::default()
        });
    }

    #[test]
    fn failed_scheduling_messages() {
        // Without DynamicResources in the profile (before 1.34): DefaultPreemption alone.
        let cfg = SchedulerConfig::for_version(crate::model::version::KubeVersion::new(1, 33));
        // Node a could hold the pod if it were empty (so preemption is the question), but
        // 1.5 of its 3 cpus are taken.
        let mut busy = node("a", "3", None);
        busy.requested.milli_cpu = 1500;
        let cluster = [busy, node("b", "4", Some("gpu")), node("c", "4", Some("gpu"))];
        // (pod, expected message, why)
        let mut pinned = pod("2");
        pin(&mut pinned, &[&[&["a"]]]);
        let mut conflict = pod("1");
        pin(&mut conflict, &[&[&["a"], &["b"]]]);
        let rows = [
            (
                pod("2"),
                "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {gpu: }. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
                "histogram sorted byte-wise; cpu is resolvable by preemption, taints are not",
            ),
            (
                pinned,
                "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
                "a pinned pod (as a DaemonSet's) counts the other nodes as absent",
            ),
            (
                conflict,
                "0/3 nodes are available: pod affinity terms conflict. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
                "a PreFilter rejection replaces the per-node histogram",
            ),
        ];
        for (p, expected, why) in rows {
            let r = schedule(&p, &cluster, &cfg, true);
            assert_eq!(r.node, None, "{why}");
            assert_eq!(r.message.as_deref(), Some(expected), "{why}");
        }
        // With it (1.34+): its PostFilter text for a pod without claims comes first, and after
        // a PreFilter rejection that ran before its PreFilter, its missing state ends the stage.
        let dra = SchedulerConfig::for_version(crate::model::version::KubeVersion::new(1, 35));
        let mut conflict = pod("1");
        pin(&mut conflict, &[&[&["a"], &["b"]]]);
        let rows = [
            (
                pod("2"),
                "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). no new claims to deallocate, preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
                "Filter failures: DynamicResources, then DefaultPreemption",
            ),
            (conflict, "0/3 nodes are available: pod affinity terms conflict. not found", "PreFilter rejection: no preemption"),
        ];
        for (p, expected, why) in rows {
            let r = schedule(&p, &cluster, &dra, true);
            assert_eq!(r.message.as_deref(), Some(expected), "{why}");
        }
        let too_big = schedule(&pod("5"), &cluster[..1], &dra, true);
        assert_eq!(
            too_big.message.as_deref(),
            Some("0/1 nodes are available: 1 Insufficient cpu. no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
            "a request above allocatable is unresolvable: no preemption can help"
        );
    }

    #[test]
    fn first_failing_plugin_decides_and_is_named() {
        let cfg = SchedulerConfig::default();
        let cluster = [node("b", "1", Some("gpu"))];
        let r = schedule(&pod("2"), &cluster, &cfg, true);
        // TaintToleration runs before NodeResourcesFit, so cpu is never mentioned.
        assert_eq!(r.verdicts[0].status.plugin, Some("TaintToleration"));
        assert_eq!(r.verdicts[0].status.detail.as_deref(), Some("untolerated taint {gpu: } (NoSchedule)"));
    }

    #[test]
    fn least_allocated_spreads_and_ties_go_to_the_first_node() {
        let cfg = SchedulerConfig::default();
        let mut cluster = vec![node("a", "4", None), node("b", "4", None)];
        let first = schedule(&pod("1"), &cluster, &cfg, true);
        assert_eq!(first.node, Some(0), "equal scores: the node listed first");
        assert_eq!(first.verdicts[0].score, first.verdicts[1].score);
        cluster[0].requested.milli_cpu += 1000;
        cluster[0].non_zero_requested.milli_cpu += 1000;
        let second = schedule(&pod("1"), &cluster, &cfg, true);
        assert_eq!(second.node, Some(1), "the emptier node scores higher");
    }

    #[test]
    fn without_explain_only_failures_are_kept() {
        let cfg = SchedulerConfig::default();
        let cluster = [node("a", "4", None), node("b", "4", Some("gpu"))];
        let r = schedule(&pod("1"), &cluster, &cfg, false);
        assert_eq!(r.node, Some(0));
        assert_eq!(r.verdicts.len(), 1);
        assert_eq!(&*r.verdicts[0].node, "b");
    }

    /// The DaemonSet fast path (only the pinned node evaluated) gives the same decision and
    /// the same FailedScheduling message as evaluating every node, and its one verdict is the
    /// full path's verdict for that node (its score without the per-plugin breakdown).
    #[test]
    fn candidates_only_evaluates_the_pinned_node_with_the_same_message() {
        let cfg = SchedulerConfig::default();
        let mut busy = node("a", "3", None);
        busy.requested.milli_cpu = 1500;
        let cluster = [busy, node("b", "4", Some("gpu")), node("c", "4", None), node("d", "1", None)];
        // (pinned node, cpu request, why)
        let rows = [
            ("a", "2", "does not fit: Insufficient cpu, resolvable"),
            ("d", "2", "above allocatable: unresolvable"),
            ("b", "1", "untolerated taint on the pinned node"),
            ("c", "1", "fits"),
        ];
        for (target, cpu, why) in rows {
            let mut p = pod(cpu);
            pin(&mut p, &[&[&[target]]]);
            let full = schedule(&p, &cluster, &cfg, true);
            let i = cluster.iter().position(|n| n.name() == target).unwrap();
            // No hint, the right one, and a wrong one (ignored after the name check).
            for hint in [None, Some(i), Some((i + 1) % cluster.len()), Some(99)] {
                let fast = schedule_with(&p, &cluster, &cfg, Detail::Candidates { hint }, None);
                assert_eq!(fast.node, full.node, "{why}, {hint:?}");
                assert_eq!(fast.message, full.message, "{why}, {hint:?}");
                assert_eq!(fast.verdicts.len(), 1, "{why}, {hint:?}: only the pinned node is listed");
                let (a, b) = (&fast.verdicts[0], &full.verdicts[i]);
                assert_eq!(
                    (&a.node, &a.status, &a.insufficient, a.score),
                    (&b.node, &b.status, &b.insufficient, b.score)
                );
                // The total, not its breakdown: a daemon pod's node is not ranked among others.
                assert!(a.plugin_scores.is_empty(), "{why}");
            }
        }
    }

    /// An explained cycle builds each NodeAffinity rejection's status once per set of the
    /// nodeSelector's label values; every node still gets the status its own filter gives.
    #[test]
    fn node_affinity_statuses_are_each_nodes_own() {
        let cfg = SchedulerConfig::default();
        let labelled = |name: &str, labels: &[(&str, &str)]| {
            let mut n = node(name, "4", None).node().clone();
            n.metadata.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
            NodeInfo::new(n)
        };
        // Pools alternate in the cluster's order; some nodes lack a key, one has both.
        let cluster: Vec<NodeInfo> = (0..12)
            .map(|i| {
                let pool = format!("p{}", i % 4);
                let disk = if i % 3 == 0 { "ssd" } else { "hdd" };
                match i {
                    5 => labelled(&format!("n{i}"), &[("disk", disk)]),
                    7 => labelled(&format!("n{i}"), &[]),
                    _ => labelled(&format!("n{i}"), &[("pool", &pool), ("disk", disk)]),
                }
            })
            .collect();
        // (nodeSelector, required terms, why)
        type Row<'a> = (&'a [(&'a str, &'a str)], bool, &'a str);
        let rows: [Row; 3] = [
            (&[("pool", "p3")], false, "one key"),
            (&[("pool", "p3"), ("disk", "ssd")], false, "two keys"),
            (&[], true, "required terms only"),
        ];
        for (selector, terms, why) in rows {
            let mut p = pod("1");
            if !selector.is_empty() {
                p.spec.node_selector = Some(selector.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect());
            }
            if terms {
                // Two terms over labels (not names: those restrict the cycle in PreFilter).
                let term = |key: &str, value: &str| NodeSelectorTerm {
                    match_expressions: vec![NodeSelectorRequirement {
                        key: key.into(),
                        operator: "In".into(),
                        values: vec![value.into()],
                    }],
                    match_fields: vec![],
                };
                p.spec.affinity = Some(crate::model::Affinity {
                    node_affinity: Some(crate::model::NodeAffinity {
                        required: Some(crate::model::NodeSelector {
                            node_selector_terms: vec![term("pool", "p1"), term("disk", "nvme")],
                        }),
                        ..Default::default()
                    }),
                    ..Default::default()
                });
            }
            let result = schedule(&p, &cluster, &cfg, true);
            let own = node_affinity::State::new(&p.spec, &cfg);
            let mut rejected = 0;
            for (v, n) in result.verdicts.iter().zip(&cluster) {
                let want = own.filter(n);
                if !want.is_success() {
                    rejected += 1;
                    assert_eq!(v.status, want.with_plugin(node_affinity::NAME), "{why}: {}", n.name());
                }
            }
            assert!(rejected >= 6, "{why}: {rejected}");
        }
    }

    /// A cache prepared for one pod serves another whose spec differs only where the static
    /// entries and the spreading counts do not look (a snapshot's pods of one controller differ
    /// in their token volume's name), and starts over otherwise; seeds carry the entries to
    /// another workload's cache only for the same static inputs. Either way, the cycle is the
    /// one a fresh cache gives.
    #[test]
    fn caches_and_seeds_follow_the_static_inputs() {
        let cfg = SchedulerConfig::default();
        let mut busy = node("a", "4", None);
        busy.requested.milli_cpu = 3500;
        let cluster = vec![busy, node("b", "4", Some("gpu")), node("c", "4", None), node("d", "1", None)];
        let gpu = Toleration { key: "gpu".into(), operator: "Exists".into(), ..Default::default() };
        let spread = TopologySpreadConstraint {
            max_skew: 1,
            topology_key: "kubernetes.io/hostname".into(),
            when_unsatisfiable: "ScheduleAnyway".into(),
            ..Default::default()
        };
        // (name, the second pod's spec change, whether the first pod's cache serves it)
        type Change = Box<dyn Fn(&mut PodSpec)>;
        let rows: Vec<(&str, Change, bool)> = vec![
            (
                "another volume",
                Box::new(|s| s.volumes.push(Volume { name: "kube-api-access-x2".into(), ..Default::default() })),
                true,
            ),
            ("another cpu request", Box::new(|s| s.containers = pod("2").spec.containers), true),
            ("a toleration", Box::new(move |s| s.tolerations.push(gpu.clone())), false),
            (
                "a node selector",
                Box::new(|s| {
                    s.node_selector = Some([("disk".to_string(), "ssd".to_string())].into());
                }),
                false,
            ),
            ("a node name", Box::new(|s| s.node_name = "c".into()), false),
            ("a spread constraint", Box::new(move |s| s.topology_spread_constraints.push(spread.clone())), false),
        ];
        let summary = |r: &ScheduleResult| {
            let verdicts: Vec<_> = r.verdicts.iter().map(|v| (v.node.clone(), v.status.clone(), v.score)).collect();
            (r.node, r.message.clone(), verdicts)
        };
        for (name, change, served) in rows {
            let first = pod("1");
            let mut second = pod("1");
            change(&mut second.spec);
            assert_eq!(same_cached_inputs(&first.spec, &second.spec), served, "{name}");
            let mut shared = StaticCache::default();
            schedule_with(&first, &cluster, &cfg, Detail::Explain, Some(&mut shared));
            let mut seeds = StaticSeeds::default();
            seeds.keep(&shared);
            let mut seeded = StaticCache::default();
            seeds.seed(&mut seeded, &second.spec, &cluster);
            assert_eq!(seeded.key.is_some(), same_static_inputs(&first.spec, &second.spec), "{name}: seeded");
            let fresh = summary(&schedule(&second, &cluster, &cfg, true));
            for (how, cache) in [("shared", &mut shared), ("seeded", &mut seeded)] {
                let got = schedule_with(&second, &cluster, &cfg, Detail::Explain, Some(cache));
                assert_eq!(summary(&got), fresh, "{name}, {how} cache");
            }
        }
    }

    /// A shared StaticCache and `Decision` give the same answers as fresh full cycles while
    /// pods are bound between cycles, and the cache starts over for another spec.
    #[test]
    fn static_cache_and_decision_match_full_cycles() {
        let cfg = SchedulerConfig::default();
        let mut cluster = vec![node("a", "2", None), node("b", "4", Some("gpu")), node("c", "3", None)];
        let mut cache = StaticCache::default();
        for round in 0..8 {
            let p = pod("1");
            let full = schedule(&p, &cluster, &cfg, false);
            let fast = schedule_with(&p, &cluster, &cfg, Detail::Decision, Some(&mut cache));
            assert_eq!(fast.node, full.node, "round {round}");
            assert_eq!(fast.message, full.message, "round {round}");
            if full.node.is_some() {
                assert!(fast.verdicts.is_empty(), "Decision lists nothing when a node is chosen");
            } else {
                let names = |r: &ScheduleResult| r.verdicts.iter().map(|v| v.node.clone()).collect::<Vec<_>>();
                assert_eq!(names(&fast), names(&full), "round {round}: as Failures when none fits");
            }
            if round == 3 {
                // Another spec through the same cache must not reuse the first spec's entries.
                let other = schedule_with(&pod("5"), &cluster, &cfg, Detail::Failures, Some(&mut cache));
                assert_eq!(other.message, schedule(&pod("5"), &cluster, &cfg, false).message);
            }
            if let Some(i) = full.node {
                cluster[i].requested.milli_cpu += 1000;
                cluster[i].non_zero_requested.milli_cpu += 1000;
            }
        }
    }

    /// The single-feasible-node shortcut relies on InterPodAffinity normalizing one score to 0
    /// whatever its raw value.
    #[test]
    fn inter_pod_affinity_scores_a_single_node_zero() {
        let cfg = SchedulerConfig::default();
        let mut a = node("a", "4", None);
        a.update_node(|n| {
            n.metadata.labels.insert("zone".into(), "z1".into());
        });
        let mut existing = pod("1");
        existing.metadata.labels.insert("app".into(), "db".into());
        a.add_pod(crate::scheduler::framework::PlacedPod::from_pod(&existing));
        let mut p = pod("1");
        let term = crate::model::PodAffinityTerm {
            label_selector: Some(crate::model::LabelSelector {
                match_labels: [("app".to_string(), "db".to_string())].into_iter().collect(),
                ..Default::default()
            }),
            topology_key: "zone".into(),
            ..Default::default()
        };
        p.spec.affinity = Some(crate::model::Affinity {
            pod_affinity: Some(crate::model::PodAffinity {
                preferred: vec![crate::model::WeightedPodAffinityTerm { weight: 50, pod_affinity_term: term }],
                ..Default::default()
            }),
            ..Default::default()
        });
        let cluster = [a, node("b", "4", None)];
        let both = inter_pod_affinity::score(&p, &cluster, &[0, 1], &cfg);
        assert_eq!(both, vec![100, 0], "the term matters when two nodes compete");
        assert_eq!(inter_pod_affinity::score(&p, &cluster, &[0], &cfg), vec![0]);
    }
}
