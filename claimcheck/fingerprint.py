"""The runner (``claims.json`` ``runner``): a hardware and software fingerprint without host or user
names, read locally (a kit adds fields: :mod:`claimcheck.llm.fingerprint`), and how busy the machine is."""

from __future__ import annotations

import contextlib
import os
import platform
import statistics
import subprocess
import sys
import time
from importlib import metadata

from claimcheck.display import counted

#: how far the 1-min load average may exceed the usable cores (a quiet run reads ~cores) before "busy"
BUSY_LOAD_OVER_CORES = 1.0


def _cpu_model() -> str:
    with contextlib.suppress(OSError), open("/proc/cpuinfo", encoding="utf-8") as f:
        for line in f:
            if line.lower().startswith(("model name", "hardware", "cpu model")):
                return line.split(":", 1)[1].strip()
    if sys.platform == "darwin":
        with contextlib.suppress(Exception):
            brand = ["sysctl", "-n", "machdep.cpu.brand_string"]
            out = subprocess.run(brand, capture_output=True, text=True, timeout=2).stdout.strip()
            return out or platform.processor()
    return platform.processor() or platform.machine()


def _ram_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _usable_cores() -> int | None:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def runner_fingerprint(profile: str | None = None) -> dict:
    """The core's runner fingerprint, a JSON-ready dict without host or user names: cpu, cores (usable
    by this process), ram_bytes, os, machine, python, runner_profile; gpu, torch, transformers and
    torch_threads are None (the LLM kit fills them)."""
    return {
        "cpu": _cpu_model(),
        "cores": _usable_cores(),
        "ram_bytes": _ram_bytes(),
        "gpu": None,
        "os": platform.platform(terse=True),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "torch": None,
        "transformers": None,
        "torch_threads": None,
        "runner_profile": profile,
    }


def version(dist: str) -> str | None:
    """The installed version of distribution ``dist``, or None when it is not installed."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def describe_long(fp: dict) -> str:
    """The fingerprint in one line for a report's header."""
    ram = f"{fp['ram_bytes'] / 2**30:.1f} GiB" if fp.get("ram_bytes") else "?"
    gpu = fp["gpu"]["name"] if fp.get("gpu") else "none"
    isa = f" [{fp['cpu_capability']}]" if fp.get("cpu_capability") else ""
    libs = ", ".join(f"{key} {fp[key]}" for key in ("torch", "transformers") if fp.get(key))
    threads = f" ({counted(fp['torch_threads'], 'thread')})" if fp.get("torch_threads") else ""
    return (
        f"{fp.get('cpu')}{isa}, {fp.get('cores')} cores, {ram} RAM, GPU {gpu}, {fp.get('os')}, "
        f"Python {fp.get('python')}" + (f", {libs}" if libs else "") + threads
    )


def describe(fp: dict) -> str:
    """One line for failure messages: ``'Intel Xeon ... (2 cores, 24 GiB, no GPU, torch 2.13.0)'``."""
    ram = f"{fp['ram_bytes'] / 2**30:.0f} GiB" if fp.get("ram_bytes") else "? GiB"
    gpu = fp["gpu"]["name"] if fp.get("gpu") else "no GPU"
    isa = f", {fp['cpu_capability']}" if fp.get("cpu_capability") else ""
    return (
        f"{fp.get('cpu')} ({fp.get('cores')} cores{isa}, {ram}, {gpu}, torch {fp.get('torch')}, "
        f"{counted(fp.get('torch_threads'), 'thread')})"
    )


def load_average() -> tuple[float | None, int]:
    """(1-minute load average, or None where the OS has none; usable cores)."""
    try:
        load = os.getloadavg()[0]
    except (AttributeError, OSError):
        load = None
    return load, _usable_cores() or 1


def busy_by_load(load: float | None, cores: int) -> str:
    """Why the machine counts as busy by its load average (``""`` when it does not, or is unknown)."""
    if load is not None and load > cores + BUSY_LOAD_OVER_CORES:
        return f"1-min load average {load:.1f} on {cores} cores"
    return ""


def runnable_others(samples: int = 5, interval_s: float = 0.05) -> int | None:
    """How many other tasks are runnable now (the median of ``/proc/loadavg``'s running count less this
    process, sampled), or None where the OS does not say. Unlike the load average it does not lag."""
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
    """(torch threads for ``--claims-threads``, why). ``auto``: the cores other work leaves free
    (``others``, else the load average), at least 1: on a 2-core EPYC with 2 busy processes a GPT-2
    small prefill + 16 decode steps took 13.4 s with 2 threads, 7.5 s with 1; idle, 2 were 1.4x
    faster (docs/timing.md#threads)."""
    if setting != "auto":
        return int(setting), f"--claims-threads {setting}"
    busy = others if others is not None else (int(load) if load is not None else 0)
    n = max(1, cores - busy)
    where = f"{busy} other runnable task(s)" if others is not None else f"1-min load average {load}"
    return n, f"auto: {cores} cores, {where} at the start: {n} thread(s)"
