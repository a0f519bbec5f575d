#!/usr/bin/env bash
# conformance/dev/server-everything.sh — DEV ONLY: runs the npm package
# @modelcontextprotocol/server-everything (the MCP project's example "everything" server, not the
# conformance suite's fixture server) over Streamable HTTP on http://127.0.0.1:$PORT/mcp, to prove
# conformance/run.sh end to end before our own everything-server exists:
#   conformance/run.sh --server-cmd conformance/dev/server-everything.sh --versions 2025-06-18
# It is not a conformance fixture, so many checks fail ("Not testable: ..." etc.); that is expected.
# Installs itself once into the same cache as run.sh; runs on the system node (>= 18 is enough).
set -euo pipefail
: "${PORT:?PORT must be set}"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
VERSION=2026.8.31
DIR="${CONFORMANCE_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-conformance}/dev-server-everything-$VERSION"
if [ ! -f "$DIR/.installed" ]; then
  rm -rf "$DIR" && mkdir -p "$DIR"
  echo '{"name":"dev-server-everything","private":true}' >"$DIR/package.json"
  (cd "$DIR" && npm install --no-audit --no-fund --loglevel=error "@modelcontextprotocol/server-everything@$VERSION") >&2
  touch "$DIR/.installed"
fi
# loopback-only.mjs: the server calls app.listen(PORT) (all interfaces); pin it to 127.0.0.1.
exec node --import "$HERE/loopback-only.mjs" \
  "$DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js" streamableHttp
