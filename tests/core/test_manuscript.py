"""Drift and the number audit (claimcheck.manuscript), on our own manuscript and registry.

``tests/data/manuscript_zh.md`` is written for these tests in the book's format (Chinese prose,
myriad units, exponents, percentages, fractions, thousands separators, full-width digits, a table
whose rows are glued to their labels, a code listing); ``tests/data/ms_registry.toml`` binds it.
The chapter itself is checked too where this checkout has it (``../shared/seeds``).
"""

import time
from pathlib import Path

import pytest

from claimcheck.manuscript import Manuscript, ManuscriptError, check_manuscript
from claimcheck.registry import load_registry
from tests.claimkit import CHAPTER_MISSING, CHAPTER_TEXT

DATA = Path(__file__).resolve().parents[1] / "data"
MS = DATA / "manuscript_zh.md"
REG = DATA / "ms_registry.toml"
CHAPTER = CHAPTER_TEXT
CHAPTER_REGISTRY = Path(__file__).resolve().parents[2] / "claims" / "ch15" / "claims.toml"


@pytest.fixture(scope="module")
def registry():
    reg = load_registry(REG)
    assert reg.issues == []
    return reg


def check_text(text, reg, markdown=True):
    return check_manuscript(Manuscript.from_text(text, "copy.md", markdown=markdown), reg)


def drifted(check):
    return {d.claim_id: d for d in check.drifted}


def test_our_manuscript_has_no_drift_and_full_coverage(registry):
    check = check_manuscript(MS, registry)
    assert check.drifted == [] and check.audit.unbound() == []
    assert check.audit.coverage == 1.0 and check.ok
    a = check.audit
    assert (a.total, a.count("bound"), a.count("waived")) == (34, 22, 12)
    # stated in words: nothing to compare, not a failure
    assert {d.claim_id: d.status for d in check.drifts}["T11"] == "ok"


def _mutations(check):
    """Each number of the manuscript with its last digit changed: (piece, changed text)."""
    text = check.manuscript.text
    for p in check.audit.pieces:
        seg = text[p.start : p.end]
        i = max(k for k, ch in enumerate(seg) if ch.isdigit())
        if seg[i] in "⁰¹²³⁴⁵⁶⁷⁸⁹":
            new = "⁸" if seg[i] != "⁸" else "³"
        else:
            new = "7" if seg[i] not in "7７" else "3"
        yield p, text[: p.start] + seg[:i] + new + seg[i + 1 :] + text[p.end :]


def test_changing_any_one_number_drifts_exactly_the_claims_that_quote_it(registry):
    base = check_manuscript(MS, registry)
    for piece, text in _mutations(base):
        check = check_text(text, registry)
        got = drifted(check)
        want = set(piece.by) if piece.status == "bound" else set()
        assert set(got) == want, (piece, sorted(got))
        for d in got.values():
            [q] = d.problems()
            assert (q.status, q.line) == ("drift", piece.line)
            assert q.manuscript != q.registry and q.registry  # both values, for the report
        assert check.audit.coverage == 1.0  # the changed number is still bound (or waived)
        ranges = {w.label for w in registry.waivers if w.until}
        if piece.status == "waived" and not set(piece.by) & ranges:
            assert check.audit.warnings  # a waived number changed: flagged for a second look


def test_drift_reports_line_and_both_values(registry):
    check = check_text(MS.read_text(encoding="utf-8").replace("读比写快 76.1 倍", "读比写快 58 倍"), registry)
    [q] = drifted(check)["T03"].problems()
    assert (q.line, q.manuscript, q.registry, q.name) == (7, "58", "76.1", "stated")
    assert "[58]" in q.context


def test_a_rewritten_sentence_is_not_found_for_that_claim_only(registry):
    check = check_text(MS.read_text(encoding="utf-8").replace("熵只有 0.42 比特", "熵很低"), registry)
    assert set(drifted(check)) == {"T09"}
    assert drifted(check)["T09"].status == "not-found"
    assert [p.text for p in check.audit.unbound()] == []  # its number is gone from the text


def test_a_new_number_is_listed_with_line_and_context(registry):
    text = MS.read_text(encoding="utf-8").replace("即可复现。", "即可复现，大约要 42 秒。")
    check = check_text(text, registry)
    [p] = check.audit.unbound()
    assert (p.text, p.line) == ("42", 32) and "[42]" in p.context
    assert check.audit.coverage == pytest.approx(34 / 35) and check.audit.failed and not check.ok


def test_a_locator_found_twice_is_ambiguous(registry):
    text = MS.read_text(encoding="utf-8") + "\n再说一遍：读比写快 76.1 倍。\n"
    d = drifted(check_text(text, registry))
    assert d["T03"].status == "ambiguous" and d["T03"].problems()[0].lines == (7, 34)


def test_markdown_markup_does_not_hide_numbers(registry):
    text = MS.read_text(encoding="utf-8")
    assert "**读 3120 token/s**" in text
    assert check_text(text, registry).ok
    assert "T01" in drifted(check_text(text.replace("**读", "**读**"), registry, markdown=False))


def test_missing_manuscript_is_a_clear_error(tmp_path, registry):
    with pytest.raises(ManuscriptError, match="cannot read the manuscript"):
        check_manuscript(tmp_path / "nope.md", registry)
    bad = tmp_path / "latin1.txt"
    bad.write_bytes("déjà".encode("latin-1"))
    with pytest.raises(ManuscriptError, match="not UTF-8"):
        check_manuscript(bad, registry)
    for blank in ("", "\ufeff \n\n"):
        empty = tmp_path / "empty.md"
        empty.write_text(blank, encoding="utf-8")
        with pytest.raises(
            ManuscriptError, match=r"empty.md: the manuscript is empty \(\d+ bytes, no text\)"
        ):
            check_manuscript(empty, registry)


# --- registry fields ----------------------------------------------------------------------------
BASE = """[[claims]]
id = "T01"
title = "t"
stated = "5"
unit = "x"
locator = "{locator}"
tolerance = "printed"
needs = ["text"]
{extra}
"""


def issues(tmp_path, locator="快 5 倍", extra=""):
    f = tmp_path / "claims.toml"
    f.write_text(BASE.format(locator=locator, extra=extra), encoding="utf-8")
    return [str(i) for i in load_registry(f).issues]


def test_quotes_are_validated(tmp_path):
    assert issues(tmp_path, extra='quotes = { stated = "又快 5 倍" }') == []
    [msg] = issues(tmp_path, extra='quotes = { staed = "又快 5 倍" }')
    assert "claim T01: field 'quotes'" in msg and "did you mean 'stated'" in msg
    [msg] = issues(tmp_path, extra='quotes = { stated = "又快 倍" }')
    assert "prints no number" in msg
    [msg] = issues(tmp_path, extra=f'quotes = {{ stated = "{"长" * 41} 5" }}')
    assert "<= 40" in msg


def test_a_locator_with_several_numbers_must_contain_the_value(tmp_path):
    [msg] = issues(tmp_path, locator="3 倍到 4 倍")
    assert "field 'locator'" in msg and "cannot tell which number it binds" in msg
    assert issues(tmp_path, locator="3 倍到 5 倍") == []


def test_waivers_are_validated_with_file_waiver_and_field(tmp_path):
    extra = (
        '[[waivers]]\nlocator = "第 9 章"\n\n[[waivers]]\nlocator = "第 9 章"\nreason = "x"\nnumber = ["9"]\n\n'
        '[[waivers]]\nlocator = "a¦b"\nreason = "x"\n'
    )
    msgs = issues(tmp_path, extra="\n" + extra)
    assert any("field 'waivers[1].reason': missing required field" in m for m in msgs)
    assert any("field 'waivers[2].number'" in m and "did you mean 'numbers'" in m for m in msgs)
    assert any("field 'waivers[3].locator'" in m and "¦" in m for m in msgs)


def test_each_waiver_problem_and_warning_is_one_line_naming_it(tmp_path):
    waivers = [
        ("不存在 5", "gone", ""),
        ("处 12 个", "twice", ""),
        ("丙说 7 次", "changed", 'numbers = ["8"]'),
        ("甲处 12 个", "no end", 'until = "没有的尾巴"'),
        ("乙处 12 个", "a range", 'until = "结尾"'),
    ]
    toml = '[chapter]\nid = "w"\ntitle = "waivers"\n' + "".join(
        f'\n[[waivers]]\nlocator = "{loc}"\nreason = "{why}"\n{extra}\n' for loc, why, extra in waivers
    )
    (tmp_path / "claims.toml").write_text(toml, encoding="utf-8")
    text = "甲处 12 个。\n乙处 12 个。\n丙说 7 次，结尾。\n"
    audit = check_manuscript(
        Manuscript.from_text(text, "w.txt"), load_registry(tmp_path / "claims.toml")
    ).audit
    assert audit.problems == [
        "waivers[1] ('不存在 5': gone): locator not found in the manuscript",
        "waivers[2] ('处 12 个': twice): locator matches lines 1, 2: lengthen it",
        "waivers[4] ('甲处 12 个': no end): its end '没有的尾巴' is not found after line 1",
    ]
    assert audit.warnings == [
        "waivers[3] ('丙说 7 次': changed): line 3 now prints 7, the waiver lists 8: is it still not a claim?"
    ]
    assert [(p.line, p.status, p.by) for p in audit.pieces] == [
        (1, "waived", ("waivers[4]",)),
        (2, "waived", ("waivers[5]",)),
        (3, "waived", ("waivers[3]", "waivers[5]")),
    ]


# --- the chapter, where this checkout has it ---------------------------------------------------
chapter = pytest.mark.skipif(not CHAPTER.is_file(), reason=CHAPTER_MISSING)


@chapter
def test_chapter_has_no_drift_and_every_number_is_bound_or_waived():
    t0 = time.perf_counter()
    check = check_manuscript(CHAPTER, load_registry(CHAPTER_REGISTRY))
    assert time.perf_counter() - t0 < 10
    assert [d.claim_id for d in check.drifted] == []
    assert check.audit.unbound() == [] and check.audit.problems == [] and check.audit.warnings == []
    assert check.ok


@chapter
def test_chapter_one_changed_number_drifts_exactly_its_claims():
    reg = load_registry(CHAPTER_REGISTRY)
    base = check_manuscript(CHAPTER, reg)
    for piece, text in _mutations(base):
        got = drifted(check_text(text, reg, markdown=False))
        assert set(got) == (set(piece.by) if piece.status == "bound" else set()), (piece, sorted(got))
        assert all(q.line == piece.line for d in got.values() for q in d.problems())


@chapter
def test_chapter_repeated_160_times_is_checked_in_under_2_s():
    """Linear in the manuscript's length (line starts indexed once; a locator that starts with a
    number tried only at numbers; the audit a sweep): 160 copies were 17.8 s, quadratic."""
    reg = load_registry(CHAPTER_REGISTRY)
    ms = Manuscript.from_text(CHAPTER.read_text(encoding="utf-8") * 160, "long.txt")
    t0 = time.process_time()
    check = check_manuscript(ms, reg)
    assert time.process_time() - t0 <= 2.0
    assert len(check.manuscript.numbers) == 160 * len(check_manuscript(CHAPTER, reg).manuscript.numbers)
    assert len(drifted(check)["C18"].problems()[0].lines) == 160  # every copy found, on its own line


def test_line_of_counts_lines():
    ms = Manuscript.from_text("a\nb 1\n\nc 22\n", "t.txt")
    assert [ms.line_of(i) for i in range(len(ms.text) + 1)] == [
        ms.text.count("\n", 0, i) + 1 for i in range(len(ms.text) + 1)
    ]
    assert [(n.text, n.line) for n in ms.numbers] == [("1", 2), ("22", 4)]


@chapter
def test_a_full_width_comma_is_named_not_a_rewritten_sentence():
    """Issue 18: "３６，８６４" made C18 "not-found ... rewritten or removed"; the message says what it read."""
    text = CHAPTER.read_text(encoding="utf-8")
    check = check_text(
        text.replace("= 36864 字节", "= ３６，８６４ 字节"), load_registry(CHAPTER_REGISTRY), markdown=False
    )
    (q,) = drifted(check)["C18"].problems()
    assert q.status == "not-found" and q.line == 54
    assert "read ３６ and ８６４: a full-width comma separates clauses here" in q.message
    assert "rewritten" not in q.message


@pytest.mark.parametrize("printed", ["5.8*10^-6", "5.8e-6", "5.8·10⁻⁶", "5.8 × 10⁻⁶", "5.8⋅10^-6"])
def test_scientific_notation_is_one_number(printed):
    from claimcheck.printed import find_numbers, same_printed

    (n,) = find_numbers(f"最多只差 {printed}——同一个结果")
    assert n.text == printed and n.printed == "5.8e-6" and same_printed("5.8e-6", n)
    (m,) = Manuscript.from_text(
        f"差 **{printed}**。", "t.md", markdown=True
    ).numbers  # Markdown's * as markup only
    assert m.printed == "5.8e-6"


@pytest.mark.parametrize("markdown", [True, False], ids=["markdown", "plain"])
def test_a_locator_may_hold_a_pipe_and_any_markup_of_the_text(markdown):
    """A locator quoting the text verbatim is found, ``|`` included: Markdown reads ``*``, backquote
    and ``|`` as spaces in the text, and now in the locator too (it was searched for literally, so
    ``endoftext|> 的 50256`` was never found in a .md chapter)."""
    from claimcheck.manuscript import check_quote

    text = "特殊符号 <|endoftext|> 的 50256 号。表里：| 512 | 0.086 s |。加粗的 **60.6** 倍。"
    ms = Manuscript.from_text(text, "t.md" if markdown else "t.txt", markdown=markdown)
    for locator, printed in (
        ("endoftext|> 的 50256", "50256"),
        ("| 512 | 0.086 s", "0.086"),
        ("**60.6** 倍", "60.6"),
    ):
        checks = check_quote(ms, "C01", "stated", locator, printed)
        assert [(c.status, c.manuscript) for c in checks] == [("ok", printed)], (locator, checks)
    # Markdown only: the same places without the markup (the markup reads as a space)
    without = check_quote(ms, "C01", "stated", "endoftext > 的 50256", "50256")
    assert [c.status for c in without] == (["ok"] if markdown else ["not-found"])


def test_a_waiver_problem_fails_the_audit_at_full_coverage():
    from claimcheck.manuscript import Audit, Piece

    bound = Piece("36", 0, 2, 1, "bound", ("C03",), "36 KiB")
    assert not Audit([bound]).failed and Audit([bound]).coverage == 1.0
    assert Audit([bound], problems=["waiver 'year': locator not found"]).failed
    assert not Audit([bound], warnings=["waiver 'year' now prints 2027"]).failed  # a warning does not fail
    unbound = Piece("7", 3, 4, 1, "unbound", (), "7 x")
    assert Audit([bound, unbound]).failed and Audit([bound, unbound]).coverage == 0.5
