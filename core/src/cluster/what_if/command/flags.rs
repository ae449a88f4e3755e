//! kubectl's flags as pflag (v1.0.9) parses them: the global flags every command accepts and
//! each simulated command's own, with what a what-if makes of each.

use super::duration::GoDuration;
use super::WhatIfParseError;

/// How pflag reads a flag's value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `--flag`, `--flag=false` (`NoOptDefVal` "true"): a value only after `=`.
    Bool,
    /// `--flag value`, `--flag=value`.
    Text,
    /// A value only after `=`, else the default given (`--dry-run`, `--cascade`).
    OptionalText(&'static str),
    /// `IntVar`: `strconv.ParseInt(s, 0, 64)`.
    Int,
    /// `DurationVar`: `time.ParseDuration`.
    Duration,
}

/// What a what-if makes of a flag.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Use {
    /// The command reads it.
    Read,
    /// Accepted and ignored: it does not change what happens to a snapshot.
    Ignored,
    /// kubectl has it; a what-if cannot honour it.
    Unsupported(&'static str),
}

#[derive(Debug, Clone, Copy)]
pub(super) struct FlagSpec {
    name: &'static str,
    short: Option<char>,
    kind: Kind,
    use_: Use,
}

const fn flag(name: &'static str, short: Option<char>, kind: Kind, use_: Use) -> FlagSpec {
    FlagSpec { name, short, kind, use_ }
}

const NEEDS_CLUSTER: &str = "it needs the live cluster or local files";

/// kubectl's persistent flags (`genericclioptions.ConfigFlags`, `MatchVersionFlags`, the
/// profiling, kuberc, warnings and klog flags): accepted anywhere, and ignored.
const GLOBAL_FLAGS: &[FlagSpec] = &[
    flag("kubeconfig", None, Kind::Text, Use::Ignored),
    flag("cache-dir", None, Kind::Text, Use::Ignored),
    flag("client-certificate", None, Kind::Text, Use::Ignored),
    flag("client-key", None, Kind::Text, Use::Ignored),
    flag("token", None, Kind::Text, Use::Ignored),
    flag("as", None, Kind::Text, Use::Ignored),
    flag("as-uid", None, Kind::Text, Use::Ignored),
    flag("as-group", None, Kind::Text, Use::Ignored),
    flag("as-user-extra", None, Kind::Text, Use::Ignored),
    flag("username", None, Kind::Text, Use::Ignored),
    flag("password", None, Kind::Text, Use::Ignored),
    flag("cluster", None, Kind::Text, Use::Ignored),
    flag("user", None, Kind::Text, Use::Ignored),
    flag("namespace", Some('n'), Kind::Text, Use::Ignored),
    flag("context", None, Kind::Text, Use::Ignored),
    flag("server", Some('s'), Kind::Text, Use::Ignored),
    flag("tls-server-name", None, Kind::Text, Use::Ignored),
    flag("insecure-skip-tls-verify", None, Kind::Bool, Use::Ignored),
    flag("certificate-authority", None, Kind::Text, Use::Ignored),
    flag("request-timeout", None, Kind::Text, Use::Ignored),
    flag("disable-compression", None, Kind::Bool, Use::Ignored),
    flag("match-server-version", None, Kind::Bool, Use::Ignored),
    flag("warnings-as-errors", None, Kind::Bool, Use::Ignored),
    flag("profile", None, Kind::Text, Use::Ignored),
    flag("profile-output", None, Kind::Text, Use::Ignored),
    flag("kuberc", None, Kind::Text, Use::Ignored),
    flag("v", Some('v'), Kind::Text, Use::Ignored),
    flag("vmodule", None, Kind::Text, Use::Ignored),
    flag("log-flush-frequency", None, Kind::Duration, Use::Ignored),
    flag("help", Some('h'), Kind::Bool, Use::Unsupported("it prints kubectl's help")),
];

const DRY_RUN: FlagSpec = flag("dry-run", None, Kind::OptionalText("unchanged"), Use::Read);
const SELECTOR: FlagSpec = flag("selector", Some('l'), Kind::Text, Use::Read);

/// `genericclioptions.PrintFlags`: output only.
const PRINT_FLAGS: [FlagSpec; 4] = [
    flag("output", Some('o'), Kind::Text, Use::Ignored),
    flag("template", None, Kind::Text, Use::Ignored),
    flag("show-managed-fields", None, Kind::Bool, Use::Ignored),
    flag("allow-missing-template-keys", None, Kind::Bool, Use::Ignored),
];

pub(super) const TAINT_FLAGS: &[FlagSpec] = &[
    DRY_RUN,
    SELECTOR,
    flag("overwrite", None, Kind::Bool, Use::Read),
    flag("all", None, Kind::Bool, Use::Read),
    flag("validate", None, Kind::OptionalText("strict"), Use::Ignored),
    flag("field-manager", None, Kind::Text, Use::Ignored),
    PRINT_FLAGS[0],
    PRINT_FLAGS[1],
    PRINT_FLAGS[2],
    PRINT_FLAGS[3],
];

pub(super) const LABEL_FLAGS: &[FlagSpec] = &[
    DRY_RUN,
    SELECTOR,
    flag("overwrite", None, Kind::Bool, Use::Read),
    flag("all", None, Kind::Bool, Use::Read),
    flag("all-namespaces", Some('A'), Kind::Bool, Use::Ignored),
    flag("list", None, Kind::Bool, Use::Unsupported("it only prints labels")),
    flag("local", None, Kind::Bool, Use::Unsupported(NEEDS_CLUSTER)),
    flag("field-selector", None, Kind::Text, Use::Unsupported("field selectors are not simulated")),
    flag("resource-version", None, Kind::Text, Use::Ignored),
    flag("filename", Some('f'), Kind::Text, Use::Unsupported(NEEDS_CLUSTER)),
    flag("kustomize", Some('k'), Kind::Text, Use::Unsupported(NEEDS_CLUSTER)),
    flag("recursive", Some('R'), Kind::Bool, Use::Ignored),
    flag("record", None, Kind::Bool, Use::Ignored),
    flag("field-manager", None, Kind::Text, Use::Ignored),
    PRINT_FLAGS[0],
    PRINT_FLAGS[1],
    PRINT_FLAGS[2],
    PRINT_FLAGS[3],
];

pub(super) const CORDON_FLAGS: &[FlagSpec] = &[DRY_RUN, SELECTOR];

pub(super) const DRAIN_FLAGS: &[FlagSpec] = &[
    DRY_RUN,
    SELECTOR,
    flag("force", None, Kind::Bool, Use::Read),
    flag("ignore-daemonsets", None, Kind::Bool, Use::Read),
    flag("delete-emptydir-data", None, Kind::Bool, Use::Read),
    flag("grace-period", None, Kind::Int, Use::Read),
    flag("timeout", None, Kind::Duration, Use::Read),
    flag("pod-selector", None, Kind::Text, Use::Read),
    flag("disable-eviction", None, Kind::Bool, Use::Read),
    flag("skip-wait-for-delete-timeout", None, Kind::Int, Use::Read),
    flag("chunk-size", None, Kind::Int, Use::Ignored),
    PRINT_FLAGS[0],
    PRINT_FLAGS[1],
    PRINT_FLAGS[2],
    PRINT_FLAGS[3],
];

pub(super) const DELETE_FLAGS: &[FlagSpec] = &[
    DRY_RUN,
    SELECTOR,
    flag("all", None, Kind::Bool, Use::Read),
    flag("all-namespaces", Some('A'), Kind::Bool, Use::Ignored),
    flag("force", None, Kind::Bool, Use::Read),
    flag("cascade", None, Kind::OptionalText("background"), Use::Ignored),
    flag("now", None, Kind::Bool, Use::Read),
    flag("grace-period", None, Kind::Int, Use::Read),
    flag("timeout", None, Kind::Duration, Use::Ignored),
    flag("ignore-not-found", None, Kind::Bool, Use::Read),
    flag("wait", None, Kind::Bool, Use::Ignored),
    flag("output", Some('o'), Kind::Text, Use::Read),
    flag("field-selector", None, Kind::Text, Use::Unsupported("field selectors are not simulated")),
    flag("raw", None, Kind::Text, Use::Unsupported(NEEDS_CLUSTER)),
    flag("interactive", Some('i'), Kind::Bool, Use::Unsupported("it asks for confirmation")),
    flag("filename", Some('f'), Kind::Text, Use::Unsupported(NEEDS_CLUSTER)),
    flag("kustomize", Some('k'), Kind::Text, Use::Unsupported(NEEDS_CLUSTER)),
    flag("recursive", Some('R'), Kind::Bool, Use::Ignored),
];

/// The flags given, in order, and the other words.
#[derive(Debug, Default)]
pub(super) struct Parsed {
    pub(super) args: Vec<String>,
    flags: Vec<(&'static str, String)>,
}

impl Parsed {
    /// The last value given for a flag.
    pub(super) fn value(&self, name: &str) -> Option<&str> {
        self.flags.iter().rev().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    /// A boolean flag's value (checked when parsed).
    pub(super) fn bool(&self, name: &str) -> bool {
        self.value(name).is_some_and(|v| go_parse_bool(v) == Some(true))
    }

    /// An integer flag's value (checked when parsed), or `default`.
    pub(super) fn int(&self, name: &str, default: i64) -> i64 {
        self.value(name).and_then(|v| go_parse_int(v).ok()).unwrap_or(default)
    }
}

/// `FlagSet.Parse` over the command's flags and the global ones.
pub(super) fn parse_flags(
    command: &'static str,
    words: &[String],
    specs: &[FlagSpec],
) -> Result<Parsed, WhatIfParseError> {
    let find_long = |name: &str| specs.iter().chain(GLOBAL_FLAGS).find(|f| f.name == name).copied();
    let find_short = |c: char| specs.iter().chain(GLOBAL_FLAGS).find(|f| f.short == Some(c)).copied();
    let mut parsed = Parsed::default();
    let mut rest = words.iter();
    while let Some(word) = rest.next() {
        if word.len() < 2 || !word.starts_with('-') {
            parsed.args.push(word.clone());
            continue;
        }
        if word == "--" {
            parsed.args.extend(rest.cloned());
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            if long.starts_with(['-', '=']) {
                return Err(WhatIfParseError::BadFlagSyntax { flag: word.clone() });
            }
            let (name, inline) = match long.split_once('=') {
                Some((name, value)) => (name, Some(value)),
                None => (long, None),
            };
            // kubectl's `WordSepNormalizeFunc`: `--ignore_daemonsets` is `--ignore-daemonsets`.
            let spec = find_long(&name.replace('_', "-"))
                .ok_or_else(|| WhatIfParseError::UnknownFlag { name: name.to_string() })?;
            let value = match (inline, spec.kind) {
                (Some(value), _) => value.to_string(),
                (None, Kind::Bool) => "true".to_string(),
                (None, Kind::OptionalText(default)) => default.to_string(),
                (None, _) => rest
                    .next()
                    .cloned()
                    .ok_or_else(|| WhatIfParseError::FlagNeedsArgument { name: name.to_string(), shorthands: None })?,
            };
            set_flag(command, &mut parsed, spec, value)?;
            continue;
        }
        // Shorthands: `-l sel`, `-lsel`, `-l=sel`, or booleans run together.
        let mut shorthands = word.get(1..).unwrap_or_default();
        while let Some(c) = shorthands.chars().next() {
            let after = shorthands.get(c.len_utf8()..).unwrap_or_default();
            let spec = find_short(c).ok_or_else(|| WhatIfParseError::UnknownShorthandFlag {
                shorthand: c,
                shorthands: shorthands.to_string(),
            })?;
            let value = if let Some(value) = after.strip_prefix('=').filter(|v| !v.is_empty()) {
                let value = value.to_string();
                shorthands = "";
                value
            } else if let Kind::Bool | Kind::OptionalText(_) = spec.kind {
                let value = if let Kind::OptionalText(default) = spec.kind { default } else { "true" };
                shorthands = after;
                value.to_string()
            } else if !after.is_empty() {
                let value = after.to_string();
                shorthands = "";
                value
            } else {
                let next = rest.next().cloned();
                let name = c.to_string();
                let value = next.ok_or_else(|| WhatIfParseError::FlagNeedsArgument {
                    name,
                    shorthands: Some(shorthands.to_string()),
                })?;
                shorthands = "";
                value
            };
            set_flag(command, &mut parsed, spec, value)?;
        }
    }
    Ok(parsed)
}

/// `FlagSet.Set`: the value must read as the flag's type.
fn set_flag(command: &'static str, parsed: &mut Parsed, spec: FlagSpec, value: String) -> Result<(), WhatIfParseError> {
    let invalid = |cause: String| WhatIfParseError::InvalidFlagValue {
        flag: match spec.short {
            Some(short) => format!("-{short}, --{}", spec.name),
            None => format!("--{}", spec.name),
        },
        value: value.clone(),
        cause,
    };
    match spec.kind {
        Kind::Bool if go_parse_bool(&value).is_none() => {
            return Err(invalid(format!("strconv.ParseBool: parsing {}: invalid syntax", go_quote(&value))))
        }
        Kind::Int => {
            if let Err(why) = go_parse_int(&value) {
                return Err(invalid(format!("strconv.ParseInt: parsing {}: {why}", go_quote(&value))));
            }
        }
        Kind::Duration => {
            if let Err(e) = value.parse::<GoDuration>() {
                return Err(invalid(e.to_string()));
            }
        }
        _ => {}
    }
    if let Use::Unsupported(reason) = spec.use_ {
        return Err(WhatIfParseError::UnsupportedFlag { command, flag: format!("--{}", spec.name), reason });
    }
    parsed.flags.push((spec.name, value));
    Ok(())
}

/// `strconv.ParseBool`.
pub(super) fn go_parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// `strconv.ParseInt(s, 0, 64)`: a sign, then `0x`, `0o`, `0b` or a leading `0` (octal) pick
/// the base, and `_` may separate digits. The error is strconv's reason.
fn go_parse_int(s: &str) -> Result<i64, &'static str> {
    const SYNTAX: &str = "invalid syntax";
    let (negative, body) = match s.strip_prefix(['+', '-']) {
        Some(body) => (s.starts_with('-'), body),
        None => (false, s),
    };
    if body.is_empty() {
        return Err(SYNTAX);
    }
    let lower = body.to_ascii_lowercase();
    let (base, digits, prefixed) = if let Some(d) = lower.strip_prefix("0x").filter(|_| body.len() >= 3) {
        (16, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0b").filter(|_| body.len() >= 3) {
        (2, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix("0o").filter(|_| body.len() >= 3) {
        (8, d.to_string(), true)
    } else if let Some(d) = lower.strip_prefix('0') {
        (8, d.to_string(), true)
    } else {
        (10, lower.clone(), false)
    };
    // `underscoreOK`: each `_` follows a digit or the base prefix and precedes a digit.
    let mut previous_is_digit = prefixed;
    let mut chars = digits.chars().peekable();
    let mut value: u64 = 0;
    while let Some(c) = chars.next() {
        if c == '_' {
            if !previous_is_digit || !chars.peek().is_some_and(|n| n.is_digit(base)) {
                return Err(SYNTAX);
            }
            previous_is_digit = false;
            continue;
        }
        let digit = c.to_digit(base).ok_or(SYNTAX)?;
        previous_is_digit = true;
        value = value
            .checked_mul(u64::from(base))
            .and_then(|v| v.checked_add(u64::from(digit)))
            .ok_or("value out of range")?;
    }
    if negative {
        0i64.checked_sub_unsigned(value).ok_or("value out of range")
    } else {
        i64::try_from(value).map_err(|_| "value out of range")
    }
}

/// Go's `%q` for the ASCII text command lines carry: `"` and `\` escaped, control and
/// non-ASCII characters as Rust escapes them (close to, not always byte-equal with, Go).
fn go_quote(s: &str) -> String {
    format!("{s:?}")
}

/// The persistent flags that take a value as cobra's `stripFlags` sees them: a flag it does
/// not know (not a global one) is taken to have a value too.
pub(super) fn global_takes_value(word: &str) -> bool {
    if let Some(long) = word.strip_prefix("--") {
        return !long.contains('=') && !GLOBAL_FLAGS.iter().any(|f| f.name == long && f.kind == Kind::Bool);
    }
    let mut chars = word.chars();
    match (chars.next(), chars.next(), chars.next()) {
        (Some('-'), Some(c), None) => !GLOBAL_FLAGS.iter().any(|f| f.short == Some(c) && f.kind == Kind::Bool),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_integers() {
        // (input, ParseInt(s, 0, 64))
        let ints: &[(&str, Result<i64, &str>)] = &[
            ("10", Ok(10)),
            ("-1", Ok(-1)),
            ("+7", Ok(7)),
            ("0x1f", Ok(31)),
            ("0o17", Ok(15)),
            ("017", Ok(15)),
            ("0b101", Ok(5)),
            ("1_000", Ok(1000)),
            ("0", Ok(0)),
            ("-9223372036854775808", Ok(i64::MIN)),
            ("9223372036854775808", Err("value out of range")),
            ("08", Err("invalid syntax")),
            ("1__0", Err("invalid syntax")),
            ("_1", Err("invalid syntax")),
            ("0x", Err("invalid syntax")),
            ("", Err("invalid syntax")),
            ("1.5", Err("invalid syntax")),
        ];
        for (input, want) in ints {
            assert_eq!(go_parse_int(input), *want, "{input}");
        }
    }
}
