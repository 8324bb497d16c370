"""A hardware and software fingerprint of the runner, without hostnames or user names.

Stored in ``reports/claims.json`` under ``runner`` so that results from several machines can be
compared. Every field is read locally and fast: no network; one subprocess (``nvidia-smi``, for
the driver version) and only where torch sees a CUDA GPU.
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

            return subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True,
                                  text=True, timeout=2).stdout.strip() or platform.processor()
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


def gpu_info() -> dict | None:
    """Return what the runner fingerprint records of the CUDA GPU, or None where torch sees none.

    Keys: ``name`` and ``memory_bytes`` (total, bytes) and ``capability`` (e.g. ``"9.0"``) of GPU 0,
    ``count`` (GPUs torch sees), ``cuda`` (the CUDA version torch was built with,
    ``torch.version.cuda``) and ``driver`` (the NVIDIA driver version, or None when neither
    ``nvidia-smi`` nor ``/proc/driver/nvidia/version`` tells it).
    """
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(0)
    return {"name": props.name, "memory_bytes": int(props.total_memory),
            "capability": f"{props.major}.{props.minor}", "count": torch.cuda.device_count(),
            "cuda": torch.version.cuda, "driver": nvidia_driver_version()}


def nvidia_driver_version(proc_file: str = "/proc/driver/nvidia/version") -> str | None:
    """Return the NVIDIA driver version (e.g. ``"550.54.15"``): from ``nvidia-smi`` (5 s limit), else
    from the kernel module's ``proc_file`` (Linux), else None."""
    import re
    import subprocess

    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=5).stdout.strip()
        if out:
            return out.splitlines()[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    try:
        with open(proc_file, encoding="utf-8") as f:
            m = re.search(r"Kernel Module(?: for \S+)?\s+(\d+(?:\.\d+)+)", f.read())
        return m.group(1) if m else None
    except OSError:
        return None


def runner_fingerprint(profile: str | None = None) -> dict:
    """Return the runner fingerprint as a JSON-ready dict.

    Keys: cpu, cores (logical CPUs usable by this process), ram_bytes, gpu (dict or None), os,
    machine, python, torch, transformers, torch_threads, runner_profile. No hostname, no user.
    """
    fp = {
        "cpu": _cpu_model(),
        "cores": _usable_cores(),
        "ram_bytes": _ram_bytes(),
        "gpu": None,
        "os": platform.platform(terse=True),
        "machine": platform.machine(),
        "python": platform.python_version(),
        "torch": _version("torch"),
        "transformers": _version("transformers"),
        "torch_threads": None,
        "runner_profile": profile,
    }
    if "torch" in sys.modules or fp["torch"]:
        try:
            import torch

            fp["torch_threads"] = torch.get_num_threads()
            fp["gpu"] = gpu_info()
        except ImportError:
            pass
    return fp


def describe(fp: dict) -> str:
    """One line for failure messages: ``'Intel Xeon ... (2 cores, 24 GiB, no GPU, torch 2.13.0)'``."""
    ram = f"{fp['ram_bytes'] / 2**30:.0f} GiB" if fp.get("ram_bytes") else "? GiB"
    gpu = fp["gpu"]["name"] if fp.get("gpu") else "no GPU"
    return f"{fp.get('cpu')} ({fp.get('cores')} cores, {ram}, {gpu}, torch {fp.get('torch')}, {fp.get('torch_threads')} threads)"
