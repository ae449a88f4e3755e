//! Field paths and field errors shaped like `k8s.io/apimachinery/pkg/util/validation/field`.

use std::fmt;

use serde::Serialize;

/// A path such as `spec.tolerations[0].operator`.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FieldPath(String);

impl FieldPath {
    pub fn root(name: &str) -> Self {
        Self(name.to_string())
    }

    pub fn child(&self, name: &str) -> Self {
        if self.0.is_empty() {
            Self(name.to_string())
        } else {
            Self(format!("{}.{name}", self.0))
        }
    }

    pub fn index(&self, i: usize) -> Self {
        Self(format!("{}[{i}]", self.0))
    }

    pub fn key(&self, k: &str) -> Self {
        Self(format!("{}[{k}]", self.0))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// `prefix` joined with a path as `serde_path_to_error` prints it (`.` for the value
    /// itself, `a.b[0].c` below it): the one place decoding errors get their field path.
    pub fn under(prefix: &str, serde_path: &str) -> Self {
        match (prefix.is_empty(), serde_path) {
            (true, _) => Self(serde_path.to_string()),
            (false, ".") => Self(prefix.to_string()),
            (false, p) if p.starts_with('[') => Self(format!("{prefix}{p}")),
            (false, p) => Self(format!("{prefix}.{p}")),
        }
    }
}

impl fmt::Display for FieldPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum FieldErrorType {
    FieldValueInvalid,
    FieldValueNotSupported,
    FieldValueRequired,
    FieldValueForbidden,
    FieldValueDuplicate,
}

/// One invalid field: where, what was there, and why.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FieldError {
    #[serde(rename = "type")]
    pub kind: FieldErrorType,
    pub field: String,
    pub bad_value: serde_json::Value,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub detail: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub supported_values: Vec<String>,
    /// The value as the API server prints it, where that is Go's `%#v` of a struct
    /// (`v1.LabelSelector{...}`) rather than something `bad_value` says by itself.
    #[serde(skip)]
    pub shown_value: Option<String>,
}

impl FieldError {
    pub fn invalid(path: &FieldPath, bad_value: serde_json::Value, detail: &str) -> Self {
        Self {
            kind: FieldErrorType::FieldValueInvalid,
            field: path.to_string(),
            bad_value,
            detail: detail.to_string(),
            supported_values: Vec::new(),
            shown_value: None,
        }
    }

    pub fn not_supported(path: &FieldPath, bad_value: &str, supported: &[&str]) -> Self {
        Self {
            kind: FieldErrorType::FieldValueNotSupported,
            field: path.to_string(),
            bad_value: serde_json::json!(bad_value),
            detail: String::new(),
            supported_values: supported.iter().map(|s| s.to_string()).collect(),
            shown_value: None,
        }
    }

    pub fn required(path: &FieldPath, detail: &str) -> Self {
        Self {
            kind: FieldErrorType::FieldValueRequired,
            field: path.to_string(),
            bad_value: serde_json::Value::String(String::new()),
            detail: detail.to_string(),
            supported_values: Vec::new(),
            shown_value: None,
        }
    }

    pub fn forbidden(path: &FieldPath, bad_value: serde_json::Value, detail: &str) -> Self {
        Self {
            kind: FieldErrorType::FieldValueForbidden,
            field: path.to_string(),
            bad_value,
            detail: detail.to_string(),
            supported_values: Vec::new(),
            shown_value: None,
        }
    }

    /// `field.Duplicate`; upstream sets a detail on a few of them (node taints).
    pub fn duplicate(path: &FieldPath, bad_value: serde_json::Value) -> Self {
        Self {
            kind: FieldErrorType::FieldValueDuplicate,
            field: path.to_string(),
            bad_value,
            detail: String::new(),
            supported_values: Vec::new(),
            shown_value: None,
        }
    }

    /// The value shown in the message, as the API server prints it ([`Self::shown_value`]).
    pub fn shown_as(mut self, value: &str) -> Self {
        self.shown_value = Some(value.to_string());
        self
    }

    pub fn with_detail(mut self, detail: &str) -> Self {
        self.detail = detail.to_string();
        self
    }
}

/// Rendered like the API server: `spec.tolerations[0].operator: Unsupported value: "Eq":
/// supported values: "Equal", "Exists"`.
impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = match &self.bad_value {
            _ if self.shown_value.is_some() => self.shown_value.clone().unwrap_or_default(),
            serde_json::Value::String(s) => format!("{s:?}"),
            // A label map, as Go's `%#v` prints a `map[string]string` (keys sorted).
            serde_json::Value::Object(m)
                if self.kind == FieldErrorType::FieldValueInvalid && m.values().all(serde_json::Value::is_string) =>
            {
                let mut pairs: Vec<String> =
                    m.iter().map(|(k, v)| format!("{k:?}:{:?}", v.as_str().unwrap_or_default())).collect();
                pairs.sort();
                format!("map[string]string{{{}}}", pairs.join(", "))
            }
            other => other.to_string(),
        };
        match self.kind {
            FieldErrorType::FieldValueInvalid => {
                write!(f, "{}: Invalid value: {value}: {}", self.field, self.detail)
            }
            FieldErrorType::FieldValueNotSupported => {
                let supported: Vec<String> = self.supported_values.iter().map(|s| format!("{s:?}")).collect();
                write!(f, "{}: Unsupported value: {value}: supported values: {}", self.field, supported.join(", "))
            }
            FieldErrorType::FieldValueRequired => {
                write!(f, "{}: Required value", self.field)?;
                if !self.detail.is_empty() {
                    write!(f, ": {}", self.detail)?;
                }
                Ok(())
            }
            FieldErrorType::FieldValueForbidden => {
                write!(f, "{}: Forbidden: {}", self.field, self.detail)
            }
            FieldErrorType::FieldValueDuplicate => {
                write!(f, "{}: Duplicate value: {value}", self.field)?;
                if !self.detail.is_empty() {
                    write!(f, ": {}", self.detail)?;
                }
                Ok(())
            }
        }
    }
}

impl std::error::Error for FieldError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_compose_like_apimachinery() {
        let p = FieldPath::root("spec").child("tolerations").index(0).child("operator");
        assert_eq!(p.as_str(), "spec.tolerations[0].operator");
        assert_eq!(FieldPath::root("").index(2).child("key").as_str(), "[2].key");
    }

    #[test]
    fn renders_like_the_api_server() {
        let p = FieldPath::root("spec").child("tolerations").index(0).child("operator");
        let e = FieldError::not_supported(&p, "Eq", &["Equal", "Exists"]);
        assert_eq!(
            e.to_string(),
            r#"spec.tolerations[0].operator: Unsupported value: "Eq": supported values: "Equal", "Exists""#
        );
    }

    #[test]
    fn duplicates_render_their_value_and_detail() {
        let p = FieldPath::root("spec").child("containers").index(1).child("name");
        assert_eq!(
            FieldError::duplicate(&p, serde_json::json!("c0")).to_string(),
            r#"spec.containers[1].name: Duplicate value: "c0""#
        );
        let t = serde_json::json!({"Key": "k", "Value": "b", "Effect": "NoSchedule", "TimeAdded": null});
        let e =
            FieldError::duplicate(&FieldPath::root("metadata.taints").index(1), t).with_detail("taints must be unique");
        assert_eq!(
            e.to_string(),
            r#"metadata.taints[1]: Duplicate value: {"Key":"k","Value":"b","Effect":"NoSchedule","TimeAdded":null}: taints must be unique"#
        );
    }
}
