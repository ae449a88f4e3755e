//! SchedulingGates: a PreEnqueue plugin. A pod with `spec.schedulingGates` never enters the
//! active queue, so no cycle runs for it and it holds no capacity until the gates are removed.

use crate::model::PodSpec;
use crate::scheduler::framework::{Code, Status};

pub const NAME: &str = "SchedulingGates";

/// `PreEnqueue`: success without gates, else upstream's `waiting for scheduling gates: [...]`
/// (Go's `%v` of the gate names).
pub fn pre_enqueue(pod: &PodSpec) -> Status {
    if pod.scheduling_gates.is_empty() {
        return Status::success();
    }
    let names: Vec<&str> = pod.scheduling_gates.iter().map(|g| g.name.as_str()).collect();
    Status::new(Code::UnschedulableAndUnresolvable, format!("waiting for scheduling gates: [{}]", names.join(" ")))
        .with_plugin(NAME)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::PodSchedulingGate;

    #[test]
    fn gated_pods_wait() {
        // (name, gates, want)
        let rows: [(&str, &[&str], Option<&str>); 3] = [
            ("no gates", &[], None),
            ("one gate", &["example.com/quota"], Some("waiting for scheduling gates: [example.com/quota]")),
            ("two gates, in order", &["b", "a"], Some("waiting for scheduling gates: [b a]")),
        ];
        for (name, gates, want) in rows {
            let spec = PodSpec {
                scheduling_gates: gates.iter().map(|g| PodSchedulingGate { name: g.to_string() }).collect(),
                ..Default::default()
            };
            let status = pre_enqueue(&spec);
            assert_eq!(status.is_success(), want.is_none(), "{name}");
            assert_eq!(status.reasons.first().map(|r| r.as_ref()), want, "{name}");
        }
    }
}
