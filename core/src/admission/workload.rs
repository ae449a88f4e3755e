//! The object under admission, seen through its pod template: which kind it is, where its pod
//! spec sits, and typed views of the parts each policy reads.
//!
//! Security policies (disallowedTolerations, requiredPlacement) decode only the fields they
//! check, so an unrelated field the core cannot read (an exotic quantity, say) cannot switch
//! them off; a field they need and cannot read is a rejection. The placement simulation decodes
//! the whole template and, when it cannot, warns instead of rejecting.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::request::AdmissionRequest;
use crate::input::documents::{strip_nulls, DocRef, Workload, WorkloadKind, MAX_REPLICAS};
use crate::model::{Affinity, Labels, ObjectMeta, Pod, PodTemplateSpec, Toleration};

/// The fields that decide where a pod may go.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PlacementFields {
    pub node_name: String,
    pub node_selector: Option<Labels>,
    pub affinity: Option<Affinity>,
    pub tolerations: Vec<Toleration>,
    /// Daemon pods with host networking also tolerate network-unavailable.
    pub host_network: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
struct MetaOnly {
    metadata: ObjectMeta,
}

/// The object under admission.
#[derive(Debug, Clone)]
pub struct Target {
    pub kind: WorkloadKind,
    pub namespace: String,
    pub name: String,
    /// The object's own labels.
    pub labels: Labels,
    /// The pod template's labels (the object's own for a Pod).
    pub template_labels: Labels,
    /// A Pod created by a controller (an ownerReference with `controller: true`).
    pub owned_by_controller: bool,
    /// The object as received (for the mutated copy; `null` members are removed from objects
    /// of kinds that are never mutated).
    pub object: Value,
    /// The object with `null` members removed, for decoding; `None` when it has none.
    stripped: Option<Value>,
}

/// A workload object that cannot be read; each names the field it is about.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WorkloadError {
    #[error("request.object: expected the {kind} as a mapping")]
    NotAMapping { kind: String },
    /// A field that does not decode; `message` is the decoder's.
    #[error("{field}: {message}")]
    Decode { field: String, message: String },
    #[error("{field}: expected an integer, found {found}")]
    NotAnInteger { field: String, found: Value },
    #[error("{field}: {replicas} is outside 0..={MAX_REPLICAS}, the simulation's limit")]
    TooManyReplicas { field: String, replicas: i64 },
    /// A member on the way to the pod spec that is not a mapping (`spec: [1, 2]`): the API
    /// server refuses to decode such an object. The path and value, then the API server's words.
    #[error("request.object.{field}: {value}: {kind} in version \"{version}\" cannot be handled as a {kind}: json: cannot unmarshal {json_type} into Go struct field {kind}.{field} of type {go_type}")]
    Shape { field: String, value: Value, kind: String, version: String, json_type: &'static str, go_type: &'static str },
}

/// The members from the object to its pod spec, each with the Go type the API server decodes
/// it into (`k8s.io/api`), for [`WorkloadError::Shape`].
fn spec_members(kind: WorkloadKind) -> &'static [(&'static str, &'static str)] {
    const TEMPLATE: (&str, &str) = ("template", "v1.PodTemplateSpec");
    const POD_SPEC: (&str, &str) = ("spec", "v1.PodSpec");
    match kind {
        WorkloadKind::Pod => &[("metadata", "v1.ObjectMeta"), POD_SPEC],
        WorkloadKind::Deployment => &[("metadata", "v1.ObjectMeta"), ("spec", "v1.DeploymentSpec"), TEMPLATE, POD_SPEC],
        WorkloadKind::ReplicaSet => &[("metadata", "v1.ObjectMeta"), ("spec", "v1.ReplicaSetSpec"), TEMPLATE, POD_SPEC],
        WorkloadKind::StatefulSet => {
            &[("metadata", "v1.ObjectMeta"), ("spec", "v1.StatefulSetSpec"), TEMPLATE, POD_SPEC]
        }
        WorkloadKind::DaemonSet => &[("metadata", "v1.ObjectMeta"), ("spec", "v1.DaemonSetSpec"), TEMPLATE, POD_SPEC],
        WorkloadKind::Job => &[("metadata", "v1.ObjectMeta"), ("spec", "v1.JobSpec"), TEMPLATE, POD_SPEC],
        WorkloadKind::ReplicationController => {
            &[("metadata", "v1.ObjectMeta"), ("spec", "v1.ReplicationControllerSpec"), TEMPLATE, POD_SPEC]
        }
        WorkloadKind::CronJob => &[
            ("metadata", "v1.ObjectMeta"),
            ("spec", "v1.CronJobSpec"),
            ("jobTemplate", "v1.JobTemplateSpec"),
            ("spec", "v1.JobSpec"),
            TEMPLATE,
            POD_SPEC,
        ],
    }
}

/// Go's name for a JSON value's type in `json: cannot unmarshal X into ...`.
fn go_json_type(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The first member on the way to the pod spec that is present, not `null`, and not a
/// mapping; the object's own `metadata` is checked too. `null` reads as absent, as the API
/// server's decoder reads it.
fn check_shape(object: &Value, kind: WorkloadKind, kind_name: &str) -> Result<(), WorkloadError> {
    let version = object
        .get("apiVersion")
        .and_then(Value::as_str)
        .map_or("v1", |v| v.rsplit('/').next().unwrap_or(v))
        .to_string();
    let members = spec_members(kind);
    // `metadata` sits beside the spec chain, at the top.
    let (meta, chain) = members.split_first().map_or((None, members), |(m, rest)| (Some(m), rest));
    let mut steps: Vec<(String, &Value, &'static str)> = Vec::new();
    if let (Some((name, go_type)), Some(v)) = (meta, object.get("metadata")) {
        steps.push((name.to_string(), v, go_type));
    }
    let mut cur = object;
    let mut field = String::new();
    for (name, go_type) in chain {
        let Some(next) = cur.get(*name) else { break };
        if !field.is_empty() {
            field.push('.');
        }
        field.push_str(name);
        steps.push((field.clone(), next, go_type));
        if !next.is_object() {
            break;
        }
        cur = next;
    }
    for (field, v, go_type) in steps {
        if !(v.is_object() || v.is_null()) {
            return Err(WorkloadError::Shape {
                field,
                value: v.clone(),
                kind: kind_name.to_string(),
                version,
                json_type: go_json_type(v),
                go_type,
            });
        }
    }
    Ok(())
}

impl Target {
    /// `None` when the request is not about a workload Placement knows (or has no object,
    /// as for DELETE); `Err` when the object is not a mapping.
    pub fn from_request(req: &AdmissionRequest) -> Option<Result<Target, WorkloadError>> {
        Self::from_owned_request(req.clone())
    }

    /// [`Target::from_request`] without copying the object.
    pub fn from_owned_request(mut req: AdmissionRequest) -> Option<Result<Target, WorkloadError>> {
        let kind_name = if req.kind.kind.is_empty() {
            req.object.get("kind").and_then(Value::as_str).unwrap_or_default()
        } else {
            req.kind.kind.as_str()
        };
        let kind = WorkloadKind::parse(kind_name)?;
        if req.object.is_null() {
            return None;
        }
        if !req.object.is_object() {
            return Some(Err(WorkloadError::NotAMapping { kind: kind_name.to_string() }));
        }
        if let Err(e) = check_shape(&req.object, kind, kind.as_str()) {
            return Some(Err(e));
        }
        let mut object = std::mem::take(&mut req.object);
        // Only a DaemonSet may be mutated and returned: keep it as received and decode from a
        // copy; any other object is stripped in place.
        let mut stripped = None;
        if has_null(&object) {
            if kind == WorkloadKind::DaemonSet {
                let mut v = object.clone();
                strip_nulls(&mut v);
                stripped = Some(v);
            } else {
                strip_nulls(&mut object);
            }
        }
        let clean = stripped.as_ref().unwrap_or(&object);
        let meta: MetaOnly = match decode_at(clean, "") {
            Ok(m) => m,
            Err(e) => return Some(Err(e)),
        };
        let metadata = meta.metadata;
        let namespace =
            if !req.namespace.is_empty() { req.namespace.clone() } else { metadata.namespace_or_default().to_string() };
        let name = [&metadata.name, &req.name, &metadata.generate_name]
            .into_iter()
            .find(|n| !n.is_empty())
            .cloned()
            .unwrap_or_else(|| "unnamed".into());
        let owned_by_controller = clean
            .pointer("/metadata/ownerReferences")
            .and_then(Value::as_array)
            .is_some_and(|refs| refs.iter().any(|r| r.get("controller").and_then(Value::as_bool) == Some(true)));
        let mut target = Target {
            kind,
            namespace,
            name,
            labels: metadata.labels,
            template_labels: Labels::new(),
            owned_by_controller,
            object,
            stripped,
        };
        target.template_labels = match kind {
            WorkloadKind::Pod => target.labels.clone(),
            _ => {
                let ptr = format!("{}/metadata/labels", pointer(kind.template_path()));
                match target.clean().pointer(&ptr) {
                    Some(v) => match decode_at::<Labels>(v, &format!("{}.metadata.labels", kind.template_path())) {
                        Ok(l) => l,
                        Err(e) => return Some(Err(e)),
                    },
                    None => Labels::new(),
                }
            }
        };
        Some(Ok(target))
    }

    /// `Deployment ml/train`
    pub fn describe(&self) -> String {
        format!("{} {}/{}", self.kind.as_str(), self.namespace, self.name)
    }

    /// `spec.template.spec` (the pod spec's path in this kind, for messages).
    pub fn spec_path(&self) -> &'static str {
        self.kind.pod_spec_path()
    }

    /// The object as the policies read it: without `null` members.
    fn clean(&self) -> &Value {
        self.stripped.as_ref().unwrap_or(&self.object)
    }

    fn spec_value(&self) -> Option<&Value> {
        self.clean().pointer(&pointer(self.kind.pod_spec_path()))
    }

    /// The object or its template carries labels matching `f`.
    pub fn labels_match(&self, f: impl Fn(&Labels) -> bool) -> bool {
        f(&self.labels) || f(&self.template_labels)
    }

    /// Node selector, affinity and tolerations of the pod template.
    pub fn placement_fields(&self) -> Result<PlacementFields, WorkloadError> {
        match self.spec_value() {
            Some(v) => decode_at(v, self.spec_path()),
            None => Ok(PlacementFields::default()),
        }
    }

    /// The whole workload, as the simulation reads it.
    pub fn workload(&self) -> Result<Workload, WorkloadError> {
        let kind = self.kind;
        let template: PodTemplateSpec = match kind {
            WorkloadKind::Pod => {
                let pod: Pod = decode_at(self.clean(), "")?;
                PodTemplateSpec { metadata: pod.metadata, spec: pod.spec }
            }
            _ => match self.clean().pointer(&pointer(kind.template_path())) {
                Some(v) => decode_at(v, kind.template_path())?,
                None => PodTemplateSpec::default(),
            },
        };
        let int = |ptr: &str, field: &str| -> Result<Option<i64>, WorkloadError> {
            match self.clean().pointer(ptr) {
                None => Ok(None),
                Some(v) => v
                    .as_i64()
                    .map(Some)
                    .ok_or_else(|| WorkloadError::NotAnInteger { field: field.to_string(), found: v.clone() }),
            }
        };
        let (replicas, field) = match kind {
            WorkloadKind::Pod | WorkloadKind::DaemonSet => (1, "spec.replicas"),
            WorkloadKind::Job => (
                job_pods(int("/spec/parallelism", "spec.parallelism")?, int("/spec/completions", "spec.completions")?),
                "spec.parallelism",
            ),
            WorkloadKind::CronJob => (
                job_pods(
                    int("/spec/jobTemplate/spec/parallelism", "spec.jobTemplate.spec.parallelism")?,
                    int("/spec/jobTemplate/spec/completions", "spec.jobTemplate.spec.completions")?,
                ),
                "spec.jobTemplate.spec.parallelism",
            ),
            _ => (int("/spec/replicas", "spec.replicas")?.unwrap_or(1), "spec.replicas"),
        };
        if !(0..=MAX_REPLICAS).contains(&replicas) {
            return Err(WorkloadError::TooManyReplicas { field: field.to_string(), replicas });
        }
        let doc = DocRef {
            index: 1,
            source: "request.object".into(),
            kind: kind.as_str().into(),
            namespace: Some(self.namespace.clone()),
            name: self.name.clone(),
        };
        let selector = match (kind, self.clean().pointer("/spec/selector")) {
            (WorkloadKind::Pod | WorkloadKind::CronJob, _) | (_, None) => None,
            (WorkloadKind::ReplicationController, Some(v)) => {
                let labels: Labels = decode_at(v, "spec.selector")?;
                Some(crate::model::LabelSelector { match_labels: labels, ..Default::default() })
            }
            (_, Some(v)) => Some(decode_at(v, "spec.selector")?),
        };
        Ok(Workload {
            kind,
            api_version: self.clean().get("apiVersion").and_then(serde_json::Value::as_str).unwrap_or_default().into(),
            namespace: self.namespace.clone(),
            name: self.name.clone(),
            doc,
            replicas,
            template,
            selector,
            // Admission judges the object as a new one: nothing of a snapshot's state.
            metadata: Default::default(),
            pod_status: Default::default(),
            state: Default::default(),
        })
    }

    /// The JSON Patch (RFC 6902) that [`Target::add_tolerations`] amounts to, for a
    /// non-mutating deployment to show: `add` to the end of the existing tolerations, or of the
    /// whole list when the pod spec has none.
    pub fn tolerations_patch(&self, add: &[Toleration]) -> Value {
        let list = format!("{}/tolerations", pointer(self.kind.pod_spec_path()));
        let values = add.iter().filter_map(|t| serde_json::to_value(t).ok());
        if self.object.pointer(&list).is_some_and(Value::is_array) {
            Value::Array(
                values.map(|v| serde_json::json!({"op": "add", "path": format!("{list}/-"), "value": v})).collect(),
            )
        } else {
            serde_json::json!([{"op": "add", "path": list, "value": values.collect::<Vec<_>>()}])
        }
    }

    /// Appends tolerations to the pod template, in both the received object (the mutation the
    /// host turns into a patch) and the copy the policies read.
    pub fn add_tolerations(&mut self, add: &[Toleration]) {
        let ptr = pointer(self.kind.pod_spec_path());
        for v in std::iter::once(&mut self.object).chain(self.stripped.as_mut()) {
            if let Some(spec) = ensure_object_at(v, &ptr) {
                let entry = spec.entry("tolerations").or_insert_with(|| Value::Array(Vec::new()));
                if !entry.is_array() {
                    *entry = Value::Array(Vec::new());
                }
                if let Value::Array(list) = entry {
                    list.extend(add.iter().filter_map(|t| serde_json::to_value(t).ok()));
                }
            }
        }
    }
}

/// Whether `v` has a `null` anywhere.
fn has_null(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Array(a) => a.iter().any(has_null),
        Value::Object(m) => m.values().any(has_null),
        _ => false,
    }
}

/// Pods a Job runs at once: parallelism (default 1), capped by completions when set.
fn job_pods(parallelism: Option<i64>, completions: Option<i64>) -> i64 {
    let p = parallelism.unwrap_or(1);
    completions.map_or(p, |c| p.min(c))
}

/// `spec.template.spec` -> `/spec/template/spec`; `` -> ``.
pub fn pointer(dotted: &str) -> String {
    if dotted.is_empty() {
        String::new()
    } else {
        format!("/{}", dotted.replace('.', "/"))
    }
}

/// The mapping at `ptr`, creating empty mappings on the way; `None` if a non-mapping is in
/// the way.
fn ensure_object_at<'a>(v: &'a mut Value, ptr: &str) -> Option<&'a mut Map<String, Value>> {
    let mut cur = v;
    for part in ptr.split('/').filter(|p| !p.is_empty()) {
        let map = cur.as_object_mut()?;
        cur = map.entry(part.to_string()).or_insert_with(|| Value::Object(Map::new()));
        if cur.is_null() {
            *cur = Value::Object(Map::new());
        }
    }
    cur.as_object_mut()
}

/// Decodes a typed value, naming the failing field under `prefix`. The path is tracked only
/// on the error path: a second, slower pass when the fast one fails.
pub fn decode_at<T: DeserializeOwned>(value: &Value, prefix: &str) -> Result<T, WorkloadError> {
    if let Ok(v) = T::deserialize(value) {
        return Ok(v);
    }
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = crate::input::field::FieldPath::under(prefix, &e.path().to_string());
        WorkloadError::Decode { field: field.to_string(), message: e.into_inner().to_string() }
    })
}
