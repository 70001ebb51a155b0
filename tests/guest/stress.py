# SPDX-License-Identifier: GPL-2.0
"""Helpers for the stress matrix (issue 5): how long to run, fio jobs
that verify what they wrote, and the checks every stress case ends with.

STRESS_SECS sets each case's length: `make stress` runs the full 60 s,
`make check` a quick version.  A case fails by raising."""
import errno
import os
import random
import subprocess
import time

import devices
from gtest import CFQ_CG, check, move, sched_groups

SECS = int(os.environ.get('STRESS_SECS', '10'))
MB = 1 << 20


def verify_writer(offset_mb, size_mb=2, **extra):
    """A fio job that writes its region and reads it back (crc32c), loop
    after loop, until the run's time is up.  A lost, misdirected or torn
    write fails it (verify_fatal).  It reads back every 16 blocks it
    writes (verify_backlog), so even a group that gets little of the disk
    verifies something: at the end of a pass only, a prio-7 group on the
    debug kernel once wrote 117 of a 128-block pass and verified none."""
    job = {'rw': 'randwrite', 'bs': '4k', 'offset': f'{offset_mb}m',
           'size': f'{int(size_mb * 1024)}k', 'verify': 'crc32c',
           'verify_fatal': 1, 'do_verify': 1, 'verify_backlog': 16,
           'loops': 100000, 'verify_state_save': 0, 'time_based': 0}
    job.update(extra)
    return job


def reader(offset_mb, size_mb=64, **extra):
    job = {'rw': 'randread', 'bs': '4k', 'offset': f'{offset_mb}m',
           'size': f'{size_mb}m'}
    job.update(extra)
    return job


def verified(fio_run, what):
    """(writes, verified reads) of the verify jobs of a finished Fio:
    no verify or I/O error, and something written and read back."""
    w = r = 0
    for job in fio_run.report['jobs']:
        if job['job options'].get('verify') == 'crc32c':
            check(job['error'] == 0,
                  f'{job["jobname"]}: no verify or I/O error')
            w += job['write']['total_ios']
            r += job['read']['total_ios']
    check(w > 0 and r > 0, f'{what}: {w} writes, {r} verified')
    return w, r


def per_second(run):
    """I/Os of a finished Fio run in each whole second of the time all
    its jobs were running (from the last job's first completion to the
    first job's last one)."""
    logs = [sorted(t for t, _, _ in log) for log in run.logs]
    check(all(logs), f'{run.dir}: every job completed I/O')
    t0 = max(t[0] for t in logs)
    t1 = min(t[-1] for t in logs)
    counts = [0] * ((t1 - t0) // 1000)
    for t in logs:
        for x in t:
            if t0 <= x < t0 + 1000 * len(counts):
                counts[(x - t0) // 1000] += 1
    return counts


def sched_file(disk, name):
    with open(f'/sys/kernel/debug/block/{disk}/sched/{name}') as f:
        return f.read()


def sched_state(disk):
    """cfq's device state from debugfs as {key: value-string}."""
    out = {}
    for line in sched_file(disk, 'state').splitlines():
        key, _, val = line.partition(' ')
        out[key] = val
    return out


def wait_drained(disk, timeout=10):
    """Once the I/O has stopped, cfq holds no request: nothing queued,
    nothing counted in the driver."""
    end = time.monotonic() + timeout
    while True:
        st = sched_state(disk)
        if st['queued'] == '0' and st['in_driver'] == '0':
            break
        if time.monotonic() > end:
            raise AssertionError(f'{disk}: cfq still holds requests: {st}')
        time.sleep(0.1)
    check(True, f'{disk}: cfq drained (queued 0, in_driver 0)')


def write_sched(disk, elevator):
    with open(f'/sys/block/{disk}/queue/scheduler', 'w') as f:
        f.write(elevator)


def remove_groups(names):
    """Move every task of the groups to the root, then rmdir them."""
    for g in names:
        path = f'{CFQ_CG}/{g}'
        if not os.path.isdir(path):
            continue
        with open(f'{path}/tasks') as f:
            for pid in f.read().split():
                try:
                    move(pid, '')
                except ProcessLookupError:
                    pass
        os.rmdir(path)


def finish(disk, groups):
    """End of a stress case on a null_blk disk: remove the groups, check
    that cfq holds nothing and freed their state, switch cfq out and
    delete the disk.  Returns the groups left (none, or it failed)."""
    remove_groups(groups)
    wait_drained(disk)
    left = groups_freed(disk)
    write_sched(disk, 'none')
    devices.remove_null_blk(disk)
    return left


def groups_freed(disk, keep=(), timeout=5):
    """Once groups are removed (rmdir) and the disk is idle, only `keep`
    and the root have cfq state on the disk.  The cgroup core takes the
    group offline asynchronously after rmdir returns: allow it a moment."""
    end = time.monotonic() + timeout
    while True:
        left = set(sched_groups(disk)) - {'/'} - set(keep)
        if not left or time.monotonic() > end:
            break
        time.sleep(0.1)
    check(not left, f'{disk}: removed groups\' state freed, left: '
          f'{sorted(left)}')
    return sorted(left)


def pick(seq):
    return random.choice(list(seq))


def remove_group(path, procs_file, move_out, stats, tries=5):
    """Move the processes of the cgroup at @path (listed in @procs_file:
    `tasks` on v1, `cgroup.procs` on v2) out with @move_out(pid), then
    rmdir it.  A process that joined between the read and the rmdir, or
    one still leaving (EBUSY: seen on a loaded host, v1 and v2), is named
    in the log and moved out again, and the rmdir retried a little later;
    each retry counts in stats['rmdir_busy']."""
    name = os.path.basename(path)
    for attempt in range(tries):
        pids = devices.read(f'{path}/{procs_file}').split()
        if attempt:
            names = []
            for pid in pids:
                try:
                    names.append(f'{pid} {devices.read(f"/proc/{pid}/comm")}')
                except OSError:
                    names.append(f'{pid} (gone)')
            print(f'rmdir {name}: EBUSY, then in it: {names}', flush=True)
            stats['rmdir_busy'] += 1
            time.sleep(0.05 * attempt)
        for pid in pids:
            move_out(pid)
        try:
            os.rmdir(path)
            return
        except OSError as e:
            if e.errno != errno.EBUSY:
                raise
    raise AssertionError(f'rmdir {name}: still busy after {tries} tries')


def run_for(secs, period, step, min_steps=0, limit=None):
    """Call step(i) every `period` seconds for `secs`, and on past it
    until `min_steps` have run or `limit` seconds have passed; return the
    time each step took, in seconds."""
    start = time.monotonic()
    end = start + secs
    last = start + (limit or secs)
    took = []
    while time.monotonic() < end or (len(took) < min_steps and
                                     time.monotonic() < last):
        t = time.monotonic()
        step(len(took))
        took.append(time.monotonic() - t)
        time.sleep(max(0.0, period - took[-1]))
    return took


# The longest a churn step may take.  A step is a few cgroupfs and sysfs
# writes; an elevator switch or an rmdir waits for requests to leave.  A
# step that stalls on the scheduler (a group never served, a drain that
# does not end) takes longer; a slow host only makes every step slower.
STEP_LIMIT = 10.0


def run_steps(period, step, per_second, runs, what='steps', least=20):
    """The churn of a stress case: step(i) every `period` seconds for
    SECS, and on past it (at most 2 x SECS) until `per_second` x SECS
    steps have run; then the fio `runs` (started for 2 x SECS + 10 s) are
    stopped.  How many steps run depends on the host: a debug kernel on a
    host short of CPU made a third of the steps asked for.  What fails is
    a step that stalls (longer than STEP_LIMIT), or fewer than `least`
    steps, too few to have made each kind of change a few times.
    Returns how many ran."""
    t = time.monotonic()
    took = run_for(SECS, period, step, min_steps=SECS * per_second,
                   limit=2 * SECS)
    total = time.monotonic() - t
    for run in runs:
        run.stop()
    slowest = max(took, default=0.0)
    print(f'{len(took)} {what} in {total:.1f} s, mean '
          f'{total / max(1, len(took)):.2f} s, slowest {slowest:.2f} s',
          flush=True)
    check(slowest <= STEP_LIMIT,
          f'slowest of the {what} {slowest:.2f} s (step '
          f'{took.index(slowest)}), at most {STEP_LIMIT:.0f} s')
    check(len(took) >= least, f'{len(took)} {what} in {total:.1f} s '
          f'(at least {least})')
    return len(took)


def sh(cmd):
    return subprocess.run(['sh', '-c', cmd], check=True)
