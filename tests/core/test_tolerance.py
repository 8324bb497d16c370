"""Each tolerance kind against hand-computed values."""

import math

import pytest

from claimcheck.interval import Interval
from claimcheck.tolerance import (
    Absolute,
    AtLeast,
    AtMost,
    Exact,
    Margin,
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


# --- what a tolerance says of itself: its region, its bar in words, its margin ---------------------
KINDS = {
    "printed": (
        "99.16",
        "percent",
        (99.155, 99.165),
        "within half a unit of the last digit: [99.155, 99.165]%",
    ),
    "exact": ("1023", "example", (1023.0, 1023.0), "exactly 1023 examples"),
    "abs:0.5": ("2", "", (1.5, 2.5), "within ±0.5 of 2: [1.5, 2.5]"),
    "rel:5%": ("2", "FLOP/param", (1.9, 2.1), "within 5% of 2: [1.9, 2.1] FLOP/param"),
    ">=10": ("60", "x", (10.0, math.inf), "at least 10×"),
    "<=1e-5": (None, "", (-math.inf, 1e-5), "at most 1e-5"),
    "range:0.98..1.02": (None, "x", (0.98, 1.02), "between 0.98 and 1.02×"),
    "range:2..2": (None, "token", (2.0, 2.0), "exactly 2 tokens"),  # one value: never "between 2 and 2"
}


@pytest.mark.parametrize("text", sorted(KINDS))
def test_each_kind_says_its_region_and_its_bar_in_words(text):
    stated, unit, region, words = KINDS[text]
    tol = parse_tolerance(text)
    assert tol.region(stated) == pytest.approx(region)
    assert tol.describe(stated, unit) == words
    assert tol.is_bound == (text[0] in "<>" or text.startswith("range:"))


def test_every_kind_is_in_the_table_of_words():
    # a new tolerance kind brings its region and its words with it, and a row here
    kinds = {type(parse_tolerance(t)) for t in KINDS}
    assert kinds == {Printed, Exact, Absolute, Relative, AtLeast, AtMost, Range}
    for kind in kinds:
        assert "describe" in vars(kind) and "region" in vars(kind), kind.__name__


@pytest.mark.parametrize("text", ["printed", "exact", "abs:0.5", "rel:5%"])
def test_a_bar_read_from_the_stated_value_has_no_words_without_one(text):
    with pytest.raises((ValueError, TypeError, AttributeError)):
        parse_tolerance(text).describe(None, "x")
    assert parse_tolerance(text).margin(1.0, None) is None


@pytest.mark.parametrize(
    "text, stated, measured, words, inside",
    [
        (">=10", None, 23.26, "13.3 above the bar, 2.3× the bar", True),
        (">=10", None, 3.2, "short by 6.8 (3.2 is 0.32× the bar)", False),
        ("<=1", None, 1.5, "over by 0.5 (1.5 is 1.5× the bar)", False),
        ("abs:0.5", "2", 2.71, "outside by 0.21", False),
        ("printed", "60.6", Interval(60.37, 61.0), "overlaps the bar (an interval of values)", True),
        ("exact", "4", 4, "exact", True),
        ("range:0..4", None, 1.0, "inside by 1 of ±2", True),
        ("range:2..2", None, 2.0, "exact", True),
        ("range:2..2", None, 3.0, "outside by 1", False),
        # on an end of the bar: not "inside by 0× of ±0.5", nor "±2" for a range
        ("printed", "2", 2.5, "on the edge of the bar [1.5, 2.5]×", True),
        ("range:0..4", None, 4.0, "on the edge of the bar [0, 4]×", True),
    ],
)
def test_the_margin_in_words(text, stated, measured, words, inside):
    m = parse_tolerance(text).margin(measured, stated, "x")
    assert (m.text, m.inside, m.score >= 0) == (words, inside, inside)
    assert parse_tolerance(text).margin(math.inf, stated, "x") is None


@pytest.mark.parametrize("measured", [math.nan, Interval(1.0, math.inf), -math.inf])
def test_a_value_that_is_not_finite_has_no_margin(measured):
    """None, as the contract says, for NaN too (a NaN read from a claims.json makes no Interval)."""
    assert parse_tolerance("rel:5%").margin(measured, "10", "x") is None


@pytest.mark.parametrize(
    "measured, stated, holds",
    [
        (36864.0, "36864.0000000000000000001", False),  # a float once compared equal to this
        (36864, "36864.0000000000000000001", False),
        (Interval(5.0, 5.0), "5.0000000000000000001", False),
        (36864.0, "36864", True),
        (36864, "36864.000", True),  # the same decimal, printed with zeros
        (0.1, "0.1", True),  # the float 0.1 is the decimal it prints as
        (0.1 + 0.2, "0.3", False),  # 0.30000000000000004 is not 0.3
    ],
)
def test_exact_compares_the_printed_decimal(measured, stated, holds):
    failure = parse_tolerance("exact")(measured, stated)
    assert (failure is None) is holds
    if not holds:
        assert "exactly" in failure and "off by 0)" not in failure


def test_an_absolute_tolerances_edge_is_inside():
    tol = parse_tolerance("abs:0.5")
    assert tol(2.5, "2") is None and tol(1.5, "2") is None  # |d| == atol: on the edge, inside
    assert tol(2.5000001, "2") is not None and tol(1.4999999, "2") is not None
    assert tol.region("2") == (1.5, 2.5)


def test_move_limits_and_words_of_the_bars():
    assert parse_tolerance(">=10").move_limit(20.0) == (
        5.0,
        ">=10 is a one-sided bar: more than 25% of the old value (--bound-move)",
    )
    assert parse_tolerance("<=1e-5").describe(None, "s") == "at most 1e-5 s"
    with pytest.raises(ValueError, match="^tolerance 'printed' needs a stated value$"):
        parse_tolerance("printed").move_limit(1.0)


@pytest.mark.parametrize(
    "tol, measured, unit, expected",
    [
        (
            ">=10",
            3.14159,
            "x",
            Margin(text="short by 6.86 (3.14 is 0.31× the bar)", inside=False, score=-0.685841),
        ),
        ("<=10", 12.5, "ms", Margin(text="over by 2.5 ms (12.5 is 1.2× the bar)", inside=False, score=-0.25)),
        (">=0", -2.0, "", Margin(text="short by 2", inside=False, score=-2.0)),
        ("<=0", 0.5, "token", Margin(text="over by 0.5 tokens", inside=False, score=-0.5)),
        ("range:1..3", 5.12345, "s", Margin(text="outside by 2.12 s", inside=False, score=-2.12345)),
        ("range:1..3", 0.25, "s", Margin(text="outside by 0.75 s", inside=False, score=-0.75)),
        ("range:2..2", 2.0, "", Margin(text="exact", inside=True, score=1.0)),
        ("range:2..2", 3.0, "", Margin(text="outside by 1", inside=False, score=-1.0)),
        (
            "range:1..3",
            (0.5, 4.0),
            "",
            Margin(text="overlaps the bar (an interval of values)", inside=True, score=0.0),
        ),
        (
            "range:1..3",
            (0.5, 2.5),
            "",
            Margin(text="overlaps the bar (an interval of values)", inside=True, score=0.0),
        ),
        ("range:1..3", (1.0, 2.5), "", Margin(text="on the edge of the bar [1, 3]", inside=True, score=0.0)),
        ("range:1..3", (1.5, 3.0), "", Margin(text="on the edge of the bar [1, 3]", inside=True, score=0.0)),
        ("range:1..3", (1.5, 2.5), "", Margin(text="inside by 0.5 of ±1", inside=True, score=0.5)),
        (
            ">=10",
            (9.0, 11.0),
            "x",
            Margin(text="overlaps the bar (an interval of values)", inside=True, score=0.0),
        ),
        (">=10", 10.0, "x", Margin(text="on the bar", inside=True, score=0.0)),
        (">=10", 23.26, "x", Margin(text="13.3 above the bar, 2.3× the bar", inside=True, score=1.326)),
        (">=10", 11.0, "x", Margin(text="1 above the bar", inside=True, score=0.1)),
        (">=10", 12.0, "x", Margin(text="2 above the bar", inside=True, score=0.2)),
        ("<=1", 0.2, "s", Margin(text="0.8 s below the bar, 0.2× the bar", inside=True, score=0.8)),
        ("<=0", 0.0, "token", Margin(text="on the bar", inside=True, score=0.0)),
        ("<=0", -0.5, "", Margin(text="0.5 below the bar", inside=True, score=0.5)),
        ("range:1..3", 2.0, "s", Margin(text="on the chapter's value", inside=True, score=1.0)),
        ("range:1..3", 1.0, "s", Margin(text="on the edge of the bar [1, 3] s", inside=True, score=0.0)),
        ("range:1..3", 1.5, "s", Margin(text="inside by 0.5 s of ±1", inside=True, score=0.5)),
        ("abs:0.5", 2.123456, "s", Margin(text="inside by 0.377 s of ±0.5", inside=True, score=0.753088)),
    ],
)
def test_the_margin_in_words_and_score(tol, measured, unit, expected):
    """The margin column's words and its sort score, every branch (the claims page shows them)."""
    value = Interval(*measured) if isinstance(measured, tuple) else measured
    got = parse_tolerance(tol).margin(value, "2" if tol.startswith("abs") else None, unit)
    assert (got.text, got.inside) == (expected.text, expected.inside)
    assert got.score == pytest.approx(expected.score)


def test_tolerance_messages_and_edges():
    assert parse_tolerance("abs:0.5").describe("2", "s") == "within ±0.5 of 2: [1.5, 2.5] s"
    assert parse_tolerance("rel:25%")(125.0, "100") is None  # on the edge: inside
    assert parse_tolerance("rel:25%")(125.001, "100") is not None
    assert parse_tolerance("rel:5%")(1.0, "0") == "off by 1 (inf% of 0) > 0.05 = 5.00%"
    assert parse_tolerance("<=10")(12.5, None) == "12.5 > 10 (over by 2.5)"


def test_a_bar_holds_on_its_edge():
    assert parse_tolerance(">=10")(10.0, None) is None and parse_tolerance("<=10")(10.0, None) is None
    assert parse_tolerance(">=10")(9.999, None) is not None


def test_every_kinds_move_limit():
    from claimcheck.tolerance import Tolerance

    assert parse_tolerance("exact").move_limit(5.0) == (0.0, "exact: any change")
    assert parse_tolerance("abs:0.5").move_limit(5.0) == (0.5, "abs:0.5: more than 0.5")
    assert parse_tolerance("rel:10%").move_limit(50.0) == (5.0, "rel:10%: more than 0.1 of the old value")
    assert parse_tolerance("range:1..3").move_limit(2.0) == (
        1.0,
        "range:1..3: more than the range's half-width 1",
    )
    assert parse_tolerance("printed").move_limit(99.16, "99.16") == (
        0.005,
        "printed: more than half a unit in the last digit of 99.16 (0.005)",
    )
    with pytest.raises(NotImplementedError):
        Tolerance().move_limit(1.0)


def test_parse_tolerance_edges_and_messages():
    from claimcheck.tolerance import _distance

    assert parse_tolerance("abs:0") == Absolute(0.0) and parse_tolerance("rel:1") == Relative(1.0)
    assert parse_tolerance("rel:150%") == Relative(1.5)
    for text, message in (
        ("abs:-1", "bad tolerance 'abs:-1': negative"),
        (
            "rel:1.5",
            "bad tolerance 'rel:1.5': a relative tolerance above 1 is 150%; write 'rel:1.5%' for 1.5 percent",
        ),
        ("range:1", "bad tolerance 'range:1': missing '..'"),
        ("range:1...2", "bad tolerance 'range:1...2': lower bound above upper bound"),  # 1 .. .2
    ):
        with pytest.raises(ToleranceError) as info:
            parse_tolerance(text)
        assert str(info.value) == message
    assert _distance(Interval(1, 3), Interval(2, 4)) == 0.0 and _distance(Interval(1, 2), Interval(4, 5)) == 2


@pytest.mark.parametrize(
    "tol, measured, text, score",
    [
        ("range:0..2000000000", 1e9 + 0.5, "on the chapter's value", 1.0),  # the 1e-9 is relative to half
        ("range:0..0.2", 0.1 + 1.5e-9, "inside by 0.1 of ±0.1", 0.999999985),  # and at least 1e-9
        ("range:0..2000000000", 0.5, "on the edge of the bar [0, 2e9]", 0.0),
        ("range:0..0.2", 1.5e-9, "inside by 1.5e-9 of ±0.1", 1.5e-08),
        ("range:0..2.46912", 0.0, "on the edge of the bar [0, 2.47]", 0.0),  # three significant digits
        ("range:0..2.46912", 0.5, "inside by 0.5 of ±1.23", 0.4050025920165889),
        ("range:1..5", 7.0, "outside by 2", -1.0),  # the score is relative to the half-width
        (">=10", 15.0, "5 above the bar, 1.5× the bar", 0.5),  # 1.5× the bar is said
        ("<=10", 6.7, "3.3 below the bar, 0.67× the bar", 0.33),  # and so is 0.67×
    ],
)
def test_the_margins_thresholds(tol, measured, text, score):
    got = parse_tolerance(tol).margin(measured, None, "")
    assert got.text == text and got.score == pytest.approx(score)


def test_exact_says_by_how_much_a_figure_is_off():
    assert parse_tolerance("exact")(36864.0, "36864.0000000000000000001") == (
        "36864 != 36864.0000000000000000001 exactly (off by 1e-19)"
    )
