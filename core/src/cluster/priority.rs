//! The Priority admission plugin (`plugin/pkg/admission/priority/admission.go`): a pod's
//! `priorityClassName` resolved into `spec.priority` and `spec.preemptionPolicy` when it is
//! created, from the cluster's PriorityClasses (the input's and the two system classes).
//!
//! ```
//! use placement_core::cluster::priority::PriorityClasses;
//! use placement_core::model::PodSpec;
//!
//! let classes = PriorityClasses::new([]);
//! let mut spec = PodSpec { priority_class_name: Some("system-node-critical".into()), ..Default::default() };
//! classes.admit(&mut spec).unwrap();
//! assert_eq!(spec.priority, Some(2_000_001_000));
//!
//! let mut missing = PodSpec { priority_class_name: Some("batch".into()), ..Default::default() };
//! let err = classes.admit(&mut missing).unwrap_err();
//! assert_eq!(err.to_string(), "no PriorityClass with name batch was found");
//! ```

use std::collections::BTreeMap;

use crate::model::scheduling::{PriorityClass, PREEMPT_LOWER_PRIORITY};
use crate::model::PodSpec;

/// `scheduling.DefaultPriorityWhenNoDefaultClassExists`.
pub const DEFAULT_PRIORITY: i32 = 0;

/// Why the Priority admission plugin refuses a pod, in its words (the API server prefixes
/// them with `pods "<name>" is forbidden: `).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PriorityError {
    #[error("no PriorityClass with name {0} was found")]
    NotFound(String),
    #[error(
        "the integer value of priority ({given}) must not be provided in pod spec; priority admission controller computed {computed} from the given PriorityClass name"
    )]
    ValueGiven { given: i32, computed: i32 },
}

/// The cluster's PriorityClasses by name: the input's, and the system classes unless the
/// input has its own copy of them (a snapshot lists them).
#[derive(Debug, Clone, Default)]
pub struct PriorityClasses {
    classes: BTreeMap<String, PriorityClass>,
}

impl PriorityClasses {
    pub fn new<'a>(input: impl IntoIterator<Item = &'a PriorityClass>) -> Self {
        let mut classes: BTreeMap<String, PriorityClass> =
            PriorityClass::system_classes().into_iter().map(|c| (c.name().to_string(), c)).collect();
        for class in input {
            classes.insert(class.name().to_string(), class.clone());
        }
        Self { classes }
    }

    pub fn get(&self, name: &str) -> Option<&PriorityClass> {
        self.classes.get(name)
    }

    /// `getDefaultPriorityClass`: the class with `globalDefault: true`; of several (a race
    /// the API server does not prevent), the one of the lowest value.
    pub fn global_default(&self) -> Option<&PriorityClass> {
        self.classes.values().filter(|c| c.global_default).min_by_key(|c| c.value)
    }

    /// Whether [`Self::admit`] would change the pod: it names a class, or the cluster has a
    /// global default, and its priority is not resolved yet (a pod read back from a cluster
    /// was admitted there: its `spec.priority` is set).
    pub fn changes(&self, spec: &PodSpec) -> bool {
        spec.priority.is_none()
            && (spec.priority_class_name.as_deref().is_some_and(|n| !n.is_empty()) || self.global_default().is_some())
    }

    /// The priority a pod of `spec` has once admitted: its own, its class's, the global
    /// default's, or 0 (also for a class that does not exist: such a pod is refused).
    pub fn priority_of(&self, spec: &PodSpec) -> i32 {
        if let Some(p) = spec.priority {
            return p;
        }
        match spec.priority_class_name.as_deref().filter(|n| !n.is_empty()) {
            Some(name) => self.get(name).map_or(DEFAULT_PRIORITY, |c| c.value),
            None => self.global_default().map_or(DEFAULT_PRIORITY, |c| c.value),
        }
    }

    /// `priorityPlugin.admitPod` on create: the class named, or the global default (whose
    /// name the pod then carries), or priority 0; the class's preemption policy. A pod that
    /// already gives a different priority is refused, as the API server refuses it.
    pub fn admit(&self, spec: &mut PodSpec) -> Result<(), PriorityError> {
        let (priority, policy) = match spec.priority_class_name.as_deref().filter(|n| !n.is_empty()) {
            Some(name) => {
                let class = self.get(name).ok_or_else(|| PriorityError::NotFound(name.to_string()))?;
                (class.value, class.preemption_policy.clone())
            }
            None => match self.global_default() {
                Some(class) => {
                    spec.priority_class_name = Some(class.name().to_string());
                    (class.value, class.preemption_policy.clone())
                }
                None => (DEFAULT_PRIORITY, None),
            },
        };
        if let Some(given) = spec.priority.filter(|&p| p != priority) {
            return Err(PriorityError::ValueGiven { given, computed: priority });
        }
        spec.priority = Some(priority);
        // `SetDefaults_PriorityClass` gives every class a policy; a pod without a class gets
        // the API's default.
        if spec.preemption_policy.is_none() {
            spec.preemption_policy = Some(policy.unwrap_or_else(|| PREEMPT_LOWER_PRIORITY.to_string()));
        }
        Ok(())
    }
}

/// `corev1helpers.PodPriority`: `spec.priority`, 0 when unset.
pub fn pod_priority(spec: &PodSpec) -> i32 {
    spec.priority.unwrap_or(DEFAULT_PRIORITY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectMeta;

    fn class(name: &str, value: i32, global_default: bool, policy: Option<&str>) -> PriorityClass {
        PriorityClass {
            metadata: ObjectMeta { name: name.into(), ..Default::default() },
            value,
            global_default,
            preemption_policy: policy.map(Into::into),
            description: String::new(),
        }
    }

    #[test]
    fn admission_resolves_classes_as_the_priority_plugin_does() {
        let low = class("low", 100, false, None);
        let batch = class("batch", -10, false, Some("Never"));
        let default_a = class("default-a", 50, true, None);
        let default_b = class("default-b", 40, true, None);
        type Want = Result<(Option<&'static str>, i32, &'static str), PriorityError>;
        // (name, classes in the input, priorityClassName, spec.priority given, want)
        type Case<'a> = (&'a str, Vec<&'a PriorityClass>, Option<&'a str>, Option<i32>, Want);
        let cases: Vec<Case> = vec![
            ("no class, no default", vec![&low], None, None, Ok((None, 0, "PreemptLowerPriority"))),
            ("named class", vec![&low], Some("low"), None, Ok((Some("low"), 100, "PreemptLowerPriority"))),
            ("class with Never", vec![&batch], Some("batch"), None, Ok((Some("batch"), -10, "Never"))),
            (
                "system class",
                vec![],
                Some("system-cluster-critical"),
                None,
                Ok((Some("system-cluster-critical"), 2_000_000_000, "PreemptLowerPriority")),
            ),
            (
                "lowest global default",
                vec![&default_a, &default_b],
                None,
                None,
                Ok((Some("default-b"), 40, "PreemptLowerPriority")),
            ),
            ("same priority given", vec![&low], Some("low"), Some(100), Ok((Some("low"), 100, "PreemptLowerPriority"))),
            ("missing class", vec![&low], Some("high"), None, Err(PriorityError::NotFound("high".into()))),
            (
                "other priority given",
                vec![&low],
                Some("low"),
                Some(7),
                Err(PriorityError::ValueGiven { given: 7, computed: 100 }),
            ),
        ];
        for (name, input, class_name, given, want) in cases {
            let classes = PriorityClasses::new(input);
            let mut spec =
                PodSpec { priority_class_name: class_name.map(Into::into), priority: given, ..Default::default() };
            let got = classes.admit(&mut spec).map(|()| {
                (
                    spec.priority_class_name.clone(),
                    spec.priority.unwrap_or(-1),
                    spec.preemption_policy.clone().unwrap_or_default(),
                )
            });
            let want = want.map(|(n, p, pol)| (n.map(String::from), p, pol.to_string()));
            assert_eq!(got, want, "{name}");
        }
    }
}
