"""Read (prefill) vs write (decode with KV cache), measured interleaved: C01, C02, C05, C11.time, C12.

The absolute figures (C01, C02, C11.time) were taken on the author's laptop: here they are
recorded beside the chapter's and enforced only with ``--claims-runner author-laptop``. Their
portable forms, the ratio (C05) and the bandwidth bound (C12), are decided on every runner from a
90% confidence interval over the interleaved rounds (:func:`claimcheck.llm.verdicts.decide_timing`):
passed or failed only when the whole interval clears the bar, else more rounds, else inconclusive.
"""

import statistics

import pytest

from claimcheck.llm import plots
from claimcheck.llm.verdicts import decide_timing


def _rates(t, rounds=None):
    rounds = t["rounds"].per_round() if rounds is None else rounds
    read = [t["read_tokens"] / r["read"] for r in rounds]
    write = [t["write_tokens"] / r["write"] for r in rounds]
    return read, write


def _medians(t, rounds=None):
    read, write = _rates(t, rounds)
    return statistics.median(read), statistics.median(write)


def _timing_details(t):
    s = t["samples"]
    return {"profile": t["profile"], "read_tokens": t["read_tokens"], "write_tokens": t["write_tokens"],
            "torch_threads": t["threads"], "read_s": s.stats("read").as_dict(), "write_s": s.stats("write").as_dict()}


@pytest.mark.claim("C05")
def test_read_is_tens_of_times_faster_than_write(claim, read_write_timing):
    t = read_write_timing

    def ratio(rounds):
        read_tps, write_tps = _medians(t, rounds)
        return read_tps / write_tps

    try:
        decide_timing(claim, t["rounds"], ratio, budget_s=t["budget_s"], chapter_ratio="60.6 (author's laptop)")
    finally:  # the samples of every round taken, whatever the verdict
        read, write = _rates(t)
        claim.plot(plots.read_write_plot(read, write), "read vs write token/s")
        read_tps, write_tps = _medians(t)
        claim.detail(read_tps=read_tps, write_tps=write_tps, ratio_per_round=[r / w for r, w in zip(read, write)],
                     **_timing_details(t))


@pytest.mark.claim("C01")
def test_read_tokens_per_second(claim, read_write_timing):
    read_tps, _ = _medians(read_write_timing)
    claim.check(read_tps, "token/s", **_timing_details(read_write_timing))


@pytest.mark.claim("C02")
def test_write_tokens_per_second(claim, read_write_timing):
    _, write_tps = _medians(read_write_timing)
    claim.check(write_tps, "token/s", **_timing_details(read_write_timing))


@pytest.mark.claim("C11.time")
def test_table_times(claim, read_write_timing):
    """The table's absolute times: read 512 tokens, write 511 (scaled linearly from the profile's sizes)."""
    t = read_write_timing
    s = t["samples"]
    read_s = s.stats("read").median * 512 / t["read_tokens"]
    write_s = s.stats("write").median * 511 / t["write_tokens"]
    scaled = t["read_tokens"] != 512 or t["write_tokens"] != 511
    claim.detail(write_s_here=write_s, write_s_chapter=claim.value("write_s"),
                 scaled_from=None if not scaled else f"read {t['read_tokens']}, write {t['write_tokens']} tokens",
                 **_timing_details(t))
    if claim.claim.runner == claim.runner:  # on the author's laptop both times are enforced
        claim.require(claim.claim.tolerance(write_s, claim.value("write_s")) is None,
                      f"write 511 tokens took {write_s:.3g} s, chapter {claim.value('write_s')} s")
    claim.check(read_s, "s")


@pytest.mark.claim("C12")
def test_decode_is_bound_by_memory_bandwidth(claim, read_write_timing):
    """The roofline argument, measured: a decode step needs every weight byte for 2 FLOPs per
    parameter. Running decode at prefill's FLOP/s (the compute this runner demonstrably has, since
    FLOPs per token are equal, C24) would need ``weight bytes x prefill token/s`` of memory traffic.
    If that exceeds the measured read bandwidth, decode cannot be compute-bound: it waits on memory.
    """
    t = read_write_timing
    weight_bytes = t["weight_bytes"]

    def needed(rounds):  # bandwidth multiples decode would need at prefill's rate
        read, _ = _rates(t, rounds)
        bw = statistics.median(t["bandwidth_bytes"] / r["stream"] for r in rounds)
        return weight_bytes * statistics.median(read) / bw

    try:
        decide_timing(claim, t["rounds"], needed, budget_s=t["budget_s"])
    finally:
        _bandwidth_details(claim, t)


def _bandwidth_details(claim, t):
    weight_bytes = t["weight_bytes"]
    read, write = _rates(t)
    traffic = [w * weight_bytes for w in write]            # bytes/s the decode steps actually read
    bandwidth = [t["bandwidth_bytes"] / x for x in t["samples"].samples["stream"]]
    claim.detail(decode_weight_traffic_bytes_per_s=traffic, read_bandwidth_bytes_per_s=bandwidth,
                 decode_fraction_of_bandwidth=statistics.median(traffic) / statistics.median(bandwidth),
                 weight_bytes=weight_bytes,
                 prefill_over_decode_flops_per_s=statistics.median(read) / statistics.median(write),
                 bandwidth_benchmark=f"torch.sum over a {t['bandwidth_bytes'] // 2**20} MiB float32 buffer, "
                                     "interleaved with the read/write rounds", **_timing_details(t))
    claim.plot(plots.bandwidth_plot(traffic, bandwidth), "decode traffic vs bandwidth")
