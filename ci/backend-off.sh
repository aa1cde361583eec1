#!/usr/bin/env bash
# Builds gauntlet without one compute API (-DGAUNTLET_WITH_VULKAN=OFF or -DGAUNTLET_WITH_OPENCL=OFF)
# in build/ci-no<api> and runs it: the build configures and compiles with warnings as errors, the
# missing API's devices are absent, asking for one is exit 2 naming it, and the other API's
# device still probes and passes conformance. Only the binary is built here, with the ci preset's
# flags: through ccache (ci/ccache-env.sh) after the ci build, only the files that depend on the
# options compile again. The preset configures the tests too (those that need the missing API
# then skip: tests/support/needs_api.h): `cmake --build build/ci-no<api>` and
# `ctest --test-dir build/ci-no<api> -LE needs-apiserver` build and run them.
#   ci/backend-off.sh vulkan|opencl
set -euo pipefail
cd "$(dirname "$0")/.."
api=$1
case "$api" in
  vulkan) other=opencl ;;
  opencl) other=vulkan ;;
  *) echo "usage: $0 vulkan|opencl" >&2; exit 2 ;;
esac
source ci/ccache-env.sh
dir=build/ci-no$api
cmake --preset "ci-no$api" >/dev/null
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
