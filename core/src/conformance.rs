//! Runs the shared kube-scheduler test vectors (transcribed from upstream's Go table tests)
//! through the engine. Each vector kind maps to the function that reproduces the upstream
//! function the vector was taken from; see the vectors' NOTES.md for the schema.

use serde_json::{json, Value};

use crate::cluster::daemonset;
use crate::input::documents::{DocRef, StorageObjects};
use crate::input::field::{FieldError, FieldPath};
use crate::model::labels::Selector;
use crate::model::node_selector::{
    requirements_as_selector, NodeSelectorMatcher, PreferredSchedulingTerms, RequiredNodeAffinity,
};
use crate::model::quantity::Quantity;
use crate::model::resources::{pod_limits, pod_requests, PodResourcesOptions};
use crate::model::taints::{compare_numeric_values, find_untolerated_taint};
use crate::model::version::{FeatureGates, KubeVersion};
use crate::model::{
    Affinity, Node, NodeAffinity, NodeSelector, NodeSelectorRequirement, Pod, PodSpec, PreferredSchedulingTerm,
    ResourceList, Taint, Toleration,
};
use crate::scheduler::fit_error::FitError;
use crate::scheduler::framework::{Code, NodeInfo, PlacedPod, SchedulerConfig, Status};
use crate::scheduler::hostports::{wanted_host_ports, HostPort, HostPortInfo};
use crate::scheduler::plugins::{
    default_normalize_score, node_affinity, node_name, node_ports, node_resources_fit, node_unschedulable,
    node_volume_limits, taint_toleration, volume_binding, volume_restrictions, volume_zone, MAX_NODE_SCORE,
};
use crate::scheduler::storage::Storage;

#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct ConformanceReport {
    pub passed: usize,
    pub failed: usize,
    pub failures: Vec<Failure>,
}

#[derive(Debug, Clone, serde::Serialize)]
pub struct Failure {
    pub id: String,
    pub message: String,
}

impl ConformanceReport {
    /// The runner's closing line, `N passed, M failed`.
    pub fn summary(&self) -> String {
        format!("{} passed, {} failed", self.passed, self.failed)
    }
}

/// A vectors file that cannot be read as a JSON array of vectors.
#[derive(Debug, thiserror::Error)]
pub enum ConformanceError {
    #[error("vectors file: {0}")]
    Vectors(#[source] serde_json::Error),
}

/// Runs every vector in `vectors_json` (the top-level array of vectors.json).
pub fn run(vectors_json: &str) -> Result<ConformanceReport, ConformanceError> {
    let vectors: Vec<Value> = serde_json::from_str(vectors_json).map_err(ConformanceError::Vectors)?;
    let mut report = ConformanceReport::default();
    for v in &vectors {
        let id = v.get("id").and_then(Value::as_str).unwrap_or("<no id>").to_string();
        match run_one(v) {
            Ok(()) => report.passed += 1,
            Err(message) => {
                report.failed += 1;
                report.failures.push(Failure { id, message });
            }
        }
    }
    Ok(report)
}

type Outcome = Result<(), String>;

fn run_one(v: &Value) -> Outcome {
    let kind = v.get("kind").and_then(Value::as_str).unwrap_or_default();
    let input = v.get("input").cloned().unwrap_or(Value::Null);
    let expected = v.get("expected").cloned().unwrap_or(Value::Null);
    let input = &input;
    let expected = &expected;
    match kind {
        "toleration" => {
            let t: Toleration = decode(&input["toleration"])?;
            let taint: Taint = decode(&input["taint"])?;
            let got = t.tolerates(&taint, gates(input)?.taint_toleration_comparison_operators);
            check_eq("tolerated", json!(got), &expected["tolerated"])
        }
        "toleration_numeric_compare" => {
            let got = compare_numeric_values(
                str_of(&input["tolerationValue"]),
                str_of(&input["taintValue"]),
                str_of(&input["operator"]),
            );
            check_eq("result", json!(got), &expected["result"])
        }
        "taint_to_string" => {
            let t: Taint = decode(&input["taint"])?;
            check_eq("string", json!(t.to_string()), &expected["string"])
        }
        "taint_match" => {
            let a: Taint = decode(&input["taint"])?;
            let b: Taint = decode(&input["taintToMatch"])?;
            check_eq("match", json!(a.matches(&b)), &expected["match"])
        }
        "find_untolerated_taint" => find_untolerated(input, expected),
        "node_selector_terms" => {
            let node: Option<Node> = decode_opt(&input["node"])?;
            let got = match decode_opt::<NodeSelector>(&input["nodeSelector"])? {
                None => false,
                Some(sel) => NodeSelectorMatcher::lazy(&sel, &FieldPath::root("")).matches(node.as_ref()),
            };
            check_eq("matches", json!(got), &expected["matches"])
        }
        "node_selector" => {
            let sel: NodeSelector = decode(&input["nodeSelector"])?;
            let node: Option<Node> = decode_opt(&input["node"])?;
            match NodeSelectorMatcher::strict(&sel, &FieldPath::root("")) {
                Ok(m) => {
                    check_errors(&[], &expected["parseErrors"])?;
                    check_eq("matches", json!(m.matches(node.as_ref())), &expected["matches"])
                }
                Err(errs) => check_errors(&errs, &expected["parseErrors"]),
            }
        }
        "node_selector_requirements_parse" => {
            let reqs: Vec<NodeSelectorRequirement> = decode_opt(&input["matchExpressions"])?.unwrap_or_default();
            let path = FieldPath::root(str_of(&input["fieldPath"]));
            match requirements_as_selector(&reqs, &path) {
                Err(errs) => check_errors(&errs, &expected["parseErrors"]),
                Ok(sel) => {
                    check_errors(&[], &expected["parseErrors"])?;
                    if expected["matchesNothing"] == json!(true) {
                        return check_eq("matchesNothing", json!(sel == Selector::Nothing), &json!(true));
                    }
                    let want = str_of(&expected["equivalentSelector"]);
                    if same_selector(&sel.to_string(), want) {
                        Ok(())
                    } else {
                        Err(format!("selector: got {sel}, want {want}"))
                    }
                }
            }
        }
        "preferred_scheduling_terms" => {
            let terms: Vec<PreferredSchedulingTerm> = decode(&input["preferredSchedulingTerms"])?;
            match PreferredSchedulingTerms::new(&terms, &FieldPath::root("")) {
                Err(errs) => check_errors(&errs, &expected["parseErrors"]),
                Ok(t) => {
                    check_errors(&[], &expected["parseErrors"])?;
                    let node: Option<Node> = decode_opt(&input["node"])?;
                    let score = node.map(|n| t.score(&n)).unwrap_or(0);
                    check_eq("score", json!(score), &expected["score"])
                }
            }
        }
        "required_node_affinity" => {
            let pod: Pod = decode(&input["pod"])?;
            let node: Node = decode(&input["node"])?;
            check_eq("matches", json!(RequiredNodeAffinity::from_pod(&pod.spec).matches(&node)), &expected["matches"])
        }
        "avoid_pods_annotation" => {
            let annotation =
                input["annotations"].get("scheduler.alpha.kubernetes.io/preferAvoidPods").and_then(Value::as_str);
            let (error, avoid) = match annotation {
                None => (false, json!({})),
                Some(text) => match serde_json::from_str::<Value>(text) {
                    Ok(v) => (false, v),
                    Err(_) => (true, json!({})),
                },
            };
            check_eq("error", json!(error), &expected["error"])?;
            check_eq("avoidPods", avoid, &expected["avoidPods"])
        }
        "filter" => filter_vector(input, expected),
        "score" => score_vector(input, expected),
        "volume_filter" => volume_vector(input, expected),
        "pod_requests" => {
            let pod: Pod = decode(&input["pod"])?;
            let opts = PodResourcesOptions {
                exclude_overhead: input.pointer("/options/excludeOverhead") == Some(&json!(true)),
                pod_level_resources: gates(input)?.pod_level_resources,
                non_missing: None,
            };
            check_resources("requests", &pod_requests(&pod.spec, &opts), &expected["requests"])?;
            if !expected["limits"].is_null() {
                check_resources("limits", &pod_limits(&pod.spec, &opts), &expected["limits"])?;
            }
            Ok(())
        }
        "host_port_conflict" => {
            let mut used = HostPortInfo::default();
            for p in input["used"].as_array().into_iter().flatten() {
                used.add(&host_port(p));
            }
            check_eq("conflict", json!(used.conflicts(&host_port(&input["check"]))), &expected["conflict"])
        }
        "daemonset_node_affinity" => {
            let affinity: Option<Affinity> = decode_opt(&input["affinity"])?;
            let got = daemonset::pin_to_node(affinity, str_of(&input["nodeName"]));
            check_eq("affinity", serde_json::to_value(got).map_err(|e| e.to_string())?, &expected["affinity"])
        }
        "daemonset_target_node" => {
            let pod: Pod = decode(&input["pod"])?;
            match daemonset::target_node_name(&pod.spec) {
                Ok(name) => {
                    check_eq("error", json!(false), &expected["error"])?;
                    check_eq("nodeName", json!(name), &expected["nodeName"])
                }
                Err(_) => check_eq("error", json!(true), &expected["error"]),
            }
        }
        "daemonset_tolerations" => {
            let mut spec: PodSpec = decode(&input["podSpec"])?;
            daemonset::add_daemon_tolerations(&mut spec);
            check_eq(
                "tolerations",
                serde_json::to_value(&spec.tolerations).map_err(|e| e.to_string())?,
                &expected["tolerations"],
            )
        }
        "daemonset_should_run" => {
            let template: PodSpec = decode(input.pointer("/daemonSet/spec/template/spec").unwrap_or(&Value::Null))?;
            let node: Node = decode(&input["node"])?;
            let cfg = SchedulerConfig::default();
            let got = daemonset::node_should_run(&template, &node, &cfg);
            check_eq("shouldRun", json!(got.should_run), &expected["shouldRun"])?;
            check_eq("shouldContinueRunning", json!(got.should_continue_running), &expected["shouldContinueRunning"])
        }
        "fit_error_message" => {
            let strings = |v: &Value| -> Vec<String> {
                v.as_array().into_iter().flatten().filter_map(Value::as_str).map(str::to_string).collect()
            };
            let e = FitError {
                num_all_nodes: input["numAllNodes"].as_u64().unwrap_or(0) as usize,
                node_reasons: input["nodeStatuses"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|s| strings(&s["reasons"]))
                    .collect(),
                absent_nodes_reasons: strings(&input["absentNodesReasons"]),
                pre_filter_msg: str_of(&input["preFilterMsg"]).to_string(),
                post_filter_msg: str_of(&input["postFilterMsg"]).to_string(),
            };
            check_eq("message", json!(e.message()), &expected["message"])
        }
        other => Err(format!("unknown vector kind {other:?}")),
    }
}

fn find_untolerated(input: &Value, expected: &Value) -> Outcome {
    let tolerations: Vec<Toleration> = decode_opt(&input["tolerations"])?.unwrap_or_default();
    let taints: Vec<Taint> = decode_opt(&input["taints"])?.unwrap_or_default();
    // null or "all": every taint counts; "none": no taint passes; {effects}: those effects.
    let effects: Option<Vec<String>> = match &input["taintFilter"] {
        Value::String(s) if s == "none" => Some(Vec::new()),
        Value::Null | Value::String(_) => None,
        f => Some(decode(&f["effects"])?),
    };
    let filter = |t: &Taint| effects.as_ref().is_none_or(|e| e.contains(&t.effect));
    let found =
        find_untolerated_taint(&taints, &tolerations, filter, gates(input)?.taint_toleration_comparison_operators);
    check_eq("untolerated", json!(found.is_some()), &expected["untolerated"])?;
    if let Some(t) = found {
        check_eq(
            "firstUntoleratedTaint",
            serde_json::to_value(t).map_err(|e| e.to_string())?,
            &expected["firstUntoleratedTaint"],
        )?;
    }
    Ok(())
}

fn config(input: &Value) -> Result<SchedulerConfig, String> {
    let mut cfg = SchedulerConfig { gates: gates(input)?, ..Default::default() };
    let args = &input["pluginArgs"];
    if !args["addedAffinity"].is_null() {
        cfg.added_affinity = Some(decode::<NodeAffinity>(&args["addedAffinity"])?);
    }
    cfg.ignored_resources = decode_opt(&args["ignoredResources"])?.unwrap_or_default();
    cfg.ignored_resource_groups = decode_opt(&args["ignoredResourceGroups"])?.unwrap_or_default();
    Ok(cfg)
}

fn filter_vector(input: &Value, expected: &Value) -> Outcome {
    let cfg = config(input)?;
    let pod: Pod = decode(&input["pod"])?;
    let mut node: Node = decode(&input["node"])?;
    // Upstream: a node without allocatable has 0 of everything (Placement's simulation treats
    // it as unconstrained instead; here we test upstream's plugin).
    node.status.allocatable.get_or_insert_with(ResourceList::new);
    let mut info = NodeInfo::new(node);
    for p in input["existingPods"].as_array().into_iter().flatten() {
        let existing: Pod = decode(p)?;
        info.requested.add(&node_resources_fit::pod_request(&existing.spec, &cfg));
        for hp in wanted_host_ports(&existing.spec) {
            info.used_ports.add(&hp);
        }
        info.add_pod(PlacedPod::from_pod(&existing));
    }
    let plugin = str_of(&input["plugin"]);
    let spec = &pod.spec;
    let (pre, names): (Status, Option<Vec<String>>) = match plugin {
        node_affinity::NAME => {
            let (s, n) = node_affinity::pre_filter(spec, &cfg);
            (s, n.map(|n| n.into_iter().collect()))
        }
        node_name::NAME => {
            let (s, n) = node_name::pre_filter(spec);
            (s, n.map(|n| n.into_iter().collect()))
        }
        node_ports::NAME => (node_ports::pre_filter(spec).0, None),
        node_resources_fit::NAME => (node_resources_fit::pre_filter(spec, &cfg), None),
        _ => (Status::success(), None),
    };
    if let Some(want) = expected.get("preFilter") {
        check_status("preFilter", &pre, want)?;
        let got = names.map(|n| json!({ "nodeNames": n })).unwrap_or(Value::Null);
        check_eq("preFilter.result", got, &want["result"])?;
    }
    let Some(want) = expected.get("filter") else { return Ok(()) };
    let mut insufficient = Vec::new();
    let status = match plugin {
        node_unschedulable::NAME => node_unschedulable::filter(spec, info.node(), &cfg),
        node_name::NAME => node_name::filter(spec, info.node()),
        taint_toleration::NAME => taint_toleration::filter(spec, info.node(), &cfg),
        node_affinity::NAME => node_affinity::State::new(spec, &cfg).filter(info.node()),
        node_ports::NAME => node_ports::filter(&wanted_host_ports(spec), &info),
        node_resources_fit::NAME => {
            let (s, ins) = node_resources_fit::filter(&node_resources_fit::pod_request(spec, &cfg), &info, &cfg);
            insufficient = ins;
            s
        }
        other => return Err(format!("unknown plugin {other:?}")),
    };
    check_status("filter", &status, want)?;
    if let Some(want_ins) = expected.get("insufficientResources") {
        check_eq("insufficientResources", serde_json::to_value(&insufficient).map_err(|e| e.to_string())?, want_ins)?;
    }
    // The older wordings, each checked at a release inside its range.
    if let Some(by_version) = want["reasonsByVersion"].as_object() {
        for (range, reasons) in by_version {
            let version = first_version(range).ok_or_else(|| format!("cannot read a version from {range:?}"))?;
            let cfg = SchedulerConfig { version, ..cfg.clone() };
            let status = taint_toleration::filter(spec, info.node(), &cfg);
            check_eq(&format!("reasons at {version}"), json!(status.reasons), reasons)?;
        }
    }
    Ok(())
}

fn score_vector(input: &Value, expected: &Value) -> Outcome {
    let cfg = config(input)?;
    let pod: Pod = decode(&input["pod"])?;
    let nodes: Vec<Node> = decode(&input["nodes"])?;
    let mut raw: Vec<i64> = match str_of(&input["plugin"]) {
        taint_toleration::NAME => {
            let relevant = taint_toleration::score_tolerations(&pod.spec);
            nodes.iter().map(|n| taint_toleration::score(&relevant, n, &cfg)).collect()
        }
        node_affinity::NAME => {
            let state = node_affinity::State::new(&pod.spec, &cfg);
            nodes.iter().map(|n| state.score(n)).collect()
        }
        other => return Err(format!("unknown score plugin {other:?}")),
    };
    let named = |scores: &[i64]| -> Value {
        Value::Array(nodes.iter().zip(scores).map(|(n, s)| json!({ "name": n.metadata.name, "score": s })).collect())
    };
    check_eq("rawScores", named(&raw), &expected["rawScores"])?;
    let reverse = str_of(&input["plugin"]) == taint_toleration::NAME;
    default_normalize_score(MAX_NODE_SCORE, reverse, &mut raw);
    check_eq("normalizedScores", named(&raw), &expected["normalizedScores"])
}

/// A plugin's Filter with its PreFilter state.
type NodeFilter<'a> = Box<dyn Fn(&NodeInfo) -> Status + 'a>;

/// A volume plugin's PreFilter, then its Filter on each node, as the cycle runs them
/// (`run_pre_filters`, `run_dynamic_filters`): the input's storage objects are the listers,
/// and each node's existing pods are bound as the simulation binds pods (their claims in use,
/// their CSI volumes attached). A Skip makes Filter pass (not run); a rejection stands for
/// Filter too, as VolumeZone's Filter recomputes it without PreFilter state (the other
/// plugins' vectors check no Filter after a rejection).
fn volume_vector(input: &Value, expected: &Value) -> Outcome {
    let cfg = config(input)?;
    let pod: Pod = decode(&input["pod"])?;
    let mut storage = Storage::new(&storage_objects(input)?);
    let nodes: Vec<Node> = decode_opt(&input["nodes"])?.unwrap_or_default();
    let existing: Vec<Vec<Pod>> = decode_opt(&input["existingPods"])?.unwrap_or_default();
    let mut infos = Vec::new();
    for (i, node) in nodes.into_iter().enumerate() {
        let mut info = NodeInfo::new(node);
        for p in existing.get(i).into_iter().flatten() {
            storage.add_pod(&p.metadata, &p.spec);
            node_volume_limits::attach_pod(&mut storage, info.name(), &p.metadata, &p.spec);
            info.add_pod(PlacedPod::from_pod(p));
        }
        infos.push(info);
    }
    let plugin = str_of(&input["plugin"]);
    let (pre, filter): (Status, NodeFilter<'_>) = match plugin {
        volume_restrictions::NAME => {
            let (s, state) = volume_restrictions::pre_filter(&pod, &storage);
            (s, Box::new(move |n| volume_restrictions::filter(&state, &pod, n)))
        }
        node_volume_limits::NAME => {
            (node_volume_limits::pre_filter(&pod), Box::new(|n| node_volume_limits::filter(&pod, n, &storage)))
        }
        volume_binding::NAME => {
            let (s, state) = volume_binding::pre_filter(&pod, &storage, &cfg.gates);
            if let Some(want) = expected.pointer("/preFilter/result") {
                let got = state.eligible_nodes.as_ref().map(|n| json!({ "nodeNames": n })).unwrap_or(Value::Null);
                check_eq("preFilter.result", got, want)?;
            }
            (s, Box::new(move |n| volume_binding::filter(&state, n, &storage).err().unwrap_or_else(Status::success)))
        }
        volume_zone::NAME => {
            let (s, zones) = volume_zone::pre_filter(&pod, &storage);
            (s, Box::new(move |n| volume_zone::filter(&zones, &pod, n)))
        }
        other => return Err(format!("unknown volume plugin {other:?}")),
    };
    if let Some(want) = expected.get("preFilter") {
        check_status("preFilter", &pre, want)?;
    }
    let wants = expected["filter"].as_array().cloned().unwrap_or_default();
    if !wants.is_empty() && wants.len() != infos.len() {
        return Err(format!("filter: {} expectations for {} nodes", wants.len(), infos.len()));
    }
    for (info, want) in infos.iter().zip(&wants) {
        let status = match pre.code {
            Code::Success => filter(info),
            Code::Skip => Status::success(),
            _ => pre.clone(),
        };
        check_status(&format!("filter[{}]", info.name()), &status, want)?;
    }
    Ok(())
}

/// The storage objects of a `volume_filter` vector, as the input reader gives them.
fn storage_objects(input: &Value) -> Result<StorageObjects, String> {
    fn list<T: serde::de::DeserializeOwned>(v: &Value) -> Result<Vec<(DocRef, T)>, String> {
        let items: Vec<T> = decode_opt(v)?.unwrap_or_default();
        Ok(items.into_iter().map(|t| (DocRef::default(), t)).collect())
    }
    Ok(StorageObjects {
        claims: list(&input["persistentVolumeClaims"])?,
        volumes: list(&input["persistentVolumes"])?,
        classes: list(&input["storageClasses"])?,
        csi_nodes: list(&input["csiNodes"])?,
        csi_drivers: list(&input["csiDrivers"])?,
        capacities: list(&input["csiStorageCapacities"])?,
    })
}

// ---------------------------------------------------------------------------------------------
// helpers

fn decode<T: serde::de::DeserializeOwned>(v: &Value) -> Result<T, String> {
    let mut v = v.clone();
    crate::input::documents::strip_nulls(&mut v);
    serde_path_to_error::deserialize(v).map_err(|e| format!("input {}: {}", e.path(), e.inner()))
}

fn decode_opt<T: serde::de::DeserializeOwned>(v: &Value) -> Result<Option<T>, String> {
    if v.is_null() {
        Ok(None)
    } else {
        decode(v).map(Some)
    }
}

fn str_of(v: &Value) -> &str {
    v.as_str().unwrap_or_default()
}

fn gates(input: &Value) -> Result<FeatureGates, String> {
    let mut g = FeatureGates::default();
    for (name, value) in input["featureGates"].as_object().into_iter().flatten() {
        g.set(name, value.as_bool().unwrap_or(false)).map_err(|e| e.to_string())?;
    }
    Ok(g)
}

fn host_port(v: &Value) -> HostPort {
    HostPort::new(str_of(&v["ip"]), str_of(&v["protocol"]), v["port"].as_i64().unwrap_or(0) as i32)
}

fn check_eq(what: &str, got: Value, want: &Value) -> Outcome {
    if &got == want {
        Ok(())
    } else {
        Err(format!("{what}: got {got}, want {want}"))
    }
}

fn check_status(what: &str, got: &Status, want: &Value) -> Outcome {
    check_eq(&format!("{what}.code"), json!(got.code), &want["code"])?;
    check_eq(&format!("{what}.reasons"), json!(got.reasons), &want["reasons"])
}

/// Errors match on type, field and bad value, and on the detail where the vector gives one.
fn check_errors(got: &[FieldError], want: &Value) -> Outcome {
    let want = want.as_array().cloned().unwrap_or_default();
    if got.len() != want.len() {
        return Err(format!("parseErrors: got {} ({got:?}), want {}", got.len(), want.len()));
    }
    for (g, w) in got.iter().zip(&want) {
        check_eq("error.type", json!(g.kind), &w["type"])?;
        check_eq("error.field", json!(g.field), &w["field"])?;
        check_eq("error.badValue", g.bad_value.clone(), &w["badValue"])?;
        if let Some(d) = w.get("detail") {
            check_eq("error.detail", json!(g.detail), d)?;
        }
        if let Some(s) = w.get("supportedValues") {
            check_eq("error.supportedValues", json!(g.supported_values), s)?;
        }
    }
    Ok(())
}

/// Resource lists compare by value (`equality.Semantic`): `1000m` equals `1`.
fn check_resources(what: &str, got: &ResourceList, want: &Value) -> Outcome {
    let want_map = want.as_object().cloned().unwrap_or_default();
    let keys_got: Vec<&String> = got.keys().collect();
    let keys_want: Vec<&String> = want_map.keys().collect();
    let mut sorted_want = keys_want.clone();
    sorted_want.sort();
    if keys_got != sorted_want {
        return Err(format!("{what}: got keys {keys_got:?}, want {sorted_want:?}"));
    }
    for (k, v) in &want_map {
        let w = Quantity::parse(str_of(v)).map_err(|e| format!("{what}.{k}: expected value: {e}"))?;
        if got[k] != w {
            return Err(format!("{what}.{k}: got {}, want {}", got[k], w));
        }
    }
    Ok(())
}

/// Selector strings compare as sets of requirements with sorted values:
/// `foo in (baz,bar)` equals `foo in (bar,baz)`.
fn same_selector(a: &str, b: &str) -> bool {
    let norm = |s: &str| -> Vec<String> {
        let mut reqs: Vec<String> = split_requirements(s)
            .into_iter()
            .map(|r| match (r.find('('), r.rfind(')')) {
                (Some(open), Some(close)) => {
                    let mut vals: Vec<&str> = r[open + 1..close].split(',').map(str::trim).collect();
                    vals.sort();
                    format!("{}({})", &r[..open], vals.join(","))
                }
                _ => r.to_string(),
            })
            .collect();
        reqs.sort();
        reqs
    };
    norm(a) == norm(b)
}

fn split_requirements(s: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0, 0);
    for (i, c) in s.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(s[start..i].trim());
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(s[start..].trim());
    out
}

/// The first `1.NN` in a range label such as `v1.25 .. v1.34.x`.
fn first_version(label: &str) -> Option<KubeVersion> {
    let start = label.find("1.")?;
    let rest = &label[start + 2..];
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some(KubeVersion::new(1, digits.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selector_strings_compare_as_sets() {
        assert!(same_selector("foo in (bar,baz)", "foo in (baz,bar)"));
        assert!(!same_selector("foo in (bar)", "foo notin (bar)"));
        assert!(same_selector("a>1,b in (x,y)", "b in (y,x),a>1"));
    }

    #[test]
    fn reads_version_ranges() {
        assert_eq!(first_version("v1.25 .. v1.34.x (before #134740)"), Some(KubeVersion::new(1, 25)));
        assert_eq!(first_version("v1.35+"), Some(KubeVersion::new(1, 35)));
    }

    #[test]
    fn a_wrong_expectation_fails() {
        let vectors = r#"[{"id":"x","kind":"taint_to_string","input":{"taint":{"key":"k","effect":"NoSchedule"}},"expected":{"string":"k=:NoSchedule"}}]"#;
        let report = run(vectors).unwrap();
        assert_eq!(report.failed, 1, "the runner must be able to fail");
        assert_eq!(report.summary(), "0 passed, 1 failed");
    }
}
