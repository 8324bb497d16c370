"""Tolerances: small types with one job each, parsed from a compact string by :func:`parse_tolerance`.

=================  ==========================================================================
``printed``        the measured value rounds to the stated one at its printed precision
                   ("99.16" admits [99.155, 99.165]); an Interval passes when it overlaps it
``exact``          the measured value equals the stated one (counts, bytes, exact prices)
``abs:1e-4``       ``|measured - stated| <= 1e-4``
``rel:5%``         ``|measured - stated| <= 5% * |stated|`` (``rel:0.05`` means the same)
``>=10``           ``measured >= 10`` (a portable bar, independent of the stated value)
``<=1e-5``         ``measured <= 1e-5``
``range:2..3``     ``2 <= measured <= 3``
=================  ==========================================================================

A tolerance owns its ``check``, ``region``, ``describe``, ``margin``, ``is_bound`` and
``move_limit`` (for ``claimcheck diff``): a new kind is a class here and its tests, nothing else.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

from claimcheck.display import difference, number, with_unit
from claimcheck.interval import Interval, exact_value, half_unit, parse_decimal


class ToleranceError(ValueError):
    """A tolerance string that does not parse; the message names the bad text."""


def _num(text: str | None) -> float:
    """A tolerance's number as a finite float; ``1e999`` is a finite decimal but overflows a float.
    None (no stated number) raises AttributeError, which :meth:`Tolerance.margin` catches."""
    x = float(parse_decimal(cast(str, text)))
    if not math.isfinite(x):
        raise ValueError(f"{text!r} is too large for a tolerance (beyond a float's range)")
    return x


def _fmt(x: float) -> str:
    return f"{x:.6g}"


@dataclass(frozen=True)
class Margin:
    """How far inside (``inside``) or outside the bar a measured value lies: ``text`` in the claim's
    unit; ``score`` for sorting, relative to the bar or a two-sided bar's half-width (1 = dead centre,
    0 = on the edge, negative outside)."""

    text: str
    inside: bool
    score: float


class Tolerance:
    """Base class: ``check``, a compact ``str`` form, its region and its words."""

    needs_stated = True
    form = ""  # str(): the compact form, each field's number in a {} (6 significant digits)

    def __str__(self) -> str:
        return self.form.format(*map(_fmt, vars(self).values()))

    @property
    def is_bound(self) -> bool:
        """Whether this is a bar the chapter's figure does not move (``>=X``, ``<=X``, ``range:A..B``)."""
        return not self.needs_stated

    def describe(self, stated: str | None, unit: str | None = None) -> str:  # pragma: no cover - abstract
        """The tolerance as a reader says it, with the values it admits in ``unit``. Raises ValueError,
        TypeError or AttributeError: it needs a stated number and ``stated`` is none."""
        raise NotImplementedError

    def _span(self, stated: str | None, unit: str | None) -> str:
        lo, hi = self.region(stated)
        return with_unit(f"[{number(lo, 6)}, {number(hi, 6)}]", unit)

    def margin(
        self, measured: Interval | float, stated: str | None, unit: str | None = None
    ) -> Margin | None:
        """The :class:`Margin` of ``measured`` (a number or an :class:`Interval`), or None without a
        region or for a value that is not finite."""
        try:
            lo, hi = self.region(stated)
        except (TypeError, ValueError, AttributeError):
            return None
        ends = (measured.lo, measured.hi) if isinstance(measured, Interval) else (measured, measured)
        if not all(math.isfinite(x) for x in ends):  # before Interval: a NaN makes no interval
            return None
        return _margin(float(ends[0]), float(ends[1]), lo, hi, unit)

    def check(self, measured: Interval | float, stated: str | None) -> str | None:
        raise NotImplementedError  # pragma: no cover - abstract

    def region(self, stated: str | None) -> tuple[float, float]:  # pragma: no cover - abstract
        """The values this tolerance accepts, one closed interval ``(lo, hi)`` (``±inf`` for an open side)."""
        raise NotImplementedError

    def move_limit(
        self, old: float, stated: str | None = None, bound_move: float = 0.25
    ) -> tuple[float, str]:
        """(How far a value may move from ``old`` between two runs, the rule in words): the tolerance with
        ``old`` as the chapter's value; a one-sided bar allows ``bound_move * |old|``. Raises ValueError:
        ``printed`` without a stated number."""
        raise NotImplementedError  # pragma: no cover - abstract

    def __call__(self, measured: Interval | float, stated: str | None = None) -> str | None:
        values = (measured.lo, measured.hi) if isinstance(measured, Interval) else (measured,)
        if any(not math.isfinite(float(v)) for v in values):
            return f"measured value is not finite ({measured})"
        if self.needs_stated and stated is None:
            return f"tolerance {self} needs a stated value"
        return self.check(measured, stated)


@dataclass(frozen=True)
class Printed(Tolerance):
    """Within the printed precision of the stated value (the registry's default)."""

    form = "printed"

    def check(self, measured: Interval | float, stated: str | None) -> str | None:
        allowed = Interval.printed(cast(str, stated))  # None: AttributeError, as _num
        m = Interval.coerce(measured)
        if allowed.overlaps(m):
            return None
        return f"{m} is outside {allowed}, the values that print as {stated} (off by {_fmt(_distance(m, allowed))})"

    def move_limit(
        self, old: float, stated: str | None = None, bound_move: float = 0.25
    ) -> tuple[float, str]:
        if not stated:
            raise ValueError("tolerance 'printed' needs a stated value")
        h = float(half_unit(stated))
        return h, f"printed: more than half a unit in the last digit of {stated} ({h:g})"

    def describe(self, stated: str | None, unit: str | None = None) -> str:
        return f"within half a unit of the last digit: {self._span(stated, unit)}"

    def region(self, stated: str | None) -> tuple[float, float]:
        allowed = Interval.printed(cast(str, stated))  # None: AttributeError, as _num
        return float(allowed.lo), float(allowed.hi)


@dataclass(frozen=True)
class Exact(Tolerance):
    form = "exact"

    def check(self, measured: Interval | float, stated: str | None) -> str | None:
        """Equal to the printed decimal ``stated`` exactly, as rationals: a float measured value is the
        shortest decimal that prints it (``exact_value``), so 36864.0 is not 36864.0000000000000000001."""
        s = _num(stated)
        m = Interval.coerce(measured)
        want = exact_value(cast(str, stated))  # not None: _num took it
        if exact_value(m.lo) == exact_value(m.hi) == want:
            return None
        off = _distance(m, Interval.exact(s)) or float(max(abs(exact_value(x) - want) for x in (m.lo, m.hi)))
        return f"{m} != {stated} exactly (off by {_fmt(off)})"

    def move_limit(
        self, old: float, stated: str | None = None, bound_move: float = 0.25
    ) -> tuple[float, str]:
        return 0.0, "exact: any change"

    def describe(self, stated: str | None, unit: str | None = None) -> str:
        self.region(stated)
        return "exactly " + with_unit(str(stated), unit)

    def region(self, stated: str | None) -> tuple[float, float]:
        return _num(stated), _num(stated)


@dataclass(frozen=True)
class Absolute(Tolerance):
    atol: float
    form = "abs:{}"

    def check(self, measured: Interval | float, stated: str | None) -> str | None:
        d = _distance(Interval.coerce(measured), Interval.exact(_num(stated)))
        if d <= self.atol:
            return None
        return f"|measured - stated| = {_fmt(d)} > {_fmt(self.atol)}"

    def move_limit(
        self, old: float, stated: str | None = None, bound_move: float = 0.25
    ) -> tuple[float, str]:
        return self.atol, f"{self}: more than {self.atol:g}"

    def describe(self, stated: str | None, unit: str | None = None) -> str:
        return f"within ±{number(self.atol)} of {stated}: {self._span(stated, unit)}"

    def region(self, stated: str | None) -> tuple[float, float]:
        return _num(stated) - self.atol, _num(stated) + self.atol


@dataclass(frozen=True)
class Relative(Tolerance):
    rtol: float

    def check(self, measured: Interval | float, stated: str | None) -> str | None:
        s = _num(stated)
        d = _distance(Interval.coerce(measured), Interval.exact(s))
        limit = self.rtol * abs(s)
        if d <= limit:
            return None
        rel = d / abs(s) if s else math.inf
        return f"off by {_fmt(d)} ({rel:.2%} of {stated}) > {self.rtol:.4g} = {self.rtol:.2%}"

    def move_limit(
        self, old: float, stated: str | None = None, bound_move: float = 0.25
    ) -> tuple[float, str]:
        return self.rtol * abs(old), f"{self}: more than {self.rtol:.4g} of the old value"

    def __str__(self) -> str:
        return f"rel:{self.rtol * 100:.6g}%"

    def describe(self, stated: str | None, unit: str | None = None) -> str:
        return f"within {number(self.rtol * 100)}% of {stated}: {self._span(stated, unit)}"

    def region(self, stated: str | None) -> tuple[float, float]:
        s = _num(stated)
        return s - self.rtol * abs(s), s + self.rtol * abs(s)


@dataclass(frozen=True)
class _Bar(Tolerance):
    """A one-sided bar (``>=X``, ``<=X``), independent of the stated value."""

    needs_stated = False

    def move_limit(
        self, old: float, stated: str | None = None, bound_move: float = 0.25
    ) -> tuple[float, str]:
        why = f"{self} is a one-sided bar: more than {bound_move:.0%} of the old value (--bound-move)"
        return bound_move * abs(old), why


@dataclass(frozen=True)
class AtLeast(_Bar):
    bound: float
    form = ">={}"

    def check(self, measured: Interval | float, stated: str | None) -> str | None:
        m = Interval.coerce(measured)
        if m.hi >= self.bound:
            return None
        return f"{m} < {_fmt(self.bound)} (short by {_fmt(self.bound - m.hi)})"

    def describe(self, stated: str | None, unit: str | None = None) -> str:
        return "at least " + with_unit(number(self.bound), unit)

    def region(self, stated: str | None) -> tuple[float, float]:
        return self.bound, math.inf


@dataclass(frozen=True)
class AtMost(_Bar):
    bound: float
    form = "<={}"

    def check(self, measured: Interval | float, stated: str | None) -> str | None:
        m = Interval.coerce(measured)
        if m.lo <= self.bound:
            return None
        return f"{m} > {_fmt(self.bound)} (over by {_fmt(m.lo - self.bound)})"

    def describe(self, stated: str | None, unit: str | None = None) -> str:
        return "at most " + with_unit(number(self.bound), unit)

    def region(self, stated: str | None) -> tuple[float, float]:
        return -math.inf, self.bound


@dataclass(frozen=True)
class Range(Tolerance):
    lo: float
    hi: float
    needs_stated = False
    form = "range:{}..{}"

    def check(self, measured: Interval | float, stated: str | None) -> str | None:
        m = Interval.coerce(measured)
        if m.overlaps(Interval(self.lo, self.hi)):
            return None
        return f"{m} is outside [{_fmt(self.lo)}, {_fmt(self.hi)}]"

    def move_limit(
        self, old: float, stated: str | None = None, bound_move: float = 0.25
    ) -> tuple[float, str]:
        half = (self.hi - self.lo) / 2
        return half, f"{self}: more than the range's half-width {half:g}"

    def describe(self, stated: str | None, unit: str | None = None) -> str:
        if self.lo == self.hi:  # range:2..2 admits one value: say it as such, not "between 2 and 2"
            return "exactly " + with_unit(number(self.lo), unit)
        return f"between {number(self.lo)} and " + with_unit(number(self.hi), unit)

    def region(self, stated: str | None) -> tuple[float, float]:
        return self.lo, self.hi


def _margin(mlo: float, mhi: float, lo: float, hi: float, unit: str | None) -> Margin:
    """The :class:`Margin` of measured values ``[mlo, mhi]`` against the region ``[lo, hi]``."""
    one_sided = math.isinf(lo) or math.isinf(hi)
    if mhi < lo or mlo > hi:  # outside
        gap, bar, near = (lo - mhi, lo, mhi) if mhi < lo else (mlo - hi, hi, mlo)
        if one_sided:
            rel = f" ({number(near, 3)} is {number(near / bar, 2)}× the bar)" if bar else ""
            said = f"{'short' if mhi < lo else 'over'} by {difference(number(gap, 3), unit)}{rel}"
            return Margin(said, False, -gap / abs(bar) if bar else -gap)
        half = (hi - lo) / 2
        return Margin(f"outside by {difference(number(gap, 3), unit)}", False, -gap / half if half else -gap)
    if mlo < mhi and (mlo < lo or mhi > hi):
        return Margin("overlaps the bar (an interval of values)", True, 0.0)
    if one_sided:
        bar, value, d, word = (lo, mlo, mlo - lo, "above") if math.isinf(hi) else (hi, mhi, hi - mhi, "below")
        if d == 0:
            return Margin("on the bar", True, 0.0)
        times = value / bar if bar else 0
        ratio = f", {number(times, 2)}× the bar" if times and not 0.67 < abs(times) < 1.5 else ""
        return Margin(
            f"{difference(number(d, 3), unit)} {word} the bar{ratio}", True, d / abs(bar) if bar else d
        )
    if lo == hi:
        return Margin("exact", True, 1.0)
    half = (hi - lo) / 2
    d = min(mlo - lo, hi - mhi)
    if mlo == mhi and abs(d - half) <= 1e-9 * max(1.0, abs(half)):
        return Margin("on the chapter's value", True, 1.0)
    if d <= 1e-9 * max(1.0, abs(half)):  # "inside by 0" said nothing: the value sits on an end of the bar
        ends = with_unit(f"[{number(lo, 3)}, {number(hi, 3)}]", unit)
        return Margin(f"on the edge of the bar {ends}", True, 0.0)
    return Margin(f"inside by {difference(number(d, 3), unit)} of ±{number(half, 3)}", True, d / half)


def _distance(a: Interval, b: Interval) -> float:
    """Gap between two intervals (0 when they overlap)."""
    return max(0.0, a.lo - b.hi, b.lo - a.hi)


def parse_tolerance(text: str) -> Tolerance:
    """The :class:`Tolerance` of a compact string (``"rel:5%"``). Raises ToleranceError (quoting it):
    none of the forms of this module's docstring."""
    if not isinstance(text, str):
        raise ToleranceError(f"tolerance must be a string such as 'printed' or 'rel:5%', got {text!r}")
    t = text.strip()
    try:
        if t == "printed":
            return Printed()
        if t == "exact":
            return Exact()
        if t.startswith(">="):
            return AtLeast(_num(t[2:]))
        if t.startswith("<="):
            return AtMost(_num(t[2:]))
        if t.startswith(("abs:", "rel:")):
            body = t[4:].strip()
            value = _num(body[:-1]) / 100 if t[:4] == "rel:" and body.endswith("%") else _num(body)
            if value < 0:
                raise ValueError("negative")
            if t[:4] == "abs:":
                return Absolute(value)
            if not body.endswith("%") and value > 1:
                raise ValueError(
                    f"a relative tolerance above 1 is {value:.0%}; write 'rel:{body}%' for {body} percent"
                )
            return Relative(value)
        if t.startswith("range:"):
            lo, sep, hi = t[6:].partition("..")
            if not sep:
                raise ValueError("missing '..'")
            lo_v, hi_v = _num(lo), _num(hi)
            if lo_v > hi_v:
                raise ValueError("lower bound above upper bound")
            return Range(lo_v, hi_v)
    except ValueError as exc:
        raise ToleranceError(f"bad tolerance {text!r}: {exc}") from None
    raise ToleranceError(
        f"bad tolerance {text!r}: expected printed, exact, abs:X, rel:X%, >=X, <=X or range:A..B"
    )
