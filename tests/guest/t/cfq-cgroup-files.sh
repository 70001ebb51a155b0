# SPDX-License-Identifier: GPL-2.0
# The cfq cgroup subsystem as the RFC uses it: mount -o cfq, mkdir,
# tasks (children inherit), cfq.ioprio (default 4, 0..7, root too),
# malformed writes rejected with EINVAL leaving the value, cgexec.
. "$TESTDIR/lib.sh"

mkdir -p /dev/cgroup
mount -t cgroup -o cfq cfq /dev/cgroup || fail "mount -o cfq"
grep -q '^cfq /dev/cgroup cgroup .*cfq' /proc/mounts || fail "not in /proc/mounts"
[ -f /dev/cgroup/cfq.ioprio ] || fail "root has no cfq.ioprio"
expect_eq "root cfq.ioprio" "$(cat /dev/cgroup/cfq.ioprio)" 4
mkdir /dev/cgroup/test1 || fail "mkdir"
expect_eq "new group's cfq.ioprio" "$(cat /dev/cgroup/test1/cfq.ioprio)" 4

for v in 0 7 2; do
	echo $v >/dev/cgroup/test1/cfq.ioprio || fail "write $v"
	expect_eq "after writing $v" "$(cat /dev/cgroup/test1/cfq.ioprio)" $v
done
for bad in -1 8 abc $'\n' 4x 99999999999 " 4" 0x2 "2 3"; do
	if err=$(printf '%s' "$bad" 2>&1 >/dev/cgroup/test1/cfq.ioprio); then
		fail "writing '$bad' succeeded"
	fi
	case $err in *"Invalid argument"*) ;; *) fail "'$bad': $err" ;; esac
	expect_eq "after '$bad'" "$(cat /dev/cgroup/test1/cfq.ioprio)" 2
done
echo 6 >/dev/cgroup/cfq.ioprio || fail "root write"
expect_eq "root after writing 6" "$(cat /dev/cgroup/cfq.ioprio)" 6
echo 4 >/dev/cgroup/cfq.ioprio

# A task and its children.
sh -c 'echo $$ > /dev/cgroup/test1/tasks; sleep 30 & echo $! > /tmp/child; wait' &
sleep 0.5
child=$(cat /tmp/child)
grep -q ':cfq:/test1$' /proc/$child/cgroup || fail "child not in test1: $(cat /proc/$child/cgroup)"
echo "ok: children follow their parent into the group"
kill $child
wait

# cgexec from cgroup-tools.
out=$(cgexec -g cfq:test1 sh -c 'cat /proc/$$/cgroup') || fail "cgexec"
echo "$out" | grep -q ':cfq:/test1$' || fail "cgexec placed the task in: $out"
echo "ok: cgexec -g cfq:test1"

# Mounting the hierarchy a second time shares it (the kernel's usual).
mkdir -p /tmp/cg2
mount -t cgroup -o cfq cfq /tmp/cg2 || fail "second mount"
expect_eq "second mount sees the group" "$(cat /tmp/cg2/test1/cfq.ioprio)" 2
umount /tmp/cg2

rmdir /dev/cgroup/test1 || fail "rmdir"
echo "ok: cgroup files"
