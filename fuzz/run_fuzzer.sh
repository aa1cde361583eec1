#!/usr/bin/env bash
# Runs one fuzz target for a bounded time from its seeds, and prints what it did.
# Usage: run_fuzzer.sh FUZZER WORK_DIR SEED_DIR SECONDS [libFuzzer options ...]
set -euo pipefail
fuzzer=$1 work=$2 seeds=$3 seconds=$4
shift 4
if [ -z "$(ls -A "$seeds" 2>/dev/null)" ]; then
  echo "run_fuzzer: no seeds in $seeds" >&2
  exit 1
fi
rm -rf "$work"
mkdir -p "$work/corpus" "$work/artifacts"
# -rss_limit_mb and -timeout turn a runaway allocation or a hang into a finding.
status=0
"$fuzzer" "$work/corpus" "$seeds" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$work/artifacts/" -print_final_stats=1 "$@" >"$work/log" 2>&1 || status=$?
if [ "$status" -ne 0 ]; then
  tail -n 60 "$work/log"
  echo "run_fuzzer: $(basename "$fuzzer") found a failure (exit $status); its input is in $work/artifacts" >&2
  exit 1
fi
grep -E '^#[0-9]+ +(INITED|DONE)|^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$work/log"
