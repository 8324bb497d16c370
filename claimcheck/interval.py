"""Interval arithmetic over printed numbers.

A number printed as ``99.16`` stands for every value that rounds to it: the half-open interval
[99.155, 99.165). Arithmetic on such intervals tells whether several printed numbers are
consistent with each other (e.g. ``5947 / 98`` against a printed ``60.6``), which is how the
chapter's own arithmetic (claims C11, C15, C26, C27, C30) is checked.

Bounds are floats computed from exact decimals; the tiny float rounding of the bounds is far
below the half-unit widths involved, and the boundary is treated as closed on both sides.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation


def decimals_of(text: str) -> int:
    """Return the number of digits after the decimal point in a printed number (``"0.10"`` -> 2)."""
    d = parse_decimal(text)
    exponent = d.as_tuple().exponent
    return max(0, -exponent) if isinstance(exponent, int) else 0


def half_unit(text: str) -> Decimal:
    """Return half a unit in the last printed digit of ``text`` (``"99.16"`` -> 0.005).

    Raises:
        ValueError: ``text`` is not a plain decimal number.
    """
    d = parse_decimal(text)
    exponent = d.as_tuple().exponent
    return Decimal(5).scaleb(int(exponent) - 1)


def parse_decimal(text: str) -> Decimal:
    """Return a printed number as an exact :class:`~decimal.Decimal`, keeping its printed digits.

    ``"0.10"`` -> ``Decimal("0.10")``; thousands separators and underscores are dropped
    (``"36,864"`` -> ``Decimal("36864")``). No unit, percent sign or myriad unit: those are read by
    :func:`claimcheck.printed.parse_number`.

    Raises:
        ValueError: ``text`` is not a plain decimal number, or not finite (``"inf"``, ``"nan"``).
    """
    try:
        d = Decimal(text.strip().replace(",", "").replace("_", ""))
    except InvalidOperation:
        raise ValueError(f"not a printed decimal number: {text!r}") from None
    if not d.is_finite():
        raise ValueError(f"not a finite number: {text!r}")
    return d


@dataclass(frozen=True)
class Interval:
    """A closed interval [lo, hi] of real numbers, with the arithmetic of interval analysis."""

    lo: float
    hi: float

    def __post_init__(self):
        if not (self.lo <= self.hi):
            raise ValueError(f"empty interval [{self.lo}, {self.hi}]")

    # --- construction -------------------------------------------------------------------
    @classmethod
    def printed(cls, text: str) -> Interval:
        """Return the values that round to ``text`` at its printed precision.

        ``Interval.printed("0.10") == Interval(0.095, 0.105)``.
        """
        d, h = parse_decimal(text), half_unit(text)
        return cls(float(d - h), float(d + h))

    @classmethod
    def exact(cls, value) -> Interval:
        """Return the degenerate interval [value, value] (a list price, a count)."""
        v = float(parse_decimal(value)) if isinstance(value, str) else float(value)
        return cls(v, v)

    @classmethod
    def coerce(cls, value) -> Interval:
        return value if isinstance(value, Interval) else cls.exact(value)

    # --- queries ------------------------------------------------------------------------
    @property
    def mid(self) -> float:
        return (self.lo + self.hi) / 2

    def contains(self, x: float, slack: float = 1e-12) -> bool:
        """Whether ``x`` lies in the interval (closed, with a relative float slack)."""
        eps = slack * max(1.0, abs(self.lo), abs(self.hi))
        return self.lo - eps <= x <= self.hi + eps

    def overlaps(self, other: Interval, slack: float = 1e-12) -> bool:
        """Whether the two intervals share a point that could be the value of both: a point value
        (an exact count) anywhere in the other, ends included; two intervals of positive width
        only over a stretch of positive length. Two printed figures' intervals that merely touch
        ([1.5, 2.5] and [2.5, 3.5]: 2 and 3) do not overlap, or "3" would hold for a 2.
        ``slack`` (relative) absorbs floating-point rounding at the ends."""
        other = Interval.coerce(other)
        eps = slack * max(1.0, abs(self.lo), abs(self.hi), abs(other.lo), abs(other.hi))
        if self.lo == self.hi or other.lo == other.hi:
            return self.lo - eps <= other.hi and other.lo - eps <= self.hi
        return min(self.hi, other.hi) - max(self.lo, other.lo) > eps

    # --- arithmetic ---------------------------------------------------------------------
    def __add__(self, other):
        o = Interval.coerce(other)
        return Interval(self.lo + o.lo, self.hi + o.hi)

    __radd__ = __add__

    def __neg__(self):
        return Interval(-self.hi, -self.lo)

    def __sub__(self, other):
        return self + (-Interval.coerce(other))

    def __rsub__(self, other):
        return Interval.coerce(other) - self

    def __mul__(self, other):
        o = Interval.coerce(other)
        products = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        return Interval(min(products), max(products))

    __rmul__ = __mul__

    def __truediv__(self, other):
        o = Interval.coerce(other)
        if o.lo <= 0 <= o.hi:
            raise ZeroDivisionError(f"division by an interval containing 0: {o}")
        return self * Interval(1 / o.hi, 1 / o.lo)

    def __rtruediv__(self, other):
        return Interval.coerce(other) / self

    def map_monotone(self, fn) -> Interval:
        """Apply a function that is monotone on the interval (increasing or decreasing)."""
        a, b = fn(self.lo), fn(self.hi)
        return Interval(min(a, b), max(a, b))

    def __str__(self) -> str:
        if self.lo == self.hi:
            return f"{self.lo:.6g}"
        return f"[{self.lo:.6g}, {self.hi:.6g}]"
