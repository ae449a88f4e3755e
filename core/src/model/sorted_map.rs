//! A map from names to values, in name order, for the small maps every object carries
//! (resource lists).
//!
//! It behaves as the `BTreeMap<String, V>` it replaces (the same order, the same JSON, the
//! same `Debug`, the last of duplicate keys wins) but stores its entries in one sorted `Vec`:
//! a pod's resource lists hold one to three names, and a `BTreeMap` allocates a node for
//! eleven entries from the first (808 bytes for a `Quantity` list). That was 2.1 KB of each
//! of a snapshot's 100,000 pods (BENCHMARKS.md, "Snapshot memory").

use std::borrow::Borrow;
use std::fmt;

use serde::de::{MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Names to values, in name order; see the module's documentation.
///
/// ```
/// use placement_core::model::sorted_map::SortedMap;
/// let mut m: SortedMap<i64> = [("memory".to_string(), 2), ("cpu".to_string(), 1)].into();
/// assert_eq!(m.insert("cpu".into(), 3), Some(1));
/// assert_eq!(m.keys().collect::<Vec<_>>(), ["cpu", "memory"]);
/// assert_eq!(m.get("cpu"), Some(&3));
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct SortedMap<V>(Vec<(String, V)>);

impl<V> Default for SortedMap<V> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<V> SortedMap<V> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    // Lookups take what a `BTreeMap<String, V>`'s take (`&str`, `&String`), so that callers
    // read the same.
    fn position<Q: Ord + ?Sized>(&self, name: &Q) -> Result<usize, usize>
    where
        String: Borrow<Q>,
    {
        self.0.binary_search_by(|(k, _)| k.borrow().cmp(name))
    }

    pub fn get<Q: Ord + ?Sized>(&self, name: &Q) -> Option<&V>
    where
        String: Borrow<Q>,
    {
        self.position(name).ok().and_then(|i| self.0.get(i)).map(|(_, v)| v)
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, name: &Q) -> Option<&mut V>
    where
        String: Borrow<Q>,
    {
        self.position(name).ok().and_then(|i| self.0.get_mut(i)).map(|(_, v)| v)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, name: &Q) -> bool
    where
        String: Borrow<Q>,
    {
        self.position(name).is_ok()
    }

    /// Sets `name` to `value`; the value it replaces, if any.
    pub fn insert(&mut self, name: String, value: V) -> Option<V> {
        match self.position(&name) {
            Ok(i) => self.0.get_mut(i).map(|(_, v)| std::mem::replace(v, value)),
            Err(i) => {
                self.0.insert(i, (name, value));
                None
            }
        }
    }

    pub fn remove<Q: Ord + ?Sized>(&mut self, name: &Q) -> Option<V>
    where
        String: Borrow<Q>,
    {
        self.position(name).ok().map(|i| self.0.remove(i).1)
    }

    /// Inserts `value()` for `name` unless it has a value (`entry(..).or_insert_with(..)`).
    pub fn insert_if_absent(&mut self, name: &str, value: impl FnOnce() -> V) {
        if let Err(i) = self.position(name) {
            self.0.insert(i, (name.to_string(), value()));
        }
    }

    pub fn retain(&mut self, mut keep: impl FnMut(&String, &mut V) -> bool) {
        self.0.retain_mut(|(k, v)| keep(k, v));
    }

    pub fn iter(&self) -> Iter<'_, V> {
        Iter(self.0.iter())
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &String> + ExactSizeIterator {
        self.0.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator {
        self.0.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut V> + ExactSizeIterator {
        self.0.iter_mut().map(|(_, v)| v)
    }
}

/// The entries by reference, in name order.
pub struct Iter<'a, V>(std::slice::Iter<'a, (String, V)>);

impl<'a, V> Iterator for Iter<'a, V> {
    type Item = (&'a String, &'a V);
    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(|(k, v)| (k, v))
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.0.size_hint()
    }
}

impl<V> DoubleEndedIterator for Iter<'_, V> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.0.next_back().map(|(k, v)| (k, v))
    }
}

impl<V> ExactSizeIterator for Iter<'_, V> {}

impl<'a, V> IntoIterator for &'a SortedMap<V> {
    type Item = (&'a String, &'a V);
    type IntoIter = Iter<'a, V>;
    fn into_iter(self) -> Iter<'a, V> {
        self.iter()
    }
}

impl<V> IntoIterator for SortedMap<V> {
    type Item = (String, V);
    type IntoIter = std::vec::IntoIter<(String, V)>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<V> Extend<(String, V)> for SortedMap<V> {
    fn extend<I: IntoIterator<Item = (String, V)>>(&mut self, entries: I) {
        for (k, v) in entries {
            self.insert(k, v);
        }
    }
}

impl<V> FromIterator<(String, V)> for SortedMap<V> {
    fn from_iter<I: IntoIterator<Item = (String, V)>>(entries: I) -> Self {
        let mut map = Self::new();
        map.extend(entries);
        map
    }
}

impl<V, const N: usize> From<[(String, V); N]> for SortedMap<V> {
    fn from(entries: [(String, V); N]) -> Self {
        entries.into_iter().collect()
    }
}

impl<V> std::ops::Index<&str> for SortedMap<V> {
    type Output = V;
    /// Panics when `name` is not in the map, as `BTreeMap`'s does (for tests).
    #[allow(clippy::expect_used)]
    fn index(&self, name: &str) -> &V {
        self.get(name).expect("no entry found for key")
    }
}

impl<V: fmt::Debug> fmt::Debug for SortedMap<V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<V: Serialize> Serialize for SortedMap<V> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, V: Deserialize<'de>> Deserialize<'de> for SortedMap<V> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MapVisitor<V>(std::marker::PhantomData<V>);
        impl<'de, V: Deserialize<'de>> Visitor<'de> for MapVisitor<V> {
            type Value = SortedMap<V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut access: A) -> Result<Self::Value, A::Error> {
                let mut entries: Vec<(String, V)> = Vec::with_capacity(access.size_hint().unwrap_or(0).min(64));
                while let Some((k, v)) = access.next_entry::<String, V>()? {
                    entries.push((k, v));
                }
                // Sorted once; of equal names the last one stays, as `BTreeMap::insert` leaves it.
                entries.reverse();
                entries.sort_by(|(a, _), (b, _)| a.cmp(b));
                entries.dedup_by(|(later, _), (first, _)| later == first);
                entries.shrink_to_fit();
                Ok(SortedMap(entries))
            }
        }
        deserializer.deserialize_map(MapVisitor(std::marker::PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    /// Whatever is done to it, a SortedMap says what a BTreeMap says.
    #[test]
    fn behaves_as_a_btree_map() {
        let ops: [(&str, Option<i64>); 9] = [
            ("memory", Some(1)),
            ("cpu", Some(2)),
            ("memory", Some(3)),
            ("a", Some(4)),
            ("cpu", None),
            ("z", Some(5)),
            ("nope", None),
            ("cpu", Some(6)),
            ("a", None),
        ];
        let (mut sorted, mut btree) = (SortedMap::new(), BTreeMap::new());
        for (k, op) in ops {
            match op {
                Some(v) => assert_eq!(sorted.insert(k.to_string(), v), btree.insert(k.to_string(), v)),
                None => assert_eq!(sorted.remove(k), btree.remove(k)),
            }
            assert_eq!(format!("{sorted:?}"), format!("{btree:?}"));
            assert_eq!(serde_json::to_string(&sorted).unwrap(), serde_json::to_string(&btree).unwrap());
            assert_eq!(sorted.len(), btree.len());
            for probe in ["a", "cpu", "memory", "z", "nope"] {
                assert_eq!(sorted.get(probe), btree.get(probe), "{probe}");
            }
        }
    }

    #[test]
    fn deserializes_as_a_btree_map() {
        for json in [r#"{}"#, r#"{"b": 1, "a": 2}"#, r#"{"b": 1, "a": 2, "b": 3}"#, r#"{"x": 1, "x": 2, "x": 3}"#] {
            let sorted: SortedMap<i64> = serde_json::from_str(json).unwrap();
            let btree: BTreeMap<String, i64> = serde_json::from_str(json).unwrap();
            assert_eq!(format!("{sorted:?}"), format!("{btree:?}"), "{json}");
        }
        let err = serde_json::from_str::<SortedMap<i64>>("[1]").unwrap_err().to_string();
        assert_eq!(err, serde_json::from_str::<BTreeMap<String, i64>>("[1]").unwrap_err().to_string());
    }
}
