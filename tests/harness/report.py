# SPDX-License-Identifier: GPL-2.0
"""Turn a bench results directory (run.json files) into a report.

For every (experiment case, device profile, peer): mean share per unit
over the runs, the target, the error in points (mean of the runs and the
worst run), total I/Os per second relative to `none` in the same boot and
run, and p99 completion latency per unit.  Writes report.md, report.png
and summary.json; prints the Markdown.

CLI: python3 -m harness.report RESULTS_DIR [--seed-style]
"""
import argparse
import glob
import json
import os
import sys
from collections import defaultdict

from harness import experiments, shares


def _rank(names):
    return {name: i for i, name in enumerate(names)}


def load_runs(root):
    """All run.json under root, ordered by experiment, case (file order),
    profile and peer (the order of profiles.toml and peers.toml), run."""
    runs = []
    for path in glob.glob(os.path.join(root, '**', 'run.json'),
                          recursive=True):
        with open(path) as f:
            runs.append(json.load(f))
    cases = _rank(c.key for c in experiments.load_all())
    profiles = _rank(experiments.load_toml('profiles.toml'))
    peers = _rank(experiments.load_toml('peers.toml'))
    runs.sort(key=lambda r: (r['exp'],
                             cases.get(f'{r["exp"]}/{r["case"]}', 0),
                             profiles.get(r['profile'], 99),
                             peers.get(r['peer'], 99), r['peer'], r['run']))
    return runs


def ceiling(run, none_iops):
    """The most a split at the run's target can total on its device, from
    `none` in the same boot and run: no more than `none` gets from the
    whole load, and no more than any unit's load gets alone (its `alone`
    case) over that unit's target share.  None if the run names no alone
    cases or `none` did not measure them."""
    if not run.get('alone'):
        return None
    key = (run['exp'], run['case'], run['profile'], run['run'])
    if key not in none_iops:
        return None
    caps = [none_iops[key]]
    for name, share in zip(run['alone'], run['target']):
        alone = none_iops.get((run['exp'], name, run['profile'],
                               run['run']))
        if alone is None:
            return None
        if share > 0:
            caps.append(alone / (share / 100.0))
    return min(caps)


# A kind of task doing under this part of its group's rate per process
# (kind_rate()) is starved.  Kinds compared differ only in reading or
# writing, but a write into a disk's cache can cost it several times
# less than a read: where cfq splits a group's time evenly, such writers
# complete some four times the readers' I/Os (the readers then at 19 %
# of their group's rate on hdd-ncq).  A tenth leaves room for that.
STARVED = 0.1


def kind_rate(run):
    """The slowest kind of task of a group whose kinds differ only in
    reading or writing (15 random 4 KiB readers beside 15 such writers),
    as its I/Os per process against its group's per process in the
    window; None where no group has such kinds, or the run did not
    record them.  A group's share can be right while one kind of its
    tasks waits the whole run: a peer that serves only the readers of a
    mixed case completes more I/Os where reads cost the disk less, and
    its total is no reference for a throughput bar.  Kinds that differ
    in size, pattern or priority are not compared: their rates differ by
    design."""
    groups = defaultdict(list)
    for k in run.get('kinds') or []:
        groups[k['group']].append(k)
    rates = []
    for kinds in groups.values():
        ios = sum(k['ios'] for k in kinds)
        n = sum(k['n'] for k in kinds)
        if len(kinds) < 2 or not ios or \
                len({k['like'] for k in kinds}) > 1:
            continue
        rates += [(k['ios'] / k['n']) / (ios / n) for k in kinds]
    return min(rates) if rates else None


def aggregate(runs):
    """[row] with one row per (exp, case, profile, peer), in run order."""
    by_key = defaultdict(list)
    order = []
    for r in runs:
        key = (r['exp'], r['case'], r['profile'], r['peer'])
        if key not in by_key:
            order.append(key)
        by_key[key].append(r)
    none_iops = {(r['exp'], r['case'], r['profile'], r['run']): r['iops']
                 for r in runs if r['peer'] == 'none'}
    rows = []
    for key in order:
        rs = sorted(by_key[key], key=lambda r: r['run'])
        target = rs[0]['target']
        errs = [shares.error_points(r['shares'], target) for r in rs]
        nunits = len(target)
        mean_shares = [shares.mean(r['shares'][i] for r in rs)
                       for i in range(nunits)]
        rel = [r['iops'] / none_iops[(r['exp'], r['case'], r['profile'],
                                      r['run'])]
               for r in rs if none_iops.get((r['exp'], r['case'],
                                             r['profile'], r['run']))]
        ceils = [(r['iops'], ceiling(r, none_iops)) for r in rs]
        ceils = [(got, c) for got, c in ceils if c]
        kinds = [v for v in map(kind_rate, rs) if v is not None]
        p99 = []
        for i in range(nunits):
            vals = [r['units'][i]['p99_ms'] for r in rs
                    if r['units'][i]['p99_ms'] is not None]
            p99.append(shares.mean(vals) if vals else None)
        rows.append({
            'exp': key[0], 'case': key[1], 'profile': key[2],
            'peer': key[3], 'title': rs[0]['title'], 'by': rs[0]['by'],
            'labels': [u['label'] for u in rs[0]['units']],
            'runs': len(rs), 'target': target, 'shares': mean_shares,
            'run_shares': [r['shares'] for r in rs],
            'err_mean': shares.mean(errs), 'err_worst': max(errs),
            'iops': shares.mean(r['iops'] for r in rs),
            'disk_iops': _mean_of(rs, 'disk_iops'),
            'iops_vs_none': shares.mean(rel) if rel else None,
            'ceiling': shares.mean(c for _, c in ceils) if ceils else None,
            'iops_vs_ceiling': (shares.mean(got / c for got, c in ceils)
                                if ceils else None),
            'p99_ms': p99,
            'ios': [shares.mean(r['units'][i]['ios'] for r in rs)
                    for i in range(nunits)],
            'window_s': shares.mean(r['window_s'] for r in rs),
            'dev_busy': _mean_of(rs, 'dev_busy'),
            'cpu_busy': _mean_of(rs, 'cpu_busy'),
            'nprocs': rs[0]['nprocs'], 'scale': rs[0].get('scale', 1.0),
            'isolate': rs[0].get('isolate'),
            'kind_rate': min(kinds) if kinds else None,
        })
    return rows


def _mean_of(rs, key):
    """Mean of a per-run value that older runs did not record."""
    vals = [r[key] for r in rs if r.get(key) is not None]
    return shares.mean(vals) if vals else None


def _fmt_busy(row):
    """Device busy % / guest CPU busy % during the window."""
    if row.get('dev_busy') is None:
        return '-'
    return f'{row["dev_busy"]:.0f} / {row["cpu_busy"]:.0f}'


def _fmt_shares(vals):
    return '/'.join(f'{v:.1f}' for v in vals)


def _fmt_ms(v):
    return '-' if v is None else f'{v:.2f}'


def _fmt_p99(vals):
    return '/'.join('-' if v is None else f'{v:.0f}' for v in vals)


def _fmt_iops(row):
    """The window's I/Os a second; on the emulated disk, and its I/Os per
    second of the disk's time for them (what writes left in its cache
    at the window's end cost it after)."""
    out = f'{row["iops"]:.0f}'
    if row.get('disk_iops'):
        out += f' ({row["disk_iops"]:.0f} a disk-second)'
    return out


def _fmt_vs(row):
    """Total I/Os against none's, or '-' where none did not run; and
    against the split's ceiling where the case has one."""
    if row['iops_vs_none'] is None:
        return '-'
    out = f'{100 * row["iops_vs_none"]:.0f} %'
    if row.get('iops_vs_ceiling') is not None:
        out += (f' ({100 * row["iops_vs_ceiling"]:.0f} % of the ceiling, '
                f'{row["ceiling"]:.0f})')
    return out


def io_bar_value(row):
    """What the I/O bar judges: the total against the split's ceiling
    where the case has one, else against none's."""
    if row.get('iops_vs_ceiling') is not None:
        return row['iops_vs_ceiling']
    return row['iops_vs_none']


def _starved(row):
    """Did a kind of task of a group starve in some run (kind_rate())?"""
    return row.get('kind_rate') is not None and row['kind_rate'] < STARVED


def _fmt_kind(row):
    """The slowest kind of task's rate against its group's, worst run."""
    if row.get('kind_rate') is None:
        return '-'
    return f'{100 * row["kind_rate"]:.0f} %' + \
        (' starved' if _starved(row) else '')


def markdown(rows):
    out = []
    cur = None
    for row in rows:
        head = (row['exp'], row['case'], row['profile'])
        if head != cur:
            cur = head
            mixed = any(r.get('kind_rate') is not None for r in rows
                        if (r['exp'], r['case'], r['profile']) == head)
            out += ['', f'### {row["exp"]} / {row["case"]} on '
                    f'`{row["profile"]}`', '',
                    f'{row["title"]}. Units: {", ".join(row["labels"])}; '
                    f'{row["nprocs"]} fio processes'
                    + (f' (seed counts x{row["scale"]:g})'
                       if row['scale'] != 1.0 else '')
                    + f'; {row["runs"]} run(s), '
                    f'{row["window_s"]:.0f} s common window each.', '',
                    '| peer | shares % | target % | error pts (mean / worst)'
                    ' | IOPS | vs none | p99 ms | busy % dev / cpu |'
                    + (' slowest kind, of its group\'s rate |' if mixed
                       else ''),
                    '|---|---|---|---|---|---|---|---|'
                    + ('---|' if mixed else '')]
        vs = _fmt_vs(row)
        out.append(f'| {row["peer"]} | {_fmt_shares(row["shares"])} | '
                   f'{_fmt_shares(row["target"])} | '
                   f'{row["err_mean"]:.1f} / {row["err_worst"]:.1f} | '
                   f'{_fmt_iops(row)} | {vs} | {_fmt_p99(row["p99_ms"])} | '
                   f'{_fmt_busy(row)} |'
                   + (f' {_fmt_kind(row)} |' if mixed else ''))
    return '\n'.join(out).lstrip('\n') + '\n'


# The peers README's Results table sets beside cfq.
HEADLINE_PEERS = ('bfq-ll0', 'bfq-ll1', 'cfq')


def headline(rows, peers=HEADLINE_PEERS):
    """README's Results table: per case, the shares of bfq (both
    low_latency settings) and cfq with the error in points, and the I/O
    totals of bfq-ll0 and cfq against none's (or the split's ceiling,
    marked "c").  A peer that starved a kind of task of a group
    (kind_rate()) says so beside its shares."""
    by = {(r['exp'], r['case'], r['profile'], r['peer']): r for r in rows}
    target = {}
    for r in rows:
        if len(r['target']) >= 2 and not r.get('isolate'):
            target.setdefault((r['exp'], r['case'], r['profile']),
                              r['target'])

    def total(r):
        io = None if r is None else io_bar_value(r)
        if io is None:
            return '-'
        mark = ' c' if r.get('iops_vs_ceiling') is not None else ''
        return f'{100 * io:.0f} %{mark}'

    out = ['| case | device | target % | ' + ' | '.join(peers) +
           ' | I/Os vs none: bfq-ll0 / cfq |',
           '|---|---|---|' + '---|' * (len(peers) + 1)]
    for key, tgt in target.items():
        cells = []
        for p in peers:
            r = by.get(key + (p,))
            cell = '-' if r is None else \
                f'{_fmt_shares(r["shares"])} ({r["err_mean"]:.1f})'
            if r is not None and _starved(r):
                cell += f', a kind starved ({100 * r["kind_rate"]:.0f} %)'
            cells.append(f'**{cell}**' if p == 'cfq' and r else cell)
        out.append(f'| {key[0]}/{key[1]} | {key[2]} | {_fmt_shares(tgt)} '
                   f'| ' + ' | '.join(cells) + f' | '
                   f'{total(by.get(key + ("bfq-ll0",)))} / '
                   f'{total(by.get(key + ("cfq",)))} |')
    return '\n'.join(out) + '\n'


def overview(rows):
    """One line per (case, profile): mean error per peer, side by side."""
    peers = []
    for r in rows:
        if r['peer'] not in peers:
            peers.append(r['peer'])
    table = defaultdict(dict)
    order = []
    for r in rows:
        key = (r['exp'], r['case'], r['profile'])
        if key not in table:
            order.append(key)
        table[key][r['peer']] = r
    out = ['| case | device | target % | ' + ' | '.join(peers) + ' |',
           '|---|---|---|' + '---|' * len(peers)]
    for key in order:
        cells = []
        for p in peers:
            r = table[key].get(p)
            cells.append('-' if r is None else
                         f'{_fmt_shares(r["shares"])} '
                         f'({r["err_mean"]:.1f} pts)')
        tgt = _fmt_shares(next(iter(table[key].values()))['target'])
        out.append(f'| {key[0]}/{key[1]} | {key[2]} | {tgt} | '
                   + ' | '.join(cells) + ' |')
    return '\n'.join(out) + '\n'


# The issue-4 bars for the scheduler under test: mean error of the runs,
# worst single run, total I/Os against none's in the same runs.
BARS = {'err_mean': 2.0, 'err_worst': 3.0, 'iops_vs_none': 0.95}


def acceptance(rows, peer='cfq', beside='bfq-ll0', bars=None):
    """Markdown: each case of `peer` against the bars, `beside` next to
    it; and the number of cases that meet every bar."""
    bars = bars or BARS
    mine = [r for r in rows if r['peer'] == peer]
    other = {(r['exp'], r['case'], r['profile']): r for r in rows
             if r['peer'] == beside}
    out = [f'| case | device | target % | {peer} shares (err mean / worst)'
           f' | {peer} vs none | {beside} shares (err mean / worst) | '
           f'{beside} vs none | {peer} meets bars |',
           '|---|---|---|---|---|---|---|---|']
    met = 0

    def cells(r):
        if r is None:
            return '-', '-'
        vs = _fmt_vs(r)
        return (f'{_fmt_shares(r["shares"])} ({r["err_mean"]:.1f} / '
                f'{r["err_worst"]:.1f})', vs)

    mine = [r for r in mine if len(r['target']) >= 2 and
            not r.get('isolate')]
    for r in mine:
        fails = []
        if r['err_mean'] > bars['err_mean']:
            fails.append('err mean')
        if r['err_worst'] > bars['err_worst']:
            fails.append('err worst')
        io = io_bar_value(r)
        if io is None or io < bars['iops_vs_none']:
            fails.append('I/Os')
        if _starved(r):
            fails.append('a kind starved')
        met += not fails
        a, b = cells(r)
        c, d = cells(other.get((r['exp'], r['case'], r['profile'])))
        out.append(f'| {r["exp"]}/{r["case"]} | {r["profile"]} | '
                   f'{_fmt_shares(r["target"])} | {a} | {b} | {c} | {d} | '
                   + ('yes' if not fails else 'no: ' + ', '.join(fails))
                   + ' |')
    out.append('')
    out.append(f'{met} of {len(mine)} cases meet every bar (error <= '
               f'{bars["err_mean"]:g} pts mean, <= {bars["err_worst"]:g} '
               f'in every run, I/Os >= {100 * bars["iops_vs_none"]:.0f} % '
               'of none, or of the ceiling where the case has one; no '
               'kind of task starved).')
    return '\n'.join(out) + '\n', met, len(mine)


# Latency isolation (issue 17): the first unit keeps this much of its rate
# alone, and its p99 within this factor of its p99 alone.
ISOLATION_BARS = {'rate': 0.95, 'p99': 2.0}


def isolation(rows, bars=None):
    """Markdown: for each case with an `isolate` case, per peer, the first
    unit's I/O rate and p99 against the same load alone under the same
    peer; and how many (case, device, peer) rows meet the bars."""
    bars = bars or ISOLATION_BARS
    by = {(r['exp'], r['case'], r['profile'], r['peer']): r for r in rows}
    out = ['| case | device | peer | I/Os/s alone | with the others | '
           'kept | p99 ms alone | with the others | x | meets bars |',
           '|---|---|---|---|---|---|---|---|---|---|']
    met = n = 0
    for r in rows:
        alone = r.get('isolate') and by.get((r['exp'], r['isolate'],
                                             r['profile'], r['peer']))
        if not alone:
            continue
        rate = r['ios'][0] / r['window_s']
        rate0 = alone['ios'][0] / alone['window_s']
        p99, p99_0 = r['p99_ms'][0], alone['p99_ms'][0]
        kept = rate / rate0 if rate0 else 0.0
        factor = p99 / p99_0 if p99 is not None and p99_0 else None
        ok = kept >= bars['rate'] and factor is not None and \
            factor <= bars['p99']
        met += ok
        n += 1
        out.append(f'| {r["exp"]}/{r["case"]} | {r["profile"]} | '
                   f'{r["peer"]} | {rate0:.0f} | {rate:.0f} | '
                   f'{100 * kept:.0f} % | {_fmt_ms(p99_0)} | '
                   f'{_fmt_ms(p99)} | '
                   + ('-' if factor is None else f'{factor:.1f}')
                   + f' | {"yes" if ok else "no"} |')
    out.append('')
    out.append(f'{met} of {n} rows meet the bars (rate >= '
               f'{100 * bars["rate"]:.0f} % of alone, p99 <= '
               f'{bars["p99"]:g} x alone).')
    return '\n'.join(out) + '\n', met, n


def seed_style(rows):
    """The RFC's table layout: I/O counts and percentages per group."""
    out = []
    for r in rows:
        cells = '\t'.join(f'{ios:.0f} ({s:.2f}%)'
                          for ios, s in zip(r['ios'], r['shares']))
        out.append(f'{r["peer"]:<12} {r["case"]:<24} {cells}\t'
                   f'{sum(r["ios"]):.0f}')
    return '\n'.join(out) + '\n'


# Colour bands of the chart's error panel, in points from the target
# share: within the bar, near it, off.
CHART_ERR_BANDS = (2.0, 5.0)
# And of its totals panel, in % of none's (or of the ceiling): off, near
# the I/O bar, at it or above.
CHART_TOTAL_BANDS = (80, 95)


def _chart_grid(rows):
    """Cases (those with a split to hold) by peer: ([label], [peer],
    {(label, peer): row})."""
    labels, peers, cell = [], [], {}
    for r in rows:
        if len(r['target']) < 2 or r.get('isolate'):
            continue
        label = f'{r["exp"]}/{r["case"]} ({r["profile"]})'
        if label not in labels:
            labels.append(label)
        if r['peer'] not in peers:
            peers.append(r['peer'])
        cell[(label, r['peer'])] = r
    return labels, peers, cell


def chart(rows, path):
    """Two panels, a line per case and a column per peer: how far each
    peer's shares are from the target (the worst unit, mean of the runs,
    in points; green within 2), and its total I/Os against `none`'s (or
    the split's ceiling) in the same run."""
    import matplotlib
    matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap, BoundaryNorm

    labels, peers, cell = _chart_grid(rows)
    if not labels:
        return
    lo, hi = CHART_ERR_BANDS
    fig, (ax_e, ax_t) = plt.subplots(
        1, 2, figsize=(4 + 1.2 * len(peers) * 2, 1.2 + 0.32 * len(labels)),
        gridspec_kw={'width_ratios': [1, 1]})
    err_cmap = ListedColormap(['#7fc97f', '#fdc086', '#f0027f'])
    err_norm = BoundaryNorm([0, lo, hi, 1000], 3)
    tot_cmap = ListedColormap(['#f0027f', '#fdc086', '#7fc97f'])
    t_lo, t_hi = CHART_TOTAL_BANDS
    tot_norm = BoundaryNorm([0, t_lo, t_hi, 10000], 3)
    def total(r):
        io = io_bar_value(r)
        return None if io is None else 100 * io

    panels = ((ax_e, lambda r: r['err_mean'], err_cmap, err_norm,
               f'share error, points (green <= {lo:g}, pink > {hi:g})',
               lambda v: f'{v:.1f}'),
              (ax_t, total, tot_cmap, tot_norm,
               "total I/Os, % of none's or of the split's ceiling "
               f'(green >= {t_hi}, pink < {t_lo})',
               lambda v: f'{v:.0f}'))
    for ax, value, cmap, norm, title, fmt in panels:
        for y, label in enumerate(labels):
            for x, peer in enumerate(peers):
                r = cell.get((label, peer))
                v = None if r is None else value(r)
                colour = 'white' if v is None else cmap(norm(v))
                ax.add_patch(plt.Rectangle((x - 0.5, y - 0.5), 1, 1,
                                           facecolor=colour,
                                           edgecolor='white'))
                ax.text(x, y, '-' if v is None else fmt(v), ha='center',
                        va='center', fontsize=8,
                        weight='bold' if peer == 'cfq' else 'normal')
        ax.set_xlim(-0.5, len(peers) - 0.5)
        ax.set_ylim(len(labels) - 0.5, -0.5)
        ax.set_xticks(range(len(peers)))
        ax.set_xticklabels(peers, fontsize=9)
        ax.xaxis.tick_top()
        ax.set_yticks(range(len(labels)))
        ax.set_yticklabels(labels if ax is ax_e else [], fontsize=8)
        ax.tick_params(length=0)
        for side in ax.spines.values():
            side.set_visible(False)
        ax.set_title(title, fontsize=9, pad=22)
    fig.suptitle('Shares against the target per case and peer, and what '
                 'the split costs in I/Os', fontsize=11)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


# A results dir's note of what it came from (harness.bench writes it),
# put at the top of the report.
HEADER = 'header.md'


def write_report(root, outdir=None, png=True):
    outdir = outdir or root
    rows = aggregate(load_runs(root))
    if not rows:
        raise SystemExit(f'no run.json under {root}')
    header = ''
    if os.path.exists(os.path.join(root, HEADER)):
        with open(os.path.join(root, HEADER)) as f:
            header = f.read()
    md = header
    has_cfq = any(r['peer'] == 'cfq' for r in rows)
    if has_cfq:
        md += ('## Headline: bfq and cfq, shares (error in points)\n\n'
               + headline(rows) + '\n')
    md += ('## Overview: mean shares (mean error in points)\n\n'
           + overview(rows))
    if has_cfq:
        md += ('\n## cfq against the bars, bfq beside it\n\n'
               + acceptance(rows)[0])
    if any(r.get('isolate') for r in rows):
        md += ('\n## Latency isolation: the first unit against its load '
               'alone\n\n' + isolation(rows)[0])
    md += '\n## Details\n\n' + markdown(rows)
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, 'report.md'), 'w') as f:
        f.write(md)
    with open(os.path.join(outdir, 'summary.json'), 'w') as f:
        json.dump(rows, f, indent=1)
    if png:
        chart(rows, os.path.join(outdir, 'report.png'))
    return rows, md


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument('results')
    ap.add_argument('--out')
    ap.add_argument('--seed-style', action='store_true')
    ap.add_argument('--no-png', action='store_true')
    args = ap.parse_args(argv)
    rows, md = write_report(args.results, args.out, not args.no_png)
    if args.seed_style:
        print(seed_style(rows))
    print(md)
    return 0


if __name__ == '__main__':
    sys.exit(main())
