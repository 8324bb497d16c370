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


# --- the sizes a chapter's claims use ------------------------------------------------------------
def test_the_description_names_only_the_sizes_read():
    from claimcheck.llm.profiles import SIZE_FIELDS

    quick = get("quick")
    assert quick.describe({"read_tokens"}) == "quick: read 512 tokens"  # not ch15's write and batches
    assert quick.describe({"batch_sizes", "timing_budget_s"}) == (
        "quick: batches 1/8/32, up to 8 s more per undecided timing claim"
    )
    # ch15's read/write lengths and generations are where "the chapter's own sizes" are said
    assert quick.describe({"write_tokens"}).startswith("quick (reduced sizes, not the chapter's): write 8")
    assert quick.describe(set()) == "quick" and quick.describe(None) == quick.describe()
    assert quick.describe(SIZE_FIELDS) == quick.describe()  # every size read: every size said
    assert quick.as_dict({"read_tokens"})["used"] == ["read_tokens"] and "used" not in quick.as_dict()


def test_a_watched_profile_records_the_sizes_read_by_the_test_or_fixture_reading_them():
    from claimcheck.llm.profiles import SizeReads, WatchedProfile

    reads = SizeReads()
    p = WatchedProfile(get("quick"), reads)
    assert p.read_tokens == 512 and reads.by_owner == {}  # nothing running: nobody to count it for
    reads.owners.append("fixture batches")
    assert p.batch_sizes == (1, 8, 32) and p.name == "quick" and p.chapter_sizes is False
    reads.owners[-1] = "claims/a/test_a.py::test_read"
    assert p.read_tokens == 512

    class Item:
        def __init__(self, nodeid, fixturenames):
            self.nodeid, self.fixturenames = nodeid, fixturenames

    assert reads.by_owner == {
        "fixture batches": {"batch_sizes"},
        "claims/a/test_a.py::test_read": {"read_tokens"},
    }
    assert reads.used_by([Item("claims/a/test_a.py::test_read", ["claims_profile"])]) == {"read_tokens"}
    # a fixture's reads count for every test that uses it (a session fixture is set up once)
    assert reads.used_by([Item("claims/b/test_b.py::test_batches", ["batches"])]) == {"batch_sizes"}


CHAPTER_TEST = """
import pytest

@pytest.mark.claim("C01")
def test_c01(claim, {fixture}):
    claim.check(float({value}), "token")
"""


def test_each_chapters_report_names_the_sizes_its_own_tests_read(pytester, monkeypatch):
    """Two chapters in one run: a's tests read the read length and (through a session fixture) the
    batches; b's test uses that fixture, already set up by a's: b's profile names the batches only."""
    from tests.claimkit import claim_toml, claims_project, read_report

    conftest = (
        "import pytest\n\n@pytest.fixture(scope='session')\ndef batches(claims_profile):\n"
        "    return claims_profile.batch_sizes\n"
    )
    a = claim_toml("C01", stated="512", unit="token", tolerance="exact", needs='["text"]')
    claims_project(
        pytester,
        a + claim_toml("C02", stated="3", unit="token", tolerance="exact", needs='["text"]'),
        {
            "test_a.py": CHAPTER_TEST.format(fixture="claims_profile", value="claims_profile.read_tokens")
            + '\n@pytest.mark.claim("C02")\ndef test_c02(claim, batches):\n    claim.check(float(len(batches)), "token")\n'
        },
        chapter="a",
        folder="claims/a",
        conftest=conftest,
        monkeypatch=monkeypatch,
    )
    claims_project(
        pytester,
        claim_toml("C01", stated="3", unit="token", tolerance="exact", needs='["text"]'),
        {"test_b.py": CHAPTER_TEST.format(fixture="batches", value="len(batches)")},
        chapter="b",
        folder="claims/b",
    )
    result = pytester.runpytest("claims", "-p", "no:cacheprovider", "--claims-profile=quick")
    result.assert_outcomes(passed=3)
    profiles = {c["id"]: c.get("profile") for c in read_report(pytester).doc["chapters"]}
    assert profiles["a"]["description"] == "quick: read 512 tokens, batches 1/8/32"
    assert profiles["b"]["description"] == "quick: batches 1/8/32"
    assert profiles["b"]["used"] == ["batch_sizes"]


def test_a_profile_built_by_a_kit_keeps_the_defaults_it_had():
    # the sizes have no default (a kit's profile names every one); the budgets and C32's tokens default
    # to 10 s, 60 s and 48, not to quick's 8 s, 30 s and 16
    import dataclasses

    import pytest

    from claimcheck.llm.profiles import Profile

    sizes = {f.name: getattr(get("quick"), f.name) for f in dataclasses.fields(Profile)}
    required = [n for n in sizes if n not in ("name", "forward_lengths", "context_tokens")][:13]
    mine = Profile("mine", **{n: sizes[n] for n in required})
    assert (mine.timing_budget_s, mine.base_budget_s, mine.assisted_new) == (10.0, 60.0, 48)
    assert mine.forward_lengths == (128, 256, 512) and mine.context_tokens == 1000
    assert mine.chapter_gen_lengths == ()
    with pytest.raises(TypeError, match="missing 13 required"):
        Profile("mine")
