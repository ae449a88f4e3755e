//! The few browser calls the playground makes: the clock, the URL, the clipboard, the theme
//! and the debug hook. Nothing here talks to the network.

use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use placement_playground::evaluation;

/// `performance.now()` in milliseconds (0 where there is no `performance`).
pub fn now_ms() -> f64 {
    web_sys::window().and_then(|w| w.performance()).map(|p| p.now()).unwrap_or(0.0)
}

/// `location.hash` without the `#`, and `location.search`.
pub fn location_parts() -> (String, String) {
    let Some(loc) = web_sys::window().map(|w| w.location()) else { return (String::new(), String::new()) };
    (loc.hash().unwrap_or_default(), loc.search().unwrap_or_default())
}

/// The page's address without the fragment.
pub fn base_url() -> String {
    let Some(loc) = web_sys::window().map(|w| w.location()) else { return String::new() };
    let href = loc.href().unwrap_or_default();
    match href.split_once('#') {
        Some((base, _)) => base.to_string(),
        None => href,
    }
}

/// Puts `fragment` in the address bar without a reload or a history entry per edit.
pub fn replace_fragment(fragment: &str) {
    let Some(w) = web_sys::window() else { return };
    if let Ok(history) = w.history() {
        let url = format!("{}#{fragment}", base_url());
        let _ = history.replace_state_with_url(&JsValue::NULL, "", Some(&url));
    }
}

/// Copies `text` to the clipboard; calls `done(true)` when it worked.
pub fn copy_text(text: String, done: impl FnOnce(bool) + 'static) {
    let Some(w) = web_sys::window() else { return done(false) };
    let promise = w.navigator().clipboard().write_text(&text);
    leptos::task::spawn_local(async move {
        let ok = wasm_bindgen_futures::JsFuture::from(promise).await.is_ok();
        done(ok);
    });
}

/// The work autosaved in this browser's localStorage, if any (storage may be off, as on
/// `file://` pages or in private windows).
pub fn load_saved() -> Option<String> {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(placement_playground::state::SAVE_KEY).ok().flatten())
}

/// Autosaves `json` (best effort: a full or disabled storage only loses the autosave).
pub fn save(json: &str) {
    if let Some(storage) = web_sys::window().and_then(|w| w.local_storage().ok().flatten()) {
        let _ = storage.set_item(placement_playground::state::SAVE_KEY, json);
    }
}

/// True when a key event's target types text itself (its own undo applies there).
pub fn in_text_field(e: &web_sys::KeyboardEvent) -> bool {
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .is_some_and(|el| matches!(el.tag_name().as_str(), "TEXTAREA" | "INPUT" | "SELECT"))
}

pub const THEME_KEY: &str = "placement-theme";

/// The saved theme choice (`light`, `dark`, or `auto`), if storage is available.
pub fn saved_theme() -> String {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .and_then(|s| s.get_item(THEME_KEY).ok().flatten())
        .filter(|t| t == "light" || t == "dark")
        .unwrap_or_else(|| "auto".into())
}

/// Applies the theme to `<html data-theme>` and remembers it (best effort: storage may be
/// off, as on `file://` pages).
pub fn apply_theme(theme: &str) {
    let Some(w) = web_sys::window() else { return };
    if let Some(root) = w.document().and_then(|d| d.document_element()) {
        if theme == "auto" {
            let _ = root.remove_attribute("data-theme");
        } else {
            let _ = root.set_attribute("data-theme", theme);
        }
    }
    if let Some(storage) = w.local_storage().ok().flatten() {
        let _ = if theme == "auto" { storage.remove_item(THEME_KEY) } else { storage.set_item(THEME_KEY, theme) };
    }
}

/// Whether the page is dark right now (explicit choice or the system's).
pub fn system_prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// Moves the caret of `textarea` to the start of 1-based `line`, selects the line and
/// scrolls it into view.
pub fn focus_line(textarea: &web_sys::HtmlTextAreaElement, line: usize, line_height: f64) {
    let text = textarea.value();
    let mut start = 0usize;
    for (i, l) in text.split('\n').enumerate() {
        if i + 1 == line {
            let end = start + l.encode_utf16().count();
            let _ = textarea.focus();
            let _ = textarea.set_selection_range(start as u32, end as u32);
            let top = (line.saturating_sub(1) as f64) * line_height - f64::from(textarea.client_height()) / 3.0;
            textarea.set_scroll_top(top.max(0.0) as i32);
            return;
        }
        start += l.encode_utf16().count() + 1;
    }
}

/// Times the evaluation of a synthetic cluster: `window.placementBench(nodes, workloads, runs)`
/// returns JSON with every run's milliseconds: `runsMs` the evaluation an edit waits for
/// (`Evaluation::unverified`: parse, simulate, views), `verifyRunsMs` the re-check of its
/// fixes that follows once typing pauses. A debug hook for BENCHMARKS.md, not UI.
pub fn bench(nodes: u32, workloads: u32, runs: u32) -> String {
    let mut state = evaluation::synthetic(nodes as usize, workloads as usize);
    let mut times = Vec::new();
    let mut verify_times = Vec::new();
    let mut ok = true;
    for i in 0..runs.max(1) {
        // An edit, as a user would make: a different replica count each run.
        state.workloads = state.workloads.replacen("replicas: 10", &format!("replicas: {}", 10 + (i % 2)), 1);
        let start = now_ms();
        let eval = evaluation::Evaluation::unverified(&state);
        times.push(now_ms() - start);
        ok &= eval.is_ok();
        let start = now_ms();
        let eval = eval.with_verified_fixes();
        verify_times.push(now_ms() - start);
        ok &= eval.fixes_verified();
    }
    let stats = |times: &[f64]| {
        let mut sorted = times.to_vec();
        sorted.sort_by(|a, b| a.total_cmp(b));
        (sorted[sorted.len() / 2], sorted[0], sorted[sorted.len() - 1])
    };
    let (median, min, max) = stats(&times);
    let (verify_median, _, _) = stats(&verify_times);
    serde_json::json!({
        "nodes": nodes, "workloads": workloads, "ok": ok,
        "runsMs": times, "medianMs": median, "minMs": min, "maxMs": max,
        "verifyRunsMs": verify_times, "verifyMedianMs": verify_median,
    })
    .to_string()
}

/// The synthetic cluster `placementBench` times, as the editors' texts:
/// `window.placementSynthetic(nodes, workloads)` returns `{"nodes": .., "workloads": ..}` so a
/// test can paste it and time whole edits (evaluation and rendering). A debug hook, not UI.
pub fn synthetic(nodes: u32, workloads: u32) -> String {
    let state = evaluation::synthetic(nodes as usize, workloads as usize);
    serde_json::json!({ "nodes": state.nodes, "workloads": state.workloads }).to_string()
}

/// Installs `window.placementBench` and `window.placementSynthetic`.
pub fn install_debug_hook() {
    let Some(w) = web_sys::window() else { return };
    let f = Closure::<dyn Fn(u32, u32, u32) -> String>::new(bench);
    let _ = js_sys::Reflect::set(&w, &JsValue::from_str("placementBench"), f.as_ref().unchecked_ref());
    f.forget();
    let f = Closure::<dyn Fn(u32, u32) -> String>::new(synthetic);
    let _ = js_sys::Reflect::set(&w, &JsValue::from_str("placementSynthetic"), f.as_ref().unchecked_ref());
    f.forget();
}

#[wasm_bindgen(module = "/src/admission.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = review)]
    async fn admission_module_review(request: &str) -> Result<JsValue, JsValue>;
}

/// Sends a `ReviewRequest` (JSON) to the admission module, loading it on first use from the
/// page's own origin, and returns its `ReviewResponse` (JSON).
pub async fn review_admission(request: String) -> Result<String, String> {
    match admission_module_review(&request).await {
        Ok(v) => v.as_string().ok_or_else(|| "the admission module answered with no text".to_string()),
        Err(e) => Err(e.as_string().or_else(|| js_sys::Error::from(e).message().as_string()).unwrap_or_default()),
    }
}

/// Saves `d` as a file: a Blob behind a link with `download`, clicked (nothing leaves the page).
pub fn download(d: &placement_playground::export::Download) -> Result<(), String> {
    let fail = |e: JsValue| format!("the browser refused the download: {e:?}");
    let parts = js_sys::Array::of1(&JsValue::from_str(&d.text));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type(d.mime);
    let blob = web_sys::Blob::new_with_str_sequence_and_options(&parts, &options).map_err(fail)?;
    let url = web_sys::Url::create_object_url_with_blob(&blob).map_err(fail)?;
    let document = web_sys::window().and_then(|w| w.document()).ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document.create_element("a").map_err(fail)?.unchecked_into();
    a.set_href(&url);
    a.set_download(&d.file_name);
    a.click();
    let _ = web_sys::Url::revoke_object_url(&url);
    Ok(())
}

/// The files of a picker or a drop, taken out of the live `FileList` (which empties when the
/// picker is reset).
pub fn files_of(list: &web_sys::FileList) -> Vec<web_sys::File> {
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Reads the files (picked or dropped) as text, in order: `(name, text)`.
pub async fn read_files(files: Vec<web_sys::File>) -> Result<Vec<(String, String)>, String> {
    let mut out = Vec::new();
    for file in files {
        let text = wasm_bindgen_futures::JsFuture::from(file.text())
            .await
            .map_err(|e| format!("could not read {}: {e:?}", file.name()))?;
        out.push((file.name(), text.as_string().unwrap_or_default()));
    }
    Ok(out)
}

/// Focuses the element of the first of `selectors` that matches, once the page has
/// re-rendered (after an action that removes the focused element).
pub fn focus_after_render(selectors: &'static [&'static str]) {
    leptos::prelude::set_timeout(
        move || {
            let Some(document) = web_sys::window().and_then(|w| w.document()) else { return };
            let found = selectors.iter().find_map(|s| document.query_selector(s).ok().flatten());
            if let Some(el) = found.and_then(|e| e.dyn_into::<web_sys::HtmlElement>().ok()) {
                let _ = el.focus();
            }
        },
        std::time::Duration::ZERO,
    );
}

/// A signal that is true while the element of `node` is on the screen or within `margin` of
/// it (an `IntersectionObserver`), for views that need not follow edits while out of sight.
/// True until the observer first reports, and always where there is no observer.
pub fn near_viewport<E>(node: leptos::prelude::NodeRef<E>, margin: &'static str) -> leptos::prelude::RwSignal<bool>
where
    E: leptos::html::ElementType + 'static,
    E::Output: JsCast + Clone + 'static,
{
    use leptos::prelude::*;
    let near = RwSignal::new(true);
    let observer = StoredValue::new_local(None::<(web_sys::IntersectionObserver, Closure<dyn FnMut(js_sys::Array)>)>);
    Effect::new(move |_| {
        let Some(el) = node.get() else { return };
        let Ok(el) = el.dyn_into::<web_sys::Element>() else { return };
        let on_change = Closure::<dyn FnMut(js_sys::Array)>::new(move |entries: js_sys::Array| {
            // The last entry is the element's latest state.
            if let Some(entry) =
                entries.iter().last().and_then(|e| e.dyn_into::<web_sys::IntersectionObserverEntry>().ok())
            {
                let now = entry.is_intersecting();
                if near.get_untracked() != now {
                    near.set(now);
                }
            }
        });
        let init = web_sys::IntersectionObserverInit::new();
        init.set_root_margin(margin);
        let Ok(obs) = web_sys::IntersectionObserver::new_with_options(on_change.as_ref().unchecked_ref(), &init) else {
            return;
        };
        obs.observe(&el);
        observer.update_value(|o| {
            if let Some((old, _)) = o.take() {
                old.disconnect();
            }
            *o = Some((obs, on_change));
        });
    });
    on_cleanup(move || {
        observer.update_value(|o| {
            if let Some((obs, _)) = o.take() {
                obs.disconnect();
            }
        })
    });
    near
}
