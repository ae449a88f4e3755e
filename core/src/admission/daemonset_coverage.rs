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
    decode_setting, CompiledSelector, Mode, NodeInventory, Pattern, PoolSet, Settings, SettingsError, Walk,
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
        let walk = Walk::for_pod(&template, &settings.scheduler);
        Ok(needed_tolerations(&template, settings.inventory.walk_in_pools(&self.pools, walk).into_iter(), cmp))
    }
}

/// The tolerations a DaemonSet with pod template `template` lacks to run on each of `nodes`
/// that it targets: one per untolerated NoSchedule/NoExecute taint, `Equal` with the taint's
/// value (`Exists` for a valueless taint), in node order, counting the tolerations the
/// DaemonSet controller adds by itself.
///
/// `nodes` come with their pools. A node after the first of its shape adds nothing (its
/// taints are tolerated by then), so the shapes at their first nodes give the same answer
/// when the template names no node ([`Walk::for_pod`], [`NodeInventory::walk_in_pools`]).
pub fn needed_tolerations<'a>(
    template: &PodSpec,
    nodes: impl Iterator<Item = (&'a Node, &'a str)>,
    comparison_operators: bool,
) -> Coverage {
    let mut cov = Coverage::default();
    let mut daemon = template.clone();
    add_daemon_tolerations(&mut daemon);
    let targeting = RequiredNodeAffinity::from_pod(template);
    for (node, pool) in nodes {
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
            cov.reasons.push(format!("{taint} (pool {pool})"));
            cov.add.push(t);
        }
    }
    cov
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::admission::settings::Settings;

    /// The shapes at their first nodes in the pools give the tolerations and reasons that
    /// every node in turn gives: pools by label and by name (nodes without the pool label,
    /// several of one shape), shapes split across pools, templates that tolerate some taints
    /// or select some nodes.
    #[test]
    fn walks_by_shape_and_by_node_need_the_same_tolerations() {
        let nodes = json!([
            "general-1: ; pool=general, zone=a; cpu=4",
            "gpu-1: sku=gpu:NoSchedule; pool=gpu, zone=a; cpu=8",
            "general-2: ; pool=general, zone=a; cpu=4",
            "gpu-2: sku=gpu:NoSchedule; pool=gpu, zone=b; cpu=8",
            "infra-1: dedicated=infra:NoExecute; pool=infra, zone=a; cpu=2",
            "loose-1: dedicated=loose:NoSchedule; zone=a; cpu=2",
            "loose-2: dedicated=loose:NoSchedule; zone=a; cpu=2",
            "loose-3: dedicated=loose:NoSchedule, other=x:NoExecute; zone=b; cpu=2",
            "gpu-3: sku=gpu:NoSchedule, extra=y:NoSchedule; pool=gpu, zone=a; cpu=8",
            "mixed-1: sku=gpu:NoSchedule; pool=infra, zone=a; cpu=8",
        ]);
        let settings = Settings::from_value(&json!({"poolLabel": "pool", "nodes": nodes})).unwrap();
        let inventory = &settings.inventory;
        let pool_sets: Vec<PoolSet> = vec![
            PoolSet::All,
            PoolSet::Some(["gpu".to_string()].into()),
            PoolSet::Some(["infra".to_string(), "loose-2".to_string()].into()),
            PoolSet::Some(["loose-3".to_string(), "loose-1".to_string(), "general".to_string()].into()),
            PoolSet::Some(["nothing".to_string()].into()),
        ];
        let templates = [
            json!({}),
            json!({"tolerations": [{"key": "sku", "operator": "Exists"}]}),
            json!({"tolerations": [{"key": "dedicated", "operator": "Equal", "value": "loose", "effect": "NoSchedule"}]}),
            json!({"nodeSelector": {"zone": "a"}}),
            json!({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpressions": [{"key": "zone", "operator": "NotIn", "values": ["b"]}]}
            ]}}}}),
        ];
        let mut seen_reasons = 0;
        for pools in &pool_sets {
            for t in &templates {
                let template: PodSpec = serde_json::from_value(t.clone()).unwrap();
                let by_node =
                    needed_tolerations(&template, inventory.walk_in_pools(pools, Walk::ByNode).into_iter(), false);
                let by_shape =
                    needed_tolerations(&template, inventory.walk_in_pools(pools, Walk::ByShape).into_iter(), false);
                assert_eq!(by_shape.add, by_node.add, "{pools} {t}");
                assert_eq!(by_shape.reasons, by_node.reasons, "{pools} {t}");
                seen_reasons += by_node.reasons.len();
            }
        }
        assert!(seen_reasons > 20, "the cases need tolerations: {seen_reasons}");
    }
}
