# SPDX-License-Identifier: GPL-2.0
"""A removed group is let go however its last request leaves the driver.

A SCSI command that fails with a retryable error is retried by the SCSI
midlayer with its request already prepared (RQF_DONTPREP): blk-mq sends
it straight back to the driver, past the scheduler, and cfq never sees
it complete.  scsi_debug fails every second command so (opts=16,
transport error; every_nth=2) and takes 200 ms per command.  Twenty
times: a group's reader is moved out, the group removed and the reader
killed at once, while its last request is in the driver; half of those
requests come back past cfq.  Once the readers stop, cfq must hold
no request and no state for any of the twenty groups."""
import errno
import os
import subprocess
import time

import devices
from gtest import CFQ_CG, check, mkgroup, mount_cfq, move, save, \
    sched_groups
from stress import groups_freed, sched_file, wait_drained, write_sched

SDEBUG = '/sys/bus/pseudo/drivers/scsi_debug'
N = 20


def event(disk, name):
    for line in sched_file(disk, 'events').splitlines():
        k, v = line.split()
        if k == name:
            return int(v)
    raise AssertionError(f'no {name} in events')


mount_cfq()
before = set(os.listdir('/sys/block'))
devices.write(f'{SDEBUG}/add_host', 1)
end = time.monotonic() + 10
while not set(os.listdir('/sys/block')) - before:
    check(time.monotonic() < end, 'scsi_debug add_host made a disk')
    time.sleep(0.05)
disk = sorted(set(os.listdir('/sys/block')) - before)[0]
devices.wait_for(f'/dev/{disk}')
# /sys/block/X appears before add_disk registers its queue directory.
devices.wait_for(f'/sys/block/{disk}/queue/scheduler')
write_sched(disk, 'cfq')
# The delay can only change with no command in flight: the new disk's
# scan and partition read may still be running.
end = time.monotonic() + 30
while True:
    try:
        devices.write(f'{SDEBUG}/ndelay', 200 * 1000 * 1000)
        break
    except OSError as e:
        check(e.errno == errno.EBUSY and time.monotonic() < end,
              f'scsi_debug takes a delay ({e})')
        time.sleep(0.1)
devices.write(f'{SDEBUG}/every_nth', 2)
devices.write(f'{SDEBUG}/opts', 16)

readers = []
try:
    for i in range(N):
        g = f'rp{i}'
        mkgroup(g)
        p = subprocess.Popen(
            ['sh', '-c', f'echo $$ > {CFQ_CG}/{g}/tasks && exec dd '
             f'if=/dev/{disk} of=/dev/null bs=4k iflag=direct '
             f'skip={i * 64} count=100000'],
            stderr=subprocess.DEVNULL)
        readers.append(p)
        end = time.monotonic() + 20
        while sched_groups(disk).get(g, {}).get('dispatched', 0) < 2:
            check(time.monotonic() < end, f'{g}: its reader was served')
            time.sleep(0.02)
        move(p.pid, '')
        os.rmdir(f'{CFQ_CG}/{g}')
        p.kill()	# its last request stays in the driver
        p.wait()
    past = event(disk, 'requeue_past')
finally:
    for p in readers:
        if p.poll() is None:
            p.kill()
            p.wait()
    devices.write(f'{SDEBUG}/opts', 0)
    devices.write(f'{SDEBUG}/every_nth', 0)

check(past >= N // 4, f'{past} requests requeued past cfq')
wait_drained(disk, timeout=30)
left = groups_freed(disk, timeout=10)
save({'groups': N, 'requeue_past': past, 'left': left})
write_sched(disk, 'none')
devices.write(f'/sys/block/{disk}/device/delete', 1)
devices.write(f'{SDEBUG}/add_host', -1)
devices.write(f'{SDEBUG}/delay', 1)	# the default; clears ndelay
