//! NodeAffinity: `spec.nodeSelector`, required node affinity and the profile's added affinity
//! filter; preferred terms score.

use crate::input::field::FieldPath;
use crate::model::labels::LabelLookup;
use crate::model::node_selector::{
    NodeSelectorMatcher, PreferredSchedulingTerms, RequiredNodeAffinity, SelectableNode,
};
use crate::model::PodSpec;
use crate::scheduler::framework::{Code, NodeNames, SchedulerConfig, Status};

pub const NAME: &str = "NodeAffinity";
pub const ERR_REASON_POD: &str = "node(s) didn't match Pod's node affinity/selector";
pub const ERR_REASON_ENFORCED: &str = "node(s) didn't match scheduler-enforced node affinity";
pub const ERR_REASON_CONFLICT: &str = "pod affinity terms conflict";

/// Skip when there is nothing to check; otherwise restrict to the node names that every
/// `metadata.name In` term allows, or report the terms as conflicting.
pub fn pre_filter(pod: &PodSpec, cfg: &SchedulerConfig) -> (Status, NodeNames) {
    let required = crate::model::required_node_selector(pod.affinity.as_ref());
    let added = cfg.added_affinity.as_ref().and_then(|a| a.required.as_ref());
    if required.is_none() && added.is_none() && pod.node_selector.is_none() {
        return (Status::skip(), None);
    }
    let Some(required) = required.filter(|r| !r.node_selector_terms.is_empty()) else {
        return (Status::success(), None);
    };
    let Some(names) = NodeSelectorMatcher::node_name_restriction(required) else {
        return (Status::success(), None);
    };
    if names.is_empty() {
        return (Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_CONFLICT), None);
    }
    (Status::success(), Some(names))
}

/// What PreFilter/PreScore parse once per pod so Filter and Score stay cheap per node.
pub struct State<'a> {
    required: RequiredNodeAffinity<'a>,
    /// The profile's addedAffinity, parsed strictly; a broken one matches nothing.
    added_required: Option<Option<NodeSelectorMatcher>>,
    preferred: Vec<PreferredSchedulingTerms>,
    pod: &'a PodSpec,
}

impl<'a> State<'a> {
    pub fn new(pod: &'a PodSpec, cfg: &SchedulerConfig) -> Self {
        let added_required = cfg
            .added_affinity
            .as_ref()
            .and_then(|a| a.required.as_ref())
            .map(|r| NodeSelectorMatcher::strict(r, &FieldPath::root("addedAffinity")).ok());
        let mut preferred = Vec::new();
        if let Some(added) = &cfg.added_affinity {
            preferred.extend(PreferredSchedulingTerms::new(&added.preferred, &FieldPath::root("")).ok());
        }
        let own = pod.affinity.as_ref().and_then(|a| a.node_affinity.as_ref()).map(|n| n.preferred.as_slice());
        if let Some(own) = own {
            preferred.extend(PreferredSchedulingTerms::new(own, &FieldPath::root("")).ok());
        }
        Self { required: RequiredNodeAffinity::from_pod(pod), added_required, preferred, pod }
    }

    pub fn filter<N: SelectableNode + ?Sized>(&self, node: &N) -> Status {
        if self.rejects_added(node) {
            return Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_ENFORCED);
        }
        if self.required.matches(node) {
            return Status::success();
        }
        Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_POD).with_detail(explain_mismatch(
            self.pod,
            node,
            &self.required,
        ))
    }

    /// What [`Self::filter`]'s status for a node it rejects depends on: the node's values of
    /// the pod's `nodeSelector` keys (the explanation names them; a required term's mismatch
    /// is explained without the node's labels). Two rejected nodes with the same key get the
    /// same status. `None` when that is not cheap to tell (the profile's addedAffinity: its
    /// rejection and the pod's have different statuses).
    pub fn status_key<'n, N: SelectableNode + ?Sized>(&self, node: &'n N) -> Option<Vec<Option<&'n str>>> {
        if self.added_required.is_some() {
            return None;
        }
        let labels = node.labels();
        Some(self.pod.node_selector.iter().flatten().map(|(k, _)| labels.label(k)).collect())
    }

    /// Whether [`Self::filter`] fails, without building its status.
    pub fn rejects<N: SelectableNode + ?Sized>(&self, node: &N) -> bool {
        self.rejects_added(node) || !self.required.matches(node)
    }

    /// The scheduler-enforced addedAffinity does not match.
    fn rejects_added<N: SelectableNode + ?Sized>(&self, node: &N) -> bool {
        self.added_required.as_ref().is_some_and(|added| !added.as_ref().is_some_and(|m| m.matches(Some(node))))
    }

    /// Raw score: the weights of matching preferred terms, the profile's and the pod's.
    /// Normalized by the highest score.
    pub fn score<N: SelectableNode + ?Sized>(&self, node: &N) -> i64 {
        self.preferred.iter().map(|t| t.score(node)).sum()
    }

    pub fn has_preferred(&self) -> bool {
        !self.preferred.is_empty()
    }
}

fn explain_mismatch<N: SelectableNode + ?Sized>(pod: &PodSpec, node: &N, required: &RequiredNodeAffinity) -> String {
    let missing = required.missing_selector_labels(node);
    if !missing.is_empty() {
        let items: Vec<String> = missing
            .iter()
            .map(|(k, v)| match node.labels().label(k) {
                Some(actual) => format!("{k}={v} (node has {k}={actual})"),
                None => format!("{k}={v} (node has no {k} label)"),
            })
            .collect();
        return format!("nodeSelector needs {}", items.join(", "));
    }
    let terms = crate::model::required_node_selector(pod.affinity.as_ref()).map_or(0, |r| r.node_selector_terms.len());
    format!("none of the {terms} required nodeAffinity term(s) match the node's labels")
}
