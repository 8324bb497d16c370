"""Where a claim runs (``--claims-device``: CPU or a CUDA GPU; CUDA asked for where there is none
is an error, not a fallback)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claimcheck.llm.options import check_device_name

if TYPE_CHECKING:  # types only: torch is imported where a device is chosen
    import torch


class DeviceError(ValueError):
    """A device request this runner cannot satisfy; the message names the request and why."""


def cuda_available() -> bool:
    """Whether torch sees a usable CUDA GPU."""
    import torch

    return torch.cuda.is_available()


def no_gpu_reason() -> str:
    """The skip reason of a GPU claim on this runner: why torch sees no CUDA GPU."""
    import torch

    build = torch.__version__
    why = (
        f"torch {build} is a CPU-only build"
        if torch.version.cuda is None
        else f"torch {build} is built for CUDA {torch.version.cuda} but finds no usable GPU or driver"
    )
    return f"needs a CUDA GPU; this runner has none (torch.cuda.is_available() is False: {why})"


def select_device(requested: str | None = "auto") -> torch.device:
    """Return the ``torch.device`` of ``requested`` (``auto``/None: GPU 0 if any, else CPU). Raises
    :class:`DeviceError` for CUDA unavailable (saying why), an index out of range, or an unknown name."""
    import torch

    name = (requested or "auto").strip()
    try:
        check_device_name(name)
    except ValueError as exc:
        raise DeviceError(str(exc)) from None
    if name == "auto":
        return torch.device("cuda", 0) if cuda_available() else torch.device("cpu")
    if name == "cpu":
        return torch.device("cpu")
    if not cuda_available():
        raise DeviceError(f"device {name!r} requested, but " + no_gpu_reason().split("; ", 1)[1])
    index = int(name.split(":")[1]) if ":" in name else 0
    count = torch.cuda.device_count()
    if index >= count:
        raise DeviceError(
            f"device {name!r} requested, but torch sees {count} CUDA GPU(s) (cuda:0..cuda:{count - 1})"
        )
    return torch.device("cuda", index)


def describe_device(device: torch.device) -> str:
    """One line naming the device: ``'cpu'`` or ``'cuda:0 (NVIDIA H100 80GB HBM3)'``."""
    if not getattr(device, "type", str(device)).startswith("cuda"):
        return "cpu"
    import torch

    index = device.index if getattr(device, "index", None) is not None else 0
    return f"cuda:{index} ({torch.cuda.get_device_name(index)})"
