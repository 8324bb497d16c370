"""Units of the claims registry, on top of pint.

The chapter prints numbers in bytes (KiB = 1024 B, MB = 10**6 B), token/s, seconds, bits,
percent, US dollars and yuan (元, CNY; no conversion between them), and Chinese myriad units (万 = 10**4, 亿 = 10**8). Pint knows the SI and
binary prefixes; this module adds the few units the chapter needs (:data:`UNITS`), the units a
chapter's registry declares in its ``[units]`` table (:func:`declare`), and parses unit strings in
one place, so that a registry entry's unit is validated when the registry is loaded.
"""

from __future__ import annotations

import functools
import re

#: Units that pint does not define: (pint's definition, what it is). The reference page
#: docs/reference/units.md is generated from this table (``python -m claimcheck.docs``).
UNITS = (
    ("token = [token] = tok", "a token of a tokenizer; never converted to bytes or words"),
    ("FLOP = [flop]", "one floating-point operation (a multiply-add is 2 FLOPs)"),
    ("param = [param]", "one parameter (weight) of a model"),
    ("example = [example]", "one solved example in a prompt (few-shot)"),
    ("forward_pass = [forward_pass] = pass", "one forward pass of a model"),
    ("USD = [currency] = 美元", "US dollars"),
    # a second currency is a dimension of its own: no exchange rate is assumed, so USD -> CNY is an
    # error, never a silent conversion
    ("CNY = [currency_cny] = 元 = yuan = RMB", "yuan; never converted to or from USD (no exchange rate)"),
    ("Mtok = 1e6 * token", "a million tokens (prices per million tokens)"),
    ("wan = 1e4 = 万", "the Chinese myriad, 10^4 (a number: 2.4 万 token = 24,000 token)"),
    ("yi = 1e8 = 亿", "10^8 (70 亿 param = 7 × 10^9 param)"),
    ("times = 1 = x", 'a ratio ("60 倍", "60x"): a plain number'),
)
_DEFINITIONS = tuple(definition for definition, _ in UNITS)

#: Pint's own units that chapters print most (the reference page lists them; all parse)
COMMON = ("B", "KiB", "MiB", "GiB", "kB", "MB", "GB", "bit", "s", "ms", "us", "ns", "percent", "W", "Hz")

#: The units a chapter's registry declares (``[units]``): name -> definition, in this process.
_DECLARED: dict[str, str] = {}


class UnitError(ValueError):
    """A unit string that pint cannot parse with the registry's definitions."""


@functools.lru_cache(maxsize=1)
def ureg():
    """Return the shared pint ``UnitRegistry`` with the chapter's extra units defined."""
    import pint

    reg = pint.UnitRegistry()
    for definition in _DEFINITIONS:
        reg.define(definition)
    _DECLARED.clear()  # a fresh registry knows none of the chapters' units yet
    return reg


def declare(name: str, definition: str) -> None:
    """Define the unit ``name`` as ``definition`` in the shared registry (a registry's ``[units]``
    table: ``merge = "[merge]"`` is a new kind of count, ``kmerge = "1000 * merge"`` a multiple).

    Declared units are the process's, so every chapter that uses one declares it, and chapters
    that declare the same name give the same definition; declaring it again so is a no-op.

    Raises:
        UnitError: ``name`` is not an identifier or is already a unit (pint's or the kit's), or
            was declared with another definition, or pint cannot read ``definition``.
    """
    reg = ureg()
    if not isinstance(definition, str) or not definition.strip():
        raise UnitError(
            f'{name} = {definition!r}: a definition is a string such as "[{name}]" or "1000 * token"'
        )
    definition = definition.strip()
    if _DECLARED.get(name) == definition:
        return
    if name in _DECLARED:
        raise UnitError(
            f"unit {name!r} is already declared as {_DECLARED[name]!r} (another chapter's [units])"
        )
    if not name.isidentifier():
        raise UnitError(f"unit name {name!r} must be one word (letters, digits, _)")
    if name in reg:
        raise UnitError(f"{name!r} is already a unit ({reg.parse_units(name)}): use it, or pick another name")
    try:
        reg.define(f"{name} = {definition}")
        reg.parse_units(name)
    except Exception as exc:  # pint raises several error types (DefinitionSyntaxError, ValueError, ...)
        raise UnitError(
            f"{name} = {definition!r}: pint cannot read it ({type(exc).__name__}: {_said(exc)})"
        ) from None
    _DECLARED[name] = definition


def declared_elsewhere(text: str, own) -> list[str]:
    """The declared units (:func:`declare`) that the unit expression ``text`` uses, prefixed or
    plural included, but that are not among ``own`` (the names a registry declares itself): a
    chapter whose claims use a unit only another chapter declares would be valid only when loaded
    after it. Sorted names; [] when there are none."""
    others = set(declared()) - set(own)
    if not others:
        return []
    reg = ureg()
    words = re.findall(r"[^\W\d]\w*", text)
    return sorted({name for word in words for _, name, _ in reg.parse_unit_name(word) if name in others})


def declared() -> dict[str, str]:
    """The units declared so far in this process (name -> definition), for messages and tests."""
    ureg()
    return dict(_DECLARED)


def parse_unit(text: str):
    """Return the pint unit for ``text`` ("" means dimensionless).

    Raises:
        UnitError: ``text`` is not a unit expression pint can parse (e.g. ``"KiB/tokn"``).
    """
    reg = ureg()
    if text.strip() == "":
        return reg.dimensionless
    try:
        return reg.parse_units(text)
    except Exception as exc:  # pint raises several error types (UndefinedUnitError, ValueError, ...)
        raise UnitError(f"unknown unit {text!r} ({type(exc).__name__}: {_said(exc)})") from None


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Return ``value`` expressed in ``to_unit`` (a float).

    Example: ``convert(36864, "B/token", "KiB/token") == 36.0``.

    Raises:
        UnitError: either unit is unknown, or the two have different dimensions.
    """
    reg = ureg()
    src, dst = parse_unit(from_unit), parse_unit(to_unit)
    try:
        return float(reg.Quantity(value, src).to(dst).magnitude)
    except Exception as exc:
        raise UnitError(f"cannot convert {from_unit!r} to {to_unit!r}: {_said(exc)}") from None


def _said(exc: Exception) -> str:
    """An exception's message; pint's own ``str()`` of an error can itself raise (its formatter
    fails on some units once other units were declared in the process), and a broken message must
    not turn a unit error into a crash."""
    try:
        return str(exc)
    except Exception:
        return type(exc).__name__
