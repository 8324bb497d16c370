"""The decision rule of timing claims end to end, on synthetic samples (no model, no real timing):
clearly above the bar passes, clearly below fails, straddling is inconclusive after the budget,
and ``--claims-strict-timing`` makes inconclusive fail the run without calling it passed."""

import pytest

from tests.claimkit import claim_toml, claims_project

REGISTRY = "".join(
    claim_toml(i, stated="", unit="x", tolerance=">=10", needs='["time"]')
    for i in ("T1", "T2", "T3", "T4", "T5", "T6")
)

TESTS = """
import itertools
import statistics

import pytest

import claimcheck.llm.timing as timing
from claimcheck.llm.timing import Condition, Rounds, Timing
from claimcheck.verdict import ExactForm

QUIET = {"loadavg_1m": 0.5, "cores": 2, "probe_s": 0.002, "probe_spread": 1.05, "busy": False, "why": ""}
BUSY = dict(QUIET, loadavg_1m=4.0, busy=True, why="1-min load average 4.0 on 2 cores")


@pytest.fixture(autouse=True)
def load(request, monkeypatch):  # the verdicts must not depend on the load of the machine running this test
    busy = request.node.get_closest_marker("claim").args[0] in ("T5", "T6")
    monkeypatch.setattr(timing, "machine_load", lambda: BUSY if busy else QUIET)


def rounds_of(values):
    it = itertools.cycle(values)
    return Timing(Rounds({"x": lambda: next(it)}, warmup=0).run(3), 0.2, "test")


def median_x(rounds):
    return statistics.median(r["x"] for r in rounds)


@pytest.mark.claim("T1")
def test_clearly_above(claim):
    claim.check_timing(rounds_of([20.0, 21.0, 19.0, 22.0]), median_x)


@pytest.mark.claim("T2")
def test_clearly_below(claim):
    claim.check_timing(rounds_of([3.0, 4.0, 3.5, 2.5]), median_x)


@pytest.mark.claim("T3")
def test_straddling(claim):
    claim.check_timing(rounds_of([2.0, 30.0, 5.0, 25.0, 9.0, 11.0]), median_x)


@pytest.mark.claim("T4")
def test_condition_fails_though_value_passes(claim):
    cond = Condition("flat", lambda rounds: 5.0, (0.0, 1.0), "a condition far outside its bar")
    claim.check_timing(rounds_of([20.0, 21.0, 19.0]), median_x, conditions=[cond])


@pytest.mark.claim("T5")
def test_clearly_below_on_a_busy_machine(claim):
    claim.check_timing(rounds_of([3.0, 4.0, 3.5, 2.5]), median_x)


@pytest.mark.claim("T6")
def test_exact_form_fails_on_a_busy_machine_too(claim):
    claim.check_timing(rounds_of([20.0, 21.0, 19.0]), median_x, exact=[ExactForm("count", 3, (4, 4), "a count that must be 4")])
"""


@pytest.fixture
def project(pytester, monkeypatch):
    return claims_project(pytester, REGISTRY, {"test_timing_claims.py": TESTS}, monkeypatch=monkeypatch)


def outcomes(project):
    report = project.report()
    return report.claims, report.doc


def test_passed_failed_and_inconclusive_as_the_rule_says(project):
    result = project.run(kit=False)
    got, doc = outcomes(project)
    assert {k: v["outcome"] for k, v in got.items()} == {
        "T1": "passed",
        "T2": "failed",
        "T3": "inconclusive",
        "T4": "failed",
        "T5": "inconclusive",
        "T6": "failed",
    }
    assert doc["counts"] == {"passed": 1, "failed": 3, "inconclusive": 2}
    # the same samples as T2, measured on a busy machine: a failing interval there is not trusted
    assert got["T5"]["details"]["ci"]["high"] < 10
    assert (
        "T5 lay outside the bar, but on a busy machine" in got["T5"]["reason"]
        and "(busy: 1-min load average 4.0 on 2 cores)" in got["T5"]["reason"]
    )
    ci = got["T3"]["details"]["ci"]
    assert (
        ci["low"] < 10 < ci["high"] and ci["bar"] == "at least 10" and ci["rounds"] > 3
    )  # more rounds were taken
    assert "inconclusive" in got["T3"]["reason"] and "machine load" in got["T3"]["reason"]
    assert got["T1"]["details"]["ci"]["low"] >= 10 and got["T2"]["details"]["ci"]["high"] < 10
    assert got["T4"]["details"]["conditions"]["flat"]["verdict"] == "failed"
    assert "load" in got["T1"]["details"] and "busy" in got["T1"]["details"]["load"]
    result.stdout.fnmatch_lines(["*inconclusive T3: 90% CI*vs bar at least 10*not counted as passed*"])
    assert result.ret == 1  # T2 and T4 failed; T3 alone would not fail the run


def test_inconclusive_alone_does_not_fail_the_run_unless_strict(project):
    assert project.run("-k", "T1 or T3", kit=False).ret == 0
    assert outcomes(project)[0]["T3"]["outcome"] == "inconclusive"
    strict = project.run("-k", "T1 or T3", "--claims-strict-timing", kit=False)
    assert strict.ret == 1
    assert outcomes(project)[0]["T3"]["outcome"] == "inconclusive"  # failed the run, still not called failed


CHEATS = """
import pytest

import claimcheck.llm.timing as timing


@pytest.fixture(autouse=True)
def quiet(monkeypatch):  # the machine's load is not what this test is about (and its probe imports torch)
    monkeypatch.setattr(timing, "machine_load", lambda: {"loadavg_1m": 0.5, "cores": 2, "probe_s": 0.002,
                                                         "probe_spread": 1.05, "busy": False, "why": ""})


@pytest.mark.claim("T1")
def test_catches_its_failed_verdict(claim):
    try:
        claim.check(3.0)
    except BaseException:
        pass


@pytest.mark.claim("T4")
def test_catches_its_inconclusive_verdict(claim):
    import itertools, statistics
    from claimcheck.llm.timing import Rounds, Timing

    it = itertools.cycle([2.0, 30.0, 5.0, 25.0, 9.0, 11.0])
    try:
        claim.check_timing(Timing(Rounds({"x": lambda: next(it)}, warmup=0).run(3), 0.2, "test"),
                           lambda rounds: statistics.median(r["x"] for r in rounds))
    except BaseException:
        pass
"""


def test_a_test_cannot_hide_its_verdict(pytester, monkeypatch):
    """Catching the verdict's exception never turns a failed or inconclusive claim into a pass
    (attack review)."""
    project = claims_project(pytester, REGISTRY, {"test_cheats.py": CHEATS}, monkeypatch=monkeypatch)
    result = project.run(kit=False)
    got, _ = outcomes(project)
    assert got["T1"]["outcome"] == "failed"
    assert got["T4"]["outcome"] == "inconclusive"
    assert result.ret == 1
    strict = project.run("-k", "T4", "--claims-strict-timing", kit=False)
    assert strict.ret == 1 and outcomes(project)[0]["T4"]["outcome"] == "inconclusive"
