//! What the workload controllers put on the pods they create, as far as scheduling reads it:
//! the controlling owner reference, the Deployment controller's `pod-template-hash` label, and
//! the controllers' selectors that PodTopologySpread's system default constraints count by.
//!
//! A Deployment's pods belong to its ReplicaSet `<deployment>-<pod-template-hash>`, whose
//! selector is the Deployment's plus `pod-template-hash`; a ReplicaSet's, StatefulSet's and
//! ReplicationController's pods to the controller itself; a Job's to the Job and a DaemonSet's
//! to the DaemonSet (neither of which the scheduler's default selector reads).
//!
//! The hash is computed as upstream's `controller.ComputeHash` shapes it (FNV-32a, then
//! `rand.SafeEncodeString` of its decimal form), over the template's JSON rather than Go's
//! `spew` dump of the struct, so its value differs from a real cluster's. Nothing in a
//! simulation depends on the value, only on pods of one ReplicaSet sharing it.

use std::collections::BTreeMap;

use crate::input::documents::{Manifests, Workload, WorkloadKind};
use crate::model::{LabelSelector, OwnerReference, PodTemplateSpec};
use crate::scheduler::plugins::pod_topology_spread::{ControllerSelector, Listers};

/// `apps/v1.DefaultDeploymentUniqueLabelKey`.
pub const POD_TEMPLATE_HASH_LABEL: &str = "pod-template-hash";

/// The controller of a workload's pods and what it adds to them.
#[derive(Debug, Clone, PartialEq)]
pub struct PodOwner {
    pub reference: OwnerReference,
    /// The owner's selector, for the listers; `None` for owners the scheduler does not list.
    pub selector: Option<ControllerSelector>,
    /// A label the controller adds to its pods (`pod-template-hash` for a Deployment's).
    pub label: Option<(String, String)>,
}

impl PodOwner {
    /// A Deployment's pods join its existing ReplicaSet `name`, whose pods carry `hash`.
    pub fn join_replica_set(&mut self, name: String, hash: String) {
        self.reference.name = name;
        if let Some(ControllerSelector::LabelSelector(selector)) = &mut self.selector {
            selector.match_labels.insert(POD_TEMPLATE_HASH_LABEL.into(), hash.clone());
        }
        self.label = Some((POD_TEMPLATE_HASH_LABEL.into(), hash));
    }
}

/// Whether a ReplicaSet's template is its Deployment's: the same but for the
/// `pod-template-hash` label the Deployment controller adds. Both come from the API server
/// with the same defaults, so a snapshot's current ReplicaSet compares equal; a Deployment
/// edited since (a fix applied to it) does not, and is rolled out.
pub fn same_template(deployment: &PodTemplateSpec, replica_set: &PodTemplateSpec) -> bool {
    let mut labels = replica_set.metadata.labels.clone();
    labels.remove(POD_TEMPLATE_HASH_LABEL);
    labels == deployment.metadata.labels
        && replica_set.spec == deployment.spec
        && replica_set.metadata.annotations == deployment.metadata.annotations
}

/// The controller that owns the pods `w` creates; `None` for a bare Pod and a CronJob (whose
/// Jobs are created on schedule).
pub fn pod_owner(w: &Workload) -> Option<PodOwner> {
    let owner = |api_version: &str, kind: &str, name: String| OwnerReference {
        api_version: api_version.into(),
        kind: kind.into(),
        name,
        uid: String::new(),
        controller: Some(true),
    };
    // apps/v1 requires a selector; older manifests defaulted it to the template's labels.
    let selector = || {
        w.selector
            .clone()
            .unwrap_or_else(|| LabelSelector { match_labels: w.template.metadata.labels.clone(), ..Default::default() })
    };
    Some(match w.kind {
        WorkloadKind::Pod | WorkloadKind::CronJob => return None,
        WorkloadKind::Deployment => {
            let hash = pod_template_hash(&w.template);
            let mut selector = selector();
            selector.match_labels.insert(POD_TEMPLATE_HASH_LABEL.into(), hash.clone());
            PodOwner {
                reference: owner("apps/v1", "ReplicaSet", format!("{}-{hash}", w.name)),
                selector: Some(ControllerSelector::LabelSelector(selector)),
                label: Some((POD_TEMPLATE_HASH_LABEL.into(), hash)),
            }
        }
        WorkloadKind::ReplicaSet | WorkloadKind::StatefulSet => PodOwner {
            reference: owner("apps/v1", w.kind.as_str(), w.name.clone()),
            selector: Some(ControllerSelector::LabelSelector(selector())),
            label: None,
        },
        WorkloadKind::ReplicationController => PodOwner {
            reference: owner("v1", "ReplicationController", w.name.clone()),
            selector: Some(ControllerSelector::Map(selector().match_labels)),
            label: None,
        },
        WorkloadKind::DaemonSet => {
            PodOwner { reference: owner("apps/v1", "DaemonSet", w.name.clone()), selector: None, label: None }
        }
        WorkloadKind::Job => {
            PodOwner { reference: owner("batch/v1", "Job", w.name.clone()), selector: None, label: None }
        }
    })
}

/// [`pod_owner`] of each workload of `manifests`, in order: computed once per simulation (a
/// Deployment's hashes its template).
pub fn pod_owners(manifests: &Manifests) -> Vec<Option<PodOwner>> {
    manifests.workloads.iter().map(|w| pod_owner(w)).collect()
}

/// The listers' content for a simulation of `manifests`, whose workloads' [`pod_owners`] are
/// `owners`: every Service, and the selector of every controller the workloads stand for (a
/// Deployment's through its ReplicaSet).
pub fn listers(manifests: &Manifests, owners: &[Option<PodOwner>]) -> Listers {
    let services = manifests
        .services
        .iter()
        .map(|(_, s)| (s.metadata.namespace_or_default().to_string(), s.spec.selector.clone()))
        .collect();
    let mut controllers = BTreeMap::new();
    for (w, owner) in manifests.workloads.iter().zip(owners) {
        let Some(PodOwner { reference, selector: Some(selector), .. }) = owner else { continue };
        let key = Listers::controller_key(&reference.api_version, &reference.kind, &w.namespace, &reference.name);
        controllers.insert(key, selector.clone());
    }
    Listers { services, controllers }
}

/// `controller.ComputeHash`'s shape: FNV-32a of the template, encoded by
/// `rand.SafeEncodeString` (each decimal digit mapped into a vowel-free alphabet).
pub fn pod_template_hash(template: &PodTemplateSpec) -> String {
    // Through a `Value` (whose map keeps the fields' order, so the bytes are the same): the
    // fixes already turn a PodSpec into a `Value`, and writing the template straight to bytes
    // compiled every model type's serializer a second time (14 KB of the page's code).
    let json = serde_json::to_value(template).and_then(|v| serde_json::to_vec(&v)).unwrap_or_default();
    safe_encoded_fnv32a(&json)
}

/// FNV-32a of `bytes`, its decimal digits encoded as `rand.SafeEncodeString` encodes them.
fn safe_encoded_fnv32a(bytes: &[u8]) -> String {
    const ALPHANUMS: &[u8] = b"bcdfghjklmnpqrstvwxz2456789";
    let mut hash: u32 = 0x811c_9dc5;
    for &b in bytes {
        hash ^= u32::from(b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    hash.to_string()
        .bytes()
        .filter_map(|d| ALPHANUMS.get(usize::from(d) % ALPHANUMS.len()).map(|&c| char::from(c)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn template_hash_is_stable_and_safe() {
        let mut t = PodTemplateSpec::default();
        t.metadata.labels.insert("app".into(), "web".into());
        let a = pod_template_hash(&t);
        assert_eq!(a, pod_template_hash(&t.clone()), "deterministic");
        assert!(a.chars().all(|c| "bcdfghjklmnpqrstvwxz2456789".contains(c)), "{a}");
        t.metadata.labels.insert("tier".into(), "front".into());
        assert_ne!(a, pod_template_hash(&t), "another template, another hash");
    }

    /// The hash goes through a `Value` to keep one serializer in the page's wasm: the bytes
    /// it hashes must be those the template serializes to directly, or every Deployment's
    /// pod names would change.
    #[test]
    fn template_hash_hashes_the_templates_own_json() {
        let text = [
            include_str!("../../../examples/statefulset-zonal-disks.yaml"),
            include_str!("../../../examples/gpu-pool.yaml"),
            include_str!("../../../examples/daemonset-tainted-pool.yaml"),
        ]
        .join("\n---\n");
        let manifests = crate::input::documents::parse_manifests(&text, "examples").unwrap();
        assert!(manifests.workloads.len() >= 3, "{}", manifests.workloads.len());
        for w in &manifests.workloads {
            let direct = safe_encoded_fnv32a(&serde_json::to_vec(&w.template).unwrap());
            assert_eq!(pod_template_hash(&w.template), direct, "{}", w.name);
        }
    }
}
