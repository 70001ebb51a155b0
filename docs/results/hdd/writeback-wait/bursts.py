"""Write bursts in a bench run's kept trace (hdd-q1), inside its window:
for each, the cached writes, the destages before the disk's next host
command (the write-back wait), how long the disk then sat idle, and the
destages later (between host commands, before the next burst).
Usage: bursts.py RUNDIR"""
import glob
import gzip
import json
import os
import sys

run = glob.glob(sys.argv[1] + '/**/run.json', recursive=True)[0]
w0, w1 = json.load(open(run))['trace_window']
tr = os.path.join(os.path.dirname(run), 'hdd.trace')
opener = open if os.path.exists(tr) else gzip.open
tr = tr if os.path.exists(tr) else tr + '.gz'
lines = [p for p in (ln.split() for ln in opener(tr, 'rt'))
         if len(p) >= 7 and w0 <= float(p[0]) <= w1]
n, k, rows = len(lines), 0, []
while k < n:
    if lines[k][6] != 'wcache':
        k += 1
        continue
    j = k
    while j < n and lines[j][6] in ('wcache', 'destage'):
        j += 1
    seg = lines[k:j]
    writes = sum(1 for q in seg if q[6] == 'wcache')
    dest = sum(float(q[2]) - float(q[1]) for q in seg if q[6] == 'destage')
    end = max(float(q[2]) for q in seg)
    idle = float(lines[j][1]) - end if j < n else 0.0
    m, late, late_s = j, 0, 0.0
    while m < n and lines[m][6] != 'wcache':
        if lines[m][6] == 'destage':
            late += 1
            late_s += float(lines[m][2]) - float(lines[m][1])
        m += 1
    rows.append((writes, dest, idle, late, late_s))
    k = j
print('bursts %d, cached writes %d' % (len(rows), sum(r[0] for r in rows)))
print('destaged before the next command: %.0f ms; disk idle after that: '
      '%.0f ms' % (1e3 * sum(r[1] for r in rows), 1e3 * sum(r[2] for r in rows)))
print('destages later, between host commands: %d (%.0f ms), after %d of '
      'the bursts' % (sum(r[3] for r in rows), 1e3 * sum(r[4] for r in rows),
                      sum(1 for r in rows if r[3])))
