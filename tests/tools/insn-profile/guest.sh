#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest side of insn-profile.sh: for each scheduler, NJOBS psync random
# 4 KiB readers on an instant-completion null_blk (7-cpu-cost's device),
# between two sync(2) calls, which the insn-profile plugin takes as
# marks.  cfq's readers run in a group of their own (cfq.ioprio 4), as
# in 7-cpu-cost, or with NGROUPS > 1 spread over that many groups of that
# priority, one fio each (turns between equal groups); PRIOS, comma-
# separated, gives each group's priority instead.  Prints each
# window's I/O count.  NULLB, KEY=VALUE words separated by commas,
# overrides the device's null_blk settings; NR_REQUESTS (default 512)
# is the elevators' nr_requests, "default" for the kernel's own.  RW
# and BS replace fio's randread and 4k; LEVELS, comma-separated, gives
# each group's readers a best-effort level.
set -euo pipefail
NJOBS=${NJOBS:-1}
NGROUPS=${NGROUPS:-1}
NULLB=${NULLB:-}
NR_REQUESTS=${NR_REQUESTS:-512}
RW=${RW:-randread}
BS=${BS:-4k}
IFS=, read -ra prios <<<"${PRIOS:-}"
IFS=, read -ra levels <<<"${LEVELS:-}"
RUNTIME=${RUNTIME:-3}
out=${RESULTS:-/tmp/results}
dev=insnprof
cfs=/sys/kernel/config/nullb/$dev

mkdir "$cfs"
for kv in queue_mode=2 irqmode=0 completion_nsec=0 hw_queue_depth=64 \
	  size=16384 memory_backed=0 ${NULLB//,/ } power=1; do
	echo "${kv#*=}" >"$cfs/${kv%%=*}"
done
for _ in $(seq 100); do
	[ -b /dev/$dev ] && break
	sleep 0.05
done
echo 0 >/sys/block/$dev/queue/rotational
mkdir -p /dev/cgroup
mount -t cgroup -o cfq cfq /dev/cgroup
for g in $(seq "$NGROUPS"); do
	mkdir /dev/cgroup/g$g
	echo "${prios[g - 1]:-4}" >/dev/cgroup/g$g/cfq.ioprio
done

window=0
for sched in "$@"; do
	echo "$sched" >/sys/block/$dev/queue/scheduler
	[ "$sched" = none ] || [ "$NR_REQUESTS" = default ] ||
		echo "$NR_REQUESTS" >/sys/block/$dev/queue/nr_requests
	# One warm-up run: caches, the group's state, fio's own start-up.
	for pass in warm measured; do
		for g in $(seq "$NGROUPS"); do
			sh -c 'echo $$ >"$0"; exec "$@"' /dev/cgroup/g$g/tasks \
				fio --name=r --filename=/dev/$dev --direct=1 \
				--rw="$RW" --bs="$BS" --ioengine=psync \
				${levels[g - 1]:+--prioclass=2 --prio=${levels[g - 1]}} \
				--numjobs="$((NJOBS / NGROUPS))" --time_based \
				--runtime="$RUNTIME" --group_reporting \
				--output-format=terse --eta=never \
				>"$out/fio.$sched.$pass.g$g" &
		done
		# Mark once fio's workers run, and again before they stop.
		sleep 1
		[ $pass = warm ] || { sync; window=$((window + 1)); }
		read -r t0 _ </sys/block/$dev/stat
		sleep "$((RUNTIME - 2)).5"
		read -r t1 _ </sys/block/$dev/stat
		[ $pass = warm ] || { sync; window=$((window + 1)); }
		wait
		[ $pass = warm ] ||
			echo "window $((window - 1)) $sched: $((t1 - t0)) reads"
	done
	ev=/sys/kernel/debug/block/$dev/sched/events
	[ "$sched" != cfq ] || sed 's/^/  /' "$ev"
done
echo 0 >"$cfs/power"
rmdir "$cfs"
