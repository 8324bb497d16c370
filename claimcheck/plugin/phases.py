"""pytest's reports read into :class:`~claimcheck.report.Phase` values, where the test ran (an xdist
worker): the one place that knows a ``TestReport``'s ``when``, ``wasxfail``, ``longrepr`` and
pytest-xdist's lines. A phase travels on its report as :data:`PHASE_ATTR` (``Phase.to_json``)."""

from __future__ import annotations

import contextlib
import re
from dataclasses import replace
from pathlib import Path

import pytest
from _pytest.outcomes import Skipped

from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, NOT_RUN, PASSED, SKIPPED
from claimcheck.recorder import CLAIM_KEY, KIND_KEY, PLOTS_KEY, RESULT_KEY
from claimcheck.report import Phase
from claimcheck.results import ClaimResult

PHASE_ATTR = "claimcheck_phase"  # on a report: its Phase as JSON values (xdist sends it to the controller)
_XDIST_WORKER_LINE = re.compile(r"\A\[gw\d+\] [^\n]* -- Python [^\n]*\n")
_CONTROL = (
    pytest.fail.Exception,
    pytest.skip.Exception,
    pytest.xfail.Exception,
    pytest.exit.Exception,
    KeyboardInterrupt,
)


class Unchecked(Skipped):  # pytest.skip.Exception
    """pytest's skip, with why the item cannot run here as a field: ``cause``, a key of
    :data:`claimcheck.pages.words.CAUSES` (None: none given), kept in the claim's result."""

    # shown as pytest's own ("Skipped: why"), whose module is builtins too
    __module__ = "builtins"
    __qualname__ = "Skipped"

    def __init__(self, reason: str, cause: str | None, *, _use_item_location: bool = True) -> None:
        super().__init__(reason, _use_item_location=_use_item_location)
        self.cause = cause


def claim_key(item: pytest.Item) -> str | None:
    """The key (``ch15:C05``) of the claim a test or item of ours stands for (None: none)."""
    return item.stash.get(CLAIM_KEY, None)


def phase_on(report: pytest.TestReport) -> Phase | None:
    """The :class:`~claimcheck.report.Phase` a report carries (:data:`PHASE_ATTR`; None: the test names
    no claim), as the worker that ran it sent it."""
    raw = getattr(report, PHASE_ATTR, None)
    return None if raw is None else Phase.from_json(raw)


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


def report_outcome(
    report: pytest.TestReport,
    kind: str | None,
    result: ClaimResult | None,
    decided: str | None,
    error: str | None,
) -> str | None:
    """One pytest ``TestReport`` (one phase) as a claim outcome, or None when uninformative: a call
    phase carries the outcome :mod:`.running` ``decided`` from the verdict; the other branches are what
    pytest alone says (a fixture's error, a skip in setup, a placeholder); ``error``: the glue's reason
    for an error."""
    verdict = result.verdict if result is not None else None
    if decided and report.when == "call" and not hasattr(report, "wasxfail"):
        return decided
    if verdict == INCONCLUSIVE and report.skipped:
        return INCONCLUSIVE
    if kind == "placeholder":
        return NOT_RUN if report.skipped else None
    # a test the registry expects to fail (expected_fail): its verdict decides
    if hasattr(report, "wasxfail"):
        return verdict if verdict in (FAILED, PASSED, NEAR_TIE) else ERROR
    if report.when == "call" and report.passed and verdict == NEAR_TIE:
        return NEAR_TIE
    if report.failed:
        own = kind not in ("registry-error", "module-error") and not error
        return FAILED if report.when == "call" and own else ERROR
    if report.skipped:
        return SKIPPED
    return PASSED if report.when == "call" else None


def phase_of(
    item: pytest.Item,
    report: pytest.TestReport,
    decided: str | None = None,
    error: str | None = None,
    expected_fail: str | None = None,
    excinfo: pytest.ExceptionInfo[BaseException] | None = None,
) -> Phase | None:
    """The :class:`~claimcheck.report.Phase` of ``item``'s ``report`` (None: it names no claim):
    ``decided``, the outcome the glue decided from the verdict; ``error``, its reason for an error;
    ``expected_fail``, the claim's, for an xfailed test; ``excinfo``, what the phase raised (the
    cause of an :class:`Unchecked` skip is kept in the item's result, where it has one)."""
    cid = claim_key(item)
    if not cid:
        return None
    location = getattr(report, "location", None)
    where = None
    if location and location[0]:
        line = location[1] + 1 if isinstance(location[1], int) else None
        where = {"test": report.nodeid, "file": str(location[0]), "line": line}
    kind, result = item.stash.get(KIND_KEY, None), item.stash.get(RESULT_KEY, None)
    skip = excinfo.value if excinfo is not None else None
    if isinstance(skip, Unchecked) and result is not None:  # made at collection for a claim test
        result = item.stash[RESULT_KEY] = replace(result, cause=skip.cause)
    outcome = report_outcome(report, kind, result, decided, error)
    plots = item.stash.get(PLOTS_KEY, None) if report.when == "call" else None
    return Phase(
        nodeid=report.nodeid,
        claim=cid,
        outcome=outcome,
        reason=report_reason(report, error) if outcome not in (None, PASSED, NEAR_TIE) else "",
        kind=kind,
        result=result,
        duration=float(getattr(report, "duration", 0.0) or 0.0),
        location=where,
        plots=list(plots or ()),
        expected_fail=expected_fail,
        xfailed=getattr(report, "wasxfail", None),
    )


def verdict_text(phase: Phase, pytest_outcome: str) -> str:
    """One line for pytest-html's Verdict column: the outcome and, unless passed, why."""
    outcome, result = phase.outcome or pytest_outcome, phase.result
    reason = result.reason if result is not None else None
    if outcome == PASSED:
        caveat = result.details.get("caveat") if result is not None else None
        return f"{PASSED} ({caveat})" if caveat else PASSED
    if outcome == NEAR_TIE:
        return f"near-tie: {reason}"
    if outcome == FAILED and reason:
        return f"failed: {reason}"
    first = phase.reason.splitlines()
    return f"{outcome}: {first[0]}" if first else outcome
