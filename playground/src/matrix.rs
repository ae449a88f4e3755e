//! Which node columns the placement matrix shows, and in what order: the nodes grouped by
//! pool (the pool label detected from common cloud labels, or chosen in the Pools tab),
//! filtered by name, label or verdict, and nodes that every workload judges alike collapsed
//! into one column.

use std::fmt;
use std::str::FromStr;

use crate::evaluation::{Cell, CellState, Evaluation};

/// foldhash rather than SipHash: grouping 1,000 nodes' columns hashes every cell of each, and
/// the keys come from the page's own evaluation (no flooding to defend against).
type HashMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::FixedState>;

/// Which nodes the verdict filter keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum VerdictFilter {
    #[default]
    All,
    /// Nodes that block at least one workload.
    Blocked,
    /// Nodes every judged workload fits on.
    Fits,
}

impl VerdictFilter {
    pub const ALL: [VerdictFilter; 3] = [VerdictFilter::All, VerdictFilter::Blocked, VerdictFilter::Fits];

    /// The choice's words in the page.
    pub fn label(self) -> &'static str {
        match self {
            VerdictFilter::All => "all nodes",
            VerdictFilter::Blocked => "nodes that block a workload",
            VerdictFilter::Fits => "nodes every workload fits",
        }
    }

    fn keeps(self, cells: &[&Cell]) -> bool {
        match self {
            VerdictFilter::All => true,
            VerdictFilter::Blocked => cells.iter().any(|c| c.state == CellState::Blocked),
            VerdictFilter::Fits => cells.iter().all(|c| c.state != CellState::Blocked),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown verdict filter {0:?}: all, blocked or fits")]
pub struct UnknownVerdictFilter(String);

impl FromStr for VerdictFilter {
    type Err = UnknownVerdictFilter;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "all" => Ok(VerdictFilter::All),
            "blocked" => Ok(VerdictFilter::Blocked),
            "fits" => Ok(VerdictFilter::Fits),
            other => Err(UnknownVerdictFilter(other.to_string())),
        }
    }
}

impl fmt::Display for VerdictFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            VerdictFilter::All => "all",
            VerdictFilter::Blocked => "blocked",
            VerdictFilter::Fits => "fits",
        })
    }
}

/// The matrix's filter and grouping, as the user set them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatrixFilter {
    /// Kept: nodes whose name, or one of whose `key=value` labels, contains this text
    /// (ignoring case).
    pub text: String,
    pub verdict: VerdictFilter,
    /// One column for nodes of one pool that every workload judges alike.
    pub collapse: bool,
}

impl Default for MatrixFilter {
    fn default() -> Self {
        MatrixFilter { text: String::new(), verdict: VerdictFilter::All, collapse: true }
    }
}

/// One column of the matrix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Column {
    /// Index into the evaluation's nodes (and every workload's cells) of the node shown.
    pub node: usize,
    pub pool: String,
    /// The other nodes this column stands for (collapsed: every workload judges them as it
    /// judges `node`).
    pub alike: Vec<String>,
}

/// A run of adjacent columns of one pool, for the header row above the node names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolSpan {
    pub pool: String,
    pub columns: usize,
}

/// The columns `filter` keeps, grouped by pool in the pools' order (nodes in input order
/// within a pool).
pub fn columns(eval: &Evaluation, filter: &MatrixFilter) -> Vec<Column> {
    let pool_of: HashMap<&str, &str> =
        eval.pools.iter().flat_map(|p| p.nodes.iter().map(move |n| (n.name.as_str(), p.name.as_str()))).collect();
    let pool_rank: HashMap<&str, usize> = eval.pools.iter().enumerate().map(|(i, p)| (p.name.as_str(), i)).collect();
    let needle = filter.text.trim().to_lowercase();
    let mut kept: Vec<(usize, usize, &str)> = Vec::new();
    for (i, node) in eval.nodes.iter().enumerate() {
        let cells: Vec<&Cell> = eval.workloads.iter().filter_map(|w| w.cells.get(i)).collect();
        let matches = needle.is_empty()
            || node.name.to_lowercase().contains(&needle)
            || node.labels.iter().any(|l| l.to_lowercase().contains(&needle));
        if matches && filter.verdict.keeps(&cells) {
            let pool = pool_of.get(node.name.as_str()).copied().unwrap_or("");
            kept.push((pool_rank.get(pool).copied().unwrap_or(usize::MAX), i, pool));
        }
    }
    kept.sort_by_key(|&(rank, i, _)| (rank, i));
    let mut out: Vec<Column> = Vec::new();
    // Within a pool, the first node of each kind of column, by its look.
    let mut seen: HashMap<(&str, Vec<Look<'_>>), usize> = HashMap::default();
    for (_, i, pool) in kept {
        if filter.collapse {
            let look = (pool, look(eval, i));
            if let Some(&at) = seen.get(&look) {
                out[at].alike.push(eval.nodes[i].name.clone());
                continue;
            }
            seen.insert(look, out.len());
        }
        out.push(Column { node: i, pool: pool.to_string(), alike: Vec::new() });
    }
    out
}

/// What a column shows of one workload's cell, and what its header shows: nodes that look
/// alike in every row can share a column. Borrowed from the evaluation, not copied.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
enum Look<'a> {
    Cell {
        state: CellState,
        plugin: Option<&'a str>,
        reason: Option<&'a str>,
        pods: usize,
        cannot_mount: bool,
        fixes: &'a [usize],
    },
    Node {
        taints: &'a [String],
        cordoned: bool,
    },
}

fn look(eval: &Evaluation, i: usize) -> Vec<Look<'_>> {
    let node = &eval.nodes[i];
    let mut out = Vec::with_capacity(1 + eval.workloads.len());
    out.push(Look::Node { taints: &node.taints, cordoned: node.cordoned });
    out.extend(eval.workloads.iter().filter_map(|w| w.cells.get(i)).map(|c| Look::Cell {
        state: c.state,
        plugin: c.plugin,
        reason: c.reason.as_deref(),
        pods: c.pods.len(),
        cannot_mount: !c.cannot_mount.is_empty(),
        fixes: &c.fixes,
    }));
    out
}

/// The pool header row of `columns`: adjacent columns of one pool share a cell.
pub fn pool_spans(columns: &[Column]) -> Vec<PoolSpan> {
    let mut spans: Vec<PoolSpan> = Vec::new();
    for c in columns {
        match spans.last_mut() {
            Some(s) if s.pool == c.pool => s.columns += 1,
            _ => spans.push(PoolSpan { pool: c.pool.clone(), columns: 1 }),
        }
    }
    spans
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::evaluation::synthetic;

    fn names(eval: &Evaluation, columns: &[Column]) -> Vec<String> {
        columns
            .iter()
            .map(|c| {
                format!(
                    "{}{}",
                    eval.nodes[c.node].name,
                    if c.alike.is_empty() { String::new() } else { format!("+{}", c.alike.len()) }
                )
            })
            .collect()
    }

    #[test]
    fn verdict_filters_read_and_print_alike() {
        for v in VerdictFilter::ALL {
            assert_eq!(v.to_string().parse::<VerdictFilter>(), Ok(v));
        }
        assert_eq!(
            "nope".parse::<VerdictFilter>().unwrap_err().to_string(),
            "unknown verdict filter \"nope\": all, blocked or fits"
        );
    }

    #[test]
    fn columns_are_grouped_by_pool_filtered_and_collapsed() {
        // Eight nodes in pools p0..p3 (node-003 and node-007 tainted, in p3); three workloads
        // without a toleration.
        let mut state = synthetic(8, 3);
        state.pool_label = "pool".into(); // chosen: not one of the cloud labels detected
        let mut cache = crate::evaluation::ParseCache::default();
        let eval = Evaluation::unverified_cached(&state, &mut cache);
        let all = |text: &str, verdict, collapse| MatrixFilter { text: text.into(), verdict, collapse };
        // (filter, columns, why)
        let rows: Vec<(MatrixFilter, Vec<&str>, &str)> = vec![
            (
                all("", VerdictFilter::All, false),
                vec!["node-000", "node-004", "node-001", "node-005", "node-002", "node-006", "node-003", "node-007"],
                "by pool, in input order within a pool",
            ),
            (
                all("node-00", VerdictFilter::All, false),
                vec!["node-000", "node-004", "node-001", "node-005", "node-002", "node-006", "node-003", "node-007"],
                "a name",
            ),
            (all("NODE-005", VerdictFilter::All, false), vec!["node-005"], "a name, any case"),
            (all("pool=p3", VerdictFilter::All, false), vec!["node-003", "node-007"], "a label"),
            (all("zone-2", VerdictFilter::All, false), vec!["node-005", "node-002"], "a label's value"),
            (
                all("", VerdictFilter::Blocked, false),
                vec!["node-003", "node-007"],
                "the tainted pool blocks the DaemonSet",
            ),
            (
                all("", VerdictFilter::Fits, false),
                vec!["node-000", "node-004", "node-001", "node-005", "node-002", "node-006"],
                "the others",
            ),
            (all("nothing", VerdictFilter::All, false), vec![], "nothing matches"),
        ];
        for (filter, want, why) in rows {
            assert_eq!(names(&eval, &columns(&eval, &filter)), want, "{why}");
        }
        let spans = pool_spans(&columns(&eval, &all("", VerdictFilter::All, false)));
        assert_eq!(
            spans.iter().map(|s| (s.pool.as_str(), s.columns)).collect::<Vec<_>>(),
            [("p0", 2), ("p1", 2), ("p2", 2), ("p3", 2)]
        );
        // Collapsed: one column per pool and look, never across pools.
        let collapsed = columns(&eval, &MatrixFilter::default());
        assert!(collapsed.len() < 8, "{:?}", names(&eval, &collapsed));
        let pools: Vec<&str> = collapsed.iter().map(|c| c.pool.as_str()).collect();
        assert!(["p0", "p1", "p2", "p3"].iter().all(|p| pools.contains(p)), "{pools:?}");
        assert_eq!(collapsed.iter().map(|c| 1 + c.alike.len()).sum::<usize>(), 8, "every node in one column");
        for c in &collapsed {
            for other in &c.alike {
                let j = eval.nodes.iter().position(|n| &n.name == other).unwrap();
                assert_eq!(look(&eval, c.node), look(&eval, j), "{other} looks like its column");
            }
        }
    }
}
