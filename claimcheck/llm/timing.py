"""Timing: warm-up, repeats, A/B interleaving, and robust statistics over every sample.

Timings on shared machines are noisy, so the harness never asserts an absolute time: it measures
both sides of a ratio in one process, interleaved (A B A B ...) so that drift of the machine hits
both sides alike, keeps every sample, and quotes medians with their spread (as pytest-benchmark's
``stats.py`` and nanoGPT's ``bench.py`` do). On CUDA the clock is read only after a device
synchronize, once per measured region.
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass, field


@dataclass(frozen=True)
class Stats:
    """Summary of timing samples (seconds). Pure: tested against hand-computed numbers."""

    samples: tuple[float, ...]

    def __post_init__(self):
        if not self.samples:
            raise ValueError("Stats needs at least one sample")

    @property
    def n(self) -> int:
        return len(self.samples)

    @property
    def median(self) -> float:
        return statistics.median(self.samples)

    @property
    def min(self) -> float:
        return min(self.samples)

    @property
    def max(self) -> float:
        return max(self.samples)

    @property
    def mean(self) -> float:
        return statistics.fmean(self.samples)

    @property
    def q1(self) -> float:
        return _quantile(self.samples, 0.25)

    @property
    def q3(self) -> float:
        return _quantile(self.samples, 0.75)

    @property
    def iqr(self) -> float:
        return self.q3 - self.q1

    def as_dict(self) -> dict:
        return {"n": self.n, "median": self.median, "min": self.min, "max": self.max,
                "q1": self.q1, "q3": self.q3, "samples": list(self.samples)}


def _quantile(xs, q: float) -> float:
    """Linear-interpolation quantile (numpy's default 'linear' method)."""
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def sync_device(device) -> None:
    """Wait for queued CUDA work on ``device`` (no-op for None or a CPU device), before reading a clock."""
    if device is not None and getattr(device, "type", str(device)).startswith("cuda"):
        import torch

        torch.cuda.synchronize(device)


def time_once(fn, device=None) -> float:
    """Return the wall time (seconds) of one call of ``fn()``, synchronising CUDA around it."""
    sync_device(device)
    t0 = time.perf_counter()
    fn()
    sync_device(device)
    return time.perf_counter() - t0


@dataclass
class Interleaved:
    """Samples of several functions measured in turn (A B A B ...), in seconds."""

    order: list[str] = field(default_factory=list)
    samples: dict[str, list[float]] = field(default_factory=dict)

    def stats(self, name: str) -> Stats:
        return Stats(tuple(self.samples[name]))

    def ratio_stats(self, num: str, den: str) -> Stats:
        """Per-round ratios num/den of paired samples (round i of A against round i of B)."""
        return Stats(tuple(a / b for a, b in zip(self.samples[num], self.samples[den])))


def interleave(fns: dict, repeats: int, warmup: int = 1, device=None) -> Interleaved:
    """Run each function ``warmup`` times, then ``repeats`` rounds of one call each, in turn.

    Args:
        fns: name -> zero-argument callable; order of the dict is the order inside each round.
        repeats: measured rounds (>= 1).
        warmup: unmeasured rounds first (page in weights, let allocators settle).
        device: a torch device; on CUDA the device is synchronised around each measured call.

    Returns:
        :class:`Interleaved` holding every sample, in seconds.

    Raises:
        ValueError: ``repeats < 1`` or no functions.
    """
    if repeats < 1 or not fns:
        raise ValueError("interleave needs repeats >= 1 and at least one function")
    for _ in range(warmup):
        for fn in fns.values():
            fn()
    result = Interleaved(order=list(fns), samples={k: [] for k in fns})
    for _ in range(repeats):
        for name, fn in fns.items():
            result.samples[name].append(time_once(fn, device))
    return result
