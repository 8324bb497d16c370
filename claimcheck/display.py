"""How a measured value reads with its unit, in messages, ``claims.json``, the matrix, diff and the
pages; inputs quoted in messages and logs; the "did you mean" of a misspelt name. Standard library only.
"""

from __future__ import annotations

import difflib
import json
import math
import re
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Any, TypeGuard

# unit strings of the registry that read better glued to the number ("60.6×", "99.16%")
GLUED_UNITS = {"x": "×", "percent": "%", "%": "%"}
# unit names of the registry that are nouns, as a reader says them: (one, several)
NOUN_UNITS = {
    "forward_pass": ("forward pass", "forward passes"),
    "example": ("example", "examples"),
    "token": ("token", "tokens"),
    "bit": ("bit", "bits"),
}


def excerpt(text: object, limit: int = 80, *, quote: bool = True) -> str:
    """An input quoted in a message: its ``repr``, cut after ``limit`` characters with an ellipsis and
    its length (``'1+1+1…' (199,999 characters)``); ``quote=False``: the text itself, cut alike."""
    text = str(text)
    shown = repr if quote else str
    if len(text) <= limit:
        return shown(text)
    return f"{shown(text[:limit])}… ({len(text):,} characters)"


#: characters never printed as they are: every control character (C0 with CR and LF, DEL, C1 with the
#: 8-bit CSI), the Unicode line and paragraph separators, the bidirectional marks, overrides and
#: isolates that make a terminal show text in another order than it is read, and the invisible ones
#: (zero-width space and joiners, word joiner, byte order mark) that make two keys print alike
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
#: a line GitHub's runner would read as a workflow command (``::add-mask::x``, ``##[error]...``), after
#: the leading white space it ignores
_COMMAND = re.compile(r"^(\s*)(:(?=:)|#(?=#\[))")
#: Markdown that would become a tag, a link or an image: ``<`` opening a tag, an HTML comment or an
#: autolink; ``](`` closing a link's text (``[x](javascript:...)``, ``![x](http://tracker)``)
_MARKUP = re.compile(r"<(?=[A-Za-z/!?])|\](?=\()")


def _percent(ch: str) -> str:
    """``ch`` as its UTF-8 bytes, each ``%XX`` (LF: ``%0A``, ESC: ``%1B``, U+202E: ``%E2%80%AE``)."""
    return "".join(f"%{b:02X}" for b in ch.encode("utf-8"))


def printable(text: object, *, markdown: bool = False, lines: bool = False) -> str:
    """``text`` (any input's, e.g. a foreign ``claims.json``'s) made safe to print as one line of a
    terminal, a CI job log or (``markdown``) GitHub Markdown: the one escaping of printed text.

    Unchanged unless it holds something unsafe; then ``%`` becomes ``%25`` and each unsafe character
    its UTF-8 bytes as ``%XX``, as in GitHub's workflow commands: a control character (a line break as
    ``%0A``, so that no part of it starts a line; ESC and CSI as ``%1B``, ``%C2%9B``, so that nothing
    reaches the terminal as a control sequence), a line separator, a bidirectional override; and the
    first ``:`` of a line starting ``::`` (or ``#`` of ``##[``), so that the line is never a workflow
    command. ``markdown``: also ``<`` opening a tag as ``&lt;`` and ``](`` as ``]\\(``, so that no
    HTML, link or image comes of it (a ``<`` before a space or a digit, ``[35.5, 36.5]`` stay).
    ``lines``: ``text`` is several lines, each escaped alone (its line feeds kept)."""
    text = str(text)
    if lines:
        return "\n".join(printable(line, markdown=markdown) for line in text.split("\n"))
    if _UNSAFE.search(text) or _COMMAND.match(text):
        text = text.replace("%", "%25")
        text = _COMMAND.sub(
            lambda m: m.group(1) + _percent(m.group(2)), _UNSAFE.sub(lambda m: _percent(m.group()), text)
        )
    if markdown:
        text = _MARKUP.sub(lambda m: "&lt;" if m.group() == "<" else "]\\", text)
    return text


def workflow_escape(text: object) -> str:
    """``text`` escaped as a GitHub workflow command's data: ``%`` as ``%25`` and each character
    :func:`printable` escapes (CR, LF: ``%0D``, ``%0A``, which GitHub turns back into line breaks in the
    annotation; ESC: ``%1B``...) as its ``%XX`` bytes."""
    return _UNSAFE.sub(lambda m: _percent(m.group()), str(text).replace("%", "%25"))


def json_text(data: object) -> str:
    """``data`` as indented JSON text (UTF-8 as it is, ``ensure_ascii=False``), with each character
    :func:`printable` escapes written ``\\uXXXX`` (JSON escapes only C0 itself): the same data, and
    nothing a terminal acts on when it is printed. A non-finite float is written as its ``repr``
    (``"inf"``, ``"nan"``: a number JSON cannot hold, as ``claims.json`` writes it)."""
    text = json.dumps(json_value(data), indent=2, ensure_ascii=False, allow_nan=False)
    # json.dumps escapes C0 in strings: a line feed left is the indentation's
    return _UNSAFE.sub(lambda m: m.group() if m.group() == "\n" else f"\\u{ord(m.group()):04x}", text)


def json_value(value: object, other: Callable[[object], object] = str) -> Any:
    """``value`` as JSON values, as ``claims.json`` holds them: a non-finite float as its ``repr``
    (``"inf"``, a number JSON cannot hold), a 0-d array or a numpy/torch scalar as its number, lists,
    tuples and sets as lists, mappings with text keys, in each of them too; anything else as
    ``other(value)`` (default: its text)."""
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    if value is None or isinstance(value, (str, int, float)):
        return value
    if getattr(value, "shape", None) == () and callable(item := getattr(value, "item", None)):
        return json_value(item(), other)  # a numpy or torch scalar
    if isinstance(value, Mapping):
        return {str(k): json_value(v, other) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [json_value(v, other) for v in value]
    return other(value)


def number(x: Any, digits: int = 5) -> str:
    """A number as a reader wants it: ``digits`` significant digits, no trailing zeros, no ``e+00``;
    integers from 10,000 with thousands separators; a bool or a string as its text."""
    if isinstance(x, (bool, str)):
        return str(x)
    if isinstance(x, int):
        return f"{x:,}" if abs(x) >= 10000 else str(x)
    x = float(x)
    if not math.isfinite(x):
        return "inf" if x > 0 else "-inf" if x < 0 else "nan"
    if x != 0 and (abs(x) >= 1e7 or abs(x) < 1e-3):
        mant, _, exp = f"{x:.{digits - 1}e}".partition("e")
        mant = mant.rstrip("0").rstrip(".")
        return f"{mant}e{int(exp)}"
    if abs(x) >= 10**digits:  # more integer digits than significant ones: keep the integer part
        return f"{x:.0f}"
    text = f"{x:.{digits}g}"
    if "e" in text:  # .g chose an exponent for a value in range: write it out
        text = f"{x:f}".rstrip("0").rstrip(".")
    return text


def counted(n: object, noun: str) -> str:
    """``n`` and its noun, singular for 1: ``"1 thread"``, ``"2 threads"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def with_unit(text: str, unit: str | None) -> str:
    """``text`` and ``unit``: ``x`` as ``×`` and ``percent`` as ``%`` glued to it, a noun unit in words
    (``511 forward passes``, ``1 example``: :data:`NOUN_UNITS`), others after a space."""
    unit = (unit or "").strip()
    if not text:
        return ""
    if unit in GLUED_UNITS:
        return f"{text}{GLUED_UNITS[unit]}"
    if unit in NOUN_UNITS:
        one, several = NOUN_UNITS[unit]
        return f"{text} {one if text.strip() in ('1', '-1', '1.0') else several}"
    return f"{text} {unit}".strip()


def difference(text: str, unit: str | None) -> str:
    """A difference of two values in ``unit`` (a margin): as :func:`with_unit`, except that a
    difference of ratios (``x``) is a plain number: 23.26× is 13.3 above a bar of 10×, not "13.3×"
    above it (which reads as a multiple)."""
    return text if (unit or "").strip() == "x" else with_unit(text, unit)


def is_number(x: object) -> TypeGuard[int | float]:
    """Whether ``x`` is an int or a float (a bool is not), as a value read from JSON."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


def is_object(value: object) -> TypeGuard[dict[str, Any]]:
    """Whether ``value`` is a JSON object (a dict, as :func:`json.loads` reads one)."""
    return isinstance(value, dict)


def json_object(value: object) -> dict[str, Any]:
    """``value`` when it is a JSON object (a dict), else ``{}``."""
    return value if is_object(value) else {}


#: each kind of message's hint: (its words, difflib's cut-off, whether a sole choice is always suggested)
_HINTS = {"registry": (" (did you mean '{}'?)", 0.6, False), "setting": ("; did you mean {}?", 0.5, True)}


def suggest(word: str, choices: Iterable[object], style: str = "registry") -> str:
    """The hint after an unknown ``word``: the closest of ``choices`` in the words of ``style``
    (:data:`_HINTS`), or ``""`` when none is close. Raises KeyError: an unknown ``style``."""
    words, cutoff, only = _HINTS[style]
    options = [str(c) for c in choices]
    close = difflib.get_close_matches(str(word), options, n=1, cutoff=cutoff) or (
        options if only and len(options) == 1 else []
    )
    return words.format(close[0]) if close else ""


#: below this a float that is a whole number is one exactly (2**53): it prints in full digits
_WHOLE_FLOATS = 2.0**53


def measured_number(x: object, exact: bool = False) -> str:
    """A measured number as :func:`format_value` prints it: :func:`number`, except that a whole number
    prints in full digits (``248879616``, never ``2.4888e8``, which reads as another value beside a
    chapter's ``248879616``), and with ``exact`` (the claim's tolerance is ``exact``) any float in
    full: the fewest significant digits that read back as it (``0.30000000000000004``, not ``0.3``);
    an int as :func:`number` prints it (``248,879,616``), a bool or a string as its text."""
    if isinstance(x, Fraction):  # an exact interval's end
        x = float(x)
    if not isinstance(x, float):  # an int (thousands separators), a bool, a string
        return number(x)
    if math.isfinite(x) and abs(x) < _WHOLE_FLOATS and x.is_integer():
        return f"{x:.0f}" if abs(x) >= 1e7 else number(x)
    text = number(x)
    digits = 5
    while exact and digits < 17 and math.isfinite(x) and float(text) != x:
        digits += 1
        text = number(x, digits)
    return text


def format_value(value: Any, unit: str | None = "", *, exact: bool = False) -> str:
    """A measured value in its unit as every report prints it ("" for None): a number, an
    :class:`~claimcheck.interval.Interval` or ``[lo, hi]`` (one number when ``lo == hi``), a bool,
    or a string such as ``"inf"`` (a non-finite value in ``claims.json``). A whole number prints in
    full digits, and with ``exact`` (the claim's tolerance is ``exact``) every float
    (:func:`measured_number`)."""
    if value is None:
        return ""
    if hasattr(value, "lo") and hasattr(value, "hi"):
        lo, hi = value.lo, value.hi
    elif isinstance(value, (list, tuple)) and len(value) == 2 and all(map(is_number, value)):
        lo, hi = value
    else:
        shown = measured_number(value, exact) if is_number(value) or isinstance(value, bool) else str(value)
        return with_unit(shown, unit)
    ends = measured_number(lo, exact), measured_number(hi, exact)
    return with_unit(ends[0] if lo == hi else f"[{ends[0]}, {ends[1]}]", unit)
