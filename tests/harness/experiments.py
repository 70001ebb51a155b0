# SPDX-License-Identifier: GPL-2.0
"""Experiment definitions: load tests/experiments/*.toml into cases.

One file per experiment.  Top-level keys: title, profiles, groups (the
cfq.ioprio of each group), partitions (one partition per group instead of
one region of a shared disk), [[cases]].  A case has a name, optional
groups override, and its tasks either as `each` (the same task list in
every group) or `tasks` (one list per group).  A task is
{n, rw, bs="4k", class, level, direct=true}: n fio processes.
`by` is "group" (default: shares of the groups, target from weights 8 - p)
or "task" (shares of the task entries, target from CFQ's slice ratio).
`quick = true` puts the case in the CI set.  `extra_groups = N` makes N
more groups, each of which reads once from the device before the
measurement and is idle during it (the cost of many groups).  `count = "total"` counts
fio's totals instead of per-I/O logs (for CPU-bound runs, where the logs
would cost more than what is measured).
"""
import glob
import os
import re
import tomllib
from dataclasses import dataclass, field

from harness import shares

EXP_DIR = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), 'experiments')

TASK_DEFAULTS = {'bs': '4k', 'class': None, 'level': None, 'direct': True,
                 'pin': False, 'ionice': None, 'think_us': 0}
RW = {'read', 'write', 'randread', 'randwrite', 'rw', 'randrw'}
CLASSES = {'rt', 'be', 'idle'}
IONICE = re.compile(r'-c[123]( -n[0-7])?')
# Milliseconds fio takes to start a worker under TCG (Case.startup_allowance).
STARTUP_MS_PER_PROC = 40


@dataclass
class Task:
    n: int
    rw: str
    bs: str = '4k'
    ioclass: str = None
    level: int = None
    direct: bool = True
    # Each of the n processes on a vCPU of its own: process i on vCPU i.
    pin: bool = False
    # ionice arguments the group's fio runs under (e.g. "-c3"): the
    # task's own I/O priority, as a user sets it, not fio's prioclass.
    ionice: str = None
    # Microseconds each process waits after each I/O (fio's thinktime).
    think_us: int = 0

    def label(self):
        prio = ''
        if self.ioclass:
            prio = f' {self.ioclass}{"" if self.level is None else self.level}'
        return f'{self.n}x{self.rw}{prio}'


@dataclass
class Group:
    name: str
    ioprio: int
    tasks: list = field(default_factory=list)
    # Where the group sits ("A/A1"; its name when flat) and its weight
    # when given as one (cfq.weight, io.bfq.weight) rather than as a
    # cfq.ioprio.
    path: str = None
    weight: int = None

    def __post_init__(self):
        if self.path is None:
            self.path = self.name

    def label(self):
        if self.weight is not None:
            return f'{self.path} w{self.weight}'
        return f'{self.name} p{self.ioprio}'


@dataclass
class Node:
    """A group of a tree case that has no tasks of its own: a parent of
    others, or an idle leaf."""
    path: str
    weight: int


def group_ionice(group):
    """The ionice arguments a group's fio runs under, or None.  One fio
    runs per group, so its tasks must agree."""
    values = {t.ionice for t in group.tasks}
    if len(values) > 1:
        raise ValueError(f'{group.name}: tasks differ in ionice')
    return values.pop()


def group_is_idle_class(group):
    """Every task of the group is of the IDLE class."""
    return all(t.ioclass == 'idle' or (t.ionice or '').startswith('-c3')
               for t in group.tasks)


@dataclass
class Case:
    exp: str
    name: str
    title: str
    profiles: list
    groups: list
    by: str = 'group'
    partitions: bool = False
    quick: bool = False
    target: list = None
    count: str = 'log'
    # Groups made beside the case's, each having done one read on the
    # device (so each has scheduler state there), idle while measured.
    extra_groups: int = 0
    # Tree cases: the groups without tasks (Node), parents first.
    inner: list = field(default_factory=list)
    # Per share unit, the case of the same experiment that runs that
    # unit's load alone (None: the case has no ceiling).  Under `none`,
    # those cases and this one give the split's ceiling: see
    # harness.report.ceiling().
    alone: list = None
    # Only these peers can run the case (None: all).
    peers: list = None
    # Latency isolation: the case of the same experiment that runs the
    # first unit's load alone; the report sets the unit's rate and p99
    # here against there, under the same peer (report.isolation()).
    isolate: str = None

    def nodes(self):
        """Every group of the case, parents before children: (path,
        weight or None, ioprio or None, has tasks)."""
        out = [(n.path, n.weight, None, False) for n in self.inner]
        out += [(g.path, g.weight, g.ioprio, True) for g in self.groups]
        return sorted(out, key=lambda n: n[0].count('/'))

    def has_children(self, path):
        return any(p.startswith(path + '/') for p, *_ in self.nodes())

    @property
    def key(self):
        return f'{self.exp}/{self.name}'

    def units(self):
        """(label, group index, task index or None) per share unit."""
        if self.by == 'group':
            return [(g.label(), i, None) for i, g in enumerate(self.groups)]
        return [(f'{g.name}/{t.label()}', i, j)
                for i, g in enumerate(self.groups)
                for j, t in enumerate(g.tasks)]

    def nprocs(self):
        return sum(t.n for g in self.groups for t in g.tasks)

    def startup_allowance(self):
        """Seconds fio's workers get to start (on top of the runtime,
        where the runtime counts from fio's start; guest/bench.py waits
        this long for them at its start gate):
        under TCG, 300 workers took 5 s to exist on the depth-1 disk, and
        more than 7.5 s on d32, where the first workers' I/O keeps both
        vCPUs busy while fio forks the rest (see also the profiles'
        fork_first, guest/bench.py)."""
        return 1 + self.nprocs() * STARTUP_MS_PER_PROC // 1000

    def needs(self):
        """The cases of the experiment the report compares this one with
        (alone, isolate): measured in the same boot."""
        return list(self.alone or []) + ([self.isolate] if self.isolate
                                         else [])


def _task(spec, scale):
    bad = set(spec) - {'n', 'rw'} - set(TASK_DEFAULTS)
    if bad:
        raise ValueError(f'unknown task keys {sorted(bad)}')
    t = dict(TASK_DEFAULTS, **spec)
    if t['rw'] not in RW:
        raise ValueError(f'bad rw {t["rw"]!r}')
    if t['class'] is not None and t['class'] not in CLASSES:
        raise ValueError(f'bad class {t["class"]!r}')
    if t['ionice'] is not None and not IONICE.fullmatch(t['ionice']):
        raise ValueError(f'bad ionice {t["ionice"]!r} (-cC or -cC -nN)')
    n = max(1, round(int(t['n']) * scale))
    return Task(n, t['rw'], t['bs'], t['class'], t['level'], t['direct'],
                bool(t['pin']), t['ionice'], int(t['think_us']))


def default_target(case):
    """Target shares in percent for a case without an explicit one."""
    if case.inner or any('/' in g.path for g in case.groups):
        got = shares.tree_shares({p: (w, own) for p, w, _, own
                                  in case.nodes()})
        return [got[g.path] for g in case.groups]
    if case.by == 'group':
        return shares.percentages(
            [shares.group_weight(g.ioprio) for g in case.groups])
    weights = []
    for g in case.groups:
        for t in g.tasks:
            if t.ioclass not in (None, 'be'):
                raise ValueError(f'{case.key}: by=task needs be tasks '
                                 'or an explicit target')
            level = 4 if t.level is None else t.level
            weights.append(shares.be_slice_ms(level) * t.n)
    return shares.percentages(weights)


def _flat(c, doc, key, scale):
    """Groups side by side, each given by its cfq.ioprio."""
    prios = c.get('groups', doc.get('groups'))
    per_group = [c['each']] * len(prios) if 'each' in c else c['tasks']
    if len(per_group) != len(prios):
        raise ValueError(f'{key}: {len(prios)} groups but '
                         f'{len(per_group)} task lists')
    return [Group(f'g{i + 1}', p, [_task(t, scale) for t in ts])
            for i, (p, ts) in enumerate(zip(prios, per_group))]


def _tree(c, key, scale):
    """A tree of groups: {path, weight, tasks?} each, parents before
    children; those with tasks are the units, the others inner Nodes."""
    groups, inner, seen = [], [], set()
    for spec in c['tree']:
        bad = set(spec) - {'path', 'weight', 'tasks'}
        if bad:
            raise ValueError(f'{key}: unknown tree keys {sorted(bad)}')
        path, weight = spec['path'], int(spec['weight'])
        parent = path.rpartition('/')[0]
        if parent and parent not in seen:
            raise ValueError(f'{key}: {path} before its parent')
        if not 1 <= weight <= 1000:
            raise ValueError(f'{key}: {path}: weight {weight} not in '
                             '1..1000 (io.bfq.weight\'s range)')
        seen.add(path)
        if spec.get('tasks'):
            groups.append(Group(f'g{len(groups) + 1}', None,
                                [_task(t, scale) for t in spec['tasks']],
                                path, weight))
        else:
            inner.append(Node(path, weight))
    return groups, inner


def load_file(path, scale=1.0):
    with open(path, 'rb') as f:
        doc = tomllib.load(f)
    exp = os.path.splitext(os.path.basename(path))[0]
    cases = []
    for c in doc['cases']:
        if 'tree' in c:
            groups, inner = _tree(c, f'{exp}/{c["name"]}', scale)
        else:
            groups, inner = _flat(c, doc, f'{exp}/{c["name"]}', scale), []
        case = Case(exp=exp, name=c['name'], title=doc['title'],
                    profiles=list(c.get('profiles', doc['profiles'])),
                    groups=groups, by=c.get('by', 'group'),
                    partitions=doc.get('partitions', False),
                    quick=c.get('quick', False), target=c.get('target'),
                    count=doc.get('count', 'log'),
                    extra_groups=int(c.get('extra_groups', 0)),
                    inner=inner, peers=c.get('peers'),
                    alone=c.get('alone'), isolate=c.get('isolate'))
        if case.count not in ('log', 'total'):
            raise ValueError(f'{case.key}: count must be log or total')
        if case.by not in ('group', 'task'):
            raise ValueError(f'{case.key}: by must be group or task')
        if case.target is None:
            case.target = default_target(case)
        if len(case.target) != len(case.units()):
            raise ValueError(f'{case.key}: target has {len(case.target)} '
                             f'values for {len(case.units())} units')
        if case.alone is not None and \
                len(case.alone) != len(case.units()):
            raise ValueError(f'{case.key}: alone names {len(case.alone)} '
                             f'cases for {len(case.units())} units')
        cases.append(case)
    names = {c.name for c in cases}
    for c in cases:
        for a in c.needs():
            if a not in names:
                raise ValueError(f'{c.key}: case {a} is not in {exp}')
    return cases


def load_all(names=None, scale=1.0, quick=False, case_names=None):
    """Cases of the named experiments (all when None), in file order.
    An experiment name matches its file name with or without the
    number prefix ("1-rfc-test1" or "rfc-test1"); with case_names, only
    the cases of those names."""
    cases = []
    for path in sorted(glob.glob(os.path.join(EXP_DIR, '[0-9]*.toml'))):
        exp = os.path.splitext(os.path.basename(path))[0]
        if names and exp not in names and exp.split('-', 1)[1] not in names:
            continue
        mine = load_file(path, scale)
        picked = [c for c in mine if (c.quick or not quick) and
                  (not case_names or c.name in case_names)]
        # A picked case's ceiling needs its alone cases in the same boot
        # (not in the quick set, which keeps to its own cases).
        need = {a for c in picked for a in c.needs()} if not quick \
            else set()
        ids = {id(c) for c in picked}
        cases += [c for c in mine if id(c) in ids or c.name in need]
    return cases


def default_peers(peers):
    """The peers measured unless others are named: all but ablations and
    those marked on_request."""
    return [p for p in peers if not peers[p].get('ablation') and
            not peers[p].get('on_request')]


def peer_order(peers, run):
    """The order the peers are measured in on run number @run (from 1):
    as given on odd runs, reversed on even ones.  Throughput under TCG
    drifts through a boot (a CPU-bound peer measured 67k IOPS at the
    start of one boot and 126k at its end), so a fixed order would favour
    whichever peer comes last; alternating cancels a steady drift over
    an even number of runs."""
    return list(peers) if run % 2 else list(reversed(peers))


def load_toml(name):
    with open(os.path.join(EXP_DIR, name), 'rb') as f:
        return tomllib.load(f)
