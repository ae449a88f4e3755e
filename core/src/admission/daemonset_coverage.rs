//! `daemonsetCoverage` (mutating): give listed DaemonSets the tolerations they need to run on
//! every node of the inventory's pools, so node agents (security defenders, log shippers, CSI
//! node plugins) stop silently skipping tainted pools.
//!
//! ```yaml
//! daemonsetCoverage:
//!   mode: enforce            # warn (alias dryRun): do not mutate, say what would be added
//!   mutate: true             # false: validate only, for a policy deployed with
//!                            # `mutating: false`: reject the DaemonSet, with the JSON Patch
//!                            # that adds the tolerations in the message
//!   daemonSets:              # a DaemonSet matching any entry is covered
//!   - {namespace: twistlock}
//!   - {name: "fluent-*", namespace: logging}
//!   - matchLabels: {app.kubernetes.io/component: node-agent}
//!   pools: ["*"]             # default: every pool of the inventory
//!   blanket: false           # true: add `operator: Exists` for NoSchedule and NoExecute
//!                            # instead of one toleration per taint
//! ```
//!
//! Precise mode adds, for each node of the pools that the DaemonSet targets (nodeSelector and
//! node affinity still apply), one toleration per NoSchedule/NoExecute taint it does not yet
//! tolerate: `Equal` with the taint's value, or `Exists` for a valueless taint, with the
//! taint's effect. The tolerations the DaemonSet controller adds by itself (not-ready,
//! unreachable, pressure, unschedulable) are taken into account and not duplicated.

use serde::Deserialize;
use serde_json::Value;

use super::settings::{
    decode_setting, CompiledSelector, Mode, NodeInventory, Pattern, PoolSet, Settings, SettingsError,
};
use super::workload::{Target, WorkloadError};
use crate::cluster::daemonset::add_daemon_tolerations;
use crate::input::documents::WorkloadKind;
use crate::model::node_selector::RequiredNodeAffinity;
use crate::model::taints::{is_do_not_schedule, tolerations_tolerate, NO_EXECUTE, NO_SCHEDULE};
use crate::model::{LabelSelectorRequirement, Labels, Node, PodSpec, Toleration};

pub const NAME: &str = "daemonsetCoverage";

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct Config {
    mode: Mode,
    mutate: Option<bool>,
    daemon_sets: Vec<Value>,
    pools: Vec<String>,
    blanket: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct SelectorConfig {
    name: Option<String>,
    namespace: Option<String>,
    match_labels: Labels,
    match_expressions: Vec<LabelSelectorRequirement>,
}

/// Which DaemonSets are covered: every given field must match.
#[derive(Debug, Clone)]
pub struct DaemonSetSelector {
    pub name: Option<Pattern>,
    pub namespace: Option<Pattern>,
    pub labels: Option<CompiledSelector>,
}

impl DaemonSetSelector {
    fn matches(&self, target: &Target) -> bool {
        self.name.as_ref().is_none_or(|p| p.matches(&target.name))
            && self.namespace.as_ref().is_none_or(|p| p.matches(&target.namespace))
            && self.labels.as_ref().is_none_or(|s| s.matches(&target.labels))
    }
}

#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Mode,
    /// `false`: never mutate; in enforce mode, reject with the patch instead (a policy
    /// deployed with `mutating: false`, where Kubewarden refuses any mutation).
    pub mutate: bool,
    pub daemon_sets: Vec<DaemonSetSelector>,
    pub pools: PoolSet,
    pub blanket: bool,
}

/// The tolerations to add and why.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Coverage {
    pub add: Vec<Toleration>,
    /// `sku=gpu:NoSchedule (pool gpu)`, one per added toleration.
    pub reasons: Vec<String>,
}

impl Policy {
    pub fn from_settings(value: &Value, at: &str, inventory: &NodeInventory) -> Result<Self, SettingsError> {
        let c: Config = decode_setting(value, at)?;
        if c.daemon_sets.is_empty() {
            return Err(SettingsError::new(
                format!("{at}.daemonSets"),
                "no DaemonSets listed: add selectors such as {namespace: twistlock} or {name: defender-ds}",
            ));
        }
        let mut daemon_sets = Vec::new();
        for (i, v) in c.daemon_sets.iter().enumerate() {
            let p = format!("{at}.daemonSets[{i}]");
            let s: SelectorConfig = decode_setting(v, &p)?;
            let labels = if s.match_labels.is_empty() && s.match_expressions.is_empty() {
                None
            } else {
                Some(CompiledSelector::compile(&s.match_labels, &s.match_expressions, &p)?)
            };
            if s.name.is_none() && s.namespace.is_none() && labels.is_none() {
                return Err(SettingsError::new(
                    p,
                    "empty selector: set name, namespace and/or matchLabels (name: \"*\" covers every DaemonSet)",
                ));
            }
            daemon_sets.push(DaemonSetSelector {
                name: s.name.as_deref().map(|n| Pattern::parse(n, &format!("{p}.name"))).transpose()?,
                namespace: s.namespace.as_deref().map(|n| Pattern::parse(n, &format!("{p}.namespace"))).transpose()?,
                labels,
            });
        }
        if !c.blanket && inventory.is_missing() {
            return Err(SettingsError::new(
                "settings.nodes",
                "daemonsetCoverage needs the node inventory to find the taints to tolerate (or inventory: cluster, or daemonsetCoverage.blanket: true)",
            ));
        }
        let pools = if c.pools.is_empty() || inventory.is_missing() {
            PoolSet::All
        } else {
            inventory.check_pools(&c.pools, &format!("{at}.pools"))?
        };
        Ok(Self { mode: c.mode, mutate: c.mutate.unwrap_or(true), daemon_sets, pools, blanket: c.blanket })
    }

    pub fn selects(&self, target: &Target) -> bool {
        target.kind == WorkloadKind::DaemonSet && self.daemon_sets.iter().any(|s| s.matches(target))
    }

    /// The tolerations the DaemonSet lacks; `Err` when its template cannot be read.
    pub fn coverage(&self, target: &Target, settings: &Settings) -> Result<Coverage, WorkloadError> {
        let fields = target.placement_fields()?;
        let template = PodSpec {
            node_name: fields.node_name,
            node_selector: fields.node_selector,
            affinity: fields.affinity,
            tolerations: fields.tolerations,
            host_network: fields.host_network,
            ..Default::default()
        };
        let mut cov = Coverage::default();
        if self.blanket {
            for effect in [NO_SCHEDULE, NO_EXECUTE] {
                let t = Toleration { operator: "Exists".into(), effect: effect.into(), ..Default::default() };
                if !template.tolerations.iter().any(|x| x.same_as(&t)) {
                    cov.reasons.push(format!("every {effect} taint"));
                    cov.add.push(t);
                }
            }
            return Ok(cov);
        }
        let cmp = settings.options.gates.taint_toleration_comparison_operators;
        Ok(needed_tolerations(&template, settings.inventory.in_pools(&self.pools), &settings.inventory, cmp))
    }
}

/// The tolerations a DaemonSet with pod template `template` lacks to run on each of `nodes`
/// that it targets: one per untolerated NoSchedule/NoExecute taint, `Equal` with the taint's
/// value (`Exists` for a valueless taint), in node order, counting the tolerations the
/// DaemonSet controller adds by itself.
pub fn needed_tolerations<'a>(
    template: &PodSpec,
    nodes: impl Iterator<Item = &'a Node>,
    inventory: &NodeInventory,
    comparison_operators: bool,
) -> Coverage {
    let mut cov = Coverage::default();
    let mut daemon = template.clone();
    add_daemon_tolerations(&mut daemon);
    let targeting = RequiredNodeAffinity::from_pod(template);
    for node in nodes {
        if !template.node_name.is_empty() && template.node_name != node.metadata.name {
            continue;
        }
        if !targeting.matches(node) {
            continue;
        }
        for taint in node.spec.taints.iter().filter(|t| is_do_not_schedule(t)) {
            if tolerations_tolerate(&daemon.tolerations, taint, comparison_operators) {
                continue;
            }
            let t = Toleration {
                key: taint.key.clone(),
                operator: if taint.value.is_empty() { "Exists".into() } else { "Equal".into() },
                value: taint.value.clone(),
                effect: taint.effect.clone(),
                toleration_seconds: None,
            };
            daemon.tolerations.push(t.clone());
            cov.reasons.push(format!("{taint} (pool {})", inventory.pool_of(node)));
            cov.add.push(t);
        }
    }
    cov
}
