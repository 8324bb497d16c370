"""``claims.json`` as one typed document, :class:`ClaimsDoc` of :class:`ClaimEntry` rows: the report
writes it, every reader parses it once (:func:`read_document`). Standard library only.

A results file is untrusted input: a file that cannot be used raises :class:`ResultFileError`; a bad
field is an issue (:attr:`ClaimsDoc.issues`) naming the file, the claim's key and the field, and is
dropped (an unusable ``outcome`` reads ``invalid``). Schema 2 keys claims by ``chapter:id``; a
schema-1 file is upgraded by :func:`upgrade` (said in ``notes``); a newer schema is refused.
"""

from __future__ import annotations

import copy
import json
import math
import types
import typing
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Annotated, Any, ClassVar, TypeVar

from claimcheck.display import is_number as _is_number
from claimcheck.display import is_object, json_object
from claimcheck.fileio import InputFileError, read_input_file, too_deep
from claimcheck.keys import CHAPTER_RE, entry_key, qualify
from claimcheck.outcomes import NOT_RUN, OUTCOMES, count

#: the ``schema`` this version writes
SCHEMA = 2
#: the schemas it reads (1: one chapter, ids without a chapter)
READS = (1, 2)
#: the outcome of an entry whose ``outcome`` field is unusable (shown as broken, never as a verdict)
INVALID = "invalid"
#: the reason of a registry claim no test of which ran in this run (-k/-m left them out)
NOT_SELECTED = "not selected in this run (no test of it ran)"


class ResultFileError(Exception):
    """A results file that cannot be used at all; ``str()`` names the file and says what is wrong."""

    def __init__(self, path: str | Path, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = str(path)
        self.message = message


class _Reader:
    """Reads the fields of one JSON object, each checked: a malformed one is an issue, and None."""

    def __init__(self, raw: dict, where: str, issues: list[str], prefix: str = "") -> None:
        self.raw, self.where, self.issues, self.prefix = raw, where, issues, prefix

    def at(self, name: str, raw: dict | None = None) -> _Reader:
        """The reader of a nested object (issues name ``name.field``)."""
        return _Reader({} if raw is None else raw, self.where, self.issues, f"{self.prefix}{name}.")

    def bad(self, name: str, value: Any, want: str, quote: bool = False) -> None:
        container = is_object(value) or isinstance(value, list) or want in ("an object", "a list")
        shown = f"a {type(value).__name__}" if container and not quote else _quote(value)
        self.issues.append(f"{self.where}: field '{self.prefix}{name}' is {shown}, expected {want}; ignored")

    def checked(self, name: str, ok: Callable[[Any], bool], want: str) -> Any:
        """The field when absent or ``ok(value)``; else an issue and None."""
        v = self.raw.get(name)
        if v is None or ok(v):
            return v
        self.bad(name, v, want)
        return None

    def obj(self, name: str) -> dict:
        """The object ``name`` ({} when absent or malformed)."""
        return self.checked(name, is_object, "an object") or {}

    def items(self, name: str) -> list[_Reader]:
        """The readers of a list of objects; a malformed list or item is an issue and left out."""
        out = []
        for n, x in enumerate(self.checked(name, lambda v: isinstance(v, list), "a list") or []):
            if not is_object(x):
                self.bad(f"{name}[{n}]", x, "an object")
            else:
                out.append(self.at(f"{name}[{n}]", x))
        return out

    def typed(self, name: str, hint: Any) -> Any:
        """The field ``name`` read as its annotation ``hint`` says (:data:`_TYPED`; ``X | None`` as
        ``X``; ``list[R]`` and ``R`` of a record ``R`` by :func:`_read`, a malformed one read empty;
        ``Annotated[X, ok, want]``: an ``X`` for which ``ok`` holds, else an issue saying ``want``). A
        spec (:meth:`valid`) reads an object kept as it is when valid, ``[spec]`` the valid ones of a list."""
        if isinstance(hint, dict):  # a spec of fields, not JSON
            g = self.at(name, self.obj(name))
            return g.raw if g.valid(hint) else None
        if isinstance(hint, list):
            return [g.raw for g in self.items(name) if g.valid(hint[0])]
        if hint in _TYPED:
            return _TYPED[hint](self, name)
        args = typing.get_args(hint)
        if typing.get_origin(hint) is typing.Annotated:
            v = self.typed(name, args[0])
            if v is None or args[1](v):
                return v
            self.bad(name, v, args[2], quote=True)
            return None
        if typing.get_origin(hint) in (typing.Union, types.UnionType):
            return self.typed(name, next(a for a in args if a is not type(None)))
        if typing.get_origin(hint) is list:
            return [r for g in self.items(name) if (r := _read(args[0], g)) is not None]
        return _read(hint, self.at(name, self.obj(name)))

    def valid(self, spec: dict[str, Any]) -> bool:
        """Whether every field of ``spec`` (``{name: type}``; a nested object's ``{name: spec}``, a list
        of them ``[spec]``) the object holds passes its check (each failure an issue)."""
        before = len(self.issues)
        for name, hint in spec.items():
            if name in self.raw:
                self.typed(name, hint)
        return len(self.issues) == before


def _is_line(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 1


#: how a field of each type is read (:meth:`_Reader.typed`)
_TYPED: dict[Any, Callable[[_Reader, str], Any]] = {
    str: lambda r, n: r.checked(n, lambda v: isinstance(v, str), "a string"),
    float: lambda r, n: r.checked(
        n, lambda v: _is_number(v) and math.isfinite(v) and v >= 0, "a non-negative number"
    ),
    bool: lambda r, n: r.checked(n, lambda v: isinstance(v, bool), "true or false"),
    int: lambda r, n: r.checked(n, _is_line, "a line number (an integer from 1)"),
    dict: _Reader.obj,
    list[str]: lambda r, n: r.checked(
        n, lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"
    ),
    Any: lambda r, n: r.raw.get(n),
}

R = TypeVar("R", bound="_Record")


#: each record class's field types (:func:`typing.get_type_hints`), found once
_HINTS: dict[type, dict[str, Any]] = {}


def _read(cls: type[R], r: _Reader, **given: Any) -> R | None:
    """The ``cls`` record of the object ``r`` reads: ``given`` fields as they are, each other field (a
    trailing ``_`` dropped from its name) by its ``metadata["read"]`` (``(reader, name) -> value``) or
    its type (:meth:`_Reader.typed`); a field absent, malformed or ``_UNWRITTEN`` keeps its default.
    None when a field of ``metadata["required"]`` is absent or reads empty."""
    values = dict(given)
    hints = _HINTS.get(cls) or _HINTS.setdefault(cls, typing.get_type_hints(cls, include_extras=True))
    for f in fields(cls):  # type: ignore[arg-type]
        name, read = f.name.rstrip("_"), f.metadata.get("read")
        if f.name in given:
            continue
        absent = read is None and (name not in r.raw or f.name in cls._UNWRITTEN)
        v = None if absent else read(r, name) if callable(read) else r.typed(name, read or hints[f.name])
        if f.metadata.get("required") and not v:
            return None
        if v is not None:
            values[f.name] = v
    return cls(**values)


class _Record:
    """A record of claims.json, written in field order (``extra`` last; a trailing ``_`` dropped from a
    field's name), leaving out ``_OMIT`` fields when None, ``_OMIT_EMPTY`` ones when empty,
    ``_UNWRITTEN`` ones always; read by :func:`_read`."""

    _OMIT: ClassVar[tuple[str, ...]] = ()
    _OMIT_EMPTY: ClassVar[tuple[str, ...]] = ()
    _UNWRITTEN: ClassVar[tuple[str, ...]] = ("extra",)

    def to_json(self) -> dict:
        out = {}
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            left_out = (v is None and f.name in self._OMIT) or (not v and f.name in self._OMIT_EMPTY)
            if not left_out and f.name not in self._UNWRITTEN:
                out[f.name.rstrip("_")] = _plain(v)
        return {**out, **getattr(self, "extra", {})}


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value.to_json() if isinstance(value, _Record) else value


def _printed(r: _Reader, name: str) -> str | None:
    """A printed figure: a string, or a number as its text."""
    v = r.raw.get(name)
    return str(v) if _is_number(v) else r.typed(name, str)


def _display(r: _Reader, name: str) -> str | None:
    """Read only beside a usable measurement."""
    return r.typed(name, str) if measured_ok(r.raw.get("measured")) else None


def _details(r: _Reader, name: str) -> dict:
    """The verdict's details, each field the reports read checked: a malformed one is an issue and
    dropped (``caveat``, ``failed_conditions``, ``drift`` and its ``quotes``, ``ci`` and its ends); a
    drift quote's bad ``line`` is set to None; the verdicts of timing forms in older files' words read
    as :data:`OLD_VERDICT_WORDS` says."""
    details = r.obj(name)
    d = r.at(name, details)
    for key, hint in (("caveat", str), ("failed_conditions", list[str]), ("drift", dict), ("ci", dict)):
        if details.get(key) is not None and not d.typed(key, hint):
            del details[key]
    ci = details.get("ci")
    if ci is not None and any(
        d.at("ci", ci).checked(end, _is_number, "a number") is None for end in ("low", "high")
    ):
        del details["ci"]  # a confidence interval without both ends is none
    drift = details.get("drift")
    if drift is not None and drift.get("quotes") is not None:
        for q in d.at("drift", drift).items("quotes"):
            if q.typed("line", int) is None and q.raw.get("line") is not None:
                q.raw["line"] = None
        if not isinstance(drift["quotes"], list):
            del drift["quotes"]
    for forms in ("conditions", "exact"):
        for form in json_object(details.get(forms)).values():
            if is_object(form) and isinstance(form.get("verdict"), str):
                form["verdict"] = OLD_VERDICT_WORDS.get(form["verdict"], form["verdict"])
    return details


def relative_inside(path: str) -> bool:
    """Whether a path a results file names stays inside that file's folder (no ``..``, no drive)."""
    p = Path(path)
    return bool(path) and not p.is_absolute() and not p.drive and ".." not in p.parts and "\\" not in path


#: a path a results file names that a page reads (:meth:`_Reader.typed` reads ``Annotated``)
_INSIDE = Annotated[
    str, relative_inside, "a path inside the results file's folder (a results file is untrusted input)"
]
#: the fields of a ``locations[n]`` and a ``plots[n]`` record checked (a record with a problem is left out)
_LOCATION = {"test": str, "file": str, "line": int}
_PLOT = {"name": str, "png_base64": str, "file": _INSIDE}


def _carried(r: _Reader, name: str) -> Carried | None:
    """None unless an object (unlike :meth:`_Reader.typed`, which reads a malformed record empty)."""
    raw = r.checked(name, is_object, "an object")
    return None if raw is None else _read(Carried, r.at(name, raw))


@dataclass
class Carried(_Record):
    """A row kept from an earlier run: that run's time, its report, and ``why`` when not "not selected"."""

    from_: str | None = None
    file: str | None = None
    why: str | None = None
    _OMIT_EMPTY = ("why",)


@dataclass(frozen=True)
class Quote:
    """One number (or locator) of a drift check: its ``status``, line, and what text and registry say."""

    status: str
    line: int | None = None
    name: str = ""
    manuscript: str = ""
    registry: str = ""
    message: str = ""
    source: str = ""  # a citation's check: the key of the claim quoted (``registry`` is its figure)

    @property
    def failing(self) -> bool:
        return self.status not in ("ok", "in-words", "not-in-book")


@dataclass(frozen=True)
class Drift:
    """A claim's drift check (``details["drift"]``): the manuscript, the value measured, its quotes."""

    manuscript: str | None
    measured: str | None
    quotes: tuple[Quote, ...]


@dataclass(frozen=True)
class RecordedCI:
    """A timing claim's confidence interval (``details["ci"]``), in the claim's unit."""

    low: float
    high: float
    level: float | None = None
    rounds: float | None = None
    bar: Any = None


#: the fields of a test's entry that claims.json does not hold
_TEST_ONLY = ("verdict", "kind", "said")
#: the fields of a test's result a later test of the claim updates (:meth:`ClaimEntry.merged`)
_RESULT = (
    "stated",
    "unit",
    "tolerance",
    "formula",
    "measured",
    "measured_display",
    "verdict",
    "verdict_reason",
    "cause",
)


@dataclass
class ClaimEntry(_Record):
    """One claim's row of ``claims.json``, and one test's result of a claim: made where its verdict is
    decided (the recorder; the core's formula, drift and citation checks), kept on the test's item,
    sent to the xdist controller with each phase (:meth:`sent` / :meth:`received`), folded into the
    claim's row by :class:`claimcheck.report.ResultCollector`, written by :meth:`to_json` and read back
    by :func:`parse_entry`.

    ``measured``: a float, ``[lo, hi]``, a bool, None or a number JSON cannot hold as a string
    (``"inf"``); ``details``: the verdict's free-form record (JSON values); ``extra``: unknown keys, kept.
    A test's entry: ``stated``, ``unit``, ``tolerance`` the terms it was judged by (a portable form's on
    the portable-LM lane; None: not its own), ``verdict`` and ``verdict_reason`` its standing verdict's
    word of :mod:`claimcheck.outcomes` and reason (None: none yet), ``outcome`` "" while no phase
    decided one; ``kind``, ``said`` and ``verdict`` are not written to ``claims.json``."""

    key: str
    id: str
    chapter: str | None = None
    outcome: str = NOT_RUN
    title: str | None = None
    stated: str | None = field(default=None, metadata={"read": _printed})
    measured: Annotated[Any, measured_ok, "a number, [lo, hi] or null"] = None
    measured_display: str | None = field(default=None, metadata={"read": _display})
    unit: str | None = None
    tolerance: str | None = None
    reason: str = ""
    cause: str | None = None  # a skip's: why it cannot be checked here, a key of pages.words.CAUSES
    hardware: str = ""  # a failure's: the machine it failed on, as the recorder's message says it
    next_step: str = ""  # a failure's: what to do next, set where it was decided ("": the usual)
    needs: list[str] | None = None
    locator: str | None = None
    runner_bound: str | None = None
    details: dict = field(default_factory=dict, metadata={"read": _details})
    tests: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    section: str | None = None
    note: str = ""
    verdict_reason: str | None = None
    selected: bool | None = None
    drifted: bool = False
    locations: list[dict] = field(default_factory=list, metadata={"read": [_LOCATION]})
    registry_line: int | None = None
    # [{"name", "file"}] relative to the JSON's folder
    plots: list[dict] = field(default_factory=list, metadata={"read": [_PLOT]})
    formula: str | None = None
    cites: str | None = None  # the key of the claim of another chapter it quotes (ch15:C10), or a chapter
    carried: Carried | None = field(default=None, metadata={"read": _carried})
    extra: dict = field(default_factory=dict)
    verdict: str | None = None
    kind: str | None = None  # a test's kind: None (a claim test), drift, citation, placeholder, audit...
    said: str = ""  # a phase's own words (pytest's), for pytest-html's Verdict column
    _OMIT = ("selected", "carried")
    _OMIT_EMPTY = ("formula", "cites", "cause", "hardware", "next_step")
    _UNWRITTEN = ("extra", *_TEST_ONLY)

    @property
    def unselected(self) -> bool:
        """Whether its run did not select it (and did not carry it from an earlier run)."""
        if self.carried is not None or self.selected is not None:
            return self.selected is False and self.carried is None
        return self.outcome == NOT_RUN and self.reason == NOT_SELECTED

    @property
    def drift(self) -> Drift | None:
        """Its drift check (``details["drift"]``), or None when none ran (or it is unusable)."""
        raw = self.details.get("drift")
        if not is_object(raw):
            return None
        words = ("status", "name", "manuscript", "registry", "message", "source")
        quotes = tuple(
            Quote(
                line=q["line"] if _is_line(q.get("line")) else None, **{k: str(q.get(k) or "") for k in words}
            )
            for q in raw.get("quotes") or []
            if is_object(q)
        )
        measured, manuscript = raw.get("measured"), raw.get("manuscript")
        return Drift(str(manuscript) if manuscript else None, str(measured) if measured else None, quotes)

    @property
    def ci(self) -> RecordedCI | None:
        """Its confidence interval (``details["ci"]``), or None when it has none with numeric ends."""
        raw = json_object(self.details.get("ci"))
        if not (_is_number(raw.get("low")) and _is_number(raw.get("high"))):
            return None
        return RecordedCI(
            raw["low"], raw["high"], _number_in(raw, "level"), _number_in(raw, "rounds"), raw.get("bar")
        )

    @property
    def model(self) -> str:
        """The portable-LM lane's model the row was measured on ("" for GPT-2's rows)."""
        return str(self.extra.get("model") or json_object(self.details.get("model")).get("name") or "")

    def to_json(self) -> dict:
        """The entry as ``claims.json`` holds it (keys in the order the report writes them)."""
        out = super().to_json()
        return {"key": out.pop("key"), "chapter": out.pop("chapter"), **out}

    def sent(self) -> dict[str, Any]:
        """The entry as JSON values, its None fields left out: what an xdist worker sends the controller,
        and a test's record in ``--junitxml``."""
        return {f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None}

    @classmethod
    def received(cls, raw: dict[str, Any]) -> ClaimEntry:
        """The entry :meth:`sent` sent. Raises ValueError: ``raw`` has no ``key`` or a field this version
        does not know (a worker of another claimcheck)."""
        unknown = set(raw) - set(cls.__dataclass_fields__)
        if unknown or not isinstance(raw.get("key"), str):
            raise ValueError(f"not a claimcheck result: fields {sorted(unknown)}, key {raw.get('key')!r}")
        return cls(**raw)

    def merged(self, later: ClaimEntry) -> ClaimEntry:
        """This test's result updated by a ``later`` test's of the same claim: its result's fields
        (:data:`_RESULT`) that are not None, and its details beside these."""
        given = {name: v for name in _RESULT if (v := getattr(later, name)) is not None}
        details = {**self.details, **later.details} if later.details else self.details
        return replace(self, **given, details=details)

    @classmethod
    def from_dict(cls, raw: dict) -> ClaimEntry:
        """An entry from a dict, every field checked as in a file. Raises ValueError naming a bad field."""
        issues: list[str] = []
        entry = parse_entry(raw, "entry", issues, set())
        if entry is None or issues:
            raise ValueError("; ".join(issues))
        return entry


def _keys(r: _Reader, name: str) -> tuple:
    return tuple(r.raw)


@dataclass
class ChapterInfo(_Record):
    """One chapter of the run: ``profile`` is None when the file records none for it."""

    id: str = field(metadata={"required": True})
    title: str = ""
    language: str = ""
    registry: str | None = None
    manuscript: str = ""
    profile: dict | None = None
    written: tuple = field(default=(), metadata={"read": _keys})  # the keys the file had (written back so)
    _UNWRITTEN = ("written",)

    def __post_init__(self) -> None:
        self.title = self.title or self.id

    def to_json(self) -> dict:
        full = super().to_json()
        keys = self.written or tuple(full)
        return {k: full[k] for k in keys if k in full and (k != "profile" or self.profile is not None)}


@dataclass
class Problem(_Record):
    """A registry problem as the report records it (``line``: 1-based line of the claim's id)."""

    claim: str | None = None
    field: str | None = None
    message: str = ""
    line: int | None = None


@dataclass
class RegistryInfo(_Record):
    """A registry the run loaded: its path, ``[chapter]`` table, runners and problems."""

    path: str = ""
    chapter: dict = field(default_factory=dict)
    chapter_id: str = ""
    runners: Any = None
    issues: list[str] = field(default_factory=list)
    problems: list[Problem] | None = None
    _OMIT = ("problems",)

    @property
    def chapter_key(self) -> str:
        """Its chapter id: ``chapter_id``, else its ``[chapter] id``, else its folder's name."""
        cid = self.chapter_id or self.chapter.get("id")
        if isinstance(cid, str) and cid:
            return cid
        folder = Path(self.path or "").parent.name.lower()
        return folder if CHAPTER_RE.match(folder) else ""


@dataclass
class SectionInfo(_Record):
    id: str = field(metadata={"required": True})
    chapter: str | None = None
    title: str | None = None
    heading: str | None = None


@dataclass
class Selection(_Record):
    """What a run that selected some claims did (:func:`claimcheck.partial.keep_unselected`)."""

    partial: bool = False
    selected: list[str] = field(default_factory=list)  # keys run now
    carried: list[str] = field(default_factory=list)  # keys kept from the earlier report
    chapters: list[str] | None = None  # the chapters this run collected
    dropped: list[str] | None = None
    carried_from: str | None = None
    not_carried_because: str | None = None
    _OMIT = ("chapters", "dropped", "carried_from", "not_carried_because")


#: ``Carried.why`` of a row an interrupted run selected but did not reach
NOT_REACHED = "not reached: the run was interrupted"


@dataclass
class Interrupted(_Record):
    """How an interrupted run ended (``by``: SIGTERM, SIGINT...; "interrupted" when not said): the claims
    decided, those not reached."""

    by: str = "interrupted"
    decided: list[str] = field(default_factory=list)
    not_reached: list[str] | None = None
    _OMIT = ("not_reached",)

    def __post_init__(self) -> None:
        self.by = self.by or "interrupted"


def _number_in(raw: dict, name: str) -> float | None:
    return raw[name] if _is_number(raw.get(name)) else None


def _linkable(text: str) -> bool:
    """Whether a page may render ``text`` as a link (:func:`safe_link`), or it is empty."""
    return not text or bool(safe_link(text))


#: the fields of a ``manuscripts[n]`` record checked (:meth:`_Reader.valid`; its problems are issues,
#: and a record with any is left out)
_MANUSCRIPT = {
    "path": str,
    "registry": str,
    "chapter": str,
    "audit": {
        "unbound_numbers": [{"line": int}],
        "problems": list[str],
        "numbers": float,
        "bound": float,
        "waived": float,
    },
    "drift": {"failed": list[str]},
}


#: the fields of a ``deselected[n]`` group checked
_DESELECTED = {"tests": float, "claims": list[str], "why": str, "run": str, "kind": str}


def _deselected(r: _Reader, name: str) -> list[dict]:
    """The ``deselected`` groups, each without its malformed fields (each an issue)."""
    return [
        {k: v for k, v in g.raw.items() if k not in _DESELECTED or g.typed(k, _DESELECTED[k]) is not None}
        for g in r.items(name)
    ]


@dataclass
class ClaimsDoc(_Record):
    """A whole ``claims.json`` (``runner``, ``settings``, ``profile``, ``manuscripts``, ``deselected``:
    free-form). Not written: ``path`` it was read from, ``notes`` on how, ``issues`` of single fields."""

    schema: int = SCHEMA
    generated: str | None = None
    wall_s: float | None = None
    runner: dict = field(default_factory=dict)
    settings: dict = field(default_factory=dict)
    profile: dict = field(default_factory=dict)
    chapters: list[ChapterInfo] = field(default_factory=list)
    registries: list[RegistryInfo] = field(default_factory=list)
    sections: list[SectionInfo] = field(default_factory=list)
    counts: dict = field(default_factory=dict)  # as a file holds them: to_json works both out from claims
    drifted: list[str] = field(default_factory=list)
    claims: list[ClaimEntry] = field(default_factory=list)
    test_log: Annotated[str, _linkable, "a relative path or an http(s) URL"] | None = None
    manuscripts: list[dict] | None = field(default=None, metadata={"read": [_MANUSCRIPT]})
    deselected: list[dict] | None = field(default=None, metadata={"read": _deselected})
    selection: Selection | None = None
    interrupted: Interrupted | None = None
    extra: dict = field(default_factory=dict)
    path: str = ""
    notes: list[str] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)
    _OMIT = ("test_log", "manuscripts", "deselected", "selection", "interrupted")
    _UNWRITTEN = ("extra", "path", "notes", "issues")

    def by_key(self) -> dict[str, ClaimEntry]:
        return {e.key: e for e in self.claims}

    def to_json(self) -> dict:
        """The document as ``claims.json`` holds it; its ``counts`` and ``drifted`` worked out here from
        ``claims``, so rows carried or appended after the run (:mod:`claimcheck.partial`) are counted."""
        derived = {
            "counts": count(e.outcome for e in self.claims),
            "drifted": [e.key for e in self.claims if e.drifted],
        }
        return super().to_json() | derived

    def chapter_list(self) -> list[ChapterInfo]:
        """The chapters in order: ``chapters``, else one per registry; then those only claims name."""
        written = ("id", "title", "registry")
        out = [copy.copy(c) for c in self.chapters if c.id] or [
            ChapterInfo(cid, str(reg.chapter.get("title") or cid), registry=reg.path, written=written)
            for reg in self.registries
            if (cid := reg.chapter_key)
        ]
        seen = {c.id for c in out}
        for e in self.claims:
            if e.chapter and e.chapter not in seen:
                out.append(ChapterInfo(e.chapter, e.chapter, written=("id", "title")))
                seen.add(e.chapter)
        return out or [ChapterInfo("", "")]


def read_json(path: str | Path) -> dict:
    """The JSON object of a results file, read through :func:`claimcheck.fileio.read_input_file`. Raises
    ResultFileError: missing, not a regular file, over ``fileio.MAX_INPUT_BYTES`` (32 MiB), unreadable,
    not UTF-8, empty, not JSON (with line and column), nested more than ``fileio.MAX_JSON_DEPTH`` (100)
    deep, or not a JSON object. An integer past a float's range reads as infinity (:func:`_json_int`)."""
    p = Path(path)
    try:
        if p.exists() and not p.is_file():
            raise ResultFileError(p, "is not a regular file (a folder, device or pipe)")
        text = read_input_file(p).decode("utf-8")
    except FileNotFoundError:
        raise ResultFileError(p, "no such file") from None
    except InputFileError as exc:  # over MAX_INPUT_BYTES, or a device, FIFO or socket
        raise ResultFileError(p, exc.strerror or str(exc)) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ResultFileError(p, f"cannot be read ({exc})") from None
    if not text.strip():
        raise ResultFileError(p, "is empty (an interrupted run or upload?)")
    try:
        doc = json.loads(text, parse_int=_json_int)
    except json.JSONDecodeError as exc:
        hint = "; the file ends early: truncated?" if not text.rstrip().endswith(("}", "]")) else ""
        raise ResultFileError(
            p, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}{hint})"
        ) from None
    except RecursionError:
        raise ResultFileError(p, "not usable JSON (nested too deeply)") from None
    if too_deep(doc):  # json.loads reads deeper than the code after it can walk or write back
        raise ResultFileError(p, "not usable JSON (nested too deeply)")
    if not is_object(doc):
        what = f"top level is a JSON {type(doc).__name__}, expected an object with 'runner' and 'claims'"
        raise ResultFileError(p, f"{what} (is it a claimcheck claims.json?)")
    return doc


def _json_int(text: str) -> int | float:
    """A JSON integer; one past a float's range (over 308 digits) is a float, infinite, as a JavaScript
    reader takes it: a Python int that large cannot become a float (OverflowError), and one over 4300
    digits cannot even be read (ValueError)."""
    return int(text) if len(text.lstrip("-")) <= 308 else float(text)


def read_document(path: str | Path) -> ClaimsDoc:
    """A ``claims.json`` as a :class:`ClaimsDoc`; problems of single fields are in its ``issues``.
    Raises ResultFileError (:func:`read_json`, :func:`parse_document`)."""
    return parse_document(read_json(path), path)


#: the words of timing verdicts in files written before every verdict spoke :mod:`claimcheck.outcomes`
OLD_VERDICT_WORDS = {
    "pass": "passed",
    "fail": "failed",
    "undecided": "inconclusive",
    "machine-bound": "skipped",
}


def upgrade(raw: dict, path: str | Path) -> list[str]:
    """Upgrade an older file's raw JSON in place: a schema-1 document's entries and sections get the
    chapter of its one registry, and keys (the verdicts of timing forms in older words are read by
    :func:`_details`). Returns notes on how the file was read ([] for a current file).
    Raises ResultFileError: a ``schema`` (1 when absent) not an integer or not one of :data:`READS`."""
    schema = raw.get("schema", 1)
    reads = ", ".join(map(str, READS))
    if isinstance(schema, bool) or not isinstance(schema, int):
        raise ResultFileError(
            path, f"field 'schema' is {_quote(schema)}, expected an integer (this claimcheck reads {reads})"
        )
    if schema not in READS:
        newer = schema > SCHEMA
        raise ResultFileError(
            path,
            f"schema {schema} is {'newer than' if newer else 'not one of'} the versions this "
            f"claimcheck reads ({reads})" + ("; upgrade claimcheck to read it" if newer else ""),
        )
    if schema >= 2:
        return []
    reg = (_objects(raw, "registries") or [{}])[0]
    chapter = RegistryInfo(str(reg.get("path") or ""), json_object(reg.get("chapter"))).chapter_key
    chapter = chapter if CHAPTER_RE.match(chapter) else ""
    for e in _objects(raw, "claims"):
        if isinstance(e.get("id"), str) and e["id"]:
            e.setdefault("chapter", chapter)
            e.setdefault("key", qualify(chapter, e["id"]))
    for s in _objects(raw, "sections"):
        s.setdefault("chapter", chapter)
    return [
        f"{path}: a schema-1 report (written before claims were keyed by chapter); its claims are "
        + (f"read as chapter {chapter}" if chapter else "read by their ids alone (it names no chapter)")
    ]


def _list_in(raw: dict, name: str) -> list:
    return raw[name] if isinstance(raw.get(name), list) else []


def _objects(raw: dict, name: str) -> list[dict]:
    """The objects of the list ``name`` of ``raw``."""
    return [x for x in _list_in(raw, name) if is_object(x)]


def parse_document(raw: dict, path: str | Path) -> ClaimsDoc:
    """A results file's JSON (:func:`read_json`) as a :class:`ClaimsDoc`; ``raw`` is upgraded in place.
    Raises ResultFileError: no ``claims`` list, a ``runner`` that is not an object (or :func:`upgrade`)."""
    claims = raw.get("claims")
    if not isinstance(claims, list):
        what = "missing" if claims is None else f"a {type(claims).__name__}, expected a list"
        raise ResultFileError(path, f"field 'claims' is {what} (is it a claimcheck claims.json?)")
    runner = raw.get("runner", {})
    if not is_object(runner):
        raise ResultFileError(path, f"field 'runner' is a {type(runner).__name__}, expected an object")
    notes = upgrade(raw, path)
    issues: list[str] = []
    doc = _read(
        ClaimsDoc,
        _Reader(raw, str(path), issues),
        schema=SCHEMA,
        runner=runner,
        claims=[],
        path=str(path),
        notes=notes,
        issues=issues,
    )
    assert doc is not None  # a document has no required field
    known = {x.name for x in fields(ClaimsDoc)} - set(ClaimsDoc._UNWRITTEN)
    doc.extra = {k: v for k, v in raw.items() if k not in known}
    seen: set[str] = set()
    for n, e in enumerate(claims):
        entry = parse_entry(e, f"{path}: claims[{n}]", issues, seen, path=str(path))
        if entry is not None:
            doc.claims.append(entry)
    return doc


def parse_entry(raw: Any, where: str, issues: list[str], seen: set[str], path: str = "") -> ClaimEntry | None:
    """One ``claims[n]`` of a file as a :class:`ClaimEntry`; None (with an issue) when it has no
    usable id or repeats a key in ``seen``. Each malformed field is an issue naming the file
    (``path``), the claim's key and the field, and is dropped."""
    if not is_object(raw):
        issues.append(f"{where}: entry is a {type(raw).__name__}, expected an object; skipped")
        return None
    cid = raw.get("id")
    if not isinstance(cid, str) or not cid.strip():
        issues.append(f"{where}: field 'id' is missing or not a string ({_quote(cid)}); entry skipped")
        return None
    chapter = raw.get("chapter") if isinstance(raw.get("chapter"), str) else None
    key = entry_key(raw) or cid
    at = f"{path}: claim {key}" if path else f"claim {key}"
    if key in seen:
        issues.append(
            f"{at}: field 'id' appears twice ({where.rsplit(': ', 1)[-1]}); the first entry is kept"
        )
        return None
    seen.add(key)
    outcome = raw.get("outcome")
    usable = outcome in OUTCOMES
    if not usable:
        issues.append(f"{at}: field 'outcome' is {_quote(outcome)}, expected one of {', '.join(OUTCOMES)}")
    e = _read(
        ClaimEntry,
        _Reader(raw, at, issues),
        key=key,
        id=cid,
        chapter=chapter,
        outcome=outcome if usable else INVALID,
    )
    assert e is not None  # an entry has no required field
    if not usable:
        e.reason = f"unusable outcome {_quote(outcome)} in the results file"
    known = set(ClaimEntry.__dataclass_fields__) - set(_TEST_ONLY)
    e.extra = {k: v for k, v in raw.items() if k not in known}
    return e


def safe_link(href: str | None) -> str:
    """``href`` when a page may render it as a link, an http(s) URL or a relative path (not an absolute
    one: ``/etc/passwd``); else ""."""
    text = str(href or "").strip()
    scheme = text.split(":", 1)[0].lower() if ":" in text.split("/", 1)[0] else ""
    if scheme not in ("http", "https") and (
        scheme or text.startswith(("/", "\\")) or any(ord(ch) < 32 for ch in text)
    ):
        return ""
    return text


def measured_ok(m: Any) -> bool:
    """Whether ``m`` is a measured value as claims.json writes it (see :class:`ClaimEntry`)."""
    if isinstance(m, str):
        try:
            float(m)
        except ValueError:
            return False
        return True
    if m is None or isinstance(m, bool) or _is_number(m):
        return True
    return isinstance(m, list) and len(m) == 2 and all(_is_number(x) for x in m)


def _quote(v: Any) -> str:
    """A bad value as a problem quotes it: its repr, cut to a short excerpt."""
    text = repr(v)
    return text if len(text) <= 60 else text[:59] + "…"
