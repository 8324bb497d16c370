"""A claim test's set-up (a broken or unknown claim errors before any measurement), its report
(its verdict's outcome in pytest's terms, by one table: :data:`PYTEST_OUTCOME`) and its warnings
(recorded, not raised)."""

from __future__ import annotations

import json
import warnings
from dataclasses import replace

import pytest

from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, PASSED, SKIPPED, worse
from claimcheck.plugin.items import AuditItem, CitationItem, DriftItem, FormulaItem, RegistryItem
from claimcheck.plugin.phases import exception_reason, result_of
from claimcheck.plugin.state import STATE, claim_marker_id, lookup_claim, missing_kit, registry_for
from claimcheck.recorder import (
    ERROR_KEY,
    EXPECTED_FAIL_KEY,
    OUTCOME_KEY,
    PLOTS_ATTR,
    PLOTS_KEY,
    RECORD_KEY,
    RESULT_ATTR,
    RESULT_KEY,
    VERDICT_KEY,
    VerdictError,
)
from claimcheck.results import ClaimResult
from claimcheck.verdict import Verdict

#: a claim test's outcome in pytest's report: (outcome, the same under --claims-strict-timing). A
#: near-tie passes in pytest's terms and is counted as NEAR-TIE (pytest_report_teststatus).
PYTEST_OUTCOME = {
    PASSED: ("passed", "passed"),
    NEAR_TIE: ("passed", "passed"),
    FAILED: ("failed", "failed"),
    ERROR: ("failed", "failed"),
    SKIPPED: ("skipped", "skipped"),
    INCONCLUSIVE: ("skipped", "failed"),
}

WARNINGS_KEY = pytest.StashKey[list]()  # the warnings caught while a claim test runs (setup to teardown)
_CHECKS = (DriftItem, AuditItem, FormulaItem, CitationItem)  # the core's checks: an exception is an error


def _claim_test(item) -> bool:  # a test with a claim mark, not an item of the registry
    return not isinstance(item, RegistryItem) and claim_marker_id(item) is not None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Run a claim test with every warning kept (``details.warnings``): a library's new FutureWarning is
    a fact about the measurement. Inside pytest's own warning capture: this filter is the innermost."""
    if not _claim_test(item) or item.get_closest_marker("filterwarnings"):  # a claim about a warning
        return (yield)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        item.stash[WARNINGS_KEY] = caught
        return (yield)


def _record_warnings(item: pytest.Item) -> None:
    """Put the warnings caught so far into the test's result (``details.warnings``), deduplicated."""
    caught = item.stash.get(WARNINGS_KEY, None)
    if not caught:
        return
    seen = dict.fromkeys((w.category.__name__, str(w.message), w.filename, w.lineno) for w in caught)
    found = [{"category": c, "message": m[:500], "where": f"{f}:{n}"} for c, m, f, n in seen]
    result = item.stash.get(RESULT_KEY, None) or ClaimResult(claim_marker_id(item) or "")
    item.stash[RESULT_KEY] = replace(result, details={**result.details, "warnings": found})


def _send_result(item: pytest.Item, report: pytest.TestReport) -> None:
    """The test's result on its phase's report (xdist sends its attributes to the controller); on the
    last phase's, as JSON text in ``user_properties`` too, for the readers of ``--junitxml``."""
    result = item.stash.get(RESULT_KEY, None)
    if result is None:
        return
    setattr(report, RESULT_ATTR, result.to_json())
    if report.when == "teardown":
        text = json.dumps(result.to_json(), ensure_ascii=False, separators=(",", ":"), default=str)
        report.user_properties.append((RECORD_KEY, text))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the kits' skips and the fixtures: a broken claim errors before any measurement or skip."""
    if isinstance(item, RegistryItem):
        return
    marks = list(item.iter_markers("claim"))
    if marks and claim_marker_id(item) is None:
        raise pytest.UsageError(
            f"{item.nodeid}: use @pytest.mark.claim('C05') with exactly one claim id string"
        )
    if len(marks) > 1:  # the verdict is one claim's: a second mark would be silently ignored
        ids = ", ".join(repr(a) for m in marks for a in m.args)
        raise pytest.UsageError(
            f"{item.nodeid}: {len(marks)} claim marks ({ids}); a test checks exactly one claim: "
            "write one test per claim"
        )
    if marks and "claim" in getattr(item, "fixturenames", ()):
        lookup_claim(item.config, item, claim_marker_id(item))


def _refuse_xfail(item, report) -> bool:
    """A claim test's xfail as an error, unless its claim has an ``expected_fail`` (its verdict decides)."""
    mark = item.get_closest_marker("xfail")
    if not hasattr(report, "wasxfail") and not (report.when == "call" and mark is not None):
        return False
    reg, cid = registry_for(item.config, item.path), claim_marker_id(item)
    claim = reg.claims.get(cid) if reg is not None and cid is not None else None
    expected = claim.expected_fail if claim is not None else None
    if expected:
        report.user_properties.append((EXPECTED_FAIL_KEY, expected))
        return False
    why = getattr(report, "wasxfail", "") or (mark.kwargs.get("reason", "") if mark else "")
    if hasattr(report, "wasxfail"):
        del report.wasxfail
    report.outcome = "failed"
    report.longrepr = (
        f"{cid}: a claim test cannot be xfail: {why or 'xfail without a reason'} "
        f"({item.nodeid}); only claim.check/require/check_comparison decide a claim. To record "
        f'that the chapter\'s figure is known not to hold, set expected_fail = "why" on the claim '
        f"in {reg.path if reg else 'its claims.toml'}"
    )
    report.user_properties.append((ERROR_KEY, report.longrepr))
    return True


def _call_outcome(report, call) -> str:
    """What a call phase said by itself: ``pytest.fail`` or ``assert`` failed, a skip skipped, else error."""
    if report.passed:
        return PASSED
    if report.skipped:
        return SKIPPED
    exc = call.excinfo.value if call.excinfo is not None else None
    return FAILED if isinstance(exc, (pytest.fail.Exception, AssertionError)) else ERROR


def _report_verdict(item, report, call, verdict: Verdict) -> None:
    """Make the call report say the worse of the stored verdict and the phase, by :data:`PYTEST_OUTCOME`."""
    said = _call_outcome(report, call)
    outcome = worse(verdict.outcome, said)
    if said == SKIPPED and verdict.outcome in (PASSED, NEAR_TIE):
        outcome = SKIPPED  # the test skipped itself after a check: it chose not to decide the claim
    report.user_properties.append((OUTCOME_KEY, outcome if outcome == verdict.outcome else said))
    if outcome != verdict.outcome:  # the phase itself was worse: pytest's report stands, and the row's
        return
    strict = item.config.stash[STATE].settings.strict_timing
    want = PYTEST_OUTCOME[outcome][1 if strict else 0]
    cid, reason = claim_marker_id(item), verdict.reason or ""
    if report.outcome == want:
        return  # the verdict's own exception: its message is the report's
    if outcome == ERROR:  # the test caught the error verdict's exception
        report.user_properties.append((ERROR_KEY, reason))
    report.outcome = want
    if want == "skipped":
        report.longrepr = (str(item.path), (item.location[1] or 0) + 1, f"Skipped: {reason}")
    elif outcome == INCONCLUSIVE:
        report.longrepr = f"{cid} (--claims-strict-timing): {reason}"
    elif want == "failed":
        report.longrepr = (
            f"{cid}: the claim's verdict was '{outcome}' ({reason}), but the test went on: "
            "a claim test must not catch the verdict's exception"
        )


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item, call):
    """A claim test's report: its xfail as an error; its call phase as its stored verdict says; a
    call that passed without a verdict, or raised (not a verdict), as an error; its plots."""
    report = yield
    claim_test = _claim_test(item)
    refused = claim_test and _refuse_xfail(item, report)
    if claim_test:
        _record_warnings(item)
    if report.when == "call" and claim_test and not refused and not hasattr(report, "wasxfail"):
        verdict = item.stash.get(VERDICT_KEY, None)
        if verdict is not None:
            _report_verdict(item, report, call, verdict)
        elif report.passed:
            report.outcome = "failed"
            report.longrepr = (
                f"{claim_marker_id(item)}: the test passed without a verdict: a claim test must "
                "call claim.check(...) (or claim.skip(reason)); a test that measures nothing "
                "cannot stand for a claim"
            )
            report.user_properties.append((ERROR_KEY, report.longrepr))  # a broken test, not a disproof
    raised = report.failed and call.excinfo is not None
    kit = missing_kit(call.excinfo.value) if raised and claim_test else None
    if kit:  # a core-only install: one line, no traceback, the other claims run
        report.longrepr = f"{claim_marker_id(item)}: {kit}"
        report.user_properties.append((ERROR_KEY, report.longrepr))
    elif raised and not refused and (claim_test or isinstance(item, _CHECKS)):
        exc = call.excinfo.value
        reason = str(exc) if isinstance(exc, VerdictError) else exception_reason(call.excinfo, call.when)
        if reason:  # raised, not a verdict: the claim's row says error, with the type and message
            report.user_properties.append((ERROR_KEY, reason))
    plots = item.stash.get(PLOTS_KEY, None)
    if report.when == "call" and plots:  # on the report: xdist sends its attributes to the controller
        setattr(report, PLOTS_ATTR, [[name, b64] for name, b64 in plots])
    _send_result(item, report)
    return report


def pytest_report_teststatus(report, config):
    """A near-tie in pytest's counts: neither passed nor failed."""
    if (
        report.when == "call"
        and report.passed
        and (result := result_of(report)) is not None
        and result.verdict == NEAR_TIE
    ):
        return NEAR_TIE, "t", NEAR_TIE.upper()
    return None
