# SPDX-License-Identifier: GPL-2.0
"""Every cfq tunable: valid writes read back; malformed or out-of-range
writes fail with EINVAL and change nothing.  (Python, not shell: one
process for some 300 writes keeps it fast on the debug kernel.)"""
import errno
import os

import devices
from gtest import check, write_errno

# name: (default, min, max)
TABLE = {
    'quantum': (8, 1, 256),
    'fifo_expire_sync': (125, 1, 60000),
    'fifo_expire_async': (250, 1, 60000),
    'back_seek_max': (16384, 0, 1048576),
    'back_seek_penalty': (2, 1, 1000),
    'slice_sync': (100, 1, 10000),
    'slice_async': (40, 1, 10000),
    'slice_async_rq': (2, 1, 1024),
    'slice_idle': (8, 0, 1000),
    'group_idle': (8, 0, 1000),
    'low_latency': (1, 0, 1),
    'target_latency': (300, 1, 10000),
    'group_slice': (100, 1, 10000),
    'service_mode': (0, 0, 2),
    'group_depth': (1, 0, 1),
    'equal_noidle': (1, 0, 1),
    'fill_slots': (1, 0, 1),
    'writeback_flush': (1, 0, 2),
}
# (A zero-byte write never reaches the scheduler: sysfs ignores it.)
MALFORMED = ['-1', 'abc', '\n', '4x', ' 4', '0x10', '99999999999', '9' * 300]

dev = devices.make_null_blk('tuntest', {'irqmode': 0, 'completion_nsec': 0,
                                        'hw_queue_depth': 64,
                                        'rotational': 0}, size_mb=64)
dev.set_scheduler('cfq')
d = dev.queue('iosched')
check(sorted(os.listdir(d)) == sorted(TABLE),
      f'the tunables are exactly {len(TABLE)}: {sorted(os.listdir(d))}')


for name, (default, lo, hi) in TABLE.items():
    f = f'{d}/{name}'
    check(devices.read(f) == str(default), f'{name} defaults to {default}')
    for v in (lo, hi, default):
        err = write_errno(f, f'{v}\n')
        got = devices.read(f)
        if err or got != str(v):
            raise AssertionError(f'{name}: writing {v}: errno {err}, '
                                 f'reads {got}')
    bad = [str(hi + 1)] + ([str(lo - 1)] if lo > 0 else []) + MALFORMED
    for b in bad:
        err = write_errno(f, b)
        got = devices.read(f)
        if err != errno.EINVAL or got != str(default):
            raise AssertionError(f'{name}: writing {b[:12]!r}: errno {err} '
                                 f'(want EINVAL), value {got}')
    print(f'ok: {name}: {lo}, {hi}, {default} read back; {len(bad)} bad '
          f'writes rejected with EINVAL, value kept', flush=True)
dev.set_scheduler('none')
devices.remove_null_blk('tuntest')
