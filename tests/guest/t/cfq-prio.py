# SPDX-License-Identifier: GPL-2.0
"""Per-task CFQ on the emulated disk (null_blk 1 ms/IO, depth 1,
rotational; as cfq-prio@hdd-q1 the emulated 7200 rpm disk), as ionice
users see it:
- three backlogged sequential readers at BE 0/4/7 share the disk in the
  slice ratio 180:100:40 (56.3/31.3/12.5 %) within 3 points;
- an RT reader takes at least 90 % from a BE reader;
- an IDLE reader gets nothing while a BE reader is busy, and the disk
  once the BE reader stops (0.8 of the BE reader's rate; a half on the
  7200 rpm disk, see below);
- ionice on a running reader shifts its share within two seconds."""
import os
import subprocess
import time

from gtest import Fio, check, nullb, save, shares

dev = nullb('priotest')
disk = dev.targets[0]
GB = 1 << 30
result = {}


def seq(i, **kw):
    job = {'rw': 'read', 'bs': '4k', 'offset': i * GB, 'size': GB}
    job.update(kw)
    return job


# 1. BE 0/4/7
f = Fio('be', disk, [seq(i, prioclass=2, prio=p)
                     for i, p in enumerate((0, 4, 7))], 12).wait()
sh = shares(f.ios(2, 11.5))
slices = [180, 100, 40]
# On the 7200 rpm disk too: it keeps 16 read segments and reads ahead
# while idle (tests/tools/hdd/hdd.c), so a slice of one of three streams
# does not start with a positioning.  A CI run's two tries (make
# check, 2026-12-04) read 53768 and 53282 times, all but 108 from the
# cache, the disk busy 0.47 s of the 12; the guest's pace sets the rate
# and the shares went as the slices: 56.1/30.2/13.7 and 54.5/32.5/12.9.
# A target less one positioning per slice (59.1/31.0/9.9) failed them.
target = [100 * s / sum(slices) for s in slices]
err = max(abs(a - b) for a, b in zip(sh, target))
result['be_0_4_7'] = {'shares': sh, 'target': target, 'error': err}
print(f'BE 0/4/7 shares {sh[0]:.1f}/{sh[1]:.1f}/{sh[2]:.1f}')
want = '/'.join(f'{t:.1f}' for t in target)
check(err <= 3, f'BE 0/4/7 within 3 points of {want} (error {err:.1f})')

# 2. RT vs BE
f = Fio('rt', disk, [seq(0, prioclass=1, prio=4),
                     seq(1, prioclass=2, prio=4)], 6).wait()
sh = shares(f.ios(1, 5.5))
result['rt_vs_be'] = sh
check(sh[0] >= 90, f'RT takes {sh[0]:.1f} % from BE (>= 90)')

# 3. IDLE vs BE: BE runs 5 s, IDLE 10 s.
f = Fio('idle', disk, [seq(0, prioclass=3, runtime=10),
                       seq(1, prioclass=2, prio=4, runtime=5)], 10).wait()
busy = f.ios(0.5, 4.5)
after = f.ios(6, 9.5)
result['idle_vs_be'] = {'while_be': busy, 'after_be': after}
check(busy[1] >= 100 and busy[0] <= 0.01 * sum(busy),
      f'IDLE got {busy[0]} of {sum(busy)} I/Os while BE was busy')
rate_be = busy[1] / 4.0
rate_idle = after[0] / 3.5
# Alone, the IDLE reader gets the disk: at least 0.8 of the BE reader's
# rate on null_blk.  On the emulated disk these reads are hits in its
# read cache, a few microseconds of model time each, so the rate is how
# soon the guest wakes for them, and that follows the host's clock while
# the guest waits: a CI run read 2101 IOPS alone after 3335 for BE, its
# rerun 5004 after 4965.  There a half.  An IDLE queue held back by the
# idle-class delay would read a few I/Os a second.
least = 0.5 if os.environ.get('CFQ_DISK') else 0.8
check(rate_idle > 0 and rate_idle >= least * rate_be,
      f'IDLE alone: {rate_idle:.0f} IOPS vs BE {rate_be:.0f} IOPS before '
      f'(at least {least:.0%})')

# 4. ionice on a running reader: both BE4, then reader 0 goes to BE0.
f = Fio('live', disk, [seq(0, prioclass=2, prio=4),
                       seq(1, prioclass=2, prio=4)], 12)
pids = f.worker_pids()
time.sleep(max(0.0, f.started + 4 - time.time()))
subprocess.run(['ionice', '-c2', '-n0', '-p', str(pids[0])], check=True)
changed = time.time() - f.started
f.wait()
before = shares(f.ios(1, changed))
after = shares(f.ios(changed + 2, 11.5))
result['ionice_live'] = {'before': before, 'after': after,
                         'changed_at': changed}
check(abs(before[0] - 50) <= 8, f'equal before ionice: {before[0]:.1f} %')
check(after[0] >= 60, f'after ionice -n0: {after[0]:.1f} % (target 64.3)')
save(result)
dev.set_scheduler('none')
