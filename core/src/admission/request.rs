//! What Kubewarden sends to `validate`: `{"request": <AdmissionRequest>, "settings": {...}}`.
//!
//! The AdmissionRequest keeps the API's camelCase names. Every field is optional and `null`
//! reads as absent, so a sparse or hand-written request (kwctl, the audit scanner, tests)
//! still parses; what the policy needs and cannot find is reported by the policy itself.

use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

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

impl AdmissionRequest {
    /// The request as the API server sends it (`admission.k8s.io/v1` JSON, Go's `omitempty`
    /// fields left out when empty): Gatekeeper's `input.review`. For DELETE, whose `object`
    /// is empty, `object` is the `oldObject`, as Gatekeeper's webhook sets it.
    pub fn review(&self) -> Value {
        let mut m = Map::new();
        let s = |v: &str| Value::String(v.to_string());
        let gvk = |k: &GroupVersionKind| serde_json::json!({"group": k.group, "version": k.version, "kind": k.kind});
        let gvr = |r: &GroupVersionResource| serde_json::json!({"group": r.group, "version": r.version, "resource": r.resource});
        m.insert("uid".into(), s(&self.uid));
        m.insert("kind".into(), gvk(&self.kind));
        m.insert("resource".into(), gvr(&self.resource));
        let mut opt = |k: &str, v: &str| {
            if !v.is_empty() {
                m.insert(k.into(), s(v));
            }
        };
        opt("subResource", &self.sub_resource);
        opt("requestSubResource", &self.request_sub_resource);
        opt("name", &self.name);
        opt("namespace", &self.namespace);
        if let Some(k) = &self.request_kind {
            m.insert("requestKind".into(), gvk(k));
        }
        if let Some(r) = &self.request_resource {
            m.insert("requestResource".into(), gvr(r));
        }
        m.insert("operation".into(), s(&self.operation));
        let mut user = Map::new();
        if !self.user_info.username.is_empty() {
            user.insert("username".into(), s(&self.user_info.username));
        }
        if !self.user_info.uid.is_empty() {
            user.insert("uid".into(), s(&self.user_info.uid));
        }
        if !self.user_info.groups.is_empty() {
            user.insert("groups".into(), self.user_info.groups.iter().map(|g| s(g)).collect());
        }
        if !self.user_info.extra.is_null() {
            user.insert("extra".into(), self.user_info.extra.clone());
        }
        m.insert("userInfo".into(), Value::Object(user));
        let object = if self.object.is_null() && self.operation == "DELETE" { &self.old_object } else { &self.object };
        if !object.is_null() {
            m.insert("object".into(), object.clone());
        }
        if !self.old_object.is_null() {
            m.insert("oldObject".into(), self.old_object.clone());
        }
        if let Some(d) = self.dry_run {
            m.insert("dryRun".into(), Value::Bool(d));
        }
        if !self.options.is_null() {
            m.insert("options".into(), self.options.clone());
        }
        Value::Object(m)
    }
}

/// `null` reads as the type's default, as Go's decoder treats it.
fn nullable<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}
