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
    /// Members that fit have details other than `verdict`'s (a snapshot's daemon pod on each).
    pub details_differ: bool,
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

    /// The detail of the group's verdict; for members that fit with details of their own
    /// (Placement's words, such as the input's daemon pod on each), the first and a pointer
    /// to `-v`.
    pub fn detail_text(&self) -> Option<String> {
        let detail = self.verdict.detail.as_deref()?;
        Some(if self.details_differ {
            format!("details differ by node, e.g. {detail}; -v lists each")
        } else {
            detail.to_string()
        })
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

/// Whether two verdicts share a group: the same verdict, or both fit with a detail each (or
/// neither). A node that fits has no reason, and its detail is Placement's note, not
/// upstream's words: in a snapshot each node's names its own daemon pod, and grouping only
/// by equal details would leave a DaemonSet a row per node.
fn same_group(a: &NodeReport, b: &NodeReport) -> bool {
    same_verdict(a, b) || (a.fits && b.fits && a.plugin == b.plugin && a.detail.is_some() == b.detail.is_some())
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
            if group { groups.iter_mut().find(|g| g.pool == pool && same_group(g.verdict, verdict)) } else { None };
        match existing {
            Some(g) => {
                g.members.push(name);
                g.details_differ |= g.verdict.detail != verdict.detail;
                if let Some(s) = verdict.score {
                    g.scores = Some(g.scores.map_or((s, s), |(lo, hi)| (lo.min(s), hi.max(s))));
                }
            }
            None => groups.push(NodeGroup {
                verdict,
                pool,
                members: vec![name],
                scores: verdict.score.map(|s| (s, s)),
                details_differ: false,
            }),
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
        .map(|(pool, members)| {
            let count = match members.len() {
                1 => "1 node".to_string(),
                n => format!("{n} nodes"),
            };
            match pool {
                Some(p) => format!("pool {p} ({count}: {})", names(members, false)),
                None => format!("{count}: {}", names(members, false)),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Stands for a fix's node in the text of fixes compared by [`merge_fixes`].
const NODE_PLACEHOLDER: &str = "\u{0}node\u{0}";

/// A workload's fixes with the ones alike but for their nodes merged: a DaemonSet gets a
/// request fix per node its pod does not fit, the same on every node of a pool but for the
/// node's name in its description ("request what NODE has free"). A merged fix's description
/// names its nodes as [`reach`] does, in place of the one node.
pub(crate) fn merge_fixes(fixes: &[Fix], opts: &Options) -> Vec<Fix> {
    // (key, the fix, its description with the node replaced when that is what differs)
    let mut out: Vec<(String, Fix, Option<String>)> = Vec::new();
    for f in fixes {
        let key = key_without_nodes(f);
        match out.iter_mut().find(|(k, _, _)| *k == key) {
            Some((_, g, template)) => {
                if g.description != f.description {
                    *template = Some(without_nodes(&g.description, &g.nodes));
                }
                for n in &f.nodes {
                    if !g.nodes.contains(n) {
                        g.nodes.push(n.clone());
                    }
                }
            }
            None => out.push((key, f.clone(), None)),
        }
    }
    out.into_iter()
        .map(|(_, mut f, template)| {
            if let Some(t) = template {
                f.description = t.replace(NODE_PLACEHOLDER, &reach(&f.nodes, opts));
            }
            f
        })
        .collect()
}

/// `text` with the names of `nodes` replaced by [`NODE_PLACEHOLDER`], longest first (a name
/// may begin another).
fn without_nodes(text: &str, nodes: &[String]) -> String {
    let mut names: Vec<&String> = nodes.iter().collect();
    names.sort_by_key(|n| std::cmp::Reverse(n.len()));
    names.iter().fold(text.to_string(), |t, n| t.replace(n.as_str(), NODE_PLACEHOLDER))
}

/// A fix's every field but `nodes`, its node names replaced in its description, through JSON
/// so that a field added to [`Fix`] takes part without this function knowing it.
fn key_without_nodes(f: &Fix) -> String {
    let mut v = serde_json::to_value(f).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.remove("nodes");
        o.insert("description".into(), without_nodes(&f.description, &f.nodes).into());
    }
    v.to_string()
}

/// A fix as a comparable value across workloads: every field but the nodes it reaches and
/// the command, which names the workload. Two workloads with the same key get the same patch
/// for the same reason; the report gives it once.
pub(crate) fn fix_key(f: &Fix) -> serde_json::Value {
    let mut v = serde_json::to_value(f).unwrap_or_default();
    if let Some(o) = v.as_object_mut() {
        o.remove("nodes");
        o.remove("command");
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::simulate::{simulate, Report, SimulateOptions};
    use crate::explain::render;
    use crate::input::documents::parse_manifests;
    use crate::model::version::KubeVersion;
    use crate::testing::bench_common::{lean_node_value, node_name};
    use serde_json::{json, Value};

    const NODES: usize = 300;

    fn container(name: &str, requests: Value, limits: Value) -> Value {
        json!([{"name": name, "image": "example.com/app:1", "resources": {"requests": requests, "limits": limits}}])
    }

    fn workload(kind: &str, ns: &str, name: &str, replicas: Option<i64>, spec: Value) -> Value {
        let mut w = json!({
            "apiVersion": "apps/v1",
            "kind": kind,
            "metadata": {"name": name, "namespace": ns},
            "spec": {
                "selector": {"matchLabels": {"app": name}},
                "template": {"metadata": {"labels": {"app": name}}, "spec": spec},
            },
        });
        if let Some(r) = replicas {
            w["spec"]["replicas"] = json!(r);
        }
        if kind == "StatefulSet" {
            w["spec"]["serviceName"] = json!(name);
        }
        w
    }

    /// The benchmarks' AKS cluster of 300 nodes in five pools (system 30, gpu 60 tainted
    /// `dedicated=gpu:NoSchedule`, spot 30 tainted, memory 30, general 150), a DaemonSet that
    /// fills the system pool, two DaemonSets blocked on the gpu pool's taint and Pending on
    /// the system pool, a web Deployment, a GPU Deployment of which 20
    /// replicas stay Pending, a StatefulSet pinned to one pool, and 73 objects that are not
    /// workloads.
    fn scale_input() -> String {
        let spot = json!([{"key": "kubernetes.azure.com/scalesetpriority", "operator": "Exists"}]);
        let mut items: Vec<Value> = (0..NODES).map(lean_node_value).collect();
        // Placed first, it leaves the system pool's nodes 40m of cpu: the DaemonSets after
        // it stay Pending there, each node with its own request fix.
        let big = json!({"containers": container("agent", json!({"cpu": "3700m"}), json!({}))});
        items.push(workload("DaemonSet", "monitoring", "big-agent", None, big));
        for name in ["node-exporter", "log-agent"] {
            let spec = json!({"tolerations": spot, "containers": container(name, json!({"cpu": "100m"}), json!({}))});
            items.push(workload("DaemonSet", "monitoring", name, None, spec));
        }
        let web = json!({"tolerations": spot, "containers": container("web", json!({"cpu": "250m", "memory": "512Mi"}), json!({}))});
        items.push(workload("Deployment", "shop", "web", Some(40), web));
        let gpu = json!({
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}],
            "containers": container("train", json!({"cpu": "1", "nvidia.com/gpu": "1"}), json!({"nvidia.com/gpu": "1"})),
        });
        items.push(workload("Deployment", "ml", "trainer", Some(80), gpu));
        let pg = json!({
            "nodeSelector": {"kubernetes.azure.com/agentpool": "memory"},
            "containers": container("pg", json!({"cpu": "2"}), json!({})),
        });
        items.push(workload("StatefulSet", "db", "pg", Some(3), pg));
        for (kind, n) in [("ConfigMap", 40), ("ClusterRole", 33)] {
            for i in 0..n {
                items.push(json!({"apiVersion": "v1", "kind": kind, "metadata": {"name": format!("{}-{i}", kind.to_lowercase()), "namespace": "monitoring"}}));
            }
        }
        json!({"apiVersion": "v1", "kind": "List", "items": items}).to_string()
    }

    fn scale_report() -> (Report, crate::input::documents::Manifests, Options) {
        let manifests = parse_manifests(&scale_input(), "scale.json").expect("the generated input parses");
        let report = simulate(&manifests, &SimulateOptions::for_version(KubeVersion::DEFAULT)).expect("simulates");
        let opts = Options::default().with_pools(manifests.nodes.iter().map(|(_, n)| &**n), &PoolLabel::Detect);
        (report, manifests, opts)
    }

    #[test]
    fn three_hundred_nodes_render_in_under_200_lines_without_losing_information() {
        let (report, manifests, opts) = scale_report();
        assert_eq!(opts.pools.len(), NODES, "every node has a pool label");
        let text = render::text_with(&report, &opts);
        let verbose = render::text_with(&report, &Options { verbose: true, ..opts.clone() });
        let lines = text.lines().count();
        assert!(lines < 200, "{lines} lines:\n{text}");
        assert!(verbose.lines().count() > 5 * NODES, "-v has a row per node and pod");
        let markdown = render::markdown_with(&report, &opts);
        // Markdown puts blank lines between blocks (a fix is ~15 lines): bounded, not to 200.
        assert!(markdown.lines().count() < 250, "{} markdown lines", markdown.lines().count());

        // The case itself: what the groups must carry.
        let ds = report.workloads.iter().find(|w| w.name == "node-exporter").expect("the DaemonSet");
        assert_eq!((ds.desired, ds.current, ds.pending), (240, 240, 30), "the gpu pool's 60 nodes are tainted");
        let system_fixes = ds.fixes.iter().filter(|f| f.plugin == "NodeResourcesFit").count();
        assert_eq!(system_fixes, 30, "a request fix per system node");
        let free = "request what pool system (30 nodes: aks-system-31415926-vmss000000 ... aks-system-31415926-vmss000122) has free";
        assert_eq!(text.matches(free).count(), 2, "once for the pool, for each DaemonSet's container:\n{text}");
        let trainer = report.workloads.iter().find(|w| w.name == "trainer").expect("the GPU Deployment");
        assert_eq!((trainer.scheduled, trainer.pending), (60, 20));

        for w in &report.workloads {
            // The groups partition the nodes, in order, each of one pool and one verdict,
            // and the report names each group: every node is listed or in a group whose
            // members -v lists.
            let groups = node_groups(&w.nodes, &opts);
            let sizes = pool_sizes(&w.nodes, &opts);
            let members: Vec<&str> = groups.iter().flat_map(|g| g.members.iter().copied()).collect();
            let mut all: Vec<&str> = w.nodes.iter().map(|(n, _)| n).collect();
            assert_eq!(members.len(), all.len(), "{}: every node in exactly one group", w.name);
            let mut sorted = members.clone();
            sorted.sort_unstable();
            all.sort_unstable();
            assert_eq!(sorted, all, "{}", w.name);
            // A pool's nodes that fit are scored or, past the search's stop
            // (percentageOfNodesToScore), not: two verdicts at most per pool here.
            assert!(groups.len() <= 10, "{}: {} groups", w.name, groups.len());
            for g in &groups {
                for m in &g.members {
                    let v = w.nodes.get(m).expect("a member is a node of the table");
                    assert!(same_group(v, g.verdict), "{}: {m} is grouped with another verdict", w.name);
                    assert!(v.fits || same_verdict(v, g.verdict), "{}: {m}: a reason is never merged", w.name);
                    assert_eq!(opts.pool_of(m), g.pool, "{}: {m} is grouped with another pool", w.name);
                }
                let label = g.label(&sizes, &opts);
                assert!(text.contains(&label), "{}: group {label:?} not in the report", w.name);
                if let [first, .., last] = g.members.as_slice() {
                    assert!(label.contains(first) && label.contains(last), "{label}");
                }
            }
            // Every distinct reason and detail, verbatim.
            for (name, v) in w.nodes.iter() {
                for words in [v.reason.as_deref(), v.detail.as_deref()].into_iter().flatten() {
                    assert!(text.contains(words), "{}: {name}'s {words:?} lost", w.name);
                }
                assert!(verbose.contains(name), "-v lists {name}");
            }
            // Every pod's status, and every pod by name with -v.
            for p in &w.pods {
                assert!(text.contains(&p.status_text()), "{}: {}'s status lost", w.name, p.name);
                assert!(verbose.contains(&format!("  {} ", p.name)), "-v lists {}", p.name);
            }
            // Every fix: its description and patch, given once and named elsewhere; fixes
            // alike but for their node once, naming their nodes.
            let merged = merge_fixes(&w.fixes, &opts);
            for f in &w.fixes {
                let covering = merged.iter().find(|m| {
                    m.plugin == f.plugin && m.patch == f.patch && f.nodes.iter().all(|n| m.nodes.contains(n))
                });
                let description = covering.map_or(&f.description, |m| &m.description);
                assert!(text.contains(description.as_str()), "{}: fix {:?} lost", w.name, f.description);
                if let Some(patch) = &f.patch {
                    let indented: String = patch.lines().map(|l| format!("    {l}\n")).collect();
                    assert!(text.contains(&indented), "{}: patch lost", w.name);
                }
                if let Some(cmd) = &f.command {
                    assert!(text.contains(cmd.as_str()), "{}: command {cmd} lost", w.name);
                }
            }
        }
        // The two DaemonSets' toleration fixes are the same: given in full once.
        assert!(text.contains("the same as Fix 1 of DaemonSet monitoring/node-exporter"), "{text}");
        assert!(text.contains("the same fix for: Fix 1 of DaemonSet monitoring/log-agent"), "{text}");
        assert_eq!(
            text.matches("tolerate dedicated=gpu:NoSchedule (the taints of pool gpu); DESIRED becomes 300 of 300")
                .count(),
            1,
            "{text}"
        );

        // The ignored objects: one line by kind, every one with -v.
        let diagnostics = render::diagnostics(&report, &manifests.ignored, false);
        assert_eq!(
            diagnostics,
            ["Warning: ignored 73 objects: 40 ConfigMap, 33 ClusterRole (not workloads Placement schedules; -v lists them)"]
        );
        assert_eq!(render::diagnostics(&report, &manifests.ignored, true).len(), 73);
        assert!(!text.contains("ConfigMap"), "warnings are not in the report");
    }

    #[test]
    fn draining_a_pool_of_the_300_nodes_stays_short() {
        use crate::cluster::what_if::{run_what_if, WhatIf};
        let manifests = parse_manifests(&scale_input(), "scale.json").expect("the generated input parses");
        let drain: WhatIf =
            "kubectl drain -l kubernetes.azure.com/agentpool=memory --ignore-daemonsets".parse().expect("a what-if");
        let opts = SimulateOptions::for_version(KubeVersion::DEFAULT);
        let run = run_what_if(&manifests, &[drain], &opts, &PoolLabel::Detect).expect("simulates");
        let layout = Options::default().with_pools(run.after.nodes.iter().map(|(_, n)| &**n), &PoolLabel::Detect);
        let text = render::text_with(&run.report, &layout);
        assert!(text.lines().count() < 250, "{} lines:\n{text}", text.lines().count());
        // kubectl's 60 lines for 30 nodes: the first 10, then how many more; -v has them all.
        assert!(text.contains("    ... and 50 more lines (-v lists them)\n"), "{text}");
        let verbose = render::text_with(&run.report, &Options { verbose: true, ..layout });
        for (_, n) in manifests.nodes.iter().filter(|(_, n)| n.metadata.name.starts_with("aks-memory")) {
            assert!(verbose.contains(&format!("node/{} drained", n.metadata.name)), "{}", n.metadata.name);
        }
    }

    #[test]
    fn a_group_is_labelled_by_pool_with_first_and_last_member() {
        let nodes: NodeReports = (0..12)
            .map(|i| {
                let verdict = NodeReport {
                    fits: true,
                    plugin: None,
                    reason: None,
                    detail: None,
                    score: Some(40 + i),
                    code: None,
                };
                (node_name(i as usize * 10 + 5), verdict)
            })
            .collect();
        let mut opts = Options::default();
        for (name, _) in nodes.iter().take(10) {
            opts.pools.insert(name.to_string(), "general".into());
        }
        let groups = node_groups(&nodes, &opts);
        let sizes = pool_sizes(&nodes, &opts);
        let labels: Vec<String> = groups.iter().map(|g| g.label(&sizes, &opts)).collect();
        assert_eq!(
            labels,
            [
                format!("pool general (10 nodes: {} ... {})", node_name(5), node_name(95)),
                format!("2 nodes: {}, {}", node_name(105), node_name(115)),
            ]
        );
        assert_eq!(groups.iter().map(NodeGroup::score_text).collect::<Vec<_>>(), ["score 40-49", "score 50-51"]);
        // Small tables and -v: a row per node.
        assert_eq!(node_groups(&nodes, &Options { verbose: true, ..opts.clone() }).len(), 12);
        let small: NodeReports = nodes.iter().take(GROUP_ABOVE).map(|(n, r)| (n.to_string(), r.clone())).collect();
        assert_eq!(node_groups(&small, &opts).len(), GROUP_ABOVE);
    }

    #[test]
    fn nodes_that_fit_with_details_of_their_own_share_a_group_that_says_so() {
        // A snapshot's DaemonSet: each node runs the input's own daemon pod, named in the detail.
        let verdict = |detail: Option<String>| NodeReport {
            fits: true,
            plugin: None,
            reason: None,
            detail: detail.map(Into::into),
            score: None,
            code: None,
        };
        let nodes: NodeReports = (0..12)
            .map(|i| (format!("n{i:02}"), verdict(Some(format!("daemon pod agent-{i:02} of the input runs here")))))
            .chain([("n12".to_string(), verdict(None))])
            .collect();
        let opts = Options::default();
        let groups = node_groups(&nodes, &opts);
        let summary: Vec<(usize, Option<String>)> = groups.iter().map(|g| (g.members.len(), g.detail_text())).collect();
        assert_eq!(
            summary,
            [
                (
                    12,
                    Some(
                        "details differ by node, e.g. daemon pod agent-00 of the input runs here; -v lists each".into()
                    )
                ),
                (1, None)
            ]
        );
    }

    #[test]
    fn names_are_listed_in_full_up_to_three() {
        assert_eq!(names(&["a", "b", "c"], false), "a, b, c");
        assert_eq!(names(&["a", "b", "c", "d"], false), "a ... d");
        assert_eq!(names(&["a", "b", "c", "d"], true), "a, b, c, d");
    }

    #[test]
    fn fixes_alike_but_for_their_node_are_merged() {
        let fix = |node: &str, description: &str| Fix {
            plugin: "NodeResourcesFit",
            nodes: vec![node.to_string()],
            description: description.replace("NODE", node),
            patch: Some("spec: {}\n".into()),
            command: None,
            warning: None,
            verified: true,
            kind: crate::explain::fixes::FixKind::Requests,
            scope: None,
            pool: None,
            still_blocked: None,
            targets: Vec::new(),
            remedy: crate::explain::fixes::Remedy::Patch,
        };
        let free = "request what NODE has free: cpu 100m -> 40m";
        let mut fixes: Vec<Fix> = (0..12).map(|i| fix(&format!("aks-system-{i}"), free)).collect();
        fixes.push(fix("aks-system-1", "lower memory on NODE"));
        fixes.push(fix("aks-system-0", free));
        let mut opts = Options::default();
        for i in 0..12 {
            opts.pools.insert(format!("aks-system-{i}"), "system".into());
        }
        let merged = merge_fixes(&fixes, &opts);
        let summary: Vec<(&str, usize)> = merged.iter().map(|f| (f.description.as_str(), f.nodes.len())).collect();
        assert_eq!(
            summary,
            [
                ("request what pool system (12 nodes: aks-system-0 ... aks-system-11) has free: cpu 100m -> 40m", 12),
                ("lower memory on aks-system-1", 1)
            ]
        );
        // The same fix for one node twice is one fix, its words unchanged.
        let twice = merge_fixes(&[fix("n1", free), fix("n1", free)], &opts);
        assert_eq!(twice.len(), 1);
        assert_eq!(twice.first().map(|f| f.description.as_str()), Some("request what n1 has free: cpu 100m -> 40m"));
    }
}
