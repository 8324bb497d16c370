"""Timing statistics against hand-computed values, and the interleaving order."""

import pytest

from claimcheck.llm.timing import Stats, interleave


def test_stats_by_hand():
    s = Stats((4.0, 1.0, 3.0, 2.0))
    assert s.n == 4 and s.median == 2.5 and s.min == 1.0 and s.max == 4.0 and s.mean == 2.5
    # numpy 'linear' quantiles of [1, 2, 3, 4]: q1 = 1.75, q3 = 3.25
    assert s.q1 == pytest.approx(1.75) and s.q3 == pytest.approx(3.25) and s.iqr == pytest.approx(1.5)
    assert Stats((7.0,)).iqr == 0
    assert s.as_dict()["samples"] == [4.0, 1.0, 3.0, 2.0]


def test_stats_needs_samples():
    with pytest.raises(ValueError):
        Stats(())


def test_interleave_alternates_and_keeps_every_sample():
    calls = []
    result = interleave({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, repeats=3, warmup=1)
    assert calls == ["a", "b"] * 4
    assert [len(v) for v in result.samples.values()] == [3, 3]
    assert all(x >= 0 for v in result.samples.values() for x in v)
    assert result.ratio_stats("a", "b").n == 3


def test_interleave_rejects_nothing_to_do():
    with pytest.raises(ValueError):
        interleave({}, repeats=1)
    with pytest.raises(ValueError):
        interleave({"a": lambda: None}, repeats=0)
