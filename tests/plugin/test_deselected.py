"""A run that deselects tests says which, why, and the command that runs them: in the terminal
summary, in claims.json (``deselected``) and on the claims page. pytest's own "5 deselected"
said neither (the portable-LM lane's tests, left out unless the lane is asked for)."""

import json
import textwrap

import pytest

from claimcheck.plugin.collection import deselection

REGISTRY = "".join(
    f"""
[[claims]]
id = "{cid}"
title = "claim {cid}"
stated = "10"
unit = "x"
locator = "loc {cid}"
tolerance = ">=2"
needs = ["arch"]
"""
    for cid in ("C01", "C02", "C03")
)

TESTS = """
import pytest

@pytest.mark.claim("C01")
def test_c01(claim):
    claim.check(5.0)

@pytest.mark.claim("C03")
def test_c03(claim):
    claim.check(6.0)

@pytest.mark.portable_lm
@pytest.mark.claim("C02")
def test_c02_on_lm(claim):
    claim.check(5.0)

@pytest.mark.portable_lm
@pytest.mark.claim("C02")
def test_c02_again_on_lm(claim):
    claim.check(5.0)
"""


@pytest.fixture
def project(pytester, monkeypatch):
    for var in ("CLAIMCHECK_PROFILE", "CLAIMCHECK_LM", "CLAIMCHECK_REPORT_DIR"):
        monkeypatch.delenv(var, raising=False)
    claims = pytester.mkdir("claims")
    (claims / "claims.toml").write_text(REGISTRY, encoding="utf-8")
    (claims / "test_claims.py").write_text(textwrap.dedent(TESTS), encoding="utf-8")
    return pytester


def test_the_lanes_deselected_tests_are_named_and_explained(project):
    result = project.runpytest("claims", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, deselected=2)
    result.stdout.fnmatch_lines(
        [
            "2 tests deselected (C02): the portable-LM lane's, which runs only when asked for "
            "(--claims-lm NAME) and then alone, into its own report (reports/portable-smollm2/). "
            "To run them: pytest claims --claims-lm smollm2"
        ]
    )
    doc = json.loads((project.path / "reports" / "claims.json").read_text(encoding="utf-8"))
    assert doc["deselected"] == [
        {
            "tests": 2,
            "claims": ["claims:C02"],
            "run": "pytest claims --claims-lm smollm2",
            "why": "the portable-LM lane's, which runs only when asked for (--claims-lm NAME) "
            "and then alone, into its own report (reports/portable-smollm2/)",
        }
    ]
    page = (project.path / "reports" / "claims.html").read_text(encoding="utf-8")
    assert '<ul class="deselected" id="deselected"><li>2 tests deselected (C02): the portable-LM lane' in page
    assert "To run them: <code>pytest claims --claims-lm smollm2</code>" in page


def test_a_k_selection_is_its_own_reason(project):
    result = project.runpytest("claims", "-p", "no:cacheprovider", "-k", "C01")
    result.stdout.fnmatch_lines(
        [
            "2 tests deselected (C02): the portable-LM lane's*",
            "1 test deselected (C03): outside this run's -k 'C01'. To run them: pytest claims",
        ]
    )


def test_a_run_without_deselection_says_nothing_of_it(project):
    (project.path / "claims" / "test_claims.py").write_text(
        textwrap.dedent(TESTS.split("@pytest.mark.portable_lm")[0]), encoding="utf-8"
    )
    result = project.runpytest("claims", "-p", "no:cacheprovider")
    assert "deselected" not in result.stdout.str()
    assert "deselected" not in json.loads(
        (project.path / "reports" / "claims.json").read_text(encoding="utf-8")
    )


def test_in_the_lane_the_gpt2_tests_are_the_deselected_ones():
    groups = deselection(
        [("ch15:C29", False), ("ch15:C29", False), (None, False), ("ch15:C06", True)],
        "smollm2",
        ["claims/"],
        markexpr="not slow",
    )
    assert groups == [
        {
            "tests": 3,
            "claims": ["ch15:C29"],
            "run": "pytest claims/",
            "why": "the GPT-2 claims', since this run is the portable-LM lane (--claims-lm smollm2), which runs alone",
        },
        {
            "tests": 1,
            "claims": ["ch15:C06"],
            "why": "outside this run's -m 'not slow'",
            "run": "pytest claims/ --claims-lm smollm2",
        },
    ]


def test_the_command_names_the_claims_folder_not_the_other_tests(project):
    project.makeini("[pytest]\ntestpaths = tests claims\n")
    (project.mkdir("tests") / "test_other.py").write_text("def test_x():\n    pass\n", encoding="utf-8")
    result = project.runpytest("-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        ["2 tests deselected (C02): *. To run them: pytest claims --claims-lm smollm2"]
    )
