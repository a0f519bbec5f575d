#!/usr/bin/env bash
# How long a generated server takes to build (BENCHMARKS.md, "Build times"):
#   1. cold: the crate generated from the Lotus gateway document by CHECKOUT's generator (this
#      checkout by default), `cargo build` (debug, as a user's first build) with a fresh target
#      directory and CHECKOUT's Cargo.lock (no resolution; the registry must be cached): wall
#      time, CPU time (user + system) of the whole build and of each unit (every rustc runs
#      under /usr/bin/time through RUSTC_WRAPPER), and cargo's --timings report;
#   2. rebuild: one method's result gains an optional property, the crate is regenerated and
#      built again (incremental, as a user's dev build), then the change is undone and built.
# Usage: bench/build-times.sh [CHECKOUT]. Compare two checkouts back to back, e.g.
#   bench/build-times.sh /work/main; bench/build-times.sh
# CPU time is what to compare on a shared machine; wall time only on a quiet one.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
CHECKOUT=$(cd "${1:-$HERE}" && pwd)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
LOTUS=$CHECKOUT/fixtures/third-party/lotus/build/openrpc/v2/gateway.json
cargo build --quiet --manifest-path "$CHECKOUT/Cargo.toml" -p mcp-codegen
GEN=$(cargo metadata --manifest-path "$CHECKOUT/Cargo.toml" --format-version 1 --no-deps |
  sed 's/.*"target_directory":"\([^"]*\)".*/\1/')/debug/mcp-codegen
CRATE=$WORK/lotus
gen() { "$GEN" "$1" -o "$CRATE" --runtime-path "$CHECKOUT/runtime" --quiet; }
gen "$LOTUS"
cp "$CHECKOUT/Cargo.lock" "$CRATE/Cargo.lock"
cat >"$WORK/rustc-time" <<'EOF'
#!/usr/bin/env bash
rustc=$1; shift; name=-; prev=
for a in "$@"; do [[ $prev == --crate-name ]] && name=$a; prev=$a; done
[[ $name == - || $name == ___ ]] && exec "$rustc" "$@"
exec /usr/bin/time -a -o "$RUSTC_TIME_LOG" -f "$name %e %U %S" "$rustc" "$@"
EOF
chmod +x "$WORK/rustc-time"
wrapper=$WORK/rustc-time
[[ -x /usr/bin/time ]] || { wrapper=; echo "(no /usr/bin/time: no per-unit CPU time)"; }
export CARGO_TARGET_DIR=$WORK/target RUSTC_TIME_LOG=$WORK/units.log
unset CARGO_INCREMENTAL CARGO_BUILD_JOBS
cd "$CRATE"
secs() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.1f", b-a}'; }
echo "checkout: $CHECKOUT ($(git -C "$CHECKOUT" rev-parse --short HEAD 2>/dev/null || echo '?')); $(nproc) cores; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
s=$(date +%s.%N)
RUSTC_WRAPPER=$wrapper /usr/bin/time -o "$WORK/total" -f "%U %S" cargo build --quiet --offline --timings
e=$(date +%s.%N)
read -r user sys <"$WORK/total"
echo "cold build: $(secs "$s" "$e") s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}') s CPU (user + sys); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -n $wrapper ]]; then
  awk '{cpu=$3+$4; all+=cpu} $1=="mcp_runtime"||$1=="lotus_rpc_api" {printf "  %s: %.1f s wall, %.1f s CPU\n", $1, $2, cpu; own+=cpu}
       END {printf "  every other unit: %.1f s CPU\n", all-own}' "$RUSTC_TIME_LOG"
fi
mkdir -p "$HERE/target"; cp "$WORK/target/cargo-timings/cargo-timing.html" "$HERE/target/build-times-$(basename "$CHECKOUT").html"
echo "  cargo --timings report: target/build-times-$(basename "$CHECKOUT").html"
python3 - "$LOTUS" "$WORK/changed.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
method = next(m for m in doc["methods"] if m["name"] == "Filecoin.ChainGetTipSetFinalityStatus")
method["result"]["schema"]["properties"]["note"] = {"type": "string"}
json.dump(doc, open(sys.argv[2], "w"))
EOF
for doc in "$WORK/changed.json" "$LOTUS"; do
  gen "$doc"
  /usr/bin/time -o "$WORK/total" -f "%e %U %S" cargo build --quiet --offline
  read -r wall user sys <"$WORK/total"
  what="a one-method change"; [[ $doc == "$LOTUS" ]] && what="undoing it"
  echo "rebuild after $what: $wall s wall, $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}') s CPU"
done
