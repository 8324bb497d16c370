"""How busy the machine is, by its load average: one rule for the core's failure messages and the
kit's fingerprint (:func:`claimcheck.llm.timing.machine_load` adds a calibration probe to it).

No torch here: the core reads only the operating system's counters.
"""

from __future__ import annotations

import os

BUSY_LOAD_OVER_CORES = (
    1.0  # the 1-min load average may exceed the usable cores by this before we call it busy
)
# (this process's own torch threads count in the load average, so a quiet run reads ~cores)


def load_average() -> tuple[float | None, int]:
    """Return (1-minute load average or None where the OS has none, usable cores)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = None
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:
        cores = os.cpu_count() or 1
    return load, cores


def busy_by_load(load: float | None, cores: int) -> str:
    """Why the machine counts as busy by its load average (``""`` when it does not, or is unknown)."""
    if load is not None and load > cores + BUSY_LOAD_OVER_CORES:
        return f"1-min load average {load:.1f} on {cores} cores"
    return ""


def runnable_others(samples: int = 5, interval_s: float = 0.05) -> int | None:
    """How many other tasks are runnable right now (Linux ``/proc/loadavg``'s running count, less
    this process; the median of a few samples), or None where the OS does not say. Unlike the
    1-minute load average it does not lag: a run started beside busy processes sees them at once."""
    import statistics
    import time

    counts = []
    for n in range(samples):
        try:
            with open("/proc/loadavg", encoding="ascii") as f:
                running = int(f.read().split()[3].split("/")[0])
        except (OSError, ValueError, IndexError):
            return None
        counts.append(max(0, running - 1))
        if n + 1 < samples:
            time.sleep(interval_s)
    return int(statistics.median(counts))


def choose_threads(setting: str, cores: int, others: int | None, load: float | None) -> tuple[int, str]:
    """The number of torch threads for ``--claims-threads`` (``auto`` or a number) and why.

    ``auto``: the cores that other work leaves free, at least 1. Measured on a 2-core EPYC in AVX2
    mode (docs/timing.md#threads): with 2 busy processes, a GPT-2 small prefill + 16 decode steps took
    13.4 s with 2 threads and 7.5 s with 1 (decode alone 7.7 s against 2.0 s: a thread that waits
    at every barrier for a descheduled sibling); idle, 2 threads were 1.4x faster than 1.
    ``others``: runnable tasks besides this one (:func:`runnable_others`); where unknown, the
    1-minute load average stands in.
    """
    if setting != "auto":
        return int(setting), f"--claims-threads {setting}"
    busy = others if others is not None else (int(load) if load is not None else 0)
    n = max(1, cores - busy)
    where = f"{busy} other runnable task(s)" if others is not None else f"1-min load average {load}"
    return n, f"auto: {cores} cores, {where} at the start: {n} thread(s)"
