#!/usr/bin/env bash
# OAuth end to end against a real authorization server: a generated server binary with
# --auth-issuer (feature `jwt`) and access tokens issued by oidc-provider, on 127.0.0.1.
#
# Pinned: oidc-provider 9.13.3 (./package.json + ./package-lock.json: it, jose 6.2.18, koa 3.3.0 and
# 37 more, installed with `npm ci` into
# ${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-oauth-e2e/issuer-<hash of the lock>, so an unchanged
# lock is never refetched; oidc-provider 9 declares no `engines` but supports Node 22 LTS or later
# and warns at import otherwise). The TypeScript SDK @modelcontextprotocol/sdk 1.32.2 and
# Node >= 22 (22.23.5 when the system node is older) are the conformance suite's, installed (or
# found) by `conformance/run.sh --install-only`; nothing else is installed.
#
# What it does:
#   - generates the crate of fixtures/openrpc/mcp-features.openrpc.json (`x-mcp` `scopes`:
#     mcp:read for the document, mcp:read + weather for weather_forecast) into a temporary
#     directory, renames its package mcp-features-oauth-e2e and implements its `echo` tool so
#     that it answers the text and the request's principal (subject, scopes, iss, aud,
#     client_id), then builds it with `--features jwt` (CARGO_TARGET_DIR, default target/);
#   - starts issuer.mjs: two oidc-provider issuers (A: RS256, serves RFC 8414 and OpenID
#     metadata; B: ES256, OpenID metadata only), client_credentials clients, RFC 8707 resource
#     indicators, JWT access tokens whose `aud` is the resource asked for;
#   - starts server A (--auth-issuer A) and server B (--auth-issuer B), both with
#     --public-url http://127.0.0.1:PORT/mcp and --auth-scopes mcp;
#   - runs client.mjs: the SDK's Client + StreamableHTTPClientTransport with its
#     ClientCredentialsProvider goes through the whole discovery by itself (401 →
#     resource_metadata → Protected Resource Metadata → authorization server metadata → token
#     with `resource`), lists and calls tools; plain fetch checks tokens for another resource
#     or issuer (401 invalid_token), a token for this one (200, session), missing scopes (403
#     insufficient_scope), no token (401 + metadata), sessions bound to their client, the
#     stateless 2026-07-28 era, which metadata documents each server fetched, and that no token
#     reaches the servers' logs;
#   - a gateway (the simple-math document's, --gateway, built with --features jwt) behind issuer A
#     with --upstream-identity-header 'X-User: {sub}' and 'X-Client: {client_id}', in front of
#     ./identity_upstream.py, which answers the headers it got: each of two clients' calls
#     reaches the upstream with its own identity and never with its token; a call without a
#     token is refused at the door (401); no token in the gateway's log;
#   - the same gateway with --upstream-auth token-exchange (RFC 8693, issuer A's grant for the
#     client mcp-gateway), twice (issued tokens of 600 s and of 2 s), checked by
#     ./token_exchange.py: each client's calls reach the upstream with a token issued for it
#     (its sub, the upstream's aud), a hundred calls cost one exchange per client, a refused
#     exchange is an isError naming invalid_grant and reaches nothing, the plain JSON-RPC door
#     (raw bytes, a batch) sends the same issued tokens, an expired issued token
#     is renewed, no token in the logs; and the gateway does not start with it but without
#     --auth-issuer (exit 2).
# Last line: "N passed, M failed"; exits non-zero on any failure. With warm caches: about 8 s (the
# generated crate itself is rebuilt), 3 s given a binary; the first build of its dependencies with
# feature jwt takes minutes.
#
# usage: tests/oauth-e2e/run.sh [SERVER_BINARY]
#        SERVER_BINARY: a binary this script built before ($CARGO_TARGET_DIR/debug/
#        mcp-features-oauth-e2e), to skip the build.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"

log() { echo "[oauth-e2e] $*" >&2; }
die() { log "ERROR: $*"; echo "0 passed, 1 failed"; exit 2; }

work="$(mktemp -d)"
pids=()
stop() {
  local pid
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
  rm -rf "$work"
}
trap stop EXIT
trap 'log "interrupted"; exit 130' INT TERM

# ---- 1. Node >= 22 and the SDK, where conformance/run.sh keeps them ----------------------------
"$root/conformance/run.sh" --install-only >/dev/null 2>"$work/conformance-install.log" \
  || { cat "$work/conformance-install.log" >&2; die "conformance/run.sh --install-only failed"; }
. "$root/conformance/env.sh"
conformance_env || die "the conformance install is incomplete"
node=$CONFORMANCE_NODE sdk=$CONFORMANCE_SDK

# ---- 2. oidc-provider, from our lock ------------------------------------------------------------
cache="${XDG_CACHE_HOME:-$HOME/.cache}/mcp-codegen-oauth-e2e"
issuer_dir="$cache/issuer-$(cat "$here/package.json" "$here/package-lock.json" | sha256sum | cut -c1-12)"
if [ ! -f "$issuer_dir/.installed" ] || [ ! -f "$issuer_dir/node_modules/oidc-provider/package.json" ]; then
  command -v npm >/dev/null || die "npm not found (needed for the first install into $issuer_dir)"
  log "installing oidc-provider (npm ci from $here/package-lock.json) into $issuer_dir"
  rm -rf "$issuer_dir" && mkdir -p "$issuer_dir"
  cp "$here/package.json" "$here/package-lock.json" "$issuer_dir/"
  (cd "$issuer_dir" && npm ci --no-audit --no-fund --loglevel=error) >&2 || die "npm ci in $issuer_dir failed"
  touch "$issuer_dir/.installed"   # last, so an interrupted install is redone
fi

# ---- 3. the server binary -----------------------------------------------------------------------
if [ $# -ge 1 ]; then
  server="$1"
else
  crate="$work/crate"
  (cd "$root" && cargo run -q -p mcp-codegen -- fixtures/openrpc/mcp-features.openrpc.json -o "$crate") \
    >"$work/codegen.log" 2>&1 || { cat "$work/codegen.log" >&2; die "mcp-codegen failed"; }
  # A package name of its own, so that this binary (its echo implemented) never stands in for
  # tests/auth-binary's mcp-features in the shared target directory.
  sed -i 's/^name = "mcp-features"$/name = "mcp-features-oauth-e2e"/' "$crate/Cargo.toml"
  grep -q '^name = "mcp-features-oauth-e2e"$' "$crate/Cargo.toml" || die "could not rename the package in $crate/Cargo.toml"
  # echo answers its text and the principal the handler sees (ctx.principal()).
  "$node" - "$crate/src/handler.rs" <<'EOF' || die "could not implement echo in the generated handler.rs"
const fs = require('node:fs');
const file = process.argv[2];
const source = fs.readFileSync(file, 'utf8');
// On one line or in rustfmt's form (one parameter a line, a trailing comma).
const stub = /async fn echo\(\s*&self,\s*_ctx: &RequestContext,\s*_params: types::EchoParams,?\s*\) -> Result<([^{]+)> \{\s*Err\(Error::new\("`echo` is not implemented yet"\)\)\s*\}/;
if (!stub.test(source)) { console.error(`no echo stub in ${file}`); process.exit(1); }
fs.writeFileSync(file, source.replace(stub, (_, result) => `async fn echo(&self, ctx: &RequestContext, params: types::EchoParams) -> Result<${result}> {
        // tests/oauth-e2e: the text, and who asked.
        let principal = ctx.principal().ok_or_else(|| Error::new("no principal"))?;
        Ok(::serde_json::json!({
            "text": params.text,
            "subject": principal.subject,
            "scopes": principal.scopes,
            "iss": principal.claims["iss"],
            "aud": principal.claims["aud"],
            "client_id": principal.claims["client_id"],
        })
        .to_string())
    }`));
EOF
  # The workspace's lock: the same dependency versions as the runtime's own tests.
  cp "$root/Cargo.lock" "$crate/Cargo.lock"
  cargo build -q --features jwt --manifest-path "$crate/Cargo.toml" || die "cargo build of the generated crate failed"
  server="$CARGO_TARGET_DIR/debug/mcp-features-oauth-e2e"
fi
[ -x "$server" ] || die "no server binary at $server"

# ---- 4. the issuers and the servers ---------------------------------------------------------------
# shellcheck source=../lib/servers.sh
. "$root/tests/lib/servers.sh"   # free_port
wait_port() { # PORT PID LOG
  for _ in $(seq 150); do
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    kill -0 "$2" 2>/dev/null || { cat "$3" >&2; die "the process logging to $3 exited"; }
    sleep 0.1
  done
  cat "$3" >&2; die "nothing listens on 127.0.0.1:$1 (log: $3)"
}
issuer_a_port=$(free_port); issuer_b_port=$(free_port)
server_a_port=$(free_port); server_b_port=$(free_port); other_port=$(free_port)
gateway_port=$(free_port); identity_port=$(free_port)
exchange_port=$(free_port); short_port=$(free_port)
gateway_url="http://127.0.0.1:$gateway_port/mcp"
exchange_url="http://127.0.0.1:$exchange_port/mcp"; short_url="http://127.0.0.1:$short_port/mcp"
upstream_url="http://127.0.0.1:$identity_port/"
issuer_a="http://127.0.0.1:$issuer_a_port"; issuer_b="http://127.0.0.1:$issuer_b_port"
server_a="http://127.0.0.1:$server_a_port/mcp"; server_b="http://127.0.0.1:$server_b_port/mcp"
other="http://127.0.0.1:$other_port/other"   # a resource of issuer A that nothing serves
secret="$("$node" -p 'require("crypto").randomBytes(24).toString("hex")')"

"$node" "$here/issuer.mjs" "$issuer_dir/node_modules" \
  "{\"secret\":\"$secret\",\"a\":{\"port\":$issuer_a_port,\"resources\":[\"$server_a\",\"$other\",\"$gateway_url\",\"$exchange_url\",\"$short_url\"]},\"b\":{\"port\":$issuer_b_port,\"resources\":[\"$server_b\"]},
    \"exchange\":{\"subjectAudiences\":[\"$exchange_url\",\"$short_url\"],\"audiences\":{\"$upstream_url\":600,\"${upstream_url}short\":2},\"refuse\":[\"mcp-e2e-3\"]}}" \
  >"$work/issuer.log" 2>&1 &
pids+=($!)
for _ in $(seq 150); do
  grep -qx ready "$work/issuer.log" && break
  kill -0 "${pids[0]}" 2>/dev/null || { cat "$work/issuer.log" >&2; die "issuer.mjs exited"; }
  sleep 0.1
done
grep -qx ready "$work/issuer.log" || { cat "$work/issuer.log" >&2; die "issuer.mjs did not start"; }

# debug for the runtime, so that the check that no token is logged reads everything it logs.
start_server() { # PORT ISSUER LOG
  RUST_LOG=info,mcp_runtime=debug "$server" --addr "127.0.0.1:$1" --public-url "http://127.0.0.1:$1/mcp" \
    --auth-issuer "$2" --auth-scopes mcp >"$3" 2>&1 &
  pids+=($!)
  wait_port "$1" "$!" "$3"
}
start_server "$server_a_port" "$issuer_a" "$work/server-a.log"
start_server "$server_b_port" "$issuer_b" "$work/server-b.log"

# ---- 5. the checks ----------------------------------------------------------------------------------
config=$(cat <<EOF
{"sdk": "$sdk", "secret": "$secret", "issuerA": "$issuer_a", "issuerB": "$issuer_b",
 "serverA": "$server_a", "serverB": "$server_b", "other": "$other",
 "logs": ["$work/server-a.log", "$work/server-b.log"]}
EOF
)
# In the background + `wait`, so that a TERM to this script stops everything at once (bash defers
# traps while a foreground child runs).
"$node" "$here/client.mjs" "$config" >"$work/client.out" 2>"$work/client.err" &
pids+=($!)
rc=0; wait "$!" || rc=$?
if [ "$rc" -ne 0 ]; then
  for f in client.err issuer.log server-a.log server-b.log; do
    log "last lines of $f:"; tail -n 25 "$work/$f" | sed 's/^/    /' >&2
  done
fi
tail -n 1 "$work/client.out" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$' || { cat "$work/client.out"; echo "0 passed, 1 failed"; exit 1; }

# ---- 6. a gateway sends each caller's verified identity upstream, never its token ----------------
gateway_checks() {
  local crate="$work/identity-gateway"
  check() { # NAME STATUS DETAIL
    if [ "$2" -eq 0 ]; then echo "PASS $1"; else echo "FAIL $1: ${3:0:400}"; fi
  }
  (cd "$root" && cargo run -q -p mcp-codegen -- \
    fixtures/third-party/open-rpc-examples/service-descriptions/simple-math-openrpc.json \
    --tools '*' --gateway --name identity-gateway -o "$crate" -q) >"$work/gateway-codegen.log" 2>&1 \
    || { cat "$work/gateway-codegen.log" >&2; echo "FAIL gateway: mcp-codegen failed"; return; }
  cp "$root/Cargo.lock" "$crate/Cargo.lock"
  cargo build -q --features jwt --manifest-path "$crate/Cargo.toml" \
    || { echo "FAIL gateway: cargo build of the gateway failed"; return; }
  python3 "$here/identity_upstream.py" "$identity_port" >"$work/identity-upstream.log" 2>&1 &
  pids+=($!)
  wait_port "$identity_port" "$!" "$work/identity-upstream.log"
  RUST_LOG=info,mcp_runtime=debug "$CARGO_TARGET_DIR/debug/identity-gateway" --addr "127.0.0.1:$gateway_port" \
    --public-url "$gateway_url" --auth-issuer "$issuer_a" --auth-scopes mcp \
    --upstream "http://127.0.0.1:$identity_port/" \
    --upstream-identity-header 'X-User: {sub}' --upstream-identity-header 'X-Client: {client_id}' \
    >"$work/gateway.log" 2>&1 &
  pids+=($!)
  wait_port "$gateway_port" "$!" "$work/gateway.log"
  local meta='"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}'
  local call="{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"addition\",\"arguments\":{\"a\":2,\"b\":3},$meta}}"
  local client token answer status tokens=()
  for client in mcp-e2e mcp-e2e-2; do
    token="$(curl -s -u "$client:$secret" "$issuer_a/token" -d grant_type=client_credentials \
      -d scope=mcp --data-urlencode "resource=$gateway_url" \
      | python3 -c 'import json,sys; print(json.load(sys.stdin).get("access_token", ""))' || true)"
    tokens+=("$token")
    answer="$(curl -s "$gateway_url" -H 'content-type: application/json' \
      -H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2026-07-28' \
      -H 'mcp-method: tools/call' -H 'mcp-name: addition' -H "authorization: Bearer $token" -d "$call" || true)"
    # The tool's text is the upstream's result: the headers it got.
    status=0
    python3 - "$answer" "$client" <<'PY' || status=1
import json, sys
answer, client = json.loads(sys.argv[1]), sys.argv[2]
seen = json.loads(answer["result"]["content"][0]["text"])
assert seen == {"x-user": client, "x-client": client, "authorization": None}, seen
PY
    check "gateway: $client's call reaches the upstream as $client (X-User, X-Client from its verified token), without its token" "$status" "$answer"
  done
  answer="$(curl -s -o /dev/null -w '%{http_code}' "$gateway_url" -H 'content-type: application/json' \
    -H 'accept: application/json, text/event-stream' -H 'mcp-protocol-version: 2026-07-28' \
    -H 'mcp-method: tools/call' -H 'mcp-name: addition' -d "$call" || true)"
  status=0; [ "$answer" = 401 ] || status=1
  check "gateway: a call without a token is refused at the door (401)" "$status" "HTTP $answer"
  status=0
  for token in "${tokens[@]}"; do
    if [ -n "$token" ] && grep -qF "$token" "$work/gateway.log"; then status=1; fi
  done
  check "gateway: no token in the gateway's log (debug)" "$status" "a token is in the log"
}

# ---- 7. a gateway exchanges each caller's token for one issued for the upstream (RFC 8693) -------
exchange_checks() {
  local binary="$CARGO_TARGET_DIR/debug/identity-gateway" status answer
  [ -x "$binary" ] || { echo "FAIL token exchange: no gateway binary (step 6 failed)"; return; }
  printf '%s\n' "$secret" >"$work/gateway-secret"
  start_exchanging() { # PORT PUBLIC_URL AUDIENCE LOG
    RUST_LOG=info,mcp_runtime=debug "$binary" --addr "127.0.0.1:$1" --public-url "$2" \
      --auth-issuer "$issuer_a" --auth-scopes mcp --upstream "$upstream_url" \
      --upstream-auth token-exchange --upstream-token-endpoint "$issuer_a/token" \
      --upstream-client-id mcp-gateway --upstream-client-secret "file:$work/gateway-secret" \
      --upstream-audience "$3" --jsonrpc /jsonrpc >"$4" 2>&1 &
    pids+=($!)
    wait_port "$1" "$!" "$4"
  }
  start_exchanging "$exchange_port" "$exchange_url" "$upstream_url" "$work/exchange.log"
  start_exchanging "$short_port" "$short_url" "${upstream_url}short" "$work/short.log"
  python3 "$here/token_exchange.py" "{\"issuer\": \"$issuer_a\", \"secret\": \"$secret\",
    \"gateway\": \"$exchange_url\", \"short\": \"$short_url\", \"upstream\": \"$upstream_url\",
    \"logs\": [\"$work/exchange.log\", \"$work/short.log\"]}"
  # Without authorization there is no caller's token to exchange: no start.
  status=0
  answer="$(MCP_UPSTREAM_CLIENT_SECRET="$secret" timeout 10 "$binary" --addr 127.0.0.1:0 \
    --upstream "$upstream_url" --upstream-auth token-exchange --upstream-token-endpoint "$issuer_a/token" \
    --upstream-client-id mcp-gateway --upstream-audience "$upstream_url" 2>&1 >/dev/null)" || status=$?
  [ "$status" -eq 2 ] && grep -q -- "--auth-issuer" <<<"$answer" && status=0 || status=1
  check "token exchange: no start without authorization (exit 2, naming --auth-issuer)" "$status" "$answer"
}

gateway_checks >"$work/gateway.out" 2>"$work/gateway.err"
exchange_checks >>"$work/gateway.out" 2>>"$work/gateway.err"
head -n -1 "$work/client.out"
cat "$work/gateway.out"
read -r c_passed _ c_failed _ < <(tail -n 1 "$work/client.out")
gw_passed="$(grep -c '^PASS' "$work/gateway.out" || true)"
gw_failed="$(grep -c '^FAIL' "$work/gateway.out" || true)"
if [ "$gw_passed" -eq 0 ]; then
  gw_failed=$((gw_failed + 1)); log "the gateway checks ran none:"; tail -n 25 "$work/gateway.err" >&2
fi
if [ "$gw_failed" -ne 0 ]; then
  log "last lines of gateway.log:"; tail -n 25 "$work/gateway.log" | sed 's/^/    /' >&2
fi
echo "$((c_passed + gw_passed)) passed, $((c_failed + gw_failed)) failed"
[ "$rc" -eq 0 ] && [ "$gw_failed" -eq 0 ]
