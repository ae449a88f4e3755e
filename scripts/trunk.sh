#!/usr/bin/env bash
# trunk.sh build [DIST] [PUBLIC_URL]   build the playground (release, offline) into DIST
#                                      (default dist/site) with PUBLIC_URL (default ./)
# trunk.sh serve [DIST] [PORT]         serve DIST on 127.0.0.1:PORT (default 8080)
# trunk.sh size [DIST]                 print the gzip sizes of the wasm and js payload
#
# Uses the wasm environment that `scripts/setup.sh wasm` records in target/wasm-env.sh (as
# scripts/cargo-wasm.sh does): rustup's prebuilt std, or Debian's rustc with build-std.
# trunk and wasm-bindgen-cli come from ${PLACEMENT_TOOLS:-~/.cache/placement-tools}/bin
# (`scripts/setup.sh trunk wasm-bindgen`); trunk runs --offline so it never downloads them.
#
# After trunk, the inline module script trunk injects is moved to boot.js, so the page's
# Content-Security-Policy (index.html) allows scripts from 'self' only, and the admission
# module (web-admission/: the policy logic with Gatekeeper's Rego engine, which the page loads
# on the first policy run) is built with wasm-bindgen into DIST/admission/.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PLACEMENT_TOOLS="${PLACEMENT_TOOLS:-$HOME/.cache/placement-tools}"
export PATH="$PLACEMENT_TOOLS/bin:$PATH"

die() {
    printf 'trunk.sh: error: %s\n' "$*" >&2
    exit 1
}

# Moves <script type="module">…</script> (trunk's loader) into DIST/boot.js.
externalize_loader() {
    local dist=$1
    python3 - "$dist" <<'PY'
import pathlib, re, sys
dist = pathlib.Path(sys.argv[1])
page = dist / "index.html"
html = page.read_text()
scripts = list(re.finditer(r'<script type="module"(?: nonce="[^"]*")?>(.*?)</script>', html, re.S))
if len(scripts) != 1:
    sys.exit(f"trunk.sh: expected one inline module script in {page}, found {len(scripts)}")
m = scripts[0]
(dist / "boot.js").write_text("// trunk's loader, moved out of index.html by scripts/trunk.sh for the CSP.\n" + m.group(1).strip() + "\n")
html = html[: m.start()] + '<script type="module" src="./boot.js"></script>' + html[m.end():]
if re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html):
    sys.exit(f"trunk.sh: an inline script is left in {page}")
page.write_text(html)
PY
}

build() {
    local dist=${1:-$ROOT/dist/site} public_url=${2:-./}
    # trunk reads a relative --dist against web/Trunk.toml's folder: make it the caller's.
    dist=$(realpath -m "$dist")
    "$ROOT/scripts/setup.sh" -q wasm
    # shellcheck source=/dev/null
    . "$ROOT/target/wasm-env.sh"
    command -v trunk >/dev/null || die "trunk not found in $PLACEMENT_TOOLS/bin: run scripts/setup.sh trunk"
    command -v wasm-bindgen >/dev/null || die "wasm-bindgen not found in $PLACEMENT_TOOLS/bin: run scripts/setup.sh wasm-bindgen"
    command -v python3 >/dev/null || die "python3 is needed to post-process the page"
    printf 'trunk.sh: [%s] trunk build --release --offline --dist %s --public-url %s (target dir %s)\n' \
        "$PLACEMENT_WASM_MODE" "$dist" "$public_url" "$CARGO_TARGET_DIR" >&2
    cd "$ROOT"
    trunk --config "$ROOT/web/Trunk.toml" build --release --offline --dist "$dist" --public-url "$public_url"
    externalize_loader "$dist"
    build_admission_module "$dist"
    size "$dist"
}

# The on-demand admission module, next to the page (same origin, relative path).
build_admission_module() {
    local dist=$1 wasm
    "$ROOT/scripts/cargo-wasm.sh" build -q -p placement-web-admission --release
    wasm="$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/placement_web_admission.wasm"
    [ -f "$wasm" ] || die "$wasm not found after the build"
    rm -rf "$dist/admission"
    wasm-bindgen --target web --no-typescript --out-dir "$dist/admission" "$wasm"
}

# One file's gzip -9 size as the end-to-end test counts it (Node's zlib, which compresses
# the page's wasm about 9 KB worse than GNU gzip: the budget is checked with this one).
gz_size() {
    if command -v node >/dev/null; then
        node -e 'console.log(require("zlib").gzipSync(require("fs").readFileSync(process.argv[1]), { level: 9 }).length)' "$1"
    else
        gzip -9 -c "$1" | wc -c
    fi
}

# The page's own payload (what it loads to open), then the admission module's (loaded on the
# first policy run).
size() {
    local dist=${1:-$ROOT/dist/site} total=0 f n
    for f in "$dist"/*.wasm "$dist"/*.js "$dist"/snippets/*/*/*.js "$dist"/snippets/*/*.js; do
        [ -f "$f" ] || continue
        n=$(gz_size "$f")
        total=$((total + n))
        printf 'trunk.sh: %-40s %9d bytes, %8d gzip -9\n' "${f#"$dist"/}" "$(wc -c <"$f")" "$n" >&2
    done
    printf 'trunk.sh: wasm+js payload to open the page: %d bytes gzip -9 (%d KiB)\n' "$total" "$((total / 1024))" >&2
    total=0
    for f in "$dist"/admission/*.wasm "$dist"/admission/*.js; do
        [ -f "$f" ] || continue
        n=$(gz_size "$f")
        total=$((total + n))
        printf 'trunk.sh: %-40s %9d bytes, %8d gzip -9\n' "${f#"$dist"/}" "$(wc -c <"$f")" "$n" >&2
    done
    printf 'trunk.sh: admission module, loaded on the first policy run: %d bytes gzip -9 (%d KiB)\n' "$total" "$((total / 1024))" >&2
}

serve() {
    local dist=${1:-$ROOT/dist/site} port=${2:-8080}
    [ -f "$dist/index.html" ] || die "$dist/index.html not found: run scripts/trunk.sh build first"
    printf '\nPlacement playground: http://127.0.0.1:%s/  (Ctrl-C to stop)\n\n' "$port"
    exec python3 -m http.server "$port" --bind 127.0.0.1 --directory "$dist"
}

case ${1:-} in
build) shift; build "$@" ;;
serve) shift; serve "$@" ;;
size) shift; size "$@" ;;
*) sed -n '2,13p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
