//! Gatekeeper compatibility: OPA Gatekeeper `ConstraintTemplate`s and their Constraints,
//! evaluated in the same no-IO core with the [regorus](https://crates.io/crates/regorus)
//! Rego interpreter.
//!
//! - [`PolicySet::parse`] reads templates (`templates.gatekeeper.sh` v1/v1beta1/v1alpha1),
//!   Constraints (`constraints.gatekeeper.sh`) and ExpansionTemplates
//!   (`expansion.gatekeeper.sh`) from YAML/JSON text;
//! - [`evaluate`] reviews one object (plain, an `AdmissionReview`, or an AdmissionRequest)
//!   against every matching constraint with Gatekeeper's input
//!   (`input.review`, `input.parameters`, `data.inventory`) and returns the
//!   `violation[{"msg", "details"}]` results, expanded workloads included;
//! - [`suite`] runs gator `Suite` files (`placement verify`).
//!
//! Evaluation is bounded: input sizes are capped by [`crate::input::documents`], Rego sources by
//! [`MAX_REGO_BYTES`], and each rule evaluation by a wall-clock limit natively and a work
//! budget on wasm32 ([`Limits`]), both checked cooperatively by regorus inside its loops.

#[cfg(feature = "gatekeeper-cel")]
mod cel;
mod constraint;
mod expansion;
mod inventory;
mod matching;
mod schema;
pub mod suite;
mod template;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::fmt;
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Value};

pub use constraint::{Constraint, EnforcementAction};
pub use expansion::{default_expansion_templates, ExpansionTemplate};
pub use inventory::{Inventory, InventoryError, MAX_LISTED_OBJECTS};
pub use matching::{glob_match, Match, MatchError};
pub use template::{Compile, Engine, EvalError, Template};

use crate::input::documents::split_documents;

/// Largest Rego source (one template's rego plus libs) accepted.
pub const MAX_REGO_BYTES: usize = 1024 * 1024;
/// Violations kept per constraint and object; a template that yields more is cut there.
pub const MAX_VIOLATIONS: usize = 1_000;

/// Bounds on one rule evaluation.
///
/// Both use regorus' cooperative execution timer, which counts work units in the
/// interpreter's loops (statements, iterations, rule and function bodies) and reads a clock
/// every [`WORK_CHECK_INTERVAL`] units. Natively the clock is the real one and `time` applies.
/// On wasm32-unknown-unknown there is no clock (`std::time::Instant` panics there), so
/// regorus is built without `std` and Placement installs a counting "clock" that advances one
/// tick per read: `work` then caps the number of reads, that is the work units of one
/// evaluation, deterministically. A single builtin call (`numbers.range`, `concat` over a
/// huge array, a regex) is one unit however long it runs; the input caps bound those.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// Wall-clock limit per constraint evaluation (native targets). `None` disables it.
    pub time: Option<Duration>,
    /// Work budget per constraint evaluation, in clock reads of [`WORK_CHECK_INTERVAL`] work
    /// units each; used only where there is no wall clock (wasm32). `None` disables it.
    pub work: Option<u64>,
}

/// Work units between two reads of the execution timer's clock.
pub const WORK_CHECK_INTERVAL: u32 = 32;

/// The default work budget on wasm32: [`WORK_CHECK_INTERVAL`] x 50,000 = 1.6 million work
/// units per constraint evaluation, so that a hostile template is stopped well within
/// policy-server's 2 s default timeout (Placement's target: 500 ms, even on a busy machine).
/// The earlier 32 million took a hostile template 0.9-3.2 s in the wasmtime host on a busy
/// 2-core machine, and 3.2 million took 530 ms at a load average of 12
/// (`hostile_template_is_stopped_by_the_work_budget`, which reports the time); the
/// library's templates take about 0.3 ms per evaluation on a typical Pod there, about 1/500
/// of the budget's time.
pub const DEFAULT_WORK_BUDGET: u64 = 50_000;

/// How much one Rego evaluation may grow the heap on wasm32: 64 MiB over what is live when it
/// starts. Checked at every read of the counting clock (every [`WORK_CHECK_INTERVAL`] work
/// units) against the module's live heap bytes, which its allocator counts and hands over
/// with [`set_heap_gauge`]; natively there is no such limit (the wall-clock one applies).
pub const HEAP_LIMIT_PER_EVALUATION: usize = 64 * 1024 * 1024;

static HEAP_GAUGE: std::sync::OnceLock<fn() -> usize> = std::sync::OnceLock::new();

/// Gives the Rego evaluations a reading of the live heap bytes (the policy module's counting
/// allocator), which turns on [`HEAP_LIMIT_PER_EVALUATION`] on wasm32. The first gauge stays.
pub fn set_heap_gauge(gauge: fn() -> usize) {
    let _ = HEAP_GAUGE.set(gauge);
}

#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
fn heap_gauge() -> Option<fn() -> usize> {
    HEAP_GAUGE.get().copied()
}

impl Default for Limits {
    fn default() -> Self {
        if cfg!(target_arch = "wasm32") {
            Limits { time: None, work: Some(DEFAULT_WORK_BUDGET) }
        } else {
            Limits { time: Some(Duration::from_secs(2)), work: None }
        }
    }
}

/// Everything that can go wrong, each naming the template or constraint it is about.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum GatekeeperError {
    #[error("{0}")]
    Input(String),
    #[error("ConstraintTemplate {template}: {message}")]
    Template { template: String, message: String },
    #[error("{kind} {constraint}: {message}")]
    Constraint { kind: String, constraint: String, message: String },
    #[error("{kind} {constraint} (template {template}): evaluation failed: {error}")]
    Eval { kind: String, constraint: String, template: String, error: EvalError },
}

impl GatekeeperError {
    /// Whether an evaluation was stopped by its [`Limits`] (time limit or work budget).
    pub fn is_limit_exceeded(&self) -> bool {
        matches!(self, GatekeeperError::Eval { error, .. } if error.is_limit_exceeded())
    }
}

/// One violation, as Gatekeeper reports it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Violation {
    /// The constraint's `metadata.name`.
    pub constraint: String,
    /// The constraint's kind (the template's CRD kind).
    pub kind: String,
    pub enforcement_action: EnforcementAction,
    /// The `msg`, prefixed `[Implied by <expansion-template>] ` for expanded workloads.
    pub msg: String,
    #[serde(skip_serializing_if = "Value::is_null")]
    pub details: Value,
}

impl fmt::Display for Violation {
    /// Gatekeeper's admission wording: `[constraint-name] message`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}] {}", self.constraint, self.msg)
    }
}

/// Templates, constraints and expansion templates, ready to evaluate.
#[derive(Debug, Clone)]
pub struct PolicySet {
    /// By CRD kind.
    pub templates: BTreeMap<String, Template>,
    pub constraints: Vec<Constraint>,
    pub expansions: Vec<ExpansionTemplate>,
    pub limits: Limits,
    /// Things ignored on purpose (CEL blocks, unknown kinds), for the user to see.
    pub notes: Vec<String>,
    /// gator's `--enable-k8s-native-validation`: evaluate a template's CEL code when it has
    /// some (gator's default, and this one's in builds with the `gatekeeper-cel` feature),
    /// else its Rego.
    pub k8s_native_validation: bool,
}

// Not derived: `k8s_native_validation` is true in builds with the `gatekeeper-cel` feature.
#[allow(clippy::derivable_impls)]
impl Default for PolicySet {
    fn default() -> Self {
        PolicySet {
            templates: BTreeMap::new(),
            constraints: Vec::new(),
            expansions: Vec::new(),
            limits: Limits::default(),
            notes: Vec::new(),
            k8s_native_validation: cfg!(feature = "gatekeeper-cel"),
        }
    }
}

impl PolicySet {
    /// Reads every ConstraintTemplate, Constraint and ExpansionTemplate in `text`
    /// (multi-document YAML or JSON, `List`s expanded). Templates are compiled first, so
    /// constraints may come before their template. Other kinds are noted and skipped.
    pub fn parse(text: &str, source: &str) -> Result<PolicySet, GatekeeperError> {
        let mut set = PolicySet::default();
        set.add_text(text, source)?;
        Ok(set)
    }

    /// Adds the documents of another file (see [`PolicySet::parse`]).
    pub fn add_text(&mut self, text: &str, source: &str) -> Result<(), GatekeeperError> {
        let docs = split_documents(text, source).map_err(|e| GatekeeperError::Input(e.to_string()))?;
        let mut constraints = Vec::new();
        for doc in docs {
            let group = doc.api_version.split('/').next().unwrap_or_default();
            match (group, doc.doc.kind.as_str()) {
                ("templates.gatekeeper.sh", "ConstraintTemplate") => {
                    self.add_template(Template::from_value(&doc.value)?)?;
                }
                ("expansion.gatekeeper.sh", "ExpansionTemplate") => {
                    self.expansions.push(ExpansionTemplate::from_value(&doc.value)?);
                }
                ("constraints.gatekeeper.sh", _) => constraints.push(doc.value),
                _ => self.notes.push(format!("{}: not a Gatekeeper object, ignored", doc.doc)),
            }
        }
        for value in constraints {
            self.add_constraint_value(&value)?;
        }
        Ok(())
    }

    /// Adds a compiled template; a second template for the same kind, or one without code
    /// for the engine [`PolicySet::k8s_native_validation`] selects, is an error.
    pub fn add_template(&mut self, template: Template) -> Result<(), GatekeeperError> {
        if template.engine(self.k8s_native_validation).is_none() {
            return Err(GatekeeperError::Template {
                template: template.name.clone(),
                message: "no Rego code, and K8sNativeValidation (CEL) is disabled".to_string(),
            });
        }
        if let Some(old) = self.templates.get(&template.kind) {
            if old.name != template.name {
                return Err(GatekeeperError::Template {
                    template: template.name.clone(),
                    message: format!("kind {} is already defined by template {}", template.kind, old.name),
                });
            }
        }
        self.notes.extend(template.notes.iter().map(|n| format!("ConstraintTemplate {}: {n}", template.name)));
        self.templates.insert(template.kind.clone(), template);
        Ok(())
    }

    /// Parses a Constraint and validates its parameters against its template's schema.
    pub fn add_constraint_value(&mut self, value: &Value) -> Result<(), GatekeeperError> {
        let constraint = Constraint::from_value(value)?;
        let Some(template) = self.templates.get(&constraint.kind) else {
            return Err(GatekeeperError::Constraint {
                kind: constraint.kind.clone(),
                constraint: constraint.name.clone(),
                message: format!("no ConstraintTemplate defines kind {}", constraint.kind),
            });
        };
        template.validate_parameters(&constraint)?;
        self.constraints.push(constraint);
        Ok(())
    }

    /// Adds Gatekeeper's common expansion templates (see [`default_expansion_templates`]),
    /// unless one of the same name is already there.
    pub fn with_default_expansions(mut self) -> Self {
        for e in default_expansion_templates() {
            if !self.expansions.iter().any(|x| x.name == e.name) {
                self.expansions.push(e);
            }
        }
        self
    }

    pub fn is_empty(&self) -> bool {
        self.constraints.is_empty()
    }
}

/// Builds Gatekeeper's `input.review` for `object`: an `AdmissionReview` gives its
/// `request`, an object that already looks like an AdmissionRequest (`uid` or `operation`
/// and `object`) is used as is, and a plain object becomes `{kind, name, namespace, object}`.
/// Missing `kind`/`name`/`namespace` in a request are filled from its object.
pub fn review_for(object: &Value) -> Value {
    let mut review = if object.get("kind").and_then(Value::as_str) == Some("AdmissionReview") {
        object.get("request").cloned().unwrap_or_else(|| json!({}))
    } else if object.get("object").is_some_and(Value::is_object)
        && (object.get("operation").is_some() || object.get("uid").is_some())
    {
        object.clone()
    } else {
        json!({ "object": object })
    };
    let Some(map) = review.as_object_mut() else { return review };
    let obj = map.get("object").or_else(|| map.get("oldObject")).cloned().unwrap_or(Value::Null);
    if !map.get("kind").is_some_and(Value::is_object) {
        map.insert("kind".into(), gvk_of(&obj));
    }
    let meta = |field: &str| obj.pointer(&format!("/metadata/{field}")).and_then(Value::as_str).map(str::to_string);
    if !map.contains_key("name") {
        if let Some(name) = meta("name") {
            map.insert("name".into(), Value::from(name));
        }
    }
    if !map.contains_key("namespace") {
        if let Some(ns) = meta("namespace") {
            map.insert("namespace".into(), Value::from(ns));
        }
    }
    review
}

/// `{group, version, kind}` of an object's `apiVersion`/`kind`.
pub fn gvk_of(obj: &Value) -> Value {
    let api_version = obj.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
    let (group, version) = api_version.split_once('/').unwrap_or(("", api_version));
    json!({
        "group": group,
        "version": version,
        "kind": obj.get("kind").and_then(Value::as_str).unwrap_or_default(),
    })
}

/// Reviews `object` (plain object, `AdmissionReview` or AdmissionRequest, see
/// [`review_for`]) against every constraint of `policy` that matches it, and against the
/// Pods its expansion templates generate. `inventory` is `data.inventory` and the source of
/// Namespaces for `namespaceSelector`. Violations come in constraint order, then message.
///
/// This is the API the Kubewarden policy and the CLI call.
pub fn evaluate(policy: &PolicySet, object: &Value, inventory: &Inventory) -> Result<Vec<Violation>, GatekeeperError> {
    let review = review_for(object);
    let mut out = evaluate_review(policy, &review, inventory, matching::Source::Original, None)?;
    for (name, action, generated) in expansion::expand(&policy.expansions, &review) {
        let mut implied = evaluate_review(policy, &generated, inventory, matching::Source::Generated, Some(&name))?;
        if let Some(action) = action {
            implied.iter_mut().for_each(|v| v.enforcement_action = action);
        }
        out.extend(implied);
    }
    Ok(out)
}

/// Whether some constraint of `policy` may match `object` (as [`evaluate`] takes it) or a Pod
/// its expansion templates generate, whatever `data.inventory` holds (a `namespaceSelector`
/// that needs a Namespace counts as matching). When not, [`evaluate`] finds no violation with
/// any inventory, so a caller need not build one (the Kubewarden policy lists nothing).
pub fn may_match(policy: &PolicySet, object: &Value) -> bool {
    let review = review_for(object);
    policy.constraints.iter().any(|c| c.matches.may_match(&review, matching::Source::Original))
        || expansion::expand(&policy.expansions, &review).iter().any(|(_, _, generated)| {
            policy.constraints.iter().any(|c| c.matches.may_match(generated, matching::Source::Generated))
        })
}

/// Reviews each workload of a simulation report: the workload's object among `objects` (the
/// input documents as JSON; a missing namespace is the report's `default`) against `policy`,
/// its violations written into the report (`simulate --policy`).
pub fn review_report(
    report: &mut crate::cluster::simulate::Report,
    policy: &PolicySet,
    objects: &[Value],
) -> Result<(), GatekeeperError> {
    let inventory = Inventory::new(objects.iter().cloned());
    for w in &mut report.workloads {
        let found = objects.iter().find(|o| {
            let s = |p: &str| o.pointer(p).and_then(Value::as_str);
            s("/kind") == Some(w.kind)
                && s("/metadata/name") == Some(w.name.as_str())
                && crate::model::namespace_or_default(s("/metadata/namespace")) == w.namespace
        });
        let Some(object) = found else { continue };
        let mut object = object.clone();
        if object.pointer("/metadata/namespace").is_none() {
            if let Some(meta) = object.get_mut("metadata").and_then(Value::as_object_mut) {
                meta.insert("namespace".into(), w.namespace.clone().into());
            }
        }
        w.violations = evaluate(policy, &object, &inventory)?;
    }
    Ok(())
}

fn evaluate_review(
    policy: &PolicySet,
    review: &Value,
    inventory: &Inventory,
    source: matching::Source,
    implied_by: Option<&str>,
) -> Result<Vec<Violation>, GatekeeperError> {
    let mut out = Vec::new();
    let data = inventory.data();
    for constraint in &policy.constraints {
        if !constraint.matches.matches(review, inventory, source) {
            continue;
        }
        let Some(template) = policy.templates.get(&constraint.kind) else { continue };
        let Some(engine) = template.engine(policy.k8s_native_validation) else { continue };
        if engine == Engine::Rego {
            template.compile()?;
        }
        let results =
            template.violations(review, &constraint.parameters, data, policy.limits, engine).map_err(|error| {
                GatekeeperError::Eval {
                    kind: constraint.kind.clone(),
                    constraint: constraint.name.clone(),
                    template: template.name.clone(),
                    error,
                }
            })?;
        for (msg, details) in results {
            let msg = match implied_by {
                Some(name) => format!("[Implied by {name}] {msg}"),
                None => msg,
            };
            out.push(Violation {
                constraint: constraint.name.clone(),
                kind: constraint.kind.clone(),
                enforcement_action: constraint.enforcement_action,
                msg,
                details,
            });
        }
    }
    Ok(out)
}
