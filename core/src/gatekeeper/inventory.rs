//! `data.inventory`: the other objects of the cluster, as Gatekeeper's sync puts them.
//!
//! Two ways in, one layout:
//!
//! - [`Inventory::new`]: objects keyed by their own `apiVersion` and `kind` (gator suites'
//!   inventory files, the CLI's input documents); objects without a kind or a name are left out;
//! - [`Inventory::from_lists`]: the Lists a Kubewarden host answered for named resources, keyed by
//!   the resource that was listed (as Kubewarden's policy-evaluator builds the Gatekeeper
//!   inventory from a policy's `contextAwareResources`: the items of a List from the API server
//!   carry no `apiVersion`/`kind` of their own); an item without a name is an error.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Most objects [`Inventory::from_lists`] takes, over every list: with each object kept twice
/// (as JSON and as Rego's `data`), this bounds what one request holds.
pub const MAX_LISTED_OBJECTS: usize = 20_000;

/// Objects a template can look up: `data.inventory.cluster[apiVersion][kind][name]` for
/// cluster-scoped objects and `data.inventory.namespace[ns][apiVersion][kind][name]` for
/// namespaced ones. Namespaces among them also serve `match.namespaceSelector`.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    namespaces: BTreeMap<String, Value>,
    data: Option<regorus::Value>,
    len: usize,
}

/// Why a listed resource cannot go into the inventory.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InventoryError {
    /// An item of the List is not an object.
    #[error("{api_version} {kind}: items[{index}]: expected an object, found {found}")]
    NotAnObject { api_version: String, kind: String, index: usize, found: String },
    /// An item has no `metadata.name` (policy-evaluator refuses it the same way).
    #[error("{api_version} {kind}: items[{index}]: no metadata.name")]
    MissingName { api_version: String, kind: String, index: usize },
    /// More objects than [`MAX_LISTED_OBJECTS`].
    #[error("{api_version} {kind}: {total} objects listed in all, over the limit of {limit}")]
    TooMany { api_version: String, kind: String, total: usize, limit: usize },
}

/// The three-level maps an inventory is built in.
#[derive(Default)]
struct Builder {
    cluster: Map<String, Value>,
    namespaced: Map<String, Value>,
    namespaces: BTreeMap<String, Value>,
    len: usize,
}

impl Builder {
    /// Files `obj` under `api_version`/`kind`/`name`, in `namespace` or cluster-wide.
    fn insert(&mut self, api_version: &str, kind: &str, name: String, namespace: Option<String>, obj: Value) {
        self.len += 1;
        if kind == "Namespace" && namespace.is_none() {
            self.namespaces.insert(name.clone(), obj.clone());
        }
        let root = match namespace {
            None => Some(&mut self.cluster),
            Some(ns) => object_at(&mut self.namespaced, ns),
        };
        let by_name = root
            .and_then(|r| object_at(r, api_version.to_string()))
            .and_then(|by_kind| object_at(by_kind, kind.to_string()));
        if let Some(by_name) = by_name {
            by_name.insert(name, obj);
        }
    }

    fn build(self) -> Inventory {
        let Builder { cluster, namespaced, namespaces, len } = self;
        let data = (len > 0).then(|| {
            regorus::Value::from(serde_json::json!({
                "inventory": { "cluster": cluster, "namespace": namespaced }
            }))
        });
        Inventory { namespaces, data, len }
    }
}

impl Inventory {
    /// Objects keyed by their own `apiVersion`, `kind`, `metadata.name` and
    /// `metadata.namespace`; objects without a kind or a name are left out.
    pub fn new(objects: impl IntoIterator<Item = Value>) -> Inventory {
        let mut b = Builder::default();
        for obj in objects {
            let str_at = |p: &str| obj.pointer(p).and_then(Value::as_str).unwrap_or_default().to_string();
            let (gv, kind, name, ns) =
                (str_at("/apiVersion"), str_at("/kind"), str_at("/metadata/name"), str_at("/metadata/namespace"));
            if kind.is_empty() || name.is_empty() {
                continue;
            }
            b.insert(&gv, &kind, name, (!ns.is_empty()).then_some(ns), obj);
        }
        b.build()
    }

    /// The items of Lists of resources: `(apiVersion, kind, items)` per listed resource, each
    /// item filed under the listed `apiVersion` and `kind` and its `metadata.name`, in
    /// `data.inventory.namespace[metadata.namespace]` when it has a namespace, else in
    /// `data.inventory.cluster` (Kubewarden's `GatekeeperInventory`). The same resource listed
    /// twice (by namespace) adds up.
    pub fn from_lists<'a>(
        lists: impl IntoIterator<Item = (&'a str, &'a str, Vec<Value>)>,
    ) -> Result<Inventory, InventoryError> {
        let mut b = Builder::default();
        for (api_version, kind, items) in lists {
            let total = b.len + items.len();
            if total > MAX_LISTED_OBJECTS {
                return Err(InventoryError::TooMany {
                    api_version: api_version.into(),
                    kind: kind.into(),
                    total,
                    limit: MAX_LISTED_OBJECTS,
                });
            }
            for (index, obj) in items.into_iter().enumerate() {
                if !obj.is_object() {
                    return Err(InventoryError::NotAnObject {
                        api_version: api_version.into(),
                        kind: kind.into(),
                        index,
                        found: crate::input::documents::type_name(&obj).to_string(),
                    });
                }
                let str_at =
                    |p: &str| obj.pointer(p).and_then(Value::as_str).filter(|s| !s.is_empty()).map(String::from);
                let Some(name) = str_at("/metadata/name") else {
                    return Err(InventoryError::MissingName {
                        api_version: api_version.into(),
                        kind: kind.into(),
                        index,
                    });
                };
                let namespace = str_at("/metadata/namespace");
                b.insert(api_version, kind, name, namespace, obj);
            }
        }
        Ok(b.build())
    }

    /// A Namespace object by name.
    pub fn namespace(&self, name: &str) -> Option<&Value> {
        self.namespaces.get(name)
    }

    /// Adds (or replaces) Namespace objects used only for `namespaceSelector`.
    pub fn add_namespace(&mut self, ns: Value) {
        if let Some(name) = ns.pointer("/metadata/name").and_then(Value::as_str) {
            self.namespaces.insert(name.to_string(), ns);
        }
    }

    /// The `data` document to merge (`{"inventory": ...}`), `None` when empty.
    pub fn data(&self) -> Option<&regorus::Value> {
        self.data.as_ref()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// The object under `key` in `map`, created empty when missing (every value this module puts
/// in the maps is an object, so the `None` of a non-object is never seen).
fn object_at(map: &mut Map<String, Value>, key: String) -> Option<&mut Map<String, Value>> {
    map.entry(key).or_insert_with(|| Value::Object(Map::new())).as_object_mut()
}
