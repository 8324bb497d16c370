"""The LLM kit's pytest side: markers, skips (no GPU, no pretrained weights), fixtures, its part of
the runner fingerprint and the portable-LM lane's selection. Registered by :mod:`claimcheck.llm.plugin`
in a claims run only; torch is imported only inside hooks and fixtures.
"""

from __future__ import annotations

import contextlib

import pytest

from claimcheck.plugin.parallel import is_worker, needs_exclusive
from claimcheck.plugin.state import run_state, settings_of, setup_error, skip_here

#: the marker of the portable-LM lane's tests (``--claims-lm`` runs them alone)
LANE_MARKER = "portable_lm"


MARKERS = {
    "gpu": "gpu: needs a CUDA GPU; skipped with the reason where torch sees none",
    "pretrained": "pretrained: needs the real pretrained GPT-2 weights; skipped with the reason where none are found",
    "portable_lm": "portable_lm: a model-agnostic form of a claim, run on another causal LM only with --claims-lm NAME",
}


def pytest_configure(config):
    for text in MARKERS.values():
        config.addinivalue_line("markers", text)
    s = settings_of(config)
    if s.device.startswith("cuda"):  # a GPU runner without CUDA must fail loudly, not run on the CPU
        from claimcheck.llm.device import DeviceError, select_device

        try:
            select_device(s.device)
        except DeviceError as exc:
            raise pytest.UsageError(f"claimcheck: {s.shown('device')}: {exc}") from None


def set_threads(config, timing: bool = True) -> None:
    """Set torch's thread count for this run (``--claims-threads``, :func:`claimcheck.fingerprint.choose_threads`),
    decided once, before the first measuring test's fixtures, and kept for the fingerprint
    (``threads``); nothing without torch. In an xdist worker with ``auto``, tests that do not
    measure run on 1 thread (a sibling is busy: docs/timing.md#threads) and the count is decided
    at the first ``timing`` test, which holds the run's lock alone (:mod:`claimcheck.plugin.parallel`).
    """
    import importlib.util

    kit = run_state(config).kit
    if kit.get("threads", 0) is None or importlib.util.find_spec("torch") is None:
        kit["threads"] = None
        return
    import torch

    if is_worker(config) and not timing and settings_of(config).threads == "auto":
        torch.set_num_threads(1)
        return
    if "threads" not in kit:
        from claimcheck.fingerprint import choose_threads, load_average, runnable_others

        s = settings_of(config)
        load, cores = load_average()
        n, why = choose_threads(s.threads, cores, runnable_others() if s.threads == "auto" else None, load)
        kit["threads"] = {"setting": s.threads, "threads": n, "why": why}
    if torch.get_num_threads() != kit["threads"]["threads"]:
        torch.set_num_threads(kit["threads"]["threads"])


def weights_of(config):
    """Where pretrained GPT-2 comes from in this run (decided once per run, without the network
    unless downloads are allowed): a :class:`claimcheck.llm.weights.WeightsResolution`."""
    kit = run_state(config).kit
    if "weights" not in kit:
        from claimcheck.llm.weights import resolve_weights

        s = settings_of(config)
        kit["weights"] = resolve_weights(s.weights, s.allow_download)
    return kit["weights"]


THREADS_OUTPUT_KEY = "claimcheck_threads"  # xdist worker -> controller: the threads it measured on


def pytest_sessionfinish(session):
    """An xdist worker hands its thread count to the controller, which writes the fingerprint."""
    threads = run_state(session.config).kit.get("threads")
    if is_worker(session.config) and threads:
        session.config.workeroutput[THREADS_OUTPUT_KEY] = threads


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """The controller keeps the first worker's thread count that measured (the one that ran the
    timing claims, under ``--dist loadgroup``), so the report says what they ran on."""
    threads = getattr(node, "workeroutput", {}).get(THREADS_OUTPUT_KEY)
    if threads:
        run_state(node.config).kit.setdefault("threads", threads)


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_runner_fingerprint(config, fingerprint):
    import importlib.util

    if importlib.util.find_spec("torch") is None:  # a core-only install: the kit has nothing to add
        fingerprint["llm_kit"] = "inactive: torch is not installed (pip install 'claimcheck[claims]')"
        return
    from claimcheck.llm.fingerprint import kit_fields
    from claimcheck.llm.timing import machine_load
    from claimcheck.llm.weights import weights_record

    fingerprint.update(kit_fields())
    if run_state(config).kit.get("threads"):
        fingerprint["threads"] = run_state(config).kit["threads"]
    fingerprint["load"] = machine_load()  # at the start of the run; every timing row has its own
    fingerprint["weights"] = weights_record(weights_of(config), settings_of(config).weights_shapes)


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_report_dir(config, report_dir):
    s = settings_of(config)
    if s.lm and dict(s.sources).get("report_dir") == "default":  # keep the main report apart
        from claimcheck.llm.portable_lm import lane_slug

        return report_dir / f"portable-{lane_slug(s.lm)}"
    return None


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_size_profile(config, registry, items):
    """The kit's sizes for a chapter whose tests use ``claims_profile``, else None; described by the
    sizes its tests read (:func:`size_reads`), or every size where the items are not known (the
    pytest-xdist controller)."""
    if items is not None and not any("claims_profile" in getattr(i, "fixturenames", ()) for i in items):
        return None
    from claimcheck.llm.profiles import get

    profile = get(settings_of(config).size_profile)
    if items is None:
        return profile.as_dict()
    used = size_reads(config).used_by(items)
    return profile.as_dict(used) if used else None


def size_reads(config):
    """The run's :class:`claimcheck.llm.profiles.SizeReads`: which sizes each test and fixture read."""
    kit = run_state(config).kit
    if "size_reads" not in kit:
        from claimcheck.llm.profiles import SizeReads

        kit["size_reads"] = SizeReads()
    return kit["size_reads"]


@contextlib.contextmanager
def _reading(config, owner: str):
    """Inside the block, the sizes read are ``owner``'s (:func:`size_reads`)."""
    owners = size_reads(config).owners
    owners.append(owner)
    try:
        yield
    finally:
        owners.pop()


@pytest.hookimpl(wrapper=True)
def pytest_fixture_setup(fixturedef, request):
    with _reading(request.config, f"fixture {fixturedef.argname}"):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item):
    with _reading(item.config, item.nodeid):
        return (yield)


def pytest_collection_modifyitems(session, config, items):
    """The portable-LM lane runs alone, and only when asked for (--claims-lm)."""
    from claimcheck.plugin.items import RegistryErrorItem

    lane = bool(settings_of(config).lm)
    keep = [
        i
        for i in items
        if isinstance(i, RegistryErrorItem) or bool(i.get_closest_marker(LANE_MARKER)) == lane
    ]
    if len(keep) != len(items):
        config.hook.pytest_deselected(items=[i for i in items if i not in keep])
        items[:] = keep


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_deselected_group(config, item):
    """``lane``: a portable-LM lane test left out of a GPT-2 run; ``gpt2``: a GPT-2 test left out
    of the lane's run; None: not the kit's doing."""
    in_lane = item.get_closest_marker(LANE_MARKER) is not None
    lane = settings_of(config).lm
    return "lane" if in_lane and not lane else "gpt2" if lane and not in_lane else None


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_deselection_words(config, group, where, report_dir):
    """Why the lane's (or the GPT-2) tests were left out, and the command that runs them."""
    from claimcheck.llm.options import PORTABLE_LMS

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
def pytest_claimcheck_test_needs(config, item, needs):
    """A portable-LM lane test brings its own model: it needs no pretrained GPT-2 weights."""
    if item.get_closest_marker(LANE_MARKER) is None:
        return None
    return tuple(n for n in needs if n != "weights")


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_runner_keys(config):
    """The libraries the measurements ran on: a partial run keeps no row measured with others."""
    return ["torch", "transformers"]


@pytest.hookimpl(optionalhook=True)
def pytest_claimcheck_run_args(config):
    lm = settings_of(config).lm
    return ["--claims-lm", lm] if lm else []


# a plain hook: after the core's tryfirst check of the claim itself, before pytest's own set-up of
# the fixtures (registered earlier, so called later), so a claim that cannot run here costs nothing
def pytest_runtest_setup(item):
    set_threads(item.config, timing=needs_exclusive(item))
    if item.get_closest_marker("gpu"):
        s = settings_of(item.config)
        if s.device == "cpu":
            skip_here(
                f"needs a CUDA GPU; this run was told to use the CPU ({dict(s.sources)['device']}: cpu)"
            )
        from claimcheck.llm.device import cuda_available, no_gpu_reason

        if not cuda_available():
            skip_here(no_gpu_reason())
    if item.get_closest_marker("pretrained"):
        w = weights_of(item.config)
        if w.broken:  # weights given but unusable: a broken input is an error, not a skip
            setup_error(w.reason)
        if not w.available:
            skip_here(w.reason)


@pytest.fixture(scope="session")
def claims_weights(pytestconfig):
    """Where pretrained GPT-2 comes from in this run (:class:`claimcheck.llm.weights.WeightsResolution`)."""
    return weights_of(pytestconfig)


@pytest.fixture(scope="session")
def claims_device(claims_settings):
    """The ``torch.device`` of device-aware claims (``--claims-device``; :mod:`claimcheck.llm.device`)."""
    from claimcheck.llm.device import select_device

    return select_device(claims_settings.device)


@pytest.fixture(scope="session")
def claims_profile(claims_settings, pytestconfig):
    """The :class:`claimcheck.llm.profiles.Profile` of this run (sizes behind size-dependent claims),
    watched: the sizes a chapter's tests read are the ones its report names."""
    from claimcheck.llm.profiles import WatchedProfile, get

    return WatchedProfile(get(claims_settings.size_profile), size_reads(pytestconfig))
