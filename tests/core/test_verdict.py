"""Every outcome of :func:`claimcheck.verdict.judge`, from synthetic evidence (no pytest run, no torch)."""

import math
from fractions import Fraction

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


# --- the edges a wrong verdict would hide behind (mutants that survived the suite; issue 35) -------
def test_an_exact_form_holds_only_its_region_both_edges():
    claim = FakeClaim()
    for value, outcome in ((4, PASSED), (5, FAILED), (3, FAILED)):
        count = ExactForm("count", value, (4, 4), "a count that must be 4")
        v = judge(claim, Timed(ci(12.0, 20.0), exact=(count,), load=QUIET))
        assert (v.outcome, v.details["exact"]["count"]["verdict"]) == (outcome, outcome), value


def test_a_straddling_condition_bar_is_not_hidden_by_a_passing_headline():
    claim = FakeClaim()
    ok = Bar("ok", ci(0.2, 0.5), (0.0, 1.0), "inside its bar")
    straddles = Bar("straddles", ci(0.5, 2.0), (0.0, 1.0), "across its bar")
    v = judge(claim, Timed(ci(12.0, 20.0), bars=(ok, straddles), load=QUIET))
    assert v.outcome == INCONCLUSIVE and v.details["conditions"]["straddles"]["verdict"] == INCONCLUSIVE
    assert judge(claim, Timed(ci(12.0, 20.0), bars=(ok,), load=QUIET)).outcome == PASSED
    # a straddling headline is not hidden by passing conditions either
    assert judge(claim, Timed(ci(8.0, 14.0), bars=(ok,), load=QUIET)).outcome == INCONCLUSIVE


def test_bar_outcome_edges_are_closed():
    assert bar_outcome(ci(10.0, 20.0), (10.0, math.inf)) == PASSED  # on the bar is inside
    assert bar_outcome(ci(5.0, 10.0), (10.0, math.inf)) == INCONCLUSIVE  # touches it: straddles
    assert bar_outcome(ci(5.0, 9.99), (10.0, math.inf)) == FAILED
    assert bar_outcome(ci(0.0, 1.0), (-math.inf, 1.0)) == PASSED
    assert bar_outcome(ci(1.01, 2.0), (-math.inf, 1.0)) == FAILED


def test_settled_converts_the_interval_to_the_claims_unit_and_needs_a_region():
    claim = FakeClaim("", "ms", "<=100")
    assert not settled(claim, Timed(ci(0.08, 0.12), unit="s"))  # 80-120 ms straddles 100 ms
    assert settled(claim, Timed(ci(0.05, 0.08), unit="s"))
    assert settled(FakeClaim("n/a", "x", "printed"), Timed(ci(8.0, 14.0)))  # no region: nothing to wait for


def test_a_comparison_verdict_field_by_field():
    from claimcheck.verdict import Verdict

    claim = FakeClaim("0", "token", "<=0")
    assert judge(claim, Compared(5, True, False, "flip")) == Verdict(NEAR_TIE, 5, "flip")
    assert judge(claim, Compared(5, False, True, "flip at 2.1")) == Verdict(
        FAILED, 5, "5 > 0 (over by 5); flip at 2.1"
    )
    # diverged although the tolerance admits the count: it still fails, "differs"
    loose = FakeClaim("", "token", "<=10")
    assert judge(loose, Compared(5, False, True, "flip")) == Verdict(FAILED, 5, "differs; flip")
    # the tolerance is judged against the stated figure
    near = FakeClaim("3", "token", "abs:1")
    assert judge(near, Compared(5, False, True, "flip")).reason == "|measured - stated| = 2 > 1; flip"
    # identical streams are measured on the runner given: a machine-bound claim is judged on its runner
    bound = FakeClaim("0", "token", "<=0", runner="laptop")
    assert judge(bound, Compared(0, False, False, "same"), runner="laptop").outcome == PASSED
    assert judge(bound, Compared(0, False, False, "same"), runner="ci").outcome == SKIPPED


def test_a_portable_form_verdict_field_by_field():
    from claimcheck.verdict import Verdict

    claim = FakeClaim()
    ok = judge(claim, Form(5.0, "4", "abs:2", form="on SmolLM2"))
    assert ok == Verdict(PASSED, 5.0, None, {"portable_form": "on SmolLM2"})
    bad = judge(claim, Form(7.0, "4", "abs:2", form="on SmolLM2"))
    assert bad == Verdict(FAILED, 7.0, "|measured - stated| = 3 > 2", {"portable_form": "on SmolLM2"})


def test_a_timing_verdict_field_by_field():
    from claimcheck.verdict import Verdict

    claim = FakeClaim()
    record = {"low": 12.0, "high": 20.0, "value": 16.0, "level": 0.9, "method": "test", "rounds": 7}
    record["bar"] = "at least 10"
    assert judge(claim, Timed(ci(12.0, 20.0), load=QUIET)) == Verdict(PASSED, 16.0, None, {"ci": record})
    failed = judge(claim, Timed(ci(3.0, 8.0), load=QUIET))
    assert (failed.outcome, failed.value) == (FAILED, 5.5)
    assert failed.reason == "T1: 90% CI [3, 8] x vs bar at least 10 -> failed"
    flat = Bar("flat", ci(0.5, 2.0), (0.0, 1.0), "a condition")
    count = ExactForm("count", 3, (3, 5), "a count in 3..5")  # on its lower edge: inside
    v = judge(claim, Timed(ci(12.0, 20.0), bars=(flat,), exact=(count,), load=QUIET))
    assert v == Verdict(
        INCONCLUSIVE,
        16.0,
        "inconclusive: T1: 90% CI [12, 20] x vs bar at least 10 -> passed; flat (a condition): [0.5, 2] vs "
        "between 0 and 1 -> inconclusive; count (a count in 3..5): 3 vs between 3 and 5 -> passed; after 7 "
        "rounds within a budget of ? s; machine load: 0.5 on 2 cores. A quieter machine or a larger profile "
        "(--claims-profile standard/full) narrows the interval.",
        {
            "ci": record,
            "conditions": {
                "flat": {"text": "a condition", "low": 0.5, "high": 2.0, "value": 1.25}
                | {"bar": "between 0 and 1", "verdict": INCONCLUSIVE}
            },
            "exact": {
                "count": {"text": "a count in 3..5", "value": 3, "bar": "between 3 and 5", "verdict": PASSED}
            },
        },
    )
    # judged on its own runner, a machine-bound timing claim is a verdict, not skipped
    bound = FakeClaim(runner="laptop")
    assert judge(bound, Timed(ci(12.0, 20.0), load=QUIET), runner="laptop").outcome == PASSED
    assert judge(bound, Timed(ci(12.0, 20.0), load=QUIET), runner="ci").outcome == SKIPPED
    no_region = judge(FakeClaim("n/a", "x", "printed"), Timed(ci(12.0, 20.0), load=QUIET))
    assert (
        no_region.outcome == ERROR
        and "has no region to judge a confidence interval against" in no_region.reason
    )


def test_why_a_timing_claim_is_undecided_in_words():
    claim = FakeClaim()
    quick = judge(claim, Timed(ci(8.0, 14.0), rounds=9, budget_s=10.0, load=QUIET, profile="quick"))
    assert quick.reason == (
        "inconclusive: T1: 90% CI [8, 14] x vs bar at least 10 -> inconclusive; after 9 rounds within a budget "
        "of 10 s; machine load: 0.5 on 2 cores. A quieter machine or a larger profile (--claims-profile "
        "standard/full) narrows the interval."
    )
    busy = judge(claim, Timed(ci(3.0, 8.0), load=BUSY))
    assert busy.reason == (
        "inconclusive: T1: 90% CI [3, 8] x vs bar at least 10 -> failed; T1 lay outside the bar, but on a busy "
        "machine, whose stalls bias timing forms toward failing, so that is not taken as a failure; after 7 "
        "rounds within a budget of ? s; machine load: 4.0 on 2 cores (busy: 1-min load average 4.0 on 2 "
        "cores). A quieter machine or a larger profile (--claims-profile standard/full) narrows the interval."
    )
    few = judge(claim, Timed(ci(12.0, 20.0, n=3, coverage=0.75), load=QUIET, profile="full"))
    assert few.reason == (
        "inconclusive: T1: 90% CI [12, 20] x vs bar at least 10 -> inconclusive; after 3 rounds within a "
        "budget of ? s; machine load: 0.5 on 2 cores. Too few rounds: 3 samples give a distribution-free "
        "interval of only 75% coverage (below its 90%), wherever it lies; more rounds decide it (a quieter "
        "machine fits more in the budget)"
    )
    unsaid = judge(claim, Timed(ci(8.0, 14.0), load={}))
    assert "machine load: ? on ? cores." in unsaid.reason


def test_a_timing_interval_in_another_unit_keeps_its_coverage_and_rounds():
    claim = FakeClaim("", "s", "<=0.1")
    v = judge(claim, Timed(ci(80.0, 90.0), unit="ms", load=QUIET))
    assert v.outcome == PASSED and v.value == pytest.approx(0.085)
    assert v.details["ci"]["high"] == pytest.approx(0.09)  # converted to the claim's unit
    assert v.details["ci"] | {"low": 0, "high": 0, "value": 0} == {
        "low": 0, "high": 0, "value": 0, "level": 0.9, "method": "test", "rounds": 7, "bar": "at most 0.1"
    }  # fmt: skip
    few = judge(claim, Timed(ci(80.0, 90.0, n=3, coverage=0.5), unit="ms", load=QUIET))
    assert (
        few.outcome == INCONCLUSIVE
        and "3 samples give a distribution-free interval of only 50%" in few.reason
    )


def test_bar_outcome_at_its_level_and_at_an_upper_bars_edge():
    assert bar_outcome(ci(12.0, 20.0, coverage=0.9), (10.0, math.inf)) == PASSED  # coverage == level: enough
    assert bar_outcome(ci(1.0, 2.0), (-math.inf, 1.0)) == INCONCLUSIVE  # touches the bar from above


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


def test_measured_values_of_every_kind_in_the_claims_unit():
    import numpy as np

    from claimcheck.verdict import Verdict

    claim = FakeClaim("36", "KiB/token", "printed")
    assert judge(claim, Measured(np.float64(36.0))) == Verdict(PASSED, 36.0, None)
    assert judge(claim, Measured(np.float32(36864.0), "B/token")).value == 36.0
    assert type(judge(claim, Measured(np.int64(36))).value) is int
    assert type(judge(claim, Measured(Fraction(72, 2))).value) is float
    v = judge(claim, Measured(Interval(36352.0, 37376.0), "B/token"))
    assert v.outcome == PASSED and v.value == Interval(35.5, 36.5)
    for bad, why in (
        (np.array([36.0]), "is not a number"),  # an array of one is not a scalar
        (True, "is not a number"),
        (float("nan"), "is not a finite number: the measurement broke"),
        (float("inf"), "is not a finite number: the measurement broke"),
    ):
        broken = judge(claim, Measured(bad))
        assert broken.outcome == ERROR and broken.reason.startswith("TypeError: the measured value")
        assert broken.reason.endswith(why), broken.reason
    # a requirement's headline value is converted too
    assert judge(claim, Requirement(True, "m", 36864, "B/token")) == Verdict(PASSED, 36.0)
    with pytest.raises(TypeError, match="not object"):
        judge(claim, object())


def test_a_machine_bound_claim_elsewhere_says_both_runners_and_its_margin():
    claim = FakeClaim("5947", "token/s", "rel:25%", runner="author-laptop")
    v = judge(claim, Measured(1893.2))
    assert v.outcome == SKIPPED and v.value == 1893.2
    assert (
        "measured on runner 'author-laptop'; this runner has no runner profile (--claims-runner NAME)"
        in v.reason
    )
    assert "this runner is 'ci-box'" in judge(claim, Measured(1893.2), runner="ci-box").reason


def test_the_last_edges_of_a_verdict():
    import numpy as np

    claim = FakeClaim("36", "KiB/token", "printed")
    assert judge(claim, Measured(np.array(36.0))).value == 36.0  # a 0-d array is its item
    # a near-tie of a claim without a region is still a near-tie
    tie = judge(FakeClaim("abc", "token", "exact"), Compared(5, True, False, "tie"))
    assert tie.outcome == NEAR_TIE
    # an interval that reaches across an exact figure, or only touches it, is not that figure
    across = judge(FakeClaim("5", "x", "exact"), Measured(Interval(4.0, 6.0)))
    assert across.outcome == FAILED
    edge = judge(FakeClaim("5", "x", "exact"), Measured(Interval(5.0, 5.5)))
    assert edge.outcome == FAILED
    # a claim without a unit: no trailing space in its interval's words
    unitless = judge(FakeClaim(unit=""), Timed(ci(3.0, 8.0), load=QUIET))
    assert unitless.reason == "T1: 90% CI [3, 8] vs bar at least 10 -> failed"
    # two forms outside their bars on a busy machine are named together
    flat = Bar("flat", ci(5.0, 6.0), (0.0, 1.0), "far outside")
    busy = judge(FakeClaim(), Timed(ci(3.0, 8.0), bars=(flat,), load=BUSY))
    assert "; T1, flat lay outside the bar, but on a busy machine" in busy.reason
    # an interval of its full coverage that straddles asks for a quieter machine, not more rounds
    straddle = judge(FakeClaim(), Timed(ci(8.0, 14.0, coverage=0.9), load=QUIET))
    assert straddle.reason.endswith("narrows the interval.") and "Too few rounds" not in straddle.reason
