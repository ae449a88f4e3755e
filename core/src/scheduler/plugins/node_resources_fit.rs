//! NodeResourcesFit (Filter and the LeastAllocated score) and NodeResourcesBalancedAllocation.

use std::borrow::Cow;

use serde::Serialize;

use crate::model::quantity::{format_bytes, format_cpu};
use crate::model::resources::{
    is_extended_resource, non_zero_defaults, pod_requests, PodResourcesOptions, Resource, CPU, EPHEMERAL_STORAGE,
    MEMORY, PODS,
};
use crate::model::version::KubeVersion;
use crate::model::PodSpec;
use crate::scheduler::framework::{Code, NodeInfo, SchedulerConfig, Status};

pub const NAME: &str = "NodeResourcesFit";
pub const BALANCED_ALLOCATION: &str = "NodeResourcesBalancedAllocation";
pub const ERR_REASON_SIDECARS_DISABLED: &str =
    "Pod has a restartable init container and the SidecarContainers feature is disabled";

/// `InsufficientResource`: one failed check, in upstream's units (millicores, bytes, units).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InsufficientResource {
    pub resource_name: String,
    /// Upstream's words (`Insufficient cpu`); borrowed for the named resources.
    pub reason: Cow<'static, str>,
    pub requested: i64,
    pub used: i64,
    pub capacity: i64,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub unresolvable: bool,
}

/// `Insufficient <resource>`, as upstream's fitsRequest words it.
fn insufficient_reason(name: &str) -> Cow<'static, str> {
    match name {
        CPU => Cow::Borrowed("Insufficient cpu"),
        MEMORY => Cow::Borrowed("Insufficient memory"),
        EPHEMERAL_STORAGE => Cow::Borrowed("Insufficient ephemeral-storage"),
        _ => Cow::Owned(format!("Insufficient {name}")),
    }
}

impl InsufficientResource {
    /// `needs 2 cpu, 1 free`, in kubectl's units.
    pub fn describe(&self) -> String {
        let fmt = |v: i64| match self.resource_name.as_str() {
            CPU => format_cpu(v),
            MEMORY | EPHEMERAL_STORAGE => format_bytes(v),
            _ => v.to_string(),
        };
        if self.resource_name == PODS {
            return format!("{} of {} pods already on the node", self.used, self.capacity);
        }
        let free = self.capacity.saturating_sub(self.used).max(0);
        let mut s = format!("needs {} {}, {} free", fmt(self.requested), self.resource_name, fmt(free));
        if self.unresolvable {
            s.push_str(&format!(" (node allocatable is {})", fmt(self.capacity)));
        }
        s
    }
}

/// `computePodResourceRequest`: the pod's effective requests as the scheduler counts them.
pub fn pod_request(pod: &PodSpec, cfg: &SchedulerConfig) -> Resource {
    let opts = PodResourcesOptions { pod_level_resources: cfg.gates.pod_level_resources, ..Default::default() };
    Resource::from_list(&pod_requests(pod, &opts))
}

/// A pod's requests as Filter and scoring read them, computed once and shared by the cycles
/// (and the bindings) of pods whose containers are the same.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PodRequests {
    pub request: Resource,
    /// With scoring's non-zero defaults: what binding the pod adds to a node's
    /// `NonZeroRequested`.
    pub non_zero: Resource,
    /// What NodeResourcesFit's score (LeastAllocated) reads of the incoming pod: `non_zero`,
    /// or where the release's scorer skips pod-level requests, the containers' alone.
    pub least_allocated: Resource,
}

impl PodRequests {
    pub fn of(pod: &PodSpec, cfg: &SchedulerConfig) -> Self {
        let non_zero = pod_non_zero_request(pod, cfg.gates.pod_level_resources);
        // Only pod-level requests can make the two differ; most pods have none.
        let pod_level_requests = pod.resources.as_ref().is_some_and(|r| !r.requests.is_empty());
        let least_allocated =
            if pod_level_requests && cfg.gates.pod_level_resources && !cfg.version.fit_score_reads_pod_level_requests()
            {
                pod_non_zero_request(pod, false)
            } else {
                non_zero.clone()
            };
        Self { request: pod_request(pod, cfg), non_zero, least_allocated }
    }
}

/// The requests with scoring's non-zero defaults (100m cpu, 200Mi memory per container),
/// with or without pod-level requests.
pub fn pod_non_zero_request(pod: &PodSpec, pod_level_resources: bool) -> Resource {
    let opts =
        PodResourcesOptions { pod_level_resources, non_missing: Some(non_zero_defaults()), ..Default::default() };
    Resource::from_list(&pod_requests(pod, &opts))
}

pub fn pre_filter(pod: &PodSpec, cfg: &SchedulerConfig) -> Status {
    if !cfg.gates.sidecar_containers && pod.init_containers.iter().any(|c| c.is_restartable_init()) {
        return Status::new(Code::UnschedulableAndUnresolvable, ERR_REASON_SIDECARS_DISABLED);
    }
    Status::success()
}

/// Filter: reasons in upstream's order (pods, cpu, memory, ephemeral-storage, scalars).
/// A node without `status.allocatable` is not checked at all (Placement's convention).
pub fn filter(request: &Resource, node: &NodeInfo, cfg: &SchedulerConfig) -> (Status, Vec<InsufficientResource>) {
    let Some(allocatable) = &node.allocatable else {
        return (Status::success(), Vec::new());
    };
    let insufficient = fits_request(request, node, allocatable, cfg);
    if insufficient.is_empty() {
        return (Status::success(), insufficient);
    }
    // Before PR #131345 (1.34) a request above allocatable was still only Unschedulable.
    let unresolvable = cfg.version.at_least(1, 34) && insufficient.iter().any(|r| r.unresolvable);
    let code = if unresolvable { Code::UnschedulableAndUnresolvable } else { Code::Unschedulable };
    let reasons = insufficient.iter().map(|r| r.reason.clone()).collect();
    let detail = insufficient.iter().map(InsufficientResource::describe).collect::<Vec<_>>().join("; ");
    (Status::with_reasons(code, reasons).with_detail(detail), insufficient)
}

fn fits_request(
    request: &Resource,
    node: &NodeInfo,
    allocatable: &Resource,
    cfg: &SchedulerConfig,
) -> Vec<InsufficientResource> {
    let mut out = Vec::new();
    let pods = node.pods().len() as i64;
    if pods + 1 > allocatable.allowed_pods {
        out.push(InsufficientResource {
            resource_name: PODS.into(),
            reason: Cow::Borrowed("Too many pods"),
            requested: 1,
            used: pods,
            capacity: allocatable.allowed_pods,
            unresolvable: false,
        });
    }
    if request.milli_cpu == 0 && request.memory == 0 && request.ephemeral_storage == 0 && request.scalar.is_empty() {
        return out;
    }
    let mut check = |name: &str, want: i64, used: i64, cap: i64| {
        if want > 0 && want > cap.saturating_sub(used) {
            out.push(InsufficientResource {
                resource_name: name.into(),
                reason: insufficient_reason(name),
                requested: want,
                used,
                capacity: cap,
                unresolvable: want > cap,
            });
        }
    };
    check(CPU, request.milli_cpu, node.requested.milli_cpu, allocatable.milli_cpu);
    check(MEMORY, request.memory, node.requested.memory, allocatable.memory);
    check(
        EPHEMERAL_STORAGE,
        request.ephemeral_storage,
        node.requested.ephemeral_storage,
        allocatable.ephemeral_storage,
    );
    // Upstream iterates a Go map here (nondeterministic order); Placement uses name order.
    for (name, want) in &request.scalar {
        if *want == 0 {
            continue;
        }
        if is_extended_resource(name) {
            let group = name.split('/').next().unwrap_or_default();
            if cfg.ignored_resources.iter().any(|r| r == name) || cfg.ignored_resource_groups.iter().any(|g| g == group)
            {
                continue;
            }
        }
        let used = node.requested.scalar.get(name).copied().unwrap_or(0);
        let cap = allocatable.scalar.get(name).copied().unwrap_or(0);
        check(name, *want, used, cap);
    }
    out
}

/// LeastAllocated over cpu and memory with non-zero requests: `(cap - req) * 100 / cap`,
/// averaged by weight. Not normalized.
///
/// Runs for every feasible node on every cycle, so it reads the two fields directly rather
/// than looking each resource up by name (same arithmetic, same order).
pub fn least_allocated_score(pod_non_zero: &Resource, node: &NodeInfo) -> i64 {
    let Some(alloc) = &node.allocatable else { return 0 };
    let scored = [
        (alloc.milli_cpu, node.non_zero_requested.milli_cpu, pod_non_zero.milli_cpu),
        (alloc.memory, node.non_zero_requested.memory, pod_non_zero.memory),
    ];
    let (mut sum, mut weights) = (0, 0);
    for (cap, used, wanted) in scored {
        if cap == 0 {
            continue;
        }
        let req = used.saturating_add(wanted);
        // In i128: with allocatable near i64::MAX (`5368Ei` of memory saturates there), the
        // product overflows i64. Upstream's Go wraps silently; the exact value is kept here.
        sum += if req > cap {
            0
        } else {
            ((cap as i128 - req as i128) * super::MAX_NODE_SCORE as i128 / cap as i128) as i64
        };
        weights += 1;
    }
    if weights == 0 {
        0
    } else {
        sum / weights
    }
}

/// BalancedAllocation over actual requests. `None` (Skip) for best-effort pods, which
/// upstream skips so they do not pile up.
///
/// - Up to 1.35: [`balance`] with the pod, `(1 - stddev of the used fractions) * 100`.
/// - From 1.36 (kubernetes#135573, in v1.36.0-alpha.1's CHANGELOG, no gate): how much the
///   pod improves the node's balance, `50 + (50 + with - without) / 2` over the balance with
///   and without the pod (`balancedResourceScorer`, `balanced_allocation.go`): 75 when the
///   balance does not change, towards 100 as it improves, towards 50 as it worsens.
pub fn balanced_allocation_score(pod_request: &Resource, node: &NodeInfo, version: KubeVersion) -> Option<i64> {
    if pod_request.milli_cpu == 0 && pod_request.memory == 0 {
        return None;
    }
    let Some(alloc) = &node.allocatable else { return Some(0) };
    let with_pod = balance(alloc, &node.requested, pod_request);
    if !version.at_least(1, 36) {
        return Some(with_pod);
    }
    let without_pod = balance(alloc, &node.requested, &Resource::default());
    let half = super::MAX_NODE_SCORE / 2;
    // The numerator is 0 to 100: Go's truncating division is a floor here.
    Some(half + (half + with_pod - without_pod) / 2)
}

/// `(1 - stddev of the used fractions) * 100`, truncated, of cpu then memory (the default
/// strategy's resources, weight 1 each) with `wanted` added to `used`; resources the node
/// has none of are skipped, and a fraction is at most 1. 50 to 100.
fn balance(alloc: &Resource, used: &Resource, wanted: &Resource) -> i64 {
    // A lazy iterator instead of a Vec: this runs per node per cycle.
    let scored = [(alloc.milli_cpu, used.milli_cpu, wanted.milli_cpu), (alloc.memory, used.memory, wanted.memory)];
    let mut fractions = scored
        .into_iter()
        .filter(|&(cap, _, _)| cap != 0)
        .map(|(cap, used, wanted)| (used.saturating_add(wanted) as f64 / cap as f64).min(1.0));
    // The standard deviation of two values is half their distance; of one (or none), 0.
    let std = match (fractions.next(), fractions.next()) {
        (Some(a), Some(b)) => ((a - b) / 2.0).abs(),
        _ => 0.0,
    };
    ((1.0 - std) * super::MAX_NODE_SCORE as f64) as i64
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (name, release, node allocatable (milli-cpu, bytes), requested on it, pod's request,
    /// want). The 1.36 rows: the two nodes of upstream's test "resources requested, pods
    /// scheduled with resources, nodes to reach min/max score" (kubernetes#135573's
    /// `balanced_allocation_test.go`: a cpu-only pod already on node1, none on node2, a
    /// memory-only pod coming), and formula checks of the balance with and without the pod.
    #[test]
    fn balanced_allocation_per_release() {
        let r = |cpu: i64, mem: i64| Resource { milli_cpu: cpu, memory: mem, ..Default::default() };
        let (v135, v136) = (KubeVersion::new(1, 35), KubeVersion::new(1, 36));
        let cases = [
            ("1.36 min/max: node1 from 50 to 100", v136, r(3000, 5000), r(3000, 0), r(0, 5000), Some(100)),
            ("1.36 min/max: node2 from 100 to 50", v136, r(3000, 5000), r(0, 0), r(0, 5000), Some(50)),
            ("1.35 scores the balance with the pod only", v135, r(3000, 5000), r(0, 0), r(0, 5000), Some(50)),
            (
                "1.36: an empty node, .75/.5 with the pod: 50 + (50 + 87 - 100) / 2",
                v136,
                r(4000, 10000),
                r(0, 0),
                r(3000, 5000),
                Some(68),
            ),
            ("1.35: the same node", v135, r(4000, 10000), r(0, 0), r(3000, 5000), Some(87)),
            ("1.36: no change to the balance is 75", v136, r(6000, 10000), r(0, 0), r(3000, 5000), Some(75)),
            ("1.35: the same node is perfectly balanced", v135, r(6000, 10000), r(0, 0), r(3000, 5000), Some(100)),
            ("a best-effort pod is skipped", v136, r(6000, 10000), r(0, 0), r(0, 0), None),
        ];
        for (name, version, allocatable, requested, pod, want) in cases {
            let mut node = NodeInfo::new(crate::model::Node::default());
            (node.allocatable, node.requested) = (Some(allocatable), requested);
            assert_eq!(balanced_allocation_score(&pod, &node, version), want, "{name}");
        }
    }

    #[test]
    fn insufficient_reasons_are_upstreams_words() {
        for (name, want) in [
            (CPU, "Insufficient cpu"),
            (MEMORY, "Insufficient memory"),
            (EPHEMERAL_STORAGE, "Insufficient ephemeral-storage"),
            ("nvidia.com/gpu", "Insufficient nvidia.com/gpu"),
            ("hugepages-2Mi", "Insufficient hugepages-2Mi"),
        ] {
            assert_eq!(insufficient_reason(name), want, "{name}");
        }
    }
}
