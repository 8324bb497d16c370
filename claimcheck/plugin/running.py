"""A claim test's set-up (a broken or unknown claim, or an xfail, errors before any measurement; so
does a kit module it cannot import), its end (what its verdict raises, as
:func:`claimcheck.outcomes.ends` says; raised here where the test ended otherwise, never rewritten in
its report), its report's entry (:func:`.phases.phase_of`) and its warnings (recorded, not raised)."""

from __future__ import annotations

import json
import warnings
from collections.abc import Generator
from dataclasses import replace

import pytest

from claimcheck.outcomes import ERROR, INCONCLUSIVE, NEAR_TIE, ends
from claimcheck.plugin.items import AuditItem, CitationItem, DriftItem, FormulaItem, RegistryItem
from claimcheck.plugin.phases import PHASE_ATTR, claim_outcome, exception_reason, phase_of, phase_on
from claimcheck.plugin.state import STATE, claim_marker_id, lookup_claim, missing_kit, registry_for
from claimcheck.recorder import (
    RECORD_KEY,
    RESULT_KEY,
    VERDICT_KEY,
    ClaimEnd,
    VerdictError,
    strict_timing_message,
)
from claimcheck.results import ClaimEntry

WARNINGS_KEY = pytest.StashKey[list]()  # the warnings caught while a claim test runs (setup to teardown)
_CHECKS = (DriftItem, AuditItem, FormulaItem, CitationItem)  # the core's checks: an exception is an error


def _claim_test(item: pytest.Item) -> bool:  # a test with a claim mark, not an item of the registry
    return not isinstance(item, RegistryItem) and claim_marker_id(item) is not None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
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
    cid = claim_marker_id(item) or ""
    result = item.stash.get(RESULT_KEY, None) or ClaimEntry(cid, cid)
    item.stash[RESULT_KEY] = replace(result, details={**result.details, "warnings": found})


def _send_phase(item: pytest.Item, report: pytest.TestReport, phase: ClaimEntry | None) -> None:
    """The phase's entry on its report (xdist sends its attributes to the controller); on the last
    phase's, the test's entry (its phases folded; its plots are in the pages) as JSON text in
    ``user_properties`` too, for the readers of ``--junitxml``."""
    if phase is None:
        return
    setattr(report, PHASE_ATTR, phase.sent())
    if RESULT_KEY in item.stash and report.when == "teardown":
        test = replace(item.config.stash[STATE].collector.folded(phase), plots=[])
        text = json.dumps(test.sent(), ensure_ascii=False, separators=(",", ":"), default=str)
        report.user_properties.append((RECORD_KEY, text))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """Before the kits' skips and the fixtures: a broken claim errors before any measurement or skip,
    and so does an xfail mark on a claim test whose claim has no ``expected_fail`` (an item of ours has
    no claim mark)."""
    marks, cid = list(item.iter_markers("claim")), claim_marker_id(item)
    if marks and cid is None:
        raise pytest.UsageError(
            f"{item.nodeid}: use @pytest.mark.claim('C05') with exactly one claim id string"
        )
    if len(marks) > 1:  # the verdict is one claim's: a second mark would be silently ignored
        ids = ", ".join(repr(a) for m in marks for a in m.args)
        raise pytest.UsageError(
            f"{item.nodeid}: {len(marks)} claim marks ({ids}); a test checks exactly one claim: "
            "write one test per claim"
        )
    if cid is not None and "claim" in getattr(item, "fixturenames", ()):
        lookup_claim(item, cid)
    mark = item.get_closest_marker("xfail") if cid is not None else None
    if mark is not None:
        _refuse_xfail(item, mark.kwargs.get("reason", ""))


@pytest.hookimpl(wrapper=True, specname="pytest_runtest_setup")
def pytest_runtest_setup_needs_kit(item: pytest.Item) -> Generator[None, None, None]:
    """A kit module that a claim test's fixture cannot import is the claim's error (:func:`_needs_kit`)."""
    try:
        return (yield)
    except BaseException as exc:
        _needs_kit(item, exc)
        raise


def _needs_kit(item: pytest.Item, exc: BaseException) -> None:
    """Raise a kit module that a claim test (or its fixture) could not import as the claim's error, in
    one line without a traceback (a core-only install: the other claims run). Raises ClaimEnd."""
    kit = missing_kit(exc) if _claim_test(item) else None
    if kit:
        raise ClaimEnd(f"{claim_marker_id(item)}: {kit}", ERROR) from None


def _expected_fail(item: pytest.Item) -> str | None:
    """The ``expected_fail`` of a claim test's claim (None: none, or no such claim)."""
    reg, cid = registry_for(item.config, item.path), claim_marker_id(item)
    claim = reg.claims.get(cid) if reg is not None and cid is not None else None
    return claim.expected_fail if claim is not None else None


def _refuse_xfail(item: pytest.Item, why: str) -> None:
    """Raise a claim test's xfail as an error, unless its claim has an ``expected_fail`` (its verdict
    decides). Raises ClaimEnd."""
    if _expected_fail(item):
        return
    reg = registry_for(item.config, item.path)
    raise ClaimEnd(
        f"{claim_marker_id(item)}: a claim test cannot be xfail: {why or 'xfail without a reason'} "
        f"({item.nodeid}); only claim.check/require/check_comparison decide a claim. To record "
        f'that the chapter\'s figure is known not to hold, set expected_fail = "why" on the claim '
        f"in {reg.path if reg else 'its claims.toml'}",
        ERROR,
    ) from None


@pytest.hookimpl(wrapper=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> Generator[None, object, object]:
    """A claim test ends as its verdict says: its xfail is refused; a test that returned without a
    verdict, or ended otherwise than its verdict (it caught the verdict's exception), raises here."""
    if not _claim_test(pyfuncitem):
        return (yield)
    try:
        returned = yield
    except pytest.xfail.Exception as exc:
        _refuse_xfail(pyfuncitem, exc.msg or "")
        raise
    except BaseException as exc:
        _needs_kit(pyfuncitem, exc)
        _end_as_verdict(pyfuncitem, exc)
        raise
    _end_as_verdict(pyfuncitem, None)
    return returned


def _end_as_verdict(item: pytest.Item, exc: BaseException | None) -> None:
    """Raise what the standing verdict says where the call ended with ``exc`` (None: it returned) in
    other terms than the verdict's, unless the call itself was worse (:func:`.phases.claim_outcome`).
    Raises ClaimEnd or pytest.skip.Exception."""
    __tracebackhide__ = True
    verdict, cid = item.stash.get(VERDICT_KEY, None), claim_marker_id(item)
    if verdict is None:
        if exc is None:  # a broken test, not a disproof
            raise ClaimEnd(
                f"{cid}: the test passed without a verdict: a claim test must call claim.check(...) "
                "(or claim.skip(reason)); a test that measures nothing cannot stand for a claim",
                ERROR,
            )
        return
    outcome = claim_outcome(verdict.outcome, exc)
    strict = item.config.stash[STATE].settings.strict_timing
    end = ends(outcome, strict)
    # how the call ended, as :attr:`~claimcheck.outcomes.Word.ends` says it (pytest fails an error too)
    skipped = isinstance(exc, pytest.skip.Exception)
    ended = {"return"} if exc is None else {"skip"} if skipped else {"fail", "error"}
    if outcome != verdict.outcome or end is None or end in ended:
        return  # the phase itself was worse, or it ended the verdict's way
    reason = verdict.reason or ""
    if end == "skip":
        raise pytest.skip.Exception(reason, _use_item_location=True)
    if outcome == INCONCLUSIVE:
        raise ClaimEnd(strict_timing_message(cid or "", verdict), INCONCLUSIVE)
    went_on = (
        f"{cid}: the claim's verdict was '{outcome}' ({reason}), but the test went on: "
        "a claim test must not catch the verdict's exception"
    )
    raise ClaimEnd(went_on, outcome, reason)  # the test caught the verdict's exception


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """A claim test's report: why it raised, when not a verdict; as its test's
    :class:`~claimcheck.results.ClaimEntry` with its result and plots."""
    report = yield
    claim_test = _claim_test(item)
    if claim_test:
        _record_warnings(item)
    # an xfailed (or xpassed) claim test's claim's expected_fail
    xfailed = hasattr(report, "wasxfail") or (report.when == "call" and item.get_closest_marker("xfail"))
    expected = _expected_fail(item) if claim_test and xfailed else None
    error = None
    if report.failed and call.excinfo is not None and (claim_test or isinstance(item, _CHECKS)):
        exc = call.excinfo.value
        if isinstance(exc, ClaimEnd):
            error = exc.reason if exc.outcome == ERROR else None
        elif isinstance(exc, VerdictError):
            error = str(exc)
        else:  # raised, not a verdict: the claim's row says error, with the type and message
            error = exception_reason(call.excinfo, call.when)
    _send_phase(item, report, phase_of(item, report, error, expected, call.excinfo))
    return report


def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> tuple[str, str, str] | None:
    """A near-tie in pytest's counts: neither passed nor failed."""
    if (
        report.when == "call"
        and report.passed
        and (phase := phase_on(report)) is not None
        and phase.verdict == NEAR_TIE
    ):
        return NEAR_TIE, "t", NEAR_TIE.upper()
    return None
