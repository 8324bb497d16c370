"""Numbers as printed in a manuscript: the tokeniser, printed-value comparison, locator patterns.

Our own tokeniser: number-parsing libraries (``babel.numbers``, ``quantulum3``) read one number from
a clean string; the drift check needs every number of Chinese prose, its digits and offsets. Rules,
on the text after :func:`normalise` (full-width characters as ASCII, offsets unchanged):
1. **Maximal munch**: the longest run of a fraction (``1/20``), a decimal (``36,864``: ',' between
   groups of three), an exponent (``5.8e-6``, ``5.8 × 10⁻⁶``, ``5.8*10^-6``) and a scale (``99.16%``,
   ``8506 万``, ``128K``). Chinese numerals are words.
2. **Names are not numbers**: digits glued to a Latin word are a name (``GPT-2``), unless the word is
   a unit (:data:`UNIT_WORDS`), which closes a table cell (``5.21 s98 token``: 5.21 s, 98 token).
3. **Numbers glued to numbers** (``2568.41 s``) are one; a locator splits them with ``¦`` (``256¦8.41``).
:func:`same_printed` compares printed digits: ``36,864`` is ``"36864"``, ``5.8 × 10⁻⁶`` is ``"5.8e-6"``,
``8506 万`` is ``"8506"``, ``0.2`` is not ``"0.20"``, a unit fraction ``1/20`` is ``"20"``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from functools import lru_cache

SPLIT = "¦"
"""Marks, inside a locator, the boundary between two numbers the manuscript prints glued together."""

_FULLWIDTH = {chr(c + 0xFEE0): chr(c) for c in range(0x30, 0x7B) if chr(c).isalnum()}  # ０-９, Ａ-Ｚ, ａ-ｚ
_TRANSLATE = str.maketrans(_FULLWIDTH | dict(zip("．％／＋－−\u3000＾", ".%/+-- ^")))

_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺", "0123456789-+")

# A Latin word directly before digits that is a unit closes a table cell ("5.21 s98 token").
UNIT_WORDS = frozenset("s ms us B KB MB GB TB KiB MiB GiB TiB token tokens tok bit bits FLOP FLOPs x".split())
# Units after a number, for the audit's listing only (longest first).
_UNITS_AFTER = "token/s KiB/token B/token KiB MiB GiB KB MB GB B tokens token ms s 比特 美元 倍 字节 个 次 层 维 章 年 月 日 行 步 位 亿 万"
_UNIT_AFTER = re.compile(
    " *(" + "|".join(map(re.escape, sorted(_UNITS_AFTER.split(), key=len, reverse=True))) + ")"
)

_INT = r"(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)"
_DEC = rf"{_INT}(?:\.\d+)?"
_TIMES = "×xX*·⋅"  # what writes "times" before a power of ten: 5.8 × 10⁻⁶, 5.8*10^-6, 5.8·10⁻⁶
_EXP = rf"(?:[eE][-+]?\d+(?![A-Za-z])|\s*[{_TIMES}]\s*10(?:\^\(?[-+]?\d+\)?|[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))"
_SCALE = r"(?:\s*%|\s*(?:万亿|万|亿)|[KM](?![A-Za-z]))"
NUMBER_PATTERN = rf"(?:\d+/\d+(?![\d/])|{_DEC}{_EXP}?){_SCALE}?"
"""Regex (on normalised text) of one number, by rule 1 of the module docstring."""
_NUMBER_RE = re.compile(NUMBER_PATTERN)
_PARTS_RE = re.compile(
    r"(?P<frac>(?P<num>\d+)/(?P<den>\d+))?"
    rf"(?P<dec>{_DEC})?"
    rf"(?P<exp>[eE](?P<e1>[-+]?\d+)|\s*[{_TIMES}]\s*10(?:\^\(?(?P<e2>[-+]?\d+)\)?|(?P<e3>[⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)))?"
    r"\s*(?P<scale>%|万亿|万|亿|K|M)?$"
)
SCALES = {s: Decimal(10) ** e for s, e in (("%", -2), ("万", 4), ("亿", 8), ("万亿", 12), ("K", 3), ("M", 6))}


def normalise(text: str) -> str:
    """Return ``text`` with full-width digits, Latin letters and ``．％／＋－`` as ASCII (same length)."""
    return text.translate(_TRANSLATE)


@dataclass(frozen=True)
class Number:
    """One number as printed: offsets ``start``/``end`` into its text, its 1-based ``line``, its
    ``mantissa`` (digits without separators: ``"36864"``, ``"1/20"``), the written power of ten
    (``exponent``: -6 for ``× 10⁻⁶``, else None), ``scale`` (``% 万 亿 万亿 K M`` or ``""``) and the
    ``unit`` word after it (reports only)."""

    text: str
    start: int
    end: int
    line: int
    mantissa: str
    exponent: int | None
    scale: str
    unit: str = ""

    @property
    def printed(self) -> str:
        """The printed digits in registry form: ``"5.8e-6"``, ``"36864"``, ``"1/20"``."""
        return self.mantissa + (f"e{self.exponent}" if self.exponent is not None else "")

    @property
    def span(self) -> tuple[int, int]:
        return self.start, self.end

    @property
    def is_fraction(self) -> bool:
        return "/" in self.mantissa

    @property
    def value(self) -> float:
        """The number's value with exponent and scale applied (``8506 万`` -> 85,060,000.0;
        ``99.16%`` -> 0.9916; ``1/20`` -> 0.05; ``128K`` -> 128,000.0)."""
        if self.is_fraction:
            n, d = self.mantissa.split("/")
            v = Decimal(n) / Decimal(d) if int(d) else Decimal("Infinity")
        else:
            v = Decimal(self.mantissa)
        if self.exponent is not None:
            v = v.scaleb(self.exponent)
        return float(v * SCALES.get(self.scale, 1))

    def __str__(self) -> str:
        return self.text


def parse_number(text: str) -> tuple[str, int | None, str]:
    """Return ``(mantissa, exponent, scale)`` of one printed number such as ``"5.8 × 10⁻⁶"``.
    Raises ValueError: ``text`` is not one number by the module's grammar."""
    t = normalise(text.strip())
    m = _PARTS_RE.match(t)
    if not t or not m or (not m.group("frac") and not m.group("dec")) or (m.group("frac") and m.group("dec")):
        raise ValueError(f"not a printed number: {text!r}")
    if m.group("frac"):
        mantissa = m.group("frac")
        if m.group("exp"):
            raise ValueError(f"a fraction with an exponent: {text!r}")
    else:
        mantissa = m.group("dec").replace(",", "")
    exp = m.group("e1") or m.group("e2") or (m.group("e3") or "").translate(_SUPERSCRIPT) or None
    return mantissa, (int(exp) if exp is not None else None), m.group("scale") or ""


#: how a unit may be typed -> how a registry spells it, to match a typed figure's unit with a claim's
_UNIT_SPELLING = {"×": "x", "X": "x", "倍": "x", "%": "percent", "tokens": "token", "tok": "token"}
#: denominators a typed figure may leave out (``36 KiB`` for a claim in KiB/token); never a time: a
#: rate without its ``/s`` is a count
_PER_ITEM = re.compile(r"/(?!(?:s|ms|us|ns|min|h)$)[^/]+$")


def split_figure(text: str) -> tuple[str, str]:
    """``(figure, unit)`` of a figure as a person types it: the number in registry form (``"2.96"``,
    ``"36864"``, ``"5.8e-6"``, a sign kept) and what is written after it, a scale first (``"亿"``,
    ``"%"``, ``"KiB/token"``, ``"×"``, or ``""``): ``split_figure("2.96 亿") == ("2.96", "亿")``.
    Raises ValueError: ``text`` does not start with one printed decimal number (a fraction is not one)."""
    t = normalise(str(text).strip())
    sign = t[:1] if t[:1] in "+-" else ""
    m = _NUMBER_RE.match(t[len(sign) :].lstrip())
    if m is None or "/" in m.group().split()[0]:
        raise ValueError(f"not a printed decimal number: {text!r}")
    mantissa, exponent, scale = parse_number(m.group())
    figure = sign.replace("+", "") + mantissa + (f"e{exponent}" if exponent is not None else "")
    rest = t[len(sign) :].lstrip()[m.end() :].strip()
    return figure, " ".join(x for x in (scale, rest) if x)


def unit_key(unit: str) -> str:
    """A unit as the registry spells it, however it was typed (``×`` and ``倍`` as ``x``, ``%`` as
    ``percent``, ``tokens`` as ``token``; spaces around ``/`` dropped): what two units are compared by."""
    words = [_UNIT_SPELLING.get(w, w) for w in re.split(r"\s+", unit.strip()) if w]
    return " ".join(words).replace(" /", "/").replace("/ ", "/")


def figure_in_unit(text: str, unit: str) -> str:
    """The registry's printed number of a figure typed in a claim's ``unit``, as printed:
    ``figure_in_unit("2.96 亿", "亿 FLOP/token") == "2.96"``; ``"99.16%"`` in ``percent``, ``"38 KiB"``
    in ``KiB/token``, ``"58×"`` in ``x``; a plain number is in the claim's unit already. Raises
    ValueError: not a printed number (:func:`split_figure`), or written in another unit than
    ``unit`` (saying, for a scale the unit lacks, the figure in the claim's unit)."""
    figure, typed = split_figure(text)
    if not typed:
        return figure
    want, got = unit_key(unit), unit_key(typed)
    scale, _, rest = want.partition(" ")
    forms = {want, _PER_ITEM.sub("", want)}
    if scale in SCALES and rest:  # "2.96 亿" for a claim in 亿 FLOP/token
        forms.add(scale)
    if got in forms:
        return figure
    said = f"{text.strip()!r} is written in {typed}, but the claim's unit is {unit or 'none (a plain count)'}"
    head, _, tail = got.partition(" ")
    if head in SCALES and head not in ("%",) and unit_key(tail) in forms | {""} and scale not in SCALES:
        value = format(Decimal(figure) * SCALES[head], "f")
        value = value.rstrip("0").rstrip(".") if "." in value else value
        raise ValueError(f"{said}: give it as {value}")
    raise ValueError(f"{said}: give the figure in {unit}" if unit else f"{said}: give the number alone")


def _identifier_before(norm: str, p: int) -> bool:
    """Whether the digits at ``p`` continue a Latin name (rule 2 of the module docstring)."""
    if p == 0:
        return False
    before = norm[p - 1]
    if before == "-" and p >= 2 and norm[p - 2].isascii() and norm[p - 2].isalpha():
        return True  # GPT-2, Llama-3
    if before == "_" or (before.isascii() and before.isalpha()):
        q = p
        while q > 0 and norm[q - 1].isascii() and norm[q - 1].isalpha():
            q -= 1
        # a unit closes the previous cell ("5.21 s98 token", "token0.086 s") unless a name goes on before it
        glued = q > 0 and (norm[q - 1].isascii() and norm[q - 1].isalnum() or norm[q - 1] == "_")
        return norm[q:p] not in UNIT_WORDS or glued
    return False


_IDENT_TAIL = re.compile(r"[A-Za-z0-9_.\-]*")
_DIGIT = re.compile(r"\d")


def find_numbers(text: str, *, offset: int = 0, first_line: int = 1) -> list[Number]:
    """Return every number printed in ``text``, in order, by the rules of the module docstring;
    ``offset`` is added to every ``start``/``end``, ``first_line`` is the line of ``text``'s first."""
    norm = normalise(text)
    out: list[Number] = []
    line, line_pos, pos = first_line, 0, 0
    while (m := _DIGIT.search(norm, pos)) is not None:
        p = m.start()
        if _identifier_before(norm, p):
            ident = _IDENT_TAIL.match(norm, p)
            assert ident is not None  # a starred pattern matches everywhere
            pos = max(ident.end(), p + 1)  # a digit outside [0-9] matches no tail: step past it
            continue
        n = _NUMBER_RE.match(norm, p)
        assert n is not None  # the pattern matches at any digit
        end = n.end()
        mantissa, exponent, scale = parse_number(norm[p:end])  # NUMBER_PATTERN is _PARTS_RE's grammar
        line += norm.count("\n", line_pos, p)
        line_pos = p
        after = _UNIT_AFTER.match(norm, end)
        unit = after.group(1) if after else ""
        out.append(Number(text[p:end], p + offset, end + offset, line, mantissa, exponent, scale, unit))
        pos = end
    return out


def same_printed(registry_text: str, number: Number | str) -> bool:
    """Whether a registry value (``"5947"``, ``"0.20"``, ``"5.8e-6"``) is what the manuscript prints:
    the same digits at the same precision; a unit fraction ``1/N`` also equals ``"N"``."""
    if isinstance(number, str):
        mantissa, exponent, scale = parse_number(number)
        printed = mantissa + (f"e{exponent}" if exponent is not None else "")
    else:
        printed = number.printed
    reg = normalise(registry_text.strip()).replace(",", "")
    if "/" in reg:
        return reg == printed
    if "/" in printed:
        num, den = printed.split("/")
        return num == "1" and _digits_equal(reg, den)
    return _digits_equal(reg, printed)


def _digits_equal(a: str, b: str) -> bool:
    try:
        return Decimal(a).as_tuple() == Decimal(b).as_tuple()
    except InvalidOperation:
        return False


# --- locators -------------------------------------------------------------------------------
@dataclass(frozen=True)
class LocatorPattern:
    """A registry locator compiled: the ``numbers`` it prints, and a ``regex`` that matches its place
    whatever numbers the manuscript prints now (each a capture group; whitespace elastic)."""

    locator: str
    numbers: tuple[Number, ...]
    regex: re.Pattern


def _shape_pattern(num: Number) -> str:
    """The printed shape of a number glued to the next (``256¦8.41``), so the next takes the rest."""
    if num.is_fraction or num.exponent is not None or num.scale:
        return NUMBER_PATTERN
    whole, _, decimals = num.mantissa.partition(".")
    return rf"\d{{{len(whole)}}}" + (rf"\.\d{{{len(decimals)}}}" if decimals else "")


@lru_cache(maxsize=4096)
def compile_locator(locator: str) -> LocatorPattern:
    """Compile a locator (``"读 5947 / 写"``, ``"256¦8.41 s"``) into a :class:`LocatorPattern`. ``¦`` stands
    between two numbers printed glued together (at an end: glued to one outside it). Raises ValueError: the
    locator is empty, or a ``¦`` does not touch a number on each side it has."""
    if not locator.strip():
        raise ValueError("empty locator")
    segments = locator.split(SPLIT)
    numbers: list[Number] = []
    parts: list[str] = []
    plain_offset = 0
    for si, seg in enumerate(segments):
        nums = find_numbers(seg, offset=plain_offset)
        norm = normalise(seg)
        last_seg = si == len(segments) - 1
        if si > 0 and seg and not (nums and nums[0].start == plain_offset):
            raise ValueError(f"locator {locator!r}: '{SPLIT}' must be followed by a number")
        if not last_seg and seg and not (nums and nums[-1].end == plain_offset + len(seg)):
            raise ValueError(f"locator {locator!r}: '{SPLIT}' must follow a number")
        if not seg and 0 < si < len(segments) - 1:
            raise ValueError(f"locator {locator!r}: two '{SPLIT}' in a row")
        cursor = plain_offset
        for k, num in enumerate(nums):
            between = norm[cursor - plain_offset : num.start - plain_offset].rstrip()
            parts.append(_literal(between.lstrip() if (k > 0 or si > 0) else between))
            glued_next = k == len(nums) - 1 and not last_seg
            glued_prev = k == 0 and si > 0
            pat = _shape_pattern(num) if glued_next else NUMBER_PATTERN
            # a number the locator itself prints after a comma or a point (code: "[4,5]", "x = .5") has
            # that mark before it, not a digit
            own_mark = between.endswith((",", ".")) and (len(between) > 1 or (k > 0 and between == ","))
            lead = "" if glued_prev else r"(?<!\d)" if own_mark else r"(?<![\d.,])"
            parts.append(rf"\s*{lead}({pat})\s*")
            cursor = num.end
        tail = norm[cursor - plain_offset :]
        parts.append(_literal(tail.lstrip() if (nums or si > 0) else tail))
        numbers.extend(nums)
        plain_offset += len(seg)
    return LocatorPattern(locator, tuple(numbers), re.compile("".join(parts)))


def _literal(text: str) -> str:
    """Regex of a locator's text between numbers: a run of spaces stands for at least one whitespace."""
    return r"\s+".join(map(re.escape, re.split(r"\s+", text)))


def locator_plain(locator: str) -> str:
    """The locator as the manuscript prints it (without ``¦`` marks)."""
    return locator.replace(SPLIT, "")
