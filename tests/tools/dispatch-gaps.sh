#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest diagnostic: on a depth-1 disk, how long the device waits between
# a completion and the next dispatch, per scheduler, with blktrace.  The
# gap is what a scheduler's paths (and the guest CPU) add to each I/O;
# the service time is the device's.
#
#   dispatch-gaps.sh DISK SCHED[:groups]...
#
# Three fio jobs of NPROCS random 4 KiB direct readers each run for
# RUNTIME seconds; blktrace records TRACE seconds from the middle.  With
# ":groups" (cfq only) the jobs run in cfq groups at prio 0/4/7.
set -euo pipefail
disk=$1
shift
NPROCS=${NPROCS:-100}
RUNTIME=${RUNTIME:-14}
TRACE=${TRACE:-4}
here=$(dirname "$(readlink -f "$0")")
work=$(mktemp -d)
cg=/dev/cgroup

size_mb=$(($(cat /sys/block/$disk/size) / 2048 / 3))
if ! mountpoint -q $cg; then
	mkdir -p $cg
	mount -t cgroup -o cfq cfq $cg
fi
for p in 0 4 7; do
	mkdir -p $cg/p$p
	echo $p >$cg/p$p/cfq.ioprio
done

for spec in "$@"; do
	sched=${spec%%:*}
	echo "$sched" >/sys/block/$disk/queue/scheduler
	[ "$sched" = none ] || echo 512 >/sys/block/$disk/queue/nr_requests
	pids=()
	i=0
	for p in 0 4 7; do
		join=:
		[ "$spec" = "$sched:groups" ] && join="echo \$\$ >$cg/p$p/tasks"
		sh -c "$join && exec fio --name=p$p --filename=/dev/$disk \
			--direct=1 --rw=randread --bs=4k --numjobs=$NPROCS \
			--ioengine=psync --time_based --runtime=$RUNTIME \
			--offset=$((i * size_mb))M --size=${size_mb}M \
			--group_reporting --output-format=terse --eta=never" \
			>"$work/p$p.terse" &
		pids+=($!)
		i=$((i + 1))
	done
	sleep $(((RUNTIME - TRACE) / 2))
	rm -rf "$work/bt"
	mkdir "$work/bt"
	blktrace -d /dev/$disk -a issue -a complete -w "$TRACE" \
		-D "$work/bt" >/dev/null
	wait "${pids[@]}"
	blkparse -q -D "$work/bt" -i "$disk" -f '%a %T.%9t\n' >"$work/bt.txt"
	python3 "$here/gaps.py" "$spec" "$TRACE" "$work/bt.txt" \
		"$work"/p0.terse "$work"/p4.terse "$work"/p7.terse
done
rm -rf "$work"
