//! The storage objects the volume plugins read: PersistentVolumeClaims, PersistentVolumes,
//! StorageClasses, CSINodes and CSIDrivers (`k8s.io/api/core/v1`, `k8s.io/api/storage/v1`),
//! with the helpers of `k8s.io/component-helpers/storage/volume` that the scheduler and the PV
//! controller share (`GetPersistentVolumeClaimClass`, `CheckNodeAffinity`, ...).

use serde::{Deserialize, Serialize};

use crate::input::field::FieldPath;
use crate::model::labels::LabelLookup;
use crate::model::node_selector::{NodeSelectorMatcher, SelectableNode};
use crate::model::quantity::Quantity;
use crate::model::{LabelSelector, Labels, NodeSelector, ObjectMeta, ResourceList};

/// `volume.AnnBindCompleted`: the PV controller has bound the claim; only then is a claim
/// with `spec.volumeName` "fully bound" for the scheduler.
pub const ANN_BIND_COMPLETED: &str = "pv.kubernetes.io/bind-completed";
/// `volume.AnnBoundByController`.
pub const ANN_BOUND_BY_CONTROLLER: &str = "pv.kubernetes.io/bound-by-controller";
/// `volume.AnnSelectedNode`: the node the scheduler chose for a WaitForFirstConsumer claim to
/// be provisioned on.
pub const ANN_SELECTED_NODE: &str = "volume.kubernetes.io/selected-node";
/// `volume.NotSupportedProvisioner`: a class that never provisions (local volumes).
pub const NOT_SUPPORTED_PROVISIONER: &str = "kubernetes.io/no-provisioner";
/// `v1.BetaStorageClassAnnotation`, still read before `spec.storageClassName`.
pub const BETA_STORAGE_CLASS_ANNOTATION: &str = "volume.beta.kubernetes.io/storage-class";
/// `storageutil.IsDefaultStorageClassAnnotation` (and its beta form).
pub const IS_DEFAULT_CLASS_ANNOTATION: &str = "storageclass.kubernetes.io/is-default-class";
pub const BETA_IS_DEFAULT_CLASS_ANNOTATION: &str = "storageclass.beta.kubernetes.io/is-default-class";
/// `ReadWriteOncePod`, the access mode VolumeRestrictions enforces cluster-wide.
pub const READ_WRITE_ONCE_POD: &str = "ReadWriteOncePod";
/// `storage.VolumeBindingWaitForFirstConsumer`.
pub const WAIT_FOR_FIRST_CONSUMER: &str = "WaitForFirstConsumer";
/// `storage.VolumeBindingImmediate`, the API default of `volumeBindingMode`.
pub const IMMEDIATE: &str = "Immediate";

/// A PersistentVolumeClaim.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolumeClaim {
    pub metadata: ObjectMeta,
    pub spec: PersistentVolumeClaimSpec,
    #[serde(skip_serializing_if = "PersistentVolumeClaimStatus::is_empty")]
    pub status: PersistentVolumeClaimStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolumeClaimSpec {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub access_modes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    #[serde(skip_serializing_if = "VolumeResourceRequirements::is_empty")]
    pub resources: VolumeResourceRequirements,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub volume_name: String,
    /// `None` (unset) is not `Some("")`: the DefaultStorageClass admission plugin fills only
    /// an unset class, and `""` asks for no class at all.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_class_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_attributes_class_name: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeResourceRequirements {
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub requests: ResourceList,
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub limits: ResourceList,
}

impl VolumeResourceRequirements {
    pub fn is_empty(&self) -> bool {
        self.requests.is_empty() && self.limits.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolumeClaimStatus {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phase: String,
}

impl PersistentVolumeClaimStatus {
    pub fn is_empty(&self) -> bool {
        self.phase.is_empty()
    }
}

impl PersistentVolumeClaim {
    pub fn namespace(&self) -> &str {
        self.metadata.namespace_or_default()
    }

    /// `volume.GetPersistentVolumeClaimClass`: the beta annotation first, then the field;
    /// `""` for none.
    pub fn class(&self) -> &str {
        if let Some(class) = self.metadata.annotations.get(BETA_STORAGE_CLASS_ANNOTATION) {
            return class;
        }
        self.spec.storage_class_name.as_deref().unwrap_or_default()
    }

    /// `isPVCFullyBound`: a volume named and the PV controller's binding completed.
    pub fn is_fully_bound(&self) -> bool {
        !self.spec.volume_name.is_empty() && self.metadata.annotations.get(ANN_BIND_COMPLETED).is_some()
    }

    /// The node a WaitForFirstConsumer claim was chosen for, if the scheduler chose one.
    pub fn selected_node(&self) -> Option<&str> {
        self.metadata.annotations.get(ANN_SELECTED_NODE).map(String::as_str)
    }

    /// `spec.resources.requests.storage`, zero when not requested.
    pub fn requested_storage(&self) -> Quantity {
        self.spec.resources.requests.get("storage").cloned().unwrap_or_else(|| Quantity::from_value(0))
    }

    pub fn has_access_mode(&self, mode: &str) -> bool {
        self.spec.access_modes.iter().any(|m| m == mode)
    }
}

/// A PersistentVolume.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolume {
    pub metadata: ObjectMeta,
    pub spec: PersistentVolumeSpec,
    #[serde(skip_serializing_if = "PersistentVolumeStatus::is_empty")]
    pub status: PersistentVolumeStatus,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolumeSpec {
    #[serde(skip_serializing_if = "ResourceList::is_empty")]
    pub capacity: ResourceList,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub access_modes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_ref: Option<ObjectReference>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub storage_class_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_affinity: Option<VolumeNodeAffinity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_mode: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_attributes_class_name: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub persistent_volume_reclaim_policy: Option<String>,
    /// The volume sources that change what the scheduler or a drain does: a CSI volume is
    /// counted against its driver's attach limit; a local or hostPath volume ties its pods
    /// to one node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub csi: Option<CsiPersistentVolumeSource>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub local: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub host_path: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct PersistentVolumeStatus {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub phase: String,
}

impl PersistentVolumeStatus {
    pub fn is_empty(&self) -> bool {
        self.phase.is_empty()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ObjectReference {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uid: String,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeNodeAffinity {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub required: Option<NodeSelector>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CsiPersistentVolumeSource {
    pub driver: String,
    pub volume_handle: String,
}

/// `v1.VolumeAvailable`.
pub const PV_AVAILABLE: &str = "Available";

impl PersistentVolume {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// `spec.capacity.storage`, zero when absent.
    pub fn capacity(&self) -> Quantity {
        self.spec.capacity.get("storage").cloned().unwrap_or_else(|| Quantity::from_value(0))
    }

    /// `volume.GetPersistentVolumeClass`: the beta annotation first, then the field.
    pub fn class(&self) -> &str {
        if let Some(class) = self.metadata.annotations.get(BETA_STORAGE_CLASS_ANNOTATION) {
            return class;
        }
        &self.spec.storage_class_name
    }

    /// `IsVolumeBoundToClaim`: pre-bound or bound to this claim (name, namespace, and the uid
    /// when the reference has one).
    pub fn is_bound_to(&self, claim: &PersistentVolumeClaim) -> bool {
        let Some(r) = &self.spec.claim_ref else { return false };
        r.name == claim.metadata.name
            && r.namespace == claim.namespace()
            && (r.uid.is_empty() || r.uid == claim.metadata.uid)
    }

    /// `volume.CheckNodeAffinity`: the PV's required node affinity against a node's labels
    /// only, as upstream builds a Node of the labels alone (so a `matchFields` requirement,
    /// having no node name to compare, is skipped).
    pub fn node_affinity_matches<L: LabelLookup + ?Sized>(&self, labels: &L) -> bool {
        let Some(required) = self.spec.node_affinity.as_ref().and_then(|a| a.required.as_ref()) else {
            return true;
        };
        NodeSelectorMatcher::lazy(required, &FieldPath::root("")).matches(Some(&LabelsOnly(labels)))
    }

    /// Whether the PV is tied to one node: a local or hostPath volume, or node affinity on
    /// `kubernetes.io/hostname` alone. A pod using it cannot move to another node.
    pub fn is_node_local(&self) -> bool {
        if self.spec.local.is_some() || self.spec.host_path.is_some() {
            return true;
        }
        self.pinned_hostnames().is_some()
    }

    /// The hostnames of a PV whose node affinity is `kubernetes.io/hostname In [...]` in
    /// every term (a local PV's usual form).
    pub fn pinned_hostnames(&self) -> Option<Vec<&str>> {
        let required = self.spec.node_affinity.as_ref()?.required.as_ref()?;
        let mut names = Vec::new();
        for term in &required.node_selector_terms {
            let [req] = term.match_expressions.as_slice() else { return None };
            if req.key != crate::model::LABEL_HOSTNAME || req.operator != "In" || !term.match_fields.is_empty() {
                return None;
            }
            names.extend(req.values.iter().map(String::as_str));
        }
        (!names.is_empty()).then_some(names)
    }

    /// The PV's topology as a person reads it: its node affinity's requirements
    /// (`topology.kubernetes.io/zone in [eastus-1]`), or its zone labels.
    pub fn topology(&self) -> Option<String> {
        if let Some(required) = self.spec.node_affinity.as_ref().and_then(|a| a.required.as_ref()) {
            let terms: Vec<String> = required
                .node_selector_terms
                .iter()
                .map(|t| {
                    t.match_expressions
                        .iter()
                        .map(|r| format!("{} {} [{}]", r.key, r.operator, r.values.join(", ")))
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .collect();
            return Some(terms.join(" or "));
        }
        let labels: Vec<String> =
            ZONE_LABELS.iter().filter_map(|k| self.metadata.labels.get(*k).map(|v| format!("{k}={v}"))).collect();
        (!labels.is_empty()).then(|| labels.join(", "))
    }
}

/// The four topology labels VolumeZone compares (`topologyLabels`), beta ones first.
pub const ZONE_LABELS: [&str; 4] = [
    "failure-domain.beta.kubernetes.io/zone",
    "failure-domain.beta.kubernetes.io/region",
    "topology.kubernetes.io/zone",
    "topology.kubernetes.io/region",
];

/// A node seen through its labels alone (`CheckNodeAffinity`'s Node of labels).
struct LabelsOnly<'a, L: ?Sized>(&'a L);

impl<L: LabelLookup + ?Sized> SelectableNode for LabelsOnly<'_, L> {
    type Labels = L;
    fn labels(&self) -> &L {
        self.0
    }
    fn node_name(&self) -> &str {
        ""
    }
}

/// A StorageClass.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct StorageClass {
    pub metadata: ObjectMeta,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub provisioner: String,
    /// Defaulted to `Immediate` by the API server ([`crate::cluster::defaults`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub volume_binding_mode: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub allowed_topologies: Vec<TopologySelectorTerm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reclaim_policy: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allow_volume_expansion: Option<bool>,
    #[serde(skip_serializing_if = "Labels::is_empty")]
    pub parameters: Labels,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologySelectorTerm {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub match_label_expressions: Vec<TopologySelectorLabelRequirement>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TopologySelectorLabelRequirement {
    pub key: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<String>,
}

impl StorageClass {
    pub fn name(&self) -> &str {
        &self.metadata.name
    }

    /// Whether the class delays binding until a pod is scheduled.
    pub fn waits_for_first_consumer(&self) -> bool {
        self.volume_binding_mode.as_deref() == Some(WAIT_FOR_FIRST_CONSUMER)
    }

    /// Whether the class provisions volumes (a provisioner that is not
    /// `kubernetes.io/no-provisioner`).
    pub fn provisions(&self) -> bool {
        !self.provisioner.is_empty() && self.provisioner != NOT_SUPPORTED_PROVISIONER
    }

    /// The `is-default-class` annotation (GA or beta) says `true`.
    pub fn is_default(&self) -> bool {
        [IS_DEFAULT_CLASS_ANNOTATION, BETA_IS_DEFAULT_CLASS_ANNOTATION]
            .iter()
            .any(|k| self.metadata.annotations.get(*k).map(String::as_str) == Some("true"))
    }

    /// `v1helper.MatchTopologySelectorTerms`: no terms match everything; else any term whose
    /// every expression's key is a node label with one of its values.
    pub fn topology_allows<L: LabelLookup + ?Sized>(&self, labels: &L) -> bool {
        if self.allowed_topologies.is_empty() {
            return true;
        }
        self.allowed_topologies.iter().any(|term| {
            term.match_label_expressions
                .iter()
                .all(|req| labels.label(&req.key).is_some_and(|v| req.values.iter().any(|x| x == v)))
        })
    }

    /// `allowedTopologies` as a person reads it.
    pub fn allowed_topologies_text(&self) -> String {
        self.allowed_topologies
            .iter()
            .map(|t| {
                t.match_label_expressions
                    .iter()
                    .map(|r| format!("{} in [{}]", r.key, r.values.join(", ")))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .collect::<Vec<_>>()
            .join(" or ")
    }
}

/// A CSINode: the CSI drivers registered on a node by their node plugins, and each one's
/// attach limit.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CsiNode {
    pub metadata: ObjectMeta,
    pub spec: CsiNodeSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CsiNodeSpec {
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub drivers: Vec<CsiNodeDriver>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CsiNodeDriver {
    pub name: String,
    #[serde(rename = "nodeID", skip_serializing_if = "String::is_empty")]
    pub node_id: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub topology_keys: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocatable: Option<VolumeNodeResources>,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct VolumeNodeResources {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
}

impl CsiNode {
    /// `getVolumeLimits`: each driver's `allocatable.count`.
    pub fn limit(&self, driver: &str) -> Option<i64> {
        self.spec.drivers.iter().find(|d| d.name == driver).and_then(|d| d.allocatable.as_ref()?.count)
    }

    pub fn has_driver(&self, driver: &str) -> bool {
        self.spec.drivers.iter().any(|d| d.name == driver)
    }
}

/// A CSIDriver: read for `storageCapacity` and to know a provisioner is a CSI driver.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CsiDriver {
    pub metadata: ObjectMeta,
    pub spec: CsiDriverSpec,
}

#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CsiDriverSpec {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attach_required: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub storage_capacity: Option<bool>,
}

/// A CSIStorageCapacity: how much a driver can still provision for a class in the nodes its
/// `nodeTopology` selects. Read only for drivers whose CSIDriver sets `storageCapacity: true`.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CsiStorageCapacity {
    pub metadata: ObjectMeta,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_topology: Option<LabelSelector>,
    pub storage_class_name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Quantity>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub maximum_volume_size: Option<Quantity>,
}

impl CsiStorageCapacity {
    /// `capacitySufficient`: `maximumVolumeSize` when given, else `capacity`.
    pub fn sufficient(&self, size: &Quantity) -> bool {
        self.maximum_volume_size.as_ref().or(self.capacity.as_ref()).is_some_and(|limit| limit >= size)
    }
}

/// `ephemeral.VolumeClaimName`: a generic ephemeral volume's claim is `<pod>-<volume>`.
pub fn ephemeral_claim_name(pod_name: &str, volume_name: &str) -> String {
    format!("{pod_name}-{volume_name}")
}

/// The name the StatefulSet controller gives replica `ordinal`'s claim of `template`
/// (`getPersistentVolumeClaimName`): `<template>-<statefulset>-<ordinal>`.
pub fn stateful_set_claim_name(template: &str, set: &str, ordinal: i64) -> String {
    format!("{template}-{set}-{ordinal}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pv(yaml: &str) -> PersistentVolume {
        serde_yaml::from_str(yaml).unwrap()
    }

    #[test]
    fn check_node_affinity_reads_labels_only() {
        let zonal = pv("spec:\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchExpressions:\n        - {key: topology.kubernetes.io/zone, operator: In, values: [eastus-1]}\n");
        let mut labels = Labels::new();
        labels.insert("topology.kubernetes.io/zone".into(), "eastus-2".into());
        assert!(!zonal.node_affinity_matches(&labels));
        labels.insert("topology.kubernetes.io/zone".into(), "eastus-1".into());
        assert!(zonal.node_affinity_matches(&labels));
        // A Node of labels has no name, so upstream's matcher skips matchFields altogether.
        let by_name = pv("spec:\n  nodeAffinity:\n    required:\n      nodeSelectorTerms:\n      - matchFields:\n        - {key: metadata.name, operator: In, values: [n1]}\n");
        assert!(by_name.node_affinity_matches(&labels));
        assert!(pv("spec: {}").node_affinity_matches(&labels));
    }

    #[test]
    fn classes_and_binding() {
        let claim: PersistentVolumeClaim = serde_yaml::from_str(
            "metadata:\n  name: data-db-0\n  annotations: {volume.beta.kubernetes.io/storage-class: old}\nspec:\n  storageClassName: new\n  volumeName: pv1\n",
        )
        .unwrap();
        assert_eq!(claim.class(), "old");
        assert!(!claim.is_fully_bound(), "no bind-completed annotation");
        let pv = pv("spec:\n  claimRef: {namespace: default, name: data-db-0}\n");
        assert!(pv.is_bound_to(&claim));
        assert_eq!(stateful_set_claim_name("data", "db", 0), "data-db-0");
    }

    #[test]
    fn allowed_topologies() {
        let class: StorageClass = serde_yaml::from_str(
            "provisioner: disk.csi.azure.com\nallowedTopologies:\n- matchLabelExpressions:\n  - {key: topology.kubernetes.io/zone, values: [eastus-1, eastus-3]}\n",
        )
        .unwrap();
        let mut labels = Labels::new();
        assert!(!class.topology_allows(&labels));
        labels.insert("topology.kubernetes.io/zone".into(), "eastus-3".into());
        assert!(class.topology_allows(&labels));
        assert!(class.provisions());
    }
}
