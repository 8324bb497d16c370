"""Speed measurement helpers and plots on a tiny model (seconds), and the fits by hand."""

import math

import pytest

from claimcheck.llm import plots
from claimcheck.llm.models import (
    cache_nbytes,
    forward_cached,
    output_cache,
    random_gpt2,
    rewind_cache,
    seeded_token_ids,
    tiny_config,
)
from claimcheck.llm.speed import (
    BandwidthProbe,
    batch_rounds,
    binned_power_fit,
    fit_power_law,
    forward_side,
    generation_rounds,
    latency_rounds,
    prefix_generation_times,
    read_write_rounds,
    warm_up,
)
from claimcheck.llm.timing import Rounds

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def tiny():
    return random_gpt2(tiny_config(), seed=0)


@pytest.fixture(scope="module")
def ids():
    return seeded_token_ids(120, vocab_size=1000)


def test_power_law_fit_by_hand():
    fit = fit_power_law([1, 2, 4, 8], [3, 12, 48, 192])  # 3 n^2 exactly
    assert (
        fit.exponent == pytest.approx(2.0)
        and fit.prefactor == pytest.approx(3.0)
        and fit.stderr == pytest.approx(0, abs=1e-12)
    )
    assert fit.predict(16) == pytest.approx(768)
    two = fit_power_law([10, 100], [1, 10])
    assert two.exponent == pytest.approx(1.0) and two.stderr == 0.0
    with pytest.raises(ValueError):
        fit_power_law([5, 5], [1, 2])
    with pytest.raises(ValueError):
        fit_power_law([1, 2], [1, 0])


def test_binned_fit_ignores_spikes_and_short_contexts():
    pts = [(x, 0.001 * x) for x in range(64, 513)]
    pts += [(100, 5.0), (300, 9.0)]  # scheduler spikes
    pts += [(x, 0.05) for x in range(1, 64)]  # the flat, weight-bound region below min_x
    fit = binned_power_fit(pts, min_x=64)
    assert fit.exponent == pytest.approx(1.0, abs=0.02)
    with pytest.raises(ValueError):
        binned_power_fit([(1, 1.0)], min_x=64)


def test_read_write_interleaves_with_extras(tiny, ids):
    calls = []
    res = (
        read_write_rounds(
            tiny, ids, read_tokens=32, write_tokens=4, warmup=1, extra={"x": lambda: calls.append(1)}
        )
        .run(2)
        .samples
    )
    assert list(res) == ["read", "write", "x"] and all(len(v) == 2 for v in res.values())
    assert len(calls) == 3  # warm-up + 2 rounds
    with pytest.raises(ValueError):
        read_write_rounds(tiny, ids[:, :3], read_tokens=32, write_tokens=4)


def test_write_side_times_only_its_decode_steps(tiny, ids):
    """As the chapter's listing: the 1-token prefill is made once, outside the timed rounds, so a
    round of write_tokens=4 is 4 one-token passes, each after the prefill and the steps before it."""
    rounds = read_write_rounds(tiny, ids, read_tokens=32, write_tokens=4, warmup=0)
    seen = []
    hook = tiny.register_forward_pre_hook(
        lambda mod, args, kwargs: seen.append(
            (
                int((args[0] if args else kwargs["input_ids"]).shape[1]),
                int(c.get_seq_length()) if (c := kwargs.get("cache", kwargs.get("past_key_values"))) else 0,
            )
        ),
        with_kwargs=True,
    )
    try:
        for _ in range(2):  # the second round starts from the prefill again, not after the first's steps
            seen.clear()
            rounds.fns["write"]()
            assert seen == [(1, 1), (1, 2), (1, 3), (1, 4)]
    finally:
        hook.remove()


def test_generation_rounds_record_steps(tiny, ids):
    rounds, steps = generation_rounds(tiny, ids[:, :8], (4, 8))
    res = rounds.run(1).samples
    assert set(res) == {"cache@4", "nocache@4", "cache@8", "nocache@8"}
    # uncached steps see the whole sequence; cached steps see the cache plus one token
    assert [c for c, _ in steps["nocache@8"]] == list(range(8, 16))
    assert [c for c, _ in steps["cache@8"]] == list(range(8, 16))
    assert all(t > 0 for _, t in steps["cache@8"])


def test_latency_rounds_ttft_steps_and_kv_bytes(tiny, ids):
    rounds = latency_rounds(tiny, ids, (8, 32), decode_steps=3).run(2).per_round()
    assert len(rounds) == 2 and all(r.side("prompt", 8).ttft > 0 for r in rounds)
    assert len(rounds[0].side("prompt", 32).steps) == 3
    assert rounds[-1].side("prompt", 32).kv_bytes == 4 * rounds[-1].side("prompt", 8).kv_bytes


def test_batch_rounds_shapes(tiny, ids):
    samples = batch_rounds(tiny, ids, (1, 4), prompt_len=8, decode_steps=2).run(2).samples
    out = {B: list(samples[f"batch@{B}"]) for B in (1, 4)}
    assert set(out) == {1, 4} and all(len(v) == 2 and min(v) > 0 for v in out.values())


def test_bandwidth_probe_small_buffer():
    probe = BandwidthProbe(4 * 2**20)
    samples = Rounds({"stream": probe}, warmup=1).run(3).samples["stream"]
    assert len(samples) == 3 and min(samples) > 0 and math.isfinite(4 * 2**20 / min(samples))


def test_plots_are_pngs():
    fit = fit_power_law([1, 2, 4], [1, 4, 16])
    assert plots.read_write_plot([100.0, 110.0], [10.0, 9.0]).startswith(PNG)
    assert plots.forward_pass_plot([1, 2, 4], {1: [1.0], 2: [4.0, 4.1], 4: [16.0]}, fit).startswith(PNG)
    assert plots.batch_plot({1: [0.01, 0.011], 8: [0.02]}).startswith(PNG)
    assert plots.bandwidth_plot([1e10, 1.1e10], [2e10]).startswith(PNG)


def test_read_write_rounds_add_forward_passes_but_not_the_read_length(tiny, ids):
    rounds = read_write_rounds(
        tiny, ids, read_tokens=32, write_tokens=4, warmup=0, forward_lengths=(8, 16, 32)
    )
    assert list(rounds.fns) == ["read", "write", "forward@8", "forward@16"]
    assert forward_side(32, 32) == "read" and forward_side(8, 32) == "forward@8"
    rounds.run(2)
    assert all(len(v) == 2 and min(v) > 0 for v in rounds.samples.values())
    with pytest.raises(ValueError, match="need 200 token ids"):
        read_write_rounds(tiny, ids, read_tokens=32, write_tokens=4, forward_lengths=(200,))


def test_rewind_cache_gives_back_the_prefill_cache(tiny, ids):
    import torch

    with torch.no_grad():
        out = forward_cached(tiny, ids[:, :10])
        cache = output_cache(out)
        before = [k.clone() for k, _ in ((layer.keys, layer.values) for layer in cache.layers)]
        nbytes = cache_nbytes(cache)
        for i in range(3):
            cache = output_cache(forward_cached(tiny, ids[:, 10 + i : 11 + i], cache))
        assert cache.get_seq_length() == 13
        rewind_cache(cache, 10)
        assert cache.get_seq_length() == 10 and cache_nbytes(cache) == nbytes
        assert all(torch.equal(a, layer.keys) for a, layer in zip(before, cache.layers))
        # decoding on from the rewound cache computes what decoding from a fresh prefill computes
        again = forward_cached(tiny, ids[:, 10:11], cache).logits
        fresh = forward_cached(tiny, ids[:, 10:11], output_cache(forward_cached(tiny, ids[:, :10]))).logits
        assert torch.allclose(again, fresh, atol=1e-6)
    for bad in (-1, 12):
        with pytest.raises(ValueError, match="cannot rewind a cache of 11 positions"):
            rewind_cache(cache, bad)


def test_latency_rounds_decode_on_a_reused_long_context(tiny, ids):
    warm_up(tiny, ids)
    rounds = latency_rounds(tiny, ids, (8, 16), decode_steps=3, context_tokens=64).run(3)
    assert list(rounds.fns) == ["prompt@8", "prompt@16", "context@64"]
    ctx = [r.side("context", 64) for r in rounds.per_round()]
    assert len(ctx) == 3
    assert all(len(s) == 3 and min(s) > 0 for c in ctx for s in (c.steps, c.short_steps))
    assert ctx[-1].short_tokens == 8  # paired with the shortest prompt's context
    # the cache stays at 64 positions
    assert ctx[-1].kv_bytes == 8 * rounds.per_round()[-1].side("prompt", 8).kv_bytes
    with pytest.raises(ValueError, match="need 500 token ids"):
        latency_rounds(tiny, ids, (8,), decode_steps=1, context_tokens=500)


def test_batch_rounds_prefill_once_and_decode_from_the_same_cache(tiny, ids, monkeypatch):
    import claimcheck.llm.speed as speed

    seen = []
    real = speed.forward_cached
    monkeypatch.setattr(
        speed,
        "forward_cached",
        lambda m, x, cache=None, **kw: seen.append(tuple(x.shape)) or real(m, x, cache, **kw),
    )
    rounds = batch_rounds(tiny, ids, (1, 4), prompt_len=8, decode_steps=2)
    assert seen == [(1, 8), (4, 8)]  # one prefill per batch size, before any round
    rounds.run(3)
    assert seen[2:] == [(1, 1), (1, 1), (4, 1), (4, 1)] * 3  # every round: decode steps only
    assert all(len(v) == 3 and min(v) > 0 for v in rounds.samples.values())


def test_prefix_generation_times_from_one_longest_generation(tiny, ids, monkeypatch):
    import claimcheck.llm.speed as speed

    asked = []
    real = speed.generation_rounds
    monkeypatch.setattr(
        speed,
        "generation_rounds",
        lambda m, p, lengths: asked.append(lengths) or real(m, p, lengths),
    )
    out = prefix_generation_times(tiny, ids[:, :8], (3, 12))
    assert asked == [(12,)]  # the 3-token times come from the 12-token generations
    assert set(out.seconds) == {"cache@3", "nocache@3", "cache@12", "nocache@12"}
    for kind in ("cache", "nocache"):
        assert 0 < out.seconds[f"{kind}@3"] < out.seconds[f"{kind}@12"]
    assert out.how["nocache@3"] == "sum of the first 3 forward passes of the 12-token generation"
    with pytest.raises(ValueError, match="at least 1 token"):
        prefix_generation_times(tiny, ids[:, :8], ())


def test_a_round_cut_short_by_an_exception_leaves_the_caches_rewound(tiny, ids):
    rounds = {
        "context@64": latency_rounds(tiny, ids, (8, 16), decode_steps=3, context_tokens=64),
        "batch@2": batch_rounds(tiny, ids, (2,), prompt_len=8, decode_steps=3),
    }
    want = {"context@64": [8, 64, 9, 65, 10, 66], "batch@2": [8, 9, 10]}
    for side, r in rounds.items():
        calls = []

        def boom(mod, args, kwargs, calls=calls):
            calls.append(1)
            if len(calls) == 3:
                raise RuntimeError("transient")

        h = tiny.register_forward_pre_hook(boom, with_kwargs=True)
        try:
            with pytest.raises(RuntimeError):
                r.fns[side]()
        finally:
            h.remove()
        seen = []
        h = tiny.register_forward_pre_hook(
            lambda mod, args, kwargs, seen=seen: seen.append(
                int(kwargs.get("cache", kwargs.get("past_key_values")).get_seq_length())
            ),
            with_kwargs=True,
        )
        try:
            r.fns[side]()
        finally:
            h.remove()
        assert seen == want[side], side  # the next round decodes from the prefilled lengths again


@pytest.mark.parametrize("context_tokens", [8, 4])
def test_latency_rounds_refuse_a_long_context_not_longer_than_the_shortest_prompt(tiny, ids, context_tokens):
    with pytest.raises(ValueError, match="must exceed the shortest prompt"):
        latency_rounds(tiny, ids, (8, 16), decode_steps=2, context_tokens=context_tokens)
