#!/usr/bin/env bash
# A user outside this checkout, offline: package mcp-runtime and mcp-codegen, serve them with
# their dependencies from a directory source that replaces crates.io, `cargo install
# mcp-codegen` from it, generate a crate from a contract with tools with default flags (so it
# must depend on `mcp-runtime = "<the generator's version>"`, not on a path), build it
# offline, run it over stdio and call a tool.
#
# Nothing built here reads the checkout: the generator is built from its unpacked package, the
# server from the packaged runtime; the contract is copied out first.
#
# Usage: tests/package/run.sh [--keep]   (--keep leaves the scratch directory for a look)
# Needs: cargo, python3 (the directory source's checksums), every dependency of the
# workspace's Cargo.lock in cargo's cache (any earlier build of the workspace fetched them).
set -euo pipefail

root="$(cd "$(dirname "$0")/../.." && pwd)"
keep=0
[[ "${1:-}" == "--keep" ]] && keep=1
work="$(mktemp -d "${TMPDIR:-/tmp}/mcp-package-test.XXXXXX")"
cleanup() { if [[ $keep == 1 ]]; then echo "kept $work"; else rm -rf "$work"; fi; }
trap cleanup EXIT
# The scratch directory's own target dirs: a caller's CARGO_TARGET_DIR would mix the packaged
# build with the checkout's.
unset CARGO_TARGET_DIR
start=$SECONDS
say() { printf '[package %3ds] %s\n' $((SECONDS - start)) "$*"; }

version="$(cd "$root" && cargo metadata --offline --no-deps --format-version 1 |
  python3 -c 'import json,sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "mcp-codegen"))')"

say "cargo package mcp-runtime and mcp-codegen $version (verified by cargo publish --dry-run separately)"
(cd "$root" && cargo package --offline --quiet --no-verify --allow-dirty \
  -p mcp-runtime -p mcp-codegen --target-dir "$work/package-target")

say "the workspace's dependencies, vendored offline, plus the two packages: a directory source"
# `cargo vendor` takes every platform's dependencies, which a build for this one never
# downloaded: fetch them first when the network allows (offline, the cache must hold them).
(cd "$root" && cargo fetch --locked --quiet) || say "cargo fetch failed (offline?): vendoring from the cache"
(cd "$root" && cargo vendor --offline --locked --quiet "$work/vendor" >/dev/null)
for crate in mcp-runtime mcp-codegen; do
  file="$work/package-target/package/$crate-$version.crate"
  tar -xzf "$file" -C "$work/vendor"
  python3 - "$work/vendor/$crate-$version" "$file" <<'PY'
import hashlib, json, os, sys
directory, crate_file = sys.argv[1], sys.argv[2]
files = {}
for base, _, names in os.walk(directory):
    for name in names:
        path = os.path.join(base, name)
        with open(path, "rb") as f:
            files[os.path.relpath(path, directory)] = hashlib.sha256(f.read()).hexdigest()
with open(crate_file, "rb") as f:
    package = hashlib.sha256(f.read()).hexdigest()
with open(os.path.join(directory, ".cargo-checksum.json"), "w") as f:
    json.dump({"files": files, "package": package}, f)
PY
done
# The packaged generator carries its templates (the scaffold's include_str! would not build
# without them; this says so first).
test -f "$work/vendor/mcp-codegen-$version/templates/Cargo.toml.j2" ||
  { echo "FAIL: the mcp-codegen package has no templates/" >&2; exit 1; }

mkdir -p "$work/user/.cargo"
cat >"$work/user/.cargo/config.toml" <<TOML
[source.crates-io]
replace-with = "packaged"

[source.packaged]
directory = "$work/vendor"

[net]
offline = true
TOML
cd "$work/user"

say "cargo install mcp-codegen $version from the directory source (--debug: this checks the package, not its speed)"
# `--config`: installing from a registry, cargo reads no `.cargo/config.toml` of the current
# directory.
cargo install --quiet --locked --debug mcp-codegen --version "=$version" \
  --config "$work/user/.cargo/config.toml" --root "$work/install" --target-dir "$work/install-target"
codegen="$work/install/bin/mcp-codegen"

say "generate from fixtures/openrpc/mcp-features.openrpc.json with default flags"
cp "$root/fixtures/openrpc/mcp-features.openrpc.json" contract.json
"$codegen" contract.json -o server --name package-e2e --quiet
manifest="$(cat server/Cargo.toml)"
grep -qx "mcp-runtime = \"$version\"" server/Cargo.toml || {
  echo "FAIL: the generated Cargo.toml does not depend on mcp-runtime = \"$version\":" >&2
  grep -n 'mcp-runtime' server/Cargo.toml >&2; exit 1; }
if grep -v '^ *#' server/Cargo.toml | grep -q 'path *='; then
  echo "FAIL: the generated Cargo.toml has a path dependency:" >&2; echo "$manifest" >&2; exit 1
fi
grep -q "^# mcp-runtime \"$version\" from crates.io" server/Cargo.toml ||
  { echo "FAIL: the generated Cargo.toml does not say which runtime it chose" >&2; exit 1; }

# The one handler method the call below needs, written as a user would.
stub='Err(Error::new("`echo` is not implemented yet"))'
grep -qF "$stub" server/src/handler.rs || { echo "FAIL: no echo stub in src/handler.rs" >&2; exit 1; }
python3 - server/src/handler.rs "$stub" <<'PY'
import sys
path, stub = sys.argv[1], sys.argv[2]
text = open(path).read().replace(stub, "Ok(_params.text)")
open(path, "w").write(text)
PY

say "cargo build --offline the generated crate against the packaged runtime"
(cd server && cargo build --offline --quiet --target-dir "$work/server-target")
# The build used the packaged runtime and nothing of the checkout.
grep -q "name = \"mcp-runtime\"" server/Cargo.lock
if grep -rq "$root" server/Cargo.lock server/Cargo.toml; then
  echo "FAIL: the generated crate names the checkout $root" >&2; exit 1
fi

say "run it over stdio: initialize, notifications/initialized, tools/call echo"
answers="$(printf '%s\n' \
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"package-test","version":"1"}}}' \
  '{"jsonrpc":"2.0","method":"notifications/initialized"}' \
  '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"echo","arguments":{"text":"from the package"}}}' |
  timeout 30 "$work/server-target/debug/package-e2e" --stdio)"
python3 - "$answers" <<'PY'
import json, sys
answers = {a.get("id"): a for a in map(json.loads, sys.argv[1].splitlines())}
assert answers[1]["result"]["serverInfo"]["name"] == "mcp-features", answers
call = answers[2]["result"]
assert call.get("isError") is not True, call
assert call["content"][0]["text"] == "from the package", call
print("tools/call echo answered:", json.dumps(call["content"][0]))
PY
say "ok: installed from the package, generated, built offline against the packaged runtime, called"
