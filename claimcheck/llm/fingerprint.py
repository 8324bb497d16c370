"""The LLM kit's part of the runner fingerprint (the core's is :mod:`claimcheck.fingerprint`)."""

from __future__ import annotations

import contextlib
import re
import subprocess

from claimcheck import fingerprint as core
from claimcheck.fingerprint import describe  # noqa: F401  (one renderer, re-exported)


def kit_fields() -> dict[str, object]:
    """Return ``torch``, ``transformers`` (versions or None), ``torch_threads``, ``cpu_capability`` (the
    instruction set torch's CPU kernels use, e.g. ``"AVX512"``, honouring ``ATEN_CPU_CAPABILITY``) and
    ``gpu`` (:func:`gpu_info`)."""
    fields: dict[str, object] = {"torch": core.version("torch"), "transformers": core.version("transformers")}
    try:
        import torch
    except ImportError:
        return fields | {"torch_threads": None, "cpu_capability": None, "gpu": None}
    cpu = torch.backends.cpu.get_cpu_capability()
    return fields | {"torch_threads": torch.get_num_threads(), "cpu_capability": cpu, "gpu": gpu_info()}


def gpu_info() -> dict[str, object] | None:
    """Return GPU 0's ``name``, ``memory_bytes``, ``capability`` (e.g. ``"9.0"``), the ``count`` of GPUs,
    ``cuda`` and ``driver`` versions; None where torch sees no GPU (or is not installed)."""
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    props = torch.cuda.get_device_properties(0)
    return {
        "name": props.name,
        "memory_bytes": int(props.total_memory),
        "capability": f"{props.major}.{props.minor}",
        "count": torch.cuda.device_count(),
        "cuda": torch.version.cuda,
        "driver": nvidia_driver_version(),
    }


def nvidia_driver_version(proc_file: str = "/proc/driver/nvidia/version") -> str | None:
    """Return the NVIDIA driver version (e.g. ``"550.54.15"``): from ``nvidia-smi`` (5 s limit), else
    from the kernel module's ``proc_file`` (Linux), else None."""
    with contextlib.suppress(OSError, subprocess.SubprocessError):
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=5,
        ).stdout.strip()
        if out:
            return out.splitlines()[0].strip()
    try:
        with open(proc_file, encoding="utf-8") as f:
            m = re.search(r"Kernel Module(?: for \S+)?\s+(\d+(?:\.\d+)+)", f.read())
        return m.group(1) if m else None
    except OSError:
        return None
