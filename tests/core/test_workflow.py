"""The GitHub Actions template: valid for Actions, wired together, pinned, and its commands are the README's.

Structure is checked with PyYAML here; `actionlint` (with its shellcheck pass) checks the rest the
way GitHub does (expressions, action inputs, runner labels), and `zizmor` audits it for security
(unpinned actions, persisted credentials, template injection, ad-hoc installs). Both are in the
`test` extra; without them those two tests skip, and under ``CI=true`` they fail (tests/ci.py).
"""

import json
import re
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
        assert set(job) <= {
            "name",
            "if",
            "needs",
            "strategy",
            "runs-on",
            "timeout-minutes",
            "permissions",
            "steps",
        }, name
        for step in job["steps"]:
            assert ("uses" in step) != ("run" in step), (name, step)
            assert set(step) <= {"name", "if", "uses", "with", "run", "shell", "env"}, (name, step)
            if "uses" in step:
                assert re.fullmatch(r"actions/[a-z-]+@[0-9a-f]{40}", step["uses"]), step["uses"]


#: the first major version of each action that runs on node24 (node20 left GitHub's runners in
#: September 2026; actionlint names the node20 ones, e.g. actions/cache@v4)
NODE24 = {"checkout": 5, "setup-python": 6, "cache": 5, "upload-artifact": 6, "download-artifact": 7}
USES = re.compile(r"^\s*(?:-\s+)?uses:\s*(?P<ref>\S+)(?P<rest>.*)$")


def uses_lines() -> list[tuple[int, str, str]]:
    """(line number, reference, the rest of the line) of every `uses:` of the workflow's text: the
    version comment is lost to a YAML parser, so the lines are read as text."""
    found = []
    for n, line in enumerate(WORKFLOW.read_text(encoding="utf-8").splitlines(), 1):
        m = USES.match(line)
        if m:
            found.append((n, m["ref"], m["rest"]))
    return found


def test_every_action_is_pinned_to_a_commit_with_its_release_in_a_comment():
    """A tag (`@v5`) can be moved to other code by whoever controls the action's repository; a full
    commit cannot. The comment names the release the commit is, for readers and for updates."""
    lines = uses_lines()
    assert len(lines) == 14, lines  # every step of the four jobs that uses an action
    for n, ref, rest in lines:
        m = re.fullmatch(r"actions/(?P<action>[a-z-]+)@(?P<sha>[0-9a-f]{40})", ref)
        assert m, f"line {n}: {ref!r} is not pinned to a full 40-hex commit"
        version = re.fullmatch(r"\s+# v(?P<major>\d+)\.\d+\.\d+", rest)
        assert version, f"line {n}: {ref} has no release comment (`# vX.Y.Z`) after it: {rest!r}"
        assert int(version["major"]) >= NODE24[m["action"]], f"line {n}: {ref}{rest} runs on node20"
    by_action: dict[str, set[str]] = {}
    for _, ref, rest in lines:
        by_action.setdefault(ref, set()).add(rest.strip())
    assert all(len(v) == 1 for v in by_action.values()), by_action  # one commit, one release name


def test_least_privilege_and_no_persisted_credentials(wf):
    """Every job reads the repository and nothing more, but the CPU jobs, whose diff gate lists the
    runs on main and downloads one's artifact; no checkout leaves the token in .git/config, where an
    uploaded folder could carry it (zizmor: artipacked)."""
    assert wf["permissions"] == {"contents": "read"}
    granted = {name: job["permissions"] for name, job in wf["jobs"].items() if "permissions" in job}
    assert granted == {"cpu": {"contents": "read", "actions": "read"}}
    for name, job in wf["jobs"].items():
        (checkout,) = steps_using(job, "checkout")
        assert checkout["with"]["persist-credentials"] is False, name
        assert job["steps"].index(checkout) == 0, name


def test_the_self_hosted_gpu_runner_never_runs_a_forks_pull_request(wf):
    gpu = wf["jobs"]["gpu"]
    assert "github.event.pull_request.head.repo.full_name == github.repository" in gpu["if"]
    assert "github.event_name != 'pull_request'" in gpu["if"]


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
    assert gpu["if"].startswith("${{ vars.CLAIMS_GPU_RUNNER == 'true' && ")
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


def test_the_harness_tests_run_with_axe_core_installed_first_from_a_lockfile(wf):
    """`npm ci` installs exactly what .node/package-lock.json says (version and hash), or fails."""
    lines = run_lines(wf["jobs"]["tests"])
    axe = next(i for i, line in enumerate(lines) if line.startswith("npm "))
    assert lines.index("pytest tests/") > axe
    assert lines[axe].startswith("npm ci ")
    assert "--prefix .node" in lines[axe]  # where tests/pages/test_browser.py looks
    lock = json.loads((ROOT / ".node" / "package-lock.json").read_text(encoding="utf-8"))
    manifest = json.loads((ROOT / ".node" / "package.json").read_text(encoding="utf-8"))
    axe_core = lock["packages"]["node_modules/axe-core"]
    assert re.fullmatch(r"4\.\d+\.\d+", axe_core["version"])
    assert axe_core["integrity"].startswith("sha512-")
    assert manifest["dependencies"] == {"axe-core": axe_core["version"]}  # an exact version


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
    # the artifact this job uploads on main, passed by the environment (no `${{ }}` in the script)
    assert fetch["env"]["ARTIFACT"] == up["name"]
    assert '--name "$ARTIFACT" --dir baseline' in fetch["run"] and "${{" not in fetch["run"]
    assert gate["if"].startswith("github.event_name == 'pull_request' && hashFiles('baseline/claims.json')")
    assert gate["run"] == "claimcheck diff baseline/claims.json reports/claims.json --fail-on-move"
    assert cpu["permissions"]["actions"] == "read"


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


# actionlint and zizmor themselves run in .ci/run's lint stage (with ruff and mypy), not in the test
# command: tests/core/test_ci_run.py proves the stage runs both and fails on a finding.


def test_every_zizmor_waiver_gives_its_reason():
    for n, line in enumerate(WORKFLOW.read_text(encoding="utf-8").splitlines(), 1):
        m = re.search(r"# zizmor: ignore\[[a-z-]+\](?P<reason>.*)", line)
        if m:
            assert len(m["reason"].split()) >= 3, f"line {n}: a waiver without its reason"


def test_the_readme_says_who_runs_its_test_command(wf):
    """A user trial: the README called its test command "what CI runs", while the workflow's harness
    job runs `pytest tests/`: the words name .ci/run, and the harness job's own command."""
    text = README.read_text(encoding="utf-8")
    lead = " ".join(re.search(r"\*\*Tests\*\* —(.+?)```bash", text, re.S).group(1).split())
    assert "what CI runs" not in lead and "as `.ci/run` runs them" in lead
    harness = run_lines(wf["jobs"]["tests"])[-1]
    assert harness == "pytest tests/" and f"harness job runs `{harness}` alone" in lead
