//! Filter and score plugins of the default profile, in upstream's Filter order.
//!
//! Each module mirrors one file under `pkg/scheduler/framework/plugins/` with upstream's
//! reason strings and status codes. Plugins are plain functions over the pod, the node's
//! [`NodeInfo`](crate::framework::NodeInfo) and the profile's
//! [`SchedulerConfig`](crate::framework::SchedulerConfig); the scheduler in
//! [`crate::scheduler`] runs them in order.

pub mod inter_pod_affinity;
pub mod node_affinity;
pub mod node_name;
pub mod node_ports;
pub mod node_resources_fit;
pub mod node_unschedulable;
pub mod pod_topology_spread;
pub mod scheduling_gates;
pub mod taint_toleration;

/// `framework.MaxNodeScore`.
pub const MAX_NODE_SCORE: i64 = 100;

/// The default Filter order (`apis/config/v1/default_plugins.go`), volume plugins left out:
/// Placement models no volumes.
pub const FILTER_ORDER: [&str; 8] = [
    node_unschedulable::NAME,
    node_name::NAME,
    taint_toleration::NAME,
    node_affinity::NAME,
    node_ports::NAME,
    node_resources_fit::NAME,
    pod_topology_spread::NAME,
    inter_pod_affinity::NAME,
];

/// Default score weights (`getDefaultPlugins`).
pub const SCORE_WEIGHTS: [(&str, i64); 6] = [
    (taint_toleration::NAME, 3),
    (node_affinity::NAME, 2),
    (node_resources_fit::NAME, 1),
    (pod_topology_spread::NAME, 2),
    (inter_pod_affinity::NAME, 2),
    (node_resources_fit::BALANCED_ALLOCATION, 1),
];

/// `helper.DefaultNormalizeScore`: scale to `0..=max` by the highest score; `reverse` flips
/// it so fewer is better. All-zero scores become `max` when reversed, else stay 0.
pub fn default_normalize_score(max: i64, reverse: bool, scores: &mut [i64]) {
    let highest = scores.iter().copied().max().unwrap_or(0);
    if highest == 0 {
        if reverse {
            scores.iter_mut().for_each(|s| *s = max);
        }
        return;
    }
    for s in scores.iter_mut() {
        let scaled = max * *s / highest;
        *s = if reverse { max - scaled } else { scaled };
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
