"""GPT-2's byte table and ranked merges from the kit, against known entries and the real tokenizer."""

import json

import pytest

from claimcheck.llm import tokenizer


def test_byte_table_is_gpt2s():
    table = tokenizer.byte_table()
    assert sorted(table) == list(range(256))
    assert len(set(table.values())) == 256  # a bijection: every byte has its own character
    assert (table[32], table[10], table[0]) == ("Ġ", "Ċ", "Ā")  # space, newline, NUL
    assert table[ord("A")] == "A" and table[ord("~")] == "~" and table[0xFF] == "ÿ"
    assert table[0xAD] == "Ń"  # the soft hyphen is not printable: the 68th and last remapped byte
    assert max(table.values()) == "Ń"


def test_merges_in_rank_order_and_their_token_ids():
    pairs = tokenizer.merges()
    assert len(pairs) == 50000
    assert pairs[:3] == (("Ġ", "t"), ("Ġ", "a"), ("h", "e"))
    vocab = tokenizer.vocab()
    assert len(vocab) == 50257 and vocab[tokenizer.END_OF_TEXT] == 50256
    assert tokenizer.merge_token_id(0) == vocab["Ġt"] == 256
    last = tokenizer.merge_table()[-1]
    assert (last.rank, last.pair, last.token, last.token_id) == (49999, ("Ġg", "azed"), "Ġgazed", 50255)
    assert all(vocab[m.token] == m.token_id for m in tokenizer.merge_table()[::997])
    with pytest.raises(IndexError, match="50000 is not in 0..49999"):
        tokenizer.merge_token_id(50000)


def _bpe(word: str) -> list[str]:
    """GPT-2's BPE of one pre-tokenized word (encoder.py's loop): merge the lowest-ranked pair."""
    ranks = {pair: r for r, pair in enumerate(tokenizer.merges())}
    parts = [tokenizer.byte_table()[b] for b in word.encode("utf-8")]
    while len(parts) > 1:
        pair = min(zip(parts, parts[1:]), key=lambda p: ranks.get(p, float("inf")))
        if pair not in ranks:
            break
        i = next(i for i in range(len(parts) - 1) if (parts[i], parts[i + 1]) == pair)
        parts[i : i + 2] = [pair[0] + pair[1]]
    return parts


@pytest.mark.parametrize("word", [" much", " tokenizer", "Hello", " 50256", " 字节"])
def test_the_tables_reproduce_the_real_tokenizer(gpt2_tok_ids, word):
    vocab = tokenizer.vocab()
    assert [vocab[p] for p in _bpe(word)] == gpt2_tok_ids(word)
    assert b"".join(tokenizer.token_bytes(p) for p in _bpe(word)) == word.encode("utf-8")


@pytest.fixture(scope="module")
def gpt2_tok_ids():
    from claimcheck.llm.models import gpt2_tokenizer

    tok = gpt2_tokenizer()
    return lambda text: tok(text).input_ids


def test_token_bytes_refuses_a_character_outside_the_table():
    assert tokenizer.token_bytes("Ġmuch") == b" much"
    with pytest.raises(ValueError, match="'字' is not a character of GPT-2's byte table"):
        tokenizer.token_bytes("字")


@pytest.fixture
def own_files(tmp_path, monkeypatch):
    """Point the kit at hand-written tokenizer files; the caches are cleared before and after."""

    def use(vocab: dict, merges: str):
        (tmp_path / "encoder.json").write_text(json.dumps(vocab), encoding="utf-8")
        (tmp_path / "vocab.bpe").write_text(merges, encoding="utf-8")
        monkeypatch.setattr(
            tokenizer,
            "tokenizer_files",
            lambda: (str(tmp_path / "encoder.json"), str(tmp_path / "vocab.bpe")),
        )

    caches = (tokenizer.vocab, tokenizer.merges, tokenizer.merge_table)
    for f in caches:
        f.cache_clear()
    yield use
    for f in caches:
        f.cache_clear()


def test_a_malformed_merge_line_is_named(own_files):
    own_files({}, "#version: 0.2\nĠ t\nhe\n")
    with pytest.raises(ValueError, match=r"vocab.bpe:3: 'he' is not a merge"):
        tokenizer.merges()


def test_a_vocabulary_off_gpt2s_layout_is_refused(own_files):
    own_files({"Ġt": 300}, "#version: 0.2\nĠ t\n")
    with pytest.raises(ValueError, match="merge 0 .* makes 'Ġt', whose id in the vocabulary is 300"):
        tokenizer.merge_table()
