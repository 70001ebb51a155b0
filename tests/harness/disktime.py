# SPDX-License-Identifier: GPL-2.0
"""Issue 18's seed-matrix table: shares of the emulated disk's time, and
I/Os against the best peer, one line per (case, profile).

report.py judges the shares of I/Os; on the emulated disk (profiles
hdd-*, part-hdd-*) each run.json also holds `time_shares`, each unit's
share of the disk's time read from the disk's own trace (disk_time() in
tests/guest/bench.py).  This takes those, from one or more results
directories (a later directory's run of the same cell, peer and run
number replaces an earlier one's, so a re-run can be laid over a
matrix), and prints for each cell cfq's error in points and I/Os a
second, the best other peer by I/Os (and its error), cfq's I/Os against
it, the same against the best peer that held its split within the bar,
the peers run, and a verdict against the bars: error <= ERR_BAR points
and I/Os >= IO_BAR of the best peer run.

CLI: python3 -m harness.disktime DIR [DIR ...]
"""
import argparse
import re
import sys
from collections import defaultdict

from harness import report, shares

ERR_BAR = 2.0
IO_BAR = 0.95
PEER = 'cfq'


def load(dirs):
    """{(exp, case, profile): {peer: [run]}} of the runs that measured
    disk time, a later directory's run replacing an earlier one's."""
    runs = {}
    for d in dirs:
        for r in report.load_runs(d):
            if r.get('time_shares') and len(r['target']) >= 2:
                runs[(r['exp'], r['case'], r['profile'], r['peer'],
                      r['run'])] = r
    cells = defaultdict(lambda: defaultdict(list))
    for (exp, case, profile, peer, _), r in sorted(runs.items()):
        cells[(exp, case, profile)][peer].append(r)
    return cells


def peer_row(rs):
    """A peer's mean error in points (disk time) and I/Os a second."""
    return {'err': shares.mean(shares.error_points(r['time_shares'],
                                                   r['target'])
                               for r in rs),
            'iops': shares.mean(r['iops'] for r in rs),
            'runtime': rs[0].get('runtime')}


def cell_row(peers, err_bar=ERR_BAR, io_bar=IO_BAR):
    """The verdict of one cell: {peer: [run]} -> dict, or None without
    cfq or another peer."""
    if PEER not in peers or len(peers) < 2:
        return None
    rows = {p: peer_row(rs) for p, rs in peers.items()}
    mine = rows.pop(PEER)
    best = max(rows, key=lambda p: rows[p]['iops'])
    held = [p for p in rows if rows[p]['err'] <= err_bar]
    best_held = max(held, key=lambda p: rows[p]['iops']) if held else None
    ratio = mine['iops'] / rows[best]['iops'] if rows[best]['iops'] else 0
    fails = []
    if mine['err'] > err_bar:
        fails.append('share')
    if ratio < io_bar:
        fails.append('I/Os')
    return {'mine': mine, 'best': best, 'best_row': rows[best],
            'ratio': ratio, 'best_held': best_held,
            'held_row': rows.get(best_held), 'peers': sorted(rows),
            'fails': fails}


def short(exp):
    """'5-partitions' -> 'partitions'."""
    return re.sub(r'^\d+-', '', exp)


def _fmt(row):
    return f'{row["err"]:.1f} ({row["iops"]:.0f})'


def table(cells, err_bar=ERR_BAR, io_bar=IO_BAR):
    """Markdown table and its count line; (markdown, shares met, I/Os
    met, cells)."""
    out = ['| case | profile | run | cfq: error pts (I/Os a second) | '
           'best other peer by I/Os: error (I/Os a second) | cfq / best | '
           f'best peer within {err_bar:g} points | peers run | verdict |',
           '|---|---|---|---|---|---|---|---|---|']
    n = met_share = met_io = 0
    for key in cells:
        c = cell_row(cells[key], err_bar, io_bar)
        if c is None:
            continue
        n += 1
        met_share += 'share' not in c['fails']
        met_io += 'I/Os' not in c['fails']
        held = '-'
        if c['best_held']:
            h = c['held_row']
            held = (f'{c["best_held"]} {_fmt(h)}: '
                    f'{100 * c["mine"]["iops"] / h["iops"]:.0f} %')
        run = c['mine']['runtime']
        out.append(f'| {short(key[0])}/{key[1]} | {key[2]} | '
                   + (f'{run} s' if run else '-') + ' | '
                   f'{_fmt(c["mine"])} | {c["best"]} {_fmt(c["best_row"])}'
                   f' | {100 * c["ratio"]:.0f} % | {held} | '
                   f'{", ".join(c["peers"])} | '
                   + ('met' if not c['fails'] else
                      'not met: ' + ', '.join(c['fails'])) + ' |')
    out.append('')
    out.append(f'Shares of disk time within {err_bar:g} points in '
               f'{met_share} of {n} cells; I/Os >= {100 * io_bar:.0f} % '
               f'of the best peer run in {met_io} of {n}.')
    return '\n'.join(out) + '\n', met_share, met_io, n


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('dirs', nargs='+', metavar='DIR')
    ap.add_argument('--err-bar', type=float, default=ERR_BAR)
    ap.add_argument('--io-bar', type=float, default=IO_BAR)
    args = ap.parse_args(argv)
    cells = load(args.dirs)
    if not cells:
        raise SystemExit('no run with disk time (time_shares) under '
                         + ' '.join(args.dirs))
    print(table(cells, args.err_bar, args.io_bar)[0], end='')
    return 0


if __name__ == '__main__':
    sys.exit(main())
