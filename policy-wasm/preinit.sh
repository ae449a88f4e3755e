#!/usr/bin/env bash
# policy-wasm/preinit.sh SETTINGS: the pre-initialized modules for one settings document
# (`make policy SETTINGS=path.yaml` runs it after policy-wasm/build.sh):
#
#   dist/policy/placement-policy-<name>.wasm       the full module, pre-initialized
#   dist/policy/placement-policy-lean-<name>.wasm  the lean one (skipped, with a message, when
#                                                  the settings have a `gatekeeper` key)
#
# <name> is the settings file's name without its extension. Each module reads and compiles the
# settings once here, and its memory is snapshotted into the copy (tests/wapc-host's
# placement-policy-preinit), so a fresh instance per request starts with them. Rebuild when the
# settings change: a request whose settings differ from the baked ones is still answered
# right, but reads them as the plain module does (docs/kubewarden.md).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SETTINGS=${1:?usage: policy-wasm/preinit.sh SETTINGS.yaml}
[ -f "$SETTINGS" ] || { echo "policy-wasm/preinit.sh: $SETTINGS not found" >&2; exit 1; }
SETTINGS="$(cd "$(dirname "$SETTINGS")" && pwd)/$(basename "$SETTINGS")"
name="$(basename "$SETTINGS")"
name="${name%.*}"
DIST="$ROOT/dist/policy"

"$ROOT/tests/wapc-host/run.sh" preinit --settings "$SETTINGS" \
    --input "$DIST/placement-policy.wasm" --output "$DIST/placement-policy-$name.wasm"
if ! out="$("$ROOT/tests/wapc-host/run.sh" preinit --settings "$SETTINGS" \
    --input "$DIST/placement-policy-lean.wasm" --output "$DIST/placement-policy-lean-$name.wasm" 2>&1)"; then
    case $out in
    *gatekeeper*) echo "policy-wasm/preinit.sh: no lean module for $name: its settings use gatekeeper, which the lean module has not" ;;
    *) printf '%s\n' "$out" >&2; exit 1 ;;
    esac
else
    printf '%s\n' "$out"
fi
