"""How a claims run ends when told to stop: SIGINT and SIGTERM both take pytest's interrupted path,
so the report of the claims decided so far is written and the exit code is 2.

A signal during a kit's heavy import is held until the next collector or test phase (a
``KeyboardInterrupt`` there leaves a half-loaded package). A second SIGINT raises at once; a second
SIGTERM within :data:`SIGTERM_GRACE_S` is ignored (``timeout`` sends two: its child, then the group).
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable, Iterable
from types import FrameType
from typing import Any

import pytest

from claimcheck.plugin.state import RunState, run_state

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
SIGTERM_GRACE_S = 30.0
#: what ``signal.signal`` takes and returns: a handler, SIG_DFL/SIG_IGN, or None (not set from Python)
_Handler = Callable[[int, FrameType | None], Any] | int | signal.Handlers | None
_PREVIOUS = pytest.StashKey[dict[signal.Signals, _Handler]]()


def heavy_packages(config: pytest.Config) -> list[str]:
    """The kits' heavy packages: one whose import an interrupt cut short cannot be imported again."""
    return [name for names in config.hook.pytest_claimcheck_heavy_packages(config=config) for name in names]


def half_loaded(packages: Iterable[str]) -> list[str]:
    """The ``packages`` whose import began and has not finished (initialising, or cut short:
    submodules loaded, the package not): importing one again raises or crashes the interpreter."""

    def half(name: str) -> bool:
        mod = sys.modules.get(name)
        if mod is not None:
            return getattr(getattr(mod, "__spec__", None), "_initializing", False)
        return any(key.startswith(name + ".") for key in list(sys.modules))

    return [name for name in packages if half(name)]


@pytest.hookimpl(trylast=True)
def pytest_configure(config: pytest.Config) -> None:
    state = run_state(config)
    if hasattr(config, "workerinput"):  # an xdist worker: its controller is told
        return
    if threading.current_thread() is not threading.main_thread():
        return  # handlers can only be set from the main thread (pytest run inside a thread)
    first: list[float] = []  # monotonic time of the first signal
    heavy = heavy_packages(config)

    def on_signal(signum: int, frame: FrameType | None) -> None:
        name = signal.Signals(signum).name
        if state.ended_by:  # told twice
            if signum == signal.SIGTERM:
                if time.monotonic() - first[0] < SIGTERM_GRACE_S:
                    return  # `timeout` signals its child and then the whole group: one request, sent twice
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.raise_signal(signal.SIGTERM)
            raise KeyboardInterrupt(name)
        state.ended_by = name
        first.append(time.monotonic())
        in_import = frame is not None and frame.f_code.co_filename.startswith("<frozen importlib")
        if in_import or half_loaded(heavy):  # raised there, it would be lost in importlib's callbacks
            state.signal_held = True  # raised by the next hook, once the import is done
            return
        raise KeyboardInterrupt(name)

    config.stash[_PREVIOUS] = {s: signal.signal(s, on_signal) for s in _SIGNALS}
    config.pluginmanager.register(HeldSignal(state), "claimcheck-held-signal")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = run_state(config)
    for signum, previous in config.stash.get(_PREVIOUS, {}).items():
        if signum == signal.SIGTERM and state.ended_by == "SIGTERM":
            continue  # `timeout`'s second SIGTERM may come as the interpreter exits: still ignored
        signal.signal(signum, previous)
    config.stash[_PREVIOUS] = {}


class HeldSignal:
    """Raises the interrupt a signal asked for during an import at the next collector or test phase:
    a hook runs outside any import."""

    def __init__(self, state: RunState) -> None:
        self.state = state

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self) -> None:
        if self.state.signal_held:
            self.state.signal_held = False
            raise KeyboardInterrupt(self.state.ended_by)

    pytest_collectstart = pytest_collection_finish = pytest_runtest_teardown = pytest_runtest_setup
