//! `placement simulate --strict`: unknown and duplicate fields are warnings on standard error
//! by default and errors with `--strict`, as `kubectl apply --validate=warn|strict`; every
//! invalid document of every file is reported in one run. The fixture is
//! `tests/fixtures/strict/typos.yaml`; the core's side is `tests/tests/strict_input.rs`.

mod common;

use common::placement_bytes as placement;

const TYPOS: &str = "tests/fixtures/strict/typos.yaml";

/// A GPU node and a Deployment with two typos: valid otherwise, so it simulates.
const TYPO_ONLY: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: gpu-1}\nspec:\n  taints: [{key: gpu, effect: NoSchedule}]\nstatus: {allocatable: {cpu: '8', memory: 8Gi, pods: '110'}}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: trainer}\nspec:\n  selector: {matchLabels: {app: t}}\n  template:\n    metadata: {labels: {app: t}}\n    spec:\n      toleration: [{key: gpu, operator: Exists}]\n      containers: [{name: c, image: i}]\n";

const TOLERATION: &str = r#"Deployment trainer (<stdin> document 2): line 16: strict decoding error: unknown field "spec.template.spec.toleration"; did you mean `tolerations`?"#;

#[test]
fn strict_findings_warn_by_default_and_fail_with_strict() {
    // (name, extra arguments, exit status, standard error)
    let rows: Vec<(&str, Vec<&str>, i32, String)> = vec![
        ("warnings by default", vec![], 0, format!("warning: {TOLERATION}\n")),
        ("errors with --strict", vec!["--strict"], 1, format!("error: {TOLERATION}\n")),
    ];
    for (name, extra, status, stderr) in rows {
        let mut args = vec!["simulate", "-f", "-", "-o", "json"];
        args.extend(extra);
        let run = placement(&args, Some(TYPO_ONLY.as_bytes()));
        assert_eq!(run.status, Some(status), "{name}: {}", run.stderr);
        assert_eq!(run.stderr, stderr, "{name}");
        if status == 0 {
            // The typo's consequence is still simulated: the taint is not tolerated.
            assert!(run.stdout.contains("untolerated taint"), "{name}: {}", run.stdout);
        } else {
            assert_eq!(run.stdout, "", "{name}");
        }
    }
}

#[test]
fn every_invalid_document_of_the_fixture_is_reported() {
    let doc = |n: usize| format!("({TYPOS} document {n})");
    let warn_lines = [
        format!(
            r#"warning: Deployment ml/trainer {}: line 31: strict decoding error: unknown field "spec.template.spec.nodeSelecter"; did you mean `nodeSelector`?"#,
            doc(2)
        ),
        format!(
            r#"warning: Deployment ml/trainer {}: line 33: strict decoding error: unknown field "spec.template.spec.toleration"; did you mean `tolerations`?"#,
            doc(2)
        ),
        format!(
            r#"warning: Deployment web {}: line 51: strict decoding error: duplicate field "spec.replicas""#,
            doc(3)
        ),
    ];
    let rejected = [
        format!(
            r#"error: Deployment legacy {}: resource mapping not found: no matches for kind "Deployment" in version "extensions/v1beta1" (extensions/v1beta1 Deployments are not served since Kubernetes 1.16; Kubernetes 1.35 serves Deployment as apps/v1)"#,
            doc(4)
        ),
        format!(
            r#"error: DaemonSet monitoring/agent {}: spec.template.metadata.labels: Invalid value: map[string]string{{"app":"node-agent"}}: `selector` does not match template `labels`"#,
            doc(5)
        ),
    ];
    // Without --strict: the findings are warnings, the rejected documents errors.
    let run = placement(&["simulate", "-f", TYPOS], None);
    assert_eq!(run.status, Some(1));
    let want: Vec<String> = warn_lines.iter().cloned().chain(rejected.iter().cloned()).collect();
    assert_eq!(run.stderr.lines().collect::<Vec<_>>(), want);

    // With --strict: all five, in document order, and nothing simulated.
    let run = placement(&["simulate", "-f", TYPOS, "--strict"], None);
    assert_eq!(run.status, Some(1));
    let want: Vec<String> =
        warn_lines.iter().map(|w| w.replacen("warning: ", "error: ", 1)).chain(rejected.iter().cloned()).collect();
    assert_eq!(run.stderr.lines().collect::<Vec<_>>(), want);
    assert_eq!(run.stdout, "");
}

#[test]
fn decode_errors_of_every_document_and_file_are_reported() {
    let bad_node = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: lots}}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {memory: much}}}]}\n";
    let run = placement(&["simulate", "-f", "-", "-f", TYPOS], Some(bad_node.as_bytes()));
    assert_eq!(run.status, Some(1));
    let errors: Vec<&str> = run.stderr.lines().filter(|l| l.starts_with("error: ")).collect();
    assert_eq!(errors.len(), 4, "{}", run.stderr);
    assert!(errors[0].starts_with("error: Node a (<stdin> document 1): status.allocatable.cpu"), "{}", errors[0]);
    assert!(
        errors[1].starts_with("error: Pod p (<stdin> document 2): spec.containers[0].resources.requests.memory"),
        "{}",
        errors[1]
    );
    assert!(errors[2].contains("document 4): resource mapping not found"), "{}", errors[2]);
    assert!(errors[3].contains("document 5): spec.template.metadata.labels"), "{}", errors[3]);
}

#[test]
fn the_examples_read_without_warnings() {
    let run = placement(&["simulate", "-f", "examples", "--strict", "-o", "json"], None);
    assert_eq!(run.status, Some(0), "{}", run.stderr);
    assert!(!run.stderr.contains("strict decoding error"), "{}", run.stderr);
}
