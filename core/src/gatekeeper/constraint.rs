//! Constraints: instances of a template's CRD kind.

use serde::Serialize;
use serde_json::Value;

use super::matching::Match;
use super::GatekeeperError;

/// `spec.enforcementAction`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum EnforcementAction {
    #[default]
    Deny,
    Dryrun,
    Warn,
}

impl EnforcementAction {
    pub fn as_str(self) -> &'static str {
        match self {
            EnforcementAction::Deny => "deny",
            EnforcementAction::Dryrun => "dryrun",
            EnforcementAction::Warn => "warn",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Constraint {
    pub kind: String,
    pub name: String,
    pub enforcement_action: EnforcementAction,
    pub matches: Match,
    /// `spec.parameters` (null when absent).
    pub parameters: Value,
}

impl Constraint {
    pub fn from_value(v: &Value) -> Result<Constraint, GatekeeperError> {
        let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default().to_string();
        let name = v.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
        let err = |message: String| GatekeeperError::Constraint {
            kind: if kind.is_empty() { "Constraint".into() } else { kind.clone() },
            constraint: if name.is_empty() { "(unnamed)".into() } else { name.clone() },
            message,
        };
        if kind.is_empty() {
            return Err(err("kind is required".into()));
        }
        if name.is_empty() {
            return Err(err("metadata.name is required".into()));
        }
        let spec = v.get("spec").cloned().unwrap_or(Value::Null);
        let enforcement_action = match spec.get("enforcementAction") {
            None | Some(Value::Null) => EnforcementAction::Deny,
            Some(Value::String(s)) => match s.as_str() {
                "deny" => EnforcementAction::Deny,
                "dryrun" => EnforcementAction::Dryrun,
                "warn" => EnforcementAction::Warn,
                other => {
                    return Err(err(format!("spec.enforcementAction: {other:?} is not deny, dryrun or warn")));
                }
            },
            Some(other) => return Err(err(format!("spec.enforcementAction: expected a string, found {other}"))),
        };
        let matches = Match::from_value(spec.get("match").unwrap_or(&Value::Null)).map_err(|e| err(e.to_string()))?;
        let parameters = spec.get("parameters").cloned().unwrap_or(Value::Null);
        Ok(Constraint { kind, name, enforcement_action, matches, parameters })
    }
}
