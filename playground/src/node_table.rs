//! Nodes as table rows (name, labels, taints as `key=value:Effect`, allocatable, cordoned),
//! kept in step with the nodes' YAML both ways, and `kubectl describe node` output read into
//! the same rows.
//!
//! Rows → YAML edits each Node document in place (other fields, such as everything
//! `kubectl get nodes -o yaml` prints, are kept); YAML → rows reads the parsed Nodes.

use std::collections::BTreeMap;

use serde_json::{json, Map, Value};

use placement_core::input::documents::{split_documents, DocRef};
use placement_core::input::field::FieldPath;
use placement_core::model::labels::{validate_label_key, validate_label_value};
use placement_core::model::quantity::Quantity;
use placement_core::model::{Node, Taint};

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

/// Rows for the parsed Nodes, in input order.
pub fn rows(nodes: &[(DocRef, Node)]) -> Vec<NodeRow> {
    nodes.iter().map(|(_, n)| NodeRow::from_node(n)).collect()
}

/// A row that cannot be written back: which row (0-based), which column, why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("row {row} ({column}): {message}")]
pub struct RowError {
    pub row: usize,
    pub column: &'static str,
    pub message: String,
}

/// Splits a cell into items at commas, newlines and runs of whitespace.
fn items(cell: &str) -> impl Iterator<Item = &str> {
    cell.split([',', '\n', ' ', '\t']).map(str::trim).filter(|s| !s.is_empty())
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
        out.push(item.parse::<Taint>().map_err(|e| e.to_string())?);
    }
    Ok(out)
}

/// Parses `key=value` labels (a bare `key` means an empty value).
pub fn parse_labels(cell: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for item in items(cell) {
        let (k, v) = item.split_once('=').unwrap_or((item, ""));
        validate_label_key(k, &FieldPath::root("key")).map_err(|e| format!("{item:?}: {}", e.detail))?;
        validate_label_value(v, &FieldPath::root("value")).map_err(|e| format!("{item:?}: {}", e.detail))?;
        out.insert(k.to_string(), v.to_string());
    }
    Ok(out)
}

/// Parses `cpu=4, memory=16Gi` (also `cpu: 4` as `kubectl describe` prints it).
pub fn parse_resources(cell: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    let normalized = cell.replace(": ", "=");
    for item in items(&normalized) {
        let (k, v) = item.split_once('=').ok_or_else(|| format!("{item:?}: expected name=quantity"))?;
        Quantity::parse(v).map_err(|e| format!("{item:?}: {e}"))?;
        out.insert(k.to_string(), v.to_string());
    }
    Ok(out)
}

/// Writes the rows back into the nodes' text. Row `i` edits the `i`-th Node document of
/// `text` (keeping its other fields); extra rows become new Nodes; Nodes without a row are
/// dropped. Documents of other kinds are kept in place. The result is YAML, one document
/// per object.
pub fn apply_rows(text: &str, rows: &[NodeRow]) -> Result<String, RowError> {
    let docs =
        split_documents(text, "").map(|d| d.into_iter().map(|d| d.value).collect()).unwrap_or_else(|_| Vec::new());
    let mut out: Vec<Value> = Vec::new();
    let mut row_iter = rows.iter().enumerate();
    for doc in docs {
        if doc.get("kind").and_then(Value::as_str) != Some("Node") {
            out.push(doc);
            continue;
        }
        if let Some((i, row)) = row_iter.next() {
            out.push(row_into(doc, i, row)?);
        }
    }
    for (i, row) in row_iter {
        out.push(row_into(json!({"apiVersion": "v1", "kind": "Node"}), i, row)?);
    }
    Ok(to_yaml_stream(&out))
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

fn row_into(mut doc: Value, row: usize, r: &NodeRow) -> Result<Value, RowError> {
    let err = |column: &'static str| move |message: String| RowError { row, column, message };
    let name = r.name.trim();
    if name.is_empty() {
        return Err(RowError { row, column: "name", message: "a node needs a name".into() });
    }
    let labels = parse_labels(&r.labels).map_err(err("labels"))?;
    let taints = parse_taints(&r.taints).map_err(err("taints"))?;
    let allocatable = parse_resources(&r.allocatable).map_err(err("allocatable"))?;
    let obj = doc.as_object_mut().expect("documents are objects");
    let meta = object_at(obj, "metadata");
    meta.insert("name".into(), json!(name));
    set_or_remove(meta, "labels", (!labels.is_empty()).then(|| json!(labels)));
    let spec = object_at(obj, "spec");
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
    set_or_remove(spec, "unschedulable", r.cordoned.then_some(json!(true)));
    if spec.is_empty() {
        obj.remove("spec");
    }
    let status = object_at(obj, "status");
    set_or_remove(status, "allocatable", (!allocatable.is_empty()).then(|| json!(allocatable)));
    if status.is_empty() {
        obj.remove("status");
    }
    Ok(doc)
}

fn object_at<'a>(obj: &'a mut Map<String, Value>, key: &str) -> &'a mut Map<String, Value> {
    if !obj.get(key).is_some_and(Value::is_object) {
        obj.insert(key.into(), json!({}));
    }
    obj.get_mut(key).and_then(Value::as_object_mut).expect("just inserted")
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
    apply_rows("", &parse_describe(text))
}

#[cfg(test)]
mod tests {
    use super::*;
    use placement_core::input::documents::parse_manifests;

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
        let out = apply_rows(text, &r).unwrap();
        let m2 = parse_manifests(&out, "").unwrap();
        assert_eq!(m2.nodes.len(), 2);
        let a = &m2.nodes[0].1;
        assert_eq!(a.spec.taints[0].to_string(), "testkey=palotest:NoSchedule");
        assert!(a.spec.unschedulable);
        assert_eq!(a.metadata.annotations["x"], "y");
        assert!(out.contains("kubeletVersion"), "{out}");
        assert_eq!(rows(&m2.nodes)[1].allocatable, "cpu=2");
    }

    #[test]
    fn bad_cells_name_row_and_column() {
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
        assert!(!looks_like_describe("kind: Node\nmetadata: {name: Name}\n"));
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
