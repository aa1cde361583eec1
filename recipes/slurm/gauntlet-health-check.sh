#!/usr/bin/env bash
# Slurm HealthCheckProgram: `gauntlet health`, the node gate, and a drain with its reason.
#
# Assumes: gauntlet is installed on the node and a complete `gauntlet run` wrote its baseline
# there (as root: /var/lib/gauntlet/baseline.json; without one the gate still runs and warns);
# slurmd runs this as root (slurm.conf: HealthCheckProgram=/path/to/gauntlet-health-check.sh,
# HealthCheckInterval=300) and kills it after 60 s, so the deadline stays well inside that.
# A critical finding (exit 1) or a gate that could not run (exit 2) drains the node with
# gauntlet's first line as the reason; a pass or a warning leaves the node as it is. Slurm
# expects the program to drain the node itself.
set -u

# Settings, in one place.
GAUNTLET=${GAUNTLET:-gauntlet}
GAUNTLET_HEALTH_ARGS=${GAUNTLET_HEALTH_ARGS:---deadline 40}
SCONTROL=${SCONTROL:-scontrol}
NODE=${SLURMD_NODENAME:-$(hostname -s)}

# shellcheck disable=SC2086 # the arguments are words on purpose
output=$("$GAUNTLET" health $GAUNTLET_HEALTH_ARGS 2>/dev/null)
status=$?
reason=$(printf '%s\n' "$output" | head -n 1)
[ -n "$reason" ] || reason="gauntlet: health exited $status with no output"
if [ "$status" -ne 0 ]; then
  "$SCONTROL" update nodename="$NODE" state=drain reason="$reason"
fi
exit 0
