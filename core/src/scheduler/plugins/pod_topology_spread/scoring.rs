//! PreScore, Score and NormalizeScore (`scoring.go`): `ScheduleAnyway` constraints, or the
//! system defaults.

use std::sync::Arc;

use super::*;
use crate::model::{NodeSelector, Toleration};
use crate::scheduler::pod_index::PodIndex;

/// `topologyNormalizingWeight`: `ln(domains + 2)`, so small topologies are not drowned out.
pub(super) fn topology_normalizing_weight(size: usize) -> f64 {
    ((size + 2) as f64).ln()
}

/// `scoreForCount`: `maxSkew - 1` is added to water down differences between domains.
pub(super) fn score_for_count(count: i64, max_skew: i32, weight: f64) -> f64 {
    count as f64 * weight + f64::from(max_skew - 1)
}

/// What Score reads of every node that stays the same from one cycle to the next while a
/// workload's replicas are scheduled: the Node objects do not change and pods are only ever
/// added to them. Each cycle then counts only the pods bound since the last one, instead of
/// walking every pod of every node again (the system default constraints score every
/// Deployment pod, so this walk is on the path of every replica). The scheduler keeps one in
/// its per-workload cache, which starts over whenever the spec or the node slice changes.
#[derive(Debug, Default)]
pub struct ScoreCache {
    /// The per-node facts of the constraints (shared with the other workloads of the
    /// simulation that have the same constraints and node inclusion inputs).
    facts: Option<Arc<NodeFacts>>,
    /// How many of each node's pods are counted in `matching`.
    seen: Vec<usize>,
    /// Per node and constraint (`node * constraints + constraint`): the node's pods that the
    /// constraint's selector matches, in the pod's namespace.
    matching: Vec<i64>,
    /// Where the simulation's bound pods are by namespace, so that the first count walks
    /// only the pod's namespace, and where workloads share their [`NodeFacts`] (kept when
    /// the cache starts over).
    index: Option<Arc<PodIndex>>,
}

/// What PreScore reads of each node for one set of constraints, whatever the workload's
/// selector: a workload's first cycle used to look these up on every node (topology keys,
/// node affinity, taints) however many workloads before it had the same constraints.
#[derive(Debug)]
pub struct NodeFacts {
    key: FactsKey,
    nodes: usize,
    /// Per node and constraint (`node * constraints + constraint`).
    facts: Vec<NodeConstraint>,
    /// Per constraint, the topology values seen, by domain id.
    domains: Vec<Vec<String>>,
}

/// Everything [`NodeFacts`] are computed from, besides the nodes.
#[derive(Debug, PartialEq)]
struct FactsKey {
    /// Per constraint: topology key, and whether node affinity and taints are honoured.
    constraints: Vec<(String, bool, bool)>,
    require_all_topologies: bool,
    /// The pod's required node affinity (read when a constraint honours it).
    node_selector: Option<Labels>,
    required_affinity: Option<NodeSelector>,
    /// The pod's tolerations (read when a constraint honours taints).
    tolerations: Vec<Toleration>,
}

#[derive(Debug, Clone, Copy)]
struct NodeConstraint {
    /// Whether PreScore's counting loop counts this node's pods for the constraint (it has
    /// the topology keys where they are required, and the inclusion policies admit it).
    counted: bool,
    /// The node's domain (its topology value, "" when it has none); `None` for hostname,
    /// which is counted per node in Score.
    domain: Option<usize>,
    /// Whether the node has the topology key: only then does it score for the constraint.
    has_key: bool,
}

impl FactsKey {
    fn of(ctx: &ScoreContext) -> Self {
        let affinity = ctx.constraints.iter().any(|c| c.honor_node_affinity);
        let taints = ctx.constraints.iter().any(|c| c.honor_node_taints);
        let spec = &ctx.pod.spec;
        Self {
            constraints: ctx
                .constraints
                .iter()
                .map(|c| (c.topology_key.clone(), c.honor_node_affinity, c.honor_node_taints))
                .collect(),
            require_all_topologies: ctx.require_all_topologies,
            node_selector: spec.node_selector.clone().filter(|_| affinity),
            required_affinity: spec
                .affinity
                .as_ref()
                .and_then(|a| a.node_affinity.as_ref())
                .and_then(|a| a.required.clone())
                .filter(|_| affinity),
            tolerations: if taints { spec.tolerations.clone() } else { Vec::new() },
        }
    }
}

impl NodeFacts {
    fn of(key: FactsKey, ctx: &ScoreContext, nodes: &[NodeInfo]) -> Self {
        let k = ctx.constraints.len();
        let mut domains = vec![Vec::<String>::new(); k];
        let mut facts = Vec::with_capacity(nodes.len() * k);
        for info in nodes {
            // The node's label index: a hashed probe per key, where the label map's binary
            // search compared long shared prefixes.
            let labels = info.labels();
            let has_keys = !ctx.require_all_topologies || has_all_keys(labels, &ctx.constraints);
            for (c, names) in ctx.constraints.iter().zip(domains.iter_mut()) {
                let value = labels.label(&c.topology_key);
                facts.push(NodeConstraint {
                    counted: has_keys && c.includes_node(ctx.pod, info, &ctx.required, ctx.cfg),
                    domain: (c.topology_key != LABEL_HOSTNAME).then(|| {
                        let value = value.unwrap_or("");
                        names.iter().position(|n| n == value).unwrap_or_else(|| {
                            names.push(value.to_string());
                            names.len() - 1
                        })
                    }),
                    has_key: value.is_some(),
                });
            }
        }
        Self { key, nodes: nodes.len(), facts, domains }
    }

    fn get(&self, node: usize, constraint: usize) -> Option<&NodeConstraint> {
        self.facts.get(node * self.domains.len() + constraint)
    }
}

impl ScoreCache {
    /// An empty cache whose first count reads `index` (when it covers the nodes counted).
    pub fn with_index(index: Option<Arc<PodIndex>>) -> Self {
        Self { index, ..Self::default() }
    }

    /// The same cache emptied, keeping its index.
    pub fn emptied(&mut self) -> Self {
        Self::with_index(self.index.take())
    }

    /// Builds the per-node facts unless they are there for this many nodes and constraints.
    fn prepare(&mut self, ctx: &ScoreContext, nodes: &[NodeInfo]) {
        let k = ctx.constraints.len();
        let ready = self.facts.as_ref().is_some_and(|f| f.nodes == nodes.len() && f.domains.len() == k)
            && self.seen.len() == nodes.len()
            && self.seen.iter().zip(nodes).all(|(&seen, n)| seen <= n.pods().len());
        if ready {
            return;
        }
        let key = FactsKey::of(ctx);
        let index = self.index.clone().filter(|i| i.covers(nodes));
        self.facts = Some(match &index {
            Some(index) => index.spread_facts(|f| f.key == key, || NodeFacts::of(FactsKey::of(ctx), ctx, nodes)),
            None => Arc::new(NodeFacts::of(key, ctx, nodes)),
        });
        self.seen = vec![0; nodes.len()];
        self.matching = vec![0; nodes.len() * k];
        if let Some(index) = index {
            self.count_indexed(&index, ctx, nodes);
        }
    }

    /// The first count from the index: each node's indexed pods in the pod's namespace that
    /// each constraint's selector matches (as [`count_matching`] counts them); `update` then
    /// counts the pods bound after the index was built.
    fn count_indexed(&mut self, index: &PodIndex, ctx: &ScoreContext, nodes: &[NodeInfo]) {
        let k = ctx.constraints.len();
        for (n, pod) in index.in_namespace(nodes, ctx.namespace) {
            for (c, constraint) in ctx.constraints.iter().enumerate() {
                if counts_any(&constraint.selector) && constraint.selector.matches(&*pod.labels) {
                    if let Some(m) = self.matching.get_mut(n * k + c) {
                        *m += 1;
                    }
                }
            }
        }
        for (n, seen) in self.seen.iter_mut().enumerate() {
            *seen = index.indexed(n);
        }
    }

    /// Counts the pods bound since the last cycle.
    fn update(&mut self, ctx: &ScoreContext, nodes: &[NodeInfo]) {
        let k = ctx.constraints.len();
        for (n, (seen, info)) in self.seen.iter_mut().zip(nodes).enumerate() {
            let new = info.pods().get(*seen..).unwrap_or_default();
            if new.is_empty() {
                continue;
            }
            for (c, constraint) in ctx.constraints.iter().enumerate() {
                if let Some(m) = self.matching.get_mut(n * k + c) {
                    *m += count_matching(new, &constraint.selector, ctx.namespace);
                }
            }
            *seen = info.pods().len();
        }
    }

    fn matching(&self, node: usize, constraint: usize, constraints: usize) -> i64 {
        self.matching.get(node * constraints + constraint).copied().unwrap_or(0)
    }
}

/// The constraints a pod is scored by, and what reading them needs.
struct ScoreContext<'a> {
    pod: &'a Pod,
    cfg: &'a SchedulerConfig,
    constraints: Vec<Constraint>,
    require_all_topologies: bool,
    required: RequiredNodeAffinity<'a>,
    namespace: &'a str,
}

/// Normalized scores (0..=100) for `nodes[i]` for each `i` in `feasible`, in that order.
///
/// PreScore: the domains are the topology values of the feasible nodes that have every key;
/// matching pods are counted over the whole cluster (node inclusion policies applied). Score:
/// `round(sum(count * ln(domains + 2) + maxSkew - 1))`, hostname counted on the node itself.
/// NormalizeScore, fewer is better: `100 * (max + min - s) / max`, 100 for all when `max` is
/// 0, and 0 for feasible nodes missing a topology key. All zeros when PreScore would Skip.
///
/// `cache` carries the per-node counts from the previous cycle of the same workload; without
/// one, every node is counted afresh.
pub fn score(
    pod: &Pod,
    nodes: &[NodeInfo],
    feasible: &[usize],
    cfg: &SchedulerConfig,
    cache: Option<&mut ScoreCache>,
) -> Vec<i64> {
    match raw_scores(pod, nodes, feasible, cfg, cache) {
        Some(raw) => normalize_score(&raw),
        None => vec![0; feasible.len()],
    }
}

/// [`score`] before NormalizeScore, in `feasible` order: `None` for the nodes PreScore
/// ignores; `None` instead of the list when PreScore would Skip (every node then scores 0).
pub fn raw_scores(
    pod: &Pod,
    nodes: &[NodeInfo],
    feasible: &[usize],
    cfg: &SchedulerConfig,
    cache: Option<&mut ScoreCache>,
) -> Option<Vec<Option<i64>>> {
    if nodes.is_empty() {
        return None;
    }
    // The pod's own constraints, or the system defaults. Only the pod's own require a node to
    // have every topology key (`requireAllTopologies`): under the defaults a node without a
    // zone label still gets hostname spreading, and its missing zone counts as the value "".
    let (constraints, require_all_topologies) = if pod.spec.topology_spread_constraints.is_empty() {
        (system_default_constraints(pod, cfg), false)
    } else {
        let Ok(constraints) = constraints_of(pod, SCHEDULE_ANYWAY, cfg) else {
            // Upstream fails PreScore with an error; Placement leaves the plugin out.
            return None;
        };
        (constraints, true)
    };
    if constraints.is_empty() {
        return None;
    }
    let ctx = ScoreContext {
        pod,
        cfg,
        constraints,
        require_all_topologies,
        required: RequiredNodeAffinity::from_pod(&pod.spec),
        namespace: pod_namespace(pod),
    };
    let mut fresh = ScoreCache::default();
    let cache = cache.unwrap_or(&mut fresh);
    cache.prepare(&ctx, nodes);
    cache.update(&ctx, nodes);
    let facts = cache.facts.as_deref()?;
    let k = ctx.constraints.len();

    // The feasible nodes in order, `None` for those PreScore ignores (missing a required
    // topology key; an index outside `nodes` would be a caller bug, and is ignored too).
    let scored: Vec<Option<usize>> = feasible
        .iter()
        .map(|&i| {
            let info = nodes.get(i)?;
            let keep = !require_all_topologies || has_all_keys(info.labels(), &ctx.constraints);
            keep.then_some(i)
        })
        .collect();
    // PreScore's domains: the topology values of the scored nodes, per constraint; the
    // hostname constraint's size is the number of scored nodes.
    let mut present: Vec<Vec<bool>> = facts.domains.iter().map(|d| vec![false; d.len()]).collect();
    for &i in scored.iter().flatten() {
        for (c, p) in present.iter_mut().enumerate() {
            if let Some(slot) = facts.get(i, c).and_then(|f| f.domain).and_then(|d| p.get_mut(d)) {
                *slot = true;
            }
        }
    }
    let scored_nodes = scored.iter().flatten().count();
    let weights: Vec<f64> = ctx
        .constraints
        .iter()
        .zip(&present)
        .map(|(c, p)| {
            let size = if c.topology_key == LABEL_HOSTNAME { scored_nodes } else { p.iter().filter(|x| **x).count() };
            topology_normalizing_weight(size)
        })
        .collect();
    // Matching pods per domain, over every counted node whose domain is present.
    let mut totals: Vec<Vec<i64>> = present.iter().map(|p| vec![0; p.len()]).collect();
    for n in 0..facts.nodes {
        for (c, (p, t)) in present.iter().zip(totals.iter_mut()).enumerate() {
            let Some(d) = facts.get(n, c).filter(|f| f.counted).and_then(|f| f.domain) else { continue };
            if let (Some(true), Some(total)) = (p.get(d), t.get_mut(d)) {
                *total += cache.matching(n, c, k);
            }
        }
    }

    let raw = scored
        .iter()
        .map(|scored| {
            let i = (*scored)?;
            let mut s = 0.0;
            for (c, ((constraint, t), w)) in ctx.constraints.iter().zip(&totals).zip(&weights).enumerate() {
                let Some(fact) = facts.get(i, c) else { continue };
                // Only a node that has the topology key scores for the constraint.
                if !fact.has_key {
                    continue;
                }
                let cnt = match fact.domain {
                    None => cache.matching(i, c, k),
                    Some(d) => t.get(d).copied().unwrap_or(0),
                };
                s += score_for_count(cnt, constraint.max_skew, *w);
            }
            Some(s.round() as i64)
        })
        .collect();
    Some(raw)
}

/// `NormalizeScore`: ignored nodes (`None`) get 0; the rest `100 * (max + min - s) / max`.
pub fn normalize_score(raw: &[Option<i64>]) -> Vec<i64> {
    let min = raw.iter().flatten().copied().min().unwrap_or(i64::MAX);
    let max = raw.iter().flatten().copied().max().unwrap_or(0).max(0);
    raw.iter()
        .map(|s| match *s {
            None => 0,
            Some(_) if max == 0 => crate::scheduler::plugins::MAX_NODE_SCORE,
            Some(s) => crate::scheduler::plugins::MAX_NODE_SCORE * (max + min - s) / max,
        })
        .collect()
}
