#!/usr/bin/env bash
# cargo-wasm.sh SUBCOMMAND [ARGS...]
# Runs `cargo SUBCOMMAND --target wasm32-unknown-unknown ARGS...` with the environment
# that `scripts/setup.sh wasm` records in target/wasm-env.sh: rustup's prebuilt std
# (target dir target/wasm) or the build-std fallback with Debian's rustc
# (target dir target/wasm-buildstd), so that native and wasm builds don't evict each other.
# PLACEMENT_WASM_TARGET_DIR overrides the target dir.
# Example: scripts/cargo-wasm.sh build -p placement-core --release
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

if [ $# -eq 0 ] || [ "$1" = -h ] || [ "$1" = --help ]; then
    sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    exit 0
fi

# Cheap when everything is in place; (re)writes the env file when needed.
"$ROOT/scripts/setup.sh" -q wasm
# shellcheck source=/dev/null
. "$ROOT/target/wasm-env.sh"

subcommand=$1
shift
printf 'cargo-wasm: [%s] %s %s --target wasm32-unknown-unknown %s (target dir %s)\n' \
    "$PLACEMENT_WASM_MODE" "$PLACEMENT_WASM_CARGO" "$subcommand" "$*" "$CARGO_TARGET_DIR" >&2
exec "$PLACEMENT_WASM_CARGO" "$subcommand" --target wasm32-unknown-unknown "$@"
