//! The disruption controller's arithmetic (`pkg/controller/disruption`): how many of a
//! PodDisruptionBudget's pods may be disrupted now, for preemption's victim choice and for
//! a drain's evictions.
//!
//! A budget read back from a cluster carries what the controller last wrote
//! (`status.disruptionsAllowed`) and is believed. A budget written by hand has no status:
//! Placement computes it from the pods bound in the simulated cluster as the controller
//! would, counting every bound pod the selector matches as healthy (the simulation has no
//! readiness) and as expected (the controller reads its controllers' scale for percentages
//! and `maxUnavailable`; Placement counts the matching pods).
//!
//! ```
//! use placement_core::cluster::disruption::disruptions_allowed;
//! use placement_core::model::scheduling::{IntOrString, PodDisruptionBudget};
//! use placement_core::model::{LabelSelector, Labels};
//!
//! let mut pdb = PodDisruptionBudget::default();
//! pdb.spec.min_available = Some(IntOrString::Int(2));
//! let web: Labels = [("app".to_string(), "web".to_string())].into_iter().collect();
//! pdb.spec.selector = Some(LabelSelector { match_labels: web.clone(), ..Default::default() });
//! let pods = vec![("default", &web); 3];
//! assert_eq!(disruptions_allowed(&pdb, pods.into_iter()), 1);
//! ```

use crate::input::field::FieldPath;
use crate::model::labels::{LabelLookup, Selector};
use crate::model::scheduling::PodDisruptionBudget;

/// The budget's selector as the controller and the scheduler read it: a nil or empty selector,
/// or one that does not parse, matches no pod (policy/v1).
pub fn selector(pdb: &PodDisruptionBudget) -> Selector {
    match Selector::from_label_selector(pdb.spec.selector.as_ref(), &FieldPath::root("spec").child("selector")) {
        Ok(Selector::All(reqs)) if !reqs.is_empty() => Selector::All(reqs),
        _ => Selector::Nothing,
    }
}

/// Whether the budget covers a pod of `namespace` with `labels`.
pub fn covers<L: LabelLookup + ?Sized>(
    pdb: &PodDisruptionBudget,
    selector: &Selector,
    namespace: &str,
    labels: &L,
) -> bool {
    pdb.namespace() == namespace && selector.matches(labels)
}

/// What the disruption controller writes in a budget's status: how many of its pods are
/// healthy, how many must stay so, and how many may be disrupted now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Health {
    /// `status.disruptionsAllowed`.
    pub allowed: i32,
    /// `status.currentHealthy`.
    pub current: i32,
    /// `status.desiredHealthy`.
    pub desired: i32,
}

/// `status.disruptionsAllowed`: the status's when the budget has one, else computed from the
/// bound pods given (`(namespace, labels)` of each).
pub fn disruptions_allowed<'p, L: LabelLookup + ?Sized + 'p>(
    pdb: &PodDisruptionBudget,
    pods: impl Iterator<Item = (&'p str, &'p L)>,
) -> i32 {
    health(pdb, pods).allowed
}

/// The budget's [`Health`]: its status when it has one (what the controller last wrote),
/// else computed from the bound pods given as the controller would.
pub fn health<'p, L: LabelLookup + ?Sized + 'p>(
    pdb: &PodDisruptionBudget,
    pods: impl Iterator<Item = (&'p str, &'p L)>,
) -> Health {
    if let Some(status) = &pdb.status {
        return Health {
            allowed: status.disruptions_allowed,
            current: status.current_healthy,
            desired: status.desired_healthy,
        };
    }
    let selector = selector(pdb);
    let healthy = pods.filter(|(ns, labels)| covers(pdb, &selector, ns, *labels)).count();
    computed(pdb, i32::try_from(healthy).unwrap_or(i32::MAX))
}

/// `updatePdbStatus` for `healthy` pods, all of them expected.
pub fn computed(pdb: &PodDisruptionBudget, healthy: i32) -> Health {
    // `getExpectedPodCount` and `updatePdbStatus`: desiredHealthy from minAvailable, or
    // expected minus maxUnavailable (percentages of the expected count rounded up).
    let desired = match (&pdb.spec.min_available, &pdb.spec.max_unavailable) {
        (Some(min), _) => min.scaled_value(healthy, true).unwrap_or(healthy),
        (None, Some(max)) => healthy - max.scaled_value(healthy, true).unwrap_or(0),
        // Neither (the API requires one): nothing may be disrupted.
        (None, None) => healthy,
    };
    Health { allowed: (healthy - desired).max(0), current: healthy, desired: desired.max(0) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::scheduling::{IntOrString, PodDisruptionBudgetStatus};
    use crate::model::{LabelSelector, Labels, ObjectMeta};

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn allowed_disruptions_follow_the_disruption_controller() {
        let web = labels(&[("app", "web")]);
        let db = labels(&[("app", "db")]);
        let budget = |min: Option<IntOrString>, max: Option<IntOrString>, status: Option<i32>| PodDisruptionBudget {
            metadata: ObjectMeta { name: "web".into(), namespace: Some("shop".into()), ..Default::default() },
            spec: crate::model::scheduling::PodDisruptionBudgetSpec {
                min_available: min,
                max_unavailable: max,
                selector: Some(LabelSelector { match_labels: web.clone(), ..Default::default() }),
                unhealthy_pod_eviction_policy: None,
            },
            status: status.map(|d| PodDisruptionBudgetStatus { disruptions_allowed: d, ..Default::default() }),
        };
        let pods = [("shop", &web), ("shop", &web), ("shop", &web), ("shop", &db), ("other", &web)];
        let s = |v: &str| Some(IntOrString::String(v.into()));
        let cases = [
            ("minAvailable 2 of 3", budget(Some(IntOrString::Int(2)), None, None), 1),
            ("minAvailable 3 of 3", budget(Some(IntOrString::Int(3)), None, None), 0),
            ("minAvailable above the pods", budget(Some(IntOrString::Int(5)), None, None), 0),
            ("minAvailable 50% of 3 rounds up to 2", budget(s("50%"), None, None), 1),
            ("maxUnavailable 1", budget(None, Some(IntOrString::Int(1)), None), 1),
            ("maxUnavailable 0", budget(None, Some(IntOrString::Int(0)), None), 0),
            ("maxUnavailable 34% of 3 rounds up to 2", budget(None, s("34%"), None), 2),
            ("the status is believed", budget(Some(IntOrString::Int(0)), None, Some(0)), 0),
        ];
        for (name, pdb, want) in cases {
            assert_eq!(disruptions_allowed(&pdb, pods.iter().map(|(n, l)| (*n, *l))), want, "{name}");
        }
        let mut empty = budget(Some(IntOrString::Int(0)), None, None);
        empty.spec.selector = Some(LabelSelector::default());
        assert!(!covers(&empty, &selector(&empty), "shop", &web), "an empty selector matches nothing");
    }
}
