//! `placement-web`: the in-browser playground (built with trunk from the root
//! `index.html`) that will run `placement-core` on pasted manifests.
//!
//! Not yet implemented: see issue 5. This binary is a placeholder that does
//! nothing; it exists so that the workspace layout and trunk entry are in place.

fn main() {}
