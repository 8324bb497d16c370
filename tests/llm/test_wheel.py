"""A wheel built from the checkout runs the chapter's claims, its package data included.

``pip wheel --no-deps`` builds the wheel (the ``package_wheel`` fixture, shared with test_install.py); it is installed non-editable into a fresh virtual
environment that sees this environment's packages (torch, transformers...) through a ``.pth`` file
of plain path lines: a path line is not a site directory, so the ``.pth`` files in it, among them
the editable install of the checkout, stay inactive (verified below). The claims run from a folder
holding copies of claims/, fixtures/, conftest.py and the pytest settings, and no claimcheck/: so
the wheel's claimcheck is imported, not the checkout's, and ``claimcheck/llm/data/sample.txt``
comes from the wheel through importlib.resources. 15 s on the shared 2-core machine (a wheel build, an
install, and the pytest run), under the ~20 s of the slow marker.
"""

import json
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

from tests.claimkit import lean, read_report

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, os, sys
from pathlib import Path


def pytest_sessionfinish(session):
    import claimcheck
    from claimcheck.llm.models import sample_text
    from importlib import resources

    Path(os.environ["WHEEL_PROBE_OUT"]).write_text(json.dumps({
        "claimcheck": claimcheck.__file__,
        "plugin": sys.modules["claimcheck.plugin"].__file__,
        "kit_plugin": sys.modules["claimcheck.llm.plugin"].__file__,
        "sample": str(resources.files("claimcheck.llm").joinpath("data", "sample.txt")),
        "sample_chars": len(sample_text()),
    }))
"""


def ini_options() -> str:
    """The checkout's ``[tool.pytest.ini_options]`` table, as written."""
    text = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    start = text.index("[tool.pytest.ini_options]")
    end = text.find("\n[", start + 1)
    return text[start:] if end < 0 else text[start : end + 1]


def test_a_wheel_install_runs_claims_with_its_package_data(package_wheel, outside_env, tmp_path):
    wheel = package_wheel
    assert "claimcheck/llm/data/sample.txt" in zipfile.ZipFile(wheel).namelist()

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    site = Path(
        subprocess.run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / "outer-environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--quiet", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
        env=outside_env,
    )
    assert done.returncode == 0, done.stdout + done.stderr

    project = tmp_path / "project"
    project.mkdir()
    for name in ("claims", "fixtures"):
        shutil.copytree(ROOT / name, project / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy2(ROOT / "conftest.py", project / "conftest.py")
    (project / "pyproject.toml").write_text(ini_options(), encoding="utf-8")
    (project / "wheel_probe.py").write_text(PROBE, encoding="utf-8")
    assert not (project / "claimcheck").exists()
    probe = tmp_path / "probe.json"
    env = {**outside_env, "WHEEL_PROBE_OUT": str(probe), "PYTHONPATH": str(project)}
    done = subprocess.run(
        [
            str(python),
            "-m",
            "pytest",
            "claims/",
            "-k",
            "C19 or C29",  # a KV cache of the kit (a scaled-down Llama) and the tokenizer: no GPT-2 small to build
            "-m",
            "not timing and not slow",
            "-p",
            "wheel_probe",
            "-p",
            "no:cacheprovider",
            *lean(),
            "-q",
        ],
        capture_output=True,
        text=True,
        cwd=project,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]

    seen = json.loads(probe.read_text(encoding="utf-8"))
    for key in ("claimcheck", "plugin", "kit_plugin", "sample"):
        assert Path(seen[key]).is_relative_to(site), (key, seen[key])  # the wheel's files, not the checkout's
    assert seen["sample_chars"] == len(
        (ROOT / "claimcheck" / "llm" / "data" / "sample.txt").read_text(encoding="utf-8")
    )
    rows = read_report(project).claims
    assert rows["C19"]["outcome"] == "passed" and rows["C29"]["outcome"] == "passed"
