#!/usr/bin/env bash
# Installs what is missing, builds gauntlet, and runs the main job on every device found.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
build/release/cli/gauntlet list
build/release/cli/gauntlet probe
