"""A run that selects some claims (``pytest claims/ -k C18``) keeps every other row from the report it
replaces, marked with the time of the run that measured it (``carried.from``), so the editor's page
still answers "which claims hold" and nothing passes for fresh. A row is kept only when the earlier
report was made on the same runner, profile, runner profile and device, and the claim's stated value,
unit and tolerance are unchanged; else it stays ``not-run`` and the report says why. Standard library only.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Iterable
from dataclasses import replace
from pathlib import Path

from claimcheck.fingerprint import table
from claimcheck.outcomes import NOT_RUN, OUTCOMES
from claimcheck.results import NOT_SELECTED, Carried, ClaimsDoc, ResultFileError, Selection, read_document

__all__ = ["NOT_SELECTED", "incomparable", "keep_unselected"]

#: runner fields that must match; a kit adds its own (hook ``pytest_claimcheck_runner_keys``)
_RUNNER_KEYS = ("cpu", "cores", "machine", "cpu_capability")
# settings that must match; (key, the key older reports used)
_SETTINGS_KEYS = (("size_profile", "profile"), ("runner_profile", "runner"), ("device", "device"))
_CLAIM_KEYS = ("stated", "unit", "tolerance")


def incomparable(new: ClaimsDoc, old: ClaimsDoc, runner_keys: Iterable[str] = ()) -> str | None:
    """Why rows of the report ``old`` cannot stand in the report ``new`` (None when they can);
    ``runner_keys``: the kits' runner fields that must match too, besides the core's."""
    rn, ro = new.runner, old.runner
    for key in (*_RUNNER_KEYS, *runner_keys):
        if rn.get(key) != ro.get(key):
            return f"it was made on another runner ({key}: {ro.get(key)} here {rn.get(key)})"
    if (gn := table(rn).get("GPU")) != (go := table(ro).get("GPU")):
        return f"it was made on another runner (GPU: {go}, here {gn})"
    sn, so = new.settings, old.settings
    for key, older in _SETTINGS_KEYS:
        a, b = sn.get(key, sn.get(older)), so.get(key, so.get(older))
        if a != b:
            return f"it was made with another {key.replace('_', ' ')} ({b}; this run: {a})"
    return None


def _append_other_chapters(
    doc: ClaimsDoc, old: ClaimsDoc, chapters_now: set, current: Callable[[str], dict | None] | None = None
) -> list[str]:
    """Append the chapters of ``old`` this run did not collect, their entries not selected; returns
    what was dropped, in words."""
    other = [c for c in old.chapter_list() if c.id and c.id not in chapters_now]
    if not other or not any(chapters_now):
        return []
    registry_of = {r.chapter_key: r.path for r in old.registries}
    dropped, now = [], {}
    for c in other:
        path = c.registry or registry_of.get(c.id)
        entries = current(path) if current is not None and path else None
        if current is not None and entries is None:
            dropped.append(
                f"chapter {c.id}: its registry {path or '(unknown)'} is gone; its rows were dropped"
            )
            continue
        now[c.id] = entries
    doc.chapters.extend(copy.deepcopy([c for c in other if c.id in now]))
    doc.sections.extend(copy.deepcopy([s for s in old.sections if s.chapter in now]))
    paths = {registry_of.get(i) for i in now}
    doc.registries.extend(copy.deepcopy([r for r in old.registries if r.path in paths]))
    for e in old.claims:
        if e.chapter not in now:
            continue
        entries = now[e.chapter]
        if entries is not None and e.id not in entries:
            dropped.append(f"{e.key}: no longer in its chapter's registry")
            continue
        # today's stated, unit, tolerance: what a kept row must match; nothing of the earlier
        # measurement, which a row that is not kept must not show
        stub = replace(
            copy.deepcopy(e),
            carried=None,
            selected=False,
            outcome=NOT_RUN,
            reason=NOT_SELECTED,
            measured=None,
            measured_display=None,
            details={},
            duration_s=0.0,
            verdict_reason=None,
            cause=None,
            drifted=False,
            plots=[],
        )
        doc.claims.append(replace(stub, **entries[e.id]) if entries is not None else stub)
    doc.manuscripts = (doc.manuscripts or []) + copy.deepcopy(
        [m for m in old.manuscripts or [] if m.get("chapter") in now]
    )
    _book_order(doc)
    return dropped


def _natural(text: str) -> list[int | str]:
    """``claims/ch9`` before ``claims/ch15``: digits compare as numbers."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def _book_order(doc: ClaimsDoc) -> None:
    """Chapters in the book's order (their registries' paths, naturally sorted), whichever ran last;
    claims and sections follow their chapter's place, each chapter's own order kept."""
    doc.chapters.sort(key=lambda c: _natural(c.registry or c.id or ""))
    rank: dict[str | None, int] = {c.id: n for n, c in enumerate(doc.chapters)}
    doc.claims.sort(key=lambda e: rank.get(e.chapter, len(rank)))
    doc.sections.sort(key=lambda s: rank.get(s.chapter, len(rank)))


def keep_unselected(
    doc: ClaimsDoc,
    previous_path: str | Path,
    current: Callable[[str], dict | None] | None = None,
    runner_keys: Iterable[str] = (),
) -> ClaimsDoc:
    """Return ``doc`` (changed in place) with the rows of the claims it did not select, and of the
    chapters it did not collect, taken by key from the report at ``previous_path`` where that report
    can stand for them; sets ``doc.selection`` (:class:`~claimcheck.results.Selection`). A kept entry
    gets ``carried`` and keeps this run's drift check. A bad earlier report is not used (no error), nor
    is a row of it whose outcome is unusable (:data:`~claimcheck.results.INVALID`).

    ``current(registry path)``: a chapter's registry now, ``{id: {"stated", "unit", "tolerance"}}``,
    or None when it is gone; a claim no longer declared, or a chapter whose registry is gone, is
    dropped (``selection.dropped``).
    """
    path = Path(previous_path)
    try:
        old, old_error = read_document(path), ""
    except ResultFileError as exc:
        old, old_error = None, exc.message
    chapters_now = {c.id for c in doc.chapters}
    dropped = _append_other_chapters(doc, old, chapters_now, current) if old is not None else []
    if not any(e.unselected for e in doc.claims) and not dropped:
        return doc
    selected = [e.key for e in doc.claims if not e.unselected]
    chapters = sorted(c for c in chapters_now if c) or None
    selection = doc.selection = Selection(True, selected, chapters=chapters, dropped=dropped or None)
    if old is None:
        selection.not_carried_because = (
            f"there is no earlier report at {path}"
            if old_error == "no such file"
            else f"the earlier report {path} cannot be read ({old_error})"
        )
        return doc
    if why := incomparable(doc, old, runner_keys):
        selection.not_carried_because = f"the earlier report {path}: {why}"
        return doc
    before = old.by_key()
    changed = []
    for i, e in enumerate(doc.claims):
        prev = before.get(e.key)
        if not e.unselected or prev is None or prev.unselected or prev.outcome not in OUTCOMES:
            continue
        if any(getattr(prev, k) != getattr(e, k) for k in _CLAIM_KEYS):
            changed.append(e.key)
            continue
        kept = copy.deepcopy(prev)
        kept.carried = kept.carried or Carried(old.generated, str(path))
        kept.selected = False
        if (drift := e.details.get("drift")) is not None:  # this run's drift check is the fresh one
            kept.details["drift"] = drift
        doc.claims[i] = kept
        selection.carried.append(e.key)
    if selection.carried:  # the rows' own times: a row kept twice keeps the run that measured it
        froms = {str(e.carried.from_ or "?") for e in doc.claims if e.carried is not None}
        selection.carried_from = ", ".join(sorted(froms))
    if changed:
        selection.not_carried_because = (
            f"the registry entries of {', '.join(changed)} changed since the "
            "earlier run (stated, unit or tolerance)"
        )
    return doc
