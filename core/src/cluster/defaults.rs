//! What a default cluster does to a pod spec between `kubectl apply` and the scheduler, as far
//! as placement reads it: the API server's defaulting (`SetDefaults_Pod`) and the
//! DefaultTolerationSeconds admission plugin. Every change is returned as a note, so nothing
//! the report shows is magic. Validation judges the same defaulted spec
//! ([`crate::input::validation`]).

use crate::model::taints::{NO_EXECUTE, TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE};
use crate::model::version::FeatureGates;
use crate::model::{PodSpec, Toleration};

/// DefaultTolerationSeconds' default for not-ready and unreachable.
pub const DEFAULT_TOLERATION_SECONDS: i64 = 300;

/// API defaulting that changes placement: a container resource with a limit and no request
/// requests its limit.
///
/// With `hostNetwork`, container ports without a hostPort get hostPort = containerPort
/// (`SetDefaults_Pod`): the pod listens on the node's network either way.
pub fn api_defaults(spec: &mut PodSpec, gates: &FeatureGates) -> Vec<String> {
    let mut notes = Vec::new();
    if spec.host_network {
        for c in spec.containers.iter_mut().chain(spec.init_containers.iter_mut()) {
            for p in c.ports.iter_mut().filter(|p| p.host_port == 0 && p.container_port > 0) {
                p.host_port = p.container_port;
                notes.push(format!(
                    "container {:?}: hostNetwork sets hostPort {} for containerPort {}",
                    c.name, p.host_port, p.container_port
                ));
            }
        }
    }
    for c in spec.containers.iter_mut().chain(spec.init_containers.iter_mut()) {
        let limits = c.resources.limits.clone();
        for (name, q) in limits {
            if !c.resources.requests.contains_key(&name) {
                notes.push(format!("container {:?}: requests.{name} defaulted to its limit {q}", c.name));
                c.resources.requests.insert(name, q);
            }
        }
    }
    if gates.pod_level_resources {
        notes.extend(default_pod_level_requests(spec));
    }
    notes
}

/// `defaultPodRequests` (pkg/apis/core/v1/defaults.go, PodLevelResources on): when pod-level
/// limits are set, each supported resource without a pod-level request gets one: for the
/// overcommittable ones (cpu, memory) the containers' effective request where they request
/// it, else the pod-level limit; hugepages only from the pod-level limit. Runs after the
/// containers' requests were defaulted from their limits, as `SetDefaults_Pod` orders it.
///
/// This is what the API server of 1.35.4 does, as the recorded corpus shows: a pod with
/// pod-level `limits.cpu: 4` and a container requesting 50m holds 50m, and a pod with
/// pod-level cpu/memory limits beside container hugepages gets no pod-level hugepages request.
/// A later upstream revision inverts the hugepages rule (docs/fidelity.md, item 4).
fn default_pod_level_requests(spec: &mut PodSpec) -> Vec<String> {
    let Some(pod_level) = spec.resources.as_ref().filter(|r| !r.limits.is_empty()) else {
        return Vec::new();
    };
    let containers = crate::model::resources::pod_requests(
        spec,
        &crate::model::resources::PodResourcesOptions { exclude_overhead: true, ..Default::default() },
    );
    let mut added: Vec<(String, crate::model::quantity::Quantity, &str)> = Vec::new();
    for (name, q) in &containers {
        let overcommittable = !crate::model::resources::is_hugepages(name);
        if crate::model::resources::is_supported_pod_level_resource(name)
            && overcommittable
            && !pod_level.requests.contains_key(name)
        {
            added.push((name.clone(), q.clone(), "the containers' requests"));
        }
    }
    for (name, q) in &pod_level.limits {
        let taken = pod_level.requests.contains_key(name) || added.iter().any(|(n, _, _)| n == name);
        if crate::model::resources::is_supported_pod_level_resource(name) && !taken {
            added.push((name.clone(), q.clone(), "its pod-level limit"));
        }
    }
    let mut notes = Vec::new();
    if let Some(pod_level) = spec.resources.as_mut() {
        for (name, q, from) in added {
            notes.push(format!("pod-level requests.{name} defaulted to {from}, {q}"));
            pod_level.requests.insert(name, q);
        }
    }
    notes
}

/// Whether [`api_defaults`] and, with `admission_defaults`, [`default_toleration_seconds`]
/// would leave `spec` as it is: true of every pod read back from a cluster, which the API
/// server defaulted and admitted when it was created. A caller can then use the spec
/// without a copy to default. With the PodLevelResources gate on, pod-level limits answer
/// false whether or not their requests are set (the cheap side: the caller then copies).
pub fn admission_changes_nothing(spec: &PodSpec, gates: &FeatureGates, admission_defaults: bool) -> bool {
    let containers = || spec.containers.iter().chain(&spec.init_containers);
    let host_ports =
        spec.host_network && containers().any(|c| c.ports.iter().any(|p| p.host_port == 0 && p.container_port > 0));
    let limits_without_requests =
        containers().any(|c| c.resources.limits.keys().any(|name| !c.resources.requests.contains_key(name)));
    let pod_level = gates.pod_level_resources && spec.resources.as_ref().is_some_and(|r| !r.limits.is_empty());
    let tolerations = admission_defaults
        && [TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE].iter().any(|key| !tolerates_for_a_while(spec, key));
    !(host_ports || limits_without_requests || pod_level || tolerations)
}

/// Whether the pod tolerates the NoExecute taint `key` (the check of
/// [`default_toleration_seconds`]).
fn tolerates_for_a_while(spec: &PodSpec, key: &str) -> bool {
    spec.tolerations
        .iter()
        .any(|t| (t.key == key || t.key.is_empty()) && (t.effect == NO_EXECUTE || t.effect.is_empty()))
}

/// The DefaultTolerationSeconds admission plugin: tolerate not-ready and unreachable
/// NoExecute taints for 300s unless the pod already tolerates them.
pub fn default_toleration_seconds(spec: &mut PodSpec) -> Vec<String> {
    let mut notes = Vec::new();
    for key in [TAINT_NODE_NOT_READY, TAINT_NODE_UNREACHABLE] {
        if !tolerates_for_a_while(spec, key) {
            spec.tolerations.push(Toleration {
                key: key.into(),
                operator: "Exists".into(),
                value: String::new(),
                effect: NO_EXECUTE.into(),
                toleration_seconds: Some(DEFAULT_TOLERATION_SECONDS),
            });
            notes
                .push(format!("DefaultTolerationSeconds: tolerates {key}:NoExecute for {DEFAULT_TOLERATION_SECONDS}s"));
        }
    }
    notes
}

/// `SetDefaults_StorageClass`: `reclaimPolicy: Delete` and `volumeBindingMode: Immediate`
/// where the class names none.
pub fn default_storage_class(class: &mut crate::model::storage::StorageClass) {
    class.reclaim_policy.get_or_insert_with(|| "Delete".into());
    class.volume_binding_mode.get_or_insert_with(|| crate::model::storage::IMMEDIATE.into());
}

#[cfg(test)]
mod admission_changes_nothing_tests {
    use super::*;

    /// The predicate says exactly when the defaults it mirrors leave a spec as it is.
    #[test]
    fn agrees_with_applying_the_defaults() {
        let spec = |yaml: &str| -> PodSpec { serde_yaml::from_str(yaml).expect("spec") };
        let tolerated = "tolerations: [{key: node.kubernetes.io/not-ready, operator: Exists, effect: NoExecute, tolerationSeconds: 300}, {key: node.kubernetes.io/unreachable, operator: Exists, effect: NoExecute, tolerationSeconds: 300}]";
        let specs = [
            ("already admitted", format!("containers: [{{name: c, resources: {{requests: {{cpu: 1}}, limits: {{cpu: 1}}}}}}]\n{tolerated}")),
            ("no tolerations", "containers: [{name: c}]".to_string()),
            ("tolerates everything NoExecute", "containers: [{name: c}]\ntolerations: [{operator: Exists, effect: NoExecute}]".to_string()),
            ("a limit without its request", format!("containers: [{{name: c, resources: {{limits: {{memory: 1Gi}}}}}}]\n{tolerated}")),
            ("an init container's limit", format!("containers: [{{name: c}}]\ninitContainers: [{{name: i, resources: {{limits: {{cpu: 1}}}}}}]\n{tolerated}")),
            ("hostNetwork without hostPort", format!("hostNetwork: true\ncontainers: [{{name: c, ports: [{{containerPort: 80}}]}}]\n{tolerated}")),
            ("hostNetwork with hostPort", format!("hostNetwork: true\ncontainers: [{{name: c, ports: [{{containerPort: 80, hostPort: 80}}]}}]\n{tolerated}")),
            ("pod-level limits", format!("resources: {{limits: {{cpu: 2}}}}\ncontainers: [{{name: c}}]\n{tolerated}")),
        ];
        for gates in [FeatureGates::default(), FeatureGates { pod_level_resources: true, ..FeatureGates::default() }] {
            for admission_defaults in [false, true] {
                for (why, yaml) in &specs {
                    let before = spec(yaml);
                    let mut after = before.clone();
                    api_defaults(&mut after, &gates);
                    if admission_defaults {
                        default_toleration_seconds(&mut after);
                    }
                    assert_eq!(
                        admission_changes_nothing(&before, &gates, admission_defaults),
                        after == before,
                        "{why} (pod-level gate {}, admission defaults {admission_defaults})",
                        gates.pod_level_resources
                    );
                }
            }
        }
    }
}
