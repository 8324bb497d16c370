"""C28: a KV cache can be reused only for an exact prefix.

Reuse: the cache of a 40-token prefix, computed once, is copied and continued with two different
suffixes; each gives the logits of one full pass over prefix + suffix. Invalidation: changing
one early token (position 1) changes the keys/values of every later position, so a cache of the
old prefix is useless from the change on. Runs on the pretrained GPT-2 where the run has it,
else on the random-init GPT-2 small (~3 s on 2 cores).
"""

import pytest
import torch

from claimcheck.llm.models import prompt_ids
from claimcheck.llm.properties import kv_change, prefix_reuse

PREFIX, TOTAL, CHANGED_AT = 40, 64, 1
CHANGED = 1e-3  # a K/V difference this large is a real change, ~1000x float32 rounding here


@pytest.mark.claim("C28")
def test_exact_prefix_cache_reuse(claim, gpt2_any):
    model, tok, info = gpt2_any
    ids = prompt_ids(TOTAL, tok)
    prefix, rest = ids[:, :PREFIX], ids[:, PREFIX:]
    worst, scale = prefix_reuse(model, prefix, [rest, torch.flip(rest, [1])])
    kv = kv_change(model, prefix, CHANGED_AT)
    claim.check(worst, "", prefix_tokens=PREFIX, suffixes=2, suffix_tokens=TOTAL - PREFIX, max_abs_logit=scale,
                weights=info, changed_position=CHANGED_AT, kv_delta=kv,
                note="layer 0's keys/values depend only on a position's own token, so there the change stays at "
                     "its position; from layer 1 on, every later position's keys/values change")
    claim.require(kv["before"] <= 1e-6, f"keys/values before the changed token moved by {kv['before']:.3g}")
    claim.require(kv["layer0_at_change"] > CHANGED, f"layer 0's keys/values at the changed token barely moved ({kv['layer0_at_change']:.3g})")
    claim.require(kv["later_min"] > CHANGED, f"a later position's keys/values (layers 1+) barely changed ({kv['later_min']:.3g} <= {CHANGED})")
