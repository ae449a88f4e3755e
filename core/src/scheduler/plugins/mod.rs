//! Filter and score plugins of the default profile, in upstream's Filter order.
//!
//! Each module mirrors one file under `pkg/scheduler/framework/plugins/` with upstream's
//! reason strings and status codes. Plugins are plain functions over the pod, the node's
//! [`NodeInfo`](crate::scheduler::framework::NodeInfo) and the profile's
//! [`SchedulerConfig`](crate::scheduler::framework::SchedulerConfig); the scheduler in
//! [`crate::scheduler`] runs them in order.

pub mod default_preemption;
pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_declared_features;
pub mod node_name;
pub mod node_ports;
pub mod node_resources_fit;
pub mod node_unschedulable;
pub mod node_volume_limits;
pub mod pod_topology_spread;
pub mod scheduling_gates;
pub mod taint_toleration;
pub mod volume_binding;
pub mod volume_restrictions;
pub mod volume_zone;

/// `framework.MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;

// The default profile's order and weights: `crate::scheduler::profile::DEFAULT_PROFILE`.

/// `helper.DefaultNormalizeScore`: scale to `0..=max` by the highest score; `reverse` flips
/// it so fewer is better. All-zero scores become `max` when reversed, else stay 0.
pub fn default_normalize_score(max: i64, reverse: bool, scores: &mut [i64]) {
    let highest = scores.iter().copied().max().unwrap_or(0);
    for s in scores.iter_mut() {
        *s = default_normalized(max, reverse, highest, *s);
    }
}

/// One score of [`default_normalize_score`], `highest` being the highest of them all.
pub fn default_normalized(max: i64, reverse: bool, highest: i64, score: i64) -> i64 {
    if highest == 0 {
        return if reverse { max } else { score };
    }
    let scaled = max * score / highest;
    if reverse {
        max - scaled
    } else {
        scaled
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_like_upstream() {
        let mut s = [0, 1, 3];
        default_normalize_score(100, true, &mut s);
        assert_eq!(s, [100, 67, 0]);
        let mut s = [0, 0];
        default_normalize_score(100, true, &mut s);
        assert_eq!(s, [100, 100]);
        let mut s = [2, 5];
        default_normalize_score(100, false, &mut s);
        assert_eq!(s, [40, 100]);
    }
}
