//! The default scheduling profile as data: the Filter plugins in order and the Score plugins
//! with their weights (`getDefaultPlugins`, pkg/scheduler/apis/config/v1/default_plugins.go).
//! The cycle in [`crate::scheduler`] iterates these tables; nothing else spells the order or
//! the weights out.
//!
//! Left out, as Placement models no images or resource claims: ImageLocality. VolumeBinding's
//! Score (StorageCapacityScoring) is off in the modelled releases: its PreScore skips it, so it
//! is not listed among the scores. SchedulingGates (PreEnqueue), DynamicResources (only its
//! PostFilter text, for pods without claims) and DefaultPreemption (its PostFilter text) live
//! in the cycle itself. The volume plugins read the cluster's storage objects
//! ([`crate::scheduler::storage::Storage`], in [`SchedulerConfig`](crate::scheduler::framework::SchedulerConfig)).

use crate::scheduler::plugins::{
    inter_pod_affinity, node_affinity, node_declared_features, node_name, node_ports, node_resources_fit,
    node_unschedulable, node_volume_limits, pod_topology_spread, taint_toleration, volume_binding, volume_restrictions,
    volume_zone,
};

/// A Filter plugin of the default profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FilterPlugin {
    NodeUnschedulable,
    NodeName,
    TaintToleration,
    NodeAffinity,
    NodePorts,
    NodeResourcesFit,
    VolumeRestrictions,
    NodeVolumeLimits,
    VolumeBinding,
    VolumeZone,
    PodTopologySpread,
    InterPodAffinity,
    /// Last (after DynamicResources, which the cycle holds), when its gate is on.
    NodeDeclaredFeatures,
}

impl FilterPlugin {
    pub fn name(self) -> &'static str {
        match self {
            Self::NodeUnschedulable => node_unschedulable::NAME,
            Self::NodeName => node_name::NAME,
            Self::TaintToleration => taint_toleration::NAME,
            Self::NodeAffinity => node_affinity::NAME,
            Self::NodePorts => node_ports::NAME,
            Self::NodeResourcesFit => node_resources_fit::NAME,
            Self::VolumeRestrictions => volume_restrictions::NAME,
            Self::NodeVolumeLimits => node_volume_limits::NAME,
            Self::VolumeBinding => volume_binding::NAME,
            Self::VolumeZone => volume_zone::NAME,
            Self::PodTopologySpread => pod_topology_spread::NAME,
            Self::InterPodAffinity => inter_pod_affinity::NAME,
            Self::NodeDeclaredFeatures => node_declared_features::NAME,
        }
    }

    /// Whether the outcome depends only on the pod's spec and the Node object, never on the
    /// pods bound to the node: such filters are computed once per workload and node.
    pub fn is_static(self) -> bool {
        matches!(self, Self::NodeUnschedulable | Self::NodeName | Self::TaintToleration | Self::NodeAffinity)
    }
}

/// A Score plugin of the default profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScorePlugin {
    TaintToleration,
    NodeAffinity,
    NodeResourcesFit,
    PodTopologySpread,
    InterPodAffinity,
    NodeResourcesBalancedAllocation,
}

impl ScorePlugin {
    pub fn name(self) -> &'static str {
        match self {
            Self::TaintToleration => taint_toleration::NAME,
            Self::NodeAffinity => node_affinity::NAME,
            Self::NodeResourcesFit => node_resources_fit::NAME,
            Self::PodTopologySpread => pod_topology_spread::NAME,
            Self::InterPodAffinity => inter_pod_affinity::NAME,
            Self::NodeResourcesBalancedAllocation => node_resources_fit::BALANCED_ALLOCATION,
        }
    }
}

/// A profile: what the cycle runs, in order.
#[derive(Debug, Clone, Copy)]
pub struct Profile {
    pub filters: &'static [FilterPlugin],
    /// Score plugins with their weights, in the order their scores are listed.
    pub scores: &'static [(ScorePlugin, i64)],
}

impl Profile {
    /// The Filter plugins whose outcome depends only on the spec and the Node, in order.
    pub fn static_filters(&self) -> impl Iterator<Item = FilterPlugin> + '_ {
        self.filters.iter().copied().filter(|f| f.is_static())
    }

    /// The Filter plugins a cluster with `gates` has in its profile, in order: upstream's
    /// `applyFeatureGates` appends NodeDeclaredFeatures only with its gate on (the cycle
    /// skips it otherwise).
    pub fn enabled_filters<'a>(
        &'a self,
        gates: &'a crate::model::version::FeatureGates,
    ) -> impl Iterator<Item = FilterPlugin> + 'a {
        self.filters
            .iter()
            .copied()
            .filter(|f| *f != FilterPlugin::NodeDeclaredFeatures || gates.node_declared_features)
    }

    /// The Filter plugins that read what is bound to nodes, in order.
    pub fn dynamic_filters(&self) -> impl Iterator<Item = FilterPlugin> + '_ {
        self.filters.iter().copied().filter(|f| !f.is_static())
    }
}

impl Default for Profile {
    fn default() -> Self {
        DEFAULT_PROFILE
    }
}

/// `default-scheduler`'s profile. Upstream's Filter order starts with the four static
/// filters, so a node they reject never reaches the others.
pub const DEFAULT_PROFILE: Profile = Profile {
    filters: &[
        FilterPlugin::NodeUnschedulable,
        FilterPlugin::NodeName,
        FilterPlugin::TaintToleration,
        FilterPlugin::NodeAffinity,
        FilterPlugin::NodePorts,
        FilterPlugin::NodeResourcesFit,
        FilterPlugin::VolumeRestrictions,
        FilterPlugin::NodeVolumeLimits,
        FilterPlugin::VolumeBinding,
        FilterPlugin::VolumeZone,
        FilterPlugin::PodTopologySpread,
        FilterPlugin::InterPodAffinity,
        // Appended by `applyFeatureGates` with NodeDeclaredFeatures on (from 1.36): its
        // PreFilter skips it otherwise ([`node_declared_features::requirements`]).
        FilterPlugin::NodeDeclaredFeatures,
    ],
    scores: &[
        (ScorePlugin::TaintToleration, 3),
        (ScorePlugin::NodeAffinity, 2),
        (ScorePlugin::NodeResourcesFit, 1),
        (ScorePlugin::PodTopologySpread, 2),
        (ScorePlugin::InterPodAffinity, 2),
        (ScorePlugin::NodeResourcesBalancedAllocation, 1),
    ],
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn static_filters_come_first() {
        // The per-workload cache relies on it: a node a static filter rejects is never
        // shown to a dynamic one.
        let first_dynamic = DEFAULT_PROFILE.filters.iter().position(|f| !f.is_static()).unwrap();
        assert!(DEFAULT_PROFILE.filters[first_dynamic..].iter().all(|f| !f.is_static()));
        assert_eq!(DEFAULT_PROFILE.static_filters().count(), 4);
    }
}
