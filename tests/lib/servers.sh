# Sourced by the scripts that drive our server binaries with real clients (tests/ts-client,
# tests/inspector-cli, tests/python-client, tests/jsonrpc-client).
#
# free_port                      a TCP port free on 127.0.0.1 now
# start_server BINARY [ARGS...]  starts BINARY --addr 127.0.0.1:<free port> --log-level error
#                                ARGS in the background and waits until it listens (the script
#                                exits 1 if it dies first or does not listen within 10 s); sets
#                                $url to its /mcp endpoint
# stop_servers                   stops every server start_server started (call it from a trap)

free_port() {
  python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

server_pids=()

start_server() {
  local binary="$1" port pid attempt
  shift
  port="$(free_port)"
  "$binary" --addr "127.0.0.1:$port" --log-level error "$@" &
  pid=$!
  server_pids+=("$pid")
  for attempt in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || { echo "error: $binary exited" >&2; exit 1; }
    [ "$attempt" -lt 100 ] || { echo "error: $binary is not listening on port $port after 10 s" >&2; exit 1; }
    sleep 0.1
  done
  url="http://127.0.0.1:$port/mcp"
}

stop_servers() {
  local pid
  for pid in "${server_pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
  done
  server_pids=()
}
