# SPDX-License-Identifier: GPL-2.0
"""Summarize a depth-1 blktrace (lines "ACTION SECONDS" from blkparse -f
'%a %T.%9t'): the gap from each completion to the next dispatch, and the
dispatch-to-completion service time.  Used by dispatch-gaps.sh.

    gaps.py LABEL TRACE_SECONDS BLKPARSE_TXT FIO_TERSE...
"""
import sys


def gaps(lines):
    """([completion -> next dispatch gap s], [service s], dispatches)."""
    last_c = last_d = None
    gap, svc, nd = [], [], 0
    for line in lines:
        f = line.split()
        if len(f) != 2 or f[0] not in ('D', 'C'):
            continue
        t = float(f[1])
        if f[0] == 'D':
            nd += 1
            if last_c is not None and (last_d is None or last_c > last_d):
                gap.append(t - last_c)
            last_d = t
        else:
            if last_d is not None:
                svc.append(t - last_d)
            last_c = t
    return gap, svc, nd


def pct(vals, p):
    return vals[min(len(vals) - 1, int(len(vals) * p))] if vals else 0.0


def main(argv):
    label, secs, path, terse = argv[1], float(argv[2]), argv[3], argv[4:]
    with open(path) as f:
        gap, svc, nd = gaps(f)
    gap.sort()
    # terse v3: field 6 is the KiB read, 4 KiB per I/O here
    ios = [int(open(t).read().split(';')[5]) // 4 for t in terse]
    us = 1e6
    print(f'{label:14s} IOPS {nd / secs:5.0f}  gap us mean '
          f'{us * sum(gap) / max(1, len(gap)):4.0f} p50 {us * pct(gap, .5):4.0f}'
          f' p90 {us * pct(gap, .9):4.0f} p99 {us * pct(gap, .99):5.0f}  '
          f'service us {us * sum(svc) / max(1, len(svc)):4.0f}  fio I/Os '
          f'{sum(ios)} ({"/".join(map(str, ios))})')


if __name__ == '__main__':
    main(sys.argv)
