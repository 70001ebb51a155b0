# SPDX-License-Identifier: GPL-2.0
"""Tags without tuning: three groups (cfq.ioprio 0/4/7) of random readers
at the kernel's default nr_requests.
- Depth 32 (64 scheduler tags) at 20 ms a request, 100 readers per group:
  the device, at most 1600 I/Os a second, is what limits them on an idle
  host, not the guest's CPU (at 0.2 ms a request the shares followed how
  much CPU the host left the guest's 300 readers).  With group_depth on
  (the default) the groups' tag gates keep the shares within 3 points of
  61.5/30.8/7.7, every task completes I/O, and tasks did wait at a gate;
  before turns in I/O-count mode were cut to the gates, the groups got
  79/17/4.  With group_depth 0 the tag allocator decides who may queue
  and the worst error is 6 points or more: the gate is what holds the
  shares.
- Depth 1: cfq asks blk-mq for 64 scheduler tags (patch 0005), not 2, and
  25 readers per group get their shares within 3 points."""
import subprocess

from gtest import check, mkgroup, mount_cfq, nullb, readers_together, \
    save, shares

RUN = 10
TARGET = [61.5, 30.8, 7.7]
mount_cfq()
groups = {'t0': 0, 't4': 4, 't7': 7}
for g, prio in groups.items():
    mkgroup(g, prio)


def device(name, **prof):
    """A cfq disk at blk-mq's default nr_requests (none is written)."""
    dev = nullb(name, nr_requests=None, **prof)
    with open(f'/sys/block/{dev.disk}/queue/nr_requests') as f:
        return dev.disk, int(f.read())


def gate_waits(disk):
    with open(f'/sys/kernel/debug/block/{disk}/sched/state') as f:
        for line in f:
            if line.startswith('gate_waits '):
                return int(line.split()[1])
    raise AssertionError('debugfs state lacks gate_waits')


def run(disk, nprocs):
    """Shares over the window every group runs in, its length, and the
    processes that completed no I/O in it."""
    counts, win, idle = readers_together(disk, groups, nprocs, RUN + 1)
    rate = sum(counts) / win if win > 0 else 0.0
    print(f'{disk}: {rate:.0f} I/Os a second over {win:.1f} s together')
    return shares(counts), win, idle, rate


def run_together(disk, nprocs):
    """run(), measured once more if the groups did not run together for
    RUN / 2 s: forking 300 fio processes while the first ones read can
    take longer than fio's allowance of 10 s per 25 processes (with 3 s
    per 25, a CI run's groups never overlapped, and by hand the windows
    came out at -0.9 to -6.9 s).  The first run's shares are then dropped
    unread: the second run alone is judged."""
    res = run(disk, nprocs)
    if res[1] < RUN / 2:
        print(f'{disk}: groups together for {res[1]:.1f} s only, '
              'measured again')
        res = run(disk, nprocs)
    return res


def show(label, sh, win):
    err = max(abs(x - t) for x, t in zip(sh, TARGET))
    print(f'{label}: ' + '/'.join(f'{x:.1f}' for x in sh)
          + f' over {win:.1f} s, worst error {err:.1f} pts')
    return err


# 1. Depth 32 at 20 ms, 64 tags, 300 readers.
NSEC32 = 20000000
disk, nr = device('tag32', completion_nsec=NSEC32, hw_queue_depth=32,
                  rotational=0)
check(nr == 64, f'default nr_requests of a depth-32 device: {nr}')
before = gate_waits(disk)
on, win_on, idle_on, rate_on = run_together(disk, 100)
waited = gate_waits(disk) - before
iosched = f'/sys/block/{disk}/queue/iosched'
subprocess.run(['sh', '-c', f'echo 0 > {iosched}/group_depth'], check=True)
off, win_off, _, _ = run_together(disk, 100)
subprocess.run(['sh', '-c', f'echo 1 > {iosched}/group_depth'], check=True)
# The rate is shown, not judged: 97 % of the device's 32 / 20 ms on an
# idle host, 45 % on a host busy with two more guests (the shares then
# 1.1 points off).
print(f'depth 32: {rate_on:.0f} I/Os a second, '
      f'{rate_on * NSEC32 / 32e7:.0f} % of the device\'s')
err_on = show('depth 32, group_depth 1', on, win_on)
err_off = show('depth 32, group_depth 0', off, win_off)

# 2. Depth 1 (the emulated disk's profile), 75 readers.
disk1, nr1 = device('tag1')
d1, win_d1, idle_d1, _ = run_together(disk1, 25)
err_d1 = show('depth 1', d1, win_d1)
save({'d32': {'nr_requests': nr, 'shares_gate': on, 'shares_no_gate': off,
              'gate_waits': waited, 'window_s': win_on,
              'rate': rate_on},
      'd1': {'nr_requests': nr1, 'shares': d1, 'window_s': win_d1}})

check(min(win_on, win_off, win_d1) >= RUN / 2,
      f'all groups ran together for {win_on:.1f}, {win_off:.1f} and '
      f'{win_d1:.1f} s')
check(idle_on == 0 and idle_d1 == 0,
      'every task completed I/O while all ran')
check(waited > 0, f'tasks waited at their group\'s gate ({waited})')
check(err_on <= 3, f'depth 32: worst error {err_on:.1f} pts (at most 3)')
check(err_off >= 6, f'depth 32 without the gate: worst error '
      f'{err_off:.1f} pts (6 or more): the gate holds the shares')
check(nr1 == 64, f'cfq asks for 64 tags on a depth-1 device: {nr1}')
check(err_d1 <= 3, f'depth 1: worst error {err_d1:.1f} pts (at most 3)')
