"""``claims.json`` at the end of the session, and the terminal summary."""

from __future__ import annotations

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
        profile = config.hook.pytest_claimcheck_size_profile(config=config) or {}
        doc = build_json(state.rows, regs, fp, state.settings, profile, state.started)
        if state.manuscript_checks:
            doc["manuscripts"] = [c.as_dict() for c in state.manuscript_checks.values()]
        write_json(doc, state.json_path)
        state.json_doc = doc


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
    tr.write_line(f"report: {state.json_path}  and  {config.option.htmlpath if hasattr(config.option, 'htmlpath') else state.html_path}")
