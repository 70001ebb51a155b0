# SPDX-License-Identifier: GPL-2.0
"""Boot the lean test kernel: the guest tests (one boot for all), the
run-failure rules, and a quick fairness run through the whole harness."""
import json
import os

import pytest

from harness import attribution, bench, dynamic, report, splat, vm

pytestmark = pytest.mark.vm

# Guest tests (tests/guest/t/NAME.sh or NAME.py) run in one boot, in this
# order, timed by the host's clock.
GUEST_TESTS = ['env', 'kunit', 'fio-json', 'cfq-tunables', 'cfq-debugfs',
               'cfq-hwqueues', 'cfq-switch',
               'cfq-cgroup-files', 'cfq-groups', 'cfq-move-idle', 'cfq-reap',
               'cfq-v2', 'cfq-tags', 'bfq-dying-blkgs', 'udev-rule']
# These run in a boot of their own on the instruction clock (vm.py,
# --icount).
# - The emulated 7200 rpm disk (issue 18; NAME@hdd-q1 runs NAME on it) is
#   a program in the guest: how fast it serves depends on how fast the
#   guest runs it.  Timed by the host's clock, a CI host that lost CPU to
#   its hypervisor saw 82 MB/s where the model gives 140; on the
#   instruction clock the server's CPU time is the same on every host.
# - cfq-runs' pairs of readers (tests/guest/t/cfq-runs.sh), whose shares
#   moved with the host: by the host's clock CI hosts read the group pair
#   82.0-85.4 for 88.9 and the level pair 75.7-79.6 for 81.8; on the
#   instruction clock 85.1-88.8 (nine runs) and 79.0-81.9 (four).  Those
#   were each fio's own 3 s, which held part of the other's start or end;
#   over the time both ran seven runs read 88.8-88.9 and 81.5-81.9.
# - cfq-prio and cfq-dd on null_blk: sequential readers at depth 1, each
#   of whose next read must come within slice_idle to keep its slice.  By
#   the host's clock a CI run read BE 0/4/7 at 44.4/39.2/16.4 and again
#   at 61.5/27.0/11.5 for 56.2/31.2/12.5, and with two busy loops on the
#   host 53.3/36.1/10.6 and 47.2/38.7/14.1 (dd's prio 0 vs 7 1.50x); a
#   quiet host read 57.6-57.7/31.2-31.6/10.7-11.1 in three boots, and the
#   instruction clock, beside the two busy loops, 57.5/31.5/11.0 (1.63x).
ICOUNT_TESTS = ['env', 'hdd-model', 'cfq-prio', 'cfq-dd', 'cfq-prio@hdd-q1',
                'cfq-dd@hdd-q1', 'cfq-media@hdd-q1', 'cfq-runs']


def _suite(kernel, out, tests, **kw):
    return vm.run_guest_tests(kernel, out, tests, **kw)


@pytest.fixture(scope='module')
def guest_suite(lean_kernel, vm_results):
    return _suite(lean_kernel, os.path.join(vm_results, 'guest'),
                  GUEST_TESTS, timeout=1200)


@pytest.fixture(scope='module')
def icount_suite(lean_kernel, hdd_tool, vm_results):
    return _suite(lean_kernel, os.path.join(vm_results, 'guest-icount'),
                  ICOUNT_TESTS, timeout=1800, icount=True)


def _judge(suite, name):
    """A test that failed on its own verdict ran once more in a boot of
    its own (vm.run_guest_tests()); it is judged on that run, and the
    first failure is reported as a warning."""
    res = suite[0]
    assert res.ok, f'guest suite run failed: {res.reasons}'
    tdir = vm.judged_dir(suite, name)
    with open(os.path.join(tdir, f'{name}.log'), errors='replace') as f:
        log = f.read()
    with open(os.path.join(tdir, f'{name}.rc')) as f:
        rc = int(f.read())
    assert rc == 0, f'{name} failed:\n{log[-3000:]}'
    with open(os.path.join(tdir, f'{name}.dmesg'), errors='replace') as f:
        assert splat.find_splats(f.read()) == []


@pytest.mark.host_clock
@pytest.mark.parametrize('name', GUEST_TESTS)
def test_guest(guest_suite, name):
    _judge(guest_suite, name)


@pytest.mark.parametrize('name', ICOUNT_TESTS[1:])
def test_guest_icount(icount_suite, name):
    _judge(icount_suite, name)


def test_guest_warning_fails_the_run(lean_kernel, vm_results):
    res = vm.run(lean_kernel,
                 'echo WARNING > /sys/kernel/debug/provoke-crash/DIRECT',
                 os.path.join(vm_results, 'lkdtm-warning'), timeout=300)
    assert not res.ok
    assert res.exit_code == 0           # the job itself succeeded ...
    assert res.splats[0][0] == 'warning'  # ... the WARN fails the run


def test_missing_result_fails_the_run(lean_kernel, vm_results):
    res = vm.run(lean_kernel, 'echo {} > /tmp/results/present.json',
                 os.path.join(vm_results, 'missing'),
                 expect=['present.json', 'absent.json'], timeout=300)
    assert not res.ok
    assert res.reasons == ['missing result file absent.json']


def test_boot_timeout_fails_fast(lean_kernel, vm_results):
    """A guest that has not reached the job by boot_timeout is killed
    then, not at `timeout` (no boot gets that far in 1 s)."""
    res = vm.run(lean_kernel, 'true', os.path.join(vm_results, 'no-boot'),
                 timeout=300, boot_timeout=1)
    assert not res.ok
    assert res.reasons[0] == 'guest did not boot within 1 s'
    assert res.seconds < 60


def _cpu_cost(lean_kernel, out, cpus, *cases):
    """7-cpu-cost's @cases on @cpus vCPUs on the instruction clock, one run
    of 4 s each under mq-deadline, bfq-ll0 and cfq, in one boot: IOPS by
    (case, peer)."""
    args = ['--kernel', lean_kernel, '--out', out, '--exp', 'cpu-cost',
            '--profile', 'cpu', '--peer', 'mq-deadline', '--peer',
            'bfq-ll0', '--peer', 'cfq', '--runtime', '4',
            '--cpus', str(cpus), '--icount']
    for case in cases:
        args += ['--case', case]
    assert bench.main(args) == 0
    rows = report.aggregate(report.load_runs(os.path.join(out, 'bench')))
    return {(r['case'], r['peer']): r['iops'] for r in rows}


def test_cpu_cost_on_an_instruction_clock(lean_kernel, vm_results):
    """Issue 3's CPU-cost goal as issue 17 raised it, on the
    instant-completion null_blk (7-cpu-cost: one group, one and two psync
    random readers, and one reader beside 1000 idle groups): cfq's IOPS at
    least 95 % of mq-deadline's and above bfq's.
    The guest runs on one vCPU with a clock that counts its instructions
    (--icount), so IOPS are 10^9 over the instructions spent per I/O: the
    same on any host, busy or not (repeated boots agree within 0.1 %),
    where wall-clock IOPS under TCG move by up to 1.6x between runs of one
    boot.  Measured 95.3-95.5 % at 981cae7, 94.95-95.09 % at b589372,
    95.6-95.7 % at 52ce502."""
    iops = _cpu_cost(lean_kernel, os.path.join(vm_results, 'cpu-cost'), 1,
                     '1-reader', '2-readers', '1-reader-1000-groups')
    assert {c for c, _ in iops} == {'1-reader', '2-readers',
                                    '1-reader-1000-groups'}, iops
    # Issue 15: the cost per I/O does not grow with the number of groups
    # on the device (it did: 55 % of the one-group IOPS with 1000).
    many, one = iops['1-reader-1000-groups', 'cfq'], iops['1-reader', 'cfq']
    print(f'1000 idle groups: cfq {many:.0f} IOPS, {many / one:.1%} of its '
          f'{one:.0f} with one group')
    assert many >= 0.98 * one, (many, one)
    for case in ('1-reader', '2-readers', '1-reader-1000-groups'):
        cfq, mqdl = iops[case, 'cfq'], iops[case, 'mq-deadline']
        bfq = iops[case, 'bfq-ll0']
        print(f'{case}: cfq {cfq:.0f} IOPS, {cfq / mqdl:.1%} of '
              f'mq-deadline ({mqdl:.0f}), {cfq / bfq:.2f}x bfq-ll0 '
              f'({bfq:.0f})')
        assert cfq >= 0.95 * mqdl, (case, cfq, mqdl)
        assert cfq > bfq, (case, cfq, bfq)


def test_cpu_cost_on_two_vcpus_on_an_instruction_clock(lean_kernel,
                                                      vm_results):
    """Issue 17's acceptance 5 on the repeatable two-CPU clock it names:
    two vCPUs with --icount, two psync random readers pinned one to each,
    on the instant-completion null_blk: cfq at least 90 % of
    mq-deadline's IOPS and above bfq's (measured 95.9 %, bfq-ll0 75.9 %).
    Under --icount QEMU runs both vCPUs on one host thread in turns, so
    the CPUs never run at the same instant: this counts the work of an
    I/O submitted from two CPUs (both submit, complete and dispatch,
    each with its own state), not the time one waits for the other's
    lock, which only the host's clock shows (docs/results/issue17,
    "Two CPUs").  8 runs in one boot agreed within 0.1 %, so one run
    does."""
    iops = _cpu_cost(lean_kernel, os.path.join(vm_results, 'cpu-cost-2cpus'),
                     2, '2-readers-pinned')
    cfq, mqdl, bfq = (iops['2-readers-pinned', p]
                      for p in ('cfq', 'mq-deadline', 'bfq-ll0'))
    print(f'2 vCPUs, 2 pinned readers: cfq {cfq:.0f} IOPS, '
          f'{cfq / mqdl:.1%} of mq-deadline ({mqdl:.0f}), '
          f'{cfq / bfq:.2f}x bfq-ll0 ({bfq:.0f})')
    assert cfq >= 0.90 * mqdl, (cfq, mqdl)
    assert cfq > bfq, (cfq, bfq)


def _hdd_bench(lean_kernel, vm_results, case, *args):
    """One case of 10-hdd-throughput on the emulated disk, 10 s a run, two
    vCPUs on the instruction clock, in one boot; its runs."""
    out = os.path.join(vm_results, f'hdd-{case}')
    rc = bench.main(['--kernel', lean_kernel, '--out', out,
                     '--exp', 'hdd-throughput', '--case', case, *args,
                     '--runtime', '10', '--cpus', '2', '--icount'])
    assert rc == 0
    return report.load_runs(os.path.join(out, 'bench'))


def test_time_vs_count_on_the_emulated_disk(lean_kernel, hdd_tool,
                                            vm_results):
    """Issue 18's acceptance 3: a group reading sequentially in 1 MiB
    requests against a group of four 4 KiB random readers, equal
    cfq.ioprio, on the emulated disk at depth 1 and 32: each group gets
    50 % of the disk's time within 3 points (measured 49.9/50.1 and
    49.6/50.4, in another boot 49.0/51.0 and 48.1/51.9), from the disk's
    own trace (outside the scheduler), on the instruction clock."""
    runs = _hdd_bench(lean_kernel, vm_results, 'time-vs-count',
                      '--profile', 'hdd-q1', '--profile', 'hdd-ncq',
                      '--peer', 'cfq')
    assert sorted(r['profile'] for r in runs) == ['hdd-ncq', 'hdd-q1']
    for r in runs:
        split = r['time_shares']
        print(f'{r["profile"]}: disk time {split[0]:.1f}/{split[1]:.1f} '
              f'(sequential/random), I/Os {r["shares"][0]:.1f}/'
              f'{r["shares"][1]:.1f}')
        assert max(abs(s - 50) for s in split) <= 3, (r['profile'], split)


def test_sequential_reader_among_random_ones_on_ncq(lean_kernel, hdd_tool,
                                                    vm_results):
    """Issue 18's acceptance 1 where cfq fell short: one sequential
    reader (1 MiB) and four random readers (4 KiB) in one group on the
    emulated disk with NCQ (depth 32).  cfq reads at least 95 % of
    bfq-ll0's MB/s (measured 124 %; 71 % before a queue worth idling for
    waited for others' requests to leave the disk), and the sequential
    reader gets at least a third of the disk's time (measured 68 %)."""
    runs = {r['peer']: r for r in _hdd_bench(
        lean_kernel, vm_results, 'seq-vs-4-random', '--profile', 'hdd-ncq',
        '--peer', 'bfq-ll0', '--peer', 'cfq')}
    mbs = {}
    for peer, r in runs.items():
        # The sequential reader is the first unit, 1 MiB a request.
        units = r['units']
        mbs[peer] = (units[0]['ios'] * 1048576 +
                     sum(u['ios'] for u in units[1:]) * 4096) / \
            r['window_s'] / 1e6
        print(f'{peer}: {mbs[peer]:.1f} MB/s, disk time '
              f'{r["time_shares"][0]:.1f} % sequential')
    assert mbs['cfq'] >= 0.95 * mbs['bfq-ll0'], mbs
    assert runs['cfq']['time_shares'][0] >= 100 / 3, runs['cfq']


def _d1_bench(lean_kernel, out, *extra):
    """One run of 10 s per cell on the depth-1 disk, one vCPU, on the
    instruction clock with idle time skipped (vm.qemu_argv()): the
    aggregated rows."""
    rc = bench.main(['--kernel', lean_kernel, '--out', out,
                     '--profile', 'd1-rot', '--runs', '1', '--runtime', '10',
                     '--icount', '--skip-idle', '--cpus', '1', *extra])
    assert rc == 0
    return report.aggregate(report.load_runs(os.path.join(out, 'bench')))


def test_quick_isolation(lean_kernel, vm_results):
    """Issue 17's latency isolation on the depth-1 rotational device: a
    reader in a prio-0 group that thinks 2 ms between 4 KiB random reads,
    against a prio-7 group of 8 random writers, set against the reader
    alone.  Before the writers could use the reader's gaps
    (cfq_fill_gap()), the reader waited out their whole 12.5 ms turn
    whenever one came: 92 % of its rate, p99 5.2x its p99 alone (3 runs,
    the host's clock).  One run of 10 s on the instruction clock with
    idle time skipped, one vCPU, so the bench's bars hold for one run:
    95 % of the rate and 2x the p99 (cfq keeps 100 % and 1.0x, as in
    docs/results/issue17/skip-idle/)."""
    rows = _d1_bench(lean_kernel, os.path.join(vm_results, 'isolation-quick'),
                     '--exp', 'isolation', '--peer', 'cfq')
    md, met, n = report.isolation(rows)
    print(md)
    assert (met, n) == (1, 1), md


def test_readers_beside_writers(lean_kernel, vm_results):
    """RFC Test 1 read+write on the depth-1 disk: each group runs 15
    random readers and 15 random writers.  cfq must serve both kinds of
    each group (the slowest within half of its group's rate per process)
    and hold the shares; bfq-ll0, beside it, holds the shares by serving
    the readers only (its writers at 0.00-0.01 writes a process a second
    in `docs/results/recheck/rw-kinds/`), which the report must call
    starved: the measure can fail.  One run of 10 s on the instruction
    clock with idle time skipped, one vCPU."""
    rows = {r['peer']: r for r in
            _d1_bench(lean_kernel, os.path.join(vm_results, 'readers-writers'),
                      '--exp', 'rfc-test1', '--case', 'read+write',
                      '--peer', 'bfq-ll0', '--peer', 'cfq')}
    print(report.markdown(list(rows.values())))
    cfq, bfq = rows['cfq'], rows['bfq-ll0']
    assert cfq['err_worst'] <= 3.0, cfq['shares']
    assert cfq['kind_rate'] >= 0.5, cfq['kind_rate']
    assert bfq['kind_rate'] < report.STARVED, bfq['kind_rate']


def test_quick_bench_through_the_harness(lean_kernel, vm_results):
    """The quick set (RFC Test 1 readers, the four dd examples, the
    two-level hierarchy) against none and cfq, on v1 and v2, in one
    boot (bfq is measured beside cfq by `make bench`; it was dropped here
    for time).  The harness must be sound (none splits equal-weight
    groups evenly) and cfq must meet the issue's bars on the depth-1
    disk: every share within 3 points of the target, and total I/Os at
    least 95 % of none's.

    The guest runs on the instruction clock with idle time skipped, one
    vCPU (vm.qemu_argv()).  Timed by the host's clock the dd cases were
    CPU-bound under TCG, so the ratio to `none` measured the host (69 %
    in one CI run, 82 % when measured again).  On the plain instruction
    clock the guest's idle time still follows the host's: in the CI run
    of 1 Dec the dd cells read 81-86 a second for some peers and 101-102
    for others, `none` included, and cfq failed an 85 % bar at 81 %.
    With idle time skipped every dd cell reads 109-110 a second for
    every scheduler, beside a debug-kernel guest on the same host, and
    the set takes 200 s instead of 460 s."""
    out = os.path.join(vm_results, 'bench-quick')
    rows = _d1_bench(lean_kernel, out, '--quick',
                     '--peer', 'none', '--peer', 'cfq', '--peer', 'cfq-v2')
    keys = {(r['exp'], r['case'], r['peer']) for r in rows}
    assert ('1-rfc-test1', 'read', 'none') in keys
    assert ('4-dd', 'gprio-7-vs-0-task-0-vs-7', 'cfq') in keys
    assert ('8-hierarchy', 'two-levels', 'cfq-v2') in keys
    for peer in ('cfq', 'cfq-v2'):
        assert len([r for r in rows if r['peer'] == peer]) == 6, keys
    bad = []
    for r in rows:
        assert r['iops'] > 20, f'{r["case"]}/{r["peer"]}: device idle?'
        if r['peer'] == 'none' and r['exp'] == '1-rfc-test1':
            # Three groups, none ignores them: thirds, within noise.
            assert max(abs(s - 100 / 3) for s in r['shares']) < 5, r
        if r['peer'] in ('cfq', 'cfq-v2'):
            got = ' '.join(f'{s:.1f}' for s in r['shares'])
            want = ' '.join(f'{s:.1f}' for s in r['target'])
            if r['err_worst'] > report.BARS['err_worst']:
                bad.append(f'{r["exp"]}/{r["case"]} {r["peer"]}: shares '
                           f'{got}, target {want}')
            if r['iops_vs_none'] < report.BARS['iops_vs_none']:
                bad.append(f'{r["exp"]}/{r["case"]} {r["peer"]}: '
                           f'{r["iops_vs_none"]:.0%} of none')
    assert not bad, bad
    assert os.path.getsize(os.path.join(out, 'report.png')) > 1000
    with open(os.path.join(out, 'summary.json')) as f:
        assert len(json.load(f)) == len(rows)


def _case_args(cases):
    return [a for c in cases for a in ('--case', c)]


def _dynamic(lean_kernel, out, *extra):
    """The runs' rows (dynamic.rows()), each with how it was judged
    second by second ('explain')."""
    rc = dynamic.main(['--kernel', lean_kernel, '--out', out, '--quick',
                       '--peer', 'cfq', *extra])
    assert rc == 0
    runs = dynamic.load_runs(os.path.join(out, 'dyn'))
    table = dynamic.rows(runs)
    for row, run in zip(table, runs):
        row['explain'] = dynamic.explain(run)
    return table


# The quick cases on d8 (the instruction clock, two vCPUs): the late joiner
# issue 15 is about, and leave and return, which missed there on the
# host's clock.  The other six (the late joiners 4-4 and 7-0, bursts, a
# priority change, the IDLE-class group and task) run on d1-rot here and
# on both devices in `make dynamic`.  With four cases on d8 a make check
# from a cold cache took 60 min (5.7 of them this test's d8 half, beside
# the debug kernel's build); the other four on d8 had taken 2.3 of its
# 4.4 minutes alone.
D8_CASES = ['late-joiner-0-7', 'leave-return']


@pytest.mark.parametrize('prof,extra,cases', [
    ('d1-rot', ['--icount'], None),
    ('d8', ['--icount', '--cpus', '2'], D8_CASES)],
    ids=['d1-rot', 'd8'])
def test_fairness_over_time(lean_kernel, vm_results, prof, extra, cases):
    """Issue 15: groups arriving, leaving, bursting and changing priority
    (tests/experiments/dynamic.toml, the quick set: times halved), cfq on
    the depth-1 disk and the depth-8 device.  Every run must meet every
    bar: per-second share within 5 points of the target from the second
    after a change, 10-second share within 2, no group with a share to
    get waiting over 1 s for an I/O on d1-rot, bursts served at their
    share within 5 points.

    The depth-1 disk runs on the instruction clock (one vCPU, --icount):
    timed by the host's clock a guest on a host that lost CPU to its
    hypervisor reached 300-700 of the disk's 1000 I/Os a second, and
    four cases missed (10-second errors up to 3.6); on the instruction
    clock the same kernel reads 820-920 and the 10-second errors stay
    under 1.  The depth-8 device (two of the cases, D8_CASES) runs on
    the instruction clock with two vCPUs (--icount --cpus 2; it is
    CPU-bound, and one vCPU took 4x as long).  Timed by the host's clock
    it had missed leave-return in two CI runs (per-second error 17.2),
    and here, with one busy loop beside the guest, in 3 runs of 3
    (10.7-13.5): the prio-0 group's tasks, short of CPU, left its slots
    to the others, before the pause as after it.  On the instruction
    clock its four cases then took 4.7-5.4 minutes, not 2.

    A group's turn on d1-rot is about 100 ms, so a one-second window
    holds a few turns, and one turn more or less for the prio-0 group
    moves its share by about 6 points: the full-length runs of
    `make dynamic` saw that once in 16 (5.2 points).  A case that misses
    only the per-second bar is measured once more, in the same way, and
    judged on that run."""
    table, again = [], []
    out = os.path.join(vm_results, f'dynamic-quick-{prof}')
    for r in _dynamic(lean_kernel, out, '--profile', prof, *extra,
                      *_case_args(cases or [])):
        if r['bad'] and all(b.startswith('per-second') for b in r['bad']):
            print(f'{r["case"]} {prof}: {r["bad"]}; measuring again')
            again.append(r['case'])
        else:
            table.append(r)
    if again:
        table += _dynamic(lean_kernel, out + '-again', '--profile', prof,
                          *extra, *_case_args(again))
    want = {(c.name, prof) for c in dynamic.load(True, cases)
            if prof in c.profiles}
    assert {(r['case'], r['profile']) for r in table} == want
    bad = [f'{r["case"]} {r["profile"]}: {"; ".join(r["bad"])}'
           for r in table if r['bad']]
    for r in table:
        if r['bad']:
            print(f'{r["case"]} {r["profile"]}, per-second shares:\n'
                  f'{r["explain"]}')
    assert not bad, bad


@pytest.mark.host_clock
def test_attribution(lean_kernel, vm_results):
    """Issue 16: I/O that kernel threads submit for a cgroup is charged to
    it on cgroup v2 (experiments/attribution.toml, 10 s per run).  A
    weight-25 group's buffered writeback beside a weight-200 group's
    direct readers: the readers get 88.9 % of the disk within 3 points;
    two loop-device "VM" disks at 200 and 25: 88.9/11.1 within 3.  v2
    only: on v1 the writeback goes to the root group, which `make
    bench-v2` reports beside it (not judged; 44 s of this test's 108)."""
    out = os.path.join(vm_results, 'attribution')
    rc = attribution.main(['--kernel', lean_kernel, '--out', out,
                           '--peer', 'cfq-v2', '--runtime', '10'])
    assert rc == 0
    rows = report.aggregate(report.load_runs(os.path.join(out, 'attr')))
    got = {(r['case'], r['peer']): r for r in rows}
    assert set(got) == {(c, 'cfq-v2') for c in ('writeback', 'loop')}, \
        set(got)
    for case in ('writeback', 'loop'):
        r = got[case, 'cfq-v2']
        print(f'{case}: {r["shares"]}')
        assert r['err_worst'] <= 3.0, (case, r['shares'], r['target'])
