#!/usr/bin/env bash
# How long a generated server takes to build (BENCHMARKS.md, "Build times"):
#   1. cold: the crate generated from the Lotus gateway document by CHECKOUT's generator (this
#      checkout by default), `cargo build` (debug, as a user's first build) with a fresh target
#      directory and CHECKOUT's Cargo.lock (no resolution; the registry must be cached): wall
#      time, CPU time (user + system) of the whole build and of each unit (every rustc runs
#      under /usr/bin/time through RUSTC_WRAPPER), and cargo's --timings report;
#   2. rebuild: one method's result gains an optional property (the document edited in place:
#      the changed copy has the same file name), the crate is regenerated and built again
#      (incremental, as a user's dev build), then the change is undone and built; twice;
#   3. with TIME_PASSES=1, the same change once more under `rustc -Z time-passes`
#      (RUSTC_BOOTSTRAP=1): where the crate's rebuild spends its time.
# HANDLER_EDIT=1 builds the crate of a synthetic 240-method contract instead (the document
# `cargo run -p mcp-bench --bin gen-synthetic -- 240` writes, made by bench/synthetic.py so
# that the bench workspace need not be built; N=... for another size): the cold build,
# then the rebuild after a comment appended to the user's `src/handler.rs`, three times (what a
# user pays on every edit of their handler), then the one-method change of step 2 on
# `method_0000` (twice, with the CPU of each crate rebuilt). The generated code is where a new
# crate gets it: in src/ for the Lotus gateway (50 methods), a crate of its own for 64 methods
# or more (the synthetic 240); GEN_FLAGS=--generated-crate or --no-generated-crate chooses
# (see docs/generated.md).
# Usage: bench/build-times.sh [CHECKOUT]. Compare two checkouts back to back, e.g.
#   bench/build-times.sh /work/main; bench/build-times.sh
# CPU time is what to compare on a shared machine; wall time only on a quiet one. UNITS=1 also
# lists the 15 compilation units of most CPU time in the cold build; COLD_ONLY=1 stops after the
# cold build (for alternating A/B runs of it). GEN=BINARY uses that mcp-codegen (built from
# CHECKOUT) rather than building one.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
CHECKOUT=$(cd "${1:-$HERE}" && pwd)
WORK=$(mktemp -d); trap 'rm -rf "$WORK"' EXIT
LOTUS=$CHECKOUT/fixtures/third-party/lotus/build/openrpc/v2/gateway.json
if [[ ${HANDLER_EDIT:-} == 1 ]]; then
  LOTUS=$WORK/synthetic.json
  python3 "$HERE/bench/synthetic.py" "${N:-240}" >"$LOTUS"
fi
if [[ -z ${GEN:-} ]]; then
  cargo build --quiet --manifest-path "$CHECKOUT/Cargo.toml" -p mcp-codegen
  GEN=$(cargo metadata --manifest-path "$CHECKOUT/Cargo.toml" --format-version 1 --no-deps |
    sed 's/.*"target_directory":"\([^"]*\)".*/\1/')/debug/mcp-codegen
fi
CRATE=$WORK/lotus
# GEN_FLAGS: more flags for the generator (word-split), e.g. GEN_FLAGS=--generated-crate.
gen() { "$GEN" "$1" -o "$CRATE" --runtime-path "$CHECKOUT/runtime" --quiet ${GEN_FLAGS:-}; }
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
echo "cold build: $(secs "$s" "$e") s wall, $user s user CPU, $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}') s CPU (user + sys); load after: $(cut -d' ' -f1-3 /proc/loadavg)"
if [[ -n $wrapper ]]; then
  unit=$(sed -n 's/^name = "\(.*\)"/\1/p' Cargo.toml | head -1 | tr - _)
  awk -v u="$unit" '{cpu=$3+$4; all+=cpu} $1=="mcp_runtime"||$1==u||$1==u"_generated" {printf "  %s: %.1f s wall, %.1f s CPU\n", $1, $2, cpu; own+=cpu}
       END {printf "  every other unit: %.1f s CPU\n", all-own}' "$RUSTC_TIME_LOG"
  if [[ ${UNITS:-} == 1 ]]; then
    echo "  the 15 units of most CPU (UNITS=1):"
    awk '{printf "    %6.1f s CPU  %s\n", $3+$4, $1}' "$RUSTC_TIME_LOG" | sort -rn -k1 | head -15
  fi
fi
mkdir -p "$HERE/target"; cp "$WORK/target/cargo-timings/cargo-timing.html" "$HERE/target/build-times-$(basename "$CHECKOUT").html"
echo "  cargo --timings report: target/build-times-$(basename "$CHECKOUT").html"
[[ ${COLD_ONLY:-} == 1 ]] && exit 0
if [[ ${HANDLER_EDIT:-} == 1 ]]; then
  for i in 1 2 3; do
    echo "// edit $i" >>src/handler.rs
    /usr/bin/time -o "$WORK/total" -f "%e %U %S" cargo build --quiet --offline
    read -r wall user sys <"$WORK/total"
    echo "rebuild after a comment appended to src/handler.rs: $wall s wall, $user s user CPU, $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}') s CPU"
  done
fi
METHOD=Filecoin.ChainGetTipSetFinalityStatus
[[ ${HANDLER_EDIT:-} == 1 ]] && METHOD=method_0000
mkdir "$WORK/changed"
CHANGED=$WORK/changed/$(basename "$LOTUS")
python3 - "$LOTUS" "$CHANGED" "$METHOD" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
method = next(m for m in doc["methods"] if m["name"] == sys.argv[3])
method["result"]["schema"]["properties"]["note"] = {"type": "string"}
json.dump(doc, open(sys.argv[2], "w"))
EOF
for doc in "$CHANGED" "$LOTUS" "$CHANGED" "$LOTUS"; do
  gen "$doc"
  : >"$RUSTC_TIME_LOG"
  RUSTC_WRAPPER=$wrapper /usr/bin/time -o "$WORK/total" -f "%e %U %S" cargo build --quiet --offline
  read -r wall user sys <"$WORK/total"
  what="a one-method change"; [[ $doc == "$LOTUS" ]] && what="undoing it"
  echo "rebuild after $what: $wall s wall, $user s user CPU, $(awk -v u="$user" -v s="$sys" 'BEGIN{printf "%.1f", u+s}') s CPU"
  if [[ -n $wrapper ]]; then awk '{printf "  %s: %.1f s CPU\n", $1, $3+$4}' "$RUSTC_TIME_LOG"; fi
done
if [[ ${TIME_PASSES:-} == 1 ]]; then
  # The same flags before and after the change: -Z flags on the command line are part of what
  # the incremental cache was built with. Passes of 0.05 s or more, and the total.
  passes() { RUSTC_BOOTSTRAP=1 cargo rustc --quiet --offline --bin "$(sed -n 's/^name = "\(.*\)"/\1/p' Cargo.toml)" -- -Z time-passes 2>&1; }
  passes >/dev/null
  gen "$CHANGED"
  echo "rustc -Z time-passes, rebuild after a one-method change:"
  passes | awk '/^time:/ && ($2 + 0 >= 0.05 || $NF == "total") {printf "  %-40s %s s\n", $NF, $2+0}'
  gen "$LOTUS"
fi
