"""KV cache size: the formula, and measurement on a real cache object.

A decoder with ``n_layers`` layers stores, for every position, one key and one value vector per
KV head: ``2 x n_layers x n_kv_heads x head_dim x bytes_per_element`` bytes per token
(the chapter: 2 x 12 x 768 x 2 B = 36,864 B = 36 KiB for GPT-2 small in fp16; 12 heads x 64 =
768). Grouped-query attention (Ainslie et al. 2023) shares KV heads, so ``n_kv_heads`` may be
fewer than the query heads (Llama-3-8B: 32 layers, 8 KV heads, head_dim 128).
"""

from __future__ import annotations

from dataclasses import dataclass

from claimcheck.llm.models import cache_nbytes, output_cache

LLAMA3_8B_KV = dict(n_layers=32, n_kv_heads=8, head_dim=128)
"""KV layout of Llama-3-8B (Meta, ``config.json``: num_hidden_layers 32, num_key_value_heads 8,
hidden_size 4096 / num_attention_heads 32 = head_dim 128)."""


@dataclass(frozen=True)
class KVLayout:
    """Per-token KV layout of a decoder: layers, KV heads per layer, head dimension."""

    n_layers: int
    n_kv_heads: int
    head_dim: int

    def bytes_per_token(self, bytes_per_element: int = 2) -> int:
        """Return KV cache bytes per token: 2 (K and V) x layers x KV heads x head_dim x
        ``bytes_per_element`` (2 for fp16/bf16, 4 for fp32)."""
        return 2 * self.n_layers * self.n_kv_heads * self.head_dim * bytes_per_element

    @classmethod
    def from_config(cls, config) -> KVLayout:
        """Read the layout from a transformers config (GPT-2 or Llama-style field names).

        Raises:
            ValueError: the config has no recognisable layer/head fields.
        """
        n_layers = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layer", None)
        n_heads = getattr(config, "num_attention_heads", None) or getattr(config, "n_head", None)
        hidden = getattr(config, "hidden_size", None) or getattr(config, "n_embd", None)
        if not (n_layers and n_heads and hidden):
            raise ValueError(f"cannot read the KV layout from {type(config).__name__}")
        n_kv = getattr(config, "num_key_value_heads", None) or n_heads
        head_dim = getattr(config, "head_dim", None) or hidden // n_heads
        return cls(int(n_layers), int(n_kv), int(head_dim))


def measure_bytes_per_token(model, input_ids) -> tuple[int, int]:
    """Run one forward pass over ``input_ids`` (``[1, n]`` int64) with the cache; return (bytes of
    its key and value tensors in the model's dtype, tokens cached)."""
    import torch

    with torch.no_grad():
        cache = output_cache(model(input_ids, use_cache=True))
    return cache_nbytes(cache), int(input_ids.shape[1])


def shapes_only_model(config, dtype):
    """Return a transformers causal LM of ``config`` on PyTorch's ``meta`` device, in ``dtype``:
    its forward pass runs the real code path (the real cache object, in ``dtype``) computing only
    shapes and dtypes, in milliseconds, whatever the CPU's support for ``dtype`` (fp16 on an
    AVX2-only CPU is ~10x slower than fp32), which is all byte counts need.

    Raises:
        ValueError: ``config`` names no causal-LM architecture transformers knows.
    """
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype)
    return model.eval()


def measure_cache_bytes(config, n_tokens: int, dtype) -> tuple[int, int, str]:
    """Return (cache bytes, tokens cached, cache class name) of the real transformers cache object
    a forward pass over ``n_tokens`` positions builds in ``dtype`` (e.g. ``torch.float16``), on the
    meta device (:func:`shapes_only_model`). Bytes: numel x element size of every key and value.
    """
    import torch

    model = shapes_only_model(config, dtype)
    ids = torch.zeros(1, n_tokens, dtype=torch.long, device="meta")
    with torch.no_grad():
        cache = output_cache(model(ids, use_cache=True))
    return cache_nbytes(cache), n_tokens, type(cache).__name__
