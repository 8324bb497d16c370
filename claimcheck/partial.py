"""Runs that select some claims (``pytest claims/ -k C18``) keep the full picture.

Such a run updates the rows of the claims it ran and keeps every other row from the report it
replaces (``reports/claims.json`` of the last run), each kept row marked with the time of the run
that measured it (``carried.from``). The report is updated in place rather than written beside
the full one because the editor's page is ``reports/claims.html``: it must keep answering "which
claims hold" after a quick re-check of one claim, and a kept row says where it comes from, so
nothing passes for fresh.

A row is kept only when it can stand for this run: the earlier report was made on the same runner
(CPU, cores, GPU, torch, transformers), with the same profile, runner profile and device, and the
claim's registry entry (stated value, unit, tolerance) has not changed since. Otherwise the row
stays ``not-run`` and the report says why nothing was kept.

Standard library only. Works on :class:`claimcheck.results.ClaimsDoc` documents.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

from claimcheck.outcomes import NOT_RUN, count
from claimcheck.results import (
    NOT_SELECTED,
    Carried,
    ClaimEntry,
    ClaimsDoc,
    ResultFileError,
    Selection,
    read_document,
)

__all__ = ["NOT_SELECTED", "incomparable", "keep_unselected", "unselected"]

#: runner fields that must match; a kit adds its own (hook ``pytest_claimcheck_runner_keys``)
_RUNNER_KEYS = ("cpu", "cores", "machine", "cpu_capability")
# settings that must match; (key, the key older reports used)
_SETTINGS_KEYS = (("size_profile", "profile"), ("runner_profile", "runner"), ("device", "device"))
_CLAIM_KEYS = ("stated", "unit", "tolerance")


def unselected(entry: ClaimEntry) -> bool:
    """Whether a ``claims.json`` entry is a claim that its run did not select (and did not carry)."""
    return entry.unselected


def _gpu(runner: dict):
    gpu = runner.get("gpu")
    return gpu.get("name") if isinstance(gpu, dict) else gpu


def incomparable(new: ClaimsDoc, old: ClaimsDoc, runner_keys=()) -> str | None:
    """Why rows of the report ``old`` cannot stand in the report ``new`` (None when they can);
    ``runner_keys``: the kits' runner fields that must match too, besides the core's."""
    rn, ro = new.runner, old.runner
    for key in (*_RUNNER_KEYS, *runner_keys):
        if rn.get(key) != ro.get(key):
            return f"it was made on another runner ({key}: {ro.get(key)} here {rn.get(key)})"
    if _gpu(rn) != _gpu(ro):
        return f"it was made on another runner (GPU: {_gpu(ro)}, here {_gpu(rn)})"
    sn, so = new.settings, old.settings
    for key, older in _SETTINGS_KEYS:
        a, b = sn.get(key, sn.get(older)), so.get(key, so.get(older))
        if a != b:
            return f"it was made with another {key.replace('_', ' ')} ({b}; this run: {a})"
    return None


def _append_other_chapters(doc: ClaimsDoc, old: ClaimsDoc, chapters_now: set, current=None) -> list[str]:
    """A run of one chapter (``pytest claims/ch16``) keeps the other chapters of the earlier report:
    their chapter records, sections and claim entries are appended, each entry as not selected (so
    the carrying below decides, by the same rules, whether it stands for this run).

    ``current(registry path)``: the chapter's registry as it is now, ``{id: {"stated", "unit",
    "tolerance"}}``, or None when it is gone. With it, each entry is compared with the registry of
    today (a revised figure, e.g. a ``--claims-stated`` run, is not carried as the chapter's), a
    claim no longer declared is dropped, and so is a chapter whose registry is gone. Returns what
    was dropped, in words.
    """
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
    ids = set(now)
    doc.chapters.extend(copy.deepcopy([c for c in other if c.id in ids]))
    doc.sections.extend(copy.deepcopy([s for s in old.sections if s.chapter in ids]))
    paths = {registry_of.get(i) for i in ids}
    doc.registries.extend(copy.deepcopy([r for r in old.registries if r.path in paths]))
    for e in old.claims:
        if e.chapter not in ids:
            continue
        entries = now[e.chapter]
        stub = copy.deepcopy(e)
        stub.carried = None
        stub.selected, stub.outcome, stub.reason = False, NOT_RUN, NOT_SELECTED
        if entries is not None:
            if e.id not in entries:
                dropped.append(f"{e.key}: no longer in its chapter's registry")
                continue
            # today's stated, unit, tolerance: what a kept row must match
            for name, value in entries[e.id].items():
                setattr(stub, name, value)
        doc.claims.append(stub)
    doc.manuscripts = (doc.manuscripts or []) + copy.deepcopy(
        [m for m in old.manuscripts or [] if m.get("chapter") in ids]
    )
    _book_order(doc)
    return dropped


def _natural(text: str):
    """``claims/ch9`` before ``claims/ch15``: digits compare as numbers."""
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def _book_order(doc: ClaimsDoc) -> None:
    """Chapters in the book's order (their registries' paths, naturally sorted), whichever ran last;
    claims and sections follow their chapter's place, each chapter's own order kept."""
    doc.chapters.sort(key=lambda c: _natural(c.registry or c.id or ""))
    rank: dict[str | None, int] = {c.id: n for n, c in enumerate(doc.chapters)}
    doc.claims.sort(key=lambda e: rank.get(e.chapter, len(rank)))
    doc.sections.sort(key=lambda s: rank.get(s.chapter, len(rank)))


def keep_unselected(doc: ClaimsDoc, previous_path, current=None, runner_keys=()) -> ClaimsDoc:
    """Return ``doc`` (a new ``claims.json`` document, changed in place) with the rows of the claims
    it did not select taken from the report at ``previous_path``, when that report can stand for
    them (see the module docstring). A run that selected every claim is returned unchanged.

    Rows are matched by key (``ch15:C18``, :mod:`claimcheck.keys`), so a run of one chapter keeps
    the other chapters' rows. Sets the document's :class:`~claimcheck.results.Selection`:
    ``partial``, ``selected`` (keys run now), ``carried`` (keys kept), ``chapters`` (the chapters
    this run ran), ``carried_from`` (the earlier run's time), ``not_carried_because`` (why rows
    were not kept, when so). A kept entry gets ``carried`` (the earlier run's time and file),
    keeps this run's drift check, and ``selected`` false. ``current``: see
    :func:`_append_other_chapters`. Never raises on a bad earlier report: it is then simply not used.
    """
    path = Path(previous_path)
    old = None
    try:
        old = read_document(path)
    except ResultFileError as exc:
        old_error = exc.message
    chapters_now = {c.id for c in doc.chapters}
    dropped = []
    if old is not None:  # chapters of the earlier report that this run did not collect at all
        dropped = _append_other_chapters(doc, old, chapters_now, current)
    if not any(e.unselected for e in doc.claims) and not dropped:
        return doc
    selection = Selection(partial=True, selected=[e.key for e in doc.claims if not e.unselected])
    if any(chapters_now):
        selection.chapters = sorted(c for c in chapters_now if c)
    if dropped:
        selection.dropped = dropped
    doc.selection = selection
    if old is None:
        selection.not_carried_because = (
            f"there is no earlier report at {path}"
            if old_error == "no such file"
            else f"the earlier report {path} cannot be read ({old_error})"
        )
        return doc
    why = incomparable(doc, old, runner_keys)
    if why:
        selection.not_carried_because = f"the earlier report {path}: {why}"
        return doc
    before = old.by_key()
    changed = []
    for i, e in enumerate(doc.claims):
        if not e.unselected:
            continue
        prev = before.get(e.key)
        if prev is None or prev.unselected:
            continue
        if any(getattr(prev, k) != getattr(e, k) for k in _CLAIM_KEYS):
            changed.append(e.key)
            continue
        kept = copy.deepcopy(prev)
        kept.carried = kept.carried or Carried(old.generated, str(path))
        kept.selected = False
        drift = e.details.get("drift")
        if drift is not None:  # the drift check ran in this run: its result is the fresh one
            kept.details["drift"] = drift
        doc.claims[i] = kept
        selection.carried.append(e.key)
    if selection.carried:
        selection.carried_from = old.generated
        doc.counts = count(e.outcome for e in doc.claims)
        doc.drifted = [e.key for e in doc.claims if e.drifted]
    if changed:
        selection.not_carried_because = (
            f"the registry entries of {', '.join(changed)} changed since the "
            "earlier run (stated, unit or tolerance)"
        )
    return doc
