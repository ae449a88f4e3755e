//! What a change to the cluster does: the report before it and the report after it, compared
//! for the people about to make the change. Pods the change removes from their nodes, where
//! their controllers' replacements land, DaemonSet coverage per pool, pods that become
//! schedulable or stop being so, and every workload's counters.
//!
//! The change itself (a `kubectl taint`, a drain, ...) is applied elsewhere
//! ([`crate::cluster::what_if`]); this module only compares.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use crate::cluster::pools::PoolLabel;
use crate::cluster::simulate::{PodReport, Report, WorkloadReport};
use crate::model::Node;

/// The `changes` section of the JSON contract (docs/cli.md).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Changes {
    /// The commands in the order applied, with what kubectl would print for each.
    pub commands: Vec<CommandOutcome>,
    /// Pods the commands take off their nodes.
    pub evicted: Vec<EvictedPod>,
    /// DaemonSets whose coverage changes, per pool.
    pub daemon_sets: Vec<DaemonSetCoverage>,
    /// Pods that had no node before and have one after.
    pub now_scheduled: Vec<PodMove>,
    /// Pods that had a node before, or replace one that had, and have none after.
    pub now_pending: Vec<PodMove>,
    /// Workloads whose counters change.
    pub workloads: Vec<WorkloadChange>,
}

/// One command and its outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CommandOutcome {
    /// The command as given, in its canonical `kubectl ...` form.
    pub command: String,
    /// What kubectl prints on success, one line per node (`node/a tainted`).
    pub output: Vec<String>,
    /// What kubectl would refuse, in its words (a drain blocked by a DaemonSet pod, ...); the
    /// part refused is not applied, as kubectl would not apply it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Placement's own notes on what the command does (not kubectl's words): a drained pod
    /// whose volume is local to the node cannot run anywhere else.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
    /// Pods a drain could not evict because a PodDisruptionBudget allows no disruption: they
    /// stay on their cordoned node.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub blocked: Vec<BlockedEviction>,
}

/// A pod the Eviction API would not evict: which budget, how much it allows, what would
/// unblock it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BlockedEviction {
    /// `namespace/name`.
    pub pod: String,
    pub node: String,
    /// The budget, `namespace/name`.
    pub budget: String,
    /// What the budget allows when the eviction is asked (`status.disruptionsAllowed`), and
    /// its healthy pods against the ones it needs (`currentHealthy`, `desiredHealthy`).
    pub disruptions_allowed: i32,
    pub current_healthy: i32,
    pub desired_healthy: i32,
    /// What would let the eviction through, in order.
    pub unblock: Vec<String>,
    /// kubectl's retries got it through once the pods evicted before it were replaced (the
    /// budget allowed disruptions again): it left the node after all.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub evicted_on_retry: bool,
    /// What the budget allowed when the drain began.
    #[serde(skip)]
    pub allowed_at_start: i32,
}

impl BlockedEviction {
    /// `Blocked`, or `Retried` for a pod kubectl's retries got through.
    pub fn label(&self) -> &'static str {
        if self.evicted_on_retry {
            "Retried"
        } else {
            "Blocked"
        }
    }

    /// [`Self::summary`], then what would unblock it (`. Unblock: a; b`) for a pod that stays.
    pub fn with_unblock(&self) -> String {
        if self.evicted_on_retry {
            return self.summary();
        }
        format!("{}. Unblock: {}", self.summary(), self.unblock.join("; "))
    }

    /// The eviction in a sentence: `pod shop/web-2 stays on node a: PodDisruptionBudget
    /// shop/web allows 0 disruptions (needs 2 healthy pods, has 2)`, or that it went on a retry.
    pub fn summary(&self) -> String {
        if self.evicted_on_retry {
            return format!(
                "pod {} left node {} on a retry: PodDisruptionBudget {} allowed a disruption again once the pods \
                 evicted before it were replaced",
                self.pod, self.node, self.budget
            );
        }
        format!(
            "pod {} stays on node {}: PodDisruptionBudget {} allows {} disruptions (needs {} healthy pods, has {})",
            self.pod, self.node, self.budget, self.disruptions_allowed, self.desired_healthy, self.current_healthy
        )
    }
}

/// A pod a command takes off its node.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EvictedPod {
    pub namespace: String,
    pub pod: String,
    pub node: String,
    /// `taint dedicated=web:NoExecute`, `drain`, `node deleted`.
    pub cause: String,
    /// For a NoExecute taint tolerated for a while: after how many seconds; else at once.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after_seconds: Option<i64>,
    /// Who re-creates it: `Deployment shop/web`, or why nobody does.
    pub replaced_by: String,
}

/// A DaemonSet's coverage of one pool, before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DaemonSetCoverage {
    pub namespace: String,
    pub name: String,
    pub pool: String,
    /// Nodes of the pool, before and after the change.
    pub nodes_before: usize,
    pub nodes: usize,
    /// Nodes of the pool running the daemon pod, before and after.
    pub before: usize,
    pub after: usize,
    pub lost: Vec<String>,
    pub gained: Vec<String>,
}

/// A pod whose node changes between before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PodMove {
    /// `Deployment shop/web`.
    pub workload: String,
    pub pod: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// The FailedScheduling message (or why no cycle runs) when it has no node.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// A workload's counters before and after.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadChange {
    /// `Deployment shop/web`.
    pub workload: String,
    pub before: Counters,
    pub after: Counters,
    /// The pods the controller creates after the change and did not before: replacements of
    /// evicted pods, and pods for new nodes; with their nodes or why they have none.
    pub replacements: Vec<PodMove>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Counters {
    pub desired: i64,
    pub current: i64,
    pub scheduled: i64,
    pub pending: i64,
}

impl Counters {
    fn of(w: &WorkloadReport) -> Self {
        Self { desired: w.desired, current: w.current, scheduled: w.scheduled, pending: w.pending }
    }
}

/// The nodes before and after, for pools.
pub struct NodeSets<'a> {
    pub before: Vec<&'a Node>,
    pub after: Vec<&'a Node>,
    pub pools: &'a PoolLabel,
}

/// Compares `before` and `after`; `commands` and `evicted` come from applying the change.
pub fn compare(
    before: &Report,
    after: &Report,
    nodes: &NodeSets,
    commands: Vec<CommandOutcome>,
    evicted: Vec<EvictedPod>,
) -> Changes {
    let key = |w: &WorkloadReport| format!("{} {}/{}", w.kind, w.namespace, w.name);
    let before_by_key: BTreeMap<String, &WorkloadReport> = before.workloads.iter().map(|w| (key(w), w)).collect();
    let mut changes = Changes { commands, evicted, ..Default::default() };
    for w in &after.workloads {
        let k = key(w);
        let old = before_by_key.get(&k).copied();
        let old_pods: BTreeMap<&str, &PodReport> =
            old.map(|o| o.pods.iter().map(|p| (p.name.as_str(), p)).collect()).unwrap_or_default();
        let mut replacements = Vec::new();
        for p in w.pods.iter().filter(|p| p.is_active()) {
            let was = old_pods.get(p.name.as_str()).copied().filter(|o| o.is_active());
            let moved = PodMove {
                workload: k.clone(),
                pod: p.name.clone(),
                node: p.node.as_deref().map(str::to_string),
                message: p.node.is_none().then(|| p.pending_text()),
            };
            match (was, &p.node) {
                (None, _) if p.snapshot.is_none() => replacements.push(moved),
                (Some(o), Some(_)) if o.node.is_none() => changes.now_scheduled.push(moved),
                (Some(o), None) if o.node.is_some() => changes.now_pending.push(moved),
                _ => {}
            }
        }
        for p in replacements.iter().filter(|p| p.node.is_none()) {
            changes.now_pending.push(p.clone());
        }
        let counters = Counters::of(w);
        let old_counters = old.map(Counters::of);
        if old_counters != Some(counters) || !replacements.is_empty() {
            changes.workloads.push(WorkloadChange {
                workload: k,
                before: old_counters.unwrap_or(Counters { desired: 0, current: 0, scheduled: 0, pending: 0 }),
                after: counters,
                replacements,
            });
        }
    }
    changes.daemon_sets = coverage(before, after, nodes);
    changes
}

/// The nodes each DaemonSet's active pods run on, per pool, before and after.
fn coverage(before: &Report, after: &Report, nodes: &NodeSets) -> Vec<DaemonSetCoverage> {
    let covered = |report: &Report| -> BTreeMap<(String, String), BTreeSet<String>> {
        report
            .workloads
            .iter()
            .filter(|w| w.kind == "DaemonSet")
            .map(|w| {
                let on: BTreeSet<String> = w
                    .pods
                    .iter()
                    .filter(|p| p.is_active())
                    .filter_map(|p| p.node.as_deref().map(str::to_string))
                    .collect();
                ((w.namespace.clone(), w.name.clone()), on)
            })
            .collect()
    };
    let pool_of = |list: &[&Node]| -> BTreeMap<String, String> {
        list.iter().map(|n| (n.metadata.name.clone(), nodes.pools.pool_name(n))).collect()
    };
    let (pools_before, pools_after) = (pool_of(&nodes.before), pool_of(&nodes.after));
    let sizes = |pools: &BTreeMap<String, String>| {
        let mut sizes: BTreeMap<String, usize> = BTreeMap::new();
        for pool in pools.values() {
            *sizes.entry(pool.clone()).or_default() += 1;
        }
        sizes
    };
    let (sizes_before, sizes_after) = (sizes(&pools_before), sizes(&pools_after));
    let (before, after) = (covered(before), covered(after));
    let mut rows = Vec::new();
    let names: BTreeSet<&(String, String)> = before.keys().chain(after.keys()).collect();
    for ds in names {
        let empty = BTreeSet::new();
        let (old, new) = (before.get(ds).unwrap_or(&empty), after.get(ds).unwrap_or(&empty));
        if old == new {
            continue;
        }
        let pool = |node: &str| {
            pools_after.get(node).or_else(|| pools_before.get(node)).cloned().unwrap_or_else(|| "(no pool)".into())
        };
        let mut per_pool: BTreeMap<String, (usize, usize, Vec<String>, Vec<String>)> = BTreeMap::new();
        for n in old {
            let entry = per_pool.entry(pool(n)).or_default();
            entry.0 += 1;
            if !new.contains(n) {
                entry.2.push(n.clone());
            }
        }
        for n in new {
            let entry = per_pool.entry(pool(n)).or_default();
            entry.1 += 1;
            if !old.contains(n) {
                entry.3.push(n.clone());
            }
        }
        for (pool, (before, after, lost, gained)) in per_pool {
            if lost.is_empty() && gained.is_empty() {
                continue;
            }
            rows.push(DaemonSetCoverage {
                namespace: ds.0.clone(),
                name: ds.1.clone(),
                nodes_before: sizes_before.get(&pool).copied().unwrap_or(0),
                nodes: sizes_after.get(&pool).copied().unwrap_or(0),
                pool,
                before,
                after,
                lost,
                gained,
            });
        }
    }
    rows
}
