"""A claim's key across the book: ``(chapter, id)``, written ``ch15:C18``.

Claim ids (``C18``) are a chapter's own, so every place that holds claims of several chapters uses
the key. Inside one chapter the short id still works; :func:`resolve_key` says which keys an ambiguous
one could mean.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

SEP = ":"

#: a chapter id: ``ch15``, ``quant-int8`` (lower case, digits, ``-`` and ``_``; no ``:``)
CHAPTER_RE = re.compile(r"^[a-z][a-z0-9_-]*$")


class ClaimKeyError(ValueError):
    """A claim name that names no claim, or several (``str()`` says which candidates)."""


def qualify(chapter: str, claim_id: str) -> str:
    """``("ch15", "C18")`` -> ``"ch15:C18"``; an id that is already qualified is returned as is."""
    return f"{chapter}{SEP}{claim_id}" if chapter and SEP not in claim_id else claim_id


def split(key: str) -> tuple[str | None, str]:
    """``"ch15:C18"`` -> ``("ch15", "C18")``; ``"C18"`` -> ``(None, "C18")``."""
    chapter, sep, cid = key.partition(SEP)
    return (chapter, cid) if sep else (None, key)


def short(key: str) -> str:
    """The claim id of a key, without its chapter: ``"ch15:C18"`` -> ``"C18"``."""
    return split(key)[1]


def resolve_key(name: str, keys: Iterable[str]) -> str:
    """The one key among ``keys`` that ``name`` (a key, or a short id) stands for. Raises ClaimKeyError
    when no key matches (naming the closest) or a short id matches several chapters' (naming each)."""
    keys = list(keys)
    if name in keys:
        return name
    chapter, cid = split(name)
    if chapter is None:
        found = [k for k in keys if short(k) == cid]
        if len(found) == 1:
            return found[0]
        if len(found) > 1:
            raise ClaimKeyError(
                f"{name!r} is ambiguous: {len(found)} chapters declare it ({', '.join(found)}); "
                f"write it with its chapter, e.g. {found[0]!r}"
            )
    chapters = sorted({c for c, _ in map(split, keys) if c})
    if chapter is not None and chapter not in chapters:
        near = difflib.get_close_matches(chapter, chapters, n=1)
        raise ClaimKeyError(
            f"no chapter {chapter!r} (in {name!r}); the chapters are {', '.join(chapters) or 'none'}"
            + (f" (did you mean {near[0]}:{cid}?)" if near else "")
        )
    close = difflib.get_close_matches(name, keys, n=3)
    if chapter is None:  # a short id: compare it with the short ids, and name the keys
        close = [
            k
            for c in difflib.get_close_matches(cid, sorted({short(k) for k in keys}), n=3)
            for k in keys
            if short(k) == c
        ][:3] or close
    hint = f" (did you mean {', '.join(close)}?)" if close else ""
    held = sorted({split(k)[0] or "?" for k in keys})  # "?": a key without a chapter
    where = "chapter " + held[0] if len(held) == 1 else "chapters " + ", ".join(held)
    raise ClaimKeyError(f"no claim {name!r} in {where}{hint}")


def entry_key(entry: dict) -> str | None:
    """The key of a ``claims.json`` entry: its ``key``, else ``chapter:id``, else its ``id``."""
    key = entry.get("key")
    if isinstance(key, str) and key:
        return key
    cid, chapter = entry.get("id"), entry.get("chapter")
    if not isinstance(cid, str) or not cid:
        return None
    return qualify(chapter if isinstance(chapter, str) else "", cid)
