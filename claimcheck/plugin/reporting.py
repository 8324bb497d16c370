"""``claims.json`` at the end of the session, and the terminal summary."""

from __future__ import annotations

from pathlib import Path

import pytest

from claimcheck.plugin.state import STATE, fingerprint_of


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session, exitstatus):
    config = session.config
    state = config.stash.get(STATE, None)
    if state is None or hasattr(config, "workerinput"):  # an xdist worker: the controller reports
        return
    regs = list(state.registries.values())
    state.rows = state.collector.rows(regs) if regs else []
    if regs and state.json_path is not None:
        from claimcheck.report import build_json, write_json

        fp = dict(fingerprint_of(config))
        models = {r.record["model"]: r.record.get("details", {}).get("model") for r in state.rows if r.record.get("model")}
        if models:  # the portable-LM lane: which model the rows were measured on
            fp["portable_lm"] = models
        from claimcheck.partial import keep_unselected
        from claimcheck.report import write_plots

        chapter_profiles = _chapter_profiles(config, session, regs)
        profile = next((p for p in chapter_profiles.values() if p), {})
        report_dir = state.json_path.parent
        doc = build_json(state.rows, regs, fp, state.settings, profile, state.started,
                         plots=write_plots(state.rows, report_dir), chapter_profiles=chapter_profiles)
        log = getattr(config.option, "htmlpath", None) if config.pluginmanager.hasplugin("html") else None
        if log:  # pytest-html's test log: tracebacks and durations, linked from the claims page
            doc["test_log"] = _relative(Path(config.invocation_params.dir) / log, report_dir)
        if state.manuscript_checks:
            doc["manuscripts"] = [c.as_dict() for c in state.manuscript_checks.values()]
        keep_unselected(doc, state.json_path)  # a -k/-m run keeps the other rows of the last report
        write_json(doc, state.json_path)
        state.json_doc = doc
        _publish(config, state, doc)


def _chapter_profiles(config, session, regs) -> dict:
    """``{chapter id: the size profile its tests ran with}`` (``{}``: its claims used no kit sizes)."""
    from claimcheck.plugin.state import registry_for

    collected = getattr(session, "items", None) or []
    items: dict[str, list | None] = {reg.path: [] if collected else None for reg in regs}
    for item in collected:
        reg = registry_for(config, Path(item.path))
        if reg is not None and reg.path in items:
            items[reg.path].append(item)
    return {reg.chapter_id: config.hook.pytest_claimcheck_size_profile(config=config, registry=reg,
                                                                       items=items[reg.path]) or {}
            for reg in regs}


def _relative(path: Path, folder: Path) -> str:
    import os

    try:
        return Path(os.path.relpath(Path(path).resolve(), Path(folder).resolve())).as_posix()
    except ValueError:
        return str(Path(path).resolve())


def _publish(config, state, doc) -> None:
    """The claims page and the annotated manuscript, from the document just written. A page that
    cannot be rendered is reported in the terminal summary; claims.json stands either way."""
    from claimcheck.pages import publish

    checks = [(c, state.registries[key].waivers) for key, c in state.manuscript_checks.items()
              if key in state.registries]
    try:
        state.pages = publish(doc, state.json_path, checks, state.html_path)
    except Exception as exc:  # noqa: BLE001 - a page must never take claims.json down with it
        state.page_error = f"{type(exc).__name__}: {exc}"


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    state = config.stash.get(STATE, None)
    doc = state.json_doc if state else None
    if not doc:
        return
    tr = terminalreporter
    tr.section("claimcheck")
    counts = ", ".join(f"{v} {k}" for k, v in doc["counts"].items())
    tr.write_line(f"claims: {counts}")
    if doc.get("profile", {}).get("description"):
        tr.write_line(f"profile: {doc['profile']['description']}")
    for c in doc["claims"]:
        if c["outcome"] == "inconclusive":
            ci = (c.get("details") or {}).get("ci") or {}
            tr.write_line(f"inconclusive {c['id']}: {ci.get('level', 0.95):.0%} CI [{ci.get('low', float('nan')):.4g}, "
                          f"{ci.get('high', float('nan')):.4g}] vs bar {ci.get('bar', c.get('tolerance'))} after "
                          f"{ci.get('rounds', '?')} rounds (not counted as passed)")
    for m in doc.get("manuscripts", []):
        a = m["audit"]
        tr.write_line(f"manuscript {m['path']}: {len(m['drift']['failed'])} claims drifted; numbers "
                      f"{a['bound']} bound + {a['waived']} waived of {a['numbers']} = {a['coverage']:.1%}")
    sel = doc.get("selection") or {}
    if sel.get("partial"):
        kept = f"; {len(sel['carried'])} other rows kept from the run of {sel.get('carried_from')}" if sel.get("carried") else ""
        why = f" ({sel['not_carried_because']})" if sel.get("not_carried_because") else ""
        n = len(sel['selected'])
        tr.write_line(f"this run selected {n} claim{'' if n == 1 else 's'}{kept}{why}")
    if state.page_error:
        tr.write_line(f"claimcheck: the pages could not be written: {state.page_error}", red=True)
    pages = "  ".join(str(p) for p in state.pages)
    log = doc.get("test_log")
    tr.write_line(f"report: {state.json_path}  {pages}" + (f"  (test log: {state.json_path.parent / log})" if log else ""))
