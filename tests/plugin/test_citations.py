"""Citations across a book, through pytester: a second chapter quotes ch15's C10 (``cites``) with no
test of its own; it passes beside its source, and when the source's figure changes in its registry
validate, check-manuscript and the claims page say it drifted, at its line, naming both figures."""

import re

from claimcheck.cli import main
from tests.claimkit import claim_toml, claims_project, read_report

SOURCE = claim_toml(
    "C10", title="weights in MB", stated="500", unit="MB", locator="500 MB", tolerance="rel:1%"
)
SOURCE_TEST = """
import pytest

@pytest.mark.claim("C10")
def test_weights(claim):
    claim.check(497.76, "MB")
"""
QUOTE = claim_toml(
    "C05",
    title="the weights, as chapter 15 says",
    stated="500",
    unit="MB",
    locator="about 500 MB",
    needs='["text"]',
    extra='cites = "ch15:C10"',
)
TEXT = "# A chapter\n\nA first line.\nThe weights take about 500 MB, as the previous chapter says.\n"


def book(pytester, quote: str = QUOTE, source: str = SOURCE):
    claims_project(pytester, source, {"test_ch15.py": SOURCE_TEST}, chapter="ch15", folder="claims/ch15")
    claims_project(pytester, quote, chapter={"id": "ch16", "manuscript": "ch16.md"}, folder="claims/ch16")
    (pytester.path / "claims" / "ch16" / "ch16.md").write_text(TEXT, encoding="utf-8")


def run(pytester, *args):
    return pytester.runpytest("claims", "-p", "no:cacheprovider", "-p", "no:html", *args)


def revise_source(pytester, stated: str) -> None:
    registry = pytester.path / "claims" / "ch15" / "claims.toml"
    text = registry.read_text(encoding="utf-8")
    registry.write_text(text.replace('stated = "500"', f'stated = "{stated}"'), encoding="utf-8")


def test_a_quote_with_no_test_passes_beside_its_source(pytester):
    book(pytester)
    run(pytester).assert_outcomes(passed=2)
    rows = read_report(pytester).claims.by_key
    assert rows["ch15:C10"]["outcome"] == "passed"
    quote = rows["ch16:C05"]
    assert quote["outcome"] == "passed" and not quote["drifted"]
    (q,) = quote["details"]["drift"]["quotes"]
    assert q["source"] == "ch15:C10" and q["status"] == "ok" and q["line"] == 4


def test_a_quote_whose_source_changed_is_drifted_everywhere(pytester, capsys):
    book(pytester)
    revise_source(pytester, "700")
    result = run(pytester)
    result.assert_outcomes(failed=2)  # the source's own measurement (497.76 is not 700), and the quote
    result.stdout.fnmatch_lines(["*ch16:C05 says 500 MB, quoting ch15:C10, which now says 700 MB*"])
    # its verdict is its source's, not a measurement of its own (an author's trial read "its measurement")
    result.stdout.fnmatch_lines(["drifted ch16:C05: *which says 700 MB*(a quote of ch15:C10: failed)"])
    report = read_report(pytester)
    quote = report.claims.by_key["ch16:C05"]
    assert quote["outcome"] == "failed" and quote["drifted"]
    assert "ch16:C05" in report["drifted"]
    row = report.row_html("ch16:C05")
    assert re.search(r"line 4: the text says 500 MB, quoting ch15:C10, which says 700 MB", row), row
    assert quote["next_step"].startswith("quote the source's figure in C05's sentence")  # its check's own
    assert "next: quote the source&#39;s figure in C05&#39;s sentence" in row

    with_chdir(pytester, "validate", "-q")
    err = capsys.readouterr().err
    assert "claims/ch16/claims.toml (manuscript line 4): ch16:C05 says 500 MB, quoting ch15:C10" in err
    assert "which now says 700 MB: drifted from ch15:C10" in err

    code = with_chdir(pytester, "check-manuscript", "claims/ch16/ch16.md")
    out = capsys.readouterr().out
    assert code == 1 and re.search(
        r"C05 +line 4 +drift .*500 MB, quoting ch15:C10, which now says 700 MB", out
    )


def test_a_source_that_failed_fails_its_quote_without_drift(pytester):
    book(pytester, source=SOURCE.replace('tolerance = "rel:1%"', 'tolerance = "exact"'))
    run(pytester).assert_outcomes(failed=2)
    quote = read_report(pytester).claims.by_key["ch16:C05"]
    assert quote["outcome"] == "failed" and not quote["drifted"]
    assert "quotes ch15:C10 (500 MB), which failed in this run" in quote["reason"]


def test_under_xdist_loadgroup_a_quote_runs_beside_its_source(pytester):
    """Two workers, the quote's chapter and its source's test in different modules: the quote
    still learns that its source failed (it runs on the source's worker, after it), as serially."""
    book(pytester, source=SOURCE.replace('tolerance = "rel:1%"', 'tolerance = "exact"'))
    for n in range(6):  # more modules of ch15, so the two chapters are not on one worker by chance
        (pytester.path / "claims" / "ch15" / f"test_other{n}.py").write_text("def test_x():\n    pass\n")
    done = pytester.runpytest_subprocess("claims", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup")
    done.assert_outcomes(failed=2, passed=6)
    quote = read_report(pytester).claims.by_key["ch16:C05"]
    assert (
        quote["outcome"] == "failed"
        and "quotes ch15:C10 (500 MB), which failed in this run" in quote["reason"]
    )


def test_without_loadgroup_a_pass_seen_on_one_worker_does_not_pass_the_quote(pytester):
    """Plain -n 2: the source's passing test runs beside the quote, its failing one (another module)
    may run on the other worker. The quote fails, never passes over a failed source: on its worker, or
    on the controller, which sees every worker's source (a quote is as good as its source)."""
    book(pytester)
    failing = SOURCE_TEST.replace("test_weights", "test_weights_again").replace("497.76", "700.0")
    (pytester.path / "claims" / "ch15" / "test_zzz.py").write_text(failing, encoding="utf-8")
    pytester.runpytest_subprocess("claims", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadfile")
    rows = read_report(pytester).claims.by_key
    quote = rows["ch16:C05"]
    assert rows["ch15:C10"]["outcome"] == "failed" and quote["outcome"] == "failed", quote
    assert "which failed in this run" in quote["reason"] or quote["reason"].startswith(
        "quotes ch15:C10, failed here"
    )


def test_a_source_not_in_the_book_is_kept_and_said_never_an_error(pytester, capsys):
    book(pytester, quote=QUOTE.replace('cites = "ch15:C10"', 'cites = "ch19:C03"'))
    run(pytester).assert_outcomes(passed=1, skipped=1)
    quote = read_report(pytester).claims.by_key["ch16:C05"]
    assert quote["outcome"] == "skipped" and "source not in this book" in quote["reason"]
    assert with_chdir(pytester, "validate", "-q") == 0
    assert "ch16:C05 quotes ch19:C03: source not in this book" in capsys.readouterr().out


def test_an_unknown_claim_of_a_chapter_in_the_book_is_a_validate_error(pytester, capsys):
    book(pytester, quote=QUOTE.replace('cites = "ch15:C10"', 'cites = "ch15:C11"'))
    run(pytester).assert_outcomes(passed=1, failed=1)
    quote = read_report(pytester).claims.by_key["ch16:C05"]
    assert quote["outcome"] == "error" and "chapter ch15 declares no claim C11" in quote["reason"]
    capsys.readouterr()
    assert with_chdir(pytester, "validate", "-q") == 1
    err = capsys.readouterr().err
    assert (
        "claim ch16:C05: field 'cites': ch16:C05 cites ch15:C11, but chapter ch15 declares no claim C11"
        in err
    )
    assert "(did you mean ch15:C10?)" in err


def test_a_quote_with_its_own_test_keeps_its_verdict_and_drifts_beside_it(pytester):
    claims_project(pytester, SOURCE, {"test_ch15.py": SOURCE_TEST}, chapter="ch15", folder="claims/ch15")
    own = SOURCE_TEST.replace('"C10"', '"C05"').replace("497.76", "500.2")
    claims_project(pytester, QUOTE, {"test_ch16.py": own}, chapter="ch16", folder="claims/ch16")
    revise_source(pytester, "700")
    run(pytester).assert_outcomes(passed=1, failed=2)  # the source's measurement, the quote's citation
    rows = read_report(pytester).claims.by_key
    quote = rows["ch16:C05"]
    assert quote["drifted"]  # its measurement held; its quote drifted
    # a quote is as good as its source: the source's 497.76 MB failed its revised 700 MB
    assert quote["outcome"] == "failed" and quote["reason"].startswith("quotes ch15:C10, failed here: ")
    assert (quote["hardware"], quote["next_step"]) == (
        rows["ch15:C10"]["hardware"],
        rows["ch15:C10"]["next_step"],
    )


def test_a_quote_of_a_source_skipped_here_is_skipped_naming_why(pytester):
    skipped = SOURCE_TEST.replace('claim.check(497.76, "MB")', 'claim.skip("needs a CUDA GPU", cause="gpu")')
    claims_project(pytester, SOURCE, {"test_ch15.py": skipped}, chapter="ch15", folder="claims/ch15")
    claims_project(pytester, QUOTE, chapter={"id": "ch16", "manuscript": "ch16.md"}, folder="claims/ch16")
    (pytester.path / "claims" / "ch16" / "ch16.md").write_text(TEXT, encoding="utf-8")
    run(pytester).assert_outcomes(passed=1, skipped=1)  # the quote's citation matches; its row does not hold
    quote = read_report(pytester).claims.by_key["ch16:C05"]
    assert (
        quote["outcome"] == "skipped" and quote["reason"] == "quotes ch15:C10, skipped here: needs a CUDA GPU"
    )
    assert quote["cause"] == "gpu"  # its source's cause: a quote cannot be checked here for the same reason


def test_a_formula_reads_another_chapters_value(pytester):
    formula = claim_toml(
        "C06",
        title="twice chapter 15's weights",
        stated="1000",
        unit="MB",
        locator="1000 MB",
        tolerance="exact",
        needs='["text"]',
        extra='formula = "2 * ch15:C10.stated"\nprecision = "exact"',
    )
    book(pytester, quote=QUOTE + formula)
    run(pytester, "-k", "C06").assert_outcomes(passed=1)
    assert read_report(pytester).claims.by_key["ch16:C06"]["measured"] == [1000.0, 1000.0]
    revise_source(pytester, "700")
    run(pytester, "-k", "C06").assert_outcomes(failed=1)


def with_chdir(pytester, *argv) -> int:
    import os

    here = os.getcwd()
    os.chdir(pytester.path)
    try:
        return main(list(argv))
    finally:
        os.chdir(here)


def test_the_pages_summary_and_diff_say_a_drifted_quote(pytester, capsys):
    book(pytester)
    run(pytester)
    before = pytester.path / "before.json"
    before.write_text(
        (pytester.path / "reports" / "claims.json").read_text(encoding="utf-8"), encoding="utf-8"
    )
    revise_source(pytester, "700")
    run(pytester, "--claims-manuscript", "claims/ch16/ch16.md").assert_outcomes(passed=1, failed=3)
    report = read_report(pytester)
    page = report.page()
    book_row = page[page.index('<tr id="book-ch16"') :]
    assert "C05 quotes ch15:C10 (drifted)" in book_row[: book_row.index("</tr>")]
    source_row = page[page.index('<tr id="book-ch15"') :]
    assert "C10 quoted by ch16:C05 (drifted)" in source_row[: source_row.index("</tr>")]
    annotated = report.page("manuscript.html")
    assert "C05 drift on line 4: ch16:C05 says 500 MB, quoting ch15:C10, which now says 700 MB" in annotated

    capsys.readouterr()
    with_chdir(pytester, "summary", "reports/claims.json", "--annotations")
    out = capsys.readouterr().out
    assert re.search(
        r"::error file=claims/ch16/ch16\.md,line=4,title=ch16%3AC05 drifted::.*quoting ch15:C10, which says 700 MB",
        out,
    ), out
    with_chdir(pytester, "diff", str(before), "reports/claims.json")
    out = capsys.readouterr().out
    assert "quoting ch15:C10, which says 700 MB" in out, out


def test_what_if_on_a_source_names_and_re_judges_every_quote(pytester, capsys):
    # the source is a formula claim, so what-if judges it in process (no pytest subprocess)
    source = claim_toml(
        "C10",
        title="weights in MB",
        stated="500",
        unit="MB",
        locator="500 MB",
        tolerance="exact",
        needs='["text"]',
        extra='values = { half = "250" }\nformula = "2 * half"\nprecision = "exact"',
    )
    book(pytester, source=source)
    capsys.readouterr()
    assert with_chdir(pytester, "what-if", "ch15:C10=700") == 1
    out = capsys.readouterr().out
    assert "ch15:C10 = 700 MB (registry: 500 MB): NOT supported" in out
    assert (
        "quoted by ch16:C05 (500 MB): drifted: ch16:C05 says 500 MB, quoting ch15:C10, which now says 700 MB"
        in out
    )
    assert with_chdir(pytester, "what-if", "ch15:C10=500") == 0
    assert "quoted by ch16:C05 (500 MB): still quotes it" in capsys.readouterr().out
