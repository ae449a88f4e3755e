//! The built module in a real waPC host (wapc + wasmtime-provider): the protocol, settings
//! validation, the Kubewarden test cases shared with the core's unit tests, the artifact's
//! import list and metadata, and garbage that must not trap.

use placement_core::documents::parse_manifests;
use placement_core::simulate::{simulate, SimulateOptions};
use placement_policy::metadata::metadata_json;
use placement_policy::wasm::{custom_sections, imports, unexpected_imports, KUBEWARDEN_METADATA};
use placement_wapc_host::{fixture, module_bytes, payload, repo_root, wapc_host, RawHost};
use serde_json::{json, Value};

fn call(host: &wapc::WapcHost, op: &str, payload: &[u8]) -> Value {
    let out = host.call(op, payload).unwrap_or_else(|e| panic!("{op}: {e}"));
    serde_json::from_slice(&out).unwrap_or_else(|e| panic!("{op}: {e}: {}", String::from_utf8_lossy(&out)))
}

fn strings(v: Option<&Value>) -> Vec<String> {
    v.and_then(Value::as_array).map(|a| a.iter().map(|s| s.as_str().unwrap().to_string()).collect()).unwrap_or_default()
}

#[test]
fn imports_only_wapc() {
    let bytes = module_bytes();
    let list: Vec<String> = imports(&bytes).unwrap().iter().map(ToString::to_string).collect();
    assert_eq!(
        list,
        ["wapc.__guest_error (func)", "wapc.__guest_request (func)", "wapc.__guest_response (func)"],
        "no wasm-bindgen, no WASI, no host calls"
    );
    assert!(unexpected_imports(&bytes).unwrap().is_empty());
    // The minimal host links exactly these three functions: instantiation proves the list too.
    RawHost::new(&bytes).expect("instantiates with only the three waPC guest functions");
}

#[test]
fn metadata_section_round_trips() {
    let bytes = module_bytes();
    let sections = custom_sections(&bytes, KUBEWARDEN_METADATA).unwrap();
    assert_eq!(sections.len(), 1, "one io.kubewarden.metadata section");
    let embedded: Value = serde_json::from_slice(sections[0]).unwrap();
    let yaml = std::fs::read_to_string(repo_root().join("policy-wasm/metadata.yml")).unwrap();
    assert_eq!(embedded, metadata_json(&yaml).unwrap(), "the artifact carries the current metadata.yml");
    assert_eq!(embedded["protocolVersion"], "v1");
    assert_eq!(embedded["executionMode"], "kubewarden-wapc");
    assert_eq!(embedded["mutating"], true);
    assert!(bytes.len() < 2 * 1024 * 1024, "module is {} bytes, over the 2 MB target", bytes.len());
}

#[test]
fn protocol_version_and_settings() {
    let host = wapc_host(&module_bytes());
    assert_eq!(call(&host, "protocol_version", b""), json!("v1"));
    for name in ["settings.json", "settings-warn.json", "settings-blanket.json"] {
        let s = serde_json::to_vec(&fixture(name)).unwrap();
        assert_eq!(call(&host, "validate_settings", &s), json!({"valid": true}), "{name}");
    }
    let rows: [(&[u8], &str); 5] = [
        (b"{}", "settings: no policy is enabled"),
        (b"{\"schedulable\": {}}", "settings.nodes: schedulable needs the node inventory"),
        (
            br#"{"nodes": ["gpu-1: sku=gpu:NoSchedul"], "schedulable": {}}"#,
            "settings.nodes[0]: \"gpu-1: sku=gpu:NoSchedul\": taint \"sku=gpu:NoSchedul\": effect \"NoSchedul\" is not one of NoSchedule, PreferNoSchedule, NoExecute",
        ),
        (br#"{"disallowedTolerations": {"keys": ["a"], "mode": "block"}}"#, "settings.disallowedTolerations.mode: unknown variant `block`"),
        (b"\xff\xfe", "settings are not valid JSON"),
    ];
    for (input, want) in rows {
        let v = call(&host, "validate_settings", input);
        assert_eq!(v["valid"], false, "{v}");
        assert!(v["message"].as_str().unwrap().contains(want), "{v}");
    }
    // An unknown operation is a waPC error, not a trap; the instance keeps working.
    let err = host.call("mutate", b"").unwrap_err().to_string();
    assert!(err.contains("unknown operation \"mutate\""), "{err}");
    assert_eq!(call(&host, "protocol_version", b""), json!("v1"));
}

/// Nodes of `pools` (`*` = all) where the DaemonSet `object` gets no pod, per the core.
fn uncovered(object: &Value, settings: &Value, pools: &[String]) -> Vec<String> {
    let s = placement_core::admission::settings::Settings::from_value(settings).unwrap();
    let mut m = parse_manifests(&serde_json::to_string(object).unwrap(), "mutated").unwrap();
    m.nodes = s.inventory.nodes.clone();
    let report = simulate(&m, &SimulateOptions::default()).unwrap();
    let w = &report.workloads[0];
    s.inventory
        .nodes
        .iter()
        .map(|(_, n)| n)
        .filter(|n| pools.iter().any(|p| p == "*" || p == s.inventory.pool_of(n)))
        .filter(|n| !w.pods.iter().any(|p| p.node.as_deref() == Some(n.metadata.name.as_str())))
        .map(|n| n.metadata.name.clone())
        .collect()
}

#[test]
fn kubewarden_testcases_in_the_wasm_host() {
    let host = wapc_host(&module_bytes());
    let cases = fixture("cases.json");
    let mut mutated_seen = 0;
    for case in cases.as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let settings = fixture(case.get("settings").and_then(Value::as_str).unwrap_or("settings.json"));
        let request = fixture(case["fixture"].as_str().unwrap());
        let resp = call(&host, "validate", &payload(&request, &settings));
        // The wasm answer is byte-for-byte the native one.
        let native = placement_core::admission::validate(&payload(&request, &settings));
        assert_eq!(resp, serde_json::to_value(&native).unwrap(), "{name}: wasm and native differ");
        let ctx = format!("case {name:?}: {resp:#}");
        assert_eq!(resp["accepted"], case["accepted"], "{ctx}");
        let message = resp["message"].as_str().unwrap_or_default();
        for want in strings(case.get("message")) {
            assert!(message.contains(&want), "{ctx}\nmissing in message: {want}");
        }
        let warnings = strings(resp.get("warnings")).join("\n");
        for want in strings(case.get("warnings")) {
            assert!(warnings.contains(&want), "{ctx}\nmissing in warnings: {want}");
        }
        if let Some(want) = case.get("mutatedTolerations") {
            mutated_seen += 1;
            let obj = &resp["mutated_object"];
            assert!(obj.is_object(), "{ctx}\nnot mutated");
            let got = obj["spec"]["template"]["spec"]["tolerations"].as_array().unwrap();
            assert!(got.ends_with(want.as_array().unwrap()), "{ctx}");
            // The mutated DaemonSet places a pod on every node of the pools, per the core;
            // the original did not.
            let pools = strings(case.get("coversPools"));
            assert_eq!(uncovered(obj, &settings, &pools), Vec::<String>::new(), "{ctx}");
            assert!(!uncovered(&request["object"], &settings, &pools).is_empty(), "{ctx}");
        } else {
            assert!(resp.get("mutated_object").is_none(), "{ctx}");
        }
    }
    assert!(mutated_seen >= 2, "the precise and the blanket mutation were both exercised");
}

/// xorshift64*.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

#[test]
fn garbage_never_traps() {
    let bytes = module_bytes();
    let mut raw = RawHost::new(&bytes).unwrap();
    let host = wapc_host(&bytes);
    let mut rng = Rng(42);
    let base = payload(&fixture("daemonset-defender.json"), &fixture("settings.json"));
    for i in 0..3000 {
        let input: Vec<u8> = match i % 3 {
            0 => (0..(rng.next() % 300) as usize).map(|_| rng.next() as u8).collect(),
            1 => base[..(rng.next() as usize % base.len())].to_vec(),
            _ => {
                let mut b = base.clone();
                for _ in 0..4 {
                    let at = rng.next() as usize % b.len();
                    b[at] = rng.next() as u8;
                }
                b
            }
        };
        for op in ["validate", "validate_settings"] {
            let out = raw.call(op, &input).unwrap_or_else(|e| panic!("{op} on input {i}: {e}"));
            serde_json::from_slice::<Value>(&out).unwrap_or_else(|e| panic!("{op} on input {i}: not JSON: {e}"));
        }
        if i % 100 == 0 {
            host.call("validate", &input).unwrap_or_else(|e| panic!("WapcHost, input {i}: {e}"));
        }
    }
    // Large and deep inputs.
    let deep = format!("{{\"request\": {}{}}}", "[".repeat(100_000), "]".repeat(100_000));
    let out: Value = serde_json::from_slice(&raw.call("validate", deep.as_bytes()).unwrap()).unwrap();
    assert_eq!(out["code"], 400);
    let big = vec![b' '; 8 << 20];
    let out: Value = serde_json::from_slice(&raw.call("validate", &big).unwrap()).unwrap();
    assert_eq!(out["accepted"], false);
}
