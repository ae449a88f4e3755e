//! Admission policies over the core, in Kubewarden's wire format: the logic of the
//! `placement-policy` waPC module, with no IO so that it is tested natively and runs unchanged
//! in wasm32.
//!
//! - [`validate`] answers Kubewarden's `validate` call: a [`request::ValidationRequest`] in,
//!   a [`response::ValidationResponse`] out.
//! - [`validate_settings`] answers `validate_settings`.
//!
//! Both are total: any input, however malformed, gives a response, never a panic (the module
//! is built with `panic = "abort"`, where a panic would trap the instance). The code under
//! this module is linted against `unwrap`, `expect`, indexing and explicit panics, and a
//! garbage-payload test feeds it random bytes and mangled requests.
//!
//! Four policies, each active when its settings key is present ([`settings`]):
//! [`disallowed_tolerations`], [`required_placement`], [`schedulable`] and the mutating
//! [`daemonset_coverage`]. The mutation runs first; the validating policies then check the
//! object as mutated, so a DaemonSet that the mutation fixes is not also rejected for the
//! problem the mutation fixed.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

pub mod daemonset_coverage;
pub mod disallowed_tolerations;
pub mod request;
pub mod required_placement;
pub mod response;
pub mod schedulable;
pub mod settings;
pub mod workload;

use std::collections::BTreeMap;

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
pub fn validate(payload: &[u8]) -> ValidationResponse {
    let req: ValidationRequest = match serde_json::from_slice(payload) {
        Ok(r) => r,
        Err(e) => return ValidationResponse::error(400, format!("placement policy: invalid ValidationRequest: {e}")),
    };
    let settings = match Settings::from_value(&req.settings) {
        Ok(s) => s,
        Err(e) => return ValidationResponse::error(500, format!("placement policy: invalid settings: {e}")),
    };
    evaluate(&req.request, &settings)
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

/// Runs the active policies on one request.
pub fn evaluate(request: &AdmissionRequest, settings: &Settings) -> ValidationResponse {
    if matches!(request.operation.as_str(), "DELETE" | "CONNECT") {
        return ValidationResponse::accept();
    }
    let mut target = match Target::from_request(request) {
        None => return ValidationResponse::accept(),
        Some(Err(e)) => return ValidationResponse::error(400, format!("placement policy: {e}")),
        Some(Ok(t)) => t,
    };
    let mut findings = Findings::default();

    // 1. The mutation, so that the checks below see the object as it will be stored.
    let mut mutated = false;
    if let Some(p) = settings.daemonset_coverage.as_ref().filter(|p| p.selects(&target)) {
        match p.coverage(&target, settings) {
            Err(e) => findings.add(daemonset_coverage::NAME, p.mode, format!("cannot read the pod template: {e}")),
            Ok(cov) if cov.add.is_empty() => {}
            Ok(cov) => match p.mode {
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
    findings.into_response(&target, mutated)
}

/// What the policies found, sorted into rejections and warnings.
#[derive(Debug, Default)]
struct Findings {
    rejections: Vec<(&'static str, String)>,
    warnings: Vec<String>,
    audit: BTreeMap<String, Vec<String>>,
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

    fn into_response(self, target: &Target, mutated: bool) -> ValidationResponse {
        let audit_annotations = if self.audit.is_empty() {
            None
        } else {
            Some(self.audit.into_iter().map(|(k, v)| (k, v.join("; "))).collect())
        };
        if !self.rejections.is_empty() {
            let parts: Vec<String> = self.rejections.iter().map(|(p, m)| format!("{p}: {m}")).collect();
            let warnings: Vec<String> =
                self.warnings.into_iter().filter(|w| !w.starts_with(daemonset_coverage::NAME)).collect();
            return ValidationResponse {
                accepted: false,
                message: Some(format!("{}: {}", target.describe(), parts.join("; "))),
                warnings: (!warnings.is_empty()).then_some(warnings),
                audit_annotations,
                ..Default::default()
            };
        }
        let warnings = self
            .warnings
            .into_iter()
            .map(|w| if w.contains(&target.describe()) { w } else { format!("{}: {w}", target.describe()) })
            .collect::<Vec<_>>();
        ValidationResponse {
            accepted: true,
            mutated_object: mutated.then(|| target.object.clone()),
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
