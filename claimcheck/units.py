"""Units of the claims registry, on top of pint: the units pint lacks (:data:`UNITS`), those a
registry declares in its ``[units]`` table (:func:`declare`), and the one parser of unit strings.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: pint is imported late, where a unit is parsed
    import pint

#: Units that pint does not define: (pint's definition, what it is), for docs/reference/units.md.
UNITS = (
    ("token = [token] = tok", "a token of a tokenizer; never converted to bytes or words"),
    ("FLOP = [flop]", "one floating-point operation (a multiply-add is 2 FLOPs)"),
    ("param = [param]", "one parameter (weight) of a model"),
    ("example = [example]", "one solved example in a prompt (few-shot)"),
    ("forward_pass = [forward_pass] = pass", "one forward pass of a model"),
    ("USD = [currency] = 美元", "US dollars"),
    # a second currency is a dimension of its own: USD -> CNY is an error, never a silent conversion
    ("CNY = [currency_cny] = 元 = yuan = RMB", "yuan; never converted to or from USD (no exchange rate)"),
    ("Mtok = 1e6 * token", "a million tokens (prices per million tokens)"),
    ("wan = 1e4 = 万", "the Chinese myriad, 10^4 (a number: 2.4 万 token = 24,000 token)"),
    ("yi = 1e8 = 亿", "10^8 (70 亿 param = 7 × 10^9 param)"),
    ("times = 1 = x", 'a ratio ("60 倍", "60x"): a plain number'),
)

#: Pint's own units that chapters print most (the reference page lists them; all parse)
COMMON = ("B", "KiB", "MiB", "GiB", "kB", "MB", "GB", "bit", "s", "ms", "us", "ns", "percent", "W", "Hz")

#: The units a chapter's registry declares (``[units]``): name -> definition, in this process.
_DECLARED: dict[str, str] = {}


class UnitError(ValueError):
    """A unit string that pint cannot parse with the registry's definitions."""


@functools.lru_cache(maxsize=1)
def ureg() -> pint.UnitRegistry:
    """The shared pint ``UnitRegistry``, with :data:`UNITS` defined."""
    import pint  # late: ~0.2 s, paid only by a registry that has units to check (start-up time)

    reg: pint.UnitRegistry = pint.UnitRegistry()
    for definition, _ in UNITS:
        reg.define(definition)
    _DECLARED.clear()  # a fresh registry knows none of the chapters' units yet
    return reg


def declare(name: str, definition: str) -> None:
    """Define the unit ``name`` as ``definition`` (``"[merge]"``, ``"1000 * merge"``) in the shared
    registry, for the whole process; declaring it again with the same definition is a no-op. Raises
    UnitError: ``name`` is not an identifier or is already a unit (pint's or the kit's), or was declared
    with another definition, or pint cannot read ``definition``."""
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
    _check_definition(reg, name, definition)
    try:
        reg.define(f"{name} = {definition}")
        reg.parse_units(name)
    except Exception as exc:  # pint raises several error types (DefinitionSyntaxError, ValueError, ...)
        raise UnitError(
            f"{name} = {definition!r}: pint cannot read it ({type(exc).__name__}: {_said(exc)})"
        ) from None
    _DECLARED[name] = definition


#: What pint reads in a definition besides the expression: aliases and symbols (``=``), directives
#: (``@alias``, ``@context``), an offset (``; offset: 10``), a comment, a second line.
_NOT_ONE_EXPRESSION = re.compile(r"[=@;:#\x00-\x1f\x7f-\x9f]")
#: A power a definition may hold: a unit word to at most two digits, not raised again (``m**2``).
_POWER = re.compile(r"(\*\*|\^)")
_SMALL_POWER = re.compile(r"[^\W\d]\w*\s*(?:\*\*|\^)\s*[-+]?\d{1,2}(?!\s*[\w.(*^])")
_DIMENSION = re.compile(r"\[[^\W\d]\w*\]")


def _check_definition(reg: pint.UnitRegistry, name: str, definition: str) -> None:
    """Refuse, before pint reads it, a definition that is not one expression of known units: an alias
    (``"2 * token = s"`` would make every chapter's ``s`` two tokens), a directive, a second line, a
    power pint would compute for minutes (``10**99999999``), a unit of itself or of another undeclared
    one, a magnitude that is not a positive finite number (``0 * token``, ``nan * token``). Raises
    UnitError naming the definition."""
    head = f"{name} = {definition!r}"
    if _NOT_ONE_EXPRESSION.search(definition):
        raise UnitError(
            f'{head}: a definition is one expression on one line, such as "[{name}]" or "1000 * token"'
            " (no '=' alias, no '@' directive, no ';', ':' or '#')"
        )
    if _DIMENSION.fullmatch(definition):
        if definition in getattr(reg, "_dimensions", {}):  # "[time]": a second base unit of time
            raise UnitError(f'{head}: {definition} is already a dimension; a new kind is "[{name}]"')
        return
    powers = len(_POWER.findall(definition))
    if powers != len(_SMALL_POWER.findall(definition)):
        raise UnitError(f"{head}: a power in a definition is a unit to a small integer (m**2, up to 99)")
    try:
        magnitude = float(reg.parse_expression(definition).to_root_units().magnitude)
    except Exception as exc:  # undefined unit (itself too), syntax, overflow: pint raises many types
        raise UnitError(f"{head}: pint cannot read it ({type(exc).__name__}: {_said(exc)})") from None
    if not (math.isfinite(magnitude) and magnitude > 0):
        raise UnitError(f"{head}: its size is {magnitude!r}; a unit is a positive finite multiple")


def declared_elsewhere(text: str, own: Iterable[str]) -> list[str]:
    """The sorted declared units that the unit expression ``text`` uses (prefixed or plural too) and
    that are not among ``own``, the names a registry declares itself (such a claim would hold only
    when another chapter is loaded first)."""
    others = set(declared()) - set(own)
    if not others:
        return []
    reg = ureg()
    words = re.findall(r"[^\W\d]\w*", text)
    return sorted({name for word in words for _, name, _ in reg.parse_unit_name(word) if name in others})


def declared() -> dict[str, str]:
    """The units declared so far in this process (name -> definition)."""
    ureg()
    return dict(_DECLARED)


def parse_unit(text: str) -> pint.Unit:
    """The pint unit for ``text`` ("" means dimensionless). Raises UnitError: not a unit pint reads."""
    reg = ureg()
    if text.strip() == "":
        return reg.dimensionless
    try:
        return reg.parse_units(text)
    except Exception as exc:  # pint raises several error types (UndefinedUnitError, ValueError, ...)
        raise UnitError(f"unknown unit {text!r} ({type(exc).__name__}: {_said(exc)})") from None


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """``value`` expressed in ``to_unit``: ``convert(36864, "B/token", "KiB/token") == 36.0``. Raises
    UnitError: either unit is unknown, or the two have different dimensions."""
    reg = ureg()
    src, dst = parse_unit(from_unit), parse_unit(to_unit)
    try:
        return float(reg.Quantity(value, src).to(dst).magnitude)
    except Exception as exc:
        raise UnitError(f"cannot convert {from_unit!r} to {to_unit!r}: {_said(exc)}") from None


def _said(exc: Exception) -> str:
    """An exception's message, or its type's name when ``str()`` raises (pint's can)."""
    try:
        return str(exc)
    except Exception:
        return type(exc).__name__
