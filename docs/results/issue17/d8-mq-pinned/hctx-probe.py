# SPDX-License-Identifier: GPL-2.0
# Where the requests of d8-mq's two hardware queues come from, under none,
# mq-deadline and cfq, with the readers left where the kernel puts them
# and pinned one per vCPU: 75 random 4 KiB readers for 6 s.  Per run:
# I/Os a second, each queue's driver tags in use (sampled 200 times from
# debugfs), and the fio readers on each CPU (sampled 20 times: the CPU
# each last ran on, which picks the hardware queue of its next request).
# Run in the guest, from the repository:
#   python3 -c "from harness import vm; vm.run(BZ, 'python3 \
#     docs/results/issue17/d8-mq-pinned/hctx-probe.py', OUT, \
#     cpus=2, icount=True, skip_idle=True)"    (from tests/; the guest
#   runs it from the repository)
import glob
import os
import subprocess
import sys
import time
import tomllib

REPO = os.path.realpath(os.path.join(os.path.dirname(__file__), '../../../..'))
sys.path.insert(0, os.path.join(REPO, 'tests', 'guest'))
import devices  # noqa: E402

with open(os.path.join(REPO, 'tests/experiments/profiles.toml'), 'rb') as f:
    prof = tomllib.load(f)['d8-mq']
name = devices.make_device('probe', prof).disk
dev = '/dev/' + name
if not os.path.ismount('/sys/kernel/debug'):
    subprocess.run(['mount', '-t', 'debugfs', 'none', '/sys/kernel/debug'])
hctxs = sorted(glob.glob(f'/sys/kernel/debug/block/{name}/hctx[0-9]*'))
print('device', dev, 'hctxs', hctxs, flush=True)


def busy():
    """Driver tags in use, per hardware queue."""
    out = []
    for h in hctxs:
        for line in open(f'{h}/tags').read().splitlines():
            if line.strip().startswith('busy='):
                out.append(int(line.split('=')[1]))
    return out


def placement():
    """fio processes by the CPU each last ran on (the parent too)."""
    cpus = {0: 0, 1: 0}
    for st in glob.glob('/proc/[0-9]*/stat'):
        try:
            with open(st) as f:
                s = f.read()
        except OSError:
            continue
        if s[s.index('(') + 1:s.rindex(')')] != 'fio':
            continue
        cpu = int(s[s.rindex(')') + 2:].split()[36])
        cpus[cpu] = cpus.get(cpu, 0) + 1
    return dict(sorted(cpus.items()))


for sched in ('none', 'mq-deadline', 'cfq'):
    devices.write(f'/sys/block/{name}/queue/scheduler', sched)
    if sched != 'none':
        devices.write(f'/sys/block/{name}/queue/nr_requests', 512)
    for pin in (False, True):
        fio = subprocess.Popen(
            ['fio', '--name=r', f'--filename={dev}', '--direct=1',
             '--bs=4k', '--rw=randread', '--ioengine=psync',
             '--numjobs=75', '--time_based', '--runtime=6',
             '--group_reporting', '--output-format=terse',
             '--terse-version=3'] +
            (['--cpus_allowed=0-1', '--cpus_allowed_policy=split']
             if pin else []),
            stdout=subprocess.PIPE, text=True)
        time.sleep(3)
        samples, where = [], []
        for k in range(200):
            samples.append(busy())
            if k % 10 == 0:
                where.append(placement())
            time.sleep(0.01)
        iops = fio.communicate()[0].split(';')[7]
        on0 = sum(w[0] for w in where) / max(sum(sum(w.values())
                                                 for w in where), 1)
        mean = [round(sum(s[i] for s in samples) / len(samples), 1)
                for i in range(len(hctxs))]
        print(f'{sched} {"pinned" if pin else "unpinned"}: iops {iops}; '
              f'driver tags in use per queue {mean}, total '
              f'{sum(mean):.1f}; fio processes on CPU 0: {100 * on0:.0f} %, '
              f'by sample {[w[0] for w in where]}', flush=True)
