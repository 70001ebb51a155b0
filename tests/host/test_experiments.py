# SPDX-License-Identifier: GPL-2.0
import pytest

from harness import experiments, fio


def test_all_six_seed_experiments_load():
    cases = experiments.load_all()
    exps = sorted({c.exp for c in cases})
    assert exps == ['1-rfc-test1', '10-hdd-throughput', '2-rfc-test2',
                    '3-procs', '4-dd', '5-partitions', '6-dm-ioband',
                    '7-cpu-cost', '8-hierarchy', '9-isolation']
    profiles = experiments.load_toml('profiles.toml')
    for c in cases:
        assert c.profiles and all(p in profiles for p in c.profiles)
        assert abs(sum(c.target) - 100) < 1e-6


def test_targets():
    by_key = {c.key: c for c in experiments.load_all()}
    rnd = lambda xs: [round(x, 1) for x in xs]  # noqa: E731
    assert rnd(by_key['1-rfc-test1/read'].target) == [61.5, 30.8, 7.7]
    assert rnd(by_key['6-dm-ioband/50-100-200'].target) == [57.1, 28.6, 14.3]
    assert rnd(by_key['4-dd/same-group-prio-0-vs-7'].target) == [81.8, 18.2]
    assert rnd(by_key['4-dd/gprio-7-vs-0-task-0-vs-7'].target) == [11.1, 88.9]
    assert by_key['6-dm-ioband/50-100-200'].nprocs() == 350


def test_scale_keeps_proportions():
    full = {c.key: c for c in experiments.load_all(['dm-ioband'])}
    half = {c.key: c for c in experiments.load_all(['dm-ioband'], 0.2)}
    k = '6-dm-ioband/50-100-200'
    assert [g.tasks[0].n for g in half[k].groups] == [10, 20, 40]
    assert full[k].target == half[k].target


def test_quick_set():
    quick = experiments.load_all(quick=True)
    assert quick and all(c.quick for c in quick)
    assert {c.exp for c in quick} == {'1-rfc-test1', '4-dd', '7-cpu-cost',
                                      '8-hierarchy'}
    assert {c.count for c in quick} == {'log', 'total'}


def test_case_filter():
    picked = experiments.load_all(['dd', 'dm-ioband'], case_names=[
        'same-group-same-prio', '50-100-200'])
    # one-reader comes along: the pair's ceiling is measured from it.
    assert [c.key for c in picked] == ['4-dd/same-group-same-prio',
                                       '4-dd/one-reader',
                                       '6-dm-ioband/50-100-200']
    assert experiments.load_all(['dd'], case_names=['no-such-case']) == []


def test_peer_order_alternates():
    peers = ['none', 'mq-deadline', 'cfq']
    assert experiments.peer_order(peers, 1) == peers
    assert experiments.peer_order(peers, 2) == ['cfq', 'mq-deadline', 'none']
    assert experiments.peer_order(peers, 3) == peers
    # Over two runs every peer has the same mean position.
    pos = {p: 0 for p in peers}
    for run in (1, 2):
        for i, p in enumerate(experiments.peer_order(peers, run)):
            pos[p] += i
    assert len(set(pos.values())) == 1


def test_bad_definitions_are_rejected(tmp_path):
    bad = tmp_path / '9-bad.toml'
    bad.write_text('title = "x"\nprofiles = ["d1-rot"]\ngroups = [0, 4]\n'
                   '[[cases]]\nname = "c"\neach = [{ n = 1, rw = "sideways" }]\n')
    with pytest.raises(ValueError, match='bad rw'):
        experiments.load_file(str(bad))
    bad.write_text('title = "x"\nprofiles = ["d1-rot"]\ngroups = [0, 4]\n'
                   '[[cases]]\nname = "c"\ntasks = [[{ n = 1, rw = "read" }]]\n')
    with pytest.raises(ValueError, match='2 groups but 1 task lists'):
        experiments.load_file(str(bad))


def test_pinned_readers_get_a_vcpu_each():
    """`pin = true`: fio places process i of the entry on vCPU i."""
    from guest import bench as guest_bench
    case = {c.key: c for c in experiments.load_all(['cpu-cost'])}[
        '7-cpu-cost/2-readers-pinned']
    assert case.groups[0].tasks[0].pin
    job = guest_bench.fio_jobfile(case, 0, '/dev/x', 0, 1 << 30, 5, '/tmp')
    assert 'cpus_allowed=0-1' in job.splitlines()
    assert 'cpus_allowed_policy=split' in job.splitlines()
    plain = {c.key: c for c in experiments.load_all(['cpu-cost'])}[
        '7-cpu-cost/2-readers']
    assert 'cpus_allowed' not in guest_bench.fio_jobfile(
        plain, 0, '/dev/x', 0, 1 << 30, 5, '/tmp')


def test_bench_pin_spreads_every_task(monkeypatch):
    """bench.py --pin: a one-task entry gets a vCPU by its group, a
    many-task entry splits over all; an entry's own pin comes first."""
    from guest import bench as guest_bench
    monkeypatch.setattr(guest_bench, 'PIN_CPUS', 2)
    dd = {c.key: c for c in experiments.load_all(['dd'])}
    cpus = [[ln for ln in guest_bench.fio_jobfile(
        case, gi, '/dev/x', 0, 1 << 30, 5, '/tmp').splitlines()
        if ln.startswith('cpus_allowed')]
        for case in (dd['4-dd/two-groups-same-gprio'],
                     dd['4-dd/same-group-prio-0-vs-7'])
        for gi in range(len(case.groups))]
    assert cpus == [['cpus_allowed=0'], ['cpus_allowed=1'],
                    ['cpus_allowed=0', 'cpus_allowed=1']]
    rfc = {c.key: c for c in experiments.load_all(['rfc-test1'])}
    job = guest_bench.fio_jobfile(rfc['1-rfc-test1/read'], 0, '/dev/x', 0,
                                  1 << 30, 5, '/tmp').splitlines()
    assert 'cpus_allowed=0-1' in job
    assert 'cpus_allowed_policy=split' in job
    pinned = {c.key: c for c in experiments.load_all(['cpu-cost'])}[
        '7-cpu-cost/2-readers-pinned']
    monkeypatch.setattr(guest_bench, 'PIN_CPUS', 8)
    assert 'cpus_allowed=0-1' in guest_bench.fio_jobfile(
        pinned, 0, '/dev/x', 0, 1 << 30, 5, '/tmp').splitlines()


def test_tree_targets_follow_io_weight():
    by_key = {c.key: c for c in experiments.load_all(['hierarchy'])}
    rnd = lambda xs: [round(x, 1) for x in xs]  # noqa: E731
    assert rnd(by_key['8-hierarchy/two-levels'].target) == [16.7, 50.0, 33.3]
    assert rnd(by_key['8-hierarchy/two-levels-a2-idle'].target) == \
        [66.7, 33.3]
    assert rnd(by_key['8-hierarchy/three-levels'].target) == \
        [2.1, 6.2, 16.7, 56.2, 18.8]
    v1 = by_key['8-hierarchy/v1-tasks-beside-children']
    assert rnd(v1.target) == [25.0, 25.0, 50.0]
    assert v1.peers == ['none', 'cfq']
    # Parents come before children; the idle leaf is a node too.
    nodes = by_key['8-hierarchy/two-levels-a2-idle'].nodes()
    assert [n[0] for n in nodes] == ['A', 'B', 'A/A2', 'A/A1']
    assert by_key['8-hierarchy/two-levels'].has_children('A')


def test_tree_parents_come_first(tmp_path):
    bad = tmp_path / '9-bad.toml'
    bad.write_text('title = "x"\nprofiles = ["d1-rot"]\n[[cases]]\n'
                   'name = "c"\ntree = [{ path = "A/B", weight = 100, '
                   'tasks = [{ n = 1, rw = "read" }] }]\n')
    with pytest.raises(ValueError, match='before its parent'):
        experiments.load_file(str(bad))


def test_start_gate_holds_every_worker(tmp_path):
    """StartGate: fio's workers, of every job file, do no I/O until the
    gate opens; their runtime counts from then (real fio, a small file)."""
    import shutil
    import subprocess
    import time
    from guest import bench as guest_bench
    if not shutil.which('fio'):
        pytest.fail('fio is not installed (scripts/deps.sh installs it)')
    rfc = {c.key: c for c in experiments.load_all(['rfc-test1'])}
    case = rfc['1-rfc-test1/read']
    data = tmp_path / 'data'
    data.write_bytes(b'\0' * (1 << 20))
    gate = guest_bench.StartGate(str(tmp_path / 'gate'))
    procs = []
    want = 2 * case.nprocs() // len(case.groups)
    try:
        for gi in range(2):
            job = guest_bench.fio_jobfile(case, gi, str(data), 0, 1 << 20,
                                          1.2, str(tmp_path), gate=gate)
            assert 'runtime=1200ms' in job.splitlines()
            assert not any(';' in ln or '#' in ln for ln in job.splitlines()
                           if ln.startswith('exec_prerun='))
            path = tmp_path / f'g{gi}.fio'
            path.write_text(job.replace('direct=1', 'direct=0'))
            procs.append(subprocess.Popen(
                ['fio', '--output-format=json', str(path)], cwd=tmp_path,
                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
        deadline = time.monotonic() + 60
        while gate.waiting() < want and time.monotonic() < deadline:
            time.sleep(0.05)
        assert gate.waiting() == want
        time.sleep(1.5)		# longer than the jobs' runtime
        assert all(p.poll() is None for p in procs)
        go = time.monotonic()
        gate.open(want)
        for p in procs:
            out, _ = p.communicate(timeout=60)
            assert p.returncode == 0
            assert fio.parse_json(out.decode())['jobs']
        assert time.monotonic() - go >= 1.1
    finally:
        gate.open(want)
        for p in procs:
            p.kill()
            p.wait()
        gate.close()
