//! Differential fuzzing of `placement_core::input::block_yaml`, the fast YAML reader, against
//! serde_yaml, the reference it falls back to. Whenever the fast reader answers, its
//! Values must be serde_yaml's; its pruned answer must be serde_yaml's with the pruned
//! fields removed (unless serde_yaml fails: content inside skipped subtrees is not
//! validated); `parse_manifests` (pruned, List items decoded as they are read) must give
//! what it gave before the fast reader whenever that succeeded; and nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use placement_core::input::block_yaml::{read_stream, remove_unread_fields, Prune};
use placement_core::input::documents::{parse_manifests, parse_manifests_reference};
use serde::Deserialize;
use serde_json::Value;

fn reference(text: &str) -> Option<Vec<Value>> {
    let mut out = Vec::new();
    for de in serde_yaml::Deserializer::from_str(text) {
        out.push(Value::deserialize(de).ok()?);
    }
    Some(out)
}

/// Serialized, so that key order and the sign of zero count.
fn json(values: &[Value]) -> String {
    serde_json::to_string(values).expect("Values serialize")
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    if let Ok(reference) = parse_manifests_reference(text, "f") {
        let fast = parse_manifests(text, "f");
        assert!(fast.is_ok(), "parse_manifests fails where it did not: {text:?}");
        assert_eq!(format!("{fast:?}"), format!("{:?}", Ok::<_, ()>(reference)), "parse_manifests differs on {text:?}");
    }
    let fast = read_stream(text, Prune::Nothing);
    let pruned = read_stream(text, Prune::UnreadFields);
    if fast.is_none() && pruned.is_none() {
        return;
    }
    let slow = reference(text);
    if let Some(fast) = &fast {
        let slow = slow.as_ref().unwrap_or_else(|| panic!("fast reader accepted what serde_yaml rejects: {text:?}"));
        assert_eq!(json(fast), json(slow), "fast reader differs from serde_yaml on {text:?}");
    }
    if let (Some(mut pruned), Some(mut slow)) = (pruned, slow) {
        remove_unread_fields(&mut pruned);
        remove_unread_fields(&mut slow);
        assert_eq!(json(&pruned), json(&slow), "pruned reading differs from serde_yaml's on {text:?}");
    }
});
