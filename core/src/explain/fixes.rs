//! The smallest change to a workload that lets its pods reach nodes they cannot reach now:
//! tolerations for the exact taints, nodeSelector/affinity edits for labels, smaller requests
//! for resources. Each fix is a ready-to-paste strategic-merge patch, re-checked against the
//! cluster before it is offered (`verified`), and flagged when it is broader than needed.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::cluster::daemonset::{self, Blocker};
use crate::cluster::pools::PoolLabel;
use crate::explain::label_targets::{self, LabelTarget};
use crate::input::documents::{Workload, WorkloadKind};
use crate::model::quantity::{format_bytes, format_cpu, Quantity};
use crate::model::resources::{CPU, EPHEMERAL_STORAGE, MEMORY};
use crate::model::taints::{
    is_do_not_schedule, NO_EXECUTE, NO_SCHEDULE, TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE,
    TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_NOT_READY, TAINT_NODE_PID_PRESSURE, TAINT_NODE_UNREACHABLE,
    TAINT_NODE_UNSCHEDULABLE,
};
use crate::model::{NodeSelectorRequirement, NodeSelectorTerm, Pod, PodSpec, Taint, Toleration};
use crate::scheduler::framework::{NodeInfo, SchedulerConfig};
use crate::scheduler::plugins::{
    node_affinity, node_ports, node_resources_fit, node_unschedulable, node_volume_limits, taint_toleration,
};
use crate::scheduler::{schedule, NodeVerdict, ScheduleResult};

/// How many alternative per-node fixes to offer for one workload.
const MAX_FIXES: usize = 4;

/// The taints a controller puts on a node and takes off again once the node is healthy, so a
/// toleration for them is no fix: the node lifecycle controller's (upstream
/// `nodeConditionToTaintKeyStatusMap`: Ready=False gives not-ready, Ready=Unknown unreachable,
/// MemoryPressure/DiskPressure/PIDPressure/NetworkUnavailable=True their own taint;
/// `spec.unschedulable` gives unschedulable) and the cloud controller manager's taint on a node
/// it has not initialized yet.
pub const LIFECYCLE_TAINTS: [(&str, &str); 8] = [
    (TAINT_NODE_NOT_READY, "Ready=False"),
    (TAINT_NODE_UNREACHABLE, "Ready=Unknown"),
    (TAINT_NODE_MEMORY_PRESSURE, "MemoryPressure=True"),
    (TAINT_NODE_DISK_PRESSURE, "DiskPressure=True"),
    (TAINT_NODE_PID_PRESSURE, "PIDPressure=True"),
    (TAINT_NODE_NETWORK_UNAVAILABLE, "NetworkUnavailable=True"),
    (TAINT_NODE_UNSCHEDULABLE, "spec.unschedulable=true (cordoned)"),
    (TAINT_CLOUD_UNINITIALIZED, "not initialized by the cloud controller manager"),
];

/// Set by the cloud controller manager on new nodes and removed once it has initialized them.
pub const TAINT_CLOUD_UNINITIALIZED: &str = "node.cloudprovider.kubernetes.io/uninitialized";

/// Whether a controller manages this taint (see [`LIFECYCLE_TAINTS`]).
pub fn is_lifecycle_taint(key: &str) -> bool {
    LIFECYCLE_TAINTS.iter().any(|(k, _)| *k == key)
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Fix {
    /// The plugin whose rejection this fix removes.
    pub plugin: &'static str,
    /// What the fix changes.
    pub kind: FixKind,
    /// For toleration and node-label fixes: `pool` (exactly one node pool's taints or nodes,
    /// named in `pool`), `node` (nodes without a pool label), or `all` (every blocked node).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// The nodes the fix is for: the pods can reach them once it is applied.
    pub nodes: Vec<String>,
    pub description: String,
    /// Strategic-merge patch in YAML, to paste into the manifest or pass to `kubectl patch`.
    pub patch: Option<String>,
    pub command: Option<String>,
    /// Set when the fix allows more than the failing nodes need.
    pub warning: Option<String>,
    /// A full re-simulation with the fix applied places every replica (for a DaemonSet: a
    /// daemon pod runs on every node in `nodes`). Only such fixes are worth applying.
    pub verified: bool,
    /// When not verified: what still keeps pods Pending (or nodes without their daemon pod)
    /// once the fix is applied, or why it was not re-checked.
    pub still_blocked: Option<String>,
    /// For a node-label fix: the pools (or the nodes without one) the selector misses, most
    /// plausible target first and at most [`label_targets::MAX_TARGETS`]; the fix itself is
    /// for the first.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub targets: Vec<LabelTarget>,
    /// How the re-simulation applies the fix to the input.
    #[serde(skip)]
    pub remedy: Remedy,
}

/// What a fix changes, in the JSON contract's words (`kind`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum FixKind {
    /// Tolerations added to the pod template.
    Toleration,
    /// The node is unhealthy or cordoned: the taint goes when it is repaired or uncordoned.
    RepairNode,
    /// nodeSelector or required node affinity changed to match nodes.
    Selector,
    /// Labels to add to nodes so the selector matches them.
    NodeLabels,
    /// Smaller requests.
    Requests,
    /// More nodes like one that fits the pod when empty.
    Capacity,
    /// Host port conflict: a manual change.
    HostPort,
}

/// How a fix is applied to the input when it is re-simulated.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Remedy {
    /// Nothing to re-simulate (a manual change).
    #[default]
    None,
    /// The fix's `patch`, on the workload's pod template.
    Patch,
    /// `count` nodes like `like`; `per_node` is how many pending pods one such node takes
    /// (the count is set from the pending pods after the simulation).
    AddNodes { like: String, per_node: u32, count: u32, per_pod: Vec<(String, i64)> },
    /// These nodes healthy and uncordoned: lifecycle taints gone, conditions healthy.
    RepairNodes(Vec<String>),
    /// These labels (`None`: removed) on these nodes.
    LabelNodes { nodes: Vec<String>, labels: Vec<(String, Option<String>)> },
}

impl Fix {
    fn new(plugin: &'static str, kind: FixKind, description: String) -> Self {
        Fix {
            plugin,
            kind,
            scope: None,
            pool: None,
            nodes: Vec::new(),
            description,
            patch: None,
            command: None,
            warning: None,
            verified: false,
            still_blocked: None,
            targets: Vec::new(),
            remedy: Remedy::None,
        }
    }
}

/// A node's pool, or `None`.
fn pool_of(node: &crate::model::Node) -> Option<String> {
    PoolLabel::Detect.pool_of(node).map(str::to_string)
}

/// Fixes for a replicated workload (or Pod), from the verdicts of its first pod that found no
/// node. The capacity fix's node count and every fix's `verified` are settled afterwards by
/// re-simulating ([`crate::explain::verify`]).
pub fn suggest(
    w: &Workload,
    pod: &Pod,
    result: &ScheduleResult,
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
) -> Vec<Fix> {
    if result.node.is_some() {
        return Vec::new();
    }
    let original = &w.template.spec;
    let mut fixes: Vec<Fix> = Vec::new();
    let mut by_patch: BTreeMap<String, usize> = BTreeMap::new();
    let mut repair: Vec<&crate::model::Node> = Vec::new();
    // Nodes blocked only by taints a toleration can lift, grouped by pool (or by node).
    let mut tainted: Vec<(&crate::model::Node, Vec<&Taint>)> = Vec::new();
    let mut resource_blocked: Vec<&NodeVerdict> = Vec::new();
    for (i, v) in result.verdicts.iter().enumerate() {
        if v.status.is_success() {
            continue;
        }
        let Some(info) = nodes.get(i).filter(|n| n.name() == &*v.node) else { continue };
        let candidate = match v.status.plugin {
            Some(taint_toleration::NAME) => {
                let taints = taint_toleration::untolerated_taints(&pod.spec, info.node(), cfg);
                if taints.iter().any(|t| is_lifecycle_taint(&t.key)) {
                    repair.push(info.node());
                } else {
                    tainted.push((info.node(), taints));
                }
                None
            }
            Some(node_unschedulable::NAME) => {
                repair.push(info.node());
                None
            }
            Some(node_affinity::NAME) => affinity_fix(w, original, info.node()),
            Some(node_resources_fit::NAME) => {
                resource_blocked.push(v);
                let note = preemption_note(&pod.spec, info);
                resource_fix(w, original, &v.insufficient, info.name(), Some(note))
            }
            Some(node_ports::NAME) => Some(Fix::new(
                node_ports::NAME,
                FixKind::HostPort,
                format!(
                    "{} on {}: pick another hostPort, or drop hostPort and expose the pod through a Service",
                    v.status.detail.clone().unwrap_or_default(),
                    info.name()
                ),
            )),
            _ => None,
        };
        let Some(candidate) = candidate else { continue };
        let key = format!("{}{}", candidate.plugin, candidate.patch.clone().unwrap_or(candidate.description.clone()));
        match by_patch.get(&key) {
            Some(&k) => {
                if let Some(fix) = fixes.get_mut(k) {
                    fix.nodes.push(info.name().to_string());
                }
            }
            None => {
                by_patch.insert(key, fixes.len());
                let mut c = candidate;
                c.nodes = vec![info.name().to_string()];
                fixes.push(c);
            }
        }
    }
    fixes.extend(pool_toleration_fixes(w, original, &tainted));
    // Most nodes unlocked first; then pre-check each by scheduling the patched pod again.
    fixes.sort_by_key(|f| std::cmp::Reverse(f.nodes.len()));
    fixes.truncate(MAX_FIXES);
    for f in &mut fixes {
        precheck(f, w, pod, nodes, cfg);
    }
    if let Some(f) = capacity_fix(&resource_blocked, nodes).or_else(|| too_big(&resource_blocked)) {
        fixes.push(f);
    }
    if let Some(f) = volume_limit_fix(pod, result, nodes, cfg) {
        fixes.push(f);
    }
    if let Some(f) = repair_fix(&repair) {
        fixes.push(f);
    }
    fixes
}

/// One toleration fix per pool (exactly the taints of that pool's blocked nodes; nodes
/// without a pool are grouped by their taints), and, when the groups need different
/// tolerations, one for all of them. Groups needing the same patch share one fix: the patch
/// is the same change whichever pool it was offered for.
fn pool_toleration_fixes(w: &Workload, original: &PodSpec, tainted: &[(&crate::model::Node, Vec<&Taint>)]) -> Vec<Fix> {
    // (is a pool, pool name or taint set) -> (node names, their taints)
    type Groups<'t> = BTreeMap<(bool, String), (Vec<String>, Vec<&'t Taint>)>;
    let mut groups: Groups = BTreeMap::new();
    for (node, taints) in tainted {
        let key = match pool_of(node) {
            Some(pool) => (true, pool),
            None => (false, taints.iter().map(|t| t.to_string()).collect::<Vec<_>>().join(",")),
        };
        let (names, all) = groups.entry(key).or_default();
        names.push(node.metadata.name.clone());
        push_unique(all, taints);
    }
    let mut fixes: Vec<Fix> = Vec::new();
    let mut pools: Vec<Vec<String>> = Vec::new();
    let mut every: Vec<&Taint> = Vec::new();
    let mut every_node = Vec::new();
    for ((is_pool, name), (names, taints)) in &groups {
        push_unique(&mut every, taints);
        every_node.extend(names.iter().cloned());
        let f = toleration_fix(w, original, taints, taint_toleration::NAME);
        if let Some(k) = fixes.iter().position(|x| x.patch == f.patch) {
            if let (Some(same), Some(p)) = (fixes.get_mut(k), pools.get_mut(k)) {
                same.nodes.extend(names.iter().cloned());
                if *is_pool {
                    p.push(name.clone());
                }
            }
            continue;
        }
        let mut f = f;
        f.nodes = names.clone();
        fixes.push(f);
        pools.push(if *is_pool { vec![name.clone()] } else { Vec::new() });
    }
    let distinct = fixes.len();
    for (f, p) in fixes.iter_mut().zip(&pools) {
        if p.is_empty() {
            f.scope = Some(if distinct == 1 { "all" } else { "node" });
        } else {
            f.scope = Some(if distinct == 1 { "all" } else { "pool" });
            f.pool = Some(p.join(", "));
            f.description.push_str(&format!(" (the taints of pool {})", p.join(", ")));
        }
    }
    if distinct > 1 {
        let mut f = toleration_fix(w, original, &every, taint_toleration::NAME);
        f.scope = Some("all");
        f.description.push_str(" (the taints of every tainted node)");
        f.warning = Some("tolerates the taints of every pool; the per-pool fixes keep the others off limits".into());
        f.nodes = every_node;
        fixes.push(f);
    }
    fixes
}

fn push_unique<'a>(all: &mut Vec<&'a Taint>, taints: &[&'a Taint]) {
    for t in taints {
        if !all.iter().any(|x| x.key == t.key && x.value == t.value && x.effect == t.effect) {
            all.push(t);
        }
    }
}

/// "Repair the node": the nodes' lifecycle taints come from their conditions (or a cordon),
/// so the remedy is the node, not a toleration that would send pods to a broken node.
fn repair_fix(nodes: &[&crate::model::Node]) -> Option<Fix> {
    if nodes.is_empty() {
        return None;
    }
    let mut lines = Vec::new();
    let mut cordoned = Vec::new();
    let mut unhealthy = Vec::new();
    for node in nodes {
        lines.push(format!("{}: {}", node.metadata.name, node_health(node)));
        let lifecycle: Vec<&Taint> = node.spec.taints.iter().filter(|t| is_lifecycle_taint(&t.key)).collect();
        if lifecycle.iter().all(|t| t.key == TAINT_NODE_UNSCHEDULABLE) {
            cordoned.push(node.metadata.name.clone());
        } else {
            unhealthy.push(node.metadata.name.clone());
        }
    }
    let names: Vec<String> = nodes.iter().map(|n| n.metadata.name.clone()).collect();
    let mut f = Fix::new(
        taint_toleration::NAME,
        FixKind::RepairNode,
        format!(
            "repair the node{}: its taints are the node controllers', set from its state and removed once it is healthy \
             (or uncordoned): {}",
            if names.len() == 1 { "" } else { "s" },
            lines.join("; ")
        ),
    );
    f.command = Some(match (cordoned.is_empty(), unhealthy.is_empty()) {
        (false, true) => format!("kubectl uncordon {}", cordoned.join(" ")),
        _ => format!("kubectl describe node {}", unhealthy.join(" ")),
    });
    f.warning = Some(
        "a toleration for these taints is no fix: it sends pods to nodes that cannot run them (or are being drained)"
            .into(),
    );
    f.nodes = names.clone();
    f.remedy = Remedy::RepairNodes(names);
    Some(f)
}

/// The lifecycle taints of a node with the conditions behind them, as `status.conditions`
/// says.
fn node_health(node: &crate::model::Node) -> String {
    let mut parts: Vec<String> = Vec::new();
    for t in node.spec.taints.iter().filter(|t| is_lifecycle_taint(&t.key)) {
        parts.push(format!("taint {t}"));
    }
    if node.spec.unschedulable && !parts.iter().any(|p| p.contains(TAINT_NODE_UNSCHEDULABLE)) {
        parts.push("spec.unschedulable (cordoned)".into());
    }
    let unhealthy: Vec<String> = node
        .status
        .conditions
        .iter()
        .filter(|c| if c.type_ == "Ready" { c.status != "True" } else { c.status == "True" })
        .map(|c| {
            let mut s = format!("{}={}", c.type_, c.status);
            let why: Vec<&str> = [c.reason.as_str(), c.message.trim()].into_iter().filter(|x| !x.is_empty()).collect();
            if !why.is_empty() {
                s.push_str(&format!(" ({})", why.join(": ")));
            }
            s
        })
        .collect();
    if unhealthy.is_empty() {
        let expected: Vec<&str> = node
            .spec
            .taints
            .iter()
            .filter_map(|t| LIFECYCLE_TAINTS.iter().find(|(k, _)| *k == t.key))
            .map(|(_, c)| *c)
            .collect();
        if node.status.conditions.is_empty() {
            parts.push(format!("status.conditions not in the input (the taint means {})", expected.join(", ")));
        } else {
            parts
                .push(format!("status.conditions healthy now (the taint means {}; it goes soon)", expected.join(", ")));
        }
    } else {
        parts.push(format!("status.conditions {}", unhealthy.join(", ")));
    }
    parts.join(", ")
}

/// "Add nodes like N": the pod fits an empty copy of a node that rejects it only for want of
/// resources. The node taking most of the pods is copied; the count is settled once the
/// pending pods are known ([`crate::explain::verify`]).
fn capacity_fix(blocked: &[&NodeVerdict], nodes: &[NodeInfo]) -> Option<Fix> {
    let (v, per_node) = blocked
        .iter()
        .filter_map(|v| {
            let per_node = v.insufficient.iter().filter(|r| r.requested > 0).map(|r| r.capacity / r.requested).min()?;
            (per_node > 0).then_some((*v, per_node))
        })
        .max_by_key(|(_, n)| *n)?;
    let node = nodes.iter().find(|n| n.name() == &*v.node)?;
    let missing: Vec<String> = v
        .insufficient
        .iter()
        .map(|r| format!("{} {}", show_amount(&r.resource_name, r.requested), r.resource_name))
        .collect();
    let mut f = Fix::new(
        node_resources_fit::NAME,
        FixKind::Capacity,
        format!("each pod needs {} that no node has free: add nodes like {}", missing.join(", "), v.node),
    );
    f.pool = pool_of(node.node());
    f.nodes = vec![v.node.to_string()];
    f.remedy = Remedy::AddNodes {
        like: v.node.to_string(),
        per_node: u32::try_from(per_node).unwrap_or(u32::MAX),
        count: 0,
        per_pod: v.insufficient.iter().map(|r| (r.resource_name.clone(), r.requested)).collect(),
    };
    Some(f)
}

/// "Add nodes like N" for a pod whose volumes reach nodes that are at their CSI attach limit
/// (NodeVolumeLimits, so every filter before it passed there: the right zone, room for the
/// pod): a copy of such a node takes `limit / volumes` of the pending pods. Raising the limit
/// is no fix: it is what the node type can attach.
fn volume_limit_fix(pod: &Pod, result: &ScheduleResult, nodes: &[NodeInfo], cfg: &SchedulerConfig) -> Option<Fix> {
    let storage = cfg.storage.as_deref()?;
    let v = result.verdicts.iter().find(|v| v.status.plugin == Some(node_volume_limits::NAME))?;
    let node = nodes.iter().find(|n| n.name() == &*v.node)?;
    let drivers = node_volume_limits::pod_drivers(pod, storage);
    let driver = drivers.first()?;
    let limit = storage.csi_node(node.name())?.limit(driver)?;
    let volumes = i64::try_from(drivers.len()).unwrap_or(1).max(1);
    let resource = format!("CSI volume(s) of {driver}");
    let mut f = Fix::new(
        node_volume_limits::NAME,
        FixKind::Capacity,
        format!(
            "the nodes this pod's volumes can use are at {driver}'s attach limit ({limit}): add nodes like {}",
            v.node
        ),
    );
    f.pool = pool_of(node.node());
    f.nodes = vec![v.node.to_string()];
    f.remedy = Remedy::AddNodes {
        like: v.node.to_string(),
        per_node: u32::try_from(limit / volumes).unwrap_or(u32::MAX),
        count: 0,
        per_pod: vec![(resource, volumes)],
    };
    Some(f)
}

/// No node the pod may use could take it even empty: say what it asks and the most any of
/// them has, as a capacity fix that adding nodes like these cannot verify.
fn too_big(blocked: &[&NodeVerdict]) -> Option<Fix> {
    let mut most: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for r in blocked.iter().flat_map(|v| &v.insufficient) {
        let e = most.entry(r.resource_name.as_str()).or_insert((r.requested, r.capacity));
        e.1 = e.1.max(r.capacity);
    }
    let short: Vec<String> = most
        .iter()
        .filter(|(_, (requested, capacity))| capacity < requested)
        .map(|(r, (requested, capacity))| {
            format!("{} {r} (the largest node has {})", show_amount(r, *requested), show_amount(r, *capacity))
        })
        .collect();
    if short.is_empty() {
        return None;
    }
    let mut f = Fix::new(
        node_resources_fit::NAME,
        FixKind::Capacity,
        format!(
            "no node is large enough even empty: each pod requests {}; add larger nodes, or request less",
            short.join(", ")
        ),
    );
    f.still_blocked = Some("no node in the input is large enough to copy".into());
    Some(f)
}

/// An amount of a resource as manifests write it (`500m`, `2Gi`, `1`).
pub fn show_amount(resource: &str, v: i64) -> String {
    match resource {
        CPU => format_cpu(v),
        MEMORY | EPHEMERAL_STORAGE => format_bytes(v),
        _ => v.to_string(),
    }
}

/// Re-runs the scheduler with the patch applied, against the cluster as the pod found it: a
/// fix that does not even clear the nodes it names says what blocks next and is not
/// re-simulated.
fn precheck(f: &mut Fix, w: &Workload, pod: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig) {
    let Some(patch) = &f.patch else { return };
    f.remedy = Remedy::Patch;
    let Some(mut spec) = apply_to_spec(&w.template.spec, patch, w.kind) else { return };
    crate::cluster::defaults::api_defaults(&mut spec, &cfg.gates);
    crate::cluster::defaults::default_toleration_seconds(&mut spec);
    let patched = Pod { metadata: pod.metadata.clone(), spec, status: Default::default() };
    let result = schedule(&patched, nodes, cfg, true);
    let targeted: Vec<_> = result.verdicts.iter().filter(|v| f.nodes.iter().any(|n| **n == *v.node)).collect();
    let still_blocked: Vec<String> = targeted
        .iter()
        .filter(|v| !v.status.is_success())
        .map(|v| format!("{} ({})", v.node, v.status.reasons.join(", ")))
        .collect();
    if !still_blocked.is_empty() {
        f.still_blocked = Some(still_blocked.join("; "));
    } else if targeted.is_empty() {
        f.still_blocked = Some("it reaches no node".into());
    }
}

/// Fixes that let a DaemonSet cover every node: per pool, one toleration patch for exactly the
/// taints that keep its pods off that pool's nodes, one for all of them, and the blanket
/// NoSchedule/NoExecute pair as a broad alternative; "repair the node" for nodes with
/// lifecycle taints; for nodes its nodeSelector or affinity does not match, the labels to add
/// and the selector change; request changes for daemon pods that do not fit. `checks` is the
/// controller's check of each node of `nodes` ([`daemonset::DaemonNodeCheck`] of `template`),
/// as the simulation made it.
pub fn suggest_daemonset(
    w: &Workload,
    template: &PodSpec,
    checks: &[daemonset::ShouldRun],
    results: &[(usize, ScheduleResult)],
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let mut daemon_spec = template.clone();
    daemonset::add_daemon_tolerations(&mut daemon_spec);
    let mut tainted: Vec<(&crate::model::Node, Vec<&Taint>)> = Vec::new();
    let mut repair = Vec::new();
    let mut unmatched: Vec<&crate::model::Node> = Vec::new();
    // Which nodes run a daemon pod now: a toleration fix can only add to them.
    let eligible: Vec<bool> = checks.iter().map(|c| c.should_run).collect();
    for (n, check) in nodes.iter().zip(checks) {
        match &check.blocked_by {
            Some(Blocker::Taint(_)) => {
                let taints = taint_toleration::untolerated_taints(&daemon_spec, n.node(), cfg);
                if taints.iter().any(|t| is_lifecycle_taint(&t.key)) {
                    repair.push(n.node());
                } else {
                    tainted.push((n.node(), taints));
                }
            }
            Some(Blocker::NodeAffinity) => unmatched.push(n.node()),
            _ => {}
        }
    }
    let blocked: Vec<String> = tainted.iter().map(|(n, _)| n.metadata.name.clone()).collect();
    if !tainted.is_empty() {
        for mut f in pool_toleration_fixes(w, template, &tainted) {
            let claimed = f.nodes.clone();
            verify_daemonset(&mut f, w, template, &claimed, nodes, Some(&eligible), cfg);
            fixes.push(f);
        }
        let blanket = [
            Toleration { operator: "Exists".into(), effect: NO_SCHEDULE.into(), ..Default::default() },
            Toleration { operator: "Exists".into(), effect: NO_EXECUTE.into(), ..Default::default() },
        ];
        let mut broad = tolerations_patch_fix(
            w,
            template,
            &blanket,
            taint_toleration::NAME,
            "tolerate every NoSchedule and NoExecute taint (the usual setting for node agents)".into(),
        );
        broad.scope = Some("all");
        broad.warning = Some(
            "keyless `operator: Exists` tolerates every taint with that effect, including control-plane, \
             node-problem and future taints: the daemon also runs on nodes being drained or failing"
                .into(),
        );
        verify_daemonset(&mut broad, w, template, &blocked, nodes, Some(&eligible), cfg);
        fixes.push(broad);
    }
    if let Some(f) = repair_fix(&repair) {
        fixes.push(f);
    }
    fixes.extend(daemonset_selector_fixes(w, template, &unmatched, nodes, cfg));
    // Daemon pods that are eligible but do not fit (resources, ports): per-node fixes.
    for (i, result) in results {
        if result.node.is_some() {
            continue;
        }
        let Some(v) = result.verdicts.get(*i) else { continue };
        if v.status.plugin == Some(node_resources_fit::NAME) {
            // `template` is not admitted (its priority unresolved): no preemption note here.
            if let Some(mut f) = resource_fix(w, template, &v.insufficient, &v.node, None) {
                f.nodes = vec![v.node.to_string()];
                f.remedy = Remedy::Patch;
                fixes.push(f);
            }
        }
    }
    fixes
}

/// For a DaemonSet whose nodeSelector or required node affinity matches no node (or not
/// these): the labels to add, once, for the pool most plausibly meant (the others ranked
/// after it, see [`label_targets`]), and the selector change that matches the nodes.
fn daemonset_selector_fixes(
    w: &Workload,
    template: &PodSpec,
    unmatched: &[&crate::model::Node],
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let Some(first) = unmatched.first() else { return fixes };
    let mut by_pool: BTreeMap<Option<String>, Vec<&crate::model::Node>> = BTreeMap::new();
    for node in unmatched {
        by_pool.entry(pool_of(node)).or_default().push(node);
    }
    let groups: Vec<label_targets::Group<'_>> = by_pool
        .into_iter()
        .filter_map(|(pool, group)| {
            let labels = labels_to_match(template, group.first().copied())?;
            (!labels.is_empty()).then_some(label_targets::Group { pool, nodes: group, labels })
        })
        .collect();
    let pools = groups.len();
    let mut ranked = label_targets::rank(template, selector_requirements(template), groups);
    ranked.truncate(label_targets::MAX_TARGETS);
    // The selector change's "or label node X" names a node of the most plausible pool.
    let first = ranked
        .first()
        .and_then(|t| t.nodes.first())
        .and_then(|name| unmatched.iter().find(|n| &n.metadata.name == name))
        .unwrap_or(first);
    if let Some(top) = ranked.first().cloned() {
        fixes.push(node_labels_fix(top, ranked, pools, unmatched.len(), nodes.len()));
    }
    if let Some(mut f) = affinity_fix(w, template, first) {
        let claimed: Vec<String> = unmatched.iter().map(|n| n.metadata.name.clone()).collect();
        f.remedy = Remedy::Patch;
        verify_daemonset(&mut f, w, template, &claimed, nodes, None, cfg);
        // Claims only the nodes it makes eligible; it is verified by what it claims.
        f.still_blocked = None;
        if !f.nodes.is_empty() {
            fixes.push(f);
        }
    }
    fixes
}

/// The one node-label fix: the labels `top` needs, on its nodes; the other targets named.
fn node_labels_fix(top: LabelTarget, targets: Vec<LabelTarget>, pools: usize, unmatched: usize, all: usize) -> Fix {
    let shown: Vec<String> = top
        .labels
        .iter()
        .map(|(k, v)| match v {
            Some(v) => format!("{k}={v}"),
            None => format!("{k}-"),
        })
        .collect();
    let name = |t: &LabelTarget| match &t.pool {
        Some(pool) => format!("pool {pool}"),
        None => "the nodes without a pool label".to_string(),
    };
    let describe = |t: &LabelTarget| {
        let n = t.nodes.len();
        let reasons = if t.reasons.is_empty() { String::new() } else { format!(": {}", t.reasons.join(", ")) };
        format!("{} ({n} node{}{reasons})", name(t), if n == 1 { "" } else { "s" })
    };
    let mut description = format!(
        "label the nodes it should run on: {} (its nodeSelector/affinity asks for it; {unmatched} of {all} nodes lack it)",
        shown.join(" ")
    );
    if pools > 1 {
        if top.reasons.is_empty() {
            description.push_str(&format!(
                "; no pool shows it is the one meant (none has a key it asks for, a resource it requests or the \
                 hardware its label names): label the one that has what the label says, e.g. {}",
                describe(&top)
            ));
        } else {
            description.push_str(&format!("; most likely meant: {}", describe(&top)));
        }
        let others: Vec<String> = targets.iter().skip(1).map(describe).collect();
        if !others.is_empty() {
            description.push_str(&format!("; then {}", others.join(", ")));
        }
        if pools > targets.len() {
            let more = pools - targets.len();
            description.push_str(&format!("; {more} more group{} of nodes lack it", if more == 1 { "" } else { "s" }));
        }
    }
    let names = top.nodes.clone();
    let mut f = Fix::new(node_affinity::NAME, FixKind::NodeLabels, description);
    f.scope = Some(if top.pool.is_some() { "pool" } else { "node" });
    f.pool = top.pool.clone();
    f.command = Some(format!("kubectl label nodes {} {}", top.kubectl_target, shown.join(" ")));
    f.warning = Some(
        "label only nodes that really have what the label says (hardware, role): labels such as \
         feature.node.kubernetes.io/* are set by Node Feature Discovery, deploy it rather than labelling by hand"
            .into(),
    );
    f.nodes = names.clone();
    f.remedy = Remedy::LabelNodes { nodes: names, labels: top.labels.clone() };
    f.targets = targets;
    f
}

/// How many requirements [`labels_to_match`] checks: the nodeSelector's entries and the first
/// required node affinity term's expressions.
pub(crate) fn selector_requirements(template: &PodSpec) -> usize {
    let selector = template.node_selector.as_ref().map_or(0, |s| s.len());
    let term = crate::model::required_node_selector(template.affinity.as_ref())
        .and_then(|r| r.node_selector_terms.iter().find(|t| !t.is_empty()))
        .map_or(0, |t| t.match_expressions.len());
    selector + term
}

/// The label changes after which `node` matches the template's nodeSelector and the first
/// required node affinity term: `Some(value)` to set, `None` to remove. `None` when a
/// requirement cannot be met by labels (`Gt`/`Lt`, field terms).
pub(crate) fn labels_to_match(
    template: &PodSpec,
    node: Option<&crate::model::Node>,
) -> Option<Vec<(String, Option<String>)>> {
    let node = node?;
    let labels = &node.metadata.labels;
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    if let Some(sel) = &template.node_selector {
        for (k, v) in sel {
            if labels.get(k) != Some(v) {
                out.push((k.clone(), Some(v.clone())));
            }
        }
    }
    if let Some(required) = crate::model::required_node_selector(template.affinity.as_ref()) {
        let term = required.node_selector_terms.iter().find(|t| !t.is_empty())?;
        if !term.match_fields.is_empty() {
            return None;
        }
        for r in &term.match_expressions {
            let have = labels.get(&r.key);
            match r.operator.as_str() {
                "In" => {
                    if !have.is_some_and(|v| r.values.contains(v)) {
                        out.push((r.key.clone(), Some(r.values.first()?.clone())));
                    }
                }
                "Exists" => {
                    if have.is_none() {
                        out.push((r.key.clone(), Some("true".into())));
                    }
                }
                "NotIn" => {
                    if have.is_some_and(|v| r.values.contains(v)) {
                        out.push((r.key.clone(), None));
                    }
                }
                "DoesNotExist" => {
                    if have.is_some() {
                        out.push((r.key.clone(), None));
                    }
                }
                _ => return None,
            }
        }
    }
    Some(out)
}

/// The DaemonSet controller's check with the patch applied: `nodes` becomes the blocked nodes
/// that then should run a daemon pod; the re-simulation checks the pods land there.
///
/// `eligible`, for a patch that only adds tolerations: which nodes run a daemon pod without
/// it. Those still do (a toleration only ever lets more nodes pass), so only the others are
/// checked: a tainted pool's 250 nodes of 1,000 rather than all of them, for each fix. The
/// `blocked` nodes are among those others (the controller skips them now), so only those are
/// looked for in it.
#[allow(clippy::too_many_arguments)]
fn verify_daemonset(
    f: &mut Fix,
    w: &Workload,
    template: &PodSpec,
    blocked: &[String],
    nodes: &[NodeInfo],
    eligible: Option<&[bool]>,
    cfg: &SchedulerConfig,
) {
    let Some(patch) = &f.patch else { return };
    f.remedy = Remedy::Patch;
    let Some(spec) = apply_to_spec(template, patch, w.kind) else { return };
    let should_run = daemonset::DaemonNodeCheck::new(&spec, cfg);
    let ran = |i: usize| eligible.and_then(|e| e.get(i)).is_some_and(|&e| e);
    let runs: Vec<bool> =
        nodes.iter().enumerate().map(|(i, n)| ran(i) || should_run.check(n.node()).should_run).collect();
    let blocked_names: std::collections::BTreeSet<&str> = blocked.iter().map(String::as_str).collect();
    f.nodes = nodes
        .iter()
        .zip(&runs)
        .enumerate()
        .filter(|&(i, (n, &runs))| runs && !ran(i) && blocked_names.contains(n.name()))
        .map(|(_, (n, _))| n.name().to_string())
        .collect();
    if f.nodes.len() != blocked.len() {
        let missed: Vec<&str> =
            blocked.iter().map(String::as_str).filter(|b| !f.nodes.iter().any(|n| n == b)).collect();
        f.still_blocked = Some(format!("the DaemonSet controller still skips {}", missed.join(", ")));
    }
    let eligible = runs.iter().filter(|&&r| r).count();
    f.description.push_str(&format!("; DESIRED becomes {eligible} of {} nodes", nodes.len()));
}

/// The narrowest tolerations for `taints`: `Equal` with the value, or `Exists` for valueless
/// taints, each with the taint's effect.
fn toleration_fix(w: &Workload, original: &PodSpec, taints: &[&Taint], plugin: &'static str) -> Fix {
    let new: Vec<Toleration> = taints
        .iter()
        .filter(|t| is_do_not_schedule(t))
        .map(|t| Toleration {
            key: t.key.clone(),
            operator: if t.value.is_empty() { "Exists".into() } else { "Equal".into() },
            value: t.value.clone(),
            effect: t.effect.clone(),
            toleration_seconds: None,
        })
        .collect();
    let list: Vec<String> = taints.iter().map(|t| t.to_string()).collect();
    tolerations_patch_fix(w, original, &new, plugin, format!("tolerate {}", list.join(", ")))
}

fn tolerations_patch_fix(
    w: &Workload,
    original: &PodSpec,
    add: &[Toleration],
    plugin: &'static str,
    description: String,
) -> Fix {
    // Tolerations have no merge key: a patch replaces the whole list, so keep the existing ones.
    let mut all = original.tolerations.clone();
    for t in add {
        if !all.iter().any(|x| x.same_as(t)) {
            all.push(t.clone());
        }
    }
    let spec = json!({ "tolerations": all });
    let mut f = Fix::new(plugin, FixKind::Toleration, description);
    f.patch = Some(patch_yaml(w.kind, spec));
    f.command = Some(patch_command(w));
    f.remedy = Remedy::Patch;
    f
}

/// nodeSelector: set the values the node has and drop keys it lacks. Required node affinity:
/// add a term (terms are ORed) built from the first term with the failing requirements
/// rewritten to the node's labels.
fn affinity_fix(w: &Workload, original: &PodSpec, node: &crate::model::Node) -> Option<Fix> {
    let labels = &node.metadata.labels;
    let mut spec = Map::new();
    let mut changes = Vec::new();
    let mut warning = None;
    if let Some(sel) = &original.node_selector {
        let mismatched: Vec<(&String, &String)> = sel.iter().filter(|(k, v)| labels.get(*k) != Some(*v)).collect();
        if !mismatched.is_empty() {
            let mut new_sel = Map::new();
            for (k, v) in sel {
                match labels.get(k) {
                    Some(actual) if actual != v => {
                        changes.push(format!("nodeSelector {k}: {v} -> {actual}"));
                        new_sel.insert(k.clone(), json!(actual));
                    }
                    None => {
                        changes.push(format!(
                            "drop nodeSelector {k}={v} (or `kubectl label node {} {k}={v}`)",
                            node.metadata.name
                        ));
                        new_sel.insert(k.clone(), Value::Null);
                    }
                    _ => {}
                }
            }
            spec.insert("nodeSelector".into(), Value::Object(new_sel));
            warning = Some(
                "changing nodeSelector moves every replica; labelling the node instead keeps the workload's intent"
                    .to_string(),
            );
        }
    }
    let required = crate::model::required_node_selector(original.affinity.as_ref());
    if let Some(required) = required {
        let matches =
            crate::model::node_selector::NodeSelectorMatcher::lazy(required, &crate::input::field::FieldPath::root(""))
                .matches(Some(node));
        if !matches {
            let base = required.node_selector_terms.iter().find(|t| !t.is_empty()).cloned().unwrap_or_default();
            let mut term = NodeSelectorTerm { match_expressions: Vec::new(), match_fields: Vec::new() };
            for r in &base.match_expressions {
                let one = crate::model::node_selector::requirements_as_selector(
                    std::slice::from_ref(r),
                    &crate::input::field::FieldPath::root(""),
                );
                let ok = one.map(|s| s.matches(labels)).unwrap_or(false);
                if ok {
                    term.match_expressions.push(r.clone());
                } else if let Some(v) = labels.get(&r.key) {
                    term.match_expressions.push(NodeSelectorRequirement {
                        key: r.key.clone(),
                        operator: "In".into(),
                        values: vec![v.clone()],
                    });
                }
            }
            if term.match_expressions.is_empty() {
                term.match_fields.push(NodeSelectorRequirement {
                    key: "metadata.name".into(),
                    operator: "In".into(),
                    values: vec![node.metadata.name.clone()],
                });
            }
            let mut terms = required.node_selector_terms.clone();
            terms.push(term);
            changes.push(format!("add a required nodeAffinity term that {} matches", node.metadata.name));
            let mut affinity = serde_json::to_value(original.affinity.clone().unwrap_or_default()).unwrap_or_default();
            set_at(
                &mut affinity,
                &["nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"],
                serde_json::to_value(terms).unwrap_or_default(),
            );
            spec.insert("affinity".into(), affinity);
        }
    }
    if changes.is_empty() {
        return None;
    }
    let mut f = Fix::new(node_affinity::NAME, FixKind::Selector, changes.join("; "));
    f.patch = Some(patch_yaml(w.kind, Value::Object(spec)));
    f.command = Some(patch_command(w));
    f.warning = warning;
    f.remedy = Remedy::Patch;
    Some(f)
}

/// Lower the requests that do not fit to what the node has free, taking the deficit from the
/// container asking most. No fix when the node has nothing free or is out of pod slots.
fn resource_fix(
    w: &Workload,
    original: &PodSpec,
    insufficient: &[node_resources_fit::InsufficientResource],
    node: &str,
    preemption: Option<String>,
) -> Option<Fix> {
    let mut containers: BTreeMap<String, Map<String, Value>> = BTreeMap::new();
    let mut changes = Vec::new();
    for r in insufficient {
        let free = r.capacity.saturating_sub(r.used);
        if r.resource_name == "pods" || free <= 0 {
            return None;
        }
        let deficit = r.requested - free;
        let (c, current) = original
            .containers
            .iter()
            .filter_map(|c| c.resources.requests.get(&r.resource_name).map(|q| (c, q)))
            .max_by_key(|(_, q)| scaled(&r.resource_name, q))?;
        let current_v = scaled(&r.resource_name, current);
        let new_v = current_v - deficit;
        if new_v <= 0 {
            return None;
        }
        let shown = match r.resource_name.as_str() {
            CPU => format_cpu(new_v),
            MEMORY | EPHEMERAL_STORAGE => format_bytes(new_v).trim_start_matches('~').to_string(),
            _ => new_v.to_string(),
        };
        // An approximate byte form would not be exact; fall back to the plain count.
        let shown = if Quantity::parse(&shown).map(|q| scaled(&r.resource_name, &q)) == Ok(new_v) {
            shown
        } else {
            new_v.to_string()
        };
        changes.push(format!("container {:?}: requests.{} {} -> {shown}", c.name, r.resource_name, current));
        containers.entry(c.name.clone()).or_default().insert(r.resource_name.clone(), json!(shown));
    }
    if changes.is_empty() {
        return None;
    }
    let list: Vec<Value> =
        containers.into_iter().map(|(name, reqs)| json!({ "name": name, "resources": { "requests": reqs } })).collect();
    let mut f = Fix::new(
        node_resources_fit::NAME,
        FixKind::Requests,
        format!("request what {node} has free: {}", changes.join("; ")),
    );
    f.nodes = vec![node.to_string()];
    f.patch = Some(patch_yaml(w.kind, json!({ "containers": list })));
    f.command = Some(patch_command(w));
    let warning = "lower requests let the pod fit but may starve it at run time; adding capacity is the other fix";
    f.warning = Some(match preemption {
        Some(note) => format!("{warning}; {note}"),
        None => warning.into(),
    });
    f.remedy = Remedy::Patch;
    Some(f)
}

/// Why DefaultPreemption did not make room on the node for a pod of `spec` (whose cycle
/// found no candidate there): no pod on it has a lower priority, or evicting all that do is
/// still not enough.
fn preemption_note(spec: &PodSpec, info: &NodeInfo) -> String {
    let priority = crate::cluster::priority::pod_priority(spec);
    let lower = info.pods().iter().filter(|p| p.priority < priority).count();
    if lower == 0 {
        format!(
            "preemption cannot make room on {}: none of its {} pods has a priority below this pod's ({priority})",
            info.name(),
            info.pods().len()
        )
    } else {
        format!(
            "preemption cannot make room on {}: even without its {lower} pods of priority below {priority} the pod does not fit",
            info.name()
        )
    }
}

fn scaled(resource: &str, q: &Quantity) -> i64 {
    if resource == CPU {
        q.milli_value()
    } else {
        q.value()
    }
}

/// Wraps a pod-spec fragment at the kind's pod spec path and renders it as YAML.
fn patch_yaml(kind: WorkloadKind, spec: Value) -> String {
    let mut value = spec;
    for part in kind.pod_spec_path().rsplit('.') {
        let mut m = Map::new();
        m.insert(part.to_string(), value);
        value = Value::Object(m);
    }
    serde_yaml::to_string(&value).unwrap_or_default()
}

fn patch_command(w: &Workload) -> String {
    format!(
        "kubectl -n {} patch {} {} --type strategic --patch-file placement-fix.yaml",
        w.namespace,
        w.kind.as_str().to_lowercase(),
        w.name
    )
}

/// Applies a fix's patch to a pod spec with [`strategic_merge`], the rules the playground
/// also applies to the manifest text, so a fix is verified under the merge that applies it.
/// `None` when the patch is not YAML, lacks the kind's pod spec path, or the merged spec no
/// longer decodes.
pub fn apply_to_spec(spec: &PodSpec, patch_yaml_text: &str, kind: WorkloadKind) -> Option<PodSpec> {
    let mut patch: Value = serde_yaml::from_str(patch_yaml_text).ok()?;
    for part in kind.pod_spec_path().split('.') {
        patch = patch.get_mut(part)?.take();
    }
    if !patch.is_object() {
        return None;
    }
    let mut base = serde_json::to_value(spec).ok()?;
    strategic_merge(&mut base, &patch);
    crate::input::documents::strip_nulls(&mut base);
    serde_json::from_value(base).ok()
}

/// Merges `patch` into `base` as `kubectl patch --type strategic` does for the fields fixes
/// touch. The one home of these rules: [`apply_to_spec`] verifies fixes with it and the
/// playground applies fixes to the manifest text with it.
///
/// - mappings merge key by key, recursively;
/// - a `null` in the patch deletes the key (a key the base lacks, or holds `null` for, takes
///   the patch's value as it is);
/// - lists are replaced whole (tolerations and node selector terms have no merge key), except
///   `containers` and `initContainers`, which merge by `name`: a patch container merges into
///   the base container of the same name, or is appended when there is none;
/// - any other value (or a type change) is replaced by the patch's.
pub fn strategic_merge(base: &mut Value, patch: &Value) {
    merge_at(base, patch, "");
}

/// [`strategic_merge`] with the key `base` is held under (lists merge by the key's rule).
fn merge_at(base: &mut Value, patch: &Value, key: &str) {
    match (base, patch) {
        (Value::Object(b), Value::Object(p)) => {
            for (k, pv) in p {
                if pv.is_null() {
                    b.remove(k);
                    continue;
                }
                match b.get_mut(k) {
                    Some(bv) if !bv.is_null() => merge_at(bv, pv, k),
                    _ => {
                        b.insert(k.clone(), pv.clone());
                    }
                }
            }
        }
        (Value::Array(b), Value::Array(p)) if key == "containers" || key == "initContainers" => {
            for pc in p {
                let name = pc.get("name").and_then(Value::as_str);
                match b.iter_mut().find(|c| name.is_some() && c.get("name").and_then(Value::as_str) == name) {
                    Some(c) => merge_at(c, pc, ""),
                    None => b.push(pc.clone()),
                }
            }
        }
        (b, p) => *b = p.clone(),
    }
}

/// Sets `value` at `path` of objects in `root`, creating missing (or null) objects on the way,
/// as `root[a][b][c] = value` does; a non-object on the way leaves `root` unchanged.
fn set_at(root: &mut Value, path: &[&str], value: Value) {
    let mut cur = root;
    for key in path {
        if cur.is_null() {
            *cur = Value::Object(serde_json::Map::new());
        }
        let Some(map) = cur.as_object_mut() else { return };
        cur = map.entry(*key).or_insert(Value::Null);
    }
    *cur = value;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::{parse_manifests, Manifests};

    fn manifests(yaml: &str) -> Manifests {
        parse_manifests(yaml, "t.yaml").unwrap()
    }

    const NODES: &str = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels: {cloud.google.com/gke-nodepool: batch}\nspec:\n  taints: [{key: dedicated, value: batch, effect: NoSchedule}]\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: b\n  labels: {cloud.google.com/gke-nodepool: spot}\nspec:\n  taints: [{key: spot, value: 'true', effect: NoSchedule}]\n---\napiVersion: v1\nkind: Node\nmetadata:\n  name: c\n  labels: {cloud.google.com/gke-nodepool: spot2}\nspec:\n  taints: [{key: spot, value: 'true', effect: NoSchedule}]\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: w, namespace: ns}\nspec:\n  replicas: 1\n  selector: {matchLabels: {app: w}}\n  template:\n    metadata: {labels: {app: w}}\n    spec:\n      nodeSelector: {disk: ssd}\n      affinity:\n        nodeAffinity:\n          requiredDuringSchedulingIgnoredDuringExecution:\n            nodeSelectorTerms:\n            - matchExpressions:\n              - {key: zone, operator: In, values: [z1, z2]}\n              - {key: spot, operator: DoesNotExist}\n      containers: [{name: c, image: i}]\n";

    /// A toleration fix verified from the nodes that were eligible (only the others checked)
    /// claims the same nodes and says the same as one verified over every node, for each
    /// DaemonSet of the examples.
    #[test]
    fn toleration_fixes_verify_the_same_from_the_eligible_nodes() {
        let cfg = SchedulerConfig::default();
        let mut checked = 0;
        // Two tainted pools between untainted nodes: each pool's fix leaves the other blocked.
        let pools: String = (0..8)
            .map(|i| {
                let (pool, taint) = match i % 4 {
                    1 => ("a", "{key: a, value: x, effect: NoSchedule}"),
                    3 => ("b", "{key: b, effect: NoSchedule}"),
                    _ => ("plain", ""),
                };
                let taints = if taint.is_empty() { String::new() } else { format!("spec: {{taints: [{taint}]}}\n") };
                format!("apiVersion: v1\nkind: Node\nmetadata: {{name: n{i}, labels: {{cloud.google.com/gke-nodepool: {pool}}}}}\n{taints}---\n")
            })
            .collect();
        let daemon = "apiVersion: apps/v1\nkind: DaemonSet\nmetadata: {name: agent, namespace: ns}\nspec:\n  selector: {matchLabels: {app: a}}\n  template:\n    metadata: {labels: {app: a}}\n    spec: {containers: [{name: c, image: i}]}\n";
        let inputs = crate::testing::example_manifests()
            .into_iter()
            .chain([("two pools".to_string(), format!("{pools}{daemon}"))]);
        for (id, text) in inputs {
            let m = parse_manifests(&text, "t.yaml").unwrap();
            let nodes: Vec<NodeInfo> = m.nodes.iter().map(|(_, n)| NodeInfo::shared(n.clone())).collect();
            for w in m.workloads.iter().filter(|w| w.kind == WorkloadKind::DaemonSet) {
                let template = &w.template.spec;
                let check = daemonset::DaemonNodeCheck::new(template, &cfg);
                let checks: Vec<daemonset::ShouldRun> = nodes.iter().map(|n| check.check(n.node())).collect();
                let eligible: Vec<bool> = checks.iter().map(|c| c.should_run).collect();
                let mut daemon_spec = template.clone();
                daemonset::add_daemon_tolerations(&mut daemon_spec);
                let tainted: Vec<(&crate::model::Node, Vec<&Taint>)> = nodes
                    .iter()
                    .zip(&checks)
                    .filter(|(_, c)| matches!(c.blocked_by, Some(Blocker::Taint(_))))
                    .map(|(n, _)| (n.node(), taint_toleration::untolerated_taints(&daemon_spec, n.node(), &cfg)))
                    .collect();
                for fix in pool_toleration_fixes(w, template, &tainted) {
                    let claimed = fix.nodes.clone();
                    let (mut all, mut from_eligible) = (fix.clone(), fix);
                    verify_daemonset(&mut all, w, template, &claimed, &nodes, None, &cfg);
                    verify_daemonset(&mut from_eligible, w, template, &claimed, &nodes, Some(&eligible), &cfg);
                    assert_eq!(format!("{from_eligible:?}"), format!("{all:?}"), "{id}: {}", w.name);
                    checked += 1;
                }
            }
        }
        assert!(checked >= 3, "{checked} fixes checked");
    }

    #[test]
    fn every_node_controller_taint_is_a_lifecycle_taint() {
        for key in [
            "node.kubernetes.io/not-ready",
            "node.kubernetes.io/unreachable",
            "node.kubernetes.io/memory-pressure",
            "node.kubernetes.io/disk-pressure",
            "node.kubernetes.io/pid-pressure",
            "node.kubernetes.io/network-unavailable",
            "node.kubernetes.io/unschedulable",
            "node.cloudprovider.kubernetes.io/uninitialized",
        ] {
            assert!(is_lifecycle_taint(key), "{key}");
        }
        for key in ["nvidia.com/gpu", "node-role.kubernetes.io/control-plane", "node.kubernetes.io/out-of-service"] {
            assert!(!is_lifecycle_taint(key), "{key}");
        }
    }

    /// One fix per pool with exactly that pool's taints; pools needing the same toleration
    /// share one; and the fix for all of them.
    #[test]
    fn toleration_fixes_per_pool_and_for_all() {
        let m = manifests(NODES);
        let w = &m.workloads[0];
        let tainted: Vec<(&crate::model::Node, Vec<&Taint>)> =
            m.nodes.iter().map(|(_, n)| (&**n, n.spec.taints.iter().collect())).collect();
        let fixes = pool_toleration_fixes(w, &w.template.spec, &tainted);
        let got: Vec<(Option<&str>, Option<&str>, Vec<&str>)> =
            fixes.iter().map(|f| (f.scope, f.pool.as_deref(), f.nodes.iter().map(String::as_str).collect())).collect();
        assert_eq!(
            got,
            [
                (Some("pool"), Some("batch"), vec!["a"]),
                (Some("pool"), Some("spot, spot2"), vec!["b", "c"]),
                (Some("all"), None, vec!["a", "b", "c"]),
            ]
        );
        let batch = fixes[0].patch.as_deref().unwrap();
        assert!(batch.contains("key: dedicated") && !batch.contains("key: spot"), "{batch}");
        // A single group is the broad fix already.
        let one = pool_toleration_fixes(w, &w.template.spec, &tainted[..1]);
        assert_eq!((one.len(), one[0].scope), (1, Some("all")));
    }

    /// The labels a node lacks for the nodeSelector and the first required term.
    #[test]
    fn labels_to_match_the_selector() {
        let m = manifests(NODES);
        let spec = &m.workloads[0].template.spec;
        let b = &m.nodes[1].1;
        let got = labels_to_match(spec, Some(b)).unwrap();
        assert_eq!(got, [("disk".to_string(), Some("ssd".to_string())), ("zone".to_string(), Some("z1".to_string()))]);
        let mut labelled = crate::model::Node::clone(b);
        labelled.metadata.labels.insert("spot".into(), "true".into());
        labelled.metadata.labels.insert("zone".into(), "z2".into());
        let got = labels_to_match(spec, Some(&labelled)).unwrap();
        assert_eq!(got, [("disk".to_string(), Some("ssd".to_string())), ("spot".to_string(), None)]);
        let mut gt = spec.clone();
        let text = "zone";
        if let Some(r) = gt
            .affinity
            .as_mut()
            .and_then(|a| a.node_affinity.as_mut())
            .and_then(|n| n.required.as_mut())
            .and_then(|r| r.node_selector_terms.first_mut())
            .and_then(|t| t.match_expressions.iter_mut().find(|r| r.key == text))
        {
            r.operator = "Gt".into();
        }
        assert_eq!(labels_to_match(&gt, Some(b)), None, "Gt is not met by a label to add");
    }

    /// Repair the node names its conditions, or says they are not in the input.
    #[test]
    fn repair_fix_reads_the_conditions() {
        let m = manifests(
            "apiVersion: v1\nkind: Node\nmetadata: {name: sick}\nspec:\n  taints: [{key: node.kubernetes.io/disk-pressure, effect: NoSchedule}]\nstatus:\n  conditions:\n  - {type: Ready, status: 'True'}\n  - {type: DiskPressure, status: 'True', reason: KubeletHasDiskPressure, message: ephemeral storage low}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: bare}\nspec:\n  unschedulable: true\n  taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]\n",
        );
        let sick = &m.nodes[0].1;
        let bare = &m.nodes[1].1;
        let f = repair_fix(&[sick]).unwrap();
        assert_eq!(f.kind, FixKind::RepairNode);
        assert!(f.patch.is_none());
        assert!(
            f.description.contains("DiskPressure=True (KubeletHasDiskPressure: ephemeral storage low)"),
            "{}",
            f.description
        );
        assert!(!f.description.contains("Ready=True"), "{}", f.description);
        assert_eq!(f.remedy, Remedy::RepairNodes(vec!["sick".into()]));
        let cordoned = repair_fix(&[bare]).unwrap();
        assert_eq!(cordoned.command.as_deref(), Some("kubectl uncordon bare"));
        assert!(cordoned.description.contains("status.conditions not in the input"), "{}", cordoned.description);
        assert!(repair_fix(&[]).is_none());
    }

    #[test]
    fn merges_maps_deletes_nulls_and_merges_containers_by_name() {
        let mut base: Value = serde_json::json!({
            "spec": {"nodeSelector": {"a": "1", "b": "2"},
                     "affinity": {"podAntiAffinity": {"x": 1}},
                     "tolerations": [{"key": "old"}],
                     "containers": [{"name": "c", "image": "i", "resources": {"requests": {"cpu": "2"}}}]}
        });
        let patch: Value = serde_yaml::from_str(
            "spec:\n  nodeSelector: {a: '3', b: null}\n  affinity: {nodeAffinity: {y: 2}}\n  tolerations: [{key: new}]\n  containers: [{name: c, resources: {requests: {cpu: 500m}}}]\n",
        )
        .unwrap();
        strategic_merge(&mut base, &patch);
        assert_eq!(base["spec"]["nodeSelector"], serde_json::json!({"a": "3"}));
        assert_eq!(base["spec"]["affinity"]["podAntiAffinity"]["x"], 1);
        assert_eq!(base["spec"]["affinity"]["nodeAffinity"]["y"], 2);
        assert_eq!(base["spec"]["tolerations"], serde_json::json!([{"key": "new"}]));
        assert_eq!(base["spec"]["containers"][0]["image"], "i");
        assert_eq!(base["spec"]["containers"][0]["resources"]["requests"]["cpu"], "500m");
    }

    #[test]
    fn init_containers_merge_by_name_and_new_names_are_appended() {
        let mut base = json!({"initContainers": [{"name": "a", "image": "i"}], "containers": [{"name": "c"}]});
        let patch = json!({"initContainers": [{"name": "a", "image": "j"}, {"name": "b"}],
                           "containers": [{"image": "no-name"}], "ports": [1]});
        strategic_merge(&mut base, &patch);
        assert_eq!(base["initContainers"], json!([{"name": "a", "image": "j"}, {"name": "b"}]));
        assert_eq!(base["containers"], json!([{"name": "c"}, {"image": "no-name"}]), "a nameless one never matches");
        assert_eq!(base["ports"], json!([1]));
    }

    /// `apply_to_spec` merges at the kind's pod spec path with the same rules.
    #[test]
    fn apply_to_spec_merges_at_the_pod_spec_path() {
        let spec = PodSpec {
            node_selector: Some([("a".to_string(), "1".to_string()), ("b".to_string(), "2".to_string())].into()),
            tolerations: vec![Toleration { key: "old".into(), operator: "Exists".into(), ..Default::default() }],
            ..Default::default()
        };
        let patch = "spec:\n  template:\n    spec:\n      nodeSelector: {b: null, c: '3'}\n      tolerations: [{key: new, operator: Exists}]\n";
        let patched = apply_to_spec(&spec, patch, WorkloadKind::Deployment).expect("the patch applies");
        let selector = patched.node_selector.unwrap();
        assert_eq!(selector.keys().collect::<Vec<_>>(), ["a", "c"]);
        assert_eq!(patched.tolerations.len(), 1);
        assert_eq!(patched.tolerations[0].key, "new");
        assert!(apply_to_spec(&spec, "spec: {nodeSelector: {}}\n", WorkloadKind::Deployment).is_none(), "wrong path");
    }
}
