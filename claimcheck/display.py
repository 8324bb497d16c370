"""How a measured value reads, with its unit: the one formatter of the recorder's messages, the
``measured_display`` of ``claims.json``, the matrix and diff (:mod:`claimcheck.runs`) and the pages
(:mod:`claimcheck.pages.words`); and the "did you mean" of a misspelt name. Standard library only.
"""

from __future__ import annotations

import difflib
import math
from typing import TypeGuard

# unit strings of the registry that read better glued to the number ("60.6×", "99.16%")
GLUED_UNITS = {"x": "×", "percent": "%", "%": "%"}


#: how many characters of an input a message quotes (:func:`excerpt`)
EXCERPT_CHARS = 80


def excerpt(text, limit: int = EXCERPT_CHARS, *, quote: bool = True) -> str:
    """An input quoted in a message: its ``repr`` when at most ``limit`` characters, else the
    first ``limit`` characters' ``repr``, an ellipsis and the full length (``'1+1+1…' (199,999
    characters)``), so a hostile input never fills a log. ``quote=False``: the text itself, cut
    the same way (for an exception's message)."""
    text = str(text)
    shown = repr if quote else str
    if len(text) <= limit:
        return shown(text)
    return f"{shown(text[:limit])}… ({len(text):,} characters)"


def workflow_escape(text) -> str:
    """``text`` escaped as the data of a GitHub workflow command: ``%``, CR and LF as ``%25``,
    ``%0D``, ``%0A`` (the runner's own escaping), so it stays on one line of the log."""
    return str(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def log_line(text) -> str:
    """``text`` safe to print as one line of a CI log: unchanged when it holds no line break; else
    escaped by :func:`workflow_escape`, so that no part of it (a claim title with a newline and
    ``::add-mask::x``) starts a line that GitHub would read as a workflow command."""
    text = str(text)
    return workflow_escape(text) if "\n" in text or "\r" in text else text


def number(x, digits: int = 5) -> str:
    """A number as a reader wants it: ``digits`` significant digits, no trailing zeros, no ``e+00``.

    Integers of 10,000 and more get thousands separators; non-finite values print as ``inf``/``nan``;
    a bool or a string is returned as its text.
    """
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, str):
        return x
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
    """``n`` and its noun, singular for 1: ``counted(1, "thread") == "1 thread"``, else ``"2 threads"``."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"


def with_unit(text: str, unit: str | None) -> str:
    """``text`` followed by ``unit``: ``x`` as ``×`` and ``percent`` as ``%`` glued to it, others after a space."""
    unit = (unit or "").strip()
    if not text:
        return ""
    if unit in GLUED_UNITS:
        return f"{text}{GLUED_UNITS[unit]}"
    return f"{text} {unit}".strip()


def is_number(x: object) -> TypeGuard[int | float]:
    """Whether ``x`` is an int or a float (a bool is not), as a value read from JSON."""
    return isinstance(x, (int, float)) and not isinstance(x, bool)


#: how each kind of message hints at a close name: (the words, difflib's cut-off, whether the only
#: choice is suggested however far it is)
_HINTS = {
    "registry": (" (did you mean '{}'?)", 0.6, False),
    "setting": ("; did you mean {}?", 0.5, True),
}


def suggest(word: str, choices, style: str = "registry") -> str:
    """The hint after an unknown ``word``: the closest of ``choices``, or ``""`` when none is close.

    ``style="registry"`` (the registry's messages): `` (did you mean 'x'?)``; ``style="setting"``
    (the options' messages): ``"; did you mean x?"``, with a looser match, and the only choice
    when there is a single one.

    Raises:
        KeyError: ``style`` is neither.
    """
    words, cutoff, only = _HINTS[style]
    options = [str(c) for c in choices]
    close = difflib.get_close_matches(str(word), options, n=1, cutoff=cutoff) or (
        options if only and len(options) == 1 else []
    )
    return words.format(close[0]) if close else ""


def format_value(value, unit: str | None = "") -> str:
    """A measured value in its unit, as every report prints it ("" when nothing was measured).

    ``value``: a number, an :class:`~claimcheck.interval.Interval` or ``[lo, hi]`` (the chapter's
    own arithmetic: printed as ``[lo, hi]``, or as one number when ``lo == hi``), a bool, or a
    string such as ``"inf"`` (a non-finite value as ``claims.json`` stores it).
    """
    if value is None:
        return ""
    lo_hi = (
        (value.lo, value.hi)
        if hasattr(value, "lo") and hasattr(value, "hi")
        else tuple(value)
        if isinstance(value, (list, tuple)) and len(value) == 2 and all(map(is_number, value))
        else None
    )
    if lo_hi is not None:
        lo, hi = lo_hi
        return with_unit(number(lo) if lo == hi else f"[{number(lo)}, {number(hi)}]", unit)
    return with_unit(number(value) if is_number(value) or isinstance(value, bool) else str(value), unit)
