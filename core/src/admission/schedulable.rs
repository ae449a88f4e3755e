//! `schedulable`: run the workload through the core's simulation against the settings' node
//! inventory; reject (or warn) when not all its pods can be placed, with kube-scheduler's own
//! FailedScheduling message and the core's fix. DaemonSets must also cover the listed pools:
//! every node of those pools that the DaemonSet targets (by its nodeSelector and node affinity)
//! must run one of its pods.
//!
//! ```yaml
//! schedulable:
//!   mode: enforce               # or warn (alias dryRun)
//!   daemonSetPools: [gpu, infra] # or ["*"]; default: none (only eligible nodes must fit)
//!   exemptNamespaces: [kube-system]
//!   checkOwnedPods: false       # Pods created by a controller are checked through it
//! ```

use serde::Deserialize;
use serde_json::Value;

use super::daemonset_coverage::needed_tolerations;
use super::settings::{decode_setting, Mode, NodeInventory, Patterns, PoolSet, Settings, SettingsError, Walk};
use super::workload::Target;
use crate::cluster::daemonset::{add_daemon_tolerations, node_should_run};
use crate::cluster::defaults::{api_defaults, default_toleration_seconds};
use crate::cluster::simulate::{simulate, WorkloadReport};
use crate::explain::fixes::Fix;
use crate::input::documents::{Manifests, Workload, WorkloadKind};
use crate::input::field::FieldPath;
use crate::input::validation::validate_pod_spec;
use crate::model::node_selector::RequiredNodeAffinity;
use crate::model::resources::Resource;
use crate::model::taints::{find_untolerated_taint, is_do_not_schedule};
use crate::model::{Node, PodSpec};
use crate::scheduler::framework::Code;
use crate::scheduler::framework::{NodeInfo, PlacedPod, SchedulerConfig};
use crate::scheduler::hostports::wanted_host_ports;
use crate::scheduler::plugins::{node_affinity, node_name, node_resources_fit, taint_toleration};
use crate::scheduler::StaticFilters;

pub const NAME: &str = "schedulable";

/// How many nodes a message lists before summarising.
const NODES_SHOWN: usize = 5;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct Config {
    mode: Mode,
    daemon_set_pools: Vec<String>,
    exempt_namespaces: Vec<String>,
    check_owned_pods: bool,
}

#[derive(Debug, Clone)]
pub struct Policy {
    pub mode: Mode,
    pub daemonset_pools: Option<PoolSet>,
    pub exempt_namespaces: Patterns,
    pub check_owned_pods: bool,
}

/// What the check found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Outcome {
    pub violations: Vec<String>,
    /// Why the workload was not simulated (never a rejection: the API server has the last
    /// word on malformed objects).
    pub notes: Vec<String>,
}

impl Policy {
    pub fn from_settings(value: &Value, at: &str, inventory: &NodeInventory) -> Result<Self, SettingsError> {
        let c: Config = decode_setting(value, at)?;
        if inventory.is_missing() {
            return Err(SettingsError::new(
                "settings.nodes",
                "schedulable needs the node inventory (or inventory: cluster): list the cluster's nodes, e.g. [\"gpu-1: sku=gpu:NoSchedule; pool=gpu\"]",
            ));
        }
        let daemonset_pools = if c.daemon_set_pools.is_empty() {
            None
        } else {
            Some(inventory.check_pools(&c.daemon_set_pools, &format!("{at}.daemonSetPools"))?)
        };
        let exempt_namespaces = Patterns::parse(&c.exempt_namespaces, &format!("{at}.exemptNamespaces"))?;
        Ok(Self { mode: c.mode, daemonset_pools, exempt_namespaces, check_owned_pods: c.check_owned_pods })
    }

    pub fn check(&self, target: &Target, settings: &Settings) -> Outcome {
        let mut out = Outcome::default();
        if self.exempt_namespaces.matches(&target.namespace)
            || (target.kind == WorkloadKind::Pod && target.owned_by_controller && !self.check_owned_pods)
        {
            return out;
        }
        let workload = match target.workload() {
            Ok(w) => w,
            Err(e) => {
                out.notes.push(format!("not simulated: cannot read the workload: {e}"));
                return out;
            }
        };
        if workload.is_bound_pod() {
            return out; // already bound: the scheduler never sees it
        }
        // Fast path: most workloads fit, and a fit is decided with the core's own filters
        // without the full simulation (which also builds the report, the node map and the
        // fixes). Anything else, and every rejection, goes through `simulate`.
        if fast_fit(&workload, settings) {
            return out;
        }
        let template = workload.template.spec.clone();
        let manifests = Manifests {
            nodes: settings.inventory.owned_nodes(),
            workloads: vec![std::sync::Arc::new(workload)],
            ..Default::default()
        };
        let report = match simulate(&manifests, &settings.options) {
            Ok(r) => r,
            Err(errors) => {
                let shown: Vec<String> = errors.iter().take(3).map(|e| e.to_string()).collect();
                out.notes.push(format!("not simulated: {}", shown.join("; ")));
                return out;
            }
        };
        let Some(w) = report.workloads.first() else { return out };
        let nodes = settings.inventory.len();
        if target.kind == WorkloadKind::DaemonSet {
            self.check_daemonset(w, &template, settings, &mut out);
        } else if w.scheduled < w.desired {
            let pending = w.desired.saturating_sub(w.scheduled);
            let message = w.pods.iter().find_map(|p| p.message.clone()).unwrap_or_default();
            let mut text = format!(
                "{pending} of {} pod(s) cannot be scheduled on the {nodes} node(s) of the inventory: {message}",
                w.desired
            );
            sentence(&mut text, &containers_for(&message, &template));
            sentence(&mut text, &best_fix(&w.fixes));
            out.violations.push(text);
        }
        out
    }

    fn check_daemonset(&self, w: &WorkloadReport, template: &PodSpec, settings: &Settings, out: &mut Outcome) {
        let inventory = &settings.inventory;
        let cfg = &settings.scheduler;
        let kind_path = WorkloadKind::DaemonSet.pod_spec_path();
        let placed: std::collections::BTreeSet<&str> = w.pods.iter().filter_map(|p| p.node.as_deref()).collect();
        // Eligible nodes whose daemon pod does not fit.
        let pending: Vec<(&str, &str)> = w
            .pods
            .iter()
            .filter(|p| p.node.is_none())
            .map(|p| (p.name.as_str(), p.message.as_deref().unwrap_or_default()))
            .collect();
        if !pending.is_empty() {
            let shown: Vec<String> = pending.iter().take(NODES_SHOWN).map(|(n, m)| format!("pod {n}: {m}")).collect();
            let mut text = format!(
                "{} of {} daemon pod(s) cannot be scheduled on their node: {}{}",
                pending.len(),
                w.desired,
                shown.join("; "),
                more(pending.len())
            );
            if let Some((_, m)) = pending.first() {
                sentence(&mut text, &containers_for(m, template));
            }
            let fixes: Vec<Fix> = w.fixes.iter().filter(|f| f.plugin != taint_toleration::NAME).cloned().collect();
            sentence(&mut text, &best_fix(&fixes));
            out.violations.push(text);
        }
        // Nodes of the required pools that the DaemonSet targets but does not run on.
        let Some(pools) = &self.daemonset_pools else { return };
        let targeting = RequiredNodeAffinity::from_pod(template);
        let uncovered_nodes: Vec<&Node> = inventory
            .in_pools(pools)
            .filter(|n| template.node_name.is_empty() || template.node_name == n.metadata.name)
            .filter(|n| targeting.matches(*n))
            .filter(|n| !placed.contains(n.metadata.name.as_str()))
            .filter(|n| !pending.iter().any(|(pod, _)| pod.ends_with(&format!("-{}", n.metadata.name))))
            .collect();
        let uncovered: Vec<(&str, &str, String)> = uncovered_nodes
            .iter()
            .map(|n| (n.metadata.name.as_str(), inventory.pool_of(n), node_reason(w, &n.metadata.name)))
            .collect();
        if uncovered.is_empty() {
            return;
        }
        let mut uncovered_pools: Vec<&str> = uncovered.iter().map(|(_, p, _)| *p).collect();
        uncovered_pools.sort_unstable();
        uncovered_pools.dedup();
        let shown: Vec<String> =
            uncovered.iter().take(NODES_SHOWN).map(|(n, pool, why)| format!("node {n} (pool {pool}): {why}")).collect();
        let mut text = format!(
            "does not cover pool(s) {} of the required {pools}: {} node(s) get no daemon pod: {}{}",
            uncovered_pools.join(", "),
            uncovered.len(),
            shown.join("; "),
            more(uncovered.len())
        );
        sentence(&mut text, &coverage_fix(template, &uncovered_nodes, kind_path, inventory, cfg));
        out.violations.push(text);
    }
}

/// Whether every pod of the workload certainly places on the inventory, decided with the
/// core's scheduler and filters; `false` means "run the simulation" (not "does not fit").
///
/// Sound because the inventory holds no pods but the workload's own: without inter-pod
/// (anti-)affinity, topology spread or host ports, the pods of one workload interact only
/// through node resources, so identical pods place one by one until the statically feasible
/// nodes are full, whatever node each goes to. For a DaemonSet each pod is alone on its node,
/// so a pod fits where the controller wants it iff its requests fit the empty node.
fn fast_fit(w: &Workload, settings: &Settings) -> bool {
    fast_fit_by(w, settings, Walk::ByShape)
}

/// [`fast_fit`] going over the inventory by `walk` where the workload allows it (the tests
/// compare it with [`Walk::ByNode`]).
fn fast_fit_by(w: &Workload, settings: &Settings, walk: Walk) -> bool {
    let cfg = &settings.scheduler;
    let walk = walk.allowed_for(&w.template.spec, cfg);
    let inventory = &settings.inventory;
    let mut spec = w.template.spec.clone();
    if w.name.is_empty()
        || !validate_pod_spec(&spec, &FieldPath::root(w.kind.pod_spec_path()), &cfg.gates).is_empty()
        || has_inter_pod_constraints(&spec)
        || !wanted_host_ports(&spec).is_empty()
        || !node_resources_fit::pre_filter(&spec, cfg).is_success()
    {
        return false;
    }
    let cmp = cfg.gates.taint_toleration_comparison_operators;
    if w.kind == WorkloadKind::DaemonSet {
        // `NodeShouldRunDaemonPod` (daemonset::node_should_run) without its per-node copy of
        // the template: nodeName, required node affinity, untolerated NoSchedule/NoExecute.
        let template = &w.template.spec;
        add_daemon_tolerations(&mut spec);
        let mut with_defaults = spec.clone();
        api_defaults(&mut with_defaults, &cfg.gates);
        let request = node_resources_fit::pod_request(&with_defaults, cfg);
        let targeting = RequiredNodeAffinity::from_pod(&spec);
        let targets =
            |n: &Node| (template.node_name.is_empty() || template.node_name == n.metadata.name) && targeting.matches(n);
        let runs = |n: &Node| {
            targets(n) && find_untolerated_taint(&n.spec.taints, &spec.tolerations, is_do_not_schedule, cmp).is_none()
        };
        let pools = settings.schedulable.as_ref().and_then(|p| p.daemonset_pools.as_ref());
        let fits = |info: &NodeInfo| node_resources_fit::filter(&request, info, cfg).0.is_success();
        // Taints, labels and resources are the shapes' (the nodes are empty).
        if pools.is_some_and(|pools| inventory.walk_in_pools(pools, walk).iter().any(|(n, _)| targets(n) && !runs(n))) {
            return false;
        }
        return inventory.walk(walk).all(|s| !runs(s.node) || fits(&NodeInfo::shared(std::sync::Arc::clone(s.node))));
    }
    api_defaults(&mut spec, &cfg.gates);
    if settings.options.admission_defaults {
        default_toleration_seconds(&mut spec);
    }
    // PreFilter: a rejection or a restriction to named nodes is left to the simulation.
    for (status, names) in [node_name::pre_filter(&spec), node_affinity::pre_filter(&spec, cfg)] {
        if !(status.is_success() || status.code == Code::Skip) || names.is_some() {
            return false;
        }
    }
    // Filter: every plugin that can reject a pod without host ports or inter-pod terms on a
    // node without pods (resources last: they change as pods bind). The static filters are
    // the cycle's own (`scheduler::StaticFilters`: the profile's NodeUnschedulable, NodeName,
    // TaintToleration and NodeAffinity, with the same PreFilter skips), without building a
    // Status for each failing node.
    let static_filters = StaticFilters::new(&spec, cfg);
    let feasible = |n: &NodeInfo| static_filters.rejecting(n).is_none();
    let request = node_resources_fit::pod_request(&spec, cfg);
    let placed = PlacedPod {
        namespace: std::sync::Arc::from(w.namespace.as_str()),
        name: w.name.clone(),
        labels: std::sync::Arc::new(w.template.metadata.labels.clone()),
        required_affinity: Vec::new(),
        required_anti_affinity: Vec::new(),
        preferred_affinity: Vec::new(),
        preferred_anti_affinity: Vec::new(),
        volumes: Vec::new(),
        priority: 0,
        start_time: None,
        requests: None,
        host_ports: Vec::new(),
    };
    let fitting = |info: &NodeInfo, most: i64| pods_fitting(info, &request, &placed, most, cfg);
    let mut remaining = w.replicas;
    // The filters left read a node's taints, labels, unschedulable flag and resources (and
    // its name only where `walk` is by node), and the inventory's nodes are empty: the nodes
    // of one shape take the same number of pods each, so each shape is decided once.
    for shape in inventory.walk(walk) {
        let info = NodeInfo::shared(std::sync::Arc::clone(shape.node));
        if !feasible(&info) {
            continue;
        }
        let each = fitting(&info, remaining);
        remaining = remaining.saturating_sub(each.saturating_mul(shape.count as i64));
        if remaining <= 0 {
            return true;
        }
    }
    remaining <= 0
}

/// How many of the workload's pods (`request` each) fit on `info` as they fill it, at most
/// `most`.
fn pods_fitting(info: &NodeInfo, request: &Resource, placed: &PlacedPod, most: i64, cfg: &SchedulerConfig) -> i64 {
    let mut filling = NodeInfo::new(Node::default());
    filling.allocatable = info.allocatable.clone();
    filling.requested = info.requested.clone();
    filling.non_zero_requested = info.non_zero_requested.clone();
    filling.used_ports = info.used_ports.clone();
    info.pods().iter().for_each(|p| filling.add_pod(p.clone()));
    let mut fitted = 0;
    while fitted < most && node_resources_fit::filter(request, &filling, cfg).0.is_success() {
        filling.requested.add(request);
        filling.add_pod(placed.clone());
        fitted += 1;
    }
    fitted
}

/// Required pod (anti-)affinity or topology spread: pods of one workload then constrain
/// each other beyond resources.
fn has_inter_pod_constraints(spec: &PodSpec) -> bool {
    let affinity = spec.affinity.as_ref();
    let required = |a: Option<&crate::model::PodAffinity>| a.is_some_and(|a| !a.required.is_empty());
    !spec.topology_spread_constraints.is_empty()
        || required(affinity.and_then(|a| a.pod_affinity.as_ref()))
        || required(affinity.and_then(|a| a.pod_anti_affinity.as_ref()))
}

/// The tolerations that let the DaemonSet onto the uncovered nodes, as a patch, checked with
/// the DaemonSet controller's rules. Only the required pools' taints: the core's own
/// DaemonSet fix reaches for every node, which may include nodes the settings protect.
fn coverage_fix(
    template: &PodSpec,
    uncovered: &[&Node],
    spec_path: &str,
    inventory: &NodeInventory,
    cfg: &SchedulerConfig,
) -> String {
    let cov = needed_tolerations(
        template,
        uncovered.iter().map(|n| (*n, inventory.pool_of(n))),
        cfg.gates.taint_toleration_comparison_operators,
    );
    if cov.add.is_empty() {
        return String::new();
    }
    let mut patched = template.clone();
    patched.tolerations.extend(cov.add.iter().cloned());
    let verified = uncovered.iter().all(|n| node_should_run(&patched, n, cfg).should_run);
    let mut patch = serde_json::json!({ "tolerations": patched.tolerations });
    for part in spec_path.rsplit('.') {
        patch = serde_json::json!({ part: patch });
    }
    let taints: Vec<&str> = cov.reasons.iter().map(String::as_str).collect();
    format!(
        "Fix{}: tolerate {}; patch: {patch} (or list the DaemonSet under daemonsetCoverage to have the policy add them)",
        if verified { " (verified)" } else { "" },
        taints.join(", ")
    )
}

/// The report's reason for a node, with Placement's detail.
fn node_reason(w: &WorkloadReport, node: &str) -> String {
    let Some(v) = w.nodes.get(node) else { return "no daemon pod".into() };
    let reason = v.reason.as_deref().unwrap_or("no daemon pod");
    match v.detail.as_deref() {
        Some(d) => format!("{reason} ({d})"),
        None => reason.to_string(),
    }
}

fn more(n: usize) -> String {
    if n > NODES_SHOWN {
        format!("; and {} more", n.saturating_sub(NODES_SHOWN))
    } else {
        String::new()
    }
}

/// For `Insufficient <resource>` in a FailedScheduling message: which containers ask for it,
/// as a sentence (empty when none).
fn containers_for(message: &str, spec: &PodSpec) -> String {
    let mut resources: Vec<&str> = message
        .split("Insufficient ")
        .skip(1)
        .filter_map(|rest| rest.split(',').next())
        .map(|r| r.split(". ").next().unwrap_or(r).trim().trim_end_matches('.'))
        .filter(|r| !r.is_empty())
        .collect();
    resources.sort_unstable();
    resources.dedup();
    let mut asking = Vec::new();
    for c in spec.init_containers.iter().chain(spec.containers.iter()) {
        let asks: Vec<String> = resources
            .iter()
            .filter_map(|r| {
                let q = c.resources.requests.get(*r).or_else(|| c.resources.limits.get(*r))?;
                Some(format!("{r} {q}"))
            })
            .collect();
        if !asks.is_empty() {
            asking.push(format!("container {:?} ({})", c.name, asks.join(", ")));
        }
    }
    if asking.is_empty() {
        String::new()
    } else {
        format!("Insufficient resources are requested by {}.", asking.join(", "))
    }
}

/// Appends `part` to `text` as a new sentence.
fn sentence(text: &mut String, part: &str) {
    if part.is_empty() {
        return;
    }
    let trimmed = text.trim_end();
    text.truncate(trimmed.len());
    if !text.is_empty() {
        if !text.ends_with('.') {
            text.push('.');
        }
        text.push(' ');
    }
    text.push_str(part);
}

/// The first verified fix (else the first), with its patch as one line of JSON, ready for
/// `kubectl patch --type strategic -p`.
fn best_fix(fixes: &[Fix]) -> String {
    let Some(f) = fixes.iter().find(|f| f.verified).or_else(|| fixes.first()) else { return String::new() };
    let mut s = format!("Fix{}: {}", if f.verified { " (verified)" } else { "" }, f.description);
    if let Some(patch) = &f.patch {
        if let Ok(v) = serde_yaml::from_str::<Value>(patch) {
            s.push_str(&format!("; patch: {v}"));
        }
    }
    if let Some(w) = &f.warning {
        s.push_str(&format!(" (warning: {w})"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The fast path never says "fits" when the simulation does not place every pod.
    #[test]
    fn fast_path_agrees_with_the_simulation() {
        let base: Value = serde_json::from_str(include_str!("testdata/settings.json")).unwrap();
        // The same with shapes shared by several nodes (the fast path decides a shape once),
        // one of them a small node that takes few pods.
        let mut repeated = base.clone();
        let nodes = repeated["nodes"].as_array_mut().unwrap();
        for (name, zone) in [("general-4", "a"), ("general-5", "a"), ("general-6", "c")] {
            nodes.push(json!(format!(
                "{name}: ; pool=general, topology.kubernetes.io/zone={zone}; cpu=4, memory=16Gi, pods=110"
            )));
        }
        for i in 1..=3 {
            nodes.push(json!(format!(
                "small-{i}: ; pool=general, topology.kubernetes.io/zone=c; cpu=1500m, memory=4Gi, pods=3"
            )));
        }
        for settings in [base, repeated] {
            let settings = Settings::from_value(&settings).unwrap();
            check_fast_path(&settings);
        }
    }

    fn check_fast_path(settings: &Settings) {
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |n: u64| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed % n
        };
        let (mut fast, mut total) = (0, 0);
        for i in 0..600 {
            let kind = ["Deployment", "StatefulSet", "DaemonSet", "Job"][next(4) as usize];
            let cpu = ["100m", "500m", "1", "3", "3500m", "5"][next(6) as usize];
            let mut spec = json!({"containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": cpu, "memory": "1Gi"}}}]});
            if next(3) == 0 {
                spec["containers"][0]["resources"]["limits"] = json!({"nvidia.com/gpu": next(3).to_string()});
            }
            let tolerations: Vec<_> = [
                json!({"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}),
                json!({"key": "dedicated", "operator": "Exists"}),
                json!({"key": "node-role.kubernetes.io/control-plane", "operator": "Exists"}),
            ]
            .into_iter()
            .filter(|_| next(2) == 0)
            .collect();
            spec["tolerations"] = json!(tolerations);
            if next(3) == 0 {
                let pool = ["gpu", "general", "infra"][next(3) as usize];
                spec["nodeSelector"] = json!({ "pool": pool });
            }
            if next(6) == 0 {
                // A term on the node's name beside one on labels: not a PreFilter restriction,
                // so the filter reads each node's name.
                spec["affinity"] = json!({"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["general-1"]}]},
                    {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["small-2"]}]},
                    {"matchExpressions": [{"key": "pool", "operator": "In", "values": ["gpu"]}]}
                ]}}});
            }
            if next(8) == 0 {
                spec["topologySpreadConstraints"] = json!([{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule", "labelSelector": {"matchLabels": {"app": "x"}}}]);
            }
            let replicas = next(14);
            let object = json!({
                "kind": kind, "metadata": {"name": format!("w{i}"), "namespace": "ns"},
                "spec": {"replicas": replicas, "parallelism": replicas, "selector": {"matchLabels": {"app": "x"}}, "template": {"metadata": {"labels": {"app": "x"}}, "spec": spec}}
            });
            let req: super::super::request::AdmissionRequest =
                serde_json::from_value(json!({"kind": {"kind": kind}, "object": object, "operation": "CREATE"}))
                    .unwrap();
            let target = Target::from_request(&req).unwrap().unwrap();
            let w = target.workload().unwrap();
            let m = Manifests {
                nodes: settings.inventory.owned_nodes(),
                workloads: vec![std::sync::Arc::new(w.clone())],
                ..Default::default()
            };
            let report = simulate(&m, &settings.options).unwrap();
            let wr = &report.workloads[0];
            let places_all = wr.scheduled == wr.desired;
            let covered = kind != "DaemonSet" || {
                let mut out = Outcome::default();
                settings.schedulable.as_ref().unwrap().check_daemonset(wr, &w.template.spec, settings, &mut out);
                out.violations.is_empty()
            };
            total += 1;
            let by_node = fast_fit_by(&w, settings, Walk::ByNode);
            assert_eq!(fast_fit(&w, settings), by_node, "by shape and node by node differ on {object}");
            if by_node {
                fast += 1;
                assert!(places_all && covered, "fast path accepted {object} but the simulation says {wr:#?}");
            }
        }
        assert!(fast * 4 > total, "the fast path decided only {fast} of {total}");
    }
}
