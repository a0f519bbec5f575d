#!/usr/bin/env bash
# Instructions per request of server builds as the slope between a short and a long run under
# callgrind: (Ir_long - Ir_short) / (n_long - n_short), which cancels start-up and does not
# depend on how many requests a shared machine lets through (see BENCHMARKS.md).
#
#   bench/slope.sh NAME=SERVER...    each SERVER a binary taking `--addr HOST:PORT` (copy the
#                                    builds you compare: a rebuild replaces them)
#
# Environment: MODES (loadgen modes, default "stateless2026 session"), ROUNDS (default 2),
# SHORT and LONG (seconds, default 2 and 6). The builds run in turn within each round. Prints
# one line per build, mode and round.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LOADGEN=${CARGO_TARGET_DIR:-$ROOT/target}/release/loadgen
MODES=${MODES:-stateless2026 session}; ROUNDS=${ROUNDS:-2}; SHORT=${SHORT:-2}; LONG=${LONG:-6}
PORT=${BENCH_PORT:-19400}
[[ $# -ge 1 ]] || { sed -n '2,11p' "$0" >&2; exit 2; }
[[ -x $LOADGEN ]] || { echo "build loadgen first: (cd bench && cargo build --release --bins)" >&2; exit 1; }
command -v valgrind >/dev/null || { echo "valgrind is needed (Debian package valgrind)" >&2; exit 1; }
WORK=$(mktemp -d)
trap 'pkill -f "callgrind-out-file=$WORK" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# run SERVER MODE SECS: prints "INSTRUCTIONS REQUESTS".
run() {
  local out="$WORK/cg.$PORT"
  valgrind --tool=callgrind --callgrind-out-file="$out" "$1" --addr "127.0.0.1:$PORT" 2>/dev/null &
  local pid=$!
  for _ in $(seq 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.05
  done
  local load
  load=$(taskset -c 1 "$LOADGEN" load --addr "127.0.0.1:$PORT" --mode "$2" --conns 64 --secs "$3" --warmup 0)
  kill -TERM "$pid"; wait "$pid" 2>/dev/null || true
  local requests instructions
  requests=$(sed -n 's/.*requests=\([0-9]*\).*/\1/p' <<<"$load")
  instructions=$(callgrind_annotate "$out" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", ""); print $1 }')
  rm -f "$out"
  PORT=$((PORT + 1))
  echo "$instructions $requests"
}

for round in $(seq "$ROUNDS"); do
  for mode in $MODES; do
    for build in "$@"; do
      name=${build%%=*}; server=${build#*=}
      read -r short_ir short_n < <(run "$server" "$mode" "$SHORT")
      read -r long_ir long_n < <(run "$server" "$mode" "$LONG")
      echo "round $round | $mode | $name | slope $(( (long_ir - short_ir) / (long_n - short_n) )) | whole ${LONG} s $(( long_ir / long_n )) | requests $long_n"
    done
  done
done
