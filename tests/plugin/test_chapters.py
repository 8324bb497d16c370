"""Two chapters in one run, in a small project: keys kept apart, usage errors that name both chapters."""

import textwrap

from tests.claimkit import claims_project, read_report

CLAIM = """
[[claims]]
id = "{id}"
title = "{title}"
stated = "{stated}"
unit = ""
locator = "value {stated}"
tolerance = "exact"
needs = ["arch"]
"""


def chapter(pytester, folder, chapter_id, claims, manuscript=None):
    fields = {"id": chapter_id, **({"manuscript": manuscript} if manuscript else {})}
    registry = "".join(CLAIM.format(id=c, title=f"{chapter_id} {c}", stated=v) for c, v in claims.items())
    tests = "import pytest\n" + "".join(
        textwrap.dedent(f"""
        @pytest.mark.claim("{c}")
        def test_{c.lower()}(claim):
            claim.check({v})
        """)
        for c, v in claims.items()
    )
    claims_project(pytester, registry, {f"test_{chapter_id}.py": tests}, chapter=fields, folder=folder)


def test_the_same_id_in_two_chapters_keeps_two_rows(pytester):
    chapter(pytester, "claims/a", "cha", {"C01": "1", "C02": "2"})
    chapter(pytester, "claims/b", "chb", {"C01": "7"})
    result = pytester.runpytest("claims", "-p", "no:cacheprovider", "-p", "no:html")
    result.assert_outcomes(passed=3)
    rows = read_report(pytester).claims.by_key
    assert set(rows) == {"cha:C01", "cha:C02", "chb:C01"}
    assert rows["cha:C01"]["title"] == "cha C01" and rows["chb:C01"]["title"] == "chb C01"
    assert rows["chb:C01"]["measured"] == 7 and rows["cha:C01"]["measured"] == 1
    # -k with a key selects one chapter's claim
    result = pytester.runpytest("claims", "-p", "no:cacheprovider", "-p", "no:html", "-k", "chb:C01")
    result.assert_outcomes(passed=1)


def test_a_short_stated_id_of_two_chapters_is_ambiguous(pytester):
    chapter(pytester, "claims/a", "cha", {"C01": "1"})
    chapter(pytester, "claims/b", "chb", {"C01": "7"})
    result = pytester.runpytest("claims", "-p", "no:cacheprovider", "--claims-stated", "C01=2")
    result.stderr.fnmatch_lines(["*C01*ambiguous*cha:C01, chb:C01*"])
    result = pytester.runpytest(
        "claims", "-p", "no:cacheprovider", "-p", "no:html", "--claims-stated", "chb:C01=8"
    )
    result.assert_outcomes(passed=1, failed=1)  # only chb's C01 was revised


def test_two_registries_with_one_chapter_id_stop_the_run(pytester):
    chapter(pytester, "claims/a", "same", {"C01": "1"})
    chapter(pytester, "claims/b", "same", {"C02": "2"})
    result = pytester.runpytest("claims", "-p", "no:cacheprovider")
    assert result.ret == 4  # usage error
    result.stderr.fnmatch_lines(["*chapter id 'same' is also the chapter of*"])


def test_the_manuscript_binds_to_its_own_chapter(pytester):
    chapter(pytester, "claims/a", "cha", {"C01": "1"}, manuscript="a.md")
    chapter(pytester, "claims/b", "chb", {"C01": "7"}, manuscript="b.md")
    (pytester.path / "b.md").write_text("the value 7 here\n", encoding="utf-8")
    result = pytester.runpytest(
        "claims", "-p", "no:cacheprovider", "-p", "no:html", "--claims-manuscript=b.md"
    )
    result.assert_outcomes(passed=4)  # 2 claims, chb's drift item and its audit; none for cha
    (pytester.path / "c.md").write_text("the value 7 here\n", encoding="utf-8")
    result = pytester.runpytest("claims", "-p", "no:cacheprovider", "--claims-manuscript=c.md")
    result.stderr.fnmatch_lines(["*none of their manuscripts*"])
