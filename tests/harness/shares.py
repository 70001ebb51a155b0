# SPDX-License-Identifier: GPL-2.0
"""The fairness arithmetic: weights, targets, shares, errors.

These mirror the rules of DESIGN.md section 3, so a report can state a
target for every row without trusting the scheduler under test.
"""

# cfq.ioprio p (0 highest .. 7 lowest) -> group weight 8 - p.
IOPRIO_LEVELS = 8

# Conventional CFQ, best-effort class: slice = base + base/5 * (4 - level),
# sync base 100 ms.  Backlogged tasks of one group share in slice ratio.
SLICE_SYNC_MS = 100
SLICE_SCALE = 5


def group_weight(ioprio):
    if not 0 <= ioprio < IOPRIO_LEVELS:
        raise ValueError(f'ioprio {ioprio} out of 0..7')
    return IOPRIO_LEVELS - ioprio


def bfq_weight(ioprio):
    """io.bfq.weight the peers get for a cfq.ioprio: 100 x (8 - p)."""
    return 100 * group_weight(ioprio)


def cfq_weight(ioprio):
    """The cfq.weight a cfq.ioprio stands for: 25 x (8 - p), so 0/4/7
    are 200/100/25 and 4 is the default weight 100."""
    return 25 * group_weight(ioprio)


def be_slice_ms(level, base=SLICE_SYNC_MS):
    """CFQ's best-effort slice length for a task priority level."""
    if not 0 <= level < IOPRIO_LEVELS:
        raise ValueError(f'level {level} out of 0..7')
    return base + base // SLICE_SCALE * (4 - level)


def percentages(values):
    """Each value as a percentage of their sum (zeros if the sum is 0)."""
    total = float(sum(values))
    if total <= 0:
        return [0.0 for _ in values]
    return [100.0 * v / total for v in values]


def error_points(shares, targets):
    """Largest absolute difference, in percentage points."""
    if len(shares) != len(targets):
        raise ValueError('shares and targets differ in length')
    return max(abs(s - t) for s, t in zip(shares, targets))


def mean(values):
    values = list(values)
    return sum(values) / len(values) if values else 0.0


def tree_shares(nodes):
    """Target shares (%) of a tree of groups, as io.weight defines them:
    at every level, each busy entity gets its weight over the busy
    entities' weights, a group's own tasks counting as one more entity
    of the group's weight beside its children.  nodes: {path: (weight,
    has own tasks)}, paths like "A/A1".  Returns {path: share} for the
    groups with tasks."""
    children = {}
    for path in nodes:
        children.setdefault(path.rpartition('/')[0], []).append(path)

    def busy(path):
        return nodes[path][1] or any(busy(c) for c in children.get(path, ()))

    out = {}

    def share(parent, amount):
        ents = [(c, nodes[c][0], False) for c in children.get(parent, ())
                if busy(c)]
        if parent and nodes[parent][1]:
            ents.append((parent, nodes[parent][0], True))
        total = sum(w for _, w, _ in ents)
        for path, w, own in ents:
            if own:
                out[path] = amount * w / total
            else:
                share(path, amount * w / total)

    share('', 100.0)
    return out
