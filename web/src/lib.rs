//! `placement-web`: the browser playground. The same `placement-core` the CLI uses runs in
//! the page (compiled to WebAssembly); nothing is sent anywhere.
//!
//! - [`state`]: the playground as a plain value with methods (no DOM), from
//!   `placement-playground`, where it is tested with `cargo test`;
//! - [`app`]: thin Leptos components over it;
//! - [`browser`]: the clock, URL, clipboard and theme calls.

pub mod app;
pub mod browser;
pub use placement_playground::state;

pub use app::App;

/// Mounts the playground on `<body>` and installs the debug hook (`window.placementBench`).
pub fn start() {
    console_error_panic_hook::set_once();
    browser::install_debug_hook();
    // index.html's "Loading the playground" line, shown while the module downloaded.
    if let Some(loading) = web_sys::window().and_then(|w| w.document()).and_then(|d| d.get_element_by_id("loading")) {
        loading.remove();
    }
    leptos::mount::mount_to_body(App);
}
