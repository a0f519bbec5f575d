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

# shellcheck source=../lib/servers.sh
. "$root/tests/lib/servers.sh"
trap stop_servers EXIT

# run_against "MODES" ENV=VALUE [SERVER_ARGS...]: starts the server with that environment
# variable and those flags, runs the client in each mode, stops the server.
run_against() {
  local modes="$1" variable="$2" mode
  shift 2
  export "${variable?}"
  start_server "$server" "$@"
  unset "${variable%%=*}"
  for mode in $modes; do
    "$node" "$here/client.mjs" "$sdk" "${url%/mcp}" "$mode"
  done
  stop_servers
}

run_against "latest 2024" MCP_LEGACY_SSE= --legacy-sse
run_against "2024" MCP_LEGACY_SSE=1
run_against "off" MCP_LEGACY_SSE=
