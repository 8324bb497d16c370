"""C32: speculative (assisted) decoding writes exactly what the large model writes on its own.

The draft model shares the tokenizer: it is the target's first two transformer blocks with the
target's own embeddings, final norm and output head (an early-exit draft, so it proposes tokens the
target often accepts). ``generate(assistant_model=draft)`` is compared with plain greedy decoding,
token by token, tie-aware (a first difference at a near-tie is reported as ``near-tie``; one with
a large margin fails). Runs on the pretrained GPT-2 where the run has it, else random-init GPT-2
small. Slow: 25-45 s on the shared 2-core machine at the standard profile (48 tokens), as the
draft's own decoding comes on top of the target's.
"""

import pytest

from claimcheck.llm.generation import compare_streams, greedy_generate, top2_margins, truncated_draft
from claimcheck.llm.models import prompt_ids

TIE_TOLERANCE = 1e-4  # logits, as C14: verifying k draft tokens in one pass reorders float32 sums (~1e-6)
DRAFT_LAYERS = 2


@pytest.mark.slow
@pytest.mark.claim("C32")
def test_assisted_decoding_equals_greedy(claim, gpt2_any, claims_profile):
    model, tok, info = gpt2_any
    p = claims_profile
    n_draft = min(DRAFT_LAYERS, model.config.n_layer - 1)  # a tiny test model has only 2 layers
    draft = truncated_draft(model, n_draft)
    ids = prompt_ids(p.greedy_prompt, tok)
    plain = greedy_generate(model, ids, p.assisted_new, use_cache=True)
    assisted = greedy_generate(model, ids, p.assisted_new, use_cache=True, assistant_model=draft)
    calls = assisted.forward_calls
    claim.check_comparison(compare_streams(plain.tokens, assisted.tokens, plain.logits, TIE_TOLERANCE),
                           prompt_tokens=p.greedy_prompt, new_tokens=p.assisted_new, weights=info,
                           draft=f"first {n_draft} of {model.config.n_layer} blocks, shared embeddings and head",
                           target_forward_calls=len(calls), target_tokens_per_call=calls,
                           smallest_top2_margin=float(top2_margins(plain.logits).min()))
