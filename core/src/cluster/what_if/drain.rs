//! Which pods `kubectl drain` evicts, deletes, skips or refuses, and what it prints.
//!
//! Follows kubectl v1.36.3 (`kubernetes/kubectl` at `kubernetes-1.36.3`):
//! `pkg/drain/filters.go` (the filters, their order and messages), `pkg/drain/drain.go`
//! (`GetPodsForDeletion`, `filterPods`) and `pkg/cmd/drain/drain.go` (`RunDrain`). A drain
//! first cordons every selected node ([`super::nodes::cordon`]), then, node by node, lists
//! the pods bound to it (those `--pod-selector` matches) and runs each through the filters in
//! order, stopping at the first that keeps the pod:
//!
//! 1. `skipDeletedFilter`: a pod deleted more than `--skip-wait-for-delete-timeout` seconds
//!    ago is skipped. The core has no clock: the caller gives the drain's time
//!    ([`DrainEnv::now`], e.g. the snapshot's); without it, or with the flag at 0 (its
//!    default), no pod is skipped this way, and terminating pods are evicted again like any
//!    other, as kubectl does;
//! 2. `daemonSetFilter`: a pod whose controller is an `apps/v1` DaemonSet is refused
//!    (`cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore)`), or kept
//!    with `--ignore-daemonsets` (warning `ignoring DaemonSet-managed Pods`). Finished pods
//!    pass. kubectl looks the DaemonSet up: if it is gone, the pod is refused with the API's
//!    `daemonsets.apps "x" not found`, or passed on with `--force` ([`DrainEnv::daemon_set_exists`]);
//! 3. `mirrorPodFilter`: mirror pods (annotation `kubernetes.io/config.mirror`) are skipped;
//! 4. `localStorageFilter`: a pod with an `emptyDir` volume is refused (`cannot delete Pods
//!    with local storage (use --delete-emptydir-data to override)`) unless finished or with
//!    `--delete-emptydir-data`;
//! 5. `unreplicatedFilter`: a pod without a controller owner reference is refused (`cannot
//!    delete Pods that declare no controller (use --force to override)`) unless finished or
//!    with `--force`. Only the reference counts: an owner that no longer exists still counts
//!    as a controller here (only DaemonSets are looked up).
//!
//! A pod that passes every filter is evicted (the Eviction API, which honours
//! PodDisruptionBudgets: [`EvictionBudgets`], `pkg/registry/core/pod/storage/eviction.go`),
//! or deleted with `--disable-eviction`. Finished pods (Succeeded,
//! Failed) are not deleted differently: they only pass the filters that would refuse them.
//! If any pod of a node is refused, kubectl evicts nothing on that node and reports it
//! (`error: unable to drain node "x" due to error: ..., continuing command...`); the node
//! stays cordoned and the other nodes are still drained.
//!
//! As kubectl, only the last filter's warning is kept for a pod (a later filter that passes
//! the pod drops an earlier warning). kubectl groups warnings and refusals in Go maps, whose
//! order varies from run to run; here they come in the order first met, pods listed by
//! namespace and name as the API server lists them.

use crate::cluster::disruption::{self, Health};
use crate::cluster::what_if::command::DrainOptions;
use crate::model::labels::{LabelLookup, Selector};
use crate::model::scheduling::PodDisruptionBudget;
use crate::model::{namespace_or_default, Pod};

/// The annotation the kubelet puts on a static pod's mirror (`corev1.MirrorPodAnnotationKey`).
pub const MIRROR_POD_ANNOTATION: &str = "kubernetes.io/config.mirror";

const DAEMON_SET_FATAL: &str = "DaemonSet-managed Pods (use --ignore-daemonsets to ignore)";
const DAEMON_SET_WARNING: &str = "ignoring DaemonSet-managed Pods";
const LOCAL_STORAGE_FATAL: &str = "Pods with local storage (use --delete-emptydir-data to override)";
const LOCAL_STORAGE_WARNING: &str = "deleting Pods with local storage";
const UNMANAGED_FATAL: &str = "Pods that declare no controller (use --force to override)";
const UNMANAGED_WARNING: &str = "deleting Pods that declare no controller";

/// What `kubectl drain` does with one pod of the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DrainVerdict {
    /// Evicted through the Eviction API (PodDisruptionBudgets apply). `warning` is the
    /// message kubectl warns with for it, if its last filter gave one.
    Evict { warning: Option<String> },
    /// Deleted (`--disable-eviction`): no PodDisruptionBudget check.
    Delete { warning: Option<String> },
    /// Left on the node.
    Skip { reason: SkipReason },
    /// Refused: the node's drain fails, and no pod on it is evicted. `reason` is kubectl's
    /// message after `cannot delete `.
    Refuse { reason: String },
}

impl DrainVerdict {
    /// Evicted or deleted.
    pub fn removes(&self) -> bool {
        matches!(self, DrainVerdict::Evict { .. } | DrainVerdict::Delete { .. })
    }

    /// Why kubectl refuses the pod (after `cannot delete `), if it does.
    pub fn refusal(&self) -> Option<&str> {
        match self {
            DrainVerdict::Refuse { reason } => Some(reason),
            _ => None,
        }
    }

    /// The warning kubectl prints the pod under, if any.
    pub fn warning(&self) -> Option<&str> {
        match self {
            DrainVerdict::Evict { warning } | DrainVerdict::Delete { warning } => warning.as_deref(),
            DrainVerdict::Skip { reason } => reason.warning(),
            DrainVerdict::Refuse { .. } => None,
        }
    }
}

/// Why a pod is left on the node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SkipReason {
    /// Deleted longer ago than `--skip-wait-for-delete-timeout`.
    Terminating,
    /// A mirror pod: the API server cannot delete it (the kubelet owns it).
    Mirror,
    /// DaemonSet-managed, with `--ignore-daemonsets`.
    DaemonSet,
}

impl SkipReason {
    /// kubectl's warning for it (`ignoring DaemonSet-managed Pods`); the others are silent.
    pub fn warning(self) -> Option<&'static str> {
        match self {
            SkipReason::DaemonSet => Some(DAEMON_SET_WARNING),
            SkipReason::Terminating | SkipReason::Mirror => None,
        }
    }
}

/// Whether the DaemonSet `(namespace, name)` exists.
pub type DaemonSetExists<'a> = &'a dyn Fn(&str, &str) -> bool;

/// What kubectl asks the cluster during a drain, which a snapshot answers.
#[derive(Clone, Copy, Default)]
pub struct DrainEnv<'a> {
    /// When the drain runs, in Unix seconds ([`parse_rfc3339`] reads a timestamp); `None`:
    /// unknown, so `--skip-wait-for-delete-timeout` skips no pod.
    pub now: Option<i64>,
    /// Whether the DaemonSet `(namespace, name)` exists; `None`: every one does (a snapshot
    /// without DaemonSets says nothing of them).
    pub daemon_set_exists: Option<DaemonSetExists<'a>>,
}

impl std::fmt::Debug for DrainEnv<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DrainEnv")
            .field("now", &self.now)
            .field("daemon_set_exists", &self.daemon_set_exists.map(|_| "fn"))
            .finish()
    }
}

/// A filter's answer (`PodDeleteStatus`).
struct Status {
    delete: bool,
    kind: StatusKind,
    message: String,
}

#[derive(PartialEq)]
enum StatusKind {
    Okay,
    Skip(SkipReason),
    Warning,
    Error,
}

impl Status {
    fn okay() -> Self {
        Self { delete: true, kind: StatusKind::Okay, message: String::new() }
    }
    fn skip(reason: SkipReason) -> Self {
        Self { delete: false, kind: StatusKind::Skip(reason), message: String::new() }
    }
    fn warning(delete: bool, message: &str) -> Self {
        Self { delete, kind: StatusKind::Warning, message: message.to_string() }
    }
    fn error(message: &str) -> Self {
        Self { delete: false, kind: StatusKind::Error, message: message.to_string() }
    }
}

/// [`drain_verdict_in`] with every DaemonSet present and no clock.
///
/// ```
/// use placement_core::cluster::what_if::drain::{drain_verdict, DrainVerdict};
/// use placement_core::cluster::what_if::DrainOptions;
/// use placement_core::model::Pod;
///
/// let bare = Pod::default(); // no controller
/// assert_eq!(
///     drain_verdict(&bare, &DrainOptions::default()),
///     DrainVerdict::Refuse { reason: "Pods that declare no controller (use --force to override)".into() }
/// );
/// let forced = DrainOptions { force: true, ..DrainOptions::default() };
/// assert_eq!(
///     drain_verdict(&bare, &forced),
///     DrainVerdict::Evict { warning: Some("deleting Pods that declare no controller".into()) }
/// );
/// ```
pub fn drain_verdict(pod: &Pod, options: &DrainOptions) -> DrainVerdict {
    drain_verdict_in(pod, options, &DrainEnv::default())
}

/// kubectl's filters on one pod, in order (module docs). `--pod-selector` is not applied
/// here: a pod it does not match is not drained at all ([`plan_in`] leaves it out).
pub fn drain_verdict_in(pod: &Pod, options: &DrainOptions, env: &DrainEnv) -> DrainVerdict {
    let filters: [&dyn Fn() -> Status; 5] = [
        &|| skip_deleted_filter(pod, options, env),
        &|| daemon_set_filter(pod, options, env),
        &|| mirror_pod_filter(pod),
        &|| local_storage_filter(pod, options),
        &|| unreplicated_filter(pod, options),
    ];
    let mut status = Status::okay();
    for filter in filters {
        status = filter();
        if !status.delete {
            break;
        }
    }
    let warning = (status.kind == StatusKind::Warning).then_some(status.message.clone());
    match status.kind {
        StatusKind::Okay | StatusKind::Warning if status.delete => {
            if options.disable_eviction {
                DrainVerdict::Delete { warning }
            } else {
                DrainVerdict::Evict { warning }
            }
        }
        StatusKind::Skip(reason) => DrainVerdict::Skip { reason },
        StatusKind::Warning => DrainVerdict::Skip { reason: SkipReason::DaemonSet },
        _ => DrainVerdict::Refuse { reason: status.message },
    }
}

fn is_finished(pod: &Pod) -> bool {
    pod.status.is_terminal()
}

fn skip_deleted_filter(pod: &Pod, options: &DrainOptions, env: &DrainEnv) -> Status {
    let timeout = options.skip_wait_for_delete_timeout_seconds;
    let deleted_at = pod.metadata.deletion_timestamp.as_deref().and_then(parse_rfc3339);
    match (env.now, deleted_at) {
        (Some(now), Some(deleted_at)) if timeout > 0 && now.saturating_sub(deleted_at) > timeout => {
            Status::skip(SkipReason::Terminating)
        }
        _ => Status::okay(),
    }
}

fn daemon_set_filter(pod: &Pod, options: &DrainOptions, env: &DrainEnv) -> Status {
    let Some(controller) = pod.metadata.controller() else {
        return Status::okay();
    };
    if controller.kind != "DaemonSet" || controller.api_version != "apps/v1" || is_finished(pod) {
        return Status::okay();
    }
    let namespace = namespace_or_default(pod.metadata.namespace.as_deref());
    if !env.daemon_set_exists.is_none_or(|exists| exists(namespace, &controller.name)) {
        let not_found = format!("daemonsets.apps {:?} not found", controller.name);
        return if options.force { Status::warning(true, &not_found) } else { Status::error(&not_found) };
    }
    if !options.ignore_daemonsets {
        return Status::error(DAEMON_SET_FATAL);
    }
    Status::warning(false, DAEMON_SET_WARNING)
}

fn mirror_pod_filter(pod: &Pod) -> Status {
    if pod.metadata.annotations.contains_key(MIRROR_POD_ANNOTATION) {
        Status::skip(SkipReason::Mirror)
    } else {
        Status::okay()
    }
}

fn local_storage_filter(pod: &Pod, options: &DrainOptions) -> Status {
    if !pod.spec.volumes.iter().any(|v| v.empty_dir.is_some()) || is_finished(pod) {
        return Status::okay();
    }
    if !options.delete_emptydir_data {
        return Status::error(LOCAL_STORAGE_FATAL);
    }
    Status::warning(true, LOCAL_STORAGE_WARNING)
}

fn unreplicated_filter(pod: &Pod, options: &DrainOptions) -> Status {
    if is_finished(pod) || pod.metadata.controller().is_some() {
        return Status::okay();
    }
    if options.force {
        return Status::warning(true, UNMANAGED_WARNING);
    }
    Status::error(UNMANAGED_FATAL)
}

/// One node's drain: each listed pod's verdict, and what kubectl prints for the node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrainPlan {
    pub node: String,
    /// The pods drain lists (those `--pod-selector` matches), by namespace and name: the
    /// index in the input and the verdict.
    pub pods: Vec<(usize, DrainVerdict)>,
    /// `ns/name` of each input pod, for messages.
    names: Vec<String>,
}

impl DrainPlan {
    /// Whether kubectl refuses to drain the node (then it evicts nothing on it).
    pub fn refused(&self) -> bool {
        self.pods.iter().any(|(_, v)| matches!(v, DrainVerdict::Refuse { .. }))
    }

    /// The pods that leave the node (indices in the input): evicted or deleted, none if the
    /// node's drain is refused.
    pub fn removed(&self) -> Vec<usize> {
        if self.refused() {
            return Vec::new();
        }
        self.pods.iter().filter(|(_, v)| v.removes()).map(|(i, _)| *i).collect()
    }

    /// Messages grouped by their text, pods joined with `, ` (`PodDeleteList.errors` and
    /// `Warnings`).
    fn grouped<'a>(&'a self, message: impl Fn(&'a DrainVerdict) -> Option<&'a str>) -> Vec<(&'a str, Vec<&'a str>)> {
        let mut groups: Vec<(&str, Vec<&str>)> = Vec::new();
        for (i, verdict) in &self.pods {
            let Some(text) = message(verdict) else { continue };
            let pod = self.names.get(*i).map(String::as_str).unwrap_or_default();
            match groups.iter_mut().find(|(t, _)| *t == text) {
                Some((_, pods)) => pods.push(pod),
                None => groups.push((text, vec![pod])),
            }
        }
        groups
    }

    /// `cannot delete <reason>: ns/a, ns/b`, one per reason.
    pub fn errors(&self) -> Vec<String> {
        self.grouped(DrainVerdict::refusal)
            .into_iter()
            .map(|(reason, pods)| format!("cannot delete {reason}: {}", pods.join(", ")))
            .collect()
    }

    /// kubectl's warning line for the node, without its `Warning: ` prefix
    /// (`ignoring DaemonSet-managed Pods: kube-system/a; deleting Pods that declare no
    /// controller: default/b`). Printed when the node's drain goes ahead.
    pub fn warnings(&self) -> Option<String> {
        let groups = self.grouped(DrainVerdict::warning);
        if groups.is_empty() || self.refused() {
            return None;
        }
        let parts: Vec<String> =
            groups.into_iter().map(|(text, pods)| format!("{text}: {}", pods.join(", "))).collect();
        Some(parts.join("; "))
    }

    /// The node's error as `utilerrors.NewAggregate` prints it: one reason as is, several
    /// in brackets.
    pub fn error(&self) -> Option<String> {
        let errors = self.errors();
        (!errors.is_empty()).then(|| aggregate(&errors))
    }

    /// kubectl's line for the node after its pods: `node/x drained`, or `error: unable to
    /// drain node "x" due to error: ..., continuing command...`.
    pub fn result_line(&self) -> String {
        match self.error() {
            None => format!("node/{} drained", self.node),
            Some(error) => {
                format!("error: unable to drain node {:?} due to error: {error}, continuing command...", self.node)
            }
        }
    }
}

/// [`plan_in`] with every DaemonSet present and no clock.
///
/// ```
/// use placement_core::cluster::what_if::drain::plan;
/// use placement_core::cluster::what_if::DrainOptions;
/// use placement_core::model::Pod;
///
/// let mut bare = Pod::default();
/// bare.metadata.name = "web".into();
/// let p = plan("node-1", &[&bare], &DrainOptions::default());
/// assert!(p.removed().is_empty());
/// assert_eq!(
///     p.result_line(),
///     "error: unable to drain node \"node-1\" due to error: cannot delete Pods that declare no controller \
///      (use --force to override): default/web, continuing command..."
/// );
/// ```
pub fn plan(node: &str, pods: &[&Pod], options: &DrainOptions) -> DrainPlan {
    plan_in(node, pods, options, &DrainEnv::default())
}

/// `GetPodsForDeletion` for one node: `pods` are the pods bound to it; those
/// `--pod-selector` does not match are not listed; the others, in namespace and name order,
/// get their verdicts.
pub fn plan_in(node: &str, pods: &[&Pod], options: &DrainOptions, env: &DrainEnv) -> DrainPlan {
    let names: Vec<String> =
        pods.iter().map(|p| format!("{}/{}", p.metadata.namespace_or_default(), p.metadata.name)).collect();
    let mut listed: Vec<usize> = (0..pods.len())
        .filter(|i| {
            let labels = pods.get(*i).map(|p| &p.metadata.labels);
            options.pod_selector.as_ref().is_none_or(|s| labels.is_some_and(|l| s.matches(l)))
        })
        .collect();
    let key = |i: &usize| pods.get(*i).map(|p| (p.metadata.namespace_or_default(), p.metadata.name.as_str()));
    listed.sort_by(|a, b| key(a).cmp(&key(b)));
    let verdicts =
        listed.into_iter().filter_map(|i| pods.get(i).map(|p| (i, drain_verdict_in(p, options, env)))).collect();
    DrainPlan { node: node.to_string(), pods: verdicts, names }
}

/// What `kubectl drain` prints last when it left nodes undrained (`RunDrain`, then
/// `CheckErr` on the error it returns): `There are pending nodes to be drained:` with each
/// node, then each node's errors as `CheckErr` prints an aggregate of them: for one node, its
/// errors one per line; for several, one line per node ([`aggregate`] of its errors). A node's
/// errors are those of its refused pods ([`DrainPlan::errors`]) or its failed evictions.
/// `None` when every node drained.
pub fn pending_nodes(nodes: &[(String, Vec<String>)]) -> Option<String> {
    if nodes.is_empty() {
        return None;
    }
    let mut out = String::from("There are pending nodes to be drained:");
    nodes.iter().for_each(|(n, _)| out.push_str(&format!("\n {n}")));
    match nodes {
        [(_, errors)] => errors.iter().for_each(|e| out.push_str(&format!("\n{e}"))),
        many => many.iter().for_each(|(_, errors)| out.push_str(&format!("\n{}", aggregate(errors)))),
    }
    Some(out)
}

/// `utilerrors.Aggregate`'s message: the one error, or `[a, b, ...]`.
pub fn aggregate(errors: &[String]) -> String {
    match errors {
        [one] => one.clone(),
        many => format!("[{}]", many.join(", ")),
    }
}

/// The Eviction API's 429 (`checkAndDecrement`): the budget allows no disruption now.
pub const BUDGET_VIOLATION: &str = "Cannot evict pod as it would violate the pod's disruption budget.";
/// The Eviction API's 500 for a pod two budgets select; kubectl does not retry it.
pub const MORE_THAN_ONE_BUDGET: &str =
    "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.";
/// `EvictErrorRetryDelay` (`pkg/cmd/drain/drain.go`): kubectl retries a 429 after it.
pub const RETRY_DELAY: &str = "5s";

/// What the Eviction API answers for one pod (`pkg/registry/core/pod/storage/eviction.go`,
/// `EvictionREST.Create`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EvictionAnswer {
    /// The pod is deleted: no budget selects it, its budget allowed a disruption (now one
    /// fewer), or the budget need not be checked (a Pending, finished or terminating pod; an
    /// unready pod the budget does not count).
    Evicted,
    /// 429 Too Many Requests: `budgets[budget]` allows no disruption. kubectl retries.
    Blocked { budget: usize, health: Health },
    /// 500: more than one budget selects the pod. kubectl gives up on it.
    MoreThanOneBudget,
}

/// The PodDisruptionBudgets a drain's evictions go through, each with the disruptions it
/// still allows: every eviction it admits takes one (`status.disruptedPods`), until the
/// disruption controller recounts.
#[derive(Debug, Clone)]
pub struct EvictionBudgets<'b> {
    /// Each budget, its selector, its health when the drain began and now.
    budgets: Vec<(&'b PodDisruptionBudget, Selector, Health, Health)>,
}

impl<'b> EvictionBudgets<'b> {
    /// The budgets with their health now: the status of a budget read back, else counted
    /// over `bound` (`(namespace, labels, healthy)` of every pod bound in the cluster).
    pub fn new<'p, L: LabelLookup + ?Sized + 'p>(
        pdbs: impl Iterator<Item = &'b PodDisruptionBudget>,
        bound: impl Iterator<Item = (&'p str, &'p L, bool)> + Clone,
    ) -> Self {
        let budgets = pdbs
            .map(|pdb| {
                let health = disruption::health(pdb, bound.clone());
                (pdb, disruption::selector(pdb), health, health)
            })
            .collect();
        Self { budgets }
    }

    /// The budget at `index`.
    pub fn budget(&self, index: usize) -> Option<&'b PodDisruptionBudget> {
        self.budgets.get(index).map(|(pdb, ..)| *pdb)
    }

    /// The disruptions the budget at `index` allowed when the drain began.
    pub fn allowed_at_start(&self, index: usize) -> i32 {
        self.budgets.get(index).map_or(0, |(_, _, start, _)| start.allowed)
    }

    /// Each budget read back from a cluster with the disruptions it allows after the
    /// evictions admitted (the Eviction API writes them to its status); hand-written budgets
    /// are counted again from the pods.
    pub fn read_back_allowed(&self) -> impl Iterator<Item = (usize, i32)> + '_ {
        self.budgets
            .iter()
            .enumerate()
            .filter(|(_, (pdb, ..))| pdb.status.is_some())
            .map(|(i, (.., now))| (i, now.allowed))
    }

    /// Asks the Eviction API to evict `pod`; an admitted eviction takes one disruption from
    /// its budget.
    pub fn evict(&mut self, pod: &Pod) -> EvictionAnswer {
        if can_ignore_budget(pod) {
            return EvictionAnswer::Evicted;
        }
        let ns = pod.metadata.namespace_or_default();
        let mut matching = self
            .budgets
            .iter()
            .enumerate()
            .filter(|(_, (pdb, sel, ..))| disruption::covers(pdb, sel, ns, &pod.metadata.labels));
        let Some((index, _)) = matching.next() else { return EvictionAnswer::Evicted };
        if matching.next().is_some() {
            return EvictionAnswer::MoreThanOneBudget;
        }
        let Some((pdb, _, _, health)) = self.budgets.get_mut(index) else { return EvictionAnswer::Evicted };
        if !pod.status.is_ready() {
            let always = pdb.spec.unhealthy_pod_eviction_policy.as_deref() == Some("AlwaysAllow");
            // An unready pod is not counted healthy: deleting it disrupts nothing the budget
            // guards while the budget is met.
            if always || (health.current >= health.desired && health.desired > 0) {
                return EvictionAnswer::Evicted;
            }
        }
        if health.allowed <= 0 {
            return EvictionAnswer::Blocked { budget: index, health: *health };
        }
        health.allowed -= 1;
        EvictionAnswer::Evicted
    }
}

/// `canIgnorePDB`: a Pending, finished or terminating pod is deleted without a budget check.
fn can_ignore_budget(pod: &Pod) -> bool {
    pod.status.phase == "Pending" || pod.status.is_terminal() || pod.metadata.deletion_timestamp.is_some()
}

/// What would let an eviction `pdb` blocks through, most direct first. `health` is the
/// budget's when the eviction was asked; `allowed_at_start`, what it allowed before the
/// drain's own evictions.
pub fn unblock(pdb: &PodDisruptionBudget, health: Health, allowed_at_start: i32) -> Vec<String> {
    use crate::model::scheduling::IntOrString;
    let mut out = Vec::new();
    if allowed_at_start > 0 {
        out.push(format!(
            "this drain's own evictions used the {allowed_at_start} disruption(s) the budget allowed, and their \
             replacements do not all find a node: kubectl's retries go through once they run and are ready (make room \
             for them, see the pending pods)"
        ));
    } else if health.current < health.desired {
        out.push(format!(
            "the budget's pods are not all healthy ({} of the {} it needs): it allows a disruption once more than {} are \
             running and ready",
            health.current, health.desired, health.desired
        ));
    } else {
        match (&pdb.spec.min_available, &pdb.spec.max_unavailable) {
            (Some(IntOrString::Int(min)), _) => {
                out.push(format!(
                    "scale the workload up: with {} healthy pods the budget (minAvailable {min}) allows one disruption",
                    health.current + 1
                ));
                out.push(format!("lower the budget's spec.minAvailable from {min} to {}", (min - 1).max(0)));
            }
            (Some(min), _) => out.push(format!("lower the budget's spec.minAvailable ({min})")),
            (None, Some(IntOrString::Int(max))) => {
                out.push(format!("raise the budget's spec.maxUnavailable from {max} to {}", max + 1))
            }
            (None, Some(max)) => out.push(format!("raise the budget's spec.maxUnavailable ({max})")),
            (None, None) => {}
        }
    }
    out.push(
        "kubectl drain --disable-eviction deletes the pods without asking their budgets (the budget is then violated)"
            .into(),
    );
    out
}

/// kubectl's line for a 429 it retries: `error when evicting pods/"web-1" -n "shop" (will
/// retry after 5s): Cannot evict pod as it would violate the pod's disruption budget.`
pub fn retry_line(pod: &Pod) -> String {
    format!(
        "error when evicting pods/{:?} -n {:?} (will retry after {RETRY_DELAY}): {BUDGET_VIOLATION}",
        pod.metadata.name,
        pod.metadata.namespace_or_default()
    )
}

/// kubectl's error for a pod it gave up on: the API's error, or `global timeout reached: 1m30s`.
pub fn eviction_error(pod: &Pod, error: &str) -> String {
    format!("error when evicting pods/{:?} -n {:?}: {error}", pod.metadata.name, pod.metadata.namespace_or_default())
}

/// RFC 3339 (`2026-11-30T08:15:02Z`, `...02.5+01:00`), as the API server writes timestamps,
/// to Unix seconds (fractions dropped).
///
/// ```
/// use placement_core::cluster::what_if::drain::parse_rfc3339;
/// assert_eq!(parse_rfc3339("1970-01-02T00:00:01Z"), Some(86_401));
/// assert_eq!(parse_rfc3339("2026-11-30T08:15:02.9+01:00"), Some(1_796_022_902));
/// assert_eq!(parse_rfc3339("yesterday"), None);
/// ```
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    let number = |from: usize, len: usize| -> Option<i64> {
        let s = text.get(from..from + len)?;
        s.bytes().all(|b| b.is_ascii_digit()).then(|| s.parse().ok()).flatten()
    };
    let separator = |at: usize, allowed: &[u8]| text.as_bytes().get(at).is_some_and(|b| allowed.contains(b));
    if !(separator(4, b"-")
        && separator(7, b"-")
        && separator(10, b"Tt ")
        && separator(13, b":")
        && separator(16, b":"))
    {
        return None;
    }
    let (year, month, day) = (number(0, 4)?, number(5, 2)?, number(8, 2)?);
    let (hour, minute, second) = (number(11, 2)?, number(14, 2)?, number(17, 2)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let mut rest = text.get(19..)?;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 {
            return None;
        }
        rest = fraction.get(digits..)?;
    }
    let offset = match rest {
        "Z" | "z" => 0,
        _ => {
            let sign = match rest.as_bytes().first() {
                Some(b'+') => 1,
                Some(b'-') => -1,
                _ => return None,
            };
            if rest.len() != 6 || rest.as_bytes().get(3) != Some(&b':') {
                return None;
            }
            let hours: i64 = rest.get(1..3)?.parse().ok()?;
            let minutes: i64 = rest.get(4..6)?.parse().ok()?;
            sign * (hours * 3600 + minutes * 60)
        }
    };
    // Days from the civil date (Howard Hinnant's `days_from_civil`).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let year_of_era = y - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    let days = era * 146_097 + day_of_era - 719_468;
    Some(days * 86_400 + hour * 3600 + minute * 60 + second - offset)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{OwnerReference, Volume};

    /// A pod from a compact description: `owner` is `Kind` (apps/v1 unless `Kind@apiVersion`)
    /// or empty, `phase` may be empty.
    fn pod(name: &str, owner: &str, phase: &str) -> Pod {
        let mut p = Pod::default();
        p.metadata.name = name.into();
        p.metadata.namespace = Some("ns".into());
        if !owner.is_empty() {
            let (kind, api_version) = owner.split_once('@').unwrap_or((owner, "apps/v1"));
            p.metadata.owner_references.push(OwnerReference {
                api_version: api_version.into(),
                kind: kind.into(),
                name: format!("{name}-owner"),
                uid: String::new(),
                controller: Some(true),
            });
        }
        p.status.phase = phase.into();
        p
    }

    fn with_empty_dir(mut p: Pod) -> Pod {
        p.spec.volumes.push(Volume {
            name: "scratch".into(),
            empty_dir: Some(serde_json::json!({})),
            ..Default::default()
        });
        p
    }

    fn mirror(mut p: Pod) -> Pod {
        p.metadata.annotations.insert(MIRROR_POD_ANNOTATION.into(), "hash".into());
        p
    }

    fn deleted_at(mut p: Pod, at: &str) -> Pod {
        p.metadata.deletion_timestamp = Some(at.into());
        p
    }

    fn opts(flags: &str) -> DrainOptions {
        let cmd: crate::cluster::what_if::WhatIf = format!("kubectl drain n {flags}").parse().unwrap();
        let crate::cluster::what_if::WhatIf::Drain { options, .. } = cmd else { panic!() };
        options
    }

    fn evict(warning: Option<&str>) -> DrainVerdict {
        DrainVerdict::Evict { warning: warning.map(str::to_string) }
    }

    fn refuse(reason: &str) -> DrainVerdict {
        DrainVerdict::Refuse { reason: reason.into() }
    }

    #[test]
    fn each_filter() {
        let gone = |_: &str, _: &str| false;
        let now = parse_rfc3339("2026-01-01T00:10:00Z");
        // (name, pod, flags, DaemonSets exist?, want)
        let rows: Vec<(&str, Pod, &str, bool, DrainVerdict)> = vec![
            ("replicated", pod("a", "ReplicaSet", "Running"), "", true, evict(None)),
            (
                "replicated, --disable-eviction",
                pod("a", "ReplicaSet", "Running"),
                "--disable-eviction",
                true,
                DrainVerdict::Delete { warning: None },
            ),
            ("no controller", pod("a", "", "Running"), "", true, refuse(UNMANAGED_FATAL)),
            ("no controller, --force", pod("a", "", "Running"), "--force", true, evict(Some(UNMANAGED_WARNING))),
            ("no controller, finished", pod("a", "", "Succeeded"), "", true, evict(None)),
            (
                "owner without controller: true",
                {
                    let mut p = pod("a", "ReplicaSet", "");
                    p.metadata.owner_references[0].controller = None;
                    p
                },
                "",
                true,
                refuse(UNMANAGED_FATAL),
            ),
            ("DaemonSet", pod("a", "DaemonSet", "Running"), "", true, refuse(DAEMON_SET_FATAL)),
            (
                "DaemonSet, --ignore-daemonsets",
                pod("a", "DaemonSet", "Running"),
                "--ignore-daemonsets",
                true,
                DrainVerdict::Skip { reason: SkipReason::DaemonSet },
            ),
            (
                "DaemonSet, --force is not enough",
                pod("a", "DaemonSet", "Running"),
                "--force",
                true,
                refuse(DAEMON_SET_FATAL),
            ),
            ("DaemonSet, finished", pod("a", "DaemonSet", "Failed"), "", true, evict(None)),
            (
                "DaemonSet of another API version is not one",
                pod("a", "DaemonSet@extensions/v1beta1", "Running"),
                "",
                true,
                evict(None),
            ),
            (
                "DaemonSet gone",
                pod("a", "DaemonSet", "Running"),
                "--ignore-daemonsets",
                false,
                refuse("daemonsets.apps \"a-owner\" not found"),
            ),
            (
                "DaemonSet gone, --force: its warning is dropped by later filters",
                pod("a", "DaemonSet", "Running"),
                "--force",
                false,
                evict(None),
            ),
            (
                "mirror",
                mirror(pod("a", "Node@v1", "Running")),
                "",
                true,
                DrainVerdict::Skip { reason: SkipReason::Mirror },
            ),
            (
                "mirror without a controller is skipped before refusal",
                mirror(pod("a", "", "Running")),
                "",
                true,
                DrainVerdict::Skip { reason: SkipReason::Mirror },
            ),
            ("emptyDir", with_empty_dir(pod("a", "ReplicaSet", "Running")), "", true, refuse(LOCAL_STORAGE_FATAL)),
            (
                "emptyDir, --delete-emptydir-data: warning dropped by the next filter",
                with_empty_dir(pod("a", "ReplicaSet", "Running")),
                "--delete-emptydir-data",
                true,
                evict(None),
            ),
            (
                "emptyDir without controller, both flags: the last warning",
                with_empty_dir(pod("a", "", "Running")),
                "--delete-emptydir-data --force",
                true,
                evict(Some(UNMANAGED_WARNING)),
            ),
            (
                "emptyDir and no controller: the first refusal",
                with_empty_dir(pod("a", "", "Running")),
                "",
                true,
                refuse(LOCAL_STORAGE_FATAL),
            ),
            ("emptyDir, finished", with_empty_dir(pod("a", "", "Succeeded")), "", true, evict(None)),
            (
                "DaemonSet with emptyDir: DaemonSet first",
                with_empty_dir(pod("a", "DaemonSet", "Running")),
                "",
                true,
                refuse(DAEMON_SET_FATAL),
            ),
            (
                "terminating, long ago",
                deleted_at(pod("a", "", "Running"), "2026-01-01T00:00:00Z"),
                "--skip-wait-for-delete-timeout=60",
                true,
                DrainVerdict::Skip { reason: SkipReason::Terminating },
            ),
            (
                "terminating, recently",
                deleted_at(pod("a", "ReplicaSet", "Running"), "2026-01-01T00:09:30Z"),
                "--skip-wait-for-delete-timeout=60",
                true,
                evict(None),
            ),
            (
                "terminating, flag off",
                deleted_at(pod("a", "ReplicaSet", "Running"), "2026-01-01T00:00:00Z"),
                "",
                true,
                evict(None),
            ),
        ];
        for (name, p, flags, exists, want) in rows {
            let env = DrainEnv { now, daemon_set_exists: if exists { None } else { Some(&gone) } };
            assert_eq!(drain_verdict_in(&p, &opts(flags), &env), want, "{name}");
        }
        let old = deleted_at(pod("a", "", "Running"), "2026-01-01T00:00:00Z");
        assert_eq!(
            drain_verdict(&old, &opts("--skip-wait-for-delete-timeout=60")),
            refuse(UNMANAGED_FATAL),
            "no clock, no skip"
        );
    }

    #[test]
    fn plans() {
        let ds = pod("ds", "DaemonSet", "Running");
        let web = pod("web", "ReplicaSet", "Running");
        let bare_b = pod("bare-b", "", "Running");
        let bare_a = pod("bare-a", "", "Running");
        let cache = with_empty_dir(pod("cache", "StatefulSet", "Running"));
        let mut other_ns = pod("z", "", "Running");
        other_ns.metadata.namespace = Some("aaa".into());

        let pods = [&ds, &web, &bare_b, &bare_a, &cache, &other_ns];
        let refused = plan("n1", &pods, &opts(""));
        assert!(refused.refused());
        assert!(refused.removed().is_empty(), "a refused node evicts nothing");
        assert_eq!(
            refused.errors(),
            [
                "cannot delete Pods that declare no controller (use --force to override): aaa/z, ns/bare-a, ns/bare-b",
                "cannot delete Pods with local storage (use --delete-emptydir-data to override): ns/cache",
                "cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): ns/ds",
            ]
        );
        assert_eq!(
            refused.result_line(),
            "error: unable to drain node \"n1\" due to error: [cannot delete Pods that declare no controller (use --force to override): aaa/z, ns/bare-a, ns/bare-b, \
             cannot delete Pods with local storage (use --delete-emptydir-data to override): ns/cache, \
             cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): ns/ds], continuing command..."
        );
        assert_eq!(refused.warnings(), None);

        let drained = plan("n1", &pods, &opts("--ignore-daemonsets --force --delete-emptydir-data"));
        assert!(!drained.refused());
        assert_eq!(drained.removed(), vec![5, 3, 2, 4, 1], "namespace and name order, DaemonSet pod kept");
        assert_eq!(
            drained.warnings().as_deref(),
            Some("deleting Pods that declare no controller: aaa/z, ns/bare-a, ns/bare-b; ignoring DaemonSet-managed Pods: ns/ds")
        );
        assert_eq!(drained.result_line(), "node/n1 drained");
        assert_eq!(pending_nodes(&[]), None);

        let selected = plan("n1", &pods, &opts("--pod-selector=app=web"));
        assert!(selected.pods.is_empty(), "no pod has the label");
        let mut labelled = web.clone();
        labelled.metadata.labels.insert("app".into(), "web".into());
        let selected = plan("n1", &[&bare_a, &labelled], &opts("--pod-selector=app=web"));
        assert_eq!(selected.removed(), vec![1], "the unlisted pod does not block the drain");

        let one_reason = plan("n2", &[&bare_a], &opts(""));
        let pending = |plans: &[&DrainPlan]| -> Vec<(String, Vec<String>)> {
            plans.iter().map(|p| (p.node.clone(), p.errors())).collect()
        };
        assert_eq!(
            pending_nodes(&pending(&[&refused])).as_deref(),
            Some(
                "There are pending nodes to be drained:\n n1\n\
                 cannot delete Pods that declare no controller (use --force to override): aaa/z, ns/bare-a, ns/bare-b\n\
                 cannot delete Pods with local storage (use --delete-emptydir-data to override): ns/cache\n\
                 cannot delete DaemonSet-managed Pods (use --ignore-daemonsets to ignore): ns/ds"
            )
        );
        let both = pending_nodes(&pending(&[&refused, &one_reason])).unwrap();
        let lines: Vec<&str> = both.lines().collect();
        assert_eq!(lines[..3], ["There are pending nodes to be drained:", " n1", " n2"]);
        assert!(lines[3].starts_with("[cannot delete Pods that declare no controller"), "{both}");
        assert_eq!(lines[4], "cannot delete Pods that declare no controller (use --force to override): ns/bare-a");
    }

    #[test]
    fn timestamps() {
        // (input, Unix seconds)
        let rows = [
            ("1970-01-01T00:00:00Z", Some(0)),
            ("1969-12-31T23:59:59Z", Some(-1)),
            ("2000-02-29T00:00:00Z", Some(951_782_400)),
            ("2026-11-30T08:15:02Z", Some(1_796_026_502)),
            ("2026-11-30T08:15:02.123456Z", Some(1_796_026_502)),
            ("2026-11-30T08:15:02-01:30", Some(1_796_031_902)),
            ("2026-11-30 08:15:02Z", Some(1_796_026_502)),
            ("2026-13-30T08:15:02Z", None),
            ("2026-11-30T08:15:02", None),
            ("2026-11-30T08:15:02.Z", None),
            ("2026-11-30", None),
            ("", None),
        ];
        for (input, want) in rows {
            assert_eq!(parse_rfc3339(input), want, "{input}");
        }
    }
}
