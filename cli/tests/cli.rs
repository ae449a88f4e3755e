//! End-to-end tests of the `placement` binary: real processes, real files, real exit codes.
//!
//! Expected scheduler messages are written out by hand from upstream's rules, not copied from
//! Placement's output:
//! - `0/N nodes are available: <count> <reason>, ...` with the "count reason" entries sorted
//!   byte-wise (Go's `sort.Strings`);
//! - the DefaultPreemption suffix counts a node as "Preemption is not helpful for scheduling"
//!   when its status is UnschedulableAndUnresolvable (taints, node affinity, cordoned nodes, and
//!   from 1.34 requests above allocatable), else "No preemption victims found for incoming pod"
//!   (Insufficient resources, host ports, pod anti-affinity, topology spread): every simulated
//!   pod has the same priority, so there is never a victim.

mod common;

use std::path::PathBuf;

use common::{placement_bytes, root, Run};
use serde_json::Value;

/// Runs `placement ARGS` in the workspace root, feeding `stdin` when given.
fn placement(args: &[&str], stdin: Option<&str>) -> Run {
    placement_bytes(args, stdin.map(str::as_bytes))
}

fn simulate_json(files: &[&str], extra: &[&str], stdin: Option<&str>) -> Value {
    let mut args = vec!["simulate"];
    for f in files {
        args.extend(["-f", f]);
    }
    args.extend(["-o", "json"]);
    args.extend(extra);
    placement(&args, stdin).json()
}

fn workload<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["workloads"]
        .as_array()
        .expect("workloads is an array")
        .iter()
        .find(|w| w["name"] == name)
        .unwrap_or_else(|| panic!("no workload {name} in {report:#}"))
}

fn pod_nodes(w: &Value) -> Vec<Option<String>> {
    w["pods"].as_array().expect("pods").iter().map(|p| p["node"].as_str().map(str::to_string)).collect()
}

const SEED: &str = "examples/daemonset-tainted-pool.yaml";
const TAINTED: &str = "aks-nodepool2-27182818-vmss000000";
const UNTAINTED: &str = "aks-nodepool1-31415926-vmss000000";

// ---------------------------------------------------------------------------------------------
// The seed scenario

#[test]
fn seed_scenario_json_contract() {
    let report = simulate_json(&[SEED], &[], None);
    let ds = &report["workloads"][0];
    assert_eq!(ds["kind"], "DaemonSet");
    assert_eq!(ds["namespace"], "twistlock");
    assert_eq!(ds["name"], "twistlock-defender-ds");
    assert_eq!(ds["desired"], 1, "kubectl get ds shows DESIRED 1");

    let nodes = ds["nodes"].as_object().expect("nodes is a map keyed by node name");
    assert_eq!(nodes.len(), 2);
    let fitting: Vec<&String> = nodes.iter().filter(|(_, v)| v["fits"] == true).map(|(k, _)| k).collect();
    assert_eq!(fitting, vec![UNTAINTED], "exactly one node fits");
    assert!(nodes[UNTAINTED]["score"].is_i64(), "a fitting node has a score");

    let tainted = &nodes[TAINTED];
    assert_eq!(tainted["fits"], false);
    assert_eq!(tainted["plugin"], "TaintToleration");
    assert_eq!(tainted["reason"], "node(s) had untolerated taint(s)");
    assert!(tainted["detail"].as_str().unwrap().contains("{testkey: palotest}"), "{tainted}");
    assert_eq!(tainted["score"], Value::Null);

    let pods = ds["pods"].as_array().unwrap();
    assert_eq!(pods.len(), 1);
    assert_eq!(pods[0]["node"], UNTAINTED);
    assert_eq!(pods[0]["message"], Value::Null);

    let fix = &ds["fixes"][0];
    let patch = fix["patch"].as_str().expect("the first fix has a patch");
    for needle in ["tolerations:", "key: testkey", "value: palotest", "effect: NoSchedule"] {
        assert!(patch.contains(needle), "patch lacks {needle:?}:\n{patch}");
    }
    assert_eq!(fix["verified"], true, "{fix}");
    assert_eq!(fix["nodes"], serde_json::json!([TAINTED]));

    assert_eq!(report["warnings"], serde_json::json!([]));
    assert_eq!(report["evictions"], serde_json::json!([]));
}

#[test]
fn seed_scenario_text() {
    let run = placement(&["simulate", "-f", SEED], None);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("DESIRED 1"), "{}", run.stdout);
    assert!(run.stdout.contains("TaintToleration"), "{}", run.stdout);
    assert!(run.stdout.contains("key: testkey"), "the fix patch is printed:\n{}", run.stdout);
}

#[test]
fn seed_scenario_default_output_is_text() {
    let default = placement(&["simulate", "-f", SEED], None);
    let text = placement(&["simulate", "-f", SEED, "-o", "text"], None);
    assert_eq!(default.stdout, text.stdout);
}

#[test]
fn kube_version_changes_the_taint_wording() {
    // (version, reason, why)
    let rows = [
        ("1.36", "node(s) had untolerated taint(s)", "kubernetes#134740: no taint in the message"),
        ("1.35", "node(s) had untolerated taint(s)", "the first release with the generic wording"),
        ("1.30", "node(s) had untolerated taint {testkey: palotest}", "1.25-1.34 name the first taint"),
        ("v1.25.3", "node(s) had untolerated taint {testkey: palotest}", "v prefix and patch accepted"),
        ("1.20", "node(s) had taint {testkey: palotest}, that the pod didn't tolerate", "1.18-1.24 wording"),
    ];
    for (version, reason, why) in rows {
        let report = simulate_json(&[SEED], &["--kube-version", version], None);
        assert_eq!(report["workloads"][0]["nodes"][TAINTED]["reason"], reason, "{version}: {why}");
        assert_eq!(report["workloads"][0]["desired"], 1, "{version}: {why}");
    }
}

#[test]
fn bad_kube_version_is_an_error() {
    for bad in ["2.0", "1.x", "latest", "1.10"] {
        let run = placement(&["simulate", "-f", SEED, "--kube-version", bad], None);
        assert_eq!(run.status, Some(1), "--kube-version {bad}");
        assert!(run.stderr.contains("--kube-version"), "{bad}: {}", run.stderr);
        assert!(run.stdout.is_empty(), "{bad}: nothing on stdout");
    }
}

#[test]
fn feature_gate_flag_is_checked() {
    let ok = placement(&["simulate", "-f", SEED, "--feature-gate", "TaintTolerationComparisonOperators=true"], None);
    assert_eq!(ok.status, Some(0), "{}", ok.stderr);
    for (gate, needle) in [("NoSuchGate=true", "NoSuchGate"), ("PodLevelResources=yes", "yes"), ("Sidecar", "NAME=")] {
        let run = placement(&["simulate", "-f", SEED, "--feature-gate", gate], None);
        assert_eq!(run.status, Some(1), "{gate}");
        assert!(run.stderr.contains(needle), "{gate}: {}", run.stderr);
    }
}

// ---------------------------------------------------------------------------------------------
// Inputs: stdin and several files

#[test]
fn stdin_is_read_with_dash() {
    let text = std::fs::read_to_string(root().join(SEED)).unwrap();
    let report = simulate_json(&["-"], &[], Some(&text));
    assert_eq!(report["workloads"][0]["desired"], 1);
    assert_eq!(report["workloads"][0]["nodes"][TAINTED]["plugin"], "TaintToleration");
}

#[test]
fn stdin_combines_with_files() {
    let workloads = std::fs::read_to_string(root().join("tests/fixtures/cli/workloads.yaml")).unwrap();
    let report = simulate_json(&["tests/fixtures/cli/nodes.yaml", "-"], &[], Some(&workloads));
    assert_eq!(pod_nodes(workload(&report, "api"))[0].as_deref(), Some("general-1"));
}

/// nodes.yaml has the cluster, workloads.yaml the Deployment: together they are one cluster.
/// general-1 has 1 CPU: api-0 (600m) lands there, api-1 finds 400m free and two tainted nodes.
#[test]
fn multiple_files_combine_and_pending_message_is_upstreams() {
    let report = simulate_json(&["tests/fixtures/cli/nodes.yaml", "tests/fixtures/cli/workloads.yaml"], &[], None);
    let api = workload(&report, "api");
    assert_eq!(api["desired"], 2);
    assert_eq!(api["scheduled"], 1);
    assert_eq!(pod_nodes(api), vec![Some("general-1".to_string()), None]);
    assert_eq!(
        api["pods"][1]["message"],
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). \
         no new claims to deallocate, \
         preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, \
         2 Preemption is not helpful for scheduling."
    );
    // The node map is the first replica's view: the cluster before any api pod.
    assert_eq!(api["nodes"]["general-1"]["fits"], true);
    assert_eq!(api["nodes"]["infra-1"]["reason"], "node(s) had untolerated taint(s)");
    assert_eq!(api["nodes"]["infra-2"]["plugin"], "TaintToleration");

    // Files in the other order: the Deployment still sees every node.
    let swapped = simulate_json(&["tests/fixtures/cli/workloads.yaml", "tests/fixtures/cli/nodes.yaml"], &[], None);
    assert_eq!(pod_nodes(workload(&swapped, "api")), vec![Some("general-1".to_string()), None]);
}

#[test]
fn pending_message_wording_follows_the_version() {
    let report = simulate_json(
        &["tests/fixtures/cli/nodes.yaml", "tests/fixtures/cli/workloads.yaml"],
        &["--kube-version", "1.30"],
        None,
    );
    assert_eq!(
        workload(&report, "api")["pods"][1]["message"],
        "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: infra}. \
         preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, \
         2 Preemption is not helpful for scheduling."
    );
}

/// A request above a node's whole allocatable: from 1.34 (kubernetes#131345) NodeResourcesFit
/// says UnschedulableAndUnresolvable, so preemption is not tried there either; before, it was
/// only Unschedulable.
#[test]
fn request_above_allocatable_is_unresolvable_from_1_34() {
    let nodes = std::fs::read_to_string(root().join("tests/fixtures/cli/nodes.yaml")).unwrap();
    let big = format!(
        "{nodes}---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: big, namespace: shop}}\n\
         spec:\n  selector: {{matchLabels: {{app: big}}}}\n  template:\n    metadata: {{labels: {{app: big}}}}\n    spec:\n      containers:\n      - name: c\n        image: i\n        resources: {{requests: {{cpu: \"2\"}}}}\n"
    );
    // (version, expected message, why)
    let rows = [
        (
            "1.36",
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s). \
             no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
            "2 CPUs can never fit a 1-CPU node",
        ),
        (
            "1.33",
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint {dedicated: infra}. \
             preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, \
             2 Preemption is not helpful for scheduling.",
            "before kubernetes#131345",
        ),
    ];
    for (version, expected, why) in rows {
        let report = simulate_json(&["-"], &["--kube-version", version], Some(&big));
        assert_eq!(workload(&report, "big")["pods"][0]["message"], expected, "{version}: {why}");
    }
}

// ---------------------------------------------------------------------------------------------
// Invalid input

#[test]
fn invalid_input_names_document_field_and_value() {
    const TOLERATION_DS: &str =
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: defender, namespace: twistlock}\n\
        spec:\n  selector: {matchLabels: {app: defender}}\n  template:\n    metadata: {labels: {app: defender}}\n    spec:\n      containers: [{name: c, image: x}]\n      tolerations:\n";
    // (input, substrings stderr must contain, why)
    let rows: Vec<(String, Vec<&str>, &str)> = vec![
        (
            format!("{TOLERATION_DS}      - {{key: testkey, operator: Eq, value: palotest, effect: NoSchedule}}\n"),
            vec![
                "DaemonSet twistlock/defender",
                "spec.template.spec.tolerations[0].operator",
                "\"Eq\"",
                "Unsupported value",
                "\"Equal\", \"Exists\"",
            ],
            "operator must be Equal or Exists",
        ),
        (
            format!("{TOLERATION_DS}      - {{key: a, effect: NoSchedule}}\n      - {{key: testkey, operator: Exists, value: palotest}}\n"),
            vec!["DaemonSet twistlock/defender", "spec.template.spec.tolerations[1].operator", "\"palotest\""],
            "Exists takes no value",
        ),
        (
            format!("{TOLERATION_DS}      - {{key: testkey, operator: Equal, value: palotest, effect: NoScheduled}}\n"),
            vec!["DaemonSet twistlock/defender", "spec.template.spec.tolerations[0].effect", "\"NoScheduled\""],
            "toleration effect must be a taint effect",
        ),
        (
            "apiVersion: v1\nkind: Node\nmetadata: {name: pool2-node}\nspec:\n  taints:\n  - {key: testkey, value: palotest, effect: NoSchedul}\n".into(),
            vec!["Node pool2-node", "metadata.taints[0].effect", "\"NoSchedul\"", "\"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""],
            "a Node's taint effect",
        ),
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers:\n      - name: c\n        resources: {requests: {memory: 1Gb}}\n".into(),
            vec!["Deployment shop/web", "spec.template.spec.containers[0].resources.requests.memory", "\"1Gb\""],
            "1Gb is not a quantity (Gi or G)",
        ),
        (
            "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nstatus:\n  allocatable: {cpu: two}\n".into(),
            vec!["Node n1", "status.allocatable.cpu", "\"two\""],
            "a Node's allocatable quantity",
        ),
        (
            "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly, namespace: ops}\nspec:\n  jobTemplate:\n    spec:\n      template:\n        spec:\n          containers: [{name: c, image: i}]\n          tolerations: [{key: k, operator: In, value: v}]\n".into(),
            vec!["CronJob ops/nightly", "spec.jobTemplate.spec.template.spec.tolerations[0].operator", "\"In\""],
            "a CronJob's pod spec sits under jobTemplate",
        ),
        (
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers: [{name: c, image: i}]\n  tolerations: [{key: k, operator: Eq}]\n".into(),
            vec!["Pod default/p", "spec.tolerations[0].operator", "\"Eq\""],
            "a bare Pod's spec is at spec",
        ),
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web\nspec: [\n".into(),
            vec!["<stdin>", "document 1", "invalid YAML", "line"],
            "YAML syntax error",
        ),
        (
            "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\njust a string\n".into(),
            vec!["<stdin>", "document 2", "expected a Kubernetes object (a mapping), found a string"],
            "a scalar document",
        ),
        (
            "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n42\n".into(),
            vec!["document 2", "found a number"],
            "a number document",
        ),
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: three\n".into(),
            vec!["Deployment shop/web", "spec.replicas"],
            "replicas must be an integer",
        ),
        (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: -1\n".into(),
            vec!["Deployment shop/web", "spec.replicas", "-1"],
            "negative replicas",
        ),
        (
            "apiVersion: v1\nmetadata: {name: x}\n".into(),
            vec!["kind"],
            "a document without kind",
        ),
    ];
    for (input, needles, why) in rows {
        let run = placement(&["simulate", "-f", "-"], Some(&input));
        assert_eq!(run.status, Some(1), "{why}: expected exit 1, stdout:\n{}", run.stdout);
        assert!(run.stdout.is_empty(), "{why}: no report on stdout:\n{}", run.stdout);
        for needle in needles {
            assert!(run.stderr.contains(needle), "{why}: stderr lacks {needle:?}:\n{}", run.stderr);
        }
    }
}

/// A document that does not read (no apiVersion) does not hide the others' validation errors.
#[test]
fn a_document_that_does_not_read_does_not_hide_the_others_errors() {
    let input = "kind: Deployment\nmetadata: {name: web}\nspec: {template: {metadata: {labels: {app: w}}, spec: {containers: [{name: c, image: i}]}}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: api}\nspec: {template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: i}]}}}\n";
    let run = placement(&["simulate", "-f", "-"], Some(input));
    assert_eq!(run.status, Some(1));
    assert!(
        run.stderr.contains("error: Deployment web (<stdin> document 1): error validating data: apiVersion not set"),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("error: Deployment api (<stdin> document 2): spec.selector: Required value"),
        "{}",
        run.stderr
    );
}

#[test]
fn every_invalid_document_is_reported() {
    let input = "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints: [{key: a, effect: Never}]\n---\n\
        apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: i}]\n      tolerations: [{key: k, operator: Eq}]\n";
    let run = placement(&["simulate", "-f", "-"], Some(input));
    assert_eq!(run.status, Some(1));
    assert!(run.stderr.contains("Node n1"), "{}", run.stderr);
    assert!(run.stderr.contains("Deployment shop/web"), "{}", run.stderr);
}

#[test]
fn invalid_input_in_a_named_file_names_the_file() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let path = dir.join("placement-cli-bad-toleration.yaml");
    std::fs::write(
        &path,
        "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: defender, namespace: twistlock}\nspec:\n  selector: {matchLabels: {app: defender}}\n  template:\n    metadata: {labels: {app: defender}}\n    spec:\n      containers: [{name: c, image: i}]\n      tolerations: [{key: testkey, operator: Eq, value: palotest}]\n",
    )
    .unwrap();
    let run = placement(&["simulate", "-f", path.to_str().unwrap()], None);
    assert_eq!(run.status, Some(1));
    assert!(run.stderr.contains("placement-cli-bad-toleration.yaml"), "{}", run.stderr);
    assert!(run.stderr.contains("spec.template.spec.tolerations[0].operator"), "{}", run.stderr);
}

#[test]
fn missing_file_is_an_error_not_a_panic() {
    let run = placement(&["simulate", "-f", "no/such/file.yaml"], None);
    assert_eq!(run.status, Some(1));
    assert!(run.stderr.contains("no/such/file.yaml"), "{}", run.stderr);
}

#[test]
fn hostile_inputs_never_panic() {
    let deep = format!("a: {}{}\n", "[".repeat(50_000), "]".repeat(50_000));
    let mut bomb = String::from("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
    let mut prev = 'a';
    for c in 'b'..='j' {
        bomb.push_str(&format!(
            "{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
        ));
        prev = c;
    }
    let inputs = [
        deep.as_str(),
        bomb.as_str(),
        "\u{0}\u{1}\u{2}",
        "{",
        "apiVersion: v1\nkind: Node\nmetadata: []\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec:\n  selector: {matchLabels: {app: x}}\n  template:\n    metadata: {labels: {app: x}}\n    spec:\n      containers: {}\n",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus: {allocatable: {cpu: 1e400}}\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replicas: 99999999999}\n",
        "apiVersion: v1\nkind: Node\nmetadata: {name: n}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n",
    ];
    for input in inputs {
        let run = placement(&["simulate", "-f", "-"], Some(input));
        assert!(matches!(run.status, Some(0) | Some(1)), "{input:.60}: exit {:?}", run.status);
    }
}

/// A YAML sequence of scalars is not a manifest: `kubectl apply` refuses it ("cannot unmarshal
/// array into Go value of type map"), and Placement refuses a scalar document. The same input
/// as the item of a List, or as a bare top-level sequence, must not be silently dropped.
#[test]
fn non_mapping_list_items_are_rejected() {
    // (input, why)
    let rows = [
        ("- a\n- b\n", "a top-level YAML sequence of strings"),
        ("[1, 2]", "a top-level JSON array of numbers"),
        ("apiVersion: v1\nkind: List\nitems:\n- just a string\n", "a List item that is a string"),
    ];
    for (input, why) in rows {
        let run = placement(&["simulate", "-f", "-"], Some(input));
        assert_eq!(run.status, Some(1), "{why}: stdout:\n{}", run.stdout);
        assert!(run.stderr.contains("expected a Kubernetes object"), "{why}: {}", run.stderr);
    }
}

// ---------------------------------------------------------------------------------------------
// Running pods and evictions

/// web (Deployment, listed first) and batch (a Pod already bound to node-a by spec.nodeName,
/// listed second). Bound pods hold their resources before anything is scheduled, so web-0
/// finds node-a with 500m free and goes to node-b; without batch it would take node-a, the
/// first of two equal nodes.
#[test]
fn bound_pod_consumes_resources_before_scheduling() {
    let nodes = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nstatus: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\"}}\n---\n\
        apiVersion: v1\nkind: Node\nmetadata: {name: node-b}\nstatus: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\"}}\n";
    let web = "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: i, resources: {requests: {cpu: \"1\"}}}]\n";
    let batch = "---\napiVersion: v1\nkind: Pod\nmetadata: {name: batch, namespace: jobs}\nspec:\n  nodeName: node-a\n  containers: [{name: c, image: i, resources: {requests: {cpu: 1500m}}}]\n";

    let alone = simulate_json(&["-"], &[], Some(&format!("{nodes}{web}")));
    assert_eq!(pod_nodes(workload(&alone, "web")), vec![Some("node-a".to_string())], "tie: first node");

    let report = simulate_json(&["-"], &[], Some(&format!("{nodes}{web}{batch}")));
    let names: Vec<&str> =
        report["workloads"].as_array().unwrap().iter().map(|w| w["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["web", "batch"], "reports keep input order");
    let batch = workload(&report, "batch");
    assert_eq!(batch["kind"], "Pod");
    assert_eq!(pod_nodes(batch), vec![Some("node-a".to_string())]);
    let web = workload(&report, "web");
    assert_eq!(pod_nodes(web), vec![Some("node-b".to_string())]);
    assert_eq!(web["nodes"]["node-a"]["fits"], false);
    assert_eq!(web["nodes"]["node-a"]["reason"], "Insufficient cpu");
    assert_eq!(web["nodes"]["node-a"]["plugin"], "NodeResourcesFit");
}

#[test]
fn bound_pod_on_unknown_node_is_a_warning() {
    let input = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  nodeName: node-z\n  containers: [{name: c, image: i}]\n";
    let report = simulate_json(&["-"], &[], Some(input));
    let warnings = report["warnings"].as_array().unwrap();
    assert!(warnings.iter().any(|w| w.as_str().unwrap().contains("node-z")), "{warnings:?}");
}

/// A pod bound to a node with a NoExecute taint it does not tolerate is evicted at once.
#[test]
fn bound_pod_with_untolerated_no_execute_taint_is_evicted_at_once() {
    let input = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nspec:\n  taints: [{key: dedicated, value: maintenance, effect: NoExecute}]\n\
        status: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\"}}\n---\n\
        apiVersion: v1\nkind: Pod\nmetadata: {name: legacy, namespace: ops}\nspec:\n  nodeName: node-a\n  containers: [{name: c, image: busybox}]\n";
    let report = simulate_json(&["-"], &[], Some(input));
    let evictions = report["evictions"].as_array().unwrap();
    assert_eq!(evictions.len(), 1, "{evictions:?}");
    let e = &evictions[0];
    assert_eq!(e["namespace"], "ops");
    assert_eq!(e["pod"], "legacy");
    assert_eq!(e["node"], "node-a");
    assert!(e["taint"].as_str().unwrap().contains("dedicated"), "{e}");
    assert!(e.as_object().unwrap().contains_key("afterSeconds"), "afterSeconds is present even when null: {e}");
    assert_eq!(e["afterSeconds"], Value::Null);
    // The pod still runs there in the report: eviction comes after binding.
    assert_eq!(pod_nodes(workload(&report, "legacy")), vec![Some("node-a".to_string())]);
}

/// A bound pod that tolerates every NoExecute taint of its node, each for a limited time, is
/// evicted after the smallest tolerationSeconds.
#[test]
fn bound_pod_with_timed_tolerations_is_evicted_after_the_smallest() {
    let input = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nspec:\n  taints:\n  - {key: a, effect: NoExecute}\n  - {key: b, effect: NoExecute}\n---\n\
        apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  nodeName: node-a\n  containers: [{name: c, image: i}]\n  tolerations:\n  - {key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 600}\n  - {key: b, operator: Exists, effect: NoExecute, tolerationSeconds: 60}\n";
    let report = simulate_json(&["-"], &[], Some(input));
    let evictions = report["evictions"].as_array().unwrap();
    assert_eq!(evictions.len(), 1, "{evictions:?}");
    assert_eq!(evictions[0]["afterSeconds"], 60);

    // Tolerated forever: no eviction.
    let forever = input.replace(", tolerationSeconds: 600", "").replace(", tolerationSeconds: 60", "");
    assert!(!forever.contains("tolerationSeconds"));
    let report = simulate_json(&["-"], &[], Some(&forever));
    assert_eq!(report["evictions"], serde_json::json!([]));
}

/// The only node is tainted not-ready:NoExecute and nothing else. The scheduler filters
/// untolerated NoExecute taints, but DefaultTolerationSeconds gives every pod a 300s toleration
/// for exactly that taint, so the pod lands and the taint manager evicts it after 300s.
/// Without the admission plugin the pod has no toleration and stays Pending.
#[test]
fn default_toleration_seconds_lets_pods_land_on_not_ready_nodes_for_300s() {
    let input = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nspec:\n  taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]\n\
        status: {allocatable: {cpu: \"2\", memory: 4Gi, pods: \"110\"}}\n---\n\
        apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: nginx}]\n";

    let report = simulate_json(&["-"], &[], Some(input));
    let web = workload(&report, "web");
    assert_eq!(pod_nodes(web), vec![Some("node-a".to_string())]);
    let evictions = report["evictions"].as_array().unwrap();
    assert_eq!(evictions.len(), 1, "{evictions:?}");
    assert_eq!(evictions[0]["pod"], "web-0");
    assert_eq!(evictions[0]["namespace"], "shop");
    assert_eq!(evictions[0]["node"], "node-a");
    assert_eq!(evictions[0]["afterSeconds"], 300);
    assert!(evictions[0]["taint"].as_str().unwrap().contains("node.kubernetes.io/not-ready"));
    let defaults = web["defaults"].as_array().unwrap();
    assert!(defaults.iter().any(|d| d.as_str().unwrap().contains("DefaultTolerationSeconds")), "{defaults:?}");

    let report = simulate_json(&["-"], &["--no-admission-defaults"], Some(input));
    let web = workload(&report, "web");
    assert_eq!(pod_nodes(web), vec![None]);
    assert_eq!(
        web["pods"][0]["message"],
        "0/1 nodes are available: 1 node(s) had untolerated taint(s). \
         no new claims to deallocate, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    );
    assert_eq!(report["evictions"], serde_json::json!([]));

    // The text output shows the eviction table.
    let text = placement(&["simulate", "-f", "-"], Some(input));
    assert!(text.stdout.contains("EVICTIONS"), "{}", text.stdout);
    assert!(text.stdout.contains("after 300s"), "{}", text.stdout);
}

/// A pod with its own not-ready toleration keeps it: DefaultTolerationSeconds adds nothing.
#[test]
fn own_not_ready_toleration_is_kept() {
    let input = "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nspec:\n  taints: [{key: node.kubernetes.io/not-ready, effect: NoExecute}]\n---\n\
        apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: i}]\n      tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 30}]\n";
    let report = simulate_json(&["-"], &[], Some(input));
    assert_eq!(report["evictions"][0]["afterSeconds"], 30);
}

// ---------------------------------------------------------------------------------------------
// kubectl get nodes -o yaml

const KUBECTL_NODES: &str = "examples/kubectl-get-nodes.yaml";

/// What `simulate` says of the gallery's node file, which has no workloads.
const NO_WORKLOADS_IN_KUBECTL_NODES: &str = "no workloads in the input (3 nodes read): nothing to place\n";

#[test]
fn kubectl_get_nodes_output_parses_alone() {
    let report = simulate_json(&[KUBECTL_NODES], &[], None);
    assert_eq!(report["workloads"], serde_json::json!([]));
    assert_eq!(report["warnings"], serde_json::json!([]), "every node has status.allocatable");
}

#[test]
fn input_without_workloads_is_said_on_stderr_and_exits_0() {
    for format in ["text", "json", "markdown"] {
        let run = placement(&["simulate", "-f", KUBECTL_NODES, "-o", format], None);
        // Exit 0 like `kubectl get` with "No resources found": nodes alone are valid input.
        assert_eq!(run.status, Some(0), "-o {format}: {}", run.stderr);
        assert_eq!(run.stderr, NO_WORKLOADS_IN_KUBECTL_NODES, "-o {format}");
    }
    let config = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: shop}\n";
    let run = placement(&["simulate", "-f", "-"], Some(config));
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert_eq!(run.stdout, "");
    assert_eq!(
        run.stderr,
        "Warning: ignored 1 object: 1 ConfigMap (not workloads Placement schedules; -v lists them)\n\
         no workloads in the input (0 nodes read): nothing to place\n"
    );
}

/// The seed example with `extra` objects that are not workloads appended.
fn seed_with(extra: &str) -> String {
    std::fs::read_to_string(root().join(SEED)).expect("the seed example") + "\n---\n" + extra
}

fn ignored_objects() -> String {
    let mut docs = Vec::new();
    for (kind, n) in [("ClusterRole", 2), ("ConfigMap", 3), ("ServiceAccount", 1)] {
        for i in 0..n {
            docs.push(format!(
                "apiVersion: v1\nkind: {kind}\nmetadata: {{name: {}-{i}, namespace: ops}}\n",
                kind.to_lowercase()
            ));
        }
    }
    docs.join("---\n")
}

#[test]
fn ignored_objects_are_counted_by_kind_on_stderr() {
    let input = seed_with(&ignored_objects());
    let run = placement(&["simulate", "-f", "-"], Some(&input));
    let stdout = run.ok();
    assert!(!stdout.contains("not a workload"), "the report on stdout has no warnings:\n{stdout}");
    assert!(stdout.starts_with("DaemonSet "), "{stdout}");
    // Most numerous kind first, ties in input order.
    assert_eq!(
        run.stderr,
        "Warning: ignored 6 objects: 3 ConfigMap, 2 ClusterRole, 1 ServiceAccount (not workloads Placement schedules; -v lists them)\n"
    );

    // -v lists every one, in the report's words.
    let verbose = placement(&["simulate", "-f", "-", "-v"], Some(&input));
    assert_eq!(verbose.stdout, stdout, "a small report is the same with -v");
    let lines: Vec<&str> = verbose.stderr.lines().collect();
    assert_eq!(lines.len(), 6, "{}", verbose.stderr);
    assert!(lines
        .iter()
        .all(|l| l.starts_with("Warning: ") && l.ends_with("is not a workload Placement schedules; ignored")));
    assert!(
        lines.iter().any(|l| l.starts_with("Warning: ConfigMap ops/configmap-2 (<stdin> document ")),
        "{}",
        verbose.stderr
    );

    // Markdown likewise; JSON keeps every warning in the report, and says them on stderr too.
    let md = placement(&["simulate", "-f", "-", "-o", "markdown"], Some(&input));
    assert!(!md.ok().contains("not a workload"), "{}", md.stdout);
    assert_eq!(md.stderr, run.stderr);
    let json = placement(&["simulate", "-f", "-", "-o", "json"], Some(&input));
    assert_eq!(json.json()["warnings"].as_array().map(Vec::len), Some(6));
    assert_eq!(json.stderr, run.stderr);
}

#[test]
fn other_warnings_go_to_stderr_one_by_one() {
    let bare = "apiVersion: v1\nkind: Node\nmetadata: {name: bare}\n---\n\
        apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\nspec:\n  containers: [{name: c, image: nginx}]\n";
    let input = format!("{bare}---\n{}", ignored_objects());
    let run = placement(&["simulate", "-f", "-"], Some(&input));
    assert!(!run.ok().contains("Warning"), "{}", run.stdout);
    assert_eq!(
        run.stderr,
        "Warning: Node bare has no status.allocatable: resources and pod count are not checked on it\n\
         Warning: ignored 6 objects: 3 ConfigMap, 2 ClusterRole, 1 ServiceAccount (not workloads Placement schedules; -v lists them)\n"
    );
}

#[test]
fn kubectl_get_nodes_with_workloads() {
    let workloads = "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]\n---\n\
        apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: kube-proxy, namespace: kube-system}\nspec:\n  selector: {matchLabels: {app: kube-proxy}}\n  template:\n    metadata: {labels: {app: kube-proxy}}\n    spec:\n      hostNetwork: true\n      containers: [{name: kube-proxy, image: registry.k8s.io/kube-proxy:v1.30.4}]\n";
    let report = simulate_json(&[KUBECTL_NODES, "-"], &[], Some(workloads));

    let web = workload(&report, "web");
    let cordoned = &web["nodes"]["k8s-worker-02"];
    assert_eq!(cordoned["fits"], false);
    assert_eq!(cordoned["plugin"], "NodeUnschedulable");
    assert_eq!(cordoned["reason"], "node(s) were unschedulable");
    let not_ready = &web["nodes"]["k8s-worker-03"];
    assert_eq!(not_ready["plugin"], "TaintToleration", "the NoSchedule not-ready taint is not tolerated");
    assert_eq!(web["nodes"]["k8s-worker-01"]["fits"], true);
    assert_eq!(pod_nodes(web), vec![Some("k8s-worker-01".to_string()); 2]);

    let ds = workload(&report, "kube-proxy");
    assert_eq!(ds["desired"], 2, "worker-01 and the cordoned worker-02; not-ready:NoSchedule blocks worker-03");
    assert_eq!(ds["nodes"]["k8s-worker-02"]["fits"], true, "daemon pods tolerate node.kubernetes.io/unschedulable");
    let ds_nodes: Vec<Option<String>> = pod_nodes(ds);
    assert!(ds_nodes.contains(&Some("k8s-worker-02".to_string())), "{ds_nodes:?}");
    assert_eq!(ds["nodes"]["k8s-worker-03"]["fits"], false);
    assert!(ds["nodes"]["k8s-worker-03"]["detail"].as_str().unwrap().contains("node.kubernetes.io/not-ready"));
    assert_eq!(report["evictions"], serde_json::json!([]));
}

// ---------------------------------------------------------------------------------------------
// Output formats

#[test]
fn markdown_has_a_node_table() {
    let run = placement(&["simulate", "-f", SEED, "-o", "markdown"], None);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert!(run.stdout.contains("| Node | Fits |"), "{}", run.stdout);
    assert!(run.stdout.contains("DESIRED **1**"), "{}", run.stdout);
    assert!(run.stdout.contains("```yaml"), "the fix patch is a YAML block:\n{}", run.stdout);
}

#[test]
fn unknown_output_format_is_a_usage_error() {
    let run = placement(&["simulate", "-f", SEED, "-o", "yaml"], None);
    assert_ne!(run.status, Some(0));
    assert!(run.stdout.is_empty());
}

fn examples() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .expect("examples/ exists")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_example_runs_in_every_format() {
    let files = examples();
    assert!(files.len() >= 6, "the gallery: {files:?}");
    for file in &files {
        let path = file.to_str().unwrap();
        for format in ["text", "json", "markdown"] {
            let run = placement(&["simulate", "-f", path, "-o", format], None);
            assert_eq!(run.status, Some(0), "{path} -o {format}: {}", run.stderr);
            // The gallery's node file has no workloads: that is said on stderr, and nothing else is.
            let expected = if path.ends_with("kubectl-get-nodes.yaml") { NO_WORKLOADS_IN_KUBECTL_NODES } else { "" };
            assert_eq!(run.stderr, expected, "{path} -o {format}");
            if format == "json" {
                let report = run.json();
                for key in ["workloads", "warnings", "evictions"] {
                    assert!(report[key].is_array(), "{path}: {key} is an array");
                }
                for w in report["workloads"].as_array().unwrap() {
                    for key in ["kind", "namespace", "name", "desired", "pods", "nodes", "fixes"] {
                        assert!(!w[key].is_null(), "{path}: workload {} lacks {key}", w["name"]);
                    }
                    for (node, v) in w["nodes"].as_object().unwrap() {
                        for key in ["fits", "plugin", "reason", "detail", "score"] {
                            assert!(v.as_object().unwrap().contains_key(key), "{path}: {node} lacks {key}");
                        }
                    }
                }
            }
        }
    }
}

/// The stories the example comments tell, checked.
#[test]
fn examples_tell_the_truth() {
    let storage = simulate_json(&["examples/storage-operator-dedicated-pool.yaml"], &[], None);
    let csi = workload(&storage, "csi-rbdplugin");
    assert_eq!(csi["desired"], 2, "the CSI plugin misses the 3 storage nodes");
    for n in ["storage-1", "storage-2", "storage-3"] {
        assert_eq!(csi["nodes"][n]["plugin"], "TaintToleration", "{n}");
        assert!(csi["nodes"][n]["detail"].as_str().unwrap().contains("{storage-node: true}"), "{n}");
    }
    assert_eq!(csi["fixes"][0]["verified"], true);
    assert!(csi["fixes"][0]["patch"].as_str().unwrap().contains("key: storage-node"));
    let mon = workload(&storage, "rook-ceph-mon");
    let mut mon_nodes = pod_nodes(mon);
    mon_nodes.sort();
    assert_eq!(mon_nodes, ["storage-1", "storage-2", "storage-3"].map(|n| Some(n.to_string())), "one mon per host");
    assert_eq!(workload(&storage, "rook-ceph-operator")["scheduled"], 1);

    let cp = simulate_json(&["examples/control-plane-taints.yaml"], &[], None);
    let fluent = workload(&cp, "fluent-bit");
    assert_eq!(fluent["desired"], 2);
    assert_eq!(fluent["nodes"]["cp-1"]["reason"], "node(s) had untolerated taint(s)");
    assert!(fluent["nodes"]["cp-1"]["detail"].as_str().unwrap().contains("node-role.kubernetes.io/control-plane"));
    assert_eq!(workload(&cp, "node-exporter")["desired"], 3);
    let web = workload(&cp, "web");
    assert_eq!(web["scheduled"], 4);
    assert!(!pod_nodes(web).contains(&Some("cp-1".to_string())));
    let cp_130 = simulate_json(&["examples/control-plane-taints.yaml"], &["--kube-version", "1.30"], None);
    assert_eq!(
        workload(&cp_130, "fluent-bit")["nodes"]["cp-1"]["reason"],
        "node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }",
        "upstream prints the empty value as is"
    );

    let gpu = simulate_json(&["examples/gpu-pool.yaml"], &[], None);
    let train = workload(&gpu, "train-resnet50");
    let mut train_nodes = pod_nodes(train);
    train_nodes.sort();
    assert_eq!(train_nodes, [Some("gpu-1".to_string()), Some("gpu-2".to_string())]);
    let finetune = workload(&gpu, "finetune-llm");
    assert_eq!(
        finetune["pods"][0]["message"],
        "0/4 nodes are available: 2 Insufficient nvidia.com/gpu, 2 node(s) didn't match Pod's node affinity/selector. \
         no new claims to deallocate, preemption: 0/4 nodes are available: 2 No preemption victims found for incoming pod, \
         2 Preemption is not helpful for scheduling."
    );
    let web = workload(&gpu, "web");
    assert_eq!(web["scheduled"], 4);
    assert!(pod_nodes(web).iter().all(|n| n.as_deref().is_some_and(|n| n.starts_with("cpu-"))));

    let packing = simulate_json(&["examples/resource-packing.yaml"], &[], None);
    // (workload, placed, message of the last replica)
    let rows = [
        ("api", 6, "0/3 nodes are available: 3 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."),
        ("worker", 6, "0/3 nodes are available: 3 Too many pods. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."),
        ("cache", 0, "0/3 nodes are available: 3 Insufficient cpu, 3 Too many pods. no new claims to deallocate, preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod."),
    ];
    for (name, placed, message) in rows {
        let w = workload(&packing, name);
        assert_eq!(w["scheduled"], placed, "{name}");
        let pods = w["pods"].as_array().unwrap();
        assert_eq!(pods.last().unwrap()["message"], message, "{name}");
    }
}

/// A fix is `verified` when a re-simulation with it applied places every replica
/// (core/src/explain/verify.rs). finetune-llm asks for 2 GPUs; dropping its GPU nodeSelector
/// lets it past NodeAffinity on cpu-1/cpu-2, but those nodes have no GPU at all (and too little
/// memory), so the patched pod reaches no node: such a fix must not be offered as verified.
/// What is offered is more GPU capacity, checked with the what-if it names.
#[test]
fn fix_that_reaches_no_node_is_not_verified() {
    let gpu = simulate_json(&["examples/gpu-pool.yaml"], &[], None);
    let finetune = workload(&gpu, "finetune-llm");
    for fix in finetune["fixes"].as_array().unwrap() {
        let keys = fix.as_object().unwrap();
        assert!(keys.contains_key("stillBlocked") && keys.contains_key("kind"), "the contract's fields: {fix:#}");
        assert_eq!(fix["verified"] == true, fix["stillBlocked"].is_null(), "{fix:#}");
    }
    let capacity = finetune["fixes"].as_array().unwrap().iter().find(|f| f["kind"] == "capacity").expect("capacity");
    assert_eq!(capacity["verified"], true, "{capacity:#}");
    let command = capacity["command"].as_str().unwrap();
    assert_eq!(command, "placement simulate --what-if 'add-nodes 1 like gpu-2'");
    let after = simulate_json(&["examples/gpu-pool.yaml"], &["--what-if", "add-nodes 1 like gpu-2"], None);
    assert_eq!(workload(&after, "finetune-llm")["pending"], 0, "the what-if the fix names places it");
}

// ---------------------------------------------------------------------------------------------
// Conformance

fn vectors_path() -> PathBuf {
    let shared = std::env::var("SHARED").map(PathBuf::from).unwrap_or_else(|_| root().join("../shared"));
    let path = shared.join("conformance/kube-scheduler/vectors.json");
    assert!(
        path.is_file(),
        "{} not found: put the shared folder beside the repository or set SHARED=...",
        path.display()
    );
    path
}

#[test]
fn conformance_vectors_all_pass() {
    let path = vectors_path();
    let run = placement(&["conformance", path.to_str().unwrap()], None);
    assert_eq!(run.status, Some(0), "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("334 passed, 0 failed"), "{}", run.stdout);
    assert!(!run.stdout.contains("FAIL"), "{}", run.stdout);
}

#[test]
fn conformance_reports_a_wrong_expectation() {
    let text = std::fs::read_to_string(vectors_path()).unwrap();
    let mut vectors: Value = serde_json::from_str(&text).unwrap();
    let first = &mut vectors[0];
    assert_eq!(first["kind"], "toleration");
    let id = first["id"].as_str().unwrap().to_string();
    let tolerated = first["expected"]["tolerated"].as_bool().unwrap();
    first["expected"]["tolerated"] = Value::Bool(!tolerated);
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("placement-cli-wrong-vectors.json");
    std::fs::write(&path, serde_json::to_string(&vectors).unwrap()).unwrap();

    let run = placement(&["conformance", path.to_str().unwrap()], None);
    assert_eq!(run.status, Some(1), "{}", run.stdout);
    assert!(run.stdout.contains("333 passed, 1 failed"), "{}", run.stdout);
    assert!(run.stdout.contains(&format!("FAIL {id}")), "{}", run.stdout);
}

#[test]
fn conformance_on_bad_files_fails_cleanly() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let empty = dir.join("placement-cli-empty-vectors.json");
    std::fs::write(&empty, "[]").unwrap();
    let not_json = dir.join("placement-cli-not-json.json");
    std::fs::write(&not_json, "{ nope").unwrap();
    // (path, why)
    let rows = [
        (empty, "no vectors: nothing passed, so not a success"),
        (not_json, "not JSON"),
        (dir.join("placement-cli-no-such-vectors.json"), "missing file"),
    ];
    for (path, why) in rows {
        let run = placement(&["conformance", path.to_str().unwrap()], None);
        assert_eq!(run.status, Some(1), "{why}: {}{}", run.stdout, run.stderr);
    }
}

/// `--what-if`: the seed case. Tainting the `general` node group NoExecute evicts the
/// security agent, which does not tolerate it, and the report says so before anyone applies
/// the taint, in JSON (`changes`), text and markdown; a node that does not exist fails as
/// kubectl fails.
#[test]
fn what_if_shows_the_coverage_a_taint_takes() {
    let file = "tests/fixtures/snapshots/daemonset-missing-nodes.yaml";
    let command = "kubectl taint nodes -l eks.amazonaws.com/nodegroup=general maintenance=true:NoExecute";
    let report = simulate_json(&[file], &["--what-if", command], None);
    let changes = &report["changes"];
    assert_eq!(changes["commands"][0]["command"], command);
    assert_eq!(
        changes["commands"][0]["output"],
        serde_json::json!([
            "node/ip-10-0-1-23.eu-west-1.compute.internal tainted",
            "node/ip-10-0-3-91.eu-west-1.compute.internal tainted"
        ])
    );
    assert_eq!(changes["evicted"][0]["pod"], "security-agent-b8mzw");
    assert_eq!(changes["evicted"][0]["cause"], "taint maintenance=true:NoExecute");
    let coverage = &changes["daemonSets"][0];
    assert_eq!((coverage["name"].as_str(), coverage["pool"].as_str()), (Some("security-agent"), Some("general")));
    assert_eq!((coverage["before"].as_u64(), coverage["after"].as_u64()), (Some(2), Some(0)));
    assert_eq!(workload(&report, "security-agent")["desired"], 0, "the report is the cluster after");

    let run = placement(&["simulate", "-f", file, "--what-if", command], None);
    let text = run.ok();
    // The snapshot's nodes say which release it is; the report starts by saying so.
    let note = "Kubernetes 1.35: the newest kubelet among the input's nodes is v1.35.2-eks-1b3e656; the control \
                plane may be up to three minors newer (--kube-version sets the release)\n\n";
    assert!(text.starts_with(&format!("{note}WHAT-IF\n  $ kubectl taint nodes")), "{text}");
    assert!(text.contains("security/security-agent   general   2/2      0/2     loses ip-10-0-1-23"), "{text}");
    let run = placement(&["simulate", "-f", file, "--what-if", command, "-o", "markdown"], None);
    let md = run.ok();
    assert!(md.starts_with(&format!("{note}## What-if\n")), "{md}");
    assert!(md.contains("### DaemonSet coverage"), "{md}");

    placement(&["simulate", "-f", file, "--what-if", "kubectl cordon no-such-node"], None).fails_with(
        "--what-if \"kubectl cordon no-such-node\": Error from server (NotFound): nodes \"no-such-node\" not found",
    );
    placement(&["simulate", "-f", file, "--what-if", "kubectl taint nodes a"], None)
        .fails_with("--what-if \"kubectl taint nodes a\": error: at least one taint update is required");
}

/// `n` nodes labelled `tier: a` or `tier: b` (alternately), the `b` ones tainted, and a
/// Deployment of `replicas` that does not tolerate the taint.
fn tiered_cluster(n: usize, replicas: usize) -> String {
    let mut docs: Vec<String> = (0..n)
        .map(|i| {
            let (tier, taints) =
                if i % 2 == 0 { ("a", "[]") } else { ("b", "[{key: dedicated, value: b, effect: NoSchedule}]") };
            format!(
                "apiVersion: v1\nkind: Node\nmetadata: {{name: node-{i:02}, labels: {{tier: {tier}}}}}\n\
                 spec: {{taints: {taints}}}\nstatus: {{allocatable: {{cpu: '4', memory: 16Gi, pods: '110'}}}}\n"
            )
        })
        .collect();
    docs.push(format!(
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {{name: web, namespace: shop}}\nspec:\n  replicas: {replicas}\n  \
         selector: {{matchLabels: {{app: web}}}}\n  template:\n    metadata: {{labels: {{app: web}}}}\n    spec:\n      \
         containers: [{{name: c, image: nginx, resources: {{requests: {{cpu: 100m}}}}}}]\n"
    ));
    docs.join("---\n")
}

#[test]
fn nodes_with_the_same_verdict_are_grouped_by_the_pool_label_and_listed_with_v() {
    let input = tiered_cluster(24, 12);
    let run = placement(&["simulate", "-f", "-", "--pool-label", "tier"], Some(&input));
    let text = run.ok();
    assert!(text.contains("  pool a (12 nodes: node-00 ... node-22)   yes "), "{text}");
    assert!(
        text.contains(
            "  pool b (12 nodes: node-01 ... node-23)   no     TaintToleration   node(s) had untolerated taint(s) (untolerated taint {dedicated: b} (NoSchedule))\n"
        ),
        "{text}"
    );
    assert!(text.contains("(24 nodes in 2 groups of the same verdict; -v lists each node)"), "{text}");
    assert!(text.contains("12 pods: web-0 ... web-11   pool a (12 nodes)   Scheduled"), "{text}");
    assert!(text.lines().count() < 12, "{text}");

    // -v: a row per node and per pod, as for a small cluster.
    let verbose = placement(&["simulate", "-f", "-", "--pool-label", "tier", "-v"], Some(&input));
    let verbose = verbose.ok();
    for i in 0..24 {
        assert!(verbose.contains(&format!("\n  node-{i:02} ")), "node-{i:02} in:\n{verbose}");
    }
    for i in 0..12 {
        assert!(verbose.contains(&format!("\n  web-{i} ")), "web-{i} in:\n{verbose}");
    }
    assert!(!verbose.contains("pool a"), "{verbose}");

    // Without the pool label (none of the clouds' labels either): groups by verdict alone.
    let plain = placement(&["simulate", "-f", "-"], Some(&input));
    assert!(plain.ok().contains("  12 nodes: node-00 ... node-22   yes "), "{}", plain.stdout);

    // JSON is never grouped.
    let json = placement(&["simulate", "-f", "-", "--pool-label", "tier", "-o", "json"], Some(&input)).json();
    assert_eq!(json["workloads"][0]["nodes"].as_object().map(|n| n.len()), Some(24));
}

/// Without `--kube-version`, the release is the newest kubelet of the input's Nodes (here
/// v1.33.2), said in the text report and in the JSON; a given release wins; a kubelet newer
/// than the modelled releases gives the newest modelled one, said so.
#[test]
fn the_release_comes_from_the_nodes_kubelets_unless_given() {
    let snapshot = include_str!("../../examples/cluster-snapshot.yaml");
    let at = |kubelet: &str| snapshot.replace("kubeletVersion: v1.35.2", &format!("kubeletVersion: {kubelet}"));
    let older = at("v1.33.2");
    let report = simulate_json(&["-"], &[], Some(&older));
    assert_eq!(report["kubeVersion"], "1.33");
    assert_eq!(report["kubeVersionSource"], serde_json::json!({"from": "nodes", "kubeletVersion": "v1.33.2"}));
    let note = "Kubernetes 1.33: the newest kubelet among the input's nodes is v1.33.2; the control plane may be \
                up to three minors newer (--kube-version sets the release)";
    assert_eq!(report["kubeVersionNote"], note);
    // 1.33 words the snapshot's Pending pod's message as 1.33 did.
    let pending = report["workloads"].as_array().unwrap().iter().flat_map(|w| w["pods"].as_array().unwrap());
    let messages: Vec<&str> = pending.filter_map(|p| p["message"].as_str()).collect();
    assert!(messages.iter().any(|m| m.contains("untolerated taint {CriticalAddonsOnly: true}")), "{messages:?}");
    let run = placement(&["simulate", "-f", "-"], Some(&older));
    let text = run.ok();
    assert!(text.starts_with(&format!("{note}\n\n")), "{text}");

    let given = simulate_json(&["-"], &["--kube-version", "1.35"], Some(&older));
    assert_eq!(
        (given["kubeVersion"].as_str(), given["kubeVersionSource"]["from"].as_str()),
        (Some("1.35"), Some("given"))
    );
    assert!(given.get("kubeVersionNote").is_none(), "{given}");
    let run = placement(&["simulate", "-f", "-", "--kube-version", "1.35"], Some(&older));
    let text = run.ok();
    assert!(!text.contains("Kubernetes 1."), "{text}");

    let newer = simulate_json(&["-"], &[], Some(&at("v1.37.1")));
    assert_eq!(newer["kubeVersion"], "1.36");
    assert_eq!(
        newer["kubeVersionNote"],
        "Kubernetes 1.36: the newest kubelet among the input's nodes is v1.37.1, newer than the newest modelled \
         release 1.36 (--kube-version sets the release)"
    );

    let nodes_without_kubelets = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n";
    let default = simulate_json(&["-"], &[], Some(nodes_without_kubelets));
    assert_eq!(
        (default["kubeVersion"].as_str(), default["kubeVersionSource"]["from"].as_str()),
        (Some("1.35"), Some("default"))
    );
}

/// 1.36's NodeDeclaredFeatures (beta, on): a pod with `hostNetwork` and `hostUsers: false`
/// goes only to a node that declares `UserNamespacesHostNetworkSupport`; 1.35 (the gate off)
/// places it anywhere.
#[test]
fn node_declared_features_filter_from_1_36() {
    let input = "\
apiVersion: v1
kind: Node
metadata: {name: old}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: new}
status:
  allocatable: {cpu: '4', memory: 8Gi, pods: '110'}
  declaredFeatures: [UserNamespacesHostNetworkSupport]
---
apiVersion: v1
kind: Pod
metadata: {name: agent, namespace: default}
spec:
  hostNetwork: true
  hostUsers: false
  containers: [{name: c, image: agent, resources: {requests: {cpu: 100m}}}]
";
    let at = |version: &str, text: &str| simulate_json(&["-"], &["--kube-version", version], Some(text));
    let pod = |report: &Value| workload(report, "agent")["pods"][0].clone();
    let placed = at("1.36", input);
    assert_eq!(pod(&placed)["node"], "new");
    let old = &workload(&placed, "agent")["nodes"]["old"];
    assert_eq!(
        (old["plugin"].as_str(), old["reason"].as_str()),
        (Some("NodeDeclaredFeatures"), Some("node(s) didn't match Pod's required features"))
    );
    let nowhere = at("1.36", &input.replace("  declaredFeatures: [UserNamespacesHostNetworkSupport]\n", ""));
    let message = pod(&nowhere)["message"].as_str().unwrap_or_default().to_string();
    assert!(
        message.starts_with("0/2 nodes are available: 2 node(s) didn't match Pod's required features."),
        "{message}"
    );
    assert!(
        message.ends_with("preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."),
        "{message}"
    );
    let before = at("1.35", &input.replace("  declaredFeatures: [UserNamespacesHostNetworkSupport]\n", ""));
    assert!(pod(&before)["node"].is_string(), "1.35: the gate is off: {before}");
}

/// Pods that name a gang-scheduling group are placed one by one, as every modelled release's
/// default scheduler does with its gates off, and the report says so.
#[test]
fn gang_scheduled_pods_are_placed_alone_and_said_so() {
    let input = "\
apiVersion: v1
kind: Node
metadata: {name: a}
status: {allocatable: {cpu: '1', memory: 8Gi, pods: '110'}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: trainer, namespace: ml}
spec:
  replicas: 4
  selector: {matchLabels: {app: trainer}}
  template:
    metadata: {labels: {app: trainer}}
    spec:
      schedulingGroup: {podGroupName: trainers}
      containers: [{name: c, image: t, resources: {requests: {cpu: 300m}}}]
";
    let report = simulate_json(&["-"], &["--kube-version", "1.36"], Some(input));
    let trainer = workload(&report, "trainer");
    assert_eq!(
        (trainer["scheduled"].as_i64(), trainer["pending"].as_i64()),
        (Some(3), Some(1)),
        "one by one, not all or nothing"
    );
    let warnings: Vec<&str> = report["warnings"].as_array().unwrap().iter().filter_map(|w| w.as_str()).collect();
    assert!(
        warnings.contains(
            &"Deployment ml/trainer (PodGroup trainers) name a group for gang scheduling (spec.schedulingGroup, \
              spec.workloadRef): Kubernetes 1.36's default scheduler does not wait for the group (its gates \
              GenericWorkload and GangScheduling are off by default, and the API server drops the field while they \
              are), so each pod is placed alone"
        ),
        "{warnings:?}"
    );
}
