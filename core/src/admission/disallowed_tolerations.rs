//! `disallowedTolerations`: reject workloads whose pods tolerate protected taints.
//!
//! ```yaml
//! disallowedTolerations:
//!   mode: enforce                 # or warn (alias dryRun): accept with warnings
//!   keys: [node-role.kubernetes.io/control-plane]
//!   keyPrefixes: [example.com/]
//!   effects: [NoExecute]          # any key, this effect
//!   protected:                    # combinations: every given field must match
//!   - {keyPrefix: node.kubernetes.io/, effect: NoSchedule}
//!   exemptNamespaces: [kube-system, "team-*"]
//! ```
//!
//! A toleration tolerates a protected taint when some taint matching the entry would be
//! tolerated by it: its key is the entry's key (or has the entry's prefix), or it has no key at
//! all, and its effect is the entry's or empty. Values are not looked at: a protected key is
//! protected whatever its value. So a keyless `operator: Exists` toleration, which tolerates
//! every taint, is caught by every entry.

use serde::Deserialize;
use serde_json::Value;

use super::settings::{decode_setting, Mode, Patterns, SettingsError};
use super::workload::Target;
use crate::input::field::FieldPath;
use crate::model::labels::validate_label_key;
use crate::model::taints::{NO_EXECUTE, NO_SCHEDULE, PREFER_NO_SCHEDULE};
use crate::model::Toleration;

pub const NAME: &str = "disallowedTolerations";

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct Config {
    mode: Mode,
    keys: Vec<String>,
    key_prefixes: Vec<String>,
    effects: Vec<String>,
    protected: Vec<EntryConfig>,
    exempt_namespaces: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct EntryConfig {
    key: Option<String>,
    key_prefix: Option<String>,
    effect: Option<String>,
}

/// One protected taint pattern.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Protected {
    pub key: Option<String>,
    pub key_prefix: Option<String>,
    pub effect: Option<String>,
}

impl Protected {
    /// Whether `t` tolerates some taint this entry protects.
    pub fn tolerated_by(&self, t: &Toleration) -> bool {
        let key_ok = t.key.is_empty()
            || match (&self.key, &self.key_prefix) {
                (Some(k), _) => &t.key == k,
                (None, Some(p)) => t.key.starts_with(p.as_str()),
                (None, None) => true,
            };
        let effect_ok = t.effect.is_empty() || self.effect.as_ref().is_none_or(|e| &t.effect == e);
        key_ok && effect_ok
    }

    pub fn describe(&self) -> String {
        let key = match (&self.key, &self.key_prefix) {
            (Some(k), _) => format!("key {k:?}"),
            (None, Some(p)) => format!("keys with prefix {p:?}"),
            (None, None) => "any key".to_string(),
        };
        match &self.effect {
            Some(e) => format!("{key} with effect {e}"),
            None => key,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Mode,
    pub protected: Vec<Protected>,
    pub exempt_namespaces: Patterns,
}

impl Policy {
    pub fn from_settings(value: &Value, at: &str) -> Result<Self, SettingsError> {
        let c: Config = decode_setting(value, at)?;
        let mut protected = Vec::new();
        for (i, k) in c.keys.iter().enumerate() {
            let p = format!("{at}.keys[{i}]");
            check_key(k, &p)?;
            protected.push(Protected { key: Some(k.clone()), ..Default::default() });
        }
        for (i, k) in c.key_prefixes.iter().enumerate() {
            if k.is_empty() {
                return Err(SettingsError::new(
                    format!("{at}.keyPrefixes[{i}]"),
                    "empty prefix would protect every key: use effects, or protected: [{}] explicitly",
                ));
            }
            protected.push(Protected { key_prefix: Some(k.clone()), ..Default::default() });
        }
        for (i, e) in c.effects.iter().enumerate() {
            check_effect(e, &format!("{at}.effects[{i}]"))?;
            protected.push(Protected { effect: Some(e.clone()), ..Default::default() });
        }
        for (i, e) in c.protected.iter().enumerate() {
            let p = format!("{at}.protected[{i}]");
            if e.key.is_some() && e.key_prefix.is_some() {
                return Err(SettingsError::new(p, "set key or keyPrefix, not both"));
            }
            if let Some(k) = &e.key {
                check_key(k, &format!("{p}.key"))?;
            }
            if let Some(k) = &e.key_prefix {
                if k.is_empty() {
                    return Err(SettingsError::new(format!("{p}.keyPrefix"), "empty prefix: omit keyPrefix instead"));
                }
            }
            if let Some(eff) = &e.effect {
                check_effect(eff, &format!("{p}.effect"))?;
            }
            protected.push(Protected {
                key: e.key.clone(),
                key_prefix: e.key_prefix.clone(),
                effect: e.effect.clone(),
            });
        }
        if protected.is_empty() {
            return Err(SettingsError::new(at, "nothing is protected: set keys, keyPrefixes, effects or protected"));
        }
        let exempt_namespaces = Patterns::parse(&c.exempt_namespaces, &format!("{at}.exemptNamespaces"))?;
        Ok(Self { mode: c.mode, protected, exempt_namespaces })
    }

    /// One message per offending toleration, naming its index and content.
    pub fn check(&self, target: &Target) -> Vec<String> {
        if self.exempt_namespaces.matches(&target.namespace) {
            return Vec::new();
        }
        let fields = match target.placement_fields() {
            Ok(f) => f,
            Err(e) => return vec![format!("cannot read the tolerations: {e}")],
        };
        let mut out = Vec::new();
        for (i, t) in fields.tolerations.iter().enumerate() {
            let hits: Vec<String> =
                self.protected.iter().filter(|p| p.tolerated_by(t)).map(Protected::describe).collect();
            if hits.is_empty() {
                continue;
            }
            let content = serde_json::to_string(t).unwrap_or_default();
            let why = if t.key.is_empty() {
                format!(
                    " (a toleration without a key {} every taint{})",
                    if t.operator == "Exists" { "and with operator Exists tolerates" } else { "matches" },
                    if t.effect.is_empty() { String::new() } else { format!(" with effect {}", t.effect) }
                )
            } else {
                String::new()
            };
            out.push(format!(
                "{}.tolerations[{i}] {content} tolerates protected taints ({}){why}",
                target.spec_path(),
                hits.join("; ")
            ));
        }
        out
    }
}

fn check_key(k: &str, at: &str) -> Result<(), SettingsError> {
    validate_label_key(k, &FieldPath::root(at)).map_err(|e| SettingsError::new(at, format!("{k:?}: {}", e.detail)))
}

fn check_effect(e: &str, at: &str) -> Result<(), SettingsError> {
    if [NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE].contains(&e) {
        Ok(())
    } else {
        Err(SettingsError::new(at, format!("{e:?} is not one of NoSchedule, PreferNoSchedule, NoExecute")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tol(key: &str, op: &str, effect: &str) -> Toleration {
        Toleration { key: key.into(), operator: op.into(), effect: effect.into(), ..Default::default() }
    }

    #[test]
    fn matching_rows() {
        let key = Protected { key: Some("k".into()), ..Default::default() };
        let prefix = Protected { key_prefix: Some("example.com/".into()), ..Default::default() };
        let effect = Protected { effect: Some("NoExecute".into()), ..Default::default() };
        let both = Protected {
            key_prefix: Some("node.kubernetes.io/".into()),
            effect: Some("NoSchedule".into()),
            ..Default::default()
        };
        let rows = [
            (&key, tol("k", "Exists", ""), true, "same key"),
            (&key, tol("k2", "Exists", ""), false, "other key"),
            (&key, tol("", "Exists", ""), true, "keyless Exists tolerates everything"),
            (&prefix, tol("example.com/gpu", "Equal", "NoSchedule"), true, "prefix"),
            (&prefix, tol("other.com/gpu", "Equal", "NoSchedule"), false, "other prefix"),
            (&effect, tol("any", "Exists", "NoExecute"), true, "effect"),
            (&effect, tol("any", "Exists", ""), true, "empty effect tolerates every effect"),
            (&effect, tol("any", "Exists", "NoSchedule"), false, "other effect"),
            (&both, tol("node.kubernetes.io/x", "Exists", "NoSchedule"), true, "prefix and effect"),
            (&both, tol("node.kubernetes.io/x", "Exists", "NoExecute"), false, "prefix, other effect"),
            (&both, tol("", "Exists", "NoExecute"), false, "keyless but other effect"),
        ];
        for (p, t, want, why) in rows {
            assert_eq!(p.tolerated_by(&t), want, "{why}");
        }
    }

    #[test]
    fn settings_errors() {
        let at = "settings.disallowedTolerations";
        let rows = [
            (json!({}), "settings.disallowedTolerations: nothing is protected"),
            (json!({"keys": ["bad key"]}), "settings.disallowedTolerations.keys[0]: \"bad key\""),
            (json!({"effects": ["NoExec"]}), "settings.disallowedTolerations.effects[0]: \"NoExec\" is not one of"),
            (json!({"keyPrefixes": [""]}), "settings.disallowedTolerations.keyPrefixes[0]: empty prefix"),
            (
                json!({"protected": [{"key": "a", "keyPrefix": "b"}]}),
                "settings.disallowedTolerations.protected[0]: set key or keyPrefix",
            ),
            (json!({"keys": ["a"], "mode": "block"}), "settings.disallowedTolerations.mode: unknown variant `block`"),
            (
                json!({"keys": ["a"], "exemptNamespaces": [""]}),
                "settings.disallowedTolerations.exemptNamespaces[0]: empty pattern",
            ),
            (json!({"keys": ["a"], "exempt": ["x"]}), "unknown field `exempt`"),
        ];
        for (v, want) in rows {
            let err = Policy::from_settings(&v, at).unwrap_err().to_string();
            assert!(err.contains(want), "{v}: {err}");
        }
    }
}
