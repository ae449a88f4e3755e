//! Flow collections: `[...]` and `{...}` on one line, nested, with plain or quoted scalars.

use std::borrow::Cow;

use super::node::Node;

use super::scalars::{plain_flow, plain_may_start, quoted, resolve_plain, Quoted};
use super::{MAX_DEPTH, MAX_SIMPLE_KEY};

enum Flow<'a> {
    Seq(Vec<Node<'a>>),
    Map(Vec<(Cow<'a, str>, Node<'a>)>, Option<Cow<'a, str>>),
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
pub(super) fn flow<'a>(s: &'a str, depth: usize, nulls: &mut bool) -> Option<(Node<'a>, &'a str)> {
    let b = s.as_bytes();
    let mut stack: Vec<Flow<'a>> = Vec::new();
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
                    (Flow::Seq(items), b']') => Node::Seq(items),
                    (Flow::Map(entries, None), b'}') => Node::map(entries)?,
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
                stack.push(if c == b'[' { Flow::Seq(Vec::new()) } else { Flow::Map(Vec::new(), None) });
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
                    set_key(stack.last_mut()?, Cow::Owned(text))?;
                    want = FlowWant::Colon;
                } else {
                    flow_add(stack.last_mut()?, Node::String(Cow::Owned(text)), nulls)?;
                    want = FlowWant::Next;
                }
            }
            _ => {
                if !plain_may_start(b.get(i..)?, true) {
                    return None;
                }
                let start = i;
                let (text, after, colon) = plain_flow(&s[i..])?;
                i = s.len() - after.len();
                if key_wanted {
                    if !colon || i - start > MAX_SIMPLE_KEY {
                        return None;
                    }
                    set_key(stack.last_mut()?, Cow::Borrowed(text))?;
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

fn set_key<'a>(top: &mut Flow<'a>, text: Cow<'a, str>) -> Option<()> {
    match top {
        Flow::Map(_, key @ None) => {
            *key = Some(text);
            Some(())
        }
        _ => None,
    }
}

fn flow_add<'a>(top: &mut Flow<'a>, value: Node<'a>, nulls: &mut bool) -> Option<()> {
    match top {
        Flow::Seq(items) => items.push(value),
        Flow::Map(map, key) => {
            *nulls |= value.is_null();
            map.push((key.take()?, value));
        }
    }
    Some(())
}
