#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of the attribution experiments (experiments/
attribution.toml): I/O that kernel threads submit for a cgroup (the
flusher's writeback, the loop driver's worker) charged to that cgroup.

For every (case, run, peer): the emulated disk (memory-backed null_blk,
1 ms per request, depth 1) with ext4 on it, the groups made as bench.py
makes them (plus the memory controller), one fio per group started from
a shell in the group, and over a common window: the requests the disk
completed (/sys/block/X/stat), each direct reader group's completed I/Os
(fio's per-I/O logs) and, for cfq, each group's cfq.stat.  On this disk
every request takes the same device time, so a group's share of the
disk is its share of the requests; a buffered writer's requests are the
disk's, less the direct readers' (writeback, and the journal's, which
are the writer's doing too).  run.json is in bench.py's format, so the
bench report reads it.

Usage: attribution.py --out DIR [--case C]... [--peer P]... [--runs N]
                      [--runtime S]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time
import tomllib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from harness import experiments, fio, shares  # noqa: E402
import bench  # noqa: E402
import devices  # noqa: E402

DISK = 'attr'
MNT = '/tmp/cfqfs'
WORK = '/tmp/attribution'
SETTLE_S = 1.0
PROFILE = {'irqmode': 2, 'completion_nsec': 1000000, 'hw_queue_depth': 1,
           'rotational': 1, 'nr_requests': 512}
PROFILE_NAME = 'd1-rot-ext4'
READ_FILE_MB = 64
# While measuring, no request larger than a direct reader's: the disk
# takes 1 ms per request, but a memory-backed null_blk copies the data
# before it starts that timer, and under TCG a 512 KiB writeback request
# copies for about as long again.  With every request 4 KiB, a group's
# share of the requests is its share of the disk's time, which is what
# cfq divides (cfq.stat's service_us).  Set only for the window: the
# files are written with large requests first.
MEASURE_MAX_KB = 4
RW = {'buffered-writer': 'write', 'direct-reader': 'randread',
      'loop-reader': 'randread'}


def load(path=None):
    path = path or os.path.join(experiments.EXP_DIR, 'attribution.toml')
    with open(path, 'rb') as f:
        doc = tomllib.load(f)
    for c in doc['cases']:
        for g in c['groups']:
            if g['task'] not in RW:
                raise ValueError(f'{c["name"]}: task {g["task"]!r}')
        buffered = [g for g in c['groups'] if g['task'] == 'buffered-writer']
        if len(buffered) > 1:
            raise ValueError(f'{c["name"]}: one buffered writer group at '
                             'most (its share is the rest of the disk)')
        if len(c['target']) != len(c['groups']):
            raise ValueError(f'{c["name"]}: one target per group')
    return doc


def as_case(doc, c):
    """The case as an experiments.Case (for bench.setup_cgroups)."""
    groups = [experiments.Group(g['name'], None,
                                [experiments.Task(g['n'], RW[g['task']])],
                                g['name'], g['weight'])
              for g in c['groups']]
    return experiments.Case(exp='9-attribution', name=c['name'],
                            title=doc['title'], profiles=[PROFILE_NAME],
                            groups=groups, target=c['target'])


def make_disk(doc):
    """The disk with ext4 mounted on it, dirty limits set."""
    devices.remove_null_blk(DISK)
    dev = devices.make_null_blk(DISK, PROFILE, memory_backed=True,
                                size_mb=doc['fs_mb'])
    subprocess.run(['mkfs.ext4', '-q', '-F', '-E',
                    'lazy_itable_init=0,lazy_journal_init=0',
                    f'/dev/{DISK}'], check=True)
    os.makedirs(MNT, exist_ok=True)
    subprocess.run(['mount', '-t', 'ext4', f'/dev/{DISK}', MNT], check=True)
    devices.write('/proc/sys/vm/dirty_background_bytes',
                  doc['dirty_background_mb'] << 20)
    devices.write('/proc/sys/vm/dirty_bytes', doc['dirty_mb'] << 20)
    return dev


def make_read_files(c):
    """The direct readers' files, written in full.  They read files, not
    the disk itself: a direct read of the disk first writes back the
    filesystem's dirty metadata cached in that range, and waits."""
    for g in c['groups']:
        if g['task'] != 'direct-reader':
            continue
        os.makedirs(f'{MNT}/{g["name"]}', exist_ok=True)
        for j in range(g['n']):
            subprocess.run(['dd', 'if=/dev/zero',
                            f'of={MNT}/{g["name"]}/f{j}', 'bs=1M',
                            f'count={READ_FILE_MB}', 'oflag=direct',
                            'status=none'], check=True)


def make_loops(c):
    """Backing files written in full (unwritten extents would read as
    zeros without touching the disk), attached with direct I/O."""
    loops = []
    for i in range(c.get('loops', 0)):
        path = f'{MNT}/vm{i}.img'
        subprocess.run(['dd', 'if=/dev/zero', f'of={path}', 'bs=1M',
                        f'count={c["loop_mb"]}', 'oflag=direct',
                        'status=none'], check=True)
        out = subprocess.run(['losetup', '--direct-io=on', '-f', '--show',
                              path], check=True, stdout=subprocess.PIPE,
                             text=True)
        loops.append(out.stdout.strip())
    return loops


def jobfile(g, gi, loops, runtime, logdir):
    lines = ['[global]', 'ioengine=psync', 'time_based=1',
             f'runtime={runtime}', 'randrepeat=0', 'norandommap=1',
             'log_unix_epoch=1', 'group_reporting=1', '', f'[{g["name"]}]',
             f'numjobs={g["n"]}', f'rw={RW[g["task"]]}']
    if g['task'] == 'buffered-writer':
        os.makedirs(f'{MNT}/{g["name"]}', exist_ok=True)
        lines += [f'directory={MNT}/{g["name"]}', 'bs=64k', 'size=32m',
                  'direct=0']
    elif g['task'] == 'direct-reader':
        lines += [f'directory={MNT}/{g["name"]}', 'filename_format=f$jobnum',
                  f'size={READ_FILE_MB}m', 'bs=4k', 'direct=1',
                  f'write_iops_log={logdir}/g{gi}']
    else:
        lines += [f'filename={loops[gi]}', 'bs=4k', 'direct=1',
                  f'write_iops_log={logdir}/g{gi}']
    if g['task'] == 'direct-reader':
        # Requests in flight without the CPU: the writers' page-cache
        # copies under TCG can keep psync readers from issuing theirs,
        # and a group that is not backlogged gets less than its share.
        lines += ['ioengine=libaio', f'iodepth={g.get("iodepth", 1)}']
    return '\n'.join(lines) + '\n'


def clean_files(c):
    """Written back, removed and out of the page cache: a page stays
    charged to the memory cgroup that first cached it, even after that
    cgroup is removed, and its writeback with it; the next run's writer
    must dirty pages of its own."""
    subprocess.run(['sync'], check=True)
    for g in c['groups']:
        if g['task'] == 'buffered-writer':
            shutil.rmtree(f'{MNT}/{g["name"]}', ignore_errors=True)
    subprocess.run(['sync'], check=True)
    devices.write('/proc/sys/vm/drop_caches', 3)


def disk_requests():
    f = devices.read(f'/sys/block/{DISK}/stat').split()
    return int(f[0]) + int(f[4])


def cfq_stat_file(peer, name):
    if peer['group'] == 'cfq-v2':
        return f'{bench.BENCH_CG}/{name}/cfq.stat'
    if peer['group'] == 'cfq':
        return f'{bench.v1_path(name)}/cfq.stat'
    return None


def read_service(path):
    """service_us per device line of a cfq.stat, summed."""
    total = 0
    for line in devices.read(path).splitlines():
        for kv in line.split()[1:]:
            k, _, v = kv.partition('=')
            if k == 'service_us':
                total += int(v)
    return total


def run_once(doc, c, peer, runtime, out):
    case = as_case(doc, c)
    logdir = f'{WORK}/logs'
    shutil.rmtree(logdir, ignore_errors=True)
    os.makedirs(logdir)
    os.makedirs(out, exist_ok=True)
    dev = devices.Device(DISK, [f'/dev/{DISK}'], PROFILE['nr_requests'],
                         PROFILE['rotational'])
    dev.set_scheduler(peer['elevator'], peer.get('iosched'))
    max_kb = f'/sys/block/{DISK}/queue/max_sectors_kb'
    saved_kb = devices.read(max_kb).strip()
    devices.write(max_kb, MEASURE_MAX_KB)
    joins = bench.setup_cgroups(case, peer, doc['controllers'])
    loops = c.get('_loops', [])
    procs = []
    fio_runtime = runtime + 2 * SETTLE_S + case.startup_allowance() + 2
    try:
        for gi, g in enumerate(c['groups']):
            path = f'{WORK}/g{gi}.fio'
            with open(path, 'w') as f:
                f.write(jobfile(g, gi, loops, int(fio_runtime), logdir))
            shutil.copy(path, f'{out}/g{gi}.fio')
            join = ' && '.join(f'echo $$ > {f}' for f in joins[gi])
            procs.append(subprocess.Popen(
                ['sh', '-c', f'{join} && exec fio --output-format=json '
                 f'--eta=never {path}'],
                stdout=open(f'{out}/g{gi}.json', 'w'),
                stderr=open(f'{out}/g{gi}.err', 'w')))
        want = [1 + g['n'] for g in c['groups']]
        end = time.monotonic() + 30
        while [len(devices.read(j[0]).split()) for j in joins] < want:
            if time.monotonic() > end:
                raise RuntimeError('fio workers did not start')
            time.sleep(0.1)
        time.sleep(SETTLE_S)
        stats = [cfq_stat_file(peer, g['name']) for g in c['groups']]
        t0, d0 = time.time(), disk_requests()
        s0 = [read_service(p) for p in stats if p]
        time.sleep(runtime)
        t1, d1 = time.time(), disk_requests()
        s1 = [read_service(p) for p in stats if p]
        sched = f'/sys/kernel/debug/block/{DISK}/sched/groups'
        if os.path.exists(sched):	# what cfq saw, for the record
            shutil.copy(sched, f'{out}/sched-groups.txt')
    finally:
        codes = [p.wait() for p in procs]
        devices.write(max_kb, saved_kb)
        clean_files(c)
        bench.teardown_cgroups()
    if any(codes):
        raise RuntimeError(f'fio exited {codes} ({out})')
    window = (int(t0 * 1000), int(t1 * 1000))
    direct = {}
    for gi, g in enumerate(c['groups']):
        if g['task'] != 'buffered-writer':
            direct[gi] = sum(sum(fio.ios_in_window(s, window).values())
                             for p in fio.logs_for(f'{logdir}/g{gi}')
                             for s in [fio.read_iops_log(p)])
    total = d1 - d0
    ios = [direct.get(gi, total - sum(direct.values()))
           for gi in range(len(c['groups']))]
    units = [{'label': f'{g["name"]} w{g["weight"]} {g["task"]}',
              'ios': v, 'read_ios': v if g['task'] != 'buffered-writer'
              else 0, 'write_ios': v if g['task'] == 'buffered-writer'
              else 0, 'p99_ms': None, 'total_ios_run': v}
             for g, v in zip(c['groups'], ios)]
    res = {'window_s': t1 - t0, 'units': units, 'total_ios': total,
           'iops': total / (t1 - t0), 'shares': [100.0 * v / total
                                                 for v in ios],
           'disk_requests': total}
    if s0:
        res['cfq_service_shares'] = shares.percentages(
            [b - a for a, b in zip(s0, s1)])
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--out', required=True)
    ap.add_argument('--case', action='append', default=[])
    ap.add_argument('--peer', action='append', default=[])
    ap.add_argument('--runs', type=int, default=1)
    ap.add_argument('--runtime', type=int)
    args = ap.parse_args()

    doc = load()
    peers = experiments.load_toml('peers.toml')
    peer_names = args.peer or experiments.default_peers(peers)
    runtime = args.runtime or doc['runtime']
    os.makedirs(WORK, exist_ok=True)
    make_disk(doc)
    failed = []
    for c in doc['cases']:
        if args.case and c['name'] not in args.case:
            continue
        c['_loops'] = make_loops(c)
        make_read_files(c)
        for run in range(1, args.runs + 1):
            for peer_name in experiments.peer_order(peer_names, run):
                out = f'{args.out}/{c["name"]}/{PROFILE_NAME}/{peer_name}/r{run}'
                t = time.monotonic()
                try:
                    res = run_once(doc, c, peers[peer_name], runtime, out)
                except RuntimeError as e:
                    failed.append(f'{c["name"]} {peer_name} r{run}: {e}')
                    print(f'attribution: FAILED {failed[-1]}', flush=True)
                    continue
                res.update({'exp': '9-attribution', 'case': c['name'],
                            'title': doc['title'], 'profile': PROFILE_NAME,
                            'profile_summary': 'null_blk, 1 ms per request, '
                            'depth 1, memory-backed, ext4',
                            'peer': peer_name, 'run': run, 'by': 'group',
                            'target': c['target'], 'scale': 1.0,
                            'nprocs': sum(g['n'] for g in c['groups']),
                            'runtime': runtime})
                with open(f'{out}/run.json', 'w') as f:
                    json.dump(res, f, indent=1)
                print(f'attribution: {c["name"]} {peer_name} r{run}: '
                      + ' '.join(f'{s:.1f}' for s in res['shares'])
                      + f' ({res["iops"]:.0f} requests/s'
                      + (', cfq.stat service ' + ' '.join(
                          f'{s:.1f}' for s in res['cfq_service_shares'])
                         if 'cfq_service_shares' in res else '')
                      + f', {time.monotonic() - t:.0f}s)', flush=True)
        for loop in c['_loops']:
            subprocess.run(['losetup', '-d', loop], check=True)
    subprocess.run(['umount', MNT], check=True)
    devices.remove_null_blk(DISK)
    for f in failed:
        print(f'attribution: FAILED {f}', file=sys.stderr)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
