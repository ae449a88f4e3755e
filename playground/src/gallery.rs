//! The examples gallery: the manifests of `examples/`, compiled in, each split into the
//! nodes and the workloads the playground's two editors hold.

use placement_core::input::source_map::{chunks, lines_text};

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
        title: "Storage operator on a dedicated, tainted pool",
        source: include_str!("../../examples/storage-operator-dedicated-pool.yaml"),
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
/// second part. A `List` goes with the nodes when all its items are Nodes.
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
        } else {
            others.push(body);
        }
    }
    let join = |parts: Vec<String>| parts.join("---\n");
    let mut rest = header;
    rest.push_str(&join(others));
    (join(nodes), rest)
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
