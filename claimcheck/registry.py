"""The claims registry: a TOML file of claims, validated one claim at a time.

A registry file (``claims/<chapter>/claims.toml``) has a ``[chapter]`` table, optional
``[runners.<name>]`` tables naming the machines on which machine-bound figures were taken, and a
``[[claims]]`` array. Each claim has these fields:

============  ========  =====================================================================
field         required  meaning
============  ========  =====================================================================
id            yes       ``C05``, or ``C30.text`` for one checkable part of claim C30
title         yes       a short title
stated        yes       the headline value exactly as printed, as a string ("99.16", "0.10"); ""
                        where the chapter states a fact without a number (then the tolerance
                        must be a bound: ">=X", "<=X" or "range:A..B")
unit          yes       a pint unit string ("KiB/token", "token/s", "万 param", "" = none)
locator       yes       a few characters around the number in the chapter (<= 40 characters)
tolerance     yes       see :mod:`claimcheck.tolerance` ("printed", "rel:5%", ">=10", ...)
needs         yes       any of: arch, tok, weights, time, text, ext, gpu
values        no        other printed numbers the claim uses, ``{name = "0.086"}``
inputs        no        text inputs the check feeds a model, ``{name = "prompt text"}``
reconstructed no        true when ``inputs`` are not printed in the chapter (so were reconstructed)
runner        no        the runner profile on which ``stated`` was measured (machine-bound)
note          no        free text for the report
============  ========  =====================================================================

Loading never stops at the first problem: every malformed claim becomes one
:class:`RegistryIssue` naming the file, the claim id and the field, and every other claim is
still loaded.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from claimcheck.interval import _decimal
from claimcheck.tolerance import Tolerance, ToleranceError, parse_tolerance
from claimcheck.units import UnitError, parse_unit

NEEDS = {
    "arch": "the GPT-2 small architecture (a randomly initialised model has its shapes)",
    "tok": "the real GPT-2 BPE tokenizer",
    "weights": "the real pretrained GPT-2 weights",
    "time": "a timing measurement on this runner",
    "text": "only the chapter's own printed numbers",
    "ext": "a source outside the chapter",
    "gpu": "a CUDA GPU",
}
REQUIRED = ("id", "title", "stated", "unit", "locator", "tolerance", "needs")
OPTIONAL = ("values", "inputs", "reconstructed", "runner", "note")
ID_RE = re.compile(r"^[A-Z]+\d+(\.[a-z][a-z0-9_-]*)?$")
MAX_LOCATOR = 40


@dataclass(frozen=True)
class RegistryIssue:
    """One problem in a registry file: which file, which claim, which field, and what."""

    path: str
    claim_id: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = self.path
        if self.claim_id:
            where += f": claim {self.claim_id}"
        if self.field:
            where += f": field '{self.field}'"
        return f"{where}: {self.message}"


@dataclass(frozen=True)
class Claim:
    """One validated claim of the registry."""

    id: str
    title: str
    stated: str
    unit: str
    locator: str
    tolerance: Tolerance
    tolerance_text: str
    needs: tuple[str, ...]
    path: str
    values: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    inputs: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    reconstructed: bool = False
    runner: str | None = None
    note: str = ""

    @property
    def base_id(self) -> str:
        """The inventory id without a part suffix: ``C30.text`` -> ``C30``."""
        return self.id.split(".", 1)[0]

    @property
    def stated_value(self) -> float | None:
        """The stated number as a float, or None when the chapter prints no number."""
        return float(_decimal(self.stated)) if self.stated else None


@dataclass
class Registry:
    """Claims loaded from one file, with every problem found while loading."""

    path: str
    chapter: dict
    runners: dict
    claims: dict[str, Claim]
    issues: list[RegistryIssue]
    # ids that were declared but are invalid: id -> its issues (so their tests can error clearly)
    invalid: dict[str, list[RegistryIssue]]

    def issues_for(self, claim_id: str) -> list[RegistryIssue]:
        return self.invalid.get(claim_id, [])

    @property
    def all_ids(self) -> list[str]:
        """Every claim id the file declares, valid or not, in file order."""
        seen = list(self.claims)
        seen += [i for i in self.invalid if i not in self.claims]
        return seen


def load_registry(path: str | Path) -> Registry:
    """Load and validate a registry file.

    Returns a :class:`Registry` whose ``claims`` holds every valid claim and whose ``issues``
    lists every problem, each naming the file, the claim id and the field. A file that is not
    valid TOML yields a single file-level issue and no claims.
    """
    p = Path(path)
    shown = str(p)
    reg = Registry(path=shown, chapter={}, runners={}, claims={}, issues=[], invalid={})
    try:
        data = tomllib.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        reg.issues.append(RegistryIssue(shown, None, None, f"cannot read: {exc}"))
        return reg
    except tomllib.TOMLDecodeError as exc:
        reg.issues.append(RegistryIssue(shown, None, None, f"not valid TOML: {exc}"))
        return reg

    unknown_top = set(data) - {"chapter", "runners", "claims", "waivers"}
    for key in sorted(unknown_top):
        reg.issues.append(RegistryIssue(shown, None, key, f"unknown top-level table{_suggest(key, ['chapter', 'runners', 'claims', 'waivers'])}"))
    reg.chapter = dict(data.get("chapter", {}))
    reg.runners = dict(data.get("runners", {}))

    entries = data.get("claims", [])
    if not isinstance(entries, list):
        reg.issues.append(RegistryIssue(shown, None, "claims", "must be an array of tables ([[claims]])"))
        return reg
    for index, entry in enumerate(entries, start=1):
        claim, problems = _validate(entry, index, shown, reg.runners)
        cid = problems[0].claim_id if problems else claim.id
        if claim is not None and cid in reg.claims:
            problems = [RegistryIssue(shown, cid, "id", f"duplicate id (entry #{index}; first defined earlier)")]
            claim = None
        if problems:
            reg.issues.extend(problems)
            if cid and not cid.startswith("#"):
                reg.invalid.setdefault(cid, []).extend(problems)
        else:
            reg.claims[claim.id] = claim
    return reg


def _suggest(name: str, options) -> str:
    close = difflib.get_close_matches(name, list(options), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _validate(entry, index: int, path: str, runners: dict):
    """Return (Claim or None, [RegistryIssue, ...]) for one ``[[claims]]`` table."""
    if not isinstance(entry, dict):
        return None, [RegistryIssue(path, f"#{index}", None, "each claim must be a table")]
    raw_id = entry.get("id")
    cid = raw_id if isinstance(raw_id, str) and raw_id else f"#{index} (no id)"
    problems: list[RegistryIssue] = []

    def bad(fld, msg):
        problems.append(RegistryIssue(path, cid, fld, msg))

    misspelled = set()  # required fields explained by a misspelling: one error, not two
    for key in entry:
        if key not in REQUIRED and key not in OPTIONAL:
            close = difflib.get_close_matches(key, [k for k in REQUIRED + OPTIONAL if k not in entry], n=1)
            if close:
                misspelled.add(close[0])
                bad(key, f"unknown field (did you mean '{close[0]}'?)")
            else:
                bad(key, f"unknown field; known fields: {', '.join(REQUIRED + OPTIONAL)}")
    for key in REQUIRED:
        if key not in entry and key not in misspelled:
            bad(key, "missing required field")
    if isinstance(raw_id, str) and not ID_RE.match(raw_id):
        bad("id", f"bad id {raw_id!r}: expected e.g. 'C05' or 'C30.text'")

    def text_field(name, allow_empty=False):
        value = entry.get(name)
        if value is None:
            return None
        if not isinstance(value, str):
            bad(name, f"must be a string, got {type(value).__name__} {value!r}")
            return None
        if not allow_empty and not value.strip():
            bad(name, "must not be empty")
            return None
        return value

    title = text_field("title")
    stated = entry.get("stated")
    if stated is not None:
        if not isinstance(stated, str):
            bad("stated", f"write the printed number as a string (\"{stated}\") so its printed digits are kept")
            stated = None
        else:
            try:
                if stated != "":
                    _decimal(stated)
            except ValueError as exc:
                bad("stated", str(exc))
                stated = None
    unit = text_field("unit", allow_empty=True)
    if unit is not None:
        try:
            parse_unit(unit)
        except UnitError as exc:
            bad("unit", str(exc))
            unit = None
    locator = text_field("locator")
    if locator is not None and len(locator) > MAX_LOCATOR:
        bad("locator", f"{len(locator)} characters: a locator is a short quote (<= {MAX_LOCATOR}) around the number, never a sentence")
        locator = None
    tol_text = entry.get("tolerance")
    tolerance = None
    if tol_text is not None:
        try:
            tolerance = parse_tolerance(tol_text)
        except ToleranceError as exc:
            bad("tolerance", str(exc))
    needs = entry.get("needs")
    if needs is not None:
        if not isinstance(needs, list) or not all(isinstance(n, str) for n in needs) or not needs:
            bad("needs", f"must be a non-empty list of strings from {sorted(NEEDS)}")
            needs = None
        else:
            for n in needs:
                if n not in NEEDS:
                    bad("needs", f"unknown need {n!r}{_suggest(n, NEEDS)}; known: {', '.join(sorted(NEEDS))}")
    values = entry.get("values", {})
    if not isinstance(values, dict):
        bad("values", "must be a table of name = \"printed number\"")
        values = {}
    for name, v in values.items():
        if not isinstance(v, str):
            bad("values", f"{name} = {v!r}: write printed numbers as strings to keep their digits")
            continue
        try:
            _decimal(v)
        except ValueError as exc:
            bad("values", f"{name}: {exc}")
    inputs = entry.get("inputs", {})
    if not isinstance(inputs, dict) or not all(isinstance(v, str) for v in inputs.values()):
        bad("inputs", "must be a table of name = \"text\"")
        inputs = {}
    reconstructed = entry.get("reconstructed", False)
    if not isinstance(reconstructed, bool):
        bad("reconstructed", f"must be true or false, got {reconstructed!r}")
    runner = entry.get("runner")
    if runner is not None and runner not in runners:
        bad("runner", f"unknown runner profile {runner!r}{_suggest(str(runner), runners)}; define it under [runners.{runner}]")
    note = entry.get("note", "")
    if not isinstance(note, str):
        bad("note", "must be a string")

    if stated == "" and tolerance is not None and tolerance.needs_stated:
        bad("tolerance", f"{tol_text!r} compares with the stated value, but 'stated' is empty (the "
                         "chapter prints no number here): use a bound such as '>=X', '<=X' or 'range:A..B'")
    if problems:
        return None, problems
    return Claim(
        id=raw_id, title=title, stated=stated, unit=unit, locator=locator,
        tolerance=tolerance, tolerance_text=str(tol_text), needs=tuple(needs), path=path,
        values=MappingProxyType(dict(values)), inputs=MappingProxyType(dict(inputs)),
        reconstructed=bool(reconstructed), runner=runner, note=note,
    ), []
