"""Aggregate test reports into one row per claim, and write ``claims.json``.

Outcomes (:mod:`claimcheck.outcomes`), one per claim id; every id of every registry loaded in the
run appears. A claim test's call phase is ``failed`` only on a verdict: the recorder's
(``claim.check``, ``claim.require``...), or the test's own ``pytest.fail`` or ``assert``. Any other
exception is ``error`` (the measurement never reached a verdict), its reason the exception's type
and message (:func:`exception_reason`), not pytest's traceback.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, NOT_RUN, PASSED, SEVERITY, SKIPPED
from claimcheck.outcomes import count as count_outcomes
from claimcheck.partial import NOT_SELECTED
from claimcheck.recorder import (
    CLAIM_ID_KEY,
    ERROR_KEY,
    EXPECTED_FAIL_KEY,
    KIND_KEY,
    OUTCOME_KEY,
    PLOTS_ATTR,
    RECORD_KEY,
    decode_record,
)

_XDIST_WORKER_LINE = re.compile(r"\A\[gw\d+\] [^\n]* -- Python [^\n]*\n")


def _props(report) -> dict:
    return {k: v for k, v in getattr(report, "user_properties", [])}


def exception_reason(excinfo, when: str) -> str | None:
    """The reason of a phase that raised, when the exception is not a verdict, else None.

    A verdict: in the call phase, pytest's ``Failed`` (``pytest.fail``, which the recorder uses)
    or an ``AssertionError``; in any phase, pytest's skip/xfail/exit. Anything else (a
    ``RuntimeError`` in the test, an exception in a fixture) returns ``"Type: message (raised at
    file:line)"``, so that the claim's row says what broke instead of disproving the chapter.
    ``pytest.fail`` in setup or teardown (e.g. unusable weights) keeps its own message: None.
    """
    import pytest

    exc = excinfo.value
    if isinstance(
        exc,
        (
            pytest.fail.Exception,
            pytest.skip.Exception,
            pytest.xfail.Exception,
            pytest.exit.Exception,
            KeyboardInterrupt,
        ),
    ):
        return None
    if when == "call" and isinstance(exc, AssertionError):
        return None
    text = str(exc).strip()
    if len(text) > 1000:
        text = text[:1000] + " ..."
    where = ""
    try:
        entry = excinfo.traceback[-1]
        where = f" (raised at {Path(str(entry.path)).name}:{entry.lineno + 1} in {entry.name})"
    except (IndexError, AttributeError, TypeError):
        pass
    return f"{type(exc).__name__}: {text}{where}" if text else f"{type(exc).__name__}{where}"


def _reason(report) -> str:
    raised = _props(report).get(ERROR_KEY)
    if raised:
        return raised
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # skip: (path, line, "Skipped: why")
        text = longrepr[2]
        return text[len("Skipped: ") :] if text.startswith("Skipped: ") else text
    text = getattr(report, "longreprtext", None) or str(longrepr)
    # pytest-xdist: the controller's copy of a worker's report starts "[gw0] linux -- Python 3.11.7 ..."
    return _XDIST_WORKER_LINE.sub("", text, count=1).strip()


def report_outcome(report) -> str | None:
    """Map one pytest ``TestReport`` (one phase) to a claim outcome, or None when uninformative."""
    props = _props(report)
    kind = props.get(KIND_KEY)
    if props.get(OUTCOME_KEY) and report.when == "call" and not hasattr(report, "wasxfail"):
        return props[OUTCOME_KEY]  # the glue's one table decided this call (plugin/running.py)
    if decode_record(props.get(RECORD_KEY) or {}).get("verdict") == INCONCLUSIVE and report.skipped:
        return INCONCLUSIVE
    if kind == "placeholder":
        return NOT_RUN if report.skipped else None
    if hasattr(
        report, "wasxfail"
    ):  # a test the registry expects to fail (expected_fail): its verdict decides
        verdict = decode_record(props.get(RECORD_KEY) or {}).get("verdict")
        return verdict if verdict in (FAILED, PASSED, NEAR_TIE) else ERROR
    if (
        report.when == "call"
        and report.passed
        and decode_record(props.get(RECORD_KEY) or {}).get("verdict") == NEAR_TIE
    ):
        return NEAR_TIE
    if report.failed:
        if (
            report.when == "call"
            and kind not in ("registry-error", "module-error")
            and not props.get(ERROR_KEY)
        ):
            return FAILED
        return ERROR
    if report.skipped:
        return SKIPPED
    if report.when == "call":
        return PASSED
    return None


def verdict_text(report, record: dict) -> str:
    """One line for the HTML Verdict column: the outcome and, unless passed, why."""
    outcome = report_outcome(report) or report.outcome
    if outcome == PASSED:
        caveat = (record.get("details") or {}).get("caveat")
        return f"{PASSED} ({caveat})" if caveat else PASSED
    if outcome == NEAR_TIE:
        return f"near-tie: {record.get('reason')}"
    if outcome == FAILED and record.get("reason"):
        return f"failed: {record['reason']}"
    first = _reason(report).splitlines()
    return f"{outcome}: {first[0]}" if first else outcome


@dataclass
class ClaimRow:
    id: str
    outcome: str = NOT_RUN
    reason: str = "no test yet"
    record: dict = field(default_factory=dict)
    tests: list = field(default_factory=list)
    duration_s: float = 0.0
    locations: list = field(default_factory=list)  # [{"test", "file", "line"}] (line 1-based) of its tests
    plots: list = field(default_factory=list)  # [(name, base64 PNG)] its tests drew
    registry_line: int | None = None  # 1-based line of its ``id = ...`` in the registry
    key: str = ""  # chapter:id (claimcheck.keys); the row's identity
    chapter: str = ""  # the registry's chapter id
    drifted: bool = False  # its drift check failed: the manuscript prints other numbers

    def __post_init__(self):
        self.key = self.key or self.id


class ResultCollector:
    """Collects phase reports (on the xdist controller too) into per-claim rows."""

    def __init__(self) -> None:
        self.tests: dict[str, dict] = {}  # nodeid -> {"id", "outcome", "reason", "record", "duration"}

    def add(self, report) -> None:
        props = _props(report)
        cid = props.get(CLAIM_ID_KEY)
        if not cid:
            return
        entry = self.tests.setdefault(
            report.nodeid,
            {
                "id": cid,
                "outcome": None,
                "reason": "",
                "record": {},
                "duration": 0.0,
                "kind": props.get(KIND_KEY),
                "location": None,
                "plots": [],
            },
        )
        entry["duration"] += float(getattr(report, "duration", 0.0) or 0.0)
        if RECORD_KEY in props:
            entry["record"] = decode_record(props[RECORD_KEY])
        location = getattr(report, "location", None)
        if entry["location"] is None and location and location[0]:
            entry["location"] = {
                "test": report.nodeid,
                "file": str(location[0]),
                "line": location[1] + 1 if isinstance(location[1], int) else None,
            }
        entry["plots"] += [tuple(p) for p in getattr(report, PLOTS_ATTR, None) or ()]
        outcome = report_outcome(report)
        if outcome is None:
            return
        if entry["outcome"] is None or SEVERITY.index(outcome) < SEVERITY.index(entry["outcome"]):
            entry["outcome"] = outcome
            expected = props.get(EXPECTED_FAIL_KEY)
            if outcome == NEAR_TIE:
                entry["reason"] = entry["record"].get("reason") or ""
            elif expected and outcome in (FAILED, PASSED):
                held = (
                    "held after all"
                    if outcome == PASSED
                    else entry["record"].get("reason") or _reason(report)
                )
                entry["reason"] = f"expected to fail ({expected}): {held}"
            elif expected and outcome == ERROR and hasattr(report, "wasxfail"):
                entry["reason"] = (
                    f"expected to fail ({expected}), but the test xfailed without a verdict "
                    f"({report.wasxfail}): only claim.check/require/check_comparison decide a claim"
                )
            elif outcome == INCONCLUSIVE:
                entry["reason"] = entry["record"].get("reason") or _reason(report)
            elif outcome != PASSED:
                entry["reason"] = _reason(report)
            else:
                entry["reason"] = ""

    def measured_display(self, key: str) -> str | None:
        """The measured value a test of the claim ``key`` (``ch15:C18``) recorded so far in this run
        (for drift reports)."""
        for t in self.tests.values():
            if t["id"] == key and t["record"].get("measured_display"):
                return t["record"]["measured_display"]
        return None

    def rows(self, registries) -> list[ClaimRow]:
        """One :class:`ClaimRow` per registry claim (registries in the order given, each in its own
        order), keyed by ``chapter:id`` (tests record the key: two chapters' C10 stay apart),
        merged with test results."""
        rows: dict[str, ClaimRow] = {}
        for reg in registries:
            for cid in reg.all_ids:
                key = reg.key(cid)
                row = rows.setdefault(
                    key, ClaimRow(cid, reason=NOT_SELECTED, key=key, chapter=reg.chapter_id)
                )
                row.registry_line = id_lines(reg.path).get(cid)
                claim = reg.claims.get(cid)
                if claim is not None:
                    row.record = {
                        "stated": claim.stated,
                        "unit": claim.unit,
                        "tolerance": claim.tolerance_text,
                        "title": claim.title,
                        "locator": claim.locator,
                        "needs": list(claim.needs),
                        "runner": claim.runner,
                        "note": claim.note,
                        "section": claim.section,
                    }
                else:
                    row.outcome = ERROR
                    row.reason = "; ".join(str(i) for i in reg.issues_for(cid))
        for nodeid, t in self.tests.items():
            if t["id"] not in rows:
                from claimcheck.keys import split

                chapter, cid = split(t["id"])
                rows[t["id"]] = ClaimRow(
                    cid, reason="not in any loaded registry", key=t["id"], chapter=chapter or ""
                )
            row = rows[t["id"]]
            row.tests.append(nodeid)
            row.duration_s += t["duration"]
            if t.get("location") and t.get("kind") not in ("drift", "placeholder", "audit"):
                row.locations.append(t["location"])
            row.plots += t.get("plots") or []
            outcome = t["outcome"] or NOT_RUN
            record = {k: v for k, v in t["record"].items() if v is not None}
            details = record.pop("details", None)
            row.record.update(record)
            if details:  # several tests of one claim (its measurement, its drift check): keep all details
                row.record["details"] = {**row.record.get("details", {}), **details}
            if t.get("kind") == "drift" and outcome != ERROR:
                # drift is the manuscript's state, beside the measurement's verdict, never instead of it
                row.drifted = row.drifted or outcome == FAILED
                continue
            if SEVERITY.index(outcome) <= SEVERITY.index(row.outcome):
                keep_registry_reason = row.outcome == ERROR and outcome == ERROR
                row.outcome = outcome
                if not keep_registry_reason:
                    row.reason = t["reason"]
        for row in rows.values():  # under xdist a drift check may run on another worker than its claim's test
            drift = row.record.get("details", {}).get("drift")
            if (
                isinstance(drift, dict)
                and drift.get("measured") is None
                and row.record.get("measured_display")
            ):
                drift["measured"] = row.record["measured_display"]
        return list(rows.values())


def id_lines(path) -> dict[str, int]:
    """``{claim id: 1-based line of its id = "..." line}`` of a registry file ({} when unreadable)."""
    out: dict[str, int] = {}
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return out
    for n, line in enumerate(text.splitlines(), start=1):
        m = re.fullmatch(r'\s*id\s*=\s*"([^"]+)"\s*(#.*)?', line)
        if m:
            out.setdefault(m.group(1), n)
    return out


def write_plots(rows, report_dir: Path) -> dict[str, list[dict]]:
    """Write every row's plots as PNG files under ``report_dir/plots`` (atomically, one file per plot,
    named after the claim: a run of other claims leaves them alone). Returns ``{claim id:
    [{"name", "file"}]}`` with ``file`` relative to ``report_dir`` (what ``claims.json`` records)."""
    import base64

    from claimcheck.fileio import write_atomic

    out: dict[str, list[dict]] = {}
    for r in rows:
        for n, (name, b64) in enumerate(r.plots, start=1):
            rel = f"plots/{re.sub(r'[^A-Za-z0-9._-]+', '_', r.key)}-{n}.png"
            write_atomic(Path(report_dir) / rel, base64.b64decode(b64))
            out.setdefault(r.key, []).append({"name": name, "file": rel})
    return out


def build_json(
    rows,
    registries,
    runner: dict,
    settings,
    profile: dict,
    started: float,
    plots=None,
    chapter_profiles: dict | None = None,
) -> dict:
    """Return the ``claims.json`` document (see the module docstring for the outcomes).

    ``plots``: ``{claim key: [{"name", "file"}]}`` from :func:`write_plots` (default: none).
    ``chapter_profiles``: ``{chapter id: size profile}`` (``{}`` for a chapter that used no kit
    sizes); default: ``profile`` for every chapter.
    Each claim entry has ``key`` (``ch15:C18``), ``chapter`` and ``id`` (the chapter's own id);
    sections carry their chapter; ``chapters`` lists the chapters in the run's order.
    """
    from claimcheck.results import SCHEMA

    claims = []
    for r in rows:
        rec = r.record
        claims.append(
            {
                "key": r.key,
                "chapter": r.chapter,
                "id": r.id,
                "outcome": r.outcome,
                "title": rec.get("title"),
                "stated": rec.get("stated"),
                "measured": rec.get("measured"),
                "measured_display": rec.get("measured_display"),
                "unit": rec.get("unit"),
                "tolerance": rec.get("tolerance"),
                "reason": r.reason or rec.get("reason") or (rec.get("details") or {}).get("caveat") or "",
                "needs": rec.get("needs"),
                "locator": rec.get("locator"),
                "runner_bound": rec.get("runner"),
                "details": rec.get("details", {}),
                "tests": r.tests,
                "duration_s": round(r.duration_s, 3),
                "section": rec.get("section"),
                "note": rec.get("note") or "",
                "verdict_reason": rec.get("reason") if rec.get("verdict") == FAILED else None,
                "selected": not (r.outcome == NOT_RUN and r.reason == NOT_SELECTED),
                "drifted": r.drifted,
                "locations": r.locations,
                "registry_line": r.registry_line,
                "plots": (plots or {}).get(r.key, []),
                **({"formula": rec["formula"]} if rec.get("formula") else {}),
            }
        )
    counts = count_outcomes(c["outcome"] for c in claims)
    return {
        "schema": SCHEMA,
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "wall_s": round(time.time() - started, 1),
        "runner": runner,
        "settings": {
            **settings.recorded(),
            "sources": dict(settings.sources),
        },
        "profile": profile,
        "chapters": [
            {
                "id": reg.chapter_id,
                "title": str(reg.chapter.get("title") or reg.chapter_id),
                "language": str(reg.chapter.get("language") or ""),
                "registry": reg.path,
                "manuscript": str(reg.chapter.get("manuscript") or ""),
                "profile": (chapter_profiles or {}).get(reg.chapter_id, profile)
                if chapter_profiles is not None
                else profile,
            }
            for reg in registries
        ],
        "registries": [
            {
                "path": reg.path,
                "chapter": reg.chapter,
                "chapter_id": reg.chapter_id,
                "runners": reg.runners,
                "issues": [str(i) for i in reg.issues],
                "problems": [
                    {
                        "claim": i.claim_id,
                        "field": i.field,
                        "message": str(i),
                        "line": id_lines(reg.path).get(i.claim_id or ""),
                    }
                    for i in reg.issues
                ],
            }
            for reg in registries
        ],
        "sections": [
            {"id": sec.id, "chapter": reg.chapter_id, "title": sec.title, "heading": sec.heading}
            for reg in registries
            for sec in getattr(reg, "sections", [])
        ],
        "counts": counts,
        "drifted": [c["key"] for c in claims if c["drifted"]],
        "claims": claims,
    }


def write_json(doc: dict, path: Path) -> None:
    """Write ``claims.json`` atomically (:func:`claimcheck.fileio.write_atomic`)."""
    from claimcheck.fileio import write_atomic

    write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False))
