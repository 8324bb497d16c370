"""What a claims run writes for readers: the claims page and the test log, plots as files, JSON
records in --junitxml, and partial runs that keep the full picture."""

import json
import xml.etree.ElementTree as ET

import pytest

from tests.claimkit import claims_project

REGISTRY = """
[[sections]]
id = "read"
title = "Reading"

[[sections]]
id = "write"
title = "Writing"
""" + "".join(
    f"""
[[claims]]
id = "C0{i}"
section = "{"read" if i < 3 else "write"}"
title = "claim {i}"
stated = "10"
unit = "x"
locator = "loc C0{i}"
tolerance = ">=2"
needs = ["arch"]
"""
    for i in range(1, 5)
)

TESTS = """
import os
import pytest

@pytest.mark.claim("C01")
def test_c01(claim):
    claim.check(float(os.environ.get("C01_VALUE", "5")))

@pytest.mark.claim("C02")
def test_c02(claim):
    from claimcheck.llm import plots
    claim.plot(plots.read_write_plot([100.0, 120.0], [10.0, 11.0]), "read vs write")
    claim.check(7.5)

@pytest.mark.claim("C03")
def test_c03(claim):
    ratio = 1.4
    claim.require(ratio > 2, f"the ratio is only {ratio}", measured=ratio)
    claim.check(ratio)

@pytest.mark.claim("C04")
def test_c04(claim):
    claim.check(3.0)
"""


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.delenv("C01_VALUE", raising=False)
    return claims_project(pytester, REGISTRY, TESTS, monkeypatch=monkeypatch)


def test_the_claims_page_the_test_log_and_the_plot_files(project):
    project.run().assert_outcomes(passed=3, failed=1)
    report = project.report()
    rows = report.claims
    assert rows["C02"]["plots"] == [{"name": "read vs write", "file": "plots/claims_C02-1.png"}]
    assert report.file("plots/claims_C02-1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert rows["C01"]["section"] == "read" and rows["C03"]["section"] == "write"
    assert (
        rows["C01"]["locations"][0]["file"] == "claims/test_claims.py"
        and rows["C01"]["locations"][0]["line"] == 5
    )
    toml = project.registry.read_text(encoding="utf-8").splitlines()
    assert toml[rows["C01"]["registry_line"] - 1] == 'id = "C01"'
    page = report.page()
    assert page.count('<tbody class="claim') == 4 and page.count("<img ") == 1 and 'href="tests.html"' in page
    assert (
        page.index('id="section-claims-read"')
        < page.index('id="claim-claims-C01"')
        < page.index('id="section-claims-write"')
    )
    log = report.page("tests.html")
    assert (
        "test_c03" in log and "claims.html#claim-claims-C03" in log
    )  # the log links back to the claim's row


def test_a_claim_failed_by_require_still_shows_what_was_measured(project):
    project.run()
    report = project.report()
    c03 = report.claims["C03"]
    assert c03["outcome"] == "failed" and c03["measured"] == 1.4
    assert c03["verdict_reason"] == "the ratio is only 1.4"
    row = report.row_html("C03")
    assert "1.4×" in row and "short by 0.6 " in row and row.count("the ratio is only 1.4") == 1


def test_junitxml_records_are_json(project):
    project.run("--junitxml=junit.xml")
    tree = ET.parse(project.path / "junit.xml")
    props = {
        tc.get("name"): {p.get("name"): p.get("value") for p in tc.iter("property")}
        for tc in tree.iter("testcase")
    }
    record = json.loads(props["test_c01"]["claimcheck.record"])
    assert record["measured"] == 5.0 and record["verdict"] == "passed" and record["unit"] == "x"


def test_without_pytest_html_the_page_is_still_written(project):
    project.run("-p", "no:html").assert_outcomes(passed=3, failed=1)
    report = project.report()
    assert report.page().count('<tbody class="claim') == 4 and "tests.html" not in report.page()
    assert not report.file("tests.html").exists()


def test_a_page_that_cannot_be_rendered_never_loses_claims_json(project, monkeypatch):
    def boom(*args, **kwargs):
        raise RuntimeError("template exploded")

    import claimcheck.pages  # in sys.modules now, so that the run below imports this very module

    monkeypatch.setattr(claimcheck.pages, "publish", boom)
    result = project.run()
    assert len(project.report().claims) == 4
    result.stdout.fnmatch_lines(["*the pages could not be written: RuntimeError: template exploded*"])
    passing = [c["id"] for c in project.report().claims.values() if c["outcome"] == "passed"]
    result = project.run("-k", passing[0])
    result.assert_outcomes(passed=1)
    assert result.ret == 1  # every test passed, but the editor's page is missing: the run fails


def test_a_partial_run_keeps_the_other_rows_marked_with_their_run(project, monkeypatch):
    project.run()
    full = project.report()
    monkeypatch.setenv("C01_VALUE", "9")
    result = project.run("-k", "C01")
    # the counts line tells the claims that ran now from the rows carried from the earlier run
    result.stdout.fnmatch_lines([f"claims run now: 1 *; carried from the run of {full['generated']}: *"])
    report = project.report()
    rows = report.claims
    assert rows["C01"]["measured"] == 9.0 and "carried" not in rows["C01"]
    for cid in ("C02", "C03", "C04"):
        assert (
            rows[cid]["carried"]["from"] == full["generated"]
            and rows[cid]["outcome"] == full.claims[cid]["outcome"]
        )
    assert report.counts == {"passed": 3, "failed": 1}
    assert report.file("plots/claims_C02-1.png").is_file()  # the kept row's plot is still there
    page = report.page()
    assert (
        page.count('<span class="carried">from the run of ' + full["generated"]) == 3
        and page.count("<img ") == 1
    )
    assert "This run selected 1 of 4 claims (C01)" in page
    # run again: the rows are carried a second time, and every line still names the run that measured them
    result = project.run("-k", "C01")
    result.stdout.fnmatch_lines([f"claims run now: 1 *; carried from the run of {full['generated']}: *"])
    assert project.report()["selection"]["carried_from"] == full["generated"]


def test_a_nested_conftest_does_not_break_the_run(project):
    # pluggy builds a hook caller without the conftests of other folders; every registered plugin,
    # the run's state included, must then be hashable
    project.write("sub/conftest.py", "import pytest\n\n@pytest.fixture\ndef extra():\n    return 1\n")
    project.write("sub/test_more.py", "def test_more(extra):\n    assert extra == 1\n")
    result = project.run()
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=4, failed=1)


def test_pytest_html_may_not_overwrite_the_claims_page(project):
    result = project.run("--html=reports/claims.html")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--html reports/claims.html is where claimcheck writes the claims page*"])
    project.run("--html=log.html")
    assert (project.path / "log.html").is_file() and project.report().file("claims.html").is_file()
    assert 'href="../log.html"' in project.report().page()


def test_the_test_log_shows_a_skip_reason_as_text_not_a_tuple(project):
    """pytest-html writes ``str()`` of a skip's ``(path, line, message)``; the log says the reason."""
    import html
    import re

    project.write(
        "test_skip.py",
        """
        import pytest

        @pytest.mark.claim("C04")
        def test_c04_here(claim):
            pytest.skip("needs a thing this runner lacks")
        """,
    )
    project.run()
    log = project.report().page("tests.html")
    blob = json.loads(html.unescape(re.search(r'data-jsonblob="([^"]*)"', log).group(1)))
    logs = {test_id: "".join(row["log"]) for test_id, rows in blob["tests"].items() for row in rows}
    skip = next(text for test_id, text in logs.items() if "test_c04_here" in test_id)
    assert skip.startswith("Skipped at claims/test_skip.py:6: needs a thing this runner lacks"), skip
    assert "('" not in skip and "Skipped: needs" not in skip
