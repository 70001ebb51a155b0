#!/bin/bash
# ad-hoc: two 1M direct readers, ionice be0 / be7, one group, on a null_blk
set -x
cd /sys/kernel/config/nullb && mkdir -p dd && cd dd
echo 2 > queue_mode; echo 2 > irqmode; echo ${CNS:-1000000} > completion_nsec; echo ${DEPTH:-8} > hw_queue_depth; echo 16384 > size; echo 1 > power
sleep 1
q=/sys/block/dd/queue
echo cfq > $q/scheduler; echo 0 > $q/rotational; echo 512 > $q/nr_requests
for fill in 1 0; do
echo $fill > $q/iosched/fill_slots
cat $q/iosched/fill_slots
ionice -c2 -n${PA:-0} fio --name=a --filename=/dev/dd --rw=read --bs=1M --direct=1 --time_based --runtime=8 --offset=0 --size=4G --output-format=terse > /tmp/a.txt &
ionice -c2 -n${PB:-7} fio --name=b --filename=/dev/dd --rw=read --bs=1M --direct=1 --time_based --runtime=8 --offset=8G --size=4G --output-format=terse > /tmp/b.txt &
for i in 1 2 3 4 5 6; do sleep 1; cat /sys/kernel/debug/block/dd/sched/queues; done
wait
a=$(cut -d';' -f6 /tmp/a.txt); b=$(cut -d';' -f6 /tmp/b.txt)
echo "fill=$fill a=$a b=$b KB share_a=$(( 1000 * a / (a + b) ))"
cat /sys/kernel/debug/block/dd/sched/events
done
