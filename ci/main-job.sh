#!/usr/bin/env bash
# Installs what is missing, builds gauntlet, and runs the main job: `gauntlet run` at the quick
# level on every device found, writing report.json (and report.html beside it).
set -euo pipefail
cd "$(dirname "$0")/.."
ci/install-deps.sh
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)" --target gauntlet
status=0
build/release/cli/gauntlet run --level quick --out report.json || status=$?
if [ -f report.json ]; then
  build/release/cli/gauntlet report show report.json --format html -o report.html
fi
exit "$status"
