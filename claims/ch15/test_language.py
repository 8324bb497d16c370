"""Claims about the real pretrained GPT-2's probabilities: C30.model, C31, C37.

They need the weights (``--claims-weights DIR|HUB_ID``, the Hugging Face cache, or an allowed
download); without them each is skipped with the reason, which says what was tried and how to
provide them. Every measured value is recorded before any comparison, so a failing run (e.g. a
model that is not the real GPT-2) still shows what it measured.
"""

import hashlib

import pytest

from claimcheck.interval import Interval
from claimcheck.llm.lm import (
    entropy_bits,
    measured_surprisal_bits,
    next_token_distribution,
    top1_above_fraction,
    top_k,
)

# token -> (registry value of its printed probability, of its printed surprisal); " much" is `stated`
TABLE = {" much": ("stated", "bits_much"), " very": ("p_very", "bits_very"), ",": ("p_comma", "bits_comma"),
         "much": ("p_much_nospace", "bits_much_nospace"), " Much": ("p_much_cap", "bits_much_cap")}
CONFIDENT = 0.9  # C31: top-1 probability above 90%


@pytest.mark.claim("C30.model")
def test_thank_you_very_much(claim, gpt2_pretrained):
    """The next-token table after "Thank you very": each printed probability and surprisal is
    compared in one pass, so the report lists every mismatch at once (longer for that loop)."""
    model, tok, info = gpt2_pretrained
    probs = next_token_distribution(model, tok, "Thank you very")
    percent, bits, mismatches = {}, {}, []
    for text, (p_name, bits_name) in TABLE.items():
        ids = tok(text).input_ids
        claim.require(len(ids) == 1, f"{text!r} is not one token under this tokenizer: {ids}")
        p = float(probs[ids[0]])
        percent[text], bits[text] = p * 100, measured_surprisal_bits(p)
        printed_p = claim.stated if p_name == "stated" else claim.value(p_name)
        if not Interval.printed(printed_p).contains(round(percent[text], 10)):
            mismatches.append(f"p({text!r}) = {percent[text]:.4f}%, chapter prints {printed_p}%")
        if not Interval.printed(claim.value(bits_name)).contains(bits[text]):
            mismatches.append(f"surprisal({text!r}) = {bits[text]:.4f} bits, chapter prints {claim.value(bits_name)}")
    entropy = entropy_bits(probs)
    if not Interval.printed(claim.value("entropy_bits")).contains(entropy):
        mismatches.append(f"entropy {entropy:.4f} bits, chapter prints {claim.value('entropy_bits')}")
    claim.check(percent[" much"], "percent", weights=info, top5=top_k(probs, tok, 5), probabilities_percent=percent,
                surprisal_bits=bits, entropy_bits=entropy, mismatches=mismatches)
    claim.require(not mismatches, "; ".join(mismatches))


@pytest.mark.claim("C31")
def test_share_of_confident_positions(claim, gpt2_pretrained, claims_settings, pytestconfig):
    """Chapter 14's share of positions whose top token has more than 90%, over the corpus the editor
    gives: longer because the corpus and its window are read and checked here."""
    if not claims_settings.corpus:
        claim.skip("needs the book's corpus (chapter 14), which is not shipped: give a UTF-8 text file with "
                    "--claims-corpus FILE (or CLAIMCHECK_CORPUS)")
    from claimcheck.plugin.state import setting_path

    path = setting_path(pytestconfig, "corpus")
    data = path.read_bytes()  # the plugin checked that the file exists and can be read
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:  # bad input: the claim errors (it is not disproved)
        line = data.count(b"\n", 0, exc.start) + 1
        raise ValueError(f"{claims_settings.shown('corpus')}: not UTF-8 text (line {line}, byte {exc.start}: "
                         f"{exc.reason}); save the corpus as UTF-8") from None
    model, tok, info = gpt2_pretrained
    window = min(1024, model.config.n_positions)
    fraction, positions = top1_above_fraction(model, tok(text).input_ids, threshold=CONFIDENT, window=window)
    claim.check(fraction * 100, "percent", corpus=str(path), corpus_sha256=hashlib.sha256(data).hexdigest(),
                corpus_bytes=len(data), positions=positions, window_tokens=window, threshold=CONFIDENT, weights=info)


@pytest.mark.claim("C37")
def test_one_solved_example_raises_paris(claim, gpt2_pretrained):
    model, tok, info = gpt2_pretrained
    paris = tok(" Paris").input_ids
    claim.require(len(paris) == 1, f"' Paris' is not one token: {paris}")
    inputs = claim.claim.inputs
    bare = float(next_token_distribution(model, tok, inputs["bare"])[paris[0]]) * 100
    shown = float(next_token_distribution(model, tok, inputs["with_example"])[paris[0]]) * 100
    claim.check(bare, "percent", prompts=dict(inputs), prompts_reconstructed=claim.claim.reconstructed,
                p_bare_percent=bare, p_with_example_percent=shown, weights=info)
    claim.require(Interval.printed(claim.value("with_example")).contains(shown),
                  f"with one solved example p(' Paris') = {shown:.2f}%, chapter prints {claim.value('with_example')}% "
                  "(the prompts are reconstructed)")
