#!/usr/bin/env bash
# scripts/measure-cold-ci.sh COMMIT: `bash .ci/run` as a new CI machine runs it, timed.
#
# DESTRUCTIVE for this machine's caches, on purpose: it removes the project's tool cache
# (~/.cache/placement-tools: trunk, wasm-bindgen-cli, the waPC host's target dir), cargo's
# registry and git checkouts, rustup's wasm32 std and Debian's chromium, so that every one of
# them is installed again by the project's own scripts, as on a fresh machine. It then clones
# the repository at COMMIT into /tmp/ci/main with ../shared beside it (a link to this
# checkout's ../shared) and runs `CI=true bash .ci/run`, printing the load before and after.
# The step table it prints goes into BENCHMARKS.md ("Continuous integration on a fresh machine").
set -u
COMMIT=${1:?usage: scripts/measure-cold-ci.sh COMMIT}
REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SHARED="$(cd "$REPO/../shared" && pwd)" || { echo "measure-cold-ci: ../shared not found beside $REPO" >&2; exit 1; }
rm -rf /tmp/ci && mkdir -p /tmp/ci && ln -s "$SHARED" /tmp/ci/shared
git clone -q "$REPO" /tmp/ci/main && git -C /tmp/ci/main checkout -q "$COMMIT"
rm -rf ~/.cache/placement-tools ~/.cargo/registry ~/.cargo/git
rustup target remove wasm32-unknown-unknown >/dev/null 2>&1
DEBIAN_FRONTEND=noninteractive apt-get remove -y -qq chromium chromium-driver chromium-common >/dev/null 2>&1
cd /tmp/ci/main || exit 1
echo "start $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD) load $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
CI=true bash .ci/run
rc=$?
echo "end $(date -u +%FT%TZ) rc $rc wall $(($(date +%s) - start)) s load $(cut -d' ' -f1-3 /proc/loadavg)"
exit $rc
