"""Hostile inputs and outputs of the ``claimcheck`` commands, found by attacking issue 37's part B: a
results file nested deep enough to break the code after ``json.loads``, an output named by a device,
a FIFO or ``/dev/stdout``. Each test fails on b87f89a."""

import json
import os
import re
import stat
import sys
from pathlib import Path

import pytest

from claimcheck import fileio
from claimcheck.cli import main
from tests.core.test_untrusted_runs import document, entry


def write(path: Path, doc: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc) if not isinstance(doc, str) else doc, encoding="utf-8")
    return path


def nested(depth: int) -> str:
    return "[" * depth + "1" + "]" * depth


@pytest.mark.parametrize("depth", [150, 600, 900])
def test_a_deeply_nested_results_file_is_refused_by_every_command(tmp_path, capsys, depth):
    """A runner field nested 600 deep passed json.loads and broke ``merge --json`` with a RecursionError
    traceback (display.json_value); every reader now refuses a file nested deeper than 100."""
    good = write(tmp_path / "a" / "claims.json", document(entry("C01")))
    text = json.dumps(document(entry("C01", "failed"), runner={"cpu": "x"})).replace('"x"', nested(depth))
    deep = write(tmp_path / "b" / "claims.json", text)
    out = tmp_path / "m.html"
    assert main(["merge", str(good), str(deep), "-o", str(out), "--json", str(tmp_path / "m.json")]) == 1
    assert main(["diff", str(good), str(deep)]) == 2
    assert main(["summary", str(deep)]) == 2
    assert main(["report", str(deep), "-o", str(tmp_path / "r.html")]) == 2
    err = capsys.readouterr().err
    assert err.count(f"error: {deep}: not usable JSON (nested too deeply)") == 4
    assert "Traceback" not in err
    assert json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))["runners"][0]["label"]


def test_a_claimcheck_files_own_nesting_is_read():
    shallow = json.loads(nested(fileio.MAX_JSON_DEPTH - 1))
    assert not fileio.too_deep({"a": shallow}) and fileio.too_deep({"a": [shallow]})
    assert not fileio.too_deep([{}] * 100_000)  # long is not deep


def test_a_report_folders_deeply_nested_claims_json_is_not_ours(tmp_path):
    """A run's start reads the claims.json already in the report folder: 100,000 levels deep raised a
    RecursionError out of ``not_ours`` (the run's set-up failed with a traceback)."""
    deep = write(tmp_path / "claims.json", '{"claims": ' + nested(100_000) + "}")
    said = fileio.not_ours(deep)
    assert said and "was not written by claimcheck" in said


def device_like(path: Path) -> Path:
    """A character device like /dev/null at ``path`` (root only), else a FIFO."""
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    except (PermissionError, AttributeError):
        pytest.skip("creating a device node needs root")
    return path


def test_an_output_that_is_a_device_is_written_through_not_replaced(tmp_path, capsys):
    """``merge -o /dev/null`` as root (a CI container) renamed a regular file over /dev/null; now a
    device, a FIFO or a link to one is written into, never replaced."""
    a = write(tmp_path / "a" / "claims.json", document(entry("C01")))
    null = device_like(tmp_path / "null")
    assert main(["merge", str(a), "-o", str(null), "--json", str(null)]) == 0
    assert main(["diff", str(a), str(a), "--json", str(null)]) == 0
    assert main(["report", str(a), "-o", str(null)]) == 0
    os.symlink(null, tmp_path / "link")
    assert main(["merge", str(a), "-o", str(tmp_path / "m.html"), "--json", str(tmp_path / "link")]) == 0
    assert stat.S_ISCHR(os.stat(null).st_mode) and os.path.islink(tmp_path / "link")
    assert "cannot write" not in capsys.readouterr().err


def test_an_output_fifo_gets_the_data_and_one_without_a_reader_is_an_error(tmp_path, capsys):
    """A FIFO named as an output was replaced by a regular file: its reader never got the data."""
    a = write(tmp_path / "a" / "claims.json", document(entry("C01")))
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    end = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # a reader (the matrix is well under 64 KiB)
    try:
        assert main(["merge", str(a), "-o", str(tmp_path / "m.html"), "--json", str(fifo)]) == 0
        got = os.read(end, 1 << 16)
    finally:
        os.close(end)
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert json.loads(got)["runners"][0]["label"] == "a"
    capsys.readouterr()
    # no process reads it: an error at once, not a hang, and the FIFO stays a FIFO
    assert main(["diff", str(a), str(a), "--json", str(fifo)]) == 2
    assert f"error: cannot write {fifo}: no process reads this FIFO" in capsys.readouterr().err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)


def test_a_link_to_standard_output_is_written_through(tmp_path):
    """``--json /dev/stdout`` (a link to /proc/self/fd/1) replaced the link itself (as root) when standard
    output was a regular file; a link into /proc is now written through. Tested on a link of its own."""
    if not os.path.exists("/proc/self/fd/1"):
        pytest.skip("/proc/self/fd is Linux's")
    out = tmp_path / "stdout.txt"
    out.write_text("before\n", encoding="utf-8")
    link = tmp_path / "stdout"
    os.symlink("/proc/self/fd/1", link)
    fd = os.open(out, os.O_WRONLY | os.O_APPEND)
    saved = os.dup(1)
    sys.stdout.flush()
    os.dup2(fd, 1)
    os.close(fd)
    try:
        fileio.write_atomic(link, '{"x": 1}\n')
    finally:
        os.dup2(saved, 1)
        os.close(saved)
    assert os.path.islink(link)
    assert out.read_text(encoding="utf-8") == 'before\n{"x": 1}\n'


def matrix(claims: object, cells: object = None) -> dict:
    return {
        "schema": 2,
        "runners": [{"label": "a", "path": "a/claims.json", "runner": {}}],
        "errors": [],
        "split": [],
        "claims": claims
        if cells is None
        else [{"key": "ch15:C01", "title": "t", "stated": "36", "unit": "KiB", "cells": cells}],
    }


@pytest.mark.parametrize("claims", [True, 5, "x"])
def test_a_matrix_whose_claims_are_not_a_list_is_named_not_a_traceback(tmp_path, capsys, claims):
    """``"claims": true`` beside ``runners`` raised a TypeError in summary.is_matrix (summary, report)."""
    f = write(tmp_path / "matrix.json", matrix(claims))
    for args in (["summary", str(f)], ["summary", "--annotations", str(f)], ["report", str(f)]):
        assert main(args) == 2
        assert (
            f"error: {f}: field 'claims' is a {type(claims).__name__}, expected a list"
            in capsys.readouterr().err
        )


def test_a_matrix_cells_outcome_of_the_wrong_type_is_shown_not_a_traceback(tmp_path, capsys):
    """A cell's ``"outcome": []`` raised "unhashable type: 'list'" in the summary of a matrix."""
    f = write(tmp_path / "matrix.json", matrix(None, {"a": {"outcome": ["failed"], "measured": 1.0}}))
    assert main(["summary", str(f)]) == 0
    out = capsys.readouterr().out
    assert "| **ch15:C01** t | 36 KiB | ❓ ['failed'] 1 KiB |" in out


def test_annotations_at_a_path_in_a_symlink_loop_keep_the_path(tmp_path, monkeypatch, capsys):
    """A claim's location inside a symlink loop of the checkout (``a -> b``, ``b -> a``): Path.resolve
    raised RuntimeError("Symlink loop") out of ``summary --annotations``."""
    monkeypatch.chdir(tmp_path)
    os.symlink("b", tmp_path / "a")
    os.symlink("a", tmp_path / "b")
    f = write(
        tmp_path / "r" / "claims.json",
        document(entry("C01", "failed", reason="too big", locations=[{"file": "a/x.py", "line": 3}])),
    )
    assert main(["summary", "--annotations", str(f)]) == 0
    assert capsys.readouterr().out.startswith("::error file=a/x.py,line=3,title=C01 does not hold::")


def test_a_megabyte_title_costs_the_summary_a_cut_not_its_whole_size(tmp_path, capsys):
    """GitHub drops a job summary over 1 MiB whole: a 1 MB title, chapter title and runner field made the
    Markdown of a one-claim run 3 MB (a 27 MB file: 35 MB in 7.7 s). Cells and lines are now cut."""
    big = "<b" * 500_000
    doc = document(entry("C01", title=big), entry("C02"), runner={"cpu": big, "cores": 2})
    doc["chapters"][0]["title"] = big
    f = write(tmp_path / "claims.json", doc)
    assert main(["summary", str(f)]) == 0
    out = capsys.readouterr().out
    assert len(out.encode("utf-8")) < 40_000
    assert re.search(r"\| \*\*C01\*\* (&lt;b)+… \(1,000,008 characters\) \| ✅ passed \|", out)
    assert "| **C02** claim C02 | ✅ passed |" in out
    short = write(tmp_path / "short.json", document(entry("C01", title="a" * 390)))
    assert main(["summary", str(short)]) == 0
    assert "**C01** " + "a" * 390 + " |" in capsys.readouterr().out  # an ordinary title is whole


def test_a_folder_named_like_a_duplicates_label_keeps_its_own_column(tmp_path, capsys):
    """``x/run``, ``y/run`` and ``z/run (2)`` were labelled run, run (2), run (2): the matrix JSON keys cells
    by label, so the third run's cells overwrote the second's."""
    paths = [
        write(tmp_path / "x" / "run" / "claims.json", document(entry("C01", "passed"))),
        write(tmp_path / "y" / "run" / "claims.json", document(entry("C01", "failed"))),
        write(tmp_path / "z" / "run (2)" / "claims.json", document(entry("C01", "skipped"))),
        write(tmp_path / "w" / "run" / "claims.json", document(entry("C01", "error"))),
    ]
    assert main(["merge", *map(str, paths), "-o", str(tmp_path / "m.html"), "--json", "-"]) == 0
    doc = json.loads(capsys.readouterr().out)
    labels = [r["label"] for r in doc["runners"]]
    assert labels == ["run", "run (3)", "run (2)", "run (4)"]
    cells = doc["claims"][0]["cells"]
    assert [cells[lb]["outcome"] for lb in labels] == ["passed", "failed", "skipped", "error"]


def test_a_near_miss_hint_costs_a_bounded_backtrack_per_place():
    """check-manuscript of 15 KB of ``1 000 1 000 ...`` (or ``１，１，...``) took over a minute: each
    locator not found looked for a near miss with a number pattern that ran to the line's end and
    backtracked from it at every digit (quadratic, worse with two numbers). A loose number is now at
    most 48 characters; the hint is still given."""
    from claimcheck.manuscript import _LOOSE_NUMBER, Manuscript, check_quote

    for run in ("1 000 " * 1000, "１，" * 1000):
        m = re.match(_LOOSE_NUMBER, run)
        assert m and len(m.group()) <= 48
    ms = Manuscript.from_text("1 000 " * 300 + "\nthe cache holds 36，864 B per token\n", "t.txt")
    (check,) = check_quote(ms, "C01", "stated", "holds 36864 B", "36864")
    assert check.status == "not-found" and check.line == 2
    assert "read 36 and 864: a full-width comma separates clauses here" in check.message
