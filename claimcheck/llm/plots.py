"""Plots for the claims page: matplotlib figures rendered to PNG bytes.

Every plot shows the samples as points and the medians as lines: nothing is hidden behind a
summary. Figures are made with matplotlib's object API (:class:`matplotlib.figure.Figure` with
its own Agg canvas), never through pyplot: a plugin must not change the plotting backend, or the
open figures, of the process that hosts pytest.
"""

from __future__ import annotations

import io
import statistics


def _figure(title: str):
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.0, 3.6), dpi=100)
    ax = fig.subplots()
    ax.set_title(title, fontsize=10)
    ax.grid(True, alpha=0.3)
    return fig, ax


def _png(fig) -> bytes:
    """The figure as PNG bytes (Figure.savefig renders with a fresh Agg canvas: no backend, no pyplot)."""
    buf = io.BytesIO()
    fig.tight_layout()
    fig.savefig(buf, format="png")
    return buf.getvalue()


def _strip(ax, x: float, values, color: str, labels=(None, None)) -> None:
    """The samples at ``x`` as points and their median as a short bar (``labels``: of each)."""
    ax.scatter([x] * len(values), values, color=color, zorder=3, label=labels[0])
    ax.hlines(statistics.median(values), x - 0.25, x + 0.25, color=color, lw=2, label=labels[1])


def read_write_plot(read_tps: list[float], write_tps: list[float], chapter=(5947, 98)) -> bytes:
    """Token/s of read (prefill) and write (decode) per round, medians as bars' lines, chapter's values marked."""
    fig, ax = _figure("Read (prefill) vs write (decode) throughput")
    for x, (vals, ch) in enumerate(((read_tps, chapter[0]), (write_tps, chapter[1]))):
        first = x == 0
        _strip(ax, x, vals, "C0", ("samples (this runner)", "median") if first else (None, None))
        label = "chapter (author's laptop)" if first else None
        ax.scatter([x + 0.1], [ch], marker="x", color="C3", zorder=3, label=label)
    ax.set_xticks([0, 1], ["read (prefill)", "write (decode, KV cache)"])
    ax.set(yscale="log", ylabel="token/s")
    ax.legend(fontsize=8)
    return _png(fig)


def batch_plot(per_step: dict) -> bytes:
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
    ax.legend(lines, [h.get_label() for h in lines], fontsize=8, loc="upper left")
    return _png(fig)


def bandwidth_plot(
    needed_bytes_per_s: list[float], bandwidth: list[float], decode_bytes_per_s: list[float] | None = None
) -> bytes:
    """C12's verdict per round: the weight traffic decode would need at prefill's token/s (weight
    bytes x read token/s, bytes/s) against the measured read bandwidth; decode's actual traffic
    (weight bytes x write token/s) beside them when given. Their ratio is the claim's value."""
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


def forward_pass_plot(lengths, samples: dict, fit) -> bytes:
    """Seconds of one forward pass (no cache) vs positions: every round's sample, the medians, and
    the fitted ``a*L^k`` (dashed), labelled with the claim's value ``1 + k`` (the exponent of
    uncached decoding's total time, whose step L recomputes L positions)."""
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


# the plots of the timing claims, from the kit's typed measurements (claimcheck.llm.speed):
# each returns (PNG bytes, name), the form claim.check_timing(..., plot=...) takes


def read_write(t) -> tuple[bytes, str]:
    """C05: read vs write token/s of every round of a :class:`~claimcheck.llm.speed.ReadWriteTiming`."""
    return read_write_plot(t.read_tps(), t.write_tps()), "read vs write token/s"


def bandwidth(t) -> tuple[bytes, str]:
    """C12: the series of its verdict, every round: the weight traffic decode would need at
    prefill's rate against the measured read bandwidth (decode's actual traffic beside them)."""
    needed = [r * t.weight_bytes for r in t.read_tps()]
    ceiling = [t.bandwidth_bytes / x for x in t.rounds.samples.samples["stream"]]
    actual = [w * t.weight_bytes for w in t.write_tps()]
    return bandwidth_plot(needed, ceiling, actual), "traffic needed at prefill's rate vs bandwidth"


def forward_passes(f) -> tuple[bytes, str]:
    """C16: the forward-pass series of a :class:`~claimcheck.llm.speed.ForwardTiming`, the one its verdict fits."""
    samples = {L: list(f.rounds.samples.samples[f.sides[L]]) for L in f.lengths}
    return forward_pass_plot(list(f.lengths), samples, f.fit()), "forward pass time vs positions"


def batch(b) -> tuple[bytes, str]:
    """C35: decode token/s and per-step latency vs batch size, every round."""
    return batch_plot(b.per_step()), "batched decode"
