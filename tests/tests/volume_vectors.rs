//! The volume plugins' conformance vectors (`tests/vectors/volumes.json`), transcribed from
//! upstream's unit tests of VolumeBinding, VolumeZone, NodeVolumeLimits and
//! VolumeRestrictions (see `tests/vectors/NOTES.md`), run through the engine's plugins.

use std::path::Path;

/// How many vectors the file holds: dropping one fails the test.
const VECTORS: usize = 81;

#[test]
fn volume_vectors_pass() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors/volumes.json");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let report = placement_core::conformance::run(&text).expect("volumes.json is an array of vectors");
    let failures: Vec<String> = report.failures.iter().map(|f| format!("{}: {}", f.id, f.message)).collect();
    assert!(failures.is_empty(), "{}\n{}", report.summary(), failures.join("\n"));
    assert!(report.passed >= VECTORS, "{}: expected at least {VECTORS}", report.summary());
}
