#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Guest probe: two 1 MiB O_DIRECT readers (fio psync, task prio 0 and 7)
# on a d32 null_blk (0.2 ms, depth 32), blktrace of 2 s in the middle.
# G1/G2 set the groups' cfq.ioprio, BG the group of the prio-7 reader
# (g1 by default: one group).  From tests/:
#   python3 -m harness.vm --kernel BZ --results DIR --cpus 1 --icount \
#       -- [env G1=0 G2=7 BG=g2] bash PATH/pair.sh
# then cycles.py DIR/trace.txt PID_OF_THE_PRIO_0_READER.
set -eu
out=${RESULTS:-/tmp/results}
cfs=/sys/kernel/config/nullb/pp
mkdir $cfs
for kv in queue_mode=2 submit_queues=1 irqmode=2 completion_nsec=200000 hw_queue_depth=32 size=16384 memory_backed=0 power=1; do
  echo ${kv#*=} > $cfs/${kv%%=*}
done
sleep 0.5
echo 0 > /sys/block/pp/queue/rotational
echo ${SCHED:-cfq} > /sys/block/pp/queue/scheduler
[ "${SCHED:-cfq}" = none ] || echo 512 > /sys/block/pp/queue/nr_requests
mkdir -p /dev/cgroup; mount -t cgroup -o cfq cfq /dev/cgroup 2>/dev/null || true
mkdir -p /dev/cgroup/g1 /dev/cgroup/g2; echo ${G1:-4} > /dev/cgroup/g1/cfq.ioprio; echo ${G2:-4} > /dev/cgroup/g2/cfq.ioprio
mount -t debugfs none /sys/kernel/debug 2>/dev/null || true
run() { sh -c 'echo $$ > /dev/cgroup/$0/tasks; exec "$@"' $4 fio --name=$1 --filename=/dev/pp --rw=read --bs=1M --direct=1 --ioengine=psync --time_based --runtime=6 --offset=$2 --prioclass=2 --prio=$3 --output-format=json > $out/fio.$1.json; }
run a 0 0 g1 &
run b 8589934592 7 ${BG:-g1} &
sleep 2
(cd /tmp && blktrace -d /dev/pp -w 2 -o tr > $out/bt.log 2>&1) || echo blktrace failed
wait
cat /sys/kernel/debug/block/pp/sched/events > $out/events 2>/dev/null || true
(cd /tmp && blkparse -i tr -f "%a %T.%9t %p %S %N\n" -q > $out/trace.txt 2> $out/bp.log)
ls -la $out
