//! Component tests: the real app mounted in headless Chromium (wasm-bindgen-test), driven
//! through the DOM as a user would.

use std::time::Duration;

use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;
use web_sys::{Element, HtmlElement, HtmlTextAreaElement};

wasm_bindgen_test_configure!(run_in_browser);

/// Lets Leptos run its effects (scheduled as microtasks) and the DOM settle.
async fn settle() {
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        leptos::prelude::set_timeout(
            move || drop(resolve.call0(&wasm_bindgen::JsValue::NULL)),
            Duration::from_millis(20),
        );
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
}

/// Waits (up to two seconds) until `done` holds.
async fn until(what: &str, done: impl Fn() -> bool) {
    for _ in 0..100 {
        if done() {
            return;
        }
        settle().await;
    }
    panic!("waited two seconds for {what}");
}

fn document() -> web_sys::Document {
    web_sys::window().unwrap().document().unwrap()
}

/// Mounts the app into a fresh container, with `fragment` as the URL fragment, as a browser
/// without saved work opens it (the tests share one page, and so its localStorage).
fn mount(fragment: &str) -> Element {
    let w = web_sys::window().unwrap();
    w.local_storage().unwrap().unwrap().clear().unwrap();
    let url = format!("{}#{fragment}", w.location().href().unwrap().split('#').next().unwrap());
    w.history().unwrap().replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url)).unwrap();
    let host = document().create_element("div").unwrap();
    document().body().unwrap().append_child(&host).unwrap();
    let handle = leptos::mount::mount_to(host.clone().unchecked_into(), placement_web::App);
    handle.forget();
    host
}

fn all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).unwrap();
    (0..list.length()).filter_map(|i| list.item(i)).filter_map(|n| n.dyn_into::<Element>().ok()).collect()
}

fn one(root: &Element, selector: &str) -> Element {
    root.query_selector(selector).unwrap().unwrap_or_else(|| panic!("no element matches {selector}"))
}

fn click(e: &Element) {
    e.clone().dyn_into::<HtmlElement>().unwrap().click();
}

fn text(e: &Element) -> String {
    e.text_content().unwrap_or_default()
}

fn button_with_text(root: &Element, selector: &str, label: &str) -> Element {
    all(root, selector)
        .into_iter()
        .find(|b| text(b).contains(label))
        .unwrap_or_else(|| panic!("no {selector} with text {label:?}"))
}

fn desired_current(root: &Element) -> (String, String) {
    (text(&one(root, "td[data-col=desired]")), text(&one(root, "td[data-col=current]")))
}

#[wasm_bindgen_test]
async fn daemonset_example_blocks_the_tainted_node_and_the_fix_covers_it() {
    let root = mount("example=daemonset-tainted-pool");
    settle().await;
    assert_eq!(desired_current(&root), ("1".into(), "1".into()));

    let blocked = one(&root, "td.blocked button[data-node='aks-nodepool2-27182818-vmss000000']");
    let title = blocked.get_attribute("title").unwrap();
    assert!(title.contains("TaintToleration") && title.contains("testkey"), "{title}");
    let fits = one(&root, "td.fit button[data-node='aks-nodepool1-31415926-vmss000000']");
    assert!(fits.get_attribute("title").unwrap().contains("score"), "scores on hover");

    click(&blocked);
    settle().await;
    let detail = one(&root, ".detail");
    assert!(text(&detail).contains("untolerated taint {testkey: palotest}"), "{}", text(&detail));
    // The verdicts come first; the fix is re-checked once the page is idle, then applicable.
    let results = one(&root, "#results");
    assert_eq!(results.get_attribute("data-fixes").as_deref(), Some("checking"));
    assert!(text(&one(&root, ".detail")).contains("checking…"), "{}", text(&one(&root, ".detail")));
    assert!(all(&root, ".detail button").iter().all(|b| !text(b).contains("Apply to manifest")));
    until("the fixes to be verified", || results.get_attribute("data-fixes").as_deref() == Some("verified")).await;
    assert!(text(&one(&root, ".detail")).contains("verified"));
    click(&button_with_text(&root, ".detail button", "Apply to manifest"));
    settle().await;

    assert_eq!(desired_current(&root), ("2".into(), "2".into()));
    assert!(all(&root, "td.blocked").is_empty());
    let workloads: HtmlTextAreaElement = one(&root, "#workloads-text").dyn_into().unwrap();
    assert!(workloads.value().contains("key: testkey"), "{}", workloads.value());
    root.remove();
}

#[wasm_bindgen_test]
async fn typing_an_error_marks_its_line_and_keeps_the_last_result() {
    let root = mount("example=daemonset-tainted-pool");
    settle().await;
    let area: HtmlTextAreaElement = one(&root, "#workloads-text").dyn_into().unwrap();
    let broken = area.value().replace("cpu: 250m", "cpu: lots");
    let line = broken.lines().position(|l| l.contains("cpu: lots")).unwrap() + 1;
    area.set_value(&broken);
    area.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    settle().await;

    assert_eq!(area.get_attribute("aria-invalid").as_deref(), Some("true"));
    let error = text(&one(&root, "#workloads-errors"));
    assert!(error.contains(&format!("line {line}")) && error.contains("requests.cpu"), "{error}");
    assert_eq!(all(&root, ".editor .mark").len(), 1);
    assert!(one(&root, "#results").class_list().contains("stale"));
    // The last valid result stays visible.
    assert_eq!(desired_current(&root), ("1".into(), "1".into()));
    root.remove();
}

#[wasm_bindgen_test]
async fn a_typo_is_a_warning_at_its_line_and_the_result_stays_live() {
    let root = mount("example=daemonset-tainted-pool");
    settle().await;
    let area: HtmlTextAreaElement = one(&root, "#workloads-text").dyn_into().unwrap();
    let typo = area.value().replacen("      hostNetwork: true\n", "      hostNetwork: true\n      toleration: []\n", 1);
    let line = typo.lines().position(|l| l.contains("toleration: []")).unwrap() + 1;
    area.set_value(&typo);
    area.dispatch_event(&web_sys::Event::new("input").unwrap()).unwrap();
    settle().await;
    // The verdicts first; the strict check (a second scan of the text) once typing pauses.
    if all(&root, "#workloads-errors li.warning").is_empty() {
        assert!(text(&root).contains("Checking fields…"), "marked while pending");
    }
    until("the strict check's warning", || !all(&root, "#workloads-errors li.warning").is_empty()).await;
    assert!(!text(&root).contains("Checking fields…"));

    assert_eq!(area.get_attribute("aria-invalid").as_deref(), Some("false"), "a warning is no error");
    let warning = text(&one(&root, "#workloads-errors li.warning"));
    assert!(warning.contains(&format!("line {line}, spec.template.spec.toleration")), "{warning}");
    assert!(warning.contains("warning: DaemonSet twistlock/twistlock-defender-ds"), "{warning}");
    assert!(warning.contains("did you mean `tolerations`?"), "{warning}");
    assert_eq!(all(&root, ".editor .mark.warning").len(), 1);
    assert!(!one(&root, "#results").class_list().contains("stale"), "simulated anyway");
    assert_eq!(desired_current(&root), ("1".into(), "1".into()));
    root.remove();
}

#[wasm_bindgen_test]
async fn node_table_edits_reach_the_simulation() {
    let root = mount("example=daemonset-tainted-pool");
    settle().await;
    click(&one(&root, "#tab-table"));
    settle().await;
    let taints = one(&root, "input[aria-label='Taints of aks-nodepool2-27182818-vmss000000']");
    let input: web_sys::HtmlInputElement = taints.dyn_into().unwrap();
    assert_eq!(input.value(), "testkey=palotest:NoSchedule");
    input.set_value("<none>");
    input.dispatch_event(&web_sys::Event::new("change").unwrap()).unwrap();
    settle().await;
    assert_eq!(desired_current(&root), ("2".into(), "2".into()));
    root.remove();
}

#[wasm_bindgen_test]
async fn a_pool_action_adds_a_what_if_command_and_the_panel_shows_its_outcome() {
    let root = mount("example=cluster-snapshot");
    settle().await;
    click(&one(&root, "#tab-pools"));
    settle().await;
    let checkbox = |root: &Element| -> web_sys::HtmlInputElement {
        all(&one(root, "li.pool[data-pool='user']"), "input[type=checkbox]").remove(0).dyn_into().unwrap()
    };
    // Untick --ignore-daemonsets: kubectl refuses the node's DaemonSet pods, and evicts none.
    let ignore = checkbox(&root);
    assert!(ignore.checked(), "--ignore-daemonsets is ticked by default");
    ignore.click();
    settle().await;
    click(&one(&root, "li.pool[data-pool='user'] button[aria-label='Drain pool user']"));
    settle().await;
    let panel = one(&root, ".what-if");
    assert!(text(&panel).contains("$ kubectl drain -l kubernetes.azure.com/agentpool=user"), "{}", text(&panel));
    let refused = text(&one(&panel, "pre.refused"));
    assert!(refused.contains("cannot delete DaemonSet-managed Pods"), "{refused}");
    assert!(all(&panel, "table.evicted").is_empty(), "nothing is evicted from a refused node");
    assert!(!checkbox(&root).checked(), "the pool's options survive the re-render");
    click(&button_with_text(&panel, "button", "Clear all commands"));
    settle().await;
    assert!(root.query_selector(".what-if").unwrap().is_none());
    root.remove();
}

#[wasm_bindgen_test]
async fn embed_mode_is_compact_and_read_only() {
    let root = mount("embed&example=gpu-pool");
    settle().await;
    assert!(root.query_selector("textarea").unwrap().is_none(), "no editors in embed mode");
    assert!(root.query_selector(".matrix").unwrap().is_some());
    assert!(all(&root, ".matrix td.cell button").iter().all(|b| b.has_attribute("disabled")));
    assert!(root.query_selector(".apply").unwrap().is_none());
    root.remove();
}

#[wasm_bindgen_test]
async fn evaluation_of_200_nodes_and_20_workloads_is_timed() {
    let json = placement_web::browser::bench(200, 20, 3);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["ok"], true);
    assert!(v["medianMs"].as_f64().unwrap() > 0.0);
    web_sys::console::log_1(&format!("placementBench(200, 20): {json}").into());
}

#[wasm_bindgen_test]
async fn a_cell_opens_its_breakdown_plugin_by_plugin() {
    let root = mount("example=gpu-pool");
    settle().await;
    let row =
        all(&root, ".matrix tbody tr").into_iter().find(|r| text(r).contains("Deployment")).expect("a Deployment row");
    click(&one(&row, "td.fit button"));
    // Computed after the frame: "checking…" first, then the tables.
    until("the breakdown", || !all(&root, ".detail table.breakdown.scores").is_empty()).await;
    let filters = all(&root, ".detail table.breakdown.filters tbody tr");
    let names: Vec<String> = filters.iter().map(|r| r.get_attribute("data-plugin").unwrap_or_default()).collect();
    assert_eq!(
        names,
        [
            "NodeUnschedulable",
            "NodeName",
            "TaintToleration",
            "NodeAffinity",
            "NodePorts",
            "NodeResourcesFit",
            "VolumeRestrictions",
            "NodeVolumeLimits",
            "VolumeBinding",
            "VolumeZone",
            "PodTopologySpread",
            "InterPodAffinity"
        ]
    );
    let scores = one(&root, ".detail table.breakdown.scores");
    let weighted: i64 = all(&scores, "td.weighted").iter().map(|c| text(c).parse::<i64>().unwrap()).sum();
    let total: i64 = text(&one(&scores, "td.total")).parse().unwrap();
    assert_eq!(weighted, total, "the total is the weighted sum");
    let score = text(&one(&root, ".detail dd.score"));
    assert!(score.starts_with(&format!("{total} ")), "the matrix's score: {score}");
    assert!(text(&one(&scores, "td.rank")).starts_with("rank "), "{}", text(&scores));
    // Each plugin name links to the glossary.
    assert_eq!(all(&scores, "tbody .plugin-link").len(), 6);
    root.remove();
}
