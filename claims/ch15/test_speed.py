"""Read (prefill) vs write (decode with KV cache), measured interleaved: C01, C02, C05, C11.time, C12.

The absolute figures (C01, C02, C11.time) were taken on the author's laptop: here they are
recorded beside the chapter's and enforced only with ``--claims-runner author-laptop``. Their
portable forms, the ratio (C05) and the bandwidth bound (C12), are decided on every runner from a
90% confidence interval over the interleaved rounds (``claim.check_timing``): passed or failed
only when the whole interval clears the bar, else more rounds, else inconclusive.
"""

import statistics

import pytest

from claimcheck.llm import plots


@pytest.mark.claim("C05")
def test_read_is_tens_of_times_faster_than_write(claim, read_write_timing):
    t = read_write_timing
    claim.check_timing(t, t.read_over_write, plot=plots.read_write, chapter_ratio="60.6 (author's laptop)")


@pytest.mark.claim("C01")
def test_read_tokens_per_second(claim, read_write_timing):
    claim.check(statistics.median(read_write_timing.read_tps()), "token/s", **read_write_timing.details())


@pytest.mark.claim("C02")
def test_write_tokens_per_second(claim, read_write_timing):
    claim.check(statistics.median(read_write_timing.write_tps()), "token/s", **read_write_timing.details())


@pytest.mark.claim("C11.time")
def test_table_times(claim, read_write_timing):
    """The table's absolute times: read 512 tokens in 0.086 s (the claim), and on the author's laptop
    also write 511 in 5.21 s; both scaled linearly from the profile's sizes."""
    t = read_write_timing
    read_s, write_s = t.median_s("read") * 512 / t.read_tokens, t.median_s("write") * 511 / t.write_tokens
    scaled = "" if (t.read_tokens, t.write_tokens) == (512, 511) else \
        f" (scaled from {t.read_tokens} read and {t.write_tokens} written tokens)"
    claim.detail(write_s_here=write_s, write_s_chapter=claim.value("write_s"), scaled_from=scaled or None, **t.details())
    claim.check(read_s, "s")
    if claim.on_its_runner:  # on the author's laptop the write time is enforced too
        claim.require(claim.holds(write_s, claim.value("write_s")), measured=read_s, message=(
            f"reading 512 tokens took {read_s:.3g} s (the chapter's {claim.stated} s holds), but writing 511 took "
            f"{write_s:.3g} s{scaled} against the chapter's {claim.value('write_s')} s; next: run with "
            "--claims-profile full (the chapter's sizes) or correct write_s in the registry"))


@pytest.mark.claim("C12")
def test_decode_is_bound_by_memory_bandwidth(claim, read_write_timing):
    """The roofline argument, measured: a decode step needs every weight byte for 2 FLOPs per
    parameter. Running decode at prefill's FLOP/s (the compute this runner demonstrably has, since
    FLOPs per token are equal, C24) would need ``weight bytes x prefill token/s`` of memory traffic.
    If that exceeds the measured read bandwidth, decode cannot be compute-bound: it waits on memory.
    """
    claim.check_timing(read_write_timing, read_write_timing.bandwidth_multiple, plot=plots.bandwidth)
