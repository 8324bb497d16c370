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
from collections.abc import Callable
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, ClassVar

from claimcheck.display import is_number as _is_number
from claimcheck.fileio import InputFileError, read_input_file, too_deep
from claimcheck.keys import CHAPTER_RE, entry_key, qualify
from claimcheck.outcomes import NOT_RUN, OUTCOMES

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


class _Record:
    """A record of claims.json, written in field order (``extra`` last), leaving out ``_OMIT`` fields
    when None, ``_OMIT_EMPTY`` ones when empty, ``_UNWRITTEN`` ones always; read by its ``read``, each
    field by the :class:`_Fields` reader of its type."""

    _OMIT: ClassVar[tuple[str, ...]] = ()
    _OMIT_EMPTY: ClassVar[tuple[str, ...]] = ()
    _UNWRITTEN: ClassVar[tuple[str, ...]] = ("extra",)

    def to_json(self) -> dict:
        out = {}
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            left_out = (v is None and f.name in self._OMIT) or (not v and f.name in self._OMIT_EMPTY)
            if not left_out and f.name not in self._UNWRITTEN:
                out[f.name] = _plain(v)
        return {**out, **getattr(self, "extra", {})}


def _given(**read: Any) -> dict[str, Any]:
    """The fields read that are not None (malformed or absent ones keep their defaults)."""
    return {name: v for name, v in read.items() if v is not None}


def _plain(value: Any) -> Any:
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value.to_json() if isinstance(value, (_Record, Carried)) else value


@dataclass
class Carried:
    """A row kept from an earlier run: that run's time, its report, and ``why`` when not "not selected"."""

    from_: str | None = None
    file: str | None = None
    why: str | None = None

    def to_json(self) -> dict:
        return {"from": self.from_, "file": self.file, **({"why": self.why} if self.why else {})}


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


@dataclass
class ClaimEntry(_Record):
    """One claim's row. ``measured``: a float, ``[lo, hi]``, a bool, None or a number JSON cannot hold as
    a string (``"inf"``); ``details``: the verdict's free-form record; ``extra``: unknown keys, kept."""

    key: str
    id: str
    chapter: str | None = None
    outcome: str = NOT_RUN
    title: str | None = None
    stated: str | None = None
    measured: Any = None
    measured_display: str | None = None
    unit: str | None = None
    tolerance: str | None = None
    reason: str = ""
    cause: str | None = None  # a skip's: why it cannot be checked here, a key of pages.words.CAUSES
    needs: list[str] | None = None
    locator: str | None = None
    runner_bound: str | None = None
    details: dict = field(default_factory=dict)
    tests: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    section: str | None = None
    note: str = ""
    verdict_reason: str | None = None
    selected: bool | None = None
    drifted: bool = False
    locations: list[dict] = field(default_factory=list)  # [{"test", "file", "line"}]
    registry_line: int | None = None
    plots: list[dict] = field(default_factory=list)  # [{"name", "file"}] relative to the JSON's folder
    formula: str | None = None
    cites: str | None = None  # the key of the claim of another chapter it quotes (ch15:C10), or a chapter
    carried: Carried | None = None
    extra: dict = field(default_factory=dict)
    _OMIT = ("selected", "carried")
    _OMIT_EMPTY = ("formula", "cites", "cause")

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
        if not isinstance(raw, dict):
            return None
        words = ("status", "name", "manuscript", "registry", "message", "source")
        quotes = tuple(
            Quote(
                line=q["line"] if _is_line(q.get("line")) else None, **{k: str(q.get(k) or "") for k in words}
            )
            for q in raw.get("quotes") or []
            if isinstance(q, dict)
        )
        measured, manuscript = raw.get("measured"), raw.get("manuscript")
        return Drift(str(manuscript) if manuscript else None, str(measured) if measured else None, quotes)

    @property
    def ci(self) -> RecordedCI | None:
        """Its confidence interval (``details["ci"]``), or None when it has none with numeric ends."""
        raw = self.details.get("ci")
        if not isinstance(raw, dict) or not (_is_number(raw.get("low")) and _is_number(raw.get("high"))):
            return None
        return RecordedCI(
            raw["low"], raw["high"], _number_in(raw, "level"), _number_in(raw, "rounds"), raw.get("bar")
        )

    @property
    def model(self) -> str:
        """The portable-LM lane's model the row was measured on ("" for GPT-2's rows)."""
        return str(self.extra.get("model") or _obj_in(self.details, "model").get("name") or "")

    def to_json(self) -> dict:
        """The entry as ``claims.json`` holds it (keys in the order the report writes them)."""
        out = super().to_json()
        return {"key": out.pop("key"), "chapter": out.pop("chapter"), **out}

    @classmethod
    def read(cls, f: _Fields, key: str, id: str, chapter: str | None) -> ClaimEntry:
        """The entry of one ``claims[n]``: ``key``, ``id``, ``chapter`` as given, each other field checked."""
        return cls(
            key,
            id,
            chapter,
            **_given(
                title=f.text("title"),
                stated=f.printed("stated"),
                unit=f.text("unit"),
                locator=f.text("locator"),
                section=f.text("section"),
                verdict_reason=f.text("verdict_reason"),
                formula=f.text("formula"),
                cites=f.text("cites"),
                tolerance=f.text("tolerance"),
                runner_bound=f.text("runner_bound"),
                measured=f.measured("measured"),
                measured_display=f.display("measured_display"),
                reason=f.text("reason"),
                cause=f.text("cause"),
                note=f.text("note"),
                needs=f.strings("needs"),
                details=f.details("details"),
                tests=f.strings("tests"),
                duration_s=f.number("duration_s"),
                selected=f.flag("selected"),
                drifted=f.flag("drifted"),
                registry_line=f.line("registry_line"),
                locations=f.locations("locations"),
                plots=f.plots("plots"),
            ),  # fmt: skip
        )

    @classmethod
    def from_dict(cls, raw: dict) -> ClaimEntry:
        """An entry from a dict, every field checked as in a file. Raises ValueError naming a bad field."""
        issues: list[str] = []
        entry = parse_entry(raw, "entry", issues, set())
        if entry is None or issues:
            raise ValueError("; ".join(issues))
        return entry


@dataclass(frozen=True)
class ClaimResult:
    """One test's result of a claim, made where its verdict is decided (the recorder; the core's formula,
    drift and citation checks), kept on the test's item and sent to the xdist controller by
    :meth:`to_json` / :meth:`from_json`; :class:`claimcheck.report.ResultCollector` folds a claim's
    results into its :class:`ClaimEntry`. ``stated``, ``unit``, ``tolerance``: the terms it was judged
    by (a portable form's on the portable-LM lane); ``measured``: as claims.json writes it (see
    :class:`ClaimEntry`); ``verdict``: a word of :mod:`claimcheck.outcomes` (None: none yet);
    ``details``: the verdict's facts (JSON values)."""

    id: str
    stated: str | None = None
    unit: str | None = None
    tolerance: str | None = None
    formula: str | None = None
    model: str | None = None
    measured: Any = None
    measured_display: str | None = None
    verdict: str | None = None
    reason: str | None = None
    details: dict[str, Any] = field(default_factory=dict)
    cause: str | None = None  # a skip's: why it cannot be checked here, a key of pages.words.CAUSES

    def to_json(self) -> dict[str, Any]:
        """The result as JSON values, its None fields left out (what an xdist worker sends)."""
        return {f.name: v for f in fields(self) if (v := getattr(self, f.name)) is not None}

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> ClaimResult:
        """The result :meth:`to_json` sent. Raises ValueError: ``raw`` has no ``id`` or a field this
        version does not know (a worker of another claimcheck)."""
        unknown = set(raw) - {f.name for f in fields(cls)}
        if unknown or not isinstance(raw.get("id"), str):
            raise ValueError(f"not a claimcheck result: fields {sorted(unknown)}, id {raw.get('id')!r}")
        return cls(**raw)

    def merged(self, later: ClaimResult) -> ClaimResult:
        """This result updated by a ``later`` test's of the same claim: its fields that are not None,
        and its details beside these."""
        given = {
            f.name: v
            for f in fields(later)
            if f.name != "details" and (v := getattr(later, f.name)) is not None
        }
        details = {**self.details, **later.details} if later.details else self.details
        return replace(self, **given, details=details)


@dataclass
class ChapterInfo(_Record):
    """One chapter of the run: ``profile`` is None when the file records none for it."""

    id: str
    title: str = ""
    language: str = ""
    registry: str | None = None
    manuscript: str = ""
    profile: dict | None = None
    written: tuple = ()  # the keys the file had (written back as they were)
    _UNWRITTEN = ("written",)

    @classmethod
    def read(cls, f: _Fields, id: str, written: tuple) -> ChapterInfo:
        """A ``chapters[n]`` of id ``id`` with the keys ``written``, each other field checked."""
        return cls(
            id,
            written=written,
            **_given(
                title=f.text("title"),
                language=f.text("language"),
                registry=f.text("registry"),
                manuscript=f.text("manuscript"),
                profile=f.given_obj("profile"),
            ),  # fmt: skip
        )

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

    @classmethod
    def read(cls, f: _Fields) -> Problem:
        """A registry's ``problems[n]``, each field checked."""
        return cls(
            **_given(
                claim=f.text("claim"), field=f.text("field"), message=f.text("message"), line=f.line("line")
            )
        )


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

    @classmethod
    def read(cls, f: _Fields, problems: list[Problem] | None) -> RegistryInfo:
        """A ``registries[n]`` with its ``problems`` (read), each other field checked."""
        return cls(
            problems=problems,
            **_given(
                path=f.text("path"),
                chapter=f.obj("chapter"),
                chapter_id=f.text("chapter_id"),
                runners=f.value("runners"),
                issues=f.strings("issues"),
            ),  # fmt: skip
        )

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
    id: str
    chapter: str | None = None
    title: str | None = None
    heading: str | None = None

    @classmethod
    def read(cls, f: _Fields, id: str) -> SectionInfo:
        """A ``sections[n]`` of id ``id``, each other field checked."""
        return cls(id, **_given(chapter=f.text("chapter"), title=f.text("title"), heading=f.text("heading")))


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

    @classmethod
    def read(cls, f: _Fields) -> Selection:
        """A document's ``selection``, each field checked."""
        return cls(
            **_given(
                partial=f.flag("partial"),
                selected=f.strings("selected"),
                carried=f.strings("carried"),
                chapters=f.strings("chapters"),
                dropped=f.strings("dropped"),
                carried_from=f.text("carried_from"),
                not_carried_because=f.text("not_carried_because"),
            )  # fmt: skip
        )


#: ``Carried.why`` of a row an interrupted run selected but did not reach
NOT_REACHED = "not reached: the run was interrupted"


@dataclass
class Interrupted(_Record):
    """How an interrupted run ended (``by``: SIGTERM, SIGINT...): the claims decided, those not reached."""

    by: str = "interrupted"
    decided: list[str] = field(default_factory=list)
    not_reached: list[str] | None = None
    _OMIT = ("not_reached",)

    @classmethod
    def read(cls, f: _Fields) -> Interrupted:
        """A document's ``interrupted``, each field checked."""
        return cls(
            **_given(by=f.text("by"), decided=f.strings("decided"), not_reached=f.strings("not_reached"))
        )


def _number_in(raw: dict, name: str) -> float | None:
    return raw[name] if _is_number(raw.get(name)) else None


def _obj_in(raw: dict, name: str) -> dict:
    return raw[name] if isinstance(raw.get(name), dict) else {}


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
    counts: dict = field(default_factory=dict)
    drifted: list[str] = field(default_factory=list)
    claims: list[ClaimEntry] = field(default_factory=list)
    test_log: str | None = None
    manuscripts: list[dict] | None = None
    deselected: list[dict] | None = None
    selection: Selection | None = None
    interrupted: Interrupted | None = None
    extra: dict = field(default_factory=dict)
    path: str = ""
    notes: list[str] = field(default_factory=list)
    issues: list[str] = field(default_factory=list)
    _OMIT = ("test_log", "manuscripts", "deselected", "selection", "interrupted")
    _UNWRITTEN = ("extra", "path", "notes", "issues")

    @classmethod
    def read(cls, f: _Fields, path: str, notes: list[str], runner: dict, issues: list[str]) -> ClaimsDoc:
        """A document's own fields, each checked (its records are read by :func:`parse_document`)."""
        return cls(
            path=path,
            notes=notes,
            runner=runner,
            issues=issues,
            **_given(
                generated=f.text("generated"),
                wall_s=f.number("wall_s"),
                settings=f.obj("settings"),
                profile=f.obj("profile"),
                counts=f.obj("counts"),
                drifted=f.strings("drifted"),
                test_log=f.text("test_log"),
            ),  # fmt: skip
        )

    def by_key(self) -> dict[str, ClaimEntry]:
        return {e.key: e for e in self.claims}

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
    deep, or not a JSON object."""
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
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        hint = "; the file ends early: truncated?" if not text.rstrip().endswith(("}", "]")) else ""
        raise ResultFileError(
            p, f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}{hint})"
        ) from None
    except RecursionError:
        raise ResultFileError(p, "not usable JSON (nested too deeply)") from None
    if too_deep(doc):  # json.loads reads deeper than the code after it can walk or write back
        raise ResultFileError(p, "not usable JSON (nested too deeply)")
    if not isinstance(doc, dict):
        what = f"top level is a JSON {type(doc).__name__}, expected an object with 'runner' and 'claims'"
        raise ResultFileError(p, f"{what} (is it a claimcheck claims.json?)")
    return doc


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
    """Upgrade an older file's raw JSON in place: the ``details`` verdicts of timing forms get the
    words of :mod:`claimcheck.outcomes`; a schema-1 document's entries and sections get the chapter of
    its one registry, and keys. Returns notes on how the file was read ([] for a current file).
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
    claims = _list_in(raw, "claims")
    for e in claims:
        details = _obj_in(e, "details") if isinstance(e, dict) else {}
        for form in (*_obj_in(details, "conditions").values(), *_obj_in(details, "exact").values()):
            if isinstance(form, dict) and isinstance(form.get("verdict"), str):
                form["verdict"] = OLD_VERDICT_WORDS.get(form["verdict"], form["verdict"])
    if schema >= 2:
        return []
    regs = [r for r in _list_in(raw, "registries") if isinstance(r, dict)]
    chapter = (
        RegistryInfo(str(regs[0].get("path") or ""), _obj_in(regs[0], "chapter")).chapter_key if regs else ""
    )
    chapter = chapter if CHAPTER_RE.match(chapter) else ""
    for e in claims:
        if isinstance(e, dict) and isinstance(e.get("id"), str) and e["id"]:
            e.setdefault("chapter", chapter)
            e.setdefault("key", qualify(chapter, e["id"]))
    for s in _list_in(raw, "sections"):
        if isinstance(s, dict):
            s.setdefault("chapter", chapter)
    return [
        f"{path}: a schema-1 report (written before claims were keyed by chapter); its claims are "
        + (f"read as chapter {chapter}" if chapter else "read by their ids alone (it names no chapter)")
    ]


def _list_in(raw: dict, name: str) -> list:
    return raw[name] if isinstance(raw.get(name), list) else []


def parse_document(raw: dict, path: str | Path) -> ClaimsDoc:
    """A results file's JSON (:func:`read_json`) as a :class:`ClaimsDoc`; ``raw`` is upgraded in place.
    Raises ResultFileError: no ``claims`` list, a ``runner`` that is not an object (or :func:`upgrade`)."""
    claims = raw.get("claims")
    if not isinstance(claims, list):
        what = "missing" if claims is None else f"a {type(claims).__name__}, expected a list"
        raise ResultFileError(path, f"field 'claims' is {what} (is it a claimcheck claims.json?)")
    runner = raw.get("runner", {})
    if not isinstance(runner, dict):
        raise ResultFileError(path, f"field 'runner' is a {type(runner).__name__}, expected an object")
    notes = upgrade(raw, path)
    issues: list[str] = []
    f = _Fields(raw, str(path), issues)
    doc = ClaimsDoc.read(f, path=str(path), notes=notes, runner=runner, issues=issues)
    if doc.test_log and not safe_link(doc.test_log):
        f.bad("test_log", doc.test_log, "a relative path or an http(s) URL")
        doc.test_log = None
    doc.chapters = [
        ChapterInfo.read(g, id=i, written=tuple(x)) for x, g in f.each("chapters") if (i := g.text("id"))
    ]
    doc.registries = [
        RegistryInfo.read(g, [Problem.read(p) for _, p in g.each("problems")] if "problems" in x else None)
        for x, g in f.each("registries")
    ]
    doc.sections = [SectionInfo.read(g, id=i) for _, g in f.each("sections") if (i := g.text("id"))]
    doc.manuscripts = (
        [m for m, g in f.each("manuscripts") if _manuscript(g)] if "manuscripts" in raw else None
    )
    doc.deselected = [_deselected(g) for _, g in f.each("deselected")] if "deselected" in raw else None
    if "selection" in raw:
        doc.selection = Selection.read(f.at("selection", f.obj("selection")))
    if "interrupted" in raw:
        doc.interrupted = Interrupted.read(f.at("interrupted", f.obj("interrupted")))
        doc.interrupted.by = doc.interrupted.by or "interrupted"
    known = {x.name for x in fields(ClaimsDoc)} - set(ClaimsDoc._UNWRITTEN)
    doc.extra = {k: v for k, v in raw.items() if k not in known}
    seen: set[str] = set()
    for n, e in enumerate(claims):
        entry = parse_entry(e, f"{path}: claims[{n}]", doc.issues, seen, path=str(path))
        if entry is not None:
            doc.claims.append(entry)
    return doc


def parse_entry(raw: Any, where: str, issues: list[str], seen: set[str], path: str = "") -> ClaimEntry | None:
    """One ``claims[n]`` of a file as a :class:`ClaimEntry`; None (with an issue) when it has no
    usable id or repeats a key in ``seen``. Each malformed field is an issue naming the file
    (``path``), the claim's key and the field, and is dropped."""
    if not isinstance(raw, dict):
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
    if outcome not in OUTCOMES:
        issues.append(f"{at}: field 'outcome' is {_quote(outcome)}, expected one of {', '.join(OUTCOMES)}")
    e = ClaimEntry.read(_Fields(raw, at, issues), key=key, id=cid, chapter=chapter)
    if outcome in OUTCOMES:
        e.outcome = outcome
    else:
        e.outcome, e.reason = INVALID, f"unusable outcome {_quote(outcome)} in the results file"
    e.duration_s = e.duration_s or 0.0
    carried = raw.get("carried")
    if isinstance(carried, dict):
        c = _Fields(carried, at, issues, "carried.")
        e.carried = Carried(c.text("from"), c.text("file"), c.text("why"))
    elif carried is not None:
        issues.append(f"{at}: field 'carried' is a {type(carried).__name__}, expected an object; ignored")
    known = set(ClaimEntry.__dataclass_fields__) | {"carried"}
    e.extra = {k: v for k, v in raw.items() if k not in known}
    return e


class _Fields:
    """Reads the fields of one JSON object, each checked: a malformed one is an issue, and None."""

    def __init__(self, raw: dict, where: str, issues: list[str], prefix: str = ""):
        self.raw, self.where, self.issues, self.prefix = raw, where, issues, prefix

    def at(self, name: str, raw: dict | None = None) -> _Fields:
        """The reader of a nested object (issues name ``name.field``)."""
        return _Fields({} if raw is None else raw, self.where, self.issues, f"{self.prefix}{name}.")

    def each(self, name: str) -> list[tuple[dict, _Fields]]:
        """``(item, its reader)`` of a list of objects."""
        return [(x, self.at(f"{name}[{n}]", x)) for n, x in self.items(name)]

    def valid(self, reads: dict[str, Callable[[str], object]]) -> bool:
        """Whether every field of ``reads`` (``{name: its reader}``) passes its check."""
        before = len(self.issues)
        for name, read in reads.items():
            read(name)
        return len(self.issues) == before

    def bad(self, name: str, value: Any, want: str, quote: bool = False) -> None:
        container = not quote and (isinstance(value, (dict, list)) or want in ("an object", "a list"))
        shown = f"a {type(value).__name__}" if container else _quote(value)
        self.issues.append(f"{self.where}: field '{self.prefix}{name}' is {shown}, expected {want}; ignored")

    def text(self, name: str) -> str | None:
        return self.checked(name, lambda v: isinstance(v, str), "a string")

    def checked(self, name: str, ok: Callable[[Any], bool], want: str, quote: bool = False) -> Any:
        """The field when absent or ``ok(value)``; else an issue and None."""
        v = self.raw.get(name)
        if v is None or ok(v):
            return v
        self.bad(name, v, want, quote)
        return None

    def number(self, name: str) -> float | None:
        return self.checked(
            name, lambda v: _is_number(v) and math.isfinite(v) and v >= 0, "a non-negative number"
        )

    def flag(self, name: str) -> bool | None:
        return self.checked(name, lambda v: isinstance(v, bool), "true or false")

    def line(self, name: str) -> int | None:
        return self.checked(name, _is_line, "a line number (an integer from 1)")

    def value(self, name: str) -> Any:
        return self.raw.get(name)

    def printed(self, name: str) -> str | None:
        v = self.raw.get(name)
        return str(v) if _is_number(v) else self.text(name)

    def measured(self, name: str) -> Any:
        return self.checked(name, measured_ok, "a number, [lo, hi] or null", quote=True)

    def display(self, name: str) -> str | None:
        """Read only beside a usable measurement."""
        return self.text(name) if measured_ok(self.raw.get("measured")) else None

    def details(self, name: str) -> dict:
        """The verdict's details, each field the reports read checked: a malformed one is an issue and
        dropped (``caveat``, ``failed_conditions``, ``drift`` and its ``quotes``, ``ci`` and its ends); a
        drift quote's bad ``line`` is set to None."""
        details = self.obj(name)
        d = self.at(name, details)
        checks = (("caveat", d.text), ("failed_conditions", d.strings), ("drift", d.obj), ("ci", d.obj))
        for key, check in checks:
            if details.get(key) is not None and not check(key):
                del details[key]
        ci = details.get("ci")
        if ci is not None and any(
            d.at("ci", ci).checked(end, _is_number, "a number") is None for end in ("low", "high")
        ):
            del details["ci"]  # a confidence interval without both ends is none
        drift = details.get("drift")
        if isinstance(drift, dict) and drift.get("quotes") is not None:
            quotes = d.at("drift", drift).each("quotes")
            if not isinstance(drift["quotes"], list):
                del drift["quotes"]
            for q, qf in quotes:
                if qf.line("line") is None and q.get("line") is not None:
                    q["line"] = None
        return details

    def locations(self, name: str) -> list:
        return [x for x, g in self.each(name) if g.valid({"test": g.text, "file": g.text, "line": g.line})]

    def plots(self, name: str) -> list:
        return [p for p, g in self.each(name) if _plot_ok(g)]

    def given_obj(self, name: str) -> dict | None:
        """None when absent, unlike :meth:`obj`."""
        return self.obj(name) if name in self.raw else None

    def obj(self, name: str) -> dict:
        return self.checked(name, lambda v: isinstance(v, dict), "an object") or {}

    def strings(self, name: str) -> list[str] | None:
        return self.checked(
            name, lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"
        )

    def items(self, name: str) -> list[tuple[int, dict]]:
        """``(n, item)`` of a list of objects; a malformed list or item is an issue and left out."""
        v = self.checked(name, lambda v: isinstance(v, list), "a list") or []
        for n, x in enumerate(v):
            if not isinstance(x, dict):
                self.bad(f"{name}[{n}]", x, "an object")
        return [(n, x) for n, x in enumerate(v) if isinstance(x, dict)]


def _manuscript(f: _Fields) -> bool:
    """Whether a ``manuscripts[n]`` record can be used (its problems are issues)."""
    before = len(f.issues)
    f.valid({"path": f.text, "registry": f.text, "chapter": f.text})
    audit, drift = f.at("audit", f.obj("audit")), f.at("drift", f.obj("drift"))
    for _, u in audit.each("unbound_numbers"):
        u.line("line")
    audit.strings("problems")
    audit.valid({name: audit.number for name in ("numbers", "bound", "waived") if name in audit.raw})
    if "failed" in drift.raw:
        drift.strings("failed")
    return len(f.issues) == before


def _deselected(f: _Fields) -> dict:
    """A ``deselected[n]`` group without its malformed fields (each an issue)."""
    reads: dict[str, Callable[[str], object]] = {
        "tests": f.number, "claims": f.strings, "why": f.text, "run": f.text, "kind": f.text,
    }  # fmt: skip
    return {k: v for k, v in f.raw.items() if k not in reads or reads[k](k) is not None}


def _plot_ok(f: _Fields) -> bool:
    ok = f.valid({"name": f.text, "png_base64": f.text, "file": f.text})
    file = f.raw.get("file")
    if isinstance(file, str) and not relative_inside(file):
        f.issues.append(
            f"{f.where}: field '{f.prefix}file' is {_quote(file)}, expected a path inside the results "
            "file's folder (a results file is untrusted input); ignored"
        )
        return False
    return ok


def relative_inside(path: str) -> bool:
    """Whether a path a results file names stays inside that file's folder (no ``..``, no drive)."""
    p = Path(path)
    return bool(path) and not p.is_absolute() and not p.drive and ".." not in p.parts and "\\" not in path


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


def _is_line(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool) and x >= 1


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
