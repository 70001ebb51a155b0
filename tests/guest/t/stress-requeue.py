# SPDX-License-Identifier: GPL-2.0
"""Stress 6: the requeue and timeout paths, STRESS_SECS / 2 each, with
null_blk's fault injection (configfs requeue_inject, timeout_inject; the
debug kernel has CONFIG_BLK_DEV_NULL_BLK_FAULT_INJECTION).
- requeue: 1 in 10 requests is sent back by the driver (alternately
  through blk_mq_requeue_request() and BLK_STS_RESOURCE); three groups'
  verifying writers must see every write intact;
- timeout: 1 in 50 requests is never completed by the driver, so the
  block layer's timeout (io_timeout 500 ms) ends it with an error; the
  errors reach fio and the rest is served.
Afterwards cfq holds no request and the removed groups' state is gone."""
import os

import devices
from gtest import Fio, check, mkgroup, mount_cfq, nullb, save
from stress import SECS, finish, reader, verified, verify_writer, \
    wait_drained

INJECT = 1000000
mount_cfq()
dev = nullb('strq', memory_backed=1, size_mb=512, hw_queue_depth=2,
            completion_nsec=300000)
disk = dev.disk
cfs = f'{devices.NULLB_CFS}/{disk}'
for d in ('requeue_inject', 'timeout_inject'):
    check(os.path.isdir(f'{cfs}/{d}'),
          f'{d} present (null_blk fault injection built in)')
groups = {'g0': 0, 'g4': 4, 'g7': 7}
for g, prio in groups.items():
    mkgroup(g, prio)
half = max(SECS // 2, 8)
result = {'secs': 2 * half}


def inject(kind, probability):
    # Quietly: verbose fault injection prints a stack per injected fault.
    devices.write(f'{cfs}/{kind}_inject/verbose', 0)
    devices.write(f'{cfs}/{kind}_inject/interval', 1)
    devices.write(f'{cfs}/{kind}_inject/times', INJECT if probability
                  else 0)
    devices.write(f'{cfs}/{kind}_inject/probability', probability)


def injected(kind):
    return INJECT - int(devices.read(f'{cfs}/{kind}_inject/times'))


# Requeues: nothing may be lost or written twice out of order.
inject('requeue', 10)
# 256 KiB verify loops: in a quick run's 5 s the prio-7 writer managed
# 212 writes, short of one 1 MiB pass, and so verified nothing.
runs = [Fio(f'rq-{g}', f'/dev/{disk}',
            [verify_writer(160 * i, 0.25), reader(160 * i + 16)], half,
            group=g)
        for i, g in enumerate(groups)]
total = 0
for g, run in zip(groups, runs):
    run.wait()
    total += verified(run, f'requeue: {g}')[1]
n = injected('requeue')
inject('requeue', 0)
result['requeue'] = {'injected': n, 'verified': total}
check(n > 0, f'requeue: {n} requests requeued by the driver')
wait_drained(disk)

# Timeouts: the block layer ends the request, fio gets the error.
devices.write(f'/sys/block/{disk}/queue/io_timeout', 500)
inject('timeout', 2)
runs = [Fio(f'to-{g}', f'/dev/{disk}',
            [reader(160 * i, 64, continue_on_error='all')] * 2, half,
            group=g)
        for i, g in enumerate(groups)]
errs = ios = 0
for g, run in zip(groups, runs):
    run.wait(ok=False)
    e = sum(j.get('total_err', 0) for j in run.report['jobs'])
    n = sum(j['read']['total_ios'] for j in run.report['jobs'])
    check(n > e, f'timeout: {g}: {n} reads, {e} failed')
    errs += e
    ios += n
n = injected('timeout')
inject('timeout', 0)
result['timeout'] = {'injected': n, 'errors_seen_by_fio': errs, 'reads': ios}
check(n > 0 and errs > 0,
      f'timeout: {n} requests timed out, {errs} errors reached fio')
save(result)
finish(disk, groups)
