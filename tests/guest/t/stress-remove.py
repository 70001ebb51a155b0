# SPDX-License-Identifier: GPL-2.0
"""Stress 4: devices removed under load, for STRESS_SECS.  Cycle after
cycle, three groups (cfq.ioprio 0/4/7) read and write a cfq-scheduled
disk that is then removed under them: a null_blk disk made through
configfs is powered off and deleted, and a scsi_debug disk is deleted
through sysfs (its host removed after).  Every fio must see the disk go
(an error), none may hang, and the kernel must stay quiet."""
import glob
import os
import subprocess
import time

import devices
from gtest import Fio, check, children, mkgroup, mount_cfq, save, \
    sched_groups, task_stack
from stress import SECS, remove_groups

SDEBUG = '/sys/bus/pseudo/drivers/scsi_debug'
mount_cfq()
groups = {'g0': 0, 'g4': 4, 'g7': 7}
for g, prio in groups.items():
    mkgroup(g, prio)


def load(name, path):
    """Readers and writers from each group, until the disk goes."""
    runs = []
    for i, g in enumerate(groups):
        jobs = [{'rw': rw, 'bs': '4k', 'offset': f'{2 * i}m',
                 'size': '2m'} for rw in ('randread', 'randwrite')]
        runs.append(Fio(f'{name}-{g}', path, jobs, 600, group=g))
    return runs


def busy(disk):
    """Wait until every group has had requests dispatched on the disk."""
    end = time.monotonic() + 60
    while True:
        got = sched_groups(disk)
        if all(got.get(g, {}).get('dispatched', 0) > 0 for g in groups):
            return
        if time.monotonic() > end:
            raise AssertionError(f'{disk}: groups not all served: {got}')
        time.sleep(0.1)


def stacks(pid):
    """What a process and its children are doing (for a hang report)."""
    out = []
    for p in [pid] + children(pid):
        try:
            state, frames = task_stack(p)
            out.append(f'{p} {state}:\n' + '\n'.join(frames))
        except OSError as e:
            out.append(f'{p}: {e}')
    return '\n'.join(out)


def remove_under(disk, runs, remove, what):
    """Let the load run, remove the disk, and see every fio end."""
    busy(disk)
    time.sleep(0.5)
    remove()
    t = time.monotonic()
    ios = 0
    for run in runs:
        try:
            run.wait(ok=False, timeout=60)
        except subprocess.TimeoutExpired:
            raise AssertionError(f'{what}: fio still running 60 s later:\n'
                                 f'{stacks(run.proc.pid)}')
        check(run.proc.returncode != 0, f'{what}: fio saw the disk go')
        ios += sum(len(log) for log in run.logs)
    check(ios > 0, f'{what}: {ios} I/Os done before the removal')
    return ios, time.monotonic() - t


def null_blk_cycle(i):
    name = f'strm{i}'
    dev = devices.make_null_blk(
        name, {'irqmode': 2, 'completion_nsec': 250000, 'hw_queue_depth': 2,
               'rotational': 1}, size_mb=64)
    dev.set_scheduler('cfq')
    runs = load(name, f'/dev/{name}')
    return remove_under(name, runs, lambda: devices.remove_null_blk(name),
                        f'null_blk {name} powered off and deleted')


def scsi_debug_cycle(i):
    before = set(os.listdir('/sys/block'))
    devices.write(f'{SDEBUG}/add_host', 1)
    end = time.monotonic() + 10
    while not set(os.listdir('/sys/block')) - before:
        if time.monotonic() > end:
            raise AssertionError('scsi_debug add_host made no disk')
        time.sleep(0.05)
    disk = sorted(set(os.listdir('/sys/block')) - before)[0]
    devices.wait_for(f'/dev/{disk}')
    # /sys/block/X appears before add_disk registers its queue directory.
    devices.wait_for(f'/sys/block/{disk}/queue/scheduler')
    devices.Device(disk, [f'/dev/{disk}'], 128, 1).set_scheduler('cfq')
    runs = load(f'sd{i}', f'/dev/{disk}')
    delete = f'/sys/block/{disk}/device/delete'
    out = remove_under(disk, runs, lambda: devices.write(delete, 1),
                       f'scsi_debug {disk} deleted')
    devices.write(f'{SDEBUG}/add_host', -1)
    return out


result = {'secs': SECS, 'cycles': []}
end = time.monotonic() + SECS
i = 0
while time.monotonic() < end or i < 2:
    kind = 'null_blk' if i % 2 == 0 else 'scsi_debug'
    ios, took = (null_blk_cycle if kind == 'null_blk' else
                 scsi_debug_cycle)(i)
    result['cycles'].append({'device': kind, 'ios_before': ios,
                             'exit_s': round(took, 2)})
    i += 1
left = [p for p in glob.glob('/sys/block/strm*')]
check(not left, f'removed disks are gone: {left}')
check(len(result['cycles']) >= 2, f'{len(result["cycles"])} removals')
save(result)
remove_groups(groups)
