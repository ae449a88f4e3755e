//! The playground's model: two manifest texts (workloads, nodes) and the options in, a view
//! of the simulation out — errors placed on editor lines, a workloads × nodes matrix, node
//! capacity, fixes — so that the browser UI only lays it out.
//!
//! Everything here is a pure function of [`SharedState`], the same state a share link holds.

use std::collections::HashMap;
use std::sync::Arc;

use crate::apply_fix::{apply_patch, ApplyError};
use crate::node_table::{self, NodeRow};
use crate::pools::{self, PoolView};
use crate::share::SharedState;
use crate::what_if::WhatIfView;
use placement_core::cluster::defaults::api_defaults;
use placement_core::cluster::pools::PoolLabel;
use placement_core::cluster::simulate::{
    simulate_unverified, Eviction, NodeReport, PodReport, Report, SimulateOptions, WorkloadKey, WorkloadReport,
};
use placement_core::cluster::snapshot::{self, Role};
use placement_core::cluster::what_if::{run_what_if, WhatIf, WhatIfFailure};
use placement_core::explain::fixes::Fix;
use placement_core::explain::verify::verify_fixes;
use placement_core::input::documents::{
    check_parsed, parse_manifests_all, parse_manifests_cached, readable_manifests, DocumentCache, InputError,
    Manifests, Workload, WorkloadKind,
};
use placement_core::input::source_map::error_line;
use placement_core::input::strict::Finding;
use placement_core::model::quantity::{format_bytes, format_cpu};
use placement_core::model::resources::{Resource, CPU, MEMORY, PODS};
use placement_core::model::version::KubeVersion;
use placement_core::model::{Node, PodSpec, PodStatus};
use placement_core::scheduler::framework::SchedulerConfig;
use placement_core::scheduler::plugins::node_resources_fit::pod_request;

/// The `source` names the editors' documents carry in messages.
pub const WORKLOADS_SOURCE: &str = "workloads";
pub const NODES_SOURCE: &str = "nodes";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Editor {
    Workloads,
    Nodes,
    /// The options (Kubernetes version).
    Options,
}

/// An input error, or warning, placed in an editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorError {
    pub editor: Editor,
    /// 1-based line in that editor's text, when it can be placed.
    pub line: Option<usize>,
    /// The field path, when the error is about a field.
    pub field: Option<String>,
    pub message: String,
    pub severity: Severity,
}

/// The 1-based lines of `text` that hold a tab character: the editor shows them, since a tab
/// looks like spaces and YAML does not allow it in indentation.
pub fn tab_lines(text: &str) -> Vec<usize> {
    if !text.contains('\t') {
        return Vec::new();
    }
    text.lines().enumerate().filter(|(_, l)| l.contains('\t')).map(|(i, _)| i + 1).collect()
}

/// Whether a diagnostic stops the simulation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// The input cannot be simulated (the API server would reject it).
    Error,
    /// Simulated, but probably not what was meant: `kubectl apply --validate=warn` findings
    /// (unknown fields, fields given twice, a kind one typo away from one Placement reads).
    Warning,
}

impl EditorError {
    /// A strict-decoding finding of the text in `editor`, as a warning at its line.
    fn warning(editor: Editor, finding: &Finding) -> Self {
        // The line is shown beside the message already.
        let message = Finding { line: None, ..finding.clone() }.to_string();
        EditorError {
            editor,
            line: finding.line,
            field: Some(finding.field.clone()),
            message,
            severity: Severity::Warning,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CellState {
    Fits,
    Blocked,
    /// The workload's pods are on the node, bound before any cycle of this simulation (a
    /// snapshot's running pods, a pod with `spec.nodeName`): no verdict was computed.
    Placed,
    /// The node is not in the workload's verdicts: no pod of it was scheduled.
    Unknown,
}

/// One workload on one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    /// Shared by the node's cells of every workload (20,000 cells at 1,000 nodes x 20).
    pub node: Arc<str>,
    pub state: CellState,
    pub plugin: Option<&'static str>,
    /// Shared with the report's verdict (and the other nodes' failing alike).
    pub reason: Option<Arc<str>>,
    pub detail: Option<Arc<str>>,
    pub score: Option<i64>,
    /// The workload's pods that landed on this node.
    pub pods: Vec<String>,
    /// What the claims of the pods here bind to (`db-0: data-db-0 -> PersistentVolume pv-1`),
    /// in the pods' order.
    pub volumes: Vec<String>,
    /// Claims a pod here cannot mount: its CSI driver's node plugin does not run on the node
    /// (`db-0 cannot mount claim ...`). The scheduler does not check it; the pod stays
    /// ContainerCreating.
    pub cannot_mount: Vec<String>,
    /// How many of the pods here have a claim they cannot mount (a pod may have several).
    pub pods_cannot_mount: usize,
    /// Indices into the workload's fixes that reach this node.
    pub fixes: Vec<usize>,
    /// The verdicts on this node of pending pods whose cycle differs from the workload's
    /// (the state above is its first pod's): `db-3: NodeVolumeLimits: node(s) exceed max
    /// volume count (...)`.
    pub pending_verdicts: Vec<String>,
}

impl Cell {
    /// The hover text: plugin, upstream's reason, Placement's detail, or the score; then the
    /// verdicts of pending pods whose cycles differ.
    pub fn title(&self) -> String {
        let mut s = self.verdict_title();
        for v in &self.pending_verdicts {
            s.push_str(&format!("; pending {v}"));
        }
        s
    }

    fn verdict_title(&self) -> String {
        match self.state {
            CellState::Fits => {
                let mut s = format!("{} fits", self.node);
                if let Some(score) = self.score {
                    s.push_str(&format!("; score {score}"));
                }
                if !self.pods.is_empty() {
                    s.push_str(&format!("; pods here: {}", self.pods.join(", ")));
                }
                for warning in &self.cannot_mount {
                    s.push_str(&format!("; warning: {warning}"));
                }
                s
            }
            CellState::Blocked => {
                let mut s = blocked_text(self.plugin, self.reason.as_deref(), self.detail.as_deref());
                if !self.pods.is_empty() {
                    // The verdict is the workload's first cycle; a pod here was bound before,
                    // or placed by a cycle of its own (a StatefulSet replica with its own claims).
                    s.push_str(&format!("; pods here (each by its own cycle): {}", self.pods.join(", ")));
                }
                s
            }
            CellState::Placed => format!(
                "{}: pods here: {} (bound already; no scheduling cycle judged this node)",
                self.node,
                self.pods.join(", ")
            ),
            CellState::Unknown => {
                format!("{}: not evaluated (no pod of this workload was scheduled in this simulation)", self.node)
            }
        }
    }
}

#[derive(Debug, Clone)]
pub struct WorkloadView {
    pub kind: String,
    pub namespace: String,
    pub name: String,
    /// Which editor holds the workload, and its document there (for applying fixes).
    pub editor: Editor,
    pub doc_index: usize,
    /// The controller is not in the input: the row gathers its pods found by their
    /// `ownerReferences` (no document, no fixes).
    pub not_in_input: bool,
    pub desired: i64,
    /// Created pods, Pending ones included (`kubectl get` CURRENT).
    pub current: i64,
    /// Created pods bound to a node.
    pub scheduled: i64,
    /// Created pods without a node.
    pub pending: i64,
    pub cells: Vec<Cell>,
    /// Active pods without a node: the FailedScheduling message, or why no cycle runs.
    pub pending_pods: Vec<PodReport>,
    /// Every pod of the workload: the input's (a snapshot's) first, then the created ones.
    pub pods: Vec<PodRow>,
    pub fixes: Vec<Fix>,
    pub defaults: Vec<String>,
}

/// One pod of a workload, as the CLI's POD table prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodRow {
    pub name: String,
    pub node: Option<std::sync::Arc<str>>,
    /// `Running`, `Scheduled`, `Pending: 0/3 nodes are available: ...`, `Deleted: ...`
    pub status: String,
    /// From the input's cluster state (a snapshot), not created by the simulation.
    pub existing: bool,
    /// The claims the pod uses and what each binds to (`data-db-0 -> PersistentVolume pv-1`).
    pub claims: Vec<String>,
    /// The claims it cannot mount where it went, and why.
    pub cannot_mount: Vec<String>,
}

impl WorkloadView {
    /// `DaemonSet twistlock/defender`.
    pub fn label(&self) -> String {
        format!("{} {}/{}", self.kind, self.namespace, self.name)
    }

    /// `DESIRED 3 · CURRENT 3 · SCHEDULED 2 · PENDING 1`
    pub fn counters(&self) -> String {
        format!(
            "DESIRED {} · CURRENT {} · SCHEDULED {} · PENDING {}",
            self.desired, self.current, self.scheduled, self.pending
        )
    }

    /// Where `node` ranks among the nodes this workload fits on, by total score (1 is the
    /// highest; nodes of equal score share a rank), and how many such nodes have a score.
    ///
    /// `None` for a DaemonSet: each of its pods is scheduled to one node (the controller's
    /// node affinity), so its scores come from different cycles and do not rank.
    pub fn rank(&self, node: &str) -> Option<(usize, usize)> {
        if self.kind == "DaemonSet" {
            return None;
        }
        let scored = || self.cells.iter().filter(|c| c.state == CellState::Fits).filter_map(|c| c.score);
        let score = self.cells.iter().find(|c| *c.node == *node && c.state == CellState::Fits)?.score?;
        Some((1 + scored().filter(|s| *s > score).count(), scored().count()))
    }

    /// A stable key for the UI.
    pub fn key(&self) -> String {
        format!("{}/{}/{}", self.kind, self.namespace, self.name)
    }
}

/// Requested against allocatable for one resource on one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Usage {
    pub resource: String,
    pub requested: i64,
    pub allocatable: Option<i64>,
    /// `1.5 / 4`, `512Mi / 8Gi`, `3 / 110`.
    pub text: String,
    /// 0..=100 (more when overcommitted by bound pods); `None` without allocatable.
    pub percent: Option<f64>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct NodeView {
    pub name: String,
    /// `key=value`, for the matrix's filter.
    pub labels: Vec<String>,
    pub taints: Vec<String>,
    pub cordoned: bool,
    pub usage: Vec<Usage>,
    pub pods: usize,
}

/// Fixes the page re-checks by simulating again, per evaluation.
const PAGE_FIX_RESIMULATIONS: usize = 4;

/// Each editor's last text and what reading it gave, so that an edit in one editor does not
/// read the other again (at 13,000 lines of nodes, reading them is a large part of an edit).
///
/// The page reads an edited text without the strict check (unknown and duplicate fields, a
/// mistyped kind: a second scan of the text), and runs that check after the frame
/// ([`ParseCache::check`]); [`Evaluation::unverified`] and [`Evaluation::of`] check at once.
#[derive(Debug, Clone, Default)]
pub struct ParseCache {
    nodes: Option<Parsed>,
    workloads: Option<Parsed>,
}

/// A text read with its strict-decoding findings
/// ([`placement_core::input::documents::parse_manifests_checked`], warn mode).
type Checked = Result<(Manifests, Vec<Finding>), Vec<InputError>>;

type ParseResult = (Checked, Option<Arc<[NodeRow]>>);

#[derive(Debug, Clone)]
struct Parsed {
    text: String,
    result: Checked,
    /// The strict check has run ([`check_parsed`]); until then `result` has no findings.
    checked: bool,
    /// The node table's rows of the nodes text (nodes editor only), shared with the
    /// evaluations read from it.
    rows: Option<Arc<[NodeRow]>>,
    /// The text's documents as read, so that the next text reads only those an edit changed.
    documents: DocumentCache,
}

impl ParseCache {
    /// `text` read as the documents of `source`: from the cache when it is the text read
    /// last. With `strict`, the strict check runs now if it has not yet.
    fn read(slot: &mut Option<Parsed>, text: &str, source: &str, strict: bool) -> ParseResult {
        if let Some(p) = slot.as_mut().filter(|p| p.text == text) {
            if strict && !p.checked {
                Self::check_slot(p, source);
            }
            return (p.result.clone(), p.rows.clone());
        }
        let (mut documents, previous) = match slot.take() {
            Some(Parsed { documents, result, rows, .. }) => (documents, Some((result, rows))),
            None => (DocumentCache::default(), None),
        };
        let parsed = parse_manifests_cached(text, source, &mut documents);
        // The rows of the nodes whose documents were reused are the previous text's.
        let before =
            previous.as_ref().and_then(|(result, rows)| Some((&result.as_ref().ok()?.0.nodes[..], &**rows.as_ref()?)));
        let rows = (source == NODES_SOURCE)
            .then(|| parsed.as_ref().ok().map(|m| node_table::rows_reusing(&m.nodes, before).into()))
            .flatten();
        let (result, checked) = if strict {
            (check_parsed(parsed, text, source, false), true)
        } else {
            (parsed.map(|m| (m, Vec::new())), false)
        };
        *slot = Some(Parsed { text: text.to_string(), result: result.clone(), checked, rows: rows.clone(), documents });
        (result, rows)
    }

    fn check_slot(p: &mut Parsed, source: &str) {
        let parsed = match std::mem::replace(&mut p.result, Err(Vec::new())) {
            Ok((m, _)) => Ok(m),
            // Reading failed: the strict check's errors join the reading's.
            Err(_) => parse_manifests_all(&p.text, source),
        };
        p.result = check_parsed(parsed, &p.text, source, false);
        p.checked = true;
    }

    /// Whether either editor's last text still waits for its strict check.
    pub fn unchecked(&self) -> bool {
        [&self.nodes, &self.workloads].into_iter().flatten().any(|p| !p.checked)
    }

    /// Whether `editor`'s last text still waits for its strict check.
    pub fn unchecked_in(&self, editor: Editor) -> bool {
        let slot = if editor == Editor::Nodes { &self.nodes } else { &self.workloads };
        slot.as_ref().is_some_and(|p| !p.checked)
    }

    /// Runs the strict checks still to run; returns whether either text now fails to read
    /// (a mistyped kind), which calls for evaluating again.
    pub fn check(&mut self) -> bool {
        let mut refused = false;
        for (slot, source) in [(&mut self.nodes, NODES_SOURCE), (&mut self.workloads, WORKLOADS_SOURCE)] {
            if let Some(p) = slot.as_mut().filter(|p| !p.checked) {
                let was_ok = p.result.is_ok();
                Self::check_slot(p, source);
                refused |= was_ok && p.result.is_err();
            }
        }
        refused
    }

    /// The strict findings of the texts that read, as the editors mark them.
    pub fn warnings(&self) -> Vec<EditorError> {
        let mut out = Vec::new();
        for (slot, editor) in [(&self.nodes, Editor::Nodes), (&self.workloads, Editor::Workloads)] {
            if let Some(Parsed { result: Ok((_, findings)), .. }) = slot {
                out.extend(findings.iter().map(|f| EditorError::warning(editor, f)));
            }
        }
        out
    }
}

/// Everything the playground shows for one state.
#[derive(Debug, Clone, Default)]
pub struct Evaluation {
    pub errors: Vec<EditorError>,
    /// Strict-decoding findings of texts that read: shown, but simulated anyway.
    pub input_warnings: Vec<EditorError>,
    pub report: Option<Report>,
    pub workloads: Vec<WorkloadView>,
    pub nodes: Vec<NodeView>,
    /// Rows for the node table, when the nodes text parsed.
    pub node_rows: Option<Arc<[NodeRow]>>,
    pub warnings: Vec<String>,
    pub evictions: Vec<Eviction>,
    /// Node documents in the workloads editor plus workloads in the nodes editor: they work
    /// where they are, but [`sort_documents`] moves them.
    pub misplaced: usize,
    /// The nodes by pool (of the cluster shown: after the what-if commands).
    pub pools: Vec<PoolView>,
    /// The nodes' label keys, for choosing the pool label.
    pub label_keys: Vec<String>,
    /// With what-if commands: each command's outcome and what they change; the rest of the
    /// evaluation is the cluster after them.
    pub what_if: Option<WhatIfView>,
    /// The cluster the report is of (after the what-if commands) and the simulation's options:
    /// what re-checking the fixes and the downloadable reports read.
    input: Option<Arc<SimInput>>,
    /// The fixes are not re-checked yet ([`Evaluation::unverified`]).
    fixes_pending: bool,
    /// See [`Evaluation::strict_pending`].
    strict_pending: bool,
}

/// The cluster a report is of, and the simulation's options.
#[derive(Debug)]
pub struct SimInput {
    pub manifests: Manifests,
    pub opts: SimulateOptions,
    pub pool_label: PoolLabel,
}

/// Pending pods that share a FailedScheduling message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PendingGroup {
    pub message: String,
    /// `namespace/name`
    pub pods: Vec<String>,
    /// The snapshot's own PodScheduled messages, where they differ from Placement's.
    pub snapshot_messages: Vec<String>,
}

impl Evaluation {
    pub fn errors_in(&self, editor: Editor) -> impl Iterator<Item = &EditorError> {
        self.errors.iter().filter(move |e| e.editor == editor)
    }

    /// The errors, then the warnings, of one editor.
    pub fn diagnostics_in(&self, editor: Editor) -> impl Iterator<Item = &EditorError> {
        self.errors.iter().chain(&self.input_warnings).filter(move |e| e.editor == editor)
    }

    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }

    /// The pending pods of every workload, grouped by message, in workload order.
    pub fn pending_groups(&self) -> Vec<PendingGroup> {
        let mut groups: Vec<PendingGroup> = Vec::new();
        for w in &self.workloads {
            let first = groups.len();
            for pod in &w.pending_pods {
                let message = pod.pending_text();
                let name = format!("{}/{}", w.namespace, pod.name);
                let differs = pod.snapshot.as_ref().filter(|s| s.message_differs).and_then(|s| s.message.clone());
                let group = match groups[first..].iter_mut().position(|g| g.message == message) {
                    Some(i) => &mut groups[first + i],
                    None => {
                        groups.push(PendingGroup { message, pods: Vec::new(), snapshot_messages: Vec::new() });
                        groups.last_mut().expect("just pushed")
                    }
                };
                group.pods.push(name);
                if let Some(m) = differs.filter(|m| !group.snapshot_messages.contains(m)) {
                    group.snapshot_messages.push(m);
                }
            }
        }
        groups
    }
}

impl Evaluation {
    /// Parses both texts, simulates, re-checks the fixes, and builds the views.
    pub fn of(state: &SharedState) -> Evaluation {
        Evaluation::unverified(state).with_verified_fixes()
    }

    /// [`Evaluation::of`] without re-checking the fixes: each re-check is another whole
    /// simulation (up to [`PAGE_FIX_RESIMULATIONS`] of them), several times the cost of the
    /// verdicts, so the page shows the verdicts at once and settles the fixes after the frame
    /// ([`Evaluation::with_verified_fixes`]). Until then every fix has `verified` false and
    /// [`Evaluation::fixes_verified`] is false. With what-if commands the fixes are re-checked
    /// here (the commands' own simulation does it).
    pub fn unverified(state: &SharedState) -> Evaluation {
        Evaluation::evaluate(state, &mut ParseCache::default(), true)
    }

    /// [`Evaluation::unverified`] as the page runs it on an edit: reading only the editors
    /// whose text changed since `cache` last read them, and without their strict check
    /// ([`Evaluation::strict_pending`]: the page runs it after the frame with
    /// [`ParseCache::check`]).
    pub fn unverified_cached(state: &SharedState, cache: &mut ParseCache) -> Evaluation {
        Evaluation::evaluate(state, cache, false)
    }

    /// The strict checks (unknown and duplicate fields, mistyped kinds) of an editor's text
    /// have not run yet: its warnings are still to come.
    pub fn strict_pending(&self) -> bool {
        self.strict_pending
    }

    /// This evaluation with the warnings of the strict checks `cache` has run since.
    pub fn with_checked_warnings(&self, cache: &ParseCache) -> Evaluation {
        Evaluation { input_warnings: cache.warnings(), strict_pending: cache.unchecked(), ..self.clone() }
    }

    fn evaluate(state: &SharedState, cache: &mut ParseCache, strict: bool) -> Evaluation {
        let mut eval = Evaluation::default();
        // Not given: the newest kubelet of the pasted Nodes, as the CLI chooses it (below).
        let mut given_version = None;
        if !state.kube_version.trim().is_empty() {
            match state.kube_version.trim().parse::<KubeVersion>() {
                Ok(v) => given_version = Some(v),
                Err(e) => eval.errors.push(EditorError {
                    editor: Editor::Options,
                    line: None,
                    field: None,
                    message: e.to_string(),
                    severity: Severity::Error,
                }),
            }
        }

        // Every invalid document gets its marker, not only the first of each editor; unknown
        // and duplicate fields are warnings, as `kubectl apply --validate=warn` gives them.
        let (nodes, node_rows) = ParseCache::read(&mut cache.nodes, &state.nodes, NODES_SOURCE, strict);
        let (workloads, _) = ParseCache::read(&mut cache.workloads, &state.workloads, WORKLOADS_SOURCE, strict);
        eval.strict_pending = cache.unchecked();
        eval.node_rows = node_rows;
        eval.misplaced = nodes.as_ref().map(|(m, _)| m.workloads.len()).unwrap_or(0)
            + workloads.as_ref().map(|(m, _)| m.nodes.len()).unwrap_or(0);
        let mut manifests = Manifests::default();
        for (result, editor) in [(nodes, Editor::Nodes), (workloads, Editor::Workloads)] {
            match result {
                Ok((m, findings)) => {
                    manifests.extend(m);
                    eval.input_warnings.extend(findings.iter().map(|f| EditorError::warning(editor, f)));
                }
                Err(errors) => {
                    eval.errors.extend(errors.iter().map(|e| place(state, editor, e)));
                    let text = if editor == Editor::Nodes { &state.nodes } else { &state.workloads };
                    let source = if editor == Editor::Nodes { NODES_SOURCE } else { WORKLOADS_SOURCE };
                    manifests.extend(readable_manifests(text, source));
                }
            }
        }
        let mut opts = SimulateOptions::for_release(manifests.release(given_version));
        opts.admission_defaults = state.admission_defaults;
        // The page re-evaluates on every edit: four re-checked fixes (each a whole
        // simulation again) rather than the CLI's sixteen.
        opts.max_fix_resimulations = PAGE_FIX_RESIMULATIONS;
        if !eval.errors.is_empty() {
            // The documents that did read are validated too: every invalid one gets its marker.
            if let Err(more) = placement_core::cluster::simulate::validate(&manifests, &opts) {
                for e in &more {
                    let editor = match e.doc().map(|d| d.source.as_str()) {
                        Some(NODES_SOURCE) => Editor::Nodes,
                        _ => Editor::Workloads,
                    };
                    eval.errors.push(place(state, editor, e));
                }
                // In the order of the text, as the editor lists them.
                eval.errors.sort_by_key(|e| e.line.unwrap_or(usize::MAX));
            }
            return eval;
        }
        let pool_label = PoolLabel::from_option(Some(&state.pool_label));
        let simulated = if state.what_if.is_empty() {
            simulate_unverified(&manifests, &opts).map(|r| (r, None, None)).map_err(WhatIfFailure::Input)
        } else {
            what_if(&manifests, &state.what_if, &opts, &pool_label)
        };
        let (report, after, what_if) = match simulated {
            Ok(r) => r,
            Err(failure) => {
                let errors = match failure {
                    WhatIfFailure::Input(errors) => errors,
                    // `what_if` runs the commands before a failing one instead.
                    WhatIfFailure::Command { .. } => Vec::new(),
                };
                for e in &errors {
                    let editor = match e.doc().map(|d| d.source.as_str()) {
                        Some(NODES_SOURCE) => Editor::Nodes,
                        _ => Editor::Workloads,
                    };
                    eval.errors.push(place(state, editor, e));
                }
                return eval;
            }
        };
        let shown = after.as_ref().unwrap_or(&manifests);
        let cfg = opts.scheduler_config();
        build_views(&mut eval, shown, &report, &cfg);
        let nodes = unique_nodes(shown);
        eval.pools = pools::pools(&nodes, &pool_label);
        eval.label_keys = pools::label_keys(&nodes);
        eval.what_if = what_if;
        eval.warnings = report.warnings.clone();
        eval.evictions = report.evictions.clone();
        // With what-if commands the fixes were re-checked with the commands' simulation.
        eval.fixes_pending = after.is_none() && report.workloads.iter().any(|w| !w.fixes.is_empty());
        eval.report = Some(report);
        eval.input = Some(Arc::new(SimInput { manifests: after.unwrap_or(manifests), opts, pool_label }));
        eval
    }

    /// True when the fixes are re-checked (or there is nothing to re-check).
    pub fn fixes_verified(&self) -> bool {
        !self.fixes_pending
    }

    /// The cluster the report is of, when the input was valid.
    pub fn input(&self) -> Option<&SimInput> {
        self.input.as_deref()
    }

    /// The plugin-by-plugin breakdown of a matrix cell: the input simulated again, recording
    /// the cycle the workload's verdicts come from ([`crate::breakdown::of_cell`]). `None` for
    /// a DaemonSet (each daemon pod is pinned to its node: no node is chosen among others) and
    /// when the workload had no such cycle.
    pub fn breakdown(&self, workload: usize, node: &str) -> Option<crate::breakdown::CellBreakdown> {
        let (input, w) = (self.input.as_deref()?, self.workloads.get(workload)?);
        if w.kind == WorkloadKind::DaemonSet.as_str() {
            return None;
        }
        let key = WorkloadKey { kind: w.kind.clone(), namespace: w.namespace.clone(), name: w.name.clone() };
        crate::breakdown::of_cell(&input.manifests, &input.opts, key, node)
    }

    /// This evaluation with its fixes re-checked by simulating again (what [`Evaluation::of`]
    /// returns); the same evaluation when they already are.
    pub fn with_verified_fixes(self) -> Evaluation {
        if !self.fixes_pending {
            return self;
        }
        let (Some(check), Some(mut report)) = (self.input.clone(), self.report.clone()) else { return self };
        verify_fixes(&check.manifests, &check.opts, &mut report);
        // The views hold the fixes (and which cells they reach): built again.
        let mut eval = Evaluation { workloads: Vec::new(), nodes: Vec::new(), fixes_pending: false, ..self };
        build_views(&mut eval, &check.manifests, &report, &check.opts.scheduler_config());
        eval.report = Some(report);
        eval
    }
}

/// The simulation after the `commands`: the report, the snapshot after them, and the panel's
/// view. A command that does not parse, or that kubectl would fail on, stops there: the
/// commands before it are applied, it is marked with the error, and those after it are not.
fn what_if(
    manifests: &Manifests,
    commands: &[String],
    opts: &SimulateOptions,
    pools: &PoolLabel,
) -> Result<(Report, Option<Manifests>, Option<WhatIfView>), WhatIfFailure> {
    let mut parsed = Vec::with_capacity(commands.len());
    let mut failed = None;
    for (i, text) in commands.iter().enumerate() {
        match text.parse::<WhatIf>() {
            Ok(c) => parsed.push(c),
            Err(e) => {
                failed = Some((i, e.to_string()));
                break;
            }
        }
    }
    let run = match run_what_if(manifests, &parsed, opts, pools) {
        Err(WhatIfFailure::Command { index, error, .. }) => {
            failed = Some((index, error.to_string()));
            run_what_if(manifests, parsed.get(..index).unwrap_or_default(), opts, pools)?
        }
        other => other?,
    };
    let view = run.report.changes.as_ref().map(|c| WhatIfView::new(commands, c, failed));
    Ok((run.report, Some(run.after), view))
}

/// The nodes of `m`, each name once (the first, as the simulation takes it).
fn unique_nodes(m: &Manifests) -> Vec<&Node> {
    let mut seen = std::collections::HashSet::new();
    m.nodes.iter().map(|(_, n)| &**n).filter(|n| seen.insert(n.metadata.name.as_str())).collect()
}

fn place(state: &SharedState, editor: Editor, error: &InputError) -> EditorError {
    let text = match editor {
        Editor::Nodes => &state.nodes,
        _ => &state.workloads,
    };
    let field = match error {
        InputError::Decode { field, .. } => Some(field.clone()),
        InputError::Invalid { error, .. } => Some(error.field.clone()),
        InputError::NotSet { fields, .. } => Some(fields.join(", ")),
        _ => None,
    };
    EditorError { editor, line: error_line(text, error), field, message: error.to_string(), severity: Severity::Error }
}

/// Where each report entry's workload is in the input: the controller (or bare pod) it is
/// reported under, by kind, namespace and name; `None` for a controller that is not in it.
fn sources<'m>(manifests: &'m Manifests, report: &Report) -> Vec<Option<(usize, &'m Workload)>> {
    let ownership = snapshot::resolve(manifests);
    let mut own: HashMap<(&str, &str, &str), usize> = HashMap::new();
    for (i, w) in manifests.workloads.iter().enumerate() {
        if ownership.role(i) == &Role::Own {
            own.entry((w.kind.as_str(), w.namespace.as_str(), w.name.as_str())).or_insert(i);
        }
    }
    report
        .workloads
        .iter()
        .map(|r| {
            if r.not_in_input {
                return None;
            }
            let i = *own.get(&(r.kind, r.namespace.as_str(), r.name.as_str()))?;
            manifests.workloads.get(i).map(|w| (i, &**w))
        })
        .collect()
}

/// Whether a pod of the report holds its node's resources: bound, and neither finished nor
/// deleted by its controller (a terminating pod still holds them).
fn holds_node(p: &PodReport) -> bool {
    p.node.is_some()
        && p.snapshot
            .as_ref()
            .is_none_or(|s| s.removed.is_none() && s.status != PodStatus::SUCCEEDED && s.status != PodStatus::FAILED)
}

fn build_views(eval: &mut Evaluation, manifests: &Manifests, report: &Report, cfg: &SchedulerConfig) {
    let nodes = unique_nodes(manifests);
    let node_names: Vec<&str> = nodes.iter().map(|n| n.metadata.name.as_str()).collect();
    let shared_names: Vec<Arc<str>> = node_names.iter().map(|n| Arc::from(*n)).collect();
    let mut requested: Vec<Resource> = vec![Resource::default(); node_names.len()];
    let mut pod_counts = vec![0usize; node_names.len()];
    // Cells are looked up by node name once per verdict, pod and fix: an index keeps that
    // linear in the cluster size rather than quadratic (foldhash: the names are the input's,
    // hashed 20,000 times for 1,000 nodes x 20 workloads).
    let positions: std::collections::HashMap<&str, usize, foldhash::fast::FixedState> =
        node_names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let index_of = |name: &str| positions.get(name).copied();
    // A pod's requests: the input's Pod when it is one (a snapshot's), else its controller's
    // template (or the ReplicaSet's or Job's its name starts with), computed once per spec.
    let input_pods: HashMap<(&str, &str), usize> = manifests
        .workloads
        .iter()
        .enumerate()
        .filter(|(_, w)| w.kind == WorkloadKind::Pod)
        .map(|(i, w)| ((w.namespace.as_str(), w.name.as_str()), i))
        .collect();
    let mut memo: HashMap<usize, Resource> = HashMap::new();
    let mut request_of = |i: usize| -> Resource {
        memo.entry(i)
            .or_insert_with(|| {
                let Some(w) = manifests.workloads.get(i) else { return Resource::default() };
                let mut spec: PodSpec = w.template.spec.clone();
                api_defaults(&mut spec, &cfg.gates);
                pod_request(&spec, cfg)
            })
            .clone()
    };

    for (r, source) in report.workloads.iter().zip(sources(manifests, report)) {
        let mut cells: Vec<Cell> = shared_names
            .iter()
            .map(|n| Cell {
                node: n.clone(),
                state: CellState::Unknown,
                plugin: None,
                reason: None,
                detail: None,
                score: None,
                pods: Vec::new(),
                volumes: Vec::new(),
                cannot_mount: Vec::new(),
                pods_cannot_mount: 0,
                fixes: Vec::new(),
                pending_verdicts: Vec::new(),
            })
            .collect();
        for (k, (name, v)) in r.nodes.iter().enumerate() {
            // A workload's node map lists the nodes in the cluster's order, as `node_names`.
            let Some(i) = (node_names.get(k) == Some(&name)).then_some(k).or_else(|| index_of(name)) else { continue };
            let c = &mut cells[i];
            c.state = if v.fits { CellState::Fits } else { CellState::Blocked };
            c.plugin = v.plugin;
            c.reason = v.reason.clone();
            c.detail = v.detail.clone();
            c.score = v.score;
        }
        for p in &r.pods {
            for (name, v) in p.nodes.iter().flat_map(|own| own.iter()) {
                if let Some(c) = index_of(name).and_then(|i| cells.get_mut(i)) {
                    c.pending_verdicts.push(pending_verdict(&p.name, v));
                }
            }
        }
        // Revisions (a Deployment's ReplicaSets, a CronJob's Jobs) whose names lead the names
        // of the pods they create.
        let revisions: Vec<usize> = source
            .map(|(si, w)| {
                manifests
                    .workloads
                    .iter()
                    .enumerate()
                    .filter(|(i, x)| {
                        *i != si
                            && x.kind != WorkloadKind::Pod
                            && x.namespace == w.namespace
                            && x.metadata.controller().is_some_and(|o| o.name == w.name)
                    })
                    .map(|(i, _)| i)
                    .collect()
            })
            .unwrap_or_default();
        for p in r.pods.iter().filter(|p| holds_node(p)) {
            let Some(i) = p.node.as_deref().and_then(index_of) else { continue };
            cells[i].pods.push(p.name.clone());
            cells[i].volumes.extend(p.claims.iter().map(|c| format!("{}: {c}", p.name)));
            cells[i].cannot_mount.extend(p.cannot_mount.iter().map(|c| format!("{} {}", p.name, c.text())));
            cells[i].pods_cannot_mount += usize::from(!p.cannot_mount.is_empty());
            if cells[i].state == CellState::Unknown {
                cells[i].state = CellState::Placed;
            }
            let spec_at = input_pods.get(&(r.namespace.as_str(), p.name.as_str())).copied().or_else(|| {
                revisions
                    .iter()
                    .copied()
                    .find(|&k| {
                        manifests.workloads.get(k).is_some_and(|x| {
                            p.name.strip_prefix(x.name.as_str()).is_some_and(|rest| rest.starts_with('-'))
                        })
                    })
                    .or(source.map(|(si, _)| si))
            });
            if let Some(k) = spec_at {
                requested[i].add(&request_of(k));
            }
            pod_counts[i] += 1;
        }
        for (fi, f) in r.fixes.iter().enumerate() {
            for n in &f.nodes {
                if let Some(i) = index_of(n) {
                    cells[i].fixes.push(fi);
                }
            }
        }
        eval.workloads.push(workload_view(r, source.map(|(_, w)| w), cells));
    }

    for (i, node) in nodes.iter().enumerate() {
        let alloc = node.status.allocatable.as_ref().map(Resource::from_list);
        let mut usage = Vec::new();
        let mut push = |resource: &str, used: i64, total: Option<i64>, fmt: &dyn Fn(i64) -> String| {
            let text = match total {
                Some(t) => format!("{} / {}", fmt(used), fmt(t)),
                None => format!("{} / unlimited", fmt(used)),
            };
            let percent = total.map(|t| {
                if t > 0 {
                    used as f64 * 100.0 / t as f64
                } else if used > 0 {
                    100.0
                } else {
                    0.0
                }
            });
            usage.push(Usage { resource: resource.to_string(), requested: used, allocatable: total, text, percent });
        };
        let plain = |v: i64| v.to_string();
        push(CPU, requested[i].milli_cpu, alloc.as_ref().map(|a| a.milli_cpu), &format_cpu);
        push(MEMORY, requested[i].memory, alloc.as_ref().map(|a| a.memory), &|b| {
            if b == 0 {
                "0".into()
            } else {
                format_bytes(b)
            }
        });
        push(PODS, pod_counts[i] as i64, alloc.as_ref().map(|a| a.allowed_pods), &plain);
        if let Some(a) = &alloc {
            for (name, total) in &a.scalar {
                push(name, requested[i].scalar.get(name).copied().unwrap_or(0), Some(*total), &plain);
            }
        }
        eval.nodes.push(NodeView {
            name: node.metadata.name.clone(),
            labels: node.metadata.labels.iter().map(|(k, v)| format!("{k}={v}")).collect(),
            taints: node.spec.taints.iter().map(|t| t.to_string()).collect(),
            cordoned: node.spec.unschedulable,
            usage,
            pods: pod_counts[i],
        });
    }
}

/// `db-3: NodeVolumeLimits: node(s) exceed max volume count (detail)`, or `db-3: fits`.
fn pending_verdict(pod: &str, v: &NodeReport) -> String {
    match (v.fits, &v.detail) {
        (true, None) => format!("{pod}: fits"),
        (true, Some(d)) => format!("{pod}: fits ({d})"),
        (false, _) => format!("{pod}: {}", blocked_text(v.plugin, v.reason.as_deref(), v.detail.as_deref())),
    }
}

/// `NodeVolumeLimits: node(s) exceed max volume count (detail)`: a blocked verdict as the
/// cell's title and the pending pods' lines write it.
fn blocked_text(plugin: Option<&str>, reason: Option<&str>, detail: Option<&str>) -> String {
    let mut s = format!("{}: {}", plugin.unwrap_or("blocked"), reason.unwrap_or(""));
    if let Some(d) = detail {
        s.push_str(&format!(" ({d})"));
    }
    s
}

fn workload_view(r: &WorkloadReport, source: Option<&Workload>, cells: Vec<Cell>) -> WorkloadView {
    let doc = source.map(|w| &w.doc);
    WorkloadView {
        kind: r.kind.to_string(),
        namespace: r.namespace.clone(),
        name: r.name.clone(),
        editor: if doc.is_some_and(|d| d.source == NODES_SOURCE) { Editor::Nodes } else { Editor::Workloads },
        doc_index: doc.map_or(0, |d| d.index),
        not_in_input: r.not_in_input,
        desired: r.desired,
        current: r.current,
        scheduled: r.scheduled,
        pending: r.pending,
        cells,
        pending_pods: r.pods.iter().filter(|p| p.node.is_none() && p.is_active()).cloned().collect(),
        pods: r
            .pods
            .iter()
            .map(|p| PodRow {
                name: p.name.clone(),
                node: p.node.clone(),
                status: p.status_text(),
                existing: p.snapshot.is_some(),
                claims: p.claims.iter().map(ToString::to_string).collect(),
                cannot_mount: p.cannot_mount.iter().map(|c| c.text()).collect(),
            })
            .collect(),
        fixes: if source.is_some() { r.fixes.clone() } else { Vec::new() },
        defaults: r.defaults.clone(),
    }
}

/// Applies fix `fix` of workload `workload` (indices into [`Evaluation::workloads`]) to the
/// state: the workload's document is patched in its editor's text.
pub fn apply_fix(
    state: &SharedState,
    eval: &Evaluation,
    workload: usize,
    fix: usize,
) -> Result<SharedState, ApplyError> {
    apply_fix_edited(state, eval, workload, fix).map(|(next, _)| next)
}

/// [`apply_fix`], with why the document was re-serialized rather than edited line by line.
pub fn apply_fix_edited(
    state: &SharedState,
    eval: &Evaluation,
    workload: usize,
    fix: usize,
) -> Result<(SharedState, Option<String>), ApplyError> {
    let w = eval.workloads.get(workload).filter(|w| !w.not_in_input).ok_or(ApplyError::NoPatch)?;
    let patch = w.fixes.get(fix).and_then(|f| f.patch.as_deref()).ok_or(ApplyError::NoPatch)?;
    let mut next = state.clone();
    let text = match w.editor {
        Editor::Nodes => &mut next.nodes,
        _ => &mut next.workloads,
    };
    let edited = apply_patch(text, w.doc_index, patch)?;
    *text = edited.text;
    Ok((next, edited.rewritten))
}

/// Moves Node documents to the nodes text and everything else to the workloads text,
/// keeping each document's own text.
pub fn sort_documents(state: &SharedState) -> SharedState {
    let (nodes_a, rest_a) = crate::gallery::split_nodes(&state.nodes);
    let (nodes_b, rest_b) = crate::gallery::split_nodes(&state.workloads);
    let join = |a: String, b: String| match (a.trim().is_empty(), b.trim().is_empty()) {
        (true, _) => b,
        (_, true) => a,
        _ => format!("{a}---\n{b}"),
    };
    SharedState { nodes: join(nodes_a, nodes_b), workloads: join(rest_b, rest_a), ..state.clone() }
}

/// A synthetic cluster for measuring: `nodes` nodes in four pools (one tainted, one
/// labelled for a nodeSelector) and `workloads` workloads of every common kind.
pub fn synthetic(nodes: usize, workloads: usize) -> SharedState {
    let mut n = String::new();
    for i in 0..nodes {
        let pool = i % 4;
        n.push_str(&format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: node-{i:03}\n  labels:\n    kubernetes.io/hostname: node-{i:03}\n    pool: p{pool}\n    topology.kubernetes.io/zone: zone-{}\n",
            i % 3
        ));
        if pool == 3 {
            n.push_str("spec:\n  taints:\n  - key: dedicated\n    value: batch\n    effect: NoSchedule\n");
        }
        n.push_str("status:\n  allocatable: {cpu: '8', memory: 32Gi, pods: '110'}\n---\n");
    }
    let mut w = String::new();
    for i in 0..workloads {
        let (kind, extra) = match i % 4 {
            0 => ("DaemonSet", String::new()),
            1 => ("Deployment", "  replicas: 10\n".to_string()),
            2 => ("StatefulSet", "  replicas: 3\n".to_string()),
            _ => ("Deployment", "  replicas: 4\n".to_string()),
        };
        let selector = if i % 4 == 3 {
            "      nodeSelector: {pool: p3}\n      tolerations:\n      - {key: dedicated, operator: Equal, value: batch, effect: NoSchedule}\n"
        } else {
            ""
        };
        w.push_str(&format!(
            "apiVersion: apps/v1\nkind: {kind}\nmetadata:\n  name: app-{i:02}\n  namespace: ns-{}\nspec:\n{extra}  selector:\n    matchLabels: {{app: app-{i:02}}}\n  template:\n    metadata:\n      labels: {{app: app-{i:02}}}\n    spec:\n{selector}      containers:\n      - name: main\n        image: example/app:1\n        resources:\n          requests: {{cpu: 100m, memory: 128Mi}}\n---\n",
            i % 5
        ));
    }
    SharedState { workloads: w, nodes: n, ..Default::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gallery;
    use placement_core::cluster::simulate::simulate;
    use placement_core::input::documents::parse_manifests;

    #[test]
    fn the_parse_cache_reads_only_a_changed_editor_and_gives_the_same_evaluation() {
        let mut cache = ParseCache::default();
        let mut state = synthetic(12, 4);
        // (edit, why)
        type Edit = fn(&mut SharedState);
        let edits: [(Edit, &str); 4] = [
            (|s| s.workloads = s.workloads.replacen("replicas: 10", "replicas: 11", 1), "a workloads edit"),
            (|s| s.nodes = s.nodes.replacen("cpu: '8'", "cpu: '2'", 1), "a nodes edit"),
            (|s| s.nodes.push_str("kind: [\n"), "a syntax error"),
            (|s| s.nodes.truncate(s.nodes.len() - "kind: [\n".len()), "fixed again"),
        ];
        for (edit, why) in edits {
            edit(&mut state);
            let cached = Evaluation::unverified_cached(&state, &mut cache);
            let fresh = Evaluation::unverified(&state);
            assert_eq!(format!("{:?}", cached.errors), format!("{:?}", fresh.errors), "{why}");
            assert_eq!(cached.node_rows, fresh.node_rows, "{why}");
            let cells = |e: &Evaluation| e.workloads.iter().map(|w| w.cells.clone()).collect::<Vec<_>>();
            assert_eq!(cells(&cached), cells(&fresh), "{why}");
            assert_eq!(cache.nodes.as_ref().unwrap().text, state.nodes, "{why}");
            assert_eq!(cache.workloads.as_ref().unwrap().text, state.workloads, "{why}");
        }
    }

    #[test]
    fn a_cell_ranks_among_the_feasible_nodes_by_score() {
        let cell = |node: &str, state, score| Cell {
            node: node.into(),
            state,
            plugin: None,
            reason: None,
            detail: None,
            score,
            pods: vec![],
            volumes: vec![],
            cannot_mount: vec![],
            pods_cannot_mount: 0,
            fixes: vec![],
            pending_verdicts: vec![],
        };
        let eval = Evaluation::of(&synthetic(1, 2));
        let mut w = eval.workloads[1].clone();
        assert_eq!(w.kind, "Deployment");
        w.cells = vec![
            cell("a", CellState::Fits, Some(50)),
            cell("b", CellState::Fits, Some(80)),
            cell("c", CellState::Fits, Some(50)),
            cell("d", CellState::Blocked, None),
        ];
        // (node, rank)
        let rows = [("b", Some((1, 3))), ("a", Some((2, 3))), ("c", Some((2, 3))), ("d", None), ("x", None)];
        for (node, want) in rows {
            assert_eq!(w.rank(node), want, "{node}");
        }
        w.kind = "DaemonSet".into();
        assert_eq!(w.rank("b"), None, "a DaemonSet's pods each have one node");
    }

    #[test]
    fn fixes_are_verified_after_the_verdicts_with_the_same_result() {
        // (example, fixes to re-check)
        let rows = [("daemonset-tainted-pool", true), ("gpu-pool", true), ("cluster-snapshot", true)];
        for (id, has_fixes) in rows {
            let (nodes, workloads) = gallery::find(id).unwrap().split();
            let state = SharedState { nodes, workloads, ..Default::default() };
            let first = Evaluation::unverified(&state);
            assert!(first.is_ok(), "{id}");
            assert_eq!(first.fixes_verified(), !has_fixes, "{id}");
            assert!(first.workloads.iter().flat_map(|w| &w.fixes).all(|f| !f.verified), "{id}: nothing verified yet");
            let verified = first.clone().with_verified_fixes();
            assert!(verified.fixes_verified(), "{id}");
            let whole = Evaluation::of(&state);
            let fixes = |e: &Evaluation| e.workloads.iter().map(|w| format!("{:?}", w.fixes)).collect::<Vec<_>>();
            let cells = |e: &Evaluation| e.workloads.iter().map(|w| w.cells.clone()).collect::<Vec<_>>();
            assert_eq!(fixes(&verified), fixes(&whole), "{id}");
            assert_eq!(cells(&verified), cells(&whole), "{id}");
            assert!(verified.workloads.iter().flat_map(|w| &w.fixes).any(|f| f.verified), "{id}: a fix verified");
            // The verdicts do not wait for the fixes.
            let verdicts = |e: &Evaluation| {
                e.workloads
                    .iter()
                    .map(|w| w.cells.iter().map(|c| (c.state, c.plugin)).collect::<Vec<_>>())
                    .collect::<Vec<_>>()
            };
            assert_eq!(verdicts(&first), verdicts(&whole), "{id}");
        }
    }

    #[test]
    fn every_invalid_document_gets_a_marker() {
        let workloads = "apiVersion: v1\nkind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, resources: {requests: {cpu: lots}}}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: ok}\nspec: {containers: [{name: c, image: i}]}\n---\napiVersion: v1\nkind: Pod\nmetadata: {name: b}\nspec:\n  containers:\n  - name: c\n    resources: {requests: {memory: much}}\n";
        let state = SharedState { workloads: workloads.into(), ..Default::default() };
        let eval = Evaluation::of(&state);
        let lines: Vec<Option<usize>> = eval.errors_in(Editor::Workloads).map(|e| e.line).collect();
        let at = |word: &str| workloads.lines().position(|l| l.contains(word)).map(|i| i + 1);
        assert_eq!(lines, [at("lots"), at("much")], "{:?}", eval.errors);
    }

    fn example_state(id: &str) -> SharedState {
        let (nodes, workloads) = gallery::find(id).unwrap().split();
        SharedState { workloads, nodes, ..Default::default() }
    }

    #[test]
    fn daemonset_example_view_and_fix() {
        let state = example_state("daemonset-tainted-pool");
        let eval = Evaluation::of(&state);
        assert!(eval.is_ok(), "{:?}", eval.errors);
        let w = &eval.workloads[0];
        assert_eq!((w.desired, w.current), (1, 1));
        assert_eq!(w.cells.len(), 2);
        assert_eq!(w.cells[0].state, CellState::Fits);
        assert_eq!(w.cells[0].pods.len(), 1);
        let blocked = &w.cells[1];
        assert_eq!(blocked.state, CellState::Blocked);
        assert_eq!(blocked.plugin, Some("TaintToleration"));
        assert!(blocked.detail.as_deref().unwrap().contains("testkey"));
        assert_eq!(blocked.fixes, vec![0, 1]);
        assert!(blocked.title().contains("untolerated taint {testkey: palotest}"));
        let cpu = &eval.nodes[0].usage[0];
        assert_eq!(cpu.text, "250m / 1900m");
        assert!((cpu.percent.unwrap() - 13.157).abs() < 0.01);
        assert_eq!(eval.node_rows.as_ref().unwrap()[1].taints, "testkey=palotest:NoSchedule");

        let next = apply_fix(&state, &eval, 0, 0).unwrap();
        assert_eq!(next.nodes, state.nodes);
        let eval = Evaluation::of(&next);
        assert_eq!((eval.workloads[0].desired, eval.workloads[0].current), (2, 2));
        assert!(eval.workloads[0].cells.iter().all(|c| c.state == CellState::Fits));
    }

    /// A StatefulSet's cells are its first replica's cycle; a pending replica with a claim of
    /// its own (postgres-1's disk is in us-east-1c) shows its own verdict on each node.
    #[test]
    fn a_pending_replica_shows_its_own_verdict_in_each_cell() {
        let eval = Evaluation::of(&example_state("statefulset-zonal-disks"));
        assert!(eval.is_ok(), "{:?}", eval.errors);
        let w = eval.workloads.iter().find(|w| w.name == "postgres").unwrap();
        let cell = |node: &str| w.cells.iter().find(|c| &*c.node == node).unwrap();
        let a = cell("ip-10-0-1-17.ec2.internal");
        assert_eq!(a.state, CellState::Fits, "postgres-0 went there");
        assert_eq!(a.pending_verdicts.len(), 1, "{:?}", a.pending_verdicts);
        assert!(
            a.pending_verdicts[0].starts_with(
                "postgres-1: VolumeBinding: node(s) had volume node affinity conflict (claim data-postgres-1 is bound to PersistentVolume"
            ),
            "{:?}",
            a.pending_verdicts
        );
        assert!(a.pending_verdicts[0].contains("us-east-1c"), "{:?}", a.pending_verdicts);
        assert!(a.title().contains("; pending postgres-1: VolumeBinding"), "{}", a.title());
        let c = cell("ip-10-0-3-88.ec2.internal");
        assert!(c.pending_verdicts[0].starts_with("postgres-1: NodeAffinity: "), "{:?}", c.pending_verdicts);
        // A workload whose pods all found a node has none.
        let ds = example_state("daemonset-tainted-pool");
        assert!(Evaluation::of(&ds).workloads.iter().flat_map(|w| &w.cells).all(|c| c.pending_verdicts.is_empty()));
    }

    /// Unknown and duplicate fields are warnings at their line, in their editor; the input is
    /// simulated anyway, as `kubectl apply --validate=warn` applies it.
    #[test]
    fn strict_findings_are_warnings_on_their_editor_line() {
        let mut state = example_state("daemonset-tainted-pool");
        assert!(Evaluation::of(&state).diagnostics_in(Editor::Workloads).next().is_none(), "the example is clean");
        state.workloads =
            state.workloads.replacen("      hostNetwork: true\n", "      hostNetwork: true\n      toleration: []\n", 1);
        state.nodes = state.nodes.replacen("  name: ", "  name: dup\n  name: ", 1);
        let eval = Evaluation::of(&state);
        assert!(eval.is_ok(), "{:?}", eval.errors);
        assert!(eval.report.is_some(), "simulated anyway");
        let at = |text: &str, word: &str| text.lines().position(|l| l.contains(word)).map(|i| i + 1);
        let w: Vec<&EditorError> = eval.diagnostics_in(Editor::Workloads).collect();
        assert_eq!(w.len(), 1, "{w:?}");
        assert_eq!(w[0].severity, Severity::Warning);
        assert_eq!(w[0].line, at(&state.workloads, "toleration:"));
        assert_eq!(w[0].field.as_deref(), Some("spec.template.spec.toleration"));
        assert!(
            w[0].message.contains("unknown field \"spec.template.spec.toleration\"; did you mean `tolerations`?"),
            "{}",
            w[0].message
        );
        assert!(w[0].message.starts_with("DaemonSet "), "names the document: {}", w[0].message);
        let n: Vec<&EditorError> = eval.diagnostics_in(Editor::Nodes).collect();
        assert_eq!(n.len(), 1, "{n:?}");
        assert_eq!((n[0].severity, n[0].field.as_deref()), (Severity::Warning, Some("metadata.name")));
        assert!(n[0].message.contains("duplicate field \"metadata.name\""), "{}", n[0].message);
        // The second `name:` is the one given twice.
        let dup = n[0].line.and_then(|l| state.nodes.lines().nth(l - 1)).map(str::trim);
        assert_eq!(dup, Some("name: aks-nodepool1-31415926-vmss000000"));
        assert_eq!(n[0].line.and_then(|l| state.nodes.lines().nth(l - 2)).map(str::trim), Some("name: dup"));
        // Errors come first and alone stop the simulation; warnings are not errors.
        assert_eq!(eval.errors_in(Editor::Workloads).count(), 0);
    }

    /// A document that does not read (no apiVersion) does not hide another's validation error.
    #[test]
    fn a_document_that_does_not_read_does_not_hide_the_others_errors() {
        let workloads = "kind: Pod\nmetadata: {name: a}\nspec: {containers: [{name: c, image: i}]}\n---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  template:\n    metadata: {labels: {app: web}}\n    spec: {containers: [{name: c, image: i}]}\n";
        let state = SharedState { workloads: workloads.into(), ..Default::default() };
        let eval = Evaluation::of(&state);
        let got: Vec<(Option<usize>, Option<&str>)> =
            eval.errors_in(Editor::Workloads).map(|e| (e.line, e.field.as_deref())).collect();
        assert_eq!(
            got,
            [
                (Some(1), Some("apiVersion")),
                (Some(8), Some("spec.selector")),
                (Some(10), Some("spec.template.metadata.labels")),
            ],
            "{:?}",
            eval.errors
        );
    }

    #[test]
    fn errors_land_on_their_editor_line() {
        let mut state = example_state("daemonset-tainted-pool");
        state.workloads =
            state.workloads.replace("memory: 512Mi}\n          limits", "memory: lots}\n          limits");
        let eval = Evaluation::of(&state);
        let e = eval.errors_in(Editor::Workloads).next().expect("an error");
        let line = e.line.unwrap();
        assert!(state.workloads.lines().nth(line - 1).unwrap().contains("lots"), "line {line}");
        assert!(e.field.as_deref().unwrap().ends_with("requests.memory"), "{e:?}");

        state = example_state("daemonset-tainted-pool");
        state.nodes = state.nodes.replace("effect: NoSchedule", "effect: Sometimes");
        let eval = Evaluation::of(&state);
        let e = eval.errors_in(Editor::Nodes).next().expect("an error");
        assert!(state.nodes.lines().nth(e.line.unwrap() - 1).unwrap().contains("Sometimes"), "{e:?}");

        state.kube_version = "banana".into();
        assert!(Evaluation::of(&state).errors_in(Editor::Options).next().is_some());
    }

    #[test]
    fn misplaced_documents_are_counted_and_sorted() {
        let e = gallery::find("daemonset-tainted-pool").unwrap();
        let state = SharedState { workloads: e.source.to_string(), ..Default::default() };
        let eval = Evaluation::of(&state);
        assert_eq!(eval.misplaced, 2);
        let sorted = sort_documents(&state);
        let eval2 = Evaluation::of(&sorted);
        assert_eq!(eval2.misplaced, 0);
        assert_eq!(eval2.nodes.len(), 2);
        assert_eq!(eval2.workloads[0].desired, eval.workloads[0].desired);
    }

    /// A pod with two claims its node cannot mount is one pod that cannot mount (the cell
    /// says how many pods), with both claims in its warnings.
    #[test]
    fn a_cell_counts_the_pods_that_cannot_mount() {
        let text = include_str!("../../tests/fixtures/snapshots/csi-node-plugin-skips-storage-pool.yaml").replace(
            "  volumeClaimTemplates:\n",
            "  volumeClaimTemplates:\n  - metadata: {name: logs}\n    spec:\n      accessModes: [ReadWriteOnce]\n      storageClassName: rook-ceph-block\n      resources: {requests: {storage: 1Gi}}\n",
        );
        let eval = Evaluation::of(&SharedState { workloads: text, ..Default::default() });
        assert!(eval.is_ok(), "{:?}", eval.errors);
        let db = eval.workloads.iter().find(|w| w.label() == "StatefulSet default/db").unwrap();
        let cell = db.cells.iter().find(|c| &*c.node == "storage-1").unwrap();
        assert_eq!((cell.pods.len(), cell.pods_cannot_mount, cell.cannot_mount.len()), (1, 1, 2), "{cell:#?}");
    }

    /// Without a release chosen, the page simulates the release the pasted Nodes' kubelets
    /// show, as the CLI does without `--kube-version`; a chosen one wins.
    #[test]
    fn the_release_comes_from_the_pasted_nodes_unless_chosen() {
        let text = include_str!("../../examples/cluster-snapshot.yaml").replace("v1.35.2", "v1.33.2");
        let release = |kube_version: &str| {
            let state =
                SharedState { workloads: text.clone(), kube_version: kube_version.into(), ..Default::default() };
            let eval = Evaluation::of(&state);
            assert!(eval.is_ok(), "{:?}", eval.errors);
            let report = eval.report.as_ref().unwrap();
            (report.kube_version.clone(), report.kube_version_note.is_some())
        };
        assert_eq!(release(""), ("1.33".to_string(), true));
        assert_eq!(release("1.35"), ("1.35".to_string(), false));
    }

    /// A whole `kubectl get nodes,pods,deploy,rs,ds -A -o yaml` pasted into either editor
    /// gives the CLI's report: the same counters, pods and statuses, the snapshot's
    /// controllers one row each (a controller not in the input gathers its pods).
    #[test]
    fn a_pasted_snapshot_reads_as_the_cli_reads_it() {
        let text = include_str!("../../examples/cluster-snapshot.yaml");
        let whole = parse_manifests(text, "snapshot").unwrap();
        let cli = simulate(&whole, &SimulateOptions::default()).unwrap();
        // (state, documents in the other editor: the 3 Nodes, or the 14 pods and controllers)
        for (state, misplaced) in [
            (SharedState { workloads: text.into(), ..Default::default() }, 3),
            (SharedState { nodes: text.into(), ..Default::default() }, 14),
        ] {
            let eval = Evaluation::of(&state);
            assert!(eval.is_ok(), "{:?}", eval.errors);
            assert_eq!(eval.misplaced, misplaced);
            assert_eq!(eval.workloads.len(), cli.workloads.len());
            for (w, r) in eval.workloads.iter().zip(&cli.workloads) {
                assert_eq!(
                    (w.label(), w.desired, w.current, w.scheduled, w.pending),
                    (format!("{} {}/{}", r.kind, r.namespace, r.name), r.desired, r.current, r.scheduled, r.pending)
                );
                let statuses: Vec<String> = r.pods.iter().map(|p| p.status_text()).collect();
                assert_eq!(w.pods.iter().map(|p| p.status.clone()).collect::<Vec<_>>(), statuses);
            }
            let rows: Vec<(String, String)> = eval.workloads.iter().map(|w| (w.label(), w.counters())).collect();
            assert_eq!(
                rows,
                [
                    (
                        "DaemonSet security/agent".to_string(),
                        "DESIRED 3 · CURRENT 3 · SCHEDULED 3 · PENDING 0".to_string()
                    ),
                    ("Deployment shop/web".into(), "DESIRED 3 · CURRENT 3 · SCHEDULED 3 · PENDING 0".into()),
                    ("Deployment shop/report".into(), "DESIRED 1 · CURRENT 1 · SCHEDULED 0 · PENDING 1".into()),
                    (
                        "ReplicaSet kube-system/coredns-659fcb8c7b".into(),
                        "DESIRED 2 · CURRENT 2 · SCHEDULED 2 · PENDING 0".into()
                    ),
                ]
            );
            // The web pods run where the snapshot has them; no cycle judged the nodes.
            let web = &eval.workloads[1];
            let cells: Vec<(CellState, usize)> = web.cells.iter().map(|c| (c.state, c.pods.len())).collect();
            assert_eq!(cells, [(CellState::Unknown, 0), (CellState::Placed, 2), (CellState::Placed, 1)]);
            assert!(web.pods.iter().all(|p| p.existing && p.status == "Running"));
            // The pending pod, with the scheduler's message, which the snapshot's agrees with.
            let groups = eval.pending_groups();
            assert_eq!(groups.len(), 1);
            assert_eq!(groups[0].pods, ["shop/report-5f8b9c7d4-zr6tn"]);
            assert!(groups[0]
                .message
                .starts_with("0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu."));
            assert!(groups[0].snapshot_messages.is_empty());
            // CoreDNS's ReplicaSet is not in the input: no document, no fixes.
            let dns = &eval.workloads[3];
            assert!(dns.not_in_input && dns.fixes.is_empty());
            // Capacity counts the running pods with their own requests: 2 web pods (500m)
            // and the agent (50m) on the first user node.
            assert_eq!(eval.nodes[1].usage[0].text, "1050m / 3860m");
            assert_eq!(eval.nodes[0].usage[2].text, "3 / 110", "agent and two CoreDNS pods");
            let pools: Vec<(&str, usize)> = eval.pools.iter().map(|p| (p.name.as_str(), p.nodes.len())).collect();
            assert_eq!(pools, [("system", 1), ("user", 2)]);
        }
    }

    /// The seed case: tainting the user pool NoExecute evicts the agent there (it tolerates
    /// only CriticalAddonsOnly) and the web pods, whose replacements cannot go anywhere.
    #[test]
    fn a_what_if_taint_on_the_user_pool_costs_the_agent_its_coverage() {
        use crate::what_if::CommandStatus;
        let mut state = example_state("cluster-snapshot");
        state.what_if = vec!["kubectl taint nodes -l agentpool=user dedicated=web:NoExecute".into()];
        let eval = Evaluation::of(&state);
        assert!(eval.is_ok(), "{:?}", eval.errors);
        let view = eval.what_if.as_ref().unwrap();
        assert_eq!(
            view.commands[0].status,
            CommandStatus::Applied {
                output: vec![
                    "node/aks-user-27182818-vmss000000 tainted".into(),
                    "node/aks-user-27182818-vmss000001 tainted".into()
                ],
                refused: None,
                notes: Vec::new()
            }
        );
        let coverage: Vec<(&str, &str, &str, &str, usize)> = view
            .coverage
            .iter()
            .map(|c| (c.daemon_set.as_str(), c.pool.as_str(), c.before.as_str(), c.after.as_str(), c.lost.len()))
            .collect();
        assert_eq!(coverage, [("security/agent", "user", "2/2", "0/2", 2)]);
        let evicted: Vec<(&str, &str)> = view.evicted.iter().map(|e| (e.pod.as_str(), e.cause.as_str())).collect();
        assert_eq!(evicted.len(), 5, "{evicted:?}");
        assert!(evicted.contains(&("security/agent-k9d4m", "taint dedicated=web:NoExecute")));
        assert_eq!(view.now_pending.len(), 3, "the web replacements find no node");
        assert!(view.now_pending[0].message.as_deref().unwrap().starts_with("0/3 nodes are available"));
        let web = view.workloads.iter().find(|w| w.workload == "Deployment shop/web").unwrap();
        assert_eq!(web.counters.map(|c| c.text()), ["3", "3", "3 → 0", "0 → 3"]);
        // The views are the cluster after: the taint is on the user nodes, the agent is gone
        // from them, and the pool view shows the taint.
        assert!(eval.nodes[1].taints.contains(&"dedicated=web:NoExecute".to_string()));
        assert_eq!(eval.workloads[0].counters(), "DESIRED 1 · CURRENT 1 · SCHEDULED 1 · PENDING 0");
        assert_eq!(eval.pools[1].nodes[0].taints, ["dedicated=web:NoExecute"]);
    }

    /// Drain then remove the user pool: the drain evicts the web pods (the agent's are
    /// skipped with --ignore-daemonsets), the removal costs the agent the pool, and the
    /// removed nodes leave the matrix.
    #[test]
    fn draining_and_removing_a_pool() {
        let mut state = example_state("cluster-snapshot");
        state.what_if = vec![
            "kubectl drain -l agentpool=user --ignore-daemonsets".into(),
            "kubectl delete nodes -l agentpool=user".into(),
        ];
        let eval = Evaluation::of(&state);
        let view = eval.what_if.as_ref().unwrap();
        let causes: Vec<&str> = view.evicted.iter().map(|e| e.cause.as_str()).collect();
        assert_eq!(causes, ["drain", "drain", "drain", "node deleted", "node deleted"]);
        assert_eq!(view.evicted[0].replaced_by, "Deployment shop/web");
        assert_eq!(view.coverage[0].after, "0/0");
        assert_eq!(eval.nodes.len(), 1);
        assert_eq!(eval.workloads[1].cells.len(), 1);
        assert_eq!(eval.pools.len(), 1);
    }

    #[test]
    fn a_tab_in_the_indentation_is_marked_at_its_line_and_named() {
        let nodes = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n  labels:\n  \tdisk: ssd\n";
        assert_eq!(tab_lines(nodes), [6]);
        assert_eq!(tab_lines("a: b\n"), Vec::<usize>::new());
        let eval = Evaluation::of(&SharedState { nodes: nodes.into(), ..Default::default() });
        let e = eval.errors_in(Editor::Nodes).next().expect("a syntax error");
        assert_eq!(e.line, Some(6), "{e:?}");
        assert!(e.message.contains("the character is a tab: YAML indentation must be spaces"), "{e:?}");
    }

    #[test]
    fn synthetic_cluster_evaluates() {
        let eval = Evaluation::of(&synthetic(20, 8));
        assert!(eval.is_ok(), "{:?}", eval.errors);
        assert_eq!(eval.nodes.len(), 20);
        assert_eq!(eval.workloads.len(), 8);
        assert_eq!(eval.workloads[0].desired, 15, "the DaemonSet skips the 5 tainted nodes");
    }
}
