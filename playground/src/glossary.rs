//! A short glossary of the scheduler plugins the matrix and the breakdown name, for the page's
//! glossary section (each cell's plugin links to its entry).

/// `(plugin, what it does)`: filters first, in kube-scheduler's Filter order, then the score
/// plugin that only scores.
pub const PLUGINS: [(&str, &str); 14] = [
    ("NodeUnschedulable", "Filter: rejects a cordoned node (spec.unschedulable) unless the pod tolerates the node.kubernetes.io/unschedulable:NoSchedule taint."),
    ("NodeName", "Filter: when the pod sets spec.nodeName, only that node passes."),
    ("TaintToleration", "Filter: rejects a node with a NoSchedule or NoExecute taint the pod does not tolerate. Score: prefers nodes with fewer PreferNoSchedule taints the pod does not tolerate."),
    ("NodeAffinity", "Filter: the pod's nodeSelector and required node affinity must match the node's labels. Score: the weights of the preferred node affinity terms the node matches."),
    ("NodePorts", "Filter: rejects a node where a hostPort the pod asks for is already taken."),
    ("NodeResourcesFit", "Filter: the node's allocatable, less the requests of the pods on it, must cover the pod's requests (cpu, memory, ephemeral-storage, pods, extended resources). Score: by default LeastAllocated, which prefers nodes with more left after the pod."),
    ("VolumeRestrictions", "Filter: a ReadWriteOncePod claim another pod already uses rejects every node; an in-tree disk (GCE PD, AWS EBS, iSCSI, Ceph RBD) another pod on the node mounts read-write rejects that node."),
    ("NodeVolumeLimits", "Filter: the pod's CSI volumes plus those already attached to the node must stay within each driver's attach limit (the node's CSINode, allocatable.count)."),
    ("VolumeBinding", "Filter: a bound claim's PersistentVolume must be reachable from the node (its node affinity); an unbound WaitForFirstConsumer claim needs an available matching PV there, or a class that provisions in the node's topology (allowedTopologies). Claims that bind immediately must be bound first."),
    ("VolumeZone", "Filter: the zone and region labels of the pod's bound PersistentVolumes must match the node's."),
    ("PodTopologySpread", "Filter: topologySpreadConstraints with whenUnsatisfiable: DoNotSchedule must keep the skew within maxSkew. Score: prefers nodes that lower the skew (ScheduleAnyway constraints and the cluster's default constraints)."),
    ("InterPodAffinity", "Filter: the pod's required pod affinity and anti-affinity, and the required anti-affinity of pods already placed, must hold. Score: the weights of the preferred terms the node satisfies."),
    ("NodeResourcesBalancedAllocation", "Score: prefers nodes whose cpu and memory would be used in closer proportion after the pod (from 1.36: nodes whose balance the pod improves)."),
    ("NodeDeclaredFeatures", "Filter: (on from 1.36) a pod that needs a node feature (a RestartAllContainers restart rule; hostNetwork with hostUsers: false) goes only to nodes whose kubelet declares it in status.declaredFeatures."),
];

/// The glossary entry of `plugin`, when it has one.
pub fn entry(plugin: &str) -> Option<&'static str> {
    PLUGINS.iter().find(|(name, _)| *name == plugin).map(|(_, text)| *text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use placement_core::scheduler::profile::DEFAULT_PROFILE;

    /// The profile's own plugin lists, so that a plugin added there needs an entry here.
    #[test]
    fn every_plugin_of_the_scheduler_has_an_entry() {
        for f in DEFAULT_PROFILE.filters {
            assert!(entry(f.name()).is_some_and(|t| t.starts_with("Filter: ")), "{}", f.name());
        }
        for (s, _) in DEFAULT_PROFILE.scores {
            assert!(entry(s.name()).is_some_and(|t| t.contains("Score: ")), "{}", s.name());
        }
        assert_eq!(entry("NoSuchPlugin"), None);
    }
}
