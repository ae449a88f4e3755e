//! What Filter and Score share (`common.go`, and `plugin.go`'s system defaults): constraints
//! with their selectors and node inclusion policies, and the default selector.

use super::*;

/// `topologySpreadConstraint`: one constraint with its selector parsed and defaults applied.
#[derive(Debug, Clone)]
pub(super) struct Constraint {
    pub(super) max_skew: i32,
    pub(super) topology_key: String,
    pub(super) selector: Selector,
    /// `None` when `MinDomainsInPodTopologySpread` is off (before 1.27): the global minimum is
    /// then the smallest domain count, whatever the number of domains.
    pub(super) min_domains: Option<i32>,
    pub(super) honor_node_affinity: bool,
    pub(super) honor_node_taints: bool,
}

impl Constraint {
    /// `matchNodeInclusionPolicies`: does `node` count as a domain of this constraint?
    pub(super) fn includes_node(
        &self,
        pod: &Pod,
        info: &NodeInfo,
        required: &RequiredNodeAffinity,
        cfg: &SchedulerConfig,
    ) -> bool {
        // Matched on the node's label index (`NodeInfo` as a `SelectableNode`).
        if self.honor_node_affinity && !required.matches(info) {
            return false;
        }
        if self.honor_node_taints {
            let node = info.node();
            let cmp = cfg.gates.taint_toleration_comparison_operators;
            if find_untolerated_taint(&node.spec.taints, &pod.spec.tolerations, is_do_not_schedule, cmp).is_some() {
                return false;
            }
        }
        true
    }
}

/// `filterTopologySpreadConstraints`: the pod's constraints with `whenUnsatisfiable == action`.
pub(super) fn constraints_of(pod: &Pod, action: &str, cfg: &SchedulerConfig) -> Result<Vec<Constraint>, FieldError> {
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
    let known_kind = matches!(
        (owner.api_version.as_str(), owner.kind.as_str()),
        ("v1", "ReplicationController") | ("apps/v1", "ReplicaSet") | ("apps/v1", "StatefulSet")
    );
    // A daemon pod's owner is none of those: its key is not even built (a DaemonSet on
    // 1,000 nodes scores 1,000 pods).
    if !known_kind {
        return requirements;
    }
    let key = Listers::controller_key(&owner.api_version, &owner.kind, namespace, &owner.name);
    match listers.controllers.get(&key) {
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
pub(super) fn system_default_constraints(pod: &Pod, cfg: &SchedulerConfig) -> Vec<Constraint> {
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
pub(super) fn has_all_keys<L: LabelLookup + ?Sized>(labels: &L, constraints: &[Constraint]) -> bool {
    constraints.iter().all(|c| labels.label(&c.topology_key).is_some())
}

/// `countPodsMatchSelector`: pods of the namespace matching the selector. An empty selector
/// (`labelSelector: {}`) counts nothing, as upstream's `selector.Empty()` check does.
pub(super) fn count_matching(pods: &[PlacedPod], selector: &Selector, namespace: &str) -> i64 {
    if !counts_any(selector) {
        return 0;
    }
    pods.iter().filter(|p| *p.namespace == *namespace && selector.matches(&*p.labels)).count() as i64
}

/// Whether counting with `selector` can count a pod: an empty selector counts none here.
pub(super) fn counts_any(selector: &Selector) -> bool {
    !matches!(selector, Selector::All(reqs) if reqs.is_empty())
}

pub(super) fn pod_namespace(pod: &Pod) -> &str {
    pod.metadata.namespace_or_default()
}
