# SPDX-License-Identifier: GPL-2.0
"""Stress 2: cgroup churn for STRESS_SECS.  Three groups run verifying
writers and readers while, every 50 ms, one of: a new group is made and
a worker moved into it, a worker is moved to another group (or the
root), a group's cfq.ioprio is rewritten, or a temporary group is
removed while its requests are still queued or in flight.  All writes
verify, every worker keeps completing I/O, and the removed groups' state
is freed."""
import os
import random

from gtest import CFQ_CG, Fio, check, mkgroup, mount_cfq, move, nullb, \
    save, sched_groups
from stress import SECS, finish, pick, reader, remove_group, run_steps, \
    verified, verify_writer

random.seed(int(os.environ.get('STRESS_SEED', '5')))
mount_cfq()
dev = nullb('stch', memory_backed=1, size_mb=512, hw_queue_depth=2,
            completion_nsec=300000)
disk = dev.disk
fixed = ['p0', 'p1', 'p2']
runs = []
# Each writer verifies after every 64 writes (a 256 KiB region): with
# 1 MiB, the prio-4 group of one debug-kernel run wrote 248 of its 256
# blocks in the whole run and never read one back.
for i, g in enumerate(fixed):
    mkgroup(g, 2 * i)
    base = 160 * i
    runs.append(Fio(g, f'/dev/{disk}',
                    [verify_writer(base, 0.25), reader(base + 16),
                     reader(base + 80)], 2 * SECS + 10, group=g))
workers = [p for r in runs for p in r.worker_pids()]
temp = []
stats = {'mkdir': 0, 'move': 0, 'ioprio': 0, 'rmdir': 0, 'rmdir_busy': 0,
         'rmdir_with_queued': 0, 'rmdir_with_in_driver': 0, 'gone': 0}


def move_worker(pid, group):
    """Move a worker; one that has finished (ESRCH) is skipped."""
    try:
        move(pid, group)
    except ProcessLookupError:
        stats['gone'] += 1


def step(i):
    action = i % 4
    if action == 0 or (action == 3 and not temp):
        g = f't{i}'
        mkgroup(g, random.randrange(8))
        temp.append(g)
        move_worker(pick(workers), g)
        stats['mkdir'] += 1
    elif action == 1:
        move_worker(pick(workers), pick(fixed + temp + ['']))
        stats['move'] += 1
    elif action == 2:
        mkgroup(pick(fixed + temp), random.randrange(8))
        stats['ioprio'] += 1
    else:
        g = temp.pop(0)
        state = sched_groups(disk).get(g, {})
        stats['rmdir_with_queued'] += state.get('queued', 0) > 0
        stats['rmdir_with_in_driver'] += state.get('in_driver', 0) > 0
        remove_group(f'{CFQ_CG}/{g}', 'tasks',
                     lambda pid: move_worker(pid, pick(fixed)), stats)
        stats['rmdir'] += 1


# A step is a few cgroupfs writes and a debugfs read, 20 a second asked
# for; a debug kernel on a loaded host managed 7 a second, and in one
# CI run 3.5: the churn goes on until it has made 10 a second's worth or
# for twice its time, and fails on a step that stalls (run_steps()).
steps = run_steps(0.05, step, 10, runs, 'churn steps', least=24)
result = {'secs': SECS, 'steps': steps, 'actions': stats}
verified_total = 0
for g, run in zip(fixed, runs):
    run.wait()
    w, r = verified(run, g)
    verified_total += r
    done = [len(log) for log in run.logs]
    check(min(done) > 0, f'{g}: every worker completed I/O: {done}')
result['verified_total'] = verified_total
check(stats['rmdir_with_queued'] + stats['rmdir_with_in_driver'] > 0,
      f'groups removed with requests queued ({stats["rmdir_with_queued"]})'
      f' or in the driver ({stats["rmdir_with_in_driver"]})')
result['groups_left'] = finish(disk, temp + fixed)
save(result)
