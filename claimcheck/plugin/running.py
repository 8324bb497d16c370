"""A claim test's set-up (a broken or unknown claim errors before any measurement), its verdict
(a claim test that passed without recording one fails) and its warnings (recorded, not raised)."""

from __future__ import annotations

import warnings

import pytest

from claimcheck.plugin.items import REGISTRY_ITEMS, AuditItem, DriftItem
from claimcheck.plugin.state import STATE, claim_marker_id, lookup_claim
from claimcheck.recorder import ERROR_KEY, PLOTS_ATTR, PLOTS_KEY, RECORD_KEY, encode_record, stored_record

WARNINGS_KEY = pytest.StashKey[list]()  # the warnings caught while a claim test runs (setup to teardown)


def records_warnings(item) -> bool:
    """Whether ``item``'s warnings are recorded in its claim's details instead of going through
    pytest's filters: a claim test without a ``filterwarnings`` marker. A claim that is about a
    warning says so with the marker (or ``pytest.warns``), and then pytest's filters apply."""
    return (not isinstance(item, REGISTRY_ITEMS) and claim_marker_id(item) is not None
            and item.get_closest_marker("filterwarnings") is None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Run a claim test with every warning caught and kept (``details.warnings`` of its claim).

    ``filterwarnings = error`` is the harness's rule for its own code (tests/); in a claim run a
    new FutureWarning of transformers is a fact about the libraries the claim was measured with,
    not a reason to lose the measurement. Inside pytest's own warning capture (a tryfirst
    wrapper of this hook), so the filter set here is the innermost.
    """
    if not records_warnings(item):
        return (yield)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        item.stash[WARNINGS_KEY] = caught
        return (yield)


def _record_warnings(item, report) -> None:
    """Put the warnings caught so far into the claim's record (item and report), deduplicated."""
    caught = item.stash.get(WARNINGS_KEY, None)
    if not caught:
        return
    seen, found = set(), []
    for w in caught:
        key = (w.category.__name__, str(w.message), w.filename, w.lineno)
        if key not in seen:
            seen.add(key)
            found.append({"category": key[0], "message": key[1][:500], "where": f"{w.filename}:{w.lineno}"})
    for props in (item.user_properties, report.user_properties):
        record = stored_record(props)
        record.setdefault("details", {})["warnings"] = found
        props[:] = [(k, v) for k, v in props if k != RECORD_KEY] + [(RECORD_KEY, encode_record(record))]


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    """Before the kits' skips and the fixtures: a broken claim errors before any measurement, and
    before a skip could hide that it is broken."""
    if isinstance(item, REGISTRY_ITEMS):
        return
    marks = list(item.iter_markers("claim"))
    if marks and claim_marker_id(item) is None:
        raise pytest.UsageError(f"{item.nodeid}: use @pytest.mark.claim('C05') with exactly one claim id string")
    if marks and "claim" in getattr(item, "fixturenames", ()):
        lookup_claim(item.config, item, claim_marker_id(item))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """Turn a claim test that passed without recording a verdict (``claim.check`` never called)
    into an error; mark a claim test that raised (not a verdict: see
    :func:`claimcheck.report.exception_reason`) as an error with the exception's type and message;
    attach the claim's plots to the call report (the claims page shows them)."""
    report = yield
    claim_test = not isinstance(item, REGISTRY_ITEMS) and claim_marker_id(item) is not None
    if claim_test:
        _record_warnings(item, report)
    if (report.when == "call" and report.passed and claim_test and not hasattr(report, "wasxfail")):
        record = stored_record(item.user_properties)
        verdict = record.get("verdict")
        if verdict == "fail":  # the test caught its own verdict's exception: the verdict stands
            report.outcome = "failed"
            report.longrepr = (f"{claim_marker_id(item)}: the claim's verdict was 'failed' ({record.get('reason')}), "
                               "but the test passed: a claim test must not catch the verdict's exception")
        elif verdict == "inconclusive":  # likewise for an undecided timing verdict
            report.outcome = "failed" if item.config.stash[STATE].settings.strict_timing else "skipped"
            report.longrepr = (str(item.path), 0, f"Skipped: {record.get('reason')}") if report.skipped else \
                f"{claim_marker_id(item)} (--claims-strict-timing): {record.get('reason')}"
        elif "verdict" not in record:
            report.outcome = "failed"
            report.longrepr = (f"{claim_marker_id(item)}: the test passed without a verdict: a claim test must "
                               "call claim.check(...) (or skip with a reason); a test that measures nothing "
                               "cannot stand for a claim")
            report.user_properties.append((ERROR_KEY, report.longrepr))  # a broken test, not a disproof
    if report.failed and call.excinfo is not None and (claim_test or isinstance(item, (DriftItem, AuditItem))):
        from claimcheck.report import exception_reason

        reason = exception_reason(call.excinfo, call.when)
        if reason:  # raised, not a verdict: the claim's row says error, with the type and message
            report.user_properties.append((ERROR_KEY, reason))
    plots = item.stash.get(PLOTS_KEY, None)
    if report.when == "call" and plots:
        # on the report (not only the item): xdist sends report attributes to the controller
        setattr(report, PLOTS_ATTR, [[name, b64] for name, b64 in plots])
    return report
