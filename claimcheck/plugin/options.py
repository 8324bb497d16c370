"""Options, markers and the run's set-up (``pytest_configure``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from claimcheck import settings as settings_mod
from claimcheck.plugin.state import REGISTRY_NAME, STATE, RunState, registry_candidates, setting_path

#: the files a claims run writes in its report folder (and a folder plots/ for the plots' PNGs)
REPORT_FILES = ("claims.json", "claims.html", "tests.html", "manuscript.html")

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
    return bool(registries_of_args(config, first_only=True))


def registries_of_args(config, first_only: bool = False) -> list[Path]:
    """The ``claims.toml`` files governing this run's arguments (see :func:`is_claims_run`)."""
    root = Path(config.rootpath)
    found: list[Path] = []
    for arg in config.args or []:
        path = Path(str(arg).split("::", 1)[0])
        if not path.is_absolute():
            path = Path(config.invocation_params.dir) / path
        if not path.exists():
            continue
        here = next((c for c in registry_candidates(path, root) if c.is_file()), None)
        below = list(path.rglob(REGISTRY_NAME)) if here is None and path.is_dir() else []
        for p in ([here] if here else below):
            if p not in found:
                found.append(p)
                if first_only:
                    return found
    return found


def _check_runner_profile(config, s) -> None:
    """A ``--claims-runner`` that no governing registry declares is a usage error with a "did you
    mean": a typo would leave the machine-bound figures unenforced without a word."""
    if s.runner_profile is None:
        return
    from claimcheck.registry import load_registry

    paths = registries_of_args(config)
    runners: dict[str, list[str]] = {}
    for path in paths:
        for name in load_registry(path).runners:
            runners.setdefault(name, []).append(str(path))
    if paths:
        try:
            settings_mod.check_runner_profile(s, runners)
        except settings_mod.SettingsError as exc:
            raise pytest.UsageError(f"claimcheck: {exc}") from None


def _check_input_files(config, s) -> None:
    """The files a setting names (manuscript, listing, corpus) exist, are files and can be read;
    the manuscript is UTF-8 (the listing's and the corpus's text are their own claim's business:
    C33 and C31 error with the line)."""
    for name in ("manuscript", "listing", "corpus"):
        if not getattr(s, name):
            continue
        path = setting_path(config, name)
        problem = ("no such file" if not path.exists() else "is a folder, not a file" if path.is_dir()
                   else "cannot be read (permission denied)" if not os.access(path, os.R_OK) else None)
        if problem:
            raise pytest.UsageError(f"claimcheck: {s.shown(name)}: {problem}: {path}")
    if s.manuscript:  # every claim's drift check reads it: an unreadable one stops the run at once
        from claimcheck.manuscript import Manuscript, ManuscriptError

        try:
            Manuscript.read(setting_path(config, "manuscript"))
        except ManuscriptError as exc:
            raise pytest.UsageError(f"claimcheck: {s.shown('manuscript')}: {exc}") from None


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
    _check_input_files(config, s)
    _check_runner_profile(config, s)
    config.pluginmanager.register(state, "claimcheck-state")
    claims_run = is_claims_run(config)
    if claims_run and not hasattr(config, "workerinput"):
        report_dir = Path(config.rootpath) / s.report_dir
        report_dir = config.hook.pytest_claimcheck_report_dir(config=config, report_dir=report_dir) or report_dir
        _check_writable(report_dir, s.shown("report_dir"))
        from claimcheck.fileio import remove_leftovers

        remove_leftovers(report_dir, ("claims.json", "claims.html"))  # of runs killed while writing
        state.json_path = report_dir / "claims.json"
        state.html_path = report_dir / "claims.html"
        # pytest-html writes the test log (tracebacks, durations) beside the claims page; it reads
        # these in its own pytest_configure, which runs after this one.
        if getattr(config.option, "htmlpath", "absent") is None:
            config.option.htmlpath = str(report_dir / "tests.html")
            config.option.self_contained_html = True
        elif getattr(config.option, "htmlpath", None) and \
                (Path(config.invocation_params.dir) / config.option.htmlpath).resolve() == state.html_path.resolve():
            raise pytest.UsageError(f"claimcheck: --html {config.option.htmlpath} is where claimcheck writes the claims "
                                    "page; give pytest-html's test log another name (default: tests.html beside it)")
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
    problems = [p for p in (report_dir / name for name in REPORT_FILES) if p.is_dir()]
    if not os.access(report_dir, os.W_OK):
        raise pytest.UsageError(f"claimcheck: report folder {report_dir} ({source}) is not writable")
    if problems:
        raise pytest.UsageError(f"claimcheck: {problems[0]} is a folder; the report cannot be written there")
    if (report_dir / "plots").exists() and not (report_dir / "plots").is_dir():
        raise pytest.UsageError(f"claimcheck: {report_dir / 'plots'} is a file; the report's plots go in a folder of that name")

