//! Kubewarden-style test cases: AdmissionRequest fixtures in `testdata/`, each run through
//! [`validate`] with a settings file, with the expected verdict, message fragments, warnings
//! and mutation listed in `testdata/cases.json` (the waPC host test in `tests/wapc-host` runs
//! the same table against the built wasm module).

use serde_json::{json, Value};

use super::*;
use crate::cluster::simulate::{simulate, SimulateOptions};
use crate::input::documents::{parse_manifests, Manifests};

/// Every fixture, by file name.
pub fn fixture(name: &str) -> &'static str {
    match name {
        "settings.json" => include_str!("testdata/settings.json"),
        "settings-warn.json" => include_str!("testdata/settings-warn.json"),
        "settings-blanket.json" => include_str!("testdata/settings-blanket.json"),
        "settings-gatekeeper.json" => include_str!("testdata/settings-gatekeeper.json"),
        "settings-gatekeeper-cel.json" => include_str!("testdata/settings-gatekeeper-cel.json"),
        "pod-privileged.json" => include_str!("testdata/pod-privileged.json"),
        "pod-unmirrored-image.json" => include_str!("testdata/pod-unmirrored-image.json"),
        "cases.json" => include_str!("testdata/cases.json"),
        "cronjob-control-plane-toleration.json" => include_str!("testdata/cronjob-control-plane-toleration.json"),
        "daemonset-defender.json" => include_str!("testdata/daemonset-defender.json"),
        "daemonset-gpu-driver.json" => include_str!("testdata/daemonset-gpu-driver.json"),
        "daemonset-logging.json" => include_str!("testdata/daemonset-logging.json"),
        "deployment-control-plane-toleration.json" => include_str!("testdata/deployment-control-plane-toleration.json"),
        "deployment-delete.json" => include_str!("testdata/deployment-delete.json"),
        "deployment-kube-system-exempt.json" => include_str!("testdata/deployment-kube-system-exempt.json"),
        "deployment-ml-gpu.json" => include_str!("testdata/deployment-ml-gpu.json"),
        "deployment-ml-no-pool.json" => include_str!("testdata/deployment-ml-no-pool.json"),
        "deployment-web.json" => include_str!("testdata/deployment-web.json"),
        "job-report.json" => include_str!("testdata/job-report.json"),
        "pod-owned-by-daemonset.json" => include_str!("testdata/pod-owned-by-daemonset.json"),
        "pod-tolerates-everything.json" => include_str!("testdata/pod-tolerates-everything.json"),
        "replicaset-web.json" => include_str!("testdata/replicaset-web.json"),
        "replicationcontroller-master-toleration.json" => {
            include_str!("testdata/replicationcontroller-master-toleration.json")
        }
        "service-ignored.json" => include_str!("testdata/service-ignored.json"),
        "statefulset-too-big.json" => include_str!("testdata/statefulset-too-big.json"),
        other => panic!("no fixture {other}"),
    }
}

fn json_of(name: &str) -> Value {
    serde_json::from_str(fixture(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn payload(request: &Value, settings: &Value) -> Vec<u8> {
    serde_json::to_vec(&json!({"request": request, "settings": settings})).unwrap()
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array).map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

/// Simulates `object` (a DaemonSet) on the inventory of `settings` and returns the nodes of
/// `pools` (`*` = all) that get no daemon pod.
pub fn uncovered_nodes(object: &Value, settings: &Value, pools: &[String]) -> Vec<String> {
    let s = settings::Settings::from_value(settings).unwrap();
    let mut m: Manifests = parse_manifests(&serde_json::to_string(object).unwrap(), "mutated").unwrap();
    m.nodes = s.inventory.owned_nodes();
    let report = simulate(&m, &SimulateOptions::default()).unwrap();
    let w = &report.workloads[0];
    s.inventory
        .nodes()
        .iter()
        .filter(|n| pools.iter().any(|p| p == "*" || p == s.inventory.pool_of(n)))
        .filter(|n| !w.pods.iter().any(|p| p.node.as_deref() == Some(n.metadata.name.as_str())))
        .map(|n| n.metadata.name.clone())
        .collect()
}

#[test]
fn kubewarden_testcases() {
    let cases = json_of("cases.json");
    let cases = cases.as_array().unwrap();
    assert!(cases.len() >= 20);
    for case in cases {
        let name = case["name"].as_str().unwrap();
        let settings_file = case.get("settings").and_then(Value::as_str).unwrap_or("settings.json");
        if cfg!(not(feature = "admission-gatekeeper")) && settings_file == "settings-gatekeeper.json" {
            continue;
        }
        let settings = json_of(settings_file);
        let request = json_of(case["fixture"].as_str().unwrap());
        let resp = validate(&payload(&request, &settings));
        let ctx = format!("case {name:?}: {resp:#?}");
        assert_eq!(resp.accepted, case["accepted"].as_bool().unwrap(), "{ctx}");
        let message = resp.message.clone().unwrap_or_default();
        for want in strings(case.get("message")) {
            assert!(message.contains(&want), "{ctx}\nmissing in message: {want}");
        }
        for not in strings(case.get("notMessage")) {
            assert!(!message.contains(&not), "{ctx}\nunexpected in message: {not}");
        }
        let warnings = resp.warnings.clone().unwrap_or_default().join("\n");
        for want in strings(case.get("warnings")) {
            assert!(warnings.contains(&want), "{ctx}\nmissing in warnings: {want}");
        }
        if case.get("noWarnings").and_then(Value::as_bool) == Some(true) {
            assert!(resp.warnings.is_none() && resp.audit_annotations.is_none(), "{ctx}");
        }
        for key in strings(case.get("audit")) {
            assert!(resp.audit_annotations.as_ref().is_some_and(|a| a.contains_key(&key)), "{ctx}\nno audit {key}");
        }
        if case.get("mutated").and_then(Value::as_bool) == Some(false) {
            assert!(resp.mutated_object.is_none(), "{ctx}");
        }
        if !resp.accepted {
            assert!(resp.mutated_object.is_none(), "{ctx}");
            assert!(resp.code.is_none(), "{ctx}");
        }
        if let Some(want) = case.get("mutatedTolerations") {
            let obj = resp.mutated_object.as_ref().unwrap_or_else(|| panic!("{ctx}\nnot mutated"));
            let mut expected =
                request["object"]["spec"]["template"]["spec"]["tolerations"].as_array().cloned().unwrap_or_default();
            expected.extend(want.as_array().unwrap().iter().cloned());
            assert_eq!(obj["spec"]["template"]["spec"]["tolerations"], Value::Array(expected), "{ctx}");
            // Only the tolerations changed.
            let mut back = obj.clone();
            back["spec"]["template"]["spec"].as_object_mut().unwrap().remove("tolerations");
            let mut orig = request["object"].clone();
            orig["spec"]["template"]["spec"].as_object_mut().unwrap().remove("tolerations");
            assert_eq!(back, orig, "{ctx}");
            // The mutated DaemonSet now reaches every node of the pools, per the core.
            let pools = strings(case.get("coversPools"));
            assert_eq!(uncovered_nodes(obj, &settings, &pools), Vec::<String>::new(), "{ctx}");
            // And it was not so before.
            assert!(!uncovered_nodes(&request["object"], &settings, &pools).is_empty(), "{ctx}");
            // Admitting the mutated object again changes nothing (idempotent on UPDATE).
            let mut again = request.clone();
            again["object"] = obj.clone();
            again["operation"] = json!("UPDATE");
            let resp2 = validate(&payload(&again, &settings));
            assert!(resp2.accepted && resp2.mutated_object.is_none(), "{name}: second admission {resp2:#?}");
        }
    }
}

#[test]
fn every_workload_kind_goes_through_its_template() {
    // The same protected toleration in each kind's pod template is found at the kind's path.
    let settings = json!({"disallowedTolerations": {"keys": ["k"]}});
    let spec = json!({"containers": [{"name": "c"}], "tolerations": [{"key": "k", "operator": "Exists"}]});
    let rows = [
        ("Pod", json!({"metadata": {"name": "x"}, "spec": spec}), "spec.tolerations[0]"),
        ("Deployment", json!({"spec": {"template": {"spec": spec}}}), "spec.template.spec.tolerations[0]"),
        ("ReplicaSet", json!({"spec": {"template": {"spec": spec}}}), "spec.template.spec.tolerations[0]"),
        ("StatefulSet", json!({"spec": {"template": {"spec": spec}}}), "spec.template.spec.tolerations[0]"),
        ("DaemonSet", json!({"spec": {"template": {"spec": spec}}}), "spec.template.spec.tolerations[0]"),
        ("Job", json!({"spec": {"template": {"spec": spec}}}), "spec.template.spec.tolerations[0]"),
        (
            "CronJob",
            json!({"spec": {"jobTemplate": {"spec": {"template": {"spec": spec}}}}}),
            "spec.jobTemplate.spec.template.spec.tolerations[0]",
        ),
        ("ReplicationController", json!({"spec": {"template": {"spec": spec}}}), "spec.template.spec.tolerations[0]"),
    ];
    for (kind, object, path) in rows {
        let req =
            json!({"kind": {"kind": kind}, "namespace": "ns", "name": "x", "operation": "CREATE", "object": object});
        let resp = validate(&payload(&req, &settings));
        assert!(!resp.accepted, "{kind}");
        let msg = resp.message.unwrap();
        assert!(msg.starts_with(&format!("{kind} ns/x: disallowedTolerations: {path} ")), "{kind}: {msg}");
    }
}

#[test]
fn schedulable_leaves_a_workloads_claims_to_the_cluster() {
    // The node inventory holds no claims: a StatefulSet's claim templates and a pod's named
    // claim are not missing, they are the cluster's.
    let settings = json!({"nodes": [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "4", "pods": "10"}}}], "schedulable": {}});
    let spec = json!({"containers": [{"name": "c", "image": "x"}], "volumes": [{"name": "d", "persistentVolumeClaim": {"claimName": "data"}}]});
    let object = json!({"spec": {"replicas": 1, "selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": spec},
        "volumeClaimTemplates": [{"metadata": {"name": "www"}, "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}]}});
    let req = json!({"kind": {"kind": "StatefulSet"}, "namespace": "ns", "name": "db", "operation": "CREATE", "object": object});
    let resp = validate(&payload(&req, &settings));
    assert!(resp.accepted, "{:?}", resp.message);
}

#[test]
fn unreadable_tolerations_fail_closed_but_unreadable_resources_only_warn() {
    let settings = json_of("settings.json");
    let mut req = json_of("deployment-web.json");
    req["object"]["spec"]["template"]["spec"]["tolerations"] = json!([{"key": "a", "tolerationSeconds": "soon"}]);
    let resp = validate(&payload(&req, &settings));
    assert!(!resp.accepted);
    assert!(
        resp.message
            .as_deref()
            .unwrap()
            .contains("cannot read the tolerations: spec.template.spec.tolerations[0].tolerationSeconds"),
        "{resp:?}"
    );

    let mut req = json_of("deployment-web.json");
    req["object"]["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] = json!("lots");
    let resp = validate(&payload(&req, &settings));
    assert!(resp.accepted, "{resp:?}");
    let w = resp.warnings.unwrap().join("\n");
    assert!(w.contains("schedulable: Deployment default/web: not simulated"), "{w}");
    assert!(w.contains("resources.requests.cpu"), "{w}");
}

#[test]
fn settings_validation() {
    let ok = validate_settings(fixture("settings.json").as_bytes());
    assert_eq!(ok, response::SettingsValidationResponse::valid());
    for name in ["settings-warn.json", "settings-blanket.json"] {
        assert!(validate_settings(fixture(name).as_bytes()).valid, "{name}");
    }
    // `{}` and empty settings are valid: the safe default (see `scaffolded_settings_...`).
    for empty in [&b""[..], b"{}", b"null", b" "] {
        assert!(validate_settings(empty).valid, "{:?}", String::from_utf8_lossy(empty));
    }
    let rows: [(&[u8], &str); 8] = [
        (b"{", "settings are not valid JSON"),
        (br#"{"schedulable": {}}"#, "settings.nodes: schedulable needs the node inventory"),
        (br#"{"nodes": ["a"], "schedulable": {"daemonSetPools": ["gpu"]}}"#, "settings.schedulable.daemonSetPools[0]: pool \"gpu\" matches no node"),
        (br#"{"nodes": ["a: ; pool=x"], "poolLabel": "pool", "requiredPlacement": {"rules": [{"namespaces": ["ml"], "pool": "gpu"}]}}"#, "settings.requiredPlacement.rules[0]: no node of settings.nodes has the labels pool=gpu"),
        (br#"{"requiredPlacement": {"rules": [{"namespaces": ["ml"], "pool": "gpu"}]}}"#, "settings.requiredPlacement.rules[0].pool: pool \"gpu\" needs settings.poolLabel"),
        (br#"{"requiredPlacement": {"rules": [{"nodeSelector": {"pool": "gpu"}}]}}"#, "settings.requiredPlacement.rules[0]: the rule selects nothing"),
        (br#"{"daemonsetCoverage": {"daemonSets": [{}]}}"#, "settings.daemonsetCoverage.daemonSets[0]: empty selector"),
        (br#"{"daemonsetCoverage": {"daemonSets": [{"namespace": "x"}]}}"#, "settings.nodes: daemonsetCoverage needs the node inventory"),
    ];
    for (input, want) in rows {
        let r = validate_settings(input);
        assert!(!r.valid, "{}", String::from_utf8_lossy(input));
        let msg = r.message.unwrap();
        assert!(msg.contains(want), "{}: {msg}", String::from_utf8_lossy(input));
    }
    let r = validate_settings(br#"{"requiredPlacement": {"rules": [{"namespaces": ["ml"], "nodeSelector": {"pool": "gpu"}, "taints": ["sku=gpu:NoSchedul"]}]}}"#);
    assert_eq!(
        r.message.as_deref(),
        Some("settings.requiredPlacement.rules[0].taints[0]: taint \"sku=gpu:NoSchedul\": effect \"NoSchedul\" is not one of NoSchedule, PreferNoSchedule, NoExecute")
    );
}

#[test]
fn wire_errors() {
    let resp = validate(b"not json");
    assert_eq!(resp.code, Some(400));
    assert!(resp.message.unwrap().starts_with("placement policy: invalid ValidationRequest: expected ident"));
    let req = json_of("deployment-web.json");
    let resp = validate(&payload(&req, &json!({"nodes": 5})));
    assert_eq!(resp.code, Some(500));
    assert!(resp.message.unwrap().starts_with("placement policy: invalid settings: settings.nodes: expected a list"));
    let resp = validate(&payload(&json!({"kind": {"kind": "Pod"}, "object": [1]}), &json_of("settings.json")));
    assert_eq!(resp.code, Some(400));
    assert_eq!(protocol_version(), b"\"v1\"");
    // snake_case on the wire, absent fields omitted.
    let v = serde_json::to_value(response::ValidationResponse {
        accepted: true,
        mutated_object: Some(json!({})),
        audit_annotations: Some([("a".to_string(), "b".to_string())].into()),
        ..Default::default()
    })
    .unwrap();
    assert_eq!(v, json!({"accepted": true, "mutated_object": {}, "audit_annotations": {"a": "b"}}));
}

#[test]
fn audit_keys() {
    assert_eq!(audit_key("disallowedTolerations"), "disallowed-tolerations");
    assert_eq!(audit_key("schedulable"), "schedulable");
}

// ---------------------------------------------------------------------------------------------
// Garbage in, a response out: the module is built with panic=abort, so a panic would trap.

use crate::testing::Rng;

/// A random JSON value, biased towards the shapes and words the policy reads.
fn random_value(rng: &mut Rng, depth: usize) -> Value {
    const WORDS: [&str; 16] = [
        "",
        "Exists",
        "Equal",
        "NoSchedule",
        "NoExecute",
        "In",
        "pool",
        "gpu",
        "*",
        "kube-system",
        "DaemonSet",
        "node-role.kubernetes.io/control-plane",
        "100m",
        "-1",
        "1e400",
        "\u{0}\u{ffff}",
    ];
    match if depth > 4 { rng.below(4) } else { rng.below(7) } {
        0 => Value::Null,
        1 => json!(rng.below(2) == 0),
        2 => match rng.below(4) {
            0 => json!(rng.next() as i64),
            1 => json!(-(rng.below(3) as i64)),
            2 => json!(f64::from(rng.below(1000) as u32) / 7.0),
            _ => json!(u64::MAX),
        },
        3 => json!(*rng.pick(&WORDS)),
        4 => Value::Array((0..rng.below(4)).map(|_| random_value(rng, depth + 1)).collect()),
        _ => {
            const KEYS: [&str; 18] = [
                "kind",
                "spec",
                "template",
                "tolerations",
                "key",
                "operator",
                "effect",
                "value",
                "nodeSelector",
                "affinity",
                "containers",
                "resources",
                "requests",
                "replicas",
                "metadata",
                "labels",
                "nodes",
                "tolerationSeconds",
            ];
            let mut m = serde_json::Map::new();
            for _ in 0..rng.below(5) {
                m.insert(rng.pick(&KEYS).to_string(), random_value(rng, depth + 1));
            }
            Value::Object(m)
        }
    }
}

/// Replaces a random node of `v` by a random value.
fn mangle(rng: &mut Rng, v: &mut Value, depth: usize) {
    let stop = depth > 8 || rng.below(4) == 0;
    match v {
        Value::Object(m) if !m.is_empty() && !stop => {
            let k = m.keys().nth(rng.below(m.len())).cloned().unwrap();
            if rng.below(8) == 0 {
                m.remove(&k);
            } else {
                mangle(rng, m.get_mut(&k).unwrap(), depth + 1);
            }
        }
        Value::Array(a) if !a.is_empty() && !stop => {
            let i = rng.below(a.len());
            mangle(rng, &mut a[i], depth + 1);
        }
        _ => *v = random_value(rng, depth),
    }
}

#[test]
fn garbage_payloads_get_responses_not_panics() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let iterations: usize =
        std::env::var("PLACEMENT_FUZZ_ITERATIONS").ok().and_then(|s| s.parse().ok()).unwrap_or(1500);
    let settings = json_of("settings.json");
    let cases = json_of("cases.json");
    let fixtures: Vec<Value> =
        cases.as_array().unwrap().iter().map(|c| json_of(c["fixture"].as_str().unwrap())).collect();
    for i in 0..iterations {
        // 1. Random bytes, to both entry points.
        let len = rng.below(64);
        let bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let _ = validate(&bytes);
        let _ = validate_settings(&bytes);
        // 2. A fixture truncated at a random byte.
        let f = rng.pick(&fixtures);
        let text = payload(f, &settings);
        let _ = validate(&text[..rng.below(text.len())]);
        // 3. A fixture with a random part replaced, with valid or mangled settings.
        let mut req = f.clone();
        for _ in 0..=rng.below(3) {
            mangle(&mut rng, &mut req, 0);
        }
        let mut s = settings.clone();
        if i % 3 == 0 {
            mangle(&mut rng, &mut s, 0);
            let _ = validate_settings(&serde_json::to_vec(&s).unwrap());
        }
        let resp = validate(&payload(&req, &s));
        // Every response serializes.
        assert!(!resp.to_json().is_empty());
        // 4. Entirely random structures.
        let _ = validate(&payload(&random_value(&mut rng, 0), &random_value(&mut rng, 0)));
        let _ = validate_settings(&serde_json::to_vec(&random_value(&mut rng, 0)).unwrap());
    }
}

#[test]
fn hostile_sizes_are_bounded() {
    // Deep nesting stops at serde_json's recursion limit with an error, not a stack overflow.
    let deep = format!("{{\"request\": {}{}}}", "[".repeat(10_000), "]".repeat(10_000));
    assert_eq!(validate(deep.as_bytes()).code, Some(400));
    let deep_settings = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    assert!(!validate_settings(deep_settings.as_bytes()).valid);
    // Replicas beyond the simulation's limit are a note, not a hang.
    let mut req = json_of("deployment-web.json");
    req["object"]["spec"]["replicas"] = json!(1_000_000_000);
    let resp = validate(&payload(&req, &json_of("settings.json")));
    assert!(resp.accepted);
    assert!(resp.warnings.unwrap().join("").contains("spec.replicas: 1000000000 is outside 0..=10000"));
}

/// `cargo test -p placement-core show_responses -- --ignored --nocapture` prints every case's
/// response, for the README and for reviewing messages.
#[test]
#[ignore]
fn show_responses() {
    for case in json_of("cases.json").as_array().unwrap() {
        let settings = json_of(case.get("settings").and_then(Value::as_str).unwrap_or("settings.json"));
        let resp = validate(&payload(&json_of(case["fixture"].as_str().unwrap()), &settings));
        let mut shown = serde_json::to_value(&resp).unwrap();
        if let Some(m) = shown.get_mut("mutated_object") {
            *m = m["spec"]["template"]["spec"]["tolerations"].clone();
        }
        println!("== {}\n{}\n", case["name"].as_str().unwrap(), serde_json::to_string_pretty(&shown).unwrap());
    }
}

#[test]
fn settings_span_finds_the_member() {
    let rows: [(&str, Option<&str>); 9] = [
        (r#"{"request": {"a": [1, "}"]}, "settings": {"x": "\"]"} }"#, Some(r#"{"x": "\"]"}"#)),
        (r#"{"settings":[1,2],"request":{}}"#, Some("[1,2]")),
        (r#" { "settings" : null } "#, Some("null")),
        (r#"{"settings": 12.5e3}"#, Some("12.5e3")),
        (r#"{"request": {}}"#, None),
        (r#"{"settings": 1, "settings": 2}"#, None),
        (r#"{"setting\u0073": {}}"#, None),
        (r#"[{"settings": {}}]"#, None),
        (r#"{"settings": {"#, None),
    ];
    for (payload, want) in rows {
        assert_eq!(settings_span(payload.as_bytes()), want.map(str::as_bytes), "{payload}");
    }
}

#[test]
fn cached_validator_answers_like_validate() {
    let mut v = Validator::new();
    let mut rng = Rng(7);
    let cases = json_of("cases.json");
    let mut payloads: Vec<Vec<u8>> = Vec::new();
    for case in cases.as_array().unwrap() {
        let settings = json_of(case.get("settings").and_then(Value::as_str).unwrap_or("settings.json"));
        payloads.push(payload(&json_of(case["fixture"].as_str().unwrap()), &settings));
    }
    // Settings first, request second, compact, and invalid settings.
    let req = json_of("deployment-control-plane-toleration.json");
    payloads.push(serde_json::to_vec(&json!({"settings": json_of("settings.json"), "request": req})).unwrap());
    payloads.push(serde_json::to_vec(&json!({"request": req, "settings": {"nodes": 1}})).unwrap());
    // A sequence is no mapping of settings, however serde's derived structs read one.
    payloads.push(serde_json::to_vec(&json!({"request": req, "settings": []})).unwrap());
    payloads.push(serde_json::to_vec(&json!({"request": req})).unwrap());
    // A validator handed its payloads (as the wasm guest call does) keeps one as its cache
    // instead of a copy of the settings: the same answers.
    let mut owning = Validator::new();
    let mut owned = |p: &[u8], well_formed: bool| {
        let response = owning.validate_payload_with(Cow::Owned(p.to_vec()), &NoHostCapabilities);
        // What it keeps is the payload's settings (a well-formed payload's are always read).
        if well_formed {
            let kept = owning.cached.as_ref().map(CachedSettings::settings_text);
            assert_eq!(kept, settings_span(p), "{}", String::from_utf8_lossy(p));
        }
        response
    };
    // Several rounds in shuffled order: hits and misses of the cache.
    for round in 0..3 {
        for _ in 0..payloads.len() {
            let p = &payloads[rng.below(payloads.len())];
            let want = validate(p);
            assert_eq!(v.validate(p), want, "round {round}: {}", String::from_utf8_lossy(p));
            let well_formed = settings_span(p).is_some() && p.starts_with(b"{");
            assert_eq!(owned(p, well_formed), want, "owned, round {round}: {}", String::from_utf8_lossy(p));
        }
    }
    // Garbage through the cached path too.
    let base = payloads[0].clone();
    for _ in 0..500 {
        let mut b = base.clone();
        let at = rng.below(b.len());
        b[at] = rng.next() as u8;
        b.truncate(rng.below(b.len() + 1).max(at));
        let want = validate(&b);
        assert_eq!(v.validate(&b), want);
        assert_eq!(owned(&b, false), want);
    }
}

// ---------------------------------------------------------------------------------------------
// gatekeeper

/// Without the `admission-gatekeeper` feature (the lean module), a `gatekeeper` setting is a
/// settings error naming the setting and the module to use instead, from `validate_settings`
/// and from `validate` (a 500, as for any settings error).
#[cfg(not(feature = "admission-gatekeeper"))]
#[test]
fn gatekeeper_setting_without_the_feature_is_a_settings_error() {
    let want = format!("settings.gatekeeper: {}", settings::NO_GATEKEEPER);
    assert!(want.contains("placement-policy.wasm"), "{want}");
    for gk in [json_of("settings-gatekeeper.json")["gatekeeper"].clone(), json!({}), json!(3)] {
        let s = json!({"disallowedTolerations": {"keys": ["a"]}, "gatekeeper": gk});
        let r = serde_json::to_value(validate_settings(&serde_json::to_vec(&s).unwrap())).unwrap();
        assert_eq!(r, json!({"valid": false, "message": want}), "{gk}");
        let resp = validate(&payload(&json_of("pod-privileged.json"), &s));
        assert_eq!(resp.code, Some(500), "{resp:?}");
        assert_eq!(resp.message.as_deref(), Some(format!("placement policy: invalid settings: {want}").as_str()));
        assert_eq!(Validator::new().validate(&payload(&json_of("pod-privileged.json"), &s)), resp);
    }
    // `{}` is the default policy in the lean build too.
    let default = settings::Settings::from_value(&json!({})).unwrap();
    assert!(default.disallowed_tolerations.is_some());
}

#[cfg(feature = "admission-gatekeeper")]
mod gatekeeper_policy {
    use super::*;

    const PRIVILEGED_TEMPLATE: &str =
        include_str!("../../../gatekeeper/library/pod-security-policy/privileged-containers/template.yaml");
    const REQUIRED_LABELS_TEMPLATE: &str =
        include_str!("../../../gatekeeper/library/general/requiredlabels/template.yaml");

    fn privileged_constraint(extra_spec: &str) -> String {
        format!(
            "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sPSPPrivilegedContainer\nmetadata:\n  name: no-privileged\nspec:\n  match:\n    kinds: [{{apiGroups: [\"\"], kinds: [Pod]}}]\n{extra_spec}"
        )
    }

    #[test]
    fn gatekeeper_fixture_uses_the_library_template() {
        let s = json_of("settings-gatekeeper.json");
        assert_eq!(s["gatekeeper"]["templates"][0].as_str(), Some(PRIVILEGED_TEMPLATE), "regenerate the fixture");
        assert_eq!(s["gatekeeper"]["templates"][2].as_str(), Some(REQUIRED_LABELS_TEMPLATE), "regenerate the fixture");
        assert_eq!(
            validate_settings(fixture("settings-gatekeeper.json").as_bytes()),
            response::SettingsValidationResponse::valid()
        );
    }

    #[test]
    fn gatekeeper_and_placement_rejections_combine() {
        let settings = json_of("settings-gatekeeper.json");
        let mut req = json_of("pod-privileged.json");
        req["object"]["spec"]["tolerations"] = json!([{"operator": "Exists"}]);
        let resp = validate(&payload(&req, &settings));
        assert!(!resp.accepted);
        let msg = resp.message.unwrap();
        let lines: Vec<&str> = msg.lines().collect();
        assert_eq!(lines.len(), 2, "{msg}");
        assert!(lines[0].starts_with("Pod default/debug-shell: disallowedTolerations: spec.tolerations[0]"), "{msg}");
        assert_eq!(lines[1], "[psp-privileged-container] Privileged container is not allowed: shell, securityContext: {\"privileged\": true}");
        let audit = resp.audit_annotations.unwrap();
        assert!(audit.contains_key("disallowed-tolerations") && audit.contains_key("gatekeeper"), "{audit:?}");

        // Two deny violations: one line each, as Gatekeeper joins them.
        let mut req = json_of("pod-privileged.json");
        let second = req["object"]["spec"]["containers"][0].clone();
        req["object"]["spec"]["initContainers"] = json!([second]);
        req["object"]["spec"]["initContainers"][0]["name"] = json!("init");
        let msg = validate(&payload(&req, &settings)).message.unwrap();
        assert_eq!(msg.lines().count(), 2, "{msg}");
        assert!(
            msg.lines().all(|l| l.starts_with("[psp-privileged-container] Privileged container is not allowed: ")),
            "{msg}"
        );

        // Excluded namespace, UPDATE (the template skips it), exempt image: accepted.
        for edit in ["namespace", "update", "exempt"] {
            let mut req = json_of("pod-privileged.json");
            match edit {
                "namespace" => {
                    req["namespace"] = json!("kube-system");
                    req["object"]["metadata"]["namespace"] = json!("kube-system");
                }
                "update" => req["operation"] = json!("UPDATE"),
                _ => req["object"]["spec"]["containers"][0]["image"] = json!("safeimages.com/busybox"),
            }
            let resp = validate(&payload(&req, &settings));
            assert!(resp.accepted, "{edit}: {resp:?}");
        }
    }

    #[test]
    fn gatekeeper_reviews_any_kind_and_delete() {
        // A Namespace (not a workload: the placement policies skip it) must carry an owner label.
        let settings = json!({"gatekeeper": {
            "templates": REQUIRED_LABELS_TEMPLATE,
            "constraints": [{
                "apiVersion": "constraints.gatekeeper.sh/v1beta1", "kind": "K8sRequiredLabels",
                "metadata": {"name": "ns-must-have-owner"},
                "spec": {"match": {"kinds": [{"apiGroups": [""], "kinds": ["Namespace"]}]},
                         "parameters": {"labels": [{"key": "owner"}]}}
            }]
        }});
        let ns = json!({"uid": "1", "kind": {"group": "", "version": "v1", "kind": "Namespace"}, "name": "team-a",
            "operation": "CREATE", "object": {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}});
        let resp = validate(&payload(&ns, &settings));
        assert!(!resp.accepted, "{resp:?}");
        assert_eq!(resp.message.as_deref(), Some("[ns-must-have-owner] you must provide labels: {\"owner\"}"));
        assert_eq!(resp.code, None);

        // DELETE: Gatekeeper reviews the oldObject as `object`.
        let mut del = ns.clone();
        del["operation"] = json!("DELETE");
        del["oldObject"] = del["object"].take();
        let req: request::AdmissionRequest = serde_json::from_value(del.clone()).unwrap();
        let review = req.review();
        assert_eq!(review["object"], review["oldObject"]);
        assert_eq!(review["operation"], "DELETE");
        assert!(review.get("subResource").is_none() && review.get("dryRun").is_none(), "{review}");
        assert!(!validate(&payload(&del, &settings)).accepted);

        // CONNECT without an object: nothing to review.
        let connect = json!({"kind": {"kind": "Pod"}, "operation": "CONNECT", "name": "p"});
        assert!(validate(&payload(&connect, &settings)).accepted);
    }

    /// Requests compile only the templates their constraints match (a fresh instance per
    /// request pays for nothing else); a broken template is then reported, by the requests
    /// that need it, with `validate_settings`' own error.
    #[test]
    fn requests_compile_only_the_templates_they_match() {
        let broken = "apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nmetadata:\n  name: k8sbroken\nspec:\n  crd:\n    spec:\n      names:\n        kind: K8sBroken\n  targets:\n  - target: admission.k8s.gatekeeper.sh\n    rego: |\n      package k8sbroken\n      violation[{\"msg\": msg}] {\n        msg := \"x\"\n        input.review.object.spec ==\n      }\n";
        let broken_constraint = "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sBroken\nmetadata:\n  name: broken\nspec:\n  match:\n    kinds: [{apiGroups: [apps], kinds: [Deployment]}]\n";
        let settings = json!({"gatekeeper": {
            "templates": [PRIVILEGED_TEMPLATE, broken],
            "constraints": [privileged_constraint(""), broken_constraint],
        }});
        let settings_error = match validate_settings(&serde_json::to_vec(&settings).unwrap()) {
            response::SettingsValidationResponse { valid: false, message: Some(m) } => m,
            other => panic!("valid: {other:?}"),
        };
        assert!(settings_error.starts_with("settings.gatekeeper.templates[1]: ConstraintTemplate k8sbroken: "));

        // Only the privileged-container constraint matches a Pod: its template is compiled,
        // the broken one is not, and the Pod is judged.
        let pod = json!({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p", "namespace": "default"},
            "spec": {"containers": [{"name": "c", "image": "nginx", "securityContext": {"privileged": true}}]}});
        let pod_request = json!({"uid": "1", "kind": {"group": "", "version": "v1", "kind": "Pod"}, "operation": "CREATE",
            "name": "p", "namespace": "default", "object": pod});
        let resp = validate(&payload(&pod_request, &settings));
        assert!(!resp.accepted && resp.code.is_none(), "{resp:?}");
        assert!(
            resp.message
                .as_deref()
                .unwrap_or_default()
                .starts_with("[no-privileged] Privileged container is not allowed"),
            "{resp:?}"
        );

        // A Deployment matches the broken template's constraint: the same error as
        // `validate_settings`, from the stateless path and from the validator alike.
        let deployment = json_of("deployment-web.json");
        let want = ValidationResponse::error(500, format!("placement policy: invalid settings: {settings_error}"));
        assert_eq!(validate(&payload(&deployment, &settings)), want);
        let mut validator = Validator::new();
        assert_eq!(validator.validate(&payload(&pod_request, &settings)), resp);
        assert_eq!(validator.validate(&payload(&deployment, &settings)), want);
        assert_eq!(validator.validate(&payload(&pod_request, &settings)), resp);
    }

    #[test]
    fn gatekeeper_settings_errors_name_setting_template_and_line() {
        let broken = "apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nmetadata:\n  name: k8sbroken\nspec:\n  crd:\n    spec:\n      names:\n        kind: K8sBroken\n  targets:\n  - target: admission.k8s.gatekeeper.sh\n    rego: |\n      package k8sbroken\n      violation[{\"msg\": msg}] {\n        msg := \"x\"\n        input.review.object.spec ==\n      }\n";
        let gk = |templates: Value, constraints: Value| json!({"gatekeeper": {"templates": templates, "constraints": constraints}});
        let err = |v: Value| match validate_settings(&serde_json::to_vec(&v).unwrap()) {
            response::SettingsValidationResponse { valid: false, message: Some(m) } => m,
            other => panic!("valid: {other:?} for {v}"),
        };
        let ok_constraint = json!(privileged_constraint(""));

        let m = err(gk(json!([PRIVILEGED_TEMPLATE, broken]), ok_constraint.clone()));
        assert!(m.starts_with("settings.gatekeeper.templates[1]: ConstraintTemplate k8sbroken: "), "{m}");
        assert!(m.contains("k8sbroken:spec.targets[0].rego:"), "Rego line: {m}");

        // Multi-document text: the document's number.
        let m = err(gk(json!([format!("{PRIVILEGED_TEMPLATE}\n---\n{broken}")]), ok_constraint.clone()));
        assert!(m.starts_with("settings.gatekeeper.templates[0] (document 2): ConstraintTemplate k8sbroken"), "{m}");

        let rows: Vec<(Value, &str)> = vec![
            (gk(json!([PRIVILEGED_TEMPLATE]), json!([])), "settings.gatekeeper.constraints: no constraints"),
            (gk(json!([PRIVILEGED_TEMPLATE]), json!(null)), "settings.gatekeeper.constraints: no constraints"),
            (
                gk(json!([PRIVILEGED_TEMPLATE]), json!([privileged_constraint("").replace("K8sPSPPrivilegedContainer", "K8sNope")])),
                "settings.gatekeeper.constraints[0]: K8sNope no-privileged: no ConstraintTemplate defines kind K8sNope",
            ),
            (
                gk(json!([PRIVILEGED_TEMPLATE]), json!([privileged_constraint("  parameters:\n    exemptImages: [42]\n")])),
                "settings.gatekeeper.constraints[0]: K8sPSPPrivilegedContainer no-privileged: spec.parameters.exemptImages[0]: expected string",
            ),
            (
                gk(json!([PRIVILEGED_TEMPLATE]), json!([privileged_constraint("  enforcementAction: block\n")])),
                "settings.gatekeeper.constraints[0]: K8sPSPPrivilegedContainer no-privileged: spec.enforcementAction: \"block\" is not deny, dryrun or warn",
            ),
            (
                gk(json!([PRIVILEGED_TEMPLATE]), json!([privileged_constraint(""), privileged_constraint("")])),
                "settings.gatekeeper.constraints[1]: duplicate constraint K8sPSPPrivilegedContainer no-privileged (also settings.gatekeeper.constraints[0])",
            ),
            (
                gk(json!([{"apiVersion": "apps/v1", "kind": "Deployment"}]), ok_constraint.clone()),
                "settings.gatekeeper.templates[0]: expected a ConstraintTemplate (templates.gatekeeper.sh), an ExpansionTemplate (expansion.gatekeeper.sh) or a Constraint (constraints.gatekeeper.sh), found Deployment (apps/v1)",
            ),
            (gk(json!([42]), ok_constraint.clone()), "settings.gatekeeper.templates[0]: expected a Gatekeeper object or YAML text, found a number"),
            (gk(json!({"a": 1}), ok_constraint.clone()), "settings.gatekeeper.templates: expected a list of Gatekeeper objects or YAML text, found a mapping"),
            (gk(json!(["kind: [unclosed"]), ok_constraint.clone()), "settings.gatekeeper.templates[0]: document 1: invalid YAML"),
            (json!({"gatekeeper": []}), "settings.gatekeeper: expected a mapping with `templates` and `constraints`, found a list"),
            (json!({"gatekeeper": {"template": []}}), "settings.gatekeeper.template: unknown field `template`, expected one of `templates`, `constraints`, `defaultExpansions`, `enableK8sNativeValidation`"),
        ];
        for (settings, want) in rows {
            let m = err(settings.clone());
            assert!(m.starts_with(want), "got:  {m}\nwant: {want}");
        }
    }

    #[test]
    fn gatekeeper_evaluation_errors_are_500s_naming_the_constraint() {
        // An unknown function is found when the rule runs (regorus resolves functions lazily).
        // (Not time.now_ns: the CLI's gatekeeper-extra-builtins feature defines it, and a workspace
        // build unifies that feature into this crate.)
        let template = PRIVILEGED_TEMPLATE.replace("c.securityContext.privileged == true", "no_such_builtin(1) > 0");
        let settings = json!({"gatekeeper": {"templates": [template], "constraints": [privileged_constraint("")]}});
        assert!(validate_settings(&serde_json::to_vec(&settings).unwrap()).valid);
        let resp = validate(&payload(&json_of("pod-privileged.json"), &settings));
        assert!(!resp.accepted);
        assert_eq!(resp.code, Some(500));
        let m = resp.message.unwrap();
        assert!(
            m.starts_with("placement policy: gatekeeper: K8sPSPPrivilegedContainer no-privileged (template k8spspprivilegedcontainer): evaluation failed"),
            "{m}"
        );
    }

    /// The settings of `settings-gatekeeper-cel.json` with only its first template (CEL and
    /// Rego) and constraint, and `enableK8sNativeValidation` set to `enabled`.
    fn registries_only(enabled: Option<bool>) -> Value {
        let mut s = json_of("settings-gatekeeper-cel.json");
        s["gatekeeper"]["templates"].as_array_mut().unwrap().truncate(1);
        s["gatekeeper"]["constraints"].as_array_mut().unwrap().truncate(1);
        if let Some(enabled) = enabled {
            s["gatekeeper"]["enableK8sNativeValidation"] = json!(enabled);
        }
        s
    }

    const REGO_REGISTRIES: &str = "[registries] container <shell> has an invalid image repo <registry.example.com/tools/busybox:1.36>, allowed repos are [\"mirror.example.com/\"]";

    /// gator's and Gatekeeper's engine choice: a template's CEL code when it has some
    /// (`enableK8sNativeValidation`, default true), else its Rego; `false` picks the Rego.
    #[cfg(feature = "gatekeeper-cel")]
    #[test]
    fn gatekeeper_cel_is_preferred_unless_disabled() {
        let pod = json_of("pod-privileged.json");
        let settings = json_of("settings-gatekeeper-cel.json");
        assert!(validate_settings(&serde_json::to_vec(&settings).unwrap()).valid);
        let resp = validate(&payload(&pod, &settings));
        assert!(!resp.accepted);
        assert_eq!(
            resp.message.as_deref(),
            Some("[registries] images from outside mirror.example.com/: registry.example.com/tools/busybox:1.36\n[owner-label] missing label owner"),
            "CEL for both, the CEL-only template included"
        );
        let mut labelled = pod.clone();
        labelled["object"]["metadata"]["labels"] = json!({"owner": "me"});
        labelled["object"]["spec"]["containers"][0]["image"] = json!("mirror.example.com/busybox:1.36");
        assert_eq!(validate(&payload(&labelled, &settings)), validate(&payload(&labelled, &registries_only(None))));
        assert!(validate(&payload(&labelled, &settings)).accepted);

        assert_eq!(
            validate(&payload(&pod, &registries_only(Some(true)))),
            validate(&payload(&pod, &registries_only(None)))
        );
        let rego = validate(&payload(&pod, &registries_only(Some(false))));
        assert_eq!(rego.message.as_deref(), Some(REGO_REGISTRIES), "Rego when CEL is disabled");

        // A CEL-only template with CEL disabled has nothing to evaluate: a settings error.
        let mut cel_only = settings.clone();
        cel_only["gatekeeper"]["enableK8sNativeValidation"] = json!(false);
        let v = validate_settings(&serde_json::to_vec(&cel_only).unwrap());
        assert_eq!(
            v.message.as_deref(),
            Some("settings.gatekeeper.templates[1]: ConstraintTemplate k8srequiredlabelcel: no Rego code, and K8sNativeValidation (CEL) is disabled")
        );
    }

    /// A build without CEL evaluates the Rego and can only honour `false`.
    #[cfg(not(feature = "gatekeeper-cel"))]
    #[test]
    fn gatekeeper_without_cel_evaluates_rego() {
        let pod = json_of("pod-privileged.json");
        for enabled in [None, Some(false)] {
            let resp = validate(&payload(&pod, &registries_only(enabled)));
            assert_eq!(resp.message.as_deref(), Some(REGO_REGISTRIES), "{enabled:?}");
        }
        let v = validate_settings(&serde_json::to_vec(&registries_only(Some(true))).unwrap());
        assert_eq!(v.message, Some(format!("settings.gatekeeper.enableK8sNativeValidation: {}", gatekeeper::NO_CEL)));
    }

    /// A hostile CEL expression (10^9 comprehension iterations) is stopped by the evaluation's
    /// limit and rejects the request with a 500 naming the constraint, as a hostile Rego
    /// template does.
    #[cfg(feature = "gatekeeper-cel")]
    #[test]
    fn gatekeeper_hostile_cel_is_a_500() {
        let list = format!("[{}]", (0..1000).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
        let mut settings = json_of("settings-gatekeeper-cel.json");
        let template = settings["gatekeeper"]["templates"][1].as_str().unwrap().replace(
            "variables.params.label in variables.labels",
            &format!("{list}.all(a, {list}.all(b, {list}.all(c, a + b + c >= 0)))"),
        );
        settings["gatekeeper"]["templates"][1] = json!(template);
        let resp = validate(&payload(&json_of("pod-privileged.json"), &settings));
        assert!(!resp.accepted);
        assert_eq!(resp.code, Some(500));
        let m = resp.message.unwrap();
        assert!(
            m.starts_with("placement policy: gatekeeper: K8sRequiredLabelCel owner-label (template k8srequiredlabelcel): evaluation failed: "),
            "{m}"
        );
        assert!(m.contains("CEL evaluation exceeded"), "{m}");
    }

    /// A pre-initialized validator (what a baked module's memory holds) answers every case
    /// as a fresh [`validate`] does, for requests with the baked settings (taken from the
    /// cache: it is never replaced) and with others (read as usual).
    #[test]
    fn preinitialized_validator_answers_like_validate() {
        let baked = json_of("settings-gatekeeper.json");
        let text = serde_json::to_vec(&baked).unwrap();
        let other = json_of("settings.json");
        for f in ["pod-privileged.json", "pod-unmirrored-image.json", "deployment-web.json", "daemonset-defender.json"]
        {
            for settings in [&baked, &other] {
                let mut v = Validator::new();
                v.preinitialize(&text).unwrap();
                let p = payload(&json_of(f), settings);
                assert_eq!(v.validate(&p), validate(&p), "{f}");
                let kept = v.cached.as_ref().map(CachedSettings::settings_text);
                let same = std::ptr::eq(settings, &baked);
                assert_eq!(kept == Some(&text[..]), same, "{f}: the baked cache is used only for its own settings");
            }
        }
        let mut v = Validator::new();
        assert!(v.preinitialize(br#"{"nodes": 1}"#).unwrap_err().starts_with("invalid settings: settings.nodes"));
        assert!(v.cached.is_none());
    }

    #[test]
    fn gatekeeper_validator_caches_and_agrees() {
        let settings = json_of("settings-gatekeeper.json");
        let mut v = Validator::new();
        for f in ["pod-privileged.json", "pod-unmirrored-image.json", "deployment-web.json", "daemonset-defender.json"]
        {
            let p = payload(&json_of(f), &settings);
            for _ in 0..2 {
                assert_eq!(v.validate(&p), validate(&p), "{f}");
            }
        }
    }
}

/// `{}`, as `kwctl scaffold manifest` writes the settings, is the default policy: control-plane
/// tolerations outside kube-system are admitted with a warning; nothing is rejected or mutated.
#[test]
fn scaffolded_settings_warn_on_control_plane_tolerations_and_reject_nothing() {
    let rows = [
        ("deployment-web.json", None),
        (
            "deployment-control-plane-toleration.json",
            Some("disallowedTolerations (warn mode): spec.template.spec.tolerations[1]"),
        ),
        ("deployment-kube-system-exempt.json", None),
        ("daemonset-defender.json", None),
    ];
    for (name, warning) in rows {
        let payload = payload(&json_of(name), &json!({}));
        let resp = validate(&payload);
        assert!(resp.accepted, "{name}: {resp:?}");
        assert!(resp.mutated_object.is_none(), "{name}");
        let warnings = resp.warnings.unwrap_or_default().join("\n");
        match warning {
            Some(w) => assert!(warnings.contains(w), "{name}: {warnings}"),
            None => assert!(warnings.is_empty(), "{name}: {warnings}"),
        }
        // The same through the cached path.
        assert_eq!(Validator::new().validate(&payload).to_json(), validate(&payload).to_json());
    }
}

/// A workload whose members on the way to the pod spec are not mappings is rejected with the
/// path, the value and the API server's words.
#[test]
fn workload_not_shaped_like_its_kind_is_rejected() {
    let rows = [
        (
            "Deployment spec is a list",
            r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": [1, 2]}"#,
            "Deployment",
            r#"placement policy: request.object.spec: [1,2]: Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal array into Go struct field Deployment.spec of type v1.DeploymentSpec"#,
        ),
        (
            "Deployment template is a string",
            r#"{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"}, "spec": {"template": "x"}}"#,
            "Deployment",
            r#"placement policy: request.object.spec.template: "x": Deployment in version "v1" cannot be handled as a Deployment: json: cannot unmarshal string into Go struct field Deployment.spec.template of type v1.PodTemplateSpec"#,
        ),
        (
            "CronJob job template spec is a number",
            r#"{"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c"}, "spec": {"jobTemplate": {"spec": 3}}}"#,
            "CronJob",
            r#"placement policy: request.object.spec.jobTemplate.spec: 3: CronJob in version "v1" cannot be handled as a CronJob: json: cannot unmarshal number into Go struct field CronJob.spec.jobTemplate.spec of type v1.JobSpec"#,
        ),
        (
            "Pod metadata is a list",
            r#"{"apiVersion": "v1", "kind": "Pod", "metadata": [], "spec": {}}"#,
            "Pod",
            r#"placement policy: request.object.metadata: []: Pod in version "v1" cannot be handled as a Pod: json: cannot unmarshal array into Go struct field Pod.metadata of type v1.ObjectMeta"#,
        ),
    ];
    for (name, object, kind, want) in rows {
        let payload = format!(
            r#"{{"request": {{"uid": "1", "kind": {{"group": "", "version": "v1", "kind": "{kind}"}}, "operation": "CREATE", "namespace": "default", "object": {object}}}, "settings": {{"disallowedTolerations": {{"keys": ["a"]}}}}}}"#
        );
        let resp = validate(payload.as_bytes());
        assert!(!resp.accepted, "{name}");
        assert_eq!(resp.code, Some(400), "{name}");
        assert_eq!(resp.message.as_deref(), Some(want), "{name}");
    }
    // `null` members read as absent, as the API server reads them.
    let payload = r#"{"request": {"kind": {"kind": "Deployment"}, "operation": "CREATE", "object": {"kind": "Deployment", "metadata": {"name": "w"}, "spec": {"template": null}}}, "settings": {"disallowedTolerations": {"keys": ["a"]}}}"#;
    assert!(validate(payload.as_bytes()).accepted);
}

/// `daemonsetCoverage.mutate: false` (a policy deployed with `mutating: false`): the DaemonSet
/// the mutation would fix is rejected, never mutated, and the message carries the JSON Patch,
/// which adds exactly what the mutation adds.
#[test]
fn daemonset_coverage_validate_only_rejects_with_the_patch() {
    let ds = json_of("daemonset-defender.json");
    let settings = json_of("settings.json");
    let mutated = validate(&payload(&ds, &settings));
    let want = mutated.mutated_object.expect("the mutating policy patches it");
    let mut validate_only = settings.clone();
    validate_only["daemonsetCoverage"]["mutate"] = json!(false);
    let resp = validate(&payload(&ds, &validate_only));
    assert!(!resp.accepted && resp.mutated_object.is_none(), "{resp:?}");
    let m = resp.message.unwrap();
    let prefix = "kubectl patch daemonset ";
    assert!(m.contains("daemonsetCoverage: skips nodes of"), "{m}");
    assert!(m.contains("daemonsetCoverage.mutate is false"), "{m}");
    let at = m.find(prefix).unwrap_or_else(|| panic!("{m}"));
    let patch_text = m[at..].split_once("-p '").unwrap().1.split_once('\'').unwrap().0;
    let patch: Value = serde_json::from_str(patch_text).unwrap_or_else(|e| panic!("{e}: {patch_text}"));
    // Apply the patch (only `add` ops, on the tolerations) and compare with the mutation.
    let mut patched = ds["object"].clone();
    for op in patch.as_array().unwrap() {
        assert_eq!(op["op"], "add");
        let path = op["path"].as_str().unwrap();
        match path.strip_suffix("/-") {
            Some(list) => patched.pointer_mut(list).unwrap().as_array_mut().unwrap().push(op["value"].clone()),
            None => {
                let (parent, key) = path.rsplit_once('/').unwrap();
                patched.pointer_mut(parent).unwrap()[key] = op["value"].clone();
            }
        }
    }
    assert_eq!(patched, want);
    // Settings: `mutate` is a boolean.
    validate_only["daemonsetCoverage"]["mutate"] = json!("no");
    let err = validate_settings(&serde_json::to_vec(&validate_only).unwrap());
    assert!(err.message.unwrap().starts_with("settings.daemonsetCoverage.mutate: invalid type"));
}

/// The kwctl session of `policy-wasm/examples/cluster/`: the List of Nodes it answers.
fn example_cluster_nodes() -> Vec<u8> {
    let session: Vec<serde_yaml::Value> =
        serde_yaml::from_str(include_str!("../../../policy-wasm/examples/cluster/nodes-replay.yml")).unwrap();
    session[0]["response"]["payload"].as_str().unwrap().as_bytes().to_vec()
}

/// A host that answers `list_resources_all` with `answer`, counting the calls.
struct ClusterHost {
    answer: Result<Vec<u8>, String>,
    calls: std::cell::Cell<usize>,
}

impl host::HostCapabilities for ClusterHost {
    fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        assert_eq!(payload, host::list_all_request("v1", "Node"));
        self.calls.set(self.calls.get() + 1);
        self.answer.clone()
    }

    fn list_resources_by_namespace(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        panic!("unexpected list_resources_by_namespace {}", String::from_utf8_lossy(payload))
    }
}

/// `inventory: cluster` over the example cluster answers every case as the same nodes given in
/// the settings do, listing the Nodes once per workload request and never for other requests.
#[test]
fn cluster_inventory_answers_as_the_settings_inventory() {
    let cluster_settings: Value =
        serde_json::from_str(include_str!("../../../policy-wasm/examples/cluster/settings.json")).unwrap();
    assert!(validate_settings(&serde_json::to_vec(&cluster_settings).unwrap()).valid);
    let host = ClusterHost { answer: Ok(example_cluster_nodes()), calls: Default::default() };
    let cases: Value = serde_json::from_str(fixture("cases.json")).unwrap();
    let mut compared = 0;
    for case in cases.as_array().unwrap() {
        if case.get("settings").is_some() {
            continue;
        }
        let name = case["name"].as_str().unwrap();
        let request = json_of(case["fixture"].as_str().unwrap());
        let want = validate(&payload(&request, &json_of("settings.json")));
        let before = host.calls.get();
        let got = validate_with(&payload(&request, &cluster_settings), &host);
        assert_eq!(got.to_json(), want.to_json(), "{name}");
        let cached = Validator::new().validate_with(&payload(&request, &cluster_settings), &host);
        assert_eq!(cached.to_json(), want.to_json(), "{name} (Validator)");
        let workload = request["operation"] != "DELETE"
            && crate::input::documents::WorkloadKind::parse(request["kind"]["kind"].as_str().unwrap()).is_some();
        assert_eq!(host.calls.get() - before, if workload { 2 } else { 0 }, "{name}: host calls");
        compared += 1;
    }
    assert!(compared >= 15, "{compared}");

    // The host's failure is the request's error, naming the call; settings errors name the
    // cluster's node.
    let request = json_of("deployment-web.json");
    let failing = ClusterHost { answer: Err("forbidden: Node".into()), calls: Default::default() };
    let r = validate_with(&payload(&request, &cluster_settings), &failing);
    assert_eq!(r.code, Some(500));
    assert_eq!(r.message.as_deref(), Some("placement policy: inventory: cluster: cannot list the cluster's Nodes (kubewarden/kubernetes/list_resources_all v1 Node): forbidden: Node"));
    let bad = ClusterHost {
        answer: Ok(br#"{"items": [{"metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "Bad"}]}}]}"#
            .to_vec()),
        calls: Default::default(),
    };
    let r = validate_with(&payload(&request, &cluster_settings), &bad);
    assert!(
        r.message.as_deref().unwrap().starts_with("placement policy: invalid settings: the cluster's Nodes[0]: "),
        "{r:?}"
    );
    // Without a host (native `validate`), the call fails with a clear error.
    let r = validate(&payload(&request, &cluster_settings));
    assert!(r.message.unwrap().ends_with("this host makes no host capabilities calls"));
    // `nodes` and `inventory: cluster` together are a settings error.
    let mut both = cluster_settings.clone();
    both["nodes"] = json!(["a"]);
    let e = validate_settings(&serde_json::to_vec(&both).unwrap());
    assert!(e.message.unwrap().starts_with("settings.nodes: inventory: cluster reads the cluster's Nodes"));
}

/// Each request's listed Nodes are read into the settings read once without them: the
/// inventory and the policies that read it are new, Gatekeeper's compiled templates are the
/// same ones (a pre-initialized module keeps them in its snapshot), and settings that do not
/// list the cluster are not read again.
#[cfg(feature = "admission-gatekeeper")]
#[test]
fn listed_nodes_are_read_into_the_settings_read_before() {
    let mut with_gatekeeper: Value =
        serde_json::from_str(include_str!("../../../policy-wasm/examples/cluster/settings.json")).unwrap();
    with_gatekeeper["gatekeeper"] = json_of("settings-gatekeeper.json")["gatekeeper"].clone();
    let read = Settings::for_requests(&with_gatekeeper).unwrap();
    assert!(read.needs_cluster_nodes() && read.inventory.is_empty());
    let nodes: Value = serde_json::from_slice::<Value>(&example_cluster_nodes()).unwrap()["items"].clone();
    let listed = read.with_listed_nodes(host::ListedNodes::Items(nodes.clone())).unwrap();
    assert_eq!(listed.inventory.len(), 7);
    assert!(!listed.needs_cluster_nodes());
    let (before, after) = (read.gatekeeper.as_ref().unwrap(), listed.gatekeeper.as_ref().unwrap());
    assert!(std::sync::Arc::ptr_eq(before, after), "the compiled templates are shared");
    let bad = json!([{"metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "Bad"}]}}]);
    let e = read.with_listed_nodes(host::ListedNodes::Items(bad)).unwrap_err().to_string();
    assert!(e.starts_with("the cluster's Nodes[0]: "), "{e}");

    let in_settings = Settings::for_requests(&json_of("settings.json")).unwrap();
    let same = in_settings.with_listed_nodes(host::ListedNodes::Items(nodes)).unwrap();
    assert_eq!(same.inventory.len(), in_settings.inventory.len());
}

// ---------------------------------------------------------------------------------------------
// `gatekeeper.inventory`: data.inventory from the cluster

/// The kwctl example of `policy-wasm/examples/cluster/`: its settings (YAML), the session
/// that answers its listings, and its request.
#[cfg(feature = "admission-gatekeeper")]
mod gatekeeper_inventory {
    use super::*;
    use crate::admission::host::Replay;

    const SETTINGS: &str = include_str!("../../../policy-wasm/examples/cluster/gatekeeper-settings.yaml");
    const SESSION: &str = include_str!("../../../policy-wasm/examples/cluster/ingress-replay.yml");
    const REVIEW: &str = include_str!("../../../policy-wasm/examples/cluster/ingress-host-taken-review.json");

    fn settings() -> Value {
        serde_yaml::from_str(SETTINGS).unwrap()
    }

    fn request() -> Value {
        serde_json::from_str::<Value>(REVIEW).unwrap()["request"].clone()
    }

    /// The request for an Ingress `ns/name` with `hosts`.
    fn ingress(ns: &str, name: &str, operation: &str, hosts: &[&str]) -> Value {
        let mut r = request();
        r["namespace"] = ns.into();
        r["name"] = name.into();
        r["operation"] = operation.into();
        r["object"]["metadata"] = json!({"name": name, "namespace": ns});
        r["object"]["spec"]["rules"] = hosts.iter().map(|h| json!({"host": h})).collect();
        r
    }

    /// Every request through both entry points (the stateless one and the validator): the same
    /// answer, and the session's exchanges asked in file order, as kwctl replays them.
    fn answer(request: &Value, settings: &Value, host: &Replay) -> ValidationResponse {
        host.clear_calls();
        let plain = validate_with(&payload(request, settings), host);
        let calls = host.calls();
        host.clear_calls();
        let cached = Validator::new().validate_with(&payload(request, settings), host);
        assert_eq!(cached.to_json(), plain.to_json());
        assert_eq!(host.calls(), calls, "the validator makes the same calls");
        if !calls.is_empty() {
            assert_eq!(calls, (0..host.len()).collect::<Vec<_>>(), "one listing per resource, in the session's order");
        }
        plain
    }

    #[test]
    fn data_inventory_is_listed_from_the_cluster() {
        let settings = settings();
        assert!(validate_settings(&serde_json::to_vec(&settings).unwrap()).valid);
        let host = Replay::parse(SESSION).unwrap();

        // The kwctl example: a host another namespace's Ingress uses.
        let r = answer(&request(), &settings, &host);
        assert!(!r.accepted, "{r:?}");
        assert_eq!(
            r.message.as_deref(),
            Some("[unique-ingress-host] ingress host blog.example.com is already used by Ingress blog/blog")
        );
        assert_eq!(host.calls(), [0, 1]);

        let rows: [(&str, Value, Option<&str>); 5] = [
            ("its own host, on update", ingress("shop", "storefront", "UPDATE", &["shop.example.com"]), None),
            ("a new host", ingress("shop", "storefront-v2", "CREATE", &["new.example.com"]), None),
            (
                "two hosts taken",
                ingress("blog", "blog-v2", "CREATE", &["shop.example.com", "www.blog.example.com"]),
                Some("[unique-ingress-host] ingress host shop.example.com is already used by Ingress shop/storefront\n[unique-ingress-host] ingress host www.blog.example.com is already used by Ingress blog/blog"),
            ),
            // `lab` has no `ingress-hosts: unique` label (its listed Namespace says so): the
            // constraint's namespaceSelector does not match.
            ("a namespace the constraint does not select", ingress("lab", "copy", "CREATE", &["blog.example.com"]), None),
            // A namespace the cluster does not have: no Namespace, so no match.
            ("an unknown namespace", ingress("nowhere", "copy", "CREATE", &["blog.example.com"]), None),
        ];
        for (name, request, want) in rows {
            let r = answer(&request, &settings, &host);
            assert_eq!(r.accepted, want.is_none(), "{name}: {r:?}");
            assert_eq!(r.message.as_deref(), want, "{name}");
            assert_eq!(host.calls(), [0, 1], "{name}");
        }

        // A request no constraint can match (a Deployment: the constraint is on Ingresses) lists
        // nothing.
        let r = answer(&json_of("deployment-web.json"), &settings, &host);
        assert!(r.accepted && host.calls().is_empty(), "{r:?}");

        // Without `inventory`, data.inventory is empty and no call is made: nothing conflicts,
        // and no Namespace is known to the namespaceSelector.
        let mut without = settings.clone();
        without["gatekeeper"].as_object_mut().unwrap().remove("inventory");
        let r = answer(&request(), &without, &host);
        assert!(r.accepted && host.calls().is_empty(), "{r:?}");
        without["gatekeeper"]["inventory"] = Value::Null;
        assert!(validate_settings(&serde_json::to_vec(&without).unwrap()).valid, "null is none");
        // Without the selector, the template runs, over an empty data.inventory.
        without["gatekeeper"]["constraints"][0]["spec"]["match"].as_object_mut().unwrap().remove("namespaceSelector");
        let r = answer(&request(), &without, &host);
        assert!(r.accepted && host.calls().is_empty(), "{r:?}");
    }

    #[test]
    fn a_failed_listing_is_the_requests_error() {
        let settings = settings();
        let request = request();
        // No host: the first listing fails, naming the call.
        let r = validate(&payload(&request, &settings));
        assert_eq!(r.code, Some(500));
        assert_eq!(
            r.message.as_deref(),
            Some("placement policy: gatekeeper.inventory: cannot list networking.k8s.io/v1 Ingress (kubewarden/kubernetes/list_resources_all networking.k8s.io/v1 Ingress): this host makes no host capabilities calls")
        );
        // The host refuses the second resource, as policy-server does for one the spec does not allow.
        let refused = SESSION.replacen(
            "  response:\n    type: Success\n    payload: '{\"apiVersion\":\"v1\",\"kind\":\"NamespaceList\"",
            "  response:\n    type: Error\n    message: Policy has not been granted access to Kubernetes v1/Namespace resources. The violation has been reported.\n  unused: '{\"apiVersion\":\"v1\",\"kind\":\"NamespaceList\"",
            1,
        );
        assert_ne!(refused, SESSION);
        let r = validate_with(&payload(&request, &settings), &Replay::parse(&refused).unwrap());
        assert_eq!(
            r.message.as_deref(),
            Some("placement policy: gatekeeper.inventory: cannot list v1 Namespace (kubewarden/kubernetes/list_resources_all v1 Namespace): Policy has not been granted access to Kubernetes v1/Namespace resources. The violation has been reported.")
        );
        // Answers that are no List, or whose items cannot be filed.
        let answers: [(&str, &str); 3] = [
            ("{\"items\": 3}", "the host's answer is not a List of Ingress (no `items` list)"),
            ("{\"items\": [{\"metadata\": {\"namespace\": \"x\"}}]}", "cannot use the listed objects: networking.k8s.io/v1 Ingress: items[0]: no metadata.name"),
            ("{\"items\": [[]]}", "cannot use the listed objects: networking.k8s.io/v1 Ingress: items[0]: expected an object, found a list"),
        ];
        let mut ingresses_only = settings.clone();
        ingresses_only["gatekeeper"]["inventory"].as_array_mut().unwrap().truncate(1);
        for (answer, want) in answers {
            let session = format!(
                "- type: Exchange\n  request: |\n    !KubernetesListResourceAll\n    api_version: networking.k8s.io/v1\n    kind: Ingress\n  response:\n    type: Success\n    payload: '{answer}'\n"
            );
            let r = validate_with(&payload(&request, &ingresses_only), &Replay::parse(&session).unwrap());
            assert_eq!(r.code, Some(500), "{answer}");
            assert!(r.message.as_deref().unwrap().ends_with(want), "{answer}: {r:?}");
        }
    }

    /// A host that counts calls by operation and answers every listing with one object of the
    /// kind asked, in the namespace asked (or none).
    #[derive(Default)]
    struct Counting {
        calls: std::cell::RefCell<Vec<(String, Value)>>,
    }

    impl Counting {
        fn answer(&self, op: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
            let asked: Value = serde_json::from_slice(payload).unwrap();
            self.calls.borrow_mut().push((op.to_string(), asked.clone()));
            let mut obj =
                json!({"metadata": {"name": format!("{}-1", asked["kind"].as_str().unwrap().to_lowercase())}});
            if let Some(ns) = asked.get("namespace") {
                obj["metadata"]["namespace"] = ns.clone();
            }
            if asked["kind"] == "Node" {
                obj["metadata"]["labels"] = json!({"pool": "general"});
            }
            Ok(json!({"items": [obj]}).to_string().into_bytes())
        }
    }

    impl host::HostCapabilities for Counting {
        fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
            self.answer("all", payload)
        }

        fn list_resources_by_namespace(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
            self.answer("by namespace", payload)
        }
    }

    /// A template that reports what data.inventory holds, as `cluster|namespace/apiVersion/kind/name`.
    const SEES: &str = r#"
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata: {name: sees}
spec:
  crd: {spec: {names: {kind: Sees}}}
  targets:
  - target: admission.k8s.gatekeeper.sh
    rego: |
      package sees
      violation[{"msg": msg}] {
        data.inventory.cluster[gv][kind][name]
        msg := sprintf("cluster/%v/%v/%v", [gv, kind, name])
      }
      violation[{"msg": msg}] {
        data.inventory.namespace[ns][gv][kind][name]
        msg := sprintf("%v/%v/%v/%v", [ns, gv, kind, name])
      }
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: Sees
metadata: {name: sees}
spec:
  match:
    kinds: [{apiGroups: [apps], kinds: [Deployment]}]
"#;

    #[test]
    fn listings_by_namespace_and_shared_with_the_node_inventory() {
        let settings = json!({
            "inventory": "cluster",
            "schedulable": {},
            "gatekeeper": {
                "templates": SEES,
                "inventory": [
                    {"apiVersion": "v1", "kind": "Node"},
                    {"apiVersion": "v1", "kind": "Service", "namespace": "team-a"},
                    {"apiVersion": "v1", "kind": "Service", "namespace": "team-b"},
                    {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget"},
                ],
            },
        });
        assert!(validate_settings(&serde_json::to_vec(&settings).unwrap()).valid);
        let host = Counting::default();
        let r = validate_with(&payload(&json_of("deployment-web.json"), &settings), &host);
        // Items are filed under the listed resource, by their namespace: the PDB answer has
        // no namespace, so it is cluster-scoped as far as data.inventory goes.
        assert_eq!(
            r.message.as_deref(),
            Some("[sees] cluster/policy/v1/PodDisruptionBudget/poddisruptionbudget-1\n[sees] cluster/v1/Node/node-1\n[sees] team-a/v1/Service/service-1\n[sees] team-b/v1/Service/service-1"),
            "{r:?}"
        );
        // The Nodes are listed once, for both the placement policies and data.inventory.
        let calls: Vec<String> =
            host.calls.borrow().iter().map(|(op, v)| format!("{op} {} {}", v["kind"], v["namespace"])).collect();
        assert_eq!(
            calls,
            [
                "all \"Node\" null",
                "by namespace \"Service\" \"team-a\"",
                "by namespace \"Service\" \"team-b\"",
                "all \"PodDisruptionBudget\" null"
            ]
        );
    }

    #[test]
    fn inventory_settings_errors_name_the_entry() {
        let rows: [(Value, &str); 8] = [
            (json!({"kind": "Ingress"}), "settings.gatekeeper.inventory[0]: missing field `apiVersion`"),
            (
                json!({"apiVersion": "networking.k8s.io/v1", "kind": "Ingress", "namespaces": ["a"]}),
                "settings.gatekeeper.inventory[0].namespaces: unknown field `namespaces`",
            ),
            (
                json!({"apiVersion": "Networking/v1", "kind": "Ingress"}),
                "settings.gatekeeper.inventory[0].apiVersion: \"Networking/v1\": expected `v1` or `group/version`",
            ),
            (
                json!({"apiVersion": "", "kind": "Ingress"}),
                "settings.gatekeeper.inventory[0].apiVersion: \"\": expected `v1` or `group/version`",
            ),
            (
                json!({"apiVersion": "v1", "kind": "services"}),
                "settings.gatekeeper.inventory[0].kind: \"services\": expected a Kind",
            ),
            (
                json!({"apiVersion": "v1", "kind": "Service", "namespace": "Team A"}),
                "settings.gatekeeper.inventory[0].namespace: \"Team A\": a lowercase RFC 1123 label",
            ),
            (
                json!({"apiVersion": "v1", "kind": "Service", "namespace": 3}),
                "settings.gatekeeper.inventory[0].namespace: invalid type: integer `3`",
            ),
            (json!("v1/Service"), "settings.gatekeeper.inventory[0]: invalid type: string \"v1/Service\""),
        ];
        for (entry, want) in rows {
            let settings = json!({"gatekeeper": {"templates": SEES, "inventory": [entry]}});
            let r = validate_settings(&serde_json::to_vec(&settings).unwrap());
            let msg = r.message.unwrap_or_default();
            assert!(!r.valid && msg.starts_with(want), "{entry}: {msg}");
        }
        let twice = json!({"gatekeeper": {"templates": SEES, "inventory": [
            {"apiVersion": "v1", "kind": "Service"}, {"apiVersion": "v1", "kind": "Namespace"}, {"apiVersion": "v1", "kind": "Service"},
        ]}});
        let msg = validate_settings(&serde_json::to_vec(&twice).unwrap()).message.unwrap();
        assert_eq!(
            msg,
            "settings.gatekeeper.inventory[2]: v1 Service is listed twice (also settings.gatekeeper.inventory[0])"
        );
        let many: Vec<Value> = (0..=gatekeeper::MAX_INVENTORY_RESOURCES)
            .map(|i| json!({"apiVersion": "v1", "kind": "Service", "namespace": format!("ns-{i}")}))
            .collect();
        let msg = validate_settings(
            &serde_json::to_vec(&json!({"gatekeeper": {"templates": SEES, "inventory": many}})).unwrap(),
        )
        .message
        .unwrap();
        assert_eq!(msg, "settings.gatekeeper.inventory: 33 resources, over the limit of 32");
    }
}

/// The word-at-a-time search finds what a byte loop finds: every position of the match in
/// a word, both patterns, bytes that differ from them by one bit, and no match.
#[test]
fn quote_or_backslash_finds_the_first_as_a_byte_loop_does() {
    let fillers: [&[u8]; 4] =
        [b"abcdefghij", b"!#[]", &[0x22 ^ 0x80, 0x5c ^ 0x01, 0xff, 0x00, 0x21, 0x23], "ü€".as_bytes()];
    for filler in fillers {
        for len in 0..40 {
            let base: Vec<u8> =
                filler.iter().copied().cycle().filter(|c| *c != b'"' && *c != b'\\').take(len).collect();
            let mut texts = vec![base.clone()];
            for at in 0..len {
                for pattern in [b'"', b'\\'] {
                    let mut t = base.clone();
                    t[at] = pattern;
                    texts.push(t.clone());
                    if at + 3 < len {
                        t[at + 3] = b'"';
                        texts.push(t);
                    }
                }
            }
            for t in texts {
                let want = t.iter().position(|c| *c == b'"' || *c == b'\\');
                assert_eq!(quote_or_backslash(&t), want, "{:?}", String::from_utf8_lossy(&t));
            }
        }
    }
}
