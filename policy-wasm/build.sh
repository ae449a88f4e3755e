#!/usr/bin/env bash
# policy-wasm/build.sh: builds the Kubewarden policy module for wasm32-unknown-unknown, twice,
# and writes the annotated artifacts (metadata in the `io.kubewarden.metadata` custom section,
# debug and producer sections stripped). `make policy` runs it.
#
#   dist/policy/placement-policy.wasm       the full module: the placement policies and the
#                                           `gatekeeper` setting (OPA Gatekeeper ConstraintTemplates,
#                                           with the Rego interpreter); metadata.yml
#   dist/policy/placement-policy-lean.wasm  the placement policies only (`--no-default-features`:
#                                           no Rego interpreter; profile `policy-lean`, optimized
#                                           for size: under 2 MB); metadata-lean.yml.
#                                           A `gatekeeper` setting is a settings error there.
#
# PLACEMENT_POLICY_OUT and PLACEMENT_POLICY_LEAN_OUT override the two output paths.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
OUT="${PLACEMENT_POLICY_OUT:-$ROOT/dist/policy/placement-policy.wasm}"
LEAN_OUT="${PLACEMENT_POLICY_LEAN_OUT:-$ROOT/dist/policy/placement-policy-lean.wasm}"

# One variant: build in cargo profile $3 (extra cargo flags in $4...), then annotate with
# metadata file $1 into $2. The two variants are the same crate; the full module is built in
# `release` and the lean one in `policy-lean` (Cargo.toml), so each has its own output file.
variant() {
    local metadata=$1 out=$2 profile=$3
    shift 3
    # scripts/cargo-wasm.sh picks rustup's wasm32 std or the offline build-std fallback.
    "$ROOT/scripts/cargo-wasm.sh" build -p placement-policy --profile "$profile" "$@"

    # Where that build went (target/wasm or target/wasm-buildstd), read in a subshell so that
    # the fallback's RUSTC/CARGO settings do not leak into the native build below.
    local wasm_target_dir module
    wasm_target_dir="$(
        # shellcheck source=/dev/null
        . "$ROOT/target/wasm-env.sh"
        printf '%s\n' "$CARGO_TARGET_DIR"
    )"
    module="$wasm_target_dir/wasm32-unknown-unknown/$profile/placement_policy.wasm"
    [ -f "$module" ] || {
        echo "policy-wasm/build.sh: $module not found after the build" >&2
        exit 1
    }

    # The annotate tool is native (feature `annotate`), built in the workspace's own target dir
    # with the crates `make check` selects (the default members, NATIVE_FEATURES in the
    # Makefile), so that it reuses their build instead of compiling placement-core once more.
    (cd "$ROOT" && cargo run -q ${NATIVE_FEATURES:---features placement-policy/annotate} --bin placement-policy-annotate -- \
        --metadata "$metadata" --input "$module" --output "$out")
}

variant "$ROOT/policy-wasm/metadata.yml" "$OUT" release
variant "$ROOT/policy-wasm/metadata-lean.yml" "$LEAN_OUT" policy-lean --no-default-features
