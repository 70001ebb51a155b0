# SPDX-License-Identifier: GPL-2.0
"""Per-read latencies and read-to-read cycles of one reader from
pair.sh's blkparse output (ACTION SECONDS PID SECTOR BYTES): the block
layer's part (Q to the last C of a read's nine requests), the gap from
the last completion to the reader's next read, and what happened in the
slow gaps.  Requests are matched by sector: in pair.sh the prio-0
reader passes over sectors the other read earlier in the window, so only
the figures of the reader named by PID are to be trusted.

    cycles.py TRACE PID
"""
import bisect
import collections
import sys

PARTS = 9           # a 1 MiB read is 8 requests of 255 sectors and one of 8
PART_SECTORS = 255
SLOW_READ_S = 470e-6
SLOW_GAP_S = 250e-6
SLOW_CYCLE_S = 450e-6
USUAL_CYCLE_S = 395e-6


def parts(sector):
    return [sector + k * PART_SECTORS for k in range(PARTS)]


def pct(sorted_vals, key=lambda x: x):
    n = len(sorted_vals)
    return 'p50 %.0f p90 %.0f p95 %.0f p99 %.0f' % tuple(
        key(sorted_vals[int(n * q)]) * 1e6 for q in (0.5, 0.9, 0.95, 0.99))


def main(trace, pid):
    events = [f for f in (line.split() for line in open(trace)) if len(f) >= 5]
    reads = []
    stamp = {'G': {}, 'D': {}, 'C': {}}
    for f in events:
        act, t, p, s = f[0], float(f[1]), f[2], int(f[3])
        if act == 'Q':
            reads.append((t, p, s))
        elif act in stamp:
            stamp[act][s] = t
    g, d, c = stamp['G'], stamp['D'], stamp['C']
    print(collections.Counter(p for _, p, _ in reads))

    res = collections.defaultdict(list)
    for t, p, s in reads:
        secs = parts(s)
        if not all(x in c and x in d and x in g for x in secs):
            continue
        res[p].append((max(c[x] for x in secs) - t, [d[x] - g[x] for x in secs],
                       [c[x] - d[x] for x in secs]))
    for p, v in res.items():
        v.sort()
        print(p, len(v), pct(v, key=lambda x: x[0]))
        slow = [x for x in v if x[0] > SLOW_READ_S]
        print(' slow', len(slow))
        late = collections.Counter(max(range(PARTS), key=lambda i: gd[i])
                                   for _, gd, _ in slow)
        print(' most-delayed index', late)
        for tag, sample in (('', slow[:5]),
                            ('fast ', [x for x in v if x[0] < 0.4e-3][:2])):
            for lat, gd, svc in sample:
                print('  %slat %.0f' % (tag, lat * 1e6), 'G->D us',
                      [round(x * 1e6) for x in gd], 'svc',
                      [round(x * 1e6) for x in svc])

    # Read-to-read cycles of the reader named: (cycle, Q to last C,
    # last C to next Q, last C's time, next Q's time).
    mine = sorted((t, s) for t, p, s in reads if p == pid)
    cyc = []
    for (t, s), (t2, _) in zip(mine, mine[1:]):
        secs = parts(s)
        if all(x in c for x in secs):
            end = max(c[x] for x in secs)
            cyc.append((t2 - t, end - t, t2 - end, end, t2))
    cyc.sort()
    print('cycle', pct(cyc, key=lambda x: x[0]))
    print('C->nextQ', pct(sorted(x[2] for x in cyc)))

    allev = sorted((float(f[1]), f[0], f[2]) for f in events)
    ts = [e[0] for e in allev]
    for x in [x for x in cyc if x[2] > SLOW_GAP_S][:8]:
        i = bisect.bisect_left(ts, x[3] - 1e-9)
        j = bisect.bisect_right(ts, x[4] + 1e-9)
        print('gap %.0f us:' % (x[2] * 1e6),
              ' '.join('%s%s@%.0f' % (e[1], e[2][-1], (e[0] - x[3]) * 1e6)
                       for e in allev[i:j]))
    tot = sum(x[0] for x in cyc)
    slow = [x[0] for x in cyc if x[0] > SLOW_CYCLE_S]
    print('cycles', len(cyc), 'mean %.1f us' % (tot / len(cyc) * 1e6),
          'excess of slow cycles %.2f %%'
          % (sum(x - USUAL_CYCLE_S for x in slow) / tot * 100),
          'slow', len(slow))


if __name__ == '__main__':
    main(sys.argv[1], sys.argv[2])
