//! Resource quantities exactly as `k8s.io/apimachinery/pkg/api/resource` parses them.
//!
//! A quantity is held as an exact decimal `mantissa * 10^exp10`, so `0.1 + 0.2` cpu is exactly
//! `300m` and `1.5Gi` is exact. The scheduler reads cpu with `MilliValue` and everything else with
//! `Value`; both round up, which [`Quantity::milli_value`] and [`Quantity::value`] reproduce.

use std::cmp::Ordering;
use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// More significant digits than any real manifest holds; bounds the arithmetic below to i128.
const MAX_DIGITS: usize = 30;

#[derive(Debug, Clone)]
pub struct Quantity {
    mantissa: i128,
    exp10: i32,
    /// The text it was written as, kept so output shows what the user wrote.
    text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QuantityError {
    #[error("quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")]
    Format,
    #[error("unable to parse quantity's suffix")]
    Suffix,
    #[error("quantity has more than {MAX_DIGITS} significant digits")]
    TooLarge,
}

impl Quantity {
    pub fn parse(input: &str) -> Result<Self, QuantityError> {
        let (mantissa, exp10) = parse_exact(input)?;
        Ok(Self { mantissa, exp10, text: input.to_string() })
    }

    /// A quantity of `millis / 1000`, as for cpu.
    pub fn from_milli(millis: i64) -> Self {
        Self { mantissa: millis as i128, exp10: -3, text: format_cpu(millis) }
    }

    pub fn from_value(value: i64) -> Self {
        Self { mantissa: value as i128, exp10: 0, text: value.to_string() }
    }

    pub fn is_zero(&self) -> bool {
        self.mantissa == 0
    }

    pub fn is_negative(&self) -> bool {
        self.mantissa < 0
    }

    /// `MilliValue()`: the value times 1000, rounded up, saturating at the i64 range.
    pub fn milli_value(&self) -> i64 {
        self.scaled_ceil(-3)
    }

    /// `Value()`: the value rounded up to an integer, saturating at the i64 range.
    pub fn value(&self) -> i64 {
        self.scaled_ceil(0)
    }

    /// ceil(self / 10^scale), saturating.
    fn scaled_ceil(&self, scale: i32) -> i64 {
        let shift = self.exp10 - scale;
        let value = if shift >= 0 {
            pow10(shift).and_then(|p| self.mantissa.checked_mul(p))
        } else {
            // Dividing by more than 10^38 leaves 0 or ±1 after rounding up.
            match pow10(-shift) {
                Some(p) => {
                    let q = self.mantissa / p;
                    let r = self.mantissa % p;
                    Some(if r > 0 { q + 1 } else { q })
                }
                None => Some(if self.mantissa > 0 { 1 } else { 0 }),
            }
        };
        match value {
            Some(v) => v.clamp(i64::MIN as i128, i64::MAX as i128) as i64,
            None if self.mantissa > 0 => i64::MAX,
            None => i64::MIN,
        }
    }

    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// Exact sum; the text is the canonical decimal form.
    pub fn add(&self, other: &Quantity) -> Quantity {
        let exp = self.exp10.min(other.exp10);
        let a = rescale(self.mantissa, self.exp10 - exp);
        let b = rescale(other.mantissa, other.exp10 - exp);
        let mantissa = a.saturating_add(b);
        let mut q = Quantity { mantissa, exp10: exp, text: String::new() };
        q.text = q.canonical();
        q
    }

    fn canonical(&self) -> String {
        let (m, e) = normalize(self.mantissa, self.exp10);
        if e >= 0 {
            let v = rescale(m, e);
            return v.to_string();
        }
        // Prefer milli notation, as Kubernetes does for sub-unit values.
        if e >= -3 {
            return format!("{}m", rescale(m, e + 3));
        }
        format!("{m}e{e}")
    }
}

fn pow10(n: i32) -> Option<i128> {
    if !(0..=38).contains(&n) {
        return None;
    }
    10i128.checked_pow(n as u32)
}

fn rescale(m: i128, by: i32) -> i128 {
    match pow10(by) {
        Some(p) => m.saturating_mul(p),
        None if m == 0 => 0,
        None => {
            if m > 0 {
                i128::MAX
            } else {
                i128::MIN
            }
        }
    }
}

fn normalize(mut m: i128, mut e: i32) -> (i128, i32) {
    if m == 0 {
        return (0, 0);
    }
    while m % 10 == 0 {
        m /= 10;
        e += 1;
    }
    (m, e)
}

/// Parses `<sign><digits>[.<digits>]<suffix>` where the suffix is a binary SI suffix (`Ki`..`Ei`),
/// a decimal SI suffix (`n u m "" k M G T P E`) or a decimal exponent (`e3`, `E-2`).
fn parse_exact(input: &str) -> Result<(i128, i32), QuantityError> {
    let bytes = input.as_bytes();
    let mut pos = 0;
    let negative = match bytes.first() {
        Some(b'-') => {
            pos = 1;
            true
        }
        Some(b'+') => {
            pos = 1;
            false
        }
        Some(_) => false,
        None => return Err(QuantityError::Format),
    };
    let int_start = pos;
    while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
        pos += 1;
    }
    let int_digits = &input[int_start..pos];
    let mut frac_digits = "";
    if bytes.get(pos) == Some(&b'.') {
        pos += 1;
        let frac_start = pos;
        while bytes.get(pos).is_some_and(u8::is_ascii_digit) {
            pos += 1;
        }
        frac_digits = &input[frac_start..pos];
    }
    if int_digits.is_empty() && frac_digits.is_empty() {
        return Err(QuantityError::Format);
    }
    let (suffix_exp10, binary_shift) = parse_suffix(&input[pos..])?;

    let digits = format!("{int_digits}{frac_digits}");
    let significant = digits.trim_start_matches('0');
    if significant.len() > MAX_DIGITS {
        return Err(QuantityError::TooLarge);
    }
    let mut mantissa: i128 =
        if significant.is_empty() { 0 } else { significant.parse().map_err(|_| QuantityError::Format)? };
    let mut exp10 = suffix_exp10 - frac_digits.len() as i32;
    if binary_shift > 0 {
        mantissa = mantissa.checked_mul(1i128 << binary_shift).ok_or(QuantityError::TooLarge)?;
    }
    if negative {
        mantissa = -mantissa;
    }
    // Keep exponents in a range where rescaling cannot silently lose everything.
    if !(-60..=60).contains(&exp10) {
        let (m, e) = normalize(mantissa, exp10);
        mantissa = m;
        exp10 = e;
        if !(-60..=60).contains(&exp10) && mantissa != 0 {
            return Err(QuantityError::TooLarge);
        }
    }
    Ok((mantissa, exp10))
}

/// Returns (decimal exponent, binary shift).
fn parse_suffix(suffix: &str) -> Result<(i32, u32), QuantityError> {
    Ok(match suffix {
        "" => (0, 0),
        "n" => (-9, 0),
        "u" => (-6, 0),
        "m" => (-3, 0),
        "k" => (3, 0),
        "M" => (6, 0),
        "G" => (9, 0),
        "T" => (12, 0),
        "P" => (15, 0),
        "E" => (18, 0),
        "Ki" => (0, 10),
        "Mi" => (0, 20),
        "Gi" => (0, 30),
        "Ti" => (0, 40),
        "Pi" => (0, 50),
        "Ei" => (0, 60),
        s if s.starts_with(['e', 'E']) && s.len() > 1 => {
            let exp = &s[1..];
            let digits = exp.strip_prefix(['+', '-']).unwrap_or(exp);
            if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                return Err(QuantityError::Suffix);
            }
            let e: i32 = exp.parse().map_err(|_| QuantityError::TooLarge)?;
            if !(-60..=60).contains(&e) {
                return Err(QuantityError::TooLarge);
            }
            (e, 0)
        }
        _ => return Err(QuantityError::Suffix),
    })
}

impl PartialEq for Quantity {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Ordering::Equal
    }
}
impl Eq for Quantity {}

impl PartialOrd for Quantity {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Quantity {
    fn cmp(&self, other: &Self) -> Ordering {
        let exp = self.exp10.min(other.exp10);
        rescale(self.mantissa, self.exp10 - exp).cmp(&rescale(other.mantissa, other.exp10 - exp))
    }
}

impl fmt::Display for Quantity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl Serialize for Quantity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.text)
    }
}

/// Accepts a string or a bare number, as the API server does for int-or-string quantities.
impl<'de> Deserialize<'de> for Quantity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = Quantity;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a quantity such as \"500m\", \"1Gi\" or 2")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Quantity, E> {
                Quantity::parse(v).map_err(|e| E::custom(format!("invalid quantity {v:?}: {e}")))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Quantity, E> {
                Ok(Quantity::from_value(v))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Quantity, E> {
                self.visit_str(&v.to_string())
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Quantity, E> {
                if !v.is_finite() {
                    return Err(E::custom(format!("invalid quantity {v}")));
                }
                self.visit_str(&v.to_string())
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// Human form of a cpu amount in millicores: `1.5` rather than `1500m`, as `kubectl` prints.
pub fn format_cpu(millis: i64) -> String {
    if millis % 1000 == 0 {
        (millis / 1000).to_string()
    } else {
        format!("{millis}m")
    }
}

/// Human form of a byte count: the largest binary suffix that divides it exactly, else plain.
pub fn format_bytes(bytes: i64) -> String {
    const UNITS: [(&str, u32); 5] = [("Pi", 50), ("Ti", 40), ("Gi", 30), ("Mi", 20), ("Ki", 10)];
    for (suffix, shift) in UNITS {
        let unit = 1i64 << shift;
        if bytes != 0 && bytes % unit == 0 {
            return format!("{}{suffix}", bytes / unit);
        }
    }
    // Otherwise one decimal of the largest unit that fits, marked approximate.
    for (suffix, shift) in UNITS {
        let unit = 1i64 << shift;
        if bytes.abs() >= unit {
            return format!("~{:.1}{suffix}", bytes as f64 / unit as f64);
        }
    }
    bytes.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_apimachinery() {
        // (input, milli value, value, why)
        let rows: &[(&str, i64, i64, &str)] = &[
            ("500m", 500, 1, "milli rounds the value up"),
            ("0.5", 500, 1, "decimal fraction"),
            ("1", 1000, 1, "plain integer"),
            ("1Gi", 1073741824000, 1073741824, "binary SI"),
            ("1G", 1_000_000_000_000, 1_000_000_000, "decimal SI"),
            ("1e3", 1_000_000, 1000, "decimal exponent"),
            ("1E3", 1_000_000, 1000, "upper-case exponent"),
            ("14173624Ki", 14173624 * 1024 * 1000, 14173624 * 1024, "kubelet memory"),
            ("1.5Gi", 1610612736000, 1610612736, "fractional binary"),
            ("100n", 1, 1, "nano rounds up to one milli"),
            ("+5", 5000, 5, "leading plus"),
            ("-5m", -5, 0, "negative rounds toward +inf"),
            (".5", 500, 1, "leading dot"),
            ("5.", 5000, 5, "trailing dot"),
            ("1E", i64::MAX, 1_000_000_000_000_000_000, "E alone is exa; milli saturates"),
            ("0", 0, 0, "zero"),
        ];
        for (input, milli, value, why) in rows {
            let q = Quantity::parse(input).unwrap_or_else(|e| panic!("{input}: {e} ({why})"));
            assert_eq!(q.milli_value(), *milli, "{input} milli: {why}");
            assert_eq!(q.value(), *value, "{input} value: {why}");
        }
    }

    #[test]
    fn rejects_invalid() {
        for bad in ["", "abc", "1.2.3", "1Qi", "1e", "1 Gi", "Gi", ".", "1ee3", "--1", "1e3.5"] {
            assert!(Quantity::parse(bad).is_err(), "{bad:?} should be rejected");
        }
        assert_eq!(Quantity::parse("1234567890123456789012345678901234"), Err(QuantityError::TooLarge));
    }

    #[test]
    fn exact_arithmetic_and_ordering() {
        let a = Quantity::parse("100m").unwrap();
        let b = Quantity::parse("0.2").unwrap();
        assert_eq!(a.add(&b), Quantity::parse("300m").unwrap());
        assert_eq!(a.add(&b).as_str(), "300m");
        assert!(Quantity::parse("1Gi").unwrap() > Quantity::parse("1G").unwrap());
        assert_eq!(Quantity::parse("1k").unwrap(), Quantity::parse("1000").unwrap());
    }

    #[test]
    fn human_formats() {
        assert_eq!(format_cpu(1500), "1500m");
        assert_eq!(format_cpu(2000), "2");
        assert_eq!(format_bytes(1 << 30), "1Gi");
        assert_eq!(format_bytes(3 * (1 << 20)), "3Mi");
        assert_eq!(format_bytes(20), "20");
    }
}
