"""A quote is as good as its source (issue 35): a claim with ``cites`` gets the weaker of its own
outcome and its source's, through any chain, the source's reason named; a quote with no number of its
own follows its source and says so (claimcheck.report.as_good_as_sources)."""

import pytest

from claimcheck.report import as_good_as_sources
from claimcheck.results import ClaimEntry


def row(key, outcome, cites=None, stated="500", reason=""):
    chapter, cid = key.split(":")
    return ClaimEntry(key, cid, chapter, outcome=outcome, cites=cites, stated=stated, reason=reason)


@pytest.mark.parametrize(
    "source, quote, expected",
    [
        ("skipped", "passed", "skipped"),
        ("inconclusive", "passed", "inconclusive"),
        ("failed", "passed", "failed"),
        ("error", "failed", "error"),
        ("near-tie", "passed", "near-tie"),
        ("passed", "failed", "failed"),  # its own check is the weaker: it stands
        ("not-run", "passed", "passed"),  # a source not run says nothing of the quote
    ],
)
def test_a_quote_takes_the_weaker_of_its_own_outcome_and_its_sources(source, quote, expected):
    rows = [row("ch15:C10", source, reason="needs a CUDA GPU"), row("ch16:C05", quote, cites="ch15:C10")]
    as_good_as_sources(rows)
    assert rows[1].outcome == expected
    if expected != quote:
        assert rows[1].reason == f"quotes ch15:C10, {expected} here: needs a CUDA GPU"


def test_a_quote_of_a_quote_is_as_good_as_the_first_source():
    rows = [
        row("ch17:C01", "passed", cites="ch16:C05"),  # listed before its source: the chain is followed
        row("ch16:C05", "passed", cites="ch15:C10"),
        row("ch15:C10", "skipped", reason="needs the pretrained weights"),
    ]
    as_good_as_sources(rows)
    assert [r.outcome for r in rows] == ["skipped", "skipped", "skipped"]
    assert (
        rows[0].reason
        == "quotes ch16:C05, skipped here: quotes ch15:C10, skipped here: needs the pretrained weights"
    )


def test_a_quote_with_no_number_follows_its_source_and_says_so():
    rows = [row("ch15:C10", "failed", reason="497 MB, not 500 MB"), row("ch16:C05", "passed", "ch15:C10", "")]
    as_good_as_sources(rows)
    assert rows[1].outcome == "failed"
    assert (
        rows[1].reason
        == "quotes ch15:C10, with no number of its own, and follows it: failed here: 497 MB, not 500 MB"
    )


def test_quotes_in_a_circle_end():
    rows = [row("ch15:C10", "passed", cites="ch16:C05"), row("ch16:C05", "skipped", cites="ch15:C10")]
    as_good_as_sources(rows)
    assert {r.outcome for r in rows} <= {"passed", "skipped"}
