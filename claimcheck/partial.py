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

Standard library only (``claimcheck diff`` uses :data:`NOT_SELECTED` in a CI job without torch).
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from claimcheck.outcomes import NOT_RUN

#: the reason of a registry claim no test of which ran in this run (-k/-m left them out)
NOT_SELECTED = "not selected in this run (no test of it ran)"

#: runner fields that must match; a kit adds its own (hook ``pytest_claimcheck_runner_keys``)
_RUNNER_KEYS = ("cpu", "cores", "machine", "cpu_capability")
# settings that must match; (key, the key older reports used)
_SETTINGS_KEYS = (("size_profile", "profile"), ("runner_profile", "runner"), ("device", "device"))
_CLAIM_KEYS = ("stated", "unit", "tolerance")


def unselected(entry: dict) -> bool:
    """Whether a ``claims.json`` entry is a claim that its run did not select (and did not carry)."""
    if entry.get("carried"):
        return False
    if "selected" in entry:
        return entry["selected"] is False
    return entry.get("outcome") == NOT_RUN and entry.get("reason") == NOT_SELECTED


def _gpu(runner: dict):
    gpu = runner.get("gpu")
    return gpu.get("name") if isinstance(gpu, dict) else gpu


def incomparable(new: dict, old: dict, runner_keys=()) -> str | None:
    """Why rows of the report ``old`` cannot stand in the report ``new`` (None when they can);
    ``runner_keys``: the kits' runner fields that must match too, besides the core's."""
    rn, ro = new.get("runner") or {}, old.get("runner") or {}
    for key in (*_RUNNER_KEYS, *runner_keys):
        if rn.get(key) != ro.get(key):
            return f"it was made on another runner ({key}: {ro.get(key)} here {rn.get(key)})"
    if _gpu(rn) != _gpu(ro):
        return f"it was made on another runner (GPU: {_gpu(ro)}, here {_gpu(rn)})"
    sn, so = new.get("settings") or {}, old.get("settings") or {}
    for key, older in _SETTINGS_KEYS:
        a, b = sn.get(key, sn.get(older)), so.get(key, so.get(older))
        if a != b:
            return f"it was made with another {key.replace('_', ' ')} ({b}; this run: {a})"
    return None


def _append_other_chapters(doc: dict, old: dict, chapters_now: set, current=None) -> list[str]:
    """A run of one chapter (``pytest claims/ch16``) keeps the other chapters of the earlier report:
    their chapter records, sections and claim entries are appended, each entry as not selected (so
    the carrying below decides, by the same rules, whether it stands for this run).

    ``current(registry path)``: the chapter's registry as it is now, ``{id: {"stated", "unit",
    "tolerance"}}``, or None when it is gone. With it, each entry is compared with the registry of
    today (a revised figure, e.g. a ``--claims-stated`` run, is not carried as the chapter's), a
    claim no longer declared is dropped, and so is a chapter whose registry is gone. Returns what
    was dropped, in words.
    """
    from claimcheck.results import chapters_of

    other = [c for c in chapters_of(old) if c.get("id") and c.get("id") not in chapters_now]
    if not other or not any(chapters_now):
        return []
    registry_of = {
        str(r.get("chapter_id") or (r.get("chapter") or {}).get("id") or ""): r.get("path")
        for r in old.get("registries") or []
        if isinstance(r, dict)
    }
    dropped, now = [], {}
    for c in other:
        path = c.get("registry") or registry_of.get(c["id"])
        entries = current(path) if current is not None and path else None
        if current is not None and entries is None:
            dropped.append(
                f"chapter {c['id']}: its registry {path or '(unknown)'} is gone; its rows were dropped"
            )
            continue
        now[c["id"]] = entries
    ids = set(now)
    doc.setdefault("chapters", []).extend(copy.deepcopy([c for c in other if c["id"] in ids]))
    doc.setdefault("sections", []).extend(
        copy.deepcopy(
            [s for s in old.get("sections") or [] if isinstance(s, dict) and s.get("chapter") in ids]
        )
    )
    doc.setdefault("registries", []).extend(
        copy.deepcopy(
            [
                r
                for r in old.get("registries") or []
                if isinstance(r, dict) and r.get("path") in {registry_of.get(i) for i in ids}
            ]
        )
    )
    for e in old.get("claims") or []:
        if not (isinstance(e, dict) and e.get("chapter") in ids):
            continue
        entries = now[e["chapter"]]
        stub = {k: v for k, v in copy.deepcopy(e).items() if k != "carried"}
        stub.update(selected=False, outcome=NOT_RUN, reason=NOT_SELECTED)
        if entries is not None:
            if e.get("id") not in entries:
                dropped.append(f"{e.get('key') or e.get('id')}: no longer in its chapter's registry")
                continue
            stub.update(entries[e["id"]])  # today's stated, unit, tolerance: what a kept row must match
        doc["claims"].append(stub)
    doc["manuscripts"] = (doc.get("manuscripts") or []) + copy.deepcopy(
        [m for m in old.get("manuscripts") or [] if isinstance(m, dict) and m.get("chapter") in ids]
    )
    _book_order(doc)
    return dropped


def _natural(text: str):
    """``claims/ch9`` before ``claims/ch15``: digits compare as numbers."""
    import re

    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", str(text))]


def _book_order(doc: dict) -> None:
    """Chapters in the book's order (their registries' paths, naturally sorted), whichever ran last;
    claims and sections follow their chapter's place, each chapter's own order kept."""
    chapters = [c for c in doc.get("chapters") or [] if isinstance(c, dict)]
    chapters.sort(key=lambda c: _natural(c.get("registry") or c.get("id") or ""))
    doc["chapters"] = chapters
    rank = {c.get("id"): n for n, c in enumerate(chapters)}
    for name in ("claims", "sections"):
        items = doc.get(name) or []
        doc[name] = sorted(
            items, key=lambda e: rank.get(e.get("chapter"), len(rank)) if isinstance(e, dict) else len(rank)
        )


def keep_unselected(doc: dict, previous_path, current=None, runner_keys=()) -> dict:
    """Return ``doc`` (a new ``claims.json`` document, changed in place) with the rows of the claims
    it did not select taken from the report at ``previous_path``, when that report can stand for
    them (see the module docstring). A run that selected every claim is returned unchanged.

    Rows are matched by key (``ch15:C18``, :mod:`claimcheck.keys`), so a run of one chapter keeps
    the other chapters' rows. Adds ``selection`` to the document: ``partial``, ``selected`` (keys
    run now), ``carried`` (keys kept), ``chapters`` (the chapters this run ran), ``carried_from`` (the earlier run's time), ``not_carried_because`` (why rows were not
    kept, when so). A kept entry gets ``carried = {"from": time, "file": path}``, keeps this
    run's drift check, and ``selected`` false. ``current``: see :func:`_append_other_chapters`.
    Never raises on a bad earlier report: it is then simply not used.
    """
    from claimcheck.keys import entry_key
    from claimcheck.results import ResultFileError, read_document

    claims = [e for e in doc.get("claims") or [] if isinstance(e, dict)]
    path = Path(previous_path)
    old = None
    try:
        old = read_document(path)
    except ResultFileError as exc:
        old_error = exc.message
    chapters_now = {c.get("id") for c in doc.get("chapters") or [] if isinstance(c, dict)}
    dropped = []
    if old is not None:  # chapters of the earlier report that this run did not collect at all
        dropped = _append_other_chapters(doc, old, chapters_now, current)
        claims = [e for e in doc.get("claims") or [] if isinstance(e, dict)]
    missing = [e for e in claims if unselected(e)]
    if not missing and not dropped:
        return doc
    selection: dict[str, Any] = {
        "partial": True,
        "selected": [entry_key(e) for e in claims if not unselected(e)],
        "carried": [],
    }
    if any(chapters_now):
        selection["chapters"] = sorted(c for c in chapters_now if c)
    if dropped:
        selection["dropped"] = dropped
    doc["selection"] = selection
    if old is None:
        selection["not_carried_because"] = (
            f"there is no earlier report at {path}"
            if old_error == "no such file"
            else f"the earlier report {path} cannot be read ({old_error})"
        )
        return doc
    why = incomparable(doc, old, runner_keys)
    if why:
        selection["not_carried_because"] = f"the earlier report {path}: {why}"
        return doc
    before = {entry_key(e): e for e in old["claims"] if isinstance(e, dict) and entry_key(e)}
    changed = []
    for i, e in enumerate(doc["claims"]):
        if not isinstance(e, dict) or not unselected(e):
            continue
        key = entry_key(e)
        prev = before.get(key) if key is not None else None
        if key is None or prev is None or unselected(prev):
            continue
        if any(prev.get(k) != e.get(k) for k in _CLAIM_KEYS):
            changed.append(key)
            continue
        kept = copy.deepcopy(prev)
        carried = prev.get("carried") if isinstance(prev.get("carried"), dict) else None
        kept["carried"] = carried or {"from": old.get("generated"), "file": str(path)}
        kept["selected"] = False
        drift = (e.get("details") or {}).get("drift")
        if drift is not None:  # the drift check ran in this run: its result is the fresh one
            kept.setdefault("details", {})["drift"] = drift
        doc["claims"][i] = kept
        selection["carried"].append(key)
    if selection["carried"]:
        from claimcheck.outcomes import count

        selection["carried_from"] = old.get("generated")
        doc["counts"] = count(e.get("outcome") for e in doc["claims"] if isinstance(e, dict))
        doc["drifted"] = [entry_key(e) for e in doc["claims"] if isinstance(e, dict) and e.get("drifted")]
    if changed:
        selection["not_carried_because"] = (
            f"the registry entries of {', '.join(changed)} changed since the "
            "earlier run (stated, unit or tolerance)"
        )
    return doc
