//! A fix is verified only when the whole simulation, re-run with the fix applied to the input,
//! places every replica of the workload (for a DaemonSet: runs a daemon pod on every node the
//! fix names). Checking only the filter a fix changes let "verified" tolerations leave pods
//! Pending on cpu, and selector fixes for a GPU pod offer nodes without GPUs.
//!
//! Each re-simulation is a full simulation, so a report re-checks at most
//! [`MAX_RESIMULATIONS`] fixes (each workload's first fix first); fixes that change nodes
//! rather than the workload (repair, add capacity, label) are re-simulated once and shared by
//! every workload they are offered to.

use std::collections::BTreeMap;

use crate::cluster::simulate::{simulate_once, Report, SimulateOptions, WorkloadReport};
use crate::cluster::what_if::command::MAX_ADD_NODES;
use crate::cluster::what_if::nodes::add_like;
use crate::explain::fixes::{apply_to_spec, is_lifecycle_taint, show_amount, Fix, FixKind, Remedy};
use crate::input::documents::{Manifests, WorkloadKind};
use crate::model::Condition;

/// Re-simulations per report: bounds a simulation with fixes at this many more simulations.
pub const MAX_RESIMULATIONS: usize = 16;

/// Settles every fix of `report` (the simulation of `manifests`): sizes capacity fixes from the
/// pending pods, re-simulates, and sets `verified` or `still_blocked`. Where a workload has a
/// verified fix, its patches that do not fix are dropped.
pub fn verify_fixes(manifests: &Manifests, opts: &SimulateOptions, report: &mut Report) {
    let limit = resimulations(manifests, opts);
    let mut budget = limit;
    let mut cache: BTreeMap<String, Option<Report>> = BTreeMap::new();
    // Fixes that do not even clear the nodes they name (pre-checked when suggested).
    let prechecked: Vec<Vec<bool>> =
        report.workloads.iter().map(|w| w.fixes.iter().map(|f| f.still_blocked.is_some()).collect()).collect();
    let depth = report.workloads.iter().map(|w| w.fixes.len()).max().unwrap_or(0);
    for rank in 0..depth {
        for wi in 0..report.workloads.len() {
            let Some(w) = report.workloads.get(wi) else { continue };
            let Some(fix) = w.fixes.get(rank) else { continue };
            let mut fix = fix.clone();
            let index = manifests
                .workloads
                .iter()
                .position(|m| m.kind.as_str() == w.kind && m.namespace == w.namespace && m.name == w.name);
            size_capacity(&mut fix, w);
            settle(&mut fix, w, index, manifests, opts, (&mut budget, limit), &mut cache);
            if let Some(slot) = report.workloads.get_mut(wi).and_then(|w| w.fixes.get_mut(rank)) {
                *slot = fix;
            }
        }
    }
    // Next to a fix that fixes, a patch that does not is noise when it reaches none of its
    // nodes, or is another of the same kind; the others stay, with what still blocks them.
    for (w, failed) in report.workloads.iter_mut().zip(prechecked) {
        let verified_kinds: Vec<FixKind> = w.fixes.iter().filter(|f| f.verified).map(|f| f.kind).collect();
        if !verified_kinds.is_empty() {
            let mut k = 0;
            w.fixes.retain(|f| {
                let failed = failed.get(k).copied().unwrap_or(false);
                k += 1;
                f.verified || f.patch.is_none() || !(failed || verified_kinds.contains(&f.kind))
            });
        }
        w.fixes.sort_by_key(|f| !f.verified);
    }
}

/// How many re-simulations a report of `manifests` gets: `opts.max_fix_resimulations`, fewer
/// for a large input, where each is a whole simulation again (a 5,000-node snapshot with
/// 100,000 pods takes seconds): about as much work in all as 16 re-simulations of 10,000
/// nodes and pods, and at least one.
fn resimulations(manifests: &Manifests, opts: &SimulateOptions) -> usize {
    const OBJECTS: usize = 16 * 10_000;
    let size = (manifests.nodes.len() + manifests.workloads.len()).max(1);
    opts.max_fix_resimulations.min((OBJECTS / size).max(1))
}

/// A capacity fix gets its node count: enough copies of the node for the pods still wanted.
fn size_capacity(fix: &mut Fix, w: &WorkloadReport) {
    let Remedy::AddNodes { like, per_node, count, per_pod } = &mut fix.remedy else { return };
    let need = (w.desired - w.scheduled).max(w.pending).max(1);
    let per_node = i64::from((*per_node).max(1));
    *count = u32::try_from((need + per_node - 1) / per_node).unwrap_or(MAX_ADD_NODES).clamp(1, MAX_ADD_NODES);
    let missing: Vec<String> =
        per_pod.iter().map(|(r, v)| format!("{} more {r}", show_amount(r, v.saturating_mul(need)))).collect();
    let each: Vec<String> = per_pod.iter().map(|(r, v)| format!("{} {r}", show_amount(r, *v))).collect();
    let pool = fix.pool.as_ref().map(|p| format!(" (pool {p})")).unwrap_or_default();
    fix.description = format!(
        "needs {} ({need} pod{} without a node, {} each): add {count} node{} like {like}{pool}",
        missing.join(", "),
        if need == 1 { "" } else { "s" },
        each.join(", "),
        if *count == 1 { "" } else { "s" },
    );
    fix.command = Some(format!("placement simulate --what-if 'add-nodes {count} like {like}'"));
}

fn settle(
    fix: &mut Fix,
    w: &WorkloadReport,
    index: Option<usize>,
    manifests: &Manifests,
    opts: &SimulateOptions,
    (budget, limit): (&mut usize, usize),
    cache: &mut BTreeMap<String, Option<Report>>,
) {
    fix.verified = false;
    if fix.still_blocked.is_some() {
        return;
    }
    if fix.remedy == Remedy::None {
        fix.still_blocked = Some("a change to make by hand: not re-simulated".into());
        return;
    }
    let Some(index) = index else {
        fix.still_blocked = Some("not re-simulated: the workload is not in the input".into());
        return;
    };
    // Fixes to nodes are the same change for every workload: one re-simulation serves all.
    let key = match &fix.remedy {
        Remedy::Patch => format!("{index}\n{}", fix.patch.clone().unwrap_or_default()),
        Remedy::AddNodes { like, count, .. } => format!("add-nodes {count} like {like}"),
        other => format!("{other:?}"),
    };
    if !cache.contains_key(&key) {
        if *budget == 0 {
            fix.still_blocked = Some(format!("not re-simulated: this report re-checks at most {limit} fixes"));
            return;
        }
        *budget -= 1;
        // A patch changes only this workload: the ones after it need not run. A change to
        // nodes is shared by every workload it is offered to, so all run.
        let until = (fix.remedy == Remedy::Patch).then_some(index);
        let resimulated = apply(fix, index, manifests).and_then(|m| simulate_once(&m, opts, until).ok());
        cache.insert(key.clone(), resimulated);
    }
    let Some(Some(after)) = cache.get(&key) else {
        fix.still_blocked = Some("the fix could not be applied to the input".into());
        return;
    };
    let Some(wa) = after.workloads.iter().find(|a| a.kind == w.kind && a.namespace == w.namespace && a.name == w.name)
    else {
        fix.still_blocked = Some("the workload is gone from the re-simulation".into());
        return;
    };
    judge(fix, wa);
    // Capacity: if the copies were too few (other resources fill them first), try once more
    // with enough for what is still pending.
    if let (Remedy::AddNodes { per_node, count, .. }, false) = (&fix.remedy, fix.verified) {
        let more = i64::from(*count) + (wa.pending + i64::from(*per_node) - 1) / i64::from((*per_node).max(1));
        let more = u32::try_from(more).unwrap_or(MAX_ADD_NODES).min(MAX_ADD_NODES);
        if more > *count && *budget > 0 {
            *budget -= 1;
            let mut retry = fix.clone();
            if let Remedy::AddNodes { count, .. } = &mut retry.remedy {
                *count = more;
            }
            let Some(after) = apply(&retry, index, manifests).and_then(|m| simulate_once(&m, opts, None).ok()) else {
                return;
            };
            let Some(wa) =
                after.workloads.iter().find(|a| a.kind == w.kind && a.namespace == w.namespace && a.name == w.name)
            else {
                return;
            };
            judge(&mut retry, wa);
            if retry.verified {
                let old = format!("add {count} node");
                retry.description = retry.description.replace(&old, &format!("add {more} node"));
                if let Some(cmd) = &mut retry.command {
                    *cmd = cmd.replace(&format!("add-nodes {count} "), &format!("add-nodes {more} "));
                }
                *fix = retry;
            }
        }
    }
}

/// Reads the re-simulated workload: every replica placed, or for a DaemonSet, a daemon pod
/// on every node the fix names.
fn judge(fix: &mut Fix, after: &WorkloadReport) {
    if after.kind == WorkloadKind::DaemonSet.as_str() && fix.kind != FixKind::Capacity {
        let missed: Vec<String> = fix
            .nodes
            .iter()
            .filter(|n| !after.nodes.get(n).is_some_and(|r| r.fits))
            .map(|n| match after.nodes.get(n) {
                Some(r) => format!("{n}: {}", r.reason.clone().unwrap_or_default()),
                None => format!("{n}: no daemon pod"),
            })
            .collect();
        fix.verified = !fix.nodes.is_empty() && missed.is_empty();
        fix.still_blocked = (!fix.verified).then(|| {
            if missed.is_empty() {
                "it names no node".to_string()
            } else {
                format!("no daemon pod runs on {}", missed.join("; "))
            }
        });
        return;
    }
    fix.verified = after.pending == 0 && after.scheduled >= after.desired;
    if !fix.verified {
        let message = after.pods.iter().find(|p| p.is_active() && p.node.is_none()).map(|p| p.pending_text());
        fix.still_blocked = Some(format!(
            "{} of {} pods still Pending{}",
            after.pending.max(after.desired - after.scheduled),
            after.desired,
            message.map(|m| format!(": {m}")).unwrap_or_default()
        ));
    }
}

/// The input with the fix applied; `None` when it cannot be.
fn apply(fix: &Fix, index: usize, manifests: &Manifests) -> Option<Manifests> {
    let mut m = manifests.clone();
    match &fix.remedy {
        Remedy::None => return None,
        Remedy::Patch => {
            let w = std::sync::Arc::make_mut(m.workloads.get_mut(index)?);
            w.template.spec = apply_to_spec(&w.template.spec, fix.patch.as_deref()?, w.kind)?;
        }
        Remedy::AddNodes { like, count, .. } => {
            let all: Vec<&crate::model::Node> = m.nodes.iter().map(|(_, n)| &**n).collect();
            let doc = m.nodes.iter().find(|(_, n)| &n.metadata.name == like)?.0.clone();
            let added = add_like(&all, like, *count).ok()?;
            m.nodes.extend(added.into_iter().map(|n| (doc.clone(), std::sync::Arc::new(n))));
        }
        Remedy::RepairNodes(names) => {
            for (_, n) in m.nodes.iter_mut().filter(|(_, n)| names.contains(&n.metadata.name)) {
                let n = std::sync::Arc::make_mut(n);
                n.spec.taints.retain(|t| !is_lifecycle_taint(&t.key));
                n.spec.unschedulable = false;
                n.status.conditions = healthy(&n.status.conditions);
            }
        }
        Remedy::LabelNodes { nodes, labels } => {
            for (_, n) in m.nodes.iter_mut().filter(|(_, n)| nodes.contains(&n.metadata.name)) {
                let n = std::sync::Arc::make_mut(n);
                for (k, v) in labels {
                    match v {
                        Some(v) => {
                            n.metadata.labels.insert(k.clone(), v.clone());
                        }
                        None => {
                            n.metadata.labels.remove(k);
                        }
                    }
                }
            }
        }
    }
    Some(m)
}

/// The conditions of a repaired node: Ready, no pressure.
fn healthy(conditions: &[Condition]) -> Vec<Condition> {
    conditions
        .iter()
        .map(|c| Condition {
            type_: c.type_.clone(),
            status: if c.type_ == "Ready" { "True" } else { "False" }.into(),
            reason: String::new(),
            message: String::new(),
        })
        .collect()
}
