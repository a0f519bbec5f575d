#!/usr/bin/env bash
# A/B: two or more server builds loaded in turn, for judging a change to the hot path by the
# server's CPU time per request (see BENCHMARKS.md, "Reading the numbers").
#
#   bench/ab.sh SERVER...     each SERVER a command (word-split) that takes `--addr HOST:PORT`,
#                             e.g. a copy of the old bench-server, the new one, and
#                             target/release/hyper-peer as the reference
#
# Environment: MODE (a loadgen mode, default stateless2026), ROUNDS (default 6), SECS
# (seconds per run, default 3), CONNS (default 64). Servers on core 0, load on core 1, as in
# run.sh; the order is A B C, A B C, ... so that the VM's drift hits every server alike. Prints
# one line per run, then per server the median over rounds of req/s, the server's user and
# system CPU µs per request (from /proc/PID/stat), p50 and p99.
#
# CPU time is the measure to trust here: req/s and latency also move with the load
# generator, which shares the machine. Build first (`cargo build --release -p bench-server`,
# and in bench/ `cargo build --release --bins`), and copy the binary you compare against:
# a rebuild replaces it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# BENCH_PROFILE=dev: the debug loadgen (as bench/run.sh --smoke builds it in CI).
LOADGEN=${CARGO_TARGET_DIR:-$ROOT/target}/$([[ ${BENCH_PROFILE:-release} == dev ]] && echo debug || echo release)/loadgen
MODE=${MODE:-stateless2026}; ROUNDS=${ROUNDS:-6}; SECS=${SECS:-3}; CONNS=${CONNS:-64}
PORT=${BENCH_PORT:-19310}
[[ $# -ge 1 ]] || { sed -n '2,18p' "$0" >&2; exit 2; }
[[ -x $LOADGEN ]] || { echo "build loadgen first: (cd bench && cargo build --release --bins)" >&2; exit 1; }
if [[ $(nproc) -ge 2 ]]; then SERVER_CPU=(taskset -c 0); LOAD_CPU=(taskset -c 1); else SERVER_CPU=(); LOAD_CPU=(); fi

LINES=$(mktemp)
PID=
trap 'rm -f "$LINES"; [[ -n $PID ]] && kill "$PID" 2>/dev/null || true' EXIT

for round in $(seq "$ROUNDS"); do
  for i in $(seq $#); do
    server=${!i}
    # shellcheck disable=SC2086 # the server command is word-split on purpose
    RUST_LOG=warn "${SERVER_CPU[@]}" $server --addr "127.0.0.1:$PORT" 2>/dev/null &
    PID=$!
    for _ in $(seq 100); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.05; done
    "${LOAD_CPU[@]}" "$LOADGEN" check --addr "127.0.0.1:$PORT" --mode "$MODE" >/dev/null
    result=$("${LOAD_CPU[@]}" "$LOADGEN" load --addr "127.0.0.1:$PORT" --mode "$MODE" \
      --conns "$CONNS" --secs "$SECS" --warmup 0.7 --pid "$PID")
    kill "$PID"; wait "$PID" 2>/dev/null || true; PID=
    echo "round $round server $i $result"
    echo "$i $result" >>"$LINES"
  done
done

echo
echo "medians over $ROUNDS rounds, mode $MODE, $CONNS connections:"
for i in $(seq $#); do
  awk -v i="$i" -v name="${!i}" '
    $1 == i { for (j = 2; j <= NF; j++) { split($j, p, "="); v[p[1], ++n[p[1]]] = p[2] } }
    function median(k,   m, a, x, y, t) {
      m = n[k]; for (x = 1; x <= m; x++) a[x] = v[k, x] + 0
      for (x = 2; x <= m; x++) { t = a[x]; for (y = x - 1; y >= 1 && a[y] > t; y--) a[y + 1] = a[y]; a[y + 1] = t }
      return m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
    }
    END { printf "%-60s rps %7.0f  user %6.2f µs  sys %6.2f µs  p50 %5.0f µs  p99 %5.0f µs\n",
      name, median("rps"), median("user_us_per_req"), median("sys_us_per_req"),
      median("p50_us"), median("p99_us") }' "$LINES"
done
