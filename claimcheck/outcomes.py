"""The one vocabulary of claim outcomes, declared once for the run, the reports, merge and diff.

A claim's outcome on a runner is one of:

- ``passed``: the measurement (or the exact form) agrees with the chapter within the tolerance;
- ``failed``: it disagrees: the chapter's sentence does not hold on this runner;
- ``inconclusive``: a timing claim whose confidence interval still straddles its bar after the
  time budget of its profile; never counted as passed (``--claims-strict-timing`` fails the run);
- ``near-tie``: two token streams differed only where the top two logits were within the
  stated tie tolerance: neither a pass nor a hard failure;
- ``error``: the test, its module or its registry entry is broken (nothing was decided);
- ``skipped``: cannot be checked on this runner, with the reason (no weights, no GPU, a
  machine-bound figure, external data);
- ``not-run``: no test yet, or not selected in this run.
"""

from __future__ import annotations

PASSED = "passed"
FAILED = "failed"
INCONCLUSIVE = "inconclusive"
NEAR_TIE = "near-tie"
ERROR = "error"
SKIPPED = "skipped"
NOT_RUN = "not-run"

#: every outcome, in the order reports list them
OUTCOMES = (PASSED, FAILED, INCONCLUSIVE, NEAR_TIE, ERROR, SKIPPED, NOT_RUN)

#: worst first: a claim with several tests (its measurement, its drift check) shows its worst outcome
SEVERITY = (ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, PASSED, SKIPPED, NOT_RUN)

#: outcomes that say the chapter's sentence held on this runner
HELD = (PASSED, NEAR_TIE)

#: outcomes that say it did not hold, or could not be decided because something is broken
BROKEN = (FAILED, ERROR)

#: how good a verdict is, for diff's "regression" / "improved" (lower is better); outcomes not
#: listed here (skipped, not-run) are not verdicts
VERDICT_RANK = {PASSED: 0, NEAR_TIE: 1, INCONCLUSIVE: 2, FAILED: 3, ERROR: 3}


def worse(a: str, b: str) -> str:
    """Return the worse of two outcomes by :data:`SEVERITY`.

    Raises:
        ValueError: either is not an outcome of :data:`OUTCOMES`.
    """
    return a if SEVERITY.index(a) <= SEVERITY.index(b) else b


def label(outcome: str) -> str:
    """The outcome as an editor reads it ("not run" for ``not-run``)."""
    return "not run" if outcome == NOT_RUN else outcome


def count(outcomes) -> dict[str, int]:
    """Return ``{outcome: n}`` in :data:`OUTCOMES` order, leaving out outcomes that do not occur."""
    seen: dict[str, int] = {}
    for o in outcomes:
        seen[o] = seen.get(o, 0) + 1
    return {o: seen[o] for o in (*OUTCOMES, *sorted(set(seen) - set(OUTCOMES))) if o in seen}
