#!/usr/bin/env bash
# policy-wasm/build.sh: builds the Kubewarden policy module for wasm32-unknown-unknown and
# writes the annotated artifact (metadata in the `io.kubewarden.metadata` custom section, debug
# and producer sections stripped) to dist/policy/placement-policy.wasm. `make policy` runs it.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${PLACEMENT_POLICY_OUT:-$ROOT/dist/policy/placement-policy.wasm}"

# scripts/cargo-wasm.sh picks rustup's wasm32 std or the offline build-std fallback.
"$ROOT/scripts/cargo-wasm.sh" build -p placement-policy --release

# Where that build went (target/wasm or target/wasm-buildstd), read in a subshell so that the
# fallback's RUSTC/CARGO settings do not leak into the native build below.
wasm_target_dir="$(
    # shellcheck source=/dev/null
    . "$ROOT/target/wasm-env.sh"
    printf '%s\n' "$CARGO_TARGET_DIR"
)"
module="$wasm_target_dir/wasm32-unknown-unknown/release/placement_policy.wasm"
[ -f "$module" ] || {
    echo "policy-wasm/build.sh: $module not found after the build" >&2
    exit 1
}

# The annotate tool is native (feature `annotate`), built in the workspace's own target dir.
cd "$ROOT"
cargo run -q -p placement-policy --features annotate --bin placement-policy-annotate -- \
    --metadata policy-wasm/metadata.yml --input "$module" --output "$OUT"
