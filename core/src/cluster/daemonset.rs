//! The DaemonSet controller's rules (`pkg/controller/daemon`): the tolerations it adds to
//! daemon pods, which nodes should run one, and how it pins each pod to its node.

use crate::model::node_selector::{RequiredNodeAffinity, FIELD_METADATA_NAME};
use crate::model::taints::{
    add_or_update_toleration, find_untolerated_taint, is_do_not_schedule, NO_EXECUTE, NO_SCHEDULE,
    TAINT_NODE_DISK_PRESSURE, TAINT_NODE_MEMORY_PRESSURE, TAINT_NODE_NETWORK_UNAVAILABLE, TAINT_NODE_NOT_READY,
    TAINT_NODE_PID_PRESSURE, TAINT_NODE_UNREACHABLE, TAINT_NODE_UNSCHEDULABLE,
};
use crate::model::{
    Affinity, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PodSpec, Taint, Toleration,
};
use crate::scheduler::framework::SchedulerConfig;

/// `AddOrUpdateDaemonPodTolerations`: `Exists` tolerations with no tolerationSeconds, in
/// upstream's order; network-unavailable only for hostNetwork pods.
pub fn add_daemon_tolerations(spec: &mut PodSpec) {
    let mut wanted = vec![
        (TAINT_NODE_NOT_READY, NO_EXECUTE),
        (TAINT_NODE_UNREACHABLE, NO_EXECUTE),
        (TAINT_NODE_DISK_PRESSURE, NO_SCHEDULE),
        (TAINT_NODE_MEMORY_PRESSURE, NO_SCHEDULE),
        (TAINT_NODE_PID_PRESSURE, NO_SCHEDULE),
        (TAINT_NODE_UNSCHEDULABLE, NO_SCHEDULE),
    ];
    if spec.host_network {
        wanted.push((TAINT_NODE_NETWORK_UNAVAILABLE, NO_SCHEDULE));
    }
    for (key, effect) in wanted {
        add_or_update_toleration(
            &mut spec.tolerations,
            Toleration { key: key.into(), operator: "Exists".into(), effect: effect.into(), ..Default::default() },
        );
    }
}

/// `NodeShouldRunDaemonPod`'s answer, with the taint that decided it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShouldRun {
    pub should_run: bool,
    pub should_continue_running: bool,
    /// Why not, in Placement's words.
    pub blocked_by: Option<Blocker>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Blocker {
    NodeName(String),
    NodeAffinity,
    Taint(Taint),
}

/// `NodeShouldRunDaemonPod`: the template's nodeName and required node affinity must match;
/// an untolerated NoSchedule/NoExecute taint stops new pods, and an untolerated NoExecute taint
/// also evicts running ones. `spec.unschedulable` is not checked: daemon pods tolerate it.
pub fn node_should_run(template: &PodSpec, node: &Node, cfg: &SchedulerConfig) -> ShouldRun {
    DaemonNodeCheck::new(template, cfg).check(node)
}

/// [`node_should_run`] prepared once per template, for asking about every node in turn: the
/// daemon tolerations and the node affinity are built once, not once per node.
pub struct DaemonNodeCheck<'a> {
    template: &'a PodSpec,
    /// The template's tolerations plus the controller's own.
    tolerations: Vec<Toleration>,
    affinity: RequiredNodeAffinity<'a>,
    comparison_operators: bool,
}

impl<'a> DaemonNodeCheck<'a> {
    pub fn new(template: &'a PodSpec, cfg: &SchedulerConfig) -> Self {
        // The controller checks a copy of the template with the node's name and its own
        // tolerations. Only the tolerations differ from the template in what is checked here,
        // so only they are copied.
        let mut pod = PodSpec {
            tolerations: template.tolerations.clone(),
            host_network: template.host_network,
            ..Default::default()
        };
        add_daemon_tolerations(&mut pod);
        Self {
            template,
            tolerations: pod.tolerations,
            affinity: RequiredNodeAffinity::from_pod(template),
            comparison_operators: cfg.gates.taint_toleration_comparison_operators,
        }
    }

    pub fn check(&self, node: &Node) -> ShouldRun {
        let no = |blocker| ShouldRun { should_run: false, should_continue_running: false, blocked_by: Some(blocker) };
        if !self.template.node_name.is_empty() && self.template.node_name != node.metadata.name {
            return no(Blocker::NodeName(self.template.node_name.clone()));
        }
        if !self.affinity.matches(node) {
            return no(Blocker::NodeAffinity);
        }
        let (taints, cmp) = (&node.spec.taints, self.comparison_operators);
        if let Some(taint) = find_untolerated_taint(taints, &self.tolerations, is_do_not_schedule, cmp) {
            let evicting = find_untolerated_taint(taints, &self.tolerations, |t| t.effect == NO_EXECUTE, cmp);
            return ShouldRun {
                should_run: false,
                should_continue_running: evicting.is_none(),
                blocked_by: Some(Blocker::Taint(taint.clone())),
            };
        }
        ShouldRun { should_run: true, should_continue_running: true, blocked_by: None }
    }
}

/// `ReplaceDaemonSetPodNodeNameNodeAffinity`: the required terms are replaced wholesale by a
/// `metadata.name In [node]` field term; preferred terms survive.
pub fn pin_to_node(affinity: Option<Affinity>, node_name: &str) -> Affinity {
    let term = NodeSelectorTerm {
        match_expressions: Vec::new(),
        match_fields: vec![NodeSelectorRequirement {
            key: FIELD_METADATA_NAME.into(),
            operator: "In".into(),
            values: vec![node_name.into()],
        }],
    };
    let mut affinity = affinity.unwrap_or_default();
    let node_affinity = affinity.node_affinity.get_or_insert_with(NodeAffinity::default);
    node_affinity.required = Some(NodeSelector { node_selector_terms: vec![term] });
    affinity
}

/// [`pin_to_node`] again, on an affinity it returned, for another node: only the name
/// changes, in place (a DaemonSet's controller pins one pod per node, 1,000 at 1,000 nodes).
/// An affinity not pinned that way is pinned afresh.
pub fn repin(affinity: &mut Affinity, node_name: &str) {
    let pinned = affinity.node_affinity.as_mut().and_then(|a| a.required.as_mut()).and_then(|r| {
        match r.node_selector_terms.as_mut_slice() {
            [term] if term.match_expressions.is_empty() => match term.match_fields.as_mut_slice() {
                [field] if field.key == FIELD_METADATA_NAME && field.operator == "In" => field.values.first_mut(),
                _ => None,
            },
            _ => None,
        }
    });
    match pinned {
        Some(name) => {
            name.clear();
            name.push_str(node_name);
        }
        None => *affinity = pin_to_node(Some(std::mem::take(affinity)), node_name),
    }
}

/// Why [`target_node_name`] found no node (upstream's `GetTargetNodeName` errors).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TargetNodeError {
    /// A `metadata.name In` requirement with other than one value.
    #[error("expected exactly one node name in matchFields, found {}", values.len())]
    NotOneName { values: Vec<String> },
    #[error("no node name found in the pod's nodeName or node affinity")]
    NoNodeName,
}

/// `GetTargetNodeName`: `spec.nodeName`, else the single `metadata.name In` value of a term.
pub fn target_node_name(spec: &PodSpec) -> Result<String, TargetNodeError> {
    if !spec.node_name.is_empty() {
        return Ok(spec.node_name.clone());
    }
    let terms = crate::model::required_node_selector(spec.affinity.as_ref())
        .map(|r| r.node_selector_terms.as_slice())
        .unwrap_or_default();
    for term in terms {
        for f in &term.match_fields {
            if f.key == FIELD_METADATA_NAME && f.operator == "In" {
                return match f.values.as_slice() {
                    [one] => Ok(one.clone()),
                    _ => Err(TargetNodeError::NotOneName { values: f.values.clone() }),
                };
            }
        }
    }
    Err(TargetNodeError::NoNodeName)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PreferredSchedulingTerm;

    /// Re-pinning an affinity gives what pinning the original gives, whatever it held.
    #[test]
    fn repin_is_pin_to_node_for_the_next_node() {
        let label_term = |key: &str| NodeSelectorTerm {
            match_expressions: vec![NodeSelectorRequirement {
                key: key.into(),
                operator: "Exists".into(),
                values: vec![],
            }],
            match_fields: vec![],
        };
        let preferred = NodeAffinity {
            preferred: vec![PreferredSchedulingTerm { weight: 3, preference: label_term("ssd") }],
            ..Default::default()
        };
        let required = NodeAffinity {
            required: Some(NodeSelector { node_selector_terms: vec![label_term("a"), label_term("b")] }),
            ..Default::default()
        };
        // (the template's affinity, why)
        let rows = [
            (None, "none"),
            (Some(Affinity::default()), "empty"),
            (Some(Affinity { node_affinity: Some(preferred), ..Default::default() }), "preferred terms"),
            (Some(Affinity { node_affinity: Some(required), ..Default::default() }), "required terms"),
        ];
        for (template, why) in rows {
            let mut pinned = pin_to_node(template.clone(), "node-1");
            repin(&mut pinned, "node-22");
            assert_eq!(pinned, pin_to_node(template.clone(), "node-22"), "{why}");
            // An affinity pin_to_node did not make is pinned afresh.
            let mut other = template.clone().unwrap_or_default();
            repin(&mut other, "node-3");
            assert_eq!(other, pin_to_node(template, "node-3"), "{why}");
        }
    }
}
