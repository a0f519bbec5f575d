#!/usr/bin/env bash
# Our client against another implementation's server: the TypeScript reference everything
# server (@modelcontextprotocol/server-everything 2026.8.31, pinned by ./package-lock.json, `npm ci`
# into ${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-reference-server/<hash of the lock>) over
# Streamable HTTP and stdio, on Node >= 22 from the conformance cache. runtime/tests/reference_server.rs
# starts it on a free 127.0.0.1 port (or as a child process) and drives it with
# mcp_runtime::client: the Auto probe's fallback to a session, every list, calls, a read, a
# prompt, sampling and elicitation answered by the client's handler, a call's progress to its
# callback, resource updates through Client::listen. Fails when the npm registry cannot be
# reached on the first run.
#
# usage: tests/reference-server/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

"$root/conformance/run.sh" --install-only >/dev/null
. "$root/conformance/env.sh"
conformance_env || exit 1
# shellcheck source=../lib/npm.sh
. "$root/tests/lib/npm.sh"
entry=node_modules/@modelcontextprotocol/server-everything/dist/index.js
npm_install reference-server "$here" "$entry"

cd "$root"
MCP_REFERENCE_NODE="$CONFORMANCE_NODE" MCP_REFERENCE_SERVER="$npm_dir/$entry" \
  cargo test -p mcp-runtime --features client --locked --test reference_server -- --ignored
