"""Options, the decision whether this is a claims run, and the run's set-up (``pytest_configure``):
the only part every pytest run loads. Only a claims run (:func:`claims_run`) resolves the settings
and registers :data:`GLUE` and the markers; any other gets no other hook, import, variable or file.

This module imports only :mod:`claimcheck.settings` (itself standard library only) and the hook
specifications at start: the core's other modules are imported inside the functions of a claims run
(or of a project with a ``claims/`` folder), so that another project's pytest pays nothing for them.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from pathlib import Path

import pytest

from claimcheck import settings as settings_mod
from claimcheck.plugin import hookspecs

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
#: the name of a registry (``claimcheck.book.REGISTRY_NAME``): pytest collects no other file as one
REGISTRY_NAME = "claims.toml"


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(hookspecs)


def pytest_addoption(parser: pytest.Parser) -> None:
    settings_mod.add_options(parser)  # every option, its ini key and its help, from the one table


#: the files that make a folder a project of its own (pytest's ini files, a package's build files)
PROJECT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", "pytest.ini", ".pytest.ini")


def claims_run(config: pytest.Config) -> bool:
    """Whether this pytest run is a claims run: it has registries (:func:`registries_of_args`), or
    opts in (:func:`opted_in`; not with a ``CLAIMCHECK_*`` variable: a stray one must not change
    another project's run)."""
    return opted_in(config) or bool(registries_of_args(config, first_only=True))


def opted_in(config: pytest.Config) -> bool:
    """Whether the run asks for claimcheck: ``-p claimcheck``, a ``--claims-*`` option or a
    ``claims_*`` ini key."""
    if "claimcheck" in (getattr(config.option, "plugins", None) or ()):
        return True
    options = (o for t in settings_mod.option_tables(config) for o in t.options)
    return any(settings_mod.given(o, config, {})[1] != "default" for o in options)


def registries_of_args(config: pytest.Config, first_only: bool = False) -> list[Path]:
    """The run's registries, in the order found. For each argument: inside a ``claims/`` folder, the
    ``claims.toml`` governing it, or every one below a folder; for the rootdir, every one of its
    ``claims/``; and those ``--claims-registries``, ``CLAIMCHECK_REGISTRIES`` or the ini key name at,
    below or above it. Never in hidden folders, venvs or ``norecursedirs``. ``first_only``: the first
    of a claims folder, before the settings are resolved (whether this is a claims run: one that
    names registries opts in)."""
    root = Path(config.rootpath)
    found: list[Path] = []
    skip = (*SKIPPED_DIRS, *config.getini("norecursedirs"))  # what pytest itself does not collect
    named = [] if first_only else _named_registries(config, skip)
    for path in arg_paths(config):
        if not path.exists():
            continue
        candidates: list[Path] = []
        claims_dir = _claims_folder_of(path, root, config)
        if claims_dir is not None:
            from claimcheck.plugin.state import registry_candidates

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


def arg_paths(config: pytest.Config) -> list[Path]:
    """The paths of the run's arguments (``claims/ch15/test_kv.py::test_c18``: its file), from the
    invocation folder (an absolute one stays)."""
    return [Path(config.invocation_params.dir) / str(arg).split("::", 1)[0] for arg in config.args or []]


def _claims_folder_of(path: Path, root: Path, config: pytest.Config) -> Path | None:
    """``path`` or its nearest parent named ``claims``, up to the rootdir, else None. A rootdir named
    ``claims`` that is a project of its own (:func:`own_project`: another project checked out in a
    folder of that name) is a claims folder only in a run that opts in (:func:`opted_in`)."""
    for p in (path, *path.parents):
        if p.name == CLAIMS_FOLDER and p.is_dir():
            if p == root and own_project(p, config) and not opted_in(config):
                return None
            return p
        if p == root:
            return None
    return None


def own_project(folder: Path, config: pytest.Config) -> bool:
    """Whether ``folder`` is a project's own root: the run's ini file or one of :data:`PROJECT_FILES`
    is in it (a book's ``claims/`` folder holds registries and tests, never those)."""
    ini = config.inipath
    return (ini is not None and ini.parent == folder) or any(
        (folder / name).is_file() for name in PROJECT_FILES
    )


def _related(registry: Path, arg: Path) -> bool:
    """Whether a run of ``arg`` collects ``registry`` or a test it governs: one lies in the other."""
    folder = registry.parent
    return registry == arg or arg in registry.parents or folder == arg or folder in arg.parents


def _named_registries(config: pytest.Config, skip: tuple[str, ...]) -> list[Path]:
    """The registries ``--claims-registries``, its variable or ini key name (each checked at the start)."""
    from claimcheck.plugin.state import settings_of

    out: list[Path] = []
    for p in _named_paths(config, settings_of(config)):
        out += find_registries(p, skip) if p.is_dir() else [p] if p.exists() else []
    return out


def _named_paths(config: pytest.Config, s: settings_mod.Settings) -> list[Path]:
    """The entries of ``--claims-registries``, its variable or ini key (relative to the rootdir when
    from the ini file, else to the invocation folder; an absolute one stays)."""
    base = Path(config.rootpath if s.source("registries").startswith("ini") else config.invocation_params.dir)
    return [base / text for text in s.registries]


def _check_named_registries(config: pytest.Config, s: settings_mod.Settings) -> None:
    """Refuse the run when an entry of ``--claims-registries``, ``CLAIMCHECK_REGISTRIES`` or the ini key
    ``claims_registries`` is missing, a link loop, not a regular file or folder, a file pytest would not
    collect (not named ``claims.toml``), a folder without one, or outside the project and the run's
    arguments: each would be dropped without a word. The message names each such entry and its source."""
    from claimcheck.display import excerpt

    source = s.source("registries")
    if source == "default":
        return
    where = {
        "--": "--claims-registries",
        "en": "CLAIMCHECK_REGISTRIES",
        "in": "ini claims_registries" + (f" ({Path(config.inipath).name})" if config.inipath else ""),
    }[source[:2]]
    skip = (*SKIPPED_DIRS, *config.getini("norecursedirs"))
    args = [Path(os.path.abspath(p)) for p in arg_paths(config)]
    bad = [
        f"{excerpt(text)}: {why}"
        for text, path in zip(s.registries, _named_paths(config, s))
        if (why := _bad_registry_entry(Path(os.path.abspath(path)), text, Path(config.rootpath), args, skip))
    ]
    if bad:
        more = f"; and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise pytest.UsageError(
            f"claimcheck: {where} names what this run cannot read as a registry: {'; '.join(bad[:5])}{more}"
        )


def _bad_registry_entry(
    path: Path, shown: str, root: Path, args: list[Path], skip: tuple[str, ...]
) -> str | None:
    """Why a named registry ``path`` (absolute, normalised; written ``shown``) would be dropped, or None
    when it is read."""
    try:
        st = os.stat(path)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return f"a loop of symbolic links ({_link_chain(path, shown)})"
        if exc.errno in (errno.ENOENT, errno.ENOTDIR):
            return "no such file or folder"
        return exc.strerror or str(exc)
    folder = stat.S_ISDIR(st.st_mode)
    if not folder and not stat.S_ISREG(st.st_mode):
        from claimcheck.fileio import InputFileError, check_input_file

        try:
            check_input_file(path, limit=sys.maxsize)
        except InputFileError as exc:
            return exc.strerror
    if not folder and path.name != REGISTRY_NAME:
        return f"pytest collects a registry only under the name {REGISTRY_NAME}"
    if not any(path == a or a in path.parents or path in a.parents for a in [root, *args]):
        return f"outside the project ({root}) and this run's arguments: pytest never collects it"
    if folder and not find_registries(path, skip):  # walked last: the cheap checks first
        return "a folder with no claims.toml in it or below it"
    return None


def _link_chain(path: Path, shown: str, limit: int = 4) -> str:
    """``a -> b -> a``: the links of a loop of symbolic links at ``path`` (written ``shown``) as each
    is written, or that a folder of its path is a link loop."""
    chain, seen, here = [shown], {str(path)}, path
    for _ in range(limit):
        try:
            target = os.readlink(here)
        except OSError:
            return " -> ".join(chain) + " -> ..." if len(chain) > 1 else "a folder of its path is one"
        here = Path(os.path.normpath(here.parent / target))
        chain.append(target)
        if str(here) in seen:
            return " -> ".join(chain)
        seen.add(str(here))
    return " -> ".join(chain) + " -> ..."


def _check_link_loops(config: pytest.Config) -> None:
    """Refuse the run when a symbolic link in one of its claims folders leads back to a folder that
    holds it (:func:`claimcheck.book.link_loop`): pytest would collect the chapters below it again at
    every level, and the run would end in one error a page long per copy."""
    from claimcheck.book import link_loop

    root = Path(config.rootpath)
    skip = (*SKIPPED_DIRS, *config.getini("norecursedirs"))
    folders = []
    for path in arg_paths(config):
        claims_dir = _claims_folder_of(path, root, config) if path.exists() else None
        if claims_dir is not None and path.is_dir():
            folders.append(path)
        elif path == root and (path / CLAIMS_FOLDER).is_dir():
            folders.append(path / CLAIMS_FOLDER)
    for folder in folders:
        loop = link_loop(folder, skip)
        if loop is not None:
            link, target = (_shown_path(p, root) for p in loop)
            raise pytest.UsageError(
                f"claimcheck: {link} is a symbolic link to {target}, a folder that holds it: pytest would "
                f"collect the chapters below it again at every level; remove the link, or add "
                f"{loop[0].name!r} to norecursedirs"
            )


def _shown_path(path: Path, root: Path) -> str:
    """``path`` for a message: relative to the rootdir when inside it, its repr when not printable."""
    real_root = os.path.realpath(root)
    text = os.path.relpath(path, real_root) if Path(real_root) in Path(path).parents else str(path)
    return text if text.isprintable() else repr(text)


def find_registries(folder: Path, skip: tuple[str, ...] = SKIPPED_DIRS) -> list[Path]:
    """Every ``claims.toml`` below ``folder`` that a run collects (:func:`claimcheck.book.walk_registries`)."""
    from claimcheck.book import walk_registries

    return walk_registries(folder, skip)


def _check_runner_profile(config: pytest.Config, s: settings_mod.Settings) -> None:
    """A ``--claims-runner`` no governing registry declares is a usage error (a typo would go unnoticed)."""
    from claimcheck.registry import load_registry

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


def _check_input_files(config: pytest.Config, s: settings_mod.Settings) -> None:
    """Refuse the run when a file an option names is missing, not a regular file or unreadable."""
    from claimcheck.fileio import InputFileError, check_input_file
    from claimcheck.manuscript import Manuscript, ManuscriptError
    from claimcheck.plugin.state import setting_path

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
def pytest_configure(config: pytest.Config) -> None:
    if not claims_run(config):  # decided once; nothing below runs, nothing else is registered
        return
    from claimcheck.fileio import remove_leftovers
    from claimcheck.plugin.html import HtmlReport
    from claimcheck.plugin.parallel import register_xdist
    from claimcheck.plugin.state import STATE, RunState

    for text in MARKERS.values():
        config.addinivalue_line("markers", text)
    try:
        s = settings_mod.resolve(config)
    except settings_mod.SettingsError as exc:
        raise pytest.UsageError(f"claimcheck: {exc}") from None
    _check_named_registries(config, s)
    _check_link_loops(config)
    state = config.stash[STATE] = RunState(settings=s, overrides=dict(s.stated))
    state.run_registries = frozenset(os.path.realpath(p) for p in registries_of_args(config))
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
        elif log and (Path(config.invocation_params.dir) / str(log)).resolve() == state.html_path.resolve():
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
    from claimcheck.fileio import not_ours

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
