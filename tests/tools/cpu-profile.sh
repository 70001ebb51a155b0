#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest diagnostic: where the CPU goes per scheduler on the CPU-bound
# device of 7-cpu-cost (instant-completion null_blk, NJOBS psync random
# 4 KiB readers), sampled with perf's cpu-clock event.
#
#   cpu-profile.sh SCHED...
#
# Run it in the test VM; perf comes from the host root (Debian package
# linux-perf, not installed by scripts/deps.sh: only this tool needs it):
#
#   python3 -m harness.vm --kernel BZIMAGE --results DIR --timeout 300 \
#       -- bash tests/tools/cpu-profile.sh mq-deadline cfq
#   perf report -i DIR/perf.cfq --vmlinux BUILD/vmlinux --no-children \
#       --sort sym --stdio
#
# It writes DIR/perf.SCHED and prints each scheduler's IOPS, and cfq's
# sched/events counters.  Code that runs with interrupts disabled (cfq's
# lock is taken with spin_lock_irq) is sampled when interrupts come back
# on: its time, spinning included, shows up at the unlock in the hook
# that took the lock, not in the helpers it called.
set -euo pipefail
NJOBS=${NJOBS:-2}
RUNTIME=${RUNTIME:-8}
out=${RESULTS:-/tmp/results}
dev=cpuprof
cfs=/sys/kernel/config/nullb/$dev

command -v perf >/dev/null || { echo "FAIL: no perf (apt install linux-perf)"; exit 1; }
mkdir "$cfs"
for kv in queue_mode=2 irqmode=0 completion_nsec=0 hw_queue_depth=64 \
	  size=16384 memory_backed=0 power=1; do
	echo "${kv#*=}" >"$cfs/${kv%%=*}"
done
for _ in $(seq 100); do
	[ -b /dev/$dev ] && break
	sleep 0.05
done
echo 0 >/sys/block/$dev/queue/rotational

for sched in "$@"; do
	echo "$sched" >/sys/block/$dev/queue/scheduler
	[ "$sched" = none ] || echo 512 >/sys/block/$dev/queue/nr_requests
	perf record -q -e cpu-clock -F 2000 -a -o "$out/perf.$sched" \
		fio --name=r --filename=/dev/$dev --direct=1 --rw=randread \
		--bs=4k --ioengine=psync --numjobs="$NJOBS" --time_based \
		--runtime="$RUNTIME" --group_reporting --output-format=terse \
		--eta=never >"$out/fio.$sched"
	echo "$sched: $(cut -d';' -f8 "$out/fio.$sched") IOPS"
	ev=/sys/kernel/debug/block/$dev/sched/events
	[ "$sched" != cfq ] || sed 's/^/  /' "$ev"
done
echo 0 >"$cfs/power"
rmdir "$cfs"
