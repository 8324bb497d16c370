"""Speed measurements behind the timing claims: read vs write, cache vs no cache, TTFT, batching.

Every function measures both sides of a comparison in one process, interleaved (A B A B ...), after
a warm-up, and returns every sample in seconds (see :mod:`claimcheck.llm.timing`). Absolute times are
machine-bound; the claims assert ratios, trends and fitted exponents only.

Models are ``transformers`` causal LMs in eval mode; token ids are ``[batch, n]`` int64 tensors on
the model's device. All forward passes run under ``torch.no_grad()``.
"""

from __future__ import annotations

import functools
import math
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from claimcheck.llm.models import cache_nbytes, forward_cached, output_cache, rewind_cache
from claimcheck.llm.timing import Interleaved, Rounds, Timing, sync_device
from claimcheck.verdict import ExactForm

_median = statistics.median


def _device(model):
    return next(model.parameters()).device


def _step(model, nxt, cache, last_only: bool = False):
    """One forward pass over ``nxt`` after ``cache`` (None: a prefill): (the greedy next token, the cache)."""
    o = forward_cached(model, nxt, cache, last_only=last_only)
    return o.logits[:, -1:].argmax(-1), output_cache(o)


def _check_length(ids, need: int) -> None:
    if ids.shape[1] < need:
        raise ValueError(f"need {need} token ids, got {ids.shape[1]}")


def warm_up(model, ids, prompt_tokens: int = 16) -> None:
    """Run the model once before any round is timed: a prefill of ``prompt_tokens`` positions of
    ``ids`` (``[1, n]`` int64) and one cached decode step (~0.15 s for GPT-2 small on a 2-core CPU),
    paying the process's one-time costs (allocator, lazy kernels); later new shapes cost nothing
    comparable on a CPU (a first 1000-token pass is within 2 % of the next ones).
    """
    import torch

    with torch.no_grad():
        _step(model, *_step(model, ids[:, :prompt_tokens], None))


def read_write(
    model, ids, read_tokens: int, write_tokens: int, repeats: int, warmup: int = 1, extra: dict | None = None
) -> Interleaved:
    """Interleaved read (prefill) vs write (decode with KV cache) times, in seconds: ``repeats``
    rounds of :func:`read_write_rounds` (samples "read", "write", ``extra``'s). Raises ``ValueError``
    where ``ids`` is too short."""
    return (
        read_write_rounds(model, ids, read_tokens, write_tokens, warmup=warmup, extra=extra)
        .run(repeats)
        .samples
    )


def read_write_rounds(
    model,
    ids,
    read_tokens: int,
    write_tokens: int,
    warmup: int = 1,
    extra: dict | None = None,
    forward_lengths=(),
) -> Rounds:
    """Read vs write as extendable :class:`~claimcheck.llm.timing.Rounds` (none measured yet),
    seconds per whole pass. Read: one forward pass over ``ids[:, :read_tokens]``; write: a 1-token
    prefill, then ``write_tokens`` cached decode steps of 1 token (the chapter's "read 512 tokens"
    and "write 511 tokens"). ``extra``: more name -> callable in the same rounds (e.g. a bandwidth
    probe, measured under the same machine conditions). ``forward_lengths``: sides ``"forward@L"``,
    a forward pass (no cache) over ``ids[:, :L]`` (C16); at ``read_tokens`` that is the read side
    (:func:`forward_side`). ``ids``: ``[1, n]`` int64.

    Raises:
        ValueError: ``ids`` is too short.
    """
    import torch

    _check_length(ids, max(read_tokens, write_tokens + 1, *forward_lengths))

    def forward(L):
        with torch.no_grad():
            model(ids[:, :L], use_cache=False)

    def write():
        with torch.no_grad():
            cache = output_cache(forward_cached(model, ids[:, :1]))
            for i in range(1, write_tokens + 1):
                cache = output_cache(forward_cached(model, ids[:, i : i + 1], cache))

    passes = {f"forward@{L}": functools.partial(forward, L) for L in forward_lengths if L != read_tokens}
    fns = {"read": functools.partial(forward, read_tokens), "write": write, **passes, **(extra or {})}
    return Rounds(fns, warmup=warmup, device=_device(model))


def forward_side(length: int, read_tokens: int) -> str:
    """The side of :func:`read_write_rounds` that holds one forward pass over ``length`` positions."""
    return "read" if length == read_tokens else f"forward@{length}"


def generation_rounds(model, prompt, lengths, warmup: int = 1):
    """Wall time of greedy ``model.generate`` writing each of ``lengths`` new tokens after ``prompt``
    (``[1, p]`` int64), with and without cache: sides ``"cache@N"`` and ``"nocache@N"`` (seconds per
    whole generation; end-of-text does not stop it). ``warmup`` rounds of the shortest length only.

    Every forward call of the last round is also timed and counted (hooks read the clock; on CUDA
    they synchronise, once per step): ``steps[name] = [(context_tokens, seconds), ...]`` and
    ``steps["positions"][name] = [(context_tokens, positions processed), ...]`` (C15/C16's exact form).

    Returns:
        (:class:`~claimcheck.llm.timing.Rounds` with no round measured yet, steps dict).
    """
    import torch
    from transformers import GenerationConfig

    device = _device(model)
    steps: dict[str, Any] = {"positions": {}}
    current: dict[str, Any] = {"name": None, "t0": 0.0, "ctx": 0, "pos": 0}

    def pre(mod, args, kwargs):
        ids = args[0] if args else kwargs.get("input_ids")
        cache = kwargs.get("cache", kwargs.get("past_key_values"))
        past = cache.get_seq_length() if cache is not None and hasattr(cache, "get_seq_length") else 0
        current["ctx"] = int(past) + int(ids.shape[1])
        current["pos"] = int(ids.shape[1])
        sync_device(device)
        current["t0"] = time.perf_counter()

    def post(mod, args, kwargs, output):
        sync_device(device)
        if current["name"] is not None:
            steps.setdefault(current["name"], []).append(
                (current["ctx"], time.perf_counter() - current["t0"])
            )
            steps["positions"].setdefault(current["name"], []).append((current["ctx"], current["pos"]))

    def run(cfg, name):
        steps.pop(name, None)  # keep the last round's steps only
        steps["positions"].pop(name, None)
        current["name"] = name
        hooks = [
            model.register_forward_pre_hook(pre, with_kwargs=True),
            model.register_forward_hook(post, with_kwargs=True),
        ]
        try:
            with torch.no_grad():
                model.generate(prompt, attention_mask=torch.ones_like(prompt), generation_config=cfg)
        finally:
            current["name"] = None
            for h in hooks:
                h.remove()

    fns = {}
    for n in lengths:
        for use_cache in (True, False):
            name = f"{'cache' if use_cache else 'nocache'}@{n}"
            cfg = GenerationConfig(
                do_sample=False, max_new_tokens=n, min_new_tokens=n, use_cache=use_cache, pad_token_id=0
            )
            fns[name] = functools.partial(run, cfg, name)
    # warm up on the shortest generations only: the long uncached ones cost minutes, and one
    # short pass each way already pages in the weights and settles the allocator
    for _ in range(warmup):
        fns[f"cache@{min(lengths)}"]()
        fns[f"nocache@{min(lengths)}"]()
    return Rounds(fns, warmup=0, device=device), steps


def prefix_generation_times(model, prompt, lengths) -> ChapterTimes:
    """Times of greedy generations of each of ``lengths`` new tokens after ``prompt`` (``[1, p]``
    int64), with and without the cache, from one generation of the longest length each way (one
    round, no warm-up): greedy decoding writes the same first N tokens whatever the length, so an
    N-token time is the sum of the longest's first N forward passes (without ``generate``'s ~1 %
    bookkeeping between steps); the longest's own time is its wall time.

    Returns:
        :class:`ChapterTimes`: ``seconds["cache@N"]``, ``seconds["nocache@N"]`` and how each was timed.
    Raises:
        ValueError: ``lengths`` is empty or holds a length below 1.
    """
    if not lengths or min(lengths) < 1:
        raise ValueError(f"need lengths of at least 1 token, got {lengths!r}")
    longest = max(lengths)
    rounds, steps = generation_rounds(model, prompt, (longest,), warmup=0)
    rounds.run(1)
    seconds, how = {}, {}
    for kind in ("cache", "nocache"):
        name = f"{kind}@{longest}"
        seconds[name], how[name] = rounds.samples.samples[name][0], "wall time of the whole generation"
        for n in sorted(set(lengths) - {longest}):
            seconds[f"{kind}@{n}"] = sum(t for _, t in steps[name][:n])
            how[f"{kind}@{n}"] = f"sum of the first {n} forward passes of the {longest}-token generation"
    return ChapterTimes(seconds, how)


@dataclass(frozen=True)
class PowerFit:
    """Least-squares fit of log(time) = log(a) + k log(n): exponent ``k`` with its standard error."""

    exponent: float
    stderr: float
    prefactor: float
    points: tuple

    def predict(self, n: float) -> float:
        return self.prefactor * n**self.exponent


def fit_power_law(ns, times) -> PowerFit:
    """Fit ``time = a * n**k`` by ordinary least squares in log-log space to lengths ``ns`` (> 0) and
    seconds ``times`` (> 0), one or several per length. Returns a :class:`PowerFit` (``stderr``: the
    OLS standard error of the slope, 0 with 2 points).

    Raises:
        ValueError: fewer than 2 distinct lengths, or a non-positive value.
    """
    xs = [math.log(n) for n in ns]
    ys = [math.log(t) for t in times]
    if len(set(xs)) < 2 or any(t <= 0 for t in times):
        raise ValueError("need at least 2 distinct lengths and positive times")
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    k = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx
    a = my - k * mx
    resid = sum((y - (a + k * x)) ** 2 for x, y in zip(xs, ys))
    stderr = math.sqrt(resid / (n - 2) / sxx) if n > 2 else 0.0
    return PowerFit(k, stderr, math.exp(a), tuple(zip(ns, times)))


def binned_power_fit(points, min_x: float, bins: int = 6) -> PowerFit:
    """Fit ``y = a * x**k`` to the medians of ``points`` ``[(x, y), ...]`` (x >= ``min_x``) in ``bins``
    even bins of log x: medians ignore the scheduler spikes of per-step times that a fit on raw
    points would not. Raises ``ValueError`` with fewer than 2 bins filled."""
    sel = sorted((x, y) for x, y in points if x >= min_x and y > 0)
    if len(sel) < 2:
        raise ValueError(f"need points with x >= {min_x}")
    lo, hi = math.log(sel[0][0]), math.log(sel[-1][0])
    width = (hi - lo) / bins or 1.0
    groups: dict[int, list] = {}
    for x, y in sel:
        groups.setdefault(min(int((math.log(x) - lo) / width), bins - 1), []).append((x, y))
    xs = [statistics.median(x for x, _ in g) for g in groups.values()]
    ys = [statistics.median(y for _, y in g) for g in groups.values()]
    return fit_power_law(xs, ys)


class BandwidthProbe:
    """A callable that reads a float32 buffer of ``nbytes``, far larger than the caches, once
    (``torch.sum``), to be interleaved with other measurements; a pass's bandwidth is ``nbytes /
    seconds`` (bytes/s). A read benchmark, since a decode step reads every weight once and writes
    almost nothing; ``torch.sum`` streams with all threads, like decode's GEMV kernels, at one add
    per 4 bytes, so its time is the memory's (the read kernels of STREAM-like benchmarks).
    """

    def __init__(self, nbytes: int, device=None):
        import torch

        self.nbytes = nbytes
        self.device = torch.device("cpu") if device is None else torch.device(device)
        self.buf = torch.ones(nbytes // 4, dtype=torch.float32, device=self.device)

    def __call__(self):
        self.buf.sum()


def latency_rounds(
    model, ids, prompt_lengths, decode_steps: int, warmup: int = 1, context_tokens: int | None = None
):
    """TTFT and per-step decode latency after prompts of several lengths, as extendable rounds.

    Side ``"prompt@L"``, a :class:`LatencySample`: TTFT = a forward pass over ``ids[:, :L]`` of the
    last position's logits (as ``generate`` does) and the greedy pick; then ``decode_steps`` decode
    steps, each timed (on CUDA one synchronize per step). ``context_tokens`` C adds side
    ``"context@C"``, a :class:`ContextSample`: decode steps on a cache of C positions, each paired in
    time with one on the shortest prompt's (drift stays out of their ratio); both caches are filled
    once before the rounds and cut back after each (:func:`claimcheck.llm.models.rewind_cache`).

    Raises:
        ValueError: ``ids`` is shorter than the longest prompt or ``context_tokens``, or
            ``context_tokens`` is not longer than the shortest prompt.
    Returns:
        :class:`~claimcheck.llm.timing.Rounds` with no round measured yet.
    """
    import torch

    device = _device(model)
    _check_length(ids, max(*prompt_lengths, context_tokens or 0))
    if context_tokens is not None and context_tokens <= min(prompt_lengths):
        # the short side is the shortest prompt's cache: at equal lengths both sides would step one
        # cache twice per pair and share one list of steps (a slowdown of exactly 1)
        raise ValueError(
            f"context_tokens ({context_tokens}) must exceed the shortest prompt ({min(prompt_lengths)})"
        )

    def one(L):
        with torch.no_grad():
            sync_device(device)
            ttft, nxt, cache = _timed_step(model, device, ids[:, :L], None)
            kv = cache_nbytes(cache)  # before the decode steps grow the cache in place
            steps = []
            for _ in range(decode_steps):
                dt, nxt, cache = _timed_step(model, device, nxt, cache)
                steps.append(dt)
            return LatencySample(ttft, steps, kv)

    fns: dict[str, Callable[[], Any]] = {f"prompt@{L}": functools.partial(one, L) for L in prompt_lengths}
    if context_tokens is not None:
        fns[f"context@{context_tokens}"] = _on_context(
            model, ids, min(prompt_lengths), context_tokens, decode_steps
        )
    return Rounds(fns, warmup=warmup, device=device)


def _timed_step(model, device, nxt, cache):
    """:func:`_step` of the last position's logits, timed: (seconds, the next token, the cache)."""
    t0 = time.perf_counter()
    nxt, cache = _step(model, nxt, cache, last_only=True)
    sync_device(device)
    return time.perf_counter() - t0, nxt, cache


def _on_context(
    model, ids, short: int, context_tokens: int, decode_steps: int
) -> Callable[[], ContextSample]:
    """The ``context@C`` side of :func:`latency_rounds`."""
    import torch

    device = _device(model)
    with torch.no_grad():
        filled = {n: _step(model, ids[:, :n], None, last_only=True) for n in (short, context_tokens)}
    first = {n: nxt for n, (nxt, _) in filled.items()}
    caches = {n: cache for n, (_, cache) in filled.items()}
    kv_long = cache_nbytes(caches[context_tokens])

    def on_context() -> ContextSample:
        nxt = dict(first)
        times: dict = {short: [], context_tokens: []}
        try:
            with torch.no_grad():
                for _ in range(decode_steps):  # short, long, short, long ...: paired in time
                    for n in (short, context_tokens):
                        dt, nxt[n], caches[n] = _timed_step(model, device, nxt[n], caches[n])
                        times[n].append(dt)
        finally:  # a round cut short by an exception must not leave later rounds a longer context
            for n, cache in caches.items():
                rewind_cache(cache, n)
        return ContextSample(times[context_tokens], times[short], short, kv_long)

    return on_context


def batch_rounds(model, ids, batch_sizes, prompt_len: int, decode_steps: int, warmup: int = 1):
    """Decode latency at several batch sizes, as extendable rounds: side ``"batch@B"``, seconds per
    decode step (the whole loop's time / ``decode_steps``). Rows of ``prompt_len`` tokens (different
    slices of ``ids``: no padding) are prefilled once before the rounds; each round decodes one
    token per row ``decode_steps`` times, then cuts the cache back (:func:`~claimcheck.llm.models.rewind_cache`).
    """
    import torch

    device = _device(model)
    n = ids.shape[1]
    need = max(batch_sizes) * prompt_len
    flat = ids[0].repeat(-(-need // n))[:need]

    def one(first, prefill_cache):
        nxt, cache = first, prefill_cache
        try:
            with torch.no_grad():
                sync_device(device)
                t0 = time.perf_counter()
                for _ in range(decode_steps):
                    nxt, cache = _step(model, nxt, cache)
                sync_device(device)
                return (time.perf_counter() - t0) / decode_steps
        finally:  # also after an exception: the next round decodes from prompt_len positions again
            rewind_cache(prefill_cache, prompt_len)

    with torch.no_grad():  # one prefill per batch size: (first token, cache)
        prefilled = {
            B: _step(model, flat[: B * prompt_len].view(B, prompt_len).to(device), None, True)
            for B in batch_sizes
        }
    fns = {f"batch@{B}": functools.partial(one, *prefilled[B]) for B in batch_sizes}
    return Rounds(fns, warmup=warmup, device=device)


# Typed samples and the shared measurements of the timing claims (the fixtures' results)


@dataclass(frozen=True)
class LatencySample:
    """One round of side ``prompt@L`` (:func:`latency_rounds`): TTFT (seconds), each decode step
    after it (seconds), and the KV cache after the prompt (bytes)."""

    ttft: float
    steps: list
    kv_bytes: int


@dataclass(frozen=True)
class ContextSample:
    """One round of side ``context@C`` (:func:`latency_rounds`): decode steps (seconds) on a cache
    of C positions, each paired in time with one on the shortest prompt's ``short_tokens``
    positions (``short_steps``); ``kv_bytes``: the long cache."""

    steps: list
    short_steps: list
    short_tokens: int
    kv_bytes: int


@dataclass(frozen=True)
class ChapterTimes:
    """The chapter's own generations timed once (:func:`prefix_generation_times`): ``seconds``
    and ``how`` each was timed, by side (``"cache@768"``...)."""

    seconds: dict
    how: dict


@dataclass
class ReadWriteTiming(Timing):
    """Read (prefill over ``read_tokens``) vs write (``write_tokens`` decode steps with the KV
    cache), interleaved with a read-bandwidth probe (side ``stream`` over ``bandwidth_bytes``) and
    the forward passes of C16 (:func:`read_write_rounds`). Rates are token/s, per round."""

    read_tokens: int = 0
    write_tokens: int = 0
    threads: Any = None
    bandwidth_bytes: int = 0
    weight_bytes: int = 0

    def read_tps(self, rounds=None) -> list[float]:
        """Read token/s of each round (default: every round so far)."""
        return [self.read_tokens / r["read"] for r in (self.per_round() if rounds is None else rounds)]

    def write_tps(self, rounds=None) -> list[float]:
        """Write (decode) token/s of each round (default: every round so far)."""
        return [self.write_tokens / r["write"] for r in (self.per_round() if rounds is None else rounds)]

    def median_s(self, side: str) -> float:
        """Median seconds of one whole pass of ``side`` (``read`` or ``write``)."""
        return self.rounds.samples.stats(side).median

    def read_over_write(self, rounds) -> float:
        """How many times faster a token is read than written: median read token/s over median
        write token/s (C05's value)."""
        return _median(self.read_tps(rounds)) / _median(self.write_tps(rounds))

    def bandwidth_multiple(self, rounds) -> float:
        """Multiples of the measured read bandwidth that decode would need at prefill's token/s
        (weight bytes x read token/s / bandwidth): above 1, decode cannot be compute-bound (C12)."""
        bw = _median(self.bandwidth_bytes / r["stream"] for r in rounds)
        return self.weight_bytes * _median(self.read_tps(rounds)) / bw

    def details(self) -> dict:
        read, write = self.read_tps(), self.write_tps()
        s = self.rounds.samples
        out = {
            **super().details(),
            "read_tokens": self.read_tokens,
            "write_tokens": self.write_tokens,
            "torch_threads": self.threads,
            "read_s": s.stats("read").as_dict(),
            "write_s": s.stats("write").as_dict(),
            "read_tps": _median(read),
            "write_tps": _median(write),
            "ratio_per_round": [r / w for r, w in zip(read, write)],
        }
        if "stream" in s.samples:
            traffic = [w * self.weight_bytes for w in write]  # bytes/s the decode steps actually read
            bandwidth = [self.bandwidth_bytes / x for x in s.samples["stream"]]
            out.update(
                decode_weight_traffic_bytes_per_s=traffic,
                read_bandwidth_bytes_per_s=bandwidth,
                decode_fraction_of_bandwidth=_median(traffic) / _median(bandwidth),
                weight_bytes=self.weight_bytes,
                prefill_over_decode_flops_per_s=_median(read) / _median(write),
                bandwidth_benchmark=f"torch.sum over a {self.bandwidth_bytes // 2**20} MiB float32 buffer, "
                "interleaved with the read/write rounds",
            )
        return out


@dataclass
class ForwardTiming(Timing):
    """One forward pass (no cache) over each of ``lengths`` positions, measured in the rounds of
    a :class:`ReadWriteTiming` (C16: the cost of the recomputation step L of uncached decoding
    does); ``sides`` maps each length to its side."""

    lengths: tuple = ()
    sides: dict = field(default_factory=dict)

    def medians(self, rounds=None) -> list[float]:
        """Median seconds of the forward pass at each length, in ``lengths`` order."""
        rs = self.per_round() if rounds is None else rounds
        return [_median(r[self.sides[L]] for r in rs) for L in self.lengths]

    def fit(self, rounds=None) -> PowerFit:
        """The power law ``seconds = a * L**k`` of the forward pass over the lengths."""
        return fit_power_law(list(self.lengths), self.medians(rounds))

    def uncached_growth(self, rounds) -> float:
        """1 + k: the exponent of the total time of uncached decoding, whose step n recomputes n
        positions at a cost ~ n**k (C16's value)."""
        return 1 + self.fit(rounds).exponent

    def details(self) -> dict:
        return {
            **super().details(),
            "forward_lengths": list(self.lengths),
            "forward_pass_median_s": dict(zip(self.lengths, self.medians())),
        }


@dataclass
class GenerationTiming(Timing):
    """Greedy generation of each of ``lengths`` new tokens after ``prompt_tokens``, with and
    without the KV cache (sides ``cache@N``, ``nocache@N``, seconds); ``steps``: each forward call
    of the last round, timed and counted (:func:`generation_rounds`)."""

    lengths: tuple = ()
    prompt_tokens: int = 0
    steps: dict = field(default_factory=dict)

    def speedup(self, rounds, n: int) -> float:
        """How many times faster ``n`` tokens are written with the cache than without (medians)."""
        return _median(r.side("nocache", n) for r in rounds) / _median(r.side("cache", n) for r in rounds)

    def positions(self) -> dict:
        """Positions processed by each generation's forward calls, counted: ``{side: total}``."""
        return {name: sum(p for _, p in calls) for name, calls in self.steps["positions"].items()}

    def positions_formula(self) -> dict:
        """The same totals from the formulas: ``n*p + n(n-1)/2`` uncached (call i recomputes
        ``p + i`` positions) and ``p + n - 1`` cached, for prompt ``p`` and ``n`` new tokens."""
        p = self.prompt_tokens
        return {
            **{f"nocache@{n}": n * p + n * (n - 1) // 2 for n in self.lengths},
            **{f"cache@{n}": p + n - 1 for n in self.lengths},
        }

    def positions_ratio(self) -> dict:
        """Positions recomputed without over with the cache, by length (counted)."""
        counted = self.positions()
        return {n: counted[f"nocache@{n}"] / counted[f"cache@{n}"] for n in sorted(self.lengths)}

    def exact_positions(self) -> tuple:
        """C15's exact forms: every counted total matches its formula, and the positions ratio
        grows from the shortest length to the longest."""
        counted, formula, ratio = self.positions(), self.positions_formula(), self.positions_ratio()
        matches = sum(counted.get(k) == v for k, v in formula.items())
        ns = sorted(self.lengths)
        return (
            ExactForm(
                "positions_formula",
                matches,
                (len(formula), len(formula)),
                "generations whose counted positions match n*p + n(n-1)/2 (no cache) and p + n - 1 (cache)",
            ),
            ExactForm(
                "positions_ratio_growth",
                ratio[ns[-1]] / ratio[ns[0]],
                (1.0 + 1e-9, math.inf),
                "positions recomputed without/with cache, longest over shortest length",
            ),
        )

    def exact_uncached_steps(self, region) -> tuple:
        """C16's exact forms at the longest length: 1 + the exponent of positions recomputed per
        uncached step vs context (exactly 2) against the claim's ``region``; one position per
        cached step after the prompt."""
        longest = max(self.lengths)
        uncached = self.steps["positions"][f"nocache@{longest}"]
        cached = self.steps["positions"][f"cache@{longest}"]
        exponent = 1 + fit_power_law([x for x, _ in uncached], [y for _, y in uncached]).exponent
        return (
            ExactForm(
                "positions_exponent",
                exponent,
                region,
                "1 + exponent of positions recomputed per uncached step vs context (counted)",
            ),
            ExactForm(
                "cached_positions_per_step",
                max(p for _, p in cached[1:]),
                (1, 1),
                "positions per cached decode step after the prompt",
            ),
        )

    def total_time_fits(self) -> dict:
        """Power-law fits of the whole generation's time vs length, cached and uncached."""
        s = self.rounds.samples
        return {
            kind: fit_power_law(list(self.lengths), [s.stats(f"{kind}@{n}").median for n in self.lengths])
            for kind in ("cache", "nocache")
        }

    def growth_details(self, min_context: int) -> dict:
        """C16's report facts beside its verdict: the total-time fits, and the fit of the uncached
        per-step times above ``min_context`` positions where the generation is long enough."""
        fits = self.total_time_fits()
        out = {
            "total_time_exponent_nocache": [fits["nocache"].exponent, fits["nocache"].stderr],
            "total_time_exponent_cache": [fits["cache"].exponent, fits["cache"].stderr],
            "positions_exponent_exact": self.exact_uncached_steps((-math.inf, math.inf))[0].value,
        }
        try:
            k = binned_power_fit(self.steps[f"nocache@{max(self.lengths)}"], min_context)
            out["uncached_step_time_exponent"] = [k.exponent, k.stderr]
        except ValueError:  # generations too short for a fit of per-step times above the bound
            pass
        return out

    def details(self) -> dict:
        rounds = self.per_round()
        return {
            **super().details(),
            "speedup_by_length": {n: self.speedup(rounds, n) for n in sorted(self.lengths)},
            "positions_counted": self.positions(),
            "positions_ratio_by_length": self.positions_ratio(),
            "prompt_tokens": self.prompt_tokens,
            "samples_s": dict(self.rounds.samples.samples),
        }


@dataclass
class LatencyTiming(Timing):
    """TTFT and per-step decode latency after each of ``prompts`` (sides ``prompt@L``, each a
    :class:`LatencySample`) and ``decode_steps`` paired decode steps on a cache of
    ``context_tokens`` positions (side ``context@C``, a :class:`ContextSample`)."""

    prompts: tuple = ()
    context_tokens: int = 0
    decode_steps: int = 0

    def ttft(self, rounds, L: int) -> float:
        """Median time to first token after an ``L``-token prompt (seconds)."""
        return _median(r.side("prompt", L).ttft for r in rounds)

    def itl(self, rounds, L: int) -> float:
        """Median inter-token latency after an ``L``-token prompt: its decode steps pooled (seconds)."""
        return _median(x for r in rounds for x in r.side("prompt", L).steps)

    def ttft_growth(self, rounds) -> float:
        """TTFT after the longest prompt over TTFT after the shortest."""
        return self.ttft(rounds, max(self.prompts)) / self.ttft(rounds, min(self.prompts))

    def itl_growth(self, rounds) -> float:
        """Inter-token latency after the longest prompt over after the shortest."""
        return self.itl(rounds, max(self.prompts)) / self.itl(rounds, min(self.prompts))

    def _paired(self, rounds) -> tuple[float, float]:
        ctx = [r.side("context", self.context_tokens) for r in rounds]
        return _median(x for c in ctx for x in c.short_steps), _median(x for c in ctx for x in c.steps)

    def context_slowdown(self, rounds) -> float:
        """A decode step on the long context over one on the shortest prompt's, paired in time (medians)."""
        short, long = self._paired(rounds)
        return long / short

    def kv_bytes(self) -> dict:
        """KV cache bytes after each prompt and on the long context: ``{positions: bytes}``."""
        last = self.per_round()[-1]
        return {
            **{L: last.side("prompt", L).kv_bytes for L in self.prompts},
            self.context_tokens: last.side("context", self.context_tokens).kv_bytes,
        }

    def details(self) -> dict:
        rounds = self.per_round()
        short, long = self._paired(rounds)
        paired = {"short": short, "long": long, "contexts": [min(self.prompts), self.context_tokens]}
        return {
            **super().details(),
            "ttft_s": {L: self.ttft(rounds, L) for L in self.prompts},
            "inter_token_latency_s": {L: self.itl(rounds, L) for L in self.prompts},
            "paired_decode_step_s": paired,
            "prompts": self.prompts,
            "decode_steps": self.decode_steps,
            "long_context": self.context_tokens,
        }


@dataclass
class BatchTiming(Timing):
    """Seconds per decode step at each of ``batch_sizes`` (side ``batch@B``), rows of
    ``prompt_tokens`` each, ``decode_steps`` steps per round (:func:`batch_rounds`)."""

    batch_sizes: tuple = ()
    prompt_tokens: int = 0
    decode_steps: int = 0

    def latency(self, rounds, B: int) -> float:
        """Median seconds per decode step at batch ``B``."""
        return _median(r.side("batch", B) for r in rounds)

    def throughput_gain(self, rounds) -> float:
        """Decode token/s at the largest batch over token/s at the smallest."""
        lo, hi = min(self.batch_sizes), max(self.batch_sizes)
        return (hi / self.latency(rounds, hi)) / (lo / self.latency(rounds, lo))

    def per_step(self) -> dict:
        """Every round's seconds per decode step, by batch size."""
        return {B: list(self.rounds.samples.samples[f"batch@{B}"]) for B in sorted(self.batch_sizes)}

    def details(self) -> dict:
        per_step = self.per_step()
        lat = {B: _median(v) for B, v in per_step.items()}
        return {
            **super().details(),
            "tokens_per_s": {B: B / lat[B] for B in lat},
            "step_latency_s": lat,
            "samples_s": per_step,
            "prompt_tokens": self.prompt_tokens,
            "decode_steps": self.decode_steps,
        }
