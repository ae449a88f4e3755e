#!/usr/bin/env bash
# tests/wapc-host/run.sh test|bench [ARGS...]
#
#   test    the built module (dist/policy/placement-policy.wasm) in the waPC host: protocol,
#           settings, the Kubewarden test cases, import list, metadata, garbage, and the
#           100,000-validation load test with the memory check (release build)
#   bench   the benchmark binary; ARGS go to it (e.g. --update BENCHMARKS.md)
#
# This crate is its own workspace (wasmtime is not built by the main workspace's cargo test).
# Its target dir is ${PLACEMENT_WAPC_HOST_TARGET:-${PLACEMENT_TOOLS:-~/.cache/placement-tools}/target-wapc-host},
# outside the repository, so that later runs and fresh clones on the same machine reuse the
# wasmtime build: about 20 minutes cold on 2 cores, seconds when only the policy changed.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
PLACEMENT_TOOLS="${PLACEMENT_TOOLS:-$HOME/.cache/placement-tools}"
export CARGO_TARGET_DIR="${PLACEMENT_WAPC_HOST_TARGET:-$PLACEMENT_TOOLS/target-wapc-host}"
MODULE="${PLACEMENT_POLICY_WASM:-$ROOT/dist/policy/placement-policy.wasm}"

[ -f "$MODULE" ] || {
    echo "tests/wapc-host: $MODULE not found: run 'make policy' first" >&2
    exit 1
}
if ! compgen -G "$CARGO_TARGET_DIR/release/deps/libwasmtime-*.rlib" >/dev/null; then
    echo "tests/wapc-host: first build of the waPC host (wasmtime) in $CARGO_TARGET_DIR:" \
        "about 20 minutes on 2 cores; later runs reuse it" >&2
fi

manifest=(--manifest-path "$HERE/Cargo.toml")
case ${1:-} in
test)
    cargo fmt "${manifest[@]}" -- --check
    cargo test --release "${manifest[@]}"
    ;;
bench)
    shift
    cargo run --release -q "${manifest[@]}" --bin bench-policy -- "$@"
    ;;
*)
    sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//' >&2
    exit 2
    ;;
esac
