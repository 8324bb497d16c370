"""The claims registry: a TOML file of claims, validated one claim at a time.

A registry file (``claims/<chapter>/claims.toml``) has a ``[chapter]`` table (free-form; its
``id_pattern``, when present, is a regular expression every claim id must match before any
``.part``, e.g. ``'C\\d{2}'``, so that a renamed or mistyped id is a problem), optional
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
quotes        no        more places the manuscript prints the claim's numbers, as locators:
                        ``{stated = ["读每秒 5947 个"], read_s = "token0.086 s"}`` (a name is
                        ``stated`` or a key of ``values``; a string or a list of strings)
inputs        no        text inputs the check feeds a model, ``{name = "prompt text"}``
reconstructed no        true when ``inputs`` are not printed in the chapter (so were reconstructed)
portable      no        true when ``stated`` with its tolerance holds for any causal LM (a property
                        such as "identical tokens"), so the portable-LM lane may check it as is on
                        another model; false (default) when the numbers are the chapter model's own
runner        no        the runner profile on which ``stated`` was measured (machine-bound)
section       no        the id of the chapter section the claim sits in (a ``[[sections]]`` entry)
note          no        free text for the report
expected_fail no        why the chapter's figure is known not to hold (a non-empty string): only
                        then may the claim's test be marked xfail; the row still shows the
                        verdict (``failed``, or ``passed`` when it held after all) and says
                        "expected to fail (<why>): ..." (without it an xfailed claim test is ``error``)
draft         no        true for a claim ``claimcheck init`` scaffolded and nobody has reviewed yet
                        (its unit, tolerance and needs are guesses; it has no test)
formula       no        the chapter's own arithmetic: an expression over ``stated``, the keys of
                        ``values`` and other claims' values (``C25.a_input``), evaluated by the core
                        (:mod:`claimcheck.formula`) and judged against ``stated``; no test module
conditions    no        comparisons that must hold too (``"read_tokens / read_s == read_tps"``)
precision     no        how a formula reads printed numbers: ``printed`` (default: every value
                        that rounds to it) or ``exact`` (list prices, counts)
============  ========  =====================================================================

The ``[chapter]`` table names the chapter: ``id`` (``ch15``: lower case, digits, ``-``, ``_``;
default the registry's folder name) is the first half of every claim's key (``ch15:C18``,
:mod:`claimcheck.keys`), ``title``, ``language`` (of the manuscript: ``zh``, ``en``...),
``manuscript`` (the manuscript's file name, by which ``check-manuscript`` finds this registry) and
``id_pattern``.

A locator binds the number it prints that equals the value it stands for (``locator`` stands
for ``stated``); when it prints one number only, that number is bound whatever it says, so a
mismatch shows as drift. Other numbers in a locator are context. ``¦`` in a locator marks the
boundary of numbers the manuscript prints glued together (``"256¦8.41 s"``); see
:mod:`claimcheck.printed` and :mod:`claimcheck.manuscript`.

A top-level ``[[sections]]`` array names the chapter's sections in the chapter's order, so that
reports group the claims as the chapter does: ``id`` (a short key such as ``kv-cache``), ``title``
(our own words) and ``heading`` (optional: a short locator of the heading in the manuscript,
<= 40 characters, never the whole heading sentence).

A top-level ``[[waivers]]`` array lists the manuscript's numbers that are not claims (chapter
numbers, dates, quiz options, code constants), so that the number audit can reach 100%:

============  ========  =====================================================================
field         required  meaning
============  ========  =====================================================================
locator       yes       a short quote (<= 40 characters); every number in it is waived
reason        yes       why these numbers are not claims
numbers       no        the numbers as printed, ``["15", "15/20"]``; checked against the text
until         no        a second locator: the waiver covers everything from ``locator`` to the
                        end of the first match of ``until`` after it (a code listing)
============  ========  =====================================================================

Loading never stops at the first problem: every malformed claim becomes one
:class:`RegistryIssue` naming the file, the claim id and the field, and every other claim is
still loaded.
"""

from __future__ import annotations

import dataclasses
import difflib
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from claimcheck.interval import parse_decimal
from claimcheck.tolerance import Tolerance, ToleranceError, parse_tolerance
from claimcheck.units import UnitError, parse_unit

# What a claim needs to be checked, in words that hold for any chapter's model (which model that is,
# is the measurement kit's business: GPT-2 small for claimcheck.llm). claimcheck/plugin/collection.py
# turns some of them into markers.
NEEDS = {
    "arch": "the chapter's model architecture only (a randomly initialised model of the same shapes will do)",
    "tok": "the chapter's real tokenizer",
    "weights": "the chapter's real pretrained weights",
    "time": "a timing measurement on this runner",
    "text": "only the chapter's own printed numbers",
    "ext": "a source outside the chapter",
    "gpu": "a CUDA GPU",
}
REQUIRED = ("id", "title", "stated", "unit", "locator", "tolerance", "needs")
OPTIONAL = ("values", "quotes", "inputs", "reconstructed", "portable", "runner", "section", "note", "draft",
            "expected_fail", "formula", "conditions", "precision")
WAIVER_FIELDS = ("locator", "reason", "numbers", "until")
SECTION_FIELDS = ("id", "title", "heading")
TOP_LEVEL = ("chapter", "runners", "sections", "claims", "waivers")
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
    # value name ("stated" or a key of `values`) -> locators of further places that print it
    quotes: MappingProxyType = field(default_factory=lambda: MappingProxyType({}))
    reconstructed: bool = False
    portable: bool = False
    runner: str | None = None
    section: str | None = None
    note: str = ""
    draft: bool = False
    expected_fail: str = ""  # why the figure is known not to hold ("" = it is expected to hold)
    formula: str | None = None          # the chapter's own arithmetic (claimcheck.formula)
    conditions: tuple[str, ...] = ()
    precision: str = "printed"
    chapter: str = ""                   # the registry's chapter id (the first half of the claim's key)

    @property
    def key(self) -> str:
        """The claim's key across the book: ``ch15:C18`` (:mod:`claimcheck.keys`)."""
        from claimcheck.keys import qualify

        return qualify(self.chapter, self.id)

    @property
    def base_id(self) -> str:
        """The inventory id without a part suffix: ``C30.text`` -> ``C30``."""
        return self.id.split(".", 1)[0]

    @property
    def stated_value(self) -> float | None:
        """The stated number as a float, or None when the chapter prints no number."""
        return float(parse_decimal(self.stated)) if self.stated else None

    def printed(self, name: str) -> str:
        """The registry's printed number ``name``: ``"stated"`` or a key of ``values``."""
        return self.stated if name == "stated" else self.values[name]

    def bindings(self) -> list[tuple[str, str]]:
        """Every (value name, locator) pair: ``("stated", locator)`` first, then ``quotes``."""
        out = [("stated", self.locator)]
        out += [(name, loc) for name, locs in self.quotes.items() for loc in locs]
        return out


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

    @property
    def chapter_id(self) -> str:
        """The chapter's id: ``[chapter] id`` when valid, else the registry's folder name (``ch15``)."""
        from claimcheck.keys import CHAPTER_RE

        cid = self.chapter.get("id")
        if isinstance(cid, str) and CHAPTER_RE.match(cid):
            return cid
        folder = Path(self.path).resolve().parent.name.lower()
        return folder if CHAPTER_RE.match(folder) else "chapter"

    def key(self, claim_id: str) -> str:
        """``claim_id`` qualified with this registry's chapter: ``C18`` -> ``ch15:C18``."""
        from claimcheck.keys import qualify

        return qualify(self.chapter_id, claim_id)

    def issues_for(self, claim_id: str) -> list[RegistryIssue]:
        return self.invalid.get(claim_id, [])

    def unknown_id_message(self, claim_id: str, untested=None, scope: str = " in this run") -> str:
        """Why a test names ``claim_id`` and this registry has no such claim, with the likeliest fix.

        ``untested``: the registry ids that no test of this run covers, when known. A test whose
        claim was renamed in the registry is then pointed at the id that lost its test (the rename),
        rather than at whichever declared id happens to look alike. ``scope`` ends the phrase
        "without a test ..." (" in this run", or "" for every test module beside the registry).
        """
        orphans = [i for i in self.all_ids if untested is not None and i in untested]
        close = difflib.get_close_matches(claim_id, orphans or self.all_ids, n=1)
        msg = f"{self.path}: no claim with id {claim_id!r}"
        if close:
            return msg + f" (did you mean {close[0]}?)"
        if len(orphans) == 1:
            return msg + f" (the only registry id without a test{scope} is {orphans[0]}: was {claim_id} renamed?)"
        if orphans:
            more = f" and {len(orphans) - 8} more" if len(orphans) > 8 else ""
            return msg + f" (registry ids without a test{scope}: {', '.join(orphans[:8])}{more})"
        return msg + " (every registry id has a test: add a [[claims]] table for it)"

    @property
    def all_ids(self) -> list[str]:
        """Every claim id the file declares, valid or not, in file order."""
        seen = list(self.claims)
        seen += [i for i in self.invalid if i not in self.claims]
        return seen


def load_registry(path: str | Path) -> Registry:
    """Load and validate a registry file.

    Returns a :class:`Registry` whose ``claims`` holds every valid claim and whose ``issues``
    lists every problem, each naming the file, the claim id and the field (or the line). Nothing
    is lost to a local problem:

    - a byte that is not UTF-8 is reported with its line and the claim whose table holds it (that
      claim is invalid); the rest of the file is read as usual;
    - a TOML syntax error is reported with its line and the claim it breaks, and the file's other
      tables (each ``[[claims]]``, ``[[waivers]]``, ``[chapter]``...) are still read one by one;
    - a file that declares no claim at all is a problem (it would check nothing);
    - with ``id_pattern`` in ``[chapter]`` (a regular expression for the id before any
      ``.part``, such as ``"C\\d{2}"``), an id that does not match it is a problem.

    Never raises for the file's content; an unreadable file is a single file-level issue.
    """
    p = Path(path)
    shown = str(p)
    reg = Registry(path=shown, chapter={}, runners={}, claims={}, issues=[], invalid={})
    try:
        raw = p.read_bytes()
    except OSError as exc:
        reg.issues.append(RegistryIssue(shown, None, None, f"cannot read: {exc.strerror or exc}"))
        return reg
    text, bad_bytes = _decode(raw.removeprefix(b"\xef\xbb\xbf"))  # a BOM (Windows editors) is not an error
    tables = _tables(text)
    toml_error = False
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        data, toml_error = _load_tables(tables, shown, reg, exc), True
    located: dict[str, list[RegistryIssue]] = {}  # claim id -> [RegistryIssue] for undecodable bytes inside its table
    by_line: dict[int, list[int]] = {}
    for line, byte in bad_bytes:
        by_line.setdefault(line, []).append(byte)
    for line, found in by_line.items():
        table = _table_at(tables, line)
        cid = table.claim_id if table is not None else None
        fld = _key_at(text, line)
        if cid is None and fld and table is not None and table.header:
            fld = f"{table.header}.{fld}"
        what = (f"byte 0x{found[0]:02x} is" if len(found) == 1 else
                f"{len(found)} byte sequences ({' '.join(f'0x{b:02x}' for b in found[:4])}{' ...' if len(found) > 4 else ''}) are")
        issue = RegistryIssue(shown, cid, fld, f"line {line}: {what} not UTF-8; save the registry as UTF-8 (the rest "
                                               "of the file was read)")
        if cid is not None:
            located.setdefault(cid, []).append(issue)
        else:
            reg.issues.append(issue)

    unknown_top = set(data) - set(TOP_LEVEL)
    for key in sorted(unknown_top):
        reg.issues.append(RegistryIssue(shown, None, key, f"unknown top-level table{_suggest(key, TOP_LEVEL)}"))
    for key in ("chapter", "runners"):
        if not isinstance(data.get(key, {}), dict):
            reg.issues.append(RegistryIssue(shown, None, key, f"must be a table ([{key}]), got {type(data[key]).__name__}"))
            data[key] = {}
    reg.chapter = dict(data.get("chapter", {}))
    id_pattern = _id_pattern(reg.chapter, shown, reg.issues)
    _check_chapter(reg.chapter, shown, reg.issues)
    reg.runners = {}
    for name, runner in data.get("runners", {}).items():
        if isinstance(runner, dict):
            reg.runners[name] = runner
        else:
            reg.issues.append(RegistryIssue(shown, None, f"runners.{name}", "must be a table with a description"))

    reg.waivers = _load_waivers(data.get("waivers", []), shown, reg.issues)
    reg.sections = _load_sections(data.get("sections", []), shown, reg.issues)
    entries = data.get("claims", [])
    if not isinstance(entries, list):
        reg.issues.append(RegistryIssue(shown, None, "claims", "must be an array of tables ([[claims]])"))
        return reg
    if not entries and not toml_error:
        reg.issues.append(RegistryIssue(shown, None, "claims", "the file is empty" if not text.strip() else
                                        "declares no claims (no [[claims]] table): a registry without claims checks nothing"))
    for index, entry in enumerate(entries, start=1):
        claim, problems = _validate(entry, index, shown, reg.runners, id_pattern, [sec.id for sec in reg.sections])
        cid = problems[0].claim_id if problems else claim.id
        if claim is not None and cid in reg.claims:
            problems = [RegistryIssue(shown, cid, "id", f"duplicate id (entry #{index}; first defined earlier)")]
            claim = None
        if claim is not None and cid in located:
            problems, claim = located.pop(cid), None
        if problems:
            reg.issues.extend(problems)
            if cid and not cid.startswith("#"):
                reg.invalid.setdefault(cid, []).extend(problems)
        else:
            reg.claims[claim.id] = dataclasses.replace(claim, chapter=reg.chapter_id)
    _check_formula_references(reg)
    for cid, problems in located.items():  # a claim already invalid for another reason (or unparsed)
        reg.issues.extend(problems)
        reg.invalid.setdefault(cid, []).extend(problems)
    return reg


def _decode(raw: bytes) -> tuple[str, list[tuple[int, int]]]:
    """Decode UTF-8, replacing each undecodable byte sequence by U+FFFD; also return
    ``[(1-based line, first bad byte), ...]``."""
    parts, bad, pos = [], [], 0
    while True:
        try:
            parts.append(raw[pos:].decode("utf-8"))
            break
        except UnicodeDecodeError as exc:
            start, end = pos + exc.start, pos + exc.end
            parts.append(raw[pos:start].decode("utf-8"))
            parts.append("\ufffd")
            bad.append((raw.count(b"\n", 0, start) + 1, raw[start]))
            pos = end
    return "".join(parts), bad


@dataclass(frozen=True)
class _Table:
    """A top-level table of the file as text: ``[chapter]``, ``[[claims]]``... (or the preamble)."""

    header: str          # "" for the text before the first header
    first: int           # 1-based line of the header
    last: int            # 1-based last line
    text: str

    @property
    def claim_id(self) -> str | None:
        """The id of a ``[[claims]]`` table, read from its text (None for other tables)."""
        if self.header != "claims":
            return None
        m = _ID_LINE.search(self.text)
        return m.group(1) if m else f"# at line {self.first} (no id)"


_HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\"' ]+?)\s*\]\]?\s*(#.*)?$")
_ID_LINE = re.compile(r"""^\s*id\s*=\s*["']([^"'\n]+)["']""", re.M)
_KEY_LINE = re.compile(r"^\s*([A-Za-z0-9_-]+)\s*=")


def _tables(text: str) -> list[_Table]:
    """Split the file at its table headers (lines such as ``[[claims]]``, ``[chapter]``)."""
    lines = text.split("\n")
    starts = [(0, "")]
    for n, line in enumerate(lines):
        m = _HEADER.match(line)
        if m:
            starts.append((n, m.group(2).split(".")[0].strip("\"' ")))
    out = []
    for k, (n, header) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        if n == 0 and header == "" and k + 1 < len(starts) and starts[k + 1][0] == 0:
            continue
        out.append(_Table(header, n + 1, end, "\n".join(lines[n:end])))
    return out


def _table_at(tables: list[_Table], line: int) -> _Table | None:
    return next((t for t in tables if t.first <= line <= t.last), None)


def _key_at(text: str, line: int) -> str | None:
    m = _KEY_LINE.match(text.split("\n")[line - 1])
    return m.group(1) if m else None


def _load_tables(tables: list[_Table], path: str, reg: Registry, whole: Exception) -> dict:
    """After a TOML syntax error: read the file table by table, so that one broken table costs
    only itself. Each table that does not parse is one issue naming its line and its claim."""
    data: dict = {}
    broken = 0
    for t in tables:
        try:
            part = tomllib.loads(t.text)
        except tomllib.TOMLDecodeError as exc:
            broken += 1
            msg = re.sub(r"\(at line (\d+), column (\d+)\)",
                         lambda m: f"(at line {int(m.group(1)) + t.first - 1}, column {m.group(2)})", str(exc))
            cid = t.claim_id
            issue = RegistryIssue(path, cid, None, f"not valid TOML: {msg}; the file's other tables were read")
            reg.issues.append(issue)
            if cid and not cid.startswith("#"):
                reg.invalid.setdefault(cid, []).append(issue)
            continue
        for key, value in part.items():
            if isinstance(value, list) and isinstance(data.get(key, []), list):
                data.setdefault(key, []).extend(value)
            elif isinstance(value, dict) and isinstance(data.get(key, {}), dict):
                for k, v in value.items():
                    data.setdefault(key, {})[k] = v
            else:
                data[key] = value
    if not broken:  # the split hid the error (e.g. a table defined twice): report the file's own error
        reg.issues.append(RegistryIssue(path, None, None, f"not valid TOML: {whole}"))
        return {}
    return data


def _check_chapter(chapter: dict, path: str, issues: list) -> None:
    """``[chapter] id``, ``manuscript`` and ``language``, when given, are usable strings."""
    from claimcheck.keys import CHAPTER_RE

    cid = chapter.get("id")
    if cid is not None and (not isinstance(cid, str) or not CHAPTER_RE.match(cid)):
        issues.append(RegistryIssue(path, None, "chapter.id", f"bad chapter id {cid!r}: lower-case letters, digits, "
                                    "'-' and '_', starting with a letter (e.g. 'ch15'); it is the first half of "
                                    "every claim's key (ch15:C18)"))
    for name in ("manuscript", "language", "title"):
        value = chapter.get(name)
        if value is not None and (not isinstance(value, str) or not value.strip()):
            issues.append(RegistryIssue(path, None, f"chapter.{name}", f"must be a non-empty string, got {value!r}"))


def _check_formula_references(reg: "Registry") -> None:
    """A formula's ``C25.a_input`` names a claim of this registry and one of its values; a claim
    whose formula names an unknown value becomes invalid (its issue names the claim and field)."""
    for cid in list(reg.claims):
        claim = reg.claims[cid]
        problems = []
        for fld, texts in (("formula", [claim.formula] if claim.formula else []), ("conditions", claim.conditions)):
            for text in texts:
                for name in formula_names(text, fld == "conditions"):
                    why = _unknown_name(reg, claim, name)
                    if why:
                        problems.append(RegistryIssue(reg.path, cid, fld, f"{text!r}: {why}"))
        if not problems and claim.formula:  # evaluated once here: a formula that cannot be computed is a problem
            from claimcheck.formula import FormulaError, evaluate_claim

            try:
                evaluate_claim(claim, reg)
            except FormulaError as exc:
                problems.append(RegistryIssue(reg.path, cid, "formula", f"cannot be evaluated: {exc}"))
        if problems:
            reg.issues.extend(problems)
            reg.invalid.setdefault(cid, []).extend(problems)
            del reg.claims[cid]


def formula_names(text: str, condition: bool) -> tuple[str, ...]:
    from claimcheck.formula import parse

    return parse(text, condition=condition).names


def split_reference(name: str) -> tuple[str | None, str]:
    """``"C25.a_input"`` -> ``("C25", "a_input")``; ``"C30.text.p_much"`` -> ``("C30.text", "p_much")``;
    ``"read_s"`` -> ``(None, "read_s")``."""
    if "." not in name:
        return None, name
    claim_id, value = name.rsplit(".", 1)
    return claim_id, value


def _unknown_name(reg: "Registry", claim: "Claim", name: str) -> str | None:
    ref, value = split_reference(name)
    if ref is None:
        known = ["stated", *claim.values]
        if value in known:
            return None
        if value in reg.claims:
            return f"{value!r} is a claim, not a value: write {value}.stated for its printed value (or {value}.<name>)"
        return f"no value {value!r} in this claim{_suggest(value, known)} (known: {', '.join(known)})"
    other = reg.claims.get(ref)
    if other is None:
        return f"{name!r} names claim {ref!r}, which the registry does not declare{_suggest(ref, reg.claims)}"
    known = ["stated", *other.values]
    return None if value in known else f"claim {ref} has no value {value!r}{_suggest(value, known)}"


def _id_pattern(chapter: dict, path: str, issues: list):
    """The compiled ``[chapter] id_pattern`` (the id before any ``.part``), or None when not declared."""
    text = chapter.get("id_pattern")
    if text is None:
        return None
    if not isinstance(text, str) or not text:
        issues.append(RegistryIssue(path, None, "chapter.id_pattern", f"must be a regular expression string, got {text!r}"))
        return None
    try:
        return re.compile(text)
    except re.error as exc:
        issues.append(RegistryIssue(path, None, "chapter.id_pattern", f"not a regular expression: {exc}"))
        return None


def _suggest(name: str, options) -> str:
    close = difflib.get_close_matches(name, list(options), n=1)
    return f" (did you mean '{close[0]}'?)" if close else ""


def _validate(entry, index: int, path: str, runners: dict, id_pattern=None, sections=()):
    """Return (Claim or None, [RegistryIssue, ...]) for one ``[[claims]]`` table."""
    if not isinstance(entry, dict):
        return None, [RegistryIssue(path, f"#{index}", None, "each claim must be a table")]
    raw_id = entry.get("id")
    cid = raw_id if isinstance(raw_id, str) and raw_id else f"#{index} (no id)"
    problems: list[RegistryIssue] = []
    if raw_id is not None and not isinstance(raw_id, str):
        problems.append(RegistryIssue(path, cid, "id", f"must be a string such as \"C05\", got {raw_id!r}"))

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
    elif isinstance(raw_id, str) and id_pattern is not None and not id_pattern.fullmatch(raw_id.split(".", 1)[0]):
        bad("id", f"id {raw_id!r} does not match the registry's id pattern '{id_pattern.pattern}' ([chapter] "
                  "id_pattern): a renamed or mistyped id would leave its test without a claim")

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
                    parse_decimal(stated)
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
            parse_decimal(v)
        except ValueError as exc:
            bad("values", f"{name}: {exc}")
    quotes = _validate_quotes(entry.get("quotes", {}), stated, values, bad)
    if locator is not None:
        _check_locator(locator, "locator", stated or "", bad)
    inputs = entry.get("inputs", {})
    if not isinstance(inputs, dict) or not all(isinstance(v, str) for v in inputs.values()):
        bad("inputs", "must be a table of name = \"text\"")
        inputs = {}
    reconstructed = entry.get("reconstructed", False)
    if not isinstance(reconstructed, bool):
        bad("reconstructed", f"must be true or false, got {reconstructed!r}")
    portable = entry.get("portable", False)
    if not isinstance(portable, bool):
        bad("portable", f"must be true or false, got {portable!r}")
    runner = entry.get("runner")
    if runner is not None and runner not in runners:
        bad("runner", f"unknown runner profile {runner!r}{_suggest(str(runner), runners)}; define it under [runners.{runner}]")
    section = entry.get("section")
    if section is not None and section not in sections:
        bad("section", f"unknown section {section!r}{_suggest(str(section), sections)}; declare it in [[sections]]"
                       + (f" (declared: {', '.join(sections)})" if sections else ""))
    note = entry.get("note", "")
    draft = entry.get("draft", False)
    if not isinstance(draft, bool):
        bad("draft", f"must be true or false, got {draft!r}")
    if not isinstance(note, str):
        bad("note", "must be a string")
    expected_fail = entry.get("expected_fail", "")
    if not isinstance(expected_fail, str) or ("expected_fail" in entry and not expected_fail.strip()):
        bad("expected_fail", f"must be a non-empty string saying why the figure is known not to hold, got {expected_fail!r}")

    formula, conditions, precision = _validate_formula(entry, bad)
    if stated == "" and tolerance is not None and tolerance.needs_stated:
        bad("tolerance", f"{tol_text!r} compares with the stated value, but 'stated' is empty (the "
                         "chapter prints no number here): use a bound such as '>=X', '<=X' or 'range:A..B'")
    if problems:
        return None, problems
    # each of these is a required field, checked above: without a problem, each holds its value
    assert isinstance(raw_id, str) and stated is not None and tolerance is not None and needs is not None
    return Claim(
        id=raw_id, title=title, stated=stated, unit=unit, locator=locator,
        tolerance=tolerance, tolerance_text=str(tol_text), needs=tuple(needs), path=path,
        values=MappingProxyType(dict(values)), inputs=MappingProxyType(dict(inputs)),
        quotes=MappingProxyType(quotes),
        reconstructed=bool(reconstructed), portable=bool(portable), runner=runner, section=section, note=note,
        draft=draft, expected_fail=expected_fail if isinstance(expected_fail, str) else "",
        formula=formula, conditions=conditions, precision=precision,
    ), []


def _validate_formula(entry: dict, bad) -> tuple[str | None, tuple[str, ...], str]:
    """``formula``, ``conditions`` and ``precision`` of a claim: parsed once here, so a formula that
    cannot be evaluated is a registry problem naming the claim and the field."""
    from claimcheck.formula import PRECISIONS, FormulaError, parse

    formula = entry.get("formula")
    if formula is not None:
        try:
            parse(formula if isinstance(formula, str) else "")
        except FormulaError as exc:
            bad("formula", str(exc))
            formula = None
    conditions = entry.get("conditions", [])
    if isinstance(conditions, str):
        conditions = [conditions]
    good: list[str] = []
    if not isinstance(conditions, list):
        bad("conditions", 'must be a list of comparisons, e.g. ["read_tokens / read_s == read_tps"]')
    else:
        for text in conditions:
            try:
                parse(text if isinstance(text, str) else "", condition=True)
                good.append(text.strip())
            except FormulaError as exc:
                bad("conditions", str(exc))
        if good and formula is None and "formula" not in entry:
            bad("conditions", "conditions need a 'formula' (the value judged against 'stated')")
    precision = entry.get("precision", "printed")
    if precision not in PRECISIONS:
        bad("precision", f"must be one of {', '.join(PRECISIONS)}, got {precision!r}")
        precision = "printed"
    elif "precision" in entry and formula is None and "formula" not in entry:
        bad("precision", "only a claim with a 'formula' reads its numbers with a precision")
    return formula, tuple(good), precision


def _check_locator(locator: str, fld: str, printed: str, bad) -> bool:
    """Report a locator whose ``¦`` marks are misplaced, or whose numbers do not say which is bound."""
    from claimcheck.printed import compile_locator, same_printed

    try:
        pattern = compile_locator(locator)
    except ValueError as exc:
        bad(fld, str(exc))
        return False
    nums = pattern.numbers
    if printed and len(nums) > 1 and not any(same_printed(printed, n) for n in nums):
        bad(fld, f"locator {locator!r} prints {', '.join(n.text for n in nums)}, none of which is "
                 f"{printed!r}: the locator cannot tell which number it binds (quote the right place, "
                 "or a shorter one with a single number)")
        return False
    return True


def _validate_quotes(quotes, stated, values, bad) -> dict:
    """Validate ``quotes``: value name -> locator or list of locators. Returns name -> tuple."""
    if not isinstance(quotes, dict):
        bad("quotes", 'must be a table of name = "locator" or name = ["locator", ...]')
        return {}
    out = {}
    names = ["stated", *values]
    for name, locs in quotes.items():
        if name not in names:
            bad("quotes", f"{name!r} is neither 'stated' nor a key of 'values'{_suggest(name, names)}")
            continue
        printed = stated if name == "stated" else values.get(name)
        if not isinstance(printed, str) or not printed:
            bad("quotes", f"{name}: the claim has no printed number {name!r} to bind")
            continue
        if isinstance(locs, str):
            locs = [locs]
        if not isinstance(locs, list) or not locs or not all(isinstance(x, str) and x.strip() for x in locs):
            bad("quotes", f"{name}: must be a locator string or a non-empty list of them")
            continue
        good = []
        for loc in locs:
            if len(loc) > MAX_LOCATOR:
                bad("quotes", f"{name}: {len(loc)} characters in {loc!r}: a locator is a short quote (<= {MAX_LOCATOR})")
                continue
            if not _check_locator(loc, "quotes", printed, bad):
                continue
            from claimcheck.printed import compile_locator

            if not compile_locator(loc).numbers:
                bad("quotes", f"{name}: locator {loc!r} prints no number to bind to {name} = {printed!r}")
                continue
            good.append(loc)
        out[name] = tuple(good)
    return out


def _load_waivers(entries, path: str, issues: list) -> list[Waiver]:
    """Validate the ``[[waivers]]`` array; every problem names the file, the waiver and the field."""
    if not isinstance(entries, list):
        issues.append(RegistryIssue(path, None, "waivers", "must be an array of tables ([[waivers]])"))
        return []
    out = []
    for index, entry in enumerate(entries, start=1):
        label = f"waivers[{index}]"
        problems: list[RegistryIssue] = []

        def bad(fld, msg, _label=label, _problems=problems):
            _problems.append(RegistryIssue(path, None, f"{_label}.{fld}" if fld else _label, msg))

        if not isinstance(entry, dict):
            bad(None, "each waiver must be a table")
            issues.extend(problems)
            continue
        for key in entry:
            if key not in WAIVER_FIELDS:
                bad(key, f"unknown field{_suggest(key, WAIVER_FIELDS)}; known fields: {', '.join(WAIVER_FIELDS)}")
        texts = {}
        for key in ("locator", "reason", "until"):
            v = entry.get(key)
            if v is None:
                if key in ("locator", "reason"):
                    bad(key, "missing required field")
                continue
            if not isinstance(v, str) or not v.strip():
                bad(key, "must be a non-empty string")
                continue
            if key != "reason" and len(v) > MAX_LOCATOR:
                bad(key, f"{len(v)} characters: a locator is a short quote (<= {MAX_LOCATOR})")
                continue
            texts[key] = v
        for key in ("locator", "until"):
            if key in texts:
                from claimcheck.printed import compile_locator

                try:
                    compile_locator(texts[key])
                except ValueError as exc:
                    bad(key, str(exc))
        numbers = entry.get("numbers")
        if numbers is not None:
            from claimcheck.printed import parse_number

            if not isinstance(numbers, list) or not all(isinstance(n, str) for n in numbers):
                bad("numbers", 'must be a list of printed numbers as strings, e.g. ["15", "15/20"]')
                numbers = None
            else:
                for n in numbers:
                    try:
                        parse_number(n)
                    except ValueError as exc:
                        bad("numbers", str(exc))
        if problems:
            issues.extend(problems)
            continue
        out.append(Waiver(index, texts["locator"], texts["reason"],
                          tuple(numbers) if numbers is not None else None, texts.get("until")))
    return out


def _load_sections(entries, path: str, issues: list) -> list[Section]:
    """Validate the ``[[sections]]`` array; every problem names the file, the section and the field."""
    if not isinstance(entries, list):
        issues.append(RegistryIssue(path, None, "sections", "must be an array of tables ([[sections]])"))
        return []
    out: list[Section] = []
    for index, entry in enumerate(entries, start=1):
        label = f"sections[{index}]"
        if not isinstance(entry, dict):
            issues.append(RegistryIssue(path, None, label, "each section must be a table"))
            continue
        problems = [RegistryIssue(path, None, f"{label}.{key}", f"unknown field{_suggest(key, SECTION_FIELDS)}; "
                                                                f"known fields: {', '.join(SECTION_FIELDS)}")
                    for key in entry if key not in SECTION_FIELDS]
        for key in ("id", "title", "heading"):
            v = entry.get(key)
            if v is None and key != "heading":
                problems.append(RegistryIssue(path, None, f"{label}.{key}", "missing required field"))
            elif v is not None and (not isinstance(v, str) or not v.strip()):
                problems.append(RegistryIssue(path, None, f"{label}.{key}", "must be a non-empty string"))
        heading = entry.get("heading")
        if isinstance(heading, str) and len(heading) > MAX_LOCATOR:
            problems.append(RegistryIssue(path, None, f"{label}.heading", f"{len(heading)} characters: a heading "
                                          f"locator is a short quote (<= {MAX_LOCATOR})"))
        if isinstance(entry.get("id"), str) and any(sec.id == entry["id"] for sec in out):
            problems.append(RegistryIssue(path, None, f"{label}.id", f"duplicate section id {entry['id']!r}"))
        if problems:
            issues.extend(problems)
            continue
        out.append(Section(entry["id"], entry["title"], heading or ""))
    return out
