"""A hardware and software fingerprint of the runner, without hostnames or user names.

Stored in ``reports/claims.json`` under ``runner`` so that results from several machines can be
compared. The core records the machine (CPU, cores, RAM, OS, Python); a measurement kit adds its
own fields through the hook ``pytest_claimcheck_runner_fingerprint`` (the LLM kit: torch, transformers,
threads, the CPU's instruction-set level, the GPU, the weights; :mod:`claimcheck.llm.fingerprint`).
Every field is read locally and fast: no network. This module never imports torch.
"""

from __future__ import annotations

import os
import platform
import sys
from importlib import metadata


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        try:
            import subprocess

            return (
                subprocess.run(
                    ["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True, timeout=2
                ).stdout.strip()
                or platform.processor()
            )
        except Exception:
            pass
    return platform.processor() or platform.machine()


def _ram_bytes() -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _usable_cores() -> int | None:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count()


def runner_fingerprint(profile: str | None = None) -> dict:
    """Return the core's runner fingerprint as a JSON-ready dict.

    Keys: cpu, cores (logical CPUs usable by this process), ram_bytes, gpu (None here: a kit that
    sees an accelerator fills it), os, machine, python, torch, transformers and torch_threads (None
    here: the LLM kit fills them), runner_profile. No hostname, no user.
    """
    fp = {
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
    return fp


def version(dist: str) -> str | None:
    """The installed version of distribution ``dist``, or None when it is not installed."""
    return _version(dist)


def describe_long(fp: dict) -> str:
    """The fingerprint in one line for a report's header: CPU (and its instruction-set level), cores,
    RAM, GPU, OS, Python and the libraries."""
    ram = f"{fp['ram_bytes'] / 2**30:.1f} GiB" if fp.get("ram_bytes") else "?"
    gpu = fp["gpu"]["name"] if fp.get("gpu") else "none"
    isa = f" [{fp['cpu_capability']}]" if fp.get("cpu_capability") else ""
    libs = ", ".join(
        f"{name} {fp[key]}"
        for key, name in (("torch", "torch"), ("transformers", "transformers"))
        if fp.get(key)
    )
    threads = f" ({fp['torch_threads']} threads)" if fp.get("torch_threads") else ""
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
        f"{fp.get('torch_threads')} threads)"
    )
