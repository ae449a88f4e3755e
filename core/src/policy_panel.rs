//! The playground's admission panel: one workload of the playground sent through the
//! Kubewarden policy ([`crate::admission::validate`]) as the API server would send it, with
//! settings the user edits, and the `ValidationResponse` JSON the policy module returns.

use serde_json::{json, Value};

use crate::admission;
use crate::documents::split_documents;
use crate::playground::{Editor, Evaluation};
use crate::share::SharedState;

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
#[derive(Debug, Clone, PartialEq)]
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

/// Sends workload `workload` (an index into `eval.workloads`) through the policy with
/// `settings` (JSON text). Settings that are not JSON are an error; settings the policy
/// rejects come back as its own error response, as in a cluster.
pub fn review(
    state: &SharedState,
    eval: &Evaluation,
    workload: usize,
    settings: &str,
) -> Result<PolicyVerdict, String> {
    let w = eval.workloads.get(workload).ok_or("no such workload")?;
    let text = match w.editor {
        Editor::Nodes => &state.nodes,
        _ => &state.workloads,
    };
    let object = split_documents(text, "")
        .map_err(|e| e.to_string())?
        .into_iter()
        .find(|d| d.doc.index == w.doc_index)
        .map(|d| d.value)
        .ok_or("the workload's document is gone; edit again")?;
    let settings: Value = serde_json::from_str(settings).map_err(|e| format!("settings are not valid JSON: {e}"))?;
    let payload = json!({"request": admission_request(&object), "settings": settings});
    let response = admission::validate(payload.to_string().as_bytes());
    Ok(PolicyVerdict {
        accepted: response.accepted,
        message: response.message.clone(),
        warnings: response.warnings.clone().unwrap_or_default(),
        response_json: serde_json::to_string_pretty(&response).unwrap_or_default(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::examples;
    use crate::playground::evaluate;

    #[test]
    fn the_daemonset_example_goes_through_the_policy() {
        let (nodes, workloads) = examples::find("daemonset-tainted-pool").unwrap().split();
        let state = SharedState { nodes, workloads, ..Default::default() };
        let eval = evaluate(&state);
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
}
