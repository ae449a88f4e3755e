//! The line reader: each line placed into the stack of open block collections by its
//! indentation, and what a node's first line holds.

use std::borrow::Cow;

use super::node::Node;

use super::chars::{find_newline, spaces};
use super::flow::flow;
use super::prune::{child_ctx, item_ctx, streams, Ctx, Kind};
use super::scalars::{literal_header, plain_block, plain_may_start, quoted, resolve_plain, Quoted};
use super::{Event, MAX_DEPTH, MAX_SIMPLE_KEY};

/// An open block collection. Its members wait in [`Reader::entries`] or [`Reader::items`]
/// from `start` on, so that each collection is allocated once, at its final size.
pub(super) enum Frame<'a> {
    Map {
        /// Column of its keys.
        indent: usize,
        start: usize,
        /// A key read without its value yet (the value starts on a later line).
        pending: Option<(Cow<'a, str>, Ctx)>,
        ctx: Ctx,
    },
    Seq {
        /// Column of its `-`.
        indent: usize,
        start: usize,
        /// A `-` read without its item yet.
        awaiting: bool,
        ctx: Ctx,
    },
}

pub(super) struct Reader<'a> {
    pub(super) text: &'a str,
    /// Start of the next unread line.
    pub(super) pos: usize,
    pub(super) prune: bool,
    /// Whether items of top-level sequences go out as [`Event::Item`]s.
    pub(super) stream_items: bool,
    pub(super) state: DocState,
    /// Whether the end of the text has been read.
    pub(super) done: bool,
    pub(super) events: std::collections::VecDeque<Event<'a>>,
    pub(super) stack: Vec<Frame<'a>>,
    /// Members of the open mappings and sequences, innermost last.
    pub(super) entries: Vec<(Cow<'a, str>, Node<'a>)>,
    pub(super) items: Vec<Node<'a>>,
    /// The current document's top node, once complete.
    pub(super) root: Option<Node<'a>>,
    /// Whether a mapping got a null member.
    pub(super) nulls: bool,
    /// `items` keys at the top of the current document (when streaming items).
    pub(super) items_keys: usize,
}

/// One line, without its line break (and a CR before it).
pub(super) struct Line<'a> {
    pub(super) text: &'a str,
    /// Start of the line after it.
    pub(super) next: usize,
    /// Whether a line break ends it (the last line of a text may have none).
    pub(super) broken: bool,
}

#[derive(PartialEq)]
pub(super) enum DocState {
    /// No document started yet.
    Before,
    Open,
    /// After `...`: only `---` or the end may follow.
    Ended,
}

impl<'a> Reader<'a> {
    pub(super) fn peek(&self) -> Option<Line<'a>> {
        self.peek_from(self.pos)
    }

    /// The line that starts at `pos`.
    pub(super) fn peek_from(&self, pos: usize) -> Option<Line<'a>> {
        let rest = self.text.get(pos..).filter(|r| !r.is_empty())?;
        let (len, next, broken) = match find_newline(rest.as_bytes()) {
            Some(i) => (i, pos + i + 1, true),
            None => (rest.len(), self.text.len(), false),
        };
        let text = &rest[..len];
        // Byte tests here and below: `str`'s char-pattern tests compare through `memcmp`, a call
        // per line that was a tenth of the reading.
        let text = if text.as_bytes().last() == Some(&b'\r') { &text[..len - 1] } else { text };
        Some(Line { text, next, broken })
    }

    /// Reads one line (or the end), queueing what it completes.
    pub(super) fn step(&mut self) -> Option<()> {
        let Some(line) = self.peek() else {
            match self.state {
                DocState::Open => self.finish()?,
                // serde_yaml gives an empty stream one empty document.
                DocState::Before => self.events.push_back(Event::Document { value: Node::Null, items_replaced: false }),
                DocState::Ended => {}
            }
            self.done = true;
            return Some(());
        };
        self.pos = line.next;
        let indent = spaces(line.text);
        let rest = &line.text[indent..];
        match rest.as_bytes().first() {
            None | Some(b'#') => return Some(()),
            Some(b'\t') => return None,
            _ => {}
        }
        if indent == 0 {
            match document_marker(rest)? {
                Some(b'-') => {
                    if self.state == DocState::Open {
                        self.finish()?;
                    }
                    self.state = DocState::Open;
                    return Some(());
                }
                Some(_) => {
                    // `...` ends a document; libyaml rejects it where none is open.
                    if self.state != DocState::Open {
                        return None;
                    }
                    self.finish()?;
                    self.state = DocState::Ended;
                    return Some(());
                }
                None if rest.as_bytes().first() == Some(&b'%') => return None,
                None => {}
            }
        }
        match self.state {
            DocState::Ended => return None,
            DocState::Before => self.state = DocState::Open,
            DocState::Open => {}
        }
        self.block_line(indent, rest)
    }

    /// Closes every open collection and queues the document.
    fn finish(&mut self) -> Option<()> {
        while !self.stack.is_empty() {
            self.pop()?;
        }
        let value = self.root.take().unwrap_or(Node::Null);
        self.events.push_back(Event::Document { value, items_replaced: self.items_keys > 1 });
        self.items_keys = 0;
        Some(())
    }

    fn root_ctx(&self) -> Ctx {
        if self.prune {
            Ctx::Object { root: true, kind: Kind::Unread, spec: false }
        } else {
            Ctx::Plain
        }
    }

    /// Places a content line (its indentation, and the rest from the first non-space)
    /// into the open collections.
    fn block_line(&mut self, indent: usize, rest: &'a str) -> Option<()> {
        loop {
            let Some(top) = self.stack.last_mut() else {
                if self.root.is_some() {
                    return None;
                }
                let ctx = self.root_ctx();
                return self.start_node(indent, rest, ctx, None);
            };
            match top {
                Frame::Map { indent: n, pending, .. } => {
                    let n = *n;
                    if let Some((_, ctx)) = pending {
                        if indent > n || (indent == n && is_entry(rest)) {
                            let ctx = *ctx;
                            return self.start_node(indent, rest, ctx, None);
                        }
                        if indent == n {
                            let (key, _) = pending.take()?;
                            self.member(key, Node::Null)?;
                        }
                    }
                    if indent == n {
                        return self.map_entry(rest);
                    }
                    if indent > n {
                        // A plain scalar continued on this line, or an error.
                        return None;
                    }
                    self.pop()?;
                }
                Frame::Seq { indent: n, awaiting, ctx, .. } => {
                    let n = *n;
                    if *awaiting {
                        if indent > n {
                            let ctx = item_ctx(*ctx);
                            return self.start_node(indent, rest, ctx, None);
                        }
                        *awaiting = false;
                        self.item(Node::Null);
                    }
                    if indent == n && is_entry(rest) {
                        return self.seq_entry(n, rest);
                    }
                    if indent > n {
                        return None;
                    }
                    self.pop()?;
                }
            }
        }
    }

    /// A node that starts at column `col` with `rest`. `literal_parent` is the indentation
    /// a literal block's lines must exceed, when one may start here.
    fn start_node(&mut self, col: usize, rest: &'a str, ctx: Ctx, literal_parent: Option<usize>) -> Option<()> {
        match lead(rest, self.stack.len(), &mut self.nulls)? {
            Lead::Entry => {
                self.push(Frame::Seq { indent: col, start: self.items.len(), awaiting: false, ctx })?;
                self.seq_entry(col, rest)
            }
            Lead::Key(key, after) => {
                self.push(Frame::Map { indent: col, start: self.entries.len(), pending: None, ctx })?;
                self.map_value(key, after)
            }
            Lead::Value(v) => self.complete(v),
            Lead::Literal(header) => {
                let text = self.literal(header, literal_parent?)?;
                self.complete(Node::String(Cow::Owned(text)))
            }
            Lead::OpenQuote(s) => {
                let text = self.multiline_quoted(s)?;
                self.complete(Node::String(Cow::Owned(text)))
            }
        }
    }

    /// A line at the indentation of the mapping on top: a key and maybe its value.
    fn map_entry(&mut self, rest: &'a str) -> Option<()> {
        match lead(rest, self.stack.len(), &mut self.nulls)? {
            Lead::Key(key, after) => self.map_value(key, after),
            _ => None,
        }
    }

    /// `after` follows the key's `:`: empty, a comment, or a value on the same line.
    /// A skipped key is never copied out of the line.
    fn map_value(&mut self, key: Cow<'a, str>, after: &'a str) -> Option<()> {
        let Some(Frame::Map { indent, ctx, .. }) = self.stack.last() else { return None };
        let (n, ctx) = (*indent, child_ctx(*ctx, &key));
        let value = after.trim_start_matches(' ');
        if matches!(value.as_bytes().first(), None | Some(b'#')) {
            if ctx == Ctx::Skip {
                return self.skip_block(n);
            }
            let Some(Frame::Map { pending, .. }) = self.stack.last_mut() else { return None };
            *pending = Some((key, ctx));
            return Some(());
        }
        // A plain scalar may go on over the next lines (kubectl folds long messages, templates
        // wrap their descriptions).
        let plain = !matches!(value.as_bytes().first(), Some(b'"' | b'\'' | b'[' | b'{'));
        let v = match lead(value, self.stack.len(), &mut self.nulls)? {
            Lead::Value(v) if ctx == Ctx::Skip => {
                if plain {
                    self.skip_plain_continuation(n);
                }
                v
            }
            Lead::Value(v) if !plain => v,
            Lead::Value(v) => match self.plain_continuation(n, value)? {
                Some(folded) => Node::String(Cow::Owned(folded)),
                None => v,
            },
            Lead::Literal(header) if ctx == Ctx::Skip => {
                literal_header(header)?;
                return self.skip_indented(n);
            }
            Lead::Literal(header) => Node::String(Cow::Owned(self.literal(header, n)?)),
            Lead::OpenQuote(s) => Node::String(Cow::Owned(self.multiline_quoted(s)?)),
            // `a: - b`, `a: b: c`
            Lead::Entry | Lead::Key(..) => return None,
        };
        if ctx != Ctx::Skip {
            self.member(key, v)?;
        }
        Some(())
    }

    /// A `- ...` line of the sequence on top, whose `-` is at column `col`.
    fn seq_entry(&mut self, col: usize, rest: &'a str) -> Option<()> {
        let Some(Frame::Seq { awaiting, ctx, .. }) = self.stack.last_mut() else { return None };
        *awaiting = true;
        let ctx = item_ctx(*ctx);
        let after = &rest[1..];
        let gap = spaces(after);
        let content = &after[gap..];
        if matches!(content.as_bytes().first(), None | Some(b'#')) {
            return Some(());
        }
        self.start_node(col + 1 + gap, content, ctx, Some(col))
    }

    /// Adds an item to the sequence on top, or sends it out.
    fn item(&mut self, value: Node<'a>) {
        match self.stack.last() {
            Some(Frame::Seq { ctx, .. }) if self.stream_items && streams(*ctx) => {
                self.events.push_back(Event::Item(value));
            }
            _ => self.items.push(value),
        }
    }

    /// Adds a member to the mapping on top.
    fn member(&mut self, key: Cow<'a, str>, value: Node<'a>) -> Option<()> {
        self.nulls |= value.is_null();
        if let Some(Frame::Map { ctx: Ctx::Object { kind, spec, .. }, .. }) = self.stack.last_mut() {
            match key.as_ref() {
                // A second `kind` would change what the object is after its spec may have
                // been pruned as a Node's: leave such a text to serde_yaml.
                "kind" if *kind != Kind::Unread => return None,
                "kind" => *kind = Kind::of(value.as_str()),
                "spec" => *spec = true,
                _ => {}
            }
        }
        if self.stream_items && key == "items" && self.stack.len() == 1 {
            self.items_keys += 1;
        }
        self.entries.push((key, value));
        Some(())
    }

    fn push(&mut self, frame: Frame<'a>) -> Option<()> {
        if self.stack.len() >= MAX_DEPTH {
            return None;
        }
        self.stack.push(frame);
        Some(())
    }

    /// Closes the collection on top and hands it to its parent.
    fn pop(&mut self) -> Option<()> {
        let value = match self.stack.pop()? {
            Frame::Map { start, pending, ctx, .. } => {
                if let Some((key, _)) = pending {
                    // Pushed directly: this frame is no longer on the stack.
                    if key == "kind" && matches!(ctx, Ctx::Object { kind, .. } if kind != Kind::Unread) {
                        return None;
                    }
                    self.entries.push((key, Node::Null));
                    self.nulls = true;
                }
                Node::map(self.entries.drain(start..).collect())?
            }
            Frame::Seq { start, awaiting, ctx, .. } => {
                if awaiting {
                    if self.stream_items && streams(ctx) {
                        self.events.push_back(Event::Item(Node::Null));
                    } else {
                        self.items.push(Node::Null);
                    }
                }
                Node::Seq(self.items.drain(start..).collect())
            }
        };
        self.complete(value)
    }

    /// Gives a finished node to whatever waits for it.
    fn complete(&mut self, value: Node<'a>) -> Option<()> {
        match self.stack.last_mut() {
            Some(Frame::Map { pending, .. }) => {
                let (key, _) = pending.take()?;
                self.member(key, value)?;
            }
            Some(Frame::Seq { awaiting, .. }) => {
                if !*awaiting {
                    return None;
                }
                *awaiting = false;
                self.item(value);
            }
            None => {
                if self.root.is_some() {
                    return None;
                }
                self.root = Some(value);
            }
        }
        Some(())
    }
}

/// What a node's first line holds.
enum Lead<'a> {
    /// `- ...`: a sequence entry.
    Entry,
    /// A key, and the rest of the line after its `:`.
    Key(Cow<'a, str>, &'a str),
    /// A whole node on this line (scalar or flow collection).
    Value(Node<'a>),
    /// A block scalar header (literal or folded).
    Literal(&'a str),
    /// A quoted scalar that continues on the next line.
    OpenQuote(&'a str),
}

/// Reads the start of a node (`s` is non-empty, from its first non-space byte). `depth`
/// open collections enclose it; `nulls` as for [`flow`].
fn lead<'a>(s: &'a str, depth: usize, nulls: &mut bool) -> Option<Lead<'a>> {
    let b = s.as_bytes();
    match *b.first()? {
        b'-' if matches!(b.get(1), None | Some(b' ')) => Some(Lead::Entry),
        b'"' | b'\'' => {
            let Quoted::Closed(text, after) = quoted(s)? else { return Some(Lead::OpenQuote(s)) };
            let trimmed = after.trim_start_matches(' ');
            if let Some(value) = trimmed.strip_prefix(':') {
                if !matches!(value.as_bytes().first(), None | Some(b' ')) || s.len() - trimmed.len() > MAX_SIMPLE_KEY {
                    return None;
                }
                return Some(Lead::Key(Cow::Owned(text), value));
            }
            ends_line(after).then_some(Lead::Value(Node::String(Cow::Owned(text))))
        }
        b'[' | b'{' => {
            let (value, after) = flow(s, depth, nulls)?;
            ends_line(after).then_some(Lead::Value(value))
        }
        b'|' | b'>' => Some(Lead::Literal(s)),
        _ => {
            if !plain_may_start(b, false) {
                return None;
            }
            let (text, key_end) = plain_block(s)?;
            match key_end {
                Some(after) if s.len() - after.len() > MAX_SIMPLE_KEY => None,
                Some(after) => Some(Lead::Key(Cow::Borrowed(text), after)),
                None => Some(Lead::Value(resolve_plain(text)?)),
            }
        }
    }
}

fn is_entry(rest: &str) -> bool {
    let b = rest.as_bytes();
    b.first() == Some(&b'-') && matches!(b.get(1), None | Some(b' '))
}

/// Whether only spaces and maybe a comment follow a node on its line.
pub(super) fn ends_line(after: &str) -> bool {
    after.is_empty()
        || (after.as_bytes().first() == Some(&b' ')
            && matches!(after.trim_start_matches(' ').as_bytes().first(), None | Some(b'#')))
}

/// `Some(Some(b'-'))` for `---`, `Some(Some(b'.'))` for `...` (each alone on its line but
/// for a comment), `Some(None)` for other lines, `None` for a marker followed by content.
fn document_marker(line: &str) -> Option<Option<u8>> {
    let marker = if line.starts_with("---") {
        b'-'
    } else if line.starts_with("...") {
        b'.'
    } else {
        return Some(None);
    };
    match line.as_bytes().get(3) {
        None => Some(Some(marker)),
        Some(b' ') if matches!(line[3..].trim_start_matches(' ').as_bytes().first(), None | Some(b'#')) => {
            Some(Some(marker))
        }
        Some(b' ' | b'\t') => None,
        Some(_) => Some(None),
    }
}

/// `---` or `...` at the start of a line, followed by a blank or the line's end: libyaml
/// ends a document there even inside a quoted scalar (and reports an error).
pub(super) fn is_document_marker(line: &str) -> bool {
    crate::input::documents::DocumentMarker::of(line).is_some()
}
