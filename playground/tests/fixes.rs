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

/// The example's state and its evaluation, which must have no errors.
fn evaluated_example(id: &str) -> (SharedState, Evaluation) {
    let state = example_state(id);
    let eval = Evaluation::of(&state);
    assert!(eval.is_ok(), "{id}: {:?}", eval.errors);
    (state, eval)
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
        let (state, eval) = evaluated_example(e.id);
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
                    // The cell's verdict is the workload's first cycle; a StatefulSet replica
                    // with claims of its own (zonal disks) is judged by its own cycle, so the
                    // node it reaches holds it rather than fitting the first replica.
                    let reached = cell.state == CellState::Fits
                        || (w.kind == "StatefulSet"
                            && patched.pods.iter().any(|p| !p.existing && p.node.as_deref() == Some(&**node)));
                    assert!(reached, "{what}: {node}: {}", cell.title());
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

fn view<'e>(eval: &'e Evaluation, name: &str) -> &'e placement_playground::evaluation::WorkloadView {
    eval.workloads.iter().find(|w| w.name == name).unwrap_or_else(|| panic!("no workload {name}"))
}

#[test]
fn the_zonal_disk_example_leaves_a_replica_pending_until_its_zone_is_allowed() {
    let (state, eval) = evaluated_example("statefulset-zonal-disks");
    let w = view(&eval, "postgres");
    assert_eq!((w.desired, w.current, w.scheduled, w.pending), (3, 2, 1, 1), "postgres-2 waits (OrderedReady)");
    let pending = w.pods.iter().find(|p| p.name == "postgres-1").unwrap();
    assert!(pending.node.is_none());
    assert!(
        pending.status.contains(
            "1 node(s) didn't match Pod's node affinity/selector, 2 node(s) had volume node affinity conflict"
        ),
        "{}",
        pending.status
    );
    // The claims show in the pod list, and in the cell of the node postgres-0 went to.
    assert_eq!(pending.claims, ["data-postgres-1 -> PersistentVolume pvc-9e7d6c5b-4a39-4f28-8e17-06d5c4b3a291"]);
    let a = w.cells.iter().find(|c| &*c.node == "ip-10-0-1-17.ec2.internal").unwrap();
    assert_eq!(a.volumes, ["postgres-0: data-postgres-0 -> PersistentVolume pvc-5b0c8a1e-0d4f-4c1e-9a57-3f0e6d2b7a10"]);
    // The volume's reason names the claim, the PV and its zone.
    let b = w.cells.iter().find(|c| &*c.node == "ip-10-0-2-42.ec2.internal").unwrap();
    assert_eq!((b.state, b.plugin), (CellState::Blocked, Some("VolumeBinding")));
    assert!(
        b.detail.as_deref().is_some_and(|d| d.contains("us-east-1a") && d.contains("data-postgres-0")),
        "{:?}",
        b.detail
    );

    // The fix lets postgres-1 back to its disk's zone; postgres-2 is then created and its new
    // volume provisioned in a zone the anti-affinity leaves (us-east-1b).
    let wi = eval.workloads.iter().position(|x| x.name == "postgres").unwrap();
    let fi = w.fixes.iter().position(|f| f.verified && f.nodes.iter().any(|n| n == "ip-10-0-3-88.ec2.internal"));
    let next = apply_fix(&state, &eval, wi, fi.expect("a verified fix reaching the us-east-1c node")).unwrap();
    let eval = Evaluation::of(&next);
    let w = view(&eval, "postgres");
    assert_eq!((w.desired, w.current, w.scheduled, w.pending), (3, 3, 3, 0), "{:#?}", w.pods);
    let at = |pod: &str| w.pods.iter().find(|p| p.name == pod).and_then(|p| p.node.as_deref().map(str::to_string));
    assert_eq!(at("postgres-1").as_deref(), Some("ip-10-0-3-88.ec2.internal"));
    let p2 = w.pods.iter().find(|p| p.name == "postgres-2").unwrap();
    assert_eq!(p2.node.as_deref(), Some("ip-10-0-2-42.ec2.internal"));
    assert_eq!(p2.claims, ["data-postgres-2 -> provisioned on ip-10-0-2-42.ec2.internal"]);
}

#[test]
fn the_rook_ceph_example_says_the_pod_on_a_storage_node_cannot_mount_and_fixes_the_daemonset() {
    let (state, eval) = evaluated_example("storage-operator-dedicated-pool");
    let prometheus = view(&eval, "prometheus-ceph");
    let pod = &prometheus.pods[0];
    let node = pod.node.clone().expect("scheduled: the scheduler does not check the node plugin");
    assert!(node.starts_with("storage-"), "{node}");
    assert_eq!(
        pod.cannot_mount,
        [format!(
            "cannot mount claim tsdb-prometheus-ceph-0: DaemonSet rook-ceph/csi-rbdplugin (CSI driver \
             rook-ceph.rbd.csi.ceph.com) skips node {node}: untolerated taint storage-node=true:NoSchedule"
        )]
    );
    let cell = prometheus.cells.iter().find(|c| *c.node == *node).unwrap();
    assert_eq!(cell.cannot_mount.len(), 1, "{cell:?}");
    assert!(cell.title().contains("warning: prometheus-ceph-0 cannot mount claim"), "{}", cell.title());

    // The DaemonSet's toleration fix: the node plugin then runs on the storage pool, and the
    // pod mounts its volume.
    let wi = eval.workloads.iter().position(|w| w.name == "csi-rbdplugin").unwrap();
    let ds = &eval.workloads[wi];
    assert_eq!((ds.desired, ds.current), (2, 2));
    let fi =
        ds.fixes.iter().position(|f| f.verified && f.description.starts_with("tolerate storage-node=true:NoSchedule"));
    let next = apply_fix(&state, &eval, wi, fi.expect("the DaemonSet's toleration fix")).unwrap();
    let eval = Evaluation::of(&next);
    assert_eq!(view(&eval, "csi-rbdplugin").desired, 5);
    let prometheus = view(&eval, "prometheus-ceph");
    assert!(prometheus.pods[0].cannot_mount.is_empty(), "{:?}", prometheus.pods[0]);
    assert!(prometheus.cells.iter().all(|c| c.cannot_mount.is_empty()));
}
