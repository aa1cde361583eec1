#!/usr/bin/env bash
# The shipped Slurm recipe on a real single-node Slurm cluster: a 3-task array, each task a
# different device of this machine at the quick level, then the merge job; the fleet report must
# hold all three devices and no skipped report.
# usage: slurm_recipe_test.sh GAUNTLET_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
gauntlet=$1 source_dir=$2 work=$3
source "$source_dir/tests/fleet/slurm_cluster.sh"

rm -rf "$work"
mkdir -p "$work"
trap 'slurm_cluster_stop; rm -rf "$work"' EXIT
slurm_cluster_start "$work/cluster"

# The three devices `gauntlet run` judges here: PoCL, llvmpipe and the cpu device. The test is
# about the scheduling, so each task decodes a tiny synthetic model (half the quick run's time).
devices="opencl:0 vulkan:0 cpu"
tiny="--shape n_embd=64,n_layer=1,n_head=1,n_ff=128,n_vocab=256,context=512"
submitted=$(cd "$work" && GAUNTLET="$gauntlet" GAUNTLET_DEVICES="$devices" GAUNTLET_NODES=3 \
  GAUNTLET_LEVEL=quick GAUNTLET_RUN_ARGS="$tiny" GAUNTLET_SHARED="$work/shared" \
  GAUNTLET_TIME_LIMIT=00:10:00 "$source_dir/recipes/slurm-fleet.sh")
echo "$submitted"
merge_job=$(sed -n 's/.* merge \([0-9]*\):.*/\1/p' <<<"$submitted")
[ -n "$merge_job" ] || { echo "FAIL: the recipe did not print its merge job id"; exit 1; }

deadline=$((SECONDS + 240))
while [ -n "$(squeue -h)" ]; do
  if [ $SECONDS -gt $deadline ]; then
    echo "FAIL: jobs still queued or running after 240 s:"; squeue; exit 1
  fi
  sleep 1
done
state=$(scontrol show job "$merge_job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
for log in "$work"/shared/logs/*.out; do echo "--- $log"; cat "$log"; done

fleet="$work/shared/fleet.json"
[ -f "$fleet" ] || { echo "FAIL: no fleet report (merge job $state)"; exit 1; }
python3 "$source_dir/tests/reports/validate_schema.py" "$source_dir/reports/schema/fleet.schema.json" "$fleet"
python3 - "$fleet" <<'PY'
import json, sys
fleet = json.load(open(sys.argv[1]))
machines = [m for g in fleet["groups"] for m in g["machines"]]
print("fleet:", fleet["reports"], "reports,", len(machines), "devices:",
      sorted(m["device"] for m in machines))
assert fleet["reports"] == 3, fleet["reports"]
assert fleet["skipped"] == [], fleet["skipped"]
assert fleet["machine_count"] == 3 and len(machines) == 3, machines
sources = sorted(m["source"].rsplit("-", 1)[1] for m in machines)
assert sources == ["0.json", "1.json", "2.json"], sources  # one report per array task
assert len({m["device"] for m in machines}) == 3  # three different devices
PY
[ -s "$work/shared/fleet.md" ] && [ -s "$work/shared/fleet.html" ]
echo "PASS: merge job $state, 3 devices in the fleet report"
