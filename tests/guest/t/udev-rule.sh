# SPDX-License-Identifier: GPL-2.0
# The udev rule the packages install (scripts/udev/60-cfq-iosched.rules),
# run by the host's `udevadm test --action=add` (no udevd needed) on two
# null_blk disks, one of them marked rotational, and on a partition: the
# rule selects cfq for the rotational disk only.  The host's own rules
# are hidden, so that only this one runs.  With UDEV_DISK=NAME, also the
# disk NAME, rotational from the start (a virtio disk): cfq on it.
. "$TESTDIR/lib.sh"

rule=$CFQ_REPO/scripts/udev/60-cfq-iosched.rules
command -v udevadm >/dev/null ||
	fail "no udevadm on the host (scripts/deps.sh installs udev)"
for d in /etc/udev/rules.d /usr/lib/udev/rules.d /lib/udev/rules.d \
	/usr/local/lib/udev/rules.d; do
	if [ -d "$d" ]; then
		mount -t tmpfs hide-rules "$d" || fail "hide $d"
	fi
done
mkdir -p /run/udev/rules.d
cp "$rule" /run/udev/rules.d/ || fail "copy the rule"

nullb_create urot irqmode=0 size=64 memory_backed=1
nullb_create unrot irqmode=0 size=64 memory_backed=1
echo 1 >/sys/block/urot/queue/rotational || fail "mark urot rotational"
expect_eq "unrot rotational" "$(cat /sys/block/unrot/queue/rotational)" 0
grep -qw cfq /sys/block/urot/queue/scheduler || fail "cfq not offered"
# A partition on the rotational disk: it has no queue of its own.
printf 'label: dos\n,16M\n' | sfdisk -q /dev/urot || fail "sfdisk"
wait_blockdev /dev/urot1

# run_rule DEV: udevadm test's log of the add event of DEV.
run_rule() {
	udevadm test --action=add "$1" >"/tmp/udev-${1##*/}.log" 2>&1 ||
		{ cat "/tmp/udev-${1##*/}.log"; fail "udevadm test $1"; }
}

disks="unrot urot ${UDEV_DISK:-}"
declare -A before
for d in $disks; do
	before[$d]=$(active_sched "$d")
	echo "$d: rotational $(cat "/sys/block/$d/queue/rotational"), scheduler ${before[$d]}"
done
for d in $disks; do
	run_rule "/sys/block/$d"
done
run_rule /sys/block/urot/urot1

# The rule's assignment, as udevadm test logs it.
wrote() {
	grep -q "60-cfq-iosched.rules:.*ATTR '.*/queue/scheduler' writing 'cfq'" \
		"/tmp/udev-$1.log"
}
wrote urot || { cat /tmp/udev-urot.log; fail "the rule did not match urot"; }
expect_eq "urot scheduler" "$(active_sched urot)" cfq
if [ -n "${UDEV_DISK:-}" ]; then
	wrote "$UDEV_DISK" || fail "the rule did not match $UDEV_DISK"
	expect_eq "$UDEV_DISK scheduler" "$(active_sched "$UDEV_DISK")" cfq
fi
! wrote unrot || fail "the rule matched the non-rotational unrot"
expect_eq "unrot scheduler" "$(active_sched unrot)" "${before[unrot]}"
! wrote urot1 || fail "the rule matched the partition urot1"

# The rule is the only one loaded: nothing else wrote an attribute.
want=1
[ -z "${UDEV_DISK:-}" ] || want=2
n=$(cat /tmp/udev-*.log | grep -c "ATTR '.*' writing" || true)
expect_eq "attributes written" "$n" "$want"

nullb_remove urot
nullb_remove unrot
echo "ok: cfq on the rotational disks only"
