"""Bounds (bits) on surprisal and entropy of a next-token distribution known only by printed numbers.

A chapter about language models prints a few top-k probabilities ("99.16%") and a vocabulary size;
these functions turn such printed numbers, as :class:`~claimcheck.interval.Interval` values (the
values that round to what is printed), into the range of surprisal and entropy they allow. Pure
interval arithmetic, in the core because registry formulas (:mod:`claimcheck.formula`) call them;
the measured counterparts (from a model's logits) are in :mod:`claimcheck.llm.lm`.
"""

from __future__ import annotations

import math

from claimcheck.interval import Interval


def surprisal_bits(p: Interval) -> Interval:
    """Surprisal -log2(p) in bits of a probability interval (decreasing in p)."""
    if p.lo <= 0:
        raise ValueError(f"probability interval must be > 0: {p}")
    return p.map_monotone(lambda x: -math.log2(x))


def entropy_term_bits(p: Interval) -> Interval:
    """The range of -p*log2(p) (bits) over a probability interval.

    The function rises on (0, 1/e] and falls on [1/e, 1], so the maximum is at 1/e when the
    interval contains it.
    """

    def f(x: float) -> float:
        return 0.0 if x <= 0 else -x * math.log2(x)

    ends = (f(max(p.lo, 0.0)), f(min(p.hi, 1.0)))
    hi = max(ends)
    if p.lo <= 1 / math.e <= p.hi:
        hi = f(1 / math.e)
    return Interval(min(ends), hi)


def entropy_bounds_from_top_k(probs: list[Interval], vocab_size: int) -> Interval:
    """Bounds (bits) on the entropy of a distribution known only by its top-k probabilities.

    ``probs`` are the k largest probabilities, as intervals, in decreasing order; the remaining
    mass r = 1 - sum(probs) is spread over the other ``vocab_size - k`` entries, each no larger
    than the k-th. The remainder's entropy is least when r sits on as few entries as possible at
    the k-th probability (at least ``r * -log2(p_k.hi)`` bits) and greatest when r is uniform over
    the other entries (at most ``r * log2((vocab_size - k) / r)`` bits).

    Source: standard entropy bounds (Cover & Thomas, *Elements of Information Theory*, 2.6).

    Raises:
        ValueError: the listed probabilities cannot sum to at most 1.
    """
    k = len(probs)
    listed = Interval(0.0, 0.0)
    total = Interval(0.0, 0.0)
    for p in probs:
        listed = listed + entropy_term_bits(p)
        total = total + p
    if total.lo > 1:
        raise ValueError(f"listed probabilities sum to more than 1: {total}")
    rest = Interval(max(0.0, 1 - total.hi), 1 - total.lo)
    p_k_hi = probs[-1].hi
    rest_lo = rest.lo * -math.log2(p_k_hi) if rest.lo > 0 else 0.0
    others = vocab_size - k
    rest_hi = rest.hi * math.log2(others / rest.hi) if rest.hi > 0 else 0.0
    return listed + Interval(rest_lo, max(rest_lo, rest_hi))
