# A single-node Slurm cluster from Debian's packages (munge, slurmctld, slurmd), for the tests:
# every file, socket and daemon lives in one folder, on ports of its own, so that it neither needs
# nor disturbs a cluster of the machine. Source it, then:
#   slurm_cluster_start DIR   writes DIR/slurm.conf, starts munged, slurmctld and slurmd, waits
#                             for the node to be idle, and exports SLURM_CONF
#   slurm_cluster_stop        stops the three daemons it started (by their pid files)
# SLURM_EXTRA_CONF, when set, is appended to slurm.conf (e.g. a HealthCheckProgram).
# A cluster that does not come up is a failure with the daemons' own words, never a skip.

slurm_cluster_fail() {
  echo "slurm cluster: $*" >&2
  for log in "$SLURM_TEST_DIR"/munged.log "$SLURM_TEST_DIR"/slurmctld.log "$SLURM_TEST_DIR"/slurmd.log; do
    [ -f "$log" ] && { echo "--- $log (last lines)" >&2; tail -n 15 "$log" >&2; }
  done
  return 1
}

# A TCP port nobody listens on, from the dynamic range.
slurm_free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

slurm_cluster_start() {
  SLURM_TEST_DIR=$1
  local dir=$1 host cpus memory
  host=$(hostname -s)
  cpus=$(nproc)
  memory=$(($(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 / 2))
  mkdir -p "$dir/state" "$dir/spool" "$dir/munge"
  chmod 700 "$dir/munge"
  dd if=/dev/urandom of="$dir/munge/munge.key" bs=128 count=1 status=none
  chmod 600 "$dir/munge/munge.key"
  for tool in munged slurmctld slurmd sbatch squeue scontrol; do
    command -v "$tool" >/dev/null || slurm_cluster_fail "$tool is not installed (ci/install-deps.sh installs munge, slurmctld, slurmd, slurm-client)" || return 1
  done

  munged --force --socket="$dir/munge/munge.socket" --key-file="$dir/munge/munge.key" \
    --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munge/seed" ||
    { slurm_cluster_fail "munged did not start"; return 1; }

  cat >"$dir/slurm.conf" <<CONF
ClusterName=gauntlet-test
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$(slurm_free_port)
SlurmdPort=$(slurm_free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
SchedulerType=sched/backfill
MinJobAge=300
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
${SLURM_EXTRA_CONF:-}
CONF
  export SLURM_CONF=$dir/slurm.conf
  slurmctld -i -f "$SLURM_CONF" || { slurm_cluster_fail "slurmctld did not start"; return 1; }
  slurmd -f "$SLURM_CONF" || { slurm_cluster_fail "slurmd did not start"; return 1; }

  local state=""
  for _ in $(seq 1 60); do
    state=$(sinfo -h -N -o '%T' 2>/dev/null | head -n 1)
    [ "$state" = idle ] && return 0
    sleep 0.5
  done
  slurm_cluster_fail "the node is '${state:-unknown}', not idle, 30 s after slurmd started"
}

slurm_cluster_stop() {
  local name pid
  for name in slurmd slurmctld munged; do
    pid=$(cat "$SLURM_TEST_DIR/$name.pid" 2>/dev/null) || continue
    kill "$pid" 2>/dev/null || continue
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  done
}
