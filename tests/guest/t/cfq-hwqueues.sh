# SPDX-License-Identifier: GPL-2.0
# On a device with several hardware queues, each has scheduler tags of
# its own: cfq compares what it holds (queued + in the driver, counted
# over the device) with the tags of all of them, not of one; a polled
# queue's tags (only polled I/O uses them) do not count.  null_blk with
# two submission queues and one poll queue: 2 x nr_requests.
. "$TESTDIR/lib.sh"

nullb_create hwqtest irqmode=2 completion_nsec=1000000 hw_queue_depth=4 \
	submit_queues=2 poll_queues=1 size=256
q=/sys/block/hwqtest/queue
n=$(ls -d /sys/block/hwqtest/mq/*/ | wc -l)
expect_eq "hardware queues" "$n" 3
echo cfq >$q/scheduler
state=/sys/kernel/debug/block/hwqtest/sched/state
depth() { awk '$1 == "depth" { print $2 }' "$state"; }
expect_eq "depth at nr_requests $(cat $q/nr_requests)" "$(depth)" \
	$((2 * $(cat $q/nr_requests)))
echo 64 >$q/nr_requests || fail "nr_requests 64"
expect_eq "depth at nr_requests 64" "$(depth)" 128
# The device takes 4 requests on each submission queue at once: the free
# slots other groups may fill (fill_slots) are counted against 8.
hw=$(awk '$1 == "hw_depth" { print $2 }' "$state")
expect_eq "hw_depth" "$hw" 8
echo none >$q/scheduler
nullb_remove hwqtest
