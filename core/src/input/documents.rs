//! Reading manifests: multi-document YAML or JSON, `kind: List` (as `kubectl get -o yaml`
//! prints), into typed Nodes and workloads, with errors that name the document, the field
//! path and the bad value.
//!
//! YAML goes through [`crate::input::block_yaml`]'s fast reader first, and through serde_yaml when
//! the text leaves its subset; serde_yaml writes every syntax error.
//!
//! Hostile input is bounded: the whole input is capped at [`MAX_INPUT_BYTES`], documents at
//! [`MAX_DOCUMENTS`], nesting at 128 levels (both parsers' recursion limits), and YAML alias
//! expansion by serde_yaml's repetition limit, so an alias bomb fails fast.

use std::fmt;

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::input::block_yaml::{self, Event, Node as YamlNode, Prune};
use crate::input::field::FieldError;
use crate::input::strict::Finding;
use crate::input::text::{self, KubectlOutput, BOM};
use crate::model::storage::{
    CsiDriver, CsiNode, CsiStorageCapacity, PersistentVolume, PersistentVolumeClaim, StorageClass,
};
use crate::model::{LabelSelector, Labels, Node, ObjectMeta, Pod, PodStatus, PodTemplateSpec, Service};

/// 1 GiB: a cluster snapshot of 5,000 nodes and 100,000 pods (`kubectl get nodes,pods -A
/// -o yaml`) is about 580 MiB (BENCHMARKS.md, "Cluster snapshots"); a 5,000-node `kubectl get
/// nodes -o yaml` with managedFields about 57 MiB.
pub const MAX_INPUT_BYTES: usize = 1024 * 1024 * 1024;
/// Objects in one input (list items count one each): the snapshot above has 105,000.
pub const MAX_DOCUMENTS: usize = 250_000;
/// Upper bound on pods one workload may ask for, to keep memory bounded.
pub const MAX_REPLICAS: i64 = 10_000;

/// Where a document came from, for error messages: `DaemonSet twistlock/defender (document 2)`.
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct DocRef {
    /// 1-based position of the document in its source (list items count separately).
    pub index: usize,
    pub source: String,
    pub kind: String,
    pub namespace: Option<String>,
    pub name: String,
}

impl fmt::Display for DocRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kind = if self.kind.is_empty() { "object" } else { &self.kind };
        match (&self.namespace, self.name.is_empty()) {
            (Some(ns), false) => write!(f, "{kind} {ns}/{}", self.name)?,
            (None, false) => write!(f, "{kind} {}", self.name)?,
            _ => write!(f, "{kind} (unnamed)")?,
        }
        if self.source.is_empty() {
            write!(f, " (document {})", self.index)
        } else {
            write!(f, " ({} document {})", self.source, self.index)
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum InputError {
    #[error("{source_name}input is {size} bytes, over the {limit}-byte limit")]
    TooLarge { source_name: String, size: usize, limit: usize },
    #[error("{source_name}more than {limit} documents")]
    TooManyDocuments { source_name: String, limit: usize },
    #[error("{source_name}document {index}: invalid {format}: {message}")]
    Syntax { source_name: String, index: usize, format: &'static str, message: String },
    #[error("{doc}: {field}: {message}")]
    Decode { doc: DocRef, field: String, message: String },
    #[error("{doc}: {error}")]
    Invalid { doc: DocRef, error: FieldError },
    /// A document without `apiVersion` or `kind`, in the words of kubectl's client-side
    /// validation (`error validating data: [apiVersion not set, kind not set]`): the API server
    /// cannot decode it, so kubectl refuses to send it. `fields` are the ones missing.
    #[error("{doc}: error validating data: {}", not_set_list(fields))]
    NotSet { doc: DocRef, fields: Vec<&'static str> },
    /// An unknown or duplicate field ([`crate::input::strict`]): an error with `--strict`.
    #[error("{0}")]
    Strict(Box<Finding>),
    /// An API version the API server no longer serves for this kind. The words are what
    /// `kubectl apply` prints when discovery finds no such resource (`resource mapping not
    /// found ...: no matches for kind "Deployment" in version "extensions/v1beta1"`); a
    /// request sent anyway gets a 404 from the server, which says less.
    #[error("{doc}: resource mapping not found: no matches for kind {kind:?} in version {api_version:?} ({detail})")]
    NotServed { doc: DocRef, kind: String, api_version: String, detail: String },
    /// An admission plugin refused the object (`Error from server (Forbidden)`): a Pod whose
    /// `priorityClassName` no PriorityClass has.
    #[error("{doc}: {resource} {name:?} is forbidden: {reason}")]
    Forbidden { doc: DocRef, resource: &'static str, name: String, reason: String },
    /// From [`crate::input::text::decode_text`]; `offset` is the first bad byte's.
    #[error("{source_name}not UTF-8 or UTF-16 text: {problem} at byte {offset}")]
    Encoding { source_name: String, problem: &'static str, offset: usize },
    /// The text is what kubectl prints for people; `command` saves the objects as YAML.
    #[error("{source_name}this is {output} output, not YAML or JSON manifests: run `{command}` instead")]
    KubectlOutput { source_name: String, output: KubectlOutput, command: String },
}

impl InputError {
    /// The document the error is about, when it is about one.
    pub fn doc(&self) -> Option<&DocRef> {
        match self {
            InputError::Decode { doc, .. }
            | InputError::Invalid { doc, .. }
            | InputError::NotServed { doc, .. }
            | InputError::Forbidden { doc, .. }
            | InputError::NotSet { doc, .. } => Some(doc),
            InputError::Strict(finding) => Some(&finding.doc),
            _ => None,
        }
    }
}

/// kubectl's list of missing fields: `apiVersion not set`, or `[apiVersion not set, kind not set]`.
fn not_set_list(fields: &[&str]) -> String {
    let each: Vec<String> = fields.iter().map(|f| format!("{f} not set")).collect();
    match each.as_slice() {
        [one] => one.clone(),
        _ => format!("[{}]", each.join(", ")),
    }
}

/// One raw document with its identity: a Value, or the fast reader's tree.
#[derive(Debug, Clone)]
pub struct RawDocument<T = Value> {
    pub doc: DocRef,
    pub api_version: String,
    pub value: T,
}

/// Splits `text` into documents (expanding `List` kinds) with nulls removed, as Go's
/// `omitempty` would have them.
pub fn split_documents(text: &str, source: &str) -> Result<Vec<RawDocument>, InputError> {
    split(text, source, YamlReader::Fast(Prune::Nothing))
}

/// How YAML text is read.
#[derive(Debug, Clone, Copy)]
enum YamlReader {
    /// [`block_yaml`] when the text is in its subset, else serde_yaml.
    Fast(Prune),
    /// serde_yaml alone: for texts the fast reader already gave up on, and the reference it
    /// is tested against.
    SerdeYaml,
}

fn split(text: &str, source: &str, reader: YamlReader) -> Result<Vec<RawDocument>, InputError> {
    // A byte-order mark in pasted text: libyaml skips it, serde_json does not.
    let text = text.strip_prefix(BOM).unwrap_or(text);
    split_text(text, source, reader).map_err(|e| text::explain(e, text, source))
}

fn split_text(text: &str, source: &str, reader: YamlReader) -> Result<Vec<RawDocument>, InputError> {
    let source_name = if source.is_empty() { String::new() } else { format!("{source}: ") };
    if text.len() > MAX_INPUT_BYTES {
        return Err(InputError::TooLarge { source_name, size: text.len(), limit: MAX_INPUT_BYTES });
    }
    let trimmed = text.trim_start();
    let mut values = Vec::new();
    // Whether a mapping may have null members to remove.
    let mut nulls = true;
    if trimmed.starts_with('{') || trimmed.starts_with('[') {
        for (i, v) in serde_json::Deserializer::from_str(text).into_iter::<Value>().enumerate() {
            let v = v.map_err(|e| InputError::Syntax {
                source_name: source_name.clone(),
                index: i + 1,
                format: "JSON",
                message: e.to_string(),
            })?;
            values.push(v);
            if values.len() > MAX_DOCUMENTS {
                return Err(InputError::TooManyDocuments { source_name, limit: MAX_DOCUMENTS });
            }
        }
    } else {
        // libyaml's scanner is quadratic in flow nesting depth (100k `[` take minutes) and
        // only then hits serde_yaml's recursion limit, so reject deep flow nesting up front.
        if let Some((line, column)) =
            flow_nesting_exceeds(text, MAX_FLOW_DEPTH).then(|| flow_nesting_beyond(text, MAX_FLOW_DEPTH)).flatten()
        {
            return Err(InputError::Syntax {
                source_name,
                index: 1 + text[..text.len().min(line_offset(text, line))].matches("\n---").count(),
                format: "YAML",
                message: format!("nesting deeper than {MAX_FLOW_DEPTH} levels at line {line} column {column}"),
            });
        }
        let fast = match reader {
            YamlReader::Fast(prune) => block_yaml::read_documents(text, prune, MAX_DOCUMENTS),
            YamlReader::SerdeYaml => None,
        };
        if let Some(fast) = fast {
            // Where the serde_yaml loop below would have stopped: the text had no syntax
            // error up to there, or the fast reader would have given up.
            if fast.values.len() > MAX_DOCUMENTS {
                return Err(InputError::TooManyDocuments { source_name, limit: MAX_DOCUMENTS });
            }
            values = fast.values;
            nulls = fast.nulls;
        } else {
            for (i, de) in serde_yaml::Deserializer::from_str(text).enumerate() {
                let v = Value::deserialize(de).map_err(|e| InputError::Syntax {
                    source_name: source_name.clone(),
                    index: i + 1,
                    format: "YAML",
                    message: e.to_string(),
                })?;
                values.push(v);
                if values.len() > MAX_DOCUMENTS {
                    return Err(InputError::TooManyDocuments { source_name, limit: MAX_DOCUMENTS });
                }
            }
        }
    }

    let documents = values.iter().map(|v| if is_list(v) { v["items"].as_array().map_or(0, Vec::len) } else { 1 }).sum();
    let mut docs = Vec::with_capacity(documents);
    for value in values {
        for value in list_items(value) {
            if let Some(raw) = admit(value, docs.len(), source, &source_name, nulls)? {
                docs.push(raw);
            }
        }
    }
    Ok(docs)
}

/// The documents one value of the input stands for: the items of a List (a top-level array
/// is a list of objects), or the value itself.
fn list_items<T: Tree>(value: T) -> Vec<T> {
    if value.is_seq() || is_list(&value) {
        value.into_items()
    } else {
        vec![value]
    }
}

/// What admitting a document reads of it, alike on a `Value` (serde_yaml's, JSON's) and on
/// the fast reader's [`YamlNode`].
trait Tree: Sized {
    fn get(&self, key: &str) -> Option<&Self>;
    fn as_str(&self) -> Option<&str>;
    fn is_seq(&self) -> bool;
    /// A mapping, and whether it has no members.
    fn mapping(&self) -> Option<bool>;
    fn is_null(&self) -> bool;
    /// In [`type_name`]'s words.
    fn type_name(&self) -> &'static str;
    fn strip_nulls(&mut self);
    /// A sequence's items, or those of a mapping's `items` sequence.
    fn into_items(self) -> Vec<Self>;
}

impl Tree for Value {
    fn get(&self, key: &str) -> Option<&Self> {
        Value::get(self, key)
    }
    fn as_str(&self) -> Option<&str> {
        Value::as_str(self)
    }
    fn is_seq(&self) -> bool {
        self.is_array()
    }
    fn mapping(&self) -> Option<bool> {
        self.as_object().map(Map::is_empty)
    }
    fn is_null(&self) -> bool {
        Value::is_null(self)
    }
    fn type_name(&self) -> &'static str {
        type_name(self)
    }
    fn strip_nulls(&mut self) {
        strip_nulls(self)
    }
    fn into_items(self) -> Vec<Self> {
        match self {
            Value::Array(items) => items,
            Value::Object(mut map) => match map.remove("items") {
                Some(Value::Array(items)) => items,
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }
}

impl Tree for YamlNode<'_> {
    fn get(&self, key: &str) -> Option<&Self> {
        YamlNode::get(self, key)
    }
    fn as_str(&self) -> Option<&str> {
        YamlNode::as_str(self)
    }
    fn is_seq(&self) -> bool {
        matches!(self, YamlNode::Seq(_))
    }
    fn mapping(&self) -> Option<bool> {
        match self {
            YamlNode::Map(entries) => Some(entries.is_empty()),
            _ => None,
        }
    }
    fn is_null(&self) -> bool {
        YamlNode::is_null(self)
    }
    fn type_name(&self) -> &'static str {
        // A Value of the same type, so that the words stay `type_name`'s.
        type_name(&match self {
            YamlNode::Seq(_) => Value::Array(Vec::new()),
            YamlNode::Map(_) => Value::Object(Map::new()),
            scalar => scalar.clone().into_value(),
        })
    }
    fn strip_nulls(&mut self) {
        YamlNode::strip_nulls(self)
    }
    fn into_items(self) -> Vec<Self> {
        match self {
            YamlNode::Seq(items) => items,
            YamlNode::Map(mut entries) => match entries.iter().position(|(k, _)| k == "items") {
                Some(at) => match entries.swap_remove(at).1 {
                    YamlNode::Seq(items) => items,
                    _ => Vec::new(),
                },
                None => Vec::new(),
            },
            _ => Vec::new(),
        }
    }
}

/// `value` as the document after `count` others, with nulls removed (when `nulls` says
/// there may be some), or nothing for an empty one (`---` separators, comments only).
fn admit<T: Tree>(
    mut value: T,
    count: usize,
    source: &str,
    source_name: &str,
    nulls: bool,
) -> Result<Option<RawDocument<T>>, InputError> {
    if nulls {
        value.strip_nulls();
    }
    match value.mapping() {
        Some(true) => return Ok(None),
        Some(false) => {}
        None if value.is_null() => return Ok(None),
        None => {
            return Err(InputError::Syntax {
                source_name: source_name.to_string(),
                index: count + 1,
                format: "manifest",
                message: format!("expected a Kubernetes object (a mapping), found {}", value.type_name()),
            })
        }
    }
    if count >= MAX_DOCUMENTS {
        return Err(InputError::TooManyDocuments { source_name: source_name.to_string(), limit: MAX_DOCUMENTS });
    }
    let doc = doc_ref(&value, count + 1, source);
    let api_version = value.get("apiVersion").and_then(T::as_str).unwrap_or_default().to_string();
    Ok(Some(RawDocument { doc, api_version, value }))
}

/// Deeper than serde_yaml's own recursion limit (128), so no valid document is refused.
pub(super) const MAX_FLOW_DEPTH: usize = 128;

/// The 1-based line and column where `[`/`{` nesting first exceeds `limit`, scanning once.
/// Quotes count only where YAML can start a quoted scalar, so a stray apostrophe in a plain
/// scalar (`don't`) does not hide what follows.
fn flow_nesting_beyond(text: &str, limit: usize) -> Option<(usize, usize)> {
    #[derive(PartialEq)]
    enum State {
        Plain,
        Single,
        Double,
        Comment,
    }
    let (mut state, mut depth, mut line, mut column) = (State::Plain, 0usize, 1usize, 0usize);
    let mut prev_significant = b'\n';
    let mut prev = b'\n';
    let bytes = text.as_bytes();
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        column += 1;
        if b == b'\n' {
            line += 1;
            column = 0;
            if state == State::Comment {
                state = State::Plain;
            }
        }
        match state {
            State::Comment => {}
            State::Single => {
                if b == b'\'' {
                    if bytes.get(i + 1) == Some(&b'\'') {
                        i += 1;
                    } else {
                        state = State::Plain;
                    }
                }
            }
            State::Double => match b {
                b'\\' => i += 1,
                b'"' => state = State::Plain,
                _ => {}
            },
            State::Plain => match b {
                b'#' if prev.is_ascii_whitespace() => state = State::Comment,
                b'\'' | b'"' if matches!(prev_significant, b'\n' | b':' | b'-' | b'[' | b'{' | b',' | b'?') => {
                    state = if b == b'"' { State::Double } else { State::Single };
                }
                b'[' | b'{' => {
                    depth += 1;
                    if depth > limit {
                        return Some((line, column));
                    }
                }
                b']' | b'}' => depth = depth.saturating_sub(1),
                _ => {}
            },
        }
        if !b.is_ascii_whitespace() || b == b'\n' {
            prev_significant = b;
        }
        prev = b;
        i += 1;
    }
    None
}

/// Whether [`flow_nesting_beyond`] finds something, in a fraction of its time: the same
/// states, but jumping over bytes that cannot change them (it scans every input, 57 MiB for
/// 5,000 kubectl nodes). Outside quotes and comments, the byte before a position is the one
/// `flow_nesting_beyond` saw last (it skips bytes only inside quotes), so the previous and
/// previous significant bytes are looked up instead of carried.
pub(super) fn flow_nesting_exceeds(text: &str, limit: usize) -> bool {
    /// True for every byte that matters outside quotes (`"#'[]{}`), and for a few control
    /// characters: `| 0x20` folds `[`/`{` and `]`/`}` together, so this vectorizes.
    fn may_matter(c: u8) -> bool {
        let x = c | 0x20;
        (x == b'{') | (x == b'}') | (x == b'"') | (x == b'#') | (x == b'\'')
    }
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    loop {
        i = crate::input::block_yaml::next_where(b, i, may_matter);
        let Some(&c) = b.get(i) else { return false };
        i += 1;
        match c {
            // `i` is at least 1 here: the byte before `#` is at `i - 2`, if any.
            b'#' if i.checked_sub(2).and_then(|j| b.get(j)).is_none_or(u8::is_ascii_whitespace) => {
                match crate::input::block_yaml::find_newline(b.get(i..).unwrap_or_default()) {
                    Some(n) => i += n,
                    None => return false,
                }
            }
            b'\'' | b'"' => {
                let before =
                    b.get(..i - 1).unwrap_or_default().iter().rposition(|&p| !p.is_ascii_whitespace() || p == b'\n');
                if !matches!(
                    before.and_then(|p| b.get(p)),
                    None | Some(b'\n' | b':' | b'-' | b'[' | b'{' | b',' | b'?')
                ) {
                    continue;
                }
                // Inside the quotes: only the closing quote matters.
                loop {
                    i = crate::input::block_yaml::next_where(b, i, |q| q == c || (c == b'"' && q == b'\\'));
                    if i >= b.len() {
                        return false;
                    }
                    i += 1;
                    if b.get(i - 1) == Some(&b'\\') || (c == b'\'' && b.get(i) == Some(&b'\'')) {
                        i += 1;
                        continue;
                    }
                    break;
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > limit {
                    return true;
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
}

fn line_offset(text: &str, line: usize) -> usize {
    text.split('\n').take(line.saturating_sub(1)).map(|l| l.len() + 1).sum()
}

fn is_list<T: Tree>(v: &T) -> bool {
    v.get("kind").and_then(T::as_str).is_some_and(|k| k == "List" || k.ends_with("List"))
        && v.get("items").is_some_and(T::is_seq)
}

/// A JSON value's type in the words error messages use ("a mapping", "a list", ...).
pub fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "a mapping",
    }
}

fn doc_ref<T: Tree>(v: &T, index: usize, source: &str) -> DocRef {
    let meta = v.get("metadata");
    let s = |x: Option<&T>| x.and_then(T::as_str).map(str::to_string);
    DocRef {
        index,
        source: source.to_string(),
        kind: s(v.get("kind")).unwrap_or_default(),
        namespace: s(meta.and_then(|m| m.get("namespace"))),
        name: s(meta.and_then(|m| m.get("name"))).unwrap_or_default(),
    }
}

/// Removes `null` members recursively: the API treats them as absent.
pub fn strip_nulls(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|_, x| !x.is_null());
            map.values_mut().for_each(strip_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

/// Deserializes a typed value from a document, reporting the failing field path.
///
/// Natively only the reading that follows a failed one (`WithPaths`) calls this, so it
/// tracks the path from the start: trying without tracking first was faster where most
/// documents are valid, but it instantiated every model type's decoding once more: 31.7 KB
/// of the page's gzip payload (1,054,012 -> 1,022,307 bytes), whose budget is 1 MiB. In the
/// browser the first reading ([`Moving`]) and the playground's node table call it too, for
/// the same reason.
///
/// The value is taken by value, so its strings move into the typed object rather than being
/// copied.
pub fn decode<T: DeserializeOwned>(value: Value, doc: &DocRef, prefix: &str) -> Result<T, InputError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let field = crate::input::field::FieldPath::under(prefix, &e.path().to_string()).to_string();
        InputError::Decode { doc: doc.clone(), field, message: e.into_inner().to_string() }
    })
}

// ---------------------------------------------------------------------------------------------
// Typed objects

/// The workload kinds whose pods Placement schedules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum WorkloadKind {
    Pod,
    Deployment,
    ReplicaSet,
    StatefulSet,
    DaemonSet,
    Job,
    CronJob,
    ReplicationController,
}

impl WorkloadKind {
    pub fn parse(kind: &str) -> Option<Self> {
        Some(match kind {
            "Pod" => Self::Pod,
            "Deployment" => Self::Deployment,
            "ReplicaSet" => Self::ReplicaSet,
            "StatefulSet" => Self::StatefulSet,
            "DaemonSet" => Self::DaemonSet,
            "Job" => Self::Job,
            "CronJob" => Self::CronJob,
            "ReplicationController" => Self::ReplicationController,
            _ => return None,
        })
    }

    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Pod => "Pod",
            Self::Deployment => "Deployment",
            Self::ReplicaSet => "ReplicaSet",
            Self::StatefulSet => "StatefulSet",
            Self::DaemonSet => "DaemonSet",
            Self::Job => "Job",
            Self::CronJob => "CronJob",
            Self::ReplicationController => "ReplicationController",
        }
    }

    /// Where the pod template sits in a manifest of this kind.
    pub fn template_path(&self) -> &'static str {
        match self {
            Self::Pod => "",
            Self::CronJob => "spec.jobTemplate.spec.template",
            _ => "spec.template",
        }
    }

    /// The pod spec's path, for error messages and patches.
    pub fn pod_spec_path(&self) -> &'static str {
        match self {
            Self::Pod => "spec",
            Self::CronJob => "spec.jobTemplate.spec.template.spec",
            _ => "spec.template.spec",
        }
    }
}

/// A workload and the pods it asks for.
#[derive(Debug, Clone)]
pub struct Workload {
    pub kind: WorkloadKind,
    /// The document's `apiVersion`, for the versions the API server no longer serves.
    pub api_version: String,
    pub namespace: String,
    pub name: String,
    pub doc: DocRef,
    /// Pods wanted at once (replicas, or parallelism for Jobs). Unused for DaemonSets.
    pub replicas: i64,
    pub template: PodTemplateSpec,
    /// The controller's pod selector (`spec.selector`; a ReplicationController's label map
    /// as `matchLabels`). `None` for a bare Pod and where the manifest gives none.
    pub selector: Option<LabelSelector>,
    /// The object's own metadata: uid, owner references, timestamps, for snapshots. A Pod's
    /// labels and annotations are in `template.metadata` only (the pod is its template).
    pub metadata: ObjectMeta,
    /// A Pod's status (phase, conditions); empty for other kinds.
    pub pod_status: PodStatus,
    /// What a controller reads beyond its replicas.
    pub state: ControllerState,
}

/// What the Job and StatefulSet controllers read beyond replicas and template.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ControllerState {
    /// A Job's (or a CronJob's Job template's) `parallelism` and `completions`.
    pub parallelism: Option<i64>,
    pub completions: Option<i64>,
    /// `spec.suspend`: a suspended Job creates no pods, a suspended CronJob no Jobs.
    pub suspended: bool,
    /// A Job's `Complete` or `Failed` condition is True: it creates no more pods.
    pub finished: bool,
    /// A StatefulSet's `podManagementPolicy: Parallel`; the default, OrderedReady, creates one
    /// pod at a time and waits for it to run.
    pub parallel: bool,
    /// A StatefulSet's `volumeClaimTemplates`: replica `i` uses claim
    /// `<template>-<statefulset>-<i>`, created from the template unless it exists.
    pub claim_templates: Vec<PersistentVolumeClaim>,
    /// The CSI drivers a DaemonSet's node-driver-registrar registers with the kubelet
    /// ([`crate::cluster::csi_node_plugins`]).
    pub csi_drivers: Vec<String>,
}

impl Workload {
    /// A bare Pod with `spec.nodeName` is already bound: it runs there and is not scheduled.
    pub fn is_bound_pod(&self) -> bool {
        self.kind == WorkloadKind::Pod && !self.template.spec.node_name.is_empty()
    }
}

/// Everything read from the input.
#[derive(Debug, Clone, Default)]
pub struct Manifests {
    /// Behind `Arc`: each simulation (a what-if runs two, each offered fix one more) holds the
    /// nodes it schedules on, and copying 5,000 Node objects for each was a tenth of a drain's
    /// what-if.
    pub nodes: Vec<(DocRef, std::sync::Arc<Node>)>,
    pub workloads: Vec<std::sync::Arc<Workload>>,
    /// Services: read for the selectors of PodTopologySpread's system default constraints.
    pub services: Vec<(DocRef, Service)>,
    /// Claims, volumes, classes, CSINodes and CSIDrivers: what the volume plugins read.
    pub storage: Box<StorageObjects>,
    /// PriorityClasses and PodDisruptionBudgets: what preemption and drains read.
    pub scheduling: Box<SchedulingObjects>,
    /// Documents of other kinds, skipped with a warning.
    pub ignored: Vec<DocRef>,
}

/// The PriorityClasses and PodDisruptionBudgets read from the input, each with its document.
#[derive(Debug, Clone, Default)]
pub struct SchedulingObjects {
    pub priority_classes: Vec<(DocRef, crate::model::scheduling::PriorityClass)>,
    pub disruption_budgets: Vec<(DocRef, crate::model::scheduling::PodDisruptionBudget)>,
}

impl SchedulingObjects {
    pub fn len(&self) -> usize {
        self.priority_classes.len() + self.disruption_budgets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn extend(&mut self, other: SchedulingObjects) {
        self.priority_classes.extend(other.priority_classes);
        self.disruption_budgets.extend(other.disruption_budgets);
    }

    /// Every object's document.
    pub fn docs_mut(&mut self) -> impl Iterator<Item = &mut DocRef> {
        let classes = self.priority_classes.iter_mut().map(|(d, _)| d);
        classes.chain(self.disruption_budgets.iter_mut().map(|(d, _)| d))
    }

    /// Every object's metadata, for the checks that ask whether it came from a cluster.
    pub fn metadata(&self) -> impl Iterator<Item = &ObjectMeta> {
        let classes = self.priority_classes.iter().map(|(_, o)| &o.metadata);
        classes.chain(self.disruption_budgets.iter().map(|(_, o)| &o.metadata))
    }
}

/// The storage objects read from the input, each with its document.
#[derive(Debug, Clone, Default)]
pub struct StorageObjects {
    pub claims: Vec<(DocRef, PersistentVolumeClaim)>,
    pub volumes: Vec<(DocRef, PersistentVolume)>,
    pub classes: Vec<(DocRef, StorageClass)>,
    pub csi_nodes: Vec<(DocRef, CsiNode)>,
    pub csi_drivers: Vec<(DocRef, CsiDriver)>,
    pub capacities: Vec<(DocRef, CsiStorageCapacity)>,
}

impl StorageObjects {
    pub fn len(&self) -> usize {
        self.claims.len()
            + self.volumes.len()
            + self.classes.len()
            + self.csi_nodes.len()
            + self.csi_drivers.len()
            + self.capacities.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn extend(&mut self, other: StorageObjects) {
        self.claims.extend(other.claims);
        self.volumes.extend(other.volumes);
        self.classes.extend(other.classes);
        self.csi_nodes.extend(other.csi_nodes);
        self.csi_drivers.extend(other.csi_drivers);
        self.capacities.extend(other.capacities);
    }

    /// Every object's document.
    pub fn docs_mut(&mut self) -> impl Iterator<Item = &mut DocRef> {
        let claims = self.claims.iter_mut().map(|(d, _)| d);
        let volumes = self.volumes.iter_mut().map(|(d, _)| d);
        let classes = self.classes.iter_mut().map(|(d, _)| d);
        let csi_nodes = self.csi_nodes.iter_mut().map(|(d, _)| d);
        let drivers = self.csi_drivers.iter_mut().map(|(d, _)| d);
        claims
            .chain(volumes)
            .chain(classes)
            .chain(csi_nodes)
            .chain(drivers)
            .chain(self.capacities.iter_mut().map(|(d, _)| d))
    }

    /// Every object's metadata, for the checks that ask whether it came from a cluster.
    pub fn metadata(&self) -> impl Iterator<Item = &ObjectMeta> {
        let claims = self.claims.iter().map(|(_, o)| &o.metadata);
        let volumes = self.volumes.iter().map(|(_, o)| &o.metadata);
        let classes = self.classes.iter().map(|(_, o)| &o.metadata);
        let csi_nodes = self.csi_nodes.iter().map(|(_, o)| &o.metadata);
        let drivers = self.csi_drivers.iter().map(|(_, o)| &o.metadata);
        claims
            .chain(volumes)
            .chain(classes)
            .chain(csi_nodes)
            .chain(drivers)
            .chain(self.capacities.iter().map(|(_, o)| &o.metadata))
    }
}

impl Manifests {
    pub fn extend(&mut self, other: Manifests) {
        self.nodes.extend(other.nodes);
        self.workloads.extend(other.workloads);
        self.services.extend(other.services);
        self.storage.extend(*other.storage);
        self.scheduling.extend(*other.scheduling);
        self.ignored.extend(other.ignored);
    }

    /// The release to simulate: `given`, else the newest kubelet of the Nodes read
    /// ([`Release::choose`](crate::model::version::Release::choose)), else the default.
    pub fn release(&self, given: Option<crate::model::version::KubeVersion>) -> crate::model::version::Release {
        let kubelets = self.nodes.iter().filter_map(|(_, n)| n.status.node_info.as_ref());
        crate::model::version::Release::choose(given, kubelets.map(|info| info.kubelet_version.as_str()))
    }

    /// How many documents were read: each is a node, a workload, a service, a storage
    /// object, a PriorityClass or PodDisruptionBudget, or ignored.
    pub fn documents(&self) -> usize {
        self.nodes.len()
            + self.workloads.len()
            + self.services.len()
            + self.storage.len()
            + self.scheduling.len()
            + self.ignored.len()
    }

    /// Renumbers the documents as read after `before` others ([`DocRef::index`]).
    pub(crate) fn shift_indices(&mut self, before: usize) {
        if before == 0 {
            return;
        }
        let docs = self.nodes.iter_mut().map(|(d, _)| d).chain(self.services.iter_mut().map(|(d, _)| d));
        let docs = docs.chain(self.ignored.iter_mut()).chain(self.storage.docs_mut());
        for doc in docs.chain(self.scheduling.docs_mut()) {
            doc.index += before;
        }
        for w in &mut self.workloads {
            std::sync::Arc::make_mut(w).doc.index += before;
        }
    }
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ControllerSpec {
    replicas: Option<i64>,
    template: PodTemplateSpec,
    selector: Option<LabelSelector>,
    pod_management_policy: Option<String>,
    volume_claim_templates: Vec<PersistentVolumeClaim>,
}

/// What a DaemonSet's template says of CSI registration: its containers' args and literal env.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct RegistrarSpec {
    template: RegistrarTemplate,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct RegistrarTemplate {
    spec: RegistrarPodSpec,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct RegistrarPodSpec {
    containers: Vec<crate::cluster::csi_node_plugins::RegistrarContainer>,
    init_containers: Vec<crate::cluster::csi_node_plugins::RegistrarContainer>,
}

/// A ReplicationController's spec: its selector is a plain label map.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct ReplicationControllerSpec {
    replicas: Option<i64>,
    template: PodTemplateSpec,
    selector: Option<Labels>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct JobSpec {
    parallelism: Option<i64>,
    completions: Option<i64>,
    suspend: Option<bool>,
    template: PodTemplateSpec,
    selector: Option<LabelSelector>,
}

/// A Job's status, for a snapshot: whether it has ended.
#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct JobStatus {
    conditions: Vec<crate::model::Condition>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct CronJobSpec {
    job_template: JobTemplate,
    suspend: Option<bool>,
}

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", default)]
struct JobTemplate {
    spec: JobSpec,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Envelope<S, T = JobStatus> {
    metadata: ObjectMeta,
    spec: S,
    status: T,
}

/// Reads every document of `text` into typed objects. Invalid documents are errors;
/// unknown kinds are collected in [`Manifests::ignored`].
pub fn parse_manifests(text: &str, source: &str) -> Result<Manifests, InputError> {
    // The typed model reads no managedFields and no status but allocatable and capacity:
    // kubectl output is mostly those, so the fast reader skips them.
    manifests(text, source, YamlReader::Fast(Prune::UnreadFields))
}

/// At most this many errors are reported for one text: enough to see every invalid document
/// of a real manifest, bounded for generated ones.
pub const MAX_ERRORS: usize = 100;

/// [`parse_manifests`], reporting every document that does not decode (at most
/// [`MAX_ERRORS`]) rather than the first. Errors that stop the reading of the whole text
/// (syntax, limits, encodings) come alone. Documents are read again only after a failure,
/// so valid input costs what [`parse_manifests`] costs.
pub fn parse_manifests_all(text: &str, source: &str) -> Result<Manifests, Vec<InputError>> {
    let first = match parse_manifests(text, source) {
        Ok(manifests) => return Ok(manifests),
        Err(first) => first,
    };
    if first.doc().is_none() {
        return Err(vec![first]);
    }
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let Ok(docs) = split(text, source, YamlReader::Fast(Prune::Nothing)) else { return Err(vec![first]) };
    let mut out = Manifests::default();
    let mut errors = Vec::new();
    for raw in docs {
        if let Err(e) = add_typed::<WithPaths>(raw, &mut out) {
            errors.push(text::explain(e, text, source));
            if errors.len() >= MAX_ERRORS {
                break;
            }
        }
    }
    if errors.is_empty() {
        errors.push(first);
    }
    Err(errors)
}

/// The YAML document marker a line starts with (`line` without its `\n`): `---`, a document
/// starts, or `...`, one ends; each followed by a blank or the line's end (a CRLF line's `\r`
/// counts as its end). libyaml ends a document at such a line wherever it stands, inside a
/// block or quoted scalar too, so every splitter of texts into documents reads lines with it.
///
/// ```
/// use placement_core::input::documents::DocumentMarker;
/// assert_eq!(DocumentMarker::of("--- # next"), Some(DocumentMarker::Start));
/// assert_eq!(DocumentMarker::of("...\r"), Some(DocumentMarker::End));
/// assert_eq!(DocumentMarker::of("---x"), None);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DocumentMarker {
    Start,
    End,
}

impl DocumentMarker {
    pub fn of(line: &str) -> Option<Self> {
        let marker = match line.get(..3) {
            Some("---") => Self::Start,
            Some("...") => Self::End,
            _ => return None,
        };
        matches!(line.as_bytes().get(3), None | Some(b' ' | b'\t' | b'\r')).then_some(marker)
    }
}

/// The texts of `text`'s documents, for reading them one at a time: cut before every line
/// that starts a document (`---` alone or followed by a blank), each part keeping its marker
/// line. libyaml ends a document at such a line wherever it stands (inside a block scalar
/// too, and inside a quoted one with an error), so each part reads as it reads within the
/// whole. `None` where the parts would not: JSON, YAML directives (a `%YAML` line belongs to
/// the document after it), a text over [`MAX_INPUT_BYTES`] (its error is the whole text's).
///
/// ```
/// use placement_core::input::documents::document_texts;
/// let text = "kind: Node\n---\nkind: Pod\n--- # the last\nkind: Service\n";
/// assert_eq!(document_texts(text).unwrap(), ["kind: Node\n", "---\nkind: Pod\n", "--- # the last\nkind: Service\n"]);
/// assert_eq!(document_texts("%YAML 1.2\n---\nkind: Node\n"), None);
/// ```
pub fn document_texts(text: &str) -> Option<Vec<&str>> {
    let trimmed = text.trim_start();
    if text.len() > MAX_INPUT_BYTES || trimmed.starts_with('{') || trimmed.starts_with('[') {
        return None;
    }
    let mut parts = Vec::new();
    let (mut start, mut at) = (0, 0);
    for line in text.split_inclusive('\n') {
        if line.starts_with('%') {
            return None;
        }
        let starts_document =
            DocumentMarker::of(line.strip_suffix('\n').unwrap_or(line)) == Some(DocumentMarker::Start);
        if starts_document && at > start {
            parts.push(&text[start..at]);
            start = at;
        }
        at += line.len();
    }
    if at > start || parts.is_empty() {
        parts.push(&text[start..]);
    }
    Some(parts)
}

/// What [`parse_manifests_cached`] keeps between readings of a text being edited: each
/// document text it read, with the number of documents before it (the documents' indices
/// depend on it) and what it read.
#[derive(Debug, Clone, Default)]
pub struct DocumentCache {
    /// The source the documents were read as (their [`DocRef::source`]).
    source: String,
    read: std::collections::HashMap<String, (usize, Manifests), foldhash::fast::RandomState>,
}

/// [`parse_manifests_all`] for a text read again after an edit: documents whose text (and
/// position) `cache` read before are not read again, so an edit of one document of 1,000
/// reads one (a keystroke in the playground's nodes editor at 1,000 nodes). The result is
/// [`parse_manifests_all`]'s: a text with any error is read whole, for the errors and their
/// positions as the whole text gives them, and so is a text [`document_texts`] does not
/// split. `cache` keeps the documents of this text only.
pub fn parse_manifests_cached(
    text: &str,
    source: &str,
    cache: &mut DocumentCache,
) -> Result<Manifests, Vec<InputError>> {
    if cache.source != source {
        *cache = DocumentCache { source: source.to_string(), ..Default::default() };
    }
    let body = text.strip_prefix(BOM).unwrap_or(text);
    let Some(parts) = document_texts(body) else {
        cache.read.clear();
        return parse_manifests_all(text, source);
    };
    let mut previous = std::mem::take(&mut cache.read);
    let mut out = Manifests::default();
    for part in parts {
        let before = out.documents();
        let read = match previous.remove_entry(part) {
            Some((key, (at, m))) if at == before => Some((key, m)),
            _ => None,
        };
        let (key, m) = match read {
            Some(hit) => hit,
            None => match parse_manifests(part, source) {
                Ok(mut m) => {
                    m.shift_indices(before);
                    (part.to_string(), m)
                }
                Err(_) => {
                    cache.read.clear();
                    return parse_manifests_all(text, source);
                }
            },
        };
        if out.documents() + m.documents() > MAX_DOCUMENTS {
            cache.read.clear();
            return parse_manifests_all(text, source);
        }
        out.extend(m.clone());
        cache.read.insert(key, (before, m));
    }
    Ok(out)
}

/// The documents of `text` that read, without those that do not: after
/// [`parse_manifests_all`] failed, so that the others are validated too and one run names
/// every invalid document (a document without `apiVersion` next to one without a selector).
pub fn readable_manifests(text: &str, source: &str) -> Manifests {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    let Ok(docs) = split(text, source, YamlReader::Fast(Prune::Nothing)) else { return Manifests::default() };
    let mut out = Manifests::default();
    for raw in docs {
        // The failures are parse_manifests_all's to report.
        let _ = add_typed::<WithPaths>(raw, &mut out);
    }
    out
}

/// Reads a text as `kubectl apply --validate` would have it checked: every invalid document
/// ([`parse_manifests_all`]), and the unknown and duplicate fields of
/// [`crate::input::strict::check`]. With `strict` those findings are errors, as with
/// `--validate=strict`; otherwise they come back as warnings beside the manifests, as with
/// `--validate=warn`, except a mistyped kind, which kubectl refuses either way. Errors are in
/// document order.
pub fn parse_manifests_checked(
    text: &str,
    source: &str,
    strict: bool,
) -> Result<(Manifests, Vec<Finding>), Vec<InputError>> {
    check_parsed(parse_manifests_all(text, source), text, source, strict)
}

/// The second half of [`parse_manifests_checked`]: what [`parse_manifests_all`] gave for
/// `text`, with the strict check's findings. The playground reads a text at once and runs
/// this after the frame.
pub fn check_parsed(
    parsed: Result<Manifests, Vec<InputError>>,
    text: &str,
    source: &str,
    strict: bool,
) -> Result<(Manifests, Vec<Finding>), Vec<InputError>> {
    let findings = match &parsed {
        // A snapshot read back from a cluster: nothing to find, and no second reading.
        Ok(manifests) if !crate::input::strict::needs_check(manifests) => Vec::new(),
        _ => crate::input::strict::check(text, source),
    };
    // A mistyped kind is an error whatever `--validate` says: kubectl finds no such resource.
    let (refused, warnings): (Vec<Finding>, Vec<Finding>) =
        findings.into_iter().partition(|f| strict || f.problem.is_error());
    let as_errors = |findings: Vec<Finding>| findings.into_iter().map(|f| InputError::Strict(Box::new(f)));
    match parsed {
        Ok(manifests) if refused.is_empty() => Ok((manifests, warnings)),
        Ok(_) => Err(as_errors(refused).collect()),
        Err(mut errors) => {
            // Only errors are shown now: the warnings wait until the text reads.
            errors.extend(as_errors(refused));
            // Stable: a document's errors stay in the order found; whole-text errors first.
            errors.sort_by_key(|e| e.doc().map(|d| d.index));
            Err(errors)
        }
    }
}

/// [`parse_manifests`] as it was before the fast reader: serde_yaml, then decoding by
/// reference with field paths. The reference for differential tests and the fuzz target.
#[doc(hidden)]
pub fn parse_manifests_reference(text: &str, source: &str) -> Result<Manifests, InputError> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    split(text, source, YamlReader::SerdeYaml).and_then(typed::<WithPaths>).map_err(|e| text::explain(e, text, source))
}

fn manifests(text: &str, source: &str, reader: YamlReader) -> Result<Manifests, InputError> {
    let text = text.strip_prefix(BOM).unwrap_or(text);
    read_manifests(text, source, reader).map_err(|e| text::explain(e, text, source))
}

fn read_manifests(text: &str, source: &str, mut reader: YamlReader) -> Result<Manifests, InputError> {
    if let YamlReader::Fast(prune) = reader {
        let trimmed = text.trim_start();
        let json = trimmed.starts_with('{') || trimmed.starts_with('[');
        // Only where `split` would let the fast reader try: the guards' errors come from it.
        if text.len() <= MAX_INPUT_BYTES && !json && !flow_nesting_exceeds(text, MAX_FLOW_DEPTH) {
            #[cfg(not(target_arch = "wasm32"))]
            if text.len() >= super::list_parts::MIN_BYTES {
                if let Some(manifests) = super::list_parts::read(text, source, prune, super::list_parts::parts()) {
                    return Ok(manifests);
                }
            }
            match streamed(text, source, prune) {
                Streamed::Done(manifests) => return Ok(manifests),
                Streamed::SerdeYaml => reader = YamlReader::SerdeYaml,
                Streamed::Again => {}
            }
        }
    }
    match typed::<Moving>(split(text, source, reader)?) {
        Ok(manifests) => Ok(manifests),
        Err(Stop::Invalid(e)) => Err(*e),
        // Everything from the first pass is gone by now, so memory does not double.
        Err(Stop::Retry) => typed::<WithPaths>(split(text, source, reader)?),
    }
}

/// What reading a YAML text one object at a time came to.
pub(super) enum Streamed {
    Done(Manifests),
    /// The text leaves the fast reader's subset.
    SerdeYaml,
    /// An error, or items taken for a List's that were not: read it again the usual way,
    /// which reports errors exactly.
    Again,
}

/// [`manifests`] on the fast reader's events: each item of a top-level `items` sequence is
/// decoded (and its Values dropped) as soon as it is read, before the next is built. In
/// kubectl output `kind: List` comes after `items`, so the items are taken for a List's
/// until the document ends and says otherwise.
pub(super) fn streamed(text: &str, source: &str, prune: Prune) -> Streamed {
    let Some(mut events) = block_yaml::Events::new(text, prune, true) else { return Streamed::SerdeYaml };
    let source_name = if source.is_empty() { String::new() } else { format!("{source}: ") };
    let mut out = Manifests::default();
    let (mut count, mut documents, mut streamed_items) = (0, 0, false);
    let mut add =
        |value: StreamTree, nulls: bool, out: &mut Manifests| match admit(value, count, source, &source_name, nulls) {
            Ok(None) => true,
            Ok(Some(raw)) => {
                count += 1;
                add_typed::<StreamDecoding>(raw, out).is_ok()
            }
            Err(_) => false,
        };
    loop {
        let (event, nulls) = (events.next(), events.nulls());
        match event {
            None => return Streamed::SerdeYaml,
            Some(Event::End) => return Streamed::Done(out),
            Some(Event::Item(value)) => {
                streamed_items = true;
                if !add(stream_tree(value), nulls, &mut out) {
                    return Streamed::Again;
                }
            }
            Some(Event::Document { value, items_replaced }) => {
                let value = stream_tree(value);
                documents += 1;
                if documents > MAX_DOCUMENTS {
                    return Streamed::Again;
                }
                if std::mem::take(&mut streamed_items) {
                    // The items went out already: this must be the List they belong to.
                    if items_replaced || !(value.is_seq() || is_list(&value)) {
                        return Streamed::Again;
                    }
                    continue;
                }
                for value in list_items(value) {
                    if !add(value, nulls, &mut out) {
                        return Streamed::Again;
                    }
                }
            }
        }
    }
}

/// How documents become typed objects.
trait Decoding {
    /// What documents are read into (cloned to read a DaemonSet twice: its registrars).
    type Tree: Clone;
    type Error: From<InputError>;
    fn decode<T: DeserializeOwned>(value: Self::Tree, doc: &DocRef) -> Result<T, Self::Error>;
}

/// Moving the strings out of the Values: nothing is copied, but errors have no field path.
/// Copying every label and annotation out of 5,000 kubectl nodes costs more than all the
/// rest of the decoding.
struct Moving;

/// With [`decode`], whose errors name the field.
struct WithPaths;

/// From the fast reader's tree, borrowing its strings: as [`Moving`], without Values (natively).
#[cfg(not(target_arch = "wasm32"))]
struct FromNodes<'a>(std::marker::PhantomData<&'a ()>);

enum Stop {
    Invalid(Box<InputError>),
    /// A document did not decode: decode everything again [`WithPaths`], which reports the
    /// first error exactly as before.
    Retry,
}

impl From<InputError> for Stop {
    fn from(e: InputError) -> Self {
        Stop::Invalid(Box::new(e))
    }
}

impl Decoding for Moving {
    type Tree = Value;
    type Error = Stop;
    #[cfg(not(target_arch = "wasm32"))]
    fn decode<T: DeserializeOwned>(value: Value, _: &DocRef) -> Result<T, Stop> {
        T::deserialize(value).map_err(|_| Stop::Retry)
    }
    // In the browser through the path-tracking decoder [`WithPaths`] uses: a second decoder
    // of every model type cost the page about 100 KB of code (of a 1 MiB gzip budget), and
    // tracking the path of the page's small inputs costs little. A failure still retries
    // (the same reading as natively, so the same first error).
    #[cfg(target_arch = "wasm32")]
    fn decode<T: DeserializeOwned>(value: Value, doc: &DocRef) -> Result<T, Stop> {
        decode(value, doc, "").map_err(|_| Stop::Retry)
    }
}

impl Decoding for WithPaths {
    type Tree = Value;
    type Error = InputError;
    fn decode<T: DeserializeOwned>(value: Value, doc: &DocRef) -> Result<T, InputError> {
        decode(value, doc, "")
    }
}

#[cfg(not(target_arch = "wasm32"))]
impl<'a> Decoding for FromNodes<'a> {
    type Tree = YamlNode<'a>;
    type Error = Stop;
    fn decode<T: DeserializeOwned>(value: YamlNode<'a>, _: &DocRef) -> Result<T, Stop> {
        T::deserialize(value).map_err(|_| Stop::Retry)
    }
}

// What the streamed reading admits and decodes: natively the reader's tree itself; in the
// browser a Value made from it, since decoding every model type from a second deserializer
// doubles those decoders in the page's wasm (72 KB gzip, over the page's 1 MiB budget), and
// the page's inputs are small.
#[cfg(not(target_arch = "wasm32"))]
type StreamTree<'a> = YamlNode<'a>;
#[cfg(not(target_arch = "wasm32"))]
type StreamDecoding<'a> = FromNodes<'a>;
#[cfg(not(target_arch = "wasm32"))]
fn stream_tree(node: YamlNode<'_>) -> StreamTree<'_> {
    node
}
#[cfg(target_arch = "wasm32")]
type StreamTree<'a> = Value;
#[cfg(target_arch = "wasm32")]
type StreamDecoding<'a> = Moving;
#[cfg(target_arch = "wasm32")]
fn stream_tree(node: YamlNode<'_>) -> StreamTree<'_> {
    node.into_value()
}

fn typed<D: Decoding<Tree = Value>>(docs: Vec<RawDocument>) -> Result<Manifests, D::Error> {
    // Sized up front: growing a large Vec while the decoded documents are being freed makes
    // glibc's allocator consolidate its free lists over and over.
    let nodes = docs.iter().filter(|d| d.doc.kind == "Node").count();
    let mut out = Manifests {
        nodes: Vec::with_capacity(nodes),
        workloads: Vec::with_capacity(docs.len() - nodes),
        services: Vec::new(),
        storage: Default::default(),
        scheduling: Default::default(),
        ignored: Vec::new(),
    };
    for raw in docs {
        add_typed::<D>(raw, &mut out)?;
    }
    Ok(out)
}

/// Decodes one document into `out`.
fn add_typed<D: Decoding>(raw: RawDocument<D::Tree>, out: &mut Manifests) -> Result<(), D::Error> {
    let RawDocument { doc, value, api_version } = raw;
    // kubectl validates every document it sends, whatever its kind, for these two fields.
    let fields: Vec<&'static str> = [("apiVersion", api_version.is_empty()), ("kind", doc.kind.is_empty())]
        .into_iter()
        .filter_map(|(f, missing)| missing.then_some(f))
        .collect();
    if !fields.is_empty() {
        return Err(InputError::NotSet { doc, fields }.into());
    }
    if doc.kind == "Node" {
        let node: Node = D::decode(value, &doc)?;
        out.nodes.push((doc, std::sync::Arc::new(node)));
        return Ok(());
    }
    if doc.kind == "Service" {
        let service: Service = D::decode(value, &doc)?;
        out.services.push((doc, service));
        return Ok(());
    }
    // The storage objects are read whatever their apiVersion says (`v1`, `storage.k8s.io/v1`):
    // the strict check names a wrong one.
    match doc.kind.as_str() {
        "PersistentVolumeClaim" => {
            let claim = D::decode(value, &doc)?;
            out.storage.claims.push((doc, claim));
            return Ok(());
        }
        "PersistentVolume" => {
            let volume = D::decode(value, &doc)?;
            out.storage.volumes.push((doc, volume));
            return Ok(());
        }
        "StorageClass" => {
            let class = D::decode(value, &doc)?;
            out.storage.classes.push((doc, class));
            return Ok(());
        }
        "CSINode" => {
            let csi_node = D::decode(value, &doc)?;
            out.storage.csi_nodes.push((doc, csi_node));
            return Ok(());
        }
        "CSIDriver" => {
            let driver = D::decode(value, &doc)?;
            out.storage.csi_drivers.push((doc, driver));
            return Ok(());
        }
        "CSIStorageCapacity" => {
            let capacity = D::decode(value, &doc)?;
            out.storage.capacities.push((doc, capacity));
            return Ok(());
        }
        "PriorityClass" => {
            let class = D::decode(value, &doc)?;
            out.scheduling.priority_classes.push((doc, class));
            return Ok(());
        }
        "PodDisruptionBudget" => {
            let budget = D::decode(value, &doc)?;
            out.scheduling.disruption_budgets.push((doc, budget));
            return Ok(());
        }
        _ => {}
    }
    let Some(kind) = WorkloadKind::parse(&doc.kind) else {
        out.ignored.push(doc);
        return Ok(());
    };
    let mut pod_status = PodStatus::default();
    let mut state = ControllerState::default();
    let (metadata, replicas, template, selector) = match kind {
        WorkloadKind::Pod => {
            let mut pod: Pod = D::decode(value, &doc)?;
            // Only the scheduler's own condition (`PodStatus::unschedulable`) and an unready
            // pod's `Ready` (the Eviction API lets some go past their budget) are read; a
            // running pod's four others are most of what a snapshot's 100,000 pods keep.
            if !pod.status.phase.is_empty() {
                pod.status
                    .conditions
                    .retain(|c| (c.type_ == "PodScheduled" || c.type_ == "Ready") && c.status == "False");
                pod.status.conditions.shrink_to_fit();
            }
            pod_status = pod.status;
            // The labels and annotations once, in the template, where everything that
            // schedules or matches the pod reads them; the object's own metadata keeps what
            // ownership and status read (uid, owners, timestamps, names).
            let metadata = ObjectMeta {
                labels: Default::default(),
                annotations: Default::default(),
                owner_references: pod.metadata.owner_references.clone(),
                name: pod.metadata.name.clone(),
                generate_name: pod.metadata.generate_name.clone(),
                namespace: pod.metadata.namespace.clone(),
                uid: pod.metadata.uid.clone(),
                creation_timestamp: pod.metadata.creation_timestamp.clone(),
                deletion_timestamp: pod.metadata.deletion_timestamp.clone(),
            };
            let template = PodTemplateSpec { metadata: pod.metadata, spec: pod.spec };
            (metadata, 1, template, None)
        }
        WorkloadKind::DaemonSet | WorkloadKind::Deployment | WorkloadKind::ReplicaSet | WorkloadKind::StatefulSet => {
            if kind == WorkloadKind::DaemonSet {
                // The registrar's arguments are read for DaemonSets only: the model's
                // containers do not keep `args` and `env` (a snapshot's 100,000 pods have them).
                let r: Envelope<RegistrarSpec, serde::de::IgnoredAny> = D::decode(value.clone(), &doc)?;
                let spec = r.spec.template.spec;
                state.csi_drivers = spec
                    .containers
                    .iter()
                    .chain(&spec.init_containers)
                    .filter_map(|c| crate::cluster::csi_node_plugins::registered_driver(&c.args, &c.env))
                    .collect();
            }
            let e: Envelope<ControllerSpec, serde::de::IgnoredAny> = D::decode(value, &doc)?;
            state.parallel = e.spec.pod_management_policy.as_deref() == Some("Parallel");
            if kind == WorkloadKind::StatefulSet {
                state.claim_templates = e.spec.volume_claim_templates;
            }
            (e.metadata, e.spec.replicas.unwrap_or(1), e.spec.template, e.spec.selector)
        }
        WorkloadKind::ReplicationController => {
            let e: Envelope<ReplicationControllerSpec> = D::decode(value, &doc)?;
            // The API server defaults an empty selector to the template's labels.
            let labels =
                e.spec.selector.filter(|s| !s.is_empty()).unwrap_or_else(|| e.spec.template.metadata.labels.clone());
            let selector = LabelSelector { match_labels: labels, ..Default::default() };
            (e.metadata, e.spec.replicas.unwrap_or(1), e.spec.template, Some(selector))
        }
        WorkloadKind::Job => {
            let e: Envelope<JobSpec> = D::decode(value, &doc)?;
            let n = job_pods(&e.spec);
            state = ControllerState {
                parallelism: e.spec.parallelism,
                completions: e.spec.completions,
                suspended: e.spec.suspend == Some(true),
                finished: e
                    .status
                    .conditions
                    .iter()
                    .any(|c| (c.type_ == "Complete" || c.type_ == "Failed") && c.status == "True"),
                parallel: false,
                claim_templates: Vec::new(),
                csi_drivers: Vec::new(),
            };
            (e.metadata, n, e.spec.template, e.spec.selector)
        }
        WorkloadKind::CronJob => {
            let e: Envelope<CronJobSpec, serde::de::IgnoredAny> = D::decode(value, &doc)?;
            let n = job_pods(&e.spec.job_template.spec);
            state.parallelism = e.spec.job_template.spec.parallelism;
            state.completions = e.spec.job_template.spec.completions;
            state.suspended = e.spec.suspend == Some(true);
            let spec = e.spec.job_template.spec;
            (e.metadata, n, spec.template, spec.selector)
        }
    };
    let replicas_field = match kind {
        WorkloadKind::Job => "spec.parallelism",
        WorkloadKind::CronJob => "spec.jobTemplate.spec.parallelism",
        _ => "spec.replicas",
    };
    if !(0..=MAX_REPLICAS).contains(&replicas) {
        return Err(InputError::Invalid {
            doc,
            error: FieldError::invalid(
                &crate::input::field::FieldPath::root(replicas_field),
                serde_json::json!(replicas),
                &format!("must be between 0 and {MAX_REPLICAS} (Placement's simulation limit)"),
            ),
        }
        .into());
    }
    out.workloads.push(std::sync::Arc::new(Workload {
        kind,
        api_version,
        namespace: metadata.namespace_or_default().to_string(),
        name: metadata.name.clone(),
        doc,
        replicas,
        template,
        selector,
        metadata,
        pod_status,
        state,
    }));
    Ok(())
}

/// Pods a Job runs at once: parallelism (default 1), capped by completions when set.
fn job_pods(spec: &JobSpec) -> i64 {
    let parallelism = spec.parallelism.unwrap_or(1);
    match spec.completions {
        Some(c) => parallelism.min(c),
        None => parallelism,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn document_markers_as_libyaml_ends_documents() {
        // (line, want)
        let rows = [
            ("---", Some(DocumentMarker::Start)),
            ("--- # next", Some(DocumentMarker::Start)),
            ("---\tx", Some(DocumentMarker::Start)),
            ("---\r", Some(DocumentMarker::Start)),
            ("--- !tag", Some(DocumentMarker::Start)),
            ("...", Some(DocumentMarker::End)),
            ("... # end", Some(DocumentMarker::End)),
            ("----", None),
            ("---x", None),
            ("....", None),
            (" ---", None),
            ("--", None),
            ("", None),
        ];
        for (line, want) in rows {
            assert_eq!(DocumentMarker::of(line), want, "{line:?}");
        }
    }

    #[test]
    fn reads_lists_and_multiple_documents() {
        let text = "apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\n---\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: c, image: nginx}]\n---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {selector: {app: web}}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n";
        let m = parse_manifests(text, "").unwrap();
        assert_eq!(m.nodes.len(), 2);
        assert_eq!(m.workloads[0].replicas, 3);
        assert_eq!(m.workloads[0].namespace, "default");
        assert_eq!(m.services[0].1.spec.selector.as_ref().map(|s| s["app"].as_str()), Some("web"));
        assert_eq!(m.ignored[0].kind, "ConfigMap");
    }

    /// kubectl's client-side validation refuses a document without `apiVersion` or `kind`,
    /// List items included: every such document is named, in kubectl's words.
    #[test]
    fn missing_api_version_or_kind_is_refused_in_kubectls_words() {
        let text = "kind: Deployment\nmetadata: {name: web, namespace: shop}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: ok}\n---\nmetadata: {name: x}\n---\napiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: b}\n---\napiVersion: v1\nmetadata: {name: y}\n";
        let errors: Vec<String> =
            parse_manifests_all(text, "f.yaml").unwrap_err().iter().map(ToString::to_string).collect();
        assert_eq!(
            errors,
            [
                "Deployment shop/web (f.yaml document 1): error validating data: apiVersion not set",
                "object x (f.yaml document 3): error validating data: [apiVersion not set, kind not set]",
                "Node b (f.yaml document 4): error validating data: apiVersion not set",
                "object y (f.yaml document 5): error validating data: kind not set",
            ]
        );
    }

    #[test]
    fn errors_name_document_field_and_value() {
        let text = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: defender, namespace: twistlock}\nspec:\n  selector: {matchLabels: {app: defender}}\n  template:\n    metadata: {labels: {app: defender}}\n    spec:\n      containers: [{name: c, resources: {requests: {cpu: lots}}}]\n";
        let err = parse_manifests(text, "ds.yaml").unwrap_err().to_string();
        assert!(err.contains("DaemonSet twistlock/defender"), "{err}");
        assert!(err.contains("spec.template.spec.containers[0].resources.requests.cpu"), "{err}");
        assert!(err.contains("\"lots\""), "{err}");
    }

    #[test]
    fn jobs_run_parallelism_capped_by_completions() {
        let text = "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec:\n  parallelism: 5\n  completions: 2\n  template: {spec: {containers: []}}\n";
        assert_eq!(parse_manifests(text, "").unwrap().workloads[0].replicas, 2);
    }

    #[test]
    fn alias_bomb_fails_fast() {
        let mut text = String::from("a: &a [\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\",\"x\"]\n");
        let mut prev = 'a';
        for c in 'b'..='j' {
            text.push_str(&format!(
                "{c}: &{c} [*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev},*{prev}]\n"
            ));
            prev = c;
        }
        assert!(split_documents(&text, "").is_err());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
        assert!(split_documents(&deep, "").is_err());
        let deep_yaml = format!("a: {}{}", "[".repeat(100_000), "]".repeat(100_000));
        let err = split_documents(&deep_yaml, "").unwrap_err().to_string();
        assert!(err.contains("nesting deeper than 128 levels at line 1 column 132"), "{err}");
    }

    #[test]
    fn quoted_brackets_do_not_count_as_nesting() {
        let text = format!("a: \"{}\"\nb: 'it''s {}'\nc: don't [1]\n", "[".repeat(500), "{".repeat(500));
        assert!(split_documents(&text, "").is_ok());
    }

    /// Everything parse_manifests returns, errors included, for comparing two ways of reading.
    /// `Reference` is the pipeline from before the fast reader: serde_yaml, then decoding by
    /// reference with field paths.
    fn outcome(text: &str, reader: YamlReader) -> String {
        let result = match reader {
            YamlReader::Fast(_) => manifests(text, "src", reader),
            YamlReader::SerdeYaml => parse_manifests_reference(text, "src"),
        };
        match result {
            Ok(m) => format!("{m:?}"),
            Err(e) => format!("error: {e} ({e:?})"),
        }
    }

    #[test]
    fn fast_reader_gives_the_same_manifests_as_serde_yaml() {
        let kubectl = crate::testing::bench_common::kubectl_get_nodes_yaml(30);
        assert!(block_yaml::read_stream(&kubectl, Prune::UnreadFields).is_some());
        assert!(matches!(streamed(&kubectl, "src", Prune::UnreadFields), Streamed::Done(_)));
        let not_a_list = "kind: Foo\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n";
        assert!(matches!(streamed(not_a_list, "", Prune::UnreadFields), Streamed::Again));
        let fast = outcome(&kubectl, YamlReader::Fast(Prune::UnreadFields));
        assert!(fast.starts_with("Manifests { nodes: [(DocRef { index: 1"), "{}", &fast[..200]);
        assert_eq!(fast, outcome(&kubectl, YamlReader::SerdeYaml));

        // The gallery's files; placement-playground checks the texts it derives from them
        // (the editors' halves, its synthetic cluster) through the public readers.
        let mut texts: Vec<String> = crate::testing::example_manifests().into_iter().map(|(_, text)| text).collect();
        let seeds = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fuzz/seeds");
        for entry in std::fs::read_dir(seeds).into_iter().flatten().flatten() {
            texts.extend(std::fs::read_to_string(entry.path()));
        }
        // Errors from the typed model, from serde_yaml, and from the guards.
        texts.extend(
            [
                "apiVersion: v1\nkind: Node\nmetadata: {name: n}\nstatus:\n  allocatable: {cpu: lots}\n  conditions: []\n",
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: n\n  managedFields: 3\nspec:\n  taints: x\n",
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {cpu: 1}}\n    ports: [{containerPort: x}]\n",
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 20000}\n",
                "a: [\n",
                "- 1\n- apiVersion: v1\n  kind: Node\n",
                "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: &x b\n",
                "---\n\n---\n---\nmetadata: {name: x}\n",
                "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: x}}}]}\n",
                "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\napiVersion: batch/v1\nkind: Job\nmetadata: {name: j}\nspec: {parallelism: -1}\n---\napiVersion: v1\nkind: Node\nspec: {unschedulable: 3}\n",
                "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: c}\nspec: {jobTemplate: {spec: {template: {spec: {nodeSelector: [1]}}}}}\n",
                // Duplicate keys: the last value, in the first one's place, in both readers
                // (input::strict reports them).
                "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec:\n  replicas: 3\n  selector: {matchLabels: {app: d}}\n  template: {metadata: {labels: {app: d}}, spec: {containers: []}}\n  replicas: 1\n",
                "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels: {x: '1', y: '2', x: '3'}\nmetadata: {name: b}\n",
                // ... and with nulls, which remove the key (and its earlier values) once merged.
                "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n    labels: {x: ~, y: '2', x: '3'}\n    annotations:\n      x: '1'\n      x: ~\n      y: '2'\n",
                // Streamed items: of a List after all or not, replaced, in a top-level
                // sequence, with errors, around other documents.
                "kind: Foo\nmetadata: {name: f}\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n",
                "items:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\nkind: NodeList\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n",
                "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: b}\n",
                "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\nitems: [{apiVersion: v1, kind: Node, metadata: {name: b}}]\n",
                "- kind: Node\n  metadata: {name: a}\n-\n- {}\n- apiVersion: v1\n  kind: Pod\n  metadata: {name: p}\n",
                "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- 3\n",
                "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Node\n  spec: {taints: 3}\n",
                "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a, labels: {x: ~}}\n  status: {capacity: {cpu: ~}}\n",
                "kind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata: {name: a}\n- apiVersion: v1\n  kind: Node\n  metadata: &x {name: b}\n",
                "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\nspec: {replicas: 20000}\n",
            ]
            .map(String::from),
        );
        for text in &texts {
            for prune in [Prune::UnreadFields, Prune::Nothing] {
                assert_eq!(outcome(text, YamlReader::Fast(prune)), outcome(text, YamlReader::SerdeYaml), "{text}");
            }
            let fast = split(text, "s", YamlReader::Fast(Prune::Nothing)).map(|d| format!("{d:?}"));
            let reference = split(text, "s", YamlReader::SerdeYaml).map(|d| format!("{d:?}"));
            assert_eq!(fast, reference, "{text}");
        }
    }

    #[test]
    fn document_limit_holds_on_the_fast_path() {
        let text = "---\na: 1\n".repeat(MAX_DOCUMENTS + 5);
        assert!(matches!(split_documents(&text, ""), Err(InputError::TooManyDocuments { .. })));
        let text = "---\n".repeat(MAX_DOCUMENTS + 5);
        assert!(matches!(split_documents(&text, ""), Err(InputError::TooManyDocuments { .. })));
    }

    #[test]
    fn fast_flow_nesting_check_agrees_with_the_exact_one() {
        let mut texts: Vec<String> = [
            "a: [[[",
            "a: '[[[' [[",
            "a: it's [[[ 'x''[[' [[",
            "a: \"\\\"[[\" [[",
            "# [[[\n[[",
            "a: b # [[[\n- [[",
            "a:\t'[[' [[",
            "a: x'[[' [[",
            "- \"[[\\\n[[\" [[",
            "'[[",
            "  \"[[",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        texts.push(crate::testing::bench_common::kubectl_get_nodes_yaml(3));
        let mut x = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..3000 {
            let mut t = String::new();
            for _ in 0..(x % 60) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                t.push_str(
                    ["[", "]", "{", "}", "'", "\"", "\\", "#", " ", "\n", ":", "-", ",", "a", "\t", "?"]
                        [(x % 16) as usize],
                );
            }
            texts.push(t);
        }
        for text in &texts {
            for limit in [0, 1, 2, 3, 5] {
                let exact = flow_nesting_beyond(text, limit).is_some();
                assert_eq!(flow_nesting_exceeds(text, limit), exact, "limit {limit}: {text:?}");
            }
        }
    }

    #[test]
    fn scalar_document_is_rejected() {
        let err = split_documents("just a string", "").unwrap_err().to_string();
        assert!(err.contains("expected a Kubernetes object"), "{err}");
    }

    /// A text read document by document, the cache carried from edit to edit, reads as the
    /// whole text reads: the same manifests (document indices included) or the same errors.
    #[test]
    fn a_text_read_document_by_document_reads_as_the_whole() {
        use crate::testing::Rng;
        // Lines an edit puts in: document markers in every form, directives, comments, a
        // List, a quoted scalar left open, a byte-order mark, a document of its own.
        const LINES: [&str; 16] = [
            "---\n",
            "--- # c\n",
            "---\t\n",
            "...\n",
            "%YAML 1.2\n",
            "# comment\n",
            "\n",
            "\u{feff}",
            "  note: \"open\n",
            "---\napiVersion: v1\nkind: Node\nmetadata: {name: extra}\n",
            "---\napiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: Node, metadata: {name: li}}\n",
            "---\n# only a comment\n",
            "--- {apiVersion: v1, kind: Service, metadata: {name: inline}}\n",
            "---\nkind: ConfigMap\napiVersion: v1\nmetadata: {name: cm}\n",
            "      - key: extra\n",
            "---\r\n",
        ];
        let mut rng = Rng(0x5eed_d0c5);
        let mut texts: Vec<String> = crate::testing::example_manifests().into_iter().map(|(_, t)| t).collect();
        texts.push(node_documents(40));
        let (mut read, mut agreed) = (0, 0);
        for base in texts {
            let mut cache = DocumentCache::default();
            let mut text = base.clone();
            for step in 0..60 {
                let lines: Vec<&str> = text.split_inclusive('\n').collect();
                let at = rng.below(lines.len() + 1);
                let mut next: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
                match rng.below(5) {
                    0 => next.insert(at, rng.pick(&LINES).to_string()),
                    1 if at < next.len() => {
                        next.remove(at);
                    }
                    // A keystroke: one digit or letter of a line changed.
                    2 | 3 if at < next.len() => {
                        let line = &mut next[at];
                        if let Some(k) = line.find(|c: char| c.is_ascii_alphanumeric()) {
                            let c = if line.as_bytes()[k].is_ascii_digit() { "7" } else { "q" };
                            line.replace_range(k..k + 1, c);
                        }
                    }
                    // Back to the base now and then, so most texts read.
                    _ => next = base.split_inclusive('\n').map(str::to_string).collect(),
                }
                text = next.concat();
                let cached = parse_manifests_cached(&text, "f.yaml", &mut cache);
                let whole = parse_manifests_all(&text, "f.yaml");
                assert_eq!(format!("{cached:?}"), format!("{whole:?}"), "step {step} of:\n{text}");
                read += 1;
                agreed += usize::from(whole.is_ok());
            }
        }
        // Not only errors, which are read whole anyway.
        assert!(agreed * 3 > read, "{agreed} of {read} texts read");
    }

    /// `n` Node documents, as the playground's nodes editor holds them.
    fn node_documents(n: usize) -> String {
        (0..n)
            .map(|i| format!("apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i:04}\n  labels: {{pool: p{}}}\nstatus:\n  allocatable: {{cpu: '8', memory: 32Gi, pods: '110'}}\n", i % 4))
            .collect::<Vec<_>>()
            .join("---\n")
    }

    #[test]
    fn a_cached_reading_reads_only_the_edited_document() {
        let text = node_documents(5);
        let mut cache = DocumentCache::default();
        let first = parse_manifests_cached(&text, "nodes", &mut cache).unwrap();
        assert_eq!(first.nodes.len(), 5);
        assert_eq!(cache.read.len(), document_texts(&text).unwrap().len());
        // The same Node objects (not read again) but for the edited one.
        let edited = text.replacen("node-0002", "node-0002x", 1);
        let second = parse_manifests_cached(&edited, "nodes", &mut cache).unwrap();
        let same: Vec<bool> =
            first.nodes.iter().zip(&second.nodes).map(|((_, a), (_, b))| std::sync::Arc::ptr_eq(a, b)).collect();
        assert_eq!(same.iter().filter(|s| !**s).count(), 1, "{same:?}");
        assert_eq!(second.nodes.iter().map(|(d, _)| d.index).collect::<Vec<_>>(), (1..=5).collect::<Vec<_>>());
    }
}
