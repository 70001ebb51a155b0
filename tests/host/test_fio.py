# SPDX-License-Identifier: GPL-2.0
"""fio output parsing, on a report and a log fio produced here."""
import json
import os

import pytest

from harness import fio

from conftest import FIXTURES


def test_json_report_of_25_jobs(fixture):
    rep = fio.parse_json(fixture('fio-bfq-25jobs.json'))
    assert len(rep['jobs']) == 1            # group_reporting
    job = rep['jobs'][0]
    assert fio.job_ios(job)['read'] > 0
    assert fio.job_ios(job)['write'] == 0
    p99 = fio.job_p99_ms(job)
    assert p99 is not None and p99 > 1.0    # 1 ms device, 75 tasks


def test_json_after_warning_lines(fixture):
    text = 'fio: some warning\n' + fixture('fio-bfq-25jobs.json')
    assert fio.parse_json(text)['fio version'] == 'fio-3.33'


def test_no_json_is_an_error():
    with pytest.raises(ValueError):
        fio.parse_json('fio: file not found\n')


def test_per_io_log_and_window():
    samples = fio.read_iops_log(os.path.join(FIXTURES,
                                             'fio-per-io_iops.1.log'))
    assert len(samples) == 50 and all(v == 1 for _, v, _ in samples)
    first, last = samples[0][0], samples[-1][0]
    assert fio.ios_in_window(samples, (first - 1, last)) == {0: 50, 1: 0}
    # (t0, t1]: the sample at t0 itself is outside.
    assert fio.ios_in_window(samples, (first, last))[0] == 49
    assert fio.ios_in_window(samples, (last, last + 1000))[0] == 0


def test_window_counts_directions():
    samples = [(10, 1, 0), (20, 1, 1), (30, 1, 1), (40, 1, 0)]
    assert fio.ios_in_window(samples, (0, 35)) == {0: 1, 1: 2}


def test_totals_divide_by_how_long_the_group_ran(fixture):
    """count = "total" cases: IOPS are a group's I/Os over the time it
    ran, not over its processes' runtimes summed (fio's job_runtime for
    a group_reporting entry; 25 processes here)."""
    from guest import bench as guest_bench
    from harness import experiments
    case = {c.key: c for c in experiments.load_all(['cpu-cost'])}[
        '7-cpu-cost/2-readers']
    report = json.loads(fixture('fio-bfq-25jobs.json'))
    res = guest_bench.summarize_totals(case, [report], 12.0)
    assert res['total_ios'] == 2182
    assert res['window_s'] == pytest.approx(10.389)
    assert res['iops'] == pytest.approx(2182 / 10.389)


class TracedDisk:
    """The emulated disk as disk_time() sees it: a 3 GiB device whose
    trace is a file of the given lines, under RFC Test 1's write case
    (3 groups, a third of the disk each)."""
    targets = ['/dev/ublkb0']

    def __init__(self, tmp_path):
        from guest import bench as guest_bench
        from harness import experiments
        self.case = {c.key: c for c in experiments.load_all(
            ['rfc-test1'])}['1-rfc-test1/write']
        self.trace = str(tmp_path / 'trace')
        self.lba = [guest_bench.group_region(self.case, self, gi)[3] // 512
                    for gi in range(3)]

    def size_bytes(self, target):
        return 3 << 30

    def disk_time(self, lines, **kw):
        """disk_time() over a window from 0.5 to 2.0 s of the trace's
        clock."""
        import time
        from guest import bench as guest_bench
        with open(self.trace, 'w') as f:
            f.writelines(' '.join(f'{v:.6f}' if isinstance(v, float) else
                                  str(v) for v in ln) + '\n' for ln in lines)
        off = time.time() - time.monotonic()
        window = ((off + 0.5) * 1000, (off + 2.0) * 1000)
        return guest_bench.disk_time(self.case, self, window, **kw)


def test_disk_time_counts_a_cached_write_as_its_destage(tmp_path):
    """The emulated disk's trace: a write that waited in the disk for
    room in its cache spans the destages it waited on; its disk time is
    its own destage, not that wait.  A destage counts for the writes of
    the window it writes back, whenever it runs, and for nobody when
    they were cached before the window opened."""
    dev = TracedDisk(tmp_path)
    lba = dev.lba
    lines = [(0.1, 0.1, 0.2, 1, lba[1] + 64, 8, 'wcache'),	# before
             (0.9, 1.0, 1.1, 1, lba[0], 8, 'mech'),
             (0.95, 0.95, 1.0, 1, lba[1], 8, 'wcache'),
             (1.1, 1.1, 1.3, 1, lba[1], 8, 'destage'),
             (1.3, 1.3, 1.4, 1, lba[1] + 64, 8, 'destage'),	# nobody's
             (0.9, 0.9, 1.3, 1, lba[2], 16, 'wcache'),	# waited 0.4 s
             (1.3, 1.3, 1.301, 0, lba[2], 8, 'hit'),
             (1.3, 1.3, 1.4, 0, lba[2], 8, 'stream'),
             (5.0, 5.0, 5.1, 0, lba[0], 8, 'mech'),	# after the window
             # the end's flush: half of this destage is the window's
             (6.0, 6.0, 6.4, 1, lba[2] + 8, 16, 'destage')]
    secs = dev.disk_time(lines)
    assert secs == pytest.approx([0.1, 0.2, 0.301], abs=1e-4)


def test_disk_time_bills_the_seek_back_to_the_write_back(tmp_path):
    """The first command after a write-back carries how much longer it
    positioned than it would have from where the write-back found the
    head.  By default the command keeps it; with seek_back it goes to
    the destage's writes, as far as it lies in the window.  A negative
    one (the write-back left the head nearer) is a credit to the writes.
    The line names its destage by when that started, so a later destage
    of the same first sector does not take it."""
    dev = TracedDisk(tmp_path)
    lba = dev.lba
    lines = [(0.95, 0.95, 1.0, 1, lba[1], 8, 'wcache'),
             (1.0, 1.0, 1.01, 1, lba[1], 8, 'destage'),
             # 4 ms of its 10 are the seek back
             (1.0, 1.01, 1.02, 0, lba[0], 8, 'mech', 0.004, 1.0),
             (1.05, 1.05, 1.06, 1, lba[1] + 8, 8, 'wcache'),
             (1.1, 1.1, 1.11, 1, lba[1] + 8, 8, 'destage'),
             # the same first sector destaged again before the read's
             # line, of a write cached before the window: nobody's
             (0.1, 0.1, 0.2, 1, lba[1] + 8, 8, 'wcache'),
             (1.12, 1.12, 1.13, 1, lba[1] + 8, 8, 'destage'),
             # nearer than before: 2 ms back to the write
             (1.1, 1.11, 1.12, 0, lba[2], 8, 'mech', -0.002, 1.1),
             (1.96, 1.96, 1.97, 1, lba[1] + 16, 8, 'wcache'),
             (1.97, 1.97, 1.98, 1, lba[1] + 16, 8, 'destage'),
             # at the window's end: 15 of its 25 ms of seek back in it
             (1.98, 1.985, 2.01, 0, lba[0], 8, 'mech', 0.025, 1.97)]
    secs = dev.disk_time(lines, seek_back=True)
    assert secs == pytest.approx([0.006, 0.047, 0.012], abs=1e-5)
    plain = dev.disk_time(lines)
    assert plain == pytest.approx([0.025, 0.03, 0.01], abs=1e-5)
