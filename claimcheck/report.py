"""Fold the phases of the run's tests into one row per claim of every registry loaded, and write
``claims.json`` (a :class:`claimcheck.results.ClaimsDoc`). A phase arrives as its test's
:class:`~claimcheck.results.ClaimEntry` (:mod:`claimcheck.plugin.phases`, its outcome decided by the
verdict); no pytest report is read here.
"""

from __future__ import annotations

import base64
import json
import re
import time
from collections.abc import Iterable
from dataclasses import replace
from functools import reduce
from pathlib import Path

from claimcheck import fileio
from claimcheck import outcomes as oc
from claimcheck.keys import split as split_key
from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, NOT_RUN, PASSED, SEVERITY, SKIPPED
from claimcheck.registry import Claim, Registry, claim_lines
from claimcheck.results import (
    NOT_SELECTED,
    ChapterInfo,
    ClaimEntry,
    ClaimsDoc,
    Problem,
    RegistryInfo,
    SectionInfo,
)
from claimcheck.settings import Settings


class ResultCollector:
    """Folds the entries of the phases of claims' tests (on the xdist controller too) into one entry per
    test, and those into one row per claim."""

    def __init__(self) -> None:
        self.tests: dict[str, ClaimEntry] = {}  # by nodeid: its phases folded

    def add(self, phase: ClaimEntry) -> None:
        """Fold one phase's entry (:func:`claimcheck.plugin.phases.phase_of`) into its test's."""
        self.tests[phase.tests[0]] = self.folded(phase)

    def folded(self, phase: ClaimEntry) -> ClaimEntry:
        """The entry of the test of ``phase`` with it folded in: the latest result, the worst outcome of
        its phases with its reason, their durations and plots, the first location."""
        t = self.tests.get(phase.tests[0])
        if t is None:
            return phase
        worse = bool(phase.outcome) and (
            not t.outcome or SEVERITY.index(phase.outcome) < SEVERITY.index(t.outcome)
        )
        return replace(
            phase,
            outcome=phase.outcome if worse else t.outcome,
            reason=phase.reason if worse else t.reason,
            duration_s=t.duration_s + phase.duration_s,
            locations=t.locations or phase.locations,
            plots=t.plots + phase.plots,
        )

    def measured_display(self, key: str) -> str | None:
        """The measured value a test of the claim ``key`` recorded so far in this run (for drift checks)."""
        return next(
            (t.measured_display for t in self.tests.values() if t.key == key and t.measured_display), None
        )

    def outcome_of(self, key: str) -> tuple[str | None, str]:
        """``(outcome, reason)``: the worst outcome the claim ``key``'s own tests (not its drift or
        citation checks) reached so far in this run; ``(None, "")`` when none ran."""
        found = [t for t in self.tests.values() if t.key == key and t.outcome and t.kind not in _BESIDE]
        worst = min(found, key=lambda t: SEVERITY.index(t.outcome), default=None)
        return (worst.outcome, worst.reason) if worst else (None, "")

    def rows(self, registries: Iterable[Registry]) -> list[ClaimEntry]:
        """One entry per registry claim (registries in the order given, each in its own order) and per
        claim a test recorded, keyed by ``chapter:id``, with its tests' results; ``plots`` empty."""
        rows: dict[str, ClaimEntry] = {}
        tests: dict[str, list[ClaimEntry]] = {}  # by key: its tests, in the order they ran
        for reg in registries:
            lines = claim_lines(reg.path)
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
            if t.key not in rows:
                chapter, cid = split_key(t.key)
                rows[t.key] = ClaimEntry(t.key, cid, chapter or "", reason="not in any loaded registry")
            _fold(rows[t.key], nodeid, t)
            tests.setdefault(t.key, []).append(t)
        # merged so that the test that decided the row's outcome (of equal ones the latest, as its
        # reason) comes last: the row shows its measurement; the checks beside the claim first
        results = {k: reduce(ClaimEntry.merged, sorted(ts, key=_merge_order)) for k, ts in tests.items()}
        # under xdist a drift check may run on another worker than its claim's test
        for res in results.values():
            drift, shown = res.details.get("drift"), res.measured_display
            if shown and drift is not None and drift.get("measured") is None:
                drift["measured"] = shown
        entries = [_entry(row, results.get(key)) for key, row in rows.items()]
        as_good_as_sources(entries)
        return entries

    def write_plots(self, report_dir: Path) -> dict[str, list[dict]]:
        """Write every test's plots as PNG files under ``report_dir/plots``, named after the claim.
        Returns ``{claim key: [{"name", "file"}]}`` with ``file`` relative to ``report_dir``."""
        out: dict[str, list[dict]] = {}
        for t in self.tests.values():
            for plot in t.plots:
                rel = f"plots/{re.sub(r'[^A-Za-z0-9._-]+', '_', t.key)}-{len(out.get(t.key, [])) + 1}.png"
                fileio.write_atomic(Path(report_dir) / rel, base64.b64decode(plot["png_base64"]))
                out.setdefault(t.key, []).append({"name": plot["name"], "file": rel})
        return out


def _fold(row: ClaimEntry, nodeid: str, t: ClaimEntry) -> None:
    """Fold one test of the claim into its entry: its outcome, reason (and a failure's verdict reason, a
    skip's cause), location, duration."""
    row.tests.append(nodeid)
    row.duration_s += t.duration_s
    if t.locations and t.kind not in ("drift", "placeholder", "audit"):
        row.locations.append(t.locations[0])
    outcome = t.outcome or NOT_RUN
    if t.kind == "citation":  # the verdict of a claim with no test: drifted when its quote is
        row.drifted = row.drifted or (
            outcome == FAILED and t.details.get("drift", {}).get("status") == "drift"
        )
    if t.kind == "drift" and outcome != ERROR:
        # drift is the manuscript's state, beside the measurement's verdict, never instead of it
        row.drifted = row.drifted or outcome == FAILED
        return
    if SEVERITY.index(outcome) <= SEVERITY.index(row.outcome):
        if not (row.outcome == ERROR and outcome == ERROR):  # else the registry's reason stays
            row.reason, row.hardware, row.next_step = t.reason, t.hardware, t.next_step
        row.outcome = outcome
        # a failure's reason: the verdict of the test that decided it, not pytest's words; a skip's
        # cause: that of the skip it gives the reason of
        row.verdict_reason = t.verdict_reason if t.verdict == FAILED else None
        row.cause = t.cause if outcome == SKIPPED else None


#: what an outcome is worth as a source, worst first: a quote is worth no more than what it quotes
#: (a source skipped here leaves its quote unchecked here too; a source not run leaves it as it is)
AS_A_SOURCE = (ERROR, FAILED, INCONCLUSIVE, SKIPPED, NEAR_TIE, PASSED)


def as_good_as_sources(entries: list[ClaimEntry]) -> None:
    """Give each entry that quotes another (``cites``) of ``entries`` the weaker (:data:`AS_A_SOURCE`) of
    its own outcome and its source's, through any chain of quotes, its reason naming the source's; a
    quote with no number of its own (``stated`` empty) takes its source's outcome, and says so."""
    by_key = {e.key: e for e in entries}
    rank = {o: n for n, o in enumerate(AS_A_SOURCE)}  # an outcome not in it is never weaker, nor made so
    done: set[str] = set()

    def settle(entry: ClaimEntry, seen: frozenset[str]) -> None:
        source = by_key.get(entry.cites or "")
        if entry.key in done or source is None or source.key in seen:
            return
        settle(source, seen | {entry.key})
        done.add(entry.key)
        said = f"{oc.label(source.outcome)} here" + (f": {source.reason}" if source.reason else "")
        follows = not entry.stated and entry.outcome == PASSED  # no number of its own: it holds as its source
        if follows or rank.get(source.outcome, len(rank)) < rank.get(entry.outcome, -1):
            entry.outcome, entry.cause, entry.hardware = source.outcome, source.cause, source.hardware
            entry.next_step = source.next_step
            how = "with no number of its own, and follows it: " if follows else ""
            entry.reason = f"quotes {source.key}, {how}{said}"

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


def _merge_order(t: ClaimEntry) -> tuple[bool, int]:
    """Where a test's result is merged into its claim's: the checks beside it first, then the claim's
    tests from the least severe outcome to the most."""
    return t.kind not in _BESIDE, -SEVERITY.index(t.outcome or NOT_RUN)


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
                    Problem(i.claim_id, i.field, str(i), claim_lines(reg.path).get(i.claim_id or ""))
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
        claims=claims,
    )


def _entry(r: ClaimEntry, res: ClaimEntry | None) -> ClaimEntry:
    """Finish the entry with its tests' merged result (None: no test of it ran)."""
    res = res or ClaimEntry(r.key, r.id)
    r.selected = not (r.outcome == NOT_RUN and r.reason == NOT_SELECTED)
    r.reason = r.reason or res.verdict_reason or res.details.get("caveat") or ""
    r.duration_s = round(r.duration_s, 3)
    return replace(
        r.merged(res), details=res.details, verdict_reason=r.verdict_reason, cause=r.cause, verdict=None
    )


def write_claims_json(doc: ClaimsDoc, path: Path) -> None:
    """Write ``claims.json`` atomically (:func:`claimcheck.fileio.write_atomic`)."""
    fileio.write_atomic(path, json.dumps(doc.to_json(), indent=2, ensure_ascii=False))
