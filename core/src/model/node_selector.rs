//! Node selectors and node affinity (component-helpers `scheduling/corev1/nodeaffinity`).
//!
//! Upstream parses a selector either strictly (every error up front, used for the
//! scheduler-enforced `addedAffinity`) or lazily (a term with errors simply never matches, used
//! for the pod's own affinity). Both are [`NodeSelectorMatcher`]; strictness is in the caller.

use std::collections::BTreeSet;

use crate::input::field::{FieldError, FieldPath};
use crate::model::labels::{LabelLookup, Operator, Requirement, Selector};
use crate::model::{
    Labels, Node, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec, PreferredSchedulingTerm,
};

pub const FIELD_METADATA_NAME: &str = "metadata.name";

/// A node as node selectors read it: its labels and, for `matchFields`, its name. Implemented
/// by the manifest's [`Node`] and by the scheduler's prepared `NodeInfo`, so both are matched
/// by the same code.
pub trait SelectableNode {
    type Labels: LabelLookup + ?Sized;
    fn labels(&self) -> &Self::Labels;
    fn node_name(&self) -> &str;
}

impl SelectableNode for Node {
    type Labels = Labels;
    fn labels(&self) -> &Labels {
        &self.metadata.labels
    }
    fn node_name(&self) -> &str {
        &self.metadata.name
    }
}

/// A parsed `NodeSelector`: terms are ORed; inside a term everything is ANDed.
#[derive(Debug, Clone)]
pub struct NodeSelectorMatcher {
    terms: Vec<ParsedTerm>,
}

#[derive(Debug, Clone)]
struct ParsedTerm {
    labels: Option<Selector>,
    fields: Option<Vec<FieldRequirement>>,
    errors: Vec<FieldError>,
}

/// `metadata.name In [x]` / `NotIn [x]` after conversion to a field selector.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FieldRequirement {
    key: String,
    value: String,
    equal: bool,
}

impl NodeSelectorMatcher {
    /// `NewLazyErrorNodeSelector`. Empty terms are dropped: they select nothing.
    pub fn lazy(selector: &NodeSelector, path: &FieldPath) -> Self {
        Self::lazy_at(selector, &|| path.clone())
    }

    /// [`NodeSelectorMatcher::lazy`] with the path built only for an error: every scheduling
    /// cycle parses its pod's affinity (a DaemonSet's 1,000 daemon pods, 1,000 times).
    fn lazy_at(selector: &NodeSelector, path: &dyn Fn() -> FieldPath) -> Self {
        let terms = selector
            .node_selector_terms
            .iter()
            .enumerate()
            .filter(|(_, t)| !t.is_empty())
            .map(|(i, t)| ParsedTerm::parse(t, &|| path().child("nodeSelectorTerms").index(i)))
            .collect();
        Self { terms }
    }

    /// `NewNodeSelector`: every parse error, or a selector with none.
    pub fn strict(selector: &NodeSelector, path: &FieldPath) -> Result<Self, Vec<FieldError>> {
        let lazy = Self::lazy(selector, path);
        let errors: Vec<FieldError> = lazy.parse_errors().cloned().collect();
        if errors.is_empty() {
            Ok(lazy)
        } else {
            Err(errors)
        }
    }

    pub fn parse_errors(&self) -> impl Iterator<Item = &FieldError> {
        self.terms.iter().flat_map(|t| t.errors.iter())
    }

    /// `LazyErrorNodeSelector.Match`, errors ignored as the scheduler ignores them.
    /// A missing node never matches.
    pub fn matches<N: SelectableNode + ?Sized>(&self, node: Option<&N>) -> bool {
        let Some(node) = node else { return false };
        self.terms.iter().any(|t| t.errors.is_empty() && t.matches(node))
    }

    /// Every term pins `metadata.name In` values: returns the names the terms allow (each
    /// term's the names all its such requirements list). `None` when some term has no such
    /// requirement (the pod can go anywhere).
    pub fn node_name_restriction(selector: &NodeSelector) -> Option<BTreeSet<String>> {
        let mut names = BTreeSet::new();
        for term in &selector.node_selector_terms {
            let mut pins = term.match_fields.iter().filter(|r| r.key == FIELD_METADATA_NAME && r.operator == "In");
            let first = pins.next()?;
            // Usually none: a daemon pod's term pins one name.
            let others: Vec<&NodeSelectorRequirement> = pins.collect();
            names.extend(first.values.iter().filter(|n| others.iter().all(|r| r.values.contains(n))).cloned());
        }
        Some(names)
    }
}

impl ParsedTerm {
    /// `path` is built only when the term has an error.
    fn parse(term: &NodeSelectorTerm, path: &dyn Fn() -> FieldPath) -> Self {
        let mut errors = Vec::new();
        let mut labels = None;
        let mut fields = None;
        if !term.match_expressions.is_empty() {
            match requirements_as_selector(&term.match_expressions, &path().child("matchExpressions")) {
                Ok(sel) => labels = Some(sel),
                Err(mut errs) => errors.append(&mut errs),
            }
        }
        if !term.match_fields.is_empty() {
            match requirements_as_field_selector(&term.match_fields, &|| path().child("matchFields")) {
                Ok(f) => fields = Some(f),
                Err(mut errs) => errors.append(&mut errs),
            }
        }
        Self { labels, fields, errors }
    }

    fn matches<N: SelectableNode + ?Sized>(&self, node: &N) -> bool {
        if let Some(sel) = &self.labels {
            if !sel.matches(node.labels()) {
                return false;
            }
        }
        // Upstream quirk: with no node name there are no node fields, and matchFields is
        // skipped entirely rather than failing.
        if let Some(fields) = &self.fields {
            let name = node.node_name();
            if !name.is_empty() {
                let all = fields.iter().all(|f| {
                    let value = if f.key == FIELD_METADATA_NAME { name } else { "" };
                    (value == f.value) == f.equal
                });
                if !all {
                    return false;
                }
            }
        }
        true
    }
}

/// `nodeSelectorRequirementsAsSelector`: all errors of the list, or the selector.
pub fn requirements_as_selector(
    reqs: &[NodeSelectorRequirement],
    path: &FieldPath,
) -> Result<Selector, Vec<FieldError>> {
    if reqs.is_empty() {
        return Ok(Selector::Nothing);
    }
    let mut errors = Vec::new();
    let mut parsed = Vec::new();
    for (i, r) in reqs.iter().enumerate() {
        let p = path.index(i);
        let Some(op) = Operator::parse(&r.operator) else {
            errors.push(FieldError::not_supported(
                &p.child("operator"),
                &r.operator,
                &Operator::NODE_SELECTOR_SUPPORTED,
            ));
            continue;
        };
        match Requirement::new(&r.key, op, &r.values, &p) {
            Ok(req) => parsed.push(req),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(Selector::All(parsed))
    } else {
        Err(errors)
    }
}

/// `nodeSelectorRequirementsAsFieldSelector`; `path` is built only for an error.
fn requirements_as_field_selector(
    reqs: &[NodeSelectorRequirement],
    path: &dyn Fn() -> FieldPath,
) -> Result<Vec<FieldRequirement>, Vec<FieldError>> {
    let mut errors = Vec::new();
    let mut parsed = Vec::with_capacity(reqs.len());
    for (i, r) in reqs.iter().enumerate() {
        let equal = match r.operator.as_str() {
            "In" => true,
            "NotIn" => false,
            other => {
                errors.push(FieldError::not_supported(&path().index(i).child("operator"), other, &["In", "NotIn"]));
                continue;
            }
        };
        let [value] = r.values.as_slice() else {
            let at = path().index(i).child("values");
            errors.push(FieldError::invalid(&at, serde_json::json!(r.values), "must have one element"));
            continue;
        };
        parsed.push(FieldRequirement { key: r.key.clone(), value: value.clone(), equal });
    }
    if errors.is_empty() {
        Ok(parsed)
    } else {
        Err(errors)
    }
}

/// `GetRequiredNodeAffinity(pod)`: `spec.nodeSelector` AND the required node affinity.
#[derive(Debug, Clone)]
pub struct RequiredNodeAffinity<'a> {
    node_selector: Option<&'a Labels>,
    required: Option<NodeSelectorMatcher>,
}

impl<'a> RequiredNodeAffinity<'a> {
    pub fn from_pod(spec: &'a PodSpec) -> Self {
        let required = crate::model::required_node_selector(spec.affinity.as_ref()).map(|r| {
            NodeSelectorMatcher::lazy_at(r, &|| {
                FieldPath::root("spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution")
            })
        });
        Self { node_selector: spec.node_selector.as_ref(), required }
    }

    pub fn matches<N: SelectableNode + ?Sized>(&self, node: &N) -> bool {
        if let Some(sel) = self.node_selector {
            let labels = node.labels();
            if !sel.iter().all(|(k, v)| labels.label(k) == Some(v.as_str())) {
                return false;
            }
        }
        match &self.required {
            Some(m) => m.matches(Some(node)),
            None => true,
        }
    }

    /// The nodeSelector keys whose values the node lacks, for explanations.
    pub fn missing_selector_labels<N: SelectableNode + ?Sized>(&self, node: &N) -> Vec<(String, String)> {
        self.node_selector
            .into_iter()
            .flatten()
            .filter(|(k, v)| node.labels().label(k) != Some(v.as_str()))
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect()
    }

    pub fn selector_matches<N: SelectableNode + ?Sized>(&self, node: &N) -> bool {
        self.missing_selector_labels(node).is_empty()
    }
}

/// `NewPreferredSchedulingTerms` + `Score`: the sum of the weights of matching terms.
#[derive(Debug, Clone)]
pub struct PreferredSchedulingTerms {
    terms: Vec<(i64, ParsedTerm)>,
}

impl PreferredSchedulingTerms {
    pub fn new(terms: &[PreferredSchedulingTerm], path: &FieldPath) -> Result<Self, Vec<FieldError>> {
        let mut parsed = Vec::new();
        let mut errors = Vec::new();
        for (i, term) in terms.iter().enumerate() {
            // Zero weights and empty preferences are skipped without validation, as upstream.
            if term.weight == 0 || term.preference.is_empty() {
                continue;
            }
            let t = ParsedTerm::parse(&term.preference, &|| path.index(i));
            errors.extend(t.errors.iter().cloned());
            parsed.push((term.weight as i64, t));
        }
        if errors.is_empty() {
            Ok(Self { terms: parsed })
        } else {
            Err(errors)
        }
    }

    pub fn score<N: SelectableNode + ?Sized>(&self, node: &N) -> i64 {
        self.terms.iter().filter(|(_, t)| t.matches(node)).map(|(w, _)| w).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(name: &str, labels: &[(&str, &str)]) -> Node {
        let mut n = Node::default();
        n.metadata.name = name.into();
        n.metadata.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        n
    }

    fn req(key: &str, op: &str, values: &[&str]) -> NodeSelectorRequirement {
        NodeSelectorRequirement {
            key: key.into(),
            operator: op.into(),
            values: values.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn selector(terms: Vec<NodeSelectorTerm>) -> NodeSelector {
        NodeSelector { node_selector_terms: terms }
    }

    #[test]
    fn terms_are_ored_and_requirements_anded() {
        let s = selector(vec![
            NodeSelectorTerm {
                match_expressions: vec![req("zone", "In", &["a"]), req("gpu", "Exists", &[])],
                match_fields: vec![],
            },
            NodeSelectorTerm { match_expressions: vec![], match_fields: vec![req("metadata.name", "In", &["n3"])] },
        ]);
        let m = NodeSelectorMatcher::lazy(&s, &FieldPath::root(""));
        // (node, matches, why)
        let rows = [
            (node("n1", &[("zone", "a"), ("gpu", "1")]), true, "first term fully matches"),
            (node("n2", &[("zone", "a")]), false, "first term half matches, second misses"),
            (node("n3", &[]), true, "second term pins the name"),
        ];
        for (n, expected, why) in rows {
            assert_eq!(m.matches(Some(&n)), expected, "{why}");
        }
        assert!(!m.matches(None::<&Node>), "a missing node never matches");
    }

    #[test]
    fn lazy_skips_broken_terms_strict_reports_them() {
        let s = selector(vec![
            NodeSelectorTerm { match_expressions: vec![req("zone", "Bogus", &["a"])], match_fields: vec![] },
            NodeSelectorTerm { match_expressions: vec![req("zone", "In", &["a"])], match_fields: vec![] },
        ]);
        let lazy = NodeSelectorMatcher::lazy(&s, &FieldPath::root(""));
        assert!(lazy.matches(Some(&node("n", &[("zone", "a")]))));
        let errs = NodeSelectorMatcher::strict(&s, &FieldPath::root("")).unwrap_err();
        assert_eq!(errs[0].field, "nodeSelectorTerms[0].matchExpressions[0].operator");
    }

    #[test]
    fn non_integer_gt_lt_values_never_match_and_raise_nothing() {
        // The API accepts `Gt`/`Lt` with any single value; the scheduler parses the term
        // lazily, and a term whose value is not an integer simply matches no node.
        let s = selector(vec![
            NodeSelectorTerm { match_expressions: vec![req("gen", "Gt", &["abc"])], match_fields: vec![] },
            NodeSelectorTerm { match_expressions: vec![req("gen", "Lt", &["1.5"])], match_fields: vec![] },
        ]);
        let m = NodeSelectorMatcher::lazy(&s, &FieldPath::root(""));
        for labels in [&[("gen", "5")][..], &[("gen", "abc")], &[]] {
            assert!(!m.matches(Some(&node("n", labels))), "{labels:?}");
        }
        let pod = PodSpec {
            affinity: Some(crate::model::Affinity {
                node_affinity: Some(crate::model::NodeAffinity { required: Some(s), preferred: vec![] }),
                ..Default::default()
            }),
            ..Default::default()
        };
        assert!(!RequiredNodeAffinity::from_pod(&pod).matches(&node("n", &[("gen", "7")])));
    }

    #[test]
    fn empty_terms_match_nothing() {
        let s = selector(vec![NodeSelectorTerm::default()]);
        assert!(!NodeSelectorMatcher::lazy(&s, &FieldPath::root("")).matches(Some(&node("n", &[]))));
    }
}
