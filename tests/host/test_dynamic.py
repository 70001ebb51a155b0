# SPDX-License-Identifier: GPL-2.0
"""The fairness-over-time arithmetic (harness/dynamic.py) on made-up runs:
the timeline, the targets, the bars."""
import pytest

from harness import dynamic

BINS_PER_S = 1000 // dynamic.BIN_MS


def run(groups, log, rates, duration, profile='d1-rot', onoff=None):
    """A run whose group g completes rates(g, t) I/Os in the 10 ms bin
    starting at t (s)."""
    nb = int(duration * BINS_PER_S)
    bins = [[rates(gi, b / BINS_PER_S) for b in range(nb)]
            for gi in range(len(groups))]
    return {'exp': 'dynamic', 'case': 'x', 'profile': profile,
            'peer': 'cfq', 'run': 1, 'duration_s': duration, 'log': log,
            'bins': bins, 'onoff': onoff,
            'groups': [dict({'name': f'g{i + 1}', 'ioprio': 4,
                             'idle': False, 'start_at': 0}, **g)
                       for i, g in enumerate(groups)]}


def late_joiner(rates):
    return run([{}, {'start_at': 30}],
               [{'t': 31.2, 'group': 1, 'do': 'start'}], rates, 54)


def test_segments_follow_the_log():
    r = run([{'ioprio': 0}, {'ioprio': 7}, {'start_at': 5}],
            [{'t': 5.5, 'group': 2, 'do': 'start'},
             {'t': 8, 'group': 0, 'do': 'pause'},
             {'t': 9, 'group': 0, 'do': 'resume'},
             {'t': 9, 'group': 1, 'do': 'ioprio', 'ioprio': 4}],
            lambda g, t: 1, 12)
    segs = dynamic.segments(r)
    assert [(a, b) for a, b, _, _ in segs] == [(0, 5.5), (5.5, 8), (8, 9),
                                               (9, 12)]
    assert [bl for _, _, bl, _ in segs] == [
        [True, True, False], [True, True, True], [False, True, True],
        [True, True, True]]
    assert segs[0][3] == [8, 1, 4] and segs[-1][3] == [8, 4, 4]


def test_targets_leave_idle_class_groups_out_while_others_run():
    assert dynamic.targets([True, True], [8, 4], [False, False]) == \
        pytest.approx([66.67, 33.33], abs=0.01)
    assert dynamic.targets([True, True, True], [4, 4, 4],
                           [False, True, False]) == [50.0, 0.0, 50.0]
    assert dynamic.targets([False, True, False], [4, 4, 4],
                           [False, True, False]) == [0.0, 100.0, 0.0]


def test_a_fair_late_joiner_meets_every_bar():
    r = late_joiner(lambda g, t: 1 if g == 0 and t < 31.2 or t >= 31.2
                    else 0)
    j = dynamic.judge(r)
    assert j['err_1s'] == pytest.approx(0.0, abs=0.01)
    assert j['err_10s'] == pytest.approx(0.0, abs=0.01)
    assert max(j['gap_s']) == pytest.approx(0.0)
    assert dynamic.verdict(r, j) == []
    # 31.2 s alone, then 22.8 s for both: one per-second window per second
    # after the first of each stretch.
    assert j['n_1s'] == 30 + 21


def test_a_starved_old_group_fails_the_bars():
    """The defect of issue 15: the newcomer takes the whole device."""
    r = late_joiner(lambda g, t: 1 if (g == 0) == (t < 31.2) else 0)
    j = dynamic.judge(r)
    assert j['err_1s'] == pytest.approx(50.0)
    assert j['gap_s'][0] == pytest.approx(22.8)
    bad = dynamic.verdict(r, j)
    assert len(bad) == 3 and 'waited 22.80 s' in bad[2]


def test_explain_lists_the_judged_seconds():
    """A failed test's message shows each judged second's shares."""
    r = run([{'ioprio': 0}, {}],
            [{'t': 3, 'group': 0, 'do': 'ioprio', 'ioprio': 0},
             {'t': 3, 'group': 1, 'do': 'ioprio', 'ioprio': 7}],
            lambda g, t: 2 if g == 0 else 1, 6)
    assert dynamic.explain(r).split('\n') == [
        '0.0-3.0 s, target 67/33: 67/33 67/33',
        '3.0-6.0 s, target 89/11: 67/33 67/33']


def test_the_gap_bar_holds_on_d1_rot_only():
    r = late_joiner(lambda g, t: 1 if (g == 0 and t < 31.2) or
                    (t >= 31.2 and int(t * 10) % 30 < 15) else 0)
    j = dynamic.judge(r)
    assert j['gap_s'] == pytest.approx([1.5, 1.5])
    assert any('waited' in b for b in dynamic.verdict(r, j))
    r['profile'] = 'd8'
    assert not any('waited' in b for b in dynamic.verdict(r, j))


def test_bursts_are_judged_over_their_sum():
    log = []
    for k in range(10):
        log += [{'t': k + 0.2, 'group': 1, 'do': 'pause'},
                {'t': k + 1.0, 'group': 1, 'do': 'resume'}]
    log.pop()
    # During bursts the burst group gets a third of the device.
    r = run([{}, {}], log,
            lambda g, t: (2 if g == 0 else 1) if t % 1 < 0.2 else
            (1 if g == 0 else 0), 10, onoff={'group': 1, 'on': 0.2,
                                             'off': 0.8})
    j = dynamic.judge(r)
    assert j['burst_share'] == pytest.approx(100 / 3)
    assert j['burst_target'] == 50.0
    assert j['n_1s'] == 0		# no stretch is long enough
    assert any('bursts served at 33.3' in b for b in dynamic.verdict(r, j))


def test_load_halves_times_for_quick_runs():
    full = {c.name: c for c in dynamic.load()}
    quick = {c.name: c for c in dynamic.load(quick=True)}
    assert set(quick) <= set(full)
    lj = 'late-joiner-4-4'
    assert full[lj].duration == 2 * quick[lj].duration
    assert full[lj].start_at(1) == 2 * quick[lj].start_at(1) == 30
    assert full['on-off'].onoff == quick['on-off'].onoff
    assert full['ionice-c3-task'].groups[1].tasks[0].ionice == '-c3'


def test_load_rejects_bad_events(tmp_path):
    bad = tmp_path / 'bad.toml'
    bad.write_text('title = "t"\nprofiles = ["d1-rot"]\n[[cases]]\n'
                   'name = "c"\ngroups = [4]\nduration = 5\n'
                   'each = [{ n = 1, rw = "read" }]\n'
                   'events = [{ at = 1, group = 3, do = "pause" }]\n')
    with pytest.raises(ValueError, match='group 3'):
        dynamic.load(path=str(bad))
    bad.write_text(bad.read_text().replace('group = 3, do = "pause"',
                                           'group = 0, do = "ioprio"'))
    with pytest.raises(ValueError, match='ioprio'):
        dynamic.load(path=str(bad))
