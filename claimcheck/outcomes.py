"""The one vocabulary of claim outcomes, for the run, the reports, merge and diff: a row of
:data:`WORDS` each. A new word is a row here, a row of :data:`claimcheck.plugin.running.PYTEST_OUTCOME`
and a ``.o-<word>`` style in ``claimcheck/pages/templates/page.css`` (tests/core/test_outcomes.py).
"""

from __future__ import annotations

from collections import Counter
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
    ``"skip"``, ``"error"``; None: no verdict says it); ``label`` for an editor; ``one``/``many``, the
    summary's sentence of ``{n}`` claims; ``phrase`` after a claim's id; the Markdown ``mark``; the
    manuscript ``state``; ``severity`` (0 worst); ``rank`` for diff (lower is better; None: not a
    verdict); the CI ``annotation`` level."""

    word: str
    ends: str | None
    label: str
    one: str
    many: str
    phrase: str
    mark: str
    state: str
    severity: int
    rank: int | None = None
    annotation: str | None = None

    def sentence(self, n: int, **fields: str) -> str:
        """The summary's sentence of ``n`` claims with this outcome, ``fields`` filled in."""
        return (self.one if n == 1 else self.many).format(n=n, **fields)


WORDS = (
    Word(
        PASSED,
        "return",
        PASSED,
        "{n} claim holds on this runner{ties}.",
        "{n} claims hold on this runner{ties}.",
        "holds",
        "✅",
        "held",
        severity=4,
        rank=0,
    ),
    Word(
        FAILED,
        "fail",
        FAILED,
        "{n} does not hold here: {ids}.",
        "{n} do not hold here: {ids}.",
        "does not hold",
        "❌",
        "failed",
        severity=1,
        rank=3,
        annotation="error",
    ),
    Word(
        INCONCLUSIVE,
        "skip",
        INCONCLUSIVE,
        "{n} timing claim is undecided (the confidence interval straddles the bar): {ids}.",
        "{n} timing claims are undecided (the confidence interval straddles the bar): {ids}.",
        "is undecided",
        "❔",
        "inconclusive",
        severity=2,
        rank=2,
        annotation="warning",
    ),
    Word(
        NEAR_TIE,
        "return",
        NEAR_TIE,
        "{n} only up to a near-tie: {ids}",
        "{n} only up to near-ties: {ids}",
        "holds only up to a near-tie",
        "🟡",
        "held",
        severity=3,
        rank=1,
    ),
    Word(
        ERROR,
        "error",
        ERROR,
        "{n} could not be checked because something is broken (a test, its module or its registry "
        "entry): {ids}.",
        "{n} could not be checked because something is broken (a test, its module or its registry "
        "entry): {ids}.",
        "could not be checked",
        "💥",
        "failed",
        severity=0,
        rank=3,
        annotation="error",
    ),
    Word(
        SKIPPED,
        "skip",
        SKIPPED,
        "{n} cannot be checked here: {causes}.",
        "{n} cannot be checked here: {causes}.",
        "cannot be checked here",
        "⏭️",
        "unchecked",
        severity=5,
    ),
    Word(
        NOT_RUN,
        None,
        "not run",
        "{n} was not run: {parts}.",
        "{n} were not run: {parts}.",
        "was not run",
        "⬜",
        "not-run",
        severity=6,
    ),
)

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


def worse(a: str, b: str) -> str:
    """The worse of two outcomes by :data:`SEVERITY`. Raises ValueError: either is not an outcome."""
    return a if SEVERITY.index(a) <= SEVERITY.index(b) else b


def label(outcome: str) -> str:
    """The outcome as an editor reads it ("not run" for ``not-run``); a word that is no outcome as it is."""
    return WORD[outcome].label if outcome in WORD else outcome


def count(outcomes) -> dict[str, int]:
    """``{outcome: n}`` in :data:`OUTCOMES` order, without outcomes that do not occur."""
    seen = Counter(outcomes)
    return {o: seen[o] for o in (*OUTCOMES, *sorted(set(seen) - set(OUTCOMES))) if o in seen}
