#!/usr/bin/env bash
# tests/scale-out/cluster.sh — a scale-out deployment on loopback: one redis-server, N instances
# of an MCP server sharing it (`--redis`), and nginx in front of them, round robin with no
# stickiness. Everything listens on 127.0.0.1 and lives in a temporary directory; the script
# stays in the foreground until TERM or INT, then stops everything it started. Made to be a
# conformance server command:
#
#   conformance/run.sh --server-cmd "tests/scale-out/cluster.sh \$PORT"
#
# Usage:
#   tests/scale-out/cluster.sh PORT [SERVER_BINARY]   nginx on 127.0.0.1:PORT (/mcp and every other
#                                                     path go to the instances). SERVER_BINARY
#                                                     default: ${CARGO_TARGET_DIR:-target}/debug/everything-server
#   tests/scale-out/cluster.sh --install-only         install redis-server and nginx if missing, print
#                                                     their versions, exit
#
# Installs redis-server and nginx from the Debian packages (apt-get, as root) only when
# `command -v` does not find them; their services are kept from starting (policy-rc.d) while
# they install.
#
# Environment:
#   SCALE_OUT_INSTANCES=N   how many instances (default 3)
#   SCALE_OUT_NO_REDIS=1    no redis-server, instances without --redis (each keeps its own state:
#                           shows what fails without shared state)
#   SCALE_OUT_REDIS_CLUSTER=1  a Redis Cluster instead of one redis-server: 3 masters and 3
#                           replicas (redis-cli --cluster create), cluster-node-timeout 1000 ms and
#                           cluster-replica-validity-factor 0 (a replica fresh from its first sync
#                           may fail over on loopback), ports below 55536 (the bus is port + 10000);
#                           the instances get --redis-cluster, every node's URL and
#                           --redis-wait-replicas ${SCALE_OUT_WAIT_REPLICAS:-1}
#   SCALE_OUT_STATE=FILE    written (atomically) once everything answers, and again after each
#                           redis restart: shell `key=value` lines, cluster_pid, dir, nginx_port,
#                           nginx_pid, redis_port, redis_pid (empty without redis), redis_generation,
#                           instances, instance_<i>_port, instance_<i>_pid, instance_<i>_log (i = 1..N);
#                           with a Redis Cluster also redis_cluster=1 and redis_nodes="PORT:PID ..."
#                           (redis_port and redis_pid are then the first node's).
#                           Removed at exit.
#   SCALE_OUT_DIR=DIR       keep the logs, configs and redis files there (created; not removed);
#                           default: a mktemp directory, removed at exit
#   RUST_LOG                passed to the instances (default info)
#
# Signals: TERM/INT stop everything and exit 0. USR1 starts redis-server again on the same port
# (after a test killed it, pid from SCALE_OUT_STATE) and rewrites the state file once it answers;
# with a Redis Cluster, every node that exited, on its port with its nodes.conf (it rejoins, as
# a replica when it was failed over).
# If nginx exits, the script stops everything and exits 1; an instance or redis that exits is
# logged, not restarted (the tests kill them on purpose).
#
# Logs: this script's own lines go to stderr prefixed [scale-out]; instance-<i>.log, redis.log,
# nginx-error.log and access.log (with the upstream that served each request) are in the directory.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"

log() { echo "[scale-out] $*" >&2; }
die() { log "ERROR: $*"; exit 2; }
print_usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; }

# ---- install -----------------------------------------------------------------------------------
# nginx lives in /usr/sbin, which is not on every user's PATH.
find_tool() { command -v "$1" 2>/dev/null || { [ -x "/usr/sbin/$1" ] && echo "/usr/sbin/$1"; } || true; }

install_missing() {
  local missing=()
  [ -n "$(find_tool redis-server)" ] || missing+=(redis-server)
  [ -n "$(find_tool nginx)" ] || missing+=(nginx)
  if [ ${#missing[@]} -gt 0 ]; then
    [ "$(id -u)" = 0 ] || die "${missing[*]} not installed, and installing needs root: apt-get install -y --no-install-recommends ${missing[*]}"
    log "installing ${missing[*]} (apt-get)"
    # Keep the packages' services (a redis on 6379, an nginx on 80) from starting on install.
    local policy=/usr/sbin/policy-rc.d made_policy=0
    if [ ! -e "$policy" ]; then
      printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && made_policy=1
    fi
    local rc=0
    { DEBIAN_FRONTEND=noninteractive apt-get update -q &&
      DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"; } >&2 || rc=$?
    [ "$made_policy" = 0 ] || rm -f "$policy"
    [ "$rc" = 0 ] || die "apt-get install ${missing[*]} failed (status $rc)"
  fi
  REDIS_SERVER="$(find_tool redis-server)"
  NGINX="$(find_tool nginx)"
  [ -n "$REDIS_SERVER" ] || die "redis-server not found after installing"
  [ -n "$NGINX" ] || die "nginx not found after installing"
  log "$("$REDIS_SERVER" --version | head -n 1)"
  log "$("$NGINX" -v 2>&1 | head -n 1)"
}

case "${1:-}" in
  --install-only) install_missing; exit 0 ;;
  -h|--help) print_usage; exit 0 ;;
  ''|-*) print_usage >&2; die "usage: cluster.sh PORT [SERVER_BINARY]" ;;
esac
PORT="$1"
[[ "$PORT" =~ ^[0-9]+$ ]] || die "PORT must be a number: $PORT"
target="${CARGO_TARGET_DIR:-$root/target}"
case "$target" in /*) ;; *) target="$root/$target" ;; esac
SERVER="${2:-$target/debug/everything-server}"
[ -x "$SERVER" ] || die "no server binary at $SERVER (cargo build -p everything-server)"
INSTANCES="${SCALE_OUT_INSTANCES:-3}"
[[ "$INSTANCES" =~ ^[1-9][0-9]*$ ]] || die "SCALE_OUT_INSTANCES must be a positive number: $INSTANCES"
NO_REDIS="${SCALE_OUT_NO_REDIS:-}"
[ "$NO_REDIS" = 1 ] || NO_REDIS=""
REDIS_CLUSTER="${SCALE_OUT_REDIS_CLUSTER:-}"
[ "$REDIS_CLUSTER" = 1 ] || REDIS_CLUSTER=""
[ -z "$NO_REDIS" ] || [ -z "$REDIS_CLUSTER" ] || die "SCALE_OUT_NO_REDIS=1 and SCALE_OUT_REDIS_CLUSTER=1 exclude each other"
STATE="${SCALE_OUT_STATE:-}"

# (The help is read whole first: `grep -q` leaving early would SIGPIPE the server, and pipefail fail.)
if [ -z "$NO_REDIS" ] && ! grep -q -- '--redis' <<<"$("$SERVER" --help 2>&1 || true)"; then
  die "$SERVER has no --redis flag (build it with the redis feature, or set SCALE_OUT_NO_REDIS=1)"
fi
install_missing

# ---- the directory, the processes, the cleanup ----------------------------------------------------
KEEP_DIR=0
if [ -n "${SCALE_OUT_DIR:-}" ]; then
  mkdir -p "$SCALE_OUT_DIR"; DIR="$(cd "$SCALE_OUT_DIR" && pwd)"; KEEP_DIR=1
else
  DIR="$(mktemp -d "${TMPDIR:-/tmp}/scale-out.XXXXXX")"
fi

REDIS_PID=""; REDIS_PORT=""; REDIS_GENERATION=0; NGINX_PID=""; SLEEP_PID=""
INSTANCE_PIDS=(); INSTANCE_PORTS=()
NODE_PORTS=(); NODE_PIDS=()
STOPPING=0

# stop_pid PID NAME: TERM, up to 5 s, then KILL; reaps it.
stop_pid() {
  local pid="$1"
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  fi
  wait "$pid" 2>/dev/null || true
}

cleanup() {
  [ "$STOPPING" = 0 ] || return 0
  STOPPING=1
  trap '' USR1
  [ -z "$SLEEP_PID" ] || kill "$SLEEP_PID" 2>/dev/null || true
  # nginx first (no new requests), then the instances (all at once: each takes its grace), redis last.
  stop_pid "$NGINX_PID"
  local pid
  for pid in "${INSTANCE_PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${INSTANCE_PIDS[@]}"; do stop_pid "$pid"; done
  if [ -n "$REDIS_CLUSTER" ]; then
    for pid in "${NODE_PIDS[@]}"; do stop_pid "$pid"; done
  else
    stop_pid "$REDIS_PID"
  fi
  [ -z "$STATE" ] || rm -f "$STATE" "$STATE.tmp"
  if [ "$KEEP_DIR" = 1 ]; then log "stopped; logs in $DIR"; else rm -rf "$DIR"; log "stopped"; fi
}
trap cleanup EXIT
trap 'exit 0' TERM INT

# A free loopback port: a random one nothing answers on and that this script has not handed out.
# (Racy in theory; a start that fails to bind is retried on another port.)
USED_PORTS=" $PORT "
# A Redis Cluster node's bus listens on its port + 10000: those stay below 55536.
free_port() {
  local p span=40000
  [ -z "$REDIS_CLUSTER" ] || span=35000
  while :; do
    p=$(( 20000 + (RANDOM * 32768 + RANDOM) % span ))
    case "$USED_PORTS" in *" $p "*) continue ;; esac
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue
    # A cluster node's bus port must be free too.
    if [ -n "$REDIS_CLUSTER" ]; then
      case "$USED_PORTS" in *" $((p + 10000)) "*) continue ;; esac
      (exec 3<>"/dev/tcp/127.0.0.1/$((p + 10000))") 2>/dev/null && continue
      USED_PORTS+="$((p + 10000)) "
    fi
    USED_PORTS+="$p "
    echo "$p"; return 0
  done
}

# wait_listening PID PORT SECONDS: 0 once PORT accepts, 1 if PID exited, 2 on time-out.
wait_listening() {
  local pid="$1" port="$2" deadline=$(( $(date +%s) + $3 ))
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || return 1
    [ "$(date +%s)" -lt "$deadline" ] || return 2
    sleep 0.05
  done
}

redis_ping() {
  local reply="" port="${1:-$REDIS_PORT}"
  { exec 4<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
  printf 'PING\r\n' >&4
  IFS= read -r -t 2 reply <&4 || true
  exec 4<&- 4>&-
  [ "${reply%$'\r'}" = "+PONG" ]
}

start_redis() {
  local attempt
  for attempt in 1 2 3 4 5; do
    [ -n "$REDIS_PORT" ] || REDIS_PORT=$(free_port)
    # No persistence, nothing outside $DIR; the pid is ours (daemonize no).
    "$REDIS_SERVER" --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no --dir "$DIR" \
      --daemonize no --protected-mode yes --logfile '' </dev/null >>"$DIR/redis.log" 2>&1 &
    REDIS_PID=$!
    if wait_listening "$REDIS_PID" "$REDIS_PORT" 10; then
      for _ in $(seq 100); do redis_ping && break; sleep 0.05; done
      redis_ping || die "redis-server on 127.0.0.1:$REDIS_PORT does not answer PING (see $DIR/redis.log)"
      REDIS_GENERATION=$((REDIS_GENERATION + 1))
      log "redis-server pid $REDIS_PID on 127.0.0.1:$REDIS_PORT (generation $REDIS_GENERATION)"
      return 0
    fi
    stop_pid "$REDIS_PID"; REDIS_PID=""
    # A restart must keep its port; only the first start may move to another.
    [ "$REDIS_GENERATION" = 0 ] || break
    log "redis-server did not start on $REDIS_PORT (attempt $attempt), trying another port"
    REDIS_PORT=""
  done
  tail -n 20 "$DIR/redis.log" >&2 || true
  die "redis-server did not start (see $DIR/redis.log)"
}

# start_node I: cluster node I (0..5) on NODE_PORTS[I] (chosen at its first start), its files in
# $DIR/node-<port>/ (nodes.conf kept across restarts: a restarted node rejoins).
start_node() {
  local i="$1" port="${NODE_PORTS[$1]:-}" attempt
  for attempt in 1 2 3 4 5; do
    [ -n "$port" ] || port=$(free_port)
    mkdir -p "$DIR/node-$port"
    "$REDIS_SERVER" --bind 127.0.0.1 --port "$port" --save '' --appendonly no --dir "$DIR/node-$port" \
      --daemonize no --protected-mode yes --logfile '' --cluster-enabled yes \
      --cluster-config-file nodes.conf --cluster-node-timeout 1000 \
      --cluster-replica-validity-factor 0 </dev/null >>"$DIR/node-$port/redis.log" 2>&1 &
    NODE_PIDS[$i]=$!
    if wait_listening "${NODE_PIDS[$i]}" "$port" 10; then
      for _ in $(seq 100); do redis_ping "$port" && break; sleep 0.05; done
      redis_ping "$port" || die "cluster node on 127.0.0.1:$port does not answer PING (see $DIR/node-$port/redis.log)"
      NODE_PORTS[$i]=$port
      log "cluster node $i pid ${NODE_PIDS[$i]} on 127.0.0.1:$port"
      return 0
    fi
    stop_pid "${NODE_PIDS[$i]}"
    log "cluster node $i did not start on $port (attempt $attempt): $(tail -n 1 "$DIR/node-$port/redis.log" 2>/dev/null)"
    [ -z "${NODE_PORTS[$i]:-}" ] || break
    port=""
  done
  die "cluster node $i did not start (see $DIR/node-*/redis.log)"
}

# A Redis Cluster of 6 nodes: 3 masters, each with a replica; returns once every node says
# cluster_state:ok.
start_redis_cluster() {
  local i addrs=() port state ok
  for i in 0 1 2 3 4 5; do start_node "$i"; addrs+=("127.0.0.1:${NODE_PORTS[$i]}"); done
  "$REDIS_CLI" --cluster create "${addrs[@]}" --cluster-replicas 1 --cluster-yes \
    >"$DIR/cluster-create.log" 2>&1 || { tail -n 20 "$DIR/cluster-create.log" >&2; die "redis-cli --cluster create failed"; }
  for _ in $(seq 200); do
    ok=1
    for port in "${NODE_PORTS[@]}"; do
      state="$("$REDIS_CLI" -p "$port" cluster info 2>/dev/null | tr -d '\r' | grep '^cluster_state:' || true)"
      [ "$state" = "cluster_state:ok" ] || { ok=0; break; }
    done
    [ "$ok" = 0 ] || break
    sleep 0.1
  done
  [ "$ok" = 1 ] || die "the Redis Cluster did not reach cluster_state:ok within 20 s (see $DIR/cluster-create.log)"
  # And every replica synced with its master (a write waiting for a replica would time out).
  for _ in $(seq 200); do
    ok=1
    for port in "${NODE_PORTS[@]}"; do
      state="$("$REDIS_CLI" -p "$port" info replication 2>/dev/null | tr -d '\r')"
      case "$state" in
        *role:master*) grep -q '^connected_slaves:1$' <<<"$state" || { ok=0; break; } ;;
        *) grep -q '^master_link_status:up$' <<<"$state" || { ok=0; break; } ;;
      esac
    done
    [ "$ok" = 0 ] || break
    sleep 0.1
  done
  [ "$ok" = 1 ] || die "the Redis Cluster's replicas did not sync within 20 s"
  REDIS_PORT=${NODE_PORTS[0]}; REDIS_PID=${NODE_PIDS[0]}
  REDIS_GENERATION=$((REDIS_GENERATION + 1))
  log "Redis Cluster of 6 nodes (3 masters, 3 replicas) on ports ${NODE_PORTS[*]}"
}

restart_dead_nodes() {
  local i
  for i in "${!NODE_PIDS[@]}"; do
    kill -0 "${NODE_PIDS[$i]}" 2>/dev/null && continue
    wait "${NODE_PIDS[$i]}" 2>/dev/null || true
    log "USR1: starting cluster node $i again on 127.0.0.1:${NODE_PORTS[$i]}"
    start_node "$i"
  done
  REDIS_PID=${NODE_PIDS[0]}
  REDIS_GENERATION=$((REDIS_GENERATION + 1))
}

write_state() {
  [ -n "$STATE" ] || return 0
  {
    echo "cluster_pid=$$"
    echo "dir=$DIR"
    echo "nginx_port=$PORT"
    echo "nginx_pid=$NGINX_PID"
    echo "redis_port=$REDIS_PORT"
    echo "redis_pid=$REDIS_PID"
    echo "redis_generation=$REDIS_GENERATION"
    echo "instances=$INSTANCES"
    if [ -n "$REDIS_CLUSTER" ]; then
      echo "redis_cluster=1"
      local nodes="" n
      for n in "${!NODE_PORTS[@]}"; do nodes+="${NODE_PORTS[$n]}:${NODE_PIDS[$n]} "; done
      echo "redis_nodes=${nodes% }"
    fi
    local i
    for i in $(seq "$INSTANCES"); do
      echo "instance_${i}_port=${INSTANCE_PORTS[$((i - 1))]}"
      echo "instance_${i}_pid=${INSTANCE_PIDS[$((i - 1))]}"
      echo "instance_${i}_log=$DIR/instance-$i.log"
    done
  } >"$STATE.tmp"
  mv -f "$STATE.tmp" "$STATE"
}

# ---- redis ----------------------------------------------------------------------------------------
if [ -n "$REDIS_CLUSTER" ]; then
  REDIS_CLI="$(find_tool redis-cli)"
  [ -n "$REDIS_CLI" ] || die "redis-cli not found (it comes with redis-server's package, redis-tools)"
  start_redis_cluster
elif [ -z "$NO_REDIS" ]; then
  start_redis
else
  log "SCALE_OUT_NO_REDIS=1: no redis; every instance keeps its own state"
fi

# ---- the instances ----------------------------------------------------------------------------------
# One sealing key for every instance (a requestState sealed by one is opened by another).
if command -v openssl >/dev/null; then
  MCP_REQUEST_STATE_KEY="$(openssl rand -hex 32)"
else
  MCP_REQUEST_STATE_KEY="$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')"
fi
export MCP_REQUEST_STATE_KEY
export RUST_LOG="${RUST_LOG:-info}"
unset MCP_REDIS_URL

for i in $(seq "$INSTANCES"); do
  started=0
  for attempt in 1 2 3 4 5; do
    port=$(free_port)
    args=(--addr "127.0.0.1:$port")
    if [ -n "$REDIS_CLUSTER" ]; then
      seeds=""
      for node_port in "${NODE_PORTS[@]}"; do seeds+="redis://127.0.0.1:$node_port/,"; done
      args+=(--redis "${seeds%,}" --redis-cluster --redis-wait-replicas "${SCALE_OUT_WAIT_REPLICAS:-1}")
    elif [ -z "$NO_REDIS" ]; then
      args+=(--redis "redis://127.0.0.1:$REDIS_PORT/")
    fi
    echo "== $(date -u +%FT%TZ) start: $SERVER ${args[*]}" >>"$DIR/instance-$i.log"
    "$SERVER" "${args[@]}" </dev/null >>"$DIR/instance-$i.log" 2>&1 &
    pid=$!
    rc=0; wait_listening "$pid" "$port" 60 || rc=$?
    if [ "$rc" = 0 ]; then started=1; break; fi
    stop_pid "$pid"
    [ "$rc" = 1 ] && grep -qi 'address.*in use' "$DIR/instance-$i.log" && {
      log "instance $i: port $port was taken (attempt $attempt), trying another"; continue; }
    tail -n 20 "$DIR/instance-$i.log" >&2 || true
    die "instance $i did not start on 127.0.0.1:$port (see $DIR/instance-$i.log)"
  done
  [ "$started" = 1 ] || die "instance $i: no free port after 5 attempts"
  INSTANCE_PIDS+=("$pid"); INSTANCE_PORTS+=("$port")
  log "instance $i pid $pid on 127.0.0.1:$port${NO_REDIS:+ (no redis)}"
done

# ---- nginx ------------------------------------------------------------------------------------------
mkdir -p "$DIR/nginx-temp"
{
  # As root, the workers would switch to `nobody`, who cannot enter the mktemp directory.
  [ "$(id -u)" != 0 ] || echo "user root root;"
  cat <<EOF
daemon off;
master_process on;
worker_processes 1;
pid $DIR/nginx.pid;
error_log $DIR/nginx-error.log notice;
events { worker_connections 1024; }
http {
  log_format combined_upstream '\$remote_addr [\$time_iso8601] "\$request" \$status \$body_bytes_sent upstream=\$upstream_addr upstream_status=\$upstream_status mcp_method=\$http_mcp_method request_time=\$request_time';
  access_log $DIR/access.log combined_upstream;
  client_body_temp_path $DIR/nginx-temp/client_body;
  proxy_temp_path $DIR/nginx-temp/proxy;
  fastcgi_temp_path $DIR/nginx-temp/fastcgi;
  uwsgi_temp_path $DIR/nginx-temp/uwsgi;
  scgi_temp_path $DIR/nginx-temp/scgi;

  # Round robin (nginx's default), no stickiness: every request may land on any instance.
  upstream mcp_instances {
EOF
  for port in "${INSTANCE_PORTS[@]}"; do echo "    server 127.0.0.1:$port;"; done
  cat <<EOF
    keepalive 32;
  }

  server {
    listen 127.0.0.1:$PORT;
    server_name _;
    # A client may keep its connection for as long as it likes (nginx closes one after 1000
    # requests by default, which a load generator would count as a failure).
    keepalive_requests 10000000;
    # The instances enforce their own body and header limits (413, 431): nginx must not answer first.
    client_max_body_size 0;
    large_client_header_buffers 8 64k;

    location / {
      proxy_pass http://mcp_instances;
      proxy_http_version 1.1;
      # Upstream keep-alive: no "Connection: close" towards the instances.
      proxy_set_header Connection "";
      # The Host exactly as the client sent it (with its port): the instances check it against
      # the loopback names. (\$host would drop the port and invent a name when there is none.)
      proxy_set_header Host \$http_host;
      # SSE: nothing held back in either direction, streams may stay open for long.
      proxy_buffering off;
      proxy_request_buffering off;
      proxy_cache off;
      proxy_read_timeout 1h;
      proxy_send_timeout 1h;
    }
  }
}
EOF
} >"$DIR/nginx.conf"
"$NGINX" -t -q -p "$DIR" -e "$DIR/nginx-error.log" -c "$DIR/nginx.conf" 2>>"$DIR/nginx-error.log" ||
  { tail -n 20 "$DIR/nginx-error.log" >&2; die "nginx -t refused $DIR/nginx.conf"; }
"$NGINX" -p "$DIR" -e "$DIR/nginx-error.log" -c "$DIR/nginx.conf" </dev/null >>"$DIR/nginx-error.log" 2>&1 &
NGINX_PID=$!

# Ready when nginx answers HTTP from an instance (any status but the 502/504 of a missing upstream).
http_status() {
  local line=""
  { exec 5<>"/dev/tcp/127.0.0.1/$PORT"; } 2>/dev/null || return 1
  printf 'GET /mcp HTTP/1.1\r\nHost: 127.0.0.1:%s\r\nConnection: close\r\n\r\n' "$PORT" >&5
  IFS= read -r -t 5 line <&5 || true
  exec 5<&- 5>&-
  line="${line%$'\r'}"
  [ -n "$line" ] || return 1
  echo "${line#* }" | cut -d' ' -f1
}
ready=0
for _ in $(seq 200); do
  kill -0 "$NGINX_PID" 2>/dev/null || { tail -n 20 "$DIR/nginx-error.log" >&2; die "nginx exited at start"; }
  status=$(http_status || true)
  case "$status" in ''|502|503|504) sleep 0.05 ;; *) ready=1; break ;; esac
done
[ "$ready" = 1 ] || die "nginx on 127.0.0.1:$PORT did not answer from an instance (last status: ${status:-none})"
log "nginx pid $NGINX_PID on http://127.0.0.1:$PORT/mcp -> ${INSTANCE_PORTS[*]} (round robin; GET /mcp answered $status)"
log "directory $DIR"
write_state

# ---- foreground -------------------------------------------------------------------------------------
restart_redis() {
  [ -z "$NO_REDIS" ] || { log "USR1: no redis in this cluster"; return 0; }
  if [ -n "$REDIS_CLUSTER" ]; then restart_dead_nodes; write_state; return 0; fi
  if [ -n "$REDIS_PID" ] && kill -0 "$REDIS_PID" 2>/dev/null; then
    log "USR1: redis-server $REDIS_PID still runs; not restarted"; write_state; return 0
  fi
  [ -z "$REDIS_PID" ] || wait "$REDIS_PID" 2>/dev/null || true
  log "USR1: starting redis-server again on 127.0.0.1:$REDIS_PORT"
  start_redis
  write_state
}
RESTART_REQUESTED=0
trap 'RESTART_REQUESTED=1' USR1

declare -A REPORTED=()
while :; do
  if [ "$RESTART_REQUESTED" = 1 ]; then RESTART_REQUESTED=0; restart_redis; fi
  if ! kill -0 "$NGINX_PID" 2>/dev/null; then
    wait "$NGINX_PID" 2>/dev/null || true; NGINX_PID=""
    log "nginx exited; stopping the cluster"; tail -n 20 "$DIR/nginx-error.log" >&2 || true
    exit 1
  fi
  for i in "${!INSTANCE_PIDS[@]}"; do
    pid=${INSTANCE_PIDS[$i]}
    if [ -z "${REPORTED[$pid]:-}" ] && ! kill -0 "$pid" 2>/dev/null; then
      REPORTED[$pid]=1; rc=0; wait "$pid" 2>/dev/null || rc=$?
      log "instance $((i + 1)) (pid $pid) exited with status $rc"
    fi
  done
  for pid in "${NODE_PIDS[@]}"; do
    if [ -z "${REPORTED[$pid]:-}" ] && ! kill -0 "$pid" 2>/dev/null; then
      REPORTED[$pid]=1; log "cluster node (pid $pid) exited (USR1 starts it again)"
    fi
  done
  if [ -z "$REDIS_CLUSTER" ] && [ -n "$REDIS_PID" ] && [ -z "${REPORTED[$REDIS_PID]:-}" ] && ! kill -0 "$REDIS_PID" 2>/dev/null; then
    REPORTED[$REDIS_PID]=1; rc=0; wait "$REDIS_PID" 2>/dev/null || rc=$?
    log "redis-server (pid $REDIS_PID) exited with status $rc (USR1 starts it again)"
  fi
  # `wait` returns at once on a trapped signal, so TERM/INT/USR1 are handled without delay.
  sleep 0.5 & SLEEP_PID=$!
  wait "$SLEEP_PID" 2>/dev/null || true
  SLEEP_PID=""
done
