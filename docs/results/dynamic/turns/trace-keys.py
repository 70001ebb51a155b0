# SPDX-License-Identifier: GPL-2.0
# One line per group turn from trace-probe.py's trace.txt: when it began,
# the group, how long it took, its budget, and its key (virtual time, ms)
# at its start and end.  "out of round" marks a turn that went to a group
# served in one of the two turns before (three busy groups in a steady
# round never are).
#   python3 trace-keys.py DIR/trace.txt
import re
import sys

PAT = re.compile(r'\s(\d+\.\d+): .*\[bench-g(\d)\] turn (start|end), '
                 r'vdisktime (\d+)(?: weight \d+ budget (\d+))?')
start, last = None, []
for line in open(sys.argv[1]):
    m = PAT.search(line)
    if not m:
        continue
    t, g, what, key = float(m[1]), int(m[2]), m[3], int(m[4]) / 1e6
    if what == 'start':
        start = (t, g, key, int(m[5]) / 1e6)
        continue
    if not start or start[1] != g:
        continue
    t0, _, k0, budget = start
    print(f'{t0:.3f} g{g} took {(t - t0) * 1000:.1f} ms, budget {budget:.1f},'
          f' key {k0:.1f} -> {key:.1f} (+{key - k0:.1f})'
          f'{" out of round" if g in last else ""}')
    last = [g] + last[:1]
