//! Human renderings of a [`Report`]: terminal text that reads like `kubectl`, and Markdown
//! for generated docs. JSON is the report itself (`serde_json`).

use std::fmt::Write;

use crate::cluster::changes::Changes;
use crate::cluster::simulate::{PodReport, Report, WorkloadReport};

/// Pending pods are shown this many times, then summarised.
const PENDING_SHOWN: usize = 3;
/// The input's running pods, and its finished, terminating and deleted ones, are shown this
/// many times each, then summarised: a snapshot's controllers can have hundreds.
const EXISTING_SHOWN: usize = 5;

pub fn text(report: &Report) -> String {
    let mut out = String::new();
    if let Some(changes) = &report.changes {
        changes_text(&mut out, changes);
        out.push_str("\nAFTER THE CHANGES\n\n");
    }
    for (i, w) in report.workloads.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        workload_text(&mut out, w);
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
    if !report.warnings.is_empty() {
        out.push('\n');
        for w in &report.warnings {
            let _ = writeln!(out, "Warning: {w}");
        }
    }
    out
}

fn workload_text(out: &mut String, w: &WorkloadReport) {
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
        let rows: Vec<[String; 4]> = w
            .nodes
            .iter()
            .map(|(name, v)| {
                let fits = v.fits;
                let reason = if fits {
                    v.score.map(|s| format!("score {s}")).unwrap_or_default()
                } else {
                    let mut r = v.reason.clone().unwrap_or_default();
                    if let Some(d) = &v.detail {
                        let _ = write!(r, " ({d})");
                    }
                    r
                };
                [name.to_string(), if fits { "yes" } else { "no" }.into(), v.plugin.unwrap_or("").into(), reason]
            })
            .collect();
        table(out, ["NODE", "FITS", "PLUGIN", "REASON"], &rows, "  ");
    }
    pods_text(out, &w.pods);
    for (i, f) in w.fixes.iter().enumerate() {
        let reach = if f.nodes.is_empty() { String::new() } else { format!(", reaches {}", f.nodes.join(", ")) };
        let verified = if f.verified { ", verified" } else { "" };
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
    }
    for d in &w.defaults {
        let _ = writeln!(out, "  Default: {d}");
    }
}

fn pods_text(out: &mut String, pods: &[PodReport]) {
    if pods.is_empty() {
        return;
    }
    let mut rows: Vec<[String; 3]> = Vec::new();
    // Shown and hidden pods by class: the input's running pods, its other pods (finished,
    // terminating, deleted), pending pods; the simulation's placed pods are all shown.
    let mut shown = [0usize; 3];
    let mut hidden = [0usize; 3];
    for p in pods {
        let class = match (&p.snapshot, &p.node) {
            (Some(_), _) if !p.is_active() => Some((1, EXISTING_SHOWN)),
            (Some(s), Some(_)) if !s.message_differs => Some((0, EXISTING_SHOWN)),
            (_, None) => Some((2, PENDING_SHOWN)),
            _ => None,
        };
        if let Some((class, limit)) = class {
            let (Some(count), Some(skipped)) = (shown.get_mut(class), hidden.get_mut(class)) else { continue };
            if *count >= limit {
                *skipped += 1;
                continue;
            }
            *count += 1;
        }
        let node = p.node.clone().unwrap_or_else(|| "<none>".into());
        rows.push([p.name.clone(), node, p.status_text()]);
    }
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

pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    if let Some(changes) = &report.changes {
        changes_markdown(&mut out, changes);
        out.push_str("## After the changes\n\n");
    }
    for w in &report.workloads {
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
            out.push_str("| Node | Fits | Plugin | Reason | Detail |\n|---|---|---|---|---|\n");
            for (name, v) in w.nodes.iter() {
                let _ = writeln!(
                    out,
                    "| `{name}` | {} | {} | {} | {} |",
                    if v.fits { "yes" } else { "no" },
                    md_cell(v.plugin),
                    md_cell(v.reason.as_deref()),
                    md_cell(v.detail.as_deref())
                );
            }
            out.push('\n');
        }
        for p in w.pods.iter().filter(|p| p.node.is_none() && p.is_active()).take(1) {
            let _ = writeln!(out, "Pending `{}`:\n\n> {}\n", p.name, p.pending_text());
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
        for f in &w.fixes {
            let verified = if f.verified { ", verified" } else { "" };
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
    for w in &report.warnings {
        let _ = writeln!(out, "> Warning: {w}\n");
    }
    out
}

/// The `--what-if` section: commands, evicted pods, DaemonSet coverage, pods that move, and
/// counters, each table only when it has rows.
fn changes_text(out: &mut String, c: &Changes) {
    out.push_str("WHAT-IF\n");
    for cmd in &c.commands {
        let _ = writeln!(out, "  $ {}", cmd.command);
        for line in &cmd.output {
            let _ = writeln!(out, "    {line}");
        }
        if let Some(refused) = &cmd.refused {
            let _ = writeln!(out, "    {refused}");
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
