use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::suite::{parse_expect, run_suite, Expect, Outcome, RunOptions, SuiteFs};
use super::*;

fn yaml(text: &str) -> Value {
    serde_yaml::from_str(text).expect("test YAML")
}

const REPOS_TEMPLATE: &str = r#"
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8sallowedrepos
spec:
  crd:
    spec:
      names:
        kind: K8sAllowedRepos
      validation:
        openAPIV3Schema:
          type: object
          properties:
            repos:
              type: array
              items:
                type: string
            limit:
              type: integer
  targets:
  - target: admission.k8s.gatekeeper.sh
    rego: |
      package k8sallowedrepos

      violation[{"msg": msg, "details": {"image": container.image}}] {
        container := input.review.object.spec.containers[_]
        not allowed(container.image)
        msg := sprintf("container <%v> has an invalid image repo <%v>", [container.name, container.image])
      }

      allowed(image) {
        startswith(image, input.parameters.repos[_])
      }
"#;

fn constraint(extra_spec: &str) -> String {
    format!(
        "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sAllowedRepos\nmetadata:\n  name: repos\nspec:\n  parameters:\n    repos: [\"good/\"]\n{extra_spec}"
    )
}

fn policy(extra_spec: &str) -> PolicySet {
    PolicySet::parse(&format!("{REPOS_TEMPLATE}\n---\n{}", constraint(extra_spec)), "policy.yaml")
        .expect("policy parses")
}

fn pod(ns: Option<&str>, name: &str, labels: Value, image: &str) -> Value {
    let mut meta = json!({"name": name, "labels": labels});
    if let Some(ns) = ns {
        meta["namespace"] = json!(ns);
    }
    json!({"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": {"containers": [{"name": "c", "image": image}]}})
}

#[test]
fn evaluates_violation_set_with_msg_and_details() {
    let p = policy("");
    let v = evaluate(&p, &pod(Some("default"), "p", json!({}), "bad/nginx"), &Inventory::default()).unwrap();
    assert_eq!(v.len(), 1);
    assert_eq!(v[0].msg, "container <c> has an invalid image repo <bad/nginx>");
    assert_eq!(v[0].details, json!({"image": "bad/nginx"}));
    assert_eq!(v[0].constraint, "repos");
    assert_eq!(v[0].enforcement_action, EnforcementAction::Deny);
    assert_eq!(v[0].to_string(), "[repos] container <c> has an invalid image repo <bad/nginx>");
    assert!(evaluate(&p, &pod(Some("default"), "p", json!({}), "good/nginx"), &Inventory::default())
        .unwrap()
        .is_empty());
}

#[test]
fn enforcement_actions() {
    for (text, action) in
        [("deny", EnforcementAction::Deny), ("dryrun", EnforcementAction::Dryrun), ("warn", EnforcementAction::Warn)]
    {
        let p = policy(&format!("  enforcementAction: {text}\n"));
        let v = evaluate(&p, &pod(None, "p", json!({}), "bad/x"), &Inventory::default()).unwrap();
        assert_eq!(v[0].enforcement_action, action);
    }
    let err = PolicySet::parse(&format!("{REPOS_TEMPLATE}\n---\n{}", constraint("  enforcementAction: block\n")), "")
        .unwrap_err()
        .to_string();
    assert!(err.contains("K8sAllowedRepos repos") && err.contains("\"block\""), "{err}");
}

#[test]
fn match_semantics_table() {
    let ns = |name: &str, labels: Value| json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": name, "labels": labels}});
    let inventory = Inventory::new([ns("prod", json!({"env": "prod"})), ns("kube-system", json!({}))]);
    let node = json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1", "labels": {"env": "prod"}}});
    let deploy = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "prod"}});
    let p_prod = pod(Some("prod"), "web-1", json!({"app": "web"}), "x");
    let p_kube = pod(Some("kube-system"), "dns", json!({}), "x");
    let p_missing_ns = pod(Some("ghost"), "web-2", json!({"app": "web"}), "x");
    let namespace_prod = ns("prod", json!({"env": "prod"}));
    let cases: Vec<(&str, &str, &Value, bool)> = vec![
        ("no match block", "", &p_prod, true),
        ("kinds Pod", "kinds: [{apiGroups: [\"\"], kinds: [Pod]}]", &p_prod, true),
        ("kinds Pod vs Deployment", "kinds: [{apiGroups: [\"\"], kinds: [Pod]}]", &deploy, false),
        ("kinds wrong group", "kinds: [{apiGroups: [apps], kinds: [Pod]}]", &p_prod, false),
        ("kinds wildcard", "kinds: [{apiGroups: [\"*\"], kinds: [\"*\"]}]", &deploy, true),
        ("namespaces exact", "namespaces: [prod]", &p_prod, true),
        ("namespaces other", "namespaces: [dev]", &p_prod, false),
        ("namespaces prefix glob", "namespaces: [\"pr*\"]", &p_prod, true),
        ("namespaces suffix glob", "namespaces: [\"*-system\"]", &p_kube, true),
        ("namespaces: cluster-scoped unaffected", "namespaces: [dev]", &node, true),
        ("namespaces: Namespace by its name", "namespaces: [prod]", &namespace_prod, true),
        ("excluded kube-* glob", "excludedNamespaces: [\"kube-*\"]", &p_kube, false),
        ("excluded kube-* other ns", "excludedNamespaces: [\"kube-*\"]", &p_prod, true),
        ("scope Cluster vs pod", "scope: Cluster", &p_prod, false),
        ("scope Cluster vs node", "scope: Cluster", &node, true),
        ("scope Namespaced vs node", "scope: Namespaced", &node, false),
        ("labelSelector matchLabels", "labelSelector: {matchLabels: {app: web}}", &p_prod, true),
        ("labelSelector mismatch", "labelSelector: {matchLabels: {app: db}}", &p_prod, false),
        (
            "labelSelector In",
            "labelSelector: {matchExpressions: [{key: app, operator: In, values: [web, db]}]}",
            &p_prod,
            true,
        ),
        (
            "labelSelector NotIn",
            "labelSelector: {matchExpressions: [{key: app, operator: NotIn, values: [web]}]}",
            &p_prod,
            false,
        ),
        (
            "labelSelector DoesNotExist",
            "labelSelector: {matchExpressions: [{key: tier, operator: DoesNotExist}]}",
            &p_prod,
            true,
        ),
        ("namespaceSelector from inventory", "namespaceSelector: {matchLabels: {env: prod}}", &p_prod, true),
        ("namespaceSelector mismatch", "namespaceSelector: {matchLabels: {env: dev}}", &p_prod, false),
        ("namespaceSelector missing namespace", "namespaceSelector: {matchLabels: {env: prod}}", &p_missing_ns, false),
        ("namespaceSelector cluster-scoped", "namespaceSelector: {matchLabels: {env: prod}}", &node, false),
        ("namespaceSelector on a Namespace", "namespaceSelector: {matchLabels: {env: prod}}", &namespace_prod, true),
        ("name exact", "name: web-1", &p_prod, true),
        ("name glob", "name: \"web-*\"", &p_prod, true),
        ("name mismatch", "name: \"db-*\"", &p_prod, false),
    ];
    for (what, m, object, want) in cases {
        let parsed = Match::from_value(&yaml(if m.is_empty() { "null" } else { m })).expect(what);
        let got = parsed.matches(&review_for(object), &inventory, matching::Source::Original);
        assert_eq!(got, want, "{what}: match {m}");
    }
}

#[test]
fn globs() {
    assert!(glob_match("kube-*", "kube-system"));
    assert!(!glob_match("kube-*", "kubernetes"));
    assert!(glob_match("*-system", "kube-system"));
    assert!(glob_match("*", "anything"));
    assert!(!glob_match("prod", "prod2"));
}

#[test]
fn parameter_schema_errors_name_constraint_path_and_value() {
    let text = format!(
        "{REPOS_TEMPLATE}\n---\napiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sAllowedRepos\nmetadata:\n  name: bad-params\nspec:\n  parameters:\n    repos: [\"ok/\", 42]\n"
    );
    let err = PolicySet::parse(&text, "").unwrap_err().to_string();
    assert!(err.contains("K8sAllowedRepos bad-params"), "{err}");
    assert!(err.contains("spec.parameters.repos[1]"), "{err}");
    assert!(err.contains("expected string, found integer 42"), "{err}");

    let text = format!(
        "{REPOS_TEMPLATE}\n---\napiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sAllowedRepos\nmetadata:\n  name: bad-limit\nspec:\n  parameters:\n    limit: \"ten\"\n"
    );
    let err = PolicySet::parse(&text, "").unwrap_err().to_string();
    assert!(err.contains("spec.parameters.limit: expected integer, found string \"ten\""), "{err}");

    let text = "apiVersion: constraints.gatekeeper.sh/v1beta1\nkind: K8sNothing\nmetadata:\n  name: orphan\n";
    let err = PolicySet::parse(text, "").unwrap_err().to_string();
    assert!(err.contains("no ConstraintTemplate defines kind K8sNothing"), "{err}");
}

fn template_with(rego: &str) -> Result<Template, GatekeeperError> {
    let indented: String = rego.lines().map(|l| format!("      {l}\n")).collect();
    let text = format!(
        "apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nmetadata:\n  name: k8sbroken\nspec:\n  crd:\n    spec:\n      names:\n        kind: K8sBroken\n  targets:\n  - target: admission.k8s.gatekeeper.sh\n    rego: |\n{indented}"
    );
    Template::from_value(&yaml(&text))
}

#[test]
fn bad_templates_name_template_and_line() {
    let err =
        template_with("package k8sbroken\n\nviolation[{\"msg\": msg}] {\n  msg := \n}\n").unwrap_err().to_string();
    assert!(err.starts_with("ConstraintTemplate k8sbroken:"), "{err}");
    assert!(err.contains("k8sbroken:spec.targets[0].rego:3:"), "error names the rego and line: {err}");

    let err = template_with("package k8sbroken\n\ndeny[msg] {\n  msg := \"x\"\n}\n").unwrap_err().to_string();
    assert!(err.contains("ConstraintTemplate k8sbroken") && err.contains("no `violation` rule"), "{err}");

    // An unsupported builtin is reported when the rule is evaluated (regorus resolves
    // functions lazily), naming the function and the line; `evaluate` adds the constraint
    // and the template.
    let t =
        template_with("package k8sbroken\n\nviolation[{\"msg\": msg}] {\n  msg := no_such_builtin(1)\n}\n").unwrap();
    let err = t
        .violations(&review_for(&pod(None, "p", json!({}), "x")), &Value::Null, None, Limits::default(), Engine::Rego)
        .unwrap_err();
    assert!(matches!(err, EvalError::Rego(_)), "{err:?}");
    let err = err.to_string();
    assert!(err.contains("could not find function no_such_builtin") && err.contains(":4:"), "{err}");
}

#[test]
fn cel_blocks_are_noted_and_code_rego_v1_is_used() {
    let text = r#"
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8snolatest
spec:
  crd:
    spec:
      names:
        kind: K8sNoLatest
  targets:
  - target: admission.k8s.gatekeeper.sh
    code:
    - engine: K8sNativeValidation
      source:
        validations:
        - expression: "true"
    - engine: Rego
      source:
        version: v1
        rego: |
          package k8snolatest
          violation contains {"msg": msg} if {
            some c in input.review.object.spec.containers
            endswith(c.image, ":latest")
            msg := sprintf("%v uses latest", [c.name])
          }
"#;
    let t = Template::from_value(&yaml(text)).unwrap();
    // A build without CEL notes the CEL block it skips; either way the Rego is what runs here.
    assert_eq!(
        t.notes.iter().any(|n| n.contains("K8sNativeValidation")),
        !cfg!(feature = "gatekeeper-cel"),
        "{:?}",
        t.notes
    );
    let v = t
        .violations(
            &review_for(&pod(None, "p", json!({}), "nginx:latest")),
            &Value::Null,
            None,
            Limits::default(),
            Engine::Rego,
        )
        .unwrap();
    assert_eq!(v, vec![("c uses latest".to_string(), Value::Null)]);
}

#[test]
fn libs_are_loaded() {
    let text = r#"
apiVersion: templates.gatekeeper.sh/v1beta1
kind: ConstraintTemplate
metadata:
  name: k8slib
spec:
  crd:
    spec:
      names:
        kind: K8sLib
  targets:
  - target: admission.k8s.gatekeeper.sh
    rego: |
      package k8slib
      import data.lib.helpers.name_of
      violation[{"msg": msg}] { msg := sprintf("saw %v", [name_of(input.review.object)]) }
    libs:
    - |
      package lib.helpers
      name_of(o) = n { n := o.metadata.name }
"#;
    let t = Template::from_value(&yaml(text)).unwrap();
    let v = t
        .violations(&review_for(&pod(None, "p1", json!({}), "x")), &Value::Null, None, Limits::default(), Engine::Rego)
        .unwrap();
    assert_eq!(v[0].0, "saw p1");
}

#[test]
fn inventory_is_data_inventory() {
    let text = r#"
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8suniquename
spec:
  crd:
    spec:
      names:
        kind: K8sUniqueName
  targets:
  - target: admission.k8s.gatekeeper.sh
    rego: |
      package k8suniquename
      violation[{"msg": msg}] {
        other := data.inventory.namespace[ns]["v1"]["Pod"][name]
        ns != input.review.object.metadata.namespace
        name == input.review.object.metadata.name
        msg := sprintf("name also used in %v", [ns])
      }
      violation[{"msg": msg}] {
        data.inventory.cluster["v1"]["Node"]["n1"]
        msg := "node n1 exists"
      }
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sUniqueName
metadata:
  name: unique
"#;
    let p = PolicySet::parse(text, "").unwrap();
    let inv = Inventory::new([
        pod(Some("other"), "web", json!({}), "x"),
        json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}),
    ]);
    let mut msgs: Vec<String> =
        evaluate(&p, &pod(Some("mine"), "web", json!({}), "x"), &inv).unwrap().into_iter().map(|v| v.msg).collect();
    msgs.sort();
    assert_eq!(msgs, vec!["name also used in other", "node n1 exists"]);
    assert!(evaluate(&p, &pod(Some("mine"), "web", json!({}), "x"), &Inventory::default()).unwrap().is_empty());
}

/// The Lists a Kubewarden host answers: items filed under the resource listed (the API server's
/// List items carry no `apiVersion`/`kind`), by their own namespace; Namespaces among them serve
/// `namespaceSelector`.
#[test]
fn inventory_from_lists_files_items_under_the_listed_resource() {
    let text = r#"
apiVersion: templates.gatekeeper.sh/v1
kind: ConstraintTemplate
metadata:
  name: k8suniqueselector
spec:
  crd:
    spec:
      names:
        kind: K8sUniqueSelector
  targets:
  - target: admission.k8s.gatekeeper.sh
    rego: |
      package k8suniqueselector
      violation[{"msg": msg}] {
        other := data.inventory.namespace[ns]["v1"]["Service"][name]
        not same_object(ns, name)
        other.spec.selector == input.review.object.spec.selector
        msg := sprintf("same selector as Service %v/%v", [ns, name])
      }
      same_object(ns, name) {
        ns == input.review.namespace
        name == input.review.object.metadata.name
      }
---
apiVersion: constraints.gatekeeper.sh/v1beta1
kind: K8sUniqueSelector
metadata:
  name: unique-selector
spec:
  match:
    kinds: [{apiGroups: [""], kinds: [Service]}]
    namespaceSelector: {matchLabels: {team: web}}
"#;
    let p = PolicySet::parse(text, "").unwrap();
    let service = |ns: &str, name: &str, app: &str| json!({"metadata": {"name": name, "namespace": ns}, "spec": {"selector": {"app": app}}});
    let namespace = |name: &str, labels: Value| json!({"metadata": {"name": name, "labels": labels}});
    let inv = Inventory::from_lists([
        ("v1", "Service", vec![service("web", "front", "shop"), service("other", "back", "db")]),
        ("v1", "Namespace", vec![namespace("web", json!({"team": "web"})), namespace("other", json!({}))]),
    ])
    .unwrap();
    assert_eq!(inv.len(), 4);
    assert_eq!(inv.namespace("web").unwrap()["metadata"]["labels"]["team"], "web");
    let review = |ns: &str, name: &str, app: &str| {
        json!({"kind": {"group": "", "version": "v1", "kind": "Service"}, "namespace": ns, "name": name,
               "operation": "CREATE", "object": service(ns, name, app)})
    };
    let msgs = |r: Value| -> Vec<String> { evaluate(&p, &r, &inv).unwrap().into_iter().map(|v| v.msg).collect() };
    assert_eq!(msgs(review("web", "front-2", "shop")), ["same selector as Service web/front"]);
    assert!(msgs(review("web", "front", "shop")).is_empty(), "itself");
    assert!(msgs(review("web", "front-2", "other")).is_empty(), "another selector");
    // `other` is listed without the label, `nowhere` not at all: the namespaceSelector matches neither.
    assert!(msgs(review("other", "x", "shop")).is_empty());
    assert!(msgs(review("nowhere", "x", "shop")).is_empty());
    // The same objects keyed by their own apiVersion/kind (Inventory::new) give the same data.
    let with_types = |mut v: Value, kind: &str| {
        v["apiVersion"] = "v1".into();
        v["kind"] = kind.into();
        v
    };
    let typed = Inventory::new([
        with_types(service("web", "front", "shop"), "Service"),
        with_types(service("other", "back", "db"), "Service"),
        with_types(namespace("web", json!({"team": "web"})), "Namespace"),
        with_types(namespace("other", json!({})), "Namespace"),
    ]);
    let strip = |d: &regorus::Value| {
        let mut v: Value = serde_json::from_str(&d.to_json_str().unwrap()).unwrap();
        for path in [
            "/inventory/namespace/web/v1/Service/front",
            "/inventory/namespace/other/v1/Service/back",
            "/inventory/cluster/v1/Namespace/web",
            "/inventory/cluster/v1/Namespace/other",
        ] {
            let obj = v.pointer_mut(path).and_then(Value::as_object_mut).unwrap();
            obj.remove("apiVersion");
            obj.remove("kind");
        }
        v
    };
    assert_eq!(strip(typed.data().unwrap()), strip(inv.data().unwrap()));
}

/// `may_match`: whether any inventory could make a constraint match; `false` means no listing
/// is needed.
#[test]
fn may_match_whatever_the_inventory() {
    let p = |spec: &str| policy(spec).with_default_expansions();
    let in_ns = |ns: &str| pod(Some(ns), "p", json!({}), "x");
    let deployment = json!({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "prod"},
        "spec": {"selector": {"matchLabels": {"a": "b"}}, "template": {"metadata": {"labels": {"a": "b"}}, "spec": {"containers": [{"name": "c", "image": "x"}]}}}});
    let rows: [(&str, &str, Value, bool); 7] = [
        ("no match criteria", "", in_ns("prod"), true),
        ("another kind", "  match:\n    kinds: [{apiGroups: [apps], kinds: [Deployment]}]", in_ns("prod"), false),
        (
            "a namespaceSelector: the Namespace is unknown",
            "  match:\n    namespaceSelector: {matchLabels: {env: prod}}",
            in_ns("prod"),
            true,
        ),
        ("an excluded namespace", "  match:\n    excludedNamespaces: [prod]", in_ns("prod"), false),
        (
            "a Pod constraint, through the Deployment's expansion",
            "  match:\n    kinds: [{apiGroups: [\"\"], kinds: [Pod]}]",
            deployment.clone(),
            true,
        ),
        ("generated Pods only, on a Pod", "  match:\n    source: Generated", in_ns("prod"), false),
        (
            "a namespaceSelector on a Namespace decides by its labels",
            "  match:\n    namespaceSelector: {matchLabels: {env: prod}}",
            json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev", "labels": {"env": "dev"}}}),
            false,
        ),
    ];
    for (name, spec, object, want) in rows {
        let p = p(spec);
        assert_eq!(may_match(&p, &object), want, "{name}");
        if !want {
            // Then no inventory makes it match.
            let inv = Inventory::new([
                json!({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "prod", "labels": {"env": "prod"}}}),
            ]);
            assert!(evaluate(&p, &object, &inv).unwrap().is_empty(), "{name}");
        }
    }
}

#[test]
fn inventory_from_lists_errors() {
    let named = json!({"metadata": {"name": "a"}});
    let rows: [(Vec<Value>, InventoryError); 3] = [
        (
            vec![named.clone(), json!({"metadata": {"namespace": "x"}})],
            InventoryError::MissingName { api_version: "v1".into(), kind: "Service".into(), index: 1 },
        ),
        (
            vec![json!("a")],
            InventoryError::NotAnObject {
                api_version: "v1".into(),
                kind: "Service".into(),
                index: 0,
                found: "a string".into(),
            },
        ),
        (
            vec![named.clone(); MAX_LISTED_OBJECTS + 1],
            InventoryError::TooMany {
                api_version: "v1".into(),
                kind: "Service".into(),
                total: MAX_LISTED_OBJECTS + 1,
                limit: MAX_LISTED_OBJECTS,
            },
        ),
    ];
    for (items, want) in rows {
        assert_eq!(Inventory::from_lists([("v1", "Service", items)]).unwrap_err(), want);
    }
    assert_eq!(
        InventoryError::MissingName { api_version: "v1".into(), kind: "Service".into(), index: 1 }.to_string(),
        "v1 Service: items[1]: no metadata.name"
    );
    // The limit is over every list together; an empty one is no inventory.
    let half = vec![named; MAX_LISTED_OBJECTS / 2 + 1];
    assert!(matches!(
        Inventory::from_lists([("v1", "Service", half.clone()), ("v1", "Secret", half)]),
        Err(InventoryError::TooMany { .. })
    ));
    let empty = Inventory::from_lists([("v1", "Service", vec![])]).unwrap();
    assert!(empty.is_empty() && empty.data().is_none());
}

#[test]
fn admission_review_uses_request() {
    let review = review_for(&json!({
        "apiVersion": "admission.k8s.io/v1", "kind": "AdmissionReview",
        "request": {"operation": "UPDATE", "object": pod(Some("ns1"), "p", json!({}), "x")}
    }));
    assert_eq!(review["operation"], "UPDATE");
    assert_eq!(review["kind"], json!({"group": "", "version": "v1", "kind": "Pod"}));
    assert_eq!(review["namespace"], "ns1");
    assert_eq!(review["name"], "p");
    let plain = review_for(&pod(None, "p", json!({}), "x"));
    assert!(plain.get("operation").is_none());
    assert_eq!(plain["object"]["metadata"]["name"], "p");
}

#[test]
fn expansion_reviews_the_pod_a_workload_creates() {
    let p = policy("  match:\n    kinds: [{apiGroups: [\"\"], kinds: [Pod]}]\n").with_default_expansions();
    let deploy = json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "prod"},
        "spec": {"template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [{"name": "c", "image": "bad/x"}]}}}
    });
    let v = evaluate(&p, &deploy, &Inventory::default()).unwrap();
    assert_eq!(v.len(), 1, "{v:?}");
    assert_eq!(v[0].msg, "[Implied by expand-deployments] container <c> has an invalid image repo <bad/x>");

    let cron = json!({
        "apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "nightly", "namespace": "prod"},
        "spec": {"jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "bad/y"}]}}}}}
    });
    let v = evaluate(&p, &cron, &Inventory::default()).unwrap();
    assert_eq!(v.len(), 1);
    assert!(v[0].msg.starts_with("[Implied by expand-cronjobs] "), "{}", v[0].msg);

    // The generated Pod carries the parent's namespace, so namespace criteria apply to it.
    let generated = expansion::expand(&default_expansion_templates(), &review_for(&deploy));
    assert_eq!(generated[0].2["namespace"], "prod");
    assert_eq!(generated[0].2["object"]["metadata"]["namespace"], "prod");
    assert_eq!(generated[0].2["kind"]["kind"], "Pod");

    // match.source: Original skips generated Pods.
    let p = policy("  match:\n    source: Original\n").with_default_expansions();
    assert!(evaluate(&p, &deploy, &Inventory::default()).unwrap().is_empty());
}

#[test]
fn hostile_template_is_stopped_by_the_time_limit() {
    let t = template_with(
        "package k8sbroken\n\nviolation[{\"msg\": msg}] {\n  n := count([1 | numbers.range(1, 2000)[_]; numbers.range(1, 2000)[_]; numbers.range(1, 2000)[_]])\n  msg := sprintf(\"%v\", [n])\n}\n",
    )
    .expect("compiles");
    let start = Instant::now();
    let limits = Limits { time: Some(Duration::from_millis(200)), work: None };
    let err = t
        .violations(&review_for(&pod(None, "p", json!({}), "x")), &Value::Null, None, limits, Engine::Rego)
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(20), "took {:?}", start.elapsed());
    // Classified by regorus' typed `LimitError`, not by its message.
    assert!(
        matches!(&err, EvalError::TimeLimitExceeded { limit, .. } if *limit == Duration::from_millis(200)),
        "{err:?}"
    );
    assert!(err.is_limit_exceeded());
    let err = err.to_string();
    assert!(
        err.starts_with("Rego evaluation exceeded its time limit and was stopped: execution exceeded time limit"),
        "{err}"
    );
}

#[test]
fn suites_parse_yes_no_as_strings() {
    // YAML 1.2, like gator's go-yaml v3: `yes`/`no` are strings, not booleans.
    let v: Value = serde_yaml::from_str("a: yes\nb: no\nc: 2\n").unwrap();
    assert_eq!(v["a"], json!("yes"));
    assert_eq!(v["b"], json!("no"));
    assert_eq!(parse_expect(Some(&v["a"])), Ok(Expect::AtLeastOne));
    assert_eq!(parse_expect(Some(&v["b"])), Ok(Expect::Exactly(0)));
    assert_eq!(parse_expect(Some(&v["c"])), Ok(Expect::Exactly(2)));
    assert_eq!(parse_expect(None), Ok(Expect::AtLeastOne));
}

struct MemFs(BTreeMap<&'static str, String>);

impl SuiteFs for MemFs {
    fn read(&self, path: &str) -> Result<String, String> {
        self.0.get(path).cloned().ok_or_else(|| format!("{path}: not found"))
    }
}

#[test]
fn suite_runner_counts_assertions() {
    let fs = MemFs(BTreeMap::from([
        ("template.yaml", REPOS_TEMPLATE.to_string()),
        ("constraint.yaml", constraint("")),
        ("bad-constraint.yaml", constraint("").replace("[\"good/\"]", "[1]")),
        ("bad.yaml", serde_yaml::to_string(&pod(None, "p", json!({}), "bad/x")).unwrap()),
        ("good.yaml", serde_yaml::to_string(&pod(None, "p", json!({}), "good/x")).unwrap()),
    ]));
    let suite = r#"
kind: Suite
apiVersion: test.gatekeeper.sh/v1alpha1
tests:
- name: repos
  template: template.yaml
  constraint: constraint.yaml
  cases:
  - name: good
    object: good.yaml
    assertions: [{violations: no}]
  - name: bad
    object: bad.yaml
    assertions: [{violations: yes, message: "invalid image"}, {violations: 1}, {violations: 0, message: nomatch}]
  - name: wrong-expectation
    object: bad.yaml
    assertions: [{violations: no}]
  - name: skipped
    object: bad.yaml
    skip: true
- name: invalid-constraint
  template: template.yaml
  constraint: bad-constraint.yaml
  invalid: true
"#;
    let results = run_suite(suite, "suite.yaml", &fs, RunOptions::default()).unwrap();
    let outcomes: Vec<(&str, &Outcome)> = results.iter().map(|r| (r.case.as_str(), &r.outcome)).collect();
    assert_eq!(outcomes[0], ("good", &Outcome::Pass));
    assert_eq!(outcomes[1], ("bad", &Outcome::Pass));
    assert!(
        matches!(outcomes[2], ("wrong-expectation", Outcome::Fail(m)) if m == "assertion 1: unexpected number of violations: got 1 violations but want none: got messages [container <c> has an invalid image repo <bad/x>]"),
        "{outcomes:?}"
    );
    assert_eq!(outcomes[3], ("skipped", &Outcome::Skip));
    assert_eq!(outcomes[4], ("(invalid constraint)", &Outcome::Pass));
}

/// Where regorus 0.14.1 differed from OPA and vendor/regorus (PLACEMENT.md) follows OPA: each
/// case is a minimal `violation` rule evaluated on `input.parameters` and its messages.
#[test]
fn opa_fidelity() {
    let cases: Vec<(&str, &str, Value, Vec<&str>)> = vec![
        (
            // OPA: `(` continues a term only with no whitespace before it; after a newline
            // the parenthesised expression is the next literal of the body.
            "newline before ( ends the expression",
            "violation[{\"msg\": \"spread too small\"}] {\n  input.parameters.min\n  (input.parameters.max - input.parameters.low) < input.parameters.min\n}",
            json!({"min": 3, "max": 4, "low": 2}),
            vec!["spread too small"],
        ),
        (
            "newline before ( : the first expression still counts",
            "violation[{\"msg\": \"spread too small\"}] {\n  input.parameters.min\n  (input.parameters.max - input.parameters.low) < 3\n}",
            json!({"max": 4, "low": 2}),
            vec![],
        ),
        ("sprintf missing argument", "violation[{\"msg\": msg}] {\n  msg := sprintf(\"%v and %v\", [\"one\"])\n}", json!({}), vec!["one and %!v(MISSING)"]),
        ("sprintf missing %s and %d", "violation[{\"msg\": msg}] {\n  msg := sprintf(\"%s-%d\", [])\n}", json!({}), vec!["%!s(MISSING)-%!d(MISSING)"]),
        (
            "chained set-rule bodies are separate definitions",
            "violation[{\"msg\": msg}] {\n  input.parameters.a\n  msg := \"a\"\n} {\n  input.parameters.b\n  msg := \"b\"\n} {\n  input.parameters.c\n  msg := \"c\"\n}",
            json!({"a": true, "c": true}),
            vec!["a", "c"],
        ),
        (
            "not f(x, undefined) fails the body",
            "accept(\"any\", _)\nviolation[{\"msg\": \"rejected\"}] {\n  not accept(\"any\", input.parameters.missing)\n}",
            json!({}),
            vec![],
        ),
        (
            "not f(x, defined) still negates",
            "accept(\"any\", _)\nviolation[{\"msg\": \"rejected\"}] {\n  not accept(\"other\", input.parameters.value)\n}",
            json!({"value": 1}),
            vec!["rejected"],
        ),
        (
            "not of an undefined ref is still true",
            "violation[{\"msg\": \"missing\"}] {\n  not input.parameters.missing\n}",
            json!({}),
            vec!["missing"],
        ),
    ];
    for (name, rules, parameters, want) in cases {
        let t = template_with(&format!("package k8sbroken\n\n{rules}\n")).unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = t
            .violations(
                &review_for(&pod(None, "p", json!({}), "x")),
                &parameters,
                None,
                Limits::default(),
                Engine::Rego,
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<&str> = got.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(got, want, "{name}");
    }
}

/// What OPA rejects stays rejected: `else` on a set rule, whitespace before `(` on one line.
#[test]
fn opa_fidelity_errors() {
    let cases = [
        (
            "else on a set rule",
            "violation[{\"msg\": \"a\"}] {\n  false\n} else {\n  true\n}",
            "else cannot be used with set rules",
        ),
        (
            "space before ( on one line",
            "violation[{\"msg\": msg}] {\n  msg := sprintf (\"x\", [])\n}",
            "k8sbroken:spec.targets[0].rego:3:",
        ),
    ];
    for (name, rules, want) in cases {
        let err = template_with(&format!("package k8sbroken\n\n{rules}\n")).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains(want), "{name}: {err}");
    }
}

/// gator verify's rules beyond assertions (pkg/gator/verify/runner.go): `expansion:`,
/// cases without object or assertions, a skipped suite, and gator's failure wording.
#[test]
fn suite_runner_follows_gator() {
    let deployment = json!({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "d", "namespace": "default"},
        "spec": {"template": {"metadata": {"labels": {}}, "spec": {"containers": [{"name": "c", "image": "bad/x"}]}}}
    });
    let expansion = r#"
apiVersion: expansion.gatekeeper.sh/v1alpha1
kind: ExpansionTemplate
metadata:
  name: expand-deployments
spec:
  applyTo:
  - groups: ["apps"]
    kinds: ["Deployment"]
    versions: ["v1"]
  templateSource: "spec.template"
  generatedGVK:
    kind: "Pod"
    group: ""
    version: "v1"
"#;
    let fs = MemFs(BTreeMap::from([
        ("template.yaml", REPOS_TEMPLATE.to_string()),
        ("constraint.yaml", constraint("")),
        ("expansion.yaml", expansion.to_string()),
        ("not-expansion.yaml", constraint("")),
        ("deployment.yaml", serde_yaml::to_string(&deployment).unwrap()),
        ("bad.yaml", serde_yaml::to_string(&pod(None, "p", json!({}), "bad/x")).unwrap()),
    ]));
    let suite = |body: &str| format!("kind: Suite\napiVersion: test.gatekeeper.sh/v1alpha1\n{body}");
    let run = |body: &str| -> Vec<(String, Outcome)> {
        run_suite(&suite(body), "suite.yaml", &fs, RunOptions::default())
            .unwrap()
            .into_iter()
            .map(|r| (r.case, r.outcome))
            .collect()
    };
    let fail = |m: &str| Outcome::Fail(m.to_string());
    // (name, suite body, want (case, outcome))
    type Row<'a> = (&'a str, &'a str, Vec<(&'a str, Outcome)>);
    let cases: Vec<Row> = vec![
        (
            "expansion reviews the generated Pod",
            "tests:\n- name: t\n  template: template.yaml\n  constraint: constraint.yaml\n  expansion: expansion.yaml\n  cases:\n  - name: deploy\n    object: deployment.yaml\n    assertions:\n    - violations: 1\n      message: \"Implied by expand-deployments\"\n",
            vec![("deploy", Outcome::Pass)],
        ),
        (
            "without expansion nothing is expanded",
            "tests:\n- name: t\n  template: template.yaml\n  constraint: constraint.yaml\n  cases:\n  - name: deploy\n    object: deployment.yaml\n    assertions:\n    - violations: no\n",
            vec![("deploy", Outcome::Pass)],
        ),
        (
            "an expansion file of other objects fails the test",
            "tests:\n- name: t\n  template: template.yaml\n  constraint: constraint.yaml\n  expansion: not-expansion.yaml\n  cases:\n  - name: deploy\n    object: deployment.yaml\n    assertions:\n    - violations: no\n",
            vec![("deploy", fail("not an Expansion Template: not-expansion.yaml: K8sAllowedRepos repos (not-expansion.yaml document 1)"))],
        ),
        (
            "a case without assertions fails",
            "tests:\n- name: t\n  template: template.yaml\n  constraint: constraint.yaml\n  cases:\n  - name: none\n    object: bad.yaml\n",
            vec![("none", fail("invalid Case: assertions must be non-empty"))],
        ),
        (
            "a case without object fails",
            "tests:\n- name: t\n  template: template.yaml\n  constraint: constraint.yaml\n  cases:\n  - name: none\n    assertions: [{violations: no}]\n",
            vec![("none", fail("invalid Case: must define object"))],
        ),
        (
            "a skipped suite runs nothing",
            "skip: true\ntests:\n- name: t\n  template: missing.yaml\n  constraint: constraint.yaml\n  cases:\n  - name: c\n    object: bad.yaml\n",
            vec![("c", Outcome::Skip)],
        ),
        (
            "gator's words for a count with a message",
            "tests:\n- name: t\n  template: template.yaml\n  constraint: constraint.yaml\n  cases:\n  - name: c\n    object: bad.yaml\n    assertions: [{violations: 2, message: repo}]\n",
            vec![("c", fail("assertion 1: unexpected number of violations: got 1 violations containing \"repo\" but want exactly 2: got messages [container <c> has an invalid image repo <bad/x>]"))],
        ),
    ];
    for (name, body, want) in cases {
        let got = run(body);
        let want: Vec<(String, Outcome)> = want.into_iter().map(|(c, o)| (c.to_string(), o)).collect();
        assert_eq!(got, want, "{name}");
    }
}

/// The optional builtin groups (features `gatekeeper-net`, `gatekeeper-yaml`,
/// `gatekeeper-time`; the CLI has all three, the policy module and the playground net and
/// yaml): each reached from a `violation` rule, with OPA's results.
#[cfg(any(feature = "gatekeeper-net", feature = "gatekeeper-yaml", feature = "gatekeeper-time"))]
#[test]
fn extra_builtins() {
    let mut cases: Vec<(&str, &str, Vec<&str>)> = Vec::new();
    if cfg!(feature = "gatekeeper-net") {
        cases.push((
            "net.cidr_contains inside",
            "net.cidr_contains(\"10.0.0.0/8\", \"10.1.2.3\")\n  msg := \"in\"",
            vec!["in"],
        ));
        cases.push((
            "net.cidr_contains outside",
            "not net.cidr_contains(\"10.0.0.0/8\", \"192.168.0.1\")\n  msg := \"out\"",
            vec!["out"],
        ));
    }
    if cfg!(feature = "gatekeeper-time") {
        cases.push(("time.now_ns after 2020", "time.now_ns() > 1577836800000000000\n  msg := \"now\"", vec!["now"]));
    }
    if cfg!(feature = "gatekeeper-yaml") {
        cases.push(("yaml.marshal", "msg := yaml.marshal({\"a\": [1]})", vec!["a:\n- 1\n"]));
        cases.push(("yaml.unmarshal", "yaml.unmarshal(\"b: 2\").b == 2\n  msg := \"two\"", vec!["two"]));
    }
    for (name, body, want) in cases {
        let t = template_with(&format!("package k8sbroken\n\nviolation[{{\"msg\": msg}}] {{\n  {body}\n}}\n"))
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got = t
            .violations(
                &review_for(&pod(None, "p", json!({}), "x")),
                &Value::Null,
                None,
                Limits::default(),
                Engine::Rego,
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let got: Vec<&str> = got.iter().map(|(m, _)| m.as_str()).collect();
        assert_eq!(got, want, "{name}");
    }
}

#[cfg(feature = "gatekeeper-cel")]
fn cel_template(source: &str) -> Result<Template, GatekeeperError> {
    let indented: String = source.lines().map(|l| format!("        {l}\n")).collect();
    let text = format!(
        "apiVersion: templates.gatekeeper.sh/v1\nkind: ConstraintTemplate\nmetadata:\n  name: k8scel\nspec:\n  crd:\n    spec:\n      names:\n        kind: K8sCel\n  targets:\n  - target: admission.k8s.gatekeeper.sh\n    code:\n    - engine: K8sNativeValidation\n      source:\n{indented}"
    );
    Template::from_value(&yaml(&text))
}

/// Gatekeeper's CEL environment and VAP message rules (pkg/drivers/k8scel).
#[cfg(feature = "gatekeeper-cel")]
#[test]
fn cel_templates() {
    let review = review_for(&pod(Some("prod"), "web", json!({"app": "web"}), "nginx:latest"));
    let mut delete = review.clone();
    delete["operation"] = json!("DELETE");
    delete["oldObject"] = delete["object"].clone();
    let cases: Vec<(&str, &str, Value, &Value, Vec<&str>)> = vec![
        (
            "messageExpression with variables.anyObject and variables.params",
            "validations:\n- expression: \"variables.anyObject.spec.containers.all(c, !c.image.endsWith(':' + variables.params.tag))\"\n  messageExpression: \"'no ' + variables.params.tag + ': ' + variables.anyObject.metadata.name\"",
            json!({"tag": "latest"}),
            &review,
            vec!["no latest: web"],
        ),
        ("static message", "validations:\n- expression: \"false\"\n  message: \"always\"", json!({}), &review, vec!["always"]),
        ("no message", "validations:\n- expression: \"1 == 2\"", json!({}), &review, vec!["failed expression: 1 == 2"]),
        (
            "an empty messageExpression falls back to message",
            "validations:\n- expression: \"false\"\n  message: \"static\"\n  messageExpression: \"''\"",
            json!({}),
            &review,
            vec!["static"],
        ),
        (
            "template variables see earlier ones",
            "variables:\n- name: images\n  expression: \"variables.anyObject.spec.containers.map(c, c.image)\"\n- name: latest\n  expression: \"variables.images.filter(i, i.endsWith(':latest'))\"\nvalidations:\n- expression: \"size(variables.latest) == 0\"\n  messageExpression: \"variables.latest.join(', ')\"",
            json!({}),
            &review,
            vec!["nginx:latest"],
        ),
        (
            "params is the constraint, variables.params its parameters",
            "validations:\n- expression: \"params.spec.parameters.n != variables.params.n\"",
            json!({"n": 1}),
            &review,
            vec!["failed expression: params.spec.parameters.n != variables.params.n"],
        ),
        (
            "variables.params is null without parameters",
            "validations:\n- expression: \"variables.params != null\"\n  message: \"no params\"",
            Value::Null,
            &review,
            vec!["no params"],
        ),
        (
            "DELETE: object is null, anyObject the old object",
            "validations:\n- expression: \"object != null || variables.anyObject.metadata.name != 'web'\"\n  message: \"deleting web\"",
            json!({}),
            &delete,
            vec!["deleting web"],
        ),
        (
            "request fields",
            "validations:\n- expression: \"!has(request.operation) || request.operation != 'DELETE'\"\n  message: \"delete\"",
            json!({}),
            &delete,
            vec!["delete"],
        ),
        (
            "matchConditions gate the validations",
            "matchConditions:\n- name: only-prod\n  expression: \"object.metadata.namespace == 'dev'\"\nvalidations:\n- expression: \"false\"",
            json!({}),
            &review,
            vec![],
        ),
        (
            "an evaluation error is a violation (failure policy Fail)",
            "validations:\n- expression: \"object.spec.missing == 1\"",
            json!({}),
            &review,
            vec!["expression 'object.spec.missing == 1' resulted in error: "],
        ),
        (
            "strings extension: lowerAscii, replace, split",
            "validations:\n- expression: \"'A-B'.lowerAscii().replace('-', '.').split('.').size() == 3\"",
            json!({}),
            &review,
            vec!["failed expression: 'A-B'.lowerAscii().replace('-', '.').split('.').size() == 3"],
        ),
    ];
    for (name, source, parameters, review, want) in cases {
        let t = cel_template(source).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(t.engine(true), Some(Engine::K8sNativeValidation), "{name}");
        assert_eq!(t.engine(false), None, "{name}: a CEL-only template has no Rego");
        let got = t
            .violations(review, &parameters, None, Limits::default(), Engine::K8sNativeValidation)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(got.len(), want.len(), "{name}: {got:?}");
        for ((msg, details), want) in got.iter().zip(&want) {
            assert!(msg.starts_with(want), "{name}: {msg:?} does not start with {want:?}");
            assert_eq!(details, &Value::Null, "{name}");
        }
    }
}

#[cfg(feature = "gatekeeper-cel")]
#[test]
fn cel_template_errors_name_template_and_field() {
    let cases = [
        (
            "syntax",
            "validations:\n- expression: \"1 +\"",
            "ConstraintTemplate k8scel: spec.targets[0].code[0].source.validations[0].expression:",
        ),
        (
            "no validations",
            "variables: []",
            "spec.targets[0].code[0].source.validations: at least one validation is required",
        ),
        (
            "reserved variable",
            "variables:\n- name: params\n  expression: \"1\"\nvalidations:\n- expression: \"true\"",
            "\"params\" is reserved by Gatekeeper",
        ),
    ];
    for (name, source, want) in cases {
        let err = cel_template(source).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains(want), "{name}: {err}");
    }
    // gator with --enable-k8s-native-validation=false cannot use a CEL-only template.
    let mut set = PolicySet { k8s_native_validation: false, ..PolicySet::default() };
    let err = set.add_template(cel_template("validations:\n- expression: \"true\"").unwrap()).unwrap_err();
    assert!(err.to_string().contains("no Rego code, and K8sNativeValidation (CEL) is disabled"), "{err}");
}

/// CEL has no loops, but nested comprehensions over literal lists multiply: 10^9 iterations
/// here. The work counter in every comprehension stops it at the time limit.
#[cfg(feature = "gatekeeper-cel")]
#[test]
fn hostile_cel_is_stopped_by_the_time_limit() {
    let list = format!("[{}]", (0..1000).map(|i| i.to_string()).collect::<Vec<_>>().join(","));
    let source = format!("validations:\n- expression: \"{list}.all(a, {list}.all(b, {list}.all(c, a + b + c >= 0)))\"");
    let t = cel_template(&source).expect("compiles");
    let start = Instant::now();
    let limits = Limits { time: Some(Duration::from_millis(200)), work: None };
    let err = t
        .violations(
            &review_for(&pod(None, "p", json!({}), "x")),
            &Value::Null,
            None,
            limits,
            Engine::K8sNativeValidation,
        )
        .unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(20), "took {:?}", start.elapsed());
    assert!(
        matches!(&err, EvalError::TimeLimitExceeded { limit, .. } if *limit == Duration::from_millis(200)),
        "{err:?}"
    );
    assert!(err.is_limit_exceeded());
}
