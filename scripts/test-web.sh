#!/usr/bin/env bash
# test-web.sh: the playground's tests.
#   0. clippy on the web crate for wasm32 (it is not a default workspace member);
#   1. component tests (web/tests, web/src unit tests) with wasm-bindgen-test in headless
#      Chromium: Debian's chromium + chromedriver, flags in web/webdriver.json;
#   2. the static site build (scripts/trunk.sh build -> dist/site);
#   3. the end-to-end test (tests/e2e, playwright-core driving /usr/bin/chromium), which
#      fails if any request leaves 127.0.0.1.
# Installs what is missing first (scripts/setup.sh wasm wasm-bindgen trunk chromium).
# SCREENSHOTS=1 also rewrites docs/screenshots/*.png; BENCH_OUT=FILE writes the timings.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PLACEMENT_TOOLS="${PLACEMENT_TOOLS:-$HOME/.cache/placement-tools}"
export PATH="$PLACEMENT_TOOLS/bin:$PATH"

"$ROOT/scripts/setup.sh" -q wasm wasm-bindgen trunk chromium
command -v node >/dev/null && command -v npm >/dev/null || {
    echo "test-web: node and npm are needed for the end-to-end test" >&2
    exit 1
}

# placement-core is checked for wasm32 here, with the web crates (one check of it, with their
# features); the policy modules (policy-wasm/build.sh) link it for wasm32 in release.
echo "==> test-web: clippy (placement-core, placement-web, placement-web-admission; wasm32)"
"$ROOT/scripts/cargo-wasm.sh" clippy -p placement-core -p placement-web -p placement-web-admission --tests -- -D warnings

echo "==> test-web: component tests (wasm-bindgen-test, headless Chromium)"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-180}"
"$ROOT/scripts/cargo-wasm.sh" test -p placement-web

echo "==> test-web: site build"
"$ROOT/scripts/trunk.sh" build "$ROOT/dist/site" ./

echo "==> test-web: end-to-end (playwright-core, /usr/bin/chromium)"
cd "$ROOT/tests/e2e"
if [ ! -d node_modules/playwright-core ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "test-web: npm ci (playwright-core, no browser download)" >&2
    PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm ci --no-audit --no-fund
fi
SITE_DIR="$ROOT/dist/site" node --test --test-reporter=spec playground.test.mjs
