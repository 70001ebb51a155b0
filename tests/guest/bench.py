#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the fairness harness: run experiment cases against each
peer scheduler on one device, the way a user would.

For every (case, run, peer): switch the device's scheduler, create one
cgroup per group, start one fio per group from a shell already placed in
its group, wait, and write run.json (I/Os per share unit over the common
window, p99 latency, totals) plus each fio's JSON report.

Usage: bench.py --out DIR [--exp NAME]... [--profile P]... [--peer P]...
                [--runs N] [--runtime S] [--scale F] [--quick] [--pin]
"""
import argparse
import json
import math
import mmap
import os
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import experiments, fio, shares  # noqa: E402
import devices  # noqa: E402
import gtest  # noqa: E402

CG2 = '/sys/fs/cgroup'
BENCH_CG = f'{CG2}/cfqbench'
CFQ_CG = '/dev/cgroup'	# the RFC's mount point for the cfq hierarchy
WORK = '/tmp/bench'
# How much lower fio's nice value is than its workers' (fork_first).
FIO_BOOST = 10
SETTLE_S = 1.0
IOPRIO_CLASS = {'rt': 1, 'be': 2, 'idle': 3}


def v1_path(path):
    """A group's place in the RFC's cfq hierarchy: its top-level name
    prefixed, under the root as the RFC's groups are."""
    return f'{CFQ_CG}/bench-{path}'


def setup_cgroups(case, peer, controllers=()):
    """The case's groups (a tree, or side by side), on cgroup v2 for
    every peer (with io.bfq.weight for bfq, cfq.weight for cfq-v2) and,
    for cfq, in the RFC's v1 hierarchy too (cfq.ioprio, or cfq.weight
    where the case gives weights).  v2 controllers are enabled below
    every group that has children and no tasks of its own (cgroup v2
    allows no more), with any further `controllers` (e.g. memory, which
    cgroup writeback needs).  Returns, per group with tasks, the files a
    shell writes its pid to, to join the group."""
    teardown_cgroups()
    kind = peer['group']
    if kind == 'cfq':
        devices.cfq_on_v1()
    elif kind == 'cfq-v2':
        devices.cfq_on_v2()
    extra = ''.join(f' +{c}' for c in controllers)
    ctl = ('+io +cfq' if kind == 'cfq-v2' else '+io') + extra
    devices.write(f'{CG2}/cgroup.subtree_control', '+io' + extra)
    os.mkdir(BENCH_CG)
    devices.write(f'{BENCH_CG}/cgroup.subtree_control', ctl)
    joins = {}
    for path, weight, ioprio, own in case.nodes():
        v2 = f'{BENCH_CG}/{path}'
        os.mkdir(v2)
        if case.has_children(path) and not own:
            devices.write(f'{v2}/cgroup.subtree_control', ctl)
        join = [f'{v2}/cgroup.procs']
        if kind == 'bfq':
            devices.write(f'{v2}/io.bfq.weight', weight if weight else
                          shares.bfq_weight(ioprio))
        elif kind == 'cfq-v2':
            devices.write(f'{v2}/cfq.weight', weight if weight else
                          shares.cfq_weight(ioprio))
        elif kind == 'cfq':
            v1 = v1_path(path)
            os.mkdir(v1)
            if weight:
                devices.write(f'{v1}/cfq.weight', weight)
            else:
                devices.write(f'{v1}/cfq.ioprio', ioprio)
            join.append(f'{v1}/tasks')
        joins[path] = join
    return [joins[g.path] for g in case.groups]


def make_extra_groups(case, peer, dev):
    """case.extra_groups more groups (as setup_cgroups makes them), each
    made to read 4 KiB once from the device, so that every peer has state
    for each of them there; this process then returns to the roots."""
    if not case.extra_groups:
        return
    target = dev.targets[0]
    fd = os.open(target, os.O_RDONLY | os.O_DIRECT)
    buf = mmap.mmap(-1, 4096)
    blocks = dev.size_bytes(target) // 4096
    try:
        for i in range(case.extra_groups):
            path = f'{BENCH_CG}/x{i}'
            os.mkdir(path)
            devices.write(f'{path}/cgroup.procs', os.getpid())
            if peer['group'] == 'cfq':
                v1 = f'{CFQ_CG}/bench-x{i}'
                os.mkdir(v1)
                devices.write(f'{v1}/tasks', os.getpid())
            os.preadv(fd, [buf], (i * 7919 % blocks) * 4096)
    finally:
        devices.write(f'{CG2}/cgroup.procs', os.getpid())
        if peer['group'] == 'cfq':
            devices.write(f'{CFQ_CG}/tasks', os.getpid())
        os.close(fd)


def teardown_cgroups():
    """Remove the bench's groups, deepest first (their tasks are gone)."""
    dirs = []
    if os.path.isdir(BENCH_CG):
        dirs += [d for d, _, _ in os.walk(BENCH_CG)]
    if os.path.ismount(CFQ_CG):
        dirs += [d for n in os.listdir(CFQ_CG) if n.startswith('bench-')
                 for d, _, _ in os.walk(f'{CFQ_CG}/{n}')]
    for d in sorted(dirs, key=lambda d: -d.count('/')):
        os.rmdir(d)


# --pin: every fio task stays on one CPU, the tasks spread over this many
# (0: where the kernel puts them).  A task entry's own pin comes first.
PIN_CPUS = 0
# --keep-trace: each run copies the emulated disk's trace, the boot's so
# far, beside its run.json, and notes its window in the trace's clock
# (tests/tools/hdd/trace_stats.py reads the two).
KEEP_TRACE = False


def fio_jobfile(case, gi, target, base, size, runtime, logdir,
                renice=0, gate=None):
    """fio job file for group gi: one section per task entry, each
    process in its own slice of the group's region [base, base + size)
    of `target`, like a file of its own.  Each worker adds @renice to
    the nice value it inherits from fio, before its first I/O.  With
    @gate (StartGate), each worker waits there before its first I/O,
    and its runtime counts from then."""
    group = case.groups[gi]
    ntasks = sum(t.n for t in group.tasks)
    slot = size // ntasks // 4096 * 4096
    lines = ['[global]', f'filename={target}', 'ioengine=psync',
             'time_based=1', f'runtime={round(runtime * 1000)}ms',
             'randrepeat=0',
             'norandommap=1', 'group_reporting=1',
             'log_unix_epoch=1',
             f'size={slot}', f'offset_increment={slot}']
    if renice:
        lines.append(f'nice={renice}')
    if gate:
        lines.append(f'exec_prerun={gate.prerun}')
    lines.append('')
    first = 0
    for j, t in enumerate(group.tasks):
        lines += [f'[t{j}]', 'new_group', f'rw={t.rw}', f'bs={t.bs}',
                  f'direct={int(t.direct)}', f'numjobs={t.n}',
                  f'offset={base + first * slot}']
        if case.count == 'log':
            lines.append(f'write_iops_log={logdir}/g{gi}t{j}')
        if t.pin:
            lines += [f'cpus_allowed=0-{t.n - 1}',
                      'cpus_allowed_policy=split']
        elif PIN_CPUS and t.n == 1:
            lines.append(f'cpus_allowed={(gi + first) % PIN_CPUS}')
        elif PIN_CPUS:
            # split: job k of the file on the k-th CPU of the set, round
            # and round.
            lines += [f'cpus_allowed=0-{PIN_CPUS - 1}',
                      'cpus_allowed_policy=split']
        if t.rw in ('rw', 'randrw'):
            lines.append('rwmixread=50')
        if t.think_us:
            lines.append(f'thinktime={t.think_us}')
        if t.ioclass:
            lines.append(f'prioclass={IOPRIO_CLASS[t.ioclass]}')
            if t.level is not None:
                lines.append(f'prio={t.level}')
        lines.append('')
        first += t.n
    return '\n'.join(lines)


def warm_up():
    """Run the programs a measurement starts (sh, nice, ionice, fio)
    once on a file of the guest's tmpfs, so that their first start in a
    measurement does not read them from the host over 9p (see
    copy_out())."""
    os.makedirs(WORK, exist_ok=True)
    job = [f'--filename={WORK}/warm', '--size=1m', '--rw=randrw',
           '--bs=4k', '--ioengine=psync', '--time_based=1', '--runtime=1',
           '--numjobs=2', '--group_reporting=1', '--log_unix_epoch=1',
           f'--write_iops_log={WORK}/warm', '--thinktime=100']
    rc = subprocess.run(['sh', '-c', 'exec nice -n 0 ionice -c 2 -n 4 "$@"',
                         'sh', 'fio', '--name=warm', '--output-format=json',
                         '--eta=never', *job],
                        stdout=subprocess.DEVNULL).returncode
    if rc:
        # Only the first measurement's start is slower for it.
        print(f'bench: warm-up fio exited {rc}', file=sys.stderr,
              flush=True)
    for f in os.listdir(WORK):
        if f.startswith('warm'):
            os.remove(f'{WORK}/{f}')


class Ticker(threading.Thread):
    """Wakes every PERIOD s until stop(), doing tick() each time.  As
    itself, every millisecond while fio starts: with the idle time
    skipped (vm.qemu_argv(), sleep=off), each wait of a starting program
    for a 9p file on the host (an exec, an open) moves the guest's clock
    to its next timer, which in a quiet guest can be seconds away: the
    first case of a boot saw no fio worker within its window's deadline.
    A timer a millisecond away bounds each jump to that."""

    PERIOD = 0.001

    def __init__(self):
        super().__init__(daemon=True)
        self.done = threading.Event()

    def run(self):
        while not self.done.wait(self.PERIOD):
            self.tick()

    def tick(self):
        pass

    def stop(self):
        """Stop and wait for the thread; again, or unstarted: nothing."""
        self.done.set()
        if self.is_alive():
            self.join()


class MediaSampler(Ticker):
    """cfq's write-cache accounts (sched_media()) every PERIOD s until
    stop(): how the reads' mean, the debt and a cached write's price move
    through a run, as (seconds since start, debugfs line) pairs.  Only on
    the emulated disk (dev.trace), where disk time is what is measured."""

    PERIOD = 0.25

    def __init__(self, dev):
        super().__init__()
        self.dev = dev
        self.start_time = time.time()
        self.series = []

    def tick(self):
        line = sched_media(self.dev)
        if line:
            self.series.append((round(time.time() - self.start_time, 2),
                                line))


def copy_out(src, names, out):
    """Copy the files `names` from `src`, on the guest's tmpfs, to `out`.
    On the instruction clock with idle time skipped (QEMU's -icount with
    sleep=off) the guest's time jumps to its next timer whenever every
    vCPU waits, as one does for a 9p file on the host: fio's files live
    on the tmpfs while a measurement runs, and are copied out after.
    Called from a finally: returns a RuntimeError for the caller to raise
    after whatever the run raised, or None."""
    try:
        for name in names:
            shutil.copy(f'{src}/{name}', f'{out}/{name}')
    except OSError as e:
        return RuntimeError(f'copying fio\'s files to {out}: {e}')
    return None


class StartGate:
    """Where every fio worker of a measurement waits before its first
    I/O, so that all groups start together (fio's exec_prerun runs in
    the worker, and its runtime counts from the end of it).  Without it
    the groups start as fio forks their workers, one after another: a
    group whose workers came first had the device to itself for a while,
    and on a disk with a write cache a writing group filled it with
    hundreds of writes, which the reads then waited behind for most of
    the run.  Each worker leaves a file in `ready`, then reads a line
    from the fifo `go`; open() returns at once, as this end holds it
    open for reading and writing."""

    def __init__(self, path):
        shutil.rmtree(path, ignore_errors=True)
        self.ready = f'{path}/ready'
        os.makedirs(self.ready)
        go = f'{path}/go'
        os.mkfifo(go)
        self.fd = os.open(go, os.O_RDWR)
        self.prerun = (f"sh -c ': > {self.ready}/$$ && read -r x < {go}'")

    def waiting(self):
        return len(os.listdir(self.ready))

    def open(self, n):
        """Let @n workers go: a line each."""
        os.write(self.fd, b'\n' * n)

    def close(self):
        os.close(self.fd)


def fio_command(case, dev, gi, joins, fio_runtime, logdir, boost, gate,
                out):
    """The shell command that runs group @gi's fio from inside its
    cgroups (@joins), its job file written to WORK and copied to @out."""
    target, base, size, _ = group_region(case, dev, gi)
    job = fio_jobfile(case, gi, target, base, size, fio_runtime, logdir,
                      boost, gate)
    jobpath = f'{WORK}/g{gi}.fio'
    with open(jobpath, 'w') as f:
        f.write(job)
    shutil.copy(jobpath, f'{out}/g{gi}.fio')
    join = ' && '.join(f'echo $$ > {f}' for f in joins)
    nice = experiments.group_ionice(case.groups[gi])
    wrap = f'ionice {nice} ' if nice else ''
    if boost:
        wrap = f'nice -n -{boost} {wrap}'
    return (f'{join} && exec {wrap}fio --output-format=json '
            f'--eta=never {jobpath}')


def run_once(case, dev, peer_name, peer, runtime, out):
    """One measurement: all groups backlogged for `runtime` seconds,
    after every worker has started."""
    # Each job's runtime counts from the start gate (StartGate).
    fio_runtime = runtime + SETTLE_S + 0.5
    logdir = f'{WORK}/logs'
    shutil.rmtree(logdir, ignore_errors=True)
    os.makedirs(logdir)
    os.makedirs(out, exist_ok=True)
    flushed = dev.flush()
    dev.set_scheduler(peer['elevator'], peer.get('iosched'))
    joins = setup_cgroups(case, peer)
    make_extra_groups(case, peer, dev)
    events0 = sched_events(dev)
    procs = []
    # On a fast device the first workers' I/O keeps the vCPUs so busy
    # that fio takes longer than the run to fork the rest: fio runs with
    # a lower nice value, and its workers go back to the usual one.
    boost = FIO_BOOST if dev.prof and dev.prof.get('fork_first') else 0
    cmds = []
    gate = StartGate(f'{WORK}/gate')
    try:
        for gi in range(len(case.groups)):
            cmds.append(fio_command(case, dev, gi, joins[gi], fio_runtime,
                                    logdir, boost, gate, out))
    except BaseException:
        gate.close()
        raise
    # From here to the window's end nothing touches the host's files
    # (fio writes to the guest's tmpfs, copied out after): see
    # copy_out().
    ticker = Ticker()
    sampler = MediaSampler(dev)
    launched = time.time()
    load = None
    media = None
    try:
        ticker.start()
        if dev.trace:
            sampler.start()
        for gi, cmd in enumerate(cmds):
            with open(f'{WORK}/g{gi}.json', 'w') as fout, \
                    open(f'{WORK}/g{gi}.err', 'w') as ferr:
                procs.append(subprocess.Popen(['sh', '-c', cmd],
                                              stdout=fout, stderr=ferr,
                                              cwd=WORK))
        window = measure_window(case, gate, fio_runtime, runtime)
        ticker.stop()
        load = sample_load(dev, window)
        media = sched_media(dev)
        sampler.stop()
    finally:
        ticker.stop()
        sampler.stop()
        gate.open(case.nprocs())	# any still waiting (an error)
        codes = [p.wait() for p in procs]
        gate.close()
        elapsed = time.time() - launched
        teardown_cgroups()
        copied = copy_out(WORK, [f'g{gi}.{ext}' for gi in range(len(procs))
                                 for ext in ('json', 'err')], out)
    if copied:
        raise copied
    if any(codes):
        raise RuntimeError(f'fio exited {codes} ({out})')
    res = summarize(case, out, logdir, window, elapsed)
    res.update(load)
    if media:
        res['sched_media'] = media
    if sampler.series:
        res['sched_media_series'] = sampler.series
    events = sched_events(dev)
    if events0 and events:
        # The whole run's, not the window's: cfq's decisions, for a look.
        res['sched_events'] = {k: v - events0.get(k, 0)
                               for k, v in events.items()}
    res['flush_s'] = flushed
    if dev.trace:
        # Every cached write of the window destaged, into the trace.
        res['flush_end_s'] = dev.flush()
        secs = disk_time(case, dev, window)
        res['disk_s'] = secs
        res['time_shares'] = shares.percentages(secs)
        # The window's I/Os per second of the disk's time for them: a
        # write still in the cache when the window closes counts in
        # `iops` but is written back after it, up to half the 64 MiB
        # buffer (8,192 writes of 4 KiB, 273 a second over 30 s).
        busy = sum(secs)
        res['disk_iops'] = res['total_ios'] / busy if busy else 0.0
        # The same with each seek back after a write-back the writes'.
        back = disk_time(case, dev, window, seek_back=True)
        res['disk_s_back'] = back
        res['time_shares_back'] = shares.percentages(back)
        if KEEP_TRACE:
            res['trace_window'] = list(trace_window(window))
            shutil.copy(dev.trace, f'{out}/hdd.trace')
    return res


def sched_events(dev):
    """cfq's event counts on the device (gtest.sched_events()), or None
    under another elevator."""
    try:
        return gtest.sched_events(dev.disk)
    except (OSError, ValueError):
        return None


def sched_media(dev):
    """cfq's write-cache accounts at the window's end (debugfs `state`:
    the reads' mean, the debt, a cached write's price), or None."""
    try:
        return gtest.sched_media(dev.disk)
    except OSError:
        return None


def group_region(case, dev, gi):
    """(path, offset, size, start on the disk): where group @gi does its
    I/O.  Its partition, or its slice of the disk (the disk in as many
    slices as there are groups, whole MiBs each)."""
    if case.partitions:
        target = dev.targets[gi]
        return target, 0, dev.size_bytes(target), dev.start_bytes(target)
    size = dev.size_bytes(dev.targets[0]) // len(case.groups) >> 20 << 20
    return dev.targets[0], gi * size, size, gi * size


# Lines of the emulated disk's trace (tests/tools/hdd) that are not disk
# time: a write taken into the cache (its disk time is its destage) and
# a flush (the destages it waits for).  Each spans from the command's
# arrival, waiting included.
NOT_DISK_TIME = ('wcache', 'flush')


def trace_window(window):
    """The window (epoch ms) in the emulated disk's trace clock: seconds
    of CLOCK_MONOTONIC."""
    off = time.time() - time.monotonic()
    return window[0] / 1000 - off, window[1] / 1000 - off


def disk_time(case, dev, window, seek_back=False):
    """Seconds of disk time each unit's I/O of the window (epoch ms) cost,
    read from outside the scheduler: the emulated disk's trace.

    A read's, or an uncached write's, service runs from when the disk
    started on it to its completion; the part inside the window goes to
    the unit whose region of the disk (fio_jobfile()) holds its first
    sector.  A write taken into the cache costs the disk its destage,
    which the disk does when it chooses, often after the window: each
    destage goes to the units whose cached writes of the window it
    writes back, in proportion to their 4 KiB blocks, whenever it runs
    (the run ends with a cache flush, so every such write is destaged
    in the trace).  Destages of writes cached before the window opened
    count for nobody, as do the cached writes' own lines
    (NOT_DISK_TIME): one that waited for room in the cache spans the
    destages it waited on, as would each command waiting with it (32
    with NCQ).

    The first command after a write-back positions from where the
    write-back left the head; its trace line says how much longer that
    took than the command served next would have from where the
    write-back found it, and names the write-back's last destage by
    when it started.  That difference (the seek back) is the command's,
    unless @seek_back: then it goes to that destage's writes as if it
    were part of it, as far as it lies in the window (what the writes
    cost the others, not what the disk did for them)."""
    t0, t1 = trace_window(window)
    regions = []
    for ui, (_, gi, tj) in enumerate(case.units()):
        _, _, size, at = group_region(case, dev, gi)
        tasks = case.groups[gi].tasks
        slot = size // sum(t.n for t in tasks) // 4096 * 4096
        first = 0
        for j, t in enumerate(tasks):
            if tj is None or tj == j:
                regions.append((at + first * slot,
                                at + (first + t.n) * slot, ui))
            first += t.n

    def unit_of(pos):
        for lo, hi, ui in regions:
            if lo <= pos < hi:
                return ui
        return None

    def blocks(lba, nsect):		# the 4 KiB blocks a line covers
        return range(lba // 8, (lba + max(nsect, 1) - 1) // 8 + 1)

    secs = [0.0] * len(case.units())
    cached = {}		# 4 KiB block -> completion of its last cached write
    billed = {}		# destage's start, as traced -> {unit: its part}
    with open(dev.trace) as f:
        for line in f:
            p = line.split()
            if len(p) < 7:
                continue	# a line being written
            start, done = float(p[1]), float(p[2])
            lba, nsect = int(p[4]), int(p[5])
            if p[6] == 'wcache':
                for b in blocks(lba, nsect):
                    cached[b] = done
                continue
            if p[6] == 'destage':
                span = blocks(lba, nsect)
                ours = [b * 4096 for b in span
                        if t0 <= cached.pop(b, t0 - 1) <= t1]
                part = billed[p[1]] = {}
                for pos in ours:
                    ui = unit_of(pos)
                    if ui is not None:
                        part[ui] = part.get(ui, 0.0) + 1 / len(span)
                for ui, k in part.items():
                    secs[ui] += (done - start) * k
                continue
            if p[6] in NOT_DISK_TIME or done <= t0 or start >= t1:
                continue
            if seek_back and len(p) >= 9:
                # [start, start + back) is the writes', in the window
                back = float(p[7])
                lo, hi = sorted((start, start + back))
                part = max(0.0, min(hi, t1) - max(lo, t0))
                for ui, k in billed.get(p[8], {}).items():
                    secs[ui] += math.copysign(part, back) * k
                start += back
            ui = unit_of(lba * 512)
            if ui is not None and min(done, t1) > max(start, t0):
                secs[ui] += min(done, t1) - max(start, t0)
    return secs


def _busy_counters(dev):
    """(device busy ms, CPU busy jiffies, CPU total jiffies)."""
    io_ticks = int(devices.read(f'/sys/block/{dev.disk}/stat').split()[9])
    cpu = [int(v) for v in devices.read('/proc/stat').split('\n')[0]
           .split()[1:]]
    idle = cpu[3] + cpu[4]
    return io_ticks, sum(cpu) - idle, sum(cpu)


def sample_load(dev, window):
    """How busy the device and the guest CPUs were during the window, in
    percent: tells a scheduler that leaves the device idle from a run
    where the CPUs (TCG) could not keep it busy."""
    t0, t1 = window[0] / 1000.0, window[1] / 1000.0
    time.sleep(max(0.0, t0 - time.time()))
    a, ta = _busy_counters(dev), time.time()
    # Only beside the disk time a trace gives: reading the groups costs
    # the guest's CPU in the window (with 1000 groups, 2 % of the I/Os
    # on the instant-completion device, 7-cpu-cost).
    ga = sched_groups(dev) if dev.trace else None
    time.sleep(max(0.0, t1 - time.time()))
    b, tb = _busy_counters(dev), time.time()
    gb = sched_groups(dev) if ga else None
    res = {'dev_busy': 100.0 * (b[0] - a[0]) / (1000.0 * (tb - ta)),
           'cpu_busy': 100.0 * (b[1] - a[1]) / max(1, b[2] - a[2])}
    if ga and gb:
        # What cfq charged each group in the window, beside its disk time.
        res['sched_groups'] = {
            name: {k: v - ga[name][k] for k, v in vals.items()}
            for name, vals in gb.items() if name in ga}
    return res


def sched_groups(dev):
    """cfq's counters per group so far (gtest.sched_groups()): {name:
    {'service': ns charged, 'dispatched': requests, 'turns': turns}}, or
    None under another elevator."""
    try:
        groups = gtest.sched_groups(dev.disk)
    except OSError:
        return None
    return {name: {k: g[k] for k in ('service', 'dispatched', 'turns')}
            for name, g in groups.items()}


def measure_window(case, gate, fio_runtime, runtime):
    """(t0, t1) in epoch ms: every fio worker of every group waits at
    @gate (StartGate); once all do, they go, t0 is SETTLE_S later and t1
    before the earliest a job can stop (each runs `fio_runtime` seconds
    from then).  Workers that take longer than case.startup_allowance()
    and `runtime` together to start are an error."""
    want = case.nprocs()
    deadline = time.monotonic() + case.startup_allowance() + runtime
    while gate.waiting() < want:
        if time.monotonic() > deadline:
            raise RuntimeError(f'fio workers {gate.waiting()} at the '
                               f'start, expected {want}')
        time.sleep(0.1)
    go = time.time()		# no worker can start before this
    gate.open(want)
    t0 = go + SETTLE_S
    t1 = go + fio_runtime - 0.5
    return int(t0 * 1000), int(t1 * 1000)


def summarize(case, out, logdir, window, elapsed):
    reports = [fio.load_json_file(f'{out}/g{gi}.json')
               for gi in range(len(case.groups))]
    if case.count == 'total':
        return summarize_totals(case, reports, elapsed)
    prefixes = {(gi, j): f'{logdir}/g{gi}t{j}'
                for gi, g in enumerate(case.groups)
                for j in range(len(g.tasks))}
    logs = fio.load_logs(prefixes)
    per_task = {}
    for key, per_job in logs.items():
        rd = wr = 0.0
        for samples in per_job:
            got = fio.ios_in_window(samples, window)
            rd += got[0]
            wr += got[1]
        per_task[key] = (rd, wr)
    units = []
    for label, gi, tj in case.units():
        keys = [k for k in per_task if k[0] == gi and (tj is None or
                                                       k[1] == tj)]
        rd = sum(per_task[k][0] for k in keys)
        wr = sum(per_task[k][1] for k in keys)
        jobs = [job for job in reports[gi]['jobs']
                if tj is None or job['jobname'] == f't{tj}']
        p99 = [fio.job_p99_ms(job) for job in jobs]
        p99 = [v for v in p99 if v is not None]
        units.append({'label': label, 'read_ios': rd, 'write_ios': wr,
                      'ios': rd + wr, 'p99_ms': max(p99) if p99 else None,
                      'total_ios_run': sum(sum(fio.job_ios(j).values())
                                           for j in jobs)})
    secs = (window[1] - window[0]) / 1000.0
    total = sum(u['ios'] for u in units)
    # Each kind of task of each group (its n processes together): a
    # group's share can hide a kind its scheduler left waiting.  'like'
    # names what makes two kinds' I/Os cost alike, but for the direction.
    kinds = [{'group': gi, 'task': j, 'n': t.n, 'rw': t.rw,
              'like': f'{t.bs} {t.rw.startswith("rand")} {t.ioclass} '
                      f'{t.level} {t.ionice} {t.think_us} {t.direct}',
              'ios': sum(per_task.get((gi, j), (0.0, 0.0)))}
             for gi, g in enumerate(case.groups)
             for j, t in enumerate(g.tasks)]
    return {'window_s': secs, 'elapsed_s': elapsed, 'units': units,
            'kinds': kinds,
            'total_ios': total, 'iops': total / secs if secs else 0.0,
            'shares': shares.percentages([u['ios'] for u in units])}


def summarize_totals(case, reports, elapsed):
    """Shares and IOPS from fio's own totals and runtimes.  A job entry
    reports its processes together (group_reporting): its job_runtime is
    their runtimes summed, its read and write runtimes are how long the
    group ran."""
    units = []
    secs = 0.0
    for label, gi, tj in case.units():
        jobs = [job for job in reports[gi]['jobs']
                if tj is None or job['jobname'] == f't{tj}']
        rd = sum(j['read']['total_ios'] for j in jobs)
        wr = sum(j['write']['total_ios'] for j in jobs)
        secs = max([secs] + [max(j['read']['runtime'],
                                 j['write']['runtime']) / 1000.0
                             for j in jobs])
        p99 = [v for v in (fio.job_p99_ms(j) for j in jobs) if v is not None]
        units.append({'label': label, 'read_ios': rd, 'write_ios': wr,
                      'ios': rd + wr, 'p99_ms': max(p99) if p99 else None,
                      'total_ios_run': rd + wr})
    total = sum(u['ios'] for u in units)
    return {'window_s': secs, 'elapsed_s': elapsed, 'units': units,
            'total_ios': total, 'iops': total / secs if secs else 0.0,
            'shares': shares.percentages([u['ios'] for u in units])}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--exp', action='append', default=[])
    ap.add_argument('--case', action='append', default=[])
    ap.add_argument('--profile', action='append', default=[])
    ap.add_argument('--peer', action='append', default=[])
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--runtime', type=int, default=20)
    ap.add_argument('--scale', type=float, default=1.0)
    ap.add_argument('--quick', action='store_true')
    ap.add_argument('--pin', action='store_true',
                    help='each fio task on one CPU, spread over all')
    ap.add_argument('--keep-trace', action='store_true')
    args = ap.parse_args()
    global PIN_CPUS, KEEP_TRACE
    PIN_CPUS = os.cpu_count() if args.pin else 0
    KEEP_TRACE = args.keep_trace

    profiles = experiments.load_toml('profiles.toml')
    peers = experiments.load_toml('peers.toml')
    peer_names = args.peer or experiments.default_peers(peers)
    cases = experiments.load_all(args.exp or None, args.scale, args.quick,
                                 args.case or None)
    wanted = args.profile or sorted({p for c in cases for p in c.profiles},
                                    key=list(profiles).index)
    os.makedirs(WORK, exist_ok=True)
    warm_up()
    failed = []
    for pname in wanted:
        todo = [c for c in cases if pname in c.profiles]
        if not todo:
            continue
        dev = devices.make_device('nullb1', profiles[pname],
                                  trace=f'{WORK}/hdd.trace')
        for case in todo:
            for run in range(1, args.runs + 1):
                for peer_name in experiments.peer_order(peer_names, run):
                    if case.peers and peer_name not in case.peers:
                        continue
                    out = (f'{args.out}/{case.exp}/{case.name}/{pname}/'
                           f'{peer_name}/r{run}')
                    t0 = time.monotonic()
                    try:
                        summary = run_once(case, dev, peer_name,
                                           peers[peer_name], args.runtime,
                                           out)
                    except RuntimeError as e:
                        # Keep going: one bad measurement must not cost
                        # the rest; the run still fails at the end.
                        failed.append(f'{case.key} {pname} {peer_name} '
                                      f'r{run}: {e}')
                        print(f'bench: FAILED {failed[-1]}', flush=True)
                        continue
                    summary.update({
                        'exp': case.exp, 'case': case.name,
                        'title': case.title, 'profile': pname,
                        'profile_summary': profiles[pname]['summary'],
                        'peer': peer_name, 'run': run, 'by': case.by,
                        'target': case.target, 'alone': case.alone,
                        'isolate': case.isolate,
                        'scale': args.scale, 'pinned': args.pin,
                        'nprocs': case.nprocs(), 'runtime': args.runtime})
                    with open(f'{out}/run.json', 'w') as f:
                        json.dump(summary, f, indent=1)
                    tshares = summary.get('time_shares')
                    back = summary.get('time_shares_back')
                    print(f'bench: {case.key} {pname} {peer_name} r{run}: '
                          + ' '.join(f'{s:.1f}' for s in summary['shares'])
                          + (' (disk time ' + ' '.join(f'{s:.1f}'
                                                       for s in tshares)
                             + '; seek backs the writes\' '
                             + ' '.join(f'{s:.1f}' for s in back)
                             + ')' if tshares else '')
                          + f' ({summary["iops"]:.0f} IOPS, '
                          + (f'{summary["disk_iops"]:.0f} a disk-second, '
                             if summary.get('disk_iops') else '')
                          + f'{time.monotonic() - t0:.0f}s)', flush=True)
        devices.remove_device(dev)
    for f in failed:
        print(f'bench: FAILED {f}', file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
