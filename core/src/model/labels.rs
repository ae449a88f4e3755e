//! Label keys, values and selectors (`k8s.io/apimachinery/pkg/labels`, `util/validation`).
//!
//! Selectors come in two forms: the API's structured `LabelSelector` and node selector terms
//! ([`Selector::from_label_selector`], [`crate::model::node_selector`]), and the string form
//! `kubectl -l` and `?labelSelector=` carry (`a=b,c!=d,e in (x,y),!f`), which
//! [`Selector`]'s `FromStr` reads with apimachinery's `labels.Parse` (v0.36.3, `selector.go`):
//! the same lexer, grammar, validation and messages, and `Display` writes it back.

use std::collections::BTreeSet;
use std::fmt;

use crate::input::field::{FieldError, FieldPath};
use crate::model::{LabelSelector, Labels};

const QUALIFIED_NAME_FMT: &str = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const LABEL_VALUE_FMT: &str = "(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?";

/// Read access to a set of labels, so one selector implementation matches both a manifest's
/// [`Labels`] map and a node's prepared [`LabelIndex`].
pub trait LabelLookup {
    fn label(&self, key: &str) -> Option<&str>;
}

impl LabelLookup for Labels {
    fn label(&self, key: &str) -> Option<&str> {
        self.get(key).map(String::as_str)
    }
}

/// A node's labels laid out for the scheduler's per-node loop.
///
/// A scheduling cycle looks up the same few keys (a nodeSelector, affinity terms, topology
/// keys) on every node. In a `BTreeMap` each lookup compares against up to a dozen keys that
/// are separate heap strings, mostly sharing a long `kubernetes.io/` prefix, so over thousands
/// of nodes the cycle waits on cache misses. Here a lookup hashes the key, probes an
/// open-addressing table at most half full (usually one cache line), and reads the entry's
/// text once to confirm the key: hashes may collide, equality is always decided on the text.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LabelIndex {
    /// A power of two of slots, empty when there are no labels.
    slots: Box<[LabelSlot]>,
    /// Every key followed by its value, back to back.
    text: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct LabelSlot {
    /// The key hash's high 32 bits (the low bits chose the slot).
    tag: u32,
    /// Offset of the key in `text`; `u32::MAX` for an empty slot.
    start: u32,
    key_len: u32,
    value_len: u32,
}

impl LabelSlot {
    const EMPTY: Self = Self { tag: 0, start: u32::MAX, key_len: 0, value_len: 0 };
}

impl LabelIndex {
    /// Labels whose text exceeds 4 GiB cannot occur: input is capped far below that
    /// (`documents::MAX_INPUT_BYTES`); such a map would be indexed as empty.
    pub fn new(labels: &Labels) -> Self {
        let text_len: usize = labels.iter().map(|(k, v)| k.len() + v.len()).sum();
        if labels.is_empty() || u32::try_from(text_len).is_err() {
            return Self::default();
        }
        let mut slots = vec![LabelSlot::EMPTY; (labels.len() * 2).next_power_of_two()].into_boxed_slice();
        let mask = slots.len() - 1;
        let mut text = String::with_capacity(text_len);
        for (k, v) in labels {
            let hash = label_key_hash(k);
            let mut i = hash as usize & mask;
            // The table is at most half full, so the probe meets an empty slot; `i` is masked
            // into range.
            while slots.get(i).is_some_and(|s| s.start != u32::MAX) {
                i = (i + 1) & mask;
            }
            let Some(slot) = slots.get_mut(i) else { continue };
            // In range: the total text length was checked above.
            *slot = LabelSlot {
                tag: (hash >> 32) as u32,
                start: text.len() as u32,
                key_len: k.len() as u32,
                value_len: v.len() as u32,
            };
            text.push_str(k);
            text.push_str(v);
        }
        Self { slots, text }
    }
}

impl LabelLookup for LabelIndex {
    fn label(&self, key: &str) -> Option<&str> {
        if self.slots.is_empty() {
            return None;
        }
        let hash = label_key_hash(key);
        let (mask, tag) = (self.slots.len() - 1, (hash >> 32) as u32);
        let mut i = hash as usize & mask;
        // The table is at most half full, so the probe meets an empty slot.
        loop {
            let slot = *self.slots.get(i)?;
            if slot.start == u32::MAX {
                return None;
            }
            let (start, key_end) = (slot.start as usize, slot.start as usize + slot.key_len as usize);
            if slot.tag == tag && self.text.get(start..key_end) == Some(key) {
                return self.text.get(key_end..key_end + slot.value_len as usize);
            }
            i = (i + 1) & mask;
        }
    }
}

/// A fixed multiply-rotate hash (FxHash's constant) over 8-byte words: deterministic, with no
/// per-process seed, as the core has no randomness; collisions only cost a text comparison.
fn label_key_hash(key: &str) -> u64 {
    const K: u64 = 0x517c_c1b7_2722_0a95;
    let mut hash = key.len() as u64;
    for chunk in key.as_bytes().chunks(8) {
        let mut word = [0u8; 8];
        word.iter_mut().zip(chunk).for_each(|(w, c)| *w = *c);
        hash = (hash.rotate_left(5) ^ u64::from_le_bytes(word)).wrapping_mul(K);
    }
    hash
}

/// Operators of a label requirement, spelled as in node selectors and label selectors.
///
/// `Equals`, `DoubleEquals` and `NotEquals` come only from the string form (`a=b`, `a==b`,
/// `a!=b`, `selection.Equals`...): they match as `In`/`NotIn` with one value and are kept
/// apart so a parsed selector prints back as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operator {
    In,
    NotIn,
    Exists,
    DoesNotExist,
    Gt,
    Lt,
    Equals,
    DoubleEquals,
    NotEquals,
}

impl Operator {
    pub const NODE_SELECTOR_SUPPORTED: [&'static str; 6] = ["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"];

    pub fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "In" => Self::In,
            "NotIn" => Self::NotIn,
            "Exists" => Self::Exists,
            "DoesNotExist" => Self::DoesNotExist,
            "Gt" => Self::Gt,
            "Lt" => Self::Lt,
            _ => return None,
        })
    }
}

/// One `key op values` requirement of a selector.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Requirement {
    pub key: String,
    pub operator: Operator,
    pub values: Vec<String>,
}

impl Requirement {
    /// `labels.NewRequirement` with its validation; `path` is where errors point.
    pub fn new(key: &str, operator: Operator, values: &[String], path: &FieldPath) -> Result<Self, FieldError> {
        validate_label_key(key, &path.child("key"))?;
        let values_path = path.child("values");
        match operator {
            Operator::In | Operator::NotIn if values.is_empty() => {
                return Err(FieldError::invalid(
                    &values_path,
                    serde_json::json!(values),
                    "for 'in', 'notin' operators, values set can't be empty",
                ));
            }
            Operator::Equals | Operator::DoubleEquals | Operator::NotEquals if values.len() != 1 => {
                return Err(FieldError::invalid(
                    &values_path,
                    serde_json::json!(values),
                    "exact-match compatibility requires one single value",
                ));
            }
            Operator::Exists | Operator::DoesNotExist if !values.is_empty() => {
                return Err(FieldError::invalid(
                    &values_path,
                    serde_json::json!(values),
                    "values set must be empty for exists and does not exist",
                ));
            }
            Operator::Gt | Operator::Lt => {
                let [value] = values else {
                    return Err(FieldError::invalid(
                        &values_path,
                        serde_json::json!(values),
                        "for 'Gt', 'Lt' operators, exactly one value is required",
                    ));
                };
                if value.parse::<i64>().is_err() {
                    return Err(FieldError::invalid(
                        &values_path.index(0),
                        serde_json::json!(value),
                        "for 'Gt', 'Lt' operators, the value must be an integer",
                    ));
                }
            }
            _ => {}
        }
        for (i, v) in values.iter().enumerate() {
            validate_label_value(v, &values_path.index(i))?;
        }
        Ok(Self { key: key.to_string(), operator, values: values.to_vec() })
    }

    /// `Requirement.Matches`. `Gt`/`Lt` use `strconv.ParseInt`, so `0206 > 0204` holds here,
    /// unlike taint comparisons.
    pub fn matches<L: LabelLookup + ?Sized>(&self, labels: &L) -> bool {
        let value = labels.label(&self.key);
        let listed = |v: &str| self.values.iter().any(|x| x == v);
        match self.operator {
            Operator::In | Operator::Equals | Operator::DoubleEquals => value.is_some_and(listed),
            Operator::NotIn | Operator::NotEquals => value.is_none_or(|v| !listed(v)),
            Operator::Exists => value.is_some(),
            Operator::DoesNotExist => value.is_none(),
            Operator::Gt | Operator::Lt => {
                let (Some(v), Some(bound)) = (value, self.values.first()) else {
                    return false;
                };
                let (Some(v), Some(bound)) = (go_parse_int(v), go_parse_int(bound)) else {
                    return false;
                };
                if self.operator == Operator::Gt {
                    v > bound
                } else {
                    v < bound
                }
            }
        }
    }
}

/// `strconv.ParseInt(s, 10, 64)`: optional sign, decimal digits, leading zeros allowed.
pub fn go_parse_int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['+', '-']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse::<i64>().ok()
}

impl fmt::Display for Requirement {
    /// The `labels.Selector` string form, values sorted as apimachinery prints them.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sorted: BTreeSet<&str> = self.values.iter().map(String::as_str).collect();
        let joined = sorted.into_iter().collect::<Vec<_>>().join(",");
        match self.operator {
            Operator::In => write!(f, "{} in ({joined})", self.key),
            Operator::NotIn => write!(f, "{} notin ({joined})", self.key),
            Operator::Exists => write!(f, "{}", self.key),
            Operator::DoesNotExist => write!(f, "!{}", self.key),
            Operator::Gt => write!(f, "{}>{joined}", self.key),
            Operator::Lt => write!(f, "{}<{joined}", self.key),
            Operator::Equals => write!(f, "{}={joined}", self.key),
            Operator::DoubleEquals => write!(f, "{}=={joined}", self.key),
            Operator::NotEquals => write!(f, "{}!={joined}", self.key),
        }
    }
}

/// A conjunction of requirements. `Nothing` is the selector that matches no object
/// (`labels.Nothing()`), distinct from the empty selector that matches everything.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Selector {
    Nothing,
    All(Vec<Requirement>),
}

impl Selector {
    pub fn everything() -> Self {
        Selector::All(Vec::new())
    }

    pub fn matches<L: LabelLookup + ?Sized>(&self, labels: &L) -> bool {
        match self {
            Selector::Nothing => false,
            Selector::All(reqs) => reqs.iter().all(|r| r.matches(labels)),
        }
    }

    /// `metav1.LabelSelectorAsSelector`: nil selects nothing, empty selects everything.
    pub fn from_label_selector(selector: Option<&LabelSelector>, path: &FieldPath) -> Result<Self, FieldError> {
        let Some(selector) = selector else {
            return Ok(Selector::Nothing);
        };
        let mut reqs = Vec::new();
        for (k, v) in &selector.match_labels {
            reqs.push(Requirement::new(k, Operator::In, std::slice::from_ref(v), &path.child("matchLabels"))?);
        }
        for (i, expr) in selector.match_expressions.iter().enumerate() {
            let p = path.child("matchExpressions").index(i);
            let op = match expr.operator.as_str() {
                "In" => Operator::In,
                "NotIn" => Operator::NotIn,
                "Exists" => Operator::Exists,
                "DoesNotExist" => Operator::DoesNotExist,
                other => {
                    return Err(FieldError::not_supported(
                        &p.child("operator"),
                        other,
                        &["In", "NotIn", "Exists", "DoesNotExist"],
                    ))
                }
            };
            reqs.push(Requirement::new(&expr.key, op, &expr.values, &p)?);
        }
        Ok(Selector::All(reqs))
    }
}

impl fmt::Display for Selector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Selector::Nothing => f.write_str("<nothing>"),
            Selector::All(reqs) => {
                let parts: Vec<String> = reqs.iter().map(ToString::to_string).collect();
                f.write_str(&parts.join(","))
            }
        }
    }
}

/// Why a selector string did not parse, in `labels.Parse`'s words (`unable to parse
/// requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt`).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct SelectorParseError {
    /// The selector text given.
    pub selector: String,
    /// Upstream's message.
    pub message: String,
}

/// `labels.Parse`: the string form of a selector, as `kubectl -l` and the API server read it.
///
/// Requirements are separated by `,` and all must hold: `key` (exists), `!key` (does not
/// exist), `key=value`, `key==value`, `key!=value`, `key in (a,b)`, `key notin (a,b)`,
/// `key>1`, `key<1`. Keys are qualified names and values label values, checked as
/// `labels.NewRequirement` checks them; the requirements come back sorted by key, values
/// sorted and deduplicated, as upstream's parser leaves them. The empty string selects
/// everything.
///
/// ```
/// use placement_core::model::labels::Selector;
/// use placement_core::model::Labels;
///
/// let sel: Selector = "agentpool=user,zone in (b,a),!spot".parse().unwrap();
/// assert_eq!(sel.to_string(), "agentpool=user,!spot,zone in (a,b)");
/// let node = Labels::from([("agentpool".into(), "user".into()), ("zone".into(), "a".into())]);
/// assert!(sel.matches(&node));
///
/// let err = "agentpool user".parse::<Selector>().unwrap_err();
/// assert_eq!(err.to_string(), "unable to parse requirement: found 'user', expected: in, notin, =, ==, !=, gt, lt");
/// ```
impl std::str::FromStr for Selector {
    type Err = SelectorParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut parser = SelectorParser { items: lex_selector(text), position: 0 };
        let mut requirements =
            parser.parse().map_err(|message| SelectorParseError { selector: text.to_string(), message })?;
        // `sort.Sort(ByKey(items))`: an insertion sort for the few requirements a selector has,
        // so requirements on the same key keep their order, as this stable sort does.
        requirements.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(Selector::All(requirements))
    }
}

/// The lexer's tokens (`labels.Token`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SelectorToken {
    EndOfString,
    ClosedPar,
    Comma,
    DoesNotExist,
    DoubleEquals,
    Equals,
    GreaterThan,
    Identifier,
    In,
    LessThan,
    NotEquals,
    NotIn,
    OpenPar,
}

/// `string2token`.
fn selector_keyword(s: &str) -> Option<SelectorToken> {
    use SelectorToken as T;
    Some(match s {
        ")" => T::ClosedPar,
        "," => T::Comma,
        "!" => T::DoesNotExist,
        "==" => T::DoubleEquals,
        "=" => T::Equals,
        ">" => T::GreaterThan,
        "in" => T::In,
        "<" => T::LessThan,
        "!=" => T::NotEquals,
        "notin" => T::NotIn,
        "(" => T::OpenPar,
        _ => return None,
    })
}

fn is_selector_whitespace(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

fn is_selector_special(b: u8) -> bool {
    matches!(b, b'=' | b'!' | b'(' | b')' | b',' | b'>' | b'<')
}

/// `Lexer.Lex` over the whole text, ending with `EndOfString`. As upstream's `read`, a NUL
/// byte ends the text. Tokens end only at ASCII bytes, so every literal is a `str` slice.
fn lex_selector(s: &str) -> Vec<(SelectorToken, &str)> {
    let at = |pos: usize| s.as_bytes().get(pos).copied().unwrap_or(0);
    let slice = |from: usize, to: usize| s.get(from..to).unwrap_or("");
    let mut items = Vec::new();
    let mut pos = 0;
    loop {
        while is_selector_whitespace(at(pos)) {
            pos += 1;
        }
        let start = pos;
        let ch = at(pos);
        if ch == 0 {
            items.push((SelectorToken::EndOfString, ""));
            return items;
        }
        if is_selector_special(ch) {
            // `scanSpecialSymbol`: the longest run of symbols that is still a token. Every
            // single symbol is one, so a token is always found.
            let mut last = (SelectorToken::EndOfString, start);
            while is_selector_special(at(pos)) {
                pos += 1;
                match selector_keyword(slice(start, pos)) {
                    Some(token) => last = (token, pos),
                    None => break,
                }
            }
            pos = last.1;
            items.push((last.0, slice(start, pos)));
        } else {
            // `scanIDOrKeyword`: up to the next symbol or blank.
            while !matches!(at(pos), 0) && !is_selector_special(at(pos)) && !is_selector_whitespace(at(pos)) {
                pos += 1;
            }
            let literal = slice(start, pos);
            let token = selector_keyword(literal).unwrap_or(SelectorToken::Identifier);
            items.push((token, literal));
        }
    }
}

/// `labels.Parser`: a recursive descent over the scanned tokens.
struct SelectorParser<'a> {
    items: Vec<(SelectorToken, &'a str)>,
    position: usize,
}

/// `ParserContext`: in `Values`, the keywords `in` and `notin` are identifiers.
#[derive(Clone, Copy, PartialEq, Eq)]
enum SelectorContext {
    KeyAndOperator,
    Values,
}

const BINARY_OPERATORS: &str = "in, notin, =, ==, !=, gt, lt";

impl<'a> SelectorParser<'a> {
    fn lookahead(&self, context: SelectorContext) -> (SelectorToken, &'a str) {
        let (token, literal) = self.items.get(self.position).copied().unwrap_or((SelectorToken::EndOfString, ""));
        match token {
            SelectorToken::In | SelectorToken::NotIn if context == SelectorContext::Values => {
                (SelectorToken::Identifier, literal)
            }
            _ => (token, literal),
        }
    }

    fn consume(&mut self, context: SelectorContext) -> (SelectorToken, &'a str) {
        let item = self.lookahead(context);
        self.position += 1;
        item
    }

    fn parse(&mut self) -> Result<Vec<Requirement>, String> {
        use SelectorContext::Values;
        use SelectorToken as T;
        let mut requirements = Vec::new();
        loop {
            let (token, literal) = self.lookahead(Values);
            match token {
                T::Identifier | T::DoesNotExist => {
                    let requirement =
                        self.parse_requirement().map_err(|e| format!("unable to parse requirement: {e}"))?;
                    requirements.push(requirement);
                    let (token, literal) = self.consume(Values);
                    match token {
                        T::EndOfString => return Ok(requirements),
                        T::Comma => {
                            let (next, literal) = self.lookahead(Values);
                            if next != T::Identifier && next != T::DoesNotExist {
                                return Err(format!("found '{literal}', expected: identifier after ','"));
                            }
                        }
                        _ => return Err(format!("found '{literal}', expected: ',' or 'end of string'")),
                    }
                }
                T::EndOfString => return Ok(requirements),
                _ => return Err(format!("found '{literal}', expected: !, identifier, or 'end of string'")),
            }
        }
    }

    fn parse_requirement(&mut self) -> Result<Requirement, String> {
        let (key, operator) = self.parse_key_and_infer_operator()?;
        if let Some(operator @ (Operator::Exists | Operator::DoesNotExist)) = operator {
            return new_parsed_requirement(key, operator, Vec::new());
        }
        let operator = self.parse_operator()?;
        let values = match operator {
            Operator::In | Operator::NotIn => self.parse_values()?,
            _ => self.parse_exact_value()?,
        };
        // `sets.String.List()`: sorted, without duplicates.
        let values: Vec<String> = values.into_iter().collect::<BTreeSet<_>>().into_iter().collect();
        new_parsed_requirement(key, operator, values)
    }

    /// `parseKeyAndInferOperator`: `!key`, or a key followed by the end or a comma, is
    /// unary; anything else leaves the operator to `parse_operator`.
    fn parse_key_and_infer_operator(&mut self) -> Result<(&'a str, Option<Operator>), String> {
        use SelectorContext::Values;
        let mut operator = None;
        let (mut token, mut literal) = self.consume(Values);
        if token == SelectorToken::DoesNotExist {
            operator = Some(Operator::DoesNotExist);
            (token, literal) = self.consume(Values);
        }
        if token != SelectorToken::Identifier {
            return Err(format!("found '{literal}', expected: identifier"));
        }
        // Upstream validates with a nil field path, which prints as `<nil>`.
        let errors = qualified_name_errors(literal);
        if !errors.is_empty() {
            let path = FieldPath::root("<nil>");
            return Err(FieldError::invalid(&path, serde_json::json!(literal), &errors.join("; ")).to_string());
        }
        if matches!(self.lookahead(Values).0, SelectorToken::EndOfString | SelectorToken::Comma) && operator.is_none() {
            operator = Some(Operator::Exists);
        }
        Ok((literal, operator))
    }

    fn parse_operator(&mut self) -> Result<Operator, String> {
        use SelectorToken as T;
        let (token, literal) = self.consume(SelectorContext::KeyAndOperator);
        Ok(match token {
            T::In => Operator::In,
            T::Equals => Operator::Equals,
            T::DoubleEquals => Operator::DoubleEquals,
            T::GreaterThan => Operator::Gt,
            T::LessThan => Operator::Lt,
            T::NotIn => Operator::NotIn,
            T::NotEquals => Operator::NotEquals,
            _ => return Err(format!("found '{literal}', expected: {BINARY_OPERATORS}")),
        })
    }

    /// `parseValues`: `(a,b)`; `()` is the one empty value.
    fn parse_values(&mut self) -> Result<Vec<String>, String> {
        use SelectorContext::Values;
        use SelectorToken as T;
        let (token, literal) = self.consume(Values);
        if token != T::OpenPar {
            return Err(format!("found '{literal}' expected: '('"));
        }
        let (token, literal) = self.lookahead(Values);
        match token {
            T::Identifier | T::Comma => {
                let values = self.parse_identifiers_list()?;
                if self.consume(Values).0 != T::ClosedPar {
                    // Upstream names the token it looked at before the list, not the one found.
                    return Err(format!("found '{literal}', expected: ')'"));
                }
                Ok(values)
            }
            T::ClosedPar => {
                self.consume(Values);
                Ok(vec![String::new()])
            }
            _ => Err(format!("found '{literal}', expected: ',', ')' or identifier")),
        }
    }

    /// `parseIdentifiersList`: identifiers separated by commas; empty entries are the empty
    /// value.
    fn parse_identifiers_list(&mut self) -> Result<Vec<String>, String> {
        use SelectorContext::Values;
        use SelectorToken as T;
        let mut values: Vec<String> = Vec::new();
        loop {
            let (token, literal) = self.consume(Values);
            match token {
                T::Identifier => {
                    values.push(literal.to_string());
                    let (next, literal) = self.lookahead(Values);
                    match next {
                        T::Comma => continue,
                        T::ClosedPar => return Ok(values),
                        _ => return Err(format!("found '{literal}', expected: ',' or ')'")),
                    }
                }
                T::Comma => {
                    if values.is_empty() {
                        values.push(String::new());
                    }
                    match self.lookahead(Values).0 {
                        T::ClosedPar => {
                            values.push(String::new());
                            return Ok(values);
                        }
                        T::Comma => values.push(String::new()),
                        _ => {}
                    }
                }
                _ => return Err(format!("found '{literal}', expected: ',', or identifier")),
            }
        }
    }

    /// `parseExactValue`: the one value after `=`, `==`, `!=`, `>` or `<`; none is the empty
    /// value.
    fn parse_exact_value(&mut self) -> Result<Vec<String>, String> {
        use SelectorContext::Values;
        if matches!(self.lookahead(Values).0, SelectorToken::EndOfString | SelectorToken::Comma) {
            return Ok(vec![String::new()]);
        }
        match self.consume(Values) {
            (SelectorToken::Identifier, literal) => Ok(vec![literal.to_string()]),
            (_, literal) => Err(format!("found '{literal}', expected: identifier")),
        }
    }
}

/// `labels.NewRequirement` as the parser calls it (no field path): every error, deduplicated
/// and aggregated as `field.ErrorList.ToAggregate` prints them (`[a, b]` for several).
fn new_parsed_requirement(key: &str, operator: Operator, values: Vec<String>) -> Result<Requirement, String> {
    let mut errors: Vec<String> = Vec::new();
    let values_path = FieldPath::root("values");
    let key_errors = qualified_name_errors(key);
    if !key_errors.is_empty() {
        errors.push(
            FieldError::invalid(&FieldPath::root("key"), serde_json::json!(key), &key_errors.join("; ")).to_string(),
        );
    }
    if matches!(operator, Operator::Gt | Operator::Lt) {
        for (i, v) in values.iter().enumerate() {
            if v.parse::<i64>().is_err() {
                let detail = "for 'Gt', 'Lt' operators, the value must be an integer";
                errors.push(FieldError::invalid(&values_path.index(i), serde_json::json!(v), detail).to_string());
            }
        }
    }
    for (i, v) in values.iter().enumerate() {
        let value_errors = label_value_errors(v);
        if !value_errors.is_empty() {
            let path = values_path.index(i).key(key);
            errors.push(FieldError::invalid(&path, serde_json::json!(v), &value_errors.join("; ")).to_string());
        }
    }
    let mut seen = BTreeSet::new();
    errors.retain(|e| seen.insert(e.clone()));
    match errors.as_slice() {
        [] => Ok(Requirement { key: key.to_string(), operator, values }),
        [one] => Err(one.clone()),
        many => Err(format!("[{}]", many.join(", "))),
    }
}

/// `validation.IsQualifiedName` for label keys, with upstream's messages: the first of them.
pub fn validate_label_key(key: &str, path: &FieldPath) -> Result<(), FieldError> {
    match qualified_name_errors(key).into_iter().next() {
        Some(msg) => Err(FieldError::invalid(path, serde_json::json!(key), &msg)),
        None => Ok(()),
    }
}

/// `validation.IsQualifiedName`: every message, in upstream's order (an empty name gets two).
pub fn qualified_name_errors(key: &str) -> Vec<String> {
    // Nearly every key is valid (a snapshot's 5,000 nodes carry 185,000 labels, validated
    // before and after a what-if): a byte scan says so without splitting or allocating.
    if is_qualified_name(key) {
        return Vec::new();
    }
    let mut errs = Vec::new();
    let parts: Vec<&str> = key.split('/').collect();
    let name = match parts.as_slice() {
        [name] => *name,
        [prefix, name] => {
            if prefix.is_empty() {
                errs.push("prefix part must be non-empty".to_string());
            } else {
                errs.extend(dns1123_subdomain_errors(prefix).into_iter().map(|m| format!("prefix part {m}")));
            }
            *name
        }
        _ => {
            errs.push(format!(
                "a qualified name must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '{QUALIFIED_NAME_FMT}') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
            ));
            return errs;
        }
    };
    if name.is_empty() {
        errs.push("name part must be non-empty".into());
    } else if name.len() > 63 {
        errs.push("name part must be no more than 63 characters".into());
    }
    if !is_qualified_name_part(name) {
        errs.push(format!(
            "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '{QUALIFIED_NAME_FMT}')"
        ));
    }
    errs
}

/// `validation.IsValidLabelValue`: the first message.
pub fn validate_label_value(value: &str, path: &FieldPath) -> Result<(), FieldError> {
    match label_value_errors(value).into_iter().next() {
        Some(msg) => Err(FieldError::invalid(path, serde_json::json!(value), &msg)),
        None => Ok(()),
    }
}

/// `validation.IsValidLabelValue`: every message.
pub fn label_value_errors(value: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if value.len() > 63 {
        errs.push("must be no more than 63 characters".to_string());
    }
    if !value.is_empty() && !is_qualified_name_part(value) {
        errs.push(format!("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '{LABEL_VALUE_FMT}')"));
    }
    errs
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`, non-empty.
fn is_qualified_name_part(s: &str) -> bool {
    let b = s.as_bytes();
    !b.is_empty()
        && b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
        && b.iter().all(|c| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.'))
}

/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?`
fn is_dns1123_label(l: &str) -> bool {
    let b = l.as_bytes();
    let alnum = |c: &u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    !b.is_empty()
        && b.first().is_some_and(alnum)
        && b.last().is_some_and(alnum)
        && b.iter().all(|c| alnum(c) || *c == b'-')
}

/// `validation.IsQualifiedName` without a message: an optional DNS subdomain prefix of at
/// most 253 characters and `/`, then a name part of 1 to 63 characters.
fn is_qualified_name(key: &str) -> bool {
    let (prefix, name) = match key.as_bytes().iter().position(|&c| c == b'/') {
        Some(slash) => (key.get(..slash), key.get(slash + 1..).unwrap_or_default()),
        None => (None, key),
    };
    let prefix_ok = prefix.is_none_or(|p| !p.is_empty() && p.len() <= 253 && is_dns1123_subdomain(p));
    // A second '/' fails the name part's own test.
    prefix_ok && name.len() <= 63 && is_qualified_name_part(name)
}

/// The pattern of `validation.IsDNS1123Subdomain` (its length limit is checked apart):
/// `[a-z0-9]([-a-z0-9]*[a-z0-9])?` labels joined by dots, in one pass over the bytes.
pub fn is_dns1123_subdomain(s: &str) -> bool {
    let alnum = |c: u8| c.is_ascii_lowercase() || c.is_ascii_digit();
    // As if after a dot: a label must start with an alphanumeric character.
    let mut prev = b'.';
    for &c in s.as_bytes() {
        let ok = match c {
            // A label ends with an alphanumeric character (and is not empty).
            b'.' => alnum(prev),
            // ... and does not start with '-'.
            b'-' => prev != b'.',
            c => alnum(c),
        };
        if !ok {
            return false;
        }
        prev = c;
    }
    alnum(prev)
}

/// `validation.IsDNS1123Subdomain`: object names, node names, label-key prefixes.
pub fn dns1123_subdomain_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 253 {
        errs.push("must be no more than 253 characters".into());
    }
    if !is_dns1123_subdomain(s) {
        errs.push("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')".into());
    }
    errs
}

/// `validation.IsDNS1123Label`: namespaces, container names.
pub fn dns1123_label_errors(s: &str) -> Vec<String> {
    let mut errs = Vec::new();
    if s.len() > 63 {
        errs.push("must be no more than 63 characters".into());
    }
    if !is_dns1123_label(s) {
        if is_dns1123_subdomain(s) {
            errs.push("must not contain dots".into());
        } else {
            errs.push("a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')".into());
        }
    }
    errs
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The byte scans against the definitions they stand for (`split` over the patterns),
    /// on every string of up to 4 characters from an alphabet of the interesting ones, and
    /// on longer random ones.
    #[test]
    fn byte_scans_agree_with_the_patterns() {
        let subdomain_by_split = |s: &str| s.split('.').all(is_dns1123_label);
        let qualified_by_messages = |k: &str| {
            let parts: Vec<&str> = k.split('/').collect();
            match parts.as_slice() {
                [name] => !name.is_empty() && name.len() <= 63 && is_qualified_name_part(name),
                [prefix, name] => {
                    !prefix.is_empty()
                        && prefix.len() <= 253
                        && subdomain_by_split(prefix)
                        && name.len() <= 63
                        && is_qualified_name_part(name)
                }
                _ => false,
            }
        };
        let alphabet = ['a', 'Z', '0', '-', '.', '_', '/', 'é'];
        let mut texts = vec![String::new()];
        let mut last = vec![String::new()];
        for _ in 0..4 {
            last = last.iter().flat_map(|t| alphabet.iter().map(move |c| format!("{t}{c}"))).collect();
            texts.extend(last.iter().cloned());
        }
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        for _ in 0..20_000 {
            let len = (seed % 80) as usize;
            let t: String = (0..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    alphabet[(seed % alphabet.len() as u64) as usize]
                })
                .collect();
            texts.push(t);
        }
        texts.extend([
            "a".repeat(63),
            "a".repeat(64),
            format!("{}/a", "a".repeat(253)),
            format!("{}/a", "a".repeat(254)),
        ]);
        for t in &texts {
            assert_eq!(is_dns1123_subdomain(t), subdomain_by_split(t), "{t:?}");
            assert_eq!(is_qualified_name(t), qualified_by_messages(t), "{t:?}");
            assert_eq!(qualified_name_errors(t).is_empty(), qualified_by_messages(t), "{t:?}");
        }
    }

    fn labels(pairs: &[(&str, &str)]) -> Labels {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    fn req(key: &str, op: Operator, values: &[&str]) -> Requirement {
        let values: Vec<String> = values.iter().map(|s| s.to_string()).collect();
        Requirement::new(key, op, &values, &FieldPath::root("r")).unwrap()
    }

    fn parse(s: &str) -> Result<String, String> {
        s.parse::<Selector>().map(|sel| sel.to_string()).map_err(|e| e.to_string())
    }

    #[test]
    fn selector_strings_parse_and_print_like_labels_parse() {
        // (input, want: the selector printed back, or the error). Rows from upstream's
        // TestSelectorParse, TestSetSelectorParser and TestToString, then every error path.
        let rows: &[(&str, Result<&str, &str>)] = &[
            ("x=a,y=b,z=c", Ok("x=a,y=b,z=c")),
            ("", Ok("")),
            ("x!=a,y=b", Ok("x!=a,y=b")),
            ("x=", Ok("x=")),
            ("x= ", Ok("x=")),
            ("x=,z= ", Ok("x=,z=")),
            ("x= ,z= ", Ok("x=,z=")),
            ("!x", Ok("!x")),
            ("x>1", Ok("x>1")),
            ("x>1,z<5", Ok("x>1,z<5")),
            ("x==a", Ok("x==a")),
            ("\rx", Ok("x")),
            ("this-is-a-dns.domain.com/key-with-dash", Ok("this-is-a-dns.domain.com/key-with-dash")),
            ("0.1.2.domain/99 notin (10.10.100.1, tick.tack.clock)", Ok("0.1.2.domain/99 notin (10.10.100.1,tick.tack.clock)")),
            ("foo  in\t (abc)", Ok("foo in (abc)")),
            ("x notin\n (abc)", Ok("x notin (abc)")),
            ("x in (abc,)", Ok("x in (,abc)")),
            ("x in (abc,abc)", Ok("x in (abc)")),
            ("x in ()", Ok("x in ()")),
            ("x in (a,,a,,a,,a,,)", Ok("x in (,a)")),
            ("x notin (abc,,def),bar,z in (),w", Ok("bar,w,x notin (,abc,def),z in ()")),
            ("x,y in (a)", Ok("x,y in (a)")),
            ("x notin ( )", Ok("x notin ()")),
            ("x notin (, a)", Ok("x notin (,a)")),
            ("a ", Ok("a")),
            ("a in (x,y,notin, z,in)", Ok("a in (in,notin,x,y,z)")),
            ("notin=in", Ok("notin=in")),
            ("x=abc,y==jkl,z!=a,z", Ok("x=abc,y==jkl,z!=a,z")),
            ("x=a,a=x", Ok("a=x,x=a")),
            ("x=a||y=b", Err("unable to parse requirement: values[0][x]: Invalid value: \"a||y\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")),
            ("x==a==b", Err("found '==', expected: ',' or 'end of string'")),
            ("!x=a", Err("found '=', expected: ',' or 'end of string'")),
            ("x<a", Err("unable to parse requirement: values[0]: Invalid value: \"a\": for 'Gt', 'Lt' operators, the value must be an integer")),
            ("x,,y", Err("found ',', expected: identifier after ','")),
            (",x,y", Err("found ',', expected: !, identifier, or 'end of string'")),
            ("x nott in (y)", Err("unable to parse requirement: found 'nott', expected: in, notin, =, ==, !=, gt, lt")),
            ("a in (xyz),", Err("found '', expected: identifier after ','")),
            ("a in (xyz)b notin ()", Err("found 'b', expected: ',' or 'end of string'")),
            ("a in (xyz abc)", Err("unable to parse requirement: found 'abc', expected: ',' or ')'")),
            ("a notin(", Err("unable to parse requirement: found '', expected: ',', ')' or identifier")),
            ("a (", Err("unable to parse requirement: found '(', expected: in, notin, =, ==, !=, gt, lt")),
            ("(", Err("found '(', expected: !, identifier, or 'end of string'")),
            ("x in a", Err("unable to parse requirement: found 'a' expected: '('")),
            ("x in (a", Err("unable to parse requirement: found '', expected: ',' or ')'")),
            ("x in (a,=)", Err("unable to parse requirement: found '=', expected: ',', or identifier")),
            ("x=(", Err("unable to parse requirement: found '(', expected: identifier")),
            ("!", Err("unable to parse requirement: found '', expected: identifier")),
            ("x !", Err("unable to parse requirement: found '!', expected: in, notin, =, ==, !=, gt, lt")),
            ("x in (a)b", Err("found 'b', expected: ',' or 'end of string'")),
            ("-a=b", Err("unable to parse requirement: <nil>: Invalid value: \"-a\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
            ("/a", Err("unable to parse requirement: <nil>: Invalid value: \"/a\": prefix part must be non-empty")),
            ("x>-1", Err("unable to parse requirement: values[0][x]: Invalid value: \"-1\"")),
            ("x in (-a,-b)", Err("unable to parse requirement: [values[0][x]: Invalid value: \"-a\"")),
        ];
        for (input, want) in rows {
            match (parse(input), want) {
                (Ok(got), Ok(want)) => {
                    assert_eq!(&got, want, "{input:?}");
                    assert_eq!(parse(&got), Ok(got.clone()), "{input:?} prints back to a fixed point");
                }
                (Err(got), Err(want)) => assert!(got.starts_with(want), "{input:?}: {got}"),
                (got, want) => panic!("{input:?}: got {got:?}, want {want:?}"),
            }
        }
        let err = "x in (-a,-b)".parse::<Selector>().unwrap_err();
        assert!(err.message.ends_with("]") && err.message.contains(", values[1][x]"), "{err}");
        assert_eq!(err.selector, "x in (-a,-b)");
    }

    #[test]
    fn selector_lexer_rows() {
        use SelectorToken as T;
        // Upstream's TestLexer and TestLexerSequence.
        let rows: &[(&str, &[SelectorToken])] = &[
            ("", &[]),
            (",", &[T::Comma]),
            ("notin", &[T::NotIn]),
            ("in", &[T::In]),
            ("==", &[T::DoubleEquals]),
            (">", &[T::GreaterThan]),
            ("!", &[T::DoesNotExist]),
            ("!=", &[T::NotEquals]),
            ("~", &[T::Identifier]),
            ("||", &[T::Identifier]),
            (
                "key in ( value1, value2 )",
                &[T::Identifier, T::In, T::OpenPar, T::Identifier, T::Comma, T::Identifier, T::ClosedPar],
            ),
            ("!key", &[T::DoesNotExist, T::Identifier]),
            ("x in (),y", &[T::Identifier, T::In, T::OpenPar, T::ClosedPar, T::Comma, T::Identifier]),
            (
                "== != (), = notin",
                &[T::DoubleEquals, T::NotEquals, T::OpenPar, T::ClosedPar, T::Comma, T::Equals, T::NotIn],
            ),
            ("key<1", &[T::Identifier, T::LessThan, T::Identifier]),
            ("a=!b", &[T::Identifier, T::Equals, T::DoesNotExist, T::Identifier]),
            ("a\0b", &[T::Identifier]),
        ];
        for (input, want) in rows {
            let got: Vec<SelectorToken> = lex_selector(input).into_iter().map(|(t, _)| t).collect();
            let mut want = want.to_vec();
            want.push(T::EndOfString);
            assert_eq!(got, want, "{input:?}");
        }
    }

    #[test]
    fn parsed_selectors_match_like_upstream() {
        // (selector, labels, matches): upstream's TestSelectorMatches.
        type Row<'a> = (&'a str, &'a [(&'a str, &'a str)], bool);
        let rows: &[Row] = &[
            ("", &[("x", "y")], true),
            ("x=y", &[("x", "y")], true),
            ("x=y,z=w", &[("x", "y"), ("z", "w")], true),
            ("x!=y,z!=w", &[("x", "z"), ("z", "a")], true),
            ("notin=in", &[("notin", "in")], true),
            ("x", &[("x", "z")], true),
            ("!x", &[("y", "z")], true),
            ("x>1", &[("x", "2")], true),
            ("x<1", &[("x", "0")], true),
            ("x=z", &[], false),
            ("x=y", &[("x", "z")], false),
            ("x=y,z=w", &[("x", "w"), ("z", "w")], false),
            ("x!=y,z!=w", &[("x", "z"), ("z", "w")], false),
            ("x", &[("y", "z")], false),
            ("!x", &[("x", "z")], false),
            ("x>1", &[("x", "0")], false),
            ("x<1", &[("x", "2")], false),
            ("x==y", &[("x", "y")], true),
            ("x!=y", &[], true),
        ];
        for (selector, pairs, want) in rows {
            let sel: Selector = selector.parse().unwrap();
            assert_eq!(sel.matches(&labels(pairs)), *want, "{selector} on {pairs:?}");
        }
    }

    #[test]
    fn exact_match_operators_take_one_value() {
        let p = FieldPath::root("r");
        let err = Requirement::new("a", Operator::Equals, &["x".into(), "y".into()], &p).unwrap_err();
        assert_eq!(err.detail, "exact-match compatibility requires one single value");
        assert_eq!(req("a", Operator::NotEquals, &["x"]).to_string(), "a!=x");
    }

    #[test]
    fn requirement_rows() {
        let l = labels(&[("zone", "a"), ("gen", "0206")]);
        // (requirement, matches, why)
        let rows = [
            (req("zone", Operator::In, &["a", "b"]), true, "value listed"),
            (req("zone", Operator::NotIn, &["a"]), false, "value excluded"),
            (req("missing", Operator::NotIn, &["a"]), true, "absent key satisfies NotIn"),
            (req("zone", Operator::Exists, &[]), true, "present"),
            (req("zone", Operator::DoesNotExist, &[]), false, "present"),
            (req("gen", Operator::Gt, &["0204"]), true, "ParseInt accepts leading zeros"),
            (req("zone", Operator::Gt, &["1"]), false, "non-integer label never compares"),
            (req("missing", Operator::Lt, &["1"]), false, "absent key never compares"),
        ];
        for (r, expected, why) in rows {
            assert_eq!(r.matches(&l), expected, "{r}: {why}");
        }
    }

    #[test]
    fn requirement_validation_messages() {
        let p = FieldPath::root("root").index(0);
        let err = Requirement::new("foo", Operator::Exists, &["x".into()], &p).unwrap_err();
        assert_eq!(err.field, "root[0].values");
        assert_eq!(err.detail, "values set must be empty for exists and does not exist");
        let err = Requirement::new("invalid key", Operator::In, &["x".into()], &p).unwrap_err();
        assert!(err.detail.starts_with("name part must consist"), "{}", err.detail);
        assert!(Requirement::new("example.com/a", Operator::In, &["x".into()], &p).is_ok());
        assert!(Requirement::new("Example.com/a", Operator::In, &["x".into()], &p).is_err());
        assert!(
            Requirement::new("a", Operator::Gt, &["-1".into()], &p).is_err(),
            "label value must start alphanumeric"
        );
    }

    #[test]
    fn label_index_answers_as_the_map_does() {
        let l = labels(&[
            ("kubernetes.io/hostname", "node-a"),
            ("kubernetes.io/os", "linux"),
            ("topology.kubernetes.io/zone", "eastus-1"),
            ("empty", ""),
            ("a", "b"),
        ]);
        let index = LabelIndex::new(&l);
        // (key, why)
        let rows = [
            ("kubernetes.io/hostname", "long shared prefix"),
            ("kubernetes.io/os", "shorter key with the same prefix"),
            ("empty", "an empty value is present, not absent"),
            ("a", "one-byte key"),
            ("kubernetes.io/arch", "absent key with a shared prefix"),
            ("", "empty key"),
            ("ab", "the text of one key followed by the next key's first byte"),
        ];
        for (key, why) in rows {
            assert_eq!(index.label(key), l.label(key), "{key}: {why}");
        }
        assert_eq!(LabelIndex::new(&Labels::new()).label("a"), None);
    }

    #[test]
    fn label_index_confirms_keys_on_the_text() {
        // Forge colliding tags: every slot claims every hash; only the text tells keys apart.
        let l = labels(&[("x", "1"), ("y", "2"), ("zz", "3")]);
        let mut index = LabelIndex::new(&l);
        for key in ["x", "y", "zz", "w"] {
            let tag = (label_key_hash(key) >> 32) as u32;
            index.slots.iter_mut().filter(|s| s.start != u32::MAX).for_each(|s| s.tag = tag);
            assert_eq!(index.label(key), l.label(key), "{key}");
        }
    }

    #[test]
    fn label_index_of_many_labels_finds_each() {
        let l: Labels = (0..200).map(|i| (format!("example.com/key-{i}"), format!("v{i}"))).collect();
        let index = LabelIndex::new(&l);
        assert!(index.slots.len() >= 400, "at most half full");
        for (k, v) in &l {
            assert_eq!(index.label(k), Some(v.as_str()), "{k}");
        }
        assert_eq!(index.label("example.com/key-200"), None);
    }

    #[test]
    fn selectors_match_an_index_like_a_map() {
        let l = labels(&[("zone", "a"), ("gen", "0206")]);
        let index = LabelIndex::new(&l);
        for r in [
            req("zone", Operator::In, &["a", "b"]),
            req("zone", Operator::NotIn, &["a"]),
            req("missing", Operator::DoesNotExist, &[]),
            req("gen", Operator::Gt, &["0204"]),
        ] {
            assert_eq!(r.matches(&index), r.matches(&l), "{r}");
        }
    }

    #[test]
    fn nil_and_empty_label_selectors_differ() {
        let p = FieldPath::root("s");
        assert_eq!(Selector::from_label_selector(None, &p).unwrap(), Selector::Nothing);
        let empty = LabelSelector::default();
        assert!(Selector::from_label_selector(Some(&empty), &p).unwrap().matches(&Labels::new()));
    }
}
