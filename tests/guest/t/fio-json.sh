# SPDX-License-Identifier: GPL-2.0
# fio runs in the guest and its JSON parses, per scheduler; the result
# file carries IOPS per scheduler on an instant-completion null_blk.
. "$TESTDIR/lib.sh"

nullb_create fiotest irqmode=0 size=256
echo '{' >"$RESULT.tmp"
sep=
for s in none mq-deadline bfq cfq; do
	echo $s >/sys/block/fiotest/queue/scheduler
	fio --output-format=json --eta=never --name=j --filename=/dev/fiotest \
		--direct=1 --rw=randread --bs=4k --time_based --runtime=3 \
		--ioengine=psync >/tmp/fio-$s.json || fail "fio on $s"
	iops=$(python3 -c "
import sys; sys.path.insert(0, '$CFQ_REPO/tests')
from harness import fio
d = fio.load_json_file('/tmp/fio-$s.json')
print(int(d['jobs'][0]['read']['iops']))")
	[ "$iops" -gt 0 ] || fail "$s: no I/O completed"
	echo "ok: $s $iops IOPS"
	printf '%s"%s": %s\n' "$sep" "$s" "$iops" >>"$RESULT.tmp"
	sep=,
done
echo '}' >>"$RESULT.tmp"
mv "$RESULT.tmp" "$RESULT"
nullb_remove fiotest
