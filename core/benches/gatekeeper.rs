//! Gatekeeper evaluation throughput: a typical pod-security constraint set (10 of
//! Placement's library templates, one constraint each) reviewing one Pod. See
//! BENCHMARKS.md ("Gatekeeper").
//!
//! `cargo bench -p placement-core --bench gatekeeper`

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use placement_core::gatekeeper::{evaluate, Inventory, PolicySet};
use serde_json::json;

const TEMPLATES: [(&str, &str, &str); 10] = [
    (
        include_str!("../../gatekeeper/library/pod-security-policy/privileged-containers/template.yaml"),
        "K8sPSPPrivilegedContainer",
        "{}",
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/host-namespaces/template.yaml"),
        "K8sPSPHostNamespace",
        "{}",
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/host-network-ports/template.yaml"),
        "K8sPSPHostNetworkingPorts",
        r#"{"hostNetwork": false, "min": 80, "max": 9000}"#,
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/capabilities/template.yaml"),
        "K8sPSPCapabilities",
        r#"{"allowedCapabilities": ["NET_BIND_SERVICE"], "requiredDropCapabilities": ["ALL"]}"#,
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/allow-privilege-escalation/template.yaml"),
        "K8sPSPAllowPrivilegeEscalationContainer",
        "{}",
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/host-filesystem/template.yaml"),
        "K8sPSPHostFilesystem",
        "{}",
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/proc-mount/template.yaml"),
        "K8sPSPProcMount",
        r#"{"procMount": "Default"}"#,
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/seccompv2/template.yaml"),
        "K8sPSPSeccompV2",
        r#"{"allowedProfiles": ["RuntimeDefault", "Localhost"], "allowedLocalhostFiles": ["*"]}"#,
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/users/template.yaml"),
        "K8sPSPAllowedUsers",
        r#"{"runAsUser": {"rule": "MustRunAsNonRoot"}}"#,
    ),
    (
        include_str!("../../gatekeeper/library/pod-security-policy/volumes/template.yaml"),
        "K8sPSPVolumeTypes",
        r#"{"volumes": ["configMap", "emptyDir", "projected", "secret", "persistentVolumeClaim"]}"#,
    ),
];

fn policy() -> PolicySet {
    let mut set = PolicySet::default();
    for (i, (template, kind, params)) in TEMPLATES.iter().enumerate() {
        set.add_text(template, "template.yaml").expect("template compiles");
        let constraint = json!({
            "apiVersion": "constraints.gatekeeper.sh/v1beta1",
            "kind": kind,
            "metadata": {"name": format!("psp-{i}")},
            "spec": {
                "match": {"kinds": [{"apiGroups": [""], "kinds": ["Pod"]}]},
                "parameters": serde_json::from_str::<serde_json::Value>(params).expect("params"),
            }
        });
        set.add_constraint_value(&constraint).expect("constraint validates");
    }
    set
}

/// The bench Pod (2 containers, 2 volumes, violating 3 constraints), shared with the waPC
/// host's benchmark (`tests/wapc-host`).
fn pod() -> serde_json::Value {
    serde_json::from_str(include_str!("../src/admission/testdata/pod-security-bench.json")).expect("bench pod is JSON")
}

fn pod_security(c: &mut Criterion) {
    let set = policy();
    let pod = pod();
    let inventory = Inventory::default();
    let violations = evaluate(&set, &pod, &inventory).expect("evaluates");
    assert!(violations.len() >= 3, "the bench pod violates several constraints: {violations:?}");
    let mut g = c.benchmark_group("gatekeeper_pod_security_10_templates");
    g.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    g.throughput(Throughput::Elements(1));
    g.bench_function("evaluate_one_pod", |b| b.iter(|| evaluate(black_box(&set), black_box(&pod), &inventory)));
    g.finish();
}

criterion_group!(benches, pod_security);
criterion_main!(benches);
