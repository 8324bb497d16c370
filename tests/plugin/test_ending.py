"""Ends of runs (issue 18): SIGINT and SIGTERM leave a valid report of the claims decided so far,
with pytest's exit code and no traceback from claimcheck's hooks; two runs of one checkout
read-merge-write reports/claims.json under a file lock, so neither loses the other's rows.

The runs that end by a signal and the two concurrent runs are subprocesses; the earlier run
whose report a test starts from, and ``claimcheck summary``, run in this process (:func:`earlier`,
:func:`summary_of`). The project is tiny (no torch claims).
"""

import os
import subprocess
import sys
import textwrap

import pytest

from claimcheck.cli import main as claimcheck_main
from tests.claimkit import lean, read_report

CLAIM = """
[[claims]]
id = "{id}"
title = "claim {id}"
stated = "5"
unit = ""
locator = "loc {id}"
tolerance = ">=1"
needs = ["arch"]
"""

TESTS = """
import os
import signal
import time

import pytest


@pytest.mark.claim("C01")
def test_c01(claim):
    claim.check(5)


@pytest.mark.claim("C02")
def test_c02(claim):
    how = os.environ.get("END_WITH")
    if how == "SIGTERM-twice":  # GNU timeout: to its child, then to the process group
        import threading

        def twice():
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.5)
            os.kill(os.getpid(), signal.SIGTERM)

        threading.Thread(target=twice, daemon=True).start()
        time.sleep(30)
    elif how:  # what `timeout`, a CI cancel or Ctrl-C does, in the middle of a measurement
        os.kill(os.getpid(), getattr(signal, how))
        time.sleep(30)
    claim.check(5)


@pytest.mark.claim("C03")
def test_c03(claim):
    claim.check(5)


@pytest.mark.claim("C04")
def test_c04(claim):
    claim.check(5)
"""

SLOW_MERGE = """
import os
import time

import claimcheck.partial

_keep = claimcheck.partial.keep_unselected


def slow(doc, path, **kw):  # between reading the earlier report and writing the new one
    out = _keep(doc, path, **kw)
    time.sleep(float(os.environ.get("MERGE_DELAY", "0")))
    return out


claimcheck.partial.keep_unselected = slow
"""


@pytest.fixture
def project(pytester, monkeypatch):
    """The project, in pytester's folder (so that :func:`earlier` can run it in this process)."""
    for var in [v for v in os.environ if v.startswith("CLAIMCHECK_")]:
        monkeypatch.delenv(var)
    root = pytester.path
    claims = root / "claims"
    claims.mkdir()
    (claims / "claims.toml").write_text(
        "[chapter]\n" + "".join(CLAIM.format(id=f"C0{i}") for i in range(1, 5)), encoding="utf-8"
    )
    (claims / "test_claims.py").write_text(textwrap.dedent(TESTS), encoding="utf-8")
    (root / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    return root


def earlier(pytester, *args, kit=False):
    """The run whose report a later run starts from, in this process (no signal: nothing needs a
    fresh interpreter), with the same plugins as :func:`run`'s; returns its exit code."""
    return pytester.runpytest_inprocess(
        "claims", "-p", "no:cacheprovider", "-p", "no:html", *lean(kit), *args
    ).ret


def run(project, *args, wait=True, kit=False, **env):
    """pytest on the project in a fresh interpreter, with the LLM kit's plugin only if ``kit`` (its
    fingerprint imports torch; these claims measure nothing with it): :func:`tests.claimkit.lean`."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMCHECK_")}
    environ.update(env)
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "claims",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:html",
        *lean(kit),
        *args,
    ]
    proc = subprocess.Popen(
        cmd, cwd=project, env=environ, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    if not wait:
        return proc
    return proc.communicate(timeout=300)[0], proc.returncode


def rows(project):
    report = read_report(project)
    return report.doc, report.claims


def summary_of(project, capsys) -> str:
    """What ``claimcheck summary reports/claims.json`` prints for the project (in this process: the
    command is a function of the report)."""
    capsys.readouterr()
    assert claimcheck_main(["summary", str(project / "reports" / "claims.json")]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT", "SIGTERM-twice"])
def test_a_signal_leaves_the_report_of_what_was_decided(project, pytester, capsys, how):
    signame = how.split("-")[0]
    assert earlier(pytester, "-k", "not C04") == 0  # the earlier report: C01-C03, C04 never measured
    out, rc = run(project, END_WITH=how)
    assert rc == pytest.ExitCode.INTERRUPTED, out  # pytest's own code for an interrupted run
    for words in ("Traceback", "During handling", "direct cause"):
        assert words not in out, out
    doc, got = rows(project)
    assert doc["interrupted"] == {
        "by": signame,
        "decided": ["claims:C01"],
        "not_reached": ["claims:C02", "claims:C03", "claims:C04"],
    }
    assert got["C01"]["outcome"] == "passed" and not got["C01"].get("carried")
    for cid in ("C02", "C03"):  # selected, not decided: the earlier run's rows, marked as such (issue 26)
        assert got[cid]["outcome"] == "passed" and got[cid]["carried"]["from"]
        assert got[cid]["carried"]["why"] == f"not reached: the run was interrupted ({signame})"
    assert got["C04"]["outcome"] == "not-run" and got["C04"]["reason"].startswith("interrupted: ")
    said = (
        f"interrupted ({signame}): 1 claim decided before the end; 3 not reached (C02, C03, C04): C02, C03 "
        "show the rows of the run of"
    )
    assert said in out
    # the page and the summary say it too, and never that this run "did not select" them
    page = (project / "reports" / "claims.html").read_text(encoding="utf-8")
    assert 'id="interrupted"' in page and said in page and "not reached: the run was interrupted" in page
    assert "this run did not select them" not in page
    summary = summary_of(project, capsys)
    assert said in summary and "this run was interrupted before it reached them" in summary


def test_an_interrupted_run_without_an_earlier_report_says_interrupted_in_the_json(project, capsys):
    """Issue 26: with no earlier report, the page said "interrupted" while the JSON reason said
    "not selected in this run"."""
    out, rc = run(project, END_WITH="SIGTERM")
    assert rc == pytest.ExitCode.INTERRUPTED, out
    doc, got = rows(project)
    assert doc["interrupted"]["not_reached"] == ["claims:C02", "claims:C03", "claims:C04"]
    for cid in ("C02", "C03", "C04"):
        assert got[cid]["outcome"] == "not-run" and got[cid]["reason"].startswith("interrupted: "), got[cid]
        assert "carried" not in got[cid]
    summary = summary_of(project, capsys)
    assert "3 not reached before the run was interrupted (C02, C03, C04)" in summary
    assert "not selected in this run" not in summary


def test_a_run_cut_short_in_collection_names_the_claim_it_selected_not_what_it_had_collected(
    project, pytester
):
    """Stopped while collecting, a `-k C05` run had collected the registry's formula claim C06 (not
    yet deselected) and not C05: the rows it did not reach are every row (its selection was never
    known), C05's earlier row among them, marked as carried and not reached (attack of issue 26)."""
    with (project / "claims" / "claims.toml").open("a", encoding="utf-8") as f:
        f.write(CLAIM.format(id="C05"))
        # a formula claim: the registry's own item, collected (with its claim id) before any module
        f.write(CLAIM.format(id="C06").replace('tolerance = ">=1"', 'tolerance = ">=1"\nformula = "2 + 3"'))
    (project / "claims" / "test_z_c05.py").write_text(
        "import pytest\n\n@pytest.mark.claim('C05')\ndef test_c05(claim):\n    claim.check(5)\n",
        encoding="utf-8",
    )
    assert earlier(pytester, "-k", "not C04") == 0
    (project / "claims" / "test_m_cut.py").write_text(
        "import os, signal, time\nos.kill(os.getpid(), signal.SIGINT)\ntime.sleep(5)\n", encoding="utf-8"
    )
    out, rc = run(project, "-k", "C05")
    assert rc == pytest.ExitCode.INTERRUPTED, out
    doc, got = rows(project)
    assert "claims:C05" in doc["interrupted"]["not_reached"], doc["interrupted"]
    assert got["C05"]["outcome"] == "passed" and got["C05"]["carried"]["why"].startswith("not reached"), got[
        "C05"
    ]


CUT_IMPORT = """
import os
import signal
import sys
import types

# what Ctrl-C during `import transformers` leaves: its submodules loaded, the package not
sys.modules.pop("transformers", None)
sys.modules["transformers.cut_short"] = types.ModuleType("transformers.cut_short")
os.kill(os.getpid(), signal.SIGINT)
"""


def test_an_interrupted_heavy_import_is_not_imported_again(project, pytester):
    """Issue 18: SIGINT during the torch import gave a ~90-line traceback (or a segfault) from the
    end-of-run hook importing the half-loaded package again for the runner fingerprint."""
    assert earlier(pytester, "-k", "not C04", kit=True) == 0
    (project / "claims" / "test_zz_cut.py").write_text(CUT_IMPORT, encoding="utf-8")
    out, rc = run(project, kit=True)  # the kit's fingerprint is what must not import it again
    assert rc == pytest.ExitCode.INTERRUPTED, out
    for words in ("Traceback", "During handling", "direct cause", "Fatal Python"):
        assert words not in out, out
    doc, got = rows(project)
    assert doc["interrupted"]["by"] == "SIGINT" and "interrupted" in doc["runner"]["llm_kit"]
    # stopped in collection, nothing decided; without the kit's fields the earlier rows cannot be
    # shown as this runner's, so each says why it is empty
    assert all(r["outcome"] == "not-run" and r["reason"].startswith("interrupted: ") for r in got.values()), (
        got
    )


def test_two_runs_of_one_checkout_keep_each_others_rows(project):
    """With 3 s between reading the earlier report and writing the new one, unlocked runs lost a row."""
    (project / "conftest.py").write_text(SLOW_MERGE, encoding="utf-8")
    procs = [run(project, "-k", cid, wait=False, MERGE_DELAY="3") for cid in ("C01", "C03")]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    _, got = rows(project)
    assert got["C01"]["outcome"] == "passed" and got["C03"]["outcome"] == "passed", got
    assert not (
        project / "reports" / "claims.json.lock"
    ).exists()  # the lock file is hidden: .claims.json.lock


def test_half_loaded_packages_are_named(monkeypatch):
    from claimcheck.plugin.ending import half_loaded

    monkeypatch.delitem(sys.modules, "transformers", raising=False)
    monkeypatch.setitem(sys.modules, "transformers.cut_short", object())
    assert half_loaded(["transformers", "no_such_package"]) == ["transformers"]


def test_the_kit_names_its_heavy_packages(pytester):
    # the core holds a signal during their import; it names none itself (hook of the kit's plugin)
    from claimcheck.plugin.ending import heavy_packages

    assert heavy_packages(pytester.parseconfigure()) == ["torch", "transformers"]
    assert heavy_packages(pytester.parseconfigure("-p", "no:claimcheck-llm")) == []
