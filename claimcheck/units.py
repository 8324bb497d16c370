"""Units of the claims registry, on top of pint.

The chapter prints numbers in bytes (KiB = 1024 B, MB = 10**6 B), token/s, seconds, bits,
percent, US dollars and yuan (元, CNY; no conversion between them), and Chinese myriad units (万 = 10**4, 亿 = 10**8). Pint knows the SI and
binary prefixes; this module adds the few units the chapter needs and parses unit strings in one
place, so that a registry entry's unit is validated when the registry is loaded.
"""

from __future__ import annotations

import functools

# Units that pint does not define, in pint's definition syntax.
_DEFINITIONS = (
    "token = [token] = tok",
    "FLOP = [flop]",
    "param = [param]",
    "example = [example]",
    "forward_pass = [forward_pass] = pass",
    "USD = [currency] = 美元",
    # a second currency is a dimension of its own: no exchange rate is assumed, so USD -> CNY is an
    # error, never a silent conversion
    "CNY = [currency_cny] = 元 = yuan = RMB",
    "Mtok = 1e6 * token",
    "wan = 1e4 = 万",
    "yi = 1e8 = 亿",
    "times = 1 = x",
)


class UnitError(ValueError):
    """A unit string that pint cannot parse with the registry's definitions."""


@functools.lru_cache(maxsize=1)
def ureg():
    """Return the shared pint ``UnitRegistry`` with the chapter's extra units defined."""
    import pint

    reg = pint.UnitRegistry()
    for definition in _DEFINITIONS:
        reg.define(definition)
    return reg


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
        raise UnitError(f"unknown unit {text!r} ({type(exc).__name__}: {exc})") from None


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
        raise UnitError(f"cannot convert {from_unit!r} to {to_unit!r}: {exc}") from None
