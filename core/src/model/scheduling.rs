//! PriorityClasses (`k8s.io/api/scheduling/v1`) and PodDisruptionBudgets
//! (`k8s.io/api/policy/v1`): what decides who may preempt whom, and which evictions a drain
//! may make.

use serde::{Deserialize, Serialize};

use crate::model::{LabelSelector, ObjectMeta};

/// `v1.PreemptLowerPriority`, the default `preemptionPolicy`.
pub const PREEMPT_LOWER_PRIORITY: &str = "PreemptLowerPriority";
/// `v1.PreemptNever`: the pod waits for room and never evicts anyone.
pub const PREEMPT_NEVER: &str = "Never";

/// `scheduling.SystemNodeCritical` and its value (`scheduling.SystemCriticalPriority + 1000`).
pub const SYSTEM_NODE_CRITICAL: &str = "system-node-critical";
/// `scheduling.SystemClusterCritical` and its value (`scheduling.SystemCriticalPriority`).
pub const SYSTEM_CLUSTER_CRITICAL: &str = "system-cluster-critical";
/// `scheduling.SystemCriticalPriority`: `2 * HighestUserDefinablePriority`.
pub const SYSTEM_CRITICAL_PRIORITY: i32 = 2_000_000_000;
/// `scheduling.HighestUserDefinablePriority`: a user's PriorityClass may not go above it.
pub const HIGHEST_USER_DEFINABLE_PRIORITY: i32 = 1_000_000_000;
/// `scheduling.SystemPriorityClassPrefix`: names with it are reserved for the system classes.
pub const SYSTEM_PRIORITY_CLASS_PREFIX: &str = "system-";

/// A PriorityClass.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PriorityClass {
    pub metadata: ObjectMeta,
    pub value: i32,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub global_default: bool,
    /// Defaulted to `PreemptLowerPriority` by the API server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub preemption_policy: Option<String>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
}

impl PriorityClass {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// The two classes every cluster has (`scheduling.SystemPriorityClasses`), which the API
    /// server creates at start-up.
    pub fn system_classes() -> [PriorityClass; 2] {
        let class = |name: &str, value: i32, description: &str| PriorityClass {
            metadata: ObjectMeta { name: name.into(), ..Default::default() },
            value,
            global_default: false,
            preemption_policy: Some(PREEMPT_LOWER_PRIORITY.into()),
            description: description.into(),
        };
        [
            class(
                SYSTEM_NODE_CRITICAL,
                SYSTEM_CRITICAL_PRIORITY + 1000,
                "Used for system critical pods that must not be moved from their current node.",
            ),
            class(
                SYSTEM_CLUSTER_CRITICAL,
                SYSTEM_CRITICAL_PRIORITY,
                "Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.",
            ),
        ]
    }
}

/// An `intstr.IntOrString`: `minAvailable: 2` or `minAvailable: "50%"`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(untagged)]
pub enum IntOrString {
    Int(i32),
    String(String),
}

impl IntOrString {
    /// `intstr.GetScaledValueFromIntOrPercent`: an int as is, a percentage of `total`
    /// rounded up (`round_up`) or down. `None` for a string that is not a percentage.
    pub fn scaled_value(&self, total: i32, round_up: bool) -> Option<i32> {
        match self {
            IntOrString::Int(v) => Some(*v),
            IntOrString::String(s) => {
                let percent: i64 = s.strip_suffix('%')?.parse().ok()?;
                let scaled = percent * i64::from(total);
                let v = if round_up { (scaled + 99).div_euclid(100) } else { scaled.div_euclid(100) };
                i32::try_from(v).ok()
            }
        }
    }
}

impl std::fmt::Display for IntOrString {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            IntOrString::Int(v) => write!(f, "{v}"),
            IntOrString::String(s) => f.write_str(s),
        }
    }
}

/// A PodDisruptionBudget.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudget {
    pub metadata: ObjectMeta,
    pub spec: PodDisruptionBudgetSpec,
    /// What the disruption controller last wrote; `None` in a manifest, when Placement
    /// computes it from the input's pods ([`crate::cluster::disruption`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<PodDisruptionBudgetStatus>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudgetSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_available: Option<IntOrString>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    /// A nil or empty selector matches no pod (policy/v1).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unhealthy_pod_eviction_policy: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PodDisruptionBudgetStatus {
    pub disruptions_allowed: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    pub expected_pods: i32,
    /// Pods the eviction API has admitted and the controller has not yet seen go.
    #[serde(skip_serializing_if = "crate::model::Labels::is_empty")]
    pub disrupted_pods: crate::model::Labels,
}

impl PodDisruptionBudget {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    pub fn namespace(&self) -> &str {
        self.metadata.namespace_or_default()
    }

    /// `ns/name`, as kubectl and the reports name it.
    pub fn key(&self) -> String {
        format!("{}/{}", self.namespace(), self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_scale_as_intstr_does() {
        let cases = [
            ("int", IntOrString::Int(2), 10, true, Some(2)),
            ("50% of 5 up", IntOrString::String("50%".into()), 5, true, Some(3)),
            ("50% of 5 down", IntOrString::String("50%".into()), 5, false, Some(2)),
            ("not a percentage", IntOrString::String("two".into()), 5, true, None),
        ];
        for (name, v, total, up, want) in cases {
            assert_eq!(v.scaled_value(total, up), want, "{name}");
        }
    }

    #[test]
    fn budgets_read_kubectl_output() {
        let pdb: PodDisruptionBudget = serde_yaml::from_str(
            "metadata: {name: web, namespace: shop}\nspec:\n  minAvailable: 50%\n  selector: {matchLabels: {app: web}}\nstatus:\n  disruptionsAllowed: 0\n  currentHealthy: 2\n  desiredHealthy: 2\n  expectedPods: 3\n",
        )
        .unwrap();
        assert_eq!(pdb.spec.min_available, Some(IntOrString::String("50%".into())));
        assert_eq!(pdb.status.as_ref().map(|s| s.disruptions_allowed), Some(0));
        assert_eq!(pdb.key(), "shop/web");
    }
}
