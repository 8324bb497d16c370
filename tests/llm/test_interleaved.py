"""``claimcheck.llm.timing.interleaved``: any callables timed with the kit's rounds, budgets and
confidence-interval verdicts, without subclassing. A fake clock makes every sample exact, so the
verdicts below depend on the rule alone, never on this machine's speed."""

import pytest

from claimcheck.llm.profiles import get
from claimcheck.llm.timing import SidesTiming, interleaved
from tests.claimkit import claim_toml, claims_project


class FakeClock:
    """A clock that only the sides move: ``spend(s)`` is a side's call taking ``s`` seconds."""

    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def spend(self, seconds: float) -> None:
        self.now += seconds


def test_the_profile_sets_the_first_rounds_and_the_budget():
    quick, clock, calls = get("quick"), FakeClock(), []

    def side(name, s):
        return lambda: (calls.append(name), clock.spend(s))

    t = interleaved(quick, warmup=1, timer=clock, read=side("read", 2.0), tokenize=side("tokenize", 1.0))
    assert isinstance(t, SidesTiming) and t.sides == ("read", "tokenize")
    assert calls[:4] == ["read", "tokenize", "read", "tokenize"]  # warm-up, then interleaved rounds
    assert t.rounds.n == quick.timing_repeats == 5 and len(calls) == 2 * (1 + 5)
    assert t.budget_s == quick.timing_budget_s and t.profile == "quick"
    assert t.seconds("read") == [2.0] * 5 and t.median_s("tokenize") == 1.0
    assert t.ratio("read", "tokenize")(t.per_round()) == 2.0
    details = t.details()
    assert details["profile"] == "quick" and details["read_s"]["samples"] == [2.0] * 5
    # what a side returns is not its sample: the wall time of the call is
    assert interleaved(quick, timer=FakeClock(), x=lambda: 123.0).seconds("x") == [0.0] * 5


def test_a_slow_side_gets_the_rounds_the_base_budget_allows():
    clock = FakeClock()
    t = interleaved(get("quick"), warmup=0, timer=clock, slow=lambda: clock.spend(10.0))
    assert t.rounds.n == 3 and t.rounds.cut_short  # 30 s of base budget: no fourth 10 s round starts


def test_bad_sides_are_named():
    with pytest.raises(ValueError, match="at least one side"):
        interleaved(get("quick"))
    with pytest.raises(ValueError, match="side.s. tokenize must be zero-argument callables"):
        interleaved(get("quick"), read=lambda: None, tokenize=3)
    t = interleaved(get("quick"), timer=FakeClock(), read=lambda: None)
    with pytest.raises(KeyError, match=r"no side 'write' in this timing \(sides: read\)"):
        t.ratio("read", "write")


REGISTRY = "".join(
    claim_toml(i, stated=stated, unit="x", tolerance=tolerance, needs='["time"]')
    for i, stated, tolerance in (("P1", "2", "range:1.5..2.5"), ("F1", "", ">=5"), ("I1", "", ">=10"))
)

TESTS = """
import itertools

import pytest

import claimcheck.llm.timing as timing
from claimcheck.llm.timing import interleaved

QUIET = {"loadavg_1m": 0.5, "cores": 2, "probe_s": 0.002, "probe_spread": 1.05, "busy": False, "why": ""}


@pytest.fixture(autouse=True)
def quiet(monkeypatch):  # the verdicts must not depend on the load of the machine running this test
    monkeypatch.setattr(timing, "machine_load", lambda: QUIET)


class FakeClock:
    now = 0.0

    def __call__(self):
        return self.now

    def spend(self, seconds):
        self.now += seconds


def timed(claims_profile, tokenize_s):
    clock, it = FakeClock(), itertools.cycle(tokenize_s)
    return interleaved(
        claims_profile,
        timer=clock,
        read=lambda: clock.spend(2.0),
        tokenize=lambda: clock.spend(next(it)),
    )


@pytest.mark.claim("P1")
def test_read_takes_twice_as_long(claim, claims_profile):
    t = timed(claims_profile, [1.0])
    claim.check_timing(t, t.ratio("read", "tokenize"))


@pytest.mark.claim("F1")
def test_read_takes_five_times_as_long(claim, claims_profile):
    t = timed(claims_profile, [1.0, 0.9, 1.1])
    claim.check_timing(t, t.ratio("read", "tokenize"))


@pytest.mark.claim("I1")
def test_read_takes_ten_times_as_long(claim, claims_profile):
    t = timed(claims_profile, [1.0, 0.05, 0.5, 0.08, 0.15, 0.1])
    claim.check_timing(t, t.ratio("read", "tokenize"))
"""


def test_a_claim_on_interleaved_callables_is_decided_like_the_kits_own(pytester, monkeypatch):
    project = claims_project(pytester, REGISTRY, {"test_tokenize.py": TESTS}, monkeypatch=monkeypatch)
    project.run("--claims-profile", "quick")
    got = project.report().claims
    assert {k: v["outcome"] for k, v in got.items()} == {"P1": "passed", "F1": "failed", "I1": "inconclusive"}
    p1, f1, i1 = got["P1"]["details"], got["F1"]["details"], got["I1"]["details"]
    assert p1["ci"]["low"] == p1["ci"]["high"] == 2.0 and p1["rounds"] == 5  # decided on the first rounds
    assert p1["budget_s"] == 8.0 and p1["profile"] == "quick" and len(p1["read_s"]["samples"]) == 5
    assert f1["ci"]["high"] < 5 and f1["ci"]["bar"] == "at least 5"
    # undecided: rounds were added until the profile's 8 s budget (of the fake clock) was spent
    assert i1["ci"]["low"] < 10 < i1["ci"]["high"] and i1["rounds"] > 5
    assert 8.0 - 2.5 < i1["extra_seconds"] <= 8.0
    assert "within a budget of 8 s" in got["I1"]["reason"]
