"""Confidence intervals of timing statistics (the decision rule is :func:`claimcheck.verdict.bar_outcome`).

Timing on a shared machine is noisy, so a timing claim is decided from an interval, not from a
point: from the interleaved rounds of a measurement (round i of every side taken back to back),
each claim computes a confidence interval of its statistic and

- **passes** when the whole interval lies inside the claim's bar (its tolerance's region),
- **fails** when the whole interval lies outside it,
- is **inconclusive** otherwise: the caller takes more rounds, up to the claim's time budget, and
  then reports ``inconclusive`` with the interval (:mod:`claimcheck.verdict`).

Two intervals, both distribution-free:

- :func:`median_ci`: the order-statistic interval of a median (no resampling; exact coverage from
  the binomial distribution; Hollander & Wolfe, *Nonparametric Statistical Methods*, ch. 3);
- :func:`bootstrap_ci`: a percentile bootstrap over rounds for any statistic of paired samples
  (a ratio of medians, a fitted exponent), as Criterion.rs resamples its measurements (Efron &
  Tibshirani, *An Introduction to the Bootstrap*, ch. 13). Deterministic: a fixed seed, so the
  same samples always give the same interval.

Pure Python, no torch (the core); tested against hand-computed values in ``tests/core/test_stats.py``.
"""

from __future__ import annotations

import math
import random
import statistics
from dataclasses import asdict, dataclass

#: the confidence level of every timing claim
LEVEL = 0.95


@dataclass(frozen=True)
class CI:
    """A confidence interval ``[low, high]`` of a statistic whose point estimate is ``value``.

    ``level`` is the nominal confidence (e.g. 0.95), ``coverage`` the actual one where it is known
    exactly (order statistics), ``method`` how it was computed, ``n`` the rounds it rests on.
    """

    value: float
    low: float
    high: float
    level: float
    method: str
    n: int
    coverage: float | None = None

    def __post_init__(self):
        if not (self.low <= self.high):
            raise ValueError(f"confidence interval with low {self.low} above high {self.high}")

    def as_dict(self) -> dict:
        return asdict(self)


def rounds_for(level: float) -> int:
    """The fewest samples whose :func:`median_ci` covers at least ``level`` (5 at 90%, 6 at 95%)."""
    n = 1
    while 1 - 2 * _binom_cdf(0, n) < level:
        n += 1
    return n


def _binom_cdf(k: int, n: int) -> float:
    """P(X <= k) for X ~ Binomial(n, 1/2)."""
    return sum(math.comb(n, i) for i in range(k + 1)) / 2**n


def median_ci(xs, level: float = LEVEL) -> CI:
    """Return the distribution-free confidence interval of the median of ``xs``.

    The interval is ``[x_(k), x_(n+1-k)]`` (order statistics, 1-based) with the largest ``k`` whose
    coverage ``1 - 2 P(X <= k-1)``, X ~ Binomial(n, 1/2), is at least ``level``. With too few
    samples for ``level`` (n <= 5 at 95%) the interval is ``[min, max]`` and ``coverage`` says
    how much less it covers (e.g. 0.9375 for n = 5).

    Raises:
        ValueError: ``xs`` is empty or ``level`` is not in (0, 1).
    """
    s = sorted(float(x) for x in xs)
    n = len(s)
    if n == 0:
        raise ValueError("median_ci needs at least one sample")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    best = 1
    for k in range(1, n // 2 + 1):
        if 1 - 2 * _binom_cdf(k - 1, n) >= level:
            best = k
        else:
            break
    coverage = 1 - 2 * _binom_cdf(best - 1, n) if n > 1 else 0.0
    return CI(
        statistics.median(s), s[best - 1], s[n - best], level, "order statistics of the median", n, coverage
    )


def bootstrap_ci(rounds, statistic, level: float = LEVEL, resamples: int = 2000, seed: int = 0) -> CI:
    """Return the percentile-bootstrap confidence interval of ``statistic(rounds)``.

    Args:
        rounds: a sequence of rounds; each round is whatever ``statistic`` takes a list of (e.g. a
            dict of the samples of every side taken in that round). Rounds are resampled whole,
            so paired sides stay paired.
        statistic: a function of a list of rounds returning a float (e.g. the ratio of medians).
        level: the confidence level; the interval is the (1-level)/2 and (1+level)/2 quantiles of
            the statistic over ``resamples`` resamples with replacement.
        seed: the resampling seed (the same samples always give the same interval).
    Returns:
        :class:`CI` with ``value = statistic(rounds)``.
    Raises:
        ValueError: no rounds, or ``level`` not in (0, 1).
    """
    rounds = list(rounds)
    if not rounds:
        raise ValueError("bootstrap_ci needs at least one round")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    value = float(statistic(rounds))
    if len(rounds) == 1:
        return CI(value, value, value, level, "bootstrap over rounds (1 round: no spread known)", 1, 0.0)
    rng = random.Random(seed)
    n = len(rounds)
    stats = sorted(float(statistic([rounds[rng.randrange(n)] for _ in range(n)])) for _ in range(resamples))
    lo = _quantile(stats, (1 - level) / 2)
    hi = _quantile(stats, (1 + level) / 2)
    return CI(
        value,
        min(lo, value),
        max(hi, value),
        level,
        f"percentile bootstrap over rounds ({resamples} resamples)",
        n,
    )


def _quantile(sorted_xs, q: float) -> float:
    pos = q * (len(sorted_xs) - 1)
    lo = int(math.floor(pos))
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (pos - lo)


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
