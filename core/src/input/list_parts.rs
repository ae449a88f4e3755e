//! A large `kind: List`, as `kubectl get ... -o yaml` prints it, read in parts on several
//! threads (natively; the wasm builds read one object at a time on their one thread).
//!
//! kubectl prints a List as `apiVersion`, `items:` with each item a `- ` line at column 0,
//! then `kind: List` and `metadata`. The items between two such lines are a block sequence
//! on their own, so each part is read in place, as a document of its own, by the same reader
//! ([`streamed`]); what surrounds the items (the List's frame) is read with an empty
//! `items` to check that it is a List and holds nothing else. Anything unexpected (another
//! document, a part that does not read, more objects than the limit) gives `None`, and the
//! whole text is read the usual way, which reports errors exactly: this is a fast path
//! only, and its result is the usual reading's (`tests`).

use super::block_yaml::Prune;
use super::documents::{streamed, Manifests, Streamed, MAX_DOCUMENTS};

/// Smaller texts are read at once: threads cost more than they save below this.
pub(super) const MIN_BYTES: usize = 16 << 20;

/// How many parts: one per core the process may use, at most eight.
pub(super) fn parts() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get()).min(8)
}

/// The List in `text` read in `parts` parts, or `None` for the usual reading.
pub(super) fn read(text: &str, source: &str, prune: Prune, parts: usize) -> Option<Manifests> {
    if parts < 2 {
        return None;
    }
    let layout = Layout::of(text)?;
    if !frame_is_an_empty_list(text.get(..layout.items_line)?, text.get(layout.end..)?, source, prune) {
        return None;
    }
    let chunks = layout.chunks(text, parts)?;
    join(crate::parallel::map(&chunks, |&chunk| read_chunk(chunk, source, prune)))
}

/// Whether what surrounds the items (`head` before `items:`, `tail` after the last item),
/// read with no items, is a List holding nothing else.
pub(super) fn frame_is_an_empty_list(head: &str, tail: &str, source: &str, prune: Prune) -> bool {
    let frame = format!("{head}items: []\n{tail}");
    matches!(streamed(&frame, source, prune), Streamed::Done(frame) if count(&frame) == 0)
}

/// The parts' objects in the parts' order, numbered as in the whole List; `None` if a part
/// did not read or there are more objects than the limit.
pub(super) fn join(parts: impl IntoIterator<Item = Option<Manifests>>) -> Option<Manifests> {
    let mut out = Manifests::default();
    let mut before = 0;
    for part in parts {
        let mut part = part?;
        let objects = count(&part);
        renumber(&mut part, before);
        before += objects;
        if before > MAX_DOCUMENTS {
            return None;
        }
        out.extend(part);
    }
    Some(out)
}

/// One part: a block sequence of items, read as a document of its own.
pub(super) fn read_chunk(chunk: &str, source: &str, prune: Prune) -> Option<Manifests> {
    // A document marker inside would make the part two documents.
    if chunk.contains("\n---") || chunk.contains("\n...") {
        return None;
    }
    match streamed(chunk, source, prune) {
        Streamed::Done(m) => Some(m),
        Streamed::SerdeYaml | Streamed::Again => None,
    }
}

fn count(m: &Manifests) -> usize {
    m.documents()
}

/// Items are numbered in the List; a part's count from 1.
fn renumber(m: &mut Manifests, before: usize) {
    m.shift_indices(before);
}

/// Where the items end in `items`, a text that starts with one: the start of the first line
/// at column 0 after the last item that is neither an item's, a comment nor blank, or the
/// end of the text.
pub(super) fn items_end(items: &str) -> usize {
    let mut at = items.rfind("\n- ").map_or(0, |i| i + 1);
    while let Some(n) = items.get(at..).and_then(|rest| rest.find('\n')) {
        at += n + 1;
        let line = items.get(at..).unwrap_or_default();
        let continues =
            line.is_empty() || line.starts_with(['\n', ' ', '#']) || line.starts_with("- ") || line.starts_with("-\n");
        if !continues {
            return at;
        }
    }
    items.len()
}

/// Where a List's items are in its text.
#[derive(Debug, PartialEq)]
struct Layout {
    /// The start of the `items:` line.
    items_line: usize,
    /// The start of the first item's `- ` line.
    start: usize,
    /// The end of the last item: the start of the first line at column 0 after it that is
    /// neither an item's, a comment nor blank, or the end of the text.
    end: usize,
}

impl Layout {
    fn of(text: &str) -> Option<Self> {
        let items_line = if text.starts_with("items:\n") { 0 } else { text.find("\nitems:\n")? + 1 };
        let start = items_line + "items:\n".len();
        if !text.get(start..)?.starts_with("- ") {
            return None;
        }
        // A second top-level `items` would replace these: leave that to the usual reading.
        if text.get(start..)?.contains("\nitems:") {
            return None;
        }
        let end = start + items_end(text.get(start..)?);
        Some(Self { items_line, start, end })
    }

    /// The items cut into about `parts` runs of whole items, each a text of its own.
    fn chunks<'t>(&self, text: &'t str, parts: usize) -> Option<Vec<&'t str>> {
        let items = text.get(self.start..self.end)?;
        let mut cuts = vec![0];
        for k in 1..parts {
            let target = items.len() * k / parts;
            let from = (*cuts.last()?).max(target);
            // The next item at or after the target.
            let Some(at) = items.get(from..).and_then(|rest| rest.find("\n- ")) else { break };
            let cut = from + at + 1;
            if cut > *cuts.last()? {
                cuts.push(cut);
            }
        }
        cuts.push(items.len());
        cuts.windows(2).map(|w| items.get(*w.first()?..*w.get(1)?)).collect()
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::input::documents::parse_manifests;

    pub(in crate::input) const LIST: &str = "apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: a
    labels: {pool: x}
- apiVersion: v1
  kind: Pod
  metadata:
    name: p
    namespace: ns
  spec:
    nodeName: a
    containers:
    - name: c
      image: i
      command:
      - |
        #!/bin/sh

        echo hi
# a comment between items
- apiVersion: v1
  kind: ConfigMap
  metadata:
    name: cm
- apiVersion: v1
  kind: Node
  metadata:
    name: b
kind: List
metadata:
  resourceVersion: \"\"
";

    #[test]
    fn the_layout_finds_the_items() {
        let layout = Layout::of(LIST).unwrap();
        assert_eq!(&LIST[layout.items_line..layout.start], "items:\n");
        assert!(LIST[layout.start..].starts_with("- apiVersion: v1\n  kind: Node\n"));
        assert!(LIST[layout.end..].starts_with("kind: List\n"));
        for parts in 1..6 {
            let chunks = layout.chunks(LIST, parts).unwrap();
            assert_eq!(chunks.concat(), &LIST[layout.start..layout.end], "{parts} parts");
            assert!(chunks.iter().all(|c| c.starts_with("- ")), "{parts} parts: {chunks:?}");
        }
    }

    #[test]
    fn parts_read_as_the_whole() {
        let whole = parse_manifests(LIST, "src").unwrap();
        for parts in 2..6 {
            let read = read(LIST, "src", Prune::UnreadFields, parts).expect("read in parts");
            assert_eq!(format!("{read:?}"), format!("{whole:?}"), "{parts} parts");
        }
    }

    /// A generated snapshot (nodes and pods as kubectl prints them) reads the same in parts.
    #[test]
    fn a_snapshot_reads_the_same_in_parts() {
        let text = crate::testing::bench_common::kubectl_get_nodes_and_pods_yaml(12, 5);
        let whole = parse_manifests(&text, "snapshot.yaml").unwrap();
        let read = read(&text, "snapshot.yaml", Prune::UnreadFields, 3).expect("read in parts");
        assert_eq!(format!("{read:?}"), format!("{whole:?}"));
    }

    #[test]
    fn anything_else_is_left_to_the_usual_reading() {
        let cases = [
            ("not a List", LIST.replace("kind: List", "kind: Thing")),
            ("a second document", format!("{LIST}---\napiVersion: v1\nkind: Node\nmetadata: {{name: c}}\n")),
            ("a document marker between items", LIST.replace("# a comment", "---\n# a comment")),
            ("a second items key", format!("{LIST}items: []\n")),
            ("an item that does not read", LIST.replace("    name: cm", "    name: [cm")),
            ("no items", "apiVersion: v1\nitems: []\nkind: List\n".to_string()),
        ];
        for (name, text) in cases {
            assert!(read(&text, "src", Prune::UnreadFields, 3).is_none(), "{name}");
        }
    }
}
