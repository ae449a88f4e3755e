//! Kubewarden metadata: `metadata.yml` to the JSON that `kwctl annotate` embeds in the
//! module's `io.kubewarden.metadata` custom section, and the annotation itself.

use serde_json::{json, Value};

use crate::wasm::{
    append_custom_section, custom_sections, remove_custom_sections, unexpected_imports, KUBEWARDEN_METADATA,
};

/// Annotations Kubewarden's tooling and Artifact Hub read; all must be present.
pub const REQUIRED_ANNOTATIONS: [&str; 10] = [
    "io.kubewarden.policy.title",
    "io.kubewarden.policy.description",
    "io.kubewarden.policy.author",
    "io.kubewarden.policy.url",
    "io.kubewarden.policy.source",
    "io.kubewarden.policy.license",
    "io.kubewarden.policy.usage",
    "io.artifacthub.displayName",
    "io.artifacthub.resources",
    "io.artifacthub.keywords",
];

/// Custom sections dropped from the artifact: debug info and tool names, which the engine
/// never reads (a strip, as `wasm-opt --strip-debug --strip-producers` would do).
pub fn is_strippable(name: &str) -> bool {
    name == "name" || name == "producers" || name.starts_with(".debug") || name == "target_features"
}

/// `metadata.yml` as Kubewarden's metadata JSON (camelCase, `protocolVersion: "v1"`), checked.
pub fn metadata_json(yaml: &str) -> Result<Value, String> {
    let mut v: Value = serde_yaml::from_str(yaml).map_err(|e| format!("metadata.yml: {e}"))?;
    let Some(m) = v.as_object_mut() else { return Err("metadata.yml: expected a mapping".into()) };
    match m.get("protocolVersion") {
        None => {
            m.insert("protocolVersion".into(), json!("v1"));
        }
        Some(p) if p == "v1" => {}
        Some(p) => return Err(format!("metadata.yml: protocolVersion: the module speaks \"v1\", not {p}")),
    }
    let rules = m.get("rules").and_then(Value::as_array).ok_or("metadata.yml: rules: expected a list")?;
    if rules.is_empty() {
        return Err("metadata.yml: rules: empty".into());
    }
    for (i, r) in rules.iter().enumerate() {
        for field in ["apiGroups", "apiVersions", "resources", "operations"] {
            if r.get(field).and_then(Value::as_array).is_none_or(|a| a.is_empty()) {
                return Err(format!("metadata.yml: rules[{i}].{field}: expected a non-empty list"));
            }
        }
    }
    for field in ["mutating", "backgroundAudit"] {
        if !m.get(field).is_some_and(Value::is_boolean) {
            return Err(format!("metadata.yml: {field}: expected true or false"));
        }
    }
    if m.get("executionMode").and_then(Value::as_str) != Some("kubewarden-wapc") {
        return Err("metadata.yml: executionMode: the module is a waPC policy: expected kubewarden-wapc".into());
    }
    let annotations =
        m.get("annotations").and_then(Value::as_object).ok_or("metadata.yml: annotations: expected a mapping")?;
    for key in REQUIRED_ANNOTATIONS {
        if annotations.get(key).and_then(Value::as_str).is_none_or(|s| s.trim().is_empty()) {
            return Err(format!("metadata.yml: annotations.{key}: missing"));
        }
    }
    if let Some((k, _)) = annotations.iter().find(|(_, v)| !v.is_string()) {
        return Err(format!("metadata.yml: annotations.{k}: annotation values must be strings"));
    }
    Ok(v)
}

/// The annotated module: imports checked, a previous metadata section (and, with `strip`,
/// debug and producer sections) removed, the metadata appended, the result read back.
pub fn annotate(module: &[u8], metadata_yaml: &str, strip: bool) -> Result<Vec<u8>, String> {
    let metadata = metadata_json(metadata_yaml)?;
    let unexpected = unexpected_imports(module).map_err(|e| format!("the module: {e}"))?;
    if !unexpected.is_empty() {
        let list: Vec<String> = unexpected.iter().map(ToString::to_string).collect();
        return Err(format!(
            "the module imports more than waPC's __guest_request/__guest_response/__guest_error: {} \
             (a wasm-bindgen or WASI dependency crept in?)",
            list.join(", ")
        ));
    }
    let base = remove_custom_sections(module, |n| n == KUBEWARDEN_METADATA || (strip && is_strippable(n)))
        .map_err(|e| format!("the module: {e}"))?;
    let payload = serde_json::to_vec(&metadata).map_err(|e| e.to_string())?;
    let out = append_custom_section(&base, KUBEWARDEN_METADATA, &payload);
    // Read it back as Kubewarden will.
    let found = custom_sections(&out, KUBEWARDEN_METADATA).map_err(|e| e.to_string())?;
    let [one] = found.as_slice() else { return Err(format!("{} metadata sections after annotating", found.len())) };
    let back: Value = serde_json::from_slice(one).map_err(|e| e.to_string())?;
    if back != metadata {
        return Err("the metadata read back differs from what was written".into());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wasm::{custom_section_names, PREAMBLE};

    const METADATA: &str = include_str!("../metadata.yml");

    #[test]
    fn metadata_yml_is_complete() {
        let v = metadata_json(METADATA).unwrap();
        assert_eq!(v["protocolVersion"], "v1");
        assert_eq!(v["mutating"], true);
        assert_eq!(v["backgroundAudit"], true);
        assert_eq!(v["executionMode"], "kubewarden-wapc");
        // Every workload kind the core schedules, CREATE and UPDATE.
        let mut resources: Vec<String> = Vec::new();
        for r in v["rules"].as_array().unwrap() {
            assert_eq!(r["operations"], json!(["CREATE", "UPDATE"]));
            resources.extend(r["resources"].as_array().unwrap().iter().map(|x| x.as_str().unwrap().to_string()));
        }
        resources.sort();
        assert_eq!(
            resources,
            [
                "cronjobs",
                "daemonsets",
                "deployments",
                "jobs",
                "pods",
                "replicasets",
                "replicationcontrollers",
                "statefulsets"
            ]
        );
    }

    /// What each module may list: `inventory: cluster`'s Nodes in both; in the full one also
    /// the resources the Gatekeeper library's inventory-reading templates need, for
    /// `gatekeeper.inventory` (the lean module has no Gatekeeper, so it declares Nodes only).
    #[test]
    fn context_aware_resources() {
        let resources = |yaml: &str| -> Vec<String> {
            let m = metadata_json(yaml).unwrap();
            m["contextAwareResources"]
                .as_array()
                .unwrap()
                .iter()
                .map(|r| format!("{} {}", r["apiVersion"].as_str().unwrap(), r["kind"].as_str().unwrap()))
                .collect()
        };
        assert_eq!(
            resources(METADATA),
            ["v1 Node", "v1 Namespace", "v1 Service", "networking.k8s.io/v1 Ingress", "policy/v1 PodDisruptionBudget"]
        );
        assert_eq!(resources(include_str!("../metadata-lean.yml")), ["v1 Node"]);
        // The kwctl example of gatekeeper.inventory lists only resources the metadata declares
        // (`kwctl run --allow-context-aware` grants no others).
        let settings: Value =
            serde_yaml::from_str(include_str!("../examples/cluster/gatekeeper-settings.yaml")).unwrap();
        for r in settings["gatekeeper"]["inventory"].as_array().unwrap() {
            let name = format!("{} {}", r["apiVersion"].as_str().unwrap(), r["kind"].as_str().unwrap());
            assert!(resources(METADATA).contains(&name), "{name}");
        }
    }

    /// The lean module's metadata: the same rules and flags as the full one, other names, and
    /// no claim of Gatekeeper support (it has none).
    #[test]
    fn lean_metadata_is_the_full_one_without_gatekeeper() {
        let full = metadata_json(METADATA).unwrap();
        let lean = metadata_json(include_str!("../metadata-lean.yml")).unwrap();
        for key in ["rules", "mutating", "backgroundAudit", "executionMode", "policyType"] {
            assert_eq!(lean[key], full[key], "{key}");
        }
        let (fa, la) = (full["annotations"].as_object().unwrap(), lean["annotations"].as_object().unwrap());
        assert_eq!(fa.keys().collect::<Vec<_>>(), la.keys().collect::<Vec<_>>());
        let differ: Vec<&str> = fa.keys().filter(|k| fa[*k] != la[*k]).map(String::as_str).collect();
        assert_eq!(
            differ,
            [
                "io.artifacthub.displayName",
                "io.artifacthub.keywords",
                "io.kubewarden.policy.title",
                "io.kubewarden.policy.description",
                "io.kubewarden.policy.usage"
            ]
        );
        let text = serde_json::to_string(&lean).unwrap().to_lowercase();
        assert!(!text.contains("gatekeeper") && !text.contains("rego"), "{text}");
        assert!(serde_json::to_string(&full).unwrap().contains("Gatekeeper"));
    }

    #[test]
    fn artifacthub_package_agrees_with_metadata() {
        let meta = metadata_json(METADATA).unwrap();
        let pkg: Value = serde_yaml::from_str(include_str!("../artifacthub-pkg.yml")).unwrap();
        let rules: Value = serde_yaml::from_str(pkg["annotations"]["kubewarden/rules"].as_str().unwrap()).unwrap();
        assert_eq!(rules, meta["rules"]);
        let resources: Value =
            serde_yaml::from_str(pkg["annotations"]["kubewarden/contextAwareResources"].as_str().unwrap()).unwrap();
        assert_eq!(resources, meta["contextAwareResources"]);
        assert_eq!(pkg["annotations"]["kubewarden/mutation"], "true");
        assert_eq!(pkg["annotations"]["kubewarden/resources"], meta["annotations"]["io.artifacthub.resources"]);
        assert_eq!(pkg["version"], meta["annotations"]["io.kubewarden.policy.version"]);
        assert_eq!(pkg["license"], meta["annotations"]["io.kubewarden.policy.license"]);
    }

    #[test]
    fn annotation_round_trips_and_replaces() {
        let module = crate::wasm::append_custom_section(&PREAMBLE, "name", b"\x00\x01x");
        let once = annotate(&module, METADATA, true).unwrap();
        assert_eq!(custom_section_names(&once).unwrap(), vec![KUBEWARDEN_METADATA.to_string()]);
        let twice = annotate(&once, METADATA, true).unwrap();
        assert_eq!(once, twice, "annotating again replaces the section");
        let payload = custom_sections(&once, KUBEWARDEN_METADATA).unwrap()[0];
        let v: Value = serde_json::from_slice(payload).unwrap();
        assert_eq!(v, metadata_json(METADATA).unwrap());
        let kept = annotate(&module, METADATA, false).unwrap();
        assert_eq!(custom_section_names(&kept).unwrap(), vec!["name".to_string(), KUBEWARDEN_METADATA.to_string()]);
    }

    #[test]
    fn bad_metadata_is_refused() {
        let rows = [
            ("rules: []\n", "rules: empty"),
            ("protocolVersion: v2\n", "protocolVersion"),
            (&METADATA.replace("executionMode: kubewarden-wapc", "executionMode: opa"), "executionMode"),
            (
                &METADATA.replace("io.kubewarden.policy.license", "io.kubewarden.policy.licence"),
                "annotations.io.kubewarden.policy.license: missing",
            ),
        ];
        for (yaml, want) in rows {
            let e = metadata_json(yaml).unwrap_err();
            assert!(e.contains(want), "{e}");
        }
    }

    #[test]
    fn unexpected_imports_are_refused() {
        let mut m = PREAMBLE.to_vec();
        let mut fixed = vec![0x01];
        fixed.push(24);
        fixed.extend_from_slice(b"__wbindgen_placeholder__");
        fixed.push(5);
        fixed.extend_from_slice(b"abort");
        fixed.extend_from_slice(&[0x00, 0x00]);
        m.push(crate::wasm::IMPORT);
        crate::wasm::write_leb128(fixed.len() as u64, &mut m);
        m.extend_from_slice(&fixed);
        let e = annotate(&m, METADATA, true).unwrap_err();
        assert!(e.contains("__wbindgen_placeholder__.abort (func)"), "{e}");
    }
}
