//! Taints and tolerations (`k8s.io/api/core/v1/toleration.go`, `taint.go` and the
//! component-helpers that search taint lists).

use std::fmt;

use crate::model::{Taint, Toleration};

pub const NO_SCHEDULE: &str = "NoSchedule";
pub const PREFER_NO_SCHEDULE: &str = "PreferNoSchedule";
pub const NO_EXECUTE: &str = "NoExecute";

pub const TAINT_NODE_NOT_READY: &str = "node.kubernetes.io/not-ready";
pub const TAINT_NODE_UNREACHABLE: &str = "node.kubernetes.io/unreachable";
pub const TAINT_NODE_UNSCHEDULABLE: &str = "node.kubernetes.io/unschedulable";
pub const TAINT_NODE_DISK_PRESSURE: &str = "node.kubernetes.io/disk-pressure";
pub const TAINT_NODE_MEMORY_PRESSURE: &str = "node.kubernetes.io/memory-pressure";
pub const TAINT_NODE_PID_PRESSURE: &str = "node.kubernetes.io/pid-pressure";
pub const TAINT_NODE_NETWORK_UNAVAILABLE: &str = "node.kubernetes.io/network-unavailable";

impl Toleration {
    /// `Toleration.ToleratesTaint`: effect, then key, then the operator decides.
    /// `Lt`/`Gt` compare numerically only when the `TaintTolerationComparisonOperators` gate is on.
    pub fn tolerates(&self, taint: &Taint, comparison_operators: bool) -> bool {
        if !self.effect.is_empty() && self.effect != taint.effect {
            return false;
        }
        if !self.key.is_empty() && self.key != taint.key {
            return false;
        }
        match self.operator.as_str() {
            "" | "Equal" => self.value == taint.value,
            "Exists" => true,
            op @ ("Lt" | "Gt") if comparison_operators => compare_numeric_values(&self.value, &taint.value, op),
            _ => false,
        }
    }

    /// `MatchToleration`: same key, effect, operator and value; tolerationSeconds is ignored.
    pub fn same_as(&self, other: &Toleration) -> bool {
        self.key == other.key
            && self.effect == other.effect
            && self.operator == other.operator
            && self.value == other.value
    }
}

/// The unexported `compareNumericValues`: the **taint** value is compared against the
/// toleration value (`Gt` means taint > toleration). Both must be canonical decimal integers
/// that fit an int64; anything else never tolerates.
pub fn compare_numeric_values(toleration_value: &str, taint_value: &str, operator: &str) -> bool {
    let (Some(toleration), Some(taint)) = (parse_decimal_integer(toleration_value), parse_decimal_integer(taint_value))
    else {
        return false;
    };
    match operator {
        "Gt" => taint > toleration,
        "Lt" => taint < toleration,
        _ => false,
    }
}

/// `content.IsDecimalInteger` (`0` or `-?[1-9][0-9]*`) and int64 range.
fn parse_decimal_integer(s: &str) -> Option<i64> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    let canonical = s == "0"
        || (!digits.is_empty()
            && digits.as_bytes().first() != Some(&b'0')
            && digits.bytes().all(|b| b.is_ascii_digit()));
    if !canonical {
        return None;
    }
    s.parse().ok()
}

impl Taint {
    /// `MatchTaint`: taints are the same taint when key and effect agree.
    pub fn matches(&self, other: &Taint) -> bool {
        self.key == other.key && self.effect == other.effect
    }
}

/// The effects a taint can have.
pub const EFFECTS: [&str; 3] = [NO_SCHEDULE, PREFER_NO_SCHEDULE, NO_EXECUTE];

/// Why a taint written as text did not parse; each names the text given.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaintParseError {
    #[error("taint {0:?}: expected key[=value]:Effect, e.g. sku=gpu:NoSchedule")]
    Shape(String),
    #[error("taint {0:?}: missing key")]
    MissingKey(String),
    #[error("taint {text:?}: effect {effect:?} is not one of NoSchedule, PreferNoSchedule, NoExecute")]
    Effect { text: String, effect: String },
    #[error("taint {text:?}: key {key:?}: {detail}")]
    Key { text: String, key: String, detail: String },
    #[error("taint {text:?}: value {value:?}: {detail}")]
    Value { text: String, value: String, detail: String },
}

/// `kubectl taint`'s form, `key[=value]:Effect`, with the API server's checks: the key a
/// qualified name, the value a label value, the effect one of the three.
///
/// ```
/// use placement_core::model::Taint;
/// let t: Taint = "sku=gpu:NoSchedule".parse().unwrap();
/// assert_eq!((t.key.as_str(), t.value.as_str(), t.effect.as_str()), ("sku", "gpu", "NoSchedule"));
/// assert_eq!(t.to_string(), "sku=gpu:NoSchedule");
/// assert!("sku=gpu".parse::<Taint>().is_err());
/// ```
impl std::str::FromStr for Taint {
    type Err = TaintParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (kv, effect) = text.rsplit_once(':').ok_or_else(|| TaintParseError::Shape(text.into()))?;
        let effect = effect.trim();
        if !EFFECTS.contains(&effect) {
            return Err(TaintParseError::Effect { text: text.into(), effect: effect.into() });
        }
        let (key, value) = match kv.split_once('=') {
            Some((k, v)) => (k.trim(), v.trim()),
            None => (kv.trim(), ""),
        };
        if key.is_empty() {
            return Err(TaintParseError::MissingKey(text.into()));
        }
        let path = crate::input::field::FieldPath::root("key");
        if let Err(e) = crate::model::labels::validate_label_key(key, &path) {
            return Err(TaintParseError::Key { text: text.into(), key: key.into(), detail: e.detail });
        }
        if let Err(e) = crate::model::labels::validate_label_value(value, &path) {
            return Err(TaintParseError::Value { text: text.into(), value: value.into(), detail: e.detail });
        }
        Ok(Taint { key: key.into(), value: value.into(), effect: effect.into() })
    }
}

/// `Taint.ToString`: `k=v:e`, `k:e`, `k=v:` or `k`.
impl fmt::Display for Taint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.effect.is_empty(), self.value.is_empty()) {
            (true, true) => write!(f, "{}", self.key),
            (true, false) => write!(f, "{}={}:", self.key, self.value),
            (false, true) => write!(f, "{}:{}", self.key, self.effect),
            (false, false) => write!(f, "{}={}:{}", self.key, self.value, self.effect),
        }
    }
}

/// component-helpers `TolerationsTolerateTaint`.
pub fn tolerations_tolerate(tolerations: &[Toleration], taint: &Taint, comparison: bool) -> bool {
    tolerations.iter().any(|t| t.tolerates(taint, comparison))
}

/// component-helpers `FindMatchingUntoleratedTaint`: the first taint, in node order, that passes
/// `filter` and that no toleration tolerates.
pub fn find_untolerated_taint<'a>(
    taints: &'a [Taint],
    tolerations: &[Toleration],
    filter: impl Fn(&Taint) -> bool,
    comparison: bool,
) -> Option<&'a Taint> {
    taints.iter().filter(|t| filter(t)).find(|t| !tolerations_tolerate(tolerations, t, comparison))
}

/// What the taint manager (`pkg/controller/tainteviction`) does with a pod on a node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoExecuteEviction {
    /// Every NoExecute taint is tolerated for good (or there is none).
    Stays,
    /// A NoExecute taint no toleration tolerates: deleted at once.
    Now(Taint),
    /// Every NoExecute taint is tolerated, some only for `tolerationSeconds`: deleted after
    /// the smallest of them (`getMinTolerationTime`; negative counts as 0).
    After { seconds: i64, taint: Taint },
}

/// The taint manager's `processPodOnNode`: for each NoExecute taint the first toleration that
/// tolerates it (`GetMatchingTolerations`); one untolerated taint evicts at once, else the
/// smallest tolerationSeconds of those tolerations decides.
pub fn no_execute_eviction(taints: &[Taint], tolerations: &[Toleration], comparison: bool) -> NoExecuteEviction {
    let mut min: Option<(i64, &Taint)> = None;
    for taint in taints.iter().filter(|t| t.effect == NO_EXECUTE) {
        match tolerations.iter().find(|t| t.tolerates(taint, comparison)) {
            None => return NoExecuteEviction::Now(taint.clone()),
            Some(t) => {
                if let Some(s) = t.toleration_seconds {
                    let s = s.max(0);
                    if min.is_none_or(|(m, _)| s < m) {
                        min = Some((s, taint));
                    }
                }
            }
        }
    }
    match min {
        Some((seconds, taint)) => NoExecuteEviction::After { seconds, taint: taint.clone() },
        None => NoExecuteEviction::Stays,
    }
}

/// `helper.DoNotScheduleTaintsFilterFunc`: the taints the Filter phase looks at.
pub fn is_do_not_schedule(taint: &Taint) -> bool {
    taint.effect == NO_SCHEDULE || taint.effect == NO_EXECUTE
}

/// `v1helper.AddOrUpdateTolerationInPodSpec`: replace a toleration with the same key, effect,
/// operator and value in place, otherwise append. Returns whether anything changed.
pub fn add_or_update_toleration(tolerations: &mut Vec<Toleration>, toleration: Toleration) -> bool {
    for existing in tolerations.iter_mut() {
        if existing.same_as(&toleration) {
            if *existing == toleration {
                return false;
            }
            *existing = toleration;
            return true;
        }
    }
    tolerations.push(toleration);
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn taints_parse_from_kubectl_text() {
        // (text, want: Ok(Display) or Err(message fragment))
        let rows: [(&str, Result<&str, &str>); 7] = [
            ("sku=gpu:NoSchedule", Ok("sku=gpu:NoSchedule")),
            ("dedicated:NoExecute", Ok("dedicated:NoExecute")),
            (" a = b : PreferNoSchedule", Ok("a=b:PreferNoSchedule")),
            ("sku=gpu", Err("expected key[=value]:Effect")),
            ("sku=gpu:Sometimes", Err("effect \"Sometimes\" is not one of")),
            ("=gpu:NoSchedule", Err("missing key")),
            ("bad key=x:NoSchedule", Err("key \"bad key\"")),
        ];
        for (text, want) in rows {
            let got = text.parse::<Taint>().map(|t| t.to_string()).map_err(|e| e.to_string());
            match (got, want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{text}"),
                (Err(got), Err(fragment)) => assert!(got.contains(fragment), "{text}: {got}"),
                (got, want) => panic!("{text}: got {got:?}, want {want:?}"),
            }
        }
        assert!("k=bad value:NoSchedule".parse::<Taint>().is_err(), "values are label values");
    }

    use super::*;

    fn taint(key: &str, value: &str, effect: &str) -> Taint {
        Taint { key: key.into(), value: value.into(), effect: effect.into() }
    }

    fn toleration(key: &str, op: &str, value: &str, effect: &str) -> Toleration {
        Toleration {
            key: key.into(),
            operator: op.into(),
            value: value.into(),
            effect: effect.into(),
            toleration_seconds: None,
        }
    }

    #[test]
    fn toleration_rows() {
        let t = taint("dedicated", "gpu", "NoSchedule");
        // (toleration, tolerated, why)
        let rows = [
            (toleration("dedicated", "Equal", "gpu", "NoSchedule"), true, "exact match"),
            (toleration("dedicated", "", "gpu", ""), true, "empty operator is Equal, empty effect matches all"),
            (toleration("dedicated", "Equal", "cpu", "NoSchedule"), false, "value differs"),
            (toleration("dedicated", "Exists", "", "NoExecute"), false, "effect differs"),
            (toleration("", "Exists", "", ""), true, "keyless Exists tolerates everything"),
            (toleration("", "Equal", "gpu", ""), true, "empty key with Equal matches any key with that value"),
            (toleration("dedicated", "Gt", "1", ""), false, "Gt without the gate never matches"),
            (toleration("dedicated", "Bogus", "gpu", ""), false, "unknown operator"),
        ];
        for (tol, expected, why) in rows {
            assert_eq!(tol.tolerates(&t, false), expected, "{why}");
        }
    }

    #[test]
    fn numeric_comparison_is_taint_versus_toleration() {
        assert!(compare_numeric_values("100", "200", "Gt"));
        assert!(!compare_numeric_values("200", "200", "Gt"));
        assert!(compare_numeric_values("200", "100", "Lt"));
        assert!(!compare_numeric_values("0100", "200", "Gt"), "leading zeros rejected");
        assert!(!compare_numeric_values("-0", "1", "Gt"), "-0 rejected");
        assert!(compare_numeric_values("-9223372036854775808", "9223372036854775807", "Gt"));
        assert!(!compare_numeric_values("9223372036854775808", "1", "Lt"), "overflow rejected");
    }

    #[test]
    fn taint_strings() {
        assert_eq!(taint("k", "v", "NoSchedule").to_string(), "k=v:NoSchedule");
        assert_eq!(taint("k", "", "NoSchedule").to_string(), "k:NoSchedule");
        assert_eq!(taint("k", "v", "").to_string(), "k=v:");
        assert_eq!(taint("k", "", "").to_string(), "k");
    }

    #[test]
    fn add_or_update_replaces_semantic_twin() {
        let mut list = vec![Toleration { toleration_seconds: Some(300), ..toleration("a", "Exists", "", "NoExecute") }];
        assert!(add_or_update_toleration(&mut list, toleration("a", "Exists", "", "NoExecute")));
        assert_eq!(list, vec![toleration("a", "Exists", "", "NoExecute")]);
        assert!(!add_or_update_toleration(&mut list, toleration("a", "Exists", "", "NoExecute")));
        assert!(add_or_update_toleration(&mut list, toleration("b", "Exists", "", "NoExecute")));
        assert_eq!(list.len(), 2);
    }
}
