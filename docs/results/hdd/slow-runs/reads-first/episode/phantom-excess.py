# SPDX-License-Identifier: GPL-2.0
"""The depth-1 net-excess rule (block/cfq.h, cfq_media_charge()) on
synthetic reads with no write-back: ms of phantom excess per read by the
credit allowed (CFQ_MEDIA_NET_READS), for docs/results/hdd/README.md."""
import random
def sim(width, n=200000, p_hit=0.4, hit=1.0, pos=9.0, seed=1, alpha=8):
    r = random.Random(seed); mean = 5.8; net = 0.0; exc = 0.0
    for i in range(n):
        s = hit if r.random() < p_hit else r.uniform(pos-4, pos+4)
        net = max(net + s - mean, -mean*width)
        e = 0.0
        if s > mean and net > 0:
            e = min(s - mean, net)
        net -= e; exc += e
        mean = (mean*(alpha-1) + s)/alpha
    return exc/n
for w in (4, 8, 16, 32, 64, 256, 10**9):
    print(w, ['%.3f' % sim(w, seed=k) for k in (1,2)], 'alpha64', '%.3f' % sim(w, alpha=64))
print('regimes')
def sim2(width, n=200000, seed=1, alpha=8, runlen=60):
    r = random.Random(seed); mean = 5.8; net = 0.0; exc = 0.0; reg = 0
    for i in range(n):
        if i % runlen == 0: reg = r.random() < 0.5
        p_hit = 0.7 if reg else 0.2
        s = 1.0 if r.random() < p_hit else r.uniform(5, 13)
        net = max(net + s - mean, -mean*width)
        e = 0.0
        if s > mean and net > 0:
            e = min(s - mean, net)
        net -= e; exc += e
        mean = (mean*(alpha-1) + s)/alpha
    return exc/n
for w in (4, 8, 16, 32, 64, 256):
    print(w, ['%.3f' % sim2(w, seed=k) for k in (1,2)], 'alpha64', '%.3f' % sim2(w, alpha=64), 'run20 %.3f' % sim2(w, runlen=20))
