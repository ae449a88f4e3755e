//! ExpansionTemplates: a workload is also reviewed as the resource it creates (a
//! Deployment as its Pod), so pod-level constraints apply to workloads, as Gatekeeper's
//! `expansion.gatekeeper.sh` ExpansionTemplate does it.

use serde_json::{json, Map, Value};

use super::constraint::EnforcementAction;
use super::GatekeeperError;

#[derive(Debug, Clone, PartialEq)]
pub struct ExpansionTemplate {
    pub name: String,
    /// `(groups, kinds)` the template applies to.
    pub apply_to: Vec<(Vec<String>, Vec<String>)>,
    /// Dotted path of the embedded template, e.g. `spec.template`.
    pub template_source: String,
    /// `(group, version, kind)` of the generated resource.
    pub generated: (String, String, String),
    /// Overrides the constraints' action for violations of the generated resource.
    pub enforcement_action: Option<EnforcementAction>,
}

fn strs(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
}

impl ExpansionTemplate {
    pub fn from_value(v: &Value) -> Result<ExpansionTemplate, GatekeeperError> {
        let name = v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or("(unnamed)").to_string();
        let err = |m: &str| GatekeeperError::Input(format!("ExpansionTemplate {name}: {m}"));
        let spec = v.get("spec").ok_or_else(|| err("spec is required"))?;
        let apply_to: Vec<_> = spec
            .get("applyTo")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|a| (strs(a.get("groups")), strs(a.get("kinds"))))
            .collect();
        if apply_to.is_empty() {
            return Err(err("spec.applyTo is required"));
        }
        let template_source =
            spec.get("templateSource").and_then(Value::as_str).ok_or_else(|| err("spec.templateSource is required"))?;
        let gvk = spec.get("generatedGVK").ok_or_else(|| err("spec.generatedGVK is required"))?;
        let s = |k: &str| gvk.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
        if s("kind").is_empty() {
            return Err(err("spec.generatedGVK.kind is required"));
        }
        let enforcement_action = match spec.get("enforcementAction").and_then(Value::as_str) {
            None | Some("") => None,
            Some("deny") => Some(EnforcementAction::Deny),
            Some("dryrun") => Some(EnforcementAction::Dryrun),
            Some("warn") => Some(EnforcementAction::Warn),
            Some(other) => return Err(err(&format!("spec.enforcementAction: {other:?} is not deny, dryrun or warn"))),
        };
        Ok(ExpansionTemplate {
            name,
            apply_to,
            template_source: template_source.to_string(),
            generated: (s("group"), s("version"), s("kind")),
            enforcement_action,
        })
    }

    fn applies(&self, group: &str, kind: &str) -> bool {
        let any = |list: &[String], v: &str| list.iter().any(|x| x == "*" || x == v);
        self.apply_to.iter().any(|(groups, kinds)| any(groups, group) && any(kinds, kind))
    }
}

/// Gatekeeper's commonly deployed expansion templates: `expand-deployments` (DaemonSet,
/// Deployment, ReplicaSet, StatefulSet, Job, ReplicationController → Pod from
/// `spec.template`) and `expand-cronjobs` (CronJob → Pod from
/// `spec.jobTemplate.spec.template`).
pub fn default_expansion_templates() -> Vec<ExpansionTemplate> {
    let pod = || (String::new(), "v1".to_string(), "Pod".to_string());
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    vec![
        ExpansionTemplate {
            name: "expand-deployments".into(),
            apply_to: vec![
                (s(&["apps"]), s(&["DaemonSet", "Deployment", "ReplicaSet", "StatefulSet"])),
                (s(&[""]), s(&["ReplicationController"])),
                (s(&["batch"]), s(&["Job"])),
            ],
            template_source: "spec.template".into(),
            generated: pod(),
            enforcement_action: None,
        },
        ExpansionTemplate {
            name: "expand-cronjobs".into(),
            apply_to: vec![(s(&["batch"]), s(&["CronJob"]))],
            template_source: "spec.jobTemplate.spec.template".into(),
            generated: pod(),
            enforcement_action: None,
        },
    ]
}

/// One generated review per applicable template: `(template, action override, review)`.
/// The generated object takes the embedded template's metadata and spec, the parent's
/// namespace, and (if the template names none) the parent's name; operation and userInfo
/// are the parent request's.
pub fn expand(templates: &[ExpansionTemplate], review: &Value) -> Vec<(String, Option<EnforcementAction>, Value)> {
    let group = review.pointer("/kind/group").and_then(Value::as_str).unwrap_or_default();
    let kind = review.pointer("/kind/kind").and_then(Value::as_str).unwrap_or_default();
    let Some(parent) = review.get("object").filter(|o| o.is_object()) else { return Vec::new() };
    let mut out = Vec::new();
    for t in templates.iter().filter(|t| t.applies(group, kind)) {
        let pointer = format!("/{}", t.template_source.replace('.', "/"));
        let Some(source) = parent.pointer(&pointer).and_then(Value::as_object) else { continue };
        let parent_ns = parent.pointer("/metadata/namespace").and_then(Value::as_str).unwrap_or_default();
        let parent_name = parent.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default();
        let mut metadata = source.get("metadata").and_then(Value::as_object).cloned().unwrap_or_default();
        if !parent_ns.is_empty() {
            metadata.insert("namespace".into(), Value::from(parent_ns));
        }
        if !metadata.get("name").is_some_and(Value::is_string) {
            metadata.insert("name".into(), Value::from(parent_name));
        }
        let (g, v, k) = &t.generated;
        let api_version = if g.is_empty() { v.clone() } else { format!("{g}/{v}") };
        let mut obj = Map::new();
        obj.insert("apiVersion".into(), Value::from(api_version));
        obj.insert("kind".into(), Value::from(k.clone()));
        obj.insert("metadata".into(), Value::Object(metadata.clone()));
        for (key, val) in source {
            if key != "metadata" {
                obj.insert(key.clone(), val.clone());
            }
        }
        let mut generated_map = Map::new();
        generated_map.insert("kind".into(), json!({"group": g, "version": v, "kind": k}));
        generated_map.insert("name".into(), metadata.get("name").cloned().unwrap_or(Value::Null));
        generated_map.insert("object".into(), Value::Object(obj));
        if !parent_ns.is_empty() {
            generated_map.insert("namespace".into(), Value::from(parent_ns));
        }
        for key in ["operation", "userInfo", "uid", "dryRun"] {
            if let Some(v) = review.get(key) {
                generated_map.insert(key.into(), v.clone());
            }
        }
        out.push((t.name.clone(), t.enforcement_action, Value::Object(generated_map)));
    }
    out
}
