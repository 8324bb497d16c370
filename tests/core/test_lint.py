"""The code is ruff-clean and ruff-formatted ([tool.ruff] in pyproject.toml: line length 110).

Runs ``ruff check`` and ``ruff format --check`` over the repository and fails with ruff's own
output; without ruff the test skips with that reason, and under ``CI=true`` it fails (tests/ci.py).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci import required

ROOT = Path(__file__).resolve().parents[2]
_missing = required("the lint check", "pip install ruff; it is in the test extra")


def _ruff() -> list[str]:
    here = Path(sys.executable).with_name("ruff")
    found = str(here) if here.is_file() else shutil.which("ruff")
    if found is None:
        _missing("ruff is not installed (pip install ruff; it is in the test extra)")
    return [str(found)]


@pytest.mark.parametrize("command", [["check", "."], ["format", "--check", "."]], ids=["check", "format"])
def test_ruff_reports_nothing(command):
    proc = subprocess.run([*_ruff(), *command], cwd=ROOT, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        pytest.fail(
            f"ruff {' '.join(command)} (exit {proc.returncode}); fix with "
            f"`ruff check --fix .` and `ruff format .`:\n{proc.stdout}{proc.stderr}",
            pytrace=False,
        )
