# SPDX-License-Identifier: GPL-2.0
# Switch cfq -> none -> mq-deadline -> bfq -> cfq every half second while
# fio writes and verifies (crc32c) on a memory-backed disk: no splat, no
# lost or misdirected write, and the switches all take effect.
. "$TESTDIR/lib.sh"

nullb_create swtest irqmode=2 completion_nsec=200000 hw_queue_depth=4 \
	memory_backed=1 size=256
echo cfq >/sys/block/swtest/queue/scheduler

fio --output-format=json --eta=never --name=w --filename=/dev/swtest \
	--direct=1 --ioengine=psync --rw=randwrite --bs=4k --size=8m \
	--verify=crc32c --verify_fatal=1 --do_verify=1 --loops=3 \
	--verify_state_save=0 \
	--name=r --rw=randread --bs=16k --offset=64m --size=64m \
	--time_based --runtime=8 --numjobs=2 >/tmp/sw.json 2>/tmp/sw.err &
fpid=$!

switches=0
while kill -0 $fpid 2>/dev/null; do
	for s in none mq-deadline bfq cfq; do
		echo $s >/sys/block/swtest/queue/scheduler || fail "switch to $s"
		[ "$(active_sched swtest)" = $s ] || fail "switch to $s not active"
		switches=$((switches + 1))
		sleep 0.5
	done
done
wait $fpid || { cat /tmp/sw.err; fail "fio failed (verify?)"; }
grep -qi "verify" /tmp/sw.err && { cat /tmp/sw.err; fail "verify errors"; }
python3 - <<PY || fail "fio report"
import json, sys
sys.path.insert(0, '$CFQ_REPO/tests')
from harness import fio
d = fio.load_json_file('/tmp/sw.json')
w = [j for j in d['jobs'] if j['jobname'] == 'w'][0]
assert w['error'] == 0, w['error']
ios = w['write']['total_ios']
vrf = w['read']['total_ios']
assert ios > 0 and vrf > 0, (ios, vrf)
print(f'ok: {ios} writes, {vrf} verified reads')
PY
echo "ok: $switches scheduler switches under I/O"
[ "$switches" -ge 8 ] || fail "only $switches switches"
echo "{\"switches\": $switches}" >"$RESULT"
echo none >/sys/block/swtest/queue/scheduler
nullb_remove swtest
