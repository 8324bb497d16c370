""".ci/run runs every stage, whatever failed before, and exits non-zero naming what failed.

The script runs in a copy of its folder layout with stand-ins on the PATH for every command it
calls (python3 makes a virtual environment whose ``python`` answers as told, chromium, npm...),
so nothing is installed and nothing is measured: only the script's own control flow is tested.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.ci import required

ROOT = Path(__file__).resolve().parents[2]

PYTHON3 = """#!/usr/bin/env bash
# python3 -m venv DIR: a "virtual environment" whose python is the stand-in below
if [ "$1 $2" = "-m venv" ]; then
    mkdir -p "$3/bin"
    printf 'export PATH="%s/bin:$PATH"\\n' "$(cd "$3" && pwd)" > "$3/bin/activate"
    cp "$(dirname "$0")/venv-python" "$3/bin/python"
fi
"""

VENV_PYTHON = """#!/usr/bin/env bash
echo "python $*" >> "$CI_LOG"
case "$*" in
    *"-m pytest -n 2 --dist loadgroup --claims-profile quick"*) exit "$TESTS_RC" ;;
    *"-m pytest claims/ --claims-lm"*) exit "$LANE_RC" ;;
    *"-m mypy"*) exit "$MYPY_RC" ;;
esac
exit 0
"""


@pytest.fixture
def ci(tmp_path):
    """Run the checkout's .ci/run in a scratch layout; returns (run(tests_rc, lane_rc), log path)."""
    repo = tmp_path / "repo"
    (repo / ".ci").mkdir(parents=True)
    shutil.copy2(ROOT / ".ci" / "run", repo / ".ci" / "run")
    (repo / ".node" / "node_modules" / "axe-core").mkdir(parents=True)
    (repo / ".node" / "node_modules" / "axe-core" / "axe.min.js").write_text("")
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    for name, text in {
        "python3": PYTHON3,
        "venv-python": VENV_PYTHON,
        "claimcheck": '#!/usr/bin/env bash\necho "claimcheck $*" >> "$CI_LOG"\n',
        # the workflow's audit (lint stage): each logs its call and exits as told
        "actionlint": '#!/usr/bin/env bash\necho "actionlint $*" >> "$CI_LOG"\nexit "$ACTIONLINT_RC"\n',
        "zizmor": '#!/usr/bin/env bash\necho "zizmor $*" >> "$CI_LOG"\nexit "$ZIZMOR_RC"\n',
        **{n: "#!/usr/bin/env bash\n" for n in ("chromium", "chromedriver", "npm")},
    }.items():
        (bin_ / name).write_text(text)
        (bin_ / name).chmod(0o755)
    log = tmp_path / "log"

    def run(tests_rc=0, lane_rc=0, mypy_rc=0, actionlint_rc=0, zizmor_rc=0):
        env = {
            "PATH": f"{bin_}:/usr/bin:/bin",
            "HOME": str(tmp_path),
            "CI_LOG": str(log),
            "TESTS_RC": str(tests_rc),
            "LANE_RC": str(lane_rc),
            "MYPY_RC": str(mypy_rc),
            "ACTIONLINT_RC": str(actionlint_rc),
            "ZIZMOR_RC": str(zizmor_rc),
        }
        return subprocess.run(
            ["bash", str(repo / ".ci" / "run")], capture_output=True, text=True, env=env, timeout=60
        )

    return run, log


def test_a_failing_stage_does_not_stop_the_others_and_the_script_names_it(ci):
    run, log = ci
    done = run(tests_rc=1)
    assert done.returncode == 1, done.stdout + done.stderr
    calls = log.read_text()
    assert (
        "-m pytest -n 2 --dist loadgroup --claims-profile quick" in calls and "--claims-lm smollm2" in calls
    )  # ran after the failure
    assert "=== stage FAILED (exit 1): tests and claims" in done.stdout
    assert "=== stage passed: portable-LM lane" in done.stdout
    assert done.stdout.rstrip().endswith("  - tests and claims (pytest --claims-profile quick)")


def test_two_failures_are_both_listed_and_all_passing_exits_0(ci):
    run, _ = ci
    done = run(tests_rc=2, lane_rc=1)
    assert done.returncode == 1 and "=== 2 stage(s) failed:" in done.stdout
    assert done.stdout.count("\n  - ") == 2
    done = run()
    assert done.returncode == 0 and done.stdout.rstrip().endswith("=== every stage passed"), (
        done.stdout + done.stderr
    )


def test_a_required_check_skips_with_its_reason_and_fails_under_ci(monkeypatch):
    """tests/ci.py: a check CI must run (the browser tests) skips with its reason on a machine
    without what it needs, and fails under CI=true naming the install step."""
    missing = required("the browser tests", "apt-get install chromium")
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI=true: the browser tests must run, but no chromium"):
        missing("no chromium")
    monkeypatch.delenv("CI")
    with pytest.raises(pytest.skip.Exception, match="no chromium"):
        missing("no chromium")


def test_the_lint_stage_runs_ruff_and_mypy_and_fails_on_either(ci):
    """The static checks live in .ci/run's lint stage, not in the test command: ruff's linter and
    formatter check over the checkout and mypy over the package with the project's configuration."""
    run, log = ci
    done = run()
    calls = log.read_text()
    for command in (
        "-m ruff check .",
        "-m ruff format --check .",
        "-m mypy --config-file pyproject.toml claimcheck",
    ):
        assert f"python {command}" in calls, calls
    assert "=== stage passed: lint" in done.stdout
    log.unlink()
    done = run(mypy_rc=1)
    assert done.returncode == 1 and "=== stage FAILED (exit 1): lint" in done.stdout, done.stdout
    assert "-m ruff format --check ." in log.read_text()  # every check ran, mypy's failure named


def test_the_lint_stage_audits_the_workflow_with_actionlint_and_zizmor(ci):
    run, log = ci
    done = run()
    calls = log.read_text().splitlines()
    assert "actionlint .github/workflows/claims.yml" in calls
    assert "zizmor --offline .github/workflows/claims.yml" in calls
    assert "python -m ruff check ." in calls  # ruff still runs
    assert "=== stage passed: lint" in done.stdout


@pytest.mark.parametrize("tool", ["actionlint", "zizmor"])
def test_a_workflow_finding_fails_the_lint_stage_and_only_it(ci, tool):
    run, log = ci
    done = run(**{f"{tool}_rc": 14})
    assert done.returncode == 1, done.stdout + done.stderr
    assert "=== 1 stage(s) failed:" in done.stdout
    assert "=== stage FAILED (exit 1): lint" in done.stdout
    assert "=== stage passed: portable-LM lane" in done.stdout
    assert "python -m ruff format --check ." in log.read_text()  # ruff ran whatever the audit said


@pytest.mark.skipif(os.name != "posix", reason="bash script")
def test_the_script_is_valid_bash():
    assert subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")]).returncode == 0


def test_ci_runs_the_readmes_test_command():
    """The README's test command is what .ci/run runs (its claims report in its own folder, so that a
    test run never replaces the main job's reports/claims.json)."""
    import re
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    readme = (root / "README.md").read_text(encoding="utf-8")
    command = re.search(r"\*\*Tests\*\*.*?```bash\n(.+?)\n```", readme, re.S).group(1).strip()
    assert "--claims-report-dir=reports/test-run" in command
    ci = " ".join((root / ".ci/run").read_text(encoding="utf-8").replace("\\\n", " ").split())
    assert "python -m " + command in ci


def test_mypy_wants_every_function_typed():
    """The lint stage's mypy refuses an untyped or half-typed function anywhere in the package (issue
    34): no module is let off."""
    import tomllib

    mypy = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["mypy"]
    assert mypy["disallow_untyped_defs"] is True and mypy["disallow_incomplete_defs"] is True
    let_off = [o["module"] for o in mypy.get("overrides", []) if "disallow_untyped_defs" in o]
    assert let_off == []
