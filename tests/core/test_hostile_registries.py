"""Hostile registries (issue 37, part A): nesting that would overflow tomllib's stack, a misspelt
``[chapter]`` key, a file saved as UTF-16, lines of bytes that are not UTF-8. Each gives one clear
problem naming the file and the claim or field; every other claim is still read; no traceback, no hang.
"""

import time

import pytest

from claimcheck import fileio
from claimcheck.cli import main
from claimcheck.registry import load_registry

CHAPTER = "[chapter]\nid = \"ch1\"\nid_pattern = 'C\\d{2}'\n"
LINE = (
    '{id} = {{ title = "t", stated = "5", unit = "x", locator = "loc {id}", tolerance = ">=1", '
    'needs = ["arch"] }}\n'
)


def claims(*ids: str) -> str:
    return "[claims]\n" + "".join(LINE.format(id=cid) for cid in ids)


def nested(depth: int, open_: str = "{a=", close: str = "}") -> str:
    return open_ * depth + "1" + close * depth


def test_inline_tables_400_deep_cost_only_their_claim(tmp_path, capsys):
    path = tmp_path / "claims.toml"
    text = CHAPTER + claims("C01", "C02") + f"C03 = {nested(400)}\n" + LINE.format(id="C04")
    path.write_text(text, encoding="utf-8")
    assert main(["validate", str(path)]) == 1  # was a RecursionError's traceback
    out, err = capsys.readouterr()
    assert f"{path}: claim C03: not valid TOML: tables or arrays nested more than 32 levels deep" in err
    assert "(at line 7, column" in err
    assert "Traceback" not in out + err and "RecursionError" not in out + err
    assert "3 valid claims, 1 problem (invalid: C03)" in out + err
    reg = load_registry(path)
    assert list(reg.claims) == ["C01", "C02", "C04"] and list(reg.invalid) == ["C03"]


def test_arrays_400_deep_in_the_chapter_table_cost_only_that_table(tmp_path, capsys):
    path = tmp_path / "claims.toml"
    path.write_text(CHAPTER + f"title = {nested(400, '[', ']')}\n" + claims("C01", "C02"), encoding="utf-8")
    assert main(["validate", str(path)]) == 1  # was a RecursionError's traceback
    out, err = capsys.readouterr()
    assert "nested more than 32 levels deep, the most a registry may nest (at line 4, column" in err
    assert "Traceback" not in out + err
    assert list(load_registry(path).claims) == ["C01", "C02"]


def test_toml_nesting_is_bounded_whatever_the_stack():
    assert fileio.loads("a = " + nested(fileio.MAX_TOML_DEPTH - 1)) is not None  # the top table is a level
    for text in ("a = " + nested(fileio.MAX_TOML_DEPTH), "a = " + nested(5000, "[", "]")):
        with pytest.raises(fileio.TomlDepthError, match=r"\(at line 1, column \d+\)"):
            fileio.loads(text)
    dotted = ".".join(["k"] * 100) + " = 1"  # no bracket, yet 100 tables deep
    with pytest.raises(fileio.TomlDepthError, match="keys nested more than 32"):
        fileio.loads(dotted)
    assert fileio.loads_or_none(dotted) is None
    # brackets in strings and comments are not nesting
    assert fileio.loads('a = "' + "{[" * 100 + '"  # ' + "[" * 100 + "\nb = '''" + "{" * 99 + "'''\n")


def test_a_misspelt_chapter_key_is_an_error_with_the_suggestion(tmp_path, capsys):
    path = tmp_path / "claims.toml"
    text = CHAPTER.replace("id_pattern", "id_patern") + 'Manuscript = "ch1.md"\nisbn = "978-0"\n'
    path.write_text(text + claims("C01", "X99"), encoding="utf-8")
    assert main(["validate", str(path)]) == 1  # was exit 0: the pattern silently unchecked
    err = capsys.readouterr().err
    assert f"{path}: field 'chapter.id_patern': unknown field (did you mean 'id_pattern'?)" in err
    assert f"{path}: field 'chapter.Manuscript': unknown field (did you mean 'manuscript'?)" in err
    assert "isbn" not in err  # a key of the registry's own, far from every field, is kept
    reg = load_registry(path)
    assert set(reg.claims) == {"C01", "X99"} and reg.chapter["isbn"] == "978-0"


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-be", "utf-32"])
def test_a_registry_saved_as_utf16_or_utf32_is_one_error(tmp_path, capsys, encoding):
    path = tmp_path / "claims.toml"
    path.write_bytes((CHAPTER + claims("C01", "C02")).encode(encoding))
    reg = load_registry(path)
    assert len(reg.issues) == 1, reg.issues  # was one per line, first "Invalid statement"
    assert str(reg.issues[0]).startswith(f"{path}: the file is UTF-")
    assert "save the registry as UTF-8" in str(reg.issues[0])
    assert main(["validate", str(path)]) == 1


def test_bytes_that_are_not_utf8_cost_linear_time(tmp_path):
    """A line of 1.5 MB of Latin-1 bytes was read again from each bad byte on (quadratic: about a
    minute of CPU), and each of 12,000 bad lines looked its table up among every table; now once."""
    long = tmp_path / "long" / "claims.toml"
    long.parent.mkdir()
    bad_title = b'[claims]\nC01 = { title = "' + b"\xe9" * 1_500_000 + b'" }\n'
    long.write_bytes(CHAPTER.encode() + bad_title + LINE.format(id="C02").encode())
    many = tmp_path / "many" / "claims.toml"
    many.parent.mkdir()
    text = CHAPTER + claims(*(f"C{i:02d}" for i in range(12000)))
    many.write_bytes(text.replace('"t"', '"t\xe9"').encode("latin-1"))
    start = time.process_time()
    reg = load_registry(long)
    assert "C02" in reg.claims and "1500000 byte sequences (0xe9 0xe9 0xe9 0xe9 ...)" in str(
        reg.invalid["C01"]
    )
    reg = load_registry(many)
    assert len(reg.invalid) == 12000 and "line 5: byte 0xe9 is not UTF-8" in str(reg.invalid["C00"])
    assert time.process_time() - start < 15.0


def test_a_link_loop_below_a_folder_is_found_and_named(tmp_path):
    from claimcheck.book import link_loop

    claims = tmp_path / "claims"
    for name in ("a", "b", "c"):
        (claims / name).mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    (claims / "c" / "out").symlink_to(tmp_path / "elsewhere")
    (claims / "a" / "to-b").symlink_to("../b")
    assert link_loop(claims, ()) is None  # links, but no loop
    (claims / "b" / "to-a").symlink_to("../a")  # a/to-b/to-a/to-b/...
    assert link_loop(claims, ()) in {
        (claims / "b" / "to-a", claims / "a"),
        (claims / "a" / "to-b", claims / "b"),
    }
    assert link_loop(claims, ("to-*",)) is None  # norecursedirs: pytest never follows them
    (claims / "c" / "out").unlink()
    (claims / "c" / "out").symlink_to(tmp_path)  # out of the book, and back in through its parent
    assert link_loop(claims, ("to-*",)) == (claims / "c" / "out", tmp_path)


def test_a_registry_that_is_a_link_loop_is_one_problem(tmp_path, capsys):
    (tmp_path / "claims" / "ch1").mkdir(parents=True)
    (tmp_path / "claims" / "ch1" / "claims.toml").write_text(CHAPTER + claims("C01"), encoding="utf-8")
    (tmp_path / "claims" / "ch2").mkdir()
    (tmp_path / "claims" / "ch2" / "claims.toml").symlink_to("claims.toml")  # itself
    assert main(["validate", str(tmp_path / "claims")]) == 1  # was a RuntimeError's traceback
    out, err = capsys.readouterr()
    assert "ch2/claims.toml: cannot read: Too many levels of symbolic links" in err
    assert "Traceback" not in out + err and "1 valid claim" in out + err


@pytest.mark.parametrize("pattern", [r"(C+)+\d{2}", r"(C|C)*\d", r"((C\d*))+"])
def test_an_id_pattern_that_can_take_exponential_time_is_refused(tmp_path, capsys, pattern):
    path = tmp_path / "claims.toml"
    text = CHAPTER.replace("C\\d{2}", pattern) + claims("C" * 20 + "1", "C01")  # 2**20 ways to match
    path.write_text(text, encoding="utf-8")
    start = time.process_time()
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"field 'chapter.id_pattern': '{pattern}' repeats a group that itself repeats or alternates" in err
    assert time.process_time() - start < 5.0  # 28 C's took minutes; the pattern is not applied


@pytest.mark.parametrize(
    "pattern", [r"C\d{2}", r"(C|F)\d{2}", r"[A-Z]+\d+", r"(?:C)\d{2}", r"[(]+\d", r"(C\d?)+"]
)
def test_an_ordinary_id_pattern_is_kept(pattern):
    from claimcheck.fields import _slow_pattern

    assert not _slow_pattern(pattern)


@pytest.mark.parametrize(
    ("definition", "said"),
    [
        ("2 * token = s = tok", "one expression on one line"),  # was: every chapter's `s` became 2 tokens
        ("[hijack] = ms", "one expression on one line"),
        ("2 * token\\nbar = 3 * second", "one expression on one line"),
        ("@alias second = sec2", "one expression on one line"),
        ("10**99999999 * token", "a power in a definition is a unit to a small integer"),  # was a hang
        ("(10 * token)**99", "a power in a definition is a unit to a small integer"),
        ("2 * foo", "pint cannot read it (UndefinedUnitError"),  # itself: was accepted
        ("nan * token", "its size is nan"),
        ("0 * token", "its size is 0.0"),
        ("1e999 * token", "its size is inf"),
        ("[time]", "[time] is already a dimension"),  # was a second base unit of time
        ("[token]", "[token] is already a dimension"),
    ],
)
def test_a_units_definition_cannot_hijack_hang_or_be_empty(tmp_path, capsys, definition, said):
    from claimcheck.units import parse_unit

    path = tmp_path / "claims.toml"
    path.write_text(CHAPTER + f'[units]\nfoo = "{definition}"\n' + claims("C01"), encoding="utf-8")
    start = time.process_time()
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    assert f"{path}: field 'units.foo': foo = " in err and said in err
    assert time.process_time() - start < 5.0
    assert [str(parse_unit(u)) for u in ("s", "ms", "tok")] == ["second", "millisecond", "token"]


def test_a_units_definition_of_known_units_and_small_powers_is_kept():
    from claimcheck.units import convert, declare

    declare("hostile_ok_area", "1e-6 * m**2 / s^2")
    declare("hostile_ok_dim", "[hostile_ok_dim]")
    assert convert(2e6, "hostile_ok_area", "m**2/s**2") == pytest.approx(2.0)


def test_a_locator_matching_20000_places_is_named_in_a_short_message(tmp_path, capsys):
    (tmp_path / "ch1.md").write_text("loc 5 once\n" + "x 3 " * 20000 + "\n", encoding="utf-8")
    path = tmp_path / "claims.toml"
    text = (
        CHAPTER
        + 'manuscript = "ch1.md"\n'
        + claims("C01").replace("needs", 'quotes = { stated = "x 3" }, needs')
    )
    path.write_text(text + '[[waivers]]\nlocator = "x 3"\nreason = "r"\n', encoding="utf-8")
    assert main(["check-manuscript", "--registry", str(path), str(tmp_path / "ch1.md")]) == 1
    out = capsys.readouterr().out
    lines = "matches lines 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, … (20,000 places)"
    assert f"C01: locator 'x 3' (stated) {lines}: lengthen it so it finds one place" in out
    assert f"waivers[1] ('x 3': r): locator {lines}: lengthen it" in out
    assert max(map(len, out.splitlines())) < 300  # each was 60 KB: every place's line number


def test_init_of_a_table_of_like_rows_is_not_quadratic(tmp_path, capsys):
    """Each row of ``item 7 costs 7.5 USD`` matches every row's locator (numbers are wildcards): each
    of init's ~36 candidate locators per number was searched through the whole text (300 rows: 26 s
    of CPU); now a candidate stops at its second place (1.9 s), and writes the same registry."""
    (tmp_path / "table.md").write_text("".join(f"item {i} costs {i}.5 USD\n" for i in range(300)))
    start = time.process_time()
    assert main(["init", str(tmp_path / "table.md"), "--claims-dir", str(tmp_path / "claims")]) == 1
    assert time.process_time() - start < 10.0
    out = capsys.readouterr()
    assert "C001: locator 'item 0 costs 0.5 USD' (stated) matches lines 1, 2, 3" in out.out + out.err
    assert len(load_registry(tmp_path / "claims" / "table" / "claims.toml").claims) == 600


def test_a_megabyte_claim_id_is_named_in_a_short_problem(tmp_path, capsys):
    path = tmp_path / "claims.toml"
    path.write_text(CHAPTER + claims("C01", "C" * 1_000_000), encoding="utf-8")
    assert main(["validate", str(path)]) == 1
    err = capsys.readouterr().err
    problem = next(line for line in err.splitlines() if "field 'id'" in line)
    assert problem.startswith(f"error: {path}: claim {'C' * 200}… (1,000,000 characters): field 'id': ")
    assert len(problem) < 600  # was 2 MB: the id in full, twice
    path.write_text(CHAPTER + claims("C01", "C" * 3000), encoding="utf-8")  # under a field's limit
    assert main(["validate", str(path)]) == 1
    problem = next(line for line in capsys.readouterr().err.splitlines() if "field 'id'" in line)
    assert f"field 'id': bad id '{'C' * 80}'… (3,000 characters): expected e.g. 'C05'" in problem
    assert len(problem) < 600
