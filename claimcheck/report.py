"""Fold the phases of the run's tests into one row per claim of every registry loaded, and write
``claims.json`` (a :class:`claimcheck.results.ClaimsDoc`). Phases arrive as plain values
(:mod:`claimcheck.plugin.phases`, their outcomes decided by the verdict); no pytest report is read here.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from claimcheck import fileio
from claimcheck import outcomes as oc
from claimcheck.keys import split as split_key
from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, NOT_RUN, PASSED, SEVERITY, SKIPPED
from claimcheck.outcomes import count as count_outcomes
from claimcheck.registry import Claim, Registry, claim_lines
from claimcheck.results import (
    NOT_SELECTED,
    ChapterInfo,
    ClaimEntry,
    ClaimResult,
    ClaimsDoc,
    Problem,
    RegistryInfo,
    SectionInfo,
)
from claimcheck.settings import Settings


@dataclass
class Phase:
    """One phase (setup, call, teardown) of a claim's test: ``outcome`` the claim outcome it decided
    (None: nothing), ``result`` the test's result if it carries one, ``xfailed`` the xfail reason
    (None: it did not xfail)."""

    nodeid: str
    claim: str  # the claim's key (ch15:C18)
    outcome: str | None = None
    reason: str = ""
    kind: str | None = None  # the test's kind: None (a claim test), drift, placeholder, audit...
    result: ClaimResult | None = None
    duration: float = 0.0
    location: dict | None = None  # {"test", "file", "line" (1-based)}
    plots: list = field(default_factory=list)  # [(name, base64 PNG)]
    expected_fail: str | None = None  # the registry's expected_fail words, when set
    xfailed: str | None = None

    def to_json(self) -> dict[str, Any]:
        """The phase as JSON values (what an xdist worker sends the controller)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["result"] = None if self.result is None else self.result.to_json()
        out["plots"] = [list(p) for p in self.plots]
        return out

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Phase:
        """The phase :meth:`to_json` sent."""
        result = raw.get("result")
        plots = [tuple(p) for p in raw.get("plots") or ()]
        return cls(
            **{**raw, "result": None if result is None else ClaimResult.from_json(result), "plots": plots}
        )


@dataclass
class _Test:
    """One test's phases folded: the worst outcome with its reason, the test's result."""

    id: str  # the claim's key
    kind: str | None
    outcome: str | None = None
    reason: str = ""
    result: ClaimResult | None = None
    duration: float = 0.0
    location: dict | None = None
    plots: list = field(default_factory=list)


class ResultCollector:
    """Collects phase reports (on the xdist controller too) into per-claim rows."""

    def __init__(self) -> None:
        self.tests: dict[str, _Test] = {}  # by nodeid

    def add(self, phase: Phase) -> None:
        """Fold one phase into its test: the worst outcome of its phases, with its reason."""
        t = self.tests.setdefault(phase.nodeid, _Test(phase.claim, phase.kind))
        t.duration += phase.duration
        if phase.result is not None:
            t.result = phase.result
        if t.location is None and phase.location:
            t.location = phase.location
        t.plots += [tuple(p) for p in phase.plots]
        outcome = phase.outcome
        if outcome is not None and (t.outcome is None or SEVERITY.index(outcome) < SEVERITY.index(t.outcome)):
            t.outcome = outcome
            t.reason = _phase_reason(phase, outcome, t.result.reason if t.result is not None else None)

    def measured_display(self, key: str) -> str | None:
        """The measured value a test of the claim ``key`` recorded so far in this run (for drift checks)."""
        found = (t.result.measured_display for t in self.tests.values() if t.id == key and t.result)
        return next((m for m in found if m), None)

    def outcome_of(self, key: str) -> tuple[str | None, str]:
        """``(outcome, reason)``: the worst outcome the claim ``key``'s own tests (not its drift or
        citation checks) reached so far in this run; ``(None, "")`` when none ran."""
        found = [t for t in self.tests.values() if t.id == key and t.outcome and t.kind not in _BESIDE]
        worst = min(found, key=lambda t: SEVERITY.index(t.outcome or ""), default=None)
        return (worst.outcome, worst.reason) if worst else (None, "")

    def rows(self, registries: Iterable[Registry]) -> list[ClaimEntry]:
        """One entry per registry claim (registries in the order given, each in its own order) and per
        claim a test recorded, keyed by ``chapter:id``, with its tests' results; ``plots`` empty."""
        rows: dict[str, ClaimEntry] = {}
        results: dict[str, ClaimResult] = {}  # by key: its tests' results, merged in the order they ran
        for reg in registries:
            lines = id_lines(reg.path)
            for cid in reg.all_ids:
                key = reg.key(cid)
                row = rows.setdefault(key, ClaimEntry(key, cid, reg.chapter_id, reason=NOT_SELECTED))
                row.registry_line = lines.get(cid)
                claim = reg.claims.get(cid)
                if claim is not None:
                    _from_claim(row, claim)
                else:
                    row.outcome, row.reason = ERROR, "; ".join(str(i) for i in reg.issues_for(cid))
        for nodeid, t in self.tests.items():
            if t.id not in rows:
                chapter, cid = split_key(t.id)
                rows[t.id] = ClaimEntry(t.id, cid, chapter or "", reason="not in any loaded registry")
            _fold(rows[t.id], nodeid, t)
            if t.result is not None:
                results[t.id] = results[t.id].merged(t.result) if t.id in results else t.result
        # under xdist a drift check may run on another worker than its claim's test
        for res in results.values():
            drift, shown = res.details.get("drift"), res.measured_display
            if shown and isinstance(drift, dict) and drift.get("measured") is None:
                drift["measured"] = shown
        entries = [_entry(row, results.get(key)) for key, row in rows.items()]
        as_good_as_sources(entries)
        return entries

    def write_plots(self, report_dir: Path) -> dict[str, list[dict]]:
        """Write every test's plots as PNG files under ``report_dir/plots``, named after the claim.
        Returns ``{claim key: [{"name", "file"}]}`` with ``file`` relative to ``report_dir``."""
        out: dict[str, list[dict]] = {}
        for t in self.tests.values():
            for name, b64 in t.plots:
                rel = f"plots/{re.sub(r'[^A-Za-z0-9._-]+', '_', t.id)}-{len(out.get(t.id, [])) + 1}.png"
                fileio.write_atomic(Path(report_dir) / rel, base64.b64decode(b64))
                out.setdefault(t.id, []).append({"name": name, "file": rel})
        return out


def _fold(row: ClaimEntry, nodeid: str, t: _Test) -> None:
    """Fold one test of the claim into its entry: its outcome, reason, location, duration."""
    row.tests.append(nodeid)
    row.duration_s += t.duration
    if t.location and t.kind not in ("drift", "placeholder", "audit"):
        row.locations.append(t.location)
    outcome = t.outcome or NOT_RUN
    details = t.result.details if t.result is not None else {}
    if t.kind == "citation":  # the verdict of a claim with no test: drifted when its quote is
        row.drifted = row.drifted or (outcome == FAILED and details.get("drift", {}).get("status") == "drift")
    if t.kind == "drift" and outcome != ERROR:
        # drift is the manuscript's state, beside the measurement's verdict, never instead of it
        row.drifted = row.drifted or outcome == FAILED
        return
    if SEVERITY.index(outcome) <= SEVERITY.index(row.outcome):
        if not (row.outcome == ERROR and outcome == ERROR):  # else the registry's reason stays
            row.reason = t.reason
        row.outcome = outcome
        res = t.result  # a failure's reason: its verdict's, not pytest's words
        row.verdict_reason = res.reason if res is not None and res.verdict == FAILED else None


#: what an outcome is worth as a source, worst first: a quote is worth no more than what it quotes
#: (a source skipped here leaves its quote unchecked here too; a source not run leaves it as it is)
AS_A_SOURCE = (ERROR, FAILED, INCONCLUSIVE, SKIPPED, NEAR_TIE, PASSED)


def as_good_as_sources(entries: list[ClaimEntry]) -> None:
    """Give each entry that quotes another (``cites``) of ``entries`` the weaker (:data:`AS_A_SOURCE`) of
    its own outcome and its source's, through any chain of quotes, its reason naming the source's; a
    quote with no number of its own (``stated`` empty) takes its source's outcome, and says so."""
    by_key = {e.key: e for e in entries}
    done: set[str] = set()

    def settle(entry: ClaimEntry, seen: frozenset[str]) -> None:
        source = by_key.get(entry.cites or "")
        if entry.key in done or source is None or source.key in seen:
            return
        settle(source, seen | {entry.key})
        done.add(entry.key)
        said = f"{oc.label(source.outcome)} here" + (f": {source.reason}" if source.reason else "")
        if (
            not entry.stated and entry.outcome == PASSED
        ):  # it matched no number of its own: it holds as its source
            entry.outcome, entry.cause = source.outcome, source.cause
            entry.reason = f"quotes {source.key}, with no number of its own, and follows it: {said}"
        elif source.outcome in AS_A_SOURCE and entry.outcome in AS_A_SOURCE:
            if AS_A_SOURCE.index(source.outcome) < AS_A_SOURCE.index(entry.outcome):
                entry.outcome, entry.cause = source.outcome, source.cause
                entry.reason = f"quotes {source.key}, {said}"

    for entry in entries:
        settle(entry, frozenset())


def _from_claim(row: ClaimEntry, claim: Claim) -> None:
    """The registry's facts of a claim on its entry (the registry's ``runner`` is ``runner_bound``)."""
    row.title, row.stated, row.unit, row.tolerance = (
        claim.title,
        claim.stated,
        claim.unit,
        claim.tolerance_text,
    )
    row.locator, row.needs, row.section = claim.locator, list(claim.needs), claim.section
    row.runner_bound, row.note, row.cites = claim.runner, claim.note or "", claim.cites or None


#: kinds of test that stand beside a claim's measurement, never for it
_BESIDE = ("drift", "citation", "placeholder", "audit")


def _phase_reason(phase: Phase, outcome: str, recorded: str | None) -> str:
    """The reason a test's row gives for the outcome its phase decided (``recorded``: the verdict's)."""
    expected = phase.expected_fail
    if outcome == NEAR_TIE:
        return recorded or ""
    if expected and outcome in (FAILED, PASSED):
        held = "held after all" if outcome == PASSED else recorded or phase.reason
        return f"expected to fail ({expected}): {held}"
    if expected and outcome == ERROR and phase.xfailed is not None:
        return (
            f"expected to fail ({expected}), but the test xfailed without a verdict "
            f"({phase.xfailed}): only claim.check/require/check_comparison decide a claim"
        )
    if outcome == INCONCLUSIVE:
        return recorded or phase.reason
    return phase.reason if outcome != PASSED else ""


#: ``{claim id: 1-based line}`` of a registry file ({} when unreadable)
id_lines = claim_lines


def build_json(
    rows: list[ClaimEntry],
    registries: list[Registry],
    runner: dict,
    settings: Settings,
    profile: dict,
    started: float,
    plots: dict[str, list[dict]] | None = None,
    chapter_profiles: dict | None = None,
) -> ClaimsDoc:
    """The ``claims.json`` document of ``rows`` (:meth:`ResultCollector.rows`) and ``plots``
    (:meth:`ResultCollector.write_plots`). ``chapter_profiles``: ``{chapter id: size profile}``
    (default: ``profile`` for every chapter)."""
    claims = [replace(r, plots=(plots or {}).get(r.key, [])) for r in rows]
    return ClaimsDoc(
        generated=time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        wall_s=round(time.time() - started, 1),
        runner=runner,
        settings={**settings.recorded(), "sources": dict(settings.sources)},
        profile=profile,
        chapters=[
            ChapterInfo(
                reg.chapter_id,
                str(reg.chapter.get("title") or reg.chapter_id),
                language=str(reg.chapter.get("language") or ""),
                registry=reg.path,
                manuscript=str(reg.chapter.get("manuscript") or ""),
                profile=(chapter_profiles or {}).get(reg.chapter_id, profile),
            )
            for reg in registries
        ],
        registries=[
            RegistryInfo(
                reg.path,
                chapter=reg.chapter,
                chapter_id=reg.chapter_id,
                runners=reg.runners,
                issues=[str(i) for i in reg.issues],
                problems=[
                    Problem(i.claim_id, i.field, str(i), id_lines(reg.path).get(i.claim_id or ""))
                    for i in reg.issues
                ],
            )
            for reg in registries
        ],
        sections=[
            SectionInfo(sec.id, reg.chapter_id, sec.title, sec.heading)
            for reg in registries
            for sec in getattr(reg, "sections", [])
        ],
        counts=count_outcomes(c.outcome for c in claims),
        drifted=[c.key for c in claims if c.drifted],
        claims=claims,
    )


def _entry(r: ClaimEntry, res: ClaimResult | None) -> ClaimEntry:
    """Finish the entry with its tests' merged result (None: no test recorded one)."""
    res = res or ClaimResult(r.id)
    r.selected = not (r.outcome == NOT_RUN and r.reason == NOT_SELECTED)
    r.reason = r.reason or res.reason or res.details.get("caveat") or ""
    r.details, r.duration_s = res.details, round(r.duration_s, 3)
    r.cause = res.cause
    r.formula, r.measured, r.measured_display = res.formula or None, res.measured, res.measured_display
    r.stated, r.unit, r.tolerance = (
        r.stated if res.stated is None else res.stated,
        r.unit if res.unit is None else res.unit,
        r.tolerance if res.tolerance is None else res.tolerance,
    )
    return r


def write_claims_json(doc: ClaimsDoc, path: Path) -> None:
    """Write ``claims.json`` atomically (:func:`claimcheck.fileio.write_atomic`)."""
    fileio.write_atomic(path, json.dumps(doc.to_json(), indent=2, ensure_ascii=False))
