"""Run the toy book (ch90 beside five exact claims of ch15, as tests/plugin/test_book.py runs it) with
one checkout's claimcheck: the whole run (``full/``), a run of ch90 alone that carries the other rows
(``partial/``), then merge, diff, summary and check-manuscript on them (``*.txt``, ``commands/``).
Every claims.json, page and output is kept with timings and time stamps blanked, so that two
checkouts' runs can be compared by ``diff -r``:

    python tests/same_run.py ../before-checkout ../before
    python tests/same_run.py . ../after
    diff -r ../before ../after
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# JSON keys whose values are timings, time stamps or load figures of the machine
VOLATILE = re.compile(r"(time|duration|seconds|generated|stamp|elapsed|date|load|_s$)", re.I)
# ISO time stamps (a carried row's "from" too), and in the pages durations like "1.23 s" / "0.4s"
STAMP = re.compile(r"\d{4}-\d\d-\d\dT?[ \d:.+Z-]*")
DURATION = re.compile(r"\b\d+(\.\d+)? ?(s|ms)\b")
# in the merged page's fingerprints: the machine's load and the weights' look-up time
FINGERPRINT = re.compile(r"<div>((?:load\.|weights\.resolve_s)[^:<]*): [^<]*</div>")


def blank(value, key=""):
    if isinstance(value, dict):
        return {k: ("~" if VOLATILE.search(k) else blank(v, k)) for k, v in value.items()}
    if isinstance(value, list):
        return [blank(v, key) for v in value]
    return value


SELECTED = "ch90 or C03 or C10 or C11 or C18 or C21"


def pytest(root: Path, env: dict, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]
        + ["--claims-profile=quick", "--claims-threads=1", "--claims-report-dir=reports"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
    )
    print(done.stdout[-1500:], done.stderr[-1500:])
    return done


def keep(reports: Path, root: Path, dest: Path) -> None:
    """The files of ``reports`` under ``dest``, timings and time stamps blanked."""
    for path in sorted(reports.rglob("*")):
        if path.is_dir() or path.name == "tests.html":  # pytest-html's page: its own time stamps
            continue
        target = dest / path.relative_to(reports)
        target.parent.mkdir(parents=True, exist_ok=True)
        text = STAMP.sub("~", path.read_text().replace(str(root), "ROOT"))
        if path.suffix == ".json":
            target.write_text(json.dumps(blank(json.loads(text)), indent=1))
        else:
            target.write_text(FINGERPRINT.sub(r"<div>\1: ~</div>", DURATION.sub("~", text)))


def main(source: str, out: str) -> int:
    source_root, dest = Path(source).resolve(), Path(out)
    here = Path(__file__).resolve().parents[1]
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        for name in ("pyproject.toml", "conftest.py"):
            shutil.copy2(here / name, root / name)
        ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
        shutil.copytree(here / "fixtures", root / "fixtures", ignore=ignore)
        shutil.copytree(here / "claims" / "ch15", root / "claims" / "ch15", ignore=ignore)
        shutil.copytree(here / "tests/data/book/ch90", root / "claims" / "ch90", ignore=ignore)
        env = {k: v for k, v in os.environ.items() if not k.startswith("CLAIMCHECK_")}
        env |= {"HF_HUB_OFFLINE": "1", "PYTHONPATH": str(source_root)}
        shutil.rmtree(dest, ignore_errors=True)
        # the whole book's run, then one chapter's (it carries the other rows), then the commands
        done = pytest(root, env, "claims/", "-m", "not timing and not slow", "-k", SELECTED)
        keep(root / "reports", root, dest / "full")
        shutil.copytree(root / "reports", root / "full")
        pytest(root, env, "claims/ch90/", "-m", "not timing")
        keep(root / "reports", root, dest / "partial")
        shutil.copy2(here / "tests/data/book/ch90/ch90.md", root / "ch90.md")
        for name, *args in (
            ("merge", "full/claims.json", "reports/claims.json", "--json", "m/m.json", "-o", "m/m.html"),
            ("diff", "full/claims.json", "reports/claims.json"),
            ("summary", "reports/claims.json"),
            ("check-manuscript", "ch90.md", "--report", "reports/claims.json", "--html", "m/ch90.html"),
        ):
            said = subprocess.run(
                [
                    sys.executable,
                    "-c",
                    "import sys; from claimcheck.cli import main; sys.exit(main())",
                    name,
                    *args,
                ],
                cwd=root,
                env=env,
                capture_output=True,
                text=True,
            )
            (dest / f"{name}.txt").write_text(f"exit {said.returncode}\n{said.stdout}\n{said.stderr}")
        keep(root / "m", root, dest / "commands")
        for path in dest.glob("*.txt"):
            path.write_text(DURATION.sub("~", STAMP.sub("~", path.read_text().replace(str(root), "ROOT"))))
    return done.returncode


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
