# Placement: developer and CI entry points. `make test` is what CI runs (.ci/run).
SHELL := bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

# The shared folder beside the repository (conformance vectors, toolchain notes).
SHARED ?= ../shared
VECTORS ?= $(SHARED)/conformance/kube-scheduler/vectors.json
DEMO_FILE ?= examples/daemonset-tainted-pool.yaml
FUZZ_TARGET ?= parse_simulate
FUZZ_SECONDS ?= 60

# cargo-installed tools (cargo-fuzz, trunk, wasm-bindgen-cli) live outside the repo,
# so a fresh clone on the same machine reuses them.
PLACEMENT_TOOLS ?= $(HOME)/.cache/placement-tools
export PLACEMENT_TOOLS
export PATH := $(PLACEMENT_TOOLS)/bin:$(PATH)

STEP := scripts/step.sh
WASM_BUILD := scripts/cargo-wasm.sh build -p placement-core --release

.PHONY: help setup test demo fuzz bench wasm fmt clippy clean

help:
	@echo 'make test    setup, fmt check, clippy, tests, conformance vectors, wasm build of core (CI runs this)'
	@echo 'make demo    build the CLI and simulate $(DEMO_FILE)'
	@echo 'make fuzz    fuzz target $(FUZZ_TARGET) for $(FUZZ_SECONDS)s (cargo-fuzz, nightly)'
	@echo 'make bench   cargo bench -p placement-core'
	@echo 'make wasm    build placement-core for wasm32-unknown-unknown'
	@echo 'make fmt | clippy | clean | setup'
	@echo 'Variables: SHARED=$(SHARED) PLACEMENT_TOOLS=$(PLACEMENT_TOOLS)'

setup:
	scripts/setup.sh rust wasm

test:
	@$(STEP) --begin
	@$(STEP) "setup (rust, wasm)" scripts/setup.sh rust wasm
	@$(STEP) "cargo fmt --check" cargo fmt --all -- --check
	@$(STEP) "cargo clippy" cargo clippy --all-targets -- -D warnings
	@$(STEP) "cargo test" cargo test
	@test -f "$(VECTORS)" || { echo "conformance vectors not found at $(VECTORS) (set SHARED=...)" >&2; exit 1; }
	@$(STEP) "conformance vectors" cargo run -q -p placement-cli -- conformance "$(VECTORS)"
	@$(STEP) "wasm build (placement-core)" $(WASM_BUILD)
	@$(STEP) --summary

demo:
	@test -f "$(DEMO_FILE)" || { echo "demo input $(DEMO_FILE) not found" >&2; exit 1; }
	@echo "==> placement simulate -f $(DEMO_FILE)"
	@cargo run -q -p placement-cli -- simulate -f "$(DEMO_FILE)"

fuzz:
	@test -d fuzz || { echo "make fuzz: no fuzz/ directory yet" >&2; exit 1; }
	scripts/setup.sh cargo-fuzz
	cargo +nightly fuzz run $(FUZZ_TARGET) -- -max_total_time=$(FUZZ_SECONDS)

bench:
	cargo bench -p placement-core

wasm:
	$(WASM_BUILD)

fmt:
	cargo fmt --all

clippy:
	cargo clippy --all-targets -- -D warnings

clean:
	cargo clean
	rm -rf fuzz/target
