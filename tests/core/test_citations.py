"""Citations in the core: a quote's figure against its source's at the quote's printed precision,
the book's checks of ``cites`` and of formulas naming another chapter, what-if's re-judged quotes,
and the one wording of drift for a quote whose source changed."""

import pytest

from claimcheck.book import book_issues, citation_issues, cite, quotes_figure
from claimcheck.editor import requoted
from claimcheck.formula import FormulaError, evaluate_claim, parse
from claimcheck.manuscript import Manuscript, citation_check, drift_words
from claimcheck.registry import load_registry
from claimcheck.results import ClaimEntry
from tests.claimkit import claim_toml


@pytest.mark.parametrize(
    "quote, quote_unit, source, source_unit, same",
    [
        ("500", "MB", "497.76", "MB", True),  # the quote rounds: its trailing zeros are its precision
        ("500", "MB", "700", "MB", False),
        ("498", "MB", "497.76", "MB", True),
        ("497", "MB", "497.76", "MB", False),
        ("0.5", "GB", "497.76", "MB", True),  # units differ: the source is read in the quote's unit
        ("36", "KiB", "36864", "B", True),
        ("0.10", "", "0.104", "", True),
        ("0.10", "", "0.106", "", False),
    ],
)
def test_a_quote_is_its_source_at_the_quotes_printed_precision(quote, quote_unit, source, source_unit, same):
    assert quotes_figure(quote, quote_unit, source, source_unit) is same


def registry(tmp_path, chapter: str, claims: str, manuscript: str = ""):
    folder = tmp_path / "claims" / chapter
    folder.mkdir(parents=True)
    head = f'[chapter]\nid = "{chapter}"\n' + (f'manuscript = "{chapter}.md"\n' if manuscript else "")
    (folder / "claims.toml").write_text(head + claims, encoding="utf-8")
    if manuscript:
        (folder / f"{chapter}.md").write_text(manuscript, encoding="utf-8")
    return load_registry(folder / "claims.toml")


SOURCE = claim_toml("C10", stated="497.76", unit="MB", locator="497.76 MB")


def quote(cites: str, stated: str = "500", unit: str = "MB", extra: str = "") -> str:
    return claim_toml(
        "C05", stated=stated, unit=unit, locator=f"about {stated} {unit}", extra=f'cites = "{cites}"\n{extra}'
    )


def test_cite_says_each_status_naming_both_chapters_and_figures(tmp_path):
    ch15 = registry(tmp_path, "ch15", SOURCE)
    book = {"ch15": ch15}
    for cites, stated, unit, status in [
        ("ch15:C10", "500", "MB", "ok"),
        ("ch15:C10", "700", "MB", "drift"),
        ("ch15:C10", "5", "s", "unit"),
        ("ch15:C11", "500", "MB", "unknown"),
        ("ch19:C03", "500", "MB", "not-in-book"),
        ("ch19", "500", "MB", "not-in-book"),
    ]:
        claim = load_registry(write(tmp_path, quote(cites, stated, unit))).claims["C05"]
        got = cite(claim, book)
        assert got.status == status, (cites, stated, unit)
    drifted = cite(load_registry(write(tmp_path, quote("ch15:C10", "700"))).claims["C05"], book)
    assert drifted.words == (
        "ch16:C05 says 700 MB, quoting ch15:C10, which now says 497.76 MB: drifted from ch15:C10"
    )


def write(tmp_path, claims: str):
    path = tmp_path / "ch16" / "claims.toml"
    path.parent.mkdir(exist_ok=True)
    path.write_text('[chapter]\nid = "ch16"\n' + claims, encoding="utf-8")
    return path


def test_a_bad_citation_is_a_registry_problem_naming_the_field(tmp_path):
    reg = load_registry(write(tmp_path, quote("Ch15-C10")))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C05", "cites")]
    assert "bad citation 'Ch15-C10'" in reg.issues[0].message


def test_citation_issues_name_both_chapters_and_never_a_chapter_not_in_the_book(tmp_path):
    ch15 = registry(tmp_path, "ch15", SOURCE)
    ch16 = registry(tmp_path, "ch16", quote("ch15:C01") + claim_toml("C06", extra='cites = "ch14"'))
    (problem,) = citation_issues([ch15, ch16])
    assert "claim ch16:C05: field 'cites'" in problem
    assert "cites ch15:C01, but chapter ch15 declares no claim C01" in problem
    ch17 = registry(tmp_path, "ch17", quote("ch15"))
    assert "is a chapter of this book: name the claim it quotes (ch15:ID)" in citation_issues([ch15, ch17])[0]


def test_a_quote_of_itself_a_ring_of_quotes_and_an_invalid_source_are_registry_problems(tmp_path):
    ring = claim_toml("C10", stated="500", unit="MB", locator="500 MB", extra='cites = "ch16:C05"')
    bad = claim_toml("C11", stated="500", unit="flurb", locator="500 flurb")
    ch15 = registry(tmp_path, "ch15", ring + bad)
    ch16 = registry(tmp_path, "ch16", quote("ch15:C10") + claim_toml("C06", extra='cites = "ch16:C06"'))
    ch17 = registry(tmp_path, "ch17", quote("ch15:C11"))
    book = {"ch15": ch15, "ch16": ch16, "ch17": ch17}
    statuses = {c.key: cite(c, book) for reg in book.values() for c in reg.claims.values() if c.cites}
    assert {k: c.status for k, c in statuses.items()} == {
        "ch15:C10": "circular",
        "ch16:C05": "circular",
        "ch16:C06": "circular",
        "ch17:C05": "invalid",
    }
    assert all(c.registry_problem and c.failed for c in statuses.values())
    assert "whose citations lead back to ch16:C06" in statuses["ch16:C06"].words
    assert (
        "ch17:C05 cites ch15:C11, which its chapter's registry declares but cannot load"
        in statuses["ch17:C05"].words
    )
    assert len(citation_issues(list(book.values()))) == 4


def test_a_formula_may_read_another_chapters_values(tmp_path):
    f = parse("2 * ch15:C10.stated + C25.a_input")
    assert f.names == ("ch15:C10.stated", "C25.a_input")
    ch15 = registry(tmp_path, "ch15", SOURCE)
    twice = claim_toml(
        "C07", stated="995.52", unit="MB", extra='formula = "2 * ch15:C10.stated"\nprecision = "exact"'
    )
    ch16 = registry(tmp_path, "ch16", twice)
    assert not ch16.issues  # another chapter's value is the book's to resolve, not the registry's
    claim = ch16.claims["C07"]
    assert evaluate_claim(claim, ch16, {"ch15": ch15}).value.lo == pytest.approx(995.52)
    with pytest.raises(FormulaError, match="no value named 'ch15:C10.stated'"):
        evaluate_claim(claim, ch16)
    assert citation_issues([ch15, ch16]) == []
    (problem,) = citation_issues([ch16])
    assert "'ch15:C10.stated' names chapter 'ch15', which is not in this book" in problem
    wrong = registry(tmp_path, "ch17", twice.replace("C10.stated", "C10.read_s"))
    assert "claim ch15:C10 has no value 'read_s'" in citation_issues([ch15, wrong])[0]


def test_what_if_re_judges_every_claim_that_quotes_a_revised_one(tmp_path):
    ch15 = registry(tmp_path, "ch15", SOURCE)
    ch16 = registry(tmp_path, "ch16", quote("ch15:C10"))
    book = {"ch15": ch15, "ch16": ch16}
    assert [c.status for c in requoted([("ch15:C10", "501")], book)["ch15:C10"]] == ["ok"]
    (c,) = requoted([("ch15:C10", "700")], book)["ch15:C10"]
    assert c.key == "ch16:C05" and c.status == "drift" and "which now says 700 MB" in c.words
    assert ch15.claims["C10"].stated == "497.76"  # the book itself is left as it was
    assert requoted([("ch16:C05", "700")], book) == {}


def test_what_if_keeps_every_revision_of_one_chapter(tmp_path):
    """Two revised claims of one chapter: each quote is judged against its own revised figure, not
    against a copy of the chapter that holds only the last revision."""
    both = SOURCE + claim_toml("C11", stated="0.93", unit="s", locator="0.93 s")
    ch15 = registry(tmp_path, "ch15", both)
    ch16 = registry(
        tmp_path,
        "ch16",
        quote("ch15:C10")
        + claim_toml("C06", stated="0.9", unit="s", locator="0.9 s", extra='cites = "ch15:C11"'),
    )
    quoted = requoted([("ch15:C10", "700"), ("ch15:C11", "0.91")], {"ch15": ch15, "ch16": ch16})
    assert [(c.key, c.status) for c in quoted["ch15:C10"]] == [("ch16:C05", "drift")]
    assert [(c.key, c.status) for c in quoted["ch15:C11"]] == [("ch16:C06", "ok")]


def test_a_drifted_quote_is_said_at_its_line_with_both_figures(tmp_path):
    ch15 = registry(tmp_path, "ch15", SOURCE.replace('"497.76"', '"700"'))
    text = "One line.\nThe weights take about 500 MB here.\n"
    ch16 = registry(tmp_path, "ch16", quote("ch15:C10"), manuscript=text)
    claim = ch16.claims["C05"]
    q = citation_check(cite(claim, {"ch15": ch15}), claim, Manuscript.from_text(text))
    assert (q.status, q.line, q.manuscript, q.registry, q.source) == ("drift", 2, "500", "700 MB", "ch15:C10")
    entry = ClaimEntry("ch16:C05", "C05", unit="MB", details={"drift": {"quotes": [q.as_dict()]}})
    assert drift_words(entry) == [
        "line 2: the text says 500 MB, quoting ch15:C10, which says 700 MB: drifted from ch15:C10"
    ]


def test_two_registries_of_one_chapter_id_are_one_problem_each_after_the_first(tmp_path):
    regs = []
    for folder in ("a/ch15", "b/ch15", "c/ch16", "d/ch15"):
        path = tmp_path / folder / "claims.toml"
        path.parent.mkdir(parents=True)
        path.write_text(claim_toml("C01"), encoding="utf-8")
        regs.append(load_registry(path))
    problems = book_issues(regs)
    assert [p.split(":")[0] for p in problems] == [regs[1].path, regs[3].path]
    assert f"is also the chapter of {regs[0].path} ([chapter] id" in problems[0]
    assert problems[1].endswith("so that ch15:C10 and ch16:C10 stay apart")


def test_a_citation_may_name_a_value_of_a_claim(tmp_path):
    """881, the id of " much" inside ch15:C29, could not be a citation (``cites = "ch15:C29"``
    compared the headline figure); ``cites = "ch15:C29.much"`` names the value."""
    from claimcheck.pages.claims_view import citation_words

    source = claim_toml(
        "C29", stated="3", unit="token", locator="3 个 token", extra='values = { much = "881" }'
    )
    ch15 = registry(tmp_path, "ch15", source)
    book = {"ch15": ch15}
    statuses = {}
    for cites, stated in (("ch15:C29.much", "881"), ("ch15:C29.much", "882"), ("ch15:C29.nope", "881")):
        claim = load_registry(write(tmp_path, quote(cites, stated, ""))).claims["C05"]
        statuses[(cites, stated)] = cite(claim, book)
    ok, drifted, unknown = statuses.values()
    assert (ok.status, ok.figure_printed) == ("ok", "881")
    assert (
        drifted.words
        == "ch16:C05 says 882, quoting ch15:C29.much, which now says 881: drifted from ch15:C29.much"
    )
    assert unknown.status == "unknown"
    ch16 = load_registry(write(tmp_path, quote("ch15:C29.much", "881", "")))
    assert citation_issues([ch15, ch16]) == []  # a value of a claim of the book: no problem
    entry = ClaimEntry.from_dict(
        {"id": "C05", "key": "ch16:C05", "chapter": "ch16", "outcome": "passed", "cites": "ch15:C29.much"}
    )
    assert citation_words([entry], "ch16", {"ch15", "ch16"}) == ["C05 quotes ch15:C29.much"]
    # a run of ch16 alone: its report does not hold ch15, which is no reason to say the book lacks it
    assert citation_words([entry], "ch16", {"ch16"}) == [
        "C05 quotes ch15:C29.much (source not in this report)"
    ]


def test_a_quote_is_written_as_every_value_is(tmp_path):
    """A quote of a percent said "says 99.2 percent, quoting ch15:C30 (99.16 percent)"."""
    ch15 = registry(tmp_path, "ch15", claim_toml("C30", stated="99.16", unit="percent", locator="99.16%"))
    claim = load_registry(write(tmp_path, quote("ch15:C30", "99.2", "percent"))).claims["C05"]
    assert cite(claim, {"ch15": ch15}).words == "ch16:C05 says 99.2%, quoting ch15:C30 (99.16%)"
