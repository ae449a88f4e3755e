//! `gatekeeper`: OPA Gatekeeper ConstraintTemplates and Constraints from the settings,
//! evaluated on every request with [`crate::gatekeeper::evaluate`], as Gatekeeper's validating
//! webhook would.
//!
//! ```yaml
//! gatekeeper:
//!   templates:              # ConstraintTemplates (and ExpansionTemplates)
//!     - {apiVersion: templates.gatekeeper.sh/v1, kind: ConstraintTemplate, ...}
//!     - |                   # or YAML text, several documents allowed
//!       apiVersion: templates.gatekeeper.sh/v1
//!       kind: ConstraintTemplate
//!       ...
//!   constraints:            # Constraints of the templates' kinds, objects or YAML text
//!     - {apiVersion: constraints.gatekeeper.sh/v1beta1, kind: K8sPSPPrivilegedContainer, ...}
//!   defaultExpansions: true # Gatekeeper's common ExpansionTemplates (the default)
//!   enableK8sNativeValidation: true # a template's CEL code when it has some (the default)
//!   inventory:              # data.inventory: resources listed from the cluster per request
//!     - {apiVersion: networking.k8s.io/v1, kind: Ingress}
//!     - {apiVersion: v1, kind: Service, namespace: team-a}  # only that namespace's
//! ```
//!
//! Either list also takes one YAML string instead of a list. Every document is sorted by its
//! kind, so a pasted file holding a template and its constraint works in either list.
//! `validate_settings` compiles every template; a request compiles a template's Rego when one
//! of its constraints first matches (once per settings text in the module's validator, once
//! per request with policy-server's fresh instance per request), so that a request pays only
//! for the templates it needs. An error names the setting, the template and the Rego line,
//! the same from either.
//!
//! On `validate`, `input.review` is the AdmissionRequest, as in Gatekeeper (for DELETE the
//! `object` is the `oldObject`, as Gatekeeper's webhook sets it). Violations of `deny`
//! constraints reject the request with Gatekeeper's message: `[constraint-name] message`, one
//! per line; `warn` ones become warnings in the same form; `dryrun` ones are only recorded in
//! the `gatekeeper-dryrun` audit annotation.
//!
//! `data.inventory` holds the resources `inventory` names, as they are in the cluster when the
//! request arrives: each one is listed through Kubewarden's host capabilities
//! ([`super::host`]: `list_resources_all`, or `list_resources_by_namespace` with a
//! `namespace`), in the order given, on every request that a constraint may match (whatever
//! the inventory holds: [`crate::gatekeeper::may_match`]; other requests list nothing), and filed as
//! Kubewarden's Gatekeeper mode files a policy's `contextAwareResources`:
//! `data.inventory.cluster[apiVersion][kind][name]` for objects without a namespace,
//! `data.inventory.namespace[namespace][apiVersion][kind][name]` for the others (the listed
//! `apiVersion` and `kind`). Listed Namespaces also serve `match.namespaceSelector`. The admin
//! must allow each resource in the policy's `spec.contextAwareResources`; a listing that fails
//! (not allowed, no such resource, over [`MAX_LISTED_BYTES`] or
//! [`crate::gatekeeper::MAX_LISTED_OBJECTS`]) is the request's error, naming the call. Without
//! `inventory`, `data.inventory` is empty: templates that read it find nothing and a
//! `namespaceSelector` never matches.

use serde::Deserialize;
use serde_json::Value;

use super::host::{self, HostCapabilities, Resource};
use super::settings::{decode_setting, SettingsError};
use crate::gatekeeper::{
    evaluate, Compile, EnforcementAction, ExpansionTemplate, GatekeeperError, Inventory, InventoryError, PolicySet,
    Template,
};
use crate::input::documents::type_name;
use crate::input::documents::{split_documents, strip_nulls};

pub const NAME: &str = "gatekeeper";

/// The settings error for `enableK8sNativeValidation: true` in a build without CEL.
pub const NO_CEL: &str = "this build evaluates no CEL (K8sNativeValidation): it needs placement-core's `gatekeeper-cel` feature; set false to evaluate templates' Rego";

/// Most ConstraintTemplates (and ExpansionTemplates) accepted in the settings.
pub const MAX_TEMPLATES: usize = 500;
/// Most Constraints accepted in the settings. Each is evaluated on every matching request
/// (and on the Pod a workload expands to), each evaluation bounded by its own limit.
pub const MAX_CONSTRAINTS: usize = 2_000;
/// Most resources `inventory` names (each is a host call per request).
pub const MAX_INVENTORY_RESOURCES: usize = 32;
/// Most bytes of the host's answers to `inventory`'s listings, together, per request: the
/// objects are then held as JSON and as Rego's `data`, several times these bytes.
pub const MAX_LISTED_BYTES: usize = 16 << 20;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Raw {
    #[serde(default)]
    templates: Value,
    #[serde(default)]
    constraints: Value,
    #[serde(default = "yes")]
    default_expansions: bool,
    /// Gatekeeper's `--enable-k8s-native-validation`: see [`Policy::from_settings`].
    #[serde(default)]
    enable_k8s_native_validation: Option<bool>,
    /// The resources listed into `data.inventory` (see the module docs); `null` is none.
    #[serde(default)]
    inventory: Option<Vec<InventoryResource>>,
}

/// An entry of `inventory`: the shape of Kubewarden's `contextAwareResources` entries, and an
/// optional namespace.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct InventoryResource {
    api_version: String,
    kind: String,
    #[serde(default)]
    namespace: Option<String>,
}

fn yes() -> bool {
    true
}

/// The compiled templates and constraints.
#[derive(Debug, Clone)]
pub struct Policy {
    pub set: PolicySet,
    /// `inventory`: listed per request into `data.inventory`, in this order.
    pub inventory: Vec<Resource>,
    /// Each template's setting (`settings.gatekeeper.templates[0]`), by template name: where
    /// the error of a template compiled on first use is reported.
    template_at: std::collections::BTreeMap<String, String>,
}

/// Why [`Policy::cluster_inventory`] failed: the resource, and the host's error or what is
/// wrong with its answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error("cannot list {} ({}): {error}", .resource.name(), .resource.describe())]
    Host { resource: Resource, error: String },
    #[error("cannot use the listed objects: {0}")]
    Inventory(#[from] InventoryError),
    #[error("the listed resources are {bytes} bytes by {} ({}), over the limit of {limit} bytes per request", .resource.name(), .resource.describe())]
    TooLarge { resource: Resource, bytes: usize, limit: usize },
}

/// Why [`Policy::check`] failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CheckError {
    /// A template compiled on first use ([`Compile::WhenUsed`]) has an error: the settings
    /// are invalid, as [`Policy::from_settings`] with [`Compile::Now`] reports.
    #[error(transparent)]
    Settings(SettingsError),
    #[error(transparent)]
    Gatekeeper(GatekeeperError),
}

/// The violations of one request, each as Gatekeeper words it: `[constraint-name] message`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Verdict {
    pub deny: Vec<String>,
    pub warn: Vec<String>,
    pub dryrun: Vec<String>,
}

/// A document of the settings, with where it came from.
struct Item {
    at: String,
    value: Value,
}

impl Policy {
    /// Reads the `gatekeeper` setting; `compile` says when the templates' Rego is compiled
    /// (`validate_settings` compiles all of it, a request only what it matches).
    pub fn from_settings(value: &Value, at: &str, compile: Compile) -> Result<Self, SettingsError> {
        if !value.is_object() {
            return Err(SettingsError::new(
                at,
                format!("expected a mapping with `templates` and `constraints`, found {}", type_name(value)),
            ));
        }
        let raw: Raw = decode_setting(value, at)?;
        let mut items = items_of(&raw.templates, &format!("{at}.templates"))?;
        items.extend(items_of(&raw.constraints, &format!("{at}.constraints"))?);

        let mut set = PolicySet::default();
        // As Gatekeeper's and gator's `--enable-k8s-native-validation` (default true): a
        // template with `engine: K8sNativeValidation` code is evaluated with CEL, else with its
        // Rego. A build without CEL can only honour `false`.
        match raw.enable_k8s_native_validation {
            Some(true) if !cfg!(feature = "gatekeeper-cel") => {
                return Err(SettingsError::new(format!("{at}.enableK8sNativeValidation"), NO_CEL))
            }
            Some(enabled) => set.k8s_native_validation = enabled,
            None => {}
        }
        let (mut templates, mut constraints) = (Vec::new(), Vec::new());
        for item in items {
            let api_version = item.value.get("apiVersion").and_then(Value::as_str).unwrap_or_default();
            let group = api_version.split('/').next().unwrap_or_default();
            let kind = item.value.get("kind").and_then(Value::as_str).unwrap_or_default();
            match (group, kind) {
                ("templates.gatekeeper.sh", "ConstraintTemplate") | ("expansion.gatekeeper.sh", "ExpansionTemplate") => {
                    templates.push(item)
                }
                ("constraints.gatekeeper.sh", _) => constraints.push(item),
                _ => {
                    return Err(SettingsError::new(
                        item.at,
                        format!(
                            "expected a ConstraintTemplate (templates.gatekeeper.sh), an ExpansionTemplate (expansion.gatekeeper.sh) or a Constraint (constraints.gatekeeper.sh), found {}",
                            if kind.is_empty() {
                                "an object without kind".to_string()
                            } else {
                                format!("{kind} ({api_version})")
                            }
                        ),
                    ))
                }
            }
        }
        if templates.len() > MAX_TEMPLATES {
            return Err(SettingsError::new(
                format!("{at}.templates"),
                format!("{} templates, over the limit of {MAX_TEMPLATES}", templates.len()),
            ));
        }
        if constraints.len() > MAX_CONSTRAINTS {
            return Err(SettingsError::new(
                format!("{at}.constraints"),
                format!("{} constraints, over the limit of {MAX_CONSTRAINTS}", constraints.len()),
            ));
        }
        let mut template_at = std::collections::BTreeMap::new();
        for item in templates {
            let compiled = if item.value.get("kind").and_then(Value::as_str) == Some("ExpansionTemplate") {
                ExpansionTemplate::from_value(&item.value).map(|e| set.expansions.push(e))
            } else {
                let template = match compile {
                    Compile::Now => Template::from_value(&item.value),
                    Compile::WhenUsed => Template::from_value_deferred(&item.value),
                };
                template.and_then(|t| {
                    template_at.insert(t.name.clone(), item.at.clone());
                    set.add_template(t)
                })
            };
            compiled.map_err(|e| SettingsError::new(&item.at, e.to_string()))?;
        }
        if constraints.is_empty() {
            return Err(SettingsError::new(
                format!("{at}.constraints"),
                "no constraints: a ConstraintTemplate alone enforces nothing; add a Constraint of its kind",
            ));
        }
        let mut names = std::collections::BTreeMap::new();
        for item in constraints {
            set.add_constraint_value(&item.value).map_err(|e| SettingsError::new(&item.at, e.to_string()))?;
            if let Some(c) = set.constraints.last() {
                if let Some(prev) = names.insert((c.kind.clone(), c.name.clone()), item.at.clone()) {
                    return Err(SettingsError::new(
                        item.at,
                        format!("duplicate constraint {} {} (also {prev})", c.kind, c.name),
                    ));
                }
            }
        }
        if raw.default_expansions {
            set = set.with_default_expansions();
        }
        let inventory = inventory_resources(raw.inventory.unwrap_or_default(), &format!("{at}.inventory"))?;
        Ok(Policy { set, inventory, template_at })
    }

    /// `data.inventory` for one request: the resources of `inventory` listed through `host`, in
    /// order (empty, with no call, when `inventory` is).
    pub fn cluster_inventory(&self, host: &dyn HostCapabilities) -> Result<Inventory, ListError> {
        let mut lists = Vec::with_capacity(self.inventory.len());
        let mut bytes = 0usize;
        for resource in &self.inventory {
            let (items, size) =
                host::list(host, resource).map_err(|error| ListError::Host { resource: resource.clone(), error })?;
            bytes = bytes.saturating_add(size);
            if bytes > MAX_LISTED_BYTES {
                return Err(ListError::TooLarge { resource: resource.clone(), bytes, limit: MAX_LISTED_BYTES });
            }
            lists.push((resource, items));
        }
        Ok(Inventory::from_lists(lists.into_iter().map(|(r, items)| (r.api_version.as_str(), r.kind.as_str(), items)))?)
    }

    /// [`Policy::cluster_inventory`] when a constraint may match `review` (or a Pod its
    /// expansions generate); otherwise no evaluation reads `data.inventory`, and nothing is
    /// listed (an empty inventory).
    pub fn cluster_inventory_for(&self, review: &Value, host: &dyn HostCapabilities) -> Result<Inventory, ListError> {
        if self.inventory.is_empty() || !crate::gatekeeper::may_match(&self.set, review) {
            return Ok(Inventory::default());
        }
        self.cluster_inventory(host)
    }

    /// Evaluates the constraints against `review` (an AdmissionRequest as JSON) with
    /// `inventory` as `data.inventory` ([`Policy::cluster_inventory`]).
    pub fn check(&self, review: &Value, inventory: &Inventory) -> Result<Verdict, CheckError> {
        let mut verdict = Verdict::default();
        let violations = evaluate(&self.set, review, inventory).map_err(|e| match &e {
            // Evaluation reports template errors only from compiling a deferred template.
            GatekeeperError::Template { template, .. } => match self.template_at.get(template) {
                Some(at) => CheckError::Settings(SettingsError::new(at, e.to_string())),
                None => CheckError::Gatekeeper(e),
            },
            _ => CheckError::Gatekeeper(e),
        })?;
        for v in violations {
            let line = v.to_string();
            match v.enforcement_action {
                EnforcementAction::Deny => verdict.deny.push(line),
                EnforcementAction::Warn => verdict.warn.push(line),
                EnforcementAction::Dryrun => verdict.dryrun.push(line),
            }
        }
        Ok(verdict)
    }
}

/// `inventory`, checked: each `apiVersion` is `v1` or `group/version`, each `kind` a Kind, a
/// `namespace` a namespace name; no resource twice.
fn inventory_resources(raw: Vec<InventoryResource>, list_at: &str) -> Result<Vec<Resource>, SettingsError> {
    use crate::model::labels::{dns1123_label_errors, dns1123_subdomain_errors};
    if raw.len() > MAX_INVENTORY_RESOURCES {
        return Err(SettingsError::new(
            list_at,
            format!("{} resources, over the limit of {MAX_INVENTORY_RESOURCES}", raw.len()),
        ));
    }
    let mut out: Vec<Resource> = Vec::with_capacity(raw.len());
    for (i, r) in raw.into_iter().enumerate() {
        let at = format!("{list_at}[{i}]");
        let bad = |field: &str, value: &str, why: String| {
            SettingsError::new(format!("{at}.{field}"), format!("{value:?}: {why}"))
        };
        let (group, version) = match r.api_version.split_once('/') {
            Some((g, v)) => (Some(g), v),
            None => (None, r.api_version.as_str()),
        };
        let group_errors = group.map(dns1123_subdomain_errors).unwrap_or_default();
        let version_errors = dns1123_label_errors(version);
        if let Some(e) = group_errors.first().or(version_errors.first()) {
            return Err(bad(
                "apiVersion",
                &r.api_version,
                format!("expected `v1` or `group/version` (e.g. networking.k8s.io/v1): {e}"),
            ));
        }
        let kind_ok = r.kind.chars().next().is_some_and(|c| c.is_ascii_uppercase())
            && r.kind.chars().all(|c| c.is_ascii_alphanumeric());
        if !kind_ok {
            return Err(bad(
                "kind",
                &r.kind,
                "expected a Kind: a letters-and-digits name starting with a capital, such as Ingress".into(),
            ));
        }
        if let Some(e) = r.namespace.as_deref().and_then(|ns| dns1123_label_errors(ns).into_iter().next()) {
            return Err(bad("namespace", r.namespace.as_deref().unwrap_or_default(), e));
        }
        let resource = Resource { api_version: r.api_version, kind: r.kind, namespace: r.namespace };
        if let Some(prev) = out.iter().position(|o| *o == resource) {
            return Err(SettingsError::new(
                at,
                format!("{} is listed twice (also {list_at}[{prev}])", resource.name()),
            ));
        }
        out.push(resource);
    }
    Ok(out)
}

/// The documents of `templates`/`constraints`: a list of objects or YAML strings, or one
/// YAML string; `null` is none.
fn items_of(value: &Value, at: &str) -> Result<Vec<Item>, SettingsError> {
    match value {
        Value::Null => Ok(Vec::new()),
        Value::String(text) => documents(text, at),
        Value::Array(list) => {
            let mut out = Vec::new();
            for (i, entry) in list.iter().enumerate() {
                let at = format!("{at}[{i}]");
                if out.len() > MAX_TEMPLATES + MAX_CONSTRAINTS {
                    return Err(SettingsError::new(at, "too many documents"));
                }
                match entry {
                    Value::Object(_) => {
                        let mut v = entry.clone();
                        strip_nulls(&mut v);
                        out.push(Item { at, value: v });
                    }
                    Value::String(text) => out.extend(documents(text, &at)?),
                    other => {
                        return Err(SettingsError::new(
                            at,
                            format!("expected a Gatekeeper object or YAML text, found {}", type_name(other)),
                        ))
                    }
                }
            }
            Ok(out)
        }
        other => Err(SettingsError::new(
            at,
            format!("expected a list of Gatekeeper objects or YAML text, found {}", type_name(other)),
        )),
    }
}

/// The documents of YAML (or JSON) text; with more than one, each is named by its number.
fn documents(text: &str, at: &str) -> Result<Vec<Item>, SettingsError> {
    let docs = split_documents(text, "").map_err(|e| SettingsError::new(at, e.to_string()))?;
    let many = docs.len() > 1;
    Ok(docs
        .into_iter()
        .map(|d| Item {
            at: if many { format!("{at} (document {})", d.doc.index) } else { at.to_string() },
            value: d.value,
        })
        .collect())
}
