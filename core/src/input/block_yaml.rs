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
//!   integers in four bases, floats, `.inf`/`.nan`, the rest strings);
//! - single- and double-quoted scalars (the common escapes), also folded over several lines
//!   as kubectl prints long messages, but not as keys;
//! - flow collections on one line, nested, with plain or quoted scalars;
//! - literal block scalars `|`, `|-`, `|+` (no indentation indicator);
//! - comments, blank lines, `---` and `...`; CRLF line breaks.
//!
//! Outside: plain scalars over several lines, folded block scalars, anchors, aliases, tags,
//! directives, complex keys, flow collections over several lines, nesting deeper than
//! serde_yaml's 128 levels, keys longer than libyaml's 1,024 characters, and any character
//! libyaml rejects or reads as a line break.
//!
//! The reader keeps an explicit stack of open collections (no recursion, so hostile nesting
//! cannot overflow the call stack) and looks at each line a bounded number of times.

use serde_json::{Map, Number, Value};

/// Which subtrees to skip without building Values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prune {
    /// Build every value: for callers that keep whole objects (Gatekeeper reviews them).
    Nothing,
    /// Skip what the typed model in [`crate::model`] never reads, at the top of each object
    /// (a document, or an item of the top-level `items` sequence or of a top-level
    /// sequence): every child of `metadata` but those of `ObjectMeta` (so `managedFields`),
    /// every child of `status` except `allocatable` and `capacity`, and, once `kind: Node`
    /// has been read, every child of `spec` except `taints` and `unschedulable`. Only block
    /// mapping entries are skipped (flow values are read). A second `kind` in an object
    /// makes the reader give up.
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
            Event::Document { value, .. } => values.push(value),
            Event::Item(_) => return None,
            Event::End => break,
        }
    }
    Some(Documents { values, nulls: events.nulls() })
}

/// What [`Events::next`] read.
pub(crate) enum Event {
    /// A whole document; with items streamed, a top-level `items` sequence or a top-level
    /// sequence in it is empty: its items came before, as [`Event::Item`]s.
    /// `items_replaced` when it has more than one top-level `items` key, so that the items
    /// streamed were not all its own (the last key wins).
    Document {
        value: Value,
        items_replaced: bool,
    },
    /// An item of the top-level `items` sequence, or of a top-level sequence, of the
    /// document being read (only when streaming items).
    Item(Value),
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
    pub(crate) fn next(&mut self) -> Option<Event> {
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

/// Where a node sits, for pruning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Plain,
    /// The top of an object; `root` for the document's own top node.
    Object {
        root: bool,
        kind: Kind,
        /// Whether a `spec` came already: with `kind` after the first one, the object's key
        /// order (which is the first occurrence's) does not say it is a Node's.
        spec: bool,
    },
    Items,
    Metadata,
    Status,
    /// A Node's `spec` (known to be a Node's when `kind` came first, as kubectl prints it).
    NodeSpec,
    Skip,
}

/// The `kind` read so far at the top of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Unread,
    Node,
    Other,
}

const OBJECT: Ctx = Ctx::Object { root: false, kind: Kind::Unread, spec: false };

/// The fields of `crate::model::ObjectMeta`.
const META_FIELDS: [&str; 6] = ["name", "generateName", "namespace", "labels", "annotations", "ownerReferences"];

fn child_ctx(parent: Ctx, key: &str) -> Ctx {
    match parent {
        Ctx::Object { root, kind, spec } => match key {
            "metadata" => Ctx::Metadata,
            "status" => Ctx::Status,
            "spec" if kind == Kind::Node && !spec => Ctx::NodeSpec,
            "items" if root => Ctx::Items,
            _ => Ctx::Plain,
        },
        Ctx::Metadata if !META_FIELDS.contains(&key) => Ctx::Skip,
        Ctx::Status if key != "allocatable" && key != "capacity" => Ctx::Skip,
        Ctx::NodeSpec if key != "taints" && key != "unschedulable" => Ctx::Skip,
        _ => Ctx::Plain,
    }
}

/// Whether a sequence's items are the objects a streaming caller wants one at a time: those
/// of the top-level `items` sequence or of a top-level sequence.
fn streams(ctx: Ctx) -> bool {
    matches!(ctx, Ctx::Items | Ctx::Object { root: true, .. })
}

fn item_ctx(parent: Ctx) -> Ctx {
    match parent {
        Ctx::Items | Ctx::Object { root: true, .. } => OBJECT,
        _ => Ctx::Plain,
    }
}

/// An open block collection. Its members wait in [`Reader::entries`] or [`Reader::items`]
/// from `start` on, so that each collection is allocated once, at its final size.
enum Frame {
    Map {
        /// Column of its keys.
        indent: usize,
        start: usize,
        /// A key read without its value yet (the value starts on a later line).
        pending: Option<(String, Ctx)>,
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

struct Reader<'a> {
    text: &'a str,
    /// Start of the next unread line.
    pos: usize,
    prune: bool,
    /// Whether items of top-level sequences go out as [`Event::Item`]s.
    stream_items: bool,
    state: DocState,
    /// Whether the end of the text has been read.
    done: bool,
    events: std::collections::VecDeque<Event>,
    stack: Vec<Frame>,
    /// Members of the open mappings and sequences, innermost last.
    entries: Vec<(String, Value)>,
    items: Vec<Value>,
    /// The current document's top node, once complete.
    root: Option<Value>,
    /// Whether a mapping got a null member.
    nulls: bool,
    /// `items` keys at the top of the current document (when streaming items).
    items_keys: usize,
}

/// One line, without its line break (and a CR before it).
struct Line<'a> {
    text: &'a str,
    /// Start of the line after it.
    next: usize,
    /// Whether a line break ends it (the last line of a text may have none).
    broken: bool,
}

#[derive(PartialEq)]
enum DocState {
    /// No document started yet.
    Before,
    Open,
    /// After `...`: only `---` or the end may follow.
    Ended,
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<Line<'a>> {
        let rest = self.text.get(self.pos..).filter(|r| !r.is_empty())?;
        let (len, next, broken) = match find_newline(rest.as_bytes()) {
            Some(i) => (i, self.pos + i + 1, true),
            None => (rest.len(), self.text.len(), false),
        };
        let text = &rest[..len];
        Some(Line { text: text.strip_suffix('\r').unwrap_or(text), next, broken })
    }

    /// Reads one line (or the end), queueing what it completes.
    fn step(&mut self) -> Option<()> {
        let Some(line) = self.peek() else {
            match self.state {
                DocState::Open => self.finish()?,
                // serde_yaml gives an empty stream one empty document.
                DocState::Before => {
                    self.events.push_back(Event::Document { value: Value::Null, items_replaced: false })
                }
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
                None if rest.starts_with('%') => return None,
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
        let value = self.root.take().unwrap_or(Value::Null);
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
                            self.member(key, Value::Null)?;
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
                        self.item(Value::Null);
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
                self.complete(Value::String(text))
            }
            Lead::OpenQuote(s) => {
                let text = self.multiline_quoted(s)?;
                self.complete(Value::String(text))
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
    fn map_value(&mut self, key: String, after: &'a str) -> Option<()> {
        let Some(Frame::Map { indent, ctx, .. }) = self.stack.last() else { return None };
        let (n, ctx) = (*indent, child_ctx(*ctx, &key));
        let value = after.trim_start_matches(' ');
        if value.is_empty() || value.starts_with('#') {
            if ctx == Ctx::Skip {
                return self.skip_block(n);
            }
            let Some(Frame::Map { pending, .. }) = self.stack.last_mut() else { return None };
            *pending = Some((key, ctx));
            return Some(());
        }
        let v = match lead(value, self.stack.len(), &mut self.nulls)? {
            Lead::Value(v) if ctx == Ctx::Skip => {
                // A skipped plain scalar may go on over the next lines (kubectl folds long
                // messages).
                if !matches!(value.as_bytes()[0], b'"' | b'\'' | b'[' | b'{') {
                    self.skip_plain_continuation(n);
                }
                v
            }
            Lead::Value(v) => v,
            Lead::Literal(header) if ctx == Ctx::Skip => {
                literal_header(header)?;
                return self.skip_indented(n);
            }
            Lead::Literal(header) => Value::String(self.literal(header, n)?),
            Lead::OpenQuote(s) => Value::String(self.multiline_quoted(s)?),
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
        if content.is_empty() || content.starts_with('#') {
            return Some(());
        }
        self.start_node(col + 1 + gap, content, ctx, Some(col))
    }

    /// Adds an item to the sequence on top, or sends it out.
    fn item(&mut self, value: Value) {
        match self.stack.last() {
            Some(Frame::Seq { ctx, .. }) if self.stream_items && streams(*ctx) => {
                self.events.push_back(Event::Item(value));
            }
            _ => self.items.push(value),
        }
    }

    /// Adds a member to the mapping on top.
    fn member(&mut self, key: String, value: Value) -> Option<()> {
        self.nulls |= value.is_null();
        if let Some(Frame::Map { ctx: Ctx::Object { kind, spec, .. }, .. }) = self.stack.last_mut() {
            match key.as_str() {
                // A second `kind` would change what the object is after its spec may have
                // been pruned as a Node's: leave such a text to serde_yaml.
                "kind" if *kind != Kind::Unread => return None,
                "kind" => *kind = if value == "Node" { Kind::Node } else { Kind::Other },
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

    fn push(&mut self, frame: Frame) -> Option<()> {
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
                    if key == "kind" && matches!(ctx, Ctx::Object { kind: Kind::Node | Kind::Other, .. }) {
                        return None;
                    }
                    self.entries.push((key, Value::Null));
                    self.nulls = true;
                }
                let mut map = Map::with_capacity(self.entries.len() - start);
                // Duplicate keys: the last value, in the first one's place, as serde_json.
                for (key, value) in self.entries.drain(start..) {
                    map.insert(key, value);
                }
                Value::Object(map)
            }
            Frame::Seq { start, awaiting, ctx, .. } => {
                if awaiting {
                    if self.stream_items && streams(ctx) {
                        self.events.push_back(Event::Item(Value::Null));
                    } else {
                        self.items.push(Value::Null);
                    }
                }
                Value::Array(self.items.drain(start..).collect())
            }
        };
        self.complete(value)
    }

    /// Gives a finished node to whatever waits for it.
    fn complete(&mut self, value: Value) -> Option<()> {
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

    /// A quoted scalar that starts at `s[0]` and continues on the next lines, folded as
    /// libyaml folds it: a line break becomes a space, each empty line a line feed, blanks
    /// around breaks go, and a double-quoted `\\` at the end of a line joins the lines.
    /// libyaml does not look at the continuation lines' indentation.
    fn multiline_quoted(&mut self, s: &'a str) -> Option<String> {
        let quote = s.as_bytes()[0];
        let mut out = String::new();
        let mut segment = quoted_segment(&s[1..], quote, &mut out)?;
        loop {
            let escaped = match segment {
                // A multi-line key would be an error: only the line's end may follow.
                Segment::Closed(rest) => return ends_line(rest).then_some(out),
                Segment::Open { escaped, keep } => {
                    if !escaped {
                        out.truncate(keep);
                    }
                    escaped
                }
            };
            let mut empty_lines = 0;
            let content = loop {
                let line = self.peek()?;
                self.pos = line.next;
                if is_document_marker(line.text) {
                    return None;
                }
                let content = line.text.trim_start_matches([' ', '\t']);
                if !content.is_empty() {
                    break content;
                }
                empty_lines += 1;
            };
            if empty_lines == 0 && !escaped {
                out.push(' ');
            }
            out.extend(std::iter::repeat_n('\n', empty_lines));
            segment = quoted_segment(content, quote, &mut out)?;
        }
    }

    /// The lines of a literal block scalar whose header (`|`, `|-`, `|+`, maybe a comment)
    /// ended the previous line; its lines must be indented more than `parent`.
    fn literal(&mut self, header: &str, parent: usize) -> Option<String> {
        let chomp = literal_header(header)?;
        let mut out = String::new();
        let mut block_indent = None;
        let mut widest_blank = 0;
        // Line breaks of empty lines not yet written: they count only if content follows,
        // or with `|+`.
        let mut breaks = 0usize;
        let mut content = false;
        // Whether a line break follows the last content line (not so at the very end).
        let mut content_broken = false;
        while let Some(line) = self.peek() {
            let sp = spaces(line.text);
            let blank = sp == line.text.len();
            let bi = match block_indent {
                Some(bi) => bi,
                None if blank => {
                    widest_blank = widest_blank.max(sp);
                    breaks += usize::from(line.broken);
                    self.pos = line.next;
                    continue;
                }
                None => {
                    if sp <= parent {
                        break;
                    }
                    // libyaml: "found a tab character where an indentation space is expected"
                    if line.text.as_bytes()[sp] == b'\t' {
                        return None;
                    }
                    // libyaml takes the widest leading blank line as the indentation.
                    if widest_blank > sp {
                        return None;
                    }
                    block_indent = Some(sp);
                    sp
                }
            };
            if blank && sp <= bi {
                breaks += usize::from(line.broken);
                self.pos = line.next;
                continue;
            }
            if sp < bi {
                break;
            }
            if content {
                out.push('\n');
            }
            out.extend(std::iter::repeat_n('\n', breaks));
            breaks = 0;
            out.push_str(&line.text[bi..]);
            content = true;
            content_broken = line.broken;
            self.pos = line.next;
        }
        match chomp {
            Chomp::Strip => {}
            Chomp::Clip => {
                if content_broken {
                    out.push('\n');
                }
            }
            Chomp::Keep if !content && breaks > 0 => return None,
            Chomp::Keep => {
                if content_broken {
                    out.push('\n');
                }
                out.extend(std::iter::repeat_n('\n', breaks));
            }
        }
        Some(out)
    }

    /// Skips the lines of a value that starts after `key:` at column `n`: lines indented
    /// more, or a sequence at the same column, plus blank and comment lines, and the lines a
    /// quoted scalar or flow collection continues on, whatever their indentation.
    fn skip_block(&mut self, n: usize) -> Option<()> {
        let mut first = true;
        let mut same_column_sequence = false;
        let mut floor: Option<Floor> = None;
        let mut carry = Carry::default();
        while let Some(line) = self.peek() {
            if carry.is_open() {
                if is_document_marker(line.text) {
                    return None;
                }
                carry = carry.next_line(line.text.trim_start_matches([' ', '\t']).as_bytes());
                self.pos = line.next;
                continue;
            }
            let sp = spaces(line.text);
            let body = &line.text.as_bytes()[sp..];
            if body.is_empty() {
                self.pos = line.next;
                continue;
            }
            if let Some(f) = floor {
                // A `#` ends a plain scalar; in a block scalar it is text.
                if sp > f.indent && !(f.plain && body[0] == b'#') {
                    self.pos = line.next;
                    continue;
                }
                floor = None;
            }
            match body[0] {
                b'\t' => return None,
                b'#' => {
                    self.pos = line.next;
                    continue;
                }
                _ => {}
            }
            let entry = sp == n && (body[0] == b'-' && matches!(body.get(1), None | Some(b' ')));
            if sp > n || (entry && (first || same_column_sequence)) {
                same_column_sequence |= first && entry;
                first = false;
                match skipped_line(sp, body)? {
                    Skipped::Done => {}
                    Skipped::Open(c) => carry = c,
                    Skipped::Floor(f) => floor = Some(f),
                }
                self.pos = line.next;
                continue;
            }
            break;
        }
        // A quoted scalar or flow collection still open at the end is an error.
        (!carry.is_open()).then_some(())
    }

    /// Skips the lines that continue a plain scalar after `key:` at column `n`.
    fn skip_plain_continuation(&mut self, n: usize) {
        while let Some(line) = self.peek() {
            let sp = spaces(line.text);
            if sp < line.text.len() && (sp <= n || line.text.as_bytes()[sp] == b'#') {
                break;
            }
            self.pos = line.next;
        }
    }

    /// Skips a block scalar's lines: those indented more than `n`, and blank ones.
    fn skip_indented(&mut self, n: usize) -> Option<()> {
        while let Some(line) = self.peek() {
            let sp = spaces(line.text);
            if sp < line.text.len() && sp <= n {
                if line.text.as_bytes()[sp] == b'\t' {
                    return None;
                }
                break;
            }
            self.pos = line.next;
        }
        Some(())
    }
}

/// What a node's first line holds.
enum Lead<'a> {
    /// `- ...`: a sequence entry.
    Entry,
    /// A key, and the rest of the line after its `:`.
    Key(String, &'a str),
    /// A whole node on this line (scalar or flow collection).
    Value(Value),
    /// A block scalar header.
    Literal(&'a str),
    /// A quoted scalar that continues on the next line.
    OpenQuote(&'a str),
}

/// Reads the start of a node (`s` is non-empty, from its first non-space byte). `depth`
/// open collections enclose it; `nulls` as for [`flow`].
fn lead<'a>(s: &'a str, depth: usize, nulls: &mut bool) -> Option<Lead<'a>> {
    let b = s.as_bytes();
    match b[0] {
        b'-' if b.len() == 1 || b[1] == b' ' => Some(Lead::Entry),
        b'"' | b'\'' => {
            let Quoted::Closed(text, after) = quoted(s)? else { return Some(Lead::OpenQuote(s)) };
            let trimmed = after.trim_start_matches(' ');
            if let Some(value) = trimmed.strip_prefix(':') {
                if !(value.is_empty() || value.starts_with(' ')) || s.len() - trimmed.len() > MAX_SIMPLE_KEY {
                    return None;
                }
                return Some(Lead::Key(text, value));
            }
            ends_line(after).then_some(Lead::Value(Value::String(text)))
        }
        b'[' | b'{' => {
            let (value, after) = flow(s, depth, nulls)?;
            ends_line(after).then_some(Lead::Value(value))
        }
        b'|' => Some(Lead::Literal(s)),
        _ => {
            if !plain_may_start(b, false) {
                return None;
            }
            let (text, key_end) = plain_block(s)?;
            match key_end {
                Some(after) if s.len() - after.len() > MAX_SIMPLE_KEY => None,
                Some(after) => Some(Lead::Key(text.to_string(), after)),
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
fn ends_line(after: &str) -> bool {
    after.is_empty()
        || (after.starts_with(' ') && matches!(after.trim_start_matches(' ').as_bytes().first(), None | Some(b'#')))
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
fn is_document_marker(line: &str) -> bool {
    (line.starts_with("---") || line.starts_with("...")) && matches!(line.as_bytes().get(3), None | Some(b' ' | b'\t'))
}

#[derive(Clone, Copy)]
enum Chomp {
    Clip,
    Strip,
    Keep,
}

fn literal_header(header: &str) -> Option<Chomp> {
    let (chomp, rest) = match header.as_bytes().get(1) {
        Some(b'-') => (Chomp::Strip, &header[2..]),
        Some(b'+') => (Chomp::Keep, &header[2..]),
        _ => (Chomp::Clip, &header[1..]),
    };
    ends_line(rest).then_some(chomp)
}

// ---------------------------------------------------------------------------------------------
// Scalars

/// Whether a plain scalar may start with `b[0]` (YAML's indicator characters may not, and
/// `-`, `?`, `:` only before a non-space; `?` and `:` are left to serde_yaml).
fn plain_may_start(b: &[u8], flow: bool) -> bool {
    match b[0] {
        b'-' => b.len() > 1 && b[1] != b' ' && !(flow && matches!(b[1], b',' | b'[' | b']' | b'{' | b'}')),
        b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"'
        | b'%' | b'@' | b'`' => false,
        _ => true,
    }
}

/// A plain scalar in block context on one line: its text and, when `: ` ends it (a key),
/// the rest after the `:`. `None` for a tab (libyaml's rules for tabs are subtle).
fn plain_block(s: &str) -> Option<(&str, Option<&str>)> {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        i = next_where(b, i, |c| c == b':' || c == b'#' || c == b'\t');
        match b.get(i) {
            None => return Some((s.trim_end_matches(' '), None)),
            Some(b':') if i + 1 == b.len() || b[i + 1] == b' ' => {
                return Some((s[..i].trim_end_matches(' '), Some(&s[i + 1..])));
            }
            Some(b'#') if i > 0 && b[i - 1] == b' ' => return Some((s[..i].trim_end_matches(' '), None)),
            Some(b'\t') => return None,
            _ => {}
        }
        i += 1;
    }
}

/// A plain scalar in a flow collection: its text, the rest from where it ends, and whether
/// a `: ` ends it.
fn plain_flow(s: &str) -> Option<(&str, &str, bool)> {
    let b = s.as_bytes();
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b',' | b'[' | b']' | b'{' | b'}' => break,
            b':' => match b.get(i + 1) {
                None | Some(b' ') => return Some((s[..i].trim_end_matches(' '), &s[i..], true)),
                // libyaml: "found unexpected ':'"
                Some(b',' | b'?' | b'[' | b']' | b'{' | b'}') => return None,
                _ => {}
            },
            b'#' if i > 0 && b[i - 1] == b' ' => return None,
            b'\t' => return None,
            _ => {}
        }
        i += 1;
    }
    Some((s[..i].trim_end_matches(' '), &s[i..], false))
}

/// A quoted scalar that starts at `s[0]`.
enum Quoted<'a> {
    /// Closed on this line: its value and the rest of the line.
    Closed(String, &'a str),
    /// Continued on the next line.
    Open,
}

fn quoted(s: &str) -> Option<Quoted<'_>> {
    let mut out = String::new();
    Some(match quoted_segment(&s[1..], s.as_bytes()[0], &mut out)? {
        Segment::Closed(rest) => Quoted::Closed(out, rest),
        Segment::Open { .. } => Quoted::Open,
    })
}

/// How one line of a quoted scalar ends.
enum Segment<'a> {
    /// At the closing quote: the rest of the line after it.
    Closed(&'a str),
    /// At the line's end. `escaped` when a double-quoted `\` escapes the line break; `keep`
    /// is the length of `out` without the line's trailing blanks, which folding drops.
    Open { escaped: bool, keep: usize },
}

/// Appends one line's part of a quoted scalar (after the opening quote, or after a
/// continuation line's leading blanks) to `out`, decoding escapes.
fn quoted_segment<'a>(s: &'a str, quote: u8, out: &mut String) -> Option<Segment<'a>> {
    let b = s.as_bytes();
    let mut keep = out.len();
    let (mut i, mut start) = (0, 0);
    loop {
        let Some(offset) = b[i..].iter().position(|&c| c == quote || (quote == b'"' && c == b'\\')) else {
            push_raw(out, &s[start..], &mut keep);
            return Some(Segment::Open { escaped: false, keep });
        };
        let j = i + offset;
        push_raw(out, &s[start..j], &mut keep);
        if b[j] == quote {
            if quote == b'\'' && b.get(j + 1) == Some(&b'\'') {
                out.push('\'');
                keep = out.len();
                i = j + 2;
                start = i;
                continue;
            }
            return Some(Segment::Closed(&s[j + 1..]));
        }
        let Some(&escape) = b.get(j + 1) else {
            return Some(Segment::Open { escaped: true, keep: out.len() });
        };
        let (c, len) = match escape {
            b'"' => ('"', 2),
            b'\\' => ('\\', 2),
            b'/' => ('/', 2),
            b'n' => ('\n', 2),
            b't' => ('\t', 2),
            b'r' => ('\r', 2),
            b'0' => ('\0', 2),
            b'x' => (hex_char(s, j + 2, 2)?, 4),
            b'u' => (hex_char(s, j + 2, 4)?, 6),
            b'U' => (hex_char(s, j + 2, 8)?, 10),
            _ => return None,
        };
        out.push(c);
        keep = out.len();
        i = j + len;
        start = i;
    }
}

/// Appends raw scalar text, moving `keep` past its last non-blank character.
fn push_raw(out: &mut String, chunk: &str, keep: &mut usize) {
    out.push_str(chunk);
    let kept = chunk.trim_end_matches([' ', '\t']).len();
    if kept > 0 {
        *keep = out.len() - chunk.len() + kept;
    }
}

fn hex_char(s: &str, at: usize, len: usize) -> Option<char> {
    let digits = s.get(at..at + len)?;
    if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    char::from_u32(u32::from_str_radix(digits, 16).ok()?)
}

/// The value serde_yaml 0.9.34 gives an untagged plain scalar deserialized into a
/// `serde_json::Value` (its `visit_untagged_scalar`), or `None` where that is an error:
/// integers beyond u64/i64 that fit 128 bits, which serde_json's Value refuses.
fn resolve_plain(v: &str) -> Option<Value> {
    // Most scalars are names; only these first bytes can give anything but a string.
    if !matches!(
        v.as_bytes().first(),
        None | Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'~' | b'n' | b'N' | b't' | b'T' | b'f' | b'F')
    ) {
        return Some(Value::String(v.to_string()));
    }
    if v.is_empty() || matches!(v, "~" | "null" | "Null" | "NULL") {
        return Some(Value::Null);
    }
    match v {
        "true" | "True" | "TRUE" => return Some(Value::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Value::Bool(false)),
        _ => {}
    }
    if let Some(int) = parse_unsigned_int(v, u64::from_str_radix) {
        return Some(Value::Number(int.into()));
    }
    if let Some(int) = parse_negative_int(v, i64::from_str_radix) {
        return Some(Value::Number(int.into()));
    }
    if parse_unsigned_int(v, u128::from_str_radix).is_some() || parse_negative_int(v, i128::from_str_radix).is_some() {
        return None;
    }
    if !digits_but_not_number(v) {
        if let Some(float) = parse_f64(v) {
            return Some(Number::from_f64(float).map_or(Value::Null, Value::Number));
        }
    }
    Some(Value::String(v.to_string()))
}

// The four functions below are serde_yaml 0.9.34's (src/de.rs, MIT OR Apache-2.0), copied
// so that numbers resolve exactly as the fallback resolves them.

fn parse_unsigned_int<T>(
    scalar: &str,
    from_str_radix: fn(&str, u32) -> Result<T, std::num::ParseIntError>,
) -> Option<T> {
    let unpositive = scalar.strip_prefix('+').unwrap_or(scalar);
    if let Some(rest) = unpositive.strip_prefix("0x") {
        if rest.starts_with(['+', '-']) {
            return None;
        }
        if let Ok(int) = from_str_radix(rest, 16) {
            return Some(int);
        }
    }
    if let Some(rest) = unpositive.strip_prefix("0o") {
        if rest.starts_with(['+', '-']) {
            return None;
        }
        if let Ok(int) = from_str_radix(rest, 8) {
            return Some(int);
        }
    }
    if let Some(rest) = unpositive.strip_prefix("0b") {
        if rest.starts_with(['+', '-']) {
            return None;
        }
        if let Ok(int) = from_str_radix(rest, 2) {
            return Some(int);
        }
    }
    if unpositive.starts_with(['+', '-']) {
        return None;
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(unpositive, 10).ok()
}

fn parse_negative_int<T>(
    scalar: &str,
    from_str_radix: fn(&str, u32) -> Result<T, std::num::ParseIntError>,
) -> Option<T> {
    if let Some(rest) = scalar.strip_prefix("-0x") {
        let negative = format!("-{rest}");
        if let Ok(int) = from_str_radix(&negative, 16) {
            return Some(int);
        }
    }
    if let Some(rest) = scalar.strip_prefix("-0o") {
        let negative = format!("-{rest}");
        if let Ok(int) = from_str_radix(&negative, 8) {
            return Some(int);
        }
    }
    if let Some(rest) = scalar.strip_prefix("-0b") {
        let negative = format!("-{rest}");
        if let Ok(int) = from_str_radix(&negative, 2) {
            return Some(int);
        }
    }
    if digits_but_not_number(scalar) {
        return None;
    }
    from_str_radix(scalar, 10).ok()
}

fn parse_f64(scalar: &str) -> Option<f64> {
    let unpositive = if let Some(unpositive) = scalar.strip_prefix('+') {
        if unpositive.starts_with(['+', '-']) {
            return None;
        }
        unpositive
    } else {
        scalar
    };
    if let ".inf" | ".Inf" | ".INF" = unpositive {
        return Some(f64::INFINITY);
    }
    if let "-.inf" | "-.Inf" | "-.INF" = scalar {
        return Some(f64::NEG_INFINITY);
    }
    if let ".nan" | ".NaN" | ".NAN" = scalar {
        return Some(f64::NAN.copysign(1.0));
    }
    if let Ok(float) = unpositive.parse::<f64>() {
        if float.is_finite() {
            return Some(float);
        }
    }
    None
}

fn digits_but_not_number(scalar: &str) -> bool {
    // Leading zero(s) followed by numeric characters is a string according to the YAML 1.2
    // spec.
    let scalar = scalar.strip_prefix(['-', '+']).unwrap_or(scalar);
    scalar.len() > 1 && scalar.starts_with('0') && scalar[1..].bytes().all(|b| b.is_ascii_digit())
}

// ---------------------------------------------------------------------------------------------
// Flow collections

enum Flow {
    Seq(Vec<Value>),
    Map(Map<String, Value>, Option<String>),
}

#[derive(PartialEq)]
enum FlowWant {
    /// After `[`/`{`: an entry or the closing bracket.
    First,
    /// After `,`: an entry.
    Entry,
    /// After a mapping key: `:`.
    Colon,
    /// After a mapping's `:`: the value.
    Value,
    /// After an entry: `,` or the closing bracket.
    Next,
}

/// A flow collection that starts at `s[0]` (`[` or `{`) and ends on this line, inside
/// `depth` open collections: its value and the rest of the line. Sets `nulls` when a
/// mapping gets a null member.
fn flow<'a>(s: &'a str, depth: usize, nulls: &mut bool) -> Option<(Value, &'a str)> {
    let b = s.as_bytes();
    let mut stack: Vec<Flow> = Vec::new();
    let mut i = 0;
    let mut want = FlowWant::Entry;
    loop {
        while b.get(i) == Some(&b' ') {
            i += 1;
        }
        let c = *b.get(i)?;
        let in_map = matches!(stack.last(), Some(Flow::Map(..)));
        // Closing brackets and separators.
        match (&want, c) {
            (FlowWant::First | FlowWant::Next, b']' | b'}') => {
                let value = match (stack.pop()?, c) {
                    (Flow::Seq(items), b']') => Value::Array(items),
                    (Flow::Map(map, None), b'}') => Value::Object(map),
                    _ => return None,
                };
                i += 1;
                match stack.last_mut() {
                    None => return Some((value, &s[i..])),
                    Some(parent) => flow_add(parent, value, nulls)?,
                }
                want = FlowWant::Next;
                continue;
            }
            (FlowWant::Next, b',') => {
                i += 1;
                want = FlowWant::Entry;
                continue;
            }
            (FlowWant::Next, _) => return None,
            (FlowWant::Colon, b':') => {
                i += 1;
                want = FlowWant::Value;
                continue;
            }
            (FlowWant::Colon, _) => return None,
            _ => {}
        }
        // An entry, a key or a value.
        let key_wanted = in_map && want != FlowWant::Value;
        match c {
            b'[' | b'{' => {
                if key_wanted || depth + stack.len() >= MAX_DEPTH {
                    return None;
                }
                stack.push(if c == b'[' { Flow::Seq(Vec::new()) } else { Flow::Map(Map::new(), None) });
                i += 1;
                want = FlowWant::First;
                continue;
            }
            b'"' | b'\'' => {
                let Quoted::Closed(text, after) = quoted(&s[i..])? else { return None };
                let start = i;
                i = s.len() - after.len();
                if key_wanted {
                    if i - start > MAX_SIMPLE_KEY {
                        return None;
                    }
                    set_key(stack.last_mut()?, text)?;
                    want = FlowWant::Colon;
                } else {
                    flow_add(stack.last_mut()?, Value::String(text), nulls)?;
                    want = FlowWant::Next;
                }
            }
            _ => {
                if !plain_may_start(&b[i..], true) {
                    return None;
                }
                let start = i;
                let (text, after, colon) = plain_flow(&s[i..])?;
                i = s.len() - after.len();
                if key_wanted {
                    if !colon || i - start > MAX_SIMPLE_KEY {
                        return None;
                    }
                    set_key(stack.last_mut()?, text.to_string())?;
                    want = FlowWant::Colon;
                } else {
                    if colon {
                        // `[a: b]` (a one-pair mapping) or `{a: b: c}`
                        return None;
                    }
                    flow_add(stack.last_mut()?, resolve_plain(text)?, nulls)?;
                    want = FlowWant::Next;
                }
            }
        }
    }
}

fn set_key(top: &mut Flow, text: String) -> Option<()> {
    match top {
        Flow::Map(_, key @ None) => {
            *key = Some(text);
            Some(())
        }
        _ => None,
    }
}

fn flow_add(top: &mut Flow, value: Value, nulls: &mut bool) -> Option<()> {
    match top {
        Flow::Seq(items) => items.push(value),
        Flow::Map(map, key) => {
            *nulls |= value.is_null();
            map.insert(key.take()?, value);
        }
    }
    Some(())
}

// ---------------------------------------------------------------------------------------------
// Skipped lines
//
// A skipped subtree ends at the first line indented no more than its key, except that quoted
// scalars and flow collections run on to their closing character whatever the indentation of
// the lines between. So the skipper reads each line's structure as far as it decides that:
// the `- ` entries and the key, then the first character of the value. A plain value's text
// is never scanned (quotes inside it are text), nor are the lines that continue it or a block
// scalar: those are recognized by indentation.

/// What a skipped line leaves for the next lines.
enum Skipped {
    Done,
    /// A quoted scalar or flow collection continues.
    Open(Carry),
    /// A plain or block scalar continues on the lines indented more than `indent`.
    Floor(Floor),
}

#[derive(Debug, Clone, Copy)]
struct Floor {
    indent: usize,
    plain: bool,
}

/// A quoted scalar and/or flow collection open at the end of a skipped line.
#[derive(Debug, Default, Clone, Copy)]
struct Carry {
    quote: Option<u8>,
    depth: usize,
}

impl Carry {
    fn is_open(&self) -> bool {
        self.quote.is_some() || self.depth > 0
    }

    /// Follows the construct on its next line (`body` from its first non-blank).
    fn next_line(self, body: &[u8]) -> Carry {
        let mut from = 0;
        if let Some(quote) = self.quote {
            match quote_end(body, 0, quote) {
                Some(end) => from = end,
                None => return self,
            }
        }
        scan_flow(body, from, self.depth)
    }
}

/// Reads a skipped line's structure (indented `indent`, `body` from its first non-space).
/// `None` for what the skipper does not follow (anchors, tags, aliases, complex keys, a
/// plain or block scalar alone on its line, whose parent's column is unknown).
fn skipped_line(indent: usize, body: &[u8]) -> Option<Skipped> {
    // `- ` entries: the value of the last one is owned by its sequence.
    let (mut col, mut k, mut dash) = (indent, 0, None);
    while body.get(k) == Some(&b'-') && matches!(body.get(k + 1), None | Some(b' ')) {
        dash = Some(col);
        let gap = body[k + 1..].iter().take_while(|&&c| c == b' ').count();
        k += 1 + gap;
        col += 1 + gap;
    }
    let node = &body[k..];
    let Some(&first) = node.first() else { return Some(Skipped::Done) };
    // A key (then its value is owned by the mapping at `col`), or a value alone.
    let (value, owner) = match first {
        b'#' => return Some(Skipped::Done),
        b'"' | b'\'' => {
            let Some(end) = quote_end(node, 1, first) else {
                return Some(Skipped::Open(Carry { quote: Some(first), depth: 0 }));
            };
            let after = &node[end..];
            let colon = after.iter().position(|&c| c != b' ');
            match colon {
                Some(c) if after[c] == b':' && matches!(after.get(c + 1), None | Some(b' ' | b'\t')) => {
                    (&after[c + 1..], Some(col))
                }
                _ => return Some(Skipped::Done),
            }
        }
        b'[' | b'{' => return Some(open_flow(node)),
        _ => match plain_key_end(node) {
            Some(value) => (value, Some(col)),
            None => (node, dash),
        },
    };
    let start = value.iter().position(|&c| c != b' ' && c != b'\t').unwrap_or(value.len());
    let value = &value[start..];
    let Some(&c) = value.first() else { return Some(Skipped::Done) };
    Some(match c {
        b'#' => Skipped::Done,
        b'"' | b'\'' => match quote_end(value, 1, c) {
            Some(_) => Skipped::Done,
            None => Skipped::Open(Carry { quote: Some(c), depth: 0 }),
        },
        b'[' | b'{' => open_flow(value),
        b'|' | b'>' => {
            let rest = &value[1..];
            let header = rest.iter().take_while(|&&c| matches!(c, b'-' | b'+' | b'0'..=b'9')).count();
            let tail = &rest[header..];
            let blank = tail.iter().take_while(|&&c| c == b' ' || c == b'\t').count();
            if !(blank == tail.len() || (blank > 0 && tail[blank] == b'#')) {
                return None;
            }
            Skipped::Floor(Floor { indent: owner?, plain: false })
        }
        b'&' | b'!' | b'*' | b'?' | b'%' | b'@' | b'`' => return None,
        b'-' if matches!(value.get(1), None | Some(b' ')) => return None,
        _ => Skipped::Floor(Floor { indent: owner?, plain: true }),
    })
}

/// Where a plain scalar at the start of `node` is a key (`: ` or `:` at the end), the rest
/// after the `:`; `None` when a comment or the line's end comes first.
fn plain_key_end(node: &[u8]) -> Option<&[u8]> {
    let mut i = 0;
    loop {
        i = next_where(node, i, |c| c == b':' || c == b'#');
        match node.get(i)? {
            b':' if matches!(node.get(i + 1), None | Some(b' ' | b'\t')) => return Some(&node[i + 1..]),
            b'#' if i > 0 && matches!(node[i - 1], b' ' | b'\t') => return None,
            _ => {}
        }
        i += 1;
    }
}

fn open_flow(node: &[u8]) -> Skipped {
    let carry = scan_flow(node, 0, 0);
    if carry.is_open() {
        Skipped::Open(carry)
    } else {
        Skipped::Done
    }
}

/// Follows brackets and quoted scalars from `body[from]`, inside `depth` open flow
/// collections, until they all close or the line ends. A quote starts a scalar only at the
/// start of an entry (after `[{,:`); elsewhere it is part of a plain scalar.
fn scan_flow(body: &[u8], from: usize, mut depth: usize) -> Carry {
    let mut i = from;
    let mut entry_start = true;
    while i < body.len() {
        let c = body[i];
        match c {
            b' ' | b'\t' => {}
            b'[' | b'{' => {
                depth += 1;
                entry_start = true;
            }
            b']' | b'}' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return Carry::default();
                }
                entry_start = false;
            }
            b',' | b':' => entry_start = true,
            b'"' | b'\'' if entry_start => match quote_end(body, i + 1, c) {
                Some(end) => {
                    i = end;
                    entry_start = false;
                    continue;
                }
                None => return Carry { quote: Some(c), depth },
            },
            b'#' if i == 0 || matches!(body[i - 1], b' ' | b'\t') => break,
            _ => entry_start = false,
        }
        i += 1;
    }
    Carry { quote: None, depth }
}

/// The index after the closing `quote` of a quoted scalar whose content starts at
/// `body[from]`, if it closes on this line.
fn quote_end(body: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut i = from;
    while i < body.len() {
        match body[i] {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && body.get(i + 1) == Some(&b'\'') => i += 2,
            c if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

// ---------------------------------------------------------------------------------------------
// Characters and lines

/// Whether every character is one libyaml accepts and none is a line break other than
/// `\n` and `\r\n`: libyaml rejects control characters anywhere (comments included), treats
/// NEL, LS and PS as line breaks, and skips a BOM at the start of a line.
fn in_character_subset(text: &str) -> bool {
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        if let Some(chunk) = b.get(i..i + 16) {
            // Written to vectorize: printable ASCII, tab and line feed.
            if chunk.iter().fold(true, |ok, &c| ok & ((c.wrapping_sub(0x20) < 0x5f) | (c == b'\n') | (c == b'\t'))) {
                i += 16;
                continue;
            }
        }
        let c = b[i];
        if c < 0x80 {
            let ok =
                (0x20..0x7f).contains(&c) || c == b'\n' || c == b'\t' || (c == b'\r' && b.get(i + 1) == Some(&b'\n'));
            if !ok {
                return false;
            }
            i += 1;
            continue;
        }
        let Some(ch) = text[i..].chars().next() else { return false };
        let cp = ch as u32;
        let ok = match cp {
            0xA0..=0xD7FF => cp != 0x2028 && cp != 0x2029,
            0xE000..=0xFFFD => cp != 0xFEFF,
            0x10000.. => true,
            _ => false,
        };
        if !ok {
            return false;
        }
        i += ch.len_utf8();
    }
    true
}

/// The index of the first `\n`, eight bytes at a time: lines are short, so this beats
/// wider vector scans, whose setup costs more than the line.
pub(crate) fn find_newline(s: &[u8]) -> Option<usize> {
    const NL: u64 = LO * b'\n' as u64;
    let mut i = 0;
    while let Some(word) = s.get(i..i + 8) {
        let w = u64::from_le_bytes(word.try_into().ok()?) ^ NL;
        // The lowest flagged byte is exactly the first zero byte.
        let zero = w.wrapping_sub(LO) & !w & HI;
        if zero != 0 {
            return Some(i + (zero.trailing_zeros() / 8) as usize);
        }
        i += 8;
    }
    s[i..].iter().position(|&c| c == b'\n').map(|p| i + p)
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// The number of leading spaces, eight at a time (indentation is most of a YAML line).
fn spaces(s: &str) -> usize {
    const SPACES: u64 = LO * b' ' as u64;
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(word) = b.get(i..i + 8) {
        let other = u64::from_le_bytes(word.try_into().unwrap_or_default()) ^ SPACES;
        if other != 0 {
            return i + (other.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i + b[i..].iter().take_while(|&&c| c == b' ').count()
}

/// The index of the first byte from `from` on for which `wanted` holds, or `s.len()`.
/// Tests 32 bytes at a time first, which compilers turn into vector compares: these scans
/// (the nesting check over the whole input, long plain scalars) mostly meet bytes that do
/// not matter.
#[inline(always)]
pub(crate) fn next_where(s: &[u8], mut from: usize, wanted: impl Fn(u8) -> bool) -> usize {
    while let Some(chunk) = s.get(from..from + 32) {
        if chunk.iter().fold(false, |any, &c| any | wanted(c)) {
            return from + chunk.iter().position(|&c| wanted(c)).unwrap_or(0);
        }
        from += 32;
    }
    s.get(from..).and_then(|rest| rest.iter().position(|&c| wanted(c))).map_or(s.len(), |p| from + p)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use serde::Deserialize;

    use super::*;

    /// serde_yaml's documents, the reference, or its error message.
    fn reference(text: &str) -> Result<Vec<Value>, String> {
        let mut out = Vec::new();
        for de in serde_yaml::Deserializer::from_str(text) {
            out.push(Value::deserialize(de).map_err(|e| e.to_string())?);
        }
        Ok(out)
    }

    /// Serialized, so that key order and the sign of zero count.
    fn json(values: &[Value]) -> String {
        serde_json::to_string(values).expect("Values serialize")
    }

    /// Reads `text` both ways; when the fast reader answers, its answer must be serde_yaml's,
    /// and its pruned answer serde_yaml's with the same fields removed. Returns whether it
    /// answered (unpruned).
    fn agrees(text: &str, what: &str) -> bool {
        let slow = reference(text);
        if let (Some(mut pruned), Ok(mut slow)) = (read_stream(text, Prune::UnreadFields), slow.clone()) {
            pruned.iter_mut().for_each(prune_top);
            slow.iter_mut().for_each(prune_top);
            assert_eq!(json(&pruned), json(&slow), "{what}: pruned differs from serde_yaml's on {text:?}");
        }
        let Some(Documents { values: fast, nulls }) = read_documents(text, Prune::Nothing, usize::MAX) else {
            return false;
        };
        if !nulls {
            let mut stripped = fast.clone();
            stripped.iter_mut().for_each(crate::input::documents::strip_nulls);
            assert_eq!(json(&stripped), json(&fast), "{what}: null members but no `nulls` in {text:?}");
        }
        match slow {
            Ok(slow) => assert_eq!(json(&fast), json(&slow), "{what}: differs from serde_yaml on {text:?}"),
            Err(e) => panic!("{what}: read {text:?} as {} but serde_yaml fails: {e}", json(&fast)),
        }
        true
    }

    /// What [`Prune::UnreadFields`] removes, removed from a whole document (the reader
    /// removes only block entries, so this also runs on its output).
    fn prune_top(doc: &mut Value) {
        match doc {
            Value::Array(items) => items.iter_mut().for_each(prune_object),
            Value::Object(map) => {
                if let Some(Value::Array(items)) = map.get_mut("items") {
                    items.iter_mut().for_each(prune_object);
                }
                prune_object(doc);
            }
            _ => {}
        }
    }

    fn prune_object(object: &mut Value) {
        let Value::Object(map) = object else { return };
        // The reader knows a Node's spec only when `kind` came first.
        let position = |key: &str| map.keys().position(|k| k == key);
        let node_spec = map.get("kind").is_some_and(|k| k == "Node") && position("kind") < position("spec");
        if let Some(Value::Object(meta)) = map.get_mut("metadata") {
            meta.retain(|k, _| META_FIELDS.contains(&k.as_str()));
        }
        if let Some(Value::Object(status)) = map.get_mut("status") {
            status.retain(|k, _| k == "allocatable" || k == "capacity");
        }
        if let (true, Some(Value::Object(spec))) = (node_spec, map.get_mut("spec")) {
            spec.retain(|k, _| k == "taints" || k == "unschedulable");
        }
    }

    /// (input, the documents as JSON or None for "left to serde_yaml", why)
    const ROWS: &[(&str, Option<&str>, &str)] = &[
        // Block structure
        ("a: 1\nb: x\n", Some(r#"[{"a":1,"b":"x"}]"#), "a block mapping"),
        ("a:\n  b:\n    c: d\n  e: f\ng: h\n", Some(r#"[{"a":{"b":{"c":"d"},"e":"f"},"g":"h"}]"#), "nested mappings"),
        ("- a\n- b\n", Some(r#"[["a","b"]]"#), "a block sequence"),
        ("a:\n- 1\n- 2\nb: x\n", Some(r#"[{"a":[1,2],"b":"x"}]"#), "a sequence at its key's column"),
        ("a:\n  - 1\n  -\n  - 3\n", Some(r#"[{"a":[1,null,3]}]"#), "an empty entry"),
        (
            "- a: 1\n  b: 2\n-   c: 3\n    d: 4\n",
            Some(r#"[[{"a":1,"b":2},{"c":3,"d":4}]]"#),
            "compact mappings in entries",
        ),
        ("-\n  a: 1\n", Some(r#"[[{"a":1}]]"#), "`-` alone, the item below"),
        ("- - x\n  - y\n- z\n", Some(r#"[[["x","y"],"z"]]"#), "a sequence in a sequence"),
        ("a:\n  b\n", Some(r#"[{"a":"b"}]"#), "a scalar value on the next line"),
        ("a:\nb:\n", Some(r#"[{"a":null,"b":null}]"#), "keys without values"),
        ("a: 1\nb: 2\na: 3\n", Some(r#"[{"a":3,"b":2}]"#), "a duplicate key: the last value, the first place"),
        ("a : 1\n", Some(r#"[{"a":1}]"#), "a space before the colon"),
        ("\"a b\": 1\n'c''d': 2\n\"\": 3\n", Some(r#"[{"a b":1,"c'd":2,"":3}]"#), "quoted keys"),
        ("1: a\ntrue: b\nnull: c\n~: d\n", Some(r#"[{"1":"a","true":"b","null":"c","~":"d"}]"#), "keys stay text"),
        ("a: b:c\nd: http://x/y\n", Some(r#"[{"a":"b:c","d":"http://x/y"}]"#), "colons inside plain scalars"),
        ("a: b#c\nd: e # f\n", Some(r#"[{"a":"b#c","d":"e"}]"#), "`#` starts a comment only after a space"),
        (
            "a: x]\nb: y}\nc: z, w\n",
            Some(r#"[{"a":"x]","b":"y}","c":"z, w"}]"#),
            "flow indicators inside block plain scalars",
        ),
        ("a: 1\r\nb: |\r\n  x\r\n", Some(r#"[{"a":1,"b":"x\n"}]"#), "CRLF line breaks"),
        ("just a string\n", Some(r#"["just a string"]"#), "a scalar document"),
        ("a: 1   \n", Some(r#"[{"a":1}]"#), "trailing spaces"),
        // Quoted scalars
        ("a: 'it''s'\nb: ''\n", Some(r#"[{"a":"it's","b":""}]"#), "single quotes"),
        (
            r#"a: "q\"b\\s\/n\nt\tr\r0\0x\x41u\u00e9U\U0001F600""#,
            Some(r#"[{"a":"q\"b\\s/n\nt\tr\r0\u0000xAuéU😀"}]"#),
            "double-quote escapes",
        ),
        ("a: \"tab\there\"\n", Some(r#"[{"a":"tab\there"}]"#), "a raw tab inside quotes"),
        ("a: '# not a comment'\n", Some(r##"[{"a":"# not a comment"}]"##), "`#` inside quotes"),
        ("a: 'x\n  y'\nb: 1\n", Some(r#"[{"a":"x y","b":1}]"#), "a folded single-quoted scalar"),
        ("a: 'x   \n \t  y  '\n", Some(r#"[{"a":"x y  "}]"#), "blanks around a fold go, the last line's stay"),
        ("a: \"x\n\n  \n  y\"\n", Some(r#"[{"a":"x\n\ny"}]"#), "empty lines in a quoted scalar"),
        (
            "a: \"x \\\n  y\\t\n z\"\n",
            Some(r#"[{"a":"x y\t z"}]"#),
            "an escaped line break; an escaped tab before a fold",
        ),
        ("- 'x\ny'\n- z\n", Some(r#"[["x y","z"]]"#), "continuation lines at any indentation"),
        ("a: 'x\n  y' # c\n", Some(r#"[{"a":"x y"}]"#), "a comment after a folded scalar"),
        // Flow collections
        (
            "a: {b: c, d: 'e', f: [1, \"g\", {}], h: []}\n",
            Some(r#"[{"a":{"b":"c","d":"e","f":[1,"g",{}],"h":[]}}]"#),
            "flow collections",
        ),
        ("a: [nginx:1.27, x]\n", Some(r#"[{"a":["nginx:1.27","x"]}]"#), "a colon inside a flow plain scalar"),
        ("a: {\"b\":1, 'c' : 2}\n", Some(r#"[{"a":{"b":1,"c":2}}]"#), "JSON-like keys"),
        ("- [a b, c]  # comment\n", Some(r#"[[["a b","c"]]]"#), "spaces inside flow plain scalars"),
        ("{a: 1}\n", Some(r#"[{"a":1}]"#), "a flow document"),
        // Literal blocks
        ("a: |\n  x\n  y\nb: 1\n", Some(r#"[{"a":"x\ny\n","b":1}]"#), "literal, clipped"),
        ("a: |-\n  x\n\n  y\n\nb: 1\n", Some(r#"[{"a":"x\n\ny","b":1}]"#), "literal, stripped"),
        ("a: |+\n  x\n\n\nb: 1\n", Some(r#"[{"a":"x\n\n\n","b":1}]"#), "literal, kept"),
        ("a: |\nb: 1\n", Some(r#"[{"a":"","b":1}]"#), "an empty literal"),
        (
            "a: |\n\n  x\n    y\n  # z\n",
            Some(r##"[{"a":"\nx\n  y\n# z\n"}]"##),
            "leading blank line, deeper line, `#` line",
        ),
        ("- |\n  x\n- y\n", Some(r#"[["x\n","y"]]"#), "a literal sequence entry"),
        ("- k: |\n    x\n  l: 2\n", Some(r#"[[{"k":"x\n","l":2}]]"#), "a literal in a compact mapping"),
        ("a: |  # comment\n  x\n", Some(r#"[{"a":"x\n"}]"#), "a comment after the header"),
        ("a: |\n  x\n  \ty\n", Some(r#"[{"a":"x\n\ty\n"}]"#), "a tab inside literal content"),
        ("a: |\n  \tx\n", None, "a tab where libyaml detects the literal's indentation"),
        ("a: |\n  x", Some(r#"[{"a":"x"}]"#), "literal ending without a line break"),
        ("a: |\n  x\n ", Some(r#"[{"a":"x\n"}]"#), "literal ending with a blank line without a line break"),
        ("a: |+\n  x\n\n ", Some(r#"[{"a":"x\n\n"}]"#), "kept: only empty lines with a line break count"),
        // Documents
        ("", Some("[null]"), "an empty stream is one empty document"),
        ("# only a comment\n", Some("[null]"), "comments only"),
        ("---\n", Some("[null]"), "one marker"),
        ("---\n---\n", Some("[null,null]"), "two markers"),
        ("a: 1\n---\n", Some(r#"[{"a":1},null]"#), "a marker at the end opens an empty document"),
        ("a: 1\n...\n", Some(r#"[{"a":1}]"#), "an end marker"),
        ("a: 1\n...\n---\nb: 2\n", Some(r#"[{"a":1},{"b":2}]"#), "end marker, then a document"),
        ("--- # c\na: 1\n--- \nb: 2\n", Some(r#"[{"a":1},{"b":2}]"#), "markers with comments and spaces"),
        ("---a: 1\n", Some(r#"[{"---a":1}]"#), "not a marker"),
        // Outside the subset: left to serde_yaml
        ("a:\n\tb: 1\n", None, "a tab as indentation"),
        ("a:\n  b: x\n  \tc: 1\n", None, "a tab after the indentation"),
        ("a:\t1\n", None, "a tab as separation"),
        ("a: &x 1\nb: *x\n", None, "anchor and alias"),
        ("a: !!str 1\n", None, "a tag"),
        ("? a\n: b\n", None, "a complex key"),
        ("%YAML 1.2\n---\na: 1\n", None, "a directive"),
        ("a: b\n  c\n", None, "a multi-line plain scalar"),
        ("a: [b,\n  c]\n", None, "a multi-line flow collection"),
        ("a: 'x\n---\n'\n", None, "a document marker inside a quoted scalar"),
        ("'a\n  b': c\n", None, "a multi-line key"),
        ("a: 'x\n  y' z\n", None, "text after a folded scalar"),
        ("a: 'x\n", None, "an unclosed quote"),
        ("a: >\n  b\n", None, "a folded scalar"),
        ("a: |2\n   b\n", None, "an indentation indicator"),
        ("a: \"\\a\"\n", None, "an unusual escape"),
        ("a: \"\\ud800\"\n", None, "an escaped surrogate"),
        ("a: 18446744073709551616\n", None, "beyond u64: serde_json refuses it"),
        ("a: -9223372036854775809\n", None, "below i64: serde_json refuses it"),
        ("...\n", None, "an end marker with no document"),
        ("a: 1\n...\nb: 2\n", None, "content after an end marker"),
        ("--- a\n", None, "content after a start marker"),
        ("a: \u{1}\n", None, "a control character"),
        ("# \u{7f}\n", None, "DEL, even in a comment"),
        ("a: x\u{85}y\n", None, "NEL, a line break to libyaml"),
        ("a: x\u{2028}y\n", None, "LS, a line break to libyaml"),
        ("\u{feff}a: 1\n", None, "a byte order mark"),
        ("a: 1\rb: 2\n", None, "a lone CR"),
        ("a: b: c\n", None, "a mapping value in a value"),
        ("a: - b\n", None, "a sequence entry in a value"),
        ("a: 1\n- b\n", None, "an entry among keys"),
        ("- a\nb: 1\n", None, "a key after a root sequence"),
        ("a: [b: c]\n", None, "a one-pair mapping in a flow sequence"),
        ("a: [b, ]\n", None, "a trailing comma"),
        ("a: {b}\n", None, "a flow key without a value"),
        ("a: {b: }\n", None, "a flow entry without a value"),
        ("a: [b #c]\n", None, "a comment inside a flow collection"),
        ("a: [b:]\n", None, "libyaml's unexpected ':'"),
        ("[a]: b\n", None, "a flow key"),
        ("a: 'b' c\n", None, "text after a quoted scalar"),
        ("a: \"b\"#c\n", None, "a comment without a space"),
        ("a: @b\n", None, "a reserved indicator"),
        ("a: |\n    x\n  y\n", None, "a line between the literal and its key"),
        ("a: |\n\n    \n  x\n", None, "a leading blank line wider than the content"),
        ("a: 1\n  b: 2\n", None, "a deeper line after a value"),
        ("  a: 1\nb: 2\n", None, "a document less indented than its top"),
    ];

    #[test]
    fn rows() {
        for (input, expected, why) in ROWS {
            let got = read_stream(input, Prune::Nothing).map(|v| json(&v));
            assert_eq!(got.as_deref(), *expected, "{why}: {input:?}");
            if expected.is_some() {
                assert!(agrees(input, why));
            }
        }
    }

    #[test]
    fn plain_scalars_resolve_as_serde_yaml() {
        let scalars = [
            "0",
            "1",
            "-1",
            "+1",
            "-0",
            "+0",
            "00",
            "007",
            "-007",
            "0x1F",
            "0x1f",
            "-0x1F",
            "+0x1F",
            "0x",
            "0x_1",
            "0x+1",
            "0o17",
            "-0o17",
            "0o8",
            "0b101",
            "-0b101",
            "0b2",
            "1_000",
            "1.5",
            "-1.5",
            "+1.5",
            ".5",
            "-.5",
            "+.5",
            "1.",
            "01.5",
            "1e3",
            "1E3",
            "1e+3",
            "1e-3",
            "-1e3",
            "1e400",
            "-1e400",
            "1.0e-400",
            "0e0",
            "-0.0",
            "0.0",
            ".inf",
            ".Inf",
            ".INF",
            "-.inf",
            "+.inf",
            ".nan",
            ".NaN",
            ".NAN",
            "-.nan",
            "inf",
            "nan",
            "NaN",
            "Infinity",
            "infinity",
            "true",
            "True",
            "TRUE",
            "tRUE",
            "false",
            "False",
            "FALSE",
            "yes",
            "no",
            "on",
            "off",
            "y",
            "n",
            "null",
            "Null",
            "NULL",
            "nULL",
            "~",
            "~~",
            "18446744073709551615",
            "18446744073709551616",
            "-9223372036854775808",
            "-9223372036854775809",
            "340282366920938463463374607431768211456",
            "99999999999999999999999999999999999999999999",
            "0xFFFFFFFFFFFFFFFF",
            "0x10000000000000000",
            "1:2",
            "1-2",
            "2024-05-02T11:07:44Z",
            "2024-05-02",
            "12:30",
            "1.2.3",
            "v1",
            "- 1",
            "+-1",
            "-+1",
            "++1",
            "--1",
            "0.5.",
            "1__0",
            "١٢",
        ];
        let mut fast = 0;
        for s in scalars {
            let text = format!("a: {s}\n");
            if agrees(&text, "plain scalar") {
                fast += 1;
            }
            agrees(&format!("a: [{s}]\n"), "plain scalar in a flow sequence");
        }
        assert!(fast >= scalars.len() - 8, "only {fast} of {} scalars on the fast path", scalars.len());
    }

    #[test]
    fn nesting_is_bounded_like_serde_yaml() {
        let block = |depth: usize| -> String {
            let mut s: String = (0..depth - 1).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
            s.push_str(&format!("{}k: v\n", " ".repeat(depth - 1)));
            s
        };
        assert!(agrees(&block(128), "128 block levels"));
        assert!(reference(&block(129)).is_err());
        assert!(read_stream(&block(129), Prune::Nothing).is_none());
        let flow = |depth: usize| format!("a: {}{}\n", "[".repeat(depth), "]".repeat(depth));
        assert!(agrees(&flow(127), "root mapping and 127 flow levels"));
        assert!(reference(&flow(128)).is_err());
        assert!(read_stream(&flow(128), Prune::Nothing).is_none());
        // Hostile depth neither recurses nor takes long.
        let deep: String = (0..50_000).map(|i| format!("{}- \n", " ".repeat(i % 200))).collect();
        assert!(read_stream(&deep, Prune::Nothing).is_none());
        let mut deep = String::new();
        for _ in 0..100_000 {
            deep.push_str("- ");
        }
        deep.push_str("x\n");
        assert!(read_stream(&deep, Prune::Nothing).is_none());
    }

    #[test]
    fn simple_keys_are_bounded_like_libyaml() {
        let long = "k".repeat(1100);
        assert!(read_stream(&format!("{long}: 1\n"), Prune::Nothing).is_none());
        assert!(read_stream(&format!("a: {{{long}: 1}}\n"), Prune::Nothing).is_none());
        assert!(agrees(&format!("{}: 1\n", "k".repeat(900)), "a 900-byte key"));
        assert!(agrees(&format!("a: {}\n", "v".repeat(5000)), "a long value"));
    }

    #[test]
    fn document_limit_stops_early() {
        let text = "---\na: 1\n".repeat(10);
        assert_eq!(read_documents(&text, Prune::Nothing, 3).unwrap().values.len(), 4);
        assert_eq!(read_documents(&text, Prune::Nothing, 100).unwrap().values.len(), 10);
    }

    // -----------------------------------------------------------------------------------------
    // Pruning

    const NODE: &str = "apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {a: b}
  managedFields:
  - manager: kubelet
    fieldsV1:
      f:status:
        k:{\"type\":\"Ready\"}:
          .: {}
        v:\"10.0.0.0/24\": {}
  resourceVersion: '1'
spec:
  taints:
  - {key: k, effect: NoSchedule}
status:
  addresses:
  - address: 10.0.0.1
    type: InternalIP
  allocatable:
    cpu: '4'
  capacity: {cpu: '4'}
  conditions:
  - type: Ready
    message: |
      kubelet is
       ready: \"yes
  images: []
  nodeInfo:
    bootID: x
";

    #[test]
    fn pruning_skips_unread_fields_only() {
        let full = read_stream(NODE, Prune::Nothing).unwrap();
        assert_eq!(json(&full), json(&reference(NODE).unwrap()));
        let pruned = read_stream(NODE, Prune::UnreadFields).unwrap();
        let expected = r#"[{"apiVersion":"v1","kind":"Node","metadata":{"name":"n1","labels":{"a":"b"}},"spec":{"taints":[{"key":"k","effect":"NoSchedule"}]},"status":{"allocatable":{"cpu":"4"},"capacity":{"cpu":"4"}}}]"#;
        assert_eq!(json(&pruned), expected);

        // The same object as an item of a List, and of a top-level sequence, is pruned too;
        // deeper objects are not.
        let indented: String = NODE.lines().map(|l| format!("  {l}\n")).collect();
        let list = format!("kind: List\nitems:\n-{}\n", &indented[1..]);
        let pruned = read_stream(&list, Prune::UnreadFields).unwrap();
        assert_eq!(json(&[pruned[0]["items"][0].clone()]), expected);
        assert_eq!(read_stream(&list, Prune::Nothing).unwrap(), reference(&list).unwrap());
        let seq = format!("-{}", &indented[1..]);
        assert_eq!(json(&[read_stream(&seq, Prune::UnreadFields).unwrap()[0][0].clone()]), expected);
        let nested = format!("spec:\n  template:\n{}", NODE.lines().map(|l| format!("    {l}\n")).collect::<String>());
        assert_eq!(read_stream(&nested, Prune::UnreadFields), read_stream(&nested, Prune::Nothing));

        // A Node's spec once `kind` says so; a workload's spec never.
        let spec = "spec:\n  podCIDR: 10.0.0.0/24\n  taints: []\n  unschedulable: true\n  providerID: x\n";
        for (text, expected, why) in [
            (
                format!("kind: Node\n{spec}"),
                r#"{"kind":"Node","spec":{"taints":[],"unschedulable":true}}"#,
                "kind first",
            ),
            (
                format!("{spec}kind: Node\n"),
                r#"{"spec":{"podCIDR":"10.0.0.0/24","taints":[],"unschedulable":true,"providerID":"x"},"kind":"Node"}"#,
                "kind last",
            ),
            (
                format!("kind: Pod\n{spec}"),
                r#"{"kind":"Pod","spec":{"podCIDR":"10.0.0.0/24","taints":[],"unschedulable":true,"providerID":"x"}}"#,
                "a Pod",
            ),
        ] {
            let pruned = read_stream(&text, Prune::UnreadFields).unwrap();
            assert_eq!(serde_json::to_string(&pruned[0]).unwrap(), expected, "{why}");
            assert!(agrees(&text, why));
        }
        for text in ["kind: Node\nspec: {}\nkind: Pod\n", "kind: Node\nkind:\n", "kind:\nkind: Node\n"] {
            assert!(read_stream(text, Prune::UnreadFields).is_none(), "a second kind: {text:?}");
            assert!(agrees(text, "a second kind"));
        }
    }

    #[test]
    fn skipping_follows_quotes_and_flow_collections_across_lines() {
        // serde_yaml reads `kind: Node"` as the end of the quoted message, not as a key:
        // skipping by indentation alone would get that wrong.
        for text in [
            "status:\n  message: \"foo\nkind: Node\"\n",
            "status:\n  conditions:\n  - message: 'foo\nkind: Node'\n",
            "status:\n  x:\n  - [a,\nkind: Node]\n",
            "metadata:\n  managedFields:\n  - {a: [\nkind: Node]}\n",
            "status:\n  x:\n    y: \"a \\\nkind: Node\"\n",
        ] {
            let pruned = read_stream(text, Prune::UnreadFields).unwrap_or_else(|| panic!("{text:?}"));
            let full = reference(text).unwrap();
            assert!(full[0].get("kind").is_none(), "{text:?}");
            let top = if text.starts_with("status") { "status" } else { "metadata" };
            assert_eq!(json(&pruned), format!(r#"[{{"{top}":{{}}}}]"#), "{text:?}");
        }
        // Quotes inside plain scalars, and on the lines that continue them, are text.
        for text in [
            "status:\n  conditions:\n  - message: waiting for\n      \"a long\n      time\" and 'more\n    type: Ready\n  allocatable: {cpu: '1'}\nkind: Node\n",
            "status:\n  message: plain\n   'open [\n\n   {\n  allocatable: {cpu: '1'}\nkind: Node\n",
            "status:\n  x:\n    k:{\"type:x}: it's \"quoted\n  allocatable: {cpu: '1'}\nkind: Node\n",
        ] {
            let pruned = read_stream(text, Prune::UnreadFields).unwrap_or_else(|| panic!("{text:?}"));
            assert_eq!(json(&pruned), r#"[{"status":{"allocatable":{"cpu":"1"}},"kind":"Node"}]"#, "{text:?}");
            let full = reference(text).unwrap();
            assert_eq!(full[0]["kind"], "Node", "{text:?}");
        }
        // Block scalars are skipped by indentation; quotes and brackets in them do not count.
        for text in [
            "status:\n  conditions:\n  - message: \"a 'b' [c\"\n    x: {d: 'e'}\n  m: |\n    \"unclosed [\n   # x\nkind: Node\n",
            "status:\n  m:\n  - k: |-\n      {\n  - |\n    [\nkind: Node\n",
        ] {
            let v = read_stream(text, Prune::UnreadFields).unwrap_or_else(|| panic!("{text:?}"));
            assert_eq!(json(&v), r#"[{"status":{},"kind":"Node"}]"#, "{text:?}");
        }
        // What still makes it give up.
        for text in
            ["status:\n  x:\n    y: 'open\n", "status:\n  x:\n  - [a,\n---\n]\n", "status:\n  x:\n    a: 1\n\tb: 2\n"]
        {
            assert!(read_stream(text, Prune::UnreadFields).is_none(), "{text:?}");
        }
    }

    // -----------------------------------------------------------------------------------------
    // Differential tests

    fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != "target" && n != "node_modules") {
                    yaml_files(&path, out);
                }
            } else if path.extension().is_some_and(|e| e == "yaml" || e == "yml") {
                out.push(path);
            }
        }
    }

    #[test]
    fn corpus_agrees_with_serde_yaml() {
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("core/ has a parent").to_path_buf();
        let shared = std::env::var("SHARED").map(PathBuf::from).unwrap_or_else(|_| repo.join("../shared"));
        assert!(shared.join("conformance").is_dir(), "{} not found: set SHARED=...", shared.display());
        let mut files = Vec::new();
        for dir in [repo.join("examples"), repo.join("core"), repo.join("fuzz/seeds"), shared.join("conformance")] {
            yaml_files(&dir, &mut files);
        }
        let (mut fast, mut total) = (0, 0);
        let mut slow = Vec::new();
        for path in &files {
            let Ok(text) = std::fs::read_to_string(path) else { continue };
            total += 1;
            if agrees(&text, &path.display().to_string()) {
                fast += 1;
            } else {
                slow.push(path.display().to_string());
            }
        }
        println!("fast path for {fast} of {total} YAML files; serde_yaml for: {slow:#?}");
        assert!(total == 0 || fast * 10 >= total * 8, "fast path for only {fast} of {total} files");

        // What the fast path is for: kubectl output, the playground, the gallery.
        let kubectl = crate::testing::bench_common::kubectl_get_nodes_yaml(7);
        assert!(agrees(&kubectl, "kubectl get nodes -o yaml"));
        // (placement-playground checks its synthetic cluster and the editors' halves of each
        // example the same way, through the public readers.)
        for (id, text) in crate::testing::example_manifests() {
            assert!(agrees(&text, &id), "gallery example {id} leaves the fast path");
        }
    }

    /// xorshift64*: deterministic, no dependency.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
        }

        fn below(&mut self, n: usize) -> usize {
            (self.next() % n as u64) as usize
        }

        fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
            items[self.below(items.len())]
        }
    }

    const KEYS: &[&str] = &[
        "a",
        "b",
        "status",
        "metadata",
        "managedFields",
        "items",
        "kind",
        "spec",
        "taints",
        "name",
        "'q k'",
        "\"d\\tk\"",
        "1",
        "x y",
    ];
    const SCALARS: &[&str] = &[
        "x",
        "Node",
        "Node",
        "0x1F",
        "1e3",
        ".5",
        "-0",
        "+1",
        "0o7",
        "~",
        "True",
        "null",
        "007",
        "'it''s'",
        "\"e\\u00e9\"",
        "\"a\\\"b\"",
        "{a: 1, b: [2, c]}",
        "[]",
        "{}",
        "[x, 'y', \"z\"]",
        "a b",
        "http://x",
        "-x",
        ".inf",
        "''",
        "\"\"",
        "b#c",
        "c ]",
    ];
    const FRAGMENTS: &[&str] = &[
        " ", "  ", "- ", ":", ": ", "'", "\"", "#", " #", "{", "}", "[", "]", ",", "|", "|-", "|+", ">", "&a ", "*a",
        "!t ", "? ", "\t", "---", "...", "\\", "0x1F", "1e3", ".5", "-0", "+1", "0o7", "~", "True", "\r",
    ];

    /// A few documents written in random styles (valid YAML but for the plain scalars over
    /// several lines), then, one time in three, a few fragments dropped in anywhere.
    fn random_text(rng: &mut Rng) -> String {
        let mut text = String::new();
        for d in 0..1 + rng.below(3) {
            if d > 0 {
                text.push_str(rng.pick(&["---\n", "--- # c\n", "...\n---\n"]));
            } else if rng.below(4) == 0 {
                text.push_str(rng.pick(&["---\n", "--- # c\n", "# c\n"]));
            }
            if rng.below(6) == 0 {
                random_seq(rng, 0, 0, &mut text);
            } else {
                random_map(rng, 0, 0, &mut text);
            }
        }
        if rng.below(3) == 0 {
            for _ in 0..1 + rng.below(3) {
                let mut at = rng.below(text.len() + 1);
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                text.insert_str(at, rng.pick(FRAGMENTS));
            }
        }
        if rng.below(5) == 0 {
            text.pop();
        }
        text
    }

    fn random_map(rng: &mut Rng, indent: usize, depth: usize, out: &mut String) {
        for i in 0..1 + rng.below(4) {
            if i > 0 {
                out.push_str(&" ".repeat(indent));
            }
            out.push_str(rng.pick(KEYS));
            out.push(':');
            random_value(rng, indent, depth, true, out);
            if rng.below(12) == 0 {
                out.push_str(rng.pick(&["\n", "# comment\n", "   # indented comment\n"]));
            }
        }
    }

    fn random_seq(rng: &mut Rng, indent: usize, depth: usize, out: &mut String) {
        for i in 0..1 + rng.below(3) {
            if i > 0 {
                out.push_str(&" ".repeat(indent));
            }
            out.push('-');
            match rng.below(4) {
                // A compact mapping in the entry.
                0 if depth < 4 => {
                    out.push(' ');
                    random_map(rng, indent + 2, depth + 1, out);
                }
                _ => random_value(rng, indent, depth, false, out),
            }
        }
    }

    /// A value after `key:` or `-` (the cursor is right after it), for a collection at `indent`.
    fn random_value(rng: &mut Rng, indent: usize, depth: usize, in_map: bool, out: &mut String) {
        let inner = indent + [2, 2, 2, 1, 4][rng.below(5)];
        match rng.below(9) {
            0 => out.push('\n'),
            1 => {
                out.push_str(rng.pick(&[" |\n", " |-\n", " |+\n", " | # c\n"]));
                for i in 0..1 + rng.below(3) {
                    let line = if i == 0 {
                        rng.pick(&["text", "# not a comment", "\"open ["])
                    } else {
                        rng.pick(&["text", "  deeper", "", "# not a comment", "\"open [", "\ttab"])
                    };
                    if !line.is_empty() {
                        out.push_str(&" ".repeat(inner));
                    }
                    out.push_str(line);
                    out.push('\n');
                }
            }
            2 => {
                let quote = rng.pick(&["'", "\""]);
                out.push(' ');
                out.push_str(quote);
                out.push_str(rng.pick(&["folded", "folded  ", "", "it''s", "x\\t"]));
                if quote == "\"" && rng.below(3) == 0 {
                    out.push('\\');
                }
                for _ in 0..1 + rng.below(2) {
                    out.push('\n');
                    out.push_str(&" ".repeat(rng.below(inner + 2)));
                    out.push_str(rng.pick(&["line", "", "more  ", "\tx"]));
                }
                out.push_str(quote);
                out.push('\n');
            }
            3 | 4 if depth < 4 => {
                out.push('\n');
                out.push_str(&" ".repeat(inner));
                random_map(rng, inner, depth + 1, out);
            }
            5 if depth < 4 => {
                out.push('\n');
                // `key:` then `- item` at the key's column, or indented.
                let at = if in_map && rng.below(2) == 0 { indent } else { inner };
                out.push_str(&" ".repeat(at));
                random_seq(rng, at, depth + 1, out);
            }
            6 if rng.below(3) == 0 => {
                // A plain scalar over several lines: outside the subset, but skipped when pruned.
                out.push_str(" plain");
                for _ in 0..1 + rng.below(2) {
                    out.push('\n');
                    out.push_str(&" ".repeat(indent + 1 + rng.below(3)));
                    out.push_str(rng.pick(&["more", "\"q", "'it", "[x", "{", "#x", "a: b"]));
                }
                out.push('\n');
            }
            _ => {
                out.push(' ');
                out.push_str(rng.pick(SCALARS));
                if rng.below(8) == 0 {
                    out.push_str(" # comment");
                }
                out.push('\n');
            }
        }
    }

    #[test]
    fn random_texts_agree_with_serde_yaml() {
        // BLOCK_YAML_RUNS=1000000 (and BLOCK_YAML_SEED) for a longer search.
        let env = |name: &str| std::env::var(name).ok().and_then(|v| v.parse().ok());
        let runs = env("BLOCK_YAML_RUNS").unwrap_or(20_000);
        let mut rng = Rng(env("BLOCK_YAML_SEED").unwrap_or(0x9E37_79B9_7F4A_7C15));
        let (mut fast, mut valid) = (0, 0);
        for _ in 0..runs {
            let text = random_text(&mut rng);
            if agrees(&text, "random") {
                fast += 1;
            }
            valid += usize::from(reference(&text).is_ok());
        }
        println!("random texts: {valid} of {runs} valid YAML, {fast} on the fast path");
        // Enough of them stay in the subset for the comparison to mean something.
        assert!(fast * 4 >= runs, "fast path for only {fast} of {runs}");
    }
}
