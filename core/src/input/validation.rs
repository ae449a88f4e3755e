//! What the API server rejects, with its messages (`pkg/apis/core/validation`,
//! `apimachinery/pkg/api/validation`). Placement refuses such manifests instead of simulating a
//! cluster state that could not exist.
//!
//! A Pod is validated as the API server validates it on create: after API defaulting (container
//! requests from limits, pod-level requests from pod-level limits, `TCP` for an empty port
//! protocol, host ports for `hostNetwork`) and after the create strategy merged `matchLabelKeys`
//! into label selectors. Pod templates are validated as the pods their controllers create.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::json;

use crate::input::documents::{Workload, WorkloadKind};
use crate::input::field::{FieldError, FieldPath};
use crate::model::labels::{
    dns1123_label_errors, dns1123_subdomain_errors, is_dns1123_subdomain, label_value_errors, qualified_name_errors,
};
use crate::model::quantity::Quantity;
use crate::model::resources::{is_extended_resource, is_hugepages, is_supported_pod_level_resource};
use crate::model::version::FeatureGates;
use crate::model::{
    Affinity, Container, ContainerPort, LabelSelector, LabelSelectorRequirement, Labels, Node, NodeSelectorTerm,
    PodAffinityTerm, PodSpec, ResourceList, ResourceRequirements, Toleration,
};

const TAINT_EFFECTS: [&str; 3] = ["NoSchedule", "PreferNoSchedule", "NoExecute"];
const NOT_A_VALID_SELECTOR_OPERATOR: &str = "not a valid selector operator";
const PORT_RANGE: &str = "must be between 1 and 65535, inclusive";

// ---------------------------------------------------------------------------------------------
// Nodes

/// `ValidateNode` on create: metadata, taints (at upstream's `metadata.taints` path) and the
/// resource quantities in status.
pub fn validate_node(node: &Node) -> Vec<FieldError> {
    let mut errs = validate_node_name(node);
    errs.extend(validate_node_shape(node));
    errs
}

/// The name part of [`validate_node`] (its first errors): `metadata.name` and
/// `metadata.generateName`.
pub fn validate_node_name(node: &Node) -> Vec<FieldError> {
    let (name, generate_name) = (&node.metadata.name, &node.metadata.generate_name);
    if generate_name.is_empty() {
        return validate_plain_node_name(name);
    }
    object_meta(name, generate_name, None, &FieldPath::root("metadata"))
}

/// [`validate_node_name`] of a node named `name` without `generateName` (the policy's
/// compact inventory names its nodes so).
pub fn validate_plain_node_name(name: &str) -> Vec<FieldError> {
    // The usual case, decided without writing the field paths: `object_meta` finds nothing
    // wrong with a valid name and no generateName.
    if !name.is_empty() && name.len() <= 253 && is_dns1123_subdomain(name) {
        return Vec::new();
    }
    object_meta(name, "", None, &FieldPath::root("metadata"))
}

/// The rest of [`validate_node`], after [`validate_node_name`]'s errors: labels, annotations,
/// taints and status quantities, none of which depends on the name, so that nodes of the same
/// shape are checked once (the policy's inventory).
///
/// Field paths are built only for the errors found: the policy validates every shape of its
/// node inventory on every settings read, and a valid node needs none.
pub fn validate_node_shape(node: &Node) -> Vec<FieldError> {
    // The paths are built only for an error: nearly every node has none, and the playground
    // validates 1,000 nodes on each keystroke.
    let meta = |field: &str| FieldPath::root("metadata").child(field);
    let mut errs = Vec::new();
    errs.extend(labels_errors(&node.metadata.labels, || meta("labels")));
    errs.extend(annotations_errors(&node.metadata.annotations, || meta("annotations")));
    errs.extend(node_taints(node, || meta("taints")));
    for (name, list) in [("capacity", &node.status.capacity), ("allocatable", &node.status.allocatable)] {
        for (res, q) in list.iter().flatten() {
            if !quantity_problems(res, q).is_empty() {
                errs.extend(quantity_value(res, q, &FieldPath::root("status").child(name).child(res)));
            }
        }
    }
    errs
}

/// `validateNodeTaints`.
fn node_taints(node: &Node, path: impl Fn() -> FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, t) in node.spec.taints.iter().enumerate() {
        let p = || path().index(i);
        let key_errs = qualified_name_errors(&t.key);
        if !key_errs.is_empty() {
            errs.extend(invalid_each(&p().child("key"), &t.key, key_errs));
        }
        let value_errs = label_value_errors(&t.value);
        if !value_errs.is_empty() {
            errs.push(FieldError::invalid(&p().child("value"), json!(t.value), &value_errs.join(";")));
        }
        if t.effect.is_empty() || !TAINT_EFFECTS.contains(&t.effect.as_str()) {
            errs.extend(taint_effect(&t.effect, false, &p().child("effect")));
        }
        if !seen.insert((t.effect.as_str(), t.key.as_str())) {
            let taint = json!({"Key": t.key, "Value": t.value, "Effect": t.effect, "TimeAdded": null});
            errs.push(FieldError::duplicate(&p(), taint).with_detail("taints must be unique by key and effect pair"));
        }
    }
    errs
}

fn taint_effect(effect: &str, allow_empty: bool, path: &FieldPath) -> Vec<FieldError> {
    if effect.is_empty() && !allow_empty {
        return vec![FieldError::required(path, "")];
    }
    if TAINT_EFFECTS.contains(&effect) {
        Vec::new()
    } else {
        vec![FieldError::not_supported(path, effect, &TAINT_EFFECTS)]
    }
}

// ---------------------------------------------------------------------------------------------
// Object metadata

/// `ValidateObjectMeta`'s name and namespace checks (`NameIsDNSSubdomain`,
/// `ValidateNamespaceName`); `namespace` is `None` for cluster-scoped objects.
fn object_meta(name: &str, generate_name: &str, namespace: Option<&str>, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if !generate_name.is_empty() {
        // A generated name gets a suffix appended, so a trailing dash is fine.
        let masked = match generate_name.strip_suffix('-') {
            Some(rest) if !rest.is_empty() => format!("{rest}a"),
            _ => generate_name.to_string(),
        };
        errs.extend(invalid_each(&path.child("generateName"), generate_name, dns1123_subdomain_errors(&masked)));
    }
    if name.is_empty() {
        if generate_name.is_empty() {
            errs.push(FieldError::required(&path.child("name"), "name or generateName is required"));
        }
    } else {
        errs.extend(invalid_each(&path.child("name"), name, dns1123_subdomain_errors(name)));
    }
    // An empty namespace is filled in from the request (kubectl's context), as placement does.
    if let Some(ns) = namespace.filter(|ns| !ns.is_empty()) {
        errs.extend(invalid_each(&path.child("namespace"), ns, dns1123_label_errors(ns)));
    }
    errs
}

fn invalid_each(path: &FieldPath, value: &str, msgs: Vec<String>) -> Vec<FieldError> {
    msgs.into_iter().map(|m| FieldError::invalid(path, json!(value), &m)).collect()
}

/// `ValidateLabelName`: every `IsQualifiedName` message.
fn label_name(key: &str, path: &FieldPath) -> Vec<FieldError> {
    invalid_each(path, key, qualified_name_errors(key))
}

/// `ValidateLabels`: keys (as [`label_name`] checks them) and values,
/// both reported at the map's own path (built only for an error).
fn labels_errors(labels: &Labels, path: impl Fn() -> FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (k, v) in labels {
        for (text, msgs) in [(k, qualified_name_errors(k)), (v, label_value_errors(v))] {
            if !msgs.is_empty() {
                errs.extend(invalid_each(&path(), text, msgs));
            }
        }
    }
    errs
}

/// `ValidateAnnotations`: keys are qualified names, case-insensitively.
fn annotations_errors(
    annotations: &crate::model::sorted_map::SortedMap<String>,
    path: impl Fn() -> FieldPath,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for k in annotations.keys() {
        let msgs = qualified_name_errors(&k.to_lowercase());
        if !msgs.is_empty() {
            errs.extend(invalid_each(&path(), k, msgs));
        }
    }
    errs
}

// ---------------------------------------------------------------------------------------------
// Workloads and pods

/// A workload as the API server sees the pods it creates: the object's name and namespace,
/// the pod template's labels, and the pod spec.
pub fn validate_workload(w: &Workload, gates: &FeatureGates) -> Vec<FieldError> {
    let meta = &w.template.metadata;
    let generate_name = if w.kind == WorkloadKind::Pod { meta.generate_name.as_str() } else { "" };
    let mut errs = object_meta(&w.name, generate_name, Some(&w.namespace), &FieldPath::root("metadata"));
    let template_meta = match w.kind.template_path() {
        "" => FieldPath::root("metadata"),
        t => FieldPath::root(t).child("metadata"),
    };
    errs.extend(labels_errors(&meta.labels, || template_meta.child("labels")));
    errs.extend(annotations_errors(&meta.annotations, || template_meta.child("annotations")));
    // The labels the pods carry once their controller creates them; only the keys matter here
    // (for `matchLabelKeys`), so controller-generated values are placeholders.
    let mut pod_labels = meta.labels.clone();
    let controller_keys: &[&str] = match w.kind {
        WorkloadKind::Deployment => &["pod-template-hash"],
        WorkloadKind::DaemonSet => &["controller-revision-hash", "pod-template-generation"],
        WorkloadKind::StatefulSet => {
            &["controller-revision-hash", "statefulset.kubernetes.io/pod-name", "apps.kubernetes.io/pod-index"]
        }
        WorkloadKind::Job | WorkloadKind::CronJob => {
            &["controller-uid", "job-name", "batch.kubernetes.io/controller-uid", "batch.kubernetes.io/job-name"]
        }
        _ => &[],
    };
    for k in controller_keys {
        pod_labels.insert_if_absent(k, || "x".into());
    }
    errs.extend(pod_spec(&w.template.spec, &pod_labels, &FieldPath::root(w.kind.pod_spec_path()), gates));
    errs.extend(selector_matches_template(w, &template_meta));
    errs
}

/// A controller's selector (`ValidateDeploymentSpec`, `ValidateReplicaSetSpec`,
/// `ValidateStatefulSetSpec`, `ValidateDaemonSetSpec` and, for a ReplicationController,
/// `ValidatePodTemplateSpecForRC`): apps/v1 has no default for it, so a missing one is
/// `Required` (a DaemonSet's only fails to match its template: upstream has no `Required` for
/// it), an empty one is invalid, and it must select its own template's pods. A missing
/// selector selects nothing (`LabelSelectorAsSelector(nil)`), an empty one everything. Jobs
/// generate theirs; a ReplicationController's defaults to the template's labels.
fn selector_matches_template(w: &Workload, template_meta: &FieldPath) -> Vec<FieldError> {
    let empty_detail = match w.kind {
        // Upstream's words; ReplicaSet's message names deployments too.
        WorkloadKind::Deployment | WorkloadKind::ReplicaSet => "empty selector is invalid for deployment",
        WorkloadKind::StatefulSet => "empty selector is invalid for statefulset",
        WorkloadKind::DaemonSet => "empty selector is invalid for daemonset",
        WorkloadKind::ReplicationController => "",
        _ => return Vec::new(),
    };
    let path = FieldPath::root("spec.selector");
    let mut errs = Vec::new();
    let labels = &w.template.metadata.labels;
    let matches = match &w.selector {
        None => {
            if w.kind != WorkloadKind::DaemonSet {
                errs.push(FieldError::required(&path, ""));
            }
            false
        }
        Some(selector) => {
            if selector.match_labels.is_empty() && selector.match_expressions.is_empty() {
                if empty_detail.is_empty() {
                    // `ValidateNonEmptySelector`: an RC with no selector and no template labels.
                    errs.push(FieldError::required(&path, ""));
                } else {
                    let value = serde_json::to_value(selector).unwrap_or_default();
                    // Go's `%#v` of the decoded, empty selector.
                    let go = "v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}";
                    errs.push(FieldError::invalid(&path, value, empty_detail).shown_as(go));
                }
            }
            // An invalid selector is reported by its own validation.
            match crate::model::labels::Selector::from_label_selector(Some(selector), &path) {
                Ok(parsed) => parsed.matches(labels),
                Err(_) => return errs,
            }
        }
    };
    if !matches {
        errs.push(FieldError::invalid(
            &template_meta.child("labels"),
            serde_json::to_value(labels).unwrap_or_default(),
            "`selector` does not match template `labels`",
        ));
    }
    errs
}

/// The API versions the API server serves for a workload kind at `version`. An empty
/// `apiVersion` is not judged here: reading the manifest refuses it already (kubectl's
/// `apiVersion not set`), and a workload built in code has none.
pub fn not_served(w: &Workload, version: crate::model::version::KubeVersion) -> Option<String> {
    let api_version = w.api_version.as_str();
    if api_version.is_empty() {
        return None;
    }
    let kind = w.kind.as_str();
    let (served, removed): (Vec<&str>, Option<&str>) = match w.kind {
        WorkloadKind::Pod | WorkloadKind::ReplicationController => (vec!["v1"], None),
        WorkloadKind::Deployment | WorkloadKind::DaemonSet | WorkloadKind::ReplicaSet | WorkloadKind::StatefulSet => {
            let removed =
                ["extensions/v1beta1", "apps/v1beta1", "apps/v1beta2"].contains(&api_version).then_some("1.16");
            (vec!["apps/v1"], removed)
        }
        WorkloadKind::Job => (vec!["batch/v1"], None),
        WorkloadKind::CronJob => {
            let mut served = Vec::new();
            // batch/v1 since 1.21; batch/v1beta1 until 1.24; batch/v2alpha1 was never on by
            // default and is gone since 1.21.
            if version.at_least(1, 21) {
                served.push("batch/v1");
            }
            if !version.at_least(1, 25) {
                served.push("batch/v1beta1");
            }
            let removed = match api_version {
                "batch/v1beta1" => Some("1.25"),
                "batch/v2alpha1" => Some("1.21"),
                _ => None,
            };
            (served, removed)
        }
    };
    if served.contains(&api_version) {
        return None;
    }
    let mut detail = format!("Kubernetes {version} serves {kind} as {}", served.join(" and "));
    if let Some(removed) = removed {
        detail = format!("{api_version} {kind}s are not served since Kubernetes {removed}; {detail}");
    }
    Some(detail)
}

/// `ValidatePodSpec` for a spec on its own (no pod labels, so `matchLabelKeys` merge nothing);
/// `path` is where the spec sits in its manifest.
pub fn validate_pod_spec(spec: &PodSpec, path: &FieldPath, gates: &FeatureGates) -> Vec<FieldError> {
    pod_spec(spec, &Labels::new(), path, gates)
}

/// The spec as the API server stores it on create: defaulted, and with `matchLabelKeys` /
/// `mismatchLabelKeys` merged into the label selectors for the keys the pod has.
fn api_view(given: &PodSpec, pod_labels: &Labels, gates: &FeatureGates) -> PodSpec {
    let mut spec = given.clone();
    // The same defaulting the simulation applies (requests from limits, pod-level requests,
    // host ports for hostNetwork), so validation judges the spec that gets scheduled.
    crate::cluster::defaults::api_defaults(&mut spec, gates);
    for c in spec.containers.iter_mut().chain(spec.init_containers.iter_mut()) {
        for p in c.ports.iter_mut().filter(|p| p.protocol.is_empty()) {
            p.protocol = "TCP".into();
        }
    }
    let merge = |sel: &mut Option<LabelSelector>, keys: &[String], op: &str| {
        if let Some(sel) = sel {
            for k in keys {
                if let Some(v) = pod_labels.get(k) {
                    sel.match_expressions.push(LabelSelectorRequirement {
                        key: k.clone(),
                        operator: op.into(),
                        values: vec![v.clone()],
                    });
                }
            }
        }
    };
    for c in &mut spec.topology_spread_constraints {
        let keys = c.match_label_keys.clone();
        merge(&mut c.label_selector, &keys, "In");
    }
    if let Some(a) = &mut spec.affinity {
        for pa in [&mut a.pod_affinity, &mut a.pod_anti_affinity].into_iter().flatten() {
            let terms = pa.required.iter_mut().chain(pa.preferred.iter_mut().map(|w| &mut w.pod_affinity_term));
            for t in terms {
                let (m, mm) = (t.match_label_keys.clone(), t.mismatch_label_keys.clone());
                merge(&mut t.label_selector, &m, "In");
                merge(&mut t.label_selector, &mm, "NotIn");
            }
        }
    }
    spec
}

fn pod_spec(given: &PodSpec, pod_labels: &Labels, path: &FieldPath, gates: &FeatureGates) -> Vec<FieldError> {
    let spec = api_view(given, pod_labels, gates);
    let mut errs = Vec::new();
    errs.extend(containers(&spec, &path.child("containers")));
    errs.extend(init_containers(&spec, &path.child("initContainers")));
    if gates.pod_level_resources {
        errs.extend(pod_resources(&spec, &path.child("resources")));
    }
    if spec.host_network {
        let cp = path.child("containers");
        for (i, c) in spec.containers.iter().enumerate() {
            for (j, port) in c.ports.iter().enumerate() {
                if port.host_port != port.container_port {
                    errs.push(FieldError::invalid(
                        &cp.index(i).child("ports").index(j).child("hostPort"),
                        json!(port.host_port),
                        "must match `containerPort` when `hostNetwork` is true",
                    ));
                }
            }
        }
    }
    if let Some(sel) = &spec.node_selector {
        errs.extend(labels_errors(sel, || path.child("nodeSelector")));
    }
    if let Some(a) = &spec.affinity {
        errs.extend(affinity(a, &path.child("affinity")));
    }
    errs.extend(topology_spread_constraints(&spec, &path.child("topologySpreadConstraints")));
    if !spec.node_name.is_empty() {
        errs.extend(invalid_each(&path.child("nodeName"), &spec.node_name, dns1123_subdomain_errors(&spec.node_name)));
    }
    errs.extend(validate_tolerations(&spec.tolerations, &path.child("tolerations"), gates));
    if let Some(pc) = spec.priority_class_name.as_deref().filter(|pc| !pc.is_empty()) {
        errs.extend(invalid_each(&path.child("priorityClassName"), pc, dns1123_subdomain_errors(pc)));
    }
    if !spec.overhead.is_empty() {
        let overhead = ResourceRequirements { limits: spec.overhead.clone(), requests: ResourceList::new() };
        errs.extend(resource_requirements(&overhead, ResourceNames::Container, &path.child("overhead")));
    }
    errs
}

// ---------------------------------------------------------------------------------------------
// Containers

/// `validateContainers`: names unique among regular containers, host ports unique across them.
fn containers(spec: &PodSpec, path: &FieldPath) -> Vec<FieldError> {
    if spec.containers.is_empty() {
        return vec![FieldError::required(path, "")];
    }
    let mut errs = Vec::new();
    let mut names = BTreeSet::new();
    for (i, c) in spec.containers.iter().enumerate() {
        let p = path.index(i);
        errs.extend(container_common(c, &p));
        if !names.insert(c.name.as_str()) {
            errs.push(FieldError::duplicate(&p.child("name"), json!(c.name)));
        }
        if c.restart_policy.is_some() {
            errs.push(FieldError::forbidden(
                &p.child("restartPolicy"),
                json!(c.restart_policy),
                "may not be set for non-init containers",
            ));
        }
    }
    errs.extend(host_port_conflicts(&spec.containers, path));
    errs
}

/// `validateInitContainers`: names unique among regular and init containers; each init
/// container's host ports checked on their own (it runs alone), at upstream's `[0]` index.
fn init_containers(spec: &PodSpec, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut names: BTreeSet<&str> = spec.containers.iter().map(|c| c.name.as_str()).collect();
    for (i, c) in spec.init_containers.iter().enumerate() {
        let p = path.index(i);
        errs.extend(container_common(c, &p));
        if let Some(policy) = &c.restart_policy {
            if policy != "Always" {
                errs.push(FieldError::not_supported(&p.child("restartPolicy"), policy, &["Always"]));
            }
        }
        if names.contains(c.name.as_str()) {
            errs.push(FieldError::duplicate(&p.child("name"), json!(c.name)));
        } else if !c.name.is_empty() {
            names.insert(c.name.as_str());
        }
        errs.extend(host_port_conflicts(std::slice::from_ref(c), path));
    }
    errs
}

/// `validateContainerCommon` (and the pod-only image whitespace check).
fn container_common(c: &Container, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let name_path = path.child("name");
    if c.name.is_empty() {
        errs.push(FieldError::required(&name_path, ""));
    } else {
        errs.extend(invalid_each(&name_path, &c.name, dns1123_label_errors(&c.name)));
    }
    if c.image.is_empty() {
        errs.push(FieldError::required(&path.child("image"), ""));
    } else if c.image.trim() != c.image {
        errs.push(FieldError::invalid(
            &path.child("image"),
            json!(c.image),
            "must not have leading or trailing whitespace",
        ));
    }
    errs.extend(container_ports(&c.ports, &path.child("ports")));
    errs.extend(resource_requirements(&c.resources, ResourceNames::Container, &path.child("resources")));
    errs
}

/// `validateContainerPorts`.
fn container_ports(ports: &[ContainerPort], path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut names = BTreeSet::new();
    for (i, port) in ports.iter().enumerate() {
        let p = path.index(i);
        if let Some(name) = port.name.as_deref().filter(|n| !n.is_empty()) {
            let msgs = port_name_errors(name);
            if !msgs.is_empty() {
                errs.extend(invalid_each(&p.child("name"), name, msgs));
            } else if !names.insert(name) {
                errs.push(FieldError::duplicate(&p.child("name"), json!(name)));
            }
        }
        if port.container_port == 0 {
            errs.push(FieldError::required(&p.child("containerPort"), ""));
        } else if !(1..=65535).contains(&port.container_port) {
            errs.push(FieldError::invalid(&p.child("containerPort"), json!(port.container_port), PORT_RANGE));
        }
        if port.host_port != 0 && !(1..=65535).contains(&port.host_port) {
            errs.push(FieldError::invalid(&p.child("hostPort"), json!(port.host_port), PORT_RANGE));
        }
        if port.protocol.is_empty() {
            errs.push(FieldError::required(&p.child("protocol"), ""));
        } else if !["SCTP", "TCP", "UDP"].contains(&port.protocol.as_str()) {
            errs.push(FieldError::not_supported(&p.child("protocol"), &port.protocol, &["SCTP", "TCP", "UDP"]));
        }
    }
    errs
}

/// `validation.IsValidPortName` (IANA service names).
fn port_name_errors(name: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if name.len() > 15 {
        errs.push("must be no more than 15 characters".to_string());
    }
    if !name.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
        errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)".into());
    }
    if !name.bytes().any(|b| b.is_ascii_lowercase()) {
        errs.push("must contain at least one letter (a-z)".into());
    }
    if name.contains("--") {
        errs.push("must not contain consecutive hyphens".into());
    }
    if name.starts_with('-') || name.ends_with('-') {
        errs.push("must not begin or end with a hyphen".into());
    }
    errs
}

/// `AccumulateUniqueHostPorts`: host ports keyed by `protocol/hostIP/port`.
fn host_port_conflicts(containers: &[Container], path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, c) in containers.iter().enumerate() {
        for (j, port) in c.ports.iter().enumerate() {
            if port.host_port == 0 {
                continue;
            }
            let key = format!("{}/{}/{}", port.protocol, port.host_ip, port.host_port);
            if seen.contains(&key) {
                errs.push(FieldError::duplicate(&path.index(i).child("ports").index(j).child("hostPort"), json!(key)));
            } else {
                seen.insert(key);
            }
        }
    }
    errs
}

// ---------------------------------------------------------------------------------------------
// Resources

#[derive(Clone, Copy, PartialEq)]
enum ResourceNames {
    Container,
    PodLevel,
}

const STANDARD_RESOURCES: [&str; 20] = [
    "cpu",
    "memory",
    "ephemeral-storage",
    "requests.cpu",
    "requests.memory",
    "requests.ephemeral-storage",
    "limits.cpu",
    "limits.memory",
    "limits.ephemeral-storage",
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "storage",
    "requests.storage",
    "services.nodeports",
    "services.loadbalancers",
];

const INTEGER_RESOURCES: [&str; 9] = [
    "pods",
    "resourcequotas",
    "services",
    "replicationcontrollers",
    "secrets",
    "configmaps",
    "persistentvolumeclaims",
    "services.nodeports",
    "services.loadbalancers",
];

fn is_native_resource(name: &str) -> bool {
    !name.contains('/') || name.contains("kubernetes.io/")
}

/// `IsOvercommitAllowed`: requests may be below limits.
fn is_overcommit_allowed(name: &str) -> bool {
    is_native_resource(name) && !is_hugepages(name)
}

/// `validateResourceName`.
fn resource_name(name: &str, path: &FieldPath) -> Vec<FieldError> {
    let errs = label_name(name, path);
    if !errs.is_empty() {
        return errs;
    }
    let standard =
        STANDARD_RESOURCES.contains(&name) || name.starts_with("hugepages-") || name.starts_with("requests.hugepages-");
    if !name.contains('/') && !standard {
        return vec![FieldError::invalid(path, json!(name), "must be a standard resource type or fully qualified")];
    }
    Vec::new()
}

/// `validateContainerResourceName` or `validatePodResourceName`.
fn resource_name_for(name: &str, names: ResourceNames, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = resource_name(name, path);
    match names {
        ResourceNames::PodLevel => {
            if errs.is_empty() && !is_supported_pod_level_resource(name) {
                errs.push(FieldError::not_supported(path, name, &["cpu", "hugepages-", "memory"]));
            }
        }
        ResourceNames::Container => {
            if !name.contains('/') {
                if !["cpu", "memory", "ephemeral-storage"].contains(&name) && !is_hugepages(name) {
                    errs.push(FieldError::invalid(path, json!(name), "must be a standard resource for containers"));
                }
            } else if !is_native_resource(name) && !is_extended_resource(name) {
                errs.push(FieldError::invalid(path, json!(name), "doesn't follow extended resource name standard"));
            }
        }
    }
    errs
}

/// `ValidateResourceQuantityValue`: not negative; whole units for extended and countable
/// resources.
fn quantity_value(name: &str, q: &Quantity, path: &FieldPath) -> Vec<FieldError> {
    quantity_problems(name, q).into_iter().map(|m| FieldError::invalid(path, json!(go_string(q)), m)).collect()
}

/// What [`quantity_value`] reports, without the path.
fn quantity_problems(name: &str, q: &Quantity) -> Vec<&'static str> {
    let mut out = Vec::new();
    if q.is_negative() {
        out.push("must be greater than or equal to 0");
    }
    if (INTEGER_RESOURCES.contains(&name) || is_extended_resource(name)) && !is_whole(q) {
        out.push("must be an integer");
    }
    out
}

/// `MilliValue() % 1000 == 0`, exactly: quantities beyond the i64 range count as whole.
fn is_whole(q: &Quantity) -> bool {
    let v = q.value();
    v == i64::MAX || v == i64::MIN || Quantity::from_value(v) == *q
}

/// `validateResourceQuantityHugePageValue`: a whole number of pages.
fn hugepage_value(name: &str, q: &Quantity, path: &FieldPath) -> Option<FieldError> {
    let page = Quantity::parse(name.strip_prefix("hugepages-")?).ok();
    let divisible =
        page.is_some_and(|page| page.value() > 0 && page.milli_value() % 1000 == 0 && q.value() % page.value() == 0);
    (!divisible).then(|| {
        let v = go_string(q);
        FieldError::invalid(path, json!(v), &format!("{v} is not positive integer multiple of {name}"))
    })
}

/// `validateResourceRequirements` (container, overhead and pod-level).
fn resource_requirements(r: &ResourceRequirements, names: ResourceNames, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let (lim_path, req_path) = (path.child("limits"), path.child("requests"));
    let (mut cpu_or_memory, mut hugepages) = (false, false);
    for (name, q) in &r.limits {
        let p = lim_path.key(name);
        errs.extend(resource_name_for(name, names, &p));
        errs.extend(quantity_value(name, q, &p));
        if is_hugepages(name) {
            hugepages = true;
            errs.extend(hugepage_value(name, q, &p));
        }
        cpu_or_memory |= name == "cpu" || name == "memory";
    }
    for (name, q) in &r.requests {
        let p = req_path.key(name);
        errs.extend(resource_name_for(name, names, &p));
        errs.extend(quantity_value(name, q, &p));
        match r.limits.get(name) {
            Some(limit) if q != limit && !is_overcommit_allowed(name) => errs.push(FieldError::invalid(
                &req_path,
                json!(go_string(q)),
                &format!("must be equal to {name} limit of {}", go_string(limit)),
            )),
            Some(limit) if q > limit => errs.push(FieldError::invalid(
                &req_path,
                json!(go_string(q)),
                &format!("must be less than or equal to {name} limit of {}", go_string(limit)),
            )),
            Some(_) => {}
            None if !is_overcommit_allowed(name) => {
                errs.push(FieldError::required(&lim_path, "Limit must be set for non overcommitable resources"))
            }
            None => {}
        }
        if is_hugepages(name) {
            hugepages = true;
            errs.extend(hugepage_value(name, q, &p));
        }
        cpu_or_memory |= name == "cpu" || name == "memory";
    }
    if hugepages && !cpu_or_memory {
        errs.push(FieldError::forbidden(path, json!(null), "HugePages require cpu or memory"));
    }
    errs
}

/// `validatePodResources`: pod-level names and values, then `validatePodResourceConsistency`
/// (with upstream's `containers[i][name].limits` paths).
fn pod_resources(spec: &PodSpec, path: &FieldPath) -> Vec<FieldError> {
    let Some(pod) = &spec.resources else { return Vec::new() };
    let mut errs = resource_requirements(pod, ResourceNames::PodLevel, path);
    for (name, (aggregate, binary)) in aggregate_container_requests(spec) {
        let Some(requested) = pod.requests.get(&name) else { continue };
        if aggregate > *requested {
            errs.push(FieldError::invalid(
                &path.child("requests").key(&name),
                json!(go_string(requested)),
                &format!(
                    "must be greater than or equal to aggregate container requests of {}",
                    go_format(&aggregate, binary)
                ),
            ));
        }
    }
    for (i, c) in spec.containers.iter().enumerate() {
        for (name, limit) in &c.resources.limits {
            let Some(pod_limit) = pod.limits.get(name) else { continue };
            if limit > pod_limit {
                errs.push(FieldError::invalid(
                    &path.child("containers").index(i).key(name).child("limits"),
                    json!(go_string(limit)),
                    &format!("must be less than or equal to pod limits of {}", go_string(pod_limit)),
                ));
            }
        }
    }
    errs
}

/// `AggregateContainerRequests`: regular containers and sidecars summed, init containers
/// maxed in. Each sum keeps the format (binary or decimal suffix) of its first term, as
/// `Quantity.Add` does, for the message.
fn aggregate_container_requests(spec: &PodSpec) -> BTreeMap<String, (Quantity, bool)> {
    fn add(into: &mut BTreeMap<String, (Quantity, bool)>, list: &BTreeMap<String, (Quantity, bool)>) {
        for (name, (q, binary)) in list {
            match into.get_mut(name) {
                Some((sum, _)) => *sum = sum.add(q),
                None => {
                    into.insert(name.clone(), (q.clone(), *binary));
                }
            }
        }
    }
    fn max(into: &mut BTreeMap<String, (Quantity, bool)>, list: &BTreeMap<String, (Quantity, bool)>) {
        for (name, v) in list {
            if into.get(name).is_none_or(|(cur, _)| v.0 > *cur) {
                into.insert(name.clone(), v.clone());
            }
        }
    }
    let of = |c: &Container| -> BTreeMap<String, (Quantity, bool)> {
        c.resources.requests.iter().map(|(k, q)| (k.clone(), (q.clone(), is_binary(q)))).collect()
    };
    let mut reqs = BTreeMap::new();
    for c in &spec.containers {
        add(&mut reqs, &of(c));
    }
    let (mut sidecars, mut init) = (BTreeMap::new(), BTreeMap::new());
    for c in &spec.init_containers {
        let own = of(c);
        if c.is_restartable_init() {
            add(&mut reqs, &own);
            add(&mut sidecars, &own);
            max(&mut init, &sidecars);
        } else {
            let mut tmp = BTreeMap::new();
            add(&mut tmp, &own);
            add(&mut tmp, &sidecars);
            max(&mut init, &tmp);
        }
    }
    max(&mut reqs, &init);
    reqs
}

fn is_binary(q: &Quantity) -> bool {
    q.as_str().ends_with('i')
}

/// `Quantity.String()`: the canonical form in the quantity's own format.
fn go_string(q: &Quantity) -> String {
    go_format(q, is_binary(q))
}

fn go_format(q: &Quantity, binary: bool) -> String {
    let text = q.as_str();
    if text.contains(['e', 'E']) && !text.ends_with('i') {
        return text.to_string();
    }
    let milli = q.milli_value();
    if milli == i64::MAX || milli == i64::MIN {
        return text.to_string();
    }
    if binary && milli % 1000 == 0 && !(-1024..1024).contains(&(milli / 1000)) {
        let (mut v, mut e) = (milli / 1000, 0);
        while v % 1024 == 0 && e < 6 {
            v /= 1024;
            e += 1;
        }
        let suffix = ["", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"].get(e).copied().unwrap_or_default();
        return format!("{v}{suffix}");
    }
    if milli == 0 {
        return "0".into();
    }
    let (mut v, mut e) = (milli, -3i32);
    while v % 10 == 0 {
        v /= 10;
        e += 1;
    }
    while e.rem_euclid(3) != 0 {
        v *= 10;
        e -= 1;
    }
    let suffix = match e {
        -3 => "m",
        0 => "",
        3 => "k",
        6 => "M",
        9 => "G",
        12 => "T",
        15 => "P",
        _ => "E",
    };
    format!("{v}{suffix}")
}

// ---------------------------------------------------------------------------------------------
// Affinity and spreading

fn affinity(a: &Affinity, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if let Some(na) = &a.node_affinity {
        let np = path.child("nodeAffinity");
        if let Some(req) = &na.required {
            let tp = np.child("requiredDuringSchedulingIgnoredDuringExecution").child("nodeSelectorTerms");
            if req.node_selector_terms.is_empty() {
                errs.push(FieldError::required(&tp, "must have at least one node selector term"));
            }
            for (i, term) in req.node_selector_terms.iter().enumerate() {
                errs.extend(node_selector_term(term, false, &tp.index(i)));
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
            // Upstream always allows invalid label values in preferred terms.
            errs.extend(node_selector_term(&term.preference, true, &pp.index(i).child("preference")));
        }
    }
    for (name, pa) in [("podAffinity", &a.pod_affinity), ("podAntiAffinity", &a.pod_anti_affinity)] {
        let Some(pa) = pa else { continue };
        let pp = path.child(name);
        for (i, term) in pa.required.iter().enumerate() {
            errs.extend(pod_affinity_term(term, &pp.child("requiredDuringSchedulingIgnoredDuringExecution").index(i)));
        }
        for (i, w) in pa.preferred.iter().enumerate() {
            let tp = pp.child("preferredDuringSchedulingIgnoredDuringExecution").index(i);
            if !(1..=100).contains(&w.weight) {
                errs.push(FieldError::invalid(&tp.child("weight"), json!(w.weight), "must be in the range 1-100"));
            }
            errs.extend(pod_affinity_term(&w.pod_affinity_term, &tp.child("podAffinityTerm")));
        }
    }
    errs
}

/// `ValidateNodeSelectorTerm`. `Gt`/`Lt` need exactly one value; whether it is an integer is
/// not the API's concern (the scheduler treats a non-integer as not matching).
fn node_selector_term(term: &NodeSelectorTerm, allow_invalid_values: bool, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, r) in term.match_expressions.iter().enumerate() {
        let p = path.child("matchExpressions").index(i);
        let vp = p.child("values");
        match r.operator.as_str() {
            "In" | "NotIn" => {
                if r.values.is_empty() {
                    errs.push(FieldError::required(&vp, "must be specified when `operator` is 'In' or 'NotIn'"));
                }
            }
            "Exists" | "DoesNotExist" => {
                if !r.values.is_empty() {
                    errs.push(FieldError::forbidden(
                        &vp,
                        json!(r.values),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ));
                }
            }
            "Gt" | "Lt" => {
                if r.values.len() != 1 {
                    errs.push(FieldError::required(
                        &vp,
                        "must be specified single value when `operator` is 'Lt' or 'Gt'",
                    ));
                }
            }
            other => errs.push(FieldError::invalid(&p.child("operator"), json!(other), NOT_A_VALID_SELECTOR_OPERATOR)),
        }
        errs.extend(label_name(&r.key, &p.child("key")));
        if !allow_invalid_values {
            for (j, v) in r.values.iter().enumerate() {
                errs.extend(invalid_each(&vp.index(j), v, label_value_errors(v)));
            }
        }
    }
    for (i, r) in term.match_fields.iter().enumerate() {
        let p = path.child("matchFields").index(i);
        match r.operator.as_str() {
            "In" | "NotIn" => {
                if r.values.len() != 1 {
                    errs.push(FieldError::required(
                        &p.child("values"),
                        "must be only one value when `operator` is 'In' or 'NotIn' for node field selector",
                    ));
                }
            }
            other => errs.push(FieldError::invalid(&p.child("operator"), json!(other), NOT_A_VALID_SELECTOR_OPERATOR)),
        }
        if r.key != crate::model::node_selector::FIELD_METADATA_NAME {
            errs.push(FieldError::invalid(&p.child("key"), json!(r.key), "not a valid field selector key"));
        } else {
            for (j, v) in r.values.iter().enumerate() {
                errs.extend(invalid_each(&p.child("values").index(j), v, dns1123_subdomain_errors(v)));
            }
        }
    }
    errs
}

/// `validatePodAffinityTerm` (its selector already merged with `matchLabelKeys`).
fn pod_affinity_term(term: &PodAffinityTerm, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = label_selector(term.label_selector.as_ref(), &path.child("labelSelector"));
    errs.extend(label_selector(term.namespace_selector.as_ref(), &path.child("namespaceSelector")));
    for ns in &term.namespaces {
        // Upstream reports these at `namespace`, singular.
        errs.extend(invalid_each(&path.child("namespace"), ns, dns1123_label_errors(ns)));
    }
    errs.extend(match_label_keys(
        path,
        &term.match_label_keys,
        &term.mismatch_label_keys,
        term.label_selector.as_ref(),
    ));
    if term.topology_key.is_empty() {
        errs.push(FieldError::required(&path.child("topologyKey"), "can not be empty"));
    }
    errs.extend(label_name(&term.topology_key, &path.child("topologyKey")));
    errs
}

/// `ValidateLabelSelector` with invalid label values disallowed.
fn label_selector(selector: Option<&LabelSelector>, path: &FieldPath) -> Vec<FieldError> {
    let Some(sel) = selector else { return Vec::new() };
    let mut errs = labels_errors(&sel.match_labels, || path.child("matchLabels"));
    for (i, r) in sel.match_expressions.iter().enumerate() {
        let p = path.child("matchExpressions").index(i);
        match r.operator.as_str() {
            "In" | "NotIn" => {
                if r.values.is_empty() {
                    errs.push(FieldError::required(
                        &p.child("values"),
                        "must be specified when `operator` is 'In' or 'NotIn'",
                    ));
                }
            }
            "Exists" | "DoesNotExist" => {
                if !r.values.is_empty() {
                    errs.push(FieldError::forbidden(
                        &p.child("values"),
                        json!(r.values),
                        "may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
                    ));
                }
            }
            other => errs.push(FieldError::invalid(&p.child("operator"), json!(other), NOT_A_VALID_SELECTOR_OPERATOR)),
        }
        errs.extend(label_name(&r.key, &p.child("key")));
        for (j, v) in r.values.iter().enumerate() {
            errs.extend(invalid_each(&p.child("values").index(j), v, label_value_errors(v)));
        }
    }
    errs
}

/// `validateMatchLabelKeysAndMismatchLabelKeys`, on a selector that already holds the merged
/// `key In (value)` requirements: a key named by both the user's selector and `matchLabelKeys`
/// shows up twice. Errors sit at `path[i]`, as upstream reports them.
fn match_label_keys(
    path: &FieldPath,
    match_keys: &[String],
    mismatch_keys: &[String],
    selector: Option<&LabelSelector>,
) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (name, keys) in [("matchLabelKeys", match_keys), ("mismatchLabelKeys", mismatch_keys)] {
        if keys.is_empty() {
            continue;
        }
        let kp = path.child(name);
        if selector.is_none() {
            errs.push(FieldError::forbidden(&kp, json!(keys), "must not be specified when labelSelector is not set"));
            continue;
        }
        for (i, k) in keys.iter().enumerate() {
            errs.extend(label_name(k, &kp.index(i)));
        }
    }
    if let Some(sel) = selector {
        let index: BTreeMap<&str, usize> = match_keys.iter().enumerate().map(|(i, k)| (k.as_str(), i)).collect();
        let mut keys: BTreeSet<&str> = sel.match_labels.keys().map(String::as_str).collect();
        for r in &sel.match_expressions {
            if let Some(i) = index.get(r.key.as_str()) {
                if keys.contains(r.key.as_str()) {
                    errs.push(FieldError::invalid(
                        &path.index(*i),
                        json!(r.key),
                        "exists in both matchLabelKeys and labelSelector",
                    ));
                }
            }
            keys.insert(&r.key);
        }
    }
    let mismatch: BTreeSet<&String> = mismatch_keys.iter().collect();
    for (i, k) in match_keys.iter().enumerate() {
        if mismatch.contains(k) {
            errs.push(FieldError::invalid(
                &path.child("matchLabelKeys").index(i),
                json!(k),
                "exists in both matchLabelKeys and mismatchLabelKeys",
            ));
        }
    }
    errs
}

/// `validateTopologySpreadConstraints`.
fn topology_spread_constraints(spec: &PodSpec, path: &FieldPath) -> Vec<FieldError> {
    let mut errs = Vec::new();
    let constraints = &spec.topology_spread_constraints;
    for (i, c) in constraints.iter().enumerate() {
        let p = path.index(i);
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
        let repeated = constraints
            .iter()
            .skip(i + 1)
            .any(|o| o.topology_key == c.topology_key && o.when_unsatisfiable == c.when_unsatisfiable);
        if repeated {
            errs.push(FieldError::duplicate(
                &p.child("{topologyKey, whenUnsatisfiable}"),
                json!(format!("{{{}, {}}}", c.topology_key, c.when_unsatisfiable)),
            ));
        }
        if let Some(m) = c.min_domains {
            if m <= 0 {
                errs.push(FieldError::invalid(&p.child("minDomains"), json!(m), "must be greater than zero"));
            }
            if c.when_unsatisfiable != "DoNotSchedule" {
                errs.push(FieldError::invalid(
                    &p.child("minDomains"),
                    json!(m),
                    &format!(
                        "can only use minDomains if whenUnsatisfiable=DoNotSchedule, not {}",
                        c.when_unsatisfiable
                    ),
                ));
            }
        }
        for (name, policy) in
            [("nodeAffinityPolicy", &c.node_affinity_policy), ("nodeTaintsPolicy", &c.node_taints_policy)]
        {
            if let Some(policy) = policy {
                if policy != "Honor" && policy != "Ignore" {
                    errs.push(FieldError::not_supported(&p.child(name), policy, &["Honor", "Ignore"]));
                }
            }
        }
        errs.extend(match_label_keys(&p, &c.match_label_keys, &[], c.label_selector.as_ref()));
        errs.extend(label_selector(c.label_selector.as_ref(), &p.child("labelSelector")));
    }
    errs
}

// ---------------------------------------------------------------------------------------------
// Tolerations

/// `ValidateTolerations`, in upstream's order and words.
pub fn validate_tolerations(tolerations: &[Toleration], path: &FieldPath, gates: &FeatureGates) -> Vec<FieldError> {
    let mut errs = Vec::new();
    for (i, t) in tolerations.iter().enumerate() {
        let p = path.index(i);
        if !t.key.is_empty() {
            errs.extend(label_name(&t.key, &p.child("key")));
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
                let msgs = label_value_errors(&t.value);
                if !msgs.is_empty() {
                    errs.push(FieldError::invalid(&p.child("operator"), json!(t.value), &msgs.join(";")));
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
                // 1.35 lists the comparison operators when one of them is used without its
                // gate, and only Equal and Exists for any other unknown operator.
                let comparison = gates.taint_toleration_comparison_operators || matches!(other, "Lt" | "Gt");
                let supported: &[&str] =
                    if comparison { &["Equal", "Exists", "Lt", "Gt"] } else { &["Equal", "Exists"] };
                errs.push(FieldError::not_supported(&p.child("operator"), other, supported));
            }
        }
        if !t.effect.is_empty() {
            errs.extend(taint_effect(&t.effect, true, &p.child("effect")));
        }
    }
    errs
}

fn is_decimal_integer(s: &str) -> bool {
    let digits = s.strip_prefix('-').unwrap_or(s);
    s == "0" || (!digits.is_empty() && !digits.starts_with('0') && digits.bytes().all(|b| b.is_ascii_digit()))
}

// ---------------------------------------------------------------------------------------------
// Storage objects (pkg/apis/core/validation `ValidatePersistentVolumeClaim`,
// `ValidatePersistentVolume`; pkg/apis/storage/validation `ValidateStorageClass`,
// `ValidateCSINode`), the rules that change what the volume plugins read.

const ACCESS_MODES: [&str; 4] = ["ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce", "ReadWriteOncePod"];
const VOLUME_MODES: [&str; 2] = ["Block", "Filesystem"];

/// `ValidatePersistentVolumeClaim`: name, access modes, the storage request, volume mode,
/// class name and selector.
pub fn validate_persistent_volume_claim(claim: &crate::model::storage::PersistentVolumeClaim) -> Vec<FieldError> {
    let meta = &claim.metadata;
    let mut errs =
        object_meta(&meta.name, &meta.generate_name, meta.namespace.as_deref(), &FieldPath::root("metadata"));
    errs.extend(labels_errors(&meta.labels, || FieldPath::root("metadata").child("labels")));
    errs.extend(claim_spec_errors(&claim.spec, &FieldPath::root("spec")));
    errs
}

/// `ValidatePersistentVolumeClaimSpec`, for a claim and a StatefulSet's claim template.
pub fn claim_spec_errors(spec: &crate::model::storage::PersistentVolumeClaimSpec, path: &FieldPath) -> Vec<FieldError> {
    let mut errs =
        access_modes_errors(&spec.access_modes, &path.child("accessModes"), "at least 1 access mode is required");
    if let Some(selector) = &spec.selector {
        errs.extend(label_selector(Some(selector), &path.child("selector")));
    }
    let storage_path = path.child("resources").key("storage");
    match spec.resources.requests.get("storage") {
        None => errs.push(FieldError::required(&storage_path, "")),
        Some(q) if q.is_zero() || q.is_negative() => {
            errs.push(FieldError::invalid(&storage_path, serde_json::json!(q.as_str()), "must be greater than zero"))
        }
        Some(_) => {}
    }
    if let Some(mode) = spec.volume_mode.as_deref().filter(|m| !VOLUME_MODES.contains(m)) {
        errs.push(FieldError::not_supported(&path.child("volumeMode"), mode, &VOLUME_MODES));
    }
    if let Some(class) = spec.storage_class_name.as_deref().filter(|c| !c.is_empty()) {
        errs.extend(invalid_each(&path.child("storageClassName"), class, dns1123_subdomain_errors(class)));
    }
    errs
}

fn access_modes_errors(modes: &[String], path: &FieldPath, required: &str) -> Vec<FieldError> {
    let mut errs = Vec::new();
    if modes.is_empty() {
        errs.push(FieldError::required(path, required));
    }
    for mode in modes.iter().filter(|m| !ACCESS_MODES.contains(&m.as_str())) {
        errs.push(FieldError::not_supported(path, mode, &ACCESS_MODES));
    }
    if modes.len() > 1 && modes.iter().any(|m| m == crate::model::storage::READ_WRITE_ONCE_POD) {
        errs.push(FieldError::forbidden(
            path,
            serde_json::json!(modes),
            "may not use ReadWriteOncePod with other access modes",
        ));
    }
    errs
}

/// `ValidatePersistentVolume`: name, access modes, capacity, volume mode, class name, node
/// affinity (a local volume requires it).
pub fn validate_persistent_volume(pv: &crate::model::storage::PersistentVolume) -> Vec<FieldError> {
    let meta = &pv.metadata;
    let spec_path = FieldPath::root("spec");
    let mut errs = object_meta(&meta.name, &meta.generate_name, None, &FieldPath::root("metadata"));
    errs.extend(labels_errors(&meta.labels, || FieldPath::root("metadata").child("labels")));
    errs.extend(access_modes_errors(
        &pv.spec.access_modes,
        &spec_path.child("accessModes"),
        "must specify at least 1 access mode",
    ));
    let capacity = &pv.spec.capacity;
    if capacity.is_empty() {
        errs.push(FieldError::required(&spec_path.child("capacity"), ""));
    } else if capacity.get("storage").is_none() || capacity.len() > 1 {
        let names: Vec<&str> = capacity.keys().map(String::as_str).collect();
        errs.push(
            FieldError::not_supported(&spec_path.child("capacity"), &names.join(","), &["storage"])
                .shown_as(&format!("{names:?}")),
        );
    }
    if let Some(mode) = pv.spec.volume_mode.as_deref().filter(|m| !VOLUME_MODES.contains(m)) {
        errs.push(FieldError::not_supported(&spec_path.child("volumeMode"), mode, &VOLUME_MODES));
    }
    let class = &pv.spec.storage_class_name;
    if !class.is_empty() {
        errs.extend(invalid_each(&spec_path.child("storageClassName"), class, dns1123_subdomain_errors(class)));
    }
    if pv.spec.local.is_some() && pv.spec.node_affinity.as_ref().and_then(|a| a.required.as_ref()).is_none() {
        errs.push(FieldError::required(&spec_path.child("nodeAffinity"), "Local volume requires node affinity"));
    }
    if let Some(required) = pv.spec.node_affinity.as_ref().and_then(|a| a.required.as_ref()) {
        let path = spec_path.child("nodeAffinity").child("required");
        if required.node_selector_terms.is_empty() {
            errs.push(FieldError::required(
                &path.child("nodeSelectorTerms"),
                "must have at least one node selector term",
            ));
        }
        errs.extend(
            crate::model::node_selector::NodeSelectorMatcher::strict(required, &path).err().unwrap_or_default(),
        );
    }
    errs
}

const RECLAIM_POLICIES: [&str; 2] = ["Delete", "Retain"];
const BINDING_MODES: [&str; 2] = ["Immediate", "WaitForFirstConsumer"];

/// `ValidateStorageClass`: name, provisioner, reclaim policy, binding mode, allowed
/// topologies.
pub fn validate_storage_class(class: &crate::model::storage::StorageClass) -> Vec<FieldError> {
    let meta = &class.metadata;
    let mut errs = object_meta(&meta.name, &meta.generate_name, None, &FieldPath::root("metadata"));
    let provisioner = FieldPath::root("provisioner");
    if class.provisioner.is_empty() {
        errs.push(FieldError::required(&provisioner, ""));
    } else {
        errs.extend(invalid_each(&provisioner, &class.provisioner, qualified_name_errors(&class.provisioner)));
    }
    if let Some(policy) = class.reclaim_policy.as_deref().filter(|p| !RECLAIM_POLICIES.contains(p)) {
        errs.push(FieldError::not_supported(&FieldPath::root("reclaimPolicy"), policy, &RECLAIM_POLICIES));
    }
    if let Some(mode) = class.volume_binding_mode.as_deref().filter(|m| !BINDING_MODES.contains(m)) {
        errs.push(FieldError::not_supported(&FieldPath::root("volumeBindingMode"), mode, &BINDING_MODES));
    }
    let topologies = FieldPath::root("allowedTopologies");
    for (i, term) in class.allowed_topologies.iter().enumerate() {
        let term_path = topologies.index(i).child("matchLabelExpressions");
        if term.match_label_expressions.is_empty() {
            errs.push(FieldError::required(&term_path, "must contain at least one requirement"));
        }
        for (j, req) in term.match_label_expressions.iter().enumerate() {
            let req_path = term_path.index(j);
            errs.extend(invalid_each(&req_path.child("key"), &req.key, qualified_name_errors(&req.key)));
            if req.values.is_empty() {
                errs.push(FieldError::required(&req_path.child("values"), "must specify as least one value"));
            }
        }
    }
    errs
}

/// `ValidateCSINode`'s driver rules: names, and `allocatable.count` not negative.
pub fn validate_csi_node(node: &crate::model::storage::CsiNode) -> Vec<FieldError> {
    let meta = &node.metadata;
    let mut errs = object_meta(&meta.name, &meta.generate_name, None, &FieldPath::root("metadata"));
    let drivers = FieldPath::root("spec").child("drivers");
    for (i, d) in node.spec.drivers.iter().enumerate() {
        let path = drivers.index(i);
        if d.name.is_empty() {
            errs.push(FieldError::required(&path.child("name"), ""));
        }
        if let Some(count) = d.allocatable.as_ref().and_then(|a| a.count).filter(|c| *c < 0) {
            errs.push(FieldError::invalid(
                &path.child("allocatable").child("count"),
                serde_json::json!(count),
                "must be greater than or equal to 0",
            ));
        }
    }
    errs
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

    /// Every error of each document, rendered as the API server renders them.
    fn errors_of(yaml: &str) -> Vec<String> {
        let m = crate::input::documents::parse_manifests(yaml, "t").expect("parses");
        let gates = FeatureGates::for_version(crate::model::version::KubeVersion::new(1, 35));
        let mut out: Vec<String> = m.nodes.iter().flat_map(|(_, n)| validate_node(n)).map(|e| e.to_string()).collect();
        out.extend(m.workloads.iter().flat_map(|w| validate_workload(w, &gates)).map(|e| e.to_string()));
        out
    }

    fn pod(spec: &str) -> String {
        format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: ns1}}\nspec: {spec}\n")
    }

    const C: &str = "{name: app, image: img}";

    const LABEL_VALUE_MSG: &str = "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')";

    #[test]
    fn api_server_rows() {
        let subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')";
        let dns_label = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')";
        let name_part = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')";
        // (name, input, every error wanted)
        let rows: Vec<(&str, String, Vec<String>)> = vec![
            ("valid pod", pod(&format!("{{containers: [{C}]}}")), vec![]),
            (
                "pod name is a DNS subdomain",
                format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: Web_1}}\nspec: {{containers: [{C}]}}\n"),
                vec![format!("metadata.name: Invalid value: \"Web_1\": {subdomain}")],
            ),
            (
                "namespace is a DNS label, dots included",
                format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: team.a}}\nspec: {{containers: [{C}]}}\n"),
                vec!["metadata.namespace: Invalid value: \"team.a\": must not contain dots".into()],
            ),
            (
                "namespace with capitals",
                format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, namespace: Prod}}\nspec: {{containers: [{C}]}}\n"),
                vec![format!("metadata.namespace: Invalid value: \"Prod\": {dns_label}")],
            ),
            (
                "node name is a DNS subdomain",
                "apiVersion: v1\nkind: Node\nmetadata: {name: Node_A}\n".into(),
                vec![format!("metadata.name: Invalid value: \"Node_A\": {subdomain}")],
            ),
            (
                "template labels, key and value",
                format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec: {{selector: {{matchLabels: {{app: d}}}}, template: {{metadata: {{labels: {{'-k': ok, tier: 'x y', app: d}}}}, spec: {{containers: [{C}]}}}}}}\n"),
                vec![
                    format!("spec.template.metadata.labels: Invalid value: \"-k\": {name_part}"),
                    format!("spec.template.metadata.labels: Invalid value: \"x y\": {LABEL_VALUE_MSG}"),
                ],
            ),
            (
                "apps/v1 has no default selector: Required, and it selects no template",
                format!("apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec: {{template: {{metadata: {{labels: {{app: d}}}}, spec: {{containers: [{C}]}}}}}}\n"),
                vec![
                    "spec.selector: Required value".into(),
                    "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"d\"}: `selector` does not match template `labels`".into(),
                ],
            ),
            (
                "a StatefulSet's and a ReplicaSet's too",
                format!("apiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s}}\nspec: {{template: {{metadata: {{labels: {{app: s}}}}, spec: {{containers: [{C}]}}}}}}\n---\napiVersion: apps/v1\nkind: ReplicaSet\nmetadata: {{name: r}}\nspec: {{template: {{metadata: {{labels: {{app: r}}}}, spec: {{containers: [{C}]}}}}}}\n"),
                vec![
                    "spec.selector: Required value".into(),
                    "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"s\"}: `selector` does not match template `labels`".into(),
                    "spec.selector: Required value".into(),
                    "spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"r\"}: `selector` does not match template `labels`".into(),
                ],
            ),
            (
                "a DaemonSet without one only selects nothing (upstream has no Required for it)",
                format!("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: ds}}\nspec: {{template: {{metadata: {{labels: {{app: ds}}}}, spec: {{containers: [{C}]}}}}}}\n"),
                vec!["spec.template.metadata.labels: Invalid value: map[string]string{\"app\":\"ds\"}: `selector` does not match template `labels`".into()],
            ),
            (
                "an empty selector, in each kind's words",
                format!("apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {{name: ds}}\nspec: {{selector: {{}}, template: {{metadata: {{labels: {{app: ds}}}}, spec: {{containers: [{C}]}}}}}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: d}}\nspec: {{selector: {{}}, template: {{metadata: {{labels: {{app: d}}}}, spec: {{containers: [{C}]}}}}}}\n---\napiVersion: apps/v1\nkind: StatefulSet\nmetadata: {{name: s}}\nspec: {{selector: {{}}, template: {{metadata: {{labels: {{app: s}}}}, spec: {{containers: [{C}]}}}}}}\n"),
                ["daemonset", "deployment", "statefulset"]
                    .map(|k| format!("spec.selector: Invalid value: v1.LabelSelector{{MatchLabels:map[string]string(nil), MatchExpressions:[]v1.LabelSelectorRequirement(nil)}}: empty selector is invalid for {k}"))
                    .to_vec(),
            ),
            (
                "a ReplicationController's selector defaults to its template's labels; with neither, Required",
                format!("apiVersion: v1\nkind: ReplicationController\nmetadata: {{name: a}}\nspec: {{template: {{metadata: {{labels: {{app: a}}}}, spec: {{containers: [{C}]}}}}}}\n---\napiVersion: v1\nkind: ReplicationController\nmetadata: {{name: b}}\nspec: {{template: {{spec: {{containers: [{C}]}}}}}}\n"),
                vec!["spec.selector: Required value".into()],
            ),
            (
                "node label value",
                "apiVersion: v1\nkind: Node\nmetadata: {name: n, labels: {zone: 'a/b'}}\n".into(),
                vec![format!("metadata.labels: Invalid value: \"a/b\": {LABEL_VALUE_MSG}")],
            ),
            (
                "annotation keys are qualified names",
                format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, annotations: {{'a/b/c': x}}}}\nspec: {{containers: [{C}]}}\n"),
                vec!["metadata.annotations: Invalid value: \"a/b/c\": a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')".into()],
            ),
            (
                "duplicate names across init and regular containers",
                pod("{initContainers: [{name: main, image: i}], containers: [{name: main, image: i}, {name: side, image: i}, {name: side, image: i}]}"),
                vec![
                    "spec.containers[2].name: Duplicate value: \"side\"".into(),
                    "spec.initContainers[0].name: Duplicate value: \"main\"".into(),
                ],
            ),
            ("image required", pod("{containers: [{name: a}]}"), vec!["spec.containers[0].image: Required value".into()]),
            ("containers required", pod("{containers: []}"), vec!["spec.containers: Required value".into()]),
            (
                "duplicate host port: protocol/hostIP/port after defaulting",
                pod("{containers: [{name: a, image: i, ports: [{containerPort: 1, hostPort: 9000, hostIP: 10.0.0.1}, {containerPort: 2, hostPort: 9000, protocol: UDP}]}, {name: b, image: i, ports: [{containerPort: 3, hostPort: 9000, hostIP: 10.0.0.1, protocol: TCP}]}]}"),
                vec!["spec.containers[1].ports[0].hostPort: Duplicate value: \"TCP/10.0.0.1/9000\"".into()],
            ),
            (
                "hostNetwork needs hostPort == containerPort; an unset hostPort is defaulted",
                pod("{hostNetwork: true, containers: [{name: a, image: i, ports: [{containerPort: 53}, {containerPort: 443, hostPort: 8443}]}]}"),
                vec!["spec.containers[0].ports[1].hostPort: Invalid value: 8443: must match `containerPort` when `hostNetwork` is true".into()],
            ),
            (
                "extended resource request without limit",
                pod("{containers: [{name: a, image: i, resources: {requests: {acme.io/fpga: 1}}}]}"),
                vec!["spec.containers[0].resources.limits: Required value: Limit must be set for non overcommitable resources".into()],
            ),
            (
                "extended resource request differs from limit",
                pod("{containers: [{name: a, image: i, resources: {requests: {acme.io/fpga: 3}, limits: {acme.io/fpga: 4}}}]}"),
                vec!["spec.containers[0].resources.requests: Invalid value: \"3\": must be equal to acme.io/fpga limit of 4".into()],
            ),
            (
                "fractional extended resource, request defaulted from the limit",
                pod("{containers: [{name: a, image: i, resources: {limits: {acme.io/fpga: 1500m}}}]}"),
                vec![
                    "spec.containers[0].resources.limits[acme.io/fpga]: Invalid value: \"1500m\": must be an integer".into(),
                    "spec.containers[0].resources.requests[acme.io/fpga]: Invalid value: \"1500m\": must be an integer".into(),
                ],
            ),
            (
                "unqualified unknown and non-container resources",
                pod("{containers: [{name: a, image: i, resources: {requests: {fpga: 1, pods: 1}}}]}"),
                vec![
                    "spec.containers[0].resources.requests[fpga]: Invalid value: \"fpga\": must be a standard resource type or fully qualified".into(),
                    "spec.containers[0].resources.requests[fpga]: Invalid value: \"fpga\": must be a standard resource for containers".into(),
                    "spec.containers[0].resources.requests[pods]: Invalid value: \"pods\": must be a standard resource for containers".into(),
                ],
            ),
            (
                "hugepages: whole pages, equal request and limit, next to cpu or memory",
                pod("{containers: [{name: a, image: i, resources: {limits: {hugepages-2Mi: 3Mi}}}]}"),
                vec![
                    "spec.containers[0].resources.limits[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi".into(),
                    "spec.containers[0].resources.requests[hugepages-2Mi]: Invalid value: \"3Mi\": 3Mi is not positive integer multiple of hugepages-2Mi".into(),
                    "spec.containers[0].resources: Forbidden: HugePages require cpu or memory".into(),
                ],
            ),
            (
                "cpu request above its limit",
                pod("{containers: [{name: a, image: i, resources: {requests: {cpu: 1500m}, limits: {cpu: 1}}}]}"),
                vec!["spec.containers[0].resources.requests: Invalid value: \"1500m\": must be less than or equal to cpu limit of 1".into()],
            ),
            (
                "empty node selector terms",
                pod(&format!("{{affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: []}}}}}}, containers: [{C}]}}")),
                vec!["spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Required value: must have at least one node selector term".into()],
            ),
            (
                "Gt with a non-integer value is accepted; Lt with two values is not",
                pod(&format!("{{affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [{{matchExpressions: [{{key: gen, operator: Gt, values: [v2]}}, {{key: gen, operator: Lt, values: ['1', '2']}}]}}]}}}}}}, containers: [{C}]}}")),
                vec!["spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[1].values: Required value: must be specified single value when `operator` is 'Lt' or 'Gt'".into()],
            ),
            (
                "unknown node selector and label selector operators",
                pod(&format!("{{affinity: {{nodeAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: {{nodeSelectorTerms: [{{matchExpressions: [{{key: k, operator: Eq, values: [v]}}]}}]}}}}, podAffinity: {{requiredDuringSchedulingIgnoredDuringExecution: [{{topologyKey: zone, labelSelector: {{matchExpressions: [{{key: k, operator: Has}}]}}}}]}}}}, containers: [{C}]}}")),
                vec![
                    "spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Invalid value: \"Eq\": not a valid selector operator".into(),
                    "spec.affinity.podAffinity.requiredDuringSchedulingIgnoredDuringExecution[0].labelSelector.matchExpressions[0].operator: Invalid value: \"Has\": not a valid selector operator".into(),
                ],
            ),
            (
                "pod-level resources: request above limit, container limit above pod limit, aggregate above request",
                pod("{resources: {requests: {memory: 1Gi}, limits: {memory: 512Mi}}, containers: [{name: a, image: i, resources: {requests: {memory: 2Gi}}}, {name: b, image: i, resources: {limits: {memory: 768Mi}}}]}"),
                vec![
                    "spec.resources.requests: Invalid value: \"1Gi\": must be less than or equal to memory limit of 512Mi".into(),
                    "spec.resources.requests[memory]: Invalid value: \"1Gi\": must be greater than or equal to aggregate container requests of 2816Mi".into(),
                    "spec.resources.containers[1][memory].limits: Invalid value: \"768Mi\": must be less than or equal to pod limits of 512Mi".into(),
                ],
            ),
            (
                "pod-level limits beside container hugepages: no pod-level hugepages request is defaulted",
                pod("{resources: {limits: {cpu: 2, memory: 2Gi}}, containers: [{name: a, image: i, resources: {requests: {cpu: 1, hugepages-2Mi: 4Mi}, limits: {hugepages-2Mi: 4Mi}}}]}"),
                vec![],
            ),
            (
                "pod-level resources: unsupported names",
                pod(&format!("{{resources: {{limits: {{ephemeral-storage: 1Gi, acme.io/fpga: 1}}}}, containers: [{C}]}}")),
                vec![
                    "spec.resources.limits[acme.io/fpga]: Unsupported value: \"acme.io/fpga\": supported values: \"cpu\", \"hugepages-\", \"memory\"".into(),
                    "spec.resources.limits[ephemeral-storage]: Unsupported value: \"ephemeral-storage\": supported values: \"cpu\", \"hugepages-\", \"memory\"".into(),
                ],
            ),
            (
                "spread constraints: policies, duplicates, minDomains with ScheduleAnyway",
                pod(&format!("{{topologySpreadConstraints: [{{maxSkew: 1, topologyKey: rack, whenUnsatisfiable: ScheduleAnyway, minDomains: 3, nodeTaintsPolicy: Always}}, {{maxSkew: 2, topologyKey: rack, whenUnsatisfiable: ScheduleAnyway}}], containers: [{C}]}}")),
                vec![
                    "spec.topologySpreadConstraints[0].{topologyKey, whenUnsatisfiable}: Duplicate value: \"{rack, ScheduleAnyway}\"".into(),
                    "spec.topologySpreadConstraints[0].minDomains: Invalid value: 3: can only use minDomains if whenUnsatisfiable=DoNotSchedule, not ScheduleAnyway".into(),
                    "spec.topologySpreadConstraints[0].nodeTaintsPolicy: Unsupported value: \"Always\": supported values: \"Honor\", \"Ignore\"".into(),
                ],
            ),
            (
                "matchLabelKeys naming a selector key the pod has; a key the pod lacks merges nothing",
                format!("apiVersion: v1\nkind: Pod\nmetadata: {{name: p, labels: {{tier: web}}}}\nspec: {{topologySpreadConstraints: [{{maxSkew: 1, topologyKey: zone, whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{tier: web, team: a}}}}, matchLabelKeys: [team, tier]}}], containers: [{C}]}}\n"),
                vec!["spec.topologySpreadConstraints[0][1]: Invalid value: \"tier\": exists in both matchLabelKeys and labelSelector".into()],
            ),
            (
                "taints: upstream's metadata.taints path, all key messages, duplicates as JSON",
                "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {taints: [{key: '', effect: NoSchedule}, {key: gpu, value: a, effect: NoExecute}, {key: gpu, value: b, effect: NoExecute}]}\n".into(),
                vec![
                    "metadata.taints[0].key: Invalid value: \"\": name part must be non-empty".into(),
                    format!("metadata.taints[0].key: Invalid value: \"\": {name_part}"),
                    "metadata.taints[2]: Duplicate value: {\"Key\":\"gpu\",\"Value\":\"b\",\"Effect\":\"NoExecute\",\"TimeAdded\":null}: taints must be unique by key and effect pair".into(),
                ],
            ),
            (
                "node status quantities",
                "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {capacity: {pods: 2500m}, allocatable: {memory: -1Gi}}\n".into(),
                vec![
                    "status.capacity.pods: Invalid value: \"2500m\": must be an integer".into(),
                    "status.allocatable.memory: Invalid value: \"-1Gi\": must be greater than or equal to 0".into(),
                ],
            ),
        ];
        for (name, input, want) in rows {
            let got = errors_of(&input);
            let mut sorted_got = got.clone();
            sorted_got.sort();
            let mut sorted_want = want.clone();
            sorted_want.sort();
            assert_eq!(sorted_got, sorted_want, "{name}\n{input}");
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
