"""The registry's fields as tables: each field of ``claims.toml`` declared once (in the data file
``fields.toml``: its kind, default, example and help), with its check (here).

The :class:`Field` rows drive the registry's validation (:func:`check_table`), the field reference
(:mod:`claimcheck.docs`) and ``claimcheck init``'s comments (:func:`comment_lines`).
"""

from __future__ import annotations

import difflib
import json
import re
import textwrap
import tomllib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from importlib import resources
from string import Template
from types import MappingProxyType
from typing import Any

from claimcheck.display import excerpt, suggest
from claimcheck.formula import PRECISIONS, FormulaError, parse
from claimcheck.interval import parse_decimal
from claimcheck.keys import CHAPTER_RE
from claimcheck.printed import compile_locator, parse_number
from claimcheck.tolerance import Tolerance, parse_tolerance
from claimcheck.units import parse_unit

ID_RE = re.compile(r"^[A-Z]+\d+(\.[a-z][a-z0-9_-]*)?$")
#: the longest locator, unit, text of any field and message quoted per field (characters)
MAX_LOCATOR, MAX_UNIT, MAX_TEXT, MAX_MESSAGE = 40, 40, 4000, 400
_OWN_LENGTH = {"formula", "locator"}  # fields whose check says their own, shorter, limit first
#: a printed number of the registry has at most MAX_DIGITS digits and a magnitude within
#: 1e-MAX_EXPONENT .. 1eMAX_EXPONENT (or is 0)
MAX_DIGITS, MAX_EXPONENT = 30, 30


class FieldError(ValueError):
    """A field's value is wrong; ``messages`` says each problem (a table of values may have several)."""

    def __init__(self, *messages: str) -> None:
        super().__init__("; ".join(messages))
        self.messages = messages


@dataclass(frozen=True)
class Context:
    """What a check may look at besides the value: the file's runners, sections and id pattern."""

    runners: Mapping[str, object] = field(default_factory=dict)
    sections: Sequence[str] = ()
    id_pattern: re.Pattern | None = None


@dataclass(frozen=True)
class Kind:
    """A TOML shape (``words``, as the reference says it) and the test that a value has it."""

    words: str
    accepts: Callable[[object], bool]


STRING = Kind("string", lambda v: isinstance(v, str))
BOOL = Kind("true or false", lambda v: isinstance(v, bool))
STRINGS = Kind("list of strings", lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v))
STRING_OR_LIST = Kind("string or list of strings", lambda v: isinstance(v, str) or STRINGS.accepts(v))
TABLE = Kind("table", lambda v: isinstance(v, dict))
KINDS = {kind.words: kind for kind in (STRING, BOOL, STRINGS, STRING_OR_LIST, TABLE)}


@dataclass(frozen=True)
class Field:
    """One field of a registry table: its name, kind, default, help and check (see the module doc)."""

    name: str
    help: str
    check: Callable[[Any, Context], Any] | None = None  # value of the kind -> the Claim's value (None: as is)
    kind: Kind = STRING
    required: bool = False
    default: object = None
    example: str = ""  # TOML text of a typical value
    empty_ok: bool = False  # a string kind: "" is a value (``unit = ""``: no unit)
    why: str = ""  # appended to a wrong-kind message ({value}: the value given): how to write it
    shared: bool = False  # a claim field that ``[defaults]`` may give every claim (what claims share)

    def wrong_kind(self, value: object) -> str:
        such = f" such as {self.example}" if self.example and self.kind is not BOOL else ""
        article = "" if self.kind is BOOL else "an " if self.kind.words[0] in "aeiou" else "a "
        got = repr(value) if self.kind is BOOL else f"{type(value).__name__} {value!r}"
        why = f": {self.why.format(value=value)}" if self.why else ""
        return f"must be {article}{self.kind.words}{such}, got {got}{why}"

    @property
    def shown_default(self) -> str:
        """The default as TOML text for the reference ("" for a required field or no value)."""
        return "" if self.required or self.default is None else toml_value(self.default)


def toml_value(value: object) -> str:
    """TOML text of a string, a bool, a list or tuple, or a mapping (an inline table, ``{}`` empty)."""
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + " }" if value else "{}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(map(toml_value, value)) + "]"
    return json.dumps(value, ensure_ascii=False)  # JSON's strings and booleans are TOML's


def check_table(
    entry: dict, fields: Sequence[Field], ctx: Context, bad: Callable[[str, str], object], strict: bool = True
) -> dict[str, Any]:
    """``name -> checked value`` of the table's good fields (an absent optional one: its default).

    Every problem goes to ``bad(field name, message)``: an unknown field (when ``strict``; a misspelt
    required one is one problem), a missing required field, a wrong kind, a value its check rejects.
    """
    by_name = {f.name: f for f in fields}
    misspelled = set()

    def report(name: str, message: str) -> None:  # a hostile value is quoted by a cut excerpt, never whole
        name = name if len(name) <= 60 else name[:60] + "…"
        bad(name, message if len(message) <= MAX_MESSAGE else message[:MAX_MESSAGE] + "… (cut)")

    for key in [k for k in entry if k not in by_name] if strict else []:
        unset = [n for n in by_name if n not in entry]
        close = difflib.get_close_matches(key, unset, n=1) if len(key) <= 60 else []
        misspelled.update(close)
        hint = f" (did you mean '{close[0]}'?)" if close else f"; known fields: {', '.join(by_name)}"
        report(key, f"unknown field{hint}")
    out: dict[str, Any] = {}
    for f in fields:
        if f.name not in entry:
            if f.required and f.name not in misspelled:
                report(f.name, "missing required field")
            elif not f.required:
                out[f.name] = f.default
            continue
        value = entry[f.name]
        if not f.kind.accepts(value):
            report(f.name, f.wrong_kind(value))
            continue
        if isinstance(value, str) and len(value) > MAX_TEXT and f.name not in _OWN_LENGTH:
            report(f.name, f"{len(value):,} characters: a registry field holds at most {MAX_TEXT:,}")
            continue
        if f.kind is STRING and not f.empty_ok and not value.strip():
            why = f": {f.why.format(value=value)}" if f.why else ""
            report(f.name, f"must be a non-empty string, got {value!r}{why}")
            continue
        try:
            checked = f.check(value, ctx) if f.check else None
            out[f.name] = value if checked is None else checked
        except FieldError as exc:
            for message in exc.messages:
                report(f.name, message)
        except ValueError as exc:  # the parsers' own errors say what is wrong
            report(f.name, str(exc))
    return out


# --- checks: a value of the field's kind -> the value kept (None: the value as written) ----------------
def _claim_id(value: str, ctx: Context) -> None:
    if not ID_RE.match(value):
        raise FieldError(f"bad id {excerpt(value)}: expected e.g. 'C05' or 'C30.text'")
    if ctx.id_pattern is not None and not ctx.id_pattern.fullmatch(value.split(".", 1)[0]):
        raise FieldError(
            f"id {value!r} does not match the registry's id pattern "
            f"'{ctx.id_pattern.pattern}' ([chapter] id_pattern): a renamed or mistyped id "
            "would leave its test without a claim"
        )


def printed_number(text: str) -> None:
    """Check a printed number of the registry (``stated``, a ``values`` entry). Raises ValueError: not
    a plain decimal (``"inf"``, ``"12 MB"``), over :data:`MAX_DIGITS` digits, or a magnitude outside
    ``1e-MAX_EXPONENT .. 1eMAX_EXPONENT`` (and not 0)."""
    if len(text) > 4 * MAX_DIGITS:
        raise ValueError(
            f"{excerpt(text, 24)} is not a printed number of sensible size (at most {MAX_DIGITS} digits)"
        )
    d = parse_decimal(text)
    if len(d.as_tuple().digits) > MAX_DIGITS:
        raise ValueError(f"{excerpt(text, 24)} has more than {MAX_DIGITS} digits")
    if d and not -MAX_EXPONENT <= d.adjusted() <= MAX_EXPONENT:
        raise ValueError(
            f"{excerpt(text, 24)} is not a finite number of sensible size "
            f"(magnitude between 1e-{MAX_EXPONENT} and 1e{MAX_EXPONENT}, or 0)"
        )


def _stated(value: str, ctx: Context) -> None:
    if value:
        printed_number(value)


def _unit(value: str, ctx: Context) -> None:
    if len(value) > MAX_UNIT:  # pint's parser is slow on long text: a unit is a few symbols
        raise FieldError(f"{len(value)} characters: a unit is at most {MAX_UNIT} (such as 'KiB/token')")
    parse_unit(value)


def _locator(value: str, ctx: Context | None = None) -> None:
    """A locator's checks of its own: short, and its ``¦`` marks in place."""
    if len(value) > MAX_LOCATOR:
        raise FieldError(
            f"{len(value)} characters: a locator is a short quote (<= {MAX_LOCATOR}) around the "
            "number, never a sentence"
        )
    compile_locator(value)


def _needs(value: list, ctx: Context) -> tuple[str, ...]:
    if not value:
        raise FieldError(f"must be a non-empty list of strings from {sorted(NEEDS)}")
    unknown = [
        f"unknown need {n!r}{suggest(n, NEEDS)}; known: {', '.join(sorted(NEEDS))}"
        for n in value
        if n not in NEEDS
    ]
    if unknown:
        raise FieldError(*unknown)
    return tuple(value)


def _string_values(
    why: str, check: Callable[[str], object] | None = None
) -> Callable[[dict[str, Any], Context], MappingProxyType[str, str]]:
    """A check of a table whose every value is a string (``why`` says why), each passed to ``check``."""

    def run(value: dict[str, Any], ctx: Context) -> MappingProxyType[str, str]:
        problems = []
        for name, v in value.items():
            if not isinstance(v, str):
                problems.append(f"{name} = {v!r}: {why}")
            elif check is not None:
                try:
                    check(v)
                except ValueError as exc:
                    problems.append(f"{name}: {exc}")
        if problems:
            raise FieldError(*problems)
        return MappingProxyType(dict(value))

    return run


_values = _string_values("write printed numbers as strings to keep their digits", printed_number)
_inputs = _string_values("must be a string (the text fed to the model)")


def _quotes(value: dict, ctx: Context) -> MappingProxyType:
    """name -> tuple of locators, each short and well-marked (their binding: :mod:`claimcheck.registry`)."""
    problems, out = [], {}
    for name, locs in value.items():
        locs = [locs] if isinstance(locs, str) else locs
        if not isinstance(locs, list) or not locs or not all(isinstance(x, str) and x.strip() for x in locs):
            problems.append(f"{name}: must be a locator string or a non-empty list of them")
            continue
        for loc in locs:
            try:
                _locator(loc)
            except ValueError as exc:
                problems.append(f"{name}: {loc!r}: {exc}")
        out[name] = tuple(locs)
    if problems:
        raise FieldError(*problems)
    return MappingProxyType(out)


def _runner(value: str, ctx: Context) -> None:
    if value not in ctx.runners:
        raise FieldError(
            f"unknown runner profile {value!r}{suggest(value, ctx.runners)}; define it under "
            f"[runners.{value}]"
        )


def _section(value: str, ctx: Context) -> None:
    if value not in ctx.sections:
        declared = f" (declared: {', '.join(ctx.sections)})" if ctx.sections else ""
        raise FieldError(
            f"unknown section {value!r}{suggest(value, ctx.sections)}; declare it in [[sections]]{declared}"
        )


def _formula(value: str, ctx: Context) -> None:
    parse(value)


def _tolerance(value: str, ctx: Context) -> Tolerance:
    return parse_tolerance(value)


def _each(items: Iterable[Any], check: Callable[[Any], object], errors: type[Exception] = ValueError) -> None:
    """Run ``check`` on every item; one :class:`FieldError` says every failure (``errors``)."""
    problems = []
    for item in items:
        try:
            check(item)
        except errors as exc:
            problems.append(str(exc))
    if problems:
        raise FieldError(*problems)


def _conditions(value: str | Sequence[str], ctx: Context) -> tuple[str, ...]:
    texts = [value] if isinstance(value, str) else value
    _each(texts, lambda text: parse(text, condition=True), FormulaError)
    return tuple(t.strip() for t in texts)


def _precision(value: str, ctx: Context) -> None:
    if value not in PRECISIONS:
        raise FieldError(f"must be one of {', '.join(PRECISIONS)}, got {value!r}")


def _chapter_id(value: str, ctx: Context) -> None:
    if not CHAPTER_RE.match(value):
        raise FieldError(
            f"bad chapter id {value!r}: lower-case letters, digits, '-' and '_', starting "
            "with a letter (e.g. 'ch15'); it is the first half of every claim's key (ch15:C18)"
        )


#: a citation: ``ch15:C10`` (a claim of another chapter), or ``ch19`` (a chapter only: its claim ids
#: unknown here, allowed for a chapter that is not in this book)
CITES_RE = re.compile(r"^([a-z][a-z0-9_-]*)(?::([A-Z]+\d+(?:\.[a-z][a-z0-9_-]*)?))?$")


def _cites(value: str, ctx: Context) -> str:
    if not CITES_RE.match(value.strip()):
        raise FieldError(
            f"bad citation {value!r}: write the quoted claim's key, chapter:id (e.g. 'ch15:C10'), or "
            "the chapter alone ('ch19') when its claim ids are not known here"
        )
    return value.strip()


def _id_pattern(value: str, ctx: Context) -> re.Pattern:
    """``[chapter] id_pattern`` compiled. Raises FieldError: not a regular expression, or one that repeats
    a group that itself repeats or alternates (``(C+)+``, ``(C|C)*``): Python's matcher may take
    exponential time over an id such as ``CCCCCCCCCCCCCCCCCCCCCCCCCCCC1`` (``validate`` hung)."""
    try:
        pattern = re.compile(value)
    except re.error as exc:
        raise FieldError(f"not a regular expression: {exc}") from None
    if _slow_pattern(value):
        raise FieldError(
            f"'{excerpt(value, quote=False)}' repeats a group that itself repeats or alternates, which can take "
            "exponential time to match an id: write it without the nesting (e.g. 'C+\\d{2}' for '(C+)+\\d{2}'); "
            "the ids were not checked against it"
        )
    return pattern


#: the items of a regular expression's text: an escape, a character class (to its closing ], a ] first in
#: it is a character), a quantifier * + {m,n}, or one character
_TOKEN = re.compile(r"\\.|\[\^?\]?(?:\\.|[^\\\]])*\]?|[*+]|\{(\d*)(,?)(\d*)\}|.", re.S)


def _slow_pattern(pattern: str) -> bool:
    """Whether a regular expression repeats a group holding a repetition or an alternation: read from
    its text (escapes and character classes skipped), in one pass."""
    holds = [False]  # for each open group: whether it holds a repetition or an alternation
    closed = False  # whether the item just read is a group holding one
    for token in _TOKEN.finditer(pattern):
        repeats = _repeats(token)
        if repeats and closed:
            return True
        if token.group() == "(":
            holds.append(False)
        elif token.group() == "|" or repeats:
            holds[-1] = True
        closed = False
        if token.group() == ")":
            inner = holds.pop() if len(holds) > 1 else False
            holds[-1] = holds[-1] or inner
            closed = inner
    return False


def _waived_numbers(value: list, ctx: Context) -> tuple[str, ...]:
    _each(value, parse_number)
    return tuple(value)


def _field(row: dict[str, Any]) -> Field:
    """The :class:`Field` of a row of ``fields.toml``: its check is the function ``_<check>`` of this
    module, its kind named by its words, a table or list default read-only, ``$NAME`` in its texts filled."""
    default = row.get("default")
    return Field(
        **{
            **row,
            "help": Template(row["help"]).substitute(_WORDS),
            "why": Template(row.get("why", "")).substitute(_WORDS),
            "check": globals()[f"_{row['check']}"] if "check" in row else None,
            "kind": KINDS[row.get("kind", STRING.words)],
            "default": MappingProxyType(default) if isinstance(default, dict) else _frozen(default),
        }
    )


def _frozen(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value


_DATA = tomllib.loads(resources.files("claimcheck").joinpath("fields.toml").read_text(encoding="utf-8"))
#: what a claim needs to be checked, in words that hold for any chapter's model (plugin/collection.py
#: turns some of them into markers)
NEEDS: dict[str, str] = _DATA["needs"]
_WORDS = {"NEEDS": ", ".join(NEEDS), "KNOWN_NEEDS": ", ".join(sorted(NEEDS)), "MAX_LOCATOR": MAX_LOCATOR}
TABLES: tuple[tuple[str, str, tuple[Field, ...]], ...] = tuple(
    (t["header"], t["what"], tuple(map(_field, t["fields"]))) for t in _DATA["tables"]
)
"""Every table of a registry file: its header, what it is, its fields (the reference's order), as
``fields.toml`` declares them."""
CLAIM_FIELDS, CHAPTER_FIELDS, SECTION_FIELDS, WAIVER_FIELDS = (fields for _, _, fields in TABLES)

SHARED_FIELDS: tuple[Field, ...] = tuple(f for f in CLAIM_FIELDS if f.shared)
"""The claim fields that ``[defaults]`` may set for every claim (a claim's own value replaces it)."""


def comment_lines(width: int = 100) -> list[str]:
    """The scaffold's comment block: one line per field of a claim (its help's first clause, cut to
    ``width``), required ones marked ``*``, those ``[defaults]`` may set marked ``+``."""
    out = ["# The fields of a claim (* required; + may be in [defaults]; docs/reference/registry-fields.md):"]
    for f in CLAIM_FIELDS:
        head = f"#   {f.name + ('*' if f.required else '') + ('+' if f.shared else ''):15} "
        first = f.help.replace("`", "").split("; ")[0]
        out.append(head + textwrap.shorten(first, width=width - len(head), placeholder=" …"))
    return out


def _repeats(token: re.Match) -> bool:
    """Whether a :data:`_TOKEN` is a quantifier that lets its item repeat more than once (``*``, ``+``,
    ``{2}``, ``{1,}``)."""
    if token.group() in ("*", "+"):
        return True
    low, comma, high = token.groups()
    top = high if comma else low
    return low is not None and (not top or int(top) > 1)
