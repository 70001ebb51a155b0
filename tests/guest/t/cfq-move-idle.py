# SPDX-License-Identifier: GPL-2.0
"""A task that moves to another group is not waited for in the old one.

Two sequential readers, one per group (cfq.ioprio 4 both), on the emulated
disk with equal_noidle=0 (as on a disk that pays for seeks, so cfq idles
for a sequential reader's next request and for a sync group's).  Seconds
in which nothing moves alternate with seconds in which one reader is
moved to the other group and back every 150 ms, six of each: without
moves the idle timer rarely runs out, as each reader's next request comes
within slice_idle.  A moved reader's next request goes to its new group,
and cfq must not keep the device idle for the queue (or the group) it
left, which will get nothing more from it: each such wait would run the
idle timer out (debugfs events: idle_expire)."""
import time

from gtest import Fio, check, mkgroup, mount_cfq, move, nullb, save
from stress import sched_file

SECS = 6
PERIOD = 0.15


def idle_expired(disk):
    for line in sched_file(disk, 'events').splitlines():
        name, count = line.split()
        if name == 'idle_expire':
            return int(count)
    raise AssertionError('no idle_expire in events')


mount_cfq()
dev = nullb('mvtest')
disk = dev.targets[0]
with open('/sys/block/mvtest/queue/iosched/equal_noidle', 'w') as f:
    f.write('0')
mkgroup('a', 4)
mkgroup('b', 4)
job = [{'rw': 'read', 'bs': '4k', 'size': '1g'}]
fa = Fio('mva', disk, job, 3 * SECS, group='a', offset=0)
fb = Fio('mvb', disk, job, 3 * SECS, group='b', offset=2 << 30)
pid = fa.worker_pids()[0]
fb.worker_pids()
time.sleep(2)

# Seconds without moves and seconds with, interleaved, so that a change
# in the host's load (the readers' think time under TCG) hits both alike.
still = moving = moves = 0
for _ in range(SECS):
    e0 = idle_expired('mvtest')
    time.sleep(1)
    e1 = idle_expired('mvtest')
    end = time.monotonic() + 1
    while time.monotonic() < end:
        move(pid, 'b' if moves % 2 == 0 else 'a')
        moves += 1
        time.sleep(PERIOD)
    still += e1 - e0
    moving += idle_expired('mvtest') - e1
fa.wait()
fb.wait()
save({'moves': moves, 'idle_expire_still': still,
      'idle_expire_moving': moving})
print(f'idle timer ran out {still} times in {SECS} s without moves, '
      f'{moving} times in {SECS} s with {moves} moves')
check(moves >= 20, f'{moves} moves')
# Before the fix, about every other move left the device idle for the
# queue the task had left (20 expiries in 39 moves).
check(moving <= still + moves // 4,
      f'moves do not leave the device idle: {moving} idle expiries with '
      f'{moves} moves, {still} without')
with open('/sys/block/mvtest/queue/scheduler', 'w') as f:
    f.write('none')
