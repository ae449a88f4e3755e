//! Scale benchmarks for placement-core. See BENCHMARKS.md for targets and results. The
//! playground's re-evaluation (d) is in placement-playground's `benches/evaluate.rs`.
//!
//! `cargo bench -p placement-core` (all), or a subset: `cargo bench -p placement-core -- parse`.
//! Sample counts are small and measurement times short so the whole run stays within a few
//! minutes on a 2-core machine; the inputs are generated once, outside the timed loops.

mod common;

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Bencher, Criterion, SamplingMode, Throughput};
use placement_core::cluster::simulate::{simulate, Report, SimulateOptions};
use placement_core::input::documents::{parse_manifests, Manifests};
use placement_core::model::version::KubeVersion;
use placement_core::scheduler::framework::SchedulerConfig;
use placement_core::scheduler::{schedule, schedule_with, Detail};

const NODES: usize = 5_000;
const REPLICAS: i64 = 1_000;

/// (a) One scheduling cycle: PreFilter, Filter and Score of one pod against 5,000 nodes.
fn filter_score(c: &mut Criterion) {
    let cfg = SchedulerConfig::for_version(KubeVersion::LATEST);
    let nodes = common::cluster(NODES, &cfg);
    let pod = common::web_pod();
    let check = schedule(&pod, &nodes, &cfg, true);
    assert!(check.node.is_some(), "the bench pod must fit: {:?}", check.message);
    assert_eq!(check.verdicts.len(), NODES);

    let mut g = c.benchmark_group("filter_score_one_pod_5000_nodes");
    g.sample_size(30).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    g.throughput(Throughput::Elements(NODES as u64));
    // The cycle itself: PreFilter, Filter, Score and the chosen node; verdicts (with their
    // reason and detail strings) only when no node fits. What every replica's cycle runs.
    g.bench_function("decision", |b| {
        b.iter(|| schedule_with(black_box(&pod), black_box(&nodes), &cfg, Detail::Decision, None))
    });
    // Also a verdict for each of the 1,000 failing nodes, for the FailedScheduling view.
    g.bench_function("no_explain", |b| b.iter(|| schedule(black_box(&pod), black_box(&nodes), &cfg, false)));
    // All 5,000 verdicts with score breakdowns, as `simulate -o json` reports the first pod.
    g.bench_function("explain", |b| b.iter(|| schedule(black_box(&pod), black_box(&nodes), &cfg, true)));
    g.finish();
}

/// (b) `simulate` of 5,000 nodes and a 1,000-replica Deployment (validation, NodeInfo set-up,
/// 1,000 scheduling cycles, the report). One iteration takes seconds, so Flat sampling with
/// criterion's minimum of 10 samples; every result is checked (all replicas placed) outside
/// the timed region.
fn deployment(c: &mut Criterion) {
    let manifests = common::deployment_manifests(NODES, REPLICAS);
    let opts = SimulateOptions::default();

    let mut g = c.benchmark_group("deployment_1000_replicas_5000_nodes");
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(20));
    g.bench_function("simulate", |b| {
        time_simulate(b, &manifests, &opts, |r| {
            assert_eq!(r.workloads[0].scheduled, REPLICAS, "every replica must be placed")
        })
    });
    g.finish();
}

/// Beyond the three: a DaemonSet over 1,000 nodes (700 eligible). The controller
/// path runs one pinned scheduling cycle per eligible node; each cycle filters and scores only
/// the pinned node, but its PreFilters and score PreScores still look at every node's pods.
fn daemonset(c: &mut Criterion) {
    let manifests = common::daemonset_manifests(1_000);
    let opts = SimulateOptions::default();

    let mut g = c.benchmark_group("daemonset_1000_nodes");
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(10));
    g.bench_function("simulate", |b| {
        time_simulate(b, &manifests, &opts, |r| {
            assert_eq!(r.workloads[0].scheduled, 700, "every eligible node runs the daemon")
        })
    });
    g.finish();
}

/// Issue 30's target: a pending `system-node-critical` DaemonSet over 5,000 full nodes
/// running 100,000 pods of priority 0 (20 each): every daemon pod preempts one pod on its
/// node (one to three pods of 1/20 of the node, by pool; bare pods: no controller replaces them).
fn preemption(c: &mut Criterion) {
    let manifests = common::preemption_manifests(NODES, 20);
    let opts = SimulateOptions::default();
    let mut g = c.benchmark_group("preemption_daemonset_5000_nodes_100000_pods");
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(20));
    g.bench_function("simulate", |b| {
        time_simulate(b, &manifests, &opts, |r| {
            let ds = r.workloads.iter().find(|w| w.name == "agent").expect("the DaemonSet's report");
            assert_eq!(ds.scheduled, NODES as i64, "every daemon pod runs, by preemption");
            assert!(ds.pods.iter().all(|p| p.preemption.as_ref().is_some_and(|x| !x.victims.is_empty())));
        })
    });
    g.finish();
}

/// (c) Parsing `kubectl get nodes -o yaml` for 5,000 nodes with all of kubectl's noise.
fn parse(c: &mut Criterion) {
    let text = common::kubectl_get_nodes_yaml(NODES);
    let parsed = parse_manifests(&text, "").expect("generated YAML parses");
    assert_eq!(parsed.nodes.len(), NODES);
    eprintln!("parse_kubectl_get_nodes_5000: input is {:.1} MiB ({} bytes)", text.len() as f64 / 1048576.0, text.len());

    let mut g = c.benchmark_group("parse_kubectl_get_nodes_5000");
    g.sampling_mode(SamplingMode::Flat).sample_size(10);
    g.warm_up_time(Duration::from_millis(500)).measurement_time(Duration::from_secs(30));
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("parse_manifests", |b| {
        b.iter(|| parse_manifests(black_box(&text), "").map(|m| m.nodes.len()).ok())
    });
    g.finish();
}

/// Times `simulate` alone and checks each report outside the timed region.
fn time_simulate(b: &mut Bencher, manifests: &Manifests, opts: &SimulateOptions, check: impl Fn(&Report)) {
    b.iter_custom(|iters| {
        let mut total = Duration::ZERO;
        for _ in 0..iters {
            let start = Instant::now();
            let report = simulate(black_box(manifests), opts);
            total += start.elapsed();
            check(&report.expect("bench manifests are valid"));
        }
        total
    })
}

criterion_group!(benches, filter_score, deployment, parse, daemonset, preemption);
criterion_main!(benches);
