# SPDX-License-Identifier: GPL-2.0
"""bfq can be measured beside cfq after groups went away.

The harness removes many cgroups that did I/O, selects bfq and writes
low_latency 0.  The removed groups' blkgs stay on the queue's list until
they are freed, without bfq data; 6.12's bfq_end_wr_async() then
dereferenced NULL (patches/0004 carries the fix).  Ten rounds: 200 v2
groups with the io controller each read 4 KiB from a null_blk disk and
are removed, and at once bfq is selected and low_latency set to 0 and 1.
The kernel must stay up and every write must succeed."""
import mmap
import os

import devices
from gtest import check, nullb, save

CG2 = devices.CG2
TOP = f'{CG2}/dying'
ROUNDS = 10
GROUPS = 200

dev = nullb('dying', sched='none', irqmode=0, completion_nsec=0,
            hw_queue_depth=64, rotational=0, size_mb=64)
disk = dev.disk
target = dev.targets[0]
if 'io' not in devices.read(f'{CG2}/cgroup.subtree_control').split():
    devices.write(f'{CG2}/cgroup.subtree_control', '+io')
os.mkdir(TOP)
devices.write(f'{TOP}/cgroup.subtree_control', '+io')
fd = os.open(target, os.O_RDONLY | os.O_DIRECT)
buf = mmap.mmap(-1, 4096)
sysq = f'/sys/block/{disk}/queue'
done = 0
try:
    for r in range(ROUNDS):
        for i in range(GROUPS):
            path = f'{TOP}/g{i}'
            os.mkdir(path)
            devices.write(f'{path}/cgroup.procs', os.getpid())
            os.preadv(fd, [buf], i * 4096)
        devices.write(f'{CG2}/cgroup.procs', os.getpid())
        for i in range(GROUPS):
            os.rmdir(f'{TOP}/g{i}')
        devices.write(f'{sysq}/scheduler', 'bfq')
        devices.write(f'{sysq}/iosched/low_latency', 0)
        devices.write(f'{sysq}/iosched/low_latency', 1)
        devices.write(f'{sysq}/scheduler', 'none')
        done += 1
finally:
    devices.write(f'{CG2}/cgroup.procs', os.getpid())
    os.close(fd)
check(done == ROUNDS, f'{ROUNDS} rounds done ({done})')
os.rmdir(TOP)
save({'rounds': done, 'groups': GROUPS})
print(f'{done} rounds of {GROUPS} removed groups, bfq selected and '
      'low_latency written each time')
