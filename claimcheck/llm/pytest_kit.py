"""The LLM kit's pytest side: markers, skips (no GPU, no pretrained weights), fixtures, its part of
the runner fingerprint and the portable-LM lane's selection. Registered by :mod:`claimcheck.llm.plugin`
in a claims run only; torch is imported late, inside hooks (an optional dependency).
"""

from __future__ import annotations

import contextlib
import importlib.util
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from claimcheck import fingerprint as core
from claimcheck.llm import device, profiles, timing
from claimcheck.llm.fingerprint import kit_fields
from claimcheck.llm.options import PORTABLE_LMS
from claimcheck.llm.portable_lm import lane_slug
from claimcheck.llm.weights import WeightsResolution, resolve_weights, weights_record
from claimcheck.plugin.items import RegistryErrorItem
from claimcheck.plugin.parallel import is_worker, needs_exclusive
from claimcheck.plugin.state import run_state, settings_of, setup_error, skip_here
from claimcheck.registry import Registry
from claimcheck.settings import Settings

if TYPE_CHECKING:
    import torch

LANE_MARKER = "portable_lm"  # the portable-LM lane's tests (``--claims-lm`` runs them alone)
THREADS_OUTPUT_KEY = "claimcheck_threads"  # xdist worker -> controller: the threads it measured on

MARKERS = {
    "gpu": "gpu: needs a CUDA GPU; skipped with the reason where torch sees none",
    "pretrained": "pretrained: needs the real pretrained GPT-2 weights; skipped with the reason where none are found",
    "portable_lm": "portable_lm: a model-agnostic form of a claim, run on another causal LM only with --claims-lm NAME",
}


def pytest_configure(config: pytest.Config) -> None:
    for text in MARKERS.values():
        config.addinivalue_line("markers", text)
    s = settings_of(config)
    if s.device.startswith("cuda"):  # a GPU runner without CUDA must fail loudly, not run on the CPU
        try:
            device.select_device(s.device)
        except device.DeviceError as exc:
            raise pytest.UsageError(f"claimcheck: {s.shown('device')}: {exc}") from None


def set_threads(config: pytest.Config, timing: bool = True) -> None:
    """Set torch's threads for this run (``--claims-threads``), decided once, before the first measuring
    test, and kept for the fingerprint. In an xdist worker with ``auto``, tests that do not measure run
    on 1 thread and the count is decided at the first ``timing`` test (docs/timing.md#threads)."""
    kit, setting = run_state(config).kit, settings_of(config).threads
    if kit.get("threads", 0) is None or importlib.util.find_spec("torch") is None:
        kit["threads"] = None
        return
    import torch

    if is_worker(config) and not timing and setting == "auto":
        torch.set_num_threads(1)
        return
    if "threads" not in kit:
        load, cores = core.load_average()
        n, why = core.choose_threads(
            setting, cores, core.runnable_others() if setting == "auto" else None, load
        )
        kit["threads"] = {"setting": setting, "threads": n, "why": why}
    if torch.get_num_threads() != kit["threads"]["threads"]:
        torch.set_num_threads(kit["threads"]["threads"])


def weights_of(config: pytest.Config) -> WeightsResolution:
    """This run's :class:`~claimcheck.llm.weights.WeightsResolution`, decided once."""
    kit = run_state(config).kit
    if "weights" not in kit:
        s = settings_of(config)
        kit["weights"] = resolve_weights(s.weights, s.allow_download)
    return kit["weights"]


def pytest_sessionfinish(session: pytest.Session) -> None:
    """An xdist worker hands its thread count to the controller, which writes the fingerprint."""
    threads = run_state(session.config).kit.get("threads")
    if is_worker(session.config) and threads:
        session.config.workeroutput[THREADS_OUTPUT_KEY] = threads  # type: ignore[attr-defined]  # xdist's


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:  # node: xdist's WorkerController (untyped)
    """The controller keeps the thread count of the first worker that measured (``--dist loadgroup``)."""
    if threads := getattr(node, "workeroutput", {}).get(THREADS_OUTPUT_KEY):
        run_state(node.config).kit.setdefault("threads", threads)


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_runner_fingerprint(config: pytest.Config, fingerprint: dict[str, Any]) -> None:
    if importlib.util.find_spec("torch") is None:  # a core-only install: the kit has nothing to add
        fingerprint["llm_kit"] = "inactive: torch is not installed (pip install 'claimcheck[claims]')"
        return
    fingerprint.update(kit_fields())
    if threads := run_state(config).kit.get("threads"):
        # the threads the tests measured with: under xdist a worker's, not the controller's own count
        fingerprint["threads"], fingerprint["torch_threads"] = threads, threads["threads"]
    fingerprint["load"] = timing.machine_load()  # at the start of the run; every timing row has its own
    fingerprint["weights"] = weights_record(weights_of(config), settings_of(config).weights_shapes)


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_report_dir(config: pytest.Config, report_dir: Path) -> Path | None:
    s = settings_of(config)
    if s.lm and dict(s.sources).get("report_dir") == "default":  # keep the main report apart
        return report_dir / f"portable-{lane_slug(s.lm)}"
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_size_profile(
    config: pytest.Config, registry: Registry, items: Sequence[pytest.Item] | None
) -> dict[str, Any] | None:
    """The sizes a chapter's tests read (:func:`size_reads`), every size where the items are not known
    (the xdist controller), or None where no test uses ``claims_profile``."""
    if items is not None and not any("claims_profile" in getattr(i, "fixturenames", ()) for i in items):
        return None
    profile = profiles.get(settings_of(config).size_profile)
    if items is None:
        return profile.as_dict()
    used = size_reads(config).used_by(items)
    return profile.as_dict(used) if used else None


def size_reads(config: pytest.Config) -> profiles.SizeReads:
    """The run's :class:`~claimcheck.llm.profiles.SizeReads`: which sizes each test and fixture read."""
    return run_state(config).kit.setdefault("size_reads", profiles.SizeReads())


@contextlib.contextmanager
def _reading(config: pytest.Config, owner: str) -> Generator[None]:
    """Inside the block, the sizes read are ``owner``'s (:func:`size_reads`)."""
    owners = size_reads(config).owners
    owners.append(owner)
    try:
        yield
    finally:
        owners.pop()


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(
    fixturedef: pytest.FixtureDef[Any], request: pytest.FixtureRequest
) -> Generator[None, object, object]:
    with _reading(request.config, f"fixture {fixturedef.argname}"):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Generator[None, None, None]:
    with _reading(item.config, item.nodeid):
        return (yield)


def _in_lane(item: pytest.Item) -> bool:
    return item.get_closest_marker(LANE_MARKER) is not None


def pytest_collection_modifyitems(
    session: pytest.Session, config: pytest.Config, items: list[pytest.Item]
) -> None:
    """The portable-LM lane runs alone, and only when asked for (--claims-lm)."""
    lane = bool(settings_of(config).lm)
    keep = [i for i in items if isinstance(i, RegistryErrorItem) or _in_lane(i) == lane]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_deselected_group(config: pytest.Config, item: pytest.Item) -> str | None:
    """``lane``: a portable-LM lane test left out of a GPT-2 run; ``gpt2``: a GPT-2 test left out
    of the lane's run; None: not the kit's doing."""
    in_lane, lane = _in_lane(item), settings_of(config).lm
    return "lane" if in_lane and not lane else "gpt2" if lane and not in_lane else None


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_deselection_words(
    config: pytest.Config, group: str, where: str, report_dir: str
) -> tuple[str, str] | None:
    """Why the lane's (or the GPT-2) tests were left out, and the command that runs them."""
    if group == "lane":
        folder = f"{report_dir.rstrip('/') + '/' if report_dir else ''}portable-{PORTABLE_LMS[0]}/"
        return (
            "the portable-LM lane's, which runs only when asked for (--claims-lm NAME) and then "
            f"alone, into its own report ({folder})",
            f"pytest {where} --claims-lm {PORTABLE_LMS[0]}",
        )
    if group == "gpt2":
        return (
            f"the GPT-2 claims', since this run is the portable-LM lane (--claims-lm {settings_of(config).lm}), "
            "which runs alone",
            f"pytest {where}",
        )
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_test_needs(
    config: pytest.Config, item: pytest.Item, needs: tuple[str, ...]
) -> tuple[str, ...] | None:
    """A portable-LM lane test brings its own model: it needs no pretrained GPT-2 weights."""
    return tuple(n for n in needs if n != "weights") if _in_lane(item) else None


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_runner_keys(config: pytest.Config) -> list[str]:
    """The libraries the measurements ran on: a partial run keeps no row measured with others."""
    return ["torch", "transformers"]


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_run_args(config: pytest.Config) -> list[str]:
    lm = settings_of(config).lm
    return ["--claims-lm", lm] if lm else []


# a plain hook: after the core's tryfirst check of the claim itself, before pytest's own set-up of
# the fixtures (registered earlier, so called later), so a claim that cannot run here costs nothing
def pytest_runtest_setup(item: pytest.Item) -> None:
    set_threads(item.config, timing=needs_exclusive(item))
    if item.get_closest_marker("gpu"):
        s = settings_of(item.config)
        if s.device == "cpu":
            skip_here(
                f"needs a CUDA GPU; this run was told to use the CPU ({dict(s.sources)['device']}: cpu)",
                "gpu",
            )
        if not device.cuda_available():
            skip_here(device.no_gpu_reason(), "gpu")
    if item.get_closest_marker("pretrained"):
        w = weights_of(item.config)
        if w.broken:  # weights given but unusable: a broken input is an error, not a skip
            setup_error(w.reason)
        if not w.available:
            skip_here(w.reason, "weights")


@pytest.fixture(scope="session")
def claims_weights(pytestconfig: pytest.Config) -> WeightsResolution:
    """Where pretrained GPT-2 comes from in this run (:class:`claimcheck.llm.weights.WeightsResolution`)."""
    return weights_of(pytestconfig)


@pytest.fixture(scope="session")
def claims_device(claims_settings: Settings) -> torch.device:
    """The ``torch.device`` of device-aware claims (``--claims-device``)."""
    return device.select_device(claims_settings.device)


@pytest.fixture(scope="session")
def claims_profile(claims_settings: Settings, pytestconfig: pytest.Config) -> profiles.WatchedProfile:
    """This run's :class:`~claimcheck.llm.profiles.Profile`, watched: the sizes a chapter's tests read
    are the ones its report names."""
    return profiles.WatchedProfile(profiles.get(claims_settings.size_profile), size_reads(pytestconfig))
