//! Kubewarden's host capabilities, as the policy uses them: listing the cluster's Nodes for
//! `inventory: cluster`. The core does no IO: the caller (the waPC module, a test host) gives
//! an implementation of [`HostCapabilities`] that makes the call.
//!
//! The call is the one `kubewarden-policy-sdk`'s `list_all_resources` makes: waPC binding
//! `kubewarden`, namespace `kubernetes`, operation `list_resources_all`, payload the JSON of
//! its `ListAllResourcesRequest` (`{"api_version": "v1", "kind": "Node", "label_selector":
//! null, "field_selector": null}`); the answer is the Kubernetes List (`{"items": [...]}`).
//! policy-server answers it only for the resources the policy declares in its metadata
//! (`contextAwareResources`) and the admin allows in the policy's spec.

use serde_json::Value;

/// The waPC binding of Kubewarden's host capabilities.
pub const BINDING: &str = "kubewarden";
/// The namespace of the Kubernetes capabilities.
pub const KUBERNETES: &str = "kubernetes";
/// The operation that lists a resource across the cluster.
pub const LIST_RESOURCES_ALL: &str = "list_resources_all";

/// The host calls the policy makes.
pub trait HostCapabilities {
    /// `kubewarden`/`kubernetes`/`list_resources_all` with `payload` (see
    /// [`list_all_request`]): the answer's bytes, or the host's error.
    fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String>;
}

/// A host without capabilities (native callers, `validate` without a host): every call fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHostCapabilities;

impl HostCapabilities for NoHostCapabilities {
    fn list_resources_all(&self, _payload: &[u8]) -> Result<Vec<u8>, String> {
        Err("this host makes no host capabilities calls".into())
    }
}

/// The SDK's `ListAllResourcesRequest` as JSON.
pub fn list_all_request(api_version: &str, kind: &str) -> Vec<u8> {
    serde_json::json!({"api_version": api_version, "kind": kind, "label_selector": null, "field_selector": null})
        .to_string()
        .into_bytes()
}

/// The cluster's Nodes, as the `items` of the List the host answers.
pub fn list_nodes(host: &dyn HostCapabilities) -> Result<Value, String> {
    let bytes = host.list_resources_all(&list_all_request("v1", "Node"))?;
    let list: Value = serde_json::from_slice(&bytes).map_err(|e| format!("the host's answer is not JSON: {e}"))?;
    match list.get("items") {
        Some(items @ Value::Array(_)) => Ok(items.clone()),
        Some(Value::Null) | None if list.is_object() => Ok(Value::Array(Vec::new())),
        _ => Err("the host's answer is not a List of Nodes (no `items` list)".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Fixed(Result<&'static str, &'static str>);

    impl HostCapabilities for Fixed {
        fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
            assert_eq!(payload, list_all_request("v1", "Node"));
            self.0.map(|s| s.as_bytes().to_vec()).map_err(str::to_string)
        }
    }

    /// (case, the host's answer, items or the error's start)
    type Row = (&'static str, Result<&'static str, &'static str>, Result<usize, &'static str>);

    #[test]
    fn lists_nodes() {
        let rows: [Row; 5] = [
            ("a list", Ok(r#"{"apiVersion": "v1", "kind": "List", "items": [{"metadata": {"name": "a"}}]}"#), Ok(1)),
            ("an empty cluster", Ok(r#"{"apiVersion": "v1", "kind": "List", "items": null}"#), Ok(0)),
            ("not JSON", Ok("nope"), Err("the host's answer is not JSON")),
            ("not a list", Ok("[1]"), Err("the host's answer is not a List of Nodes")),
            ("a host error", Err("forbidden"), Err("forbidden")),
        ];
        for (name, answer, want) in rows {
            let got = list_nodes(&Fixed(answer));
            match (got, want) {
                (Ok(Value::Array(items)), Ok(n)) => assert_eq!(items.len(), n, "{name}"),
                (Err(e), Err(w)) => assert!(e.starts_with(w), "{name}: {e}"),
                (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn request_payload_is_the_sdks() {
        let v: Value = serde_json::from_slice(&list_all_request("v1", "Node")).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"api_version": "v1", "kind": "Node", "label_selector": null, "field_selector": null})
        );
    }
}
