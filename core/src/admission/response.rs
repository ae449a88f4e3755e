//! What the policy answers, in Kubewarden's wire format (snake_case, as the Rust and Go SDKs
//! serialize it): `ValidationResponse` for `validate`, `SettingsValidationResponse` for
//! `validate_settings`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// The answer to one `validate` call.
///
/// `mutated_object` is the whole object with the policy's changes; the host turns it into a
/// JSONPatch against the request's object. Warnings are shown by `kubectl`; audit annotations
/// go to the API server's audit log.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ValidationResponse {
    pub accepted: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub code: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mutated_object: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit_annotations: Option<BTreeMap<String, String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub warnings: Option<Vec<String>>,
}

impl ValidationResponse {
    pub fn accept() -> Self {
        Self { accepted: true, ..Default::default() }
    }

    pub fn reject(message: impl Into<String>) -> Self {
        Self { accepted: false, message: Some(message.into()), ..Default::default() }
    }

    /// A rejection that is the policy's or the caller's fault rather than the workload's.
    pub fn error(code: u16, message: impl Into<String>) -> Self {
        Self { accepted: false, message: Some(message.into()), code: Some(code), ..Default::default() }
    }

    /// The JSON the waPC guest returns. Serializing these types cannot fail (string keys
    /// only), but the fallback keeps the function total.
    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|_| {
            br#"{"accepted":false,"message":"placement policy: cannot serialize the response","code":500}"#.to_vec()
        })
    }
}

/// The answer to one `validate_settings` call.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SettingsValidationResponse {
    pub valid: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl SettingsValidationResponse {
    pub fn valid() -> Self {
        Self { valid: true, message: None }
    }

    pub fn invalid(message: impl Into<String>) -> Self {
        Self { valid: false, message: Some(message.into()) }
    }

    pub fn to_json(&self) -> Vec<u8> {
        serde_json::to_vec(self).unwrap_or_else(|_| {
            br#"{"valid":false,"message":"placement policy: cannot serialize the response"}"#.to_vec()
        })
    }
}
