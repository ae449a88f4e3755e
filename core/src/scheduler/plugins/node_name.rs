//! NodeName: a pod that names its node fits only there.

use std::collections::BTreeSet;

use crate::model::{Node, PodSpec};
use crate::scheduler::framework::{Code, NodeNames, Status};

pub const NAME: &str = "NodeName";
pub const ERR_REASON: &str = "node(s) didn't match the requested node name";

/// Current PreFilter restricts the candidates to the named node (older releases skipped).
pub fn pre_filter(pod: &PodSpec) -> (Status, NodeNames) {
    if pod.node_name.is_empty() {
        (Status::success(), None)
    } else {
        (Status::success(), Some(BTreeSet::from([pod.node_name.clone()])))
    }
}

pub fn filter(pod: &PodSpec, node: &Node) -> Status {
    if !rejects(pod, node) {
        return Status::success();
    }
    Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON)
        .with_detail(format!("pod requests node {:?}", pod.node_name))
}

/// Whether [`filter`] fails, without building its status.
pub fn rejects(pod: &PodSpec, node: &Node) -> bool {
    !pod.node_name.is_empty() && pod.node_name != node.metadata.name
}
