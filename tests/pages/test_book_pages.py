"""The pages of a book of two chapters whose claim ids overlap (ch15 and our toy chapter
tests/data/book/ch90), built from a hand-made ``claims.json`` (tests/pages/conftest.py
``build_book``): chips under their chapter, each chapter's own profile, one link per manuscript
line, and a failing claim stated without a number marked at its words."""

import html
import json
import re

from claimcheck.pages import claims_page, load_document, manuscript_checks, publish
from claimcheck.pages.summary import annotations, markdown
from tests.pages.conftest import BOOK_PROFILES


def pages_of(path) -> tuple[str, str]:
    """The claims page and ch90's annotated manuscript of a book run."""
    doc, problems = load_document(path)
    checks, more = manuscript_checks(doc)
    assert problems == more == [] and [c.chapter for c, _ in checks] == ["ch90"]
    claims, manuscript = publish(doc, path, checks)
    return claims.read_text(encoding="utf-8"), manuscript.read_text(encoding="utf-8")


def chips(page: str) -> list[tuple[str, list[str]]]:
    """``[(chapter mark, [chip texts])]`` of the chip strip, in the page's order."""
    strip = page[page.index('<nav class="glance') : page.index("</nav>")]
    groups = re.split(r'<span class="glance-chapter"[^>]*>([^<]+)</span>', strip)
    return [(groups[i], re.findall(r">([^<>]+)</a>", groups[i + 1])) for i in range(1, len(groups), 2)]


def test_the_chips_are_grouped_under_their_chapter(book_run, parse):
    claims, _ = pages_of(book_run)
    groups = chips(claims)
    assert [mark for mark, _ in groups] == ["ch15", "ch90"]
    ch15, ch90 = groups[0][1], groups[1][1]
    assert len(ch15) == 42 and ch15[:2] == ["C01", "C02"] and ch15[-1] == "C37"
    assert ch90 == ["C01", "C02", "C03", "C04", "C05"]  # the ids ch15 has too (and its citation C05)
    # each group is named for assistive technology by its chapter mark; a chip names its key
    groups_html = parse(claims).find("div", class_="glance-group")
    assert [g["aria-labelledby"] for g in groups_html] == ["glance-ch15", "glance-ch90"]
    labels = [a.get("aria-label") for a in parse(claims).find("a") if a.get("href") == "#claim-ch90-C03"]
    assert "ch90:C03 failed" in labels


def test_one_chapter_keeps_one_strip_without_a_chapter_mark(full_run):
    doc, _ = load_document(full_run)
    page = claims_page(doc, full_run.parent)
    strip = page[page.index('<nav class="glance') : page.index("</nav>")]
    assert "glance-chapter" not in strip and "glance-group" not in strip and "by-chapter" not in strip
    assert len(re.findall(r'<a class="o-[^"]+" href="#claim-', strip)) == 42


def test_each_chapters_profile_cell_names_its_own_sizes(book_run):
    claims, _ = pages_of(book_run)
    cells = dict(re.findall(r'<tr id="book-(ch\d+)">.*?<td>([^<]*)</td></tr>', claims, re.S))
    assert cells["ch90"] == "standard: read 512 tokens"  # not ch15's write 96 and batches 1/8/32
    assert "write 96 tokens" in cells["ch15"] and "batches 1/8/32" in cells["ch15"]
    doc, _ = load_document(book_run)
    summary = markdown(doc)  # the summary's chapter table says the same
    assert "| **ch90** Chapter 90: a toy chapter about the KV cache |" in summary
    ch90_line = next(ln for ln in summary.splitlines() if ln.startswith("| **ch90**"))
    assert ch90_line.endswith("| standard: read 512 tokens |")


def test_a_chapter_without_a_recorded_profile_says_its_claims_use_no_sizes(book_run):
    doc = json.loads(book_run.read_text(encoding="utf-8"))
    doc["chapters"][1]["profile"] = {}  # the kit's sizes played no part in ch90's claims
    book_run.write_text(json.dumps(doc), encoding="utf-8")
    claims, _ = pages_of(book_run)
    cells = dict(re.findall(r'<tr id="book-(ch\d+)">.*?<td>([^<]*)</td></tr>', claims, re.S))
    assert cells["ch90"] == "standard (its claims use no model sizes)"


def test_after_a_run_of_some_claims_the_profile_says_whose_claims_it_describes(book_run):
    """A user trial: after `pytest claims/ch15 -k C18` the page showed every row (41 carried) under a
    profile line naming only the sizes C18's tests read, as if it described every row."""
    doc = json.loads(book_run.read_text(encoding="utf-8"))
    earlier = {"from": "2026-12-01T10:00:00Z", "file": "reports/claims.json"}
    for e in doc["claims"]:
        if e["key"] != "ch15:C18":
            e["carried"], e["selected"] = earlier, False
    carried = [e["key"] for e in doc["claims"] if "carried" in e]
    doc["selection"] = {"partial": True, "selected": ["ch15:C18"], "carried": carried, "chapters": ["ch15"]}

    def cells(doc: dict) -> dict[str, str]:
        book_run.write_text(json.dumps(doc), encoding="utf-8")
        claims, _ = pages_of(book_run)
        found = re.findall(r'<tr id="book-(ch\d+)">.*?<td>([^<]*)</td></tr>', claims, re.S)
        return {chapter: html.unescape(said) for chapter, said in found}

    ch15, ch90 = BOOK_PROFILES["ch15"]["description"], BOOK_PROFILES["ch90"]["description"]
    kept = "41 rows carried from an earlier standard run"
    assert cells(doc) == {
        "ch15": f"{ch15} (what this run's claims read; {kept})",
        "ch90": f"{ch90} (what an earlier run's claims read)",  # a chapter this run did not collect
    }
    assert f"{ch15} (what this run's claims read; {kept})" in markdown(load_document(book_run)[0])
    doc["chapters"][0]["profile"] = {}  # C18's test read no kit size
    assert cells(doc)["ch15"] == f"standard (this run's claims use no model sizes; {kept})"
    for e in doc["claims"]:  # no earlier report: the rows this run did not select are not run
        e.pop("carried", None)
    doc["selection"]["carried"] = []
    assert cells(doc)["ch15"] == "standard (this run's claims use no model sizes)"


def test_one_link_per_manuscript_line(book_run):
    claims, manuscript = pages_of(book_run)
    # ch90's C01 binds four numbers on two lines: 1024 (line 7), then 1024, 36 and 36 on line 8
    c01 = claims[claims.index('id="claim-ch90-C01"') :]
    links = re.findall(r'<a href="manuscript.html#(\w+)">L(\d+)</a>', c01[: c01.index("</tbody>")])
    assert [line for _, line in links] == ["7", "8"]
    # each goes to the claim's first number on its line
    line8 = manuscript[manuscript.index('id="L8"') : manuscript.index('id="L9"')]
    firsts = re.findall(r'class="num st-arithmetic" id="(n\d+)"', line8)  # C01 is arithmetic, not held
    assert links[1][0] == firsts[0] and len(firsts) == 3


def test_a_failed_claim_stated_without_a_number_is_marked_at_its_words_and_counted(book_run, parse):
    claims, manuscript = pages_of(book_run)
    said = parse(manuscript).find("a", class_="said")
    assert len(said) == 1 and said[0]["data-state"] == "failed" and said[0]["data-claims"] == "C03"
    assert said[0]["href"] == "claims.html#claim-ch90-C03"
    assert "C03 failed" in said[0]["title"] and "without a number" in said[0]["title"]
    line12 = manuscript[manuscript.index('id="L12"') : manuscript.index('id="L13"')]
    assert ">the same tokens with</a>" in line12
    # counted in the legend as failing, listed first, and not counted as a number of the text
    assert '<span class="num st-failed">1</span> does not hold here' in manuscript
    top = manuscript[manuscript.index('id="attention"') : manuscript.index('id="text"')]
    assert "line 12: the same tokens with" in top and 'href="#w1"' in top
    assert "8 numbers: 7 bound to claims" in manuscript
    assert "1 claim stated without a number is marked at its words." in manuscript
    # the claims page's row links to it
    c03 = claims[claims.index('id="claim-ch90-C03"') :]
    assert '<a href="manuscript.html#w1">L12</a>' in c03[: c03.index("</tbody>")]


def test_a_claim_stated_without_a_number_that_holds_is_not_marked(tmp_path):
    from tests.pages.conftest import CH90_RESULTS, build_book

    path = build_book(tmp_path / "reports", ch90_results={**CH90_RESULTS, "C03": ("passed", 0, {})})
    _, manuscript = pages_of(path)
    assert 'class="said' not in manuscript and "stated without a number" not in manuscript


def test_a_degenerate_range_reads_exactly(tmp_path):
    from tests.pages.conftest import build_book

    path = build_book(tmp_path / "reports", ch90_tolerances={"C04": "range:2..2"})
    claims, _ = pages_of(path)
    c04 = claims[claims.index('id="claim-ch90-C04"') :]
    row = c04[: c04.index("</tbody>")]
    assert "exactly 2×" in row and "between 2 and 2" not in row
    assert "inside by 0" not in row


def test_claims_whose_words_overlap_share_one_mark(tmp_path):
    """Two failing claims stated without a number whose locators overlap: one mark names both."""
    from claimcheck.manuscript import check_manuscript
    from claimcheck.pages import manuscript_view_of
    from claimcheck.registry import load_registry
    from claimcheck.results import ClaimEntry, ClaimsDoc
    from tests.claimkit import claim_toml

    ms = tmp_path / "ch.md"
    ms.write_text("# A chapter\n\nGreedy decoding writes the same tokens with and without the cache.\n")
    registry = tmp_path / "claims.toml"
    registry.write_text(
        '[chapter]\nid = "chx"\ntitle = "X"\n'
        + claim_toml(
            "C01", stated="0", unit="", locator="the same tokens", tolerance="exact", needs='["arch"]'
        )
        + claim_toml(
            "C02", stated="0", unit="", locator="tokens with and", tolerance="exact", needs='["arch"]'
        )
    )
    reg = load_registry(registry)
    assert reg.issues == []
    check = check_manuscript(ms, reg)
    entries = [ClaimEntry(f"chx:{c}", c, chapter="chx", outcome="failed", stated="0") for c in ("C01", "C02")]
    view = manuscript_view_of(check, ClaimsDoc(claims=entries))
    said = view.sentences
    assert len(said) == 1 and said[0].claims == ["C01", "C02"] and said[0].text == "the same tokens with and"
    assert view.counts["failed"] == 1 and view.numbers == [] and view.by_claim["C02"] == said


def test_carried_rows_say_one_time_theirs_and_which_rows_they_are(book_run):
    """An author's trial: after two runs of one chapter, the page said the rows came from the run of
    22:31:42 in one place and 22:32:13 (the last run, which had carried them too) in another; and the
    book table's "✓ passed 2 ○ not run 40 (2 from an earlier run)" read as 2 of the 40 not run."""
    doc = json.loads(book_run.read_text(encoding="utf-8"))
    measured, last = "2026-12-05T22:31:42Z", "2026-12-05T22:32:13Z"
    ch15 = [e for e in doc["claims"] if e["chapter"] == "ch15"]
    kept = [e for e in ch15 if e["outcome"] == "passed"][:2]
    for e in ch15:
        if e in kept:
            e["carried"], e["selected"] = {"from": measured, "file": "reports/claims.json"}, False
        else:
            e.update(outcome="not-run", reason="not selected in this run", selected=False, measured=None)
    # a report written before the selection said the rows' own time: it names the last run
    selected = [e["key"] for e in doc["claims"] if e["chapter"] == "ch90"]
    carried = [e["key"] for e in kept]
    doc["selection"] = {"partial": True, "selected": selected, "carried": carried, "carried_from": last}
    book_run.write_text(json.dumps(doc), encoding="utf-8")
    claims, _ = pages_of(book_run)
    summary = markdown(load_document(book_run)[0])
    assert last not in claims and last not in summary
    assert "2 rows are kept from the run of 2026-12-05T22:31:42Z and marked so." in claims
    assert "2 rows come from an earlier run (2026-12-05T22:31:42Z)" in claims
    assert "2 rows are carried from the run of 2026-12-05T22:31:42Z" in summary
    cell = re.search(r'<tr id="book-ch15">.*?<td>(.*?)</td>', claims, re.S).group(1)
    said = re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", cell))).strip()
    assert said == "passed 2 not run 40 (carried from an earlier run: 2 passed)"


def test_a_formula_and_a_quote_say_where_their_value_comes_from(book_run):
    """An author's trial: ch90's formula C01 showed 36 MiB under "Here" (this runner's measurement)
    though nothing was measured, and a drift annotation called its verdict "its measurement". Its
    value stays (the arithmetic's result), saying whose it is."""
    doc = json.loads(book_run.read_text(encoding="utf-8"))
    c01 = next(e for e in doc["claims"] if e["key"] == "ch90:C01")
    quote = {"status": "drift", "line": 3, "name": "stated", "manuscript": "35", "registry": "36"}
    c01["details"]["drift"] = {"manuscript": "ch90.md", "status": "drift", "quotes": [quote]}
    c01["drifted"] = True
    c05 = next(e for e in doc["claims"] if e["key"] == "ch90:C05")
    c05.update(measured=None, measured_display=None)  # as a run records a quote: its source measures
    book_run.write_text(json.dumps(doc), encoding="utf-8")
    claims, _ = pages_of(book_run)

    def here(key: str) -> str:
        row = claims[claims.index(f'data-id="{key}"') :]
        return html.unescape(
            re.sub(r"<[^>]+>", "", re.search(r'<td class="here value">(.*?)</td>', row).group(1))
        )

    assert here("ch90:C01") == "36 MiB (the chapter's arithmetic)"
    assert here("ch90:C05") == "— (a quote of ch15:C10)"
    assert here("ch90:C02") == "36,864 B/token"  # a measured claim's row is as it was
    loaded = load_document(book_run)[0]
    row = next(ln for ln in markdown(loaded).splitlines() if ln.startswith("| **C01** A 1024-token"))
    assert "| 36 MiB (the chapter's arithmetic) |" in row
    said = next(ln for ln in annotations(loaded, book_run.parent) if "title=ch90%3AC01 drifted" in ln)
    assert said.endswith("; the chapter's arithmetic: passed") and "its measurement" not in said
