"""With claimcheck installed, pytest runs in any folder: the plugins come through their pytest11
entry points (claimcheck, claimcheck-llm), and disabling one of them (or pytest-html) leaves a
working pytest, never an INTERNALERROR. Each run collects an empty folder; two of them in a fresh
process (see :func:`test_collecting_an_empty_folder`)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.claimkit import lean

ROOT = Path(__file__).resolve().parents[2]


def pytest_in(folder, *argv):
    # this checkout's claimcheck, as the editable install's entry points name its modules; without
    # Hypothesis's plugin, which imports all of Hypothesis at the end of a run (tests.claimkit.lean)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *lean(), *argv],
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=120,
    )


@pytest.mark.parametrize(
    "plugins, loaded, blocked, fresh",
    [
        ([], ["claimcheck.plugin", "claimcheck.llm.plugin", "pytest_html.plugin"], [], True),
        (["-p", "no:html"], ["claimcheck.plugin", "claimcheck.llm.plugin"], ["pytest_html.plugin"], False),
        (
            ["-p", "no:claimcheck"],
            ["claimcheck.llm.plugin"],
            ["claimcheck.plugin"],
            True,
        ),  # the kit stays inert
        (["-p", "no:claimcheck-llm"], ["claimcheck.plugin"], ["claimcheck.llm.plugin"], False),
    ],
    ids=["all", "no-html", "no-claimcheck", "no-claimcheck-llm"],
)
def test_collecting_an_empty_folder(pytester, plugins, loaded, blocked, fresh):
    """``fresh``: in a new interpreter, where the plugins' modules are imported in the order the
    entry points load them (all of them; the kit's without the core's plugin); the other two block a
    plugin whose modules the ``all`` case imports in the same order, and run in this process."""
    argv = ["--co", "--trace-config", *plugins]
    if fresh:
        done = pytest_in(pytester.path, *argv)
        out, code = done.stdout + done.stderr, done.returncode
    else:
        result = pytester.runpytest_inprocess("-p", "no:cacheprovider", *argv)
        out, code = result.stdout.str() + result.stderr.str(), result.ret
    assert "INTERNALERROR" not in out, out
    assert code == 5, out  # 5: no tests collected
    for module in loaded + blocked:
        assert (f"PLUGIN registered: <module '{module}'" in out) == (module in loaded), module


def test_a_core_only_install_names_the_claims_extras_packages_from_its_metadata():
    # the glue names no kit library: the claims extra's import names come from the installed metadata
    import re
    import tomllib

    from claimcheck.plugin.state import kit_modules, missing_kit

    extra = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    wanted = [re.match(r"[A-Za-z0-9._-]+", r).group(0) for r in extra["optional-dependencies"]["claims"]]
    assert kit_modules() == tuple(w.replace("-", "_").lower() for w in wanted)
    assert "(no module named 'torch' here)" in missing_kit(ModuleNotFoundError("x", name="torch.nn"))
    assert missing_kit(ModuleNotFoundError("x", name="yaml")) is None
