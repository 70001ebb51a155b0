# SPDX-License-Identifier: GPL-2.0
# Queue runs that find nothing to do.  Each costs a lock round trip, and
# one started by a completion a kblockd wake-up per hardware queue.  On a
# non-rotational device with two hardware queues (null_blk, 0.2 ms per
# I/O, depth 32 each), with readers of 1 MiB direct reads (fio):
# - two readers in one group at ionice 0 and 7.  The level-7 one is over
#   its share most of the time.  The level-0 reader's requests, chosen at
#   insert, must not each be followed by a dispatch that takes the lock
#   and finds nothing: dispatch_none is at most a quarter of
#   dispatch_ahead (it was about as many before the insert's second
#   choice and the completion's choice);
# - a reader alone in a cfq.ioprio 0 group beside one in a 7 group.  Its
#   queue keeps its slice while the group is held for it: slice_expire is
#   at most a tenth of dispatch_ahead (it was one per request before).
# Both pairs keep their shares, 81.8/18.2 and 88.9/11.1, within 2 points
# over the time both readers ran.  The host runs this test on the
# instruction clock (tests/host/test_vm.py, ICOUNT_TESTS).
. "$TESTDIR/lib.sh"

nullb_create runstest irqmode=2 completion_nsec=200000 hw_queue_depth=32 \
	submit_queues=2 size=16384
q=/sys/block/runstest/queue
echo 0 >$q/rotational
echo cfq >$q/scheduler
ev=/sys/kernel/debug/block/runstest/sched/events
event() { awk -v n="$1" '$1 == n { print $2 }' "$ev"; }
cg=/dev/cgroup
mounted=
if ! grep -q "^cfq $cg cgroup" /proc/mounts; then
	mkdir -p $cg
	mount -t cgroup -o cfq cfq $cg || fail "mount -o cfq"
	mounted=1
fi
# Leave the hierarchy as found on every way out, a failure's too:
# cfq-cgroup-files mounts it itself, and the same hierarchy cannot be
# mounted twice on one mount point (EBUSY).
cleanup() {
	for g in runs0 runs7 runsboth; do
		[ ! -d $cg/$g ] || rmdir $cg/$g
	done
	[ -z "$mounted" ] || umount $cg
}
trap cleanup EXIT
for g in runs0 runs7 runsboth; do
	mkdir -p $cg/$g || fail "mkdir $g"
done
echo 0 >$cg/runs0/cfq.ioprio
echo 7 >$cg/runs7/cfq.ioprio

# reader GROUP LEVEL OFFSET_MB: 1 MiB direct reads with fio in GROUP at BE
# LEVEL for 3 s after a second's ramp; each I/O's completion time (epoch
# ms) in /tmp/runs.GROUP.LEVEL_iops.1.log.
reader() {
	rm -f /tmp/runs.$1.$2_iops.1.log
	sh -c "echo \$\$ >$cg/$1/tasks && exec ionice -c 2 -n $2 fio \
		--name=r --filename=/dev/runstest --direct=1 --rw=read \
		--bs=1M --ioengine=psync --offset=${3}M --size=4G \
		--time_based --ramp_time=1 --runtime=3 --output-format=terse \
		--write_iops_log=/tmp/runs.$1.$2 --log_unix_epoch=1 \
		--eta=never" >/dev/null || fail "fio in $1 at $2"
}
# pair G1 L1 G2 L2: both readers at once; prints the I/Os each completed
# while both ran.  The two fio start apart (a page fault, the other's
# exec first): each one's own 3 s held up to a few tenths of a second of
# the other's ramp or end, and the level-7 reader read alone then (it
# read up to a third more in the runs where it did).
pair() {
	local la lb a0 a1 b0 b1 lo hi
	reader "$1" "$2" 0 &
	reader "$3" "$4" 8192 &
	wait
	la=/tmp/runs.$1.$2_iops.1.log lb=/tmp/runs.$3.$4_iops.1.log
	a0=$(head -1 "$la" | cut -d, -f1) a1=$(tail -1 "$la" | cut -d, -f1)
	b0=$(head -1 "$lb" | cut -d, -f1) b1=$(tail -1 "$lb" | cut -d, -f1)
	lo=$((a0 > b0 ? a0 : b0)) hi=$((a1 < b1 ? a1 : b1))
	echo "$(count "$la" $lo $hi) $(count "$lb" $lo $hi) $((hi - lo))"
}
# count LOG LO HI: the I/Os in fio's LOG completed from LO to HI (epoch ms).
count() {
	awk -F, -v lo="$2" -v hi="$3" '$1 >= lo && $1 <= hi' "$1" | wc -l
}
# share A B TARGET WHAT BAR: A's share of A + B within BAR points of
# TARGET.
share() {
	local s
	s=$(echo "scale=1; 100 * $1 / ($1 + $2)" | bc)
	echo "$4: $s % for $3"
	[ "$(echo "d = $s - $3; d <= $5 && d >= -$5" | bc)" = 1 ] ||
		fail "$4: $s % is not within $5 points of $3"
}

# runs EVENT PART G1 L1 G2 L2 TARGET WHAT BAR: the pair WHAT, G1's share
# within BAR points of TARGET, and EVENT counted at most once for every
# PART requests chosen at insert.
runs() {
	local e0 a0 a b ms e ah
	e0=$(event "$1") a0=$(event dispatch_ahead)
	read -r a b ms <<<"$(pair "$3" "$4" "$5" "$6")"
	e=$(($(event "$1") - e0)) ah=$(($(event dispatch_ahead) - a0))
	echo "$8: $a and $b I/Os in the $ms ms both ran"
	[ "$ms" -ge 2000 ] || fail "$8: together for $ms ms only"
	share "$a" "$b" "$7" "$8" "$9"
	[ "$ah" -ge 1000 ] || { cat "$ev"; fail "$8: only $ah chosen at insert"; }
	[ $(($2 * e)) -le "$ah" ] ||
		{ cat "$ev"; fail "$8: $e $1, for $ah chosen at insert"; }
	echo "ok: $8: $e $1, for $ah chosen at insert"
}

# Each fio's own 3 s, which this test judged until 2026-11-30, read the
# level pair 79.0-82.0 and the group pair 85.1-88.8 on the instruction
# clock, in two regimes (88.8, or 85-86), and 82.0-85.4 by CI hosts'
# clocks.  Over the time both ran, seven runs read 81.5-81.9 and
# 88.8-88.9.
runs dispatch_none 4 runsboth 0 runsboth 7 81.8 "level 0 beside level 7" 2
runs slice_expire 10 runs0 7 runs7 0 88.9 "group 0 beside group 7" 2

trap - EXIT
cleanup || fail "rmdir or umount $cg"
echo none >$q/scheduler
nullb_remove runstest
