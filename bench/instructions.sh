#!/usr/bin/env bash
# Instructions and simulated cache misses per request, ours against the raw-hyper ceiling on
# byte-identical requests (see BENCHMARKS.md). Unlike req/s, these numbers repeat exactly from
# run to run and from machine to machine of the same kind: use them to judge a change to the
# hot path, and bench/run.sh to see what it is worth in req/s.
#
#   bench/instructions.sh [MODE...]     MODE: stateless2026 (default) or session (loadgen's
#                                       modes; ours serves 2025 requests only in a session), or
#                                       session-sse (session requests answered with SSE, by ours
#                                       and by `hyper-peer --sse`)
#
# Each server runs under `valgrind --tool=callgrind --cache-sim=yes` (user-space only: the
# kernel's share of a request is not counted) while loadgen sends 5 s of load on 64
# connections; totals include start-up, which is under 1% at these request counts.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
BIN=$CARGO_TARGET_DIR/release
PORT=${BENCH_PORT:-19300}
MODES=("$@")
[[ ${#MODES[@]} -gt 0 ]] || MODES=(stateless2026)
command -v valgrind >/dev/null || { echo "valgrind is needed (Debian package valgrind)" >&2; exit 1; }

(cd "$ROOT" && cargo build --release --quiet -p bench-server)
(cd "$ROOT/bench" && cargo build --release --quiet --bin hyper-peer --bin loadgen)
WORK=$(mktemp -d)
trap 'pkill -f "callgrind-out-file=$WORK" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# measure NAME MODE CMD...: prints one table row.
measure() {
  local name=$1 mode=$2; shift 2
  local out="$WORK/$name.$mode.out"
  env ${SERVER_ENV:-} valgrind --tool=callgrind --cache-sim=yes --callgrind-out-file="$out" "$@" \
    --addr "127.0.0.1:$PORT" 2>"$WORK/valgrind.log" &
  local pid=$!
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.05
  done
  local load
  load=$(taskset -c 1 "$BIN/loadgen" load --addr "127.0.0.1:$PORT" --mode "$mode" --conns 64 \
    --secs 5 --warmup 0)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  local requests
  requests=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$load")
  # Totals line: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw.
  callgrind_annotate "$out" 2>/dev/null | awk -v n="$requests" -v name="$name" -v mode="$mode" '
    /PROGRAM TOTALS/ { gsub(",", ""); gsub(/\([^)]*\)/, ""); printf "| %s | %s | %d | %.0f | %.0f | %.0f | %.0f |\n",
      name, mode, n, $1/n, $4/n, ($5+$6)/n, ($7+$8+$9)/n }'
  PORT=$((PORT + 1))
}

echo "## Instructions per request, $(date -u +%Y-%m-%dT%H:%MZ) (callgrind, simulated caches of this CPU)"
echo
echo "| server | loadgen mode | requests | instructions / request | I1 misses / request | D1 misses / request | LL misses / request |"
echo "|---|---|---:|---:|---:|---:|---:|"
for mode in "${MODES[@]}"; do
  if [[ $mode == session-sse ]]; then
    measure "hyper (ceiling, SSE answers)" session "$BIN/hyper-peer" --sse
    SERVER_ENV=BENCH_SSE_RESPONSES=1 measure "ours, SSE answers" session "$BIN/bench-server"
  else
    measure "hyper (ceiling)" "$mode" "$BIN/hyper-peer"
    measure "ours" "$mode" "$BIN/bench-server"
  fi
done
