"""Timing statistics against hand-computed values, and the interleaving order."""

import pytest

from claimcheck.llm.timing import Rounds, Stats


def test_stats_by_hand():
    s = Stats.of((4.0, 1.0, 3.0, 2.0))
    assert s.n == 4 and s.median == 2.5 and s.min == 1.0 and s.max == 4.0
    # numpy 'linear' quantiles of [1, 2, 3, 4]: q1 = 1.75, q3 = 3.25
    assert s.q1 == pytest.approx(1.75) and s.q3 == pytest.approx(3.25)
    assert Stats.of((7.0,)).q1 == Stats.of((7.0,)).q3 == 7.0
    assert s.as_dict()["samples"] == [4.0, 1.0, 3.0, 2.0]


def test_stats_quartiles_are_the_linear_formulas_to_the_last_bit():
    """claims.json's q1 and q3 are s[lo] + (s[hi] - s[lo]) * frac, as written before: statistics'
    'inclusive' quantiles are the same numbers but differ in the last bit for about a quarter of
    sample sets, and keep a lone int sample an int."""
    xs = (
        0.98,
        0.8676138422503308,
        0.0026129971989156337,
        0.009911033694597162,
        0.041052254492352946,
        0.5442254141821842,
        0.868,
    )
    s = sorted(xs)  # q1: pos 1.5, between s[1] and s[2]
    assert Stats.of(xs).q1 == s[1] + (s[2] - s[1]) * 0.5 == 0.025481644093475052
    one = Stats.of((5,))
    assert (one.q1, one.q3) == (5.0, 5.0) and isinstance(one.q1, float) and isinstance(one.q3, float)


def test_stats_needs_samples():
    with pytest.raises(ValueError):
        Stats.of(())


def test_rounds_alternate_and_keep_every_sample():
    calls = []
    result = Rounds({"a": lambda: calls.append("a"), "b": lambda: calls.append("b")}, warmup=1).run(3)
    assert calls == ["a", "b"] * 4
    assert [len(v) for v in result.samples.values()] == [3, 3]
    assert all(x >= 0 for v in result.samples.values() for x in v)
    assert result.stats("a").n == 3


def test_rounds_reject_nothing_to_do():
    with pytest.raises(ValueError):
        Rounds({})


def test_rounds_within_a_bound_stop_early_but_measure_at_least_one():
    import time

    from claimcheck.llm.timing import Rounds

    slow = Rounds({"x": lambda: time.sleep(0.05)}, warmup=0)
    slow.run(20, within_s=0.12)
    assert 1 <= slow.n <= 3 and slow.cut_short and slow.seconds < 0.25
    one = Rounds({"x": lambda: time.sleep(0.05)}, warmup=0).run(5, within_s=0.0)
    assert one.n == 1  # the first round always runs: a measurement is never empty
    fast = Rounds({"x": lambda: None}, warmup=0).run(5, within_s=10.0)
    assert fast.n == 5 and not fast.cut_short


def test_auto_threads_leave_busy_cores_alone():
    from claimcheck.fingerprint import choose_threads

    assert choose_threads("auto", 2, 0, 0.3)[0] == 2
    assert choose_threads("auto", 2, 2, 4.0) == (
        1,
        "auto: 2 cores, 2 other runnable task(s) at the start: 1 thread(s)",
    )
    assert choose_threads("auto", 2, None, 1.2)[0] == 1  # no /proc: the load average stands in
    assert choose_threads("3", 2, 2, 4.0) == (3, "--claims-threads 3")
