"""Confidence intervals and the decision rule of timing claims, against hand-computed values."""

import math

import pytest

from claimcheck.interval import CI, median_ci, region_text, rounds_for
from claimcheck.outcomes import FAILED as FAIL
from claimcheck.outcomes import INCONCLUSIVE as UNDECIDED
from claimcheck.outcomes import PASSED as PASS
from claimcheck.tolerance import parse_tolerance
from claimcheck.verdict import bar_outcome as decide


def test_median_ci_order_statistics_by_hand():
    # n = 10: P(X <= 1) = 11/1024, so k = 2 gives coverage 1 - 22/1024 = 0.978515625 >= 0.95,
    # and k = 3 gives 1 - 2*56/1024 = 0.890625 < 0.95: the interval is [x_(2), x_(9)]
    xs = [10, 1, 9, 2, 8, 3, 7, 4, 6, 5]
    ci = median_ci(xs, 0.95)
    assert (ci.low, ci.high, ci.value) == (2, 9, 5.5)
    assert ci.coverage == pytest.approx(1 - 22 / 1024)
    # at 89%, k = 3 qualifies: [x_(3), x_(8)]
    assert (median_ci(xs, 0.89).low, median_ci(xs, 0.89).high) == (3, 8)


def test_median_ci_with_too_few_samples_is_min_max_with_its_true_coverage():
    ci = median_ci([3.0, 1.0, 2.0, 5.0, 4.0], 0.95)
    assert (ci.low, ci.high) == (1.0, 5.0)
    assert ci.coverage == pytest.approx(1 - 2 / 32)  # 0.9375 < 0.95: said, not hidden


def test_median_ci_rejects_nothing_and_bad_levels():
    with pytest.raises(ValueError, match="at least one sample"):
        median_ci([])
    with pytest.raises(ValueError, match="level"):
        median_ci([1.0], 1.5)


@pytest.mark.parametrize(
    "low, high, region, verdict",
    [
        (12.0, 20.0, (10.0, math.inf), PASS),  # clearly above a ">= 10" bar
        (3.0, 8.0, (10.0, math.inf), FAIL),  # clearly below
        (8.0, 14.0, (10.0, math.inf), UNDECIDED),  # straddling
        (1.6, 2.4, (1.5, 2.5), PASS),  # inside a two-sided bar
        (0.5, 1.4, (1.5, 2.5), FAIL),  # wholly below it
        (2.6, 3.0, (1.5, 2.5), FAIL),  # wholly above it
        (1.0, 3.0, (1.5, 2.5), UNDECIDED),  # wider than the bar on both sides
        (10.0, 10.0, (10.0, math.inf), PASS),  # on the bar: ">=" includes it
    ],
)
def test_decide(low, high, region, verdict):
    assert decide(CI((low + high) / 2, low, high, 0.95, "test", 5), region) == verdict


@pytest.mark.parametrize(
    "tol, stated, region, words",
    [
        (">=10", "60", (10.0, math.inf), "at least 10"),
        ("<=0.5", "", (-math.inf, 0.5), "at most 0.5"),
        ("abs:0.5", "2", (1.5, 2.5), "between 1.5 and 2.5"),
        ("rel:25%", "98", (73.5, 122.5), "between 73.5 and 122.5"),
        ("printed", "99.16", (99.155, 99.165), "between 99.155 and 99.165"),
        ("exact", "511", (511.0, 511.0), "exactly 511"),
        ("range:1..3", "", (1.0, 3.0), "between 1 and 3"),
    ],
)
def test_every_tolerance_has_its_region(tol, stated, region, words):
    got = parse_tolerance(tol).region(stated or None)
    assert got == pytest.approx(region)
    assert region_text(got) == words
    inside = (
        (region[0] + region[1]) / 2
        if math.isfinite(region[1]) and math.isfinite(region[0])
        else (region[0] + 1 if math.isfinite(region[0]) else region[1] - 1)
    )
    assert parse_tolerance(tol)(inside, stated or None) is None  # the region is what check() accepts


def test_rounds_for_a_level_by_hand():
    # [min, max] of n samples covers the median with 1 - 2 / 2**n: 0.875 (4), 0.9375 (5), 0.96875 (6)
    assert rounds_for(0.90) == 5 and rounds_for(0.95) == 6 and rounds_for(0.85) == 4


def test_an_interval_that_covers_less_than_its_level_decides_nothing():
    few = median_ci([11.0, 12.0, 13.0], 0.90)  # 3 rounds: [min, max] covers only 75%
    assert few.coverage == pytest.approx(0.75) and decide(few, (10.0, math.inf)) == UNDECIDED
    enough = median_ci([11.0, 12.0, 13.0, 12.5, 11.5], 0.90)
    assert decide(enough, (10.0, math.inf)) == PASS
    one = median_ci([4.0])
    assert decide(one, (10.0, math.inf)) == UNDECIDED  # a point is no interval


def test_median_ci_is_two_tailed():
    # n = 20, level 0.90: P(X <= 5) = 0.0207, so k = 6 covers 1 - 2 * 0.0207 = 0.9586; k = 7 only
    # 1 - 2 * 0.0577 = 0.8847. A one-tailed bound (1 - 0.0577 = 0.942 >= 0.90) would take k = 7.
    ci = median_ci(range(1, 21), 0.90)
    assert (ci.low, ci.high) == (6, 15)
    assert ci.coverage == pytest.approx(1 - 2 * 21700 / 2**20)


def test_rounds_for_a_level_met_exactly():
    assert rounds_for(1 - 2 / 2**5) == 5  # 5 samples cover exactly 0.9375: enough
    assert rounds_for(0.95) == 6 and rounds_for(0.90) == 5


def test_median_ci_field_by_field_and_its_edges():
    ci = median_ci(range(1, 11), 1 - 22 / 1024)  # the level met exactly by k = 2: [x2, x9]
    assert (ci.low, ci.high, ci.n, ci.method) == (2, 9, 10, "order statistics of the median")
    assert (median_ci([1, 2, 3, 4], 0.3).low, median_ci([1, 2, 3, 4], 0.3).high) == (2, 3)  # k = n / 2
    assert median_ci([1.0, 2.0], 0.9).coverage == 0.5  # two samples: [min, max] covers half
    assert median_ci([7.0], 0.9).coverage == 0.0
    with pytest.raises(ValueError, match="needs at least one sample"):
        median_ci([], 0.9)
    for level in (0, 1, 1.5):
        with pytest.raises(ValueError, match="level must be in"):
            median_ci([1.0, 2.0], level)


def test_a_confidence_interval_with_low_above_high_is_refused_saying_both():
    with pytest.raises(ValueError, match="confidence interval with low 2 above high 1"):
        CI(1.5, 2, 1, 0.9, "test", 3)


def test_median_ci_messages_in_full():
    with pytest.raises(ValueError, match="^median_ci needs at least one sample$"):
        median_ci([], 0.9)
