# SPDX-License-Identifier: GPL-2.0
import json
import os

from conftest import REPO
from harness import disktime


def _run(peer, run, time_shares, iops, shares=(61.5, 30.8, 7.7),
         case='write', runtime=120):
    return {'exp': '5-partitions', 'case': case, 'profile': 'part-hdd-ncq',
            'peer': peer, 'run': run, 'target': [61.5, 30.8, 7.7],
            'shares': list(shares), 'time_shares': list(time_shares),
            'iops': iops, 'runtime': runtime}


def _write(root, r):
    d = os.path.join(root, r['peer'], f'r{r["run"]}')
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, 'run.json'), 'w') as f:
        json.dump(r, f)


def test_judges_disk_time_not_io_counts(tmp_path):
    """The error is of the time shares; the I/O bar is against the best
    peer run, and the best peer that held its split is named beside."""
    a, b = str(tmp_path / 'a'), str(tmp_path / 'b')
    # cfq's I/O shares are on target, its disk time 3 points off.
    _write(a, _run('cfq', 1, (58.5, 31.8, 9.7), 600))
    _write(a, _run('bfq-ll1', 1, (52.9, 27.6, 19.5), 800))
    _write(a, _run('bfq-ll0', 1, (62.0, 30.8, 7.2), 580))
    md, shares_met, io_met, n = disktime.table(disktime.load([a]))
    assert (shares_met, io_met, n) == (0, 0, 1)
    line = md.splitlines()[2]
    assert line.startswith('| partitions/write | part-hdd-ncq | 120 s | '
                           '3.0 (600) | bfq-ll1 11.8 (800) | 75 % | '
                           'bfq-ll0 0.5 (580): 103 % |'), line
    assert line.endswith('| bfq-ll0, bfq-ll1 | not met: share, I/Os |')
    # A later directory's run of the same cell replaces it.
    _write(b, _run('cfq', 1, (61.0, 31.0, 8.0), 790))
    md, shares_met, io_met, n = disktime.table(disktime.load([a, b]))
    assert (shares_met, io_met, n) == (1, 1, 1), md
    assert md.splitlines()[2].endswith('| met |')


def test_cells_without_disk_time_or_a_peer_are_left_out(tmp_path):
    root = str(tmp_path)
    r = _run('cfq', 1, (61.5, 30.8, 7.7), 100, case='read')
    del r['time_shares']
    _write(root, r)
    _write(root, _run('bfq-ll0', 1, (61.5, 30.8, 7.7), 100, case='read'))
    _write(root, _run('cfq', 1, (61.5, 30.8, 7.7), 100))	# no peer
    assert disktime.table(disktime.load([root]))[3] == 0


def test_reproduces_the_status_table():
    """docs/results/hdd/README.md's acceptance-2 table is this tool's
    output over the runs it names."""
    hdd = os.path.join(REPO, 'docs', 'results', 'hdd')
    dirs = [os.path.join(hdd, 'long-runs', d) for d in
            ('long-ncq', 'long-ncq2', 'long-ncqb', 'long-q1', 'long-q1b',
             'long-w')]
    dirs += [os.path.join(hdd, 'status-e1875ab', d) for d in
             ('rfc-mqdl', 'rfc1-read', 'procs', 'dd', 'part-read',
              'part-q1', 'part-q1-a', 'part-q1-peers', 'part-ncq',
              'part-ncq-a', 'part-ncq-peers')]
    md, shares_met, io_met, n = disktime.table(disktime.load(dirs))
    assert (shares_met, io_met, n) == (27, 24, 32)
    with open(os.path.join(hdd, 'README.md')) as f:
        readme = f.read()
    rows = [ln for ln in md.splitlines() if ln.startswith('| ')]
    missing = [ln for ln in rows if ln not in readme]
    assert not missing, missing
