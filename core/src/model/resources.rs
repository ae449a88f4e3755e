//! Effective pod requests and limits (component-helpers `resource/helpers.go`) and the
//! scheduler's integer view of them (`framework.Resource`).

use std::collections::BTreeMap;

use crate::model::quantity::Quantity;
use crate::model::{Container, PodSpec, ResourceList};

pub const CPU: &str = "cpu";
pub const MEMORY: &str = "memory";
pub const EPHEMERAL_STORAGE: &str = "ephemeral-storage";
pub const PODS: &str = "pods";

/// The defaults the scheduler assumes for scoring when a container requests nothing
/// (`schedutil.DefaultMilliCPURequest`, `DefaultMemoryRequest`). Never used by Filter.
pub const DEFAULT_MILLI_CPU_REQUEST: i64 = 100;
pub const DEFAULT_MEMORY_REQUEST: i64 = 200 * 1024 * 1024;

#[derive(Debug, Clone, Default)]
pub struct PodResourcesOptions {
    pub exclude_overhead: bool,
    /// `PodLevelResources` gate: pod-level `spec.resources` overrides the container aggregate.
    pub pod_level_resources: bool,
    /// Values substituted for requests a container leaves out (scoring's non-zero requests).
    pub non_missing: Option<ResourceList>,
}

/// `PodRequests`: containers summed, init containers maxed in (sidecars accumulate),
/// pod-level requests override, then overhead.
pub fn pod_requests(spec: &PodSpec, opts: &PodResourcesOptions) -> ResourceList {
    let mut reqs = aggregate(spec, |c| requests_of(c, opts));
    if opts.pod_level_resources {
        if let Some(pod_level) = spec.resources.as_ref().filter(|r| !r.requests.is_empty()) {
            for (name, q) in &pod_level.requests {
                if is_supported_pod_level_resource(name) {
                    reqs.insert(name.clone(), q.clone());
                }
            }
        }
    }
    if !opts.exclude_overhead {
        add_list(&mut reqs, &spec.overhead);
    }
    reqs
}

/// `PodLimits`: like requests, but overhead is added only to limits already present and
/// non-zero.
pub fn pod_limits(spec: &PodSpec, opts: &PodResourcesOptions) -> ResourceList {
    let mut limits = aggregate(spec, |c| c.resources.limits.clone());
    if opts.pod_level_resources {
        if let Some(pod_level) = &spec.resources {
            for (name, q) in &pod_level.limits {
                if is_supported_pod_level_resource(name) {
                    limits.insert(name.clone(), q.clone());
                }
            }
        }
    }
    if !opts.exclude_overhead {
        for (name, q) in &spec.overhead {
            if let Some(v) = limits.get_mut(name) {
                if !v.is_zero() {
                    *v = v.add(q);
                }
            }
        }
    }
    limits
}

fn requests_of(c: &Container, opts: &PodResourcesOptions) -> ResourceList {
    let mut reqs = c.resources.requests.clone();
    if let Some(defaults) = &opts.non_missing {
        for (name, q) in defaults {
            reqs.insert_if_absent(name, || q.clone());
        }
    }
    reqs
}

fn aggregate(spec: &PodSpec, of: impl Fn(&Container) -> ResourceList) -> ResourceList {
    let mut total = ResourceList::new();
    for c in &spec.containers {
        add_list(&mut total, &of(c));
    }
    let mut sidecars = ResourceList::new();
    let mut init_peak = ResourceList::new();
    for c in &spec.init_containers {
        let own = of(c);
        let in_use = if c.is_restartable_init() {
            add_list(&mut total, &own);
            add_list(&mut sidecars, &own);
            sidecars.clone()
        } else {
            // A regular init container runs beside the sidecars started before it.
            let mut tmp = own;
            add_list(&mut tmp, &sidecars);
            tmp
        };
        max_list(&mut init_peak, &in_use);
    }
    max_list(&mut total, &init_peak);
    total
}

fn add_list(into: &mut ResourceList, from: &ResourceList) {
    for (name, q) in from {
        match into.get_mut(name) {
            Some(existing) => *existing = existing.add(q),
            None => {
                into.insert(name.clone(), q.clone());
            }
        }
    }
}

fn max_list(into: &mut ResourceList, from: &ResourceList) {
    for (name, q) in from {
        match into.get_mut(name) {
            Some(existing) if *existing >= *q => {}
            _ => {
                into.insert(name.clone(), q.clone());
            }
        }
    }
}

/// cpu, memory and (since the gate's hugepages extension) `hugepages-*`.
pub fn is_supported_pod_level_resource(name: &str) -> bool {
    name == CPU || name == MEMORY || is_hugepages(name)
}

pub fn is_hugepages(name: &str) -> bool {
    name.starts_with("hugepages-")
}

/// `IsScalarResourceName`: extended, hugepages, `kubernetes.io/`-prefixed native and
/// attachable-volume resources. `pods` and unprefixed native names are not scalars.
pub fn is_scalar_resource(name: &str) -> bool {
    is_extended_resource(name)
        || is_hugepages(name)
        || name.contains("kubernetes.io/")
        || name.starts_with("attachable-volumes-")
}

/// `IsExtendedResourceName`: a domain-qualified name outside `kubernetes.io/`.
pub fn is_extended_resource(name: &str) -> bool {
    let native = !name.contains('/') || name.contains("kubernetes.io/");
    if native || name.starts_with("requests.") {
        return false;
    }
    let quota_name = format!("requests.{name}");
    crate::model::labels::validate_label_key(&quota_name, &crate::input::field::FieldPath::root("")).is_ok()
}

/// The scheduler's integer resource vector: milli-cpu, bytes, and scalar units.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Resource {
    pub milli_cpu: i64,
    pub memory: i64,
    pub ephemeral_storage: i64,
    pub allowed_pods: i64,
    pub scalar: BTreeMap<String, i64>,
}

impl Resource {
    /// `framework.NewResource`: cpu by `MilliValue`, the rest by `Value`; `pods` becomes
    /// `allowed_pods`; names that are neither native nor scalar are dropped.
    pub fn from_list(list: &ResourceList) -> Self {
        let mut r = Resource::default();
        for (name, q) in list {
            match name.as_str() {
                CPU => r.milli_cpu = r.milli_cpu.saturating_add(q.milli_value()),
                MEMORY => r.memory = r.memory.saturating_add(q.value()),
                EPHEMERAL_STORAGE => r.ephemeral_storage = r.ephemeral_storage.saturating_add(q.value()),
                PODS => r.allowed_pods = r.allowed_pods.saturating_add(q.value()),
                n if is_scalar_resource(n) => {
                    *r.scalar.entry(n.to_string()).or_default() += q.value();
                }
                _ => {}
            }
        }
        r
    }

    pub fn add(&mut self, other: &Resource) {
        self.milli_cpu = self.milli_cpu.saturating_add(other.milli_cpu);
        self.memory = self.memory.saturating_add(other.memory);
        self.ephemeral_storage = self.ephemeral_storage.saturating_add(other.ephemeral_storage);
        self.allowed_pods = self.allowed_pods.saturating_add(other.allowed_pods);
        for (k, v) in &other.scalar {
            let e = self.scalar.entry(k.clone()).or_default();
            *e = e.saturating_add(*v);
        }
    }

    /// Takes `other` off (a pod leaving its node), never below zero.
    pub fn sub(&mut self, other: &Resource) {
        let less = |a: i64, b: i64| a.saturating_sub(b).max(0);
        self.milli_cpu = less(self.milli_cpu, other.milli_cpu);
        self.memory = less(self.memory, other.memory);
        self.ephemeral_storage = less(self.ephemeral_storage, other.ephemeral_storage);
        self.allowed_pods = less(self.allowed_pods, other.allowed_pods);
        for (k, v) in &other.scalar {
            if let Some(e) = self.scalar.get_mut(k) {
                *e = less(*e, *v);
            }
        }
    }

    pub fn is_zero(&self) -> bool {
        self.milli_cpu == 0 && self.memory == 0 && self.ephemeral_storage == 0 && self.scalar.values().all(|v| *v == 0)
    }

    pub fn get(&self, name: &str) -> i64 {
        match name {
            CPU => self.milli_cpu,
            MEMORY => self.memory,
            EPHEMERAL_STORAGE => self.ephemeral_storage,
            PODS => self.allowed_pods,
            other => self.scalar.get(other).copied().unwrap_or(0),
        }
    }
}

/// Scoring's non-zero requests: 100m cpu and 200Mi memory for containers that leave them out.
pub fn non_zero_defaults() -> ResourceList {
    let mut l = ResourceList::new();
    l.insert(CPU.into(), Quantity::from_milli(DEFAULT_MILLI_CPU_REQUEST));
    l.insert(MEMORY.into(), Quantity::from_value(DEFAULT_MEMORY_REQUEST));
    l
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::ResourceRequirements;

    fn container(cpu: &str, sidecar: bool) -> Container {
        Container {
            resources: ResourceRequirements {
                requests: [(CPU.to_string(), Quantity::parse(cpu).unwrap())].into(),
                limits: Default::default(),
            },
            restart_policy: sidecar.then(|| "Always".to_string()),
            ..Default::default()
        }
    }

    fn cpu_of(spec: &PodSpec) -> i64 {
        Resource::from_list(&pod_requests(spec, &PodResourcesOptions::default())).milli_cpu
    }

    #[test]
    fn effective_requests() {
        // (init containers, containers, expected milli-cpu, why)
        let rows: Vec<(Vec<Container>, Vec<Container>, i64, &str)> = vec![
            (vec![container("4", false)], vec![container("1", false)], 4000, "init peak dominates"),
            (vec![container("1", true)], vec![container("1", false)], 2000, "sidecar adds to containers"),
            (
                vec![container("10", true), container("200", false)],
                vec![container("100", false)],
                210_000,
                "regular init runs beside earlier sidecar",
            ),
            (
                vec![
                    container("5", false),
                    container("1", true),
                    container("2", true),
                    container("5", false),
                    container("3", true),
                ],
                vec![container("1", false)],
                8000,
                "init-2 runs with 3 of sidecars; steady state 7",
            ),
        ];
        for (init, containers, expected, why) in rows {
            let spec = PodSpec { init_containers: init, containers, ..Default::default() };
            assert_eq!(cpu_of(&spec), expected, "{why}");
        }
    }

    #[test]
    fn scalar_names() {
        assert!(is_scalar_resource("example.com/gpu"));
        assert!(is_scalar_resource("nvidia.com/gpu"));
        assert!(is_scalar_resource("hugepages-2Mi"));
        assert!(is_scalar_resource("kubernetes.io/something"));
        assert!(is_scalar_resource("attachable-volumes-aws-ebs"));
        assert!(!is_scalar_resource("pods"));
        assert!(!is_scalar_resource("cpu"));
        assert!(!is_scalar_resource("foo"));
    }
}
