#!/usr/bin/env bash
# The plain JSON-RPC endpoint against a third-party client: installs jsonrpcclient + httpx
# (requirements.txt: pinned, hash-checked wheels from PyPI) into a venv under the target
# directory, starts the quickstart server with --jsonrpc /jsonrpc (then with MCP_JSONRPC_PATH),
# with and without --jsonrpc-unexposed, and runs client.py against it. Fails (exit non-zero) when PyPI cannot be reached: nothing is
# skipped.
#
# usage: tests/jsonrpc-client/run.sh [QUICKSTART_BINARY]   (default: target/debug/quickstart)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
server="${1:-$target/debug/quickstart}"
[ -x "$server" ] || { echo "error: no quickstart binary at $server (cargo build -p quickstart)" >&2; exit 1; }

# shellcheck source=../lib/venv.sh
. "$root/tests/lib/venv.sh"
venv="$target/jsonrpc-client-venv"
python_venv "$venv" "$here/requirements.txt" "jsonrpcclient + httpx" || exit 1

# shellcheck source=../lib/servers.sh
. "$root/tests/lib/servers.sh"
trap stop_servers EXIT

# run_against PATH ENV=VALUE [SERVER_ARGS...]: starts the server with that environment variable
# and those flags, runs the client on http://127.0.0.1:PORT/PATH, stops the server.
run_against() {
  local path="$1" variable="$2"
  shift 2
  export "${variable?}"
  start_server "$server" "$@"
  unset "${variable%%=*}"
  local unexposed=""
  case " $* " in *" --jsonrpc-unexposed "*) unexposed=--unexposed ;; esac
  "$venv/bin/python" "$here/client.py" "${url%/mcp}$path" $unexposed
  stop_servers
}

# The flag, then the environment variable; the methods without x-mcp only when asked.
run_against /jsonrpc MCP_JSONRPC_PATH= --jsonrpc /jsonrpc
run_against /jsonrpc MCP_JSONRPC_PATH= --jsonrpc /jsonrpc --jsonrpc-unexposed
run_against /rpc MCP_JSONRPC_PATH=/rpc --jsonrpc-unexposed
