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
from dataclasses import dataclass
from typing import Any, Callable

from claimcheck.llm.timing import Interleaved, Rounds, Stats, sync_device, time_once


def _device(model):
    return next(model.parameters()).device


def warm_up(model, ids, prompt_tokens: int = 16) -> None:
    """Run the model once before any round is timed: a prefill of ``prompt_tokens`` positions of
    ``ids`` (``[1, n]`` int64) and one cached decode step (~0.15 s for GPT-2 small in fp32 on a
    2-core CPU).

    Why: the first forward pass of a process pays one-time costs (the allocator growing, lazy
    kernel initialisation); they belong to no side of a comparison. On a CPU, later calls at new
    shapes pay nothing comparable (measured on GPT-2 small: the first 1000-token pass within 2 %
    of the next ones), so one short pass replaces a whole warm-up round of every measurement, and
    the interleaved rounds' per-round medians absorb what is left.
    """
    import torch

    from claimcheck.llm.models import forward_cached, output_cache

    with torch.no_grad():
        out = forward_cached(model, ids[:, :prompt_tokens])
        forward_cached(model, out.logits[:, -1:].argmax(-1), output_cache(out))


def read_write(model, ids, read_tokens: int, write_tokens: int, repeats: int, warmup: int = 1,
               extra: dict | None = None) -> Interleaved:
    """Interleaved read (prefill) vs write (decode with KV cache) times, in seconds.

    Read: one forward pass over ``ids[:, :read_tokens]`` (the chapter's "read 512 tokens").
    Write: a 1-token prefill, then ``write_tokens`` decode steps of 1 new token each, continuing the
    KV cache (the chapter's loop: "write 511 tokens").

    Args:
        ids: ``[1, n]`` int64 with ``n >= max(read_tokens, write_tokens + 1)``.
        extra: more name -> callable measured in the same rounds (e.g. a bandwidth probe, so that
            the hardware ceiling is measured under the same machine conditions).
    Returns:
        :class:`Interleaved` with samples "read" and "write" (seconds per whole pass), and extras.
    Raises:
        ValueError: ``ids`` is too short.
    """
    return read_write_rounds(model, ids, read_tokens, write_tokens, warmup=warmup, extra=extra).run(repeats).samples


def read_write_rounds(model, ids, read_tokens: int, write_tokens: int, warmup: int = 1,
                      extra: dict | None = None, forward_lengths=()) -> Rounds:
    """The measurement of :func:`read_write` as extendable :class:`~claimcheck.llm.timing.Rounds`
    (no round measured yet: the caller runs as many as its verdicts need).

    ``forward_lengths``: more forward passes (no cache) over ``ids[:, :L]``, sides ``"forward@L"``
    in seconds (the cost of recomputing L positions, C16). A length equal to ``read_tokens`` adds
    no side: the read side is that very pass (:func:`forward_side` names it).
    """
    import torch

    from claimcheck.llm.models import forward_cached, output_cache

    need = max(read_tokens, write_tokens + 1, *forward_lengths)
    if ids.shape[1] < need:
        raise ValueError(f"need {need} token ids, got {ids.shape[1]}")

    def read():
        with torch.no_grad():
            model(ids[:, :read_tokens], use_cache=False)

    def write():
        with torch.no_grad():
            cache = output_cache(forward_cached(model, ids[:, :1]))
            for i in range(1, write_tokens + 1):
                cache = output_cache(forward_cached(model, ids[:, i:i + 1], cache))

    def forward(L):
        with torch.no_grad():
            model(ids[:, :L], use_cache=False)

    passes = {f"forward@{L}": (lambda L=L: forward(L)) for L in forward_lengths if L != read_tokens}
    return Rounds({"read": read, "write": write, **passes, **(extra or {})}, warmup=warmup, device=_device(model))


def forward_side(length: int, read_tokens: int) -> str:
    """The side of :func:`read_write_rounds` that holds one forward pass over ``length`` positions."""
    return "read" if length == read_tokens else f"forward@{length}"


def generate_times(model, prompt, lengths, repeats: int, warmup: int = 1):
    """:func:`generation_rounds` with ``repeats`` rounds measured: returns (:class:`Interleaved`, steps)."""
    rounds, steps = generation_rounds(model, prompt, lengths, warmup=warmup)
    rounds.run(repeats)
    return rounds.samples, steps


def generation_rounds(model, prompt, lengths, warmup: int = 1):
    """Wall time of greedy ``model.generate`` writing each of ``lengths`` new tokens, with and without cache.

    Samples are named ``"cache@N"`` and ``"nocache@N"`` (seconds per whole generation), measured in
    rounds that alternate every (length, cache) pair. End-of-text does not stop generation.
    ``prompt``: ``[1, p]`` int64 (the chapter: a 16-token prompt).

    Warm-up: ``warmup`` rounds of the shortest length only (cached and uncached).
    Every forward call inside the generations of the last round is also timed (a forward pre-hook
    and a forward hook read the clock; on CUDA the hook synchronises, once per step), giving the
    cost of each step against its context length: ``steps[name] = [(context_tokens, seconds), ...]``,
    and the positions each forward call processed (its input length):
    ``steps["positions"][name] = [(context_tokens, positions), ...]`` (counted, not timed: the exact
    form of C15/C16).

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
            steps.setdefault(current["name"], []).append((current["ctx"], time.perf_counter() - current["t0"]))
            steps["positions"].setdefault(current["name"], []).append((current["ctx"], current["pos"]))

    fns = {}
    for n in lengths:
        for use_cache in (True, False):
            name = f"{'cache' if use_cache else 'nocache'}@{n}"
            cfg = GenerationConfig(do_sample=False, max_new_tokens=n, min_new_tokens=n, use_cache=use_cache,
                                   pad_token_id=0)

            def run(cfg=cfg, name=name):
                steps.pop(name, None)  # keep the last round's steps only
                steps["positions"].pop(name, None)
                current["name"] = name
                hooks = [model.register_forward_pre_hook(pre, with_kwargs=True),
                         model.register_forward_hook(post, with_kwargs=True)]
                try:
                    with torch.no_grad():
                        model.generate(prompt, attention_mask=torch.ones_like(prompt), generation_config=cfg)
                finally:
                    current["name"] = None
                    for h in hooks:
                        h.remove()

            fns[name] = run
    # warm up on the shortest generations only: the long uncached ones cost minutes, and one
    # short pass each way already pages in the weights and settles the allocator
    shortest = min(lengths)
    for _ in range(warmup):
        fns[f"cache@{shortest}"]()
        fns[f"nocache@{shortest}"]()
    return Rounds(fns, warmup=0, device=device), steps


def prefix_generation_times(model, prompt, lengths) -> dict:
    """Times of greedy generations of each of ``lengths`` new tokens, with and without the cache,
    from one generation of the longest length each way (one interleaved round, no warm-up).

    Greedy decoding writes the same first N tokens whatever the length asked for, so an N-token
    generation's time is the sum of the first N forward passes of the longest one (the
    bookkeeping of ``generate`` between steps, ~1 %, is not in that sum; the longest's own time is
    its whole wall time). ``prompt``: ``[1, p]`` int64.

    Returns:
        ``{"seconds": {"cache@N": s, "nocache@N": s, ...}, "how": {name: how it was timed}}``.
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
    return {"seconds": seconds, "how": how}


@dataclass(frozen=True)
class PowerFit:
    """Least-squares fit of log(time) = log(a) + k log(n): exponent ``k`` with its standard error."""

    exponent: float
    stderr: float
    prefactor: float
    points: tuple

    def predict(self, n: float) -> float:
        return self.prefactor * n ** self.exponent


def fit_power_law(ns, times) -> PowerFit:
    """Fit ``time = a * n**k`` by ordinary least squares in log-log space.

    Args:
        ns: lengths (> 0); times: seconds (> 0), one per length (e.g. medians), or several per length.
    Returns:
        :class:`PowerFit`; ``stderr`` is the OLS standard error of the slope (0 with 2 points).
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
    if n > 2:
        resid = sum((y - (a + k * x)) ** 2 for x, y in zip(xs, ys))
        stderr = math.sqrt(resid / (n - 2) / sxx)
    else:
        stderr = 0.0
    return PowerFit(k, stderr, math.exp(a), tuple(zip(ns, times)))


def binned_power_fit(points, min_x: float, bins: int = 6) -> PowerFit:
    """Fit ``y = a * x**k`` to the medians of ``points`` ``[(x, y), ...]`` binned by x (x >= ``min_x``).

    Why binned medians: per-step times on a shared machine carry scheduler spikes; the median of
    each bin ignores them where an ordinary least-squares fit on raw points would not.
    Bins split the x range evenly in log space. Raises ``ValueError`` with fewer than 2 bins filled.
    """
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


def memory_bandwidth(nbytes: int = 512 * 2**20, repeats: int = 5, device=None) -> Stats:
    """Read bandwidth (bytes/s) of summing one float32 buffer of ``nbytes``, far larger than the caches.

    Why a read benchmark: a decode step reads every weight once and writes almost nothing, so the
    ceiling that matters is read bandwidth. ``torch.sum`` streams the buffer with all torch threads
    (like the GEMV kernels of decode) and does one add per 4 bytes, far below the CPU's compute
    rate, so its time is the memory's (the "Sum"/read kernels of STREAM-like benchmarks).
    Returns :class:`Stats` of bytes/s over ``repeats`` runs (after one warm-up).
    """
    probe = BandwidthProbe(nbytes, device)
    probe()
    return Stats(tuple(nbytes / probe.timed() for _ in range(repeats)))


class BandwidthProbe:
    """A callable that reads a float32 buffer of ``nbytes`` once (``torch.sum``); see :func:`memory_bandwidth`.

    Calling it is one read pass, so it can be interleaved with other measurements; the bandwidth of
    a pass is ``nbytes / seconds``.
    """

    def __init__(self, nbytes: int, device=None):
        import torch

        self.nbytes = nbytes
        self.device = torch.device("cpu") if device is None else torch.device(device)
        self.buf = torch.ones(nbytes // 4, dtype=torch.float32, device=self.device)

    def __call__(self):
        self.buf.sum()

    def timed(self) -> float:
        return time_once(self, self.device)


def prompt_and_decode(model, ids, prompt_lengths, decode_steps: int, repeats: int):
    """Time to first token (TTFT) and per-step decode latency after prompts of several lengths.

    :func:`latency_rounds` with ``repeats`` rounds measured, as
    ``dict L -> {"ttft": [s, ...], "steps": [[s per step, ...] per round], "kv_bytes": int}``.
    """
    rounds = latency_rounds(model, ids, prompt_lengths, decode_steps).run(repeats)
    return latency_view(rounds, prompt_lengths)


def latency_view(rounds, prompt_lengths, context_tokens: int | None = None) -> dict:
    """The samples of :func:`latency_rounds` by prompt length (see :func:`prompt_and_decode`); the
    decode steps on a long context and their paired short ones, where measured, under ``"context"``:
    ``{"tokens": C, "steps": [[s, ...] per round], "short_steps": [[s, ...] per round],
    "short_tokens": S, "kv_bytes": int}``."""
    out = {}
    for L in prompt_lengths:
        got = rounds.samples.samples[f"prompt@{L}"]
        out[L] = {"ttft": [g["ttft"] for g in got], "steps": [g["steps"] for g in got],
                  "kv_bytes": got[-1]["kv_bytes"] if got else None}
    if context_tokens is not None:
        got = rounds.samples.samples[f"context@{context_tokens}"]
        out["context"] = {"tokens": context_tokens, "steps": [g["steps"] for g in got],
                          "short_steps": [g["short_steps"] for g in got],
                          "short_tokens": got[-1]["short_tokens"] if got else None,
                          "kv_bytes": got[-1]["kv_bytes"] if got else None}
    return out


def latency_rounds(model, ids, prompt_lengths, decode_steps: int, warmup: int = 1,
                   context_tokens: int | None = None):
    """TTFT and per-step decode latency after prompts of several lengths, as extendable rounds.

    For each prompt length L (side ``"prompt@L"``): TTFT = a forward pass over ``ids[:, :L]`` plus
    the greedy pick of the first token; then ``decode_steps`` decode steps of 1 token each, each
    timed (one clock read per step; on CUDA one synchronize per step region). A round's sample of a
    side is ``{"ttft": s, "steps": [s, ...], "kv_bytes": int}`` (``kv_bytes``: the cache after the
    prompt, bytes in the model's dtype).

    ``context_tokens`` C adds side ``"context@C"``: ``decode_steps`` timed decode steps on a cache of
    C positions, each paired in time with one on a cache of the shortest prompt S (short, long,
    short, long ...), ``{"steps": [s, ...], "short_steps": [s, ...], "short_tokens": S,
    "kv_bytes": int}`` (``kv_bytes``: the long cache). Both caches are filled once, by one prefill
    each before the rounds (not timed), and cut back after every round
    (:func:`claimcheck.llm.models.rewind_cache`), so every round decodes from the same contexts at
    the cost of its decode steps alone: what a decode step costs depends on the cache's shape,
    which is the same as after a fresh prefill. The pairing keeps a drift of the machine's speed
    out of the ratio of the two.

    Raises:
        ValueError: ``ids`` is shorter than the longest prompt or ``context_tokens``, or
            ``context_tokens`` is not longer than the shortest prompt.
    Returns:
        :class:`~claimcheck.llm.timing.Rounds` with no round measured yet.
    """
    import torch

    from claimcheck.llm.models import cache_nbytes, forward_cached, output_cache, rewind_cache

    device = _device(model)
    need = max(*prompt_lengths, context_tokens or 0)
    if ids.shape[1] < need:
        raise ValueError(f"need {need} token ids, got {ids.shape[1]}")
    if context_tokens is not None and context_tokens <= min(prompt_lengths):
        # the short side is the shortest prompt's cache: at equal lengths both sides would step one
        # cache twice per pair and share one list of steps (a slowdown of exactly 1)
        raise ValueError(f"context_tokens ({context_tokens}) must exceed the shortest prompt ({min(prompt_lengths)})")

    def timed_step(nxt, cache):  # one decode step: (seconds, the next token, the cache)
        t0 = time.perf_counter()
        o = forward_cached(model, nxt, cache)
        nxt = o.logits[:, -1:].argmax(-1)
        sync_device(device)
        return time.perf_counter() - t0, nxt, output_cache(o)

    def decode(nxt, cache):
        steps = []
        for _ in range(decode_steps):
            dt, nxt, cache = timed_step(nxt, cache)
            steps.append(dt)
        return steps

    def one(L):
        with torch.no_grad():
            sync_device(device)
            t0 = time.perf_counter()
            o = forward_cached(model, ids[:, :L])
            nxt = o.logits[:, -1:].argmax(-1)
            sync_device(device)
            ttft = time.perf_counter() - t0
            cache = output_cache(o)
            kv = cache_nbytes(cache)
            return {"ttft": ttft, "steps": decode(nxt, cache), "kv_bytes": kv}

    fns: dict[str, Callable[[], Any]] = {f"prompt@{L}": functools.partial(one, L) for L in prompt_lengths}
    if context_tokens is not None:
        short = min(prompt_lengths)
        with torch.no_grad():
            filled = {n: forward_cached(model, ids[:, :n]) for n in (short, context_tokens)}
        first = {n: o.logits[:, -1:].argmax(-1) for n, o in filled.items()}
        caches = {n: output_cache(o) for n, o in filled.items()}
        kv_long = cache_nbytes(caches[context_tokens])

        def on_context():
            nxt = dict(first)
            times: dict = {short: [], context_tokens: []}
            try:
                with torch.no_grad():
                    for _ in range(decode_steps):  # short, long, short, long ...: paired in time
                        for n in (short, context_tokens):
                            dt, nxt[n], caches[n] = timed_step(nxt[n], caches[n])
                            times[n].append(dt)
            finally:  # a round cut short by an exception must not leave later rounds a longer context
                for n, cache in caches.items():
                    rewind_cache(cache, n)
            return {"steps": times[context_tokens], "short_steps": times[short], "short_tokens": short,
                    "kv_bytes": kv_long}

        fns[f"context@{context_tokens}"] = on_context
    return Rounds(fns, warmup=warmup, device=device)


def batched_decode(model, ids, batch_sizes, prompt_len: int, decode_steps: int, repeats: int):
    """Decode per-step latency at several batch sizes: :func:`batch_rounds` with ``repeats`` rounds,
    as ``dict B -> [seconds per decode step, one value per round]``."""
    rounds = batch_rounds(model, ids, batch_sizes, prompt_len, decode_steps).run(repeats)
    return {B: list(rounds.samples.samples[f"batch@{B}"]) for B in batch_sizes}


def batch_rounds(model, ids, batch_sizes, prompt_len: int, decode_steps: int, warmup: int = 1):
    """Decode throughput and per-step latency at several batch sizes, as extendable rounds.

    Every row of a batch has the same ``prompt_len`` tokens (different rows take different slices of
    ``ids``), so no padding, attention mask or position-id care is needed. Each batch is prefilled
    once, before the rounds (not timed); in every round ``decode_steps`` steps each write one token
    per row from that same cache, which is then cut back to ``prompt_len`` positions
    (:func:`claimcheck.llm.models.rewind_cache`). The clock covers all steps. A round's sample of
    side ``"batch@B"`` is seconds per decode step (total / ``decode_steps``).
    """
    import torch

    from claimcheck.llm.models import forward_cached, output_cache, rewind_cache

    device = _device(model)
    n = ids.shape[1]
    need = max(batch_sizes) * prompt_len
    flat = ids[0].repeat(-(-need // n))[:need]

    def prefilled(B):
        batch = flat[: B * prompt_len].view(B, prompt_len).to(device)
        with torch.no_grad():
            o = forward_cached(model, batch)
        return o.logits[:, -1:].argmax(-1), output_cache(o)

    def one(first, prefill_cache):
        nxt, cache = first, prefill_cache
        try:
            with torch.no_grad():
                sync_device(device)
                t0 = time.perf_counter()
                for _ in range(decode_steps):
                    o = forward_cached(model, nxt, cache)
                    nxt = o.logits[:, -1:].argmax(-1)
                    cache = output_cache(o)
                sync_device(device)
                return (time.perf_counter() - t0) / decode_steps
        finally:  # also after an exception: the next round decodes from prompt_len positions again
            rewind_cache(prefill_cache, prompt_len)

    fns = {}
    for B in batch_sizes:
        first, cache = prefilled(B)
        fns[f"batch@{B}"] = (lambda first=first, cache=cache: one(first, cache))
    return Rounds(fns, warmup=warmup, device=device)
