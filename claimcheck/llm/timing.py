"""Timing: warm-up, interleaved rounds (A B A B ..., so drift hits both sides alike), every sample
kept, medians with their spread, the clock read after a CUDA synchronize. :func:`interleaved` times
any callables so; the kit's measurements (:mod:`claimcheck.llm.speed`) are :class:`Timing` subclasses.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import TYPE_CHECKING, Any

from claimcheck.fingerprint import busy_by_load, load_average
from claimcheck.interval import CI, median_ci, rounds_for
from claimcheck.llm.profiles import Profile
from claimcheck.verdict import Bar, ExactForm, Timed

if TYPE_CHECKING:
    import torch

#: the confidence level of timing verdicts (two-sided, distribution-free: 5 rounds cover 93.75%)
LEVEL = 0.90


@dataclass(frozen=True)
class Stats:
    """Summary of timing samples (seconds): count, median, extremes, numpy's default ('linear')
    quartiles, and the samples in their order. Pure: tested against hand-computed numbers."""

    n: int
    median: float
    min: float
    max: float
    q1: float
    q3: float
    samples: list[float]

    @classmethod
    def of(cls, samples: Sequence[float]) -> Stats:
        """The summary of ``samples``. Raises ``ValueError`` for none."""
        if not samples:
            raise ValueError("Stats needs at least one sample")
        quartiles = (_quantile(samples, 0.25), _quantile(samples, 0.75))
        return cls(
            len(samples), statistics.median(samples), min(samples), max(samples), *quartiles, list(samples)
        )

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _quantile(xs: Iterable[float], q: float) -> float:
    """numpy's default ('linear') quantile, computed as claims.json has always written it (statistics'
    'inclusive' quantiles are the same numbers, but not always to the last bit, and keep an int)."""
    s = sorted(xs)
    pos = q * (len(s) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(s) - 1)
    return s[lo] + (s[hi] - s[lo]) * (pos - lo)


def sync_device(device: torch.device | None) -> None:
    """Wait for queued CUDA work on ``device`` (no-op for None or a CPU device), before reading a clock."""
    if device is not None and getattr(device, "type", str(device)).startswith("cuda"):
        import torch

        torch.cuda.synchronize(device)


class Rounds:
    """Interleaved rounds of ``fns`` (side name -> zero-argument callable) that a claim can extend.
    A sample is the call's wall seconds (``timer``), or its return value when not None; ``samples``
    grows in place, shared by every claim; ``seconds``: wall time of the rounds so far."""

    def __init__(
        self,
        fns: Mapping[str, Callable[[], Any]],
        warmup: int = 1,
        device: torch.device | None = None,
        timer: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not fns:
            raise ValueError("Rounds needs at least one function")
        self.fns = dict(fns)
        self.device = device
        self.timer = timer
        self.samples: dict[str, list[Any]] = {k: [] for k in fns}  # by side, in the order they run
        self.seconds = 0.0
        self.cut_short = False  # a run(within_s=...) stopped before its rounds: the machine was slow
        for _ in range(warmup):
            for fn in self.fns.values():
                fn()

    @property
    def n(self) -> int:
        """Rounds measured so far."""
        return len(next(iter(self.samples.values())))

    def run(self, rounds: int = 1, within_s: float | None = None) -> Rounds:
        """Measure ``rounds`` more rounds; return self. ``within_s``: no round starts that the mean
        round says would end later than that after the call began (the very first always runs)."""
        t_start = self.timer()
        for _ in range(rounds):
            elapsed = self.timer() - t_start
            # the mean round so far counts this call's rounds too (self.seconds grows at its end)
            if within_s is not None and self.n and elapsed + (self.seconds + elapsed) / self.n > within_s:
                self.cut_short = True
                break
            for name, fn in self.fns.items():
                sync_device(self.device)
                t0 = self.timer()
                out = fn()
                sync_device(self.device)
                dt = self.timer() - t0
                self.samples[name].append(dt if out is None else out)
        self.seconds += self.timer() - t_start
        return self

    def per_round(self) -> list[Round]:
        """The samples as one :class:`Round` per round."""
        return [Round(zip(self.samples, vals)) for vals in zip(*self.samples.values())]

    def stats(self, side: str) -> Stats:
        """The :class:`Stats` of every sample of ``side`` so far."""
        return Stats.of(self.samples[side])


class Round(dict[str, Any]):
    """One round's samples by side (``{"prompt@32": sample, ...}``)."""

    def side(self, kind: str, n: int) -> Any:
        """The sample of side ``kind@n``; ``KeyError`` if none."""
        return self[f"{kind}@{n}"]


@dataclass(frozen=True)
class Condition:
    """A further statistic (rounds -> float) a timing claim requires inside ``region = (lo, hi)``;
    ``text`` says what it is."""

    name: str
    statistic: Callable[[list[Round]], float]
    region: tuple[float, float]
    text: str


def _per_round_ci(rounds_list: Sequence[Round], statistic: Callable[[list[Round]], float]) -> CI:
    """The CI of the median of ``statistic`` over each round alone."""
    return median_ci([float(statistic([r])) for r in rounds_list], LEVEL)


@dataclass
class Timing:
    """A timing measurement shared by several claims: its ``rounds``, the seconds ``budget_s`` a
    claim may add while undecided, the size profile. Per-round medians, not a bootstrap: with 3-7
    rounds a percentile bootstrap of a median covers far less than its level."""

    rounds: Rounds
    budget_s: float
    profile: str
    spent: dict[str, float] = field(default_factory=dict)  # seconds of the last measure(), for the report

    def per_round(self) -> list[Round]:
        return self.rounds.per_round()

    def seconds(self, side: str, rounds: Sequence[Round] | None = None) -> list[float]:
        """Seconds of one call of ``side`` in each round (default: every round so far). Raises
        ``KeyError`` naming the sides there are."""
        if side not in self.rounds.samples:
            raise KeyError(f"no side {side!r} in this timing (sides: {', '.join(self.rounds.samples)})")
        return [r[side] for r in (self.per_round() if rounds is None else rounds)]

    def median_s(self, side: str) -> float:
        """Median seconds of one call of ``side`` over every round so far."""
        return statistics.median(self.seconds(side))

    def measure(
        self,
        statistic: Callable[[list[Round]], float],
        *,
        conditions: Iterable[Condition] = (),
        exact: Iterable[ExactForm] = (),
        unit: str | None = None,
        settled: Callable[[Timed], bool],
    ) -> Timed:
        """The :class:`claimcheck.verdict.Timed` evidence of ``statistic`` (rounds -> the value in
        ``unit``) and of each :class:`Condition`, ``exact`` forms passed through; while
        ``settled(evidence)`` is false or fewer rounds than :data:`LEVEL` needs are measured, one
        more round, if it ends within ``budget_s``."""
        rounds = self.rounds
        clock = rounds.timer
        min_rounds = rounds_for(LEVEL)
        spent_at_start = rounds.seconds
        t0 = clock()
        step_s = 0.0  # how long the last extension took: no new one starts that would overrun the budget
        exact_forms = tuple(exact)
        while True:
            per_round = rounds.per_round()
            bars = tuple(
                Bar(c.name, _per_round_ci(per_round, c.statistic), c.region, c.text) for c in conditions
            )
            evidence = Timed(
                _per_round_ci(per_round, statistic),
                unit,
                bars,
                exact_forms,
                rounds.n,
                self.budget_s,
                profile=self.profile,
            )
            if (rounds.n >= min_rounds and settled(evidence)) or clock() - t0 + step_s > self.budget_s:
                break
            t_step = clock()
            rounds.run(1, within_s=max(0.0, self.budget_s - (clock() - t0)))
            step_s = rounds.seconds / rounds.n
            if rounds.cut_short and clock() - t_step < 1e-3:
                break  # not even one round fits what is left of the budget
        self.spent = {
            "extra_seconds": round(clock() - t0, 3),
            "measured_seconds": round(rounds.seconds, 3),
            "first_rounds_seconds": round(spent_at_start, 3),
        }
        return replace(evidence, load=machine_load())

    def details(self) -> dict[str, Any]:
        """Facts for a claim's report row."""
        return {"profile": self.profile, **self.spent}


@dataclass
class SidesTiming(Timing):
    """The timing :func:`interleaved` returns: each named side's wall seconds per round."""

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides' names, in the order they run inside a round."""
        return tuple(self.rounds.samples)

    def ratio(self, slower: str, faster: str) -> Callable[[list[Round]], float]:
        """The statistic rounds -> median seconds of ``slower`` / median seconds of ``faster``
        (unit ``x``). Raises ``KeyError`` here where either side is not in this timing."""
        for side in (slower, faster):
            self.seconds(side, rounds=[])

        def statistic(rounds: Sequence[Round]) -> float:
            slow, fast = self.seconds(slower, rounds), self.seconds(faster, rounds)
            return statistics.median(slow) / statistics.median(fast)

        statistic.__name__ = f"ratio_{slower}_over_{faster}"
        return statistic

    def details(self) -> dict[str, Any]:
        """The base facts and every side's :meth:`Stats.as_dict` as ``"<side>_s"``."""
        s = self.rounds
        return {**super().details(), **{f"{side}_s": s.stats(side).as_dict() for side in self.sides}}


def interleaved(
    profile: Profile,
    /,
    *,
    warmup: int = 1,
    device: torch.device | None = None,
    timer: Callable[[], float] = time.perf_counter,
    **sides: Callable[[], object],
) -> SidesTiming:
    """Return the timing of the callables ``sides`` for ``claim.check_timing``: ``warmup`` calls,
    then the ``profile``'s ``timing_repeats`` rounds within ``base_budget_s`` (a claim may add some
    within ``timing_budget_s``), in wall seconds. Example: ``t = interleaved(claims_profile,
    read=lambda: model(ids), tokenize=lambda: tok(text))``; ``claim.check_timing(t, t.ratio("read",
    "tokenize"))``. Raises ``ValueError`` for no side or one not callable."""
    if not sides:
        raise ValueError("interleaved() needs at least one side: interleaved(profile, name=callable, ...)")
    if bad := [name for name, fn in sides.items() if not callable(fn)]:
        raise ValueError(f"interleaved(): side(s) {', '.join(bad)} must be zero-argument callables")
    fns = {name: _wall_timed(fn) for name, fn in sides.items()}
    rounds = Rounds(fns, warmup=warmup, device=device, timer=timer)
    rounds.run(profile.timing_repeats, within_s=profile.base_budget_s)
    return SidesTiming(rounds, profile.timing_budget_s, profile.name)


def _wall_timed(fn: Callable[[], object]) -> Callable[[], None]:
    """``fn`` returning None, so that :class:`Rounds` records its wall time."""

    def call() -> None:
        fn()

    return call


def machine_load(probe_repeats: int = 5) -> dict[str, Any]:
    """How busy the machine is now: ``{"loadavg_1m"`` (None where the OS has none), ``"cores",
    "probe_s", "probe_spread", "busy", "why"}``: the median seconds and spread (max/min) of
    ``probe_repeats`` runs of a 256x256 float32 matmul chain (~5 ms); ``busy`` when the spread
    exceeds 1.5 or :func:`claimcheck.fingerprint.busy_by_load` says so."""
    import torch

    load, cores = load_average()
    a = torch.randn(256, 256, generator=torch.Generator().manual_seed(0))

    def kernel() -> None:
        x = a
        for _ in range(8):
            x = (x @ a).clamp_(-1, 1)

    times = sorted(Rounds({"probe": kernel}, warmup=1).run(probe_repeats).samples["probe"])
    spread = times[-1] / times[0] if times[0] > 0 else float("inf")
    varied = (
        f"a reference kernel's time varied {spread:.1f}x over {probe_repeats} runs" if spread > 1.5 else ""
    )
    reasons = [why for why in (varied, busy_by_load(load, cores)) if why]
    return {
        "loadavg_1m": None if load is None else round(load, 2),
        "cores": cores,
        "probe_s": statistics.median(times),
        "probe_spread": round(spread, 3),
        "busy": bool(reasons),
        "why": "; ".join(reasons),
    }
