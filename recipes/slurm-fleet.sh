#!/usr/bin/env bash
# gauntlet over a Slurm partition: an array job with one node per task, each task running
# `gauntlet run` and writing its report to a shared folder, then a merge job that waits for the
# whole array (afterany: a task that found failures still gets merged) and writes the fleet
# report. Run it where you run sbatch:  ./slurm-fleet.sh
#
# Assumes: gauntlet is installed on every node (the .deb, or GAUNTLET pointing at a binary every
# node can reach); SHARED is a folder that every node and this machine see at the same path (NFS,
# Lustre, ...); sbatch is on PATH; the nodes of the partition have the GPUs to test.
set -euo pipefail

# ---- edit here (or set the GAUNTLET_* variables in the environment) -----------------------------
# The device set: one entry ("all", "opencl:0", "vulkan:0,host", ...) that every task runs, or one
# entry per task, in task order, separated by spaces (a different device on each task).
DEVICES=${GAUNTLET_DEVICES:-all}
LEVEL=${GAUNTLET_LEVEL:-quick}                # quick, standard or full
NODES=${GAUNTLET_NODES:-4}                    # array tasks, one node each
PARTITION=${GAUNTLET_PARTITION:-}             # empty: the cluster's default partition
# A new folder per submission, so that a fleet report never mixes in an older run's reports.
SHARED=${GAUNTLET_SHARED:-$HOME/gauntlet-fleet/$(date +%Y%m%d-%H%M%S)}
TIME_LIMIT=${GAUNTLET_TIME_LIMIT:-01:00:00}   # per task
FAIL_ON_OUTLIER=${GAUNTLET_FAIL_ON_OUTLIER:-1}  # the merge job fails when a machine is an outlier
RUN_ARGS=${GAUNTLET_RUN_ARGS:-}               # more `gauntlet run` flags, e.g. --model /shared/m.gguf
GAUNTLET=${GAUNTLET:-gauntlet}
# --------------------------------------------------------------------------------------------------

export GAUNTLET_DEVICES=$DEVICES GAUNTLET_LEVEL=$LEVEL GAUNTLET_NODES=$NODES GAUNTLET_SHARED=$SHARED \
  GAUNTLET_FAIL_ON_OUTLIER=$FAIL_ON_OUTLIER GAUNTLET_RUN_ARGS=$RUN_ARGS GAUNTLET

# One array task: this node's devices (or its one entry of DEVICES) into SHARED/reports.
run_task() {
  local -a devices
  read -r -a devices <<<"$DEVICES"
  local device
  if [ "${#devices[@]}" -eq 1 ]; then
    device=${devices[0]}
  elif [ "${#devices[@]}" -eq "$NODES" ]; then
    device=${devices[$SLURM_ARRAY_TASK_ID]}
  else
    echo "slurm-fleet: DEVICES has ${#devices[@]} entries; give one, or one per task ($NODES)" >&2
    exit 2
  fi
  local report
  report="$SHARED/reports/$(hostname -s)-$SLURM_ARRAY_TASK_ID.json"
  # gauntlet exits 1 when it found failures: the report is written all the same.
  local -a more
  read -r -a more <<<"$RUN_ARGS"
  "$GAUNTLET" run --level "$LEVEL" --device "$device" --out "$report" --quiet "${more[@]}"
}

# The merge job: every report of the array into one fleet report, in JSON, markdown and HTML.
run_merge() {
  local -a reports=("$SHARED"/reports/*.json)
  local -a gate=()
  [ "$FAIL_ON_OUTLIER" = 1 ] && gate=(--fail-on-outlier)
  "$GAUNTLET" report merge "${reports[@]}" --format md -o "$SHARED/fleet.md" || true
  "$GAUNTLET" report merge "${reports[@]}" --format html -o "$SHARED/fleet.html" || true
  "$GAUNTLET" report merge "${reports[@]}" "${gate[@]}" -o "$SHARED/fleet.json"
}

case "${1:-submit}" in
  task) run_task ;;
  merge) run_merge ;;
  submit)
    mkdir -p "$SHARED/reports" "$SHARED/logs"
    partition=()
    [ -n "$PARTITION" ] && partition=(--partition "$PARTITION")
    array=$(sbatch --parsable "${partition[@]}" --job-name gauntlet --array "0-$((NODES - 1))" \
      --nodes 1 --exclusive --time "$TIME_LIMIT" --output "$SHARED/logs/task-%A_%a.out" \
      "$0" task)
    merge=$(sbatch --parsable "${partition[@]}" --job-name gauntlet-merge --nodes 1 \
      --dependency "afterany:${array%%;*}" --output "$SHARED/logs/merge-%j.out" "$0" merge)
    echo "array ${array%%;*} merge ${merge%%;*}: reports in $SHARED/reports, fleet report $SHARED/fleet.json"
    ;;
  *)
    echo "usage: $0 [submit|task|merge]" >&2
    exit 2
    ;;
esac
