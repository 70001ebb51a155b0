# SPDX-License-Identifier: GPL-2.0
import importlib.util
import os

_spec = importlib.util.spec_from_file_location(
    'gaps', os.path.join(os.path.dirname(__file__), '..', 'tools', 'gaps.py'))
gaps = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gaps)


def test_gap_is_completion_to_next_dispatch():
    lines = ['D 1.000000', 'C 1.001000', 'D 1.001300',   # gap 300 us
             'm cfq message', 'C 1.002300',
             'D 1.003300', 'C 1.004300']                  # gap 1000 us
    gap, svc, nd = gaps.gaps(lines)
    assert nd == 3
    assert [round(g * 1e6) for g in gap] == [300, 1000]
    assert [round(s * 1e6) for s in svc] == [1000, 1000, 1000]


def test_dispatch_before_completion_is_not_a_gap():
    # depth > 1: a dispatch while a request is in flight has no gap
    gap, _, nd = gaps.gaps(['D 1.0', 'D 1.1', 'C 1.5', 'C 1.6', 'D 1.8'])
    assert nd == 3 and [round(g, 3) for g in gap] == [0.2]
