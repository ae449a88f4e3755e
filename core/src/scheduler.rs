//! One scheduling cycle for one pod: PreFilter, Filter (stopping at each node's first failing
//! plugin), PostFilter's preemption message, Score with the default weights, and selection.
//!
//! Deviations from kube-scheduler, all deliberate and documented in the README:
//! - every node is filtered and scored (upstream stops after `numFeasibleNodesToFind` in
//!   clusters above 100 nodes and rotates its starting node);
//! - ties between equally scored nodes go to the node listed first (upstream picks one at
//!   random);
//! - every pod has the same priority, so preemption never finds victims;
//! - ImageLocality and the volume plugins are not modelled.

use std::collections::BTreeSet;

use serde::Serialize;

use crate::fit_error::{absent_nodes_reason, empty_intersection_reason, FitError};
use crate::framework::{Code, NodeInfo, SchedulerConfig, Status};
use crate::hostports::HostPort;
use crate::model::{Pod, Toleration};
use crate::plugins::node_resources_fit::{self, InsufficientResource};
use crate::plugins::{
    default_normalize_score, inter_pod_affinity, node_affinity, node_name, node_ports, node_unschedulable,
    pod_topology_spread, taint_toleration,
};
use crate::resources::Resource;

pub const ERR_NO_NODES_AVAILABLE: &str = "no nodes available to schedule pods";

/// The verdict for one node.
#[derive(Debug, Clone, Serialize)]
pub struct NodeVerdict {
    pub node: String,
    pub status: Status,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub insufficient: Vec<InsufficientResource>,
    /// Weighted total over the score plugins; `None` for nodes that did not fit.
    pub score: Option<i64>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub plugin_scores: Vec<PluginScore>,
}

#[derive(Debug, Clone, Serialize)]
pub struct PluginScore {
    pub plugin: &'static str,
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
}

/// Everything computed once per pod so the per-node work stays small.
struct PodContext<'a> {
    pod: &'a Pod,
    request: Resource,
    non_zero_request: Resource,
    wanted_ports: Vec<HostPort>,
    affinity: node_affinity::State<'a>,
    score_tolerations: Vec<Toleration>,
    skipped: BTreeSet<&'static str>,
    inter_pod: inter_pod_affinity::PreFilterState,
    spread: pod_topology_spread::PreFilterState,
}

/// Schedules `pod` onto one of `nodes` (the cluster, in input order).
///
/// With `explain` every node's verdict and score breakdown is returned; without it only the
/// failing nodes' reasons are kept (enough for the FailedScheduling message), which is what
/// replicas after the first need.
pub fn schedule(pod: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig, explain: bool) -> ScheduleResult {
    if nodes.is_empty() {
        // `ErrNoNodesAvailable`, returned before any plugin runs.
        return ScheduleResult { node: None, verdicts: Vec::new(), message: Some(ERR_NO_NODES_AVAILABLE.into()) };
    }
    let spec = &pod.spec;
    let mut skipped = BTreeSet::new();
    let mut restricted: Option<BTreeSet<String>> = None;
    let mut restricting_plugins: Vec<&'static str> = Vec::new();
    let mut unschedulable_prefilter: Option<Status> = None;

    // PreFilter, in the default profile's order. An unresolvable status ends the cycle; an
    // Unschedulable one lets the others run (kubernetes#119770).
    let mut run_pre_filter =
        |name: &'static str, (status, names): (Status, Option<BTreeSet<String>>)| -> Option<Status> {
            match status.code {
                Code::Skip => {
                    skipped.insert(name);
                    None
                }
                Code::UnschedulableAndUnresolvable => Some(status.with_plugin(name)),
                Code::Unschedulable => {
                    unschedulable_prefilter = Some(status.with_plugin(name));
                    None
                }
                Code::Success => {
                    if let Some(names) = names {
                        restricting_plugins.push(name);
                        restricted = Some(match restricted.take() {
                            None => names,
                            Some(prev) => prev.intersection(&names).cloned().collect(),
                        });
                        if restricted.as_ref().is_some_and(BTreeSet::is_empty) {
                            return Some(
                                Status::new(
                                    Code::UnschedulableAndUnresolvable,
                                    empty_intersection_reason(&restricting_plugins),
                                )
                                .with_plugin(name),
                            );
                        }
                    }
                    None
                }
            }
        };

    let (ports_status, wanted_ports) = node_ports::pre_filter(spec);
    let (spread_status, spread) = pod_topology_spread::pre_filter(pod, nodes, cfg);
    let (inter_status, inter_pod) = inter_pod_affinity::pre_filter(pod, nodes, cfg);
    let pre_filters = [
        (node_name::NAME, node_name::pre_filter(spec)),
        (node_affinity::NAME, node_affinity::pre_filter(spec, cfg)),
        (node_ports::NAME, (ports_status, None)),
        (node_resources_fit::NAME, (node_resources_fit::pre_filter(spec, cfg), None)),
        (pod_topology_spread::NAME, (spread_status, None)),
        (inter_pod_affinity::NAME, (inter_status, None)),
    ];
    let mut rejection = None;
    for (name, outcome) in pre_filters {
        if let Some(status) = run_pre_filter(name, outcome) {
            rejection = Some(status);
            break;
        }
    }
    if let Some(status) = rejection.or(unschedulable_prefilter) {
        return pre_filter_rejection(status, nodes);
    }

    let ctx = PodContext {
        pod,
        request: node_resources_fit::pod_request(spec, cfg),
        non_zero_request: node_resources_fit::pod_non_zero_request(spec, cfg),
        wanted_ports,
        affinity: node_affinity::State::new(spec, cfg),
        score_tolerations: taint_toleration::score_tolerations(spec),
        skipped,
        inter_pod,
        spread,
    };

    let absent_reason = absent_nodes_reason(&restricting_plugins);
    let mut verdicts: Vec<NodeVerdict> = Vec::with_capacity(nodes.len());
    let mut feasible = Vec::new();
    let mut fit_error = FitError { num_all_nodes: nodes.len(), ..Default::default() };
    for (i, node) in nodes.iter().enumerate() {
        let (status, insufficient) = match &restricted {
            Some(allowed) if !allowed.contains(node.name()) => (
                Status::new(Code::UnschedulableAndUnresolvable, absent_reason.clone())
                    .with_plugin(restricting_plugins.first().copied().unwrap_or(node_affinity::NAME))
                    .with_detail(format!(
                        "pod is restricted to node(s) {}",
                        allowed.iter().cloned().collect::<Vec<_>>().join(", ")
                    )),
                Vec::new(),
            ),
            _ => {
                let (status, insufficient) = run_filters(&ctx, node, cfg);
                if status.is_success() {
                    feasible.push(i);
                } else {
                    fit_error.node_reasons.push(status.reasons.clone());
                }
                (status, insufficient)
            }
        };
        if explain || !status.is_success() {
            verdicts.push(NodeVerdict {
                node: node.name().to_string(),
                status,
                insufficient,
                score: None,
                plugin_scores: Vec::new(),
            });
        }
    }
    if restricted.is_some() {
        fit_error.absent_nodes_reasons = vec![absent_reason];
    }

    if feasible.is_empty() {
        fit_error.post_filter_msg = preemption_message(&verdicts);
        return ScheduleResult { node: None, verdicts, message: Some(fit_error.message()) };
    }

    let totals = score_nodes(&ctx, nodes, &feasible, cfg, explain.then_some(&mut verdicts[..]));
    // Highest total wins; on a tie the node listed first (upstream samples one at random).
    let best = feasible.iter().zip(&totals).fold(None::<(usize, i64)>, |best, (&i, &s)| match best {
        Some((_, b)) if b >= s => best,
        _ => Some((i, s)),
    });
    ScheduleResult { node: best.map(|(i, _)| i), verdicts, message: None }
}

/// Filter plugins in order; the first failure is the node's status.
fn run_filters(ctx: &PodContext, node: &NodeInfo, cfg: &SchedulerConfig) -> (Status, Vec<InsufficientResource>) {
    let spec = &ctx.pod.spec;
    let checks: [(&'static str, &dyn Fn() -> Status); 4] = [
        (node_unschedulable::NAME, &|| node_unschedulable::filter(spec, &node.node, cfg)),
        (node_name::NAME, &|| node_name::filter(spec, &node.node)),
        (taint_toleration::NAME, &|| taint_toleration::filter(spec, &node.node, cfg)),
        (node_affinity::NAME, &|| ctx.affinity.filter(&node.node)),
    ];
    for (name, check) in checks {
        if ctx.skipped.contains(name) {
            continue;
        }
        let status = check();
        if !status.is_success() {
            return (status.with_plugin(name), Vec::new());
        }
    }
    if !ctx.skipped.contains(node_ports::NAME) {
        let status = node_ports::filter(&ctx.wanted_ports, node);
        if !status.is_success() {
            return (status.with_plugin(node_ports::NAME), Vec::new());
        }
    }
    let (status, insufficient) = node_resources_fit::filter(&ctx.request, node, cfg);
    if !status.is_success() {
        return (status.with_plugin(node_resources_fit::NAME), insufficient);
    }
    if !ctx.skipped.contains(pod_topology_spread::NAME) {
        let status = pod_topology_spread::filter(&ctx.spread, ctx.pod, node);
        if !status.is_success() {
            return (status.with_plugin(pod_topology_spread::NAME), Vec::new());
        }
    }
    if !ctx.skipped.contains(inter_pod_affinity::NAME) {
        let status = inter_pod_affinity::filter(&ctx.inter_pod, ctx.pod, node);
        if !status.is_success() {
            return (status.with_plugin(inter_pod_affinity::NAME), Vec::new());
        }
    }
    (Status::success(), Vec::new())
}

/// Scores every feasible node with the default plugins and weights; returns the totals in
/// `feasible` order and records the breakdown in the verdicts.
fn score_nodes(
    ctx: &PodContext,
    nodes: &[NodeInfo],
    feasible: &[usize],
    cfg: &SchedulerConfig,
    mut verdicts: Option<&mut [NodeVerdict]>,
) -> Vec<i64> {
    let mut taint: Vec<i64> =
        feasible.iter().map(|&i| taint_toleration::score(&ctx.score_tolerations, &nodes[i].node, cfg)).collect();
    default_normalize_score(crate::plugins::MAX_NODE_SCORE, true, &mut taint);

    let mut affinity: Vec<i64> = feasible.iter().map(|&i| ctx.affinity.score(&nodes[i].node)).collect();
    default_normalize_score(crate::plugins::MAX_NODE_SCORE, false, &mut affinity);

    let least: Vec<i64> =
        feasible.iter().map(|&i| node_resources_fit::least_allocated_score(&ctx.non_zero_request, &nodes[i])).collect();
    let balanced: Vec<Option<i64>> =
        feasible.iter().map(|&i| node_resources_fit::balanced_allocation_score(&ctx.request, &nodes[i])).collect();
    let spread = pod_topology_spread::score(ctx.pod, nodes, feasible, cfg);
    let inter = inter_pod_affinity::score(ctx.pod, nodes, feasible, cfg);

    let mut totals = Vec::with_capacity(feasible.len());
    for (k, &i) in feasible.iter().enumerate() {
        let mut parts = vec![
            PluginScore { plugin: taint_toleration::NAME, score: taint[k], weight: 3 },
            PluginScore { plugin: node_affinity::NAME, score: affinity[k], weight: 2 },
            PluginScore { plugin: node_resources_fit::NAME, score: least[k], weight: 1 },
            PluginScore { plugin: pod_topology_spread::NAME, score: spread[k], weight: 2 },
            PluginScore { plugin: inter_pod_affinity::NAME, score: inter[k], weight: 2 },
        ];
        if let Some(b) = balanced[k] {
            parts.push(PluginScore { plugin: node_resources_fit::BALANCED_ALLOCATION, score: b, weight: 1 });
        }
        let total = parts.iter().map(|p| p.score * p.weight).sum();
        if let Some(v) = verdicts.as_deref_mut() {
            v[i].score = Some(total);
            v[i].plugin_scores = parts;
        }
        totals.push(total);
    }
    totals
}

/// A PreFilter rejection: every node shares the status, and the message carries only the
/// PreFilter's reasons.
fn pre_filter_rejection(status: Status, nodes: &[NodeInfo]) -> ScheduleResult {
    let verdicts: Vec<NodeVerdict> = nodes
        .iter()
        .map(|n| NodeVerdict {
            node: n.name().to_string(),
            status: status.clone(),
            insufficient: Vec::new(),
            score: None,
            plugin_scores: Vec::new(),
        })
        .collect();
    let fit_error = FitError {
        num_all_nodes: nodes.len(),
        pre_filter_msg: status.reasons.join(", "),
        post_filter_msg: preemption_message(&verdicts),
        ..Default::default()
    };
    ScheduleResult { node: None, verdicts, message: Some(fit_error.message()) }
}

/// DefaultPreemption's PostFilter message. Unresolvable nodes are not worth preempting on;
/// on the others, with every pod at the same priority, there is never a victim.
fn preemption_message(verdicts: &[NodeVerdict]) -> String {
    if verdicts.is_empty() {
        return String::new();
    }
    let reasons = verdicts
        .iter()
        .map(|v| {
            vec![if v.status.code == Code::UnschedulableAndUnresolvable {
                "Preemption is not helpful for scheduling".to_string()
            } else {
                "No preemption victims found for incoming pod".to_string()
            }]
        })
        .collect();
    let inner = FitError { num_all_nodes: verdicts.len(), node_reasons: reasons, ..Default::default() };
    format!("preemption: {}", inner.message())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Taint};
    use crate::quantity::Quantity;

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
        let cfg = SchedulerConfig::default();
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
                "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
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
        let too_big = schedule(&pod("5"), &cluster[..1], &cfg, true);
        assert_eq!(
            too_big.message.as_deref(),
            Some("0/1 nodes are available: 1 Insufficient cpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."),
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
        assert_eq!(r.verdicts[0].node, "b");
    }
}
