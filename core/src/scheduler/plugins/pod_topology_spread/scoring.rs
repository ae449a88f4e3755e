//! PreScore, Score and NormalizeScore (`scoring.go`): `ScheduleAnyway` constraints, or the
//! system defaults.

use super::*;

/// `topologyNormalizingWeight`: `ln(domains + 2)`, so small topologies are not drowned out.
pub(super) fn topology_normalizing_weight(size: usize) -> f64 {
    ((size + 2) as f64).ln()
}

/// `scoreForCount`: `maxSkew - 1` is added to water down differences between domains.
pub(super) fn score_for_count(count: i64, max_skew: i32, weight: f64) -> f64 {
    count as f64 * weight + f64::from(max_skew - 1)
}

/// Normalized scores (0..=100) for `nodes[i]` for each `i` in `feasible`, in that order.
///
/// PreScore: the domains are the topology values of the feasible nodes that have every key;
/// matching pods are counted over the whole cluster (node inclusion policies applied). Score:
/// `round(sum(count * ln(domains + 2) + maxSkew - 1))`, hostname counted on the node itself.
/// NormalizeScore, fewer is better: `100 * (max + min - s) / max`, 100 for all when `max` is
/// 0, and 0 for feasible nodes missing a topology key. All zeros when PreScore would Skip.
pub fn score(pod: &Pod, nodes: &[NodeInfo], feasible: &[usize], cfg: &SchedulerConfig) -> Vec<i64> {
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
    let value_of = |labels: &Labels, key: &str| labels.get(key).cloned().unwrap_or_default();
    // The feasible nodes in order, `None` for those PreScore ignores (missing a required
    // topology key; an index outside `nodes` would be a caller bug, and is ignored too).
    let scored: Vec<Option<&NodeInfo>> = feasible
        .iter()
        .map(|&i| {
            nodes.get(i).filter(|n| !require_all_topologies || has_all_keys(&n.node().metadata.labels, &constraints))
        })
        .collect();
    let mut counts = vec![BTreeMap::<String, i64>::new(); constraints.len()];
    for info in scored.iter().flatten() {
        let labels = &info.node().metadata.labels;
        for (c, m) in constraints.iter().zip(counts.iter_mut()) {
            // Per-node counts are done in Score.
            if c.topology_key != LABEL_HOSTNAME {
                m.entry(value_of(labels, &c.topology_key)).or_insert(0);
            }
        }
    }
    let scored_nodes = scored.iter().flatten().count();
    let weights: Vec<f64> = constraints
        .iter()
        .zip(&counts)
        .map(|(c, m)| {
            topology_normalizing_weight(if c.topology_key == LABEL_HOSTNAME { scored_nodes } else { m.len() })
        })
        .collect();

    let namespace = pod_namespace(pod);
    let required = RequiredNodeAffinity::from_pod(&pod.spec);
    for info in nodes {
        let labels = &info.node().metadata.labels;
        if require_all_topologies && !has_all_keys(labels, &constraints) {
            continue;
        }
        for (c, m) in constraints.iter().zip(counts.iter_mut()) {
            if !c.includes_node(pod, info.node(), &required, cfg) {
                continue;
            }
            // Only domains of some feasible node are tracked.
            if let Some(n) = m.get_mut(labels.get(&c.topology_key).map_or("", String::as_str)) {
                *n += count_matching(info.pods(), &c.selector, namespace);
            }
        }
    }

    let raw: Vec<Option<i64>> = scored
        .iter()
        .map(|info| {
            let info = (*info)?;
            let mut s = 0.0;
            for ((c, m), w) in constraints.iter().zip(&counts).zip(&weights) {
                if let Some(value) = info.node().metadata.labels.get(&c.topology_key) {
                    let cnt = if c.topology_key == LABEL_HOSTNAME {
                        count_matching(info.pods(), &c.selector, namespace)
                    } else {
                        m.get(value).copied().unwrap_or(0)
                    };
                    s += score_for_count(cnt, c.max_skew, *w);
                }
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
