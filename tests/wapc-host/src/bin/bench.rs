//! `bench-policy [--update FILE]`: the policy module in the waPC host (wapc's `WapcHost` over
//! wasmtime): validations per second and p50/p99 latency for a typical Deployment
//! against 100- and 1,000-node inventories, module size and instantiation time; the lean module
//! (`placement-policy-lean.wasm`, no Gatekeeper): its size, cold instantiation and the typical
//! Deployment at 100 nodes. Prints a
//! Markdown section headed `## Kubewarden policy`; with `--update FILE`, also puts it in FILE,
//! replacing that section if FILE has one, else appending it (FILE is created if missing).

use std::time::{Duration, Instant};

use placement_wapc_host::provider::EngineProviderPre;
use placement_wapc_host::{
    bench_settings, canonical_payload, canonical_settings, cluster_nodes, cluster_session, cluster_settings, fixture,
    lean_module_bytes, lean_module_path, module_bytes, module_path, payload, percentile, pod_security_request,
    pod_security_settings, preinitialize, time_calls, Host, Instances,
};
use serde_json::{json, Value};
use wapc::WapcHost;

/// Latencies of one way of running the module.
struct Timing {
    calls: usize,
    per_sec: f64,
    p50: f64,
    p99: f64,
    /// Minor page faults of the process per call, warm-up included (`None` where not read):
    /// a fresh instance's linear memory is new mappings, faulted in page by page as the
    /// call touches it.
    faults: Option<f64>,
}

/// The process's minor page faults so far (`/proc/self/stat`, field 10); `None` off Linux.
fn minor_faults() -> Option<u64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    // The command name (field 2) is in parentheses and may hold spaces: count after it.
    let after = stat.rsplit_once(')')?.1;
    after.split_whitespace().nth(7)?.parse().ok()
}

struct Row {
    case: String,
    nodes: usize,
    fresh: Timing,
    reused: Timing,
    verdict: String,
    /// The p50 target (fresh instance), µs.
    target_us: Option<f64>,
}

fn time(host: &Host, p: &[u8], calls: usize) -> Timing {
    let warmup = (calls / 10).max(1);
    let before = minor_faults();
    let (lat, total) = time_calls(warmup, calls, || {
        host.call("validate", p).expect("validate");
    });
    let faults = before.zip(minor_faults()).map(|(b, a)| a.saturating_sub(b) as f64 / (warmup + calls) as f64);
    Timing {
        calls,
        per_sec: calls as f64 / total.as_secs_f64(),
        p50: percentile(&lat, 0.50),
        p99: percentile(&lat, 0.99),
        faults,
    }
}

/// One request, timed with a fresh instance per call (policy-server's way) and with one
/// instance reused; `calls` is for the reused instance, fresh ones run a fifth as many.
fn bench(
    bytes: &Modules,
    case: &str,
    nodes: usize,
    request: &Value,
    settings: &Value,
    calls: usize,
    target_us: Option<f64>,
) -> Row {
    let p = payload(request, settings);
    let first: Value = serde_json::from_slice(&bytes.reused.call("validate", &p).expect("validate")).expect("JSON");
    let fresh_first: Value =
        serde_json::from_slice(&bytes.fresh.call("validate", &p).expect("validate")).expect("JSON");
    assert_eq!(first, fresh_first, "{case}: a fresh instance answers as a reused one");
    let verdict = if first["accepted"] == true {
        if first.get("mutated_object").is_some() {
            "accepted, mutated"
        } else {
            "accepted"
        }
    } else {
        "rejected"
    };
    Row {
        case: case.to_string(),
        nodes,
        fresh: time(&bytes.fresh, &p, (calls / 5).max(100)),
        reused: time(&bytes.reused, &p, calls),
        verdict: verdict.to_string(),
        target_us,
    }
}

/// A module loaded both ways.
struct Modules {
    fresh: Host,
    reused: Host,
}

impl Modules {
    /// Host calls answered from `cluster` (none: every host call fails).
    fn new(bytes: &[u8], cluster: Option<std::sync::Arc<placement_wapc_host::Replay>>) -> Self {
        Self {
            fresh: Host::with_cluster(bytes, Instances::Fresh, cluster.clone()),
            reused: Host::with_cluster(bytes, Instances::Reused, cluster),
        }
    }
}

/// A request of `--fresh-loop` and `--touched`, by name: `noinv` (the Deployment with
/// disallowedTolerations only), `noinv-<N>k` (the same, the review padded with N kB: the floor
/// at a payload size), `inv100`, `inv1000` (all four policies over that many nodes), `podsec`
/// (the 10 pod-security constraints), `cluster1000` (`inventory: cluster`, the host listing
/// 1,000 Nodes); `pre-` before a name runs the module pre-initialized for its settings.
struct Case {
    preinit: bool,
    request: Value,
    settings: Value,
    cluster: Option<std::sync::Arc<placement_wapc_host::Replay>>,
    /// The bytes of the host's answers (the listed Nodes), copied into the instance too.
    answers: usize,
}

impl Case {
    fn named(case: &str) -> Case {
        let (preinit, name) = match case.strip_prefix("pre-") {
            Some(rest) => (true, rest),
            None => (false, case),
        };
        let mut request = fixture("deployment-web.json");
        let (mut cluster, mut answers) = (None, 0);
        let settings = match name {
            "noinv" => tolerations_only(),
            padded if padded.starts_with("noinv-") && padded.ends_with('k') => {
                let kb: usize = padded["noinv-".len()..padded.len() - 1].parse().unwrap_or(0);
                request["padding"] = Value::String("x".repeat(kb * 1000));
                tolerations_only()
            }
            "inv100" => bench_settings(100),
            "inv1000" => bench_settings(1_000),
            "podsec" => {
                request = pod_security_request();
                pod_security_settings()
            }
            "cluster1000" => {
                let nodes = cluster_nodes(1_000);
                answers = serde_json::to_vec(&json!({"items": &nodes})).map_or(0, |b| b.len());
                cluster = Some(cluster_session(nodes));
                cluster_settings()
            }
            other => {
                eprintln!(
                    "bench-policy: unknown case {other:?} ([pre-]noinv, noinv-<N>k, inv100, inv1000, podsec, cluster1000)"
                );
                std::process::exit(2);
            }
        };
        Case { preinit, request, settings, cluster, answers }
    }

    /// The module the case runs: the full one, pre-initialized when asked.
    fn module(&self) -> Vec<u8> {
        match self.preinit {
            true => preinitialize(&module_bytes(), &canonical_settings(&self.settings)).expect("pre-initialize").bytes,
            false => module_bytes(),
        }
    }
}

/// The settings of the floor: disallowedTolerations only, no inventory.
fn tolerations_only() -> Value {
    json!({"disallowedTolerations": {"keyPrefixes": ["node-role.kubernetes.io/"], "exemptNamespaces": ["kube-system"]}})
}

/// `--fresh-loop CASE CALLS`: only fresh-instance calls of one request ([`Case`]), for a
/// profiler (`perf record ... bench-policy --fresh-loop pre-inv1000`).
fn fresh_loop(case: &str, calls: usize) {
    let c = Case::named(case);
    let p = canonical_payload(&c.request, &c.settings);
    let host = Host::with_cluster(&c.module(), Instances::Fresh, c.cluster.clone());
    let t = time(&host, &p, calls);
    println!(
        "{case}: {calls} fresh calls, p50 {:.1} µs, p99 {:.1} µs, {:.0} page faults per call",
        t.p50,
        t.p99,
        t.faults.unwrap_or(f64::NAN)
    );
}

/// `--touched [pre-]CASE`: the 4 KiB pages of linear memory one request maps and writes in a
/// fresh instance, from the kernel's page map (each is a page fault there: mapped from the
/// module's image on a read, copied or a zero page on a write), with the written ones by page
/// number; then which pages it changed, by region: the shadow stack (the first MiB: Rust's
/// wasm32 layout puts the stack first), the rest of the initial memory (data and heap), and
/// memory grown by the request. A page written but not changed is a reference count raised
/// and lowered, or a lock taken and released.
fn touched(case: &str) {
    let c = Case::named(case);
    if c.cluster.is_some() {
        eprintln!("bench-policy: --touched: {case} needs host calls, which this host does not answer");
        std::process::exit(2);
    }
    let (module, p) = (c.module(), canonical_payload(&c.request, &c.settings));
    let resident = {
        let mut host = placement_wapc_host::RawHost::new(&module).expect("instantiate");
        let before = host.resident_pages();
        host.call("validate", &p).expect("validate");
        before.zip(host.resident_pages())
    };
    if let Some((before, after)) = resident {
        // The written pages as runs of page numbers, to see where they are.
        let mut runs: Vec<(usize, usize)> = Vec::new();
        for &p in &after.owned {
            match runs.last_mut() {
                Some((_, end)) if *end + 1 == p => *end = p,
                _ => runs.push((p, p)),
            }
        }
        let runs: Vec<String> =
            runs.iter().map(|(a, b)| if a == b { format!("{a}") } else { format!("{a}-{b}") }).collect();
        println!(
            "{case}: pages mapped before the call: {} from the image, {} written; after: {} from the image, {} written: {}",
            before.image,
            before.owned.len(),
            after.image,
            after.owned.len(),
            runs.join(" ")
        );
    }
    let mut host = placement_wapc_host::RawHost::new(&module).expect("instantiate");
    let before = host.memory_image();
    host.call("validate", &p).expect("validate");
    let after = host.memory_image();
    const PAGE: usize = 4096;
    let (mut stack, mut initial, mut grown) = (0, 0, 0);
    for (i, page) in after.chunks(PAGE).enumerate() {
        let start = i * PAGE;
        let was = before.get(start..(start + PAGE).min(before.len()));
        if was == Some(page) {
            continue;
        }
        match start {
            s if s < 1 << 20 => stack += 1,
            s if s < before.len() => initial += 1,
            _ => grown += usize::from(page.iter().any(|b| *b != 0)),
        }
    }
    println!(
        "{case}: payload {} bytes; memory {} -> {} KiB; pages changed: stack {stack}, initial memory {initial}, grown (non-zero) {grown}",
        p.len(),
        before.len() / 1024,
        after.len() / 1024
    );
}

/// Best of 3 compiles of a module with Cranelift (policy-server's start), in ms.
fn cold_start_ms(bytes: &[u8]) -> f64 {
    (0..3)
        .map(|_| {
            let t = Instant::now();
            drop(EngineProviderPre::new(bytes).expect("compile"));
            t.elapsed()
        })
        .min()
        .unwrap_or_default()
        .as_secs_f64()
        * 1e3
}

/// `--preinit`: issue 31's table. For each case, the module pre-initialized for the case's
/// settings against the plain module, in the same run: fresh p50 of both, reused p50 of the
/// plain one, and the target (1.3 x reused + the floor, the plain module's fresh p50 of a
/// request without inventory); then the floor at the case's payload size (the same request
/// without inventory, padded to as many bytes as the case's payload and host answers: what
/// copying them into a fresh instance costs, whatever the module does with them), the target
/// with that floor, the pages, module sizes and cold starts, as Markdown.
fn preinit_table() -> String {
    let deployment = fixture("deployment-web.json");
    let full = module_bytes();
    let lean = lean_module_bytes();
    let floor = {
        let plain = Modules::new(&full, None);
        time(&plain.fresh, &payload(&deployment, &tolerations_only()), 2_000).p50
    };
    // (row, module, case of `Case::named`, fresh calls)
    let cases: [(&str, &[u8], &str, usize); 5] = [
        ("Deployment, all four policies, 100 nodes", &full, "inv100", 2_000),
        ("Deployment, all four policies, 1,000 nodes", &full, "inv1000", 500),
        ("Pod, 10 pod-security constraints", &full, "podsec", 500),
        ("lean: Deployment, all four policies, 100 nodes", &lean, "inv100", 2_000),
        ("inventory: cluster, 1,000 listed Nodes", &full, "cluster1000", 40),
    ];
    let mut md = String::from(
        "| case | plain fresh p50 µs | plain reused p50 µs | pre-initialized fresh p50 µs | target µs | met | \
         payload + host answers, bytes | floor at that size µs | target with it µs | met | \
         page faults per call, pre-initialized (plain) | pre-initialized module bytes (plain) | \
         cold start ms, pre-initialized (plain) |\n|---|---:|---:|---:|---:|---|---:|---:|---:|---|---:|---:|---:|\n",
    );
    for (case, module, name, calls) in cases {
        let Case { request, settings, cluster, answers, .. } = Case::named(name);
        let baked = preinitialize(module, &canonical_settings(&settings)).expect("pre-initialize");
        // The payload as policy-server sends it: the settings' canonical text.
        let p = canonical_payload(&request, &settings);
        let plain = Modules::new(module, cluster.clone());
        let pre = Modules::new(&baked.bytes, cluster);
        let want = plain.reused.call("validate", &p).expect("validate");
        assert_eq!(pre.fresh.call("validate", &p).expect("validate"), want, "{case}: the same answer");
        let (plain_fresh, plain_reused) = (time(&plain.fresh, &p, calls), time(&plain.reused, &p, calls * 5));
        let pre_fresh = time(&pre.fresh, &p, calls);
        let target = 1.3 * plain_reused.p50 + floor;
        let bytes = p.len() + answers;
        let sized_floor = padded_floor(&full, bytes, calls.max(500));
        let sized_target = 1.3 * plain_reused.p50 + sized_floor;
        let met = |t: f64| if pre_fresh.p50 <= t { "yes" } else { "NOT met" };
        md.push_str(&format!(
            "| {case} | {:.1} | {:.1} | {:.1} | {target:.0} | {} | {bytes} | {sized_floor:.1} | {sized_target:.0} | {} | {:.0} ({:.0}) | {} ({}) | {:.0} ({:.0}) |\n",
            plain_fresh.p50,
            plain_reused.p50,
            pre_fresh.p50,
            met(target),
            met(sized_target),
            pre_fresh.faults.unwrap_or(f64::NAN),
            plain_fresh.faults.unwrap_or(f64::NAN),
            baked.bytes.len(),
            module.len(),
            cold_start_ms(&baked.bytes),
            cold_start_ms(module),
        ));
    }
    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    md.push_str(&format!("\nFloor (plain module, fresh, no inventory): {floor:.1} µs p50; load average {load}.\n"));
    md
}

/// The plain module's fresh p50 for the floor's request (no inventory) padded so that its
/// payload has `bytes` bytes.
fn padded_floor(module: &[u8], bytes: usize, calls: usize) -> f64 {
    let mut request = fixture("deployment-web.json");
    let base = canonical_payload(&request, &tolerations_only()).len();
    // `"padding":"..."` and its comma: 14 bytes around the padding.
    request["padding"] = Value::String("x".repeat(bytes.saturating_sub(base + 14)));
    let p = canonical_payload(&request, &tolerations_only());
    time(&Modules::new(module, None).fresh, &p, calls).p50
}

fn main() {
    let mut markdown_out = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--update" => markdown_out = args.next(),
            "--preinit" => return print!("{}", preinit_table()),
            "--touched" => return touched(&args.next().unwrap_or_default()),
            "--fresh-loop" => {
                let case = args.next().unwrap_or_default();
                let calls = args.next().and_then(|n| n.parse().ok()).unwrap_or(20_000);
                return fresh_loop(&case, calls);
            }
            other => {
                eprintln!(
                    "bench-policy: unknown argument {other:?}; usage: bench-policy [--update FILE] | --preinit | --fresh-loop|--touched [pre-]CASE [CALLS]"
                );
                std::process::exit(2);
            }
        }
    }
    let bytes = module_bytes();

    // Cold start: compile the module with Cranelift (policy-server does this once per policy
    // at start, `build_pre`), best of 3 since other work on the machine inflates it. Then a
    // fresh instance from the compiled module (rehydrate + WapcHost::new), as policy-server
    // makes for every request, without a call.
    let cold = (0..3)
        .map(|_| {
            let t = Instant::now();
            drop(EngineProviderPre::new(&bytes).expect("compile"));
            t.elapsed()
        })
        .min()
        .unwrap_or_default();
    let pre = EngineProviderPre::new(&bytes).expect("compile");
    let (warm, _) = time_calls(5, 200, || {
        let engine = pre.rehydrate();
        let host = WapcHost::new(Box::new(engine), None).expect("instantiate");
        drop(host);
    });
    let warm_p50 = percentile(&warm, 0.5);

    let full = Modules::new(&bytes, None);
    let deployment = fixture("deployment-web.json");
    let mut rows = Vec::new();
    for (nodes, calls, target) in [(100usize, 10_000usize, 100.0), (1_000, 2_000, 1_000.0)] {
        let settings = bench_settings(nodes);
        rows.push(bench(
            &full,
            "Deployment, 3 replicas, all four policies",
            nodes,
            &deployment,
            &settings,
            calls,
            Some(target),
        ));
    }
    // Cost split: the same request without the simulation, and the simulation with nothing
    // else; then the mutating DaemonSet path.
    let tolerations_only = json!({
        "disallowedTolerations": {"keyPrefixes": ["node-role.kubernetes.io/"], "exemptNamespaces": ["kube-system"]}
    });
    rows.push(bench(
        &full,
        "Deployment, disallowedTolerations only (no inventory)",
        0,
        &deployment,
        &tolerations_only,
        10_000,
        None,
    ));
    for nodes in [100usize, 1_000] {
        let mut s = bench_settings(nodes);
        s.as_object_mut().unwrap().retain(|k, _| k == "nodes" || k == "poolLabel" || k == "schedulable");
        let calls = if nodes == 100 { 10_000 } else { 2_000 };
        rows.push(bench(&full, "Deployment, schedulable only", nodes, &deployment, &s, calls, None));
    }
    let ds = fixture("daemonset-defender.json");
    for (nodes, calls) in [(100usize, 5_000usize), (1_000, 1_000)] {
        rows.push(bench(&full, "DaemonSet mutated to cover 3 pools", nodes, &ds, &bench_settings(nodes), calls, None));
    }

    // The lean module: the same typical Deployment at 100 nodes.
    let lean_bytes = lean_module_bytes();
    let lean_cold = (0..3)
        .map(|_| {
            let t = Instant::now();
            drop(EngineProviderPre::new(&lean_bytes).expect("compile"));
            t.elapsed()
        })
        .min()
        .unwrap_or_default();
    let lean = Modules::new(&lean_bytes, None);
    let lean_row = bench(
        &lean,
        "lean module: Deployment, 3 replicas, all four policies",
        100,
        &deployment,
        &bench_settings(100),
        10_000,
        Some(100.0),
    );
    drop(lean);

    // Gatekeeper: the 10-template pod-security set on one Pod, in the module and natively
    // (the same `admission::validate`, compiled for x86_64 in this binary's profile).
    let gk_settings = pod_security_settings();
    let gk_request = pod_security_request();
    let gk_wasm = bench(
        &full,
        "Pod, gatekeeper only: 10 pod-security constraints",
        0,
        &gk_request,
        &gk_settings,
        2_000,
        Some(1_000.0),
    );
    let gk_payload = payload(&gk_request, &gk_settings);
    let first = placement_core::admission::validate(&gk_payload);
    assert!(!first.accepted, "the bench Pod violates the set: {first:?}");
    let gk_violations = first.message.as_deref().map_or(0, |m| m.lines().count());
    // Native, stateless (settings read on every call, as a fresh instance does) and cached.
    let (lat, total) = time_calls(50, 500, || {
        std::hint::black_box(placement_core::admission::validate(&gk_payload));
    });
    let native_fresh = Timing {
        calls: 500,
        per_sec: 500.0 / total.as_secs_f64(),
        p50: percentile(&lat, 0.50),
        p99: percentile(&lat, 0.99),
        faults: None,
    };
    let mut native = placement_core::admission::Validator::new();
    let (lat, total) = time_calls(200, 2_000, || {
        std::hint::black_box(native.validate(&gk_payload));
    });
    let gk_native = Row {
        case: "the same, native x86_64 (`admission::validate` / `Validator`, no wasm)".into(),
        nodes: 0,
        fresh: native_fresh,
        reused: Timing {
            calls: 2_000,
            per_sec: 2_000.0 / total.as_secs_f64(),
            p50: percentile(&lat, 0.50),
            p99: percentile(&lat, 0.99),
            faults: None,
        },
        verdict: "rejected".into(),
        target_us: None,
    };

    let load = std::fs::read_to_string("/proc/loadavg")
        .map(|s| s.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into());
    let mut md = String::new();
    md.push_str("## Kubewarden policy\n\n");
    md.push_str(&format!(
        "`make bench-policy` (`tests/wapc-host`, binary `bench-policy`): `{}` loaded into `wapc` 2.x's \
         `WapcHost` (the host Kubewarden's policy-server uses) over wasmtime 44, the wasmtime of \
         `wasmtime-provider` 2.19, through the test host's own engine provider (`src/provider.rs`). \
         **Fresh** is how policy-server runs a policy: the module compiled once, then a new instance \
         for every request (`rehydrate` + `WapcHost::new` + `validate`, all inside the timing), so the \
         settings, node inventory included, are decoded on every request and nothing survives between \
         requests. **Reused** is one instance for all calls (the module's settings cache in play). \
         Calls in a row on one thread, each timed. The lean module `{}` (no Gatekeeper) is measured on \
         the typical Deployment at 100 nodes.\n\n",
        rel(&module_path()),
        rel(&lean_module_path()),
    ));
    md.push_str(&format!(
        "- Module size: {} bytes ({:.2} MB), full module (placement policies and Gatekeeper)\n",
        bytes.len(),
        bytes.len() as f64 / 1e6
    ));
    md.push_str(&format!(
        "- Lean module size: {} bytes ({:.2} MB; target < 2 MB: {}), placement policies only; cold start {}\n",
        lean_bytes.len(),
        lean_bytes.len() as f64 / 1e6,
        if lean_bytes.len() < 2_000_000 { "met" } else { "NOT met" },
        fmt_dur(lean_cold)
    ));
    md.push_str(&format!(
        "- Cold start (compile with Cranelift, `build_pre`, best of 3): {} (target < 1.5 s: {}); a fresh \
         instance of the compiled module: {:.0} µs p50\n",
        fmt_dur(cold),
        if cold < Duration::from_millis(1500) { "met" } else { "NOT met" },
        warm_p50
    ));
    md.push_str(&format!(
        "- Machine: {}, {} CPUs; load average at the end of the run: {load} (other work was running: \
         see the note below the table)\n\n",
        cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    ));
    md.push_str(
        "| request | nodes | **fresh p50 µs** | fresh p99 µs | fresh/s | fresh page faults/call | reused p50 µs | reused p99 µs | reused/s | target (fresh p50) | verdict |\n",
    );
    md.push_str("|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---|\n");
    for r in rows.iter().chain([&lean_row, &gk_wasm, &gk_native]) {
        let target = match r.target_us {
            None => String::new(),
            Some(t) => format!("< {} µs: {}", t, if r.fresh.p50 < t { "met" } else { "NOT met" }),
        };
        md.push_str(&format!(
            "| {} | {} | **{:.1}** | {:.1} | {:.0} | {} | {:.1} | {:.1} | {:.0} | {} | {} |\n",
            r.case,
            r.nodes,
            r.fresh.p50,
            r.fresh.p99,
            r.fresh.per_sec,
            r.fresh.faults.map_or(String::new(), |f| format!("{f:.0}")),
            r.reused.p50,
            r.reused.p99,
            r.reused.per_sec,
            target,
            r.verdict
        ));
    }
    md.push_str(&format!(
        "\nCalls: {} fresh and {} reused per row (the first row); the Gatekeeper rows are the \
         pod-security set of `core/benches/gatekeeper.rs` (10 library templates, one constraint each, \
         a Pod with 2 containers and 2 volumes; {gk_violations} violations). The native row's \
         \"fresh\" columns are `admission::validate` (settings decoded on every call), its \"reused\" \
         ones `admission::Validator` (settings cached).\n",
        rows[0].fresh.calls, rows[0].reused.calls,
    ));
    md.push_str("\n### Pre-initialized modules (issue 31: `bench-policy --preinit`, in the same run)\n\n");
    md.push_str(&preinit_table());
    md.push_str(&format!("{END_MARK}\n"));
    print!("{md}");
    if let Some(path) = markdown_out {
        let old = std::fs::read_to_string(&path).unwrap_or_default();
        std::fs::write(&path, replace_section(&old, &md)).unwrap_or_else(|e| panic!("{path}: {e}"));
        eprintln!("updated the \"Kubewarden policy\" section of {path}");
    }
}

/// Ends the generated part of the section: notes written below it by hand survive `--update`.
const END_MARK: &str = "<!-- end of bench-policy output; notes below are kept -->";

/// `doc` with its `## Kubewarden policy` section (up to [`END_MARK`], else the next `## `
/// heading) replaced by `section`, or with `section` appended.
fn replace_section(doc: &str, section: &str) -> String {
    const HEADING: &str = "## Kubewarden policy";
    let lines: Vec<&str> = doc.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim_end() == HEADING) else {
        let mut out = doc.trim_end().to_string();
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(section);
        return out;
    };
    let next_heading = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("## ") || l.starts_with("# "))
        .map_or(lines.len(), |i| start + 1 + i);
    let end = lines[start + 1..next_heading]
        .iter()
        .position(|l| l.trim_end() == END_MARK)
        .map_or(next_heading, |i| start + 1 + i + 1);
    let mut out = lines[..start].join("\n");
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(section);
    if end < lines.len() {
        if !section.ends_with('\n') {
            out.push('\n');
        }
        if !lines[end].trim().is_empty() {
            out.push('\n');
        }
        out.push_str(&lines[end..].join("\n"));
        out.push('\n');
    }
    out
}

/// `path` relative to the repository root, for the report.
fn rel(path: &std::path::Path) -> String {
    path.strip_prefix(placement_wapc_host::repo_root()).unwrap_or(path).display().to_string()
}

fn fmt_dur(d: Duration) -> String {
    if d.as_secs_f64() >= 1.0 {
        format!("{:.2} s", d.as_secs_f64())
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1e3)
    }
}

fn cpu_model() -> String {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("model name"))
                .map(|l| l.split(':').nth(1).unwrap_or("").trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn update_keeps_other_sections_and_notes_below_the_mark() {
        let doc = format!("# B\n\n## Kubewarden policy\n\nold\n{END_MARK}\n\nnotes\n\n## Gatekeeper\n\ngk\n");
        let new = format!("## Kubewarden policy\n\nnew\n{END_MARK}\n");
        assert_eq!(
            replace_section(&doc, &new),
            format!("# B\n\n## Kubewarden policy\n\nnew\n{END_MARK}\n\nnotes\n\n## Gatekeeper\n\ngk\n")
        );
        // Without the mark, up to the next heading.
        let doc = "# B\n\n## Kubewarden policy\n\nold\n\n## Gatekeeper\n\ngk\n";
        assert_eq!(
            replace_section(doc, &new),
            format!("# B\n\n## Kubewarden policy\n\nnew\n{END_MARK}\n\n## Gatekeeper\n\ngk\n")
        );
        assert_eq!(replace_section("# B\n", "## Kubewarden policy\n"), "# B\n\n## Kubewarden policy\n");
    }
}
