# SPDX-License-Identifier: GPL-2.0
# The kernel of `make deb`'s package: it is the packaged release (-cfq),
# offers cfq on a disk, and its cfq cgroup controller works on cgroup v2
# (+cfq, cfq.weight) and mounts on a v1 hierarchy.  DEB_DISK names the
# disk to look at (a virtio disk of the VM).
. "$TESTDIR/lib.sh"

disk=${DEB_DISK:?}
echo "kernel $(uname -r)"
case $(uname -r) in
*-cfq) ;;
*) fail "not the packaged kernel: $(uname -r)" ;;
esac
[ -b "/dev/$disk" ] || fail "no /dev/$disk"
grep -qw cfq "/sys/block/$disk/queue/scheduler" ||
	fail "cfq not offered: $(cat "/sys/block/$disk/queue/scheduler")"
echo "ok: $disk offers $(cat "/sys/block/$disk/queue/scheduler")"

# cgroup v2
grep -qw cfq /sys/fs/cgroup/cgroup.controllers || fail "no cfq on cgroup v2"
echo +cfq >/sys/fs/cgroup/cgroup.subtree_control || fail "+cfq"
mkdir /sys/fs/cgroup/debtest || fail "mkdir"
echo 200 >/sys/fs/cgroup/debtest/cfq.weight || fail "write cfq.weight"
expect_eq "v2 cfq.weight" "$(head -1 /sys/fs/cgroup/debtest/cfq.weight)" \
	"default 200"
rmdir /sys/fs/cgroup/debtest
echo -cfq >/sys/fs/cgroup/cgroup.subtree_control || fail "-cfq"

# cgroup v1, as the RFC mounts it
mkdir -p /dev/cgroup
mount -t cgroup -o cfq cfq /dev/cgroup || fail "mount -t cgroup -o cfq"
mkdir /dev/cgroup/debtest || fail "mkdir on v1"
echo 0 >/dev/cgroup/debtest/cfq.ioprio || fail "write cfq.ioprio"
expect_eq "v1 cfq.ioprio" "$(cat /dev/cgroup/debtest/cfq.ioprio)" 0
rmdir /dev/cgroup/debtest
umount /dev/cgroup
echo "ok: the cfq controller on v2 and v1"
