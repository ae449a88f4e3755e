//! The `placement` binary on inputs as people save them: `-f DIR` and `-R` as kubectl reads
//! them, UTF-16 and UTF-8-with-BOM files, CRLF line breaks, kubectl's JSON lists, and kubectl's
//! output for people refused with the command to run instead. Fixtures are in
//! `tests/fixtures/input-formats/`.

mod common;

use std::path::PathBuf;

use common::{placement_bytes as placement, root, Run};
use serde_json::Value;

const FIXTURES: &str = "tests/fixtures/input-formats";

fn fixture(name: &str) -> String {
    format!("{FIXTURES}/{name}")
}

/// `placement simulate -f FILE... EXTRA -o json`.
fn simulate(files: &[&str], extra: &[&str], stdin: Option<&[u8]>) -> Run {
    let mut args = vec!["simulate"];
    for f in files {
        args.extend(["-f", f]);
    }
    args.extend(extra);
    args.extend(["-o", "json"]);
    placement(&args, stdin)
}

fn workload_names(report: &Value) -> Vec<&str> {
    report["workloads"].as_array().expect("workloads").iter().map(|w| w["name"].as_str().expect("name")).collect()
}

fn pod_nodes(report: &Value, workload: &str) -> Vec<Option<String>> {
    let w = report["workloads"].as_array().unwrap().iter().find(|w| w["name"] == workload).unwrap();
    w["pods"].as_array().unwrap().iter().map(|p| p["node"].as_str().map(str::to_string)).collect()
}

// ---------------------------------------------------------------------------------------------
// -f DIR, -R

/// `dir/` holds `10-nodes.yaml`, `2-web.yml` (UTF-8 with a BOM, CRLF), a README.md and a
/// notes.txt (kubectl table output, which would fail if read), and `1-batch/job.json`.
#[test]
fn a_directory_is_its_manifest_files_in_lexical_order() {
    let report = simulate(&[&fixture("dir")], &[], None).json();
    assert_eq!(workload_names(&report), ["web"], "not 1-batch/ without -R; README.md and notes.txt skipped");
    assert_eq!(pod_nodes(&report, "web"), [Some("general-1".to_string())]);
    // A trailing slash is the same directory.
    assert_eq!(simulate(&[&format!("{}/", fixture("dir"))], &[], None).json(), report);
}

#[test]
fn recursive_reads_subdirectories_in_their_place() {
    for flag in ["-R", "--recursive"] {
        let report = simulate(&[&fixture("dir")], &[flag], None).json();
        // `1-batch/job.json` sorts before `10-nodes.yaml` and `2-web.yml`, as in kubectl.
        assert_eq!(workload_names(&report), ["batch", "web"], "{flag}");
    }
}

#[test]
fn a_directory_without_manifests_is_an_error() {
    simulate(&[&fixture("no-manifests")], &[], None).fails_with(&format!(
        "error reading [{FIXTURES}/no-manifests]: recognized file extensions are [.json .yaml .yml]"
    ));
    // Its subdirectories' files are read only with -R.
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("placement-input-formats-nested");
    std::fs::create_dir_all(dir.join("nodes")).unwrap();
    std::fs::copy(root().join("tests/fixtures/cli/nodes.yaml"), dir.join("nodes/nodes.yaml")).unwrap();
    let path = dir.to_string_lossy().into_owned();
    simulate(&[&path], &[], None).fails_with(&format!(
        "error reading [{path}]: recognized file extensions are [.json .yaml .yml] (its subdirectories have some: -R reads them)"
    ));
    assert_eq!(simulate(&[&path], &["-R"], None).json()["workloads"], serde_json::json!([]));
}

#[test]
fn a_missing_path_is_an_error_in_kubectls_words() {
    simulate(&["no/such/dir"], &[], None).fails_with("the path \"no/such/dir\" does not exist");
}

/// Each file of a directory is its own source in error messages.
#[test]
fn errors_name_the_file_in_the_directory() {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("placement-input-formats-bad");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("a.yaml"), "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n").unwrap();
    std::fs::write(
        dir.join("b.yaml"),
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: lots}}\n",
    )
    .unwrap();
    let path = dir.to_string_lossy().into_owned();
    let run = simulate(&[&path], &[], None);
    assert_eq!(run.status, Some(1));
    let file = dir.join("b.yaml");
    assert!(
        run.stderr.starts_with(&format!(
            "error: Pod p ({} document 1): spec.containers[0].resources.requests.cpu: ",
            file.display()
        )),
        "{}",
        run.stderr
    );
}

// ---------------------------------------------------------------------------------------------
// Encodings and line breaks

/// PowerShell's `kubectl get nodes -o yaml > nodes.yaml` writes UTF-16 LE with a byte-order
/// mark and CRLF line breaks: the same report as the UTF-8 original, from a file or stdin.
#[test]
fn utf16_from_powershell_reads_as_the_original() {
    let workload = b"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web, namespace: shop}\nspec:\n  replicas: 2\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: nginx, resources: {requests: {cpu: 100m}}}]\n";
    let original = simulate(&["examples/kubectl-get-nodes.yaml", "-"], &[], Some(workload)).json();
    assert_eq!(pod_nodes(&original, "web"), vec![Some("k8s-worker-01".to_string()); 2]);
    let powershell = simulate(&[&fixture("nodes-powershell.yaml"), "-"], &[], Some(workload)).json();
    assert_eq!(powershell, original);

    let bytes = std::fs::read(root().join(fixture("nodes-powershell.yaml"))).unwrap();
    assert_eq!(bytes.get(..2), Some(&[0xFF, 0xFE][..]), "UTF-16 LE with a byte-order mark");
    let piped = simulate(&["-"], &[], Some(&bytes)).json();
    assert_eq!(piped, simulate(&["examples/kubectl-get-nodes.yaml"], &[], None).json());
}

#[test]
fn crlf_reads_as_lf() {
    let crlf = simulate(&["tests/fixtures/cli/nodes.yaml", &fixture("workloads-crlf.yaml")], &[], None).json();
    let lf = simulate(&["tests/fixtures/cli/nodes.yaml", &fixture("workloads-lf.yaml")], &[], None).json();
    assert_eq!(crlf, lf);
    assert_eq!(workload_names(&crlf), ["api", "node-exporter"]);
}

#[test]
fn other_encodings_are_an_error_naming_the_file_and_byte() {
    simulate(&["-"], &[], Some(b"apiVersion: v1\nkind: Node\nmetadata: {name: caf\xE9}\n"))
        .fails_with("<stdin>: not UTF-8 or UTF-16 text: invalid UTF-8 at byte 46");
}

// ---------------------------------------------------------------------------------------------
// kubectl's JSON, and its output for people

/// `kubectl get nodes,pods -A -o json`: a List of two nodes and three pods, with
/// managedFields and status. The running pods hold their nodes' CPU; the pending one is
/// scheduled.
#[test]
fn kubectl_json_list_reads() {
    let report = simulate(&[&fixture("kubectl-get-nodes-pods.json")], &[], None).json();
    // The pods are grouped under the ReplicaSets their ownerReferences name.
    assert_eq!(workload_names(&report), ["coredns-7db6d8ff4d", "web-7d9c6b5f48"]);
    assert_eq!(pod_nodes(&report, "coredns-7db6d8ff4d"), [Some("kind-control-plane".to_string())]);
    assert_eq!(pod_nodes(&report, "web-7d9c6b5f48"), [Some("kind-worker".to_string()), None]);
    let pending = &report["workloads"][1];
    assert_eq!(pending["notInInput"], true);
    assert_eq!(pending["nodes"]["kind-worker"]["reason"], "Insufficient cpu");
    assert_eq!(pending["nodes"]["kind-control-plane"]["plugin"], "TaintToleration");
    assert_eq!(report["warnings"], serde_json::json!([]));

    // `kubectl get pod NAME -o json`: one object.
    let report = simulate(&[&fixture("kubectl-get-pod.json")], &[], None).json();
    assert_eq!(workload_names(&report), ["web-7d9c6b5f48"]);
}

#[test]
fn kubectl_output_for_people_is_refused_with_the_command_to_run() {
    simulate(&[&fixture("kubectl-get-nodes-wide.txt")], &[], None).fails_with(&format!(
        "{FIXTURES}/kubectl-get-nodes-wide.txt: this is `kubectl get` table output, not YAML or JSON manifests: run `kubectl get nodes -o yaml > nodes.yaml` instead"
    ));
    simulate(&[&fixture("kubectl-describe-node.txt")], &[], None).fails_with(&format!(
        "{FIXTURES}/kubectl-describe-node.txt: this is `kubectl describe` output, not YAML or JSON manifests: run `kubectl get nodes -o yaml > nodes.yaml` instead"
    ));
    simulate(&["-"], &[], Some(b"NAME   READY   UP-TO-DATE   AVAILABLE   AGE\nweb    3/3     3            3           5d\n")).fails_with(
        "<stdin>: this is `kubectl get` table output, not YAML or JSON manifests: run `kubectl get deployments -o yaml > deployments.yaml` instead",
    );
}
