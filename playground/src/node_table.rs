//! Nodes as table rows (name, labels, taints as `key=value:Effect`, allocatable, cordoned),
//! kept in step with the nodes' YAML both ways, and `kubectl describe node` output read into
//! the same rows.
//!
//! Rows → YAML edits each Node document in place (other fields, such as everything
//! `kubectl get nodes -o yaml` prints, are kept); YAML → rows reads the parsed Nodes.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde_json::{json, Map, Value};

use placement_core::input::documents::{decode, split_documents, DocRef};
use placement_core::input::field::FieldPath;
use placement_core::input::source_map::document_spans;
use placement_core::model::labels::{validate_label_key, validate_label_value};
use placement_core::model::quantity::Quantity;
use placement_core::model::{Node, Taint};

use crate::apply_fix::Edited;
use crate::yaml_edit::{self, TextEditor};

/// One node as the table shows it. Lists are written the way `kubectl` prints them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NodeRow {
    pub name: String,
    /// `key=value` pairs, comma-separated.
    pub labels: String,
    /// `key=value:Effect` (or `key:Effect`), comma-separated.
    pub taints: String,
    /// `cpu=4, memory=16Gi, pods=110, nvidia.com/gpu=1`.
    pub allocatable: String,
    pub cordoned: bool,
}

impl NodeRow {
    pub fn from_node(node: &Node) -> Self {
        let labels = node.metadata.labels.iter().map(|(k, v)| format!("{k}={v}")).collect::<Vec<_>>().join(", ");
        let taints = node.spec.taints.iter().map(Taint::to_string).collect::<Vec<_>>().join(", ");
        let allocatable = node
            .status
            .allocatable
            .as_ref()
            .map(|a| a.iter().map(|(k, q)| format!("{k}={q}")).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        Self { name: node.metadata.name.clone(), labels, taints, allocatable, cordoned: node.spec.unschedulable }
    }
}

/// Parsed Nodes, in input order, as [`placement_core::input::documents::Manifests`] holds them.
pub type ParsedNodes = [(DocRef, Arc<Node>)];

/// Rows for the parsed Nodes, in input order.
pub fn rows(nodes: &ParsedNodes) -> Vec<NodeRow> {
    rows_reusing(nodes, None)
}

/// [`rows`], taking the row of each node that `before` (earlier nodes and their rows, in
/// the same order) holds the same copy of: an edit reads again only the documents it
/// changed and keeps the others' nodes, so their rows are the same too.
pub fn rows_reusing(nodes: &ParsedNodes, before: Option<(&ParsedNodes, &[NodeRow])>) -> Vec<NodeRow> {
    // Keyed by address: `before` holds those nodes, so no other node has one of them.
    let known: std::collections::HashMap<*const Node, &NodeRow, foldhash::fast::FixedState> = before
        .map(|(nodes, rows)| nodes.iter().zip(rows).map(|((_, n), row)| (Arc::as_ptr(n), row)).collect())
        .unwrap_or_default();
    nodes
        .iter()
        .map(|(_, n)| known.get(&Arc::as_ptr(n)).map_or_else(|| NodeRow::from_node(n), |&row| row.clone()))
        .collect()
}

/// A row that cannot be written back: which row (0-based; shown 1-based, as the table
/// numbers them), its node, which column, why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("row {} ({}), {}: {}", .row + 1, .node, .column, .message)]
pub struct RowError {
    pub row: usize,
    pub node: String,
    pub column: &'static str,
    pub message: String,
}

/// Splits a cell into items at commas and newlines. Spaces inside an item are not a
/// separator: `team=data science` is one (invalid) label, never two.
fn items(cell: &str) -> impl Iterator<Item = &str> {
    cell.split([',', '\n']).map(str::trim).filter(|s| !s.is_empty())
}

/// An item with a space inside is refused with the cell's words, not split.
fn no_spaces(item: &str, what: &str) -> Result<(), String> {
    match item.contains(char::is_whitespace) {
        true => Err(format!("{item:?}: a {what} has no spaces; separate {what}s with commas")),
        false => Ok(()),
    }
}

/// Parses taints written as `kubectl` prints them: `key=value:Effect`, `key:Effect`,
/// comma- or line-separated, with or without a `Taints:` prefix (as in
/// `kubectl describe node`); `<none>` is no taints.
pub fn parse_taints(cell: &str) -> Result<Vec<Taint>, String> {
    let cell = cell.trim();
    let cell = cell.strip_prefix("Taints:").unwrap_or(cell);
    let mut out = Vec::new();
    for item in items(cell) {
        if item == "<none>" {
            continue;
        }
        no_spaces(item, "taint")?;
        out.push(item.parse::<Taint>().map_err(|e| format!("{item:?}: {e}"))?);
    }
    Ok(out)
}

/// Parses `key=value` labels (a bare `key` means an empty value).
pub fn parse_labels(cell: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for item in items(cell) {
        no_spaces(item, "label")?;
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        validate_label_key(k, &FieldPath::root("key")).map_err(|e| format!("{item:?}: {}", e.detail))?;
        validate_label_value(v, &FieldPath::root("value")).map_err(|e| format!("{item:?}: {}", e.detail))?;
        out.insert(k.to_string(), v.to_string());
    }
    Ok(out)
}

/// Parses `cpu=4, memory=16Gi` (also `cpu: 4` as `kubectl describe` prints it, and
/// space-separated: quantities have no spaces).
pub fn parse_resources(cell: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let normalized = cell.replace(": ", "=");
    for item in normalized.split([',', '\n', ' ', '\t']).map(str::trim).filter(|s| !s.is_empty()) {
        let (k, v) = item.split_once('=').ok_or_else(|| format!("{item:?}: expected name=quantity"))?;
        Quantity::parse(v).map_err(|e| format!("{item:?}: {e}"))?;
        out.insert(k.to_string(), v.to_string());
    }
    Ok(out)
}

/// Writes the rows back into the nodes' text. Row `i` edits the `i`-th Node document of
/// `text`; extra rows become new Nodes at the end; Nodes without a row are removed. Only the
/// cells that differ from the text are written, and only their lines change
/// ([`yaml_edit`]): a cordon is one line, the file's comments and layout stay. Where the
/// text's shape is beyond the line editor (JSON, anchors), the text is re-serialized, one
/// document per object, and [`Edited::rewritten`] says why.
pub fn apply_rows(text: &str, rows: &[NodeRow]) -> Result<Edited, RowError> {
    let docs: Vec<Value> =
        split_documents(text, "").map(|d| d.into_iter().map(|d| d.value).collect()).unwrap_or_else(|_| Vec::new());
    let trimmed = text.trim_start();
    let spans = match trimmed.starts_with('{') || trimmed.starts_with('[') {
        true => Vec::new(),
        false => document_spans(text),
    };
    let mut why = (spans.len() != docs.len()).then(|| "the text is JSON or does not parse".to_string());
    let mut editor = TextEditor::new(text);
    // New rows go into the `List` that holds the text's last Node, when it is in one (a
    // `kubectl get nodes -o yaml` file), after its last item: `list_end` in `out`.
    let list = docs
        .iter()
        .zip(&spans)
        .rfind(|(d, _)| d.get("kind").and_then(Value::as_str) == Some("Node"))
        .map(|(_, s)| s)
        .filter(|s| s.list_item.is_some());
    let mut list_end: Option<usize> = None;
    let mut out: Vec<Value> = Vec::new();
    let mut row_iter = rows.iter().enumerate();
    for (doc, span) in docs.into_iter().zip(spans.iter().map(Some).chain(std::iter::repeat(None))) {
        let in_list = list.zip(span).is_some_and(|(l, s)| s.chunk_first_line == l.chunk_first_line);
        if doc.get("kind").and_then(Value::as_str) != Some("Node") {
            out.push(doc);
            if in_list {
                list_end = Some(out.len());
            }
            continue;
        }
        let Some((i, row)) = row_iter.next() else {
            if let (None, Some(span)) = (&why, span) {
                why = editor.remove_document(span).err().map(|e| e.0);
            }
            continue;
        };
        if in_list {
            list_end = Some(out.len() + 1);
        }
        // Decoded as core decodes Nodes (`documents::decode`), so the page links one decoder
        // of a Node, not two.
        let current = decode::<Node>(doc.clone(), &DocRef::default(), "").ok().map(|n| NodeRow::from_node(&n));
        if current.as_ref() == Some(row) {
            out.push(doc);
            continue;
        }
        if let (None, Some(span)) = (&why, span) {
            // The text's own value (nulls kept), so the editor finds every key it reads.
            why = match yaml_edit::document_value(text, span) {
                Some(raw) => {
                    let new = row_into(raw.clone(), i, row, current.as_ref())?;
                    editor.document(span, &raw, &new).err().map(|e| e.0)
                }
                None => Some("the document does not parse".into()),
            };
        }
        out.push(row_into(doc, i, row, current.as_ref())?);
    }
    for (i, row) in row_iter {
        let doc = row_into(json!({"apiVersion": "v1", "kind": "Node"}), i, row, None)?;
        match (list, list_end) {
            (Some(span), Some(at)) => {
                if why.is_none() {
                    why = editor.append_list_item(span, &doc).err().map(|e| e.0);
                }
                out.insert(at, doc);
                list_end = Some(at + 1);
            }
            _ => {
                editor.append_document(&doc);
                out.push(doc);
            }
        }
    }
    if why.is_none() {
        match editor.finish() {
            // Read back: the edited text must hold exactly the documents asked for.
            Ok(edited) => match split_documents(&edited, "") {
                Ok(back)
                    if back.len() == out.len() && back.iter().zip(&out).all(|(b, o)| yaml_edit::same(&b.value, o)) =>
                {
                    return Ok(Edited { text: edited, rewritten: None })
                }
                _ => why = Some("the edited text reads back differently".into()),
            },
            Err(e) => why = Some(e.0),
        }
    }
    Ok(Edited { text: to_yaml_stream(&out), rewritten: why })
}

fn to_yaml_stream(docs: &[Value]) -> String {
    let mut s = String::new();
    for (i, d) in docs.iter().enumerate() {
        if i > 0 {
            s.push_str("---\n");
        }
        s.push_str(&serde_yaml::to_string(d).unwrap_or_default());
    }
    s
}

/// Writes the cells of `r` that differ from `current` (all of them for a new row) into `doc`.
fn row_into(mut doc: Value, row: usize, r: &NodeRow, current: Option<&NodeRow>) -> Result<Value, RowError> {
    let node = r.name.trim().to_string();
    let err = |column: &'static str| {
        let node = node.clone();
        move |message: String| RowError { row, node, column, message }
    };
    let changed = |cell: fn(&NodeRow) -> &str| current.is_none_or(|c| cell(c) != cell(r));
    if node.is_empty() {
        return Err(err("name")("a node needs a name".into()));
    }
    let labels = parse_labels(&r.labels).map_err(err("labels"))?;
    let taints = parse_taints(&r.taints).map_err(err("taints"))?;
    let allocatable = parse_resources(&r.allocatable).map_err(err("allocatable"))?;
    if !doc.is_object() {
        doc = json!({});
    }
    let Some(obj) = doc.as_object_mut() else { return Ok(doc) };
    with_object(obj, "metadata", |meta| {
        if changed(|r| &r.name) {
            meta.insert("name".into(), json!(node));
        }
        if changed(|r| &r.labels) {
            set_or_remove(meta, "labels", (!labels.is_empty()).then(|| json!(labels)));
        }
    });
    with_object(obj, "spec", |spec| {
        if changed(|r| &r.taints) {
            let taints: Vec<Value> = taints
                .iter()
                .map(|t| {
                    let mut m = Map::new();
                    m.insert("key".into(), json!(t.key));
                    if !t.value.is_empty() {
                        m.insert("value".into(), json!(t.value));
                    }
                    m.insert("effect".into(), json!(t.effect));
                    Value::Object(m)
                })
                .collect();
            set_or_remove(spec, "taints", (!taints.is_empty()).then(|| Value::Array(taints)));
        }
        if current.is_none_or(|c| c.cordoned != r.cordoned) {
            set_or_remove(spec, "unschedulable", r.cordoned.then_some(json!(true)));
        }
    });
    with_object(obj, "status", |status| {
        if changed(|r| &r.allocatable) {
            set_or_remove(status, "allocatable", (!allocatable.is_empty()).then(|| json!(allocatable)));
        }
    });
    Ok(doc)
}

/// Applies `f` to the object at `key` (made one if it is not), and removes it when `f`
/// leaves it empty.
fn with_object(obj: &mut Map<String, Value>, key: &str, f: impl FnOnce(&mut Map<String, Value>)) {
    let slot = obj.entry(key).or_insert_with(|| json!({}));
    if !slot.is_object() {
        *slot = json!({});
    }
    let empty = match slot.as_object_mut() {
        Some(m) => {
            f(m);
            m.is_empty()
        }
        None => false,
    };
    if empty {
        obj.remove(key);
    }
}

fn set_or_remove(obj: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    match value {
        Some(v) => {
            obj.insert(key.into(), v);
        }
        None => {
            obj.remove(key);
        }
    }
}

/// True when `text` looks like `kubectl describe node` output rather than a manifest.
pub fn looks_like_describe(text: &str) -> bool {
    let mut name = false;
    let mut taints = false;
    for line in text.lines() {
        name |= line.starts_with("Name:");
        taints |= line.starts_with("Taints:");
        if line.starts_with("kind:") || line.starts_with("apiVersion:") {
            return false;
        }
    }
    name && taints
}

/// Reads `kubectl describe node` output (one or more nodes) into rows: `Name:`, `Labels:`,
/// `Taints:`, `Unschedulable:` and the `Allocatable:` block.
pub fn parse_describe(text: &str) -> Vec<NodeRow> {
    let mut rows: Vec<NodeRow> = Vec::new();
    let mut section = "";
    let mut labels: Vec<String> = Vec::new();
    let mut taints: Vec<String> = Vec::new();
    let mut alloc: Vec<String> = Vec::new();
    let flush =
        |rows: &mut Vec<NodeRow>, labels: &mut Vec<String>, taints: &mut Vec<String>, alloc: &mut Vec<String>| {
            if let Some(r) = rows.last_mut() {
                r.labels = std::mem::take(labels).join(", ");
                r.taints = std::mem::take(taints).join(", ");
                r.allocatable = std::mem::take(alloc).join(", ");
            }
        };
    for line in text.lines() {
        let line = line.trim_end();
        let indented = line.starts_with(' ') || line.starts_with('\t');
        if !indented {
            if let Some((head, rest)) = line.split_once(':') {
                section = "";
                let rest = rest.trim();
                match head {
                    "Name" => {
                        flush(&mut rows, &mut labels, &mut taints, &mut alloc);
                        rows.push(NodeRow { name: rest.to_string(), ..Default::default() });
                    }
                    "Labels" => {
                        section = "labels";
                        push_item(&mut labels, rest);
                    }
                    "Taints" => {
                        section = "taints";
                        push_item(&mut taints, rest);
                    }
                    "Unschedulable" => {
                        if let Some(r) = rows.last_mut() {
                            r.cordoned = rest == "true";
                        }
                    }
                    "Allocatable" => section = "allocatable",
                    _ => {}
                }
            }
            continue;
        }
        let item = line.trim();
        match section {
            "labels" => push_item(&mut labels, item),
            "taints" => push_item(&mut taints, item),
            "allocatable" => {
                if let Some((k, v)) = item.split_once(':') {
                    alloc.push(format!("{}={}", k.trim(), v.trim()));
                }
            }
            _ => {}
        }
    }
    flush(&mut rows, &mut labels, &mut taints, &mut alloc);
    rows
}

fn push_item(list: &mut Vec<String>, item: &str) {
    if !item.is_empty() && item != "<none>" {
        list.push(item.to_string());
    }
}

/// `kubectl describe node` output as Node YAML.
pub fn describe_to_yaml(text: &str) -> Result<String, RowError> {
    apply_rows("", &parse_describe(text)).map(|e| e.text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use placement_core::input::documents::parse_manifests;

    /// A node whose copy the earlier nodes hold keeps its earlier row; any other node (an
    /// edited one, or an equal node read again) gets its row built.
    #[test]
    fn rows_are_reused_for_the_same_nodes_only() {
        let text = |cpu: &str| {
            format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: a}}\nstatus: {{allocatable: {{cpu: '{cpu}'}}}}\n---\napiVersion: v1\nkind: Node\nmetadata: {{name: b}}\nstatus: {{allocatable: {{cpu: '2'}}}}\n"
            )
        };
        let before = parse_manifests(&text("1"), "nodes").unwrap().nodes;
        // Rows that no node would give, to see which are taken from `before`.
        let marked: Vec<NodeRow> =
            ["a", "b"].iter().map(|n| NodeRow { name: format!("kept {n}"), ..NodeRow::default() }).collect();
        let a_edited = parse_manifests(&text("3"), "nodes").unwrap().nodes;
        let read_again = parse_manifests(&text("1"), "nodes").unwrap().nodes;
        // (name, nodes, want row names)
        let same_copies = vec![before[1].clone(), before[0].clone()];
        let rows: [(&str, &ParsedNodes, [&str; 2]); 4] = [
            ("the same copies", &before, ["kept a", "kept b"]),
            ("the same copies, reordered", &same_copies, ["kept b", "kept a"]),
            ("one edited", &[a_edited[0].clone(), before[1].clone()], ["a", "kept b"]),
            ("equal but read again", &read_again, ["a", "b"]),
        ];
        for (name, nodes, want) in rows {
            let got = rows_reusing(nodes, Some((&before, &marked)));
            assert_eq!(got.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(), want, "{name}");
        }
        assert_eq!(rows_reusing(&a_edited, None), super::rows(&a_edited));
        assert_eq!(rows_reusing(&a_edited, None)[0].allocatable, "cpu=3");
    }

    #[test]
    fn taints_as_kubectl_prints_them() {
        let t = parse_taints("Taints: node-role.kubernetes.io/control-plane:NoSchedule\n   dedicated=gpu:NoExecute, a=b:PreferNoSchedule").unwrap();
        let shown: Vec<String> = t.iter().map(Taint::to_string).collect();
        assert_eq!(
            shown,
            ["node-role.kubernetes.io/control-plane:NoSchedule", "dedicated=gpu:NoExecute", "a=b:PreferNoSchedule"]
        );
        assert!(parse_taints("<none>").unwrap().is_empty());
        assert!(parse_taints("a=b:Sometimes").unwrap_err().contains("Sometimes"));
        assert!(parse_taints("justakey").is_err());
        assert!(parse_taints("bad key=x:NoSchedule").is_err());
    }

    #[test]
    fn rows_round_trip_through_yaml_keeping_other_fields() {
        let text = "# nodes\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  annotations: {x: y}\n  labels: {zone: z1}\nstatus:\n  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\n  nodeInfo: {kubeletVersion: v1.30.0}\n";
        let m = parse_manifests(text, "").unwrap();
        let mut r = rows(&m.nodes);
        assert_eq!(r[0].labels, "zone=z1");
        assert_eq!(r[0].allocatable, "cpu=4, memory=8Gi, pods=110");
        r[0].taints = "testkey=palotest:NoSchedule".into();
        r[0].cordoned = true;
        r.push(NodeRow { name: "b".into(), allocatable: "cpu=2".into(), ..Default::default() });
        let out = apply_rows(text, &r).unwrap().text;
        let m2 = parse_manifests(&out, "").unwrap();
        assert_eq!(m2.nodes.len(), 2);
        let a = &m2.nodes[0].1;
        assert_eq!(a.spec.taints[0].to_string(), "testkey=palotest:NoSchedule");
        assert!(a.spec.unschedulable);
        assert_eq!(a.metadata.annotations["x"], "y");
        assert!(out.contains("kubeletVersion"), "{out}");
        assert_eq!(rows(&m2.nodes)[1].allocatable, "cpu=2");
    }

    /// `kubectl get nodes -o yaml` of `n` nodes, with a header comment.
    fn node_list(n: usize) -> String {
        let mut s = String::from(
            "# kubectl get nodes -o yaml, 55 nodes of prod-eu (do not edit by hand)\napiVersion: v1\nitems:\n",
        );
        for i in 0..n {
            s.push_str(&format!(
                "- apiVersion: v1\n  kind: Node\n  metadata:\n    annotations:\n      node.alpha.kubernetes.io/ttl: \"0\"\n    labels:\n      kubernetes.io/hostname: node-{i:02}\n      kubernetes.azure.com/agentpool: pool{}\n    name: node-{i:02}\n  spec:\n    providerID: azure:///node-{i:02}\n  status:\n    allocatable:\n      cpu: 3860m\n      memory: 12003904Ki\n      pods: \"110\"\n    conditions:\n    - type: Ready\n      status: \"True\"\n",
                i % 3
            ));
        }
        s.push_str("kind: List\nmetadata:\n  resourceVersion: \"\"\n");
        s
    }

    #[test]
    fn a_cordon_in_a_55_node_file_changes_one_line() {
        let text = node_list(55);
        let m = parse_manifests(&text, "").unwrap();
        let base = rows(&m.nodes);
        // (edit, the diff's added and removed lines)
        type Edit = fn(&mut Vec<NodeRow>);
        let cases: [(&str, Edit, &[&str], &[&str]); 5] = [
            ("cordon", |r| r[7].cordoned = true, &["+    unschedulable: true"], &[]),
            (
                "taint",
                |r| r[7].taints = "gpu=true:NoSchedule".into(),
                &["+    taints:", "+    - key: gpu", "+      value: 'true'", "+      effect: NoSchedule"],
                &[],
            ),
            (
                "one label changed",
                |r| r[7].labels = r[7].labels.replace("pool1", "pool9"),
                &["+      kubernetes.azure.com/agentpool: pool9"],
                &["-      kubernetes.azure.com/agentpool: pool1"],
            ),
            (
                "memory changed",
                |r| r[7].allocatable = r[7].allocatable.replace("12003904Ki", "16Gi"),
                &["+      memory: 16Gi"],
                &["-      memory: 12003904Ki"],
            ),
            ("no change", |_| {}, &[], &[]),
        ];
        for (name, edit, added, removed) in cases {
            let mut r = base.clone();
            edit(&mut r);
            let out = apply_rows(&text, &r).unwrap();
            assert_eq!(out.rewritten, None, "{name}");
            let (lines, _, _) = crate::history::diff_lines(&text, &out.text);
            let plus: Vec<&str> = lines.iter().filter(|l| l.starts_with('+')).map(String::as_str).collect();
            let minus: Vec<&str> = lines.iter().filter(|l| l.starts_with('-')).map(String::as_str).collect();
            assert_eq!((plus.as_slice(), minus.as_slice()), (added, removed), "{name}");
            assert_eq!(rows(&parse_manifests(&out.text, "").unwrap().nodes), r, "{name}");
        }
        // Removing a node takes its item's lines (the rows after it move up a document).
        let mut r = base.clone();
        r.remove(3);
        r.push(NodeRow { name: "new-1".into(), allocatable: "cpu=2".into(), ..Default::default() });
        let out = apply_rows(&text, &r).unwrap();
        assert!(out.text.starts_with("# kubectl get nodes"), "the header comment stays");
        assert_eq!(rows(&parse_manifests(&out.text, "").unwrap().nodes), r);
        // Adding one appends an item to the List, which stays the file's one document, its
        // `kind` and `metadata` after the items: 7 lines added, none removed.
        let mut r = base.clone();
        r.push(NodeRow { name: "new-1".into(), allocatable: "cpu=2".into(), ..Default::default() });
        let out = apply_rows(&text, &r).unwrap();
        assert_eq!(out.rewritten, None);
        assert!(!out.text.contains("\n---"), "no new document: {}", out.text);
        assert!(out.text.ends_with("      status: \"True\"\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: new-1\n  status:\n    allocatable:\n      cpu: '2'\nkind: List\nmetadata:\n  resourceVersion: \"\"\n"), "{}", out.text);
        assert_eq!(rows(&parse_manifests(&out.text, "").unwrap().nodes), r);
        let (lines, _, _) = crate::history::diff_lines(&text, &out.text);
        let changed: Vec<&String> = lines.iter().filter(|l| l.starts_with('+') || l.starts_with('-')).collect();
        assert_eq!(changed.len(), 7, "{changed:?}");
    }

    /// A List followed by another document: the new node still goes into the List, and the
    /// document after it stays where it is.
    #[test]
    fn a_node_added_to_a_list_goes_into_its_items() {
        let text = "apiVersion: v1\nkind: List\nitems:\n# first pool\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
        let m = parse_manifests(text, "").unwrap();
        let mut r = rows(&m.nodes);
        r.push(NodeRow { name: "b".into(), ..Default::default() });
        let out = apply_rows(text, &r).unwrap();
        assert_eq!(out.rewritten, None);
        assert_eq!(
            out.text,
            "apiVersion: v1\nkind: List\nitems:\n# first pool\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: b\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n"
        );
        // Separate Node documents: a new one is a document after them, as before.
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n";
        let mut r = rows(&parse_manifests(text, "").unwrap().nodes);
        r.push(NodeRow { name: "b".into(), ..Default::default() });
        let out = apply_rows(text, &r).unwrap();
        assert_eq!(
            out.text,
            "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\n"
        );
    }

    #[test]
    fn cells_with_spaces_are_an_error_not_split() {
        assert_eq!(
            parse_labels("team=data science").unwrap_err(),
            "\"team=data science\": a label has no spaces; separate labels with commas"
        );
        assert!(parse_taints("a=b:NoSchedule c:NoExecute").is_err());
        assert_eq!(parse_labels("a=1,\n b=2").unwrap().len(), 2);
    }

    #[test]
    fn bad_cells_name_row_and_column() {
        let r = [
            NodeRow { name: "a".into(), ..Default::default() },
            NodeRow { name: "b".into(), taints: "bad".into(), ..Default::default() },
        ];
        let e = apply_rows("", &r).unwrap_err();
        assert_eq!((e.row, e.column), (1, "taints"));
        assert!(e.to_string().starts_with("row 2 (b), taints: \"bad\""), "{e}");
        let r = [NodeRow { name: "a".into(), labels: "bad/key/x=1".into(), ..Default::default() }];
        let e = apply_rows("", &r).unwrap_err();
        assert_eq!((e.row, e.column), (0, "labels"));
        let r = [NodeRow { name: "a".into(), allocatable: "cpu=lots".into(), ..Default::default() }];
        assert_eq!(apply_rows("", &r).unwrap_err().column, "allocatable");
        assert_eq!(apply_rows("", &[NodeRow::default()]).unwrap_err().column, "name");
    }

    const DESCRIBE: &str = "Name:               cp-1
Roles:              control-plane
Labels:             kubernetes.io/hostname=cp-1
                    node-role.kubernetes.io/control-plane=
Annotations:        node.alpha.kubernetes.io/ttl: 0
Taints:             node-role.kubernetes.io/control-plane:NoSchedule
                    dedicated=infra:NoExecute
Unschedulable:      true
Capacity:
  cpu:                4
  memory:             16Gi
Allocatable:
  cpu:                3800m
  memory:             15Gi
  pods:               110
System Info:
  Machine ID:         abc


Name:               worker-1
Labels:             <none>
Taints:             <none>
Unschedulable:      false
";

    #[test]
    fn reads_kubectl_describe_node() {
        assert!(looks_like_describe(DESCRIBE));
        assert!(!looks_like_describe("apiVersion: v1\nkind: Node\nmetadata: {name: Name}\n"));
        let r = parse_describe(DESCRIBE);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].taints, "node-role.kubernetes.io/control-plane:NoSchedule, dedicated=infra:NoExecute");
        assert_eq!(r[0].labels, "kubernetes.io/hostname=cp-1, node-role.kubernetes.io/control-plane=");
        assert_eq!(r[0].allocatable, "cpu=3800m, memory=15Gi, pods=110");
        assert!(r[0].cordoned);
        assert_eq!(r[1], NodeRow { name: "worker-1".into(), ..Default::default() });
        let m = parse_manifests(&describe_to_yaml(DESCRIBE).unwrap(), "").unwrap();
        assert_eq!(m.nodes[0].1.spec.taints.len(), 2);
        assert_eq!(m.nodes[0].1.status.allocatable.as_ref().unwrap()["cpu"].milli_value(), 3800);
    }
}
