//! TaintToleration: NoSchedule/NoExecute taints filter, PreferNoSchedule taints score.

use std::borrow::Cow;

use crate::model::taints::{is_do_not_schedule, tolerations_tolerate, PREFER_NO_SCHEDULE};
use crate::model::version::KubeVersion;
use crate::model::{Node, PodSpec, Taint, Toleration};
use crate::scheduler::framework::{Code, SchedulerConfig, Status};

pub const NAME: &str = "TaintToleration";

/// The Filter reason, whose wording changed across releases (shared NOTES §4).
///
/// `node(s) had untolerated taint(s)` came with kubernetes#134740 in 1.35 and was
/// cherry-picked to release-1.34 (#135023, from 1.34.2); a minor version means its latest
/// patch, so 1.34 uses it too (docs/fidelity.md).
pub fn reason_for(taint: &Taint, version: KubeVersion) -> Cow<'static, str> {
    if version.at_least(1, 34) {
        Cow::Borrowed("node(s) had untolerated taint(s)")
    } else if version.at_least(1, 25) {
        format!("node(s) had untolerated taint {{{}: {}}}", taint.key, taint.value).into()
    } else if version.at_least(1, 18) {
        format!("node(s) had taint {{{}: {}}}, that the pod didn't tolerate", taint.key, taint.value).into()
    } else {
        Cow::Borrowed("node(s) had taints that the pod didn't tolerate")
    }
}

/// Every taint of the node that blocks scheduling and that no toleration tolerates, in node
/// order. Upstream stops at the first; Placement's explanation names them all.
pub fn untolerated_taints<'a>(pod: &PodSpec, node: &'a Node, cfg: &SchedulerConfig) -> Vec<&'a Taint> {
    let cmp = cfg.gates.taint_toleration_comparison_operators;
    node.spec
        .taints
        .iter()
        .filter(|t| is_do_not_schedule(t) && !tolerations_tolerate(&pod.tolerations, t, cmp))
        .collect()
}

pub fn filter(pod: &PodSpec, node: &Node, cfg: &SchedulerConfig) -> Status {
    if !rejects(pod, node, cfg) {
        return Status::success();
    }
    let untolerated = untolerated_taints(pod, node, cfg);
    let Some(first) = untolerated.first() else {
        return Status::success();
    };
    Status::new(Code::UnschedulableAndUnresolvable, reason_for(first, cfg.version))
        .with_detail(describe_taints(&untolerated))
}

/// Whether [`filter`] fails, without collecting the taints or building its status.
pub fn rejects(pod: &PodSpec, node: &Node, cfg: &SchedulerConfig) -> bool {
    let cmp = cfg.gates.taint_toleration_comparison_operators;
    node.spec.taints.iter().any(|t| is_do_not_schedule(t) && !tolerations_tolerate(&pod.tolerations, t, cmp))
}

/// `untolerated taint {key: value}` in upstream's brace notation, plus the effect.
pub fn describe_taints(taints: &[&Taint]) -> String {
    // Built by pushing: the playground describes every tainted node of every workload on
    // every edit, and `format!` per taint was a visible part of that.
    let mut s = String::from(if taints.len() == 1 { "untolerated taint " } else { "untolerated taints " });
    for (k, t) in taints.iter().enumerate() {
        if k > 0 {
            s.push_str(", ");
        }
        for part in ["{", &t.key, ": ", &t.value, "} (", &t.effect, ")"] {
            s.push_str(part);
        }
    }
    s
}

/// Raw score: the number of PreferNoSchedule taints not tolerated by the pod's tolerations
/// whose effect is empty or PreferNoSchedule. Normalized reversed (fewer is better).
/// `relevant` comes from [`score_tolerations`], computed once per pod.
pub fn score(relevant: &[Toleration], node: &Node, cfg: &SchedulerConfig) -> i64 {
    let cmp = cfg.gates.taint_toleration_comparison_operators;
    node.spec
        .taints
        .iter()
        .filter(|t| t.effect == PREFER_NO_SCHEDULE && !tolerations_tolerate(relevant, t, cmp))
        .count() as i64
}

/// PreScore: the tolerations that can tolerate PreferNoSchedule taints.
pub fn score_tolerations(pod: &PodSpec) -> Vec<Toleration> {
    pod.tolerations.iter().filter(|t| t.effect.is_empty() || t.effect == PREFER_NO_SCHEDULE).cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reason_by_version() {
        let t = Taint { key: "testkey".into(), value: "palotest".into(), effect: "NoSchedule".into() };
        // (version, reason, why)
        let rows = [
            (KubeVersion::new(1, 35), "node(s) had untolerated taint(s)", "PR #134740"),
            (KubeVersion::new(1, 30), "node(s) had untolerated taint {testkey: palotest}", "PR #109119"),
            (
                KubeVersion::new(1, 20),
                "node(s) had taint {testkey: palotest}, that the pod didn't tolerate",
                "PR #87250",
            ),
            (KubeVersion::new(1, 17), "node(s) had taints that the pod didn't tolerate", "original wording"),
        ];
        for (v, expected, why) in rows {
            assert_eq!(reason_for(&t, v), expected, "{v}: {why}");
        }
    }
}
