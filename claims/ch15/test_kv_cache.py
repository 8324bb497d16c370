"""KV cache size: C03, C18 (GPT-2 small, fp16) and C19 (an 8B model with Llama-3-8B's layout)."""

import pytest

from claimcheck.llm.kvcache import LLAMA3_8B_KV, KVLayout, measure_bytes_per_token, measure_cache_bytes
from claimcheck.llm.models import seeded_token_ids


@pytest.fixture(scope="module")
def half_cache_bytes(gpt2_small, claims_device):
    """Bytes/token of real fp16 cache objects: at 4 and 16 tokens and the full 1024-token context.

    The chapter's "半精度" is 2 bytes per element. On CUDA the fp16 model runs on the GPU. On a CPU
    no half-precision compute happens at all: fp16/bf16 matmuls are slow on CPUs without native
    support (a 64-token GPT-2 small forward: ~15 s on an AVX2-only CPU against 1.6 s in fp32), and
    bytes do not depend on the numbers. The fp16 caches come from the model's own forward pass on
    PyTorch's meta device (:func:`claimcheck.llm.kvcache.measure_cache_bytes`): the real code path
    and cache class, shapes and dtype, no storage, milliseconds on any CPU. That path is tied to
    real computation by one fp32 fill of the session's model, whose bytes must equal the meta
    path's fp32 bytes.
    """
    import torch

    from claimcheck.llm.device import describe_device
    from claimcheck.llm.models import variant

    config = gpt2_small.config
    if claims_device.type == "cuda":  # real fp16 compute on the GPU
        model = variant(gpt2_small, dtype=torch.float16).to(claims_device)
        measured = {n: measure_bytes_per_token(model, seeded_token_ids(n).to(claims_device)) for n in (4, 16, 1024)}
        cache_class, how = "real fp16 forward passes", describe_device(claims_device)
    else:
        measured, cache_class = {}, None
        for n in (4, 16, 1024):
            nbytes, n_cached, cache_class = measure_cache_bytes(config, n, torch.float16)
            measured[n] = (nbytes, n_cached)
        how = "fp16 forward passes on the meta device (shapes and dtype, no compute)"
    real32, _ = measure_bytes_per_token(gpt2_small, seeded_token_ids(16))
    meta32, _, _ = measure_cache_bytes(config, 16, torch.float32)
    return {"fp16": {n: measured[n][0] for n in (4, 16)}, "full": measured[1024], "full_dtype": "float16",
            "device": describe_device(claims_device), "how": how, "cache_class": cache_class,
            "fp32_real_vs_meta": (real32, meta32)}


@pytest.mark.claim("C18")
def test_kv_bytes_per_token_fp16(claim, gpt2_small, half_cache_bytes):
    """36 KiB/token from the cache object itself, at 4, 16 and 1024 positions and with a real fp32
    fill beside the meta-device one: longer because each of those forms is its own requirement."""
    formula = KVLayout.from_config(gpt2_small.config).bytes_per_token(bytes_per_element=2)
    fp16 = half_cache_bytes["fp16"]
    per_token = {n: b / n for n, b in fp16.items()}
    full_bytes, full_n = half_cache_bytes["full"]
    real32, meta32 = half_cache_bytes["fp32_real_vs_meta"]
    claim.require(real32 == meta32, f"a real fp32 fill of 16 tokens holds {real32} B, the meta-device path "
                                    f"{meta32} B: the shapes-only measurement does not match the real one")
    claim.require(len(set(per_token.values())) == 1, f"fp16 bytes/token differ with length: {per_token}")
    claim.require(per_token[4] == formula,
                  f"measured {per_token[4]} B/token != formula 2 x layers x dims x 2 B = {formula}")
    claim.require(full_bytes / full_n == per_token[4],
                  f"at {full_n} positions ({half_cache_bytes['full_dtype']}): {full_bytes / full_n} B/token")
    claim.require(abs(full_bytes / 2**20 - float(claim.value("full_context_mib"))) < 1e-9,
                  f"1024 positions hold {full_bytes / 2**20:.4f} MiB, chapter says {claim.value('full_context_mib')} MiB")
    claim.check(per_token[16], "B/token", formula_bytes_per_token=formula, fp16_bytes=fp16,
                full_context_bytes=full_bytes, full_context_tokens=full_n, full_context_mib=full_bytes / 2**20,
                full_context_dtype=half_cache_bytes["full_dtype"], measured_on="transformers cache object",
                cache_class=half_cache_bytes["cache_class"], how=half_cache_bytes["how"],
                fp32_real_vs_meta_bytes=list(half_cache_bytes["fp32_real_vs_meta"]),
                device=half_cache_bytes["device"])


@pytest.mark.claim("C03")
def test_kv_kib_per_token_header(claim, half_cache_bytes):
    full_bytes, full_n = half_cache_bytes["full"]
    claim.check(full_bytes / full_n, "B/token", bytes_per_token=full_bytes / full_n,
                dtype=half_cache_bytes["full_dtype"])


@pytest.fixture(scope="module")
def llama_like_config():
    """A Llama config with Llama-3-8B's per-layer KV layout (32 layers x 8 KV heads x head_dim 128).

    Width, MLP and vocabulary are shrunk (hidden 256, vocab 512), which changes nothing in the
    cache: its bytes per token depend only on layers, KV heads, head_dim and dtype. Its fp16 caches
    come from forward passes on the meta device (no fp16 compute on a CPU; see C18).
    """
    from transformers import LlamaConfig

    return LlamaConfig(hidden_size=256, intermediate_size=512, vocab_size=512,
                       num_hidden_layers=LLAMA3_8B_KV["n_layers"], num_attention_heads=8,
                       num_key_value_heads=LLAMA3_8B_KV["n_kv_heads"], head_dim=LLAMA3_8B_KV["head_dim"],
                       max_position_embeddings=256)


@pytest.mark.claim("C19")
def test_kv_bytes_8b_model(claim, llama_like_config):
    """128 KiB/token of Llama-3-8B's KV layout, measured on a scaled-down Llama-like cache at 4, 16
    and 64 tokens, and the 16 GiB of a 128K-token context: longer because linearity, the layout and
    the total are each required before the figure is judged."""
    import torch

    layout = KVLayout(**LLAMA3_8B_KV)
    formula = layout.bytes_per_token(2)
    measured = {}
    for n in (4, 16, 64):
        b, _, _ = measure_cache_bytes(llama_like_config, n, torch.float16)
        measured[n] = b
    per_token = {n: b / n for n, b in measured.items()}
    claim.require(len(set(per_token.values())) == 1, f"KV bytes are not linear in length: {per_token}")
    claim.require(KVLayout.from_config(llama_like_config) == layout,
                  "the scaled-down model's KV layout differs from Llama-3-8B's")
    tokens = int(claim.value("context_ktokens")) * 1024
    total_gib = per_token[64] * tokens / 2**30
    claim.require(abs(total_gib - float(claim.value("total_gib"))) < 1e-9,
                  f"{tokens} tokens x {per_token[64]:.0f} B = {total_gib:.3f} GiB, chapter says {claim.value('total_gib')} GiB")
    claim.check(per_token[64], "B/token", formula_bytes_per_token=formula, measured_bytes=measured,
                context_tokens=tokens, total_gib=total_gib,
                layout="32 layers x 8 KV heads x head_dim 128, fp16 (Llama-3-8B config.json)")
