"""KV cache size: ``2 x n_layers x n_kv_heads x head_dim x bytes_per_element`` bytes per token
(GPT-2 small in fp16: 36 KiB; grouped-query attention, Ainslie et al. 2023, has fewer KV heads
than query heads), and its measurement on a real cache object."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from claimcheck.llm.models import cache_nbytes, output_cache

if TYPE_CHECKING:  # types only: torch and transformers are imported where they are used
    import torch
    from transformers import PretrainedConfig, PreTrainedModel

LLAMA3_8B_KV = dict(n_layers=32, n_kv_heads=8, head_dim=128)
"""KV layout of Llama-3-8B (Meta's ``config.json``: num_hidden_layers 32, num_key_value_heads 8,
hidden_size 4096 / num_attention_heads 32)."""


@dataclass(frozen=True)
class KVLayout:
    """Per-token KV layout of a decoder: layers, KV heads per layer, head dimension."""

    n_layers: int
    n_kv_heads: int
    head_dim: int

    def bytes_per_token(self, bytes_per_element: int = 2) -> int:
        """Return KV cache bytes per token (``bytes_per_element``: 2 for fp16/bf16, 4 for fp32)."""
        return 2 * self.n_layers * self.n_kv_heads * self.head_dim * bytes_per_element

    @classmethod
    def from_config(cls, config: PretrainedConfig) -> KVLayout:
        """Read the layout from a transformers config (GPT-2 or Llama-style field names). Raises
        ``ValueError`` where the config has no recognisable layer/head fields."""
        n_layers = getattr(config, "num_hidden_layers", None) or getattr(config, "n_layer", None)
        n_heads = getattr(config, "num_attention_heads", None) or getattr(config, "n_head", None)
        hidden = getattr(config, "hidden_size", None) or getattr(config, "n_embd", None)
        if not (n_layers and n_heads and hidden):
            raise ValueError(f"cannot read the KV layout from {type(config).__name__}")
        n_kv = getattr(config, "num_key_value_heads", None) or n_heads
        head_dim = getattr(config, "head_dim", None) or hidden // n_heads
        return cls(int(n_layers), int(n_kv), int(head_dim))


def measure_bytes_per_token(model: PreTrainedModel, input_ids: torch.Tensor) -> tuple[int, int]:
    """Return (KV cache bytes, tokens cached) after one forward pass over ``input_ids`` (``[1, n]``)."""
    import torch

    with torch.no_grad():
        cache = output_cache(model(input_ids, use_cache=True))
    return cache_nbytes(cache), int(input_ids.shape[1])


def measure_cache_bytes(config: PretrainedConfig, n_tokens: int, dtype: torch.dtype) -> tuple[int, int, str]:
    """Return (cache bytes, tokens cached, cache class name) of the real transformers cache a pass
    over ``n_tokens`` builds in ``dtype`` on the ``meta`` device (shapes only, in milliseconds).
    Raises ``ValueError`` where ``config`` names no causal LM transformers knows."""
    import torch
    from transformers import AutoModelForCausalLM

    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config, dtype=dtype).eval()
    ids = torch.zeros(1, n_tokens, dtype=torch.long, device="meta")
    with torch.no_grad():
        cache = output_cache(model(ids, use_cache=True))
    return cache_nbytes(cache), n_tokens, type(cache).__name__
