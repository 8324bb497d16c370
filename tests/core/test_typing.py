"""The package ships ``py.typed`` (PEP 561), so its code must be mypy-clean (issue 17).

Runs ``python -m mypy claimcheck`` from the repository root with the project's configuration
(``[tool.mypy]`` in pyproject.toml) and fails with mypy's own output when it reports errors.
Where mypy is not installed the test skips with that reason; in CI (``CI=true``) it fails instead,
so a CI machine cannot pass it by not having mypy (tests/ci.py, as for the browser tests).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.ci import required

ROOT = Path(__file__).resolve().parents[2]


_missing = required("the typing check", "pip install mypy; it is in the test extra")


def test_without_mypy_ci_fails_and_elsewhere_it_skips(monkeypatch):
    monkeypatch.setenv("CI", "true")
    with pytest.raises(
        pytest.fail.Exception, match="CI=true: the typing check must run, but mypy is missing"
    ):
        _missing("mypy is missing")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="mypy is missing"):
        _missing("mypy is missing")


def test_mypy_reports_no_errors():
    if importlib.util.find_spec("mypy") is None:
        _missing("mypy is not installed (pip install mypy; it is in the test extra)")
    proc = subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", "pyproject.toml", "claimcheck"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    if proc.returncode != 0:
        pytest.fail(
            f"mypy reports errors in claimcheck (exit {proc.returncode}); the package ships py.typed:\n"
            f"{proc.stdout}{proc.stderr}",
            pytrace=False,
        )
