//! `data.inventory`: the other objects of the cluster, as Gatekeeper's sync puts them.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Objects a template can look up: `data.inventory.cluster[apiVersion][kind][name]` for
/// cluster-scoped objects and `data.inventory.namespace[ns][apiVersion][kind][name]` for
/// namespaced ones. Namespaces among them also serve `match.namespaceSelector`.
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    namespaces: BTreeMap<String, Value>,
    data: Option<regorus::Value>,
    len: usize,
}

impl Inventory {
    pub fn new(objects: impl IntoIterator<Item = Value>) -> Inventory {
        let mut cluster = Map::new();
        let mut namespaced = Map::new();
        let mut namespaces = BTreeMap::new();
        let mut len = 0;
        for obj in objects {
            let str_at = |p: &str| obj.pointer(p).and_then(Value::as_str).unwrap_or_default().to_string();
            let (gv, kind, name, ns) =
                (str_at("/apiVersion"), str_at("/kind"), str_at("/metadata/name"), str_at("/metadata/namespace"));
            if kind.is_empty() || name.is_empty() {
                continue;
            }
            len += 1;
            if kind == "Namespace" {
                namespaces.insert(name.clone(), obj.clone());
            }
            let root = if ns.is_empty() { Some(&mut cluster) } else { object_at(&mut namespaced, ns) };
            let by_name = root.and_then(|r| object_at(r, gv)).and_then(|by_kind| object_at(by_kind, kind));
            if let Some(by_name) = by_name {
                by_name.insert(name, obj);
            }
        }
        let data = (len > 0).then(|| {
            regorus::Value::from(serde_json::json!({
                "inventory": { "cluster": cluster, "namespace": namespaced }
            }))
        });
        Inventory { namespaces, data, len }
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
