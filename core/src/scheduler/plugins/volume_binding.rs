//! VolumeBinding (`pkg/scheduler/framework/plugins/volumebinding`: `volume_binding.go`,
//! `binder.go`, and `component-helpers/storage/volume`'s `FindMatchingVolume`): a pod's claims
//! must be bound to PVs whose node affinity the node satisfies, or be bindable there: a
//! WaitForFirstConsumer claim to an available PV that fits and is reachable from the node, or
//! provisioned by its class where the class's `allowedTopologies` admit the node.
//!
//! Its Score (StorageCapacityScoring, alpha in 1.33-1.36) is off in the modelled releases, so
//! the plugin scores nothing (`PreScore` returns Skip).

use std::collections::BTreeSet;
use std::sync::Arc;

use crate::model::quantity::Quantity;
use crate::model::storage::{PersistentVolume, PersistentVolumeClaim, PV_AVAILABLE};
use crate::model::version::FeatureGates;
use crate::model::Pod;
use crate::scheduler::framework::{Code, NodeInfo, Status};
use crate::scheduler::storage::{ClaimKey, PodVolumeBindings, StaticBinding, Storage};

pub const NAME: &str = "VolumeBinding";
/// `ErrReasonBindConflict`.
pub const ERR_REASON_BIND_CONFLICT: &str = "node(s) didn't find available persistent volumes to bind";
/// `ErrReasonNodeConflict`.
pub const ERR_REASON_NODE_CONFLICT: &str = "node(s) had volume node affinity conflict";
/// `ErrReasonNotEnoughSpace`.
pub const ERR_REASON_NOT_ENOUGH_SPACE: &str = "node(s) did not have enough free storage";
/// `ErrReasonPVNotExist`.
pub const ERR_REASON_PV_NOT_EXIST: &str = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)";
/// PreFilter's reason for Immediate claims the PV controller has not bound.
pub const ERR_REASON_UNBOUND_IMMEDIATE: &str = "pod has unbound immediate PersistentVolumeClaims";

/// `PodVolumeClaims`, with each delayed claim's candidate PVs: those of its class that could
/// match on some node (available or pre-bound to it, large enough, of its volume mode,
/// access modes, selector and attributes class), smallest first, so that a node's search
/// only checks node affinity.
#[derive(Debug, Clone, Default)]
pub struct PreFilterState {
    pub bound: Vec<Arc<PersistentVolumeClaim>>,
    pub delayed: Vec<DelayedClaim>,
    /// PreFilter's `PreFilterResult` (`GetEligibleNodes`): the nodes the bound claims' local
    /// PVs name; `None` for all nodes.
    pub eligible_nodes: Option<BTreeSet<String>>,
}

/// An unbound claim of a WaitForFirstConsumer class.
#[derive(Debug, Clone)]
pub struct DelayedClaim {
    pub claim: Arc<PersistentVolumeClaim>,
    /// A PV pre-bound to the claim (`claimRef` names it): the only one it may get.
    pub pre_bound: Option<Arc<PersistentVolume>>,
    /// Available PVs that match but for node affinity, smallest first (input order among
    /// equal sizes).
    pub candidates: Vec<Arc<PersistentVolume>>,
}

impl PreFilterState {
    pub fn is_empty(&self) -> bool {
        self.bound.is_empty() && self.delayed.is_empty()
    }
}

/// `PreFilter` (`podHasPVCs`, `GetPodVolumeClaims`).
pub fn pre_filter(pod: &Pod, storage: &Storage, gates: &FeatureGates) -> (Status, PreFilterState) {
    let namespace = pod.metadata.namespace_or_default();
    let unresolvable =
        |reason: String| (Status::new(Code::UnschedulableAndUnresolvable, reason), PreFilterState::default());
    let mut claims = Vec::new();
    for v in &pod.spec.volumes {
        let Some(name) = v.claim_name(&pod.metadata.name) else { continue };
        let Some(claim) = storage.claim(namespace, &name) else {
            if v.ephemeral.is_some() {
                return unresolvable(format!(
                    "waiting for ephemeral volume controller to create the persistentvolumeclaim \"{name}\""
                ));
            }
            return unresolvable(format!("persistentvolumeclaim \"{name}\" not found"));
        };
        if claim.status.phase == "Lost" {
            return unresolvable(format!(
                "persistentvolumeclaim \"{}\" bound to non-existent persistentvolume \"{}\"",
                claim.metadata.name, claim.spec.volume_name
            ));
        }
        if claim.metadata.deletion_timestamp.is_some() {
            return unresolvable(format!("persistentvolumeclaim \"{}\" is being deleted", claim.metadata.name));
        }
        claims.push(claim.clone());
    }
    if claims.is_empty() {
        return (Status::skip(), PreFilterState::default());
    }
    let mut state = PreFilterState::default();
    let mut immediate = Vec::new();
    for claim in claims {
        if claim.is_fully_bound() {
            state.bound.push(claim);
            continue;
        }
        // `IsDelayBindingMode`: no class, or a class not found, binds immediately.
        let delayed = storage.class(claim.class()).is_some_and(|c| c.waits_for_first_consumer());
        if delayed && claim.spec.volume_name.is_empty() {
            let (pre_bound, candidates) = candidates(&claim, storage, gates.volume_attributes_class);
            state.delayed.push(DelayedClaim { claim, pre_bound, candidates });
        } else {
            // Pre-bound claims (`volumeName` set, binding not completed) are treated as
            // unbound immediate ones.
            immediate.push(claim);
        }
    }
    if !immediate.is_empty() {
        let why: Vec<String> = immediate.iter().map(|c| unbound_immediate_detail(c, storage)).collect();
        let status =
            Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_UNBOUND_IMMEDIATE).with_detail(why.join("; "));
        return (status, PreFilterState::default());
    }
    state.eligible_nodes = eligible_nodes(&state.bound, storage);
    (Status::success(), state)
}

/// `GetEligibleNodes`: the intersection, over the bound claims whose PV names nodes
/// (`GetLocalPersistentVolumeNodeNames`), of those nodes; `None` (every node) when none does
/// or a PV is not found.
fn eligible_nodes(bound: &[Arc<PersistentVolumeClaim>], storage: &Storage) -> Option<BTreeSet<String>> {
    let mut eligible: Option<BTreeSet<String>> = None;
    for claim in bound {
        let names = local_node_names(storage.volume(&claim.spec.volume_name)?);
        if names.is_empty() {
            continue;
        }
        eligible = Some(match eligible {
            None => names,
            Some(e) => e.intersection(&names).cloned().collect(),
        });
    }
    eligible
}

/// `GetLocalPersistentVolumeNodeNames`: the union over the PV's required node affinity terms
/// of the intersection of each term's `kubernetes.io/hostname In` values (whatever the
/// volume's source).
fn local_node_names(pv: &PersistentVolume) -> BTreeSet<String> {
    let Some(required) = pv.spec.node_affinity.as_ref().and_then(|a| a.required.as_ref()) else {
        return BTreeSet::new();
    };
    let mut out = BTreeSet::new();
    for term in &required.node_selector_terms {
        let mut nodes: Option<BTreeSet<String>> = None;
        for r in term.match_expressions.iter().filter(|r| r.key == crate::model::LABEL_HOSTNAME && r.operator == "In") {
            let values: BTreeSet<String> = r.values.iter().cloned().collect();
            nodes = Some(match nodes {
                None => values,
                Some(n) => n.intersection(&values).cloned().collect(),
            });
        }
        out.extend(nodes.unwrap_or_default());
    }
    out
}

/// Why a claim counts as unbound immediate, in Placement's words.
fn unbound_immediate_detail(claim: &PersistentVolumeClaim, storage: &Storage) -> String {
    let name = &claim.metadata.name;
    if !claim.spec.volume_name.is_empty() {
        return format!(
            "claim {name} names volume {} but the PV controller has not completed the binding (no \
             pv.kubernetes.io/bind-completed annotation)",
            claim.spec.volume_name
        );
    }
    match claim.class() {
        "" => format!(
            "claim {name} names no StorageClass and the input has no default one: nothing provisions it; the PV \
             controller would first bind it to an available PV without a class"
        ),
        class if storage.class(class).is_none() => {
            format!("claim {name} names StorageClass {class}, which is not in the input")
        }
        class => format!(
            "claim {name} is not bound and StorageClass {class} binds immediately: the PV controller binds it (or \
             provisions a volume) before the pod can be scheduled"
        ),
    }
}

/// The node-independent half of `FindMatchingVolume` over the claim's class's PVs.
fn candidates(
    claim: &PersistentVolumeClaim,
    storage: &Storage,
    attributes_class: bool,
) -> (Option<Arc<PersistentVolume>>, Vec<Arc<PersistentVolume>>) {
    let requested = claim.requested_storage();
    let class = claim.class();
    let selector = claim.spec.selector.as_ref().map(|s| {
        crate::model::labels::Selector::from_label_selector(Some(s), &crate::input::field::FieldPath::root(""))
    });
    let mut out: Vec<(Quantity, Arc<PersistentVolume>)> = Vec::new();
    for pv in storage.volumes_for_claim(class, claim.namespace(), &claim.metadata.name) {
        if pv.spec.claim_ref.is_some() && !pv.is_bound_to(claim) {
            continue;
        }
        let capacity = pv.capacity();
        if capacity < requested {
            continue;
        }
        if volume_mode(claim.spec.volume_mode.as_deref()) != volume_mode(pv.spec.volume_mode.as_deref()) {
            continue;
        }
        if pv.metadata.deletion_timestamp.is_some() {
            continue;
        }
        if pv.is_bound_to(claim) {
            // A PV pre-bound to the claim is the claim's, or nothing (if its node affinity
            // fails on the node).
            return (Some(pv.clone()), Vec::new());
        }
        if pv.status.phase != PV_AVAILABLE {
            continue;
        }
        match &selector {
            Some(Ok(s)) if !s.matches(&pv.metadata.labels) => continue,
            // An invalid selector: upstream errors out of the search; no PV matches.
            Some(Err(_)) => continue,
            _ => {}
        }
        if pv.class() != class {
            continue;
        }
        // VolumeAttributesClass (GA in 1.34): the claim's and the PV's must be the same.
        if attributes_class
            && claim.spec.volume_attributes_class_name.as_deref().unwrap_or_default()
                != pv.spec.volume_attributes_class_name.as_deref().unwrap_or_default()
        {
            continue;
        }
        if !claim.spec.access_modes.iter().all(|m| pv.spec.access_modes.contains(m)) {
            continue;
        }
        out.push((capacity, pv.clone()));
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    (None, out.into_iter().map(|(_, pv)| pv).collect())
}

/// `CheckVolumeModeMismatches`' default: an unset mode is `Filesystem`.
fn volume_mode(mode: Option<&str>) -> &str {
    mode.unwrap_or("Filesystem")
}

/// `Filter` (`FindPodVolumes`): the node's conflict reasons, or the bindings the pod would
/// get there.
pub fn filter(state: &PreFilterState, node: &NodeInfo, storage: &Storage) -> Result<PodVolumeBindings, Status> {
    let labels = node.node_labels();
    let mut bindings = PodVolumeBindings::default();
    let mut bound_satisfied = true;
    let mut bound_pvs_found = true;
    let mut unbound_satisfied = true;
    let mut sufficient_storage = true;
    let mut details: Vec<String> = Vec::new();

    // `checkBoundClaims`: the first PV not found or not reachable ends the check.
    for claim in &state.bound {
        let Some(pv) = storage.volume(&claim.spec.volume_name) else {
            bound_pvs_found = false;
            details.push(format!(
                "claim {} is bound to PersistentVolume {}, which does not exist",
                claim.metadata.name, claim.spec.volume_name
            ));
            break;
        };
        if !pv.node_affinity_matches(labels) {
            bound_satisfied = false;
            details.push(format!(
                "claim {} is bound to PersistentVolume {} ({}), which this node cannot reach",
                claim.metadata.name,
                pv.name(),
                pv.topology().unwrap_or_else(|| "node affinity".into())
            ));
            break;
        }
    }

    let mut to_provision: Vec<&DelayedClaim> = Vec::new();
    let mut to_match: Vec<&DelayedClaim> = Vec::new();
    let mut selected_elsewhere = false;
    for d in &state.delayed {
        match d.claim.selected_node() {
            Some(selected) if selected != node.name() => {
                // Fast path: the claim is being provisioned for another node.
                unbound_satisfied = false;
                selected_elsewhere = true;
                details.push(format!("claim {} is being provisioned for node {selected}", d.claim.metadata.name));
                break;
            }
            Some(_) => to_provision.push(d),
            None => to_match.push(d),
        }
    }
    if !selected_elsewhere {
        // `findMatchingVolumes`: smallest claims first, each taking the smallest PV left.
        to_match.sort_by_key(|d| d.claim.requested_storage());
        let mut chosen: Vec<&str> = Vec::new();
        let mut unmatched: Vec<&DelayedClaim> = Vec::new();
        for d in to_match {
            let found = match &d.pre_bound {
                Some(pv) => pv.node_affinity_matches(labels).then_some(pv),
                None => d.candidates.iter().find(|pv| !chosen.contains(&pv.name()) && pv.node_affinity_matches(labels)),
            };
            match found {
                Some(pv) => {
                    chosen.push(pv.name());
                    bindings
                        .static_bindings
                        .push(StaticBinding { claim: key(&d.claim), volume: pv.name().to_string() });
                }
                None => {
                    unbound_satisfied = false;
                    unmatched.push(d);
                }
            }
        }
        to_provision.extend(unmatched);
        // `checkVolumeProvisions`: its verdict replaces the matching's.
        if !to_provision.is_empty() {
            let (satisfied, sufficient) =
                check_provisions(&to_provision, node, storage, &mut bindings.dynamic_provisions, &mut details);
            unbound_satisfied = satisfied;
            sufficient_storage = sufficient;
        }
    }

    let mut reasons = Vec::new();
    if !bound_satisfied {
        reasons.push(ERR_REASON_NODE_CONFLICT.into());
    }
    if !unbound_satisfied {
        reasons.push(ERR_REASON_BIND_CONFLICT.into());
    }
    if !sufficient_storage {
        reasons.push(ERR_REASON_NOT_ENOUGH_SPACE.into());
    }
    if !bound_pvs_found {
        reasons.push(ERR_REASON_PV_NOT_EXIST.into());
    }
    if reasons.is_empty() {
        return Ok(bindings);
    }
    let status = Status::with_reasons(Code::UnschedulableAndUnresolvable, reasons);
    Err(if details.is_empty() { status } else { status.with_detail(details.join("; ")) })
}

/// `checkVolumeProvisions`: `(provisionSatisfied, sufficientStorage)`; the claims to
/// provision on the node are added to `out` when both hold.
fn check_provisions(
    claims: &[&DelayedClaim],
    node: &NodeInfo,
    storage: &Storage,
    out: &mut Vec<ClaimKey>,
    details: &mut Vec<String>,
) -> (bool, bool) {
    let labels = node.node_labels();
    let mut provisions = Vec::new();
    for d in claims {
        let claim = &d.claim;
        let class_name = claim.class();
        // Upstream returns an error for a claim without a class or with a class not found;
        // neither reaches here (such claims bind immediately), so they read as unsatisfied.
        let Some(class) = storage.class(class_name) else {
            details
                .push(format!("claim {} names StorageClass {class_name:?}, which does not exist", claim.metadata.name));
            return (false, true);
        };
        if !class.provisions() {
            details.push(format!(
                "claim {}: no available PersistentVolume of class {class_name} matches on this node, and the class \
                 does not provision ({})",
                claim.metadata.name,
                if class.provisioner.is_empty() { "no provisioner".to_string() } else { class.provisioner.clone() }
            ));
            return (false, true);
        }
        if !class.topology_allows(labels) {
            details.push(format!(
                "claim {}: StorageClass {class_name} provisions only in {}",
                claim.metadata.name,
                class.allowed_topologies_text()
            ));
            return (false, true);
        }
        if !storage.has_enough_capacity(&class.provisioner, claim, class_name, labels) {
            details.push(format!(
                "claim {}: no CSIStorageCapacity of class {class_name} reachable from this node has {} free",
                claim.metadata.name,
                claim.requested_storage()
            ));
            return (true, false);
        }
        provisions.push(key(claim));
    }
    out.extend(provisions);
    (true, true)
}

fn key(claim: &PersistentVolumeClaim) -> ClaimKey {
    (claim.namespace().to_string(), claim.metadata.name.clone())
}
