#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the fairness-over-time experiments (harness/dynamic.py):
groups arrive, leave, burst and change priority while the others read.

For every (case, run, peer): switch the scheduler, make the groups as
bench.py does, start each group's fio at its time from a shell already in
the group, stop and continue its tasks (SIGSTOP/SIGCONT) to make it leave
and return, rewrite its cfq.ioprio (io.bfq.weight for bfq) when told, and
record when each change really happened.  run.json holds every group's
completed I/Os in 10 ms bins from t0 (from fio's per-I/O logs) and that
log; the host judges it.

Usage: dynamic.py --out DIR [--case C]... [--profile P]... [--peer P]...
                  [--runs N] [--quick]
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import dynamic, experiments, fio, shares  # noqa: E402
import bench  # noqa: E402
import devices  # noqa: E402

WORK = '/tmp/dynamic'
SETTLE_S = 1.0


class Group:
    """One group's fio: launched, stopped, continued."""

    def __init__(self, case, gi, dev, peer, join, logdir, out, t_end):
        self.case, self.gi, self.peer, self.join = case, gi, peer, join
        self.g = case.groups[gi]
        self.dev, self.logdir, self.out, self.t_end = dev, logdir, out, t_end
        self.proc = None
        self.paused = False

    def launch(self, now):
        """Start fio so that it runs until t_end (epoch s) at least."""
        target = self.dev.targets[0]
        size = self.dev.size_bytes(target) // len(self.case.groups) >> 20 << 20
        runtime = int(self.t_end - now + 2 +
                      self.case.startup_allowance())
        job = bench.fio_jobfile(self.case, self.gi, target, self.gi * size,
                                size, runtime, self.logdir)
        path = f'{WORK}/g{self.gi}.fio'
        with open(path, 'w') as f:
            f.write(job)
        join = ' && '.join(f'echo $$ > {f}' for f in self.join)
        nice = experiments.group_ionice(self.g)
        wrap = f'ionice {nice} ' if nice else ''
        cmd = (f'{join} && exec {wrap}fio --output-format=json --eta=never '
               f'{path}')
        # A group may start while others are measured: its files stay on
        # the guest's tmpfs until the run ends (bench.copy_out()).
        with open(f'{WORK}/g{self.gi}.json', 'w') as fout, \
                open(f'{WORK}/g{self.gi}.err', 'w') as ferr:
            self.proc = subprocess.Popen(['sh', '-c', cmd], stdout=fout,
                                         stderr=ferr)

    def files(self):
        """The job file and fio's report and errors, in WORK."""
        return [f'g{self.gi}.{ext}' for ext in ('fio', 'json', 'err')]

    def pids(self):
        return [int(p) for p in devices.read(self.join[0]).split()]

    def running(self):
        """Every fio worker (and fio itself) exists."""
        return len(self.pids()) >= 1 + sum(t.n for t in self.g.tasks)

    def signal(self, sig):
        for pid in self.pids():
            try:
                os.kill(pid, sig)
            except ProcessLookupError:
                pass
        self.paused = sig == signal.SIGSTOP


def wait_running(groups, timeout):
    end = time.monotonic() + timeout
    while not all(g.running() for g in groups):
        if time.monotonic() > end:
            raise RuntimeError('fio workers did not start: ' + ', '.join(
                f'g{g.gi}: {len(g.pids())}' for g in groups))
        time.sleep(0.05)


def set_ioprio(case, peer, gi, ioprio):
    name = case.groups[gi].name
    if peer['group'] == 'cfq':
        devices.write(f'{bench.CFQ_CG}/bench-{name}/cfq.ioprio', ioprio)
    elif peer['group'] == 'bfq':
        devices.write(f'{bench.BENCH_CG}/{name}/io.bfq.weight',
                      shares.bfq_weight(ioprio))


def timeline(case):
    """The case's changes in time order, with the on/off cycle spelt out:
    [(at, group, do, ioprio)]."""
    evs = [(e.at, e.group, e.do, e.ioprio) for e in case.events
           if e.do != 'start']
    if case.onoff:
        gi, on, off = (case.onoff[k] for k in ('group', 'on', 'off'))
        t = on
        while t < case.duration:
            evs.append((t, gi, 'pause', None))
            if t + off < case.duration:
                evs.append((t + off, gi, 'resume', None))
            t += on + off
    return sorted(evs, key=lambda e: e[0])


def run_once(case, dev, peer_name, peer, out):
    logdir = f'{WORK}/logs'
    shutil.rmtree(logdir, ignore_errors=True)
    os.makedirs(logdir)
    os.makedirs(out, exist_ok=True)
    dev.set_scheduler(peer['elevator'], peer.get('iosched'))
    joins = bench.setup_cgroups(case, peer)
    # t0 is not known before the first groups run: their fio gets the
    # start-up it usually needs (Case.startup_allowance()) on top of the
    # duration, and the run fails if one of them ends before the case.
    first = [gi for gi in range(len(case.groups)) if case.start_at(gi) == 0]
    slack = 30 + case.startup_allowance()
    t_end_guess = (time.time() + case.startup_allowance() + SETTLE_S +
                   2 + case.duration)
    groups = [Group(case, gi, dev, peer, joins[gi], logdir, out, t_end_guess)
              for gi in range(len(case.groups))]
    log = []
    launched = time.time()
    try:
        for gi in first:
            groups[gi].launch(time.time())
        wait_running([groups[gi] for gi in first], slack)
        t0 = time.time() + SETTLE_S
        t_end = t0 + case.duration
        for g in groups:
            g.t_end = t_end
        time.sleep(max(0.0, t0 - time.time()))
        starts = sorted((case.start_at(gi), gi)
                        for gi in range(len(case.groups))
                        if case.start_at(gi) > 0)
        todo = timeline(case)
        while starts or todo:
            s_at = starts[0][0] if starts else None
            e_at = todo[0][0] if todo else None
            if e_at is None or (s_at is not None and s_at <= e_at):
                at, gi = starts.pop(0)
                time.sleep(max(0.0, t0 + at - time.time()))
                groups[gi].launch(time.time())
                wait_running([groups[gi]], slack)
                log.append({'t': time.time() - t0, 'group': gi,
                            'do': 'start'})
                continue
            at, gi, do, ioprio = todo.pop(0)
            time.sleep(max(0.0, t0 + at - time.time()))
            if do == 'pause':
                groups[gi].signal(signal.SIGSTOP)
            elif do == 'resume':
                groups[gi].signal(signal.SIGCONT)
            else:
                set_ioprio(case, peer, gi, ioprio)
            log.append({'t': time.time() - t0, 'group': gi, 'do': do,
                        'ioprio': ioprio})
        time.sleep(max(0.0, t_end - time.time()))
        early = [g.gi for g in groups if g.proc.poll() is not None]
        if early:
            raise RuntimeError(f'groups {early}: fio ended before the case '
                               f'(start-up took {t0 - SETTLE_S - launched:.1f}'
                               ' s)')
    finally:
        for g in groups:
            if g.proc and g.paused:
                g.signal(signal.SIGCONT)
        codes = [g.proc.wait() for g in groups if g.proc]
        bench.teardown_cgroups()
        copied = bench.copy_out(WORK, [f for g in groups if g.proc
                                       for f in g.files()], out)
    if copied:
        raise copied
    if any(codes):
        raise RuntimeError(f'fio exited {codes} ({out})')
    return summarize(case, logdir, t0, log)


def summarize(case, logdir, t0, log):
    nbins = int(round(case.duration * 1000 / dynamic.BIN_MS))
    t0_ms = t0 * 1000.0
    bins = []
    for gi, g in enumerate(case.groups):
        b = [0] * nbins
        for j in range(len(g.tasks)):
            for path in fio.logs_for(f'{logdir}/g{gi}t{j}'):
                for t, value, _ in fio.read_iops_log(path):
                    k = int((t - t0_ms) // dynamic.BIN_MS)
                    if 0 <= k < nbins:
                        b[k] += value
        bins.append(b)
    return {
        'exp': 'dynamic', 'case': case.name, 'duration_s': case.duration,
        'bin_ms': dynamic.BIN_MS, 't0': t0, 'log': log, 'bins': bins,
        'onoff': case.onoff,
        'groups': [{'name': g.name, 'ioprio': g.ioprio,
                    'idle': experiments.group_is_idle_class(g),
                    'start_at': case.start_at(gi),
                    'tasks': [t.label() for t in g.tasks]}
                   for gi, g in enumerate(case.groups)],
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--case', action='append', default=[])
    ap.add_argument('--profile', action='append', default=[])
    ap.add_argument('--peer', action='append', default=[])
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--quick', action='store_true')
    args = ap.parse_args()

    profiles = experiments.load_toml('profiles.toml')
    peers = experiments.load_toml('peers.toml')
    peer_names = args.peer or experiments.default_peers(peers)
    cases = dynamic.load(args.quick, args.case or None)
    wanted = args.profile or sorted({p for c in cases for p in c.profiles},
                                    key=list(profiles).index)
    os.makedirs(WORK, exist_ok=True)
    bench.warm_up()
    failed = []
    for pname in wanted:
        todo = [c for c in cases if pname in c.profiles]
        if not todo:
            continue
        dev = devices.make_device('nullb1', profiles[pname])
        for case in todo:
            for run in range(1, args.runs + 1):
                for peer_name in experiments.peer_order(peer_names, run):
                    out = f'{args.out}/{case.name}/{pname}/{peer_name}/r{run}'
                    t = time.monotonic()
                    try:
                        res = run_once(case, dev, peer_name,
                                       peers[peer_name], out)
                    except RuntimeError as e:
                        failed.append(f'{case.name} {pname} {peer_name} '
                                      f'r{run}: {e}')
                        print(f'dynamic: FAILED {failed[-1]}', flush=True)
                        continue
                    res.update({'profile': pname, 'peer': peer_name,
                                'run': run, 'title': case.title})
                    with open(f'{out}/run.json', 'w') as f:
                        json.dump(res, f)
                    j = dynamic.judge(res)
                    print(f'dynamic: {case.name} {pname} {peer_name} r{run}: '
                          f'1-s err {j["err_1s"]:.1f}, 10-s err '
                          f'{j["err_10s"]:.1f}, longest wait '
                          f'{max(j["gap_s"]):.2f} s, {j["iops"]:.0f} IOPS '
                          f'({time.monotonic() - t:.0f}s)', flush=True)
        devices.remove_device(dev)
    for f in failed:
        print(f'dynamic: FAILED {f}', file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
