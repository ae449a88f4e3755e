#!/usr/bin/env bash
# Hostile-input check: each input must make the release CLI exit with an error within 1 s.
# Usage (from the repository root): fuzz/hostile.sh [path/to/placement]
# Default binary: target/release/placement (build it with `cargo build --release -p placement-cli`).
# Prints one row per input: name, size, exit code, wall seconds, peak RSS, first error line.
set -euo pipefail

BIN="${1:-target/release/placement}"
[ -x "$BIN" ] || { echo "no CLI binary at $BIN (cargo build --release -p placement-cli)" >&2; exit 2; }
DIR="$(mktemp -d)"
trap 'rm -rf "$DIR"' EXIT

# Billion laughs: 9 levels of 9 aliases each, 9^10 strings if expanded.
{
    printf 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n'
    prev=a
    for c in b c d e f g h i j; do
        printf '%s: &%s [*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s,*%s]\n' "$c" "$c" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev" "$prev"
        prev=$c
    done
} > "$DIR/alias-bomb.yaml"
# 100,000 levels of nesting, four ways: YAML flow sequences, YAML block sequences (`- - - x`),
# JSON arrays, JSON objects.
python3 - "$DIR" <<'PY'
import sys
d = sys.argv[1]
n = 100_000
open(f"{d}/deep-flow.yaml", "w").write("a: " + "[" * n + "]" * n + "\n")
open(f"{d}/deep-block.yaml", "w").write("a:\n" + "- " * n + "x\n")
open(f"{d}/deep-array.json", "w").write("[" * n + "]" * n)
open(f"{d}/deep-object.json", "w").write('{"a":' * n + "1" + "}" * n)
# 64 MiB + 1 byte: a valid Node followed by a comment padding it past the limit.
with open(f"{d}/over-64MiB.yaml", "w") as f:
    head = "kind: Node\nmetadata: {name: a}\n#"
    f.write(head + "x" * (64 * 1024 * 1024 + 1 - len(head)))
# 100,001 empty-ish documents (MAX_DOCUMENTS is 100,000).
open(f"{d}/too-many-documents.yaml", "w").write("---\na: 1\n" * 100_001)
PY

printf '%-24s %10s %4s %8s %10s  %s\n' INPUT BYTES EXIT SECONDS PEAK_RSS FIRST_ERROR_LINE
status=0
for f in alias-bomb.yaml deep-flow.yaml deep-block.yaml deep-array.json deep-object.json over-64MiB.yaml too-many-documents.yaml; do
    set +e
    /usr/bin/time -f '%e %M' -o "$DIR/time" "$BIN" simulate -f "$DIR/$f" > /dev/null 2> "$DIR/err"
    code=$?
    set -e
    read -r secs rss_kib < <(tail -n 1 "$DIR/time")
    first="$(grep -v '^Command exited' "$DIR/err" | head -n 1 | cut -c1-150)"
    printf '%-24s %10s %4s %8s %7s MiB  %s\n' "$f" "$(stat -c %s "$DIR/$f")" "$code" "$secs" "$((rss_kib / 1024))" "$first"
    if [ "$code" = 0 ] || awk -v s="$secs" 'BEGIN { exit !(s >= 1.0) }'; then
        echo "  ^ FAIL: expected an error exit within 1 s" >&2
        status=1
    fi
done
# The same over-limit input on standard input (the CLI reads at most 64 MiB + 1 byte of it).
set +e
/usr/bin/time -f '%e %M' -o "$DIR/time" "$BIN" simulate -f - < "$DIR/over-64MiB.yaml" > /dev/null 2> "$DIR/err"
code=$?
set -e
read -r secs rss_kib < <(tail -n 1 "$DIR/time")
printf '%-24s %10s %4s %8s %7s MiB  %s\n' "over-64MiB.yaml (stdin)" "$(stat -c %s "$DIR/over-64MiB.yaml")" "$code" "$secs" "$((rss_kib / 1024))" "$(grep -v '^Command exited' "$DIR/err" | head -n 1 | cut -c1-150)"
if [ "$code" = 0 ] || awk -v s="$secs" 'BEGIN { exit !(s >= 1.0) }'; then
    echo "  ^ FAIL: expected an error exit within 1 s" >&2
    status=1
fi
exit $status
