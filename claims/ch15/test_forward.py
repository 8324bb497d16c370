"""One forward pass reads every position; generation writes one token per pass: C06, C07, C08, C14."""

import pytest
import torch

from claimcheck.llm.generation import IDENTICAL, compare_streams, greedy_generate, top2_margins
from claimcheck.llm.models import prompt_ids, seeded_token_ids
from claimcheck.llm.properties import future_independence

TIE_TOLERANCE = 1e-4  # logits; float32 reorderings move logits by ~1e-5 on GPT-2 small


@pytest.mark.claim("C06")
def test_future_tokens_do_not_change_past_logits(claim, gpt2_small):
    n, positions = 64, [0, 17, 40, 62]
    worst, moved_after = future_independence(gpt2_small, seeded_token_ids(n, seed=3), positions)
    # the control: positions after t must move, or the test could not tell a mask from a no-op
    claim.require(moved_after > 1e-3, f"logits after t barely moved ({moved_after:.2e}): the test cannot see dependence")
    claim.check(worst, "", max_abs_delta_after_t=moved_after, sequence_length=n, positions_t=positions)


@pytest.mark.claim("C07")
def test_teacher_forcing_examples(claim, narrow_gpt2, gpt2_small):
    """Counts the positions that the model's own training loss learns from: the rows of the logits
    whose gradient under transformers' causal-LM loss is non-zero (each is one next-token example).
    The chapter's 1024 tokens on the narrow model (see its fixture), cross-checked on GPT-2 small
    itself for 16 tokens."""
    n = int(claim.value("tokens"))
    full, _, _ = loss_examples(claim, gpt2_small, 16)
    claim.require(full == 15, f"GPT-2 small's loss learns from {full} of 16 positions, not 15",
                  measured=full, unit="example")
    used, logits_shape, loss = loss_examples(claim, narrow_gpt2, n)
    claim.check(used, "example", logits_shape=logits_shape, loss=loss,
                measured_as="positions with a non-zero gradient of the model's own causal-LM loss",
                measured_on="GPT-2 small's vocabulary and context, 2 layers of width 64 (the count does not depend on them)",
                full_size_check="GPT-2 small: 15 examples from 16 tokens")


def loss_examples(claim, model, n):
    """(how many of ``n`` seeded positions feed ``model``'s causal-LM loss, the logits' shape, the
    loss); requires the loss function's own value to equal the forward's."""
    ids = seeded_token_ids(n, seed=4)
    with torch.no_grad():
        out = model(ids, labels=ids)
    vocab = model.config.vocab_size
    shape = list(out.logits.shape)
    claim.require(shape == [1, n, vocab], f"logits shape {shape}, expected [1, {n}, {vocab}]")
    leaf = out.logits.detach().float().requires_grad_()
    loss = model.loss_function(logits=leaf, labels=ids, vocab_size=vocab)
    loss.backward()
    used = leaf.grad[0].abs().sum(dim=-1) > 0  # [n] bool: which positions' logits feed the loss
    claim.require(torch.allclose(loss, out.loss, rtol=1e-5), f"loss_function gives {loss.item():.6f}, forward gave {out.loss.item():.6f}")
    claim.require(not bool(used[-1]), "the last position (which has no next token) contributed to the loss")
    return int(used.sum()), shape, out.loss.item()


@pytest.fixture(scope="module")
def narrow_gpt2():
    """GPT-2 small's vocabulary (50257) and context (1024) at 2 layers of width 64. What C07 and
    C08 count (positions that feed the loss, forward passes of the generation loop) depends on the
    vocabulary, the context and the loop, never on depth or width, so the chapter's exact counts
    cost ~1 s instead of ~25 s at full size on a 2-core AVX2 CPU (over 5 minutes on a busy one)."""
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.manual_seed(0)
    return GPT2LMHeadModel(GPT2Config(n_layer=2, n_embd=64, n_head=4)).eval()


@pytest.fixture(scope="module")
def cached_generation_511(narrow_gpt2, gpt2_tok):
    """511 tokens written with the KV cache by :func:`narrow_gpt2`, after a one-token prompt."""
    return greedy_generate(narrow_gpt2, prompt_ids(1, gpt2_tok), 511, use_cache=True)


@pytest.mark.claim("C08")
def test_one_forward_per_written_token(claim, cached_generation_511, gpt2_small, gpt2_tok):
    """511 passes of one token each for 511 written tokens (on the narrow model, see the fixture),
    cross-checked on GPT-2 small itself for 16 tokens: the same one-token passes."""
    full = greedy_generate(gpt2_small, prompt_ids(1, gpt2_tok), 16, use_cache=True).forward_calls
    claim.require(full == [1] * 16, f"GPT-2 small fed {full} tokens per pass for 16 written tokens, not 1 each",
                  measured=len(cached_generation_511.forward_calls), unit="forward_pass")
    calls = cached_generation_511.forward_calls
    claim.require(len(cached_generation_511.tokens) == 511, f"wrote {len(cached_generation_511.tokens)} tokens, not 511",
                  measured=len(calls), unit="forward_pass")
    claim.require(set(calls) == {1}, f"forward calls fed more than 1 token: lengths {sorted(set(calls))}",
                  measured=len(calls), unit="forward_pass")
    claim.check(len(calls), "forward_pass", input_lengths=sorted(set(calls)), prompt_tokens=1,
                measured_on="GPT-2 small's vocabulary and context, 2 layers of width 64 (the count does not depend on them)",
                full_size_check="GPT-2 small: 16 tokens in 16 one-token passes")


@pytest.mark.claim("C14")
def test_cached_and_uncached_greedy_identical(claim, gpt2_small, gpt2_tok, claims_profile):
    p = claims_profile
    ids = prompt_ids(p.greedy_prompt, gpt2_tok)
    cached = greedy_generate(gpt2_small, ids, p.greedy_new, use_cache=True)
    uncached = greedy_generate(gpt2_small, ids, p.greedy_new, use_cache=False)
    cmp = compare_streams(uncached.tokens, cached.tokens, uncached.logits, TIE_TOLERANCE)
    claim.check_comparison(cmp, prompt_tokens=p.greedy_prompt, new_tokens=p.greedy_new,
                           smallest_top2_margin=float(top2_margins(uncached.logits).min()),
                           max_abs_logit_delta=float((uncached.logits - cached.logits).abs().max()) if cmp.verdict == IDENTICAL else None)
