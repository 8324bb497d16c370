"""Aggregate test reports into one row per claim, and write ``claims.json``.

Outcomes, per claim id: ``passed``, ``failed``, ``near-tie`` (a token stream differed only at a
near-tie: neither a pass nor a hard failure), ``skipped`` (with the reason: no weights, no GPU,
machine-bound), ``error`` (the test or the registry entry is broken), ``not-run`` (no test yet,
or not selected in this run). Every id of every registry loaded in the run appears.
"""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass, field
from pathlib import Path

from claimcheck.outcomes import INCONCLUSIVE, SEVERITY
from claimcheck.outcomes import count as count_outcomes
from claimcheck.recorder import CLAIM_ID_KEY, KIND_KEY, RECORD_KEY


_XDIST_WORKER_LINE = re.compile(r"\A\[gw\d+\] [^\n]* -- Python [^\n]*\n")


def _props(report) -> dict:
    return {k: v for k, v in getattr(report, "user_properties", [])}


def _reason(report) -> str:
    longrepr = report.longrepr
    if longrepr is None:
        return ""
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # skip: (path, line, "Skipped: why")
        text = longrepr[2]
        return text[len("Skipped: "):] if text.startswith("Skipped: ") else text
    text = getattr(report, "longreprtext", None) or str(longrepr)
    # pytest-xdist: the controller's copy of a worker's report starts "[gw0] linux -- Python 3.11.7 ..."
    return _XDIST_WORKER_LINE.sub("", text, count=1).strip()


def report_outcome(report) -> str | None:
    """Map one pytest ``TestReport`` (one phase) to a claim outcome, or None when uninformative."""
    props = _props(report)
    kind = props.get(KIND_KEY)
    if (props.get(RECORD_KEY) or {}).get("verdict") == INCONCLUSIVE and (report.skipped or report.failed):
        return INCONCLUSIVE  # skipped, or failed under --claims-strict-timing: either way undecided
    if kind == "placeholder":
        return "not-run" if report.skipped else None
    if hasattr(report, "wasxfail"):
        return "near-tie" if report.skipped else "passed"
    if report.failed:
        if report.when == "call" and kind != "registry-error":
            return "failed"
        return "error"
    if report.skipped:
        return "skipped"
    if report.when == "call":
        return "passed"
    return None


def verdict_text(report, record: dict) -> str:
    """One line for the HTML Verdict column: the outcome and, unless passed, why."""
    outcome = report_outcome(report) or report.outcome
    if outcome == "passed":
        caveat = (record.get("details") or {}).get("caveat")
        return f"passed ({caveat})" if caveat else "passed"
    if outcome == "near-tie":
        return f"near-tie: {report.wasxfail}"
    if outcome == "failed" and record.get("reason"):
        return f"failed: {record['reason']}"
    first = _reason(report).splitlines()
    return f"{outcome}: {first[0]}" if first else outcome


@dataclass
class ClaimRow:
    id: str
    outcome: str = "not-run"
    reason: str = "no test yet"
    record: dict = field(default_factory=dict)
    tests: list = field(default_factory=list)
    duration_s: float = 0.0


class ResultCollector:
    """Collects phase reports (on the xdist controller too) into per-claim rows."""

    def __init__(self):
        self.tests: dict[str, dict] = {}  # nodeid -> {"id", "outcome", "reason", "record", "duration"}

    def add(self, report) -> None:
        props = _props(report)
        cid = props.get(CLAIM_ID_KEY)
        if not cid:
            return
        entry = self.tests.setdefault(report.nodeid, {"id": cid, "outcome": None, "reason": "",
                                                       "record": {}, "duration": 0.0, "kind": props.get(KIND_KEY)})
        entry["duration"] += float(getattr(report, "duration", 0.0) or 0.0)
        if RECORD_KEY in props:
            entry["record"] = props[RECORD_KEY]
        outcome = report_outcome(report)
        if outcome is None:
            return
        if entry["outcome"] is None or SEVERITY.index(outcome) < SEVERITY.index(entry["outcome"]):
            entry["outcome"] = outcome
            if outcome == "near-tie":
                entry["reason"] = report.wasxfail
            elif outcome == INCONCLUSIVE:
                entry["reason"] = (props.get(RECORD_KEY) or {}).get("reason") or _reason(report)
            elif outcome != "passed":
                entry["reason"] = _reason(report)
            else:
                entry["reason"] = ""

    def measured_display(self, claim_id: str) -> str | None:
        """The measured value a test of ``claim_id`` recorded so far in this run (for drift reports)."""
        for t in self.tests.values():
            if t["id"] == claim_id and t["record"].get("measured_display"):
                return t["record"]["measured_display"]
        return None

    def rows(self, registries) -> list[ClaimRow]:
        """One :class:`ClaimRow` per registry id (registry order), merged with test results."""
        rows: dict[str, ClaimRow] = {}
        for reg in registries:
            for cid in reg.all_ids:
                row = rows.setdefault(cid, ClaimRow(cid, reason="not selected in this run (no test of it ran)"))
                claim = reg.claims.get(cid)
                if claim is not None:
                    row.record = {"stated": claim.stated, "unit": claim.unit, "tolerance": claim.tolerance_text,
                                  "title": claim.title, "locator": claim.locator, "needs": list(claim.needs),
                                  "runner": claim.runner, "note": claim.note}
                else:
                    row.outcome = "error"
                    row.reason = "; ".join(str(i) for i in reg.issues_for(cid))
        for nodeid, t in self.tests.items():
            row = rows.setdefault(t["id"], ClaimRow(t["id"], reason="not in any loaded registry"))
            row.tests.append(nodeid)
            row.duration_s += t["duration"]
            outcome = t["outcome"] or "not-run"
            record = {k: v for k, v in t["record"].items() if v is not None}
            details = record.pop("details", None)
            row.record.update(record)
            if details:  # several tests of one claim (its measurement, its drift check): keep all details
                row.record["details"] = {**row.record.get("details", {}), **details}
            if t.get("kind") == "drift" and outcome not in ("failed", "error"):
                continue  # a drift check that holds says nothing about the measurement: no upgrade
            if t.get("kind") == "drift" and outcome == row.outcome == "failed" and row.reason:
                row.reason = f"{row.reason}\n{t['reason']}"  # failed measurement and drift: say both
                continue
            if SEVERITY.index(outcome) <= SEVERITY.index(row.outcome):
                keep_registry_reason = row.outcome == "error" and outcome == "error"
                row.outcome = outcome
                if not keep_registry_reason:
                    row.reason = t["reason"]
        for row in rows.values():  # under xdist a drift check may run on another worker than its claim's test
            drift = row.record.get("details", {}).get("drift")
            if isinstance(drift, dict) and drift.get("measured") is None and row.record.get("measured_display"):
                drift["measured"] = row.record["measured_display"]
        return list(rows.values())


def build_json(rows, registries, runner: dict, settings, profile: dict, started: float) -> dict:
    """Return the ``claims.json`` document (see the module docstring for the outcomes)."""
    claims = []
    for r in rows:
        rec = r.record
        claims.append({
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
        })
    counts = count_outcomes(c["outcome"] for c in claims)
    return {
        "schema": 1,
        "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "wall_s": round(time.time() - started, 1),
        "runner": runner,
        "settings": {"profile": settings.profile, "runner": settings.runner, "device": settings.device,
                     "sources": dict(settings.sources)},
        "profile": profile,
        "registries": [{"path": reg.path, "chapter": reg.chapter, "runners": reg.runners,
                        "issues": [str(i) for i in reg.issues]} for reg in registries],
        "counts": counts,
        "claims": claims,
    }


def write_json(doc: dict, path: Path) -> None:
    """Write ``claims.json`` atomically (:func:`claimcheck.fileio.write_atomic`)."""
    from claimcheck.fileio import write_atomic

    write_atomic(path, json.dumps(doc, indent=2, ensure_ascii=False))
