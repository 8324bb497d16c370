"""``pip install <checkout>`` gives the core and its command line without torch.

A fresh virtual environment (``python -m venv``), the checkout installed non-editable with its
declared dependencies only (pip fetches pytest, pint, filelock, jinja2 from PyPI or its cache;
about 5-10 s on the 2-core CI machine, so not marked slow): torch is not importable there, and
validate, check-manuscript, init, merge and diff run on our own files; pytest loads claimcheck's
plugins (the LLM kit's one stays inert) without pytest-html and without INTERNALERROR.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"


@pytest.fixture(scope="module")
def core_venv(package_wheel, outside_env, tmp_path_factory):
    venv = tmp_path_factory.mktemp("core-venv")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120)
    python = venv / "bin" / "python"
    # the test interpreter's pip installs into the new environment (saves bootstrapping pip there)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--quiet",
            "--disable-pip-version-check",
            str(package_wheel),  # the checkout's wheel (tests/conftest.py), with its declared dependencies
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=outside_env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return venv


def run(venv, outside_env, cwd, *argv, tool="claimcheck"):
    exe = venv / "bin" / tool
    return subprocess.run(
        [str(exe), *map(str, argv)], capture_output=True, text=True, cwd=cwd, env=outside_env, timeout=120
    )


def test_the_core_install_has_no_torch_and_is_not_the_checkout(core_venv, outside_env, tmp_path):
    probe = (
        "import importlib.util, claimcheck\n"
        "print(claimcheck.__file__)\n"
        "print([m for m in ('torch', 'transformers', 'matplotlib', 'pytest_html') if importlib.util.find_spec(m)])\n"
    )
    done = run(core_venv, outside_env, tmp_path, "-c", probe, tool="python")
    assert done.returncode == 0, done.stderr
    where, kit = done.stdout.splitlines()
    assert Path(where).is_relative_to(core_venv) and kit == "[]"


def test_the_core_commands_run_without_torch(core_venv, outside_env, tmp_path):
    done = run(core_venv, outside_env, tmp_path, "validate", ROOT / "claims" / "ch15" / "claims.toml", "-q")
    assert done.returncode == 0, done.stderr
    done = run(
        core_venv,
        outside_env,
        tmp_path,
        "check-manuscript",
        DATA / "manuscript_zh.md",
        "--registry",
        DATA / "ms_registry.toml",
    )
    assert done.returncode == 0 and "coverage 100.0%" in done.stdout, done.stdout + done.stderr
    done = run(core_venv, outside_env, tmp_path, "init", DATA / "manuscript_index_zh.md", "--name", "index")
    assert done.returncode == 0 and (tmp_path / "claims" / "index" / "claims.toml").is_file(), (
        done.stdout + done.stderr
    )

    doc = {
        "schema": 1,
        "runner": {"cpu": "x", "cores": 2},
        "settings": {"profile": "quick"},
        "claims": [{"id": "C01", "outcome": "passed", "measured": 1.0, "unit": "x", "tolerance": ">=1"}],
    }
    old, new = tmp_path / "old" / "claims.json", tmp_path / "new" / "claims.json"
    for path, outcome in ((old, "passed"), (new, "failed")):
        path.parent.mkdir()
        path.write_text(
            json.dumps({**doc, "claims": [{**doc["claims"][0], "outcome": outcome}]}), encoding="utf-8"
        )
    done = run(core_venv, outside_env, tmp_path, "merge", old, new, "-o", tmp_path / "matrix.html")
    assert done.returncode == 0 and (tmp_path / "matrix.html").is_file(), done.stderr
    done = run(core_venv, outside_env, tmp_path, "diff", old, new)
    assert done.returncode == 1 and "C01" in done.stdout, done.stdout + done.stderr  # a regression gates


@pytest.mark.parametrize(
    "plugins", [[], ["-p", "no:html"], ["-p", "no:claimcheck"]], ids=["all", "no-html", "no-claimcheck"]
)
def test_pytest_with_the_core_install_collects_an_empty_folder(core_venv, outside_env, tmp_path, plugins):
    done = run(
        core_venv,
        outside_env,
        tmp_path,
        "-m",
        "pytest",
        "--co",
        "-p",
        "no:cacheprovider",
        *plugins,
        tool="python",
    )
    assert done.returncode == 5, done.stdout + done.stderr  # 5: no tests collected
    assert "INTERNALERROR" not in done.stdout + done.stderr


def test_the_install_ships_its_license_typing_marker_and_one_version(core_venv, outside_env, tmp_path):
    """What a wheel must carry: py.typed (PEP 561), the LICENSE (PEP 639 license-files), the
    Framework :: Pytest classifier, one version (claimcheck.__version__) for the metadata,
    ``claimcheck --version`` and ``python -m claimcheck``."""
    probe = (
        "import importlib.metadata as md, importlib.resources as r, json, claimcheck\n"
        "d = md.distribution('claimcheck')\n"
        "print(json.dumps({'typed': r.files('claimcheck').joinpath('py.typed').is_file(),\n"
        "  'license': [str(f) for f in d.files if f.name.startswith('LICENSE')],\n"
        "  'expression': d.metadata.get('License-Expression'), 'version': d.version,\n"
        "  'module_version': claimcheck.__version__, 'classifiers': d.metadata.get_all('Classifier')}))\n"
    )
    done = run(core_venv, outside_env, tmp_path, "-c", probe, tool="python")
    assert done.returncode == 0, done.stderr
    meta = json.loads(done.stdout)
    assert meta["typed"] and meta["license"] and meta["expression"] == "MIT"
    assert meta["version"] == meta["module_version"] and "Framework :: Pytest" in meta["classifiers"]
    done = run(core_venv, outside_env, tmp_path, "--version")
    assert done.returncode == 0 and done.stdout.strip() == f"claimcheck {meta['version']}", (
        done.stdout + done.stderr
    )
    done = run(core_venv, outside_env, tmp_path, "-m", "claimcheck", "--version", tool="python")
    assert done.returncode == 0 and done.stdout.strip() == f"claimcheck {meta['version']}", (
        done.stdout + done.stderr
    )


def test_claims_that_need_the_kit_say_so_in_one_line_and_the_others_run(core_venv, outside_env, tmp_path):
    """Issue 18: ``pytest claims/ -k "C21 or C26"`` on a core-only install printed a full
    ``ModuleNotFoundError: No module named 'torch'`` traceback and named no extra."""
    import shutil

    for name in ("claims", "fixtures"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("conftest.py", "pyproject.toml"):
        shutil.copy2(ROOT / name, tmp_path / name)
    done = run(
        core_venv,
        outside_env,
        tmp_path,
        "-m",
        "pytest",
        "claims/",
        "-k",
        "C21 or C26 or C06",
        "-p",
        "no:cacheprovider",
        tool="python",
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    for words in ("Traceback", "ModuleNotFoundError", "INTERNALERROR"):
        assert words not in out, out
    rows = {  # by short id within ch15: another chapter of the book may have its own C06
        c["id"]: c
        for c in json.loads((tmp_path / "reports" / "claims.json").read_text(encoding="utf-8"))["claims"]
        if c["chapter"] == "ch15"
    }
    needs = "needs the `claims` extra: pip install 'claimcheck[claims]'"
    assert rows["C21"]["outcome"] == "error" and rows["C21"]["reason"].startswith(
        f"C21: {needs}"
    )  # a fixture's import
    assert rows["C06"]["outcome"] == "error" and rows["C06"]["reason"].startswith(
        needs
    )  # its module's import
    assert rows["C26"]["outcome"] == "passed"  # the chapter's own arithmetic needs no kit
    assert f"C21: {needs}" in out
