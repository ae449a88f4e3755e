//! `requiredPlacement`: workloads in given namespaces (or with given labels) must target given
//! node pools: require the pool's labels and tolerate the taints the pool carries.
//!
//! ```yaml
//! requiredPlacement:
//!   mode: enforce
//!   rules:
//!   - name: ml-on-gpu
//!     namespaces: [ml, "ml-*"]        # and/or a label selector on the workload or its pods:
//!     matchLabels: {team: ml}
//!     pool: gpu                       # needs poolLabel; or nodeSelector: {pool: gpu}
//!     taints: ["sku=gpu:NoSchedule"]  # default: the NoSchedule/NoExecute taints of the
//!                                     # inventory's nodes that carry those labels
//! ```
//!
//! A label is required when `nodeSelector` has it, or when every term of the required node
//! affinity has `key In [value]` (terms are ORed, so one term without it lets the pods
//! elsewhere).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::settings::{
    decode_setting, taint_from_setting, CompiledSelector, Mode, NodeInventory, Patterns, SettingsError,
};
use super::workload::{PlacementFields, Target};
use crate::cluster::simulate::SimulateOptions;
use crate::input::field::FieldPath;
use crate::model::labels::{validate_label_key, validate_label_value};
use crate::model::taints::is_do_not_schedule;
use crate::model::{LabelSelectorRequirement, Labels, Taint, Toleration};

pub const NAME: &str = "requiredPlacement";

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct Config {
    mode: Mode,
    rules: Vec<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct RuleConfig {
    name: Option<String>,
    namespaces: Vec<String>,
    match_labels: Labels,
    match_expressions: Vec<LabelSelectorRequirement>,
    node_selector: Labels,
    pool: Option<String>,
    taints: Option<Vec<Value>>,
}

#[derive(Debug, Clone)]
pub struct Rule {
    pub name: String,
    pub namespaces: Patterns,
    pub selector: Option<CompiledSelector>,
    /// Labels the pods must require.
    pub labels: Labels,
    /// Taints the pods must tolerate.
    pub taints: Vec<Taint>,
    /// The taints came from the inventory rather than the rule.
    pub taints_from_inventory: bool,
}

impl Rule {
    fn applies_to(&self, target: &Target) -> bool {
        let ns_ok = self.namespaces.is_empty() || self.namespaces.matches(&target.namespace);
        let labels_ok = self.selector.as_ref().is_none_or(|s| target.labels_match(|l| s.matches(l)));
        ns_ok && labels_ok
    }
}

#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Mode,
    pub rules: Vec<Rule>,
    comparison_operators: bool,
}

impl Policy {
    pub fn from_settings(
        value: &Value,
        at: &str,
        inventory: &NodeInventory,
        options: &SimulateOptions,
    ) -> Result<Self, SettingsError> {
        let c: Config = decode_setting(value, at)?;
        if c.rules.is_empty() {
            return Err(SettingsError::new(
                format!("{at}.rules"),
                "no rules: add at least one, e.g. {namespaces: [ml], pool: gpu}",
            ));
        }
        let rules = c
            .rules
            .iter()
            .enumerate()
            .map(|(i, v)| compile_rule(v, &format!("{at}.rules[{i}]"), i, inventory))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self { mode: c.mode, rules, comparison_operators: options.gates.taint_toleration_comparison_operators })
    }

    pub fn check(&self, target: &Target) -> Vec<String> {
        let rules: Vec<&Rule> = self.rules.iter().filter(|r| r.applies_to(target)).collect();
        if rules.is_empty() {
            return Vec::new();
        }
        let fields = match target.placement_fields() {
            Ok(f) => f,
            Err(e) => return vec![format!("cannot read the pod template's placement: {e}")],
        };
        let mut out = Vec::new();
        for rule in rules {
            out.extend(self.check_rule(rule, target, &fields));
        }
        out
    }

    fn check_rule(&self, rule: &Rule, target: &Target, fields: &PlacementFields) -> Vec<String> {
        let spec = target.spec_path();
        let mut out = Vec::new();
        for (k, v) in &rule.labels {
            if fields.node_selector.as_ref().and_then(|s| s.get(k)) == Some(v) || affinity_requires(fields, k, v) {
                continue;
            }
            let found = match &fields.node_selector {
                Some(sel) if !sel.is_empty() => serde_json::to_string(sel).unwrap_or_default(),
                _ => "none".to_string(),
            };
            out.push(format!(
                "rule {:?}: {spec}.nodeSelector must require {k}={v} (or every term of {spec}.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution must have {k} In [{v}]); nodeSelector found: {found}",
                rule.name
            ));
        }
        for taint in &rule.taints {
            if fields.tolerations.iter().any(|t| t.tolerates(taint, self.comparison_operators)) {
                continue;
            }
            let wanted = Toleration {
                key: taint.key.clone(),
                operator: if taint.value.is_empty() { "Exists".into() } else { "Equal".into() },
                value: taint.value.clone(),
                effect: taint.effect.clone(),
                toleration_seconds: None,
            };
            out.push(format!(
                "rule {:?}: {spec}.tolerations has no toleration for taint {taint}{}: add {}",
                rule.name,
                if rule.taints_from_inventory { " (carried by the pool's nodes)" } else { "" },
                serde_json::to_string(&wanted).unwrap_or_default()
            ));
        }
        out
    }
}

fn compile_rule(value: &Value, at: &str, index: usize, inventory: &NodeInventory) -> Result<Rule, SettingsError> {
    let c: RuleConfig = decode_setting(value, at)?;
    let name = c.name.clone().unwrap_or_else(|| format!("rules[{index}]"));
    let namespaces = Patterns::parse(&c.namespaces, &format!("{at}.namespaces"))?;
    let selector = if c.match_labels.is_empty() && c.match_expressions.is_empty() {
        None
    } else {
        Some(CompiledSelector::compile(&c.match_labels, &c.match_expressions, at)?)
    };
    if namespaces.is_empty() && selector.is_none() {
        return Err(SettingsError::new(
            at,
            "the rule selects nothing: set namespaces (namespaces: [\"*\"] for every namespace) and/or matchLabels/matchExpressions",
        ));
    }
    let mut labels = c.node_selector.clone();
    for (k, v) in &labels {
        let p = format!("{at}.nodeSelector.{k}");
        validate_label_key(k, &FieldPath::root(&p))
            .map_err(|e| SettingsError::new(&p, format!("key {k:?}: {}", e.detail)))?;
        validate_label_value(v, &FieldPath::root(&p))
            .map_err(|e| SettingsError::new(&p, format!("value {v:?}: {}", e.detail)))?;
    }
    if let Some(pool) = &c.pool {
        let p = format!("{at}.pool");
        let Some(label) = &inventory.pool_label else {
            return Err(SettingsError::new(
                p,
                format!(
                    "pool {pool:?} needs settings.poolLabel (the node label that names pools), or use nodeSelector"
                ),
            ));
        };
        validate_label_value(pool, &FieldPath::root(&p))
            .map_err(|e| SettingsError::new(&p, format!("{pool:?}: {}", e.detail)))?;
        labels.insert(label.clone(), pool.clone());
    }
    if labels.is_empty() {
        return Err(SettingsError::new(at, "the rule requires no pool: set pool or nodeSelector"));
    }
    // Labels and taints are the shapes': each shape once, in the order the inventory gives them.
    let matching: Vec<&crate::model::Node> = inventory.shapes_with_labels(&labels).collect();
    if !inventory.is_empty() && !inventory.from_cluster && matching.is_empty() {
        let wanted: Vec<String> = labels.iter().map(|(k, v)| format!("{k}={v}")).collect();
        return Err(SettingsError::new(
            at,
            format!("no node of settings.nodes has the labels {}: the rule would admit nothing", wanted.join(", ")),
        ));
    }
    let (taints, taints_from_inventory) = match &c.taints {
        Some(list) => (
            list.iter()
                .enumerate()
                .map(|(i, v)| taint_from_setting(v, &format!("{at}.taints[{i}]")))
                .collect::<Result<Vec<_>, _>>()?,
            false,
        ),
        None => {
            // Union of the pool nodes' blocking taints, deduplicated, in inventory order.
            let mut seen: BTreeMap<(String, String, String), ()> = BTreeMap::new();
            let mut out = Vec::new();
            for n in &matching {
                for t in n.spec.taints.iter().filter(|t| is_do_not_schedule(t)) {
                    if seen.insert((t.key.clone(), t.value.clone(), t.effect.clone()), ()).is_none() {
                        out.push(t.clone());
                    }
                }
            }
            (out, true)
        }
    };
    Ok(Rule { name, namespaces, selector, labels, taints, taints_from_inventory })
}

/// Every required node-affinity term has `key In [value]` (and only that value).
fn affinity_requires(fields: &PlacementFields, key: &str, value: &str) -> bool {
    let terms = crate::model::required_node_selector(fields.affinity.as_ref())
        .map(|r| r.node_selector_terms.as_slice())
        .unwrap_or_default();
    !terms.is_empty()
        && terms.iter().all(|term| {
            term.match_expressions.iter().any(|e| {
                e.key == key && e.operator == "In" && !e.values.is_empty() && e.values.iter().all(|v| v == value)
            })
        })
}
