#!/usr/bin/env bash
# tests/scale-out/run.sh — CI entry point for scale-out: three instances of the everything-server
# sharing tasks and notifications through one Redis, behind nginx round robin with no
# stickiness (tests/scale-out/cluster.sh starts them; it installs redis-server and nginx from the
# Debian packages when they are missing). Runs:
#   (a) the official conformance suite through nginx, every check must pass: (a1) the session era
#       as .ci/run runs it (--suite all at 2025-03-26, 2025-06-18, 2025-11-25, --requirements
#       2025-11-25: sessions shared through Redis), (a2) --suite all and --requirements at
#       2026-07-28, and every tasks-* scenario .ci/run lists;
#   (b) tests/scale-out/scenarios.mjs against a cluster of its own, talking to each instance
#       directly where a scenario names instances (a task started on A, polled and answered
#       through B, cancelled through C; a listen stream on A hearing a list change made on C;
#       a session initialized on A serving calls on B and C, an elicitation on A answered
#       through B, a DELETE on B making it 404 on A and C; a POST stream of A resumed on B;
#       a GET stream on A resumed through nginx after A was killed;
#       Redis killed and started again while plain calls run through nginx);
#   (c) a negative control, once: the cross-instance task and session scenarios against a
#       cluster WITHOUT Redis (SCALE_OUT_NO_REDIS=1) must fail where the state is not shared
#       (proves (b) can fail);
#   (d) (a) and (b) again on a Redis Cluster of 3 masters and 3 replicas
#       (SCALE_OUT_REDIS_CLUSTER=1: --redis-cluster, --redis-wait-replicas 1): both eras of the
#       conformance suite through nginx, and the scenarios with master-failover (the master holding
#       most sessions and tasks killed with SIGKILL under load; every acknowledged one read back)
#       in place of redis-outage.
# Node >= 22 and the suite come from the conformance cache (`conformance/run.sh --install-only`).
#
# usage: tests/scale-out/run.sh [EVERYTHING_SERVER_BINARY]
#        (default: ${CARGO_TARGET_DIR:-target}/debug/everything-server, built with the redis
#        feature: it must have --redis)
# Logs and results: target/scale-out/<UTC stamp>/ (the clusters' directories are kept there).
# Output: a line per part; the LAST line is `N passed, M failed` (conformance checks + scenario
# steps + 1 for the negative control). Exit 0 only when M == 0.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
server="${1:-$target/debug/everything-server}"
case "$server" in /*) ;; *) server="$(pwd)/$server" ;; esac

# The clusters are configured here, not by the caller's environment.
unset SCALE_OUT_INSTANCES SCALE_OUT_NO_REDIS SCALE_OUT_STATE SCALE_OUT_DIR SCALE_OUT_REDIS_CLUSTER SCALE_OUT_WAIT_REPLICAS

log() { echo "[scale-out] $*" >&2; }
die() { log "ERROR: $*"; echo "0 passed, 1 failed"; exit 2; }

[ -x "$server" ] || die "no everything-server binary at $server (cargo build -p everything-server --features redis)"
# (The help is read whole first: `grep -q` leaving early would SIGPIPE the server, and pipefail fail.)
help="$("$server" --help 2>&1 || true)"
# The --redis entry of the help, up to the next flag: a build without the feature says so there.
redis_help="$(awk '/--redis <URL>/ { on = 1; print; next } /^ +--/ { on = 0 } on' <<<"$help")"
if [ -z "$redis_help" ] || grep -q 'NOT IN THIS BUILD' <<<"$redis_help"; then
  die "$server cannot use --redis: build it with the redis feature (cargo build -p everything-server --features redis)"
fi

# ---- what the parts need ----------------------------------------------------------------------------
"$here/cluster.sh" --install-only || die "could not install redis-server and nginx"
"$root/conformance/run.sh" --install-only >/dev/null || die "conformance/run.sh --install-only failed"
. "$root/conformance/env.sh"
conformance_env || die "the conformance install is incomplete"
node=$CONFORMANCE_NODE

# The tasks-* scenarios exactly as .ci/run lists them.
tasks_scenarios="$(grep -oE '\btasks-[a-z0-9]+(-[a-z0-9]+)*' "$root/.ci/run" | awk '!seen[$0]++' | tr '\n' ' ')"
[ -n "${tasks_scenarios// /}" ] || die "found no tasks-* scenario in .ci/run"

out="$target/scale-out/$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$out"
total_p=0; total_f=0
summary=()

# ---- a cluster of our own (parts b and c) -------------------------------------------------------------
cluster_pid=""
stop_cluster() {
  [ -n "$cluster_pid" ] || return 0
  if kill -0 "$cluster_pid" 2>/dev/null; then
    kill -TERM "$cluster_pid" 2>/dev/null || true
    for _ in $(seq 150); do kill -0 "$cluster_pid" 2>/dev/null || break; sleep 0.1; done
    # Its own process group (set -m below): whatever is left of it.
    kill -KILL -- "-$cluster_pid" 2>/dev/null || true
  fi
  wait "$cluster_pid" 2>/dev/null || true
  cluster_pid=""
}
trap stop_cluster EXIT
trap 'log "interrupted"; exit 130' INT TERM

# start_cluster NAME [ENV=VALUE ...]: a cluster with its directory and state file under $out/NAME;
# sets $state once everything answers.
start_cluster() {
  local name="$1" port
  shift
  port="$("$node" -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
  state="$out/$name/state"
  mkdir -p "$out/$name"
  set -m
  env SCALE_OUT_DIR="$out/$name" SCALE_OUT_STATE="$state" "$@" \
    "$here/cluster.sh" "$port" "$server" </dev/null >"$out/$name/cluster.log" 2>&1 &
  cluster_pid=$!
  set +m
  for _ in $(seq 1200); do
    [ -f "$state" ] && return 0
    kill -0 "$cluster_pid" 2>/dev/null || break
    sleep 0.1
  done
  tail -n 20 "$out/$name/cluster.log" >&2 || true
  return 1
}

# ---- (a) the conformance suite through nginx ---------------------------------------------------------
# conformance_through_nginx PART NAME [conformance/run.sh options...]: one conformance/run.sh run
# against a cluster of its own, counted into the totals and the summary.
# The clusters' environment beyond their directory (part d: SCALE_OUT_REDIS_CLUSTER=1).
cluster_env=()
conformance_through_nginx() {
  local part="$1" name="$2" rc=0 last p f
  shift 2
  log "($part) conformance through nginx: $*"
  env SCALE_OUT_DIR="$out/$name-cluster" SCALE_OUT_STATE="" "${cluster_env[@]}" "$root/conformance/run.sh" \
    --server-cmd "tests/scale-out/cluster.sh \$PORT $(printf '%q' "$server")" \
    "$@" --out-dir "$out/$name" >"$out/$name.out" 2>"$out/$name.log" || rc=$?
  grep -vE '^\[conformance\]' "$out/$name.out" | sed '$d' || true
  last="$(tail -n 1 "$out/$name.out")"
  if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}
    # A run that failed without failing a check (start-up, a crashed suite) still fails the part.
    [ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
  else
    p=0; f=1; tail -n 20 "$out/$name.log" >&2 || true
  fi
  total_p=$((total_p + p)); total_f=$((total_f + f))
  summary+=("($part) conformance through nginx, $name (3 instances, ${redis_kind:-shared Redis}): $p passed, $f failed (exit $rc; $out/$name)")
}
# The session era exactly as .ci/run's first conformance step runs it (conformance/run.sh's
# default versions and requirements): sessions are shared through Redis, so a session
# initialized on one instance serves requests nginx sends to the others.
conformance_through_nginx a1 conformance-session-era
conformance_through_nginx a2 conformance --versions 2026-07-28 --requirements 2026-07-28 \
  --scenario-list "$tasks_scenarios"

# ---- (b) the scale-out scenarios ----------------------------------------------------------------------
# scenarios PART NAME WHAT [ENV=VALUE ...]: scenarios.mjs (every scenario that fits) against a
# cluster of its own.
scenarios() {
  local part="$1" name="$2" what="$3" rc p f last
  shift 3
  log "($part) scenarios.mjs against $what"
  if start_cluster "$name" "$@"; then
    rc=0
    "$node" "$here/scenarios.mjs" "$state" | tee "$out/$name.out" || rc=$?
    stop_cluster
    last="$(tail -n 1 "$out/$name.out")"
    if [[ "$last" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
      p=${BASH_REMATCH[1]}; f=${BASH_REMATCH[2]}
      [ "$rc" = 0 ] || [ "$f" -gt 0 ] || f=1
    else
      p=0; f=1
    fi
  else
    stop_cluster
    p=0; f=1; log "the cluster did not start (see $out/$name/cluster.log)"
  fi
  total_p=$((total_p + p)); total_f=$((total_f + f))
  summary+=("($part) scenarios, $what: $p passed, $f failed ($out/$name)")
}
scenarios b cluster-redis "3 instances sharing Redis"

# ---- (c) negative control ------------------------------------------------------------------------------
log "(c) negative control: the cross-instance task and session scenarios WITHOUT Redis must fail"
if start_cluster cluster-no-redis SCALE_OUT_NO_REDIS=1; then
  rc=0
  "$node" "$here/scenarios.mjs" "$state" --only task-across-instances,session-across-instances >"$out/negative.out" || rc=$?
  stop_cluster
  sed 's/^/    | /' "$out/negative.out"
  # It must fail for the right reasons: the task starts on A, and B does not know it; the
  # session is initialized on A, and B does not know it.
  if [ "$rc" != 0 ] &&
     grep -q '^PASS task-across-instances: multi_input started on A is a task' "$out/negative.out" &&
     grep -q '^FAIL task-across-instances: tasks/get through B' "$out/negative.out" &&
     grep -q '^PASS session-across-instances: initialize on A gives a session id' "$out/negative.out" &&
     grep -q "^FAIL session-across-instances: tools/call test_simple_text on B in A's session" "$out/negative.out"; then
    p=1; f=0; verdict="failed as it must (B finds neither a task started on A nor a session initialized on A)"
  else
    p=0; f=1; verdict="did NOT fail as expected (exit $rc): the scenario cannot tell shared state from none"
  fi
else
  stop_cluster
  p=0; f=1; verdict="the cluster did not start (see $out/cluster-no-redis/cluster.log)"
fi
total_p=$((total_p + p)); total_f=$((total_f + f))
summary+=("(c) negative control without Redis: $verdict")

# ---- (d) a Redis Cluster -------------------------------------------------------------------------------
# The same deployment on a Redis Cluster of 3 masters and 3 replicas (cluster.sh
# SCALE_OUT_REDIS_CLUSTER=1; the instances wait for a replica before acknowledging a session or a
# task): both eras of the conformance suite, and the scenarios, where a master is killed under load
# (master-failover) instead of the one redis-server (redis-outage).
cluster_env=(SCALE_OUT_REDIS_CLUSTER=1)
redis_kind="a Redis Cluster"
conformance_through_nginx d1 cluster-conformance-session-era
conformance_through_nginx d2 cluster-conformance --versions 2026-07-28 --requirements 2026-07-28 \
  --scenario-list "$tasks_scenarios"
scenarios d3 cluster-redis-cluster "3 instances sharing a Redis Cluster (3 masters, 3 replicas)" \
  SCALE_OUT_REDIS_CLUSTER=1

echo
printf '%s\n' "${summary[@]}"
log "results and logs under $out"
echo "$total_p passed, $total_f failed"
[ "$total_f" -eq 0 ]
