#!/usr/bin/env bash
# The TypeScript SDK's Client against our servers, in both eras:
#   - v1, @modelcontextprotocol/sdk 1.32.2 (pinned by the conformance suite's lock:
#     conformance/lock/package-lock.json), which speaks the session era only (2025-11-25 and
#     older; no 2026-07-28): `conformance/run.sh --install-only` installs (or finds) it and
#     Node >= 22 in the conformance cache, and this script uses the same ones;
#   - v2, @modelcontextprotocol/client 2.4.0 (./package.json + ./package-lock.json, `npm ci`, into
#     ${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-ts-client/<hash of the lock>, so an
#     unchanged lock is never refetched), with versionNegotiation mode 'auto': 2026-07-28.
# Runs client.mjs's scenarios with each: the everything server over Streamable HTTP
# (StreamableHTTPClientTransport) and over stdio (StdioClientTransport spawns it with --stdio),
# and the quickstart over HTTP. Prints one line per check and a last line "N passed, M failed";
# exits non-zero if any check failed. Fails when the npm registry cannot be reached on the first
# run.
#
# usage: tests/ts-client/run.sh EVERYTHING_BINARY QUICKSTART_BINARY
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 EVERYTHING_BINARY QUICKSTART_BINARY" >&2; exit 2; }
everything="$1"
quickstart="$2"
for binary in "$everything" "$quickstart"; do
  [ -x "$binary" ] || { echo "error: no server binary at $binary" >&2; exit 1; }
done

"$root/conformance/run.sh" --install-only >/dev/null
. "$root/conformance/env.sh"
conformance_env || exit 1
node=$CONFORMANCE_NODE sdk=$CONFORMANCE_SDK

# shellcheck source=../lib/npm.sh
. "$root/tests/lib/npm.sh"
npm_install ts-client "$here" node_modules/@modelcontextprotocol/client/package.json
v2="$npm_dir/node_modules/@modelcontextprotocol/client"

# shellcheck source=../lib/servers.sh
. "$root/tests/lib/servers.sh"
results="$(mktemp)"
trap 'stop_servers; rm -f "$results"' EXIT

# client SCENARIO TARGET: one scenario of client.mjs with each SDK; its lines go to $results
# too. A client.mjs that died without saying so (exit status other than 0, 1 and 3) is a FAIL
# line here.
client() {
  local status package out
  for package in "$sdk" "$v2"; do
    status=0
    out="$("$node" "$here/client.mjs" "$package" "$@")" || status=$?
    printf '%s\n' "$out" | tee -a "$results"
    if [ "$status" -gt 1 ] && [ "$status" -ne 3 ]; then
      echo "FAIL $1 ($package): client.mjs exited with status $status" | tee -a "$results"
    fi
  done
}

# A small page size, so that every list takes several pages (cursors).
start_server "$everything" --page-size 3
client everything-http "$url"
stop_servers
client everything-stdio "$everything"
start_server "$quickstart"
client quickstart "$url"
stop_servers

passed="$(grep -c '^PASS' "$results" || true)"
failed="$(grep -c '^FAIL' "$results" || true)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
