#!/usr/bin/env bash
# The generated crate's README runs as written: for a contract with tools
# (fixtures/openrpc/mcp-features.openrpc.json) and for a third-party one without
# (the OpenRPC petstore, no x-mcp), a crate is generated the way a user does it, from the
# directory holding the contract (`mcp-codegen contracts/X.json -o crates/X`); then every ```sh
# block of its README.md runs in the crate's directory, in order, in one shell (extract.py's
# conventions), and generated_readme.py checks what the first session answered: `initialize`'s
# result, then the answer the README's sentence promises. The regenerate block must leave the
# crate up to date (its `--check` exits 0), which fails if the contract's path is wrong.
#
# usage: tests/docs/generated_readme.sh    (the checkout's generator, built here; CARGO_TARGET_DIR
#                                           shared with the checkout, default target/)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

log() { echo "[generated-readme] $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

(cd "$root" && cargo build -q --locked -p mcp-codegen) || fail "cargo build -p mcp-codegen"
bin="$(mktemp -d)"
work="$(mktemp -d)"
trap 'rm -rf "$bin" "$work"' EXIT
ln -s "$CARGO_TARGET_DIR/debug/mcp-codegen" "$bin/mcp-codegen"
export PATH="$bin:$PATH"

mkdir -p "$work/contracts" "$work/crates"
cp "$root/fixtures/openrpc/mcp-features.openrpc.json" "$work/contracts/features.json"
cp "$root/fixtures/third-party/open-rpc-examples/service-descriptions/petstore-openrpc.json" \
  "$work/contracts/petstore.json"

# The blocks' helpers: each block's output appended to the transcript, a failing block fatal.
cat >"$work/lib.sh" <<'EOF'
set -euo pipefail
docs_file() { echo "[generated-readme] ==== $1" >&2; }
docs_file_end() { :; }
docs_section() { cd "$CRATE"; }
docs_block_start() { docs_where="$1"; echo "[generated-readme] run $1:" >&2; sed 's/^/    | /' >&2; }
docs_block_end() { cat "$DOCS_OUT" >>"$TRANSCRIPT"; }
docs_expect() { cat >/dev/null; }
docs_skip() { echo "[generated-readme] FAIL: $1 is marked skip in a generated README" >&2; exit 1; }
docs_background() { echo "[generated-readme] FAIL: $1 is a background block in a generated README" >&2; exit 1; }
EOF

for case in features:tools petstore:no-tools; do
  name="${case%%:*}" expect="${case#*:}"
  (cd "$work" && mcp-codegen "contracts/$name.json" -o "crates/$name" -q) \
    || fail "mcp-codegen contracts/$name.json -o crates/$name"
  crate="$work/crates/$name"
  python3 "$here/extract.py" "$crate/README.md" >"$work/$name.sh"
  log "$name: running the blocks of its README.md in crates/$name"
  transcript="$work/$name.out"
  : >"$transcript"
  (export CRATE="$crate" TRANSCRIPT="$transcript" DOCS_OUT="$work/$name.block"
   cd "$crate" && timeout 600 bash -c ". '$work/lib.sh'; . '$work/$name.sh'") \
    || { cat "$transcript" >&2; fail "$name: a block of its README failed (above)"; }
  python3 "$here/generated_readme.py" "$expect" "$transcript" || fail "$name: the answers (above)"
  grep -q 'mcp-codegen \.\./\.\./contracts/'"$name"'\.json -o \.' "$crate/README.md" \
    || fail "$name: README's regenerate line does not name ../../contracts/$name.json"
done
log "PASS: the READMEs of a crate with tools and of one without run as written"
