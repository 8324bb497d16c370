"""Claim ids read from test modules without importing them (claimcheck.book)."""

from claimcheck.book import claim_ids_in_file, claim_marks, scan

SOURCE = '''
import pytest
import nosuchmodule  # the module cannot be imported; its ids are still found

# pytest.mark.claim("C99") in a comment is not a mark
@pytest.mark.claim("C01")
def test_a(claim):
    """mentions pytest.mark.claim('C98') in a docstring"""

@pytest.mark.parametrize("x", [1, 2])
@pytest.mark.claim('C30.text')
def test_b(claim, x):
    pass
'''


def test_marks_are_read_with_ast():
    marks = claim_marks(SOURCE, "test_x.py")
    assert [(m.claim_id, m.line) for m in marks] == [("C01", 6), ("C30.text", 11)]
    assert str(marks[0]) == "test_x.py:6"


def test_a_module_that_does_not_parse_is_searched_by_pattern():
    broken = SOURCE.replace("def test_a(claim):", "def test_a(claim:")
    assert [m.claim_id for m in claim_marks(broken)] == ["C99", "C01", "C98", "C30.text"]  # a best effort


def test_a_long_call_chain_does_not_stop_the_scan():
    # "never raises": a module with a 250-call chain (a builder, a generated table) parses, and reading its
    # marks must not recurse through the chain (an unimportable one's claims are then errors, not INTERNALERROR)
    chained = SOURCE + "\n\ndef table(q):\n    return q" + ".add(1)" * 250 + "\n"
    assert [m.claim_id for m in claim_marks(chained)] == ["C01", "C30.text"]


def test_scan_a_folder(tmp_path):
    (tmp_path / "test_x.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "helpers.py").write_text(
        'pytest.mark.claim("C77")', encoding="utf-8"
    )  # not a test module
    (tmp_path / "sub" / "gpu_test.py").write_bytes(
        b'import pytest\n@pytest.mark.claim("C34")\ndef test_g(): pass\n\xff'
    )
    found = scan(tmp_path)
    assert sorted(found) == ["C01", "C30.text", "C34"]
    assert claim_ids_in_file(tmp_path / "test_x.py") == ["C01", "C30.text"]
    assert claim_ids_in_file(tmp_path / "missing.py") == []
