# SPDX-License-Identifier: GPL-2.0
"""The probe behind this directory's x*.log: cfq-tags' depth-32 case
(three groups of cfq.ioprio 0/4/7, X_PROCS random readers each, the
default 64 scheduler tags) on a null_blk of depth 32 at X_NSEC ns a
request, once per X_VARIANTS entry (comma-separated; each sets
iosched tunables or nr_requests with `name=value+name=value`, put back
after its run).  Run it as a guest test: copy it to tests/guest/t/."""
import os
import subprocess

from gtest import mkgroup, mount_cfq, nullb, readers_together, shares

RUN = 10
NPROCS = int(os.environ.get('X_PROCS', 100))
NSEC = int(os.environ.get('X_NSEC', 20000000))
mount_cfq()
groups = {'t0': 0, 't4': 4, 't7': 7}
for g, prio in groups.items():
    mkgroup(g, prio)
dev = nullb('tagx', nr_requests=None, completion_nsec=NSEC,
            hw_queue_depth=32, rotational=0)
disk = dev.disk
io = f'/sys/block/{disk}/queue/iosched'


def state():
    with open(f'/sys/kernel/debug/block/{disk}/sched/state') as f:
        return dict(line.split(None, 1) for line in f if ' ' in line)


def run(label):
    before = int(state()['gate_waits'])
    counts, win, _ = readers_together(disk, groups, NPROCS, RUN + 1)
    sh = shares(counts)
    print(f'{label}: ' + '/'.join(f'{x:.1f}' for x in sh)
          + f' over {win:.1f} s, {sum(counts) / max(win, 0.1):.0f}/s, '
          f'gate waits {int(state()["gate_waits"]) - before}', flush=True)


for v in os.environ.get('X_VARIANTS', 'default').split(','):
    sets = [kv.split('=') for kv in v.split('+') if '=' in kv]
    old = {}
    for k, val in sets:
        path = (f'/sys/block/{disk}/queue/{k}' if k == 'nr_requests'
                else f'{io}/{k}')
        with open(path) as f:
            old[path] = f.read().strip()
        subprocess.run(['sh', '-c', f'echo {val} > {path}'], check=True)
    run(v)
    for path, val in old.items():
        subprocess.run(['sh', '-c', f'echo {val} > {path}'], check=True)
