"""Tolerances: small types with one job each.

Every tolerance has a compact string form, parsed in one place by :func:`parse_tolerance`:

=================  ==========================================================================
``printed``        the measured value rounds to the stated one at its printed precision
                   (half a unit in the last printed digit: "99.16" admits [99.155, 99.165]).
                   An :class:`~claimcheck.interval.Interval` passes when it overlaps that range.
``exact``          the measured value equals the stated one (counts, bytes, exact prices)
``abs:1e-4``       ``|measured - stated| <= 1e-4``
``rel:5%``         ``|measured - stated| <= 5% * |stated|`` (``rel:0.05`` means the same)
``>=10``           ``measured >= 10`` (a portable bar, independent of the stated value)
``<=1e-5``         ``measured <= 1e-5``
``range:2..3``     ``2 <= measured <= 3``
=================  ==========================================================================

``check(measured, stated)`` returns ``None`` when the value is within tolerance, else a one-line
human-readable reason. The vocabulary follows numpy's ``atol``/``rtol``. ``move_limit(old)`` says how
far a measured value may move between two runs before ``claimcheck diff`` reports it (the tolerance
applied with the old measurement in the place of the chapter's value).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from claimcheck.interval import Interval, half_unit, parse_decimal


class ToleranceError(ValueError):
    """A tolerance string that does not parse; the message names the bad text."""


def _num(text: str) -> float:
    """A tolerance's number as a finite float; ``1e999`` is a finite decimal but overflows a float."""
    x = float(parse_decimal(text))
    if not math.isfinite(x):
        raise ValueError(f"{text!r} is too large for a tolerance (beyond a float's range)")
    return x


def _fmt(x: float) -> str:
    return f"{x:.6g}"


def _as_interval(measured) -> Interval:
    return measured if isinstance(measured, Interval) else Interval.exact(measured)


def _check_finite(measured) -> str | None:
    values = (measured.lo, measured.hi) if isinstance(measured, Interval) else (measured,)
    if any(not math.isfinite(float(v)) for v in values):
        return f"measured value is not finite ({measured})"
    return None


class Tolerance:
    """Base class: one ``check`` method and a compact ``str`` form."""

    needs_stated = True

    def check(self, measured, stated: str | None) -> str | None:  # pragma: no cover - abstract
        raise NotImplementedError

    def region(self, stated: str | None) -> tuple[float, float]:  # pragma: no cover - abstract
        """The values this tolerance accepts, as a closed interval ``(lo, hi)`` (``-inf``/``inf``
        for an open side): every tolerance here accepts one interval, which is what lets a
        confidence interval be judged by :func:`claimcheck.verdict.bar_outcome`."""
        raise NotImplementedError

    def move_limit(
        self, old: float, stated: str | None = None, bound_move: float = 0.25
    ) -> tuple[float, str]:
        """Return (how far a measured value may move from ``old`` between two runs, the rule in words).

        The tolerance is applied to the move, with the old measurement ``old`` (in the claim's unit)
        in the place of the chapter's value; ``stated`` is the chapter's printed value (``printed``
        needs it); ``bound_move`` is the fraction of ``|old|`` a one-sided bar (``>=X``, ``<=X``),
        which has no width, allows.

        Raises:
            ValueError: ``printed`` without a stated number.
        """
        raise NotImplementedError  # pragma: no cover - abstract

    def __call__(self, measured, stated: str | None = None) -> str | None:
        bad = _check_finite(measured)
        if bad:
            return bad
        if self.needs_stated and stated is None:
            return f"tolerance {self} needs a stated value"
        return self.check(measured, stated)


@dataclass(frozen=True)
class Printed(Tolerance):
    """Within the printed precision of the stated value (the registry's default)."""

    def check(self, measured, stated):
        allowed = Interval.printed(stated)
        m = _as_interval(measured)
        if allowed.overlaps(m):
            return None
        return (
            f"{m} is outside {allowed}, the values that print as {stated} "
            f"(off by {_fmt(_distance(m, allowed))})"
        )

    def move_limit(self, old, stated=None, bound_move=0.25):
        if not stated:
            raise ValueError("tolerance 'printed' needs a stated value")
        h = float(half_unit(stated))
        return h, f"printed: more than half a unit in the last digit of {stated} ({h:g})"

    def __str__(self):
        return "printed"

    def region(self, stated):
        allowed = Interval.printed(stated)
        return float(allowed.lo), float(allowed.hi)


@dataclass(frozen=True)
class Exact(Tolerance):
    def check(self, measured, stated):
        s = _num(stated)
        m = _as_interval(measured)
        if m.lo == m.hi == s:
            return None
        return f"{m} != {stated} exactly (off by {_fmt(_distance(m, Interval.exact(s)))})"

    def move_limit(self, old, stated=None, bound_move=0.25):
        return 0.0, "exact: any change"

    def __str__(self):
        return "exact"

    def region(self, stated):
        return _num(stated), _num(stated)


@dataclass(frozen=True)
class Absolute(Tolerance):
    atol: float

    def check(self, measured, stated):
        d = _distance(_as_interval(measured), Interval.exact(_num(stated)))
        if d <= self.atol:
            return None
        return f"|measured - stated| = {_fmt(d)} > {_fmt(self.atol)}"

    def move_limit(self, old, stated=None, bound_move=0.25):
        return self.atol, f"{self}: more than {self.atol:g}"

    def __str__(self):
        return f"abs:{_fmt(self.atol)}"

    def region(self, stated):
        return _num(stated) - self.atol, _num(stated) + self.atol


@dataclass(frozen=True)
class Relative(Tolerance):
    rtol: float

    def check(self, measured, stated):
        s = _num(stated)
        d = _distance(_as_interval(measured), Interval.exact(s))
        limit = self.rtol * abs(s)
        if d <= limit:
            return None
        rel = d / abs(s) if s else math.inf
        return f"off by {_fmt(d)} ({rel:.2%} of {stated}) > {self.rtol:.4g} = {self.rtol:.2%}"

    def move_limit(self, old, stated=None, bound_move=0.25):
        return self.rtol * abs(old), f"{self}: more than {self.rtol:.4g} of the old value"

    def __str__(self):
        return f"rel:{self.rtol * 100:.6g}%"

    def region(self, stated):
        s = _num(stated)
        return s - self.rtol * abs(s), s + self.rtol * abs(s)


@dataclass(frozen=True)
class _Bar(Tolerance):
    """A one-sided bar (``>=X``, ``<=X``): independent of the stated value, and without width."""

    needs_stated = False

    def move_limit(self, old, stated=None, bound_move=0.25):
        # crossing the bar changes the outcome, which the diff reports as such
        return bound_move * abs(old), (
            f"{self} is a one-sided bar: more than {bound_move:.0%} of the old value (--bound-move)"
        )


@dataclass(frozen=True)
class AtLeast(_Bar):
    bound: float

    def check(self, measured, stated):
        m = _as_interval(measured)
        if m.hi >= self.bound:
            return None
        return f"{m} < {_fmt(self.bound)} (short by {_fmt(self.bound - m.hi)})"

    def __str__(self):
        return f">={_fmt(self.bound)}"

    def region(self, stated):
        return self.bound, math.inf


@dataclass(frozen=True)
class AtMost(_Bar):
    bound: float

    def check(self, measured, stated):
        m = _as_interval(measured)
        if m.lo <= self.bound:
            return None
        return f"{m} > {_fmt(self.bound)} (over by {_fmt(m.lo - self.bound)})"

    def __str__(self):
        return f"<={_fmt(self.bound)}"

    def region(self, stated):
        return -math.inf, self.bound


@dataclass(frozen=True)
class Range(Tolerance):
    lo: float
    hi: float
    needs_stated = False

    def check(self, measured, stated):
        m = _as_interval(measured)
        if m.overlaps(Interval(self.lo, self.hi)):
            return None
        return f"{m} is outside [{_fmt(self.lo)}, {_fmt(self.hi)}]"

    def move_limit(self, old, stated=None, bound_move=0.25):
        half = (self.hi - self.lo) / 2
        return half, f"{self}: more than the range's half-width {half:g}"

    def __str__(self):
        return f"range:{_fmt(self.lo)}..{_fmt(self.hi)}"

    def region(self, stated):
        return self.lo, self.hi


def _distance(a: Interval, b: Interval) -> float:
    """Gap between two intervals (0 when they overlap)."""
    return max(0.0, a.lo - b.hi, b.lo - a.hi)


def parse_tolerance(text: str) -> Tolerance:
    """Return the :class:`Tolerance` for a compact string such as ``"rel:5%"``.

    Raises:
        ToleranceError: the string is not one of the forms in this module's docstring; the
            message quotes the string.
    """
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
        if t.startswith("abs:"):
            value = _num(t[4:])
            if value < 0:
                raise ValueError("negative")
            return Absolute(value)
        if t.startswith("rel:"):
            body = t[4:].strip()
            value = _num(body[:-1]) / 100 if body.endswith("%") else _num(body)
            if value < 0:
                raise ValueError("negative")
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
