"""The core never imports torch or transformers: not on import, not when its CLI runs.

Each check runs in a fresh interpreter (this process has torch loaded already), with an import
hook that makes ``import torch`` / ``import transformers`` raise, so a lazy import inside a
function fails the check too, not only a top-level one.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"

BLOCK = textwrap.dedent("""
    import sys

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in ("torch", "transformers", "matplotlib"):
                raise ImportError(f"the core imported {name}")
            return None

    sys.meta_path.insert(0, Block())
""")

CORE_MODULES = [
    "claimcheck",
    "claimcheck.outcomes",
    "claimcheck.fileio",
    "claimcheck.registry",
    "claimcheck.fields",
    "claimcheck.tomlfile",
    "claimcheck.docs",
    "claimcheck.tolerance",
    "claimcheck.interval",
    "claimcheck.units",
    "claimcheck.printed",
    "claimcheck.manuscript",
    "claimcheck.editor",
    "claimcheck.recorder",
    "claimcheck.verdict",
    "claimcheck.display",
    "claimcheck.settings",
    "claimcheck.testscan",
    "claimcheck.fingerprint",
    "claimcheck.machine",
    "claimcheck.entropy",
    "claimcheck.report",
    "claimcheck.runs",
    "claimcheck.cli",
    "claimcheck.cli.main",
    "claimcheck.cli.editor",
    "claimcheck.cli.runs",
    "claimcheck.scaffold",
    "claimcheck.cli.init",
    "claimcheck.cli.pages",
    "claimcheck.partial",
    "claimcheck.pages",
    "claimcheck.pages.words",
    "claimcheck.pages.claims_view",
    "claimcheck.pages.manuscript_view",
    "claimcheck.pages.summary",
    "claimcheck.pages.render",
]


def run_blocked(code: str, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", BLOCK + code, *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


def test_core_modules_import_without_torch():
    code = "import importlib\nfor m in sys.argv[1:]:\n    importlib.import_module(m)\nprint('ok')"
    done = run_blocked(code, *CORE_MODULES)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr


def test_the_core_fingerprint_needs_no_torch():
    done = run_blocked(
        "from claimcheck.fingerprint import runner_fingerprint, describe\n"
        "fp = runner_fingerprint()\nassert fp['cpu'] and fp['cores']\nprint(describe(fp))"
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["validate", "claims/ch15/claims.toml"],
        ["check-manuscript", str(DATA / "manuscript_zh.md"), "--registry", str(DATA / "ms_registry.toml")],
    ],
)
def test_cli_commands_run_without_torch(argv):
    done = run_blocked("from claimcheck.cli import main\nraise SystemExit(main(sys.argv[1:]))", *argv)
    assert "the core imported" not in done.stderr, done.stderr
    assert done.returncode in (0, 1), done.stderr  # 1: the audit found something; never a crash
    assert "Traceback" not in done.stderr, done.stderr


def test_merge_and_diff_run_without_torch(tmp_path):
    import json

    doc = {
        "schema": 1,
        "runner": {"cpu": "x", "cores": 2},
        "settings": {"profile": "quick"},
        "claims": [{"id": "C01", "outcome": "passed", "measured": 1.0, "unit": "x", "tolerance": ">=1"}],
    }
    a, b = tmp_path / "a" / "claims.json", tmp_path / "b" / "claims.json"
    for p in (a, b):
        p.parent.mkdir()
        p.write_text(json.dumps(doc), encoding="utf-8")
    merged = run_blocked(
        "from claimcheck.cli import main\nraise SystemExit(main(sys.argv[1:]))",
        "merge",
        str(a),
        str(b),
        "-o",
        str(tmp_path / "m.html"),
    )
    assert merged.returncode == 0, merged.stderr
    diffed = run_blocked(
        "from claimcheck.cli import main\nraise SystemExit(main(sys.argv[1:]))", "diff", str(a), str(b)
    )
    assert diffed.returncode == 0, diffed.stderr


def _imported_modules(path: Path) -> set[str]:
    """Every module a file imports, at its top or inside a function (read with ast, not run)."""
    import ast

    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.add(node.module)
            out.update(f"{node.module}.{a.name}" for a in node.names)
    return out


def test_the_core_and_its_pytest_glue_never_import_the_kit():
    # the layers' arrows (CONTRIBUTING.md, the layers): claimcheck/ and claimcheck/plugin/ may not import
    # claimcheck/llm/, not even lazily inside a function (the recorder's comparison verdict takes
    # any object with the claimcheck.recorder.Comparison protocol instead)
    files = (
        sorted((ROOT / "claimcheck").glob("*.py"))
        + sorted((ROOT / "claimcheck" / "plugin").glob("*.py"))
        + sorted((ROOT / "claimcheck" / "pages").glob("*.py"))
    )
    assert len(files) > 20
    bad = {
        f"{f.relative_to(ROOT)}: {m}"
        for f in files
        for m in _imported_modules(f)
        if m == "claimcheck.llm" or m.startswith(("claimcheck.llm.", "torch", "transformers", "matplotlib"))
    }
    assert not bad, sorted(bad)


def test_report_and_summary_run_without_torch(tmp_path):
    import json

    doc = {
        "schema": 1,
        "runner": {"cpu": "x", "cores": 2},
        "settings": {"profile": "quick"},
        "claims": [
            {
                "id": "C01",
                "outcome": "failed",
                "measured": 1.0,
                "unit": "x",
                "tolerance": ">=2",
                "stated": "3",
                "locations": [{"file": "claims/test_x.py", "line": 3}],
            }
        ],
    }
    path = tmp_path / "claims.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    main = "from claimcheck.cli import main\nraise SystemExit(main(sys.argv[1:]))"
    done = run_blocked(main, "report", str(path))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "claims.html").is_file()
    done = run_blocked(main, "summary", str(path))
    assert done.returncode == 0 and "| **C01**" in done.stdout, done.stderr
    done = run_blocked(main, "summary", str(path), "--annotations")
    assert done.returncode == 0 and done.stdout.startswith("::error file="), done.stderr
