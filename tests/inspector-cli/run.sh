#!/usr/bin/env bash
# The MCP Inspector's CLI against our servers: installs @modelcontextprotocol/inspector 2.12.0
# (./package.json + ./package-lock.json, `npm ci`, into
# ${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-inspector-cli/<hash of the lock>, so an
# unchanged lock is never refetched; it needs Node >= 22.19, the conformance cache's Node
# 22.23.5 when the system's is older), then runs cli.mjs: `mcp-inspector --cli --format json`
# with --method initialize, tools/list --strict, tools/call (--tool-arg, --tool-args-json),
# resources/list, resources/templates/list, resources/read, prompts/list, prompts/get
# (--prompt-args), logging/setLevel, on the everything server over --transport http
# (--protocol-era legacy, modern, auto) and stdio (legacy, modern), and on the quickstart over
# HTTP (legacy, modern). Prints one line per check and a last line "N passed, M failed"; exits
# non-zero if any check failed. Fails when the npm registry cannot be reached on the first run.
#
# usage: tests/inspector-cli/run.sh EVERYTHING_BINARY QUICKSTART_BINARY
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
[ $# -eq 2 ] || { echo "usage: $0 EVERYTHING_BINARY QUICKSTART_BINARY" >&2; exit 2; }
everything="$1"
quickstart="$2"
for binary in "$everything" "$quickstart"; do
  [ -x "$binary" ] || { echo "error: no server binary at $binary" >&2; exit 1; }
done

# Node >= 22, where conformance/run.sh keeps it.
"$root/conformance/run.sh" --install-only >/dev/null
. "$root/conformance/env.sh"
conformance_env || exit 1
node=$CONFORMANCE_NODE
export PATH="$(dirname "$node"):$PATH"   # the CLI's `#!/usr/bin/env node` is this Node too

# shellcheck source=../lib/npm.sh
. "$root/tests/lib/npm.sh"
npm_install inspector-cli "$here" node_modules/.bin/mcp-inspector
dir="$npm_dir"

# shellcheck source=../lib/servers.sh
. "$root/tests/lib/servers.sh"
trap stop_servers EXIT

start_server "$everything"
everything_url="$url"
start_server "$quickstart"
"$node" "$here/cli.mjs" "$dir/node_modules/.bin/mcp-inspector" "$everything_url" "$everything" "$url"
