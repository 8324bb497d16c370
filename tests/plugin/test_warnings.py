"""In a claims run a claim test's warnings are a recorded detail of its claim, not an error; the
harness's own tests (and a claim that is about a warning) keep ``filterwarnings = error``."""

import pytest

from tests.claimkit import claim_toml, claims_project

REGISTRY = "".join(claim_toml(cid) for cid in ("C01", "C02", "C03"))

TESTS = """
import warnings
import pytest

def library_call():
    warnings.warn("`past` is deprecated, use `cache`", FutureWarning)
    return 36.0

@pytest.fixture(scope="session")
def model():
    warnings.warn("weights loaded the old way", DeprecationWarning)
    return 1

@pytest.mark.claim("C01")
def test_c01(claim, model):
    claim.check(library_call())

@pytest.mark.claim("C02")
@pytest.mark.filterwarnings("error::FutureWarning")  # this claim is about the warning itself
def test_c02(claim):
    claim.check(library_call())

@pytest.mark.claim("C03")
def test_c03(claim):
    claim.check(36.0)

def test_not_a_claim():
    library_call()
"""


@pytest.fixture
def project(pytester, monkeypatch):
    ini = "[pytest]\nfilterwarnings =\n    error\n"
    return claims_project(pytester, REGISTRY, TESTS, ini=ini, monkeypatch=monkeypatch)


def test_a_claims_warnings_are_recorded_not_raised(project):
    # an in-process run registers claimcheck's plugin again, already imported by this process: pytest
    # says it cannot rewrite its asserts, which the inner ini's `error` would turn into a failure of
    # the run itself (under the `pytest` console script; `python -m pytest` finds no module to rewrite)
    result = project.run("-W", "ignore::pytest.PytestAssertRewriteWarning")
    result.assert_outcomes(passed=2, failed=2)  # C01, C03 pass; C02 and the plain test raise
    by_id = project.report().claims
    assert by_id["C01"]["outcome"] == "passed"
    caught = by_id["C01"]["details"]["warnings"]
    assert [(w["category"], w["message"]) for w in caught] == [
        ("DeprecationWarning", "weights loaded the old way"),  # in the session fixture's setup
        ("FutureWarning", "`past` is deprecated, use `cache`"),
    ]
    assert all(w["where"].endswith(".py:6") or w["where"].endswith(".py:11") for w in caught)
    assert "warnings" not in by_id["C03"]["details"]
    assert by_id["C02"]["outcome"] in ("error", "failed")  # the claim about the warning: pytest's filter
    result.stdout.fnmatch_lines(["*FAILED*test_not_a_claim*FutureWarning*"])  # the harness's rule stands
