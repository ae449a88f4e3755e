//! The smallest change to a workload that lets its pods reach nodes they cannot reach now:
//! tolerations for the exact taints, nodeSelector/affinity edits for labels, smaller requests
//! for resources. Each fix is a ready-to-paste strategic-merge patch, re-checked against the
//! cluster before it is offered (`verified`), and flagged when it is broader than needed.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::cluster::daemonset::{self, Blocker};
use crate::input::documents::{Workload, WorkloadKind};
use crate::model::quantity::{format_bytes, format_cpu, Quantity};
use crate::model::resources::{CPU, EPHEMERAL_STORAGE, MEMORY};
use crate::model::taints::{is_do_not_schedule, NO_EXECUTE, NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE};
use crate::model::{NodeSelectorRequirement, NodeSelectorTerm, Pod, PodSpec, Taint, Toleration};
use crate::scheduler::framework::{NodeInfo, SchedulerConfig};
use crate::scheduler::plugins::{node_affinity, node_ports, node_resources_fit, node_unschedulable, taint_toleration};
use crate::scheduler::{schedule, ScheduleResult};

/// How many alternative per-node fixes to offer for one workload.
const MAX_FIXES: usize = 4;

#[derive(Debug, Clone, Serialize)]
pub struct Fix {
    /// The plugin whose rejection this fix removes.
    pub plugin: &'static str,
    /// The nodes the pods can reach once the patch is applied (checked, see `verified`).
    pub nodes: Vec<String>,
    pub description: String,
    /// Strategic-merge patch in YAML, to paste into the manifest or pass to `kubectl patch`.
    pub patch: Option<String>,
    pub command: Option<String>,
    /// Set when the fix allows more than the failing nodes need.
    pub warning: Option<String>,
    /// The patched pod was re-run through the same checks and reaches `nodes`.
    pub verified: bool,
}

/// Fixes for a replicated workload (or Pod), from the verdicts of its first pod that found no
/// node.
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
    for (i, v) in result.verdicts.iter().enumerate() {
        if v.status.is_success() {
            continue;
        }
        let Some(info) = nodes.get(i).filter(|n| n.name() == v.node) else { continue };
        let candidate = match v.status.plugin {
            Some(taint_toleration::NAME) => {
                let taints = taint_toleration::untolerated_taints(&pod.spec, info.node(), cfg);
                Some(toleration_fix(w, original, &taints, taint_toleration::NAME))
            }
            Some(node_unschedulable::NAME) => {
                let taint =
                    Taint { key: TAINT_NODE_UNSCHEDULABLE.into(), value: String::new(), effect: NO_SCHEDULE.into() };
                let mut f = toleration_fix(w, original, &[&taint], node_unschedulable::NAME);
                f.warning = Some(format!(
                    "node {} is cordoned, usually to drain it; prefer `kubectl uncordon {}` if it should take pods",
                    info.name(),
                    info.name()
                ));
                Some(f)
            }
            Some(node_affinity::NAME) => affinity_fix(w, original, info.node()),
            Some(node_resources_fit::NAME) => resource_fix(w, original, &v.insufficient, info.name()),
            Some(node_ports::NAME) => Some(Fix {
                plugin: node_ports::NAME,
                nodes: vec![],
                description: format!(
                    "{} on {}: pick another hostPort, or drop hostPort and expose the pod through a Service",
                    v.status.detail.clone().unwrap_or_default(),
                    info.name()
                ),
                patch: None,
                command: None,
                warning: None,
                verified: false,
            }),
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
    // Most nodes unlocked first; then verify each by scheduling the patched pod again.
    fixes.sort_by_key(|f| std::cmp::Reverse(f.nodes.len()));
    fixes.truncate(MAX_FIXES);
    for f in &mut fixes {
        verify(f, w, pod, nodes, cfg);
    }
    // Partial fixes are worth showing only when nothing gets the pod all the way there.
    if fixes.iter().any(|f| f.verified) {
        fixes.retain(|f| f.verified || f.patch.is_none());
    }
    fixes.sort_by_key(|f| (!f.verified, std::cmp::Reverse(f.nodes.len())));
    fixes
}

/// Re-runs the scheduler with the patch applied. `verified` means the patched pod fits every
/// node the fix names; a fix that only clears this plugin's rejection says what blocks next.
fn verify(f: &mut Fix, w: &Workload, pod: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig) {
    let Some(patch) = &f.patch else { return };
    let Some(mut spec) = apply_to_spec(&w.template.spec, patch, w.kind) else { return };
    crate::cluster::defaults::api_defaults(&mut spec, &cfg.gates);
    crate::cluster::defaults::default_toleration_seconds(&mut spec);
    let patched = Pod { metadata: pod.metadata.clone(), spec, status: Default::default() };
    let result = schedule(&patched, nodes, cfg, true);
    let targeted: Vec<_> = result.verdicts.iter().filter(|v| f.nodes.contains(&v.node)).collect();
    f.verified = !targeted.is_empty() && targeted.iter().all(|v| v.status.is_success());
    let still_blocked: Vec<String> = targeted
        .iter()
        .filter(|v| !v.status.is_success())
        .map(|v| format!("{} ({})", v.node, v.status.reasons.join(", ")))
        .collect();
    if !still_blocked.is_empty() {
        f.description.push_str(&format!("; after it, still blocked by: {}", still_blocked.join("; ")));
    }
}

/// Fixes that let a DaemonSet cover every node: one toleration patch for all taints that keep
/// its pods off nodes, the blanket NoSchedule/NoExecute pair as a broad alternative, and
/// request changes for daemon pods that do not fit.
pub fn suggest_daemonset(
    w: &Workload,
    template: &PodSpec,
    results: &[(usize, ScheduleResult)],
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
) -> Vec<Fix> {
    let mut fixes = Vec::new();
    let mut daemon_spec = template.clone();
    daemonset::add_daemon_tolerations(&mut daemon_spec);
    let mut taints: Vec<&Taint> = Vec::new();
    let mut blocked = Vec::new();
    let should_run = daemonset::DaemonNodeCheck::new(template, cfg);
    for n in nodes {
        let verdict = should_run.check(n.node());
        if let Some(Blocker::Taint(_)) = verdict.blocked_by {
            blocked.push(n.name().to_string());
            for t in taint_toleration::untolerated_taints(&daemon_spec, n.node(), cfg) {
                if !taints.iter().any(|x| x.key == t.key && x.value == t.value && x.effect == t.effect) {
                    taints.push(t);
                }
            }
        }
    }
    if !taints.is_empty() {
        let mut precise = toleration_fix(w, template, &taints, taint_toleration::NAME);
        verify_daemonset(&mut precise, w, template, &blocked, nodes, cfg);
        fixes.push(precise);

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
        broad.warning = Some(
            "keyless `operator: Exists` tolerates every taint with that effect, including control-plane, \
             node-problem and future taints: the daemon also runs on nodes being drained or failing"
                .into(),
        );
        verify_daemonset(&mut broad, w, template, &blocked, nodes, cfg);
        fixes.push(broad);
    }
    // Daemon pods that are eligible but do not fit (resources, ports): per-node fixes.
    for (i, result) in results {
        if result.node.is_some() {
            continue;
        }
        let Some(v) = result.verdicts.get(*i) else { continue };
        if v.status.plugin == Some(node_resources_fit::NAME) {
            if let Some(mut f) = resource_fix(w, template, &v.insufficient, &v.node) {
                f.nodes = vec![v.node.clone()];
                fixes.push(f);
            }
        }
    }
    fixes
}

fn verify_daemonset(
    f: &mut Fix,
    w: &Workload,
    template: &PodSpec,
    blocked: &[String],
    nodes: &[NodeInfo],
    cfg: &SchedulerConfig,
) {
    let Some(patch) = &f.patch else { return };
    let Some(spec) = apply_to_spec(template, patch, w.kind) else { return };
    let should_run = daemonset::DaemonNodeCheck::new(&spec, cfg);
    let runs: Vec<bool> = nodes.iter().map(|n| should_run.check(n.node()).should_run).collect();
    let blocked_names: std::collections::BTreeSet<&str> = blocked.iter().map(String::as_str).collect();
    f.nodes = nodes
        .iter()
        .zip(&runs)
        .filter(|(n, &runs)| runs && blocked_names.contains(n.name()))
        .map(|(n, _)| n.name().to_string())
        .collect();
    f.verified = f.nodes.len() == blocked.len();
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
    Fix {
        plugin,
        nodes: Vec::new(),
        description,
        patch: Some(patch_yaml(w.kind, spec)),
        command: Some(patch_command(w)),
        warning: None,
        verified: false,
    }
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
    Some(Fix {
        plugin: node_affinity::NAME,
        nodes: Vec::new(),
        description: changes.join("; "),
        patch: Some(patch_yaml(w.kind, Value::Object(spec))),
        command: Some(patch_command(w)),
        warning,
        verified: false,
    })
}

/// Lower the requests that do not fit to what the node has free, taking the deficit from the
/// container asking most. No fix when the node has nothing free or is out of pod slots.
fn resource_fix(
    w: &Workload,
    original: &PodSpec,
    insufficient: &[node_resources_fit::InsufficientResource],
    node: &str,
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
    Some(Fix {
        plugin: node_resources_fit::NAME,
        nodes: vec![node.to_string()],
        description: format!("request what {node} has free: {}", changes.join("; ")),
        patch: Some(patch_yaml(w.kind, json!({ "containers": list }))),
        command: Some(patch_command(w)),
        warning: Some(
            "lower requests let the pod fit but may starve it at run time; adding capacity is the other fix".into(),
        ),
        verified: false,
    })
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
