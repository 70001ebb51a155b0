# SPDX-License-Identifier: GPL-2.0
# Helpers for guest tests (sourced).  A test fails by exiting non-zero;
# fail() says why first.

fail() {
	echo "FAIL: $*"
	exit 1
}

# expect_eq WHAT GOT WANT
expect_eq() {
	[ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"
	echo "ok: $1 = $3"
}

# A null_blk disk through configfs: nullb_create NAME KEY=VAL...
nullb_create() {
	local name=$1 d=/sys/kernel/config/nullb/$1 kv
	shift
	mkdir "$d" || fail "mkdir $d"
	echo 2 >"$d/queue_mode"
	for kv in "$@"; do
		echo "${kv#*=}" >"$d/${kv%%=*}" || fail "nullb $name: $kv"
	done
	echo 1 >"$d/power" || fail "power on $name"
	wait_blockdev "/dev/$name"
}

nullb_remove() {
	local d=/sys/kernel/config/nullb/$1
	[ -d "$d" ] || return 0
	echo 0 >"$d/power"
	rmdir "$d"
}

wait_blockdev() {
	local i
	for i in $(seq 100); do
		[ -b "$1" ] && return 0
		sleep 0.05
	done
	fail "$1 did not appear"
}

# The active scheduler of a disk.
active_sched() {
	sed -n 's/.*\[\(.*\)\].*/\1/p' "/sys/block/$1/queue/scheduler"
}
