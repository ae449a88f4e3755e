//! `placement-policy-preinit --settings settings.yaml --input module.wasm --output out.wasm`
//!
//! Writes a pre-initialized copy of an annotated policy module: the module reads and compiles
//! the settings (the node inventory decoded, the policies built, every ConstraintTemplate
//! compiled) and its memory is snapshotted into the copy's initial memory, so that each fresh
//! instance policy-server makes for a request starts with them. The copy answers exactly as
//! the module does (checked here on a Deployment and on a request with other settings): a
//! request whose settings are not these bytes takes the module's usual path. `make policy
//! SETTINGS=...` runs it for the full and the lean module.

use std::process::ExitCode;

use placement_wapc_host::{canonical_payload, canonical_settings, preinitialize, RawHost};
use serde_json::{json, Value};

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("placement-policy-preinit: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let (mut settings, mut input, mut output) = (None, None, None);
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--settings" => settings = it.next(),
            "--input" => input = it.next(),
            "--output" => output = it.next(),
            "-h" | "--help" => {
                println!(
                    "usage: placement-policy-preinit --settings settings.yaml --input module.wasm --output out.wasm"
                );
                return Ok(());
            }
            other => return Err(format!("unknown argument {other:?} (see --help)")),
        }
    }
    let (Some(settings), Some(input), Some(output)) = (settings, input, output) else {
        return Err("--settings, --input and --output are required (see --help)".into());
    };
    let text = std::fs::read_to_string(&settings).map_err(|e| format!("{settings}: {e}"))?;
    // YAML, as `kwctl run --settings-path` and the policy's `spec.settings` take them (JSON is
    // YAML too).
    let value: Value = serde_yaml::from_str(&text).map_err(|e| format!("{settings}: {e}"))?;
    let settings_text = canonical_settings(&value);
    let module = std::fs::read(&input).map_err(|e| format!("{input}: {e}"))?;
    let baked = preinitialize(&module, &settings_text).map_err(|e| format!("{input} with {settings}: {e}"))?;

    // The copy answers as the module does: for these settings and for others.
    let request: Value =
        serde_json::from_str(include_str!("../../../../core/src/admission/testdata/deployment-web.json"))
            .map_err(|e| e.to_string())?;
    for s in [value.clone(), json!({})] {
        let payload = canonical_payload(&request, &s);
        let mut plain = RawHost::new(&module).map_err(|e| e.to_string())?;
        let mut copy = RawHost::new(&baked.bytes).map_err(|e| format!("the pre-initialized copy: {e}"))?;
        let (want, got) = (plain.call("validate", &payload), copy.call("validate", &payload));
        if want != got {
            return Err(format!("the pre-initialized copy answers {got:?} where the module answers {want:?}"));
        }
    }
    if let Some(dir) = std::path::Path::new(&output).parent() {
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    std::fs::write(&output, &baked.bytes).map_err(|e| format!("{output}: {e}"))?;
    println!(
        "pre-initialized {output}: {} bytes (module {} bytes; memory {} KiB at the snapshot), for the {} bytes of settings of {settings}",
        baked.bytes.len(),
        module.len(),
        baked.memory / 1024,
        settings_text.len()
    );
    Ok(())
}
