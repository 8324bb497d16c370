"""Every claim's verdict, decided in one place (pure: no pytest, no torch): ``judge(claim,
evidence) -> Verdict``, on the typed evidence below. Besides the tolerance's passed and failed:

- a machine-bound claim (registry ``runner``) measured on another runner is ``skipped``;
- a near-tie that explains every difference is ``near-tie``;
- a timing interval passes wholly inside its bar, fails wholly outside, and is ``inconclusive``
  while it straddles it or covers less than its level, or lies outside it on a busy machine
  (stalls bias timing forms toward failing; exact forms fail whatever the load);
- evidence that cannot be judged (a unit, value or tolerance) is ``error``.
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from claimcheck.display import format_value, with_unit
from claimcheck.interval import CI, Interval, region_text
from claimcheck.outcomes import ERROR, FAILED, INCONCLUSIVE, NEAR_TIE, PASSED, SKIPPED, worse
from claimcheck.registry import Claim
from claimcheck.settings import SIZE_PROFILES
from claimcheck.tolerance import parse_tolerance
from claimcheck.units import convert


@dataclass(frozen=True)
class Verdict:
    """What a claim's evidence says: ``outcome`` (a word of :mod:`claimcheck.outcomes`), ``value`` (in
    the claim's unit), ``reason`` (None when passed), ``details`` (JSON facts for the report) and, for a
    skip, its ``cause`` (a key of :data:`claimcheck.pages.words.CAUSES`). How far the value clears its
    bar is the tolerance's to say (:meth:`claimcheck.tolerance.Tolerance.margin`)."""

    outcome: str
    value: Any = None
    reason: str | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    cause: str | None = None


@dataclass(frozen=True)
class Measured:
    """A number or :class:`~claimcheck.interval.Interval` in ``unit`` (pint syntax; None: the claim's)."""

    value: Any
    unit: str | None = None


@dataclass(frozen=True)
class Requirement:
    """A further condition: ``holds`` or not (``message`` says what failed); ``value`` (in ``unit``,
    default the claim's): the claim's headline value, when known."""

    holds: bool
    message: str
    value: Any = None
    unit: str | None = None


@dataclass(frozen=True)
class Compared:
    """A comparison with a reference: ``measured`` (what the tolerance judges, e.g. differing tokens),
    whether a near-tie explains the difference, whether one ``diverged`` that it does not, and one line."""

    measured: float
    near_tie: bool
    diverged: bool
    description: str


@dataclass(frozen=True)
class Form:
    """A portable form on another model: ``measured`` against ``expected`` (for that model) under
    ``tolerance`` (the registry's syntax)."""

    measured: Any
    expected: str
    tolerance: str = "exact"
    unit: str = ""
    form: str = ""


@dataclass(frozen=True)
class Bar:
    """A further timing statistic: its ``ci`` against its own bar ``region = (lo, hi)``."""

    name: str
    ci: CI
    region: tuple[float, float]
    text: str


@dataclass(frozen=True)
class ExactForm:
    """An exact form of a timing claim (a count, FLOPs): ``value`` against ``region = (lo, hi)``."""

    name: str
    value: float
    region: tuple[float, float]
    text: str


@dataclass(frozen=True)
class Timed:
    """A timing claim's ``ci`` over interleaved rounds in ``unit`` (None: the claim's), its further
    forms, ``rounds`` measured within ``budget_s`` seconds, the machine's ``load``, and the size
    ``profile`` they were measured at (None: not said)."""

    ci: CI
    unit: str | None = None
    bars: tuple[Bar, ...] = ()
    exact: tuple[ExactForm, ...] = ()
    rounds: int = 0
    budget_s: float | None = None
    load: Mapping[str, Any] = field(default_factory=dict)
    profile: str | None = None


Evidence = Measured | Requirement | Compared | Form | Timed


def bar_outcome(ci: CI, region: tuple[float, float]) -> str:
    """``passed`` if ``ci`` lies wholly inside ``region = (lo, hi)``, ``failed`` wholly outside, else (or
    with coverage below its level) ``inconclusive``."""
    if ci.coverage is not None and ci.coverage < ci.level:
        return INCONCLUSIVE
    lo, hi = region
    if lo <= ci.low and ci.high <= hi:
        return PASSED
    if ci.high < lo or ci.low > hi:
        return FAILED
    return INCONCLUSIVE


def claim_region(claim: Claim) -> tuple[float, float] | None:
    """The values the claim's tolerance accepts, ``(lo, hi)`` in its unit, or None where it has none."""
    try:
        return claim.tolerance.region(claim.stated or None)
    except (ValueError, TypeError):
        return None


def settled(claim: Claim, evidence: Timed) -> bool:
    """Whether more rounds cannot change what ``evidence`` says (the stopping rule of a timing
    measurement): every interval lies wholly inside or wholly outside its bar."""
    region = claim_region(claim)
    if region is None:
        return True
    ci = _converted_ci(evidence.ci, evidence.unit, claim.unit)
    return all(
        bar_outcome(c, r) != INCONCLUSIVE
        for c, r in [(ci, region)] + [(b.ci, b.region) for b in evidence.bars]
    )


def judge(claim: Claim, evidence: Evidence, *, runner: str | None = None) -> Verdict:
    """The verdict of ``evidence`` about ``claim`` on the runner profile ``runner`` (None: unnamed), by
    the module's rules. Raises TypeError: ``evidence`` is none of this module's types."""
    try:
        if isinstance(evidence, Measured):
            return _measured(claim, evidence, runner)
        if isinstance(evidence, Requirement):
            value = None if evidence.value is None else _convert(evidence.value, evidence.unit, claim.unit)
            if evidence.holds:
                return Verdict(PASSED, value)
            return Verdict(FAILED, value, evidence.message, details={"failed_condition": evidence.message})
        if isinstance(evidence, Compared):
            return _compared(claim, evidence, runner)
        if isinstance(evidence, Form):
            return _form(evidence)
        if isinstance(evidence, Timed):
            return _judge_timed(claim, evidence, runner)
    except (ValueError, TypeError, ArithmeticError) as exc:  # a unit, value or tolerance it cannot judge
        return Verdict(ERROR, None, f"{type(exc).__name__}: {exc}")
    raise TypeError(
        f"judge() takes Measured, Requirement, Compared, Form or Timed evidence, not {type(evidence).__name__}"
    )


def judge_all(claim: Claim, evidence: Iterable[Evidence], *, runner: str | None = None) -> Verdict:
    """The verdict of several pieces of ``evidence`` about ``claim`` (:func:`judge` each): the worst
    outcome, the last one's value, the reasons of those that did not pass joined by "; "."""
    verdicts = [judge(claim, e, runner=runner) for e in evidence]
    outcome = functools.reduce(worse, (v.outcome for v in verdicts), PASSED)
    reason = "; ".join(v.reason for v in verdicts if v.outcome != PASSED and v.reason)
    return Verdict(outcome, verdicts[-1].value if verdicts else None, reason or None)


def formula_evidence(value: Any, conditions: Iterable[tuple[str, bool, str]]) -> list[Evidence]:
    """A registry formula's evidence: each of its ``conditions`` (text, holds, both sides) a
    :class:`Requirement`, then its ``value`` (a number or an interval, in the claim's unit) :class:`Measured`."""
    evidence: list[Evidence] = [
        Requirement(ok, f"condition {text} does not hold: {sides}", value) for text, ok, sides in conditions
    ]
    return [*evidence, Measured(value)]


def _convert(value: Any, unit: str | None, to_unit: str) -> Any:
    """A measured value (numpy scalars as their number) in ``to_unit``; TypeError: not a finite number."""
    if getattr(value, "ndim", None) == 0 and hasattr(value, "item"):
        value = value.item()
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, int, float)):
        value = int(value) if isinstance(value, numbers.Integral) else float(value)
    if isinstance(value, bool) or not isinstance(value, (int, float, Interval)):
        raise TypeError(f"the measured value {value!r} is not a number")
    ends = (value.lo, value.hi) if isinstance(value, Interval) else (value,)
    if any(math.isnan(x) for x in ends) or (not isinstance(value, Interval) and math.isinf(value)):
        raise TypeError(f"the measured value {value!r} is not a finite number: the measurement broke")
    if unit is None or unit == to_unit:
        return value
    if isinstance(value, Interval):
        return Interval(convert(value.lo, unit, to_unit), convert(value.hi, unit, to_unit))
    return convert(value, unit, to_unit)


def _converted_ci(ci: CI, unit: str | None, to_unit: str) -> CI:
    if unit is None or unit == to_unit:
        return ci
    lo, hi, v = (_convert(x, unit, to_unit) for x in (ci.low, ci.high, ci.value))
    return CI(v, lo, hi, ci.level, ci.method, ci.n, ci.coverage)


def _machine_bound(
    claim: Claim, value: Any, runner: str | None, details: Mapping[str, Any] | None = None
) -> Verdict | None:
    if not claim.runner or runner == claim.runner:
        return None
    this = (
        f"this runner is '{runner}'" if runner else "this runner has no runner profile (--claims-runner NAME)"
    )
    reason = (
        f"machine-bound: the chapter's {with_unit(claim.stated, claim.unit)} was measured on runner "
        f"'{claim.runner}'; {this}, measured here {format_value(value, claim.unit)}. Its portable "
        f"form is checked by another claim; enforce this one with --claims-runner {claim.runner}."
    )
    return Verdict(
        SKIPPED, value, reason, {**(details or {}), "machine_bound": claim.runner}, "machine-bound"
    )


def _measured(claim: Claim, ev: Measured, runner: str | None) -> Verdict:
    value = _convert(ev.value, ev.unit, claim.unit)
    bound = _machine_bound(claim, value, runner)
    if bound is not None:
        return bound
    failure = claim.tolerance(value, claim.stated or None)
    return Verdict(FAILED if failure else PASSED, value, failure)


def _compared(claim: Claim, ev: Compared, runner: str | None) -> Verdict:
    n = ev.measured
    if ev.near_tie:
        return Verdict(NEAR_TIE, n, ev.description)
    if ev.diverged:
        why = claim.tolerance(n, claim.stated or None) or "differs"
        return Verdict(FAILED, n, f"{why}; {ev.description}")
    return _measured(claim, Measured(n), runner)


def _form(ev: Form) -> Verdict:
    tol = parse_tolerance(ev.tolerance)
    failure = tol(ev.measured, ev.expected)
    return Verdict(FAILED if failure else PASSED, ev.measured, failure, {"portable_form": ev.form})


def _judge_timed(claim: Claim, ev: Timed, runner: str | None) -> Verdict:
    ci = _converted_ci(ev.ci, ev.unit, claim.unit)
    region = claim_region(claim)
    if region is None:
        raise ValueError(
            f"tolerance {claim.tolerance_text} has no region to judge a confidence interval against"
        )
    # each bar's outcome, its words in the summary and its record in the details, from the evidence
    outcomes = {claim.id: bar_outcome(ci, region)}
    record_ci = {"low": ci.low, "high": ci.high, "value": ci.value, "level": ci.level, "method": ci.method}
    record_ci |= {"rounds": ci.n, "bar": region_text(region)}
    ci_text = f"{ci.level:.0%} CI [{ci.low:.4g}, {ci.high:.4g}] {claim.unit}".rstrip()
    said = [f"{claim.id}: {ci_text} vs bar {region_text(region)} -> {outcomes[claim.id]}"]
    bars = {}
    for b in ev.bars:
        o = outcomes[b.name] = bar_outcome(b.ci, b.region)
        bars[b.name] = {"text": b.text, "low": b.ci.low, "high": b.ci.high, "value": b.ci.value}
        bars[b.name] |= {"bar": region_text(b.region), "verdict": o}
        said.append(
            f"{b.name} ({b.text}): [{b.ci.low:.4g}, {b.ci.high:.4g}] vs {region_text(b.region)} -> {o}"
        )
    exact = {}
    exact_failed = False  # an exact form fails whatever the load
    for e in ev.exact:
        verdict = PASSED if e.region[0] <= e.value <= e.region[1] else FAILED
        exact_failed = exact_failed or verdict == FAILED
        exact[e.name] = {"text": e.text, "value": e.value, "bar": region_text(e.region), "verdict": verdict}
        said.append(f"{e.name} ({e.text}): {e.value} vs {region_text(e.region)} -> {verdict}")
    details: dict[str, Any] = {
        k: v for k, v in (("ci", record_ci), ("conditions", bars), ("exact", exact)) if v
    }
    summary = "; ".join(said)
    bound = _machine_bound(claim, ci.value, runner, details)
    if bound is not None:
        return bound
    load = dict(ev.load or {})
    timing_failed = [n for n, o in outcomes.items() if o == FAILED]
    if exact_failed or (timing_failed and not load.get("busy")):
        return Verdict(FAILED, ci.value, summary, details)
    if all(o == PASSED for o in outcomes.values()):
        return Verdict(PASSED, ci.value, None, details)
    reason = _inconclusive_reason(ev, ci, summary, timing_failed, load)
    return Verdict(INCONCLUSIVE, ci.value, reason, details)


def _inconclusive_reason(ev: Timed, ci: CI, summary: str, timing_failed: list[str], load: dict) -> str:
    distrusted = ""
    if timing_failed:
        distrusted = (
            f"; {', '.join(timing_failed)} lay outside the bar, but on a busy machine, whose stalls "
            "bias timing forms toward failing, so that is not taken as a failure"
        )
    budget = "?" if ev.budget_s is None else f"{ev.budget_s:g}"
    # only the profiles above the run's give more rounds (all but the first when it is not said)
    start = SIZE_PROFILES.index(ev.profile) + 1 if ev.profile in SIZE_PROFILES else 1
    later = SIZE_PROFILES[start:]
    larger = f"--claims-profile {'/'.join(later)}" if later else ""
    if ci.coverage is not None and ci.coverage < ci.level:
        more = f"a larger time budget: {larger}" if larger else "a quieter machine fits more in the budget"
        advice = (
            f". Too few rounds: {ci.n} samples give a distribution-free interval of only {ci.coverage:.0%} "
            f"coverage (below its {ci.level:.0%}), wherever it lies; more rounds decide it ({more})"
        )
    elif larger:
        advice = f". A quieter machine or a larger profile ({larger}) narrows the interval."
    else:
        advice = ". A quieter machine narrows the interval."
    return (
        f"inconclusive: {summary}{distrusted}; after {ev.rounds or ci.n} rounds within a budget of "
        f"{budget} s; machine load: {load.get('loadavg_1m', '?')} on "
        f"{load.get('cores', '?')} cores" + (f" (busy: {load['why']})" if load.get("busy") else "") + advice
    )
