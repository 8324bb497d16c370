"""How a measured value reads with its unit, in messages, ``claims.json``, the matrix, diff and the
pages; inputs quoted in messages and logs; the "did you mean" of a misspelt name. Standard library only.
"""

from __future__ import annotations

import difflib
import math
from typing import TypeGuard

# unit strings of the registry that read better glued to the number ("60.6×", "99.16%")
GLUED_UNITS = {"x": "×", "percent": "%", "%": "%"}
# unit names of the registry that are nouns, as a reader says them: (one, several)
NOUN_UNITS = {"forward_pass": ("forward pass", "forward passes"), "example": ("example", "examples")}


def excerpt(text, limit: int = 80, *, quote: bool = True) -> str:
    """An input quoted in a message: its ``repr``, cut after ``limit`` characters with an ellipsis and
    its length (``'1+1+1…' (199,999 characters)``); ``quote=False``: the text itself, cut alike."""
    text = str(text)
    shown = repr if quote else str
    if len(text) <= limit:
        return shown(text)
    return f"{shown(text[:limit])}… ({len(text):,} characters)"


def workflow_escape(text) -> str:
    """``text`` escaped as a GitHub workflow command's data (``%``, CR, LF as ``%25``, ``%0D``, ``%0A``)."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def log_line(text) -> str:
    """``text`` as one line of a CI log: unchanged without a line break, else :func:`workflow_escape`d,
    so that no part of it starts a line GitHub would read as a workflow command."""
    text = str(text)
    return workflow_escape(text) if "\n" in text or "\r" in text else text


def number(x, digits: int = 5) -> str:
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


def counted(n, noun: str) -> str:
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


#: each kind of message's hint: (its words, difflib's cut-off, whether a sole choice is always suggested)
_HINTS = {"registry": (" (did you mean '{}'?)", 0.6, False), "setting": ("; did you mean {}?", 0.5, True)}


def suggest(word: str, choices, style: str = "registry") -> str:
    """The hint after an unknown ``word``: the closest of ``choices`` in the words of ``style``
    (:data:`_HINTS`), or ``""`` when none is close. Raises KeyError: an unknown ``style``."""
    words, cutoff, only = _HINTS[style]
    options = [str(c) for c in choices]
    close = difflib.get_close_matches(str(word), options, n=1, cutoff=cutoff) or (
        options if only and len(options) == 1 else []
    )
    return words.format(close[0]) if close else ""


def format_value(value, unit: str | None = "") -> str:
    """A measured value in its unit as every report prints it ("" for None): a number, an
    :class:`~claimcheck.interval.Interval` or ``[lo, hi]`` (one number when ``lo == hi``), a bool,
    or a string such as ``"inf"`` (a non-finite value in ``claims.json``)."""
    if value is None:
        return ""
    if hasattr(value, "lo") and hasattr(value, "hi"):
        lo, hi = value.lo, value.hi
    elif isinstance(value, (list, tuple)) and len(value) == 2 and all(map(is_number, value)):
        lo, hi = value
    else:
        return with_unit(number(value) if is_number(value) or isinstance(value, bool) else str(value), unit)
    return with_unit(number(lo) if lo == hi else f"[{number(lo)}, {number(hi)}]", unit)
