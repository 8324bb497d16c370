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


def test_overlaps_slack_is_relative_to_the_largest_end_of_either():
    near = 1.0 + 1e-7
    assert Interval(-1e6, 1.0).overlaps(Interval(near, near))  # slack 1e-6 from self's low end
    assert Interval(-1.0, 1e6).overlaps(Interval(-near, -near))  # from self's high end
    assert Interval(near, near).overlaps(Interval(-1e6, 1.0))  # from the other's low end
    assert Interval(-near, -near).overlaps(Interval(-1.0, 1e6))  # from the other's high end
    assert not Interval(-1.0, 1.0).overlaps(Interval(near, near))
    # below magnitude 1 the slack is 1e-12 itself
    assert Interval(0.0, 0.1).overlaps(Interval(0.1 + 5e-13, 0.1 + 5e-13))
    assert not Interval(0.0, 0.1).overlaps(Interval(0.1 + 1.5e-12, 0.1 + 1.5e-12))
    assert Interval(0.1 + 5e-13, 0.1 + 5e-13).overlaps(Interval(0.0, 0.1))
    # exact ends on both sides: no slack; one float end: the float's slack
    one = Interval.exact_decimal("1")
    assert not one.overlaps(Interval.exact_decimal("1.0000000000001"))
    assert one.overlaps(Interval(1.0 + 5e-13, 1.0 + 5e-13))
    assert Interval(1, 2).is_exact and not Interval(1.0, 2.0).is_exact and not Interval(True, True).is_exact


def test_printed_decimals_and_exact_values_in_and_out():
    from decimal import Decimal
    from fractions import Fraction

    from claimcheck.interval import exact_value, parse_decimal

    assert parse_decimal(" 36,864 ") == Decimal("36864") and parse_decimal("1_000") == Decimal("1000")
    with pytest.raises(ValueError, match=r"^not a printed decimal number: 'abc'$"):
        parse_decimal("abc")
    with pytest.raises(ValueError, match=r"^not a finite number: 'inf'$"):
        parse_decimal("inf")
    assert exact_value(Decimal("1.5")) == Fraction(3, 2) and exact_value("36,864") == 36864
    for bad in (float("inf"), float("nan"), Decimal("NaN"), Decimal("Infinity")):
        with pytest.raises(ValueError, match="^not a finite number: "):
            exact_value(bad)
    assert Interval.exact("36,864") == Interval(36864.0, 36864.0) and Interval.exact(2) == Interval(2.0, 2.0)


def test_contains_slack_from_either_end_and_closed_below():
    assert Interval(-1e6, 1.0).contains(1.0 + 1e-7)  # the slack of the low end's magnitude
    assert not Interval(0.0, 0.1).contains(0.1 + 1.5e-12)
    assert Interval(0.0, 1.0).contains(-1e-12)  # on the slack's edge: inside
    with pytest.raises(ValueError, match=r"^empty interval \[2, 1\]$"):
        Interval(2, 1)
