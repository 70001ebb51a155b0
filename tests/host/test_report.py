# SPDX-License-Identifier: GPL-2.0
import json
import os
import re

from conftest import REPO
from harness import report


def _run(peer, run, shares, iops, target=(61.5, 30.8, 7.7)):
    return {'exp': '1-rfc-test1', 'case': 'read', 'profile': 'd1-rot',
            'peer': peer, 'run': run, 'title': 't', 'by': 'group',
            'target': list(target), 'shares': list(shares), 'iops': iops,
            'window_s': 10.0, 'nprocs': 75, 'scale': 1.0,
            'units': [{'label': f'g{i}', 'ios': s * 10, 'p99_ms': 5.0}
                      for i, s in enumerate(shares)]}


def test_aggregate_mean_worst_and_vs_none():
    runs = [_run('none', 1, (33, 33, 34), 800),
            _run('none', 2, (34, 33, 33), 780),
            _run('bfq-ll0', 1, (60.5, 31.8, 7.7), 400),
            _run('bfq-ll0', 2, (64.5, 28.8, 6.7), 390)]
    rows = {r['peer']: r for r in report.aggregate(runs)}
    bfq = rows['bfq-ll0']
    assert bfq['runs'] == 2
    assert bfq['shares'][0] == 62.5
    assert abs(bfq['err_mean'] - 2.0) < 1e-9       # (1.0 + 3.0) / 2
    assert bfq['err_worst'] == 3.0
    assert abs(bfq['iops_vs_none'] - 0.5) < 1e-9   # each run vs its none
    assert rows['none']['iops_vs_none'] == 1.0


def test_report_files(tmp_path):
    for i, (peer, sh) in enumerate((('none', (33, 33, 34)),
                                    ('bfq-ll0', (60, 31, 9)))):
        d = tmp_path / peer / 'r1'
        d.mkdir(parents=True)
        (d / 'run.json').write_text(json.dumps(_run(peer, 1, sh, 800)))
    rows, md = report.write_report(str(tmp_path))
    assert [r['peer'] for r in rows] == ['none', 'bfq-ll0']  # peers.toml order
    assert '| bfq-ll0 | 60.0/31.0/9.0 | 61.5/30.8/7.7 | 1.5 / 1.5 |' in md
    assert (tmp_path / 'report.png').stat().st_size > 1000
    assert 'none' in report.seed_style(rows)


def test_report_keeps_what_it_came_from(tmp_path):
    d = tmp_path / 'cfq' / 'r1'
    d.mkdir(parents=True)
    (d / 'run.json').write_text(json.dumps(_run('cfq', 1, (61, 31, 8), 8)))
    (tmp_path / report.HEADER).write_text('Kernel: the series at `abc`.\n\n')
    _, md = report.write_report(str(tmp_path), str(tmp_path / 'out'))
    assert md.startswith('Kernel: the series at `abc`.')
    assert (tmp_path / 'out' / 'report.md').read_text() == md


def test_chart_has_a_line_per_case_with_a_split():
    alone = dict(_run('cfq', 1, (100,), 8, target=(100,)), case='alone')
    iso = dict(_run('cfq', 1, (90, 10), 8, target=(50, 50)), case='iso',
               isolate='alone')
    runs = [_run('none', 1, (33, 33, 34), 800), _run('cfq', 1,
            (61, 31, 8), 790), alone, iso]
    labels, peers, cell = report._chart_grid(report.aggregate(runs))
    assert labels == ['1-rfc-test1/read (d1-rot)']
    assert peers == ['none', 'cfq']
    assert cell[(labels[0], 'cfq')]['err_mean'] == 0.5


def test_acceptance_bars():
    runs = [_run('none', 1, (33, 33, 34), 800),
            _run('none', 2, (34, 33, 33), 800),
            _run('bfq-ll0', 1, (60.5, 31.8, 7.7), 700),
            _run('bfq-ll0', 2, (61.5, 30.8, 7.7), 700),
            _run('cfq', 1, (61.5, 30.8, 7.7), 790),
            _run('cfq', 2, (64.0, 28.3, 7.7), 790)]   # 2.5 pts off
    md, met, total = report.acceptance(report.aggregate(runs))
    assert (met, total) == (1, 1)          # mean 1.25, worst 2.5, 99 %
    assert '| 99 % |' in md and '| 88 % |' in md
    runs[5] = _run('cfq', 2, (65.0, 27.3, 7.7), 790)  # 3.5 pts: too far
    md, met, total = report.acceptance(report.aggregate(runs))
    assert met == 0 and 'no: err worst' in md
    runs[4] = _run('cfq', 1, (61.5, 30.8, 7.7), 700)
    runs[5] = _run('cfq', 2, (61.5, 30.8, 7.7), 700)  # 88 % of none
    md, met, total = report.acceptance(report.aggregate(runs))
    assert met == 0 and 'no: I/Os' in md


def test_busy_column():
    old = _run('none', 1, (33, 33, 34), 800)
    new = dict(_run('cfq', 1, (61.5, 30.8, 7.7), 700),
               dev_busy=87.4, cpu_busy=99.6)
    rows = {r['peer']: r for r in report.aggregate([old, new])}
    assert rows['none']['dev_busy'] is None      # recorded before the column
    md = report.markdown([rows['none'], rows['cfq']])
    assert '| busy % dev / cpu |' in md
    assert md.count('| - |') == 1 and '| 87 / 100 |' in md


def test_iops_per_disk_second():
    """On the emulated disk the IOPS cell also gives the I/Os per second
    of the disk's time for them; runs without it show the window's."""
    old = _run('none', 1, (33, 33, 34), 800)
    new = [dict(_run('cfq', i, (61.5, 30.8, 7.7), 700), disk_iops=v)
           for i, v in ((1, 500.0), (2, 520.0))]
    rows = {r['peer']: r for r in report.aggregate([old] + new)}
    assert rows['none']['disk_iops'] is None
    assert rows['cfq']['disk_iops'] == 510.0
    md = report.markdown([rows['none'], rows['cfq']])
    assert '| 800 | 100 % |' in md
    assert '| 700 (510 a disk-second) | 88 % |' in md


def test_ceiling_of_a_split():
    """The dd pair on d8 (issue 17): one 1 MiB reader alone gets 359 I/Os/s
    under none, the pair 671; an 88.9/11.1 split cannot total more than
    359 / 0.889 = 404, so that is the bar's reference, not 671."""
    def dd(case, peer, iops, target, alone=None):
        r = _run(peer, 1, target, iops, target=target)
        r.update({'exp': '4-dd', 'case': case, 'profile': 'd8',
                  'alone': alone})
        return r
    pair = ['one-reader', 'one-reader']
    runs = [dd('one-reader', 'none', 359, (100.0,)),
            dd('gprio', 'none', 671, (11.1, 88.9), pair),
            dd('gprio', 'cfq', 390, (11.1, 88.9), pair),
            dd('same', 'none', 671, (50.0, 50.0), pair),
            dd('same', 'cfq', 660, (50.0, 50.0), pair)]
    rows = {(r['case'], r['peer']): r for r in report.aggregate(runs)}
    g = rows[('gprio', 'cfq')]
    assert abs(g['ceiling'] - 359 / 0.889) < 1e-6
    assert abs(g['iops_vs_ceiling'] - 390 / (359 / 0.889)) < 1e-9
    assert report.io_bar_value(g) == g['iops_vs_ceiling']
    # Two halves of 359 each could total 718: none's 671 is the ceiling.
    s = rows[('same', 'cfq')]
    assert s['ceiling'] == 671
    # No alone cases, or none did not run them: no ceiling.
    assert rows[('one-reader', 'none')]['ceiling'] is None
    assert report.ceiling(dict(runs[2], alone=['missing', 'missing']),
                          {('4-dd', 'gprio', 'd8', 1): 671}) is None
    md, met, n = report.acceptance(report.aggregate(runs), beside='none')
    assert (met, n) == (2, 2)       # 97 % of the ceiling; 98 % of none
    assert '97 % of the ceiling, 404' in md


def test_isolation_table():
    """The reader keeps 96 % of its rate and 1.5x its p99 under one peer,
    90 % and 3x under another: one row of two meets the bars."""
    def iso(case, peer, ios, p99, isolate=None):
        r = _run(peer, 1, (100.0,) if isolate is None else (88.9, 11.1),
                 100, target=(100.0,) if isolate is None else (88.9, 11.1))
        r.update({'exp': '9-isolation', 'case': case, 'isolate': isolate})
        r['units'][0].update({'ios': ios, 'p99_ms': p99})
        return r
    runs = [iso('alone', 'cfq', 4000, 1.0), iso('alone', 'bfq-ll0', 4000, 1.0),
            iso('mixed', 'cfq', 3840, 1.5, 'alone'),
            iso('mixed', 'bfq-ll0', 3600, 3.0, 'alone')]
    rows = report.aggregate(runs)
    md, met, n = report.isolation(rows)
    assert (met, n) == (1, 2)
    assert '| 9-isolation/mixed | d1-rot | cfq | 400 | 384 | 96 % | 1.00 | ' \
        '1.50 | 1.5 | yes |' in md
    # Isolation cases are not judged by the share bars.
    assert report.acceptance(rows, beside='bfq-ll0')[2] == 0


def test_headline_sets_bfq_beside_cfq():
    runs = [_run('none', 1, (33, 33, 34), 800),
            _run('bfq-ll0', 1, (60.5, 31.8, 7.7), 400),
            _run('cfq', 1, (61.5, 30.8, 7.7), 840)]
    md = report.headline(report.aggregate(runs))
    assert md.splitlines()[2] == (
        '| 1-rfc-test1/read | d1-rot | 61.5/30.8/7.7 | 60.5/31.8/7.7 (1.0) '
        '| - | **61.5/30.8/7.7 (0.0)** | 50 % / 105 % |')


def test_readme_shows_the_bench_report():
    """README's Results table is the headline of docs/results/report.md,
    which `make bench` writes, and names the commit it came from."""
    with open(os.path.join(REPO, 'docs', 'results', 'report.md')) as f:
        rep = f.read()
    with open(os.path.join(REPO, 'README.md')) as f:
        readme = f.read()
    commit = re.search(r'^Kernel: the series at `([0-9a-f]{7,})`', rep, re.M)
    assert commit, 'docs/results/report.md does not name its commit'
    table = re.search(r'^## Headline.*?\n\n(.*?\n)\n', rep, re.M | re.S)
    results = readme.split('\n## Results\n', 1)[1].split('\n## ', 1)[0]
    assert table.group(1) in results
    assert f'`{commit.group(1)}`' in results


def test_starved_kind():
    """RFC Test 1 read+write on hdd-q1-wt (2026-11-29): bfq-ll0 completed
    24 writes of 15 writers beside 1443 reads of 15 readers in its first
    group.  Its total is then a readers' total; the report says so."""
    def mixed(peer, reads, writes, like_w='4k True None None None 0 True'):
        r = _run(peer, 1, (61.5, 30.8, 7.7), reads + writes)
        r['case'] = 'read+write'
        r['kinds'] = [{'group': g, 'task': j, 'n': 15, 'rw': rw,
                       'like': like, 'ios': ios}
                      for g in range(3)
                      for j, (rw, like, ios) in enumerate((
                          ('randread', '4k True None None None 0 True',
                           reads),
                          ('randwrite', like_w, writes)))]
        return r
    # mq-deadline: 15 writes beside 714 reads, a writer at 4 % of the
    # group's rate per process.  cfq on hdd-ncq, writers into the cache:
    # its readers at 19 %, not starved.
    runs = [mixed('bfq-ll0', 1443, 24), mixed('mq-deadline', 714, 15),
            mixed('cfq', 679, 694), mixed('cfq-ncq', 76, 724)]
    rows = {r['peer']: r for r in report.aggregate(runs)}
    assert abs(rows['bfq-ll0']['kind_rate'] - 2 * 24 / 1467) < 1e-9
    assert abs(rows['cfq']['kind_rate'] - 2 * 679 / 1373) < 1e-9
    md = report.markdown([rows['bfq-ll0'], rows['mq-deadline'],
                          rows['cfq']])
    assert "slowest kind, of its group's rate |" in md
    assert '| 3 % starved |' in md and '| 4 % starved |' in md
    assert '| 99 % |' in md
    assert report.aggregate([runs[3]])[0]['kind_rate'] > report.STARVED
    # Kinds that differ in more than direction are not compared.
    other = mixed('cfq', 679, 24, like_w='1m False None None None 0 True')
    assert report.aggregate([other])[0]['kind_rate'] is None
    # The scheduler under test is held to it too.
    rows = report.aggregate([dict(mixed('cfq', 1443, 24), peer='cfq'),
                             dict(mixed('none', 600, 600), peer='none')])
    md, met, total = report.acceptance(rows)
    assert (met, total) == (0, 1) and 'no: a kind starved' in md
    # Runs from before the kinds were recorded: no column.
    plain = report.aggregate([_run('cfq', 1, (61.5, 30.8, 7.7), 800)])
    assert plain[0]['kind_rate'] is None
    assert 'slowest kind' not in report.markdown(plain)


def test_headline_says_starved():
    r = _run('bfq-ll0', 1, (61.5, 30.8, 7.7), 165)
    r['kinds'] = [{'group': 0, 'task': j, 'n': 15, 'rw': rw, 'like': 'x',
                   'ios': ios}
                  for j, (rw, ios) in enumerate((('randread', 1443),
                                                 ('randwrite', 24)))]
    c = _run('cfq', 1, (61.5, 30.8, 7.7), 155)
    md = report.headline(report.aggregate([r, c]))
    assert '61.5/30.8/7.7 (0.0), a kind starved (3 %)' in md
    assert md.count('starved') == 1
