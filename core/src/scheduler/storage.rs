//! What the volume plugins' listers and the volume binder's assume cache hold: claims, volumes,
//! classes, CSINodes, CSIDrivers and CSIStorageCapacities, indexed as the plugins look them up,
//! and which claims scheduled pods use (the snapshot's `StorageInfos().IsPVCUsedByPods`).
//!
//! A simulation changes it as a cluster does when the scheduler binds a pod: a matched PV is
//! bound to its claim, a WaitForFirstConsumer claim to be provisioned gets the chosen node
//! (`volume.kubernetes.io/selected-node`), the pod's claims are in use
//! ([`Storage::assume`]).

use std::collections::{BTreeMap, HashMap};
use std::sync::Arc;

use crate::input::documents::StorageObjects;
use crate::model::storage::{
    CsiDriver, CsiNode, CsiStorageCapacity, PersistentVolume, PersistentVolumeClaim, StorageClass, ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER, ANN_SELECTED_NODE,
};
use crate::model::{Labels, NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, ObjectMeta, PodSpec, Volume};

/// `(namespace, name)` of a claim.
pub type ClaimKey = (String, String);

/// The storage objects of a cluster as the scheduler's listers see them.
#[derive(Debug, Clone, Default)]
pub struct Storage {
    claims: Namespaced<Arc<PersistentVolumeClaim>>,
    volumes: HashMap<String, Arc<PersistentVolume>>,
    /// The PVs of each class (`pvCache.ListPVs(class)`) that no claim references, by input
    /// order: what a claim may bind to besides a PV pre-bound to it. A claim's search over
    /// its class went through every PV of the class, bound ones included (10,000 of them per
    /// cycle in the 5,000-node benchmark).
    unclaimed_by_class: HashMap<String, BTreeMap<usize, Arc<PersistentVolume>>>,
    /// The PVs whose `claimRef` names each claim, by input order.
    claimed_by: HashMap<ClaimKey, BTreeMap<usize, Arc<PersistentVolume>>>,
    /// Each PV's place in the input (a PV the simulation adds comes after).
    volume_order: HashMap<String, usize>,
    classes: HashMap<String, StorageClass>,
    csi_nodes: HashMap<String, CsiNode>,
    csi_drivers: HashMap<String, CsiDriver>,
    capacities: Vec<CsiStorageCapacity>,
    /// How many pods assigned to nodes use each claim.
    claims_in_use: Namespaced<usize>,
    /// The claims the simulation provisioned (for the node in their `selected-node`).
    provisioned: std::collections::HashSet<ClaimKey>,
    /// The CSI volumes attached to each node by the pods bound to it, `(driver/handle,
    /// driver)`, recorded as pods bind ([`Storage::attach`]) so that NodeVolumeLimits does not
    /// look up the claims of every pod of every node it filters. A node without a record is
    /// counted from its pods.
    attached: HashMap<String, Vec<(String, String)>>,
    /// The default StorageClass (the newest of those annotated default), for claims created
    /// without a class.
    default_class: Option<String>,
}

impl Storage {
    /// The listers over what the input holds. Classes get the API server's default binding
    /// mode (`Immediate`) where they name none.
    pub fn new(objects: &StorageObjects) -> Self {
        let mut s = Storage::default();
        for (_, class) in &objects.classes {
            let mut class = class.clone();
            crate::cluster::defaults::default_storage_class(&mut class);
            s.classes.insert(class.metadata.name.clone(), class);
        }
        s.default_class = default_class(objects.classes.iter().map(|(_, c)| c));
        for (_, pv) in &objects.volumes {
            s.add_volume(pv.clone());
        }
        for (_, claim) in &objects.claims {
            let key = (claim.namespace().to_string(), claim.metadata.name.clone());
            s.claims.insert(key, Arc::new(claim.clone()));
        }
        for (_, n) in &objects.csi_nodes {
            s.csi_nodes.insert(n.metadata.name.clone(), n.clone());
        }
        for (_, d) in &objects.csi_drivers {
            s.csi_drivers.insert(d.metadata.name.clone(), d.clone());
        }
        s.capacities = objects.capacities.iter().map(|(_, c)| c.clone()).collect();
        s
    }

    pub fn is_empty(&self) -> bool {
        self.claims.is_empty() && self.volumes.is_empty() && self.classes.is_empty() && self.csi_nodes.is_empty()
    }

    /// Adds `pv`, or replaces the PV of its name (bound by the simulation), in the indexes.
    fn add_volume(&mut self, pv: PersistentVolume) {
        let name = pv.metadata.name.clone();
        let next = self.volume_order.len();
        let order = *self.volume_order.entry(name.clone()).or_insert(next);
        if let Some(old) = self.volumes.get(&name).cloned() {
            match &old.spec.claim_ref {
                None => {
                    self.unclaimed_by_class.get_mut(old.class()).map(|m| m.remove(&order));
                }
                Some(r) => {
                    self.claimed_by.get_mut(&(r.namespace.clone(), r.name.clone())).map(|m| m.remove(&order));
                }
            }
        }
        let pv = Arc::new(pv);
        match &pv.spec.claim_ref {
            None => {
                self.unclaimed_by_class.entry(pv.class().to_string()).or_default().insert(order, pv.clone());
            }
            Some(r) => {
                self.claimed_by.entry((r.namespace.clone(), r.name.clone())).or_default().insert(order, pv.clone());
            }
        }
        self.volumes.insert(name, pv);
    }

    pub fn claim(&self, namespace: &str, name: &str) -> Option<&Arc<PersistentVolumeClaim>> {
        self.claims.get(namespace, name)
    }

    pub fn volume(&self, name: &str) -> Option<&Arc<PersistentVolume>> {
        self.volumes.get(name)
    }

    /// The PVs of `class` a claim (`namespace/name`) may bind to: those whose `claimRef` names
    /// it, then those no claim references, each in input order. (`FindMatchingVolume` goes over
    /// all the class's PVs in order and skips the ones another claim references; a PV
    /// pre-bound to the claim wins wherever it is.)
    pub fn volumes_for_claim<'s>(
        &'s self,
        class: &'s str,
        namespace: &str,
        name: &str,
    ) -> impl Iterator<Item = &'s Arc<PersistentVolume>> + 's {
        let claimed = self.claimed_by.get(&(namespace.to_string(), name.to_string()));
        let claimed = claimed.into_iter().flat_map(|m| m.values()).filter(move |pv| pv.class() == class);
        claimed.chain(self.unclaimed_by_class.get(class).into_iter().flat_map(|m| m.values()))
    }

    pub fn class(&self, name: &str) -> Option<&StorageClass> {
        self.classes.get(name)
    }

    pub fn csi_node(&self, node: &str) -> Option<&CsiNode> {
        self.csi_nodes.get(node)
    }

    pub fn csi_nodes(&self) -> impl Iterator<Item = &CsiNode> {
        self.csi_nodes.values()
    }

    pub fn csi_driver(&self, name: &str) -> Option<&CsiDriver> {
        self.csi_drivers.get(name)
    }

    pub fn classes(&self) -> impl Iterator<Item = &StorageClass> {
        self.classes.values()
    }

    pub fn claims(&self) -> impl Iterator<Item = &Arc<PersistentVolumeClaim>> {
        self.claims.values()
    }

    /// `hasEnoughCapacity`: only drivers whose CSIDriver opts in (`storageCapacity: true`) are
    /// checked, against the CSIStorageCapacities of the class that the node can reach.
    pub fn has_enough_capacity(
        &self,
        provisioner: &str,
        claim: &PersistentVolumeClaim,
        class: &str,
        labels: &Labels,
    ) -> bool {
        let Some(size) = claim.spec.resources.requests.get("storage") else { return true };
        let Some(driver) = self.csi_drivers.get(provisioner) else { return true };
        if driver.spec.storage_capacity != Some(true) {
            return true;
        }
        self.capacities.iter().any(|c| {
            c.storage_class_name == class
                && c.sufficient(size)
                && c.node_topology.as_ref().is_some_and(|t| {
                    let path = crate::input::field::FieldPath::root("");
                    crate::model::labels::Selector::from_label_selector(Some(t), &path).is_ok_and(|s| s.matches(labels))
                })
        })
    }

    /// Records the CSI volumes a pod bound to `node` attaches there (each once).
    pub fn attach(&mut self, node: &str, volumes: Vec<(String, String)>) {
        let list = self.attached.entry(node.to_string()).or_default();
        for v in volumes {
            if !list.iter().any(|(u, _)| *u == v.0) {
                list.push(v);
            }
        }
    }

    /// The CSI volumes attached to `node` by its pods, when recorded.
    pub fn attached(&self, node: &str) -> Option<&[(String, String)]> {
        self.attached.get(node).map(Vec::as_slice)
    }

    /// Whether the simulation provisioned the claim's volume (rather than binding it to a PV
    /// of the input).
    pub fn provisioned_here(&self, namespace: &str, name: &str) -> bool {
        self.provisioned.contains(&(namespace.to_string(), name.to_string()))
    }

    /// `IsPVCUsedByPods`: some pod assigned to a node uses the claim.
    pub fn claim_in_use(&self, namespace: &str, name: &str) -> bool {
        self.claims_in_use.get(namespace, name).is_some_and(|n| *n > 0)
    }

    /// The class the DefaultStorageClass admission plugin gives a claim created without one.
    pub fn default_class(&self) -> Option<&str> {
        self.default_class.as_deref()
    }

    /// Creates `claim` unless one of its name exists (the StatefulSet controller and the
    /// ephemeral volume controller reuse existing claims). A claim without a class gets the
    /// default one, as the DefaultStorageClass admission plugin does on create. Whether it
    /// was created.
    pub fn create_claim(&mut self, mut claim: PersistentVolumeClaim) -> bool {
        let key = (claim.namespace().to_string(), claim.metadata.name.clone());
        if self.claims.get(&key.0, &key.1).is_some() {
            return false;
        }
        if claim.spec.storage_class_name.is_none()
            && claim.metadata.annotations.get(crate::model::storage::BETA_STORAGE_CLASS_ANNOTATION).is_none()
        {
            claim.spec.storage_class_name = self.default_class.clone();
        }
        if claim.status.phase.is_empty() {
            claim.status.phase = "Pending".into();
        }
        self.claims.insert(key, Arc::new(claim));
        true
    }

    /// Counts the claims of a pod bound to a node (`StorageInfos` as the snapshot builds it).
    pub fn add_pod(&mut self, metadata: &ObjectMeta, spec: &PodSpec) {
        let namespace = metadata.namespace_or_default();
        for v in &spec.volumes {
            if let Some(pvc) = &v.persistent_volume_claim {
                *self.claims_in_use.entry(namespace, &pvc.claim_name) += 1;
            }
        }
    }

    /// Takes a pod off its node: its claims are used by one pod fewer.
    pub fn remove_pod(&mut self, metadata: &ObjectMeta, spec: &PodSpec) {
        let namespace = metadata.namespace_or_default();
        for v in &spec.volumes {
            if let Some(pvc) = &v.persistent_volume_claim {
                if let Some(n) = self.claims_in_use.get_mut(namespace, &pvc.claim_name) {
                    *n = n.saturating_sub(1);
                }
            }
        }
    }

    /// What Reserve and PreBind leave once the PV controller and the provisioner have done
    /// their part: each matched PV bound to its claim (both sides, as the PV controller
    /// completes a binding), each claim to provision annotated with the node and bound to a
    /// new PV there, and the pod's claims in use.
    pub fn assume(
        &mut self,
        metadata: &ObjectMeta,
        spec: &PodSpec,
        node: &str,
        node_labels: &Labels,
        bindings: &PodVolumeBindings,
    ) {
        for b in &bindings.static_bindings {
            let Some(claim) = self.claims.get(&b.claim.0, &b.claim.1).cloned() else { continue };
            if let Some(pv) = self.volumes.get(&b.volume).cloned() {
                let mut pv = (*pv).clone();
                pv.spec.claim_ref = Some(crate::model::storage::ObjectReference {
                    kind: "PersistentVolumeClaim".into(),
                    namespace: claim.namespace().to_string(),
                    name: claim.metadata.name.clone(),
                    uid: claim.metadata.uid.clone(),
                });
                pv.metadata.annotations.insert(ANN_BOUND_BY_CONTROLLER.into(), "yes".into());
                pv.status.phase = "Bound".into();
                self.add_volume(pv);
            }
            let mut claim = (*claim).clone();
            claim.spec.volume_name = b.volume.clone();
            bind_completed(&mut claim);
            self.claims.insert(b.claim.clone(), Arc::new(claim));
        }
        for key in &bindings.dynamic_provisions {
            let Some(claim) = self.claims.get(&key.0, &key.1).cloned() else { continue };
            let mut claim = (*claim).clone();
            claim.metadata.annotations.insert(ANN_SELECTED_NODE.into(), node.to_string());
            let volume = format!("pvc-{}-{}", key.0, key.1);
            claim.spec.volume_name = volume.clone();
            bind_completed(&mut claim);
            let class = claim.class().to_string();
            let provisioner = self.provisioner_of(&class);
            // A CSI driver's volume (in-tree provisioners are named `kubernetes.io/...`):
            // counted against the driver's attach limit on the node from now on.
            let csi = (!provisioner.is_empty() && !provisioner.starts_with("kubernetes.io/")).then(|| {
                crate::model::storage::CsiPersistentVolumeSource {
                    driver: provisioner.clone(),
                    volume_handle: volume.clone(),
                }
            });
            let pv = PersistentVolume {
                metadata: ObjectMeta {
                    name: volume,
                    annotations: [("pv.kubernetes.io/provisioned-by".to_string(), provisioner)].into_iter().collect(),
                    ..Default::default()
                },
                spec: crate::model::storage::PersistentVolumeSpec {
                    capacity: claim.spec.resources.requests.clone(),
                    access_modes: claim.spec.access_modes.clone(),
                    claim_ref: Some(crate::model::storage::ObjectReference {
                        kind: "PersistentVolumeClaim".into(),
                        namespace: key.0.clone(),
                        name: key.1.clone(),
                        uid: claim.metadata.uid.clone(),
                    }),
                    storage_class_name: class.clone(),
                    node_affinity: self.provisioned_affinity(&class, node, node_labels),
                    volume_mode: claim.spec.volume_mode.clone(),
                    csi,
                    ..Default::default()
                },
                status: crate::model::storage::PersistentVolumeStatus { phase: "Bound".into() },
            };
            self.add_volume(pv);
            self.claims.insert(key.clone(), Arc::new(claim));
            self.provisioned.insert(key.clone());
        }
        self.add_pod(metadata, spec);
    }

    fn provisioner_of(&self, class: &str) -> String {
        self.classes.get(class).map(|c| c.provisioner.clone()).unwrap_or_default()
    }

    /// The node affinity a CSI provisioner gives the volume it creates for a pod on `node`:
    /// the node's values of the topology keys its driver registered on the node (the CSINode's
    /// `drivers[].topologyKeys`, which the external-provisioner copies into the PV's
    /// `nodeAffinity`); none where the driver registered none (network storage reachable from
    /// every node) or the node has no CSINode.
    fn provisioned_affinity(
        &self,
        class: &str,
        node: &str,
        labels: &Labels,
    ) -> Option<crate::model::storage::VolumeNodeAffinity> {
        let driver = self.classes.get(class)?.provisioner.as_str();
        let keys = &self.csi_nodes.get(node)?.spec.drivers.iter().find(|d| d.name == driver)?.topology_keys;
        let expressions: Vec<NodeSelectorRequirement> = keys
            .iter()
            .filter_map(|k| {
                let v = labels.get(k)?;
                Some(NodeSelectorRequirement { key: k.clone(), operator: "In".into(), values: vec![v.clone()] })
            })
            .collect();
        if expressions.is_empty() {
            return None;
        }
        Some(crate::model::storage::VolumeNodeAffinity {
            required: Some(NodeSelector {
                node_selector_terms: vec![NodeSelectorTerm {
                    match_expressions: expressions,
                    match_fields: Vec::new(),
                }],
            }),
        })
    }
}

fn bind_completed(claim: &mut PersistentVolumeClaim) {
    claim.metadata.annotations.insert(ANN_BIND_COMPLETED.into(), "yes".into());
    claim.metadata.annotations.insert(ANN_BOUND_BY_CONTROLLER.into(), "yes".into());
    claim.status.phase = "Bound".into();
}

/// `GetDefaultClass`: of the classes annotated default, the newest (by creation time, then
/// name, as the admission plugin sorts them since 1.28).
fn default_class<'a>(classes: impl Iterator<Item = &'a StorageClass>) -> Option<String> {
    let mut defaults: Vec<&StorageClass> = classes.filter(|c| c.is_default()).collect();
    defaults.sort_by(|a, b| {
        b.metadata
            .creation_timestamp
            .cmp(&a.metadata.creation_timestamp)
            .then_with(|| a.metadata.name.cmp(&b.metadata.name))
    });
    defaults.first().map(|c| c.metadata.name.clone())
}

/// Values by namespace, then name: looked up by `&str`s, without building a key (the volume
/// plugins look claims up for every node a cycle filters).
#[derive(Debug, Clone)]
struct Namespaced<T>(HashMap<String, HashMap<String, T>>);

impl<T> Default for Namespaced<T> {
    fn default() -> Self {
        Self(HashMap::new())
    }
}

impl<T> Namespaced<T> {
    fn get(&self, namespace: &str, name: &str) -> Option<&T> {
        self.0.get(namespace)?.get(name)
    }

    fn get_mut(&mut self, namespace: &str, name: &str) -> Option<&mut T> {
        self.0.get_mut(namespace)?.get_mut(name)
    }

    fn insert(&mut self, (namespace, name): ClaimKey, value: T) {
        self.0.entry(namespace).or_default().insert(name, value);
    }

    fn values(&self) -> impl Iterator<Item = &T> {
        self.0.values().flat_map(HashMap::values)
    }

    fn is_empty(&self) -> bool {
        self.0.values().all(HashMap::is_empty)
    }
}

impl<T: Default> Namespaced<T> {
    /// The value, made on first use (binding a pod: not on the per-node path).
    fn entry(&mut self, namespace: &str, name: &str) -> &mut T {
        self.0.entry(namespace.to_string()).or_default().entry(name.to_string()).or_default()
    }
}

/// The volume binding decisions for a pod on its chosen node (`PodVolumes`): claims to bind
/// to existing PVs, and claims to provision there.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodVolumeBindings {
    pub static_bindings: Vec<StaticBinding>,
    pub dynamic_provisions: Vec<ClaimKey>,
}

impl PodVolumeBindings {
    pub fn is_empty(&self) -> bool {
        self.static_bindings.is_empty() && self.dynamic_provisions.is_empty()
    }
}

/// A claim to bind to a PV.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StaticBinding {
    pub claim: ClaimKey,
    pub volume: String,
}

/// The claims a pod's volumes name, in volume order: `(volume, claim name, ephemeral)`.
pub fn pod_claims<'p>(
    pod_name: &'p str,
    volumes: &'p [Volume],
) -> impl Iterator<Item = (&'p Volume, String, bool)> + 'p {
    volumes.iter().filter_map(move |v| {
        let name = v.claim_name(pod_name)?;
        Some((v, name.into_owned(), v.ephemeral.is_some()))
    })
}
