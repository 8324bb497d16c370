"""Plots for the claims page: matplotlib figures rendered to PNG bytes.

Every plot shows the samples as points and the medians as lines: nothing is hidden behind a
summary. Figures are made with matplotlib's object API (:class:`matplotlib.figure.Figure` with
its own Agg canvas), never through pyplot: a plugin must not change the plotting backend, or the
open figures, of the process that hosts pytest.
"""

from __future__ import annotations

import io


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


def _fit_curve(ax, xs, fit, color: str, label: str) -> None:
    """A fitted ``a*x^k`` (``fit.predict``) as a dashed line over 51 points from ``xs[0]`` to ``xs[-1]``."""
    grid = [xs[0] + (xs[-1] - xs[0]) * j / 50 for j in range(51)]
    ax.plot(grid, [fit.predict(x) for x in grid], color=color, ls="--", label=label)


def read_write_plot(read_tps: list[float], write_tps: list[float], chapter=(5947, 98)) -> bytes:
    """Token/s of read (prefill) and write (decode) per round, medians as bars' lines, chapter's values marked."""
    import statistics

    fig, ax = _figure("Read (prefill) vs write (decode) throughput")
    for x, (_name, vals, ch) in enumerate((("read", read_tps, chapter[0]), ("write", write_tps, chapter[1]))):
        ax.scatter(
            [x] * len(vals), vals, color="C0", zorder=3, label="samples (this runner)" if x == 0 else None
        )
        ax.hlines(
            statistics.median(vals), x - 0.25, x + 0.25, color="C0", lw=2, label="median" if x == 0 else None
        )
        ax.scatter(
            [x + 0.1],
            [ch],
            marker="x",
            color="C3",
            zorder=3,
            label="chapter (author's laptop)" if x == 0 else None,
        )
    ax.set_xticks([0, 1], ["read (prefill)", "write (decode, KV cache)"])
    ax.set_yscale("log")
    ax.set_ylabel("token/s")
    ax.legend(fontsize=8)
    return _png(fig)


def generation_plot(samples: dict, fits: dict) -> bytes:
    """Total generation time vs new tokens, with and without cache: samples, medians, fitted a*n^k."""
    import statistics

    fig, ax = _figure("Generation time vs length (16-token prompt)")
    for i, kind in enumerate(("cache", "nocache")):
        pts = sorted((int(k.split("@")[1]), v) for k, v in samples.items() if k.startswith(kind + "@"))
        ns = [n for n, _ in pts]
        for n, vals in pts:
            ax.scatter([n] * len(vals), vals, color=f"C{i}", s=12, zorder=3)
        ax.plot(ns, [statistics.median(v) for _, v in pts], color=f"C{i}", lw=1, label=f"{kind} median")
        fit = fits.get(kind)
        if fit is not None:
            _fit_curve(ax, ns, fit, f"C{i}", f"{kind} fit n^{fit.exponent:.2f}±{fit.stderr:.2f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("new tokens")
    ax.set_ylabel("seconds")
    ax.legend(fontsize=8)
    return _png(fig)


def batch_plot(per_step: dict) -> bytes:
    """Decode token/s (left axis) and per-step latency (right axis) vs batch size."""
    import statistics

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
    ax2.plot(
        bs, [statistics.median(per_step[b]) * 1000 for b in bs], color="C1", label="ms per step (median)"
    )
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
    import statistics

    fig, ax = _figure("Weight traffic at prefill's rate vs memory bandwidth (C12's verdict)")
    gb = 1e9
    series = [
        ("needed at prefill's rate:\nweight bytes x read token/s", needed_bytes_per_s, "C0"),
        ("read bandwidth\n(torch.sum)", bandwidth, "C3"),
    ]
    if decode_bytes_per_s:
        series.append(("decode's actual traffic:\nweight bytes x write token/s", decode_bytes_per_s, "C7"))
    for x, (_, values, color) in enumerate(series):
        ax.scatter([x] * len(values), [v / gb for v in values], color=color, zorder=3)
        ax.hlines(statistics.median(values) / gb, x - 0.25, x + 0.25, color=color, lw=2)
    ax.set_xticks(range(len(series)), [name for name, _, _ in series])
    ax.set_ylabel("GB/s")
    ax.set_yscale("log")
    return _png(fig)


def forward_pass_plot(lengths, samples: dict, fit) -> bytes:
    """Seconds of one forward pass (no cache) vs positions: every round's sample, the medians, and
    the fitted ``a*L^k``, labelled with the claim's value ``1 + k`` (the exponent of uncached
    decoding's total time, whose step L recomputes L positions)."""
    import statistics

    fig, ax = _figure("Forward pass time vs positions recomputed (C16's verdict)")
    for L in lengths:
        ax.scatter([L] * len(samples[L]), samples[L], color="C1", s=12, zorder=3)
    ax.plot(lengths, [statistics.median(samples[L]) for L in lengths], color="C1", lw=1, label="median")
    _fit_curve(ax, lengths, fit, "C1", f"fit L^{fit.exponent:.2f}: total time ~ n^{1 + fit.exponent:.2f}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("positions in the forward pass")
    ax.set_ylabel("seconds")
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
