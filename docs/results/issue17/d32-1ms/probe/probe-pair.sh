# SPDX-License-Identifier: GPL-2.0
# The guest probe behind probe/*/: the task-priority dd pair on d32-1ms,
# with debugfs `queues` and `state` sampled every 0.1 s.  Run it as a
# guest test: copy to tests/guest/t/, then from tests/
#   python3 -c "from harness import vm; vm.run_guest_tests(BZ, OUT,
#       ['probe-pair'], timeout=600, icount=True)"
. "$TESTDIR/lib.sh"
test_disk probe irqmode=2 completion_nsec=1000000 hw_queue_depth=32 size=16384
echo 0 >/sys/block/$DISK/queue/rotational
echo cfq >/sys/block/$DISK/queue/scheduler
echo 512 >/sys/block/$DISK/queue/nr_requests
D=/sys/kernel/debug/block/$DISK/sched
out=${RESULT%.json}; mkdir -p $out
grep . /sys/block/$DISK/queue/iosched/* >$out/tunables.txt 2>&1
for n in 0 7; do
	ionice -c 2 -n $n fio --name=r$n --filename=/dev/$DISK --direct=1 --rw=read \
		--bs=1M --offset=$((n * 1024))M --ioengine=psync --time_based --runtime=6 \
		--output-format=terse --eta=never >$out/fio.$n &
done
sleep 2
cat $D/events >$out/events.0
for i in $(seq 30); do
	echo "== $i $(cat /proc/uptime)"; cat $D/queues; cat $D/state 2>/dev/null | head -5
	sleep 0.1
done >$out/samples.txt
cat $D/events >$out/events.1
wait
echo ok >"$RESULT"
test_disk_remove
