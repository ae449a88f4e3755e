//! `placement-policy-annotate --metadata metadata.yml --input module.wasm --output out.wasm`
//!
//! Writes the Kubewarden metadata into the module's `io.kubewarden.metadata` custom section,
//! as `kwctl annotate` does, after checking that the module imports nothing but waPC's three
//! guest functions. Debug and producer sections are dropped unless `--keep-names` is given.

use std::process::ExitCode;

use placement_policy::metadata::annotate;
use placement_policy::wasm::{custom_section_names, imports};

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("placement-policy-annotate: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let (mut metadata, mut input, mut output, mut strip) = (None, None, None, true);
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--metadata" => metadata = it.next(),
            "--input" => input = it.next(),
            "--output" => output = it.next(),
            "--keep-names" => strip = false,
            "-h" | "--help" => {
                println!("usage: placement-policy-annotate --metadata metadata.yml --input module.wasm --output out.wasm [--keep-names]");
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    let (Some(metadata), Some(input), Some(output)) = (metadata, input, output) else {
        return Err("--metadata, --input and --output are required (see --help)".into());
    };
    let yaml = std::fs::read_to_string(&metadata).map_err(|e| format!("{metadata}: {e}"))?;
    let module = std::fs::read(&input).map_err(|e| format!("{input}: {e}"))?;
    let annotated = annotate(&module, &yaml, strip).map_err(|e| format!("{input}: {e}"))?;
    if let Some(dir) = std::path::Path::new(&output).parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&output, &annotated).map_err(|e| format!("{output}: {e}"))?;
    let imported: Vec<String> =
        imports(&annotated).map_err(|e| e.to_string())?.iter().map(ToString::to_string).collect();
    println!(
        "annotated {output}: {} bytes (module {} bytes); imports: {}; custom sections: {}",
        annotated.len(),
        module.len(),
        imported.join(", "),
        custom_section_names(&annotated).map_err(|e| e.to_string())?.join(", ")
    );
    Ok(())
}
