#!/usr/bin/env bash
# Slurm Prolog: `gauntlet health` before each job on the node, with a short deadline.
#
# Assumes what gauntlet-health-check.sh assumes (gauntlet installed, a baseline from a complete
# `gauntlet run`, run as root by slurmd: slurm.conf Prolog=/path/to/gauntlet-prolog.sh). A
# critical finding (exit 1) or a gate that could not run (exit 2) drains the node with gauntlet's
# first line as the reason and fails the prolog, so that Slurm requeues the job elsewhere; a pass
# or a warning lets the job start. The deadline is short: every job waits for it.
set -u

# Settings, in one place.
GAUNTLET=${GAUNTLET:-gauntlet}
GAUNTLET_PROLOG_ARGS=${GAUNTLET_PROLOG_ARGS:---deadline 15}
SCONTROL=${SCONTROL:-scontrol}
NODE=${SLURMD_NODENAME:-$(hostname -s)}

# shellcheck disable=SC2086 # the arguments are words on purpose
output=$("$GAUNTLET" health $GAUNTLET_PROLOG_ARGS 2>/dev/null)
status=$?
[ "$status" -eq 0 ] && exit 0
reason=$(printf '%s\n' "$output" | head -n 1)
[ -n "$reason" ] || reason="gauntlet: health exited $status with no output"
"$SCONTROL" update nodename="$NODE" state=drain reason="$reason"
exit 1
