//! Reading input: YAML and JSON documents into typed objects, every error named by document,
//! field path and value, in the API server's words.
//!
//! - [`documents`]: splitting streams and `kind: List`, decoding each document by kind;
//! - [`block_yaml`]: a fast reader for the block-style YAML `kubectl` prints, with serde_yaml
//!   as the exact fallback;
//! - [`validation`]: the API server's validation of Pods, pod templates and Nodes;
//! - [`field`]: field paths and field errors, as apimachinery shapes them;
//! - [`source_map`]: from a field path back to its line in the text (the playground's markers);
//! - [`strict`]: unknown and duplicate fields, as `kubectl apply --validate=strict` reports
//!   them, from field lists generated from the Kubernetes API schema;
//! - [`text`]: bytes in the encodings files are saved in, and kubectl's output for people
//!   recognized as such.

pub mod block_yaml;
pub mod documents;
pub mod field;
#[cfg(not(target_arch = "wasm32"))]
mod list_parts;
#[cfg(not(target_arch = "wasm32"))]
pub mod list_stream;
pub mod source_map;
pub mod strict;
pub mod text;
pub mod validation;
