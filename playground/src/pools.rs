//! The node view by pool: the nodes grouped by a pool label (the clouds' labels by default,
//! [`PoolLabel::Detect`], or a label the user picks), and the what-if command each pool
//! action stands for (cordon, uncordon, drain, taint, remove, scale).
//!
//! An action never edits the nodes' text: it gives a [`WhatIf`] command, which the playground
//! adds to its list of pending commands ([`crate::state::Playground::add_pool_command`]).
//! A pool's nodes are named by a label selector when one picks exactly them
//! (`kubectl drain -l agentpool=user`), as people run these commands; otherwise by name.

use placement_core::cluster::pools::{PoolLabel, CONTROL_PLANE, NO_POOL, POOL_LABELS};
use placement_core::cluster::what_if::{DrainOptions, NodeSelection, WhatIf};
use placement_core::model::labels::Selector;
use placement_core::model::{Node, Taint};

/// One node of a pool, as the pool view lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolNode {
    pub name: String,
    pub cordoned: bool,
    /// `key=value:Effect`
    pub taints: Vec<String>,
}

/// One pool: its name, its nodes, and how commands select them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PoolView {
    /// The pool label's value; `(no pool)` for nodes without one.
    pub name: String,
    pub nodes: Vec<PoolNode>,
    /// A label selector that matches exactly the pool's nodes among all nodes, else their
    /// names.
    pub selection: NodeSelection,
}

/// What a pool's buttons do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolAction {
    Cordon,
    Uncordon,
    /// `kubectl drain` with its three flags that decide what may be evicted.
    Drain {
        ignore_daemonsets: bool,
        delete_emptydir_data: bool,
        force: bool,
    },
    /// The taint field: `key=value:Effect` (or several, or a removal `key:Effect-`), as
    /// `kubectl taint` takes them; `--overwrite` may follow.
    Taint(String),
    /// `kubectl delete nodes`: the pool's nodes, with the pods bound to them.
    Remove,
    /// `add-nodes N like FIRST`: N more nodes like the pool's first.
    Scale(u32),
}

impl PoolView {
    /// `-l agentpool=user`, or `aks-1, aks-2` when the pool is picked by name.
    pub fn selection_text(&self) -> String {
        match &self.selection {
            NodeSelection::Selector(s) => format!("-l {s}"),
            NodeSelection::Names(names) => names.join(", "),
            NodeSelection::All => "--all".into(),
        }
    }

    /// How many of the pool's nodes are cordoned.
    pub fn cordoned(&self) -> usize {
        self.nodes.iter().filter(|n| n.cordoned).count()
    }

    /// The command `action` stands for on this pool, in its canonical form; or why there is
    /// none (kubectl's words for a bad taint).
    pub fn command(&self, action: &PoolAction) -> Result<WhatIf, String> {
        let nodes = self.selection.clone();
        Ok(match action {
            PoolAction::Cordon => WhatIf::Cordon(nodes),
            PoolAction::Uncordon => WhatIf::Uncordon(nodes),
            PoolAction::Drain { ignore_daemonsets, delete_emptydir_data, force } => WhatIf::Drain {
                nodes,
                options: DrainOptions {
                    ignore_daemonsets: *ignore_daemonsets,
                    delete_emptydir_data: *delete_emptydir_data,
                    force: *force,
                    ..DrainOptions::default()
                },
            },
            PoolAction::Taint(text) => {
                if text.trim().is_empty() {
                    return Err("enter a taint: key=value:Effect (NoSchedule, PreferNoSchedule or NoExecute)".into());
                }
                // The command with the pool's nodes and no taint yet, then the field as
                // kubectl would read the rest of the line.
                let head = WhatIf::Taint { nodes, changes: Vec::new(), overwrite: false }.to_string();
                format!("{head} {}", text.trim()).parse::<WhatIf>().map_err(|e| e.to_string())?
            }
            PoolAction::Remove => WhatIf::DeleteNodes { nodes, ignore_not_found: false },
            PoolAction::Scale(count) => {
                let like = self.nodes.first().map(|n| n.name.clone()).ok_or("the pool has no node to copy")?;
                WhatIf::AddNodes { count: *count, like }
            }
        })
    }
}

/// The pools of `nodes` by `label`, in the order their first nodes come; nodes without a
/// pool last, as `(no pool)`.
pub fn pools(nodes: &[&Node], label: &PoolLabel) -> Vec<PoolView> {
    let mut out: Vec<(PoolView, Vec<&Node>)> = Vec::new();
    for node in nodes {
        let name = label.pool_name(node);
        let entry = match out.iter_mut().position(|(p, _)| p.name == name) {
            Some(i) => &mut out[i],
            None => {
                let view = PoolView { name, nodes: Vec::new(), selection: NodeSelection::Names(Vec::new()) };
                out.push((view, Vec::new()));
                out.last_mut().expect("just pushed")
            }
        };
        entry.0.nodes.push(PoolNode {
            name: node.metadata.name.clone(),
            cordoned: node.spec.unschedulable,
            taints: node.spec.taints.iter().map(Taint::to_string).collect(),
        });
        entry.1.push(node);
    }
    // Nodes without a pool last (moved, not sorted: no sort code for this in the page).
    if let Some(i) = out.iter().position(|(p, _)| p.name == NO_POOL) {
        let none = out.remove(i);
        out.push(none);
    }
    out.into_iter()
        .map(|(mut view, members)| {
            view.selection = selection(&view.name, &members, nodes, label);
            view
        })
        .collect()
}

/// A selector that picks exactly `members` out of `all`, else the members' names.
fn selection(pool: &str, members: &[&Node], all: &[&Node], label: &PoolLabel) -> NodeSelection {
    let names = || NodeSelection::Names(members.iter().map(|n| n.metadata.name.clone()).collect());
    let Some(first) = members.first() else { return names() };
    let text = match label {
        _ if pool == NO_POOL => return names(),
        PoolLabel::Key(key) => format!("{key}={pool}"),
        PoolLabel::Detect => match POOL_LABELS.iter().find(|k| first.metadata.labels.contains_key(**k)) {
            Some(key) => format!("{key}={pool}"),
            None if pool == CONTROL_PLANE => "node-role.kubernetes.io/control-plane".into(),
            None => return names(),
        },
    };
    let Ok(selector) = text.parse::<Selector>() else { return names() };
    let exact = all.iter().all(|n| {
        let member = members.iter().any(|m| std::ptr::eq(*m, *n));
        selector.matches(&n.metadata.labels) == member
    });
    if exact {
        NodeSelection::Selector(selector)
    } else {
        names()
    }
}

/// Every label key the nodes carry, sorted: the choices for the pool label.
pub fn label_keys(nodes: &[&Node]) -> Vec<String> {
    let mut keys: Vec<&String> = nodes.iter().flat_map(|n| n.metadata.labels.keys()).collect();
    keys.sort_unstable();
    keys.dedup();
    keys.into_iter().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use placement_core::input::documents::parse_manifests;

    fn nodes(text: &str) -> Vec<Node> {
        parse_manifests(text, "nodes")
            .unwrap()
            .nodes
            .into_iter()
            .map(|(_, n)| std::sync::Arc::unwrap_or_clone(n))
            .collect()
    }

    const AKS: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: sys-0, labels: {agentpool: system, kubernetes.azure.com/agentpool: system}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: user-0, labels: {agentpool: user, kubernetes.azure.com/agentpool: user, zone: a}}\nspec: {unschedulable: true}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: user-1, labels: {agentpool: user, kubernetes.azure.com/agentpool: user, zone: b}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: loose, labels: {zone: a}}\n";

    #[test]
    fn pools_from_the_clouds_labels_are_picked_by_selector() {
        let all = nodes(AKS);
        let refs: Vec<&Node> = all.iter().collect();
        let pools = pools(&refs, &PoolLabel::Detect);
        let summary: Vec<(String, Vec<String>, String)> = pools
            .iter()
            .map(|p| (p.name.clone(), p.nodes.iter().map(|n| n.name.clone()).collect(), p.selection_text()))
            .collect();
        assert_eq!(
            summary,
            [
                ("system".into(), vec!["sys-0".into()], "-l kubernetes.azure.com/agentpool=system".into()),
                (
                    "user".into(),
                    vec!["user-0".into(), "user-1".into()],
                    "-l kubernetes.azure.com/agentpool=user".into()
                ),
                (NO_POOL.into(), vec!["loose".into()], "loose".into()),
            ]
        );
        assert_eq!(pools[1].cordoned(), 1);

        // (action, the command it adds)
        let rows: [(PoolAction, Result<&str, &str>); 8] = [
            (PoolAction::Cordon, Ok("kubectl cordon -l kubernetes.azure.com/agentpool=user")),
            (PoolAction::Uncordon, Ok("kubectl uncordon -l kubernetes.azure.com/agentpool=user")),
            (
                PoolAction::Drain { ignore_daemonsets: true, delete_emptydir_data: false, force: true },
                Ok("kubectl drain -l kubernetes.azure.com/agentpool=user --ignore-daemonsets --force"),
            ),
            (
                PoolAction::Taint(" dedicated=web:NoExecute ".into()),
                Ok("kubectl taint nodes -l kubernetes.azure.com/agentpool=user dedicated=web:NoExecute"),
            ),
            (
                PoolAction::Taint("dedicated=web:Sometimes".into()),
                Err("error: invalid taint effect: Sometimes, unsupported taint effect"),
            ),
            (
                PoolAction::Taint(String::new()),
                Err("enter a taint: key=value:Effect (NoSchedule, PreferNoSchedule or NoExecute)"),
            ),
            (PoolAction::Remove, Ok("kubectl delete nodes -l kubernetes.azure.com/agentpool=user")),
            (PoolAction::Scale(2), Ok("add-nodes 2 like user-0")),
        ];
        for (action, want) in rows {
            let got = pools[1].command(&action).map(|c| c.to_string());
            assert_eq!(got.as_deref().map_err(String::as_str), want, "{action:?}");
        }
        assert_eq!(pools[2].command(&PoolAction::Cordon).unwrap().to_string(), "kubectl cordon loose");
    }

    #[test]
    fn a_chosen_label_groups_and_selects_by_it() {
        let all = nodes(AKS);
        let refs: Vec<&Node> = all.iter().collect();
        let by_zone = pools(&refs, &PoolLabel::Key("zone".into()));
        let names: Vec<&str> = by_zone.iter().map(|p| p.name.as_str()).collect();
        assert_eq!(names, ["a", "b", NO_POOL]);
        assert_eq!(by_zone[0].selection_text(), "-l zone=a");
        assert_eq!(by_zone[2].selection_text(), "sys-0");
        assert!(label_keys(&refs).contains(&"kubernetes.azure.com/agentpool".to_string()));

        let odd = nodes("apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {agentpool: user}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: n2, labels: {kubernetes.azure.com/agentpool: other, agentpool: user}}\n");
        let refs: Vec<&Node> = odd.iter().collect();
        let detected = pools(&refs, &PoolLabel::Detect);
        // n2's pool comes from the more specific label, so `-l agentpool=user` would take it
        // too: n1's pool is picked by name.
        assert_eq!(detected[0].name, "user");
        assert_eq!(detected[0].selection_text(), "n1");
    }
}
