//! DefaultPreemption, the default profile's PostFilter (`plugins/defaultpreemption` and the
//! evaluator in `framework/preemption`): when no node fits, find nodes where evicting pods of
//! lower priority would make room, choose the fewest and least important victims, and
//! nominate one node.
//!
//! As upstream: only nodes whose filter status is `Unschedulable` are tried
//! (`NodesForStatusCode`); on each, every pod of lower priority is removed, the filters run,
//! and pods are then given back most important first (`MoreImportantPod`), those whose
//! PodDisruptionBudget the eviction would violate first (`filterPodsWithPDBViolation`), as
//! long as the pod still fits. Candidates are gathered until one that violates no budget is
//! found and `max(10% of the nodes, 100)` have been (`GetOffsetAndNumCandidates`), and
//! `pickOneNodeForPreemption` chooses among them.
//!
//! Deviations, documented in docs/modelling.md: upstream starts at a random node and checks
//! nodes in parallel, and breaks the final tie by map order; Placement starts at the first
//! node, checks in node order and keeps the first of tied candidates. Upstream sorts victims
//! with an unstable sort; Placement's is stable (equal pods keep their binding order). The
//! PreFilter states of PodTopologySpread and InterPodAffinity are not updated for the pods a
//! dry run removes (upstream's `RemovePod` extensions), so a pod that only fits once a spread
//! or anti-affinity peer is evicted finds no victims here.

use std::cmp::Ordering;
use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use crate::cluster::disruption;
use crate::model::labels::Selector;
use crate::model::scheduling::{PodDisruptionBudget, PREEMPT_NEVER};
use crate::model::PodSpec;
use crate::scheduler::fit_error::format_message;
use crate::scheduler::framework::{Code, NodeInfo, PlacedPod, Status};

pub const NAME: &str = "DefaultPreemption";
/// `SelectVictimsOnNode` on a node without lower-priority pods.
pub const NO_VICTIMS: &str = "No preemption victims found for incoming pod";
/// The status of the nodes preemption did not try (`SetAbsentNodesStatus`).
pub const NOT_HELPFUL: &str = "Preemption is not helpful for scheduling";
/// `PodEligibleToPreemptOthers` for a pod with `preemptionPolicy: Never`.
pub const NOT_ELIGIBLE_NEVER: &str = "not eligible due to preemptionPolicy=Never.";
/// `DefaultPreemptionArgs` defaults.
pub const MIN_CANDIDATE_NODES_PERCENTAGE: usize = 10;
pub const MIN_CANDIDATE_NODES_ABSOLUTE: usize = 100;

/// A pod preemption would evict.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Victim {
    pub namespace: Arc<str>,
    pub name: String,
    pub priority: i32,
    /// `status.startTime`; `None` for a pod that has not started (upstream reads it as now).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start_time: Option<Arc<str>>,
    /// The PodDisruptionBudgets its eviction goes beyond (`ns/name`); empty when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub violates: Vec<String>,
}

impl Victim {
    fn of(pod: &PlacedPod) -> Self {
        Self {
            namespace: pod.namespace.clone(),
            name: pod.name.clone(),
            priority: pod.priority,
            start_time: pod.start_time.clone(),
            violates: Vec::new(),
        }
    }

    /// `ns/name`.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace, self.name)
    }
}

/// A node where preemption makes room, with its victims, most important first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// Index into the cycle's nodes.
    pub node: usize,
    pub victims: Vec<Victim>,
    pub pdb_violations: usize,
}

/// What DefaultPreemption's PostFilter ends with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Preemption {
    /// `PodEligibleToPreemptOthers` said no, with its message.
    NotEligible(&'static str),
    /// No candidate: each tried node's status (in node order); the others were not helpful.
    NoCandidate { tried: Vec<(usize, Status)> },
    /// The node to nominate.
    Nominated(Candidate),
}

impl Preemption {
    /// The PostFilter status's message (`"preemption: " + msg`); empty when a node was
    /// nominated (the status is then Success, and the FailedScheduling message has no
    /// PostFilter part).
    pub fn message(&self, num_all_nodes: usize) -> String {
        match self {
            Preemption::NotEligible(why) => format!("preemption: {why}"),
            Preemption::NoCandidate { tried } => {
                let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
                for reason in tried.iter().flat_map(|(_, s)| &s.reasons) {
                    *histogram.entry(reason).or_default() += 1;
                }
                let absent = num_all_nodes.saturating_sub(tried.len());
                if absent > 0 {
                    *histogram.entry(NOT_HELPFUL).or_default() += absent;
                }
                format!("preemption: {}", format_message(num_all_nodes, "", &histogram, ""))
            }
            Preemption::Nominated(_) => String::new(),
        }
    }
}

/// A PodDisruptionBudget as preemption reads it: the lister's objects, with the disruptions
/// they allow now.
#[derive(Debug, Clone)]
pub struct Budget<'b> {
    pdb: &'b PodDisruptionBudget,
    selector: Selector,
    allowed: i32,
}

impl<'b> Budget<'b> {
    /// The budgets over the pods now bound to `nodes` (only a budget without a status counts
    /// them).
    pub fn all(pdbs: &'b [PodDisruptionBudget], nodes: &[NodeInfo]) -> Vec<Budget<'b>> {
        pdbs.iter()
            .map(|pdb| {
                let bound = nodes.iter().flat_map(|n| n.pods()).map(|p| (&*p.namespace, &*p.labels));
                Budget {
                    pdb,
                    selector: disruption::selector(pdb),
                    allowed: disruption::disruptions_allowed(pdb, bound),
                }
            })
            .collect()
    }
}

/// `PodEligibleToPreemptOthers`. (Its second rule, a terminating victim on the nominated
/// node, never applies: the simulation deletes victims at once.)
pub fn eligible(spec: &PodSpec) -> Result<(), &'static str> {
    match spec.preemption_policy.as_deref() {
        Some(PREEMPT_NEVER) => Err(NOT_ELIGIBLE_NEVER),
        _ => Ok(()),
    }
}

/// `calculateNumCandidates`.
pub fn num_candidates(potential_nodes: usize) -> usize {
    (potential_nodes * MIN_CANDIDATE_NODES_PERCENTAGE / 100).max(MIN_CANDIDATE_NODES_ABSOLUTE).min(potential_nodes)
}

/// `Evaluator.Preempt` for a pod of `spec` (admitted: `spec.priority` resolved): `potential`
/// are the nodes whose status is `Unschedulable`, in node order; `fits` runs the Filter
/// plugins for the pod on a node as a dry run leaves it.
pub fn preempt(
    spec: &PodSpec,
    nodes: &[NodeInfo],
    potential: &[usize],
    budgets: &[Budget],
    mut fits: impl FnMut(&NodeInfo) -> Status,
) -> Preemption {
    if let Err(why) = eligible(spec) {
        return Preemption::NotEligible(why);
    }
    let priority = crate::cluster::priority::pod_priority(spec);
    let wanted = num_candidates(potential.len());
    let (mut non_violating, mut violating) = (Vec::new(), Vec::new());
    let mut tried = Vec::new();
    for &i in potential {
        let Some(node) = nodes.get(i) else { continue };
        match select_victims_on_node(priority, node, budgets, &mut fits) {
            Ok((victims, pdb_violations)) => {
                let candidate = Candidate { node: i, victims, pdb_violations };
                if pdb_violations == 0 {
                    non_violating.push(candidate);
                } else {
                    violating.push(candidate);
                }
                if !non_violating.is_empty() && non_violating.len() + violating.len() >= wanted {
                    break;
                }
            }
            Err(status) => tried.push((i, status)),
        }
    }
    non_violating.extend(violating);
    match pick_one_node(&non_violating) {
        Some(k) => Preemption::Nominated(non_violating.swap_remove(k)),
        None => Preemption::NoCandidate { tried },
    }
}

/// `SelectVictimsOnNode`: the victims on `node` (most important first) and how many of them
/// violate a budget; or the status that makes the node no candidate.
pub fn select_victims_on_node(
    priority: i32,
    node: &NodeInfo,
    budgets: &[Budget],
    fits: &mut impl FnMut(&NodeInfo) -> Status,
) -> Result<(Vec<Victim>, usize), Status> {
    let mut dry_run = node.clone();
    // Every lower-priority pod, taken off the node (back to front, so indices hold).
    let lower: Vec<usize> =
        (0..node.pods().len()).filter(|&k| node.pods().get(k).is_some_and(|p| p.priority < priority)).collect();
    if lower.is_empty() {
        return Err(Status::new(Code::UnschedulableAndUnresolvable, NO_VICTIMS).with_plugin(NAME));
    }
    let mut potential: Vec<PlacedPod> = lower.iter().rev().filter_map(|&k| dry_run.unbind(k)).collect();
    potential.reverse();
    let status = fits(&dry_run);
    if !status.is_success() {
        return Err(status);
    }
    // Most important first: they are the first given back.
    potential.sort_by(more_important_first);
    let (violating, non_violating) = split_by_budget_violation(potential, budgets);
    let mut victims: Vec<(PlacedPod, Vec<String>)> = Vec::new();
    let mut violations = 0;
    let mut reprieve = |pod: PlacedPod, violates: Vec<String>, dry_run: &mut NodeInfo| -> bool {
        dry_run.bind(pod);
        if fits(dry_run).is_success() {
            return true;
        }
        let last = dry_run.pods().len() - 1;
        if let Some(pod) = dry_run.unbind(last) {
            victims.push((pod, violates));
        }
        false
    };
    let both = !violating.is_empty() && !non_violating.is_empty();
    for (pod, violates) in violating {
        if !reprieve(pod, violates, &mut dry_run) {
            violations += 1;
        }
    }
    for (pod, violates) in non_violating {
        reprieve(pod, violates, &mut dry_run);
    }
    if both {
        victims.sort_by(|a, b| more_important_first(&a.0, &b.0));
    }
    let victims = victims.into_iter().map(|(pod, violates)| Victim { violates, ..Victim::of(&pod) }).collect();
    Ok((victims, violations))
}

/// `MoreImportantPod` as an ordering: higher priority first, then the earlier start (a pod
/// without one started now, after every pod that has one).
fn more_important_first(a: &PlacedPod, b: &PlacedPod) -> Ordering {
    b.priority.cmp(&a.priority).then_with(|| start_order(a.start_time.as_deref(), b.start_time.as_deref()))
}

/// Start times in order, a missing one (now) last. RFC 3339 timestamps as the API server
/// writes them (UTC, `Z`, whole seconds) order as strings.
fn start_order(a: Option<&str>, b: Option<&str>) -> Ordering {
    match (a, b) {
        (Some(x), Some(y)) => x.cmp(y),
        (Some(_), None) => Ordering::Less,
        (None, Some(_)) => Ordering::Greater,
        (None, None) => Ordering::Equal,
    }
}

type WithBudgets = Vec<(PlacedPod, Vec<String>)>;

/// One of `pickOneNodeForPreemption`'s score functions, as an ordering: `Less` for the
/// better candidate.
type Criterion = dyn Fn(&Candidate, &Candidate) -> Ordering;

/// `filterPodsWithPDBViolation`: each pod, in order, takes one disruption from every budget
/// covering it (unless the budget already lists it as disrupted); a pod that takes one a
/// budget does not have violates it. Returns (violating, non-violating), each with the
/// budgets it would go beyond.
fn split_by_budget_violation(pods: Vec<PlacedPod>, budgets: &[Budget]) -> (WithBudgets, WithBudgets) {
    let mut allowed: Vec<i32> = budgets.iter().map(|b| b.allowed).collect();
    let (mut violating, mut non_violating) = (Vec::new(), Vec::new());
    for pod in pods {
        let mut violates = Vec::new();
        if !pod.labels.is_empty() {
            for (b, left) in budgets.iter().zip(allowed.iter_mut()) {
                if !disruption::covers(b.pdb, &b.selector, &pod.namespace, &*pod.labels) {
                    continue;
                }
                if b.pdb.status.as_ref().is_some_and(|s| s.disrupted_pods.contains_key(&pod.name)) {
                    continue;
                }
                *left -= 1;
                if *left < 0 {
                    violates.push(b.pdb.key());
                }
            }
        }
        if violates.is_empty() {
            non_violating.push((pod, violates));
        } else {
            violating.push((pod, violates));
        }
    }
    (violating, non_violating)
}

/// `pickOneNodeForPreemption` with its default score functions, each keeping the candidates
/// it scores highest: fewest budget violations, lowest most important victim, lowest sum of
/// priorities (each shifted by 2^31, so more victims weigh more), fewest victims, and the
/// latest start among the most important victims. Of candidates still tied, the first.
pub fn pick_one_node(candidates: &[Candidate]) -> Option<usize> {
    if candidates.is_empty() {
        return None;
    }
    let mut left: Vec<usize> = (0..candidates.len()).collect();
    let keep_best = |left: &mut Vec<usize>, better: &Criterion| {
        let Some(best) = left.iter().filter_map(|&k| candidates.get(k)).min_by(|a, b| better(a, b)) else {
            return;
        };
        let best = best.clone();
        left.retain(|&k| candidates.get(k).is_some_and(|c| better(c, &best) == Ordering::Equal));
    };
    // Each ordering is `Less` for the better candidate.
    let criteria: [&Criterion; 5] = [
        &|a, b| a.pdb_violations.cmp(&b.pdb_violations),
        &|a, b| highest(a).cmp(&highest(b)),
        &|a, b| sum(a).cmp(&sum(b)),
        &|a, b| a.victims.len().cmp(&b.victims.len()),
        &|a, b| start_order(earliest_start(b), earliest_start(a)),
    ];
    for better in criteria {
        keep_best(&mut left, better);
        if left.len() == 1 {
            break;
        }
    }
    left.first().copied()
}

/// The priority of the candidate's most important victim.
fn highest(c: &Candidate) -> i32 {
    c.victims.first().map_or(0, |v| v.priority)
}

/// The sum of the victims' priorities, each shifted by 2^31 so that more victims weigh more.
fn sum(c: &Candidate) -> i64 {
    c.victims.iter().map(|v| i64::from(v.priority) + i64::from(i32::MAX) + 1).sum()
}

/// `GetEarliestPodStartTime`: the earliest start among the victims of the highest priority
/// (`None`, now, when none of them has started).
fn earliest_start(c: &Candidate) -> Option<&str> {
    let top = c.victims.iter().map(|v| v.priority).max()?;
    c.victims
        .iter()
        .filter(|v| v.priority == top)
        .map(|v| v.start_time.as_deref())
        .min_by(|a, b| start_order(*a, *b))?
}
