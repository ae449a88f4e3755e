//! CSI node plugins: a pod's CSI volume can be mounted only on a node where its driver's node
//! plugin runs (the kubelet calls the plugin's socket to stage and publish the volume). The
//! plugin is a DaemonSet whose node-driver-registrar registers the driver with the kubelet
//! (`--kubelet-registration-path=/var/lib/kubelet/plugins/<driver>/csi.sock`); a snapshot's
//! CSINodes list the drivers registered on each node.
//!
//! The scheduler does not check this: a pod that lands where the DaemonSet does not run (a
//! dedicated storage pool's taint the DaemonSet does not tolerate, a nodeSelector) is
//! scheduled and then stays `ContainerCreating` with `FailedMount` events (`driver name ...
//! not found in the list of registered CSI drivers`). Placement reports it per pod
//! ([`CannotMount`]), after the simulation, from what the simulation placed.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::cluster::daemonset::{Blocker, DaemonNodeCheck};
use crate::input::documents::{Manifests, Workload, WorkloadKind};
use crate::model::Node;
use crate::scheduler::framework::SchedulerConfig;
use crate::scheduler::storage::Storage;

/// A claim a pod cannot mount on the node it went to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CannotMount {
    pub claim: String,
    /// The CSI driver the claim's volume needs.
    pub driver: String,
    pub node: String,
    /// The DaemonSet that registers the driver (`namespace/name`), when the input has it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub daemon_set: Option<String>,
    /// Why the driver is not there, e.g. `untolerated taint storage=ceph:NoSchedule`.
    pub reason: String,
}

impl CannotMount {
    /// `cannot mount: DaemonSet rook-ceph/csi-rbdplugin skips node storage-1: untolerated
    /// taint storage=ceph:NoSchedule`.
    pub fn text(&self) -> String {
        match &self.daemon_set {
            Some(ds) => format!(
                "cannot mount claim {}: DaemonSet {ds} (CSI driver {}) skips node {}: {}",
                self.claim, self.driver, self.node, self.reason
            ),
            None => format!(
                "cannot mount claim {}: CSI driver {} is not registered on node {}: {}",
                self.claim, self.driver, self.node, self.reason
            ),
        }
    }
}

/// The prefix of the registration path the kubelet's plugin watcher reads.
const PLUGINS_DIR: &str = "/var/lib/kubelet/plugins/";
const REGISTRATION_FLAG: &str = "--kubelet-registration-path=";

/// A container as the registration check reads it.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default)]
pub struct RegistrarContainer {
    pub args: Vec<String>,
    pub env: Vec<EnvVar>,
}

/// An environment variable with a literal value (`valueFrom` is not read).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default)]
pub struct EnvVar {
    pub name: String,
    pub value: String,
}

/// The CSI driver a container registers, read from a node-driver-registrar's
/// `--kubelet-registration-path` (literal, or `$(VAR)` of the container's env).
pub fn registered_driver(args: &[String], env: &[EnvVar]) -> Option<String> {
    let arg = args.iter().find_map(|a| a.strip_prefix(REGISTRATION_FLAG))?;
    let path = match arg.strip_prefix("$(").and_then(|a| a.strip_suffix(')')) {
        Some(var) => env.iter().find(|e| e.name == var)?.value.as_str(),
        None => arg,
    };
    let rest = path.strip_prefix(PLUGINS_DIR)?;
    let driver = rest.split('/').next()?;
    (!driver.is_empty()).then(|| driver.to_string())
}

/// The DaemonSets that register each CSI driver, in input order.
pub fn registrars(manifests: &Manifests) -> BTreeMap<String, Vec<&Workload>> {
    let mut out: BTreeMap<String, Vec<&Workload>> = BTreeMap::new();
    for w in manifests.workloads.iter().filter(|w| w.kind == WorkloadKind::DaemonSet) {
        for driver in &w.state.csi_drivers {
            out.entry(driver.clone()).or_default().push(w);
        }
    }
    out
}

/// The CSI driver a claim's volume needs: its bound PV's, or its class's provisioner when the
/// volume is still to be made (or was provisioned in the simulation). `None` for in-tree or
/// unknown volumes.
pub fn claim_driver(storage: &Storage, namespace: &str, claim: &str) -> Option<String> {
    let claim = storage.claim(namespace, claim)?;
    if let Some(pv) = storage.volume(&claim.spec.volume_name) {
        if let Some(csi) = &pv.spec.csi {
            return Some(csi.driver.clone());
        }
        // A PV of an in-tree plugin: not a CSI driver's, unless provisioned by one.
        pv.metadata.annotations.get("pv.kubernetes.io/provisioned-by")?;
    }
    let provisioner = &storage.class(claim.class())?.provisioner;
    (!provisioner.is_empty()).then(|| provisioner.clone())
}

/// Whether `driver` is a CSI driver the input knows of: a DaemonSet registers it, a CSIDriver
/// object names it, or some CSINode lists it.
pub fn known_driver(storage: &Storage, registrars: &BTreeMap<String, Vec<&Workload>>, driver: &str) -> bool {
    registrars.contains_key(driver)
        || storage.csi_driver(driver).is_some()
        || storage.csi_nodes().any(|n| n.has_driver(driver))
}

/// Why `driver`'s node plugin is not on `node`, or `None` when it is: a DaemonSet registers
/// it and `runs_on(ds, node)` says whether the simulation has its pod there; else the node's
/// CSINode says whether the kubelet has it registered.
pub fn missing_reason(
    storage: &Storage,
    registrars: &BTreeMap<String, Vec<&Workload>>,
    driver: &str,
    node: &Node,
    cfg: &SchedulerConfig,
    runs_on: &dyn Fn(&Workload, &str) -> Option<bool>,
) -> Option<(Option<String>, String)> {
    let name = node.metadata.name.as_str();
    if let Some(sets) = registrars.get(driver) {
        let mut first: Option<(Option<String>, String)> = None;
        for ds in sets {
            let id = format!("{}/{}", ds.namespace, ds.name);
            match runs_on(ds, name) {
                Some(true) => return None,
                Some(false) => {
                    first.get_or_insert((Some(id), "its pod there is Pending".into()));
                }
                None => {
                    let check = DaemonNodeCheck::new(&ds.template.spec, cfg).check(node);
                    let reason = match check.blocked_by {
                        Some(Blocker::Taint(t)) => format!("untolerated taint {t}"),
                        Some(Blocker::NodeAffinity) => {
                            "its nodeSelector or node affinity does not match the node".into()
                        }
                        Some(Blocker::NodeName(n)) => format!("its pods are pinned to node {n}"),
                        None => "it has no pod on the node".into(),
                    };
                    first.get_or_insert((Some(id), reason));
                }
            }
        }
        return first;
    }
    let csi_node = storage.csi_node(name);
    match csi_node {
        Some(n) if n.has_driver(driver) => None,
        Some(n) => {
            let listed: Vec<&str> = n.spec.drivers.iter().map(|d| d.name.as_str()).collect();
            let listed = if listed.is_empty() { "none".to_string() } else { listed.join(", ") };
            Some((None, format!("the node's CSINode lists drivers {listed}")))
        }
        // Without a CSINode for the node and no DaemonSet, nothing says either way.
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `(name, args, env, want)`.
    type Case = (&'static str, Vec<&'static str>, Vec<(&'static str, &'static str)>, Option<&'static str>);

    #[test]
    fn registration_paths() {
        let cases: [Case; 4] = [
            (
                "literal path",
                vec![
                    "--v=0",
                    "--kubelet-registration-path=/var/lib/kubelet/plugins/rook-ceph.rbd.csi.ceph.com/csi.sock",
                ],
                vec![],
                Some("rook-ceph.rbd.csi.ceph.com"),
            ),
            (
                "path from the env",
                vec!["--kubelet-registration-path=$(DRIVER_REG_SOCK_PATH)"],
                vec![("DRIVER_REG_SOCK_PATH", "/var/lib/kubelet/plugins/disk.csi.azure.com/csi.sock")],
                Some("disk.csi.azure.com"),
            ),
            ("not a registrar", vec!["--csi-address=/csi/csi.sock"], vec![], None),
            ("unresolved variable", vec!["--kubelet-registration-path=$(NOPE)"], vec![], None),
        ];
        for (name, args, env, want) in cases {
            let args: Vec<String> = args.into_iter().map(String::from).collect();
            let env: Vec<EnvVar> = env.into_iter().map(|(n, v)| EnvVar { name: n.into(), value: v.into() }).collect();
            assert_eq!(registered_driver(&args, &env).as_deref(), want, "{name}");
        }
    }
}
