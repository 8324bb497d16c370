"""C34: on a GPU, read (prefill) is still far faster per token than write (decode), usually by more.

The chapter's C05 experiment (:func:`claimcheck.llm.speed.read_write`) on the CUDA device chosen by
``--claims-device`` (default: GPU 0), in float32 like the chapter's listing
(:func:`claimcheck.llm.device.dtype_for`), with the profile's sizes and interleaving; the timer
synchronises the GPU around each measured region. The registry's ``needs = [..., "gpu"]`` adds
the ``gpu`` marker, so on a runner without CUDA the test is skipped with the reason before any
fixture runs. A few seconds on a data-centre GPU.
"""

import statistics

import pytest


@pytest.fixture(scope="module")
def gpu_read_write(gpt2_small, timing_ids, claims_device, claims_profile):
    """Interleaved read/write timing of GPT-2 small (a float32 copy) on ``claims_device``, a CUDA GPU."""
    from claimcheck.llm.device import describe_device, dtype_for
    from claimcheck.llm.models import variant
    from claimcheck.llm.speed import read_write

    p = claims_profile
    dtype = dtype_for(claims_device, "listing")
    model = variant(gpt2_small, dtype=dtype).to(claims_device)
    result = read_write(model, timing_ids.to(claims_device), p.read_tokens, p.write_tokens,
                        repeats=p.timing_repeats, warmup=2)
    return {"samples": result, "read_tokens": p.read_tokens, "write_tokens": p.write_tokens,
            "device": describe_device(claims_device), "dtype": str(dtype).replace("torch.", ""), "profile": p.name}


@pytest.mark.claim("C34")
def test_gpu_read_is_far_faster_than_write(claim, gpu_read_write):
    t = gpu_read_write
    s = t["samples"]
    read = [t["read_tokens"] / x for x in s.samples["read"]]
    write = [t["write_tokens"] / x for x in s.samples["write"]]
    read_tps, write_tps = statistics.median(read), statistics.median(write)
    claim.check(read_tps / write_tps, "x", read_tps=read_tps, write_tps=write_tps,
                ratio_per_round=[r / w for r, w in zip(read, write)], device=t["device"], dtype=t["dtype"],
                profile=t["profile"], read_tokens=t["read_tokens"], write_tokens=t["write_tokens"],
                read_s=s.stats("read").as_dict(), write_s=s.stats("write").as_dict(),
                cpu_bar="C05: >= 10x on every runner")
