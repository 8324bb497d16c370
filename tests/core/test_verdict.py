"""Every outcome of :func:`claimcheck.verdict.judge`, from synthetic evidence (no pytest run, no torch)."""

import math

import pytest

from claimcheck.interval import CI, Interval
from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, OUTCOMES, PASSED, SKIPPED
from claimcheck.tolerance import parse_tolerance
from claimcheck.verdict import (
    Bar,
    Compared,
    ExactForm,
    Form,
    Measured,
    Requirement,
    Timed,
    bar_outcome,
    judge,
    settled,
)


class FakeClaim:
    """The fields of a registry claim that judge() reads."""

    def __init__(self, stated="10", unit="x", tolerance=">=10", runner=None, cid="T1"):
        self.id, self.stated, self.unit, self.runner = cid, stated, unit, runner
        self.tolerance_text, self.tolerance = tolerance, parse_tolerance(tolerance)


def ci(low, high, n=7, coverage=0.98):
    return CI((low + high) / 2, low, high, 0.9, "test", n, coverage)


QUIET = {"busy": False, "why": "", "loadavg_1m": 0.5, "cores": 2}
BUSY = {"busy": True, "why": "1-min load average 4.0 on 2 cores", "loadavg_1m": 4.0, "cores": 2}


def test_measured_passes_and_fails_by_the_tolerance():
    claim = FakeClaim("36", "KiB/token", "exact")
    v = judge(claim, Measured(36864, "B/token"))
    assert (v.outcome, v.value, v.reason) == (PASSED, 36.0, None)
    v = judge(claim, Measured(37.0))
    assert v.outcome == FAILED and v.value == 37.0 and v.reason
    bar = judge(FakeClaim(tolerance=">=10"), Measured(12.5))
    assert bar.outcome == PASSED and bar.value == 12.5
    printed = judge(FakeClaim("99.16", "percent", "printed"), Measured(Interval(99.0, 99.156)))
    assert printed.outcome == PASSED  # an interval passes where it overlaps


def test_machine_bound_is_skipped_off_its_runner_and_enforced_on_it():
    claim = FakeClaim("5947", "token/s", "rel:10%", runner="author-laptop")
    off = judge(claim, Measured(187.3), runner=None)
    assert off.outcome == SKIPPED and off.value == 187.3 and off.reason.startswith("machine-bound:")
    assert "187.3 token/s" in off.reason and off.details["machine_bound"] == "author-laptop"
    assert judge(claim, Measured(187.3), runner="author-laptop").outcome == FAILED
    assert judge(claim, Measured(5900.0), runner="author-laptop").outcome == PASSED


def test_unjudgeable_evidence_is_an_error_not_a_failure():
    claim = FakeClaim("36", "KiB/token", "exact")
    assert judge(claim, Measured(1.0, "s")).outcome == ERROR  # a unit of another dimension
    v = judge(claim, Measured("36"))
    assert v.outcome == ERROR and "not a number" in v.reason
    assert (
        judge(claim, Form(1, "1", tolerance="within:3")).outcome == ERROR
    )  # a tolerance that does not parse
    with pytest.raises(TypeError):
        judge(claim, 36.0)


def test_requirement_and_form():
    claim = FakeClaim()
    assert judge(claim, Requirement(True, "fine")).outcome == PASSED
    v = judge(claim, Requirement(False, "logits after t barely moved", 3.0))
    assert (v.outcome, v.reason, v.value) == (FAILED, "logits after t barely moved", 3.0)
    assert v.details["failed_condition"] == "logits after t barely moved"
    assert judge(claim, Form(1024, "1024", "exact", "B/token", "KV bytes")).outcome == PASSED
    off = judge(claim, Form(1000, "1024", "exact"))
    assert off.outcome == FAILED and off.details["portable_form"] == ""


def test_comparison_identical_near_tie_and_diverged():
    claim = FakeClaim("0", "token", "<=0")
    assert judge(claim, Compared(0, False, False, "all 8 tokens identical")).outcome == PASSED
    tie = judge(claim, Compared(5, True, False, "flip at a margin of 3e-5"))
    assert (tie.outcome, tie.reason) == (NEAR_TIE, "flip at a margin of 3e-5")
    real = judge(claim, Compared(5, False, True, "flip at a margin of 2.1"))
    assert real.outcome == FAILED and real.reason.endswith("flip at a margin of 2.1")


def test_timing_passed_failed_inconclusive_by_the_interval():
    claim = FakeClaim()
    above = judge(claim, Timed(ci(12.0, 20.0), load=QUIET))
    assert above.outcome == PASSED and above.details["ci"]["bar"] == "at least 10"
    below = judge(claim, Timed(ci(3.0, 8.0), load=QUIET))
    assert below.outcome == FAILED and "T1: 90% CI [3, 8] x vs bar at least 10 -> failed" in below.reason
    straddle = judge(claim, Timed(ci(8.0, 14.0), rounds=9, budget_s=10.0, load=QUIET))
    assert straddle.outcome == INCONCLUSIVE and "after 9 rounds within a budget of 10 s" in straddle.reason
    few = judge(claim, Timed(ci(12.0, 20.0, n=3, coverage=0.75), load=QUIET))
    assert few.outcome == INCONCLUSIVE  # an interval that covers less than its level decides nothing


@pytest.mark.parametrize(
    "profile, advice",
    [
        (None, "a larger profile (--claims-profile standard/full) narrows the interval."),
        ("quick", "a larger profile (--claims-profile standard/full) narrows the interval."),
        ("standard", "a larger profile (--claims-profile full) narrows the interval."),
        ("full", ". A quieter machine narrows the interval."),
    ],
)
def test_an_undecided_timing_claim_names_only_the_profiles_above_its_own(profile, advice):
    straddle = judge(FakeClaim(), Timed(ci(8.0, 14.0), load=QUIET, profile=profile))
    assert straddle.outcome == INCONCLUSIVE and straddle.reason.endswith(advice)
    few = judge(FakeClaim(), Timed(ci(12.0, 20.0, n=3, coverage=0.75), load=QUIET, profile=profile))
    more = "(a quieter machine fits more in the budget)" if profile == "full" else "(a larger time budget: --"
    assert more in few.reason


def test_timing_bars_and_exact_forms():
    claim = FakeClaim()
    flat = Bar("flat", ci(5.0, 6.0), (0.0, 1.0), "a condition far outside its bar")
    v = judge(claim, Timed(ci(12.0, 20.0), bars=(flat,), load=QUIET))
    assert v.outcome == FAILED and v.details["conditions"]["flat"]["verdict"] == FAILED
    count = ExactForm("count", 3, (4, 4), "a count that must be 4")
    v = judge(claim, Timed(ci(12.0, 20.0), exact=(count,), load=QUIET))
    assert v.outcome == FAILED and v.details["exact"]["count"]["verdict"] == FAILED


def test_busy_machine_rule():
    claim = FakeClaim()
    busy = judge(claim, Timed(ci(3.0, 8.0), load=BUSY))
    assert busy.outcome == INCONCLUSIVE
    assert (
        "T1 lay outside the bar, but on a busy machine" in busy.reason and "(busy: 1-min load" in busy.reason
    )
    count = ExactForm("count", 3, (4, 4), "a count that must be 4")  # exact forms fail whatever the load
    assert judge(claim, Timed(ci(12.0, 20.0), exact=(count,), load=BUSY)).outcome == FAILED
    assert judge(claim, Timed(ci(12.0, 20.0), load=BUSY)).outcome == PASSED


def test_timing_machine_bound_and_unit():
    claim = FakeClaim("0.086", "s", "rel:10%", runner="author-laptop")
    v = judge(claim, Timed(ci(80.0, 90.0), unit="ms", load=QUIET))
    assert (
        v.outcome == SKIPPED
        and v.value == pytest.approx(0.085)
        and v.details["ci"]["low"] == pytest.approx(0.08)
    )


def test_bar_outcome_and_settled():
    assert bar_outcome(ci(10.0, 10.0), (10.0, math.inf)) == PASSED  # ">=" includes the bar
    assert bar_outcome(ci(2.6, 3.0), (1.5, 2.5)) == FAILED
    assert bar_outcome(ci(1.0, 3.0), (1.5, 2.5)) == INCONCLUSIVE
    claim = FakeClaim()
    assert settled(claim, Timed(ci(3.0, 8.0))) and not settled(claim, Timed(ci(8.0, 14.0)))
    assert not settled(claim, Timed(ci(12.0, 20.0), bars=(Bar("b", ci(0.5, 2.0), (0.0, 1.0), "straddles"),)))


def test_every_verdict_speaks_the_outcomes_vocabulary():
    claim = FakeClaim()
    evidence = [
        Measured(12.0),
        Measured(3.0),
        Requirement(False, "no"),
        Compared(1, True, False, "tie"),
        Timed(ci(8.0, 14.0), load=QUIET),
        Measured(1.0, "s"),
    ]
    assert {judge(claim, e).outcome for e in evidence} <= set(OUTCOMES)


def test_a_formulas_conditions_and_value_are_judged_together_as_the_run_judges_them():
    from claimcheck.verdict import formula_evidence, judge_all

    claim = FakeClaim("36", "KiB/token", "exact")
    conditions = [("a < b", True, "1 < 2"), ("b < c", False, "3 >= 2"), ("c < d", False, "5 >= 4")]
    evidence = formula_evidence(36.0, conditions)
    assert [type(e).__name__ for e in evidence] == ["Requirement"] * 3 + ["Measured"]
    v = judge_all(claim, evidence)
    assert v.outcome == FAILED and v.value == 36.0
    assert v.reason == "condition b < c does not hold: 3 >= 2; condition c < d does not hold: 5 >= 4"
    assert judge_all(claim, formula_evidence(36.0, [])).outcome == PASSED
