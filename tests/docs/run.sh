#!/usr/bin/env bash
# The docs test: every command README.md tells a reader to type, run as written, and every
# relative link of the docs checked, so that the docs cannot drift from the code.
#
#   1. links: every relative link and #anchor of README.md, docs/*.md and the top-level *.md
#      files names a file that exists and a heading it has (tests/docs/links.py);
#   2. settings: docs/runtime.md's settings table has a row for every flag of a server's
#      --help, with its variable and default (tests/docs/settings_table.py);
#   3. commands: the ```sh blocks of README.md, then docs/gateway.md (whose blocks use the
#      generator README.md installs), docs/telemetry.md, docs/validation.md, docs/documents.md,
#      docs/protocol.md, docs/operations.md, docs/deploy.md and docs/x-mcp.md,
#      in order, in a fresh temporary directory that
#      holds the checkout as `mcp-codegen/` (as the README's install step assumes), with
#      `cargo install` writing into that directory, never into ~/.cargo. The conventions
#      (which blocks run, `docs-test:` markers for servers and skips, expected output) are in
#      tests/docs/README.md.
#   4. a generated crate's README: its commands run in the crate, for a contract with tools and
#      one without (tests/docs/generated_readme.sh);
#
# Each command is printed before it runs, with its file and line. Fails on the first command
# that fails, output that differs, a link that does not resolve, or past DOCS_TEST_TIMEOUT
# seconds (default 900: a cold release build of the generator and two generated crates on
# two cores take about 3 to 4 minutes; warm, under a minute). Every process it starts is
# stopped at the end. Builds share CARGO_TARGET_DIR (default: the checkout's target/).
#
# usage: tests/docs/run.sh [FILE.md...]    (default: README.md docs/gateway.md docs/telemetry.md docs/validation.md
#                                           docs/documents.md docs/protocol.md docs/operations.md
#                                           docs/deploy.md docs/x-mcp.md)
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target}"
timeout_s="${DOCS_TEST_TIMEOUT:-900}"

log() { echo "[docs] $*" >&2; }
fail() { log "FAIL: $*"; exit 1; }

# ---- 1. links, 2. the settings table ---------------------------------------------------------
(cd "$root" && python3 "$here/links.py" README.md BENCHMARKS.md ARCHITECTURE.md RELIABILITY.md \
  SECURITY.md CHANGELOG.md docs/*.md) || fail "links"
log "building everything-server for its --help"
(cd "$root" && cargo build -q --locked -p everything-server) || fail "cargo build -p everything-server"
"$CARGO_TARGET_DIR/debug/everything-server" --help >"${TMPDIR:-/tmp}/docs-help.$$" \
  || fail "everything-server --help"
python3 "$here/settings_table.py" "$root/docs/runtime.md" "${TMPDIR:-/tmp}/docs-help.$$" \
  || { rm -f "${TMPDIR:-/tmp}/docs-help.$$"; fail "docs/runtime.md's settings table"; }
rm -f "${TMPDIR:-/tmp}/docs-help.$$"

# ---- 3. the commands ------------------------------------------------------------------------
files=("$@")
[ ${#files[@]} -gt 0 ] || files=(README.md docs/gateway.md docs/telemetry.md docs/validation.md docs/documents.md
  docs/protocol.md docs/operations.md docs/deploy.md docs/x-mcp.md)
DOCS_WORK="$(mktemp -d)"
export DOCS_WORK
script="$DOCS_WORK/.docs-test.sh"
(cd "$root" && python3 "$here/extract.py" "${files[@]}") >"$script" || fail "extracting the blocks"

ln -s "$root" "$DOCS_WORK/mcp-codegen"
export CARGO_INSTALL_ROOT="$DOCS_WORK/.cargo-install"
export PATH="$CARGO_INSTALL_ROOT/bin:$PATH"
if other="$(command -v mcp-codegen)"; then
  log "note: $other is on PATH; the README's install step puts its own first"
fi

# The helpers the extracted script calls, then the script, under one bound.
cat >"$DOCS_WORK/.docs-lib.sh" <<'EOF'
set -euo pipefail
DOCS_OUT="$DOCS_WORK/.out"
DOCS_LAST="$DOCS_WORK/.last"
bg_pid=""
bg_where=""
bg_probe=0
ran=0
skipped=0
docs_stop_background() {
  [ -n "$bg_pid" ] || return 0
  kill -TERM -- "-$bg_pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 -- "-$bg_pid" 2>/dev/null || break; sleep 0.2; done
  kill -KILL -- "-$bg_pid" 2>/dev/null || true
  wait "$bg_pid" 2>/dev/null || true
  : >"$DOCS_WORK/.bg"
  echo "[docs] stopped the server of $bg_where" >&2
  bg_pid=""
}
trap 'docs_stop_background' EXIT
trap 'exit 143' TERM INT
docs_file() { cd "$DOCS_WORK"; echo "[docs] ==== $1" >&2; }
docs_file_end() { docs_stop_background; }
docs_section() { docs_stop_background; cd "$DOCS_WORK"; echo "[docs] == $2 ($1)" >&2; }
docs_show() { sed 's/^/    | /' >&2; }
docs_block_start() {
  docs_where="$1"
  echo "[docs] run $docs_where:" >&2
  docs_show
  trap 'echo "[docs] FAIL: the block at $docs_where exited with status $?" >&2; cat "$DOCS_OUT" >&2 2>/dev/null' ERR
}
docs_block_end() {
  trap - ERR
  cat "$DOCS_OUT"
  if [ -s "$DOCS_OUT" ] && [ -n "$(tail -c1 "$DOCS_OUT")" ]; then echo; fi
  cp "$DOCS_OUT" "$DOCS_LAST"
  ran=$((ran + 1))
  if [ "$bg_probe" = 1 ]; then bg_probe=0; docs_stop_background; fi
}
docs_expect() {
  local expected="$DOCS_WORK/.expected"
  cat >"$expected"
  # awk ends every line with a newline (an answer without a final newline included) and
  # drops trailing spaces.
  local trim='{ sub(/[ \t\r]+$/, ""); print }'
  if ! diff -u <(awk "$trim" "$expected") <(awk "$trim" "$1") >&2; then
    echo "[docs] FAIL: the output of $docs_where is not the text block after it (diff above: - the docs, + the output)" >&2
    exit 1
  fi
  echo "[docs] output of $docs_where as documented" >&2
}
docs_skip() { echo "[docs] skip $1: $2" >&2; skipped=$((skipped + 1)); }
docs_background() {
  local where="$1" port="$2" text
  text="$(cat)"
  docs_stop_background
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
    echo "[docs] FAIL: $where: 127.0.0.1:$port is already in use before its server starts" >&2
    exit 1
  fi
  echo "[docs] start in the background $where (then wait for 127.0.0.1:$port):" >&2
  printf '%s\n' "$text" | docs_show
  local log="$DOCS_WORK/.server-$port.log"
  setsid bash -c "$text" >"$log" 2>&1 &
  bg_pid=$!
  echo "$bg_pid" >"$DOCS_WORK/.bg"
  bg_where="$where"
  local waited=0
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    if ! kill -0 "$bg_pid" 2>/dev/null; then
      cat "$log" >&2
      echo "[docs] FAIL: $where exited before 127.0.0.1:$port accepted (its output above)" >&2
      bg_pid=""
      exit 1
    fi
    waited=$((waited + 1))
    if [ "$waited" -gt 3000 ]; then
      tail -20 "$log" >&2
      echo "[docs] FAIL: $where: 127.0.0.1:$port did not accept within 300 s" >&2
      exit 1
    fi
    sleep 0.1
  done
  echo "[docs] 127.0.0.1:$port accepts; the next block probes it" >&2
  bg_probe=1
  ran=$((ran + 1))
}
EOF
{
  echo '. "$DOCS_WORK/.docs-lib.sh"'
  echo 'cd "$DOCS_WORK"'
  cat "$script"
  echo 'echo "[docs] $ran block(s) run, $skipped skipped" >&2'
} >"$DOCS_WORK/.docs-main.sh"

start=$(date +%s)
status=0
(cd "$DOCS_WORK" && exec timeout --kill-after=10 "$timeout_s" bash "$DOCS_WORK/.docs-main.sh") || status=$?
elapsed=$(($(date +%s) - start))
if [ "$status" -eq 124 ]; then
  log "FAIL: past DOCS_TEST_TIMEOUT=$timeout_s s"
fi
# Whatever the outcome, no server started here is left running (timeout signals the script's
# own process group; a background server has a group of its own, written down by its id).
if [ -s "$DOCS_WORK/.bg" ]; then kill -KILL -- "-$(cat "$DOCS_WORK/.bg")" 2>/dev/null || true; fi
rm -rf "$DOCS_WORK"
if [ "$status" -ne 0 ]; then
  log "FAIL after ${elapsed} s"
  exit 1
fi
log "PASS: links, settings table, and every command of ${files[*]} (${elapsed} s)"

# ---- 4. a generated crate's own README ------------------------------------------------------
"$here/generated_readme.sh" || fail "a generated crate's README (tests/docs/generated_readme.sh)"
