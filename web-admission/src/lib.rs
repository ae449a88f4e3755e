//! The playground's admission module (see `placement_playground::policy_panel`): one function, a
//! review request in JSON and the verdicts in JSON, so that the page needs no shared types
//! with this module beyond the JSON shape both take from `placement-playground`.

use wasm_bindgen::prelude::*;

/// [`placement_playground::policy_panel::review_json`]: a `ReviewRequest` in, a `ReviewResponse` out.
/// It never throws: bad requests come back as a `ReviewResponse::Error`.
#[wasm_bindgen]
pub fn review(request: &str) -> String {
    placement_playground::policy_panel::review_json(request)
}
