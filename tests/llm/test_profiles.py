"""Size profiles: the sizes a verdict depends on are shared; only precision and the chapter's own
one-off generations differ."""

from claimcheck.llm.profiles import PROFILES, get

VERDICT_SIZES = (
    "greedy_prompt",
    "gen_lengths",
    "ttft_prompts",
    "context_tokens",
    "batch_sizes",
    "read_tokens",
    "forward_lengths",
)


def test_quick_and_standard_share_every_size_a_verdict_depends_on():
    quick, standard = get("quick"), get("standard")
    assert {f: getattr(quick, f) for f in VERDICT_SIZES} == {f: getattr(standard, f) for f in VERDICT_SIZES}
    assert quick.timing_repeats >= 5 and standard.timing_repeats >= quick.timing_repeats


def test_full_decides_the_generation_growth_at_the_shared_lengths_and_times_the_chapters_once():
    full, quick = get("full"), get("quick")
    assert full.gen_lengths == quick.gen_lengths
    assert full.chapter_gen_lengths == (256, 768) and not quick.chapter_gen_lengths
    assert full.chapter_sizes and not quick.chapter_sizes and not get("standard").chapter_sizes
    assert "(and 256/768 once)" in full.describe() and "once" not in quick.describe()
    assert set(PROFILES) == {"quick", "standard", "full"}
