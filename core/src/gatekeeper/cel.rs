//! Gatekeeper's `K8sNativeValidation` engine: a template's CEL code (`code: - engine:
//! K8sNativeValidation`), evaluated as Gatekeeper's k8scel driver does with Kubernetes'
//! ValidatingAdmissionPolicy semantics, on the [`cel`](https://crates.io/crates/cel)
//! interpreter (cel-rust).
//!
//! The environment is Gatekeeper's: `object`, `oldObject`, `request` and `params` (the
//! constraint), and the variables Gatekeeper binds before the template's own:
//! `variables.anyObject` (`oldObject` for a DELETE, else `object`) and `variables.params`
//! (the constraint's `spec.parameters`, or null). The template's `variables` follow in order,
//! each seeing those before it. Every `matchConditions` entry must hold for the validations to
//! run; each validation whose `expression` is false yields a violation whose message is its
//! `messageExpression` (when that gives a non-empty string), else its `message`, else
//! `failed expression: <expression>`; one that fails to evaluate yields
//! `expression '<expression>' resulted in error: <error>` (failure policy Fail, Gatekeeper's
//! default).
//!
//! Bounded: every comprehension (`all`, `exists`, `map`, `filter`, ...) is rewritten at
//! compile time so that each iteration first calls a work counter; the counter stops the
//! evaluation when the [`Limits`] time (native) or work budget (wasm32) is used up.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use cel::common::ast::{CallExpr, Expr, IdedExpr};
use cel::{Context, Env, ExecutionError, Value as CelValue};
use serde_json::{json, Value};

use super::template::EvalError;
use super::{Limits, WORK_CHECK_INTERVAL};

/// Largest CEL source of one template (all expressions together), as for Rego.
pub const MAX_CEL_BYTES: usize = 1024 * 1024;

/// Comprehension iterations per unit of [`Limits::work`] where there is no clock (wasm32):
/// one, so the default budget allows 50,000 iterations (about 0.5 s in the waPC host on a
/// busy machine, at about 10 µs an iteration). A CEL iteration (binding the
/// variable, the counter's call, the loop body) costs far more than one of regorus' work units,
/// which come 32 to a unit of [`Limits::work`]; how long the budget takes in the waPC host is
/// in BENCHMARKS.md, "Gatekeeper". The library's CEL templates iterate over a workload's
/// containers and volumes: tens of iterations.
const CEL_ITERATIONS_PER_WORK: u64 = 1;

/// The work counter's function name, out of reach of CEL identifiers users write.
const WORK_FUNCTION: &str = "__placement_work__";

/// A template's compiled CEL code.
#[derive(Clone)]
pub struct CelCode {
    env: Arc<Env>,
    variables: Vec<(String, IdedExpr)>,
    match_conditions: Vec<(String, IdedExpr)>,
    validations: Vec<Validation>,
}

#[derive(Clone)]
struct Validation {
    /// The source, trimmed, for messages.
    expression: String,
    program: IdedExpr,
    message: Option<String>,
    message_expression: Option<IdedExpr>,
}

impl std::fmt::Debug for CelCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CelCode")
            .field("variables", &self.variables.iter().map(|(n, _)| n).collect::<Vec<_>>())
            .field("match_conditions", &self.match_conditions.len())
            .field("validations", &self.validations.iter().map(|v| &v.expression).collect::<Vec<_>>())
            .finish()
    }
}

/// Kubernetes' CEL environment as far as the gatekeeper-library uses it: the standard
/// library plus the strings extension (`join`, `replace`, `lowerAscii`, `split`, ...).
fn environment() -> Result<Env, String> {
    let mut env = Env::stdlib();
    env.add_extension(cel::extensions::strings).map_err(|e| e.to_string())?;
    Ok(env)
}

impl CelCode {
    /// Compiles `source` (`{variables, matchConditions, validations}`); `location` names it
    /// in errors (`spec.targets[0].code[0]`).
    pub fn compile(source: &Value, location: &str) -> Result<CelCode, String> {
        let size = serde_json::to_string(source).map(|s| s.len()).unwrap_or(0);
        if size > MAX_CEL_BYTES {
            return Err(format!("{location}: CEL source is {size} bytes, over the {MAX_CEL_BYTES}-byte limit"));
        }
        let env = Arc::new(environment()?);
        let compile = |text: &str, path: &str| -> Result<IdedExpr, String> {
            let program = env.compile(text).map_err(|e| format!("{location}.source.{path}: {e}"))?;
            let mut expr = program.expression().clone();
            count_work(&mut expr);
            Ok(expr)
        };
        let list = |key: &str| source.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
        let mut variables = Vec::new();
        for (i, v) in list("variables").iter().enumerate() {
            let name = text(v, "name").ok_or_else(|| format!("{location}.source.variables[{i}].name is required"))?;
            let expr = text(v, "expression")
                .ok_or_else(|| format!("{location}.source.variables[{i}].expression is required"))?;
            if name == "anyObject" || name == "params" {
                return Err(format!(
                    "{location}.source.variables[{i}].name: {name:?} is reserved by Gatekeeper (variables.{name})"
                ));
            }
            variables.push((name, compile(&expr, &format!("variables[{i}].expression"))?));
        }
        let mut match_conditions = Vec::new();
        for (i, m) in list("matchConditions").iter().enumerate() {
            let name = text(m, "name").unwrap_or_default();
            let expr = text(m, "expression")
                .ok_or_else(|| format!("{location}.source.matchConditions[{i}].expression is required"))?;
            match_conditions.push((name, compile(&expr, &format!("matchConditions[{i}].expression"))?));
        }
        let mut validations = Vec::new();
        for (i, v) in list("validations").iter().enumerate() {
            let expression = text(v, "expression")
                .ok_or_else(|| format!("{location}.source.validations[{i}].expression is required"))?;
            let message_expression = match text(v, "messageExpression") {
                Some(m) => Some(compile(&m, &format!("validations[{i}].messageExpression"))?),
                None => None,
            };
            validations.push(Validation {
                program: compile(&expression, &format!("validations[{i}].expression"))?,
                expression: expression.trim().to_string(),
                message: text(v, "message"),
                message_expression,
            });
        }
        if validations.is_empty() {
            return Err(format!("{location}.source.validations: at least one validation is required"));
        }
        Ok(CelCode { env, variables, match_conditions, validations })
    }

    /// The violations' messages for one review (`input.review`) and constraint parameters.
    pub fn violations(&self, review: &Value, parameters: &Value, limits: Limits) -> Result<Vec<String>, EvalError> {
        let budget = Arc::new(Budget::new(limits));
        let mut ctx = Context::with_env(self.env.clone());
        let work = budget.clone();
        ctx.add_function(WORK_FUNCTION, move || work.spend())
            .map_err(|e| EvalError::Data(format!("CEL environment: {e}")))?;
        let get = |key: &str| review.get(key).cloned().filter(|v| !v.is_null()).unwrap_or(Value::Null);
        let operation = review.get("operation").and_then(Value::as_str).unwrap_or_default();
        // Gatekeeper unsets `object` on DELETE, as Kubernetes does for VAP.
        let object = if operation == "DELETE" { Value::Null } else { get("object") };
        let old_object = get("oldObject");
        let any_object = if operation == "DELETE" && object.is_null() { old_object.clone() } else { object.clone() };
        let params_value = if parameters.is_null() { Value::Null } else { parameters.clone() };
        let request = request_of(review);
        let constraint = json!({"spec": {"parameters": params_value}});
        for (name, value) in
            [("object", &object), ("oldObject", &old_object), ("request", &request), ("params", &constraint)]
        {
            ctx.add_variable_from_value(name, to_cel(value)?);
        }
        let mut variables = serde_json::Map::new();
        variables.insert("anyObject".into(), any_object);
        variables.insert("params".into(), params_value);
        let mut bound = to_cel(&Value::Object(variables))?;
        for (name, expr) in &self.variables {
            ctx.add_variable_from_value("variables", bound.clone());
            // A variable that fails is left out: Kubernetes evaluates variables lazily, so
            // the error surfaces only in an expression that uses it.
            match budget.check(ctx.resolve(expr))? {
                Ok(value) => {
                    if let CelValue::Map(map) = &mut bound {
                        let mut entries = (*map.map).clone();
                        entries.insert(cel::objects::Key::from(name.as_str()), value);
                        map.map = Arc::new(entries);
                    }
                }
                Err(_) => continue,
            }
        }
        ctx.add_variable_from_value("variables", bound);
        for (_, condition) in &self.match_conditions {
            // A condition that errs counts as not matching (failure policy Fail would deny
            // in Kubernetes; Gatekeeper's own match conditions never err).
            if budget.check(ctx.resolve(condition))? != Ok(CelValue::Bool(true)) {
                return Ok(Vec::new());
            }
        }
        let mut out = Vec::new();
        for v in &self.validations {
            match budget.check(ctx.resolve(&v.program))? {
                Ok(CelValue::Bool(true)) => continue,
                Ok(CelValue::Bool(false)) => {
                    let from_expression = match &v.message_expression {
                        Some(m) => match budget.check(ctx.resolve(m))? {
                            Ok(CelValue::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
                            _ => None,
                        },
                        None => None,
                    };
                    out.push(from_expression.unwrap_or_else(|| match &v.message {
                        Some(m) if !m.trim().is_empty() => m.trim().to_string(),
                        _ => format!("failed expression: {}", v.expression),
                    }));
                }
                Ok(other) => out.push(format!(
                    "expression '{}' resulted in error: expected a bool, got {:?}",
                    v.expression,
                    other.type_of()
                )),
                Err(e) => out.push(format!("expression '{}' resulted in error: {e}", v.expression)),
            }
        }
        Ok(out)
    }
}

/// Kubernetes' `request` variable: the AdmissionRequest (an empty one for a plain object).
fn request_of(review: &Value) -> Value {
    let mut request = review.clone();
    if let Some(map) = request.as_object_mut() {
        map.remove("object");
        map.remove("oldObject");
        map.remove("_unstable");
    }
    request
}

fn to_cel(v: &Value) -> Result<CelValue, EvalError> {
    cel::to_value(v).map_err(|e| EvalError::Data(format!("CEL input: {e}")))
}

/// Rewrites every comprehension's loop condition `c` into `__placement_work__() && c`, so
/// each iteration is counted (see [`Budget`]).
fn count_work(e: &mut IdedExpr) {
    match &mut e.expr {
        Expr::Comprehension(c) => {
            count_work(&mut c.iter_range);
            count_work(&mut c.accu_init);
            count_work(&mut c.loop_cond);
            count_work(&mut c.loop_step);
            count_work(&mut c.result);
            let cond = std::mem::take(&mut c.loop_cond);
            let work = IdedExpr {
                id: cond.id,
                expr: Expr::Call(CallExpr { func_name: WORK_FUNCTION.into(), target: None, args: vec![] }),
            };
            c.loop_cond = IdedExpr {
                id: cond.id,
                expr: Expr::Call(CallExpr {
                    func_name: cel::common::ast::operators::LOGICAL_AND.into(),
                    target: None,
                    args: vec![work, cond],
                }),
            };
        }
        Expr::Call(call) => {
            if let Some(t) = call.target.as_mut() {
                count_work(t);
            }
            call.args.iter_mut().for_each(count_work);
        }
        Expr::List(list) => list.elements.iter_mut().for_each(count_work),
        Expr::Map(map) => {
            for entry in map.entries.iter_mut() {
                if let cel::common::ast::EntryExpr::MapEntry(m) = &mut entry.expr {
                    count_work(&mut m.key);
                    count_work(&mut m.value);
                }
            }
        }
        Expr::Select(s) => count_work(&mut s.operand),
        _ => {}
    }
}

/// The work counter behind [`Limits`] for CEL: each comprehension iteration is one unit.
/// Natively the wall clock is read every [`WORK_CHECK_INTERVAL`] units against
/// `limits.time`; without a clock (wasm32) `limits.work` x [`CEL_ITERATIONS_PER_WORK`] units
/// are allowed.
struct Budget {
    /// `None` on wasm32, where `Instant::now` panics.
    start: Option<Instant>,
    limits: Limits,
    units: AtomicU64,
    exceeded: AtomicBool,
}

impl Budget {
    fn new(limits: Limits) -> Budget {
        let start = if cfg!(target_arch = "wasm32") { None } else { Some(Instant::now()) };
        Budget { start, limits, units: AtomicU64::new(0), exceeded: AtomicBool::new(false) }
    }

    // `%` rather than `is_multiple_of`, which is newer than the workspace's rust-version.
    #[allow(clippy::manual_is_multiple_of)]
    fn spend(&self) -> Result<bool, ExecutionError> {
        // Once over, every comprehension stops at its next iteration: CEL's `all`/`exists`
        // absorb an error from one element and go on with the next, so a single error would
        // not end the outer loops.
        if self.exceeded.load(Ordering::Relaxed) {
            return Err(ExecutionError::function_error(WORK_FUNCTION, "evaluation limit exceeded"));
        }
        let units = self.units.fetch_add(1, Ordering::Relaxed) + 1;
        let over = if cfg!(target_arch = "wasm32") {
            self.work_units().is_some_and(|allowed| units > allowed)
        } else {
            units % u64::from(WORK_CHECK_INTERVAL) == 0
                && self.limits.time.zip(self.start).is_some_and(|(t, s)| s.elapsed() > t)
        };
        if over {
            self.exceeded.store(true, Ordering::Relaxed);
            return Err(ExecutionError::function_error(WORK_FUNCTION, "evaluation limit exceeded"));
        }
        Ok(true)
    }

    /// Turns a result reached after the budget ran out into the limit's error.
    fn check<T>(&self, result: Result<T, ExecutionError>) -> Result<Result<T, ExecutionError>, EvalError> {
        if !self.exceeded.load(Ordering::Relaxed) {
            return Ok(result);
        }
        let engine = super::Engine::K8sNativeValidation;
        Err(match self.limits.time {
            Some(limit) if !cfg!(target_arch = "wasm32") => {
                EvalError::TimeLimitExceeded { engine, limit, message: format!("CEL evaluation exceeded {limit:?}") }
            }
            _ => EvalError::WorkBudgetExceeded { engine, work_units: self.work_units().unwrap_or_default() },
        })
    }

    /// The comprehension iterations [`Limits::work`] allows (wasm32).
    fn work_units(&self) -> Option<u64> {
        self.limits.work.map(|w| w.saturating_mul(CEL_ITERATIONS_PER_WORK))
    }
}
