//! Profiling aid: times edits of either editor at `synthetic(NODES, WORKLOADS)` the way the
//! page runs them (`Playground::set_nodes` / `set_workloads`: the edited editor read again,
//! the input simulated, the views built; the strict check and the fixes' re-check after the
//! frame not included). First it times writing the default policy settings once, what
//! opening the policy panel's Settings box costs.
//!
//! `cargo run --release -p placement-playground --example edit_profile -- [NODES] [WORKLOADS] [EDITS]`
use std::time::Instant;

use placement_playground::evaluation::synthetic;
use placement_playground::state::Playground;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().expect("a number"));
    let (nodes, workloads, edits) = (args.next().unwrap_or(1000), args.next().unwrap_or(20), args.next().unwrap_or(10));
    let state = synthetic(nodes, workloads);
    let lines = state.nodes.lines().count() + state.workloads.lines().count();
    let mut pg = Playground::new(state.clone(), None);
    let start = Instant::now();
    let settings = pg.policy_settings_text();
    println!("policy_settings_text: {:.1} ms, {} bytes", start.elapsed().as_secs_f64() * 1e3, settings.len());
    // The end-to-end test's edits: the first node's CPU, the first workload's replicas, each
    // changed and changed back in turn.
    let cases = [
        ("nodes", state.nodes.clone(), "cpu: '8'", ["cpu: '9'", "cpu: '8'"]),
        ("workloads", state.workloads.clone(), "replicas: 10", ["replicas: 11", "replicas: 10"]),
    ];
    for (editor, base, from, to) in cases {
        let mut times = Vec::new();
        for i in 0..edits {
            let text = base.replacen(from, to[i % 2], 1);
            let start = Instant::now();
            if editor == "nodes" {
                pg.set_nodes(text);
            } else {
                pg.set_workloads(text);
            }
            times.push(start.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(f64::total_cmp);
        println!(
            "{nodes} nodes x {workloads} workloads ({lines} lines): {editor} editor edit, median {:.1} ms (min {:.1}, max {:.1})",
            times[times.len() / 2],
            times[0],
            times[times.len() - 1]
        );
    }
}
