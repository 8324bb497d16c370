"""Next-token distributions of a causal language model, in float64 from its logits: probabilities,
surprisal (-log2 p, bits) and entropy (-sum p log2 p over the vocabulary, bits; Shannon 1948).
"""

from __future__ import annotations

import math


def next_token_distribution(model, tokenizer, text: str):
    """Return the next-token probabilities after ``text`` as a float64 tensor ``[vocab]``."""
    import torch

    ids = torch.tensor([tokenizer(text).input_ids])
    with torch.no_grad():
        logits = model(ids).logits[0, -1].double()
    return torch.softmax(logits, dim=-1)


def entropy_bits(probs) -> float:
    """Entropy in bits of a probability tensor ``[vocab]``; 0 log 0 counts as 0."""
    import torch

    p = probs[probs > 0]
    return float(-(p * torch.log2(p)).sum())


def surprisal_bits(p: float) -> float:
    """-log2(p) in bits; ``inf`` for p == 0."""
    return math.inf if p <= 0 else -math.log2(p)


def top_k(probs, tokenizer, k: int = 5) -> list[dict]:
    """The k most probable next tokens: ``[{"token", "id", "p", "bits"}, ...]``, most probable first."""
    import torch

    values, ids = torch.topk(probs, k)
    return [
        {"token": tokenizer.decode([int(i)]), "id": int(i), "p": float(v), "bits": surprisal_bits(float(v))}
        for v, i in zip(values, ids)
    ]


def top1_above_fraction(model, token_ids, threshold: float = 0.9, window: int = 1024) -> tuple[float, int]:
    """Return (fraction, positions counted): positions whose top-1 next-token probability exceeds
    ``threshold``, scored in non-overlapping windows of ``window`` tokens (each sees only its own past).

    Raises:
        ValueError: fewer than 2 tokens.
    """
    import torch

    above = total = 0
    with torch.no_grad():
        for start in range(0, len(token_ids) - 1, window):
            chunk = torch.tensor([token_ids[start : start + window]])
            if chunk.shape[1] < 2:
                break
            probs = torch.softmax(model(chunk).logits[0, :-1].double(), dim=-1)
            top = probs.max(dim=-1).values
            above += int((top > threshold).sum())
            total += int(top.numel())
    if total == 0:
        raise ValueError("corpus is shorter than 2 tokens")
    return above / total, total
