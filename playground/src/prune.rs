//! What a share link leaves out: the bookkeeping of objects read back from a cluster
//! (`kubectl get -o yaml`), which the simulation never reads and which makes links several
//! times longer (managedFields, images, nodeInfo but the kubelet's version, addresses, condition timestamps, the
//! last-applied annotation).
//!
//! The rule, per YAML document of an editor:
//! - a document read back from a cluster (an object, or a List item, with
//!   `metadata.managedFields` or `metadata.resourceVersion`) is rewritten without those
//!   fields ([`prune_object`]); the comment lines above it are kept, comments inside it are
//!   not (kubectl writes none);
//! - every other document is taken to be written by hand and kept character for character,
//!   comments and all.
//!
//! [`crate::state::Playground::share_fragment`] keeps the pruned texts only when they simulate
//! to the same report as the texts in the editors, so the rule can never change an answer.

use placement_core::input::documents::document_texts;
use serde_yaml::{Mapping, Value};

/// `text` with the documents read back from a cluster pruned; the same text when none is.
pub fn prune_text(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut changed = false;
    // One text where it is not split into documents (JSON, YAML directives).
    for doc in document_texts(text).unwrap_or_else(|| vec![text]) {
        // A document after the first starts with its `---` line, kept as it is.
        let marker_end = if doc.starts_with("---") { doc.find('\n').map_or(doc.len(), |i| i + 1) } else { 0 };
        let (marker, body) = doc.split_at(marker_end);
        out.push_str(marker);
        match prune_document(body) {
            Some(pruned) => {
                changed = true;
                out.push_str(&pruned);
            }
            None => out.push_str(body),
        }
    }
    if changed {
        out
    } else {
        text.to_string()
    }
}

/// The pruned document, or `None` to keep it as it is (written by hand, or not YAML this
/// reads: the editor reports that).
fn prune_document(doc: &str) -> Option<String> {
    let mut value: Value = serde_yaml::from_str(doc).ok()?;
    let map = value.as_mapping_mut()?;
    let mut pruned = false;
    if let Some(items) = map.get_mut("items").and_then(Value::as_sequence_mut) {
        for item in items.iter_mut().filter_map(Value::as_mapping_mut) {
            pruned |= prune_object(item);
        }
        if pruned {
            // The List's own resourceVersion.
            if let Some(meta) = map.get_mut("metadata").and_then(Value::as_mapping_mut) {
                meta.remove("resourceVersion");
            }
        }
    } else {
        pruned = prune_object(map);
    }
    if !pruned {
        return None;
    }
    let body = serde_yaml::to_string(&value).ok()?;
    Some(format!("{}{body}", leading_comments(doc)))
}

/// The comment and blank lines before a document's first content line.
fn leading_comments(doc: &str) -> &str {
    let mut end = 0;
    for line in doc.split_inclusive('\n') {
        let t = line.trim();
        if !(t.is_empty() || t.starts_with('#')) {
            break;
        }
        end += line.len();
    }
    &doc[..end]
}

/// Removes what the simulation does not read from one object read back from a cluster;
/// whether it was one (it has managedFields or a resourceVersion).
pub fn prune_object(object: &mut Mapping) -> bool {
    let kind = object.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
    let Some(meta) = object.get_mut("metadata").and_then(Value::as_mapping_mut) else { return false };
    if !(meta.contains_key("managedFields") || meta.contains_key("resourceVersion")) {
        return false;
    }
    remove_all(meta, &["managedFields", "resourceVersion", "selfLink"]);
    if let Some(annotations) = meta.get_mut("annotations").and_then(Value::as_mapping_mut) {
        annotations.remove("kubectl.kubernetes.io/last-applied-configuration");
    }
    match kind.as_str() {
        "Node" => {
            // A Node is known by its name: its uid and age are read by nothing; its
            // annotations are the kubelet's and the CNI's.
            remove_all(meta, &["uid", "creationTimestamp", "annotations"]);
            if let Some(spec) = object.get_mut("spec").and_then(Value::as_mapping_mut) {
                remove_all(spec, &["podCIDR", "podCIDRs", "providerID"]);
            }
            if let Some(status) = object.get_mut("status").and_then(Value::as_mapping_mut) {
                remove_all(
                    status,
                    &[
                        "addresses",
                        "daemonEndpoints",
                        "images",
                        "volumesAttached",
                        "volumesInUse",
                        "config",
                        "runtimeHandlers",
                        "features",
                    ],
                );
                // Of the node's facts, only the kubelet's version is read: the release to
                // simulate when none is chosen.
                if let Some(info) = status.get_mut("nodeInfo").and_then(Value::as_mapping_mut) {
                    info.retain(|k, _| k.as_str() == Some("kubeletVersion"));
                }
                drop_condition_times(status);
                drop_healthy_condition_words(status);
                // Scheduling reads allocatable; capacity only stands in where it is missing.
                if status.contains_key("allocatable") {
                    status.remove("capacity");
                }
            }
        }
        "Pod" => {
            if let Some(status) = object.get_mut("status").and_then(Value::as_mapping_mut) {
                remove_all(
                    status,
                    &[
                        "containerStatuses",
                        "initContainerStatuses",
                        "ephemeralContainerStatuses",
                        "hostIP",
                        "hostIPs",
                        "podIP",
                        "podIPs",
                        "startTime",
                    ],
                );
                drop_condition_times(status);
            }
        }
        _ => {}
    }
    true
}

/// A node condition in its healthy state (`Ready` true, the pressure conditions false) keeps
/// its type and status only: the kubelet's reason and message say nothing a fix reads.
fn drop_healthy_condition_words(status: &mut Mapping) {
    let Some(conditions) = status.get_mut("conditions").and_then(Value::as_sequence_mut) else { return };
    for c in conditions.iter_mut().filter_map(Value::as_mapping_mut) {
        let is_ready = c.get("type").and_then(Value::as_str) == Some("Ready");
        let healthy = c.get("status").and_then(Value::as_str) == Some(if is_ready { "True" } else { "False" });
        if healthy {
            remove_all(c, &["reason", "message"]);
        }
    }
}

fn remove_all(map: &mut Mapping, keys: &[&str]) {
    for key in keys {
        map.remove(*key);
    }
}

/// Conditions keep their type, status, reason and message; their probe and transition times
/// go (a Node's healthy conditions keep less: [`drop_healthy_condition_words`]).
fn drop_condition_times(status: &mut Mapping) {
    let Some(conditions) = status.get_mut("conditions").and_then(Value::as_sequence_mut) else { return };
    for c in conditions.iter_mut().filter_map(Value::as_mapping_mut) {
        remove_all(c, &["lastHeartbeatTime", "lastProbeTime", "lastTransitionTime"]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn documents_written_by_hand_are_kept_to_the_character() {
        let text = "# my cluster\napiVersion: v1\nkind: Node\nmetadata:\n  name: a # the big one\n  uid: keep-me\nstatus: {allocatable: {cpu: '4'}}\n---\n---\nkind: Pod\n";
        assert_eq!(prune_text(text), text);
        assert_eq!(prune_text(""), "");
        assert_eq!(prune_text("kind: [\n"), "kind: [\n", "not YAML: the editor says so");
    }

    #[test]
    fn a_kubectl_node_loses_its_bookkeeping_and_keeps_what_is_simulated() {
        let text = "# from prod\napiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  uid: u-1\n  resourceVersion: \"42\"\n  managedFields: [{manager: kubelet}]\n  annotations: {node.alpha.kubernetes.io/ttl: \"0\"}\n  labels: {pool: p1}\nspec:\n  providerID: azure:///a\n  taints: [{key: k, effect: NoSchedule}]\nstatus:\n  allocatable: {cpu: '4'}\n  images: [{names: [x], sizeBytes: 1}]\n  conditions: [{type: Ready, status: 'True', lastHeartbeatTime: t}]\n---\n# by hand\nkind: Deployment # mine\n";
        let pruned = prune_text(text);
        assert!(pruned.starts_with("# from prod\napiVersion: v1\n"), "{pruned}");
        assert!(pruned.ends_with("---\n# by hand\nkind: Deployment # mine\n"), "{pruned}");
        // A marker line with a comment stays, with the cluster object after it pruned.
        let marked = format!("kind: Pod\n--- # node a, from prod\n{}", text.split("---\n").next().unwrap_or_default());
        let pruned = prune_text(&marked);
        assert!(pruned.starts_with("kind: Pod\n--- # node a, from prod\n# from prod\napiVersion: v1\n"), "{pruned}");
        assert!(!pruned.contains("managedFields"), "{pruned}");
        for gone in ["managedFields", "resourceVersion", "uid", "ttl", "providerID", "images", "lastHeartbeatTime"] {
            assert!(!pruned.contains(gone), "{gone}: {pruned}");
        }
        for kept in ["name: a", "pool: p1", "key: k", "cpu: '4'", "type: Ready", "status: 'True'"] {
            assert!(pruned.contains(kept), "{kept}: {pruned}");
        }
    }

    /// `kubectl get nodes -o yaml` of `n` nodes as a cluster returns it: the first node of
    /// examples/kubectl-get-nodes.yaml, with each node's own name, addresses, ids and times.
    pub(crate) fn kubectl_nodes(n: usize) -> String {
        let example = include_str!("../../examples/kubectl-get-nodes.yaml");
        let start = example.find("- apiVersion: v1\n  kind: Node").unwrap();
        let end = example[start + 1..].find("\n- apiVersion: v1\n  kind: Node").unwrap() + start + 2;
        let template = &example[start..end];
        let mut s = String::from("# prod-eu: kubectl get nodes -o yaml\napiVersion: v1\nitems:\n");
        for i in 0..n {
            let hex = |salt: u64| format!("{:016x}", (i as u64 + 1).wrapping_mul(0x9e37_79b9_7f4a_7c15 ^ salt));
            s.push_str(
                &template
                    .replace("k8s-worker-01", &format!("aks-userpool-{i:03}"))
                    .replace("10.20.0.11", &format!("10.20.{}.{}", i / 200, 10 + i % 200))
                    .replace("192.168.1.0/24", &format!("192.168.{i}.0/24"))
                    .replace("192.168.171.0", &format!("192.168.{i}.1"))
                    .replace("48211907", &format!("{}", 48_211_907 + i * 7919))
                    .replace("6f0c2a57-5a8e-4e0b-9d57-2b9c0f3a1e11", &hex(1))
                    .replace("2d7c4f0e-6a3b-4c5e-8f1a-9b0c1d2e3f40", &hex(2))
                    .replace("8b1f2e3d4c5b6a7980a1b2c3d4e5f607", &hex(3))
                    .replace("4c4c4544-0042-3510-8052-b4c04f335a32", &hex(4))
                    .replace("07:41:12Z", &format!("07:{:02}:{:02}Z", i % 60, (i * 7) % 60))
                    .replace("rack-1", &format!("rack-{}", i % 3)),
            );
        }
        s + "kind: List\nmetadata:\n  resourceVersion: \"\"\n"
    }

    fn report_json(state: &crate::share::SharedState) -> String {
        let eval = crate::evaluation::Evaluation::unverified(state);
        assert!(eval.is_ok(), "{:?}", eval.errors);
        serde_json::to_string(eval.report.as_ref().unwrap()).unwrap()
    }

    /// Share links of a cluster read back with kubectl: how long, before and after pruning
    /// (BENCHMARKS.md, "Playground"; `cargo test -p placement-playground --lib link_lengths --
    /// --nocapture` prints them), and the pruned state simulates to the same report.
    #[test]
    fn link_lengths_of_kubectl_node_lists() {
        let workloads = include_str!("../../examples/daemonset-tainted-pool.yaml");
        for (n, limit) in [(55, 2_000), (120, 4_000)] {
            let state = crate::share::SharedState {
                nodes: kubectl_nodes(n),
                workloads: workloads.to_string(),
                ..Default::default()
            };
            let p = crate::state::Playground::new(state.clone(), None);
            let full = crate::share::Route { state: Some(crate::share::encode(&state)), ..Default::default() };
            let full = full.fragment().len();
            let (pruned, _) = p.share_fragment(false);
            println!("{n} nodes: {full} characters as pasted, {} pruned", pruned.len());
            let linked = p.link_state();
            assert_ne!(linked.nodes, state.nodes, "pruned");
            assert_eq!(linked.workloads, state.workloads, "written by hand: kept");
            assert!(linked.nodes.starts_with("# prod-eu: kubectl get nodes -o yaml\n"), "the header comment stays");
            assert_eq!(report_json(&linked), report_json(&state), "{n} nodes: same report");
            assert!(pruned.len() < limit, "{n} nodes: {} characters", pruned.len());
        }
    }

    /// Every cluster snapshot of the tests and the examples: the pruned text simulates to the
    /// same report.
    #[test]
    fn pruned_snapshots_simulate_identically() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/snapshots");
        let mut texts: Vec<(String, String)> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
            .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
            .collect();
        texts.push(("cluster-snapshot".into(), include_str!("../../examples/cluster-snapshot.yaml").into()));
        texts.push(("kubectl-get-nodes".into(), include_str!("../../examples/kubectl-get-nodes.yaml").into()));
        assert!(texts.len() > 5);
        let mut pruned_any = 0;
        for (name, text) in texts {
            let pruned = prune_text(&text);
            pruned_any += usize::from(pruned != text);
            let state = |w: &str| crate::share::SharedState { workloads: w.to_string(), ..Default::default() };
            assert_eq!(report_json(&state(&pruned)), report_json(&state(&text)), "{name}");
        }
        assert!(pruned_any >= 5, "the fixtures hold kubectl output: {pruned_any}");
    }
}
