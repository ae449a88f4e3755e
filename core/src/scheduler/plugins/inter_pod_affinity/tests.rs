use super::*;
use crate::model::version::KubeVersion;
use crate::model::Affinity;
use crate::testing::{labels, node_info as node, pod};

fn term(key: &str, sel: &[(&str, &str)]) -> PodAffinityTerm {
    PodAffinityTerm {
        label_selector: Some(LabelSelector { match_labels: labels(sel), ..Default::default() }),
        topology_key: key.into(),
        ..Default::default()
    }
}

fn weighted(weight: i32, t: PodAffinityTerm) -> WeightedPodAffinityTerm {
    WeightedPodAffinityTerm { weight, pod_affinity_term: t }
}

#[derive(Default)]
struct Terms {
    req_aff: Vec<PodAffinityTerm>,
    req_anti: Vec<PodAffinityTerm>,
    pref_aff: Vec<WeightedPodAffinityTerm>,
    pref_anti: Vec<WeightedPodAffinityTerm>,
}

fn with(mut p: Pod, t: Terms) -> Pod {
    p.spec.affinity = Some(Affinity {
        node_affinity: None,
        pod_affinity: Some(PodAffinity { required: t.req_aff, preferred: t.pref_aff }),
        pod_anti_affinity: Some(PodAffinity { required: t.req_anti, preferred: t.pref_anti }),
    });
    p
}

/// (pod, nodes, expected per node, why)
type FilterRow = (Pod, Vec<NodeInfo>, Vec<(Code, Option<String>)>, &'static str);
/// (pod, nodes, expected normalized scores per node, why)
type ScoreRow = (Pod, Vec<NodeInfo>, Vec<i64>, &'static str);

const ZONE: &str = "topology.kubernetes.io/zone";
const HOST: &str = "kubernetes.io/hostname";

fn cfg() -> SchedulerConfig {
    SchedulerConfig::default()
}

/// Runs PreFilter then Filter on every node: the code per node, or `Skip` for all.
fn run(p: &Pod, nodes: &[NodeInfo]) -> Vec<(Code, Option<String>)> {
    let (status, state) = pre_filter(p, nodes, &cfg(), None);
    if status.code != Code::Success {
        return nodes.iter().map(|_| (status.code, status.reasons.first().map(|r| r.to_string()))).collect();
    }
    nodes
        .iter()
        .map(|n| {
            let s = filter(&state, p, n);
            (s.code, s.reasons.first().map(|r| r.to_string()))
        })
        .collect()
}

use Code::{Skip, Success, Unschedulable as U, UnschedulableAndUnresolvable as UU};

fn ok() -> (Code, Option<String>) {
    (Success, None)
}
fn aff() -> (Code, Option<String>) {
    (UU, Some(ERR_REASON_AFFINITY_RULES_NOT_MATCH.into()))
}
fn anti() -> (Code, Option<String>) {
    (U, Some(ERR_REASON_ANTI_AFFINITY_RULES_NOT_MATCH.into()))
}
fn existing() -> (Code, Option<String>) {
    (U, Some(ERR_REASON_EXISTING_ANTI_AFFINITY_RULES_NOT_MATCH.into()))
}

#[test]
fn filter_rows() {
    let web = |name: &str| pod("default", name, &[("app", "web")]);
    let db = |name: &str| pod("default", name, &[("app", "db")]);
    let spread_web = |p: Pod| with(p, Terms { req_anti: vec![term(HOST, &[("app", "web")])], ..Default::default() });
    let near_db = |p: Pod| with(p, Terms { req_aff: vec![term(ZONE, &[("app", "db")])], ..Default::default() });
    let self_aff = |p: Pod| with(p, Terms { req_aff: vec![term(ZONE, &[("app", "web")])], ..Default::default() });
    let hates_web = || with(db("db-0"), Terms { req_anti: vec![term(ZONE, &[("app", "web")])], ..Default::default() });
    let other_ns_web = || pod("other", "web-x", &[("app", "web")]);
    let ns_term = |namespaces: &[&str], selector: Option<LabelSelector>| {
        let mut t = term(HOST, &[("app", "web")]);
        t.namespaces = namespaces.iter().map(|s| s.to_string()).collect();
        t.namespace_selector = selector;
        with(web("new"), Terms { req_anti: vec![t], ..Default::default() })
    };
    let ns_sel = |pairs: &[(&str, &str)]| Some(LabelSelector { match_labels: labels(pairs), ..Default::default() });
    let mut by_version = term(HOST, &[("app", "web")]);
    by_version.match_label_keys = vec!["version".into()];
    let versioned = |name: &str, v: &str| pod("default", name, &[("app", "web"), ("version", v)]);

    // (pod, nodes, expected per node, why)
    let rows: Vec<FilterRow> = vec![
        (
            spread_web(web("web-2")),
            vec![
                node("n1", &[(HOST, "n1")], &[web("web-0")]),
                node("n2", &[(HOST, "n2")], &[]),
                node("n3", &[(HOST, "n3")], &[web("web-1")]),
            ],
            vec![anti(), ok(), anti()],
            "anti-affinity per hostname spreads replicas one per node",
        ),
        (
            near_db(web("web-0")),
            vec![
                node("a1", &[(ZONE, "a")], &[db("db-0")]),
                node("a2", &[(ZONE, "a")], &[]),
                node("b1", &[(ZONE, "b")], &[]),
                node("x", &[], &[]),
            ],
            vec![ok(), ok(), aff(), aff()],
            "affinity follows the existing pod's zone; a node without the key never fits",
        ),
        (
            self_aff(web("web-0")),
            vec![node("a1", &[(ZONE, "a")], &[db("db-0")]), node("x", &[], &[])],
            vec![ok(), aff()],
            "first pod of a self-affine group may go to any node with the topology key",
        ),
        (
            near_db(web("web-0")),
            vec![node("a1", &[(ZONE, "a")], &[]), node("b1", &[(ZONE, "b")], &[])],
            vec![aff(), aff()],
            "no db pod anywhere and the pod is no db: the exception does not apply",
        ),
        (
            self_aff(web("web-1")),
            vec![node("a1", &[(ZONE, "a")], &[web("web-0")]), node("b1", &[(ZONE, "b")], &[])],
            vec![ok(), aff()],
            "once a member exists, the exception is off",
        ),
        (
            web("web-0"),
            vec![
                node("a1", &[(ZONE, "a")], &[hates_web()]),
                node("a2", &[(ZONE, "a")], &[]),
                node("b1", &[(ZONE, "b")], &[]),
            ],
            vec![existing(), existing(), ok()],
            "an existing pod's anti-affinity keeps the pod out of its whole zone",
        ),
        (
            db("db-1"),
            vec![node("a1", &[(ZONE, "a")], &[hates_web()]), node("b1", &[(ZONE, "b")], &[])],
            vec![(Skip, None), (Skip, None)],
            "nothing to check: no terms on the pod and no existing anti-affinity matches it",
        ),
        (
            spread_web(web("web-1")),
            vec![node("n1", &[(HOST, "n1")], &[other_ns_web()])],
            vec![ok()],
            "a term without namespaces only looks at the pod's own namespace",
        ),
        (
            ns_term(&["other"], None),
            vec![node("n1", &[(HOST, "n1")], &[other_ns_web()])],
            vec![anti()],
            "namespaces lists the other namespace",
        ),
        (
            ns_term(&[], Some(LabelSelector::default())),
            vec![node("n1", &[(HOST, "n1")], &[other_ns_web()])],
            vec![anti()],
            "an empty namespaceSelector selects every namespace",
        ),
        (
            ns_term(&[], ns_sel(&[("team", "x")])),
            vec![node("n1", &[(HOST, "n1")], &[other_ns_web()]), node("n2", &[(HOST, "n2")], &[web("web-0")])],
            vec![ok(), ok()],
            "namespace labels are unknown: a label namespaceSelector selects nothing, not even the own namespace",
        ),
        (
            ns_term(&[], ns_sel(&[(LABEL_METADATA_NAME, "other")])),
            vec![node("n1", &[(HOST, "n1")], &[other_ns_web()])],
            vec![anti()],
            "kubernetes.io/metadata.name is known to be the namespace's name",
        ),
        (
            with(versioned("web-new", "v2"), Terms { req_anti: vec![by_version], ..Default::default() }),
            vec![
                node("n1", &[(HOST, "n1")], &[versioned("web-0", "v1")]),
                node("n2", &[(HOST, "n2")], &[versioned("web-1", "v2")]),
            ],
            vec![ok(), anti()],
            "matchLabelKeys narrows the selector to the pod's own version",
        ),
    ];
    for (p, nodes, expected, why) in rows {
        assert_eq!(run(&p, &nodes), expected, "{why}");
    }
}

#[test]
fn filter_details_name_the_pod_and_topology() {
    let web = |name: &str| pod("default", name, &[("app", "web")]);
    let p = with(web("web-1"), Terms { req_anti: vec![term(ZONE, &[("app", "web")])], ..Default::default() });
    let nodes = [node("a1", &[(ZONE, "a")], &[web("web-0")])];
    let (_, state) = pre_filter(&p, &nodes, &cfg(), None);
    let s = filter(&state, &p, &nodes[0]);
    assert_eq!(
        s.detail.as_deref(),
        Some("anti-affinity: pod default/web-0 with app=web is already in topology.kubernetes.io/zone=a")
    );

    let hater = with(
        pod("default", "db-0", &[]),
        Terms { req_anti: vec![term(ZONE, &[("app", "web")])], ..Default::default() },
    );
    let nodes = [node("a1", &[(ZONE, "a")], &[hater])];
    let (_, state) = pre_filter(&web("web-0"), &nodes, &cfg(), None);
    let s = filter(&state, &web("web-0"), &nodes[0]);
    assert_eq!(
        s.detail.as_deref(),
        Some(
            "existing pod default/db-0 has anti-affinity to pods with app=web and is in topology.kubernetes.io/zone=a"
        )
    );
}

#[test]
fn broken_selector_fails_pre_filter() {
    let mut t = term(HOST, &[]);
    t.label_selector.as_mut().unwrap().match_expressions =
        vec![LabelSelectorRequirement { key: "app".into(), operator: "Bogus".into(), values: vec![] }];
    let p = with(pod("default", "p", &[]), Terms { pref_aff: vec![weighted(1, t)], ..Default::default() });
    let (status, _) = pre_filter(&p, &[], &cfg(), None);
    assert_eq!(status.code, UU);
    assert!(status.reasons[0].starts_with("parsing pod: preferredAffinityTerms: "), "{:?}", status.reasons);
}

#[test]
fn match_label_keys_need_1_31() {
    let mut t = term(HOST, &[("app", "web")]);
    t.match_label_keys = vec!["version".into()];
    let p = with(
        pod("default", "new", &[("app", "web"), ("version", "v2")]),
        Terms { req_anti: vec![t], ..Default::default() },
    );
    let nodes = [node("n1", &[(HOST, "n1")], &[pod("default", "old", &[("app", "web"), ("version", "v1")])])];
    let old = SchedulerConfig::for_version(KubeVersion::new(1, 30));
    let (_, state) = pre_filter(&p, &nodes, &old, None);
    assert_eq!(filter(&state, &p, &nodes[0]).code, U, "before 1.31 matchLabelKeys is ignored");
}

#[test]
fn score_rows() {
    let db = |name: &str| pod("default", name, &[("app", "db")]);
    let web = |name: &str| pod("default", name, &[("app", "web")]);
    let zones = |pods_a: Vec<Pod>, pods_b: Vec<Pod>| {
        vec![
            node("a1", &[(ZONE, "a")], &pods_a),
            node("b1", &[(ZONE, "b")], &pods_b),
            node("c1", &[(ZONE, "c")], &[]),
            node("x", &[], &[]),
        ]
    };
    let likes_db =
        |w| with(web("w"), Terms { pref_aff: vec![weighted(w, term(ZONE, &[("app", "db")]))], ..Default::default() });
    let avoids_db =
        |w| with(web("w"), Terms { pref_anti: vec![weighted(w, term(ZONE, &[("app", "db")]))], ..Default::default() });
    let needs_web = with(db("db-0"), Terms { req_aff: vec![term(ZONE, &[("app", "web")])], ..Default::default() });
    let prefers_web =
        with(db("db-1"), Terms { pref_aff: vec![weighted(5, term(ZONE, &[("app", "web")]))], ..Default::default() });
    let mixed = with(
        web("w"),
        Terms {
            pref_aff: vec![weighted(10, term(ZONE, &[("app", "db")]))],
            pref_anti: vec![weighted(5, term(ZONE, &[("app", "cache")]))],
            ..Default::default()
        },
    );
    let cache = pod("default", "cache-0", &[("app", "cache")]);

    // (pod, nodes, expected normalized scores per node, why)
    let rows: Vec<ScoreRow> = vec![
        (likes_db(10), zones(vec![db("db-0")], vec![]), vec![100, 0, 0, 0], "preferred affinity pulls to the db zone"),
        (avoids_db(10), zones(vec![db("db-0")], vec![]), vec![0, 100, 100, 100], "preferred anti-affinity pushes away"),
        (
            likes_db(10),
            zones(vec![db("db-0"), db("db-1")], vec![db("db-2")]),
            vec![100, 50, 0, 0],
            "weights add up per matching pod",
        ),
        (
            web("w"),
            zones(vec![needs_web], vec![]),
            vec![100, 0, 0, 0],
            "an existing pod's required affinity scores hardPodAffinityWeight",
        ),
        (
            web("w"),
            zones(vec![], vec![prefers_web]),
            vec![0, 100, 0, 0],
            "an existing pod's preferred affinity counts too",
        ),
        (
            mixed,
            zones(vec![db("db-0")], vec![cache]),
            // raw: a=10, b=-5, c=0, x=0 -> (s+5)/15
            vec![100, 0, 33, 33],
            "negative scores: min-max scaling over the feasible nodes",
        ),
        (web("w"), zones(vec![db("db-0")], vec![]), vec![0, 0, 0, 0], "nothing to score: PreScore skips"),
    ];
    for (p, nodes, expected, why) in rows {
        let feasible: Vec<usize> = (0..nodes.len()).collect();
        assert_eq!(score(&p, &nodes, &feasible, &cfg()), expected, "{why}");
    }
}

#[test]
fn score_only_normalizes_over_feasible_nodes() {
    let db = pod("default", "db-0", &[("app", "db")]);
    let p = with(
        pod("default", "w", &[]),
        Terms { pref_aff: vec![weighted(10, term(ZONE, &[("app", "db")]))], ..Default::default() },
    );
    let nodes = [node("a1", &[(ZONE, "a")], &[db]), node("a2", &[(ZONE, "a")], &[]), node("b1", &[(ZONE, "b")], &[])];
    assert_eq!(score(&p, &nodes, &[1, 2], &cfg()), vec![100, 0], "a2 shares a1's zone even though a1 is infeasible");
    assert_eq!(score(&p, &nodes, &[0, 1], &cfg()), vec![0, 0], "equal scores normalize to 0");
}
