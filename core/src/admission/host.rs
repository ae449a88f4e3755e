//! Kubewarden's host capabilities, as the policy uses them: listing the cluster's Nodes for
//! `inventory: cluster`, and the resources `gatekeeper.inventory` names for Gatekeeper's
//! `data.inventory`. The core does no IO: the caller (the waPC module, a test host) gives an
//! implementation of [`HostCapabilities`] that makes the calls.
//!
//! The calls are the ones `kubewarden-policy-sdk` makes, as policy-evaluator's waPC host
//! dispatches them: waPC binding `kubewarden`, namespace `kubernetes`, operation
//! `list_resources_all` (payload the JSON of the SDK's `ListAllResourcesRequest`:
//! `{"api_version": "v1", "kind": "Node", "label_selector": null, "field_selector": null}`) or
//! `list_resources_by_namespace` (`ListResourcesByNamespaceRequest`: the same with
//! `"namespace"`); the answer is the Kubernetes List (`{"items": [...]}`). policy-server answers
//! only for the resources the admin allows in the policy's spec (`contextAwareResources`);
//! `kwctl run --allow-context-aware` allows those of the policy's metadata.

use std::cell::RefCell;

use serde_json::Value;

use crate::model::Node;

/// The waPC binding of Kubewarden's host capabilities.
pub const BINDING: &str = "kubewarden";
/// The namespace of the Kubernetes capabilities.
pub const KUBERNETES: &str = "kubernetes";
/// The operation that lists a resource across the cluster.
pub const LIST_RESOURCES_ALL: &str = "list_resources_all";
/// The operation that lists a namespaced resource in one namespace.
pub const LIST_RESOURCES_BY_NAMESPACE: &str = "list_resources_by_namespace";

/// The host calls the policy makes.
pub trait HostCapabilities {
    /// `kubewarden`/`kubernetes`/`list_resources_all` with `payload` (the SDK's
    /// `ListAllResourcesRequest`, see [`Resource::payload`]): the answer's bytes, or the
    /// host's error.
    fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String>;
    /// `kubewarden`/`kubernetes`/`list_resources_by_namespace` with `payload` (the SDK's
    /// `ListResourcesByNamespaceRequest`).
    fn list_resources_by_namespace(&self, payload: &[u8]) -> Result<Vec<u8>, String>;
}

/// A host without capabilities (native callers, `validate` without a host): every call fails.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoHostCapabilities;

const NO_CALLS: &str = "this host makes no host capabilities calls";

impl HostCapabilities for NoHostCapabilities {
    fn list_resources_all(&self, _payload: &[u8]) -> Result<Vec<u8>, String> {
        Err(NO_CALLS.into())
    }

    fn list_resources_by_namespace(&self, _payload: &[u8]) -> Result<Vec<u8>, String> {
        Err(NO_CALLS.into())
    }
}

/// A resource to list: `apiVersion` and `kind` (as in Kubewarden's `contextAwareResources`),
/// across the cluster or, with `namespace`, in that namespace.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Resource {
    pub api_version: String,
    pub kind: String,
    pub namespace: Option<String>,
}

impl Resource {
    pub fn all(api_version: &str, kind: &str) -> Self {
        Self { api_version: api_version.into(), kind: kind.into(), namespace: None }
    }

    /// The operation that lists it.
    pub fn operation(&self) -> &'static str {
        match self.namespace {
            None => LIST_RESOURCES_ALL,
            Some(_) => LIST_RESOURCES_BY_NAMESPACE,
        }
    }

    /// The call's payload, the SDK's request as JSON: `{"api_version", "kind",
    /// "label_selector": null, "field_selector": null}`, with `"namespace"` for
    /// `list_resources_by_namespace`.
    pub fn payload(&self) -> Vec<u8> {
        let mut v = serde_json::json!({
            "api_version": self.api_version,
            "kind": self.kind,
            "label_selector": null,
            "field_selector": null,
        });
        if let (Some(ns), Some(obj)) = (&self.namespace, v.as_object_mut()) {
            obj.insert("namespace".into(), ns.as_str().into());
        }
        v.to_string().into_bytes()
    }

    /// `networking.k8s.io/v1 Ingress`, or `v1 Service in namespace team-a`.
    pub fn name(&self) -> String {
        match &self.namespace {
            None => format!("{} {}", self.api_version, self.kind),
            Some(ns) => format!("{} {} in namespace {ns}", self.api_version, self.kind),
        }
    }

    /// `kubewarden/kubernetes/list_resources_all networking.k8s.io/v1 Ingress`, or
    /// `.../list_resources_by_namespace v1 Service in namespace team-a`: the call, for errors.
    pub fn describe(&self) -> String {
        format!("{BINDING}/{KUBERNETES}/{} {}", self.operation(), self.name())
    }
}

/// The SDK's `ListAllResourcesRequest` as JSON.
pub fn list_all_request(api_version: &str, kind: &str) -> Vec<u8> {
    Resource::all(api_version, kind).payload()
}

/// Lists `resource` through the host: the `items` of the List it answers, and the answer's
/// size in bytes.
pub fn list(host: &dyn HostCapabilities, resource: &Resource) -> Result<(Vec<Value>, usize), String> {
    let bytes = answer(host, resource)?;
    items(&bytes, resource).map(|items| (items, bytes.len()))
}

/// The host's answer to listing `resource`.
fn answer(host: &dyn HostCapabilities, resource: &Resource) -> Result<Vec<u8>, String> {
    let payload = resource.payload();
    match resource.namespace {
        None => host.list_resources_all(&payload),
        Some(_) => host.list_resources_by_namespace(&payload),
    }
}

/// The `items` of the List the host answered.
fn items(bytes: &[u8], resource: &Resource) -> Result<Vec<Value>, String> {
    let list: Value = serde_json::from_slice(bytes).map_err(|e| format!("the host's answer is not JSON: {e}"))?;
    let not_a_list = || format!("the host's answer is not a List of {} (no `items` list)", resource.kind);
    let Value::Object(mut list) = list else { return Err(not_a_list()) };
    match list.remove("items") {
        Some(Value::Array(items)) => Ok(items),
        Some(Value::Null) | None => Ok(Vec::new()),
        Some(_) => Err(not_a_list()),
    }
}

/// The cluster's Nodes as the host listed them.
#[derive(Debug)]
pub enum ListedNodes {
    /// Read from the answer straight into the model: the usual answer (a List of Nodes, each
    /// `kind: Node` or without a kind, every field of the type the model reads).
    Read(Vec<Node>),
    /// The `items` of any other List, for the settings' reading to report what is wrong
    /// with which item, as for Nodes given in the settings.
    Items(Value),
}

impl ListedNodes {
    pub fn len(&self) -> usize {
        match self {
            ListedNodes::Read(nodes) => nodes.len(),
            ListedNodes::Items(items) => items.as_array().map_or(0, Vec::len),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The cluster's Nodes, from the List the host answers. A List of 1,000 Nodes is about 2 MB
/// of JSON: building a `serde_json::Value` of it and then each Node from its value took 25 ms
/// natively (40 ms in the module), the typed reading a fraction of it.
pub fn list_nodes(host: &dyn HostCapabilities) -> Result<ListedNodes, String> {
    let resource = Resource::all("v1", "Node");
    let bytes = answer(host, &resource)?;
    match read_node_list(&bytes) {
        Some(nodes) => Ok(ListedNodes::Read(nodes)),
        None => items(&bytes, &resource).map(|items| ListedNodes::Items(Value::Array(items))),
    }
}

/// A List of Nodes read into the model, or `None` for anything else (not JSON, no list,
/// an item of another kind, a field of another type, a repeated key, a `null` where the model
/// has no default): the value path then reads it, and names what is wrong.
fn read_node_list(bytes: &[u8]) -> Option<Vec<Node>> {
    #[derive(serde::Deserialize)]
    struct List {
        items: Option<Vec<Item>>,
    }
    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct Item {
        kind: Option<String>,
        metadata: crate::model::ObjectMeta,
        spec: crate::model::NodeSpec,
        status: crate::model::NodeStatus,
    }
    if !super::starts_an_object(bytes) {
        return None;
    }
    let list: List = serde_json::from_slice(bytes).ok()?;
    let items = list.items.unwrap_or_default();
    if items.iter().any(|i| i.kind.as_deref().is_some_and(|k| k != "Node")) {
        return None;
    }
    Some(items.into_iter().map(|i| Node { metadata: i.metadata, spec: i.spec, status: i.status }).collect())
}

/// A host whose answers are kept for the rest of one request, so that a resource both the
/// placement policies and `gatekeeper.inventory` need (Nodes) is listed once. One per request:
/// the answers are never reused for another.
pub struct Memo<'a> {
    host: &'a dyn HostCapabilities,
    answers: RefCell<Vec<Answered>>,
}

/// A call [`Memo`] made: (operation, payload, answer).
type Answered = (&'static str, Vec<u8>, Result<Vec<u8>, String>);

impl<'a> Memo<'a> {
    pub fn new(host: &'a dyn HostCapabilities) -> Self {
        Self { host, answers: RefCell::new(Vec::new()) }
    }

    fn call(
        &self,
        operation: &'static str,
        payload: &[u8],
        f: impl FnOnce(&dyn HostCapabilities) -> Result<Vec<u8>, String>,
    ) -> Result<Vec<u8>, String> {
        if let Ok(answers) = self.answers.try_borrow() {
            if let Some((_, _, answer)) = answers.iter().find(|(op, p, _)| *op == operation && p == payload) {
                return answer.clone();
            }
        }
        let answer = f(self.host);
        if let Ok(mut answers) = self.answers.try_borrow_mut() {
            answers.push((operation, payload.to_vec(), answer.clone()));
        }
        answer
    }
}

impl HostCapabilities for Memo<'_> {
    fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        self.call(LIST_RESOURCES_ALL, payload, |h| h.list_resources_all(payload))
    }

    fn list_resources_by_namespace(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        self.call(LIST_RESOURCES_BY_NAMESPACE, payload, |h| h.list_resources_by_namespace(payload))
    }
}

/// A kwctl host-capabilities session as a host: the file `kwctl run
/// --record-host-capabilities-interactions` writes and `--replay-host-capabilities-interactions`
/// reads, a YAML list of
///
/// ```yaml
/// - type: Exchange
///   request: |
///     !KubernetesListResourceAll
///     api_version: v1
///     kind: Node
///     label_selector: null
///     field_selector: null
///   response:
///     type: Success        # or `type: Error` with `message: <text>`
///     payload: '<the answer, JSON text>'
/// ```
///
/// where the request is kwctl's `CallbackRequestType` in serde_yaml's tagged form
/// (`KubernetesListResourceAll` for `list_resources_all`, `KubernetesListResourceNamespace` for
/// `list_resources_by_namespace`). kwctl answers a run's calls with the exchanges in file order
/// and fails a call that is not the next one; this host answers each call with the exchange
/// whose request it is (so that one session serves many requests) and records the order it
/// was asked in ([`Replay::calls`]), for tests to hold a session to kwctl's order.
/// Test hosts use it (the core's tests, `tests/wapc-host`); the policy module never does.
#[derive(Debug, Default)]
pub struct Replay {
    exchanges: Vec<Exchange>,
    calls: std::sync::Mutex<Vec<usize>>,
}

#[derive(Debug, Clone)]
struct Exchange {
    operation: &'static str,
    request: Value,
    answer: Result<Vec<u8>, String>,
}

/// kwctl's name of a call (its `CallbackRequestType` variant), by operation.
const REPLAY_TAGS: [(&str, &str); 2] = [
    (LIST_RESOURCES_ALL, "KubernetesListResourceAll"),
    (LIST_RESOURCES_BY_NAMESPACE, "KubernetesListResourceNamespace"),
];

impl Replay {
    /// Reads a session; an exchange of a call this policy never makes is an error.
    pub fn parse(text: &str) -> Result<Self, String> {
        use serde_yaml::Value as Yaml;
        let list: Vec<Yaml> = serde_yaml::from_str(text).map_err(|e| e.to_string())?;
        let mut exchanges = Vec::with_capacity(list.len());
        for (i, e) in list.iter().enumerate() {
            let at = format!("exchange {i}");
            if e.get("type").and_then(Yaml::as_str) != Some("Exchange") {
                return Err(format!("{at}: type is not Exchange"));
            }
            let request = e.get("request").and_then(Yaml::as_str).ok_or(format!("{at}: no request"))?;
            let tagged: Yaml = serde_yaml::from_str(request).map_err(|e| format!("{at}: request: {e}"))?;
            let Yaml::Tagged(t) = tagged else { return Err(format!("{at}: the request has no !tag")) };
            let tag = t.tag.to_string();
            let tag = tag.trim_start_matches('!');
            let operation = REPLAY_TAGS
                .iter()
                .find(|(_, name)| *name == tag)
                .map(|(op, _)| *op)
                .ok_or(format!("{at}: request !{tag} is not a call this policy makes"))?;
            let request: Value = serde_yaml::from_value(t.value).map_err(|e| format!("{at}: request: {e}"))?;
            let response = e.get("response").ok_or(format!("{at}: no response"))?;
            let answer = match response.get("type").and_then(Yaml::as_str) {
                Some("Success") => Ok(response
                    .get("payload")
                    .and_then(Yaml::as_str)
                    .ok_or(format!("{at}: no payload"))?
                    .as_bytes()
                    .to_vec()),
                Some("Error") => Err(response.get("message").and_then(Yaml::as_str).unwrap_or_default().to_string()),
                other => return Err(format!("{at}: response type {other:?}")),
            };
            exchanges.push(Exchange { operation, request, answer });
        }
        Ok(Self { exchanges, calls: Default::default() })
    }

    /// The answer to a call, and the call recorded.
    pub fn answer(&self, operation: &str, payload: &[u8]) -> Result<Vec<u8>, String> {
        let asked: Value = serde_json::from_slice(payload).map_err(|e| format!("{operation}: bad payload: {e}"))?;
        // kwctl compares the requests as typed values: a missing optional field is `null`.
        let same = |want: &Value| {
            let (Some(w), Some(a)) = (want.as_object(), asked.as_object()) else { return false };
            w.iter().all(|(k, v)| a.get(k).unwrap_or(&Value::Null) == v)
                && a.iter().all(|(k, v)| w.get(k).unwrap_or(&Value::Null) == v)
        };
        let found = self.exchanges.iter().position(|e| e.operation == operation && same(&e.request));
        match found {
            Some(i) => {
                if let Ok(mut calls) = self.calls.lock() {
                    calls.push(i);
                }
                self.exchanges.get(i).map_or_else(|| Err("no exchange".into()), |e| e.answer.clone())
            }
            None => Err(format!("no exchange in the session for {operation} {asked}")),
        }
    }

    /// The exchanges answered so far, by their index in the file, in the order asked (kwctl
    /// replays a run's calls in file order: one run's calls must be `0, 1, 2, ...`).
    pub fn calls(&self) -> Vec<usize> {
        self.calls.lock().map(|c| c.clone()).unwrap_or_default()
    }

    /// Forgets the calls recorded.
    pub fn clear_calls(&self) {
        if let Ok(mut calls) = self.calls.lock() {
            calls.clear();
        }
    }

    /// How many exchanges the session has.
    pub fn len(&self) -> usize {
        self.exchanges.len()
    }

    pub fn is_empty(&self) -> bool {
        self.exchanges.is_empty()
    }
}

impl HostCapabilities for Replay {
    fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        self.answer(LIST_RESOURCES_ALL, payload)
    }

    fn list_resources_by_namespace(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
        self.answer(LIST_RESOURCES_BY_NAMESPACE, payload)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use super::*;

    /// Answers `list_resources_all` for Nodes only, with `.0`; counts the calls.
    struct Fixed(Result<&'static str, &'static str>, Cell<usize>);

    impl HostCapabilities for Fixed {
        fn list_resources_all(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
            assert_eq!(payload, list_all_request("v1", "Node"));
            self.1.set(self.1.get() + 1);
            self.0.map(|s| s.as_bytes().to_vec()).map_err(str::to_string)
        }

        fn list_resources_by_namespace(&self, payload: &[u8]) -> Result<Vec<u8>, String> {
            Err(format!("by namespace: {}", String::from_utf8_lossy(payload)))
        }
    }

    /// (case, the host's answer, items or the error's start)
    type Row = (&'static str, Result<&'static str, &'static str>, Result<usize, &'static str>);

    #[test]
    fn lists_nodes() {
        let rows: [Row; 6] = [
            ("a list", Ok(r#"{"apiVersion": "v1", "kind": "List", "items": [{"metadata": {"name": "a"}}]}"#), Ok(1)),
            ("an empty cluster", Ok(r#"{"apiVersion": "v1", "kind": "List", "items": null}"#), Ok(0)),
            ("not JSON", Ok("nope"), Err("the host's answer is not JSON")),
            ("not a list", Ok("[1]"), Err("the host's answer is not a List of Node (no `items` list)")),
            ("items not a list", Ok(r#"{"items": {}}"#), Err("the host's answer is not a List of Node")),
            ("a host error", Err("forbidden"), Err("forbidden")),
        ];
        for (name, answer, want) in rows {
            let got = list_nodes(&Fixed(answer, Cell::new(0)));
            match (got, want) {
                (Ok(nodes), Ok(n)) => assert_eq!(nodes.len(), n, "{name}"),
                (Err(e), Err(w)) => assert!(e.starts_with(w), "{name}: {e}"),
                (got, want) => panic!("{name}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn request_payloads_are_the_sdks() {
        let v: Value = serde_json::from_slice(&list_all_request("v1", "Node")).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"api_version": "v1", "kind": "Node", "label_selector": null, "field_selector": null})
        );
        let in_ns = Resource { namespace: Some("team-a".into()), ..Resource::all("v1", "Service") };
        let v: Value = serde_json::from_slice(&in_ns.payload()).unwrap();
        assert_eq!(
            v,
            serde_json::json!({"api_version": "v1", "kind": "Service", "namespace": "team-a", "label_selector": null, "field_selector": null})
        );
        assert_eq!(in_ns.operation(), LIST_RESOURCES_BY_NAMESPACE);
        assert_eq!(
            in_ns.describe(),
            "kubewarden/kubernetes/list_resources_by_namespace v1 Service in namespace team-a"
        );
        assert_eq!(
            Resource::all("networking.k8s.io/v1", "Ingress").describe(),
            "kubewarden/kubernetes/list_resources_all networking.k8s.io/v1 Ingress"
        );
        // The namespaced call goes to its own operation.
        let e = list(&Fixed(Ok("{}"), Cell::new(0)), &in_ns).unwrap_err();
        assert!(e.starts_with("by namespace: {"), "{e}");
    }

    #[test]
    fn memo_calls_the_host_once_per_request() {
        let host = Fixed(Ok(r#"{"items": [{"metadata": {"name": "a"}}]}"#), Cell::new(0));
        let memo = Memo::new(&host);
        for _ in 0..3 {
            assert_eq!(list_nodes(&memo).unwrap().len(), 1);
        }
        assert_eq!(host.1.get(), 1);
        // Errors are kept too: the request sees one answer per call.
        let failing = Fixed(Err("forbidden"), Cell::new(0));
        let memo = Memo::new(&failing);
        assert!(list_nodes(&memo).is_err() && list_nodes(&memo).is_err());
        assert_eq!(failing.1.get(), 1);
        // A new request asks again.
        assert!(list_nodes(&Memo::new(&failing)).is_err());
        assert_eq!(failing.1.get(), 2);
    }
}
