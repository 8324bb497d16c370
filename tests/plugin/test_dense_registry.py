"""A chapter whose registry is written in the dense form ([defaults], one line per claim, a table for
a claim of many fields) runs beside a chapter in the [[claims]] form, and reports exactly what the
same chapter in the [[claims]] form reports."""

import textwrap

from tests.claimkit import claims_project, read_report

DENSE = """
[defaults]
unit = ""
tolerance = "exact"
needs = ["arch"]

[claims]
C01 = { title = "one line", stated = "7", locator = "value 7" }
"C02.text" = { title = "a part, quoted", stated = "36", unit = "KiB/token", locator = "36 KiB", tolerance = "printed" }

[claims.C03]
title = "a table of many fields: the chapter's own arithmetic"
stated = "36"
unit = "MiB"
locator = "= 36 MiB"
values = { tokens = "1024", per_token_kib = "36" }
quotes = { tokens = "1024 tokens", per_token_kib = "× 36 KiB" }
formula = "tokens * per_token_kib / 1024"
precision = "exact"
needs = ["text"]
"""

ARRAYS = """
[[claims]]
id = "C01"
title = "one line"
stated = "7"
unit = ""
locator = "value 7"
tolerance = "exact"
needs = ["arch"]

[[claims]]
id = "C02.text"
title = "a part, quoted"
stated = "36"
unit = "KiB/token"
locator = "36 KiB"
tolerance = "printed"
needs = ["arch"]

[[claims]]
id = "C03"
title = "a table of many fields: the chapter's own arithmetic"
stated = "36"
unit = "MiB"
locator = "= 36 MiB"
values = { tokens = "1024", per_token_kib = "36" }
quotes = { tokens = "1024 tokens", per_token_kib = "× 36 KiB" }
formula = "tokens * per_token_kib / 1024"
precision = "exact"
tolerance = "exact"
needs = ["text"]
"""

TESTS = """
import pytest


@pytest.mark.claim("C01")
def test_c01(claim):
    claim.check(7)


@pytest.mark.claim("C02.text")
def test_c02(claim):
    claim.check(36.2, "KiB/token")
"""

OTHER = """
[[claims]]
id = "C01"
title = "the other chapter's C01"
stated = "1"
unit = ""
locator = "value 1"
tolerance = "exact"
needs = ["arch"]
"""

VOLATILE = {"duration_s", "registry_line", "tests"}  # the run's time; where the registry and tests are


def run_book(pytester, registry: str, monkeypatch):
    claims_project(
        pytester,
        OTHER,
        {
            "test_cha.py": 'import pytest\n@pytest.mark.claim("C01")\ndef test_c01(claim):\n    claim.check(1)\n'
        },
        chapter="cha",
        folder="claims/a",
        monkeypatch=monkeypatch,
    )
    claims_project(pytester, registry, {"test_chd.py": TESTS}, chapter="chd", folder="claims/d")
    result = pytester.runpytest("claims", "-p", "no:cacheprovider", "-p", "no:html")
    result.assert_outcomes(passed=4)  # C01 of each chapter, C02.text and C03 (a formula: the registry's item)
    return read_report(pytester).claims.by_key


def test_a_dense_chapter_passes_beside_another_and_reports_as_the_array_form(pytester, monkeypatch):
    dense = run_book(pytester, textwrap.dedent(DENSE), monkeypatch)
    assert {k: r["outcome"] for k, r in dense.items()} == {
        "cha:C01": "passed",
        "chd:C01": "passed",
        "chd:C02.text": "passed",
        "chd:C03": "passed",
    }
    assert dense["chd:C01"]["unit"] == "" and dense["chd:C02.text"]["tolerance"] == "printed"
    # the dense registry's rows still point at their line of the registry
    assert dense["chd:C01"]["registry_line"] == 10 and dense["chd:C03"]["registry_line"] == 13
    arrays = run_book(pytester, textwrap.dedent(ARRAYS), monkeypatch)
    assert dense["chd:C03"]["locations"][0]["line"] == 13  # a formula's item: at its [claims.C03] header
    for rows in (dense, arrays):  # the registry's lines differ between the two files, nothing else
        for row in rows.values():
            row["locations"] = [{k: v for k, v in loc.items() if k != "line"} for loc in row["locations"]]
    assert set(dense) == set(arrays)
    for key, row in dense.items():
        other = arrays[key]
        differ = sorted(
            f for f in row.keys() | other.keys() if f not in VOLATILE and row.get(f) != other.get(f)
        )
        assert not differ, (key, {f: (row.get(f), other.get(f)) for f in differ})
