"""What a row says in words: values, bars, margins, causes, the runner, one sentence per outcome."""

import math
from dataclasses import replace

import pytest

from claimcheck import outcomes as oc
from claimcheck.pages import words
from claimcheck.results import ClaimEntry


def e(stated="", unit="", tolerance="printed", measured=None, **kw):
    cid = kw.pop("id", "C01")
    return ClaimEntry(cid, cid, stated=stated, unit=unit, tolerance=tolerance, measured=measured, **kw)


@pytest.mark.parametrize(
    "x, text",
    [
        (36864.0, "36864"),
        (2.86102294921875e-06, "2.861e-6"),
        (1e-5, "1e-5"),
        (124439808, "124,439,808"),
        (0.086, "0.086"),
        (5947.0, "5947"),
        (1.9854101992828532, "1.9854"),
        (math.inf, "inf"),
        (0.0, "0"),
        (True, "True"),
    ],
)
def test_numbers_read_as_printed(x, text):
    assert words.number(x) == text


@pytest.mark.parametrize(
    "entry, chapter, here",
    [
        (e("60.6", "x", measured=[60.37, 61.0]), "60.6×", "[60.37, 61]×"),
        (e("99.16", "percent", measured=99.158), "99.16%", "99.158%"),
        (e("36", "KiB/token", measured=36.0), "36 KiB/token", "36 KiB/token"),
        (e("", "", "<=1e-5", measured=0.0), "", "0"),  # no number in the chapter: the row shows its words
        (e("1.7", "亿 FLOP/token", measured=1.70112), "1.7 亿 FLOP/token", "1.7011 亿 FLOP/token"),
        (e("5", "x", "exact", measured=[5.0, 5.0]), "5×", "5×"),
        (e("98", "token/s", "rel:25%"), "98 token/s", ""),
    ],
)
def test_values_in_the_chapters_unit(entry, chapter, here):
    assert words.chapter_value(entry) == chapter and words.measured_value(entry) == here


@pytest.mark.parametrize(
    "entry, bar",
    [
        (e("99.16", "percent"), "within half a unit of the last digit: [99.155, 99.165]%"),
        (e("60", "x", ">=10"), "at least 10×"),
        (e("", "", "<=1e-5"), "at most 1e-5"),
        (e("2", "FLOP/param", "rel:5%"), "within 5% of 2: [1.9, 2.1] FLOP/param"),
        (e("2", "", "abs:0.5"), "within ±0.5 of 2: [1.5, 2.5]"),
        (e("1023", "example", "exact"), "exactly 1023 examples"),
        (e("", "x", "range:0.98..1.02"), "between 0.98 and 1.02×"),
        (e("5", "x", "roughly"), "unreadable tolerance 'roughly'"),
    ],
)
def test_the_bar_in_words(entry, bar):
    assert words.bar_words(entry) == bar


@pytest.mark.parametrize(
    "entry, text, inside",
    [
        (e("60", "x", ">=10", 23.26), "13.3 above the bar, 2.3× the bar", True),
        (e("60", "x", ">=10", 3.2), "short by 6.8 (3.2 is 0.32× the bar)", False),
        (e("99.16", "percent", "printed", 99.158), "inside by 0.003% of ±0.005", True),
        (e("36", "KiB/token", "printed", 36.0), "on the chapter's value", True),
        (e("2", "", "abs:0.5", 2.71), "outside by 0.21", False),
        (e("", "", "<=1e-5", 2.86e-6), "7.14e-6 below the bar, 0.29× the bar", True),
        (e("", "token", "<=0", 0), "on the bar", True),
        (e("36864", "B/token", "exact", 36864.0), "exact", True),
        (e("60.6", "x", "printed", [60.37, 61.0]), "overlaps the bar (an interval of values)", True),
    ],
)
def test_the_margin_says_how_far_inside_or_outside(entry, text, inside):
    m = words.margin(entry)
    assert (m.text, m.inside) == (text, inside)
    assert (m.score >= 0) == inside


def test_margins_sort_across_claims_and_need_a_measurement():
    scores = [words.margin(e("60", "x", ">=10", v)).score for v in (3.2, 10.0, 23.0)]
    assert scores == sorted(scores) and scores[1] == 0
    assert words.margin(e("60", "x", ">=10")) is None and words.margin(e("5", "x", "roughly", 5)) is None


def test_confidence_interval_where_the_claim_has_one():
    entry = e(
        "60",
        "x",
        ">=10",
        23.26,
        details={
            "ci": {
                "low": 21.9,
                "high": 24.7,
                "level": 0.95,
                "bar": "at least 10",
                "rounds": 7,
                "value": 23.26,
                "method": "order statistics",
            }
        },
    )
    assert words.ci_words(entry) == "95% CI [21.9×, 24.7×], 7 rounds"
    assert not words.ci_straddles(entry)
    assert words.ci_straddles(replace(entry, details={"ci": {**entry.details["ci"], "low": 9.5}}))
    assert words.ci_straddles(replace(entry, outcome=oc.INCONCLUSIVE))
    assert words.ci_words(e("60", "x", ">=10", 23.26)) == ""
    assert words.ci_words(e(details={"ci": {"low": "a"}})) == ""  # malformed: nothing, no crash


def test_each_cause_of_an_unchecked_claim():
    runner = {"weights": {"available": False}}
    assert words.cause_of(e(needs=["tok", "weights"], reason="needs the pretrained"), runner) == "weights"
    assert words.cause_of(e(needs=["arch", "gpu"]), runner) == "gpu"
    assert words.cause_of(e(needs=["time"], runner_bound="author-laptop"), runner) == "machine-bound"
    assert words.cause_of(e(needs=["ext"], reason="external data: ..."), runner) == "external"
    listing = e(needs=["arch"], reason="pass --claims-listing FILE", cause="listing")
    assert words.cause_of(listing, runner) == "listing"
    assert words.cause_of(e(needs=["arch"], reason="something else"), runner) == "other"


def test_a_skip_says_its_cause_as_a_field_not_in_its_words():
    """A skip whose text mentions CUDA but whose cause is the weights is shown as needing the weights."""
    runner = {"weights": {"available": True}}
    skipped = e(needs=["tok", "weights"], reason="loading on CUDA failed: no weights here", cause="weights")
    assert words.cause_of(skipped, runner) == "weights"
    assert words.cause_of(replace(skipped, cause=None), runner) == "other"
    assert words.cause_of(e(needs=["arch"], reason="needs a CUDA GPU"), runner) == "other"


def test_the_claims_that_hold_say_how_many_reproduced_the_chapters_figure():
    """ "31 claims hold" is followed by how many this runner reproduced and how the rest hold: the
    chapter's arithmetic or a bar is no reproduction of the figure (found by a new user)."""
    from claimcheck.pages.manuscript_view import figure_state

    entries = [
        e(id="C03", outcome=oc.PASSED, stated="36", unit="KiB/token", tolerance="printed", measured=36.0),
        e(
            id="C04",
            outcome=oc.PASSED,
            stated="5",
            unit="x",
            tolerance="exact",
            measured=5.0,
            formula="a / b",
        ),
        e(id="C05", outcome=oc.PASSED, stated="60", unit="x", tolerance=">=10", measured=22.1),
        e(id="C06", outcome=oc.NEAR_TIE, stated="9", unit="x", tolerance=">=1", measured=9.0),
        e(id="C07", outcome=oc.FAILED, stated="2", unit="x", tolerance=">=10", measured=1.0),
    ]
    said = words.outcome_sentences(entries, form_of=figure_state)
    assert said[:2] == [
        "4 claims hold on this runner (1 only up to a near-tie: C06).",
        "Of these, 2 reproduce the chapter's figure here; 1 holds by the chapter's arithmetic (C04); "
        "1 holds by its bar, not the figure (C05).",
    ]
    assert said[2] == "1 does not hold here: C07."
    reproduced = [x for x in entries if x.id in ("C03", "C06")]
    assert words.outcome_sentences(reproduced, form_of=figure_state) == [
        "2 claims hold on this runner (1 only up to a near-tie: C06)."
    ]  # every one reproduced its figure: nothing more to say


def test_one_sentence_per_outcome_with_counted_causes():
    entries = [
        e(id="C1", outcome=oc.PASSED),
        e(id="C2", outcome=oc.PASSED),
        e(id="C3", outcome=oc.NEAR_TIE),
        e(id="C4", outcome=oc.FAILED),
        e(id="C5", outcome=oc.INCONCLUSIVE),
        e(id="C6", outcome=oc.ERROR),
        e(id="C7", outcome=oc.SKIPPED, needs=["weights"]),
        e(id="C8", outcome=oc.SKIPPED, needs=["weights"]),
        e(id="C9", outcome=oc.SKIPPED, needs=["gpu"]),
        e(id="C10", outcome=oc.NOT_RUN, selected=False),
        e(id="C11", outcome=oc.NOT_RUN, reason="not-run: no test yet"),
    ]
    s = words.outcome_sentences(entries, {"weights": {"available": False}})
    assert s[0] == "3 claims hold on this runner (1 only up to a near-tie: C3)."
    assert s[1] == "1 does not hold here: C4."
    assert "undecided" in s[2] and "C5" in s[2] and "broken" in s[3] and "C6" in s[3]
    assert s[4] == "3 cannot be checked here: 2 need the pretrained weights (C7, C8); 1 needs a GPU (C9)."
    assert s[5] == "2 were not run: 1 not selected in this run (C10); 1 without a test yet (C11)."


def test_reason_of_a_failed_claim_is_what_its_check_found():
    """The verdict's reason of the test that failed the claim, not pytest's message, even when another
    test of the claim ran after it."""
    from claimcheck.report import ResultCollector

    pytest_message = (
        "C05 does not hold: t\n  chapter: 60 x\n  measured: 3.2 x\n  tolerance: >=10 -> 3.2 < 10 "
        "(short by 6.8)\n  hardware: ..."
    )
    found = ClaimEntry("C05", "C05", verdict=oc.FAILED, verdict_reason="3.2 < 10 (short by 6.8)")
    collector = ResultCollector()
    collector.add(replace(found, outcome=oc.FAILED, reason=pytest_message, tests=["t.py::test_a"]))
    passed = ClaimEntry("C05", "C05", outcome=oc.PASSED, verdict=oc.PASSED, tests=["t.py::test_b"])
    collector.add(passed)
    (row,) = collector.rows([])
    assert words.reason_words(row) == "3.2 < 10 (short by 6.8)"
    assert words.reason_words(e(outcome=oc.FAILED, reason=pytest_message)) == "C05 does not hold: t"
    assert words.reason_words(e(outcome=oc.FAILED, reason=pytest_message, verdict_reason="V")) == "V"
    assert (
        words.reason_words(e(outcome=oc.PASSED, details={"caveat": "on random weights"}))
        == "on random weights"
    )


def test_long_reasons_show_their_first_sentence():
    head, rest = words.first_sentence(
        "needs the pretrained GPT-2 weights, which this runner does not have: no folder "
        "or hub id given (--claims-weights); 'gpt2' is not in the Hugging Face cache "
        "(looked up offline). Provide them with --claims-weights DIR."
    )
    assert head == "needs the pretrained GPT-2 weights, which this runner does not have"
    assert rest.startswith("no folder or hub id given") and rest.endswith("DIR.")
    short = "uncached total time grows no faster than cached: n^1.21 vs n^1.02"  # a condition: shown whole
    assert words.first_sentence(short) == (short, "")
    assert words.first_sentence("one\ntwo") == ("one", "two")


def test_the_runner_in_one_line():
    line = words.runner_line(
        {
            "cpu": "AMD EPYC",
            "machine": "x86_64",
            "cpu_capability": "AVX512",
            "cores": 2,
            "ram_bytes": 24 * 2**30,
            "gpu": {"name": "NVIDIA H100", "memory_bytes": 80 * 2**30},
            "python": "3.11.7",
            "torch": "2.13.0",
            "transformers": "5.24.0",
            "torch_threads": 2,
        }
    )
    assert line == (
        "AMD EPYC (x86_64, AVX512), 2 cores, 24 GiB RAM, GPU NVIDIA H100 80 GiB; Python 3.11.7, "
        "torch 2.13.0, transformers 5.24.0, 2 threads"
    )
    assert "no GPU" in words.runner_line({}) and words.runner_line({}).startswith("unknown CPU")


def test_a_locator_is_bracketed_once():
    from claimcheck.pages.words import quoted

    assert quoted("总代价随长度平方增长") == "「总代价随长度平方增长」"
    assert quoted("「第一个字出来要多久」") == "「第一个字出来要多久」"


def test_a_runner_in_two_lines_for_the_matrix_header():
    gpu = {
        "cpu": "Intel Xeon",
        "cpu_capability": "AVX2",
        "cores": 16,
        "torch": "2.13.0+cu128",
        "torch_threads": 16,
        "gpu": {"name": "NVIDIA H200", "memory_bytes": 141 * 2**30, "count": 1},
        "runner_profile": "ci-gpu",
        "weights": {"available": True},
        "load": {"busy": False, "why": ""},
    }
    assert words.runner_brief(gpu, {"size_profile": "full"}) == [
        "Intel Xeon (AVX2), 16 cores, GPU NVIDIA H200 141 GiB, torch 2.13.0+cu128",
        "16 threads, profile full, runner ci-gpu, GPT-2 weights",
    ]
    assert words.runner_brief({}) == ["unknown CPU, no GPU"]  # an old file without a fingerprint


def test_the_full_fingerprint_leaves_out_empty_fields_and_rounds_floats():
    from claimcheck.fingerprint import fingerprint_lines

    lines = fingerprint_lines(
        {"cpu": "AMD EPYC", "cores": 2, "load": {"probe_s": 0.0013913990001128695, "why": "", "busy": True}},
        {"size_profile": "quick"},
    )
    assert "load.probe_s: 0.001391" in lines and "load.busy: True" in lines
    assert not [ln for ln in lines if ln.startswith("load.why")]


def test_an_interrupted_run_says_what_it_did_not_reach():
    from claimcheck.results import Carried, ClaimsDoc, Interrupted

    kept = e(
        id="C02",
        outcome=oc.PASSED,
        carried=Carried("T1", "claims.json", "not reached: the run was interrupted"),
    )
    cut = e(id="C03", outcome=oc.NOT_RUN, reason="interrupted: the run was ended (SIGTERM) before ...")
    other = e(
        id="C04", outcome=oc.PASSED, carried=Carried("T1", "claims.json")
    )  # not selected: carried as such
    doc = ClaimsDoc(
        claims=[e(id="C01", outcome=oc.PASSED), kept, cut, other],
        interrupted=Interrupted("SIGTERM", ["C01"], ["C02", "C03"]),
    )
    assert words.interrupted_words(doc) == (
        "interrupted (SIGTERM): 1 claim decided before the end; 2 not reached (C02, C03): C02 shows the "
        "row of the run of T1, marked as carried, not decided by this run; C03 is not run."
    )
    said = words.outcome_sentences(doc.claims)
    assert "1 row comes from an earlier run (T1): this run was interrupted before it reached them." in said
    assert "1 row comes from an earlier run (T1): this run did not select them." in said
    assert any("1 not reached before the run was interrupted (C03)" in s for s in said)
    assert words.interrupted_words(ClaimsDoc()) == ""
