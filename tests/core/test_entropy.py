"""Bounds on surprisal and entropy from printed probabilities (claimcheck.formula), against hand-computed values."""

import math

import pytest

from claimcheck.formula import entropy_bounds_from_top_k, entropy_term_bits, surprisal_bits
from claimcheck.interval import Interval


def test_surprisal_and_entropy_terms():
    s = surprisal_bits(Interval(0.25, 0.5))
    assert (s.lo, s.hi) == (1.0, 2.0)
    # -p log2 p peaks at p = 1/e with value log2(e)/e
    peak = entropy_term_bits(Interval(0.3, 0.4))
    assert math.isclose(peak.hi, math.log2(math.e) / math.e)
    assert math.isclose(entropy_term_bits(Interval(0.5, 0.5)).lo, 0.5)


def test_entropy_bounds_two_tokens():
    # top-1 known exactly at 0.5 out of a vocabulary of 2: the rest 0.5 sits on the other token
    b = entropy_bounds_from_top_k([Interval(0.5, 0.5)], 2)
    assert math.isclose(b.lo, 1.0) and math.isclose(b.hi, 1.0)


def test_entropy_bounds_reject_impossible_tables():
    with pytest.raises(ValueError):
        entropy_bounds_from_top_k([Interval(0.7, 0.7), Interval(0.6, 0.6)], 10)
