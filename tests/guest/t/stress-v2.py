# SPDX-License-Identifier: GPL-2.0
"""Stress 7: the group lifecycle on cgroup v2, for STRESS_SECS.  Under
/sys/fs/cgroup/sv (+io +cfq) three groups run verifying writers and
readers on a memory-backed disk, and one of them also reads a second
disk for which it has a cfq.weight line.  Every 100 ms, one of: a worker
moved to another group through cgroup.procs; a cfq.weight (default or
per-device line) or cfq.ioprio rewritten; a temporary group made, given
a worker, and removed while its requests are queued or in flight; `-cfq`
then `+cfq` in sv's subtree_control under I/O (the groups lose their
cfq state and get it back); the elevator switched away and back.  Half
way, the second disk is removed under its reader.  All writes verify,
the removed groups' state is freed, cfq holds no request at the end."""
import os
import random
import subprocess
import time

import devices
from gtest import Fio, check, nullb, save, sched_groups
from stress import SECS, groups_freed, pick, reader, remove_group, \
    run_steps, verified, verify_writer, wait_drained, write_sched

random.seed(int(os.environ.get('STRESS_SEED', '7')))
devices.cfq_on_v2()
SV = f'{devices.CG2}/sv'
CTL = '+io +cfq'
devices.write(f'{devices.CG2}/cgroup.subtree_control', CTL)
os.makedirs(SV, exist_ok=True)
devices.write(f'{SV}/cgroup.subtree_control', CTL)
dev = nullb('stv2', memory_backed=1, size_mb=512, hw_queue_depth=2,
            completion_nsec=300000)
extra = nullb('stv2x', size_mb=1024)
disk, xdisk = dev.disk, extra.disk
xdev = devices.read(f'/sys/block/{xdisk}/dev')
fixed = ['a', 'b', 'c']
for g, w in zip(fixed, (200, 25, 100)):
    os.makedirs(f'{SV}/{g}', exist_ok=True)
    devices.write(f'{SV}/{g}/cfq.weight', w)
devices.write(f'{SV}/a/cfq.weight', f'{xdev} 800')
runs = []
for i, g in enumerate(fixed):
    base = 160 * i
    runs.append(Fio(g, f'/dev/{disk}',
                    [verify_writer(base, 0.25), reader(base + 16)],
                    2 * SECS + 10, cgroup2=f'{SV}/{g}'))
# The second disk's reader runs until its disk goes (half way through
# the steps): on a host short of CPU, starting the four fio instances on
# the debug kernel took long enough that a runtime of SECS + 10 s ended
# before the removal, and fio exited cleanly.
xrun = Fio('x', f'/dev/{xdisk}', [reader(0), reader(256)], SECS + 120,
           cgroup2=f'{SV}/a')
workers = [p for r in runs for p in r.worker_pids()]
xrun.worker_pids()
temp = []
stats = {'move': 0, 'weight': 0, 'mkdir': 0, 'rmdir': 0,
         'rmdir_with_requests': 0, 'rmdir_busy': 0, 'toggle': 0,
         'switch': 0, 'gone': 0}
removed_at = None


def procs(g):
    return devices.read(f'{SV}/{g}/cgroup.procs').split()


def move_worker(pid, g):
    try:
        devices.write(f'{SV}/{g}/cgroup.procs', pid)
    except (ProcessLookupError, OSError):
        stats['gone'] += 1


def step(i):
    global removed_at
    if removed_at is None and time.monotonic() - started >= SECS / 2:
        devices.remove_null_blk(xdisk)	# under its reader
        removed_at = i
    action = i % 5
    if action == 0:
        move_worker(pick(workers), pick(fixed + temp))
        stats['move'] += 1
    elif action == 1:
        g = pick(fixed)
        f = f'{SV}/{g}/cfq.weight'
        which = random.randrange(3)
        if which == 0:
            devices.write(f, random.randint(1, 10000))
        elif which == 1 and removed_at is None:
            devices.write(f, f'{xdev} {random.randint(1, 10000)}')
        else:
            devices.write(f'{SV}/{g}/cfq.ioprio', random.randrange(8))
        stats['weight'] += 1
    elif action == 2 or (action == 3 and not temp):
        g = f't{i}'
        os.mkdir(f'{SV}/{g}')
        temp.append(g)
        move_worker(pick(workers), g)
        stats['mkdir'] += 1
    elif action == 3:
        g = temp.pop(0)
        state = sched_groups(disk).get(g, {})
        stats['rmdir_with_requests'] += (state.get('queued', 0) +
                                         state.get('in_driver', 0)) > 0
        remove_group(f'{SV}/{g}', 'cgroup.procs',
                     lambda pid: move_worker(pid, pick(fixed)), stats)
        stats['rmdir'] += 1
    elif i % 10 == 4:
        devices.write(f'{SV}/cgroup.subtree_control', '-cfq')
        time.sleep(0.02)
        devices.write(f'{SV}/cgroup.subtree_control', '+cfq')
        stats['toggle'] += 1
    else:
        write_sched(disk, 'none')
        write_sched(disk, 'cfq')
        stats['switch'] += 1


# A step every 0.1 s; on the debug kernel on a host short of CPU a step
# (an elevator switch waits for the queue to drain) took 0.26 s on
# average: 38 steps in 10 s, and once 27.  The steps go on until 3 a
# second's worth have run or for twice their time, and fail on a step
# that stalls (run_steps()).
started = time.monotonic()
steps = run_steps(0.1, step, 3, runs)
check(removed_at is not None, 'the second disk was removed under load')
result = {'secs': SECS, 'steps': steps, 'actions': stats}
for g, run in zip(fixed, runs):
    run.wait()
    verified(run, g)
xrun.wait(ok=False, timeout=60)
check(xrun.proc.returncode != 0, 'the second disk\'s reader saw it go')
check(stats['toggle'] > 0 and stats['switch'] > 0 and stats['rmdir'] > 0,
      f'every kind of step ran: {stats}')
# Everything goes: the temporary groups, the fixed ones, sv itself.
for g in temp + fixed:
    for pid in procs(g):
        move_worker(pid, '..')
    os.rmdir(f'{SV}/{g}')
os.rmdir(SV)
wait_drained(disk)
result['groups_left'] = groups_freed(disk)
write_sched(disk, 'none')
devices.remove_null_blk(disk)
save(result)
subprocess.run(['sync'])
