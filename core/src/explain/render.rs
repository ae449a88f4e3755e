//! Human renderings of a [`Report`]: terminal text that reads like `kubectl`, and Markdown
//! for generated docs. JSON is the report itself (`serde_json`).

use std::fmt::Write;

use crate::cluster::changes::Changes;
use crate::cluster::simulate::{NodeReports, PodReport, Report};
use crate::explain::fixes::Fix;
use crate::explain::grouping;
pub use crate::explain::grouping::Options;
use crate::input::documents::DocRef;

/// The text report, grouped as [`Options::default`] groups (no pools known).
pub fn text(report: &Report) -> String {
    text_with(report, &Options::default())
}

/// The text report. Warnings are not part of it: they are diagnostics ([`diagnostics`]), for
/// standard error as kubectl writes them.
pub fn text_with(report: &Report, opts: &Options) -> String {
    let mut out = String::new();
    let fixes = Fixes::of(report, opts);
    if let Some(note) = &report.kube_version_note {
        let _ = writeln!(out, "{note}\n");
    }
    if let Some(changes) = &report.changes {
        changes_text(&mut out, changes, opts);
        out.push_str("\nAFTER THE CHANGES\n\n");
    }
    for i in 0..report.workloads.len() {
        if i > 0 {
            out.push('\n');
        }
        workload_text(&mut out, report, i, &fixes, opts);
    }
    if !report.evictions.is_empty() {
        out.push_str("\nEVICTIONS (NoExecute taints)\n");
        let rows: Vec<[String; 4]> = report
            .evictions
            .iter()
            .map(|e| {
                let when = e.after_seconds.map(|s| format!("after {s}s")).unwrap_or_else(|| "now".into());
                [format!("{}/{}", e.namespace, e.pod), e.node.clone(), e.taint.clone(), when]
            })
            .collect();
        table(&mut out, ["POD", "NODE", "TAINT", "WHEN"], &rows, "  ");
    }
    out
}

fn workload_text(out: &mut String, report: &Report, index: usize, fixes: &Fixes, opts: &Options) {
    let Some(w) = report.workloads.get(index) else { return };
    let _ = writeln!(
        out,
        "{} {}/{}: DESIRED {}  CURRENT {}  SCHEDULED {}  PENDING {}{}",
        w.kind,
        w.namespace,
        w.name,
        w.desired,
        w.current,
        w.scheduled,
        w.pending,
        if w.not_in_input { "  (controller not in the input: its pods, by ownerReferences)" } else { "" }
    );
    if !w.nodes.is_empty() {
        nodes_text(out, &w.nodes, opts);
    }
    pods_text(out, &w.pods, opts);
    own_nodes_text(out, &w.pods, opts);
    for (i, f) in fixes.of_workload(index).iter().enumerate() {
        let reach =
            if f.nodes.is_empty() { String::new() } else { format!(", reaches {}", grouping::reach(&f.nodes, opts)) };
        let verified = if f.verified { ", verified" } else { "" };
        // A fix another workload shows in full is named, not repeated.
        if let Some(first) = fixes.given_before(report, index, i) {
            let _ = writeln!(out, "  Fix {} ({}{reach}{verified}): the same as {first}", i + 1, f.plugin);
            if let Some(cmd) = &f.command {
                let _ = writeln!(out, "    apply: {cmd}");
            }
            continue;
        }
        let _ = writeln!(out, "  Fix {} ({}{reach}{verified}): {}", i + 1, f.plugin, f.description);
        if let Some(still) = &f.still_blocked {
            let _ = writeln!(out, "    Not verified: {still}");
        }
        if let Some(warning) = &f.warning {
            let _ = writeln!(out, "    Warning: {warning}");
        }
        if let Some(patch) = &f.patch {
            for line in patch.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
        if let Some(cmd) = &f.command {
            let _ = writeln!(out, "    apply: {cmd}");
        }
        let later = fixes.given_after(report, index, i);
        if !later.is_empty() {
            let _ = writeln!(out, "    the same fix for: {}", later.join(", "));
        }
    }
    if let Some(event) = &w.failed_create {
        let _ = writeln!(out, "  FailedCreate: {event}");
    }
    for d in &w.defaults {
        let _ = writeln!(out, "  Default: {d}");
    }
}

/// The node table: a row per node, or per group of nodes with the same verdict
/// ([`grouping::node_groups`]).
fn nodes_text(out: &mut String, nodes: &NodeReports, opts: &Options) {
    let groups = grouping::node_groups(nodes, opts);
    let sizes = grouping::pool_sizes(nodes, opts);
    let rows: Vec<[String; 4]> = groups
        .iter()
        .map(|g| {
            let v = g.verdict;
            let reason = if v.fits {
                // A node that fits has no reason; its detail says why it has no score (the
                // search stopped before it, percentageOfNodesToScore).
                [Some(g.score_text()), g.detail_text()]
                    .into_iter()
                    .flatten()
                    .filter(|s| !s.is_empty())
                    .collect::<Vec<_>>()
                    .join("; ")
            } else {
                let mut r = v.reason.as_deref().unwrap_or_default().to_string();
                if let Some(d) = &v.detail {
                    let _ = write!(r, " ({d})");
                }
                r
            };
            [g.label(&sizes, opts), if v.fits { "yes" } else { "no" }.into(), v.plugin.unwrap_or("").into(), reason]
        })
        .collect();
    table(out, ["NODE", "FITS", "PLUGIN", "REASON"], &rows, "  ");
    if groups.len() < nodes.len() {
        let _ = writeln!(
            out,
            "  ({} nodes in {} groups of the same verdict; -v lists each node)",
            nodes.len(),
            groups.len()
        );
    }
}

/// The node tables of pending pods whose verdicts differ from the workload's (its first
/// pod's): the first such pod, every one with `-v`.
fn own_nodes_text(out: &mut String, pods: &[PodReport], opts: &Options) {
    let own: Vec<(&str, &NodeReports)> =
        pods.iter().filter_map(|p| Some((p.name.as_str(), p.nodes.as_ref()?))).collect();
    let shown = if opts.verbose { own.len() } else { 1 };
    for (name, nodes) in own.iter().take(shown) {
        let _ = writeln!(out, "  {name} found no node; its own verdicts:");
        nodes_text(out, nodes, opts);
    }
    if own.len() > shown {
        let _ = writeln!(
            out,
            "  ... and {} more pending pod(s) with verdicts of their own (-v lists them)",
            own.len() - shown
        );
    }
}

fn pods_text(out: &mut String, pods: &[PodReport], opts: &Options) {
    if pods.is_empty() {
        return;
    }
    let (rows, hidden) = grouping::pod_rows(pods, opts);
    table(out, ["POD", "NODE", "STATUS"], &rows, "  ");
    for (count, what) in hidden.iter().zip([
        "running pod(s) of the input",
        "finished, terminating or deleted pod(s) of the input",
        "pending pod(s)",
    ]) {
        if *count > 0 {
            let _ = writeln!(out, "  ... and {count} more {what}");
        }
    }
    claims_text(out, pods, opts);
}

/// The pods' claims and what they bind to (the first [`CLAIM_LINES`] pods with claims, every
/// one with `-v`), then every claim a pod cannot mount where it went.
fn claims_text(out: &mut String, pods: &[PodReport], opts: &Options) {
    let with_claims: Vec<&PodReport> = pods.iter().filter(|p| !p.claims.is_empty()).collect();
    let shown = if opts.verbose { with_claims.len() } else { CLAIM_LINES };
    for p in with_claims.iter().take(shown) {
        let uses: Vec<String> = p.claims.iter().map(ToString::to_string).collect();
        let _ = writeln!(out, "  {} claims: {}", p.name, uses.join(", "));
    }
    if with_claims.len() > shown {
        let _ = writeln!(out, "  ... and {} more pod(s) with claims (-v lists them)", with_claims.len() - shown);
    }
    for p in pods {
        for c in &p.cannot_mount {
            let _ = writeln!(out, "  Warning: {} {}", p.name, c.text());
        }
    }
}

/// How many pods' claims the text lists without `-v`.
const CLAIM_LINES: usize = 10;

/// Every workload's fixes, alike ones merged ([`grouping::merge_fixes`]), and which are the
/// same across workloads: given in full once, named where they repeat.
struct Fixes {
    merged: Vec<Vec<Fix>>,
    keys: Vec<Vec<serde_json::Value>>,
}

impl Fixes {
    fn of(report: &Report, opts: &Options) -> Self {
        let merged: Vec<Vec<Fix>> = report.workloads.iter().map(|w| grouping::merge_fixes(&w.fixes, opts)).collect();
        let keys = merged.iter().map(|fs| fs.iter().map(grouping::fix_key).collect()).collect();
        Self { merged, keys }
    }

    fn of_workload(&self, index: usize) -> &[Fix] {
        self.merged.get(index).map(Vec::as_slice).unwrap_or_default()
    }

    /// Where (workload, fix) is the same as `key`, in report order.
    fn same<'a>(&'a self, key: &'a serde_json::Value) -> impl Iterator<Item = (usize, usize)> + 'a {
        self.keys
            .iter()
            .enumerate()
            .flat_map(move |(w, ks)| ks.iter().enumerate().filter(move |(_, k)| *k == key).map(move |(i, _)| (w, i)))
    }

    fn key(&self, workload: usize, fix: usize) -> Option<&serde_json::Value> {
        self.keys.get(workload).and_then(|ks| ks.get(fix))
    }

    /// The earlier workload and fix that are the same as this one, if any.
    fn first_with(&self, workload: usize, fix: usize) -> Option<(usize, usize)> {
        let key = self.key(workload, fix)?;
        self.same(key).find(|&(w, _)| w < workload)
    }

    /// `Fix 2 of Deployment shop/web` when an earlier workload has the same fix.
    fn given_before(&self, report: &Report, workload: usize, fix: usize) -> Option<String> {
        self.first_with(workload, fix).map(|(w, i)| fix_name(report, w, i))
    }

    /// The later workloads with the same fix, named.
    fn given_after(&self, report: &Report, workload: usize, fix: usize) -> Vec<String> {
        let Some(key) = self.key(workload, fix) else { return Vec::new() };
        self.same(key).filter(|&(w, _)| w > workload).map(|(w, i)| fix_name(report, w, i)).collect()
    }
}

fn fix_name(report: &Report, workload: usize, fix: usize) -> String {
    match report.workloads.get(workload) {
        Some(w) => format!("Fix {} of {} {}/{}", fix + 1, w.kind, w.namespace, w.name),
        None => format!("Fix {}", fix + 1),
    }
}

/// Left-aligned columns like `kubectl get`; the last column is not padded.
fn table<const N: usize>(out: &mut String, header: [&str; N], rows: &[[String; N]], indent: &str) {
    let mut widths = header.map(str::len);
    for r in rows {
        for (w, c) in widths.iter_mut().zip(r) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |out: &mut String, cells: [&str; N]| {
        out.push_str(indent);
        for (i, (c, w)) in cells.iter().zip(widths).enumerate() {
            if i + 1 == N {
                out.push_str(c);
            } else {
                let _ = write!(out, "{c:<w$}   ");
            }
        }
        let trimmed = out.trim_end_matches(' ').len();
        out.truncate(trimmed);
        out.push('\n');
    };
    line(out, header);
    for r in rows {
        line(out, r.each_ref().map(String::as_str));
    }
}

/// The Markdown report, grouped as [`Options::default`] groups (no pools known).
pub fn markdown(report: &Report) -> String {
    markdown_with(report, &Options::default())
}

/// The Markdown report; warnings are [`diagnostics`], not part of it.
pub fn markdown_with(report: &Report, opts: &Options) -> String {
    let mut out = String::new();
    let fixes = Fixes::of(report, opts);
    if let Some(note) = &report.kube_version_note {
        let _ = writeln!(out, "{note}\n");
    }
    if let Some(changes) = &report.changes {
        changes_markdown(&mut out, changes);
        out.push_str("## After the changes\n\n");
    }
    for (index, w) in report.workloads.iter().enumerate() {
        let _ = writeln!(out, "### {} `{}/{}`\n", w.kind, w.namespace, w.name);
        let _ = writeln!(
            out,
            "DESIRED **{}**, CURRENT **{}**, SCHEDULED **{}**, PENDING **{}**{}\n",
            w.desired,
            w.current,
            w.scheduled,
            w.pending,
            if w.not_in_input { " (controller not in the input: its pods, by ownerReferences)" } else { "" }
        );
        if !w.nodes.is_empty() {
            nodes_markdown(&mut out, &w.nodes, opts);
        }
        for p in w.pods.iter().filter(|p| p.node.is_none() && p.is_active()).take(1) {
            let _ = writeln!(out, "Pending `{}`:\n\n> {}\n", p.name, p.pending_text());
            if let Some(nodes) = &p.nodes {
                let _ = writeln!(out, "Its own verdicts:\n");
                nodes_markdown(&mut out, nodes, opts);
            }
        }
        for p in &w.pods {
            for c in &p.cannot_mount {
                let _ = writeln!(out, "> **Warning:** `{}` {}\n", p.name, c.text());
            }
        }
        for p in w.pods.iter().filter(|p| p.snapshot.as_ref().is_some_and(|s| s.message_differs)) {
            let snapshot = p.snapshot.as_ref().and_then(|s| s.message.as_deref()).unwrap_or_default();
            let now = match &p.node {
                Some(node) => format!("scheduled on {node}"),
                None => p.pending_text(),
            };
            let _ = writeln!(
                out,
                "`{}` differs from the snapshot:\n\n> snapshot: {snapshot}\n>\n> Placement: {now}\n",
                p.name
            );
        }
        for (i, f) in fixes.of_workload(index).iter().enumerate() {
            let verified = if f.verified { ", verified" } else { "" };
            // Markdown does not number fixes: the description says which, the patch is not repeated.
            if let Some(w) = fixes.first_with(index, i).and_then(|(w, _)| report.workloads.get(w)) {
                let _ = writeln!(
                    out,
                    "**Fix ({}{verified})**: {} (the same patch as for {} `{}/{}`)\n",
                    f.plugin, f.description, w.kind, w.namespace, w.name
                );
                continue;
            }
            let _ = writeln!(out, "**Fix ({}{verified})**: {}\n", f.plugin, f.description);
            if let Some(still) = &f.still_blocked {
                let _ = writeln!(out, "> **Not verified:** {still}\n");
            }
            if let Some(warning) = &f.warning {
                let _ = writeln!(out, "> **Warning:** {warning}\n");
            }
            if let Some(patch) = &f.patch {
                let _ = writeln!(out, "```yaml\n{}```\n", patch);
            }
        }
    }
    if !report.evictions.is_empty() {
        out.push_str("### Evictions\n\n| Pod | Node | Taint | When |\n|---|---|---|---|\n");
        for e in &report.evictions {
            let when = e.after_seconds.map(|s| format!("after {s}s")).unwrap_or_else(|| "now".into());
            let _ = writeln!(out, "| `{}/{}` | `{}` | `{}` | {when} |", e.namespace, e.pod, e.node, e.taint);
        }
        out.push('\n');
    }
    out
}

/// A node map as a Markdown table, nodes of the same verdict grouped.
fn nodes_markdown(out: &mut String, nodes: &NodeReports, opts: &Options) {
    out.push_str("| Node | Fits | Plugin | Reason | Detail |\n|---|---|---|---|---|\n");
    let groups = grouping::node_groups(nodes, opts);
    let sizes = grouping::pool_sizes(nodes, opts);
    for g in &groups {
        let v = g.verdict;
        let node = match g.members.as_slice() {
            [name] => format!("`{name}`"),
            _ => md_cell(Some(&g.label(&sizes, opts))),
        };
        let _ = writeln!(
            out,
            "| {node} | {} | {} | {} | {} |",
            if v.fits { "yes" } else { "no" },
            md_cell(v.plugin),
            md_cell(v.reason.as_deref()),
            md_cell(g.detail_text().as_deref())
        );
    }
    out.push('\n');
    if groups.len() < nodes.len() {
        let _ = writeln!(
            out,
            "{} nodes in {} groups of the same verdict (`-v` lists each node).\n",
            nodes.len(),
            groups.len()
        );
    }
}

/// What goes to standard error beside a report, as kubectl writes warnings: `Warning: ...`
/// lines, the objects ignored for their kind summarised in one (`ignored 125 objects: 40
/// ConfigMap, 33 ClusterRole, ...`), listed one by one with `verbose`. `ignored` are the
/// input's ignored objects ([`crate::input::documents::Manifests::ignored`]).
pub fn diagnostics(report: &Report, ignored: &[DocRef], verbose: bool) -> Vec<String> {
    use std::collections::BTreeSet;
    let mut out = Vec::new();
    if verbose {
        out.extend(report.warnings.iter().map(|w| format!("Warning: {w}")));
        return out;
    }
    // The ignored objects the report warns of, by their warning (a what-if report has them once).
    let warned: BTreeSet<&str> = report.warnings.iter().map(String::as_str).collect();
    let mut summarised: BTreeSet<String> = BTreeSet::new();
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    for doc in ignored {
        let warning = crate::cluster::simulate::ignored_warning(doc);
        if !warned.contains(warning.as_str()) || !summarised.insert(warning) {
            continue;
        }
        let kind = if doc.kind.is_empty() { "object" } else { doc.kind.as_str() };
        match kinds.iter_mut().find(|(k, _)| *k == kind) {
            Some((_, n)) => *n += 1,
            None => kinds.push((kind, 1)),
        }
    }
    out.extend(report.warnings.iter().filter(|w| !summarised.contains(*w)).map(|w| format!("Warning: {w}")));
    let count = summarised.len();
    if count > 0 {
        // Most numerous kinds first; ties in the input's order (the sort is stable).
        kinds.sort_by_key(|&(_, n)| std::cmp::Reverse(n));
        let list: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
        out.push(format!(
            "Warning: ignored {count} object{}: {} (not workloads Placement schedules; -v lists them)",
            if count == 1 { "" } else { "s" },
            list.join(", ")
        ));
    }
    out
}

/// The `--what-if` section: commands, evicted pods, DaemonSet coverage, pods that move, and
/// counters, each table only when it has rows.
fn changes_text(out: &mut String, c: &Changes, opts: &Options) {
    out.push_str("WHAT-IF\n");
    for cmd in &c.commands {
        let _ = writeln!(out, "  $ {}", cmd.command);
        // kubectl's lines for a pool's worth of nodes (`node/... cordoned`, `drained`): the
        // first ones, then how many more, unless -v.
        let shown = if grouping::grouped(cmd.output.len(), opts) { grouping::GROUP_ABOVE } else { cmd.output.len() };
        for line in cmd.output.iter().take(shown) {
            let _ = writeln!(out, "    {line}");
        }
        if cmd.output.len() > shown {
            let _ = writeln!(out, "    ... and {} more lines (-v lists them)", cmd.output.len() - shown);
        }
        if let Some(refused) = &cmd.refused {
            for line in refused.lines() {
                let _ = writeln!(out, "    {line}");
            }
        }
        for note in &cmd.notes {
            let _ = writeln!(out, "  Note: {note}");
        }
        for b in &cmd.blocked {
            let _ = writeln!(out, "  {}: {}", b.label(), b.summary());
            for way in b.unblock.iter().filter(|_| !b.evicted_on_retry) {
                let _ = writeln!(out, "    unblock: {way}");
            }
        }
    }
    if !c.evicted.is_empty() {
        out.push_str("\nEVICTED\n");
        let rows: Vec<[String; 5]> = c
            .evicted
            .iter()
            .map(|e| {
                let when = e.after_seconds.map(|s| format!("after {s}s")).unwrap_or_else(|| "now".into());
                [format!("{}/{}", e.namespace, e.pod), e.node.clone(), e.cause.clone(), when, e.replaced_by.clone()]
            })
            .collect();
        table(out, ["POD", "NODE", "CAUSE", "WHEN", "REPLACED BY"], &rows, "  ");
    }
    if !c.daemon_sets.is_empty() {
        out.push_str("\nDAEMONSET COVERAGE\n");
        let rows: Vec<[String; 5]> = c
            .daemon_sets
            .iter()
            .map(|d| {
                let mut what = Vec::new();
                if !d.lost.is_empty() {
                    what.push(format!("loses {}", d.lost.join(", ")));
                }
                if !d.gained.is_empty() {
                    what.push(format!("gains {}", d.gained.join(", ")));
                }
                [
                    format!("{}/{}", d.namespace, d.name),
                    d.pool.clone(),
                    format!("{}/{}", d.before, d.nodes_before),
                    format!("{}/{}", d.after, d.nodes),
                    what.join("; "),
                ]
            })
            .collect();
        table(out, ["DAEMONSET", "POOL", "BEFORE", "AFTER", "CHANGE"], &rows, "  ");
    }
    for (title, moves) in [("NOW SCHEDULED", &c.now_scheduled), ("NOW PENDING", &c.now_pending)] {
        if moves.is_empty() {
            continue;
        }
        let _ = writeln!(out, "\n{title}");
        let rows: Vec<[String; 3]> = moves
            .iter()
            .map(|m| {
                [m.workload.clone(), m.pod.clone(), m.node.clone().or_else(|| m.message.clone()).unwrap_or_default()]
            })
            .collect();
        table(out, ["WORKLOAD", "POD", "NODE OR WHY NOT"], &rows, "  ");
    }
    if !c.workloads.is_empty() {
        out.push_str("\nWORKLOADS (before -> after)\n");
        let arrow = |a: i64, b: i64| if a == b { a.to_string() } else { format!("{a} -> {b}") };
        let rows: Vec<[String; 6]> = c
            .workloads
            .iter()
            .map(|w| {
                let placed: Vec<String> = w
                    .replacements
                    .iter()
                    .filter_map(|r| r.node.as_ref().map(|n| format!("{} on {n}", r.pod)))
                    .collect();
                [
                    w.workload.clone(),
                    arrow(w.before.desired, w.after.desired),
                    arrow(w.before.current, w.after.current),
                    arrow(w.before.scheduled, w.after.scheduled),
                    arrow(w.before.pending, w.after.pending),
                    if placed.is_empty() { String::new() } else { format!("new pods: {}", placed.join(", ")) },
                ]
            })
            .collect();
        table(out, ["WORKLOAD", "DESIRED", "CURRENT", "SCHEDULED", "PENDING", ""], &rows, "  ");
    }
}

fn changes_markdown(out: &mut String, c: &Changes) {
    out.push_str("## What-if\n\n");
    for cmd in &c.commands {
        let _ = writeln!(
            out,
            "```console\n$ {}\n{}{}```\n",
            cmd.command,
            cmd.output.iter().map(|l| format!("{l}\n")).collect::<String>(),
            cmd.refused.as_ref().map(|r| format!("{r}\n")).unwrap_or_default()
        );
        for note in &cmd.notes {
            let _ = writeln!(out, "> **Note:** {note}\n");
        }
        for b in &cmd.blocked {
            let _ = writeln!(out, "> **{}:** {}.\n", b.label(), b.with_unblock());
        }
    }
    if !c.evicted.is_empty() {
        out.push_str("### Evicted\n\n| Pod | Node | Cause | When | Replaced by |\n|---|---|---|---|---|\n");
        for e in &c.evicted {
            let when = e.after_seconds.map(|s| format!("after {s}s")).unwrap_or_else(|| "now".into());
            let _ = writeln!(
                out,
                "| `{}/{}` | `{}` | {} | {when} | {} |",
                e.namespace,
                e.pod,
                e.node,
                md_cell(Some(&e.cause)),
                md_cell(Some(&e.replaced_by))
            );
        }
        out.push('\n');
    }
    if !c.daemon_sets.is_empty() {
        out.push_str("### DaemonSet coverage\n\n| DaemonSet | Pool | Before | After | Lost | Gained |\n|---|---|---|---|---|---|\n");
        for d in &c.daemon_sets {
            let _ = writeln!(
                out,
                "| `{}/{}` | `{}` | {}/{} | {}/{} | {} | {} |",
                d.namespace,
                d.name,
                d.pool,
                d.before,
                d.nodes_before,
                d.after,
                d.nodes,
                d.lost.join(", "),
                d.gained.join(", ")
            );
        }
        out.push('\n');
    }
    for (title, moves) in [("Now scheduled", &c.now_scheduled), ("Now pending", &c.now_pending)] {
        if moves.is_empty() {
            continue;
        }
        let _ = writeln!(out, "### {title}\n\n| Workload | Pod | Node or why not |\n|---|---|---|");
        for m in moves {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} |",
                m.workload,
                m.pod,
                md_cell(m.node.as_deref().or(m.message.as_deref()))
            );
        }
        out.push('\n');
    }
    if !c.workloads.is_empty() {
        out.push_str(
            "### Workloads\n\n| Workload | Desired | Current | Scheduled | Pending |\n|---|---|---|---|---|\n",
        );
        for w in &c.workloads {
            let _ = writeln!(
                out,
                "| {} | {} → {} | {} → {} | {} → {} | {} → {} |",
                w.workload,
                w.before.desired,
                w.after.desired,
                w.before.current,
                w.after.current,
                w.before.scheduled,
                w.after.scheduled,
                w.before.pending,
                w.after.pending
            );
        }
        out.push('\n');
    }
}

fn md_cell(v: Option<&str>) -> String {
    v.unwrap_or("").replace('|', "\\|")
}

/// The Gatekeeper section of `simulate --policy`: each workload's verdict (denied when any
/// violation's enforcement action is deny) and its violations, as text or markdown.
pub fn gatekeeper_section(report: &Report, markdown: bool) -> String {
    use crate::gatekeeper::EnforcementAction;
    let mut out = String::new();
    out.push_str(if markdown { "\n## Gatekeeper\n\n" } else { "\nGatekeeper:\n" });
    for w in &report.workloads {
        let verdict = if w.violations.iter().any(|v| v.enforcement_action == EnforcementAction::Deny) {
            "denied"
        } else {
            "admitted"
        };
        let head = format!("{} {}/{}: {} ({} violation(s))", w.kind, w.namespace, w.name, verdict, w.violations.len());
        if markdown {
            let _ = writeln!(out, "- {head}");
        } else {
            let _ = writeln!(out, "  {head}");
        }
        for v in &w.violations {
            let line = format!("{} ({}): {}", v.constraint, v.enforcement_action.as_str(), v.msg);
            if markdown {
                let _ = writeln!(out, "  - `{}` {}", v.constraint, line.trim_start_matches(&v.constraint).trim_start());
            } else {
                let _ = writeln!(out, "    {line}");
            }
        }
    }
    out
}
