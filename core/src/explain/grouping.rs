//! Grouping for the text and markdown reports at scale: a 300-node cluster gives every
//! workload 300 node rows, most of them alike, and a DaemonSet one pod per node. Rows that say
//! the same thing are given once, labelled by node pool where the nodes have one, with the
//! names of their members compactly (`-v` lists every one). JSON is never grouped: it is the
//! report itself.
//!
//! Grouping only merges rows whose words are the same: upstream's messages are printed
//! verbatim, never summarised.

use std::collections::BTreeMap;

use crate::cluster::pools::PoolLabel;
use crate::cluster::simulate::{NodeReport, NodeReports, PodReport};
use crate::explain::fixes::Fix;
use crate::model::Node;

/// Workloads with at most this many nodes (or pods) get a row for each, as before grouping
/// existed: in a small cluster every name is readable and the table stays short anyway.
pub const GROUP_ABOVE: usize = 10;

/// Groups of at most this many members are named in full; larger ones by first and last.
const NAMED_IN_FULL: usize = 3;

/// Pending pods are shown this many times (rows), then summarised.
const PENDING_SHOWN: usize = 3;
/// The input's running pods, and its finished, terminating and deleted ones, are shown this
/// many times each, then summarised: a snapshot's controllers can have hundreds.
const EXISTING_SHOWN: usize = 5;

/// How the text and markdown reports are laid out.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// Every node, pod and fix target on its own (`-v`), nothing grouped or summarised.
    pub verbose: bool,
    /// Each node's pool, to label groups of nodes; nodes without a pool are not in it.
    pub pools: BTreeMap<String, String>,
}

impl Options {
    /// The pools of `nodes` as `label` reads them (`--pool-label`, or the clouds' labels).
    pub fn with_pools<'n>(mut self, nodes: impl IntoIterator<Item = &'n Node>, label: &PoolLabel) -> Self {
        for node in nodes {
            if let Some(pool) = label.pool_of(node) {
                self.pools.insert(node.metadata.name.clone(), pool.to_string());
            }
        }
        self
    }

    fn pool_of(&self, node: &str) -> Option<&str> {
        self.pools.get(node).map(String::as_str)
    }
}

/// Nodes whose verdicts are the same but for the score, in one pool (or none).
pub(crate) struct NodeGroup<'r> {
    pub verdict: &'r NodeReport,
    pub pool: Option<&'r str>,
    pub members: Vec<&'r str>,
    /// The lowest and highest score of the members that have one.
    pub scores: Option<(i64, i64)>,
}

impl NodeGroup<'_> {
    /// The NODE cell: the node's name, or `pool general (150 nodes: a ... b)`; `of` is how
    /// many nodes the pool has in the table, said when the group is only part of it.
    pub fn label(&self, pool_sizes: &BTreeMap<&str, usize>, opts: &Options) -> String {
        let n = self.members.len();
        if n == 1 {
            return self.members.concat();
        }
        let names = names(&self.members, opts.verbose);
        match self.pool {
            Some(pool) => {
                let of = pool_sizes.get(pool).copied().unwrap_or(n);
                let count = if of > n { format!("{n} of {of} nodes") } else { format!("{n} nodes") };
                format!("pool {pool} ({count}: {names})")
            }
            None => format!("{n} nodes: {names}"),
        }
    }

    /// The REASON cell of a node that fits: its score, or the members' range.
    pub fn score_text(&self) -> String {
        match self.scores {
            Some((lo, hi)) if lo == hi => format!("score {lo}"),
            Some((lo, hi)) => format!("score {lo}-{hi}"),
            None => String::new(),
        }
    }
}

fn same_verdict(a: &NodeReport, b: &NodeReport) -> bool {
    a.fits == b.fits && a.plugin == b.plugin && a.reason == b.reason && a.detail == b.detail
}

/// `a, b, c`, or `a ... z` for more than [`NAMED_IN_FULL`] (every name with `verbose`).
pub(crate) fn names(members: &[&str], verbose: bool) -> String {
    match members {
        [first, .., last] if !verbose && members.len() > NAMED_IN_FULL => format!("{first} ... {last}"),
        _ => members.join(", "),
    }
}

/// Whether a table of `rows` rows is grouped.
pub(crate) fn grouped(rows: usize, opts: &Options) -> bool {
    !opts.verbose && rows > GROUP_ABOVE
}

/// The node table's groups in cluster order (of each group's first node): a group per node
/// when the table is small or `verbose`.
pub(crate) fn node_groups<'r>(nodes: &'r NodeReports, opts: &'r Options) -> Vec<NodeGroup<'r>> {
    let group = grouped(nodes.len(), opts);
    let mut groups: Vec<NodeGroup<'r>> = Vec::new();
    for (name, verdict) in nodes.iter() {
        let pool = opts.pool_of(name);
        let existing =
            if group { groups.iter_mut().find(|g| g.pool == pool && same_verdict(g.verdict, verdict)) } else { None };
        match existing {
            Some(g) => {
                g.members.push(name);
                if let Some(s) = verdict.score {
                    g.scores = Some(g.scores.map_or((s, s), |(lo, hi)| (lo.min(s), hi.max(s))));
                }
            }
            None => {
                groups.push(NodeGroup { verdict, pool, members: vec![name], scores: verdict.score.map(|s| (s, s)) })
            }
        }
    }
    groups
}

/// How many of the table's nodes each pool has.
pub(crate) fn pool_sizes<'r>(nodes: &'r NodeReports, opts: &'r Options) -> BTreeMap<&'r str, usize> {
    let mut sizes = BTreeMap::new();
    for (name, _) in nodes.iter() {
        if let Some(pool) = opts.pool_of(name) {
            *sizes.entry(pool).or_insert(0) += 1;
        }
    }
    sizes
}

/// The POD table's rows (POD, NODE, STATUS) and how many pods of each class were left out:
/// the input's running pods, its other pods (finished, terminating, deleted), pending pods.
/// Pods with the same status on the same node (or, in a large table, nodes of the same pool)
/// share a row; `verbose` lists every pod and leaves none out.
pub(crate) fn pod_rows(pods: &[PodReport], opts: &Options) -> (Vec<[String; 3]>, [usize; 3]) {
    struct Row<'p> {
        class: Option<usize>,
        members: Vec<&'p str>,
        nodes: Vec<&'p str>,
        node_key: Option<&'p str>,
        status: String,
    }
    let group = grouped(pods.len(), opts);
    let mut rows: Vec<Row> = Vec::new();
    for p in pods {
        // The classes the report summarises: the input's running pods, its other pods
        // (finished, terminating, deleted), pending pods; the simulation's placed pods are
        // all shown.
        let class = match (&p.snapshot, &p.node) {
            (Some(_), _) if !p.is_active() => Some(1),
            (Some(s), Some(_)) if !s.message_differs => Some(0),
            (_, None) => Some(2),
            _ => None,
        };
        let status = p.status_text();
        let node = p.node.as_deref();
        // Scheduled pods share a row by pool in a large table (a DaemonSet's pod per node).
        let node_key = node.map(|n| opts.pool_of(n).unwrap_or(""));
        let existing = if group {
            rows.iter_mut().find(|r| r.class == class && r.node_key == node_key && r.status == status)
        } else {
            None
        };
        match existing {
            Some(r) => {
                r.members.push(&p.name);
                if let Some(n) = node {
                    if !r.nodes.contains(&n) {
                        r.nodes.push(n);
                    }
                }
            }
            None => {
                rows.push(Row { class, members: vec![&p.name], nodes: node.into_iter().collect(), node_key, status })
            }
        }
    }
    let mut shown = [0usize; 3];
    let mut hidden = [0usize; 3];
    let mut out = Vec::new();
    for r in rows {
        if let Some(class) = r.class.filter(|_| !opts.verbose) {
            let limit = if class == 2 { PENDING_SHOWN } else { EXISTING_SHOWN };
            let (Some(count), Some(skipped)) = (shown.get_mut(class), hidden.get_mut(class)) else { continue };
            if *count >= limit {
                *skipped += r.members.len();
                continue;
            }
            *count += 1;
        }
        let pod = match r.members.as_slice() {
            [one] => one.to_string(),
            all => format!("{} pods: {}", all.len(), names(all, opts.verbose)),
        };
        let node = match (r.nodes.as_slice(), r.node_key) {
            ([], _) => "<none>".to_string(),
            ([one], _) => one.to_string(),
            (all, Some(pool)) if !pool.is_empty() => format!("pool {pool} ({} nodes)", all.len()),
            (all, _) => format!("{} nodes: {}", all.len(), names(all, opts.verbose)),
        };
        out.push([pod, node, r.status]);
    }
    (out, hidden)
}

/// The nodes a fix reaches, compactly: by pool, each named by first and last node.
pub(crate) fn reach(nodes: &[String], opts: &Options) -> String {
    if !grouped(nodes.len(), opts) {
        return nodes.join(", ");
    }
    let mut by_pool: Vec<(Option<&str>, Vec<&str>)> = Vec::new();
    for n in nodes {
        let pool = opts.pool_of(n);
        match by_pool.iter_mut().find(|(p, _)| *p == pool) {
            Some((_, members)) => members.push(n),
            None => by_pool.push((pool, vec![n])),
        }
    }
    by_pool
        .iter()
        .map(|(pool, members)| match pool {
            Some(p) => format!("pool {p} ({} nodes: {})", members.len(), names(members, false)),
            None => format!("{} nodes: {}", members.len(), names(members, false)),
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// A workload's fixes with the ones alike but for their nodes merged (a DaemonSet's
/// per-node request fixes are the same on every node of a pool): each with its nodes.
pub(crate) fn merge_fixes(fixes: &[Fix]) -> Vec<Fix> {
    let mut out: Vec<(serde_json::Value, Fix)> = Vec::new();
    for f in fixes {
        let key = key_without_nodes(f);
        match out.iter_mut().find(|(k, _)| *k == key) {
            Some((_, g)) => {
                for n in &f.nodes {
                    if !g.nodes.contains(n) {
                        g.nodes.push(n.clone());
                    }
                }
            }
            None => out.push((key, f.clone())),
        }
    }
    out.into_iter().map(|(_, f)| f).collect()
}

/// A fix's every field but `nodes`, through JSON so that a field added to [`Fix`] takes part
/// without this function knowing it.
fn key_without_nodes(f: &Fix) -> serde_json::Value {
    let mut v = fix_key(f);
    if let Some(o) = v.as_object_mut() {
        o.remove("nodes");
    }
    v
}

/// A fix as a comparable value: two workloads with the same key have the same fix.
pub(crate) fn fix_key(f: &Fix) -> serde_json::Value {
    serde_json::to_value(f).unwrap_or_default()
}
