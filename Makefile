# Placement: developer and CI entry points. `make test` is what CI runs (.ci/run).
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# The shared folder beside the repository (conformance vectors, toolchain notes).
SHARED ?= ../shared
VECTORS ?= $(SHARED)/conformance/kube-scheduler/vectors.json
CORPUS_1_35 ?= $(SHARED)/conformance/kube-scheduler-1.35
GATEKEEPER_LIBRARY ?= $(SHARED)/conformance/gatekeeper-library
DEMO_FILE ?= examples/daemonset-tainted-pool.yaml
FUZZ_TARGET ?= parse_simulate
FUZZ_SECONDS ?= 60

# cargo-installed tools (cargo-fuzz, trunk, wasm-bindgen-cli) live outside the repo,
# so a fresh clone on the same machine reuses them.
PLACEMENT_TOOLS ?= $(HOME)/.cache/placement-tools
export PLACEMENT_TOOLS
export PATH := $(PLACEMENT_TOOLS)/bin:$(PATH)

DEMO_HOST ?= 127.0.0.1
DEMO_PORT ?= 8080

# The native crates of every native cargo command in `make check` and `make test`: the
# default members (the policy adapter among them) and the policy's annotate tool. Cargo unifies
# features over the packages a command selects, so each command that selected another set (a
# `-p placement-policy --all-features`) compiled placement-core and regorus once more.
NATIVE_FEATURES := --features placement-policy/annotate
export NATIVE_FEATURES

STEP := scripts/step.sh
WASM_BUILD := scripts/cargo-wasm.sh build -p placement-core --release

.PHONY: help setup check test test-web demo demo-cli site screenshots fuzz bench wasm fmt clippy clean corpus

help:
	@echo 'make check   the inner loop: fmt check, clippy, cargo test (minutes)'
	@echo 'make test    setup, fmt check, clippy, tests, conformance vectors, the 1.35.4 corpus, wasm build, policy, playground (CI runs this)'
	@echo 'make demo    build the browser playground and serve it on http://$(DEMO_HOST):$(DEMO_PORT)/'
	@echo 'make demo-cli  build the CLI and simulate $(DEMO_FILE)'
	@echo 'make site    static playground site in dist/site/ (relative paths: host it anywhere)'
	@echo 'make test-web  playground component tests (headless Chromium) + site build + e2e test'
	@echo 'make screenshots  test-web, also rewriting docs/screenshots/*.png'
	@echo 'make fuzz    fuzz target $(FUZZ_TARGET) for $(FUZZ_SECONDS)s (cargo-fuzz, nightly)'
	@echo 'make bench   cargo bench -p placement-core -p placement-playground'
	@echo 'make wasm    build placement-core for wasm32-unknown-unknown'
	@echo 'make verify-gatekeeper  run the shared gatekeeper-library suites with gatekeeper/library templates'
	@echo 'make verify-gatekeeper-upstream  the real gatekeeper-library (its own Rego and CEL) from GATEKEEPER_UPSTREAM, skipped without it'
	@echo 'make corpus  the 461 scenarios recorded from kube-scheduler 1.35.4 ($(CORPUS_1_35)), 0 failed required'
	@echo 'make policy  Kubewarden policy modules (annotated): dist/policy/placement-policy.wasm (with Gatekeeper), placement-policy-lean.wasm (without, < 2 MB)'
	@echo 'make test-policy  policy tests: the lean adapter natively, then both modules in a real waPC host (wasmtime: 9 CPU-min cold, then cached)'
	@echo 'make bench-policy  policy benchmark in the waPC host, into BENCHMARKS.md'
	@echo 'make fmt | clippy | clean | setup'
	@echo 'Variables: SHARED=$(SHARED) PLACEMENT_TOOLS=$(PLACEMENT_TOOLS)'

setup:
	scripts/setup.sh rust wasm

# The inner loop: minutes, not the full `make test` (no wasm, policy host, browser or corpora).
check:
	cargo fmt --all -- --check
	cargo clippy --all-targets $(NATIVE_FEATURES) -- -D warnings
	cargo test $(NATIVE_FEATURES)

test:
	@$(STEP) --begin
	@$(STEP) "setup (rust, wasm)" scripts/setup.sh rust wasm
	@$(STEP) "cargo fmt --check" cargo fmt --all -- --check
	@$(STEP) "cargo clippy" cargo clippy --all-targets $(NATIVE_FEATURES) -- -D warnings
	@$(STEP) "cargo test" cargo test $(NATIVE_FEATURES)
	@test -f "$(VECTORS)" || { echo "conformance vectors not found at $(VECTORS) (set SHARED=...)" >&2; exit 1; }
	@$(STEP) "conformance vectors" cargo run -q -p placement-cli -- conformance "$(VECTORS)"
	@$(STEP) "kube-scheduler 1.35.4 recorded corpus" $(MAKE) -s corpus
	@$(STEP) "gatekeeper suites" $(MAKE) -s verify-gatekeeper
	@$(STEP) "Kubewarden policy (native, module, waPC host)" $(MAKE) -s test-policy
	@$(STEP) "playground (web tests, site, e2e)" scripts/test-web.sh
	@$(STEP) --summary

# The browser playground: component tests in headless Chromium, the site build, and the
# Playwright end-to-end test (installs trunk, wasm-bindgen-cli and chromium when missing).
test-web:
	scripts/test-web.sh

screenshots:
	SCREENSHOTS=1 scripts/test-web.sh

# `make demo`: build the playground (trunk, release, offline) and serve it on localhost.
# Every shared gator suite, with Placement's own templates (gatekeeper/library mirrors the
# library's <category>/<policy>/ folders). Ends with `N passed, M failed`.
verify-gatekeeper:
	@test -d "$(GATEKEEPER_LIBRARY)" || { echo "gatekeeper library suites not found at $(GATEKEEPER_LIBRARY) (set SHARED=...)" >&2; exit 1; }
	@find "$(GATEKEEPER_LIBRARY)" -name suite.yaml | sort | xargs cargo run -q -p placement-cli -- verify --templates gatekeeper/library

# The real gatekeeper-library with its own templates (Rego and CEL), never committed here: a
# checkout of open-policy-agent/gatekeeper-library (at 5c441fb6, the commit the shared
# suites come from) in GATEKEEPER_UPSTREAM. Skipped, with a message, when there is none.
# gator's default engine choice (CEL where a template has it); add
# VERIFY_FLAGS=--enable-k8s-native-validation=false for the Rego code.
.PHONY: verify-gatekeeper-upstream
GATEKEEPER_UPSTREAM ?= $(HOME)/.cache/placement/gatekeeper-library
verify-gatekeeper-upstream:
	@if [ ! -d "$(GATEKEEPER_UPSTREAM)/library" ]; then \
		echo "verify-gatekeeper-upstream: skipped, no gatekeeper-library checkout at $(GATEKEEPER_UPSTREAM) (set GATEKEEPER_UPSTREAM)"; \
	else \
		find "$(GATEKEEPER_UPSTREAM)/library" -name suite.yaml | sort | xargs cargo run -q -p placement-cli -- verify $(VERIFY_FLAGS); \
	fi

# The scenarios recorded from kube-scheduler 1.35.4 (../shared/conformance/kube-scheduler-1.35):
# its checker runs `placement simulate --kube-version 1.35` on each and needs 0 failed.
corpus:
	@test -f "$(CORPUS_1_35)/check_corpus.py" || { echo "recorded corpus not found at $(CORPUS_1_35) (set SHARED=...)" >&2; exit 1; }
	@cargo build -q -p placement-cli
	python3 "$(CORPUS_1_35)/check_corpus.py" "$${CARGO_TARGET_DIR:-target}/debug/placement" "$(CORPUS_1_35)"

demo: site
	@scripts/trunk.sh serve dist/site $(DEMO_PORT)

# The static site: relative paths, so it works from any sub-path.
site:
	@scripts/setup.sh -q wasm wasm-bindgen trunk
	scripts/trunk.sh build dist/site ./

demo-cli:
	@test -f "$(DEMO_FILE)" || { echo "demo input $(DEMO_FILE) not found" >&2; exit 1; }
	@echo "==> placement simulate -f $(DEMO_FILE)"
	@cargo run -q -p placement-cli -- simulate -f "$(DEMO_FILE)"

fuzz:
	@test -d fuzz || { echo "make fuzz: no fuzz/ directory yet" >&2; exit 1; }
	scripts/setup.sh cargo-fuzz
	mkdir -p fuzz/corpus/$(FUZZ_TARGET)
	cargo +nightly fuzz run $(FUZZ_TARGET) fuzz/corpus/$(FUZZ_TARGET) fuzz/seeds -- -dict=fuzz/parse_simulate.dict -max_total_time=$(FUZZ_SECONDS)

bench:
	cargo bench -p placement-core -p placement-playground

wasm:
	$(WASM_BUILD)

fmt:
	cargo fmt --all

clippy:
	cargo clippy --all-targets $(NATIVE_FEATURES) -- -D warnings

clean:
	cargo clean
	rm -rf fuzz/target

# Kubewarden policy (issue 3). `policy` builds the waPC module twice and writes the annotated
# artifacts: placement-policy.wasm (with the Gatekeeper setting) and placement-policy-lean.wasm
# (`--no-default-features`: without it, under 2 MB). `test-policy` runs the lean adapter's
# native tests and clippy (and the core's admission tests without Gatekeeper), then loads both
# artifacts into a real waPC host (tests/wapc-host: wapc's WapcHost over wasmtime with only
# the features a waPC guest needs; its own workspace and target dir under $(PLACEMENT_TOOLS),
# so wasmtime is built once per machine: 8.8 CPU-minutes cold, in the light `wapc-test` profile
# that tests and benchmarks share; see docs/kubewarden.md and BENCHMARKS.md).
.PHONY: policy test-policy bench-policy
# With SETTINGS=path.yaml, also the pre-initialized modules for those settings
# (dist/policy/placement-policy-<name>.wasm and placement-policy-lean-<name>.wasm; docs/kubewarden.md).
policy:
	policy-wasm/build.sh
	@if [ -n "$(SETTINGS)" ]; then policy-wasm/preinit.sh "$(SETTINGS)"; fi

# The full module's native tests run in `make check`'s `cargo test` (placement-policy is a
# default member, its annotate feature in NATIVE_FEATURES); here the lean variant's.
test-policy:
	cargo clippy -q -p placement-policy --all-targets --no-default-features --features annotate -- -D warnings
	cargo test -q -p placement-policy --no-default-features --features annotate
	cargo test -q -p placement-core --no-default-features --lib admission::
	policy-wasm/build.sh
	tests/wapc-host/run.sh test

bench-policy: policy
	@f=BENCHMARKS.md; [ -f "$$f" ] || { f=POLICY-BENCHMARKS.md; echo "BENCHMARKS.md not found: writing $$f"; }; \
	tests/wapc-host/run.sh bench --update "$$f"
