#!/usr/bin/env bash
# The shipped Slurm HealthCheckProgram and Prolog (recipes/slurm/) on a real single-node Slurm
# cluster: slurmd runs the health check at start and every interval; with a passing gate the node
# stays idle, with a wrong decode (the test fault health.decode=wrong) the recipe drains the node
# with gauntlet's first line as the reason. Resumed, the node takes a job whose Prolog finds the
# wrong decode: the node is drained with gauntlet's reason and the job requeued.
# usage: slurm_health_test.sh GAUNTLET_BINARY SOURCE_DIR WORK_DIR
set -euo pipefail
gauntlet=$1 source_dir=$2 work=$3
source "$source_dir/tests/fleet/slurm_cluster.sh"

rm -rf "$work"
mkdir -p "$work/state"
trap 'slurm_cluster_stop; rm -rf "$work"' EXIT

# slurmd runs the program with an environment of its own: a wrapper sets the test's (its state
# folder, a fake kernel log, the fault the test switches on through a file, the test cluster's
# SLURM_CONF) and counts its runs, then runs the recipe as shipped.
printf '6,1,1000,-;Linux version 6.1.0 (gauntlet test)\n' >"$work/kmsg"
: >"$work/fault"
: >"$work/prolog-fault"
cat >"$work/health-check" <<WRAP
#!/usr/bin/env bash
export PATH=$PATH SLURM_CONF=$work/cluster/slurm.conf GAUNTLET=$gauntlet
export GAUNTLET_STATE_DIR=$work/state GAUNTLET_KMSG=$work/kmsg
export GAUNTLET_HEALTH_ARGS="--device host --deadline 30"
export GAUNTLET_TEST_FAULT=\$(cat $work/fault)
"$source_dir/recipes/slurm/gauntlet-health-check.sh"
echo run >>"$work/runs"
WRAP
cat >"$work/prolog" <<WRAP
#!/usr/bin/env bash
export PATH=$PATH SLURM_CONF=$work/cluster/slurm.conf GAUNTLET=$gauntlet
export GAUNTLET_STATE_DIR=$work/state GAUNTLET_KMSG=$work/kmsg
export GAUNTLET_PROLOG_ARGS="--device host --deadline 15"
export GAUNTLET_TEST_FAULT=\$(cat $work/prolog-fault)
"$source_dir/recipes/slurm/gauntlet-prolog.sh"
WRAP
chmod +x "$work/health-check" "$work/prolog"
export SLURM_EXTRA_CONF="HealthCheckProgram=$work/health-check
HealthCheckInterval=5
HealthCheckNodeState=ANY
Prolog=$work/prolog"
slurm_cluster_start "$work/cluster"
host=$(hostname -s)

runs() { [ -f "$work/runs" ] && wc -l <"$work/runs" || echo 0; }
wait_runs() {  # wait until the program has run $1 times
  local deadline=$((SECONDS + 120))
  until [ "$(runs)" -ge "$1" ]; do
    [ $SECONDS -lt $deadline ] || { echo "FAIL: the health check ran $(runs) times, not $1, in 120 s"; exit 1; }
    sleep 1
  done
}

wait_runs 1
echo "--- scontrol show node after a passing gate ($(runs) runs):"
scontrol show node "$host"
state=$(sinfo -h -N -o '%T' | head -n 1)
[ "$state" = idle ] || { echo "FAIL: the node is '$state' after a passing gate"; exit 1; }

echo health.decode=wrong >"$work/fault"
before=$(runs)
wait_runs $((before + 2))
echo "--- scontrol show node after a wrong decode ($(runs) runs):"
shown=$(scontrol show node "$host")
echo "$shown"
grep -q 'State=[A-Z+]*DRAIN' <<<"$shown" || { echo "FAIL: the node is not drained"; exit 1; }
grep -q 'Reason=gauntlet: host decode wrong: greedy tokens differ' <<<"$shown" ||
  { echo "FAIL: the drain reason is not gauntlet's first line"; exit 1; }

# The Prolog: the health check passes again, the node is resumed, a job finds the wrong decode.
: >"$work/fault"
before=$(runs)
wait_runs $((before + 2))
scontrol update nodename="$host" state=resume
echo health.decode=wrong >"$work/prolog-fault"
job=$(sbatch --parsable -o /dev/null --wrap true)
deadline=$((SECONDS + 120))
until scontrol show node "$host" | grep -q 'State=[A-Z+]*DRAIN'; do
  [ $SECONDS -lt $deadline ] || { echo "FAIL: the prolog did not drain the node in 120 s"; exit 1; }
  sleep 1
done
sleep 2
echo "--- after a job whose prolog found a wrong decode:"
shown=$(scontrol show node "$host")
grep -E 'State=|Reason=' <<<"$shown"
scontrol show job "$job" | grep -E 'JobState=|Requeue=|Restarts=|Reason='
grep -q 'Reason=gauntlet: host decode wrong: greedy tokens differ' <<<"$shown" ||
  { echo "FAIL: the prolog's drain reason is not gauntlet's first line"; exit 1; }
job_state=$(scontrol show job "$job" | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p')
[ "$job_state" = PENDING ] || { echo "FAIL: the job is $job_state, not requeued (PENDING)"; exit 1; }
scancel "$job"
echo "PASS: a passing gate left the node idle; a wrong decode drained it with gauntlet's reason, from the health check and from the prolog (job $job requeued)"
