"""claimcheck.fileio: inputs are regular files of bounded size; atomic report writes (the old file or the
new one, never half of one)."""

import os
import threading
import time

import pytest

from claimcheck import fileio


def test_write_replaces_and_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "reports" / "claims.json"
    fileio.write_atomic(target, "{}")
    fileio.write_atomic(target, '{"new": 1}')
    assert target.read_text(encoding="utf-8") == '{"new": 1}'
    assert [p.name for p in target.parent.iterdir()] == ["claims.json"]


def test_a_write_that_fails_keeps_the_old_file_and_cleans_up(tmp_path, monkeypatch):
    target = tmp_path / "claims.json"
    target.write_text("old", encoding="utf-8")

    def killed(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(fileio.os, "replace", killed)
    with pytest.raises(OSError, match="No space left"):
        fileio.write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["claims.json"]


def test_temporary_names_are_unique_to_the_writer(tmp_path, monkeypatch):
    names = []
    real = fileio.tempfile.mkstemp
    monkeypatch.setattr(fileio.tempfile, "mkstemp", lambda **kw: (names.append(kw["prefix"]), real(**kw))[1])
    fileio.write_atomic(tmp_path / "claims.html", "<html></html>")
    assert names == [f".claims.html.{os.getpid()}."]


def test_leftovers_of_killed_runs_are_removed_when_old(tmp_path):
    old = tmp_path / ".claims.json.111.abc.tmp"
    fresh = tmp_path / ".claims.json.222.def.tmp"
    other = tmp_path / ".notes.txt.333.ghi.tmp"
    for p in (old, fresh, other):
        p.write_text("half", encoding="utf-8")
    os.utime(old, (time.time() - 3600,) * 2)
    os.utime(other, (time.time() - 3600,) * 2)
    assert fileio.remove_leftovers(tmp_path, ["claims.json", "claims.html"]) == [old]
    assert not old.exists() and fresh.exists() and other.exists()


# --- reading inputs ------------------------------------------------------------------------------
def test_a_regular_file_is_read_whole(tmp_path):
    path = tmp_path / "ch.md"
    path.write_bytes(b"x" * 100)
    assert fileio.read_input_file(path, limit=100) == b"x" * 100
    assert fileio.check_input_file(path).st_size == 100


def test_a_file_over_the_limit_is_refused_by_its_size(tmp_path):
    path = tmp_path / "ch.md"
    path.write_bytes(b"x" * 101)
    with pytest.raises(fileio.InputFileError, match="101 bytes, over the limit of 100 bytes") as exc:
        fileio.read_input_file(path, limit=100)
    assert exc.value.strerror.startswith("101 bytes")  # what `except OSError: exc.strerror` shows


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero here")
def test_a_device_is_refused_before_any_read():
    with pytest.raises(fileio.InputFileError, match="a character device, not a regular file"):
        fileio.read_input_file("/dev/zero")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "ch.md"
    os.mkfifo(fifo)
    outcome = []
    reader = threading.Thread(target=lambda: outcome.append(_refusal(fifo)), daemon=True)
    reader.start()
    reader.join(5)  # an open() of a FIFO with no writer blocks forever
    assert outcome and "a FIFO (named pipe), not a regular file" in outcome[0]


def _refusal(path) -> str:
    try:
        fileio.read_input_file(path)
    except fileio.InputFileError as exc:
        return exc.strerror
    return "read"


def test_missing_and_folder_are_the_usual_os_errors(tmp_path):
    with pytest.raises(FileNotFoundError):
        fileio.read_input_file(tmp_path / "nothere")
    with pytest.raises(IsADirectoryError):
        fileio.read_input_file(tmp_path)


def test_a_link_to_a_regular_file_is_read(tmp_path):
    (tmp_path / "real.md").write_bytes(b"text")
    (tmp_path / "link.md").symlink_to(tmp_path / "real.md")
    assert fileio.read_input_file(tmp_path / "link.md") == b"text"


# --- the TOML reader ---------------------------------------------------------------------------
def test_headers_are_split_with_their_whole_path():
    text = '[chapter]\nid = "x"\n[claims]\nC01 = { a = 1 }\n[claims."C30.text"]\nb = 2\n[[waivers]]\nc = 3\n'
    got = [(t.header, t.keys, t.array, t.first, t.last) for t in fileio.toml_tables(text)]
    assert got == [
        ("chapter", ("chapter",), False, 1, 2),
        ("claims", ("claims",), False, 3, 4),
        ("claims", ("claims", "C30.text"), False, 5, 6),
        ("waivers", ("waivers",), True, 7, 9),
    ]


def test_a_broken_table_read_by_line_loses_only_its_broken_statements():
    text = (
        "[claims]\nC01 = { a = 1 }\nC02 = { a = \nC03 = { a = [\n  3,\n] }\n# a comment\n\n[other]\nx = 1\n"
    )
    data, broken = fileio.read_toml(text, by_line=("claims",))
    assert data == {"claims": {"C01": {"a": 1}, "C03": {"a": [3]}}, "other": {"x": 1}}
    assert [(b.table.first, b.table.key_at(b.table.first)) for b in broken] == [(3, "C02")]
    assert "(at line 3, its end)" in broken[0].message
    data, broken = fileio.read_toml(text)  # not by line: the whole table is lost
    assert data == {"other": {"x": 1}} and [b.table.first for b in broken] == [1]


def test_a_table_that_clashes_with_an_earlier_one_is_broken_alone():
    text = '[[claims]]\nid = "C01"\n[claims]\nC02 = { a = 1 }\nC03 = { a = 2 }\n[chapter]\nid = "x"\n'
    data, broken = fileio.read_toml(text, by_line=("claims",))
    assert data == {"claims": [{"id": "C01"}], "chapter": {"id": "x"}}
    assert [(b.clash, b.table.key_at(b.table.first)) for b in broken] == [(True, "C02"), (True, "C03")]
    assert "already an array of tables" in broken[0].message
    # a sub-table after [[claims]] is the last element's, as TOML reads it; a table defined twice clashes
    data, broken = fileio.read_toml("[[c]]\nid = 1\n[c.v]\nx = 1\n[d]\na = 1\n[d]\nb = 2\n")
    assert data == {"c": [{"id": 1, "v": {"x": 1}}], "d": {"a": 1}} and "defined twice" in broken[0].message
