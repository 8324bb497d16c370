"""A timing claim's cost is bounded whatever the load: on a slow machine it stops at its budget,
inconclusive, instead of stretching its rounds (issue 18)."""

from tests.claimkit import claim_toml, claims_project

TESTS = """
import itertools
import statistics
import time

import pytest

from claimcheck.llm.timing import Rounds, Timing


@pytest.mark.claim("T1")
def test_slow_straddling(claim):
    values = itertools.cycle([2.0, 30.0, 5.0, 25.0, 9.0, 11.0])

    def side():  # a slow machine: every round takes 0.2 s
        time.sleep(0.2)
        return next(values)

    rounds = Rounds({"x": side}, warmup=0).run(5, within_s=0.3)  # the profile's first rounds, bounded
    claim.check_timing(Timing(rounds, 0.5, "test"), lambda rs: statistics.median(r["x"] for r in rs))
"""


def test_a_slow_timing_claim_stops_at_its_budget_inconclusive(pytester):
    registry = claim_toml("T1", stated="", unit="x", tolerance=">=10", needs='["time"]')
    project = claims_project(pytester, registry, {"test_t.py": TESTS})
    project.run(kit=False)
    row = project.report()["claims"][0]
    details = row["details"]
    assert row["outcome"] == "inconclusive"
    assert details["first_rounds_seconds"] <= 0.3 + 0.25  # 2 rounds of 0.2 s, not the profile's 5
    assert details["extra_seconds"] <= 0.5 + 0.25  # its budget, and at most one round past it
    assert details["rounds"] < 5
