"""``claims.json`` at the end of the session, and the terminal summary."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from itertools import chain
from pathlib import Path

import pytest

from claimcheck import pages, partial, report
from claimcheck.display import counted, printable
from claimcheck.fileio import not_ours, report_lock
from claimcheck.fingerprint import runner_fingerprint
from claimcheck.outcomes import INCONCLUSIVE, NOT_RUN, count
from claimcheck.pages.manuscript_view import value_source
from claimcheck.pages.words import carried_times, deselected_words, drift_words, interrupted_words
from claimcheck.plugin.collection import deselection
from claimcheck.plugin.ending import half_loaded, heavy_packages
from claimcheck.plugin.options import registries_of_args
from claimcheck.plugin.phases import claim_key
from claimcheck.plugin.state import RunState, fingerprint_of, registry_for, run_state
from claimcheck.registry import Registry, load_registry
from claimcheck.results import NOT_REACHED, NOT_SELECTED, ClaimEntry, ClaimsDoc, Interrupted, RecordedCI


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int | pytest.ExitCode) -> None:
    config = session.config
    state = run_state(config)
    # an xdist worker (the controller reports), or a refused run (nothing was decided)
    if hasattr(config, "workerinput") or exitstatus == pytest.ExitCode.USAGE_ERROR:
        return
    interrupted = exitstatus == pytest.ExitCode.INTERRUPTED
    if interrupted and not state.ended_by:
        state.ended_by = "interrupted"
    try:
        _write_report(session, state, interrupted)
    except Exception as exc:  # noqa: BLE001 - after an interrupt, half-loaded modules must not add a traceback
        if not interrupted:
            raise
        state.page_error = f"the report could not be written after the interrupt: {type(exc).__name__}: {exc}"
    if state.page_error and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED  # the editor's page is part of the run's result


def _write_report(session: pytest.Session, state: RunState, interrupted: bool) -> None:
    """Build and write claims.json (merged with the earlier report's rows, under a lock) and the pages."""
    config = session.config
    if interrupted and not state.registries:  # stopped during collection: still one row per claim
        with contextlib.suppress(Exception):  # best effort: without registries there is no row to write
            for path in registries_of_args(config):
                state.registry(path)
    regs = list(state.registries.values())
    rows = state.collector.rows(regs) if regs else []
    if regs and state.json_path is not None:
        fp = _fingerprint(config, state, interrupted)
        models = {r.model: r.details.get("model") for r in rows if r.model}
        if models:  # the portable-LM lane: which model the rows were measured on
            fp["portable_lm"] = models
        chapter_profiles = _chapter_profiles(config, session, regs)
        profile: dict = next((p for p in chapter_profiles.values() if p), {})
        report_dir = state.json_path.parent
        plots = state.collector.write_plots(report_dir)
        run = (rows, regs, fp, state.settings, profile, state.started)
        doc = report.build_json(*run, plots=plots, chapter_profiles=chapter_profiles)
        log = getattr(config.option, "htmlpath", None) if config.pluginmanager.hasplugin("html") else None
        if log:  # pytest-html's test log: tracebacks and durations, linked from the claims page
            doc.test_log = _relative(Path(config.invocation_params.dir) / log, report_dir)
        if state.manuscript_checks:
            doc.manuscripts = [c.as_dict() for c in state.manuscript_checks.values()]
        if state.deselected:  # which tests this run left out, why, and the command that runs them
            doc.deselected = deselection(
                state.deselected,
                _claim_args(config, regs),
                lambda group, where, rd: config.hook.pytest_claimcheck_deselection_words(
                    config=config, group=group, where=where, report_dir=rd
                ),
                getattr(config.option, "keyword", "") or "",
                getattr(config.option, "markexpr", "") or "",
                _relative(report_dir, Path(config.invocation_params.dir)),
                run_args=list(chain.from_iterable(config.hook.pytest_claimcheck_run_args(config=config))),
            )
        with report_lock(state.json_path):  # another run of this checkout may read-merge-write it too
            if not_ours(state.json_path):  # appeared during the run: left alone, as at the start
                return
            if interrupted:  # a claim the interrupt cut short is one not reached: it keeps its earlier row
                for e in doc.claims:
                    if e.outcome == NOT_RUN and not e.reason:
                        e.reason, e.selected = NOT_SELECTED, False
            # a -k/-m run, or a run of some chapters, keeps the other rows of the last report
            runner_keys = list(chain.from_iterable(config.hook.pytest_claimcheck_runner_keys(config=config)))
            partial.keep_unselected(doc, state.json_path, current=_registry_entries, runner_keys=runner_keys)
            if interrupted:
                _mark_interrupted(doc, session, state.ended_by)
            report.write_claims_json(doc, state.json_path)
        state.json_doc = doc
        _publish(config, state, doc, state.json_path)


def _claim_args(config: pytest.Config, regs: Iterable[Registry]) -> list[str]:
    """The run's path arguments that hold a chapter's claims (all of them when none is told apart)."""
    base = Path(config.invocation_params.dir)
    folders = [Path(reg.path).resolve().parent for reg in regs]

    def holds_claims(arg: str) -> bool:
        where = (base / arg.split("::", 1)[0]).resolve()
        return any(f.is_relative_to(where) or where.is_relative_to(f) for f in folders)

    return [a for a in config.args if holds_claims(a)] or list(config.args)


def _registry_entries(path: str | Path | None) -> dict | None:
    """A registry's claims as they are now (``{id: {stated, unit, tolerance}}``), None when it is gone."""
    if not path or not Path(path).is_file():
        return None
    claims = load_registry(path).claims.items()
    return {cid: {"stated": c.stated, "unit": c.unit, "tolerance": c.tolerance_text} for cid, c in claims}


def _chapter_profiles(config: pytest.Config, session: pytest.Session, regs: list[Registry]) -> dict:
    """``{chapter id: the size profile its tests ran with}`` (``{}``: its claims used no kit sizes)."""
    collected = getattr(session, "items", None) or []
    found: dict[str, list] = {reg.path: [] for reg in regs}
    for item in collected:
        reg = registry_for(config, Path(item.path))
        if reg is not None and reg.path in found:
            found[reg.path].append(item)
    # items=None: the session collected nothing (not: no test of this chapter was collected)
    return {
        reg.chapter_id: config.hook.pytest_claimcheck_size_profile(
            config=config, registry=reg, items=found[reg.path] if collected else None
        )
        or {}
        for reg in regs
    }


def _fingerprint(config: pytest.Config, state: RunState, interrupted: bool) -> dict:
    """The runner fingerprint; after an interrupt in a heavy import, the core's alone (no re-import)."""
    if state.fingerprint is None and interrupted:
        cut = half_loaded(heavy_packages(config))
        try:
            if not cut:
                return dict(fingerprint_of(config))
            why = f"{' and '.join(cut)} half-loaded"
        except Exception as exc:  # noqa: BLE001 - only after an interrupt
            why = type(exc).__name__
        fp = runner_fingerprint(state.settings.runner_profile)
        fp["llm_kit"] = f"not recorded: the run was interrupted while it loaded ({why})"
        state.fingerprint = fp
    return dict(fingerprint_of(config))


def _mark_interrupted(doc: ClaimsDoc, session: pytest.Session, how: str) -> None:
    """Mark the rows this run selected but never reached (not-run, or carried) and say so in ``doc.interrupted``."""
    # session.items is not the selection until collection completes (testscollected is set then)
    items = session.items if getattr(session, "testscollected", 0) else ()
    selected = {key for item in items or () if (key := claim_key(item)) is not None}
    not_reached = []
    for e in doc.claims:
        if not (e.unselected or e.carried is not None) or (selected and e.key not in selected):
            continue
        not_reached.append(e.key)
        if e.carried is not None:
            e.carried.why = f"{NOT_REACHED} ({how})"
        else:
            e.reason = f"interrupted: the run was ended ({how}) before this claim was decided"
    decided = [e.key for e in doc.claims if not e.unselected and e.carried is None]
    doc.interrupted = Interrupted(by=how, decided=decided, not_reached=not_reached)


def _relative(path: Path, folder: Path) -> str:
    try:
        return Path(os.path.relpath(Path(path).resolve(), Path(folder).resolve())).as_posix()
    except ValueError:
        return str(Path(path).resolve())


def _publish(config: pytest.Config, state: RunState, doc: ClaimsDoc, json_path: Path) -> None:
    """Write the pages from the document just written to ``json_path``; a page that fails is reported,
    claims.json stands."""
    regs = state.registries
    checks = [(c, regs[key].waivers) for key, c in state.manuscript_checks.items() if key in regs]
    try:
        state.pages = pages.publish(doc, json_path, checks, state.html_path)
    except Exception as exc:  # noqa: BLE001 - a page must never take claims.json down with it
        state.page_error = f"{type(exc).__name__}: {exc}"


def _counts_line(doc: ClaimsDoc) -> str:
    """The claims' counts by outcome; in a partial run, those run now apart from those carried."""

    def words(entries: Iterable[ClaimEntry]) -> str:
        return ", ".join(f"{v} {k}" for k, v in count(e.outcome for e in entries).items()) or "none"

    claims, sel = doc.claims, doc.selection
    drift = f"; {len(doc.drifted)} drifted from the manuscript" if doc.drifted else ""
    if sel is None or not sel.partial:
        return f"claims: {words(claims)}{drift}"
    carried = [c for c in claims if c.carried is not None]
    ran = [c for c in claims if c.carried is None and c.selected is not False]
    rest = [c for c in claims if c.carried is None and c.selected is False]
    line = f"claims run now: {words(ran)}"
    if carried:
        line += f"; carried from the run of {carried_times(carried)}: {words(carried)}"
    if rest:
        line += f"; not run: {len(rest)}"
    return line + drift


def _write_line(tr: pytest.TerminalReporter, text: str, **markup: bool) -> None:  # never a workflow command
    tr.write_line(printable(text), **markup)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int | pytest.ExitCode, config: pytest.Config
) -> None:
    state = run_state(config)
    doc = state.json_doc
    tr = terminalreporter
    if doc is None or state.json_path is None:
        if state.page_error:  # e.g. the report after an interrupt
            _write_line(tr, f"claimcheck: {state.page_error}", red=True)
        return
    tr.section("claimcheck")
    _write_line(tr, _counts_line(doc))
    if doc.profile.get("description"):
        _write_line(tr, f"profile: {doc.profile['description']}")
    several = len(doc.chapters) > 1
    for c in doc.claims:
        if c.outcome == INCONCLUSIVE:
            ci = c.ci or RecordedCI(float("nan"), float("nan"))
            _write_line(
                tr,
                f"inconclusive {c.key if several else c.id}: {ci.level or 0.95:.0%} CI [{ci.low:.4g}, "
                f"{ci.high:.4g}] vs bar {c.tolerance if ci.bar is None else ci.bar} after "
                f"{'?' if ci.rounds is None else ci.rounds} rounds (not counted as passed)",
            )
    for c in doc.claims:
        if c.drifted:
            said = f"{'; '.join(drift_words(c))} ({value_source(c) or 'its measurement'}: {c.outcome})"
            _write_line(tr, f"drifted {c.key if several else c.id}: {said}", yellow=True)
    for m in doc.manuscripts or []:
        a = m["audit"]
        _write_line(
            tr,
            f"manuscript {m['path']}: {counted(len(m['drift']['failed']), 'claim')} drifted; numbers "
            f"{a['bound']} bound + {a['waived']} waived of {a['numbers']} = {a['coverage']:.1%}",
        )
    sel = doc.selection
    if sel is not None and sel.partial and sel.not_carried_because:  # the counts line says what was carried
        _write_line(tr, f"earlier rows were not kept: {sel.not_carried_because}")
    for group in doc.deselected or []:
        text, run = deselected_words(group, several)
        _write_line(tr, text + (f" To run them: {run}" if run else ""))
    if doc.interrupted is not None:
        _write_line(tr, interrupted_words(doc), yellow=True)
    if state.page_error:
        _write_line(tr, f"claimcheck: the pages could not be written: {state.page_error}", red=True)
    written, log = "  ".join(str(p) for p in state.pages), doc.test_log
    log_words = f"  (test log: {state.json_path.parent / log})" if log else ""
    _write_line(tr, f"report: {state.json_path}  {written}{log_words}")
