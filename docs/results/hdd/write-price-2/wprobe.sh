#!/bin/bash
# Usage (guest): wprobe.sh [WRITER_PRIO=7] [PROFILE=hdd-q1]: groups at prio 0/4/7 of 25 random 4 KiB readers, the WRITER_PRIO one writing; debugfs every second.
set -u
TESTDIR=$CFQ_REPO/tests/guest
. $TESTDIR/lib.sh
out=/tmp/results
CFQ_DISK=${2:-hdd-q1}
test_disk
sz=$(cat /sys/block/$DISK/size)
echo cfq >/sys/block/$DISK/queue/scheduler
mkdir -p /dev/cgroup; mount -t cgroup -o cfq cfq /dev/cgroup
i=0
for p in 0 4 7; do mkdir /dev/cgroup/g$p; echo $p >/dev/cgroup/g$p/cfq.ioprio
  rw=randread; [ "$p" = "${1:-7}" ] && rw=randwrite
  base=$(( sz * 512 / 3 * i )); i=$((i+1))
  sh -c 'echo $$ >/dev/cgroup/g'$p'/tasks; exec fio --name=r --filename=/dev/'$DISK' --direct=1 --rw='$rw' --bs=4k --ioengine=psync --numjobs=25 --offset='$base' --size=27g --offset_increment=27g --time_based --runtime=10 --group_reporting --output-format=terse --eta=never' > $out/fio.$p &
done
for s in 1 2 3 4 5 6 7 8 9; do sleep 1; grep -E "read_us|service_us" /sys/kernel/debug/block/$DISK/sched/state | tr '\n' ' '; echo; done
wait; echo done-wait
cat /sys/kernel/debug/block/$DISK/sched/events
