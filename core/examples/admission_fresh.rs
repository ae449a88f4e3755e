//! Profiling aid for the policy's fresh-instance path: the stateless `admission::validate`
//! (settings read on every call, as in a fresh policy instance), natively, on the inputs of
//! `tests/wapc-host`'s `bench-policy` (`bench_settings`, `pod_security_settings`, from that
//! crate's `src/bench_inputs.rs`, included here since that crate is its own workspace).
//! Instruction counts are what BENCHMARKS.md compares, since they hold under load:
//!
//! ```text
//! cargo build --release -p placement-core --example admission_fresh
//! valgrind --tool=callgrind target/release/examples/admission_fresh inv100 5
//! ```
//!
//! Arguments: `CASE [CALLS]`, CASE one of `inv100`, `inv1000` (the Deployment against 100 or
//! 1,000 nodes, every policy on), `noinv` (the same Deployment with `disallowedTolerations`
//! only: a request's fixed part), `gk` (the 10 pod-security constraints on a Pod; `gkobj`, the
//! same with the templates as objects instead of YAML text), `ds CALLS
//! NODES` (the DaemonSet that is mutated), `cluster1000` (`inventory: cluster`, the host
//! listing 1,000 Nodes as the API server does; `list1000`, only the listing). One call more than CALLS is made (the first
//! prints the answer). With `--validator` anywhere in the arguments each call goes through a
//! new `admission::Validator` instead, which is what a fresh instance of the wasm module runs
//! (its `validate` is a `Validator` that starts empty in every instance).
use serde_json::{json, Value};

#[path = "../../tests/wapc-host/src/bench_inputs.rs"]
mod bench_inputs;
use bench_inputs::{bench_settings, cluster_nodes, pod_security_request, pod_security_settings};

/// A host that lists `0` for every `list_resources_all`.
struct ListHost(Vec<u8>);

impl placement_core::admission::host::HostCapabilities for ListHost {
    fn list_resources_all(&self, _: &[u8]) -> Result<Vec<u8>, String> {
        Ok(self.0.clone())
    }

    fn list_resources_by_namespace(&self, _: &[u8]) -> Result<Vec<u8>, String> {
        Err("not listed".into())
    }
}

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn read_json(p: &str) -> Value {
    serde_json::from_str(&std::fs::read_to_string(root().join(p)).unwrap()).unwrap()
}

fn main() {
    let all: Vec<String> = std::env::args().collect();
    let fresh_validator = all.iter().any(|a| a == "--validator");
    let args: Vec<String> = all.into_iter().filter(|a| a != "--validator").collect();
    let case = args.get(1).map(String::as_str).unwrap_or("inv100");
    let host = ListHost(
        serde_json::to_vec(&json!({"apiVersion": "v1", "kind": "List", "items": cluster_nodes(1_000)})).unwrap(),
    );
    let call = |payload: &[u8]| {
        if fresh_validator {
            placement_core::admission::Validator::new().validate_with(payload, &host)
        } else {
            placement_core::admission::validate_with(payload, &host)
        }
    };
    let n: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(100);
    if case == "list1000" {
        // Only the listing of cluster1000: the host's answer read into Nodes.
        let t = std::time::Instant::now();
        for _ in 0..n {
            std::hint::black_box(placement_core::admission::host::list_nodes(&host).map(|l| l.len()).unwrap_or(0));
        }
        eprintln!("{case}: {:.1} us/call", t.elapsed().as_secs_f64() * 1e6 / n as f64);
        return;
    }
    let payload = match case {
        "gk" => {
            let (request, settings) = (pod_security_request(&root()), pod_security_settings(&root()));
            serde_json::to_vec(&json!({"request": request, "settings": settings})).unwrap()
        }
        "gkobj" => {
            // The same templates as objects (as a ClusterAdmissionPolicy's YAML settings reach
            // the policy: policy-server sends them as JSON), so no YAML is read per request.
            let (request, mut settings) = (pod_security_request(&root()), pod_security_settings(&root()));
            for t in settings["gatekeeper"]["templates"].as_array_mut().unwrap() {
                *t = serde_yaml::from_str::<Value>(t.as_str().unwrap()).unwrap();
            }
            serde_json::to_vec(&json!({"request": request, "settings": settings})).unwrap()
        }
        "noinv" => {
            // bench-policy's "disallowedTolerations only (no inventory)": the fixed part of a
            // request.
            let r = read_json("core/src/admission/testdata/deployment-web.json");
            let settings = json!({"disallowedTolerations": {"keyPrefixes": ["node-role.kubernetes.io/"], "exemptNamespaces": ["kube-system"]}});
            serde_json::to_vec(&json!({"request": r, "settings": settings})).unwrap()
        }
        "cluster1000" => {
            let r = read_json("core/src/admission/testdata/deployment-web.json");
            let settings = read_json("policy-wasm/examples/cluster/settings.json");
            serde_json::to_vec(&json!({"request": r, "settings": settings})).unwrap()
        }
        "ds" => {
            let nodes = args.get(3).and_then(|s| s.parse().ok()).unwrap_or(100);
            let r = read_json("core/src/admission/testdata/daemonset-defender.json");
            serde_json::to_vec(&json!({"request": r, "settings": bench_settings(nodes)})).unwrap()
        }
        _ => {
            let nodes = if case == "inv1000" { 1000 } else { 100 };
            let r = read_json("core/src/admission/testdata/deployment-web.json");
            serde_json::to_vec(&json!({"request": r, "settings": bench_settings(nodes)})).unwrap()
        }
    };
    let first = call(&payload);
    eprintln!("{}", serde_json::to_string(&first).unwrap().chars().take(300).collect::<String>());
    let t = std::time::Instant::now();
    for _ in 0..n {
        std::hint::black_box(call(&payload));
    }
    eprintln!("{case}: {:.1} us/call", t.elapsed().as_secs_f64() * 1e6 / n as f64);
}
