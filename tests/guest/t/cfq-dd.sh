# SPDX-License-Identifier: GPL-2.0
# The RFC's dd examples 1 and 2 on the emulated disk (null_blk 1 ms/IO,
# or as cfq-dd@hdd-q1 the emulated 7200 rpm disk), with dd and ionice
# exactly as the RFC ran them: two sequential 1 MiB readers at the same
# priority finish within 10 % of each other (their times summed over two
# runs); at -n0 vs -n7 the first is at least 1.3x faster (the RFC saw
# 57.0 vs 38.2 MB/s).
. "$TESTDIR/lib.sh"

test_disk ddtest irqmode=2 completion_nsec=1000000 hw_queue_depth=1 size=4096
echo cfq >/sys/block/$DISK/queue/scheduler
echo 1 >/sys/block/$DISK/queue/rotational
echo 128 >/sys/block/$DISK/queue/nr_requests

# dd_pair N1 N2: run two ionice'd dd readers at once; print the seconds
# each took from its own start (under TCG the second can start a few
# hundred ms after the first).
dd_pair() {
	local i n
	for i in 0 1; do
		n=$1; [ $i = 1 ] && n=$2
		( t0=$(date +%s.%N)
		  ionice -c 2 -n "$n" dd if=/dev/$DISK of=/dev/null bs=1M \
			count=256 skip=$((i * 1024)) iflag=direct 2>/dev/null
		  printf "%.3f\n" "$(echo "$(date +%s.%N) - $t0" | bc)" >/tmp/dd.$i ) &
	done
	wait
	echo "$(cat /tmp/dd.0) $(cat /tmp/dd.1)"
}

# One pair's times move by a few per cent under TCG (a late fork, the
# host); judge the same-priority pair on its sum over two runs, so that
# a single outlier does not decide and a real bias of 10 % still fails.
read -r a1 b1 <<<"$(dd_pair 3 3)"
echo "same priority, run 1: $a1 s and $b1 s"
read -r a2 b2 <<<"$(dd_pair 3 3)"
echo "same priority, run 2: $a2 s and $b2 s"
s1=$(echo "$a1 + $a2" | bc) s2=$(echo "$b1 + $b2" | bc)
echo "same priority: $s1 s and $s2 s over both runs"
ok=$(echo "r = $s1 / $s2; r <= 1.1 && r >= 1 / 1.1" | bc -l)
[ "$ok" = 1 ] || fail "same priority: $s1 vs $s2 differ by more than 10 %"
echo "ok: same priority within 10 %"

read -r a b <<<"$(dd_pair 0 7)"
echo "prio 0: $a s, prio 7: $b s"
ok=$(echo "$b / $a >= 1.3" | bc -l)
[ "$ok" = 1 ] || fail "prio 0 not 1.3x faster ($a s vs $b s)"
echo "ok: prio 0 is $(echo "scale=2; $b / $a" | bc)x faster"
printf '{"same_prio_s": [%s, %s], "prio_0_vs_7_s": [%s, %s]}\n' \
	"$s1" "$s2" "$a" "$b" >"$RESULT"
echo none >/sys/block/$DISK/queue/scheduler
test_disk_remove
