"""Where the pretrained GPT-2 weights come from, decided once per test run and fast.

Order: an explicit local folder (``--claims-weights`` / ``CLAIMCHECK_WEIGHTS``); the Hugging Face
cache, looked up offline; a hub download only when allowed (``--claims-allow-download``). The
decision never waits on the network: with nothing local and no permission to download, it answers
in milliseconds, and every weight-bound claim is skipped with :attr:`WeightsResolution.reason`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

WEIGHT_FILES = ("model.safetensors", "pytorch_model.bin")


@dataclass(frozen=True)
class WeightsResolution:
    """Outcome of the weights look-up: ``source`` (a folder or hub id) or ``None`` with a reason."""

    source: str | None
    kind: str | None  # "folder", "hf-cache", "hub" or None
    reason: str
    tried: tuple = field(default_factory=tuple)

    @property
    def available(self) -> bool:
        return self.source is not None


def _folder_ok(path: Path) -> str | None:
    """Return None when ``path`` looks like a saved model folder, else what is wrong."""
    if not path.exists():
        return f"{path} does not exist"
    if not path.is_dir():
        return f"{path} is not a folder"
    if not (path / "config.json").is_file():
        return f"{path} has no config.json"
    if not any((path / f).is_file() for f in WEIGHT_FILES):
        return f"{path} has no {' or '.join(WEIGHT_FILES)}"
    return None


def resolve_weights(folder: str | None, allow_download: bool, hub_id: str = "gpt2") -> WeightsResolution:
    """Decide where GPT-2 weights come from, without touching the network.

    Returns a :class:`WeightsResolution`; ``reason`` names what was tried and how to provide the
    weights when none were found.
    """
    tried = []
    if folder:
        problem = _folder_ok(Path(folder).expanduser())
        if problem is None:
            return WeightsResolution(str(Path(folder).expanduser().resolve()), "folder", f"local folder {folder}", tuple(tried))
        tried.append(f"--claims-weights: {problem}")
    else:
        tried.append("no local folder given (--claims-weights / CLAIMCHECK_WEIGHTS)")
    try:
        from huggingface_hub import try_to_load_from_cache

        cfg = try_to_load_from_cache(hub_id, "config.json")
        weights = [try_to_load_from_cache(hub_id, f) for f in WEIGHT_FILES]
        if isinstance(cfg, str) and any(isinstance(w, str) for w in weights):
            return WeightsResolution(str(Path(cfg).parent), "hf-cache", f"Hugging Face cache ({hub_id})", tuple(tried))
        tried.append(f"'{hub_id}' is not in the Hugging Face cache")
    except ImportError:
        tried.append("huggingface_hub is not installed")
    if allow_download:
        return WeightsResolution(hub_id, "hub", f"download of '{hub_id}' allowed", tuple(tried))
    tried.append("download not allowed (--claims-allow-download)")
    reason = ("needs the pretrained GPT-2 weights, which this runner does not have: " + "; ".join(tried)
              + ". Provide them with --claims-weights DIR (a save_pretrained folder) or allow a download.")
    return WeightsResolution(None, None, reason, tuple(tried))
