"""Next-token distributions of a causal language model, in float64 from its logits: probabilities,
surprisal (-log2 p, bits) and entropy (-sum p log2 p over the vocabulary, bits; Shannon 1948).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # types only: torch and transformers are imported where they are used
    import torch
    from transformers import PreTrainedModel, PreTrainedTokenizerBase


def next_token_distribution(
    model: PreTrainedModel, tokenizer: PreTrainedTokenizerBase, text: str
) -> torch.Tensor:
    """Return the next-token probabilities after ``text`` as a float64 tensor ``[vocab]``."""
    import torch

    ids = torch.tensor([tokenizer(text).input_ids])
    with torch.no_grad():
        logits = model(ids).logits[0, -1].double()
    return torch.softmax(logits, dim=-1)


def entropy_bits(probs: torch.Tensor) -> float:
    """Entropy in bits of a probability tensor ``[vocab]``; 0 log 0 counts as 0."""
    import torch

    p = probs[probs > 0]
    return float(-(p * torch.log2(p)).sum())


def measured_surprisal_bits(p: float) -> float:
    """-log2(p) in bits of a measured probability; ``inf`` for p == 0 (a registry formula's
    ``surprisal_bits`` is :func:`claimcheck.formula.surprisal_bits`, over a printed interval)."""
    return math.inf if p <= 0 else -math.log2(p)


def top_k(probs: torch.Tensor, tokenizer: PreTrainedTokenizerBase, k: int = 5) -> list[dict[str, Any]]:
    """The k most probable next tokens: ``[{"token", "id", "p", "bits"}, ...]``, most probable first."""
    import torch

    values, ids = torch.topk(probs, k)
    return [
        {
            "token": tokenizer.decode([int(i)]),
            "id": int(i),
            "p": float(v),
            "bits": measured_surprisal_bits(float(v)),
        }
        for v, i in zip(values, ids)
    ]


def top1_above_fraction(
    model: PreTrainedModel, token_ids: Sequence[int], threshold: float = 0.9, window: int = 1024
) -> tuple[float, int]:
    """Return (fraction, positions counted): positions whose top-1 next-token probability exceeds
    ``threshold``, scored in non-overlapping windows of ``window`` tokens (each sees only its own past).

    Raises:
        ValueError: fewer than 2 tokens.
    """
    import torch

    above = total = 0
    with torch.no_grad():
        for start in range(0, len(token_ids) - 1, window):
            chunk = torch.tensor([token_ids[start : start + window]])  # >= 2 tokens: start < len - 1
            probs = torch.softmax(model(chunk).logits[0, :-1].double(), dim=-1)
            top = probs.max(dim=-1).values
            above += int((top > threshold).sum())
            total += int(top.numel())
    if total == 0:
        raise ValueError("corpus is shorter than 2 tokens")
    return above / total, total
