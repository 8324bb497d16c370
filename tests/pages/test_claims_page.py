"""The claims page from a claims.json alone: one row per registry claim, grouped by the chapter's
sections in the chapter's order, values, bars, margins, reasons once, plots embedded."""

import json
import time

from claimcheck.cli import main
from claimcheck.pages import claims_page, load_document
from claimcheck.results import parse_document
from tests.pages.conftest import RESULTS


def render(path):
    doc, problems = load_document(path)
    assert problems == []
    return claims_page(doc, path.parent)


def rows_of(page, parse):
    return parse(page).find("tbody", class_="claim")


def test_one_row_per_registry_claim_in_the_chapters_order(full_run, parse, shipped_registry):
    page = render(full_run)
    reg = shipped_registry
    rows = rows_of(page, parse)
    assert sorted(r["data-id"] for r in rows) == sorted(
        reg.key(c) for c in reg.claims
    )  # every claim, exactly once
    assert len({r["data-id"] for r in rows}) == len(rows)
    sections = [s["data-section"] for s in parse(page).find("tbody", class_="section")]
    assert sections == [s.id for s in reg.sections]  # the chapter's order
    by_section = [r["data-section"] for r in rows]
    assert by_section == sorted(by_section, key=sections.index)  # each row under its section
    assert [r["data-id"] for r in rows if r["data-section"] == "in-practice"] == [
        "ch15:C28",
        "ch15:C35",
        "ch15:C36",
    ]


def test_a_row_says_chapter_here_bar_margin_verdict_and_why(full_run):
    page = render(full_run)
    c05 = page[page.index('id="claim-ch15-C05"') :]
    c05 = c05[: c05.index("</tbody>")]
    for text in (
        "60×",
        "23.26×",
        "at least 10×",
        "13.3 above the bar",
        "o-passed",
        "95% CI [21.9×, 24.7×], 7 rounds",
    ):
        assert text in c05, text
    c12 = page[page.index('id="claim-ch15-C12"') :]
    assert "「瓶颈是搬运权重的内存带宽」" in c12[: c12.index("</tbody>")]  # no number: the chapter's words
    c16 = page[page.index('id="claim-ch15-C16"') :]
    c16 = c16[: c16.index("</tbody>")]
    # failed through claim.require: the measured value and the failed condition, said once
    assert (
        "1.38" in c16 and "outside by 0.12" in c16 and c16.count("uncached total time grows no faster") == 1
    )


def test_a_skip_reason_appears_once(full_run):
    page = render(full_run)
    assert page.count("Provide them with --claims-weights DIR") == 3  # C30.model, C31, C37: once each
    c31 = page[page.index('id="claim-ch15-C31"') :]
    assert c31.index("needs the pretrained GPT-2 weights, which this runner does not have") < c31.index(
        "<details"
    )


def test_the_top_answers_which_hold_which_not_and_why(full_run, parse):
    page = render(full_run)
    sentences = " ".join(
        parse(page[page.index('id="sentences"') : page.index("</ul>", page.index('id="sentences"'))]).text
    )
    assert "29 claims hold on this runner." in sentences
    assert "1 does not hold here: C16." in sentences
    assert "1 timing claim is undecided" in sentences and "C20" in sentences
    assert (
        "11 cannot be checked here: 3 need the pretrained weights (C30.model, C31, C37); 1 needs a GPU (C34); "
        "4 are timings taken on another runner (C01, C02, C11.time, C15.laptop); 1 needs data from "
        "outside the chapter (C25); 2 need the chapter's listing (C33.output, C33.api)."
    ) in sentences
    assert "AMD EPYC (x86_64, AVX512), 2 cores, 24 GiB RAM, no GPU" in page
    assert 'href="tests.html"' in page


def test_plots_are_embedded_images_in_their_rows(full_run, parse):
    page = render(full_run)
    imgs = parse(page).find("img")
    assert len(imgs) == 4 and all(i["src"].startswith("data:image/png;base64,iVBORw0KGgo") for i in imgs)
    # the alt text says what the plot shows, for which claim, and the figures it is about
    assert sorted(i["alt"].split("for claim ")[1].split(" ")[0] for i in imgs) == ["C05", "C12", "C16", "C35"]
    assert all(i["alt"].startswith("Plot of ") for i in imgs)


def test_a_missing_plot_file_is_said_in_its_row(run_copy):
    (run_copy.parent / "plots" / "C12-1.png").unlink()
    page = render(run_copy)
    c12 = page[page.index('id="claim-ch15-C12"') :]
    assert "plot bandwidth missing" in c12[: c12.index("</tbody>")] and page.count("<img ") == 3


def test_an_exact_whole_result_is_in_full_digits_in_its_row(run_copy):
    """The row's value read 2.4888e8 B beside the chapter's 248879616 B (the summary's too)."""
    doc = json.loads(run_copy.read_text(encoding="utf-8"))
    first = doc["claims"][0]
    first.update(stated="248879616", unit="B", tolerance="exact", measured=248879616.0)
    run_copy.write_text(json.dumps(doc), encoding="utf-8")
    page = render(run_copy)
    row = page[page.index(f'id="claim-ch15-{first["id"]}"') :]
    row = row[: row.index("</tbody>")]
    assert row.count("248879616 B") >= 3 and "2.4888e8" not in row  # chapter, here, the bar


def test_everything_is_escaped_and_self_contained(run_copy):
    doc = json.loads(run_copy.read_text(encoding="utf-8"))
    doc["claims"][0]["title"] = "<script>alert(1)</script>"
    doc["claims"][0]["reason"] = "a <b>bold</b> & reason"
    run_copy.write_text(json.dumps(doc), encoding="utf-8")
    page = render(run_copy)
    assert "<script>alert(1)</script>" not in page and "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    assert "a &lt;b&gt;bold&lt;/b&gt; &amp; reason" in page
    for outside in ("<link", "http://", "https://", 'src="http', "@import"):
        assert outside not in page


def test_without_sections_every_claim_is_still_shown(run_copy, parse):
    doc = json.loads(run_copy.read_text(encoding="utf-8"))
    del doc["sections"]
    doc["claims"][3]["outcome"] = "sideways"  # an unusable entry keeps its row
    run_copy.write_text(json.dumps(doc), encoding="utf-8")
    loaded, problems = load_document(run_copy)
    assert len(problems) == 1 and "claim ch15:C04: field 'outcome'" in problems[0]
    page = claims_page(loaded, run_copy.parent)
    assert len(rows_of(page, parse)) == len(doc["claims"])
    assert "unusable outcome &#39;sideways&#39;" in page
    assert [r["data-outcome"] for r in rows_of(page, parse) if r["data-id"] == "ch15:C04"] == ["error"]


def test_claimcheck_report_rerenders_from_the_json_alone_fast(run_copy, capsys):
    (run_copy.parent / "claims.html").unlink(missing_ok=True)
    t0 = time.perf_counter()
    assert main(["report", str(run_copy)]) == 0
    assert time.perf_counter() - t0 < 2.0
    page = (run_copy.parent / "claims.html").read_text(encoding="utf-8")
    assert page.count('<tbody class="claim') == 42
    assert "claims.html" in capsys.readouterr().err


def test_claimcheck_report_errors_name_the_file(tmp_path, capsys):
    bad = tmp_path / "claims.json"
    bad.write_text('{"claims": [', encoding="utf-8")
    assert main(["report", str(bad)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "not valid JSON" in err and not (tmp_path / "claims.html").exists()
    assert main(["report", str(tmp_path / "none.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_detail_named_model_that_is_not_the_lanes_record_does_not_break_the_page(run_copy, parse):
    doc = json.loads(run_copy.read_text(encoding="utf-8"))
    doc["claims"][7]["details"]["model"] = "GPT-2 small's architecture at width 64"  # a claim's own words
    page = claims_page(parse_document(doc, run_copy), run_copy.parent)
    assert len(rows_of(page, parse)) == len(doc["claims"])


def test_the_deselected_tests_are_explained_under_the_counts(run_copy, parse):
    """Every run's "5 deselected": which tests, why, and the command that runs them."""
    from claimcheck.pages import claims_page, load_document

    doc, _ = load_document(run_copy)
    page = claims_page(doc, run_copy.parent)
    items = parse(page)
    assert items.find("ul", id="deselected")
    text = " ".join(items.text)
    assert (
        "5 tests deselected (more tests of C06, C14, C18, C28, C30.model): the portable-LM lane's, which runs only when asked "
        "for (--claims-lm NAME) and then alone, into its own report (reports/portable-smollm2/). To run them:"
    ) in text
    assert "<code>pytest claims/ --claims-lm smollm2</code>" in page
    doc.deselected = None
    assert 'id="deselected"' not in claims_page(doc, run_copy.parent)


# --- every green is earned; drift at a glance (issue 35) ----------------------------------------
def _row_html(page: str, anchor: str) -> str:
    start = page.index(f'id="{anchor}"')
    return page[start : page.index("</tbody>", start)]


def test_a_claim_that_holds_by_its_bar_says_the_figure_is_the_authors(full_run):
    page = render(full_run)
    c05 = _row_html(page, "claim-ch15-C05")
    assert 'class="form-badge"' in c05 and "its bar, not this figure" in c05
    assert (
        "the chapter&#39;s 60× is the author&#39;s measurement, not reproduced here; here 23.26×, which holds "
        "the chapter&#39;s bar of at least 10×" in c05
    )
    c11 = _row_html(page, "claim-ch15-C11.text")
    assert "the chapter&#39;s arithmetic" in c11  # held by its formula over printed figures, not measured
    c03 = _row_html(page, "claim-ch15-C03")
    assert "form-badge" not in c03  # reproduced here: plainly passed
    chip = page[page.index('href="#claim-ch15-C05"') - 200 : page.index('href="#claim-ch15-C05"') + 200]
    assert "other-form" in chip and "C05 passed (its bar, not this figure)" in chip


def _drifted_c03(run_copy):
    doc = json.loads(run_copy.read_text(encoding="utf-8"))
    c03 = next(c for c in doc["claims"] if c["id"] == "C03")
    quote = {
        "status": "drift",
        "line": 7,
        "name": "stated",
        "manuscript": "38",
        "registry": "36",
        "message": "C03 drift on line 7: the manuscript prints 38, the registry has stated = 36",
    }
    c03["details"]["drift"] = {"manuscript": "ch15.txt", "status": "drift", "quotes": [quote]}
    c03["drifted"] = True
    run_copy.write_text(json.dumps(doc), encoding="utf-8")
    return run_copy


def test_drift_shows_at_a_glance_in_the_chip_counts_filters_and_chapter_table(run_copy, parse):
    page = render(_drifted_c03(run_copy))
    chips = [
        a
        for a in parse(page).find("a")
        if a.get("href") == "#claim-ch15-C03" and "o-passed" in (a.get("class") or "")
    ]
    assert chips and "is-drifted" in chips[0]["class"] and "Δ drifted" in chips[0]["title"]
    assert "C03 Δ</a>" in page  # the chip's own text says it, not only its colour
    counts = page[page.index('id="counts"') : page.index("</dd>", page.index('id="counts"'))]
    assert 'id="drifted-count">Δ drifted</span> 1' in counts
    assert parse(page).find("input", name="drift", value="drifted")  # a filter of its own
    assert [r["data-drifted"] for r in rows_of(page, parse) if r["data-id"].endswith("C03")] == ["1"]
    book = page[page.index('id="book"') : page.index("</table>", page.index('id="book"'))]
    assert 'title="C03">Δ drifted</span> 1' in book
    # the verdict stays the measurement's, drift beside it
    assert 'data-outcome="passed"' in _row_html(page, "claim-ch15-C03")


def test_no_drift_no_drift_marks(full_run, parse):
    page = render(full_run)
    assert "drifted-count" not in page and not parse(page).find("input", name="drift")
    assert not [a for a in parse(page).find("a") if "is-drifted" in (a.get("class") or "")]


def test_a_failed_row_says_the_hardware_and_the_next_step(make_run, tmp_path):
    """The failure's hardware and next step are its result's fields, never read from its message."""
    message = (
        "C03 does not hold: KV cache per token\n  chapter:   36 KiB/token\n  measured:  37 KiB/token\n"
        "  tolerance: printed -> 37 is outside [35.5, 36.5]\n  hardware:  AMD EPYC (2 cores, 24 GiB, no GPU)\n"
        "  next: if the text changed, update 'stated' of C03 in claims/ch15/claims.toml; if not, report it"
    )
    facts = {
        "hardware": "AMD EPYC (2 cores, 24 GiB, no GPU)",
        "next_step": "if the text changed, update 'stated' of C03 in claims/ch15/claims.toml; if not, report it",
    }
    path = make_run(
        tmp_path / "reports",
        with_plots=False,
        results=RESULTS
        | {
            "C03": (
                "failed",
                37.0,
                {"reason": message, "verdict_reason": "37 is outside [35.5, 36.5]", **facts},
            )
        },
    )
    page = render(path)
    c03 = page[page.index('id="claim-ch15-C03"') :]
    c03 = c03[: c03.index("</tbody>")]
    assert '<div class="facts">hardware: AMD EPYC (2 cores, 24 GiB, no GPU)</div>' in c03
    assert "next: if the text changed, update &#39;stated&#39; of C03 in claims/ch15/claims.toml" in c03
    c16 = page[page.index('id="claim-ch15-C16"') :]  # failed without those fields: the usual next step
    assert "next: if the text changed, update C16&#39;s entry in its registry" in c16[: c16.index("</tbody>")]
    c05 = page[page.index('id="claim-ch15-C05"') :]
    assert 'class="facts"' not in c05[: c05.index("</tbody>")]  # passed: nothing to do


def test_a_next_line_in_a_failure_message_is_not_the_next_step(make_run, tmp_path):
    """A failure whose message (a test's own assert, say) has "hardware: ..." and "next: ..." lines but no
    such fields: the row gives no hardware and the usual next step, never the message's words."""
    message = "C03: the cache grew\n  hardware: a machine the test names\n  next: X marks the spot"
    path = make_run(
        tmp_path / "reports",
        with_plots=False,
        results=RESULTS | {"C03": ("failed", 37.0, {"reason": message})},
    )
    page = render(path)
    c03 = page[page.index('id="claim-ch15-C03"') :]
    c03 = c03[: c03.index("</tbody>")]
    assert "next: if the text changed, update C03&#39;s entry in its registry" in c03
    assert '<div class="facts">next: X' not in c03 and '<div class="facts">hardware' not in c03


def test_a_chapter_is_not_given_another_chapters_manuscript_counts():
    """After a run of ch16 with its manuscript, ch15's line read "checked in the run: 28 numbers" from
    ch16's audit, the only manuscript the results file held."""
    from claimcheck.pages.claims_view import _checked_in_run
    from claimcheck.results import parse_document

    audit = {"numbers": 28, "bound": 24, "waived": 4, "unbound": 0}
    doc = parse_document(
        {"schema": 2, "claims": [], "manuscripts": [{"chapter": "ch16", "audit": audit}]}, "c.json"
    )
    assert _checked_in_run(doc, "ch15") == ""
    assert _checked_in_run(doc, "ch16").startswith("checked in the run: 28 numbers, 24 bound, 4 waived")
