"""Collection: registries become items; claim tests get their id, their record and the markers of
their claim's ``needs``; a claim without a collected test gets a placeholder."""

from __future__ import annotations

import re
from collections.abc import Callable, Generator, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import pytest

from claimcheck.book import book_issues, claim_ids_in_file
from claimcheck.keys import ClaimKeyError, resolve_key
from claimcheck.plugin.items import (
    AuditItem,
    CitationItem,
    DriftItem,
    ModuleErrorItem,
    PlaceholderItem,
    RegistryFile,
    add_keywords,
    add_need_markers,
)
from claimcheck.plugin.parallel import TIMING_GROUP, needs_exclusive, xdist_group_of
from claimcheck.plugin.phases import claim_key
from claimcheck.plugin.state import (
    REGISTRY_NAME,
    RunState,
    claim_marker_id,
    is_run_registry,
    missing_kit,
    registry_for,
    run_state,
    stated_result,
)
from claimcheck.recorder import CLAIM_KEY, RESULT_KEY


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> RegistryFile | None:
    """A ``claims.toml`` of the run's registries; one elsewhere is another project's, left alone."""
    if file_path.name == REGISTRY_NAME and is_run_registry(parent.config, file_path):
        return RegistryFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(
    collector: pytest.Collector,
) -> Generator[None, pytest.CollectReport, pytest.CollectReport]:
    """A claim test module that cannot be collected: one :class:`ModuleErrorItem` per claim it names."""
    report = yield
    if not (report.failed and isinstance(collector, pytest.Module)):
        return report
    reg = registry_for(collector.config, Path(collector.path))
    if reg is None:  # not a claims module: pytest's own behaviour
        return report
    first = first_error_line(report.longrepr)
    # a core-only install: say which extra, not the import error
    message = missing_kit(text=first) or f"{collector.path}: the test module cannot be collected: {first}"
    item = partial(ModuleErrorItem.from_parent, collector, message=message, registry=reg)
    items: list[pytest.Item | pytest.Collector] = [
        item(name=f"{cid} [module error]", claim_id=cid) for cid in claim_ids_in_file(collector.path)
    ] or [item(name="[module error]", claim_id=None, message=message + " (it names no claim)")]
    return pytest.CollectReport(report.nodeid, "passed", None, items, sections=report.sections)


def first_error_line(longrepr: object) -> str:
    """The exception's first line from a collection report's ``longrepr``: ``"ModuleNotFoundError:
    No module named 'x'"``, ``"SyntaxError: invalid syntax (line 3)"``, ``"RuntimeError: boom"``."""
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None and getattr(crash, "message", None):
        return crash.message.splitlines()[0]
    text = str(longrepr)
    lines = [ln[1:].strip() for ln in text.splitlines() if ln.startswith("E ")]
    typed = [
        ln for ln in lines if re.match(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Warning)\b", ln)
    ]
    found = typed or lines or [ln.strip() for ln in text.splitlines() if ln.strip()] or ["unknown error"]
    first = found[-1]
    where = re.search(r'File "[^"]*", line (\d+)', text)
    if first.startswith("SyntaxError") and where:
        first += f" (line {where.group(1)})"
    return first


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> Generator[None, None, None]:
    """Before every other plugin (-k, -m, a kit's lane): tag claim tests, add markers from the registry's
    `needs`, add placeholders. After them: put back the registry problems, which always run."""
    state = run_state(config)
    covered: dict[str, set] = {}  # registry path -> the ids of its claims that have an item
    for rf in state.registry_files:  # formula claims are checked by the core: covered by their item
        formulas = {i.claim_id for i in getattr(rf, "formula_items", ())}
        covered.setdefault(state.registry(rf.path).path, set()).update(formulas)
    for item in items:
        module_error = isinstance(item, ModuleErrorItem)  # its claim is covered: by an error
        cid = item.claim_id if isinstance(item, ModuleErrorItem) else claim_marker_id(item)
        if cid is None:  # not a claim test: the other items of ours have no claim mark
            continue
        reg = registry_for(config, Path(item.path))
        if reg is not None:
            covered.setdefault(reg.path, set()).add(cid)
        if module_error:
            continue
        item.stash[CLAIM_KEY] = reg.key(cid) if reg is not None else cid
        add_keywords(item, reg, cid)
        claim = reg.claims.get(cid) if reg is not None else None
        if claim is not None:  # a kit may say a test needs less than its claim (its own model, say)
            item.stash[RESULT_KEY] = stated_result(claim)
            needs = config.hook.pytest_claimcheck_test_needs(config=config, item=item, needs=claim.needs)
            add_need_markers(item, claim.needs if needs is None else needs)
    for rf in state.registry_files:
        reg = state.registry(rf.path)
        done = covered.get(reg.path, set())
        state.untested[reg.path] = set(reg.all_ids) - done  # for a test whose claim id is unknown
        # a claim's citation is its verdict when no test of it was collected
        cites = [
            CitationItem.from_parent(
                rf, name=f"{cid} [cites {c.cites}]", claim_id=cid, verdict=cid not in done
            )
            for cid, c in reg.claims.items()
            if c.cites
        ]
        done |= {i.claim_id for i in cites if i.verdict}
        placeholders = [
            PlaceholderItem.from_parent(rf, name=f"{cid} [not-run]", claim_id=cid)
            for cid in reg.claims
            if cid not in done
        ]
        added: list[pytest.Item] = [*cites, *placeholders]
        items += added
        if added:  # told to pytest as a collector's report would: its header counts only collectors'
            # items, but -k and -m deselect these too, so it once printed "47 items / 48 deselected / -1 selected"
            config.hook.pytest_collectreport(report=pytest.CollectReport(rf.nodeid, "passed", None, [*added]))
    _check_run(state)
    # citations after the claims they quote; drift checks and the audit last (a drift report shows the measurement)
    last: dict[type, int] = {CitationItem: 1, DriftItem: 2, AuditItem: 3}
    items.sort(key=lambda i: last.get(type(i), 0))  # stable: each group keeps its order
    if config.pluginmanager.hasplugin("xdist"):
        _xdist_groups(state, items)
    yield
    present = set(map(id, items))  # a registry problem fails the run, whatever deselected it
    errors = (i for rf in state.registry_files for i in getattr(rf, "error_items", ()))
    items += [i for i in errors if id(i) not in present]


def _xdist_groups(state: RunState, items: Sequence[pytest.Item]) -> None:
    """Timing claims share an ``xdist_group``; a citation that is a verdict joins its source's tests."""
    of_key: dict[str, list] = {}
    for item in items:
        if needs_exclusive(item):
            item.add_marker(pytest.mark.xdist_group(TIMING_GROUP))
        if (key := claim_key(item)) is not None:
            of_key.setdefault(key, []).append(item)
    for item in items:
        if not (isinstance(item, CitationItem) and item.verdict):
            continue
        source = item.claim.cites
        if source is None:  # a CitationItem is made only for a claim that cites
            continue
        tests = [i for i in of_key.get(source, []) if i is not item]
        if not tests:
            continue
        group = next(filter(None, map(xdist_group_of, tests)), f"claimcheck-cites-{source}")
        for i in [*tests, item]:
            if xdist_group_of(i) is None:
                i.add_marker(pytest.mark.xdist_group(group))


def pytest_deselected(items: Sequence[pytest.Item]) -> None:
    """Keep each deselected test's claim and kit group: the summary and page say why and how to run them."""
    for item in items:
        config = item.config
        group = config.hook.pytest_claimcheck_deselected_group(config=config, item=item)
        run_state(config).deselected.append((claim_key(item), group))


def deselection(
    records: Iterable[tuple[str | None, str | None]],
    args: Iterable[object],
    words: Callable[[str, str, str], tuple[str, str] | None],
    keyword: str = "",
    markexpr: str = "",
    report_dir: str = "",
    run_args: Iterable[str] = (),
) -> list[dict[str, Any]]:
    """The deselected tests of a run, grouped by why: ``[{"kind", "tests", "claims", "why", "run"}]``
    (``kind``: a kit's group, or ``expr`` for the run's ``-k``/``-m``), from ``records`` (claim key,
    kit group) per test. ``words(group, where, report_dir)``: ``(why, command)`` of a kit's group;
    ``args`` and ``run_args``: the paths and kit arguments of the command that runs them.
    """
    where = " ".join(str(a) for a in args) or "claims/"
    expr = " and ".join(x for x in (keyword and f"-k {keyword!r}", markexpr and f"-m {markexpr!r}") if x)
    by_expr = (f"outside this run's {expr or 'selection'}", " ".join(["pytest", where, *run_args]))
    groups: dict[str, dict] = {}
    for key, group in records:
        said = words(group, where, report_dir) if group else None
        kind, (why, run) = (group, said) if group and said is not None else ("expr", by_expr)
        g = groups.setdefault(kind, {"kind": kind, "tests": 0, "claims": [], "why": why, "run": run})
        g["tests"] += 1
        if key and key not in g["claims"]:
            g["claims"].append(key)
    return list(groups.values())


def _check_run(state: RunState) -> None:
    """Stop the run when two registries have one chapter id (every key would name two claims), a
    ``--claims-stated`` name is not one claim of the run (``ch15:C10`` says which), or, with several
    chapters, no ``[chapter] manuscript`` names the ``--claims-manuscript``."""
    problems = book_issues(state.registries.values())
    if problems:
        raise pytest.UsageError("claimcheck: " + "; ".join(problems))
    keys = [reg.key(cid) for reg in state.registries.values() for cid in reg.all_ids]
    for name in state.overrides:
        try:
            resolve_key(name, keys)
        except ClaimKeyError as exc:
            raise pytest.UsageError(f"claimcheck: --claims-stated names {name}: {exc}") from None
    if not state.settings.manuscript or len(state.registries) < 2 or any(state.manuscript_bound.values()):
        return
    names = ", ".join(
        f"{r.chapter_id}: {r.chapter.get('manuscript') or '(none)'}" for r in state.registries.values()
    )
    raise pytest.UsageError(
        f"claimcheck: --claims-manuscript {state.settings.manuscript}: this run has "
        f"{len(state.registries)} chapters and the file is none of their manuscripts "
        f"([chapter] manuscript: {names}); run one chapter (pytest claims/<chapter>/), or "
        "name the file as its registry does"
    )
