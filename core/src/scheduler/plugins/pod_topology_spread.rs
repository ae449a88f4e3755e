//! PodTopologySpread: `DoNotSchedule` constraints filter, `ScheduleAnyway` constraints score.
//!
//! Mirrors `pkg/scheduler/framework/plugins/podtopologyspread/{common.go,filtering.go,scoring.go}`
//! as of 1.35/1.36: counts are kept per constraint (two constraints on the same topology key
//! do not share counts), `minDomains`, `nodeAffinityPolicy`, `nodeTaintsPolicy` and
//! `matchLabelKeys` are honoured, and only pods in the incoming pod's namespace are counted.
//!
//! A pod without constraints of its own is scored by the default profile's system default
//! constraints (`defaultingType: System`: hostname `maxSkew: 3`, zone `maxSkew: 5`, both
//! `ScheduleAnyway`), counting the pods that [`default_selector`] selects: the selectors of the
//! Services that select the pod and of its controlling ReplicaSet, StatefulSet or
//! ReplicationController, from the [`Listers`] the simulation fills. Being `ScheduleAnyway`,
//! they never filter.
//!
//! Feature gates follow their default for the configured release: `matchLabelKeys` from 1.27,
//! node inclusion policies from 1.26 (before, only nodes matching the pod's node affinity and
//! nodeSelector count, and taints are ignored), `minDomains` from 1.27.

use std::collections::BTreeMap;

use serde::Serialize;

use super::inter_pod_affinity::describe_selector;
use crate::input::field::{FieldError, FieldPath};
use crate::model::labels::{Operator, Requirement, Selector};
use crate::model::node_selector::RequiredNodeAffinity;
use crate::model::taints::{find_untolerated_taint, is_do_not_schedule};
use crate::model::{Labels, Node, Pod};
use crate::scheduler::framework::{Code, NodeInfo, PlacedPod, SchedulerConfig, Status};

pub const NAME: &str = "PodTopologySpread";

/// `ErrReasonConstraintsNotMatch`.
pub const ERR_REASON_CONSTRAINTS_NOT_MATCH: &str = "node(s) didn't match pod topology spread constraints";
/// `ErrReasonNodeLabelNotMatch`.
pub const ERR_REASON_NODE_LABEL_NOT_MATCH: &str =
    "node(s) didn't match pod topology spread constraints (missing required label)";

/// `v1.LabelHostname`: scored per node rather than per domain.
pub const LABEL_HOSTNAME: &str = "kubernetes.io/hostname";

pub const DO_NOT_SCHEDULE: &str = "DoNotSchedule";
pub const SCHEDULE_ANYWAY: &str = "ScheduleAnyway";
const HONOR: &str = "Honor";

/// `topologySpreadConstraint`: one constraint with its selector parsed and defaults applied.
#[derive(Debug, Clone)]
struct Constraint {
    max_skew: i32,
    topology_key: String,
    selector: Selector,
    /// `None` when `MinDomainsInPodTopologySpread` is off (before 1.27): the global minimum is
    /// then the smallest domain count, whatever the number of domains.
    min_domains: Option<i32>,
    honor_node_affinity: bool,
    honor_node_taints: bool,
}

impl Constraint {
    /// `matchNodeInclusionPolicies`: does `node` count as a domain of this constraint?
    fn includes_node(&self, pod: &Pod, node: &Node, required: &RequiredNodeAffinity, cfg: &SchedulerConfig) -> bool {
        if self.honor_node_affinity && !required.matches(node) {
            return false;
        }
        if self.honor_node_taints {
            let cmp = cfg.gates.taint_toleration_comparison_operators;
            if find_untolerated_taint(&node.spec.taints, &pod.spec.tolerations, is_do_not_schedule, cmp).is_some() {
                return false;
            }
        }
        true
    }
}

/// `filterTopologySpreadConstraints`: the pod's constraints with `whenUnsatisfiable == action`.
fn constraints_of(pod: &Pod, action: &str, cfg: &SchedulerConfig) -> Result<Vec<Constraint>, FieldError> {
    let path = FieldPath::root("spec.topologySpreadConstraints");
    let policies = cfg.version.at_least(1, 26);
    let mut out = Vec::new();
    for (i, c) in pod.spec.topology_spread_constraints.iter().enumerate() {
        if c.when_unsatisfiable != action {
            continue;
        }
        let mut selector =
            Selector::from_label_selector(c.label_selector.as_ref(), &path.index(i).child("labelSelector"))?;
        if cfg.version.at_least(1, 27) && !c.match_label_keys.is_empty() {
            // mergeLabelSetWithSelector: the pod's values for the keys it has, then the
            // selector's requirements; a nil selector stays "nothing".
            let mut merged: Vec<Requirement> = c
                .match_label_keys
                .iter()
                .filter_map(|k| {
                    pod.metadata.labels.get(k).map(|v| Requirement {
                        key: k.clone(),
                        operator: Operator::In,
                        values: vec![v.clone()],
                    })
                })
                .collect();
            if let (false, Selector::All(reqs)) = (merged.is_empty(), &mut selector) {
                merged.append(reqs);
                *reqs = merged;
            }
        }
        out.push(Constraint {
            max_skew: c.max_skew,
            topology_key: c.topology_key.clone(),
            selector,
            min_domains: cfg.version.at_least(1, 27).then(|| c.min_domains.unwrap_or(1)),
            honor_node_affinity: !policies || c.node_affinity_policy.as_deref().is_none_or(|p| p == HONOR),
            honor_node_taints: policies && c.node_taints_policy.as_deref() == Some(HONOR),
        });
    }
    Ok(out)
}

/// `systemDefaultConstraints` (podtopologyspread/plugin.go): `(topologyKey, maxSkew)`, both
/// `ScheduleAnyway`.
pub const SYSTEM_DEFAULT_CONSTRAINTS: [(&str, i32); 2] = [(LABEL_HOSTNAME, 3), (LABEL_TOPOLOGY_ZONE, 5)];

/// `v1.LabelTopologyZone`.
pub const LABEL_TOPOLOGY_ZONE: &str = "topology.kubernetes.io/zone";

/// What the plugin's Service, ReplicaSet, StatefulSet and ReplicationController listers hold,
/// as far as `helper.DefaultSelector` reads them.
#[derive(Debug, Clone, Default)]
pub struct Listers {
    /// `(namespace, spec.selector)` of each Service.
    pub services: Vec<(String, Option<Labels>)>,
    /// Controllers by `(apiVersion, kind, namespace, name)`: their pod selectors.
    pub controllers: BTreeMap<ControllerKey, ControllerSelector>,
}

/// `(apiVersion, kind, namespace, name)` of a controller, as an owner reference names it.
pub type ControllerKey = (String, String, String, String);

/// A controller's selector as its API types it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum ControllerSelector {
    /// A ReplicationController's `spec.selector`, a label map.
    Map(Labels),
    /// A ReplicaSet's or StatefulSet's `spec.selector`.
    LabelSelector(crate::model::LabelSelector),
}

impl Listers {
    pub fn controller_key(api_version: &str, kind: &str, namespace: &str, name: &str) -> ControllerKey {
        (api_version.to_string(), kind.to_string(), namespace.to_string(), name.to_string())
    }
}

/// `helper.DefaultSelector`: the merged selectors of the pod's Services (in its namespace,
/// selector non-nil and matching the pod's labels), and the requirements of its controlling
/// ReplicationController (`v1`), ReplicaSet or StatefulSet (`apps/v1`) when the lister has it.
/// Empty (matching everything) when there is neither: the caller then applies no defaults.
pub fn default_selector(pod: &Pod, listers: &Listers) -> Vec<Requirement> {
    let namespace = pod_namespace(pod);
    let mut label_set: Labels = Labels::new();
    for (ns, selector) in &listers.services {
        let Some(selector) = selector else { continue };
        if ns == namespace && selector.iter().all(|(k, v)| pod.metadata.labels.get(k) == Some(v)) {
            label_set.extend(selector.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    let as_requirements = |set: &Labels| -> Vec<Requirement> {
        set.iter()
            .map(|(k, v)| Requirement { key: k.clone(), operator: Operator::In, values: vec![v.clone()] })
            .collect()
    };
    let mut requirements = as_requirements(&label_set);
    let Some(owner) = pod.metadata.controller() else { return requirements };
    let key = Listers::controller_key(&owner.api_version, &owner.kind, namespace, &owner.name);
    let known_kind = matches!(
        (owner.api_version.as_str(), owner.kind.as_str()),
        ("v1", "ReplicationController") | ("apps/v1", "ReplicaSet") | ("apps/v1", "StatefulSet")
    );
    match listers.controllers.get(&key).filter(|_| known_kind) {
        Some(ControllerSelector::Map(selector)) => {
            label_set.extend(selector.iter().map(|(k, v)| (k.clone(), v.clone())));
            requirements = as_requirements(&label_set);
        }
        Some(ControllerSelector::LabelSelector(selector)) => {
            // A selector that does not parse, or selects nothing, adds no requirement.
            if let Ok(Selector::All(reqs)) =
                Selector::from_label_selector(Some(selector), &FieldPath::root("spec.selector"))
            {
                requirements.extend(reqs);
            }
        }
        None => {}
    }
    requirements
}

/// `buildDefaultConstraints` for Score: the system defaults with the pod's default selector;
/// none when that selector is empty.
fn system_default_constraints(pod: &Pod, cfg: &SchedulerConfig) -> Vec<Constraint> {
    let requirements = default_selector(pod, &cfg.spread_listers);
    if requirements.is_empty() {
        return Vec::new();
    }
    // Node inclusion policies at their defaults: nodeAffinityPolicy Honor, nodeTaintsPolicy
    // Ignore (before 1.26 the same behaviour without the fields).
    SYSTEM_DEFAULT_CONSTRAINTS
        .iter()
        .map(|&(key, max_skew)| Constraint {
            max_skew,
            topology_key: key.to_string(),
            selector: Selector::All(requirements.clone()),
            min_domains: cfg.version.at_least(1, 27).then_some(1),
            honor_node_affinity: true,
            honor_node_taints: false,
        })
        .collect()
}

/// `nodeLabelsMatchSpreadConstraints`: the node has every constraint's topology key.
fn has_all_keys(labels: &Labels, constraints: &[Constraint]) -> bool {
    constraints.iter().all(|c| labels.contains_key(&c.topology_key))
}

/// `countPodsMatchSelector`: pods of the namespace matching the selector. An empty selector
/// (`labelSelector: {}`) counts nothing, as upstream's `selector.Empty()` check does.
fn count_matching(pods: &[PlacedPod], selector: &Selector, namespace: &str) -> i64 {
    if matches!(selector, Selector::All(reqs) if reqs.is_empty()) {
        return 0;
    }
    pods.iter().filter(|p| p.namespace == namespace && selector.matches(&p.labels)).count() as i64
}

fn pod_namespace(pod: &Pod) -> &str {
    pod.metadata.namespace_or_default()
}

// ---------------------------------------------------------------------------------------------
// PreFilter / Filter

/// What PreFilter computed over every node, read by Filter per node.
#[derive(Debug, Clone, Default)]
pub struct PreFilterState {
    constraints: Vec<Constraint>,
    /// Per constraint: topology value -> matching pods, for every eligible domain.
    tp_value_to_match_num: Vec<BTreeMap<String, i64>>,
    /// Per constraint: the smallest count over the eligible domains (`MaxInt32` when none).
    min_match_num: Vec<i64>,
}

impl PreFilterState {
    /// `minMatchNum`: the global minimum, 0 while there are fewer domains than `minDomains`.
    fn min_match_num(&self, i: usize) -> (i64, bool) {
        match self.constraints[i].min_domains {
            Some(min_domains) if (self.tp_value_to_match_num[i].len() as i64) < i64::from(min_domains) => (0, true),
            _ => (self.min_match_num[i], false),
        }
    }
}

/// Over all nodes (`nodes`, the whole cluster): `Skip` when the pod has no `DoNotSchedule`
/// constraints.
pub fn pre_filter(pod: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig) -> (Status, PreFilterState) {
    let constraints = match constraints_of(pod, DO_NOT_SCHEDULE, cfg) {
        Ok(c) => c,
        Err(e) => {
            // Upstream returns an Error status; Placement reports it as unresolvable.
            let reason = format!("get constraints from pod: obtaining pod's hard topology spread constraints: {e}");
            return (Status::new(Code::UnschedulableAndUnresolvable, reason), PreFilterState::default());
        }
    };
    if constraints.is_empty() {
        return (Status::skip(), PreFilterState::default());
    }

    let namespace = pod_namespace(pod);
    let required = RequiredNodeAffinity::from_pod(&pod.spec);
    let mut counts = vec![BTreeMap::<String, i64>::new(); constraints.len()];
    for info in nodes {
        let labels = &info.node().metadata.labels;
        if !has_all_keys(labels, &constraints) {
            continue;
        }
        for (i, c) in constraints.iter().enumerate() {
            if !c.includes_node(pod, info.node(), &required, cfg) {
                continue;
            }
            let n = count_matching(info.pods(), &c.selector, namespace);
            *counts[i].entry(labels[&c.topology_key].clone()).or_default() += n;
        }
    }
    let min_match_num = counts.iter().map(|m| m.values().copied().min().unwrap_or(i64::from(i32::MAX))).collect();
    (Status::success(), PreFilterState { constraints, tp_value_to_match_num: counts, min_match_num })
}

/// For each constraint in order: the node must have the topology key (else unresolvable), and
/// `matching pods in the node's domain + (1 if the pod matches) - global minimum <= maxSkew`.
pub fn filter(state: &PreFilterState, pod: &Pod, node: &NodeInfo) -> Status {
    let labels = &node.node().metadata.labels;
    for (i, c) in state.constraints.iter().enumerate() {
        let key = &c.topology_key;
        let Some(value) = labels.get(key) else {
            return Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_NODE_LABEL_NOT_MATCH)
                .with_detail(format!("the node has no {key} label, the topologyKey of a DoNotSchedule constraint"));
        };
        let (min, below_min_domains) = state.min_match_num(i);
        let self_match = i64::from(c.selector.matches(&pod.metadata.labels));
        let domains = &state.tp_value_to_match_num[i];
        let match_num = domains.get(value).copied().unwrap_or(0);
        if match_num + self_match - min <= i64::from(c.max_skew) {
            continue;
        }
        let mut detail = format!("{key}={value} would have {} matching pods", match_num + self_match);
        if below_min_domains {
            detail.push_str(&format!(
                ", and with {} eligible {key} domain(s), fewer than minDomains {}, the minimum counts as 0",
                domains.len(),
                c.min_domains.unwrap_or(1)
            ));
        } else if let Some((least, n)) = domains.iter().min_by_key(|(_, n)| **n) {
            detail.push_str(&format!(", the least loaded {key} ({least}) has {n}"));
        }
        detail.push_str(&format!(" (maxSkew {}, counting pods with {})", c.max_skew, describe_selector(&c.selector)));
        return Status::new(Code::Unschedulable, ERR_REASON_CONSTRAINTS_NOT_MATCH).with_detail(detail);
    }
    Status::success()
}

// ---------------------------------------------------------------------------------------------
// Score

/// `topologyNormalizingWeight`: `ln(domains + 2)`, so small topologies are not drowned out.
fn topology_normalizing_weight(size: usize) -> f64 {
    ((size + 2) as f64).ln()
}

/// `scoreForCount`: `maxSkew - 1` is added to water down differences between domains.
fn score_for_count(count: i64, max_skew: i32, weight: f64) -> f64 {
    count as f64 * weight + f64::from(max_skew - 1)
}

/// Normalized scores (0..=100) for `nodes[i]` for each `i` in `feasible`, in that order.
///
/// PreScore: the domains are the topology values of the feasible nodes that have every key;
/// matching pods are counted over the whole cluster (node inclusion policies applied). Score:
/// `round(sum(count * ln(domains + 2) + maxSkew - 1))`, hostname counted on the node itself.
/// NormalizeScore, fewer is better: `100 * (max + min - s) / max`, 100 for all when `max` is
/// 0, and 0 for feasible nodes missing a topology key. All zeros when PreScore would Skip.
pub fn score(pod: &Pod, nodes: &[NodeInfo], feasible: &[usize], cfg: &SchedulerConfig) -> Vec<i64> {
    let zeros = vec![0; feasible.len()];
    if nodes.is_empty() {
        return zeros;
    }
    // The pod's own constraints, or the system defaults. Only the pod's own require a node to
    // have every topology key (`requireAllTopologies`): under the defaults a node without a
    // zone label still gets hostname spreading, and its missing zone counts as the value "".
    let (constraints, require_all_topologies) = if pod.spec.topology_spread_constraints.is_empty() {
        (system_default_constraints(pod, cfg), false)
    } else {
        let Ok(constraints) = constraints_of(pod, SCHEDULE_ANYWAY, cfg) else {
            // Upstream fails PreScore with an error; Placement leaves the plugin out.
            return zeros;
        };
        (constraints, true)
    };
    if constraints.is_empty() {
        return zeros;
    }
    let value_of = |labels: &Labels, key: &str| labels.get(key).cloned().unwrap_or_default();
    let ignored: Vec<bool> = feasible
        .iter()
        .map(|&i| require_all_topologies && !has_all_keys(&nodes[i].node().metadata.labels, &constraints))
        .collect();
    let mut counts = vec![BTreeMap::<String, i64>::new(); constraints.len()];
    for (&i, _) in feasible.iter().zip(&ignored).filter(|(_, ignored)| !**ignored) {
        let labels = &nodes[i].node().metadata.labels;
        for (c, m) in constraints.iter().zip(counts.iter_mut()) {
            // Per-node counts are done in Score.
            if c.topology_key != LABEL_HOSTNAME {
                m.entry(value_of(labels, &c.topology_key)).or_insert(0);
            }
        }
    }
    let scored_nodes = ignored.iter().filter(|i| !**i).count();
    let weights: Vec<f64> = constraints
        .iter()
        .zip(&counts)
        .map(|(c, m)| {
            topology_normalizing_weight(if c.topology_key == LABEL_HOSTNAME { scored_nodes } else { m.len() })
        })
        .collect();

    let namespace = pod_namespace(pod);
    let required = RequiredNodeAffinity::from_pod(&pod.spec);
    for info in nodes {
        let labels = &info.node().metadata.labels;
        if require_all_topologies && !has_all_keys(labels, &constraints) {
            continue;
        }
        for (c, m) in constraints.iter().zip(counts.iter_mut()) {
            if !c.includes_node(pod, info.node(), &required, cfg) {
                continue;
            }
            // Only domains of some feasible node are tracked.
            if let Some(n) = m.get_mut(labels.get(&c.topology_key).map_or("", String::as_str)) {
                *n += count_matching(info.pods(), &c.selector, namespace);
            }
        }
    }

    let raw: Vec<Option<i64>> = feasible
        .iter()
        .zip(&ignored)
        .map(|(&i, &ignored)| {
            if ignored {
                return None;
            }
            let info = &nodes[i];
            let mut s = 0.0;
            for ((c, m), w) in constraints.iter().zip(&counts).zip(&weights) {
                if let Some(value) = info.node().metadata.labels.get(&c.topology_key) {
                    let cnt = if c.topology_key == LABEL_HOSTNAME {
                        count_matching(info.pods(), &c.selector, namespace)
                    } else {
                        m.get(value).copied().unwrap_or(0)
                    };
                    s += score_for_count(cnt, c.max_skew, *w);
                }
            }
            Some(s.round() as i64)
        })
        .collect();
    normalize_score(&raw)
}

/// `NormalizeScore`: ignored nodes (`None`) get 0; the rest `100 * (max + min - s) / max`.
fn normalize_score(raw: &[Option<i64>]) -> Vec<i64> {
    let min = raw.iter().flatten().copied().min().unwrap_or(i64::MAX);
    let max = raw.iter().flatten().copied().max().unwrap_or(0).max(0);
    raw.iter()
        .map(|s| match *s {
            None => 0,
            Some(_) if max == 0 => super::MAX_NODE_SCORE,
            Some(s) => super::MAX_NODE_SCORE * (max + min - s) / max,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::version::KubeVersion;
    use crate::model::{LabelSelector, Taint, TopologySpreadConstraint};
    use crate::testing::{labels, node_info as node, pod};

    /// (pod, nodes, feasible, expected normalized scores, why)
    type ScoreRow = (Pod, Vec<NodeInfo>, Vec<usize>, Vec<i64>, &'static str);

    const ZONE: &str = "topology.kubernetes.io/zone";

    fn webs(n: usize) -> Vec<Pod> {
        (0..n).map(|i| pod("default", &format!("web-{i}"), &[("app", "web")])).collect()
    }

    fn tainted(mut info: NodeInfo) -> NodeInfo {
        info.update_node(|n| {
            n.spec.taints = vec![Taint { key: "dedicated".into(), value: "x".into(), effect: "NoSchedule".into() }]
        });
        info
    }

    /// System default spreading: which selector `DefaultSelector` builds decides whether the
    /// defaults apply; a zoneless node still gets hostname spreading and widens the zone
    /// domains by "" (`requireAllTopologies` is false for the defaults).
    #[test]
    fn system_default_constraints_follow_the_default_selector() {
        use crate::model::OwnerReference;
        let owned = |api_version: &str, kind: &str, name: &str| {
            let mut p = pod("default", "incoming", &[("app", "web")]);
            p.metadata.owner_references = vec![OwnerReference {
                api_version: api_version.into(),
                kind: kind.into(),
                name: name.into(),
                controller: Some(true),
                ..Default::default()
            }];
            p
        };
        let rs = || {
            let mut l = Listers::default();
            l.controllers.insert(
                Listers::controller_key("apps/v1", "ReplicaSet", "default", "web-abc"),
                ControllerSelector::LabelSelector(LabelSelector {
                    match_labels: labels(&[("app", "web")]),
                    ..Default::default()
                }),
            );
            l
        };
        let service = |ns: &str, selector: Option<&[(&str, &str)]>| Listers {
            services: vec![(ns.to_string(), selector.map(labels))],
            ..Default::default()
        };
        let existing = webs(3);
        let nodes = vec![
            node("n1", &[(LABEL_HOSTNAME, "n1"), (ZONE, "z1")], &existing[..2]),
            node("n2", &[(LABEL_HOSTNAME, "n2"), (ZONE, "z1")], &existing[2..]),
            node("n3", &[(LABEL_HOSTNAME, "n3")], &[]),
        ];
        // hostname: count * ln(3 + 2) + 2; zone (z1 and "", 2 domains): 3 * ln(4) + 4 on the
        // zoned nodes only: raw 13, 12, 2, normalized 100 * (13 + 2 - s) / 13.
        let spread = vec![15, 23, 100];
        let none = vec![0, 0, 0];
        let rows: Vec<(&str, Pod, Listers, &Vec<i64>)> = vec![
            ("owned by a listed ReplicaSet", owned("apps/v1", "ReplicaSet", "web-abc"), rs(), &spread),
            (
                "a Service selects the pod",
                pod("default", "incoming", &[("app", "web")]),
                service("default", Some(&[("app", "web")])),
                &spread,
            ),
            ("no Service, no controller", pod("default", "incoming", &[("app", "web")]), rs(), &none),
            (
                "the Service is in another namespace",
                pod("default", "incoming", &[("app", "web")]),
                service("other", Some(&[("app", "web")])),
                &none,
            ),
            (
                "a nil Service selector selects nothing",
                pod("default", "incoming", &[("app", "web")]),
                service("default", None),
                &none,
            ),
            (
                "the Service selects other pods",
                pod("default", "incoming", &[("app", "web")]),
                service("default", Some(&[("app", "db")])),
                &none,
            ),
            ("the owner is not in the listers", owned("apps/v1", "ReplicaSet", "web-xyz"), rs(), &none),
            ("a Job owner is not read", owned("batch/v1", "Job", "web-abc"), rs(), &none),
            ("only apps/v1 ReplicaSets are read", owned("extensions/v1beta1", "ReplicaSet", "web-abc"), rs(), &none),
        ];
        for (why, p, listers, want) in rows {
            let cfg = SchedulerConfig { spread_listers: std::sync::Arc::new(listers), ..Default::default() };
            assert_eq!(&score(&p, &nodes, &[0, 1, 2], &cfg), want, "{why}");
        }
        // The pod's own constraints replace the defaults, and require every topology key.
        let mut own = owned("apps/v1", "ReplicaSet", "web-abc");
        own.spec.topology_spread_constraints = vec![constraint(ZONE, 1, SCHEDULE_ANYWAY)];
        let cfg = SchedulerConfig { spread_listers: std::sync::Arc::new(rs()), ..Default::default() };
        assert_eq!(score(&own, &nodes, &[0, 1, 2], &cfg), vec![100, 100, 0], "n3 lacks the zone key: ignored");
    }

    fn constraint(key: &str, max_skew: i32, when: &str) -> TopologySpreadConstraint {
        TopologySpreadConstraint {
            max_skew,
            topology_key: key.into(),
            when_unsatisfiable: when.into(),
            label_selector: Some(LabelSelector { match_labels: labels(&[("app", "web")]), ..Default::default() }),
            ..Default::default()
        }
    }

    fn incoming(constraints: Vec<TopologySpreadConstraint>) -> Pod {
        let mut p = pod("default", "web-new", &[("app", "web"), ("version", "v2")]);
        p.spec.topology_spread_constraints = constraints;
        p
    }

    fn run(p: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig) -> Vec<Code> {
        let (status, state) = pre_filter(p, nodes, cfg);
        if status.code != Code::Success {
            return vec![status.code; nodes.len()];
        }
        nodes.iter().map(|n| filter(&state, p, n).code).collect()
    }

    use Code::{Skip, Success as Ok_, Unschedulable as U, UnschedulableAndUnresolvable as UU};

    #[test]
    fn filter_rows() {
        let hard = |max_skew| constraint(ZONE, max_skew, DO_NOT_SCHEDULE);
        let three_zones = || {
            vec![
                node("a1", &[(ZONE, "a")], &webs(2)),
                node("b1", &[(ZONE, "b")], &webs(1)),
                node("c1", &[(ZONE, "c")], &webs(1)),
                node("x", &[], &[]),
            ]
        };
        let two_zones = || vec![node("a1", &[(ZONE, "a")], &webs(1)), node("b1", &[(ZONE, "b")], &webs(1))];
        let min_domains = |n| TopologySpreadConstraint { min_domains: Some(n), ..hard(1) };
        let gpu_only = |policy: Option<&str>| {
            let mut p =
                incoming(vec![TopologySpreadConstraint { node_affinity_policy: policy.map(Into::into), ..hard(1) }]);
            p.spec.node_selector = Some(labels(&[("pool", "gpu")]));
            p
        };
        let gpu_nodes = || {
            vec![
                node("a1", &[(ZONE, "a"), ("pool", "gpu")], &webs(1)),
                node("b1", &[(ZONE, "b"), ("pool", "cpu")], &[]),
            ]
        };
        let taints = |policy: Option<&str>| {
            incoming(vec![TopologySpreadConstraint { node_taints_policy: policy.map(Into::into), ..hard(1) }])
        };
        let taint_nodes = || vec![node("a1", &[(ZONE, "a")], &webs(1)), tainted(node("b1", &[(ZONE, "b")], &[]))];
        let other_ns: Vec<Pod> = (0..3).map(|i| pod("other", &format!("w{i}"), &[("app", "web")])).collect();
        let v1: Vec<Pod> =
            (0..2).map(|i| pod("default", &format!("w{i}"), &[("app", "web"), ("version", "v1")])).collect();
        let by_version = TopologySpreadConstraint { match_label_keys: vec!["version".into()], ..hard(1) };
        let empty_selector = TopologySpreadConstraint { label_selector: Some(LabelSelector::default()), ..hard(1) };
        let latest = SchedulerConfig::default();

        // (pod, nodes, expected per node, why)
        let rows: Vec<(Pod, Vec<NodeInfo>, Vec<Code>, &str)> = vec![
            (
                incoming(vec![hard(1)]),
                three_zones(),
                vec![U, Ok_, Ok_, UU],
                "maxSkew 1 over 3 zones: a would be 3 vs 1; x lacks the key",
            ),
            (incoming(vec![hard(2)]), three_zones(), vec![Ok_, Ok_, Ok_, UU], "maxSkew 2 tolerates a"),
            (
                incoming(vec![min_domains(3)]),
                two_zones(),
                vec![U, U],
                "2 domains < minDomains 3: the minimum counts as 0",
            ),
            (incoming(vec![min_domains(2)]), two_zones(), vec![Ok_, Ok_], "minDomains met: the real minimum is used"),
            (gpu_only(None), gpu_nodes(), vec![Ok_, Ok_], "nodeAffinityPolicy Honor (default): zone b is no domain"),
            (
                gpu_only(Some("Ignore")),
                gpu_nodes(),
                vec![U, Ok_],
                "nodeAffinityPolicy Ignore: empty zone b is the minimum",
            ),
            (
                taints(Some("Honor")),
                taint_nodes(),
                vec![Ok_, Ok_],
                "nodeTaintsPolicy Honor: the tainted zone is no domain",
            ),
            (taints(None), taint_nodes(), vec![U, Ok_], "nodeTaintsPolicy Ignore (default) counts the tainted zone"),
            (
                incoming(vec![hard(1)]),
                vec![node("a1", &[(ZONE, "a")], &other_ns), node("b1", &[(ZONE, "b")], &[])],
                vec![Ok_, Ok_],
                "pods of other namespaces are not counted",
            ),
            (
                incoming(vec![by_version]),
                vec![node("a1", &[(ZONE, "a")], &v1), node("b1", &[(ZONE, "b")], &[])],
                vec![Ok_, Ok_],
                "matchLabelKeys: only version v2 pods count",
            ),
            (
                incoming(vec![hard(1)]),
                vec![node("a1", &[(ZONE, "a")], &v1), node("b1", &[(ZONE, "b")], &[])],
                vec![U, Ok_],
                "without matchLabelKeys every version counts",
            ),
            (
                incoming(vec![empty_selector]),
                vec![node("a1", &[(ZONE, "a")], &webs(3)), node("b1", &[(ZONE, "b")], &[])],
                vec![Ok_, Ok_],
                "an empty selector counts no pods (upstream's selector.Empty() check)",
            ),
            (
                incoming(vec![constraint(ZONE, 1, SCHEDULE_ANYWAY)]),
                three_zones(),
                vec![Skip; 4],
                "no DoNotSchedule constraint: PreFilter skips",
            ),
        ];
        for (p, nodes, expected, why) in rows {
            assert_eq!(run(&p, &nodes, &latest), expected, "{why}");
        }

        let old = SchedulerConfig::for_version(KubeVersion::new(1, 25));
        assert_eq!(run(&gpu_only(Some("Ignore")), &gpu_nodes(), &old), vec![Ok_, Ok_], "policies need 1.26");
        assert_eq!(run(&incoming(vec![min_domains(3)]), &two_zones(), &old), vec![Ok_, Ok_], "minDomains needs 1.27");
    }

    #[test]
    fn filter_details() {
        let p = incoming(vec![constraint(ZONE, 1, DO_NOT_SCHEDULE)]);
        let nodes = [node("a1", &[(ZONE, "a")], &webs(2)), node("b1", &[(ZONE, "b")], &webs(1)), node("x", &[], &[])];
        let (_, state) = pre_filter(&p, &nodes, &SchedulerConfig::default());
        let s = filter(&state, &p, &nodes[0]);
        assert_eq!(s.reasons, vec![ERR_REASON_CONSTRAINTS_NOT_MATCH]);
        assert_eq!(
            s.detail.as_deref(),
            Some("topology.kubernetes.io/zone=a would have 3 matching pods, the least loaded topology.kubernetes.io/zone (b) has 1 (maxSkew 1, counting pods with app=web)")
        );
        let s = filter(&state, &p, &nodes[2]);
        assert_eq!(s.reasons, vec![ERR_REASON_NODE_LABEL_NOT_MATCH]);
    }

    #[test]
    fn score_rows() {
        let soft = |key: &str, max_skew| constraint(key, max_skew, SCHEDULE_ANYWAY);
        let zones = || {
            vec![
                node("a1", &[(ZONE, "a")], &webs(2)),
                node("b1", &[(ZONE, "b")], &webs(1)),
                node("c1", &[(ZONE, "c")], &[]),
                node("x", &[], &webs(5)),
            ]
        };
        let hosts = vec![
            node("n1", &[(LABEL_HOSTNAME, "n1")], &webs(2)),
            node("n2", &[(LABEL_HOSTNAME, "n2")], &[]),
            node("n3", &[(LABEL_HOSTNAME, "n3")], &webs(1)),
        ];
        let all = |n: usize| (0..n).collect::<Vec<_>>();

        // (pod, nodes, feasible, expected, why)
        let rows: Vec<ScoreRow> = vec![
            (
                incoming(vec![soft(ZONE, 1)]),
                zones(),
                all(4),
                // w = ln(5); raw a = round(2w) = 3, b = round(w) = 2, c = 0
                vec![0, 33, 100, 0],
                "fewer matching pods score higher; a node without the key scores 0",
            ),
            (
                incoming(vec![soft(ZONE, 3)]),
                zones(),
                all(4),
                // raw a = round(2w + 2) = 5, b = round(w + 2) = 4, c = 2
                vec![40, 60, 100, 0],
                "a larger maxSkew waters the differences down",
            ),
            (
                incoming(vec![soft(LABEL_HOSTNAME, 1)]),
                hosts.clone(),
                all(3),
                vec![0, 100, 33],
                "hostname counts per node",
            ),
            (
                incoming(vec![soft(ZONE, 1)]),
                zones(),
                vec![1, 2],
                // zone a is no domain: w = ln(4); raw b = round(1.39) = 1, c = 0
                vec![0, 100],
                "only the feasible nodes' zones are domains",
            ),
            (
                incoming(vec![soft(ZONE, 1)]),
                vec![node("a1", &[(ZONE, "a")], &[]), node("b1", &[(ZONE, "b")], &[])],
                all(2),
                vec![100, 100],
                "no matching pods anywhere: every node scores 100",
            ),
            (
                incoming(vec![constraint(ZONE, 1, DO_NOT_SCHEDULE)]),
                zones(),
                all(4),
                vec![0; 4],
                "no ScheduleAnyway constraint",
            ),
            (pod("default", "p", &[]), zones(), all(4), vec![0; 4], "no constraints: system defaults are not applied"),
        ];
        for (p, nodes, feasible, expected, why) in rows {
            assert_eq!(score(&p, &nodes, &feasible, &SchedulerConfig::default()), expected, "{why}");
        }
    }
}
