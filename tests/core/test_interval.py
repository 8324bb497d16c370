"""Interval arithmetic over printed numbers, against hand-computed values."""

import math

import pytest

from claimcheck.interval import Interval, decimals_of, half_unit


def test_printed_intervals():
    assert Interval.printed("99.16") == Interval(99.155, 99.165)
    i = Interval.printed("0.10")
    assert math.isclose(i.lo, 0.095) and math.isclose(i.hi, 0.105)
    i = Interval.printed("5947")
    assert (i.lo, i.hi) == (5946.5, 5947.5)
    i = Interval.printed("5.8e-6")
    assert math.isclose(i.lo, 5.75e-6) and math.isclose(i.hi, 5.85e-6)
    assert decimals_of("0.086") == 3 and decimals_of("512") == 0
    assert str(half_unit("8.62")) == "0.005"


def test_bad_printed_numbers():
    for text in ("abc", "", "nan", "inf"):
        with pytest.raises(ValueError):
            Interval.printed(text)


def test_arithmetic():
    a, b = Interval(1, 2), Interval(3, 4)
    assert a + b == Interval(4, 6)
    assert b - a == Interval(1, 3)
    assert a * b == Interval(3, 8)
    assert Interval(-1, 2) * Interval(3, 4) == Interval(-4, 8)
    assert b / a == Interval(1.5, 4)
    assert 1 / Interval(2, 4) == Interval(0.25, 0.5)
    with pytest.raises(ZeroDivisionError):
        a / Interval(-1, 1)


def test_chapter_ratio_by_hand():
    # 5947 / 98 with printed precision: [5946.5/98.5, 5947.5/97.5] = [60.371, 60.999]
    r = Interval.printed("5947") / Interval.printed("98")
    assert math.isclose(r.lo, 5946.5 / 98.5) and math.isclose(r.hi, 5947.5 / 97.5)
    assert r.overlaps(Interval.printed("60.6"))
    assert not r.overlaps(Interval.printed("58"))


def test_division_by_an_interval_with_zero_at_an_end_is_refused():
    for divisor in (Interval(0, 2), Interval(-2, 0), Interval(0, 0)):
        with pytest.raises(ZeroDivisionError, match="division by an interval containing 0"):
            Interval(1, 1) / divisor


def test_contains_is_closed_with_a_relative_slack_and_rsub():
    i = Interval(1.0, 2.0)
    assert i.contains(1.0) and i.contains(2.0) and i.contains(1.5)
    assert i.contains(2.0 + 1e-12) and not i.contains(2.0 + 1e-9) and not i.contains(1.0 - 1e-9)
    assert Interval(1000.0, 2000.0).contains(2000.0 + 1e-10)  # the slack is relative to the ends
    assert not Interval(1000.0, 2000.0).contains(2000.0 + 1e-8)
    assert Interval(0.0, 0.0).contains(1e-12) and not Interval(0.0, 0.0).contains(1e-11)
    assert i.contains(2.5, slack=0.25) and not i.contains(2.6, slack=0.25)
    assert 5 - i == Interval(3.0, 4.0)
