"""Registry validation: one clear error per problem, naming file, claim id and field; nothing else lost."""

import textwrap
from pathlib import Path

import pytest

from claimcheck.fields import BOOL, CLAIM_FIELDS
from claimcheck.registry import load_registry

GOOD = """
[[claims]]
id = "{id}"
title = "t"
stated = "36"
unit = "KiB/token"
locator = "36 KiB"
tolerance = "printed"
needs = ["arch"]
"""


def write(tmp_path, body, name="claims.toml"):
    p = tmp_path / name
    p.write_text(textwrap.dedent(body), encoding="utf-8")
    return p


def registry_with(tmp_path, bad_entry, n_good=3):
    body = "".join(GOOD.format(id=f"C0{i}") for i in range(1, n_good + 1)) + textwrap.dedent(bad_entry)
    return load_registry(write(tmp_path, body))


def test_good_registry(tmp_path):
    reg = load_registry(write(tmp_path, GOOD.format(id="C01") + GOOD.format(id="C30.text")))
    assert reg.issues == []
    assert list(reg.claims) == ["C01", "C30.text"]
    assert reg.claims["C01"].stated == "36"


def test_the_shipped_registry_is_valid_and_complete():
    from pathlib import Path

    reg = load_registry(Path(__file__).resolve().parents[2] / "claims" / "ch15" / "claims.toml")
    assert reg.issues == []
    assert {c.id.split(".")[0] for c in reg.claims.values()} == {f"C{i:02d}" for i in range(1, 38)}


@pytest.mark.parametrize(
    "entry, field, words",
    [
        ('tolerence = "printed"', "tolerence", "did you mean 'tolerance'"),
        ('unit = "KiB/tokn"', "unit", "unknown unit"),
        ('tolerance = "roughly"', "tolerance", "bad tolerance 'roughly'"),
        ("stated = 99.16", "stated", "as a string"),
        ('stated = "ninety"', "stated", "not a printed decimal"),
        ('stated = "1e309"', "stated", "not a finite number of sensible size"),  # the run's error before
        ('stated = "' + "9" * 400 + '"', "stated", "at most 30 digits"),
        ('stated = "1' + "0" * 35 + '"', "stated", "more than 30 digits"),
        ('stated = "1e-40"', "stated", "magnitude between 1e-30 and 1e30"),
        ('values = { a = "1e31" }', "values", "a: '1e31' is not a finite number of sensible size"),
        ('needs = ["wieghts"]', "needs", "did you mean 'weights'"),
        ('locator = "' + "x" * 60 + '"', "locator", "never a sentence"),
        ('runner = "someone"', "runner", "unknown runner profile"),
    ],
)
def test_one_bad_field_one_error(tmp_path, entry, field, words):
    base = GOOD.format(id="C09").strip().splitlines()
    key = entry.split("=")[0].strip()
    lines = [
        ln
        for ln in base
        if not ln.startswith(key + " ") and not (key == "tolerence" and ln.startswith("tolerance"))
    ]
    reg = registry_with(tmp_path, "\n" + "\n".join(lines + [entry]) + "\n")
    assert len(reg.issues) == 1, reg.issues
    issue = reg.issues[0]
    assert issue.claim_id == "C09" and issue.field == field
    message = str(issue)
    assert "claims.toml" in message and "C09" in message and f"'{field}'" in message and words in message
    assert list(reg.claims) == ["C01", "C02", "C03"]  # the others are all still there
    assert "C09" in reg.all_ids and reg.issues_for("C09")


def test_missing_field(tmp_path):
    reg = registry_with(tmp_path, GOOD.format(id="C09").replace('locator = "36 KiB"\n', ""))
    assert [(i.claim_id, i.field, i.message) for i in reg.issues] == [
        ("C09", "locator", "missing required field")
    ]


def test_duplicate_id(tmp_path):
    reg = registry_with(tmp_path, GOOD.format(id="C02"))
    assert len(reg.issues) == 1 and reg.issues[0].field == "id" and "duplicate" in reg.issues[0].message
    assert "C02" in reg.claims  # the first definition stays


def test_bad_id_and_missing_id(tmp_path):
    reg = registry_with(tmp_path, GOOD.format(id="c9"))
    assert reg.issues[0].field == "id"
    reg = registry_with(tmp_path, GOOD.format(id="X").replace('id = "X"\n', ""))
    assert reg.issues[0].claim_id.startswith("#4") and reg.issues[0].field == "id"


def test_empty_stated_needs_a_bound(tmp_path):
    reg = registry_with(tmp_path, GOOD.format(id="C09").replace('stated = "36"', 'stated = ""'))
    assert [i.field for i in reg.issues] == ["tolerance"]
    ok = registry_with(
        tmp_path, GOOD.format(id="C09").replace('stated = "36"', 'stated = ""').replace('"printed"', '">=10"')
    )
    assert ok.issues == [] and ok.claims["C09"].stated_value is None


def test_not_toml(tmp_path):
    reg = load_registry(write(tmp_path, "[[claims]\nid = 1"))
    assert len(reg.issues) == 1 and "not valid TOML" in str(reg.issues[0]) and reg.claims == {}


def test_unknown_top_level_table(tmp_path):
    reg = load_registry(write(tmp_path, GOOD.format(id="C01") + "\n[chaptr]\nid = 'x'\n"))
    assert [i.field for i in reg.issues] == ["chaptr"] and "C01" in reg.claims


def test_portable_flag_is_validated_and_marks_model_agnostic_claims(tmp_path):
    reg = registry_with(tmp_path, GOOD.format(id="C09") + 'portable = "yes"\n')
    assert [str(i) for i in reg.issues] == [
        f"{tmp_path / 'claims.toml'}: claim C09: field 'portable': must be true or false, got 'yes'"
    ]
    assert len(reg.claims) == 3
    shipped = load_registry(Path(__file__).resolve().parents[2] / "claims" / "ch15" / "claims.toml")
    portable = {cid for cid, c in shipped.claims.items() if c.portable}
    assert {"C06", "C14", "C32"} <= portable and not portable & {"C18", "C30.model", "C17", "C28", "C29"}


def test_top_level_tables_of_the_wrong_type(tmp_path):
    for body in ('chapter = "ch15"\n', "runners = 5\n", "[runners]\nlaptop = 3\n"):
        reg = load_registry(write(tmp_path, body + GOOD.format(id="C01")))
        assert len(reg.issues) == 1 and "must be a table" in str(reg.issues[0]), body
        assert "C01" in reg.claims


@pytest.mark.parametrize(
    "entry, message",
    [
        (
            'expected_fail = " "',
            "must be a non-empty string, got ' ': say why the figure is known not to hold",
        ),
        ("note = 3", 'must be a string such as "seen at batch size 1", got int 3'),
        ("values = []", 'must be a table such as { read_s = "0.086" }, got list []'),
        (
            'needs = "arch"',
            "must be a list of strings such as [\"arch\"], got str 'arch': known needs: "
            "arch, ext, gpu, text, time, tok, weights",
        ),
    ],
)
def test_a_value_of_the_wrong_shape_says_what_the_field_takes(tmp_path, entry, message):
    claim = GOOD.format(id="C09").replace('needs = ["arch"]\n', "")
    needs = "" if entry.startswith("needs") else 'needs = ["arch"]\n'
    reg = registry_with(tmp_path, claim + needs + entry + "\n")
    assert [(i.claim_id, i.message) for i in reg.issues] == [("C09", message)]


def test_a_runner_without_a_description_is_kept_and_said_once(tmp_path):
    body = "[runners.laptop]\ncores = 8\n[runners.box]\ndescription = 'a box'\n" + GOOD.format(id="C01")
    reg = load_registry(write(tmp_path, body))
    assert [(i.field, i.message) for i in reg.issues] == [
        ("runners.laptop.description", "must be a non-empty string: the machine, in words")
    ]
    assert list(reg.runners) == ["laptop", "box"] and "C01" in reg.claims


def test_not_utf8_is_located_and_the_rest_still_loads(tmp_path):
    p = tmp_path / "claims.toml"
    body = (
        GOOD.format(id="C01") + GOOD.format(id="C02").replace('"36 KiB"', '"三十六"') + GOOD.format(id="C03")
    )
    p.write_bytes(body.encode("gb18030"))
    reg = load_registry(p)
    assert [str(i) for i in reg.issues] == [
        f"{p}: claim C02: field 'locator': line 16: 4 byte sequences (0xc8 0xfd 0xc1 0xf9) are not UTF-8; save the "
        "registry as UTF-8 (the rest of the file was read)"
    ]
    assert list(reg.claims) == ["C01", "C03"] and reg.issues_for("C02")
    one = GOOD.format(id="C01").replace('title = "t"', 'title = "t\udcff"').encode("utf-8", "surrogateescape")
    p.write_bytes(b"[chapter]\ntitle = '\xe9'\n" + one)
    reg = load_registry(p)
    assert [(i.claim_id, i.field) for i in reg.issues] == [(None, "chapter.title"), ("C01", "title")]
    assert "line 2: byte 0xe9 is not UTF-8" in str(reg.issues[0]) and "line 6: byte 0xff" in str(
        reg.issues[1]
    )
    p.write_bytes(b"\xef\xbb\xbf" + GOOD.format(id="C01").encode("utf-8"))
    assert load_registry(p).issues == []


def test_a_toml_error_costs_only_its_own_claim(tmp_path):
    body = (
        GOOD.format(id="C01")
        + GOOD.format(id="C02").replace('tolerance = "printed"', "tolerance = printed")
        + GOOD.format(id="C03")
        + '\n[[waivers]]\nlocator = "Chapter 15"\nreason = "a chapter number"\n'
    )
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C02", None)]
    assert "not valid TOML" in str(reg.issues[0]) and "at line 17" in str(reg.issues[0])
    assert list(reg.claims) == ["C01", "C03"] and len(reg.waivers) == 1 and "C02" in reg.all_ids


@pytest.mark.parametrize(
    "body, words",
    [
        ("", "the file is empty"),
        ("# only a comment\n[chapter]\nid = 'x'\n", "declares no claims"),
    ],
)
def test_an_empty_registry_is_a_problem(tmp_path, body, words):
    reg = load_registry(write(tmp_path, body))
    assert [i.field for i in reg.issues] == ["claims"] and words in str(reg.issues[0])


def test_ids_must_match_the_declared_id_pattern(tmp_path):
    head = "[chapter]\nid_pattern = 'C\\d{2}'\n"
    reg = load_registry(
        write(tmp_path, head + GOOD.format(id="C01") + GOOD.format(id="X99") + GOOD.format(id="C30.text"))
    )
    assert [(i.claim_id, i.field) for i in reg.issues] == [("X99", "id")]
    assert "does not match the registry's id pattern 'C\\d{2}'" in str(reg.issues[0])
    assert list(reg.claims) == ["C01", "C30.text"]
    bad = load_registry(write(tmp_path, "[chapter]\nid_pattern = 'C(\\d'\n" + GOOD.format(id="C01")))
    assert [i.field for i in bad.issues] == ["chapter.id_pattern"] and list(bad.claims) == ["C01"]


def test_a_renamed_id_points_its_test_at_the_id_that_lost_its_test(tmp_path):
    reg = load_registry(
        write(tmp_path, GOOD.format(id="C01") + GOOD.format(id="C31") + GOOD.format(id="X99"))
    )
    assert reg.unknown_id_message("C10", untested={"X99"}).endswith(
        "no claim with id 'C10' (the only registry id without a test in this run is X99: was C10 renamed?)"
    )
    assert reg.unknown_id_message("C010", untested=None).endswith("(did you mean C01?)")


def test_integer_id(tmp_path):
    reg = registry_with(tmp_path, GOOD.format(id="C09").replace('id = "C09"', "id = 4"))
    assert [i.field for i in reg.issues] == ["id"] and "must be a string" in str(reg.issues[0])


SECTIONS = """
[[sections]]
id = "read"
title = "Reading"
heading = "读："

[[sections]]
id = "write"
title = "Writing"
"""


def test_sections_in_the_chapter_order_and_each_claim_in_one(tmp_path):
    body = (
        SECTIONS
        + GOOD.format(id="C01")
        + 'section = "write"\n'
        + GOOD.format(id="C02")
        + 'section = "read"\n'
    )
    reg = load_registry(write(tmp_path, body))
    assert reg.issues == []
    assert [(s.id, s.title, s.heading) for s in reg.sections] == [
        ("read", "Reading", "读："),
        ("write", "Writing", ""),
    ]
    assert reg.claims["C01"].section == "write" and reg.claims["C02"].section == "read"
    assert load_registry(write(tmp_path, GOOD.format(id="C01"))).claims["C01"].section is None  # optional


def test_an_unknown_section_is_one_error_naming_claim_and_field(tmp_path):
    body = SECTIONS + GOOD.format(id="C01") + 'section = "wirte"\n' + GOOD.format(id="C02")
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C01", "section")]
    assert "did you mean 'write'" in str(reg.issues[0]) and list(reg.claims) == ["C02"]


@pytest.mark.parametrize(
    "entry, field",
    [
        ('[[sections]]\ntitle = "no id"\n', "sections[3].id"),
        ('[[sections]]\nid = "read"\ntitle = "again"\n', "sections[3].id"),
        ('[[sections]]\nid = "x"\ntitle = "t"\nheadline = "h"\n', "sections[3].headline"),
        ('[[sections]]\nid = "x"\ntitle = "t"\nheading = "' + "读" * 41 + '"\n', "sections[3].heading"),
    ],
)
def test_bad_sections_are_named_and_the_rest_is_kept(tmp_path, entry, field):
    reg = load_registry(write(tmp_path, SECTIONS + entry + GOOD.format(id="C01")))
    assert [i.field for i in reg.issues] == [field], reg.issues
    assert [s.id for s in reg.sections] == ["read", "write"] and "C01" in reg.claims


def test_the_shipped_registry_puts_every_claim_in_a_chapter_section():
    reg = load_registry(Path(__file__).resolve().parents[2] / "claims" / "ch15" / "claims.toml")
    assert reg.issues == []
    ids = [s.id for s in reg.sections]
    assert len(ids) >= 5 and all(c.section in ids for c in reg.claims.values())
    assert reg.claims["C01"].section == ids[0] and reg.claims["C37"].section == ids[-1]


def test_draft_claims_are_marked_and_a_bad_draft_flag_is_named(tmp_path):
    reg = load_registry(write(tmp_path, GOOD.format(id="C01") + "draft = true\n" + GOOD.format(id="C02")))
    assert reg.issues == [] and reg.claims["C01"].draft and not reg.claims["C02"].draft
    reg = registry_with(tmp_path, GOOD.format(id="C09") + 'draft = "yes"\n')
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C09", "draft")] and "true or false" in str(
        reg.issues[0]
    )


def _wrong_kind(field):
    return "3" if field.kind is BOOL else "true"  # TOML text of a value not of the field's kind


@pytest.mark.parametrize("field", CLAIM_FIELDS, ids=lambda f: f.name)
def test_every_claim_field_of_the_table_is_checked_for_its_kind(tmp_path, field):
    body = GOOD.format(id="C09").strip().splitlines()
    lines = [ln for ln in body if not ln.startswith(field.name + " ")]
    lines.append(f"{field.name} = {_wrong_kind(field)}")
    if field.name in ("conditions", "precision"):
        lines.append('formula = "stated"')
    reg = registry_with(tmp_path, "\n" + "\n".join(lines) + "\n")
    cid = "#4 (no id)" if field.name == "id" else "C09"
    assert [(i.claim_id, i.field) for i in reg.issues] == [(cid, field.name)], reg.issues
    assert "must be" in reg.issues[0].message and list(reg.claims) == ["C01", "C02", "C03"]


def test_an_optional_field_left_out_takes_the_tables_default(tmp_path):
    claim = load_registry(write(tmp_path, GOOD.format(id="C01"))).claims["C01"]
    for f in CLAIM_FIELDS:
        if not f.required:
            assert getattr(claim, f.name) == f.default, f.name


def test_a_broken_claim_is_named_by_its_id_even_with_a_quoted_key_and_a_comment(tmp_path):
    body = (
        GOOD.format(id="C01")
        + '\n[[claims]]  # the broken one\n"id" = "C02"  # a comment\ntitle = t\n'
        + GOOD.format(id="C03")
    )
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C02", None)]
    assert list(reg.claims) == ["C01", "C03"] and "at line 13" in str(reg.issues[0])


def test_huge_values_cost_a_short_line_each(tmp_path):
    """A 1 MB value in any field (a unit once took minutes in pint's parser) is one short problem."""
    big = "x" * 1_000_000
    entries = {
        "unit": f'unit = "{big}"',
        "needs": f'needs = ["{big}"]',
        "title": f'title = "{big}"',
        "key": f'"{big}" = 1',
    }
    text = "[chapter]\n"
    for i, (key, line) in enumerate(entries.items()):
        kept = [ln for ln in GOOD.format(id=f"C{i + 10}").splitlines() if not ln.startswith(key + " ")]
        text += "\n".join(kept + [line]) + "\n"
    path = tmp_path / "claims.toml"
    path.write_text(text, encoding="utf-8")
    reg = load_registry(path)
    messages = [str(i) for i in reg.issues]
    assert {i.claim_id for i in reg.issues} == {"C10", "C11", "C12", "C13"}
    assert all(len(m) < 700 for m in messages), [m[:100] for m in messages]


def test_a_claim_naming_a_broken_claim_says_it_is_broken_not_undeclared(tmp_path):
    """One claim's bad unit (C04) does not make another claim's message wrong: C05's condition
    names a claim the registry declares, whose own issue says what is wrong with it."""
    bad = GOOD.format(id="C04").replace('unit = "KiB/token"', 'unit = "merge"')
    other = GOOD.format(id="C05").replace(
        'needs = ["arch"]', 'needs = ["arch"]\nformula = "stated"\nconditions = ["C04.stated == 36"]'
    )
    reg = load_registry(write(tmp_path, GOOD.format(id="C03") + bad + other))
    by_claim = {(i.claim_id, i.field): str(i) for i in reg.issues}
    assert set(by_claim) == {("C04", "unit"), ("C05", "conditions")}
    assert "unknown unit 'merge'" in by_claim["C04", "unit"]
    words = by_claim["C05", "conditions"]
    assert "names claim 'C04', which is declared but has a registry error of its own" in words
    assert "does not declare" not in words and "did you mean" not in words
    # an id no table declares is still named as such
    typo = GOOD.format(id="C06").replace('needs = ["arch"]', 'needs = ["arch"]\nformula = "C07.stated"')
    reg = load_registry(write(tmp_path, GOOD.format(id="C03") + typo))
    assert "'C07', which the registry does not declare" in str(reg.issues_for("C06")[0])


# --- the dense form: [claims] keyed by id, [defaults] ---------------------------------------------
DEFAULTS = '[defaults]\nunit = "token"\ntolerance = "exact"\nneeds = ["tok"]\n\n'


def line(cid, stated="3", extra=""):
    return f'{cid} = {{ title = "t", stated = "{stated}", locator = "{stated} 个"{extra} }}\n'


def test_claims_keyed_by_id_one_line_each_take_the_defaults(tmp_path):
    body = DEFAULTS + "[claims]\n" + line("C01") + line("C02", "5", ', unit = "", needs = ["text"]')
    reg = load_registry(write(tmp_path, body))
    assert reg.issues == [] and list(reg.claims) == ["C01", "C02"]
    c1, c2 = reg.claims["C01"], reg.claims["C02"]
    assert (c1.unit, c1.tolerance_text, c1.needs) == ("token", "exact", ("tok",))
    assert (c2.unit, c2.tolerance_text, c2.needs) == ("", "exact", ("text",))  # its own values replace them


def test_keyed_tables_lines_and_quoted_part_ids_mix_in_one_file(tmp_path):
    body = (
        DEFAULTS
        + "[claims]\n"
        + line("C01")
        + line('"C30.text"', "7")
        + '\n[claims.C05]\ntitle = "t"\nstated = "36"\nunit = "KiB/token"\nlocator = "36 KiB"\n'
        + 'values = { n = "2" }\n\n[claims."C30.model"]\ntitle = "t"\nstated = "9"\nlocator = "9 个"\n'
    )
    reg = load_registry(write(tmp_path, body))
    assert reg.issues == [] and list(reg.claims) == ["C01", "C30.text", "C05", "C30.model"]
    assert reg.claims["C05"].values["n"] == "2" and reg.claims["C05"].tolerance_text == "exact"
    # the same claims as [[claims]] tables: the same Claim values
    arrays = "".join(
        f'\n[[claims]]\nid = "{c.id}"\ntitle = "t"\nstated = "{c.stated}"\nunit = "{c.unit}"\n'
        f'locator = "{c.locator}"\ntolerance = "exact"\nneeds = ["tok"]\n'
        + ('values = { n = "2" }\n' if c.values else "")
        for c in reg.claims.values()
    )
    same = load_registry(write(tmp_path, arrays, "arrays.toml"))
    strip = lambda r: {k: {f: v for f, v in vars(c).items() if f != "path"} for k, c in r.claims.items()}  # noqa: E731
    assert same.issues == [] and strip(same) == strip(reg)


@pytest.mark.parametrize(
    "claim",
    [
        '[claims.C30.text]\ntitle = "t"\nstated = "3"\nlocator = "3 个"\n',
        'C30.text = { title = "t", stated = "3", locator = "3 个" }\n',  # TOML reads it as C30 -> text
    ],
    ids=["table", "line"],
)
def test_an_unquoted_part_id_is_an_error_that_says_to_quote_it(tmp_path, claim):
    body = DEFAULTS + "[claims]\n" + line("C01") + ("\n" if claim.startswith("[") else "") + claim
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C30.text", "id")]
    assert '[claims."C30.text"]' in str(reg.issues[0]) and "quote it" in str(reg.issues[0])
    assert list(reg.claims) == ["C01"] and reg.issues_for("C30.text")


def test_a_bad_default_is_one_issue_and_the_claims_that_take_it_are_invalid(tmp_path):
    body = (
        DEFAULTS.replace('"token"', '"tokn"')
        + "[claims]\n"
        + line("C01")
        + line("C02")
        + line("C03", "3", ', unit = ""')
    )
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [(None, "defaults.unit")]
    assert "unknown unit 'tokn'" in str(reg.issues[0]) and str(tmp_path / "claims.toml") in str(reg.issues[0])
    assert list(reg.claims) == ["C03"]  # it sets its own unit
    assert reg.issues_for("C01") == reg.issues_for("C02") == reg.issues


@pytest.mark.parametrize(
    "key, words",
    [
        ("tolerence", "did you mean 'tolerance'"),
        ("title", "cannot be a default: each claim has its own title"),
        ("locator", "cannot be a default"),
    ],
)
def test_an_unknown_or_unshared_default_is_named(tmp_path, key, words):
    body = DEFAULTS.replace("tolerance", key) + "[claims]\n" + line("C01", "3", ', tolerance = "exact"')
    body += line("C02")
    reg = load_registry(write(tmp_path, body))
    assert reg.issues[0].field == f"defaults.{key}" and words in str(reg.issues[0])
    assert "C01" in reg.claims and "C02" not in reg.claims  # C01 sets the field itself
    if key == "tolerence":  # a misspelt shared default: the claims without one are invalid by it alone
        assert reg.issues_for("C02") == reg.issues
    else:  # not a default at all: C02 has no tolerance
        assert [(i.claim_id, i.field) for i in reg.issues[1:]] == [("C02", "tolerance")]


def test_a_default_precision_is_for_the_claims_with_a_formula(tmp_path):
    formula = ', formula = "stated"'
    body = DEFAULTS + 'precision = "exact"\n\n[claims]\n' + line("C01") + line("C02", "3", formula)
    body += line("C03", "3", formula + ', precision = "printed", tolerance = "printed"')
    body += line("C04", "3", ', formula = "C01.stated"')  # names a claim without a formula
    reg = load_registry(write(tmp_path, body))
    assert reg.issues == [] and list(reg.claims) == ["C01", "C02", "C03", "C04"]
    got = {cid: c.precision for cid, c in reg.claims.items()}
    assert got == {"C01": "printed", "C02": "exact", "C03": "printed", "C04": "exact"}
    # a claim's own precision without a formula is still an error
    reg = load_registry(write(tmp_path, body + line("C05", "3", ', precision = "exact"')))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C05", "precision")]
    # a bad default precision invalidates only the claims that would take it
    body = body.replace('precision = "exact"', 'precision = "exakt"', 1).replace('"exact"', '"printed"', 1)
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [(None, "defaults.precision")]
    assert list(reg.claims) == ["C01", "C03"] and reg.issues_for("C02") == reg.issues


def test_defaults_apply_to_the_array_form_too(tmp_path):
    body = (
        DEFAULTS + '[[claims]]\nid = "C01"\ntitle = "t"\nstated = "3"\nlocator = "3 个"\nneeds = ["text"]\n'
    )
    reg = load_registry(write(tmp_path, body))
    assert reg.issues == [] and reg.claims["C01"].unit == "token" and reg.claims["C01"].needs == ("text",)


def test_a_broken_line_of_claims_loses_only_its_claim(tmp_path):
    body = (
        DEFAULTS
        + "[claims]\n"
        + line("C01")
        + 'C02 = { title = "t", stated = 5, locator = "5 个"\n'
        + line("C03")
    )
    body += '\n[[waivers]]\nlocator = "Chapter 15"\nreason = "a chapter number"\n'
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C02", None)]
    assert "not valid TOML" in str(reg.issues[0]) and "line 8" in str(reg.issues[0])
    assert list(reg.claims) == ["C01", "C03"] and len(reg.waivers) == 1 and reg.issues_for("C02")


def test_a_broken_claim_table_is_named_by_its_header(tmp_path):
    body = DEFAULTS + "[claims]\n" + line("C01") + '\n[claims.C05]\ntitle = t\nstated = "3"\n'
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C05", None)]
    assert list(reg.claims) == ["C01"] and "at line 10" in str(reg.issues[0])


def test_bad_bytes_on_one_line_cost_only_its_claim(tmp_path):
    body = DEFAULTS + "[claims]\n" + line("C01") + line("C02").replace("3 个", "三 3") + line("C03")
    body += '\n[claims.C04]\ntitle = "t"\nstated = "4"\nlocator = "四 4"\n'
    p = tmp_path / "claims.toml"
    p.write_bytes(body.replace("个", "x").encode("gb18030"))
    reg = load_registry(p)
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C02", "locator"), ("C04", "locator")]
    assert "line 8: 2 byte sequences" in str(reg.issues[0]) and "line 14" in str(reg.issues[1])
    assert list(reg.claims) == ["C01", "C03"]


@pytest.mark.parametrize(
    "body, bad",
    [
        (
            '[[claims]]\nid = "C01"\n{fields}\n[claims]\n{line2}',
            "C02",
        ),  # TOML's error: each claim of [claims]
        ('[claims]\n{line2}\n[[claims]]\nid = "C01"\n{fields}\n', "C01"),
        (
            '[[claims]]\nid = "C01"\n{fields}\n[claims.C02]\ntitle = "t"\nstated = "3"\nlocator = "3 个"\n',
            "C02",
        ),
    ],
)
def test_both_forms_in_one_file_say_to_write_one(tmp_path, body, bad):
    fields = 'title = "t"\nstated = "3"\nlocator = "3 个"'
    reg = load_registry(write(tmp_path, DEFAULTS + body.format(fields=fields, line2=line("C02"))))
    assert [i.claim_id for i in reg.issues] == [bad]
    assert "a registry writes its claims one way" in str(reg.issues[0])
    assert list(reg.claims) == [{"C01": "C02", "C02": "C01"}[bad]] and reg.issues_for(bad)


def test_a_keyed_claim_that_is_no_table_or_names_another_id_is_named(tmp_path):
    body = (
        DEFAULTS + "[claims]\nC01 = 5\n" + line("C02", "3", ', id = "C09"') + line("C03", "3", ', id = "C03"')
    )
    reg = load_registry(write(tmp_path, body))
    assert [(i.claim_id, i.field) for i in reg.issues] == [("C01", None), ("C02", "id")]
    assert "must be a table" in str(reg.issues[0]) and "drop 'id'" in str(reg.issues[1])
    assert list(reg.claims) == ["C03"]


def test_a_claim_defined_twice_in_the_keyed_form_costs_only_the_second(tmp_path):
    body = DEFAULTS + "[claims]\n" + line("C01") + '\n[claims.C01]\ntitle = "t"\n'
    reg = load_registry(write(tmp_path, body))
    assert [i.claim_id for i in reg.issues] == ["C01"] and "defined twice" in str(reg.issues[0])


def test_claim_lines_find_every_form(tmp_path):
    from claimcheck.registry import claim_lines

    body = DEFAULTS + "[claims]\n" + line("C01") + line('"C30.text"') + "\n[claims.C05]\ntitle = 't'\n"
    assert claim_lines(write(tmp_path, body)) == {"C01": 7, "C30.text": 8, "C05": 10}
    assert claim_lines(write(tmp_path, GOOD.format(id="C01"), "a.toml")) == {"C01": 3}


def test_a_second_claims_table_costs_its_lines_and_says_how_to_keep_them(tmp_path):
    body = (
        DEFAULTS + "[claims]\n" + line("C01") + '\n[claims.C02]\ntitle = "t"\nstated = "3"\nlocator = "x 3"\n'
    )
    body += "\n[claims]\n" + line("C03") + line("C04")
    reg = load_registry(write(tmp_path, body))
    assert [i.claim_id for i in reg.issues] == ["C03", "C04"] and list(reg.claims) == ["C01", "C02"]
    assert all(
        "move this line into the first one, or write the claim as a [claims.ID]" in str(i) for i in reg.issues
    )


def test_windows_line_ends_cost_only_the_broken_line(tmp_path):
    body = DEFAULTS + "[claims]\n" + line("C01") + 'C02 = { title = "t", stated = "3"\n' + line("C03")
    path = tmp_path / "claims.toml"
    path.write_bytes(body.replace("\n", "\r\n").encode("utf-8"))
    reg = load_registry(path)
    assert list(reg.claims) == ["C01", "C03"] and [i.claim_id for i in reg.issues] == ["C02"]


@pytest.mark.parametrize(
    "bad, named",
    [
        (b'C\xff2 = { title = "t", stated = "3", locator = "3 \xe4\xb8\xaa" }\n', "C_2"),  # in a line's key
        (b'[claims.C\xff2]\ntitle = "t"\nstated = "3"\nlocator = "3 \xe4\xb8\xaa"\n', "C_2"),  # in a header
    ],
)
def test_a_bad_byte_in_a_claims_id_names_that_claim_and_costs_no_other(tmp_path, bad, named):
    body = (DEFAULTS + "[claims]\n" + line("C01") + line("C03")).encode("utf-8")
    path = tmp_path / "claims.toml"
    path.write_bytes(body.replace(b"C03 =", bad + b"C03 =") if bad.startswith(b"C") else body + bad)
    reg = load_registry(path)
    assert sorted(reg.claims) == ["C01", "C03"]
    assert {i.claim_id for i in reg.issues} == {named} and "byte 0xff is not UTF-8" in str(reg.issues[-1])


def test_a_bad_byte_on_the_second_line_of_an_inline_table_names_its_claim(tmp_path):
    """An inline table that runs over two lines: the bad byte on its second line is C02's problem,
    not a claim named after the key on that line."""
    two_lines = b'C02 = { title = "t", stated = "3",\n    locator = "3 \xff" }\n'
    body = (DEFAULTS + "[claims]\n" + line("C01")).encode("utf-8") + two_lines + line("C03").encode("utf-8")
    path = tmp_path / "claims.toml"
    path.write_bytes(body)
    reg = load_registry(path)
    assert sorted(reg.claims) == ["C01", "C03"]
    assert {i.claim_id for i in reg.issues} == {"C02"} and "byte 0xff is not UTF-8" in str(reg.issues[-1])


def test_a_claim_table_before_the_claims_lines_costs_only_the_clashing_line(tmp_path):
    body = DEFAULTS + '[claims.C01]\ntitle = "t"\nstated = "3"\nlocator = "3 个"\n\n[claims]\n'
    body += line("C01") + line("C02")
    reg = load_registry(write(tmp_path, body))
    assert list(reg.claims) == ["C01", "C02"] and [i.claim_id for i in reg.issues] == ["C01"]
    assert "defined twice" in str(reg.issues[0]) and "one [claims] table" not in str(reg.issues[0])


def test_an_inline_table_over_two_lines_is_one_claims_error_that_says_why(tmp_path):
    body = (
        DEFAULTS + "[claims]\n" + line("C01") + 'C02 = { title = "t", stated = "3",\n    locator = "3 个" }\n'
    )
    reg = load_registry(write(tmp_path, body + line("C03")))
    assert list(reg.claims) == ["C01", "C03"] and [i.claim_id for i in reg.issues] == ["C02"]
    assert "must be written on one line" in str(reg.issues[0])


def test_many_undecodable_lines_split_their_table_once(tmp_path, monkeypatch):
    """Every line with a byte that is not UTF-8 is named, and the [claims] table holding them is
    split into its statements once, not once per bad line (that was quadratic: 25 s for 4,000 lines
    on a 2-core runner). Counted, not timed."""
    from claimcheck import fileio

    splits = []
    real = fileio.TomlTable.statements
    monkeypatch.setattr(fileio.TomlTable, "statements", lambda self: splits.append(self.first) or real(self))
    rows = b"".join(
        f'C{i:04d} = {{ title = "t\xff", stated = "3", locator = "3 \xe4\xb8\xaa" }}\n'.encode("latin-1")
        for i in range(1000)
    )
    path = tmp_path / "claims.toml"
    path.write_bytes(DEFAULTS.encode() + b"[claims]\n" + rows)
    reg = load_registry(path)
    assert len(reg.invalid) == 1000 and not reg.claims
    assert all("byte 0xff is not UTF-8" in str(i) for i in reg.issues)
    assert len(splits) <= 3, len(splits)  # the recovery's own reading, the bad bytes' scan
