#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The probe of docs/results/hdd/README.md, "Writes into a cache that is
# not one": partitioned random writes and reads on scsi_debug, none
# then cfq, debugfs events and state saved per load.
set -u
out=${RESULTS:-/tmp/results}
d=$(ls /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/)
echo disk $d
sz=$(( $(cat /sys/block/$d/size) * 512 / 4 / 1048576 ))
printf ',%dM\n,%dM\n,%dM\n' $sz $sz $sz | sfdisk -q --no-reread --no-tell-kernel /dev/$d
blockdev --rereadpt /dev/$d; sleep 1
echo 1 >/sys/block/$d/device/queue_depth
echo 1 >/sys/block/$d/queue/rotational
cat /sys/block/$d/queue/write_cache
mkdir -p /dev/cgroup; mount -t cgroup -o cfq cfq /dev/cgroup
for p in 0 4 7; do mkdir /dev/cgroup/g$p; echo $p >/dev/cgroup/g$p/cfq.ioprio; done
S=/sys/kernel/debug/block/$d/sched
for rw in ${RWS:-randwrite randread}; do
 for sched in none cfq; do
  echo $sched >/sys/block/$d/queue/scheduler
  [ $sched = cfq ] && echo 512 >/sys/block/$d/queue/nr_requests
  [ $sched = cfq ] && cat $S/events > $out/ev0.$rw
  i=1
  for p in 0 4 7; do
    sh -c 'echo $$ >/dev/cgroup/g'$p'/tasks; exec fio --name=r --filename=/dev/'$d$i' --direct=1 --rw='$rw' --bs=4k --ioengine=psync --numjobs=100 --size=40M --offset_increment=400k --norandommap --time_based --runtime=${RT:-8} --group_reporting --output-format=terse --eta=never' > $out/fio.$sched.$rw.$p &
    i=$((i+1))
  done
  sleep 4; [ $sched = cfq ] && cat $S/state > $out/state.$rw
  wait
  [ $sched = cfq ] && cat $S/events > $out/ev1.$rw
  for p in 0 4 7; do echo "$sched $rw g$p $(cut -d';' -f6,7,47,48 $out/fio.$sched.$rw.$p)"; done
 done
done
