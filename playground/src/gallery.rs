//! The examples gallery: the manifests of `examples/`, compiled in, each split into the
//! nodes and the workloads the playground's two editors hold.

use placement_core::input::source_map::{chunks, document_spans, lines_text};

#[derive(Debug, Clone, Copy)]
pub struct Example {
    /// The file stem, used in links (`#example=gpu-pool`).
    pub id: &'static str,
    pub title: &'static str,
    /// The whole file, comments included.
    pub source: &'static str,
    /// Workloads shown with the nodes when the file has only nodes.
    pub extra_workloads: &'static str,
}

/// Workloads to go with the `kubectl get nodes -o yaml` example, which has only nodes.
const GET_NODES_WORKLOADS: &str = "# Workloads to go with the pasted nodes: a Deployment avoids the cordoned and the
# not-ready node; a node agent DaemonSet runs on the cordoned node (the controller
# tolerates node.kubernetes.io/unschedulable) and also on the not-ready one.
apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: shop
spec:
  replicas: 3
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: web
        image: nginx:1.27
        resources:
          requests: {cpu: 500m, memory: 256Mi}
---
apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: node-exporter
  namespace: monitoring
spec:
  selector:
    matchLabels: {app: node-exporter}
  template:
    metadata:
      labels: {app: node-exporter}
    spec:
      containers:
      - name: node-exporter
        image: quay.io/prometheus/node-exporter:v1.8.2
        resources:
          requests: {cpu: 100m, memory: 64Mi}
";

pub const EXAMPLES: &[Example] = &[
    Example {
        id: "daemonset-tainted-pool",
        title: "DaemonSet skips a tainted node pool",
        source: include_str!("../../examples/daemonset-tainted-pool.yaml"),
        extra_workloads: "",
    },
    Example {
        id: "storage-operator-dedicated-pool",
        title: "Rook/Ceph on a dedicated pool: the CSI node plugin skips it",
        source: include_str!("../../examples/storage-operator-dedicated-pool.yaml"),
        extra_workloads: "",
    },
    Example {
        id: "statefulset-zonal-disks",
        title: "StatefulSet on zonal disks",
        source: include_str!("../../examples/statefulset-zonal-disks.yaml"),
        extra_workloads: "",
    },
    Example {
        id: "control-plane-taints",
        title: "Control-plane taints",
        source: include_str!("../../examples/control-plane-taints.yaml"),
        extra_workloads: "",
    },
    Example {
        id: "gpu-pool",
        title: "GPU pool: nodeSelector and tolerations",
        source: include_str!("../../examples/gpu-pool.yaml"),
        extra_workloads: "",
    },
    Example {
        id: "resource-packing",
        title: "Resource packing",
        source: include_str!("../../examples/resource-packing.yaml"),
        extra_workloads: "",
    },
    Example {
        id: "cluster-snapshot",
        title: "Pasted cluster snapshot: drain a node pool",
        source: include_str!("../../examples/cluster-snapshot.yaml"),
        extra_workloads: "",
    },
    Example {
        id: "kubectl-get-nodes",
        title: "Pasted `kubectl get nodes -o yaml`",
        source: include_str!("../../examples/kubectl-get-nodes.yaml"),
        extra_workloads: GET_NODES_WORKLOADS,
    },
];

/// The example with this id.
pub fn find(id: &str) -> Option<&'static Example> {
    EXAMPLES.iter().find(|e| e.id == id)
}

impl Example {
    /// The opening comment, without `#`s, paragraphs joined: what the example shows.
    pub fn summary(&self) -> String {
        let mut out = String::new();
        for line in self.source.lines() {
            let Some(text) = line.strip_prefix('#') else { break };
            let text = text.trim();
            if text.is_empty() {
                break;
            }
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(text);
        }
        out
    }

    /// `(nodes, workloads)` texts for the two editors. The file's opening comment goes with
    /// the workloads, where it explains what to look at.
    pub fn split(&self) -> (String, String) {
        let (nodes, mut workloads) = split_nodes(self.source);
        if !self.extra_workloads.is_empty() {
            if !workloads.trim().is_empty() {
                workloads.push_str("---\n");
            }
            workloads.push_str(self.extra_workloads);
        }
        (nodes, workloads)
    }
}

/// Splits manifest text into `(nodes, everything else)`, document by document, keeping each
/// document's text (comments included). The comment that opens the text goes with the
/// second part. A `List` goes with the nodes when all its items are Nodes; a `List` of both
/// (`kubectl get nodes,pods -A -o yaml`) is split into two Lists, each item's text kept.
pub fn split_nodes(text: &str) -> (String, String) {
    let mut nodes: Vec<String> = Vec::new();
    let mut others: Vec<String> = Vec::new();
    let mut header = String::new();
    for (i, chunk) in chunks(text).into_iter().enumerate() {
        let mut body = lines_text(text, chunk.first_line, chunk.last_line);
        if i == 0 {
            // The opening comment block (up to the first blank line or content line).
            let head: String = body.lines().take_while(|l| l.starts_with('#')).map(|l| format!("{l}\n")).collect();
            if !head.is_empty() && body.lines().nth(head.lines().count()).is_some_and(|l| !l.starts_with('#')) {
                header = head;
                body = body[header.len()..].to_string();
            }
        }
        if body.trim().is_empty() {
            continue;
        }
        let body = body.trim_start_matches(['\n', '\r']).to_string();
        if is_nodes(&body) {
            nodes.push(body);
        } else if let Some((node_items, other_items)) = split_mixed_list(&body) {
            nodes.push(node_items);
            others.push(other_items);
        } else {
            others.push(body);
        }
    }
    let join = |parts: Vec<String>| parts.join("---\n");
    let mut rest = header;
    rest.push_str(&join(others));
    (join(nodes), rest)
}

/// A block-YAML `List` whose items are Nodes and other objects, as two Lists (Nodes, the
/// rest) made of the items' own lines; `None` for anything else (JSON, flow style, a List
/// of one sort).
fn split_mixed_list(body: &str) -> Option<(String, String)> {
    let value = serde_yaml::from_str::<serde_json::Value>(body).ok()?;
    let items = value.get("items")?.as_array()?;
    let kind = value.get("kind").and_then(serde_json::Value::as_str).unwrap_or_default();
    if !kind.ends_with("List") {
        return None;
    }
    let is_node = |i: usize| items.get(i).is_some_and(|item| item["kind"] == "Node");
    let spans = document_spans(body);
    if spans.is_empty() || spans.iter().any(|s| s.list_item.is_none()) {
        return None;
    }
    let lines: Vec<&str> = body.lines().collect();
    let (mut node_text, mut other_text) = (String::new(), String::new());
    for span in &spans {
        let i = span.list_item?;
        let first = lines.get(span.first_line.checked_sub(1)?)?;
        let indent = first.len() - first.trim_start().len();
        if !first.trim_start().starts_with('-') {
            return None;
        }
        // The item's lines: its first, then those indented deeper than its dash (blank lines
        // and comments included), up to the next line at the dash's column or left of it.
        let mut item: Vec<&str> = vec![first];
        for line in lines.iter().skip(span.first_line) {
            let t = line.trim_start();
            if !t.is_empty() && !t.starts_with('#') && line.len() - t.len() <= indent {
                break;
            }
            item.push(line);
        }
        while item.last().is_some_and(|l| l.trim().is_empty() || l.trim_start().starts_with('#')) {
            item.pop();
        }
        let out = if is_node(i) { &mut node_text } else { &mut other_text };
        for line in item {
            out.push_str(line.get(indent..).unwrap_or(line.trim_start()));
            out.push('\n');
        }
    }
    if node_text.is_empty() || other_text.is_empty() {
        return None;
    }
    let list = |items: String| format!("apiVersion: v1\nkind: List\nitems:\n{items}");
    Some((list(node_text), list(other_text)))
}

fn is_nodes(body: &str) -> bool {
    let Ok(value) = serde_yaml::from_str::<serde_json::Value>(body) else { return false };
    match value.get("kind").and_then(serde_json::Value::as_str) {
        Some("Node") => true,
        Some(k) if k.ends_with("List") => value["items"]
            .as_array()
            .is_some_and(|items| !items.is_empty() && items.iter().all(|i| i["kind"] == "Node")),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use placement_core::cluster::simulate::{simulate, SimulateOptions};
    use placement_core::input::documents::parse_manifests;

    #[test]
    fn every_example_splits_and_simulates() {
        for e in EXAMPLES {
            let (nodes, workloads) = e.split();
            let mut m = parse_manifests(&nodes, "nodes").unwrap_or_else(|err| panic!("{}: {err}", e.id));
            assert!(m.workloads.is_empty(), "{}: workloads in the nodes part", e.id);
            let w = parse_manifests(&workloads, "workloads").unwrap_or_else(|err| panic!("{}: {err}", e.id));
            assert!(w.nodes.is_empty(), "{}: nodes in the workloads part", e.id);
            assert!(!w.workloads.is_empty(), "{}: no workloads", e.id);
            m.extend(w);
            simulate(&m, &SimulateOptions::default()).unwrap_or_else(|err| panic!("{}: {err:?}", e.id));
            assert!(!e.summary().is_empty(), "{}", e.id);
        }
    }

    #[test]
    fn split_keeps_the_opening_comment_with_the_workloads() {
        let e = find("daemonset-tainted-pool").unwrap();
        let (nodes, workloads) = e.split();
        assert!(workloads.starts_with("# The classic"));
        assert!(nodes.starts_with("apiVersion: v1\nkind: Node"));
        let (gpu_nodes, _) = find("gpu-pool").unwrap().split();
        assert!(!gpu_nodes.starts_with('\n'), "no blank first line");
        assert_eq!(parse_manifests(&nodes, "").unwrap().nodes.len(), 2);
        assert!(e.summary().starts_with("The classic: a security agent DaemonSet"));
    }

    /// `kubectl get nodes,pods,... -o yaml` is one List of everything: it is split into a List
    /// of the Nodes and a List of the rest, each item's lines as they were, and the two halves
    /// simulate as the whole does.
    #[test]
    fn a_mixed_list_is_split_item_by_item() {
        let e = find("cluster-snapshot").unwrap();
        let (nodes, workloads) = e.split();
        assert!(nodes.starts_with("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n"), "{nodes}");
        assert!(workloads.starts_with("# A pasted cluster snapshot"), "the opening comment stays with the workloads");
        assert!(!workloads.contains("kind: Node\n"), "{workloads}");
        assert!(!workloads.contains("resourceVersion: \"\"\n"), "the List's own fields are not an item's");
        let whole = parse_manifests(e.source, "snapshot").unwrap();
        let mut halves = parse_manifests(&nodes, "nodes").unwrap();
        assert_eq!(halves.nodes.len(), 3);
        halves.extend(parse_manifests(&workloads, "workloads").unwrap());
        let opts = SimulateOptions::default();
        let json = |m| serde_json::to_string(&simulate(m, &opts).unwrap()).unwrap();
        assert_eq!(json(&halves), json(&whole));

        // A List of one sort, or in flow style, is left whole.
        let flow = "kind: List\nitems: [{apiVersion: v1, kind: Node, metadata: {name: a}}, {apiVersion: v1, kind: Pod, metadata: {name: p}}]\n";
        assert_eq!(split_nodes(flow), (String::new(), flow.to_string()));
        let indented =
            "kind: List\nitems:\n  - apiVersion: v1\n    kind: Node\n    metadata: {name: a}\n  - apiVersion: v1\n    kind: Pod\n    metadata: {name: p}\n";
        assert_eq!(
            split_nodes(indented),
            (
                "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n"
                    .to_string(),
                "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n"
                    .to_string()
            )
        );
    }

    /// The texts the editors hold (each example's two halves, the synthetic cluster) take the
    /// core's fast reader, which reads them as serde_yaml does. (Core's own tests cover the
    /// example files whole.)
    #[test]
    fn the_editors_texts_take_the_fast_reader() {
        use placement_core::input::block_yaml::{read_stream, Prune};
        use placement_core::input::documents::parse_manifests_reference;
        use serde::Deserialize;

        let outcome = |result: Result<
            placement_core::input::documents::Manifests,
            placement_core::input::documents::InputError,
        >| {
            match result {
                Ok(m) => format!("{m:?}"),
                Err(e) => format!("error: {e} ({e:?})"),
            }
        };
        let synthetic = crate::evaluation::synthetic(20, 8);
        let mut texts =
            vec![("synthetic nodes".to_string(), synthetic.nodes), ("synthetic workloads".into(), synthetic.workloads)];
        for e in EXAMPLES {
            let (nodes, workloads) = e.split();
            texts.extend([(format!("{} nodes", e.id), nodes), (format!("{} workloads", e.id), workloads)]);
        }
        for (what, text) in &texts {
            let fast = read_stream(text, Prune::Nothing).unwrap_or_else(|| panic!("{what} leaves the fast path"));
            let slow: Vec<serde_json::Value> = serde_yaml::Deserializer::from_str(text)
                .map(|de| serde_json::Value::deserialize(de).expect("serde_yaml reads it"))
                .collect();
            assert_eq!(serde_json::to_string(&fast).unwrap(), serde_json::to_string(&slow).unwrap(), "{what}");
            assert_eq!(
                outcome(parse_manifests(text, "src")),
                outcome(parse_manifests_reference(text, "src")),
                "{what}"
            );
        }
    }
}
