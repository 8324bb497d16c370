"""The whole book in one run: ch15 and a toy chapter of our own (tests/data/book/ch90) whose claim
ids overlap ch15's (C01-C04), side by side under claims/ of a copy of the project.

One pytest run of both chapters' non-timing claims, then a run of one chapter (each in a fresh
interpreter: ch15's claims import transformers), then the commands (merge, diff, check-manuscript,
validate, summary, what-if; in this process): every row of both chapters is there with its
own chapter's title, value and verdict, and nothing of one chapter leaks into the other.
"""

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from claimcheck.cli import main
from tests.claimkit import CHAPTER_TEXT, lean, read_report

ROOT = Path(__file__).resolve().parents[2]
CH90 = ROOT / "tests" / "data" / "book" / "ch90"
SEED = CHAPTER_TEXT


@pytest.fixture(scope="module")
def book(tmp_path_factory):
    """A copy of the project with two chapters, after one pytest run of both (ch90's claims and five
    of ch15's exact claims)."""
    root = tmp_path_factory.mktemp("book")
    for name in ("pyproject.toml", "conftest.py"):
        shutil.copy2(ROOT / name, root / name)
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "fixtures", root / "fixtures", ignore=ignore)
    shutil.copytree(ROOT / "claims" / "ch15", root / "claims" / "ch15", ignore=ignore)
    shutil.copytree(CH90, root / "claims" / "ch90", ignore=ignore)
    # ch15's claims are the claims' own run's to judge (the test command runs them all); here a few of
    # its cheap exact ones (a formula, bytes, parameters) stand beside every claim of ch90: what this
    # file checks is that two chapters stay apart, and ch15's other rows are there, not run
    done = run(
        root, "claims/", "-m", "not timing and not slow", "-k", "ch90 or C03 or C10 or C11 or C18 or C21"
    )
    assert done.returncode in (0, 1), done.stdout[-3000:] + done.stderr[-3000:]
    return root


def run(root: Path, *args: str, report_dir: str = "reports") -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMCHECK_")}
    env["HF_HUB_OFFLINE"] = "1"
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            *args,
            "-q",
            "-p",
            "no:cacheprovider",
            *lean(),
            "--claims-profile=quick",
            f"--claims-report-dir={report_dir}",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


@pytest.fixture
def claimcheck(capsys, monkeypatch):
    """``claimcheck ARGS`` in a folder, in this process (the commands read files and print; none
    needs a fresh interpreter): ``claimcheck(root, *args)`` returns its exit code and output as a
    :class:`subprocess.CompletedProcess`."""

    def command(root: Path, *args: str) -> subprocess.CompletedProcess:
        monkeypatch.chdir(root)
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's own errors
            code = exc.code if isinstance(exc.code, int) else 1
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(["claimcheck", *args], code, out, err)

    return command


def rows(path: Path) -> dict:
    return read_report(path).claims.by_key


def test_every_row_of_both_chapters_with_its_own_chapter(book):
    from claimcheck.registry import load_registry

    got = rows(book / "reports" / "claims.json")
    regs = [load_registry(book / "claims" / ch / "claims.toml") for ch in ("ch15", "ch90")]
    want = {reg.key(cid): (reg, c) for reg in regs for cid, c in reg.claims.items()}
    assert set(got) == set(want) and len(got) == 42 + 5  # no row lost, none merged
    for key, (reg, c) in want.items():
        assert got[key]["chapter"] == reg.chapter_id and got[key]["id"] == c.id
        assert got[key]["title"] == c.title and got[key]["stated"] == c.stated  # its own chapter's entry
    # the overlapping ids keep their own verdicts: ch90's C01 is a formula that passed, ch15's C01 a
    # timing claim that was deselected; ch90's C02 (36864 B, exact) passed, ch15's C02 was not run
    assert got["ch90:C01"]["outcome"] == "passed" and got["ch90:C01"]["measured"] == [36.0, 36.0]
    assert got["ch15:C01"]["outcome"] == "not-run" and got["ch15:C01"]["measured"] is None
    assert got["ch90:C02"]["outcome"] == "passed" and got["ch90:C02"]["measured"] == 36864
    assert got["ch90:C03"]["outcome"] == "passed"
    assert got["ch90:C04"]["outcome"] == "not-run"  # a timing claim, deselected
    # ch90's C05 quotes ch15's C10 (no test of its own): it follows its source, which ran and passed
    assert got["ch15:C10"]["outcome"] == "passed" and got["ch90:C05"]["outcome"] == "passed"
    assert got["ch90:C05"]["details"]["drift"]["quotes"][0]["source"] == "ch15:C10"
    assert all(t.startswith("claims/ch90/") for t in got["ch90:C02"]["tests"])
    assert all(t.startswith("claims/ch15/") for t in got["ch15:C18"]["tests"])
    assert got["ch15:C18"]["outcome"] == "passed" and got["ch15:C11.text"]["outcome"] == "passed"


def test_the_book_page_shows_each_chapter_with_its_sections(book):
    import re

    page = (book / "reports" / "claims.html").read_text(encoding="utf-8")
    assert re.findall(r'<tr id="(book-[^"]+)"', page) == ["book-ch15", "book-ch90"]
    # both chapters have a section "closing": each keeps its own, under its own chapter
    assert 'id="section-ch15-closing"' in page and 'id="section-ch90-closing"' in page
    assert (
        page.index('id="chapter-ch15"') < page.index('id="claim-ch15-C37"') < page.index('id="chapter-ch90"')
    )
    ids = re.findall(r'<tbody class="claim[^"]*" id="[^"]+" data-id="([^"]+)"', page)
    assert len(ids) == len(set(ids)) == 47
    row = read_report(book).row_html("ch90:C01")
    assert "1024-token context" in row and 'data-outcome="passed"' in row


def test_a_run_of_one_chapter_keeps_the_other_chapters_rows(book, tmp_path):
    shutil.copytree(book / "reports", tmp_path / "reports")
    first = rows(book / "reports" / "claims.json")
    done = run(book, "claims/ch90/", "-m", "not timing", report_dir=str(tmp_path / "reports"))
    assert done.returncode == 0, done.stdout[-2000:]
    doc = read_report(tmp_path).doc
    got = rows(tmp_path / "reports" / "claims.json")
    assert set(got) == set(first)
    for key, entry in got.items():
        if key.startswith("ch15:") and first[key]["outcome"] != "not-run":
            assert entry["carried"] and entry["outcome"] == first[key]["outcome"], key
            assert entry["measured"] == first[key]["measured"] and entry["title"] == first[key]["title"]
    assert "carried" not in got["ch90:C02"]
    assert doc["selection"]["chapters"] == ["ch90"]
    assert [c["id"] for c in doc["chapters"]] == ["ch15", "ch90"]  # the book's order, whichever chapter ran


def test_merge_and_diff_keep_chapters_apart(book, tmp_path, claimcheck):
    report = book / "reports" / "claims.json"
    other = tmp_path / "other" / "claims.json"
    other.parent.mkdir()
    doc = json.loads(report.read_text(encoding="utf-8"))
    for c in doc["claims"]:
        if c["key"] == "ch90:C02":
            c["outcome"], c["measured"] = "failed", 36000
    other.write_text(json.dumps(doc), encoding="utf-8")
    merged = claimcheck(
        book,
        "merge",
        str(report),
        str(other),
        "--json",
        str(tmp_path / "m.json"),
        "-o",
        str(tmp_path / "m.html"),
    )
    assert merged.returncode == 0, merged.stderr
    matrix = json.loads((tmp_path / "m.json").read_text(encoding="utf-8"))
    keys = [c["key"] for c in matrix["claims"]]
    assert len(keys) == len(set(keys)) == 47 and matrix["split"] == ["ch90:C02"]
    diff = claimcheck(book, "diff", str(report), str(other))
    assert (
        diff.returncode == 1 and "REGRESSION ch90:C02" in diff.stdout and "REGRESSION ch15" not in diff.stdout
    )


def test_commands_find_each_chapter_by_itself(book, claimcheck):
    done = claimcheck(book, "validate", "-q")
    assert done.returncode == 0 and "2 chapters, 47 valid claims, 0 problems" in done.stderr, done.stderr
    shutil.copy2(CH90 / "ch90.md", book / "ch90.md")
    done = claimcheck(book, "check-manuscript", "ch90.md")  # picks ch90's registry by itself
    assert done.returncode == 0 and "registry   claims/ch90/claims.toml (5 claims)" in done.stdout, (
        done.stdout
    )
    if SEED.is_file():
        shutil.copy2(SEED, book / "000_28c5e904fedc16c4.txt")  # the name ch15's registry gives it
        done = claimcheck(book, "check-manuscript", "000_28c5e904fedc16c4.txt", "ch90.md")
        assert done.returncode == 0, done.stdout[-2000:]
        assert "== ch15:" in done.stdout and "== ch90:" in done.stdout
    summary = claimcheck(book, "summary", "reports/claims.json")
    assert "| **ch15** " in summary.stdout and "#### ch90:" in summary.stdout
    amb = claimcheck(book, "what-if", "C02=36864")
    assert (
        amb.returncode == 2
        and "ambiguous" in amb.stderr
        and "ch15:C02" in amb.stderr
        and "ch90:C02" in amb.stderr
    )
