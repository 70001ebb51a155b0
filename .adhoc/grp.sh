#!/bin/bash
# ad-hoc: group prio 7 (reader be0) vs group prio 0 (reader be7), 1M direct readers
cd /sys/kernel/config/nullb && mkdir -p dg && cd dg
echo 2 > queue_mode; echo 2 > irqmode; echo ${CNS:-200000} > completion_nsec; echo ${DEPTH:-32} > hw_queue_depth; echo 16384 > size; echo 1 > power
sleep 1
q=/sys/block/dg/queue
echo cfq > $q/scheduler; echo 0 > $q/rotational; echo 512 > $q/nr_requests
mkdir -p /dev/cgroup; mount -t cgroup -o cfq cfq /dev/cgroup
mkdir -p /dev/cgroup/A /dev/cgroup/B
echo 7 > /dev/cgroup/A/cfq.ioprio; echo 0 > /dev/cgroup/B/cfq.ioprio
for fill in 1 0; do
echo $fill > $q/iosched/fill_slots
sh -c "echo \$\$ > /dev/cgroup/A/tasks; exec ionice -c2 -n0 fio --name=a --filename=/dev/dg --rw=read --bs=1M --direct=1 --time_based --runtime=8 --offset=0 --size=4G --output-format=terse" > /tmp/a.txt &
sh -c "echo \$\$ > /dev/cgroup/B/tasks; exec ionice -c2 -n7 fio --name=b --filename=/dev/dg --rw=read --bs=1M --direct=1 --time_based --runtime=8 --offset=8G --size=4G --output-format=terse" > /tmp/b.txt &
for i in 1 3 5; do sleep 2; cat /sys/kernel/debug/block/dg/sched/groups | cut -c1-150; cat /sys/kernel/debug/block/dg/sched/queues; done
wait
a=$(cut -d';' -f6 /tmp/a.txt); b=$(cut -d';' -f6 /tmp/b.txt)
echo "fill=$fill a=$a b=$b KB share_a=$(( 1000 * a / (a + b) ))"
cat /sys/kernel/debug/block/dg/sched/events
done
