#!/usr/bin/env bash
# A generated server binary with --auth-issuer (feature `jwt`), end to end on 127.0.0.1: generates
# the crate of fixtures/openrpc/mcp-features.openrpc.json (it has `x-mcp` `scopes`), builds it with `--features jwt`, and runs check.py against it (Python's
# standard library and the openssl CLI; no package to install). Last line: "N passed, M failed".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
(cd "$ROOT" && cargo run -q -p mcp-codegen -- fixtures/openrpc/mcp-features.openrpc.json -o "$OUT/crate" >/dev/null)
# The workspace's lock: the same dependency versions as the runtime's own tests.
cp "$ROOT/Cargo.lock" "$OUT/crate/Cargo.lock"
cargo build -q --features jwt --manifest-path "$OUT/crate/Cargo.toml"
python3 "$ROOT/tests/auth-binary/check.py" "$CARGO_TARGET_DIR/debug/mcp-features"
