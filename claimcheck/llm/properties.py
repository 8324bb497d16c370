"""Model-agnostic properties of causal LMs, measured on any transformers causal LM (GPT-2, Llama).

C06: logits at positions <= t do not depend on tokens after t (the causal mask). C28: the KV
cache of an exact prefix, reused, gives the logits of a full pass; a changed early token changes
the keys/values of every later position. Shared by the GPT-2 claims and the portable-LM lane.
All logits are compared in the model's dtype; differences are absolute (logit units).
"""

from __future__ import annotations

import copy

from claimcheck.llm.models import cache_layers, forward_cached, output_cache, seeded_token_ids


def future_independence(model, ids, positions, seed: int = 100) -> tuple[float, float]:
    """Change every token after t, for each t in ``positions``; return ``(past_delta, future_delta)``.

    ``ids``: ``[1, n]`` int64. ``past_delta``: the largest |logit change| at positions <= t (0 for
    a causal model, up to float rounding). ``future_delta``: the smallest, over t, of the largest
    |logit change| after t: the control that the changed tokens were seen at all.
    """
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


def prefix_reuse(model, prefix, suffixes) -> tuple[float, float]:
    """Reuse one prefix's KV cache for several suffixes; return ``(max |delta logit|, max |logit|)``.

    ``prefix``: ``[1, p]``; ``suffixes``: ``[1, s]`` tensors. The prefix cache is computed once and
    deep-copied for each suffix (a cache object grows in place when continued); each continuation's
    logits are compared with one full pass over prefix + suffix at the suffix positions.
    """
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


def kv_change(model, prefix, changed_at: int) -> dict:
    """Change the token at ``changed_at`` and measure how the prefix's cached keys/values move;
    returns (all max |delta K or V| over heads and dims):
    ``before`` at positions < changed_at, any layer (0 for a causal model);
    ``layer0_at_change`` at the changed position in layer 0;
    ``layer0_after`` after it in layer 0 (0: layer 0's K/V depend only on their own token and position);
    ``later_min`` the smallest change at any position >= changed_at in layers 1 and up.
    """
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
