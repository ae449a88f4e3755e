//! `placement`: the command-line face of placement-core. It reads files, calls the core and
//! prints; all logic lives in the core.

use std::io::Read;

/// mimalloc instead of the system allocator: reading a large snapshot makes and frees
/// millions of small strings and maps, where glibc's malloc spent a fifth of the CPU time and
/// kept the freed memory mapped (BENCHMARKS.md, "Snapshot").
#[cfg(not(target_arch = "wasm32"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use placement_core::cluster::pools::PoolLabel;
use placement_core::cluster::simulate::{simulate, validate, SimulateOptions};
use placement_core::cluster::what_if::{run_what_if, WhatIf, WhatIfFailure};
use placement_core::gatekeeper::{self, suite, PolicySet};
use placement_core::input::documents::{
    parse_manifests_checked, split_documents, InputError, Manifests, MAX_INPUT_BYTES,
};
use placement_core::input::list_stream;
use placement_core::input::text::decode_text;
use placement_core::model::version::{FeatureGates, KubeVersion};
use placement_core::{conformance, explain::render};

#[derive(Parser)]
#[command(
    name = "placement",
    version,
    about = "Where Kubernetes places your pods, why not elsewhere, and the smallest fix"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Args)]
struct SimulateArgs {
    /// A YAML or JSON file of Nodes and workloads (multi-document, or `kind: List`), or a
    /// directory: its `.json`, `.yaml` and `.yml` files in lexical order, as kubectl reads
    /// them. `-` reads standard input. Repeatable.
    #[arg(short = 'f', long = "filename", required = true)]
    files: Vec<String>,
    /// Read the directories given to -f recursively, as kubectl's -R.
    #[arg(short = 'R', long = "recursive")]
    recursive: bool,
    #[arg(short = 'o', long = "output", value_enum, default_value_t = Output::Text)]
    output: Output,
    /// Kubernetes release whose scheduler wording and defaults to use (e.g. 1.30). Default:
    /// the newest `status.nodeInfo.kubeletVersion` of the input's Nodes (within the modelled
    /// releases, said at the top of the report), else 1.35.
    #[arg(long = "kube-version")]
    kube_version: Option<String>,
    /// Leave out admission defaults (DefaultTolerationSeconds).
    #[arg(long)]
    no_admission_defaults: bool,
    /// kube-scheduler's `percentageOfNodesToScore`: with 100 nodes or more, a cycle stops
    /// searching once it has found this share of the nodes feasible. 0 (the default) is
    /// upstream's adaptive default; 100 searches and scores every node.
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(i32).range(0..=100))]
    percentage_of_nodes_to_score: i32,
    /// Set a feature gate, e.g. `TaintTolerationComparisonOperators=true`. Repeatable.
    #[arg(long = "feature-gate")]
    feature_gates: Vec<String>,
    /// Gatekeeper ConstraintTemplates and Constraints (YAML/JSON): each workload also
    /// lists its violations. Repeatable.
    #[arg(long = "policy")]
    policy: Vec<String>,
    /// A kubectl command about to be run against the nodes, applied to the input read as a
    /// cluster snapshot: `taint`, `cordon`, `uncordon`, `drain`, `delete node`, `label`, or
    /// `add-nodes N like NODE`. The report is the cluster after the commands, with a `changes`
    /// section. Repeatable; applied in order.
    #[arg(long = "what-if", value_name = "COMMAND")]
    what_if: Vec<String>,
    /// Unknown and duplicate fields (and kinds one typo away from one Placement reads) are
    /// errors, as with `kubectl apply --validate=strict`; without it they are warnings on
    /// standard error, as with `--validate=warn`.
    #[arg(long)]
    strict: bool,
    /// The node label that groups nodes into pools (default: the clouds' pool labels).
    #[arg(long = "pool-label", value_name = "KEY")]
    pool_label: Option<String>,
    /// List every node, pod and ignored object: the text and markdown reports group nodes
    /// with the same verdict (by pool) and pods with the same status, and standard error
    /// counts ignored objects by kind, unless -v is given. JSON is never grouped.
    #[arg(short = 'v', long = "verbose")]
    verbose: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Simulate kube-scheduler and the DaemonSet controller over nodes and workloads.
    Simulate(SimulateArgs),
    /// Run gator Suite files (test.gatekeeper.sh/v1alpha1) and print `N passed, M failed`.
    Verify {
        /// Suite files.
        #[arg(required = true)]
        suites: Vec<String>,
        /// Take each test's `template:` from DIR instead of the suite's folder: the longest
        /// trailing part of the suite's folder found under DIR, e.g. suite
        /// `.../gatekeeper-library/general/allowedrepos/suite.yaml` uses
        /// `DIR/general/allowedrepos/template.yaml`.
        #[arg(long = "templates", value_name = "DIR")]
        templates: Option<String>,
        /// gator's flag: evaluate a template's K8sNativeValidation (CEL) code when it has
        /// some (the default, as gator does); `=false` evaluates its Rego instead.
        #[arg(long = "enable-k8s-native-validation", value_name = "BOOL", default_value_t = true, action = clap::ArgAction::Set, num_args = 0..=1, default_missing_value = "true")]
        enable_k8s_native_validation: bool,
    },
    /// Run the kube-scheduler conformance vectors and print `N passed, M failed`.
    Conformance {
        /// Path to vectors.json.
        vectors: String,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum Output {
    Text,
    Json,
    Markdown,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Simulate(args) => run_simulate(&args),
        Command::Conformance { vectors } => run_conformance(&vectors),
        Command::Verify { suites, templates, enable_k8s_native_validation } => {
            let options = suite::RunOptions {
                k8s_native_validation: enable_k8s_native_validation,
                ..suite::RunOptions::default()
            };
            run_verify(&suites, templates.as_deref(), options)
        }
    }
}

fn run_simulate(args: &SimulateArgs) -> ExitCode {
    let files = match manifest_paths(&args.files, args.recursive) {
        Ok(files) => files,
        Err(e) => return fail(&e),
    };
    let (output, no_admission, gates, policy_files) =
        (args.output, args.no_admission_defaults, &args.feature_gates, &args.policy);
    let what_if = match args
        .what_if
        .iter()
        .map(|c| c.parse::<WhatIf>().map_err(|e| format!("--what-if {c:?}: {e}")))
        .collect::<Result<Vec<_>, _>>()
    {
        Ok(commands) => commands,
        Err(e) => return fail(&e),
    };
    let given_version = match args.kube_version.as_deref().map(str::parse::<KubeVersion>).transpose() {
        Ok(v) => v,
        Err(e) => return fail(&format!("--kube-version: {e}")),
    };
    let mut gate_values = Vec::new();
    for g in gates {
        let Some((name, value)) = g.split_once('=') else {
            return fail(&format!("--feature-gate {g:?}: expected NAME=true|false"));
        };
        let value = match value {
            "true" => true,
            "false" => false,
            other => return fail(&format!("--feature-gate {name}: expected true or false, got {other:?}")),
        };
        // Checked now, set once the release is known (it may come from the input's Nodes).
        if let Err(e) = FeatureGates::default().set(name, value) {
            return fail(&format!("--feature-gate: {e}"));
        }
        gate_values.push((name, value));
    }

    let policy = if policy_files.is_empty() {
        None
    } else {
        let mut set = PolicySet::default();
        for file in policy_files {
            let (text, source) = match read_input(file) {
                Ok(t) => t,
                Err(e) => return fail(&e),
            };
            if let Err(e) = set.add_text(&text, &source) {
                return fail(&format!("--policy {file}: {e}"));
            }
        }
        Some(set.with_default_expansions())
    };

    let mut manifests = Manifests::default();
    let mut objects = Vec::new();
    // Every file's errors, so that one run reports every invalid document.
    let mut errors = Vec::new();
    let mut sources = Vec::new();
    for file in &files {
        // A large snapshot is read as it streams in, never whole (without --policy, which
        // reviews the documents' own text).
        if policy.is_none() {
            match read_streamed_list(file) {
                Ok(Some(m)) => {
                    sources.push(file.clone());
                    manifests.extend(m);
                    continue;
                }
                Ok(None) => {}
                Err(e) => return fail(&e),
            }
        }
        let (text, source) = match read_input(file) {
            Ok(t) => t,
            Err(e) => return fail(&e),
        };
        sources.push(source.clone());
        // The findings are turned into errors here rather than by the core's `strict`, so
        // that the documents still reach validation below.
        match parse_manifests_checked(&text, &source, false) {
            Ok((m, findings)) => {
                for finding in findings {
                    if args.strict {
                        errors.push(InputError::Strict(Box::new(finding)));
                    } else {
                        eprintln!("warning: {finding}");
                    }
                }
                manifests.extend(m);
            }
            Err(e) => {
                errors.extend(e);
                // The documents that did read are validated below with the rest.
                manifests.extend(placement_core::input::documents::readable_manifests(&text, &source));
                continue;
            }
        }
        if policy.is_some() {
            match split_documents(&text, &source) {
                Ok(docs) => objects.extend(docs.into_iter().map(|d| d.value)),
                Err(e) => errors.push(e),
            }
        }
    }
    let mut opts = SimulateOptions::for_release(manifests.release(given_version));
    opts.admission_defaults = !no_admission;
    opts.percentage_of_nodes_to_score = args.percentage_of_nodes_to_score;
    for (name, value) in gate_values {
        if let Err(e) = opts.gates.set(name, value) {
            return fail(&format!("--feature-gate: {e}"));
        }
    }
    if !errors.is_empty() {
        // What did read is validated too: one run names every invalid document.
        if let Err(more) = validate(&manifests, &opts) {
            errors.extend(more);
        }
        // In the order of the files and of the documents in each; whole-file errors first.
        errors.sort_by_key(|e| e.doc().map(|d| (sources.iter().position(|s| *s == d.source), d.index)));
        return fail_input(&errors);
    }
    let pool_label = PoolLabel::from_option(args.pool_label.as_deref());
    // With --what-if, the nodes as the commands leave them (added, relabelled), for the pools
    // the report's groups are labelled with.
    let simulated = if what_if.is_empty() {
        simulate(&manifests, &opts).map(|r| (r, None)).map_err(WhatIfFailure::Input)
    } else {
        run_what_if(&manifests, &what_if, &opts, &pool_label).map(|run| (run.report, Some(run.after)))
    };
    let (mut report, after) = match simulated {
        Ok(r) => r,
        Err(WhatIfFailure::Input(errors)) => return fail_input(&errors),
        Err(e) => return fail(&e.to_string()),
    };
    if let Some(policy) = &policy {
        if let Err(e) = gatekeeper::review_report(&mut report, policy, &objects) {
            return fail(&e.to_string());
        }
    }
    // Diagnostics on standard error, the report on standard output, as kubectl writes them.
    for line in render::diagnostics(&report, &manifests.ignored, args.verbose) {
        eprintln!("{line}");
    }
    if manifests.workloads.is_empty() {
        // Said, not failed: like `kubectl get` with "No resources found" (standard error, exit
        // 0). Input of nodes alone is valid, and is how a node file is checked (`kubectl get
        // nodes -o yaml | placement simulate -f -`); the report (JSON: `"workloads": []`)
        // still follows, and CI that needs workloads can test for them there.
        eprintln!(
            "no workloads in the input ({} node{} read): nothing to place",
            manifests.nodes.len(),
            if manifests.nodes.len() == 1 { "" } else { "s" }
        );
    }
    let layout = render::Options { verbose: args.verbose, ..Default::default() }
        .with_pools(after.as_ref().unwrap_or(&manifests).nodes.iter().map(|(_, n)| &**n), &pool_label);
    let rendered = match output {
        Output::Text => render::text_with(&report, &layout),
        Output::Markdown => render::markdown_with(&report, &layout),
        Output::Json => match serde_json::to_string_pretty(&report) {
            Ok(s) => s + "\n",
            Err(e) => return fail(&format!("rendering JSON: {e}")),
        },
    };
    print!("{rendered}");
    if policy.is_some() && !matches!(output, Output::Json) {
        print!("{}", render::gatekeeper_section(&report, matches!(output, Output::Markdown)));
    }
    ExitCode::SUCCESS
}

/// Files of one suite: relative to its folder; templates optionally from `--templates`.
struct SuiteFiles {
    dir: std::path::PathBuf,
    templates: Option<std::path::PathBuf>,
}

impl suite::SuiteFs for SuiteFiles {
    fn read(&self, path: &str) -> Result<String, String> {
        let full = self.dir.join(path);
        read_input(&full.to_string_lossy()).map(|(t, _)| t)
    }

    fn read_template(&self, path: &str) -> Result<String, String> {
        let Some(root) = &self.templates else { return self.read(path) };
        let dir = std::fs::canonicalize(&self.dir).unwrap_or_else(|_| self.dir.clone());
        let parts: Vec<_> = dir.components().filter(|c| matches!(c, std::path::Component::Normal(_))).collect();
        for start in 0..=parts.len() {
            let mut candidate = root.clone();
            candidate.extend(parts[start..].iter());
            candidate.push(path);
            if candidate.is_file() {
                return read_input(&candidate.to_string_lossy()).map(|(t, _)| t);
            }
        }
        Err(format!(
            "no template for {} under {} (looked for <trailing folders>/{path})",
            dir.display(),
            root.display()
        ))
    }
}

fn run_verify(suites: &[String], templates: Option<&str>, options: suite::RunOptions) -> ExitCode {
    let (mut passed, mut failed, mut skipped) = (0usize, 0usize, 0usize);
    for path in suites {
        let dir = std::path::Path::new(path).parent().map(|p| p.to_path_buf()).unwrap_or_default();
        let fs = SuiteFiles { dir, templates: templates.map(std::path::PathBuf::from) };
        let results = read_input(path)
            .and_then(|(text, source)| suite::run_suite(&text, &source, &fs, options).map_err(|e| e.to_string()));
        match results {
            Ok(results) => {
                for r in results {
                    match r.outcome {
                        suite::Outcome::Pass => {
                            passed += 1;
                            println!("PASS {path}: {} / {}", r.test, r.case);
                        }
                        suite::Outcome::Skip => {
                            skipped += 1;
                            println!("SKIP {path}: {} / {}", r.test, r.case);
                        }
                        suite::Outcome::Fail(why) => {
                            failed += 1;
                            println!("FAIL {path}: {} / {}: {why}", r.test, r.case);
                        }
                    }
                }
            }
            Err(e) => {
                failed += 1;
                println!("FAIL {path}: {e}");
            }
        }
    }
    if skipped > 0 {
        println!("{passed} passed, {failed} failed, {skipped} skipped");
    } else {
        println!("{passed} passed, {failed} failed");
    }
    if failed == 0 && passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn run_conformance(path: &str) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return fail(&format!("{path}: {e}")),
    };
    let report = match conformance::run(&text) {
        Ok(r) => r,
        Err(e) => return fail(&e.to_string()),
    };
    for f in &report.failures {
        println!("FAIL {}: {}", f.id, f.message);
    }
    println!("conformance: {}", report.summary());
    if report.failed == 0 && report.passed > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The text of a file, or of standard input for `-`, and its name for error messages. The
/// bytes may be UTF-8 or UTF-16 ([`decode_text`]: PowerShell's `>` writes UTF-16).
fn read_input(file: &str) -> Result<(String, String), String> {
    // UTF-16 takes up to two bytes for each byte of the UTF-8 text.
    let limit = 2 * MAX_INPUT_BYTES as u64 + 2;
    let source = if file == "-" { "<stdin>" } else { file };
    let too_large =
        |size| InputError::TooLarge { source_name: format!("{source}: "), size, limit: MAX_INPUT_BYTES }.to_string();
    let mut bytes = Vec::new();
    let result = if file == "-" {
        std::io::stdin().take(limit + 1).read_to_end(&mut bytes)
    } else {
        let f = std::fs::File::open(file).map_err(|e| format!("{file}: {e}"))?;
        match f.metadata() {
            Ok(m) if m.len() > limit => return Err(too_large(m.len() as usize)),
            _ => {}
        }
        f.take(limit + 1).read_to_end(&mut bytes)
    };
    result.map_err(|e| format!("{file}: {e}"))?;
    if bytes.len() as u64 > limit {
        return Err(too_large(bytes.len()));
    }
    let text = decode_text(&bytes, source).map_err(|e| e.to_string())?;
    Ok((text, source.to_string()))
}

/// A file of [`list_stream::MIN_BYTES`] or more that holds a `kind: List` as kubectl prints it,
/// read back from a cluster, read in parts as it streams in ([`list_stream`]); `None` for
/// everything else (standard input included), which [`read_input`] and the usual reading
/// take, with their exact errors and the strict checks.
fn read_streamed_list(file: &str) -> Result<Option<Manifests>, String> {
    if file == "-" {
        return Ok(None);
    }
    let Ok(f) = std::fs::File::open(file) else { return Ok(None) };
    match f.metadata() {
        Ok(m) if (list_stream::MIN_BYTES as u64..=MAX_INPUT_BYTES as u64).contains(&m.len()) => {}
        _ => return Ok(None),
    }
    let manifests = list_stream::read(f, file).map_err(|e| format!("{file}: {e}"))?;
    // Objects written by hand get the strict checks, which read the whole text.
    Ok(manifests.filter(|m| !placement_core::input::strict::needs_check(m)))
}

/// kubectl's `-f` extensions (`resource.FileExtensions`).
const EXTENSIONS: [&str; 3] = ["json", "yaml", "yml"];

/// The files `-f` names, as kubectl expands them: a file as given (whatever its name), `-`,
/// and for a directory its `.json`, `.yaml` and `.yml` files in lexical order, other files
/// skipped; with `recursive`, its subdirectories' too, each at its place in the order.
fn manifest_paths(paths: &[String], recursive: bool) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for path in paths {
        let dir = std::path::Path::new(path);
        if path != "-" && !dir.exists() {
            return Err(format!("the path {path:?} does not exist"));
        }
        if path == "-" || !dir.is_dir() {
            out.push(path.clone());
            continue;
        }
        let mut files = Vec::new();
        directory_files(dir, recursive, &mut files).map_err(|e| format!("error reading {path:?}: {e}"))?;
        if files.is_empty() {
            let mut deeper = Vec::new();
            let hint = if !recursive && directory_files(dir, true, &mut deeper).is_ok() && !deeper.is_empty() {
                " (its subdirectories have some: -R reads them)"
            } else {
                ""
            };
            return Err(format!("error reading [{path}]: recognized file extensions are [.json .yaml .yml]{hint}"));
        }
        out.extend(files.into_iter().map(|f| f.to_string_lossy().into_owned()));
    }
    Ok(out)
}

/// The manifest files in `dir` (and below it with `recursive`), depth first in lexical order,
/// as Go's `filepath.Walk` visits them for kubectl. Symbolic links to directories are not
/// followed.
fn directory_files(dir: &std::path::Path, recursive: bool, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
    let mut entries = std::fs::read_dir(dir)?.collect::<Result<Vec<_>, _>>()?;
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        let path = entry.path();
        if entry.file_type()?.is_dir() {
            if recursive {
                directory_files(&path, true, out)?;
            }
        } else if path.extension().is_some_and(|e| EXTENSIONS.iter().any(|x| e == *x)) {
            out.push(path);
        }
    }
    Ok(())
}

fn fail(message: &str) -> ExitCode {
    eprintln!("error: {message}");
    ExitCode::FAILURE
}

fn fail_input(errors: &[InputError]) -> ExitCode {
    for e in errors {
        eprintln!("error: {e}");
    }
    ExitCode::FAILURE
}
