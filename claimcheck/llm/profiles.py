"""Sizes and timing budgets of every size-dependent claim, per size profile (``--claims-profile``):
how *precisely* a claim is measured, never *whether* it holds. ``full`` uses the chapter's own sizes
(C15.laptop's uncached 768 tokens take ~10 minutes on 2 cores); the sizes of each are package data,
``data/profiles.toml``. Costs: docs/timing.md."""

from __future__ import annotations

import tomllib
from collections.abc import Collection, Iterable
from dataclasses import asdict, dataclass, field, fields, replace
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pytest


@dataclass(frozen=True)
class Profile:
    """One size profile: every size-dependent measurement's sizes and the budgets."""

    name: str
    read_tokens: int  # prefill length, C01/C05/C11 (chapter: 512)
    write_tokens: int  # decode steps with the KV cache, C02/C05/C11 (chapter: 511)
    timing_repeats: int  # interleaved rounds of each side of a ratio
    greedy_prompt: int  # prompt of the cached/uncached comparison C14 (chapter: 16)
    greedy_new: int  # tokens written in C14
    gen_lengths: tuple[int, ...]  # new tokens per generation, C15/C16's interleaved rounds
    gen_repeats: int  # interleaved rounds of the generations
    ttft_prompts: tuple[int, ...]  # prompts of TTFT and decode latency, C13/C36, C20's short
    decode_steps: int  # decode steps timed after each prompt and on the long context, C13/C20/C36
    batch_sizes: tuple[int, ...]  # batch sizes of batched decode, C35
    batch_prompt: int  # prompt tokens per row, C35
    batch_steps: int  # decode steps timed per batch, C35
    bandwidth_mib: int  # buffer of the memory-bandwidth benchmark, C12
    forward_lengths: tuple[int, ...] = (128, 256, 512)  # positions of one forward pass, C16's cost per step
    context_tokens: int = 1000  # the long context of C20's decode steps (cache filled once, reused)
    timing_budget_s: float = 10.0  # seconds a timing claim may add while its interval is undecided
    base_budget_s: float = 60.0  # seconds the first rounds of a shared measurement may take (or fewer rounds)
    assisted_new: int = 48  # tokens written by assisted decoding, C32
    chapter_gen_lengths: tuple[int, ...] = ()  # the chapter's generations (256, 768), timed once, C15.laptop

    @property
    def chapter_sizes(self) -> bool:
        """Whether this profile measures at the chapter's own sizes (read 512, write 511, 256/768)."""
        return (self.read_tokens, self.write_tokens) == (512, 511) and {256, 768} <= set(
            self.chapter_gen_lengths
        )

    def describe(self, used: Collection[str] | None = None) -> str:
        """One line for the report, e.g. "quick (reduced sizes, not the chapter's): read 512 tokens,
        ...": the words of the fields in ``used`` (:class:`SizeReads`; None: every field)."""
        read = SIZE_FIELDS if used is None else set(used)
        gen, ttft, batches, chapter = (
            "/".join(map(str, v))
            for v in (self.gen_lengths, self.ttft_prompts, self.batch_sizes, self.chapter_gen_lengths)
        )
        once = f" (and {chapter} once)" if chapter else ""
        generate = f"generate {gen} tokens after a {self.greedy_prompt}-token prompt{once}"
        rounds = f"{self.timing_repeats} interleaved rounds first (within {self.base_budget_s:g} s per measurement)"
        words = [  # each with the fields that make it apply
            ({"read_tokens"}, f"read {self.read_tokens} tokens"),
            ({"write_tokens"}, f"write {self.write_tokens} tokens"),
            ({"gen_lengths", "chapter_gen_lengths"}, generate),
            ({"ttft_prompts"}, f"prompts {ttft} for TTFT"),
            ({"context_tokens"}, f"decode on a {self.context_tokens}-token context"),
            ({"batch_sizes"}, f"batches {batches}"),
            ({"timing_repeats", "gen_repeats", "base_budget_s"}, rounds),
            ({"timing_budget_s"}, f"up to {self.timing_budget_s:g} s more per undecided timing claim"),
        ]
        parts = [text for names, text in words if names & read]
        # "the chapter's own sizes" are ch15's read/write lengths and generations: said where those are
        kind = "the chapter's own sizes" if self.chapter_sizes else "reduced sizes, not the chapter's"
        head = f"{self.name} ({kind})" if {"write_tokens", "chapter_gen_lengths"} & read else self.name
        return f"{head}: {', '.join(parts)}" if parts else head

    def as_dict(self, used: Collection[str] | None = None) -> dict[str, Any]:
        """The profile for ``claims.json``: its fields, ``chapter_sizes``, ``description``
        (:meth:`describe` of ``used``) and, with ``used``, ``used`` sorted."""
        out = {**asdict(self), "chapter_sizes": self.chapter_sizes, "description": self.describe(used)}
        if used is not None:
            out["used"] = sorted(used)
        return out


#: the names of a profile's sizes (its dataclass fields but its name)
SIZE_FIELDS = frozenset(f.name for f in fields(Profile)) - {"name"}


@dataclass
class SizeReads:
    """Which sizes were read by whom (node id or ``"fixture NAME"``; ``owners``: a stack)."""

    owners: list[str] = field(default_factory=list)
    by_owner: dict[str, set[str]] = field(default_factory=dict)

    def note(self, name: str) -> None:
        """Record that size ``name`` was read by the innermost owner (none running: not recorded)."""
        if self.owners and name in SIZE_FIELDS:
            self.by_owner.setdefault(self.owners[-1], set()).add(name)

    def used_by(self, items: Iterable[pytest.Item]) -> set[str]:
        """The sizes the tests ``items`` read, themselves or through their fixtures (``fixturenames``)."""
        out: set[str] = set()
        for item in items:
            out |= self.by_owner.get(item.nodeid, set())
            for name in getattr(item, "fixturenames", ()):
                out |= self.by_owner.get(f"fixture {name}", set())
        return out


class WatchedProfile:
    """A :class:`Profile` (the ``claims_profile`` fixture) that notes each size read from it."""

    def __init__(self, profile: Profile, reads: SizeReads) -> None:
        self._profile = profile
        self._reads = reads

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._profile, name)
        self._reads.note(name)
        return value

    def __repr__(self) -> str:
        return f"WatchedProfile({self._profile!r})"


def _read_profiles() -> dict[str, Profile]:
    """The profiles of package data ``data/profiles.toml``: ``quick`` whole, the others its changes."""
    text = resources.files("claimcheck.llm").joinpath("data", "profiles.toml").read_text(encoding="utf-8")
    table: dict[str, dict[str, Any]] = {
        name: {k: tuple(v) if isinstance(v, list) else v for k, v in sizes.items()}
        for name, sizes in tomllib.loads(text).items()
    }
    quick = Profile("quick", **table.pop("quick"))
    return {"quick": quick} | {name: replace(quick, name=name, **sizes) for name, sizes in table.items()}


PROFILES = _read_profiles()


def get(name: str) -> Profile:
    """Return the named :class:`Profile`. Raises ``KeyError`` for an unknown name."""
    return PROFILES[name]
