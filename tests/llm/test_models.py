"""Model helpers on a tiny GPT-2 config (seconds, not minutes)."""

import pytest
import torch

from claimcheck.llm.flops import (
    decode_step_flops,
    kaplan_flops_per_token,
    matmul_flops_per_token,
    prefill_flops,
)
from claimcheck.llm.generation import DIVERGED, IDENTICAL, NEAR_TIE, compare_streams, greedy_generate
from claimcheck.llm.kvcache import KVLayout, measure_bytes_per_token
from claimcheck.llm.models import (
    count_parameters,
    non_embedding_parameters,
    random_gpt2,
    seeded_token_ids,
    tiny_config,
    variant,
)


@pytest.fixture(scope="module")
def tiny():
    return random_gpt2(tiny_config(), seed=0)


def test_random_model_is_reproducible(tiny):
    other = random_gpt2(tiny_config(), seed=0)
    assert all(torch.equal(a, b) for a, b in zip(tiny.parameters(), other.parameters()))
    assert not torch.equal(next(random_gpt2(tiny_config(), seed=1).parameters()), next(tiny.parameters()))


def test_non_embedding_parameters(tiny):
    cfg = tiny.config
    embeddings = cfg.vocab_size * cfg.n_embd + cfg.n_positions * cfg.n_embd
    assert non_embedding_parameters(cfg) == count_parameters(tiny) - embeddings


def test_gpt2_small_formulas_by_hand():
    from transformers import GPT2Config

    cfg = GPT2Config()
    assert non_embedding_parameters(cfg) == 85_056_000
    assert kaplan_flops_per_token(cfg) == 170_112_000 + 18_874_368 + 77_194_752


@pytest.mark.parametrize("dtype, element", [(torch.float32, 4), (torch.float16, 2)])
def test_kv_bytes_match_formula(dtype, element):
    model = random_gpt2(tiny_config(), dtype=dtype)
    nbytes, n = measure_bytes_per_token(model, seeded_token_ids(5, vocab_size=1000))
    assert nbytes / n == KVLayout.from_config(model.config).bytes_per_token(element) == 2 * 2 * 64 * element


def test_flop_counter_matches_matmul_formula(tiny):
    cfg = tiny.config
    assert decode_step_flops(tiny, context=16) == matmul_flops_per_token(cfg, 16, attention=False)
    eager = variant(tiny, attn_implementation="eager")
    assert decode_step_flops(eager, context=16) == matmul_flops_per_token(cfg, 16, attention=True)
    assert prefill_flops(tiny, 8) == 8 * matmul_flops_per_token(cfg, 8, attention=False)


def test_greedy_cached_equals_uncached_on_tiny(tiny):
    ids = seeded_token_ids(6, vocab_size=1000)
    a = greedy_generate(tiny, ids, 10, use_cache=True)
    b = greedy_generate(tiny, ids, 10, use_cache=False)
    assert a.forward_calls == [6] + [1] * 9 and b.forward_calls == list(range(6, 16))
    assert compare_streams(b.tokens, a.tokens, b.logits, 1e-4).verdict == IDENTICAL


def test_compare_streams_near_tie_and_divergence():
    logits = torch.zeros(3, 5)
    logits[0, 1] = 5.0
    logits[1, 2] = 1.0
    logits[1, 3] = 1.0 - 1e-6  # a near-tie between tokens 2 and 3 at step 1
    logits[2, 4] = 9.0
    near = compare_streams([1, 2, 4], [1, 3, 4], logits, tie_tolerance=1e-4)
    assert near.verdict == NEAR_TIE and near.position == 1 and near.margin == pytest.approx(1e-6, abs=1e-7)
    assert "near-tie" in near.describe()
    real = compare_streams([1, 2, 4], [1, 2, 0], logits, tie_tolerance=1e-4)
    assert real.verdict == DIVERGED and real.position == 2 and real.margin == pytest.approx(9.0)
