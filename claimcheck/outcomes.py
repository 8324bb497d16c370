"""The one vocabulary of claim outcomes, for the run, the reports, merge and diff: a :class:`Word` of
:data:`WORDS` each. A new word is a row of ``_FACTS`` and of ``_SENTENCES`` here and a ``.o-<word>``
style in ``claimcheck/pages/templates/page.css`` (tests/core/test_outcomes.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

PASSED = "passed"
FAILED = "failed"
INCONCLUSIVE = "inconclusive"
NEAR_TIE = "near-tie"
ERROR = "error"
SKIPPED = "skipped"
NOT_RUN = "not-run"


@dataclass(frozen=True)
class Word:
    """One outcome word: ``ends``, how a claim test with this verdict ends (``"return"``, ``"fail"``,
    ``"skip"``, ``"error"``; None: no verdict says it); ``label`` for an editor; ``phrase`` after a claim's
    id; the Markdown ``mark``; the manuscript ``state``; ``severity`` (0 worst); ``rank`` for diff (lower
    is better; None: not a verdict); the CI ``annotation`` level; ``one``/``many``, the summary's sentence
    of ``{n}`` claims."""

    word: str
    ends: str | None
    label: str
    phrase: str
    mark: str
    state: str
    severity: int
    rank: int | None
    annotation: str | None
    one: str
    many: str

    def sentence(self, n: int, **fields: str) -> str:
        """The summary's sentence of ``n`` claims with this outcome, ``fields`` filled in."""
        return (self.one if n == 1 else self.many).format(n=n, **fields)


#: a row per word, in the order reports list them: the fields of :class:`Word` up to its sentences
_FACTS: tuple[tuple[str, str | None, str, str, str, str, int, int | None, str | None], ...] = (
    # word, ends, label, phrase, mark, state, severity, rank, annotation
    (PASSED, "return", PASSED, "holds", "✅", "held", 4, 0, None),
    (FAILED, "fail", FAILED, "does not hold", "❌", "failed", 1, 3, "error"),
    (INCONCLUSIVE, "skip", INCONCLUSIVE, "is undecided", "❔", "inconclusive", 2, 2, "warning"),
    (NEAR_TIE, "return", NEAR_TIE, "holds only up to a near-tie", "🟡", "held", 3, 1, None),
    (ERROR, "error", ERROR, "could not be checked", "💥", "failed", 0, 3, "error"),
    (SKIPPED, "skip", SKIPPED, "cannot be checked here", "⏭️", "unchecked", 5, None, None),
    (NOT_RUN, None, "not run", "was not run", "⬜", "not-run", 6, None, None),
)

#: each word's sentences (:attr:`Word.one`, :attr:`Word.many`)
_SENTENCES = {
    PASSED: ("{n} claim holds on this runner{ties}.", "{n} claims hold on this runner{ties}."),
    FAILED: ("{n} does not hold here: {ids}.", "{n} do not hold here: {ids}."),
    INCONCLUSIVE: (
        "{n} timing claim is undecided (the confidence interval straddles the bar): {ids}.",
        "{n} timing claims are undecided (the confidence interval straddles the bar): {ids}.",
    ),
    NEAR_TIE: ("{n} only up to a near-tie: {ids}", "{n} only up to near-ties: {ids}"),
    ERROR: (
        "{n} could not be checked because something is broken (a test, its module or its registry "
        "entry): {ids}.",
        "{n} could not be checked because something is broken (a test, its module or its registry "
        "entry): {ids}.",
    ),
    SKIPPED: ("{n} cannot be checked here: {causes}.", "{n} cannot be checked here: {causes}."),
    NOT_RUN: ("{n} was not run: {parts}.", "{n} were not run: {parts}."),
}

WORDS = tuple(Word(*facts, *_SENTENCES[facts[0]]) for facts in _FACTS)

WORD = {w.word: w for w in WORDS}

#: every outcome, in the order reports list them
OUTCOMES = tuple(w.word for w in WORDS)

#: worst first: a claim with several tests (its measurement, its drift check) shows its worst outcome
SEVERITY = tuple(w.word for w in sorted(WORDS, key=lambda w: w.severity))

#: outcomes that say the chapter's sentence held on this runner
HELD = tuple(w.word for w in WORDS if w.state == "held")

#: outcomes that say it did not hold, or could not be decided because something is broken
BROKEN = tuple(w.word for w in WORDS if w.state == "failed")

#: how good a verdict is, for diff's "regression" / "improved" (lower is better; not skipped, not-run)
VERDICT_RANK = {w.word: w.rank for w in WORDS if w.rank is not None}


def ends(outcome: str, strict_timing: bool = False) -> str | None:
    """How a claim test with a verdict of ``outcome`` ends (:attr:`Word.ends`): under
    ``--claims-strict-timing`` an inconclusive timing fails. None: no verdict says it, or no outcome."""
    if strict_timing and outcome == INCONCLUSIVE:
        return "fail"
    word = WORD.get(outcome)
    return word.ends if word is not None else None


def worse(a: str, b: str) -> str:
    """The worse of two outcomes by :data:`SEVERITY`. Raises ValueError: either is not an outcome."""
    return a if SEVERITY.index(a) <= SEVERITY.index(b) else b


def label(outcome: str) -> str:
    """The outcome as an editor reads it ("not run" for ``not-run``); a word that is no outcome as it is."""
    return WORD[outcome].label if outcome in WORD else outcome


def count(outcomes: Iterable[str]) -> dict[str, int]:
    """``{outcome: n}`` in :data:`OUTCOMES` order, without outcomes that do not occur."""
    seen = Counter(outcomes)
    return {o: seen[o] for o in (*OUTCOMES, *sorted(set(seen) - set(OUTCOMES))) if o in seen}
