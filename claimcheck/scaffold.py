"""``claimcheck init``: draft the claims registry of a new chapter from its manuscript.

Every number of the manuscript becomes a **draft claim** (``draft = true``: the value as printed, a
guessed unit, the shortest locator that is found in one place only and binds it; the same value, unit
and counted noun again is a quote of the first draft, a printed formula ``a × b = c`` one draft of
``c`` with its operands as ``values``, a table row one draft with its other cells as ``values``) or a
**suggested waiver** (chapter and section numbers, cross-references, dates, ordinals, file names,
``t+1``, fractions the registry cannot bind, code). Drafts are grouped by the manuscript's headings,
so the scaffold passes ``validate`` and ``check-manuscript`` at 100% coverage. Deterministic.
"""

from __future__ import annotations

import dataclasses
import re
import textwrap
import tomllib
import unicodedata
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import suppress
from dataclasses import dataclass, field
from functools import partial
from importlib.resources import files
from itertools import accumulate
from pathlib import Path

from claimcheck.fields import MAX_LOCATOR, comment_lines, toml_value
from claimcheck.manuscript import Manuscript, Site, check_quote, find_sites, one_site
from claimcheck.printed import Number
from claimcheck.units import UnitError, parse_unit

Span = tuple[int, int]
"""``(start, end)`` offsets of a part of the manuscript's text."""

SUGGESTED = "suggested: "
"""How the reason of a waiver that ``claimcheck init`` suggested begins (review it, then drop the prefix)."""

WORDS = tomllib.loads(files("claimcheck").joinpath("scaffold_words.toml").read_text(encoding="utf-8"))
"""The words read around a number (claimcheck/scaffold_words.toml, package data): unit words, counted
nouns, classifiers, and the words that say a number is no claim."""


def _either(name: str) -> str:
    """A regular expression of any word of ``WORDS[name]`` (escaped; the longest first)."""
    return "|".join(sorted(map(re.escape, WORDS[name]), key=len, reverse=True))


_CJK_UNITS: dict[str, str] = WORDS["cjk_units"]
_CJK_COUNTS: list[str] = WORDS["cjk_counts"]
_CJK_WORDS = sorted([*_CJK_UNITS, *_CJK_COUNTS], key=len, reverse=True)  # longest first: 元素 before 元
_CLASSIFIERS: list[str] = WORDS["classifiers"]
_LATIN_UNITS: dict[str, str] = WORDS["latin_units"]
_LATIN_UNIT = _either("latin_units")
# a unit word, or a ratio of them ("KiB/token"), that no lower-case letter continues: a table's
# cells may glue it to the next word ("token/sKV 缓存"), but "5 sets" is no "s"
_LATIN_WORD = re.compile(rf"(?:{_LATIN_UNIT})(?:/(?:{_LATIN_UNIT}))*(?![a-z])")
# a ratio in words after a unit word: "FLOPs per parameter", "bytes of cache per token" (up to
# three words of what is counted between)
_PER_WORD = re.compile(rf"(?:[ \t]+of(?:[ \t]+[A-Za-z-]+){{1,3}}?)?[ \t]+per[ \t]+({_LATIN_UNIT})(?![a-z])")
# a ratio's sign glued to its number ("60×"); "2×12" or "2 × 12" is a product, not a unit
_TIMES_SIGN = re.compile(r"×(?![ \t]*\d)")
_SHARED_UNIT = re.compile(rf"\s*(?:{_either('shared_joiners')})\s*(?:[^\d\s。；，,.]{{1,2}}\s*)?(?=\d)")
_RANGE = _either("range_joiners")

_CHAPTER = rf"(?:{_either('chapter_before')}|(?<![A-Za-z])(?:{_either('chapter_before_latin')}))"
_CHAPTER_BEFORE = re.compile(rf"{_CHAPTER}\s*$", re.I)
_DEPTH_BEFORE = re.compile(rf"(?:{_either('depth_before')})\s*$", re.I)
_FILE_AFTER = re.compile(rf"\.(?:{_either('file_suffixes')})\b")
_SYMBOLIC_BEFORE = re.compile(r"(?<![A-Za-z])[A-Za-z]\s*[-+−]\s*$")  # the 1 of "t+1", "n-1"
_CHAPTER_AFTER = re.compile(rf"\s*(?:{_either('chapter_after')})")
_DATE_AFTER = re.compile(rf"\s*(?:{_either('date_after')})")
_YEAR_BEFORE = re.compile(rf"\b(?:{_either('year_before')})\s*$|(?:{_either('months')})\.?\s*$", re.I)
_LIST_AFTER = re.compile(r"[.)、]\s")
_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t]*#*[ \t]*$")
_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"`[^`\n]+`")
_IN_WORD = re.compile(r"\w\w", re.A)  # between two characters of a Latin word
# a line of (Python-like) code in a plain-text manuscript, which has no fences
_CODE_LINE = re.compile(
    r"^\s*(?:import\s+\w|from\s+[\w.]+\s+import\s|def\s+\w+\s*\(|class\s+\w+|"
    r"(?:for|while|with|if|elif)\b[^\n]*:\s*(?:#[^\n]*)?$|else\s*:|try\s*:|except\b|return\b|"
    r"print\(|@\w|[A-Za-z_][\w.]*(?:\[[^\]\n]*\])?(?:\s*,\s*[A-Za-z_][\w.]*)*\s*[-+*/]?=[^=])"
)


@dataclass(frozen=True)
class DraftSection:
    """One heading of the manuscript: a ``[[sections]]`` entry."""

    id: str
    title: str
    heading: str  # a short locator of the heading ("" when none is unique)
    start: int  # offset of the heading line


@dataclass(frozen=True)
class DraftClaim:
    """A number of the manuscript as a draft claim."""

    id: str
    section: str | None
    number: Number
    stated: str
    unit: str
    locator: str
    note: str = ""
    problem: str = ""  # why the locator does not bind the number (the editor must fix it)
    quotes: tuple[str, ...] = ()  # further places that print the same value and unit
    formula: str = ""  # the arithmetic the manuscript prints for it ("70 亿 × 4 B = 28 GB")
    values: tuple[tuple[str, str, str], ...] = ()  # (name, printed, locator) of that arithmetic's operands
    proposal: str = ""  # a formula over those names ("a * b"), for the editor to complete with units


@dataclass(frozen=True)
class DraftWaiver:
    """Numbers of the manuscript that are not claims, as a suggested waiver."""

    section: str | None
    locator: str
    reason: str
    numbers: tuple[str, ...] | None = None
    until: str | None = None
    problem: str = ""


@dataclass
class Scaffold:
    """The draft registry of one manuscript: sections, draft claims, suggested waivers."""

    manuscript: Manuscript
    name: str
    chapter: dict
    sections: list[DraftSection] = field(default_factory=list)
    claims: list[DraftClaim] = field(default_factory=list)
    waivers: list[DraftWaiver] = field(default_factory=list)

    @property
    def problems(self) -> list[str]:
        """Numbers the scaffold could not locate uniquely (each a line for the editor)."""
        return [p for p in [c.problem for c in self.claims] + [w.problem for w in self.waivers] if p]

    def to_toml(self) -> str:
        """The registry file's text (TOML), with comments for the editor."""
        registry = f"claims/{self.name}/claims.toml"
        header = HEADER.format(**self.chapter, registry=registry, manuscript_path=self.manuscript.path)
        out = [header, *comment_lines(), "", "[chapter]", *_assignments(self.chapter)]
        if self.sections:
            out += ["", *WORDS["sections_comment"].splitlines()]
        for s in self.sections:
            section = dict(id=s.id, title=s.title, heading=s.heading or None)
            out += ["", "[[sections]]", *_assignments(section)]
        out += self._claims_toml()
        if self.waivers:
            out += ["", "# --- numbers that are not claims (suggested waivers) " + "-" * 30]
            for w in self.waivers:
                out.append("[[waivers]]")
                if w.problem:
                    out.append(f"# FIXME {w.problem}")
                table = dict(locator=w.locator, until=w.until or None, numbers=w.numbers, reason=w.reason)
                out += [*_assignments(table), ""]
        return "\n".join(out).rstrip() + "\n"

    def _claims_toml(self) -> list[str]:
        """``[defaults]`` (the shared guesses, the commonest unit) and ``[claims]``, a line per draft."""
        units = Counter(c.unit for c in self.claims).most_common(1)
        unit = units[0][0] if units and units[0][1] > 1 else None
        out = ["", "# Guesses every draft shares; a claim's own field replaces one.", "[defaults]"]
        out += [*_assignments(dict(unit=unit, tolerance="printed", needs=["text"])), "", "[claims]"]
        titles: dict[str | None, str] = {s.id: s.title for s in self.sections}
        for i, c in enumerate(self.claims):
            if not i or c.section != self.claims[i - 1].section:
                out += ["", f"# --- {titles.get(c.section, 'no heading')} " + "-" * 40]
            if c.problem:
                out.append(f"# FIXME {c.problem}")
            if c.formula:
                comment = WORDS["formula_comment"].format(formula=c.formula, proposal=toml_value(c.proposal))
                out += comment.splitlines()
            elif c.values:
                out.append("# a table row: its other cells are `values` (name them; each has its own unit)")
            quotes = ({"stated": c.quotes} if c.quotes else {}) | {name: loc for name, _, loc in c.values}
            fields = {
                "title": f"{c.number.text.strip()} (line {c.number.line})",
                "stated": c.stated,
                "unit": c.unit if c.unit != unit else None,
                "locator": c.locator,
                "values": {name: v for name, v, _ in c.values} or None,
                "quotes": quotes or None,
                "section": c.section or None,
                "note": c.note or None,
                "draft": True,
            }
            out.append(f"{c.id} = {toml_value({k: v for k, v in fields.items() if v is not None})}")
        return out


# --- the manuscript's structure ----------------------------------------------------------------
def _lines(text: str) -> Iterator[tuple[int, str]]:
    """(start offset, line without newline) of every line."""
    return ((m.start(), m.group()) for m in re.finditer(r"^.*", text, re.M))


def code_regions(ms: Manuscript) -> tuple[list[Span], list[Span], list[tuple[int, int, str]]]:
    """``(blocks, inline, headings)``: the sorted ``(start, end)`` of code blocks (fenced; in plain text,
    two or more lines that look like code) and of inline code outside them, and the Markdown headings
    outside them, ``(line start, line end, heading text)``."""
    blocks = [] if ms.markdown else _plain_code_blocks(ms.text)
    heads = []
    fence, start = None, 0
    for pos, line in _lines(ms.text):
        m = _FENCE.match(line)
        if fence is None and m:
            fence, start = m.group(1)[0] * 3, pos + len(line) + 1
        elif fence is not None and line.strip().startswith(fence):
            blocks.append((start, max(start, pos - 1)))
            fence = None
        elif fence is None and (h := _HEADING.match(line)) and not any(a <= pos < b for a, b in blocks):
            heads.append((pos, pos + len(line), h.group(2).strip()))
    if fence is not None:  # an unclosed fence runs to the end
        blocks.append((start, len(ms.text)))
    inline = [
        m.span() for m in _INLINE_CODE.finditer(ms.text) if not any(a <= m.start() < b for a, b in blocks)
    ]
    return sorted(blocks), inline, heads


def _plain_code_blocks(text: str) -> list[Span]:
    runs: list[list[tuple[int, str]]] = [[]]  # runs of lines that may be a block: (start offset, line)
    for pos, line in _lines(text):
        code = bool(_CODE_LINE.match(line)) and line.lstrip()[:1].isascii()
        if code or (runs[-1] and (not line.strip() or line[:1] in " \t")):
            runs[-1].append((pos, line))
        elif runs[-1]:
            runs.append([])
    out = []
    for run in runs:
        while run and not run[-1][1].strip():
            run.pop()
        if sum(1 for _, line in run if _CODE_LINE.match(line)) >= 2:
            out.append((run[0][0], run[-1][0] + len(run[-1][1])))
    return out


def _slug(text: str, taken: set[str], n: int) -> str:
    """A section id of a heading: its Latin words and digits joined by ``-``, at most 30 characters
    cut at a word boundary (a first word that long is cut), else ``s{n}``; ``-2``... when taken."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    base = f"s{n}"
    if any(ch.isalpha() for ch in "".join(words)):
        fit = textwrap.shorten(" ".join(words), 30, placeholder="", break_long_words=False)
        base = fit.replace(" ", "-") or words[0][:30]
    slug, k = base, 2
    while slug in taken:
        slug, k = f"{base}-{k}", k + 1
    taken.add(slug)
    return slug


# --- what a number is ---------------------------------------------------------------------------
def _line_bounds(scan: str, pos: int) -> Span:
    a = scan.rfind("\n", 0, pos) + 1
    b = scan.find("\n", pos)
    return a, len(scan) if b < 0 else b


def waiver_reason(ms: Manuscript, num: Number, heading: bool = False) -> str | None:
    """Why ``num`` is probably not a claim (a chapter number, a date, an ordinal...), or None."""
    a, b = _line_bounds(ms.scan, num.start)
    before, after = ms.scan[a : num.start], ms.scan[num.end : b]
    integer = num.mantissa.isdigit() and num.exponent is None and not num.scale
    if integer and (_CHAPTER_AFTER.match(after) or _CHAPTER_BEFORE.search(before)):
        return "a chapter or section number (or a cross-reference to one)"
    if before.rstrip().endswith("第") and integer:
        return "an ordinal (第 N)"
    if _DEPTH_BEFORE.search(before) and (integer or num.is_fraction):
        return "a chapter label: its place in the book or a course (N of M)"
    if integer and _FILE_AFTER.match(after):
        return "part of a file name"
    if integer and _SYMBOLIC_BEFORE.search(before):
        return "a symbolic position (t+1), not a quantity"
    year = integer and len(num.mantissa) == 4 and 1900 <= int(num.mantissa) <= 2100
    if (integer and _DATE_AFTER.match(after)) or (
        year and (_YEAR_BEFORE.search(before) or re.match(r"[-/]\d{1,2}\b", after))
    ):
        return "a date"
    if integer and _LIST_AFTER.match(after) and not before.strip(" #>*-"):
        return "a section number" if heading else "a list ordinal"
    if heading:
        return "a number in a heading (a title names the section; the claim is made in its text)"
    if num.is_fraction and not num.mantissa.startswith("1/"):
        return (
            f"a fraction ({num.mantissa}): a registry value cannot bind it (only a unit fraction 1/N binds "
            "the ratio N); quote it in a claim's note if it is one"
        )
    return None


def unit_words(ms: Manuscript, num: Number, shared: bool = True) -> tuple[str, str, int]:
    """``(unit, noun, length)``: the registry unit the words after ``num`` name, else the noun counted
    (``3 个字符``: ``("", "字符")``), and how many characters after ``num.end`` they span. With
    ``shared``, a number joined to the next (``读 5947 / 98 token/s``) takes its unit, length 0."""
    after = ms.scan[num.end : num.end + 48]
    if _TIMES_SIGN.match(after):
        return "x", "", 1
    text = after.lstrip(" \t")
    classifier = next((c for c in _CLASSIFIERS if text.startswith(c)), "")
    if classifier:
        text = text[len(classifier) :].lstrip(" \t")
    skipped = len(after) - len(text)
    for word in _CJK_WORDS:
        if text.startswith(word):
            return _CJK_UNITS.get(word, ""), "" if word in _CJK_UNITS else word, skipped + len(word)
    m = _LATIN_WORD.match(text)
    if m:
        unit, end = "/".join(_LATIN_UNITS[p] for p in m.group(0).split("/")), m.end()
        per = None if "/" in unit else _PER_WORD.match(text, end)
        if per is not None:
            unit, end = f"{unit}/{_LATIN_UNITS[per.group(1)]}", per.end()
        return unit, "", skipped + end
    if classifier:  # a bare classifier names no noun: a count
        return "", "", len(after) - len(after.lstrip(" \t")) + len(classifier)
    joint = _SHARED_UNIT.match(after) if shared else None
    if joint is not None:
        nxt = ms.numbers_between(num.end, num.end + 32)
        if nxt and nxt[0].start == num.end + joint.end() and nxt[0].line == num.line:
            return unit_words(ms, nxt[0], shared=False)[0], "", 0
    return "", "", 0


def guess_unit(ms: Manuscript, num: Number) -> tuple[str, str]:
    """The registry unit a number's context suggests (``percent``, ``"亿 param"``), and a note for the
    editor ("" when none)."""
    if num.scale == "%":
        return "percent", ""
    unit, word, _ = unit_words(ms, num)
    note = f'counts {word}: the registry has no unit for it ("" = a count)' if word in _CJK_COUNTS else ""
    if num.scale in ("万", "亿", "万亿"):
        unit = f"{' '.join(num.scale)} {unit}".strip()
    elif num.scale in ("K", "M"):
        note = f"printed with {num.scale} (x{1000 if num.scale == 'K' else 10**6:,}): write the unit that scale stands for"
    if num.is_fraction:
        unit = "x"
        note = f"printed as {num.mantissa}: registered as the ratio {num.mantissa[2:]}"
    try:
        parse_unit(unit)
    except UnitError:
        unit = ""
    return unit, note


# --- locators -----------------------------------------------------------------------------------
def _cuts(ms: Manuscript, lo: int, hi: int) -> list[int]:
    """Positions in [lo, hi] where a locator may begin or end: not inside a number or a Latin word."""
    s = ms.scan
    inside = {p for n in ms.numbers_between(lo, hi) for p in range(n.start + 1, n.end)}
    return [p for p in range(lo, hi + 1) if p not in inside and not (p and _IN_WORD.match(s, p - 1, p + 1))]


def _locator_text(ms: Manuscript, a: int, b: int) -> str:
    """The window's text as printed, each run of whitespace as one space, stripped."""
    return " ".join(ms.text[a:b].split())


def _repeated(ms: Manuscript, a: int, b: int) -> bool:
    """Whether ``scan[a:b]`` is printed again elsewhere between the same two characters (not unique)."""
    s = ms.scan
    if not 0 < a < b < len(s):  # at an end of the text, no other place has the same surroundings
        return False
    q = s.find(s[a - 1 : b + 1])  # q + 1: where the other print of scan[a:b] starts
    while q != -1 and a < q + 1 + b - a and q + 1 < b:
        q = s.find(s[a - 1 : b + 1], q + 1)
    return q != -1


MIN_CONTEXT = 4
"""Characters of context (not space, not digits of a number) a locator should have: a shorter one
that is unique today is cryptic to an editor and turns ambiguous at the next edit."""


def find_locator(
    ms: Manuscript, start: int, end: int, accept: Callable[[str], bool], lo: int = 0, hi: int | None = None
) -> str | None:
    """The shortest locator (<= MAX_LOCATOR characters) of a window holding ``[start, end)`` that
    ``accept(locator)`` takes, or None: :data:`MIN_CONTEXT` first, an end at a punctuation mark counts 2
    more, the span's line before the lines around it, within ``[lo, hi)``."""
    base, top = max(start - 3 * MAX_LOCATOR, 0), min(end + 3 * MAX_LOCATOR, len(ms.scan))
    digits = {p for n in ms.numbers_between(base, top) for p in range(n.start, n.end)}
    # counted[p - base]: characters of context (not a digit of a number, not space) in [base, p)
    context = (p not in digits and not ms.scan[p].isspace() for p in range(base, top))
    counted = list(accumulate(context, initial=0))
    tried = set()
    walls = _cell_walls(ms, base, top)
    wall_a = max((w for w in walls if w <= start), default=0)
    wall_b = min((w for w in walls if w >= end), default=len(ms.scan))
    line_a, line_b = _line_bounds(ms.scan, start)
    prev_a = _line_bounds(ms.scan, line_a - 1)[0] if line_a > 0 else line_a
    next_b = _line_bounds(ms.scan, line_b + 1)[1] if line_b < len(ms.scan) else line_b
    for a_lim, b_lim in ((line_a, max(line_b, end)), (prev_a, next_b)):
        a_lim = max(a_lim, start - 3 * MAX_LOCATOR, lo)
        b_lim = min(b_lim, end + 3 * MAX_LOCATOR, len(ms.scan) if hi is None else hi)
        candidates = []
        ends = _cuts(ms, end, min(b_lim, wall_b))
        for a in _cuts(ms, max(a_lim, wall_a), start):
            for b in ends:  # ascending: the text only grows, so the first one too long ends the row
                text = _locator_text(ms, a, b)
                if len(text) > MAX_LOCATOR:
                    break
                if text and text not in tried:
                    few = counted[b - base] - counted[a - base] < MIN_CONTEXT
                    marks = sum(unicodedata.category(ch)[0] in "PS" for ch in (text[0], text[-1]))
                    # enough context first, then shortest; at a tie, more context before the number
                    candidates.append((few, len(text) + 2 * marks, b - end, text, a, b))
                    tried.add(text)
        for *_, text, a, b in sorted(candidates):
            if "¦" in text or _repeated(ms, a, b):  # printed again as it is: never found in one place
                continue
            try:
                if accept(text):
                    return text
            except ValueError:  # not a locator compile_locator accepts
                continue
    return None


def _cell_walls(ms: Manuscript, lo: int, hi: int) -> list[int]:
    """Where a cell of a glued header or table ends in ``[lo, hi)``: right after a Latin unit word
    glued to the next cell's first word, a CJK character or a capital (``50257 个 token英文...``,
    ``98 token/sKV 缓存``). Prose spaces a Latin word off; a locator never runs across such a wall."""
    out = []
    for n in ms.numbers_between(lo, hi):
        unit, _, length = unit_words(ms, n, shared=False)
        p = n.end + length
        if not unit or not length or p >= len(ms.scan) or not ms.scan[p - 1].isascii():
            continue
        nxt = ms.scan[p]
        if nxt.isupper() and nxt.isascii() or "\u4e00" <= nxt <= "\u9fff":
            out.append(p)
    return out


def _binds(ms: Manuscript, num: Number, locator: str) -> bool:
    """Whether ``locator`` finds one place and binds ``num`` there."""
    if not one_site(ms, locator):  # most candidates: stop at the second place, not at the text's end
        return False
    checks = check_quote(ms, "draft", "stated", locator, _stated_of(num))
    return all(c.status == "ok" for c in checks) and any(c.span == num.span for c in checks)


def _heading_locator(ms: Manuscript, a: int, b: int) -> str:
    """A heading's text cut to MAX_LOCATOR at a word boundary, when found in one place only; else the
    same with its ``#`` marks (``## FLOPs per token``, a heading whose words the text prints again);
    else ""."""
    m = re.match(r"#{1,6}[ \t]+", ms.scan[a:b])
    start = a + (m.end() if m else 0)
    cuts = [p for p in _cuts(ms, start, b) if p > start]
    for begin in dict.fromkeys((start, a)):
        fits = [text for end in cuts if len(text := _locator_text(ms, begin, end)) <= MAX_LOCATOR]
        with suppress(ValueError):  # not a locator compile_locator accepts
            if fits and len(find_sites(ms, fits[-1])) == 1:  # the longest that fits
                return fits[-1]
    return ""


def _fallback_locator(ms: Manuscript, num: Number) -> str:
    """A locator of the number's line around it (for the editor to fix when no unique one exists)."""
    a, b = _line_bounds(ms.scan, num.start)
    room = max(0, MAX_LOCATOR - (num.end - num.start))
    a = max(a, num.start - room // 2)
    b = min(b, num.end + room - (num.start - a))
    cuts_a = _cuts(ms, a, num.start) or [num.start]
    cuts_b = _cuts(ms, num.end, b) or [num.end]
    return _locator_text(ms, cuts_a[0], cuts_b[-1])[:MAX_LOCATOR]


# --- the scaffold -------------------------------------------------------------------------------
def scaffold(ms: Manuscript, name: str, prefix: str = "C") -> Scaffold:
    """The draft registry of ``ms`` for chapter ``name``, claim ids ``{prefix}01``... (module doc).
    Raises ValueError: ``prefix`` is not capital Latin letters."""
    if not re.fullmatch(r"[A-Z]+", prefix or ""):
        raise ValueError(f"claim id prefix {prefix!r}: use capital Latin letters such as 'C' (ids like C01)")
    blocks, inline, heads = code_regions(ms)
    chapter_id = re.sub(r"[^a-z0-9_-]+", "-", name.lower()).strip("-_")
    chapter_id = chapter_id if re.match(r"[a-z]", chapter_id or "") else f"ch-{chapter_id or 'new'}"
    # zh when Chinese characters make up a tenth or more of the letters
    han, latin = len(re.findall(r"[\u4e00-\u9fff]", ms.text)), len(re.findall(r"[A-Za-z]", ms.text))
    language = "zh" if han and han >= 0.1 * (han + latin) else "en"
    title = heads[0][2] if heads else name
    chapter = dict(id=chapter_id, title=title, language=language, manuscript=Path(ms.path).name)
    sc = Scaffold(ms, name, chapter)
    taken: set = set()
    for n, (a, b, text) in enumerate(heads, start=1):
        sc.sections.append(DraftSection(_slug(text, taken, n), text, _heading_locator(ms, a, b), a))
    if heads and any(x.start < heads[0][0] for x in ms.numbers):
        sc.sections.insert(0, DraftSection(_slug("front", taken, 0), "before the first heading", "", 0))
    _Drafter(ms, sc, blocks, inline, [(a, b) for a, b, _ in heads], prefix).draft()
    return sc


def _stated_of(num: Number) -> str:
    """A number's registry value: as printed, a unit fraction ``1/N`` as ``N``."""
    return num.mantissa[2:] if num.is_fraction and num.mantissa.startswith("1/") else num.printed


class _Drafter:
    """One scaffold's drafting: what each number is, what is covered, the drafts by value and unit."""

    def __init__(
        self,
        ms: Manuscript,
        sc: Scaffold,
        blocks: list[Span],
        inline: list[Span],
        heads: list[Span],
        prefix: str,
    ) -> None:
        """``blocks``, ``inline``, ``heads``: the sorted spans of code blocks, inline code, headings."""
        self.ms, self.sc, self.prefix = ms, sc, prefix
        self.width = max(2, len(str(len(ms.numbers))))
        self.blocks, self.inline, self.head_spans = blocks, inline, heads
        self.section_starts = [sec.start for sec in sc.sections]  # ascending: the headings' order
        self.covered: set[Span] = set()  # numbers an earlier waiver holds: not drafted again
        self.reasons = self._reasons()  # span -> why the number is not a claim
        self.first_of: dict[tuple[str, str, str], int] = {}  # (stated, unit, noun) -> first clean draft
        self.formulas: dict[Span, PrintedFormula] = {}  # result span -> its arithmetic
        self.operands: set[Span] = set()  # the spans of those arithmetics' operands
        self.folded: dict[Span, str] = {}  # operand span -> its locator (a value of the result)
        for num in ms.numbers:
            found = printed_arithmetic(ms, num)
            if found and not any(x.span in self.reasons for x in (*found.operands, num)):
                self.formulas[num.span] = found
                self.operands.update(x.span for x in found.operands)
        taken = {*self.reasons, *self.operands, *self.formulas}  # a row holds no formula's number
        rows = [row for row in table_rows(ms) if not any(x.span in taken for x in row)]
        self.row_of = {x.span: row[0].span for row in rows for x in row[1:]}  # a cell -> its row's first
        self.row_heads = set(self.row_of.values())
        self.draft_at: dict[Span, int] = {}  # a row's first number -> its draft's index

    def section_of(self, pos: int) -> str | None:
        i = bisect_right(self.section_starts, pos)
        return self.sc.sections[i - 1].id if i else None

    def _reasons(self) -> dict[Span, str]:
        reasons = {}
        for num in self.ms.numbers:
            heading = _holding(self.head_spans, num.start, num.start + 1) is not None
            if _holding(self.blocks, *num.span):
                reasons[num.span] = "the code block's own constants"
            elif _holding(self.inline, *num.span):
                reasons[num.span] = "the code's own constants (inline code)"
            elif reason := waiver_reason(self.ms, num, heading):
                reasons[num.span] = reason
        return reasons

    def draft(self) -> None:
        """Fill the scaffold: a waiver per code block, then each number in order."""
        for a, b in self.blocks:
            if inside := list(self.ms.numbers_within(a, b)):
                self.sc.waivers.append(self._code_waiver(inside, a, b))
                self.covered.update(x.span for x in inside)
        for num in self.ms.numbers:
            if num.span in self.covered:
                continue
            if reason := self.reasons.get(num.span):
                done = self._waive(num, reason)  # none in a unique place: a draft claim, which says so
            else:
                done = (num.span in self.operands and self._fold(num)) or self._cell(num)
            if not done:
                self._claim(num)

    def _cell(self, num: Number) -> bool:
        """A table row's cell becomes a value of the draft of the row's first number (False: unbound)."""
        at = self.draft_at.get(self.row_of.get(num.span, num.span))
        if at is None or not self._fold(num):
            return False
        c = self.sc.claims[at]
        name = f"v{len(c.values) + 2}"  # the row's first number is stated: v2, v3... are the next cells
        value = (name, _stated_of(num), self.folded[num.span])
        self.sc.claims[at] = dataclasses.replace(c, values=(*c.values, value))
        return True

    def _waive(self, num: Number, reason: str) -> bool:
        """A suggested waiver of ``num`` (and its inline code's numbers); False when none is unique."""
        ms = self.ms
        in_code = _holding(self.inline, num.start, num.end)
        nums = list(ms.numbers_within(*in_code)) if in_code else self._waived_run(num)
        locator = find_locator(ms, nums[0].start, nums[-1].end, partial(self._covers, nums))
        if locator is None:
            nums = [num]
            locator = find_locator(ms, num.start, num.end, partial(self._covers, nums))
        if locator is None:
            return False
        site = find_sites(ms, locator)[0]
        printed = tuple(ms.text[a:b] for a, b in site.groups)
        self.covered.update(site.groups)
        self.sc.waivers.append(DraftWaiver(self.section_of(num.start), locator, SUGGESTED + reason, printed))
        return True

    def _code_waiver(self, inside: list[Number], a: int, b: int) -> DraftWaiver:
        """One waiver for the code block ``[a, b]``: a locator at its start and, unless it holds every
        number, ``until``."""
        ms, section = self.ms, self.section_of(a)
        first, last = inside[0], inside[-1]
        reason = SUGGESTED + "the code block's own constants"
        whole = find_locator(ms, first.start, last.end, partial(self._covers, inside), a, b)
        if whole:
            return DraftWaiver(section, whole, reason)

        def starts_block(locator: str) -> bool:
            site = self._waivable_site(locator)
            return site is not None and site.start <= first.start

        # a window at the first number (a number such as the 2 of ":.2f" cannot be a locator's number,
        # so the window may also end just before it)
        locator = find_locator(ms, first.start, first.start, starts_block, a, b)
        if locator is None:
            problem = f"line {first.line}: no unique quote starts the code block's waiver: edit it"
            return DraftWaiver(section, _fallback_locator(ms, first), reason, problem=problem)
        site = find_sites(ms, locator)[0]

        def ends_block(until: str) -> bool:
            after = [s for s in find_sites(ms, until) if s.start >= site.end]
            return bool(after) and after[0].end >= last.end and after[0].start <= b

        # a window holding the last number, else one at the end of the block
        until = find_locator(ms, last.end, last.end, ends_block, site.end, b) or find_locator(
            ms, b, b, ends_block, site.end, b
        )
        if until is None:
            problem = f"line {last.line}: no quote ends the code block's waiver after its start: edit 'until'"
            return DraftWaiver(section, locator, reason, until=_fallback_locator(ms, last), problem=problem)
        return DraftWaiver(section, locator, reason, until=until)

    def _waivable_site(self, locator: str) -> Site | None:
        """The one place ``locator`` finds, when every number it prints is waived; else None."""
        sites = find_sites(self.ms, locator)
        return sites[0] if len(sites) == 1 and all(g in self.reasons for g in sites[0].groups) else None

    def _covers(self, nums: list[Number], locator: str) -> bool:
        """Whether ``locator`` is a waiver's: a :meth:`_waivable_site` holding ``nums``."""
        site = self._waivable_site(locator)
        return site is not None and all(n.span in site.groups for n in nums)

    def _waived_run(self, num: Number) -> list[Number]:
        """``num`` and the waived numbers close after it on its line (one label: ``CH 15深度 15/20``)."""
        run = [num]
        for x in self.ms.numbers_between(num.end, num.start + MAX_LOCATOR):
            far = x.line != num.line or x.end - num.start > MAX_LOCATOR
            code = _holding(self.inline, *x.span)  # inline code: its own waiver
            if far or x.span not in self.reasons or code:
                break
            run.append(x)
        return run

    def _fold(self, num: Number) -> bool:
        """Locate an operand of a printed formula, a value of its result's draft (False: unbound)."""
        locator = find_locator(self.ms, num.start, num.end, partial(_binds, self.ms, num))
        if locator is None:
            return False
        self.folded[num.span] = locator
        return True

    def _claim(self, num: Number) -> None:
        """A draft claim of ``num``, or one more quote of the draft of its value, unit and noun."""
        ms, sc = self.ms, self.sc
        stated = _stated_of(num)
        unit, note = guess_unit(ms, num)
        noun = "" if unit else unit_words(ms, num)[1]
        locator = find_locator(ms, num.start, num.end, partial(_binds, ms, num))
        problem = ""
        if locator is None:
            locator = _fallback_locator(ms, num)
            problem = (
                f"line {num.line}: no quote of <= {MAX_LOCATOR} characters around {num.text!r} is found in "
                "one place only: edit the locator of the draft claim (lengthen it across the line, or mark "
                "glued numbers with ¦)"
            )
        arithmetic = self.formulas.get(num.span)
        key = (stated, unit, noun or _classifier(ms, num))  # 2 种 is not 2 个
        alone = not problem and arithmetic is None and num.span not in self.row_heads
        # only a number that says what it counts is the same claim again: a bare number ("另有 2")
        # or an end of a range ("2–3") shares its value with others by chance
        alone = alone and not _in_range(ms, num) and any(key[1:])
        if alone and key in self.first_of:  # the same value again: a quote
            c = sc.claims[self.first_of[key]]
            sc.claims[self.first_of[key]] = dataclasses.replace(c, quotes=c.quotes + (locator,))
            return
        if alone:
            self.first_of[key] = len(sc.claims)
        if num.span in self.row_heads:
            self.draft_at[num.span] = len(sc.claims)
        extra: dict = {}
        if arithmetic is not None:
            values, proposal = arithmetic.proposal(self.folded)
            extra = {"formula": arithmetic.text, "values": values, "proposal": proposal}
        cid = f"{self.prefix}{len(sc.claims) + 1:0{self.width}d}"
        section = self.section_of(num.start)
        sc.claims.append(DraftClaim(cid, section, num, stated, unit, locator, note, problem, **extra))


_RANGE_BEFORE = re.compile(rf"\d\s*(?:{_RANGE})\s*$")
_RANGE_AFTER = re.compile(rf"\s*(?:{_RANGE})\s*\d")


def _classifier(ms: Manuscript, num: Number) -> str:
    """The classifier after ``num`` (``511 个``: ``个``), or ``""``: a bare number."""
    after = ms.scan[num.end : num.end + 4].lstrip(" \t")
    return next((c for c in _CLASSIFIERS if after.startswith(c)), "")


def _in_range(ms: Manuscript, num: Number) -> bool:
    """Whether ``num`` is an end of a printed range (``2–3``, ``2 到 3``)."""
    return bool(_RANGE_BEFORE.search(ms.scan[max(0, num.start - 4) : num.start])) or bool(
        _RANGE_AFTER.match(ms.scan, num.end)
    )


def _holding(spans: list[Span], a: int, b: int) -> Span | None:
    """The span of ascending, disjoint ``spans`` that holds ``[a, b]``, or None."""
    i = bisect_right(spans, (a, float("inf")))  # spans[i - 1]: the last to start at or before a
    return spans[i - 1] if i and b <= spans[i - 1][1] else None


# what ends a table cell before the next: its unit glued to the next cell's digits ("0.086 s5947",
# "5.54 美元20"), or a Markdown cell border
_CELL_BORDER = re.compile(r"[ \t]*\|[ \t]*")


def table_rows(ms: Manuscript) -> list[tuple[Number, ...]]:
    """The numbers of each table row: two or more on a line, each cell ending in a unit glued to the
    next one's digits (``5.21 s98 token``) or a cell border (``| 5.21 s | 98 token |``)."""
    rows: list[list[Number]] = []
    for x, y in zip(ms.numbers, ms.numbers[1:]):
        length = unit_words(ms, x, shared=False)[2]
        glued = 0 < length and x.end + length == y.start and not ms.scan[y.start - 1].isspace()
        border = _CELL_BORDER.fullmatch(ms.text[x.end + length : y.start])  # in text: scan has no |
        if x.line != y.line or not (glued or border):
            continue
        if rows and rows[-1][-1] is x:
            rows[-1].append(y)
        else:
            rows.append([x, y])
    return [tuple(row) for row in rows]


_OPERATOR = dict.fromkeys("×xX*·", "*") | dict.fromkeys("/÷", "/") | {"+": "+", "-": "-", "−": "-"}
# an operator between two numbers of a printed formula ("x" only as a word of its own, "-" only
# between spaces: "2-3" is a range)
_OPERATOR_IN_GAP = re.compile(r"[×*·/÷+−]|(?<![A-Za-z])[xX](?![A-Za-z])|(?<=\s)-(?=\s)")
_EQUALS = re.compile(r"[=＝≈]\s*$")
_BREAK = re.compile(r"[。；;:：!?！？\n]")  # a gap that holds one ends the formula (a new clause)


@dataclass(frozen=True)
class PrintedFormula:
    """Arithmetic the manuscript prints: ``operands`` joined by ``operators`` equal ``result``."""

    operands: tuple[Number, ...]
    operators: tuple[str, ...]  # Python's: "*", "/", "+", "-", one per gap
    text: str  # as printed, from the first operand to the result's unit ("70 亿 × 4 B = 28 GB")

    def proposal(self, folded: dict[Span, str]) -> tuple[tuple[tuple[str, str, str], ...], str]:
        """``(values, formula)``: ``(name, printed, locator)`` of each operand ``folded`` locates (named
        a, b...), and the formula over those names (other operands as printed)."""
        values: list[tuple[str, str, str]] = []
        terms: list[str] = []
        for x in self.operands:
            locator = folded.get(x.span)
            if locator is None:
                terms.append(_stated_of(x))
                continue
            n = len(values)
            name = "abcdefghijklmnopqrstuvwxyz"[n % 26] + ("" if n < 26 else str(n))
            values.append((name, _stated_of(x), locator))
            terms.append(name)
        formula = terms[0] + "".join(f" {op} {t}" for op, t in zip(self.operators, terms[1:]))
        return tuple(values), formula


def printed_arithmetic(ms: Manuscript, num: Number) -> PrintedFormula | None:
    """The arithmetic printed for ``num`` on its line, ``A op B [op C ...] = num`` (or ``≈``), or None
    when ``num`` follows no ``=`` or fewer than two operands do."""
    a, _ = _line_bounds(ms.scan, num.start)
    before = ms.scan[a : num.start]
    m = _EQUALS.search(before)
    if m is None:
        return None
    nums = ms.numbers_within(a, a + m.start())
    run: list[Number] = list(nums[-1:])
    ops: list[str] = []
    for x in reversed(nums[:-1]):
        gap = ms.scan[x.end : run[0].start]
        op = _OPERATOR_IN_GAP.search(gap)
        if op is None or _BREAK.search(gap):
            break
        ops.insert(0, _OPERATOR[op.group(0)])
        run.insert(0, x)
    if len(run) < 2 or _BREAK.search(ms.scan[run[-1].end : a + m.start()]):
        return None
    end = num.end + unit_words(ms, num)[2]
    return PrintedFormula(tuple(run), tuple(ops), " ".join(ms.text[run[0].start : end].split()))


# --- the file -----------------------------------------------------------------------------------
def _assignments(table: dict) -> list[str]:
    """``key = value`` lines of a table's values that are not None."""
    return [f"{k} = {toml_value(v)}" for k, v in table.items() if v is not None]


HEADER: str = WORDS["header"]
