#!/usr/bin/env bash
# Installs what is missing, builds with warnings as errors, and runs the whole test suite.
# CI runs exactly this (.ci/run); so does the README's second command.
set -euo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh
ci/check-repo.sh
cmake --preset ci >/dev/null
cmake --build --preset ci -j "$(nproc)"
ctest --preset ci
