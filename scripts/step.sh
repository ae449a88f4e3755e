#!/usr/bin/env bash
# Step runner for the Makefile: prints a header, times the command, records the result.
#   scripts/step.sh --begin              start a fresh record
#   scripts/step.sh NAME CMD [ARGS...]   run CMD as step NAME; on failure print the record and fail
#   scripts/step.sh --summary            print the record with each step's time
# The record lives in ${PLACEMENT_STEPS_FILE:-target/make-steps.txt}.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RECORD="${PLACEMENT_STEPS_FILE:-$ROOT/target/make-steps.txt}"

now_us() { printf '%s\n' "${EPOCHREALTIME//[!0-9]/}"; }
secs() { printf '%d.%d' $(($1 / 1000000)) $(($1 % 1000000 / 100000)); }

summary() {
    local status=$1 total=0 name us result
    printf '\n==> Summary\n'
    while IFS=$'\t' read -r name us result; do
        printf '    %-6s %-30s %8ss\n' "$result" "$name" "$(secs "$us")"
        total=$((total + us))
    done <"$RECORD"
    printf '    %-6s %-30s %8ss\n' "" "total" "$(secs "$total")"
    printf '==> %s\n' "$status"
}

case ${1:-} in
--begin)
    mkdir -p "$(dirname "$RECORD")"
    : >"$RECORD"
    ;;
--summary)
    summary "all $(wc -l <"$RECORD") steps passed"
    ;;
"" | -*)
    echo "usage: step.sh --begin | --summary | NAME CMD [ARGS...]" >&2
    exit 2
    ;;
*)
    name=$1
    shift
    [ $# -gt 0 ] || { echo "step.sh: no command for step '$name'" >&2; exit 2; }
    mkdir -p "$(dirname "$RECORD")"
    touch "$RECORD"
    printf '\n==> [%d] %s: %s\n' $(($(wc -l <"$RECORD") + 1)) "$name" "$*"
    start=$(now_us)
    rc=0
    "$@" || rc=$?
    elapsed=$(($(now_us) - start))
    if [ "$rc" = 0 ]; then
        printf '%s\t%s\tok\n' "$name" "$elapsed" >>"$RECORD"
        printf '==> %s: ok (%ss)\n' "$name" "$(secs "$elapsed")"
    else
        printf '%s\t%s\tFAILED\n' "$name" "$elapsed" >>"$RECORD"
        summary "FAILED at step '$name' (exit code $rc)" >&2
        exit "$rc"
    fi
    ;;
esac
