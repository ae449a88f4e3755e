#!/usr/bin/env bash
# tests/wapc-host/run.sh test|bench [ARGS...]
#
#   test    the built modules in the waPC host: dist/policy/placement-policy.wasm (full) and
#           placement-policy-lean.wasm (no Gatekeeper): protocol, settings, the Kubewarden test
#           cases, import lists, metadata, sizes, garbage; Gatekeeper (full module), the lean
#           module's refusal of it; the 100,000-validation load test (full module)
#   bench   the benchmark binary; ARGS go to it (e.g. --update BENCHMARKS.md)
#   preinit the pre-initializer (placement-policy-preinit); ARGS go to it
#           (--settings S --input M --output OUT; policy-wasm/preinit.sh runs it)
#
# `test` uses the `wapc-test` profile (opt-level 1, no LTO; see Cargo.toml): the module's code
# runs as Cranelift compiles it whatever the host's opt-level, and the host builds fast cold.
# `bench` uses `release`, as policy-server's wasmtime is built, so that the cold start (Cranelift
# compiling the module) is measured at production speed; it is a second build of wasmtime, only
# on machines that benchmark.
#
# This crate is its own workspace (wasmtime is not built by the main workspace's cargo test).
# Its target dir is ${PLACEMENT_WAPC_HOST_TARGET:-${PLACEMENT_TOOLS:-~/.cache/placement-tools}/target-wapc-host},
# outside the repository, so that later runs and fresh clones on the same machine reuse it.
# wasmtime is built with only the features a waPC guest needs (src/provider.rs says why):
# the whole host cold in 8.8 CPU-minutes, 4.6 min on 2 idle cores (with wasmtime-provider's
# feature list it was 22.6 CPU-minutes for wasmtime alone).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PLACEMENT_TOOLS="${PLACEMENT_TOOLS:-$HOME/.cache/placement-tools}"
export CARGO_TARGET_DIR="${PLACEMENT_WAPC_HOST_TARGET:-$PLACEMENT_TOOLS/target-wapc-host}"
MODULE="${PLACEMENT_POLICY_WASM:-$ROOT/dist/policy/placement-policy.wasm}"
LEAN_MODULE="${PLACEMENT_POLICY_LEAN_WASM:-$ROOT/dist/policy/placement-policy-lean.wasm}"

[ "${1:-}" = preinit ] || for m in "$MODULE" "$LEAN_MODULE"; do
    [ -f "$m" ] || {
        echo "tests/wapc-host: $m not found: run 'make policy' first" >&2
        exit 1
    }
done
if ! compgen -G "$CARGO_TARGET_DIR/wapc-test/deps/libwasmtime-*.rlib" >/dev/null; then
    echo "tests/wapc-host: first build of the waPC host (wasmtime) in $CARGO_TARGET_DIR:" \
        "about 9 CPU-minutes (5-10 min on 2 cores, by load); later runs reuse it" >&2
fi

manifest=(--manifest-path "$HERE/Cargo.toml")
case ${1:-} in
test)
    cargo fmt "${manifest[@]}" -- --check
    cargo clippy --profile wapc-test "${manifest[@]}" --all-targets -- -D warnings
    cargo test --profile wapc-test "${manifest[@]}"
    ;;
bench)
    shift
    cargo run --release -q "${manifest[@]}" --bin bench-policy -- "$@"
    ;;
preinit)
    shift
    cargo run --profile wapc-test -q "${manifest[@]}" --bin placement-policy-preinit -- "$@"
    ;;
*)
    sed -n '2,16p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
