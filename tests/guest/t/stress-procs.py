# SPDX-License-Identifier: GPL-2.0
"""Stress 3: 300 readers in three groups (cfq.ioprio 0/4/7, 100 random
readers each, each a task with its own I/O context) on the emulated disk
for STRESS_SECS.  The RFC saw a task blocked for more than 120 s with
300 processes; here no task may hang (the hung-task detector panics the
guest) and every reader must complete an I/O at least every 5 s at the
pace the lean kernel drives the disk, that many times longer where the
guest is slower (or 3 times its group's mean interval, if more), from
its own per-I/O log.  The p99.9 completion latency of the
lowest-priority group is reported."""
import os
import time

from gtest import Fio, check, mkgroup, mount_cfq, nullb, save, shares, \
    task_stack
from stress import SECS, finish

NPROCS = int(os.environ.get('STRESS_PROCS', '100'))
GAP_MS = 5000
# The three groups' I/Os a second on the lean kernel under TCG, the pace
# GAP_MS holds at.
LEAN_RATE = 370
# At most this long for all readers to start reading.
START_S = int(os.environ.get('STRESS_START_S', '600'))


def queued_readers(disk):
    """(group, pid) of each queue cfq holds requests of: the readers whose
    requests have passed the group's tag gate."""
    out = set()
    with open(f'/sys/kernel/debug/block/{disk}/sched/queues') as f:
        for line in f:
            words = line.split()
            if len(words) > 3 and words[1] == 'pid':
                out.add((words[0], int(words[2])))
    return out


def unseen(runs, seen):
    """Where the threads of each group's fio that cfq never held a request
    of are (their kernel stacks, counted), for a start that timed out."""
    out = []
    for g, run in zip(groups, runs):
        stacks = {}
        try:
            tids = [int(t) for t in os.listdir(f'/proc/{run.proc.pid}/task')]
        except OSError as e:
            out.append(f'{g}: {e}')
            continue
        for tid in tids:
            if (g, tid) in seen:
                continue
            try:
                state, frames = task_stack(tid)
                stack = state + ' ' + ' <- '.join(
                    line.split()[-1] for line in frames[:8])
            except OSError as e:
                stack = str(e)
            stacks[stack] = stacks.get(stack, 0) + 1
        out += [f'{g}: {n} x {st}' for st, n in stacks.items()]
    return '\n'.join(out)


mount_cfq()
# At blk-mq's default nr_requests, as users run it: cfq asks for 64
# scheduler tags, far fewer than the tasks, and each group's tasks wait
# their turn at the group's tag gate.
dev = nullb('stpr', nr_requests=None)
disk = dev.disk
groups = {'g0': 0, 'g4': 4, 'g7': 7}
runs = []
# The readers are fio threads: each is a task with its own I/O context,
# so a cfq queue of its own, as a process would be.  300 processes took
# fio up to 128 s to fork on the debug kernel while the first ones
# already read (a CI run: g4's first I/Os at 0-5 s, g0's at 36-45 s, g7's
# at 128-131 s, after the others had finished); 300 threads started
# within 20-45 s there.  fio runs until stopped: once cfq has held a
# request of every reader, all run together for SECS, then all stop.
for i, (g, prio) in enumerate(groups.items()):
    mkgroup(g, prio)
    runs.append(Fio(g, f'/dev/{disk}',
                    [{'rw': 'randread', 'bs': '4k', 'numjobs': NPROCS,
                      'offset': f'{i}g', 'size': '1g', 'thread': 1}],
                    SECS + START_S + 60, group=g, group_reporting=1))
t_start = time.monotonic()
seen = set()
while True:
    seen |= queued_readers(disk)
    count = [len([1 for g, _ in seen if g == name]) for name in groups]
    if min(count) >= NPROCS:
        break
    if time.monotonic() - t_start > START_S:
        where = unseen(runs, seen)
        # Not left to run out their time (START_S + 60 s more).
        for r in runs:
            r.stop()
        raise AssertionError(f'{count} of {NPROCS} readers per group seen '
                             f'queued after {START_S} s; never seen:\n'
                             + where)
    time.sleep(0.2)
started = time.monotonic() - t_start
print(f'all {3 * NPROCS} readers queued I/O after {started:.1f} s')
time.sleep(SECS)
for r in runs:
    r.stop()
for r in runs:
    r.wait()

# The window every reader was running in: from the last reader's first
# completion to the first reader's last one.
times = {g: [sorted(t for t, _, _ in log) for log in r.logs]
         for g, r in zip(groups, runs)}
for g, per_proc in times.items():
    check(len(per_proc) == NPROCS and all(per_proc),
          f'{g}: all {NPROCS} readers completed I/O')
t0 = max(t[0] for per_proc in times.values() for t in per_proc)
t1 = min(t[-1] for per_proc in times.values() for t in per_proc)
origin = min(t[0] for per_proc in times.values() for t in per_proc)
for g, per_proc in times.items():
    first = [t[0] - origin for t in per_proc]
    last = [t[-1] - origin for t in per_proc]
    print(f'{g}: first I/O {min(first)}..{max(first)} ms, '
          f'last {min(last)}..{max(last)} ms')
check(t1 - t0 >= SECS * 1000 // 2,
      f'all {3 * NPROCS} readers ran together for {(t1 - t0) / 1000:.1f} s')
result = {'secs': SECS, 'procs': 3 * NPROCS, 'start_s': started,
          'window_s': (t1 - t0) / 1000, 'groups': {}}
for g, per_proc in times.items():
    worst = 0
    for t in per_proc:
        inside = [t0] + [x for x in t if t0 < x < t1] + [t1]
        worst = max(worst, max(b - a for a, b in zip(inside, inside[1:])))
    result['groups'][g] = {'max_gap_ms': worst,
                           'ios': sum(len([x for x in t if t0 < x <= t1])
                                      for t in per_proc)}
for g, run in zip(groups, runs):
    pct = run.report['jobs'][0]['read']['clat_ns']['percentile']
    result['groups'][g]['p99.9_ms'] = pct['99.900000'] / 1e6
    result['groups'][g]['p99_ms'] = pct['99.000000'] / 1e6
ios = [result['groups'][g]['ios'] for g in groups]
result['shares'] = shares(ios)
save(result)
print(result)
# A group's readers take turns: each waits about NPROCS / (the group's
# I/Os a second) between its I/Os, and that mean is set by how fast the
# guest drives the disk (LEAN_RATE of its 1000 I/Os a second on the lean
# kernel under TCG, 180-360 on the debug kernel: g7's readers then wait
# 3.5-7.8 s on average).  Every wait stretches with the guest's pace, the
# longest too: on the debug kernel the longest was 4.1-5.1 times its
# group's mean in g0, 3.2-3.8 in g4 and 1.6-2.2 in g7 (four runs; the
# two at 180 I/Os a second failed the old bar, GAP_MS or 3 means, with
# g4 at 5.9 and 6.5 s).  So no reader may wait more than GAP_MS scaled
# by how much slower than LEAN_RATE the guest went, or 3 times its
# group's mean if that is longer.  A reader left out, as the RFC's was
# for minutes, still fails.
rate = sum(ios) * 1000 / max(t1 - t0, 1)
slow = max(1.0, LEAN_RATE / max(rate, 1))
print(f'{rate:.0f} I/Os a second: waits judged at {slow:.2f} times '
      f'{GAP_MS} ms')
for g, v in result['groups'].items():
    mean = NPROCS * (t1 - t0) / max(v['ios'], 1)
    bar = max(GAP_MS * slow, 3 * mean)
    check(v['max_gap_ms'] <= bar,
          f'{g}: longest wait between a reader\'s I/Os '
          f'{v["max_gap_ms"]} ms (<= {bar:.0f}, mean {mean:.0f}); '
          f'p99.9 {v["p99.9_ms"]:.0f} ms')
finish(disk, groups)
