#!/usr/bin/env bash
# Our client against another implementation's server: rmcp 3.11, the official Rust SDK
# (issue #21, "our client against other servers"). bench/src/bin/rmcp-interop-server.rs is an
# rmcp Streamable HTTP server (tools over three pages: text, structuredContent, isError,
# progress, an elicitation; a prompt; a resource), bench/src/bin/rmcp-interop.rs the driver:
# it starts that server on free 127.0.0.1 ports in three configurations (rmcp's default
# sessions, a legacy-only server, rmcp's sessionless HTTP mode) and connects
# mcp_runtime::client in Era::Auto, Era::Legacy and Era::Stateless, printing one line per
# check and `N passed, M failed` last (exit 1 on any failure).
#
# Builds both binaries in bench/ (its own workspace and lockfile, `--locked`; debug by default,
# into ${CARGO_TARGET_DIR:-bench/target}), runs a negative control (the driver with no server
# must fail), then the driver.
#
# usage: tests/rmcp-peer/run.sh [--release] [DRIVER ARGS...]
#   --release     release binaries (reuses bench/run.sh's build when CARGO_TARGET_DIR is the
#                 same: bench/run.sh builds into <repo>/target)
#   DRIVER ARGS   passed on, e.g. `--only legacy` (usage atop bench/src/bin/rmcp-interop.rs)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"

profile=debug
build_flags=()
if [[ "${1:-}" == "--release" ]]; then
  profile=release
  build_flags=(--release)
  shift
fi
target="$(realpath -m "${CARGO_TARGET_DIR:-$root/bench/target}")"
export CARGO_TARGET_DIR="$target"

echo "== build ($profile, bench/, $target)" >&2
if ! (cd "$root/bench" && cargo build --locked --quiet "${build_flags[@]}" \
      --bin rmcp-interop --bin rmcp-interop-server); then
  echo "rmcp-peer: the build failed; if cargo says bench/Cargo.lock needs updating, runtime/'s" >&2
  echo "dependencies changed: (cd bench && cargo update --workspace) and commit bench/Cargo.lock" >&2
  exit 1
fi
bin="$target/$profile"

echo "== negative control: the driver with no server must fail" >&2
if "$bin/rmcp-interop" --server "$here/no-such-server" >/dev/null 2>&1; then
  echo "rmcp-peer: the driver passed with no server to talk to" >&2
  exit 1
fi

echo "== our client against rmcp-interop-server" >&2
exec "$bin/rmcp-interop" "$@"
