# SPDX-License-Identifier: GPL-2.0
"""Stress 5: I/O errors for STRESS_SECS.  8 KiB in every 128 KiB of a
32 MiB region of a null_blk disk are bad (configfs badblocks, 256 ranges:
the table holds 512), so about 1 in 16 random 4 KiB reads of group 'bad'
fails at the driver.  The
errors must reach fio, and the other groups (cfq.ioprio 0 and 7, with
verifying writers) must keep being served, second after second, with
every write verified and none of their I/Os failing."""
import devices
from gtest import Fio, check, mkgroup, mount_cfq, nullb, save, shares
from stress import SECS, finish, per_second, reader, verified, \
    verify_writer

BAD_MB, BAD_LEN_MB = 128, 32
mount_cfq()
dev = nullb('sterr', memory_backed=1, size_mb=256, hw_queue_depth=2,
            completion_nsec=300000)
disk = dev.disk
bb = f'{devices.NULLB_CFS}/{disk}/badblocks'
first = BAD_MB * 2048
for chunk in range(BAD_LEN_MB * 8):	# 128 KiB chunks, 256 sectors each
    s = first + chunk * 256 + 128
    devices.write(bb, f'+{s}-{s + 15}')
nbad = len(devices.read(bb).splitlines())
check(nbad == BAD_LEN_MB * 8, f'{nbad} bad ranges set')

groups = {'good0': 0, 'bad': 4, 'good7': 7}
for g, prio in groups.items():
    mkgroup(g, prio)
bad = Fio('bad', f'/dev/{disk}',
          [reader(BAD_MB, BAD_LEN_MB, continue_on_error='all')] * 2,
          SECS, group='bad')
good = {'good0': Fio('good0', f'/dev/{disk}',
                     [verify_writer(0, 0.5), reader(16)], SECS,
                     group='good0'),
        'good7': Fio('good7', f'/dev/{disk}',
                     [verify_writer(96, 0.5), reader(32)], SECS,
                     group='good7')}
bad.wait(ok=False)
result = {'secs': SECS, 'groups': {}}
errs = sum(j.get('total_err', 0) for j in bad.report['jobs'])
reads = sum(j['read']['total_ios'] for j in bad.report['jobs'])
result['groups']['bad'] = {'reads': reads, 'errors': errs}
frac = errs / max(reads, 1)
check(errs > 0 and 0.02 < frac < 0.15,
      f'bad: {errs} of {reads} reads failed ({100 * frac:.1f} %, '
      f'expected about 6 %) and fio saw them')
for g, run in good.items():
    run.wait()
    w, r = verified(run, g)
    reads = run.report['jobs'][1]['read']['total_ios']
    check(all(j['error'] == 0 for j in run.report['jobs']),
          f'{g}: none of its I/Os failed')
    # Served in every second all its jobs were running.
    per_s = per_second(run)
    check(len(per_s) >= SECS // 2, f'{g}: ran {len(per_s)} s')
    result['groups'][g] = {'writes': w, 'verified': r, 'reads': reads,
                           'min_ios_per_s': min(per_s)}
    check(min(per_s) > 0, f'{g}: {reads} reads; served every second '
          f'(min {min(per_s)} I/Os)')
s = shares([result['groups'][g]['reads'] + result['groups'][g]['writes']
            for g in ('good0', 'good7')])
result['good_shares'] = s
save(result)
finish(disk, groups)
