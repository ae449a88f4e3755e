//! The tree the reader builds: the text's own strings where it can borrow them, and mappings
//! as their entries in order, so that the typed model is decoded straight from it (natively:
//! the browser's build turns it into a Value first, see `documents::StreamTree`).
//!
//! Building `serde_json::Value`s first cost a `String` for every key and value kept and an
//! `IndexMap` (a hash table, SipHash per key) for every mapping, which the typed decoding then
//! took apart again: most of what reading a 581 MiB snapshot did besides looking at the text.
//!
//! A [`Node`] says what a `Value` says, in the same order: [`Node::into_value`] gives exactly
//! the Value serde_yaml gives (the differential tests compare those), and decoding a type from
//! a Node ([`Node`]'s `Deserializer`) succeeds where decoding it from that Value does, with the
//! same result (tests below).

use std::borrow::Cow;

use serde::de::value::{Error, MapAccessDeserializer, MapDeserializer, SeqDeserializer};
use serde::de::{self, IntoDeserializer, Visitor};
use serde_json::{Map, Number, Value};

/// One node of a YAML document.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Node<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Seq(Vec<Node<'a>>),
    /// The entries in the text's order, each key once: build it with [`Node::map`].
    Map(Vec<(Cow<'a, str>, Node<'a>)>),
}

/// Mappings with more entries than this are left to serde_yaml: keys are compared pairwise
/// for repeats, which keeps the work per line bounded (and the page's wasm free of a sort).
pub(crate) const MAX_MAP_ENTRIES: usize = 128;

impl<'a> Node<'a> {
    /// A mapping of these entries; of a key given twice, the last value in the first one's
    /// place, as serde_json's `Map` keeps it. `None` beyond [`MAX_MAP_ENTRIES`].
    pub(crate) fn map(entries: Vec<(Cow<'a, str>, Node<'a>)>) -> Option<Node<'a>> {
        if entries.len() > MAX_MAP_ENTRIES {
            return None;
        }
        let repeats = entries.iter().enumerate().any(|(i, (key, _))| entries.iter().take(i).any(|(k, _)| k == key));
        if !repeats {
            return Some(Node::Map(entries));
        }
        let mut kept: Vec<(Cow<'a, str>, Node<'a>)> = Vec::with_capacity(entries.len());
        for (key, value) in entries {
            match kept.iter_mut().find(|(k, _)| *k == key) {
                Some(slot) => slot.1 = value,
                None => kept.push((key, value)),
            }
        }
        Some(Node::Map(kept))
    }

    pub(crate) fn is_null(&self) -> bool {
        matches!(self, Node::Null)
    }

    pub(crate) fn as_str(&self) -> Option<&str> {
        match self {
            Node::String(s) => Some(s),
            _ => None,
        }
    }

    /// A mapping's member.
    pub(crate) fn get(&self, key: &str) -> Option<&Node<'a>> {
        match self {
            Node::Map(entries) => entries.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The Value serde_yaml gives for the same text.
    pub(crate) fn into_value(self) -> Value {
        match self {
            Node::Null => Value::Null,
            Node::Bool(b) => Value::Bool(b),
            Node::Number(n) => Value::Number(n),
            Node::String(s) => Value::String(s.into_owned()),
            Node::Seq(items) => Value::Array(items.into_iter().map(Node::into_value).collect()),
            Node::Map(entries) => {
                let map: Map<String, Value> =
                    entries.into_iter().map(|(k, v)| (k.into_owned(), v.into_value())).collect();
                Value::Object(map)
            }
        }
    }

    /// Removes `null` members recursively, as `documents::strip_nulls` does on the Value.
    pub(crate) fn strip_nulls(&mut self) {
        match self {
            Node::Map(entries) => {
                entries.retain(|(_, v)| !v.is_null());
                entries.iter_mut().for_each(|(_, v)| v.strip_nulls());
            }
            Node::Seq(items) => items.iter_mut().for_each(Node::strip_nulls),
            _ => {}
        }
    }
}

impl<'de> IntoDeserializer<'de, Error> for Node<'de> {
    type Deserializer = Self;
    fn into_deserializer(self) -> Self {
        self
    }
}

/// Decoding a typed value straight from the tree, as `serde_json::Value`'s own
/// `Deserializer` decodes one from the Value (numbers as it visits them, sequences and
/// mappings checked to be read to their end).
impl<'de> de::Deserializer<'de> for Node<'de> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Node::Null => visitor.visit_unit(),
            Node::Bool(b) => visitor.visit_bool(b),
            Node::Number(n) => {
                if let Some(u) = n.as_u64() {
                    visitor.visit_u64(u)
                } else if let Some(i) = n.as_i64() {
                    visitor.visit_i64(i)
                } else {
                    visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
                }
            }
            Node::String(Cow::Borrowed(s)) => visitor.visit_borrowed_str(s),
            Node::String(Cow::Owned(s)) => visitor.visit_string(s),
            Node::Seq(items) => {
                let mut seq = SeqDeserializer::new(items.into_iter());
                let value = visitor.visit_seq(&mut seq)?;
                seq.end()?;
                Ok(value)
            }
            Node::Map(entries) => {
                let mut map = MapDeserializer::new(entries.into_iter());
                let value = visitor.visit_map(&mut map)?;
                map.end()?;
                Ok(value)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self {
            Node::Null => visitor.visit_none(),
            other => visitor.visit_some(other),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self {
            Node::String(s) => visitor.visit_enum(s.into_deserializer()),
            Node::Map(entries) if entries.len() == 1 => {
                visitor.visit_enum(MapAccessDeserializer::new(MapDeserializer::new(entries.into_iter())))
            }
            _ => Err(de::Error::custom("expected a string or a mapping of one entry for an enum")),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(self, _name: &'static str, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        drop(self);
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf unit
        unit_struct seq tuple tuple_struct map struct identifier
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    fn s(text: &str) -> Node<'_> {
        Node::String(Cow::Borrowed(text))
    }

    fn map<'a>(entries: &[(&'a str, Node<'a>)]) -> Node<'a> {
        Node::map(entries.iter().map(|(k, v)| (Cow::Borrowed(*k), v.clone())).collect()).expect("a small mapping")
    }

    #[test]
    fn large_mappings_are_left_to_serde_yaml() {
        let keys: Vec<String> = (0..=MAX_MAP_ENTRIES).map(|i| format!("k{i}")).collect();
        let entries =
            |n: usize| keys.iter().take(n).map(|k| (Cow::Borrowed(k.as_str()), Node::Null)).collect::<Vec<_>>();
        assert!(Node::map(entries(MAX_MAP_ENTRIES)).is_some());
        assert!(Node::map(entries(MAX_MAP_ENTRIES + 1)).is_none());
    }

    #[test]
    fn a_key_given_twice_keeps_the_last_value_in_the_first_place() {
        let many: Vec<String> = (0..40).map(|i| format!("k{i}")).collect();
        let mut long: Vec<(&str, Node)> = many.iter().map(|k| (k.as_str(), s("x"))).collect();
        long.push(("k3", s("last")));
        let cases: Vec<(&str, Vec<(&str, Node)>)> = vec![
            ("a value twice", vec![("a", s("1")), ("b", s("2")), ("a", s("3"))]),
            ("a null, then a value", vec![("a", Node::Null), ("b", s("2")), ("a", s("3"))]),
            ("a value, then a null", vec![("a", s("1")), ("b", s("2")), ("a", Node::Null)]),
            ("three times", vec![("a", s("1")), ("a", s("2")), ("b", Node::Null), ("a", s("4"))]),
            ("many keys", long),
            ("no repeats", vec![("a", s("1")), ("b", s("2"))]),
        ];
        for (name, entries) in cases {
            let mut want = Map::new();
            for (k, v) in &entries {
                want.insert(k.to_string(), v.clone().into_value());
            }
            let node = map(&entries);
            assert_eq!(node.clone().into_value(), Value::Object(want.clone()), "{name}");
            let Node::Map(kept) = &node else { unreachable!() };
            assert_eq!(kept.len(), want.len(), "{name}: each key once");
            let mut stripped = node;
            stripped.strip_nulls();
            let mut want = Value::Object(want);
            crate::input::documents::strip_nulls(&mut want);
            assert_eq!(stripped.into_value(), want, "{name}: nulls removed");
        }
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct Probe {
        name: String,
        #[serde(default)]
        count: Option<i32>,
        #[serde(default)]
        ratio: f64,
        #[serde(default)]
        effect: Option<Effect>,
        #[serde(default)]
        tags: Vec<String>,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    enum Effect {
        NoSchedule,
        NoExecute,
    }

    #[test]
    fn decodes_as_from_the_value() {
        let num = |n: i64| Node::Number(n.into());
        let float = |f: f64| Node::Number(serde_json::Number::from_f64(f).unwrap());
        let cases: Vec<(&str, Node)> = vec![
            (
                "strings, numbers, an enum, a list, an unknown field",
                map(&[
                    ("name", s("web")),
                    ("count", num(3)),
                    ("ratio", num(2)),
                    ("effect", s("NoExecute")),
                    ("tags", Node::Seq(vec![s("a"), Node::String(Cow::Owned("b".into()))])),
                    ("unknown", map(&[("x", Node::Null)])),
                ]),
            ),
            (
                "a negative count, a float ratio, a null",
                map(&[("name", s("x")), ("count", num(-4)), ("ratio", float(0.5)), ("effect", Node::Null)]),
            ),
            (
                "an enum as a mapping of one entry",
                map(&[("name", s("x")), ("effect", map(&[("NoSchedule", Node::Null)]))]),
            ),
            ("a field given twice: the last", map(&[("name", s("x")), ("name", s("y"))])),
            (
                "a struct from a sequence, as serde_json allows",
                Node::Seq(vec![s("y"), num(1), num(1), Node::Null, Node::Seq(vec![])]),
            ),
            ("a float count fails", map(&[("name", s("x")), ("count", float(1.5))])),
            ("an out of range count fails", map(&[("name", s("x")), ("count", Node::Number(u64::MAX.into()))])),
            ("a number for a string fails", map(&[("name", num(1))])),
            ("an unknown variant fails", map(&[("name", s("x")), ("effect", s("Sometimes"))])),
            (
                "an enum as a mapping of two entries fails",
                map(&[("name", s("x")), ("effect", map(&[("NoSchedule", Node::Null), ("NoExecute", Node::Null)]))]),
            ),
            (
                "a sequence too long fails",
                Node::Seq(vec![s("y"), Node::Null, num(1), Node::Null, Node::Seq(vec![]), s("extra")]),
            ),
            ("null for the whole fails", Node::Null),
        ];
        for (name, node) in cases {
            let from_value = Probe::deserialize(node.clone().into_value()).ok();
            let from_node = Probe::deserialize(node).ok();
            assert_eq!(from_node, from_value, "{name}");
            assert_eq!(from_node.is_some(), !name.ends_with("fails"), "{name}");
        }
    }
}
