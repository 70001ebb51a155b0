# SPDX-License-Identifier: GPL-2.0
import pytest

from harness import shares


def test_group_weights_are_8_minus_p():
    assert [shares.group_weight(p) for p in range(8)] == list(range(8, 0, -1))
    for bad in (-1, 8):
        with pytest.raises(ValueError):
            shares.group_weight(bad)


def test_rfc_estimate():
    # The RFC's own estimate for prio 0/4/7: 61.5/30.8/7.7.
    t = shares.percentages([shares.group_weight(p) for p in (0, 4, 7)])
    assert [round(x, 1) for x in t] == [61.5, 30.8, 7.7]
    # dm-ioband's 40:20:10 as prio 0/4/6.
    t = shares.percentages([shares.group_weight(p) for p in (0, 4, 6)])
    assert [round(x, 1) for x in t] == [57.1, 28.6, 14.3]


def test_bfq_weights():
    assert [shares.bfq_weight(p) for p in (0, 4, 7)] == [800, 400, 100]


def test_be_slices():
    assert [shares.be_slice_ms(level) for level in (0, 4, 7)] == [180, 100, 40]


def test_error_points():
    assert shares.error_points([60, 30, 10], [61.5, 30.8, 7.7]) == \
        pytest.approx(2.3)
    # A harness that always reports the target would be caught here.
    assert shares.error_points([33.3, 33.3, 33.4], [61.5, 30.8, 7.7]) > 25
    with pytest.raises(ValueError):
        shares.error_points([50, 50], [61.5, 30.8, 7.7])


def test_percentages_of_nothing():
    assert shares.percentages([0, 0]) == [0.0, 0.0]
