//! VolumeRestrictions (`pkg/scheduler/framework/plugins/volumerestrictions`): a
//! `ReadWriteOncePod` claim used by a pod anywhere in the cluster, and the in-tree disks
//! (GCE PD, AWS EBS, iSCSI, Ceph RBD) that two pods on one node may not both mount.

use std::collections::BTreeSet;

use crate::model::storage::READ_WRITE_ONCE_POD;
use crate::model::{Pod, Volume};
use crate::scheduler::framework::{Code, NodeInfo, Status};
use crate::scheduler::storage::Storage;

pub const NAME: &str = "VolumeRestrictions";
/// `ErrReasonDiskConflict`.
pub const ERR_REASON_DISK_CONFLICT: &str = "node(s) had no available disk";
/// `ErrReasonReadWriteOncePodConflict`.
pub const ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT: &str =
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode";

/// `preFilterState`: the pod's ReadWriteOncePod claims and how many of them scheduled pods use.
#[derive(Debug, Clone, Default)]
pub struct PreFilterState {
    pub read_write_once_pod_claims: BTreeSet<String>,
    pub conflicting_claims: usize,
}

/// `PreFilter`: a claim the pod names that does not exist is unresolvable (in the lister's
/// words); `Skip` when the pod has no in-tree disk and no ReadWriteOncePod claim in use.
pub fn pre_filter(pod: &Pod, storage: &Storage) -> (Status, PreFilterState) {
    let namespace = pod.metadata.namespace_or_default();
    let needs_check = pod.spec.volumes.iter().any(needs_restrictions_check);
    let mut state = PreFilterState::default();
    for v in &pod.spec.volumes {
        let Some(pvc) = &v.persistent_volume_claim else { continue };
        let Some(claim) = storage.claim(namespace, &pvc.claim_name) else {
            return (
                Status::new(Code::UnschedulableAndUnresolvable, claim_not_found(&pvc.claim_name)),
                PreFilterState::default(),
            );
        };
        if claim.has_access_mode(READ_WRITE_ONCE_POD) {
            state.read_write_once_pod_claims.insert(claim.metadata.name.clone());
        }
    }
    state.conflicting_claims =
        state.read_write_once_pod_claims.iter().filter(|c| storage.claim_in_use(namespace, c)).count();
    if !needs_check && state.conflicting_claims == 0 {
        return (Status::skip(), state);
    }
    (Status::success(), state)
}

/// The lister's NotFound error (`errors.NewNotFound(v1.Resource("persistentvolumeclaim"), name)`).
pub fn claim_not_found(name: &str) -> String {
    format!("persistentvolumeclaim \"{name}\" not found")
}

/// `Filter`: a disk another pod on the node mounts, then the ReadWriteOncePod claims in use
/// (on any node: the count is the cluster's).
pub fn filter(state: &PreFilterState, pod: &Pod, node: &NodeInfo) -> Status {
    let conflict =
        pod.spec.volumes.iter().filter(|v| needs_restrictions_check(v)).find_map(|v| {
            node.pods().iter().find(|p| p.volumes.iter().any(|e| is_volume_conflict(v, e))).map(|p| (v, p))
        });
    if let Some((v, other)) = conflict {
        return Status::new(Code::Unschedulable, ERR_REASON_DISK_CONFLICT).with_detail(format!(
            "volume {} is mounted by pod {}/{} on this node",
            v.name, other.namespace, other.name
        ));
    }
    if state.conflicting_claims > 0 {
        let claims: Vec<&str> = state.read_write_once_pod_claims.iter().map(String::as_str).collect();
        return Status::new(Code::Unschedulable, ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)
            .with_detail(format!("ReadWriteOncePod claim {} is already used by a pod", claims.join(", ")));
    }
    Status::success()
}

/// `needsRestrictionsCheck`.
pub fn needs_restrictions_check(v: &Volume) -> bool {
    v.gce_persistent_disk.is_some() || v.aws_elastic_block_store.is_some() || v.rbd.is_some() || v.iscsi.is_some()
}

/// `isVolumeConflict` of one volume against one of an existing pod's.
pub fn is_volume_conflict(v: &Volume, existing: &Volume) -> bool {
    if let (Some(d), Some(e)) = (&v.gce_persistent_disk, &existing.gce_persistent_disk) {
        if d.pd_name == e.pd_name && !(d.read_only && e.read_only) {
            return true;
        }
    }
    if let (Some(d), Some(e)) = (&v.aws_elastic_block_store, &existing.aws_elastic_block_store) {
        if d.volume_id == e.volume_id {
            return true;
        }
    }
    if let (Some(d), Some(e)) = (&v.iscsi, &existing.iscsi) {
        if d.iqn == e.iqn && !(d.read_only && e.read_only) {
            return true;
        }
    }
    if let (Some(d), Some(e)) = (&v.rbd, &existing.rbd) {
        let overlap = d.monitors.iter().any(|m| e.monitors.contains(m));
        if overlap && d.pool == e.pool && d.image == e.image && !(d.read_only && e.read_only) {
            return true;
        }
    }
    false
}
