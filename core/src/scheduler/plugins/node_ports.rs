//! NodePorts: host ports must be free on the node.

use crate::model::PodSpec;
use crate::scheduler::framework::{Code, NodeInfo, Status};
use crate::scheduler::hostports::{wanted_host_ports, HostPort};

pub const NAME: &str = "NodePorts";
pub const ERR_REASON: &str = "node(s) didn't have free ports for the requested pod ports";

/// `Skip` when the pod wants no host ports; otherwise the ports to check.
pub fn pre_filter(pod: &PodSpec) -> (Status, Vec<HostPort>) {
    let wanted = wanted_host_ports(pod);
    if wanted.is_empty() {
        (Status::skip(), wanted)
    } else {
        (Status::success(), wanted)
    }
}

/// `Unschedulable`, not unresolvable: preemption can free a port.
pub fn filter(wanted: &[HostPort], node: &NodeInfo) -> Status {
    let taken: Vec<String> = wanted.iter().filter(|p| node.used_ports.conflicts(p)).map(ToString::to_string).collect();
    if taken.is_empty() {
        return Status::success();
    }
    Status::new(Code::Unschedulable, ERR_REASON).with_detail(format!("host port {} already in use", taken.join(", ")))
}
