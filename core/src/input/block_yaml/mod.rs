//! A fast reader for the block-style YAML that kubectl, Helm and most tools print.
//!
//! serde_yaml spends 1.3 s in libyaml's scanner alone on a 5,000-node `kubectl get nodes -o
//! yaml` (57 MiB), before a single Value exists. That output, like most manifests people
//! paste, uses a small part of YAML: block mappings and sequences by indentation, one-line
//! scalars, short flow collections, literal blocks. This reader handles that part a line at a
//! time and gives up (`None`) on anything else, so the caller parses the text again with
//! serde_yaml, which stays the reference and writes every syntax error message.
//!
//! When [`read_stream`] returns `Some`, the Values equal what serde_yaml 0.9 gives for each
//! document (`Value::deserialize` of each item of `serde_yaml::Deserializer::from_str`),
//! key order and duplicate keys (last one wins, in the first one's place) included. The
//! differential tests below and the `block_yaml` fuzz target check that.
//!
//! The subset (everything else returns `None`):
//! - block mappings and sequences by indentation (spaces; a tab where indentation or
//!   separation could be is outside), `- key: value` items, `key:` followed by a sequence
//!   at the same indentation, `-` alone followed by a nested block, `- - x`;
//! - keys: plain, single- or double-quoted, followed by `:` and a space or the line end;
//! - plain scalars on one line, resolved exactly as serde_yaml resolves them (null, bools,
//!   integers in four bases, floats, `.inf`/`.nan`, the rest strings); as a mapping's value
//!   on its key's line, also continued over more indented lines (wrapped descriptions) when
//!   those hold plain text only;
//! - single- and double-quoted scalars (the common escapes), also folded over several lines
//!   as kubectl prints long messages, but not as keys;
//! - flow collections on one line, nested, with plain or quoted scalars;
//! - literal and folded block scalars `|`, `|-`, `|+`, `>`, `>-`, `>+` (no indentation
//!   indicator);
//! - comments, blank lines, `---` and `...`; CRLF line breaks.
//!
//! Outside: plain scalars over several lines elsewhere (or with indicators, `: `, comments or
//! tabs in their continuations), anchors, aliases, tags,
//! directives, complex keys, flow collections over several lines, nesting deeper than
//! serde_yaml's 128 levels, keys longer than libyaml's 1,024 characters, and any character
//! libyaml rejects or reads as a line break.
//!
//! The reader keeps an explicit stack of open collections (no recursion, so hostile nesting
//! cannot overflow the call stack) and looks at each line a bounded number of times.
//!
//! The parts, in reading order: this module's entry points; `reader`, the lines placed into
//! the stack of open block collections; `prune`, which keys of which objects are skipped;
//! `node`, the tree they build (decoded into typed objects without `serde_json::Value`s);
//! `scalars` (quoted, literal and plain) and `flow` (flow collections on one line); `skip`,
//! the skipped subtrees consumed by indentation; `chars`, the character subset and the byte
//! scans. The differential tests are in `tests`.

use serde_json::Value;

use chars::in_character_subset;
pub(crate) use chars::{find_newline, next_where};
pub(crate) use node::Node;
#[doc(hidden)]
pub use prune::remove_unread_fields;
use reader::{DocState, Reader};

mod chars;
mod flow;
mod node;
mod prune;
mod reader;
mod scalars;
mod skip;

/// Which subtrees to skip without building Values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prune {
    /// Build every value: for callers that keep whole objects (Gatekeeper reviews them).
    Nothing,
    /// Skip what the typed model in [`crate::model`] never reads, at the top of each object
    /// (a document, or an item of the top-level `items` sequence or of a top-level
    /// sequence): every child of `metadata` but those of `ObjectMeta` (so `managedFields`),
    /// every child of `status` but `allocatable`, `capacity`, `phase` and `conditions`, and
    /// in each condition its timestamps; once `kind: Node` has been read, every child of
    /// `spec` but `taints` and `unschedulable`; once `kind: Pod` has been read, every child of
    /// `spec` that `PodSpec` does not have (`dnsPolicy`, `securityContext`, ...), in each of
    /// its containers and init containers what `Container` does not have (`env`, probes,
    /// `volumeMounts`, ...), and in each volume its source unless it is an `emptyDir`, a claim or an in-tree disk
    /// (`VOLUME_FIELDS`). Only
    /// block mapping entries are skipped (flow values are read). A second `kind` in an object
    /// makes the reader give up. [`remove_unread_fields`] says the same of whole documents.
    ///
    /// Skipped lines are consumed by indentation, reading only as much of each line as
    /// decides where the subtree ends (its `- ` entries and key, the first character of its
    /// value, and quoted scalars and flow collections, which run on to their closing
    /// character). Their content is not validated otherwise: a text that serde_yaml rejects
    /// for an error inside a skipped subtree can be read here.
    UnreadFields,
}

/// Reads every document of `text`, or `None` when the text leaves the supported subset.
pub fn read_stream(text: &str, prune: Prune) -> Option<Vec<Value>> {
    read_documents(text, prune, usize::MAX).map(|d| d.values)
}

pub(crate) struct Documents {
    pub values: Vec<Value>,
    /// Whether some mapping has a null member (else removing null members has nothing to do).
    pub nulls: bool,
}

/// [`read_stream`] that stops after `max + 1` documents, as a caller that refuses more than
/// `max` would stop serde_yaml: memory stays bounded on a text of empty documents.
pub(crate) fn read_documents(text: &str, prune: Prune, max: usize) -> Option<Documents> {
    let mut events = Events::new(text, prune, false)?;
    let mut values = Vec::new();
    while values.len() <= max {
        match events.next()? {
            Event::Document { value, .. } => values.push(value.into_value()),
            Event::Item(_) => return None,
            Event::End => break,
        }
    }
    Some(Documents { values, nulls: events.nulls() })
}

/// What [`Events::next`] read.
pub(crate) enum Event<'a> {
    /// A whole document; with items streamed, a top-level `items` sequence or a top-level
    /// sequence in it is empty: its items came before, as [`Event::Item`]s.
    /// `items_replaced` when it has more than one top-level `items` key, so that the items
    /// streamed were not all its own (the last key wins).
    Document {
        value: Node<'a>,
        items_replaced: bool,
    },
    /// An item of the top-level `items` sequence, or of a top-level sequence, of the
    /// document being read (only when streaming items).
    Item(Node<'a>),
    End,
}

/// The documents of a text one at a time, and optionally the items of their top-level
/// `items` sequences (or of top-level sequences) as soon as each is read, so that a caller
/// can decode and drop each of 5,000 kubectl nodes before the next is built: the memory a
/// node's Values leave is then reused by the next node's, where reading all of them first
/// makes the allocator work through a heap of scattered holes.
pub(crate) struct Events<'a> {
    reader: Reader<'a>,
}

impl<'a> Events<'a> {
    /// `None` when the text has characters outside the subset.
    pub(crate) fn new(text: &'a str, prune: Prune, stream_items: bool) -> Option<Self> {
        if !in_character_subset(text) {
            return None;
        }
        Some(Events {
            reader: Reader {
                text,
                pos: 0,
                prune: prune == Prune::UnreadFields,
                stream_items,
                state: DocState::Before,
                done: false,
                events: std::collections::VecDeque::new(),
                stack: Vec::new(),
                entries: Vec::new(),
                items: Vec::new(),
                root: None,
                nulls: false,
                items_keys: 0,
            },
        })
    }

    /// The next event, or `None` when the text leaves the subset.
    pub(crate) fn next(&mut self) -> Option<Event<'a>> {
        let reader = &mut self.reader;
        loop {
            if let Some(event) = reader.events.pop_front() {
                return Some(event);
            }
            if reader.done {
                return Some(Event::End);
            }
            reader.step()?;
        }
    }

    /// Whether some mapping read so far has a null member.
    pub(crate) fn nulls(&self) -> bool {
        self.reader.nulls
    }
}

/// Collections nested deeper than this make serde_yaml fail ("recursion limit exceeded").
const MAX_DEPTH: usize = 128;
/// libyaml forgets a possible simple key 1,024 characters on, so a longer key is an error
/// there; bytes count at least as many as characters, so under this bound it is not.
const MAX_SIMPLE_KEY: usize = 1000;

#[cfg(test)]
mod tests;
