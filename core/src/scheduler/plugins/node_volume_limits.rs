//! NodeVolumeLimits (`pkg/scheduler/framework/plugins/nodevolumelimits/csi.go`): the CSI
//! volumes of the pod and of the pods already on the node, counted per driver against the
//! driver's attach limit in the node's CSINode (`drivers[].allocatable.count`).

use std::collections::{BTreeMap, BTreeSet};

use crate::model::storage::PersistentVolumeClaim;
use crate::model::{ObjectMeta, Pod, PodSpec, Volume};
use crate::scheduler::framework::{Code, NodeInfo, Status};
use crate::scheduler::plugins::volume_restrictions::claim_not_found;
use crate::scheduler::storage::Storage;

pub const NAME: &str = "NodeVolumeLimits";
/// `ErrReasonMaxVolumeCountExceeded`.
pub const ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: &str = "node(s) exceed max volume count";

/// `PreFilter`: `Skip` unless the pod has a claim or a generic ephemeral volume (inline
/// in-tree volumes migrated to CSI are not modelled).
pub fn pre_filter(pod: &Pod) -> Status {
    if pod.spec.volumes.iter().any(|v| v.persistent_volume_claim.is_some() || v.ephemeral.is_some()) {
        Status::success()
    } else {
        Status::skip()
    }
}

/// The pod's side of `Filter`, the same on every node of a cycle: its CSI volumes
/// (`filterAttachableVolumes` of the new pod, `driver/handle` to driver), or the claim it
/// lacks. Upstream computes it in each node's Filter; a cycle over 5,000 nodes looked the
/// claims up 5,000 times.
#[derive(Debug, Clone)]
pub struct PodVolumes(Result<BTreeMap<String, String>, String>);

impl PodVolumes {
    pub fn of(pod: &Pod, storage: &Storage) -> PodVolumes {
        let namespace = pod.metadata.namespace_or_default();
        let mut new_volumes = BTreeMap::new();
        PodVolumes(
            attachable_volumes(&pod.metadata.name, namespace, &pod.spec.volumes, storage, true, &mut new_volumes)
                .map(|()| new_volumes),
        )
    }
}

impl Default for PodVolumes {
    fn default() -> Self {
        PodVolumes(Ok(BTreeMap::new()))
    }
}

/// `Filter`.
pub fn filter(pod: &Pod, node: &NodeInfo, storage: &Storage) -> Status {
    filter_with(&PodVolumes::of(pod, storage), pod, node, storage)
}

/// [`filter`] with the pod's volumes read once for the cycle.
pub fn filter_with(volumes: &PodVolumes, pod: &Pod, node: &NodeInfo, storage: &Storage) -> Status {
    if pod.spec.volumes.is_empty() {
        return Status::success();
    }
    let new_volumes = match &volumes.0 {
        Ok(v) if v.is_empty() => return Status::success(),
        Ok(v) => v,
        Err(missing) => {
            let namespace = pod.metadata.namespace_or_default();
            return Status::new(
                Code::UnschedulableAndUnresolvable,
                format!("looking up PVC {namespace}/{missing}: {}", claim_not_found(missing)),
            );
        }
    };
    let Some(csi_node) = storage.csi_node(node.name()) else { return Status::success() };
    let limits: BTreeMap<&str, i64> =
        csi_node.spec.drivers.iter().filter_map(|d| Some((d.name.as_str(), d.allocatable.as_ref()?.count?))).collect();
    if limits.is_empty() {
        return Status::success();
    }
    let mut counted: BTreeMap<String, String> = BTreeMap::new();
    let attached: Vec<(&str, &str)> = match storage.attached(node.name()) {
        Some(recorded) => recorded.iter().map(|(u, d)| (u.as_str(), d.as_str())).collect(),
        None => {
            for p in node.pods() {
                // An existing pod's missing claims are not counted.
                let _ = attachable_volumes(&p.name, &p.namespace, &p.volumes, storage, false, &mut counted);
            }
            counted.iter().map(|(u, d)| (u.as_str(), d.as_str())).collect()
        }
    };
    let mut attached_count: BTreeMap<&str, i64> = BTreeMap::new();
    for (_, driver) in &attached {
        *attached_count.entry(driver).or_default() += 1;
    }
    // The pod's volumes not attached already (a volume shared with a pod on the node).
    let mut new_count: BTreeMap<&str, i64> = BTreeMap::new();
    for (unique, driver) in new_volumes {
        if !attached.iter().any(|(u, _)| u == unique) {
            *new_count.entry(driver.as_str()).or_default() += 1;
        }
    }
    for (driver, count) in new_count {
        let Some(limit) = limits.get(driver) else { continue };
        let current = attached_count.get(driver).copied().unwrap_or(0);
        if current + count > *limit {
            return Status::new(Code::Unschedulable, ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED).with_detail(format!(
                "CSI driver {driver} allows {limit} volume(s) on this node (CSINode allocatable.count); {current} attached, this pod adds {count}"
            ));
        }
    }
    Status::success()
}

/// `filterAttachableVolumes`: each claim's `driver/volumeHandle` to its driver. For a new
/// pod a missing claim is an error (its name returned); for an existing one it is skipped.
fn attachable_volumes(
    pod_name: &str,
    namespace: &str,
    volumes: &[Volume],
    storage: &Storage,
    new_pod: bool,
    out: &mut BTreeMap<String, String>,
) -> Result<(), String> {
    for v in volumes {
        let Some(claim_name) = v.claim_name(pod_name) else { continue };
        let Some(claim) = storage.claim(namespace, &claim_name) else {
            if new_pod {
                return Err(claim_name.into_owned());
            }
            continue;
        };
        if let Some((driver, handle)) = csi_driver_info(claim, storage) {
            out.insert(format!("{driver}/{handle}"), driver);
        }
    }
    Ok(())
}

/// `getCSIDriverInfo`: the bound PV's CSI driver and handle; for a claim not bound (or bound
/// to a PV not found), its class's provisioner and a handle of the claim's own.
fn csi_driver_info(claim: &PersistentVolumeClaim, storage: &Storage) -> Option<(String, String)> {
    let pv_name = &claim.spec.volume_name;
    if !pv_name.is_empty() {
        if let Some(pv) = storage.volume(pv_name) {
            // In-tree volumes migrated to CSI are not translated (not modelled).
            let csi = pv.spec.csi.as_ref()?;
            return Some((csi.driver.clone(), csi.volume_handle.clone()));
        }
    }
    // `getCSIDriverInfoFromSC`: a claim without a class must be bound before scheduling.
    let class_name = claim.class();
    if class_name.is_empty() {
        return None;
    }
    let class = storage.class(class_name)?;
    if class.provisioner.is_empty() {
        return None;
    }
    // Upstream: a random prefix, then `-<namespace>/<name>`: unique per claim.
    Some((class.provisioner.clone(), format!("placement-{}/{}", claim.namespace(), claim.metadata.name)))
}

/// The CSI volumes a pod bound to a node attaches there, `(driver/handle, driver)`, for
/// [`Storage::attach`].
pub fn attached_by(pod_name: &str, namespace: &str, volumes: &[Volume], storage: &Storage) -> Vec<(String, String)> {
    let mut out = BTreeMap::new();
    let _ = attachable_volumes(pod_name, namespace, volumes, storage, false, &mut out);
    out.into_iter().collect()
}

/// Records a pod bound to `node` as the later cycles' NodeVolumeLimits counts it: its CSI
/// volumes attached there ([`attached_by`], [`Storage::attach`]).
pub fn attach_pod(storage: &mut Storage, node: &str, metadata: &ObjectMeta, spec: &PodSpec) {
    let attached = attached_by(&metadata.name, metadata.namespace_or_default(), &spec.volumes, storage);
    storage.attach(node, attached);
}

/// The CSI drivers whose volumes the pod would attach, for the CSI node plugin check.
pub fn pod_drivers(pod: &Pod, storage: &Storage) -> BTreeSet<String> {
    let namespace = pod.metadata.namespace_or_default();
    let mut out = BTreeMap::new();
    let _ = attachable_volumes(&pod.metadata.name, namespace, &pod.spec.volumes, storage, false, &mut out);
    out.into_values().collect()
}
