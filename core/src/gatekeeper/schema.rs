//! The subset of OpenAPI v3 (structural) schema validation Kubernetes applies to a
//! constraint's `spec.parameters`: `type`, `properties`, `additionalProperties`, `items`,
//! `enum`, `required`, `x-kubernetes-int-or-string`, `x-kubernetes-preserve-unknown-fields`.
//! Fields the schema does not declare are pruned by the API server, so they are accepted.

use serde_json::Value;

const TYPES: &[&str] = &["object", "array", "string", "integer", "number", "boolean"];

/// A schema that is malformed, or a value it rejects; each names the field path.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SchemaError {
    #[error("{path}: expected a schema object, found {found}")]
    NotASchema { path: String, found: Value },
    #[error("{path}.type: {found} is not one of {}", TYPES.join(", "))]
    UnknownType { path: String, found: Value },
    #[error("{path}: expected an integer or a string, found {} {found}", type_name(found))]
    NotIntOrString { path: String, found: Value },
    #[error("{path}: expected {expected}, found {} {found}", type_name(found))]
    WrongType { path: String, expected: String, found: Value },
    #[error("{path}: {found} is not one of [{}]", join(options))]
    NotInEnum { path: String, found: Value, options: Vec<Value> },
    #[error("{path}: required field is missing")]
    MissingRequired { path: String },
}

fn join(options: &[Value]) -> String {
    options.iter().map(Value::to_string).collect::<Vec<_>>().join(", ")
}

/// Checks that a template's schema is itself well-formed (known `type`s).
pub fn check_schema(schema: &Value, path: &str) -> Result<(), SchemaError> {
    let Some(map) = schema.as_object() else {
        return Err(SchemaError::NotASchema { path: path.to_string(), found: schema.clone() });
    };
    if let Some(t) = map.get("type") {
        match t.as_str() {
            Some(t) if TYPES.contains(&t) => {}
            _ => return Err(SchemaError::UnknownType { path: path.to_string(), found: t.clone() }),
        }
    }
    if let Some(props) = map.get("properties").and_then(Value::as_object) {
        for (k, s) in props {
            check_schema(s, &format!("{path}.properties.{k}"))?;
        }
    }
    if let Some(items) = map.get("items").filter(|i| i.is_object()) {
        check_schema(items, &format!("{path}.items"))?;
    }
    if let Some(ap) = map.get("additionalProperties").filter(|i| i.is_object()) {
        check_schema(ap, &format!("{path}.additionalProperties"))?;
    }
    Ok(())
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// Validates `value` at `path` (e.g. `spec.parameters`) against `schema`; the error names
/// the field path and the offending value.
pub fn validate(schema: &Value, value: &Value, path: &str) -> Result<(), SchemaError> {
    let Some(map) = schema.as_object() else { return Ok(()) };
    let int_or_string = map.get("x-kubernetes-int-or-string").and_then(Value::as_bool) == Some(true);
    if int_or_string {
        return match value {
            Value::String(_) => Ok(()),
            Value::Number(n) if n.is_i64() || n.is_u64() => Ok(()),
            other => Err(SchemaError::NotIntOrString { path: path.to_string(), found: other.clone() }),
        };
    }
    if value.is_null() && map.get("nullable").and_then(Value::as_bool) == Some(true) {
        return Ok(());
    }
    if let Some(t) = map.get("type").and_then(Value::as_str) {
        let ok = match t {
            "integer" => {
                matches!(value, Value::Number(n) if n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0))
            }
            "number" => value.is_number(),
            "string" => value.is_string(),
            "boolean" => value.is_boolean(),
            "array" => value.is_array(),
            "object" => value.is_object(),
            _ => true,
        };
        if !ok {
            return Err(SchemaError::WrongType {
                path: path.to_string(),
                expected: t.to_string(),
                found: value.clone(),
            });
        }
    }
    if let Some(options) = map.get("enum").and_then(Value::as_array) {
        if !options.contains(value) {
            return Err(SchemaError::NotInEnum {
                path: path.to_string(),
                found: value.clone(),
                options: options.clone(),
            });
        }
    }
    match value {
        Value::Object(obj) => {
            let props = map.get("properties").and_then(Value::as_object);
            for req in map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
                if !obj.contains_key(req) {
                    return Err(SchemaError::MissingRequired { path: format!("{path}.{req}") });
                }
            }
            for (k, v) in obj {
                let sub = format!("{path}.{k}");
                if let Some(s) = props.and_then(|p| p.get(k)) {
                    validate(s, v, &sub)?;
                } else if let Some(ap) = map.get("additionalProperties").filter(|a| a.is_object()) {
                    validate(ap, v, &sub)?;
                }
            }
        }
        Value::Array(items) => {
            if let Some(item_schema) = map.get("items") {
                for (i, v) in items.iter().enumerate() {
                    validate(item_schema, v, &format!("{path}[{i}]"))?;
                }
            }
        }
        _ => {}
    }
    Ok(())
}
