//! A what-if command line, read as kubectl reads it.
//!
//! `placement simulate --what-if 'kubectl taint nodes -l agentpool=user dedicated=web:NoExecute'`
//! takes the commands a user is about to run; this module turns each line into a [`WhatIf`].
//! It follows the kubectl sources of Kubernetes v1.36.3 (`kubernetes/kubectl` at tag
//! `kubernetes-1.36.3`, with cobra v1.10.2, pflag v1.0.9, cli-runtime and apimachinery
//! v0.36.3):
//!
//! - the words: a POSIX shell's quoting (`'...'`, `"..."`, `\`), without expansion;
//! - the command: cobra's `Find` (flags before the command name are skipped as cobra skips
//!   them) and `unknown command "x" for "kubectl"` with cobra's suggestions;
//! - the flags: pflag's parser (`--flag=v`, `--flag v`, `-f v`, `-fv`, combined booleans,
//!   `--` ends them, `_` reads as `-` as kubectl's `WordSepNormalizeFunc` has it) and its
//!   messages; kubectl's global flags (`--context`, `--kubeconfig`, `-n`, ...) are accepted
//!   anywhere and ignored, as they do not matter to an offline snapshot;
//! - each command's arguments and checks, in kubectl's order and words: `cmd/taint`
//!   (`taint.go`, `utils.go`), `cmd/label`, `cmd/drain` (`cordon`, `uncordon`, `drain`),
//!   `cmd/delete`, and cli-runtime's `resource.Builder` for how names, `TYPE/NAME`, `-l` and
//!   `--all` combine.
//!
//! `--dry-run` is accepted (its value checked as kubectl checks it) and ignored: a what-if is a
//! dry run of the whole command, so the command is simulated as if it ran for real, which is
//! what its user wants to see. A command kubectl has but Placement does not simulate (`scale`,
//! `apply`, ...) and the few flags that need the live cluster or files (`--field-selector`,
//! `-f`, `--raw`, ...) are refused with Placement's own words ([`WhatIfParseError`] says which
//! messages are kubectl's). Placement's own command is `add-nodes N like NODE`, written
//! without `kubectl`.
//!
//! The parts live in private submodules: `shell` (words), `flags` (pflag and each command's
//! flag set) and `duration` ([`GoDuration`]).
//!
//! kubectl follows several of its errors with a hint line (`See 'kubectl taint -h' for help
//! and examples`); the messages here stop before it.

mod duration;
mod flags;
mod shell;

use std::fmt;

use crate::model::labels::{label_value_errors, qualified_name_errors, Selector, SelectorParseError};
use crate::model::taints::EFFECTS;
use crate::model::Taint;

pub use duration::{GoDuration, GoDurationError};
use flags::{
    global_takes_value, go_parse_bool, parse_flags, Parsed, CORDON_FLAGS, DELETE_FLAGS, DRAIN_FLAGS, LABEL_FLAGS,
    TAINT_FLAGS,
};
pub use shell::{quote_word, split_words};

/// The most nodes one `add-nodes` may add.
pub const MAX_ADD_NODES: u32 = 1000;

/// One what-if command.
///
/// `FromStr` reads a command line ([module docs](self)); `Display` writes its canonical
/// form, which reads back to the same value.
///
/// ```
/// use placement_core::cluster::what_if::{NodeSelection, TaintChange, WhatIf};
///
/// let cmd: WhatIf = "kubectl taint nodes -l agentpool=user dedicated=web:NoExecute".parse().unwrap();
/// let WhatIf::Taint { nodes: NodeSelection::Selector(sel), changes, overwrite: false } = &cmd else { panic!() };
/// assert_eq!(sel.to_string(), "agentpool=user");
/// assert!(matches!(&changes[..], [TaintChange::Add(t)] if t.to_string() == "dedicated=web:NoExecute"));
/// assert_eq!(cmd.to_string(), "kubectl taint nodes -l agentpool=user dedicated=web:NoExecute");
///
/// let err = "kubectl taint nodes a".parse::<WhatIf>().unwrap_err();
/// assert_eq!(err.to_string(), "error: at least one taint update is required");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WhatIf {
    /// `kubectl taint nodes SEL KEY[=VALUE]:EFFECT KEY:EFFECT- KEY- ... [--overwrite]`
    Taint { nodes: NodeSelection, changes: Vec<TaintChange>, overwrite: bool },
    /// `kubectl cordon NODE... | -l SEL`
    Cordon(NodeSelection),
    /// `kubectl uncordon NODE... | -l SEL`
    Uncordon(NodeSelection),
    /// `kubectl drain NODE... | -l SEL [flags]`: cordons the nodes, then evicts their pods.
    Drain { nodes: NodeSelection, options: DrainOptions },
    /// `kubectl delete nodes SEL [--ignore-not-found]`. With `ignore_not_found`, a named node
    /// that does not exist is not an error. It matters only for names (kubectl turns it on for
    /// `-l` and `--all`, where nothing can be missing); parsing leaves it `false` for the other
    /// selections.
    DeleteNodes { nodes: NodeSelection, ignore_not_found: bool },
    /// `kubectl label nodes SEL KEY=VALUE KEY- ... [--overwrite]`
    Label { nodes: NodeSelection, changes: Vec<LabelChange>, overwrite: bool },
    /// Placement's `add-nodes N like NODE`: `count` copies of the node `like`.
    AddNodes { count: u32, like: String },
}

impl WhatIf {
    /// The command's name as kubectl knows it (`add-nodes` for Placement's own).
    pub fn name(&self) -> &'static str {
        match self {
            WhatIf::Taint { .. } => "taint",
            WhatIf::Cordon(_) => "cordon",
            WhatIf::Uncordon(_) => "uncordon",
            WhatIf::Drain { .. } => "drain",
            WhatIf::DeleteNodes { .. } => "delete",
            WhatIf::Label { .. } => "label",
            WhatIf::AddNodes { .. } => "add-nodes",
        }
    }

    /// The nodes the command acts on (`None` for `add-nodes`).
    pub fn nodes(&self) -> Option<&NodeSelection> {
        match self {
            WhatIf::Taint { nodes, .. }
            | WhatIf::Drain { nodes, .. }
            | WhatIf::DeleteNodes { nodes, .. }
            | WhatIf::Label { nodes, .. } => Some(nodes),
            WhatIf::Cordon(nodes) | WhatIf::Uncordon(nodes) => Some(nodes),
            WhatIf::AddNodes { .. } => None,
        }
    }

    /// Whether kubectl carries on past a node it cannot find or edit (its builder's
    /// `ContinueOnError`: `taint`, `label`, `delete`), reporting the errors at the end, or
    /// stops before changing anything (`cordon`, `uncordon`, `drain` look every node up
    /// first and fail on the first missing one).
    pub fn continues_on_error(&self) -> bool {
        matches!(self, WhatIf::Taint { .. } | WhatIf::Label { .. } | WhatIf::DeleteNodes { .. })
    }
}

/// Which nodes a command names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeSelection {
    /// Node names (`a b`, or `node/a`, `nodes/b`), in the order given, without repeats.
    Names(Vec<String>),
    /// `-l`/`--selector`: the nodes whose labels match. Parsing never yields
    /// `Selector::Nothing` or the empty selector (an empty `-l` is no selector, as in kubectl).
    Selector(Selector),
    /// `--all` (`taint`, `label`, `delete`; `cordon` and `drain` have no `--all`).
    All,
}

/// One taint argument of `kubectl taint`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TaintChange {
    /// `KEY[=VALUE]:EFFECT`
    Add(Taint),
    /// `KEY:EFFECT-` (`effect` set) or `KEY-` (every effect of the key).
    Remove { key: String, effect: Option<String> },
}

/// One label argument of `kubectl label`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LabelChange {
    /// `KEY=VALUE`
    Set(String, String),
    /// `KEY-`
    Remove(String),
}

/// The flags of `kubectl drain` that change what it does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DrainOptions {
    /// `--ignore-daemonsets`
    pub ignore_daemonsets: bool,
    /// `--delete-emptydir-data` (kubectl 1.36 no longer has its old name,
    /// `--delete-local-data`: it is an unknown flag there and here).
    pub delete_emptydir_data: bool,
    /// `--force`
    pub force: bool,
    /// `--disable-eviction`: DELETE the pods instead of evicting them (no
    /// PodDisruptionBudget check).
    pub disable_eviction: bool,
    /// `--grace-period`; negative (the default, -1) means each pod's own.
    pub grace_period_seconds: i64,
    /// `--timeout`; zero (the default) waits forever.
    pub timeout: GoDuration,
    /// `--pod-selector`: only the matching pods are drained.
    pub pod_selector: Option<Selector>,
    /// `--skip-wait-for-delete-timeout`: pods deleted longer ago than this many seconds are
    /// skipped; 0 (the default) skips none.
    pub skip_wait_for_delete_timeout_seconds: i64,
}

impl Default for DrainOptions {
    fn default() -> Self {
        Self {
            ignore_daemonsets: false,
            delete_emptydir_data: false,
            force: false,
            disable_eviction: false,
            grace_period_seconds: -1,
            timeout: GoDuration::default(),
            pod_selector: None,
            skip_wait_for_delete_timeout_seconds: 0,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Errors

/// Why a command line is not a what-if command.
///
/// Messages are kubectl's own words where kubectl has them, as kubectl prints them (with the
/// `error: ` its `CheckErr` adds, or `Error from server (...)` for what the API server
/// answers). Variants documented as *Placement's* are this tool's own words: commands and
/// flags kubectl has that an offline snapshot cannot simulate, `add-nodes`, and shell syntax.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WhatIfParseError {
    /// Placement's: the line has no words.
    #[error("no command given: expected e.g. `kubectl taint nodes NODE KEY=VALUE:EFFECT`")]
    Empty,
    /// Placement's: `kubectl` alone (kubectl prints its help).
    #[error("no kubectl command given after `kubectl`")]
    NoCommand,
    /// Placement's: a quote is not closed.
    #[error("unterminated {quote} quote in: {text}")]
    UnterminatedQuote { quote: &'static str, text: String },
    /// Placement's: a shell operator (`|`, `;`, `&`, `<`, `>`, `(`, `)`) outside quotes; one
    /// command per `--what-if`.
    #[error("shell operator {operator:?} is not supported: give one command per --what-if and quote selectors such as 'env in (a,b)'")]
    ShellOperator { operator: char },
    /// cobra: the first word is not a kubectl command.
    #[error("error: unknown command {command:?} for \"kubectl\"{}", suggestions_text(suggestions))]
    UnknownCommand { command: String, suggestions: Vec<String> },
    /// Placement's: a kubectl command that a what-if does not simulate.
    #[error("placement what-if does not simulate `kubectl {command}`: it simulates taint, label, cordon, uncordon, drain and delete nodes (and `add-nodes N like NODE`)")]
    UnsupportedCommand { command: String },
    /// Placement's: a flag kubectl has, that an offline what-if cannot honour.
    #[error("placement what-if does not support {flag} for `kubectl {command}`: {reason}")]
    UnsupportedFlag { command: &'static str, flag: String, reason: &'static str },
    /// pflag: `unknown flag: --foo`.
    #[error("error: unknown flag: --{name}")]
    UnknownFlag { name: String },
    /// pflag: `unknown shorthand flag: 'x' in -xyz`.
    #[error("error: unknown shorthand flag: '{shorthand}' in -{shorthands}")]
    UnknownShorthandFlag { shorthand: char, shorthands: String },
    /// pflag: `flag needs an argument: --grace-period`, `flag needs an argument: 'l' in -l`.
    #[error("error: flag needs an argument: {}", needs_argument_text(name, shorthands.as_deref()))]
    FlagNeedsArgument { name: String, shorthands: Option<String> },
    /// pflag: `bad flag syntax: ---x`.
    #[error("error: bad flag syntax: {flag}")]
    BadFlagSyntax { flag: String },
    /// pflag: `invalid argument "x" for "--grace-period" flag: strconv.ParseInt: ...`.
    #[error("error: invalid argument {value:?} for {flag:?} flag: {cause}")]
    InvalidFlagValue { flag: String, value: String, cause: String },
    /// kubectl's `GetDryRunStrategy`.
    #[error("error: Invalid dry-run value ({value}). Must be \"none\", \"server\", or \"client\".")]
    InvalidDryRun { value: String },
    /// `taint`/`label`: an argument that is not a change after the first change.
    #[error("error: all resources must be specified before {command} changes: {arg}")]
    ResourceAfterChange { command: &'static str, arg: String },
    /// `taint` with no resource argument.
    #[error("error: one or more resources must be specified as <resource> <name>")]
    TaintNoResource,
    /// `label` with no resource argument.
    #[error("error: one or more resources must be specified as <resource> <name> or <resource>/<name>")]
    LabelNoResource,
    /// `taint` with no taint argument.
    #[error("error: at least one taint update is required")]
    NoTaintUpdate,
    /// `label` with no label argument.
    #[error("error: at least one label update is required")]
    NoLabelUpdate,
    /// `taint`: `parseTaint`'s shape, key and value checks (`detail` joins the validation
    /// messages).
    #[error("error: invalid taint spec: {spec}{}", detail.as_ref().map(|d| format!(", {d}")).unwrap_or_default())]
    InvalidTaintSpec { spec: String, detail: Option<String> },
    /// `taint`: an effect other than NoSchedule, PreferNoSchedule, NoExecute.
    #[error("error: invalid taint effect: {effect}, unsupported taint effect")]
    InvalidTaintEffect { effect: String },
    /// `taint`: two additions with the same key and effect (printed as Go prints the
    /// `v1.Taint` struct).
    #[error("error: duplicated taints with the same key and effect: {{{} {} {} <nil>}}", taint.key, taint.value, taint.effect)]
    DuplicatedTaint { taint: Taint },
    /// `taint`: the same key (and effect) both added and removed; each as `key=effect`.
    #[error("error: can not both modify and remove the following taint(s) in the same command: {}", taints.join(", "))]
    TaintConflict { taints: Vec<String> },
    /// `taint` on a resource type other than nodes.
    #[error("error: invalid resource type {resource}, only node types are supported")]
    InvalidResourceType { resource: String },
    /// Placement's: `kubectl taint node/NAME ...`, which kubectl does not read as a node (its
    /// first argument must be the resource type).
    #[error("kubectl taint takes the resource type and the names apart (`kubectl taint nodes NAME ...`), not {arg:?}")]
    TaintTypedName { arg: String },
    /// `taint` with both `--all` and `-l`.
    #[error("error: setting 'all' parameter with a non empty selector is prohibited")]
    TaintAllWithSelector,
    /// `taint` with neither names, `-l` nor `--all`.
    #[error("error: at least one resource name must be specified since 'all' parameter is not set")]
    TaintNoName,
    /// `label`: `KEY=VALUE=MORE`.
    #[error("error: invalid label spec: {spec}")]
    InvalidLabelSpec { spec: String },
    /// `label`: a value that is not a label value.
    #[error("error: invalid label value: {spec:?}: {detail}")]
    InvalidLabelValue { spec: String, detail: String },
    /// `label`: the same key set and removed.
    #[error("error: can not both modify and remove a label in the same command")]
    LabelConflict { key: String },
    /// `label`/`delete` with both `--all` and `-l`.
    #[error("error: cannot set --all and --selector at the same time")]
    AllAndSelector,
    /// `delete --all -l ...` (cli-runtime's builder, trailing space included).
    #[error("error: setting 'all' parameter but found a non empty selector. ")]
    SelectAllWithSelector,
    /// A resource type without names, `-l` or `--all`.
    #[error("error: resource(s) were provided, but no name was specified")]
    NoNameSpecified { resource: String },
    /// Neither a resource nor a name.
    #[error("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")]
    MissingResource,
    /// Names together with `-l` (or `delete`'s `--all`).
    #[error("error: name cannot be provided when a selector is specified")]
    NameWithSelector { names: Vec<String> },
    /// `TYPE/NAME` arguments together with `-l` or `--all`.
    #[error("error: selectors and the all flag cannot be used when passing resource/name arguments")]
    TypedNameWithSelector { arg: String },
    /// A resource type followed by `TYPE/NAME` arguments.
    #[error("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'")]
    TypeWithTypedNames { arg: String },
    /// `a/b/c`.
    #[error("error: arguments in resource/name form may not have more than one slash")]
    TooManySlashes { arg: String },
    /// `/a`, `node/`.
    #[error("error: arguments in resource/name form must have a single resource and name")]
    BadTypedName { arg: String },
    /// Placement's: a resource type other than nodes for `label` or `delete` (Placement
    /// edits nodes only).
    #[error("placement what-if edits nodes only: {resource:?} is not nodes (node, nodes, no)")]
    NotNodes { resource: String },
    /// `cordon`/`uncordon`/`drain` with neither a name nor `-l`.
    #[error("error: USAGE: {command} NODE [flags]")]
    DrainUsage { command: &'static str },
    /// `cordon`/`uncordon`/`drain` with both names and `-l`.
    #[error("error: cannot specify both a node name and a --selector option")]
    DrainNameAndSelector { names: Vec<String> },
    /// `drain --pod-selector` that is not a label selector.
    #[error("error: --pod-selector=<pod_selector> must be a valid label selector")]
    InvalidPodSelector { selector: String, source: SelectorParseError },
    /// `-l` that is not a label selector: kubectl sends it to the API server, which answers
    /// 400 with `labels.Parse`'s message.
    #[error("Error from server (BadRequest): Unable to find \"/v1, Resource=nodes\" that match label selector {selector:?}, field selector \"\": {source}")]
    InvalidSelector { selector: String, source: SelectorParseError },
    /// `delete --now --grace-period=N`.
    #[error("error: --now and --grace-period cannot be specified together")]
    NowAndGracePeriod,
    /// `delete --force --grace-period=N` with N > 0.
    #[error("error: --force and --grace-period greater than 0 cannot be specified together")]
    ForceAndGracePeriod,
    /// `delete -o` other than `name`.
    #[error("error: unexpected -o output mode: {output}. We only support '-o name'")]
    DeleteOutput { output: String },
    /// Placement's: `add-nodes` not of the form `add-nodes N like NODE`.
    #[error("add-nodes: expected `add-nodes N like NODE`, got `{got}`")]
    AddNodesUsage { got: String },
    /// Placement's: the count of `add-nodes` is not a whole number from 1 to
    /// [`MAX_ADD_NODES`].
    #[error("add-nodes: the count must be a whole number from 1 to {MAX_ADD_NODES}, not {count:?}")]
    AddNodesCount { count: String },
}

fn suggestions_text(suggestions: &[String]) -> String {
    if suggestions.is_empty() {
        return String::new();
    }
    let lines: String = suggestions.iter().map(|s| format!("\t{s}\n")).collect();
    format!("\n\nDid you mean this?\n{lines}")
}

fn needs_argument_text(name: &str, shorthands: Option<&str>) -> String {
    match shorthands {
        Some(shorthands) => format!("'{name}' in -{shorthands}"),
        None => format!("--{name}"),
    }
}

impl WhatIfParseError {
    /// The word of the command line the error is about, when there is one.
    pub fn token(&self) -> Option<&str> {
        use WhatIfParseError as E;
        Some(match self {
            E::UnknownCommand { command, .. } | E::UnsupportedCommand { command } => command,
            E::UnsupportedFlag { flag, .. } => flag,
            E::UnknownFlag { name } | E::FlagNeedsArgument { name, .. } => name,
            E::UnknownShorthandFlag { shorthands, .. } => shorthands,
            E::BadFlagSyntax { flag } => flag,
            E::InvalidFlagValue { value, .. } | E::InvalidDryRun { value } => value,
            E::ResourceAfterChange { arg, .. } => arg,
            E::InvalidTaintSpec { spec, .. } | E::InvalidLabelSpec { spec } | E::InvalidLabelValue { spec, .. } => spec,
            E::InvalidTaintEffect { effect } => effect,
            E::DuplicatedTaint { taint } => &taint.key,
            E::InvalidResourceType { resource } | E::NotNodes { resource } | E::NoNameSpecified { resource } => {
                resource
            }
            E::TaintTypedName { arg }
            | E::TypedNameWithSelector { arg }
            | E::TypeWithTypedNames { arg }
            | E::TooManySlashes { arg }
            | E::BadTypedName { arg } => arg,
            E::LabelConflict { key } => key,
            E::NameWithSelector { names } | E::DrainNameAndSelector { names } => names.first()?,
            E::InvalidPodSelector { selector, .. } | E::InvalidSelector { selector, .. } => selector,
            E::DeleteOutput { output } => output,
            E::AddNodesUsage { got } => got,
            E::AddNodesCount { count } => count,
            E::TaintConflict { taints } => taints.first()?,
            _ => return None,
        })
    }
}

// ---------------------------------------------------------------------------------------------
// Commands

/// kubectl 1.36's commands (`kubectl --help`, plus `alpha`, `help`), for telling an unknown
/// command from one Placement does not simulate, and for cobra's suggestions.
const KUBECTL_COMMANDS: &[&str] = &[
    "annotate",
    "api-resources",
    "api-versions",
    "apply",
    "attach",
    "auth",
    "autoscale",
    "certificate",
    "cluster-info",
    "completion",
    "config",
    "cordon",
    "cp",
    "create",
    "debug",
    "delete",
    "describe",
    "diff",
    "drain",
    "edit",
    "events",
    "exec",
    "explain",
    "expose",
    "get",
    "help",
    "kuberc",
    "kustomize",
    "label",
    "logs",
    "options",
    "patch",
    "plugin",
    "port-forward",
    "proxy",
    "replace",
    "rollout",
    "run",
    "scale",
    "set",
    "taint",
    "top",
    "uncordon",
    "version",
    "wait",
];

/// Commands' `SuggestFor` words in kubectl 1.36.
const SUGGEST_FOR: &[(&str, &str)] = &[
    ("rm", "delete"),
    ("remove", "delete"),
    ("inspect", "describe"),
    ("list", "get"),
    ("ls", "get"),
    ("stats", "top"),
];

/// cobra's `SuggestionsFor`: commands within Levenshtein distance 2 (ignoring case), or that
/// start with the word, or that name it in `SuggestFor`.
fn suggestions(typed: &str) -> Vec<String> {
    let lower = typed.to_lowercase();
    let mut out = Vec::new();
    for name in KUBECTL_COMMANDS {
        if levenshtein(&lower, name) <= 2 || name.starts_with(&lower) {
            out.push(name.to_string());
        }
        for (word, command) in SUGGEST_FOR {
            if command == name && word.eq_ignore_ascii_case(typed) {
                out.push(name.to_string());
            }
        }
    }
    out
}

fn levenshtein(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitute = previous.get(j).copied().unwrap_or(0) + usize::from(ca != *cb);
            let insert = current.get(j).copied().unwrap_or(0) + 1;
            let delete = previous.get(j + 1).copied().unwrap_or(0) + 1;
            current.push(substitute.min(insert).min(delete));
        }
        previous = current;
    }
    previous.last().copied().unwrap_or(0)
}

/// cobra's `Find` for the first level: the first word that is neither a flag nor a flag's
/// value is the command; it is removed from the words.
fn find_command(words: &[String]) -> Option<(String, Vec<String>)> {
    let mut i = 0;
    while let Some(word) = words.get(i) {
        if word == "--" {
            return None;
        }
        if word.starts_with('-') {
            i += if global_takes_value(word) { 2 } else { 1 };
            continue;
        }
        if word.is_empty() {
            i += 1;
            continue;
        }
        let mut rest = words.to_vec();
        rest.remove(i);
        return Some((word.clone(), rest));
    }
    None
}

impl std::str::FromStr for WhatIf {
    type Err = WhatIfParseError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let words = split_words(text)?;
        let (kubectl, words) = match words.split_first() {
            None => return Err(WhatIfParseError::Empty),
            Some((first, rest)) if first == "kubectl" => (true, rest.to_vec()),
            Some(_) => (false, words),
        };
        if !kubectl && words.first().map(String::as_str) == Some("add-nodes") {
            return parse_add_nodes(words.get(1..).unwrap_or_default());
        }
        let Some((command, words)) = find_command(&words) else {
            return Err(WhatIfParseError::NoCommand);
        };
        match command.as_str() {
            "taint" => parse_taint(&parse_flags("taint", &words, TAINT_FLAGS)?),
            "label" => parse_label(&parse_flags("label", &words, LABEL_FLAGS)?),
            "cordon" => parse_cordon("cordon", &parse_flags("cordon", &words, CORDON_FLAGS)?).map(WhatIf::Cordon),
            "uncordon" => {
                parse_cordon("uncordon", &parse_flags("uncordon", &words, CORDON_FLAGS)?).map(WhatIf::Uncordon)
            }
            "drain" => parse_drain(&parse_flags("drain", &words, DRAIN_FLAGS)?),
            "delete" => parse_delete(&parse_flags("delete", &words, DELETE_FLAGS)?),
            known if KUBECTL_COMMANDS.contains(&known) || known == "alpha" => {
                Err(WhatIfParseError::UnsupportedCommand { command })
            }
            _ => Err(WhatIfParseError::UnknownCommand { suggestions: suggestions(&command), command }),
        }
    }
}

/// `GetDryRunStrategy`: the value must be a boolean, `client`, `server`, `none` or the bare
/// flag; the strategy itself is ignored (module docs).
fn check_dry_run(parsed: &Parsed) -> Result<(), WhatIfParseError> {
    match parsed.value("dry-run") {
        Some(v) if go_parse_bool(v).is_none() && !matches!(v, "unchanged" | "client" | "server" | "none") => {
            Err(WhatIfParseError::InvalidDryRun { value: v.to_string() })
        }
        _ => Ok(()),
    }
}

/// `node`, `nodes`, `no`, in any case (the RESTMapper's names for nodes).
fn is_node_resource(word: &str) -> bool {
    matches!(word.to_ascii_lowercase().as_str(), "node" | "nodes" | "no")
}

/// The `-l` value, trimmed as cli-runtime's `LabelSelectorParam` trims it; empty is none.
fn selector_flag(parsed: &Parsed) -> Option<&str> {
    parsed.value("selector").map(str::trim).filter(|s| !s.is_empty())
}

/// `-l` read as the API server reads it.
fn node_selector(text: &str) -> Result<NodeSelection, WhatIfParseError> {
    text.parse::<Selector>()
        .map(NodeSelection::Selector)
        .map_err(|source| WhatIfParseError::InvalidSelector { selector: text.to_string(), source })
}

/// cli-runtime's `splitResourceTypeName`: `TYPE/NAME` to the node name, or `None` for a word
/// without a slash.
fn typed_node_name(arg: &str) -> Result<Option<String>, WhatIfParseError> {
    let Some((resource, name)) = arg.split_once('/') else {
        return Ok(None);
    };
    if name.contains('/') {
        return Err(WhatIfParseError::TooManySlashes { arg: arg.to_string() });
    }
    if resource.is_empty() || name.is_empty() || resource.contains(',') {
        return Err(WhatIfParseError::BadTypedName { arg: arg.to_string() });
    }
    if !is_node_resource(resource) {
        return Err(WhatIfParseError::NotNodes { resource: resource.to_string() });
    }
    Ok(Some(name.to_string()))
}

/// Names in order, without repeats (kubectl would visit a repeated node twice; the second
/// visit finds the first one's edit).
fn dedup_names(names: Vec<String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::with_capacity(names.len());
    for name in names {
        if !out.contains(&name) {
            out.push(name);
        }
    }
    out
}

/// cli-runtime's `ResourceTypeOrNameArgs` and `visitorResult`, as `label` and `delete` use
/// them: `TYPE NAME...`, `TYPE/NAME...`, or `TYPE` with `-l` or `--all`.
fn resource_args(
    resources: &[String],
    selector: Option<&str>,
    select_all: bool,
    allow_empty_selector: bool,
) -> Result<NodeSelection, WhatIfParseError> {
    let slashed = resources.iter().filter(|r| r.contains('/')).count();
    if slashed > 0 {
        if slashed != resources.len() {
            let arg = resources.iter().find(|r| r.contains('/')).cloned().unwrap_or_default();
            return Err(WhatIfParseError::TypeWithTypedNames { arg });
        }
        let mut names = Vec::new();
        for r in resources {
            names.extend(typed_node_name(r)?);
        }
        if select_all || selector.is_some() {
            return Err(WhatIfParseError::TypedNameWithSelector {
                arg: resources.first().cloned().unwrap_or_default(),
            });
        }
        return Ok(NodeSelection::Names(dedup_names(names)));
    }
    let Some((types, names)) = resources.split_first() else {
        return Err(WhatIfParseError::MissingResource);
    };
    // `nodes,no a` names each node once per type: the same nodes.
    if let Some(other) = types.split(',').find(|t| !is_node_resource(t)) {
        return Err(WhatIfParseError::NotNodes { resource: other.to_string() });
    }
    let everything = select_all || (names.is_empty() && allow_empty_selector);
    match (selector, everything, names.is_empty()) {
        (_, _, false) if selector.is_some() || select_all => {
            Err(WhatIfParseError::NameWithSelector { names: names.to_vec() })
        }
        (Some(text), _, true) => node_selector(text),
        (None, true, true) => Ok(NodeSelection::All),
        (None, false, true) => Err(WhatIfParseError::NoNameSpecified { resource: resources.join(" ") }),
        _ => Ok(NodeSelection::Names(dedup_names(names.to_vec()))),
    }
}

/// `kubectl taint`: `TaintOptions.Complete` and `Validate`.
fn parse_taint(parsed: &Parsed) -> Result<WhatIf, WhatIfParseError> {
    check_dry_run(parsed)?;
    let mut resources: Vec<&String> = Vec::new();
    let mut taint_args: Vec<&String> = Vec::new();
    for arg in &parsed.args {
        let is_taint = arg.contains('=') || arg.contains(':') || arg.ends_with('-');
        match (taint_args.is_empty(), is_taint) {
            (_, true) => taint_args.push(arg),
            (true, false) => resources.push(arg),
            (false, false) => return Err(WhatIfParseError::ResourceAfterChange { command: "taint", arg: arg.clone() }),
        }
    }
    let Some((resource, names)) = resources.split_first() else {
        return Err(WhatIfParseError::TaintNoResource);
    };
    if taint_args.is_empty() {
        return Err(WhatIfParseError::NoTaintUpdate);
    }
    let changes = parse_taint_args(&taint_args)?;
    if resource.contains('/') {
        return Err(WhatIfParseError::TaintTypedName { arg: resource.to_string() });
    }
    if !is_node_resource(resource) {
        return Err(WhatIfParseError::InvalidResourceType { resource: resource.to_ascii_lowercase() });
    }
    let mut conflicts = Vec::new();
    for add in changes.iter().filter_map(|c| if let TaintChange::Add(t) = c { Some(t) } else { None }) {
        for change in &changes {
            if let TaintChange::Remove { key, effect } = change {
                if *key == add.key && effect.as_ref().is_none_or(|e| *e == add.effect) {
                    conflicts.push(format!("{key}={}", effect.as_deref().unwrap_or_default()));
                }
            }
        }
    }
    if !conflicts.is_empty() {
        return Err(WhatIfParseError::TaintConflict { taints: conflicts });
    }
    let all = parsed.bool("all");
    let raw_selector = parsed.value("selector").unwrap_or_default();
    if all && !raw_selector.is_empty() {
        return Err(WhatIfParseError::TaintAllWithSelector);
    }
    if !all && raw_selector.is_empty() && names.is_empty() {
        return Err(WhatIfParseError::TaintNoName);
    }
    // With `-l` or `--all`, kubectl's builder ignores the names.
    let nodes = match (selector_flag(parsed), all) {
        (Some(text), _) => node_selector(text)?,
        (None, true) => NodeSelection::All,
        // A blank `-l`: kubectl's builder ignores the names and has no selector either.
        (None, false) if !raw_selector.is_empty() => {
            return Err(WhatIfParseError::NoNameSpecified { resource: resource.to_string() })
        }
        (None, false) => {
            let mut out = Vec::new();
            for name in names {
                out.push(typed_node_name(name)?.unwrap_or_else(|| name.to_string()));
            }
            NodeSelection::Names(dedup_names(out))
        }
    };
    Ok(WhatIf::Taint { nodes, changes, overwrite: parsed.bool("overwrite") })
}

/// `parseTaints`: additions need an effect and are unique by key and effect.
fn parse_taint_args(specs: &[&String]) -> Result<Vec<TaintChange>, WhatIfParseError> {
    let mut changes = Vec::new();
    let mut added: Vec<(String, String)> = Vec::new();
    for spec in specs {
        if let Some(spec) = spec.strip_suffix('-') {
            let taint = parse_taint_spec(spec)?;
            let effect = Some(taint.effect).filter(|e| !e.is_empty());
            changes.push(TaintChange::Remove { key: taint.key, effect });
        } else {
            let taint = parse_taint_spec(spec)?;
            if taint.effect.is_empty() {
                return Err(WhatIfParseError::InvalidTaintSpec { spec: spec.to_string(), detail: None });
            }
            if added.iter().any(|(k, e)| *k == taint.key && *e == taint.effect) {
                return Err(WhatIfParseError::DuplicatedTaint { taint });
            }
            added.push((taint.key.clone(), taint.effect.clone()));
            changes.push(TaintChange::Add(taint));
        }
    }
    Ok(changes)
}

/// `parseTaint`: `KEY=VALUE:EFFECT`, `KEY:EFFECT` or `KEY`.
fn parse_taint_spec(spec: &str) -> Result<Taint, WhatIfParseError> {
    let invalid = |detail: Option<String>| WhatIfParseError::InvalidTaintSpec { spec: spec.to_string(), detail };
    let parts: Vec<&str> = spec.split(':').collect();
    let (key, value, effect) = match parts.as_slice() {
        [key] => (*key, "", ""),
        [kv, effect] => {
            if !EFFECTS.contains(effect) {
                return Err(WhatIfParseError::InvalidTaintEffect { effect: effect.to_string() });
            }
            let kv: Vec<&str> = kv.split('=').collect();
            match kv.as_slice() {
                [key] => (*key, "", *effect),
                [key, value] => {
                    let errors = label_value_errors(value);
                    if !errors.is_empty() {
                        return Err(invalid(Some(errors.join("; "))));
                    }
                    (*key, *value, *effect)
                }
                _ => return Err(invalid(None)),
            }
        }
        _ => return Err(invalid(None)),
    };
    let errors = qualified_name_errors(key);
    if !errors.is_empty() {
        return Err(invalid(Some(errors.join("; "))));
    }
    Ok(Taint { key: key.to_string(), value: value.to_string(), effect: effect.to_string() })
}

/// `kubectl label`: `GetResourcesAndPairs`, `parseLabels`, `Validate`, then the builder.
fn parse_label(parsed: &Parsed) -> Result<WhatIf, WhatIfParseError> {
    check_dry_run(parsed)?;
    let mut resources: Vec<String> = Vec::new();
    let mut pairs: Vec<&String> = Vec::new();
    for arg in &parsed.args {
        let is_pair = (arg.contains('=') && !arg.starts_with('=')) || (arg.ends_with('-') && arg != "-");
        match (pairs.is_empty(), is_pair) {
            (_, true) => pairs.push(arg),
            (true, false) => resources.push(arg.clone()),
            (false, false) => return Err(WhatIfParseError::ResourceAfterChange { command: "label", arg: arg.clone() }),
        }
    }
    let mut sets: Vec<(String, String)> = Vec::new();
    let mut removes: Vec<String> = Vec::new();
    for pair in pairs {
        if pair.contains('=') {
            let parts: Vec<&str> = pair.split('=').collect();
            let [key, value] = parts.as_slice() else {
                return Err(WhatIfParseError::InvalidLabelSpec { spec: pair.clone() });
            };
            let errors = label_value_errors(value);
            if !errors.is_empty() {
                return Err(WhatIfParseError::InvalidLabelValue { spec: pair.clone(), detail: errors.join(";") });
            }
            // A map in kubectl: the last value of a key wins.
            match sets.iter_mut().find(|(k, _)| k == key) {
                Some(set) => set.1 = value.to_string(),
                None => sets.push((key.to_string(), value.to_string())),
            }
        } else if let Some(key) = pair.strip_suffix('-') {
            removes.push(key.to_string());
        }
    }
    if let Some(key) = removes.iter().find(|k| sets.iter().any(|(s, _)| s == *k)) {
        return Err(WhatIfParseError::LabelConflict { key: key.clone() });
    }
    let all = parsed.bool("all");
    let selector = selector_flag(parsed);
    if all && selector.is_some() {
        return Err(WhatIfParseError::AllAndSelector);
    }
    if resources.is_empty() {
        return Err(WhatIfParseError::LabelNoResource);
    }
    if sets.is_empty() && removes.is_empty() {
        return Err(WhatIfParseError::NoLabelUpdate);
    }
    let nodes = resource_args(&resources, selector, false, all)?;
    let changes = sets
        .into_iter()
        .map(|(k, v)| LabelChange::Set(k, v))
        .chain(removes.into_iter().map(LabelChange::Remove))
        .collect();
    Ok(WhatIf::Label { nodes, changes, overwrite: parsed.bool("overwrite") })
}

/// `cordon`, `uncordon` and `drain`'s `DrainCmdOptions.Complete`: node names (`TYPE/NAME`
/// too) or `-l`, not both.
fn parse_cordon(command: &'static str, parsed: &Parsed) -> Result<NodeSelection, WhatIfParseError> {
    let raw_selector = parsed.value("selector");
    if parsed.args.is_empty() && raw_selector.is_none() {
        return Err(WhatIfParseError::DrainUsage { command });
    }
    if !parsed.args.is_empty() && raw_selector.is_some_and(|s| !s.is_empty()) {
        return Err(WhatIfParseError::DrainNameAndSelector { names: parsed.args.clone() });
    }
    check_dry_run(parsed)?;
    if let Some(text) = selector_flag(parsed) {
        return node_selector(text);
    }
    if parsed.args.is_empty() {
        // `-l ''`: no names and no selector for the builder.
        return Err(match raw_selector {
            Some("") => WhatIfParseError::MissingResource,
            _ => WhatIfParseError::NoNameSpecified { resource: "nodes".into() },
        });
    }
    let mut names = Vec::new();
    for arg in &parsed.args {
        names.push(typed_node_name(arg)?.unwrap_or_else(|| arg.clone()));
    }
    Ok(NodeSelection::Names(dedup_names(names)))
}

fn parse_drain(parsed: &Parsed) -> Result<WhatIf, WhatIfParseError> {
    let nodes = parse_cordon("drain", parsed)?;
    let pod_selector = match parsed.value("pod-selector").filter(|s| !s.is_empty()) {
        None => None,
        Some(text) => Some(
            text.parse::<Selector>()
                .map_err(|source| WhatIfParseError::InvalidPodSelector { selector: text.to_string(), source })?,
        ),
    };
    let options = DrainOptions {
        ignore_daemonsets: parsed.bool("ignore-daemonsets"),
        delete_emptydir_data: parsed.bool("delete-emptydir-data"),
        force: parsed.bool("force"),
        disable_eviction: parsed.bool("disable-eviction"),
        grace_period_seconds: parsed.int("grace-period", -1),
        timeout: parsed.value("timeout").and_then(|v| v.parse().ok()).unwrap_or_default(),
        // Empty selects every pod, as no selector does.
        pod_selector: pod_selector.filter(|s| *s != Selector::everything()),
        skip_wait_for_delete_timeout_seconds: parsed.int("skip-wait-for-delete-timeout", 0),
    };
    Ok(WhatIf::Drain { nodes, options })
}

/// `kubectl delete`: `DeleteOptions.Complete` (with its builder) and `Validate`.
fn parse_delete(parsed: &Parsed) -> Result<WhatIf, WhatIfParseError> {
    let grace_period = parsed.int("grace-period", -1);
    let now = parsed.bool("now");
    if now && grace_period != -1 {
        return Err(WhatIfParseError::NowAndGracePeriod);
    }
    check_dry_run(parsed)?;
    let all = parsed.bool("all");
    let selector = selector_flag(parsed);
    if all && selector.is_some() {
        return Err(WhatIfParseError::SelectAllWithSelector);
    }
    let nodes = resource_args(&parsed.args, selector, all, false)?;
    if let Some(output) = parsed.value("output").filter(|o| !o.is_empty() && *o != "name") {
        return Err(WhatIfParseError::DeleteOutput { output: output.to_string() });
    }
    let force = parsed.bool("force");
    // `--now` is a grace period of 1; `--grace-period=0` without `--force` becomes 1 too.
    let effective = if now || (grace_period == 0 && !force) { 1 } else { grace_period };
    if force && effective > 0 {
        return Err(WhatIfParseError::ForceAndGracePeriod);
    }
    let ignore_not_found = matches!(nodes, NodeSelection::Names(_)) && parsed.bool("ignore-not-found");
    Ok(WhatIf::DeleteNodes { nodes, ignore_not_found })
}

/// Placement's `add-nodes N like NODE`.
fn parse_add_nodes(words: &[String]) -> Result<WhatIf, WhatIfParseError> {
    let usage = || WhatIfParseError::AddNodesUsage { got: format!("add-nodes {}", words.join(" ")).trim_end().into() };
    let [count, like_word, like] = words else {
        return Err(usage());
    };
    if like_word != "like" || like.is_empty() {
        return Err(usage());
    }
    let count_value = count
        .parse::<u32>()
        .ok()
        .filter(|n| (1..=MAX_ADD_NODES).contains(n))
        .ok_or_else(|| WhatIfParseError::AddNodesCount { count: count.clone() })?;
    Ok(WhatIf::AddNodes { count: count_value, like: like.clone() })
}

// ---------------------------------------------------------------------------------------------
// Canonical form

fn write_words(f: &mut fmt::Formatter<'_>, words: &[String]) -> fmt::Result {
    let quoted: Vec<String> = words.iter().map(|w| quote_word(w)).collect();
    f.write_str(&quoted.join(" "))
}

/// The selection's arguments: `TYPE` (when the command takes one), then names, `-l SEL` or
/// `--all`.
fn selection_words(selection: &NodeSelection, with_type: bool) -> Vec<String> {
    let mut words = Vec::new();
    if with_type {
        words.push("nodes".to_string());
    }
    match selection {
        NodeSelection::Names(names) => words.extend(names.iter().cloned()),
        NodeSelection::Selector(selector) => {
            words.push("-l".into());
            words.push(selector.to_string());
        }
        NodeSelection::All => words.push("--all".into()),
    }
    words
}

/// The canonical `kubectl ...` line (`add-nodes N like NODE` for Placement's own): the
/// resource type as `nodes`, names plain, `-l`, changes, then flags in a fixed order, without
/// flags at their defaults or that are ignored.
///
/// Parsing never yields an empty `Names`, `Selector::Nothing`, the empty selector, or `All`
/// for `cordon`/`uncordon`/`drain` (which have no `--all`); built by hand, those print as text
/// kubectl would refuse or read otherwise.
impl fmt::Display for WhatIf {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut words: Vec<String> = vec!["kubectl".into()];
        match self {
            WhatIf::Taint { nodes, changes, overwrite } => {
                words.push("taint".into());
                words.extend(selection_words(nodes, true));
                for change in changes {
                    words.push(match change {
                        TaintChange::Add(taint) => taint.to_string(),
                        TaintChange::Remove { key, effect: Some(effect) } => format!("{key}:{effect}-"),
                        TaintChange::Remove { key, effect: None } => format!("{key}-"),
                    });
                }
                if *overwrite {
                    words.push("--overwrite".into());
                }
            }
            WhatIf::Cordon(nodes) => {
                words.push("cordon".into());
                words.extend(selection_words(nodes, false));
            }
            WhatIf::Uncordon(nodes) => {
                words.push("uncordon".into());
                words.extend(selection_words(nodes, false));
            }
            WhatIf::Drain { nodes, options } => {
                words.push("drain".into());
                words.extend(selection_words(nodes, false));
                let o = options;
                for (on, flag) in [
                    (o.ignore_daemonsets, "--ignore-daemonsets"),
                    (o.delete_emptydir_data, "--delete-emptydir-data"),
                    (o.force, "--force"),
                    (o.disable_eviction, "--disable-eviction"),
                ] {
                    if on {
                        words.push(flag.into());
                    }
                }
                if o.grace_period_seconds != -1 {
                    words.push(format!("--grace-period={}", o.grace_period_seconds));
                }
                if !o.timeout.is_zero() {
                    words.push(format!("--timeout={}", o.timeout));
                }
                if let Some(selector) = &o.pod_selector {
                    words.push(format!("--pod-selector={selector}"));
                }
                if o.skip_wait_for_delete_timeout_seconds != 0 {
                    words.push(format!("--skip-wait-for-delete-timeout={}", o.skip_wait_for_delete_timeout_seconds));
                }
            }
            WhatIf::DeleteNodes { nodes, ignore_not_found } => {
                words.push("delete".into());
                words.extend(selection_words(nodes, true));
                if *ignore_not_found {
                    words.push("--ignore-not-found".into());
                }
            }
            WhatIf::Label { nodes, changes, overwrite } => {
                words.push("label".into());
                words.extend(selection_words(nodes, true));
                for change in changes {
                    words.push(match change {
                        LabelChange::Set(key, value) => format!("{key}={value}"),
                        LabelChange::Remove(key) => format!("{key}-"),
                    });
                }
                if *overwrite {
                    words.push("--overwrite".into());
                }
            }
            WhatIf::AddNodes { count, like } => {
                words = vec!["add-nodes".into(), count.to_string(), "like".into(), like.clone()];
            }
        }
        write_words(f, &words)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &str) -> Result<String, String> {
        text.parse::<WhatIf>().map(|c| c.to_string()).map_err(|e| e.to_string())
    }

    /// (name, input, want): the canonical form, or kubectl's (or Placement's) message.
    type Row = (&'static str, &'static str, Result<&'static str, &'static str>);

    fn check(rows: &[Row]) {
        for (name, input, want) in rows {
            let got = parse(input);
            assert_eq!(got.as_deref().map_err(String::as_str), *want, "{name}: {input}");
            if let Ok(canonical) = &got {
                let again: WhatIf = canonical.parse().unwrap_or_else(|e| panic!("{name}: {canonical}: {e}"));
                assert_eq!(again, input.parse::<WhatIf>().unwrap(), "{name}: round trip of {canonical}");
                assert_eq!(&again.to_string(), canonical, "{name}: canonical form is a fixed point");
            }
        }
    }

    #[test]
    fn taint_commands() {
        check(&[
            ("add", "kubectl taint nodes a dedicated=web:NoExecute", Ok("kubectl taint nodes a dedicated=web:NoExecute")),
            ("no kubectl prefix", "taint node a k:NoSchedule", Ok("kubectl taint nodes a k:NoSchedule")),
            ("short type, several names, typed name", "kubectl taint no a b node/c k:NoSchedule", Ok("kubectl taint nodes a b c k:NoSchedule")),
            ("repeated names once", "kubectl taint nodes a a k:NoSchedule", Ok("kubectl taint nodes a k:NoSchedule")),
            ("selector", "kubectl taint nodes -l agentpool=user dedicated=web:NoExecute", Ok("kubectl taint nodes -l agentpool=user dedicated=web:NoExecute")),
            ("selector with set syntax", "kubectl taint nodes --selector 'env in (b,a),!spot' k:NoSchedule", Ok("kubectl taint nodes -l 'env in (a,b),!spot' k:NoSchedule")),
            ("selector wins over names", "kubectl taint nodes a -l x=y k:NoSchedule", Ok("kubectl taint nodes -l x=y k:NoSchedule")),
            ("all", "kubectl taint nodes --all k:NoSchedule", Ok("kubectl taint nodes --all k:NoSchedule")),
            ("removals and overwrite", "kubectl taint nodes a k:NoSchedule- j- l=v:PreferNoSchedule --overwrite", Ok("kubectl taint nodes a k:NoSchedule- j- l=v:PreferNoSchedule --overwrite")),
            ("removal with a value", "kubectl taint nodes a k=v:NoSchedule-", Ok("kubectl taint nodes a k:NoSchedule-")),
            ("global flags anywhere", "kubectl --context prod -n kube-system taint nodes a k:NoSchedule --kubeconfig=/tmp/k --dry-run=server", Ok("kubectl taint nodes a k:NoSchedule")),
            ("flag before the type", "kubectl taint --overwrite=true nodes a k:NoSchedule", Ok("kubectl taint nodes a k:NoSchedule --overwrite")),
            ("-- ends flags", "kubectl taint nodes a -- k:NoSchedule", Ok("kubectl taint nodes a k:NoSchedule")),
            ("underscore flag names", "kubectl taint nodes a k:NoSchedule --over_write", Err("error: unknown flag: --over_write")),
            ("no taint", "kubectl taint nodes a", Err("error: at least one taint update is required")),
            ("no resource", "kubectl taint k:NoSchedule", Err("error: one or more resources must be specified as <resource> <name>")),
            ("nothing", "kubectl taint", Err("error: one or more resources must be specified as <resource> <name>")),
            ("resource after a taint", "kubectl taint nodes k:NoSchedule a", Err("error: all resources must be specified before taint changes: a")),
            ("no name", "kubectl taint nodes k:NoSchedule", Err("error: at least one resource name must be specified since 'all' parameter is not set")),
            ("all and selector", "kubectl taint nodes --all -l a=b k:NoSchedule", Err("error: setting 'all' parameter with a non empty selector is prohibited")),
            ("pods", "kubectl taint pods a k:NoSchedule", Err("error: invalid resource type pods, only node types are supported")),
            ("typed first argument", "kubectl taint node/a k:NoSchedule", Err("kubectl taint takes the resource type and the names apart (`kubectl taint nodes NAME ...`), not \"node/a\"")),
            ("bad effect", "kubectl taint nodes a k=v:NoExcute", Err("error: invalid taint effect: NoExcute, unsupported taint effect")),
            ("bad effect on removal", "kubectl taint nodes a k:-", Err("error: invalid taint effect: , unsupported taint effect")),
            ("no effect: the whole word is the key", "kubectl taint nodes a k=v", Err("error: invalid taint spec: k=v, name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
            ("two colons", "kubectl taint nodes a k:v:NoSchedule", Err("error: invalid taint spec: k:v:NoSchedule")),
            ("two equals", "kubectl taint nodes a k=v=w:NoSchedule", Err("error: invalid taint spec: k=v=w:NoSchedule")),
            ("bad key", "kubectl taint nodes a 'nospecialchars^@=banana:NoSchedule'", Err("error: invalid taint spec: nospecialchars^@=banana:NoSchedule, name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
            ("empty key", "kubectl taint nodes a =v:NoSchedule", Err("error: invalid taint spec: =v:NoSchedule, name part must be non-empty; name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")),
            ("bad value", "kubectl taint nodes a k=-v:NoSchedule", Err("error: invalid taint spec: k=-v:NoSchedule, a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")),
            ("duplicate", "kubectl taint nodes a k=v:NoSchedule k=w:NoSchedule", Err("error: duplicated taints with the same key and effect: {k w NoSchedule <nil>}")),
            ("add and remove", "kubectl taint nodes a k=v:NoSchedule k:NoSchedule- k-", Err("error: can not both modify and remove the following taint(s) in the same command: k=NoSchedule, k=")),
            ("bad selector", "kubectl taint nodes -l 'a b' k:NoSchedule", Err("Error from server (BadRequest): Unable to find \"/v1, Resource=nodes\" that match label selector \"a b\", field selector \"\": unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt")),
            ("blank selector", "kubectl taint nodes a -l ' ' k:NoSchedule", Err("error: resource(s) were provided, but no name was specified")),
            ("help", "kubectl taint -h", Err("placement what-if does not support --help for `kubectl taint`: it prints kubectl's help")),
        ]);
    }

    #[test]
    fn label_commands() {
        check(&[
            ("set and remove", "kubectl label nodes a b tier=web old- --overwrite", Ok("kubectl label nodes a b tier=web old- --overwrite")),
            ("typed names", "kubectl label node/a no/b tier=web", Ok("kubectl label nodes a b tier=web")),
            ("last value wins", "kubectl label nodes a k=1 k=2", Ok("kubectl label nodes a k=2")),
            ("empty value", "kubectl label nodes a k=", Ok("kubectl label nodes a k=")),
            ("selector", "kubectl label nodes -l pool=user k=v", Ok("kubectl label nodes -l pool=user k=v")),
            ("all", "kubectl label nodes --all k=v", Ok("kubectl label nodes --all k=v")),
            ("names win over --all", "kubectl label nodes a --all k=v", Ok("kubectl label nodes a k=v")),
            ("several node types", "kubectl label nodes,no a k=v", Ok("kubectl label nodes a k=v")),
            ("a word starting with = is a resource", "kubectl label nodes a =v", Err("error: at least one label update is required")),
            ("no update", "kubectl label nodes a", Err("error: at least one label update is required")),
            ("no resource", "kubectl label k=v", Err("error: one or more resources must be specified as <resource> <name> or <resource>/<name>")),
            ("resource after a change", "kubectl label nodes k=v a", Err("error: all resources must be specified before label changes: a")),
            ("two equals", "kubectl label nodes a k=v=w", Err("error: invalid label spec: k=v=w")),
            ("bad value", "kubectl label nodes a k=-v", Err("error: invalid label value: \"k=-v\": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")),
            ("set and remove one key", "kubectl label nodes a k=v k-", Err("error: can not both modify and remove a label in the same command")),
            ("all and selector", "kubectl label nodes --all -l a k=v", Err("error: cannot set --all and --selector at the same time")),
            ("type without names", "kubectl label nodes k=v", Err("error: resource(s) were provided, but no name was specified")),
            ("names and selector", "kubectl label nodes a -l x k=v", Err("error: name cannot be provided when a selector is specified")),
            ("typed names and selector", "kubectl label node/a -l x k=v", Err("error: selectors and the all flag cannot be used when passing resource/name arguments")),
            ("type and typed names", "kubectl label nodes node/a k=v", Err("error: there is no need to specify a resource type as a separate argument when passing arguments in resource/name form (e.g. 'kubectl get resource/<resource_name>' instead of 'kubectl get resource resource/<resource_name>'")),
            ("two slashes", "kubectl label node/a/b k=v", Err("error: arguments in resource/name form may not have more than one slash")),
            ("empty name", "kubectl label node/ k=v", Err("error: arguments in resource/name form must have a single resource and name")),
            ("pods", "kubectl label pods a k=v", Err("placement what-if edits nodes only: \"pods\" is not nodes (node, nodes, no)")),
            ("typed pod", "kubectl label pod/a k=v", Err("placement what-if edits nodes only: \"pod\" is not nodes (node, nodes, no)")),
            ("field selector", "kubectl label nodes a k=v --field-selector metadata.name=a", Err("placement what-if does not support --field-selector for `kubectl label`: field selectors are not simulated")),
            ("files", "kubectl label -f node.yaml k=v", Err("placement what-if does not support --filename for `kubectl label`: it needs the live cluster or local files")),
        ]);
    }

    #[test]
    fn cordon_and_drain_commands() {
        check(&[
            ("cordon", "kubectl cordon a b", Ok("kubectl cordon a b")),
            ("cordon typed", "kubectl cordon node/a", Ok("kubectl cordon a")),
            ("uncordon selector", "kubectl uncordon -l pool=user", Ok("kubectl uncordon -l pool=user")),
            ("cordon's names are names", "kubectl cordon nodes a", Ok("kubectl cordon nodes a")),
            ("cordon nothing", "kubectl cordon", Err("error: USAGE: cordon NODE [flags]")),
            ("uncordon nothing", "kubectl uncordon", Err("error: USAGE: uncordon NODE [flags]")),
            ("cordon names and selector", "kubectl cordon a -l x=y", Err("error: cannot specify both a node name and a --selector option")),
            ("cordon has no --all", "kubectl cordon --all", Err("error: unknown flag: --all")),
            ("cordon prints no -o", "kubectl cordon a -o name", Err("error: unknown shorthand flag: 'o' in -o")),
            ("cordon empty selector", "kubectl cordon -l ''", Err("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")),
            ("cordon pod", "kubectl cordon pod/a", Err("placement what-if edits nodes only: \"pod\" is not nodes (node, nodes, no)")),
            ("drain defaults", "kubectl drain a", Ok("kubectl drain a")),
            ("drain all flags", "kubectl drain a --ignore-daemonsets --delete-emptydir-data --force --disable-eviction --grace-period 30 --timeout=90s --pod-selector 'app!=db' --skip-wait-for-delete-timeout=60 --chunk-size=10", Ok("kubectl drain a --ignore-daemonsets --delete-emptydir-data --force --disable-eviction --grace-period=30 --timeout=1m30s '--pod-selector=app!=db' --skip-wait-for-delete-timeout=60")),
            ("drain selector", "kubectl drain -l pool=user --ignore-daemonsets", Ok("kubectl drain -l pool=user --ignore-daemonsets")),
            ("drain hex grace period", "kubectl drain a --grace-period=0x10", Ok("kubectl drain a --grace-period=16")),
            ("drain underscore flag", "kubectl drain a --ignore_daemonsets", Ok("kubectl drain a --ignore-daemonsets")),
            ("drain bare dry-run", "kubectl drain a --dry-run", Ok("kubectl drain a")),
            ("drain dry-run takes no separate value", "kubectl drain a --dry-run client", Ok("kubectl drain a client")),
            ("drain old flag", "kubectl drain a --delete-local-data", Err("error: unknown flag: --delete-local-data")),
            ("drain bad dry-run", "kubectl drain a --dry-run=maybe", Err("error: Invalid dry-run value (maybe). Must be \"none\", \"server\", or \"client\".")),
            ("drain bad grace period", "kubectl drain a --grace-period abc", Err("error: invalid argument \"abc\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"abc\": invalid syntax")),
            ("drain huge grace period", "kubectl drain a --grace-period=99999999999999999999", Err("error: invalid argument \"99999999999999999999\" for \"--grace-period\" flag: strconv.ParseInt: parsing \"99999999999999999999\": value out of range")),
            ("drain bad timeout", "kubectl drain a --timeout=5", Err("error: invalid argument \"5\" for \"--timeout\" flag: time: missing unit in duration \"5\"")),
            ("drain bad bool", "kubectl drain a --force=yes", Err("error: invalid argument \"yes\" for \"--force\" flag: strconv.ParseBool: parsing \"yes\": invalid syntax")),
            ("drain missing value", "kubectl drain a --grace-period", Err("error: flag needs an argument: --grace-period")),
            ("drain missing short value", "kubectl drain -l", Err("error: flag needs an argument: 'l' in -l")),
            ("drain bad pod selector", "kubectl drain a --pod-selector 'a b'", Err("error: --pod-selector=<pod_selector> must be a valid label selector")),
            ("drain bad selector", "kubectl drain -l 'a in b'", Err("Error from server (BadRequest): Unable to find \"/v1, Resource=nodes\" that match label selector \"a in b\", field selector \"\": unable to parse requirement: found 'b' expected: '('")),
            ("drain bad flag syntax", "kubectl drain a ---force", Err("error: bad flag syntax: ---force")),
            ("drain short flag value forms", "kubectl drain -lpool=user", Ok("kubectl drain -l pool=user")),
            ("drain short flag with =", "kubectl drain -l=pool=user", Ok("kubectl drain -l pool=user")),
        ]);
    }

    #[test]
    fn delete_commands() {
        check(&[
            ("names", "kubectl delete node a b", Ok("kubectl delete nodes a b")),
            ("typed", "kubectl delete nodes/a", Ok("kubectl delete nodes a")),
            ("ignore not found", "kubectl delete no a --ignore-not-found --wait=false", Ok("kubectl delete nodes a --ignore-not-found")),
            ("selector", "kubectl delete nodes -l pool=user --ignore-not-found=false", Ok("kubectl delete nodes -l pool=user")),
            ("all", "kubectl delete nodes --all", Ok("kubectl delete nodes --all")),
            ("output name", "kubectl delete nodes a -o name", Ok("kubectl delete nodes a")),
            ("force with grace 0", "kubectl delete nodes a --force --grace-period=0", Ok("kubectl delete nodes a")),
            ("nothing", "kubectl delete", Err("error: You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'")),
            ("type only", "kubectl delete nodes", Err("error: resource(s) were provided, but no name was specified")),
            ("all and names", "kubectl delete nodes a --all", Err("error: name cannot be provided when a selector is specified")),
            ("all and selector", "kubectl delete nodes --all -l a", Err("error: setting 'all' parameter but found a non empty selector. ")),
            ("now and grace", "kubectl delete nodes a --now --grace-period=5", Err("error: --now and --grace-period cannot be specified together")),
            ("force and now", "kubectl delete nodes a --force --now", Err("error: --force and --grace-period greater than 0 cannot be specified together")),
            ("output", "kubectl delete nodes a -o yaml", Err("error: unexpected -o output mode: yaml. We only support '-o name'")),
            ("pods", "kubectl delete pods a", Err("placement what-if edits nodes only: \"pods\" is not nodes (node, nodes, no)")),
            ("interactive", "kubectl delete nodes a -i", Err("placement what-if does not support --interactive for `kubectl delete`: it asks for confirmation")),
        ]);
    }

    #[test]
    fn commands_words_and_add_nodes() {
        check(&[
            ("add-nodes", "add-nodes 3 like aks-user-1", Ok("add-nodes 3 like aks-user-1")),
            ("add-nodes most", "add-nodes 1000 like a", Ok("add-nodes 1000 like a")),
            ("add-nodes none", "add-nodes 0 like a", Err("add-nodes: the count must be a whole number from 1 to 1000, not \"0\"")),
            ("add-nodes too many", "add-nodes 1001 like a", Err("add-nodes: the count must be a whole number from 1 to 1000, not \"1001\"")),
            ("add-nodes not a number", "add-nodes three like a", Err("add-nodes: the count must be a whole number from 1 to 1000, not \"three\"")),
            ("add-nodes shape", "add-nodes 3 a", Err("add-nodes: expected `add-nodes N like NODE`, got `add-nodes 3 a`")),
            ("add-nodes is not kubectl's", "kubectl add-nodes 3 like a", Err("error: unknown command \"add-nodes\" for \"kubectl\"")),
            ("unknown command with suggestion", "kubectl cordn a", Err("error: unknown command \"cordn\" for \"kubectl\"\n\nDid you mean this?\n\tcordon\n")),
            ("SuggestFor", "kubectl rm nodes a", Err("error: unknown command \"rm\" for \"kubectl\"\n\nDid you mean this?\n\tcp\n\tdelete\n\trun\n")),
            ("prefix suggestion", "kubectl unc a", Err("error: unknown command \"unc\" for \"kubectl\"\n\nDid you mean this?\n\trun\n\tuncordon\n")),
            ("a real command not simulated", "kubectl scale deploy web --replicas=3", Err("placement what-if does not simulate `kubectl scale`: it simulates taint, label, cordon, uncordon, drain and delete nodes (and `add-nodes N like NODE`)")),
            ("empty", "  ", Err("no command given: expected e.g. `kubectl taint nodes NODE KEY=VALUE:EFFECT`")),
            ("comment only", "# nothing", Err("no command given: expected e.g. `kubectl taint nodes NODE KEY=VALUE:EFFECT`")),
            ("kubectl alone", "kubectl --context x", Err("no kubectl command given after `kubectl`")),
            ("unterminated", "kubectl cordon 'a", Err("unterminated single quote in: kubectl cordon 'a")),
            ("pipe", "kubectl cordon a | cat", Err("shell operator '|' is not supported: give one command per --what-if and quote selectors such as 'env in (a,b)'")),
            ("unquoted parenthesis", "kubectl cordon -l env in (a)", Err("shell operator '(' is not supported: give one command per --what-if and quote selectors such as 'env in (a,b)'")),
            ("double quotes and escapes", "kubectl taint nodes \"a\" k\\=v:NoSchedule", Ok("kubectl taint nodes a k=v:NoSchedule")),
            ("line continuation", "kubectl cordon \\\n a", Ok("kubectl cordon a")),
            ("unknown shorthand group", "kubectl drain a -fx", Err("error: unknown shorthand flag: 'f' in -fx")),
        ]);
    }

    #[test]
    fn parsed_values() {
        let cmd: WhatIf = "kubectl drain a --grace-period=-5 --pod-selector=app=web".parse().unwrap();
        let WhatIf::Drain { nodes, options } = cmd else { panic!("{cmd:?}") };
        assert_eq!(nodes, NodeSelection::Names(vec!["a".into()]));
        assert_eq!(options.grace_period_seconds, -5);
        assert_eq!(options.pod_selector.map(|s| s.to_string()).as_deref(), Some("app=web"));
        let cmd: WhatIf = "kubectl taint nodes a k-".parse().unwrap();
        assert_eq!(cmd.nodes(), Some(&NodeSelection::Names(vec!["a".into()])));
        assert!(cmd.continues_on_error());
        let WhatIf::Taint { changes, .. } = cmd else { panic!() };
        assert_eq!(changes, vec![TaintChange::Remove { key: "k".into(), effect: None }]);
        let cmd: WhatIf = "kubectl label nodes a x=1 y-".parse().unwrap();
        let WhatIf::Label { changes, .. } = &cmd else { panic!() };
        assert_eq!(changes, &vec![LabelChange::Set("x".into(), "1".into()), LabelChange::Remove("y".into())]);
        assert_eq!(cmd.name(), "label");
        let cmd: WhatIf = "add-nodes 2 like n".parse().unwrap();
        assert_eq!(cmd, WhatIf::AddNodes { count: 2, like: "n".into() });
        assert!(!"kubectl cordon a".parse::<WhatIf>().unwrap().continues_on_error());
    }

    #[test]
    fn errors_name_their_token() {
        let rows = [
            ("kubectl drain a --bogus", Some("bogus")),
            ("kubectl taint nodes k:NoSchedule a", Some("a")),
            ("kubectl taint nodes a k=v:Never", Some("Never")),
            ("kubectl label pods a k=v", Some("pods")),
            ("kubectl frobnicate", Some("frobnicate")),
            ("kubectl taint nodes a", None),
        ];
        for (input, token) in rows {
            let err = input.parse::<WhatIf>().unwrap_err();
            assert_eq!(err.token(), token, "{input}");
            if let Some(token) = token {
                assert!(err.to_string().contains(token), "{input}: {err}");
            }
        }
    }
}
