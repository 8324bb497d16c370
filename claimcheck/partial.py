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
import json
from pathlib import Path

#: the reason of a registry claim no test of which ran in this run (-k/-m left them out)
NOT_SELECTED = "not selected in this run (no test of it ran)"

_RUNNER_KEYS = ("cpu", "cores", "machine", "cpu_capability", "torch", "transformers")
# settings that must match; (key, the key older reports used)
_SETTINGS_KEYS = (("size_profile", "profile"), ("runner_profile", "runner"), ("device", "device"))
_CLAIM_KEYS = ("stated", "unit", "tolerance")


def unselected(entry: dict) -> bool:
    """Whether a ``claims.json`` entry is a claim that its run did not select (and did not carry)."""
    if entry.get("carried"):
        return False
    if "selected" in entry:
        return entry["selected"] is False
    return entry.get("outcome") == "not-run" and entry.get("reason") == NOT_SELECTED


def _gpu(runner: dict):
    gpu = runner.get("gpu")
    return gpu.get("name") if isinstance(gpu, dict) else gpu


def incomparable(new: dict, old: dict) -> str | None:
    """Why rows of the report ``old`` cannot stand in the report ``new`` (None when they can)."""
    rn, ro = new.get("runner") or {}, old.get("runner") or {}
    for key in _RUNNER_KEYS:
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


def keep_unselected(doc: dict, previous_path) -> dict:
    """Return ``doc`` (a new ``claims.json`` document, changed in place) with the rows of the claims
    it did not select taken from the report at ``previous_path``, when that report can stand for
    them (see the module docstring). A run that selected every claim is returned unchanged.

    Adds ``selection`` to the document: ``partial``, ``selected`` (ids run now), ``carried`` (ids
    kept), ``carried_from`` (the earlier run's time), ``not_carried_because`` (why rows were not
    kept, when so). A kept entry gets ``carried = {"from": time, "file": path}``, keeps this
    run's drift check, and ``selected`` false. Never raises on a bad earlier report: it is then
    simply not used.
    """
    claims = [e for e in doc.get("claims") or [] if isinstance(e, dict)]
    missing = [e for e in claims if unselected(e)]
    if not missing:
        return doc
    selection = {"partial": True, "selected": [e["id"] for e in claims if not unselected(e)], "carried": []}
    doc["selection"] = selection
    path = Path(previous_path)
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(old, dict) or not isinstance(old.get("claims"), list):
            raise ValueError("not a claims report")
    except FileNotFoundError:
        selection["not_carried_because"] = f"there is no earlier report at {path}"
        return doc
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        selection["not_carried_because"] = f"the earlier report {path} cannot be read ({exc})"
        return doc
    why = incomparable(doc, old)
    if why:
        selection["not_carried_because"] = f"the earlier report {path}: {why}"
        return doc
    before = {e["id"]: e for e in old["claims"] if isinstance(e, dict) and isinstance(e.get("id"), str)}
    changed = []
    for i, e in enumerate(doc["claims"]):
        if not isinstance(e, dict) or not unselected(e):
            continue
        prev = before.get(e["id"])
        if prev is None or unselected(prev):
            continue
        if any(prev.get(k) != e.get(k) for k in _CLAIM_KEYS):
            changed.append(e["id"])
            continue
        kept = copy.deepcopy(prev)
        carried = prev.get("carried") if isinstance(prev.get("carried"), dict) else None
        kept["carried"] = carried or {"from": old.get("generated"), "file": str(path)}
        kept["selected"] = False
        drift = (e.get("details") or {}).get("drift")
        if drift is not None:  # the drift check ran in this run: its result is the fresh one
            kept.setdefault("details", {})["drift"] = drift
        doc["claims"][i] = kept
        selection["carried"].append(e["id"])
    if selection["carried"]:
        from claimcheck.outcomes import count

        selection["carried_from"] = old.get("generated")
        doc["counts"] = count(e.get("outcome") for e in doc["claims"] if isinstance(e, dict))
    if changed:
        selection["not_carried_because"] = (f"the registry entries of {', '.join(changed)} changed since the "
                                             "earlier run (stated, unit or tolerance)")
    return doc
