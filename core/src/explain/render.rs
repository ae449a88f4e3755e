//! Human renderings of a [`Report`]: terminal text that reads like `kubectl`, and Markdown
//! for generated docs. JSON is the report itself (`serde_json`).

use std::fmt::Write;

use crate::cluster::simulate::{PodReport, Report, WorkloadReport};

/// Pending pods are shown this many times, then summarised.
const PENDING_SHOWN: usize = 3;
/// The input's running pods, and its finished, terminating and deleted ones, are shown this
/// many times each, then summarised: a snapshot's controllers can have hundreds.
const EXISTING_SHOWN: usize = 5;

pub fn text(report: &Report) -> String {
    let mut out = String::new();
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
            let now = if p.node.is_some() { "Placement places it".to_string() } else { p.pending_text() };
            let _ = writeln!(
                out,
                "`{}` differs from the snapshot:\n\n> snapshot: {snapshot}\n>\n> Placement: {now}\n",
                p.name
            );
        }
        for f in &w.fixes {
            let _ = writeln!(out, "**Fix ({})**: {}\n", f.plugin, f.description);
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
