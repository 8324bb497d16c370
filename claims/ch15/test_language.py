"""Claims about the real pretrained GPT-2's probabilities: C30.model, C31, C37.

They need the weights (``--claims-weights DIR`` or the Hugging Face cache); without them each is
skipped with the reason, which says what was tried and how to provide them.
"""

import hashlib
from pathlib import Path

import pytest

from claimcheck.interval import Interval
from claimcheck.lm import entropy_bits, next_token_distribution, top1_above_fraction, top_k

TABLE = {" much": "stated", " very": "p_very", ",": "p_comma", "much": "p_much_nospace", " Much": "p_much_cap"}


@pytest.mark.claim("C30.model")
def test_thank_you_very_much(claim, gpt2_pretrained):
    model, tok, info = gpt2_pretrained
    probs = next_token_distribution(model, tok, "Thank you very")
    measured = {}
    for text, name in TABLE.items():
        ids = tok(text).input_ids
        claim.require(len(ids) == 1, f"{text!r} is not one token under this tokenizer: {ids}")
        measured[text] = float(probs[ids[0]]) * 100
    entropy = entropy_bits(probs)
    claim.detail(weights=info, top5=top_k(probs, tok, 5), probabilities_percent=measured, entropy_bits=entropy)
    for text, name in TABLE.items():
        if name == "stated":
            continue
        printed = claim.value(name)
        claim.require(Interval.printed(printed).contains(round(measured[text], 10)),
                      f"p({text!r}) = {measured[text]:.4f}%, chapter prints {printed}%")
    claim.require(Interval.printed(claim.value("entropy_bits")).contains(entropy),
                  f"entropy {entropy:.4f} bits, chapter prints {claim.value('entropy_bits')}")
    claim.check(measured[" much"], "percent")


@pytest.mark.claim("C31")
def test_share_of_confident_positions(claim, gpt2_pretrained, claims_settings):
    if not claims_settings.corpus:
        pytest.skip("needs the book's corpus (chapter 14), which is not shipped: give a UTF-8 text file with "
                    "--claims-corpus FILE (or CLAIMCHECK_CORPUS)")
    path = Path(claims_settings.corpus)
    if not path.is_file():
        pytest.fail(f"--claims-corpus {path}: no such file", pytrace=False)
    data = path.read_bytes()
    model, tok, info = gpt2_pretrained
    fraction, positions = top1_above_fraction(model, tok(data.decode("utf-8")).input_ids, threshold=0.9)
    claim.check(fraction * 100, "percent", corpus=str(path), corpus_sha256=hashlib.sha256(data).hexdigest(),
                positions=positions, threshold=0.9, weights=info)


@pytest.mark.claim("C37")
def test_one_solved_example_raises_paris(claim, gpt2_pretrained):
    model, tok, info = gpt2_pretrained
    paris = tok(" Paris").input_ids
    claim.require(len(paris) == 1, f"' Paris' is not one token: {paris}")
    bare = float(next_token_distribution(model, tok, claim.claim.inputs["bare"])[paris[0]]) * 100
    shown = float(next_token_distribution(model, tok, claim.claim.inputs["with_example"])[paris[0]]) * 100
    claim.detail(prompts=dict(claim.claim.inputs), prompts_reconstructed=claim.claim.reconstructed,
                 p_bare_percent=bare, p_with_example_percent=shown, weights=info)
    claim.require(Interval.printed(claim.value("with_example")).contains(shown),
                  f"with one solved example p(' Paris') = {shown:.2f}%, chapter prints {claim.value('with_example')}% "
                  "(the prompts are reconstructed)")
    claim.check(bare, "percent")
