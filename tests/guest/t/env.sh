# SPDX-License-Identifier: GPL-2.0
# The test VM has what every other test relies on.
. "$TESTDIR/lib.sh"

for opt in BLK_CGROUP IOSCHED_BFQ BFQ_GROUP_IOSCHED MQ_IOSCHED_DEADLINE \
	BLK_DEV_NULL_BLK SCSI_DEBUG KUNIT LKDTM IOSCHED_CFQ CFQ_CGROUP \
	CFQ_KUNIT_TEST; do
	zcat /proc/config.gz | grep -qx "CONFIG_$opt=y" || fail "CONFIG_$opt not built in"
done
echo "ok: config"
[ "$(nproc)" -ge 2 ] || fail "only $(nproc) CPU (ACPI missing?)"
grep -qw io /sys/fs/cgroup/cgroup.controllers || fail "no io controller in cgroup v2"
for t in fio ionice python3 sfdisk; do
	command -v $t >/dev/null || fail "$t missing in the guest"
done
nullb_create envtest irqmode=0 size=64
grep -q . /sys/block/envtest/queue/scheduler || fail "no scheduler file"
for s in none mq-deadline bfq cfq; do
	echo $s >/sys/block/envtest/queue/scheduler || fail "cannot select $s"
	expect_eq "scheduler after selecting $s" "$(active_sched envtest)" "$s"
done
nullb_remove envtest
echo "ok: env"
