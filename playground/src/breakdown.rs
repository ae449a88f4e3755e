//! A matrix cell's breakdown: the scheduling cycle behind the cell, plugin by plugin. Every
//! Filter plugin of the profile in its order with what it did on the node, and every Score
//! plugin's raw score, normalized score and weight, the node's total and its rank among the
//! nodes the pod fits on.
//!
//! The simulation keeps only each node's verdict; the breakdown comes from simulating again
//! with core's recording option ([`SimulateOptions::record_cycle`]) for the one workload whose
//! cell is opened, so an edit never pays for it.

use placement_core::cluster::simulate::{simulate_unverified, SimulateOptions, WorkloadKey};
use placement_core::input::documents::Manifests;
use placement_core::scheduler::framework::SchedulerConfig;
use placement_core::scheduler::{NodeVerdict, ScheduleResult};

/// What one Filter plugin did on the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FilterOutcome {
    Passed,
    /// Its PreFilter returned Skip: it filters no node for this pod.
    Skipped,
    /// The first plugin to reject the node: upstream's reasons, joined by ", ".
    Rejected(String),
    /// After the rejecting plugin: kube-scheduler stops at a node's first rejection.
    NotRun,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilterRow {
    pub plugin: &'static str,
    pub outcome: FilterOutcome,
}

/// One Score plugin on the node. `normalized` is `None` when the plugin did not score the node
/// (NodeResourcesBalancedAllocation for a pod without requests); `raw` is also `None` when
/// the plugin's raw score is not known (see [`placement_core::scheduler::PluginScore::raw`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreRow {
    pub plugin: &'static str,
    pub raw: Option<i64>,
    pub normalized: Option<i64>,
    pub weight: i64,
}

impl ScoreRow {
    /// The plugin's part of the total: normalized score times weight.
    pub fn weighted(&self) -> Option<i64> {
        self.normalized.map(|s| s * self.weight)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CellBreakdown {
    pub node: String,
    /// The PreFilter plugin that rejected the pod or left this node out, with its reasons:
    /// then no Filter plugin ran on the node.
    pub pre_filter: Option<(String, String)>,
    pub filters: Vec<FilterRow>,
    /// Empty when the node was not scored (rejected, or past the end of the search).
    pub scores: Vec<ScoreRow>,
    pub total: Option<i64>,
    /// 1-based rank by total among the scored nodes, and how many were scored. Equal totals
    /// share a rank; kube-scheduler breaks such a tie at random, Placement takes the node
    /// listed first.
    pub rank: Option<(usize, usize)>,
    /// Placement's explanation (the cycle's detail), when it has one.
    pub detail: Option<String>,
}

/// The breakdown of `node` in a recorded cycle; `None` when the cycle did not list the node.
pub fn of_cycle(cycle: &ScheduleResult, node: &str, cfg: &SchedulerConfig) -> Option<CellBreakdown> {
    let profile = &cfg.profile;
    let verdict = cycle.verdicts.iter().find(|v| &*v.node == node)?;
    let rejected_by = (!verdict.status.is_success()).then_some(verdict.status.plugin).flatten();
    let reasons = verdict.status.reasons.join(", ");
    let pre_filter = verdict.pre_filter.then(|| (rejected_by.unwrap_or_default().to_string(), reasons.clone()));
    let mut after_rejection = pre_filter.is_some();
    let filters = profile
        .enabled_filters(&cfg.gates)
        .map(|f| {
            let plugin = f.name();
            let outcome = if after_rejection {
                FilterOutcome::NotRun
            } else if cycle.skipped.contains(&plugin) {
                FilterOutcome::Skipped
            } else if rejected_by == Some(plugin) {
                after_rejection = true;
                FilterOutcome::Rejected(reasons.clone())
            } else {
                FilterOutcome::Passed
            };
            FilterRow { plugin, outcome }
        })
        .collect();
    let scores = if verdict.score.is_some() {
        profile
            .scores
            .iter()
            .map(|&(plugin, weight)| {
                let part = verdict.plugin_scores.iter().find(|p| p.plugin == plugin.name());
                ScoreRow {
                    plugin: plugin.name(),
                    raw: part.and_then(|p| p.raw),
                    normalized: part.map(|p| p.score),
                    weight: part.map_or(weight, |p| p.weight),
                }
            })
            .collect()
    } else {
        Vec::new()
    };
    Some(CellBreakdown {
        node: node.to_string(),
        pre_filter,
        filters,
        scores,
        total: verdict.score,
        rank: rank(&cycle.verdicts, verdict),
        detail: verdict.status.detail.as_deref().map(str::to_string),
    })
}

fn rank(verdicts: &[NodeVerdict], verdict: &NodeVerdict) -> Option<(usize, usize)> {
    let total = verdict.score?;
    let scored = || verdicts.iter().filter_map(|v| v.score);
    Some((1 + scored().filter(|s| *s > total).count(), scored().count()))
}

/// Simulates `manifests` again recording the first cycle of the workload `key`, and returns
/// that cycle's breakdown for `node`. `None` when the workload has no such cycle (a DaemonSet,
/// whose pods are each pinned to one node, or a workload none of whose pods was scheduled
/// here) or the input does not simulate.
pub fn of_cell(manifests: &Manifests, opts: &SimulateOptions, key: WorkloadKey, node: &str) -> Option<CellBreakdown> {
    let opts = SimulateOptions { record_cycle: Some(key), ..opts.clone() };
    let report = simulate_unverified(manifests, &opts).ok()?;
    of_cycle(report.recorded_cycle.as_ref()?, node, &opts.scheduler_config())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::{synthetic, CellState, Evaluation};
    use crate::share::SharedState;
    use placement_core::scheduler::profile::Profile;

    const NODES: &str = "\
apiVersion: v1
kind: Node
metadata: {name: ssd, labels: {kubernetes.io/hostname: ssd, disk: ssd}}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: soft-taint, labels: {kubernetes.io/hostname: soft-taint}}
spec: {taints: [{key: spot, value: 'yes', effect: PreferNoSchedule}]}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: gpu, labels: {kubernetes.io/hostname: gpu}}
spec: {taints: [{key: gpu, value: 'true', effect: NoSchedule}]}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
";

    const WORKLOADS: &str = "\
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      affinity:
        nodeAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 10
            preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}
      containers:
      - name: web
        image: example/web:1
        resources: {requests: {cpu: 500m, memory: 256Mi}}
";

    fn eval() -> Evaluation {
        let state = SharedState { nodes: NODES.into(), workloads: WORKLOADS.into(), ..Default::default() };
        let eval = Evaluation::of(&state);
        assert!(eval.is_ok(), "{:?}", eval.errors);
        eval
    }

    fn row<'b>(b: &'b CellBreakdown, plugin: &str) -> &'b ScoreRow {
        b.scores.iter().find(|r| r.plugin == plugin).unwrap()
    }

    #[test]
    fn a_blocked_cell_lists_the_filters_up_to_the_rejecting_one() {
        let b = eval().breakdown(0, "gpu").expect("a Deployment's cell has a breakdown");
        let names: Vec<&str> = b.filters.iter().map(|f| f.plugin).collect();
        let gates = placement_core::model::version::FeatureGates::default();
        let profile: Vec<&str> = Profile::default().enabled_filters(&gates).map(|f| f.name()).collect();
        assert_eq!(names, profile, "every filter plugin of the default release's profile, in order");
        assert!(!names.contains(&"NodeDeclaredFeatures"), "its gate is off in 1.35");
        let at = names.iter().position(|n| *n == "TaintToleration").unwrap();
        for (i, f) in b.filters.iter().enumerate() {
            match i.cmp(&at) {
                std::cmp::Ordering::Less => {
                    assert!(matches!(f.outcome, FilterOutcome::Passed | FilterOutcome::Skipped), "{f:?}")
                }
                std::cmp::Ordering::Equal => assert_eq!(
                    f.outcome,
                    FilterOutcome::Rejected("node(s) had untolerated taint(s)".into()),
                    "upstream's reason, in the default version's words"
                ),
                std::cmp::Ordering::Greater => assert_eq!(f.outcome, FilterOutcome::NotRun, "{f:?}"),
            }
        }
        assert!(b.scores.is_empty() && b.total.is_none() && b.rank.is_none(), "a rejected node is not scored");
        assert_eq!(b.pre_filter, None);
        assert!(
            b.detail.as_deref().is_some_and(|d| d.contains("gpu")),
            "Placement's detail names the taint: {:?}",
            b.detail
        );
    }

    #[test]
    fn a_fitting_cell_has_every_score_plugin_raw_normalized_and_weighted() {
        let eval = eval();
        let (ssd, soft) = (eval.breakdown(0, "ssd").unwrap(), eval.breakdown(0, "soft-taint").unwrap());
        for b in [&ssd, &soft] {
            assert!(b.filters.iter().all(|f| matches!(f.outcome, FilterOutcome::Passed | FilterOutcome::Skipped)));
            let plugins: Vec<&str> = b.scores.iter().map(|r| r.plugin).collect();
            let profile: Vec<&str> = Profile::default().scores.iter().map(|(s, _)| s.name()).collect();
            assert_eq!(plugins, profile, "every score plugin, in the profile's order");
            let sum: i64 = b.scores.iter().filter_map(ScoreRow::weighted).sum();
            assert_eq!(b.total, Some(sum), "the total is the weighted sum");
            // The matrix's own score and rank for the cell agree with the recorded cycle.
            let w = &eval.workloads[0];
            let cell = w.cells.iter().find(|c| *c.node == *b.node).unwrap();
            assert_eq!((cell.state, cell.score), (CellState::Fits, b.total));
            assert_eq!(w.rank(&b.node), b.rank);
        }
        // Preferred node affinity: raw is the weight of the matching terms, normalized to 100
        // for the highest; weight 2 in the default profile.
        assert_eq!(
            *row(&ssd, "NodeAffinity"),
            ScoreRow { plugin: "NodeAffinity", raw: Some(10), normalized: Some(100), weight: 2 }
        );
        assert_eq!(
            *row(&soft, "NodeAffinity"),
            ScoreRow { plugin: "NodeAffinity", raw: Some(0), normalized: Some(0), weight: 2 }
        );
        // TaintToleration counts untolerated PreferNoSchedule taints; fewer is better.
        assert_eq!(
            *row(&soft, "TaintToleration"),
            ScoreRow { plugin: "TaintToleration", raw: Some(1), normalized: Some(0), weight: 3 }
        );
        assert_eq!(
            *row(&ssd, "TaintToleration"),
            ScoreRow { plugin: "TaintToleration", raw: Some(0), normalized: Some(100), weight: 3 }
        );
        // LeastAllocated has no NormalizeScore: raw and normalized are the same.
        let fit = row(&ssd, "NodeResourcesFit");
        assert_eq!(fit.raw, fit.normalized);
        assert_eq!((ssd.rank, soft.rank), (Some((1, 2)), Some((2, 2))));
    }

    #[test]
    fn daemon_sets_and_unknown_cells_have_none() {
        let eval = Evaluation::of(&synthetic(4, 2));
        assert_eq!(eval.workloads[0].kind, "DaemonSet");
        assert_eq!(eval.breakdown(0, "node-000"), None, "a daemon pod is pinned to its node");
        assert!(eval.breakdown(1, "node-000").is_some());
        assert_eq!(eval.breakdown(1, "no-such-node"), None);
        assert_eq!(eval.breakdown(9, "node-000"), None);
    }
}
