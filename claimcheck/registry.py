"""The claims registry (``claims/<chapter>/claims.toml``), validated one claim at a time.

Its tables: ``[chapter]``, ``[units]``, ``[runners.<name>]``, ``[[sections]]``, ``[defaults]``, the
claims (a ``[claims]`` table keyed by id, or a ``[[claims]]`` array) and ``[[waivers]]``. The fields
are :mod:`claimcheck.fields`; the rules between fields :data:`CLAIM_RULES`. Each problem is one
:class:`RegistryIssue` naming the file, the claim id and the field; every other claim is still loaded.
"""

from __future__ import annotations

import bisect
import codecs
import dataclasses
import difflib
import functools
import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from claimcheck import fileio
from claimcheck.display import excerpt, suggest
from claimcheck.fields import (
    CHAPTER_FIELDS,
    CLAIM_FIELDS,
    ID_RE,
    SECTION_FIELDS,
    SHARED_FIELDS,
    TABLE,
    WAIVER_FIELDS,
    Context,
    Field,
    Kind,
    check_table,
)
from claimcheck.formula import FormulaError, evaluate_claim, parse, split_reference
from claimcheck.interval import parse_decimal
from claimcheck.keys import CHAPTER_RE, qualify
from claimcheck.printed import compile_locator, same_printed
from claimcheck.tolerance import Tolerance
from claimcheck.units import UnitError, declare, declared_elsewhere

ARRAY = Kind("array of tables", lambda v: isinstance(v, list))
#: each top-level table: its shape, and what a file that gives another is told ({got}: the type given)
TOP_LEVEL: dict[str, tuple[Kind, str]] = {
    "chapter": (TABLE, "must be a table ([chapter]), got {got}"),
    "units": (TABLE, 'must be a table ([units]: name = "definition")'),
    "runners": (TABLE, "must be a table ([runners]), got {got}"),
    "sections": (ARRAY, "must be an array of tables ([[sections]])"),
    "defaults": (TABLE, "must be a table ([defaults]: field = value, for every claim)"),
    "claims": (
        Kind("table or array of tables", lambda v: TABLE.accepts(v) or ARRAY.accepts(v)),
        "must be a table keyed by claim id ([claims]) or an array of tables ([[claims]])",
    ),
    "waivers": (ARRAY, "must be an array of tables ([[waivers]])"),
}
#: the tables read a statement at a time when broken (each line of ``[claims]`` is a claim)
BY_LINE = ("claims", "units", "defaults")
ONE_FORM = (
    "a registry writes its claims one way: a [claims] table keyed by id (`C05 = { ... }` lines, "
    '[claims.C05] tables), or [[claims]] tables with `id = "C05"`, not both'
)
ONE_CLAIMS_TABLE = (
    "TOML allows one [claims] table: move this line into the first one, or write the claim as a "
    "[claims.ID] table"
)
#: what a clash of claims tables means, by words of tomllib's message
CLASH_HINTS = (("array of tables", ONE_FORM), ("'claims' is defined twice", ONE_CLAIMS_TABLE))


@dataclass(frozen=True)
class RegistryIssue:
    """One problem in a registry file: which file, which claim, which field, and what."""

    path: str
    claim_id: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        claim = f": claim {excerpt(self.claim_id, 200, quote=False)}" if self.claim_id else ""
        fld = f": field '{self.field}'" if self.field else ""
        return f"{self.path}{claim}{fld}: {self.message}"


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
    values: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    inputs: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    quotes: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    reconstructed: bool = False
    portable: bool = False
    runner: str | None = None
    section: str | None = None
    note: str = ""
    draft: bool = False
    expected_fail: str = ""  # why the figure is known not to hold ("" = it is expected to hold)
    formula: str | None = None  # the chapter's own arithmetic (claimcheck.formula)
    conditions: tuple[str, ...] = ()
    precision: str = "printed"
    chapter: str = ""  # the registry's chapter id (the first half of the claim's key)
    cites: str | None = None  # the key of the claim of another chapter it quotes (ch15:C10), or a chapter

    @property
    def key(self) -> str:
        """The claim's key across the book: ``ch15:C18`` (:mod:`claimcheck.keys`)."""
        return qualify(self.chapter, self.id)

    @property
    def stated_value(self) -> float | None:
        """The stated number as a float, or None when the chapter prints no number."""
        return float(parse_decimal(self.stated)) if self.stated else None

    def printed(self, name: str) -> str:
        """The registry's printed number ``name``: ``"stated"`` or a key of ``values``."""
        return self.stated if name == "stated" else self.values[name]

    def bindings(self) -> list[tuple[str, str]]:
        """Every (value name, locator) pair: ``("stated", locator)`` first, then ``quotes``."""
        return [("stated", self.locator)] + [(n, loc) for n, locs in self.quotes.items() for loc in locs]


@dataclass(frozen=True)
class Waiver:
    """Numbers of the manuscript that are not claims, with the reason (``[[waivers]]``)."""

    index: int
    locator: str
    reason: str
    numbers: tuple[str, ...] | None = None
    until: str | None = None

    @property
    def label(self) -> str:
        return f"waivers[{self.index}]"


@dataclass(frozen=True)
class Section:
    """One section of the chapter (``[[sections]]``): its key, our title for it, a heading locator."""

    id: str
    title: str
    heading: str = ""


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
    waivers: list[Waiver] = field(default_factory=list)
    sections: list[Section] = field(default_factory=list)  # in the chapter's order
    # whether the file has a [chapter] table (None: nothing could be read from it): a pytest run
    # takes a claims.toml without one for another project's file, not a registry (plugin.items)
    chapter_table: bool | None = None

    @property
    def chapter_id(self) -> str:
        """The chapter's id: ``[chapter] id`` when valid, else the registry's folder name (``ch15``)."""
        cid = self.chapter.get("id")
        if isinstance(cid, str) and CHAPTER_RE.match(cid):
            return cid
        folder = Path(os.path.realpath(self.path)).parent.name.lower()  # a link loop: never raises
        return folder if CHAPTER_RE.match(folder) else "chapter"

    def key(self, claim_id: str) -> str:
        """``claim_id`` qualified with this registry's chapter: ``C18`` -> ``ch15:C18``."""
        return qualify(self.chapter_id, claim_id)

    def add(self, claim_id: str | None, fld: str | None, message: str) -> RegistryIssue:
        self.issues.append(RegistryIssue(self.path, claim_id, fld, message))
        return self.issues[-1]

    def invalidate(self, claim_id: str, problems: list[RegistryIssue]) -> None:
        """``problems`` become issues of the file and of ``claim_id``, whose claim is dropped."""
        self.issues.extend(problems)
        self.invalid.setdefault(claim_id, []).extend(problems)
        self.claims.pop(claim_id, None)

    def issues_for(self, claim_id: str) -> list[RegistryIssue]:
        return self.invalid.get(claim_id, [])

    def unknown_id_message(
        self, claim_id: str, untested: Collection[str] | None = None, scope: str = " in this run"
    ) -> str:
        """Why a test names ``claim_id`` that this registry lacks, with the likeliest fix (``untested``:
        the ids no test covers, when known, to point a renamed claim at the id that lost its test)."""
        orphans = [i for i in self.all_ids if untested is not None and i in untested]
        close = difflib.get_close_matches(claim_id, orphans or self.all_ids, n=1)
        if close:
            hint = f"did you mean {close[0]}?"
        elif len(orphans) == 1:
            hint = f"the only registry id without a test{scope} is {orphans[0]}: was {claim_id} renamed?"
        elif orphans:
            more = f" and {len(orphans) - 8} more" if len(orphans) > 8 else ""
            hint = f"registry ids without a test{scope}: {', '.join(orphans[:8])}{more}"
        else:
            hint = "every registry id has a test: add the claim under [claims]"
        return f"{self.path}: no claim with id {claim_id!r} ({hint})"

    @property
    def all_ids(self) -> list[str]:
        """Every claim id the file declares, valid or not, in file order."""
        return [*self.claims, *(i for i in self.invalid if i not in self.claims)]


def load_registry(path: str | Path) -> Registry:
    """A :class:`Registry` of every valid claim of the file and every problem; never raises. A bad byte
    or TOML error invalidates only the claim whose table or ``[claims]`` line holds it."""
    reg = Registry(path=str(Path(path)), chapter={}, runners={}, claims={}, issues=[], invalid={})
    try:
        raw = fileio.read_input_file(Path(path))
    except OSError as exc:  # missing, a folder, a device or FIFO, over the size limit
        reg.add(None, None, f"cannot read: {exc.strerror or exc}")
        return reg
    wide = _wide_encoding(raw)
    if wide:  # every line would be "not UTF-8", and not one of its tables read
        reg.add(
            None, None, f"the file is {wide}, not UTF-8: save the registry as UTF-8 (nothing of it was read)"
        )
        return reg
    text, bad_bytes = _decode(raw.removeprefix(b"\xef\xbb\xbf"))  # a BOM (Windows editors) is not an error
    data, broken = fileio.read_toml(text, by_line=BY_LINE)
    _report_broken(broken, reg)
    located = _undecodable(text, bad_bytes, reg)  # claim id -> issues of the bad bytes inside its table
    for key in sorted(set(data) - set(TOP_LEVEL)):
        reg.add(None, key, f"unknown top-level table{suggest(key, TOP_LEVEL)}")
    reg.chapter = dict(_part(data, "chapter", reg) or {})
    runners = _part(data, "runners", reg) or {}
    reg.chapter_table = ("chapter" in data) if data else None  # empty or unreadable: its own issue

    chapter = check_table(reg.chapter, CHAPTER_FIELDS, Context(), _bad(reg, "chapter"), strict=False)
    _check_chapter_keys(reg.chapter, reg)
    reg.runners = _load_runners(runners, reg)
    own_units = _load_units(_part(data, "units", reg) or {}, reg)  # before the claims, which use them
    reg.waivers = [
        Waiver(i, **w) for i, w in _array(_part(data, "waivers", reg) or [], "waivers", WAIVER_FIELDS, reg)
    ]
    reg.sections = _load_sections(_part(data, "sections", reg) or [], reg)
    ctx = Context(reg.runners, [sec.id for sec in reg.sections], chapter.get("id_pattern"))
    claims = _part(data, "claims", reg)
    if claims is None:
        return reg
    entries = _claim_entries(claims, reg)
    if not entries and not broken and not reg.invalid:
        why = "declares no claims (no [claims] table): a registry without claims checks nothing"
        reg.add(None, "claims", why if text.strip() else "the file is empty")
    _load_claims(entries, _part(data, "defaults", reg) or {}, reg, ctx, located)
    _check_formula_references(reg)
    _check_units_declared_here(reg, own_units)
    for cid, problems in located.items():  # a claim already invalid for another reason (or unparsed)
        reg.invalidate(cid, problems)
    return reg


def _part(data: dict, name: str, reg: Registry) -> Any:
    """The top-level table ``name`` of the file (an empty one when absent), or None: it has another
    shape (:data:`TOP_LEVEL`), an issue of ``name``."""
    kind, why = TOP_LEVEL[name]
    value = data.get(name, [] if kind is ARRAY else {})
    if kind.accepts(value):
        return value
    reg.add(None, name, why.format(got=type(value).__name__))
    return None


def _report_broken(broken: list[fileio.Broken], reg: Registry) -> None:
    """One issue per broken table or line, naming its claim (then invalid) or else ``table.key``."""
    for b in broken:
        t = b.table
        cid = _claim_id_of(t)
        fld = None
        if t is not None and t.statement and cid is None:
            key = t.key_at(t.first)
            fld = f"{t.header}.{key}" if key else t.header
        rest = "" if t is None else "; the file's other tables were read"
        if t is not None and t.statement:
            rest = "; the table's other lines and the file's other tables were read"
        if b.clash and t is not None and t.header == "claims":
            rest += next((f" ({why})" for words, why in CLASH_HINTS if words in b.message), "")
        issue = reg.add(cid, fld, f"not valid TOML: {b.message}{rest}")
        if cid and not cid.startswith("#"):
            reg.invalid.setdefault(cid, []).append(issue)


def _check_chapter_keys(chapter: dict, reg: Registry) -> None:
    """A ``[chapter]`` key of the registry's own is kept unchecked, but one close to a field the table
    does not set (``id_patern``, ``Manuscript``) is a misspelling that would silently do nothing."""
    known = [f.name for f in CHAPTER_FIELDS]
    unset = [name for name in known if name not in chapter]
    for key in (k for k in chapter if k not in known and len(k) <= 60):
        hint = suggest(key.lower(), unset)
        if hint:
            reg.add(None, f"chapter.{key}", f"unknown field{hint}")


def _load_runners(runners: dict, reg: Registry) -> dict:
    """``[runners]``: name -> table; a runner without a description is kept, and said once."""
    out = {}
    for name, runner in runners.items():
        if not TABLE.accepts(runner):
            reg.add(None, f"runners.{name}", "must be a table with a description")
            continue
        out[name] = runner
        description = runner.get("description")
        if not (isinstance(description, str) and description.strip()):
            reg.add(None, f"runners.{name}.description", "must be a non-empty string: the machine, in words")
    return out


def _load_defaults(table: dict, reg: Registry, ctx: Context) -> tuple[dict, dict[str, RegistryIssue]]:
    """The good values of ``[defaults]`` (as written), and field -> its issue for each bad one."""
    shared = {f.name for f in SHARED_FIELDS}
    bad: dict[str, RegistryIssue] = {}

    def note(fld: str, message: str) -> None:
        issue = reg.add(None, f"defaults.{fld}", message)
        # the claims that take a bad default (or miss the one misspelt here) are invalid by this issue
        unset = [n for n in shared if n not in table]
        meant = fld if fld in shared else next(iter(difflib.get_close_matches(fld, unset, n=1)), None)
        if meant is not None:
            bad.setdefault(meant, issue)

    own = [f.name for f in CLAIM_FIELDS if f.name not in shared]
    for key in [k for k in table if k in own]:
        note(
            key, f"cannot be a default: each claim has its own {key} (defaults: {', '.join(sorted(shared))})"
        )
    rows = [dataclasses.replace(f, required=False) for f in SHARED_FIELDS]
    check_table({k: v for k, v in table.items() if k not in own}, rows, ctx, note)
    return {k: v for k, v in table.items() if k in shared and k not in bad}, bad


def _claim_entries(raw: list | dict, reg: Registry) -> list:
    """The file's ``claims`` (a ``[[claims]]`` list or a table keyed by id) as one list of tables with
    their ``id``; a bad keyed claim is an issue and left out."""
    if isinstance(raw, list):  # a [claims.C05] table after [[claims]] tables is read into the one above it
        for entry in filter(TABLE.accepts, raw):
            for cid in [k for k, v in entry.items() if TABLE.accepts(v) and ID_RE.match(k)]:
                why = f"[claims.{cid}] after [[claims]] tables reads as a field of the claim above it: "
                reg.invalidate(cid, [RegistryIssue(reg.path, cid, None, why + ONE_FORM)])
                del entry[cid]
        return raw
    out = []
    names = {f.name for f in CLAIM_FIELDS}
    for cid, entry in raw.items():
        if not TABLE.accepts(entry):
            why = f"must be a table: {cid} = {{ title = ..., stated = ... }}, or a [claims.{cid}] table"
            reg.invalidate(cid, [RegistryIssue(reg.path, cid, None, why)])
            continue
        if entry and all(map(TABLE.accepts, entry.values())) and not names & set(entry):  # [claims.C30.text]
            for part in entry:  # claims -> C30 -> text
                why = f'the id has a part: quote it, [claims."{cid}.{part}"] or "{cid}.{part}" = {{ ... }}'
                reg.invalidate(f"{cid}.{part}", [RegistryIssue(reg.path, f"{cid}.{part}", "id", why)])
            continue
        if entry.get("id", cid) != cid:
            why = f"the key {cid!r} is the claim's id, and id = {entry['id']!r} says another: drop 'id'"
            reg.invalidate(cid, [RegistryIssue(reg.path, cid, "id", why)])
            continue
        out.append({**entry, "id": cid})
    return out


#: the shared fields that only a claim with a ``formula`` reads: ``[defaults]`` gives them to those alone
FOR_A_FORMULA = frozenset({"precision"})


def _load_claims(entries: list, defaults_table: dict, reg: Registry, ctx: Context, located: dict) -> None:
    """Each claim (with the ``[defaults]``) into ``reg.claims`` when valid, else its problems into ``reg``."""
    defaults, bad = _load_defaults(defaults_table, reg, ctx)
    for index, entry in enumerate(entries, start=1):
        if not TABLE.accepts(entry):
            reg.add(f"#{index}", None, "each claim must be a table")
            continue
        # a default about a formula (precision) is for the claims with one; the rest do not take it
        takes = {
            f for f in {*defaults, *bad} if f not in entry and ("formula" in entry or f not in FOR_A_FORMULA)
        }
        inherited = [issue for f, issue in bad.items() if f in takes]
        entry = {**{f: v for f, v in defaults.items() if f in takes}, **entry}
        cid = entry["id"] if isinstance(entry.get("id"), str) and entry["id"] else f"#{index} (no id)"
        good, problems = _validate(entry, cid, reg.path, ctx)
        if inherited:  # one issue of [defaults], not one per claim; the claim is invalid
            problems = [p for p in problems if p.field not in bad]
        elif not problems and cid in reg.claims:
            why = f"duplicate id (entry #{index}; first defined earlier)"
            problems = [RegistryIssue(reg.path, cid, "id", why)]
        elif not problems and cid in located:
            problems = located.pop(cid)
        elif not problems:
            claim = Claim(**good, tolerance_text=entry["tolerance"], path=reg.path, chapter=reg.chapter_id)
            reg.claims[cid] = claim
            continue
        reg.issues.extend(problems)
        if not cid.startswith("#"):
            reg.invalid.setdefault(cid, []).extend(problems + inherited)


#: the byte-order marks of the encodings an editor may save a registry in besides UTF-8 (longest first)
_WIDE_BOMS = (
    (codecs.BOM_UTF32_LE, "UTF-32 (little-endian)"),
    (codecs.BOM_UTF32_BE, "UTF-32 (big-endian)"),
    (codecs.BOM_UTF16_LE, "UTF-16 (little-endian)"),
    (codecs.BOM_UTF16_BE, "UTF-16 (big-endian)"),
)


def _wide_encoding(raw: bytes) -> str | None:
    """``"UTF-16 (little-endian) text"`` when ``raw`` starts with a UTF-16 or UTF-32 byte-order mark, or
    when a quarter of its first 256 bytes are NUL (such text without one); else None."""
    found = next((name for bom, name in _WIDE_BOMS if raw.startswith(bom)), None)
    if found:
        return f"{found} text"
    head = raw[:256]
    return "UTF-16 or UTF-32 text" if head and head.count(0) * 4 >= len(head) else None


def _decode(raw: bytes) -> tuple[str, dict[int, list[int]]]:
    """UTF-8 text with U+FFFD for each bad byte sequence and ``\\n`` line ends (a Windows editor's
    ``\\r\\n`` too), and ``{1-based line: the first byte of each bad sequence}``."""
    lines: list[str] = []
    bad: dict[int, list[int]] = {}
    for number, line in enumerate(raw.split(b"\n"), start=1):
        _BAD_BYTES.clear()  # one pass per line, however many bad bytes (a retry after each was quadratic)
        lines.append(line.decode("utf-8", _RECORD_BAD_BYTES).removesuffix("\r"))
        if _BAD_BYTES:
            bad[number] = list(_BAD_BYTES)
    return "\n".join(lines), bad


_BAD_BYTES: list[int] = []  # the first byte of each bad sequence of the line being decoded
_RECORD_BAD_BYTES = "claimcheck-record-bad-bytes"


def _record_bad_bytes(exc: UnicodeError) -> tuple[str, int]:
    """A decoding error handler: U+FFFD for the bad sequence (as ``"replace"``), its first byte noted."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _BAD_BYTES.append(exc.object[exc.start])
    return "\ufffd", exc.end


codecs.register_error(_RECORD_BAD_BYTES, _record_bad_bytes)


def _claim_id_of(part: fileio.TomlTable | None) -> str | None:
    """The claim id of a part of :func:`_claim_parts` (None: no claim's; ``# at line N (no id)``)."""
    if part is None or part.header != "claims":
        return None
    if part.array:
        cid = part.value("id")
        return cid if isinstance(cid, str) and cid else f"# at line {part.first} (no id)"
    keys = part.keys
    if len(keys) > 2 and keys[2] not in {f.name for f in CLAIM_FIELDS}:  # [claims.C30.text]
        return f"{keys[1]}.{keys[2]}"
    if len(keys) > 1:
        return keys[1]
    return (part.key_at(part.first) if part.statement else None) or f"# at line {part.first} (no id)"


def _field_at(part: fileio.TomlTable, line: int) -> str | None:
    """The field that line ``line`` of ``part`` sets (of a ``C02 = {...}`` line: the one holding U+FFFD)."""
    if not part.statement:
        return part.key_at(line)
    parsed = fileio.loads_or_none(part.text)
    entry = next(iter(parsed.values()), None) if parsed else None
    if not isinstance(entry, dict):
        return None
    return next((k for k, v in entry.items() if "\ufffd" in repr(v)), None)


def _claim_parts(text: str) -> list[fileio.TomlTable]:
    """The file's tables in file order, each ``[claims]`` table keyed by id followed by its statements
    (its ``C05 = {...}`` lines): together they hold every line, the last part starting at or above a
    line holds it."""
    parts = []
    for t in fileio.toml_tables(text):
        parts.append(t)
        if t.header == "claims" and not t.array and len(t.keys) == 1:
            parts += t.statements()
    return parts


def claim_lines(path: str | os.PathLike[str]) -> dict[str, int]:
    """``{claim id: 1-based line}`` of a registry file, whatever its claims' form: the line of a
    ``[[claims]]`` table's ``id = ...``, of a ``[claims.C05]`` header, of a ``C02 = {...}`` line
    ({} when unreadable). Read once per version of the file (every item of a run asks)."""
    try:
        st = Path(path).stat()
    except OSError:
        return {}
    return dict(_claim_lines(str(path), st.st_mtime_ns, st.st_size))


@functools.lru_cache(maxsize=64)
def _claim_lines(path: str, mtime_ns: int, size: int) -> dict[str, int]:
    try:
        text = fileio.read_input_file(Path(path)).decode("utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return {}
    out: dict[str, int] = {}
    for part in _claim_parts(text):
        cid = _claim_id_of(part)
        ids = (n for n in range(part.first, part.last + 1) if part.key_at(n) == "id")
        line = next(ids, None) if part.array else part.first  # an array's: the line of its id
        if line and cid and not cid.startswith("#"):
            out.setdefault(cid, line)
    return out


def _undecodable(text: str, by_line: dict[int, list[int]], reg: Registry) -> dict:
    """One issue per line of bytes that are not UTF-8: claim id -> its issues, else an issue of the file."""
    parts = _claim_parts(text) if by_line else []
    located: dict[str, list[RegistryIssue]] = {}
    for line, found in by_line.items():
        table = parts[bisect.bisect_right(parts, line, key=lambda t: t.first) - 1]
        cid = _claim_id_of(table)
        fld = _field_at(table, line)
        if cid is None and fld and table.header:
            fld = f"{table.header}.{fld}"
        shown = " ".join(f"0x{b:02x}" for b in found[:4]) + (" ..." if len(found) > 4 else "")
        what = (
            f"byte 0x{found[0]:02x} is" if len(found) == 1 else f"{len(found)} byte sequences ({shown}) are"
        )
        why = f"line {line}: {what} not UTF-8; save the registry as UTF-8 (the rest of the file was read)"
        issue = RegistryIssue(reg.path, cid, fld, why)
        (reg.issues if cid is None else located.setdefault(cid, [])).append(issue)
    return located


def _check_formula_references(reg: Registry) -> None:
    """Invalidate each claim whose formula names an unknown value or cannot be evaluated."""
    for cid in list(reg.claims):
        claim = reg.claims[cid]
        problems = [
            RegistryIssue(reg.path, cid, fld, f"{text!r}: {why}")
            for fld, text, name in _formula_names(claim)
            if (why := _unknown_name(reg, claim, name))
        ]
        # evaluated once here (another chapter's values: by the book): one that cannot be computed is a problem
        if not problems and claim.formula and not other_chapters(claim):
            try:
                evaluate_claim(claim, reg)
            except FormulaError as exc:
                problems.append(RegistryIssue(reg.path, cid, "formula", f"cannot be evaluated: {exc}"))
        if problems:
            reg.invalidate(cid, problems)


def _formula_names(claim: Claim) -> list[tuple[str, str, str]]:
    """``(field, text, name)`` of each value name that a claim's formula and conditions read."""
    texts = [("formula", claim.formula)] if claim.formula else []
    texts += [("conditions", t) for t in claim.conditions]
    return [(f, t, name) for f, t in texts for name in parse(t, condition=f == "conditions").names]


def other_chapters(claim: Claim) -> list[str]:
    """The names of other chapters' values (``ch15:C10.stated``) that a claim's formula and conditions read."""
    return [name for _, _, name in _formula_names(claim) if ":" in name]


def _unknown_name(reg: Registry, claim: Claim, name: str) -> str | None:
    if ":" in name:  # another chapter's value: the book resolves it (claimcheck.book.citation_issues)
        return None
    _, ref, value = split_reference(name)
    if not ref:
        known = ["stated", *claim.values]
        if value in known:
            return None
        if value in reg.claims:
            return f"{value!r} is a claim, not a value: write {value}.stated for its printed value (or {value}.<name>)"
        return f"no value {value!r} in this claim{suggest(value, known)} (known: {', '.join(known)})"
    other = reg.claims.get(ref)
    if other is None and ref in reg.invalid:  # declared, but broken: its own issue says why
        return (
            f"{name!r} names claim {ref!r}, which is declared but has a registry error of its own "
            "(see that claim's issue)"
        )
    if other is None:
        return f"{name!r} names claim {ref!r}, which the registry does not declare{suggest(ref, reg.claims)}"
    known = ["stated", *other.values]
    return None if value in known else f"claim {ref} has no value {value!r}{suggest(value, known)}"


def _validate(entry: dict, cid: str, path: str, ctx: Context) -> tuple[dict[str, Any], list[RegistryIssue]]:
    """The good fields of a claim's table and its problems: its fields' checks, then :data:`CLAIM_RULES`."""
    problems: list[RegistryIssue] = []

    def bad(fld: str, msg: str) -> None:
        problems.append(RegistryIssue(path, cid, fld, msg))

    good = check_table(entry, CLAIM_FIELDS, ctx, bad)
    for rule in CLAIM_RULES:
        rule(good, entry, bad)
    return good, problems


# --- rules between fields: each gets the good fields' values, the raw table and `bad` ---------------
def _locator_binds_stated(good: dict, entry: dict, bad: Callable[[str, str], None]) -> None:
    """``locator`` stands for ``stated``: when it prints several numbers, one of them is ``stated``."""
    if "locator" in good and good.get("stated") and (why := _unbound(good["locator"], good["stated"])):
        bad("locator", why)


def _quotes_bind_their_values(good: dict, entry: dict, bad: Callable[[str, str], None]) -> None:
    """Each name of ``quotes`` is ``stated`` or a key of ``values``, and each of its locators prints
    that number."""
    # the raw table, not the checked one: a name with one bad locator still has its others checked
    quotes = entry["quotes"] if isinstance(entry.get("quotes"), dict) else {}
    values = entry["values"] if isinstance(entry.get("values"), dict) else {}
    names = ["stated", *values]
    for name, locators in quotes.items():
        if name not in names:
            bad("quotes", f"{name!r} is neither 'stated' nor a key of 'values'{suggest(name, names)}")
            continue
        printed = good.get("stated") if name == "stated" else values.get(name)
        if not isinstance(printed, str) or not printed:
            bad("quotes", f"{name}: the claim has no printed number {name!r} to bind")
            continue
        locators = [locators] if isinstance(locators, str) else locators if isinstance(locators, list) else []
        for loc in [x for x in locators if isinstance(x, str)]:
            try:
                numbers = compile_locator(loc).numbers
            except ValueError:
                continue  # the field's own check said why
            if not numbers:
                bad("quotes", f"{name}: locator {loc!r} prints no number to bind to {name} = {printed!r}")
            elif why := _unbound(loc, printed):
                bad("quotes", f"{name}: {why}")


def _empty_stated_needs_a_bound(good: dict, entry: dict, bad: Callable[[str, str], None]) -> None:
    """A claim that prints no number (``stated = ""``) can only be held to a bound."""
    tolerance = good.get("tolerance")
    if good.get("stated") == "" and tolerance is not None and tolerance.needs_stated:
        bad(
            "tolerance",
            f"{entry['tolerance']!r} compares with the stated value, but 'stated' is empty (the "
            "chapter prints no number here): use a bound such as '>=X', '<=X' or 'range:A..B'",
        )


def _formula_fields_need_a_formula(good: dict, entry: dict, bad: Callable[[str, str], None]) -> None:
    """``conditions`` and ``precision`` are about a formula: without one they would do nothing."""
    if "formula" in entry:
        return
    if good.get("conditions"):
        bad("conditions", "conditions need a 'formula' (the value judged against 'stated')")
    if "precision" in entry and "precision" in good:
        bad("precision", "only a claim with a 'formula' reads its numbers with a precision")


def _an_exact_formula_reads_exact_numbers(good: dict, entry: dict, bad: Callable[[str, str], None]) -> None:
    """At printed precision a formula's value is an interval (every value its rounded inputs
    allow), which ``exact`` never accepts: the claim could only fail, so it is a registry problem."""
    if good.get("formula") and str(good.get("tolerance")) == "exact" and good.get("precision") != "exact":
        bad(
            "tolerance",
            "'exact' never holds for a formula that reads its numbers at printed precision (its value "
            'is an interval): set precision = "exact" (counts, list prices) or tolerance = "printed"',
        )


CLAIM_RULES = (
    _locator_binds_stated,
    _quotes_bind_their_values,
    _empty_stated_needs_a_bound,
    _formula_fields_need_a_formula,
    _an_exact_formula_reads_exact_numbers,
)
"""The rules between a claim's fields, applied in this order after every field's own check."""


def _unbound(locator: str, printed: str) -> str | None:
    """Why ``locator`` cannot tell which of its numbers is ``printed`` (None when it can)."""
    nums = compile_locator(locator).numbers
    if printed and len(nums) > 1 and not any(same_printed(printed, n) for n in nums):
        return (
            f"locator {locator!r} prints {', '.join(n.text for n in nums)}, none of which is "
            f"{printed!r}: the locator cannot tell which number it binds (quote the right place, or a "
            "shorter one with a single number)"
        )
    return None


# --- arrays of tables: [[waivers]], [[sections]] ------------------------------------------------------
def _array(entries: list, name: str, fields: Sequence[Field], reg: Registry) -> list[tuple[int, dict]]:
    """``(index, values)`` of each good table of the array ``name``; each problem an issue of ``name[i]``."""
    out = []
    for index, entry in enumerate(entries, start=1):
        label = f"{name}[{index}]"
        if not TABLE.accepts(entry):
            reg.add(None, label, f"each {name[:-1]} must be a table")
            continue
        before = len(reg.issues)
        good = check_table(entry, fields, Context(), _bad(reg, label))
        if len(reg.issues) == before:
            out.append((index, good))
    return out


def _bad(reg: Registry, prefix: str) -> Callable[[str, str], RegistryIssue]:
    """``bad(field, message)`` for :func:`check_table`: an issue of ``reg`` on ``prefix.field``."""
    return lambda fld, msg: reg.add(None, f"{prefix}.{fld}", msg)


def _load_units(table: dict, reg: Registry) -> set[str]:
    """Declare the ``[units]`` table's units and return their names; each problem an issue."""
    for name, definition in table.items():
        try:
            declare(name, definition)
        except UnitError as exc:
            reg.add(None, f"units.{name}", str(exc))
    return set(table)


def _check_units_declared_here(reg: Registry, own: set[str]) -> None:
    """Invalidate each claim whose unit only another chapter's ``[units]`` declares."""
    for cid in list(reg.claims):
        foreign = declared_elsewhere(reg.claims[cid].unit, own)
        if foreign:
            why = f"uses {', '.join(map(repr, foreign))}, which this registry does not declare: "
            why += "add it to its [units] table as the chapter that declares it does"
            reg.invalidate(cid, [RegistryIssue(reg.path, cid, "unit", why)])


def _load_sections(entries: list, reg: Registry) -> list[Section]:
    """The ``[[sections]]`` array's good sections; each problem an issue of ``sections[i].field``."""
    out: list[Section] = []
    for index, s in _array(entries, "sections", SECTION_FIELDS, reg):
        if any(sec.id == s["id"] for sec in out):
            reg.add(None, f"sections[{index}].id", f"duplicate section id {s['id']!r}")
        else:
            out.append(Section(**s))
    return out
