"""Reads after a write-back on hdd-q1, from a bench run's kept trace:
what they took, the destage they waited for, their seek back, and three
guesses at the part of their time that was the write-back: the service
less a clean read's time from the last write's position, from the last
read's position (by distance eighths of the disk), and less half the
service (the write-back and the read each made one trip).
Usage: trace-curve.py RUNDIR [BUCKETS]"""
import sys, json, glob, gzip, os
d = sys.argv[1]
r = json.load(open(glob.glob(d + '/**/run.json', recursive=True)[0]))
tr = os.path.join(os.path.dirname(glob.glob(d + '/**/run.json', recursive=True)[0]), 'hdd.trace')
cap = 3 * r['trace_regions'][0][0] // 512
NB = int(sys.argv[2]) if len(sys.argv) > 2 else 8
op = gzip.open if not os.path.exists(tr) else open
tr = tr if os.path.exists(tr) else tr + '.gz'
lines = [l.split() for l in op(tr, 'rt')]
lines = [p for p in lines if len(p) >= 7]
# host commands in arrival order
cmds = [p for p in lines if p[6] != 'destage']
dest = [p for p in lines if p[6] == 'destage']
def b(dist): return min(NB - 1, dist * NB // cap)
last = 0; lastw = None
curve = [[0.0, 0] for _ in range(NB)]
after = []
dstart = {p[1]: float(p[2]) - float(p[1]) for p in dest}
for p in cmds:
    arr, st, end = float(p[0]), float(p[1]), float(p[2])
    op, lba = int(p[3]), int(p[4])
    if op == 2: continue
    svc = end - arr
    if op == 1:
        lastw = lba; last = lba; continue
    dist = abs(lba - last)
    if len(p) >= 9:
        after.append((svc, dstart.get(p[8], 0), float(p[7]), end - st, b(dist), b(abs(lba - lastw)) if lastw else None))
    elif st == arr and p[6] == 'mech':
        c = curve[b(dist)]; c[0] += svc; c[1] += 1
    last = lba
print('curve (clean reads): ' + ' '.join('%d:%.1f/%d' % (i, c[0] / c[1] * 1e3 if c[1] else 0, c[1]) for i, c in enumerate(curve)))
import statistics as S
print('reads after a destage:', len(after))
print(' mean service %.1f destage %.1f back %.1f own(measure1) %.1f' % tuple(1e3 * S.mean(x[i] for x in after) for i in range(4)))
est = [x[0] - curve[x[5]][0] / max(1, curve[x[5]][1]) for x in after if x[5] is not None]
est2 = [x[0] - curve[x[4]][0] / max(1, curve[x[4]][1]) for x in after]
print(' excess by curve from write pos %.1f ; from last read pos %.1f' % (1e3 * S.mean(est), 1e3 * S.mean(est2)))
half = [x[0] - max(0.0055, x[0] / 2) for x in after]
print(' excess as service less its half %.1f' % (1e3 * S.mean(half)))
from collections import Counter
print(' write-pos buckets', Counter(x[5] for x in after), 'read-pos buckets', Counter(x[4] for x in after))
