# SPDX-License-Identifier: GPL-2.0
"""The cfq controller on cgroup v2, as an operator drives it:
- the controller is bound to one hierarchy at a time: with the RFC's v1
  hierarchy in use `+cfq` fails (ENOENT) and cgroup.controllers does not
  list it; with cfq in use on v2, mounting the v1 hierarchy fails (EBUSY);
- cfq.weight, cfq.ioprio and cfq.stat on a v2 group: defaults, cfq.ioprio
  as the shorthand for the default weight 25 x (8 - p) and what each
  reads after the other was written, per-device lines;
- per-device weights: a group with `default 100` and `MAJ:MIN 800` for the
  second of two disks, beside a group at 100, gets half of the first disk
  and 800/900 of the second;
- cfq.stat agrees with fio's completed I/Os and bytes within 1 %;
- v1 has cfq.weight and cfq.stat too."""
import ctypes
import errno
import os
import time

import devices
from gtest import (Fio, check, common_window, nullb, save, shares,
                   write_errno)

CG2 = devices.CG2
V1 = devices.CFQ_V1
result = {}


def mount_v1(target):
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(b'cfq', target.encode(), b'cgroup', 0, b'cfq') == 0:
        return 0
    return ctypes.get_errno()


def stat_lines(path):
    """cfq.stat as {MAJ:MIN: {key: int}}."""
    out = {}
    for line in devices.read(path).splitlines():
        dev, *kvs = line.split()
        out[dev] = {k: int(v) for k, v in (kv.split('=') for kv in kvs)}
    return out


# 1. One hierarchy at a time.
devices.cfq_on_v1()
os.makedirs(f'{V1}/x', exist_ok=True)
check('cfq' not in devices.read(f'{CG2}/cgroup.controllers').split(),
      'with the v1 hierarchy in use, cgroup v2 does not offer cfq')
err = write_errno(f'{CG2}/cgroup.subtree_control', '+cfq')
check(err == errno.ENOENT, f'+cfq on v2 fails with ENOENT ({err})')
os.rmdir(f'{V1}/x')
devices.cfq_on_v2()
check('cfq' in devices.read(f'{CG2}/cgroup.subtree_control').split(),
      'v1 unmounted and empty: +cfq on v2')
os.makedirs(f'{CG2}/t', exist_ok=True)
os.makedirs('/tmp/cgv1', exist_ok=True)
err = mount_v1('/tmp/cgv1')
check(err == errno.EBUSY, f'with cfq in use on v2, mount -o cfq fails '
      f'with EBUSY ({err})')

# 2. The files of a v2 group and their rules.
t = f'{CG2}/t'
check(devices.read(f'{t}/cfq.weight') == 'default 100', 'default weight 100')
check(devices.read(f'{t}/cfq.ioprio') == '4', 'cfq.ioprio reads 4')
check(devices.read(f'{t}/cfq.stat') == '', 'no I/O, no cfq.stat line')
for write, want_w, want_p in (('ioprio 0', 200, 0), ('ioprio 7', 25, 7),
                              ('weight 150', 150, 2),
                              ('weight default 110', 110, 4),
                              ('weight 10000', 10000, 0),
                              ('weight 1', 1, 7), ('ioprio 4', 100, 4)):
    f, _, v = write.partition(' ')
    devices.write(f'{t}/cfq.{f}', v)
    w = devices.read(f'{t}/cfq.weight')
    p = devices.read(f'{t}/cfq.ioprio')
    check(w == f'default {want_w}' and p == str(want_p),
          f'after cfq.{f} {v}: weight {w!r}, ioprio {p}')

# 3. Per-device weights: two disks, G with an override for the second.
d1 = nullb('v2a')
d2 = nullb('v2b')
majmin = {d: devices.read(f'/sys/block/{d}/dev') for d in ('v2a', 'v2b')}
os.makedirs(f'{CG2}/g', exist_ok=True)
os.makedirs(f'{CG2}/h', exist_ok=True)
devices.write(f'{CG2}/g/cfq.weight', f'{majmin["v2b"]} 800')
devices.write(f'{CG2}/g/cfq.weight', '100')
check(devices.read(f'{CG2}/g/cfq.weight') ==
      f'default 100\n{majmin["v2b"]} 800', 'the override is listed')
devices.write(f'{t}/cfq.weight', f'{majmin["v2a"]} 300')
devices.write(f'{t}/cfq.weight', f'{majmin["v2a"]} default')
check(devices.read(f'{t}/cfq.weight') == 'default 100',
      '"MAJ:MIN default" drops an override')


def readers(disk, i):
    return [{'filename': f'/dev/{disk}', 'rw': 'randread', 'bs': '4k',
             'offset': f'{i}g', 'size': '1g'} for _ in range(4)]


RUN = 14
before = {g: stat_lines(f'{CG2}/{g}/cfq.stat') for g in 'gh'}
runs = {g: Fio(f'v2{g}', None, readers('v2a', i) + readers('v2b', i),
               RUN, cgroup2=f'{CG2}/{g}')
        for i, g in enumerate('gh')}
for f in runs.values():
    f.worker_pids()
for f in runs.values():
    f.wait()
after = {g: stat_lines(f'{CG2}/{g}/cfq.stat') for g in 'gh'}
# Over the span every job of both fio ran in, less a second at each end:
# fixed offsets from each fio's start let one group run alone for part
# of the window when the other was slow to start (54.2 % once).
win = common_window(runs.values(), lead=1, tail=1)
got = {}
for di, disk in enumerate(('v2a', 'v2b')):
    ios = [sum(runs[g].ios(*win, since=0)[4 * di:4 * di + 4]) for g in 'gh']
    got[disk] = shares(ios)
want = {'v2a': 50.0, 'v2b': 800 / 9}
result['device_weights'] = {'g_share': {d: got[d][0] for d in got},
                            'target': want}
for disk in ('v2a', 'v2b'):
    check(abs(got[disk][0] - want[disk]) <= 3,
          f'{disk}: g gets {got[disk][0]:.1f} % (target {want[disk]:.1f})')

# 4. cfq.stat against fio: every I/O and byte, per group and disk.
result['stat'] = {}
for g in 'gh':
    jobs = runs[g].report['jobs']
    for di, disk in enumerate(('v2a', 'v2b')):
        fio_ios = sum(j['read']['total_ios'] for j in jobs[4 * di:4 * di + 4])
        fio_bytes = sum(j['read']['io_bytes']
                        for j in jobs[4 * di:4 * di + 4])
        a = after[g].get(majmin[disk], {})
        b = before[g].get(majmin[disk], {})
        rios = a.get('rios', 0) - b.get('rios', 0)
        rbytes = a.get('rbytes', 0) - b.get('rbytes', 0)
        result['stat'][f'{g}/{disk}'] = {'fio_ios': fio_ios, 'rios': rios,
                                         'fio_bytes': fio_bytes,
                                         'rbytes': rbytes,
                                         'service_us': a.get('service_us')}
        check(fio_ios > 100 and abs(rios - fio_ios) <= 0.01 * fio_ios,
              f'{g} on {disk}: cfq.stat rios {rios}, fio {fio_ios}')
        check(abs(rbytes - fio_bytes) <= 0.01 * fio_bytes,
              f'{g} on {disk}: cfq.stat rbytes {rbytes}, fio {fio_bytes}')
        check(a.get('service_us', 0) > 0 and a.get('wait_us', 0) > 0,
              f'{g} on {disk}: service {a.get("service_us")} us, waited '
              f'{a.get("wait_us")} us for turns')
# The root's cfq.stat sums its descendants'.
root = stat_lines(f'{CG2}/cfq.stat')
for disk in ('v2a', 'v2b'):
    sub = sum(after[g][majmin[disk]]['rios'] for g in 'gh')
    check(root[majmin[disk]]['rios'] >= sub,
          f'root cfq.stat counts its groups on {disk}')

# 5. The v1 hierarchy has cfq.weight and cfq.stat too.
for g in ('g', 'h', 't'):
    os.rmdir(f'{CG2}/{g}')
devices.cfq_on_v1()
os.makedirs(f'{V1}/w', exist_ok=True)
devices.write(f'{V1}/w/cfq.weight', f'{majmin["v2a"]} 700')
check(devices.read(f'{V1}/w/cfq.weight') ==
      f'default 100\n{majmin["v2a"]} 700', 'v1: cfq.weight')
devices.write(f'{V1}/w/cfq.ioprio', '0')
check(devices.read(f'{V1}/w/cfq.weight').startswith('default 200'),
      'v1: cfq.ioprio 0 is the default weight 200')
check(devices.read(f'{V1}/w/cfq.stat') == '', 'v1: cfq.stat')
os.rmdir(f'{V1}/w')
save(result)
for d in (d1, d2):
    d.set_scheduler('none')
    devices.remove_null_blk(d.disk)
time.sleep(0.1)
