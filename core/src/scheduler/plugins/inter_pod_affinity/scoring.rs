//! PreScore, Score and NormalizeScore (`scoring.go`): preferred terms of the pod and of
//! existing pods.

use super::*;

/// `scoreMap`: topology key -> value -> summed weights.
pub(super) type ScoreMap = BTreeMap<String, BTreeMap<String, i64>>;

/// `scoreMap.processTerm`.
pub(super) fn process_term(
    m: &mut ScoreMap,
    term: &AffinityTerm,
    weight: i64,
    namespace: &str,
    labels: &Labels,
    node_labels: &Labels,
    multiplier: i64,
) {
    if term.matches(namespace, labels) {
        if let Some(value) = node_labels.get(&term.topology_key) {
            *m.entry(term.topology_key.clone()).or_default().entry(value.clone()).or_default() += weight * multiplier;
        }
    }
}

pub(super) fn process_terms(
    m: &mut ScoreMap,
    terms: &[(i64, AffinityTerm)],
    namespace: &str,
    labels: &Labels,
    node_labels: &Labels,
    multiplier: i64,
) {
    for (weight, term) in terms {
        process_term(m, term, *weight, namespace, labels, node_labels, multiplier);
    }
}

/// Normalized scores (0..=100) for `nodes[i]` for each `i` in `feasible`, in that order.
///
/// PreScore over the whole cluster: the pod's preferred terms against every existing pod, and
/// every existing pod's required affinity (weight `hardPodAffinityWeight`) and preferred
/// (anti-)affinity against the pod, summed per topology pair. Score sums the pairs of the
/// node; NormalizeScore scales min..max to 0..100. All zeros when PreScore would Skip.
pub fn score(pod: &Pod, nodes: &[NodeInfo], feasible: &[usize], cfg: &SchedulerConfig) -> Vec<i64> {
    let mut scores = raw_scores(pod, nodes, feasible, cfg, None);
    normalize_score(&mut scores);
    scores
}

/// [`score`] before NormalizeScore: each feasible node's sum over its topology pairs.
/// `affinity_pods`, when the caller counts them: how many of the nodes' pods have pod
/// (anti-)affinity terms (else the nodes are asked).
pub fn raw_scores(
    pod: &Pod,
    nodes: &[NodeInfo],
    feasible: &[usize],
    cfg: &SchedulerConfig,
    affinity_pods: Option<usize>,
) -> Vec<i64> {
    let (incoming, errors) = PodTerms::of_pod(pod, cfg);
    if !errors.is_empty() {
        // Upstream fails PreScore; PreFilter has already rejected such a pod.
        return vec![0; feasible.len()];
    }
    let namespace = pod_namespace(pod);
    let labels = &pod.metadata.labels;

    let incoming_preferred = !incoming.preferred_affinity.is_empty() || !incoming.preferred_anti_affinity.is_empty();
    if !incoming_preferred && affinity_pods == Some(0) {
        // No term anywhere: PreScore returns Skip.
        return vec![0; feasible.len()];
    }
    let mut topology_score = ScoreMap::new();
    for node in nodes {
        // Without preferred terms of its own, only existing pods' terms can score (upstream
        // walks `HavePodsWithAffinityList` then).
        if !incoming_preferred && !node.has_pods_with_affinity() {
            continue;
        }
        let node_labels = &node.node().metadata.labels;
        if node_labels.is_empty() {
            continue;
        }
        for existing in node.pods() {
            let (ens, elabels) = (&*existing.namespace, &existing.labels);
            process_terms(&mut topology_score, &incoming.preferred_affinity, ens, elabels, node_labels, 1);
            process_terms(&mut topology_score, &incoming.preferred_anti_affinity, ens, elabels, node_labels, -1);
            let has_terms = !existing.required_affinity.is_empty()
                || !existing.preferred_affinity.is_empty()
                || !existing.preferred_anti_affinity.is_empty();
            if !has_terms {
                continue;
            }
            let theirs = PodTerms::of_placed(existing, cfg);
            if HARD_POD_AFFINITY_WEIGHT > 0 {
                for t in &theirs.required_affinity {
                    process_term(&mut topology_score, t, HARD_POD_AFFINITY_WEIGHT, namespace, labels, node_labels, 1);
                }
            }
            process_terms(&mut topology_score, &theirs.preferred_affinity, namespace, labels, node_labels, 1);
            process_terms(&mut topology_score, &theirs.preferred_anti_affinity, namespace, labels, node_labels, -1);
        }
    }
    if topology_score.is_empty() {
        // PreScore returns Skip.
        return vec![0; feasible.len()];
    }

    feasible
        .iter()
        .map(|&i| {
            // `feasible` indexes `nodes`; an index outside it would be a node without labels.
            let Some(node) = nodes.get(i) else { return 0 };
            let node_labels = &node.node().metadata.labels;
            topology_score
                .iter()
                .filter_map(|(key, values)| node_labels.get(key).map(|v| values.get(v).copied().unwrap_or(0)))
                .sum()
        })
        .collect()
}

/// `NormalizeScore`: `MaxNodeScore * (s - min) / (max - min)` in floating point, truncated;
/// all zeros when every node scored the same.
pub fn normalize_score(scores: &mut [i64]) {
    let (Some(&min), Some(&max)) = (scores.iter().min(), scores.iter().max()) else { return };
    let diff = max - min;
    for s in scores.iter_mut() {
        let f = if diff > 0 {
            crate::scheduler::plugins::MAX_NODE_SCORE as f64 * ((*s - min) as f64 / diff as f64)
        } else {
            0.0
        };
        *s = f as i64;
    }
}
