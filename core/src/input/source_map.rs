//! Where things sit in manifest text: the lines of each document (with `List` items counted
//! the way [`crate::input::documents::split_documents`] counts them), the line of a field path such as
//! `spec.template.spec.tolerations[0].operator`, and the line an [`InputError`] points at.
//!
//! Editors use this to put error markers at the failing line and to patch one document in
//! place. It reads block-style YAML by indentation, the form `kubectl get -o yaml` and hand
//! written manifests use; inside flow collections (`{cpu: 1}`) and JSON it stops at the
//! deepest line it can name, which is the line holding the value.

use serde_json::Value;

use crate::input::documents::{DocumentMarker, InputError};

/// One document of a text, as `split_documents` numbers them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DocSpan {
    /// 1-based, as [`crate::input::documents::DocRef::index`].
    pub index: usize,
    /// 1-based first and last line (inclusive) of the raw document chunk; for a `List` item,
    /// of the item.
    pub first_line: usize,
    pub last_line: usize,
    /// 1-based lines of the whole `---` chunk holding the document.
    pub chunk_first_line: usize,
    pub chunk_last_line: usize,
    /// Position in the chunk's `items` when the chunk is a `List`.
    pub list_item: Option<usize>,
}

/// A `---`-separated chunk of YAML text: 1-based line range, excluding the separator lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub first_line: usize,
    pub last_line: usize,
}

/// Splits YAML text into raw chunks at its document markers (`---`, `...`: see
/// [`DocumentMarker`]), which belong to no chunk. Empty text gives one empty chunk.
pub fn chunks(text: &str) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut first = 1;
    let mut n = 0;
    for (i, line) in text.lines().enumerate() {
        n = i + 1;
        if DocumentMarker::of(line).is_some() {
            if n > first {
                out.push(Chunk { first_line: first, last_line: n - 1 });
            }
            first = n + 1;
        }
    }
    if n >= first {
        out.push(Chunk { first_line: first, last_line: n });
    }
    out
}

/// The text of lines `first..=last` (1-based).
pub fn lines_text(text: &str, first: usize, last: usize) -> String {
    let mut s = String::new();
    for line in text.lines().skip(first.saturating_sub(1)).take((last + 1).saturating_sub(first)) {
        s.push_str(line);
        s.push('\n');
    }
    s
}

fn is_json(text: &str) -> bool {
    let t = text.trim_start();
    t.starts_with('{') || t.starts_with('[')
}

fn is_list(v: &Value) -> bool {
    v.get("kind").and_then(Value::as_str).is_some_and(|k| k == "List" || k.ends_with("List"))
        && v.get("items").is_some_and(Value::is_array)
}

/// The documents of a YAML text with their lines, numbered as `split_documents` numbers them
/// (empty documents skipped, `List` items counted one by one). Chunks that do not parse are
/// skipped. JSON text gives no spans.
pub fn document_spans(text: &str) -> Vec<DocSpan> {
    if is_json(text) {
        return Vec::new();
    }
    let all: Vec<&str> = text.lines().collect();
    let mut spans = Vec::new();
    for chunk in chunks(text) {
        // From the lines already split: `lines_text` would count lines from the start of the
        // text for every chunk, quadratic in a text of many documents.
        let body: String = all
            .get(chunk.first_line.saturating_sub(1)..chunk.last_line.min(all.len()))
            .unwrap_or_default()
            .iter()
            .flat_map(|l| [*l, "\n"])
            .collect();
        let Ok(mut value) = serde_yaml::from_str::<Value>(&body) else { continue };
        crate::input::documents::strip_nulls(&mut value);
        if is_list(&value) {
            let items = value.get("items").and_then(Value::as_array).map(Vec::len).unwrap_or(0);
            let lines = Lines::new(&all, chunk.first_line, chunk.last_line);
            let items_block = lines.find(&[Seg::Key("items".into())]);
            let starts: Vec<usize> = (0..items)
                .map(|i| match &items_block {
                    Some(_) => lines.find(&[Seg::Key("items".into()), Seg::Index(i)]).unwrap_or(chunk.first_line),
                    None => chunk.first_line,
                })
                .collect();
            for (i, item) in value.get("items").and_then(Value::as_array).into_iter().flatten().enumerate() {
                if item.as_object().is_none_or(|m| m.is_empty()) {
                    continue;
                }
                let first = starts.get(i).copied().unwrap_or(chunk.first_line);
                let last = starts.get(i + 1).map(|n| n.saturating_sub(1).max(first)).unwrap_or(chunk.last_line);
                spans.push(DocSpan {
                    index: spans.len() + 1,
                    first_line: first,
                    last_line: last,
                    chunk_first_line: chunk.first_line,
                    chunk_last_line: chunk.last_line,
                    list_item: Some(i),
                });
            }
        } else if value.as_object().is_some_and(|m| !m.is_empty()) {
            spans.push(DocSpan {
                index: spans.len() + 1,
                first_line: chunk.first_line,
                last_line: chunk.last_line,
                chunk_first_line: chunk.first_line,
                chunk_last_line: chunk.last_line,
                list_item: None,
            });
        }
    }
    spans
}

/// The 1-based line of `field` (a path such as `spec.containers[0].resources.requests.cpu`)
/// inside document `doc_index` (1-based) of `text`: the line of the deepest part of the path
/// that can be found, else the document's first content line.
pub fn locate(text: &str, doc_index: usize, field: &str) -> Option<usize> {
    Locator::new(text).locate(doc_index, field)
}

/// [`locate`] for many fields of one text: its documents and lines are found once, not for
/// each field (finding them reads the whole text).
pub struct Locator<'a> {
    spans: Vec<DocSpan>,
    all: Vec<&'a str>,
}

impl<'a> Locator<'a> {
    pub fn new(text: &'a str) -> Self {
        Self { spans: document_spans(text), all: text.lines().collect() }
    }

    /// The text's lines, the first at index 0.
    pub fn lines(&self) -> &[&'a str] {
        &self.all
    }

    /// As [`locate`].
    pub fn locate(&self, doc_index: usize, field: &str) -> Option<usize> {
        let span = self.spans.iter().find(|s| s.index == doc_index)?;
        locate_in(&self.all, span, field)
    }
}

fn locate_in(all: &[&str], span: &DocSpan, field: &str) -> Option<usize> {
    let lines = Lines::new(all, span.first_line, span.last_line);
    let fallback = lines.first_content_line().unwrap_or(span.first_line);
    let field = field.trim_start_matches('.');
    if field.is_empty() {
        return Some(fallback);
    }
    // The API server reports a Node's `spec.taints` as `metadata.taints`.
    let aliased = field.strip_prefix("metadata.taints").map(|rest| format!("spec.taints{rest}"));
    let field = aliased.as_deref().unwrap_or(field);
    // A `List` item starts with `- `: walk the mapping after the dash.
    let mut block = match span.list_item {
        Some(_) => index_in(&lines.root(), 0).map(|(_, b)| b).unwrap_or_else(|| lines.root()),
        None => lines.root(),
    };
    let mut found = None;
    let mut rest = field;
    while !rest.is_empty() {
        let Some((line, child, next)) = lines.step(&block, rest) else { break };
        found = Some(line);
        block = child;
        rest = next.trim_start_matches('.');
    }
    Some(found.unwrap_or(fallback))
}

/// The line an input error points at, in the text it came from: the field's line for
/// decode and validation errors, the reported line for YAML syntax errors, the first line of
/// kubectl's output for people.
pub fn error_line(text: &str, error: &InputError) -> Option<usize> {
    match error {
        InputError::Decode { doc, field, .. } => locate(text, doc.index, field),
        InputError::Invalid { doc, error } => locate(text, doc.index, &error.field),
        InputError::Strict(finding) => finding.line,
        InputError::NotServed { doc, .. } => locate(text, doc.index, "apiVersion"),
        InputError::Forbidden { doc, .. } => locate(text, doc.index, "spec.priorityClassName"),
        // The `kind:` line, or the document's first line when that is missing too.
        InputError::NotSet { doc, .. } => locate(text, doc.index, "kind"),
        InputError::Syntax { message, index, .. } => syntax_line(message)
            .or_else(|| document_spans(text).into_iter().find(|s| s.index == *index).map(|s| s.first_line)),
        // The table's header, or the description's `Name:` line.
        InputError::KubectlOutput { .. } => {
            let text = text.strip_prefix('\u{feff}').unwrap_or(text);
            text.lines().position(|l| !l.trim().is_empty()).map(|i| i + 1)
        }
        _ => None,
    }
}

/// The line a parser message points at. libyaml (through serde_yaml) writes `<problem> at
/// line 7 column 3`, then, when it differs, `, while parsing <context> at line 2 column 1`:
/// the problem's mark is where the text breaks, the context's where the construct being read
/// began. That is the line to show, except when the problem is a construct opened earlier and
/// never closed (a flow collection, a quoted scalar, the stream ending inside one): then the
/// line that opened it is the broken one.
pub(crate) fn syntax_line(message: &str) -> Option<usize> {
    let marks = line_marks(message);
    let (problem, context) = (marks.first().map(|m| m.0), marks.get(1).map(|m| m.0));
    let unclosed = message.contains("end of stream")
        || message.contains("while parsing a flow")
        || message.contains("while scanning a quoted scalar");
    match context {
        Some(opened) if unclosed => Some(opened),
        _ => problem,
    }
}

/// Every `line L column C` in a parser message, in order (1-based, as serde_yaml prints them).
pub(crate) fn line_marks(message: &str) -> Vec<(usize, usize)> {
    let mut marks = Vec::new();
    let mut rest = message;
    while let Some(at) = rest.find("line ") {
        rest = &rest[at + 5..];
        let number = |s: &str| s.chars().take_while(char::is_ascii_digit).collect::<String>().parse::<usize>().ok();
        let Some(line) = number(rest).filter(|n| *n > 0) else { continue };
        let column = rest
            .split_once(" column ")
            .and_then(|(between, after)| between.chars().all(|c| c.is_ascii_digit()).then(|| number(after)).flatten());
        marks.push((line, column.unwrap_or(0)));
    }
    marks
}

// ---------------------------------------------------------------------------------------------
// A small indentation walker over block YAML.

#[derive(Debug, Clone, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

/// A line as the walker sees it: its number, the column where its content starts, and the
/// content (for a sequence entry's first line, the content after `- `).
#[derive(Debug, Clone, Copy)]
struct View<'a> {
    no: usize,
    indent: usize,
    content: &'a str,
}

struct Lines<'a> {
    views: Vec<View<'a>>,
}

/// A block: a run of views (indices into `Lines::views`), with the first line possibly
/// re-viewed (the content after a `- `).
#[derive(Debug, Clone)]
struct Block<'a> {
    views: Vec<View<'a>>,
}

fn significant(content: &str) -> bool {
    !content.is_empty() && !content.starts_with('#')
}

impl<'a> Lines<'a> {
    fn new(all: &[&'a str], first: usize, last: usize) -> Self {
        let mut views = Vec::new();
        for no in first..=last.min(all.len()) {
            // Line numbers count from 1.
            let Some(raw) = no.checked_sub(1).and_then(|k| all.get(k)) else { continue };
            let raw = raw.trim_end_matches('\r');
            let content = raw.trim_start_matches(' ');
            if !significant(content.trim_end()) {
                continue;
            }
            views.push(View { no, indent: raw.len() - content.len(), content: content.trim_end() });
        }
        Self { views }
    }

    fn first_content_line(&self) -> Option<usize> {
        self.views.first().map(|v| v.no)
    }

    fn root(&self) -> Block<'a> {
        Block { views: self.views.clone() }
    }

    fn find(&self, path: &[Seg]) -> Option<usize> {
        let mut block = self.root();
        let mut line = None;
        for seg in path {
            let (l, child) = match seg {
                Seg::Key(k) => key_in(&block, k)?,
                Seg::Index(i) => index_in(&block, *i)?,
            };
            line = Some(l);
            block = child;
        }
        line
    }

    /// One step down `rest`: a `[i]` index or the longest key at this level that `rest`
    /// starts with. Returns the line, the child block and what is left of the path.
    fn step<'p>(&self, block: &Block<'a>, rest: &'p str) -> Option<(usize, Block<'a>, &'p str)> {
        if let Some(inner) = rest.strip_prefix('[') {
            let close = inner.find(']')?;
            let token = &inner[..close];
            let after = &inner[close + 1..];
            if let Ok(i) = token.parse::<usize>() {
                if let Some((line, child)) = index_in(block, i) {
                    return Some((line, child, after));
                }
            }
            // `[key]`, as FieldPath::key writes map keys.
            let (line, child) = key_in(block, token)?;
            return Some((line, child, after));
        }
        let base = block.views.first()?.indent;
        let mut best: Option<(usize, usize)> = None; // (view position, key length)
        for (pos, v) in block.views.iter().enumerate() {
            if v.indent != base {
                continue;
            }
            let Some(key) = key_of(v.content) else { continue };
            let matches =
                rest.starts_with(key) && matches!(rest.as_bytes().get(key.len()), None | Some(b'.') | Some(b'['));
            if matches && best.is_none_or(|(_, len)| key.len() > len) {
                best = Some((pos, key.len()));
            }
        }
        let (pos, len) = best?;
        Some((block.views.get(pos)?.no, child_block(block, pos), &rest[len..]))
    }
}

/// The key of a `key: value` or `key:` line, unquoted.
fn key_of(content: &str) -> Option<&str> {
    let content = content.strip_prefix("- ").unwrap_or(content);
    if let Some(q) = content.chars().next().filter(|c| *c == '"' || *c == '\'') {
        let inner = &content[1..];
        let end = inner.find(q)?;
        return inner[end + 1..].starts_with(':').then_some(&inner[..end]);
    }
    let colon = content.find(": ").or_else(|| content.strip_suffix(':').map(str::len))?;
    let key = content[..colon].trim_end();
    (!key.is_empty() && !key.starts_with(['{', '[', '-'])).then_some(key)
}

/// The lines that belong to the view at `pos`: following lines indented deeper, and a
/// sequence written at the key's own indentation (`key:\n- a`).
fn child_block<'a>(block: &Block<'a>, pos: usize) -> Block<'a> {
    let Some(&head) = block.views.get(pos) else { return Block { views: Vec::new() } };
    let mut views = Vec::new();
    let mut seq_at_same_indent = false;
    for (k, v) in block.views.iter().enumerate().skip(pos + 1) {
        let deeper = v.indent > head.indent;
        let seq = v.indent == head.indent && (v.content == "-" || v.content.starts_with("- "));
        if k == pos + 1 && seq {
            seq_at_same_indent = true;
        }
        if deeper || (seq && seq_at_same_indent) {
            views.push(*v);
        } else {
            break;
        }
    }
    Block { views }
}

fn key_in<'a>(block: &Block<'a>, key: &str) -> Option<(usize, Block<'a>)> {
    let base = block.views.first()?.indent;
    let pos = block.views.iter().position(|v| v.indent == base && key_of(v.content) == Some(key))?;
    Some((block.views.get(pos)?.no, child_block(block, pos)))
}

/// The `i`-th `- ` entry at the block's indentation; its first line is re-viewed as the
/// content after the dash so that `- name: x` continues as a mapping.
fn index_in<'a>(block: &Block<'a>, i: usize) -> Option<(usize, Block<'a>)> {
    let base = block.views.first()?.indent;
    let entries: Vec<usize> = block
        .views
        .iter()
        .enumerate()
        .filter(|(_, v)| v.indent == base && (v.content == "-" || v.content.starts_with("- ")))
        .map(|(p, _)| p)
        .collect();
    let &pos = entries.get(i)?;
    let head = *block.views.get(pos)?;
    let end = entries.get(i + 1).copied().unwrap_or(block.views.len());
    let mut views = Vec::new();
    if head.content != "-" {
        let after = head.content[1..].trim_start_matches(' ');
        let indent = head.indent + (head.content.len() - after.len());
        views.push(View { no: head.no, indent, content: after });
    }
    views.extend(block.views.get(pos + 1..end).unwrap_or_default().iter().filter(|v| v.indent > base).copied());
    Some((head.no, Block { views }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cluster::simulate::{simulate, SimulateOptions};
    use crate::input::documents::parse_manifests;

    const TEXT: &str = "# two documents\nkind: Node\nmetadata:\n  name: a\n---\n---\napiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: b}\n- kind: Pod\n  metadata:\n    name: p\n  spec:\n    tolerations:\n    - key: k\n      operator: Eq\n    containers:\n    - name: c\n      resources:\n        requests:\n          cpu: lots\n";

    /// A syntax error is marked where the text breaks (libyaml's problem mark), not where the
    /// construct it was reading began, except for a construct left open; a tab is named.
    #[test]
    fn syntax_errors_point_at_the_broken_line() {
        let head = "apiVersion: v1\nkind: Node\nmetadata:\n  name: a\n";
        // (what, the text after `head` (lines 1-4), the line, what the message says)
        let rows = [
            ("a key indented less than its siblings", " labels: x\n", 5, "did not find expected key at line 5"),
            (
                "a key indented more, after a nested mapping",
                "  labels:\n    x: y\n   z: w\n",
                7,
                "did not find expected key at line 7",
            ),
            ("a second colon on a line", "  x: y: z\n", 5, "mapping values are not allowed in this context at line 5"),
            ("a sequence entry in a mapping", "  - x\n", 5, "did not find expected key at line 5"),
            (
                "a flow sequence never closed",
                "  labels: [a, b\nstatus: {}\n",
                5,
                "while parsing a flow sequence at line 5",
            ),
            (
                "a quoted scalar never closed",
                "  labels: \"x\nstatus: {}\n",
                5,
                "while scanning a quoted scalar at line 5",
            ),
            (
                "a tab indenting a key",
                "  labels:\n  \tx: y\n",
                6,
                "(the character is a tab: YAML indentation must be spaces)",
            ),
            (
                "a tab after a plain scalar",
                "\tlabels: {}\n",
                5,
                "found a tab character that violates indentation at line 5",
            ),
        ];
        for (what, rest, line, says) in rows {
            let text = format!("{head}{rest}");
            let error = parse_manifests(&text, "f.yaml").expect_err(what);
            assert!(error.to_string().contains(says), "{what}: {error}");
            assert_eq!(error_line(&text, &error), Some(line), "{what}: {error}");
        }
        // A tab at the start of a document's own line, named once.
        let text = "apiVersion: v1\nkind: Node\nmetadata:\n\tname: a\n";
        let error = parse_manifests(text, "f.yaml").unwrap_err().to_string();
        assert_eq!(error.matches("the character is a tab").count(), 1, "{error}");
        assert_eq!(syntax_line("no mark here"), None);
        assert_eq!(line_marks("x at line 3 column 9, while y at line 1 column 2"), [(3, 9), (1, 2)]);
    }

    #[test]
    fn spans_number_documents_like_split_documents() {
        let spans = document_spans(TEXT);
        assert_eq!(spans.len(), 3);
        assert_eq!((spans[0].first_line, spans[0].last_line), (1, 4));
        assert_eq!((spans[1].first_line, spans[1].last_line, spans[1].list_item), (10, 11, Some(0)));
        assert_eq!((spans[2].first_line, spans[2].last_line), (12, 23));
        assert_eq!(spans[2].chunk_first_line, 7);
    }

    #[test]
    fn locates_fields_by_path() {
        assert_eq!(locate(TEXT, 1, "metadata.name"), Some(4));
        assert_eq!(locate(TEXT, 3, "spec.tolerations[0].operator"), Some(18));
        assert_eq!(locate(TEXT, 3, "spec.containers[0].resources.requests.cpu"), Some(23));
        // Flow style: the deepest line found.
        assert_eq!(locate(TEXT, 2, "metadata.name"), Some(11));
        // Unknown field: the deepest known parent.
        assert_eq!(locate(TEXT, 3, "spec.nodeSelector"), Some(15));
        assert_eq!(locate(TEXT, 3, ""), Some(12));
    }

    #[test]
    fn keys_with_dots_and_sequences_at_key_indent() {
        let text = "kind: Node\nmetadata:\n  labels:\n    kubernetes.io/os: linux\n    a.b: c\nspec:\n  taints:\n  - key: x\n    effect: Bad\n";
        assert_eq!(locate(text, 1, "metadata.labels.a.b"), Some(5));
        assert_eq!(locate(text, 1, "spec.taints[0].effect"), Some(9));
        assert_eq!(locate(text, 1, "metadata.taints[0].effect"), Some(9), "upstream's path for taints");
        assert_eq!(locate(text, 1, "metadata.labels[kubernetes.io/os]"), Some(4));
    }

    #[test]
    fn error_lines_for_decode_validation_and_syntax_errors() {
        let pod = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: p\nspec:\n  containers:\n  - name: c\n    resources:\n      requests:\n        cpu: lots\n";
        let err = parse_manifests(pod, "w").unwrap_err();
        assert_eq!(error_line(pod, &err), Some(10));

        let invalid = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  tolerations:\n  - key: k\n    operator: Eq\n  containers: [{name: c, image: i}]\n";
        let errors = simulate(&parse_manifests(invalid, "w").unwrap(), &SimulateOptions::default()).unwrap_err();
        assert_eq!(error_line(invalid, &errors[0]), Some(7));

        // kubectl's `apiVersion not set`: at the `kind:` line; without a kind, the document's first.
        let text = "apiVersion: v1\nkind: Node\nmetadata: {name: a}\n---\n# no version\nkind: Pod\nmetadata: {name: p}\n---\nmetadata: {name: q}\n";
        let errors = crate::input::documents::parse_manifests_all(text, "w").unwrap_err();
        let lines: Vec<Option<usize>> = errors.iter().map(|e| error_line(text, e)).collect();
        assert_eq!(lines, [Some(6), Some(9)], "{errors:?}");

        let broken = "kind: Pod\nmetadata:\n  name: [p\n";
        let err = parse_manifests(broken, "w").unwrap_err();
        assert!(error_line(broken, &err).is_some_and(|l| l >= 3), "{err}");
    }

    #[test]
    fn chunks_split_at_separators() {
        // (name, text, want line ranges)
        type Row = (&'static str, &'static str, &'static [(usize, usize)]);
        let rows: [Row; 7] = [
            ("a start marker", "a: 1\n---\nb: 2\n", &[(1, 1), (3, 3)]),
            ("a leading marker", "---\na: 1\n", &[(2, 2)]),
            ("a marker with a comment", "a: 1\n--- # b\nb: 2\n", &[(1, 1), (3, 3)]),
            ("an end marker with a comment", "a: 1\n... # end\nb: 2\n", &[(1, 1), (3, 3)]),
            ("CRLF", "a: 1\r\n---\r\nb: 2\r\n", &[(1, 1), (3, 3)]),
            ("dashes that are content", "a: 1\n---x\n", &[(1, 2)]),
            ("an indented marker", "a: |\n  ---\n", &[(1, 2)]),
        ];
        for (name, text, want) in rows {
            let got: Vec<(usize, usize)> = chunks(text).iter().map(|c| (c.first_line, c.last_line)).collect();
            assert_eq!(got, want, "{name}");
        }
        assert_eq!(lines_text("a\nb\nc\n", 2, 3), "b\nc\n");
    }

    /// A document's lines end before its end marker (`...`), a comment after the marker or not.
    #[test]
    fn a_documents_lines_end_before_its_end_marker() {
        for end in ["...", "... # end"] {
            let node = |name: &str| format!("apiVersion: v1\nkind: Node\nmetadata: {{name: {name}}}\n");
            let text = format!("{}{end}\n---\n{}", node("a"), node("b"));
            let read = crate::input::documents::parse_manifests(&text, "n").unwrap();
            assert_eq!(read.nodes.len(), 2, "{end}");
            let spans: Vec<(usize, usize, usize)> =
                document_spans(&text).iter().map(|s| (s.index, s.first_line, s.last_line)).collect();
            assert_eq!(spans, [(1, 1, 3), (2, 6, 8)], "{end}");
        }
    }
}
