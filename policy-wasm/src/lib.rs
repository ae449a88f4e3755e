//! `placement-policy`: a Kubewarden admission policy (waPC, wasm32) that will use
//! `placement-core` to reject workloads that cannot be placed on any node.
//!
//! Not yet implemented: see issue 3. This crate is a placeholder so that the
//! workspace layout is in place; it exports nothing and does nothing.
