//! `placement`: the command-line face of placement-core. It reads files, calls the core and
//! prints; all logic lives in the core.

use std::io::Read;
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use placement_core::documents::{parse_manifests, InputError, Manifests};
use placement_core::simulate::{simulate, SimulateOptions};
use placement_core::version::KubeVersion;
use placement_core::{conformance, render};

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

#[derive(Subcommand)]
enum Command {
    /// Simulate kube-scheduler and the DaemonSet controller over nodes and workloads.
    Simulate {
        /// A YAML or JSON file of Nodes and workloads (multi-document, or `kind: List`);
        /// `-` reads standard input. Repeatable.
        #[arg(short = 'f', long = "filename", required = true)]
        files: Vec<String>,
        #[arg(short = 'o', long = "output", value_enum, default_value_t = Output::Text)]
        output: Output,
        /// Kubernetes release whose scheduler wording and defaults to use (e.g. 1.30).
        #[arg(long = "kube-version", default_value_t = KubeVersion::LATEST.to_string())]
        kube_version: String,
        /// Leave out admission defaults (DefaultTolerationSeconds).
        #[arg(long)]
        no_admission_defaults: bool,
        /// Set a feature gate, e.g. `TaintTolerationComparisonOperators=true`. Repeatable.
        #[arg(long = "feature-gate")]
        feature_gates: Vec<String>,
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
        Command::Simulate { files, output, kube_version, no_admission_defaults, feature_gates } => {
            run_simulate(&files, output, &kube_version, no_admission_defaults, &feature_gates)
        }
        Command::Conformance { vectors } => run_conformance(&vectors),
    }
}

fn run_simulate(files: &[String], output: Output, version: &str, no_admission: bool, gates: &[String]) -> ExitCode {
    let version = match KubeVersion::parse(version) {
        Ok(v) => v,
        Err(e) => return fail(&format!("--kube-version: {e}")),
    };
    let mut opts = SimulateOptions::for_version(version);
    opts.admission_defaults = !no_admission;
    for g in gates {
        let Some((name, value)) = g.split_once('=') else {
            return fail(&format!("--feature-gate {g:?}: expected NAME=true|false"));
        };
        let value = match value {
            "true" => true,
            "false" => false,
            other => return fail(&format!("--feature-gate {name}: expected true or false, got {other:?}")),
        };
        if let Err(e) = opts.gates.set(name, value) {
            return fail(&format!("--feature-gate: {e}"));
        }
    }

    let mut manifests = Manifests::default();
    for file in files {
        let (text, source) = match read_input(file) {
            Ok(t) => t,
            Err(e) => return fail(&e),
        };
        match parse_manifests(&text, &source) {
            Ok(m) => manifests.extend(m),
            Err(e) => return fail_input(&[e]),
        }
    }
    let report = match simulate(&manifests, &opts) {
        Ok(r) => r,
        Err(errors) => return fail_input(&errors),
    };
    let rendered = match output {
        Output::Text => render::text(&report),
        Output::Markdown => render::markdown(&report),
        Output::Json => match serde_json::to_string_pretty(&report) {
            Ok(s) => s + "\n",
            Err(e) => return fail(&format!("rendering JSON: {e}")),
        },
    };
    print!("{rendered}");
    ExitCode::SUCCESS
}

fn run_conformance(path: &str) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => return fail(&format!("{path}: {e}")),
    };
    let report = match conformance::run(&text) {
        Ok(r) => r,
        Err(e) => return fail(&e),
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

fn read_input(file: &str) -> Result<(String, String), String> {
    let limit = placement_core::documents::MAX_INPUT_BYTES as u64;
    let mut text = String::new();
    let result = if file == "-" {
        std::io::stdin().take(limit + 1).read_to_string(&mut text)
    } else {
        std::fs::File::open(file).and_then(|f| f.take(limit + 1).read_to_string(&mut text))
    };
    result.map_err(|e| format!("{file}: {e}"))?;
    let source = if file == "-" { "<stdin>".to_string() } else { file.to_string() };
    Ok((text, source))
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
