"""A claim test's set-up (a broken or unknown claim errors before any measurement) and its verdict
(a claim test that passed without recording one fails)."""

from __future__ import annotations

import pytest

from claimcheck.plugin.items import REGISTRY_ITEMS, PlaceholderItem, RegistryErrorItem
from claimcheck.plugin.state import claim_marker_id, lookup_claim
from claimcheck.recorder import PLOTS_KEY, RECORD_KEY


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
    into a failure, and attach the claim's plots to the call report (pytest-html embeds them)."""
    report = yield
    if (report.when == "call" and report.passed and not isinstance(item, (RegistryErrorItem, PlaceholderItem))
            and claim_marker_id(item) is not None and not hasattr(report, "wasxfail")):
        record = next((v for k, v in item.user_properties if k == RECORD_KEY), {})
        if "verdict" not in record:
            report.outcome = "failed"
            report.longrepr = (f"{claim_marker_id(item)}: the test passed without a verdict: a claim test must "
                               "call claim.check(...) (or skip with a reason); a test that measures nothing "
                               "cannot stand for a claim")
    plots = item.stash.get(PLOTS_KEY, None)
    if report.when == "call" and plots and item.config.pluginmanager.hasplugin("html"):
        from pytest_html import extras

        report.extras = list(getattr(report, "extras", [])) + [extras.png(b64, name) for name, b64 in plots]
    return report
