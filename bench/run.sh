#!/usr/bin/env bash
# Load benchmark of the generated server against its peers (see BENCHMARKS.md).
#
#   bench/run.sh            full: 4 rounds (ROUNDS), 4 s per run (SECS), 64 and 1 connections,
#                           session memory at 1,000 and 10,000 sessions, creation rate over
#                           20,000 sessions on 64 connections (ROUNDS fresh processes each)
#   bench/run.sh --smoke    1 round, 1 s per run, 64 connections, 1,000 sessions; exits
#                           non-zero if any server answers wrongly
#   (both end with the clients: ours and rmcp's, each one's own CPU per tools/call against our
#   server, client-load; then the gateway table: see gateway_table below)
#   BENCH_ONLY=gateway ...  only the gateway table (issue 35), with --smoke too; GW_RATE=N sets
#                           its paced runs' total rate (default 5000 req/s)
#   BENCH_REDIS=1 ...       also rows of our server with its stores in Redis (`--features redis`,
#                           `--redis`, a redis-server of its own on 127.0.0.1: the Debian package
#                           must be installed), each beside the memory row it repeats, and the
#                           Redis commands per request they cost (`INFO commandstats` deltas)
#
# Every server runs pinned to core 0 (`taskset -c 0`), the load generator to core 1. Servers
# are loaded in turn (A B C D, A B C D, ...), never at once, each next to the ceiling row it is
# compared with. Ratios to the ceiling are taken per round (the two runs are seconds apart)
# and the median over rounds is reported: this VM's speed drifts by more than 15% within
# minutes, which a ratio of means over the whole run would mix in. Only 127.0.0.1 is used.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
SMOKE=0
[[ "${1:-}" == "--smoke" ]] && SMOKE=1
export CARGO_BUILD_JOBS=${CARGO_BUILD_JOBS:-1}
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$ROOT/target}
# BENCH_PROFILE=dev: debug builds, for --smoke in CI (answers, not speeds), which reuse the
# dependencies the tests built; release otherwise.
PROFILE=${BENCH_PROFILE:-release}
case $PROFILE in
  release) BIN=$CARGO_TARGET_DIR/release ;;
  dev) BIN=$CARGO_TARGET_DIR/debug ;;
  *) echo "BENCH_PROFILE: release or dev" >&2; exit 2 ;;
esac
BASE_PORT=${BENCH_PORT:-19200}  # below the ephemeral port range, so no load connection holds it

if [[ $SMOKE == 1 ]]; then
  ROUNDS=1; SECS=${SECS:-1}; WARMUP=0.2; CONNS=(64); SESSION_COUNTS=(1000); RATE_N=1000
else
  ROUNDS=${ROUNDS:-4}; SECS=${SECS:-4}; WARMUP=1; CONNS=(64 1); SESSION_COUNTS=(1000 10000); RATE_N=20000
fi

echo "== build ($PROFILE, CARGO_BUILD_JOBS=$CARGO_BUILD_JOBS)" >&2
WORK=$(mktemp -d)
REDIS_ROWS=${BENCH_REDIS:-0}
ONLY=${BENCH_ONLY:-}
[[ -z $ONLY || $ONLY == gateway ]] || { echo "BENCH_ONLY: gateway, or unset for every table" >&2; exit 2; }
[[ -z $ONLY ]] || REDIS_ROWS=0
if [[ $REDIS_ROWS == 1 && -z $ONLY ]]; then
  command -v redis-server >/dev/null || { echo "BENCH_REDIS=1 needs redis-server (apt-get install redis-server)" >&2; exit 1; }
  # The redis build first, kept aside: the memory build below takes the usual path.
  (cd "$ROOT" && cargo build --profile "$PROFILE" --quiet -p bench-server --features redis)
  cp "$BIN/bench-server" "$WORK/bench-server-redis"
fi
(cd "$ROOT" && cargo build --profile "$PROFILE" --quiet -p bench-server -p gateway-bench)
(cd "$ROOT/bench" && cargo build --profile "$PROFILE" --quiet --bins)
BUILT=$(date +%s)

if [[ $(nproc) -ge 2 ]]; then
  SERVER_CPU=(taskset -c 0); LOAD_CPU=(taskset -c 1)
else
  SERVER_CPU=(); LOAD_CPU=(); echo "warning: one CPU, no pinning" >&2
fi

PIDS=()
REDIS_PID=""
FAILED=0
cleanup() { for pid in "${PIDS[@]}" $REDIS_PID; do kill "$pid" 2>/dev/null || true; done; }
trap cleanup EXIT

# start NAME PORT CMD... : starts a server pinned to core 0, waits for its port; sets $PID.
start() {
  local name=$1 port=$2; shift 2
  RUST_LOG=warn "${SERVER_CPU[@]}" "$@" --addr "127.0.0.1:$port" 2>"$WORK/$name.log" &
  PID=$!
  PIDS+=("$PID")
  for _ in $(seq 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then return 0; fi
    kill -0 "$PID" 2>/dev/null || { echo "$name exited: $(cat "$WORK/$name.log")" >&2; return 1; }
    sleep 0.05
  done
  echo "$name did not listen on $port" >&2; return 1
}

kib() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }

# The helpers below read the results file named by $RESULTS when called (one line per run:
# key|conns|loadgen's key=value line|round).
# mean of field F over the rounds of KEY at CONNS
mean() { awk -F'|' -v k="$1" -v c="$2" -v f="$3" '$1==k && $2==c {
  n=split($3, kv, " "); for (j=1;j<=n;j++) { split(kv[j], p, "="); if (p[1]==f) { s+=p[2]; m++ } } }
  END { if (m) printf "%.1f", s/m; else printf "-" }' "$RESULTS"; }
# "min–max" of field F over the rounds of KEY at CONNS (each printed with format FMT, %.0f)
span() { awk -F'|' -v k="$1" -v c="$2" -v f="$3" -v fmt="${4:-%.0f}" '$1==k && $2==c {
  n=split($3, kv, " "); for (j=1;j<=n;j++) { split(kv[j], p, "="); if (p[1]==f) {
    v=p[2]+0; if (!m || v<lo) lo=v; if (!m || v>hi) hi=v; m++ } } }
  END { if (m>1) printf " (" fmt "–" fmt ")", lo, hi }' "$RESULTS"; }
maxf() { awk -F'|' -v k="$1" -v f="$2" '$1==k { n=split($3, kv, " ");
  for (j=1;j<=n;j++) { split(kv[j], p, "="); if (p[1]==f && p[2]>x) x=p[2] } } END { print x+0 }' "$RESULTS"; }

# Field F of KEY over the ceiling key CKEY at CONNS, per round: "median (min–max)" over rounds.
round_ratio() { awk -F'|' -v k="$1" -v c="$2" -v ck="$3" -v f="$4" '
  $2==c && ($1==k || $1==ck) { n=split($3, kv, " "); for (j=1;j<=n;j++) { split(kv[j], p, "=");
    if (p[1]==f) v[$1 SUBSEP $4]=p[2] } rounds[$4]=1 }
  END { m=0; for (r in rounds) if (v[ck SUBSEP r]>0 && (k SUBSEP r) in v) x[++m]=v[k SUBSEP r]/v[ck SUBSEP r]
    if (m==0) { printf "-"; exit }
    for (i=1;i<=m;i++) for (j=i+1;j<=m;j++) if (x[j]<x[i]) { t=x[i]; x[i]=x[j]; x[j]=t }
    med=(m%2) ? x[(m+1)/2] : (x[m/2]+x[m/2+1])/2
    if (m>1) printf "%.2f (%.2f–%.2f)", med, x[1], x[m]; else printf "%.2f", med }' "$RESULTS"; }

# Field F of KEY minus that of KEY CKEY at CONNS, per round: "median (min–max)" over rounds.
round_diff() { awk -F'|' -v k="$1" -v c="$2" -v ck="$3" -v f="$4" '
  $2==c && ($1==k || $1==ck) { n=split($3, kv, " "); for (j=1;j<=n;j++) { split(kv[j], p, "=");
    if (p[1]==f) v[$1 SUBSEP $4]=p[2] } rounds[$4]=1 }
  END { m=0; for (r in rounds) if ((ck SUBSEP r) in v && (k SUBSEP r) in v) x[++m]=v[k SUBSEP r]-v[ck SUBSEP r]
    if (m==0) { printf "-"; exit }
    for (i=1;i<=m;i++) for (j=i+1;j<=m;j++) if (x[j]<x[i]) { t=x[i]; x[i]=x[j]; x[j]=t }
    med=(m%2) ? x[(m+1)/2] : (x[m/2]+x[m/2+1])/2
    if (m>1) printf "%.0f (%.0f–%.0f)", med, x[1], x[m]; else printf "%.0f", med }' "$RESULTS"; }

# The gateway table (issue 35): tools/call of `echo` through our generated gateway
# (examples/gateway-bench) to a fast upstream (hyper-peer --jsonrpc, raw hyper answering the
# JSON-RPC `echo`), beside the upstream called directly, our plain tools/call (bench-server),
# the rmcp proxy (bench/src/bin/rmcp-proxy.rs: rmcp + reqwest, forwarding to the same
# upstream) and plain rmcp (rmcp-peer). The upstream and the server under test share core 0
# (a forwarded call's CPU is all on core 0, as the other rows'), the load generator is on
# core 1. Each row: closed loop at each of CONNS, then paced at GW_RATE requests/s in all over
# 64 connections, evenly spread (loadgen --rate: the latency of a call at a load every row
# carries, not the queue a saturated closed loop builds, where p99 ≈ 64 × CPU per call). In
# --smoke, only each row's answers are checked.
GW_RATE=${GW_RATE:-5000}
gateway_table() {
  local RESULTS=$WORK/gateway  # read by mean, span, round_ratio, round_diff
  : >"$RESULTS"
  local port=$((BASE_PORT + 80))
  start g-up "$port" "$BIN/hyper-peer" --jsonrpc || { FAILED=1; return; }
  local up_pid=$PID up_url="http://127.0.0.1:$port/"
  # name | mode label | loadgen mode | through the upstream (1) | command ("-": the upstream)
  local -a rows=(
    "upstream direct (hyper JSON-RPC)|JSON-RPC echo|jsonrpc|0|-"
    "ours, plain tools/call (bench-server)|stateless 2026-07-28|stateless2026|0|$BIN/bench-server"
    "ours, gateway → upstream|stateless 2026-07-28|stateless2026|1|$BIN/gateway-bench --upstream $up_url"
    "ours, gateway → upstream over WebSocket|stateless 2026-07-28|stateless2026|1|$BIN/gateway-bench --upstream ws://127.0.0.1:$port/"
    "ours, gateway → upstream, the result over its budget (outline, kept, link)|stateless 2026-07-28|outline2026|1|$BIN/gateway-bench --upstream $up_url --result-budget 1"
    "rmcp proxy (rmcp + reqwest) → upstream|stateless (2025, JSON)|stateless|1|$BIN/rmcp-proxy --upstream $up_url"
    "rmcp, plain tools/call (rmcp-peer)|stateless (2025, JSON)|stateless|0|$BIN/rmcp-peer --mode stateless"
  )
  local -A pid_of port_of
  local entry name mode lmode via cmd n=0
  for entry in "${rows[@]}"; do
    IFS='|' read -r name mode lmode via cmd <<<"$entry"
    n=$((n + 1))
    if [[ $cmd == - ]]; then
      pid_of[$name]=$up_pid; port_of[$name]=$port
    else
      # shellcheck disable=SC2086
      start "g$n" $((port + n)) $cmd || { FAILED=1; continue; }
      pid_of[$name]=$PID; port_of[$name]=$((port + n))
    fi
    echo "== check gateway table, $name: one answer:" >&2
    if ! "${LOAD_CPU[@]}" "$BIN/loadgen" check --addr "127.0.0.1:${port_of[$name]}" --mode "$lmode" >&2; then
      echo "FAIL: $name answered wrongly" >&2; FAILED=1
    fi
  done
  if [[ $FAILED != 0 || $SMOKE == 1 ]]; then
    [[ $FAILED != 0 ]] || echo "gateway table: every row answers right (--smoke: no load)" >&2
    for pid in "${pid_of[@]}"; do kill "$pid" 2>/dev/null || true; done
    return
  fi
  local round conns line extra
  for round in $(seq "$ROUNDS"); do
    for entry in "${rows[@]}"; do
      IFS='|' read -r name mode lmode via cmd <<<"$entry"
      extra=(); [[ $via == 1 ]] && extra=(--pid2 "$up_pid")
      for conns in "${CONNS[@]}" "paced"; do
        local load=(--conns "$conns")
        [[ $conns == paced ]] && load=(--conns 64 --rate "$GW_RATE")
        line=$("${LOAD_CPU[@]}" "$BIN/loadgen" load --addr "127.0.0.1:${port_of[$name]}" --mode "$lmode" \
          "${load[@]}" --secs "$SECS" --warmup "$WARMUP" --pid "${pid_of[$name]}" "${extra[@]}") || {
          echo "FAIL: $name under load ($conns): $line" >&2; FAILED=1; continue; }
        echo "round $round  gateway table  $name  conns=$conns  $line" >&2
        echo "$name|$conns|$line|$round" >>"$RESULTS"
      done
    done
  done
  for pid in "${pid_of[@]}"; do kill "$pid" 2>/dev/null || true; done
  [[ $FAILED == 0 ]] || return 0
  local c0=${CONNS[0]} c1=${CONNS[1]:-}
  echo
  echo "## Gateway: tools/call echo forwarded to a JSON-RPC upstream, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | head -1)), $(rustc --version | cut -d' ' -f1-2), rmcp $(awk '/name = "rmcp"/{getline; print $3}' "$ROOT/bench/Cargo.lock" | tr -d '"'), reqwest $(awk '/name = "reqwest"/{getline; print $3}' "$ROOT/bench/Cargo.lock" | tr -d '"')"
  echo "rounds=$ROUNDS secs/run=$SECS warmup=$WARMUP; the server under test and the upstream on core 0, load on core 1; closed loop at @$c0${c1:+ and @$c1}; paced: $GW_RATE req/s in all over 64 connections; mean (min–max over rounds)"
  echo
  printf '| server | mode | req/s @%s | CPU µs/req, this process @%s | CPU µs/req, upstream @%s | p50 µs @%s | p99 µs @%s |' "$c0" "$c0" "$c0" "$c0" "$c0"
  [[ -n $c1 ]] && printf ' p50 µs @%s | p99 µs @%s |' "$c1" "$c1"
  printf ' p50 µs paced | p99 µs paced |\n|---|---|---:|---:|---:|---:|---:|'
  [[ -n $c1 ]] && printf -- '---:|---:|'
  printf -- '---:|---:|\n'
  for entry in "${rows[@]}"; do
    IFS='|' read -r name mode lmode via cmd <<<"$entry"
    local up="-"
    [[ $via == 1 ]] && up="$(mean "$name" "$c0" cpu2_us_per_req)$(span "$name" "$c0" cpu2_us_per_req %.1f)"
    [[ $cmd == - ]] && up="(this row)"
    printf '| %s | %s | %.0f%s | %s%s | %s | %.0f | %.0f%s |' "$name" "$mode" \
      "$(mean "$name" "$c0" rps)" "$(span "$name" "$c0" rps)" \
      "$(mean "$name" "$c0" cpu_us_per_req)" "$(span "$name" "$c0" cpu_us_per_req %.1f)" "$up" \
      "$(mean "$name" "$c0" p50_us)" "$(mean "$name" "$c0" p99_us)" "$(span "$name" "$c0" p99_us)"
    [[ -n $c1 ]] && printf ' %.0f | %.0f%s |' "$(mean "$name" "$c1" p50_us)" "$(mean "$name" "$c1" p99_us)" "$(span "$name" "$c1" p99_us)"
    printf ' %.0f | %.0f%s |\n' "$(mean "$name" paced p50_us)" "$(mean "$name" paced p99_us)" "$(span "$name" paced p99_us)"
  done
  local gw="ours, gateway → upstream" plain="ours, plain tools/call (bench-server)"
  local proxy="rmcp proxy (rmcp + reqwest) → upstream" direct="upstream direct (hyper JSON-RPC)"
  echo
  echo "Targets (per-round ratios and differences, median (min–max) over rounds):"
  echo "- gateway CPU per call ÷ our plain tools/call's @$c0 (target ≤ 1.5): $(round_ratio "$gw" "$c0" "$plain" cpu_us_per_req)"
  echo "- gateway CPU per call ÷ the rmcp proxy's @$c0 (target ≤ 0.5): $(round_ratio "$gw" "$c0" "$proxy" cpu_us_per_req)"
  echo "- gateway CPU per call over WebSocket ÷ over HTTP keep-alive @$c0 (target ≤ 1): $(round_ratio "ours, gateway → upstream over WebSocket" "$c0" "$gw" cpu_us_per_req); upstream CPU likewise: $(round_ratio "ours, gateway → upstream over WebSocket" "$c0" "$gw" cpu2_us_per_req)"
  echo "- p99 added by the gateway (gateway p99 − upstream direct p99), paced, 64 connections (target < 200 µs): $(round_diff "$gw" paced "$direct" p99_us) µs; p50: $(round_diff "$gw" paced "$direct" p50_us) µs"
  [[ -n $c1 ]] && echo "- the same @$c1 (closed loop): p99 $(round_diff "$gw" "$c1" "$direct" p99_us) µs, p50 $(round_diff "$gw" "$c1" "$direct" p50_us) µs"
  echo "- the same @$c0 closed loop (a saturated core: mostly the queue): p99 $(round_diff "$gw" "$c0" "$direct" p99_us) µs"
  echo "- rmcp proxy, for comparison: p99 added, paced $(round_diff "$proxy" paced "$direct" p99_us) µs; CPU per call ÷ plain rmcp's @$c0 $(round_ratio "$proxy" "$c0" "rmcp, plain tools/call (rmcp-peer)" cpu_us_per_req)"
  return 0
}

if [[ $ONLY == gateway ]]; then
  gateway_table
  [[ $FAILED == 0 ]] || exit 1
  echo "bench/run.sh$([[ $SMOKE == 1 ]] && echo ' --smoke') (BENCH_ONLY=gateway): $(($(date +%s) - BUILT)) s after the build" >&2
  rm -rf "$WORK"
  exit 0
fi

RESULTS=$WORK/results
: >"$RESULTS"

# name | mode label | loadgen mode | command; in load order: each row after the ceiling row it
# is compared with (the nearest one above it)
REDIS=""
REDIS_STATELESS=() REDIS_SESSION=()
if [[ $REDIS_ROWS == 1 ]]; then
  REDIS_PORT=$((BASE_PORT + 40))
  redis-server --port "$REDIS_PORT" --bind 127.0.0.1 --save '' --appendonly no --dir "$WORK" \
    >"$WORK/redis.log" 2>&1 &
  REDIS_PID=$!
  for _ in $(seq 100); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.05; done
  export MCP_REQUEST_STATE_KEY=${MCP_REQUEST_STATE_KEY:-$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')}
  REDIS="$WORK/bench-server-redis --redis redis://127.0.0.1:$REDIS_PORT/"
  REDIS_STATELESS=("ours, Redis stores|stateless 2026-07-28|stateless2026|$REDIS")
  REDIS_SESSION=("ours, Redis stores|session-era JSON|session|$REDIS")
fi
SERVERS=(
  "hyper (ceiling)|2026-07-28 requests|stateless2026|$BIN/hyper-peer"
  "ours|stateless 2026-07-28|stateless2026|$BIN/bench-server"
  "${REDIS_STATELESS[@]}"
  "hyper (ceiling)|session requests|session|$BIN/hyper-peer"
  "ours|session-era JSON|session|$BIN/bench-server"
  "${REDIS_SESSION[@]}"
  "hyper (ceiling)|session requests, SSE answers|session|$BIN/hyper-peer --sse"
  "ours|session-era SSE|session|env BENCH_SSE_RESPONSES=1 $BIN/bench-server"
  "rmcp|session-era SSE|session|$BIN/rmcp-peer --mode sessions"
  "hyper (ceiling)|stateless JSON|stateless|$BIN/hyper-peer"
  "rmcp|stateless (2025, JSON)|stateless|$BIN/rmcp-peer --mode stateless"
)

FAILED=0
declare -A PID_OF IDLE_OF PORT_OF
i=0
for entry in "${SERVERS[@]}"; do
  IFS='|' read -r name mode lmode cmd <<<"$entry"
  key="$name/$mode"
  port=$((BASE_PORT + i)); i=$((i + 1))
  # shellcheck disable=SC2086
  start "s$i" "$port" $cmd
  PID_OF[$key]=$PID; PORT_OF[$key]=$port
  echo "== check $key: one tools/call answer:" >&2
  if ! "${LOAD_CPU[@]}" "$BIN/loadgen" check --addr "127.0.0.1:$port" --mode "$lmode" >&2; then
    echo "FAIL: $key answered wrongly" >&2; FAILED=1
  fi
  IDLE_OF[$key]=$(kib "$PID" VmRSS)
done
[[ $FAILED == 0 ]] || { echo "smoke/check failed" >&2; exit 1; }

# Redis commands since the last reset (the script's own CONFIG and INFO left out).
redis_commands() {
  redis-cli -p "$REDIS_PORT" info commandstats |
    awk -F'[:=,]' '/^cmdstat_/ && $1 !~ /cmdstat_(config|info)/ { n += $3 } END { print n+0 }'
}
declare -A REDIS_COMMANDS_OF
for round in $(seq "$ROUNDS"); do
  for entry in "${SERVERS[@]}"; do
    IFS='|' read -r name mode lmode cmd <<<"$entry"
    key="$name/$mode"
    for conns in "${CONNS[@]}"; do
      # A Redis row's commands are counted over its own runs (warm-up included).
      [[ $name != "ours, Redis stores" ]] || redis-cli -p "$REDIS_PORT" config resetstat >/dev/null
      line=$("${LOAD_CPU[@]}" "$BIN/loadgen" load --addr "127.0.0.1:${PORT_OF[$key]}" --mode "$lmode" \
        --conns "$conns" --secs "$SECS" --warmup "$WARMUP" --pid "${PID_OF[$key]}") || {
        echo "FAIL: $key under load ($conns conns): $line" >&2; FAILED=1; continue; }
      if [[ $name == "ours, Redis stores" ]]; then
        REDIS_COMMANDS_OF[$key]=$(( ${REDIS_COMMANDS_OF[$key]:-0} + $(redis_commands) ))
      fi
      echo "round $round  $key  conns=$conns  $line" >&2
      echo "$key|$conns|$line|$round" >>"$RESULTS"
    done
  done
done
[[ $FAILED == 0 ]] || { echo "load failed" >&2; exit 1; }
# Redis commands per request of one Redis row: what it sent under load over the requests it
# served (measured runs; the warm-ups' requests are not counted, so this errs high).
redis_per_request() { awk -F'|' -v k="$1" -v c="${REDIS_COMMANDS_OF[$1]:-0}" '$1==k { n=split($3, kv, " ");
    for (j=1;j<=n;j++) { split(kv[j], p, "="); if (p[1]=="requests") s+=p[2] } }
  END { printf "%.4f", (s>0 ? c/s : 0) }' "$RESULTS"; }

C0=${CONNS[0]}; C1=${CONNS[1]:-}
# The ceiling answers every request shape: each row is compared with the ceiling row above it,
# loaded with byte-identical requests and answering the same bytes, and with the plain 2025
# JSON ceiling row.
declare -A CEIL_KEY CEIL_OF
ceiling=""
for entry in "${SERVERS[@]}"; do
  IFS='|' read -r name mode lmode cmd <<<"$entry"
  [[ $name == "hyper (ceiling)" ]] && { CEIL_KEY[$lmode]="$name/$mode"; ceiling="$name/$mode"; }
  CEIL_OF["$name/$mode"]=$ceiling
done

echo
echo "## Load: tools/call echo, $(date -u +%Y-%m-%dT%H:%MZ), $(nproc) CPUs ($(lscpu | sed -n 's/^Model name: *//p' | head -1)), $(rustc --version | cut -d' ' -f1-2), rmcp $(awk '/name = "rmcp"/{getline; print $3}' "$ROOT/bench/Cargo.lock" | tr -d '"')"
echo "rounds=$ROUNDS secs/run=$SECS warmup=$WARMUP; server on core 0, load on core 1; one session per connection in session modes; mean (min–max over rounds); ratios to the ceiling: median (min–max) of the per-round ratios"
echo
printf '| server | mode | req/s @%s | req/s @%s | p50 µs @%s | p99 µs @%s | idle RSS KiB | peak RSS KiB | CPU µs/req @%s | vs ceiling, same requests and answers @%s | vs ceiling, 2025 JSON @%s | p99 ÷ ceiling p99, same requests and answers |\n' "$C0" "${C1:-1}" "$C0" "$C0" "$C0" "$C0" "$C0"
echo '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|'
for entry in "${SERVERS[@]}"; do
  IFS='|' read -r name mode lmode cmd <<<"$entry"
  key="$name/$mode"
  rps=$(mean "$key" "$C0" rps)
  rps1=$([[ -n $C1 ]] && printf '%.0f%s' "$(mean "$key" "$C1" rps)" "$(span "$key" "$C1" rps)" || echo -)
  same=$(round_ratio "$key" "$C0" "${CEIL_OF[$key]}" rps)
  ratio=$(round_ratio "$key" "$C0" "${CEIL_KEY[stateless]}" rps)
  p99=$(round_ratio "$key" "$C0" "${CEIL_OF[$key]}" p99_us)
  printf '| %s | %s | %.0f%s | %s | %.0f | %.0f | %s | %s | %s%s | %s | %s | %s |\n' "$name" "$mode" "$rps" "$(span "$key" "$C0" rps)" "$rps1" \
    "$(mean "$key" "$C0" p50_us)" "$(mean "$key" "$C0" p99_us)" "${IDLE_OF[$key]}" "$(maxf "$key" hwm_kib)" \
    "$(mean "$key" "$C0" cpu_us_per_req)" "$(span "$key" "$C0" cpu_us_per_req)" "$same" "$ratio" "$p99"
done
if [[ -n $REDIS ]]; then
  echo
  echo "Redis rows (the memory row above each is the same server built without the feature), Redis commands per request under load (\`INFO commandstats\` of their redis-server, $(redis-server --version | cut -d' ' -f3), over each row's own runs):"
  for entry in "${SERVERS[@]}"; do
    IFS='|' read -r name mode lmode cmd <<<"$entry"
    [[ $name == "ours, Redis stores" ]] && echo "- $mode: $(redis_per_request "$name/$mode")"
  done
fi
for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
PIDS=()

echo
echo "## Session memory (fresh process each; initialize + notifications/initialized per session, 8 connections)"
echo
printf '| server | idle RSS KiB |'; for n in "${SESSION_COUNTS[@]}"; do printf ' RSS @%s KiB |' "$n"; done
printf ' KiB/session | sessions/s @8 |\n|---|---:|'
for _ in "${SESSION_COUNTS[@]}"; do printf -- '---:|'; done; printf -- '---:|---:|\n'
i=10
# The ceiling stores nothing: its row is the rate the two HTTP exchanges alone allow.
SESSION_SERVERS=("ours|$BIN/bench-server" "rmcp sessions|$BIN/rmcp-peer --mode sessions"
  "hyper (ceiling, no state)|$BIN/hyper-peer")
[[ -z $REDIS ]] || SESSION_SERVERS=("${SESSION_SERVERS[0]}" "ours, Redis stores|$REDIS" "${SESSION_SERVERS[@]:1}")
# A fresh process with Redis stores is a fresh deployment: its Redis starts empty too (the
# sessions of the last one would count against config.sessions.max_sessions until they expire).
fresh_redis() { [[ $1 != "ours, Redis stores" ]] || redis-cli -p "$REDIS_PORT" flushall >/dev/null; }
for entry in "${SESSION_SERVERS[@]}"; do
  IFS='|' read -r name cmd <<<"$entry"
  port=$((BASE_PORT + i)); i=$((i + 1))
  fresh_redis "$name"
  # shellcheck disable=SC2086
  start "m$i" "$port" $cmd
  idle=$(kib "$PID" VmRSS); row="| $name | $idle |"; done_n=0; rate=-
  for n in "${SESSION_COUNTS[@]}"; do
    out=$("${LOAD_CPU[@]}" "$BIN/loadgen" sessions --addr "127.0.0.1:$port" --count $((n - done_n)) --conns 8) || {
      echo "FAIL: $name sessions" >&2; FAILED=1; break; }
    done_n=$n; rate=$(sed -n 's/.*per_sec=\([0-9]*\).*/\1/p' <<<"$out")
    sleep 0.2; row+=" $(kib "$PID" VmRSS) |"
  done
  last=$(kib "$PID" VmRSS)
  per=$(awk -v a="$last" -v b="$idle" -v n="$done_n" 'BEGIN { printf "%.2f", (a-b)/n }')
  echo "$row $per | $rate |"
  kill "$PID"; PIDS=()
done

# Creation rate: fresh processes in turn (ours, ceiling, ours, ceiling, ...; rmcp in the first
# round only, it is 20x slower), each given RATE_N sessions over 64 connections, the
# concurrency of the req/s column the rate is divided by. Issue #5's 50,000 sessions/s were set
# against a ~125,000 req/s ceiling, that is 0.40 of the ceiling's req/s; the CPU form (ceiling
# CPU µs per request ÷ CPU µs per session) is the same share when the server's core, not the
# load generator, is the limit.
RATES=$WORK/rates
: >"$RATES"
for round in $(seq "$ROUNDS"); do
  for entry in "${SESSION_SERVERS[@]}"; do
    IFS='|' read -r name cmd <<<"$entry"
    [[ $name == rmcp* && $round -gt 1 ]] && continue
    port=$((BASE_PORT + i)); i=$((i + 1))
    fresh_redis "$name"
    # shellcheck disable=SC2086
    start "r$i" "$port" $cmd
    [[ $name != "ours, Redis stores" ]] || redis-cli -p "$REDIS_PORT" config resetstat >/dev/null
    out=$("${LOAD_CPU[@]}" "$BIN/loadgen" sessions --addr "127.0.0.1:$port" --count "$RATE_N" --conns 64 --pid "$PID") || {
      echo "FAIL: $name sessions @64" >&2; FAILED=1; }
    [[ $name != "ours, Redis stores" ]] || SESSION_COMMANDS=$(( ${SESSION_COMMANDS:-0} + $(redis_commands) ))
    echo "round $round  $name  sessions @64  $out" >&2
    echo "$name|$(sed -n 's/.*per_sec=\([0-9]*\).*/\1/p' <<<"$out")|$(sed -n 's/.*cpu_us_per_session=\([0-9.]*\).*/\1/p' <<<"$out")" >>"$RATES"
    kill "$PID"; PIDS=()
  done
done
# median (min–max) of column C of NAME's rows in $RATES, each number printed with format F
rate_stat() { awk -F'|' -v k="$1" -v c="$2" -v f="$3" '$1==k && $c!="" { x[++m]=$c+0 }
  END { if (!m) { printf "-"; exit }
    for (i=1;i<=m;i++) for (j=i+1;j<=m;j++) if (x[j]<x[i]) { t=x[i]; x[i]=x[j]; x[j]=t }
    med=(m%2) ? x[(m+1)/2] : (x[m/2]+x[m/2+1])/2
    if (m>1) printf f " (" f "–" f ")", med, x[1], x[m]; else printf f, med }' "$RATES"; }
CEIL_RPS=$(mean "${CEIL_KEY[stateless]}" "$C0" rps)
CEIL_CPU=$(mean "${CEIL_KEY[stateless]}" "$C0" cpu_us_per_req)
echo
echo "## Session creation rate ($RATE_N sessions over 64 connections, fresh process each, $ROUNDS round(s); median (min–max))"
echo
echo "| server | sessions/s @64 | CPU µs/session | sessions/s ÷ ceiling req/s @64 (2025 JSON, $(printf '%.0f' "$CEIL_RPS")) | ceiling CPU µs/req ($CEIL_CPU) ÷ CPU µs/session |"
echo "|---|---:|---:|---:|---:|"
for entry in "${SESSION_SERVERS[@]}"; do
  IFS='|' read -r name cmd <<<"$entry"
  rate=$(rate_stat "$name" 2 %.0f); cpu=$(rate_stat "$name" 3 %.1f)
  share=$(awk -v a="${rate%% *}" -v b="$CEIL_RPS" 'BEGIN { if (a>0 && b>0) printf "%.2f", a/b; else print "-" }')
  cpu_share=$(awk -v a="$CEIL_CPU" -v b="${cpu%% *}" 'BEGIN { if (a>0 && b>0) printf "%.2f", a/b; else print "-" }')
  echo "| $name | $rate | $cpu | $share | $cpu_share |"
done
if [[ -n $REDIS ]]; then
  echo
  echo "Redis commands per session created (initialize + notifications/initialized), ours with Redis stores: $(awk -v c="${SESSION_COMMANDS:-0}" -v n=$((RATE_N * ROUNDS)) 'BEGIN { printf "%.2f", c/n }')"
fi

# Clients: each client's own CPU per tools/call (client-load, on core 1) against our server (on
# core 0), in turn, ROUNDS rounds.
CLIENT_CALLS=$([[ $SMOKE == 1 ]] && echo 2000 || echo 20000)
CLIENTS=$WORK/clients
: >"$CLIENTS"
port=$((BASE_PORT + i)); i=$((i + 1))
start "c$i" "$port" "$BIN/bench-server"
for round in $(seq "$ROUNDS"); do
  for client in ours rmcp; do
    out=$("${LOAD_CPU[@]}" "$BIN/client-load" --addr "127.0.0.1:$port" --client "$client" --calls "$CLIENT_CALLS") || {
      echo "FAIL: client-load --client $client" >&2; FAILED=1; continue; }
    echo "round $round  client $client  $out" >&2
    echo "$client|$(sed -n 's/.*cpu_us_per_call=\([0-9.]*\).*/\1/p' <<<"$out")|$(sed -n 's/.*calls_per_sec=\([0-9]*\).*/\1/p' <<<"$out")" >>"$CLIENTS"
  done
done
kill "$PID"; PIDS=()
echo
echo "## Clients: a client's own CPU per tools/call ($CLIENT_CALLS calls in a row, one session, against ours; $ROUNDS round(s); median (min–max))"
echo
echo "| client | CPU µs/call (client process) | calls/s |"
echo "|---|---:|---:|"
for client in ours rmcp; do
  name=$([[ $client == ours ]] && echo "ours (mcp_runtime::client)" || echo "rmcp $(awk '/name = "rmcp"/{getline; print $3}' "$ROOT/bench/Cargo.lock" | tr -d '"')")
  cpu=$(awk -F'|' -v k="$client" '$1==k { x[++m]=$2+0 } END { if (!m) { printf "-"; exit }
    for (i=1;i<=m;i++) for (j=i+1;j<=m;j++) if (x[j]<x[i]) { t=x[i]; x[i]=x[j]; x[j]=t }
    med=(m%2) ? x[(m+1)/2] : (x[m/2]+x[m/2+1])/2; if (m>1) printf "%.1f (%.1f–%.1f)", med, x[1], x[m]; else printf "%.1f", med }' "$CLIENTS")
  rate=$(awk -F'|' -v k="$client" '$1==k { s+=$3; m++ } END { if (m) printf "%.0f", s/m; else printf "-" }' "$CLIENTS")
  echo "| $name | $cpu | $rate |"
done

gateway_table
[[ $FAILED == 0 ]] || exit 1
echo
echo "bench/run.sh$([[ $SMOKE == 1 ]] && echo ' --smoke'): $(($(date +%s) - BUILT)) s after the build" >&2
rm -rf "$WORK"
