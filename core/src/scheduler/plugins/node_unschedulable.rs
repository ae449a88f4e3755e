//! NodeUnschedulable: cordoned nodes, unless the pod tolerates the unschedulable taint.

use crate::model::taints::{tolerations_tolerate, NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE};
use crate::model::{Node, PodSpec, Taint};
use crate::scheduler::framework::{Code, SchedulerConfig, Status};

pub const NAME: &str = "NodeUnschedulable";
pub const ERR_REASON_UNSCHEDULABLE: &str = "node(s) were unschedulable";

pub fn filter(pod: &PodSpec, node: &Node, cfg: &SchedulerConfig) -> Status {
    if !rejects(pod, node, cfg) {
        return Status::success();
    }
    Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_UNSCHEDULABLE)
        .with_detail("node is cordoned (spec.unschedulable: true)")
}

/// Whether [`filter`] fails, without building its status.
pub fn rejects(pod: &PodSpec, node: &Node, cfg: &SchedulerConfig) -> bool {
    if !node.spec.unschedulable {
        return false;
    }
    // The check uses the taint value "": an Equal toleration with a value does not help.
    let taint = Taint { key: TAINT_NODE_UNSCHEDULABLE.into(), value: String::new(), effect: NO_SCHEDULE.into() };
    !tolerations_tolerate(&pod.tolerations, &taint, cfg.gates.taint_toleration_comparison_operators)
}
