//! PreScore, Score and NormalizeScore (`scoring.go`): `ScheduleAnyway` constraints, or the
//! system defaults.

use super::*;
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
    nodes: Vec<NodeEntry>,
    /// Per constraint, the topology values seen, by domain id.
    domains: Vec<Vec<String>>,
    /// Where the simulation's bound pods are by namespace, so that the first count walks
    /// only the pod's namespace (kept when the cache starts over).
    index: Option<std::sync::Arc<PodIndex>>,
}

#[derive(Debug)]
struct NodeEntry {
    /// How many of the node's pods are counted in `matching`.
    seen: usize,
    per_constraint: Vec<NodeConstraint>,
}

#[derive(Debug)]
struct NodeConstraint {
    /// Whether PreScore's counting loop counts this node's pods for the constraint (it has
    /// the topology keys where they are required, and the inclusion policies admit it).
    counted: bool,
    /// The node's domain (its topology value, "" when it has none); `None` for hostname,
    /// which is counted per node in Score.
    domain: Option<usize>,
    /// Whether the node has the topology key: only then does it score for the constraint.
    has_key: bool,
    /// The node's pods that the constraint's selector matches, in the pod's namespace.
    matching: i64,
}

impl ScoreCache {
    /// An empty cache whose first count reads `index` (when it covers the nodes counted).
    pub fn with_index(index: Option<std::sync::Arc<PodIndex>>) -> Self {
        Self { index, ..Self::default() }
    }

    /// The same cache emptied, keeping its index.
    pub fn emptied(&mut self) -> Self {
        Self::with_index(self.index.take())
    }

    /// Builds the per-node facts unless they are there for this many nodes and constraints.
    fn prepare(&mut self, ctx: &ScoreContext, nodes: &[NodeInfo]) {
        let ready = self.nodes.len() == nodes.len()
            && self.domains.len() == ctx.constraints.len()
            && self.nodes.iter().zip(nodes).all(|(e, n)| e.seen <= n.pods().len());
        if ready {
            return;
        }
        self.domains = vec![Vec::new(); ctx.constraints.len()];
        let domains = &mut self.domains;
        self.nodes = nodes
            .iter()
            .map(|info| {
                // The node's label index: a hashed probe per key, where the label map's
                // binary search compared long shared prefixes (this runs for every node
                // whenever a workload's cache starts).
                let labels = info.labels();
                let has_keys = !ctx.require_all_topologies || has_all_keys(labels, &ctx.constraints);
                let per_constraint = ctx
                    .constraints
                    .iter()
                    .zip(domains.iter_mut())
                    .map(|(c, names)| NodeConstraint {
                        counted: has_keys && c.includes_node(ctx.pod, info, &ctx.required, ctx.cfg),
                        domain: (c.topology_key != LABEL_HOSTNAME).then(|| {
                            let value = labels.label(&c.topology_key).unwrap_or("");
                            names.iter().position(|n| n == value).unwrap_or_else(|| {
                                names.push(value.to_string());
                                names.len() - 1
                            })
                        }),
                        has_key: labels.label(&c.topology_key).is_some(),
                        matching: 0,
                    })
                    .collect();
                NodeEntry { seen: 0, per_constraint }
            })
            .collect();
        self.count_indexed(ctx, nodes);
    }

    /// The first count from the index: each node's indexed pods in the pod's namespace that
    /// each constraint's selector matches (as [`count_matching`] counts them); `update` then
    /// counts the pods bound after the index was built.
    fn count_indexed(&mut self, ctx: &ScoreContext, nodes: &[NodeInfo]) {
        let Some(index) = self.index.as_ref().filter(|i| i.covers(nodes)) else { return };
        for (n, pod) in index.in_namespace(nodes, ctx.namespace) {
            let Some(entry) = self.nodes.get_mut(n) else { continue };
            for (nc, c) in entry.per_constraint.iter_mut().zip(&ctx.constraints) {
                if counts_any(&c.selector) && c.selector.matches(&pod.labels) {
                    nc.matching += 1;
                }
            }
        }
        for (n, entry) in self.nodes.iter_mut().enumerate() {
            entry.seen = index.indexed(n);
        }
    }

    /// Counts the pods bound since the last cycle.
    fn update(&mut self, ctx: &ScoreContext, nodes: &[NodeInfo]) {
        for (entry, info) in self.nodes.iter_mut().zip(nodes) {
            let new = info.pods().get(entry.seen..).unwrap_or_default();
            if new.is_empty() {
                continue;
            }
            for (nc, c) in entry.per_constraint.iter_mut().zip(&ctx.constraints) {
                nc.matching += count_matching(new, &c.selector, ctx.namespace);
            }
            entry.seen = info.pods().len();
        }
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
    let zeros = vec![0; feasible.len()];
    if nodes.is_empty() {
        return zeros;
    }
    // The pod's own constraints, or the system defaults. Only the pod's own require a node to
    // have every topology key (`requireAllTopologies`): under the defaults a node without a
    // zone label still gets hostname spreading, and its missing zone counts as the value "".
    let (constraints, require_all_topologies) = if pod.spec.topology_spread_constraints.is_empty() {
        (system_default_constraints(pod, cfg), false)
    } else {
        let Ok(constraints) = constraints_of(pod, SCHEDULE_ANYWAY, cfg) else {
            // Upstream fails PreScore with an error; Placement leaves the plugin out.
            return zeros;
        };
        (constraints, true)
    };
    if constraints.is_empty() {
        return zeros;
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

    // The feasible nodes in order, `None` for those PreScore ignores (missing a required
    // topology key; an index outside `nodes` would be a caller bug, and is ignored too).
    let scored: Vec<Option<(&NodeInfo, &NodeEntry)>> = feasible
        .iter()
        .map(|&i| {
            let info = nodes.get(i)?;
            let keep = !require_all_topologies || has_all_keys(info.labels(), &ctx.constraints);
            keep.then_some((info, cache.nodes.get(i)?))
        })
        .collect();
    // PreScore's domains: the topology values of the scored nodes, per constraint; the
    // hostname constraint's size is the number of scored nodes.
    let mut present: Vec<Vec<bool>> = cache.domains.iter().map(|d| vec![false; d.len()]).collect();
    for (_, entry) in scored.iter().flatten() {
        for (nc, p) in entry.per_constraint.iter().zip(present.iter_mut()) {
            if let Some(slot) = nc.domain.and_then(|d| p.get_mut(d)) {
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
    for entry in &cache.nodes {
        for ((nc, p), t) in entry.per_constraint.iter().zip(&present).zip(totals.iter_mut()) {
            let Some(d) = nc.domain.filter(|_| nc.counted) else { continue };
            if let (Some(true), Some(total)) = (p.get(d), t.get_mut(d)) {
                *total += nc.matching;
            }
        }
    }

    let raw: Vec<Option<i64>> = scored
        .iter()
        .map(|scored| {
            let (_, entry) = (*scored)?;
            let mut s = 0.0;
            let per = ctx.constraints.iter().zip(&entry.per_constraint).zip(&totals).zip(&weights);
            for (((c, nc), t), w) in per {
                // Only a node that has the topology key scores for the constraint.
                if !nc.has_key {
                    continue;
                }
                let cnt = match nc.domain {
                    None => nc.matching,
                    Some(d) => t.get(d).copied().unwrap_or(0),
                };
                s += score_for_count(cnt, c.max_skew, *w);
            }
            Some(s.round() as i64)
        })
        .collect();
    normalize_score(&raw)
}

/// `NormalizeScore`: ignored nodes (`None`) get 0; the rest `100 * (max + min - s) / max`.
pub(super) fn normalize_score(raw: &[Option<i64>]) -> Vec<i64> {
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
