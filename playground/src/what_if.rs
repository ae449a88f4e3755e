//! The before/after panel: the pending what-if commands with what kubectl prints for each
//! (or why it fails), and what they change, from the report's
//! [`Changes`](placement_core::cluster::changes::Changes), laid out as rows the UI prints.

use placement_core::cluster::changes::{Changes, Counters, PodMove};

/// Where a pending command stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandStatus {
    /// Applied; `output` is what kubectl prints, `refused` what it would refuse, `notes`
    /// Placement's own words on it (pods a budget keeps, volumes that cannot move).
    Applied { output: Vec<String>, refused: Option<String>, notes: Vec<String> },
    /// Not a command Placement reads, or one kubectl would fail on: neither it nor those after
    /// it are applied.
    Failed(String),
    /// After a failed command: not applied.
    NotApplied,
}

/// One pending command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandRow {
    /// The command as held in the state (canonical `kubectl ...` form).
    pub text: String,
    pub status: CommandStatus,
}

/// A pod a command takes off its node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EvictedRow {
    /// `namespace/name`
    pub pod: String,
    pub node: String,
    /// `drain`, `node deleted`, `taint k=v:NoExecute`
    pub cause: String,
    /// `now`, `after 300s`
    pub when: String,
    pub replaced_by: String,
}

/// A DaemonSet's coverage of one pool, before and after.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoverageRow {
    /// `namespace/name`
    pub daemon_set: String,
    pub pool: String,
    /// Nodes of the pool running its pod / nodes of the pool: `2/2`.
    pub before: String,
    pub after: String,
    pub lost: Vec<String>,
    pub gained: Vec<String>,
}

/// One counter before and after.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CounterChange {
    pub name: &'static str,
    pub before: i64,
    pub after: i64,
}

impl CounterChange {
    pub fn changed(&self) -> bool {
        self.before != self.after
    }

    /// `3`, or `3 → 0`.
    pub fn text(&self) -> String {
        if self.changed() {
            format!("{} → {}", self.before, self.after)
        } else {
            self.before.to_string()
        }
    }
}

/// A workload whose counters change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkloadChangeRow {
    /// `Deployment shop/web`
    pub workload: String,
    /// DESIRED, CURRENT, SCHEDULED, PENDING.
    pub counters: [CounterChange; 4],
    /// The pods its controller creates after the change: `web-0 on node-a`, `web-1 (Pending)`.
    pub new_pods: Vec<String>,
}

/// A pod whose node changes: now pending (with the FailedScheduling message) or now scheduled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PodMoveRow {
    pub workload: String,
    pub pod: String,
    pub node: Option<String>,
    pub message: Option<String>,
}

impl From<&PodMove> for PodMoveRow {
    fn from(m: &PodMove) -> Self {
        Self { workload: m.workload.clone(), pod: m.pod.clone(), node: m.node.clone(), message: m.message.clone() }
    }
}

/// Everything the before/after panel shows.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WhatIfView {
    pub commands: Vec<CommandRow>,
    pub evicted: Vec<EvictedRow>,
    pub coverage: Vec<CoverageRow>,
    pub workloads: Vec<WorkloadChangeRow>,
    pub now_pending: Vec<PodMoveRow>,
    pub now_scheduled: Vec<PodMoveRow>,
}

impl WhatIfView {
    /// The view of `changes` for the pending `commands`: the first `changes.commands.len()`
    /// were applied; `failed` is the one that stopped the run, with why.
    pub fn new(commands: &[String], changes: &Changes, failed: Option<(usize, String)>) -> Self {
        let rows = commands
            .iter()
            .enumerate()
            .map(|(i, text)| {
                let status = match (&failed, changes.commands.get(i)) {
                    (Some((f, why)), _) if *f == i => CommandStatus::Failed(why.clone()),
                    (Some((f, _)), _) if i > *f => CommandStatus::NotApplied,
                    (_, Some(outcome)) => {
                        let blocked = outcome.blocked.iter().map(|b| b.with_unblock());
                        CommandStatus::Applied {
                            output: outcome.output.clone(),
                            refused: outcome.refused.clone(),
                            notes: outcome.notes.iter().cloned().chain(blocked).collect(),
                        }
                    }
                    (_, None) => CommandStatus::NotApplied,
                };
                CommandRow { text: text.clone(), status }
            })
            .collect();
        let evicted = changes
            .evicted
            .iter()
            .map(|e| EvictedRow {
                pod: format!("{}/{}", e.namespace, e.pod),
                node: e.node.clone(),
                cause: e.cause.clone(),
                when: e.after_seconds.map_or_else(|| "now".into(), |s| format!("after {s}s")),
                replaced_by: e.replaced_by.clone(),
            })
            .collect();
        let coverage = changes
            .daemon_sets
            .iter()
            .map(|d| CoverageRow {
                daemon_set: format!("{}/{}", d.namespace, d.name),
                pool: d.pool.clone(),
                before: format!("{}/{}", d.before, d.nodes_before),
                after: format!("{}/{}", d.after, d.nodes),
                lost: d.lost.clone(),
                gained: d.gained.clone(),
            })
            .collect();
        let workloads = changes
            .workloads
            .iter()
            .map(|w| WorkloadChangeRow {
                workload: w.workload.clone(),
                counters: counters(&w.before, &w.after),
                new_pods: w
                    .replacements
                    .iter()
                    .map(|r| match &r.node {
                        Some(n) => format!("{} on {n}", r.pod),
                        None => format!("{} (Pending)", r.pod),
                    })
                    .collect(),
            })
            .collect();
        Self {
            commands: rows,
            evicted,
            coverage,
            workloads,
            now_pending: changes.now_pending.iter().map(PodMoveRow::from).collect(),
            now_scheduled: changes.now_scheduled.iter().map(PodMoveRow::from).collect(),
        }
    }

    /// Nothing changes (no pod moves, no counter or coverage changes).
    pub fn no_changes(&self) -> bool {
        self.evicted.is_empty()
            && self.coverage.is_empty()
            && self.workloads.is_empty()
            && self.now_pending.is_empty()
            && self.now_scheduled.is_empty()
    }

    /// How many commands were applied.
    pub fn applied(&self) -> usize {
        self.commands.iter().filter(|c| matches!(c.status, CommandStatus::Applied { .. })).count()
    }

    /// The first failed command's position and message.
    pub fn failure(&self) -> Option<(usize, &str)> {
        self.commands.iter().enumerate().find_map(|(i, c)| match &c.status {
            CommandStatus::Failed(why) => Some((i, why.as_str())),
            _ => None,
        })
    }
}

fn counters(before: &Counters, after: &Counters) -> [CounterChange; 4] {
    let c = |name, before, after| CounterChange { name, before, after };
    [
        c("DESIRED", before.desired, after.desired),
        c("CURRENT", before.current, after.current),
        c("SCHEDULED", before.scheduled, after.scheduled),
        c("PENDING", before.pending, after.pending),
    ]
}
