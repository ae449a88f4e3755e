//! Strict input, as `kubectl apply --validate=strict` has the API server check it: unknown
//! and duplicate fields with document, path and line; every invalid document reported; API
//! versions no longer served and selectors that miss their template rejected in the API
//! server's words. Through placement-core's public API as the CLI uses it
//! (`documents::parse_manifests_checked`, then `simulate`); the binary's own tests are in
//! `cli/tests/strict.rs`.

use std::path::{Path, PathBuf};

use placement_core::cluster::simulate::{simulate, SimulateOptions};
use placement_core::input::documents::{
    parse_manifests, parse_manifests_all, parse_manifests_checked, parse_manifests_reference, InputError,
};
use placement_core::input::source_map::error_line;
use placement_core::input::strict::check;
use placement_core::input::text::decode_text;
use placement_core::model::version::KubeVersion;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("tests/ has a parent").to_path_buf()
}

fn fixture(path: &str) -> String {
    decode_text(&std::fs::read(root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}")), path).unwrap()
}

const POD: &str = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n";

#[test]
fn findings_name_document_path_line_and_the_field_meant() {
    let rows: Vec<(&str, String, Vec<&str>)> = vec![
        (
            "typos in a pod spec",
            format!("{POD}  toleration:\n  - operator: Exists\n  nodeSelecter: {{pool: gpu}}\n  containers: [{{name: c, image: i}}]\n"),
            vec![
                r#"Pod p (s document 1): line 6: strict decoding error: unknown field "spec.toleration"; did you mean `tolerations`?"#,
                r#"Pod p (s document 1): line 8: strict decoding error: unknown field "spec.nodeSelecter"; did you mean `nodeSelector`?"#,
            ],
        ),
        (
            "deep in a container, no field near enough to suggest",
            format!("{POD}  containers:\n  - name: c\n    image: i\n    resource: {{}}\n    colour: red\n"),
            vec![
                r#"Pod p (s document 1): line 9: strict decoding error: unknown field "spec.containers[0].resource"; did you mean `resources`?"#,
                r#"Pod p (s document 1): line 10: strict decoding error: unknown field "spec.containers[0].colour""#,
            ],
        ),
        (
            "a key given twice: the line of the second",
            format!("{POD}  containers:\n  - name: c\n    image: i\n    image: j\n  priority: 1\n  priority: 2\n"),
            vec![
                r#"Pod p (s document 1): line 9: strict decoding error: duplicate field "spec.containers[0].image""#,
                r#"Pod p (s document 1): line 11: strict decoding error: duplicate field "spec.priority""#,
            ],
        ),
        (
            "documents and List items numbered as everywhere else",
            "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: c}\n  spec: {unschedulabel: true}\n".into(),
            vec![
                r#"Node c (s document 3): line 14: strict decoding error: unknown field "spec.unschedulabel"; did you mean `unschedulable`?"#,
            ],
        ),
        (
            "a kind one typo away",
            "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: d}\n---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata: {name: r}\n".into(),
            vec![
                r#"Deploymnet d (s document 1): line 2: no matches for kind "Deploymnet" in version "apps/v1"; did you mean `Deployment`?"#,
            ],
        ),
        (
            "JSON",
            r#"{"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": {"containers": [], "hostNetwork": true, "hostnetwork": true}}"#.into(),
            // One line of JSON: no line worth naming.
            vec![
                r#"Pod p (s document 1): strict decoding error: unknown field "spec.hostnetwork"; did you mean `hostNetwork`?"#,
            ],
        ),
        (
            "read back from a cluster: decoded by the API server already",
            "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\n  uid: 1f2e\n  creationTimestamp: \"2026-01-01T00:00:00Z\"\nspec:\n  futureField: 1\n".into(),
            vec![],
        ),
        (
            "an API version with another schema is not checked field by field",
            "apiVersion: extensions/v1beta1\nkind: Deployment\nmetadata: {name: d}\nspec: {rollbackTo: {revision: 1}}\n".into(),
            vec![],
        ),
        (
            "every field of the nested types known",
            format!(
                "{POD}  affinity:\n    nodeAffinity:\n      requiredDuringSchedulingIgnoredDuringExecution:\n        nodeSelectorTerms:\n        - matchExpressions: [{{key: a, operator: In, values: [b]}}]\n          matchFields: []\n    podAntiAffinity:\n      preferredDuringSchedulingIgnoredDuringExecution:\n      - weight: 1\n        podAffinityTerm: {{topologyKey: k, labelSelector: {{matchLabels: {{a: b}}}}, matchLabelKeys: [x], namespaceSelector: {{}}}}\n  topologySpreadConstraints:\n  - {{maxSkew: 1, topologyKey: k, whenUnsatisfiable: DoNotSchedule, minDomains: 2, nodeAffinityPolicy: Honor, nodeTaintsPolicy: Ignore}}\n  tolerations: [{{key: a, operator: Exists, effect: NoExecute, tolerationSeconds: 5}}]\n  securityContext: {{runAsUser: 1, seccompProfile: {{type: RuntimeDefault}}, sysctls: [{{name: a, value: b}}]}}\n  volumes:\n  - {{name: v, projected: {{sources: [{{serviceAccountToken: {{path: t, expirationSeconds: 600}}}}]}}}}\n  - {{name: w, ephemeral: {{volumeClaimTemplate: {{spec: {{accessModes: [ReadWriteOnce], resources: {{requests: {{storage: 1Gi}}}}}}}}}}}}\n  containers:\n  - name: c\n    image: i\n    ports: [{{containerPort: 80, protocol: TCP}}]\n    env: [{{name: A, valueFrom: {{fieldRef: {{fieldPath: spec.nodeName}}}}}}]\n    livenessProbe: {{httpGet: {{path: /, port: http}}, initialDelaySeconds: 3}}\n    readinessProbe: {{grpc: {{port: 9000}}}}\n    lifecycle: {{preStop: {{sleep: {{seconds: 1}}}}}}\n    securityContext: {{capabilities: {{add: [NET_ADMIN]}}, allowPrivilegeEscalation: false}}\n    resizePolicy: [{{resourceName: cpu, restartPolicy: NotRequired}}]\n  resources: {{requests: {{cpu: 1}}}}\n  schedulingGates: [{{name: g}}]\n"
            ),
            vec![],
        ),
    ];
    let mut wrong = Vec::new();
    for (name, input, want) in rows {
        let got: Vec<String> = check(&input, "s").iter().map(ToString::to_string).collect();
        if got != want {
            wrong.push(format!("{name}:\n  got  {got:#?}\n  want {want:#?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

const TYPOS: &str = "tests/fixtures/strict/typos.yaml";

#[test]
fn typos_are_warnings_by_default_and_errors_when_strict() {
    let text = fixture(TYPOS);
    let want = [
        r#"Deployment ml/trainer (tests/fixtures/strict/typos.yaml document 2): line 31: strict decoding error: unknown field "spec.template.spec.nodeSelecter"; did you mean `nodeSelector`?"#,
        r#"Deployment ml/trainer (tests/fixtures/strict/typos.yaml document 2): line 33: strict decoding error: unknown field "spec.template.spec.toleration"; did you mean `tolerations`?"#,
        r#"Deployment web (tests/fixtures/strict/typos.yaml document 3): line 51: strict decoding error: duplicate field "spec.replicas""#,
    ];
    let (manifests, warnings) = parse_manifests_checked(&text, TYPOS, false).unwrap();
    assert_eq!(warnings.iter().map(ToString::to_string).collect::<Vec<_>>(), want);
    assert_eq!(manifests.workloads.len(), 4);
    // The duplicate's last value, on the fast path and in serde_yaml alike.
    let web = |m: &placement_core::input::documents::Manifests| {
        m.workloads.iter().find(|w| w.name == "web").map(|w| w.replicas)
    };
    assert_eq!(web(&manifests), Some(1));
    assert_eq!(web(&parse_manifests_reference(&text, TYPOS).unwrap()), Some(1));

    let errors = parse_manifests_checked(&text, TYPOS, true).unwrap_err();
    assert_eq!(errors.iter().map(ToString::to_string).collect::<Vec<_>>(), want);
    // The playground's markers: each error's line.
    assert_eq!(errors.iter().map(|e| error_line(&text, e)).collect::<Vec<_>>(), [Some(31), Some(33), Some(51)]);
}

/// A kind one typo away from a built-in one is no resource kubectl can send: an error without
/// `--strict` too, with the other documents' errors; the fields' findings stay warnings.
#[test]
fn a_mistyped_kind_is_an_error_whatever_validate_says() {
    let text = "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: d}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n}\nspec: {unschedulabel: true}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}\n";
    for strict in [false, true] {
        let errors: Vec<String> =
            parse_manifests_checked(text, "s", strict).unwrap_err().iter().map(ToString::to_string).collect();
        assert_eq!(
            errors[0],
            r#"Deploymnet d (s document 1): line 2: no matches for kind "Deploymnet" in version "apps/v1"; did you mean `Deployment`?"#,
            "strict {strict}"
        );
        assert!(
            errors.last().unwrap().starts_with("Pod p (s document 3): spec.containers[0].resources.requests.cpu"),
            "{errors:?}"
        );
        // The unknown field is an error only with --strict.
        assert_eq!(errors.iter().any(|e| e.contains("unschedulabel")), strict, "{errors:?}");
    }
}

#[test]
fn the_api_server_rejects_what_it_does_not_serve_and_selectors_that_miss() {
    let text = fixture(TYPOS);
    let (manifests, _) = parse_manifests_checked(&text, TYPOS, false).unwrap();
    let errors = simulate(&manifests, &SimulateOptions::default()).unwrap_err();
    let got: Vec<String> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        got,
        [
            r#"Deployment legacy (tests/fixtures/strict/typos.yaml document 4): resource mapping not found: no matches for kind "Deployment" in version "extensions/v1beta1" (extensions/v1beta1 Deployments are not served since Kubernetes 1.16; Kubernetes 1.35 serves Deployment as apps/v1)"#,
            r#"DaemonSet monitoring/agent (tests/fixtures/strict/typos.yaml document 5): spec.template.metadata.labels: Invalid value: map[string]string{"app":"node-agent"}: `selector` does not match template `labels`"#,
        ]
    );
    assert_eq!(errors.iter().map(|e| error_line(&text, e)).collect::<Vec<_>>(), [Some(61), Some(86)]);
}

#[test]
fn removed_api_versions_follow_the_kube_version() {
    // (kind, apiVersion, --kube-version, served)
    let rows = [
        ("Deployment", "apps/v1", "1.35", true),
        ("Deployment", "extensions/v1beta1", "1.16", false),
        ("DaemonSet", "apps/v1beta2", "1.35", false),
        ("StatefulSet", "apps/v1beta1", "1.20", false),
        ("ReplicaSet", "extensions/v1beta1", "1.35", false),
        ("CronJob", "batch/v1beta1", "1.24", true),
        ("CronJob", "batch/v1beta1", "1.25", false),
        ("CronJob", "batch/v1", "1.20", false),
        ("CronJob", "batch/v1", "1.21", true),
        ("CronJob", "batch/v2alpha1", "1.20", false),
        ("Job", "batch/v1", "1.35", true),
        ("Job", "apps/v1", "1.35", false),
        ("Pod", "v1", "1.35", true),
    ];
    for (kind, api_version, version, served) in rows {
        let template = "{metadata: {labels: {app: x}}, spec: {containers: [{name: c, image: i}]}}";
        let spec = match kind {
            "Pod" => "{containers: [{name: c, image: i}]}".to_string(),
            "CronJob" => format!("{{schedule: '* * * * *', jobTemplate: {{spec: {{template: {template}}}}}}}"),
            "Job" => format!("{{template: {template}}}"),
            _ => format!("{{selector: {{matchLabels: {{app: x}}}}, template: {template}}}"),
        };
        let text = format!("apiVersion: {api_version:?}\nkind: {kind}\nmetadata: {{name: x}}\nspec: {spec}\n");
        let opts = SimulateOptions::for_version(version.parse::<KubeVersion>().unwrap());
        let result = simulate(&parse_manifests(&text, "s").unwrap(), &opts);
        match result {
            Ok(_) => assert!(served, "{kind} {api_version} at {version}: accepted"),
            Err(errors) => {
                assert!(!served, "{kind} {api_version} at {version}: {errors:?}");
                assert!(
                    matches!(errors.as_slice(), [InputError::NotServed { .. }]),
                    "{kind} {api_version} at {version}: {errors:?}"
                );
                let message = errors[0].to_string();
                let words = format!("no matches for kind {kind:?} in version {api_version:?}");
                assert!(message.contains(&words), "{message}");
            }
        }
    }
}

#[test]
fn every_invalid_document_is_reported() {
    let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: lots}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {memory: much}}}]}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: many}\n";
    let errors = parse_manifests_all(text, "s").unwrap_err();
    let docs: Vec<usize> = errors.iter().map(|e| e.doc().map_or(0, |d| d.index)).collect();
    assert_eq!(docs, [1, 3, 4], "{errors:?}");
    // The first is the one parse_manifests reports alone.
    assert_eq!(errors[0], parse_manifests(text, "s").unwrap_err());
    // Syntax errors stop the reading: one error.
    assert_eq!(parse_manifests_all("a: [\n", "s").unwrap_err().len(), 1);
}

/// Every YAML and JSON file of examples/ (the gallery's) and tests/fixtures/, except this
/// test's own typos, reads without a single finding: the field lists have no gaps that real
/// manifests fall into.
#[test]
fn examples_and_fixtures_have_no_unknown_fields() {
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml" || e == "json") {
                out.push(path);
            }
        }
    }
    let mut paths = Vec::new();
    files(&root().join("examples"), &mut paths);
    files(&root().join("tests/fixtures"), &mut paths);
    paths.retain(|p| !p.starts_with(root().join("tests/fixtures/strict")));
    assert!(paths.len() > 20, "{paths:?}");
    let mut findings = Vec::new();
    for path in &paths {
        let Ok(text) = decode_text(&std::fs::read(path).unwrap(), "") else { continue };
        findings.extend(check(&text, &path.display().to_string()).iter().map(ToString::to_string));
    }
    assert_eq!(findings, Vec::<String>::new());
}

/// A large generated input full of typos: the findings stop at the bound, and each is placed
/// on its line without reading the text again for each.
#[test]
fn findings_are_bounded_on_large_inputs() {
    let doc = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  toleration: []\n  containers: []\n";
    let text = vec![doc; 5_000].join("---\n");
    let started = std::time::Instant::now();
    let findings = check(&text, "s");
    eprintln!("5,000 documents checked in {:?}", started.elapsed());
    assert_eq!(findings.len(), placement_core::input::strict::MAX_FINDINGS);
    let last = findings.last().unwrap();
    assert_eq!((last.doc.index, last.line), (200, Some(199 * 8 + 6)));
}
