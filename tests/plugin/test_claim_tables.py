"""A claim test reads its registry entry's printed numbers (``claim.value``) and model inputs
(``claim.inputs``, ``claim.input``); a name the entry lacks is an error naming claim and file."""

from tests.claimkit import claim_toml, claims_project

REGISTRY = claim_toml(
    "C07",
    title="a CJK character is three UTF-8 bytes",
    stated="3",
    unit="B",
    tolerance="exact",
    needs='["text"]',
    extra='values = { chars = "1" }\ninputs = { word = "字" }\n',
) + claim_toml("C08", stated="3", unit="B", tolerance="exact", needs='["text"]')

TESTS = """
import pytest


@pytest.mark.claim("C07")
def test_reads_its_tables(claim):
    word = claim.input("word")
    assert dict(claim.inputs) == {"word": word}
    claim.require(len(word) == int(claim.value("chars")), f"{word!r} is not one character")
    claim.check(len(word.encode("utf-8")), "B", word=word)


@pytest.mark.claim("C08")
def test_names_an_input_it_lacks(claim):
    assert dict(claim.inputs) == {}
    claim.check(len(claim.input("word").encode("utf-8")))
"""


def test_value_and_inputs_of_the_claim_fixture(pytester, monkeypatch):
    project = claims_project(pytester, REGISTRY, {"test_tables.py": TESTS}, monkeypatch=monkeypatch)
    project.run()
    got = project.report().claims
    assert got["C07"]["outcome"] == "passed" and got["C07"]["details"]["word"] == "字"
    assert got["C08"]["outcome"] == "error"
    assert "claims.toml: claim C08: no input 'word' in 'inputs' (has: none)" in got["C08"]["reason"]
