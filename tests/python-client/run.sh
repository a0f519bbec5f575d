#!/usr/bin/env bash
# The official Python MCP SDK client against our servers: installs mcp (requirements.txt:
# pinned, hash-checked wheels from PyPI) into a venv under the target directory, then runs
# client.py's scenarios: the everything server over Streamable HTTP in the session era
# (mode="legacy") and in 2026-07-28 (the SDK's server/discover probe), the everything server over
# stdio (spawned by the SDK's stdio client), and the quickstart over HTTP. Prints one line per
# check and a last line "N passed, M failed"; exits non-zero if any check failed. Fails when PyPI
# cannot be reached: nothing is skipped.
#
# usage: tests/python-client/run.sh EVERYTHING_BINARY QUICKSTART_BINARY
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
[ $# -eq 2 ] || { echo "usage: $0 EVERYTHING_BINARY QUICKSTART_BINARY" >&2; exit 2; }
everything="$1"
quickstart="$2"
for binary in "$everything" "$quickstart"; do
  [ -x "$binary" ] || { echo "error: no server binary at $binary" >&2; exit 1; }
done

# shellcheck source=../lib/venv.sh
. "$root/tests/lib/venv.sh"
venv="$target/python-client-venv"
python_venv "$venv" "$here/requirements.txt" "the mcp Python SDK" || exit 1

# shellcheck source=../lib/servers.sh
. "$root/tests/lib/servers.sh"
results="$(mktemp)"
trap 'stop_servers; rm -f "$results"' EXIT

# client SCENARIO TARGET: one scenario of client.py; its PASS/FAIL lines go to $results too.
# A client.py that died without saying so (exit status other than 0 and 3) is a FAIL line here.
client() {
  local status=0
  "$venv/bin/python" "$here/client.py" --results "$results" "$@" || status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "FAIL $1: client.py exited with status $status" | tee -a "$results"
  fi
}

# A small page size, so that every list takes several pages (cursors).
start_server "$everything" --page-size 3
client everything-legacy "$url"
client everything-2026 "$url"
stop_servers
client everything-stdio "$everything"
start_server "$quickstart"
client quickstart "$url"
stop_servers

passed="$(grep -c '^PASS' "$results" || true)"
failed="$(grep -c '^FAIL' "$results" || true)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
