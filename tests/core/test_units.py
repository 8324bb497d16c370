"""Units: the kit's own (claimcheck.units.UNITS) and those a registry declares in its ``[units]``."""

import textwrap

import pytest

from claimcheck import docs, units
from claimcheck.registry import load_registry
from claimcheck.units import UnitError, convert, declare, parse_unit

CLAIM = """
[[claims]]
id = "C01"
title = "t"
stated = "3"
unit = "{unit}"
locator = "3 merges"
tolerance = "exact"
needs = ["text"]
"""


@pytest.fixture(autouse=True)
def fresh_units():
    """Each test starts and ends with a registry that knows no chapter's units."""
    units.ureg.cache_clear()
    yield
    units.ureg.cache_clear()


def registry(tmp_path, text, name="claims.toml"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_registry(path)


def test_every_unit_of_the_table_parses_and_converts():
    for definition, meaning in units.UNITS:
        assert parse_unit(definition.split("=")[0].strip()) and meaning
    assert convert(2.4, "万 token", "token") == pytest.approx(24000)
    assert convert(1, "Mtok", "token") == 1e6
    with pytest.raises(UnitError, match="cannot convert 'USD' to 'CNY'"):
        convert(1, "USD", "CNY")
    assert all(parse_unit(u) for u in units.COMMON)


def test_the_reference_page_lists_every_unit_and_how_to_declare_one():
    page = docs.units_page()
    assert all(f"| `{d.split('=')[0].strip()}` |" in page for d, _ in units.UNITS)
    assert "| `token` | `tok` | a dimension of its own |" in page and "`percent`" in page
    assert "## Declaring a unit" in page and 'merge = "[merge]"' in page


def test_a_registry_declares_a_unit_its_claims_use(tmp_path):
    reg = registry(
        tmp_path, '[units]\nmerge = "[merge]"\nbigram = "2 * token"\n' + CLAIM.format(unit="merge/s")
    )
    assert reg.issues == [] and reg.claims["C01"].unit == "merge/s"
    assert (
        convert(3, "bigram", "token") == 6.0
        and convert(3000, "merge", "kmerge") == 3.0
        and units.declared()
        == {
            "merge": "[merge]",
            "bigram": "2 * token",
        }
    )
    # a second chapter may declare it again, the same way
    assert (
        registry(tmp_path, '[units]\nmerge = "[merge]"\n' + CLAIM.format(unit="merge"), "b.toml").issues == []
    )


def test_an_undeclared_unit_is_still_unknown(tmp_path):
    reg = registry(tmp_path, CLAIM.format(unit="merge"))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C01", "unit")]
    assert "unknown unit 'merge'" in reg.issues[0].message


@pytest.mark.parametrize(
    "table, words",
    [
        ('token = "[word]"', "'token' is already a unit (token): use it, or pick another name"),
        ('"two words" = "[x]"', "unit name 'two words' must be one word"),
        ('merge = "[merge"', "merge = '[merge': pint cannot read it"),
        ("merge = 3", "merge = 3: a definition is a string"),
    ],
)
def test_a_bad_declaration_names_the_file_and_the_unit(tmp_path, table, words):
    reg = registry(tmp_path, f"[units]\n{table}\n" + CLAIM.format(unit="B"))
    assert len(reg.issues) == 1 and reg.issues[0].field.startswith("units.") and "C01" in reg.claims
    assert words in str(reg.issues[0]) and str(reg.issues[0]).startswith(str(tmp_path / "claims.toml"))


def test_two_chapters_may_not_declare_one_name_two_ways(tmp_path):
    assert registry(tmp_path, '[units]\nmerge = "[merge]"\n' + CLAIM.format(unit="merge")).issues == []
    reg = registry(tmp_path, '[units]\nmerge = "2 * token"\n' + CLAIM.format(unit="B"), "b.toml")
    assert [i.field for i in reg.issues] == ["units.merge"]
    assert "already declared as '[merge]' (another chapter's [units])" in reg.issues[0].message
    with pytest.raises(UnitError):
        declare("merge", "3 * token")


def test_units_must_be_a_table(tmp_path):
    reg = registry(tmp_path, 'units = "merge"\n' + CLAIM.format(unit="B"))
    assert [i.field for i in reg.issues] == ["units"] and "must be a table" in reg.issues[0].message


def test_a_unit_only_another_chapter_declares_is_named(tmp_path):
    assert registry(tmp_path, '[units]\nmerge = "[merge]"\n' + CLAIM.format(unit="merge")).issues == []
    reg = registry(tmp_path, CLAIM.format(unit="kmerges/s"), "b.toml")  # valid only after the first
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C01", "unit")] and "C01" in reg.invalid
    assert "uses 'merge', which this registry does not declare" in reg.issues[0].message


def test_a_pint_error_whose_message_breaks_is_still_a_unit_error(monkeypatch):
    """pint's str() of a DimensionalityError can raise once other tests declared units in the
    process (seen as a TypeError from its formatter); convert still says UnitError."""

    class Broken(Exception):
        def __str__(self):
            raise TypeError("can only concatenate str (not 'tuple') to str")

    class Quantity:
        def __init__(self, *args):
            raise Broken()

    monkeypatch.setattr(units.ureg(), "Quantity", Quantity)
    with pytest.raises(units.UnitError, match="cannot convert 's' to 'MB': Broken"):
        units.convert(5, "s", "MB")
