//! The playground's state as a plain value with methods: the UI (`placement-web`) holds one
//! of these in a signal and calls methods from event handlers. No DOM here, so it is tested
//! with `cargo test` like any Rust.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::breakdown::CellBreakdown;
use crate::evaluation::{self, Editor, Evaluation};
use crate::export::{self, Download, ReportFormat};
use crate::gallery;
use crate::history::{diff_states, History, TextDiff};
use crate::matrix::{self, Column, MatrixFilter};
use crate::node_table::{self, NodeRow};
use crate::policy_panel::{self, PolicyVerdict, ReviewRequest, ReviewResponse, WorkloadVerdict};
use crate::pools::PoolAction;
use crate::prune;
use crate::share::{self, LinkSize, Route, SharedState};
use placement_core::cluster::what_if::WhatIf;

/// The example shown when the page opens without a link.
pub const DEFAULT_EXAMPLE: &str = "daemonset-tainted-pool";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum NodesView {
    #[default]
    Yaml,
    Table,
    /// The nodes by pool, with the pool actions (what-if commands).
    Pools,
}

/// Why the selected cell's breakdown is to be computed: the UI computes it at once for a new
/// selection and once typing pauses after an edit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakdownWanted {
    Now,
    AfterEdit,
}

/// The selected matrix cell: workload index and node name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    pub workload: usize,
    pub node: String,
}

/// A message for the status line (`role="status"`), and whether it is an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Notice {
    pub text: String,
    pub error: bool,
}

/// A state a link (`#s=…` or `#example=…`) holds that differs from the work saved in this
/// browser: shown only when the user asks for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    pub state: SharedState,
    pub example: Option<String>,
}

/// The localStorage key of the autosaved work.
pub const SAVE_KEY: &str = "placement-playground-work";

/// What is autosaved in this browser (never sent anywhere).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Saved {
    state: SharedState,
    #[serde(default)]
    example: Option<String>,
}

#[derive(Clone)]
pub struct Playground {
    pub state: SharedState,
    pub embed: bool,
    /// The evaluation of `state`.
    pub eval: Arc<Evaluation>,
    /// The last evaluation without errors, shown (dimmed) while the input has errors.
    pub last_good: Option<Arc<Evaluation>>,
    /// Milliseconds the last evaluation took (from the clock passed in), without the fixes'
    /// re-checks, and the last re-check of the fixes.
    pub eval_ms: f64,
    pub verify_ms: f64,
    /// Milliseconds the last [`Playground::check_input`] took.
    pub check_ms: f64,
    pub selected: Option<Selection>,
    /// The selected cell's breakdown (`None` inside: the cell has none, as a DaemonSet's),
    /// once computed for the evaluation shown ([`Playground::compute_breakdown`]).
    pub breakdown: Option<(Selection, Option<CellBreakdown>)>,
    /// The breakdown was dropped by an edit (not by a new selection): the UI recomputes it
    /// once typing pauses rather than after every keystroke.
    breakdown_after_edit: bool,
    pub nodes_view: NodesView,
    pub notice: Option<Notice>,
    /// The example last loaded, for the gallery.
    pub example: Option<String>,
    /// A table edit that could not be written back.
    pub row_error: Option<String>,
    /// The admission panel: the workload whose response is shown (index into the workloads
    /// shown), the settings JSON (`None`: the defaults for the current nodes) and the last
    /// verdicts, one per workload. The pasted Gatekeeper policies are in `state`, so that
    /// share links carry them.
    pub policy_workload: usize,
    pub policy_settings: Option<String>,
    pub policy_result: Option<Result<Vec<WorkloadVerdict>, String>>,
    /// The number of the last policy run asked for; an answer to an older one is dropped.
    pub policy_run: u64,
    /// A policy run is on its way (the admission module may still be loading).
    pub policy_pending: bool,
    /// The input and the hand-edited settings (`None`: the defaults, which follow from the
    /// input) the last policy run was asked for: its verdicts are stale once either changes.
    /// Comparing these needs no copy of the default settings (a JSON copy of every node).
    policy_ran_on: Option<(SharedState, Option<String>)>,
    /// Which page of node columns the matrix shows (see [`MATRIX_PAGE_NODES`]).
    pub matrix_page: usize,
    /// The matrix's filter and grouping.
    pub matrix_filter: MatrixFilter,
    /// Undo and redo of every edit.
    pub history: History,
    /// The lines the last whole-text edit (Apply, node table, undo) changed.
    pub diffs: Vec<TextDiff>,
    /// The node table's rows as typed, kept while one of them cannot be written back, so
    /// that a bad cell keeps its text.
    pub node_draft: Option<Vec<NodeRow>>,
    /// A link's state waiting for the user's answer (open it, or keep the local work).
    pub conflict: Option<Conflict>,
    /// The editors' texts as last read: an edit reads only the editor it changed.
    parsed: evaluation::ParseCache,
    clock: fn() -> f64,
    /// Evaluations an edit replaced, freed by [`Playground::drop_retired`] once the edit's
    /// frame is drawn rather than before it (at 1,000 nodes freeing one took 3.8 ms of a
    /// keystroke's 57 in Chromium's profile).
    retired: Vec<Arc<Evaluation>>,
    /// [`Playground::matrix_all_columns`] of the evaluation shown, for the filter set.
    columns: ColumnsCache,
}

/// The matrix's columns for one evaluation and filter: the matrix and its pager read them
/// several times per redraw, and grouping them (each node's look in every row) at 1,000
/// nodes took 4 ms a time. Holding the evaluation keeps its address from being reused.
#[derive(Default)]
struct ColumnsCache(std::sync::Mutex<Option<CachedColumns>>);

/// The evaluation and filter columns were computed for, and the columns.
type CachedColumns = (Arc<Evaluation>, MatrixFilter, Arc<[Column]>);

impl Clone for ColumnsCache {
    /// A copy computes its own.
    fn clone(&self) -> Self {
        ColumnsCache::default()
    }
}

/// More retired evaluations than this (no frame has dropped them: tests, or a burst of edits
/// between two frames) are dropped at once.
const MAX_RETIRED: usize = 4;

/// The matrix shows this many node columns at a time. Every cell is a button with its verdict
/// as hover text; with 200 nodes x 20 workloads, the browser's layout and paint of all 4,000
/// of them cost several times the evaluation on every edit, so larger clusters are paged.
pub const MATRIX_PAGE_NODES: usize = 24;

/// The most text [`Playground::open_files`] reads at once (the CLI reads any size; a page
/// holds its text in editors and links).
pub const MAX_OPEN_BYTES: usize = 32 * 1024 * 1024;

fn no_clock() -> f64 {
    0.0
}

impl Playground {
    /// A playground on `state`; `clock` returns milliseconds (`performance.now`).
    pub fn new(state: SharedState, clock: Option<fn() -> f64>) -> Self {
        let mut p = Playground {
            state,
            embed: false,
            eval: Arc::new(Evaluation::default()),
            last_good: None,
            eval_ms: 0.0,
            verify_ms: 0.0,
            check_ms: 0.0,
            selected: None,
            breakdown: None,
            breakdown_after_edit: false,
            nodes_view: NodesView::Yaml,
            notice: None,
            example: None,
            row_error: None,
            policy_workload: 0,
            policy_settings: None,
            policy_result: None,
            policy_run: 0,
            policy_pending: false,
            policy_ran_on: None,
            matrix_page: 0,
            matrix_filter: MatrixFilter::default(),
            history: History::default(),
            diffs: Vec::new(),
            node_draft: None,
            conflict: None,
            parsed: evaluation::ParseCache::default(),
            clock: clock.unwrap_or(no_clock),
            retired: Vec::new(),
            columns: ColumnsCache::default(),
        };
        p.reevaluate();
        p
    }

    /// The playground a URL opens: the shared state of `#s=…`, else `#example=…`, else the
    /// default example. A damaged link opens the default example with a notice.
    pub fn from_route(route: &Route, clock: Option<fn() -> f64>) -> Self {
        let mut notice = None;
        let mut p = match route.state.as_deref().map(share::decode) {
            Some(Ok(state)) => Playground::new(state, clock),
            other => {
                if let Some(Err(e)) = other {
                    notice = Some(Notice { text: format!("Could not open the shared link: {e}"), error: true });
                }
                let id = route.example.as_deref().filter(|id| gallery::find(id).is_some()).unwrap_or(DEFAULT_EXAMPLE);
                let mut p = Playground::new(SharedState::default(), clock);
                p.load_example(id);
                p
            }
        };
        p.embed = route.embed;
        p.notice = notice;
        // Opening is not an edit to undo.
        p.history = History::default();
        p
    }

    /// The playground a page opens: the work autosaved in this browser (`saved`, the JSON of
    /// [`Playground::saved_json`]) unless the URL holds a link; a link whose state differs
    /// from the saved work does not replace it but waits in [`Playground::conflict`] for the
    /// user's answer. The embedded view only shows its link.
    pub fn open(route: &Route, saved: Option<&str>, clock: Option<fn() -> f64>) -> Self {
        // From bytes, as share links are read: one JSON reader in the page, not two.
        let saved = saved.and_then(|s| serde_json::from_slice::<Saved>(s.as_bytes()).ok());
        let Some(saved) = saved.filter(|_| !route.embed) else { return Playground::from_route(route, clock) };
        let mut p = Playground::new(saved.state, clock);
        p.example = saved.example;
        if route.state.is_some() || route.example.is_some() {
            p.offer_link(route);
        } else {
            p.notice = Some(Notice { text: "Restored your work saved in this browser.".into(), error: false });
        }
        p
    }

    /// A link opened over the current work: nothing to ask when it holds the same state.
    pub fn offer_link(&mut self, route: &Route) {
        let linked = Playground::from_route(&Route { embed: false, ..route.clone() }, None);
        if linked.notice.as_ref().is_some_and(|n| n.error) {
            self.notice = linked.notice;
        } else if linked.state != self.state {
            self.conflict = Some(Conflict { state: linked.state, example: linked.example });
        }
    }

    /// Opens the link's state (the local work it replaces stays one undo away).
    pub fn open_conflict(&mut self) {
        if let Some(c) = self.conflict.take() {
            self.replace_state(c.state, "open the shared state", None);
            self.diffs.clear();
            self.example = c.example;
            self.notice =
                Some(Notice { text: "Opened the shared state. Undo brings your work back.".into(), error: false });
        }
    }

    /// Keeps the local work and forgets the link's state.
    pub fn keep_local(&mut self) {
        if self.conflict.take().is_some() {
            self.notice = Some(Notice { text: "Kept your work; the link was not opened.".into(), error: false });
        }
    }

    /// The work to autosave, as JSON for `localStorage[SAVE_KEY]`.
    pub fn saved_json(&self) -> String {
        serde_json::to_string(&Saved { state: self.state.clone(), example: self.example.clone() }).unwrap_or_default()
    }

    /// Replaces the state as one undoable step, and keeps the diff of the texts.
    fn replace_state(&mut self, next: SharedState, label: &str, rewritten: Option<String>) {
        self.history.record(&self.state, label, None);
        self.diffs = diff_states(&self.state, &next, rewritten);
        self.state = next;
        self.node_draft = None;
        self.row_error = None;
        self.reevaluate();
    }

    /// Records the state before an edit that is not a whole-text replacement.
    fn record(&mut self, label: &str) {
        self.history.record(&self.state, label, None);
    }

    /// Undoes the last edit; false when there is none.
    pub fn undo(&mut self) -> bool {
        match self.history.undo(self.state.clone()) {
            Some((state, label)) => self.restore(state, format!("Undid: {label}.")),
            None => false,
        }
    }

    /// Redoes the last undone edit; false when there is none.
    pub fn redo(&mut self) -> bool {
        match self.history.redo(self.state.clone()) {
            Some((state, label)) => self.restore(state, format!("Redid: {label}.")),
            None => false,
        }
    }

    fn restore(&mut self, state: SharedState, text: String) -> bool {
        self.diffs = diff_states(&self.state, &state, None);
        self.state = state;
        self.node_draft = None;
        self.row_error = None;
        self.reevaluate();
        self.notice = Some(Notice { text, error: false });
        true
    }

    /// Evaluates the state, without re-checking the fixes: the UI calls
    /// [`Playground::verify_fixes`] after the frame (see [`Evaluation::unverified`]).
    pub fn reevaluate(&mut self) {
        let start = (self.clock)();
        let eval = Arc::new(evaluation::Evaluation::unverified_cached(&self.state, &mut self.parsed));
        self.eval_ms = (self.clock)() - start;
        if eval.is_ok() {
            self.set_last_good(eval.clone());
        }
        self.set_eval(eval);
        self.breakdown = None;
        self.breakdown_after_edit = true;
        // Keep the selection only while it still names a cell.
        if let Some(sel) = &self.selected {
            let shown = self.shown();
            let still = shown.workloads.get(sel.workload).is_some_and(|w| w.cells.iter().any(|c| *c.node == *sel.node));
            if !still {
                self.selected = None;
            }
        }
    }

    /// True while the strict checks of the edited text (unknown and duplicate fields,
    /// mistyped kinds) have not run: [`Playground::check_input`] runs them after the frame.
    pub fn input_pending(&self) -> bool {
        self.eval.strict_pending()
    }

    /// [`Playground::input_pending`] for one editor.
    pub fn input_pending_in(&self, editor: Editor) -> bool {
        self.input_pending() && self.parsed.unchecked_in(editor)
    }

    /// Runs the strict checks an edit left for after the frame; returns whether there was
    /// anything to do. Their warnings join the evaluation; a mistyped kind (an error, as
    /// kubectl refuses it) evaluates the input again.
    pub fn check_input(&mut self) -> bool {
        if !self.input_pending() {
            return false;
        }
        let start = (self.clock)();
        let refused = self.parsed.check();
        if refused || !self.eval.is_ok() {
            self.reevaluate();
        } else {
            let eval = Arc::new(self.eval.with_checked_warnings(&self.parsed));
            self.set_last_good(eval.clone());
            self.set_eval(eval);
        }
        self.check_ms = (self.clock)() - start;
        true
    }

    /// True while the fixes shown are not re-checked yet (they are offered, none verified).
    pub fn fixes_pending(&self) -> bool {
        !self.shown().fixes_verified()
    }

    /// Re-checks the fixes of the evaluation shown by simulating with each applied; returns
    /// whether there was anything to do. The verdicts stay as they are.
    pub fn verify_fixes(&mut self) -> bool {
        if !self.fixes_pending() {
            return false;
        }
        let start = (self.clock)();
        let verified = Arc::new(self.shown().clone().with_verified_fixes());
        self.verify_ms = (self.clock)() - start;
        if self.eval.is_ok() {
            self.set_eval(verified.clone());
        }
        self.set_last_good(verified);
        true
    }

    /// Replaces the evaluation; the old one waits for [`Playground::drop_retired`].
    fn set_eval(&mut self, eval: Arc<Evaluation>) {
        let old = std::mem::replace(&mut self.eval, eval);
        self.retire(old);
    }

    /// Replaces the last good evaluation; the old one waits for [`Playground::drop_retired`].
    fn set_last_good(&mut self, eval: Arc<Evaluation>) {
        if let Some(old) = self.last_good.replace(eval) {
            self.retire(old);
        }
    }

    /// Keeps a replaced evaluation for [`Playground::drop_retired`].
    fn retire(&mut self, old: Arc<Evaluation>) {
        self.retired.push(old);
        if self.retired.len() > MAX_RETIRED {
            self.retired.drain(..self.retired.len() - MAX_RETIRED);
        }
    }

    /// Whether replaced evaluations wait for [`Playground::drop_retired`].
    pub fn has_retired(&self) -> bool {
        !self.retired.is_empty()
    }

    /// Frees the evaluations edits replaced (the UI calls this after the edit's frame).
    pub fn drop_retired(&mut self) {
        self.retired.clear();
    }

    /// What the results show: the current evaluation, or the last good one while the input
    /// has errors.
    pub fn shown(&self) -> &Evaluation {
        self.shown_shared()
    }

    /// [`Playground::shown`] as shared (a view that keeps it does not copy it).
    pub fn shown_shared(&self) -> &Arc<Evaluation> {
        if self.eval.is_ok() {
            &self.eval
        } else {
            self.last_good.as_ref().unwrap_or(&self.eval)
        }
    }

    /// True when the results are from an earlier, valid input.
    pub fn stale(&self) -> bool {
        !self.eval.is_ok()
    }

    pub fn set_workloads(&mut self, text: String) {
        if self.state.workloads != text {
            self.history.record(&self.state, "typing in Workloads", Some(Editor::Workloads));
            self.diffs.clear();
            self.state.workloads = text;
            self.reevaluate();
        }
    }

    pub fn set_nodes(&mut self, text: String) {
        if self.state.nodes != text {
            self.history.record(&self.state, "typing in Nodes", Some(Editor::Nodes));
            self.diffs.clear();
            self.state.nodes = text;
            self.row_error = None;
            self.node_draft = None;
            self.reevaluate();
        }
    }

    pub fn set_kube_version(&mut self, v: String) {
        self.record("Kubernetes version");
        self.state.kube_version = v;
        self.reevaluate();
    }

    pub fn set_admission_defaults(&mut self, on: bool) {
        self.record("admission defaults");
        self.state.admission_defaults = on;
        self.reevaluate();
    }

    pub fn load_example(&mut self, id: &str) -> bool {
        let Some(e) = gallery::find(id) else { return false };
        let (nodes, workloads) = e.split();
        self.record("load an example");
        self.diffs.clear();
        self.node_draft = None;
        self.conflict = None;
        self.state.nodes = nodes;
        self.state.workloads = workloads;
        // The pending commands and the pool label were for the other cluster.
        self.state.what_if.clear();
        self.state.pool_label.clear();
        self.example = Some(id.to_string());
        self.selected = None;
        self.row_error = None;
        if let Some(old) = self.last_good.take() {
            self.retire(old);
        }
        self.reevaluate();
        self.notice = Some(Notice { text: format!("Loaded the example “{}”.", e.title), error: false });
        true
    }

    /// Applies fix `fix` of workload `workload` to the manifest text.
    pub fn apply_fix(&mut self, workload: usize, fix: usize) -> Result<(), String> {
        // Fixes are numbered as the verified list has them (only verified fixes are applied).
        self.verify_fixes();
        let eval = self.shown().clone();
        let desc = eval.workloads.get(workload).and_then(|w| w.fixes.get(fix)).map(|f| f.description.clone());
        match evaluation::apply_fix_edited(&self.state, &eval, workload, fix) {
            Ok((next, rewritten)) => {
                let how = match &rewritten {
                    None => String::new(),
                    Some(why) => format!(" The document was rewritten whole ({why}): its comments and layout are gone; Undo brings them back."),
                };
                self.replace_state(next, "Apply the fix", rewritten);
                let w = self.shown().workloads.get(workload);
                let summary = w.map(|w| {
                    format!(" {}: DESIRED {}, CURRENT {}, SCHEDULED {}.", w.label(), w.desired, w.current, w.scheduled)
                });
                self.notice = Some(Notice {
                    text: format!(
                        "Applied the fix ({}).{}{how}",
                        desc.unwrap_or_default(),
                        summary.unwrap_or_default()
                    ),
                    error: false,
                });
                Ok(())
            }
            Err(e) => {
                let text = format!("Could not apply the fix: {e}");
                self.notice = Some(Notice { text: text.clone(), error: true });
                Err(text)
            }
        }
    }

    /// Opens files (picked or dropped: name and text) in place of the editors' texts, as one
    /// undoable step: Node documents go to the nodes editor, the rest to the workloads editor.
    pub fn open_files(&mut self, files: &[(String, String)]) -> Result<(), String> {
        let total: usize = files.iter().map(|(_, t)| t.len()).sum();
        let names = files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>().join(", ");
        let refuse = |why: String| Err(format!("Could not open {names}: {why}"));
        let outcome = if files.is_empty() {
            Err("no file to open".to_string())
        } else if total > MAX_OPEN_BYTES {
            refuse(format!("{total} bytes in all, more than the {MAX_OPEN_BYTES} the page reads"))
        } else if let Some((name, _)) = files.iter().find(|(_, t)| t.contains('\0')) {
            refuse(format!("{name} is not text"))
        } else {
            let mut joined = String::with_capacity(total + 8 * files.len());
            for (_, text) in files {
                if !joined.is_empty() {
                    if !joined.ends_with('\n') {
                        joined.push('\n');
                    }
                    joined.push_str("---\n");
                }
                joined.push_str(text);
            }
            let opened = SharedState { workloads: joined, nodes: String::new(), ..self.state.clone() };
            // The pending commands and the pool label were for the other cluster.
            let next =
                SharedState { what_if: Vec::new(), pool_label: String::new(), ..evaluation::sort_documents(&opened) };
            self.replace_state(next, "open files", None);
            self.diffs.clear();
            self.example = None;
            self.selected = None;
            Ok(())
        };
        self.notice = Some(match &outcome {
            Ok(()) => Notice {
                text: format!(
                    "Opened {names}: {} nodes, {} workloads. Undo brings back what was here.",
                    self.shown().nodes.len(),
                    self.shown().workloads.len()
                ),
                error: false,
            },
            Err(e) => Notice { text: e.clone(), error: true },
        });
        outcome
    }

    /// The report to download, as the CLI writes it (the fixes re-checked first).
    pub fn report_download(&mut self, format: ReportFormat) -> Result<Download, String> {
        self.verify_fixes();
        export::report(&self.eval, format).map_err(|e| format!("Could not download the report: {e}"))
    }

    /// A fix's patch to download (numbered as the verified fixes are).
    pub fn fix_download(&mut self, workload: usize, fix: usize) -> Result<Download, String> {
        self.verify_fixes();
        export::fix_patch(self.shown(), workload, fix).map_err(|e| format!("Could not download the patch: {e}"))
    }

    pub fn select(&mut self, workload: usize, node: &str) {
        self.selected = Some(Selection { workload, node: node.to_string() });
        self.breakdown_after_edit = false;
    }

    /// Whether the selected cell's breakdown is still to compute, and if so whether an edit
    /// (rather than a new selection) dropped it.
    pub fn breakdown_wanted(&self) -> Option<BreakdownWanted> {
        let sel = self.selected.as_ref()?;
        if self.breakdown.as_ref().is_some_and(|(s, _)| s == sel) {
            return None;
        }
        Some(if self.breakdown_after_edit { BreakdownWanted::AfterEdit } else { BreakdownWanted::Now })
    }

    /// Computes the selected cell's breakdown (a simulation: the UI calls it after the frame);
    /// returns whether there was anything to do.
    pub fn compute_breakdown(&mut self) -> bool {
        if self.breakdown_wanted().is_none() {
            return false;
        }
        let Some(sel) = self.selected.clone() else { return false };
        let breakdown = self.shown().breakdown(sel.workload, &sel.node);
        self.breakdown = Some((sel, breakdown));
        true
    }

    /// The selected cell's breakdown, when computed.
    pub fn selected_breakdown(&self) -> Option<&CellBreakdown> {
        let (sel, b) = self.breakdown.as_ref()?;
        (self.selected.as_ref() == Some(sel)).then_some(b.as_ref()).flatten()
    }

    /// Every column the matrix's filter keeps, grouped by pool, before paging (computed once
    /// for the evaluation shown and the filter).
    pub fn matrix_all_columns(&self) -> Arc<[Column]> {
        let shown = self.shown_shared();
        let mut cache = self.columns.0.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some((eval, filter, columns)) = cache.as_ref() {
            if Arc::ptr_eq(eval, shown) && *filter == self.matrix_filter {
                return Arc::clone(columns);
            }
        }
        let columns: Arc<[Column]> = matrix::columns(shown, &self.matrix_filter).into();
        *cache = Some((Arc::clone(shown), self.matrix_filter.clone(), Arc::clone(&columns)));
        columns
    }

    /// How many pages of node columns the matrix has (at least one).
    pub fn matrix_pages(&self) -> usize {
        self.matrix_all_columns().len().div_ceil(MATRIX_PAGE_NODES).max(1)
    }

    /// Sets the matrix's filter; the first page of what it keeps is shown.
    pub fn set_matrix_filter(&mut self, filter: MatrixFilter) {
        self.matrix_filter = filter;
        self.matrix_page = 0;
    }

    /// The page of node columns shown: the one asked for, or the last one when the cluster
    /// has shrunk below it.
    pub fn matrix_page_shown(&self) -> usize {
        self.matrix_page.min(self.matrix_pages() - 1)
    }

    /// The node columns the matrix shows (the page shown), and their place among all the
    /// filter keeps.
    pub fn matrix_columns(&self) -> (std::ops::Range<usize>, Vec<Column>) {
        let all = self.matrix_all_columns();
        let n = all.len();
        let page = self.matrix_page.min(n.div_ceil(MATRIX_PAGE_NODES).max(1) - 1);
        let range = (page * MATRIX_PAGE_NODES).min(n)..((page + 1) * MATRIX_PAGE_NODES).min(n);
        (range.clone(), all[range].to_vec())
    }

    /// Shows page `page` of the node columns (clamped to the pages there are).
    pub fn set_matrix_page(&mut self, page: usize) {
        self.matrix_page = page.min(self.matrix_pages() - 1);
    }

    /// The node table's rows: as typed while one cannot be written back, else from the
    /// current nodes text, or the last good one.
    pub fn node_rows(&self) -> Vec<NodeRow> {
        if let Some(draft) = &self.node_draft {
            return draft.clone();
        }
        self.eval
            .node_rows
            .as_deref()
            .or_else(|| self.last_good.as_ref().and_then(|e| e.node_rows.as_deref()))
            .map(<[NodeRow]>::to_vec)
            .unwrap_or_default()
    }

    /// Writes table rows back into the nodes text.
    pub fn set_node_rows(&mut self, rows: &[NodeRow]) {
        match node_table::apply_rows(&self.state.nodes, rows) {
            Ok(edited) if edited.text == self.state.nodes => {
                self.row_error = None;
                self.node_draft = None;
            }
            Ok(edited) => {
                let next = SharedState { nodes: edited.text, ..self.state.clone() };
                if let Some(why) = &edited.rewritten {
                    self.notice = Some(Notice {
                        text: format!("The nodes text was rewritten whole ({why}); Undo brings it back."),
                        error: false,
                    });
                }
                self.replace_state(next, "edit the node table", edited.rewritten);
            }
            Err(e) => {
                self.row_error = Some(e.to_string());
                self.node_draft = Some(rows.to_vec());
            }
        }
    }

    /// Edits one cell of the node table (`column`: name, labels, taints, allocatable,
    /// cordoned).
    pub fn edit_node_cell(&mut self, row: usize, column: &str, value: &str) {
        let mut rows = self.node_rows();
        if row >= rows.len() {
            return;
        }
        let r = &mut rows[row];
        match column {
            "name" => r.name = value.to_string(),
            "labels" => r.labels = value.to_string(),
            "taints" => r.taints = value.to_string(),
            "allocatable" => r.allocatable = value.to_string(),
            "cordoned" => r.cordoned = value == "true",
            _ => return,
        }
        self.set_node_rows(&rows);
    }

    pub fn add_node_row(&mut self) {
        let mut rows = self.node_rows();
        let name = (rows.len() + 1..).map(|i| format!("node-{i}")).find(|n| !rows.iter().any(|r| &r.name == n));
        rows.push(NodeRow {
            name: name.unwrap_or_default(),
            labels: String::new(),
            taints: String::new(),
            allocatable: "cpu=4, memory=16Gi, pods=110".into(),
            cordoned: false,
        });
        self.set_node_rows(&rows);
    }

    pub fn remove_node_row(&mut self, row: usize) {
        let mut rows = self.node_rows();
        if row < rows.len() {
            rows.remove(row);
            self.set_node_rows(&rows);
        }
    }

    /// True when the nodes text is `kubectl describe node` output, not YAML.
    pub fn nodes_look_like_describe(&self) -> bool {
        node_table::looks_like_describe(&self.state.nodes)
    }

    pub fn convert_describe(&mut self) {
        match node_table::describe_to_yaml(&self.state.nodes) {
            Ok(yaml) => {
                let next = SharedState { nodes: yaml, ..self.state.clone() };
                self.replace_state(next, "convert kubectl describe", None);
                self.notice = Some(Notice {
                    text: "Converted `kubectl describe node` output to Node YAML.".into(),
                    error: false,
                });
            }
            Err(e) => self.notice = Some(Notice { text: e.to_string(), error: true }),
        }
    }

    /// Moves Node documents to the nodes editor and the rest to the workloads editor.
    pub fn sort_documents(&mut self) {
        let next = evaluation::sort_documents(&self.state);
        self.replace_state(next, "move the documents", None);
        self.notice = Some(Notice { text: "Moved the documents to their editors.".into(), error: false });
    }

    /// Adds a what-if command typed as kubectl takes it (`kubectl cordon node-1`,
    /// `add-nodes 2 like node-1`), in its canonical form; `Err` with kubectl's (or
    /// Placement's) words when it is not one Placement reads.
    pub fn add_what_if(&mut self, text: &str) -> Result<(), String> {
        let command = text.trim().parse::<WhatIf>().map_err(|e| e.to_string())?;
        self.push_what_if(command);
        Ok(())
    }

    /// Adds the command of `action` on pool `pool` (by name, among the pools shown).
    pub fn add_pool_command(&mut self, pool: &str, action: &PoolAction) -> Result<(), String> {
        let result = self
            .shown()
            .pools
            .iter()
            .find(|p| p.name == pool)
            .ok_or_else(|| format!("no pool {pool:?}"))
            .and_then(|p| p.command(action));
        match result {
            Ok(command) => {
                self.push_what_if(command);
                Ok(())
            }
            Err(e) => {
                self.notice = Some(Notice { text: format!("Pool {pool}: {e}"), error: true });
                Err(e)
            }
        }
    }

    fn push_what_if(&mut self, command: WhatIf) {
        let text = command.to_string();
        self.record("what-if command");
        self.state.what_if.push(text.clone());
        self.reevaluate();
        let index = self.state.what_if.len() - 1;
        let failed = self.eval.what_if.as_ref().and_then(|w| w.failure()).filter(|(i, _)| *i == index);
        self.notice = Some(match failed {
            Some((_, why)) => Notice { text: format!("`{text}` fails: {why}"), error: true },
            None => Notice {
                text: format!("Added the what-if command `{text}`: the results show the cluster after it."),
                error: false,
            },
        });
    }

    /// Removes the pending command at `index`.
    pub fn remove_what_if(&mut self, index: usize) {
        if index < self.state.what_if.len() {
            self.record("remove a command");
            self.state.what_if.remove(index);
            self.reevaluate();
        }
    }

    /// Removes every pending command: the results show the cluster as it is.
    pub fn clear_what_if(&mut self) {
        if !self.state.what_if.is_empty() {
            self.record("clear the commands");
            self.state.what_if.clear();
            self.reevaluate();
        }
    }

    /// Groups the nodes by the label `key`; empty: by the clouds' pool labels.
    pub fn set_pool_label(&mut self, key: String) {
        if self.state.pool_label != key {
            self.record("pool label");
            self.state.pool_label = key;
            self.reevaluate();
        }
    }

    /// The state a link carries: the editors' texts with what the simulation does not read
    /// left out ([`crate::prune`]) when they simulate to the same report (the JSON contract)
    /// as the texts in the editors; the state as it is otherwise, and when the input has
    /// errors.
    pub fn link_state(&self) -> SharedState {
        let pruned = SharedState {
            nodes: prune::prune_text(&self.state.nodes),
            workloads: prune::prune_text(&self.state.workloads),
            ..self.state.clone()
        };
        if pruned == self.state {
            return pruned;
        }
        let report = |s: &SharedState| {
            let eval = Evaluation::unverified(s);
            // Pretty, as the JSON download writes it: one serializer of the report in the page's
            // wasm instead of two (about 11 KB of code).
            eval.is_ok().then(|| eval.report.as_ref().and_then(|r| serde_json::to_string_pretty(r).ok())).flatten()
        };
        match (report(&self.state), report(&pruned)) {
            (Some(before), Some(after)) if before == after => pruned,
            _ => self.state.clone(),
        }
    }

    /// The fragment (without `#`) that restores this state, and what to say about its size.
    pub fn share_fragment(&self, embed: bool) -> (String, LinkSize) {
        let route = Route { embed, state: Some(share::encode(&self.link_state())), example: None };
        let fragment = route.fragment();
        let size = share::link_size(fragment.len());
        (fragment, size)
    }

    /// The settings JSON the admission panel shows.
    pub fn policy_settings_text(&self) -> String {
        self.policy_settings.clone().unwrap_or_else(|| policy_panel::default_settings(&self.state))
    }

    /// Starts a policy run: every workload through the admission policy with the panel's
    /// settings and the pasted Gatekeeper policies. Returns the run's number and the request
    /// for the admission module (`policy_panel::review_json`); hand its answer to
    /// [`Playground::finish_policy_run`].
    pub fn start_policy_run(&mut self) -> (u64, String) {
        let eval = self.shown().clone();
        self.policy_workload = self.policy_workload.min(eval.workloads.len().saturating_sub(1));
        self.policy_run += 1;
        self.policy_pending = true;
        self.policy_ran_on = Some((self.state.clone(), self.policy_settings.clone()));
        let request = ReviewRequest {
            state: self.state.clone(),
            targets: policy_panel::targets(&eval),
            settings: self.policy_settings_text(),
        };
        (self.policy_run, serde_json::to_string(&request).unwrap_or_default())
    }

    /// True when the policy verdicts shown are of an earlier input or settings.
    pub fn policy_stale(&self) -> bool {
        self.policy_result.is_some()
            && self
                .policy_ran_on
                .as_ref()
                .is_some_and(|(state, settings)| state != &self.state || settings != &self.policy_settings)
    }

    /// Takes the admission module's answer (or why there is none) to run `run`.
    pub fn finish_policy_run(&mut self, run: u64, answer: Result<String, String>) {
        if run != self.policy_run {
            return;
        }
        self.policy_pending = false;
        self.policy_result = Some(answer.and_then(|json| ReviewResponse::from_json(&json).into_result()));
    }

    /// A policy run without the browser: the admission code linked in (tests).
    #[cfg(test)]
    pub fn run_policy(&mut self) {
        let (run, request) = self.start_policy_run();
        self.finish_policy_run(run, Ok(policy_panel::review_json(&request)));
    }

    /// The verdict of the workload chosen in the panel, or the panel's error.
    pub fn policy_verdict(&self) -> Option<Result<PolicyVerdict, String>> {
        self.policy_result.as_ref().map(|r| match r {
            Ok(all) => all
                .iter()
                .find(|v| v.workload == self.policy_workload)
                .map(|v| v.verdict.clone())
                .ok_or_else(|| "no workload to send".to_string()),
            Err(e) => Err(e.clone()),
        })
    }

    /// Replaces the pasted Gatekeeper templates and constraints (the caller runs the policy).
    pub fn set_gatekeeper(&mut self, text: String) {
        if self.state.gatekeeper != text {
            self.record("Gatekeeper policies");
        }
        self.state.gatekeeper = text;
    }

    pub fn errors_in(&self, editor: Editor) -> Vec<crate::evaluation::EditorError> {
        self.eval.errors_in(editor).cloned().collect()
    }

    /// What the editor marks: its errors, then its warnings ([`crate::evaluation::Severity`]).
    pub fn diagnostics_in(&self, editor: Editor) -> Vec<crate::evaluation::EditorError> {
        self.eval.diagnostics_in(editor).cloned().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_strict_check_runs_after_the_edit_and_its_findings_arrive_then() {
        let mut p = Playground::from_route(&Route::default(), None);
        assert!(p.input_pending(), "opening, too, shows the verdicts first");
        p.check_input();
        assert!(!p.input_pending());
        let typo = p.state.workloads.replacen(
            "      hostNetwork: true\n",
            "      hostNetwork: true\n      toleration: []\n",
            1,
        );
        assert_ne!(typo, p.state.workloads);
        p.set_workloads(typo);
        assert!(p.input_pending() && p.input_pending_in(Editor::Workloads) && !p.input_pending_in(Editor::Nodes));
        assert!(p.eval.is_ok() && p.eval.input_warnings.is_empty(), "the verdicts first");
        let verdicts = p.eval.workloads[0].cells.iter().map(|c| c.state).collect::<Vec<_>>();
        assert!(p.check_input() && !p.input_pending());
        assert!(!p.check_input(), "checked once");
        let w = &p.eval.input_warnings;
        assert!(w.len() == 1 && w[0].message.contains("did you mean `tolerations`?"), "{w:?}");
        assert_eq!(
            p.eval.workloads[0].cells.iter().map(|c| c.state).collect::<Vec<_>>(),
            verdicts,
            "not simulated again"
        );
        // As an immediate evaluation gives them.
        assert_eq!(*w, Evaluation::unverified(&p.state).input_warnings);
        // A mistyped kind is refused, as kubectl refuses it: an error once checked.
        p.set_workloads(p.state.workloads.replacen("kind: DaemonSet", "kind: DaemonSett", 1));
        let refused = p.check_input();
        assert!(refused && !p.eval.is_ok() && p.stale(), "{:?}", p.eval.errors);
        assert!(p.eval.errors.iter().any(|e| e.message.contains("DaemonSet")), "{:?}", p.eval.errors);
    }

    #[test]
    fn the_selected_cell_breakdown_is_computed_on_demand_and_dropped_by_edits() {
        // Workload 1 is a Deployment (a DaemonSet's cell has no breakdown: see `breakdown`).
        let mut p = Playground::new(evaluation::synthetic(4, 2), None);
        assert_eq!(p.breakdown_wanted(), None, "nothing selected");
        let node = p.shown().workloads[1].cells[0].node.clone();
        p.select(1, &node);
        assert_eq!(p.breakdown_wanted(), Some(BreakdownWanted::Now));
        assert!(p.selected_breakdown().is_none(), "not computed by the selection itself");
        assert!(p.compute_breakdown());
        assert!(!p.compute_breakdown(), "computed once");
        let b = p.selected_breakdown().expect("a Deployment's cell has one");
        assert_eq!(*b.node, *node);
        // An edit drops it; it is computed again once typing pauses.
        p.set_workloads(format!("{}# typed\n", p.state.workloads));
        assert_eq!(p.breakdown_wanted(), Some(BreakdownWanted::AfterEdit));
        assert!(p.selected_breakdown().is_none());
        assert!(p.compute_breakdown() && p.selected_breakdown().is_some());
        // Another cell: at once.
        let other = p.shown().workloads[1].cells[1].node.clone();
        p.select(1, &other);
        assert_eq!(p.breakdown_wanted(), Some(BreakdownWanted::Now));
        assert!(p.selected_breakdown().is_none(), "never the previous cell's");
    }

    #[test]
    fn share_round_trip_restores_the_state() {
        let mut p = Playground::from_route(&Route::default(), None);
        p.apply_fix(0, 0).unwrap();
        let (fragment, size) = p.share_fragment(false);
        assert_eq!(size, LinkSize::Fine);
        let q = Playground::from_route(&Route::parse(&fragment, ""), None);
        assert_eq!(q.state, p.state);
        assert_eq!(q.shown().workloads[0].desired, 2);
    }

    #[test]
    fn fixes_are_verified_after_an_edit_and_kept_while_the_input_has_errors() {
        let mut p = Playground::from_route(&Route::default(), None);
        assert!(p.fixes_pending(), "opened: the verdicts first");
        assert!(p.shown().workloads[0].fixes.iter().all(|f| !f.verified));
        assert!(p.verify_fixes() && !p.fixes_pending());
        assert!(p.shown().workloads[0].fixes[0].verified);
        assert!(!p.verify_fixes(), "nothing left to re-check");
        // An edit shows its verdicts with the fixes to re-check again.
        p.set_workloads(format!("{}# typed\n", p.state.workloads));
        assert!(p.fixes_pending());
        // Input errors: the last good result is shown, and its fixes are re-checked.
        p.set_workloads("kind: [".into());
        assert!(p.stale() && p.fixes_pending());
        assert!(p.verify_fixes() && !p.fixes_pending());
        assert!(p.shown().workloads[0].fixes[0].verified);
        // Apply re-checks first: fix 0 is the verified list's first.
        p.undo();
        assert!(p.fixes_pending());
        p.select(0, "aks-nodepool2-27182818-vmss000000");
        p.apply_fix(0, 0).unwrap();
        assert_eq!(p.shown().workloads[0].desired, 2);
        assert!(p.selected.is_some(), "the cell stays selected after Apply");
    }

    #[test]
    fn opened_files_replace_the_editors_and_undo_brings_them_back() {
        let mut p = Playground::from_route(&Route::default(), None);
        let before = p.state.clone();
        let snapshot = gallery::find("cluster-snapshot").unwrap();
        let (nodes, workloads) = snapshot.split();
        // A file of nodes without its last newline, and one of workloads.
        let files = [("nodes.yaml".to_string(), nodes.trim_end().to_string()), ("apps.yaml".to_string(), workloads)];
        p.open_files(&files).unwrap();
        assert!(p.eval.is_ok(), "{:?}", p.eval.errors);
        assert!(p.state.nodes.contains("kind: Node") && !p.state.workloads.contains("kind: Node"));
        assert_eq!(p.shown().nodes.len(), 3);
        assert!(
            p.notice.as_ref().unwrap().text.starts_with("Opened nodes.yaml, apps.yaml: 3 nodes,"),
            "{:?}",
            p.notice
        );
        assert!(p.undo());
        assert_eq!(p.state, before);
        // (files, error)
        let rows: [(Vec<(String, String)>, &str); 2] = [
            (vec![], "no file to open"),
            (vec![("x.bin".into(), "a\0b".into())], "Could not open x.bin: x.bin is not text"),
        ];
        for (files, want) in rows {
            assert_eq!(p.open_files(&files).unwrap_err(), want);
            assert!(p.notice.as_ref().unwrap().error);
            assert_eq!(p.state, before, "nothing opened");
        }
    }

    #[test]
    fn downloads_wait_for_the_fixes_to_be_re_checked() {
        let mut p = Playground::from_route(&Route::default(), None);
        assert!(p.fixes_pending());
        let json = p.report_download(ReportFormat::Json).unwrap();
        assert!(!p.fixes_pending(), "downloading re-checks the fixes first");
        assert!(json.text.contains("\"verified\": true"), "{}", json.text);
        let patch = p.fix_download(0, 0).unwrap();
        assert!(patch.text.contains("testkey"));
        p.set_workloads("kind: [".into());
        assert_eq!(
            p.report_download(ReportFormat::Markdown).unwrap_err(),
            "Could not download the report: the input has errors: fix them first (the report is of a valid input)"
        );
    }

    #[test]
    fn errors_keep_the_last_good_result() {
        let mut p = Playground::from_route(&Route::default(), None);
        p.set_workloads(
            "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: x}}}]}\n".into(),
        );
        assert!(p.stale());
        assert_eq!(p.shown().workloads[0].kind, "DaemonSet");
        assert_eq!(p.errors_in(Editor::Workloads)[0].line, Some(4));
    }

    /// The cached columns follow the evaluation shown and the filter, also when the filter
    /// field is set directly; the evaluations an edit replaced wait for the frame, at most
    /// `MAX_RETIRED` of them.
    #[test]
    fn matrix_columns_and_retired_evaluations_follow_the_edits() {
        let mut p = Playground::new(evaluation::synthetic(30, 2), None);
        p.drop_retired();
        let fresh = |p: &Playground| matrix::columns(p.shown(), &p.matrix_filter);
        assert_eq!(&*p.matrix_all_columns(), fresh(&p).as_slice());
        let before = p.matrix_all_columns();
        let nodes = p.state.nodes.clone();
        let cut = nodes.match_indices("---\n").nth(3).map(|(i, _)| i).unwrap();
        p.set_nodes(nodes[..cut].to_string());
        assert!(p.has_retired(), "the edit's old evaluation waits for the frame");
        assert_ne!(p.matrix_all_columns(), before, "a new evaluation, new columns");
        assert_eq!(&*p.matrix_all_columns(), fresh(&p).as_slice());
        p.matrix_filter.collapse = !p.matrix_filter.collapse;
        assert_eq!(&*p.matrix_all_columns(), fresh(&p).as_slice(), "the filter set directly");
        for i in 0..10 {
            p.set_workloads(format!("{}\n# edit {i}\n", p.state.workloads));
        }
        assert!(p.retired.len() <= MAX_RETIRED);
        p.drop_retired();
        assert!(!p.has_retired());
    }

    #[test]
    fn the_matrix_pages_large_clusters_by_node_columns() {
        let mut p = Playground::new(evaluation::synthetic(50, 2), None);
        p.set_matrix_filter(MatrixFilter { collapse: false, ..MatrixFilter::default() });
        // (page asked for, columns shown, why)
        let rows = [
            (0, 0..24, "the first page"),
            (1, 24..48, "a full middle page"),
            (2, 48..50, "the last page holds the rest"),
            (7, 48..50, "past the end: the last page"),
        ];
        for (page, columns, why) in rows {
            p.set_matrix_page(page);
            assert_eq!(p.matrix_pages(), 3, "{why}");
            assert_eq!(p.matrix_columns().0, columns, "{why}");
        }
        // The cluster shrinks under the page shown: the last page that exists is shown.
        p.set_nodes(evaluation::synthetic(10, 2).nodes);
        assert_eq!((p.matrix_pages(), p.matrix_page_shown(), p.matrix_columns().0), (1, 0, 0..10));
        // A filter starts at its first page; alike nodes collapsed fit on one page.
        p.set_nodes(evaluation::synthetic(50, 2).nodes);
        p.set_matrix_page(2);
        p.set_matrix_filter(MatrixFilter { text: "zone-1".into(), collapse: false, ..MatrixFilter::default() });
        assert_eq!((p.matrix_pages(), p.matrix_page_shown(), p.matrix_columns().0), (1, 0, 0..17));
        p.set_matrix_filter(MatrixFilter::default());
        assert_eq!(p.matrix_pages(), 1);
        assert_eq!(p.matrix_columns().1.iter().map(|c| 1 + c.alike.len()).sum::<usize>(), 50);
    }

    #[test]
    fn table_edits_reach_the_yaml() {
        let mut p = Playground::from_route(&Route::default(), None);
        p.edit_node_cell(1, "taints", "");
        assert!(!p.state.nodes.contains("testkey"));
        assert_eq!(p.shown().workloads[0].desired, 2);
        // A bad cell in the second row: named as the table numbers it, its text kept.
        p.edit_node_cell(1, "taints", "bad");
        assert!(p.row_error.as_deref().unwrap().starts_with("row 2 (aks-nodepool2-27182818-vmss000000), taints:"));
        assert_eq!(p.node_rows()[1].taints, "bad");
        assert!(!p.state.nodes.contains("bad"));
        p.edit_node_cell(1, "taints", "");
        assert_eq!((p.row_error.as_deref(), p.node_draft.as_ref()), (None, None));
        p.add_node_row();
        assert_eq!(p.shown().nodes.len(), 3);
        p.remove_node_row(2);
        assert_eq!(p.shown().nodes.len(), 2);
    }

    /// A node added in the table to a `kubectl get nodes -o yaml` List is a new item of that
    /// List, the file's comment and layout kept; Undo takes it out again.
    #[test]
    fn a_node_added_to_a_list_file_joins_its_items_and_undo_removes_it() {
        let mut p = Playground::from_route(&Route::default(), None);
        let list = "# from prod\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a # first\n  status:\n    allocatable: {cpu: '4', memory: 8Gi, pods: '110'}\nmetadata:\n  resourceVersion: ''\n";
        p.set_nodes(list.to_string());
        p.add_node_row();
        let nodes = p.state.nodes.clone();
        assert!(nodes.starts_with("# from prod\napiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a # first\n"), "{nodes}");
        assert!(!nodes.contains("---"), "one document: {nodes}");
        assert!(nodes.ends_with("metadata:\n  resourceVersion: ''\n"), "{nodes}");
        assert_eq!(p.shown().nodes.len(), 2);
        assert!(p.undo());
        assert_eq!(p.state.nodes, list);
    }

    #[test]
    fn the_admission_panel_runs_the_policy() {
        let mut p = Playground::from_route(&Route::default(), None);
        assert!(p.policy_settings_text().contains("aks-nodepool2-27182818-vmss000000"));
        p.run_policy();
        let verdict = p.policy_verdict().unwrap().unwrap();
        assert!(verdict.response_json.contains("testkey"), "{}", verdict.response_json);
        p.policy_settings = Some("{".into());
        p.run_policy();
        assert!(p.policy_verdict().unwrap().is_err());

        // Only the last run's answer counts.
        let (old, _) = p.start_policy_run();
        let (new, _) = p.start_policy_run();
        p.finish_policy_run(old, Err("stale".into()));
        assert!(p.policy_pending);
        p.finish_policy_run(new, Err("the module failed to load".into()));
        assert!(!p.policy_pending);
        assert_eq!(p.policy_verdict().unwrap().unwrap_err(), "the module failed to load");
        assert!(!p.policy_stale());
        // Edits after a run make its verdicts stale, until the next run.
        p.set_workloads(format!("{}# edited\n", p.state.workloads));
        assert!(p.policy_stale());
        p.run_policy();
        assert!(!p.policy_stale());
        p.policy_settings = Some("{}".into());
        assert!(p.policy_stale(), "other settings");
    }

    #[test]
    fn pasted_gatekeeper_policies_travel_in_the_share_link() {
        let mut p = Playground::from_route(&Route::default(), None);
        p.set_gatekeeper(policy_panel::GATEKEEPER_SAMPLE.into());
        p.run_policy();
        let verdicts = p.policy_result.clone().unwrap().unwrap();
        assert_eq!(verdicts.len(), p.shown().workloads.len(), "a verdict for every workload");
        let (fragment, _) = p.share_fragment(false);
        let q = Playground::from_route(&Route::parse(&fragment, ""), None);
        assert_eq!(q.state.gatekeeper, policy_panel::GATEKEEPER_SAMPLE);
        p.set_gatekeeper("kind: [".into());
        p.run_policy();
        assert!(p.policy_verdict().unwrap().unwrap_err().contains("Gatekeeper"));
    }

    #[test]
    fn pool_actions_add_what_if_commands_that_travel_in_the_share_link() {
        let mut p = Playground::from_route(&Route::parse("#example=cluster-snapshot", ""), None);
        let names: Vec<&str> = p.shown().pools.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["system", "user"]);
        let drain = PoolAction::Drain { ignore_daemonsets: true, delete_emptydir_data: false, force: false };
        p.add_pool_command("user", &drain).unwrap();
        p.add_pool_command("user", &PoolAction::Taint("dedicated=web:NoExecute".into())).unwrap();
        p.add_what_if("kubectl  cordon   node/aks-system-31415926-vmss000000").unwrap();
        assert_eq!(
            p.state.what_if,
            [
                "kubectl drain -l kubernetes.azure.com/agentpool=user --ignore-daemonsets",
                "kubectl taint nodes -l kubernetes.azure.com/agentpool=user dedicated=web:NoExecute",
                "kubectl cordon aks-system-31415926-vmss000000",
            ]
        );
        assert!(!p.notice.as_ref().unwrap().error, "{:?}", p.notice);
        assert_eq!(
            p.add_what_if("kubectl scale deploy web --replicas=3").unwrap_err(),
            "placement what-if does not simulate `kubectl scale`: it simulates taint, label, cordon, uncordon, drain and delete nodes (and `add-nodes N like NODE`)"
        );
        assert_eq!(p.state.what_if.len(), 3, "a command that does not parse is not added");
        assert!(p.add_pool_command("user", &PoolAction::Taint("x".into())).is_err());
        assert!(p.notice.as_ref().unwrap().error);

        // The link carries the commands and the pool label.
        p.set_pool_label("agentpool".into());
        let (fragment, _) = p.share_fragment(false);
        let q = Playground::from_route(&Route::parse(&fragment, ""), None);
        // The snapshot travels pruned of what the simulation does not read (`prune`).
        assert_eq!(q.state, p.link_state());
        assert_ne!(q.state.nodes, p.state.nodes, "kubectl's bookkeeping left out");
        assert_eq!((&q.state.what_if, &q.state.pool_label), (&p.state.what_if, &p.state.pool_label));
        assert_eq!(q.shown().what_if, p.shown().what_if);
        assert_eq!(q.shown().what_if.as_ref().unwrap().applied(), 3);

        p.remove_what_if(1);
        assert_eq!(p.state.what_if.len(), 2);
        assert_eq!(p.shown().what_if.as_ref().unwrap().commands.len(), 2);
        p.clear_what_if();
        assert!(p.shown().what_if.is_none(), "no commands: the cluster as it is");
        // Loading an example drops the other cluster's commands.
        let mut r = q.clone();
        r.load_example("gpu-pool");
        assert!(r.state.what_if.is_empty() && r.state.pool_label.is_empty());
    }

    #[test]
    fn a_failing_command_is_marked_and_the_ones_before_it_apply() {
        use crate::what_if::CommandStatus;
        let mut p = Playground::from_route(&Route::parse("#example=cluster-snapshot", ""), None);
        p.add_what_if("kubectl cordon aks-system-31415926-vmss000000").unwrap();
        p.add_what_if("kubectl cordon no-such-node").unwrap();
        assert_eq!(
            p.notice.as_ref().unwrap().text,
            "`kubectl cordon no-such-node` fails: Error from server (NotFound): nodes \"no-such-node\" not found"
        );
        p.add_what_if("kubectl uncordon aks-system-31415926-vmss000000").unwrap();
        let view = p.shown().what_if.clone().unwrap();
        assert!(
            matches!(&view.commands[0].status, CommandStatus::Applied { output, .. } if output == &["node/aks-system-31415926-vmss000000 cordoned"])
        );
        assert!(matches!(&view.commands[1].status, CommandStatus::Failed(why) if why.contains("not found")));
        assert_eq!(view.commands[2].status, CommandStatus::NotApplied);
        assert!(p.shown().nodes[0].cordoned, "the first command applies");
        assert!(p.eval.is_ok(), "a failing command is not an input error");

        // A command from a link that does not parse is marked the same way.
        p.state.what_if.insert(0, "kubectl frobnicate".into());
        p.reevaluate();
        let view = p.shown().what_if.clone().unwrap();
        assert!(
            matches!(&view.commands[0].status, CommandStatus::Failed(why) if why.starts_with("error: unknown command \"frobnicate\"")),
            "{view:?}"
        );
        assert_eq!(view.applied(), 0);
        assert!(!p.shown().nodes[0].cordoned);
    }

    #[test]
    fn every_edit_can_be_undone_and_redone_and_shows_its_diff() {
        let mut p = Playground::from_route(&Route::default(), None);
        assert!(!p.history.can_undo(), "opening is not an edit");
        let opened = p.state.clone();
        p.apply_fix(0, 0).unwrap();
        let applied = p.state.clone();
        let diff = &p.diffs[0];
        assert_eq!((diff.editor, diff.removed, diff.rewritten.as_deref()), ("Workloads", 0, None));
        assert!(diff.lines.iter().any(|l| l == "+      - key: testkey"), "{:?}", diff.lines);
        p.edit_node_cell(0, "cordoned", "true");
        assert_eq!(p.diffs[0].lines.iter().filter(|l| l.starts_with('+')).count(), 2, "spec: and unschedulable");
        p.set_workloads(format!("{}# typed\n", p.state.workloads));
        p.set_workloads(format!("{}# more\n", p.state.workloads));
        let typed = p.state.clone();

        // (action, the state after it)
        type Step<'a> = (fn(&mut Playground) -> bool, &'a SharedState);
        let steps: [Step; 5] = [
            (Playground::undo, &SharedState { workloads: applied.workloads.clone(), ..typed.clone() }),
            (Playground::undo, &applied),
            (Playground::undo, &opened),
            (Playground::redo, &applied),
            (Playground::redo, &SharedState { workloads: applied.workloads.clone(), ..typed.clone() }),
        ];
        for (i, (action, state)) in steps.into_iter().enumerate() {
            assert!(action(&mut p), "step {i}");
            assert_eq!(&p.state, state, "step {i}");
        }
        assert_eq!(p.shown().workloads[0].desired, 2, "re-evaluated");
        assert!(p.redo() && p.state == typed && !p.redo());
    }

    #[test]
    fn autosaved_work_is_restored_and_a_differing_link_waits_for_an_answer() {
        let mut p = Playground::from_route(&Route::default(), None);
        p.apply_fix(0, 0).unwrap();
        let saved = p.saved_json();
        let (fragment, _) = p.share_fragment(false);
        p.set_workloads(format!("{}# newer work\n", p.state.workloads));
        let newer = p.saved_json();

        // (route, saved work, state shown, a question asked)
        let rows = [
            ("", Some(saved.as_str()), false, false),
            ("", Some(newer.as_str()), true, false),
            (fragment.as_str(), Some(newer.as_str()), true, true),
            (fragment.as_str(), Some(saved.as_str()), false, false),
            (fragment.as_str(), None, false, false),
            ("#example=gpu-pool", Some(newer.as_str()), true, true),
            ("#embed&example=gpu-pool", Some(newer.as_str()), false, false),
        ];
        for (route, saved_work, shows_newer, asks) in rows {
            let q = Playground::open(&Route::parse(route, ""), saved_work, None);
            assert_eq!(q.state.workloads.contains("# newer work"), shows_newer, "{route} {saved_work:?}");
            assert_eq!(q.conflict.is_some(), asks, "{route}");
        }
        let mut q = Playground::open(&Route::parse(&fragment, ""), Some(&newer), None);
        q.open_conflict();
        assert!(!q.state.workloads.contains("# newer work") && q.conflict.is_none());
        assert!(q.undo() && q.state.workloads.contains("# newer work"), "the local work is one undo away");
        let mut q = Playground::open(&Route::parse(&fragment, ""), Some(&newer), None);
        q.keep_local();
        assert!(q.state.workloads.contains("# newer work") && q.conflict.is_none());
        // Storage written by another version is ignored.
        assert_eq!(
            Playground::open(&Route::default(), Some("{"), None).state,
            Playground::from_route(&Route::default(), None).state
        );
    }

    #[test]
    fn damaged_link_opens_the_default_example_with_a_notice() {
        let p = Playground::from_route(&Route::parse("#embed&s=v1.%%%", ""), None);
        assert!(p.embed);
        assert!(p.notice.as_ref().unwrap().error);
        assert_eq!(p.example.as_deref(), Some(DEFAULT_EXAMPLE));
    }
}
