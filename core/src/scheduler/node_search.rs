//! Which nodes a scheduling cycle searches (`percentageOfNodesToScore`).
//!
//! In a cluster of 100 nodes or more, kube-scheduler stops filtering once it has found
//! `numFeasibleNodesToFind` feasible nodes, and scores only those. Each cycle starts where the
//! previous one stopped (`nextStartNodeIndex`, advanced by the nodes it processed: the
//! feasible ones found and the ones that failed a filter), over the scheduler snapshot's node
//! list, which is the node tree's: zones taken in turn, one node of each, in the order the
//! zones and their nodes were added (`nodeTree.list`). Below 100 nodes every node is
//! processed, so nothing here changes a small cluster's decisions.
//!
//! Upstream filters nodes in parallel (16 goroutines), so which feasible nodes end up in the
//! list when it stops is not exactly the first ones in order; this follows the order
//! sequentially, the deterministic reading of the same rule.

use crate::model::Node;
use crate::scheduler::framework::NodeInfo;

/// `minFeasibleNodesToFind`: below this many nodes, every node is searched.
pub const MIN_FEASIBLE_NODES_TO_FIND: usize = 100;
/// `minFeasibleNodesPercentageToFind`: the adaptive percentage's floor.
pub const MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: i64 = 5;

/// `numFeasibleNodesToFind`: how many feasible nodes a cycle over `num_all_nodes` nodes looks
/// for before it stops; `percentage` is `percentageOfNodesToScore` (0: adaptive, the default,
/// `50 - nodes/125` percent, at least 5%).
///
/// ```
/// use placement_core::scheduler::node_search::num_feasible_nodes_to_find;
/// assert_eq!(num_feasible_nodes_to_find(0, 5_000), 500);
/// assert_eq!(num_feasible_nodes_to_find(0, 60), 60);
/// ```
pub fn num_feasible_nodes_to_find(percentage: i32, num_all_nodes: usize) -> usize {
    if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND {
        return num_all_nodes;
    }
    // Upstream computes in int32; node counts here are far below its range.
    let all = num_all_nodes as i64;
    let mut percentage = i64::from(percentage);
    if percentage == 0 {
        percentage = (50 - all / 125).max(MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND);
    }
    let num = all * percentage / 100;
    if num < MIN_FEASIBLE_NODES_TO_FIND as i64 {
        return MIN_FEASIBLE_NODES_TO_FIND;
    }
    usize::try_from(num).unwrap_or(num_all_nodes)
}

/// The search state a simulation carries from one cycle to the next.
#[derive(Debug, Clone)]
pub struct NodeSearch {
    /// `percentageOfNodesToScore` (0: adaptive).
    pub percentage: i32,
    /// The node tree's order: indices into the cluster's nodes.
    order: Vec<usize>,
    /// `nextStartNodeIndex`, a position in `order` (or in a PreFilter result's node list).
    next_start: usize,
}

impl NodeSearch {
    /// The search over `nodes` as a fresh scheduler would start it.
    pub fn new(nodes: &[NodeInfo], percentage: i32) -> Self {
        Self { percentage, order: node_tree_order(nodes.iter().map(NodeInfo::node)), next_start: 0 }
    }

    /// The order a cycle visits its nodes in, and how many feasible nodes it wants: over all
    /// nodes (the node tree's order), or over a PreFilter result's `candidates` (in cluster
    /// order), which upstream indexes with the same `nextStartNodeIndex`.
    pub(crate) fn plan<'a>(&'a self, candidates: Option<&'a [usize]>) -> (impl Iterator<Item = usize> + 'a, usize) {
        let list = candidates.unwrap_or(&self.order);
        let start = self.next_start.checked_rem(list.len()).unwrap_or(0);
        let rotated = list.iter().skip(start).chain(list.iter().take(start)).copied();
        (rotated, num_feasible_nodes_to_find(self.percentage, list.len()))
    }

    /// After a cycle that processed `processed` nodes: `nextStartNodeIndex = (next +
    /// processed) % len(allNodes)`.
    pub(crate) fn advance(&mut self, processed: usize) {
        let n = self.order.len();
        if n > 0 {
            self.next_start = (self.next_start + processed) % n;
        }
    }
}

/// `GetZoneKey`: region and zone from the topology labels (or their deprecated beta forms),
/// as a pair rather than upstream's `region + ":\x00:" + zone` string (the same grouping:
/// label values hold no NUL), borrowed from the node: 1,000 nodes' keys are read for every
/// simulation.
fn zone_key(node: &Node) -> (&str, &str) {
    let label = |key: &str, beta: &str| {
        let labels = &node.metadata.labels;
        labels.get(key).or_else(|| labels.get(beta)).map_or("", String::as_str)
    };
    let zone = label("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone");
    let region = label("topology.kubernetes.io/region", "failure-domain.beta.kubernetes.io/region");
    (region, zone)
}

/// `nodeTree.list()`: one node of each zone in turn (zones in the order their first node
/// came), until every zone is exhausted.
fn node_tree_order<'n>(nodes: impl Iterator<Item = &'n Node>) -> Vec<usize> {
    let mut zones: Vec<((&str, &str), Vec<usize>)> = Vec::new();
    for (i, node) in nodes.enumerate() {
        let key = zone_key(node);
        match zones.iter_mut().find(|(k, _)| *k == key) {
            Some((_, members)) => members.push(i),
            None => zones.push((key, vec![i])),
        }
    }
    let total = zones.iter().map(|(_, m)| m.len()).sum();
    let mut order = Vec::with_capacity(total);
    for k in 0.. {
        if order.len() >= total {
            break;
        }
        order.extend(zones.iter().filter_map(|(_, members)| members.get(k)));
    }
    order
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ObjectMeta;

    /// Upstream's `TestNumFeasibleNodesToFind` (pkg/scheduler/schedule_one_test.go), with the
    /// profile's percentage unset.
    #[test]
    fn num_feasible_nodes_to_find_as_upstream() {
        let cases = [
            ("not set percentageOfNodesToScore and nodes number not more than 50", 0, 10, 10),
            ("set percentageOfNodesToScore and nodes number not more than 50", 40, 10, 10),
            ("not set percentageOfNodesToScore and nodes number more than 50", 0, 1000, 420),
            ("set percentageOfNodesToScore and nodes number more than 50", 40, 1000, 400),
            ("not set percentageOfNodesToScore and nodes number more than 50*125", 0, 6000, 300),
            ("set percentageOfNodesToScore and nodes number more than 50*125", 40, 6000, 2400),
        ];
        for (name, percentage, nodes, want) in cases {
            assert_eq!(num_feasible_nodes_to_find(percentage, nodes), want, "{name}");
        }
        // The floors: 100 nodes at least, 5% at least.
        assert_eq!(num_feasible_nodes_to_find(1, 500), 100);
        assert_eq!(num_feasible_nodes_to_find(0, 20_000), 1_000);
        assert_eq!(num_feasible_nodes_to_find(100, 500), 500);
    }

    fn node(name: &str, zone: Option<&str>) -> Node {
        let mut metadata = ObjectMeta { name: name.into(), ..Default::default() };
        if let Some(z) = zone {
            metadata.labels.insert("topology.kubernetes.io/zone".into(), z.into());
            metadata.labels.insert("topology.kubernetes.io/region".into(), "r".into());
        }
        Node { metadata, ..Default::default() }
    }

    /// Upstream's `TestNodeTree_List` shape: zones in turn, in the order they appeared.
    #[test]
    fn the_node_tree_interleaves_zones() {
        let nodes = [
            node("a1", Some("a")),
            node("a2", Some("a")),
            node("a3", Some("a")),
            node("b1", Some("b")),
            node("none", None),
            node("c1", Some("c")),
            node("b2", Some("b")),
        ];
        let order = node_tree_order(nodes.iter());
        let names: Vec<&str> = order.iter().map(|&i| nodes[i].metadata.name.as_str()).collect();
        assert_eq!(names, ["a1", "b1", "none", "c1", "a2", "b2", "a3"]);
    }

    #[test]
    fn the_search_starts_where_the_last_one_stopped() {
        let nodes: Vec<NodeInfo> = (0..4).map(|i| NodeInfo::new(node(&format!("n{i}"), None))).collect();
        let mut search = NodeSearch::new(&nodes, 0);
        search.advance(3);
        let order = |search: &NodeSearch, candidates: Option<&[usize]>| search.plan(candidates).0.collect::<Vec<_>>();
        assert_eq!(order(&search, None), [3, 0, 1, 2]);
        assert_eq!(search.plan(None).1, 4);
        search.advance(2);
        assert_eq!(order(&search, None), [1, 2, 3, 0]);
        // A PreFilter result's nodes are indexed with the same start.
        assert_eq!(order(&search, Some(&[2])), [2]);
        assert_eq!(order(&search, Some(&[0, 2, 3])), [2, 3, 0]);
    }
}
