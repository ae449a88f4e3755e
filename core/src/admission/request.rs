//! What Kubewarden sends to `validate`: `{"request": <AdmissionRequest>, "settings": {...}}`.
//!
//! The AdmissionRequest keeps the API's camelCase names. Every field is optional and `null`
//! reads as absent, so a sparse or hand-written request (kwctl, the audit scanner, tests)
//! still parses; what the policy needs and cannot find is reported by the policy itself.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

/// Kubewarden's ValidationRequest. Settings stay raw JSON here: [`super::settings`] reads them.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default)]
pub struct ValidationRequest {
    pub request: AdmissionRequest,
    pub settings: Value,
}

/// `admission.k8s.io/v1` AdmissionRequest.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AdmissionRequest {
    #[serde(deserialize_with = "nullable")]
    pub uid: String,
    #[serde(deserialize_with = "nullable")]
    pub kind: GroupVersionKind,
    #[serde(deserialize_with = "nullable")]
    pub resource: GroupVersionResource,
    #[serde(deserialize_with = "nullable")]
    pub sub_resource: String,
    pub request_kind: Option<GroupVersionKind>,
    pub request_resource: Option<GroupVersionResource>,
    #[serde(deserialize_with = "nullable")]
    pub request_sub_resource: String,
    #[serde(deserialize_with = "nullable")]
    pub name: String,
    #[serde(deserialize_with = "nullable")]
    pub namespace: String,
    /// CREATE, UPDATE, DELETE or CONNECT.
    #[serde(deserialize_with = "nullable")]
    pub operation: String,
    #[serde(deserialize_with = "nullable")]
    pub user_info: UserInfo,
    pub object: Value,
    pub old_object: Value,
    pub dry_run: Option<bool>,
    pub options: Value,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct GroupVersionKind {
    #[serde(deserialize_with = "nullable")]
    pub group: String,
    #[serde(deserialize_with = "nullable")]
    pub version: String,
    #[serde(deserialize_with = "nullable")]
    pub kind: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct GroupVersionResource {
    #[serde(deserialize_with = "nullable")]
    pub group: String,
    #[serde(deserialize_with = "nullable")]
    pub version: String,
    #[serde(deserialize_with = "nullable")]
    pub resource: String,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(default)]
pub struct UserInfo {
    #[serde(deserialize_with = "nullable")]
    pub username: String,
    #[serde(deserialize_with = "nullable")]
    pub uid: String,
    #[serde(deserialize_with = "nullable")]
    pub groups: Vec<String>,
    pub extra: Value,
}

/// `null` reads as the type's default, as Go's decoder treats it.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
