"""Parameters and FLOPs per token: C09, C10, C21, C22, C23, C24."""

import pytest

from claimcheck.llm.flops import (
    decode_step_flops,
    kaplan_flops_per_token,
    matmul_flops_per_token,
    prefill_flops,
)
from claimcheck.llm.models import count_parameters, non_embedding_parameters, parameter_bytes


@pytest.mark.claim("C21")
def test_non_embedding_parameters(claim, gpt2_small):
    cfg = gpt2_small.config
    total = count_parameters(gpt2_small)
    embeddings = gpt2_small.transformer.wte.weight.numel() + gpt2_small.transformer.wpe.weight.numel()
    measured = total - embeddings
    claim.require(measured == non_embedding_parameters(cfg),
                  f"model count {measured:,} != per-layer formula {non_embedding_parameters(cfg):,}",
                  measured=measured, unit="param")
    claim.check(measured, "param", total_parameters=total, embedding_parameters=embeddings,
                formula="total - 50257 x 768 (wte) - 1024 x 768 (wpe)")


@pytest.mark.claim("C10")
def test_weights_bytes_fp32(claim, gpt2_small):
    nbytes = parameter_bytes(gpt2_small)
    claim.require(next(gpt2_small.parameters()).dtype.itemsize == 4, "model is not float32", measured=nbytes, unit="B")
    claim.check(nbytes, "B", parameters=count_parameters(gpt2_small), bytes=nbytes, mib=nbytes / 2**20)


@pytest.mark.claim("C22")
def test_flops_per_token_2n(claim, gpt2_small):
    n = non_embedding_parameters(gpt2_small.config)
    claim.check(2 * n, "FLOP/token", convention="2N, N = non-embedding parameters (Kaplan et al. 2020)")


@pytest.fixture(scope="module")
def counted_decode_flops(gpt2_small):
    """FlopCounterMode totals for one decode step at context 1024, with sdpa and eager attention."""
    from claimcheck.llm.models import variant

    sdpa = decode_step_flops(gpt2_small, context=1024)
    eager_model = variant(gpt2_small, attn_implementation="eager")
    eager = decode_step_flops(eager_model, context=1024)
    return {"sdpa": sdpa, "eager": eager}


@pytest.mark.claim("C23")
def test_flops_per_token_with_attention(claim, gpt2_small, counted_decode_flops):
    """The counted FLOPs per token against the chapter's matmul formula, once per attention
    implementation (eager and sdpa count differently): longer because each must agree exactly."""
    cfg = gpt2_small.config
    kaplan = kaplan_flops_per_token(cfg, n_ctx=1024)
    # the counter must agree exactly with the matmul formula under each attention implementation,
    # so that its totals can be quoted beside the Kaplan figure with their convention named
    expect_sdpa = matmul_flops_per_token(cfg, 1024, attention=False)
    expect_eager = matmul_flops_per_token(cfg, 1024, attention=True)
    claim.require(counted_decode_flops["sdpa"] == expect_sdpa,
                  f"FlopCounterMode (sdpa) counted {counted_decode_flops['sdpa']:,}, matmul formula says {expect_sdpa:,}",
                  measured=kaplan, unit="FLOP/token")
    claim.require(counted_decode_flops["eager"] == expect_eager,
                  f"FlopCounterMode (eager) counted {counted_decode_flops['eager']:,}, matmul formula says {expect_eager:,}",
                  measured=kaplan, unit="FLOP/token")
    claim.check(kaplan, "FLOP/token", convention="Kaplan et al. 2020: 2N + 2 n_layer n_ctx d_model + 2 d_model n_vocab, n_ctx=1024",
                kaplan_flops=kaplan,
                counter_sdpa_flops=counted_decode_flops["sdpa"],
                counter_sdpa_convention="torch FlopCounterMode, one decode step at context 1024, sdpa attention (not counted on CPU), biases/LayerNorm/softmax not counted",
                counter_eager_flops=counted_decode_flops["eager"],
                counter_eager_convention="torch FlopCounterMode, eager attention: QK^T and AV both counted")


@pytest.mark.claim("C09")
def test_decode_flops_per_parameter(claim, gpt2_small, counted_decode_flops):
    params = count_parameters(gpt2_small)
    short = decode_step_flops(gpt2_small, context=2)
    claim.check(short / params, "FLOP/param", decode_step_flops=short, parameters=params,
                convention="FlopCounterMode, one decode step at context 2 (sdpa attention uncounted)")


@pytest.mark.claim("C24")
def test_read_and_write_cost_the_same_per_token(claim, gpt2_small):
    n = 512
    per_token_prefill = prefill_flops(gpt2_small, n) / n
    decode = decode_step_flops(gpt2_small, context=n)
    claim.check(per_token_prefill / decode, "x", prefill_flops_per_token=per_token_prefill,
                decode_step_flops=decode, tokens=n,
                convention="FlopCounterMode with sdpa attention (attention term not counted on CPU)")
