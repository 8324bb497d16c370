"""Interval arithmetic over printed numbers (``99.16`` stands for [99.155, 99.165], so ``5947 / 98``
can be checked against ``60.6``; closed, float bounds from exact decimals), and confidence intervals
of timing statistics (last section)."""

from __future__ import annotations

import itertools
import math
import statistics
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any


def decimals_of(text: str) -> int:
    """The number of digits after the decimal point in a printed number (``"0.10"`` -> 2)."""
    return max(0, -int(parse_decimal(text).as_tuple().exponent))  # finite: the exponent is an int


def half_unit(text: str) -> Decimal:
    """Half a unit in the last printed digit of ``text`` (``"99.16"`` -> 0.005). Raises ValueError:
    not a plain decimal number."""
    return Decimal(5).scaleb(int(parse_decimal(text).as_tuple().exponent) - 1)


def parse_decimal(text: str) -> Decimal:
    """A printed number as an exact :class:`~decimal.Decimal` with its printed digits (``"36,864"`` ->
    ``Decimal("36864")``; units are :func:`claimcheck.printed.parse_number`'s). Raises ValueError: not
    a plain decimal number, or not finite."""
    try:
        d = Decimal(text.strip().replace(",", "").replace("_", ""))
    except InvalidOperation:
        raise ValueError(f"not a printed decimal number: {text!r}") from None
    if not d.is_finite():
        raise ValueError(f"not a finite number: {text!r}")
    return d


def exact_value(x: str | float | Decimal | Fraction) -> Fraction:
    """``x`` as the exact rational number it stands for: an int or Fraction as itself, a printed string or
    a Decimal by its digits, a float as the shortest decimal that prints it (``repr``: 0.1 is 1/10, not
    the binary 0.1000000000000000055...). Raises ValueError: not a finite number."""
    if isinstance(x, str):
        return Fraction(parse_decimal(x))
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"not a finite number: {x!r}")
        return Fraction(Decimal(repr(x)))
    if isinstance(x, Decimal) and not x.is_finite():
        raise ValueError(f"not a finite number: {x!r}")
    return Fraction(x)


def _is_exact(x: object) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


@dataclass(frozen=True)
class Interval:
    """A closed interval [lo, hi] of real numbers, with the arithmetic of interval analysis: float ends,
    or exact rationals (:meth:`exact_decimal`), whose arithmetic stays exact."""

    lo: float  # or a Fraction (an exact interval), typed as float: it does a float's arithmetic exactly
    hi: float

    def __post_init__(self) -> None:
        if not (self.lo <= self.hi):
            raise ValueError(f"empty interval [{self.lo}, {self.hi}]")

    @classmethod
    def printed(cls, text: str) -> Interval:
        """The values that round to ``text`` at its printed precision: ``"0.10"`` -> [0.095, 0.105]."""
        d, h = parse_decimal(text), half_unit(text)
        return cls(float(d - h), float(d + h))

    @classmethod
    def exact(cls, value: str | float) -> Interval:
        """The degenerate interval [value, value] (a list price, a count)."""
        v = float(parse_decimal(value)) if isinstance(value, str) else float(value)
        return cls(v, v)

    @classmethod
    def exact_decimal(cls, text: str) -> Interval:
        """The degenerate interval of a printed number with exact rational ends (``"0.1"`` -> [1/10,
        1/10]): arithmetic on such intervals is exact (``+ - * /``). Raises ValueError: not a plain
        decimal number."""
        v: Any = exact_value(text)
        return cls(v, v)

    @property
    def is_exact(self) -> bool:
        """Whether both ends are exact rationals (ints or Fractions), not floats."""
        return _is_exact(self.lo) and _is_exact(self.hi)

    def as_float(self) -> Interval:
        """The interval with float ends (rounding is monotone: lo stays <= hi)."""
        return Interval(float(self.lo), float(self.hi))

    @classmethod
    def coerce(cls, value: Interval | str | float) -> Interval:
        return value if isinstance(value, Interval) else cls.exact(value)

    @property
    def mid(self) -> float:
        return (self.lo + self.hi) / 2

    def contains(self, x: float, slack: float = 1e-12) -> bool:
        """Whether ``x`` lies in the interval (closed, with a relative float slack)."""
        eps = slack * max(1.0, abs(self.lo), abs(self.hi))
        return self.lo - eps <= x <= self.hi + eps

    def overlaps(self, other: Interval, slack: float = 1e-12) -> bool:
        """Whether the intervals share a point that could be the value of both: a point anywhere in the
        other, ends included; two of positive width over a positive length (printed 2 and 3 do not).
        ``slack`` (relative) absorbs floating-point rounding at the ends."""
        other = Interval.coerce(other)
        eps = slack * max(1.0, abs(self.lo), abs(self.hi), abs(other.lo), abs(other.hi))
        if self.is_exact and other.is_exact:  # exact ends have no rounding to absorb
            eps = 0
        if self.lo == self.hi or other.lo == other.hi:
            return self.lo - eps <= other.hi and other.lo - eps <= self.hi
        return min(self.hi, other.hi) - max(self.lo, other.lo) > eps

    def __add__(self, other: Interval | float) -> Interval:
        o = Interval.coerce(other)
        return Interval(self.lo + o.lo, self.hi + o.hi)

    __radd__ = __add__

    def __neg__(self) -> Interval:
        return Interval(-self.hi, -self.lo)

    def __sub__(self, other: Interval | float) -> Interval:
        return self + (-Interval.coerce(other))

    def __rsub__(self, other: Interval | float) -> Interval:
        return Interval.coerce(other) - self

    def __mul__(self, other: Interval | float) -> Interval:
        o = Interval.coerce(other)
        products = (self.lo * o.lo, self.lo * o.hi, self.hi * o.lo, self.hi * o.hi)
        return Interval(min(products), max(products))

    __rmul__ = __mul__

    def __truediv__(self, other: Interval | float) -> Interval:
        o = Interval.coerce(other)
        if o.lo <= 0 <= o.hi:
            raise ZeroDivisionError(f"division by an interval containing 0: {o}")
        return self * Interval(1 / o.hi, 1 / o.lo)

    def __rtruediv__(self, other: Interval | float) -> Interval:
        return Interval.coerce(other) / self

    def map_monotone(self, fn: Callable[[float], float]) -> Interval:
        """Apply a function that is monotone on the interval (increasing or decreasing)."""
        a, b = fn(self.lo), fn(self.hi)
        return Interval(min(a, b), max(a, b))

    def __str__(self) -> str:
        if self.lo == self.hi:
            return f"{float(self.lo):.6g}"
        return f"[{float(self.lo):.6g}, {float(self.hi):.6g}]"


# --- Confidence intervals of timing statistics over interleaved rounds, judged against a claim's bar
# by :func:`claimcheck.verdict.bar_outcome`: :func:`median_ci` is distribution-free (order statistics;
# Hollander & Wolfe, *Nonparametric Statistical Methods*, ch. 3); docs/timing.md says why no bootstrap.

#: the confidence level of every timing claim
LEVEL = 0.95


@dataclass(frozen=True)
class CI:
    """A confidence interval ``[low, high]`` of a statistic estimated as ``value``, of nominal
    ``level``, with its exact ``coverage`` where known, its ``method`` and its ``n`` rounds."""

    value: float
    low: float
    high: float
    level: float
    method: str
    n: int
    coverage: float | None = None

    def __post_init__(self) -> None:
        if not (self.low <= self.high):
            raise ValueError(f"confidence interval with low {self.low} above high {self.high}")


def rounds_for(level: float) -> int:
    """The fewest samples whose :func:`median_ci` covers at least ``level`` (5 at 90%, 6 at 95%)."""
    return next(n for n in itertools.count(1) if 1 - 2 * _binom_cdf(0, n) >= level)


def _binom_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2**n


def median_ci(xs: Iterable[float], level: float = LEVEL) -> CI:
    """The distribution-free CI of the median of ``xs``: ``[x_(k), x_(n+1-k)]`` with the largest ``k``
    whose coverage ``1 - 2 P(X <= k-1)``, X ~ Binomial(n, 1/2), is at least ``level``; with too few
    samples ``[min, max]`` and its ``coverage``. Raises ValueError: no ``xs``, or ``level`` not in (0, 1)."""
    s = sorted(float(x) for x in xs)
    n = len(s)
    if n == 0:
        raise ValueError("median_ci needs at least one sample")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    covered = itertools.takewhile(lambda k: 1 - 2 * _binom_cdf(k - 1, n) >= level, range(1, n // 2 + 1))
    best = max(covered, default=1)
    coverage = 1 - 2 * _binom_cdf(best - 1, n) if n > 1 else 0.0
    method = "order statistics of the median"
    return CI(statistics.median(s), s[best - 1], s[n - best], level, method, n, coverage)


def region_text(region: tuple[float, float]) -> str:
    """The bar in words: ``at least 10``, ``at most 0.5``, ``between 1.5 and 2.5``."""
    lo, hi = region
    if hi == math.inf:
        return f"at least {lo:.6g}"
    if lo == -math.inf:
        return f"at most {hi:.6g}"
    if lo == hi:
        return f"exactly {lo:.6g}"
    return f"between {lo:.6g} and {hi:.6g}"
