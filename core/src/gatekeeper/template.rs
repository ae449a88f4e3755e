//! ConstraintTemplates: parsing, Rego compilation with regorus, and evaluation of the
//! `violation` rule.

use std::num::NonZeroU32;
use std::sync::OnceLock;

use serde_json::Value;

use super::constraint::Constraint;
use super::{
    schema, GatekeeperError, Limits, HEAP_LIMIT_PER_EVALUATION, MAX_REGO_BYTES, MAX_VIOLATIONS, WORK_CHECK_INTERVAL,
};

/// The admission target, the only one Gatekeeper's library uses.
pub const ADMISSION_TARGET: &str = "admission.k8s.gatekeeper.sh";

/// A compiled ConstraintTemplate.
#[derive(Debug, Clone)]
pub struct Template {
    /// `metadata.name`.
    pub name: String,
    /// `spec.crd.spec.names.kind`: the kind of its constraints.
    pub kind: String,
    /// `spec.crd.spec.validation.openAPIV3Schema`, the schema of `spec.parameters`.
    pub schema: Option<Value>,
    /// The Rego code, if the template has some.
    rego: Option<RegoCode>,
    /// The K8sNativeValidation (CEL) code, if the template has some.
    #[cfg(feature = "gatekeeper-cel")]
    cel: Option<super::cel::CelCode>,
    /// What was ignored on purpose (CEL code blocks in a build without CEL, other targets).
    pub notes: Vec<String>,
}

/// A template's Rego: its source, and the engine compiled from it, at once
/// ([`Template::from_value`]) or on first use ([`Template::from_value_deferred`]).
#[derive(Debug, Clone)]
struct RegoCode {
    source: RegoSource,
    compiled: OnceLock<Result<CompiledRego, GatekeeperError>>,
}

#[derive(Debug, Clone)]
struct RegoSource {
    /// The template's `metadata.name`.
    template: String,
    rego: String,
    libs: Vec<String>,
    /// `version: v1` (Rego v1 syntax); Rego v0 otherwise.
    v1: bool,
    /// Where the code is in the template (`spec.targets[0].rego`).
    location: String,
}

#[derive(Debug, Clone)]
struct CompiledRego {
    /// `data.<package>.violation`.
    rule: String,
    /// Prepared engine (modules analysed); cloned for each evaluation.
    engine: regorus::Engine,
}

/// When a template's Rego is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compile {
    /// While the template is read: every error is reported then.
    Now,
    /// On the first evaluation that needs it ([`Template::compile`]): a policy instance that
    /// lives for one request (Kubewarden's policy-server makes a fresh one per request)
    /// compiles only the templates whose constraints match that request.
    WhenUsed,
}

/// The code of a template that is evaluated: gator's drivers, by their engine names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Engine {
    Rego,
    /// CEL, Kubernetes ValidatingAdmissionPolicy style.
    K8sNativeValidation,
}

impl Engine {
    /// The language of the engine's code, for messages: `Rego` or `CEL`.
    pub fn language(self) -> &'static str {
        match self {
            Engine::Rego => "Rego",
            Engine::K8sNativeValidation => "CEL",
        }
    }
}

impl std::fmt::Display for Engine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Engine::Rego => "Rego",
            Engine::K8sNativeValidation => "K8sNativeValidation",
        })
    }
}

/// Why evaluating a template's `violation` rule failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EvalError {
    /// The wall-clock [`Limits::time`] stopped the evaluation; `message` is the engine's own.
    #[error("{language} evaluation exceeded its time limit and was stopped: {message}", language = .engine.language())]
    TimeLimitExceeded { engine: Engine, limit: std::time::Duration, message: String },
    /// The [`Limits::work`] budget (the counting clock, wasm32) stopped the evaluation.
    #[error("{language} evaluation exceeded its work budget ({work_units} work units) and was stopped", language = .engine.language())]
    WorkBudgetExceeded { engine: Engine, work_units: u64 },
    /// The evaluation's heap grew by more than [`HEAP_LIMIT_PER_EVALUATION`] (wasm32, where
    /// the module's allocator counts its live bytes: [`super::set_heap_gauge`]).
    #[error("{language} evaluation exceeded its memory limit ({limit_bytes} bytes of heap) and was stopped", language = .engine.language())]
    MemoryLimitExceeded { engine: Engine, limit_bytes: usize },
    /// Any other error regorus reports (unsafe variables, builtin errors, ...).
    #[error("{0}")]
    Rego(String),
    /// The inventory could not be added as `data`, or the result could not be read as JSON.
    #[error("{0}")]
    Data(String),
    #[error("`violation` must be a set of objects, found {0}")]
    NotASet(Box<Value>),
    #[error("violation {0} has no `msg`")]
    NoMsg(Box<Value>),
    #[error("the template has no {0} code")]
    NoCode(Engine),
}

impl EvalError {
    pub fn is_limit_exceeded(&self) -> bool {
        matches!(
            self,
            EvalError::TimeLimitExceeded { .. }
                | EvalError::WorkBudgetExceeded { .. }
                | EvalError::MemoryLimitExceeded { .. }
        )
    }

    /// Classifies a regorus error by its type: the execution timer reports a
    /// [`regorus::LimitError::TimeLimitExceeded`], which is the wall-clock limit natively and the
    /// work budget where Placement's counting clock is the time source (`budget`).
    fn from_regorus(e: &(dyn std::error::Error + 'static), budget: Option<u64>) -> EvalError {
        let chain = std::iter::successors(Some(e), |e| e.source());
        let limit = chain.into_iter().find_map(|c| match c.downcast_ref::<regorus::LimitError>() {
            Some(regorus::LimitError::TimeLimitExceeded { limit, .. }) => Some(*limit),
            _ => None,
        });
        match (limit, budget) {
            (Some(_), Some(_)) if work_clock::heap_exceeded() => {
                EvalError::MemoryLimitExceeded { engine: Engine::Rego, limit_bytes: HEAP_LIMIT_PER_EVALUATION }
            }
            (Some(_), Some(work)) => EvalError::WorkBudgetExceeded {
                engine: Engine::Rego,
                work_units: u64::from(WORK_CHECK_INTERVAL).saturating_mul(work),
            },
            (Some(limit), None) => EvalError::TimeLimitExceeded { engine: Engine::Rego, limit, message: e.to_string() },
            (None, _) => EvalError::Rego(e.to_string().trim().to_string()),
        }
    }
}

fn err(template: &str, message: impl Into<String>) -> GatekeeperError {
    GatekeeperError::Template { template: template.to_string(), message: message.into() }
}

impl Template {
    /// Parses and compiles one ConstraintTemplate object.
    pub fn from_value(value: &Value) -> Result<Template, GatekeeperError> {
        Self::read(value, Compile::Now)
    }

    /// Parses one ConstraintTemplate object and checks everything but its Rego, which is
    /// compiled on first use ([`Template::compile`]); a Rego error is then reported there.
    pub fn from_value_deferred(value: &Value) -> Result<Template, GatekeeperError> {
        Self::read(value, Compile::WhenUsed)
    }

    /// Compiles the template's Rego if it was deferred and not compiled yet; the error is the
    /// one [`Template::from_value`] would have given. Nothing to do for CEL-only templates.
    pub fn compile(&self) -> Result<(), GatekeeperError> {
        match &self.rego {
            Some(rego) => rego.compiled().map(|_| ()),
            None => Ok(()),
        }
    }

    fn read(value: &Value, when: Compile) -> Result<Template, GatekeeperError> {
        let name = value.pointer("/metadata/name").and_then(Value::as_str).unwrap_or_default().to_string();
        if name.is_empty() {
            return Err(err("(unnamed)", "metadata.name is required"));
        }
        let api_version = value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
        if !matches!(
            api_version,
            "templates.gatekeeper.sh/v1" | "templates.gatekeeper.sh/v1beta1" | "templates.gatekeeper.sh/v1alpha1"
        ) {
            return Err(err(
                &name,
                format!("apiVersion {api_version:?} is not templates.gatekeeper.sh/v1, v1beta1 or v1alpha1"),
            ));
        }
        let kind = value.pointer("/spec/crd/spec/names/kind").and_then(Value::as_str).unwrap_or_default().to_string();
        if kind.is_empty() {
            return Err(err(&name, "spec.crd.spec.names.kind is required"));
        }
        let schema = value.pointer("/spec/crd/spec/validation/openAPIV3Schema").cloned();
        if let Some(s) = &schema {
            schema::check_schema(s, "spec.crd.spec.validation.openAPIV3Schema")
                .map_err(|e| err(&name, e.to_string()))?;
        }
        let targets = value.pointer("/spec/targets").and_then(Value::as_array).cloned().unwrap_or_default();
        let mut notes = Vec::new();
        let mut code: Option<(String, Vec<String>, bool, String)> = None; // rego, libs, v1, where
        #[cfg(feature = "gatekeeper-cel")]
        let mut cel = None;
        for (i, target) in targets.iter().enumerate() {
            let target_name = target.get("target").and_then(Value::as_str).unwrap_or_default();
            if target_name != ADMISSION_TARGET {
                notes.push(format!(
                    "spec.targets[{i}]: target {target_name:?} ignored (only {ADMISSION_TARGET} is evaluated)"
                ));
                continue;
            }
            let libs = |v: Option<&Value>| -> Vec<String> {
                v.and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect())
                    .unwrap_or_default()
            };
            // `code: [{engine: Rego, source: {rego, libs, version}}]` takes precedence.
            for (j, block) in target.get("code").and_then(Value::as_array).into_iter().flatten().enumerate() {
                let engine = block.get("engine").and_then(Value::as_str).unwrap_or_default();
                let source = block.get("source");
                match engine {
                    "Rego" => {
                        let (rego, libs, v1) = match source {
                            Some(Value::String(s)) => (s.clone(), Vec::new(), false),
                            Some(obj) => (
                                obj.get("rego").and_then(Value::as_str).unwrap_or_default().to_string(),
                                libs(obj.get("libs")),
                                obj.get("version").and_then(Value::as_str) == Some("v1"),
                            ),
                            None => (String::new(), Vec::new(), false),
                        };
                        code = Some((rego, libs, v1, format!("spec.targets[{i}].code[{j}]")));
                    }
                    #[cfg(feature = "gatekeeper-cel")]
                    "K8sNativeValidation" => {
                        let location = format!("spec.targets[{i}].code[{j}]");
                        let source = source.cloned().unwrap_or(Value::Null);
                        cel = Some(super::cel::CelCode::compile(&source, &location).map_err(|e| err(&name, e))?);
                    }
                    #[cfg(not(feature = "gatekeeper-cel"))]
                    "K8sNativeValidation" => notes.push(format!(
                        "spec.targets[{i}].code[{j}]: engine K8sNativeValidation (CEL) is not evaluated in this build; the Rego code is"
                    )),
                    other => notes.push(format!("spec.targets[{i}].code[{j}]: engine {other:?} ignored")),
                }
            }
            if code.is_none() {
                if let Some(rego) = target.get("rego").and_then(Value::as_str) {
                    code = Some((rego.to_string(), libs(target.get("libs")), false, format!("spec.targets[{i}].rego")));
                }
            }
        }
        #[cfg(feature = "gatekeeper-cel")]
        let has_cel = cel.is_some();
        #[cfg(not(feature = "gatekeeper-cel"))]
        let has_cel = false;
        let rego = match code {
            Some((rego, libs, v1, location)) => {
                let code = RegoCode::new(RegoSource { template: name.clone(), rego, libs, v1, location })?;
                if when == Compile::Now {
                    code.compiled()?;
                }
                Some(code)
            }
            None if has_cel => None,
            None if cfg!(feature = "gatekeeper-cel") => {
                return Err(err(&name, format!("no Rego or K8sNativeValidation code for target {ADMISSION_TARGET}")))
            }
            None => {
                return Err(err(
                    &name,
                    format!(
                        "no Rego code for target {ADMISSION_TARGET} (this build does not evaluate CEL-only templates)"
                    ),
                ))
            }
        };
        Ok(Template {
            name,
            kind,
            schema,
            rego,
            #[cfg(feature = "gatekeeper-cel")]
            cel,
            notes,
        })
    }

    /// The engine gator would use: K8sNativeValidation when `prefer_cel` (gator's
    /// `--enable-k8s-native-validation`, on by default) and the template has CEL code, else
    /// Rego; `None` when the template has no code for that choice.
    pub fn engine(&self, prefer_cel: bool) -> Option<Engine> {
        #[cfg(feature = "gatekeeper-cel")]
        if prefer_cel && self.cel.is_some() {
            return Some(Engine::K8sNativeValidation);
        }
        let _ = prefer_cel;
        self.rego.as_ref().map(|_| Engine::Rego)
    }
}

impl RegoCode {
    /// The source, its size checked (the rest waits for [`RegoCode::compiled`]).
    fn new(source: RegoSource) -> Result<Self, GatekeeperError> {
        let total = source.rego.len() + source.libs.iter().map(String::len).sum::<usize>();
        if total > MAX_REGO_BYTES {
            return Err(err(
                &source.template,
                format!("Rego code is {total} bytes, over the {MAX_REGO_BYTES}-byte limit"),
            ));
        }
        Ok(RegoCode { source, compiled: OnceLock::new() })
    }

    /// The compiled code, compiling it on first use.
    fn compiled(&self) -> Result<&CompiledRego, GatekeeperError> {
        self.compiled.get_or_init(|| self.source.compile()).as_ref().map_err(Clone::clone)
    }
}

impl RegoSource {
    /// Compiles the Rego (`rego` and its `libs`) with regorus.
    fn compile(&self) -> Result<CompiledRego, GatekeeperError> {
        let RegoSource { template: name, rego, libs, v1, location } = self;
        let mut engine = regorus::Engine::new();
        engine.set_rego_v0(!v1);
        let path = format!("{name}:{location}");
        let package =
            engine.add_policy(path.clone(), rego.clone()).map_err(|e| err(name, rego_error(&e.to_string())))?;
        for (k, lib) in libs.iter().enumerate() {
            engine
                .add_policy(format!("{name}:{location}.libs[{k}]"), lib.clone())
                .map_err(|e| err(name, rego_error(&e.to_string())))?;
        }
        if !engine.has_declared_rule_rooted_at(&path, "violation").unwrap_or(false) {
            return Err(err(
                name,
                format!(
                    "{location}: package {} has no `violation` rule (Gatekeeper collects violation[{{\"msg\": msg, \"details\": details}}])",
                    package.trim_start_matches("data.")
                ),
            ));
        }
        // Analyse the modules once (unsafe variables, unknown functions, ...) without
        // evaluating any rule (a hostile rule must not run unbounded here); each evaluation
        // clones the prepared engine.
        engine.set_input(regorus::Value::new_object());
        engine.eval_query("true".to_string(), false).map_err(|e| err(name, rego_error(&e.to_string())))?;
        Ok(CompiledRego { rule: format!("{package}.violation"), engine })
    }
}

impl Template {
    /// Validates a constraint's `spec.parameters` against the template's schema.
    pub fn validate_parameters(&self, constraint: &Constraint) -> Result<(), GatekeeperError> {
        let Some(schema) = &self.schema else { return Ok(()) };
        if constraint.parameters.is_null() {
            return Ok(());
        }
        schema::validate(schema, &constraint.parameters, "spec.parameters").map_err(|message| {
            GatekeeperError::Constraint {
                kind: constraint.kind.clone(),
                constraint: constraint.name.clone(),
                message: format!("{message} (schema of ConstraintTemplate {})", self.name),
            }
        })
    }

    /// Evaluates the template's code for `engine` (see [`Template::engine`]) on one review:
    /// Rego's `violation` with `input = {review, parameters}` and `data` (the inventory
    /// document, `{"inventory": ...}`, or `None`), its `(msg, details)` pairs sorted as
    /// Gatekeeper's set is; or the CEL validations' messages (no details), in order.
    pub fn violations(
        &self,
        review: &Value,
        parameters: &Value,
        data: Option<&regorus::Value>,
        limits: Limits,
        engine: Engine,
    ) -> Result<Vec<(String, Value)>, EvalError> {
        match engine {
            Engine::Rego => {
                let rego = self.rego.as_ref().ok_or(EvalError::NoCode(Engine::Rego))?;
                // Compiled by now when read with `from_value`; a deferred template is compiled
                // by `evaluate` first (`Template::compile`), which reports its error as such.
                let compiled = rego.compiled().map_err(|e| EvalError::Rego(e.to_string()))?;
                compiled.violations(review, parameters, data, limits)
            }
            #[cfg(feature = "gatekeeper-cel")]
            Engine::K8sNativeValidation => {
                let cel = self.cel.as_ref().ok_or(EvalError::NoCode(Engine::K8sNativeValidation))?;
                let messages = cel.violations(review, parameters, limits)?;
                Ok(messages.into_iter().take(MAX_VIOLATIONS).map(|m| (m, Value::Null)).collect())
            }
            #[cfg(not(feature = "gatekeeper-cel"))]
            Engine::K8sNativeValidation => Err(EvalError::NoCode(Engine::K8sNativeValidation)),
        }
    }
}

impl CompiledRego {
    fn violations(
        &self,
        review: &Value,
        parameters: &Value,
        data: Option<&regorus::Value>,
        limits: Limits,
    ) -> Result<Vec<(String, Value)>, EvalError> {
        let mut engine = self.engine.clone();
        let interval = NonZeroU32::new(WORK_CHECK_INTERVAL).unwrap_or(NonZeroU32::MIN);
        let mut budget = None;
        if let Some(limit) = limits.time.filter(|_| !work_clock::INSTALLED) {
            engine.set_execution_timer_config(regorus::utils::limits::ExecutionTimerConfig {
                limit,
                check_interval: interval,
            });
        } else if let Some(work) = limits.work.filter(|_| work_clock::install()) {
            // One tick of the counting clock is one nanosecond of "elapsed" time.
            engine.set_execution_timer_config(regorus::utils::limits::ExecutionTimerConfig {
                limit: std::time::Duration::from_nanos(work),
                check_interval: interval,
            });
            budget = Some(work);
            work_clock::start_heap_allowance(HEAP_LIMIT_PER_EVALUATION);
        }
        let parameters = if parameters.is_null() { Value::Object(Default::default()) } else { parameters.clone() };
        let input = serde_json::json!({ "review": review, "parameters": parameters });
        engine.set_input(regorus::Value::from(input));
        if let Some(data) = data {
            engine.add_data(data.clone()).map_err(|e| EvalError::Data(e.to_string()))?;
        }
        let result = engine.eval_rule(self.rule.clone()).map_err(|e| EvalError::from_regorus(&*e, budget))?;
        if result == regorus::Value::Undefined {
            return Ok(Vec::new());
        }
        let json = serde_json::to_value(&result).map_err(|e| EvalError::Data(e.to_string()))?;
        let items = match json {
            Value::Array(items) => items,
            Value::Null => Vec::new(),
            other => return Err(EvalError::NotASet(Box::new(other))),
        };
        let mut out = Vec::new();
        for item in items.into_iter().take(MAX_VIOLATIONS) {
            let msg = match item.get("msg") {
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
                None => return Err(EvalError::NoMsg(Box::new(item))),
            };
            let details = item.get("details").cloned().unwrap_or(Value::Null);
            out.push((msg, details));
        }
        Ok(out)
    }
}

/// regorus' messages, trimmed. Compiling sets no execution timer, so no limit applies there.
fn rego_error(message: &str) -> String {
    message.trim().to_string()
}

/// The counting clock behind [`Limits::work`] (wasm32 only, where regorus is built without
/// `std` and so accepts a custom time source): every read advances it by one nanosecond, so
/// a time limit of N nanoseconds stops an evaluation after N reads, that is after
/// N x [`WORK_CHECK_INTERVAL`] work units. The instance is single-threaded; the counter only
/// grows (a `u64` of nanoseconds lasts 584 years of reads).
#[cfg(target_arch = "wasm32")]
mod work_clock {
    use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
    use std::time::Duration;

    use regorus::utils::limits::{set_time_source, TimeSource};

    pub const INSTALLED: bool = true;

    struct Counter(AtomicU64);

    impl TimeSource for Counter {
        fn now(&self) -> Option<Duration> {
            // Over the evaluation's heap allowance: a reading past any budget stops it (the
            // error is then told apart by `heap_exceeded`).
            if let Some(gauge) = super::super::heap_gauge() {
                if gauge() > HEAP_CEILING.load(Ordering::Relaxed) {
                    HEAP_EXCEEDED.store(true, Ordering::Relaxed);
                    return Some(Duration::MAX);
                }
            }
            Some(Duration::from_nanos(self.0.fetch_add(1, Ordering::Relaxed)))
        }
    }

    /// The live heap bytes at which the current evaluation is stopped.
    static HEAP_CEILING: AtomicUsize = AtomicUsize::new(usize::MAX);
    static HEAP_EXCEEDED: AtomicBool = AtomicBool::new(false);

    /// Starts an evaluation's heap allowance: `limit` bytes over what is live now (no limit
    /// without a gauge).
    pub fn start_heap_allowance(limit: usize) {
        HEAP_EXCEEDED.store(false, Ordering::Relaxed);
        let ceiling = super::super::heap_gauge().map_or(usize::MAX, |gauge| gauge().saturating_add(limit));
        HEAP_CEILING.store(ceiling, Ordering::Relaxed);
    }

    /// Whether the last evaluation was stopped by its heap allowance.
    pub fn heap_exceeded() -> bool {
        HEAP_EXCEEDED.load(Ordering::Relaxed)
    }

    static CLOCK: Counter = Counter(AtomicU64::new(0));
    static DONE: AtomicBool = AtomicBool::new(false);

    /// Installs the clock once; true when it is regorus' time source.
    pub fn install() -> bool {
        if !DONE.swap(true, Ordering::Relaxed) {
            // `AlreadySet`: the embedder installed its own source first; the budget then
            // counts on that one.
            let _ = set_time_source(&CLOCK);
        }
        true
    }
}

/// Native targets have a real clock: no counting clock.
#[cfg(not(target_arch = "wasm32"))]
mod work_clock {
    pub const INSTALLED: bool = false;

    pub fn install() -> bool {
        false
    }

    pub fn start_heap_allowance(_limit: usize) {}

    pub fn heap_exceeded() -> bool {
        false
    }
}
