import os

pytest_plugins = ["pytester"]

# The fresh interpreters these tests start (~25 pytest runs) may cache pytest's rewritten modules
# even where the environment sets PYTHONDONTWRITEBYTECODE (this project's CI image does): otherwise
# each one rewrites ~270 plugin modules from source again (on a 2-core EPYC, AVX2 mode: the five
# files with the most fresh runs took 48 s with the variable set, 40 s without it). This process
# keeps the setting it started with (sys.dont_write_bytecode); only its children write.
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)

# claimcheck's own toy chapter of a book (tests/plugin/test_book.py copies it beside ch15 into a
# project of its own): not a chapter of this project's runs
collect_ignore = ["data/book"]

# pytester's in-process runs drop from sys.modules every module first imported inside them; torch
# (imported by the runner fingerprint) cannot be imported twice in one process and segfaults if it
# is. Importing it once here, outside any inner run, keeps it loaded across them.
try:
    import torch  # noqa: E402,F401
except ImportError:  # the core's tests run without the LLM kit's dependencies
    torch = None

# What every in-process claims run imports, loaded once here for the same reason: dropped after each
# inner run, it was imported again by the next (~90-120 modules each time, in ~150 runs): the report's
# file lock (filelock) and the kit's weights lookup in the local Hugging Face cache (huggingface_hub).
try:
    import filelock  # noqa: E402,F401
    from huggingface_hub import try_to_load_from_cache  # noqa: E402,F401
except ImportError:  # a core-only install: its claims runs import neither
    pass
try:
    import claimcheck.llm.timing as timing  # noqa: E402  (imports torch only when it measures)
except ImportError:
    timing = None

# Likewise claimcheck's glue: an outer run that is not a claims run (pytest tests/plugin) never
# imports it, so each inner claims run would import its own copy and drop it afterwards, while
# `from claimcheck import fileio` in a test still finds the dropped copy on the package: a
# monkeypatch of it would then miss the inner run's module. Imported here, they are shared.
import claimcheck.fileio  # noqa: E402,F401
import claimcheck.fingerprint  # noqa: E402
import claimcheck.pages  # noqa: E402,F401
import claimcheck.plugin.html  # noqa: E402,F401
import claimcheck.plugin.parallel  # noqa: E402,F401
from claimcheck.plugin.options import GLUE  # noqa: E402

for _name in GLUE:
    __import__(_name)


# --- installing the checkout (tests/core/test_install.py, tests/llm/test_wheel.py) -------------------
import functools  # noqa: E402
import shutil  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="session")
def package_source(tmp_path_factory):
    """What a build of the checkout reads (pyproject.toml, README.md, LICENSE, claimcheck/), copied: setuptools
    writes build/ and *.egg-info beside the sources, which must not land in the checkout."""
    src = tmp_path_factory.mktemp("src")
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(
        ROOT / "claimcheck",
        src / "claimcheck",
        ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"),
    )
    return src


@pytest.fixture(scope="session")
def package_wheel(package_source, outside_env, tmp_path_factory) -> Path:
    """The checkout's wheel, built once per run (``pip wheel --no-deps``, offline where setuptools is
    here): the core-only install (test_install.py) and the wheel install (test_wheel.py) share it,
    which saves one build of the package (~5 s on 2 cores)."""
    import importlib.util
    import subprocess
    import sys

    out = tmp_path_factory.mktemp("wheels")
    build = ["--no-build-isolation"] if importlib.util.find_spec("setuptools") else []
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--quiet",
            *build,
            "-w",
            str(out),
            str(package_source),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        env=outside_env,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    (wheel,) = out.glob("claimcheck-*.whl")
    return wheel


@pytest.fixture(scope="session")
def outside_env():
    """The environment for a process that must import only what its own interpreter installed:
    no PYTHONPATH (which puts a checkout first), no active virtual environment."""
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}


@pytest.fixture(autouse=True)
def _not_an_xdist_worker(monkeypatch):
    """Under ``pytest -n 2`` (the README's test command) this process is an xdist worker, whose
    ``PYTEST_XDIST_*`` variables the claims runs these tests start (in process and as children)
    would inherit: each of those runs is a run of its own, never a worker of this one."""
    for name in [k for k in os.environ if k.startswith("PYTEST_XDIST_")]:
        monkeypatch.delenv(name)


@pytest.fixture(autouse=True)
def _torch_threads_kept():
    """An in-process claims run with the LLM kit sets torch's thread count for its own measurements
    (``--claims-threads``, from the machine's load at that moment): this process's is put back after
    each test, so the claims of the outer run (the README's command runs claims/ after tests/) are
    measured on the thread count their report records."""
    if torch is None:
        yield
        return
    threads = torch.get_num_threads()
    yield
    if torch.get_num_threads() != threads:
        torch.set_num_threads(threads)


_first_load: list[dict] = []
_machine_load = timing.machine_load if timing is not None else None


def _load_once(probe_repeats: int = 5) -> dict:
    """:func:`claimcheck.llm.timing.machine_load` measured once per session, then the same dict."""
    if not _first_load:
        _first_load.append(_machine_load(probe_repeats))
    return dict(_first_load[0])


@pytest.fixture(autouse=True)
def _in_process_runs_measure_the_machine_once(request, monkeypatch):
    """What a claims run with the LLM kit measures of the machine before it writes a row, for the
    tests' in-process runs (~150, in tests that use pytester), which check none of it:

    * ``--claims-threads auto`` samples the running count five times, 50 ms apart, before the first
      test (:func:`claimcheck.fingerprint.runnable_others`): 0.2 s of waiting per run. The five
      samples are read without the gaps; tests/core/test_machine.py checks the spaced sampling.
    * the fingerprint and every timing row time a reference kernel six times
      (:func:`claimcheck.llm.timing.machine_load`, ~0.05 s of CPU per run): measured once per
      session, the first time a run asks. A test about the busy-machine rule sets the load itself
      (tests/plugin/test_timing_verdicts.py), inside its run, over this.
    """
    if "pytester" not in request.fixturenames:
        return
    monkeypatch.setattr(
        claimcheck.fingerprint,
        "runnable_others",
        functools.partial(claimcheck.fingerprint.runnable_others, interval_s=0.0),
    )
    if timing is not None:
        monkeypatch.setattr(timing, "machine_load", _load_once)
