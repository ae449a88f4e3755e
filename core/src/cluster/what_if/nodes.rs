//! A command's edits to nodes, as kubectl makes them and the API server takes them.
//!
//! Follows kubectl v1.36.3 (`kubernetes/kubectl` at `kubernetes-1.36.3`): `cmd/taint/utils.go`
//! (`reorganizeTaints`, `checkIfTaintsAlreadyExists`, `deleteTaints`), `cmd/label/label.go`
//! (`labelFunc`, `validateNoOverwrites`), `drain/cordon.go` and `cmd/drain/drain.go`
//! (`RunCordonOrUncordon`), `cmd/delete` (`PrintObj`), with the API server's label validation
//! (`ValidateObjectMeta`) and how kubectl's `CheckErr` prints what comes back.
//!
//! Beyond kubectl, two things a live cluster does right after are modelled, so that the
//! snapshot reads as the cluster would a moment later:
//!
//! - the node lifecycle controller keeps the `node.kubernetes.io/unschedulable:NoSchedule`
//!   taint in step with `spec.unschedulable` (`doNoScheduleTaintingPass`), so [`cordon`] adds
//!   it and uncordoning removes it (reported in [`NodeEdit::added_taints`]/`removed_taints`);
//! - `add-nodes` ([`add_like`]) joins new nodes made like an existing one.
//!
//! Each function edits one node (or one list) and says what changed in kubectl's words
//! ([`NodeEdit`]); the caller walks the selection, collects the errors and prints them as
//! kubectl would ([`kubectl_errors`]).

use std::borrow::Borrow;
use std::fmt;

use crate::cluster::what_if::command::{LabelChange, NodeSelection, TaintChange, MAX_ADD_NODES};
use crate::input::field::{FieldError, FieldPath};
use crate::model::labels::{dns1123_subdomain_errors, label_value_errors, qualified_name_errors};
use crate::model::taints::{NO_SCHEDULE, TAINT_NODE_UNSCHEDULABLE};
use crate::model::{Node, Taint};

pub use crate::model::LABEL_HOSTNAME;

/// Why a command could not edit a node, in kubectl's (and the API server's) words.
///
/// `Display` is what kubectl prints when this is the command's only error; several errors of
/// one command print as [`kubectl_errors`] says.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WhatIfError {
    /// A named node is not in the snapshot.
    #[error("Error from server (NotFound): nodes {name:?} not found")]
    NodeNotFound { name: String },
    /// `taint` without `--overwrite`: the node has a taint with the key and effect of one
    /// being added (whatever its value). `keys` as kubectl lists them.
    #[error("error: node {node} already has {} taint(s) with same effect(s) and --overwrite is false", keys.join(","))]
    TaintExists { node: String, keys: Vec<String> },
    /// `taint`: a removal matched no taint (`k:e` or `k`, one per removal that failed); the
    /// node is left unchanged.
    #[error("{}", aggregate_lines(&not_found_taints(taints)))]
    TaintNotFound { node: String, taints: Vec<String> },
    /// `label` without `--overwrite`: keys that already have another value (key, current
    /// value); the node is left unchanged.
    #[error("{}", aggregate_lines(&label_conflicts(conflicts)))]
    LabelExists { node: String, conflicts: Vec<(String, String)> },
    /// The API server refused the labels (`metadata.labels` errors).
    #[error("{}", invalid_node_text(node, errors))]
    InvalidLabels { node: String, errors: Vec<FieldError> },
    /// Placement's: `add_like` asked for no nodes or too many.
    #[error("add-nodes: the count must be a whole number from 1 to {MAX_ADD_NODES}, not {count}")]
    AddNodesCount { count: u32 },
    /// Placement's: the name made for a new node is not a valid node name or hostname label.
    #[error("add-nodes: the new node name {name:?} (made from {like:?}) is invalid: {detail}")]
    GeneratedName { like: String, name: String, detail: String },
    /// The error of one command, with its text for context; prints as the error itself.
    #[error("{source}")]
    InCommand {
        command: String,
        #[source]
        source: Box<WhatIfError>,
    },
}

impl WhatIfError {
    /// This error inside the command `command` (its text, for context).
    pub fn in_command(self, command: &str) -> Self {
        match self {
            WhatIfError::InCommand { source, .. } => WhatIfError::InCommand { command: command.to_string(), source },
            other => WhatIfError::InCommand { command: command.to_string(), source: Box::new(other) },
        }
    }

    /// The command text given with [`WhatIfError::in_command`].
    pub fn command(&self) -> Option<&str> {
        match self {
            WhatIfError::InCommand { command, .. } => Some(command),
            _ => None,
        }
    }

    /// The node the error is about (the name asked for, or the one made).
    pub fn node(&self) -> Option<&str> {
        match self {
            WhatIfError::NodeNotFound { name } => Some(name),
            WhatIfError::TaintExists { node, .. }
            | WhatIfError::TaintNotFound { node, .. }
            | WhatIfError::LabelExists { node, .. }
            | WhatIfError::InvalidLabels { node, .. } => Some(node),
            WhatIfError::GeneratedName { name, .. } => Some(name),
            WhatIfError::AddNodesCount { .. } => None,
            WhatIfError::InCommand { source, .. } => source.node(),
        }
    }

    /// The messages inside the error, as Go's errors say them (`err.Error()`, or kubectl's
    /// `StandardErrorMessage` for the API server's): one, or one per failed taint removal or
    /// label conflict.
    fn go_messages(&self) -> Vec<String> {
        match self {
            WhatIfError::NodeNotFound { .. } => vec![self.to_string()],
            WhatIfError::TaintExists { .. } => vec![self.to_string().trim_start_matches("error: ").to_string()],
            WhatIfError::TaintNotFound { taints, .. } => not_found_taints(taints),
            WhatIfError::LabelExists { conflicts, .. } => label_conflicts(conflicts),
            WhatIfError::InvalidLabels { node, errors } => {
                let causes: Vec<String> = errors.iter().map(ToString::to_string).collect();
                vec![format!("Error from server (Invalid): Node {node:?} is invalid: {}", go_aggregate(&causes))]
            }
            WhatIfError::AddNodesCount { .. } | WhatIfError::GeneratedName { .. } => vec![self.to_string()],
            WhatIfError::InCommand { source, .. } => source.go_messages(),
        }
    }
}

fn not_found_taints(taints: &[String]) -> Vec<String> {
    taints.iter().map(|t| format!("taint {t:?} not found")).collect()
}

fn label_conflicts(conflicts: &[(String, String)]) -> Vec<String> {
    conflicts.iter().map(|(k, v)| format!("'{k}' already has a value ({v}), and --overwrite is false")).collect()
}

/// How kubectl's `CheckErr` prints an aggregate of errors on its own: one with `error: `,
/// several one per line.
fn aggregate_lines(messages: &[String]) -> String {
    match messages {
        [one] => format!("error: {one}"),
        many => many.join("\n"),
    }
}

/// `utilerrors.NewAggregate(...).Error()`: one message as is, several deduplicated in
/// brackets.
fn go_aggregate(messages: &[String]) -> String {
    let mut seen: Vec<&String> = Vec::new();
    for m in messages {
        if !seen.contains(&m) {
            seen.push(m);
        }
    }
    match seen.as_slice() {
        [one] => (*one).clone(),
        many => format!("[{}]", many.iter().map(|m| m.as_str()).collect::<Vec<_>>().join(", ")),
    }
}

/// `CheckErr` on an `Invalid` status with causes: `The Node "a" is invalid: <cause>`, or the
/// causes one per line after `* `.
fn invalid_node_text(node: &str, errors: &[FieldError]) -> String {
    let prefix = format!("The Node {node:?} is invalid: ");
    match errors {
        [one] => format!("{prefix}{one}"),
        many => {
            let lines: String = many.iter().map(|e| format!("\n* {e}")).collect();
            format!("{prefix}{lines}")
        }
    }
}

/// What kubectl prints for a command's errors, collected node by node (its builder's
/// `ContinueOnError`): an only error as its `Display`; several one per line, each as Go
/// prints it (`[a, b]` for a node with several).
///
/// ```
/// use placement_core::cluster::what_if::nodes::{kubectl_errors, WhatIfError};
/// let missing = |n: &str| WhatIfError::NodeNotFound { name: n.into() };
/// assert_eq!(kubectl_errors(&[missing("x")]), "Error from server (NotFound): nodes \"x\" not found");
/// assert_eq!(
///     kubectl_errors(&[missing("x"), missing("y")]),
///     "Error from server (NotFound): nodes \"x\" not found\nError from server (NotFound): nodes \"y\" not found"
/// );
/// ```
pub fn kubectl_errors(errors: &[WhatIfError]) -> String {
    match errors {
        [one] => one.to_string(),
        many => many.iter().map(|e| go_aggregate(&e.go_messages())).collect::<Vec<_>>().join("\n"),
    }
}

/// What kubectl printed for one node, as its name printer does (`node/a tainted`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NodeOperation {
    Tainted,
    Untainted,
    /// `taint` with both additions and removals, or with `--overwrite`; `label` with both.
    Modified,
    Labeled,
    Unlabeled,
    NotLabeled,
    Cordoned,
    AlreadyCordoned,
    Uncordoned,
    AlreadyUncordoned,
    /// `delete`: printed `node "a" deleted`.
    Deleted,
    /// Placement's `add-nodes`.
    Created,
}

impl NodeOperation {
    /// kubectl's word.
    pub fn as_str(self) -> &'static str {
        match self {
            NodeOperation::Tainted => "tainted",
            NodeOperation::Untainted => "untainted",
            NodeOperation::Modified => "modified",
            NodeOperation::Labeled => "labeled",
            NodeOperation::Unlabeled => "unlabeled",
            NodeOperation::NotLabeled => "not labeled",
            NodeOperation::Cordoned => "cordoned",
            NodeOperation::AlreadyCordoned => "already cordoned",
            NodeOperation::Uncordoned => "uncordoned",
            NodeOperation::AlreadyUncordoned => "already uncordoned",
            NodeOperation::Deleted => "deleted",
            NodeOperation::Created => "created",
        }
    }
}

/// One node's edit: kubectl's line for it, and the taints it gained and lost (the caller
/// evicts pods that do not tolerate an added `NoExecute` taint).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NodeEdit {
    pub node: String,
    pub operation: NodeOperation,
    /// Taints the node has now and did not have (a new value counts as added and removed).
    pub added_taints: Vec<Taint>,
    /// Taints the node had and has no more.
    pub removed_taints: Vec<Taint>,
    /// What kubectl printed before the result (`label "x" not found.`).
    pub notes: Vec<String>,
}

impl NodeEdit {
    fn new(node: &Node, operation: NodeOperation) -> Self {
        Self {
            node: node.metadata.name.clone(),
            operation,
            added_taints: Vec::new(),
            removed_taints: Vec::new(),
            notes: Vec::new(),
        }
    }

    /// The `NoExecute` taints added: pods on the node that do not tolerate them are evicted.
    pub fn added_no_execute(&self) -> impl Iterator<Item = &Taint> {
        self.added_taints.iter().filter(|t| t.effect == crate::model::taints::NO_EXECUTE)
    }
}

/// `node/a tainted`; `node "a" deleted` for a deletion.
impl fmt::Display for NodeEdit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.operation {
            NodeOperation::Deleted => write!(f, "node {:?} deleted", self.node),
            op => write!(f, "node/{} {}", self.node, op.as_str()),
        }
    }
}

/// The nodes a selection picks, as indices into `nodes`: names in the order given (the first
/// missing one is kubectl's `NotFound`, as `cordon`, `uncordon` and `drain` stop there), a
/// selector's or `--all`'s matches in name order, as the API server lists them.
///
/// An empty result is not an error: kubectl prints `No resources found` and does nothing.
///
/// ```
/// use placement_core::cluster::what_if::{nodes::select, NodeSelection};
/// use placement_core::model::Node;
/// let node = |name: &str| { let mut n = Node::default(); n.metadata.name = name.into(); n };
/// let nodes = [node("b"), node("a")];
/// assert_eq!(select(&NodeSelection::All, &nodes).unwrap(), vec![1, 0]);
/// let err = select(&NodeSelection::Names(vec!["c".into()]), &nodes).unwrap_err();
/// assert_eq!(err.to_string(), "Error from server (NotFound): nodes \"c\" not found");
/// ```
pub fn select<N: Borrow<Node>>(selection: &NodeSelection, nodes: &[N]) -> Result<Vec<usize>, WhatIfError> {
    let (found, errors) = select_continue_on_error(selection, nodes);
    match errors.into_iter().next() {
        Some(error) => Err(error),
        None => Ok(found),
    }
}

/// [`select`] for the commands that carry on past a missing node (`taint`, `label`,
/// `delete`: [`crate::cluster::what_if::WhatIf::continues_on_error`]): the nodes found, and a
/// `NotFound` error for each name that is not.
pub fn select_continue_on_error<N: Borrow<Node>>(
    selection: &NodeSelection,
    nodes: &[N],
) -> (Vec<usize>, Vec<WhatIfError>) {
    match selection {
        NodeSelection::Names(names) => {
            let mut found = Vec::new();
            let mut errors = Vec::new();
            for name in names {
                match nodes.iter().position(|n| n.borrow().metadata.name == *name) {
                    Some(i) if !found.contains(&i) => found.push(i),
                    Some(_) => {}
                    None => errors.push(WhatIfError::NodeNotFound { name: name.clone() }),
                }
            }
            (found, errors)
        }
        NodeSelection::Selector(selector) => {
            (in_name_order(nodes, |n| selector.matches(&n.metadata.labels)), Vec::new())
        }
        NodeSelection::All => (in_name_order(nodes, |_| true), Vec::new()),
    }
}

fn in_name_order<N: Borrow<Node>>(nodes: &[N], keep: impl Fn(&Node) -> bool) -> Vec<usize> {
    let mut picked: Vec<(&str, usize)> = nodes
        .iter()
        .map(Borrow::borrow)
        .enumerate()
        .filter(|(_, n)| keep(n))
        .map(|(i, n)| (n.metadata.name.as_str(), i))
        .collect();
    picked.sort();
    picked.into_iter().map(|(_, i)| i).collect()
}

/// `kubectl taint` on one node: `checkIfTaintsAlreadyExists` (without `--overwrite`, adding
/// a taint whose key and effect the node has is refused, whatever the values), then
/// `reorganizeTaints` (the additions, then the node's other taints; removals by key and
/// effect, or by key for `KEY-`; a removal that matches nothing fails the node).
///
/// The operation word is kubectl's, quirks included: `modified` whenever `--overwrite` is
/// given, and whether removals count is decided by the last removal alone.
///
/// ```
/// use placement_core::cluster::what_if::{nodes::taint, TaintChange};
/// use placement_core::model::Node;
/// let mut node = Node::default();
/// node.metadata.name = "a".into();
/// let add = TaintChange::Add("dedicated=web:NoExecute".parse().unwrap());
/// let edit = taint(&mut node, &[add.clone()], false).unwrap();
/// assert_eq!(edit.to_string(), "node/a tainted");
/// assert_eq!(edit.added_no_execute().count(), 1);
/// assert_eq!(
///     taint(&mut node, &[add], false).unwrap_err().to_string(),
///     "error: node a already has dedicated taint(s) with same effect(s) and --overwrite is false"
/// );
/// ```
pub fn taint(node: &mut Node, changes: &[TaintChange], overwrite: bool) -> Result<NodeEdit, WhatIfError> {
    let adds: Vec<&Taint> =
        changes.iter().filter_map(|c| if let TaintChange::Add(t) = c { Some(t) } else { None }).collect();
    let old = &node.spec.taints;
    if !overwrite {
        let keys: Vec<String> =
            adds.iter().flat_map(|t| old.iter().filter(|o| o.matches(t)).map(|_| t.key.clone())).collect();
        if !keys.is_empty() {
            return Err(WhatIfError::TaintExists { node: node.metadata.name.clone(), keys });
        }
    }
    let mut new: Vec<Taint> = adds.iter().map(|t| (*t).clone()).collect();
    for o in old {
        if !new.iter().any(|t| t.matches(o)) {
            new.push(o.clone());
        }
    }
    let added = old.len() != new.len();
    let mut deleted = false;
    let mut not_found = Vec::new();
    for change in changes {
        let TaintChange::Remove { key, effect } = change else { continue };
        let before = new.len();
        new.retain(|t| !(t.key == *key && effect.as_ref().is_none_or(|e| t.effect == *e)));
        deleted = new.len() != before;
        if !deleted {
            let shown = Taint { key: key.clone(), value: String::new(), effect: effect.clone().unwrap_or_default() };
            not_found.push(shown.to_string());
        }
    }
    if !not_found.is_empty() {
        return Err(WhatIfError::TaintNotFound { node: node.metadata.name.clone(), taints: not_found });
    }
    let operation = if (added && deleted) || overwrite {
        NodeOperation::Modified
    } else if added {
        NodeOperation::Tainted
    } else {
        NodeOperation::Untainted
    };
    let mut edit = NodeEdit::new(node, operation);
    edit.added_taints = new.iter().filter(|t| !old.contains(t)).cloned().collect();
    edit.removed_taints = old.iter().filter(|t| !new.contains(t)).cloned().collect();
    node.spec.taints = new;
    Ok(edit)
}

/// `kubectl label` on one node: `validateNoOverwrites` (without `--overwrite`, a key with
/// another value is refused), `labelFunc`, then the API server's validation of the labels
/// the patch sets (keys qualified names, values label values). A removal of a label the node
/// does not have is not an error: kubectl notes `label "x" not found.`.
///
/// ```
/// use placement_core::cluster::what_if::{nodes::label, LabelChange};
/// use placement_core::model::Node;
/// let mut node = Node::default();
/// node.metadata.name = "a".into();
/// node.metadata.labels.insert("tier".into(), "web".into());
/// let set = LabelChange::Set("tier".into(), "db".into());
/// assert_eq!(
///     label(&mut node, &[set.clone()], false).unwrap_err().to_string(),
///     "error: 'tier' already has a value (web), and --overwrite is false"
/// );
/// assert_eq!(label(&mut node, &[set], true).unwrap().to_string(), "node/a labeled");
/// ```
pub fn label(node: &mut Node, changes: &[LabelChange], overwrite: bool) -> Result<NodeEdit, WhatIfError> {
    let labels = &node.metadata.labels;
    let mut notes = Vec::new();
    for change in changes {
        if let LabelChange::Remove(key) = change {
            if !labels.contains_key(key) {
                notes.push(format!("label {key:?} not found."));
            }
        }
    }
    if !overwrite {
        let conflicts: Vec<(String, String)> = changes
            .iter()
            .filter_map(|c| match c {
                LabelChange::Set(k, v) => {
                    labels.get(k).filter(|current| *current != v).map(|cur| (k.clone(), cur.clone()))
                }
                LabelChange::Remove(_) => None,
            })
            .collect();
        if !conflicts.is_empty() {
            return Err(WhatIfError::LabelExists { node: node.metadata.name.clone(), conflicts });
        }
    }
    let mut new = labels.clone();
    let mut added = Vec::new();
    let mut removed = Vec::new();
    for change in changes {
        if let LabelChange::Set(key, value) = change {
            if new.get(key) != Some(value) {
                new.insert(key.clone(), value.clone());
                added.push((key, value));
            }
        }
    }
    for change in changes {
        if let LabelChange::Remove(key) = change {
            if new.remove(key).is_some() {
                removed.push(key);
            }
        }
    }
    // The API server validates what the patch sets (`ValidateLabels` under `metadata.labels`).
    let path = FieldPath::root("metadata").child("labels");
    let mut errors = Vec::new();
    for (key, value) in &added {
        for msg in qualified_name_errors(key) {
            errors.push(FieldError::invalid(&path, serde_json::json!(key), &msg));
        }
        for msg in label_value_errors(value) {
            errors.push(FieldError::invalid(&path, serde_json::json!(value), &msg));
        }
    }
    if !errors.is_empty() {
        return Err(WhatIfError::InvalidLabels { node: node.metadata.name.clone(), errors });
    }
    let operation = match (added.is_empty(), removed.is_empty()) {
        (false, false) => NodeOperation::Modified,
        (false, true) => NodeOperation::Labeled,
        (true, false) => NodeOperation::Unlabeled,
        (true, true) => NodeOperation::NotLabeled,
    };
    let mut edit = NodeEdit::new(node, operation);
    edit.notes = notes;
    node.metadata.labels = new;
    Ok(edit)
}

/// `kubectl cordon` (`unschedulable` true) or `uncordon` (false) on one node: `already` when
/// `spec.unschedulable` is as asked. On a change, the node lifecycle controller's
/// `node.kubernetes.io/unschedulable:NoSchedule` taint follows (module docs).
///
/// ```
/// use placement_core::cluster::what_if::nodes::cordon;
/// use placement_core::model::Node;
/// let mut node = Node::default();
/// node.metadata.name = "a".into();
/// assert_eq!(cordon(&mut node, true).to_string(), "node/a cordoned");
/// assert!(node.spec.unschedulable);
/// assert_eq!(cordon(&mut node, true).to_string(), "node/a already cordoned");
/// assert_eq!(cordon(&mut node, false).to_string(), "node/a uncordoned");
/// ```
pub fn cordon(node: &mut Node, unschedulable: bool) -> NodeEdit {
    let (changed, already) = if unschedulable {
        (NodeOperation::Cordoned, NodeOperation::AlreadyCordoned)
    } else {
        (NodeOperation::Uncordoned, NodeOperation::AlreadyUncordoned)
    };
    if node.spec.unschedulable == unschedulable {
        return NodeEdit::new(node, already);
    }
    let mut edit = NodeEdit::new(node, changed);
    node.spec.unschedulable = unschedulable;
    let is_unschedulable_taint = |t: &Taint| t.key == TAINT_NODE_UNSCHEDULABLE && t.effect == NO_SCHEDULE;
    if unschedulable {
        if !node.spec.taints.iter().any(is_unschedulable_taint) {
            let taint =
                Taint { key: TAINT_NODE_UNSCHEDULABLE.into(), value: String::new(), effect: NO_SCHEDULE.into() };
            node.spec.taints.push(taint.clone());
            edit.added_taints.push(taint);
        }
    } else {
        edit.removed_taints = node.spec.taints.iter().filter(|t| is_unschedulable_taint(t)).cloned().collect();
        node.spec.taints.retain(|t| !is_unschedulable_taint(t));
    }
    edit
}

/// `kubectl uncordon` on one node: [`cordon`] with `false`.
pub fn uncordon(node: &mut Node) -> NodeEdit {
    cordon(node, false)
}

/// `kubectl delete nodes`: removes the selected nodes from the list and says `node "a"
/// deleted` for each, in the order selected. Their pods are the caller's: the pod garbage
/// collector deletes pods bound to a node that no longer exists.
pub fn delete(nodes: &mut Vec<Node>, selected: &[usize]) -> Vec<NodeEdit> {
    let edits: Vec<NodeEdit> =
        selected.iter().filter_map(|i| nodes.get(*i)).map(|n| NodeEdit::new(n, NodeOperation::Deleted)).collect();
    let mut index = 0;
    nodes.retain(|_| {
        let keep = !selected.contains(&index);
        index += 1;
        keep
    });
    edits
}

/// Placement's `add-nodes N like NODE`: `count` copies of the node named `like`, named
/// `<like>-whatif-1`, `-2`, ... (skipping names already taken), their
/// `kubernetes.io/hostname` label set to the new name. They keep the template's other labels,
/// annotations, taints, capacity, allocatable and conditions; they are schedulable (no
/// `spec.unschedulable`, nor the taint that goes with it) and have no uid or timestamps.
///
/// ```
/// use placement_core::cluster::what_if::nodes::add_like;
/// use placement_core::model::Node;
/// let mut node = Node::default();
/// node.metadata.name = "pool-1".into();
/// let added = add_like(&[node], "pool-1", 2).unwrap();
/// let names: Vec<&str> = added.iter().map(|n| n.metadata.name.as_str()).collect();
/// assert_eq!(names, ["pool-1-whatif-1", "pool-1-whatif-2"]);
/// assert_eq!(added[0].metadata.labels["kubernetes.io/hostname"], "pool-1-whatif-1");
/// ```
pub fn add_like<N: Borrow<Node>>(nodes: &[N], like: &str, count: u32) -> Result<Vec<Node>, WhatIfError> {
    if !(1..=MAX_ADD_NODES).contains(&count) {
        return Err(WhatIfError::AddNodesCount { count });
    }
    let template = nodes
        .iter()
        .map(Borrow::borrow)
        .find(|n| n.metadata.name == like)
        .ok_or_else(|| WhatIfError::NodeNotFound { name: like.to_string() })?;
    let mut added: Vec<Node> = Vec::new();
    let mut suffix = 0u64;
    while added.len() < count as usize {
        suffix += 1;
        let name = format!("{like}-whatif-{suffix}");
        let taken = |n: &Node| n.metadata.name == name;
        if nodes.iter().map(Borrow::borrow).any(taken) || added.iter().any(taken) {
            continue;
        }
        let errors: Vec<String> =
            dns1123_subdomain_errors(&name).into_iter().chain(label_value_errors(&name)).collect();
        if let Some(detail) = errors.into_iter().next() {
            return Err(WhatIfError::GeneratedName { like: like.to_string(), name, detail });
        }
        let mut node = template.clone();
        node.metadata.name = name.clone();
        node.metadata.generate_name.clear();
        node.metadata.uid.clear();
        node.metadata.creation_timestamp = None;
        node.metadata.deletion_timestamp = None;
        node.metadata.labels.insert(LABEL_HOSTNAME.to_string(), name);
        node.spec.unschedulable = false;
        node.spec.taints.retain(|t| !(t.key == TAINT_NODE_UNSCHEDULABLE && t.effect == NO_SCHEDULE));
        added.push(node);
    }
    Ok(added)
}

/// `node/<name> created` for each node [`add_like`] made.
pub fn created(nodes: &[Node]) -> Vec<NodeEdit> {
    nodes.iter().map(|n| NodeEdit::new(n, NodeOperation::Created)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::what_if::WhatIf;

    fn node(name: &str, labels: &[(&str, &str)], taints: &[&str]) -> Node {
        let mut n = Node::default();
        n.metadata.name = name.into();
        n.metadata.labels = labels.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        n.spec.taints = taints.iter().map(|t| t.parse().unwrap()).collect();
        n
    }

    fn taints(node: &Node) -> Vec<String> {
        node.spec.taints.iter().map(ToString::to_string).collect()
    }

    /// The changes of a `kubectl taint` or `kubectl label` line.
    fn command(text: &str) -> WhatIf {
        text.parse().unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn selections() {
        let nodes = [node("b", &[("pool", "user")], &[]), node("a", &[("pool", "user")], &[]), node("c", &[], &[])];
        let names = |v: &[&str]| NodeSelection::Names(v.iter().map(|s| s.to_string()).collect());
        // (name, selection, want)
        type Row = (&'static str, NodeSelection, Result<Vec<usize>, &'static str>);
        let rows: Vec<Row> = vec![
            ("names in the order given", names(&["c", "b"]), Ok(vec![2, 0])),
            ("a name twice, once", names(&["a", "a"]), Ok(vec![1])),
            ("missing", names(&["a", "x", "y"]), Err("Error from server (NotFound): nodes \"x\" not found")),
            ("selector in name order", NodeSelection::Selector("pool=user".parse().unwrap()), Ok(vec![1, 0])),
            ("selector matching nothing", NodeSelection::Selector("pool=gpu".parse().unwrap()), Ok(vec![])),
            ("all in name order", NodeSelection::All, Ok(vec![1, 0, 2])),
        ];
        for (name, selection, want) in rows {
            let got = select(&selection, &nodes).map_err(|e| e.to_string());
            assert_eq!(got, want.map_err(str::to_string), "{name}");
        }
        let (found, errors) = select_continue_on_error(&names(&["a", "x", "y"]), &nodes);
        assert_eq!(found, vec![1]);
        assert_eq!(
            kubectl_errors(&errors),
            "Error from server (NotFound): nodes \"x\" not found\nError from server (NotFound): nodes \"y\" not found"
        );
    }

    #[test]
    fn taint_edits() {
        // (name, node's taints, command, want: (line, taints after, added, removed) or error)
        type Want = Result<
            (&'static str, &'static [&'static str], &'static [&'static str], &'static [&'static str]),
            &'static str,
        >;
        let rows: &[(&str, &[&str], &str, Want)] = &[
            (
                "add",
                &[],
                "kubectl taint nodes a k=v:NoSchedule",
                Ok(("node/a tainted", &["k=v:NoSchedule"], &["k=v:NoSchedule"], &[])),
            ),
            (
                "add before the others",
                &["x:NoSchedule"],
                "kubectl taint nodes a k:NoExecute",
                Ok(("node/a tainted", &["k:NoExecute", "x:NoSchedule"], &["k:NoExecute"], &[])),
            ),
            (
                "same key, other effect",
                &["k:NoSchedule"],
                "kubectl taint nodes a k:NoExecute",
                Ok(("node/a tainted", &["k:NoExecute", "k:NoSchedule"], &["k:NoExecute"], &[])),
            ),
            (
                "exists, other value",
                &["k=a:NoSchedule"],
                "kubectl taint nodes a k=b:NoSchedule",
                Err("error: node a already has k taint(s) with same effect(s) and --overwrite is false"),
            ),
            (
                "exists, same value",
                &["k=a:NoSchedule"],
                "kubectl taint nodes a k=a:NoSchedule",
                Err("error: node a already has k taint(s) with same effect(s) and --overwrite is false"),
            ),
            (
                "two exist",
                &["k:NoSchedule", "j:NoSchedule"],
                "kubectl taint nodes a k:NoSchedule j:NoSchedule",
                Err("error: node a already has k,j taint(s) with same effect(s) and --overwrite is false"),
            ),
            (
                "overwrite a value",
                &["k=a:NoExecute"],
                "kubectl taint nodes a k=b:NoExecute --overwrite",
                Ok(("node/a modified", &["k=b:NoExecute"], &["k=b:NoExecute"], &["k=a:NoExecute"])),
            ),
            (
                "overwrite with nothing to overwrite is still modified",
                &[],
                "kubectl taint nodes a k:NoSchedule --overwrite",
                Ok(("node/a modified", &["k:NoSchedule"], &["k:NoSchedule"], &[])),
            ),
            (
                "remove by key and effect",
                &["k:NoSchedule", "k:NoExecute"],
                "kubectl taint nodes a k:NoSchedule-",
                Ok(("node/a untainted", &["k:NoExecute"], &[], &["k:NoSchedule"])),
            ),
            (
                "remove every effect of a key",
                &["k:NoSchedule", "k=v:NoExecute", "j:NoSchedule"],
                "kubectl taint nodes a k-",
                Ok(("node/a untainted", &["j:NoSchedule"], &[], &["k:NoSchedule", "k=v:NoExecute"])),
            ),
            (
                "remove missing",
                &["k:NoSchedule"],
                "kubectl taint nodes a k:NoExecute-",
                Err("error: taint \"k:NoExecute\" not found"),
            ),
            (
                "remove two missing",
                &[],
                "kubectl taint nodes a k- j:NoSchedule-",
                Err("taint \"k\" not found\ntaint \"j:NoSchedule\" not found"),
            ),
            (
                "add and remove",
                &["j:NoSchedule"],
                "kubectl taint nodes a k:NoSchedule j-",
                Ok(("node/a modified", &["k:NoSchedule"], &["k:NoSchedule"], &["j:NoSchedule"])),
            ),
            (
                "added and removed in number: not added",
                &["j:NoSchedule", "k=a:NoSchedule"],
                "kubectl taint nodes a k=b:NoSchedule j- --overwrite",
                Ok(("node/a modified", &["k=b:NoSchedule"], &["k=b:NoSchedule"], &["j:NoSchedule", "k=a:NoSchedule"])),
            ),
        ];
        for (name, before, text, want) in rows {
            let WhatIf::Taint { changes, overwrite, .. } = command(text) else { panic!("{name}") };
            let mut n = node("a", &[], before);
            let got = taint(&mut n, &changes, overwrite);
            match (got, want) {
                (Ok(edit), Ok((line, after, added, removed))) => {
                    assert_eq!(edit.to_string(), *line, "{name}");
                    assert_eq!(taints(&n), *after, "{name}");
                    let shown = |v: &[Taint]| v.iter().map(ToString::to_string).collect::<Vec<_>>();
                    assert_eq!(shown(&edit.added_taints), *added, "{name}: added");
                    assert_eq!(shown(&edit.removed_taints), *removed, "{name}: removed");
                }
                (Err(err), Err(message)) => {
                    assert_eq!(err.to_string(), *message, "{name}");
                    assert_eq!(taints(&n), *before, "{name}: the node is unchanged");
                }
                (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn label_edits() {
        // (name, node's labels, command, want: (line, notes) or error)
        type Want = Result<(&'static str, &'static [&'static str]), &'static str>;
        type Row = (&'static str, &'static [(&'static str, &'static str)], &'static str, Want);
        let rows: &[Row] = &[
            ("add", &[], "kubectl label nodes a tier=web", Ok(("node/a labeled", &[]))),
            ("same value is no change", &[("tier", "web")], "kubectl label nodes a tier=web", Ok(("node/a not labeled", &[]))),
            ("other value", &[("tier", "web")], "kubectl label nodes a tier=db", Err("error: 'tier' already has a value (web), and --overwrite is false")),
            ("two conflicts", &[("a", "1"), ("b", "2")], "kubectl label nodes a a=3 b=4", Err("'a' already has a value (1), and --overwrite is false\n'b' already has a value (2), and --overwrite is false")),
            ("overwrite", &[("tier", "web")], "kubectl label nodes a tier=db --overwrite", Ok(("node/a labeled", &[]))),
            ("remove", &[("tier", "web")], "kubectl label nodes a tier-", Ok(("node/a unlabeled", &[]))),
            ("remove missing", &[], "kubectl label nodes a tier-", Ok(("node/a not labeled", &["label \"tier\" not found."]))),
            ("both", &[("old", "x")], "kubectl label nodes a new=y old-", Ok(("node/a modified", &[]))),
            ("the API server checks keys", &[], "kubectl label nodes a 'bad key=v'", Err("The Node \"a\" is invalid: metadata.labels: Invalid value: \"bad key\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
            ("several causes", &[], "kubectl label nodes a example.com/=v", Err("The Node \"a\" is invalid: \n* metadata.labels: Invalid value: \"example.com/\": name part must be non-empty\n* metadata.labels: Invalid value: \"example.com/\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
        ];
        for (name, before, text, want) in rows {
            let WhatIf::Label { changes, overwrite, .. } = command(text) else { panic!("{name}") };
            let mut n = node("a", before, &[]);
            let original = n.clone();
            match (label(&mut n, &changes, overwrite), want) {
                (Ok(edit), Ok((line, notes))) => {
                    assert_eq!(edit.to_string(), *line, "{name}");
                    assert_eq!(edit.notes, *notes, "{name}");
                }
                (Err(err), Err(message)) => {
                    assert_eq!(err.to_string(), *message, "{name}");
                    assert_eq!(n, original, "{name}: the node is unchanged");
                }
                (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
            }
        }
        let mut n = node("a", &[("old", "x"), ("keep", "1")], &[]);
        label(&mut n, &[LabelChange::Set("new".into(), "y".into()), LabelChange::Remove("old".into())], false).unwrap();
        assert_eq!(
            n.metadata.labels,
            [("keep", "1"), ("new", "y")].iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
        );
        let err = label(&mut n, &[LabelChange::Set("k".into(), "-v".into())], false).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("The Node \"a\" is invalid: metadata.labels: Invalid value: \"-v\": a valid label"),
            "{err}"
        );
    }

    #[test]
    fn cordon_edits() {
        // (name, unschedulable before, taints before, cordon?, line, taints after)
        const UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable:NoSchedule";
        type Row = (&'static str, bool, &'static [&'static str], bool, &'static str, &'static [&'static str]);
        let rows: &[Row] = &[
            ("cordon", false, &[], true, "node/a cordoned", &[UNSCHEDULABLE]),
            (
                "cordon keeps other taints",
                false,
                &["k:NoExecute"],
                true,
                "node/a cordoned",
                &["k:NoExecute", UNSCHEDULABLE],
            ),
            ("already cordoned", true, &[UNSCHEDULABLE], true, "node/a already cordoned", &[UNSCHEDULABLE]),
            ("uncordon", true, &[UNSCHEDULABLE, "k:NoExecute"], false, "node/a uncordoned", &["k:NoExecute"]),
            ("already uncordoned", false, &[], false, "node/a already uncordoned", &[]),
        ];
        for (name, before, before_taints, cordoned, line, after) in rows {
            let mut n = node("a", &[], before_taints);
            n.spec.unschedulable = *before;
            let edit = cordon(&mut n, *cordoned);
            assert_eq!(edit.to_string(), *line, "{name}");
            assert_eq!(n.spec.unschedulable, *cordoned, "{name}");
            assert_eq!(taints(&n), *after, "{name}");
        }
        let mut n = node("a", &[], &[]);
        assert_eq!(cordon(&mut n, true).added_taints.len(), 1);
        assert_eq!(cordon(&mut n, false).removed_taints.len(), 1);
    }

    #[test]
    fn deletions() {
        let mut nodes = vec![node("a", &[], &[]), node("b", &[], &[]), node("c", &[], &[])];
        let edits = delete(&mut nodes, &[2, 0]);
        let lines: Vec<String> = edits.iter().map(ToString::to_string).collect();
        assert_eq!(lines, ["node \"c\" deleted", "node \"a\" deleted"]);
        assert_eq!(nodes.iter().map(|n| n.metadata.name.as_str()).collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn nodes_added_like_another() {
        let mut template = node("pool-1", &[("pool", "user"), (LABEL_HOSTNAME, "pool-1")], &["k:NoSchedule"]);
        template.spec.taints.push(Taint {
            key: TAINT_NODE_UNSCHEDULABLE.into(),
            value: String::new(),
            effect: NO_SCHEDULE.into(),
        });
        template.spec.unschedulable = true;
        template.metadata.uid = "uid-1".into();
        template.metadata.creation_timestamp = Some("2026-01-01T00:00:00Z".into());
        template.status.allocatable =
            Some([("cpu".to_string(), crate::model::quantity::Quantity::from_value(4))].into());
        let nodes = vec![template.clone(), node("pool-1-whatif-2", &[], &[])];
        let added = add_like(&nodes, "pool-1", 2).unwrap();
        let names: Vec<&str> = added.iter().map(|n| n.metadata.name.as_str()).collect();
        assert_eq!(names, ["pool-1-whatif-1", "pool-1-whatif-3"], "taken names are skipped");
        let n = &added[0];
        assert_eq!(n.metadata.labels.get(LABEL_HOSTNAME).map(String::as_str), Some("pool-1-whatif-1"));
        assert_eq!(n.metadata.labels.get("pool").map(String::as_str), Some("user"));
        assert_eq!(taints(n), ["k:NoSchedule"]);
        assert!(!n.spec.unschedulable);
        assert!(n.metadata.uid.is_empty() && n.metadata.creation_timestamp.is_none());
        assert_eq!(n.status.allocatable, template.status.allocatable);
        assert_eq!(created(&added[..1])[0].to_string(), "node/pool-1-whatif-1 created");

        // (name, like, count, error)
        let long = "a".repeat(60);
        let nodes = vec![template, node(&long, &[], &[])];
        let rows = [
            ("missing template", "nope", 1, "Error from server (NotFound): nodes \"nope\" not found".to_string()),
            ("none", "pool-1", 0, "add-nodes: the count must be a whole number from 1 to 1000, not 0".to_string()),
            ("too many", "pool-1", 1001, "add-nodes: the count must be a whole number from 1 to 1000, not 1001".to_string()),
            (
                "name too long for the hostname label",
                long.as_str(),
                1,
                format!("add-nodes: the new node name \"{long}-whatif-1\" (made from \"{long}\") is invalid: must be no more than 63 characters"),
            ),
        ];
        for (name, like, count, message) in rows {
            assert_eq!(add_like(&nodes, like, count).unwrap_err().to_string(), message, "{name}");
        }
    }

    #[test]
    fn errors_carry_their_context() {
        let err = WhatIfError::TaintNotFound { node: "a".into(), taints: vec!["k".into()] }
            .in_command("kubectl taint nodes a k-");
        assert_eq!(err.to_string(), "error: taint \"k\" not found");
        assert_eq!(err.command(), Some("kubectl taint nodes a k-"));
        assert_eq!(err.node(), Some("a"));
        // Several nodes' errors: each as Go prints it, a node's several in brackets.
        let errors = [
            WhatIfError::TaintNotFound { node: "a".into(), taints: vec!["k".into(), "j".into()] },
            WhatIfError::TaintExists { node: "b".into(), keys: vec!["x".into()] },
            WhatIfError::InvalidLabels {
                node: "c".into(),
                errors: vec![FieldError::invalid(&FieldPath::root("metadata.labels"), serde_json::json!("-"), "bad")],
            },
        ];
        assert_eq!(
            kubectl_errors(&errors),
            "[taint \"k\" not found, taint \"j\" not found]\n\
             node b already has x taint(s) with same effect(s) and --overwrite is false\n\
             Error from server (Invalid): Node \"c\" is invalid: metadata.labels: Invalid value: \"-\": bad"
        );
    }
}
