# conformance/env.sh — sourced by the scripts that use what `conformance/run.sh --install-only`
# installs (tests/legacy-sse-client, tests/oauth-e2e, tests/scale-out): `conformance_env` sets
#   CONFORMANCE_NODE  a Node >= 22: the system's when it is one, else the pinned node-linux-*
#                     package in the conformance cache;
#   CONFORMANCE_SDK   the @modelcontextprotocol/sdk the suite's lock pins (its directory);
# and returns 1, saying what is missing on stderr, when either is not there. Run
# `conformance/run.sh --install-only` first.
conformance_env() {
  local root cache lock suite arch version
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  cache="${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-conformance"
  lock="$root/conformance/lock"
  suite="$cache/suite-$(cat "$lock/package.json" "$lock/package-lock.json" | sha256sum | cut -c1-12)"
  CONFORMANCE_SDK="$suite/node_modules/@modelcontextprotocol/sdk"
  if [ ! -f "$CONFORMANCE_SDK/package.json" ]; then
    echo "error: no SDK at $CONFORMANCE_SDK (run conformance/run.sh --install-only)" >&2
    return 1
  fi
  if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then
    CONFORMANCE_NODE="$(command -v node)"
  else
    case "$(uname -m)" in
      x86_64|amd64) arch=x64 ;;
      aarch64|arm64) arch=arm64 ;;
      *) echo "error: no Node >= 22 for $(uname -m)" >&2; return 1 ;;
    esac
    version="$(sed -n 's/^NODE_PKG_VERSION=\([^ ]*\).*/\1/p' "$root/conformance/run.sh")"
    CONFORMANCE_NODE="$cache/node-$version/node_modules/node-linux-$arch/bin/node"
  fi
  if [ ! -x "$CONFORMANCE_NODE" ]; then
    echo "error: no Node >= 22 at $CONFORMANCE_NODE (run conformance/run.sh --install-only)" >&2
    return 1
  fi
}
