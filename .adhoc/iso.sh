#!/bin/bash
cd /sys/kernel/config/nullb && mkdir -p di && cd di
echo 2 > queue_mode; echo 2 > irqmode; echo ${CNS:-1000000} > completion_nsec; echo ${DEPTH:-8} > hw_queue_depth; echo 16384 > size; echo 1 > power
sleep 1
q=/sys/block/di/queue
echo cfq > $q/scheduler; echo 0 > $q/rotational; echo 512 > $q/nr_requests
mkdir -p /dev/cgroup; mount -t cgroup -o cfq cfq /dev/cgroup
mkdir -p /dev/cgroup/R /dev/cgroup/W
echo 0 > /dev/cgroup/R/cfq.ioprio; echo 7 > /dev/cgroup/W/cfq.ioprio
S=/sys/kernel/debug/block/di/sched
sh -c "echo \$\$ > /dev/cgroup/W/tasks; exec fio --name=w --filename=/dev/di --rw=randwrite --bs=4k --direct=1 --numjobs=8 --time_based --runtime=6 --offset=8G --size=4G --group_reporting --output-format=terse" > /tmp/w.txt &
sh -c "echo \$\$ > /dev/cgroup/R/tasks; exec fio --name=r --filename=/dev/di --rw=randread --bs=4k --direct=1 --thinktime=2000 --time_based --runtime=6 --offset=0 --size=4G --output-format=terse" > /tmp/r.txt &
for i in 1 2 3 4; do sleep 1; cat $S/state; cut -c1-200 $S/groups; cat $S/queues; echo; done
wait
echo "r: $(cut -d';' -f6-8 /tmp/r.txt)  w: $(cut -d';' -f47-49 /tmp/w.txt)"
cat $S/events
