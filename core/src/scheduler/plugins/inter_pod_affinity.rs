//! InterPodAffinity: required pod (anti-)affinity filter and preferred pod (anti-)affinity score.
//!
//! Mirrors `pkg/scheduler/framework/plugins/interpodaffinity/{filtering.go,scoring.go}` and the
//! `AffinityTerm` parsing of `pkg/scheduler/framework/types.go` (`NewPodInfo`,
//! `newAffinityTerm`, `AffinityTerm.Matches`), with the default `InterPodAffinityArgs`
//! (`hardPodAffinityWeight: 1`, `ignorePreferredTermsOfExistingPods: false`).
//!
//! Namespaces of a term: the `namespaces` list, plus whatever `namespaceSelector` selects; a
//! term with neither means the namespace of the pod that carries it. Placement has no
//! Namespace objects, so namespace labels are unknown. What it can still decide exactly:
//! - an empty `namespaceSelector: {}` selects every namespace;
//! - a selector that only constrains `kubernetes.io/metadata.name` (the label the API server
//!   puts on every namespace, value = its name) is evaluated against that label;
//! - any other non-empty selector selects no namespace, as if no namespace carried the labels.
//!
//! `matchLabelKeys` / `mismatchLabelKeys` are merged into the term's label selector as the API
//! server does at pod creation (`applyMatchLabelKeysAndMismatchLabelKeys`): `key In (value)` /
//! `key NotIn (value)` with the value from the labels of the pod that carries the term, for
//! keys that pod has, and only when the term has a label selector. A manifest taken from a live
//! cluster already has them merged; merging again adds the same requirement twice, harmlessly.

use std::collections::{BTreeMap, BTreeSet};

use crate::input::field::{FieldError, FieldPath};
use crate::model::labels::{Operator, Selector};
use crate::model::{
    LabelSelector, LabelSelectorRequirement, Labels, Pod, PodAffinity, PodAffinityTerm, WeightedPodAffinityTerm,
};
use crate::scheduler::framework::{Code, NodeInfo, PlacedPod, SchedulerConfig, Status};

pub const NAME: &str = "InterPodAffinity";

/// `ErrReasonExistingAntiAffinityRulesNotMatch`.
pub const ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH: &str =
    "node(s) didn't satisfy existing pods anti-affinity rules";
/// `ErrReasonAffinityRulesNotMatch`.
pub const ERR_REASON_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod affinity rules";
/// `ErrReasonAntiAffinityRulesNotMatch`.
pub const ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH: &str = "node(s) didn't match pod anti-affinity rules";

/// `InterPodAffinityArgs.hardPodAffinityWeight` default: the score weight of an existing pod's
/// *required* affinity term that the incoming pod matches.
pub const HARD_POD_AFFINITY_WEIGHT: i64 = 1;

/// `v1.LabelMetadataName`, set by the API server on every namespace.
pub const LABEL_METADATA_NAME: &str = "kubernetes.io/metadata.name";

// ---------------------------------------------------------------------------------------------
// Affinity terms

/// `framework.AffinityTerm`: a parsed `PodAffinityTerm`.
#[derive(Debug, Clone)]
struct AffinityTerm {
    namespaces: BTreeSet<String>,
    /// `Nothing` when the term has no `namespaceSelector`.
    namespace_selector: Selector,
    selector: Selector,
    topology_key: String,
}

impl AffinityTerm {
    /// `newAffinityTerm`; `owner_*` describe the pod that carries the term.
    fn parse(
        term: &PodAffinityTerm,
        owner_namespace: &str,
        owner_labels: &Labels,
        cfg: &SchedulerConfig,
        path: &FieldPath,
    ) -> Result<Self, FieldError> {
        let label_selector = merge_label_keys(term, owner_labels, cfg);
        let selector = Selector::from_label_selector(label_selector.as_ref(), &path.child("labelSelector"))?;
        let namespaces = if term.namespaces.is_empty() && term.namespace_selector.is_none() {
            BTreeSet::from([owner_namespace.to_string()])
        } else {
            term.namespaces.iter().cloned().collect()
        };
        let namespace_selector =
            Selector::from_label_selector(term.namespace_selector.as_ref(), &path.child("namespaceSelector"))?;
        Ok(Self { namespaces, namespace_selector, selector, topology_key: term.topology_key.clone() })
    }

    /// `AffinityTerm.Matches`: the pod's namespace is selected and its labels match.
    fn matches(&self, namespace: &str, labels: &Labels) -> bool {
        (self.namespaces.contains(namespace) || namespace_selector_matches(&self.namespace_selector, namespace))
            && self.selector.matches(labels)
    }

    fn describe(&self) -> String {
        describe_selector(&self.selector)
    }
}

/// `applyMatchLabelKeysAndMismatchLabelKeys` (kube-apiserver's pod strategy), gated by
/// `MatchLabelKeysInPodAffinity` (beta, on by default, from 1.31).
fn merge_label_keys(term: &PodAffinityTerm, owner_labels: &Labels, cfg: &SchedulerConfig) -> Option<LabelSelector> {
    let mut selector = term.label_selector.clone()?;
    if !cfg.version.at_least(1, 31) {
        return Some(selector);
    }
    for (keys, operator) in [(&term.match_label_keys, "In"), (&term.mismatch_label_keys, "NotIn")] {
        for key in keys {
            if let Some(value) = owner_labels.get(key) {
                selector.match_expressions.push(LabelSelectorRequirement {
                    key: key.clone(),
                    operator: operator.into(),
                    values: vec![value.clone()],
                });
            }
        }
    }
    Some(selector)
}

/// Whether a term's `namespaceSelector` selects `namespace`, knowing only the namespace's
/// `kubernetes.io/metadata.name` label (see the module comment).
fn namespace_selector_matches(selector: &Selector, namespace: &str) -> bool {
    match selector {
        Selector::Nothing => false,
        Selector::All(reqs) if reqs.iter().all(|r| r.key == LABEL_METADATA_NAME) => {
            selector.matches(&Labels::from([(LABEL_METADATA_NAME.to_string(), namespace.to_string())]))
        }
        Selector::All(_) => false,
    }
}

/// `app=web,tier in (a,b)`: a selector as a human reads it.
pub(crate) fn describe_selector(selector: &Selector) -> String {
    match selector {
        Selector::Nothing => "no labels (nil labelSelector)".into(),
        Selector::All(reqs) if reqs.is_empty() => "any labels".into(),
        Selector::All(reqs) => reqs
            .iter()
            .map(|r| match (r.operator, r.values.as_slice()) {
                (Operator::In, [v]) => format!("{}={v}", r.key),
                (Operator::NotIn, [v]) => format!("{}!={v}", r.key),
                _ => r.to_string(),
            })
            .collect::<Vec<_>>()
            .join(","),
    }
}

/// The parsed pod (anti-)affinity terms of one pod (`framework.PodInfo`).
#[derive(Debug, Clone, Default)]
struct PodTerms {
    required_affinity: Vec<AffinityTerm>,
    required_anti_affinity: Vec<AffinityTerm>,
    preferred_affinity: Vec<(i64, AffinityTerm)>,
    preferred_anti_affinity: Vec<(i64, AffinityTerm)>,
}

impl PodTerms {
    /// `PodInfo.Update`: each of the four lists parses whole or not at all; the errors come
    /// back prefixed as upstream aggregates them.
    fn parse(
        namespace: &str,
        labels: &Labels,
        lists: [&[PodAffinityTerm]; 2],
        weighted: [&[WeightedPodAffinityTerm]; 2],
        cfg: &SchedulerConfig,
    ) -> (Self, Vec<String>) {
        const REQ: &str = "requiredDuringSchedulingIgnoredDuringExecution";
        const PREF: &str = "preferredDuringSchedulingIgnoredDuringExecution";
        let mut errors = Vec::new();
        let roots = ["spec.affinity.podAffinity", "spec.affinity.podAntiAffinity"];
        let names = ["requiredAffinityTerms", "requiredAntiAffinityTerms"];
        let mut required: [Vec<AffinityTerm>; 2] = Default::default();
        // Most pods have no terms: skip building their field paths.
        for k in (0..2).filter(|&k| !lists[k].is_empty()) {
            let path = FieldPath::root(roots[k]).child(REQ);
            let parsed: Result<Vec<_>, _> = lists[k]
                .iter()
                .enumerate()
                .map(|(i, t)| AffinityTerm::parse(t, namespace, labels, cfg, &path.index(i)))
                .collect();
            match parsed {
                Ok(terms) => required[k] = terms,
                Err(e) => errors.push(format!("{}: {e}", names[k])),
            }
        }
        let names = ["preferredAffinityTerms", "preferredAntiAffinityTerms"];
        let mut preferred: [Vec<(i64, AffinityTerm)>; 2] = Default::default();
        for k in (0..2).filter(|&k| !weighted[k].is_empty()) {
            let path = FieldPath::root(roots[k]).child(PREF);
            let parsed: Result<Vec<_>, _> = weighted[k]
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    let p = path.index(i).child("podAffinityTerm");
                    AffinityTerm::parse(&w.pod_affinity_term, namespace, labels, cfg, &p).map(|t| (w.weight as i64, t))
                })
                .collect();
            match parsed {
                Ok(terms) => preferred[k] = terms,
                Err(e) => errors.push(format!("{}: {e}", names[k])),
            }
        }
        let [required_affinity, required_anti_affinity] = required;
        let [preferred_affinity, preferred_anti_affinity] = preferred;
        (Self { required_affinity, required_anti_affinity, preferred_affinity, preferred_anti_affinity }, errors)
    }

    fn of_pod(pod: &Pod, cfg: &SchedulerConfig) -> (Self, Vec<String>) {
        let affinity = pod.spec.affinity.as_ref();
        let pa = affinity.and_then(|a| a.pod_affinity.as_ref());
        let paa = affinity.and_then(|a| a.pod_anti_affinity.as_ref());
        fn required(p: Option<&PodAffinity>) -> &[PodAffinityTerm] {
            p.map(|p| p.required.as_slice()).unwrap_or_default()
        }
        fn preferred(p: Option<&PodAffinity>) -> &[WeightedPodAffinityTerm] {
            p.map(|p| p.preferred.as_slice()).unwrap_or_default()
        }
        Self::parse(
            pod_namespace(pod),
            &pod.metadata.labels,
            [required(pa), required(paa)],
            [preferred(pa), preferred(paa)],
            cfg,
        )
    }

    /// An existing pod's terms. Upstream's cache keeps a pod whose selectors fail to parse with
    /// the broken list empty, so the errors are dropped here.
    fn of_placed(pod: &PlacedPod, cfg: &SchedulerConfig) -> Self {
        Self::parse(
            &pod.namespace,
            &pod.labels,
            [&pod.required_affinity, &pod.required_anti_affinity],
            [&pod.preferred_affinity, &pod.preferred_anti_affinity],
            cfg,
        )
        .0
    }
}

fn pod_namespace(pod: &Pod) -> &str {
    pod.metadata.namespace_or_default()
}

/// `podMatchesAllAffinityTerms`: false for no terms.
fn matches_all(terms: &[AffinityTerm], namespace: &str, labels: &Labels) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(namespace, labels))
}

/// `utilerrors.NewAggregate(...).Error()`.
fn aggregate(errors: &[String]) -> String {
    if errors.len() == 1 {
        errors[0].clone()
    } else {
        format!("[{}]", errors.join(", "))
    }
}

// ---------------------------------------------------------------------------------------------
// PreFilter / Filter

/// One `topologyToMatchedTermCount` entry, with the first pod that made it (for explanations).
#[derive(Debug, Clone)]
struct Tally {
    count: i64,
    /// `namespace/name` of the first pod counted.
    pod: String,
    /// The selector of the term that counted it.
    selector: String,
}

/// `topologyToMatchedTermCount`: (topology key, value) -> matches.
type TopologyCounts = BTreeMap<(String, String), Tally>;

/// `topologyToMatchedTermCount.update` with value 1: only nodes that have the key count.
fn count(counts: &mut TopologyCounts, node_labels: &Labels, key: &str, pod: &PlacedPod, term: &AffinityTerm) {
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

fn tally_at<'a>(counts: &'a TopologyCounts, key: &str, value: &str) -> Option<&'a Tally> {
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
pub fn pre_filter(pod: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig) -> (Status, PreFilterState) {
    let (terms, errors) = PodTerms::of_pod(pod, cfg);
    if !errors.is_empty() {
        let status = Status::new(Code::UnschedulableAndUnresolvable, format!("parsing pod: {}", aggregate(&errors)));
        return (status, PreFilterState::default());
    }
    let incoming_terms = !terms.required_affinity.is_empty() || !terms.required_anti_affinity.is_empty();
    // The common case, no terms anywhere, skips before copying the pod's labels.
    if !incoming_terms && !nodes.iter().any(NodeInfo::has_pods_with_required_anti_affinity) {
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
fn satisfy_pod_affinity(s: &PreFilterState, labels: &Labels) -> Result<(), String> {
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
fn satisfy_pod_anti_affinity(s: &PreFilterState, labels: &Labels) -> Result<(), String> {
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
fn satisfy_existing_pods_anti_affinity(s: &PreFilterState, labels: &Labels) -> Result<(), String> {
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

// ---------------------------------------------------------------------------------------------
// Score

/// `scoreMap`: topology key -> value -> summed weights.
type ScoreMap = BTreeMap<String, BTreeMap<String, i64>>;

/// `scoreMap.processTerm`.
fn process_term(
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

fn process_terms(
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
    let (incoming, errors) = PodTerms::of_pod(pod, cfg);
    if !errors.is_empty() {
        // Upstream fails PreScore; PreFilter has already rejected such a pod.
        return vec![0; feasible.len()];
    }
    let namespace = pod_namespace(pod);
    let labels = &pod.metadata.labels;

    let incoming_preferred = !incoming.preferred_affinity.is_empty() || !incoming.preferred_anti_affinity.is_empty();
    let mut topology_score = ScoreMap::new();
    for node in nodes {
        let node_labels = &node.node().metadata.labels;
        // Without preferred terms of its own, only existing pods' terms can score (upstream
        // walks `HavePodsWithAffinityList` then).
        if node_labels.is_empty() || (!incoming_preferred && !node.has_pods_with_affinity()) {
            continue;
        }
        for existing in node.pods() {
            let (ens, elabels) = (existing.namespace.as_str(), &existing.labels);
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

    let mut scores: Vec<i64> = feasible
        .iter()
        .map(|&i| {
            let node_labels = &nodes[i].node().metadata.labels;
            topology_score
                .iter()
                .filter_map(|(key, values)| node_labels.get(key).map(|v| values.get(v).copied().unwrap_or(0)))
                .sum()
        })
        .collect();
    normalize_score(&mut scores);
    scores
}

/// `NormalizeScore`: `MaxNodeScore * (s - min) / (max - min)` in floating point, truncated;
/// all zeros when every node scored the same.
fn normalize_score(scores: &mut [i64]) {
    let (Some(&min), Some(&max)) = (scores.iter().min(), scores.iter().max()) else { return };
    let diff = max - min;
    for s in scores.iter_mut() {
        let f = if diff > 0 { super::MAX_NODE_SCORE as f64 * ((*s - min) as f64 / diff as f64) } else { 0.0 };
        *s = f as i64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::version::KubeVersion;
    use crate::model::Affinity;
    use crate::testing::{labels, node_info as node, pod};

    fn term(key: &str, sel: &[(&str, &str)]) -> PodAffinityTerm {
        PodAffinityTerm {
            label_selector: Some(LabelSelector { match_labels: labels(sel), ..Default::default() }),
            topology_key: key.into(),
            ..Default::default()
        }
    }

    fn weighted(weight: i32, t: PodAffinityTerm) -> WeightedPodAffinityTerm {
        WeightedPodAffinityTerm { weight, pod_affinity_term: t }
    }

    #[derive(Default)]
    struct Terms {
        req_aff: Vec<PodAffinityTerm>,
        req_anti: Vec<PodAffinityTerm>,
        pref_aff: Vec<WeightedPodAffinityTerm>,
        pref_anti: Vec<WeightedPodAffinityTerm>,
    }

    fn with(mut p: Pod, t: Terms) -> Pod {
        p.spec.affinity = Some(Affinity {
            node_affinity: None,
            pod_affinity: Some(PodAffinity { required: t.req_aff, preferred: t.pref_aff }),
            pod_anti_affinity: Some(PodAffinity { required: t.req_anti, preferred: t.pref_anti }),
        });
        p
    }

    /// (pod, nodes, expected per node, why)
    type FilterRow = (Pod, Vec<NodeInfo>, Vec<(Code, Option<String>)>, &'static str);
    /// (pod, nodes, expected normalized scores per node, why)
    type ScoreRow = (Pod, Vec<NodeInfo>, Vec<i64>, &'static str);

    const ZONE: &str = "topology.kubernetes.io/zone";
    const HOST: &str = "kubernetes.io/hostname";

    fn cfg() -> SchedulerConfig {
        SchedulerConfig::default()
    }

    /// Runs PreFilter then Filter on every node: the code per node, or `Skip` for all.
    fn run(p: &Pod, nodes: &[NodeInfo]) -> Vec<(Code, Option<String>)> {
        let (status, state) = pre_filter(p, nodes, &cfg());
        if status.code != Code::Success {
            return nodes.iter().map(|_| (status.code, status.reasons.first().cloned())).collect();
        }
        nodes
            .iter()
            .map(|n| {
                let s = filter(&state, p, n);
                (s.code, s.reasons.first().cloned())
            })
            .collect()
    }

    use Code::{Skip, Success, Unschedulable as U, UnschedulableAndUnresolvable as UU};

    fn ok() -> (Code, Option<String>) {
        (Success, None)
    }
    fn aff() -> (Code, Option<String>) {
        (UU, Some(ERR_REASON_AFFINITY_RULES_NOT_MATCH.into()))
    }
    fn anti() -> (Code, Option<String>) {
        (U, Some(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH.into()))
    }
    fn existing() -> (Code, Option<String>) {
        (U, Some(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH.into()))
    }

    #[test]
    fn filter_rows() {
        let web = |name: &str| pod("default", name, &[("app", "web")]);
        let db = |name: &str| pod("default", name, &[("app", "db")]);
        let spread_web =
            |p: Pod| with(p, Terms { req_anti: vec![term(HOST, &[("app", "web")])], ..Default::default() });
        let near_db = |p: Pod| with(p, Terms { req_aff: vec![term(ZONE, &[("app", "db")])], ..Default::default() });
        let self_aff = |p: Pod| with(p, Terms { req_aff: vec![term(ZONE, &[("app", "web")])], ..Default::default() });
        let hates_web =
            || with(db("db-0"), Terms { req_anti: vec![term(ZONE, &[("app", "web")])], ..Default::default() });
        let other_ns_web = || pod("other", "web-x", &[("app", "web")]);
        let ns_term = |namespaces: &[&str], selector: Option<LabelSelector>| {
            let mut t = term(HOST, &[("app", "web")]);
            t.namespaces = namespaces.iter().map(|s| s.to_string()).collect();
            t.namespace_selector = selector;
            with(web("new"), Terms { req_anti: vec![t], ..Default::default() })
        };
        let ns_sel = |pairs: &[(&str, &str)]| Some(LabelSelector { match_labels: labels(pairs), ..Default::default() });
        let mut by_version = term(HOST, &[("app", "web")]);
        by_version.match_label_keys = vec!["version".into()];
        let versioned = |name: &str, v: &str| pod("default", name, &[("app", "web"), ("version", v)]);

        // (pod, nodes, expected per node, why)
        let rows: Vec<FilterRow> = vec![
            (
                spread_web(web("web-2")),
                vec![
                    node("n1", &[(HOST, "n1")], &[web("web-0")]),
                    node("n2", &[(HOST, "n2")], &[]),
                    node("n3", &[(HOST, "n3")], &[web("web-1")]),
                ],
                vec![anti(), ok(), anti()],
                "anti-affinity per hostname spreads replicas one per node",
            ),
            (
                near_db(web("web-0")),
                vec![
                    node("a1", &[(ZONE, "a")], &[db("db-0")]),
                    node("a2", &[(ZONE, "a")], &[]),
                    node("b1", &[(ZONE, "b")], &[]),
                    node("x", &[], &[]),
                ],
                vec![ok(), ok(), aff(), aff()],
                "affinity follows the existing pod's zone; a node without the key never fits",
            ),
            (
                self_aff(web("web-0")),
                vec![node("a1", &[(ZONE, "a")], &[db("db-0")]), node("x", &[], &[])],
                vec![ok(), aff()],
                "first pod of a self-affine group may go to any node with the topology key",
            ),
            (
                near_db(web("web-0")),
                vec![node("a1", &[(ZONE, "a")], &[]), node("b1", &[(ZONE, "b")], &[])],
                vec![aff(), aff()],
                "no db pod anywhere and the pod is no db: the exception does not apply",
            ),
            (
                self_aff(web("web-1")),
                vec![node("a1", &[(ZONE, "a")], &[web("web-0")]), node("b1", &[(ZONE, "b")], &[])],
                vec![ok(), aff()],
                "once a member exists, the exception is off",
            ),
            (
                web("web-0"),
                vec![
                    node("a1", &[(ZONE, "a")], &[hates_web()]),
                    node("a2", &[(ZONE, "a")], &[]),
                    node("b1", &[(ZONE, "b")], &[]),
                ],
                vec![existing(), existing(), ok()],
                "an existing pod's anti-affinity keeps the pod out of its whole zone",
            ),
            (
                db("db-1"),
                vec![node("a1", &[(ZONE, "a")], &[hates_web()]), node("b1", &[(ZONE, "b")], &[])],
                vec![(Skip, None), (Skip, None)],
                "nothing to check: no terms on the pod and no existing anti-affinity matches it",
            ),
            (
                spread_web(web("web-1")),
                vec![node("n1", &[(HOST, "n1")], &[other_ns_web()])],
                vec![ok()],
                "a term without namespaces only looks at the pod's own namespace",
            ),
            (
                ns_term(&["other"], None),
                vec![node("n1", &[(HOST, "n1")], &[other_ns_web()])],
                vec![anti()],
                "namespaces lists the other namespace",
            ),
            (
                ns_term(&[], Some(LabelSelector::default())),
                vec![node("n1", &[(HOST, "n1")], &[other_ns_web()])],
                vec![anti()],
                "an empty namespaceSelector selects every namespace",
            ),
            (
                ns_term(&[], ns_sel(&[("team", "x")])),
                vec![node("n1", &[(HOST, "n1")], &[other_ns_web()]), node("n2", &[(HOST, "n2")], &[web("web-0")])],
                vec![ok(), ok()],
                "namespace labels are unknown: a label namespaceSelector selects nothing, not even the own namespace",
            ),
            (
                ns_term(&[], ns_sel(&[(LABEL_METADATA_NAME, "other")])),
                vec![node("n1", &[(HOST, "n1")], &[other_ns_web()])],
                vec![anti()],
                "kubernetes.io/metadata.name is known to be the namespace's name",
            ),
            (
                with(versioned("web-new", "v2"), Terms { req_anti: vec![by_version], ..Default::default() }),
                vec![
                    node("n1", &[(HOST, "n1")], &[versioned("web-0", "v1")]),
                    node("n2", &[(HOST, "n2")], &[versioned("web-1", "v2")]),
                ],
                vec![ok(), anti()],
                "matchLabelKeys narrows the selector to the pod's own version",
            ),
        ];
        for (p, nodes, expected, why) in rows {
            assert_eq!(run(&p, &nodes), expected, "{why}");
        }
    }

    #[test]
    fn filter_details_name_the_pod_and_topology() {
        let web = |name: &str| pod("default", name, &[("app", "web")]);
        let p = with(web("web-1"), Terms { req_anti: vec![term(ZONE, &[("app", "web")])], ..Default::default() });
        let nodes = [node("a1", &[(ZONE, "a")], &[web("web-0")])];
        let (_, state) = pre_filter(&p, &nodes, &cfg());
        let s = filter(&state, &p, &nodes[0]);
        assert_eq!(
            s.detail.as_deref(),
            Some("anti-affinity: pod default/web-0 with app=web is already in topology.kubernetes.io/zone=a")
        );

        let hater = with(
            pod("default", "db-0", &[]),
            Terms { req_anti: vec![term(ZONE, &[("app", "web")])], ..Default::default() },
        );
        let nodes = [node("a1", &[(ZONE, "a")], &[hater])];
        let (_, state) = pre_filter(&web("web-0"), &nodes, &cfg());
        let s = filter(&state, &web("web-0"), &nodes[0]);
        assert_eq!(
            s.detail.as_deref(),
            Some("existing pod default/db-0 has anti-affinity to pods with app=web and is in topology.kubernetes.io/zone=a")
        );
    }

    #[test]
    fn broken_selector_fails_pre_filter() {
        let mut t = term(HOST, &[]);
        t.label_selector.as_mut().unwrap().match_expressions =
            vec![LabelSelectorRequirement { key: "app".into(), operator: "Bogus".into(), values: vec![] }];
        let p = with(pod("default", "p", &[]), Terms { pref_aff: vec![weighted(1, t)], ..Default::default() });
        let (status, _) = pre_filter(&p, &[], &cfg());
        assert_eq!(status.code, UU);
        assert!(status.reasons[0].starts_with("parsing pod: preferredAffinityTerms: "), "{:?}", status.reasons);
    }

    #[test]
    fn match_label_keys_need_1_31() {
        let mut t = term(HOST, &[("app", "web")]);
        t.match_label_keys = vec!["version".into()];
        let p = with(
            pod("default", "new", &[("app", "web"), ("version", "v2")]),
            Terms { req_anti: vec![t], ..Default::default() },
        );
        let nodes = [node("n1", &[(HOST, "n1")], &[pod("default", "old", &[("app", "web"), ("version", "v1")])])];
        let old = SchedulerConfig::for_version(KubeVersion::new(1, 30));
        let (_, state) = pre_filter(&p, &nodes, &old);
        assert_eq!(filter(&state, &p, &nodes[0]).code, U, "before 1.31 matchLabelKeys is ignored");
    }

    #[test]
    fn score_rows() {
        let db = |name: &str| pod("default", name, &[("app", "db")]);
        let web = |name: &str| pod("default", name, &[("app", "web")]);
        let zones = |pods_a: Vec<Pod>, pods_b: Vec<Pod>| {
            vec![
                node("a1", &[(ZONE, "a")], &pods_a),
                node("b1", &[(ZONE, "b")], &pods_b),
                node("c1", &[(ZONE, "c")], &[]),
                node("x", &[], &[]),
            ]
        };
        let likes_db = |w| {
            with(web("w"), Terms { pref_aff: vec![weighted(w, term(ZONE, &[("app", "db")]))], ..Default::default() })
        };
        let avoids_db = |w| {
            with(web("w"), Terms { pref_anti: vec![weighted(w, term(ZONE, &[("app", "db")]))], ..Default::default() })
        };
        let needs_web = with(db("db-0"), Terms { req_aff: vec![term(ZONE, &[("app", "web")])], ..Default::default() });
        let prefers_web = with(
            db("db-1"),
            Terms { pref_aff: vec![weighted(5, term(ZONE, &[("app", "web")]))], ..Default::default() },
        );
        let mixed = with(
            web("w"),
            Terms {
                pref_aff: vec![weighted(10, term(ZONE, &[("app", "db")]))],
                pref_anti: vec![weighted(5, term(ZONE, &[("app", "cache")]))],
                ..Default::default()
            },
        );
        let cache = pod("default", "cache-0", &[("app", "cache")]);

        // (pod, nodes, expected normalized scores per node, why)
        let rows: Vec<ScoreRow> = vec![
            (
                likes_db(10),
                zones(vec![db("db-0")], vec![]),
                vec![100, 0, 0, 0],
                "preferred affinity pulls to the db zone",
            ),
            (
                avoids_db(10),
                zones(vec![db("db-0")], vec![]),
                vec![0, 100, 100, 100],
                "preferred anti-affinity pushes away",
            ),
            (
                likes_db(10),
                zones(vec![db("db-0"), db("db-1")], vec![db("db-2")]),
                vec![100, 50, 0, 0],
                "weights add up per matching pod",
            ),
            (
                web("w"),
                zones(vec![needs_web], vec![]),
                vec![100, 0, 0, 0],
                "an existing pod's required affinity scores hardPodAffinityWeight",
            ),
            (
                web("w"),
                zones(vec![], vec![prefers_web]),
                vec![0, 100, 0, 0],
                "an existing pod's preferred affinity counts too",
            ),
            (
                mixed,
                zones(vec![db("db-0")], vec![cache]),
                // raw: a=10, b=-5, c=0, x=0 -> (s+5)/15
                vec![100, 0, 33, 33],
                "negative scores: min-max scaling over the feasible nodes",
            ),
            (web("w"), zones(vec![db("db-0")], vec![]), vec![0, 0, 0, 0], "nothing to score: PreScore skips"),
        ];
        for (p, nodes, expected, why) in rows {
            let feasible: Vec<usize> = (0..nodes.len()).collect();
            assert_eq!(score(&p, &nodes, &feasible, &cfg()), expected, "{why}");
        }
    }

    #[test]
    fn score_only_normalizes_over_feasible_nodes() {
        let db = pod("default", "db-0", &[("app", "db")]);
        let p = with(
            pod("default", "w", &[]),
            Terms { pref_aff: vec![weighted(10, term(ZONE, &[("app", "db")]))], ..Default::default() },
        );
        let nodes =
            [node("a1", &[(ZONE, "a")], &[db]), node("a2", &[(ZONE, "a")], &[]), node("b1", &[(ZONE, "b")], &[])];
        assert_eq!(
            score(&p, &nodes, &[1, 2], &cfg()),
            vec![100, 0],
            "a2 shares a1's zone even though a1 is infeasible"
        );
        assert_eq!(score(&p, &nodes, &[0, 1], &cfg()), vec![0, 0], "equal scores normalize to 0");
    }
}
