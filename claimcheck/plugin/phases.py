"""pytest's reports read into :class:`~claimcheck.report.Phase` values: the one place that knows a
``TestReport``'s ``when``, ``wasxfail``, ``longrepr`` and pytest-xdist's lines."""

from __future__ import annotations

import contextlib
import re
from pathlib import Path

import pytest

from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, NOT_RUN, PASSED, SKIPPED
from claimcheck.recorder import (
    CLAIM_ID_KEY,
    ERROR_KEY,
    EXPECTED_FAIL_KEY,
    KIND_KEY,
    OUTCOME_KEY,
    PLOTS_ATTR,
    RESULT_ATTR,
)
from claimcheck.report import Phase
from claimcheck.results import ClaimResult

_XDIST_WORKER_LINE = re.compile(r"\A\[gw\d+\] [^\n]* -- Python [^\n]*\n")
_CONTROL = (
    pytest.fail.Exception,
    pytest.skip.Exception,
    pytest.xfail.Exception,
    pytest.exit.Exception,
    KeyboardInterrupt,
)


def _props(report) -> dict:
    return dict(getattr(report, "user_properties", []))


def result_of(report: pytest.TestReport) -> ClaimResult | None:
    """The test's :class:`~claimcheck.results.ClaimResult` a phase's report carries (None: none)."""
    raw = getattr(report, RESULT_ATTR, None)
    return None if raw is None else ClaimResult.from_json(raw)


def exception_reason(excinfo, when: str) -> str | None:
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


def report_reason(report) -> str:
    """A phase's own words: the reason the glue recorded for an error, a skip's reason, else
    pytest's message (without pytest-xdist's worker line)."""
    raised = _props(report).get(ERROR_KEY)
    if raised:
        return raised
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # skip: (path, line, "Skipped: why")
        return longrepr[2].removeprefix("Skipped: ")
    text = getattr(report, "longreprtext", None) or str(longrepr)
    # pytest-xdist: the controller's copy of a worker's report starts "[gw0] linux -- Python 3.11.7 ..."
    return _XDIST_WORKER_LINE.sub("", text, count=1).strip()


def report_outcome(report, result: ClaimResult | None = None) -> str | None:
    """One pytest ``TestReport`` (one phase) as a claim outcome, or None when uninformative: a call
    phase carries the outcome :mod:`.running` decided from the verdict; the other branches are what
    pytest alone says (a fixture's error, a skip in setup, a placeholder)."""
    props = _props(report)
    kind = props.get(KIND_KEY)
    verdict = result.verdict if result is not None else None
    if props.get(OUTCOME_KEY) and report.when == "call" and not hasattr(report, "wasxfail"):
        return props[OUTCOME_KEY]
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
        own = kind not in ("registry-error", "module-error") and not props.get(ERROR_KEY)
        return FAILED if report.when == "call" and own else ERROR
    if report.skipped:
        return SKIPPED
    return PASSED if report.when == "call" else None


def phase_of(report) -> Phase | None:
    """The :class:`~claimcheck.report.Phase` of a pytest report (None: the test names no claim)."""
    props = _props(report)
    cid = props.get(CLAIM_ID_KEY)
    if not cid:
        return None
    location = getattr(report, "location", None)
    where = None
    if location and location[0]:
        line = location[1] + 1 if isinstance(location[1], int) else None
        where = {"test": report.nodeid, "file": str(location[0]), "line": line}
    result = result_of(report)
    outcome = report_outcome(report, result)
    return Phase(
        nodeid=report.nodeid,
        claim=cid,
        outcome=outcome,
        reason=report_reason(report) if outcome not in (None, PASSED, NEAR_TIE) else "",
        kind=props.get(KIND_KEY),
        result=result,
        duration=float(getattr(report, "duration", 0.0) or 0.0),
        location=where,
        plots=[tuple(p) for p in getattr(report, PLOTS_ATTR, None) or ()],
        expected_fail=props.get(EXPECTED_FAIL_KEY),
        xfailed=getattr(report, "wasxfail", None),
    )


def verdict_text(report, result: ClaimResult | None) -> str:
    """One line for pytest-html's Verdict column: the outcome and, unless passed, why."""
    outcome = report_outcome(report, result) or report.outcome
    details = result.details if result is not None else {}
    reason = result.reason if result is not None else None
    if outcome == PASSED:
        caveat = details.get("caveat")
        return f"{PASSED} ({caveat})" if caveat else PASSED
    if outcome == NEAR_TIE:
        return f"near-tie: {reason}"
    if outcome == FAILED and reason:
        return f"failed: {reason}"
    first = report_reason(report).splitlines()
    return f"{outcome}: {first[0]}" if first else outcome
