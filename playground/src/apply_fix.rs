//! Applying a fix to the manifest text: the fix's strategic-merge patch is merged into the
//! workload's own document, and only the lines that hold what the patch changed are edited
//! ([`crate::yaml_edit`]), so comments, key order and layout stay as they were. Where the
//! text's shape is beyond the line editor (anchors, flow style around the edit), that one
//! document is re-serialized instead, and [`Edited::rewritten`] says so.
//!
//! The merge is core's [`strategic_merge`], the same one that verified the fix
//! ([`placement_core::explain::fixes::apply_to_spec`]), so a fix is applied under the rules it was
//! checked with.

use serde_json::Value;

use placement_core::explain::fixes::strategic_merge;
use placement_core::input::source_map::{chunks, document_spans, lines_text, DocSpan};

use crate::yaml_edit;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ApplyError {
    #[error("the fix has no patch to apply")]
    NoPatch,
    #[error("the patch is not valid YAML: {0}")]
    BadPatch(String),
    #[error("document {0} was not found in the text (was it edited since?)")]
    NoDocument(usize),
    #[error("document {0} no longer parses: {1}")]
    BadDocument(usize, String),
}

/// A text after an edit, and why it was re-serialized rather than edited line by line (the
/// comments and layout of the edited document are then lost, and the UI says so).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    pub text: String,
    pub rewritten: Option<String>,
}

/// [`apply_patch`]'s text.
pub fn apply_patch_to_text(text: &str, doc_index: usize, patch: &str) -> Result<String, ApplyError> {
    apply_patch(text, doc_index, patch).map(|e| e.text)
}

/// Merges `patch` (YAML) into document `doc_index` (1-based, as `DocRef::index`) of `text`,
/// editing only the lines the merge changes. When the line editor cannot, the document is
/// re-serialized alone (keeping the comment lines that open it); JSON input comes back as YAML.
pub fn apply_patch(text: &str, doc_index: usize, patch: &str) -> Result<Edited, ApplyError> {
    let patch: Value = serde_yaml::from_str(patch).map_err(|e| ApplyError::BadPatch(e.to_string()))?;
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        let text = apply_to_json_text(text, doc_index, &patch)?;
        return Ok(Edited { text, rewritten: Some("the text is JSON".into()) });
    }
    let span =
        document_spans(text).into_iter().find(|s| s.index == doc_index).ok_or(ApplyError::NoDocument(doc_index))?;
    if let Some(mut value) = yaml_edit::document_value(text, &span) {
        strategic_merge(&mut value, &patch);
        match yaml_edit::edit_document(text, doc_index, &value) {
            Ok(text) => return Ok(Edited { text, rewritten: None }),
            Err(why) => return rewrite(text, &span, &patch).map(|text| Edited { text, rewritten: Some(why.0) }),
        }
    }
    rewrite(text, &span, &patch).map(|text| Edited { text, rewritten: Some("the document does not parse".into()) })
}

/// The whole-document fallback: the merged document re-serialized in place of its chunk.
fn rewrite(text: &str, span: &DocSpan, patch: &Value) -> Result<String, ApplyError> {
    let doc_index = span.index;
    let chunk_text = lines_text(text, span.chunk_first_line, span.chunk_last_line);
    let mut value: serde_yaml::Value =
        serde_yaml::from_str(&chunk_text).map_err(|e| ApplyError::BadDocument(doc_index, e.to_string()))?;
    let target = match span.list_item {
        Some(i) => {
            value.get_mut("items").and_then(|items| items.get_mut(i)).ok_or(ApplyError::NoDocument(doc_index))?
        }
        None => &mut value,
    };
    let mut json: Value =
        serde_json::to_value(&*target).map_err(|e| ApplyError::BadDocument(doc_index, e.to_string()))?;
    strategic_merge(&mut json, patch);
    *target = serde_yaml::to_value(&json).map_err(|e| ApplyError::BadDocument(doc_index, e.to_string()))?;
    let body = serde_yaml::to_string(&value).map_err(|e| ApplyError::BadDocument(doc_index, e.to_string()))?;

    // Keep the comment lines (and blank lines) before the first content line of the chunk.
    let leading: String = chunk_text
        .lines()
        .take_while(|l| {
            let t = l.trim();
            t.is_empty() || t.starts_with('#')
        })
        .map(|l| format!("{l}\n"))
        .collect();

    let mut out = String::new();
    let total = text.lines().count();
    if span.chunk_first_line > 1 {
        out.push_str(&lines_text(text, 1, span.chunk_first_line - 1));
    }
    out.push_str(&leading);
    out.push_str(&body);
    if span.chunk_last_line < total {
        out.push_str(&lines_text(text, span.chunk_last_line + 1, total));
    }
    if !text.ends_with('\n') && out.ends_with('\n') && span.chunk_last_line < total {
        out.pop();
    }
    Ok(out)
}

fn apply_to_json_text(text: &str, doc_index: usize, patch: &Value) -> Result<String, ApplyError> {
    let mut docs = Vec::new();
    for v in serde_json::Deserializer::from_str(text).into_iter::<Value>() {
        docs.push(v.map_err(|e| ApplyError::BadDocument(doc_index, e.to_string()))?);
    }
    let mut seen = 0;
    let mut done = false;
    'outer: for doc in &mut docs {
        let items: Vec<&mut Value> = match doc {
            Value::Array(items) => items.iter_mut().collect(),
            Value::Object(m) if m.get("items").is_some_and(Value::is_array) => {
                m.get_mut("items").and_then(Value::as_array_mut).map(|a| a.iter_mut().collect()).unwrap_or_default()
            }
            other => vec![other],
        };
        for item in items {
            if item.as_object().is_none_or(|m| m.is_empty()) {
                continue;
            }
            seen += 1;
            if seen == doc_index {
                strategic_merge(item, patch);
                done = true;
                break 'outer;
            }
        }
    }
    if !done {
        return Err(ApplyError::NoDocument(doc_index));
    }
    let mut out = String::new();
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            out.push_str("---\n");
        }
        out.push_str(&serde_yaml::to_string(d).map_err(|e| ApplyError::BadDocument(doc_index, e.to_string()))?);
    }
    Ok(out)
}

/// How many `---` chunks the text has: a cheap check that a patched text kept its shape.
pub fn chunk_count(text: &str) -> usize {
    chunks(text).len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use placement_core::cluster::simulate::{simulate, SimulateOptions};
    use placement_core::input::documents::parse_manifests;

    const EXAMPLE: &str = include_str!("../../examples/daemonset-tainted-pool.yaml");

    #[test]
    fn applying_the_daemonset_fix_covers_both_nodes() {
        let report = simulate(&parse_manifests(EXAMPLE, "").unwrap(), &SimulateOptions::default()).unwrap();
        let ds = &report.workloads[0];
        assert_eq!(ds.desired, 1);
        let patch = ds.fixes[0].patch.as_deref().unwrap();
        let m = parse_manifests(EXAMPLE, "").unwrap();
        let doc = m.workloads[0].doc.index;
        let patched = apply_patch_to_text(EXAMPLE, doc, patch).unwrap();
        // The nodes and the opening comment are untouched.
        assert!(patched.starts_with("# The classic"));
        assert_eq!(chunk_count(&patched), chunk_count(EXAMPLE));
        assert!(patched.contains("registry.twistlock.com/twistlock/defender:defender_32_00_123"));
        let report = simulate(&parse_manifests(&patched, "").unwrap(), &SimulateOptions::default()).unwrap();
        assert_eq!(report.workloads[0].desired, 2);
        assert_eq!(report.workloads[0].current, 2);
    }

    const COMMENTED: &str = include_str!("../../tests/fixtures/playground/commented-daemonset.yaml");

    /// True when every line of `a` is in `b`, in order: `b` only added lines.
    fn only_added(a: &str, b: &str) -> bool {
        let mut rest = b.lines();
        a.lines().all(|line| rest.any(|l| l == line))
    }

    #[test]
    fn a_commented_manifest_keeps_every_comment_after_apply() {
        let m = parse_manifests(COMMENTED, "").unwrap();
        let report = simulate(&m, &SimulateOptions::default()).unwrap();
        let ds = &report.workloads[0];
        assert_eq!((ds.desired, ds.current), (1, 1));
        let fix = ds.fixes.iter().find(|f| f.patch.is_some()).expect("a fix with a patch");
        let edited = apply_patch(COMMENTED, m.workloads[0].doc.index, fix.patch.as_deref().unwrap()).unwrap();
        assert_eq!(edited.rewritten, None, "edited line by line");
        let comments: Vec<&str> = COMMENTED.lines().filter(|l| l.contains('#')).collect();
        assert_eq!(comments.len(), 15);
        for c in &comments {
            assert!(edited.text.lines().any(|l| l == *c), "comment kept: {c}");
        }
        // Only the toleration's lines were added; nothing else moved.
        assert!(only_added(COMMENTED, &edited.text), "{}", edited.text);
        assert_eq!(edited.text.lines().count(), COMMENTED.lines().count() + 4, "{}", edited.text);
        assert!(edited.text.contains(
            "        - key: node-role.kubernetes.io/control-plane # masters\n          operator: Exists\n          effect: NoSchedule\n        - key: testkey\n"
        ), "{}", edited.text);
        let report = simulate(&parse_manifests(&edited.text, "").unwrap(), &SimulateOptions::default()).unwrap();
        assert_eq!((report.workloads[0].desired, report.workloads[0].current), (2, 2));
    }

    #[test]
    fn a_shape_beyond_the_line_editor_is_rewritten_and_says_so() {
        let text = "base: &b {x: 1}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: &s {containers: []}\n";
        let edited = apply_patch(text, 2, "spec:\n  nodeSelector: {x: y}\n").unwrap();
        assert!(edited.rewritten.is_some());
        assert!(edited.text.starts_with("base: &b {x: 1}\n---\n"), "{}", edited.text);
    }

    #[test]
    fn patches_list_items_and_json() {
        let list = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: a}\n  spec: {containers: []}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: b}\n  spec: {containers: []}\n";
        let out = apply_patch_to_text(list, 2, "spec:\n  nodeSelector: {x: y}\n").unwrap();
        let m = parse_manifests(&out, "").unwrap();
        assert!(m.workloads[0].template.spec.node_selector.is_none());
        assert_eq!(m.workloads[1].template.spec.node_selector.as_ref().unwrap()["x"], "y");

        let json = r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "a"}, "spec": {"containers": []}}"#;
        let out = apply_patch_to_text(json, 1, "spec:\n  nodeSelector: {x: y}\n").unwrap();
        assert!(parse_manifests(&out, "").unwrap().workloads[0].template.spec.node_selector.is_some());

        assert_eq!(apply_patch_to_text(list, 5, "a: 1"), Err(ApplyError::NoDocument(5)));
    }
}
