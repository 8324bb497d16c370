"""Options, markers and the run's set-up (``pytest_configure``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claimcheck import settings as settings_mod
from claimcheck.plugin.state import REGISTRY_NAME, STATE, RunState, registry_candidates, setting_path

MARKERS = {
    "claim": "claim(id): the test checks the registry claim `id` (e.g. 'C18' or 'C30.text')",
    "timing": "timing: a timing measurement (noisy; asserts ratios and trends only)",
    "slow": "slow: takes more than ~20 s on a 2-core CPU (deselect with -m 'not slow')",
}


def pytest_addhooks(pluginmanager):
    from claimcheck.plugin import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser):
    settings_mod.add_options(parser)  # every option, its ini key and its help, from the one table


def is_claims_run(config) -> bool:
    """Whether this run collects a claims registry and runs tests (then it writes the reports).

    A registry governs an argument when it lies in the argument's folder or above it up to the
    rootdir (the walk of :func:`claimcheck.plugin.state.registry_for`), or anywhere below it.
    """
    if config.option.collectonly:
        return False
    root = Path(config.rootpath)
    for arg in config.args or []:
        path = Path(str(arg).split("::", 1)[0])
        if not path.is_absolute():
            path = Path(config.invocation_params.dir) / path
        if not path.exists():
            continue
        if any(c.is_file() for c in registry_candidates(path, root)):
            return True
        if path.is_dir() and next(path.rglob(REGISTRY_NAME), None) is not None:
            return True
    return False


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    for text in MARKERS.values():
        config.addinivalue_line("markers", text)
    try:
        s = settings_mod.resolve(config)
    except settings_mod.SettingsError as exc:
        raise pytest.UsageError(f"claimcheck: {exc}") from None
    state = RunState(settings=s, overrides=dict(s.stated))
    config.stash[STATE] = state
    for name in ("manuscript", "listing"):
        if getattr(s, name) and not setting_path(config, name).is_file():
            where = dict(s.sources).get(name, name)
            raise pytest.UsageError(f"claimcheck: {where}: no such file: {setting_path(config, name)}")
    config.pluginmanager.register(state, "claimcheck-state")
    claims_run = is_claims_run(config)
    if claims_run and not hasattr(config, "workerinput"):
        report_dir = Path(config.rootpath) / s.report_dir
        report_dir = config.hook.pytest_claimcheck_report_dir(config=config, report_dir=report_dir) or report_dir
        _check_writable(report_dir, dict(s.sources).get("report_dir", "default"))
        state.json_path = report_dir / "claims.json"
        state.html_path = report_dir / "claims.html"
        # pytest-html reads these in its own pytest_configure, which runs after this one.
        if getattr(config.option, "htmlpath", "absent") is None:
            config.option.htmlpath = str(state.html_path)
            config.option.self_contained_html = True
    if config.pluginmanager.hasplugin("html"):
        from claimcheck.plugin.html import HtmlReport

        config.pluginmanager.register(HtmlReport(config), "claimcheck-html")
    from claimcheck.plugin.parallel import XdistSupport

    # pytest-xdist: timing claims run alone, the controller learns the workers' registries
    XdistSupport.register(config, state, claims_run=claims_run)


def _check_writable(report_dir: Path, source: str) -> None:
    """Fail before any test runs when the reports could not be written at the end."""
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise pytest.UsageError(f"claimcheck: report folder {report_dir} ({source}) cannot be created: {exc.strerror or exc}") from None
    problems = [p for p in (report_dir / "claims.json", report_dir / "claims.html") if p.is_dir()]
    if not os.access(report_dir, os.W_OK):
        raise pytest.UsageError(f"claimcheck: report folder {report_dir} ({source}) is not writable")
    if problems:
        raise pytest.UsageError(f"claimcheck: {problems[0]} is a folder; the report cannot be written there")

