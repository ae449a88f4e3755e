//! The playground's model: two manifest texts (workloads, nodes) and the options in, a view
//! of the simulation out — errors placed on editor lines, a workloads × nodes matrix, node
//! capacity, fixes — so that the browser UI only lays it out.
//!
//! Everything here is a pure function of [`SharedState`], the same state a share link holds.

use crate::apply_fix::{apply_patch_to_text, ApplyError};
use crate::node_table::{self, NodeRow};
use crate::share::SharedState;
use placement_core::cluster::defaults::api_defaults;
use placement_core::cluster::simulate::{simulate, Eviction, PodReport, Report, SimulateOptions};
use placement_core::explain::fixes::Fix;
use placement_core::input::documents::{parse_manifests, InputError, Manifests};
use placement_core::input::source_map::error_line;
use placement_core::model::quantity::{format_bytes, format_cpu};
use placement_core::model::resources::{Resource, CPU, MEMORY, PODS};
use placement_core::model::version::KubeVersion;
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

/// An input error placed in an editor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditorError {
    pub editor: Editor,
    /// 1-based line in that editor's text, when it can be placed.
    pub line: Option<usize>,
    /// The field path, when the error is about a field.
    pub field: Option<String>,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CellState {
    Fits,
    Blocked,
    /// The node is not in the workload's verdicts (e.g. a bound pod).
    Unknown,
}

/// One workload on one node.
#[derive(Debug, Clone, PartialEq)]
pub struct Cell {
    pub node: String,
    pub state: CellState,
    pub plugin: Option<String>,
    pub reason: Option<String>,
    pub detail: Option<String>,
    pub score: Option<i64>,
    /// The workload's pods that landed on this node.
    pub pods: Vec<String>,
    /// Indices into the workload's fixes that reach this node.
    pub fixes: Vec<usize>,
}

impl Cell {
    /// The hover text: plugin, upstream's reason, Placement's detail, or the score.
    pub fn title(&self) -> String {
        match self.state {
            CellState::Fits => {
                let mut s = format!("{} fits", self.node);
                if let Some(score) = self.score {
                    s.push_str(&format!("; score {score}"));
                }
                if !self.pods.is_empty() {
                    s.push_str(&format!("; pods here: {}", self.pods.join(", ")));
                }
                s
            }
            CellState::Blocked => {
                let mut s = format!(
                    "{}: {}",
                    self.plugin.as_deref().unwrap_or("blocked"),
                    self.reason.as_deref().unwrap_or("")
                );
                if let Some(d) = &self.detail {
                    s.push_str(&format!(" ({d})"));
                }
                s
            }
            CellState::Unknown => format!("{}: not evaluated for this workload", self.node),
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
    pub desired: i64,
    /// Created pods, Pending ones included (`kubectl get` CURRENT).
    pub current: i64,
    /// Created pods bound to a node.
    pub scheduled: i64,
    pub cells: Vec<Cell>,
    /// Pods that found no node, with the FailedScheduling message.
    pub pending: Vec<PodReport>,
    pub fixes: Vec<Fix>,
    pub defaults: Vec<String>,
}

impl WorkloadView {
    /// `DaemonSet twistlock/defender`.
    pub fn label(&self) -> String {
        format!("{} {}/{}", self.kind, self.namespace, self.name)
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
    pub taints: Vec<String>,
    pub cordoned: bool,
    pub usage: Vec<Usage>,
    pub pods: usize,
}

/// Everything the playground shows for one state.
#[derive(Debug, Clone, Default)]
pub struct Evaluation {
    pub errors: Vec<EditorError>,
    pub report: Option<Report>,
    pub workloads: Vec<WorkloadView>,
    pub nodes: Vec<NodeView>,
    /// Rows for the node table, when the nodes text parsed.
    pub node_rows: Option<Vec<NodeRow>>,
    pub warnings: Vec<String>,
    pub evictions: Vec<Eviction>,
    /// Node documents in the workloads editor plus workloads in the nodes editor: they work
    /// where they are, but [`sort_documents`] moves them.
    pub misplaced: usize,
}

impl Evaluation {
    pub fn errors_in(&self, editor: Editor) -> impl Iterator<Item = &EditorError> {
        self.errors.iter().filter(move |e| e.editor == editor)
    }

    pub fn is_ok(&self) -> bool {
        self.errors.is_empty()
    }
}

impl Evaluation {
    /// Parses both texts, simulates, and builds the views.
    pub fn of(state: &SharedState) -> Evaluation {
        let mut eval = Evaluation::default();
        let mut opts = SimulateOptions::default();
        if !state.kube_version.trim().is_empty() {
            match state.kube_version.trim().parse::<KubeVersion>() {
                Ok(v) => opts = SimulateOptions::for_version(v),
                Err(e) => eval.errors.push(EditorError {
                    editor: Editor::Options,
                    line: None,
                    field: None,
                    message: e.to_string(),
                }),
            }
        }
        opts.admission_defaults = state.admission_defaults;

        let nodes = parse_manifests(&state.nodes, NODES_SOURCE);
        let workloads = parse_manifests(&state.workloads, WORKLOADS_SOURCE);
        if let Ok(m) = &nodes {
            eval.node_rows = Some(node_table::rows(&m.nodes));
        }
        eval.misplaced = nodes.as_ref().map(|m| m.workloads.len()).unwrap_or(0)
            + workloads.as_ref().map(|m| m.nodes.len()).unwrap_or(0);
        let mut manifests = Manifests::default();
        for (result, editor) in [(nodes, Editor::Nodes), (workloads, Editor::Workloads)] {
            match result {
                Ok(m) => manifests.extend(m),
                Err(e) => eval.errors.push(place(state, editor, &e)),
            }
        }
        if !eval.errors.is_empty() {
            return eval;
        }
        let report = match simulate(&manifests, &opts) {
            Ok(r) => r,
            Err(errors) => {
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
        let cfg = opts.scheduler_config();
        build_views(&mut eval, &manifests, &report, &cfg);
        eval.warnings = report.warnings.clone();
        eval.evictions = report.evictions.clone();
        eval.report = Some(report);
        eval
    }
}

fn place(state: &SharedState, editor: Editor, error: &InputError) -> EditorError {
    let text = match editor {
        Editor::Nodes => &state.nodes,
        _ => &state.workloads,
    };
    let field = match error {
        InputError::Decode { field, .. } => Some(field.clone()),
        InputError::Invalid { error, .. } => Some(error.field.clone()),
        _ => None,
    };
    EditorError { editor, line: error_line(text, error), field, message: error.to_string() }
}

fn build_views(eval: &mut Evaluation, manifests: &Manifests, report: &Report, cfg: &SchedulerConfig) {
    let node_names: Vec<&str> = manifests.nodes.iter().map(|(_, n)| n.metadata.name.as_str()).collect();
    let mut requested: Vec<Resource> = vec![Resource::default(); node_names.len()];
    let mut pod_counts = vec![0usize; node_names.len()];
    // Cells are looked up by node name once per verdict, pod and fix: an index keeps that
    // linear in the cluster size rather than quadratic. Duplicate names are rejected by
    // validation, so first-position semantics are kept by not overwriting.
    let mut positions: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(node_names.len());
    for (i, n) in node_names.iter().enumerate() {
        positions.entry(n).or_insert(i);
    }
    let index_of = |name: &str| positions.get(name).copied();

    for (w, r) in manifests.workloads.iter().zip(&report.workloads) {
        let mut spec = w.template.spec.clone();
        api_defaults(&mut spec, &cfg.gates);
        let per_pod = pod_request(&spec, cfg);
        let mut cells: Vec<Cell> = node_names
            .iter()
            .map(|n| Cell {
                node: n.to_string(),
                state: CellState::Unknown,
                plugin: None,
                reason: None,
                detail: None,
                score: None,
                pods: Vec::new(),
                fixes: Vec::new(),
            })
            .collect();
        for (name, v) in r.nodes.iter() {
            let Some(i) = index_of(name) else { continue };
            let c = &mut cells[i];
            c.state = if v.fits { CellState::Fits } else { CellState::Blocked };
            c.plugin = v.plugin.map(str::to_string);
            c.reason = v.reason.clone();
            c.detail = v.detail.clone();
            c.score = v.score;
        }
        for p in &r.pods {
            let Some(i) = p.node.as_deref().and_then(index_of) else { continue };
            cells[i].pods.push(p.name.clone());
            if cells[i].state == CellState::Unknown {
                cells[i].state = CellState::Fits;
            }
            requested[i].add(&per_pod);
            pod_counts[i] += 1;
        }
        for (fi, f) in r.fixes.iter().enumerate() {
            for n in &f.nodes {
                if let Some(i) = index_of(n) {
                    cells[i].fixes.push(fi);
                }
            }
        }
        eval.workloads.push(WorkloadView {
            kind: r.kind.to_string(),
            namespace: r.namespace.clone(),
            name: r.name.clone(),
            editor: if w.doc.source == NODES_SOURCE { Editor::Nodes } else { Editor::Workloads },
            doc_index: w.doc.index,
            desired: r.desired,
            current: r.current,
            scheduled: r.scheduled,
            cells,
            pending: r
                .pods
                .iter()
                .filter(|p| p.node.is_none() && p.message.is_some() && p.is_active())
                .cloned()
                .collect(),
            fixes: r.fixes.clone(),
            defaults: r.defaults.clone(),
        });
    }

    for (i, (_, node)) in manifests.nodes.iter().enumerate() {
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
            taints: node.spec.taints.iter().map(|t| t.to_string()).collect(),
            cordoned: node.spec.unschedulable,
            usage,
            pods: pod_counts[i],
        });
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
    let w = eval.workloads.get(workload).ok_or(ApplyError::NoPatch)?;
    let patch = w.fixes.get(fix).and_then(|f| f.patch.as_deref()).ok_or(ApplyError::NoPatch)?;
    let mut next = state.clone();
    match w.editor {
        Editor::Nodes => next.nodes = apply_patch_to_text(&state.nodes, w.doc_index, patch)?,
        _ => next.workloads = apply_patch_to_text(&state.workloads, w.doc_index, patch)?,
    }
    Ok(next)
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
        assert_eq!(blocked.plugin.as_deref(), Some("TaintToleration"));
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

    #[test]
    fn synthetic_cluster_evaluates() {
        let eval = Evaluation::of(&synthetic(20, 8));
        assert!(eval.is_ok(), "{:?}", eval.errors);
        assert_eq!(eval.nodes.len(), 20);
        assert_eq!(eval.workloads.len(), 8);
        assert_eq!(eval.workloads[0].desired, 15, "the DaemonSet skips the 5 tainted nodes");
    }
}
