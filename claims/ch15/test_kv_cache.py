"""KV cache size: C03, C18 (GPT-2 small, fp16) and C19 (an 8B model with Llama-3-8B's layout)."""

import pytest

from claimcheck.llm.kvcache import LLAMA3_8B_KV, KVLayout, measure_bytes_per_token
from claimcheck.llm.models import seeded_token_ids


@pytest.fixture(scope="module")
def half_cache_bytes(gpt2_small_fp16, claims_device):
    """Bytes/token of real half-precision cache objects: fp16 at 4 and 16 tokens, and the full
    1024-token context in the half dtype of ``claims_device``.

    The chapter's "半精度" is 2 bytes per element. On CUDA everything runs in fp16 on the GPU. fp16
    matmuls on a CPU are ~150x slower than bf16 (a 1024-token fp16 prefill took 95 s on 2 cores,
    bf16 under 1 s), so on a CPU the full context is filled in bf16, which stores the same 2 bytes
    per element (:func:`claimcheck.llm.device.dtype_for`).
    """
    import torch

    from claimcheck.llm.device import describe_device, dtype_for
    from claimcheck.llm.models import variant

    full_dtype = dtype_for(claims_device, "half")
    if claims_device.type == "cuda":  # a copy on the GPU: the session's CPU model stays where it is
        small = model = variant(gpt2_small_fp16).to(claims_device)
    else:
        small = gpt2_small_fp16
        model = gpt2_small_fp16 if full_dtype == torch.float16 else variant(gpt2_small_fp16, dtype=full_dtype)
    fp16 = {n: measure_bytes_per_token(small, seeded_token_ids(n).to(claims_device))[0] for n in (4, 16)}
    full_bytes, full_n = measure_bytes_per_token(model, seeded_token_ids(1024).to(claims_device))
    return {"fp16": fp16, "full": (full_bytes, full_n), "full_dtype": str(full_dtype).replace("torch.", ""),
            "device": describe_device(claims_device)}


@pytest.mark.claim("C18")
def test_kv_bytes_per_token_fp16(claim, gpt2_small_fp16, half_cache_bytes):
    formula = KVLayout.from_config(gpt2_small_fp16.config).bytes_per_token(bytes_per_element=2)
    fp16 = half_cache_bytes["fp16"]
    per_token = {n: b / n for n, b in fp16.items()}
    full_bytes, full_n = half_cache_bytes["full"]
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
                device=half_cache_bytes["device"])


@pytest.mark.claim("C03")
def test_kv_kib_per_token_header(claim, half_cache_bytes):
    full_bytes, full_n = half_cache_bytes["full"]
    claim.check(full_bytes / full_n, "B/token", bytes_per_token=full_bytes / full_n,
                dtype=half_cache_bytes["full_dtype"])


@pytest.fixture(scope="module")
def llama_like_model():
    """A tiny Llama with Llama-3-8B's per-layer KV layout (32 layers x 8 KV heads x head_dim 128).

    Width, MLP and vocabulary are shrunk (hidden 256, vocab 512), which changes nothing in the
    cache: its bytes per token depend only on layers, KV heads, head_dim and dtype.
    """
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(hidden_size=256, intermediate_size=512, vocab_size=512,
                         num_hidden_layers=LLAMA3_8B_KV["n_layers"], num_attention_heads=8,
                         num_key_value_heads=LLAMA3_8B_KV["n_kv_heads"], head_dim=LLAMA3_8B_KV["head_dim"],
                         max_position_embeddings=256)
    torch.manual_seed(0)
    return LlamaForCausalLM(config).to(torch.float16).eval()


@pytest.mark.claim("C19")
def test_kv_bytes_8b_model(claim, llama_like_model):
    layout = KVLayout(**LLAMA3_8B_KV)
    formula = layout.bytes_per_token(2)
    measured = {}
    for n in (4, 16, 64):
        b, _ = measure_bytes_per_token(llama_like_model, seeded_token_ids(n, vocab_size=512))
        measured[n] = b
    per_token = {n: b / n for n, b in measured.items()}
    claim.require(len(set(per_token.values())) == 1, f"KV bytes are not linear in length: {per_token}")
    claim.require(KVLayout.from_config(llama_like_model.config) == layout,
                  "the scaled-down model's KV layout differs from Llama-3-8B's")
    tokens = int(claim.value("context_ktokens")) * 1024
    total_gib = per_token[64] * tokens / 2**30
    claim.require(abs(total_gib - float(claim.value("total_gib"))) < 1e-9,
                  f"{tokens} tokens x {per_token[64]:.0f} B = {total_gib:.3f} GiB, chapter says {claim.value('total_gib')} GiB")
    claim.check(per_token[64], "B/token", formula_bytes_per_token=formula, measured_bytes=measured,
                context_tokens=tokens, total_gib=total_gib,
                layout="32 layers x 8 KV heads x head_dim 128, fp16 (Llama-3-8B config.json)")
