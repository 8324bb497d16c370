"""The independent numpy GPT-2 against torch, on a tiny config (seconds)."""

import numpy as np
import pytest
import torch

from claimcheck.llm import numpy_gpt2 as npg
from claimcheck.llm.models import random_gpt2, seeded_token_ids, tiny_config


@pytest.fixture(scope="module")
def tiny():
    model = random_gpt2(tiny_config(), seed=2)
    return (
        model,
        npg.params_from_state_dict(model.state_dict()),
        seeded_token_ids(24, seed=5, vocab_size=1000)[0].tolist(),
    )


def test_softmax_is_stable_and_gelu_is_gpt2s():
    x = np.array([[1000.0, 1001.0, -1e10]], dtype=np.float32)
    p = npg.softmax(x)
    assert np.all(np.isfinite(p)) and p.dtype == np.float32 and p[0, 2] == 0.0
    assert np.allclose(p[0, :2], [1 / (1 + np.e), np.e / (1 + np.e)])
    t = torch.linspace(-6, 6, 101)
    assert np.allclose(
        npg.gelu(t.numpy()), torch.nn.functional.gelu(t, approximate="tanh").numpy(), atol=1e-6
    )


def test_causal_mask_continues_the_cache():
    m = npg.causal_mask(2, 5)
    assert m.shape == (2, 5) and m.dtype == np.float32
    assert (m[0, :4] == 0).all() and m[0, 4] < -1e9 and (m[1] == 0).all()  # new tokens at positions 3 and 4


def test_matches_torch_and_itself(tiny):
    model, params, ids = tiny
    full_last, cached_last, full = npg.cached_vs_full(params, model.config.n_head, ids, prefill=5)
    with torch.no_grad():
        ref = model(torch.tensor([ids])).logits[0].numpy()
    assert full.dtype == np.float32 and full.shape == (24, 1000)
    assert np.abs(full - ref).max() < 1e-5
    assert np.abs(cached_last - full_last).max() < 1e-5


def test_cache_is_explicit_and_grows(tiny):
    model, params, ids = tiny
    logits, cache = npg.gpt2(ids[:3], **params, n_head=2)
    assert len(cache) == 2 and cache[0][0].shape == (3, 64)
    logits, cache2 = npg.gpt2(ids[3:4], **params, n_head=2, kvcache=cache)
    assert logits.shape == (1, 1000) and cache2[1][1].shape == (4, 64) and cache[0][0].shape == (3, 64)
    with pytest.raises(ValueError, match="exceed"):
        npg.gpt2(list(range(129)), **params, n_head=2)


def test_a_changed_attention_is_seen(tiny):
    """The oracle can fail: a numpy GPT-2 without the 1/sqrt(d) scale disagrees with torch."""
    model, params, ids = tiny
    with torch.no_grad():
        ref = model(torch.tensor([ids])).logits[0].numpy()
    original = npg.attention
    try:
        npg.attention = lambda q, k, v, mask: npg.softmax(q @ k.T + mask) @ v
        broken, _ = npg.gpt2(ids, **params, n_head=2)
    finally:
        npg.attention = original
    assert np.abs(broken - ref).max() > 1e-3


@pytest.mark.parametrize("safe", [True, False])
def test_load_folder_reads_the_file_directly(tmp_path, tiny, safe):
    model, params, _ = tiny
    model.save_pretrained(tmp_path)
    if not safe:  # transformers 5 always writes safetensors; write the pickle as older releases did
        (tmp_path / "model.safetensors").unlink()
        torch.save(model.state_dict(), tmp_path / "pytorch_model.bin")
    loaded, n_head = npg.load_folder(tmp_path)
    assert n_head == 2 and np.array_equal(loaded["wte"], params["wte"])
    assert np.array_equal(
        loaded["blocks"][1]["attn"]["c_attn"]["w"], params["blocks"][1]["attn"]["c_attn"]["w"]
    )


def test_missing_key_is_named(tiny):
    model = tiny[0]
    sd = {k: v for k, v in model.state_dict().items() if k != "transformer.wpe.weight"}
    with pytest.raises(KeyError, match="no 'wpe.weight'"):
        npg.params_from_state_dict(sd)
