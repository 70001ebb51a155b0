# SPDX-License-Identifier: GPL-2.0
"""The depth-1 net-excess rule (block/cfq.h, cfq_media_charge()) on
synthetic reads with no write-back: ms of phantom excess per read by the
credit allowed (CFQ_MEDIA_NET_READS), for docs/results/hdd/README.md."""
import random


def phantom(width, reads, n=200000, alpha=8):
    """The rule over n of @reads (ms each): excess taken per read."""
    mean = 5.8
    net = exc = 0.0
    for _ in range(n):
        s = next(reads)
        net = max(net + s - mean, -mean * width)
        e = min(s - mean, net) if s > mean and net > 0 else 0.0
        net -= e
        exc += e
        mean = (mean * (alpha - 1) + s) / alpha
    return exc / n


def two_modes(seed=1, p_hit=0.4, hit=1.0, pos=9.0):
    """i.i.d. reads: a fast mode and a slow one."""
    r = random.Random(seed)
    while True:
        yield hit if r.random() < p_hit else r.uniform(pos - 4, pos + 4)


def regimes(seed=1, runlen=60):
    """The fast mode's weight switching every runlen reads."""
    r = random.Random(seed)
    i = 0
    while True:
        if i % runlen == 0:
            p_hit = 0.7 if r.random() < 0.5 else 0.2
        i += 1
        yield 1.0 if r.random() < p_hit else r.uniform(5, 13)


for w in (4, 8, 16, 32, 64, 256, 10**9):
    print(w, ['%.3f' % phantom(w, two_modes(seed=k)) for k in (1, 2)],
          'alpha64', '%.3f' % phantom(w, two_modes(), alpha=64))
print('regimes')
for w in (4, 8, 16, 32, 64, 256):
    print(w, ['%.3f' % phantom(w, regimes(seed=k)) for k in (1, 2)],
          'alpha64', '%.3f' % phantom(w, regimes(), alpha=64),
          'run20 %.3f' % phantom(w, regimes(runlen=20)))
