"""Options, the decision whether this is a claims run, and the run's set-up (``pytest_configure``):
the only part every pytest run loads. Only a claims run (:func:`claims_run`) resolves the settings
and registers :data:`GLUE` and the markers; any other gets no other hook, import, variable or file."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from claimcheck import settings as settings_mod
from claimcheck.book import walk_registries
from claimcheck.fileio import InputFileError, check_input_file, not_ours, remove_leftovers
from claimcheck.manuscript import Manuscript, ManuscriptError
from claimcheck.plugin import hookspecs
from claimcheck.plugin.html import HtmlReport
from claimcheck.plugin.parallel import register_xdist
from claimcheck.plugin.state import STATE, RunState, registry_candidates, setting_path
from claimcheck.registry import load_registry

#: the files a claims run writes in its report folder (and a folder plots/ for the plots' PNGs)
REPORT_FILES = ("claims.json", "claims.html", "tests.html", "manuscript.html")

#: the glue of a claims run, registered by :func:`pytest_configure` only when it is one
GLUE = tuple(
    f"claimcheck.plugin.{name}" for name in ("collection", "running", "fixtures", "reporting", "ending")
)

#: folders registry discovery never enters besides hidden ones and venvs (pytest's ``norecursedirs``)
SKIPPED_DIRS = (
    "node_modules",
    "__pycache__",
    "site-packages",
    "*.egg",
    "*.egg-info",
    "_darcs",
    "CVS",
    "{arch}",
)

MARKERS = {
    "claim": "claim(id): the test checks the registry claim `id` (e.g. 'C18' or 'C30.text')",
    "timing": "timing: a timing measurement (noisy; asserts ratios and trends only)",
    "slow": "slow: takes more than ~20 s on a 2-core CPU (deselect with -m 'not slow')",
}

#: the name of the folder that holds a book's registries (``claims/<chapter>/claims.toml``)
CLAIMS_FOLDER = "claims"


def pytest_addhooks(pluginmanager):
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser):
    settings_mod.add_options(parser)  # every option, its ini key and its help, from the one table


def claims_run(config) -> bool:
    """Whether this pytest run is a claims run: it has registries (:func:`registries_of_args`), or
    opts in with ``-p claimcheck``, a ``--claims-*`` option or a ``claims_*`` ini key (not with a
    ``CLAIMCHECK_*`` variable: a stray one must not change another project's run)."""
    if "claimcheck" in (getattr(config.option, "plugins", None) or ()):
        return True
    for o in (o for t in settings_mod.option_tables(config) for o in t.options):
        if config.getoption(o.dest, None) is not None or (
            o.ini and config.getini(o.ini) not in (None, "", [])
        ):
            return True
    return bool(registries_of_args(config, first_only=True, environment=False))


def registries_of_args(config, first_only: bool = False, environment: bool = True) -> list[Path]:
    """The run's registries, in the order found. For each argument: inside a ``claims/`` folder, the
    ``claims.toml`` governing it, or every one below a folder; for the rootdir, every one of its
    ``claims/``; and those ``--claims-registries``, ``CLAIMCHECK_REGISTRIES`` (if ``environment``)
    or the ini key name at, below or above it. Never in hidden folders, venvs or ``norecursedirs``."""
    root = Path(config.rootpath)
    found: list[Path] = []
    skip = (*SKIPPED_DIRS, *config.getini("norecursedirs"))  # what pytest itself does not collect
    named = _named_registries(config, skip, environment)
    for arg in config.args or []:
        path = Path(config.invocation_params.dir) / str(arg).split("::", 1)[0]  # an absolute one stays
        if not path.exists():
            continue
        candidates: list[Path] = []
        claims_dir = _claims_folder_of(path, root)
        if claims_dir is not None:
            here = next((c for c in registry_candidates(path, claims_dir) if c.is_file()), None)
            candidates = [here] if here else find_registries(path, skip) if path.is_dir() else []
        elif path == root and (path / CLAIMS_FOLDER).is_dir():
            candidates = find_registries(path / CLAIMS_FOLDER, skip)
        for p in candidates + [r for r in named if _related(r, path)]:
            if p not in found:
                found.append(p)
                if first_only:
                    return found
    return found


def _claims_folder_of(path: Path, root: Path) -> Path | None:
    """``path`` or its nearest parent named ``claims``, up to the rootdir, else None."""
    for p in (path, *path.parents):
        if p.name == CLAIMS_FOLDER and p.is_dir():
            return p
        if p == root:
            return None
    return None


def _related(registry: Path, arg: Path) -> bool:
    """Whether a run of ``arg`` collects ``registry`` or a test it governs: one lies in the other."""
    folder = registry.parent
    return registry == arg or arg in registry.parents or folder == arg or folder in arg.parents


def _named_registries(config, skip, environment: bool) -> list[Path]:
    """The registries ``--claims-registries``, its variable or ini key name (bad values: the settings')."""
    raw, base = config.getoption("claims_registries", None), Path(config.invocation_params.dir)
    if raw is None and environment:
        raw = os.environ.get("CLAIMCHECK_REGISTRIES") or None
    if raw is None:
        raw, base = config.getini("claims_registries"), Path(config.rootpath)
    try:
        paths = settings_mod.parse_paths(raw) if raw else []
    except ValueError:
        return []
    out: list[Path] = []
    for p in (base / text for text in paths):  # an absolute one stays
        out += find_registries(p, skip) if p.is_dir() else [p] if p.exists() else []
    return out


def find_registries(folder: Path, skip=SKIPPED_DIRS) -> list[Path]:
    """Every ``claims.toml`` below ``folder`` that a run collects (:func:`claimcheck.book.walk_registries`)."""
    return walk_registries(folder, skip)


def _check_runner_profile(config, s) -> None:
    """A ``--claims-runner`` no governing registry declares is a usage error (a typo would go unnoticed)."""
    paths = registries_of_args(config) if s.runner_profile is not None else []
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
    """Refuse the run when a file an option names is missing, not a regular file or unreadable."""
    for name in (o.name for o in s.options if o.file and getattr(s, o.name)):
        path, problem = setting_path(config, name), None
        if not path.exists():
            problem = "no such file"
        elif path.is_dir():
            problem = "is a folder, not a file"
        elif not os.access(path, os.R_OK):
            problem = "cannot be read (permission denied)"
        else:  # a device or FIFO would be read forever or block the open: refused by type
            try:
                check_input_file(path, limit=sys.maxsize)  # the manuscript's size is checked as it is read
            except InputFileError as exc:
                problem = exc.strerror
        if problem:
            raise pytest.UsageError(f"claimcheck: {s.shown(name)}: {problem}: {path}")
    if s.manuscript:  # every claim's drift check reads it: an unreadable one stops the run at once
        try:
            Manuscript.read(setting_path(config, "manuscript"))
        except ManuscriptError as exc:
            raise pytest.UsageError(f"claimcheck: {s.shown('manuscript')}: {exc}") from None


@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if not claims_run(config):  # decided once; nothing below runs, nothing else is registered
        return
    for text in MARKERS.values():
        config.addinivalue_line("markers", text)
    try:
        s = settings_mod.resolve(config)
    except settings_mod.SettingsError as exc:
        raise pytest.UsageError(f"claimcheck: {exc}") from None
    state = RunState(settings=s, overrides=dict(s.stated))
    state.run_registries = frozenset(os.path.realpath(p) for p in registries_of_args(config))
    config.stash[STATE] = state
    _check_input_files(config, s)
    _check_runner_profile(config, s)
    config.pluginmanager.register(state, "claimcheck-state")
    for name in GLUE:
        module = sys.modules.get(name)
        if module is None:
            config.pluginmanager.import_plugin(name)
        elif not config.pluginmanager.is_registered(module):  # imported before (tests/conftest.py)
            config.pluginmanager.register(module, name)
    config.hook.pytest_claimcheck_configure(config=config)  # the kits register their pytest side
    writes = not config.option.collectonly and not hasattr(config, "workerinput")  # not an xdist worker
    if writes:
        report_dir = Path(config.rootpath) / s.report_dir
        report_dir = (
            config.hook.pytest_claimcheck_report_dir(config=config, report_dir=report_dir) or report_dir
        )
        _check_writable(report_dir, s.shown("report_dir"))
        remove_leftovers(report_dir, ("claims.json", "claims.html"))  # of runs killed while writing
        state.json_path, state.html_path = report_dir / "claims.json", report_dir / "claims.html"
        # pytest-html's test log goes beside the claims page (read in its pytest_configure, after this one)
        log = getattr(config.option, "htmlpath", False)
        if log is None:
            config.option.htmlpath = str(report_dir / "tests.html")
            config.option.self_contained_html = True
        elif log and (Path(config.invocation_params.dir) / log).resolve() == state.html_path.resolve():
            raise pytest.UsageError(
                f"claimcheck: --html {log} is where claimcheck writes the claims page; give "
                "pytest-html's test log another name (default: tests.html beside it)"
            )
    if config.pluginmanager.hasplugin("html"):
        config.pluginmanager.register(HtmlReport(config), "claimcheck-html")
    # pytest-xdist: timing claims run alone, the controller learns the workers' registries
    register_xdist(config, state, claims_run=writes)


def _check_writable(report_dir: Path, source: str) -> None:
    """Fail before any test runs when the reports could not be written at the end."""
    try:
        report_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise pytest.UsageError(
            f"claimcheck: report folder {report_dir} ({source}) cannot be created: {exc.strerror or exc}"
        ) from None
    problems = [p for p in (report_dir / name for name in REPORT_FILES) if p.is_dir()]
    if not os.access(report_dir, os.W_OK):
        raise pytest.UsageError(f"claimcheck: report folder {report_dir} ({source}) is not writable")
    if problems:
        raise pytest.UsageError(f"claimcheck: {problems[0]} is a folder; the report cannot be written there")
    foreign = not_ours(report_dir / "claims.json")
    if foreign:  # another tool's claims.json: never overwritten
        raise pytest.UsageError(f"claimcheck: {foreign}")
    if (report_dir / "plots").exists() and not (report_dir / "plots").is_dir():
        raise pytest.UsageError(
            f"claimcheck: {report_dir / 'plots'} is a file; the report's plots go in a folder of that name"
        )
