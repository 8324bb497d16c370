"""Each tolerance kind against hand-computed values."""

import math

import pytest

from claimcheck.interval import Interval
from claimcheck.tolerance import (
    Absolute,
    AtLeast,
    AtMost,
    Exact,
    Printed,
    Range,
    Relative,
    ToleranceError,
    parse_tolerance,
)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("printed", Printed()),
        ("exact", Exact()),
        ("abs:1e-4", Absolute(1e-4)),
        ("rel:5%", Relative(0.05)),
        ("rel:0.05", Relative(0.05)),
        (">=10", AtLeast(10.0)),
        ("<=1e-5", AtMost(1e-5)),
        ("range:0.98..1.02", Range(0.98, 1.02)),
        ("  >= 10 ", AtLeast(10.0)),
    ],
)
def test_parse(text, expected):
    assert parse_tolerance(text) == expected


@pytest.mark.parametrize(
    "text", ["", "within 5%", "rel:", "rel:-1%", "rel:5", "abs:x", "range:3..2", "range:1,2", 5, None]
)
def test_parse_errors_name_the_text(text):
    with pytest.raises(ToleranceError, match=repr(text) if isinstance(text, str) and text else "tolerance"):
        parse_tolerance(text)


@pytest.mark.parametrize(
    "text", ["printed", "exact", "abs:0.0001", "rel:5%", ">=10", "<=1e-05", "range:0.98..1.02"]
)
def test_round_trip(text):
    assert str(parse_tolerance(text)) == text


def test_printed_half_unit_in_last_digit():
    t = Printed()
    # "99.16" admits [99.155, 99.165]
    assert t(99.155, "99.16") is None
    assert t(99.1649, "99.16") is None
    assert "outside" in t(99.166, "99.16")
    assert t(99.154, "99.16") is not None
    # trailing zeros are significant: "0.10" admits [0.095, 0.105] but "0.1" admits [0.05, 0.15]
    assert t(0.12, "0.10") is not None
    assert t(0.12, "0.1") is None
    # an interval passes when it overlaps
    assert t(Interval(60.37, 61.0), "60.6") is None
    assert t(Interval(60.7, 61.0), "60.6") is not None


def test_exact():
    assert Exact()(36864, "36864") is None
    assert "!=" in Exact()(36863, "36864")
    assert Exact()(Interval(5, 5), "5") is None
    assert Exact()(Interval(4.9, 5.1), "5") is not None


def test_absolute_and_relative():
    assert Absolute(0.5)(2.4, "2") is None
    assert "0.6" in Absolute(0.5)(2.6, "2")
    assert Relative(0.01)(497.76, "500") is None  # 0.448% off
    reason = Relative(0.001)(497.76, "500")
    assert "0.45%" in reason and "0.10%" in reason


def test_bounds():
    assert AtLeast(10)(13.4, None) is None
    assert "short by 0.5" in AtLeast(10)(9.5, None)
    assert AtMost(1e-5)(5.8e-6, None) is None
    assert AtMost(0)(1, None) is not None
    assert Range(0.98, 1.02)(1.0, None) is None
    assert Range(0.98, 1.02)(1.03, None) is not None


def test_non_finite_measurements_fail():
    for tol in (Printed(), AtLeast(1), Range(0, 1)):
        assert "not finite" in tol(math.nan, "1")
        assert "not finite" in tol(math.inf, "1")


def test_stated_required_where_compared():
    assert "needs a stated value" in Printed()(1.0, None)
    assert AtLeast(1)(2.0, None) is None


def test_every_tolerance_type_says_how_far_a_value_may_move():
    # what `claimcheck diff` asks of each type (Tolerance.move_limit); the table of limits is in tests/core/test_runs.py
    assert Relative(0.05).move_limit(200.0)[0] == pytest.approx(10.0)
    assert AtLeast(10).move_limit(-8.0, bound_move=0.5)[0] == pytest.approx(4.0)
    assert Range(0.98, 1.02).move_limit(5.0)[0] == pytest.approx(0.02)
    assert Printed().move_limit(1.0, stated="0.10")[0] == pytest.approx(0.005)
    with pytest.raises(ValueError, match="needs a stated value"):
        Printed().move_limit(1.0)


@pytest.mark.parametrize("text", [">=1e999", "<=-1e400", "abs:1e999", "range:0..1e999"])
def test_a_number_beyond_a_floats_range_is_a_bad_tolerance_not_infinity(text):
    with pytest.raises(ToleranceError, match="too large for a tolerance"):
        parse_tolerance(text)
