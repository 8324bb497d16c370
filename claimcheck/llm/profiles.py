"""Sizes behind every size-dependent claim, per profile.

``full`` uses the chapter's own sizes: read a 512-token prompt; write 511 tokens one at a time
with the KV cache; generate 256 and 768 tokens after a 16-token prompt with and without the cache
(plus 512, so that the growth law is fitted on three lengths). It takes long on a small CPU: the
uncached 768-token generation alone is several minutes on 2 cores.
``standard`` (the default) keeps every claim's shape with fewer decode steps and shorter
generations, to fit the 2-core CI machine's budget (<= 6 minutes for all claims); ``quick`` is for
iteration (<= 90 s).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class Profile:
    name: str
    read_tokens: int                 # prefill length, C01/C05/C11 (chapter: 512)
    write_tokens: int                # decode steps with the KV cache, C02/C05/C11 (chapter: 511)
    timing_repeats: int              # interleaved rounds of each side of a ratio
    greedy_prompt: int               # prompt of the cached/uncached comparison C14 (chapter: 16)
    greedy_new: int                  # tokens written in C14
    gen_lengths: tuple[int, ...]     # new tokens per generation, C15/C16 (chapter: 256 and 768)
    gen_repeats: int                 # interleaved rounds of the generations
    ttft_prompts: tuple[int, ...]    # prompt lengths for TTFT and decode latency, C13/C20/C36
    decode_steps: int                # decode steps timed after each prompt, C13/C20/C36
    batch_sizes: tuple[int, ...]     # batch sizes of batched decode, C35
    batch_prompt: int                # prompt tokens per row, C35
    batch_steps: int                 # decode steps timed per batch, C35
    bandwidth_mib: int               # buffer of the memory-bandwidth benchmark, C12

    @property
    def chapter_sizes(self) -> bool:
        """Whether this profile measures at the chapter's own sizes (read 512, write 511, 256/768)."""
        return (self.read_tokens, self.write_tokens) == (512, 511) and {256, 768} <= set(self.gen_lengths)

    def describe(self) -> str:
        """One line for the report: the sizes behind the timing claims."""
        where = "the chapter's own sizes" if self.chapter_sizes else "reduced sizes, not the chapter's"
        return (f"{self.name} ({where}): read {self.read_tokens} tokens, write {self.write_tokens} tokens, "
                f"generate {'/'.join(map(str, self.gen_lengths))} tokens after a 16-token prompt, "
                f"prompts {'/'.join(map(str, self.ttft_prompts))} for TTFT, batches "
                f"{'/'.join(map(str, self.batch_sizes))}, {self.timing_repeats} interleaved rounds")

    def as_dict(self) -> dict:
        return {**asdict(self), "chapter_sizes": self.chapter_sizes, "description": self.describe()}


PROFILES = {
    "quick": Profile("quick", read_tokens=256, write_tokens=32, timing_repeats=2, greedy_prompt=16, greedy_new=24,
                     gen_lengths=(32, 64, 128), gen_repeats=1, ttft_prompts=(32, 256, 768), decode_steps=8,
                     batch_sizes=(1, 8, 32), batch_prompt=16, batch_steps=4, bandwidth_mib=512),
    "standard": Profile("standard", read_tokens=512, write_tokens=96, timing_repeats=3, greedy_prompt=16,
                        greedy_new=48, gen_lengths=(64, 128, 256), gen_repeats=1, ttft_prompts=(32, 256, 1000),
                        decode_steps=12, batch_sizes=(1, 8, 32), batch_prompt=32, batch_steps=8,
                        bandwidth_mib=1024),
    "full": Profile("full", read_tokens=512, write_tokens=511, timing_repeats=3, greedy_prompt=16, greedy_new=256,
                    gen_lengths=(256, 512, 768), gen_repeats=1, ttft_prompts=(32, 256, 1000), decode_steps=16,
                    batch_sizes=(1, 8, 16, 32), batch_prompt=64, batch_steps=16, bandwidth_mib=1024),
}


def get(name: str) -> Profile:
    """Return the named :class:`Profile`. Raises ``KeyError`` for an unknown name."""
    return PROFILES[name]
