//! Skipped lines
//!
//! A skipped subtree ends at the first line indented no more than its key, except that quoted
//! scalars and flow collections run on to their closing character whatever the indentation of
//! the lines between. So the skipper reads each line's structure as far as it decides that:
//! the `- ` entries and the key, then the first character of the value. A plain value's text
//! is never scanned (quotes inside it are text), nor are the lines that continue it or a block
//! scalar: those are recognized by indentation.

use super::chars::{byte_before, next_where, spaces, trim_start};
use super::reader::{is_document_marker, Reader};

impl Reader<'_> {
    /// Skips the lines of a value that starts after `key:` at column `n`: lines indented
    /// more, or a sequence at the same column, plus blank and comment lines, and the lines a
    /// quoted scalar or flow collection continues on, whatever their indentation.
    pub(super) fn skip_block(&mut self, n: usize) -> Option<()> {
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
            let body = line.text.as_bytes().get(sp..).unwrap_or_default();
            let Some(&head) = body.first() else {
                self.pos = line.next;
                continue;
            };
            if let Some(f) = floor {
                // A `#` ends a plain scalar; in a block scalar it is text.
                if sp > f.indent && !(f.plain && head == b'#') {
                    self.pos = line.next;
                    continue;
                }
                floor = None;
            }
            match head {
                b'\t' => return None,
                b'#' => {
                    self.pos = line.next;
                    continue;
                }
                _ => {}
            }
            let entry = sp == n && (head == b'-' && matches!(body.get(1), None | Some(b' ')));
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
    pub(super) fn skip_plain_continuation(&mut self, n: usize) {
        while let Some(line) = self.peek() {
            let sp = spaces(line.text);
            if line.text.as_bytes().get(sp).is_some_and(|&c| sp <= n || c == b'#') {
                break;
            }
            self.pos = line.next;
        }
    }

    /// Skips a block scalar's lines: those indented more than `n`, and blank ones.
    pub(super) fn skip_indented(&mut self, n: usize) -> Option<()> {
        while let Some(line) = self.peek() {
            let sp = spaces(line.text);
            match line.text.as_bytes().get(sp) {
                Some(b'\t') if sp <= n => return None,
                Some(_) if sp <= n => break,
                _ => {}
            }
            self.pos = line.next;
        }
        Some(())
    }
}

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
    let (mut col, mut node, mut dash) = (indent, body, None);
    while let Some(rest) = node.strip_prefix(b"-").filter(|rest| matches!(rest.first(), None | Some(b' '))) {
        dash = Some(col);
        node = trim_start(rest, |c| c == b' ');
        col += rest.len() - node.len() + 1;
    }
    let Some(&first) = node.first() else { return Some(Skipped::Done) };
    // A key (then its value is owned by the mapping at `col`), or a value alone.
    let (value, owner) = match first {
        b'#' => return Some(Skipped::Done),
        b'"' | b'\'' => {
            let Some(end) = quote_end(node, 1, first) else {
                return Some(Skipped::Open(Carry { quote: Some(first), depth: 0 }));
            };
            match trim_start(node.get(end..)?, |c| c == b' ') {
                [b':', value @ ..] if matches!(value.first(), None | Some(b' ' | b'\t')) => (value, Some(col)),
                _ => return Some(Skipped::Done),
            }
        }
        b'[' | b'{' => return Some(open_flow(node)),
        _ => match plain_key_end(node) {
            Some(value) => (value, Some(col)),
            None => (node, dash),
        },
    };
    let value = trim_start(value, |c| c == b' ' || c == b'\t');
    let Some((&c, rest)) = value.split_first() else { return Some(Skipped::Done) };
    Some(match c {
        b'#' => Skipped::Done,
        b'"' | b'\'' => match quote_end(value, 1, c) {
            Some(_) => Skipped::Done,
            None => Skipped::Open(Carry { quote: Some(c), depth: 0 }),
        },
        b'[' | b'{' => open_flow(value),
        b'|' | b'>' => {
            let tail = trim_start(rest, |c| matches!(c, b'-' | b'+' | b'0'..=b'9'));
            // Then only blanks, or blanks and a comment.
            match trim_start(tail, |c| c == b' ' || c == b'\t') {
                [] => {}
                comment @ [b'#', ..] if comment.len() < tail.len() => {}
                _ => return None,
            }
            Skipped::Floor(Floor { indent: owner?, plain: false })
        }
        b'&' | b'!' | b'*' | b'?' | b'%' | b'@' | b'`' => return None,
        b'-' if matches!(rest.first(), None | Some(b' ')) => return None,
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
            b':' if matches!(node.get(i + 1), None | Some(b' ' | b'\t')) => return node.get(i + 1..),
            b'#' if matches!(byte_before(node, i), Some(b' ' | b'\t')) => return None,
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
    while let Some(&c) = body.get(i) {
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
            b'#' if matches!(byte_before(body, i), None | Some(b' ' | b'\t')) => break,
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
    while let Some(&c) = body.get(i) {
        match c {
            b'\\' if quote == b'"' => i += 2,
            b'\'' if quote == b'\'' && body.get(i + 1) == Some(&b'\'') => i += 2,
            _ if c == quote => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}
