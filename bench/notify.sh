#!/usr/bin/env bash
# A notification's path from an Ethereum node to an MCP client through the gateway (issue 48):
# p50/p90/p99 of each block's newHeads, from `evm_mine` to the node's own notification at a
# direct subscriber, and to the gateway's `notifications/resources/updated` at an MCP client,
# in both eras (bench/src/bin/notify-latency.rs says what each figure is).
#
#   bench/notify.sh            ROUNDS=500 by default
#
# The node is anvil 1.7.1 (tests/gateway/node's lock, installed by tests/gateway/run.sh or here),
# the gateway the one tests/gateway/run.sh builds (fixtures/gateway/ethereum.openrpc.json,
# --tools 'eth_*', --overlay fixtures/gateway/eth-overlay.json), in release, on the node's
# WebSocket. The gateway on core 0, anvil and the client on core 1.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
ROUNDS=${ROUNDS:-500}
WORK=$(mktemp -d)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$WORK"' EXIT
if [[ $(nproc) -ge 2 ]]; then GW_CPU=(taskset -c 0); REST_CPU=(taskset -c 1); else GW_CPU=(); REST_CPU=(); fi

# shellcheck source=../tests/lib/npm.sh
. "$ROOT/tests/lib/npm.sh"
npm_install gateway "$ROOT/tests/gateway/node" node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil
anvil="$npm_dir/node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil"

(cd "$ROOT" && cargo build --release --quiet --locked -p mcp-codegen)
"$CARGO_TARGET_DIR/release/mcp-codegen" "$ROOT/fixtures/gateway/ethereum.openrpc.json" \
  --tools 'eth_*' --overlay "$ROOT/fixtures/gateway/eth-overlay.json" --gateway \
  --name eth-gateway -o "$WORK/eth-gateway" -q
cp "$ROOT/Cargo.lock" "$WORK/eth-gateway/"
echo "building the Ethereum gateway (release)" >&2
cargo build --release --quiet --manifest-path "$WORK/eth-gateway/Cargo.toml"
(cd "$ROOT/bench" && CARGO_TARGET_DIR="$ROOT/bench/target" cargo build --release --quiet --bin notify-latency)

port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0; sleep 0.1; done; echo "nothing on $1" >&2; exit 1; }
node_port=$(port)
"${REST_CPU[@]}" "$anvil" --host 127.0.0.1 --port "$node_port" >/dev/null 2>&1 &
PIDS+=($!)
wait_port "$node_port"
gw_port=$(port)
"${GW_CPU[@]}" "$CARGO_TARGET_DIR/release/eth-gateway" --addr "127.0.0.1:$gw_port" --log-level warn \
  --upstream "ws://127.0.0.1:$node_port" &
PIDS+=($!)
wait_port "$gw_port"
for era in session stateless; do
  "${REST_CPU[@]}" "$ROOT/bench/target/release/notify-latency" --node "http://127.0.0.1:$node_port" \
    --ws "ws://127.0.0.1:$node_port" --mcp "http://127.0.0.1:$gw_port/mcp" --era "$era" --rounds "$ROUNDS"
done
