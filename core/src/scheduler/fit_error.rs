//! The FailedScheduling message (`framework.FitError.Error`):
//! `0/N nodes are available: <histogram>.` with upstream's byte-wise sorting.

use std::collections::BTreeMap;

/// What the scheduler knew when no node fitted.
#[derive(Debug, Clone, Default)]
pub struct FitError {
    pub num_all_nodes: usize,
    /// The reasons of each node's single failing status, for nodes that were filtered.
    pub node_reasons: Vec<Vec<String>>,
    /// Reasons for nodes a PreFilterResult removed (`AbsentNodesStatus`).
    pub absent_nodes_reasons: Vec<String>,
    pub pre_filter_msg: String,
    pub post_filter_msg: String,
}

impl FitError {
    pub fn message(&self) -> String {
        let mut histogram: BTreeMap<&str, usize> = BTreeMap::new();
        if self.pre_filter_msg.is_empty() {
            for reasons in &self.node_reasons {
                for r in reasons {
                    *histogram.entry(r).or_default() += 1;
                }
            }
            let absent = self.num_all_nodes.saturating_sub(self.node_reasons.len());
            if absent > 0 {
                for r in &self.absent_nodes_reasons {
                    *histogram.entry(r).or_default() += absent;
                }
            }
        }
        format_message(self.num_all_nodes, &self.pre_filter_msg, &histogram, &self.post_filter_msg)
    }
}

/// `FitError.Error` from a ready histogram (reason -> number of nodes). The scheduler counts
/// reasons as it filters, so it need not copy every failing node's reasons into a
/// [`FitError`] first; both paths end here and so print the same bytes.
pub fn format_message(
    num_all_nodes: usize,
    pre_filter_msg: &str,
    histogram: &BTreeMap<&str, usize>,
    post_filter_msg: &str,
) -> String {
    let mut msg = format!("0/{num_all_nodes} nodes are available:");
    if !pre_filter_msg.is_empty() {
        // A PreFilter rejection applies to every node; listing them would repeat it.
        msg.push_str(&format!(" {pre_filter_msg}."));
    } else {
        // `sort.Strings` over "count reason": byte-wise, so "10 x" sorts before "2 y".
        let mut entries: Vec<String> = histogram.iter().map(|(r, n)| format!("{n} {r}")).collect();
        entries.sort();
        if !entries.is_empty() {
            msg.push_str(&format!(" {}.", entries.join(", ")));
        }
    }
    if !post_filter_msg.is_empty() {
        msg.push(' ');
        msg.push_str(post_filter_msg);
    }
    msg
}

/// `AbsentNodesStatus` reason for nodes removed by PreFilter results: a single plugin, or the
/// sorted list when several restricted the nodes.
pub fn absent_nodes_reason(plugins: &[&str]) -> String {
    let mut sorted = plugins.to_vec();
    sorted.sort();
    format!("node(s) didn't satisfy plugin(s) [{}]", sorted.join(" "))
}

/// The PreFilter status when the intersection of PreFilter results is empty.
pub fn empty_intersection_reason(plugins: &[&str]) -> String {
    let mut sorted = plugins.to_vec();
    sorted.sort();
    if let [one] = sorted.as_slice() {
        format!("node(s) didn't satisfy plugin {one}")
    } else {
        format!("node(s) didn't satisfy plugin(s) [{}] simultaneously", sorted.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sorts_bytewise() {
        let e = FitError {
            num_all_nodes: 12,
            node_reasons: (0..12)
                .map(|i| vec![if i < 10 { "node(s) x".to_string() } else { "Insufficient cpu".to_string() }])
                .collect(),
            ..Default::default()
        };
        assert_eq!(e.message(), "0/12 nodes are available: 10 node(s) x, 2 Insufficient cpu.");
    }

    #[test]
    fn absent_nodes_are_counted() {
        let e = FitError {
            num_all_nodes: 3,
            node_reasons: vec![vec!["Insufficient cpu".into()]],
            absent_nodes_reasons: vec![absent_nodes_reason(&["NodeAffinity"])],
            ..Default::default()
        };
        assert_eq!(
            e.message(),
            "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]."
        );
    }
}
