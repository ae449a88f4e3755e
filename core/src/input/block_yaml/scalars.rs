//! Scalars
//!
//! Quoted scalars folded over several lines and literal and folded block scalars, which the [`Reader`]
//! reads line by line; then scalars on one line: plain, single- and double-quoted (with their
//! escapes), and how a plain scalar resolves.

use std::borrow::Cow;

use serde_json::Number;

use super::node::Node;

use super::chars::{byte_before, next_where, spaces};
use super::reader::{ends_line, is_document_marker, Reader};

impl<'a> Reader<'a> {
    /// A quoted scalar that starts at `s[0]` and continues on the next lines, folded as
    /// libyaml folds it: a line break becomes a space, each empty line a line feed, blanks
    /// around breaks go, and a double-quoted `\\` at the end of a line joins the lines.
    /// libyaml does not look at the continuation lines' indentation.
    pub(super) fn multiline_quoted(&mut self, s: &'a str) -> Option<String> {
        let &quote = s.as_bytes().first()?;
        let mut out = String::new();
        let mut segment = quoted_segment(s.get(1..)?, quote, &mut out)?;
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

    /// The lines that continue the plain scalar `first` (the rest of a `key: ` line, whose
    /// mapping is at column `n`), folded as libyaml folds them: a line break becomes a space,
    /// or, before empty lines, their breaks. `Some(None)` when no line continues it. Lines
    /// whose start or content libyaml could read otherwise (an indicator first, `: `, a
    /// comment, a tab), and a first line with a comment, are left to serde_yaml (`None`).
    /// The folded text is always a string: a fold puts a space or a line break in it, which no
    /// other type's form has.
    pub(super) fn plain_continuation(&mut self, n: usize, first: &str) -> Option<Option<String>> {
        // Most values end on their line, and the next line starts a sibling or a parent's
        // entry: seen from its indentation alone, before any line is cut or scanned.
        let next = self.text.get(self.pos..).unwrap_or_default();
        let sp = spaces(next);
        if sp <= n && !matches!(next.as_bytes().get(sp), Some(b'\n' | b'\r')) {
            return Some(None);
        }
        let mut folded: Option<String> = None;
        // Empty lines seen since the last continuation line, not consumed until one follows.
        let (mut at, mut empty) = (self.pos, 0usize);
        while let Some(line) = self.peek_from(at) {
            let sp = spaces(line.text);
            let rest = line.text.get(sp..).unwrap_or_default();
            if rest.is_empty() {
                empty += 1;
                at = line.next;
                continue;
            }
            if sp <= n {
                break;
            }
            let out = match &mut folded {
                Some(out) => out,
                None => {
                    // A comment after the first line's text ends the scalar there.
                    let (first_text, _) = plain_block(first)?;
                    if first_text.len() != first.trim_end_matches(' ').len() {
                        return None;
                    }
                    folded.insert(first_text.to_string())
                }
            };
            // A tab makes `plain_block` give up; `: ` makes the line a key, ` #` a comment.
            if !plain_may_start(rest.as_bytes(), false) {
                return None;
            }
            let (text, key) = plain_block(rest)?;
            if key.is_some() || text.len() != rest.trim_end_matches(' ').len() {
                return None;
            }
            if empty == 0 {
                out.push(' ');
            }
            out.extend(std::iter::repeat_n('\n', empty));
            out.push_str(text);
            (empty, at) = (0, line.next);
            self.pos = line.next;
        }
        Some(folded)
    }

    /// The lines of a literal or folded block scalar whose header (`|`, `|-`, `|+`, `>`,
    /// `>-`, `>+`, maybe a comment) ended the previous line; its lines must be indented more
    /// than `parent`. Folding is libyaml's (`yaml_parser_scan_block_scalar`): the line break
    /// between two content lines that do not start with a blank becomes a space, or is
    /// dropped when empty lines follow it (their breaks stay); around a more indented line,
    /// breaks stay.
    pub(super) fn literal(&mut self, header: &str, parent: usize) -> Option<String> {
        let chomp = literal_header(header)?;
        let folded = header.starts_with('>');
        // Whether the last content line started with a blank (a more indented line).
        let mut last_blank_start = false;
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
                    if line.text.as_bytes().get(sp) == Some(&b'\t') {
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
            let text = line.text.get(bi..).unwrap_or_default();
            let blank_start = matches!(text.as_bytes().first(), Some(b' ' | b'\t'));
            if content {
                if !(folded && !last_blank_start && !blank_start) {
                    out.push('\n');
                } else if breaks == 0 {
                    out.push(' ');
                }
            }
            out.extend(std::iter::repeat_n('\n', breaks));
            breaks = 0;
            out.push_str(text);
            last_blank_start = blank_start;
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
}

#[derive(Clone, Copy)]
pub(super) enum Chomp {
    Clip,
    Strip,
    Keep,
}

pub(super) fn literal_header(header: &str) -> Option<Chomp> {
    let (chomp, rest) = match header.as_bytes().get(1) {
        Some(b'-') => (Chomp::Strip, &header[2..]),
        Some(b'+') => (Chomp::Keep, &header[2..]),
        _ => (Chomp::Clip, &header[1..]),
    };
    ends_line(rest).then_some(chomp)
}

/// Whether a plain scalar may start at `b` (YAML's indicator characters may not, and
/// `-`, `?`, `:` only before a non-space; `?` and `:` are left to serde_yaml). False at the
/// end of the line.
pub(super) fn plain_may_start(b: &[u8], flow: bool) -> bool {
    match b {
        [] | [b'-'] => false,
        [b'-', next, ..] => *next != b' ' && !(flow && matches!(next, b',' | b'[' | b']' | b'{' | b'}')),
        [b'?' | b':' | b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"'
        | b'%' | b'@' | b'`', ..] => false,
        _ => true,
    }
}

/// A plain scalar in block context on one line: its text and, when `: ` ends it (a key),
/// the rest after the `:`. `None` for a tab (libyaml's rules for tabs are subtle).
pub(super) fn plain_block(s: &str) -> Option<(&str, Option<&str>)> {
    let b = s.as_bytes();
    let mut i = 0;
    loop {
        i = next_where(b, i, |c| c == b':' || c == b'#' || c == b'\t');
        match b.get(i) {
            None => return Some((s.trim_end_matches(' '), None)),
            Some(b':') if matches!(b.get(i + 1), None | Some(b' ')) => {
                return Some((s[..i].trim_end_matches(' '), Some(&s[i + 1..])));
            }
            Some(b'#') if byte_before(b, i) == Some(b' ') => return Some((s[..i].trim_end_matches(' '), None)),
            Some(b'\t') => return None,
            _ => {}
        }
        i += 1;
    }
}

/// A plain scalar in a flow collection: its text, the rest from where it ends, and whether
/// a `: ` ends it.
pub(super) fn plain_flow(s: &str) -> Option<(&str, &str, bool)> {
    let b = s.as_bytes();
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b',' | b'[' | b']' | b'{' | b'}' => break,
            b':' => match b.get(i + 1) {
                None | Some(b' ') => return Some((s[..i].trim_end_matches(' '), &s[i..], true)),
                // libyaml: "found unexpected ':'"
                Some(b',' | b'?' | b'[' | b']' | b'{' | b'}') => return None,
                _ => {}
            },
            b'#' if byte_before(b, i) == Some(b' ') => return None,
            b'\t' => return None,
            _ => {}
        }
        i += 1;
    }
    Some((s[..i].trim_end_matches(' '), &s[i..], false))
}

/// A quoted scalar that starts at `s[0]`.
pub(super) enum Quoted<'a> {
    /// Closed on this line: its value and the rest of the line.
    Closed(String, &'a str),
    /// Continued on the next line.
    Open,
}

pub(super) fn quoted(s: &str) -> Option<Quoted<'_>> {
    let &quote = s.as_bytes().first()?;
    let mut out = String::new();
    Some(match quoted_segment(s.get(1..)?, quote, &mut out)? {
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
        let Some(offset) = b.get(i..)?.iter().position(|&c| c == quote || (quote == b'"' && c == b'\\')) else {
            push_raw(out, &s[start..], &mut keep);
            return Some(Segment::Open { escaped: false, keep });
        };
        let j = i + offset;
        push_raw(out, &s[start..j], &mut keep);
        if b.get(j) == Some(&quote) {
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

/// The node for the value serde_yaml 0.9.34 gives an untagged plain scalar deserialized into
/// a `serde_json::Value` (its `visit_untagged_scalar`), or `None` where that is an error:
/// integers beyond u64/i64 that fit 128 bits, which serde_json's Value refuses.
pub(super) fn resolve_plain(v: &str) -> Option<Node<'_>> {
    // Most scalars are names; only these first bytes can give anything but a string.
    if !matches!(
        v.as_bytes().first(),
        None | Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'~' | b'n' | b'N' | b't' | b'T' | b'f' | b'F')
    ) {
        return Some(Node::String(Cow::Borrowed(v)));
    }
    if v.is_empty() || matches!(v, "~" | "null" | "Null" | "NULL") {
        return Some(Node::Null);
    }
    match v {
        "true" | "True" | "TRUE" => return Some(Node::Bool(true)),
        "false" | "False" | "FALSE" => return Some(Node::Bool(false)),
        _ => {}
    }
    // Shortcuts for the common cases, each what the full resolution below gives: a word
    // (Rust's float parser reads `inf`, `nan` and `infinity`, never finite, so strings); a
    // decimal integer of at most 19 digits (a u64); a text that starts with a digit and holds
    // a byte that no integer or float form has (`512Mi`, `100m`, `10.0.0.1:80`).
    let b = v.as_bytes();
    match b.first() {
        Some(b'n' | b'N' | b't' | b'T' | b'f' | b'F') => return Some(Node::String(Cow::Borrowed(v))),
        Some(b'1'..=b'9') if b.len() <= 19 && b.iter().all(u8::is_ascii_digit) => {
            return v.parse::<u64>().ok().map(|int| Node::Number(int.into()));
        }
        Some(b'0'..=b'9') if !b.iter().all(|c| may_be_in_a_number(*c)) => return Some(Node::String(Cow::Borrowed(v))),
        _ => {}
    }
    if let Some(int) = parse_unsigned_int(v, u64::from_str_radix) {
        return Some(Node::Number(int.into()));
    }
    if let Some(int) = parse_negative_int(v, i64::from_str_radix) {
        return Some(Node::Number(int.into()));
    }
    if parse_unsigned_int(v, u128::from_str_radix).is_some() || parse_negative_int(v, i128::from_str_radix).is_some() {
        return None;
    }
    if !digits_but_not_number(v) {
        if let Some(float) = parse_f64(v) {
            return Some(Number::from_f64(float).map_or(Node::Null, Node::Number));
        }
    }
    Some(Node::String(Cow::Borrowed(v)))
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

/// The bytes of serde_yaml's integer forms (`0x`, `0o`, `0b`, signs) and of Rust's float
/// syntax after a digit (`.`, exponents), hex digits included.
fn may_be_in_a_number(c: u8) -> bool {
    matches!(c, b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F' | b'x' | b'o' | b'.' | b'+' | b'-')
}

fn digits_but_not_number(scalar: &str) -> bool {
    // Leading zero(s) followed by numeric characters is a string according to the YAML 1.2
    // spec.
    let scalar = scalar.strip_prefix(['-', '+']).unwrap_or(scalar);
    scalar.len() > 1 && scalar.starts_with('0') && scalar[1..].bytes().all(|b| b.is_ascii_digit())
}
