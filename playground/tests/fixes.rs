//! A fix is verified by the core (`fixes::apply_to_spec`) and applied to the manifest text by
//! the playground (`evaluation::apply_fix`), both with `fixes::strategic_merge`. These tests
//! apply every verified fix the gallery offers through the playground's path, simulate the
//! patched text again, and check that the pods reach the nodes the fix names.

use placement_core::cluster::simulate::{simulate, SimulateOptions};
use placement_playground::evaluation::{apply_fix, CellState, Evaluation};
use placement_playground::gallery::{find, EXAMPLES};
use placement_playground::share::SharedState;

fn example_state(id: &str) -> SharedState {
    let (nodes, workloads) = find(id).expect("a gallery example").split();
    SharedState { workloads, nodes, ..Default::default() }
}

#[test]
fn the_daemonset_fix_applied_to_the_text_covers_both_nodes() {
    let state = example_state("daemonset-tainted-pool");
    let eval = Evaluation::of(&state);
    let w = &eval.workloads[0];
    assert_eq!((w.kind.as_str(), w.desired, w.current), ("DaemonSet", 1, 1));
    let fix = &w.fixes[0];
    assert!(fix.verified, "{fix:?}");
    assert!(fix.description.contains("DESIRED becomes 2 of 2 nodes"), "{}", fix.description);
    let named = fix.nodes.clone();
    assert_eq!(named.len(), 1, "the fix names the tainted node: {named:?}");

    let next = apply_fix(&state, &eval, 0, 0).expect("the fix applies to the text");
    assert_eq!(next.nodes, state.nodes, "only the workload's document changes");

    // Re-simulated from the patched text alone, as the CLI would read it.
    let mut manifests = placement_core::input::documents::parse_manifests(&next.nodes, "nodes").unwrap();
    manifests.extend(placement_core::input::documents::parse_manifests(&next.workloads, "workloads").unwrap());
    let report = simulate(&manifests, &SimulateOptions::default()).unwrap();
    let ds = &report.workloads[0];
    assert_eq!((ds.desired, ds.current), (2, 2));
    for node in &named {
        assert!(ds.pods.iter().any(|p| p.node.as_deref() == Some(node)), "no daemon pod on {node}: {:?}", ds.pods);
    }
}

/// Every verified fix of every gallery example: after the playground applies it to the text,
/// each node the fix names fits the workload, and a DaemonSet has a pod there.
#[test]
fn every_verified_gallery_fix_reaches_its_nodes_once_applied() {
    let mut checked = 0;
    for e in EXAMPLES {
        let state = example_state(e.id);
        let eval = Evaluation::of(&state);
        assert!(eval.is_ok(), "{}: {:?}", e.id, eval.errors);
        for (wi, w) in eval.workloads.iter().enumerate() {
            for (fi, fix) in w.fixes.iter().enumerate() {
                if !fix.verified || fix.patch.is_none() {
                    continue;
                }
                let what = format!("{} {} fix {fi} ({})", e.id, w.label(), fix.description);
                let next = apply_fix(&state, &eval, wi, fi).unwrap_or_else(|err| panic!("{what}: {err}"));
                let after = Evaluation::of(&next);
                assert!(after.is_ok(), "{what}: {:?}", after.errors);
                let patched = after.workloads.iter().find(|v| v.key() == w.key()).expect("the workload is still there");
                for node in &fix.nodes {
                    let cell = patched.cells.iter().find(|c| *c.node == **node).expect("the node is still there");
                    assert_eq!(cell.state, CellState::Fits, "{what}: {node}: {}", cell.title());
                    if w.kind == "DaemonSet" {
                        assert!(!cell.pods.is_empty(), "{what}: no daemon pod on {node}");
                    }
                }
                checked += 1;
            }
        }
    }
    assert!(checked >= 2, "only {checked} verified fixes in the gallery");
}
