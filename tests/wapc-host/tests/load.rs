//! Load: 100,000 validations in a row, no failure, and the instance's memory stops growing
//! after warm-up, in the plain module and in a pre-initialized one.

use std::time::Instant;

use placement_wapc_host::{
    canonical_payload, canonical_settings, fixture, module_bytes, payload, preinitialize, wapc_host, RawHost,
};
use serde_json::Value;

const CALLS: usize = 100_000;
const WARMUP: usize = 2_000;

/// Every case's request, with its settings, round-robin: all policies, accept/reject/mutate.
fn workload() -> Vec<(Vec<u8>, bool)> {
    workload_with(&payload)
}

/// [`workload`] with the payloads `payload_of(request, settings)` writes.
fn workload_with(payload_of: &dyn Fn(&Value, &Value) -> Vec<u8>) -> Vec<(Vec<u8>, bool)> {
    fixture("cases.json")
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let settings = fixture(c.get("settings").and_then(Value::as_str).unwrap_or("settings.json"));
            (payload_of(&fixture(c["fixture"].as_str().unwrap()), &settings), c["accepted"].as_bool().unwrap())
        })
        .collect()
}

#[test]
fn hundred_thousand_validations_in_the_wapc_host() {
    let host = wapc_host(&module_bytes());
    let inputs = workload();
    let start = Instant::now();
    for i in 0..CALLS {
        let (p, accepted) = &inputs[i % inputs.len()];
        let out = host.call("validate", p).unwrap_or_else(|e| panic!("call {i}: {e}"));
        let v: Value = serde_json::from_slice(&out).unwrap_or_else(|e| panic!("call {i}: {e}"));
        assert_eq!(v["accepted"].as_bool(), Some(*accepted), "call {i}");
    }
    eprintln!("{CALLS} validations through WapcHost in {:.2?}", start.elapsed());
}

#[test]
fn memory_does_not_grow_after_warmup() {
    memory_stays_flat(&module_bytes(), &workload());
}

/// The same in a module pre-initialized for the test settings, with the settings as
/// policy-server sends them: the baked cache is used, then replaced by the Gatekeeper cases'
/// settings and back, 100,000 times, in one instance.
#[test]
fn memory_does_not_grow_in_a_preinitialized_module() {
    let baked = preinitialize(&module_bytes(), &canonical_settings(&fixture("settings.json"))).unwrap();
    memory_stays_flat(&baked.bytes, &workload_with(&canonical_payload));
}

fn memory_stays_flat(module: &[u8], inputs: &[(Vec<u8>, bool)]) {
    let mut raw = RawHost::new(module).unwrap();
    let initial = raw.memory_bytes();
    let mut after_warmup = 0;
    let mut peak = 0;
    for i in 0..CALLS {
        let (p, accepted) = &inputs[i % inputs.len()];
        let out = raw.call("validate", p).unwrap_or_else(|e| panic!("call {i}: {e}"));
        let v: Value = serde_json::from_slice(&out).unwrap();
        assert_eq!(v["accepted"].as_bool(), Some(*accepted), "call {i}");
        if i + 1 == WARMUP {
            after_warmup = raw.memory_bytes();
        }
        peak = peak.max(raw.memory_bytes());
    }
    let end = raw.memory_bytes();
    eprintln!(
        "memory: {} KiB at start, {} KiB after {WARMUP} warm-up calls, {} KiB after {CALLS} (peak {} KiB)",
        initial / 1024,
        after_warmup / 1024,
        end / 1024,
        peak / 1024
    );
    assert_eq!(end, after_warmup, "the exported memory grew after warm-up");
}
