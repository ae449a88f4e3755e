//! Bytes → `parse_manifests` → `simulate` → text, Markdown and JSON renderings. Nothing on
//! this path may panic, whatever the input: the CLI, the Kubewarden policy and the browser
//! playground all run it on untrusted manifests.
//!
//! Inputs that parse but ask for a large simulation are parsed (and their errors rendered)
//! but not simulated: one scheduling cycle filters and scores every node, so `simulate`
//! costs about pods x nodes, and a 2 KiB input can legally ask for 10,000 replicas
//! (`MAX_REPLICAS`). Simulating those would make single executions take seconds, report
//! them as libFuzzer timeouts/slow units rather than bugs, and cut throughput a hundredfold.
//! Scale is covered by the benchmarks (BENCHMARKS.md); the fuzzer looks for panics, which
//! do not need scale to show up.
#![no_main]

use libfuzzer_sys::fuzz_target;
use placement_core::cluster::simulate::{simulate, SimulateOptions};
use placement_core::explain::render;
use placement_core::input::documents::{parse_manifests, WorkloadKind};
use placement_core::model::version::KubeVersion;

/// Inputs with more nodes than this are not simulated (see the module comment).
const MAX_NODES: usize = 50;
/// Nor inputs whose workloads ask for more pods than this in total (DaemonSets: one per node).
const MAX_PODS: i64 = 200;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let manifests = match parse_manifests(text, "fuzz.yaml") {
        Ok(m) => m,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let nodes = manifests.nodes.len();
    let pods: i64 = manifests
        .workloads
        .iter()
        .map(|w| if w.kind == WorkloadKind::DaemonSet { nodes as i64 } else { w.replicas.max(1) })
        .fold(0i64, i64::saturating_add);
    if nodes > MAX_NODES || pods > MAX_PODS {
        return;
    }
    // Every modelled release's wording and defaults, chosen by the input so a crash reproduces.
    let minor =
        KubeVersion::OLDEST.minor + (data.len() as u32) % (KubeVersion::LATEST.minor - KubeVersion::OLDEST.minor + 1);
    let opts = SimulateOptions::for_version(KubeVersion::new(1, minor));
    match simulate(&manifests, &opts) {
        Ok(report) => {
            let _ = render::text(&report);
            let _ = render::markdown(&report);
            serde_json::to_string_pretty(&report).expect("the report always serializes to JSON");
        }
        Err(errors) => {
            for e in errors {
                let _ = e.to_string();
            }
        }
    }
});
