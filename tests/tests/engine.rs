//! Library-level integration tests: manifests in, `Report` out, through placement-core's public
//! API (`documents::parse_manifests` then `simulate::simulate`), as the CLI, the policy and the
//! web playground all use it.
//!
//! Each table row is (input YAML, expected, why). Expected FailedScheduling messages are written
//! by hand from upstream's rules:
//! - `0/N nodes are available: ` then "count reason" entries sorted byte-wise (Go's
//!   `sort.Strings`, so "10 x" sorts before "2 y"), then `.`;
//! - nodes removed by a PreFilter result (a DaemonSet pod is pinned to its node by a
//!   `metadata.name` field term) count as "node(s) didn't satisfy plugin(s) [NodeAffinity]";
//! - the DefaultPreemption suffix counts UnschedulableAndUnresolvable nodes (taints, node
//!   affinity, cordoned nodes, PreFilter-removed nodes) as "Preemption is not helpful for
//!   scheduling" and the others (resources, host ports, anti-affinity, topology spread) as
//!   "No preemption victims found for incoming pod" (every pod has the same priority).
//!
//! Ties between equally scored nodes go to the node listed first (Placement's documented
//! stand-in for upstream's random pick); rows that depend on it say so.

use placement_core::cluster::simulate::{simulate, Report, SimulateOptions, WorkloadReport};
use placement_core::input::documents::parse_manifests;
use placement_core::model::version::KubeVersion;

// ---------------------------------------------------------------------------------------------
// Building inputs

/// A Node with a hostname label, 64Gi of memory and 110 pods unless told otherwise.
#[derive(Clone)]
struct NodeYaml {
    name: String,
    labels: Vec<(String, String)>,
    taints: Vec<String>,
    cpu: Option<String>,
    pods: String,
    unschedulable: bool,
}

fn node(name: &str, cpu: &str) -> NodeYaml {
    NodeYaml {
        name: name.into(),
        labels: vec![("kubernetes.io/hostname".into(), name.into())],
        taints: Vec::new(),
        cpu: Some(cpu.into()),
        pods: "110".into(),
        unschedulable: false,
    }
}

impl NodeYaml {
    fn label(mut self, k: &str, v: &str) -> Self {
        self.labels.push((k.into(), v.into()));
        self
    }

    /// `key=value:Effect` or `key:Effect`.
    fn taint(mut self, taint: &str) -> Self {
        let (kv, effect) = taint.rsplit_once(':').expect("key[=value]:Effect");
        let t = match kv.split_once('=') {
            Some((k, v)) => format!("{{key: {k}, value: \"{v}\", effect: {effect}}}"),
            None => format!("{{key: {kv}, effect: {effect}}}"),
        };
        self.taints.push(t);
        self
    }

    fn pods(mut self, pods: &str) -> Self {
        self.pods = pods.into();
        self
    }

    /// `kubectl cordon`: the flag and the taint the node controller mirrors it to.
    fn cordoned(self) -> Self {
        let mut n = self.taint("node.kubernetes.io/unschedulable:NoSchedule");
        n.unschedulable = true;
        n
    }

    fn without_status(mut self) -> Self {
        self.cpu = None;
        self
    }

    fn yaml(&self) -> String {
        let labels: Vec<String> = self.labels.iter().map(|(k, v)| format!("{k}: \"{v}\"")).collect();
        let mut s = format!(
            "apiVersion: v1\nkind: Node\nmetadata:\n  name: {}\n  labels: {{{}}}\n",
            self.name,
            labels.join(", ")
        );
        if self.unschedulable || !self.taints.is_empty() {
            s.push_str("spec:\n");
            if self.unschedulable {
                s.push_str("  unschedulable: true\n");
            }
            if !self.taints.is_empty() {
                s.push_str(&format!("  taints: [{}]\n", self.taints.join(", ")));
            }
        }
        if let Some(cpu) = &self.cpu {
            s.push_str(&format!("status:\n  allocatable: {{cpu: \"{cpu}\", memory: 64Gi, pods: \"{}\"}}\n", self.pods));
        }
        s
    }
}

/// A controller of `kind` in namespace `default` whose pods carry `app: NAME` and have the pod
/// spec `spec` (YAML flow style). `replicas: None` leaves the field out.
fn controller(kind: &str, name: &str, replicas: Option<i64>, spec: &str) -> String {
    let api = match kind {
        "Job" | "CronJob" => "batch/v1",
        "ReplicationController" => "v1",
        _ => "apps/v1",
    };
    let replicas = replicas.map(|r| format!("  replicas: {r}\n")).unwrap_or_default();
    // A ReplicationController's selector is a plain label map; the others' a LabelSelector.
    let selector = match kind {
        "ReplicationController" => format!("{{app: {name}}}"),
        _ => format!("{{matchLabels: {{app: {name}}}}}"),
    };
    format!(
        "apiVersion: {api}\nkind: {kind}\nmetadata: {{name: {name}, namespace: default}}\nspec:\n{replicas}  \
         selector: {selector}\n  template:\n    metadata: {{labels: {{app: {name}}}}}\n    \
         spec: {spec}\n"
    )
}

fn deployment(name: &str, replicas: i64, spec: &str) -> String {
    controller("Deployment", name, Some(replicas), spec)
}

fn daemonset(name: &str, spec: &str) -> String {
    controller("DaemonSet", name, None, spec)
}

/// A Pod already running on `node` (spec.nodeName).
fn bound_pod(name: &str, node: &str, cpu: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Pod\nmetadata: {{name: {name}, namespace: default}}\nspec:\n  nodeName: {node}\n  \
         containers: [{{name: c, image: i, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]\n"
    )
}

/// A pod spec with one container requesting `cpu`.
fn cpu(cpu: &str) -> String {
    format!("{{containers: [{{name: c, image: app, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}")
}

fn docs(parts: &[String]) -> String {
    parts.join("---\n")
}

fn nodes(list: &[NodeYaml]) -> String {
    docs(&list.iter().map(NodeYaml::yaml).collect::<Vec<_>>())
}

fn run_with(yaml: &str, opts: &SimulateOptions) -> Report {
    let manifests = parse_manifests(yaml, "test.yaml").unwrap_or_else(|e| panic!("parse: {e}\n{yaml}"));
    simulate(&manifests, opts).unwrap_or_else(|errors| {
        let list: Vec<String> = errors.iter().map(ToString::to_string).collect();
        panic!("simulate rejected the input: {list:#?}\n{yaml}")
    })
}

fn run(yaml: &str) -> Report {
    run_with(yaml, &SimulateOptions::default())
}

// ---------------------------------------------------------------------------------------------
// Expectations

enum Check {
    /// (workload, DESIRED)
    Desired(&'static str, i64),
    /// (workload, CURRENT)
    /// Pods bound to a node.
    Scheduled(&'static str, i64),
    /// (workload, node of each pod in order; None = Pending)
    Nodes(&'static str, Vec<Option<&'static str>>),
    /// (workload, pod names in order)
    Names(&'static str, Vec<&'static str>),
    /// (workload, kind)
    Kind(&'static str, &'static str),
    /// (workload, pod index, FailedScheduling message)
    Message(&'static str, usize, String),
    /// (workload, node, fits, reason when it does not fit)
    Verdict(&'static str, &'static str, bool, Option<&'static str>),
    /// (workload, node, plugin)
    Plugin(&'static str, &'static str, &'static str),
    /// A warning containing this text.
    Warning(&'static str),
    /// No warnings at all.
    NoWarnings,
    /// The workloads reported, in order.
    Workloads(Vec<&'static str>),
    /// (workload, label value -> number of pods, over the nodes' `label`)
    Spread(&'static str, &'static str, Vec<(&'static str, usize)>),
    /// (pod, node, afterSeconds): the pod is in `evictions`.
    Evicted(&'static str, &'static str, Option<i64>),
    /// Nothing is evicted.
    NoEvictions,
}

use Check::*;

/// A FailedScheduling message of the default version (1.35): DynamicResources' PostFilter
/// text for a pod without claims, then DefaultPreemption's.
fn pending_message(summary: &str, preemption: &str) -> String {
    format!("0/{summary}. no new claims to deallocate, preemption: 0/{preemption}.")
}

struct Row {
    yaml: String,
    checks: Vec<Check>,
    why: &'static str,
}

fn row(yaml: String, checks: Vec<Check>, why: &'static str) -> Row {
    Row { yaml, checks, why }
}

fn find<'a>(report: &'a Report, name: &str, why: &str) -> &'a WorkloadReport {
    report.workloads.iter().find(|w| w.name == name).unwrap_or_else(|| panic!("{why}: no workload {name}"))
}

/// The value of `label` on the node called `node`, from the input.
fn node_label(yaml: &str, node: &str, label: &str) -> String {
    let m = parse_manifests(yaml, "").unwrap();
    let (_, n) = m.nodes.iter().find(|(_, n)| n.metadata.name == node).expect("node in input");
    n.metadata.labels.get(label).cloned().unwrap_or_default()
}

fn check_rows(rows: Vec<Row>) {
    for Row { yaml, checks, why } in rows {
        let report = run(&yaml);
        let json = serde_json::to_string_pretty(&report).unwrap();
        for check in checks {
            match check {
                Desired(w, n) => assert_eq!(find(&report, w, why).desired, n, "{why}: {w} desired\n{json}"),
                Scheduled(w, n) => assert_eq!(find(&report, w, why).scheduled, n, "{why}: {w} scheduled\n{json}"),
                Nodes(w, expected) => {
                    let got: Vec<Option<&str>> = find(&report, w, why).pods.iter().map(|p| p.node.as_deref()).collect();
                    assert_eq!(got, expected, "{why}: {w} placements\n{json}");
                }
                Names(w, expected) => {
                    let got: Vec<&str> = find(&report, w, why).pods.iter().map(|p| p.name.as_str()).collect();
                    assert_eq!(got, expected, "{why}: {w} pod names");
                }
                Kind(w, kind) => assert_eq!(find(&report, w, why).kind, kind, "{why}: {w} kind"),
                Message(w, i, expected) => {
                    let pod = &find(&report, w, why).pods[i];
                    assert_eq!(pod.message.as_deref(), Some(expected.as_str()), "{why}: {w} pod {i}\n{json}");
                    assert_eq!(pod.node, None, "{why}: a pod with a message is pending");
                }
                Verdict(w, node, fits, reason) => {
                    let v = find(&report, w, why).nodes.get(node);
                    let v = v.unwrap_or_else(|| panic!("{why}: {w} has no verdict for {node}"));
                    assert_eq!(v.fits, fits, "{why}: {w} on {node}: {v:?}");
                    assert_eq!(v.reason.as_deref(), reason, "{why}: {w} on {node}: {v:?}");
                }
                Plugin(w, node, plugin) => {
                    let v = find(&report, w, why).nodes.get(node);
                    let v = v.unwrap_or_else(|| panic!("{why}: {w} has no verdict for {node}"));
                    assert_eq!(v.plugin, Some(plugin), "{why}: {w} on {node}: {v:?}");
                }
                Warning(text) => assert!(
                    report.warnings.iter().any(|w| w.contains(text)),
                    "{why}: no warning with {text:?} in {:#?}",
                    report.warnings
                ),
                NoWarnings => assert!(report.warnings.is_empty(), "{why}: {:#?}", report.warnings),
                Workloads(names) => {
                    let got: Vec<&str> = report.workloads.iter().map(|w| w.name.as_str()).collect();
                    assert_eq!(got, names, "{why}: workloads reported");
                }
                Evicted(pod, node, after) => {
                    let e = report.evictions.iter().find(|e| e.pod == pod);
                    let e = e.unwrap_or_else(|| panic!("{why}: {pod} not evicted: {:#?}", report.evictions));
                    assert_eq!((e.node.as_str(), e.after_seconds), (node, after), "{why}: {e:?}");
                }
                NoEvictions => assert!(report.evictions.is_empty(), "{why}: {:#?}", report.evictions),
                Spread(w, label, expected) => {
                    let mut counts: std::collections::BTreeMap<String, usize> = Default::default();
                    for p in &find(&report, w, why).pods {
                        if let Some(n) = &p.node {
                            *counts.entry(node_label(&yaml, n, label)).or_default() += 1;
                        }
                    }
                    let expected: std::collections::BTreeMap<String, usize> =
                        expected.into_iter().map(|(k, v)| (k.to_string(), v)).collect();
                    assert_eq!(counts, expected, "{why}: {w} pods per {label}\n{json}");
                }
            }
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Replicas and resources

#[test]
fn replicas_pack_in_input_order() {
    let two = nodes(&[node("n1", "2"), node("n2", "2")]);
    let one = nodes(&[node("n1", "1")]);
    check_rows(vec![
        row(
            docs(&[two.clone(), deployment("a", 3, &cpu("1")), deployment("b", 2, &cpu("1"))]),
            vec![
                Nodes("a", vec![Some("n1"), Some("n2"), Some("n1")]),
                Scheduled("a", 3),
                Nodes("b", vec![Some("n2"), None]),
                Desired("b", 2),
                Scheduled("b", 1),
                Message(
                    "b",
                    1,
                    pending_message(
                        "2 nodes are available: 2 Insufficient cpu",
                        "2 nodes are available: 2 No preemption victims found for incoming pod",
                    ),
                ),
                // The node map is b's first pod's view: n1 already full of a.
                Verdict("b", "n1", false, Some("Insufficient cpu")),
                Verdict("b", "n2", true, None),
                Plugin("b", "n1", "NodeResourcesFit"),
            ],
            "a-1 goes to the emptier n2, a-2 ties and takes n1 (listed first); b finds one CPU left",
        ),
        row(
            docs(&[one.clone(), deployment("a", 3, &cpu("400m"))]),
            vec![
                Nodes("a", vec![Some("n1"), Some("n1"), None]),
                Message(
                    "a",
                    2,
                    pending_message(
                        "1 nodes are available: 1 Insufficient cpu",
                        "1 nodes are available: 1 No preemption victims found for incoming pod",
                    ),
                ),
            ],
            "each replica uses the capacity the next one sees",
        ),
        row(
            docs(&[one.clone(), deployment("a", 4, &cpu("400m"))]),
            vec![
                Nodes("a", vec![Some("n1"), Some("n1"), None, None]),
                Message(
                    "a",
                    3,
                    pending_message(
                        "1 nodes are available: 1 Insufficient cpu",
                        "1 nodes are available: 1 No preemption victims found for incoming pod",
                    ),
                ),
            ],
            "every replica after the first pending one is pending for the same reason",
        ),
        row(
            docs(&[nodes(&[node("n1", "8").pods("2")]), deployment("a", 3, "{containers: [{name: c, image: i}]}")]),
            vec![
                Nodes("a", vec![Some("n1"), Some("n1"), None]),
                Message(
                    "a",
                    2,
                    pending_message(
                        "1 nodes are available: 1 Too many pods",
                        "1 nodes are available: 1 No preemption victims found for incoming pod",
                    ),
                ),
            ],
            "pods without requests still take a pod slot",
        ),
        row(
            docs(&[
                one.clone(),
                deployment(
                    "a",
                    1,
                    "{containers: [{name: c, image: i, resources: {requests: {cpu: 800m, memory: 70Gi}}}]}",
                ),
            ]),
            vec![Message(
                "a",
                0,
                pending_message(
                    "1 nodes are available: 1 Insufficient memory",
                    "1 nodes are available: 1 Preemption is not helpful for scheduling",
                ),
            )],
            "70Gi on a 64Gi node can never fit: unresolvable from 1.34 (kubernetes#131345)",
        ),
        row(
            docs(&[
                one.clone(),
                deployment("a", 1, "{containers: [{name: c, image: i, resources: {limits: {cpu: \"2\"}}}]}"),
            ]),
            vec![Nodes("a", vec![None]), Verdict("a", "n1", false, Some("Insufficient cpu"))],
            "a limit without a request requests the limit (API defaulting)",
        ),
        row(
            docs(&[one.clone(), deployment("a", 0, &cpu("100m"))]),
            vec![Desired("a", 0), Scheduled("a", 0), Nodes("a", vec![]), Verdict("a", "n1", true, None)],
            "scaled to zero: no pods, but the node map still says where one would go",
        ),
    ]);
}

#[test]
fn fit_error_histogram_sorts_bytewise() {
    // 10 tainted nodes and 2 full ones: "10 node(s)..." sorts before "2 Insufficient cpu".
    let mut list: Vec<NodeYaml> =
        (1..=10).map(|i| node(&format!("t{i:02}"), "8").taint("team=ml:NoSchedule")).collect();
    list.push(node("s1", "1"));
    list.push(node("s2", "1"));
    check_rows(vec![row(
        docs(&[nodes(&list), deployment("a", 3, &cpu("600m"))]),
        vec![
            Nodes("a", vec![Some("s1"), Some("s2"), None]),
            Message(
                "a",
                2,
                pending_message(
                    "12 nodes are available: 10 node(s) had untolerated taint(s), 2 Insufficient cpu",
                    "12 nodes are available: 10 Preemption is not helpful for scheduling, \
                     2 No preemption victims found for incoming pod",
                ),
            ),
        ],
        "Go's sort.Strings over \"count reason\" is byte-wise, not numeric",
    )]);
}

#[test]
fn bound_pods_hold_resources_first() {
    check_rows(vec![
        row(
            docs(&[
                nodes(&[node("n1", "2"), node("n2", "2")]),
                deployment("web", 2, &cpu("1")),
                bound_pod("batch", "n1", "1500m"),
            ]),
            vec![
                Workloads(vec!["web", "batch"]),
                Kind("batch", "Pod"),
                Nodes("batch", vec![Some("n1")]),
                Nodes("web", vec![Some("n2"), Some("n2")]),
                Verdict("web", "n1", false, Some("Insufficient cpu")),
            ],
            "the bound pod is listed last but runs before web is scheduled",
        ),
        row(
            docs(&[nodes(&[node("n1", "1").taint("team=db:NoSchedule")]), bound_pod("p", "n1", "2")]),
            vec![Nodes("p", vec![Some("n1")]), Scheduled("p", 1)],
            "a bound pod is not scheduled: no taint or resource check keeps it off its node",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4")]),
                "apiVersion: v1\nkind: Pod\nmetadata: {name: solo, namespace: default}\nspec:\n  containers: [{name: c, image: i}]\n"
                    .to_string(),
            ]),
            vec![Kind("solo", "Pod"), Names("solo", vec!["solo"]), Nodes("solo", vec![Some("n1")])],
            "a bare Pod without nodeName is scheduled under its own name",
        ),
    ]);
}

#[test]
fn node_without_allocatable_accepts_any_request() {
    check_rows(vec![row(
        docs(&[
            nodes(&[node("bare", "0").without_status()]),
            deployment(
                "huge",
                3,
                "{containers: [{name: c, image: i, resources: {requests: {cpu: \"1000\", memory: 1Ti}}}]}",
            ),
        ]),
        vec![
            Warning("Node bare has no status.allocatable"),
            Nodes("huge", vec![Some("bare"); 3]),
            Verdict("huge", "bare", true, None),
        ],
        "hand-written nodes rarely carry status: resources are not checked on them",
    )]);
}

// ---------------------------------------------------------------------------------------------
// Host ports

#[test]
fn host_ports_conflict_between_replicas() {
    let one = nodes(&[node("n1", "4")]);
    let port = |p: &str| format!("{{containers: [{{name: c, image: i, ports: [{p}]}}]}}");
    check_rows(vec![
        row(
            docs(&[one.clone(), deployment("ingress", 2, &port("{containerPort: 80, hostPort: 80}"))]),
            vec![
                Nodes("ingress", vec![Some("n1"), None]),
                Message(
                    "ingress",
                    1,
                    pending_message(
                        "1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports",
                        "1 nodes are available: 1 No preemption victims found for incoming pod",
                    ),
                ),
            ],
            "the second replica wants the same hostPort 80/TCP on 0.0.0.0",
        ),
        row(
            docs(&[
                one.clone(),
                deployment("dns-tcp", 1, &port("{containerPort: 53, hostPort: 53, protocol: TCP}")),
                deployment("dns-udp", 1, &port("{containerPort: 53, hostPort: 53, protocol: UDP}")),
            ]),
            vec![Nodes("dns-tcp", vec![Some("n1")]), Nodes("dns-udp", vec![Some("n1")])],
            "same port, different protocols: no conflict",
        ),
        row(
            docs(&[
                one.clone(),
                deployment("a", 1, &port("{containerPort: 80, hostPort: 8080, hostIP: 10.0.0.1}")),
                deployment("b", 1, &port("{containerPort: 80, hostPort: 8080, hostIP: 10.0.0.2}")),
                deployment("c", 1, &port("{containerPort: 80, hostPort: 8080}")),
            ]),
            vec![
                Nodes("a", vec![Some("n1")]),
                Nodes("b", vec![Some("n1")]),
                Nodes("c", vec![None]),
                Verdict("c", "n1", false, Some("node(s) didn't have free ports for the requested pod ports")),
            ],
            "two specific host IPs do not conflict; 0.0.0.0 conflicts with both",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4"), node("n2", "4")]),
                deployment("ingress", 3, &port("{containerPort: 443, hostPort: 443}")),
            ]),
            vec![
                Nodes("ingress", vec![Some("n1"), Some("n2"), None]),
                Message(
                    "ingress",
                    2,
                    pending_message(
                        "2 nodes are available: 2 node(s) didn't have free ports for the requested pod ports",
                        "2 nodes are available: 2 No preemption victims found for incoming pod",
                    ),
                ),
            ],
            "a hostPort caps replicas at one per node",
        ),
    ]);
}

/// API defaulting (`SetDefaults_Pod`, pkg/apis/core/v1/defaults.go) sets `hostPort` to
/// `containerPort` for every container port of a `hostNetwork: true` pod; since 1.28 this
/// happens on the Pod the controller creates (DefaultHostNetworkHostPortsInPodTemplates
/// controls only whether templates are defaulted too). Two hostNetwork replicas listening on
/// 8080 therefore conflict on one node exactly as explicit hostPorts do.
#[test]
fn host_network_container_ports_are_host_ports() {
    check_rows(vec![row(
        docs(&[
            nodes(&[node("n1", "4")]),
            deployment(
                "lb",
                2,
                "{hostNetwork: true, containers: [{name: c, image: i, ports: [{containerPort: 8080}]}]}",
            ),
        ]),
        vec![
            Nodes("lb", vec![Some("n1"), None]),
            Message(
                "lb",
                1,
                pending_message(
                    "1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports",
                    "1 nodes are available: 1 No preemption victims found for incoming pod",
                ),
            ),
        ],
        "hostNetwork: containerPort 8080 is hostPort 8080",
    )]);
}

// ---------------------------------------------------------------------------------------------
// DaemonSets

#[test]
fn daemonsets_follow_the_controller() {
    let plain = "{containers: [{name: agent, image: agent}]}";
    let host_network = "{hostNetwork: true, containers: [{name: agent, image: agent}]}";
    check_rows(vec![
        row(
            docs(&[nodes(&[node("n1", "4").cordoned(), node("n2", "4")]), daemonset("agent", plain)]),
            vec![
                Desired("agent", 2),
                Scheduled("agent", 2),
                Names("agent", vec!["agent-n1", "agent-n2"]),
                Nodes("agent", vec![Some("n1"), Some("n2")]),
                Verdict("agent", "n1", true, None),
            ],
            "daemon pods tolerate node.kubernetes.io/unschedulable, so a cordoned node keeps its daemon",
        ),
        row(
            docs(&[nodes(&[node("n1", "4").cordoned(), node("n2", "4")]), deployment("web", 1, plain)]),
            vec![
                Verdict("web", "n1", false, Some("node(s) were unschedulable")),
                Plugin("web", "n1", "NodeUnschedulable"),
                Nodes("web", vec![Some("n2")]),
            ],
            "the same cordoned node turns a Deployment away",
        ),
        row(
            docs(&[nodes(&[node("n1", "4").cordoned()]), deployment("web", 1, plain)]),
            vec![Message(
                "web",
                0,
                pending_message(
                    "1 nodes are available: 1 node(s) were unschedulable",
                    "1 nodes are available: 1 Preemption is not helpful for scheduling",
                ),
            )],
            "NodeUnschedulable is unresolvable",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4").taint("node.kubernetes.io/network-unavailable:NoSchedule"), node("n2", "4")]),
                daemonset("cni", host_network),
                daemonset("log", plain),
            ]),
            vec![
                Desired("cni", 2),
                Verdict("cni", "n1", true, None),
                Desired("log", 1),
                Verdict("log", "n1", false, Some("node(s) had untolerated taint(s)")),
                Plugin("log", "n1", "TaintToleration"),
                Nodes("log", vec![Some("n2")]),
            ],
            "only hostNetwork daemons get the network-unavailable toleration",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4").label("disk", "ssd"), node("n2", "4")]),
                daemonset("ssd", "{nodeSelector: {disk: ssd}, containers: [{name: c, image: i}]}"),
            ]),
            vec![
                Desired("ssd", 1),
                Nodes("ssd", vec![Some("n1")]),
                Verdict("ssd", "n2", false, Some("node(s) didn't match Pod's node affinity/selector")),
                Plugin("ssd", "n2", "NodeAffinity"),
            ],
            "the template's nodeSelector decides which nodes should run a daemon",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4").taint("dedicated=gpu:NoExecute"), node("n2", "4")]),
                daemonset("agent", plain),
            ]),
            vec![Desired("agent", 1), Verdict("agent", "n1", false, Some("node(s) had untolerated taint(s)"))],
            "an untolerated NoExecute taint keeps daemons off too",
        ),
    ]);
}

/// The daemon pod for n1 is pinned to n1 (`metadata.name In [n1]`), so NodeAffinity's
/// PreFilter removes every other node; n1 is short of CPU because a bound pod holds it.
#[test]
fn daemon_pod_that_does_not_fit_its_node() {
    let rows = [3usize, 12]
        .into_iter()
        .map(|n| {
            let mut list = vec![node("n01", "2")];
            list.extend((2..=n).map(|i| node(&format!("n{i:02}"), "2")));
            let others = n - 1;
            let yaml = docs(&[nodes(&list), bound_pod("hog", "n01", "1500m"), daemonset("agent", &cpu("1"))]);
            row(
                yaml,
                vec![
                    Desired("agent", n as i64),
                    Scheduled("agent", others as i64),
                    Message(
                        "agent",
                        0,
                        pending_message(
                            &format!(
                                "{n} nodes are available: 1 Insufficient cpu, \
                                 {others} node(s) didn't satisfy plugin(s) [NodeAffinity]"
                            ),
                            &format!(
                                "{n} nodes are available: 1 No preemption victims found for incoming pod, \
                                 {others} Preemption is not helpful for scheduling"
                            ),
                        ),
                    ),
                    Verdict("agent", "n01", false, Some("Insufficient cpu")),
                    Plugin("agent", "n01", "NodeResourcesFit"),
                    Verdict("agent", "n02", true, None),
                ],
                if n == 3 { "3 nodes" } else { "12 nodes: \"1 I...\" still sorts before \"11 n...\"" },
            )
        })
        .collect();
    check_rows(rows);
}

// ---------------------------------------------------------------------------------------------
// Workload kinds

#[test]
fn workload_kinds() {
    let cluster = nodes(&[node("n1", "16").label("disk", "ssd"), node("n2", "16")]);
    let plain = "{containers: [{name: c, image: i}]}";
    check_rows(vec![
        row(
            docs(&[cluster.clone(), controller("StatefulSet", "db", Some(3), plain)]),
            vec![Kind("db", "StatefulSet"), Names("db", vec!["db-0", "db-1", "db-2"]), Scheduled("db", 3)],
            "StatefulSet pods are named by ordinal",
        ),
        row(
            docs(&[cluster.clone(), controller("ReplicaSet", "rs", Some(2), plain)]),
            vec![Kind("rs", "ReplicaSet"), Desired("rs", 2), Scheduled("rs", 2)],
            "ReplicaSet",
        ),
        row(
            docs(&[cluster.clone(), controller("ReplicationController", "rc", None, plain)]),
            vec![Kind("rc", "ReplicationController"), Desired("rc", 1), Names("rc", vec!["rc-0"])],
            "a ReplicationController without replicas runs one pod",
        ),
        row(
            docs(&[cluster.clone(), controller("Deployment", "d", None, plain)]),
            vec![Desired("d", 1)],
            "a Deployment without replicas runs one pod",
        ),
        row(
            docs(&[
                cluster.clone(),
                "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default}\nspec:\n  parallelism: 3\n  \
                 template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}\n"
                    .to_string(),
            ]),
            vec![Kind("j", "Job"), Desired("j", 3), Scheduled("j", 3), Names("j", vec!["j-0", "j-1", "j-2"])],
            "a Job runs parallelism pods at once",
        ),
        row(
            docs(&[
                cluster.clone(),
                "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default}\nspec:\n  \
                 template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}\n"
                    .to_string(),
            ]),
            vec![Desired("j", 1)],
            "parallelism defaults to 1",
        ),
        row(
            docs(&[
                cluster.clone(),
                "apiVersion: batch/v1\nkind: Job\nmetadata: {name: j, namespace: default}\nspec:\n  parallelism: 4\n  \
                 completions: 1\n  template: {spec: {restartPolicy: Never, containers: [{name: c, image: i}]}}\n"
                    .to_string(),
            ]),
            vec![Desired("j", 1)],
            "no more pods than completions",
        ),
        row(
            docs(&[
                cluster.clone(),
                "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly, namespace: ops}\nspec:\n  \
                 schedule: \"0 2 * * *\"\n  jobTemplate:\n    spec:\n      parallelism: 2\n      template:\n        \
                 spec: {restartPolicy: OnFailure, nodeSelector: {disk: ssd}, containers: [{name: backup, image: i}]}\n"
                    .to_string(),
            ]),
            vec![
                Kind("nightly", "CronJob"),
                Desired("nightly", 2),
                Nodes("nightly", vec![Some("n1"), Some("n1")]),
                Verdict("nightly", "n2", false, Some("node(s) didn't match Pod's node affinity/selector")),
            ],
            "a CronJob's pods come from spec.jobTemplate.spec.template",
        ),
        row(
            docs(&[
                cluster.clone(),
                "apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: shop}\nspec: {ports: [{port: 80}]}\n"
                    .to_string(),
                "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {a: b}\n".to_string(),
                deployment("web", 1, plain),
                "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec: {replicas: 3}\n".to_string(),
            ]),
            vec![
                Workloads(vec!["web"]),
                Warning("kind ConfigMap is not a workload Placement schedules; ignored"),
                Warning("kind Widget is not a workload"),
            ],
            "other kinds are ignored with a warning each; a Service is read (for default spreading), not warned about",
        ),
        row(
            docs(&[cluster.clone(), deployment("web", 2, plain)]),
            vec![NoWarnings, Workloads(vec!["web"])],
            "a clean input has no warnings",
        ),
    ]);
}

/// kube-scheduler answers a cluster without nodes with `ErrNoNodesAvailable`
/// (pkg/scheduler/schedule_one.go: "no nodes available to schedule pods"), before any plugin
/// runs, and that error is the FailedScheduling message. "0/0 nodes are available:" is not a
/// message upstream ever prints.
#[test]
fn no_nodes_message_is_upstreams() {
    check_rows(vec![row(
        deployment("web", 1, "{containers: [{name: c, image: i}]}"),
        vec![Warning("no Node in the input"), Nodes("web", vec![None])],
        "no nodes",
    )]);
    let report = run(&deployment("web", 1, "{containers: [{name: c, image: i}]}"));
    assert_eq!(report.workloads[0].pods[0].message.as_deref(), Some("no nodes available to schedule pods"));
}

// ---------------------------------------------------------------------------------------------
// Taints, tolerations and node affinity

#[test]
fn taints_tolerations_and_node_affinity() {
    let pod = |extra: &str| format!("{{{extra}containers: [{{name: c, image: i}}]}}");
    let tainted = nodes(&[node("n1", "4").taint("team=db:NoSchedule")]);
    let untolerated = pending_message(
        "1 nodes are available: 1 node(s) had untolerated taint(s)",
        "1 nodes are available: 1 Preemption is not helpful for scheduling",
    );
    check_rows(vec![
        row(
            docs(&[
                nodes(&[node("n1", "4").taint("spot=true:PreferNoSchedule"), node("n2", "4")]),
                deployment("web", 1, &pod("")),
            ]),
            vec![Verdict("web", "n1", true, None), Nodes("web", vec![Some("n2")])],
            "PreferNoSchedule does not filter, it scores: the untainted node wins",
        ),
        row(
            docs(&[tainted.clone(), deployment("web", 1, &pod("tolerations: [{operator: Exists}], "))]),
            vec![Nodes("web", vec![Some("n1")])],
            "an empty key with Exists tolerates every taint",
        ),
        row(
            docs(&[tainted.clone(), deployment("web", 1, &pod("tolerations: [{key: team, operator: Exists}], "))]),
            vec![Nodes("web", vec![Some("n1")])],
            "an empty effect matches every effect",
        ),
        row(
            docs(&[
                tainted.clone(),
                deployment("web", 1, &pod("tolerations: [{key: team, value: web, effect: NoSchedule}], ")),
            ]),
            vec![Nodes("web", vec![None]), Message("web", 0, untolerated.clone())],
            "operator defaults to Equal and the values differ",
        ),
        row(
            docs(&[
                tainted.clone(),
                deployment("web", 1, &pod("tolerations: [{key: team, operator: Equal, value: db, effect: NoExecute}], ")),
            ]),
            vec![Nodes("web", vec![None]), Message("web", 0, untolerated)],
            "the effect must match",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4").taint("team=db:NoExecute")]),
                deployment(
                    "web",
                    1,
                    &pod("tolerations: [{key: team, operator: Equal, value: db, effect: NoExecute, tolerationSeconds: 60}], "),
                ),
            ]),
            vec![Nodes("web", vec![Some("n1")]), Evicted("web-0", "n1", Some(60))],
            "tolerationSeconds does not matter to the scheduler; the taint manager evicts after it",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4").taint("team=db:NoExecute")]),
                deployment("web", 1, &pod("tolerations: [{key: team, operator: Exists, effect: NoExecute}], ")),
            ]),
            vec![Nodes("web", vec![Some("n1")]), NoEvictions],
            "tolerated forever: no eviction",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4"), node("n2", "4").label("disk", "ssd")]),
                deployment(
                    "web",
                    1,
                    &pod("affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: \
                          [{weight: 50, preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}}]}}, "),
                ),
            ]),
            vec![Nodes("web", vec![Some("n2")])],
            "preferred node affinity scores the labelled node higher",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "4").label("disk", "hdd"), node("n2", "4").label("disk", "ssd"), node("n3", "4")]),
                deployment(
                    "web",
                    1,
                    &pod("affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: \
                          [{matchExpressions: [{key: disk, operator: NotIn, values: [ssd]}, {key: disk, operator: Exists}]}]}}}, "),
                ),
            ]),
            vec![
                Nodes("web", vec![Some("n1")]),
                Verdict("web", "n2", false, Some("node(s) didn't match Pod's node affinity/selector")),
                Verdict("web", "n3", false, Some("node(s) didn't match Pod's node affinity/selector")),
            ],
            "the expressions of a term are ANDed",
        ),
    ]);
}

// ---------------------------------------------------------------------------------------------
// Inter-pod anti-affinity and topology spread

#[test]
fn pod_anti_affinity_spreads_one_per_host() {
    let anti = "{affinity: {podAntiAffinity: {requiredDuringSchedulingIgnoredDuringExecution: \
                [{labelSelector: {matchLabels: {app: cache}}, topologyKey: kubernetes.io/hostname}]}}, \
                containers: [{name: c, image: i, resources: {requests: {cpu: 100m}}}]}";
    check_rows(vec![
        row(
            docs(&[nodes(&[node("n1", "8"), node("n2", "8"), node("n3", "8")]), deployment("cache", 4, anti)]),
            vec![
                Nodes("cache", vec![Some("n1"), Some("n2"), Some("n3"), None]),
                Message(
                    "cache",
                    3,
                    pending_message(
                        "3 nodes are available: 3 node(s) didn't match pod anti-affinity rules",
                        "3 nodes are available: 3 No preemption victims found for incoming pod",
                    ),
                ),
            ],
            "one replica per hostname; the fourth has nowhere to go",
        ),
        row(
            docs(&[
                nodes(&[node("n1", "8"), node("n2", "8").taint("team=ml:NoSchedule"), node("n3", "8")]),
                deployment("cache", 3, anti),
            ]),
            vec![
                Nodes("cache", vec![Some("n1"), Some("n3"), None]),
                Message(
                    "cache",
                    2,
                    pending_message(
                        "3 nodes are available: 1 node(s) had untolerated taint(s), \
                         2 node(s) didn't match pod anti-affinity rules",
                        "3 nodes are available: 1 Preemption is not helpful for scheduling, \
                         2 No preemption victims found for incoming pod",
                    ),
                ),
            ],
            "the taint is checked first on n2; anti-affinity on the others",
        ),
    ]);
}

#[test]
fn topology_spread_do_not_schedule() {
    let spread = |cpu: &str| {
        format!(
            "{{topologySpreadConstraints: [{{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, \
             whenUnsatisfiable: DoNotSchedule, labelSelector: {{matchLabels: {{app: web}}}}}}], \
             containers: [{{name: c, image: i, resources: {{requests: {{cpu: \"{cpu}\"}}}}}}]}}"
        )
    };
    let zone = |n: NodeYaml, z: &str| n.label("topology.kubernetes.io/zone", z);
    check_rows(vec![
        row(
            docs(&[
                nodes(&[
                    zone(node("a1", "8"), "zone-a"),
                    zone(node("a2", "8"), "zone-a"),
                    zone(node("a3", "8"), "zone-a"),
                    zone(node("b1", "8"), "zone-b"),
                ]),
                deployment("web", 6, &spread("100m")),
            ]),
            vec![Scheduled("web", 6), Spread("web", "topology.kubernetes.io/zone", vec![("zone-a", 3), ("zone-b", 3)])],
            "3 nodes in zone-a and 1 in zone-b still get 3 pods each",
        ),
        row(
            docs(&[
                nodes(&[zone(node("a", "10"), "zone-a"), zone(node("b", "1"), "zone-b")]),
                deployment("web", 4, &spread("1")),
            ]),
            vec![
                Scheduled("web", 3),
                Spread("web", "topology.kubernetes.io/zone", vec![("zone-a", 2), ("zone-b", 1)]),
                Message(
                    "web",
                    3,
                    pending_message(
                        "2 nodes are available: 1 Insufficient cpu, \
                         1 node(s) didn't match pod topology spread constraints",
                        "2 nodes are available: 2 No preemption victims found for incoming pod",
                    ),
                ),
            ],
            "zone-b is full, and a third pod in zone-a would make the skew 2",
        ),
        row(
            docs(&[
                nodes(&[zone(node("a", "8"), "zone-a"), node("nolabel", "8")]),
                deployment("web", 1, &spread("100m")),
            ]),
            vec![
                Nodes("web", vec![Some("a")]),
                Verdict(
                    "web",
                    "nolabel",
                    false,
                    Some("node(s) didn't match pod topology spread constraints (missing required label)"),
                ),
            ],
            "a node without the topology key is not a domain",
        ),
    ]);
}

// ---------------------------------------------------------------------------------------------
// Versions and admission

#[test]
fn version_and_admission_options() {
    let yaml = docs(&[
        nodes(&[
            node("n1", "4").taint("node.kubernetes.io/not-ready:NoExecute"),
            node("n2", "4").taint("k=v:NoSchedule"),
        ]),
        deployment("web", 1, "{containers: [{name: c, image: i}]}"),
    ]);

    let report = run(&yaml);
    assert_eq!(report.kube_version, KubeVersion::DEFAULT.to_string());
    assert_eq!(report.workloads[0].pods[0].node.as_deref(), Some("n1"), "DefaultTolerationSeconds lets it in");
    assert_eq!(report.evictions.len(), 1);
    assert_eq!(report.evictions[0].after_seconds, Some(300));
    assert_eq!(report.evictions[0].pod, "web-0");

    let mut opts = SimulateOptions::for_version(KubeVersion::new(1, 30));
    opts.admission_defaults = false;
    let report = run_with(&yaml, &opts);
    assert_eq!(report.kube_version, "1.30");
    assert!(report.evictions.is_empty());
    assert_eq!(
        report.workloads[0].pods[0].message.as_deref(),
        Some(
            "0/2 nodes are available: 1 node(s) had untolerated taint {k: v}, \
             1 node(s) had untolerated taint {node.kubernetes.io/not-ready: }. \
             preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling."
        ),
        "without admission defaults nothing tolerates not-ready; 1.30 names each node's first taint"
    );
}

#[test]
fn invalid_documents_are_all_reported() {
    let yaml = docs(&[
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\nspec:\n  taints: [{key: a, effect: Sometimes}]\n".into(),
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n".into(),
        deployment(
            "web",
            1,
            "{tolerations: [{key: k, operator: Exists, value: v}], containers: [{name: c, image: i}]}",
        ),
    ]);
    let manifests = parse_manifests(&yaml, "in.yaml").unwrap();
    let errors: Vec<String> =
        simulate(&manifests, &SimulateOptions::default()).unwrap_err().iter().map(ToString::to_string).collect();
    // (expected substring, why)
    let rows = [
        ("metadata.taints[0].effect: Unsupported value: \"Sometimes\"", "bad taint effect"),
        ("Deployment default/web", "the workload is named"),
        ("spec.template.spec.tolerations[0].operator", "Exists with a value"),
    ];
    for (needle, why) in rows {
        assert!(errors.iter().any(|e| e.contains(needle)), "{why}: {needle:?} not in {errors:#?}");
    }
    // The same Node given twice is reported and simulated once, as any object given twice.
    let twice = docs(&[
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1}\n".into(),
        "apiVersion: v1\nkind: Node\nmetadata: {name: n1, labels: {a: b}}\n".into(),
    ]);
    let report = simulate(&parse_manifests(&twice, "in.yaml").unwrap(), &SimulateOptions::default()).unwrap();
    assert!(
        report.warnings.iter().any(|w| w.contains("given twice, simulated once") && w.contains("with other content")),
        "{:?}",
        report.warnings
    );
}
