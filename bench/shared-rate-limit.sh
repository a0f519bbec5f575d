#!/usr/bin/env bash
# What a shared rate limit (--rate-limit-shared, #34 item 2) costs a call, against a
# redis-server of its own on 127.0.0.1 (see BENCHMARKS.md): bench-server (feature `redis`,
# release) with the Redis stores and a limit no call reaches, local buckets then shared ones:
#
#   1. instructions per call: bench/slope.sh, stateless 2026-07-28 calls on 64 connections;
#   2. Redis's own CPU per call: INFO commandstats after the shared runs (EVALSHA);
#   3. wall latency and req/s of one connection, closed loop, 10 s each.
#
#   bench/shared-rate-limit.sh          (ROUNDS: slope.sh's rounds, default 2)
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
RPORT=${BENCH_REDIS_PORT:-16391}
PORT=${BENCH_PORT:-19501}
command -v redis-server >/dev/null || { echo "redis-server is needed (Debian package redis-server)" >&2; exit 1; }

(cd "$ROOT" && cargo build --release --quiet -p bench-server --features redis)
(cd "$ROOT/bench" && cargo build --release --quiet --bin loadgen)
WORK=$(mktemp -d)
cp "$CARGO_TARGET_DIR/release/bench-server" "$WORK/bench-server"
redis-server --port "$RPORT" --bind 127.0.0.1 --save "" --appendonly no >"$WORK/redis.log" 2>&1 &
RPID=$!
trap 'kill $RPID 2>/dev/null || true; rm -rf "$WORK"' EXIT
for _ in $(seq 100); do redis-cli -p "$RPORT" ping >/dev/null 2>&1 && break; sleep 0.05; done

MCP_REQUEST_STATE_KEY=$(openssl rand -hex 32)
export MCP_REDIS_URL=redis://127.0.0.1:$RPORT/ MCP_REQUEST_STATE_KEY
export MCP_RATE_LIMIT=1000000000/s RUST_LOG=warn MODES=stateless2026

echo "== instructions per call: local buckets"
bash "$ROOT/bench/slope.sh" local="$WORK/bench-server"
redis-cli -p "$RPORT" CONFIG RESETSTAT >/dev/null
echo "== instructions per call: shared buckets"
MCP_RATE_LIMIT_SHARED=1 bash "$ROOT/bench/slope.sh" shared="$WORK/bench-server"
echo "== Redis, shared runs (EVALSHA calls should match the calls made)"
redis-cli -p "$RPORT" INFO commandstats | grep -E "evalsha|cmdstat_eval:" || true

echo "== one connection, 10 s"
for mode in local shared; do
  shared=0; [[ $mode == shared ]] && shared=1
  for round in 1 2; do
    MCP_RATE_LIMIT_SHARED=$shared "$WORK/bench-server" --addr "127.0.0.1:$PORT" 2>"$WORK/$mode.log" &
    pid=$!
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done
    echo "$mode round $round: $("$CARGO_TARGET_DIR/release/loadgen" load --addr "127.0.0.1:$PORT" \
      --mode stateless2026 --conns 1 --secs 10 --warmup 1)"
    kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
    # A fallback to the local buckets would have warned: none expected.
    ! grep -q "shared rate limits unreachable" "$WORK/$mode.log" || echo "  (fell back to local buckets)"
  done
done
