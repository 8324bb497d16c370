"""C34: on a GPU, read (prefill) is still far faster per token than write (decode), usually by more.

The chapter's C05 experiment (:func:`claimcheck.llm.speed.read_write_rounds`) on the CUDA device chosen by
``--claims-device`` (default: GPU 0), in float32 like the chapter's listing, with the profile's
sizes and interleaving; the timer synchronises the GPU around each measured region. The registry's
``needs = [..., "gpu"]`` adds the ``gpu`` marker, so on a runner without CUDA the test is skipped
with the reason before any fixture runs. A few seconds on a data-centre GPU.
"""

import pytest


@pytest.fixture(scope="module")
def gpu_read_write(gpt2_small, timing_ids, claims_device, claims_profile):
    """Interleaved read/write timing (a :class:`claimcheck.llm.speed.ReadWriteTiming`) of GPT-2
    small, a float32 copy, on ``claims_device``, a CUDA GPU."""
    import torch

    from claimcheck.llm.models import variant
    from claimcheck.llm.speed import ReadWriteTiming, read_write_rounds

    p = claims_profile
    model = variant(gpt2_small, dtype=torch.float32).to(claims_device)
    rounds = read_write_rounds(model, timing_ids.to(claims_device), p.read_tokens, p.write_tokens, warmup=2)
    return ReadWriteTiming(rounds.run(p.timing_repeats), 0.0, p.name, read_tokens=p.read_tokens,
                           write_tokens=p.write_tokens)


@pytest.mark.claim("C34")
def test_gpu_read_is_far_faster_than_write(claim, gpu_read_write, claims_device):
    from claimcheck.llm.device import describe_device

    t = gpu_read_write
    claim.check(t.read_over_write(t.per_round()), "x", **t.details(), device=describe_device(claims_device),
                dtype="float32", cpu_bar="C05: >= 10x on every runner")
