"""How busy the machine is, by its load average: one rule for the core's failure messages and the
kit's fingerprint (:func:`claimcheck.llm.timing.machine_load` adds a calibration probe to it).

No torch here: the core reads only the operating system's counters.
"""

from __future__ import annotations

import os

BUSY_LOAD_OVER_CORES = 1.0  # the 1-min load average may exceed the usable cores by this before we call it busy
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
