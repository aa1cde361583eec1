#!/usr/bin/env bash
# The cpu device on 64-bit ARM, which no developer machine here has: cross-compiled with Debian's
# aarch64 toolchain (the arm64-qemu preset) and its tests (the Cpu* suites: every kernel against
# the decoded dot products on every Highway target qemu runs, NEON and SVE among them, and the
# decode against the exact reference) run under qemu-user. Correctness only: an emulated speed
# means nothing. Installs what is missing (the arm64 architecture, the cross compiler, qemu-user,
# arm64 Highway and GoogleTest). Not part of .ci/run: the cross build and the emulated tests take
# longer than CI's budget leaves.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
packages=(g++-aarch64-linux-gnu qemu-user libc6-dev:arm64 libhwy-dev:arm64 libgtest-dev:arm64
  libgmock-dev:arm64)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "arm64-qemu: installing ${missing[*]}"
  dpkg --print-foreign-architectures | grep -qx arm64 || "${sudo_cmd[@]}" dpkg --add-architecture arm64
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends \
    "${missing[@]}" >/dev/null
fi

# Debian's libsimdjson-dev cannot be installed beside the native one (it is not Multi-Arch: same).
# Only the configure step looks for it (the reports library links it; the cpu tests do not), so
# its arm64 package is unpacked into the build folder.
build=build/arm64-qemu
simdjson=$PWD/$build/simdjson-arm64
if [ ! -d "$simdjson/usr/lib/aarch64-linux-gnu/cmake/simdjson" ]; then
  mkdir -p "$simdjson/debs"
  (cd "$simdjson/debs" && apt-get download libsimdjson-dev:arm64 libsimdjson14:arm64 >/dev/null)
  for deb in "$simdjson"/debs/*.deb; do dpkg -x "$deb" "$simdjson"; done
fi

source ci/ccache-env.sh
cmake --preset arm64-qemu -Dsimdjson_DIR="$simdjson/usr/lib/aarch64-linux-gnu/cmake/simdjson" >/dev/null
cmake --build --preset arm64-qemu -j "$(nproc)"
qemu-aarch64 "$build/tests/engine/test_engine_cpu" --gtest_list_tests >/dev/null
echo "arm64-qemu: $(file -b "$build/tests/engine/test_engine_cpu" | cut -d, -f1-2)"
ctest --preset arm64-qemu
