"""A large results file (issue 37, item 4): read through the input limit like every other input, and
merged or diffed in time linear in its claims. Each test but the last fails on ada5640."""

import json
from pathlib import Path

import pytest

from claimcheck import fileio
from claimcheck.cli import main
from claimcheck.results import ClaimEntry, ClaimsDoc, ResultFileError, read_document
from claimcheck.runs import diff, merge


def entry(cid, outcome="passed"):
    return {"id": cid, "key": f"ch15:{cid}", "chapter": "ch15", "outcome": outcome, "measured": 36.0}


def write(path: Path, *claims) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        json.dumps({"schema": 2, "runner": {"cpu": "x"}, "claims": list(claims)}), encoding="utf-8"
    )
    return path


def test_a_results_file_over_the_input_limit_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "huge" / "claims.json"
    big.parent.mkdir()
    with open(big, "wb") as fh:  # sparse: 33 MiB long, nothing written
        fh.truncate(fileio.MAX_INPUT_BYTES + 2**20)
    with pytest.raises(ResultFileError) as info:
        read_document(big)
    assert str(info.value) == (
        f"{big}: 34,603,008 bytes, over the limit of 33,554,432 bytes for an input file"
    )


def test_every_command_refuses_a_results_file_over_the_limit_naming_it(tmp_path, monkeypatch, capsys):
    good = write(tmp_path / "good" / "claims.json", entry("C01"))
    big = write(tmp_path / "big" / "claims.json", *(entry(f"C{i:03}") for i in range(100)))
    monkeypatch.setattr(fileio, "MAX_INPUT_BYTES", 4000)  # the big file is 9 KB: over; the good one under
    said = f"error: {big}: {big.stat().st_size:,} bytes, over the limit of 4,000 bytes for an input file"
    for command, code in (
        (["report", str(big)], 2),
        (["summary", str(big)], 2),
        (["diff", str(good), str(big)], 2),
        (["merge", str(good), str(big), "-o", str(tmp_path / "m.html")], 1),  # the good one merged
    ):
        assert main(command) == code, command
        err = capsys.readouterr().err
        assert said in err.splitlines(), (command, err)
    assert (tmp_path / "m.html").is_file() and not (tmp_path / "big" / "claims.html").exists()


class Key(str):
    """A claim key that counts how often it is compared: a list's ``in``/``index`` compares a key with
    every key before it (quadratic); a dict hashes it."""

    compared = 0

    def __eq__(self, other):
        Key.compared += 1
        return str.__eq__(self, other)

    __hash__ = str.__hash__


def runs_of(n: int) -> tuple[ClaimsDoc, ClaimsDoc]:
    """OLD with every other claim of NEW's n, so that each of NEW's is placed among OLD's."""
    keys = [Key(f"ch15:C{i}") for i in range(n)]
    old = ClaimsDoc(path="old.json", claims=[ClaimEntry(key=k, id=k[5:]) for k in keys[::2]])
    new = ClaimsDoc(path="new.json", claims=[ClaimEntry(key=k, id=k[5:], outcome="failed") for k in keys])
    return old, new


def test_merge_and_diff_compare_each_claim_key_a_bounded_number_of_times():
    """Linear in claims: 80,000 rows took 229 s (merge) and 141 s (diff) at ada5640, as
    ``runs._ordered_ids`` placed each key with ``list.index``/``insert`` (2,000 rows: 2.5 million key
    comparisons); now each key is hashed, and compared only on a hash collision."""
    n = 2000
    old, new = runs_of(n)
    Key.compared = 0
    m = merge([old, new])
    assert len(m.rows) == n and [r.id for r in m.rows][:3] == ["ch15:C0", "ch15:C1", "ch15:C2"]
    d = diff(old, new)
    assert len(d.changes) == n
    assert Key.compared <= 4 * n, Key.compared


def test_a_new_key_goes_after_the_key_it_follows_and_first_keys_go_first():
    def run(*keys):
        return ClaimsDoc(path="x.json", claims=[ClaimEntry(key=k, id=k) for k in keys])

    m = merge([run("B", "D"), run("A", "B", "C", "D", "E"), run("Z", "B", "Y")])
    assert [r.id for r in m.rows] == ["Z", "A", "B", "Y", "C", "D", "E"]
