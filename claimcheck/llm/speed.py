"""Speed measurements behind the timing claims: read vs write, cache vs no cache, TTFT, batching,
as interleaved :class:`~claimcheck.llm.timing.Rounds` (seconds); the claims assert ratios, trends and
fitted exponents only. Token ids: ``[batch, n]`` int64 tensors on the model's device.
"""

from __future__ import annotations

import contextlib
import functools
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from statistics import median as _median
from typing import TYPE_CHECKING, Any

from claimcheck.llm.generation import generate, greedy_config
from claimcheck.llm.models import cache_nbytes, forward_cached, output_cache, rewind_cache
from claimcheck.llm.timing import Round, Rounds, Timing, sync_device
from claimcheck.verdict import ExactForm

if TYPE_CHECKING:  # types only: torch and transformers are imported where they are used
    import torch
    from transformers import GenerationConfig, PreTrainedModel
    from transformers.cache_utils import Cache

#: sides of rounds: name -> a zero-argument callable (its sample: its return value, else its wall seconds)
Sides = Mapping[str, Callable[[], Any]]


def _step(
    model: PreTrainedModel, nxt: torch.Tensor, cache: Cache | None, last_only: bool = False
) -> tuple[torch.Tensor, Cache]:
    """One forward pass over ``nxt`` after ``cache`` (None: a prefill): (the greedy next token, the cache)."""
    o = forward_cached(model, nxt, cache, last_only=last_only)
    return o.logits[:, -1:].argmax(-1), output_cache(o)


def warm_up(model: PreTrainedModel, ids: torch.Tensor, prompt_tokens: int = 16) -> None:
    """Pay the process's one-time costs before any round: a prefill of ``prompt_tokens`` and a step."""
    import torch

    with torch.no_grad():
        _step(model, *_step(model, ids[:, :prompt_tokens], None))


def read_write_rounds(
    model: PreTrainedModel,
    ids: torch.Tensor,
    read_tokens: int,
    write_tokens: int,
    warmup: int = 1,
    extra: Sides | None = None,
    forward_lengths: Sequence[int] = (),
) -> Rounds:
    """Read (a forward pass over ``read_tokens``) vs write (``write_tokens`` cached decode steps after
    a 1-token prefill made once, untimed, as the chapter's listing times them; the cache is rewound
    after each round) as rounds, none measured yet; ``extra``: more sides, name -> callable;
    ``forward_lengths``: sides ``"forward@L"`` (:func:`forward_side`). Raises ``ValueError`` where
    ``ids`` is too short."""
    import torch

    if ids.shape[1] < (need := max(read_tokens, write_tokens + 1, *forward_lengths)):
        raise ValueError(f"need {need} token ids, got {ids.shape[1]}")

    def forward(L: int) -> None:
        with torch.no_grad():
            model(ids[:, :L], use_cache=False)

    with torch.no_grad():
        prefill = output_cache(forward_cached(model, ids[:, :1]))

    def write() -> None:
        cache = prefill
        try:
            with torch.no_grad():
                for i in range(1, write_tokens + 1):
                    cache = output_cache(forward_cached(model, ids[:, i : i + 1], cache))
        finally:  # also after an exception: the next round writes after 1 position again
            rewind_cache(prefill, 1)

    fns: dict[str, Callable[[], Any]] = {"read": functools.partial(forward, read_tokens), "write": write}
    fns |= {f"forward@{L}": functools.partial(forward, L) for L in forward_lengths if L != read_tokens}
    return Rounds(fns | dict(extra or {}), warmup=warmup, device=model.device)


def forward_side(length: int, read_tokens: int) -> str:
    """The side of :func:`read_write_rounds` that holds one forward pass over ``length`` positions."""
    return "read" if length == read_tokens else f"forward@{length}"


def generation_rounds(
    model: PreTrainedModel, prompt: torch.Tensor, lengths: Sequence[int]
) -> tuple[Rounds, dict[str, Any]]:
    """Return (rounds, none measured yet, steps): greedy generation of each of ``lengths`` new tokens
    after ``prompt``, sides ``"cache@N"``/``"nocache@N"``; ``steps[side]``: the last round's forward
    calls ``[(context_tokens, seconds)]``; ``steps["positions"][side]``, ``[(context_tokens, positions)]``."""
    device = model.device
    steps: dict[str, Any] = {"positions": {}}

    def run(cfg: GenerationConfig, name: str) -> None:
        steps[name], steps["positions"][name] = [], []  # the last round's steps only
        call: dict[str, Any] = {}  # the current forward call: context, positions, start time

        def pre(mod: torch.nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
            n = int((args[0] if args else kwargs["input_ids"]).shape[1])
            cache: Any = kwargs.get("cache", kwargs.get("past_key_values"))  # a Cache, or 4.x tuples
            call.update(ctx=int(cache.get_seq_length() if hasattr(cache, "get_seq_length") else 0) + n, pos=n)
            sync_device(device)
            call["t0"] = time.perf_counter()

        def post(mod: torch.nn.Module, args: tuple[Any, ...], kwargs: dict[str, Any], output: Any) -> None:
            sync_device(device)
            steps[name].append((call["ctx"], time.perf_counter() - call["t0"]))
            steps["positions"][name].append((call["ctx"], call["pos"]))

        hooks = [
            model.register_forward_pre_hook(pre, with_kwargs=True),
            model.register_forward_hook(post, with_kwargs=True),
        ]
        try:
            generate(model, prompt, cfg)
        finally:
            for h in hooks:
                h.remove()

    fns: dict[str, Callable[[], None]] = {}
    for n in lengths:
        for kind, use_cache in (("cache", True), ("nocache", False)):
            fns[f"{kind}@{n}"] = functools.partial(run, greedy_config(n, use_cache), f"{kind}@{n}")
    return Rounds(fns, warmup=0, device=device), steps


def prefix_generation_times(
    model: PreTrainedModel, prompt: torch.Tensor, lengths: Sequence[int]
) -> ChapterTimes:
    """Times of greedy generations of each of ``lengths`` tokens with and without the cache, from one
    generation of the longest each way (greedy decoding's first N tokens are the same whatever the
    length). Raises ``ValueError`` for no lengths or one below 1."""
    if not lengths or min(lengths) < 1:
        raise ValueError(f"need lengths of at least 1 token, got {lengths!r}")
    longest = max(lengths)
    rounds, steps = generation_rounds(model, prompt, (longest,))
    rounds.run(1)
    seconds: dict[str, float] = {}
    how: dict[str, str] = {}
    for kind in ("cache", "nocache"):
        name = f"{kind}@{longest}"
        seconds[name], how[name] = rounds.samples[name][0], "wall time of the whole generation"
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

    def predict(self, n: float) -> float:
        return self.prefactor * n**self.exponent


def fit_power_law(ns: Sequence[float], times: Sequence[float]) -> PowerFit:
    """Fit ``time = a * n**k`` to lengths ``ns`` and seconds ``times`` by least squares in log-log
    space (``stderr``: of the slope, 0 with 2 points). Raises ``ValueError`` with fewer than 2
    distinct lengths or a value <= 0."""
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
    return PowerFit(k, stderr, math.exp(a))


def binned_power_fit(points: Iterable[tuple[float, float]], min_x: float, bins: int = 6) -> PowerFit:
    """Fit ``y = a * x**k`` to the medians of ``points`` ``[(x, y)]`` (x >= ``min_x``) in ``bins``
    bins of log x, deaf to spikes. Raises ``ValueError`` with fewer than 2 bins filled."""
    sel = sorted((x, y) for x, y in points if x >= min_x and y > 0)
    if len(sel) < 2:
        raise ValueError(f"need points with x >= {min_x}")
    lo, hi = math.log(sel[0][0]), math.log(sel[-1][0])
    width = (hi - lo) / bins or 1.0
    groups: dict[int, list[tuple[float, float]]] = {}
    for x, y in sel:
        groups.setdefault(min(int((math.log(x) - lo) / width), bins - 1), []).append((x, y))
    xs = [_median(x for x, _ in g) for g in groups.values()]
    ys = [_median(y for _, y in g) for g in groups.values()]
    return fit_power_law(xs, ys)


class BandwidthProbe:
    """A callable that reads a float32 buffer of ``nbytes`` once (``torch.sum``: all threads, one add
    per 4 bytes, like decode's GEMV kernels), so bandwidth = ``nbytes / seconds``."""

    def __init__(self, nbytes: int) -> None:
        import torch

        self.nbytes = nbytes
        self.buf = torch.ones(nbytes // 4, dtype=torch.float32)

    def __call__(self) -> None:
        self.buf.sum()


def latency_rounds(
    model: PreTrainedModel,
    ids: torch.Tensor,
    prompt_lengths: Sequence[int],
    decode_steps: int,
    context_tokens: int | None = None,
) -> Rounds:
    """TTFT and decode latency as rounds, none measured yet: sides ``"prompt@L"``
    (:class:`LatencySample`) and ``"context@C"`` (:class:`ContextSample`, ``context_tokens``: decode
    steps paired in time with the shortest prompt's; caches filled once, rewound after each round).
    Raises ``ValueError`` where ``ids`` is too short or C not above the shortest prompt."""
    import torch

    device = model.device
    if ids.shape[1] < (need := max(*prompt_lengths, context_tokens or 0)):
        raise ValueError(f"need {need} token ids, got {ids.shape[1]}")
    if context_tokens is not None and context_tokens <= min(prompt_lengths):
        # at equal lengths both sides would step one cache twice per pair (a slowdown of exactly 1)
        raise ValueError(
            f"context_tokens ({context_tokens}) must exceed the shortest prompt ({min(prompt_lengths)})"
        )

    def one(L: int) -> LatencySample:
        with torch.no_grad():
            sync_device(device)
            ttft, (nxt, cache) = _timed_step(model, device, ids[:, :L], None)
            kv = cache_nbytes(cache)  # before the decode steps grow the cache in place
            steps = []
            for _ in range(decode_steps):
                dt, (nxt, cache) = _timed_step(model, device, nxt, cache)
                steps.append(dt)
            return LatencySample(ttft, steps, kv)

    fns: dict[str, Callable[[], Any]] = {f"prompt@{L}": functools.partial(one, L) for L in prompt_lengths}
    if context_tokens is None:
        return Rounds(fns, warmup=0, device=device)
    short, long = min(prompt_lengths), context_tokens
    with torch.no_grad():
        filled = {n: _step(model, ids[:, :n], None, last_only=True) for n in (short, long)}
    kv_long = cache_nbytes(filled[long][1])

    def on_context() -> ContextSample:
        at = dict(filled)  # (next token, cache) by context length
        times: dict[int, list[float]] = {short: [], long: []}
        try:
            with torch.no_grad():
                for _ in range(decode_steps):  # short, long, short, long ...: paired in time
                    for n in (short, long):
                        dt, at[n] = _timed_step(model, device, *at[n])
                        times[n].append(dt)
        finally:  # a round cut short by an exception must not leave later rounds a longer context
            for n, (_, cache) in filled.items():
                rewind_cache(cache, n)
        return ContextSample(times[long], times[short], short, kv_long)

    fns[f"context@{long}"] = on_context
    return Rounds(fns, warmup=0, device=device)


def _timed_step(
    model: PreTrainedModel, device: torch.device, nxt: torch.Tensor, cache: Cache | None
) -> tuple[float, tuple[torch.Tensor, Cache]]:
    """:func:`_step` of the last position's logits, timed: (seconds, (the next token, the cache))."""
    t0 = time.perf_counter()
    out = _step(model, nxt, cache, last_only=True)
    sync_device(device)
    return time.perf_counter() - t0, out


def batch_rounds(
    model: PreTrainedModel,
    ids: torch.Tensor,
    batch_sizes: Sequence[int],
    prompt_len: int,
    decode_steps: int,
) -> Rounds:
    """Seconds per decode step at each batch size as rounds, sides ``"batch@B"``: rows of
    ``prompt_len`` different tokens prefilled once, the cache rewound after each round."""
    import torch

    device = model.device
    need = max(batch_sizes) * prompt_len
    flat = ids[0].repeat(-(-need // ids.shape[1]))[:need]

    def one(first: torch.Tensor, prefill_cache: Cache) -> float:
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
    return Rounds(fns, warmup=0, device=device)


@dataclass(frozen=True)
class LatencySample:
    """Side ``prompt@L``'s sample: TTFT and decode steps (seconds), the prompt's KV cache (bytes)."""

    ttft: float
    steps: list[float]
    kv_bytes: int


@dataclass(frozen=True)
class ContextSample:
    """Side ``context@C``'s sample: decode steps (seconds) on C positions and, paired, on the
    shortest prompt's ``short_tokens``; ``kv_bytes``: the long cache."""

    steps: list[float]
    short_steps: list[float]
    short_tokens: int
    kv_bytes: int


@dataclass(frozen=True)
class ChapterTimes:
    """The chapter's generations timed once: ``seconds`` and ``how`` each was timed, by side."""

    seconds: dict[str, float]
    how: dict[str, str]


@dataclass
class ReadWriteTiming(Timing):
    """Read vs write (:func:`read_write_rounds`) with side ``stream``, a bandwidth probe over
    ``bandwidth_bytes``. Rates: token/s per round of ``rounds`` (default: every round so far)."""

    read_tokens: int = 0
    write_tokens: int = 0
    threads: Any = None
    bandwidth_bytes: int = 0
    weight_bytes: int = 0

    def read_tps(self, rounds: Sequence[Round] | None = None) -> list[float]:
        return [self.read_tokens / s for s in self.seconds("read", rounds)]

    def write_tps(self, rounds: Sequence[Round] | None = None) -> list[float]:
        return [self.write_tokens / s for s in self.seconds("write", rounds)]

    def read_over_write(self, rounds: Sequence[Round]) -> float:
        """Median read token/s over median write token/s (C05's value)."""
        return _median(self.read_tps(rounds)) / _median(self.write_tps(rounds))

    def bandwidth_multiple(self, rounds: Sequence[Round]) -> float:
        """Weight bytes x read token/s over the read bandwidth: above 1, decode at prefill's rate
        would need more than the memory gives (C12's value)."""
        bw = _median(self.bandwidth_bytes / r["stream"] for r in rounds)
        return self.weight_bytes * _median(self.read_tps(rounds)) / bw

    def details(self) -> dict[str, Any]:
        read, write = self.read_tps(), self.write_tps()
        s = self.rounds
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
    """One uncached forward pass over each of ``lengths`` positions (C16), in the rounds of a
    :class:`ReadWriteTiming`; ``sides``: length -> side."""

    lengths: tuple[int, ...] = ()
    sides: dict[int, str] = field(default_factory=dict)

    def medians(self, rounds: Sequence[Round] | None = None) -> list[float]:
        """Median seconds of the forward pass at each length, in ``lengths`` order."""
        return [_median(self.seconds(self.sides[L], rounds)) for L in self.lengths]

    def fit(self, rounds: Sequence[Round] | None = None) -> PowerFit:
        """The power law ``seconds = a * L**k`` of the medians."""
        return fit_power_law(list(self.lengths), self.medians(rounds))

    def uncached_growth(self, rounds: Sequence[Round]) -> float:
        """1 + k: the exponent of uncached decoding's total time, whose step n costs ~ n**k (C16's value)."""
        return 1 + self.fit(rounds).exponent

    def details(self) -> dict[str, Any]:
        return {
            **super().details(),
            "forward_lengths": list(self.lengths),
            "forward_pass_median_s": dict(zip(self.lengths, self.medians())),
        }


@dataclass
class GenerationTiming(Timing):
    """Greedy generation of each of ``lengths`` new tokens after ``prompt_tokens`` with and without
    the KV cache, and the last round's forward ``steps`` (:func:`generation_rounds`)."""

    lengths: tuple[int, ...] = ()
    prompt_tokens: int = 0
    steps: dict[str, Any] = field(default_factory=dict)

    def speedup(self, rounds: Sequence[Round], n: int) -> float:
        """How many times faster ``n`` tokens are written with the cache than without (medians)."""
        return _median(r.side("nocache", n) for r in rounds) / _median(r.side("cache", n) for r in rounds)

    def positions(self) -> dict[str, int]:
        """Positions processed by each generation's forward calls, counted, by side."""
        return {name: sum(p for _, p in calls) for name, calls in self.steps["positions"].items()}

    def positions_ratio(self) -> dict[int, float]:
        """Positions recomputed without over with the cache, by length (counted)."""
        counted = self.positions()
        return {n: counted[f"nocache@{n}"] / counted[f"cache@{n}"] for n in sorted(self.lengths)}

    def exact_positions(self) -> tuple[ExactForm, ExactForm]:
        """C15's exact forms: the counted totals match the formulas (prompt p, n new tokens; uncached
        call i recomputes p + i positions); the positions ratio grows with length."""
        p, counted, ratio = self.prompt_tokens, self.positions(), self.positions_ratio()
        formula = {f"nocache@{n}": n * p + n * (n - 1) // 2 for n in self.lengths}
        formula.update({f"cache@{n}": p + n - 1 for n in self.lengths})
        matches = sum(counted.get(k) == v for k, v in formula.items())
        ns = sorted(self.lengths)
        matched = "generations whose counted positions match n*p + n(n-1)/2 (no cache) and p + n - 1 (cache)"
        growth = "positions recomputed without/with cache, longest over shortest length"
        return (
            ExactForm("positions_formula", matches, (len(formula), len(formula)), matched),
            ExactForm("positions_ratio_growth", ratio[ns[-1]] / ratio[ns[0]], (1.0 + 1e-9, math.inf), growth),
        )

    def exact_uncached_steps(self, region: tuple[float, float]) -> tuple[ExactForm, ExactForm]:
        """C16's exact forms at the longest length: 1 + the exponent of positions per uncached step
        against ``region``; one position per cached step."""
        longest = max(self.lengths)
        uncached = self.steps["positions"][f"nocache@{longest}"]
        cached = self.steps["positions"][f"cache@{longest}"]
        exponent = 1 + fit_power_law([x for x, _ in uncached], [y for _, y in uncached]).exponent
        what = "1 + exponent of positions recomputed per uncached step vs context (counted)"
        per_step = "positions per cached decode step after the prompt"
        return (
            ExactForm("positions_exponent", exponent, region, what),
            ExactForm("cached_positions_per_step", max(p for _, p in cached[1:]), (1, 1), per_step),
        )

    def growth_details(self, min_context: int) -> dict[str, Any]:
        """C16's report facts: total time vs length fitted, and uncached step time above ``min_context``."""
        s, out = self.rounds, dict[str, Any]()
        for kind in ("nocache", "cache"):
            fit = fit_power_law(list(self.lengths), [s.stats(f"{kind}@{n}").median for n in self.lengths])
            out[f"total_time_exponent_{kind}"] = [fit.exponent, fit.stderr]
        out["positions_exponent_exact"] = self.exact_uncached_steps((-math.inf, math.inf))[0].value
        with contextlib.suppress(ValueError):  # generations too short for a per-step fit above the bound
            k = binned_power_fit(self.steps[f"nocache@{max(self.lengths)}"], min_context)
            out["uncached_step_time_exponent"] = [k.exponent, k.stderr]
        return out

    def details(self) -> dict[str, Any]:
        rounds = self.per_round()
        return {
            **super().details(),
            "speedup_by_length": {n: self.speedup(rounds, n) for n in sorted(self.lengths)},
            "positions_counted": self.positions(),
            "positions_ratio_by_length": self.positions_ratio(),
            "prompt_tokens": self.prompt_tokens,
            "samples_s": dict(self.rounds.samples),
        }


@dataclass
class LatencyTiming(Timing):
    """TTFT and decode latency after each of ``prompts`` and on ``context_tokens`` positions
    (:func:`latency_rounds`); latencies are medians in seconds, growths longest over shortest prompt."""

    prompts: tuple[int, ...] = ()
    context_tokens: int = 0
    decode_steps: int = 0

    def ttft(self, rounds: Sequence[Round], L: int) -> float:
        return _median(r.side("prompt", L).ttft for r in rounds)

    def itl(self, rounds: Sequence[Round], L: int) -> float:
        """Inter-token latency after an ``L``-token prompt, decode steps pooled."""
        return _median(x for r in rounds for x in r.side("prompt", L).steps)

    def ttft_growth(self, rounds: Sequence[Round]) -> float:
        return self.ttft(rounds, max(self.prompts)) / self.ttft(rounds, min(self.prompts))

    def itl_growth(self, rounds: Sequence[Round]) -> float:
        return self.itl(rounds, max(self.prompts)) / self.itl(rounds, min(self.prompts))

    def _paired(self, rounds: Sequence[Round]) -> tuple[float, float]:
        ctx = [r.side("context", self.context_tokens) for r in rounds]
        return _median(x for c in ctx for x in c.short_steps), _median(x for c in ctx for x in c.steps)

    def context_slowdown(self, rounds: Sequence[Round]) -> float:
        """A decode step on the long context over one on the shortest prompt's, paired in time."""
        short, long = self._paired(rounds)
        return long / short

    def kv_bytes(self) -> dict[int, int]:
        """KV cache bytes after each prompt and on the long context: ``{positions: bytes}``."""
        last = self.per_round()[-1]
        return {
            **{L: last.side("prompt", L).kv_bytes for L in self.prompts},
            self.context_tokens: last.side("context", self.context_tokens).kv_bytes,
        }

    def details(self) -> dict[str, Any]:
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
    """Seconds per decode step at each of ``batch_sizes`` (:func:`batch_rounds`)."""

    batch_sizes: tuple[int, ...] = ()
    prompt_tokens: int = 0
    decode_steps: int = 0

    def latency(self, rounds: Sequence[Round], B: int) -> float:
        return _median(r.side("batch", B) for r in rounds)

    def throughput_gain(self, rounds: Sequence[Round]) -> float:
        """Decode token/s at the largest batch over at the smallest."""
        lo, hi = min(self.batch_sizes), max(self.batch_sizes)
        return (hi / self.latency(rounds, hi)) / (lo / self.latency(rounds, lo))

    def per_step(self) -> dict[int, list[float]]:
        """Every round's sample, by batch size."""
        return {B: list(self.rounds.samples[f"batch@{B}"]) for B in sorted(self.batch_sizes)}

    def details(self) -> dict[str, Any]:
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
