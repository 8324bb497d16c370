"""Runs that select some claims (``pytest claims/ -k C18``) keep the full picture.

Such a run updates the rows of the claims it ran and keeps every other row from the report it
replaces (``reports/claims.json`` of the last run), each kept row marked with the time of the run
that measured it (``carried.from``): the editor's page, ``reports/claims.html``, must keep answering
"which claims hold" after a quick re-check of one claim, and nothing passes for fresh.

A row is kept only when it can stand for this run: the earlier report was made on the same runner
(CPU, cores, GPU, and the kits' fields), with the same profile, runner profile and device, and the
claim's registry entry (stated value, unit, tolerance) has not changed since. Otherwise the row
stays ``not-run`` and the report says why nothing was kept. Standard library only.
"""

from __future__ import annotations

import copy
import re
from pathlib import Path

from claimcheck.outcomes import NOT_RUN, count
from claimcheck.results import NOT_SELECTED, Carried, ClaimsDoc, ResultFileError, Selection, read_document

__all__ = ["NOT_SELECTED", "incomparable", "keep_unselected"]

#: runner fields that must match; a kit adds its own (hook ``pytest_claimcheck_runner_keys``)
_RUNNER_KEYS = ("cpu", "cores", "machine", "cpu_capability")
# settings that must match; (key, the key older reports used)
_SETTINGS_KEYS = (("size_profile", "profile"), ("runner_profile", "runner"), ("device", "device"))
_CLAIM_KEYS = ("stated", "unit", "tolerance")


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
    """Append the chapters of ``old`` this run did not collect, their entries as not selected (the
    carrying then decides each); returns what was dropped, in words (see :func:`keep_unselected`)."""
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
    keeps this run's drift check, and ``selected`` false. Never raises on a bad earlier report: it
    is then simply not used.

    The other chapters of the earlier report (a run of ``claims/ch16``) are kept by the same rules.
    ``current(registry path)``: a chapter's registry as it is now, ``{id: {"stated", "unit",
    "tolerance"}}``, or None when it is gone; with it, each entry is compared with today's registry
    (a ``--claims-stated`` figure is not carried as the chapter's), and a claim no longer declared,
    or a chapter whose registry is gone, is dropped (``selection.dropped`` says so).
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
        if not e.unselected or (prev := before.get(e.key)) is None or prev.unselected:
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
