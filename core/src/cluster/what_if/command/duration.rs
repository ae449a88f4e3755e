//! Go's `time.Duration` as kubectl's `--timeout` flags read and print it.

use std::fmt;

/// A `time.Duration` as kubectl reads `--timeout`: nanoseconds, read by `time.ParseDuration`
/// (`90s`, `1h30m`, `1.5h`, `300ms`) and printed by `Duration.String` (`1h30m0s`).
///
/// ```
/// use placement_core::cluster::what_if::command::GoDuration;
/// let d: GoDuration = "1.5h".parse().unwrap();
/// assert_eq!(d.as_nanos(), 5_400_000_000_000);
/// assert_eq!(d.to_string(), "1h30m0s");
/// assert_eq!("5".parse::<GoDuration>().unwrap_err().to_string(), "time: missing unit in duration \"5\"");
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct GoDuration(i64);

impl GoDuration {
    pub fn from_nanos(nanos: i64) -> Self {
        Self(nanos)
    }

    pub fn as_nanos(self) -> i64 {
        self.0
    }

    pub fn is_zero(self) -> bool {
        self.0 == 0
    }
}

/// `time.ParseDuration`'s errors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GoDurationError {
    #[error("time: invalid duration {}", time_quote(.0))]
    Invalid(String),
    #[error("time: missing unit in duration {}", time_quote(.0))]
    MissingUnit(String),
    #[error("time: unknown unit {} in duration {}", time_quote(unit), time_quote(text))]
    UnknownUnit { unit: String, text: String },
}

/// The `time` package's own `quote`: double quotes, `"` and `\` escaped, other bytes below
/// space or above ASCII as `\xNN`.
fn time_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        if c.is_ascii() && c >= ' ' {
            if c == '"' || c == '\\' {
                out.push('\\');
            }
            out.push(c);
        } else {
            let mut buf = [0u8; 4];
            for b in c.encode_utf8(&mut buf).bytes() {
                out.push_str(&format!("\\x{b:02x}"));
            }
        }
    }
    out.push('"');
    out
}

impl std::str::FromStr for GoDuration {
    type Err = GoDurationError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        const MAX: u64 = 1 << 63;
        let invalid = || GoDurationError::Invalid(text.to_string());
        let (negative, mut s) = match text.strip_prefix(['-', '+']) {
            Some(rest) => (text.starts_with('-'), rest),
            None => (false, text),
        };
        if s == "0" {
            return Ok(Self(0));
        }
        if s.is_empty() {
            return Err(invalid());
        }
        let mut total: u64 = 0;
        while !s.is_empty() {
            if !s.starts_with(|c: char| c == '.' || c.is_ascii_digit()) {
                return Err(invalid());
            }
            // The integer part; overflow is an invalid duration.
            let int_len = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
            let (int_digits, after) = s.split_at(int_len);
            let mut whole: u64 = 0;
            for d in int_digits.bytes() {
                whole = whole
                    .checked_mul(10)
                    .and_then(|v| v.checked_add(u64::from(d - b'0')))
                    .filter(|v| *v <= MAX)
                    .ok_or_else(invalid)?;
            }
            s = after;
            // The fraction: digits past what fits are dropped, as `leadingFraction` does.
            let (mut fraction, mut scale, mut has_fraction) = (0u64, 1f64, false);
            if let Some(after_dot) = s.strip_prefix('.') {
                let frac_len = after_dot.find(|c: char| !c.is_ascii_digit()).unwrap_or(after_dot.len());
                let (frac_digits, after) = after_dot.split_at(frac_len);
                let mut overflow = false;
                for d in frac_digits.bytes() {
                    if overflow {
                        continue;
                    }
                    match fraction.checked_mul(10).and_then(|v| v.checked_add(u64::from(d - b'0'))) {
                        Some(v) if v <= MAX => {
                            fraction = v;
                            scale *= 10.0;
                        }
                        _ => overflow = true,
                    }
                }
                has_fraction = frac_len > 0;
                s = after;
            }
            if int_len == 0 && !has_fraction {
                return Err(invalid());
            }
            let unit_len = s.find(|c: char| c == '.' || c.is_ascii_digit()).unwrap_or(s.len());
            if unit_len == 0 {
                return Err(GoDurationError::MissingUnit(text.to_string()));
            }
            let (unit_text, after) = s.split_at(unit_len);
            s = after;
            let unit: u64 = match unit_text {
                "ns" => 1,
                "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
                "ms" => 1_000_000,
                "s" => 1_000_000_000,
                "m" => 60_000_000_000,
                "h" => 3_600_000_000_000,
                _ => return Err(GoDurationError::UnknownUnit { unit: unit_text.to_string(), text: text.to_string() }),
            };
            if whole > MAX / unit {
                return Err(invalid());
            }
            let mut value = whole * unit;
            if fraction > 0 {
                // `uint64(float64(f) * (float64(unit) / scale))`, as Go rounds it.
                value = value.checked_add((fraction as f64 * (unit as f64 / scale)) as u64).ok_or_else(invalid)?;
                if value > MAX {
                    return Err(invalid());
                }
            }
            total = total.checked_add(value).filter(|t| *t <= MAX).ok_or_else(invalid)?;
        }
        if negative {
            return Ok(Self(0i64.checked_sub_unsigned(total).ok_or_else(invalid)?));
        }
        i64::try_from(total).map(Self).map_err(|_| invalid())
    }
}

/// `Duration.String`: `1h2m3.5s`, `1.5ms`, `0s`.
impl fmt::Display for GoDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let negative = self.0 < 0;
        let u = self.0.unsigned_abs();
        let sign = if negative { "-" } else { "" };
        // The fraction of `v / 10^prec`, without trailing zeros (and without the point when 0).
        let fraction = |v: u64, prec: u32| -> (String, u64) {
            let pow = 10u64.pow(prec);
            let digits = format!("{:0width$}", v % pow, width = prec as usize);
            let digits = digits.trim_end_matches('0');
            (if digits.is_empty() { String::new() } else { format!(".{digits}") }, v / pow)
        };
        if u == 0 {
            return f.write_str("0s");
        }
        if u < 1_000_000_000 {
            let (prec, unit) = match u {
                u if u < 1_000 => (0, "ns"),
                u if u < 1_000_000 => (3, "\u{b5}s"),
                _ => (6, "ms"),
            };
            let (frac, whole) = fraction(u, prec);
            return write!(f, "{sign}{whole}{frac}{unit}");
        }
        let (frac, seconds) = fraction(u, 9);
        let (hours, minutes, seconds) = (seconds / 3600, (seconds / 60) % 60, seconds % 60);
        match (hours, minutes) {
            (0, 0) => write!(f, "{sign}{seconds}{frac}s"),
            (0, m) => write!(f, "{sign}{m}m{seconds}{frac}s"),
            (h, m) => write!(f, "{sign}{h}h{m}m{seconds}{frac}s"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        // (input, nanoseconds, Duration.String)
        type DurationRow = (&'static str, Result<(i64, &'static str), &'static str>);
        let durations: &[DurationRow] = &[
            ("0", Ok((0, "0s"))),
            ("90s", Ok((90_000_000_000, "1m30s"))),
            ("1h", Ok((3_600_000_000_000, "1h0m0s"))),
            ("1.5h", Ok((5_400_000_000_000, "1h30m0s"))),
            ("-1.5s", Ok((-1_500_000_000, "-1.5s"))),
            ("300ms", Ok((300_000_000, "300ms"))),
            ("1.5us", Ok((1_500, "1.5\u{b5}s"))),
            ("1\u{3bc}s", Ok((1_000, "1\u{b5}s"))),
            ("7ns", Ok((7, "7ns"))),
            ("2h45m0.5s", Ok((9_900_500_000_000, "2h45m0.5s"))),
            (".5s", Ok((500_000_000, "500ms"))),
            ("", Err("time: invalid duration \"\"")),
            ("s", Err("time: invalid duration \"s\"")),
            ("5", Err("time: missing unit in duration \"5\"")),
            ("5d", Err("time: unknown unit \"d\" in duration \"5d\"")),
            ("9223372036854775808ns", Err("time: invalid duration \"9223372036854775808ns\"")),
        ];
        for (input, want) in durations {
            let got = input.parse::<GoDuration>().map(|d| (d.as_nanos(), d.to_string())).map_err(|e| e.to_string());
            let want = want.map(|(n, s)| (n, s.to_string())).map_err(str::to_string);
            assert_eq!(got, want, "{input}");
        }
    }
}
