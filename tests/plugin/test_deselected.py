"""A run that deselects tests says which, why, and the command that runs them: in the terminal
summary, in claims.json (``deselected``) and on the claims page. pytest's own "5 deselected"
said neither (the portable-LM lane's tests, left out unless the lane is asked for)."""

from types import SimpleNamespace

import pytest

from claimcheck.llm import pytest_kit
from claimcheck.plugin.collection import deselection
from claimcheck.plugin.state import STATE
from tests.claimkit import claim_toml, claims_project

REGISTRY = "".join(
    claim_toml(cid, title=f"claim {cid}", stated="10", unit="x", tolerance=">=2")
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
    return claims_project(pytester, REGISTRY, TESTS, monkeypatch=monkeypatch)


def test_the_lanes_deselected_tests_are_named_and_explained(project):
    result = project.run()
    result.assert_outcomes(passed=2, deselected=2)
    result.stdout.fnmatch_lines(
        [
            "2 tests deselected (more tests of C02): the portable-LM lane's, which runs only when asked for "
            "(--claims-lm NAME) and then alone, into its own report (reports/portable-smollm2/). "
            "To run them: pytest claims --claims-lm smollm2"
        ]
    )
    report = project.report()
    assert report["deselected"] == [
        {
            "kind": "lane",
            "tests": 2,
            "claims": ["claims:C02"],
            "run": "pytest claims --claims-lm smollm2",
            "why": "the portable-LM lane's, which runs only when asked for (--claims-lm NAME) "
            "and then alone, into its own report (reports/portable-smollm2/)",
        }
    ]
    page = report.page()
    assert (
        '<ul class="deselected" id="deselected"><li>2 tests deselected (more tests of C02): the portable-LM lane'
        in page
    )
    assert "To run them: <code>pytest claims --claims-lm smollm2</code>" in page


def test_a_k_selection_is_its_own_reason(project):
    result = project.run("-k", "C01")
    result.stdout.fnmatch_lines(
        [
            "2 tests deselected (more tests of C02): the portable-LM lane's*",
            "1 test deselected (C03): outside this run's -k 'C01'. To run them: pytest claims",
        ]
    )


def test_a_run_without_deselection_says_nothing_of_it(project):
    project.write("test_claims.py", TESTS.split("@pytest.mark.portable_lm")[0])
    result = project.run()
    assert "deselected" not in result.stdout.str()
    assert "deselected" not in project.report()


def test_in_the_lane_the_gpt2_tests_are_the_deselected_ones():
    # the core groups the records; the kit names its groups (pytest_claimcheck_deselected_group)
    # and words them (pytest_claimcheck_deselection_words), here on a run of the lane
    config = SimpleNamespace(stash={STATE: SimpleNamespace(settings=SimpleNamespace(lm="smollm2"))})
    groups = deselection(
        [("ch15:C29", "gpt2"), ("ch15:C29", "gpt2"), (None, "gpt2"), ("ch15:C06", None)],
        ["claims/"],
        markexpr="not slow",
        words=lambda group, where, rd: pytest_kit.pytest_claimcheck_deselection_words(
            config, group, where, rd
        ),
        run_args=pytest_kit.pytest_claimcheck_run_args(config),
    )
    assert groups == [
        {
            "kind": "gpt2",
            "tests": 3,
            "claims": ["ch15:C29"],
            "run": "pytest claims/",
            "why": "the GPT-2 claims', since this run is the portable-LM lane (--claims-lm smollm2), which runs alone",
        },
        {
            "kind": "expr",
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
        ["2 tests deselected (more tests of C02): *. To run them: pytest claims --claims-lm smollm2"]
    )


def test_a_lane_test_of_a_claim_that_needs_the_weights_is_not_marked_pretrained(pytester, monkeypatch):
    # the kit says so (hook pytest_claimcheck_test_needs): the lane brings its own model
    registry = claim_toml("C01", stated="10", unit="x", tolerance=">=2", needs='["weights"]')
    tests = """
    import pytest

    @pytest.mark.claim("C01")
    def test_on_gpt2(claim):
        claim.check(5.0)

    @pytest.mark.portable_lm
    @pytest.mark.claim("C01")
    def test_on_lm(claim):
        claim.check(5.0)
    """
    project = claims_project(pytester, registry, tests, monkeypatch=monkeypatch)
    result = project.runpytest("-p", "no:cacheprovider", "--co", "-q", "-m", "pretrained")
    result.stdout.fnmatch_lines(["*test_on_gpt2*"])
    lane = ("-p", "no:cacheprovider", "--co", "-q", "--claims-lm", "./m")
    assert "test_on_lm" not in project.runpytest(*lane, "-m", "pretrained").stdout.str()
    result = project.runpytest(
        "-p", "no:cacheprovider", "--co", "-q", "-m", "not pretrained", "--claims-lm", "./m"
    )
    result.stdout.fnmatch_lines(["*test_on_lm*"])


def test_pytests_header_counts_the_claims_without_a_test(pytester, monkeypatch):
    """The not-run placeholder of a claim without a test is an item too: ``-k C18`` printed
    "47 items / 48 deselected / -1 selected" (placeholders were deselected but never counted)."""
    registry = "".join(
        claim_toml(cid, title=f"claim {cid}", stated="10", unit="x", tolerance=">=2")
        for cid in ("C01", "C02", "C03", "C04")
    )
    tests = '\nimport pytest\n\n@pytest.mark.claim("C01")\ndef test_c01(claim):\n    claim.check(5.0)\n'
    project = claims_project(pytester, registry, tests, monkeypatch=monkeypatch)
    result = project.run("-k", "C01")
    result.stdout.fnmatch_lines(["collected 4 items / 3 deselected / 1 selected"])
    result.stdout.no_fnmatch_line("*-* selected*")
    result = project.run("-k", "C04")  # a claim without a test: its placeholder is what runs
    result.stdout.fnmatch_lines(["collected 4 items / 3 deselected / 1 selected"])
