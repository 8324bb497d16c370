"""Statistical verdicts of timing claims: confidence intervals over rounds, more rounds while
undecided, ``inconclusive`` when the time budget runs out (the rule of :mod:`claimcheck.stats`).

A timing claim names its *statistic* (a function of rounds, in the claim's unit, judged against
the claim's tolerance) and any *conditions* (further statistics with bars of their own, e.g. "the
speedup grows with length": its ratio at the longest vs the shortest length is at least 1).
:func:`decide_timing` evaluates each on every round alone (round i of every side, taken back to
back, so machine drift cancels within a round) and takes the distribution-free confidence interval
of the median of those per-round values (:func:`claimcheck.stats.median_ci`: its coverage is
exact, from the binomial distribution, whatever the noise's shape). An interval whose coverage is
below :data:`LEVEL` (too few rounds: 5 are needed at 90%) decides nothing. While any interval is
undecided and the claim's budget (seconds, from the profile) allows, it measures more rounds of
the shared measurement; then :meth:`claimcheck.recorder.ClaimRecorder.check_ci` passes, fails or
reports inconclusive.

Why not a bootstrap: with the few rounds a 2-core CI machine affords (3-7), a percentile bootstrap
of a median covers far less than its nominal level (about 75% at 3 rounds, by simulation), so a
straddling claim would be decided; the order-statistic interval says how much it covers. Taking
more rounds only while undecided still looks at the data more than once, which raises the error
rate above the nominal 5% per side; the budget bounds the looks.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Callable

from claimcheck.stats import CI, UNDECIDED, decide, median_ci, rounds_for

#: the confidence level of timing verdicts (two-sided, distribution-free: 5 rounds cover 93.75%)
LEVEL = 0.90


@dataclass(frozen=True)
class Condition:
    """A further statistic a timing claim requires, with its own bar.

    ``statistic``: rounds -> float; ``region``: accepted values ``(lo, hi)``; ``text``: what it
    says, for the report ("speedup at 128 over speedup at 32 tokens").
    """

    name: str
    statistic: Callable[[list], float]
    region: tuple[float, float]
    text: str


def per_round_ci(rounds_list, statistic, level: float = LEVEL) -> CI:
    """The confidence interval of the median of ``statistic`` evaluated on each round alone."""
    return median_ci([float(statistic([r])) for r in rounds_list], level)


def decide_timing(claim, rounds, statistic: Callable[[list], float], *, conditions=(), budget_s: float,
                  min_rounds: int | None = None, unit: str | None = None,
                  exact: dict | None = None, **details) -> None:
    """Decide a timing claim from ``rounds`` (a :class:`claimcheck.llm.timing.Rounds`), measuring
    more rounds while undecided, within ``budget_s`` seconds of extra measurement: one round at a
    time, each only when the rounds so far say it ends within the budget, so that a busy machine
    makes the claim ``inconclusive`` at its budget rather than slow.

    Args:
        claim: the ``claim`` fixture (:class:`claimcheck.recorder.ClaimRecorder`).
        statistic: rounds (``rounds.per_round()``) -> the claim's value, in ``unit`` (default the
            claim's unit); judged against the claim's tolerance.
        conditions: :class:`Condition` s that must hold too.
        budget_s: seconds of extra rounds this claim may spend (the profile's timing budget).
        min_rounds: rounds to have before deciding at all (default: the fewest whose interval
            covers :data:`LEVEL`, :func:`claimcheck.stats.rounds_for`); taken within the budget.
        exact: an exact, deterministic form checked beside the timing (name -> (value, region,
            text)); a failing exact form fails the claim whatever the timing says.
    Raises:
        pytest.fail.Exception, pytest.skip.Exception: through ``claim.check_ci``.
    """
    from claimcheck.llm.timing import machine_load

    region = claim.claim.tolerance.region(claim.claim.stated or None)
    min_rounds = rounds_for(LEVEL) if min_rounds is None else min_rounds
    spent_at_start = rounds.seconds
    t0 = time.perf_counter()
    step_s = 0.0  # how long the last extension took: no new one starts that would overrun the budget
    while True:
        per_round = rounds.per_round()
        primary = per_round_ci(per_round, statistic)
        cis = {c.name: per_round_ci(per_round, c.statistic) for c in conditions}
        # decide() is UNDECIDED too for an interval that covers less than its level (too few rounds)
        undecided = (decide(_converted(claim, primary, unit), region) == UNDECIDED
                     or any(decide(cis[c.name], c.region) == UNDECIDED for c in conditions))
        enough = rounds.n >= min_rounds
        if (enough and not undecided) or time.perf_counter() - t0 + step_s > budget_s:
            break
        # one round at a time, each only if the rounds so far say it ends within the budget: on a
        # busy machine the claim stops at its budget (inconclusive) instead of stretching
        t_step = time.perf_counter()
        rounds.run(1, within_s=max(0.0, budget_s - (time.perf_counter() - t0)))
        step_s = rounds.round_seconds
        if rounds.cut_short and time.perf_counter() - t_step < 1e-3:
            break  # not even one round fits what is left of the budget
    claim.check_ci(primary, unit, conditions=[(c, cis[c.name]) for c in conditions], exact=exact or {},
                   rounds=rounds.n, budget_s=budget_s, extra_seconds=round(time.perf_counter() - t0, 3),
                   measured_seconds=round(rounds.seconds, 3), load=machine_load(),
                   first_rounds_seconds=round(spent_at_start, 3), **details)


def _converted(claim, ci: CI, unit):
    if unit is None or unit == claim.claim.unit:
        return ci
    lo, hi, v = (claim.convert(x, unit) for x in (ci.low, ci.high, ci.value))
    return CI(v, lo, hi, ci.level, ci.method, ci.n, ci.coverage)
