"""The registry's fields as tables: each field of ``claims.toml`` declared once, with its check.

The :class:`Field` rows drive the registry's validation (:func:`check_table`), the field reference
(:mod:`claimcheck.docs`) and ``claimcheck init``'s comments (:func:`comment_lines`).
"""

from __future__ import annotations

import difflib
import json
import re
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from claimcheck.display import excerpt, suggest
from claimcheck.formula import PRECISIONS, FormulaError, parse
from claimcheck.interval import parse_decimal
from claimcheck.keys import CHAPTER_RE
from claimcheck.printed import compile_locator, parse_number
from claimcheck.tolerance import parse_tolerance
from claimcheck.units import parse_unit

# What a claim needs to be checked, in words that hold for any chapter's model (plugin/collection.py
# turns some of them into markers).
NEEDS = {
    "arch": "the chapter's model architecture only (a randomly initialised model of the same shapes will do)",
    "tok": "the chapter's real tokenizer",
    "weights": "the chapter's real pretrained weights",
    "time": "a timing measurement on this runner",
    "text": "only the chapter's own printed numbers",
    "ext": "a source outside the chapter",
    "gpu": "a CUDA GPU",
}
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


def _check_stated(value: str, ctx: Context) -> None:
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


_QUANTIFIER = re.compile(r"[*+]|\{(\d*)(,?)(\d*)\}")


def _slow_pattern(pattern: str) -> bool:
    """Whether a regular expression repeats a group holding a repetition or an alternation: read from
    its text (escapes and character classes skipped), in one pass."""
    holds = [False]  # for each open group: whether it holds a repetition or an alternation
    closed = False  # whether the item just read is a group holding one
    i = 0
    while i < len(pattern):
        c = pattern[i]
        quantifier = _QUANTIFIER.match(pattern, i)
        if c == "\\":
            i, closed = i + 2, False
            continue
        if c == "[":  # a character class, to its closing ] (a ] first in it is a character)
            j = i + 1 + (pattern[i + 1 : i + 2] == "^")
            j += pattern[j : j + 1] == "]"
            while j < len(pattern) and pattern[j] != "]":
                j += 2 if pattern[j] == "\\" else 1
            i, closed = j + 1, False
            continue
        if c == "(":
            holds.append(False)
            closed = False
        elif c == ")":
            inner = holds.pop() if len(holds) > 1 else False
            holds[-1] = holds[-1] or inner
            closed = inner
        elif quantifier and _repeats(quantifier):
            if closed:
                return True
            holds[-1] = True
            i, closed = quantifier.end(), False
            continue
        elif c == "|":
            holds[-1] = True
            closed = False
        else:
            closed = False
        i += 1
    return False


def _waived_numbers(value: list, ctx: Context) -> tuple[str, ...]:
    _each(value, parse_number)
    return tuple(value)


def _flag(name: str, help: str, shared: bool = False) -> Field:
    """A ``true``/``false`` field, false unless set."""
    return Field(name, help, kind=BOOL, default=False, example="true", shared=shared)


def _table(name: str, help: str, check: Callable[[Any, Context], Any], example: str) -> Field:
    """A table field of a claim, empty unless set."""
    return Field(name, help, check, kind=TABLE, default=MappingProxyType({}), example=example)


# --- the tables -------------------------------------------------------------------------------------
CLAIM_FIELDS: tuple[Field, ...] = (
    Field(
        "id",
        "`C05`, or `C30.text` for one checkable part of claim C30; in `[claims]` the key is the id "
        '(`C05 = { ... }`, `[claims.C05]`; quote one with a part: `"C30.text" = { ... }`)',
        _claim_id,
        required=True,
        example='"C05"',
    ),
    Field("title", "a short title, in our own words", required=True, example='"KV cache per token"'),
    Field(
        "stated",
        'the headline value exactly as printed, as a string; `""` when the chapter '
        "states a fact without a number (then the tolerance is a bound: `>=X`, `<=X`, `range:A..B`)",
        _check_stated,
        required=True,
        example='"99.16"',
        empty_ok=True,
        why='write the printed number as a string ("{value}") so its printed digits are kept',
    ),
    Field(
        "unit",
        'a pint unit (`KiB/token`, `token/s`, `万 param`, `CNY`); `""` for none',
        _unit,
        required=True,
        example='"KiB/token"',
        empty_ok=True,
        shared=True,
    ),
    Field(
        "locator",
        f"a short quote (<= {MAX_LOCATOR} characters) around the number in the "
        "manuscript, never a sentence; `¦` marks where two printed numbers are glued together; every "
        "other character is the text's own (`|` too; Markdown's `*`, backquote and `|` read as spaces)",
        _locator,
        required=True,
        example='"36 KiB"',
    ),
    Field(
        "tolerance",
        "how close a measured value must be: `printed` (half a unit in the last "
        "digit), `exact`, `abs:X`, `rel:5%`, `>=X`, `<=X`, `range:A..B`",
        lambda value, ctx: parse_tolerance(value),
        required=True,
        example='"printed"',
        shared=True,
    ),
    Field(
        "needs",
        f"what checking it needs, any of: {', '.join(NEEDS)}",
        _needs,
        kind=STRINGS,
        required=True,
        example='["arch"]',
        why=f"known needs: {', '.join(sorted(NEEDS))}",
        shared=True,
    ),
    _table(
        "values", "other printed numbers the claim uses, each as a string", _values, '{ read_s = "0.086" }'
    ),
    _table(
        "quotes",
        "more places that print the claim's numbers: a name (`stated` or a key of "
        "`values`) = a locator or a list of them",
        _quotes,
        '{ stated = ["5947 个"] }',
    ),
    _table(
        "inputs", "text inputs the check feeds a model", _inputs, '{ prompt = "The capital of France is" }'
    ),
    _flag(
        "reconstructed",
        "true when `inputs` are not printed in the chapter (so were reconstructed)",
        shared=True,
    ),
    _flag(
        "portable",
        "true when `stated` with its tolerance holds for any causal LM, so the "
        "portable-LM lane checks it as is; false when the numbers are the chapter model's own",
        shared=True,
    ),
    Field(
        "runner",
        "the runner profile (a `[runners.NAME]`) on which `stated` was measured: a machine-bound figure",
        _runner,
        example='"author-laptop"',
        shared=True,
    ),
    Field(
        "section",
        "the id of the `[[sections]]` entry the claim sits in",
        _section,
        example='"read"',
        shared=True,
    ),
    Field("note", "free text for the report", default="", example='"seen at batch size 1"', empty_ok=True),
    _flag(
        "draft",
        "true for a claim `claimcheck init` scaffolded and nobody has reviewed yet "
        "(its unit, tolerance and needs are guesses; it has no test)",
    ),
    Field(
        "expected_fail",
        "why the chapter's figure is known not to hold: only then may its test "
        'be marked xfail; the row still shows the verdict, and says "expected to fail (why)"',
        default="",
        example='"the chapter rounds twice"',
        why="say why the figure is known not to hold",
    ),
    Field(
        "formula",
        "the chapter's own arithmetic: an expression over `stated`, the keys of "
        "`values`, other claims' values (`C25.a_input`) and other chapters' (`ch15:C10.stated`), evaluated by the core and judged against "
        "`stated`; no test module",
        _formula,
        example='"read_tokens / read_s"',
    ),
    Field(
        "cites",
        "the claim of another chapter this one quotes, `chapter:id` (or one of its `values`, "
        "`chapter:id.name`): its `stated` must be the "
        "source's figure at the quote's printed precision (500 quotes 497.76), else the claim is drifted; "
        "a chapter not in this book is kept and shown as 'source not in this book' (then `ch19` alone will do)",
        _cites,
        example='"ch15:C10"',
    ),
    Field(
        "conditions",
        "comparisons that must hold too (needs a `formula`)",
        _conditions,
        kind=STRING_OR_LIST,
        default=(),
        example='["read_tokens / read_s == read_tps"]',
    ),
    Field(
        "precision",
        "how a formula reads printed numbers: `printed` (every value that rounds "
        "to them) or `exact` (list prices, counts); set in `[defaults]`, only the claims with a "
        "`formula` take it",
        _precision,
        default="printed",
        example='"exact"',
        shared=True,
    ),
)

CHAPTER_FIELDS: tuple[Field, ...] = (
    Field(
        "id",
        "the chapter's id (lower case, digits, `-`, `_`): the first half of every claim's "
        "key, `ch15:C18`; default the registry's folder name",
        _chapter_id,
        example='"ch15"',
    ),
    Field("title", "the chapter's title", example='"Reading is parallel"'),
    Field("language", "the manuscript's language", example='"zh"'),
    Field(
        "manuscript",
        "the manuscript's file name: `check-manuscript` finds the registry by it, "
        "and `--claims-manuscript` binds to the chapter that names the file",
        example='"ch15.md"',
    ),
    Field(
        "id_pattern",
        "a regular expression every claim id must match before any `.part`, so "
        "that a renamed or mistyped id is a problem",
        _id_pattern,
        example="'C\\d{2}'",
    ),
)

SECTION_FIELDS: tuple[Field, ...] = (
    Field(
        "id",
        "a short key such as `kv-cache`, named by the claims' `section`",
        required=True,
        example='"kv-cache"',
    ),
    Field("title", "the section's title, in our own words", required=True, example='"The KV cache"'),
    Field(
        "heading",
        "a short locator of the heading in the manuscript, never the whole heading",
        _locator,
        default="",
        example='"读：一次前向"',
    ),
)

WAIVER_FIELDS: tuple[Field, ...] = (
    Field(
        "locator",
        "a short quote; every number in it is waived",
        _locator,
        required=True,
        example='"第 15 章"',
    ),
    Field("reason", "why these numbers are not claims", required=True, example='"a chapter number"'),
    Field(
        "numbers",
        "the numbers as printed, checked against the text",
        _waived_numbers,
        kind=STRINGS,
        example='["15", "15/20"]',
    ),
    Field(
        "until",
        "a second locator: the waiver covers everything from `locator` to the end of "
        "the first match of `until` after it (a code listing)",
        _locator,
        example='"return out"',
    ),
)

SHARED_FIELDS: tuple[Field, ...] = tuple(f for f in CLAIM_FIELDS if f.shared)
"""The claim fields that ``[defaults]`` may set for every claim (a claim's own value replaces it)."""

TABLES: tuple[tuple[str, str, tuple[Field, ...]], ...] = (
    (
        "[claims]",
        "one entry per checkable claim, keyed by its id: a line `C05 = { title = ..., stated = ... }`, "
        "or a table `[claims.C05]` for a claim of many fields (the older `[[claims]]` array of tables "
        'with `id = "C05"` works too, in a file of its own form). A field marked shared may be given '
        "once in `[defaults]` for every claim that does not set it",
        CLAIM_FIELDS,
    ),
    ("[chapter]", "the chapter this registry is about; other keys are kept, unchecked", CHAPTER_FIELDS),
    ("[[sections]]", "the chapter's sections, in the chapter's order", SECTION_FIELDS),
    (
        "[[waivers]]",
        "numbers of the manuscript that are not claims (chapter numbers, dates, code)",
        WAIVER_FIELDS,
    ),
)
"""Every table of a registry file: its header, what it is, its fields (the reference's order)."""


def comment_lines(width: int = 100) -> list[str]:
    """The scaffold's comment block: one line per field of a claim (its help's first clause, cut to
    ``width``), required ones marked ``*``, those ``[defaults]`` may set marked ``+``."""
    out = ["# The fields of a claim (* required; + may be in [defaults]; docs/reference/registry-fields.md):"]
    for f in CLAIM_FIELDS:
        head = f"#   {f.name + ('*' if f.required else '') + ('+' if f.shared else ''):15} "
        first = f.help.replace("`", "").split("; ")[0]
        out.append(head + textwrap.shorten(first, width=width - len(head), placeholder=" …"))
    return out


def _repeats(m: re.Match) -> bool:
    """Whether a quantifier lets its item repeat more than once (``*``, ``+``, ``{2}``, ``{1,}``)."""
    if m.group(0) in "*+":
        return True
    low, comma, high = m.groups()
    top = high if comma else low
    return not top or int(top) > 1
