//! VolumeZone (`pkg/scheduler/framework/plugins/volumezone`): a bound PV's zone and region
//! labels must match the node's.

use crate::model::labels::LabelLookup;
use crate::model::storage::ZONE_LABELS;
use crate::model::Pod;
use crate::scheduler::framework::{Code, NodeInfo, Status};
use crate::scheduler::plugins::volume_restrictions::claim_not_found;
use crate::scheduler::storage::Storage;

pub const NAME: &str = "VolumeZone";
/// `ErrReasonConflict`.
pub const ERR_REASON_CONFLICT: &str = "node(s) had no available volume zone";

/// One label of a bound PV (`pvTopology`): its key and the zones its value lists.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PvTopology {
    pub pv_name: String,
    pub key: &'static str,
    pub values: Vec<String>,
}

/// `PreFilter` (`getPVbyPod`): the zone labels of the PVs bound to the pod's claims (not
/// generic ephemeral ones); unbound claims of WaitForFirstConsumer classes are skipped.
pub fn pre_filter(pod: &Pod, storage: &Storage) -> (Status, Vec<PvTopology>) {
    let namespace = pod.metadata.namespace_or_default();
    let mut out = Vec::new();
    let unresolvable = |reason: String| (Status::new(Code::UnschedulableAndUnresolvable, reason), Vec::new());
    for v in &pod.spec.volumes {
        let Some(pvc) = &v.persistent_volume_claim else { continue };
        if pvc.claim_name.is_empty() {
            return unresolvable("PersistentVolumeClaim had no name".into());
        }
        let Some(claim) = storage.claim(namespace, &pvc.claim_name) else {
            return unresolvable(claim_not_found(&pvc.claim_name));
        };
        let pv_name = &claim.spec.volume_name;
        if pv_name.is_empty() {
            let class_name = claim.class();
            if class_name.is_empty() {
                return unresolvable("PersistentVolumeClaim had no pv name and storageClass name".into());
            }
            let Some(class) = storage.class(class_name) else {
                return unresolvable(format!("storageclass.storage.k8s.io \"{class_name}\" not found"));
            };
            if class.waits_for_first_consumer() {
                continue;
            }
            return unresolvable("PersistentVolume had no name".into());
        }
        let Some(pv) = storage.volume(pv_name) else {
            return unresolvable(format!("persistentvolume \"{pv_name}\" not found"));
        };
        for key in ZONE_LABELS {
            if let Some(value) = pv.metadata.labels.get(key) {
                // `LabelZonesToSet`: zones joined by `__`; a value that does not parse is
                // ignored.
                let values: Vec<String> = value.split("__").map(str::to_string).collect();
                if values.iter().any(String::is_empty) {
                    continue;
                }
                out.push(PvTopology { pv_name: pv_name.clone(), key, values });
            }
        }
    }
    if out.is_empty() {
        return (Status::skip(), out);
    }
    (Status::success(), out)
}

/// `translateToGALabel`.
fn ga_label(key: &str) -> &str {
    match key {
        "failure-domain.beta.kubernetes.io/region" => "topology.kubernetes.io/region",
        "failure-domain.beta.kubernetes.io/zone" => "topology.kubernetes.io/zone",
        other => other,
    }
}

/// `Filter`: a node without any zone or region label passes (single-zone clusters); else
/// every PV label must be on the node (the beta key, or its GA form) with a listed value.
pub fn filter(topologies: &[PvTopology], pod: &Pod, node: &NodeInfo) -> Status {
    if pod.spec.volumes.is_empty() {
        return Status::success();
    }
    let labels = node.labels();
    if !ZONE_LABELS.iter().any(|k| labels.label(k).is_some()) {
        return Status::success();
    }
    for t in topologies {
        let value = labels.label(t.key).or_else(|| labels.label(ga_label(t.key)));
        if !value.is_some_and(|v| t.values.iter().any(|x| x == v)) {
            let node_value = value.map_or_else(|| "no such label".to_string(), |v| format!("{}={v}", t.key));
            return Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_CONFLICT).with_detail(format!(
                "PersistentVolume {} is in {} {}; the node has {}",
                t.pv_name,
                t.key,
                t.values.join(", "),
                node_value
            ));
        }
    }
    Status::success()
}
