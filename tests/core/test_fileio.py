"""Atomic report writes (claimcheck.fileio): the old file or the new one, never half of one."""

import os
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
