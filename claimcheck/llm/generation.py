"""Greedy decoding with and without the KV cache, and tie-aware comparison of token streams: two
decoders doing the same maths in another order may flip a token where the top two logits nearly
tie, so a comparison reports the first difference and the logit margin there."""

from __future__ import annotations

import copy
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar, cast

if TYPE_CHECKING:  # types only: torch and transformers are imported where they are used
    import torch
    from transformers import GenerationConfig, GenerationMixin, PreTrainedModel

M = TypeVar("M", bound="PreTrainedModel")

IDENTICAL, NEAR_TIE, DIVERGED = "identical", "near-tie", "diverged"


@dataclass
class Generation:
    """Greedy decoding's tokens, float32 ``logits`` ``[n_new, vocab]``, and each call's input length."""

    tokens: list[int]
    logits: object
    forward_calls: list[int] = field(default_factory=list)


def greedy_config(max_new_tokens: int, use_cache: bool, **options: Any) -> GenerationConfig:
    """Greedy decoding of exactly ``max_new_tokens`` tokens (end-of-text does not stop it, so both
    sides of a comparison write as many), with or without the KV cache; ``options``: more fields."""
    from transformers import GenerationConfig

    n = max_new_tokens
    return GenerationConfig(
        do_sample=False, max_new_tokens=n, min_new_tokens=n, use_cache=use_cache, pad_token_id=0, **options
    )


def generate(model: PreTrainedModel, input_ids: torch.Tensor, config: GenerationConfig, **kwargs: Any) -> Any:
    """``model.generate`` of ``config`` after ``input_ids`` (``[batch, n]`` int64, every position
    attended), without gradients; ``kwargs`` go to ``generate`` (an ``assistant_model``)."""
    import torch

    with torch.no_grad():
        # every model of the kit generates (GenerationMixin), which PreTrainedModel does not say
        return cast("GenerationMixin", model).generate(
            input_ids, attention_mask=torch.ones_like(input_ids), generation_config=config, **kwargs
        )


def greedy_generate(
    model: PreTrainedModel,
    input_ids: torch.Tensor,
    max_new_tokens: int,
    use_cache: bool,
    **generate_kwargs: Any,
) -> Generation:
    """Greedy-decode ``max_new_tokens`` tokens after ``input_ids`` (``[1, n]`` int64) with
    ``model.generate``; end-of-text does not stop it, so both sides of a comparison write as many."""
    import torch

    calls: list[int] = []
    hook = model.register_forward_pre_hook(
        lambda mod, args, kwargs: calls.append(int((args[0] if args else kwargs["input_ids"]).shape[1])),
        with_kwargs=True,
    )
    config = greedy_config(max_new_tokens, use_cache, output_logits=True, return_dict_in_generate=True)
    try:
        out = generate(model, input_ids, config, **generate_kwargs)
    finally:
        hook.remove()
    tokens = out.sequences[0, input_ids.shape[1] :].tolist()
    logits = torch.stack([step[0] for step in out.logits]).float()
    return Generation(tokens=tokens, logits=logits, forward_calls=calls)


@dataclass(frozen=True)
class StreamComparison:
    """A token stream compared with a reference: ``verdict``, the first differing ``position`` and
    the reference's ``margin`` there (its own token's logit minus the other's; >= 0 for greedy)."""

    verdict: str
    n_compared: int
    position: int | None = None
    margin: float | None = None
    ref_token: int | None = None
    other_token: int | None = None
    tie_tolerance: float | None = None
    n_differing: int = 0  # positions where the two streams differ (after a first flip, usually most)

    # the protocol of claimcheck.recorder.Comparison (ClaimRecorder.check_comparison)
    @property
    def measured(self) -> int:
        """The differing positions, which the claim's tolerance judges."""
        return self.n_differing

    @property
    def near_tie(self) -> bool:
        return self.verdict == NEAR_TIE

    @property
    def diverged(self) -> bool:
        return self.verdict == DIVERGED

    def details(self) -> dict:
        """The facts for the claim's report row."""
        return {
            "first_difference": self.position,
            "margin_at_difference": self.margin,
            "tie_tolerance": self.tie_tolerance,
            "tokens_compared": self.n_compared,
        }

    def describe(self) -> str:
        """One line: identical, or where the streams first differ, the margin there and what it means."""
        if self.verdict == IDENTICAL:
            return f"all {self.n_compared} tokens identical"
        if self.margin is None:  # one stream ended where the other goes on
            ends = "the reference" if self.ref_token is None else "the other stream"
            return (
                f"the streams differ in length: {ends} ends after {self.n_compared} tokens, where the "
                f"other goes on ({self.n_differing} tokens more; a real divergence, not a near-tie)"
            )
        what = "near-tie" if self.verdict == NEAR_TIE else "real divergence"
        return (
            f"first difference at generated position {self.position} of {self.n_compared}: "
            f"token {self.ref_token} vs {self.other_token}, reference logit margin "
            f"{self.margin:.3g} ({what}; tie tolerance {self.tie_tolerance:g})"
        )


def compare_streams(
    ref_tokens: Sequence[int], other_tokens: Sequence[int], ref_logits: torch.Tensor, tie_tolerance: float
) -> StreamComparison:
    """Compare two greedy token streams, tie-aware: a first difference whose margin in ``ref_logits``
    (``[n, vocab]``) is within ``tie_tolerance`` is a near-tie. Streams of different lengths (an empty
    one included) differ where the shorter ends: a divergence, never identical, never a near-tie (a
    missing token has no logit margin); each token one stream lacks counts as a differing position."""
    n = min(len(ref_tokens), len(other_tokens))
    differing = [i for i in range(n) if int(ref_tokens[i]) != int(other_tokens[i])]
    missing = abs(len(ref_tokens) - len(other_tokens))
    if not differing and missing:
        ref_at = int(ref_tokens[n]) if len(ref_tokens) > n else None
        other_at = int(other_tokens[n]) if len(other_tokens) > n else None
        return StreamComparison(DIVERGED, n, n, None, ref_at, other_at, tie_tolerance, missing)
    if not differing:
        return StreamComparison(IDENTICAL, n, tie_tolerance=tie_tolerance)
    i = differing[0]
    a, b = int(ref_tokens[i]), int(other_tokens[i])
    margin = float(ref_logits[i, a] - ref_logits[i, b])
    verdict = NEAR_TIE if abs(margin) <= tie_tolerance else DIVERGED
    return StreamComparison(verdict, n, i, margin, a, b, tie_tolerance, len(differing) + missing)


def top2_margins(logits: torch.Tensor) -> torch.Tensor:
    """Return the top-1 minus top-2 logit gap (``[n]``) of every step of ``logits`` ``[n, vocab]``."""
    import torch

    top = torch.topk(logits, 2, dim=-1).values
    return top[:, 0] - top[:, 1]


def truncated_draft(model: M, n_layers: int) -> M:
    """Return ``model`` (GPT-2 or Llama-style) cut to its first ``n_layers`` blocks, an "early exit"
    draft. Raises ``ValueError`` unless 1 <= ``n_layers`` < the model's layer count."""
    config = copy.deepcopy(model.config)
    total = config.num_hidden_layers  # GPT-2's n_layer, by its config's attribute_map
    if not 1 <= n_layers < total:
        raise ValueError(f"a draft needs 1..{total - 1} of the model's {total} layers, got {n_layers}")
    config.num_hidden_layers = n_layers
    layer_re = re.compile(r"\.(h|layers)\.(\d+)\.")
    state = {
        k: v
        for k, v in model.state_dict().items()
        if not (m := layer_re.search(k)) or int(m.group(2)) < n_layers
    }
    draft = type(model)(config)
    draft.load_state_dict(state, strict=True)
    # transformers' @wraps(Module.to) hides the bound self from mypy: `to` checks as if unbound
    return draft.to(model.dtype).eval()  # type: ignore[arg-type]
