//! The pods bound to a simulation's nodes, by namespace, as they stood at one moment.
//!
//! PodTopologySpread counts, for every node, the pods its selector matches in the incoming
//! pod's namespace. Each workload's first cycle counts them over the whole cluster: on a
//! snapshot of 100,000 running pods, a what-if drain re-creates the pods of some 250
//! ReplicaSets, and those 250 first counts walked all 100,000 pods each (a fifth of the run
//! in `memcmp`). Only pods of one namespace can match, so the index lists each namespace's
//! pods, and a first count walks those alone. The counts are the same; the index only
//! says where to look.
//!
//! It also keeps what those first cycles read of every node for a set of spreading
//! constraints ([`NodeFacts`]: topology domains, node inclusion), which is the same for every
//! workload with the same constraints and node affinity: tied to the same node slice, so
//! kept here.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::scheduler::framework::{NodeInfo, PlacedPod};
use crate::scheduler::plugins::pod_topology_spread::NodeFacts;

/// At most this many sets of [`NodeFacts`] are kept (each is a few bytes per node and
/// constraint); workloads beyond them compute their own.
const MAX_SPREAD_FACTS: usize = 64;

/// Below this many bound pods a walk over all of them is as cheap as building the index...
pub const MIN_PODS: usize = 2_000;

/// ...unless there are this many nodes: then the index is built (if nearly empty) for the
/// [`NodeFacts`] it keeps, which each workload with the system default spreading would
/// otherwise compute again (1,000 nodes' topology labels, per Deployment).
pub const MIN_NODES: usize = 100;

/// Where each namespace's pods were bound when the index was built: the first
/// `lens[node]` pods of each node (pods bound later are counted by the caller). A node a
/// pod was taken off since (preemption) moves its pods: the index then no longer covers the
/// nodes, and the caller walks them.
#[derive(Debug)]
pub struct PodIndex {
    /// The node slice it was built from (its address and length), so that an index is never
    /// read against another simulation's nodes.
    nodes: (usize, usize),
    lens: Vec<u32>,
    /// Each node's [`NodeInfo::removals`] then: a pod taken off since moves the others.
    removals: Vec<u32>,
    by_namespace: HashMap<String, Vec<(u32, u32)>>,
    spread_facts: Mutex<Vec<Arc<NodeFacts>>>,
}

impl PodIndex {
    /// The index of `nodes`' pods, or `None` when there are too few pods and nodes for it to
    /// pay.
    pub fn build(nodes: &[NodeInfo]) -> Option<Self> {
        let total: usize = nodes.iter().map(|n| n.pods().len()).sum();
        if (total < MIN_PODS && nodes.len() < MIN_NODES) || nodes.len() > u32::MAX as usize {
            return None;
        }
        let mut by_namespace: HashMap<String, Vec<(u32, u32)>> = HashMap::new();
        let mut lens = Vec::with_capacity(nodes.len());
        let mut removals = Vec::with_capacity(nodes.len());
        for (n, info) in nodes.iter().enumerate() {
            let pods = info.pods();
            let len = u32::try_from(pods.len()).ok()?;
            lens.push(len);
            removals.push(info.removals());
            for (p, pod) in pods.iter().enumerate() {
                let entry = match by_namespace.get_mut(&*pod.namespace) {
                    Some(entry) => entry,
                    None => by_namespace.entry(pod.namespace.to_string()).or_default(),
                };
                entry.push((n as u32, p as u32));
            }
        }
        Some(Self {
            nodes: (nodes.as_ptr() as usize, nodes.len()),
            lens,
            removals,
            by_namespace,
            spread_facts: Mutex::new(Vec::new()),
        })
    }

    /// Whether the index describes `nodes` (the same slice, no pod removed since).
    pub fn covers(&self, nodes: &[NodeInfo]) -> bool {
        self.nodes == (nodes.as_ptr() as usize, nodes.len())
            && self
                .lens
                .iter()
                .zip(&self.removals)
                .zip(nodes)
                .all(|((&len, &removed), info)| len as usize <= info.pods().len() && removed == info.removals())
    }

    /// How many of node `n`'s pods the index lists (in any namespace).
    pub fn indexed(&self, n: usize) -> usize {
        self.lens.get(n).map_or(0, |&l| l as usize)
    }

    /// The node facts a first spreading count needs: the kept ones that are `same`, else
    /// `build`'s (kept for the next workload while there is room).
    pub fn spread_facts(&self, same: impl Fn(&NodeFacts) -> bool, build: impl FnOnce() -> NodeFacts) -> Arc<NodeFacts> {
        // A panic elsewhere while the lock was held leaves the list as it was: still usable.
        let mut kept = self.spread_facts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(facts) = kept.iter().find(|f| same(f)) {
            return Arc::clone(facts);
        }
        let facts = Arc::new(build());
        if kept.len() < MAX_SPREAD_FACTS {
            kept.push(Arc::clone(&facts));
        }
        facts
    }

    /// The indexed pods of `namespace`, with their node indices, in node order.
    pub fn in_namespace<'n>(
        &'n self,
        nodes: &'n [NodeInfo],
        namespace: &str,
    ) -> impl Iterator<Item = (usize, &'n PlacedPod)> + 'n {
        self.by_namespace.get(namespace).into_iter().flatten().filter_map(move |&(n, p)| {
            let pod = nodes.get(n as usize)?.pods().get(p as usize)?;
            Some((n as usize, pod))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Labels, Node};

    fn node_with(pods: &[(&str, &str)]) -> NodeInfo {
        let mut info = NodeInfo::new(Node::default());
        for (ns, name) in pods {
            info.add_pod(PlacedPod {
                namespace: (*ns).into(),
                name: name.to_string(),
                labels: Labels::default().into(),
                required_affinity: Vec::new(),
                required_anti_affinity: Vec::new(),
                preferred_affinity: Vec::new(),
                preferred_anti_affinity: Vec::new(),
                volumes: Vec::new(),
                priority: 0,
                start_time: None,
                requests: None,
                host_ports: Vec::new(),
            });
        }
        info
    }

    /// Built for many pods, or for many nodes (whose spreading facts it keeps) even without
    /// a pod; not for a few nodes with a few pods.
    #[test]
    fn is_built_for_many_pods_or_many_nodes() {
        let few = vec![node_with(&[("a", "x")]); 3];
        assert!(PodIndex::build(&few).is_none());
        let many_nodes = vec![node_with(&[]); MIN_NODES];
        let index = PodIndex::build(&many_nodes).expect("many nodes");
        assert!(index.covers(&many_nodes));
        assert_eq!(index.in_namespace(&many_nodes, "a").count(), 0);
    }

    #[test]
    fn lists_each_namespaces_pods_and_only_covers_its_own_nodes() {
        let many: Vec<(String, String)> = (0..MIN_PODS).map(|i| ("bulk".into(), format!("p{i}"))).collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let mut nodes = vec![node_with(&[("a", "x"), ("b", "y")]), node_with(&many), node_with(&[("a", "z")])];
        let index = PodIndex::build(&nodes).expect("enough pods");
        let in_a: Vec<(usize, &str)> = index.in_namespace(&nodes, "a").map(|(n, p)| (n, p.name.as_str())).collect();
        assert_eq!(in_a, vec![(0, "x"), (2, "z")]);
        assert_eq!(index.in_namespace(&nodes, "none").count(), 0);
        assert!(index.covers(&nodes));
        // Pods bound later are not listed, and do not make the index wrong.
        nodes[0].add_pod(node_with(&[("a", "later")]).pods()[0].clone());
        assert!(index.covers(&nodes));
        assert_eq!(index.indexed(0), 2);
        assert_eq!(index.in_namespace(&nodes, "a").count(), 2);
        // Another slice (a copy) is not covered.
        let copy: Vec<NodeInfo> = nodes.to_vec();
        assert!(!index.covers(&copy));
        // Too few pods: no index.
        assert!(PodIndex::build(&nodes[..1]).is_none());
    }
}
