//! Sharing a playground state in a URL fragment: the state as JSON, raw-deflated, in
//! base64url, behind a format tag (`v1.`). The fragment never reaches a server, so the
//! manifests stay with whoever holds the link.
//!
//! The fragment also carries the route: `#embed&s=v1.…` opens the compact read-only view.

use serde::{Deserialize, Serialize};

/// Links longer than this get a warning: chat tools, issue trackers and some proxies cut
/// URLs of about 8,000 characters.
pub const WARN_FRAGMENT_CHARS: usize = 8_000;
/// Chromium refuses URLs above 2 MiB; past this a link is not offered at all.
pub const MAX_FRAGMENT_CHARS: usize = 2 * 1024 * 1024 - 1024;

const TAG: &str = "v1.";

/// Everything a link restores.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SharedState {
    pub workloads: String,
    pub nodes: String,
    /// `X.Y`; empty for the default version.
    pub kube_version: String,
    pub admission_defaults: bool,
    /// Gatekeeper ConstraintTemplates and Constraints pasted in the admission panel. Left
    /// out of the link when empty, so links made before it existed read the same.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub gatekeeper: String,
    /// What-if commands to apply to the cluster before it is shown, in order, in their
    /// canonical `kubectl ...` form (the node view's pool actions add them). Left out of the
    /// link when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub what_if: Vec<String>,
    /// The node label that names pools; empty: detected from the clouds' labels
    /// (`PoolLabel::Detect`). Left out of the link when empty.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub pool_label: String,
}

impl Default for SharedState {
    fn default() -> Self {
        Self {
            workloads: String::new(),
            nodes: String::new(),
            kube_version: String::new(),
            admission_defaults: true,
            gatekeeper: String::new(),
            what_if: Vec::new(),
            pool_label: String::new(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ShareError {
    #[error("the link's state is not in a format this version reads (expected it to start with {TAG})")]
    Format,
    #[error("the link's state is damaged (bad base64)")]
    Base64,
    #[error("the link's state is damaged (bad compression: {0})")]
    Inflate(String),
    #[error("the link's state is damaged (bad JSON: {0})")]
    Json(String),
}

/// The compressed, tagged form of `state`, for `#s=…`.
pub fn encode(state: &SharedState) -> String {
    let json = serde_json::to_vec(state).unwrap_or_default();
    let deflated = miniz_oxide::deflate::compress_to_vec(&json, 9);
    format!("{TAG}{}", base64url_encode(&deflated))
}

/// What a share link may inflate to: 128 MiB, so a crafted link cannot exhaust a tab's
/// memory. (The core's input limit is larger, for the CLI's cluster snapshots.)
pub const MAX_SHARED_BYTES: usize = 128 * 1024 * 1024;

/// Reads what [`encode`] wrote. Inflation is capped at [`MAX_SHARED_BYTES`].
pub fn decode(encoded: &str) -> Result<SharedState, ShareError> {
    let body = encoded.trim().strip_prefix(TAG).ok_or(ShareError::Format)?;
    let deflated = base64url_decode(body).ok_or(ShareError::Base64)?;
    let json = miniz_oxide::inflate::decompress_to_vec_with_limit(&deflated, MAX_SHARED_BYTES)
        .map_err(|e| ShareError::Inflate(format!("{:?}", e.status)))?;
    serde_json::from_slice(&json).map_err(|e| ShareError::Json(e.to_string()))
}

/// What the URL fragment says: the view and the shared state, if any.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Route {
    /// Compact read-only view for embedding in docs.
    pub embed: bool,
    /// The encoded state (`v1.…`), not yet decoded.
    pub state: Option<String>,
    /// The example to load, by id (`#example=gpu-pool`).
    pub example: Option<String>,
}

impl Route {
    /// Parses `#embed&s=v1.…` (with or without the `#`). `?embed=1` in the query string is
    /// passed as `query`.
    pub fn parse(fragment: &str, query: &str) -> Self {
        let mut route = Route::default();
        for part in fragment.trim_start_matches('#').split('&').filter(|p| !p.is_empty()) {
            match part.split_once('=') {
                Some(("s", v)) => route.state = Some(v.to_string()),
                Some(("example", v)) => route.example = Some(v.to_string()),
                Some(("embed", v)) => route.embed = v != "0",
                None if part == "embed" => route.embed = true,
                _ => {}
            }
        }
        for part in query.trim_start_matches('?').split('&') {
            if part == "embed" || part == "embed=1" || part == "embed=true" {
                route.embed = true;
            }
        }
        route
    }

    /// The fragment (without `#`) for this route.
    pub fn fragment(&self) -> String {
        let mut parts = Vec::new();
        if self.embed {
            parts.push("embed".to_string());
        }
        if let Some(e) = &self.example {
            parts.push(format!("example={e}"));
        }
        if let Some(s) = &self.state {
            parts.push(format!("s={s}"));
        }
        parts.join("&")
    }
}

/// What to tell the user about a link of `chars` characters.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LinkSize {
    Fine,
    /// Works in browsers, but tools that carry links may cut it.
    Long,
    /// Too long for a browser: offer no link.
    TooLong,
}

pub fn link_size(chars: usize) -> LinkSize {
    if chars > MAX_FRAGMENT_CHARS {
        LinkSize::TooLong
    } else if chars > WARN_FRAGMENT_CHARS {
        LinkSize::Long
    } else {
        LinkSize::Fine
    }
}

const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// Unpadded base64url (RFC 4648 §5).
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..=chunk.len() {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

/// Decodes unpadded (or padded) base64url; `None` on any other character.
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let mut acc = 0u32;
    let mut bits = 0;
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'-' | b'+' => 62,
            b'_' | b'/' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    // A lone trailing character carries fewer than 8 bits: not valid base64.
    (bits < 6).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_compresses() {
        let state = SharedState {
            workloads: include_str!("../../examples/daemonset-tainted-pool.yaml").into(),
            nodes: "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n".into(),
            kube_version: "1.33".into(),
            admission_defaults: false,
            gatekeeper: "kind: ConstraintTemplate\n".into(),
            what_if: vec!["kubectl drain -l agentpool=user --ignore-daemonsets".into(), "add-nodes 2 like a".into()],
            pool_label: "agentpool".into(),
        };
        let encoded = encode(&state);
        assert!(encoded.starts_with("v1."));
        assert!(encoded.len() < state.workloads.len(), "{} >= {}", encoded.len(), state.workloads.len());
        assert!(encoded[3..].bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'));
        assert_eq!(decode(&encoded).unwrap(), state);
    }

    /// A link made before what-if and pools existed reads the same, and a state without them
    /// writes the same JSON as then.
    #[test]
    fn older_links_read_the_same() {
        let old = SharedState { workloads: "w".into(), nodes: "n".into(), ..Default::default() };
        let json = serde_json::to_string(&old).unwrap();
        assert_eq!(json, r#"{"workloads":"w","nodes":"n","kubeVersion":"","admissionDefaults":true}"#);
        assert_eq!(decode(&encode(&old)).unwrap(), old);
    }

    #[test]
    fn damaged_links_are_errors() {
        assert_eq!(decode("v2.abc"), Err(ShareError::Format));
        assert_eq!(decode("v1.a$b"), Err(ShareError::Base64));
        assert!(matches!(decode("v1.AAAA"), Err(ShareError::Inflate(_))));
        let not_json = format!("v1.{}", base64url_encode(&miniz_oxide::deflate::compress_to_vec(b"nope", 6)));
        assert!(matches!(decode(&not_json), Err(ShareError::Json(_))));
    }

    #[test]
    fn base64url_matches_rfc4648_vectors() {
        for (plain, coded) in
            [("", ""), ("f", "Zg"), ("fo", "Zm8"), ("foo", "Zm9v"), ("foob", "Zm9vYg"), ("fooba", "Zm9vYmE")]
        {
            assert_eq!(base64url_encode(plain.as_bytes()), coded);
            assert_eq!(base64url_decode(coded).unwrap(), plain.as_bytes());
        }
        assert_eq!(base64url_encode(&[0xfb, 0xff]), "-_8");
        assert_eq!(base64url_decode("Z"), None);
    }

    #[test]
    fn routes() {
        let r = Route::parse("#embed&s=v1.abc", "");
        assert!(r.embed);
        assert_eq!(r.state.as_deref(), Some("v1.abc"));
        assert_eq!(r.fragment(), "embed&s=v1.abc");
        assert!(Route::parse("", "?embed=1").embed);
        assert!(!Route::parse("#s=x", "?other=1").embed);
        assert_eq!(Route::parse("#example=gpu-pool", "").example.as_deref(), Some("gpu-pool"));
    }

    #[test]
    fn link_sizes() {
        assert_eq!(link_size(100), LinkSize::Fine);
        assert_eq!(link_size(WARN_FRAGMENT_CHARS + 1), LinkSize::Long);
        assert_eq!(link_size(MAX_FRAGMENT_CHARS + 1), LinkSize::TooLong);
    }
}
