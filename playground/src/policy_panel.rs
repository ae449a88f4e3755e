//! The playground's admission panel: the playground's workloads sent through the Kubewarden
//! policy ([`placement_core::admission::Validator`]) as the API server would send them, with settings
//! the user edits plus any Gatekeeper templates and constraints pasted beside them, the
//! verdict for every workload, and the `ValidationResponse` JSON the policy module returns.
//!
//! The Rego engine behind Gatekeeper roughly doubles the playground's WebAssembly, so the page
//! does not link this module's review functions: they run in a second module, loaded on the
//! first policy run, that the page talks to in JSON ([`review_json`]). The request names the
//! workloads by [`ReviewTarget`], so both modules agree on which document is which.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::evaluation::{Editor, Evaluation};
use crate::share::SharedState;
use placement_core::admission;
use placement_core::gatekeeper::PolicySet;
use placement_core::input::documents::split_documents;

/// Settings that turn on the policies that need no site-specific names, with the
/// playground's Nodes as the inventory.
pub fn default_settings(state: &SharedState) -> String {
    let nodes: Vec<Value> = split_documents(&state.nodes, "")
        .map(|docs| {
            docs.into_iter()
                .filter(|d| d.doc.kind == "Node")
                .map(|d| {
                    // The inventory needs what placement reads; keep the JSON short.
                    let v = d.value;
                    let mut node =
                        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": v["metadata"]["name"]}});
                    if let Some(l) = v["metadata"].get("labels") {
                        node["metadata"]["labels"] = l.clone();
                    }
                    if let Some(s) = v.get("spec") {
                        node["spec"] = s.clone();
                    }
                    if let Some(a) = v.get("status").and_then(|s| s.get("allocatable")) {
                        node["status"] = json!({"allocatable": a});
                    }
                    node
                })
                .collect()
        })
        .unwrap_or_default();
    let settings = json!({
        "nodes": nodes,
        "schedulable": {"mode": "enforce"},
        "disallowedTolerations": {"keyPrefixes": ["node-role.kubernetes.io/"], "exemptNamespaces": ["kube-system"]},
        "daemonsetCoverage": {"mode": "warn", "daemonSets": [{"name": "*"}]},
    });
    serde_json::to_string_pretty(&settings).unwrap_or_default()
}

/// The policy's verdict for one workload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PolicyVerdict {
    pub accepted: bool,
    pub message: Option<String>,
    pub warnings: Vec<String>,
    /// The `ValidationResponse`, pretty-printed.
    pub response_json: String,
}

/// The `AdmissionRequest` for creating `object`, as the API server sends it.
pub fn admission_request(object: &Value) -> Value {
    let kind = object["kind"].as_str().unwrap_or_default();
    let api_version = object["apiVersion"].as_str().unwrap_or("v1");
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    let resource = format!("{}s", kind.to_lowercase());
    let gvk = json!({"group": group, "version": version, "kind": kind});
    let gvr = json!({"group": group, "version": version, "resource": resource});
    json!({
        "uid": "00000000-0000-0000-0000-000000000000",
        "kind": gvk, "resource": gvr, "requestKind": gvk, "requestResource": gvr,
        "name": object["metadata"]["name"],
        "namespace": object["metadata"].get("namespace").cloned().unwrap_or(json!("default")),
        "operation": "CREATE",
        "userInfo": {"username": "placement-playground", "groups": ["system:authenticated"]},
        "object": object,
        "dryRun": true,
    })
}

/// The source name Gatekeeper errors carry (`Gatekeeper: document 2 ...`).
pub const GATEKEEPER_SOURCE: &str = "Gatekeeper";

/// The settings' `gatekeeper` member for the ConstraintTemplates and Constraints pasted in
/// the panel, `None` when there are none. They are compiled here first so that a bad
/// template is reported with its name and Rego line, as `placement verify` reports it,
/// rather than as a settings error about the whole member.
pub fn gatekeeper_member(text: &str) -> Result<Option<Value>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let set = PolicySet::parse(text, GATEKEEPER_SOURCE).map_err(|e| e.to_string())?;
    if set.templates.is_empty() && set.constraints.is_empty() {
        return Err(format!("{GATEKEEPER_SOURCE}: no ConstraintTemplate or Constraint found"));
    }
    let docs = split_documents(text, GATEKEEPER_SOURCE).map_err(|e| e.to_string())?;
    let (mut templates, mut constraints) = (Vec::new(), Vec::new());
    for d in docs {
        if d.doc.kind == "ConstraintTemplate" {
            templates.push(d.value);
        } else if d.api_version.starts_with("constraints.gatekeeper.sh/") {
            constraints.push(d.value);
        }
    }
    Ok(Some(json!({"templates": templates, "constraints": constraints})))
}

/// The settings the policy receives: the panel's JSON, with the pasted Gatekeeper policies
/// as its `gatekeeper.templates` and `gatekeeper.constraints` (they replace those written in
/// the JSON; the member's other settings, `enableK8sNativeValidation` and
/// `defaultExpansions`, stay).
pub fn effective_settings(settings: &str, gatekeeper: &str) -> Result<Value, String> {
    let mut settings: Value =
        serde_json::from_str(settings).map_err(|e| format!("settings are not valid JSON: {e}"))?;
    if let Some(Value::Object(pasted)) = gatekeeper_member(gatekeeper)? {
        let Some(map) = settings.as_object_mut() else { return Err("settings must be a JSON object".into()) };
        match map.get_mut("gatekeeper") {
            Some(Value::Object(member)) => member.extend(pasted),
            _ => {
                map.insert("gatekeeper".into(), Value::Object(pasted));
            }
        }
    }
    Ok(settings)
}

/// The policy's verdict for one workload of the playground.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WorkloadVerdict {
    /// Index into `eval.workloads`.
    pub workload: usize,
    /// `Deployment default/web`.
    pub label: String,
    pub verdict: PolicyVerdict,
}

/// A workload to review: where its document is, and how to call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewTarget {
    /// In the nodes editor (documents pasted there) rather than the workloads editor.
    #[serde(default)]
    pub in_nodes_editor: bool,
    pub doc_index: usize,
    pub label: String,
}

/// The workloads of `eval`, in order.
pub fn targets(eval: &Evaluation) -> Vec<ReviewTarget> {
    eval.workloads
        .iter()
        .map(|w| ReviewTarget { in_nodes_editor: w.editor == Editor::Nodes, doc_index: w.doc_index, label: w.label() })
        .collect()
}

/// What the page sends to the admission module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ReviewRequest {
    pub state: SharedState,
    pub targets: Vec<ReviewTarget>,
    /// The settings JSON as the user wrote it.
    pub settings: String,
}

/// What the admission module answers: the verdicts, or why there are none.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ReviewResponse {
    Verdicts(Vec<WorkloadVerdict>),
    Error(String),
}

impl ReviewResponse {
    pub fn into_result(self) -> Result<Vec<WorkloadVerdict>, String> {
        match self {
            ReviewResponse::Verdicts(v) => Ok(v),
            ReviewResponse::Error(e) => Err(e),
        }
    }

    /// Reads the module's answer; anything unreadable becomes an error to show.
    pub fn from_json(text: &str) -> ReviewResponse {
        serde_json::from_str(text)
            .unwrap_or_else(|e| ReviewResponse::Error(format!("the admission module answered badly: {e}")))
    }
}

/// The admission module's entry point: a [`ReviewRequest`] in JSON, a [`ReviewResponse`] out.
pub fn review_json(request: &str) -> String {
    let response = match serde_json::from_str::<ReviewRequest>(request) {
        Ok(r) => match review_targets(&r.state, &r.targets, &r.settings) {
            Ok(v) => ReviewResponse::Verdicts(v),
            Err(e) => ReviewResponse::Error(e),
        },
        Err(e) => ReviewResponse::Error(format!("bad request to the admission module: {e}")),
    };
    serde_json::to_string(&response).unwrap_or_default()
}

/// Sends workload `workload` (an index into `eval.workloads`) through the policy with
/// `settings` (JSON text) and the pasted Gatekeeper policies. Settings that are not JSON, or
/// Gatekeeper text that does not compile, are an error; settings the policy rejects come
/// back as its own error response, as in a cluster.
pub fn review(
    state: &SharedState,
    eval: &Evaluation,
    workload: usize,
    settings: &str,
) -> Result<PolicyVerdict, String> {
    let all = review_all(state, eval, settings)?;
    all.into_iter().find(|v| v.workload == workload).map(|v| v.verdict).ok_or_else(|| "no such workload".into())
}

/// Every workload of `eval` through the policy, in order: the admission verdict per workload.
pub fn review_all(state: &SharedState, eval: &Evaluation, settings: &str) -> Result<Vec<WorkloadVerdict>, String> {
    review_targets(state, &targets(eval), settings)
}

/// [`review_all`] for workloads named by [`ReviewTarget`]. One [`admission::Validator`] serves
/// them all, so the settings (node inventory, compiled Rego) are read once, as in the module.
pub fn review_targets(
    state: &SharedState,
    targets: &[ReviewTarget],
    settings: &str,
) -> Result<Vec<WorkloadVerdict>, String> {
    let settings = effective_settings(settings, &state.gatekeeper)?;
    let workload_docs = split_documents(&state.workloads, "").map_err(|e| e.to_string())?;
    let node_docs = || split_documents(&state.nodes, "").unwrap_or_default();
    let mut node_docs_cache = None;
    let mut validator = admission::Validator::new();
    let mut out = Vec::with_capacity(targets.len());
    for (i, t) in targets.iter().enumerate() {
        let docs = if t.in_nodes_editor { node_docs_cache.get_or_insert_with(node_docs) } else { &workload_docs };
        let Some(object) = docs.iter().find(|d| d.doc.index == t.doc_index).map(|d| &d.value) else {
            return Err("the workload's document is gone; edit again".into());
        };
        let payload = json!({"request": admission_request(object), "settings": settings});
        let response = validator.validate(payload.to_string().as_bytes());
        out.push(WorkloadVerdict {
            workload: i,
            label: t.label.clone(),
            verdict: PolicyVerdict {
                accepted: response.accepted,
                message: response.message.clone(),
                warnings: response.warnings.clone().unwrap_or_default(),
                response_json: serde_json::to_string_pretty(&response).unwrap_or_default(),
            },
        });
    }
    Ok(out)
}

/// A starting point for the Gatekeeper box: the library's privileged-container template
/// (Placement's implementation) with a constraint for every namespace but kube-system.
pub const GATEKEEPER_SAMPLE: &str = concat!(
    include_str!("../../gatekeeper/library/pod-security-policy/privileged-containers/template.yaml"),
    "\n---\n",
    r#"apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sPSPPrivilegedContainer
metadata:
  name: psp-privileged-container
spec:
  match:
    kinds:
      - apiGroups: [""]
        kinds: ["Pod"]
    excludedNamespaces: ["kube-system"]
"#
);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::Evaluation;
    use crate::gallery;

    #[test]
    fn the_daemonset_example_goes_through_the_policy() {
        let (nodes, workloads) = gallery::find("daemonset-tainted-pool").unwrap().split();
        let state = SharedState { nodes, workloads, ..Default::default() };
        let eval = Evaluation::of(&state);
        let settings = default_settings(&state);
        let verdict = review(&state, &eval, 0, &settings).unwrap();
        assert!(verdict.response_json.contains("\"accepted\""), "{}", verdict.response_json);
        let all = format!("{:?} {:?}", verdict.message, verdict.warnings);
        assert!(
            all.contains("testkey") || !verdict.accepted || !verdict.warnings.is_empty(),
            "{}",
            verdict.response_json
        );

        assert!(review(&state, &eval, 0, "{").unwrap_err().contains("not valid JSON"));
        let bad = review(&state, &eval, 0, "{\"schedulable\": 3}").unwrap();
        assert!(!bad.accepted);
    }

    const PRIVILEGED: &str = r#"apiVersion: apps/v1
kind: Deployment
metadata: {name: root-shell, namespace: tools}
spec:
  replicas: 1
  selector: {matchLabels: {app: root-shell}}
  template:
    metadata: {labels: {app: root-shell}}
    spec:
      containers:
        - name: shell
          image: busybox
          securityContext: {privileged: true}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: tools}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx
"#;

    // placement-playground depends on placement-core with its default features, so the
    // admission's `gatekeeper` setting (core's `admission-gatekeeper`) is always built here.
    #[test]
    fn pasted_gatekeeper_policies_give_a_verdict_per_workload() {
        let state = SharedState {
            nodes: "kind: Node\napiVersion: v1\nmetadata: {name: a}\n".into(),
            workloads: PRIVILEGED.into(),
            gatekeeper: GATEKEEPER_SAMPLE.into(),
            ..Default::default()
        };
        let eval = Evaluation::of(&state);
        let verdicts = review_all(&state, &eval, "{}").unwrap();
        let rows: Vec<(String, bool)> = verdicts.iter().map(|v| (v.label.clone(), v.verdict.accepted)).collect();
        assert_eq!(
            rows,
            [("Deployment tools/root-shell".to_string(), false), ("Deployment tools/web".to_string(), true)],
            "privileged container rejected through the expansion to its Pod, the other admitted"
        );
        let message = verdicts[0].verdict.message.clone().unwrap_or_default();
        assert!(message.contains("[psp-privileged-container]"), "Gatekeeper's [name] msg wording: {message}");
        assert!(message.contains("Implied by"), "expanded from the Deployment's pod template: {message}");
        assert_eq!(review(&state, &eval, 1, "{}").unwrap(), verdicts[1].verdict);

        // The same answer through the admission module's JSON entry point.
        let request = ReviewRequest { state: state.clone(), targets: targets(&eval), settings: "{}".into() };
        let answer = ReviewResponse::from_json(&review_json(&serde_json::to_string(&request).unwrap()));
        assert_eq!(answer.into_result().unwrap(), verdicts);
        let garbage = ReviewResponse::from_json(&review_json("{"));
        assert!(garbage.into_result().unwrap_err().contains("bad request to the admission module"));
        assert!(ReviewResponse::from_json("").into_result().unwrap_err().contains("answered badly"));
    }

    /// The pasted policies replace the settings' templates and constraints; the member's other
    /// settings (the engine choice, the default expansions) stay.
    #[test]
    fn pasted_policies_keep_the_gatekeeper_settings() {
        let settings =
            r#"{"gatekeeper": {"enableK8sNativeValidation": false, "defaultExpansions": false, "templates": ["x"]}}"#;
        let got = effective_settings(settings, GATEKEEPER_SAMPLE).unwrap();
        let member = &got["gatekeeper"];
        assert_eq!(member["enableK8sNativeValidation"], json!(false));
        assert_eq!(member["defaultExpansions"], json!(false));
        assert_eq!(member["templates"].as_array().map(Vec::len), Some(1));
        assert_eq!(member["templates"][0]["kind"], json!("ConstraintTemplate"));
        assert_eq!(member["constraints"][0]["kind"], json!("K8sPSPPrivilegedContainer"));
        // Without a member in the settings, the pasted policies make one.
        let got = effective_settings("{}", GATEKEEPER_SAMPLE).unwrap();
        assert_eq!(got["gatekeeper"].as_object().map(|m| m.len()), Some(2));
        assert_eq!(effective_settings("{}", "").unwrap(), json!({}));
    }

    #[test]
    fn bad_gatekeeper_text_names_the_template_and_line() {
        let rows = [
            ("", None, "nothing pasted: no gatekeeper member"),
            ("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n", Some("no ConstraintTemplate"), "no policy"),
            ("kind: [", Some("Gatekeeper"), "YAML error names the box"),
        ];
        for (text, want, why) in rows {
            match (gatekeeper_member(text), want) {
                (Ok(None), None) => {}
                (Err(e), Some(w)) => assert!(e.contains(w), "{why}: {e}"),
                (other, _) => panic!("{why}: {other:?}"),
            }
        }
        let broken = GATEKEEPER_SAMPLE.replacen("violation[{", "violation[{{", 1);
        let e = gatekeeper_member(&broken).unwrap_err();
        assert!(e.contains("k8spspprivilegedcontainer"), "names the template: {e}");
        assert!(e.contains("rego:5:39"), "names the Rego line and column: {e}");
        assert!(effective_settings("[]", GATEKEEPER_SAMPLE).unwrap_err().contains("JSON object"));
    }
}
