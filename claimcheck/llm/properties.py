"""Properties of any transformers causal LM (GPT-2, Llama), shared by the GPT-2 claims and the
portable-LM lane. C06: logits at positions <= t do not depend on later tokens. C28: an exact
prefix's KV cache, reused, gives a full pass's logits; a changed early token changes the keys and
values of every later position. Differences are absolute, in logits of the model's dtype.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from typing import TYPE_CHECKING

from claimcheck.llm.models import cache_layers, forward_cached, output_cache, seeded_token_ids

if TYPE_CHECKING:  # types only: torch and transformers are imported where they are used
    import torch
    from transformers import PreTrainedModel


def future_independence(
    model: PreTrainedModel, ids: torch.Tensor, positions: Iterable[int], seed: int = 100
) -> tuple[float, float]:
    """Change every token of ``ids`` (``[1, n]``) after t, for each t in ``positions``; return
    ``(past_delta, future_delta)``: the largest |logit change| at positions <= t (0 for a causal
    model), and the smallest over t of the largest after t (the changed tokens were seen)."""
    import torch

    n, vocab = ids.shape[1], model.config.vocab_size
    past, future = 0.0, float("inf")
    with torch.no_grad():
        base = model(ids).logits[0]
        for t in positions:
            changed = ids.clone()
            new = seeded_token_ids(n - t - 1, seed=seed + t, vocab_size=vocab)[0]
            # every token differs
            changed[0, t + 1 :] = torch.where(new == ids[0, t + 1 :], (new + 1) % vocab, new)
            out = model(changed).logits[0]
            past = max(past, (out[: t + 1] - base[: t + 1]).abs().max().item())
            future = min(future, (out[t + 1 :] - base[t + 1 :]).abs().max().item())
    return past, future


def prefix_reuse(
    model: PreTrainedModel, prefix: torch.Tensor, suffixes: Iterable[torch.Tensor]
) -> tuple[float, float]:
    """Continue a copy of ``prefix``'s KV cache with each of ``suffixes`` (``[1, s]``) and compare
    with a full pass over both; return ``(max |delta logit|, max |logit|)``."""
    import torch

    worst = scale = 0.0
    with torch.no_grad():
        cache = output_cache(forward_cached(model, prefix))
        for suffix in suffixes:
            reused = forward_cached(model, suffix, copy.deepcopy(cache)).logits[0]
            full = model(torch.cat([prefix, suffix], dim=1)).logits[0, prefix.shape[1] :]
            worst = max(worst, (reused - full).abs().max().item())
            scale = max(scale, full.abs().max().item())
    return worst, scale


def kv_change(model: PreTrainedModel, prefix: torch.Tensor, changed_at: int) -> dict[str, float]:
    """Change the token at ``changed_at``; return the max |delta K or V|: ``before`` it (0 for a
    causal model), ``layer0_at_change``, ``layer0_after`` (0: layer 0's K/V see their own token
    only), ``later_min`` (the least at or after it in layers 1 and up), and ``layers``."""
    import torch

    changed = prefix.clone()
    changed[0, changed_at] = (changed[0, changed_at] + 1) % model.config.vocab_size
    with torch.no_grad():
        a = output_cache(forward_cached(model, prefix))
        b = output_cache(forward_cached(model, changed))
    per_layer = [
        torch.maximum((k1 - k2).abs().amax(dim=(0, 1, 3)), (v1 - v2).abs().amax(dim=(0, 1, 3)))  # [p]
        for (k1, v1), (k2, v2) in zip(cache_layers(a), cache_layers(b))
    ]
    return {
        "before": max((d[:changed_at].max().item() for d in per_layer), default=0.0) if changed_at else 0.0,
        "layer0_at_change": per_layer[0][changed_at].item(),
        "layer0_after": per_layer[0][changed_at + 1 :].max().item()
        if changed_at + 1 < prefix.shape[1]
        else 0.0,
        "later_min": min(d[changed_at:].min().item() for d in per_layer[1:]),
        "layers": len(per_layer),
    }
