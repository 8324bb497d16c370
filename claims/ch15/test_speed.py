"""Read (prefill) vs write (decode with KV cache), measured interleaved: C01, C02, C05, C11.time.

The absolute figures (C01, C02, C11.time) were taken on the author's laptop: here they are
recorded beside the chapter's and enforced only with ``--claims-runner author-laptop``. The
portable form, the ratio (C05), is asserted on every runner.
"""

import pytest


def _rates(t):
    s = t["samples"]
    return (t["read_tokens"] / s.stats("read").median, t["write_tokens"] / s.stats("write").median)


def _timing_details(t):
    s = t["samples"]
    return {"profile": t["profile"], "read_tokens": t["read_tokens"], "write_tokens": t["write_tokens"],
            "torch_threads": t["threads"], "read_s": s.stats("read").as_dict(), "write_s": s.stats("write").as_dict()}


@pytest.mark.claim("C05")
def test_read_is_tens_of_times_faster_than_write(claim, read_write_timing):
    t = read_write_timing
    s = t["samples"]
    read_tps, write_tps = _rates(t)
    # per-round ratios (round i of read against round i of write): their spread shows the noise
    rounds = [(t["read_tokens"] / r) / (t["write_tokens"] / w) for r, w in zip(s.samples["read"], s.samples["write"])]
    claim.check(read_tps / write_tps, "x", read_tps=read_tps, write_tps=write_tps, ratio_per_round=rounds,
                chapter_ratio="60.6 (author's laptop)", **_timing_details(t))


@pytest.mark.claim("C01")
def test_read_tokens_per_second(claim, read_write_timing):
    read_tps, _ = _rates(read_write_timing)
    claim.check(read_tps, "token/s", **_timing_details(read_write_timing))


@pytest.mark.claim("C02")
def test_write_tokens_per_second(claim, read_write_timing):
    _, write_tps = _rates(read_write_timing)
    claim.check(write_tps, "token/s", **_timing_details(read_write_timing))


@pytest.mark.claim("C11.time")
def test_read_time_for_512_tokens(claim, read_write_timing):
    t = read_write_timing
    read_s = t["samples"].stats("read").median * 512 / t["read_tokens"]
    claim.check(read_s, "s", scaled_to_tokens=512, **_timing_details(t))
