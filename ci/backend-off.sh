#!/usr/bin/env bash
# Builds gauntlet without one compute API (-DGAUNTLET_WITH_VULKAN=OFF or -DGAUNTLET_WITH_OPENCL=OFF)
# in build/no<api> and runs it: the build configures and compiles with warnings as errors, the
# missing API's devices are absent, asking for one is exit 2 naming it, and the other API's
# device still probes and passes conformance. Only the gauntlet binary is built, unoptimised:
# CI has 2 cores.
#   ci/backend-off.sh vulkan|opencl
set -euo pipefail
cd "$(dirname "$0")/.."
api=$1
case "$api" in
  vulkan) option=GAUNTLET_WITH_VULKAN other=opencl ;;
  opencl) option=GAUNTLET_WITH_OPENCL other=vulkan ;;
  *) echo "usage: $0 vulkan|opencl" >&2; exit 2 ;;
esac
dir=build/no$api
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG=-O0 \
  -DGAUNTLET_WERROR=ON -D"$option"=OFF -DGAUNTLET_BUILD_TESTS=OFF -DGAUNTLET_BUILD_BENCH=OFF \
  >/dev/null
cmake --build "$dir" -j "$(nproc)" --target gauntlet
gauntlet=$dir/cli/gauntlet

fail() { echo "backend-off ($api): $*" >&2; exit 1; }
listed=$("$gauntlet" list)
if grep -q "^$api:[0-9]" <<<"$listed"; then fail "lists a $api device:"$'\n'"$listed"; fi
grep -q "^$other:0 " <<<"$listed" || fail "lists no $other:0:"$'\n'"$listed"
status=0
out=$("$gauntlet" probe --device "$api:0" 2>&1) || status=$?
[ "$status" -eq 2 ] || fail "probe --device $api:0 exits $status, not 2: $out"
status=0
out=$("$gauntlet" decode --device "$api:0" --tokens 1 \
  --shape n_embd=64,n_layer=1,n_head=2,n_ff=128,n_vocab=256,context=256 2>&1) || status=$?
[ "$status" -eq 2 ] || fail "decode --device $api:0 exits $status, not 2: $out"
grep -q "this build has no $api support" <<<"$out" || fail "decode does not say why: $out"
"$gauntlet" probe --device "$other:0" >/dev/null || fail "probe --device $other:0 failed"
"$gauntlet" conform --device "$other:0" --filter 'f32*,gguf.q8_0' >/dev/null ||
  fail "conform --device $other:0 failed"
echo "backend-off ($api): builds and runs without $api"
