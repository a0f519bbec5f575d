#!/usr/bin/env bash
# The TypeScript SDK's Client (@modelcontextprotocol/sdk 1.32.2, pinned by the conformance
# suite's lock: conformance/lock/package-lock.json) against our servers. Installs nothing of its
# own: `conformance/run.sh --install-only` installs (or finds) the suite, its SDK and Node >= 22
# in the conformance cache, and this script uses the same ones. Runs client.mjs's scenarios: the
# everything server over Streamable HTTP (StreamableHTTPClientTransport) and over stdio
# (StdioClientTransport spawns it with --stdio), and the quickstart over HTTP. SDK 1.32.2 speaks
# the session era only (2025-11-25 and older; no 2026-07-28). Prints one line per check and a
# last line "N passed, M failed"; exits non-zero if any check failed.
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

free_port() {
  "$node" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}
pid=""
stop() { [ -z "$pid" ] || { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; pid=""; }; }
results="$(mktemp)"
trap 'stop; rm -f "$results"' EXIT

# start BINARY [ARGS...]: starts the server on a free 127.0.0.1 port and waits for it; sets $url.
start() {
  local binary="$1" port
  shift
  port="$(free_port)"
  "$binary" --addr "127.0.0.1:$port" --log-level error "$@" &
  pid=$!
  for attempt in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { echo "error: $binary exited" >&2; exit 1; }
    [ "$attempt" -lt 100 ] || { echo "error: $binary is not listening on port $port after 10 s" >&2; exit 1; }
    sleep 0.1
  done
  url="http://127.0.0.1:$port/mcp"
}

# client SCENARIO TARGET: one scenario of client.mjs; its lines go to $results too. A client.mjs
# that died without saying so (exit status other than 0, 1 and 3) is a FAIL line here.
client() {
  local status=0 out
  out="$("$node" "$here/client.mjs" "$sdk" "$@")" || status=$?
  printf '%s\n' "$out" | tee -a "$results"
  if [ "$status" -gt 1 ] && [ "$status" -ne 3 ]; then
    echo "FAIL $1: client.mjs exited with status $status" | tee -a "$results"
  fi
}

# A small page size, so that every list takes several pages (cursors).
start "$everything" --page-size 3
client everything-http "$url"
stop
client everything-stdio "$everything"
start "$quickstart"
client quickstart "$url"
stop

passed="$(grep -c '^PASS' "$results" || true)"
failed="$(grep -c '^FAIL' "$results" || true)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
