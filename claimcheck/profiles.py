"""Sizes behind every size-dependent claim, per profile.

``full`` uses the chapter's own sizes: read a 512-token prompt; write 511 tokens one at a time
with the KV cache; generate 256 and 768 tokens after a 16-token prompt with and without the cache.
``standard`` (the default) keeps every claim's shape but fewer decode steps, so that the whole run
fits the 2-core CI machine's budget; ``quick`` is for iteration.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    read_tokens: int          # prefill length for C01/C05/C11 (chapter: 512)
    write_tokens: int         # decode steps with the KV cache for C02/C05/C11 (chapter: 511)
    timing_repeats: int       # interleaved rounds of each side of a ratio
    greedy_prompt: int        # prompt of the cached/uncached comparison C14 (chapter: 16)
    greedy_new: int           # tokens written in C14

    def as_dict(self) -> dict:
        return asdict(self)


PROFILES = {
    "quick": Profile("quick", read_tokens=256, write_tokens=32, timing_repeats=2, greedy_prompt=16, greedy_new=24),
    "standard": Profile("standard", read_tokens=512, write_tokens=96, timing_repeats=3, greedy_prompt=16, greedy_new=48),
    "full": Profile("full", read_tokens=512, write_tokens=511, timing_repeats=3, greedy_prompt=16, greedy_new=256),
}


def get(name: str) -> Profile:
    """Return the named :class:`Profile`. Raises ``KeyError`` for an unknown name."""
    return PROFILES[name]
