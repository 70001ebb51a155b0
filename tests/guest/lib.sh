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

# The disk a test runs on, in DISK (its name in /sys/block): a null_blk
# disk, test_disk NAME KEY=VAL...; or, when run-tests.sh runs the test as
# NAME@hdd-q1 or NAME@hdd-ncq (CFQ_DISK), the emulated 7200 rpm disk
# (tests/tools/hdd) at depth 1 or 32.
test_disk() {
	case ${CFQ_DISK:-} in
	"")
		nullb_create "$@"
		DISK=$1
		;;
	hdd-q1) hdd_start 1 ;;
	hdd-ncq) hdd_start 32 ;;
	*) fail "unknown CFQ_DISK '$CFQ_DISK'" ;;
	esac
}

test_disk_remove() {
	if [ -n "${HDD_SERVER:-}" ]; then
		kill "$HDD_SERVER"
		wait "$HDD_SERVER" || fail "hdd server exited $?"
		HDD_SERVER=
	else
		nullb_remove "$DISK"
	fi
}

# The emulated disk's server (built on the host into the cache): it
# prints its device's path once the device is up.
hdd_start() {
	local path
	coproc HDD { exec "$CFQ_CACHE/hdd/hdd" --depth "$1" --store none; }
	HDD_SERVER=$HDD_PID
	read -r path <&"${HDD[0]}" || fail "hdd did not start"
	wait_blockdev "$path"
	DISK=${path#/dev/}
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
