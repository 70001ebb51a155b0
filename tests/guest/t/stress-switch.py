# SPDX-License-Identifier: GPL-2.0
"""Stress 1: switch the elevator cfq -> none -> mq-deadline -> bfq -> cfq
every 200 ms for STRESS_SECS while three populated groups (cfq.ioprio
0/4/7) do mixed I/O: a verifying writer and two random readers each.
Every switch must take effect, every write must verify, every group must
keep going, and cfq.ioprio must survive."""
import time

from gtest import Fio, check, mkgroup, mount_cfq, nullb, save
from stress import SECS, finish, reader, verified, verify_writer, \
    write_sched

mount_cfq()
dev = nullb('stsw', memory_backed=1, size_mb=512, hw_queue_depth=4,
            completion_nsec=200000)
disk = dev.disk
groups = {'g0': 0, 'g4': 4, 'g7': 7}
runs = []
for i, (g, prio) in enumerate(groups.items()):
    mkgroup(g, prio)
    base = 160 * i
    runs.append(Fio(g, f'/dev/{disk}',
                    [verify_writer(base, 0.5), reader(base + 16),
                     reader(base + 80)], SECS, group=g))

order = ['none', 'mq-deadline', 'bfq', 'cfq']
switches = 0
slow = 0.0
end = time.monotonic() + SECS
while time.monotonic() < end:
    want = order[switches % len(order)]
    t = time.monotonic()
    write_sched(disk, want)
    took = time.monotonic() - t
    slow = max(slow, took)
    with open(f'/sys/block/{disk}/queue/scheduler') as f:
        got = f.read()
    if f'[{want}]' not in got:
        raise AssertionError(f'switch {switches} to {want}: {got}')
    switches += 1
    time.sleep(max(0.0, 0.2 - took))
write_sched(disk, 'cfq')

result = {'secs': SECS, 'switches': switches, 'slowest_switch_s': slow,
          'groups': {}}
for g, run in zip(groups, runs):
    run.wait()
    w, r = verified(run, g)
    reads = sum(j['read']['total_ios'] for j in run.report['jobs']) - r
    result['groups'][g] = {'writes': w, 'verified': r, 'reads': reads}
    check(reads > 0, f'{g}: {reads} reads')
prios = {g: int(open(f'/dev/cgroup/{g}/cfq.ioprio').read()) for g in groups}
check(prios == groups, f'cfq.ioprio kept across switches: {prios}')
check(switches >= SECS * 2, f'{switches} switches in {SECS} s '
      f'(slowest {slow * 1000:.0f} ms)')
result['verified_total'] = sum(v['verified']
                               for v in result['groups'].values())
save(result)
finish(disk, groups)
