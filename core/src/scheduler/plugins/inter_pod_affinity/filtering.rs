//! PreFilter and Filter (`filtering.go`): required affinity and anti-affinity, the existing
//! pods' anti-affinity.

use super::*;

/// One `topologyToMatchedTermCount` entry, with the first pod that made it (for explanations).
#[derive(Debug, Clone)]
pub(super) struct Tally {
    pub(super) count: i64,
    /// `namespace/name` of the first pod counted.
    pub(super) pod: String,
    /// The selector of the term that counted it.
    pub(super) selector: String,
}

/// `topologyToMatchedTermCount`: (topology key, value) -> matches.
pub(super) type TopologyCounts = BTreeMap<(String, String), Tally>;

/// `topologyToMatchedTermCount.update` with value 1: only nodes that have the key count.
pub(super) fn count(
    counts: &mut TopologyCounts,
    node_labels: &Labels,
    key: &str,
    pod: &PlacedPod,
    term: &AffinityTerm,
) {
    if let Some(value) = node_labels.get(key) {
        counts
            .entry((key.to_string(), value.clone()))
            .or_insert_with(|| Tally {
                count: 0,
                pod: format!("{}/{}", pod.namespace, pod.name),
                selector: term.describe(),
            })
            .count += 1;
    }
}

pub(super) fn tally_at<'a>(counts: &'a TopologyCounts, key: &str, value: &str) -> Option<&'a Tally> {
    counts.get(&(key.to_string(), value.to_string())).filter(|t| t.count > 0)
}

/// What PreFilter computed over every node, read by Filter per node.
#[derive(Debug, Clone, Default)]
pub struct PreFilterState {
    namespace: String,
    labels: Labels,
    required_affinity: Vec<AffinityTerm>,
    required_anti_affinity: Vec<AffinityTerm>,
    /// Existing pods whose required anti-affinity terms match the incoming pod, per topology.
    existing_anti_affinity_counts: TopologyCounts,
    /// Existing pods matching all of the incoming pod's required affinity terms.
    affinity_counts: TopologyCounts,
    /// Existing pods matching the incoming pod's required anti-affinity terms.
    anti_affinity_counts: TopologyCounts,
}

/// Over all nodes (`nodes`, the whole cluster): `Skip` when the pod has no required
/// (anti-)affinity terms and no placed pod's required anti-affinity matches the pod.
/// `anti_affinity_pods`, when the caller counts them: how many of the nodes' pods have
/// required anti-affinity terms (else the nodes are asked).
pub fn pre_filter(
    pod: &Pod,
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
    anti_affinity_pods: Option<usize>,
) -> (Status, PreFilterState) {
    let (terms, errors) = PodTerms::of_pod(pod, cfg);
    if !errors.is_empty() {
        let status = Status::new(Code::UnschedulableAndUnresolvable, format!("parsing pod: {}", aggregate(&errors)));
        return (status, PreFilterState::default());
    }
    let incoming_terms = !terms.required_affinity.is_empty() || !terms.required_anti_affinity.is_empty();
    // The common case, no terms anywhere, skips before copying the pod's labels.
    let no_anti_affinity_pods = match anti_affinity_pods {
        Some(n) => n == 0,
        None => !nodes.iter().any(NodeInfo::has_pods_with_required_anti_affinity),
    };
    if !incoming_terms && no_anti_affinity_pods {
        return (Status::skip(), PreFilterState::default());
    }
    let mut s = PreFilterState {
        namespace: pod_namespace(pod).to_string(),
        labels: pod.metadata.labels.clone(),
        required_affinity: terms.required_affinity,
        required_anti_affinity: terms.required_anti_affinity,
        ..Default::default()
    };

    for node in nodes {
        // Without terms of its own, only existing pods' required anti-affinity can count.
        if !incoming_terms && !node.has_pods_with_required_anti_affinity() {
            continue;
        }
        let node_labels = &node.node().metadata.labels;
        for existing in node.pods() {
            // getExistingAntiAffinityCounts: existing pods' required anti-affinity vs the pod.
            if !existing.required_anti_affinity.is_empty() {
                for t in &PodTerms::of_placed(existing, cfg).required_anti_affinity {
                    if t.matches(&s.namespace, &s.labels) {
                        count(&mut s.existing_anti_affinity_counts, node_labels, &t.topology_key, existing, t);
                    }
                }
            }
            // getIncomingAffinityAntiAffinityCounts.
            if !incoming_terms {
                continue;
            }
            if matches_all(&s.required_affinity, &existing.namespace, &existing.labels) {
                for t in &s.required_affinity {
                    count(&mut s.affinity_counts, node_labels, &t.topology_key, existing, t);
                }
            }
            for t in &s.required_anti_affinity {
                if t.matches(&existing.namespace, &existing.labels) {
                    count(&mut s.anti_affinity_counts, node_labels, &t.topology_key, existing, t);
                }
            }
        }
    }

    if s.existing_anti_affinity_counts.is_empty() && !incoming_terms {
        return (Status::skip(), PreFilterState::default());
    }
    (Status::success(), s)
}

/// Upstream's order: the pod's affinity (unresolvable), the pod's anti-affinity, then the
/// existing pods' anti-affinity (both resolvable by preemption).
pub fn filter(state: &PreFilterState, _pod: &Pod, node: &NodeInfo) -> Status {
    let labels = &node.node().metadata.labels;
    if let Err(detail) = satisfy_pod_affinity(state, labels) {
        return Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_AFFINITY_RULES_NOT_MATCH)
            .with_detail(detail);
    }
    if let Err(detail) = satisfy_pod_anti_affinity(state, labels) {
        return Status::new(Code::Unschedulable, ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH).with_detail(detail);
    }
    if let Err(detail) = satisfy_existing_pods_anti_affinity(state, labels) {
        return Status::new(Code::Unschedulable, ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH).with_detail(detail);
    }
    Status::success()
}

/// `satisfyPodAffinity`, including the first-pod-of-a-group exception.
pub(super) fn satisfy_pod_affinity(s: &PreFilterState, labels: &Labels) -> Result<(), String> {
    let mut missing: Option<(&AffinityTerm, &String)> = None;
    for term in &s.required_affinity {
        let Some(value) = labels.get(&term.topology_key) else {
            // All topology labels must exist on the node.
            return Err(format!(
                "pod affinity: the node has no {} label, the topologyKey of the term selecting {}",
                term.topology_key,
                term.describe()
            ));
        };
        if missing.is_none() && tally_at(&s.affinity_counts, &term.topology_key, value).is_none() {
            missing = Some((term, value));
        }
    }
    let Some((term, value)) = missing else { return Ok(()) };
    // The pod may be the first of a group with affinity to itself: when no pod in the cluster
    // matches and the pod matches its own terms, any node with all the topology keys will do.
    let self_match = matches_all(&s.required_affinity, &s.namespace, &s.labels);
    if s.affinity_counts.is_empty() && self_match {
        return Ok(());
    }
    let mut detail = format!("pod affinity: no pod with {} in {}={value}", term.describe(), term.topology_key);
    if s.affinity_counts.is_empty() {
        detail.push_str(
            "; no pod in the cluster matches, and the pod does not match its own affinity terms, so it cannot start the group",
        );
    }
    Err(detail)
}

/// `satisfyPodAntiAffinity`.
pub(super) fn satisfy_pod_anti_affinity(s: &PreFilterState, labels: &Labels) -> Result<(), String> {
    for term in &s.required_anti_affinity {
        if let Some(value) = labels.get(&term.topology_key) {
            if let Some(t) = tally_at(&s.anti_affinity_counts, &term.topology_key, value) {
                return Err(format!(
                    "anti-affinity: pod {} with {} is already in {}={value}",
                    t.pod, t.selector, term.topology_key
                ));
            }
        }
    }
    Ok(())
}

/// `satisfyExistingPodsAntiAffinity`: any node label pair some existing pod's anti-affinity
/// term counted rejects the node.
pub(super) fn satisfy_existing_pods_anti_affinity(s: &PreFilterState, labels: &Labels) -> Result<(), String> {
    if s.existing_anti_affinity_counts.is_empty() {
        return Ok(());
    }
    for (key, value) in labels {
        if let Some(t) = tally_at(&s.existing_anti_affinity_counts, key, value) {
            return Err(format!(
                "existing pod {} has anti-affinity to pods with {} and is in {key}={value}",
                t.pod, t.selector
            ));
        }
    }
    Ok(())
}
