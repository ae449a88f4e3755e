//! gator `Suite` files (`test.gatekeeper.sh/v1alpha1`), run with `gator verify`'s
//! semantics: each test pairs a template with a constraint; each case reviews one object
//! (plain or `AdmissionReview`) with optional inventory and checks its assertions.
//!
//! No IO here: files are read through [`SuiteFs`], paths relative to the suite's folder.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use super::{evaluate, ExpansionTemplate, Inventory, Limits, PolicySet, Template, Violation};
use crate::input::documents::split_documents;

/// Reads the files a suite names, relative to the suite's folder. The error is the
/// embedder's own message (an IO error, a missing template), shown as the case's failure.
pub trait SuiteFs {
    fn read(&self, path: &str) -> Result<String, String>;
    /// The `template:` of a test; by default the same as [`SuiteFs::read`]. The CLI maps
    /// it to Placement's own templates (`--templates`).
    fn read_template(&self, path: &str) -> Result<String, String> {
        self.read(path)
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    Pass,
    Fail(String),
    Skip,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CaseResult {
    pub test: String,
    pub case: String,
    pub outcome: Outcome,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Suite {
    kind: Option<String>,
    api_version: Option<String>,
    /// gator: a skipped suite runs nothing.
    #[serde(default)]
    skip: bool,
    #[serde(default)]
    tests: Vec<Test>,
}

#[derive(Debug, Deserialize)]
struct Test {
    #[serde(default)]
    name: String,
    #[serde(default)]
    template: String,
    #[serde(default)]
    constraint: String,
    /// ExpansionTemplates whose generated objects each case also reviews (gator's
    /// `expansion:`); without it nothing is expanded.
    #[serde(default)]
    expansion: String,
    #[serde(default)]
    invalid: bool,
    #[serde(default)]
    skip: bool,
    #[serde(default)]
    cases: Vec<Case>,
}

#[derive(Debug, Deserialize)]
struct Case {
    #[serde(default)]
    name: String,
    #[serde(default)]
    object: String,
    #[serde(default)]
    inventory: Vec<String>,
    #[serde(default)]
    skip: bool,
    #[serde(default)]
    assertions: Vec<Assertion>,
}

#[derive(Debug, Deserialize)]
struct Assertion {
    /// `yes` (default), `no`, or an exact count. YAML 1.2: `yes`/`no` are strings.
    violations: Option<Value>,
    message: Option<String>,
}

/// What an assertion expects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Expect {
    AtLeastOne,
    Exactly(u64),
}

/// An assertion's `violations:` that is not yes, no or a count.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpectError {
    #[error("violations: {0:?} is not yes, no or a number")]
    NotYesNoOrNumber(String),
    #[error("violations: {0} is not a count")]
    NotACount(serde_json::Number),
    #[error("violations: {0} is not yes, no or a number")]
    WrongType(Value),
}

/// A suite file that cannot be run at all.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SuiteError {
    /// `message` is the YAML decoder's.
    #[error("{suite}: invalid Suite: {message}")]
    Invalid { suite: String, message: String },
    #[error("{suite}: not a gator Suite (kind: Suite, apiVersion: test.gatekeeper.sh/v1alpha1)")]
    NotASuite { suite: String },
}

/// `violations:` as gator reads it (an int-or-string).
pub fn parse_expect(v: Option<&Value>) -> Result<Expect, ExpectError> {
    match v {
        None | Some(Value::Null) => Ok(Expect::AtLeastOne),
        Some(Value::String(s)) if s == "yes" => Ok(Expect::AtLeastOne),
        Some(Value::String(s)) if s == "no" => Ok(Expect::Exactly(0)),
        Some(Value::String(s)) => s.parse().map(Expect::Exactly).map_err(|_| ExpectError::NotYesNoOrNumber(s.clone())),
        Some(Value::Number(n)) => n.as_u64().map(Expect::Exactly).ok_or_else(|| ExpectError::NotACount(n.clone())),
        Some(other) => Err(ExpectError::WrongType(other.clone())),
    }
}

fn single_object(text: &str, path: &str) -> Result<Value, String> {
    let mut docs = split_documents(text, path).map_err(|e| e.to_string())?;
    if docs.len() != 1 {
        return Err(format!("{path}: must hold exactly one object, found {}", docs.len()));
    }
    Ok(docs.remove(0).value)
}

/// How suites are run: gator verify's options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RunOptions {
    pub limits: Limits,
    /// gator's `--enable-k8s-native-validation` (see [`PolicySet::k8s_native_validation`]).
    pub k8s_native_validation: bool,
}

impl Default for RunOptions {
    fn default() -> Self {
        let set = PolicySet::default();
        RunOptions { limits: set.limits, k8s_native_validation: set.k8s_native_validation }
    }
}

/// Runs one suite. An unreadable or malformed suite is an `Err`; everything else is a
/// per-case outcome.
pub fn run_suite(
    text: &str,
    source: &str,
    fs: &dyn SuiteFs,
    options: RunOptions,
) -> Result<Vec<CaseResult>, SuiteError> {
    let suite: Suite = serde_yaml::from_str(text)
        .map_err(|e| SuiteError::Invalid { suite: source.to_string(), message: e.to_string() })?;
    if suite.kind.as_deref() != Some("Suite")
        || !suite.api_version.as_deref().unwrap_or_default().starts_with("test.gatekeeper.sh/")
    {
        return Err(SuiteError::NotASuite { suite: source.to_string() });
    }
    let mut templates: BTreeMap<String, Result<Template, String>> = BTreeMap::new();
    let mut out = Vec::new();
    for test in &suite.tests {
        let result = |case: &str, outcome| CaseResult { test: test.name.clone(), case: case.to_string(), outcome };
        if suite.skip || test.skip {
            out.extend(test.cases.iter().map(|c| result(&c.name, Outcome::Skip)));
            continue;
        }
        let template = templates
            .entry(test.template.clone())
            .or_insert_with(|| {
                let text = fs.read_template(&test.template)?;
                let docs = split_documents(&text, &test.template).map_err(|e| e.to_string())?;
                let doc = docs.first().ok_or_else(|| format!("{}: no ConstraintTemplate", test.template))?;
                Template::from_value(&doc.value).map_err(|e| e.to_string())
            })
            .clone();
        let policy = template.and_then(|t| {
            let mut set = PolicySet {
                limits: options.limits,
                k8s_native_validation: options.k8s_native_validation,
                ..PolicySet::default()
            };
            set.add_template(t).map_err(|e| e.to_string())?;
            if !test.expansion.is_empty() {
                set.expansions = read_expansions(fs, &test.expansion)?;
            }
            let text = fs.read(&test.constraint)?;
            let value = single_object(&text, &test.constraint)?;
            Ok((set, value))
        });
        let policy = match policy {
            Ok((mut set, constraint)) => match (set.add_constraint_value(&constraint), test.invalid) {
                (Ok(()), false) => Ok(set),
                (Err(e), true) => {
                    out.push(result("(invalid constraint)", Outcome::Pass));
                    let _ = e;
                    continue;
                }
                (Ok(()), true) => Err("constraint was expected to be invalid but it validated".to_string()),
                (Err(e), false) => Err(e.to_string()),
            },
            Err(e) => Err(e),
        };
        let policy = match policy {
            Ok(p) => p,
            Err(e) => {
                if test.cases.is_empty() {
                    out.push(result("(test)", Outcome::Fail(e)));
                } else {
                    out.extend(test.cases.iter().map(|c| result(&c.name, Outcome::Fail(e.clone()))));
                }
                continue;
            }
        };
        for case in &test.cases {
            let outcome = if case.skip { Outcome::Skip } else { run_case(&policy, case, fs) };
            out.push(result(&case.name, outcome));
        }
    }
    Ok(out)
}

/// gator's `reader.ReadExpansions`: every object of the file must be an ExpansionTemplate.
fn read_expansions(fs: &dyn SuiteFs, path: &str) -> Result<Vec<ExpansionTemplate>, String> {
    let docs = split_documents(&fs.read(path)?, path).map_err(|e| e.to_string())?;
    if docs.is_empty() {
        return Err(format!("missing objects: path {path:?} defines no YAML objects"));
    }
    docs.iter()
        .map(|d| {
            if d.doc.kind != "ExpansionTemplate" || !d.api_version.starts_with("expansion.gatekeeper.sh/") {
                return Err(format!("not an Expansion Template: {path}: {}", d.doc));
            }
            ExpansionTemplate::from_value(&d.value).map_err(|e| e.to_string())
        })
        .collect()
}

fn run_case(policy: &PolicySet, case: &Case, fs: &dyn SuiteFs) -> Outcome {
    // gator's checkCase: a case must name an object and assert something.
    if case.object.is_empty() {
        return Outcome::Fail("invalid Case: must define object".to_string());
    }
    if case.assertions.is_empty() {
        return Outcome::Fail("invalid Case: assertions must be non-empty".to_string());
    }
    let run = || -> Result<Option<String>, String> {
        let object = single_object(&fs.read(&case.object)?, &case.object)?;
        let mut inventory = Vec::new();
        for path in &case.inventory {
            let docs = split_documents(&fs.read(path)?, path).map_err(|e| e.to_string())?;
            inventory.extend(docs.into_iter().map(|d| d.value));
        }
        let violations = evaluate(policy, &object, &Inventory::new(inventory)).map_err(|e| e.to_string())?;
        for (i, a) in case.assertions.iter().enumerate() {
            if let Some(problem) = check_assertion(a, &violations).map_err(|e| format!("assertion {}: {e}", i + 1))? {
                return Ok(Some(format!("assertion {}: {problem}", i + 1)));
            }
        }
        Ok(None)
    };
    match run() {
        Ok(None) => Outcome::Pass,
        Ok(Some(problem)) | Err(problem) => Outcome::Fail(problem),
    }
}

/// gator's `Assertion.Run`, with its words: `None` when the assertion holds.
fn check_assertion(a: &Assertion, violations: &[Violation]) -> Result<Option<String>, String> {
    let expect = parse_expect(a.violations.as_ref()).map_err(|e| e.to_string())?;
    let regex = match &a.message {
        Some(m) => {
            Some(regex::Regex::new(m).map_err(|e| format!("message contains invalid regular expression: {m:?}: {e}"))?)
        }
        None => None,
    };
    let count = violations.iter().filter(|v| regex.as_ref().is_none_or(|r| r.is_match(&v.msg))).count() as u64;
    let ok = match expect {
        Expect::AtLeastOne => count >= 1,
        Expect::Exactly(n) => count == n,
    };
    if ok {
        return Ok(None);
    }
    let containing = a.message.as_ref().map(|m| format!(" containing {}", go_quote(m))).unwrap_or_default();
    let want = match expect {
        Expect::AtLeastOne => "want at least 1".to_string(),
        // gator words a `no` and a `0` differently; both are Exactly(0) here.
        Expect::Exactly(0) if a.violations.as_ref().and_then(Value::as_str) == Some("no") => "want none".to_string(),
        Expect::Exactly(n) => format!("want exactly {n}"),
    };
    // Go's `%v` of a []string: `[a b]`.
    let messages: Vec<&str> = violations.iter().map(|v| v.msg.as_str()).collect();
    Ok(Some(format!(
        "unexpected number of violations: got {count} violations{containing} but {want}: got messages [{}]",
        messages.join(" ")
    )))
}

/// Go's `%q` of a string, for the printable ASCII and common escapes a regex holds.
fn go_quote(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}
