//! The disruption controller's arithmetic (`pkg/controller/disruption`): how many of a
//! PodDisruptionBudget's pods may be disrupted now, for preemption's victim choice and for
//! a drain's evictions.
//!
//! A budget read back from a cluster carries what the controller last wrote
//! (`status.disruptionsAllowed`) and is believed. A budget written by hand has no status:
//! Placement computes it from the pods bound in the simulated cluster as the controller
//! would (`countHealthyPods`, `getExpectedPodCount`, `updatePdbStatus`): healthy, the matching
//! pods that are ready and not being deleted (a snapshot's pod with `Ready: False` or a
//! `deletionTimestamp`; the pods the simulation binds are ready); expected, every matching
//! pod (the controller reads its controllers' scale for percentages and `maxUnavailable`;
//! Placement counts the matching pods, which is that scale outside a rollout).
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
//! // (namespace, labels, healthy) of each bound pod: three ready web pods.
//! let pods = vec![("default", &web, true); 3];
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
/// bound pods given (`(namespace, labels, healthy)` of each: healthy, ready and not being
/// deleted).
pub fn disruptions_allowed<'p, L: LabelLookup + ?Sized + 'p>(
    pdb: &PodDisruptionBudget,
    pods: impl Iterator<Item = (&'p str, &'p L, bool)>,
) -> i32 {
    health(pdb, pods).allowed
}

/// The budget's [`Health`]: its status when it has one (what the controller last wrote),
/// else computed from the bound pods given as the controller would.
pub fn health<'p, L: LabelLookup + ?Sized + 'p>(
    pdb: &PodDisruptionBudget,
    pods: impl Iterator<Item = (&'p str, &'p L, bool)>,
) -> Health {
    if let Some(status) = &pdb.status {
        return Health {
            allowed: status.disruptions_allowed,
            current: status.current_healthy,
            desired: status.desired_healthy,
        };
    }
    let selector = selector(pdb);
    let (mut healthy, mut expected) = (0usize, 0usize);
    for (ns, labels, ready) in pods {
        if covers(pdb, &selector, ns, labels) {
            expected += 1;
            healthy += usize::from(ready);
        }
    }
    let count = |n: usize| i32::try_from(n).unwrap_or(i32::MAX);
    computed(pdb, count(healthy), count(expected))
}

/// `updatePdbStatus` for `healthy` pods of `expected`.
pub fn computed(pdb: &PodDisruptionBudget, healthy: i32, expected: i32) -> Health {
    // `getExpectedPodCount`: desiredHealthy is an integer minAvailable, a percentage of the
    // expected count (rounded up), or the expected count less maxUnavailable (a percentage of
    // it rounded up), at least 0.
    let desired = match (&pdb.spec.min_available, &pdb.spec.max_unavailable) {
        (_, Some(max)) => expected - max.scaled_value(expected, true).unwrap_or(0),
        (Some(min), None) => min.scaled_value(expected, true).unwrap_or(expected),
        // Neither (the API requires one): nothing may be disrupted.
        (None, None) => expected,
    }
    .max(0);
    // `updatePdbStatus`: nothing is allowed without expected pods or below the desired count.
    let allowed = if expected <= 0 { 0 } else { (healthy - desired).max(0) };
    Health { allowed, current: healthy, desired }
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
        let pods = [
            ("shop", &web, true),
            ("shop", &web, true),
            ("shop", &web, true),
            ("shop", &db, true),
            ("other", &web, true),
        ];
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
            assert_eq!(disruptions_allowed(&pdb, pods.iter().copied()), want, "{name}");
        }
        // One of the three web pods unready (or being deleted): not healthy, still expected.
        let unready = [("shop", &web, true), ("shop", &web, true), ("shop", &web, false)];
        let cases = [
            ("minAvailable 2: 2 healthy", budget(Some(IntOrString::Int(2)), None, None), (0, 2, 2)),
            ("minAvailable 1: 2 healthy", budget(Some(IntOrString::Int(1)), None, None), (1, 2, 1)),
            ("minAvailable 50% of 3 expected", budget(s("50%"), None, None), (0, 2, 2)),
            ("maxUnavailable 1 of 3 expected", budget(None, Some(IntOrString::Int(1)), None), (0, 2, 2)),
            ("maxUnavailable 2 of 3 expected", budget(None, Some(IntOrString::Int(2)), None), (1, 2, 1)),
        ];
        for (name, pdb, (allowed, current, desired)) in cases {
            assert_eq!(health(&pdb, unready.iter().copied()), Health { allowed, current, desired }, "{name}");
        }
        let none: [(&str, &Labels, bool); 0] = [];
        let zero = budget(Some(IntOrString::Int(0)), None, None);
        assert_eq!(disruptions_allowed(&zero, none.iter().copied()), 0, "no expected pods: nothing allowed");
        let mut empty = budget(Some(IntOrString::Int(0)), None, None);
        empty.spec.selector = Some(LabelSelector::default());
        assert!(!covers(&empty, &selector(&empty), "shop", &web), "an empty selector matches nothing");
    }
}
