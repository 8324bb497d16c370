"""Every outcome word has what the pages and messages need: a style in the stylesheet, a sentence,
a mark, a manuscript state, a way to end a test and pytest's report of it (issue 24), so a new word
that misses one fails here, not on a page."""

import re
from pathlib import Path
from types import SimpleNamespace

import pytest

from claimcheck import outcomes as oc
from claimcheck.pages.manuscript_view import STATE_LABEL
from claimcheck.recorder import VERDICT_KEY, ClaimEnd, ClaimRecorder, VerdictError
from claimcheck.verdict import Requirement, Verdict

CSS = (Path(oc.__file__).parent / "pages" / "templates" / "page.css").read_text(encoding="utf-8")


@pytest.mark.parametrize("word", oc.OUTCOMES)
def test_every_outcome_word_has_a_style(word):
    # the pages mark an outcome with class o-<word> (badges, the glance, the matrix's cells)
    assert re.search(rf"\.o-{re.escape(word)}\s*\{{[^}}]*color", CSS), f"page.css has no .o-{word} rule"
    assert re.search(rf"\.o-{re.escape(word)}::before\s*\{{\s*content", CSS), f"no badge sign for {word}"


@pytest.mark.parametrize("word", oc.WORDS, ids=lambda w: w.word)
def test_every_outcome_word_has_a_sentence_a_mark_and_a_state(word):
    fields = {"ids": "C01, C02", "ties": "", "causes": "2 need a GPU (C01, C02)", "parts": "2 without a test"}
    for n in (1, 2):
        said = word.sentence(n, **fields)
        assert said.startswith(f"{n} ") and len(said) > 10, said
    assert word.label and word.phrase and word.mark
    assert word.state in STATE_LABEL, f"{word.word}: no manuscript state {word.state!r}"
    assert oc.label(word.word) == word.label


@pytest.mark.parametrize("word", oc.WORDS, ids=lambda w: w.word)
def test_every_verdict_word_ends_a_test_and_has_a_pytest_report(word):
    assert word.ends in ("return", "fail", "error", "skip", None) and oc.ends(word.word) == word.ends
    assert oc.ends(word.word, strict_timing=True) == ("fail" if word.word == oc.INCONCLUSIVE else word.ends)


def test_the_tables_derived_from_the_words():
    assert oc.SEVERITY == (
        oc.ERROR,
        oc.FAILED,
        oc.INCONCLUSIVE,
        oc.NEAR_TIE,
        oc.PASSED,
        oc.SKIPPED,
        oc.NOT_RUN,
    )
    assert oc.HELD == (oc.PASSED, oc.NEAR_TIE) and oc.BROKEN == (oc.FAILED, oc.ERROR)
    assert oc.VERDICT_RANK == {oc.PASSED: 0, oc.NEAR_TIE: 1, oc.INCONCLUSIVE: 2, oc.FAILED: 3, oc.ERROR: 3}
    assert oc.label(oc.NOT_RUN) == "not run" and oc.label("unknown") == "unknown"


@pytest.mark.parametrize(
    "outcome, raised",
    [
        (oc.PASSED, None),
        (oc.NEAR_TIE, None),
        (oc.FAILED, pytest.fail.Exception),
        (oc.INCONCLUSIVE, pytest.skip.Exception),
        (oc.SKIPPED, pytest.skip.Exception),
        (oc.ERROR, VerdictError),
        (oc.NOT_RUN, ValueError),
        ("held", ValueError),
    ],
)
def test_a_verdict_ends_the_test_as_its_word_says(outcome, raised):
    claim = SimpleNamespace(id="C01", stated="1", unit="s", tolerance_text="rel:5%", needs=())
    item = SimpleNamespace(stash={})
    recorder = ClaimRecorder(claim, item, None, "test hardware")
    if raised is None:
        recorder._settle(Verdict(outcome, 1.0, None), Requirement(True, "message"))
    else:
        with pytest.raises(raised) as exc:
            recorder._settle(Verdict(outcome, 1.0, "why"), Requirement(False, "message"))
        if raised is ValueError:
            assert f"not {outcome!r}" in str(exc.value)
    assert item.stash[VERDICT_KEY].outcome == outcome


def test_worse_is_the_more_severe_of_two_outcomes():
    from claimcheck.outcomes import worse

    assert worse("passed", "failed") == worse("failed", "passed") == "failed"
    assert worse("error", "failed") == "error" and worse("passed", "passed") == "passed"
    assert worse("near-tie", "passed") == "near-tie" and worse("inconclusive", "near-tie") == "inconclusive"
    assert worse("skipped", "passed") == "passed"  # a verdict is worse than no verdict
    assert worse("not-run", "skipped") == "skipped"
    with pytest.raises(ValueError):
        worse("passed", "bogus")


def test_a_words_sentence_is_singular_for_one():
    assert oc.WORD["passed"].sentence(1, ties="") == "1 claim holds on this runner."
    assert oc.WORD["passed"].sentence(2, ties="") == "2 claims hold on this runner."
    assert oc.WORD["passed"].sentence(0, ties="") == "0 claims hold on this runner."


def test_count_is_in_the_vocabularys_order_and_keeps_unknown_words_last():
    assert list(oc.count(["failed", "passed", "passed", "bogus", "skipped"]).items()) == [
        ("passed", 2),
        ("failed", 1),
        ("skipped", 1),
        ("bogus", 1),
    ]
    assert oc.count([]) == {}


def test_an_inconclusive_timing_fails_under_strict_timing_where_it_is_decided():
    claim = SimpleNamespace(id="C01", stated="1", unit="s", tolerance_text="rel:5%")
    recorder = ClaimRecorder(claim, SimpleNamespace(stash={}), None, "test hardware", strict_timing=True)
    with pytest.raises(ClaimEnd) as exc:
        recorder._settle(Verdict(oc.INCONCLUSIVE, 1.0, "straddles"), "message")
    assert (
        exc.value.outcome == oc.INCONCLUSIVE and str(exc.value) == "C01 (--claims-strict-timing): straddles"
    )


@pytest.mark.parametrize(
    "verdict, raised, failed, outcome",
    [
        (oc.PASSED, None, False, oc.PASSED),
        (oc.PASSED, None, True, oc.ERROR),  # pytest failed it without an exception: a strict xpass
        (oc.PASSED, pytest.skip.Exception("not here"), False, oc.SKIPPED),  # it chose not to decide
        (oc.NEAR_TIE, pytest.skip.Exception("not here"), False, oc.SKIPPED),
        (oc.FAILED, pytest.skip.Exception("not here"), False, oc.FAILED),
        (oc.PASSED, AssertionError("no"), False, oc.FAILED),
        (oc.NEAR_TIE, pytest.fail.Exception("no"), False, oc.FAILED),
        (oc.PASSED, ClaimEnd("went on", oc.ERROR), False, oc.ERROR),
        (oc.INCONCLUSIVE, ClaimEnd("strict", oc.INCONCLUSIVE), False, oc.INCONCLUSIVE),
        (oc.NEAR_TIE, RuntimeError("broke"), False, oc.ERROR),
    ],
)
def test_a_claim_tests_call_is_the_worse_of_its_verdict_and_what_it_raised(verdict, raised, failed, outcome):
    from claimcheck.plugin.phases import claim_outcome

    assert claim_outcome(verdict, raised, failed) == outcome
