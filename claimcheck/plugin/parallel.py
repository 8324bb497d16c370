"""Claims under pytest-xdist (docs/ci.md, "In parallel"): timing claims never share the machine, and
the controller writes the report. Every test, and each worker's collection, holds a readers-writer lock
(:class:`filelock.ReadWriteLock`: released when a worker dies, writer-preferring) on a file in a folder
the controller hands to its workers, a ``timing`` test exclusively. The controller does not collect:
each worker sends it the registries it loaded and the tests it deselected. Under ``--dist loadgroup``
each worker writes its tests' groups into that folder for :func:`group_scheduler`: xdist 3.8 appends
them to node ids, which pytest 9.2 no longer allows (pytest-dev/pytest-xdist#1386)."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
from collections.abc import Generator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from claimcheck.fileio import write_atomic
from claimcheck.plugin.state import RunState

LOCK_INPUT_KEY = "claimcheck_lock_dir"  # controller -> worker, in node.workerinput
REGISTRIES_OUTPUT_KEY = "claimcheck_registries"  # worker -> controller, in config.workeroutput
DESELECTED_OUTPUT_KEY = "claimcheck_deselected"  # worker -> controller: its deselected tests' records
LOCK_FILE = "timing.lock"
TIMING_GROUP = "claimcheck-timing"  # xdist_group of the timing tests (used with --dist loadgroup)
GROUPS_FILE = "groups-{}.json"  # in the run's folder: one per worker, nodeid -> xdist group


def is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def xdist_group_of(item: pytest.Item) -> str | None:
    """The ``xdist_group`` ``item`` runs in, as xdist names it (several: sorted, joined by ``_``), or None."""
    names = {
        str(m.args[0] if m.args else m.kwargs.get("name", "default"))
        for m in item.iter_markers("xdist_group")
    }
    return "_".join(sorted(names)) or None


def needs_exclusive(item: pytest.Item) -> bool:
    """Whether ``item`` measures time (marked ``timing``, directly or from its claim's ``needs``)."""
    return item.get_closest_marker("timing") is not None


def register_xdist(config: pytest.Config, state: RunState, claims_run: bool) -> None:
    """Register the hooks of an xdist run: the controller's, when it writes the reports, or a worker's."""
    if is_worker(config):
        worker = XdistWorker(state, config.workerinput.get(LOCK_INPUT_KEY))  # type: ignore[attr-defined]
        config.pluginmanager.register(worker, "claimcheck-xdist")
    elif claims_run and config.getoption("dist", "no") != "no" and config.getoption("tx", None):
        config.pluginmanager.register(XdistController(state), "claimcheck-xdist")


class XdistController:
    """The controller's hooks: it hands a lock folder to each worker, loads the registries each reports
    and checks that no test ran while a timing test ran."""

    def __init__(self, state: RunState) -> None:
        self.state = state
        self.lock_dir = Path(tempfile.mkdtemp(prefix="claimcheck-xdist-"))  # removed at unconfigure
        self.spans: dict[str, list] = {}  # nodeid -> [first start, last stop, timing?]

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_make_scheduler(self, config: pytest.Config, log: Any) -> Any:
        if config.getoption("dist", "no") != "loadgroup":
            return None
        return group_scheduler(config, log, self.lock_dir)

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        node.workerinput[LOCK_INPUT_KEY] = str(self.lock_dir)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: object) -> None:
        output = getattr(node, "workeroutput", {})
        for path in output.get(REGISTRIES_OUTPUT_KEY, []):
            self.state.registry(Path(path))
        if not self.state.deselected:  # every worker deselects the same tests: one worker's records
            self.state.deselected.extend(tuple(r) for r in output.get(DESELECTED_OUTPUT_KEY, []))

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """Record when each test ran (setup start to teardown stop, all workers)."""
        if not hasattr(report, "start"):
            return
        span = self.spans.setdefault(report.nodeid, [report.start, report.stop, "timing" in report.keywords])
        span[0], span[1] = min(span[0], report.start), max(span[1], report.stop)

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """Check the guarantee on this run's own record: no test ran while a timing test ran."""
        if not self.spans:
            return
        if terminalreporter.config.getoption("dist", "no") != "loadgroup":
            terminalreporter.write_line(
                "claimcheck xdist: without --dist loadgroup each worker takes its own shared timing "
                "measurements, and a citation whose source ran elsewhere is skipped: use --dist loadgroup"
            )
        bad = timing_overlaps(self.spans)
        n = sum(1 for *_x, timing in self.spans.values() if timing)
        said = f"each of the {n} timing tests ran alone (no other of the {len(self.spans) - n} tests overlapped it)"
        if bad:
            said = f"WARNING: {len(bad)} test(s) ran while a timing test ran: {bad[:3]}"
        terminalreporter.write_line(f"claimcheck xdist: {said}", red=bool(bad))

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        shutil.rmtree(self.lock_dir, ignore_errors=True)


class XdistWorker:
    """A worker's hooks: it holds the run's lock around collection and each test (exclusively for a
    timing test) and sends the controller its registries and deselected tests."""

    def __init__(self, state: RunState, folder: str | None) -> None:
        self.state = state
        self.folder = Path(folder) if folder else None
        self.lock = None
        if self.folder is not None:
            from filelock import ReadWriteLock  # late: only a claims run takes the lock (start-up time)

            self.lock = ReadWriteLock(self.folder / LOCK_FILE)

    def _hold(self, exclusive: bool) -> AbstractContextManager[object]:
        if self.lock is None:
            return contextlib.nullcontext()
        return self.lock.write_lock() if exclusive else self.lock.read_lock()

    @pytest.hookimpl(wrapper=True)
    def pytest_collection(self, session: pytest.Session) -> Generator[None, object, object]:
        with self._hold(exclusive=False):
            return (yield)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        """Before xdist tells the controller what this worker collected: write its groups."""
        config = session.config
        if self.folder is None or not config.getoption("loadgroup", False):
            return
        groups = {item.nodeid: group for item in session.items if (group := xdist_group_of(item))}
        worker = config.workerinput["workerid"]  # type: ignore[attr-defined]  # pytest-xdist's
        write_atomic(self.folder / GROUPS_FILE.format(worker), json.dumps(groups))

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_protocol(
        self, item: pytest.Item, nextitem: pytest.Item | None
    ) -> Generator[None, object, object]:
        with self._hold(exclusive=needs_exclusive(item)):
            return (yield)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        output = session.config.workeroutput  # type: ignore[attr-defined]  # pytest-xdist's, on a worker
        output[REGISTRIES_OUTPUT_KEY] = list(self.state.registries)
        output[DESELECTED_OUTPUT_KEY] = [list(r) for r in self.state.deselected]


def group_scheduler(config: pytest.Config, log: Any, folder: Path) -> Any:
    """xdist's loadgroup scheduler, reading each test's group from the workers' files in ``folder``
    (all written before scheduling starts): a grouped test's scope is its group, any other's its module."""
    from xdist.scheduler import LoadScopeScheduling  # type: ignore[import-untyped]

    class GroupScheduling(LoadScopeScheduling):
        groups: dict[str, str] | None = None

        def _split_scope(self, nodeid: str) -> str:
            if self.groups is None:
                self.groups = {}
                for path in sorted(folder.glob(GROUPS_FILE.format("*"))):
                    self.groups.update(json.loads(path.read_text(encoding="utf-8")))
            return self.groups.get(nodeid) or nodeid.split("::", 1)[0]

    return GroupScheduling(config, log)


def timing_overlaps(spans: dict) -> list[tuple[str, str]]:
    """(timing test, other test) pairs whose spans (nodeid -> (start, stop, is_timing), wall clock
    seconds from setup to teardown) overlap: empty when the run lock held."""
    items = sorted(spans.items(), key=lambda kv: kv[1][0])
    bad = []
    for i, (a, (_a0, a1, a_timing)) in enumerate(items):
        for b, (b0, _b1, b_timing) in items[i + 1 :]:
            if b0 >= a1:
                break
            if a_timing or b_timing:
                bad.append((a, b) if a_timing else (b, a))
    return bad
