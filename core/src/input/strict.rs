//! Strict input, as `kubectl apply --validate=strict` has the API server check it: fields
//! the Kubernetes API does not know (`toleration:` for `tolerations:`), fields given twice,
//! and kinds that are one typo away from one Placement reads. Each finding names the
//! document, the field path and its line, in the API server's words (`strict decoding error:
//! unknown field "spec.template.spec.toleration"`), with the nearest known field when one
//! is close, which the API server does not offer but a person fixing a typo needs.
//!
//! The typed model reads only the fields it needs and the fast reader prunes the rest, so
//! this check reads the text again, with serde_yaml (or serde_json) and a value that records
//! duplicate keys. It runs only on documents people write: an object read back from a
//! cluster (it has `metadata.uid` and `metadata.creationTimestamp`) was decoded by the API
//! server already, and [`needs_check`] lets a snapshot with nothing else skip the second
//! reading altogether, so the benchmarked snapshot path does not change.
//!
//! The field lists are generated from the Kubernetes OpenAPI schema for 1.35
//! ([`k8s_fields`], by `scripts/gen-k8s-fields.py`).

use std::cell::OnceCell;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

use crate::input::documents::{DocRef, Manifests};
use crate::input::source_map::Locator;
use crate::input::text::BOM;
use crate::model::ObjectMeta;

#[path = "k8s_fields.rs"]
mod k8s_fields;

/// What a field of an API type holds, as [`k8s_fields`] lists it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ty {
    /// A scalar, a list or map of scalars, or a free-form value (IntOrString, RawExtension).
    Leaf,
    Obj(&'static str),
    List(&'static str),
}

/// At most this many findings per text: a wrongly indented block can make every line an
/// unknown field, and each finding's line is looked up in the whole text.
pub const MAX_FINDINGS: usize = 200;

/// One strict-decoding finding.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    pub doc: DocRef,
    /// The field path, as the API server writes it (`spec.template.spec.toleration`); for
    /// [`Problem::UnknownKind`], `kind`.
    pub field: String,
    /// 1-based line in the text, where it could be found.
    pub line: Option<usize>,
    pub problem: Problem,
}

#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase", tag = "type")]
pub enum Problem {
    /// A field the kind's schema does not have; `suggestion` is the nearest one it has.
    UnknownField { suggestion: Option<String> },
    /// A key given twice in one mapping: YAML readers keep the last value, silently.
    DuplicateField,
    /// A kind one typo away from a kind Placement reads (`Deploymnet`): the document would
    /// be ignored, and the API server knows no such kind.
    UnknownKind { kind: String, api_version: String, suggestion: String },
}

impl Problem {
    /// Whether kubectl refuses the document whatever `--validate` says: a kind the API
    /// server does not have in a built-in group is no resource it can send (`resource
    /// mapping not found`), where an unknown or duplicate field is only a warning by default.
    pub fn is_error(&self) -> bool {
        matches!(self, Problem::UnknownKind { .. })
    }
}

impl fmt::Display for Finding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.doc)?;
        if let Some(line) = self.line {
            write!(f, "line {line}: ")?;
        }
        match &self.problem {
            // sigs.k8s.io/json's strict errors, as the API server returns them.
            Problem::UnknownField { suggestion } => {
                write!(f, "strict decoding error: unknown field {:?}", self.field)?;
                if let Some(s) = suggestion {
                    write!(f, "; did you mean `{s}`?")?;
                }
                Ok(())
            }
            Problem::DuplicateField => write!(f, "strict decoding error: duplicate field {:?}", self.field),
            // What `kubectl apply` prints when discovery has no such kind.
            Problem::UnknownKind { kind, api_version, suggestion } => {
                write!(f, "no matches for kind {kind:?} in version {api_version:?}; did you mean `{suggestion}`?")
            }
        }
    }
}

/// Whether [`check`] can find anything in the text `manifests` came from: some object was
/// not read back from a cluster, or some ignored kind is close to one Placement reads.
pub fn needs_check(manifests: &Manifests) -> bool {
    let written = |m: &ObjectMeta| m.uid.is_empty() || m.creation_timestamp.is_none();
    manifests.nodes.iter().any(|(_, n)| written(&n.metadata))
        || manifests.services.iter().any(|(_, s)| written(&s.metadata))
        || manifests.storage.metadata().any(written)
        || manifests.scheduling.metadata().any(written)
        || manifests.workloads.iter().any(|w| written(&w.metadata))
        || manifests.ignored.iter().any(|d| nearest(&d.kind, ROOT_KINDS.iter().copied(), KIND_DISTANCE).is_some())
}

/// Every finding in `text` (at most [`MAX_FINDINGS`]), in document order. Documents are
/// numbered as [`crate::input::documents::split_documents`] numbers them. Text that does not
/// parse yields what was found before the error: the error itself is the parser's to report.
pub fn check(text: &str, source: &str) -> Vec<Finding> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let mut out = Vec::new();
    let mut index = 0;
    // Made on the first finding: it reads the whole text.
    let locator = OnceCell::new();
    for top in top_level(text) {
        for (value, dups) in documents(top) {
            if is_blank(&value) {
                continue;
            }
            index += 1;
            if out.len() < MAX_FINDINGS {
                let locate = Locate { text, locator: &locator };
                check_document(&locate, source, index, &value, dups, &mut out);
            }
        }
    }
    out.truncate(MAX_FINDINGS);
    out
}

/// The kinds Placement reads, with their schema's root type.
const ROOT_KINDS: [&str; 16] = [
    "CSIDriver",
    "CSINode",
    "CSIStorageCapacity",
    "CronJob",
    "DaemonSet",
    "Deployment",
    "Job",
    "Node",
    "PersistentVolume",
    "PersistentVolumeClaim",
    "Pod",
    "ReplicaSet",
    "ReplicationController",
    "Service",
    "StatefulSet",
    "StorageClass",
];

/// Edit distance for a kind to count as a typo of another. Kinds of 4 letters or fewer
/// (`Node`, `Role`) are never taken for typos: see [`nearest`].
const KIND_DISTANCE: usize = 2;

/// The API versions whose fields [`k8s_fields`] lists: apps/v1, batch/v1, storage.k8s.io/v1
/// and core v1.
fn served_version(kind: &str) -> &'static str {
    match kind {
        "Deployment" | "DaemonSet" | "ReplicaSet" | "StatefulSet" => "apps/v1",
        "Job" | "CronJob" => "batch/v1",
        "StorageClass" | "CSINode" | "CSIDriver" | "CSIStorageCapacity" => "storage.k8s.io/v1",
        _ => "v1",
    }
}

/// Lines of a text's fields, looked up with one [`Locator`] for all findings.
struct Locate<'a, 't> {
    text: &'t str,
    locator: &'a OnceCell<Locator<'t>>,
}

impl<'t> Locate<'_, 't> {
    fn get(&self) -> &Locator<'t> {
        self.locator.get_or_init(|| Locator::new(self.text))
    }

    fn line(&self, index: usize, field: &str) -> Option<usize> {
        self.get().locate(index, field)
    }
}

fn check_document(
    locate: &Locate<'_, '_>,
    source: &str,
    index: usize,
    value: &Value,
    dups: Vec<Path>,
    out: &mut Vec<Finding>,
) {
    let Value::Object(map) = value else { return };
    let s = |v: Option<&Value>| v.and_then(Value::as_str).unwrap_or_default().to_string();
    let meta = map.get("metadata");
    let doc = DocRef {
        index,
        source: source.to_string(),
        kind: s(map.get("kind")),
        namespace: meta.and_then(|m| m.get("namespace")).and_then(Value::as_str).map(str::to_string),
        name: s(meta.and_then(|m| m.get("name"))),
    };
    let api_version = s(map.get("apiVersion"));
    // Read back from a cluster: the API server decoded it already.
    let read_back = meta.is_some_and(|m| {
        m.get("uid").and_then(Value::as_str).is_some_and(|u| !u.is_empty())
            && m.get("creationTimestamp").is_some_and(|t| !t.is_null())
    });
    if read_back {
        return;
    }
    let Some(root) = k8s_fields::ROOTS.iter().find(|(k, _)| *k == doc.kind).map(|(_, t)| *t) else {
        // Only in the groups of the kinds Placement reads: `Role` next to `Node` is no typo.
        let groups = [
            "v1",
            "apps/v1",
            "batch/v1",
            "storage.k8s.io/v1",
            "extensions/v1beta1",
            "apps/v1beta1",
            "apps/v1beta2",
            "batch/v1beta1",
        ];
        if groups.contains(&api_version.as_str()) {
            if let Some(suggestion) = nearest(&doc.kind, ROOT_KINDS.iter().copied(), KIND_DISTANCE) {
                let line = locate.line(index, "kind");
                let problem =
                    Problem::UnknownKind { kind: doc.kind.clone(), api_version, suggestion: suggestion.to_string() };
                out.push(Finding { doc, field: "kind".into(), line, problem });
            }
        }
        return;
    };
    for path in dups {
        if out.len() >= MAX_FINDINGS {
            return;
        }
        let field = path_string(&path);
        let line = locate.line(index, &field).map(|first| second_occurrence(locate.get().lines(), first, &path));
        out.push(Finding { doc: doc.clone(), field, line, problem: Problem::DuplicateField });
    }
    // Other versions (extensions/v1beta1, batch/v1beta1) are rejected or have other schemas.
    if api_version != served_version(&doc.kind) {
        return;
    }
    let mut unknown = Vec::new();
    walk(value, root, &mut String::new(), &mut unknown);
    for (field, suggestion) in unknown {
        if out.len() >= MAX_FINDINGS {
            return;
        }
        let line = locate.line(index, &field);
        out.push(Finding {
            doc: doc.clone(),
            field,
            line,
            problem: Problem::UnknownField { suggestion: suggestion.map(str::to_string) },
        });
    }
}

/// The fields of type `name`, sorted.
fn fields(name: &str) -> &'static [(&'static str, Ty)] {
    k8s_fields::TYPES
        .binary_search_by(|(t, _)| (*t).cmp(name))
        .ok()
        .and_then(|i| k8s_fields::TYPES.get(i))
        .map_or(&[], |(_, f)| f)
}

/// Collects the unknown fields of `value`, read as type `ty`, with the nearest known field.
/// Values of the wrong shape are the typed decoding's to report.
fn walk(value: &Value, ty: &str, path: &mut String, out: &mut Vec<(String, Option<&'static str>)>) {
    let Value::Object(map) = value else { return };
    let known = fields(ty);
    for (key, v) in map {
        // YAML merge keys are resolved by kubectl's reader, not fields of their own.
        if key == "<<" {
            continue;
        }
        let len = path.len();
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(key);
        match known.binary_search_by(|(f, _)| (*f).cmp(key)).ok().and_then(|i| known.get(i)).map(|(_, t)| *t) {
            None => {
                // A mapping given as `null` (`toleration:` with nothing under it) is still a
                // field the API does not know.
                let suggestion = nearest(key, known.iter().map(|(f, _)| *f), field_distance(key));
                out.push((path.clone(), suggestion));
            }
            Some(Ty::Leaf) => {}
            Some(Ty::Obj(t)) => walk(v, t, path, out),
            Some(Ty::List(t)) => {
                if let Value::Array(items) = v {
                    for (i, item) in items.iter().enumerate() {
                        let len = path.len();
                        path.push_str(&format!("[{i}]"));
                        walk(item, t, path, out);
                        path.truncate(len);
                    }
                }
            }
        }
        path.truncate(len);
    }
}

/// How far a mistyped field may be from the one meant: one edit for short names, two from
/// eight letters on (`nodeSelecter`, `tolerations` without its `s`).
fn field_distance(key: &str) -> usize {
    if key.len() >= 8 {
        2
    } else {
        1
    }
}

/// The candidate nearest to `word` by edit distance (letter case ignored), if within `max`;
/// the first in order among equals. Words of 4 letters or fewer only match up to case.
fn nearest<'a>(word: &str, candidates: impl Iterator<Item = &'a str>, max: usize) -> Option<&'a str> {
    let max = if word.len() <= 4 { 0 } else { max };
    let word = word.to_ascii_lowercase();
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == word {
            continue;
        }
        let d = edit_distance(word.as_bytes(), c.to_ascii_lowercase().as_bytes());
        if d <= max && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// Levenshtein distance, with a swap of two neighbours counting one edit.
fn edit_distance(a: &[u8], b: &[u8]) -> usize {
    let n = b.len();
    let mut prev2: Vec<usize> = vec![0; n + 1];
    let mut prev: Vec<usize> = (0..=n).collect();
    let mut cur = vec![0; n + 1];
    for (i, &ca) in a.iter().enumerate() {
        if let Some(first) = cur.first_mut() {
            *first = i + 1;
        }
        for (j, &cb) in b.iter().enumerate() {
            let at = |v: &Vec<usize>, k: usize| v.get(k).copied().unwrap_or(usize::MAX / 2);
            let cost = usize::from(ca != cb);
            let mut d = (at(&prev, j) + cost).min(at(&prev, j + 1) + 1).min(at(&cur, j) + 1);
            let swapped = i > 0 && j > 0 && a.get(i - 1) == Some(&cb) && b.get(j - 1) == Some(&ca);
            if swapped {
                d = d.min(at(&prev2, j - 1) + 1);
            }
            if let Some(c) = cur.get_mut(j + 1) {
                *c = d;
            }
        }
        std::mem::swap(&mut prev2, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev.get(n).copied().unwrap_or(0)
}

// ---------------------------------------------------------------------------------------------
// Reading with duplicates recorded

/// A step of a path to a duplicate key.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// A path, innermost step first (steps are added on the way out of the recursion).
type Path = Vec<Seg>;

fn path_string(path: &Path) -> String {
    let mut s = String::new();
    for seg in path.iter().rev() {
        match seg {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// A value, and the paths of the keys given twice in it.
struct Scanned {
    value: Value,
    dups: Vec<Path>,
}

impl Scanned {
    fn leaf(value: Value) -> Self {
        Self { value, dups: Vec::new() }
    }
}

impl<'de> Deserialize<'de> for Scanned {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScanVisitor)
    }
}

struct ScanVisitor;

impl<'de> Visitor<'de> for ScanVisitor {
    type Value = Scanned;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML or JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scanned, E> {
        Ok(Scanned::leaf(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Scanned, E> {
        Ok(Scanned::leaf(Value::from(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Scanned, E> {
        Ok(Scanned::leaf(Value::from(v)))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Scanned, E> {
        Ok(Scanned::leaf(Value::from(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scanned, E> {
        Ok(Scanned::leaf(Value::from(v)))
    }
    fn visit_string<E>(self, v: String) -> Result<Scanned, E> {
        Ok(Scanned::leaf(Value::String(v)))
    }
    fn visit_unit<E>(self) -> Result<Scanned, E> {
        Ok(Scanned::leaf(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Scanned, E> {
        Ok(Scanned::leaf(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Scanned, D::Error> {
        Scanned::deserialize(d)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scanned, A::Error> {
        let (mut items, mut dups) = (Vec::new(), Vec::new());
        while let Some(item) = seq.next_element::<Scanned>()? {
            for mut p in item.dups {
                p.push(Seg::Index(items.len()));
                dups.push(p);
            }
            items.push(item.value);
        }
        Ok(Scanned { value: Value::Array(items), dups })
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scanned, A::Error> {
        let (mut out, mut dups) = (Map::new(), Vec::new());
        while let Some(Key(key)) = map.next_key::<Key>()? {
            let item: Scanned = map.next_value()?;
            for mut p in item.dups {
                p.push(Seg::Key(key.clone()));
                dups.push(p);
            }
            if out.contains_key(&key) {
                dups.push(vec![Seg::Key(key.clone())]);
            }
            // The last value wins, as in the typed reading.
            out.insert(key, item.value);
        }
        Ok(Scanned { value: Value::Object(out), dups })
    }
}

/// A mapping key as a string, whatever scalar it was written as.
struct Key(String);

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a scalar mapping key")
            }
            fn visit_str<E>(self, v: &str) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_bool<E>(self, v: bool) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_i64<E>(self, v: i64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_u64<E>(self, v: u64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_f64<E>(self, v: f64) -> Result<Key, E> {
                Ok(Key(v.to_string()))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
                Ok(Key("null".into()))
            }
        }
        d.deserialize_any(KeyVisitor)
    }
}

/// The top-level values of a YAML or JSON stream, up to the first error, one at a time: only
/// one document's values are held at once.
fn top_level(text: &str) -> Box<dyn Iterator<Item = Scanned> + '_> {
    let trimmed = text.trim_start();
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        Box::new(serde_json::Deserializer::from_str(text).into_iter::<Scanned>().map_while(Result::ok))
    } else {
        Box::new(serde_yaml::Deserializer::from_str(text).map(Scanned::deserialize).map_while(Result::ok))
    }
}

/// The documents one top-level value stands for, as `split_documents` expands them: a List's
/// items (a top-level sequence is a list too), or the value; each with its duplicates.
fn documents(top: Scanned) -> Vec<(Value, Vec<Path>)> {
    let Scanned { value, dups } = top;
    let is_list = value.get("kind").and_then(Value::as_str).is_some_and(|k| k.ends_with("List"))
        && value.get("items").is_some_and(Value::is_array);
    let items = match value {
        Value::Array(items) => items,
        Value::Object(mut map) if is_list => match map.remove("items") {
            Some(Value::Array(items)) => items,
            _ => Vec::new(),
        },
        other => return vec![(other, dups)],
    };
    let mut per_item: Vec<Vec<Path>> = vec![Vec::new(); items.len()];
    for mut p in dups {
        // The outermost steps: `[i]` for a sequence, `items` then `[i]` for a List.
        if is_list && p.last() == Some(&Seg::Key("items".into())) {
            p.pop();
        }
        if let Some(Seg::Index(i)) = p.pop() {
            if let Some(d) = per_item.get_mut(i) {
                if !p.is_empty() {
                    d.push(p);
                }
            }
        }
    }
    items.into_iter().zip(per_item).collect()
}

/// What `split_documents` skips: nothing, or a mapping of nulls only.
fn is_blank(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Object(m) => m.values().all(Value::is_null),
        _ => false,
    }
}

/// The line of the second `key:` of a duplicate whose first is on line `first`: the next line
/// at the same indentation that starts with the same key, before the mapping ends.
fn second_occurrence(all: &[&str], first: usize, path: &Path) -> usize {
    let Some(Seg::Key(key)) = path.first() else { return first };
    let mut lines = all.iter().enumerate().skip(first.saturating_sub(1));
    let Some((_, line)) = lines.next() else { return first };
    let Some(column) = line.find(key.as_str()) else { return first };
    for (i, line) in lines {
        let content = line.trim_start();
        if content.is_empty() || content.starts_with('#') {
            continue;
        }
        let indent = line.len() - content.len();
        if indent < column || content.starts_with("---") {
            break;
        }
        let quoted = format!("\"{key}\"");
        if indent == column
            && [key.as_str(), quoted.as_str()]
                .iter()
                .any(|k| content.strip_prefix(k).is_some_and(|rest| rest.trim_start().starts_with(':')))
        {
            return i + 1;
        }
    }
    first
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tables_are_sorted_for_binary_search() {
        assert!(k8s_fields::TYPES.windows(2).all(|w| w[0].0 < w[1].0));
        for (name, fields) in k8s_fields::TYPES {
            assert!(fields.windows(2).all(|w| w[0].0 < w[1].0), "{name}");
        }
        for (_, root) in k8s_fields::ROOTS {
            assert!(!fields(root).is_empty(), "{root}");
        }
    }

    /// The benchmarked snapshots are read once: nothing in them is for this check.
    #[test]
    fn snapshots_skip_the_second_reading() {
        use crate::input::documents::parse_manifests;
        use crate::testing::bench_common::{kubectl_get_nodes_and_pods_yaml, kubectl_get_nodes_yaml};
        for text in [kubectl_get_nodes_and_pods_yaml(3, 4), kubectl_get_nodes_yaml(3)] {
            let manifests = parse_manifests(&text, "s").unwrap();
            assert!(!manifests.nodes.is_empty());
            assert!(!needs_check(&manifests));
            assert_eq!(check(&text, "s"), Vec::new());
        }
        let written = "apiVersion: v1\nkind: Pod\nmetadata: {name: p, uid: u}\nspec: {containers: []}\n";
        assert!(needs_check(&parse_manifests(written, "s").unwrap()));
        let ignored = "apiVersion: apps/v1\nkind: Deploymnet\nmetadata: {name: p}\n";
        assert!(needs_check(&parse_manifests(ignored, "s").unwrap()));
    }

    #[test]
    fn edit_distance_counts_swaps_as_one() {
        assert_eq!(edit_distance(b"toleration", b"tolerations"), 1);
        assert_eq!(edit_distance(b"nodeselecter", b"nodeselector"), 1);
        assert_eq!(edit_distance(b"contianers", b"containers"), 1);
        assert_eq!(edit_distance(b"", b"abc"), 3);
        assert_eq!(edit_distance(b"abc", b""), 3);
    }

    #[test]
    fn nearest_field_within_the_threshold() {
        let spec = || fields("V1PodSpec").iter().map(|(f, _)| *f);
        assert_eq!(nearest("toleration", spec(), 2), Some("tolerations"));
        assert_eq!(nearest("nodeSelecter", spec(), 2), Some("nodeSelector"));
        assert_eq!(nearest("completelyDifferent", spec(), 2), None);
        assert_eq!(nearest("Role", ROOT_KINDS.iter().copied(), KIND_DISTANCE), None);
        assert_eq!(nearest("Deploymnet", ROOT_KINDS.iter().copied(), KIND_DISTANCE), Some("Deployment"));
    }
}
