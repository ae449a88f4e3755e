//! Files the playground hands out: the report as the CLI writes it (`placement simulate -o
//! json`, the JSON contract of docs/cli.md, and `-o markdown`), and a fix's patch.
//! The same renderers as the CLI's, so a download and the CLI's output of the same input are
//! the same text.

use placement_core::explain::render;

use crate::evaluation::Evaluation;

/// A file to download.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Download {
    pub file_name: String,
    /// The `type` of the Blob.
    pub mime: &'static str,
    pub text: String,
}

/// Why there is nothing to download.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExportError {
    #[error("the input has errors: fix them first (the report is of a valid input)")]
    InputErrors,
    #[error("the fixes are still being re-checked")]
    FixesPending,
    #[error("no such fix")]
    NoSuchFix,
    #[error("this fix is not a patch: {0}")]
    NotAPatch(String),
    #[error("rendering JSON: {0}")]
    Json(String),
}

/// The report in a format the CLI writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Json,
    Markdown,
}

/// `eval`'s report as `placement simulate -o json|markdown` prints it for the same input.
/// The fixes must be re-checked first, as the CLI's are.
pub fn report(eval: &Evaluation, format: ReportFormat) -> Result<Download, ExportError> {
    let (Some(report), Some(input)) = (eval.report.as_ref(), eval.input()) else {
        return Err(ExportError::InputErrors);
    };
    if !eval.is_ok() {
        return Err(ExportError::InputErrors);
    }
    if !eval.fixes_verified() {
        return Err(ExportError::FixesPending);
    }
    Ok(match format {
        ReportFormat::Json => Download {
            file_name: "placement-report.json".into(),
            mime: "application/json",
            text: serde_json::to_string_pretty(report).map_err(|e| ExportError::Json(e.to_string()))? + "\n",
        },
        ReportFormat::Markdown => {
            // The CLI's layout: nodes grouped by pool when the pool label finds pools.
            let layout = render::Options::default()
                .with_pools(input.manifests.nodes.iter().map(|(_, n)| &**n), &input.pool_label);
            Download {
                file_name: "placement-report.md".into(),
                mime: "text/markdown",
                text: render::markdown_with(report, &layout),
            }
        }
    })
}

/// Fix `fix` of workload `workload`: its patch, to apply with `kubectl patch --type
/// strategic --patch-file`.
pub fn fix_patch(eval: &Evaluation, workload: usize, fix: usize) -> Result<Download, ExportError> {
    let w = eval.workloads.get(workload).ok_or(ExportError::NoSuchFix)?;
    let f = w.fixes.get(fix).ok_or(ExportError::NoSuchFix)?;
    let patch = f.patch.as_ref().ok_or_else(|| ExportError::NotAPatch(f.description.clone()))?;
    Ok(Download {
        file_name: format!("{}-{}-fix.yaml", w.kind.to_lowercase(), w.name),
        mime: "application/yaml",
        text: if patch.ends_with('\n') { patch.clone() } else { format!("{patch}\n") },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gallery;
    use crate::share::SharedState;
    use placement_core::cluster::pools::PoolLabel;
    use placement_core::cluster::simulate::{simulate, SimulateOptions};
    use placement_core::input::documents::parse_manifests;

    #[test]
    fn the_reports_are_the_clis_for_the_same_input() {
        let example = gallery::find("daemonset-tainted-pool").unwrap();
        let (nodes, workloads) = example.split();
        let state = SharedState { nodes: nodes.clone(), workloads: workloads.clone(), ..Default::default() };
        let unverified = Evaluation::unverified(&state);
        assert_eq!(report(&unverified, ReportFormat::Json), Err(ExportError::FixesPending));
        let eval = unverified.with_verified_fixes();

        // What the CLI prints for the file (one text, as `placement simulate -f` reads it; the
        // page's fix re-checks are bounded at four, the CLI's at sixteen: one fix here).
        let whole = format!("{nodes}---\n{workloads}");
        let manifests = parse_manifests(&whole, "x").unwrap();
        let cli = simulate(&manifests, &SimulateOptions::default()).unwrap();
        let cli_layout = render::Options::default()
            .with_pools(manifests.nodes.iter().map(|(_, n)| &**n), &PoolLabel::from_option(None));
        let json = report(&eval, ReportFormat::Json).unwrap();
        assert_eq!(json.file_name, "placement-report.json");
        let page: serde_json::Value = serde_json::from_str(&json.text).unwrap();
        let want: serde_json::Value = serde_json::to_value(&cli).unwrap();
        assert_eq!(page["workloads"], want["workloads"]);
        assert_eq!(page["workloads"][0]["fixes"][0]["verified"], true);

        let md = report(&eval, ReportFormat::Markdown).unwrap();
        assert_eq!(md.text, render::markdown_with(&cli, &cli_layout));
        assert!(md.text.contains("TaintToleration"), "{}", md.text);

        let patch = fix_patch(&eval, 0, 0).unwrap();
        assert_eq!(patch.file_name, "daemonset-twistlock-defender-ds-fix.yaml");
        assert!(patch.text.contains("key: testkey"), "{}", patch.text);
        assert_eq!(fix_patch(&eval, 0, 99), Err(ExportError::NoSuchFix));

        let broken = SharedState { workloads: "kind: [".into(), ..state };
        assert_eq!(report(&Evaluation::of(&broken), ReportFormat::Markdown), Err(ExportError::InputErrors));
    }
}
