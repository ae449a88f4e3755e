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
                // Every pod the scheduler's cache holds counts healthy: a node's pods carry no
                // readiness here (a snapshot's budgets carry the controller's status, which
                // is believed instead).
                let bound = nodes.iter().flat_map(|n| n.pods()).map(|p| (&*p.namespace, &*p.labels, true));
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

#[cfg(test)]
mod tests {
    //! Cases transcribed from upstream's `default_preemption_test.go`
    //! (`TestPickOneNodeForPreemption`, `TestSelectBestCandidate`, PDB cases of
    //! `TestDryRunPreemption`), with its fixtures: nodes of 500m cpu and 500 bytes of memory,
    //! pods of 100m/100 (small), 200m/200 (medium), 300m/300 (large) and 500m/500 (very
    //! large), priorities -100 (neg), 0 (low), 100 (mid), 1000 (high), 10000 (very high).
    use super::*;
    use crate::model::quantity::Quantity;
    use crate::model::resources::Resource;
    use crate::model::scheduling::{IntOrString, PodDisruptionBudgetSpec, PodDisruptionBudgetStatus};
    use crate::model::{Container, LabelSelector, Node, ObjectMeta, Pod, ResourceList, ResourceRequirements};
    use crate::scheduler::framework::SchedulerConfig;
    use crate::scheduler::plugins::node_resources_fit::{self, PodRequests};

    const NEG: i32 = -100;
    const LOW: i32 = 0;
    const MID: i32 = 100;
    const HIGH: i32 = 1000;
    const VERY_HIGH: i32 = 10000;

    /// (size in hundreds of millicores and bytes: 1 small, 2 medium, 3 large, 5 very large)
    fn spec(size: u32, priority: i32) -> crate::model::PodSpec {
        let list: ResourceList = [
            ("cpu".to_string(), Quantity::parse(&format!("{}m", size * 100)).unwrap()),
            ("memory".to_string(), Quantity::parse(&format!("{}", size * 100)).unwrap()),
        ]
        .into_iter()
        .collect();
        crate::model::PodSpec {
            containers: vec![Container {
                name: "c".into(),
                resources: ResourceRequirements { requests: list, ..Default::default() },
                ..Default::default()
            }],
            priority: Some(priority),
            ..Default::default()
        }
    }

    /// A 500m/500 node with pods (name, size, priority, start time, labels).
    type PodRow<'a> = (&'a str, u32, i32, Option<&'a str>, &'a [(&'a str, &'a str)]);

    fn node(name: &str, pods: &[PodRow], cfg: &SchedulerConfig) -> NodeInfo {
        let mut n = Node::default();
        n.metadata.name = name.into();
        let capacity: ResourceList = [
            ("cpu".to_string(), Quantity::parse("500m").unwrap()),
            ("memory".to_string(), Quantity::parse("500").unwrap()),
            ("pods".to_string(), Quantity::parse("110").unwrap()),
        ]
        .into_iter()
        .collect();
        n.status.allocatable = Some(capacity);
        let mut info = NodeInfo::new(n);
        for &(pod_name, size, priority, start, labels) in pods {
            let mut pod = Pod {
                metadata: ObjectMeta {
                    name: pod_name.into(),
                    namespace: Some("default".into()),
                    labels: crate::testing::labels(labels),
                    ..Default::default()
                },
                spec: spec(size, priority),
                status: Default::default(),
            };
            pod.status.start_time = start.map(Into::into);
            info.bind_pod(&pod, cfg);
        }
        info
    }

    fn run(preemptor: &crate::model::PodSpec, nodes: &[NodeInfo], pdbs: &[PodDisruptionBudget]) -> Preemption {
        let cfg = SchedulerConfig::default();
        let request: Resource = PodRequests::of(preemptor, &cfg).request;
        let fits = |n: &NodeInfo| node_resources_fit::filter(&request, n, &cfg).0;
        let potential: Vec<usize> = (0..nodes.len()).filter(|&i| fits(&nodes[i]).code == Code::Unschedulable).collect();
        let budgets = Budget::all(pdbs, nodes);
        preempt(preemptor, nodes, &potential, &budgets, fits)
    }

    fn nominated(p: &Preemption) -> Option<(usize, Vec<String>)> {
        match p {
            Preemption::Nominated(c) => Some((c.node, c.victims.iter().map(|v| v.name.clone()).collect())),
            _ => None,
        }
    }

    #[test]
    fn the_node_is_picked_as_upstream_picks_it() {
        let cfg = SchedulerConfig::default();
        let t0 = Some("2024-01-01T00:00:00Z");
        let t1 = Some("2024-01-01T00:00:01Z");
        let t2 = Some("2024-01-01T00:00:02Z");
        // (name, nodes with their pods, preemptor (size, priority), want node and victims)
        type Case<'a> = (&'a str, Vec<Vec<PodRow<'a>>>, (u32, i32), usize, Vec<&'a str>);
        let cases: Vec<Case> = vec![
            (
                "a pod that fits on both nodes when lower priority pods are preempted: the first",
                vec![vec![("m1.1", 3, MID, t0, &[])], vec![("m2.1", 3, MID, t0, &[])]],
                (3, HIGH),
                0,
                vec!["m1.1"],
            ),
            (
                "node with min highest priority pod is picked",
                vec![
                    vec![("m1.1", 2, MID, t0, &[]), ("m1.2", 3, MID, t0, &[])],
                    vec![("m2.1", 2, MID, t0, &[]), ("m2.2", 2, LOW, t0, &[])],
                    vec![("m3.1", 2, LOW, t0, &[]), ("m3.2", 2, LOW, t0, &[])],
                ],
                (5, HIGH),
                2,
                vec!["m3.1", "m3.2"],
            ),
            (
                "when highest priorities are the same, minimum sum of priorities is picked",
                vec![
                    vec![("m1.1", 2, MID, t0, &[]), ("m1.2", 3, MID, t0, &[])],
                    vec![("m2.1", 3, MID, t0, &[]), ("m2.2", 2, LOW, t0, &[])],
                    vec![("m3.1", 2, MID, t0, &[]), ("m3.2", 2, MID, t0, &[])],
                ],
                (5, HIGH),
                1,
                vec!["m2.1", "m2.2"],
            ),
            (
                "when highest priority and sum are the same, minimum number of pods is picked",
                vec![
                    vec![
                        ("m1.1", 1, MID, t0, &[]),
                        ("m1.2", 1, NEG, t0, &[]),
                        ("m1.3", 1, MID, t0, &[]),
                        ("m1.4", 1, NEG, t0, &[]),
                    ],
                    vec![("m2.1", 3, MID, t0, &[]), ("m2.2", 2, NEG, t0, &[])],
                    vec![("m3.1", 2, MID, t0, &[]), ("m3.2", 1, NEG, t0, &[]), ("m3.3", 1, LOW, t0, &[])],
                ],
                (5, HIGH),
                1,
                vec!["m2.1", "m2.2"],
            ),
            (
                "sum of adjusted priorities is considered",
                vec![
                    vec![("m1.1", 1, MID, t0, &[]), ("m1.2", 1, NEG, t0, &[]), ("m1.3", 1, NEG, t0, &[])],
                    vec![("m2.1", 3, MID, t0, &[]), ("m2.2", 2, NEG, t0, &[])],
                    vec![("m3.1", 2, MID, t0, &[]), ("m3.2", 1, NEG, t0, &[]), ("m3.3", 1, LOW, t0, &[])],
                ],
                (5, HIGH),
                1,
                vec!["m2.1", "m2.2"],
            ),
            (
                "non-overlapping lowest high priority, sum priorities, and number of pods",
                vec![
                    vec![("m1.1", 1, MID, t0, &[]), ("m1.2", 1, LOW, t0, &[]), ("m1.3", 1, LOW, t0, &[])],
                    vec![("m2.1", 3, HIGH, t0, &[])],
                    vec![
                        ("m3.1", 2, MID, t0, &[]),
                        ("m3.2", 1, LOW, t0, &[]),
                        ("m3.3", 1, LOW, t0, &[]),
                        ("m3.4", 2, LOW, t0, &[]),
                    ],
                    vec![
                        ("m4.1", 2, MID, t0, &[]),
                        ("m4.2", 1, MID, t0, &[]),
                        ("m4.3", 1, MID, t0, &[]),
                        ("m4.4", 1, NEG, t0, &[]),
                    ],
                ],
                (5, VERY_HIGH),
                0,
                vec!["m1.1", "m1.2", "m1.3"],
            ),
            (
                "same priority, same number of victims: the node whose victims started last",
                vec![
                    vec![("m1.1", 2, MID, t0, &[]), ("m1.2", 3, MID, t0, &[])],
                    vec![("m2.1", 2, MID, t1, &[]), ("m2.2", 3, MID, t1, &[])],
                    vec![("m3.1", 2, MID, t2, &[]), ("m3.2", 3, MID, t2, &[])],
                ],
                (5, HIGH),
                2,
                vec!["m3.1", "m3.2"],
            ),
            (
                "the earliest start among the most important victims decides",
                vec![
                    vec![("m1.1", 2, MID, t0, &[]), ("m1.2", 3, LOW, t2, &[])],
                    vec![("m2.1", 2, MID, t1, &[]), ("m2.2", 3, LOW, t0, &[])],
                ],
                (5, HIGH),
                1,
                vec!["m2.1", "m2.2"],
            ),
            (
                "victims are only the pods that must go: the higher of two is reprieved",
                vec![vec![("m1.1", 2, MID, t0, &[]), ("m1.2", 2, LOW, t0, &[]), ("m1.3", 1, NEG, t0, &[])]],
                (3, HIGH),
                0,
                vec!["m1.2", "m1.3"],
            ),
        ];
        for (name, rows, (size, priority), want_node, want_victims) in cases {
            let nodes: Vec<NodeInfo> =
                rows.iter().enumerate().map(|(i, pods)| node(&format!("node{}", i + 1), pods, &cfg)).collect();
            let got = nominated(&run(&spec(size, priority), &nodes, &[]));
            let want = Some((want_node, want_victims.iter().map(|v| v.to_string()).collect::<Vec<_>>()));
            assert_eq!(got, want, "{name}");
        }
    }

    #[test]
    fn disruption_budgets_are_violated_last() {
        let cfg = SchedulerConfig::default();
        let t0 = Some("2024-01-01T00:00:00Z");
        let app: &[(&str, &str)] = &[("app", "foo")];
        let pdb = |allowed: i32, disrupted: &[&str]| PodDisruptionBudget {
            metadata: ObjectMeta { name: "foo".into(), namespace: Some("default".into()), ..Default::default() },
            spec: PodDisruptionBudgetSpec {
                min_available: Some(IntOrString::Int(1)),
                selector: Some(LabelSelector { match_labels: crate::testing::labels(app), ..Default::default() }),
                ..Default::default()
            },
            status: Some(PodDisruptionBudgetStatus {
                disruptions_allowed: allowed,
                disrupted_pods: disrupted.iter().map(|p| (p.to_string(), "2024-01-01T00:00:00Z".into())).collect(),
                ..Default::default()
            }),
        };
        // Upstream's "preemption with violation of the pdb with pod whose eviction was
        // processed": node1's pods are covered by a budget that allows 1 disruption.
        let rows: Vec<Vec<PodRow>> =
            vec![vec![("p1.1", 2, MID, t0, app), ("p1.2", 2, MID, t0, app)], vec![("p2.1", 5, MID, t0, &[])]];
        let nodes: Vec<NodeInfo> =
            rows.iter().enumerate().map(|(i, pods)| node(&format!("node{}", i + 1), pods, &cfg)).collect();
        // (name, budgets, want node, victims, violations)
        let cases = [
            ("budget allows one: node1 evicts two and violates once, node2 none", vec![pdb(1, &[])], 1, 0),
            // Neither violates: node2's one victim is a lower sum of priorities than node1's two.
            ("an eviction already processed does not count", vec![pdb(0, &["p1.1", "p1.2"])], 1, 0),
            ("no budget: fewer victims win", vec![], 1, 0),
        ];
        let preemptor = spec(4, HIGH);
        for (name, pdbs, want_node, want_violations) in cases {
            let Preemption::Nominated(c) = run(&preemptor, &nodes, &pdbs) else { panic!("{name}: no candidate") };
            assert_eq!((c.node, c.pdb_violations), (want_node, want_violations), "{name}");
        }
        // On node1 alone, with the budget allowing one: both pods go, one violates it.
        let only = [nodes[0].clone()];
        let Preemption::Nominated(c) = run(&preemptor, &only, &[pdb(1, &[])]) else { panic!("no candidate") };
        assert_eq!(c.pdb_violations, 1);
        assert_eq!(c.victims.iter().filter(|v| !v.violates.is_empty()).count(), 1);
    }

    #[test]
    fn postfilter_messages_are_upstreams() {
        let cfg = SchedulerConfig::default();
        let t0 = Some("2024-01-01T00:00:00Z");
        let nodes = vec![
            node("node1", &[("a", 3, HIGH, t0, &[])], &cfg),
            node("node2", &[("b1", 3, HIGH, t0, &[]), ("b2", 2, LOW, t0, &[])], &cfg),
            node("node3", &[("c", 5, HIGH, t0, &[])], &cfg),
        ];
        // node2 lacks room even without its low-priority pod; the others have no pod of lower
        // priority; a fourth node of the cluster was not Unschedulable (never tried).
        assert_eq!(
            run(&spec(3, MID), &nodes, &[]).message(4),
            // Sorted byte-wise over "count reason", as upstream sorts them.
            "preemption: 0/4 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod."
        );
        let mut never = spec(3, HIGH);
        never.preemption_policy = Some(PREEMPT_NEVER.into());
        assert_eq!(run(&never, &nodes, &[]).message(3), "preemption: not eligible due to preemptionPolicy=Never.");
        assert_eq!(num_candidates(50), 50);
        assert_eq!(num_candidates(5000), 500);
        assert_eq!(num_candidates(500), 100);
    }
}
