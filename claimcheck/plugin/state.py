"""The run's state: one dataclass under one ``StashKey`` of the pytest config; and the small
look-ups every glue module needs (a test file's registry, a test's claim id, a path setting)."""

from __future__ import annotations

import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, requires
from pathlib import Path
from typing import Any, NoReturn

import pytest

from claimcheck.book import REGISTRY_NAME, book_of
from claimcheck.display import printable
from claimcheck.editor import apply_overrides
from claimcheck.fingerprint import describe, runner_fingerprint
from claimcheck.manuscript import ManuscriptCheck
from claimcheck.plugin.phases import Unchecked, phase_on
from claimcheck.recorder import ClaimRecorder
from claimcheck.registry import Claim, Registry, claim_lines, load_registry
from claimcheck.report import ResultCollector
from claimcheck.results import ClaimEntry, ClaimsDoc
from claimcheck.settings import Settings


# eq=False: registered as a plugin, pluggy needs it hashable (by identity), e.g. under a nested conftest
@dataclass(eq=False)
class RunState:
    """Everything the glue keeps for one pytest run (on the xdist controller and on each worker)."""

    settings: Settings
    overrides: dict[str, str] = field(default_factory=dict)  # --claims-stated: claim id -> revised value
    registries: dict[str, Registry] = field(default_factory=dict)  # path -> Registry
    run_registries: frozenset[str] = frozenset()  # real paths: the only claims.toml collected and governing
    registry_files: list = field(default_factory=list)  # the RegistryFile collectors of this run
    collector: ResultCollector = field(default_factory=ResultCollector)
    started: float = field(default_factory=time.time)
    fingerprint: dict | None = None
    manuscript_checks: dict[str, ManuscriptCheck] = field(default_factory=dict)  # by registry path
    json_path: Path | None = None  # where claims.json goes (None: this run writes no report)
    html_path: Path | None = None  # where claims.html (the claims page) goes
    json_doc: ClaimsDoc | None = None  # the claims.json document written at session finish
    pages: list = field(default_factory=list)  # the pages written at session finish
    page_error: str = ""  # why the pages could not be written ("" when they were)
    kit: dict = field(default_factory=dict)  # a measurement kit's own state (e.g. the weights decision)
    untested: dict[str, set] = field(default_factory=dict)  # registry path -> ids no test covers
    manuscript_bound: dict[str, bool] = field(default_factory=dict)  # registry path -> it is its text
    ended_by: str = ""  # "SIGINT"/"SIGTERM" when a signal ended the run, "interrupted" otherwise
    signal_held: bool = False  # a signal came during a heavy import: raised once it is done
    chapters: dict | None = None  # chapter id -> registry: the book the run's citations resolve in
    deselected: list = field(default_factory=list)  # (claim key or None, kit's group or None) per test

    def pytest_runtest_logreport(
        self, report: pytest.TestReport
    ) -> None:  # a plugin: it sees the reports of xdist's workers too
        phase = phase_on(report)
        if phase is not None:
            self.collector.add(phase)

    def registry(self, path: Path) -> Registry:
        """The registry at ``path``, loaded once per run (with this run's ``--claims-stated``)."""
        key = str(path)
        if key not in self.registries:
            reg = load_registry(path)
            apply_overrides(reg, self.overrides)
            self.registries[key] = reg
        return self.registries[key]

    def book(self) -> dict:
        """chapter id -> registry: the run's chapters and the rest of their book (the ``claims/`` folder
        above them), loaded once with ``--claims-stated``: where ``cites`` and ``ch15:C10.stated`` resolve."""
        if self.chapters is None:
            self.chapters = book_of(list(self.registries.values()))
            for reg in self.chapters.values():
                if reg not in self.registries.values():
                    apply_overrides(reg, self.overrides)
        return self.chapters


STATE = pytest.StashKey[RunState]()


def run_state(config: pytest.Config) -> RunState:
    return config.stash[STATE]


def settings_of(config: pytest.Config) -> Settings:
    return config.stash[STATE].settings


def setting_path(config: pytest.Config, name: str) -> Path:
    """A path setting, relative to the rootdir when it came from the ini file, else to the invocation dir."""
    s = settings_of(config)
    from_ini = dict(s.sources).get(name, "").startswith("ini")
    return Path(config.rootpath if from_ini else config.invocation_params.dir) / getattr(s, name)


def registry_for(config: pytest.Config, path: Path) -> Registry | None:
    """The registry governing a test file: the nearest claims.toml at or above its folder, up to the
    rootdir, when it is one of the run's registries (a ``claims.toml`` elsewhere governs nothing)."""
    for candidate in registry_candidates(Path(path), Path(config.rootpath)):
        if candidate.is_file():
            return run_state(config).registry(candidate) if is_run_registry(config, candidate) else None
    return None


def is_run_registry(config: pytest.Config, path: Path) -> bool:
    return os.path.realpath(path) in run_state(config).run_registries


def registry_candidates(path: Path, root: Path) -> Iterator[Path]:
    """``claims.toml`` paths at ``path``'s folder and each parent up to ``root`` (or ``/`` outside it)."""
    folder = path if path.is_dir() else path.parent
    for f in (folder, *folder.parents):
        yield f / REGISTRY_NAME
        if f == root:
            return


def claim_marker_id(item: pytest.Item) -> str | None:
    """The id of the test's ``@pytest.mark.claim(id)``, or None (no marker, or not one string)."""
    mark = item.get_closest_marker("claim")
    args: tuple = mark.args if mark is not None else ()
    return args[0] if len(args) == 1 and isinstance(args[0], str) else None


def line_of_id(path: Path, claim_id: str | None) -> int:
    """0-based line of a claim in a registry file, whatever its form (0 when not found)."""
    return max(claim_lines(path).get(claim_id, 1) - 1, 0) if claim_id else 0


def stated_result(claim: Claim, **fields: Any) -> ClaimEntry:
    """What every item of a claim records before any measurement: key, id, stated value, unit,
    tolerance; ``fields``: more of :class:`~claimcheck.results.ClaimEntry`."""
    return ClaimEntry(
        claim.key, claim.id, stated=claim.stated, unit=claim.unit, tolerance=claim.tolerance_text, **fields
    )


def skip_here(reason: str, cause: str | None = None) -> NoReturn:
    """Skip a whole item that cannot run here (no GPU, a placeholder) at the test's location; no verdict.
    ``cause``: why, a key of :data:`claimcheck.pages.words.CAUSES`. Raises :class:`Unchecked`, or
    ValueError for a ``cause`` that is none of them (a typo would be counted as "other")."""
    raise Unchecked(reason, cause)


def setup_error(message: str) -> NoReturn:
    """Stop an item at set-up, its input broken: an ``error`` row with ``message``, no traceback, no verdict."""
    __tracebackhide__ = True
    raise pytest.fail.Exception(printable(message), pytrace=False)  # a registry's text, on one line


def lookup_claim(item: pytest.Item, cid: str) -> tuple[Registry, Claim]:
    """Return (registry, claim) for a claim test, or fail the test with the registry's own words
    (before any fixture is set up, so a broken claim errors before expensive measurements)."""
    __tracebackhide__ = True
    reg = registry_for(item.config, Path(item.path))
    if reg is None:
        setup_error(f"{item.nodeid}: no {REGISTRY_NAME} in {Path(item.path).parent} or above")
    found = reg.claims.get(cid)
    if found is None:
        issues = reg.issues_for(cid)
        if issues:
            setup_error(f"claim {cid} is invalid in the registry: " + "; ".join(str(i) for i in issues))
        file_level = [str(i) for i in reg.issues if i.claim_id is None]
        if file_level:
            setup_error(f"claim {cid} cannot be read: " + "; ".join(file_level))
        setup_error(reg.unknown_id_message(cid, run_state(item.config).untested.get(reg.path)))
    return reg, found


def recorder_for(item: pytest.Item, claim: Claim) -> ClaimRecorder:
    """The :class:`~claimcheck.recorder.ClaimRecorder` of ``claim`` for ``item`` in this run."""
    settings, hardware = settings_of(item.config), describe(fingerprint_of(item.config))
    return ClaimRecorder(claim, item, settings.runner_profile, hardware, settings.strict_timing)


def fingerprint_of(config: pytest.Config) -> dict:
    """The runner fingerprint of this run (computed once): the core's fields and every kit's."""
    state = run_state(config)
    if state.fingerprint is None:
        fp = runner_fingerprint(state.settings.runner_profile)
        config.hook.pytest_claimcheck_runner_fingerprint(config=config, fingerprint=fp)
        state.fingerprint = fp
    return state.fingerprint


def kit_modules() -> tuple[str, ...]:
    """Import names of the packages of claimcheck's ``claims`` extra, from its installed metadata
    (``pytest-html`` -> ``pytest_html``); () when claimcheck is not installed."""
    try:
        wanted = requires("claimcheck") or []
    except PackageNotFoundError:
        return ()
    names = (
        re.match(r"[A-Za-z0-9._-]+", r) for r in wanted if re.search(r"extra\s*==\s*[\"']claims[\"']", r)
    )
    return tuple(re.sub(r"[-.]", "_", m.group(0)).lower() for m in names if m)


def missing_kit(exc: BaseException | None = None, *, text: str = "") -> str | None:
    """The one line for a claim that cannot run on a core-only install, or None, from the exception
    ``exc`` raised or, where only that is left, its first line ``text``."""
    name = getattr(exc, "name", None) if isinstance(exc, ModuleNotFoundError) else None
    if name is None and text:
        m = re.match(r"(?:\S+: )?ModuleNotFoundError: No module named '([\w.]+)'", text)
        name = m.group(1) if m else None
    top = name.split(".")[0] if name else ""
    if top and top in kit_modules():
        return f"needs the `claims` extra: pip install 'claimcheck[claims]' (no module named {top!r} here)"
    return None
