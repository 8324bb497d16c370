"""Chapter-qualified claim keys (claimcheck.keys) and the one reader of claims.json (claimcheck.results)."""

import json

import pytest

from claimcheck.keys import ClaimKeyError, entry_key, qualify, resolve_key, split
from claimcheck.results import SCHEMA, ResultFileError, read_document

KEYS = ["ch15:C10", "ch15:C18", "ch16:C10", "ch16:C03"]


def test_qualify_and_split():
    assert qualify("ch15", "C18") == "ch15:C18" and qualify("ch15", "ch16:C18") == "ch16:C18"
    assert split("ch15:C30.text") == ("ch15", "C30.text") and split("C18") == (None, "C18")
    assert entry_key({"id": "C18", "chapter": "ch15"}) == "ch15:C18" and entry_key({"id": "C18"}) == "C18"


def test_a_short_id_resolves_where_one_chapter_declares_it():
    assert resolve_key("C18", KEYS) == "ch15:C18" and resolve_key("ch16:C10", KEYS) == "ch16:C10"


def test_an_ambiguous_short_id_names_every_candidate():
    with pytest.raises(ClaimKeyError, match="ambiguous.*ch15:C10, ch16:C10"):
        resolve_key("C10", KEYS)


def test_an_unknown_name_suggests_the_closest():
    with pytest.raises(ClaimKeyError, match="no claim 'ch15:C81' in chapters ch15, ch16.*ch15:C18"):
        resolve_key("ch15:C81", KEYS)


def write(tmp_path, doc):
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def test_a_schema_1_report_is_read_as_its_one_chapter_and_says_so(tmp_path):
    path = write(
        tmp_path,
        {
            "runner": {},
            "registries": [{"path": "claims/ch15/claims.toml", "chapter": {"id": "ch15"}}],
            "claims": [{"id": "C18", "outcome": "passed"}],
            "sections": [{"id": "read"}],
        },
    )
    doc = read_document(path)
    assert doc.claims[0].key == "ch15:C18" and doc.sections[0].chapter == "ch15"
    assert "schema-1 report" in doc.notes[0] and "chapter ch15" in doc.notes[0]


@pytest.mark.parametrize(
    "schema, words",
    [
        (SCHEMA + 1, "newer than the versions this claimcheck reads.*upgrade"),
        ("2", "expected an integer"),
        (0, "not one of the versions"),
    ],
)
def test_an_unknown_schema_is_refused_by_name(tmp_path, schema, words):
    with pytest.raises(ResultFileError, match=words):
        read_document(write(tmp_path, {"schema": schema, "runner": {}, "claims": []}))


def test_the_cli_refuses_a_newer_schema_with_exit_2(tmp_path, capsys):
    from claimcheck.cli import main

    path = write(tmp_path, {"schema": 99, "runner": {}, "claims": []})
    for command in (["report", str(path)], ["summary", str(path)], ["diff", str(path), str(path)]):
        assert main(command) == 2, command
        assert "schema 99 is newer" in capsys.readouterr().err


def test_an_unknown_chapter_is_named_as_such():
    with pytest.raises(ClaimKeyError, match="no chapter 'ch17'.*the chapters are ch15, ch16"):
        resolve_key("ch17:C10", KEYS)
