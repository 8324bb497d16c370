"""A claim test ends as its verdict says, raised where it is decided or where the test went on past
it, never rewritten in its report afterwards (issue 34): pytest's outcome and the claim's row agree."""

from pathlib import Path

import pytest

from tests.claimkit import claim_toml, claims_project

REGISTRY = "".join(claim_toml(f"C0{i}", stated="6", unit="s", tolerance="<=6") for i in range(1, 7))

TESTS = """
import pytest

from claimcheck.interval import CI
from claimcheck.verdict import Timed


def _straddles(claim):
    claim.decide(Timed(CI(6.0, 5.0, 7.0, 0.95, "test", 30), rounds=30, budget_s=1.0))


@pytest.mark.claim("C01")
def test_catches_a_failed_verdict(claim):
    try:
        claim.check(7)
    except BaseException:
        pass


@pytest.mark.claim("C02")
def test_catches_an_error_verdict(claim):
    try:
        claim.check("seven")
    except BaseException:
        pass


@pytest.mark.claim("C03")
def test_catches_an_inconclusive_verdict(claim):
    try:
        _straddles(claim)
    except BaseException:
        pass


@pytest.mark.claim("C04")
def test_inconclusive(claim):
    _straddles(claim)


@pytest.mark.xfail(reason="flaky")
@pytest.mark.claim("C05")
def test_marked_xfail_measures_nothing(claim):
    open("C05-measured", "w").close()
    claim.check(5)


@pytest.mark.claim("C06")
def test_measures_nothing(claim):
    pass
"""


@pytest.fixture
def project(pytester, monkeypatch):
    return claims_project(pytester, REGISTRY, {"test_ends.py": TESTS}, monkeypatch=monkeypatch)


def test_a_test_that_went_on_past_its_verdict_ends_as_the_verdict_says(project):
    result = project.run("-p", "no:html", kit=False)
    result.assert_outcomes(failed=3, skipped=2, errors=1)
    rows = project.report().claims
    assert rows["C01"]["outcome"] == "failed" and "but the test went on" in rows["C01"]["reason"]
    assert rows["C02"]["outcome"] == "error" and "not a number" in rows["C02"]["reason"]
    assert rows["C03"]["outcome"] == rows["C04"]["outcome"] == "inconclusive"
    assert rows["C06"]["outcome"] == "error" and "passed without a verdict" in rows["C06"]["reason"]


def test_an_xfail_mark_is_refused_before_the_test_measures(project):
    result = project.run("-p", "no:html", "-k", "C05", kit=False)
    result.assert_outcomes(errors=1)
    row = project.report().claims["C05"]
    assert row["outcome"] == "error" and row["reason"].startswith("C05: a claim test cannot be xfail: flaky")
    assert not any(Path(project.pytester.path).rglob("C05-measured"))


def test_strict_timing_fails_an_inconclusive_timing_where_it_is_decided(project):
    result = project.run("-p", "no:html", "-k", "C03 or C04", "--claims-strict-timing", kit=False)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["*C04 (--claims-strict-timing): inconclusive*"])
    rows = project.report().claims
    assert rows["C03"]["outcome"] == rows["C04"]["outcome"] == "inconclusive"


def test_the_plugin_never_rewrites_a_reports_outcome():
    import re

    plugin = Path(__file__).parents[2] / "claimcheck"
    assigned = [
        f"{p.name}: {line.strip()}"
        for p in sorted(plugin.rglob("*.py"))
        for line in p.read_text(encoding="utf-8").splitlines()
        if re.search(r"\b(report|rep|r)\.outcome\s*=[^=]", line)
    ]
    assert assigned == []
