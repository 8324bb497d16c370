"""What ``claimcheck init`` scaffolds runs under pytest: every draft claim is reported as
``not-run: no test yet``, and the manuscript's drift items and number audit pass."""

from pathlib import Path

from claimcheck.cli import main
from tests.claimkit import read_report

MANUSCRIPT = Path(__file__).resolve().parents[1] / "data" / "manuscript_index_zh.md"


def test_pytest_lists_every_draft_as_not_run(pytester, monkeypatch, capsys):
    monkeypatch.delenv("CLAIMCHECK_LM", raising=False)
    assert (
        main(["init", str(MANUSCRIPT), "--name", "index", "--claims-dir", str(pytester.path / "claims")]) == 0
    )
    capsys.readouterr()
    result = pytester.runpytest(
        "claims/index/", "-p", "no:cacheprovider", "-p", "no:html", f"--claims-manuscript={MANUSCRIPT}"
    )
    result.assert_outcomes(passed=15, skipped=14)  # 14 drift items + the audit; 14 drafts without a test
    rows = read_report(pytester)["claims"]
    assert len(rows) == 14  # the table's three rows are a draft each, its cells their values
    assert {(r["outcome"], r["reason"]) for r in rows} == {("not-run", "not-run: no test yet")}
