#!/usr/bin/env bash
# The edit loop by contract size (BENCHMARKS.md, "The edit loop by default"): for each contract,
# a new crate generated as a user would (no layout flag, so by size) and with the other layout,
# built once, then `cargo build` after a comment appended to src/handler.rs, three times (wall
# seconds). The dependencies are built once, in one target directory for every crate; only
# the crates' own rebuilds are timed. Contracts: the quickstart's calculator (README), the
# synthetic N-method document of bench/build-times.sh (HANDLER_EDIT=1) for N in SIZES, the
# Lotus gateway (50 methods), and the Ethereum gateway of the README (86 methods,
# --tools 'eth_*' --upstream).
# Usage: bench/edit-loop.sh [CHECKOUT]   (SIZES="30 60 120 240" by default)
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
CHECKOUT=$(cd "${1:-$HERE}" && pwd)
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
# The generator is built in the checkout's own target directory; the crates share this one.
cargo build --quiet --manifest-path "$CHECKOUT/Cargo.toml" -p mcp-codegen
GEN=$(cargo metadata --manifest-path "$CHECKOUT/Cargo.toml" --format-version 1 --no-deps |
  sed 's/.*"target_directory":"\([^"]*\)".*/\1/')/debug/mcp-codegen
export CARGO_TARGET_DIR=$W/target
synthetic() { python3 "$HERE/bench/synthetic.py" "$1"; }
# NAME DOC [FLAGS...]: one crate, its layout, three handler-edit rebuilds.
edits() {
  local name=$1 doc=$2; shift 2
  local dir=$W/crates/$name
  "$GEN" "$doc" -o "$dir" --runtime-path "$CHECKOUT/runtime" --name "edit-loop-$name" --quiet "$@"
  cp "$CHECKOUT/Cargo.lock" "$dir/Cargo.lock"
  (cd "$dir" && cargo build --quiet --offline)
  local layout="in src/"; [[ -f $dir/generated/Cargo.toml ]] && layout="a crate of its own"
  local times=()
  for i in 1 2 3; do
    echo "// edit $i" >>"$dir/src/handler.rs"
    /usr/bin/time -o "$W/t" -f "%e" bash -c "cd '$dir' && cargo build --quiet --offline"
    times+=("$(cat "$W/t")")
  done
  printf '%-40s %-20s %s s\n' "$name ${*:-}" "$layout" "${times[*]}"
}
cat >"$W/quickstart.json" <<'JSON'
{"openrpc": "1.3.2", "info": {"title": "Calculator", "version": "0.1.0"},
 "methods": [{"name": "add", "summary": "Add two integers.", "x-mcp": "tool",
   "params": [{"name": "a", "required": true, "schema": {"type": "integer"}},
              {"name": "b", "required": true, "schema": {"type": "integer"}}],
   "result": {"name": "sum", "schema": {"type": "integer"}}}]}
JSON
echo "checkout: $CHECKOUT ($(git -C "$CHECKOUT" rev-parse --short HEAD 2>/dev/null || echo '?')); $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "contract (flags)                         layout               rebuild after a handler edit, 3 times"
edits quickstart "$W/quickstart.json"
edits quickstart-own "$W/quickstart.json" --generated-crate
for n in ${SIZES:-30 60 120 240}; do
  synthetic "$n" >"$W/s$n.json"
  edits "synthetic-$n" "$W/s$n.json"
  if [[ -f $W/crates/synthetic-$n/generated/Cargo.toml ]]; then
    edits "synthetic-$n-in-src" "$W/s$n.json" --no-generated-crate
  else
    edits "synthetic-$n-own" "$W/s$n.json" --generated-crate
  fi
done
edits lotus-gateway "$CHECKOUT/fixtures/third-party/lotus/build/openrpc/v2/gateway.json"
edits ethereum "$CHECKOUT/fixtures/gateway/ethereum.openrpc.json" --tools 'eth_*' --upstream http://127.0.0.1:8545
edits ethereum-in-src "$CHECKOUT/fixtures/gateway/ethereum.openrpc.json" --tools 'eth_*' --upstream http://127.0.0.1:8545 --no-generated-crate
