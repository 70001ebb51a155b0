#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest probe: the dd pair (group 7 task be/0, group 0 task be/7) on d32,
runs alternating none and cfq; for each fio worker, how many physically
contiguous runs its I/O buffer has (pagemap), and its read rate."""
import json, os, struct, subprocess, time, glob

def sh(c):
    subprocess.run(c, shell=True, check=True)

cfs = '/sys/kernel/config/nullb/cg'
os.makedirs(cfs)
for k, v in [('queue_mode', 2), ('irqmode', 2), ('completion_nsec', 200000),
             ('hw_queue_depth', 32), ('size', 16384), ('memory_backed', 0),
             ('power', 1)]:
    open(f'{cfs}/{k}', 'w').write(str(v))
time.sleep(0.5)
dev = '/dev/cg'
open('/sys/block/cg/queue/rotational', 'w').write('0')
os.makedirs('/dev/cgroup', exist_ok=True)
sh('mount -t cgroup -o cfq cfq /dev/cgroup')
for g, p in (('g7', 7), ('g0', 0)):
    os.makedirs(f'/dev/cgroup/{g}')
    open(f'/dev/cgroup/{g}/cfq.ioprio', 'w').write(str(p))

def runs_of(pid):
    best = None
    for line in open(f'/proc/{pid}/maps'):
        f = line.split()
        a, b = (int(x, 16) for x in f[0].split('-'))
        if f[1] != 'rw-p' or len(f) > 5 or not (1 << 20) <= b - a <= (8 << 20):
            continue
        pm = open(f'/proc/{pid}/pagemap', 'rb')
        pm.seek(a // 4096 * 8)
        data = pm.read((b - a) // 4096 * 8)
        pfns = []
        for i in range(0, len(data), 8):
            e = struct.unpack('<Q', data[i:i + 8])[0]
            pfns.append(e & ((1 << 55) - 1) if e >> 63 else None)
        present = [x for x in pfns if x is not None]
        if len(present) < 200:
            continue
        breaks = sum(1 for x, y in zip(pfns, pfns[1:])
                     if x is not None and y is not None and y != x + 1)
        desc = sum(1 for x, y in zip(pfns, pfns[1:])
                   if x is not None and y is not None and y == x - 1)
        best = (len(present), breaks, desc)
    return best

out = os.environ.get('RESULTS', '/tmp')
for rnd in range(int(os.environ.get('RUNS', '4'))):
    order = [('none', 1), ('none', 2), ('cfq', 2)]
    for sched, njobs in (order if rnd % 2 == 0 else order[::-1]):
        open('/sys/block/cg/queue/scheduler', 'w').write(sched)
        if sched != 'none':
            open('/sys/block/cg/queue/nr_requests', 'w').write('512')
        procs = []
        for gi, (g, lvl, off) in enumerate((('g7', 0, 0), ('g0', 7, 8192))[:njobs]):
            cmd = (f'echo $$ > /dev/cgroup/{g}/tasks; exec fio --name=r{gi} '
                   f'--filename={dev} --direct=1 --rw=read --bs=1M '
                   f'--ioengine=psync --prioclass=2 --prio={lvl} '
                   f'--offset={off}M --size=8192M --time_based --runtime=6 '
                   f'--output-format=json --eta=never')
            procs.append(subprocess.Popen(['sh', '-c', cmd],
                                          stdout=subprocess.PIPE))
        time.sleep(3)
        info = {}
        for p in glob.glob('/proc/[0-9]*/comm'):
            pid = p.split('/')[2]
            try:
                if open(p).read().strip() != 'fio':
                    continue
                cg = [l.split(':')[2] for l in open(f'/proc/{pid}/cgroup')
                      if ':cfq:' in l]
                r = runs_of(pid)
                if r:
                    info[pid] = (cg[0].strip() if cg else '?', r)
            except OSError:
                pass
        res = []
        for p in procs:
            j = json.loads(p.communicate()[0])
            job = j['jobs'][0]
            res.append((job['jobname'], round(job['read']['iops']),
                        round(job['read']['clat_ns']['percentile']['50.000000'] / 1000)))
        print(f'run {rnd} {sched} x{njobs}: {res} buffers {sorted(info.values(), key=str)}',
              flush=True)
