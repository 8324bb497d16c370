"""Plots for the claims page, as PNG bytes: every sample a point, the medians lines. Made with
matplotlib's object API, never pyplot: a plugin must not change the host process's backend or figures.
"""

from __future__ import annotations

import io
import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # types only: matplotlib is imported where a plot is drawn
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from claimcheck.llm.speed import BatchTiming, ForwardTiming, PowerFit, ReadWriteTiming


def _figure(title: str) -> tuple[Figure, Axes]:
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 3.6), dpi=100)
    ax = fig.subplots()
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    return fig, ax


def _png(fig: Figure) -> bytes:
    """The figure as PNG bytes (rendered on a fresh Agg canvas)."""
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _strip(
    ax: Axes,
    x: float,
    values: Sequence[float],
    color: str,
    labels: tuple[str | None, str | None] = (None, None),
) -> None:
    """The samples at ``x`` as points and their median as a short bar (``labels``: of each)."""
    ax.scatter([x] * len(values), values, color=color, zorder=3, label=labels[0])
    ax.hlines(statistics.median(values), x - 0.25, x + 0.25, color=color, lw=2, label=labels[1] or "")


def read_write_plot(read_tps: list[float], write_tps: list[float]) -> bytes:
    """Read and write token/s per round, their medians, the chapter's values (5947, 98) marked."""
    fig, ax = _figure("Read (prefill) vs write (decode) throughput")
    for x, (vals, ch) in enumerate(((read_tps, 5947), (write_tps, 98))):
        first = x == 0
        _strip(ax, x, vals, "C0", ("samples (this runner)", "median") if first else (None, None))
        label = "chapter (author's laptop)" if first else None
        ax.scatter([x + 0.1], [ch], marker="x", color="C3", zorder=3, label=label)
    ax.set_xticks([0, 1], ["read (prefill)", "write (decode, KV cache)"])
    ax.set(yscale="log", ylabel="token/s")
    ax.legend(fontsize=8)
    return _png(fig)


def batch_plot(per_step: Mapping[int, Sequence[float]]) -> bytes:
    """Decode token/s (left axis) and per-step latency (right axis) vs batch size."""
    fig, ax = _figure("Batched decode: throughput and latency vs batch size")
    bs = sorted(per_step)
    for b in bs:
        ax.scatter([b] * len(per_step[b]), [b / s for s in per_step[b]], color="C0", s=12, zorder=3)
    ax.plot(bs, [b / statistics.median(per_step[b]) for b in bs], color="C0", label="token/s (median)")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("batch size")
    ax.set_ylabel("decode token/s", color="C0")
    ax2 = ax.twinx()
    for b in bs:
        ax2.scatter([b] * len(per_step[b]), [s * 1000 for s in per_step[b]], color="C1", s=12, marker="s")
    median_ms = [statistics.median(per_step[b]) * 1000 for b in bs]
    ax2.plot(bs, median_ms, color="C1", label="ms per step (median)")
    ax2.set_ylabel("ms per decode step", color="C1")
    lines = ax.get_legend_handles_labels()[0] + ax2.get_legend_handles_labels()[0]
    ax.legend(lines, [str(h.get_label()) for h in lines], fontsize=8, loc="upper left")
    return _png(fig)


def bandwidth_plot(
    needed_bytes_per_s: list[float], bandwidth: list[float], decode_bytes_per_s: list[float] | None = None
) -> bytes:
    """C12's verdict per round (bytes/s): the weight traffic decode would need at prefill's rate
    against the measured read bandwidth, and decode's actual traffic when given."""
    fig, ax = _figure("Weight traffic at prefill's rate vs memory bandwidth (C12's verdict)")
    series = [
        ("needed at prefill's rate:\nweight bytes x read token/s", needed_bytes_per_s, "C0"),
        ("read bandwidth\n(torch.sum)", bandwidth, "C3"),
    ]
    if decode_bytes_per_s:
        series.append(("decode's actual traffic:\nweight bytes x write token/s", decode_bytes_per_s, "C7"))
    for x, (_, values, color) in enumerate(series):
        _strip(ax, x, [v / 1e9 for v in values], color)
    ax.set_xticks(range(len(series)), [name for name, _, _ in series])
    ax.set(ylabel="GB/s", yscale="log")
    return _png(fig)


def forward_pass_plot(lengths: Sequence[int], samples: Mapping[int, Sequence[float]], fit: PowerFit) -> bytes:
    """Seconds of one uncached forward pass vs positions: samples, medians, and the fitted
    ``a*L^k`` (dashed) labelled with the claim's value ``1 + k``."""
    fig, ax = _figure("Forward pass time vs positions recomputed (C16's verdict)")
    for L in lengths:
        ax.scatter([L] * len(samples[L]), samples[L], color="C1", s=12, zorder=3)
    ax.plot(lengths, [statistics.median(samples[L]) for L in lengths], color="C1", lw=1, label="median")
    grid = [lengths[0] + (lengths[-1] - lengths[0]) * j / 50 for j in range(51)]
    label = f"fit L^{fit.exponent:.2f}: total time ~ n^{1 + fit.exponent:.2f}"
    ax.plot(grid, [fit.predict(x) for x in grid], color="C1", ls="--", label=label)
    ax.set(xscale="log", yscale="log", xlabel="positions in the forward pass", ylabel="seconds")
    ax.legend(fontsize=8)
    return _png(fig)


def read_write(t: ReadWriteTiming) -> tuple[bytes, str]:
    """C05's plot for ``claim.check_timing(..., plot=...)``: (PNG bytes, name)."""
    return read_write_plot(t.read_tps(), t.write_tps()), "read vs write token/s"


def bandwidth(t: ReadWriteTiming) -> tuple[bytes, str]:
    """C12's plot of :func:`bandwidth_plot`: (PNG bytes, name)."""
    needed = [r * t.weight_bytes for r in t.read_tps()]
    ceiling = [t.bandwidth_bytes / x for x in t.rounds.samples["stream"]]
    actual = [w * t.weight_bytes for w in t.write_tps()]
    return bandwidth_plot(needed, ceiling, actual), "traffic needed at prefill's rate vs bandwidth"


def forward_passes(f: ForwardTiming) -> tuple[bytes, str]:
    """C16's plot of the forward passes its verdict fits: (PNG bytes, name)."""
    samples = {L: list(f.rounds.samples[f.sides[L]]) for L in f.lengths}
    return forward_pass_plot(list(f.lengths), samples, f.fit()), "forward pass time vs positions"


def batch(b: BatchTiming) -> tuple[bytes, str]:
    """C35's plot: (PNG bytes, name)."""
    return batch_plot(b.per_step()), "batched decode"
