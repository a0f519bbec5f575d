#!/usr/bin/env bash
# bench/redis-cluster.sh — three instances behind nginx on one redis-server against the same on
# a Redis Cluster of 3 masters and 3 replicas (tests/scale-out/cluster.sh starts each), with and
# without --redis-wait-replicas 1: session-era calls through nginx (req/s, Redis commands per
# call) and session creations through nginx (sessions/s, Redis commands per session).
#
# usage: bench/redis-cluster.sh
#   ROUNDS=2 SECS=5 CONNS=32 SESSIONS=3000   (defaults) rounds of the three deployments in turn
#   BENCH_PROFILE=dev                        debug builds (as bench/run.sh)
# Needs redis-server, redis-cli and nginx (tests/scale-out/cluster.sh --install-only).
# Prints a Markdown table: per deployment, the median (min–max) over the rounds.
# Everything (processes and loads) shares the machine's cores: compare rows, not absolutes.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/.." && pwd)"
ROUNDS=${ROUNDS:-2} SECS=${SECS:-5} CONNS=${CONNS:-32} SESSIONS=${SESSIONS:-3000}
profile=${BENCH_PROFILE:-release}
dir=$([[ $profile == dev ]] && echo debug || echo release)
# One target directory for both workspaces, as bench/run.sh.
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-$root/target}
(cd "$root" && cargo build -q --profile "$profile" -p bench-server --features redis)
(cd "$root/bench" && cargo build -q --profile "$profile" --bin loadgen)
"$root/tests/scale-out/cluster.sh" --install-only
BIN="$CARGO_TARGET_DIR/$dir"
WORK=$(mktemp -d)
cluster_pid=""
stop() {
  [[ -z $cluster_pid ]] || { kill -TERM "$cluster_pid" 2>/dev/null || true; wait "$cluster_pid" 2>/dev/null || true; }
  cluster_pid=""
}
trap 'stop; rm -rf "$WORK"' EXIT

# Redis commands since the last reset, on every master of the deployment (INFO and CONFIG left out;
# a replica's commands are its master's, replicated).
value() { sed -n "s/^$1=//p" "$WORK/state"; }
nodes() {
  if [[ $(value redis_cluster) == 1 ]]; then for n in $(value redis_nodes); do echo "${n%%:*}"; done
  else value redis_port; fi
}
reset() { for p in $(nodes); do redis-cli -p "$p" config resetstat >/dev/null; done; }
commands() {
  for p in $(nodes); do
    redis-cli -p "$p" info replication | grep -q '^role:master' && redis-cli -p "$p" info commandstats
  done |
  awk -F'[:=,]' '/^cmdstat_/ && $1 !~ /cmdstat_(config|info|cluster|ping|command|replconf)/ { n += $3 } END { print n+0 }'
}
field() { sed -n "s/.*$1=\([0-9.]*\).*/\1/p" <<<"$2"; }

RESULTS=$WORK/results
: >"$RESULTS"
deployments=("one Redis|" "Cluster|SCALE_OUT_REDIS_CLUSTER=1 SCALE_OUT_WAIT_REPLICAS=0"
  "Cluster, --redis-wait-replicas 1|SCALE_OUT_REDIS_CLUSTER=1 SCALE_OUT_WAIT_REPLICAS=1")
for round in $(seq "$ROUNDS"); do
  for entry in "${deployments[@]}"; do
    IFS='|' read -r name envs <<<"$entry"
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    rm -f "$WORK/state"
    # shellcheck disable=SC2086
    env SCALE_OUT_STATE="$WORK/state" RUST_LOG=warn $envs \
      "$root/tests/scale-out/cluster.sh" "$port" "$BIN/bench-server" 2>"$WORK/cluster.log" &
    cluster_pid=$!
    for _ in $(seq 600); do [[ -f $WORK/state ]] && break; sleep 0.1; done
    [[ -f $WORK/state ]] || { tail -20 "$WORK/cluster.log" >&2; exit 1; }
    reset
    calls=$("$BIN/loadgen" load --addr "127.0.0.1:$port" --mode session --conns "$CONNS" --secs "$SECS" --warmup 1)
    per_call=$(awk -v c="$(commands)" -v n="$(field requests "$calls")" 'BEGIN { printf "%.4f", (n > 0 ? c / n : 0) }')
    reset
    created=$("$BIN/loadgen" sessions --addr "127.0.0.1:$port" --count "$SESSIONS" --conns 64)
    per_session=$(awk -v c="$(commands)" -v n="$SESSIONS" 'BEGIN { printf "%.2f", c / n }')
    echo "round $round  $name  $calls  |  $created  |  commands/call $per_call, /session $per_session" >&2
    echo "$name|$(field rps "$calls")|$per_call|$(field per_sec "$created")|$per_session" >>"$RESULTS"
    stop
  done
done

stat() { awk -F'|' -v k="$1" -v c="$2" -v f="$3" '$1==k { x[++m]=$c+0 }
  END { for (i=1;i<=m;i++) for (j=i+1;j<=m;j++) if (x[j]<x[i]) { t=x[i]; x[i]=x[j]; x[j]=t }
    med=(m%2) ? x[(m+1)/2] : (x[m/2]+x[m/2+1])/2
    if (m>1) printf f " (" f "–" f ")", med, x[1], x[m]; else printf f, med }' "$RESULTS"; }
echo
echo "| deployment (3 instances behind nginx) | session calls, req/s @$CONNS | Redis commands per call | session creations, sessions/s @64 | Redis commands per session |"
echo "|---|---:|---:|---:|---:|"
for entry in "${deployments[@]}"; do
  name=${entry%%|*}
  echo "| $name | $(stat "$name" 2 %.0f) | $(stat "$name" 3 %.4f) | $(stat "$name" 4 %.0f) | $(stat "$name" 5 %.2f) |"
done
