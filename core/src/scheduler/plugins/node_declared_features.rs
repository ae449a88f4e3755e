//! NodeDeclaredFeatures (KEP-5328, `pkg/scheduler/framework/plugins/nodedeclaredfeatures`,
//! over the registry of `k8s.io/component-helpers/nodedeclaredfeatures`): a pod whose spec
//! needs a feature goes only to nodes whose kubelet declares it in `status.declaredFeatures`.
//! In the default profile, after every other filter, when its gate is on (beta and on from
//! 1.36; docs/upstream/releases-1.36-1.37.md).
//!
//! The registry (component-helpers v0.36.0, the same to v0.36.3; 1.35's v0.35.0) has five
//! features, none with a maximum version; only two can be required by a pod that is not
//! yet running (`InferForScheduling`): the others are checked on updates only.

use crate::model::version::KubeVersion;
use crate::model::{Node, PodSpec};
use crate::scheduler::framework::{Code, SchedulerConfig, Status};

pub const NAME: &str = "NodeDeclaredFeatures";
/// The Filter's reason from 1.36 (`errReasonUnsatisfiedRequirements`), where the plugin
/// checks `IsSubset` and no longer lists what is missing.
pub const ERR_REASON_UNSATISFIED: &str = "node(s) didn't match Pod's required features";

/// A container's `restartPolicyRules` with this action (`RestartAllContainersOnContainerExits`).
pub const RESTART_ALL_CONTAINERS: &str = "RestartAllContainersOnContainerExits";
/// `hostNetwork: true` with `hostUsers: false`; in the registry from 1.36.
pub const USER_NAMESPACES_HOST_NETWORK: &str = "UserNamespacesHostNetworkSupport";

/// PreFilter: the features `spec` requires (`InferForPodScheduling`), in the registry's
/// (name) order; `None` is its Skip (the gate off, or nothing required).
pub fn requirements(spec: &PodSpec, cfg: &SchedulerConfig) -> Option<Vec<&'static str>> {
    if !cfg.gates.node_declared_features {
        return None;
    }
    let mut required = Vec::new();
    let restarts_all = spec
        .containers
        .iter()
        .chain(&spec.init_containers)
        .any(|c| c.restart_policy_rules.iter().any(|r| r.action == "RestartAllContainers"));
    if restarts_all {
        required.push(RESTART_ALL_CONTAINERS);
    }
    if cfg.version.at_least(1, 36) && spec.host_network && spec.host_users == Some(false) {
        required.push(USER_NAMESPACES_HOST_NETWORK);
    }
    (!required.is_empty()).then_some(required)
}

/// Filter: every required feature is among the node's declared ones.
pub fn filter(required: &[&str], node: &Node, version: KubeVersion) -> Status {
    let declared = &node.status.declared_features;
    let missing: Vec<&str> = required.iter().copied().filter(|r| !declared.iter().any(|d| d == r)).collect();
    if missing.is_empty() {
        return Status::success();
    }
    let reason: std::borrow::Cow<'static, str> = if version.at_least(1, 36) {
        ERR_REASON_UNSATISFIED.into()
    } else {
        // 1.35 (the gate turned on): `MatchNodeFeatureSet`'s unsatisfied requirements.
        format!("node declared features check failed - unsatisfied requirements: {}", missing.join(", ")).into()
    };
    Status::new(Code::UnschedulableAndUnresolvable, reason)
        .with_detail(format!("the node does not declare {} (status.declaredFeatures)", missing.join(", ")))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::version::FeatureGates;

    fn cfg(version: KubeVersion) -> SchedulerConfig {
        SchedulerConfig { version, gates: FeatureGates::for_version(version), ..Default::default() }
    }

    fn spec(yaml: &str) -> PodSpec {
        serde_yaml::from_str(yaml).expect("a pod spec")
    }

    fn node(declared: &[&str]) -> Node {
        let mut node = Node::default();
        node.status.declared_features = declared.iter().map(|f| f.to_string()).collect();
        node
    }

    /// (name, release, pod spec, node's declared features, want: the requirements, then the
    /// Filter's reason or `None` when it passes)
    type Case<'a> = (&'a str, KubeVersion, &'a str, &'a [&'a str], Option<Vec<&'a str>>, Option<&'a str>);

    #[test]
    fn pods_go_to_nodes_that_declare_what_they_need() {
        let restart_all = "containers:\n- name: c\n  restartPolicyRules:\n  - action: RestartAllContainers\n    exitCodes: {operator: In, values: [42]}\n";
        let user_ns = "hostNetwork: true\nhostUsers: false\ncontainers: [{name: c}]\n";
        let both =
            format!("{user_ns}initContainers:\n- name: i\n  restartPolicyRules:\n  - action: RestartAllContainers\n");
        let (v135, v136) = (KubeVersion::new(1, 35), KubeVersion::new(1, 36));
        let short = Some(ERR_REASON_UNSATISFIED);
        let cases: [Case; 8] = [
            ("1.35: the gate is off", v135, restart_all, &[], None, None),
            ("1.36: nothing required is a Skip", v136, "containers: [{name: c}]\n", &[], None, None),
            (
                "1.36: hostUsers true needs nothing",
                v136,
                "hostNetwork: true\nhostUsers: true\ncontainers: [{name: c}]\n",
                &[],
                None,
                None,
            ),
            (
                "1.36: a RestartAllContainers rule, node without it",
                v136,
                restart_all,
                &[],
                Some(vec![RESTART_ALL_CONTAINERS]),
                short,
            ),
            ("1.36: declared", v136, restart_all, &[RESTART_ALL_CONTAINERS], Some(vec![RESTART_ALL_CONTAINERS]), None),
            (
                "1.36: user namespaces with host network",
                v136,
                user_ns,
                &[RESTART_ALL_CONTAINERS],
                Some(vec![USER_NAMESPACES_HOST_NETWORK]),
                short,
            ),
            (
                "1.36: both, one declared",
                v136,
                &both,
                &[USER_NAMESPACES_HOST_NETWORK],
                Some(vec![RESTART_ALL_CONTAINERS, USER_NAMESPACES_HOST_NETWORK]),
                short,
            ),
            (
                "1.36: both declared, and more",
                v136,
                &both,
                &["ExtendWebSocketsToKubelet", RESTART_ALL_CONTAINERS, USER_NAMESPACES_HOST_NETWORK],
                Some(vec![RESTART_ALL_CONTAINERS, USER_NAMESPACES_HOST_NETWORK]),
                None,
            ),
        ];
        for (name, version, pod, declared, want_required, want_reason) in cases {
            let required = requirements(&spec(pod), &cfg(version));
            assert_eq!(required, want_required, "{name}");
            if let Some(required) = required {
                let status = filter(&required, &node(declared), version);
                assert_eq!(status.is_success(), want_reason.is_none(), "{name}");
                if let Some(reason) = want_reason {
                    assert_eq!(status.reasons.first().map(|r| r.as_ref()), Some(reason), "{name}");
                    assert_eq!(status.code, Code::UnschedulableAndUnresolvable, "{name}");
                }
            }
        }
        // 1.35 with the gate on: the older words, naming what is missing.
        let mut on = cfg(v135);
        on.gates.node_declared_features = true;
        let required = requirements(&spec(restart_all), &on).expect("required");
        let status = filter(&required, &node(&[]), v135);
        assert_eq!(
            status.reasons.first().map(|r| r.as_ref()),
            Some(
                "node declared features check failed - unsatisfied requirements: RestartAllContainersOnContainerExits"
            )
        );
        assert_eq!(requirements(&spec(user_ns), &on), None, "not in 1.35's registry");
    }
}
