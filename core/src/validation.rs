//! What the API server would reject and that changes placement, with its messages
//! (`pkg/apis/core/validation`). Placement refuses such manifests instead of simulating a
//! cluster state that could not exist.

use std::collections::BTreeSet;

use serde_json::json;

use crate::field::{FieldError, FieldPath};
use crate::labels::{validate_label_key, validate_label_value};
use crate::model::{LabelSelector, Node, NodeSelectorTerm, PodSpec, ResourceList, Toleration};
use crate::version::FeatureGates;

const TAINT_EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];

/// `validateTaints` for a Node's `spec.taints`.
pub fn validate_node(node: &Node) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if node.metadata.name.is_empty() {
        errs.push(FieldError::required(&FieldPath::root("metadata.name"), "name or generateName is required"));
    }
    let path = FieldPath::root("spec.taints");
    let mut seen = BTreeSet::new();
    for (i, t) in node.spec.taints.iter().enumerate() {
        let p = path.index(i);
        if t.key.is_empty() {
            errs.push(FieldError::required(&p.child("key"), ""));
        } else if let Err(e) = validate_label_key(&t.key, &p.child("key")) {
            errs.push(e);
        }
        if let Err(e) = validate_label_value(&t.value, &p.child("value")) {
            errs.push(e);
        }
        if t.effect.is_empty() {
            errs.push(FieldError::required(&p.child("effect"), ""));
        } else if !TAINT_EFFECTS.contains(&t.effect.as_str()) {
            errs.push(FieldError::not_supported(&p.child("effect"), &t.effect, &TAINT_EFFECTS));
        }
        if !seen.insert((t.key.clone(), t.effect.clone())) {
            errs.push(FieldError::invalid(
                &p,
                json!(format!("{}:{}", t.key, t.effect)),
                "taints must be unique by key and effect pair",
            ));
        }
    }
    for (name, list) in [("status.allocatable", &node.status.allocatable), ("status.capacity", &node.status.capacity)] {
        if let Some(list) = list {
            errs.extend(non_negative(list, &FieldPath::root(name)));
        }
    }
    errs
}

/// Pod spec validation relevant to placement; `path` is where the spec sits in its manifest.
pub fn validate_pod_spec(spec: &PodSpec, path: &FieldPath, gates: &FeatureGates) -> Vec<FieldError> {
    let mut errs = Vec::new();
    errs.extend(validate_tolerations(&spec.tolerations, &path.child("tolerations"), gates));
    if let Some(sel) = &spec.node_selector {
        for (k, v) in sel {
            let p = path.child("nodeSelector");
            errs.extend(validate_label_key(k, &p).err());
            errs.extend(validate_label_value(v, &p.key(k)).err());
        }
    }
    if let Some(affinity) = &spec.affinity {
        let ap = path.child("affinity");
        if let Some(na) = &affinity.node_affinity {
            let np = ap.child("nodeAffinity");
            if let Some(req) = &na.required {
                let rp = np.child("requiredDuringSchedulingIgnoredDuringExecution").child("nodeSelectorTerms");
                for (i, term) in req.node_selector_terms.iter().enumerate() {
                    errs.extend(validate_node_selector_term(term, &rp.index(i)));
                }
            }
            let pp = np.child("preferredDuringSchedulingIgnoredDuringExecution");
            for (i, term) in na.preferred.iter().enumerate() {
                if !(1..=100).contains(&term.weight) {
                    errs.push(FieldError::invalid(
                        &pp.index(i).child("weight"),
                        json!(term.weight),
                        "must be in the range 1-100",
                    ));
                }
                errs.extend(validate_node_selector_term(&term.preference, &pp.index(i).child("preference")));
            }
        }
        for (name, pa) in [("podAffinity", &affinity.pod_affinity), ("podAntiAffinity", &affinity.pod_anti_affinity)] {
            let Some(pa) = pa else { continue };
            let pp = ap.child(name);
            for (i, term) in pa.required.iter().enumerate() {
                let tp = pp.child("requiredDuringSchedulingIgnoredDuringExecution").index(i);
                errs.extend(validate_affinity_term(&term.label_selector, &term.topology_key, &tp));
            }
            for (i, w) in pa.preferred.iter().enumerate() {
                let tp = pp.child("preferredDuringSchedulingIgnoredDuringExecution").index(i);
                if !(1..=100).contains(&w.weight) {
                    errs.push(FieldError::invalid(&tp.child("weight"), json!(w.weight), "must be in the range 1-100"));
                }
                let t = &w.pod_affinity_term;
                errs.extend(validate_affinity_term(&t.label_selector, &t.topology_key, &tp.child("podAffinityTerm")));
            }
        }
    }
    let tp = path.child("topologySpreadConstraints");
    for (i, c) in spec.topology_spread_constraints.iter().enumerate() {
        let p = tp.index(i);
        if c.max_skew <= 0 {
            errs.push(FieldError::invalid(&p.child("maxSkew"), json!(c.max_skew), "must be greater than zero"));
        }
        if c.topology_key.is_empty() {
            errs.push(FieldError::required(&p.child("topologyKey"), "can not be empty"));
        }
        if !["DoNotSchedule", "ScheduleAnyway"].contains(&c.when_unsatisfiable.as_str()) {
            errs.push(FieldError::not_supported(
                &p.child("whenUnsatisfiable"),
                &c.when_unsatisfiable,
                &["DoNotSchedule", "ScheduleAnyway"],
            ));
        }
        if let Some(m) = c.min_domains {
            if m <= 0 {
                errs.push(FieldError::invalid(&p.child("minDomains"), json!(m), "must be greater than 0"));
            }
        }
        errs.extend(validate_label_selector(c.label_selector.as_ref(), &p.child("labelSelector")));
    }
    for (list, name) in [(&spec.init_containers, "initContainers"), (&spec.containers, "containers")] {
        for (i, c) in list.iter().enumerate() {
            let cp = path.child(name).index(i);
            errs.extend(non_negative(&c.resources.requests, &cp.child("resources").child("requests")));
            errs.extend(non_negative(&c.resources.limits, &cp.child("resources").child("limits")));
            for (res, req) in &c.resources.requests {
                if let Some(limit) = c.resources.limits.get(res) {
                    if req > limit {
                        errs.push(FieldError::invalid(
                            &cp.child("resources").child("requests").key(res),
                            json!(req.as_str()),
                            &format!("must be less than or equal to {res} limit of {limit}"),
                        ));
                    }
                }
            }
            for (j, port) in c.ports.iter().enumerate() {
                let pp = cp.child("ports").index(j);
                if !(0..=65535).contains(&port.host_port) {
                    errs.push(FieldError::invalid(
                        &pp.child("hostPort"),
                        json!(port.host_port),
                        "must be between 1 and 65535, inclusive",
                    ));
                }
                if !["", "TCP", "UDP", "SCTP"].contains(&port.protocol.as_str()) {
                    errs.push(FieldError::not_supported(
                        &pp.child("protocol"),
                        &port.protocol,
                        &["SCTP", "TCP", "UDP"],
                    ));
                }
            }
            if name == "initContainers" {
                if let Some(policy) = &c.restart_policy {
                    if policy != "Always" {
                        errs.push(FieldError::not_supported(&cp.child("restartPolicy"), policy, &["Always"]));
                    }
                }
            }
        }
    }
    errs.extend(non_negative(&spec.overhead, &path.child("overhead")));
    errs
}

/// `ValidateTolerations`, in upstream's order and words.
pub fn validate_tolerations(tolerations: &[Toleration], path: &FieldPath, gates: &FeatureGates) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let p = path.index(i);
        if !t.key.is_empty() {
            errs.extend(validate_label_key(&t.key, &p.child("key")).err());
        }
        if t.key.is_empty() && t.operator != "Exists" {
            errs.push(FieldError::invalid(
                &p.child("operator"),
                json!(t.operator),
                "operator must be Exists when `key` is empty, which means \"match all values and all keys\"",
            ));
        }
        if t.toleration_seconds.is_some() && t.effect != "NoExecute" {
            errs.push(FieldError::invalid(
                &p.child("effect"),
                json!(t.effect),
                "effect must be 'NoExecute' when `tolerationSeconds` is set",
            ));
        }
        match t.operator.as_str() {
            "" | "Equal" => {
                if let Err(e) = validate_label_value(&t.value, &p.child("operator")) {
                    errs.push(FieldError { bad_value: json!(t.value), ..e });
                }
            }
            "Exists" => {
                if !t.value.is_empty() {
                    errs.push(FieldError::invalid(
                        &p.child("operator"),
                        json!(t.value),
                        "value must be empty when `operator` is 'Exists'",
                    ));
                }
            }
            "Lt" | "Gt" if gates.taint_toleration_comparison_operators => {
                if !is_decimal_integer(&t.value) {
                    errs.push(FieldError::invalid(
                        &p.child("value"),
                        json!(t.value),
                        "value must be a valid integer when `operator` is 'Lt' or 'Gt'",
                    ));
                }
            }
            other => {
                let supported: &[&str] = if gates.taint_toleration_comparison_operators {
                    &["Equal", "Exists", "Gt", "Lt"]
                } else {
                    &["Equal", "Exists"]
                };
                errs.push(FieldError::not_supported(&p.child("operator"), other, supported));
            }
        }
        if !t.effect.is_empty() && !TAINT_EFFECTS.contains(&t.effect.as_str()) {
            errs.push(FieldError::not_supported(&p.child("effect"), &t.effect, &TAINT_EFFECTS));
        }
    }
    errs
}

fn is_decimal_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    s == "0" || (!digits.is_empty() && !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit()))
}

/// `ValidateNodeSelectorTerm` with the API server's messages.
fn validate_node_selector_term(term: &NodeSelectorTerm, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, r) in term.match_expressions.iter().enumerate() {
        let p = path.child("matchExpressions").index(i);
        let vp = p.child("values");
        match r.operator.as_str() {
            "In" | "NotIn" if r.values.is_empty() => {
                errs.push(FieldError::required(&vp, "must be specified when `operator` is 'In' or 'NotIn'"))
            }
            "Exists" | "DoesNotExist" if !r.values.is_empty() => errs.push(FieldError::forbidden(
                &vp,
                json!(r.values),
                "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
            )),
            "Gt" | "Lt" => {
                if r.values.len() != 1 {
                    errs.push(FieldError::required(
                        &vp,
                        "must be specified single value when `operator` is 'Lt' or 'Gt'",
                    ));
                } else if crate::labels::go_parse_int(&r.values[0]).is_none() {
                    errs.push(FieldError::invalid(&vp.index(0), json!(r.values[0]), "must be an integer"));
                }
            }
            "In" | "NotIn" | "Exists" | "DoesNotExist" => {}
            other => errs.push(FieldError::not_supported(
                &p.child("operator"),
                other,
                &crate::labels::Operator::NODE_SELECTOR_SUPPORTED,
            )),
        }
        errs.extend(validate_label_key(&r.key, &p.child("key")).err());
    }
    for (i, r) in term.match_fields.iter().enumerate() {
        let p = path.child("matchFields").index(i);
        if r.key != crate::nodeaffinity::FIELD_METADATA_NAME {
            errs.push(FieldError::invalid(&p.child("key"), json!(r.key), "not a valid field selector key"));
        }
        match r.operator.as_str() {
            "In" | "NotIn" => {
                if r.values.len() != 1 {
                    errs.push(FieldError::required(
                        &p.child("values"),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    ));
                }
            }
            other => errs.push(FieldError::not_supported(&p.child("operator"), other, &["In", "NotIn"])),
        }
    }
    errs
}

fn validate_affinity_term(selector: &Option<LabelSelector>, topology_key: &str, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = validate_label_selector(selector.as_ref(), &path.child("labelSelector"));
    if topology_key.is_empty() {
        errs.push(FieldError::required(&path.child("topologyKey"), "can not be empty"));
    } else {
        errs.extend(validate_label_key(topology_key, &path.child("topologyKey")).err());
    }
    errs
}

fn validate_label_selector(selector: Option<&LabelSelector>, path: &FieldPath) -> Vec<FieldError> {
    match crate::labels::Selector::from_label_selector(selector, path) {
        Ok(_) => Vec::new(),
        Err(e) => vec![e],
    }
}

fn non_negative(list: &ResourceList, path: &FieldPath) -> Vec<FieldError> {
    list.iter()
        .filter(|(_, q)| q.is_negative())
        .map(|(name, q)| FieldError::invalid(&path.key(name), json!(q.as_str()), "must be greater than or equal to 0"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tol(key: &str, op: &str, value: &str, effect: &str, secs: Option<i64>) -> Toleration {
        Toleration {
            key: key.into(),
            operator: op.into(),
            value: value.into(),
            effect: effect.into(),
            toleration_seconds: secs,
        }
    }

    #[test]
    fn toleration_rows() {
        let gates = FeatureGates::default();
        // (toleration, expected field of the first error or "", why)
        let rows = [
            (tol("k", "Equal", "v", "NoSchedule", None), "", "valid"),
            (tol("", "Exists", "", "", None), "", "keyless Exists is valid (if broad)"),
            (tol("k", "Eq", "v", "", None), "t[0].operator", "unknown operator"),
            (tol("k", "Exists", "v", "", None), "t[0].operator", "value with Exists"),
            (tol("", "Equal", "v", "", None), "t[0].operator", "empty key needs Exists"),
            (tol("k", "Exists", "", "NoExec", None), "t[0].effect", "bad effect"),
            (tol("k", "Exists", "", "NoSchedule", Some(5)), "t[0].effect", "seconds need NoExecute"),
            (tol("k", "Gt", "5", "", None), "t[0].operator", "Gt needs its gate"),
        ];
        for (t, field, why) in rows {
            let errs = validate_tolerations(&[t], &FieldPath::root("t"), &gates);
            let got = errs.first().map(|e| e.field.as_str()).unwrap_or("");
            assert_eq!(got, field, "{why}: {errs:?}");
        }
    }

    #[test]
    fn duplicate_taints_rejected() {
        let mut n = Node::default();
        n.metadata.name = "n".into();
        let t = crate::model::Taint { key: "a".into(), value: "".into(), effect: "NoSchedule".into() };
        n.spec.taints = vec![t.clone(), t];
        let errs = validate_node(&n);
        assert_eq!(errs[0].detail, "taints must be unique by key and effect pair");
    }
}
