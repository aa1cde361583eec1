#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole test suite; then
# builds the libFuzzer targets (the fuzz preset, clang) and runs each for a bounded time from
# seeds the ci build's gauntlet writes; last, builds without Vulkan and without OpenCL and runs
# them. CI runs exactly this (.ci/run); so does the README's second command.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh
ci/check-repo.sh
source ci/ccache-env.sh
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci
cmake --preset fuzz >/dev/null
cmake --build --preset fuzz -j "$(nproc)"
ctest --preset fuzz
ci/backend-off.sh vulkan
ci/backend-off.sh opencl
