#!/bin/bash
# Golden outputs of the engine: `core/examples/golden.sh DIR` writes every output into DIR (the
# in-process outputs come from placement-playground's `examples/golden.rs`, which also evaluates the playground).
# Run it before and after a change and compare: `diff -r before after` must print nothing.
# The ds-1000.yaml / nodes500.yaml / deploy1000.yaml inputs below are optional extra files
# (set GOLDEN_EXTRA to their directory); missing ones just produce an error line in both runs.
set -u
D=$(realpath -m "$1")
EXTRA=${GOLDEN_EXTRA:-/tmp/golden}
cd "$(dirname "$0")/../.."
mkdir -p "$D/cli"
cargo build -q --release -p placement-cli || exit 1
cargo run -q --release -p placement-playground --example golden -- "$D" || exit 1
B=${CARGO_TARGET_DIR:-target}/release/placement
run() { local out=$1; shift; "$B" "$@" > "$D/cli/$out" 2>&1; echo "exit $?" >> "$D/cli/$out"; }
for f in examples/*.yaml; do
  n=$(basename "$f" .yaml)
  for o in json text markdown; do run "$n.$o" simulate -f "$f" -o "$o"; done
  run "$n.v130.json" simulate -f "$f" -o json --kube-version 1.30
  run "$n.v133.json" simulate -f "$f" -o json --kube-version 1.33
  run "$n.noadm.json" simulate -f "$f" -o json --no-admission-defaults
done
I=$D/inputs
for o in json text markdown; do run "mixed.$o" simulate -f "$I/mixed.yaml" -o "$o"; done
run mixed.v125.json simulate -f "$I/mixed.yaml" -o json --kube-version 1.25
run mixed.noadm.json simulate -f "$I/mixed.yaml" -o json --no-admission-defaults
run deploy1.json simulate -f "$I/nodes5000.yaml" -f "$I/deploy1.yaml" -o json
run deploy1.text simulate -f "$I/nodes5000.yaml" -f "$I/deploy1.yaml" -o text
run deploy1000.json simulate -f "$I/nodes5000.yaml" -f "$I/deploy1000.yaml" -o json
run deploy1000.text simulate -f "$I/nodes5000.yaml" -f "$I/deploy1000.yaml" -o text
run ds1000.json simulate -f $EXTRA/ds-1000.yaml -o json
run ds1000.text simulate -f $EXTRA/ds-1000.yaml -o text
run tmpdeploy.json simulate -f $EXTRA/nodes500.yaml -f $EXTRA/deploy1000.yaml -o json
echo done
