#!/usr/bin/env bash
# Generator benchmarks (see BENCHMARKS.md):
#   1. generation time of the release `mcp-codegen` for the Lotus gateway fixture and for a
#      synthetic 1,000-method document (hyperfine when installed, else a 20-run loop);
#   2. compile time of the crate generated from Lotus (debug): deps cold (a fresh target dir,
#      every dependency compiles; minutes with CARGO_BUILD_JOBS=1) and deps warm (rebuild
#      after touching src/generated.rs: only the generated crate compiles).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$CARGO_TARGET_DIR/release
(cd "$ROOT" && cargo build --release --quiet -p mcp-codegen)
(cd "$ROOT/bench" && cargo build --release --quiet --bin gen-synthetic)
if ! command -v hyperfine >/dev/null && [[ $(id -u) == 0 ]]; then
  (apt-get install -y -qq hyperfine || (apt-get update -qq && apt-get install -y -qq hyperfine)) >/dev/null 2>&1 || true
fi
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
LOTUS=$ROOT/fixtures/third-party/lotus/build/openrpc/v2/gateway.json
"$BIN/gen-synthetic" 1000 >"$WORK/synthetic.json"
echo "inputs: lotus $(jq '.methods | length' "$LOTUS") methods ($(wc -c <"$LOTUS") bytes), synthetic $(jq '.methods | length' "$WORK/synthetic.json") methods ($(wc -c <"$WORK/synthetic.json") bytes)"
gen() { "$BIN/mcp-codegen" "$1" -o "$2" --runtime-path "$ROOT/runtime" --no-generated-crate >/dev/null 2>&1; }
for doc in lotus synthetic; do
  src=$LOTUS; [[ $doc == synthetic ]] && src=$WORK/synthetic.json
  gen "$src" "$WORK/$doc"
  echo "$doc: generated.rs $(wc -l <"$WORK/$doc/src/generated.rs") lines"
  if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 3 --runs 20 --style basic "$BIN/mcp-codegen $src -o $WORK/$doc --runtime-path $ROOT/runtime --no-generated-crate" 2>&1 | sed -n '/Time/,/Range/p'
  else
    start=$(date +%s%N); for _ in $(seq 20); do gen "$src" "$WORK/$doc"; done
    echo "  mean $(( ($(date +%s%N) - start) / 20000000 )) ms over 20 runs (loop)"
  fi
done
# Compile time of the generated Lotus crate (debug, as a user's first `cargo build`):
# deps cold = a fresh target dir, every dependency compiles; deps warm = then touch
# src/generated.rs and build again, only the generated crate compiles.
cd "$WORK/lotus"
cargo generate-lockfile --quiet
export CARGO_TARGET_DIR=$WORK/target
s=$(date +%s.%N); cargo build --quiet; e=$(date +%s.%N)
echo "lotus crate, deps cold (fresh target dir, debug, CARGO_BUILD_JOBS=$CARGO_BUILD_JOBS): $(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.1f", b-a}') s"
touch src/generated.rs
s=$(date +%s.%N); cargo build --quiet; e=$(date +%s.%N)
echo "lotus crate, deps warm (only the generated crate compiles, debug): $(awk -v a="$s" -v b="$e" 'BEGIN{printf "%.1f", b-a}') s"
