//! The playground's re-evaluation benchmark (scenario (d) of BENCHMARKS.md; (a)-(c) and (e)
//! are placement-core's `benches/scheduling.rs`).
//!
//! `cargo bench -p placement-playground --bench evaluate`.

use std::hint::black_box;
use std::time::Duration;

use criterion::{criterion_group, criterion_main, Criterion};

/// (d) The playground's re-evaluation: `evaluation::Evaluation::of` of `synthetic(200, 20)` (parse
/// both editors, simulate 20 workloads over 200 nodes, build the matrix and capacity views),
/// natively; the browser number (wasm) is in BENCHMARKS.md, Playground.
fn playground(c: &mut Criterion) {
    let state = placement_playground::evaluation::synthetic(200, 20);
    let check = placement_playground::evaluation::Evaluation::of(&state);
    assert!(check.is_ok(), "{:?}", check.errors);

    let mut g = c.benchmark_group("playground_evaluate_200_nodes_20_workloads");
    g.sample_size(20).warm_up_time(Duration::from_secs(1)).measurement_time(Duration::from_secs(6));
    g.bench_function("evaluate", |b| b.iter(|| placement_playground::evaluation::Evaluation::of(black_box(&state))));
    // What opening a cell adds: the input simulated again, recording one workload's cycle
    // (`Evaluation::breakdown`); an edit never pays it.
    let unverified = placement_playground::evaluation::Evaluation::unverified(&state);
    assert!(unverified.breakdown(1, "node-000").is_some());
    // An edit as the page evaluated it before the strict check moved after the frame (both
    // editors read with the strict check, simulated, views built; no fix re-checks)...
    g.bench_function("unverified", |b| {
        b.iter(|| placement_playground::evaluation::Evaluation::unverified(black_box(&state)))
    });
    // ...and as it does now: the same without the strict check, which runs after the frame.
    g.bench_function("unverified_strict_deferred", |b| {
        b.iter(|| {
            let mut cache = placement_playground::evaluation::ParseCache::default();
            placement_playground::evaluation::Evaluation::unverified_cached(black_box(&state), &mut cache)
        })
    });
    g.bench_function("cell_breakdown", |b| b.iter(|| unverified.breakdown(black_box(1), "node-000")));
    g.finish();
}

criterion_group!(benches, playground);
criterion_main!(benches);
