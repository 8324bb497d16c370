"""The run's tests folded into one row per claim (claimcheck.report.ResultCollector): a row's fields
say what the test that decided its outcome said."""

import pytest

from claimcheck.report import ResultCollector
from claimcheck.results import ClaimEntry


def result(name, outcome, cause=None, reason="", measured=None):
    verdict = outcome if outcome in ("passed", "failed") else None
    return ClaimEntry(
        "ch15:C01",
        "C01",
        "ch15",
        outcome=outcome,
        reason=reason,
        cause=cause,
        verdict=verdict,
        measured=measured,
        tests=[f"claims/test_x.py::{name}"],
        said=reason,
    )


def row(*tests):
    c = ResultCollector()
    for t in tests:
        c.add(t)
    (r,) = c.rows([])
    return r


@pytest.mark.parametrize("order", [1, -1])
def test_a_skips_cause_stays_off_a_row_another_test_passed(order):
    tests = [result("a", "skipped", "gpu", "needs a CUDA GPU"), result("b", "passed", measured=1.0)]
    r = row(*tests[::order])
    assert r.outcome == "passed" and r.cause is None  # was: "gpu", from the skipped test
    assert "cause" not in r.to_json()


def test_a_skipped_rows_cause_is_that_of_the_skip_it_gives_the_reason_of():
    r = row(result("a", "skipped", "weights", "needs the weights"), result("b", "skipped", None, "no data"))
    assert (r.outcome, r.reason, r.cause) == ("skipped", "no data", None)  # was: cause "weights"
    r = row(result("a", "skipped", None, "no data"), result("b", "skipped", "gpu", "needs a CUDA GPU"))
    assert (r.outcome, r.reason, r.cause) == ("skipped", "needs a CUDA GPU", "gpu")


@pytest.mark.parametrize("order", [1, -1])
def test_a_row_shows_the_measurement_of_the_test_that_decided_it(order):
    failed = result("a", "failed", reason="11 != 10", measured=11.0)
    tests = [failed, result("b", "passed", measured=10.0)][::order]
    r = row(*tests)
    # was, with the failing test first: failed, beside the passing test's 10 (an exact match)
    assert (r.outcome, r.measured) == ("failed", 11.0)
    assert row(result("a", "passed", measured=9.0), result("b", "passed", measured=10.0)).measured == 10.0
