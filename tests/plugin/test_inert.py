"""claimcheck stays out of every pytest run that is not a claims run.

An unrelated project's run, in an environment where claimcheck is installed, must come out as it
would without claimcheck: same exit code, same pytest-html report (title, columns, rows, summary),
no torch imported, no ``CLAIMCHECK_*`` variable read, no file written, no hook of claimcheck's
glue registered. The runs with claimcheck that check it are subprocesses (``runpytest_subprocess``):
this process has torch loaded already (tests/conftest.py), so only a fresh interpreter can show it
is not. The runs without claimcheck they are compared with run in this process: what they show
(exit code, pytest-html's report, files) does not depend on what this process has imported.
"""

import html
import json
import re

import pytest

from claimcheck.plugin.options import find_registries
from tests.claimkit import claim_toml, lean

# Written by the unrelated project's own conftest at the very end of its run.
PROBE = """
import json, sys

def pytest_unconfigure(config):
    names = sorted(str(name) for name, _ in config.pluginmanager.list_name_plugin())
    with open("probe.json", "w") as f:
        json.dump({"torch": "torch" in sys.modules, "plugins": names}, f)
"""

PLAIN_TESTS = """
import pytest

def test_passes():
    assert 1 + 1 == 2

def test_fails():
    assert 1 + 1 == 3

@pytest.mark.skip(reason="not today")
def test_skipped():
    pass
"""

# claimcheck's plugins that may be loaded in any run: the two entry points and the options module
ENTRY_MODULES = {"claimcheck", "claimcheck-llm", "claimcheck.plugin.options"}
WITHOUT_CLAIMCHECK = ("-p", "no:claimcheck", "-p", "no:claimcheck-llm")
# every run of an unrelated project, with claimcheck or without: no cache, and not Hypothesis's plugin,
# which imports all of Hypothesis at the end of a run (~150 modules, assertion-rewritten) and has
# nothing to do with claimcheck staying out (tests.claimkit.lean)
PLAIN = ("-p", "no:cacheprovider", *lean())


@pytest.fixture
def unrelated(pytester, monkeypatch):
    """A project with its own small test suite and no claims registry; a stray CLAIMCHECK_X set."""
    pytester.makeconftest(PROBE)
    pytester.makepyfile(test_plain=PLAIN_TESTS)
    monkeypatch.setenv("CLAIMCHECK_X", "1")
    return pytester


def html_report_parts(path) -> dict:
    """What a reader of pytest-html's report sees, minus what differs between any two runs
    (timestamps, durations, the environment table's plugin versions)."""
    text = path.read_text(encoding="utf-8")
    blob = json.loads(html.unescape(re.search(r'data-jsonblob="([^"]*)"', text).group(1)))
    rows = {
        test: [[cell for cell in phase["resultsTableRow"] if "col-duration" not in cell] for phase in phases]
        for test, phases in blob["tests"].items()
    }
    summary = re.search(r'<div class="summary__data">.*?<p class="run-count">', text, re.S).group(0)
    return {
        "title": re.findall(r"<title[^>]*>.*?</title>|<h1[^>]*>.*?</h1>", text, re.S) + [blob["title"]],
        "head": re.search(r"<thead.*?</thead>", text, re.S).group(0),
        "summary": summary,
        "postfix": re.findall(r'<div class="additional-summary (?:summary|postfix)">.*?</div>', text, re.S),
        "rows": rows,
    }


def probe(pytester) -> dict:
    return json.loads((pytester.path / "probe.json").read_text(encoding="utf-8"))


def test_an_unrelated_run_with_pytest_html_is_unchanged(unrelated):
    pytest.importorskip("pytest_html")
    without = unrelated.runpytest_inprocess(*PLAIN, "--html=without/report.html", *WITHOUT_CLAIMCHECK)
    with_cc = unrelated.runpytest_subprocess(*PLAIN, "--html=with/report.html")
    with_probe = probe(unrelated)

    assert with_cc.ret == without.ret == pytest.ExitCode.TESTS_FAILED
    with_cc.assert_outcomes(passed=1, failed=1, skipped=1)
    report = unrelated.path / "with" / "report.html"
    assert html_report_parts(report) == html_report_parts(unrelated.path / "without" / "report.html")
    assert "claimcheck" not in report.read_text(encoding="utf-8").split("data-jsonblob")[0]
    assert not with_probe["torch"]
    ours = {name for name in with_probe["plugins"] if "claimcheck" in name}
    assert ours <= ENTRY_MODULES, ours - ENTRY_MODULES  # no glue, no state, no html or xdist hooks
    assert not (unrelated.path / "reports").exists()
    assert "CLAIMCHECK_X" not in str(with_cc.outlines + with_cc.errlines)


def test_an_unrelated_run_without_pytest_html_is_unchanged(unrelated):
    without = unrelated.runpytest_inprocess(*PLAIN, "-p", "no:html", *WITHOUT_CLAIMCHECK)
    with_cc = unrelated.runpytest_subprocess(*PLAIN, "-p", "no:html")
    assert with_cc.ret == without.ret == pytest.ExitCode.TESTS_FAILED
    with_cc.assert_outcomes(passed=1, failed=1, skipped=1)
    assert not probe(unrelated)["torch"]
    assert not (unrelated.path / "reports").exists()
    # pytester's own files, and Python's bytecode cache (written wherever PYTHONDONTWRITEBYTECODE is unset)
    written = {p.name for p in unrelated.path.iterdir()} - {"stdout", "stderr", "__pycache__"}
    assert {n for n in written if not n.startswith("runpytest-")} == {
        "conftest.py",
        "probe.json",
        "test_plain.py",
    }


def test_an_opt_in_makes_it_a_claims_run(unrelated):
    """``-p claimcheck`` (or any --claims-* option) asks for claimcheck: then its settings count,
    and the stray variable is the error it always was in a claims run."""
    result = unrelated.runpytest_subprocess(*PLAIN, "-p", "claimcheck")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*CLAIMCHECK_X=1: not a claimcheck setting*"])


def test_registries_in_hidden_folders_virtualenvs_and_node_modules_do_not_count(pytester, monkeypatch):
    registry = (
        '[[claims]]\nid = "C01"\ntitle = "t"\nstated = "1"\nunit = "B"\nlocator = "l"\nneeds = ["arch"]\n'
    )
    for folder in (
        ".git/x",
        ".venv/lib",
        "env/lib/python3.11/site-packages/pkg",
        "node_modules/pkg",
        "web/node_modules/a",
    ):
        (pytester.path / folder).mkdir(parents=True)
        (pytester.path / folder / "claims.toml").write_text(registry, encoding="utf-8")
    (pytester.path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n", encoding="utf-8")
    pytester.makepyfile(test_plain="def test_ok():\n    pass\n")
    assert find_registries(pytester.path) == []
    monkeypatch.setenv("CLAIMCHECK_X", "1")  # would stop a claims run: proves this one is not
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert not (pytester.path / "reports").exists()

    (pytester.path / "claims" / "book").mkdir(parents=True)
    (pytester.path / "claims" / "book" / "claims.toml").write_text(registry, encoding="utf-8")
    assert find_registries(pytester.path) == [pytester.path / "claims" / "book" / "claims.toml"]
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # a claims run now: the stray variable counts


def test_find_registries_takes_its_skip_patterns_by_position_too(tmp_path):
    """``find_registries(folder, skip)``, as before issue 24: ``skip`` by position or by name, and a
    function with its own name and docstring (not a ``functools.partial``)."""
    for folder in ("claims/a", "claims/skipme"):
        (tmp_path / folder).mkdir(parents=True)
        (tmp_path / folder / "claims.toml").write_text("[chapter]\n", encoding="utf-8")
    kept = [tmp_path / "claims" / "a" / "claims.toml"]
    assert find_registries(tmp_path, ("skipme",)) == kept
    assert find_registries(tmp_path, skip=("skipme",)) == kept
    assert find_registries.__name__ == "find_registries" and "claims.toml" in find_registries.__doc__


# --- a claims run is one the user asked for --------------------------------------------------------
THEIR_CLAIMS = "".join(  # another project's insurance claims: a [[claims]] table of its own
    f'[[claims]]\nid = "{n}"\namount = {100 * n}\nstatus = "open"\n\n' for n in range(1, 9)
)
THEIR_DATA = '[policy]\nholder = "someone"\n\n[[claims]]\namount = 300\n'
THEIR_REPORT = '{"claims": [{"id": 1, "paid": true}], "total": 300}\n'
THEIR_TEST = """
import pathlib, tomllib

def test_their_claims_load():
    data = tomllib.loads(pathlib.Path(__file__).with_name("claims.toml").read_text())
    assert len(data["claims"]) == 8

def test_fails():
    assert False
"""


@pytest.fixture
def their_project(pytester):
    """An unrelated project whose own files are named like claimcheck's: tests/claims/claims.toml
    (with a test beside it), data/claims.toml, and a reports/claims.json of its own."""
    for folder, text in (("tests/claims", THEIR_CLAIMS), ("data", THEIR_DATA)):
        (pytester.path / folder).mkdir(parents=True)
        (pytester.path / folder / "claims.toml").write_text(text, encoding="utf-8")
    (pytester.path / "tests" / "claims" / "test_their_claims.py").write_text(THEIR_TEST, encoding="utf-8")
    (pytester.path / "reports").mkdir()
    (pytester.path / "reports" / "claims.json").write_text(THEIR_REPORT, encoding="utf-8")
    return pytester


def files_of(folder) -> dict:
    return {
        str(p.relative_to(folder)): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
        and "__pycache__" not in p.parts
        and not p.name.startswith("runpytest-")
        and p.name not in ("stdout", "stderr")  # pytester's own files
    }


@pytest.mark.parametrize("args", [(), ("tests",)], ids=["pytest", "pytest tests"])
def test_their_files_named_claims_toml_leave_their_run_unchanged(their_project, args):
    """Once: 8 failing "registry" tests (exit 1), their reports/claims.json replaced, claims.html,
    tests.html and a lock file written; with two such files of one chapter id, exit 4."""
    before = files_of(their_project.path)
    without = their_project.runpytest_inprocess(*args, *PLAIN, *WITHOUT_CLAIMCHECK)
    with_cc = their_project.runpytest_subprocess(*args, *PLAIN)
    assert with_cc.ret == without.ret == pytest.ExitCode.TESTS_FAILED
    with_cc.assert_outcomes(passed=1, failed=1)
    assert "registry" not in with_cc.stdout.str() and "claims.toml" not in with_cc.stdout.str()
    assert files_of(their_project.path) == before  # no file written, their report untouched


#: a claimcheck registry of one claim (chapter "bk"), with no test for it yet
ONE_CLAIM = '[chapter]\nid = "bk"\n' + claim_toml(
    "C01", title="t", stated="1", unit="B", locator="l", tolerance="exact"
)


def test_a_claims_toml_in_the_claims_folder_without_a_chapter_is_one_clear_error(pytester):
    (pytester.path / "claims").mkdir()
    (pytester.path / "claims" / "claims.toml").write_text(THEIR_CLAIMS, encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:html")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(failed=1)  # one error, not one per [[claims]] table
    result.stdout.fnmatch_lines(
        ["*claims.toml: field 'chapter': not a claimcheck registry: it has no ?chapter? table*"]
    )


def test_the_ini_key_names_registries_outside_a_claims_folder(pytester):
    (pytester.path / "book").mkdir()
    (pytester.path / "book" / "claims.toml").write_text(ONE_CLAIM, encoding="utf-8")
    (pytester.path / "data").mkdir()
    (pytester.path / "data" / "claims.toml").write_text(THEIR_DATA, encoding="utf-8")
    pytester.makeini("[pytest]\nclaims_registries = book/claims.toml\n")
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:html")
    result.assert_outcomes(skipped=1)  # C01's placeholder (no test yet); data/claims.toml not collected
    rows = json.loads((pytester.path / "reports" / "claims.json").read_text(encoding="utf-8"))["claims"]
    assert [r["key"] for r in rows] == ["bk:C01"]


def test_a_claims_json_claimcheck_did_not_write_is_never_overwritten(pytester):
    (pytester.path / "claims").mkdir()
    (pytester.path / "claims" / "claims.toml").write_text(ONE_CLAIM, encoding="utf-8")
    (pytester.path / "reports").mkdir()
    (pytester.path / "reports" / "claims.json").write_text(THEIR_REPORT, encoding="utf-8")
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:html")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*reports/claims.json was not written by claimcheck*--claims-report-dir*"])
    assert (pytester.path / "reports" / "claims.json").read_text(encoding="utf-8") == THEIR_REPORT
    assert sorted(p.name for p in (pytester.path / "reports").iterdir()) == ["claims.json"]
