//! `--what-if`: kubectl commands about to be run against the nodes, applied to the input as a
//! cluster snapshot, and what they change there.
//!
//! Each command is applied in turn, with kubectl's syntax, node selection and refusals
//! ([`command`], [`nodes`], [`drain`]); pods the command takes off their nodes (new NoExecute
//! taints, a drain, a deleted node) leave the snapshot, so their controllers re-create them in
//! the simulation after the change; then the reports before and after are compared
//! ([`crate::cluster::changes`]).
//!
//! The end state is reported: a pod tolerating a new NoExecute taint for `tolerationSeconds`
//! is counted evicted (with the delay). A drain evicts through the Eviction API's
//! PodDisruptionBudget checks ([`drain::EvictionBudgets`]): a pod its budget does not let go
//! stays on its cordoned node, as kubectl's retries leave it (without `--timeout`, kubectl
//! never returns, and the nodes after it are not drained). The retries that succeed once the
//! replacements of pods evicted earlier are bound are replayed ([`run_what_if`]).

use crate::cluster::changes::{self, BlockedEviction, CommandOutcome, EvictedPod, NodeSets};
use crate::cluster::pools::PoolLabel;
use crate::cluster::simulate::{simulate_resolved, Report, SimulateOptions};
use crate::cluster::snapshot::{self, Ownership, Role};
use crate::cluster::what_if::{drain, nodes, NodeSelection, WhatIf, WhatIfError};
use crate::input::documents::{DocRef, InputError, Manifests, Workload, WorkloadKind};
use crate::model::taints::{no_execute_eviction, NoExecuteEviction};
use crate::model::{Node, Pod, PodStatus};
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};

/// Why a what-if run stopped.
#[derive(Debug, thiserror::Error)]
pub enum WhatIfFailure {
    /// The input itself is invalid (every error, as `simulate` reports them).
    #[error("{}", .0.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))]
    Input(Vec<InputError>),
    /// A command kubectl would fail on (a node that does not exist, a taint without
    /// `--overwrite`, ...): nothing after it is applied. `index` is its position in the
    /// commands given (0-based); the ones before it applied.
    #[error("--what-if {command:?}: {error}")]
    Command { index: usize, command: String, error: Box<WhatIfError> },
}

/// A what-if run: the report of the cluster after the commands (with `changes`), and the
/// snapshot as the commands left it (nodes edited, added or deleted; evicted pods gone, or
/// turned into their replacements), which the report simulates.
#[derive(Debug, Clone)]
pub struct WhatIfRun {
    pub report: Report,
    pub after: Manifests,
}

/// Simulates `manifests` as they are and after `commands`; the report is the cluster after
/// them, with `changes` saying what changed.
pub fn simulate_what_if(
    manifests: &Manifests,
    commands: &[WhatIf],
    opts: &SimulateOptions,
    pools: &PoolLabel,
) -> Result<Report, WhatIfFailure> {
    run_what_if(manifests, commands, opts, pools).map(|run| run.report)
}

/// [`simulate_what_if`], also returning the snapshot after the commands (for views of the
/// nodes as they are after them: the playground's).
pub fn run_what_if(
    manifests: &Manifests,
    commands: &[WhatIf],
    opts: &SimulateOptions,
    pools: &PoolLabel,
) -> Result<WhatIfRun, WhatIfFailure> {
    // The snapshot as it is and as the commands leave it are simulated at once where there
    // are threads: neither reads the other. Both start from the snapshot's ownership (every
    // object hashed: 100,000 pods), resolved once by whichever needs it first; meanwhile the
    // other applies its commands, which need it only to remove pods.
    let original = OnceLock::new();
    let (before, after) = crate::parallel::join(
        || {
            let ownership = original.get_or_init(|| snapshot::resolve(manifests));
            simulate_resolved(manifests, opts, Some(ownership)).map_err(WhatIfFailure::Input)
        },
        || {
            // kubectl retries an eviction a budget refused; it goes through once the budget's
            // evicted pods are replaced. Each round replays the commands with the retries that
            // the last round's replacements let through, until no more do.
            let mut released = BTreeSet::new();
            loop {
                let (after, outcomes, evicted, ownership) = apply_all(manifests, commands, opts, &original, &released)?;
                let ownership = match &ownership {
                    OwnershipAfter::Unchanged => original.get(),
                    OwnershipAfter::Renumbered(o) => Some(o),
                    OwnershipAfter::Unknown => None,
                };
                debug_assert!(ownership.is_none_or(|o| *o == snapshot::resolve(&after)));
                let report = simulate_resolved(&after, opts, ownership).map_err(WhatIfFailure::Input)?;
                let through = retries_through(manifests, &after, &outcomes, &report);
                if through.is_empty() {
                    return Ok((after, outcomes, evicted, report));
                }
                released.extend(through);
            }
        },
    );
    // An invalid input fails both; its errors come from the snapshot as it is.
    let before = before?;
    let (after, outcomes, evicted, mut report) = after?;
    let nodes = NodeSets {
        before: manifests.nodes.iter().map(|(_, n)| &**n).collect(),
        after: after.nodes.iter().map(|(_, n)| &**n).collect(),
        pools,
    };
    report.changes = Some(changes::compare(&before, &report, &nodes, outcomes, evicted));
    Ok(WhatIfRun { report, after })
}

/// What [`apply_all`] gives: the snapshot after the commands, each command's outcome, the
/// pods they evicted, and what is known of the snapshot's ownership after them.
type Applied = (Manifests, Vec<CommandOutcome>, Vec<EvictedPod>, OwnershipAfter);

/// The snapshot's ownership after the commands, as far as it is known without resolving it
/// again.
enum OwnershipAfter {
    /// No pod was removed: the snapshot's own (the commands edit nodes only).
    Unchanged,
    /// Pods were removed, and the ownership renumbered with them ([`Ownership::without`]).
    Renumbered(Ownership),
    /// Pods were removed in a way renumbering cannot follow: resolve it again.
    Unknown,
}

/// The snapshot after `commands`, with each command's outcome and the pods they evicted.
/// `original` holds the snapshot's ownership once resolved (here, or by the simulation of the
/// snapshot as it is, running beside).
fn apply_all(
    manifests: &Manifests,
    commands: &[WhatIf],
    opts: &SimulateOptions,
    original: &OnceLock<Ownership>,
    released: &BTreeSet<String>,
) -> Result<Applied, WhatIfFailure> {
    let mut after = manifests.clone();
    let mut outcomes = Vec::with_capacity(commands.len());
    let mut evicted = Vec::new();
    let mut ownership = OwnershipAfter::Unchanged;
    for (index, command) in commands.iter().enumerate() {
        let outcome = apply(command, &mut after, &mut evicted, &mut ownership, original, opts, released)
            .map_err(|error| WhatIfFailure::Command { index, command: command.to_string(), error: Box::new(error) })?;
        outcomes.push(outcome);
    }
    Ok((after, outcomes, evicted, ownership))
}

/// The snapshot's nodes, for a selection (5,000 of them were copied for each command).
fn node_refs(m: &Manifests) -> Vec<&Node> {
    m.nodes.iter().map(|(_, n)| &**n).collect()
}

/// The nodes `selection` picks in the snapshot as it is.
fn selected(m: &Manifests, selection: &NodeSelection) -> Result<Vec<usize>, WhatIfError> {
    nodes::select(selection, &node_refs(m))
}

/// Applies one command to the snapshot; pods it takes off their nodes go to `evicted`.
fn apply(
    command: &WhatIf,
    m: &mut Manifests,
    evicted: &mut Vec<EvictedPod>,
    ownership: &mut OwnershipAfter,
    original: &OnceLock<Ownership>,
    opts: &SimulateOptions,
    released: &BTreeSet<String>,
) -> Result<CommandOutcome, WhatIfError> {
    let mut outcome = CommandOutcome { command: command.to_string(), ..Default::default() };
    let mut removals = Removals::default();
    let bound = BoundPods::of(&m.workloads);
    match command {
        WhatIf::Taint { nodes: sel, changes, overwrite } => {
            for i in selected(m, sel)? {
                let Some(node) = m.nodes.get_mut(i).map(|(_, n)| Arc::make_mut(n)) else { continue };
                let edit = nodes::taint(node, changes, *overwrite)?;
                outcome.output.push(edit.to_string());
                let added: Vec<_> = edit.added_no_execute().cloned().collect();
                if added.is_empty() {
                    continue;
                }
                let (name, taints) = (node.metadata.name.clone(), node.spec.taints.clone());
                let cmp = opts.gates.taint_toleration_comparison_operators;
                for (p, w) in bound.on(&m.workloads, &name) {
                    // Only the new taints evict: a pod that stayed with the old ones is
                    // already where the snapshot shows it.
                    let (taint, after) = match no_execute_eviction(&taints, &w.template.spec.tolerations, cmp) {
                        NoExecuteEviction::Now(t) if added.contains(&t) => (t, None),
                        NoExecuteEviction::After { seconds, taint } if added.contains(&taint) => (taint, Some(seconds)),
                        _ => continue,
                    };
                    removals.push(p, format!("taint {taint}"), after);
                }
            }
        }
        WhatIf::Cordon(sel) | WhatIf::Uncordon(sel) => {
            let cordon = matches!(command, WhatIf::Cordon(_));
            for i in selected(m, sel)? {
                let Some(node) = m.nodes.get_mut(i).map(|(_, n)| Arc::make_mut(n)) else { continue };
                outcome.output.push(nodes::cordon(node, cordon).to_string());
            }
        }
        WhatIf::Label { nodes: sel, changes, overwrite } => {
            for i in selected(m, sel)? {
                let Some(node) = m.nodes.get_mut(i).map(|(_, n)| Arc::make_mut(n)) else { continue };
                outcome.output.push(nodes::label(node, changes, *overwrite)?.to_string());
            }
        }
        WhatIf::Drain { nodes: sel, options } => {
            // The Eviction API checks each pod against the budgets as they are when the drain
            // runs (a read-back status, else counted from the bound pods); what it admits is
            // written back to a read-back status, so a later drain sees it.
            let pdbs: Vec<_> = m.scheduling.disruption_budgets.iter().map(|(_, b)| b.clone()).collect();
            let mut budgets = drain::EvictionBudgets::new(pdbs.iter(), budget_pods(&m.workloads));
            let mut refusals = Vec::new();
            // A node whose evictions kubectl retries forever (no `--timeout`): the command
            // never gets past it.
            let mut stuck: Option<String> = None;
            let mut not_drained = Vec::new();
            // The nodes left undrained, with their errors: what `RunDrain` returns.
            let mut pending: Vec<(String, Vec<String>)> = Vec::new();
            for i in selected(m, sel)? {
                let Some(node) = m.nodes.get_mut(i).map(|(_, n)| Arc::make_mut(n)) else { continue };
                outcome.output.push(nodes::cordon(node, true).to_string());
                let name = node.metadata.name.clone();
                if stuck.is_some() {
                    not_drained.push(name);
                    continue;
                }
                let on_node: Vec<(usize, Pod)> = bound.on(&m.workloads, &name).map(|(p, w)| (p, pod_of(w))).collect();
                let pods: Vec<&Pod> = on_node.iter().map(|(_, p)| p).collect();
                let plan = drain::plan(&name, &pods, options);
                if let Some(warning) = plan.warnings() {
                    outcome.output.push(format!("Warning: {warning}"));
                }
                // kubectl evicts nothing from a node whose pods it refuses; the node stays
                // cordoned. It asks for every eviction at once and retries a 429.
                let (mut done, mut retried, mut failed) = (Vec::new(), Vec::new(), Vec::new());
                for k in plan.removed() {
                    let Some((p, pod)) = on_node.get(k) else { continue };
                    let ns = pod.metadata.namespace_or_default();
                    let cause = if options.disable_eviction {
                        done.push(format!("pod/{} deleted", pod.metadata.name));
                        "drain"
                    } else {
                        outcome.output.push(format!("evicting pod {ns}/{}", pod.metadata.name));
                        match budgets.evict(pod) {
                            drain::EvictionAnswer::Evicted => {
                                done.push(format!("pod/{} evicted", pod.metadata.name));
                                "drain"
                            }
                            drain::EvictionAnswer::Blocked { budget, health } => {
                                let Some(pdb) = budgets.budget(budget) else { continue };
                                retried.push(drain::retry_line(pod));
                                let key = format!("{ns}/{}", pod.metadata.name);
                                let on_retry = released.contains(&key);
                                let allowed_at_start = budgets.allowed_at_start(budget);
                                outcome.blocked.push(BlockedEviction {
                                    pod: key,
                                    node: name.clone(),
                                    budget: pdb.key(),
                                    disruptions_allowed: health.allowed,
                                    current_healthy: health.current,
                                    desired_healthy: health.desired,
                                    unblock: drain::unblock(pdb, health, allowed_at_start),
                                    evicted_on_retry: on_retry,
                                    allowed_at_start,
                                });
                                if !on_retry {
                                    let error = format!("global timeout reached: {}", options.timeout);
                                    failed.push((pod.metadata.name.clone(), drain::eviction_error(pod, &error)));
                                    continue;
                                }
                                done.push(format!("pod/{} evicted", pod.metadata.name));
                                "drain (on a retry)"
                            }
                            drain::EvictionAnswer::MoreThanOneBudget => {
                                let error = drain::eviction_error(pod, drain::MORE_THAN_ONE_BUDGET);
                                failed.push((pod.metadata.name.clone(), error));
                                continue;
                            }
                        }
                    };
                    outcome.notes.extend(local_volume_notes(m, pod, &name));
                    removals.push(*p, cause.into(), None);
                }
                outcome.output.extend(retried);
                outcome.output.extend(done);
                let blocked_here: Vec<&BlockedEviction> =
                    outcome.blocked.iter().filter(|b| b.node == name && !b.evicted_on_retry).collect();
                if plan.refused() {
                    refusals.push(plan.result_line());
                    pending.push((name, plan.errors()));
                } else if !blocked_here.is_empty() && options.timeout.is_zero() {
                    let pods: Vec<&str> = blocked_here.iter().map(|b| b.pod.as_str()).collect();
                    outcome.notes.push(format!(
                        "kubectl drain does not return: with no --timeout it asks again every {} to evict {} while \
                         {} allows no disruption; the node stays cordoned",
                        drain::RETRY_DELAY,
                        pods.join(", "),
                        blocked_here
                            .iter()
                            .map(|b| format!("PodDisruptionBudget {}", b.budget))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ));
                    stuck = Some(name);
                } else if !failed.is_empty() {
                    // `utilerrors.NewAggregate` over the pods' errors; then the pods still on
                    // the node.
                    let errors: Vec<String> = failed.iter().map(|(_, e)| e.clone()).collect();
                    let error = drain::aggregate(&errors);
                    // kubectl's stderr, in its place among the nodes it drains in turn.
                    outcome
                        .output
                        .push(format!("There are pending pods in node {name:?} when an error occurred: {error}"));
                    outcome.output.extend(failed.iter().map(|(pod, _)| format!("pod/{pod}")));
                    outcome.output.push(format!(
                        "error: unable to drain node {name:?} due to error: {error}, continuing command..."
                    ));
                    pending.push((name, errors));
                } else {
                    outcome.output.push(plan.result_line());
                }
            }
            if let Some(node) = &stuck {
                if !not_drained.is_empty() {
                    outcome.notes.push(format!(
                        "while kubectl waits on node {node}, nodes {} are cordoned but not drained; the commands after \
                         this one are applied as if it were interrupted (Ctrl-C)",
                        not_drained.join(", ")
                    ));
                }
            }
            for (index, allowed) in budgets.read_back_allowed().collect::<Vec<_>>() {
                if let Some(status) =
                    m.scheduling.disruption_budgets.get_mut(index).and_then(|(_, b)| b.status.as_mut())
                {
                    status.disruptions_allowed = allowed;
                }
            }
            if let Some(text) = drain::pending_nodes(&pending).filter(|_| stuck.is_none()) {
                refusals.push(text);
            }
            if !refusals.is_empty() {
                outcome.refused = Some(refusals.join("\n"));
            }
        }
        WhatIf::DeleteNodes { nodes: sel, ignore_not_found } => {
            let chosen = if *ignore_not_found {
                nodes::select_continue_on_error(sel, &node_refs(m)).0
            } else {
                selected(m, sel)?
            };
            for &i in &chosen {
                let Some((_, node)) = m.nodes.get(i) else { continue };
                let name = node.metadata.name.clone();
                outcome.output.push(format!("node \"{name}\" deleted"));
                // The pod garbage collector deletes the pods bound to a node that is gone.
                for (p, _) in bound.on(&m.workloads, &name) {
                    removals.push(p, "node deleted".into(), None);
                }
            }
            let mut k = 0;
            m.nodes.retain(|_| {
                k += 1;
                !chosen.contains(&(k - 1))
            });
        }
        WhatIf::AddNodes { count, like } => {
            let added = nodes::add_like(&node_refs(m), like, *count)?;
            outcome.output.extend(nodes::created(&added).iter().map(ToString::to_string));
            // The kubelet of a node like `like` registers the same CSI node plugins, with the
            // same attach limits: its CSINode is copied too.
            let csi_node = m.storage.csi_nodes.iter().find(|(_, n)| n.metadata.name == *like).map(|(_, n)| n.clone());
            for node in added {
                let doc = DocRef {
                    index: m.nodes.len() + 1,
                    source: "what-if".into(),
                    kind: "Node".into(),
                    namespace: None,
                    name: node.metadata.name.clone(),
                };
                if let Some(template) = &csi_node {
                    let mut copy = template.clone();
                    copy.metadata.name = node.metadata.name.clone();
                    copy.metadata.uid = String::new();
                    for d in &mut copy.spec.drivers {
                        d.node_id = node.metadata.name.clone();
                    }
                    let doc = DocRef { kind: "CSINode".into(), ..doc.clone() };
                    m.storage.csi_nodes.push((doc, copy));
                }
                m.nodes.push((doc, Arc::new(node)));
            }
        }
    }
    if outcome.output.is_empty() && outcome.refused.is_none() {
        // kubectl's words when a selector matches no node.
        outcome.output.push("No resources found".into());
    }
    removals.apply(m, evicted, ownership, original);
    Ok(outcome)
}

/// The evictions kubectl's retries get through after `report`: for each budget that refused
/// some, as many as it allows once the evicted pods' replacements are bound. A budget written
/// by hand is counted again over the pods bound then (`disruption::health`: the snapshot's pods
/// by their readiness, the simulation's as ready), so an unready pod that went without the
/// budget and whose replacement runs lets a refused one through. A budget read back is believed
/// at its `disruptionsAllowed`, less the budget's pods that are gone and not replaced; one
/// that allowed nothing at the start stays so.
fn retries_through(before: &Manifests, after: &Manifests, outcomes: &[CommandOutcome], report: &Report) -> Vec<String> {
    let waiting: Vec<&BlockedEviction> =
        outcomes.iter().flat_map(|o| &o.blocked).filter(|b| !b.evicted_on_retry).collect();
    if waiting.is_empty() {
        return Vec::new();
    }
    // Labels and health of the pods bound after the commands: a pod of the snapshot by its
    // own, a pod the simulation created by its controller's template (and ready).
    let snapshot_pods: std::collections::HashMap<(&str, &str), (&crate::model::Labels, bool)> = after
        .workloads
        .iter()
        .filter(|w| w.kind == WorkloadKind::Pod)
        .map(|w| ((w.namespace.as_str(), w.name.as_str()), (&w.template.metadata.labels, ready_and_staying(w))))
        .collect();
    let template_labels: std::collections::HashMap<(&str, &str, &str), &crate::model::Labels> = after
        .workloads
        .iter()
        .map(|w| ((w.kind.as_str(), w.namespace.as_str(), w.name.as_str()), &w.template.metadata.labels))
        .collect();
    // Every pod after the commands, pending ones too (expected, not healthy).
    let pods_after: Vec<(&str, &crate::model::Labels, bool)> = report
        .workloads
        .iter()
        .flat_map(|wr| wr.pods.iter().map(move |p| (wr, p)))
        .filter(|(_, p)| p.preempted.is_none())
        .filter_map(|(wr, p)| {
            let (labels, healthy) =
                snapshot_pods.get(&(wr.namespace.as_str(), p.name.as_str())).copied().or_else(|| {
                    template_labels.get(&(wr.kind, wr.namespace.as_str(), wr.name.as_str())).map(|l| (*l, true))
                })?;
            Some((wr.namespace.as_str(), labels, healthy && p.node.is_some()))
        })
        .collect();
    let pods_before: Vec<(&str, &crate::model::Labels, bool)> = budget_pods(&before.workloads).collect();
    let mut through = Vec::new();
    let budgets: BTreeSet<&str> = waiting.iter().map(|b| b.budget.as_str()).collect();
    for key in budgets {
        let Some((_, pdb)) = before.scheduling.disruption_budgets.iter().find(|(_, b)| b.key() == key) else {
            continue;
        };
        let of_budget: Vec<&&BlockedEviction> = waiting.iter().filter(|b| b.budget == key).collect();
        let allowed = if pdb.status.is_none() {
            crate::cluster::disruption::health(pdb, pods_after.iter().copied()).allowed
        } else {
            let selector = crate::cluster::disruption::selector(pdb);
            let healthy = |pods: &[(&str, &crate::model::Labels, bool)]| {
                pods.iter()
                    .filter(|(ns, l, h)| *h && crate::cluster::disruption::covers(pdb, &selector, ns, *l))
                    .count()
            };
            let lost = healthy(&pods_before).saturating_sub(healthy(&pods_after));
            let start = of_budget.first().map_or(0, |b| b.allowed_at_start);
            i32::try_from(usize::try_from(start).unwrap_or(0).saturating_sub(lost)).unwrap_or(0)
        };
        through.extend(of_budget.iter().take(usize::try_from(allowed).unwrap_or(0)).map(|b| b.pod.clone()));
    }
    through
}

/// `(namespace, labels, healthy)` of the snapshot's pods not finished: what a
/// PodDisruptionBudget's health is counted over (`getPodsForPdb`, `countHealthyPods`): every
/// one is expected; healthy, one bound to a node, ready and not being deleted.
fn budget_pods(workloads: &[Arc<Workload>]) -> impl Iterator<Item = (&str, &crate::model::Labels, bool)> + Clone {
    workloads.iter().filter(|w| w.kind == WorkloadKind::Pod && !w.pod_status.is_terminal()).map(|w| {
        let healthy = !w.template.spec.node_name.is_empty() && ready_and_staying(w);
        (w.namespace.as_str(), &w.template.metadata.labels, healthy)
    })
}

/// A snapshot's pod that `countHealthyPods` counts once bound: ready, and not being deleted.
fn ready_and_staying(w: &Workload) -> bool {
    w.pod_status.is_ready() && w.template.metadata.deletion_timestamp.is_none()
}

/// For a pod evicted from `node`: each claim bound to a PersistentVolume tied to that node (a
/// local or hostPath volume, or node affinity on its hostname), which its replacement cannot
/// use anywhere else.
fn local_volume_notes(m: &Manifests, pod: &Pod, node: &str) -> Vec<String> {
    let ns = pod.metadata.namespace_or_default();
    let mut out = Vec::new();
    for v in &pod.spec.volumes {
        let Some(claim_name) = v.claim_name(&pod.metadata.name) else { continue };
        let claim =
            m.storage.claims.iter().map(|(_, c)| c).find(|c| c.namespace() == ns && c.metadata.name == *claim_name);
        let Some(claim) = claim.filter(|c| !c.spec.volume_name.is_empty()) else { continue };
        let Some(pv) = m.storage.volumes.iter().map(|(_, v)| v).find(|v| v.metadata.name == claim.spec.volume_name)
        else {
            continue;
        };
        let pinned_here = pv.pinned_hostnames().is_some_and(|names| names.contains(&node));
        let local_without_affinity =
            (pv.spec.local.is_some() || pv.spec.host_path.is_some()) && pv.spec.node_affinity.is_none();
        if pinned_here || local_without_affinity {
            out.push(format!(
                "pod {ns}/{} cannot move: its claim {} is bound to PersistentVolume {}, local to node {node}; its \
                 replacement stays Pending until the node is uncordoned (or the claim and volume are deleted)",
                pod.metadata.name, claim.metadata.name, pv.metadata.name
            ));
        }
    }
    out
}

/// Pods a command takes off their nodes, applied together once the command is done.
#[derive(Default)]
struct Removals {
    /// (workload index, cause, after seconds)
    evicted: Vec<(usize, String, Option<i64>)>,
}

impl Removals {
    fn push(&mut self, pod: usize, cause: String, after_seconds: Option<i64>) {
        if !self.evicted.iter().any(|(p, ..)| *p == pod) {
            self.evicted.push((pod, cause, after_seconds));
        }
    }

    /// Removes the evicted pods from the snapshot, so their controllers re-create them. A pod
    /// whose controller is not in the input is turned into its own replacement: a copy that
    /// waits for a node, as the ReplicaSet, StatefulSet or Job would create it.
    fn apply(
        self,
        m: &mut Manifests,
        evicted: &mut Vec<EvictedPod>,
        kept: &mut OwnershipAfter,
        original: &OnceLock<Ownership>,
    ) {
        if self.evicted.is_empty() {
            return;
        }
        let resolved;
        let ownership = match std::mem::replace(kept, OwnershipAfter::Unknown) {
            // `m`'s workloads are still the snapshot's: its ownership is the original one.
            OwnershipAfter::Unchanged => original.get_or_init(|| snapshot::resolve(m)),
            OwnershipAfter::Renumbered(o) => {
                resolved = o;
                &resolved
            }
            OwnershipAfter::Unknown => {
                resolved = snapshot::resolve(m);
                &resolved
            }
        };
        let mut remove: Vec<usize> = Vec::new();
        for (p, cause, after_seconds) in self.evicted {
            let Some(w) = m.workloads.get(p) else { continue };
            let replaced_by = replaced_by(ownership, p, &m.workloads);
            evicted.push(EvictedPod {
                namespace: w.namespace.clone(),
                pod: w.name.clone(),
                node: w.template.spec.node_name.clone(),
                cause,
                after_seconds,
                replaced_by: replaced_by.0,
            });
            if replaced_by.1 {
                if let Some(w) = m.workloads.get_mut(p) {
                    become_replacement(Arc::make_mut(w));
                }
            } else {
                remove.push(p);
            }
        }
        // One pass: removing each of a drained pool's pods in turn moved the whole list
        // once per pod.
        remove.sort_unstable();
        let mut k = 0;
        m.workloads.retain(|_| {
            k += 1;
            remove.binary_search(&(k - 1)).is_err()
        });
        // Replacements keep their roles: their controller references do not change.
        *kept = ownership.without(&remove).map_or(OwnershipAfter::Unknown, OwnershipAfter::Renumbered);
    }
}

/// Who re-creates the pod at `p`, in words, and whether the pod must be turned into its own
/// replacement (its controller is not in the input).
fn replaced_by(ownership: &Ownership, p: usize, workloads: &[Arc<Workload>]) -> (String, bool) {
    let label = |i: usize| {
        workloads.get(i).map(|w| format!("{} {}/{}", w.kind.as_str(), w.namespace, w.name)).unwrap_or_default()
    };
    match ownership.role(p) {
        Role::Member { of, .. } | Role::DeploymentPod { of, .. } => {
            let daemon = workloads.get(*of).is_some_and(|w| w.kind == WorkloadKind::DaemonSet);
            let suffix = if daemon { " (on nodes it may still run on)" } else { "" };
            (format!("{}{suffix}", label(*of)), false)
        }
        Role::Orphan { group } => match ownership.groups.get(*group) {
            Some(g) if g.kind == WorkloadKind::DaemonSet => {
                (format!("DaemonSet {}/{} (not in the input; not re-created here)", g.namespace, g.name), false)
            }
            Some(g) => (
                format!(
                    "{} {}/{} (not in the input: a copy of the pod stands in for its replacement)",
                    g.kind.as_str(),
                    g.namespace,
                    g.name
                ),
                true,
            ),
            None => (String::new(), false),
        },
        _ => ("nobody: the pod has no controller".into(), false),
    }
}

/// Turns an evicted pod of a controller that is not in the input into the pod its controller
/// creates instead: no node, no status, the newest of the snapshot's waiting pods. A
/// StatefulSet's replacement keeps its name; other controllers' get a new one.
fn become_replacement(w: &mut Workload) {
    w.template.spec.node_name.clear();
    w.pod_status = PodStatus { phase: "Pending".into(), conditions: Vec::new(), start_time: None };
    w.metadata.creation_timestamp = None;
    w.metadata.deletion_timestamp = None;
    w.metadata.uid.clear();
    let stateful = w.metadata.controller().is_some_and(|r| r.kind == "StatefulSet");
    if !stateful {
        w.name = format!("{}-replacement", w.name);
        w.metadata.name.clone_from(&w.name);
        w.template.metadata.name.clone_from(&w.name);
    }
    w.template.metadata.uid.clear();
    w.template.metadata.creation_timestamp = None;
    w.template.metadata.deletion_timestamp = None;
}

/// The snapshot's pods bound to each node that hold it (neither finished nor terminating),
/// by workload index: looked up per selected node instead of scanning every pod for each.
struct BoundPods(std::collections::BTreeMap<String, Vec<usize>>);

impl BoundPods {
    fn of(workloads: &[Arc<Workload>]) -> Self {
        let mut by_node = std::collections::BTreeMap::<String, Vec<usize>>::new();
        for (p, w) in workloads.iter().enumerate() {
            let holds = w.kind == WorkloadKind::Pod
                && !w.template.spec.node_name.is_empty()
                && !w.pod_status.is_terminal()
                && w.metadata.deletion_timestamp.is_none();
            if holds {
                by_node.entry(w.template.spec.node_name.clone()).or_default().push(p);
            }
        }
        Self(by_node)
    }

    fn on<'w>(
        &'w self,
        workloads: &'w [Arc<Workload>],
        node: &str,
    ) -> impl Iterator<Item = (usize, &'w Workload)> + 'w {
        self.0.get(node).into_iter().flatten().filter_map(|&p| Some((p, &**workloads.get(p)?)))
    }
}

fn pod_of(w: &Workload) -> Pod {
    Pod { metadata: w.template.metadata.clone(), spec: w.template.spec.clone(), status: w.pod_status.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::input::documents::parse_manifests;

    /// Three nodes in two pools; a security agent on every node; web's two pods on the user
    /// pool (their ReplicaSet not in the input), one tolerating `dedicated` for 60s; a bare
    /// pod with an emptyDir on user-2; a StatefulSet-less pod of a ReplicaSet not in the input.
    const SNAPSHOT: &str = "
apiVersion: v1
kind: Node
metadata: {name: sys-1, labels: {agentpool: system}}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: user-1, labels: {agentpool: user}}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: v1
kind: Node
metadata: {name: user-2, labels: {agentpool: user}}
status: {allocatable: {cpu: '4', memory: 8Gi, pods: '110'}}
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent, namespace: sec, uid: ds}
spec: {selector: {matchLabels: {app: agent}}, template: {metadata: {labels: {app: agent}}, spec: {containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop}
spec: {replicas: 2, selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: c, image: i, resources: {requests: {cpu: '3'}}}]}}}
---
apiVersion: v1
kind: Pod
metadata: {name: agent-sys-1, namespace: sec, uid: a1, labels: {app: agent}, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds, controller: true}]}
spec: {nodeName: sys-1, containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: agent-user-1, namespace: sec, uid: a2, labels: {app: agent}, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds, controller: true}]}
spec: {nodeName: user-1, containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: agent-user-2, namespace: sec, uid: a3, labels: {app: agent}, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds, controller: true}]}
spec: {nodeName: user-2, containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web-7f-a, namespace: shop, uid: w1, labels: {app: web, pod-template-hash: 7f}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7f, uid: rs, controller: true}]}
spec: {nodeName: user-1, containers: [{name: c, image: i, resources: {requests: {cpu: '3'}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: web-7f-b, namespace: shop, uid: w2, labels: {app: web, pod-template-hash: 7f}, ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-7f, uid: rs, controller: true}]}
spec: {nodeName: user-2, tolerations: [{key: dedicated, operator: Exists, effect: NoExecute, tolerationSeconds: 60}], containers: [{name: c, image: i, resources: {requests: {cpu: '3'}}}]}
status: {phase: Running}
---
apiVersion: v1
kind: Pod
metadata: {name: scratch, namespace: shop, uid: s1}
spec: {nodeName: user-2, volumes: [{name: tmp, emptyDir: {}}], containers: [{name: c, image: i}]}
status: {phase: Running}
";

    fn run(commands: &[&str]) -> Report {
        let m = parse_manifests(SNAPSHOT, "snapshot.yaml").unwrap();
        let commands: Vec<WhatIf> = commands.iter().map(|c| c.parse().unwrap()).collect();
        simulate_what_if(&m, &commands, &SimulateOptions::default(), &PoolLabel::Detect).unwrap()
    }

    fn evicted(r: &Report) -> Vec<(String, String, Option<i64>)> {
        let c = r.changes.as_ref().unwrap();
        c.evicted.iter().map(|e| (e.pod.clone(), e.cause.clone(), e.after_seconds)).collect()
    }

    fn lost(r: &Report) -> Vec<(String, Vec<String>)> {
        let c = r.changes.as_ref().unwrap();
        c.daemon_sets.iter().map(|d| (d.pool.clone(), d.lost.clone())).collect()
    }

    fn counters(r: &Report, name: &str) -> [i64; 4] {
        let w = r.workloads.iter().find(|w| w.name == name).unwrap();
        [w.desired, w.current, w.scheduled, w.pending]
    }

    #[test]
    fn a_no_execute_taint_on_a_pool_evicts_and_the_agent_loses_it() {
        let r = run(&["kubectl taint nodes -l agentpool=user dedicated=web:NoExecute"]);
        let taint = "taint dedicated=web:NoExecute".to_string();
        assert_eq!(
            evicted(&r),
            [
                ("agent-user-1".into(), taint.clone(), None),
                ("web-7f-a".into(), taint.clone(), None),
                ("agent-user-2".into(), taint.clone(), None),
                ("web-7f-b".into(), taint.clone(), Some(60)),
                ("scratch".into(), taint, None),
            ]
        );
        assert_eq!(lost(&r), [("user".to_string(), vec!["user-1".to_string(), "user-2".to_string()])]);
        // The two web replacements need 3 cpu each and only sys-1 (4 cpu, 100m used) is left.
        assert_eq!(counters(&r, "web"), [2, 2, 1, 1]);
        let c = r.changes.as_ref().unwrap();
        assert_eq!(c.now_pending.len(), 1, "{:?}", c.now_pending);
        assert!(c.now_pending[0]
            .message
            .as_deref()
            .unwrap()
            .starts_with("0/3 nodes are available: 1 Insufficient cpu, 2 node(s) had untolerated taint(s)."));
        let scratch = c.evicted.iter().find(|e| e.pod == "scratch").unwrap();
        assert_eq!(scratch.replaced_by, "nobody: the pod has no controller");
        assert_eq!(c.commands[0].output, ["node/user-1 tainted", "node/user-2 tainted"]);
    }

    #[test]
    fn drains_follow_kubectl_and_its_refusals() {
        // (name, command, want evicted pods, want refusal fragment)
        let rows: [(&str, &str, &[&str], Option<&str>); 4] = [
            (
                "daemon pods refuse the drain",
                "kubectl drain user-1",
                &[],
                Some("cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): sec/agent-user-1"),
            ),
            ("ignoring them drains", "kubectl drain user-1 --ignore-daemonsets", &["web-7f-a"], None),
            (
                "a bare pod with an emptyDir needs --force and --delete-emptydir-data",
                "kubectl drain user-2 --ignore-daemonsets",
                &[],
                // kubectl's filters run in order and the first that refuses names the pod.
                Some("cannot delete Pods with local storage (use --delete-emptydir-data to override): shop/scratch"),
            ),
            (
                "with both",
                "kubectl drain user-2 --ignore-daemonsets --force --delete-emptydir-data",
                &["scratch", "web-7f-b"],
                None,
            ),
        ];
        for (name, command, want, refused) in rows {
            let r = run(&[command]);
            let got: Vec<String> = evicted(&r).into_iter().map(|(p, _, _)| p).collect();
            assert_eq!(got, want, "{name}");
            let outcome = &r.changes.as_ref().unwrap().commands[0];
            match refused {
                Some(fragment) => {
                    assert!(outcome.refused.as_deref().is_some_and(|x| x.contains(fragment)), "{name}: {outcome:?}")
                }
                None => assert_eq!(outcome.refused, None, "{name}"),
            }
            let node = command.split_whitespace().nth(2).unwrap();
            let cordoned = r.workloads.iter().find(|w| w.name == "web").unwrap().nodes.get(node).map(|v| v.fits);
            assert_ne!(cordoned, Some(true), "{name}: the drained node is cordoned, refused or not");
        }
    }

    #[test]
    fn deleting_labelling_cordoning_and_adding_nodes() {
        let r = run(&["kubectl delete node user-2"]);
        assert_eq!(
            evicted(&r).into_iter().map(|(p, c, _)| (p, c)).collect::<Vec<_>>(),
            [
                ("agent-user-2".to_string(), "node deleted".to_string()),
                ("web-7f-b".into(), "node deleted".into()),
                ("scratch".into(), "node deleted".into())
            ]
        );
        assert_eq!(lost(&r), [("user".to_string(), vec!["user-2".to_string()])]);
        assert_eq!(counters(&r, "agent"), [2, 2, 2, 0]);

        // The agent selects ssd nodes once its template says so; labelling a node ssd puts
        // it back. Here: cordon keeps the agent (daemon pods tolerate it), add-nodes grows it.
        let r = run(&["kubectl cordon sys-1", "add-nodes 2 like user-1"]);
        assert_eq!(evicted(&r), []);
        assert_eq!(counters(&r, "agent"), [5, 5, 5, 0]);
        let c = r.changes.as_ref().unwrap();
        assert_eq!(c.commands[0].output, ["node/sys-1 cordoned"]);
        assert_eq!(c.daemon_sets[0].gained, ["user-1-whatif-1", "user-1-whatif-2"]);

        let r = run(&["kubectl label nodes user-1 disk=ssd"]);
        assert_eq!(r.changes.as_ref().unwrap().commands[0].output, ["node/user-1 labeled"]);

        let err = simulate_what_if(
            &parse_manifests(SNAPSHOT, "").unwrap(),
            &["kubectl cordon nope".parse().unwrap()],
            &SimulateOptions::default(),
            &PoolLabel::Detect,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "--what-if \"kubectl cordon nope\": Error from server (NotFound): nodes \"nope\" not found"
        );
    }

    /// Capacity added with the taint: a node like sys-1 gives web's second replacement the
    /// room the taint alone leaves it without (see the first test).
    #[test]
    fn added_capacity_takes_the_replacements() {
        let r = run(&["kubectl taint nodes -l agentpool=user dedicated=web:NoExecute", "add-nodes 1 like sys-1"]);
        assert_eq!(counters(&r, "web"), [2, 2, 2, 0]);
        let c = r.changes.as_ref().unwrap();
        assert_eq!(c.now_pending, []);
        let w = c.workloads.iter().find(|w| w.workload == "Deployment shop/web").unwrap();
        let mut nodes: Vec<_> = w.replacements.iter().filter_map(|p| p.node.as_deref()).collect();
        nodes.sort_unstable();
        assert_eq!(nodes, ["sys-1", "sys-1-whatif-1"]);
    }

    /// Labels decide where a DaemonSet with a node selector runs: removing the label from a
    /// node makes the controller delete its pod there; uncordon undoes a cordon.
    #[test]
    fn labels_move_daemon_sets_and_uncordon_undoes_cordon() {
        let snapshot = SNAPSHOT
            .replace("labels: {agentpool: system}", "labels: {agentpool: system, agent: 'yes'}")
            .replace("labels: {agentpool: user}", "labels: {agentpool: user, agent: 'yes'}")
            .replace(
                "template: {metadata: {labels: {app: agent}}, spec: {containers",
                "template: {metadata: {labels: {app: agent}}, spec: {nodeSelector: {agent: 'yes'}, containers",
            );
        let m = parse_manifests(&snapshot, "").unwrap();
        let run = |commands: &[&str]| {
            let commands: Vec<WhatIf> = commands.iter().map(|c| c.parse().unwrap()).collect();
            simulate_what_if(&m, &commands, &SimulateOptions::default(), &PoolLabel::Detect).unwrap()
        };
        // (name, commands, want the agent's counters after, want nodes lost)
        type Row<'a> = (&'a str, &'a [&'a str], [i64; 4], &'a [&'a str]);
        let rows: [Row; 4] = [
            ("label removed", &["kubectl label nodes user-1 agent-"], [2, 2, 2, 0], &["user-1"]),
            (
                "label changed",
                &["kubectl label nodes -l agentpool=user agent=no --overwrite"],
                [1, 1, 1, 0],
                &["user-1", "user-2"],
            ),
            ("label unchanged", &["kubectl label nodes user-1 team=a"], [3, 3, 3, 0], &[]),
            ("cordon then uncordon", &["kubectl cordon sys-1", "kubectl uncordon sys-1"], [3, 3, 3, 0], &[]),
        ];
        for (name, commands, want, want_lost) in rows {
            let r = run(commands);
            assert_eq!(counters(&r, "agent"), want, "{name}");
            let c = r.changes.as_ref().unwrap();
            let got: Vec<&str> = c.daemon_sets.iter().flat_map(|d| d.lost.iter().map(String::as_str)).collect();
            assert_eq!(got, want_lost, "{name}");
            assert_eq!(evicted(&r), [], "{name}: the controller deletes; nothing is evicted");
        }
        let r = run(&["kubectl cordon sys-1", "kubectl uncordon sys-1"]);
        let outputs: Vec<&[String]> =
            r.changes.as_ref().unwrap().commands.iter().map(|c| c.output.as_slice()).collect();
        assert_eq!(outputs, [["node/sys-1 cordoned".to_string()], ["node/sys-1 uncordoned".to_string()]]);
        assert!(r.workloads.iter().find(|w| w.name == "web").unwrap().nodes.get("sys-1").is_none_or(|v| v.fits));
    }

    const NODES: &str = "apiVersion: v1\nkind: Node\nmetadata: {name: a, labels: {agentpool: user}}\n---\napiVersion: v1\nkind: Node\nmetadata: {name: b, labels: {agentpool: system}}\n";

    fn commands(lines: &[&str]) -> Vec<WhatIf> {
        lines.iter().map(|l| l.parse().unwrap()).collect()
    }

    #[test]
    fn the_run_returns_the_snapshot_after_the_commands() {
        let m = parse_manifests(NODES, "nodes").unwrap();
        let run = run_what_if(
            &m,
            &commands(&["kubectl cordon b", "kubectl delete node -l agentpool=user", "add-nodes 1 like b"]),
            &SimulateOptions::default(),
            &PoolLabel::Detect,
        )
        .unwrap();
        let after: Vec<(&str, bool)> =
            run.after.nodes.iter().map(|(_, n)| (n.metadata.name.as_str(), n.spec.unschedulable)).collect();
        // A new node like a cordoned one joins schedulable, as a new node of its pool would.
        assert_eq!(after, [("b", true), ("b-whatif-1", false)]);
        assert_eq!(run.report.changes.map(|c| c.commands.len()), Some(3));
    }

    #[test]
    fn a_failing_command_is_named_by_its_position() {
        let m = parse_manifests(NODES, "nodes").unwrap();
        let failure = simulate_what_if(
            &m,
            &commands(&["kubectl cordon a", "kubectl cordon a", "kubectl cordon c", "kubectl cordon b"]),
            &SimulateOptions::default(),
            &PoolLabel::Detect,
        )
        .unwrap_err();
        let WhatIfFailure::Command { index, command, error } = failure else { panic!("{failure:?}") };
        assert_eq!((index, command.as_str()), (2, "kubectl cordon c"));
        assert_eq!(error.to_string(), "Error from server (NotFound): nodes \"c\" not found");
    }
}

#[cfg(test)]
mod budget_tests {
    use super::*;
    use crate::input::documents::parse_manifests;

    /// node-a runs web's two pods (their ReplicaSet not in the input); node-b has `room` cpu
    /// for their replacements, node-c is empty; `budgets` are appended.
    fn snapshot(room: &str, web_b_status: &str, budgets: &str) -> String {
        let pod = |name: &str, status: &str| {
            format!(
                "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: shop, uid: {name}, labels: {{app: web}}, \
                 ownerReferences: [{{apiVersion: apps/v1, kind: ReplicaSet, name: web-7f, uid: rs, controller: true}}]}}\n\
                 spec: {{nodeName: node-a, containers: [{{name: c, image: i, resources: {{requests: {{cpu: 500m}}}}}}]}}\n\
                 status: {status}\n---\n"
            )
        };
        let node = |name: &str, cpu: &str| {
            format!("apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\nstatus: {{allocatable: {{cpu: '{cpu}', memory: 8Gi, pods: '110'}}}}\n---\n")
        };
        format!(
            "{}{}{}{}{}{budgets}",
            node("node-a", "4"),
            node("node-b", room),
            node("node-c", "0"),
            pod("web-1", "{phase: Running}"),
            pod("web-2", web_b_status)
        )
    }

    fn budget(name: &str, spec: &str) -> String {
        format!(
            "apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {{name: {name}, namespace: shop}}\n\
             spec: {{{spec}, selector: {{matchLabels: {{app: web}}}}}}\n---\n"
        )
    }

    fn outcome(input: &str, command: &str) -> (CommandOutcome, Vec<String>) {
        let m = parse_manifests(input, "snapshot.yaml").unwrap();
        let commands: Vec<WhatIf> = vec![command.parse().unwrap()];
        let r = simulate_what_if(&m, &commands, &SimulateOptions::default(), &PoolLabel::Detect).unwrap();
        let c = r.changes.unwrap();
        let evicted = c.evicted.iter().map(|e| format!("{}/{} {}", e.namespace, e.pod, e.cause)).collect();
        (c.commands.into_iter().next().unwrap(), evicted)
    }

    #[test]
    fn drains_evict_through_pod_disruption_budgets() {
        const RETRY: &str =
            "error when evicting pods/\"web-2\" -n \"shop\" (will retry after 5s): Cannot evict pod as it \
                             would violate the pod's disruption budget.";
        let max1 = budget("web", "maxUnavailable: 1");
        let min2 = budget("web", "minAvailable: 2");
        let read_back_zero = format!(
            "{}status: {{disruptionsAllowed: 0, currentHealthy: 1, desiredHealthy: 2}}\n---\n",
            max1.trim_end_matches("---\n")
        );
        let ready_false = "{phase: Running, conditions: [{type: Ready, status: 'False'}]}";
        // (name, input, command, want output lines (in order), want evicted, want blocked pods, want refused)
        type Case<'a> = (&'a str, String, &'a str, Vec<&'a str>, Vec<&'a str>, Vec<&'a str>, Option<&'a str>);
        let cases: Vec<Case> = vec![
            (
                "no budget: both evicted",
                snapshot("4", "{phase: Running}", ""),
                "kubectl drain node-a",
                vec!["evicting pod shop/web-1", "evicting pod shop/web-2", "pod/web-1 evicted", "pod/web-2 evicted", "node/node-a drained"],
                vec!["shop/web-1 drain", "shop/web-2 drain"],
                vec![],
                None,
            ),
            (
                "maxUnavailable 1 with room for the replacement: the second goes on a retry",
                snapshot("4", "{phase: Running}", &max1),
                "kubectl drain node-a",
                vec!["evicting pod shop/web-2", RETRY, "pod/web-1 evicted", "pod/web-2 evicted", "node/node-a drained"],
                vec!["shop/web-1 drain", "shop/web-2 drain (on a retry)"],
                vec![],
                None,
            ),
            (
                "maxUnavailable 1, no room for the replacement: kubectl retries forever",
                snapshot("0", "{phase: Running}", &max1),
                "kubectl drain node-a",
                vec![RETRY, "pod/web-1 evicted"],
                vec!["shop/web-1 drain"],
                vec!["shop/web-2"],
                None,
            ),
            (
                "minAvailable 2 of 2 with --timeout: kubectl gives up",
                snapshot("4", "{phase: Running}", &min2),
                "kubectl drain node-a --timeout=90s",
                vec![
                    "There are pending pods in node \"node-a\" when an error occurred: [error when evicting pods/\"web-1\" -n \"shop\": global timeout reached: 1m30s, error when evicting pods/\"web-2\" -n \"shop\": global timeout reached: 1m30s]",
                    "pod/web-1",
                    "pod/web-2",
                ],
                vec![],
                vec!["shop/web-1", "shop/web-2"],
                // `CheckErr` on the one node's aggregate: each eviction's error on a line.
                Some(
                    "There are pending nodes to be drained:\n node-a\n\
                     error when evicting pods/\"web-1\" -n \"shop\": global timeout reached: 1m30s\n\
                     error when evicting pods/\"web-2\" -n \"shop\": global timeout reached: 1m30s",
                ),
            ),
            (
                "--disable-eviction deletes without asking the budget",
                snapshot("4", "{phase: Running}", &min2),
                "kubectl drain node-a --disable-eviction",
                vec!["pod/web-1 deleted", "pod/web-2 deleted", "node/node-a drained"],
                vec!["shop/web-1 drain", "shop/web-2 drain"],
                vec![],
                None,
            ),
            (
                "a read-back status is believed over the spec",
                snapshot("4", "{phase: Running}", &read_back_zero),
                "kubectl drain node-a --timeout=1m",
                vec!["error when evicting pods/\"web-1\" -n \"shop\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget."],
                vec![],
                vec!["shop/web-1", "shop/web-2"],
                Some(
                    "There are pending nodes to be drained:\n node-a\n\
                     error when evicting pods/\"web-1\" -n \"shop\": global timeout reached: 1m0s\n\
                     error when evicting pods/\"web-2\" -n \"shop\": global timeout reached: 1m0s",
                ),
            ),
            (
                // `countHealthyPods`: the unready pod is expected, not healthy, so the budget
                // allows nothing; the eviction API lets the unready one go (the budget is met)
                // and holds the ready one.
                "an unready pod goes without the budget; the ready one waits, no room for a replacement",
                snapshot("0", ready_false, &budget("web", "minAvailable: 1")),
                "kubectl drain node-a",
                vec![
                    "error when evicting pods/\"web-1\" -n \"shop\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.",
                    "pod/web-2 evicted",
                ],
                vec!["shop/web-2 drain"],
                vec!["shop/web-1"],
                None,
            ),
            (
                "an unready pod goes without the budget; the ready one on a retry, once the replacement runs",
                snapshot("4", ready_false, &budget("web", "minAvailable: 1")),
                "kubectl drain node-a",
                vec![
                    "error when evicting pods/\"web-1\" -n \"shop\" (will retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.",
                    "pod/web-1 evicted",
                    "pod/web-2 evicted",
                    "node/node-a drained",
                ],
                vec!["shop/web-1 drain (on a retry)", "shop/web-2 drain"],
                vec![],
                None,
            ),
            (
                "two budgets select the pods: the API's 500, not retried",
                snapshot("4", "{phase: Running}", &format!("{max1}{}", budget("web-too", "maxUnavailable: 1"))),
                "kubectl drain node-a",
                vec!["error: unable to drain node \"node-a\" due to error: [error when evicting pods/\"web-1\" -n \"shop\": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support., error when evicting pods/\"web-2\" -n \"shop\": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.], continuing command..."],
                vec![],
                vec![],
                Some(
                    "There are pending nodes to be drained:\n node-a\n\
                     error when evicting pods/\"web-1\" -n \"shop\": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.\n\
                     error when evicting pods/\"web-2\" -n \"shop\": This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.",
                ),
            ),
            (
                "kubectl never gets past a node it retries on: the next is cordoned, not drained",
                snapshot("0", "{phase: Running}", &min2),
                "kubectl drain node-a node-c",
                vec!["node/node-a cordoned", "evicting pod shop/web-1", "node/node-c cordoned"],
                vec![],
                vec!["shop/web-1", "shop/web-2"],
                None,
            ),
        ];
        for (name, input, command, want_lines, want_evicted, want_blocked, want_refused) in cases {
            let (o, evicted) = outcome(&input, command);
            let mut at = 0;
            for line in &want_lines {
                let found = o.output.iter().skip(at).position(|l| l == line);
                assert!(found.is_some(), "{name}: {line:?} (in order) in {:#?}", o.output);
                at += found.unwrap_or(0) + 1;
            }
            assert_eq!(evicted, want_evicted, "{name}");
            let blocked: Vec<&str> = o.blocked.iter().filter(|b| !b.evicted_on_retry).map(|b| b.pod.as_str()).collect();
            assert_eq!(blocked, want_blocked, "{name}: {:#?}", o.blocked);
            assert_eq!(o.refused.as_deref(), want_refused, "{name}");
            let drained = o.output.iter().any(|l| l == "node/node-a drained");
            assert_eq!(drained, want_blocked.is_empty() && want_refused.is_none(), "{name}: {:#?}", o.output);
        }
    }

    #[test]
    fn a_blocked_eviction_says_what_would_unblock_it() {
        let (o, _) =
            outcome(&snapshot("4", "{phase: Running}", &budget("web", "minAvailable: 2")), "kubectl drain node-a");
        let b = o.blocked.first().unwrap();
        assert_eq!(
            (b.budget.as_str(), b.disruptions_allowed, b.current_healthy, b.desired_healthy),
            ("shop/web", 0, 2, 2)
        );
        assert_eq!(
            b.unblock,
            [
                "scale the workload up: with 3 healthy pods the budget (minAvailable 2) allows one disruption",
                "lower the budget's spec.minAvailable from 2 to 1",
                "kubectl drain --disable-eviction deletes the pods without asking their budgets (the budget is then violated)",
            ]
        );
        assert!(o.notes.iter().any(|n| n.starts_with("kubectl drain does not return")), "{:?}", o.notes);
        let (o, _) =
            outcome(&snapshot("0", "{phase: Running}", &budget("web", "maxUnavailable: 1")), "kubectl drain node-a");
        let b = o.blocked.first().unwrap();
        assert!(b.unblock[0].starts_with("this drain's own evictions used the 1 disruption(s)"), "{:?}", b.unblock);
    }
}
