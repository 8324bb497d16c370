"""Check a manuscript against the claims registry: drift of quoted numbers, and the number audit.

**Drift.** Each claim's ``locator`` (and ``quotes``) is found with its numbers as wildcards, and the
number it binds is compared, by printed digits, with the registry's: ``ok``, ``drift``,
``not-found``, ``ambiguous``, ``unbound`` (none of its numbers is the registry's) or ``in-words``.
**Audit.** Every number must be bound by a claim or waived by a ``[[waivers]]`` entry (with
``until``, everything to its end); coverage below 100% fails; a waiver whose ``numbers`` changed
warns. In a ``.md`` manuscript ``*``, backquote and ``|`` read as spaces, in text and locators.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Iterator, Sequence
from contextlib import suppress
from dataclasses import asdict, dataclass, field, replace
from functools import cached_property, partial
from itertools import islice
from pathlib import Path

from claimcheck.book import Citation, cite
from claimcheck.display import format_value, with_unit
from claimcheck.fileio import read_input_file
from claimcheck.printed import (
    NUMBER_PATTERN,
    LocatorPattern,
    Number,
    compile_locator,
    find_numbers,
    locator_plain,
    normalise,
    same_printed,
)
from claimcheck.registry import Claim, Registry, Waiver
from claimcheck.results import ClaimEntry, Quote

FAILING = ("not-found", "ambiguous", "unbound", "drift")
"""Quote outcomes that fail a claim's drift check, worst first."""
_ORDER = FAILING + ("ok", "in-words", "not-in-book")
_TIMES_STAR = re.compile(r"\d\s*(\*)\s*10(?:\^|[⁻⁺⁰¹²³⁴⁵⁶⁷⁸⁹])")
_MARKUP = str.maketrans("*`|", "   ")


def _markup_as_spaces(text: str) -> str:
    """Markdown's ``*``, backquote and ``|`` as spaces, except the ``*`` of a power of ten (``5.8*10^-6``)."""
    times = {m.start(1) for m in _TIMES_STAR.finditer(text)}
    return "".join("*" if i in times else ch for i, ch in enumerate(text.translate(_MARKUP)))


class ManuscriptError(OSError):
    """The manuscript cannot be read; the message names the file."""


@dataclass(frozen=True)
class Manuscript:
    """A manuscript as read: its ``text``, ``scan`` (what locators match: ``text`` normalised, offsets
    shared) and its numbers."""

    path: str
    text: str
    scan: str
    numbers: tuple[Number, ...]
    sha256: str
    markdown: bool = False  # Markdown markup (``*``, backquote, ``|``) reads as spaces, in locators too
    _sites: dict[str, list[Site]] = field(default_factory=dict, repr=False, compare=False)  # a cache

    @classmethod
    def read(cls, path: str | os.PathLike[str]) -> Manuscript:
        """Read a UTF-8 manuscript (plain text or Markdown). Raises ManuscriptError: the file is missing,
        unreadable, not a regular file, over :data:`claimcheck.fileio.MAX_INPUT_BYTES`, not UTF-8, or
        blank."""
        p = Path(path)
        try:
            raw = read_input_file(p)
            text = raw.decode("utf-8-sig")
        except OSError as exc:
            raise ManuscriptError(f"{p}: cannot read the manuscript: {exc.strerror or exc}") from None
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise ManuscriptError(
                f"{p}: the manuscript is not UTF-8: line {line}, byte 0x{raw[exc.start]:02x} "
                f"({exc.reason}); save it as UTF-8"
            ) from None
        if not text.strip():
            raise ManuscriptError(
                f"{p}: the manuscript is empty ({len(raw)} bytes, no text); is it the right file?"
            )
        markdown = p.suffix.lower() in (".md", ".markdown")
        return cls.from_text(text, str(p), markdown=markdown, sha256=hashlib.sha256(raw).hexdigest())

    @classmethod
    def from_text(
        cls, text: str, path: str = "<text>", markdown: bool = False, sha256: str = ""
    ) -> Manuscript:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        scan = normalise(text)
        if markdown:
            scan = _markup_as_spaces(scan)
        sha256 = sha256 or hashlib.sha256(text.encode()).hexdigest()
        return cls(path, text, scan, tuple(find_numbers(scan)), sha256, markdown)

    def locator_form(self, locator: str) -> str:
        """``locator`` as it is matched against ``scan`` (in Markdown, its markup as spaces, as the text's)."""
        return _markup_as_spaces(locator) if self.markdown else locator

    @cached_property
    def _line_starts(self) -> list[int]:
        return [m.end() for m in re.finditer("\n", self.text)]

    @cached_property
    def _number_bounds(self) -> tuple[list[int], list[int]]:
        return [n.start for n in self.numbers], [n.end for n in self.numbers]

    def numbers_between(self, lo: int, hi: int) -> tuple[Number, ...]:
        """The numbers that overlap ``[lo, hi)`` (end after ``lo``, start before ``hi``), in order."""
        starts, ends = self._number_bounds
        return self.numbers[bisect_right(ends, lo) : bisect_left(starts, hi)]

    def numbers_within(self, lo: int, hi: int) -> tuple[Number, ...]:
        """The numbers lying wholly inside ``[lo, hi]`` (``lo <= start`` and ``end <= hi``), in order."""
        return tuple(n for n in self.numbers_between(lo, hi) if lo <= n.start and n.end <= hi)

    @cached_property
    def number_starts(self) -> list[int]:
        """Offsets in ``scan`` where a locator that starts with a number can match."""
        return [m.start() for m in re.finditer(r"(?<![\d.,])\d", self.scan)]

    def line_of(self, offset: int) -> int:
        """1-based line number of a character offset."""
        return bisect_right(self._line_starts, offset) + 1

    def context(self, start: int, end: int, width: int = 14) -> str:
        """The text around ``[start, end)`` on its own line, the number marked as ``[...]``."""
        t = self.text
        ls, le = t.rfind("\n", 0, start) + 1, t.find("\n", end)
        le = len(t) if le < 0 else le
        a, b = max(ls, start - width), min(le, end + width)
        return f"{'…' if a > ls else ''}{t[a:start]}[{t[start:end]}]{t[end:b]}{'…' if b < le else ''}"


@dataclass(frozen=True)
class Site:
    """Where a locator matched: its span, line, and the spans of its numbers."""

    start: int
    end: int
    line: int
    groups: tuple[tuple[int, int], ...]


_LEADING_NUMBER = r"\s*(?<![\d.,])("  # how compile_locator starts a locator that starts with a number


def _matches(ms: Manuscript, regex: re.Pattern) -> Iterator[tuple[int, re.Match[str]]]:
    """``(start, match)`` of ``regex.finditer(ms.scan)``, tried only at number starts where it can match."""
    if not regex.pattern.startswith(_LEADING_NUMBER):
        yield from ((m.start(), m) for m in regex.finditer(ms.scan))
        return
    # matched at a run of digits' first digit, without the leading optional whitespace
    tail, scan, last_end = re.compile(regex.pattern[len(r"\s*") :]), ms.scan, 0
    for p in ms.number_starts:
        if p < last_end:
            continue
        m = tail.match(scan, p)
        if m is None:
            continue
        start = p
        while start > last_end and scan[start - 1].isspace():
            start -= 1
        yield start, m
        last_end = max(m.end(), p + 1)


def find_sites(ms: Manuscript, locator: str) -> list[Site]:
    """Every place the locator matches in the manuscript, numbers being wildcards (searched once)."""
    if locator not in ms._sites:
        regex = compile_locator(ms.locator_form(locator)).regex
        found = [(a, m, tuple(m.span(i) for i in range(1, regex.groups + 1))) for a, m in _matches(ms, regex)]
        ms._sites[locator] = [Site(a, m.end(), ms.line_of(g[0][0] if g else a), g) for a, m, g in found]
    return list(ms._sites[locator])


def one_site(ms: Manuscript, locator: str) -> bool:
    """Whether the locator matches exactly one place: :func:`find_sites` has one, found by stopping at
    the second match (a table of like rows matches every row, and a scan of the whole text for each of
    init's candidate locators made init quadratic). Raises ValueError: not a locator."""
    if locator in ms._sites:
        return len(ms._sites[locator]) == 1
    regex = compile_locator(ms.locator_form(locator)).regex
    return sum(1 for _ in islice(_matches(ms, regex), 2)) == 1


# --- drift ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class QuoteCheck:
    """One bound number of one claim: the registry's value against what the manuscript prints."""

    claim_id: str
    name: str  # "stated" or a key of the claim's values
    locator: str
    registry: str  # the registry's printed number ("" when the claim states none)
    status: str  # ok | drift | not-found | ambiguous | unbound | in-words | not-in-book (a citation's)
    manuscript: str | None = None  # the number as the manuscript prints it now
    line: int | None = None
    context: str = ""
    span: tuple[int, int] | None = None
    lines: tuple[int, ...] = ()  # every matching line (ambiguous)
    message: str = ""
    source: str = ""  # a citation's: the claim quoted (ch15:C10), ``registry`` being its figure

    def as_dict(self) -> dict:
        return asdict(self) | {"span": list(self.span) if self.span else None, "lines": list(self.lines)}


@dataclass(frozen=True)
class ClaimDrift:
    """The drift check of one claim: one :class:`QuoteCheck` per bound number (or locator)."""

    claim_id: str
    checks: tuple[QuoteCheck, ...]
    unit: str = ""  # the claim's, in which its stated value is printed
    formula: bool = False  # the claim's value is the chapter's arithmetic, not a measurement
    cites: str = ""  # the claim of another chapter it quotes (ch15:C10): no value of its own

    @property
    def status(self) -> str:
        return min((c.status for c in self.checks), key=_ORDER.index, default="ok")

    @property
    def failed(self) -> bool:
        return self.status in FAILING

    def problems(self) -> list[QuoteCheck]:
        return [c for c in self.checks if c.status in FAILING]

    def summary(self) -> str:
        """One line per failing quote: what, where, the manuscript's and the registry's values."""
        return "; ".join(c.message for c in self.problems()) or "ok"


def _bound_positions(numbers: Sequence[Number], printed: str) -> list[int]:
    """Positions of the locator's numbers bound to ``printed`` (see the registry docstring)."""
    hits = [i for i, n in enumerate(numbers) if printed and same_printed(printed, n)]
    return hits or ([0] if len(numbers) == 1 else [])


def check_quote(ms: Manuscript, claim_id: str, name: str, locator: str, printed: str) -> list[QuoteCheck]:
    """Check one (value name, locator) binding of a claim: one :class:`QuoteCheck` per bound number
    (``ok`` or ``drift``), or one saying why none is bound."""
    pattern = compile_locator(ms.locator_form(locator))
    sites = find_sites(ms, locator)
    quote = partial(QuoteCheck, claim_id=claim_id, name=name, locator=locator, registry=printed)
    where = f"{claim_id}: locator {locator_plain(locator)!r} ({name})"
    if not sites:
        hint = _near_miss(ms, pattern)
        why = f" as printed: {hint[1]}" if hint else ": the sentence was rewritten or removed"
        msg = f"{where} not found in the manuscript{why}"
        return [quote(status="not-found", line=hint[0] if hint else None, message=msg)]
    if len(sites) > 1:
        lines = tuple(s.line for s in sites)
        why = f"{where} matches lines {_lines_text(lines)}: lengthen it so it finds one place"
        return [quote(status="ambiguous", lines=lines, line=lines[0], message=why)]
    site = sites[0]
    if not pattern.numbers:
        status, context = "in-words" if printed else "ok", ms.context(site.start, site.end, 0)
        msg = f"{claim_id}: found on line {site.line}" + (
            f"; the chapter states {name} without digits" if printed else ""
        )
        return [quote(status=status, line=site.line, context=context, message=msg)]
    positions = _bound_positions(pattern.numbers, printed)
    if not positions:
        prints = ", ".join(n.text for n in pattern.numbers)
        why = f"{claim_id}: locator {locator_plain(locator)!r} prints {prints}; none is {name} = {printed}"
        return [quote(status="unbound", line=site.line, message=why)]
    checks = []
    for start, end in (site.groups[pos] for pos in positions):  # each bound number: ok, or drift
        shown, line, ctx = ms.text[start:end], ms.line_of(start), ms.context(start, end)
        now = find_numbers(ms.scan[start:end])
        same = bool(now) and now[0].end - now[0].start == end - start and same_printed(printed, now[0])
        message = (
            f"{claim_id}: line {line} prints {shown} = {name}"
            if same
            else f"{claim_id} drift on line {line}: the manuscript prints {shown}, the "
            f"registry has {name} = {printed} ({ctx})"
        )
        status = "ok" if same else "drift"
        checks.append(
            quote(status=status, manuscript=shown, line=line, context=ctx, span=(start, end), message=message)
        )
    return checks


# digits and the separators an edit may put inside a number; at most 48 characters, so that a line of
# "1 000 1 000 ..." costs each try a bounded backtrack, not the rest of the line (15 KB took minutes)
_LOOSE_NUMBER = r"(\d(?:[\d.,，、]|\s(?=\d)){0,47})"
_SEPARATORS = {
    "，": "a full-width comma separates clauses here",
    "、": "an enumeration comma separates items here",
    ",": "a ',' groups thousands only in threes",
    ".": "a number has one decimal point",
}


def _near_miss(ms: Manuscript, pattern: LocatorPattern) -> tuple[int, str] | None:
    """``(line, what was found)`` where the locator would match if its numbers held separators, or None."""
    loose = re.compile(pattern.regex.pattern.replace(f"({NUMBER_PATTERN})", _LOOSE_NUMBER))
    found = list(loose.finditer(ms.scan))
    if len(found) != 1:
        return None
    m = found[0]
    for g in range(1, (m.re.groups or 0) + 1):
        start, end = m.span(g)
        parts = find_numbers(ms.text[start:end], offset=start)
        if len(parts) < 2:
            continue
        between = ms.scan[parts[0].end : parts[1].start].strip() or " "
        other = "a space separates them" if between.isspace() else f"{between!r} separates them"
        why = _SEPARATORS.get(between[0], other)
        shown = ms.text[start:end]
        one = "".join(ch for ch in normalise(shown) if ch.isdigit() or ch == ".")
        read = " and ".join(p.text for p in parts)
        return ms.line_of(start), (
            f"line {ms.line_of(start)} prints {shown} where the locator has one number: "
            f"read {read}: {why}; write {one} for one number, or fix the locator"
        )
    return None


def check_claim(ms: Manuscript, claim: Claim) -> ClaimDrift:
    """Check every binding of one :class:`claimcheck.registry.Claim` against the manuscript."""
    checks = []
    for name, locator in claim.bindings():
        checks += check_quote(ms, claim.id, name, locator, claim.printed(name))
    return ClaimDrift(claim.id, tuple(checks), claim.unit or "", bool(claim.formula), claim.cites or "")


def citation_check(citation: Citation, claim: Claim, ms: Manuscript | None = None) -> QuoteCheck:
    """The drift check of a claim's ``cites`` (a :class:`claimcheck.book.Citation`): a quote of its
    ``stated`` against the source's figure, at the claim's locator in ``ms`` when it finds one place."""
    # the quote of its stated value, as a drift check binds it; its line when it finds one place
    checks = check_quote(ms, claim.id, "stated", claim.locator, claim.stated) if ms is not None else []
    bound = next((c for c in checks if c.span), None)
    shown, span = (bound.manuscript or "", bound.span) if bound else (claim.stated, None)
    line = checks[0].line if checks and checks[0].status not in ("not-found", "ambiguous") else None
    status = citation.status if citation.status in ("drift", "not-in-book", "ok", "in-words") else "unbound"
    where = f" on line {line}" if line else ""
    message = (f"{claim.id} drift{where}: " if citation.failed else f"{claim.id}{where}: ") + citation.words
    quote = partial(QuoteCheck, claim.id, "stated", claim.locator, citation.figure, status)
    return quote(manuscript=shown, line=line, span=span, message=message, source=citation.source)


def chapter_manuscript(registry: Registry) -> Manuscript | None:
    """The chapter's manuscript beside its registry (``[chapter] manuscript``), read; None when the
    registry names none or it cannot be read (a citation's line is then unknown)."""
    name = registry.chapter.get("manuscript")
    if not isinstance(name, str) or not name:
        return None
    with suppress(ManuscriptError):
        return Manuscript.read(Path(registry.path).parent / Path(name).name)
    return None


def citation_checks(
    registry: Registry, book: dict[str, Registry], ms: Manuscript | None = None
) -> dict[str, QuoteCheck]:
    """claim id -> the drift check of its citation, for every claim of ``registry`` with ``cites``,
    against ``book`` (chapter id -> registry); lines from ``ms``, else the chapter's own manuscript."""
    citing = [c for c in registry.claims.values() if c.cites]
    if not citing:
        return {}
    ms = ms if ms is not None else chapter_manuscript(registry)
    return {c.id: citation_check(cite(c, book), c, ms) for c in citing}


# --- audit ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Piece:
    """One number of the manuscript, as the audit counts it, and what accounts for it."""

    text: str
    start: int
    end: int
    line: int
    status: str  # bound | waived | unbound
    by: tuple[str, ...]  # claim ids (bound) or waiver labels (waived)
    context: str

    def as_dict(self) -> dict:
        fields = ("text", "line", "status", "by", "context")
        return {k: list(self.by) if k == "by" else getattr(self, k) for k in fields}


@dataclass
class Audit:
    """Every number of the manuscript, bound, waived or not; and the waivers' problems."""

    pieces: list[Piece]
    problems: list[str] = field(default_factory=list)  # waivers not found / ambiguous: fail
    warnings: list[str] = field(default_factory=list)  # waived numbers that changed

    @property
    def total(self) -> int:
        return len(self.pieces)

    def count(self, status: str) -> int:
        return sum(p.status == status for p in self.pieces)

    @property
    def coverage(self) -> float:
        """(bound + waived) / all numbers; 1.0 for a manuscript without numbers."""
        return 1.0 if not self.pieces else (self.total - self.count("unbound")) / self.total

    @property
    def failed(self) -> bool:
        return self.coverage < 1.0 or bool(self.problems)

    def unbound(self) -> list[Piece]:
        return [p for p in self.pieces if p.status == "unbound"]


@dataclass(frozen=True)
class _Cover:
    start: int
    end: int
    kind: str  # bound | waived
    label: str


#: the most line numbers a message lists (a locator that matches 20,000 places listed them all)
MAX_LINES_SHOWN = 10


def _lines_text(lines: Sequence[int]) -> str:
    """``1, 4, 9``: the line numbers of a locator's places, the first :data:`MAX_LINES_SHOWN` and
    then how many places in all."""
    shown = ", ".join(map(str, lines[:MAX_LINES_SHOWN]))
    return shown if len(lines) <= MAX_LINES_SHOWN else f"{shown}, … ({len(lines):,} places)"


def _waiver_covers(ms: Manuscript, waiver: Waiver, problems: list, warnings: list) -> list[_Cover]:
    sites = find_sites(ms, waiver.locator)
    where = f"{waiver.label} ({locator_plain(waiver.locator)!r}: {waiver.reason})"
    if not sites:
        problems.append(f"{where}: locator not found in the manuscript")
        return []
    if len(sites) > 1:
        problems.append(f"{where}: locator matches lines {_lines_text([s.line for s in sites])}: lengthen it")
        return []
    site = sites[0]
    if waiver.numbers is not None:
        now = [ms.text[a:b] for a, b in site.groups]
        expected = list(waiver.numbers)
        ok = len(now) == len(expected) and all(same_printed(e, n) for e, n in zip(expected, now))
        if not ok:
            warnings.append(
                f"{where}: line {site.line} now prints {', '.join(now) or 'no number'}, the waiver "
                f"lists {', '.join(expected) or 'none'}: is it still not a claim?"
            )
    covers = [_Cover(a, b, "waived", waiver.label) for a, b in site.groups]
    if waiver.until:
        after = [s for s in find_sites(ms, waiver.until) if s.start >= site.end]
        if not after:
            end = locator_plain(waiver.until)
            problems.append(f"{where}: its end {end!r} is not found after line {site.line}")
        else:
            covers.append(_Cover(site.start, after[0].end, "waived", waiver.label))
    return covers


def audit_numbers(ms: Manuscript, drifts: list[ClaimDrift], waivers: Iterable[Waiver]) -> Audit:
    """Every number of the manuscript bound by a claim, waived, or unbound; a number that bindings
    split (``256¦8.41``) counts as its pieces."""
    problems: list[str] = []
    warnings: list[str] = []
    covers = [_Cover(*c.span, "bound", c.claim_id) for d in drifts for c in d.checks if c.span is not None]
    for w in waivers:
        covers += _waiver_covers(ms, w, problems, warnings)
    covers.sort(key=lambda c: c.start)
    pieces: list[Piece] = []
    # a sweep in text order: the covers begun before this number and not ended before it
    over: list[_Cover] = []
    nxt = 0
    for num in ms.numbers:
        while nxt < len(covers) and covers[nxt].start < num.end:
            over.append(covers[nxt])
            nxt += 1
        over = [c for c in over if c.end > num.start]
        inner = {e for c in over for e in (c.start, c.end) if num.start < e < num.end}
        edges = sorted({num.start, num.end} | inner)
        for a, b in zip(edges, edges[1:]):
            text = ms.text[a:b]
            if not any(ch.isdigit() for ch in normalise(text)):
                continue
            inside = [c for c in over if c.start <= a and c.end >= b]
            bound = sorted({c.label for c in inside if c.kind == "bound"})
            waived = sorted({c.label for c in inside if c.kind == "waived"})
            status = "bound" if bound else "waived" if waived else "unbound"
            by = tuple(bound or waived)
            pieces.append(Piece(text.strip(), a, b, ms.line_of(a), status, by, ms.context(a, b)))
    return Audit(pieces, problems, warnings)


# --- the whole check --------------------------------------------------------------------------
@dataclass
class ManuscriptCheck:
    """Drift of every claim and the number audit of one manuscript against one registry."""

    manuscript: Manuscript
    registry_path: str
    drifts: list[ClaimDrift]
    audit: Audit
    registry_issues: list[str]
    seconds: float
    chapter: str = ""  # the registry's chapter id (claims are keyed chapter:id)

    def drift_for(self, claim_id: str) -> ClaimDrift | None:
        return next((d for d in self.drifts if d.claim_id == claim_id), None)

    @property
    def drifted(self) -> list[ClaimDrift]:
        return [d for d in self.drifts if d.failed]

    @property
    def ok(self) -> bool:
        return not self.drifted and not self.audit.failed and not self.registry_issues

    def as_dict(self) -> dict:
        """The JSON form (``claims.json``'s ``manuscript`` section; ``check-manuscript --json``)."""
        a = self.audit
        return {
            "path": self.manuscript.path,
            "sha256": self.manuscript.sha256,
            "registry": self.registry_path,
            "chapter": self.chapter,
            "ok": self.ok,
            "drift": {
                "claims": len(self.drifts),
                "failed": [d.claim_id for d in self.drifted],
                "quotes": sum(len(d.checks) for d in self.drifts),
            },
            "audit": {
                "numbers": a.total,
                **{status: a.count(status) for status in ("bound", "waived", "unbound")},
                "coverage": round(a.coverage, 4),
                "unbound_numbers": [p.as_dict() for p in a.unbound()],
                "problems": a.problems,
                "warnings": a.warnings,
            },
            "registry_issues": self.registry_issues,
            "seconds": round(self.seconds, 3),
        }


def check_manuscript(
    manuscript: Manuscript | str | os.PathLike[str],
    registry: Registry,
    book: dict[str, Registry] | None = None,
) -> ManuscriptCheck:
    """Run the drift check of every valid claim of ``registry`` and the number audit of ``manuscript`` (a
    :class:`Manuscript` or a path); with ``book`` (chapter id -> registry), the citations too. Raises
    ManuscriptError: the manuscript cannot be read."""
    t0 = time.perf_counter()
    ms = manuscript if isinstance(manuscript, Manuscript) else Manuscript.read(manuscript)
    drifts = [check_claim(ms, c) for c in registry.claims.values()]
    audit = audit_numbers(ms, drifts, registry.waivers)
    cited = citation_checks(registry, book, ms) if book is not None else {}
    drifts = [
        replace(d, checks=d.checks + (cited[d.claim_id],)) if d.claim_id in cited else d for d in drifts
    ]
    issues, seconds = [str(i) for i in registry.issues], time.perf_counter() - t0
    chapter = getattr(registry, "chapter_id", "")
    return ManuscriptCheck(ms, registry.path, drifts, audit, issues, seconds, chapter)


def drift_record(drift: ClaimDrift, ms: Manuscript) -> dict:
    """The ``details["drift"]`` entry of a claim's report row."""
    return {"manuscript": ms.path, "status": drift.status, "quotes": [c.as_dict() for c in drift.checks]}


def drift_words(entry: ClaimEntry) -> list[str]:
    """The one wording of drift: one line per failing quote of the entry's drift check ("line 54: the
    text says 38 KiB/token, the registry 36 KiB/token, measured 36 KiB/token"); [] when it held or
    did not run."""
    drift = entry.drift
    if drift is None:
        return []
    unit = entry.unit
    measured = drift.measured or format_value(entry.measured, unit)
    out = []
    for q in drift.quotes:
        if not q.failing:
            continue
        if q.status != "drift" and not q.source:
            out.append(q.message or q.status)
            continue
        line = f"line {q.line}: " if q.line else ""
        stated = q.name == "stated"  # a citation's quote (q.source) is of its stated value
        text, reg = quoted_figures(q, unit)
        if q.source:  # a citation: the quote against the chapter it quotes
            said = f"quoting {q.source}, which says {q.registry}: drifted from {q.source}"
            out.append(f"{line}the text says {text}, {said}")
            continue
        what = "" if stated else f" ({q.name})"
        said = (
            "the chapter's arithmetic gives" if entry.formula else "measured"
        )  # a formula's is no measurement
        here = f", {said} {measured}" if stated and measured else ""
        out.append(f"{line}the text says {text}{what}, the registry {reg}{here}")
    return out


def quoted_figures(quote: QuoteCheck | Quote, unit: str | None) -> tuple[str, str]:
    """``(the text's figure, the registry's)`` of one quote as every report prints them: of a stated
    value, each with the claim's ``unit`` (``38 KiB/token``; the text's own sign kept as printed,
    ``99.2%``, not doubled); of an input, as printed."""
    text = quote.manuscript or ""
    if quote.name != "stated":
        return text, quote.registry
    return with_unit(text, unit) if text[-1:].isdigit() else text, with_unit(quote.registry, unit)
