//! Admission policies over the core, in Kubewarden's wire format: the logic of the
//! `placement-policy` waPC module, with no IO so that it is tested natively and runs unchanged
//! in wasm32.
//!
//! - [`validate`] answers Kubewarden's `validate` call: a [`request::ValidationRequest`] in,
//!   a [`response::ValidationResponse`] out.
//! - [`validate_settings`] answers `validate_settings`.
//!
//! Both are total: any input, however malformed, gives a response, never a panic (the module
//! is built with `panic = "abort"`, where a panic would trap the instance). The crate is
//! linted against `unwrap`, `expect`, indexing and explicit panics (see `lib.rs`), and a
//! garbage-payload test feeds it random bytes and mangled requests.
//!
//! Five policies, each active when its settings key is present ([`settings`]):
//! [`disallowed_tolerations`], [`required_placement`], [`schedulable`], the mutating
//! [`daemonset_coverage`], and [`gatekeeper`] (ConstraintTemplates and Constraints). The
//! mutation runs first; the validating policies then check the object as mutated, so a
//! DaemonSet that the mutation fixes is not also rejected for the problem the mutation fixed.
//! A request is rejected when any policy rejects it: the placement policies' findings on one
//! line, then each Gatekeeper denial on its own line (`[constraint-name] message`, as
//! Gatekeeper's webhook joins them).
//!
//! The `gatekeeper` policy needs the `admission-gatekeeper` feature (on by default): it links
//! the Rego interpreter. Without it, a `gatekeeper` setting is a settings error
//! ([`settings::NO_GATEKEEPER`]), which is how the lean policy module
//! (`placement-policy-lean.wasm`) stays small.

pub mod daemonset_coverage;
pub mod disallowed_tolerations;
#[cfg(feature = "admission-gatekeeper")]
pub mod gatekeeper;
pub mod host;
pub mod request;
pub mod required_placement;
pub mod response;
pub mod schedulable;
pub mod settings;
pub mod workload;

use std::borrow::Cow;
use std::collections::BTreeMap;

use host::{HostCapabilities, NoHostCapabilities};
use request::{AdmissionRequest, ValidationRequest};
use response::{SettingsValidationResponse, ValidationResponse};
use settings::{Mode, Settings};
use workload::Target;

/// The waPC protocol version the module speaks, answered to `protocol_version` as JSON.
pub const PROTOCOL_VERSION: &str = "v1";

/// `protocol_version`'s answer: the JSON string `"v1"`.
pub fn protocol_version() -> Vec<u8> {
    format!("\"{PROTOCOL_VERSION}\"").into_bytes()
}

/// Kubewarden's `validate`: `payload` is `{"request": <AdmissionRequest>, "settings": {...}}`.
///
/// Stateless: reads the settings on every call. [`Validator`] gives the same answers and
/// keeps the compiled settings between calls, as the wasm module does.
pub fn validate(payload: &[u8]) -> ValidationResponse {
    validate_with(payload, &NoHostCapabilities)
}

/// [`validate`] with a host that answers Kubewarden's host capabilities calls, for
/// `inventory: cluster`.
/// `host` also answers `gatekeeper.inventory`'s listings. A resource both need (Nodes) is
/// listed once per request ([`host::Memo`]).
pub fn validate_with(payload: &[u8], host: &dyn HostCapabilities) -> ValidationResponse {
    let host = host::Memo::new(host);
    let req: ValidationRequest = match serde_json::from_slice(payload) {
        Ok(r) => r,
        Err(e) => return invalid_request(&e),
    };
    match Settings::for_requests(&req.settings) {
        Ok(s) if s.needs_cluster_nodes() && needs_inventory(&req.request) => {
            review_with_cluster_nodes(req.request, &s, &host)
        }
        Ok(s) => review_owned(req.request, &s, &host),
        Err(e) => invalid_settings(&e),
    }
}

/// Whether the placement policies look at this request (a workload created or updated), so
/// that `inventory: cluster` lists the Nodes only then.
fn needs_inventory(request: &AdmissionRequest) -> bool {
    let kind = if request.kind.kind.is_empty() {
        request.object.get("kind").and_then(serde_json::Value::as_str)
    } else {
        Some(request.kind.kind.as_str())
    };
    !matches!(request.operation.as_str(), "DELETE" | "CONNECT")
        && kind.and_then(crate::input::documents::WorkloadKind::parse).is_some()
}

/// `inventory: cluster`: list the cluster's Nodes through the host, then review over them
/// (the settings' other parts as they were read, Gatekeeper's compiled templates included).
fn review_with_cluster_nodes(
    request: AdmissionRequest,
    settings: &Settings,
    host: &dyn HostCapabilities,
) -> ValidationResponse {
    let nodes = match host::list_nodes(host) {
        Ok(n) => n,
        Err(e) => {
            return ValidationResponse::error(
                500,
                format!("placement policy: inventory: cluster: cannot list the cluster's Nodes (kubewarden/kubernetes/list_resources_all v1 Node): {e}"),
            )
        }
    };
    match settings.with_listed_nodes(nodes) {
        Ok(s) => review_owned(request, &s, host),
        Err(e) => invalid_settings(&e),
    }
}

fn invalid_request(e: &serde_json::Error) -> ValidationResponse {
    ValidationResponse::error(400, format!("placement policy: invalid ValidationRequest: {e}"))
}

fn invalid_settings(e: &settings::SettingsError) -> ValidationResponse {
    ValidationResponse::error(500, format!("placement policy: invalid settings: {e}"))
}

/// `validate` with the compiled settings kept between calls.
///
/// Kubewarden sends the policy's settings with every request; with a node inventory in them,
/// reading and checking the settings costs more than the policies. The validator keeps the
/// last settings it compiled, keyed by their exact JSON text, and reuses them while the text
/// is unchanged. Answers are identical to [`validate`]'s.
#[derive(Debug, Default)]
pub struct Validator {
    cached: Option<CachedSettings>,
}

/// The settings of the last request: their text (`text[span]`) and what it read as.
#[derive(Debug)]
struct CachedSettings {
    /// The settings' text, or the whole payload they came in when the caller handed it over
    /// ([`Validator::validate_payload_with`]): a fresh policy instance then keeps its one
    /// payload instead of copying the settings (100 kB with a 1,000-node inventory: new
    /// pages, faulted in, for a cache that instance never uses).
    text: Vec<u8>,
    span: std::ops::Range<usize>,
    read: Result<Settings, settings::SettingsError>,
}

impl CachedSettings {
    fn settings_text(&self) -> &[u8] {
        self.text.get(self.span.clone()).unwrap_or_default()
    }
}

impl Validator {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn validate(&mut self, payload: &[u8]) -> ValidationResponse {
        self.validate_with(payload, &NoHostCapabilities)
    }

    /// Reads `settings` (the exact JSON text requests will carry in their `"settings"`
    /// member) into the cache, every Gatekeeper template compiled: a module whose memory is
    /// snapshotted after this call (a pre-initialized module) answers requests with these
    /// settings without reading them again. Requests with any other settings text take the
    /// usual path, so the answers never differ. An error is the settings' own, as
    /// [`validate_settings`] reports it; nothing is cached then.
    ///
    /// ```
    /// use placement_core::admission::Validator;
    ///
    /// let mut v = Validator::new();
    /// v.preinitialize(br#"{"disallowedTolerations":{"effects":["NoExecute"]}}"#).unwrap();
    /// assert!(v.preinitialize(b"[1]").is_err());
    /// ```
    pub fn preinitialize(&mut self, settings: &[u8]) -> Result<(), String> {
        match Settings::preinitialized_from_slice(settings) {
            Some(Ok(read)) => {
                self.cached = Some(CachedSettings { text: settings.to_vec(), span: 0..settings.len(), read: Ok(read) });
                Ok(())
            }
            Some(Err(e)) => Err(format!("invalid settings: {e}")),
            None => Err("invalid settings: not JSON".into()),
        }
    }

    /// [`Validator::validate`] with a host for `inventory: cluster` and `gatekeeper.inventory`
    /// (the resources are listed on every request that needs them, never cached).
    pub fn validate_with(&mut self, payload: &[u8], host: &dyn HostCapabilities) -> ValidationResponse {
        self.validate_payload_with(Cow::Borrowed(payload), host)
    }

    /// [`Validator::validate_with`], keeping an owned payload as the settings' cache when
    /// they are new, rather than a copy of them.
    pub fn validate_payload_with(&mut self, payload: Cow<'_, [u8]>, host: &dyn HostCapabilities) -> ValidationResponse {
        let validate = |payload: &[u8]| validate_with(payload, host);
        let memo = host::Memo::new(host);
        // Split the payload into its members without parsing them; anything unusual (not an
        // object, escaped or repeated keys, a member that is not valid JSON) takes the plain
        // path, so that every answer, errors included, is the plain path's. The settings, often
        // most of the payload, are compared with the cached ones rather than scanned.
        let known = self.cached.as_ref().map(CachedSettings::settings_text);
        let Some((members, known_matched)) = top_level_members_with(&payload, known) else {
            return validate(&payload);
        };
        let (mut request, mut settings) = (None, None);
        for (key, value) in members {
            match key {
                b"request" => request = Some(value),
                b"settings" => settings = Some(value),
                _ => {
                    if serde_json::from_slice::<serde::de::IgnoredAny>(value).is_err() {
                        return validate(&payload);
                    }
                }
            }
        }
        let (Some(request), Some(settings)) = (request, settings) else { return validate(&payload) };
        let request: AdmissionRequest = match serde_json::from_slice(request) {
            Ok(r) => r,
            Err(_) => return validate(&payload),
        };
        let hit = known_matched || self.cached.as_ref().is_some_and(|c| same_bytes(c.settings_text(), settings));
        let cached: &CachedSettings = if hit {
            match &self.cached {
                Some(c) => c,
                None => return validate(&payload),
            }
        } else {
            // Straight from the text into typed settings (the inventory's strings in place):
            // the whole cost of a fresh instance's first request, so no intermediate value.
            let Some(read) = Settings::for_requests_from_slice(settings) else {
                return validate(&payload);
            };
            // Where the settings are in the payload, to keep an owned payload as it is.
            let start = (settings.as_ptr() as usize).saturating_sub(payload.as_ptr() as usize);
            let span = start..start + settings.len();
            let copy = matches!(payload, Cow::Borrowed(_)).then(|| settings.to_vec());
            self.cached.insert(match (payload, copy) {
                (Cow::Owned(text), _) => CachedSettings { text, span, read },
                (Cow::Borrowed(_), copy) => {
                    let text = copy.unwrap_or_default();
                    CachedSettings { span: 0..text.len(), text, read }
                }
            })
        };
        match &cached.read {
            Ok(s) if s.needs_cluster_nodes() && needs_inventory(&request) => {
                review_with_cluster_nodes(request, s, &memo)
            }
            Ok(s) => review_owned(request, s, &memo),
            Err(e) => invalid_settings(e),
        }
    }
}

/// The value of the top-level `"settings"` member (see [`top_level_members`]).
pub fn settings_span(payload: &[u8]) -> Option<&[u8]> {
    top_level_members(payload)?.into_iter().find(|(k, _)| *k == b"settings").map(|(_, v)| v)
}

/// The members of a top-level JSON object as (key, value bytes), found by a scanner that
/// skips values without parsing them (strings, brackets and escapes only). `None` when the
/// payload is not an object, a key repeats or has an escape or a control character, or
/// anything but whitespace follows the object. Values are not checked: callers parse them.
pub fn top_level_members(payload: &[u8]) -> Option<Vec<(&[u8], &[u8])>> {
    top_level_members_with(payload, None).map(|(m, _)| m)
}

/// [`top_level_members`], taking the `"settings"` value to be `known` without scanning it when
/// the payload has exactly those bytes there, followed by a delimiter. `known` must be a
/// complete JSON value (it was parsed before): a complete value is never a proper prefix of
/// another one that ends at a delimiter, so the member's extent is the same as a scan's.
/// The flag says whether the settings were `known`.
#[allow(clippy::type_complexity)]
fn top_level_members_with<'a>(payload: &'a [u8], known: Option<&[u8]>) -> Option<(Vec<(&'a [u8], &'a [u8])>, bool)> {
    let mut i = skip_ws(payload, 0);
    if payload.get(i) != Some(&b'{') {
        return None;
    }
    i += 1;
    let mut out: Vec<(&[u8], &[u8])> = Vec::new();
    let mut matched = false;
    loop {
        i = skip_ws(payload, i);
        match payload.get(i)? {
            b'}' if out.is_empty() => break,
            b'"' => {}
            _ => return None,
        }
        let key_end = skip_string(payload, i)?;
        let key = payload.get(i + 1..key_end.checked_sub(1)?)?;
        if key.iter().any(|c| *c == b'\\' || *c < 0x20) || std::str::from_utf8(key).is_err() {
            return None;
        }
        if out.iter().any(|(k, _)| *k == key) {
            return None;
        }
        i = skip_ws(payload, key_end);
        if payload.get(i) != Some(&b':') {
            return None;
        }
        let start = skip_ws(payload, i + 1);
        let end = match known {
            Some(k)
                if key == b"settings"
                    && !k.is_empty()
                    && payload.get(start..start + k.len()).is_some_and(|p| same_bytes(p, k))
                    && payload
                        .get(start + k.len())
                        .is_some_and(|c| matches!(c, b',' | b'}' | b' ' | b'\t' | b'\n' | b'\r')) =>
            {
                matched = true;
                start + k.len()
            }
            _ => skip_value(payload, start)?,
        };
        out.push((key, payload.get(start..end)?));
        i = skip_ws(payload, end);
        match payload.get(i)? {
            b',' => i += 1,
            b'}' => break,
            _ => return None,
        }
    }
    (skip_ws(payload, i + 1) == payload.len()).then_some((out, matched))
}

/// `a == b`, eight bytes at a time: in wasm32 the slice comparison is a byte loop, and the
/// settings (with a 1,000-node inventory, 100 kB) are compared on every call.
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let tails_equal = ca.remainder() == cb.remainder();
    tails_equal
        && ca.zip(cb).all(|(x, y)| {
            let word = |c: &[u8]| c.try_into().map(u64::from_ne_bytes).unwrap_or_default();
            word(x) == word(y)
        })
}

/// Whether JSON text `b` is an object (its first byte past whitespace is `{`): serde's
/// derived structs also read a sequence of their fields, which a payload, a settings document
/// or a List never is.
pub(crate) fn starts_an_object(b: &[u8]) -> bool {
    b.get(skip_ws(b, 0)) == Some(&b'{')
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

/// From an opening quote to just past the closing one.
fn skip_string(b: &[u8], start: usize) -> Option<usize> {
    let mut i = start + 1;
    loop {
        // Jump to the next quote or backslash.
        i += quote_or_backslash(b.get(i..)?)?;
        match b.get(i)? {
            b'"' => return Some(i + 1),
            _ => i += 2,
        }
    }
}

/// The position of the first `"` or `\\` in `b`, eight bytes at a time (the settings'
/// strings, a node inventory's, are most of a payload, and a fresh instance scans them on
/// every request; wasm32 has no vectorised search to fall back on).
fn quote_or_backslash(b: &[u8]) -> Option<usize> {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGHS: u64 = u64::from_ne_bytes([0x80; 8]);
    // A byte of `x` is zero where the word's byte equals the pattern's, and then (and only
    // then, for the lowest such byte) the classic test sets its high bit.
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
    let mut chunks = b.chunks_exact(8);
    let mut at = 0;
    for chunk in &mut chunks {
        let word = chunk.try_into().map(u64::from_ne_bytes).unwrap_or_default();
        if has_zero(word ^ u64::from_ne_bytes([b'"'; 8])) | has_zero(word ^ u64::from_ne_bytes([b'\\'; 8])) != 0 {
            // Some byte here matches: find the first one exactly.
            return chunk.iter().position(|c| *c == b'"' || *c == b'\\').map(|p| at + p);
        }
        at += 8;
    }
    chunks.remainder().iter().position(|c| *c == b'"' || *c == b'\\').map(|p| at + p)
}

/// Past one JSON value starting at `start` (iteratively: no recursion on nesting).
fn skip_value(b: &[u8], start: usize) -> Option<usize> {
    match b.get(start)? {
        b'"' => skip_string(b, start),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = start;
            loop {
                // Jump to the next character that matters.
                i += b.get(i..)?.iter().position(|c| matches!(c, b'"' | b'{' | b'[' | b'}' | b']'))?;
                match b.get(i)? {
                    b'"' => {
                        i = skip_string(b, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    _ => {
                        depth = depth.checked_sub(1)?;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                }
                i += 1;
            }
        }
        _ => {
            let mut i = start;
            while b.get(i).is_some_and(|c| !matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r')) {
                i += 1;
            }
            (i > start).then_some(i)
        }
    }
}

/// Kubewarden's `validate_settings`: `payload` is the settings JSON.
pub fn validate_settings(payload: &[u8]) -> SettingsValidationResponse {
    let value: serde_json::Value = if payload.iter().all(u8::is_ascii_whitespace) {
        serde_json::Value::Null
    } else {
        match serde_json::from_slice(payload) {
            Ok(v) => v,
            Err(e) => return SettingsValidationResponse::invalid(format!("settings are not valid JSON: {e}")),
        }
    };
    match Settings::from_value(&value) {
        Ok(_) => SettingsValidationResponse::valid(),
        Err(e) => SettingsValidationResponse::invalid(e.to_string()),
    }
}

/// Runs the active policies on one request (with no host: `gatekeeper.inventory` fails).
pub fn review(request: &AdmissionRequest, settings: &Settings) -> ValidationResponse {
    review_owned(request.clone(), settings, &NoHostCapabilities)
}

fn review_owned(request: AdmissionRequest, settings: &Settings, host: &dyn HostCapabilities) -> ValidationResponse {
    #[cfg(not(feature = "admission-gatekeeper"))]
    let _ = host; // only Gatekeeper's `data.inventory` lists resources here
                  // Gatekeeper reviews the request as received (any kind, DELETE included); the placement
                  // policies only workloads being created or updated.
    #[cfg(feature = "admission-gatekeeper")]
    let mut review = settings.gatekeeper.as_ref().map(|_| request.review());
    let placement = !matches!(request.operation.as_str(), "DELETE" | "CONNECT");
    let target = if placement { Target::from_owned_request(request) } else { None };
    #[cfg_attr(not(feature = "admission-gatekeeper"), allow(unused_mut))]
    let (mut findings, target, mutated) = match target {
        None => (Findings::default(), None, false),
        Some(Err(e)) => return ValidationResponse::error(400, format!("placement policy: {e}")),
        Some(Ok(t)) => {
            let (findings, target, mutated) = placement_findings(t, settings);
            (findings, Some(target), mutated)
        }
    };
    #[cfg(feature = "admission-gatekeeper")]
    if let (Some(policy), Some(review)) = (&settings.gatekeeper, review.as_mut()) {
        // Gatekeeper sees the object as it will be stored, after the mutation.
        if let (true, Some(t), Some(obj)) = (mutated, &target, review.as_object_mut()) {
            obj.insert("object".into(), t.object.clone());
        }
        if review.get("object").is_some_and(serde_json::Value::is_object) {
            let inventory = match policy.cluster_inventory_for(review, host) {
                Ok(i) => i,
                Err(e) => {
                    return ValidationResponse::error(500, format!("placement policy: gatekeeper.inventory: {e}"))
                }
            };
            match policy.check(review, &inventory) {
                Ok(verdict) => findings.gatekeeper(verdict),
                Err(gatekeeper::CheckError::Settings(e)) => return invalid_settings(&e),
                Err(gatekeeper::CheckError::Gatekeeper(e)) => {
                    return ValidationResponse::error(500, format!("placement policy: gatekeeper: {e}"))
                }
            }
        }
    }
    match target {
        Some(t) => findings.into_response(&t.describe(), mutated.then_some(t.object)),
        None => findings.into_response("", None),
    }
}

/// The placement policies on a workload: findings, the (possibly mutated) target, and
/// whether it was mutated.
fn placement_findings(mut target: Target, settings: &Settings) -> (Findings, Target, bool) {
    let mut findings = Findings::default();

    // 1. The mutation, so that the checks below see the object as it will be stored.
    let mut mutated = false;
    if let Some(p) = settings.daemonset_coverage.as_ref().filter(|p| p.selects(&target)) {
        match p.coverage(&target, settings) {
            Err(e) => findings.add(daemonset_coverage::NAME, p.mode, format!("cannot read the pod template: {e}")),
            Ok(cov) if cov.add.is_empty() => {}
            Ok(cov) => match p.mode {
                Mode::Enforce if !p.mutate => findings.add(
                    daemonset_coverage::NAME,
                    Mode::Enforce,
                    format!(
                        "skips nodes of {}: tolerations needed in {}.tolerations for {}; daemonsetCoverage.mutate is false, so add them yourself: kubectl patch daemonset {} -n {} --type json -p '{}'",
                        p.pools,
                        target.spec_path(),
                        cov.reasons.join(", "),
                        target.name,
                        target.namespace,
                        target.tolerations_patch(&cov.add)
                    ),
                ),
                Mode::Enforce => {
                    target.add_tolerations(&cov.add);
                    mutated = true;
                    findings.note(
                        daemonset_coverage::NAME,
                        format!(
                            "{}: added tolerations to {}.tolerations so that it runs on {}: {}",
                            target.describe(),
                            target.spec_path(),
                            p.pools,
                            cov.reasons.join(", ")
                        ),
                    );
                }
                Mode::Warn => findings.add(
                    daemonset_coverage::NAME,
                    Mode::Warn,
                    format!(
                        "skips nodes of {}: tolerations needed in {}.tolerations for {}; add {}",
                        p.pools,
                        target.spec_path(),
                        cov.reasons.join(", "),
                        serde_json::to_string(&cov.add).unwrap_or_default()
                    ),
                ),
            },
        }
    }

    // 2. The validating policies.
    if let Some(p) = &settings.disallowed_tolerations {
        for m in p.check(&target) {
            findings.add(disallowed_tolerations::NAME, p.mode, m);
        }
    }
    if let Some(p) = &settings.required_placement {
        for m in p.check(&target) {
            findings.add(required_placement::NAME, p.mode, m);
        }
    }
    if let Some(p) = &settings.schedulable {
        let outcome = p.check(&target, settings);
        for m in outcome.violations {
            findings.add(schedulable::NAME, p.mode, m);
        }
        for m in outcome.notes {
            findings.note(schedulable::NAME, format!("{}: {m}", target.describe()));
        }
    }
    (findings, target, mutated)
}

/// What the policies found, sorted into rejections and warnings.
#[derive(Debug, Default)]
struct Findings {
    rejections: Vec<(&'static str, String)>,
    warnings: Vec<String>,
    audit: BTreeMap<String, Vec<String>>,
    /// Gatekeeper's deny and warn messages, `[constraint-name] message`, kept apart so that
    /// they read exactly as Gatekeeper's.
    gatekeeper_denials: Vec<String>,
    gatekeeper_warnings: Vec<String>,
}

impl Findings {
    fn add(&mut self, policy: &'static str, mode: Mode, message: String) {
        self.audit.entry(audit_key(policy)).or_default().push(message.clone());
        match mode {
            Mode::Enforce => self.rejections.push((policy, message)),
            Mode::Warn => self.warnings.push(format!("{policy} (warn mode): {message}")),
        }
    }

    /// Information for the user (kubectl shows warnings), not a violation.
    fn note(&mut self, policy: &'static str, message: String) {
        self.warnings.push(format!("{policy}: {message}"));
    }

    /// Gatekeeper's verdict: deny and warn messages as its webhook words them; every
    /// violation in the audit annotations (`gatekeeper`, and `gatekeeper-dryrun` for dryrun).
    #[cfg(feature = "admission-gatekeeper")]
    fn gatekeeper(&mut self, verdict: gatekeeper::Verdict) {
        let audited: Vec<String> = verdict.deny.iter().chain(&verdict.warn).cloned().collect();
        if !audited.is_empty() {
            self.audit.entry(gatekeeper::NAME.to_string()).or_default().extend(audited);
        }
        if !verdict.dryrun.is_empty() {
            self.audit.entry(format!("{}-dryrun", gatekeeper::NAME)).or_default().extend(verdict.dryrun);
        }
        self.gatekeeper_denials.extend(verdict.deny);
        self.gatekeeper_warnings.extend(verdict.warn);
    }

    /// `describe` names the workload (empty for an object the placement policies skip);
    /// `mutated` is the mutated object, if any.
    fn into_response(self, describe: &str, mutated: Option<serde_json::Value>) -> ValidationResponse {
        let audit_annotations = if self.audit.is_empty() {
            None
        } else {
            Some(self.audit.into_iter().map(|(k, v)| (k, v.join("; "))).collect())
        };
        if !self.rejections.is_empty() || !self.gatekeeper_denials.is_empty() {
            // Placement's rejections first, then Gatekeeper's lines, joined by newlines as
            // Gatekeeper joins its own.
            let mut lines = Vec::new();
            if !self.rejections.is_empty() {
                let parts: Vec<String> = self.rejections.iter().map(|(p, m)| format!("{p}: {m}")).collect();
                lines.push(format!("{describe}: {}", parts.join("; ")));
            }
            lines.extend(self.gatekeeper_denials);
            // The mutation is not applied to a rejected object: drop its notes.
            let warnings: Vec<String> = self
                .warnings
                .into_iter()
                .filter(|w| !w.starts_with(daemonset_coverage::NAME))
                .chain(self.gatekeeper_warnings)
                .collect();
            return ValidationResponse {
                accepted: false,
                message: Some(lines.join("\n")),
                warnings: (!warnings.is_empty()).then_some(warnings),
                audit_annotations,
                ..Default::default()
            };
        }
        let warnings = self
            .warnings
            .into_iter()
            .map(|w| if w.contains(describe) { w } else { format!("{describe}: {w}") })
            .chain(self.gatekeeper_warnings)
            .collect::<Vec<_>>();
        ValidationResponse {
            accepted: true,
            mutated_object: mutated,
            warnings: (!warnings.is_empty()).then_some(warnings),
            audit_annotations,
            ..Default::default()
        }
    }
}

/// `disallowedTolerations` -> `disallowed-tolerations`: audit annotation keys must be valid
/// label-like names.
fn audit_key(policy: &str) -> String {
    let mut out = String::with_capacity(policy.len() + 4);
    for c in policy.chars() {
        if c.is_ascii_uppercase() {
            out.push('-');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests;
