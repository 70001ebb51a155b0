# SPDX-License-Identifier: GPL-2.0
# Every cfq tunable: valid writes read back; malformed or out-of-range
# writes fail with EINVAL and change nothing.
. "$TESTDIR/lib.sh"

nullb_create tuntest irqmode=0 size=64
echo cfq >/sys/block/tuntest/queue/scheduler || fail "cannot select cfq"
expect_eq scheduler "$(active_sched tuntest)" cfq
d=/sys/block/tuntest/queue/iosched

# name default min max
table="quantum 8 1 256
fifo_expire_sync 125 1 60000
fifo_expire_async 250 1 60000
back_seek_max 16384 0 1048576
back_seek_penalty 2 1 1000
slice_sync 100 1 10000
slice_async 40 1 10000
slice_async_rq 2 1 1024
slice_idle 8 0 1000
group_idle 8 0 1000
low_latency 1 0 1
target_latency 300 1 10000
group_slice 100 1 10000
service_mode 0 0 2
group_depth 1 0 1
equal_noidle 1 0 1"

expect_einval() { # file value
	local before after err
	before=$(cat "$1")
	if err=$(printf '%s' "$2" 2>&1 >"$1"); then
		fail "$1: writing '$2' succeeded"
	fi
	case $err in
	*"Invalid argument"*) ;;
	*) fail "$1: writing '$2': '$err', want Invalid argument" ;;
	esac
	after=$(cat "$1")
	[ "$before" = "$after" ] || fail "$1: '$2' changed $before to $after"
}

n=0
for f in "$d"/*; do n=$((n + 1)); done
expect_eq "number of tunables" "$n" "$(echo "$table" | wc -l)"

echo "$table" | while read -r name def min max; do
	f=$d/$name
	[ -f "$f" ] || fail "$name missing"
	expect_eq "$name default" "$(cat "$f")" "$def"
	for v in "$min" "$max" "$def"; do
		echo "$v" >"$f" || fail "$name: writing $v failed"
		expect_eq "$name after writing $v" "$(cat "$f")" "$v"
	done
	expect_einval "$f" "$((max + 1))"
	[ "$min" -gt 0 ] && expect_einval "$f" "$((min - 1))"
	# (A zero-byte write never reaches the scheduler: sysfs ignores it.)
	for bad in -1 abc $'\n' 4x " 4" 0x10 99999999999 \
		"$(printf '9%.0s' $(seq 300))"; do
		expect_einval "$f" "$bad"
	done
	echo "ok: $name"
done || exit 1

echo none >/sys/block/tuntest/queue/scheduler
nullb_remove tuntest
