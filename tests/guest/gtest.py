# SPDX-License-Identifier: GPL-2.0
"""Helpers for guest tests written in Python: devices, fio runs with
per-I/O logs, shares over time windows.  A test fails by raising."""
import atexit
import glob
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))))

from harness import fio as fiolib  # noqa: E402
import devices  # noqa: E402

RESULT = os.environ.get('RESULT', '/tmp/result.json')


def check(cond, msg):
    if not cond:
        raise AssertionError(msg)
    print(f'ok: {msg}', flush=True)


def write_errno(path, value):
    """One write(2) of value to path: 0, or the errno of the open or the
    write (for tests of rejected input)."""
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        return e.errno
    try:
        os.write(fd, value.encode())
        return 0
    except OSError as e:
        return e.errno
    finally:
        os.close(fd)


# Depths of the emulated rotating disk, by the name run-tests.sh gives a
# test's run on it (NAME@hdd-q1): CFQ_DISK.
HDD_DEPTHS = {'hdd-q1': 1, 'hdd-ncq': 32}


def nullb(name, **attrs):
    """A cfq-scheduled null_blk disk; the default is the emulated disk:
    1 ms per I/O, depth 1, rotational.  With CFQ_DISK set (the test runs
    as NAME@hdd-q1 or NAME@hdd-ncq), the emulated 7200 rpm disk instead,
    stopped when the test exits."""
    prof = {'irqmode': 2, 'completion_nsec': 1000000, 'hw_queue_depth': 1,
            'rotational': 1, 'nr_requests': 128}
    prof.update(attrs)
    if os.environ.get('CFQ_DISK'):
        prof['hw_queue_depth'] = HDD_DEPTHS[os.environ['CFQ_DISK']]
        dev = devices.make_hdd(prof)
        atexit.register(devices.remove_device, dev)
        dev.set_scheduler(prof.get('sched', 'cfq'))
        return dev
    dev = devices.make_null_blk(name, prof,
                                memory_backed=prof.get('memory_backed', 0),
                                size_mb=prof.get('size_mb', 4096))
    dev.set_scheduler(prof.get('sched', 'cfq'))
    return dev


CFQ_CG = '/dev/cgroup'


def mount_cfq():
    """The cfq cgroup hierarchy, mounted as the RFC does (cfq leaves
    cgroup v2 for it, if an earlier test used it there)."""
    return devices.cfq_on_v1()


def mkgroup(name, ioprio=None):
    path = f'{CFQ_CG}/{name}'
    os.makedirs(path, exist_ok=True)
    if ioprio is not None:
        devices.write(f'{path}/cfq.ioprio', ioprio)
    return path


def move(pid, group):
    """Move a task to a cfq group ('' is the root)."""
    devices.write(f'{CFQ_CG}/{group}/tasks' if group else f'{CFQ_CG}/tasks',
                  pid)


def sched_groups(disk):
    """cfq's per-group state from debugfs: {name: {field: value}}, the
    value an int where it is a number (the parent's name is not)."""
    out = {}
    with open(f'/sys/kernel/debug/block/{disk}/sched/groups') as f:
        for line in f:
            words = line.split()
            out[words[0]] = {k: int(v) if v.isdigit() else v
                             for k, v in zip(words[1::2], words[2::2])}
    return out


def sched_events(disk):
    """cfq's event counts on the device from debugfs: {name: count}."""
    with open(f'/sys/kernel/debug/block/{disk}/sched/events') as f:
        return {k: int(v) for k, v in (line.split() for line in f)}


def sched_media(disk):
    """cfq's write-cache accounts from debugfs `state` (its read_us line:
    the reads' mean, the debt, a cached write's price), or None without
    that line."""
    with open(f'/sys/kernel/debug/block/{disk}/sched/state') as f:
        for line in f:
            if line.startswith('read_us '):
                return line.strip()
    return None


class Fio:
    """One fio run with one job section per entry of `jobs` (dicts of fio
    options); every I/O is logged with its completion time.  With
    `group`, fio starts from a shell already in that cfq group (v1), with
    `cgroup2` in that v2 cgroup (a path).  stop() ends every job before
    its runtime, as a normal end: logs and report are written."""

    def __init__(self, name, filename, jobs, runtime, group=None,
                 cgroup2=None, **glob_opts):
        self.dir = f'/tmp/fio-{name}'
        subprocess.run(['rm', '-rf', self.dir], check=True)
        os.makedirs(self.dir)
        lines = ['[global]'] + ([f'filename={filename}'] if filename else [])
        lines += ['ioengine=psync',
                 'direct=1', 'time_based=1', f'runtime={runtime}',
                 'log_unix_epoch=1', 'randrepeat=0']
        lines += [f'{k}={v}' for k, v in glob_opts.items()]
        for i, job in enumerate(jobs):
            lines += [f'[j{i}]', f'write_iops_log={self.dir}/j{i}']
            lines += [f'{k}={v}' for k, v in job.items()]
        self.njobs = len(jobs)
        with open(f'{self.dir}/job.fio', 'w') as f:
            f.write('\n'.join(lines) + '\n')
        self.stop_file = f'{self.dir}/stop'
        cmd = ['fio', '--output-format=json', '--eta=never',
               f'--trigger-file={self.stop_file}', f'{self.dir}/job.fio']
        join = None
        if group is not None:
            join = f'{CFQ_CG}/{group}/tasks' if group else f'{CFQ_CG}/tasks'
        elif cgroup2 is not None:
            join = f'{cgroup2}/cgroup.procs'
        if join:
            cmd = ['sh', '-c', f'echo $$ > {join} && exec "$@"', 'sh'] + cmd
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
        self.started = time.time()

    def worker_pids(self, timeout=90):
        """The fio worker processes, in job order (fio forks them in
        order; their pids increase).  On the debug kernel of a busy host,
        four fio instances started at once were seen to take over 30 s to
        fork their workers."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            pids = sorted(children(self.proc.pid))
            if len(pids) >= self.njobs:
                return pids[:self.njobs]
            if self.proc.poll() is not None:
                raise AssertionError(f'fio exited ({self.proc.returncode}) '
                                     f'before its workers ran')
            time.sleep(0.05)
        raise AssertionError(f'fio workers did not start in {timeout} s: '
                             f'{pids}')

    def stop(self):
        """Have fio end its jobs now (it polls for the file)."""
        with open(self.stop_file, 'w'):
            pass

    def wait(self, ok=True, timeout=None):
        """Wait for fio (at most `timeout` s) and read its report; with
        ok, it must have succeeded (errors are the test's to judge
        otherwise)."""
        out, _ = self.proc.communicate(timeout=timeout)
        if ok:
            check(self.proc.returncode == 0, 'fio completed without error')
        try:
            self.report = fiolib.parse_json(out)
        except ValueError:
            if ok:
                raise
            self.report = None	# fio died before its report
        self.logs = [fiolib.read_iops_log(p)
                     for i in range(self.njobs)
                     for p in glob.glob(f'{self.dir}/j{i}_iops.*.log')]
        return self

    def ios(self, t0, t1, since=None):
        """I/Os per job completed in (t0, t1], seconds after `since`
        (default: this run's start)."""
        base = self.started if since is None else since
        w = (int((base + t0) * 1000), int((base + t1) * 1000))
        return [sum(fiolib.ios_in_window(s, w).values()) for s in self.logs]


def io_span(runs):
    """(first, last) in ms since the epoch: the first I/O of the last job
    to start and the last I/O of the first job to stop, over every job
    of every run; last < first if they never ran together."""
    first = max(min(t for t, _, _ in log) for r in runs for log in r.logs)
    last = min(max(t for t, _, _ in log) for r in runs for log in r.logs)
    return first, last


def readers_together(disk, groups, nprocs, runtime):
    """`nprocs` 4 KiB random readers in each of `groups` (cgroup names),
    each group's on its own GiB of /dev/`disk`, for `runtime` s and 10 s
    more per 25 processes, which forking them may take: the I/Os of each
    group over the span in which every process ran (io_span()), its
    length in s, and how many processes completed no I/O in it."""
    runs = [Fio(g, f'/dev/{disk}',
                [{'rw': 'randread', 'bs': '4k', 'numjobs': nprocs,
                  'offset': f'{i}g', 'size': '1g'}],
                runtime + 10 * nprocs // 25, group=g, group_reporting=1)
            for i, g in enumerate(groups)]
    for r in runs:
        r.wait()
    first, last = io_span(runs)  # ms since the epoch
    counts = [sum(r.ios(first / 1000, last / 1000, 0)) for r in runs]
    idle = sum(1 for r in runs for log in r.logs
               if not any(first <= t <= last for t, _, _ in log))
    return counts, (last - first) / 1000, idle


def common_window(runs, lead=0.0, tail=0.0):
    """(t0, t1) in s since the epoch: the span in which every job of
    every run completed I/O (io_span()), less `lead` s at its start and
    `tail` s at its end.  Runs started one after the other on a slow
    guest need not overlap over fixed offsets from their own starts."""
    first, last = io_span(runs)
    t0, t1 = first / 1000 + lead, last / 1000 - tail
    check(t1 - t0 >= 1, f'the runs completed I/O together for only '
          f'{(last - first) / 1000:.1f} s')
    return t0, t1


def task_stack(pid):
    """(state, kernel stack frames) of a task, from /proc; OSError once
    it is gone."""
    with open(f'/proc/{pid}/stat') as f:
        state = f.read().rsplit(')', 1)[1].split()[0]
    with open(f'/proc/{pid}/stack') as f:
        return state, f.read().splitlines()


def children(ppid):
    """Pids whose parent is ppid (from /proc/*/stat: field 4)."""
    out = []
    for d in os.listdir('/proc'):
        if not d.isdigit():
            continue
        try:
            with open(f'/proc/{d}/stat') as f:
                stat = f.read()
        except OSError:
            continue
        if int(stat.rsplit(')', 1)[1].split()[1]) == ppid:
            out.append(int(d))
    return out


def shares(counts):
    total = sum(counts)
    return [100.0 * c / total if total else 0.0 for c in counts]


def save(obj):
    with open(RESULT, 'w') as f:
        json.dump(obj, f, indent=1)
