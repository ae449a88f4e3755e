//! The playground's admission module (see `placement_playground::policy_panel`): one function, a
//! review request in JSON and the verdicts in JSON, so that the page needs no shared types
//! with this module beyond the JSON shape both take from `placement-playground`.

use wasm_bindgen::prelude::*;

/// [`placement_playground::policy_panel::review_json`]: a `ReviewRequest` in, a `ReviewResponse` out.
/// It never throws: bad requests come back as a `ReviewResponse::Error`.
#[wasm_bindgen]
pub fn review(request: &str) -> String {
    placement_playground::policy_panel::review_json(request)
}

#[cfg(test)]
mod tests {
    use placement_playground::evaluation::Evaluation;
    use placement_playground::policy_panel::{targets, ReviewRequest, ReviewResponse};
    use placement_playground::share::SharedState;

    /// A template with CEL code only, as the gatekeeper-library's newer ones can be.
    const CEL_ONLY: &str = r#"apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8sreplicacap
spec:
  crd:
    spec:
      names:
        kind: K8sReplicaCap
      validation:
        openAPIV3Schema:
          type: object
          properties:
            max:
              type: integer
  targets:
  - target: admission.k8s.gatekeeper.sh
    code:
    - engine: K8sNativeValidation
      source:
        validations:
        - expression: "!has(variables.anyObject.spec.replicas) || variables.anyObject.spec.replicas <= variables.params.max"
          messageExpression: "'replicas ' + string(variables.anyObject.spec.replicas) + ' over ' + string(variables.params.max)"
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sReplicaCap
metadata:
  name: replica-cap
spec:
  match:
    kinds: [{apiGroups: [apps], kinds: [Deployment]}]
  parameters:
    max: 3
"#;

    const WORKLOADS: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: big, namespace: tools}\nspec:\n  replicas: 5\n  selector: {matchLabels: {app: big}}\n  template:\n    metadata: {labels: {app: big}}\n    spec:\n      containers: [{name: c, image: nginx}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: small, namespace: tools}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: small}}\n  template:\n    metadata: {labels: {app: small}}\n    spec:\n      containers: [{name: c, image: nginx}]\n";

    fn review_with(settings: &str) -> ReviewResponse {
        let state = SharedState {
            nodes: "kind: Node\napiVersion: v1\nmetadata: {name: a}\n".into(),
            workloads: WORKLOADS.into(),
            gatekeeper: CEL_ONLY.into(),
            ..Default::default()
        };
        let eval = Evaluation::of(&state);
        let request = ReviewRequest { targets: targets(&eval), state, settings: settings.into() };
        ReviewResponse::from_json(&super::review(&serde_json::to_string(&request).unwrap()))
    }

    /// This module is built with the policy module's Gatekeeper features: a CEL-only template
    /// pasted in the playground is evaluated, and the settings' `enableK8sNativeValidation`
    /// reaches the pasted templates.
    #[test]
    fn the_admission_module_evaluates_cel_templates() {
        let verdicts = review_with("{}").into_result().unwrap();
        let rows: Vec<(&str, bool, Option<&str>)> =
            verdicts.iter().map(|v| (v.label.as_str(), v.verdict.accepted, v.verdict.message.as_deref())).collect();
        assert_eq!(
            rows,
            [
                ("Deployment tools/big", false, Some("[replica-cap] replicas 5 over 3")),
                ("Deployment tools/small", true, None)
            ]
        );
        let rego_only = review_with(r#"{"gatekeeper": {"enableK8sNativeValidation": false}}"#).into_result().unwrap();
        let message = rego_only[0].verdict.message.clone().unwrap_or_default();
        assert!(
            message
                .contains("ConstraintTemplate k8sreplicacap: no Rego code, and K8sNativeValidation (CEL) is disabled"),
            "{message}"
        );
    }
}
