"""Results of several runs: load ``claims.json`` files, merge them into a claim x runner matrix, diff two.

Standard library only (a CI job without torch runs it). An unreadable file is a
:class:`ResultFileError` and the other files are still used; a bad field is an issue of its run.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from claimcheck.display import excerpt, format_value
from claimcheck.display import is_number as _is_number
from claimcheck.fingerprint import DIFF_NOTES, settings_size_profile, table
from claimcheck.keys import split as split_key
from claimcheck.manuscript import drift_words
from claimcheck.outcomes import BROKEN, HELD, NOT_RUN, PASSED, VERDICT_RANK
from claimcheck.results import ClaimEntry, ClaimsDoc, ResultFileError, read_document
from claimcheck.tolerance import parse_tolerance

__all__ = ["ResultFileError", "diff", "load_results", "merge", "run_labels"]


def load_results(paths: Iterable[str | Path]) -> tuple[list[ClaimsDoc], list[ResultFileError]]:
    """(the readable runs, in the order given; the errors of the files that could not be read)."""
    runs: list[ClaimsDoc] = []
    errors: list[ResultFileError] = []
    for path in paths:
        try:
            runs.append(read_document(path))
        except ResultFileError as exc:
            errors.append(exc)
    return runs, errors


def run_labels(runs: list[ClaimsDoc]) -> list[str]:
    """Label each run by its file: ``x/claims-macos/claims.json`` -> ``claims-macos`` (CI artifacts: one
    folder each); ``gpu.json`` -> ``gpu``. Duplicates get `` (2)``, `` (3)``..., never a label another
    run has (``run``, ``run``, ``run (2)``: ``run``, ``run (3)``, ``run (2)``): the matrix keys cells by label."""
    bases = []
    for run in runs:
        p = Path(run.path)
        bases.append((p.parent.name if p.name == "claims.json" and p.parent.name else p.stem) or str(p))
    taken, labels = set(bases), list[str]()  # a later run's own label is never given to an earlier duplicate
    for base in bases:
        label, n = base, 1
        while label in (taken if n > 1 else labels):
            n += 1
            label = f"{base} ({n})"
        taken.add(label)
        labels.append(label)
    return labels


@dataclass
class MatrixRow:
    """One claim's row of the claim x runner :class:`Matrix`: its registry fields and a cell per run."""

    id: str
    title: str = ""
    stated: str = ""
    unit: str = ""
    tolerance: str = ""
    cells: list[ClaimEntry] = field(default_factory=list)  # one per run; a NOT_RUN one where it lacks the id
    differs: list[str] = field(default_factory=list)  # registry fields that differ between runs

    @property
    def split(self) -> bool:
        """True when the claim passed on one runner and failed (or errored) on another."""
        outs = {c.outcome for c in self.cells}
        return PASSED in outs and bool(outs & set(BROKEN))


@dataclass
class Matrix:
    runs: list[ClaimsDoc]
    rows: list[MatrixRow]
    errors: list[str] = field(default_factory=list)  # unreadable files and bad entries
    labels: list[str] = field(default_factory=list)  # one per run (:func:`run_labels`)

    @property
    def split_ids(self) -> list[str]:
        return [r.id for r in self.rows if r.split]


def _ordered_ids(runs: list[ClaimsDoc]) -> list[str]:
    """Union of the runs' claim keys, each file's order kept: a key new in a later file goes right
    after the key it follows there (a key new before any other goes first). Linear in the keys: a
    linked list (``following``), so that each insertion costs O(1)."""
    following: dict[str, str | None] = {}  # key -> the key after it (None: the last)
    head: str | None = None
    for run in runs:
        prev: str | None = None
        for cid in (e.key for e in run.claims):
            if cid not in following:
                if prev is None:
                    following[cid], head = head, cid
                else:
                    following[cid], following[prev] = following[prev], cid
            prev = cid
    order: list[str] = []
    node = head
    while node is not None:
        order.append(node)
        node = following[node]
    return order


def format_measured(entry: ClaimEntry) -> str:
    """The measured value of an entry as text: its ``measured_display``, else the value with unit."""
    return entry.measured_display or format_value(entry.measured, entry.unit or "")


def merge(runs: list[ClaimsDoc], errors: Iterable[ResultFileError] = ()) -> Matrix:
    """Return the claim x runner :class:`Matrix` of ``runs`` (columns in the order given): a run without
    a claim gets a ``not-run`` cell; ``errors`` (unreadable files) are kept beside the runs' issues."""
    rows: list[MatrixRow] = []
    keyed = [run.by_key() for run in runs]
    for cid in _ordered_ids(runs):
        row = MatrixRow(cid)
        seen: dict[str, set[str]] = {}
        for run, claims in zip(runs, keyed):
            e = claims.get(cid)
            if e is None:
                row.cells.append(
                    ClaimEntry(cid, cid, outcome=NOT_RUN, reason=f"not in this results file ({run.path})")
                )
                continue
            for key in ("title", "stated", "unit", "tolerance"):
                if value := str(getattr(e, key) or ""):
                    setattr(row, key, getattr(row, key) or value)
                    seen.setdefault(key, set()).add(value)
            row.cells.append(e)
        row.differs = [
            f"{k}: {' | '.join(sorted(v))}" for k, v in seen.items() if len(v) > 1 and k != "title"
        ]
        rows.append(row)
    errs = [str(e) for e in errors] + [i for run in runs for i in run.issues]
    return Matrix(runs, rows, errs, run_labels(runs))


def matrix_json(m: Matrix) -> dict[str, Any]:
    """The matrix for machines: runners (label, file, fingerprint, settings), claims (a cell per runner)."""
    runners = [
        {"label": label, **_fields(r, "path generated runner settings"), "counts": counts(r)}
        for label, r in zip(m.labels, m.runs)
    ]
    claims = [
        {
            **dict(zip(("key", "chapter", "id"), (row.id, *split_key(row.id)))),
            **_fields(row, "title stated unit tolerance split differs"),
            "cells": {label: _cell_json(c) for label, c in zip(m.labels, row.cells)},
        }
        for row in m.rows
    ]
    return {"schema": 2, "runners": runners, "errors": list(m.errors), "split": m.split_ids, "claims": claims}


def _fields(obj: object, names: str) -> dict[str, Any]:
    """``{name: obj.name}`` for each of the space-separated ``names``, in their order."""
    return {k: getattr(obj, k) for k in names.split()}


def _cell_json(c: ClaimEntry) -> dict[str, Any]:
    return {
        **_fields(c, "outcome measured measured_display reason drifted"),
        "measured_display": format_measured(c),
    }


def counts(run: ClaimsDoc) -> dict[str, int]:
    """``{outcome: n}`` of a run's claims, each outcome where it first occurs (not the file's ``counts``)."""
    return dict(Counter(c.outcome for c in run.claims))


REGRESSION, IMPROVED, CHANGED, MOVED, ADDED, REMOVED = (
    "regression improved changed moved added removed".split()
)
DRIFTED = "drifted"  # the manuscript NEW was checked against prints another figure (beside the outcome)


@dataclass
class Change:
    id: str
    kind: str  # one of the words above
    old: str | None  # old outcome (None: absent from OLD)
    new: str | None
    text: str


@dataclass
class Diff:
    old: ClaimsDoc
    new: ClaimsDoc
    changes: list[Change] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)
    runner_notes: list[str] = field(default_factory=list)
    unselected: dict[str, list[str]] = field(default_factory=dict)  # "OLD"/"NEW" -> ids it did not select
    carried: list[str] = field(default_factory=list)  # ids NEW kept from an earlier run (a -k/-m run)

    @property
    def regressions(self) -> list[Change]:
        return [c for c in self.changes if c.kind == REGRESSION]

    def of_kind(self, kind: str) -> list[Change]:
        return [c for c in self.changes if c.kind == kind]


def outcome_change_kind(old: str, new: str) -> str:
    """``regression`` when a verdict that held turns into failed or error; ``improved`` when a verdict
    turns into a better one; ``changed`` otherwise (e.g. passed -> skipped, passed -> near-tie)."""
    if old in HELD and new in BROKEN:
        return REGRESSION
    if old in VERDICT_RANK and new in VERDICT_RANK and VERDICT_RANK[new] < VERDICT_RANK[old]:
        return IMPROVED
    return CHANGED


def _bounds(m: Any) -> tuple[float, float] | None:
    if isinstance(m, list):
        return float(m[0]), float(m[1])
    if _is_number(m) and math.isfinite(m):
        return float(m), float(m)
    return None


def value_move(old: ClaimEntry, new: ClaimEntry, bound_move: float = 0.25) -> str | None:
    """A one-line description when the measured value moved beyond the claim's tolerance applied to
    the move (:meth:`claimcheck.tolerance.Tolerance.move_limit`; a ``>=``/``<=`` bar: ``bound_move``
    x |old|), else None. An interval ``[lo, hi]`` moves by its larger end's move. Raises ValueError
    (ToleranceError) when the new entry's tolerance is unusable."""
    mo, mn = old.measured, new.measured
    if mo is None or mn is None:
        return None
    unit_o, unit_n = old.unit or "", new.unit or ""
    if unit_o != unit_n:
        return f"unit changed from {unit_o!r} to {unit_n!r}; values not compared"
    bo, bn = _bounds(mo), _bounds(mn)
    if bo is None or bn is None:
        return None if mo == mn else f"{format_measured(old)} -> {format_measured(new)}"
    delta = max(abs(bn[0] - bo[0]), abs(bn[1] - bo[1]))
    ref = (bo[0] + bo[1]) / 2
    limit, rule = parse_tolerance(new.tolerance or old.tolerance or "printed").move_limit(
        ref, stated=new.stated or old.stated, bound_move=bound_move
    )
    if delta <= limit:
        return None
    rel = f" ({delta / abs(ref):.1%})" if ref else ""
    return f"{format_measured(old)} -> {format_measured(new)}: moved by {delta:.5g}{rel}, {rule}"


def diff(old: ClaimsDoc, new: ClaimsDoc, bound_move: float = 0.25) -> Diff:
    """The :class:`Diff` from ``old`` to ``new``, per claim: ``added`` / ``removed`` (a removed claim that
    held is a ``regression``), outcome changes (:func:`outcome_change_kind`), drift, and ``moved``
    values (:func:`value_move`); a claim one run did not select is listed in ``unselected`` instead."""
    d = Diff(old, new, issues=list(old.issues) + list(new.issues))
    for key in DIFF_NOTES:
        a, b = old.runner.get(key), new.runner.get(key)
        if a != b:
            d.runner_notes.append(
                f"runner {key}: {_runner_field_text(old, key)} -> {_runner_field_text(new, key)}"
            )
    pa, pb = settings_size_profile(old.settings), settings_size_profile(new.settings)
    if pa != pb:
        d.runner_notes.append(f"profile: {pa} -> {pb}")
    olds, news = old.by_key(), new.by_key()
    for cid in _ordered_ids([old, new]):
        eo, en = olds.get(cid), news.get(cid)
        if eo is None:
            assert en is not None  # each id is in one of the runs at least
            d.changes.append(Change(cid, ADDED, None, en.outcome, f"only in NEW ({en.outcome})"))
            continue
        if en is None:  # a gate must not turn green because a claim that held stopped being checked
            kind = REGRESSION if eo.outcome in HELD else REMOVED
            d.changes.append(
                Change(cid, kind, eo.outcome, None, f"only in OLD ({eo.outcome}); missing from NEW")
            )
            continue
        if en.unselected or eo.unselected:  # a -k/-m run: nothing to compare, said once for all
            d.unselected.setdefault("NEW" if en.unselected else "OLD", []).append(cid)
            continue
        if en.carried is not None:
            d.carried.append(cid)
        o, n = eo.outcome, en.outcome
        if o != n:
            kind = outcome_change_kind(o, n)
            why = f": {_first_line(en.reason)}" if n != PASSED and en.reason else ""
            d.changes.append(Change(cid, kind, o, n, f"{o} -> {n}{why}"))
        if en.drifted != eo.drifted:
            if en.drifted:
                said = "; ".join(drift_words(en)) or "its drift check failed"
                kind, text = DRIFTED, f"the manuscript drifts: {said}"
            else:  # drift resolved is a change, not drift
                kind, text = CHANGED, "drift resolved: the manuscript agrees with the registry again"
            d.changes.append(Change(cid, kind, o, n, text))
        try:
            moved = value_move(eo, en, bound_move)
        except ValueError as exc:  # ToleranceError is a ValueError
            d.issues.append(f"{new.path}: claim {cid}: field 'tolerance': {exc}; values not compared")
            moved = None
        if moved:
            d.changes.append(Change(cid, MOVED, o, n, moved))
    return d


def _first_line(text: object) -> str:
    line = (str(text or "").strip().splitlines() or [""])[0]
    return line if len(line) <= 160 else line[:157] + "..."


def _runner_field_text(run: ClaimsDoc, key: str) -> str:
    """A runner field in a note: a GPU by its name; cut to 120 characters (:func:`excerpt`)."""
    return excerpt(table(run.runner).get("GPU") if key == "gpu" else run.runner.get(key), 120, quote=False)
