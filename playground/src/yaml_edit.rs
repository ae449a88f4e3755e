//! Line-level edits of YAML text: a document's new value written into its text by changing
//! only the lines that hold what changed. Every other byte (comments, key order, quoting,
//! blank lines, CRLF line ends, the other documents) is kept, which a parse and re-serialize
//! cannot do: serde_yaml drops comments and rewrites the layout.
//!
//! It reads block-style YAML by indentation, the form `kubectl get -o yaml` and hand-written
//! manifests use, and knows the shapes the playground's edits need: a mapping key added,
//! replaced or removed under a path; list items appended (tolerations) or merged in place
//! (containers, by position); a scalar replaced keeping its trailing comment. A value written
//! in flow style (`{a: 1}`) is replaced as a whole at its key. Anything else (a key it cannot
//! find, anchors and merge keys, a list whose items it cannot count) is [`Unsupported`], and
//! the caller falls back to re-serializing the document; every result is also re-parsed and
//! compared with the value asked for, so an edit that reads back differently is refused too.

use serde_json::{Map, Value};

use placement_core::input::documents::DocumentMarker;
use placement_core::input::source_map::DocSpan;

/// Why the text could not be edited line by line; the caller rewrites the document instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Unsupported(pub String);

fn unsupported<T>(why: impl Into<String>) -> Result<T, Unsupported> {
    Err(Unsupported(why.into()))
}

/// Lines `from..to` (0-based, `to` exclusive) replaced by `lines` (no line ends); an insert
/// has `from == to`.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Edit {
    from: usize,
    to: usize,
    lines: Vec<String>,
}

/// Entries of a mapping start at column `col` on lines `from..to`; on line `from` the entry
/// may follow a sequence dash (`- key: value`).
#[derive(Debug, Clone, Copy)]
struct Block {
    from: usize,
    to: usize,
    col: usize,
}

/// A `key: value` entry: its first line, the column of the key, the key as written (up to and
/// including the colon), where the inline value starts and ends on the line (before a
/// comment), and its last content line.
#[derive(Debug, Clone)]
struct Entry {
    line: usize,
    key: String,
    /// Byte offsets on the line: just after the colon; the end of the inline value.
    after_colon: usize,
    value_end: usize,
    inline: bool,
    last: usize,
}

/// A sequence item: its dash line, the column its content starts at, its last content line,
/// and whether the content is a mapping.
#[derive(Debug, Clone, Copy)]
struct Item {
    line: usize,
    col: usize,
    last: usize,
    mapping: bool,
}

/// Text being edited: its lines (without line ends) and the edits asked for so far.
pub struct TextEditor<'a> {
    text: &'a str,
    lines: Vec<&'a str>,
    /// Byte offset where each line starts, and the text's length last.
    starts: Vec<usize>,
    eol: &'static str,
    /// Spaces per nesting level, and whether sequences are indented under their key.
    step: usize,
    indent_sequences: bool,
    edits: Vec<Edit>,
}

fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// A line with YAML content (not blank, not a comment).
fn is_content(line: &str) -> bool {
    let t = line.trim();
    !t.is_empty() && !t.starts_with('#')
}

fn is_dash(s: &str) -> bool {
    s == "-" || s.starts_with("- ")
}

/// The key of `key: value` (plain or simply quoted) and the byte offset just after its colon.
fn split_key(s: &str) -> Option<(String, usize)> {
    let first = s.chars().next()?;
    if matches!(first, '?' | '&' | '*' | '!' | '{' | '[' | '-' | '|' | '>' | '%' | '@' | '`') {
        return None;
    }
    let (key, colon) = if first == '"' || first == '\'' {
        let close = s.get(1..)?.find(first)? + 1;
        let inner = s.get(1..close)?;
        if inner.contains('\\') || s.get(close + 1..close + 2) != Some(":") {
            return None;
        }
        (inner.to_string(), close + 1)
    } else {
        let colon = s.match_indices(':').map(|(i, _)| i).find(|&i| {
            let next = s.get(i + 1..i + 2);
            next.is_none() || next == Some(" ")
        })?;
        (s.get(..colon)?.trim_end().to_string(), colon)
    };
    // `<<` merges another mapping in: the parsed value then has keys the text does not.
    (key != "<<").then_some((key, colon + 1))
}

/// Where the value part of `rest` (after a colon or a dash) ends: before a ` #` comment
/// outside quotes, trailing spaces trimmed.
fn value_end(rest: &str) -> usize {
    let mut quote = None;
    let mut prev = ' ';
    let mut end = rest.len();
    for (i, c) in rest.char_indices() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            None if (c == '"' || c == '\'') && prev == ' ' => quote = Some(c),
            None if c == '#' && (prev == ' ' || prev == '\t') => {
                end = i;
                break;
            }
            None => {}
        }
        prev = c;
    }
    rest.get(..end).map(|v| v.trim_end().len()).unwrap_or(0)
}

/// Equality as a document's text means it: a number or boolean equals the string that reads
/// the same (a node table cell does not know which of the two the YAML had).
pub fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        (Value::Array(x), Value::Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(v, w)| same(v, w)),
        _ => scalar_text(a) == scalar_text(b),
    }
}

fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Null => None,
        // Collections never equal a scalar.
        _ => Some(format!("\u{0}{v}")),
    }
}

/// `value` as YAML lines (serde_yaml's layout), without the document marker.
fn yaml_lines(value: &Value) -> Vec<String> {
    let text = serde_yaml::to_string(value).unwrap_or_default();
    text.lines().map(str::to_string).collect()
}

/// A scalar or an empty collection on one line, as YAML writes it inline.
fn inline_scalar(value: &Value) -> Option<String> {
    let one_line = match value {
        Value::Object(m) if m.is_empty() => return Some("{}".into()),
        Value::Array(a) if a.is_empty() => return Some("[]".into()),
        Value::Object(_) | Value::Array(_) => return None,
        other => yaml_lines(other),
    };
    match one_line.as_slice() {
        [line] => Some(line.clone()),
        _ => None,
    }
}

/// `prefix` on every non-empty line (so that block scalars keep no trailing spaces).
fn indented(lines: Vec<String>, prefix: &str) -> impl Iterator<Item = String> + '_ {
    lines.into_iter().map(move |l| if l.is_empty() { l } else { format!("{prefix}{l}") })
}

impl<'a> TextEditor<'a> {
    pub fn new(text: &'a str) -> Self {
        let mut lines = Vec::new();
        let mut starts = Vec::new();
        let mut at = 0;
        for piece in text.split_inclusive('\n') {
            starts.push(at);
            at += piece.len();
            lines.push(piece.trim_end_matches('\n').trim_end_matches('\r'));
        }
        starts.push(text.len());
        let eol = if text.contains("\r\n") { "\r\n" } else { "\n" };
        // The document's own indentation: the first step in, and whether a list under a key
        // is indented (`key:\n  - a`) or not (`key:\n- a`, as kubectl and serde_yaml write).
        let mut step = 2;
        let mut indent_sequences = false;
        let content: Vec<&str> = lines.iter().copied().filter(|l| is_content(l)).collect();
        if let Some(s) = content.iter().map(|l| indent(l)).find(|&i| i > 0) {
            step = s;
        }
        for pair in content.windows(2) {
            if let [key, item] = pair {
                if key.trim_end().ends_with(':') && is_dash(item.trim_start()) {
                    indent_sequences = indent(item) > indent(key);
                    break;
                }
            }
        }
        TextEditor { text, lines, starts, eol, step, indent_sequences, edits: Vec::new() }
    }

    fn line(&self, i: usize) -> &'a str {
        self.lines.get(i).copied().unwrap_or("")
    }

    /// The content of line `i` when it starts at the block's column: after spaces, or after
    /// the dash on the block's first line.
    fn at_col(&self, b: &Block, i: usize) -> Option<&'a str> {
        let line = self.line(i);
        let (head, rest) = (line.get(..b.col)?, line.get(b.col..)?);
        let spaces = head.bytes().all(|c| c == b' ');
        let dash = i == b.from && head.trim_start().starts_with('-') && head.bytes().all(|c| c == b' ' || c == b'-');
        ((spaces || dash) && !rest.starts_with(' ') && is_content(rest)).then_some(rest)
    }

    /// The last content line in `from..to`, if any.
    fn last_content(&self, from: usize, to: usize) -> Option<usize> {
        (from..to).rev().find(|&i| is_content(self.line(i)))
    }

    fn entries(&self, b: &Block) -> Result<Vec<Entry>, Unsupported> {
        let mut out: Vec<Entry> = Vec::new();
        for i in b.from..b.to {
            let Some(rest) = self.at_col(b, i) else {
                if is_content(self.line(i)) && indent(self.line(i)) < b.col && i != b.from {
                    return unsupported(format!("line {} is outside its block", i + 1));
                }
                continue;
            };
            // A list at the key's own indentation continues the entry above.
            if is_dash(rest) && !out.is_empty() {
                continue;
            }
            let Some((key, colon)) = split_key(rest) else {
                return unsupported(format!("line {} is not a `key: value` entry", i + 1));
            };
            let after_colon = self.line(i).len() - rest.len() + colon;
            let tail = self.line(i).get(after_colon..).unwrap_or("");
            let end = value_end(tail);
            let value = tail.get(..end).unwrap_or("").trim();
            if value.starts_with('&') || value.starts_with('*') || value.starts_with('!') {
                return unsupported(format!("line {} has an anchor, alias or tag", i + 1));
            }
            if let Some(prev) = out.last_mut() {
                prev.last = self.last_content(prev.line, i).unwrap_or(prev.line);
            }
            out.push(Entry {
                line: i,
                key,
                after_colon,
                value_end: after_colon + end,
                inline: !value.is_empty(),
                last: i,
            });
        }
        if let Some(prev) = out.last_mut() {
            prev.last = self.last_content(prev.line, b.to).unwrap_or(prev.line);
        }
        Ok(out)
    }

    /// The block of an entry's value on the lines below it: its first content line's column.
    fn child(&self, e: &Entry) -> Option<(Block, bool)> {
        let first = (e.line + 1..=e.last).find(|&i| is_content(self.line(i)))?;
        let col = indent(self.line(first));
        let dash = is_dash(self.line(first).trim_start());
        Some((Block { from: first, to: e.last + 1, col }, dash))
    }

    fn items(&self, b: &Block) -> Result<Vec<Item>, Unsupported> {
        let mut out: Vec<Item> = Vec::new();
        for i in b.from..b.to {
            let line = self.line(i);
            if !is_content(line) || indent(line) > b.col {
                continue;
            }
            let rest = line.get(b.col..).unwrap_or("");
            if indent(line) < b.col || !is_dash(rest) {
                return unsupported(format!("line {} is not a list item", i + 1));
            }
            let after = rest.get(1..).unwrap_or("");
            let col = b.col + 1 + indent(after);
            let content = after.trim_start();
            if content.starts_with('&') || content.starts_with('*') || content.starts_with('!') {
                return unsupported(format!("line {} has an anchor, alias or tag", i + 1));
            }
            if let Some(prev) = out.last_mut() {
                prev.last = self.last_content(prev.line, i).unwrap_or(prev.line);
            }
            let mapping = split_key(content).is_some();
            out.push(Item { line: i, col, last: i, mapping });
        }
        if let Some(prev) = out.last_mut() {
            prev.last = self.last_content(prev.line, b.to).unwrap_or(prev.line);
        }
        Ok(out)
    }

    fn push(&mut self, from: usize, to: usize, lines: Vec<String>) {
        self.edits.push(Edit { from, to, lines });
    }

    /// `key: value` as lines at column `col`; the first line starts with `first` (spaces, or
    /// the dash of a list item).
    fn entry_lines(&self, key: &str, value: &Value, first: &str, col: usize) -> Vec<String> {
        if let Some(v) = inline_scalar(value) {
            return vec![format!("{first}{key} {v}")];
        }
        let inner = col + if value.is_array() && !self.indent_sequences { 0 } else { self.step };
        let mut out = vec![format!("{first}{key}")];
        out.extend(indented(yaml_lines(value), &" ".repeat(inner)));
        out
    }

    /// A list item as lines, its dash at column `col`.
    fn item_lines(&self, value: &Value, col: usize) -> Vec<String> {
        let pad = " ".repeat(col);
        let mut out = Vec::new();
        for (i, l) in yaml_lines(value).into_iter().enumerate() {
            out.push(match (i, l.is_empty()) {
                (0, _) => format!("{pad}- {l}"),
                (_, true) => l,
                _ => format!("{pad}  {l}"),
            });
        }
        out
    }

    /// The edits that turn mapping block `b`, holding `old`, into `new`.
    fn mapping(&mut self, b: Block, old: &Map<String, Value>, new: &Map<String, Value>) -> Result<(), Unsupported> {
        let entries = self.entries(&b)?;
        let find = |k: &str| {
            entries.iter().find(|e| e.key == k).cloned().ok_or_else(|| Unsupported(format!("key {k:?} not found")))
        };
        for k in old.keys().filter(|k| !new.contains_key(*k)) {
            let e = find(k)?;
            if self.line(e.line).trim_start().starts_with('-') {
                return unsupported(format!("{k:?} opens a list item"));
            }
            self.push(e.line, e.last + 1, Vec::new());
        }
        let mut added = Vec::new();
        for (k, nv) in new {
            match old.get(k) {
                Some(ov) if same(ov, nv) => {}
                Some(ov) => {
                    let e = find(k)?;
                    self.value(&e, ov, nv)?;
                }
                None => {
                    let key = match split_key(&format!("{k}: x")) {
                        Some((parsed, _)) if &parsed == k && !k.contains('#') => format!("{k}:"),
                        _ => format!("{}:", serde_json::to_string(k).unwrap_or_default()),
                    };
                    added.extend(self.entry_lines(&key, nv, &" ".repeat(b.col), b.col));
                }
            }
        }
        if !added.is_empty() {
            let Some(last) = entries.iter().map(|e| e.last).max() else { return unsupported("an empty mapping") };
            self.push(last + 1, last + 1, added);
        }
        Ok(())
    }

    /// The edits that change entry `e` of block `b` from `old` to `new`.
    fn value(&mut self, e: &Entry, old: &Value, new: &Value) -> Result<(), Unsupported> {
        let line = self.line(e.line);
        let child = if e.inline { None } else { self.child(e) };
        match (old, new, child) {
            (Value::Object(o), Value::Object(n), Some((block, false))) => return self.mapping(block, o, n),
            (Value::Array(o), Value::Array(n), Some((block, true))) => {
                let items = self.items(&block)?;
                if items.len() != o.len() {
                    return unsupported("a list whose items could not be counted");
                }
                if n.len() > o.len() && o.iter().zip(n).all(|(a, b)| same(a, b)) {
                    let at = items.last().map(|i| i.last + 1).unwrap_or(block.to);
                    let lines = n.iter().skip(o.len()).flat_map(|v| self.item_lines(v, block.col)).collect();
                    self.push(at, at, lines);
                    return Ok(());
                }
                if n.len() == o.len() {
                    for ((item, a), b2) in items.iter().zip(o).zip(n) {
                        match (a, b2) {
                            _ if same(a, b2) => {}
                            (Value::Object(a), Value::Object(b2)) if item.mapping => {
                                self.mapping(Block { from: item.line, to: item.last + 1, col: item.col }, a, b2)?
                            }
                            _ => {
                                let lines = self.item_lines(b2, block.col);
                                self.push(item.line, item.last + 1, lines);
                            }
                        }
                    }
                    return Ok(());
                }
            }
            _ => {}
        }
        // A scalar for a one-line scalar: only the value changes, the comment stays.
        let old_value = line.get(e.after_colon..e.value_end).unwrap_or("").trim();
        let flow_or_block = old_value.starts_with(['{', '[', '|', '>', '"', '\'']) && !old_value.ends_with(['"', '\'']);
        if let (Some(v), true, false) = (inline_scalar(new), e.inline && e.last == e.line, flow_or_block) {
            let head = line.get(..e.after_colon).unwrap_or("");
            let tail = line.get(e.value_end..).unwrap_or("");
            self.push(e.line, e.line + 1, vec![format!("{head} {v}{tail}")]);
            return Ok(());
        }
        let start = line.len() - line.trim_start_matches([' ', '-']).len();
        let first = line.get(..start).unwrap_or("");
        let key = line.get(start..e.after_colon).unwrap_or("").to_string();
        let lines = self.entry_lines(&key, new, first, start);
        self.push(e.line, e.last + 1, lines);
        Ok(())
    }

    /// Asks for the edits that make the document of `span` (its value now `old`) read `new`.
    /// Nothing is changed when any part of it is [`Unsupported`].
    pub fn document(&mut self, span: &DocSpan, old: &Value, new: &Value) -> Result<(), Unsupported> {
        let before = self.edits.len();
        let result = self.document_edits(span, old, new);
        if result.is_err() {
            self.edits.truncate(before);
        }
        result
    }

    fn document_edits(&mut self, span: &DocSpan, old: &Value, new: &Value) -> Result<(), Unsupported> {
        let (Value::Object(o), Value::Object(n)) = (old, new) else { return unsupported("not a mapping") };
        let block = self.document_block(span)?;
        self.mapping(block, o, n)
    }

    /// The mapping block of a document: its chunk, or its item of a `List` chunk.
    fn document_block(&self, span: &DocSpan) -> Result<Block, Unsupported> {
        let chunk = Block { from: span.chunk_first_line.saturating_sub(1), to: span.chunk_last_line, col: 0 };
        let Some(i) = span.list_item else { return Ok(chunk) };
        let items = self.entries(&chunk)?.into_iter().find(|e| e.key == "items");
        let Some((block, true)) = items.as_ref().and_then(|e| self.child(e)) else {
            return unsupported("the List's items are not a block list");
        };
        let item = self.items(&block)?.get(i).copied().ok_or_else(|| Unsupported("no such List item".into()))?;
        if !item.mapping {
            return unsupported("the List item is not a block mapping");
        }
        Ok(Block { from: item.line, to: item.last + 1, col: item.col })
    }

    /// Removes the document of `span`: its `List` item, or its chunk with one `---`.
    pub fn remove_document(&mut self, span: &DocSpan) -> Result<(), Unsupported> {
        if span.list_item.is_some() {
            let b = self.document_block(span)?;
            self.push(b.from, b.to, Vec::new());
            return Ok(());
        }
        let (first, last) = (span.chunk_first_line.saturating_sub(1), span.chunk_last_line);
        let is_sep = |i: usize| DocumentMarker::of(self.line(i)) == Some(DocumentMarker::Start);
        if first > 0 && is_sep(first - 1) {
            self.push(first - 1, last, Vec::new());
        } else if last < self.lines.len() && is_sep(last) {
            self.push(first, last + 1, Vec::new());
        } else {
            self.push(first, last, Vec::new());
        }
        Ok(())
    }

    /// Appends `value` as the last item of the `List` that holds the document of `span` (a
    /// List item), in the style of the items already there: a node added to a
    /// `kubectl get nodes -o yaml` file stays in its List, not in a document after it.
    pub fn append_list_item(&mut self, span: &DocSpan, value: &Value) -> Result<(), Unsupported> {
        if span.list_item.is_none() {
            return unsupported("the document is not a List item");
        }
        let chunk = Block { from: span.chunk_first_line.saturating_sub(1), to: span.chunk_last_line, col: 0 };
        let items = self.entries(&chunk)?.into_iter().find(|e| e.key == "items");
        let Some((block, true)) = items.as_ref().and_then(|e| self.child(e)) else {
            return unsupported("the List's items are not a block list");
        };
        let Some(last) = self.items(&block)?.last().copied() else { return unsupported("the List has no items") };
        if !last.mapping || !value.is_object() {
            return unsupported("the List item is not a block mapping");
        }
        // `- ` at the items' column, the content at the column the last item's content has.
        let dash = format!("{}-{}", " ".repeat(block.col), " ".repeat(last.col.saturating_sub(block.col + 1)));
        let pad = " ".repeat(last.col);
        let lines: Vec<String> = yaml_lines(value)
            .into_iter()
            .enumerate()
            .map(|(i, l)| match (i, l.is_empty()) {
                (0, _) => format!("{dash}{l}"),
                (_, true) => l,
                _ => format!("{pad}{l}"),
            })
            .collect();
        self.push(last.last + 1, last.last + 1, lines);
        Ok(())
    }

    /// Appends `value` as a new document at the end of the text.
    pub fn append_document(&mut self, value: &Value) {
        let mut lines = Vec::new();
        if self.lines.iter().any(|l| is_content(l)) {
            lines.push("---".to_string());
        }
        lines.extend(yaml_lines(value));
        let n = self.lines.len();
        self.push(n, n, lines);
    }

    /// The edited text. Edits that overlap are [`Unsupported`].
    pub fn finish(mut self) -> Result<String, Unsupported> {
        self.edits.sort_by_key(|e| e.from);
        let mut out = String::with_capacity(self.text.len());
        let mut at = 0;
        for e in &self.edits {
            if e.from < at {
                return unsupported("two edits of the same lines");
            }
            let start = self.starts.get(e.from).copied().unwrap_or(self.text.len());
            out.push_str(self.text.get(self.starts.get(at).copied().unwrap_or(self.text.len())..start).unwrap_or(""));
            if start == self.text.len() && !self.text.is_empty() && !self.text.ends_with('\n') && !e.lines.is_empty() {
                out.push_str(self.eol);
            }
            for l in &e.lines {
                out.push_str(l);
                out.push_str(self.eol);
            }
            at = e.to.max(e.from);
        }
        out.push_str(self.text.get(self.starts.get(at).copied().unwrap_or(self.text.len())..).unwrap_or(""));
        Ok(out)
    }
}

/// The value of the document of `span` as its text reads it (nulls kept).
pub fn document_value(text: &str, span: &DocSpan) -> Option<Value> {
    let chunk = placement_core::input::source_map::lines_text(text, span.chunk_first_line, span.chunk_last_line);
    let mut value: Value = serde_yaml::from_str(&chunk).ok()?;
    match span.list_item {
        Some(i) => value.get_mut("items").and_then(|items| items.get_mut(i)).map(Value::take),
        None => Some(value),
    }
}

/// The text with document `doc_index` (1-based, as `DocRef::index`) made to read `new`,
/// changing only the lines that must change; the result is checked by reading it back.
pub fn edit_document(text: &str, doc_index: usize, new: &Value) -> Result<String, Unsupported> {
    let spans = placement_core::input::source_map::document_spans(text);
    let span = spans.iter().find(|s| s.index == doc_index).ok_or_else(|| Unsupported("no such document".into()))?;
    let old = document_value(text, span).ok_or_else(|| Unsupported("the document does not parse".into()))?;
    let mut editor = TextEditor::new(text);
    editor.document(span, &old, new)?;
    let out = editor.finish()?;
    let reread = placement_core::input::source_map::document_spans(&out)
        .into_iter()
        .find(|s| s.index == doc_index)
        .and_then(|s| document_value(&out, &s));
    match reread {
        Some(v) if same(&v, new) => Ok(out),
        _ => unsupported("the edited text reads back differently"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `before` with its only document made to read `before` merged with `patch` (YAML).
    fn merged(before: &str, patch: &str) -> Result<String, Unsupported> {
        let Some(span) = placement_core::input::source_map::document_spans(before).into_iter().next() else {
            return unsupported("no document");
        };
        let mut value = document_value(before, &span).unwrap();
        let patch: Value = serde_yaml::from_str(patch).unwrap();
        placement_core::explain::fixes::strategic_merge(&mut value, &patch);
        edit_document(before, 1, &value)
    }

    #[test]
    fn edits_change_only_their_lines() {
        // (name, before, patch, after)
        let rows: &[(&str, &str, &str, &str)] = &[
            (
                "a key added under a path keeps comments and order",
                "# head\napiVersion: v1\nkind: Pod # kind\nmetadata:\n  name: p\n\n# spec below\nspec:\n  containers:\n  - name: c # the one\n    image: i\n# tail\n",
                "spec:\n  nodeSelector:\n    disk: ssd\n",
                "# head\napiVersion: v1\nkind: Pod # kind\nmetadata:\n  name: p\n\n# spec below\nspec:\n  containers:\n  - name: c # the one\n    image: i\n  nodeSelector:\n    disk: ssd\n# tail\n",
            ),
            (
                "a scalar replaced keeps its comment and quoting elsewhere",
                "spec:\n  replicas: 1 # more later\n  name: \"x\"\n",
                "spec:\n  replicas: 3\n",
                "spec:\n  replicas: 3 # more later\n  name: \"x\"\n",
            ),
            (
                "tolerations appended after the existing ones, in the text's list style",
                "spec:\n  tolerations:\n    - key: a # first\n      operator: Exists\n  # after\n  x: 1\n",
                "spec:\n  tolerations:\n  - key: a\n    operator: Exists\n  - key: b\n    operator: Exists\n",
                "spec:\n  tolerations:\n    - key: a # first\n      operator: Exists\n    - key: b\n      operator: Exists\n  # after\n  x: 1\n",
            ),
            (
                "a key removed (null in the patch) takes only its lines",
                "spec:\n  nodeSelector:\n    a: '1' # keep\n    b: '2'\n  # c\n  x: y\n",
                "spec:\n  nodeSelector:\n    b: null\n",
                "spec:\n  nodeSelector:\n    a: '1' # keep\n  # c\n  x: y\n",
            ),
            (
                "a container merged by name changes its own lines",
                "spec:\n  containers:\n  - name: a\n    resources:\n      requests:\n        cpu: 2 # too much\n  - name: b\n",
                "spec:\n  containers:\n  - name: a\n    resources:\n      requests:\n        cpu: 500m\n",
                "spec:\n  containers:\n  - name: a\n    resources:\n      requests:\n        cpu: 500m # too much\n  - name: b\n",
            ),
            (
                "a flow value at the edited key is replaced as a whole, the rest kept",
                "spec: # s\n  nodeSelector: {a: b} # flow\n  x: 1\n",
                "spec:\n  nodeSelector:\n    c: d\n",
                "spec: # s\n  nodeSelector:\n    a: b\n    c: d\n  x: 1\n",
            ),
            (
                "CRLF line ends are kept",
                "# c\r\nspec:\r\n  x: 1\r\n",
                "spec:\n  y: [a]\n",
                "# c\r\nspec:\r\n  x: 1\r\n  y:\r\n  - a\r\n",
            ),
            (
                "an empty value gets the patch's block",
                "spec:\n  tolerations:\n  x: 1\n",
                "spec:\n  tolerations:\n  - operator: Exists\n",
                "spec:\n  tolerations:\n  - operator: Exists\n  x: 1\n",
            ),
        ];
        for (name, before, patch, after) in rows {
            assert_eq!(merged(before, patch).as_deref(), Ok(*after), "{name}");
        }
    }

    #[test]
    fn shapes_beyond_it_are_unsupported() {
        // (name, before, patch)
        let rows = [
            ("an alias at the edited spot", "a: &x {k: v}\nspec: *x\n", "spec:\n  k: w\n"),
            ("a merge key", "base: &b {k: v}\nspec:\n  <<: *b\n  z: 1\n", "spec:\n  k: w\n"),
            ("a flow document", "{spec: {x: 1}}\n", "spec:\n  x: 2\n"),
        ];
        for (name, before, patch) in rows {
            assert!(merged(before, patch).is_err(), "{name}");
        }
    }

    #[test]
    fn list_items_and_documents_are_added_and_removed() {
        let text = "# nodes\napiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: a\n- apiVersion: v1\n  kind: Node # b\n  metadata:\n    name: b\nkind: List\n";
        let spans = placement_core::input::source_map::document_spans(text);
        let mut e = TextEditor::new(text);
        e.document(
            &spans[1],
            &json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}}),
            &json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b"}, "spec": {"unschedulable": true}}),
        )
        .unwrap();
        e.remove_document(&spans[0]).unwrap();
        e.append_list_item(&spans[1], &json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "c"}})).unwrap();
        assert_eq!(
            e.finish().unwrap(),
            "# nodes\napiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Node # b\n  metadata:\n    name: b\n  spec:\n    unschedulable: true\n- apiVersion: v1\n  kind: Node\n  metadata:\n    name: c\nkind: List\n"
        );
        // Items indented under `items:`, a comment after the last one: kept where they are.
        let text = "apiVersion: v1\nkind: List\nitems:\n    -   apiVersion: v1\n        kind: Node\n        metadata: {name: a}\n    # end of nodes\nmetadata: {resourceVersion: ''}\n";
        let spans = placement_core::input::source_map::document_spans(text);
        let mut e = TextEditor::new(text);
        e.append_list_item(
            &spans[0],
            &json!({"apiVersion": "v1", "kind": "Node", "metadata": {"name": "b", "labels": {"x": "y"}}}),
        )
        .unwrap();
        assert_eq!(
            e.finish().unwrap(),
            "apiVersion: v1\nkind: List\nitems:\n    -   apiVersion: v1\n        kind: Node\n        metadata: {name: a}\n    -   apiVersion: v1\n        kind: Node\n        metadata:\n          name: b\n          labels:\n            x: y\n    # end of nodes\nmetadata: {resourceVersion: ''}\n"
        );
        // Not a List item: refused (the caller appends a document).
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n";
        let spans = placement_core::input::source_map::document_spans(text);
        assert!(TextEditor::new(text).append_list_item(&spans[0], &json!({})).is_err());
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n# b\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n";
        let spans = placement_core::input::source_map::document_spans(text);
        let mut e = TextEditor::new(text);
        e.remove_document(&spans[0]).unwrap();
        assert_eq!(e.finish().unwrap(), "# b\napiVersion: v1\nkind: Node\nmetadata: {name: b}\n");
    }
}
