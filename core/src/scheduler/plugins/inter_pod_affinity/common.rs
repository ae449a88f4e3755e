//! Affinity terms as Filter and Score read them: selectors with `matchLabelKeys` merged,
//! namespaces and namespace selectors, and a pod's terms by kind.

use super::*;

/// `framework.AffinityTerm`: a parsed `PodAffinityTerm`.
#[derive(Debug, Clone)]
pub(super) struct AffinityTerm {
    pub(super) namespaces: BTreeSet<String>,
    /// `Nothing` when the term has no `namespaceSelector`.
    pub(super) namespace_selector: Selector,
    pub(super) selector: Selector,
    pub(super) topology_key: String,
}

impl AffinityTerm {
    /// `newAffinityTerm`; `owner_*` describe the pod that carries the term.
    pub(super) fn parse(
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
    pub(super) fn matches(&self, namespace: &str, labels: &Labels) -> bool {
        (self.namespaces.contains(namespace) || namespace_selector_matches(&self.namespace_selector, namespace))
            && self.selector.matches(labels)
    }

    pub(super) fn describe(&self) -> String {
        describe_selector(&self.selector)
    }
}

/// `applyMatchLabelKeysAndMismatchLabelKeys` (kube-apiserver's pod strategy), gated by
/// `MatchLabelKeysInPodAffinity` (beta, on by default, from 1.31).
pub(super) fn merge_label_keys(
    term: &PodAffinityTerm,
    owner_labels: &Labels,
    cfg: &SchedulerConfig,
) -> Option<LabelSelector> {
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
pub(super) fn namespace_selector_matches(selector: &Selector, namespace: &str) -> bool {
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
pub(super) struct PodTerms {
    pub(super) required_affinity: Vec<AffinityTerm>,
    pub(super) required_anti_affinity: Vec<AffinityTerm>,
    pub(super) preferred_affinity: Vec<(i64, AffinityTerm)>,
    pub(super) preferred_anti_affinity: Vec<(i64, AffinityTerm)>,
}

impl PodTerms {
    /// `PodInfo.Update`: each of the four lists parses whole or not at all; the errors come
    /// back prefixed as upstream aggregates them.
    pub(super) fn parse(
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
        for (((list, root), name), slot) in lists.iter().zip(roots).zip(names).zip(required.iter_mut()) {
            if list.is_empty() {
                continue;
            }
            let path = FieldPath::root(root).child(REQ);
            let parsed: Result<Vec<_>, _> = list
                .iter()
                .enumerate()
                .map(|(i, t)| AffinityTerm::parse(t, namespace, labels, cfg, &path.index(i)))
                .collect();
            match parsed {
                Ok(terms) => *slot = terms,
                Err(e) => errors.push(format!("{name}: {e}")),
            }
        }
        let names = ["preferredAffinityTerms", "preferredAntiAffinityTerms"];
        let mut preferred: [Vec<(i64, AffinityTerm)>; 2] = Default::default();
        for (((list, root), name), slot) in weighted.iter().zip(roots).zip(names).zip(preferred.iter_mut()) {
            if list.is_empty() {
                continue;
            }
            let path = FieldPath::root(root).child(PREF);
            let parsed: Result<Vec<_>, _> = list
                .iter()
                .enumerate()
                .map(|(i, w)| {
                    let p = path.index(i).child("podAffinityTerm");
                    AffinityTerm::parse(&w.pod_affinity_term, namespace, labels, cfg, &p).map(|t| (w.weight as i64, t))
                })
                .collect();
            match parsed {
                Ok(terms) => *slot = terms,
                Err(e) => errors.push(format!("{name}: {e}")),
            }
        }
        let [required_affinity, required_anti_affinity] = required;
        let [preferred_affinity, preferred_anti_affinity] = preferred;
        (Self { required_affinity, required_anti_affinity, preferred_affinity, preferred_anti_affinity }, errors)
    }

    pub(super) fn of_pod(pod: &Pod, cfg: &SchedulerConfig) -> (Self, Vec<String>) {
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
    pub(super) fn of_placed(pod: &PlacedPod, cfg: &SchedulerConfig) -> Self {
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

pub(super) fn pod_namespace(pod: &Pod) -> &str {
    pod.metadata.namespace_or_default()
}

/// `podMatchesAllAffinityTerms`: false for no terms.
pub(super) fn matches_all(terms: &[AffinityTerm], namespace: &str, labels: &Labels) -> bool {
    !terms.is_empty() && terms.iter().all(|t| t.matches(namespace, labels))
}

/// `utilerrors.NewAggregate(...).Error()`.
pub(super) fn aggregate(errors: &[String]) -> String {
    match errors {
        [only] => only.clone(),
        _ => format!("[{}]", errors.join(", ")),
    }
}
