# SPDX-License-Identifier: GPL-2.0
"""Parse fio output: the JSON report and per-job IOPS logs.

Shares are computed over one common time window, chosen by the runner:
from after every fio worker of every group exists to before the first one
can stop.  fio instances in different cgroups start a few hundred
milliseconds apart under TCG; counting each job's whole run would credit
the early starters with service the others could not compete for.  The
per-I/O IOPS logs (log_unix_epoch=1) put every completion on one clock;
a task starved for the whole window simply has no entries in it.
"""
import glob
import json
import os


def parse_json(text):
    """fio's JSON report, skipping any warning lines printed before it."""
    start = text.find('{')
    if start < 0:
        raise ValueError('no JSON object in fio output')
    return json.loads(text[start:])


def job_ios(job):
    """Completed I/Os of one fio JSON job, by direction."""
    return {d: job[d]['total_ios'] for d in ('read', 'write')}


def job_p99_ms(job):
    """Largest 99th-percentile completion latency over directions, in ms
    (None when the job completed nothing)."""
    worst = None
    for d in ('read', 'write'):
        clat = job[d].get('clat_ns', {})
        pct = clat.get('percentile', {})
        if clat.get('N', 0) and '99.000000' in pct:
            v = pct['99.000000'] / 1e6
            worst = v if worst is None else max(worst, v)
    return worst


def read_iops_log(path):
    """Samples [(t_ms, value, direction)] from one fio IOPS log."""
    samples = []
    with open(path) as f:
        for line in f:
            parts = [p.strip() for p in line.split(',')]
            if len(parts) < 3:
                continue
            samples.append((int(parts[0]), int(parts[1]), int(parts[2])))
    return samples


def logs_for(prefix):
    """All per-job IOPS logs fio wrote for a job section's log prefix."""
    return sorted(glob.glob(glob.escape(prefix) + '_iops.*.log'))


def ios_in_window(samples, window):
    """I/Os one job completed in (t0, t1] (ms), by direction (0 read,
    1 write), from a per-I/O log (log_avg_msec=0: one entry per I/O)."""
    t0, t1 = window
    out = {0: 0, 1: 0}
    for t, value, ddir in samples:
        if t0 < t <= t1 and ddir in out:
            out[ddir] += value
    return out


def load_json_file(path):
    with open(path) as f:
        return parse_json(f.read())


def load_logs(prefixes):
    """{key: [samples per job]} for {key: log prefix}."""
    return {k: [read_iops_log(p) for p in logs_for(v)]
            for k, v in prefixes.items()}


def exists_nonempty(path):
    return os.path.exists(path) and os.path.getsize(path) > 0
