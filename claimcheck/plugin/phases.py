"""pytest's reports read into their tests' :class:`~claimcheck.results.ClaimEntry` values, where the
test ran (an xdist worker): the one place that knows a ``TestReport``'s ``when``, ``wasxfail``,
``longrepr`` and pytest-xdist's lines. A phase's entry travels on its report as :data:`PHASE_ATTR`
(:meth:`~claimcheck.results.ClaimEntry.sent`)."""

from __future__ import annotations

import contextlib
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from _pytest.outcomes import Skipped

from claimcheck.keys import split as split_key
from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, NOT_RUN, PASSED, SKIPPED, worse
from claimcheck.pages.words import known_cause
from claimcheck.recorder import CLAIM_KEY, KIND_KEY, PLOTS_KEY, RESULT_KEY, ClaimEnd
from claimcheck.results import ClaimEntry

PHASE_ATTR = "claimcheck_phase"  # on a report: its test's entry as JSON values (xdist sends it on)
_XDIST_WORKER_LINE = re.compile(r"\A\[gw\d+\] [^\n]* -- Python [^\n]*\n")
# pytest's own ends of a phase (an xfail is a fail)
_CONTROL = (pytest.fail.Exception, pytest.skip.Exception, pytest.exit.Exception, KeyboardInterrupt)


class Unchecked(Skipped):  # pytest.skip.Exception
    """pytest's skip, with why the item cannot run here as a fact of the claim's result (``facts``, as a
    :class:`~claimcheck.recorder.ClaimEnd`'s): ``cause``, a key of :data:`claimcheck.pages.words.CAUSES`
    (None: none given; any other a ValueError, as a typo would be counted as "other")."""

    # shown as pytest's own ("Skipped: why"), whose module is builtins too
    __module__ = "builtins"
    __qualname__ = "Skipped"

    def __init__(self, reason: str, cause: str | None, *, _use_item_location: bool = True) -> None:
        super().__init__(reason, _use_item_location=_use_item_location)
        self.facts: dict[str, Any] = {"cause": known_cause(cause)}


def claim_key(item: pytest.Item) -> str | None:
    """The key (``ch15:C05``) of the claim a test or item of ours stands for (None: none)."""
    return item.stash.get(CLAIM_KEY, None)


def phase_on(report: pytest.TestReport) -> ClaimEntry | None:
    """The entry of its test's phase a report carries (:data:`PHASE_ATTR`; None: the test names no
    claim), as the worker that ran it sent it."""
    raw = getattr(report, PHASE_ATTR, None)
    return None if raw is None else ClaimEntry.received(raw)


def exception_reason(excinfo: pytest.ExceptionInfo[BaseException], when: str) -> str | None:
    """``"Type: message (raised at file:line)"`` of a phase that raised something not a verdict (in
    the test or a fixture); None for pytest's fail/skip/xfail/exit and a call's ``AssertionError``."""
    exc = excinfo.value
    if isinstance(exc, _CONTROL) or (when == "call" and isinstance(exc, AssertionError)):
        return None
    text = str(exc).strip()
    text = text[:1000] + " ..." if len(text) > 1000 else text
    where = ""
    with contextlib.suppress(IndexError, AttributeError, TypeError):
        entry = excinfo.traceback[-1]
        where = f" (raised at {Path(str(entry.path)).name}:{entry.lineno + 1} in {entry.name})"
    return f"{type(exc).__name__}: {text}{where}" if text else f"{type(exc).__name__}{where}"


def report_reason(report: pytest.TestReport, error: str | None) -> str:
    """A phase's own words: ``error``, the reason the glue recorded for an error, else a skip's
    reason, else pytest's message (without pytest-xdist's worker line)."""
    if error:
        return error
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # skip: (path, line, "Skipped: why")
        return longrepr[2].removeprefix("Skipped: ")
    text = getattr(report, "longreprtext", None) or str(longrepr)
    # pytest-xdist: the controller's copy of a worker's report starts "[gw0] linux -- Python 3.11.7 ..."
    return _XDIST_WORKER_LINE.sub("", text, count=1).strip()


def claim_outcome(verdict: str, raised: BaseException | None, failed: bool = False) -> str:
    """The outcome of a claim test's call that raised ``raised`` (None: it returned; ``failed``: pytest
    failed it all the same, a strict xpass) after a verdict of ``verdict``: the worse of the two, but a
    skip after a check that held is a skip (the test chose not to decide the claim). By itself a call
    says: ``failed`` for ``pytest.fail`` or ``assert``, ``skipped`` for a skip, a
    :class:`~claimcheck.recorder.ClaimEnd`'s outcome, ``error`` for anything else."""
    if isinstance(raised, ClaimEnd):
        said = raised.outcome
    elif isinstance(raised, pytest.skip.Exception):
        said = SKIPPED
    elif isinstance(raised, (pytest.fail.Exception, AssertionError)):
        said = FAILED
    else:
        said = ERROR if raised is not None or failed else PASSED
    return SKIPPED if said == SKIPPED and verdict in (PASSED, NEAR_TIE) else worse(verdict, said)


def report_outcome(
    report: pytest.TestReport,
    kind: str | None,
    verdict: str | None,
    error: str | None,
    raised: BaseException | None,
) -> str | None:
    """One pytest ``TestReport`` (one phase) as a claim outcome, or None when uninformative: a claim
    test's call with a verdict (``verdict``, its standing verdict's word) is :func:`claim_outcome` of
    what it ``raised``; the other branches are what pytest alone says (a fixture's error, a skip in
    setup, a placeholder); ``error``: the glue's reason for an error."""
    xfailed = hasattr(report, "wasxfail")
    if report.when == "call" and kind is None and verdict and not xfailed:
        return claim_outcome(verdict, raised, report.failed)
    if verdict == INCONCLUSIVE and report.skipped:
        return INCONCLUSIVE
    if kind == "placeholder":
        return NOT_RUN if report.skipped else None
    if xfailed:  # a test the registry expects to fail (expected_fail): its verdict decides
        return verdict if verdict in (FAILED, PASSED, NEAR_TIE) else ERROR
    if report.failed:
        own = kind not in ("registry-error", "module-error") and not error
        return FAILED if report.when == "call" and own else ERROR
    if report.skipped:
        return SKIPPED
    return PASSED if report.when == "call" else None


def phase_of(
    item: pytest.Item,
    report: pytest.TestReport,
    error: str | None = None,
    expected_fail: str | None = None,
    excinfo: pytest.ExceptionInfo[BaseException] | None = None,
) -> ClaimEntry | None:
    """The entry of ``item``'s test for the phase of ``report`` (None: it names no claim): its result so
    far with the outcome the phase decided ("" none) and the reason the claim's row gives for it, its
    duration, location and plots. ``error``: the glue's reason for an error; ``expected_fail``, the
    claim's, for an xfailed test; ``excinfo``, what the phase raised (the cause of an :class:`Unchecked`
    skip and the facts of a failure's :class:`~claimcheck.recorder.ClaimEnd` are kept in the entry)."""
    key = claim_key(item)
    if not key:
        return None
    file, line, _ = report.location  # line: 0-based, None where unknown
    where = [{"test": report.nodeid, "file": file, "line": line + 1 if isinstance(line, int) else None}]
    kind = item.stash.get(KIND_KEY, None)
    result = item.stash.get(RESULT_KEY, None) or ClaimEntry(key, split_key(key)[1])
    raised, xfailed = excinfo.value if excinfo else None, getattr(report, "wasxfail", None)
    if isinstance(raised, (Unchecked, ClaimEnd)) and xfailed is None:  # kept for the phases after it
        result = item.stash[RESULT_KEY] = replace(result, **raised.facts)  # (an expected failure's: none)
    outcome = report_outcome(report, kind, result.verdict, error, raised)
    said = report_reason(report, error) if outcome not in (None, PASSED, NEAR_TIE) else ""
    plots = item.stash.get(PLOTS_KEY, None) if report.when == "call" else None
    return replace(
        result,
        key=key,
        outcome=outcome or "",
        reason=_phase_reason(outcome, said, result.verdict_reason, expected_fail, xfailed) if outcome else "",
        said=said,
        kind=kind,
        tests=[report.nodeid],
        duration_s=float(getattr(report, "duration", 0.0) or 0.0),
        locations=where,
        plots=[{"name": name, "png_base64": png} for name, png in plots or ()],
    )


def _phase_reason(
    outcome: str, said: str, recorded: str | None, expected: str | None, xfailed: str | None
) -> str:
    """The reason a test's row gives for the outcome its phase decided: ``said``, the phase's own
    words; ``recorded``, the verdict's; ``expected``, the claim's ``expected_fail``; ``xfailed``, the
    test's xfail reason (None: it did not xfail)."""
    if outcome == NEAR_TIE:
        return recorded or ""
    if expected and outcome in (FAILED, PASSED):
        held = "held after all" if outcome == PASSED else recorded or said
        return f"expected to fail ({expected}): {held}"
    if expected and outcome == ERROR and xfailed is not None:
        return (
            f"expected to fail ({expected}), but the test xfailed without a verdict "
            f"({xfailed}): only claim.check/require/check_comparison decide a claim"
        )
    if outcome == INCONCLUSIVE:
        return recorded or said
    return said if outcome != PASSED else ""


def verdict_text(phase: ClaimEntry, pytest_outcome: str) -> str:
    """One line for pytest-html's Verdict column: the outcome and, unless passed, why."""
    outcome, reason = phase.outcome or pytest_outcome, phase.verdict_reason
    if outcome == PASSED:
        caveat = phase.details.get("caveat")
        return f"{PASSED} ({caveat})" if caveat else PASSED
    if outcome == NEAR_TIE:
        return f"near-tie: {reason}"
    if outcome == FAILED and reason:
        return f"failed: {reason}"
    first = phase.said.splitlines()
    return f"{outcome}: {first[0]}" if first else outcome
