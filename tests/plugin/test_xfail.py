"""Only the recorder's verdicts decide a claim: a claim test's xfail (mark or call) is an error,
unless the registry's ``expected_fail`` says the figure is known not to hold; a near-tie is a
verdict of its own, not pytest's xfail (issue 18: an xfailed failure was reported as held)."""

import pytest

from tests.claimkit import claim_toml, claims_project


def claim(id, stated="6", tolerance="exact", extra=""):
    return claim_toml(id, title=f"claim {id}", stated=stated, unit="", tolerance=tolerance, extra=extra)


REGISTRY = (
    claim("C01")
    + claim("C02")
    + claim("C03")
    + claim("C04", extra='expected_fail = "the printed 6 is a typo for 5"')
    + claim("C05", extra='expected_fail = "known"')
    + claim("C06", stated="0", tolerance="<=0")
    + claim("C07")
)

TESTS = """
from dataclasses import dataclass

import pytest


@dataclass
class Tie:
    measured: int = 2
    near_tie: bool = True
    diverged: bool = False

    def describe(self):
        return "2 tokens differ where the top two logits tie"

    def details(self):
        return {}


@pytest.mark.xfail(reason="flaky")
@pytest.mark.claim("C01")
def test_marked_and_failing(claim):
    claim.check(5)


@pytest.mark.claim("C02")
def test_xfail_call(claim):
    pytest.xfail("not today")


@pytest.mark.xfail(strict=True)
@pytest.mark.claim("C03")
def test_marked_and_holding(claim):
    claim.check(6)


@pytest.mark.xfail(reason="typo in print")
@pytest.mark.claim("C04")
def test_expected(claim):
    claim.check(5)


@pytest.mark.claim("C05")
def test_expected_but_no_verdict(claim):
    pytest.xfail("gave up")


@pytest.mark.claim("C06")
def test_tie(claim):
    claim.check_comparison(Tie())
    claim.check(0)  # a later check that holds does not upgrade the near-tie


@pytest.mark.claim("C07")
def test_plain(claim):
    claim.check(6)
"""


@pytest.fixture
def run(pytester, monkeypatch):
    project = claims_project(pytester, REGISTRY, {"test_x.py": TESTS}, monkeypatch=monkeypatch)
    result = project.run("-p", "no:html")
    return result, project.report().claims


def test_a_claim_tests_xfail_is_an_error(run):
    result, rows = run
    for cid, why in (("C01", "flaky"), ("C02", "not today"), ("C03", "xfail without a reason")):
        assert rows[cid]["outcome"] == "error", cid
        assert rows[cid]["reason"].startswith(f"{cid}: a claim test cannot be xfail: {why}"), rows[cid][
            "reason"
        ]
        assert "expected_fail" in rows[cid]["reason"]
    assert result.ret == 1  # pytest's own exit code: the errors fail the run


def test_expected_fail_keeps_the_verdict_and_says_so(run):
    _, rows = run
    assert rows["C04"]["outcome"] == "failed"
    assert rows["C04"]["reason"].startswith("expected to fail (the printed 6 is a typo for 5): ")
    assert rows["C05"]["outcome"] == "error" and "without a verdict" in rows["C05"]["reason"]


def test_near_tie_is_its_own_verdict_not_xfail(run):
    result, rows = run
    assert rows["C06"]["outcome"] == "near-tie"
    assert rows["C06"]["reason"] == "2 tokens differ where the top two logits tie"
    assert rows["C07"]["outcome"] == "passed"
    result.stdout.fnmatch_lines(["*1 near-tie*"])


def test_stated_override_cannot_be_hidden_by_xfail(pytester, monkeypatch):
    """The issue's case: ``@pytest.mark.xfail`` on a claim run with ``--claims-stated`` that must fail."""
    test = """
        import pytest

        @pytest.mark.xfail
        @pytest.mark.claim("C26")
        def test_c26(claim):
            claim.check(5)
    """
    project = claims_project(
        pytester, claim("C26", stated="5"), {"test_c26.py": test}, monkeypatch=monkeypatch
    )
    project.run("-p", "no:html", "--claims-stated", "C26=6")
    row = project.report()["claims"][0]
    assert row["outcome"] == "error" and "a claim test cannot be xfail" in row["reason"]


def test_expected_fail_must_say_why(tmp_path):
    from claimcheck.registry import load_registry

    path = tmp_path / "claims.toml"
    path.write_text(claim("C01", extra='expected_fail = ""'), encoding="utf-8")
    issues = [str(i) for i in load_registry(path).issues]
    assert any("expected_fail" in i and "non-empty string" in i for i in issues), issues
