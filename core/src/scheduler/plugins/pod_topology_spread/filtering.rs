//! PreFilter and Filter (`filtering.go`): `DoNotSchedule` constraints.

use super::*;

/// What PreFilter computed over every node, read by Filter per node.
#[derive(Debug, Clone, Default)]
pub struct PreFilterState {
    constraints: Vec<Constraint>,
    /// Per constraint: topology value -> matching pods, for every eligible domain.
    tp_value_to_match_num: Vec<BTreeMap<String, i64>>,
    /// Per constraint: the smallest count over the eligible domains (`MaxInt32` when none).
    min_match_num: Vec<i64>,
}

/// `minMatchNum` of one constraint, given its domains and their smallest count: the global
/// minimum, 0 while there are fewer domains than `minDomains`.
fn min_match_num(c: &Constraint, domains: &BTreeMap<String, i64>, min_match_num: i64) -> (i64, bool) {
    match c.min_domains {
        Some(min_domains) if (domains.len() as i64) < i64::from(min_domains) => (0, true),
        _ => (min_match_num, false),
    }
}

/// Over all nodes (`nodes`, the whole cluster): `Skip` when the pod has no `DoNotSchedule`
/// constraints.
pub fn pre_filter(pod: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig) -> (Status, PreFilterState) {
    let constraints = match constraints_of(pod, DO_NOT_SCHEDULE, cfg) {
        Ok(c) => c,
        Err(e) => {
            // Upstream returns an Error status; Placement reports it as unresolvable.
            let reason = format!("get constraints from pod: obtaining pod's hard topology spread constraints: {e}");
            return (Status::new(Code::UnschedulableAndUnresolvable, reason), PreFilterState::default());
        }
    };
    if constraints.is_empty() {
        return (Status::skip(), PreFilterState::default());
    }

    let namespace = pod_namespace(pod);
    let required = RequiredNodeAffinity::from_pod(&pod.spec);
    let mut counts = vec![BTreeMap::<String, i64>::new(); constraints.len()];
    for info in nodes {
        let labels = &info.node().metadata.labels;
        if !has_all_keys(labels, &constraints) {
            continue;
        }
        for (c, m) in constraints.iter().zip(counts.iter_mut()) {
            // `has_all_keys` above guarantees the label; a node without it is skipped anyway.
            let Some(value) = labels.get(&c.topology_key) else { continue };
            if !c.includes_node(pod, info, &required, cfg) {
                continue;
            }
            let n = count_matching(info.pods(), &c.selector, namespace);
            *m.entry(value.clone()).or_default() += n;
        }
    }
    let min_match_num = counts.iter().map(|m| m.values().copied().min().unwrap_or(i64::from(i32::MAX))).collect();
    (Status::success(), PreFilterState { constraints, tp_value_to_match_num: counts, min_match_num })
}

/// For each constraint in order: the node must have the topology key (else unresolvable), and
/// `matching pods in the node's domain + (1 if the pod matches) - global minimum <= maxSkew`.
pub fn filter(state: &PreFilterState, pod: &Pod, node: &NodeInfo) -> Status {
    let labels = &node.node().metadata.labels;
    // The three vectors are parallel, one entry per constraint (all built by `pre_filter`).
    let per_constraint = state.constraints.iter().zip(&state.tp_value_to_match_num).zip(&state.min_match_num);
    for ((c, domains), &global_min) in per_constraint {
        let key = &c.topology_key;
        let Some(value) = labels.get(key) else {
            return Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
                .with_detail(format!("the node has no {key} label, the topologyKey of a DoNotSchedule constraint"));
        };
        let (min, below_min_domains) = min_match_num(c, domains, global_min);
        let self_match = i64::from(c.selector.matches(&pod.metadata.labels));
        let match_num = domains.get(value).copied().unwrap_or(0);
        if match_num + self_match - min <= i64::from(c.max_skew) {
            continue;
        }
        let mut detail = format!("{key}={value} would have {} matching pods", match_num + self_match);
        if below_min_domains {
            detail.push_str(&format!(
                ", and with {} eligible {key} domain(s), fewer than minDomains {}, the minimum counts as 0",
                domains.len(),
                c.min_domains.unwrap_or(1)
            ));
        } else if let Some((least, n)) = domains.iter().min_by_key(|(_, n)| **n) {
            detail.push_str(&format!(", the least loaded {key} ({least}) has {n}"));
        }
        detail.push_str(&format!(" (maxSkew {}, counting pods with {})", c.max_skew, describe_selector(&c.selector)));
        return Status::new(Code::Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH).with_detail(detail);
    }
    Status::success()
}
