//! The policy's settings: which policies are active and how, and the node inventory the
//! placement checks run against. Every error names the setting's path and the bad value, e.g.
//! `settings.nodes[2]: "gpu-1: sku=gpu:NoSchedul": taint "sku=gpu:NoSchedul": effect
//! "NoSchedul" is not one of NoSchedule, PreferNoSchedule, NoExecute`.
//!
//! A policy is active when its key is present. The node inventory (`nodes`) takes Node objects
//! (`kubectl get nodes -o json` items) or the compact form, one node per string:
//!
//! ```text
//! NAME[: TAINT,...[; LABEL,...[; RESOURCE,...]]]
//! gpu-1: sku=gpu:NoSchedule; pool=gpu, topology.kubernetes.io/zone=a; cpu=8, memory=32Gi, pods=110
//! ```
//!
//! where a taint is `key[=value]:Effect`, a label `key=value` and a resource `name=quantity`
//! (the node's `status.allocatable`; without it resources are not checked on that node).
//! `nodes` may also be one multi-line string with a node per line (`#` starts a comment).

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt;
use std::sync::Arc;

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::Deserialize;
use serde_json::Value;

#[cfg(feature = "admission-gatekeeper")]
use super::gatekeeper;
use super::host;
use super::{daemonset_coverage, disallowed_tolerations, required_placement, schedulable};
use crate::cluster::simulate::SimulateOptions;
pub use crate::gatekeeper::Compile;
use crate::input::documents::{type_name, DocRef};
use crate::input::field::FieldError;
use crate::input::field::FieldPath;
use crate::input::validation::{validate_node, validate_node_shape, validate_plain_node_name};
use crate::model::labels::{validate_label_key, validate_label_value, Selector};
use crate::model::quantity::Quantity;
use crate::model::version::{FeatureGates, KubeVersion};
use crate::model::{LabelSelector, LabelSelectorRequirement, Labels, Node, ResourceList, Taint};
use crate::scheduler::framework::{NodeInfo, SchedulerConfig};

/// The settings error for a `gatekeeper` key when the crate is built without the
/// `admission-gatekeeper` feature (the lean policy module).
pub const NO_GATEKEEPER: &str = "this module is built without Gatekeeper support (placement-policy-lean.wasm); use the full module, placement-policy.wasm, for Gatekeeper ConstraintTemplates and Constraints";

/// The policy that settings with no policy key (`{}`, as `kwctl scaffold manifest` writes
/// them) turn on: `disallowedTolerations` in warn mode on the control-plane taints
/// (`node-role.kubernetes.io/*`) outside `kube-system`. It never rejects and never mutates: a
/// workload that tolerates the control plane's taints is admitted with a warning naming the
/// toleration.
pub const DEFAULT_POLICY: &str = r#"{"disallowedTolerations": {"mode": "warn", "keyPrefixes": ["node-role.kubernetes.io/"], "exemptNamespaces": ["kube-system"]}}"#;

fn default_policy() -> Value {
    serde_json::from_str::<Value>(DEFAULT_POLICY)
        .ok()
        .and_then(|v| v.get("disallowedTolerations").cloned())
        .unwrap_or_default()
}

/// Upper bound on the inventory, to keep every validation bounded in time and memory.
pub const MAX_INVENTORY_NODES: usize = 10_000;

/// Labels that name a node's pool on the common managed offerings, tried in order when
/// `poolLabel` is not set.
pub const WELL_KNOWN_POOL_LABELS: [&str; 7] = [
    "pool",
    "agentpool",
    "kubernetes.azure.com/agentpool",
    "cloud.google.com/gke-nodepool",
    "eks.amazonaws.com/nodegroup",
    "karpenter.sh/nodepool",
    "node.kubernetes.io/pool",
];

use crate::model::taints::EFFECTS;

/// A setting that is wrong: where, and what is wrong with which value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SettingsError {
    /// `settings.disallowedTolerations.keyPrefixes[0]`
    pub path: String,
    pub message: String,
}

impl SettingsError {
    pub fn new(path: impl Into<String>, message: impl Into<String>) -> Self {
        Self { path: path.into(), message: message.into() }
    }
}

impl fmt::Display for SettingsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

impl std::error::Error for SettingsError {}

/// `settings.a.b` from a path relative to the settings root.
pub fn path(rel: &str) -> String {
    if rel.is_empty() || rel == "." {
        "settings".to_string()
    } else if rel.starts_with('[') {
        format!("settings{rel}")
    } else {
        format!("settings.{rel}")
    }
}

/// Reads a typed value, reporting the failing field under `base` (a settings path).
pub fn decode_setting<T: DeserializeOwned>(value: &Value, base: &str) -> Result<T, SettingsError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let full = crate::input::field::FieldPath::under(base, &e.path().to_string());
        SettingsError::new(full.to_string(), e.into_inner().to_string())
    })
}

/// `enforce` rejects; `warn` (alias `dryRun`) accepts with warnings.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub enum Mode {
    #[default]
    #[serde(rename = "enforce")]
    Enforce,
    #[serde(rename = "warn", alias = "dryRun", alias = "dry-run")]
    Warn,
}

/// A name pattern: exact, or with `*` matching any run of characters (`team-*`, `*-system`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern(String);

impl Pattern {
    pub fn parse(s: &str, at: &str) -> Result<Self, SettingsError> {
        if s.is_empty() {
            return Err(SettingsError::new(at, "empty pattern: use a name, or `*` for every name"));
        }
        Ok(Self(s.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Glob match with `*` only, iterative with one backtrack point (linear-ish, no recursion).
    pub fn matches(&self, name: &str) -> bool {
        let p: Vec<char> = self.0.chars().collect();
        let s: Vec<char> = name.chars().collect();
        let (mut pi, mut si) = (0usize, 0usize);
        let mut star: Option<(usize, usize)> = None;
        while si < s.len() {
            match (p.get(pi), s.get(si)) {
                (Some('*'), _) => {
                    star = Some((pi, si));
                    pi += 1;
                }
                (Some(a), Some(b)) if a == b => {
                    pi += 1;
                    si += 1;
                }
                _ => match star {
                    Some((sp, ss)) => {
                        pi = sp + 1;
                        si = ss + 1;
                        star = Some((sp, ss + 1));
                    }
                    None => return false,
                },
            }
        }
        p.get(pi..).is_some_and(|rest| rest.iter().all(|c| *c == '*'))
    }
}

/// A list of patterns; empty matches nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Patterns(pub Vec<Pattern>);

impl Patterns {
    pub fn parse(list: &[String], at: &str) -> Result<Self, SettingsError> {
        list.iter()
            .enumerate()
            .map(|(i, s)| Pattern::parse(s, &format!("{at}[{i}]")))
            .collect::<Result<_, _>>()
            .map(Self)
    }

    pub fn matches(&self, name: &str) -> bool {
        self.0.iter().any(|p| p.matches(name))
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A label selector from the settings, checked once.
#[derive(Debug, Clone)]
pub struct CompiledSelector {
    pub text: String,
    selector: Selector,
}

impl CompiledSelector {
    pub fn compile(
        match_labels: &Labels,
        match_expressions: &[LabelSelectorRequirement],
        at: &str,
    ) -> Result<Self, SettingsError> {
        let ls = LabelSelector { match_labels: match_labels.clone(), match_expressions: match_expressions.to_vec() };
        let selector = Selector::from_label_selector(Some(&ls), &FieldPath::root(at))
            .map_err(|e| SettingsError::new(at, format!("invalid label selector: {e}")))?;
        Ok(Self { text: selector.to_string(), selector })
    }

    pub fn matches(&self, labels: &Labels) -> bool {
        self.selector.matches(labels)
    }
}

// ---------------------------------------------------------------------------------------------
// The settings document

/// The top level of the settings. The inventory and the policies' settings, the bulk of the
/// document, are only checked for presence here (`null` counts as absent) and read where they
/// are in the settings value ([`RawSettings::member`]) rather than copied out of it.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct RawSettings {
    nodes: Option<IgnoredAny>,
    inventory: Option<InventorySource>,
    pool_label: Option<String>,
    kube_version: Option<String>,
    feature_gates: BTreeMap<String, bool>,
    disallowed_tolerations: Option<IgnoredAny>,
    required_placement: Option<IgnoredAny>,
    schedulable: Option<IgnoredAny>,
    daemonset_coverage: Option<IgnoredAny>,
    gatekeeper: Option<IgnoredAny>,
}

impl RawSettings {
    /// The value of a member that `present` says is there and not `null`.
    fn member<'a>(value: &'a Value, present: Option<IgnoredAny>, key: &str) -> Option<&'a Value> {
        present.and_then(|_| value.get(key)).filter(|v| !v.is_null())
    }
}

/// The settings' members that [`Settings::read_parts`] reads: the scalars decoded, the
/// inventory and the policies' settings where they are (absent and `null` are `None`).
struct Parts<'v> {
    nodes: Option<NodesInput<'v>>,
    inventory: Option<InventorySource>,
    pool_label: Option<String>,
    kube_version: Option<String>,
    feature_gates: BTreeMap<String, bool>,
    disallowed_tolerations: Option<&'v Value>,
    required_placement: Option<&'v Value>,
    schedulable: Option<&'v Value>,
    daemonset_coverage: Option<&'v Value>,
    gatekeeper: Option<&'v Value>,
}

/// The top level of the settings as [`Settings::for_requests_from_slice`] decodes it from the
/// text: the same members as [`RawSettings`], with the policies' settings as (small) values
/// and the inventory's strings borrowed. Any failure here sends the text to the value path.
#[derive(Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
struct FastSettings<'a> {
    #[serde(borrow)]
    nodes: Option<FastNodes<'a>>,
    inventory: Option<InventorySource>,
    pool_label: Option<String>,
    kube_version: Option<String>,
    feature_gates: BTreeMap<String, bool>,
    disallowed_tolerations: Option<Value>,
    required_placement: Option<Value>,
    schedulable: Option<Value>,
    daemonset_coverage: Option<Value>,
    gatekeeper: Option<Value>,
}

impl<'a> FastSettings<'a> {
    fn parts(&self) -> Parts<'_> {
        Parts {
            nodes: self.nodes.as_ref().map(NodesInput::Fast),
            inventory: self.inventory,
            pool_label: self.pool_label.clone(),
            kube_version: self.kube_version.clone(),
            feature_gates: self.feature_gates.clone(),
            disallowed_tolerations: self.disallowed_tolerations.as_ref(),
            required_placement: self.required_placement.as_ref(),
            schedulable: self.schedulable.as_ref(),
            daemonset_coverage: self.daemonset_coverage.as_ref(),
            gatekeeper: self.gatekeeper.as_ref(),
        }
    }
}

/// `nodes` read from the text: the multi-line string, or the list with each compact string
/// in place and every other item (a Node object, or a wrong type, which
/// [`parse_inventory`] reports) as a value. Anything else (a number, a mapping) is a
/// decoding error, which sends the settings to the value path and its error.
enum FastNodes<'a> {
    Text(Cow<'a, str>),
    List(Vec<FastEntry<'a>>),
}

enum FastEntry<'a> {
    Text(Cow<'a, str>),
    Value(Value),
}

impl<'de: 'a, 'a> Deserialize<'de> for FastNodes<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = FastNodes<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of nodes or a multi-line string")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(FastNodes::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(FastNodes::Text(Cow::Owned(v.to_string())))
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(entry) = seq.next_element::<FastEntry<'a>>()? {
                    if out.len() >= MAX_INVENTORY_NODES {
                        // Over the limit: the value path reports it, with its count.
                        return Err(serde::de::Error::custom("over the inventory limit"));
                    }
                    out.push(entry);
                }
                Ok(FastNodes::List(out))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for FastEntry<'a> {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> serde::de::Visitor<'de> for V<'a> {
            type Value = FastEntry<'a>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a compact node string or a Node object")
            }
            fn visit_borrowed_str<E: serde::de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(FastEntry::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(FastEntry::Text(Cow::Owned(v.to_string())))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Value::deserialize(serde::de::value::MapAccessDeserializer::new(map)).map(FastEntry::Value)
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
                Value::deserialize(serde::de::value::SeqAccessDeserializer::new(seq)).map(FastEntry::Value)
            }
            fn visit_bool<E: serde::de::Error>(self, v: bool) -> Result<Self::Value, E> {
                Ok(FastEntry::Value(Value::Bool(v)))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Self::Value, E> {
                Ok(FastEntry::Value(Value::from(v)))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Self::Value, E> {
                Ok(FastEntry::Value(Value::from(v)))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Self::Value, E> {
                Ok(FastEntry::Value(Value::from(v)))
            }
            fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
                Ok(FastEntry::Value(Value::Null))
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// The inventory as given: a settings value, or [`FastNodes`].
#[derive(Clone)]
enum NodesInput<'v> {
    Value(&'v Value),
    Fast(&'v FastNodes<'v>),
    /// The cluster's Nodes, read by the host's listing ([`host::ListedNodes::Read`]).
    Read(Vec<Node>),
}

/// Where the node inventory comes from: `settings` (default: `nodes`) or `cluster` (the
/// cluster's Nodes, listed through Kubewarden's host capabilities on each request that needs
/// them; `nodes` must then be absent).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum InventorySource {
    #[default]
    Settings,
    Cluster,
}

/// The settings, checked and compiled.
#[derive(Debug, Clone)]
pub struct Settings {
    pub inventory: NodeInventory,
    pub options: SimulateOptions,
    /// The scheduler profile for `options`.
    pub scheduler: SchedulerConfig,
    /// The inventory as the scheduler sees it (empty nodes), built on first use
    /// ([`Settings::node_infos`]).
    node_infos: std::sync::OnceLock<Vec<NodeInfo>>,
    pub disallowed_tolerations: Option<disallowed_tolerations::Policy>,
    pub required_placement: Option<required_placement::Policy>,
    pub schedulable: Option<schedulable::Policy>,
    pub daemonset_coverage: Option<daemonset_coverage::Policy>,
    /// Gatekeeper ConstraintTemplates and Constraints, compiled (shared by the settings
    /// [`Settings::with_listed_nodes`] makes for each request).
    #[cfg(feature = "admission-gatekeeper")]
    pub gatekeeper: Option<Arc<gatekeeper::Policy>>,
    /// With `inventory: cluster`, before the Nodes are listed: the settings of the policies
    /// that read the inventory, read again over each request's Nodes.
    inventory_policies: Option<Arc<InventoryPolicies>>,
}

/// The settings of the policies that are read against the node inventory (pools named in
/// them must exist, ...), and the pool label the inventory is grouped by.
#[derive(Debug, Default)]
struct InventoryPolicies {
    pool_label: Option<String>,
    required_placement: Option<Value>,
    schedulable: Option<Value>,
    daemonset_coverage: Option<Value>,
}

/// What [`InventoryPolicies`] read as over one inventory.
type ReadInventoryPolicies =
    (Option<required_placement::Policy>, Option<schedulable::Policy>, Option<daemonset_coverage::Policy>);

/// Reads the policies that read the inventory: one home for [`Settings::read_parts`] and
/// [`Settings::with_listed_nodes`].
fn read_inventory_policies(
    required_placement: Option<&Value>,
    schedulable: Option<&Value>,
    daemonset_coverage: Option<&Value>,
    inventory: &NodeInventory,
    options: &SimulateOptions,
) -> Result<ReadInventoryPolicies, SettingsError> {
    let required_placement = required_placement
        .map(|v| required_placement::Policy::from_settings(v, &path("requiredPlacement"), inventory, options))
        .transpose()?;
    let schedulable =
        schedulable.map(|v| schedulable::Policy::from_settings(v, &path("schedulable"), inventory)).transpose()?;
    let daemonset_coverage = daemonset_coverage
        .map(|v| daemonset_coverage::Policy::from_settings(v, &path("daemonsetCoverage"), inventory))
        .transpose()?;
    Ok((required_placement, schedulable, daemonset_coverage))
}

impl Settings {
    /// Reads and checks settings JSON (`null` reads as `{}`). With `inventory: cluster`, the
    /// checks that need the nodes wait for them ([`Settings::with_listed_nodes`]).
    pub fn from_value(value: &Value) -> Result<Settings, SettingsError> {
        Self::read(value, Compile::Now)
    }

    /// [`Settings::from_value`] for answering requests: Gatekeeper templates are compiled when
    /// a request first needs them (a fresh policy instance per request compiles only what the
    /// request matches), so a Rego error in a template is reported by the first request that
    /// evaluates it, as the same `invalid settings` error, rather than by every request.
    /// Kubewarden's policy-server checks the settings with `validate_settings`
    /// ([`Settings::from_value`]) before it serves a request.
    pub fn for_requests(value: &Value) -> Result<Settings, SettingsError> {
        Self::read(value, Compile::WhenUsed)
    }

    /// These settings (`inventory: cluster`, read without Nodes) over the cluster's Nodes
    /// (`items` of the List the host answered): only the inventory and the policies that read
    /// it are read; the rest, Gatekeeper's compiled templates included, is shared. Settings of
    /// any other kind come back as they are.
    pub fn with_listed_nodes(&self, nodes: host::ListedNodes) -> Result<Settings, SettingsError> {
        let Some(parts) = &self.inventory_policies else { return Ok(self.clone()) };
        let at = "the cluster's Nodes";
        let items;
        let input = match nodes {
            host::ListedNodes::Read(read) => NodesInput::Read(read),
            host::ListedNodes::Items(value) => {
                items = value;
                NodesInput::Value(&items)
            }
        };
        let inventory = parse_inventory(input, at)?.into_inventory(at.to_string(), parts.pool_label.clone(), true);
        let (required_placement, schedulable, daemonset_coverage) = read_inventory_policies(
            parts.required_placement.as_ref(),
            parts.schedulable.as_ref(),
            parts.daemonset_coverage.as_ref(),
            &inventory,
            &self.options,
        )?;
        Ok(Settings {
            inventory,
            options: self.options.clone(),
            scheduler: self.scheduler.clone(),
            node_infos: Default::default(),
            disallowed_tolerations: self.disallowed_tolerations.clone(),
            required_placement,
            schedulable,
            daemonset_coverage,
            #[cfg(feature = "admission-gatekeeper")]
            gatekeeper: self.gatekeeper.clone(),
            inventory_policies: None,
        })
    }

    /// The inventory's nodes as the scheduler sees them (empty), built on first use.
    pub fn node_infos(&self) -> &[NodeInfo] {
        self.node_infos.get_or_init(|| self.inventory.nodes().iter().map(|n| NodeInfo::shared(Arc::clone(n))).collect())
    }

    /// Whether a request must list the cluster's Nodes first: `inventory: cluster` and a
    /// policy that reads the inventory.
    pub fn needs_cluster_nodes(&self) -> bool {
        self.inventory.from_cluster
            && self.inventory.is_empty()
            && (self.schedulable.is_some()
                || self.required_placement.is_some()
                || self.daemonset_coverage.as_ref().is_some_and(|p| !p.blanket))
    }

    /// [`Settings::for_requests`] straight from the settings' JSON text, without building a
    /// `serde_json::Value` of the whole document: the node inventory's strings are read in
    /// place (borrowed from `text` where they have no escapes), and only the policies' own
    /// settings, small, become values. Settings that this fast reading refuses (an unknown
    /// key, a value of the wrong type, a repeated key) are read again through the value, so
    /// that every error, with its path, is the one [`Settings::for_requests`] gives. `None`
    /// when `text` is not JSON at all.
    pub fn for_requests_from_slice(text: &[u8]) -> Option<Result<Settings, SettingsError>> {
        Self::from_slice(text, Compile::WhenUsed)
    }

    /// [`Settings::for_requests_from_slice`] with every Gatekeeper template compiled now and
    /// the inventory's scheduler view built: what a pre-initialized module keeps in its
    /// memory image ([`super::Validator::preinitialize`]).
    pub fn preinitialized_from_slice(text: &[u8]) -> Option<Result<Settings, SettingsError>> {
        let read = Self::from_slice(text, Compile::Now)?;
        if let Ok(settings) = &read {
            settings.node_infos();
        }
        Some(read)
    }

    fn from_slice(text: &[u8], compile: Compile) -> Option<Result<Settings, SettingsError>> {
        // Only a mapping takes the fast reading (`[]` would read as the defaults).
        let fast =
            if super::starts_an_object(text) { serde_json::from_slice::<FastSettings<'_>>(text).ok() } else { None };
        match fast {
            Some(fast) => Some(Self::read_parts(fast.parts(), compile)),
            None => serde_json::from_slice::<Value>(text).ok().map(|v| Self::read(&v, compile)),
        }
    }

    fn read(value: &Value, compile: Compile) -> Result<Settings, SettingsError> {
        if !(value.is_object() || value.is_null()) {
            return Err(SettingsError::new(
                "settings",
                format!("expected a mapping of settings, found {}", type_name(value)),
            ));
        }
        let raw: RawSettings =
            if value.is_null() { RawSettings::default() } else { decode_setting(value, "settings")? };
        let member = |present: Option<IgnoredAny>, key: &str| RawSettings::member(value, present, key);
        let parts = Parts {
            nodes: member(raw.nodes, "nodes").map(NodesInput::Value),
            inventory: raw.inventory,
            pool_label: raw.pool_label,
            kube_version: raw.kube_version,
            feature_gates: raw.feature_gates,
            disallowed_tolerations: member(raw.disallowed_tolerations, "disallowedTolerations"),
            required_placement: member(raw.required_placement, "requiredPlacement"),
            schedulable: member(raw.schedulable, "schedulable"),
            daemonset_coverage: member(raw.daemonset_coverage, "daemonsetCoverage"),
            gatekeeper: member(raw.gatekeeper, "gatekeeper"),
        };
        Self::read_parts(parts, compile)
    }

    /// The settings from their members, however they were decoded ([`Settings::read`] from a
    /// value, [`Settings::for_requests_from_slice`] from the text).
    fn read_parts(raw: Parts<'_>, compile: Compile) -> Result<Settings, SettingsError> {
        let mut options = match &raw.kube_version {
            None => SimulateOptions::default(),
            Some(v) => SimulateOptions::for_version(
                v.parse::<KubeVersion>().map_err(|e| SettingsError::new(path("kubeVersion"), e.to_string()))?,
            ),
        };
        let mut gates: FeatureGates = options.gates;
        for (name, on) in &raw.feature_gates {
            gates.set(name, *on).map_err(|e| {
                SettingsError::new(
                    path(&format!("featureGates.{name}")),
                    format!("{e}: known gates are TaintTolerationComparisonOperators, PodLevelResources, SidecarContainers, DRAExtendedResource, DynamicResourceAllocation, VolumeAttributesClass, NodeDeclaredFeatures"),
                )
            })?;
        }
        options.gates = gates;
        // The inventory lists Nodes only: the workload's claims are checked by the cluster.
        options.model_storage = false;

        let pool_label = match &raw.pool_label {
            None => None,
            Some(l) => {
                validate_label_key(l, &FieldPath::root(&path("poolLabel")))
                    .map_err(|e| SettingsError::new(path("poolLabel"), e.to_string()))?;
                Some(l.clone())
            }
        };
        let from_cluster = raw.inventory == Some(InventorySource::Cluster);
        if from_cluster && raw.nodes.is_some() {
            return Err(SettingsError::new(
                path("nodes"),
                "inventory: cluster reads the cluster's Nodes: leave out nodes (or set inventory: settings)",
            ));
        }
        let read = match raw.nodes {
            Some(nodes) => parse_inventory(nodes, &path("nodes"))?,
            None => ReadInventory::default(),
        };
        // `inventory: cluster`: the Nodes are listed for each request that needs them
        // (`with_listed_nodes`), which reads these again over them.
        let inventory_policies = from_cluster.then(|| {
            Arc::new(InventoryPolicies {
                pool_label: pool_label.clone(),
                required_placement: raw.required_placement.cloned(),
                schedulable: raw.schedulable.cloned(),
                daemonset_coverage: raw.daemonset_coverage.cloned(),
            })
        });
        let inventory = read.into_inventory(path("nodes"), pool_label, from_cluster);

        let disallowed_tolerations = raw
            .disallowed_tolerations
            .map(|v| disallowed_tolerations::Policy::from_settings(v, &path("disallowedTolerations")))
            .transpose()?;
        let (required_placement, schedulable, daemonset_coverage) = read_inventory_policies(
            raw.required_placement,
            raw.schedulable,
            raw.daemonset_coverage,
            &inventory,
            &options,
        )?;
        #[cfg(feature = "admission-gatekeeper")]
        let gatekeeper = raw
            .gatekeeper
            .map(|v| gatekeeper::Policy::from_settings(v, &path("gatekeeper"), compile).map(Arc::new))
            .transpose()?;
        #[cfg(not(feature = "admission-gatekeeper"))]
        let _ = compile; // nothing to compile without Gatekeeper
        #[cfg(not(feature = "admission-gatekeeper"))]
        if raw.gatekeeper.is_some() {
            return Err(SettingsError::new(path("gatekeeper"), NO_GATEKEEPER));
        }

        let scheduler = options.scheduler_config();
        let mut settings = Settings {
            inventory,
            options,
            scheduler,
            node_infos: Default::default(),
            disallowed_tolerations,
            required_placement,
            schedulable,
            daemonset_coverage,
            #[cfg(feature = "admission-gatekeeper")]
            gatekeeper,
            inventory_policies,
        };
        if !settings.any_active() {
            // `{}` (what `kwctl scaffold manifest` writes): the safe default, which never
            // rejects or mutates, so a policy deployed as scaffolded cannot break the cluster.
            settings.disallowed_tolerations =
                Some(disallowed_tolerations::Policy::from_settings(&default_policy(), &path("disallowedTolerations"))?);
        }
        Ok(settings)
    }

    pub fn any_active(&self) -> bool {
        self.disallowed_tolerations.is_some()
            || self.required_placement.is_some()
            || self.schedulable.is_some()
            || self.daemonset_coverage.is_some()
            || self.gatekeeper_active()
    }

    #[cfg(feature = "admission-gatekeeper")]
    fn gatekeeper_active(&self) -> bool {
        self.gatekeeper.is_some()
    }

    #[cfg(not(feature = "admission-gatekeeper"))]
    fn gatekeeper_active(&self) -> bool {
        false
    }
}

// ---------------------------------------------------------------------------------------------
// The node inventory

/// The cluster's nodes as the settings describe them (not Gatekeeper's `data.inventory`,
/// which is [`crate::gatekeeper::Inventory`]).
///
/// Kept as shapes and names: the compact nodes of one shape (all but the name: taints,
/// labels, resources; a pool's nodes differ only by name, and zone) share one nameless
/// [`Node`]. Whole nodes are built only when a request needs them ([`NodeInventory::nodes`]:
/// a full simulation, a DaemonSet's node names); the usual request reads the shapes. A
/// fresh policy instance per request reads the inventory on every request, so what the
/// settings read builds per node is most of its cost.
#[derive(Debug, Clone, Default)]
pub struct NodeInventory {
    /// The distinct shapes, in the order the inventory first gives them. A Node object is
    /// its own shape, named.
    shapes: Vec<Shared>,
    /// The nodes, in the inventory's order: their names and shapes.
    members: Vec<Member>,
    /// The whole nodes, built on first use from `shapes` and `members`.
    nodes: std::sync::OnceLock<Vec<Arc<Node>>>,
    /// Where the nodes were read (`settings.nodes`, or the cluster's Nodes): the source of
    /// their documents in a simulation ([`NodeInventory::owned_nodes`]), which only the
    /// requests that need a full simulation build.
    pub source: String,
    /// `inventory: cluster`: the nodes are the cluster's, listed per request (empty until
    /// then). Pool names in the settings are then not checked against them: a pool may have
    /// no node at the moment (scaled to zero).
    pub from_cluster: bool,
    /// `poolLabel`, when set; otherwise the first of [`WELL_KNOWN_POOL_LABELS`] a node has.
    pub pool_label: Option<String>,
    /// The pools of the nodes, found once for all the pool lists the settings check
    /// ([`NodeInventory::check_pools`]) rather than over every node for each list. The
    /// inventory is read whole before any list is checked and not changed after.
    known_pools: std::sync::OnceLock<BTreeSet<String>>,
}

/// A shape of the inventory and how many of its nodes have it.
#[derive(Debug, Clone)]
struct Shared {
    node: Arc<Node>,
    count: usize,
}

/// A node of the inventory: its name and the index of its shape.
#[derive(Debug, Clone)]
struct Member {
    name: Box<str>,
    shape: usize,
}

/// A shape of [`NodeInventory::shapes`]: the nodes' taints, labels and resources.
#[derive(Debug, Clone, Copy)]
pub struct NodeShape<'a> {
    /// The shape as a Node: a compact shape has no name (a Node object keeps its own).
    pub node: &'a Arc<Node>,
    /// How many of the inventory's nodes have this shape.
    pub count: usize,
}

/// How a check goes over a [`NodeInventory`]: each shape once ([`NodeInventory::shapes`]),
/// which is what a fresh policy instance can afford (no whole node is built), or node by node.
/// The one place that decides which a pod allows ([`Walk::for_pod`]); the tests force
/// [`Walk::ByNode`] to compare the two.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Walk {
    ByShape,
    ByNode,
}

impl Walk {
    /// [`Walk::ByNode`] when placing `spec` may read a node's name: `nodeName`, or a required
    /// node-affinity term (the pod's, or the profile's addedAffinity) with `matchFields`
    /// (`metadata.name`). Otherwise the nodes of one shape are alike to it: [`Walk::ByShape`].
    pub fn for_pod(spec: &crate::model::PodSpec, cfg: &SchedulerConfig) -> Walk {
        let pods = crate::model::required_node_selector(spec.affinity.as_ref());
        let added = cfg.added_affinity.as_ref().and_then(|a| a.required.as_ref());
        let reads_names = !spec.node_name.is_empty()
            || [pods, added]
                .into_iter()
                .flatten()
                .any(|s| s.node_selector_terms.iter().any(|t| !t.match_fields.is_empty()));
        if reads_names {
            Walk::ByNode
        } else {
            Walk::ByShape
        }
    }

    /// This walk, or [`Walk::ByNode`] when `spec` needs it.
    pub fn allowed_for(self, spec: &crate::model::PodSpec, cfg: &SchedulerConfig) -> Walk {
        match self {
            Walk::ByNode => Walk::ByNode,
            Walk::ByShape => Walk::for_pod(spec, cfg),
        }
    }
}

impl NodeInventory {
    pub fn is_empty(&self) -> bool {
        self.members.is_empty()
    }

    /// How many nodes the inventory lists.
    pub fn len(&self) -> usize {
        self.members.len()
    }

    /// Whether the settings give no inventory at all: no `nodes`, and not `inventory: cluster`.
    pub fn is_missing(&self) -> bool {
        self.members.is_empty() && !self.from_cluster
    }

    /// The whole nodes, in the inventory's order (built on first use, then shared).
    pub fn nodes(&self) -> &[Arc<Node>] {
        self.nodes.get_or_init(|| {
            // Every member's shape is in `shapes` (they are read together).
            self.members
                .iter()
                .filter_map(|m| self.shapes.get(m.shape).map(|s| (m, &s.node)))
                .map(|(m, shape)| {
                    if *shape.metadata.name == *m.name {
                        Arc::clone(shape)
                    } else {
                        let mut node = (**shape).clone();
                        node.metadata.name = m.name.to_string();
                        Arc::new(node)
                    }
                })
                .collect()
        })
    }

    /// The distinct shapes, in the order the inventory first gives them, with how many nodes
    /// have each: what decides a filter that reads no node name.
    pub fn shapes(&self) -> impl Iterator<Item = NodeShape<'_>> + '_ {
        self.shapes.iter().map(|s| NodeShape { node: &s.node, count: s.count })
    }

    /// The inventory as `walk` goes over it: the shapes with their counts, or every node
    /// (built on first use) as a shape of one.
    pub fn walk(&self, walk: Walk) -> impl Iterator<Item = NodeShape<'_>> + '_ {
        let (shapes, nodes) = match walk {
            Walk::ByShape => (Some(self.shapes()), None),
            Walk::ByNode => (None, Some(self.nodes().iter().map(|node| NodeShape { node, count: 1 }))),
        };
        shapes.into_iter().flatten().chain(nodes.into_iter().flatten())
    }

    /// The nodes of `pools` with their pools, in the inventory's order, as `walk` goes over
    /// them: by shape, each shape once at its first node in the pools, which is all a check
    /// needs that reads taints and labels and learns nothing more from a shape's later nodes
    /// (the tolerations a DaemonSet lacks, whether it runs everywhere it targets).
    pub fn walk_in_pools<'a>(&'a self, pools: &'a PoolSet, walk: Walk) -> Vec<(&'a Node, &'a str)> {
        match walk {
            Walk::ByShape => self.shapes_in_pools(pools),
            Walk::ByNode => self.in_pools(pools).map(|n| (n, self.pool_of(n))).collect(),
        }
    }

    /// The node's pool: the value of the pool label, or the node's name when it has none.
    pub fn pool_of<'a>(&self, node: &'a Node) -> &'a str {
        self.labelled_pool(node).unwrap_or(&node.metadata.name)
    }

    /// The value of the pool label of a node of this shape, if it has the label.
    fn labelled_pool<'a>(&self, shape: &'a Node) -> Option<&'a str> {
        let labels = &shape.metadata.labels;
        let found = match &self.pool_label {
            Some(l) => labels.get(l),
            None => WELL_KNOWN_POOL_LABELS.iter().find_map(|l| labels.get(*l)),
        };
        found.map(String::as_str)
    }

    /// [`NodeInventory::labelled_pool`] of each shape, by shape index: a shape with the pool
    /// label gives every node of it the same pool, one without gives each node its name.
    fn labelled_pools(&self) -> Vec<Option<&str>> {
        self.shapes.iter().map(|s| self.labelled_pool(&s.node)).collect()
    }

    pub fn pools(&self) -> BTreeSet<&str> {
        let labelled = self.labelled_pools();
        let mut pools: BTreeSet<&str> = labelled.iter().flatten().copied().collect();
        pools.extend(
            self.members.iter().filter(|m| labelled.get(m.shape).is_some_and(Option::is_none)).map(|m| &*m.name),
        );
        pools
    }

    /// The nodes whose labels include all of `labels`, as their shapes: a shape once however
    /// many nodes have it, in the order the inventory first gives them.
    pub fn shapes_with_labels<'a>(&'a self, labels: &'a Labels) -> impl Iterator<Item = &'a Node> + 'a {
        self.shapes
            .iter()
            .map(|s| &*s.node)
            .filter(move |n| labels.iter().all(|(k, v)| n.metadata.labels.get(k) == Some(v)))
    }

    /// Checks a list of pool names (`*` = every pool) against the inventory.
    pub fn check_pools(&self, pools: &[String], at: &str) -> Result<PoolSet, SettingsError> {
        if pools.iter().any(|p| p == "*") {
            return Ok(PoolSet::All);
        }
        if self.from_cluster {
            return Ok(PoolSet::Some(pools.iter().cloned().collect()));
        }
        let known = self.known_pools.get_or_init(|| self.pools().into_iter().map(str::to_string).collect());
        let mut set = BTreeSet::new();
        for (i, p) in pools.iter().enumerate() {
            if !known.contains(p.as_str()) {
                let label = match &self.pool_label {
                    Some(l) => format!("pool label {l:?}"),
                    None => format!("pool labels {}", WELL_KNOWN_POOL_LABELS.join(", ")),
                };
                let listed: Vec<&str> = known.iter().map(String::as_str).collect();
                return Err(SettingsError::new(
                    format!("{at}[{i}]"),
                    format!(
                        "pool {p:?} matches no node of settings.nodes (pools found by {label}: {})",
                        if listed.is_empty() { "none".to_string() } else { listed.join(", ") }
                    ),
                ));
            }
            set.insert(p.clone());
        }
        Ok(PoolSet::Some(set))
    }

    /// The nodes as a simulation's input takes them (shared), each named as the document it
    /// was read from (its 1-based position in [`NodeInventory::source`]).
    pub fn owned_nodes(&self) -> Vec<(DocRef, Arc<Node>)> {
        self.nodes()
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let doc = DocRef {
                    index: i + 1,
                    source: self.source.clone(),
                    kind: "Node".into(),
                    namespace: None,
                    name: n.metadata.name.clone(),
                };
                (doc, Arc::clone(n))
            })
            .collect()
    }

    /// [`NodeInventory::walk_in_pools`] by shape: each shape once, at its first node in the
    /// pools, with that node's pool, without building the nodes.
    fn shapes_in_pools<'a>(&'a self, pools: &PoolSet) -> Vec<(&'a Node, &'a str)> {
        let labelled = self.labelled_pools();
        let labelled_in: Vec<bool> = labelled.iter().map(|p| p.is_some_and(|p| pools.contains(p))).collect();
        let mut seen = vec![false; self.shapes.len()];
        let mut out = Vec::new();
        for m in &self.members {
            let (Some(shape), Some(pool), Some(seen)) =
                (self.shapes.get(m.shape), labelled.get(m.shape), seen.get_mut(m.shape))
            else {
                continue;
            };
            if *seen {
                continue;
            }
            let in_pools = match pool {
                Some(_) => labelled_in.get(m.shape).copied().unwrap_or(false),
                None => pools.contains(&m.name),
            };
            if in_pools {
                *seen = true;
                out.push((&*shape.node, pool.unwrap_or(&m.name)));
            }
        }
        out
    }

    pub fn in_pools<'a>(&'a self, pools: &'a PoolSet) -> impl Iterator<Item = &'a Node> + 'a {
        self.nodes().iter().map(|n| &**n).filter(move |n| pools.contains(self.pool_of(n)))
    }
}

/// A set of pools from the settings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PoolSet {
    All,
    Some(BTreeSet<String>),
}

impl PoolSet {
    pub fn contains(&self, pool: &str) -> bool {
        match self {
            PoolSet::All => true,
            PoolSet::Some(s) => s.contains(pool),
        }
    }
}

impl fmt::Display for PoolSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PoolSet::All => f.write_str("every pool"),
            PoolSet::Some(s) => {
                let v: Vec<&str> = s.iter().map(String::as_str).collect();
                write!(f, "pool(s) {}", v.join(", "))
            }
        }
    }
}

/// Where an inventory entry is, for its errors (the path is only written when one is reported).
#[derive(Debug, Clone, Copy)]
enum EntryAt {
    /// A line of the multi-line string form (0-based).
    Line(usize),
    /// An item of the list form.
    Index(usize),
}

impl EntryAt {
    fn path(self, at: &str) -> String {
        match self {
            EntryAt::Line(i) => format!("{at} (line {})", i + 1),
            EntryAt::Index(i) => format!("{at}[{i}]"),
        }
    }
}

/// An item of the inventory: a compact string (a list item or a line), or any other value.
#[derive(Clone)]
enum Entry<'v> {
    Text(&'v str),
    Value(&'v Value),
    Node(Box<Node>),
}

/// The lines of the multi-line string form that name a node (comments and blank lines left out).
fn text_entries(text: &str) -> Vec<(EntryAt, Entry<'_>)> {
    text.lines()
        .enumerate()
        .map(|(i, l)| (EntryAt::Line(i), l.split_once('#').map_or(l, |(before, _)| before).trim()))
        .filter(|(_, l)| !l.is_empty())
        .map(|(i, l)| (i, Entry::Text(l)))
        .collect()
}

fn parse_inventory(nodes: NodesInput<'_>, at: &str) -> Result<ReadInventory, SettingsError> {
    let entries: Vec<(EntryAt, Entry<'_>)> = match nodes {
        NodesInput::Fast(FastNodes::Text(text)) => text_entries(text),
        NodesInput::Fast(FastNodes::List(items)) => items
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let entry = match e {
                    FastEntry::Text(t) => Entry::Text(t),
                    FastEntry::Value(v) => Entry::Value(v),
                };
                (EntryAt::Index(i), entry)
            })
            .collect(),
        NodesInput::Read(nodes) => nodes.into_iter().enumerate().map(|(i, n)| (EntryAt::Index(i), Entry::Node(Box::new(n)))).collect(),
        NodesInput::Value(Value::Null) => Vec::new(),
        NodesInput::Value(Value::String(text)) => text_entries(text),
        NodesInput::Value(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| (EntryAt::Index(i), v.as_str().map_or(Entry::Value(v), Entry::Text)))
            .collect(),
        NodesInput::Value(other) => {
            return Err(SettingsError::new(
                at,
                format!(
                    "expected a list of nodes (compact strings such as \"gpu-1: sku=gpu:NoSchedule; pool=gpu\" or Node objects) or a multi-line string, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    if entries.len() > MAX_INVENTORY_NODES {
        return Err(SettingsError::new(
            at,
            format!("{} nodes, over the limit of {MAX_INVENTORY_NODES}", entries.len()),
        ));
    }
    let mut out = ReadInventory { shapes: Vec::new(), members: Vec::with_capacity(entries.len()) };
    // Names borrowed from the settings text where they can be (the compact form).
    let mut seen: HashMap<Cow<'_, str>, EntryAt, foldhash::fast::FixedState> =
        HashMap::with_capacity_and_hasher(entries.len(), foldhash::fast::FixedState::default());
    // Nodes of a pool differ by name (and zone): each distinct shape is read and checked once,
    // and its nodes share it, which gives the same nodes and the same first error as reading
    // every node in full.
    let mut shapes: HashMap<&str, ShapeRead, foldhash::fast::FixedState> = HashMap::default();
    for (entry_at, entry) in entries {
        let name = match entry {
            Entry::Text(text) => {
                let (name, rest) =
                    compact_name(text).map_err(|m| SettingsError::new(entry_at.path(at), format!("{text:?}: {m}")))?;
                let shape = shapes.entry(rest).or_insert_with(|| {
                    compact_shape(rest).map(|n| {
                        let first = validate_node_shape(&n).into_iter().next();
                        out.shapes.push(Shared { node: Arc::new(n), count: 0 });
                        (out.shapes.len() - 1, first)
                    })
                });
                let (index, shape_error) = match shape {
                    Ok((i, e)) => (*i, e),
                    Err(m) => return Err(SettingsError::new(entry_at.path(at), format!("{text:?}: {m}"))),
                };
                // `validate_node`'s order: the name's errors, then the shape's.
                if let Some(first) = validate_plain_node_name(name).into_iter().next().or_else(|| shape_error.clone()) {
                    return Err(SettingsError::new(entry_at.path(at), format!("node {name:?}: {first}")));
                }
                if let Some(shape) = out.shapes.get_mut(index) {
                    shape.count += 1;
                }
                out.members.push(Member { name: name.into(), shape: index });
                Cow::Borrowed(name)
            }
            Entry::Value(value @ Value::Object(_)) => {
                let where_ = entry_at.path(at);
                out.push_checked(node_object(value, &where_)?, &where_)?
            }
            Entry::Node(node) => out.push_checked(*node, &entry_at.path(at))?,
            Entry::Value(other) => {
                return Err(SettingsError::new(
                    entry_at.path(at),
                    format!("expected a compact node string or a Node object, found {}", type_name(other)),
                ))
            }
        };
        if let Some(prev) = seen.get(&name) {
            return Err(SettingsError::new(
                entry_at.path(at),
                format!("duplicate node name {name:?} (also {})", prev.path(at)),
            ));
        }
        seen.insert(name, entry_at);
    }
    Ok(out)
}

/// A compact shape as [`parse_inventory`] read it: its index in [`ReadInventory::shapes`] and
/// the first of [`validate_node_shape`]'s errors, or the compact form's error.
type ShapeRead = Result<(usize, Option<FieldError>), String>;

/// The inventory as [`parse_inventory`] reads it, before the settings around it.
#[derive(Debug, Default)]
struct ReadInventory {
    shapes: Vec<Shared>,
    members: Vec<Member>,
}

impl ReadInventory {
    /// A whole node (the item at `at`), its own shape, once `validate_node` accepts it; its
    /// name.
    fn push_checked(&mut self, node: Node, at: &str) -> Result<Cow<'static, str>, SettingsError> {
        if let Some(first) = validate_node(&node).into_iter().next() {
            return Err(SettingsError::new(at, format!("node {:?}: {first}", node.metadata.name)));
        }
        let name = Cow::Owned(node.metadata.name.clone());
        self.push_named(node);
        Ok(name)
    }

    /// A whole node, its own shape.
    fn push_named(&mut self, node: Node) {
        let name = node.metadata.name.as_str().into();
        self.shapes.push(Shared { node: Arc::new(node), count: 1 });
        self.members.push(Member { name, shape: self.shapes.len() - 1 });
    }

    /// The whole nodes, in order (what reading each node alone gives).
    #[cfg(test)]
    fn into_nodes(self) -> Vec<Node> {
        self.into_inventory(String::new(), None, false).nodes().iter().map(|n| (**n).clone()).collect()
    }

    fn into_inventory(self, source: String, pool_label: Option<String>, from_cluster: bool) -> NodeInventory {
        NodeInventory {
            shapes: self.shapes,
            members: self.members,
            nodes: Default::default(),
            source,
            from_cluster,
            pool_label,
            known_pools: Default::default(),
        }
    }
}

fn node_object(value: &Value, at: &str) -> Result<Node, SettingsError> {
    if let Some(kind) = value.get("kind").and_then(Value::as_str) {
        if kind != "Node" {
            return Err(SettingsError::new(format!("{at}.kind"), format!("expected \"Node\", found {kind:?}")));
        }
    }
    let mut v = value.clone();
    crate::input::documents::strip_nulls(&mut v);
    decode_setting(&v, at)
}

/// Parses `NAME[: TAINT,...[; LABEL,...[; RESOURCE,...]]]` (see the module docs); the error
/// names `path` (the setting) and quotes `text`.
pub fn parse_compact_node(text: &str, path: &str) -> Result<Node, SettingsError> {
    compact_node(text).map_err(|m| SettingsError::new(path, format!("{text:?}: {m}")))
}

fn compact_node(text: &str) -> Result<Node, String> {
    let (name, rest) = compact_name(text)?;
    let mut node = compact_shape(rest)?;
    node.metadata.name = name.to_string();
    Ok(node)
}

/// A compact node's name and the text after it (its shape), the name checked.
fn compact_name(text: &str) -> Result<(&str, &str), String> {
    let (name, rest) = match text.split_once(':') {
        Some((n, r)) => (n.trim(), r),
        None => (text.trim(), ""),
    };
    if name.is_empty() {
        return Err("missing node name: expected NAME[: TAINTS[; LABELS[; RESOURCES]]]".into());
    }
    // Bytes first: a name is ASCII but for typos, and this runs for every node of every
    // request in a fresh instance.
    let ascii_bad = name.bytes().any(|b| b.is_ascii_whitespace() || b == b'=' || b == b',');
    if ascii_bad || (!name.is_ascii() && name.contains(char::is_whitespace)) {
        return Err(format!(
            "node name {name:?} is not a valid name: expected NAME[: TAINTS[; LABELS[; RESOURCES]]], e.g. \"gpu-1: sku=gpu:NoSchedule; pool=gpu\""
        ));
    }
    Ok((name, rest))
}

/// `TAINTS[; LABELS[; RESOURCES]]`: a node without a name.
fn compact_shape(rest: &str) -> Result<Node, String> {
    let mut node = Node::default();
    let mut sections = rest.split(';');
    let taints = sections.next().unwrap_or_default();
    let labels = sections.next().unwrap_or_default();
    let resources = sections.next();
    if sections.next().is_some() {
        return Err("too many ';' sections: expected NAME: TAINTS; LABELS; RESOURCES".into());
    }
    for item in items(taints) {
        node.spec.taints.push(item.parse::<Taint>().map_err(|e| e.to_string())?);
    }
    for item in items(labels) {
        let (k, v) = item.split_once('=').ok_or_else(|| format!("label {item:?}: expected key=value"))?;
        let (k, v) = (k.trim(), v.trim());
        validate_label_key(k, &FieldPath::root("label")).map_err(|e| format!("label {item:?}: {}", detail(&e)))?;
        validate_label_value(v, &FieldPath::root("label")).map_err(|e| format!("label {item:?}: {}", detail(&e)))?;
        if node.metadata.labels.insert(k.to_string(), v.to_string()).is_some() {
            return Err(format!("label {k:?} given twice"));
        }
    }
    if let Some(resources) = resources {
        let mut list = ResourceList::new();
        for item in items(resources) {
            let (k, v) =
                item.split_once('=').ok_or_else(|| format!("resource {item:?}: expected name=quantity, e.g. cpu=4"))?;
            let q = Quantity::parse(v.trim()).map_err(|e| format!("resource {item:?}: {e}"))?;
            list.insert(k.trim().to_string(), q);
        }
        if !list.is_empty() {
            node.status.allocatable = Some(list);
        }
    }
    Ok(node)
}

/// A taint given in the settings either as `key[=value]:Effect` or as an object.
pub fn taint_from_setting(value: &Value, at: &str) -> Result<Taint, SettingsError> {
    let taint = match value {
        Value::String(s) => s.parse::<Taint>().map_err(|e| SettingsError::new(at, e.to_string()))?,
        Value::Object(_) => {
            let t: Taint = decode_setting(value, at)?;
            if !EFFECTS.contains(&t.effect.as_str()) {
                return Err(SettingsError::new(
                    format!("{at}.effect"),
                    format!("{:?} is not one of {}", t.effect, EFFECTS.join(", ")),
                ));
            }
            t
        }
        other => {
            return Err(SettingsError::new(
                at,
                format!(
                    "expected a taint such as \"sku=gpu:NoSchedule\" or {{key, value, effect}}, found {}",
                    type_name(other)
                ),
            ))
        }
    };
    validate_label_key(&taint.key, &FieldPath::root("key"))
        .map_err(|e| SettingsError::new(at, format!("taint key {:?}: {}", taint.key, detail(&e))))?;
    validate_label_value(&taint.value, &FieldPath::root("value"))
        .map_err(|e| SettingsError::new(at, format!("taint value {:?}: {}", taint.value, detail(&e))))?;
    Ok(taint)
}

fn items(section: &str) -> impl Iterator<Item = &str> {
    section.split(',').map(str::trim).filter(|s| !s.is_empty())
}

/// A field error's detail without its placeholder field path.
fn detail(e: &crate::input::field::FieldError) -> String {
    if e.detail.is_empty() {
        e.to_string()
    } else {
        e.detail.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn compact_nodes() {
        let n = parse_compact_node(
            "gpu-1: sku=gpu:NoSchedule, dedicated:NoExecute; pool=gpu, zone=a; cpu=8, pods=110",
            "n",
        )
        .unwrap();
        assert_eq!(n.metadata.name, "gpu-1");
        assert_eq!(n.spec.taints.len(), 2);
        assert_eq!(n.spec.taints[0].to_string(), "sku=gpu:NoSchedule");
        assert_eq!(n.spec.taints[1].to_string(), "dedicated:NoExecute");
        assert_eq!(n.metadata.labels["pool"], "gpu");
        assert_eq!(n.status.allocatable.as_ref().unwrap()["cpu"].to_string(), "8");
        let plain = parse_compact_node("  plain-1  ", "n").unwrap();
        assert!(plain.spec.taints.is_empty() && plain.status.allocatable.is_none());
        let labels_only = parse_compact_node("a: ; pool=x", "n").unwrap();
        assert_eq!(labels_only.metadata.labels["pool"], "x");
    }

    #[test]
    fn compact_node_errors_say_what_is_wrong() {
        let rows = [
            ("gpu-1: sku=gpu:NoSchedul", "effect \"NoSchedul\" is not one of NoSchedule, PreferNoSchedule, NoExecute"),
            (": a:NoSchedule", "missing node name"),
            ("a: sku=gpu", "expected key[=value]:Effect"),
            ("a: ; pool", "label \"pool\": expected key=value"),
            ("a: ; ; cpu=lots", "resource \"cpu=lots\""),
            ("a: ; ; ; x", "too many ';' sections"),
            ("a b: x:NoSchedule", "is not a valid name"),
            ("a: ; bad key=1", "label \"bad key=1\""),
        ];
        for (text, want) in rows {
            let err = parse_compact_node(text, "settings.nodes[0]").unwrap_err();
            assert_eq!(err.path, "settings.nodes[0]");
            assert!(err.message.contains(want), "{text}: {err}");
        }
    }

    #[test]
    fn inventory_errors_name_path_and_value() {
        let err = Settings::from_value(&json!({"nodes": ["a", "b: x=y:Nope"], "schedulable": {}})).unwrap_err();
        assert_eq!(err.path, "settings.nodes[1]");
        assert!(err.message.contains("\"b: x=y:Nope\""), "{err}");
        let err = Settings::from_value(&json!({"nodes": ["a", "a"], "schedulable": {}})).unwrap_err();
        assert!(err.to_string().contains("duplicate node name \"a\""), "{err}");
        let err = Settings::from_value(&json!({"nodes": 3, "schedulable": {}})).unwrap_err();
        assert!(err.to_string().starts_with("settings.nodes: expected a list"), "{err}");
        let err = Settings::from_value(&json!({"nodes": [{"kind": "Node", "metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "Bad"}]}}], "schedulable": {}})).unwrap_err();
        assert!(err.to_string().contains("metadata.taints[0].effect: Unsupported value: \"Bad\""), "{err}");
    }

    /// Every node read alone, in full: the inventory as it was read before shapes were shared.
    fn each_node_alone(list: &[&str], at: &str) -> Result<Vec<Node>, SettingsError> {
        let mut out: Vec<Node> = Vec::new();
        for (i, text) in list.iter().enumerate() {
            let where_ = format!("{at}[{i}]");
            let node = parse_compact_node(text, &where_)?;
            if let Some(first) = validate_node(&node).into_iter().next() {
                return Err(SettingsError::new(&where_, format!("node {:?}: {first}", node.metadata.name)));
            }
            if let Some(prev) = out.iter().position(|n| n.metadata.name == node.metadata.name) {
                return Err(SettingsError::new(
                    where_,
                    format!("duplicate node name {:?} (also {at}[{prev}])", node.metadata.name),
                ));
            }
            out.push(node);
        }
        Ok(out)
    }

    #[test]
    fn shared_shapes_read_as_each_node_alone() {
        let general = |i: usize| format!("general-{i}: ; pool=general, zone=z{}; cpu=8, memory=32Gi, pods=110", i % 3);
        let mut typical: Vec<String> = (0..40).map(general).collect();
        typical.extend((0..10).map(|i| format!("gpu-{i}: sku=gpu:NoSchedule; pool=gpu; cpu=16, nvidia.com/gpu=4")));
        typical.push("bare".into());
        typical.push("bare-2".into());
        let with = |extra: &[&str]| -> Vec<String> {
            let mut v = typical.clone();
            v.splice(5..5, extra.iter().map(|s| s.to_string()));
            v
        };
        let cases: Vec<Vec<String>> = vec![
            typical.clone(),
            // A name the compact form accepts but the API server does not, in a valid shape.
            with(&["Bad_Name: ; pool=general, zone=z0; cpu=8, memory=32Gi, pods=110"]),
            // A shape that fails validation (a negative quantity, a fractional GPU), first met
            // on a node whose name is also bad, then on good names.
            with(&["UPPER: ; pool=x; cpu=-1", "ok-1: ; pool=x; cpu=-1"]),
            with(&["ok-2: ; pool=x; nvidia.com/gpu=1.5"]),
            // A shape the compact form refuses, shared by two nodes.
            with(&["a-1: sku=gpu:NoSchedul; pool=gpu", "a-2: sku=gpu:NoSchedul; pool=gpu"]),
            // Duplicate names across and within shapes.
            with(&["general-3: ; pool=general, zone=z0; cpu=8, memory=32Gi, pods=110"]),
            with(&["gpu-2: ; pool=other"]),
            // Names at and over the 253-character limit.
            with(&[&format!("{}: ; pool=general", "a".repeat(253)), &format!("{}: ; pool=general", "b".repeat(254))]),
            // Whitespace around the name and an empty shape.
            with(&["  spaced-1  :  ; pool=general  ", "spaced-2:"]),
        ];
        for list in &cases {
            let texts: Vec<&str> = list.iter().map(String::as_str).collect();
            let want = each_node_alone(&texts, "settings.nodes");
            let got =
                parse_inventory(NodesInput::Value(&json!(texts)), "settings.nodes").map(ReadInventory::into_nodes);
            assert_eq!(got, want, "{texts:?}");
        }
        // The cases above cover both outcomes.
        let outcomes: Vec<bool> = cases
            .iter()
            .map(|l| each_node_alone(&l.iter().map(String::as_str).collect::<Vec<_>>(), "x").is_ok())
            .collect();
        assert!(outcomes.contains(&true) && outcomes.iter().filter(|ok| !**ok).count() >= 7, "{outcomes:?}");
    }

    /// Settings read from their text (the fresh instance's path) give what reading them as a
    /// value gives, errors included, and the texts the fast decoding refuses are the ones
    /// expected to fall back.
    #[test]
    fn settings_from_text_read_as_from_value() {
        let inventory = r#"["gpu-1: sku=gpu:NoSchedule; pool=gpu; cpu=16", "gen-1: ; pool=general; cpu=8", "gen-2: ; pool=general; cpu=8"]"#;
        let policies = r#""schedulable": {"daemonSetPools": ["general"]}, "requiredPlacement": {"rules": [{"name": "r", "namespaces": ["ml"], "pool": "gpu"}]}, "daemonsetCoverage": {"daemonSets": [{"namespace": "t"}], "pools": ["general", "gpu"]}"#;
        // (settings text, whether the fast decoding reads it)
        let cases: Vec<(String, bool)> = vec![
            (format!(r#"{{"nodes": {inventory}, "poolLabel": "pool", {policies}}}"#), true),
            (format!(r#"{{"nodes": {inventory}, "kubeVersion": "1.33", "featureGates": {{"SidecarContainers": true}}, {policies}}}"#), true),
            ("{}".into(), true),
            (r#"{"disallowedTolerations": null, "nodes": null}"#.into(), true),
            // Escaped strings (read owned), a Node object among compact strings, the multi-line form.
            (r#"{"nodes": ["a\u002d1: ; pool=x", {"kind": "Node", "metadata": {"name": "b-1", "labels": {"pool": "x"}}}], "schedulable": {}}"#.into(), true),
            (r#"{"nodes": "a-1: ; pool=x\n# comment\nb-1: ; pool=x # trailing\n", "schedulable": {}}"#.into(), true),
            // Errors found after decoding, the same on both paths.
            (r#"{"nodes": ["a", "b: x=y:Nope"], "schedulable": {}}"#.into(), true),
            (r#"{"nodes": ["a", "a"], "schedulable": {}}"#.into(), true),
            (r#"{"nodes": ["a", 3, true, null, [1]], "schedulable": {}}"#.into(), true),
            (r#"{"nodes": ["a"], "inventory": "cluster", "schedulable": {}}"#.into(), true),
            (r#"{"nodes": ["a: ; pool=x"], "schedulable": {"daemonSetPools": ["nope"]}}"#.into(), true),
            (r#"{"kubeVersion": "2.1", "schedulable": {}}"#.into(), true),
            (r#"{"poolLabel": "a b", "schedulable": {}}"#.into(), true),
            (r#"{"featureGates": {"Nope": true}, "schedulable": {}}"#.into(), true),
            // Refused by the fast decoding: read through the value, with its errors and paths.
            (r#"{"disalowedTolerations": {}}"#.into(), false),
            (r#"{"nodes": 3, "schedulable": {}}"#.into(), false),
            (r#"{"nodes": {"a": 1}, "schedulable": {}}"#.into(), false),
            (r#"{"kubeVersion": 1, "schedulable": {}}"#.into(), false),
            (r#"{"featureGates": null, "schedulable": {}}"#.into(), false),
            (r#"{"inventory": "elsewhere", "schedulable": {}}"#.into(), false),
            (r#"{"schedulable": {}, "schedulable": {"daemonSetPools": ["x"]}}"#.into(), false),
            ("null".into(), false),
            ("[1]".into(), false),
        ];
        let mut over = String::from(r#"{"schedulable": {}, "nodes": ["#);
        for i in 0..=MAX_INVENTORY_NODES {
            over.push_str(&format!("{}\"n{i}\"", if i == 0 { "" } else { "," }));
        }
        over.push_str("]}");
        let cases = cases.into_iter().chain([(over, false)]);
        for (text, fast) in cases {
            assert_eq!(serde_json::from_slice::<FastSettings<'_>>(text.as_bytes()).is_ok(), fast, "{text:.200}");
            let value: Value = serde_json::from_str(&text).unwrap();
            let want = Settings::for_requests(&value);
            let got = Settings::for_requests_from_slice(text.as_bytes()).expect("JSON");
            assert_eq!(format!("{got:?}"), format!("{want:?}"), "{text:.200}");
        }
        assert!(Settings::for_requests_from_slice(b"{\"nodes\": [").is_none());
    }

    #[test]
    fn multi_line_inventory_with_comments() {
        let s = Settings::from_value(&json!({
            "nodes": "# the GPU pool\ngpu-1: sku=gpu:NoSchedule; pool=gpu\n\ngen-1: ; pool=general # untainted\n",
            "schedulable": {}
        }))
        .unwrap();
        assert_eq!(s.inventory.len(), 2);
        assert_eq!(s.inventory.pools().into_iter().collect::<Vec<_>>(), vec!["general", "gpu"]);
        let err = Settings::from_value(&json!({"nodes": "a\nb: x", "schedulable": {}})).unwrap_err();
        assert_eq!(err.path, "settings.nodes (line 2)");
    }

    #[test]
    fn top_level_errors() {
        let err = Settings::from_value(&json!({"disalowedTolerations": {}})).unwrap_err();
        assert!(err.to_string().contains("unknown field `disalowedTolerations`"), "{err}");
        let default = Settings::from_value(&json!({})).unwrap();
        let p = default.disallowed_tolerations.expect("the default policy");
        assert_eq!(p.mode, Mode::Warn);
        assert!(default.schedulable.is_none() && default.daemonset_coverage.is_none());
        let err = Settings::from_value(&json!({"kubeVersion": "2.1", "schedulable": {}})).unwrap_err();
        assert_eq!(err.path, "settings.kubeVersion");
        let err = Settings::from_value(&json!({"featureGates": {"Nope": true}, "schedulable": {}})).unwrap_err();
        assert!(err.to_string().starts_with("settings.featureGates.Nope: unknown feature gate \"Nope\""), "{err}");
        let err = Settings::from_value(&json!([1])).unwrap_err();
        assert!(err.to_string().contains("expected a mapping"), "{err}");
        let err = Settings::from_value(&json!({"poolLabel": "a b", "schedulable": {}})).unwrap_err();
        assert_eq!(err.path, "settings.poolLabel");
    }

    #[test]
    fn patterns() {
        let p = |s: &str| Pattern::parse(s, "x").unwrap();
        assert!(p("kube-*").matches("kube-system"));
        assert!(p("*-system").matches("kube-system"));
        assert!(p("*").matches(""));
        assert!(p("a*b*c").matches("aXbYc"));
        assert!(!p("a*b*c").matches("aXbY"));
        assert!(p("exact").matches("exact"));
        assert!(!p("exact").matches("exactly"));
        assert!(p("**").matches("anything"));
        assert!(Pattern::parse("", "x").is_err());
    }

    #[test]
    fn pools() {
        let s = Settings::from_value(&json!({
            "nodes": ["a: ; agentpool=one", "b: ; kubernetes.azure.com/agentpool=two", "c"],
            "schedulable": {}
        }))
        .unwrap();
        assert_eq!(s.inventory.pools().into_iter().collect::<Vec<_>>(), vec!["c", "one", "two"]);
        let err = s.inventory.check_pools(&["three".into()], "settings.x").unwrap_err();
        assert!(err.to_string().contains("pool \"three\" matches no node"), "{err}");
        assert_eq!(s.inventory.check_pools(&["*".into()], "x").unwrap(), PoolSet::All);
    }
}
