#!/usr/bin/env bash
# The 2024-11-05 HTTP+SSE transport against a real client: the TypeScript SDK's
# SSEClientTransport + Client (@modelcontextprotocol/sdk 1.32.2, pinned by the conformance
# suite's lock: conformance/lock/package-lock.json) on the everything-server. Installs nothing
# of its own: `conformance/run.sh --install-only` installs (or finds) the suite and Node >= 22
# in the conformance cache, and this script uses the same ones. Runs client.mjs:
#   - with --legacy-sse: a client as it ships (2025-11-25) and one that only speaks 2024-11-05;
#   - with MCP_LEGACY_SSE=1 instead of the flag;
#   - with the option off: GET /sse is 404 and the client cannot connect.
# Exits non-zero on any failure.
#
# usage: tests/legacy-sse-client/run.sh [EVERYTHING_SERVER_BINARY]
#        (default: $CARGO_TARGET_DIR or target, then debug/everything-server)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
server="${1:-$target/debug/everything-server}"
[ -x "$server" ] || { echo "error: no everything-server binary at $server (cargo build -p everything-server)" >&2; exit 1; }

# The suite (and the SDK it locks) and Node, exactly where conformance/run.sh keeps them.
"$root/conformance/run.sh" --install-only >/dev/null
. "$root/conformance/env.sh"
conformance_env || exit 1
node=$CONFORMANCE_NODE sdk=$CONFORMANCE_SDK

free_port() {
  "$node" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

pid=""
stop() { [ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; }; }
trap stop EXIT

# run_against "MODES" ENV=VALUE [SERVER_ARGS...]: starts the server with that environment
# variable and those flags, waits for its port, runs the client in each mode, stops the server.
run_against() {
  local modes="$1" variable="$2" port mode
  shift 2
  port="$(free_port)"
  env "$variable" "$server" --addr "127.0.0.1:$port" "$@" 2>"$target/legacy-sse-server.log" &
  pid=$!
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { echo "error: the server exited" >&2; cat "$target/legacy-sse-server.log" >&2; exit 1; }
    sleep 0.1
  done
  for mode in $modes; do
    "$node" "$here/client.mjs" "$sdk" "http://127.0.0.1:$port" "$mode"
  done
  stop
}

run_against "latest 2024" MCP_LEGACY_SSE= --legacy-sse
run_against "2024" MCP_LEGACY_SSE=1
run_against "off" MCP_LEGACY_SSE=
