# SPDX-License-Identifier: GPL-2.0
# Driver tags in use per hardware queue on d8-mq, under none, mq-deadline
# and cfq: 75 random 4 KiB readers for 6 s, each queue's tags sampled
# 200 times from debugfs.  Run in the guest, from the repository:
#   python3 -c "from harness import vm; vm.run(BZ, 'python3 \
#     docs/results/issue17/seed-d8-mq-icount/hctx-probe.py', OUT, \
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
hctxs = sorted(glob.glob(f'/sys/kernel/debug/block/{name}/hctx*'))
print('device', dev, 'hctxs', hctxs, flush=True)


def busy():
    """Driver tags in use, per hardware queue."""
    out = []
    for h in hctxs:
        for line in open(f'{h}/tags').read().splitlines():
            if line.strip().startswith('busy='):
                out.append(int(line.split('=')[1]))
    return out


for sched in ('none', 'mq-deadline', 'cfq'):
    devices.write(f'/sys/block/{name}/queue/scheduler', sched)
    if sched != 'none':
        devices.write(f'/sys/block/{name}/queue/nr_requests', 512)
    fio = subprocess.Popen(['fio', '--name=r', f'--filename={dev}',
                            '--direct=1', '--bs=4k', '--rw=randread',
                            '--ioengine=psync', '--numjobs=75',
                            '--time_based', '--runtime=6',
                            '--group_reporting', '--output-format=terse',
                            '--terse-version=3'],
                           stdout=subprocess.PIPE, text=True)
    time.sleep(3)
    samples = []
    for _ in range(200):
        samples.append(busy())
        time.sleep(0.01)
    iops = fio.communicate()[0].split(';')[7]
    mean = [sum(s[i] for s in samples) / len(samples)
            for i in range(len(hctxs))]
    common = {}
    for s in samples:
        common[tuple(s)] = common.get(tuple(s), 0) + 1
    top = sorted(common.items(), key=lambda kv: -kv[1])[:6]
    print(f'{sched}: iops {iops} driver tags in use per queue, mean '
          f'{mean}, total {sum(mean):.1f}; most common {top}', flush=True)
