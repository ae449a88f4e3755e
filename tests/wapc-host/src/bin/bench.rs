//! `bench-policy [--update FILE]`: the policy module in the waPC host (wapc +
//! wasmtime-provider): validations per second and p50/p99 latency for a typical Deployment
//! against 100- and 1,000-node inventories, module size and instantiation time; the lean module
//! (`placement-policy-lean.wasm`, no Gatekeeper): its size, cold instantiation and the typical
//! Deployment at 100 nodes. Prints a
//! Markdown section headed `## Kubewarden policy`; with `--update FILE`, also puts it in FILE,
//! replacing that section if FILE has one, else appending it (FILE is created if missing).

use std::time::{Duration, Instant};

use placement_wapc_host::{
    bench_settings, fixture, lean_module_bytes, lean_module_path, module_bytes, module_path, payload, percentile,
    pod_security_request, pod_security_settings, time_calls, wapc_host,
};
use serde_json::{json, Value};
use wapc::WapcHost;
use wasmtime_provider::WasmtimeEngineProviderBuilder;

struct Row {
    case: String,
    nodes: usize,
    calls: usize,
    per_sec: f64,
    p50: f64,
    p99: f64,
    verdict: String,
}

fn bench(host: &WapcHost, case: &str, nodes: usize, request: &Value, settings: &Value, calls: usize) -> Row {
    let p = payload(request, settings);
    let first: Value = serde_json::from_slice(&host.call("validate", &p).expect("validate")).expect("JSON");
    let verdict = if first["accepted"] == true {
        if first.get("mutated_object").is_some() {
            "accepted, mutated"
        } else {
            "accepted"
        }
    } else {
        "rejected"
    };
    let (lat, total) = time_calls(calls / 10, calls, || {
        host.call("validate", &p).expect("validate");
    });
    Row {
        case: case.to_string(),
        nodes,
        calls,
        per_sec: calls as f64 / total.as_secs_f64(),
        p50: percentile(&lat, 0.50),
        p99: percentile(&lat, 0.99),
        verdict: verdict.to_string(),
    }
}

fn main() {
    let mut markdown_out = None;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--update" => markdown_out = args.next(),
            other => {
                eprintln!("bench-policy: unknown argument {other:?}; usage: bench-policy [--update FILE]");
                std::process::exit(2);
            }
        }
    }
    let bytes = module_bytes();

    // Instantiation. Cold: compile the module and instantiate (policy-server does this once
    // per policy at start). Warm: a new instance from the compiled module, as policy-server
    // does for each worker (WasmtimeEngineProviderPre::rehydrate + WapcHost::new).
    let t = Instant::now();
    let cold_host = wapc_host(&bytes);
    let cold = t.elapsed();
    drop(cold_host);
    let pre = WasmtimeEngineProviderBuilder::new().module_bytes(&bytes).build_pre().expect("build_pre");
    let (warm, _) = time_calls(5, 200, || {
        let engine = pre.rehydrate(None).expect("rehydrate");
        let host = WapcHost::new(Box::new(engine), None).expect("instantiate");
        drop(host);
    });
    let warm_p50 = percentile(&warm, 0.5);

    let host = wapc_host(&bytes);
    let deployment = fixture("deployment-web.json");
    let mut rows = Vec::new();
    for (nodes, calls) in [(100usize, 10_000usize), (1_000, 2_000)] {
        let settings = bench_settings(nodes);
        rows.push(bench(&host, "Deployment, 3 replicas, all four policies", nodes, &deployment, &settings, calls));
    }
    // Cost split: the same request without the simulation, and the simulation with nothing
    // else; then the mutating DaemonSet path.
    let tolerations_only = json!({
        "disallowedTolerations": {"keyPrefixes": ["node-role.kubernetes.io/"], "exemptNamespaces": ["kube-system"]}
    });
    rows.push(bench(
        &host,
        "Deployment, disallowedTolerations only (no inventory)",
        0,
        &deployment,
        &tolerations_only,
        10_000,
    ));
    for nodes in [100usize, 1_000] {
        let mut s = bench_settings(nodes);
        s.as_object_mut().unwrap().retain(|k, _| k == "nodes" || k == "poolLabel" || k == "schedulable");
        let calls = if nodes == 100 { 10_000 } else { 2_000 };
        rows.push(bench(&host, "Deployment, schedulable only", nodes, &deployment, &s, calls));
    }
    let ds = fixture("daemonset-defender.json");
    for (nodes, calls) in [(100usize, 5_000usize), (1_000, 1_000)] {
        rows.push(bench(&host, "DaemonSet mutated to cover 3 pools", nodes, &ds, &bench_settings(nodes), calls));
    }

    // The lean module: the same typical Deployment at 100 nodes.
    let lean_bytes = lean_module_bytes();
    let t = Instant::now();
    let lean_host = wapc_host(&lean_bytes);
    let lean_cold = t.elapsed();
    let lean_row = bench(
        &lean_host,
        "lean module: Deployment, 3 replicas, all four policies",
        100,
        &deployment,
        &bench_settings(100),
        10_000,
    );
    drop(lean_host);

    // Gatekeeper: the 10-template pod-security set on one Pod, in the module and natively
    // (the same `admission::Validator`, compiled for x86_64 in this binary's profile).
    let gk_settings = pod_security_settings();
    let gk_request = pod_security_request();
    let gk_wasm =
        bench(&host, "Pod, gatekeeper only: 10 pod-security constraints", 0, &gk_request, &gk_settings, 2_000);
    let gk_payload = payload(&gk_request, &gk_settings);
    let mut native = placement_core::admission::Validator::new();
    let first = native.validate(&gk_payload);
    assert!(!first.accepted, "the bench Pod violates the set: {first:?}");
    let gk_violations = first.message.as_deref().map_or(0, |m| m.lines().count());
    let (lat, total) = time_calls(200, 2_000, || {
        std::hint::black_box(native.validate(&gk_payload));
    });
    let gk_native = Row {
        case: "the same, native x86_64 (`admission::Validator`, no wasm)".into(),
        nodes: 0,
        calls: 2_000,
        per_sec: 2_000.0 / total.as_secs_f64(),
        p50: percentile(&lat, 0.50),
        p99: percentile(&lat, 0.99),
        verdict: "rejected".into(),
    };

    let mut md = String::new();
    md.push_str("## Kubewarden policy\n\n");
    md.push_str(&format!(
        "`make bench-policy` (`tests/wapc-host`, binary `bench-policy`): `{}` loaded into `wapc` 2.x + \
         `wasmtime-provider` 2.19 (wasmtime 44), the host Kubewarden's policy-server uses; one instance, \
         calls in a row on one thread, each timed. Settings as in production: the whole node inventory is \
         in the settings and is parsed on every call (Kubewarden sends the settings with each request). \
         The lean module `{}` (no Gatekeeper) is measured on the typical Deployment at 100 nodes.\n\n",
        rel(&module_path()),
        rel(&lean_module_path()),
    ));
    md.push_str(&format!(
        "- Module size: {} bytes ({:.2} MB), full module (placement policies and Gatekeeper)\n",
        bytes.len(),
        bytes.len() as f64 / 1e6
    ));
    md.push_str(&format!(
        "- Lean module size: {} bytes ({:.2} MB; target < 2 MB: {}), placement policies only; {} cold instantiation\n",
        lean_bytes.len(),
        lean_bytes.len() as f64 / 1e6,
        if lean_bytes.len() < 2_000_000 { "met" } else { "NOT met" },
        fmt_dur(lean_cold)
    ));
    md.push_str(&format!(
        "- Instantiation: {} cold (compile with Cranelift + instantiate), {:.0} µs p50 warm (new instance of the compiled module)\n",
        fmt_dur(cold),
        warm_p50
    ));
    md.push_str(&format!(
        "- Machine: {}, {} CPUs\n\n",
        cpu_model(),
        std::thread::available_parallelism().map_or(0, |n| n.get())
    ));
    md.push_str("| request | nodes | calls | validations/s | p50 µs | p99 µs | verdict |\n");
    md.push_str("|---|---:|---:|---:|---:|---:|---|\n");
    for r in rows.iter().chain([&lean_row]) {
        md.push_str(&format!(
            "| {} | {} | {} | {:.0} | {:.1} | {:.1} | {} |\n",
            r.case, r.nodes, r.calls, r.per_sec, r.p50, r.p99, r.verdict
        ));
    }
    md.push_str(&format!(
        "\nGatekeeper, the pod-security set of `core/benches/gatekeeper.rs` (10 library templates, one \
         constraint each, a Pod with 2 containers and 2 volumes; {gk_violations} violations), through \
         the module's `validate` with the templates in the settings (compiled once, cached):\n\n"
    ));
    md.push_str(
        "| where | calls | Pods/s | constraint evaluations/s | p50 µs | p99 µs |\n|---|---:|---:|---:|---:|---:|\n",
    );
    for r in [&gk_wasm, &gk_native] {
        md.push_str(&format!(
            "| {} | {} | {:.0} | {:.0} | {:.0} | {:.0} |\n",
            if std::ptr::eq(r, &gk_wasm) { "wasm module in the waPC host" } else { "native x86_64, same code" },
            r.calls,
            r.per_sec,
            r.per_sec * 10.0,
            r.p50,
            r.p99
        ));
    }
    let p50_100 = rows.first().map_or(f64::NAN, |r| r.p50);
    let met = |p: f64| if p < 100.0 { "met" } else { "NOT met" };
    md.push_str(&format!(
        "\nTarget: p50 < 100 µs at 100 nodes: {} ({p50_100:.1} µs); lean module: {} ({:.1} µs).\n{END_MARK}\n",
        met(p50_100),
        met(lean_row.p50),
        lean_row.p50
    ));
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
