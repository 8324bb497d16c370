"""FLOPs per token, each figure naming its convention:

* ``kaplan``: C_forward = 2N + 2 n_layer n_ctx d_model per token (Kaplan et al. 2020, "Scaling
  Laws for Neural Language Models", table 1), N = non-embedding parameters, plus the chapter's
  unembedding 2 d_model n_vocab; GPT-2 small, n_ctx 1024: 170,112,000 + 18,874,368 + 77,194,752 =
  266,181,120.
* ``counter``: ``torch.utils.flop_counter.FlopCounterMode``, 2 FLOPs per multiply-add of every
  matmul; no biases, norms or softmax, and on the CPU no "sdpa" attention ("eager": QK^T and AV).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from claimcheck.llm.kvcache import KVLayout
from claimcheck.llm.models import forward_cached, non_embedding_parameters, seeded_token_ids

if TYPE_CHECKING:  # types only: transformers is imported where it is used
    from transformers import GPT2Config, PreTrainedModel


def kaplan_flops_per_token(config: GPT2Config, n_ctx: int | None = None) -> int:
    """Return forward FLOPs per token by Kaplan et al. (2020) plus the output projection:
    ``2 N + 2 n_layer n_ctx d_model + 2 d_model n_vocab``; ``n_ctx`` default ``config.n_positions``."""
    n_ctx = config.n_positions if n_ctx is None else n_ctx
    attention = 2 * config.n_layer * n_ctx * config.n_embd
    return 2 * non_embedding_parameters(config) + attention + 2 * config.n_embd * config.vocab_size


def matmul_flops_per_token(config: GPT2Config, n_ctx: int, attention: bool) -> int:
    """Return the FLOPs a matmul counter sees for one GPT-2 token at context ``n_ctx``: the weights'
    and the logits', and with ``attention`` QK^T and AV (2 x n_ctx x d each per layer)."""
    d, L = config.n_embd, config.n_layer
    inner = config.n_inner or 4 * d
    weights = L * 2 * (d * 3 * d + d * d + 2 * d * inner) + 2 * d * config.vocab_size
    return weights + (L * 2 * (2 * n_ctx * d) if attention else 0)


def count_flops(fn: Callable[[], object]) -> int:
    """Run ``fn()`` under ``torch.utils.flop_counter.FlopCounterMode`` and return total FLOPs."""
    from torch.utils.flop_counter import FlopCounterMode

    with FlopCounterMode(display=False) as counter:
        fn()
    return int(counter.get_total_flops())


def decode_step_flops(model: PreTrainedModel, context: int) -> int:
    """FLOPs counted for one decode step (1 new token) after ``context - 1`` cached positions."""
    import torch
    from transformers import DynamicCache

    ids = seeded_token_ids(context, seed=1, vocab_size=model.config.vocab_size)
    # a cache of zeros in the model's dtype and device: a decode step's FLOPs depend on its shapes only
    layout, p = KVLayout.from_config(model.config), next(model.parameters())
    shape = (1, layout.n_kv_heads, context - 1, layout.head_dim)
    cache = DynamicCache()
    with torch.no_grad():
        for layer in range(layout.n_layers):
            zeros = torch.zeros(shape, dtype=p.dtype, device=p.device)
            cache.update(zeros, zeros.clone(), layer)
        return count_flops(lambda: forward_cached(model, ids[:, -1:], cache))


def prefill_flops(model: PreTrainedModel, n_tokens: int) -> int:
    """FLOPs counted for one prefill (a forward pass) over ``n_tokens`` tokens."""
    import torch

    ids = seeded_token_ids(n_tokens, seed=1, vocab_size=model.config.vocab_size)
    with torch.no_grad():
        return count_flops(lambda: model(ids, use_cache=False))
