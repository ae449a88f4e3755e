use super::*;
use crate::model::version::KubeVersion;
use crate::model::{LabelSelector, Taint, TopologySpreadConstraint};
use crate::testing::{labels, node_info as node, pod};

/// (pod, nodes, feasible, expected normalized scores, why)
type ScoreRow = (Pod, Vec<NodeInfo>, Vec<usize>, Vec<i64>, &'static str);

const ZONE: &str = "topology.kubernetes.io/zone";

fn webs(n: usize) -> Vec<Pod> {
    (0..n).map(|i| pod("default", &format!("web-{i}"), &[("app", "web")])).collect()
}

fn tainted(mut info: NodeInfo) -> NodeInfo {
    info.update_node(|n| {
        n.spec.taints = vec![Taint { key: "dedicated".into(), value: "x".into(), effect: "NoSchedule".into() }]
    });
    info
}

/// System default spreading: which selector `DefaultSelector` builds decides whether the
/// defaults apply; a zoneless node still gets hostname spreading and widens the zone
/// domains by "" (`requireAllTopologies` is false for the defaults).
#[test]
fn system_default_constraints_follow_the_default_selector() {
    use crate::model::OwnerReference;
    let owned = |api_version: &str, kind: &str, name: &str| {
        let mut p = pod("default", "incoming", &[("app", "web")]);
        p.metadata.owner_references = vec![OwnerReference {
            api_version: api_version.into(),
            kind: kind.into(),
            name: name.into(),
            controller: Some(true),
            ..Default::default()
        }];
        p
    };
    let rs = || {
        let mut l = Listers::default();
        l.controllers.insert(
            Listers::controller_key("apps/v1", "ReplicaSet", "default", "web-abc"),
            ControllerSelector::LabelSelector(LabelSelector {
                match_labels: labels(&[("app", "web")]),
                ..Default::default()
            }),
        );
        l
    };
    let service = |ns: &str, selector: Option<&[(&str, &str)]>| Listers {
        services: vec![(ns.to_string(), selector.map(labels))],
        ..Default::default()
    };
    let existing = webs(3);
    let nodes = vec![
        node("n1", &[(LABEL_HOSTNAME, "n1"), (ZONE, "z1")], &existing[..2]),
        node("n2", &[(LABEL_HOSTNAME, "n2"), (ZONE, "z1")], &existing[2..]),
        node("n3", &[(LABEL_HOSTNAME, "n3")], &[]),
    ];
    // hostname: count * ln(3 + 2) + 2; zone (z1 and "", 2 domains): 3 * ln(4) + 4 on the
    // zoned nodes only: raw 13, 12, 2, normalized 100 * (13 + 2 - s) / 13.
    let spread = vec![15, 23, 100];
    let none = vec![0, 0, 0];
    let rows: Vec<(&str, Pod, Listers, &Vec<i64>)> = vec![
        ("owned by a listed ReplicaSet", owned("apps/v1", "ReplicaSet", "web-abc"), rs(), &spread),
        (
            "a Service selects the pod",
            pod("default", "incoming", &[("app", "web")]),
            service("default", Some(&[("app", "web")])),
            &spread,
        ),
        ("no Service, no controller", pod("default", "incoming", &[("app", "web")]), rs(), &none),
        (
            "the Service is in another namespace",
            pod("default", "incoming", &[("app", "web")]),
            service("other", Some(&[("app", "web")])),
            &none,
        ),
        (
            "a nil Service selector selects nothing",
            pod("default", "incoming", &[("app", "web")]),
            service("default", None),
            &none,
        ),
        (
            "the Service selects other pods",
            pod("default", "incoming", &[("app", "web")]),
            service("default", Some(&[("app", "db")])),
            &none,
        ),
        ("the owner is not in the listers", owned("apps/v1", "ReplicaSet", "web-xyz"), rs(), &none),
        ("a Job owner is not read", owned("batch/v1", "Job", "web-abc"), rs(), &none),
        ("only apps/v1 ReplicaSets are read", owned("extensions/v1beta1", "ReplicaSet", "web-abc"), rs(), &none),
    ];
    for (why, p, listers, want) in rows {
        let cfg = SchedulerConfig { spread_listers: std::sync::Arc::new(listers), ..Default::default() };
        assert_eq!(&score(&p, &nodes, &[0, 1, 2], &cfg, None), want, "{why}");
    }
    // A cache carried across cycles gives the fresh answer while pods are bound between
    // them: each cycle counts only the pods added since the last.
    let cfg = SchedulerConfig { spread_listers: std::sync::Arc::new(rs()), ..Default::default() };
    let mut cache = ScoreCache::default();
    let mut growing = nodes.clone();
    let p = owned("apps/v1", "ReplicaSet", "web-abc");
    for round in 0..4 {
        let fresh = score(&p, &growing, &[0, 1, 2], &cfg, None);
        assert_eq!(score(&p, &growing, &[0, 1, 2], &cfg, Some(&mut cache)), fresh, "round {round}");
        let bound = pod("default", &format!("web-new-{round}"), &[("app", "web")]);
        if let Some(node) = growing.get_mut(round % 3) {
            node.add_pod(crate::scheduler::framework::PlacedPod::from_pod(&bound));
        }
    }
    // The pod's own constraints replace the defaults, and require every topology key.
    let mut own = owned("apps/v1", "ReplicaSet", "web-abc");
    own.spec.topology_spread_constraints = vec![constraint(ZONE, 1, SCHEDULE_ANYWAY)];
    let cfg = SchedulerConfig { spread_listers: std::sync::Arc::new(rs()), ..Default::default() };
    assert_eq!(score(&own, &nodes, &[0, 1, 2], &cfg, None), vec![100, 100, 0], "n3 lacks the zone key: ignored");
}

/// A cache that starts from the simulation's pod index counts what a walk over every pod
/// counts: pods of other namespaces, of other selectors, pods bound after the index, and a
/// selector that matches nothing.
#[test]
fn indexed_first_count_equals_the_full_walk() {
    use crate::scheduler::framework::PlacedPod;
    use crate::scheduler::pod_index::{PodIndex, MIN_PODS};
    let zones = ["z1", "z2", "z3"];
    let mut nodes: Vec<NodeInfo> = (0..12)
        .map(|i| {
            let name = format!("n{i}");
            let zone = zones[i % 3];
            node(&name, &[(LABEL_HOSTNAME, name.as_str()), (ZONE, zone)], &[])
        })
        .collect();
    // Enough pods for an index, spread over namespaces and apps.
    for k in 0..MIN_PODS + 500 {
        let (ns, app) = (["default", "other", "third"][k % 3], ["web", "db", "cache", "api"][k % 4]);
        let p = pod(ns, &format!("p{k}"), &[("app", app)]);
        if let Some(n) = nodes.get_mut((k * 7) % 12) {
            n.add_pod(PlacedPod::from_pod(&p));
        }
    }
    let index = std::sync::Arc::new(PodIndex::build(&nodes).expect("enough pods for an index"));
    let feasible: Vec<usize> = (0..12).collect();
    for (why, constraints) in [
        (
            "zone and hostname",
            vec![constraint(ZONE, 1, SCHEDULE_ANYWAY), constraint(LABEL_HOSTNAME, 2, SCHEDULE_ANYWAY)],
        ),
        ("a selector that matches nothing", {
            let mut c = constraint(ZONE, 1, SCHEDULE_ANYWAY);
            c.label_selector = Some(LabelSelector { match_labels: labels(&[("app", "none")]), ..Default::default() });
            vec![c]
        }),
    ] {
        let p = incoming(constraints);
        let mut growing = nodes.clone();
        let index = std::sync::Arc::new(PodIndex::build(&growing).unwrap_or_else(|| unreachable!()));
        let mut cache = ScoreCache::with_index(Some(index));
        for round in 0..5 {
            let fresh = score(&p, &growing, &feasible, &SchedulerConfig::default(), None);
            let cached = score(&p, &growing, &feasible, &SchedulerConfig::default(), Some(&mut cache));
            assert_eq!(cached, fresh, "{why}, round {round}");
            let bound = pod("default", &format!("later-{round}"), &[("app", "web")]);
            if let Some(n) = growing.get_mut(round) {
                n.add_pod(PlacedPod::from_pod(&bound));
            }
        }
    }
    // Workloads of one simulation share the node facts of the same constraints and node
    // affinity; another selector, or a nodeSelector that leaves nodes out, still scores as a
    // walk over everything does.
    let shared = std::sync::Arc::new(PodIndex::build(&nodes).unwrap_or_else(|| unreachable!()));
    let zone_and_host = || vec![constraint(ZONE, 1, SCHEDULE_ANYWAY), constraint(LABEL_HOSTNAME, 2, SCHEDULE_ANYWAY)];
    let web = incoming(zone_and_host());
    let mut db = incoming(zone_and_host());
    for c in &mut db.spec.topology_spread_constraints {
        c.label_selector = Some(LabelSelector { match_labels: labels(&[("app", "db")]), ..Default::default() });
    }
    let mut pinned = incoming(zone_and_host());
    pinned.spec.node_selector = Some(labels(&[(ZONE, "z2")]));
    for (why, p) in [("web", &web), ("db, sharing web's facts", &db), ("pinned to z2", &pinned), ("web again", &web)] {
        let mut cache = ScoreCache::with_index(Some(shared.clone()));
        let fresh = score(p, &nodes, &feasible, &SchedulerConfig::default(), None);
        assert_eq!(score(p, &nodes, &feasible, &SchedulerConfig::default(), Some(&mut cache)), fresh, "{why}");
    }
    // An index of other nodes is not read.
    let p = incoming(vec![constraint(ZONE, 1, SCHEDULE_ANYWAY)]);
    let other: Vec<NodeInfo> = nodes.iter().take(6).cloned().collect();
    let mut cache = ScoreCache::with_index(Some(index));
    let fresh = score(&p, &other, &[0, 1, 2], &SchedulerConfig::default(), None);
    assert_eq!(score(&p, &other, &[0, 1, 2], &SchedulerConfig::default(), Some(&mut cache)), fresh);
}

fn constraint(key: &str, max_skew: i32, when: &str) -> TopologySpreadConstraint {
    TopologySpreadConstraint {
        max_skew,
        topology_key: key.into(),
        when_unsatisfiable: when.into(),
        label_selector: Some(LabelSelector { match_labels: labels(&[("app", "web")]), ..Default::default() }),
        ..Default::default()
    }
}

fn incoming(constraints: Vec<TopologySpreadConstraint>) -> Pod {
    let mut p = pod("default", "web-new", &[("app", "web"), ("version", "v2")]);
    p.spec.topology_spread_constraints = constraints;
    p
}

fn run(p: &Pod, nodes: &[NodeInfo], cfg: &SchedulerConfig) -> Vec<Code> {
    let (status, state) = pre_filter(p, nodes, cfg);
    if status.code != Code::Success {
        return vec![status.code; nodes.len()];
    }
    nodes.iter().map(|n| filter(&state, p, n).code).collect()
}

use Code::{Skip, Success as Ok_, Unschedulable as U, UnschedulableAndUnresolvable as UU};

#[test]
fn filter_rows() {
    let hard = |max_skew| constraint(ZONE, max_skew, DO_NOT_SCHEDULE);
    let three_zones = || {
        vec![
            node("a1", &[(ZONE, "a")], &webs(2)),
            node("b1", &[(ZONE, "b")], &webs(1)),
            node("c1", &[(ZONE, "c")], &webs(1)),
            node("x", &[], &[]),
        ]
    };
    let two_zones = || vec![node("a1", &[(ZONE, "a")], &webs(1)), node("b1", &[(ZONE, "b")], &webs(1))];
    let min_domains = |n| TopologySpreadConstraint { min_domains: Some(n), ..hard(1) };
    let gpu_only = |policy: Option<&str>| {
        let mut p =
            incoming(vec![TopologySpreadConstraint { node_affinity_policy: policy.map(Into::into), ..hard(1) }]);
        p.spec.node_selector = Some(labels(&[("pool", "gpu")]));
        p
    };
    let gpu_nodes = || {
        vec![node("a1", &[(ZONE, "a"), ("pool", "gpu")], &webs(1)), node("b1", &[(ZONE, "b"), ("pool", "cpu")], &[])]
    };
    let taints = |policy: Option<&str>| {
        incoming(vec![TopologySpreadConstraint { node_taints_policy: policy.map(Into::into), ..hard(1) }])
    };
    let taint_nodes = || vec![node("a1", &[(ZONE, "a")], &webs(1)), tainted(node("b1", &[(ZONE, "b")], &[]))];
    let other_ns: Vec<Pod> = (0..3).map(|i| pod("other", &format!("w{i}"), &[("app", "web")])).collect();
    let v1: Vec<Pod> = (0..2).map(|i| pod("default", &format!("w{i}"), &[("app", "web"), ("version", "v1")])).collect();
    let by_version = TopologySpreadConstraint { match_label_keys: vec!["version".into()], ..hard(1) };
    let empty_selector = TopologySpreadConstraint { label_selector: Some(LabelSelector::default()), ..hard(1) };
    let latest = SchedulerConfig::default();

    // (pod, nodes, expected per node, why)
    let rows: Vec<(Pod, Vec<NodeInfo>, Vec<Code>, &str)> = vec![
        (
            incoming(vec![hard(1)]),
            three_zones(),
            vec![U, Ok_, Ok_, UU],
            "maxSkew 1 over 3 zones: a would be 3 vs 1; x lacks the key",
        ),
        (incoming(vec![hard(2)]), three_zones(), vec![Ok_, Ok_, Ok_, UU], "maxSkew 2 tolerates a"),
        (incoming(vec![min_domains(3)]), two_zones(), vec![U, U], "2 domains < minDomains 3: the minimum counts as 0"),
        (incoming(vec![min_domains(2)]), two_zones(), vec![Ok_, Ok_], "minDomains met: the real minimum is used"),
        (gpu_only(None), gpu_nodes(), vec![Ok_, Ok_], "nodeAffinityPolicy Honor (default): zone b is no domain"),
        (gpu_only(Some("Ignore")), gpu_nodes(), vec![U, Ok_], "nodeAffinityPolicy Ignore: empty zone b is the minimum"),
        (taints(Some("Honor")), taint_nodes(), vec![Ok_, Ok_], "nodeTaintsPolicy Honor: the tainted zone is no domain"),
        (taints(None), taint_nodes(), vec![U, Ok_], "nodeTaintsPolicy Ignore (default) counts the tainted zone"),
        (
            incoming(vec![hard(1)]),
            vec![node("a1", &[(ZONE, "a")], &other_ns), node("b1", &[(ZONE, "b")], &[])],
            vec![Ok_, Ok_],
            "pods of other namespaces are not counted",
        ),
        (
            incoming(vec![by_version]),
            vec![node("a1", &[(ZONE, "a")], &v1), node("b1", &[(ZONE, "b")], &[])],
            vec![Ok_, Ok_],
            "matchLabelKeys: only version v2 pods count",
        ),
        (
            incoming(vec![hard(1)]),
            vec![node("a1", &[(ZONE, "a")], &v1), node("b1", &[(ZONE, "b")], &[])],
            vec![U, Ok_],
            "without matchLabelKeys every version counts",
        ),
        (
            incoming(vec![empty_selector]),
            vec![node("a1", &[(ZONE, "a")], &webs(3)), node("b1", &[(ZONE, "b")], &[])],
            vec![Ok_, Ok_],
            "an empty selector counts no pods (upstream's selector.Empty() check)",
        ),
        (
            incoming(vec![constraint(ZONE, 1, SCHEDULE_ANYWAY)]),
            three_zones(),
            vec![Skip; 4],
            "no DoNotSchedule constraint: PreFilter skips",
        ),
    ];
    for (p, nodes, expected, why) in rows {
        assert_eq!(run(&p, &nodes, &latest), expected, "{why}");
    }

    let old = SchedulerConfig::for_version(KubeVersion::new(1, 25));
    assert_eq!(run(&gpu_only(Some("Ignore")), &gpu_nodes(), &old), vec![Ok_, Ok_], "policies need 1.26");
    assert_eq!(run(&incoming(vec![min_domains(3)]), &two_zones(), &old), vec![Ok_, Ok_], "minDomains needs 1.27");
}

#[test]
fn filter_details() {
    let p = incoming(vec![constraint(ZONE, 1, DO_NOT_SCHEDULE)]);
    let nodes = [node("a1", &[(ZONE, "a")], &webs(2)), node("b1", &[(ZONE, "b")], &webs(1)), node("x", &[], &[])];
    let (_, state) = pre_filter(&p, &nodes, &SchedulerConfig::default());
    let s = filter(&state, &p, &nodes[0]);
    assert_eq!(s.reasons, vec![ERR_REASON_CONSTRAINTS_NOT_MATCH]);
    assert_eq!(
        s.detail.as_deref(),
        Some("topology.kubernetes.io/zone=a would have 3 matching pods, the least loaded topology.kubernetes.io/zone (b) has 1 (maxSkew 1, counting pods with app=web)")
    );
    let s = filter(&state, &p, &nodes[2]);
    assert_eq!(s.reasons, vec![ERR_REASON_NODE_LABEL_NOT_MATCH]);
}

#[test]
fn score_rows() {
    let soft = |key: &str, max_skew| constraint(key, max_skew, SCHEDULE_ANYWAY);
    let zones = || {
        vec![
            node("a1", &[(ZONE, "a")], &webs(2)),
            node("b1", &[(ZONE, "b")], &webs(1)),
            node("c1", &[(ZONE, "c")], &[]),
            node("x", &[], &webs(5)),
        ]
    };
    let hosts = vec![
        node("n1", &[(LABEL_HOSTNAME, "n1")], &webs(2)),
        node("n2", &[(LABEL_HOSTNAME, "n2")], &[]),
        node("n3", &[(LABEL_HOSTNAME, "n3")], &webs(1)),
    ];
    let all = |n: usize| (0..n).collect::<Vec<_>>();

    // (pod, nodes, feasible, expected, why)
    let rows: Vec<ScoreRow> = vec![
        (
            incoming(vec![soft(ZONE, 1)]),
            zones(),
            all(4),
            // w = ln(5); raw a = round(2w) = 3, b = round(w) = 2, c = 0
            vec![0, 33, 100, 0],
            "fewer matching pods score higher; a node without the key scores 0",
        ),
        (
            incoming(vec![soft(ZONE, 3)]),
            zones(),
            all(4),
            // raw a = round(2w + 2) = 5, b = round(w + 2) = 4, c = 2
            vec![40, 60, 100, 0],
            "a larger maxSkew waters the differences down",
        ),
        (incoming(vec![soft(LABEL_HOSTNAME, 1)]), hosts.clone(), all(3), vec![0, 100, 33], "hostname counts per node"),
        (
            incoming(vec![soft(ZONE, 1)]),
            zones(),
            vec![1, 2],
            // zone a is no domain: w = ln(4); raw b = round(1.39) = 1, c = 0
            vec![0, 100],
            "only the feasible nodes' zones are domains",
        ),
        (
            incoming(vec![soft(ZONE, 1)]),
            vec![node("a1", &[(ZONE, "a")], &[]), node("b1", &[(ZONE, "b")], &[])],
            all(2),
            vec![100, 100],
            "no matching pods anywhere: every node scores 100",
        ),
        (
            incoming(vec![constraint(ZONE, 1, DO_NOT_SCHEDULE)]),
            zones(),
            all(4),
            vec![0; 4],
            "no ScheduleAnyway constraint",
        ),
        (pod("default", "p", &[]), zones(), all(4), vec![0; 4], "no constraints: system defaults are not applied"),
    ];
    for (p, nodes, feasible, expected, why) in rows {
        assert_eq!(score(&p, &nodes, &feasible, &SchedulerConfig::default(), None), expected, "{why}");
    }
}
