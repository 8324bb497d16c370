"""An independent GPT-2 forward pass in numpy with an explicit KV cache (C17's oracle), picoGPT-sized
(Jay Mody's ``gpt2.py``), sharing no code with torch or transformers. Shapes: ``n_seq`` tokens fed
now, ``n_past`` cached, width ``n_embd``; the cache: one ``(k, v)`` per layer, ``[n_past, n_embd]``."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

GELU_C = math.sqrt(2.0 / math.pi)  # a Python float, so float32 arrays stay float32 (NEP 50)

#: an array of the forward pass (float32 throughout; token ids int)
Array = npt.NDArray[Any]
#: one layer's cache: ``(k, v)``, each ``[n_past, n_embd]``
KV = tuple[Array, Array]
#: a weight and its bias (``{"w", "b"}``; a layer norm's ``{"g", "b"}``)
Weights = Mapping[str, Array]


def gelu(x: Array) -> Array:
    """GPT-2's tanh approximation of GELU (Hendrycks & Gimpel 2016), elementwise."""
    return 0.5 * x * (1.0 + np.tanh(GELU_C * (x + 0.044715 * x**3)))


def softmax(x: Array) -> Array:
    """Softmax over the last axis, the row maximum subtracted first (stable)."""
    e = np.exp(x - np.max(x, axis=-1, keepdims=True))
    return e / np.sum(e, axis=-1, keepdims=True)


def layer_norm(x: Array, g: Array, b: Array, eps: float = 1e-5) -> Array:
    """Layer normalisation over the last axis, then scale ``g`` and shift ``b`` (both ``[n_embd]``)."""
    mean = np.mean(x, axis=-1, keepdims=True)  # [n_seq, n_embd] -> [n_seq, 1]
    variance = np.var(x, axis=-1, keepdims=True)  # [n_seq, n_embd] -> [n_seq, 1]
    return g * (x - mean) / np.sqrt(variance + eps) + b


def linear(x: Array, w: Array, b: Array) -> Array:
    """``x @ w + b`` (GPT-2's Conv1D stores ``w`` as ``[n_in, n_out]``)."""
    return x @ w + b  # [n_seq, n_in] -> [n_seq, n_out]


def ffn(x: Array, c_fc: Weights, c_proj: Weights) -> Array:
    """The MLP: expand to 4 n_embd, GELU, project back."""
    a = gelu(linear(x, **c_fc))  # [n_seq, n_embd] -> [n_seq, 4*n_embd]
    return linear(a, **c_proj)  # [n_seq, 4*n_embd] -> [n_seq, n_embd]


def attention(q: Array, k: Array, v: Array, mask: Array) -> Array:
    """Scaled dot-product attention of one head; ``mask`` is 0 where allowed, -1e10 where not."""
    scores = q @ k.T / math.sqrt(q.shape[-1]) + mask  # [n_seq, d], [n_all, d] -> [n_seq, n_all]
    return softmax(scores) @ v  # [n_seq, n_all] @ [n_all, d] -> [n_seq, d]


def causal_mask(n_seq: int, n_all: int, dtype: npt.DTypeLike = np.float32) -> Array:
    """``[n_seq, n_all]`` mask: new token i (at absolute position n_all - n_seq + i) sees positions <= its own."""
    allowed = np.tri(n_seq, n_all, k=n_all - n_seq, dtype=dtype)  # [n_seq, n_all], 1 = may attend
    return (1.0 - allowed) * np.asarray(-1e10, dtype=dtype)


def mha(x: Array, c_attn: Weights, c_proj: Weights, n_head: int, kv: KV | None = None) -> tuple[Array, KV]:
    """Causal multi-head self-attention over ``x`` after ``kv`` (or None); return ``(out, kv)``."""
    qkv = linear(x, **c_attn)  # [n_seq, n_embd] -> [n_seq, 3*n_embd]
    q, k, v = np.split(qkv, 3, axis=-1)  # -> 3 x [n_seq, n_embd]
    if kv is not None:
        k = np.concatenate([kv[0], k], axis=0)  # [n_past, n_embd] + [n_seq, n_embd] -> [n_all, n_embd]
        v = np.concatenate([kv[1], v], axis=0)  # [n_past, n_embd] + [n_seq, n_embd] -> [n_all, n_embd]
    mask = causal_mask(q.shape[0], k.shape[0], x.dtype)  # [n_seq, n_all]
    heads = zip(*(np.split(t, n_head, axis=-1) for t in (q, k, v)))  # n_head x ([n_seq,d], [n_all,d] x 2)
    out = np.hstack([attention(qh, kh, vh, mask) for qh, kh, vh in heads])  # -> [n_seq, n_embd]
    return linear(out, **c_proj), (k, v)  # [n_seq, n_embd] -> [n_seq, n_embd]


def block(x: Array, layer: Mapping[str, Any], n_head: int, kv: KV | None = None) -> tuple[Array, KV]:
    """One pre-norm transformer block of ``layer`` (``{"ln_1", "attn", "ln_2", "mlp"}``); return
    ``(x, kv)`` with the layer's updated cache."""
    a, kv = mha(layer_norm(x, **layer["ln_1"]), **layer["attn"], n_head=n_head, kv=kv)  # [n_seq, n_embd]
    x = x + a
    return x + ffn(layer_norm(x, **layer["ln_2"]), **layer["mlp"]), kv  # [n_seq, n_embd] -> [n_seq, n_embd]


def gpt2(
    inputs: Sequence[int] | Array,
    wte: Array,
    wpe: Array,
    blocks: Sequence[Mapping[str, Any]],
    ln_f: Weights,
    n_head: int,
    kvcache: Sequence[KV] | None = None,
) -> tuple[Array, list[KV]]:
    """Return ``(logits [n_seq, n_vocab], kvcache extended)`` of token ids ``inputs`` after
    ``kvcache`` (or None). Raises ``ValueError`` for positions beyond the rows of ``wpe``."""
    n_past = 0 if kvcache is None else kvcache[0][0].shape[0]
    inputs = np.asarray(inputs)
    if n_past + len(inputs) > wpe.shape[0]:
        raise ValueError(f"{n_past + len(inputs)} positions exceed the model's {wpe.shape[0]}")
    x = wte[inputs] + wpe[n_past : n_past + len(inputs)]  # [n_seq] -> [n_seq, n_embd]
    new_cache = []
    for i, layer in enumerate(blocks):
        x, kv = block(x, layer, n_head, None if kvcache is None else kvcache[i])
        new_cache.append(kv)
    return layer_norm(x, ln_f["g"], ln_f["b"]) @ wte.T, new_cache  # [n_seq, n_embd] -> [n_seq, n_vocab]


def params_from_state_dict(state_dict: Mapping[str, Any], n_layer: int | None = None) -> dict[str, Any]:
    """picoGPT-style nested float32 parameters (``{"wte", "wpe", "blocks": [{"ln_1": {"g", "b"},
    "attn": {"c_attn": {"w", "b"}, "c_proj"}, "ln_2", "mlp"}, ...], "ln_f"}``) from GPT-2 checkpoint
    keys (``transformer.h.0...`` or ``h.0...``). Raises ``KeyError`` naming a missing weight."""
    sd = {k.removeprefix("transformer."): v for k, v in state_dict.items()}

    def get(key: str) -> Array:  # a float32 numpy array, a torch tensor copied off its device first
        if key not in sd:
            raise KeyError(f"GPT-2 checkpoint has no {key!r} (has e.g. {sorted(sd)[:4]})")
        t = sd[key]
        return np.asarray(t.detach().float().cpu().numpy() if hasattr(t, "detach") else t, dtype=np.float32)

    def wb(prefix: str, w: str = "w") -> dict[str, Array]:
        return {w: get(prefix + ".weight"), "b": get(prefix + ".bias")}

    if n_layer is None:
        n_layer = 1 + max(int(k.split(".")[1]) for k in sd if k.startswith("h."))
    blocks = [
        {
            "ln_1": wb(f"h.{i}.ln_1", "g"),
            "ln_2": wb(f"h.{i}.ln_2", "g"),
            "attn": {"c_attn": wb(f"h.{i}.attn.c_attn"), "c_proj": wb(f"h.{i}.attn.c_proj")},
            "mlp": {"c_fc": wb(f"h.{i}.mlp.c_fc"), "c_proj": wb(f"h.{i}.mlp.c_proj")},
        }
        for i in range(n_layer)
    ]
    return {"wte": get("wte.weight"), "wpe": get("wpe.weight"), "blocks": blocks, "ln_f": wb("ln_f", "g")}


def load_folder(folder: str | Path) -> tuple[dict[str, Any], int]:
    """Read ``(params, n_head)`` from a ``save_pretrained`` folder, not through transformers:
    ``model.safetensors`` or else ``pytorch_model.bin`` (``weights_only``), and ``config.json``.
    Raises ``FileNotFoundError`` for no config.json or no weights file."""
    folder = Path(folder)
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    if (folder / "model.safetensors").is_file():
        from safetensors.numpy import load_file

        sd = load_file(str(folder / "model.safetensors"))
    elif (folder / "pytorch_model.bin").is_file():
        import torch

        sd = torch.load(str(folder / "pytorch_model.bin"), map_location="cpu", weights_only=True)
    else:
        raise FileNotFoundError(f"{folder}: no model.safetensors or pytorch_model.bin")
    return params_from_state_dict(sd, config.get("n_layer")), int(config["n_head"])


def cached_vs_full(
    params: Mapping[str, Any], n_head: int, ids: Iterable[int], prefill: int = 1
) -> tuple[Array, Array, Array]:
    """Run ``ids`` in one pass and cached (``prefill`` tokens, then one per call); return
    ``(full_logits_last, cached_logits_last, full_logits)``: ``[n_vocab]`` x 2, ``[n_seq, n_vocab]``."""
    ids = [int(i) for i in ids]
    full, _ = gpt2(ids, **params, n_head=n_head)  # [n_seq, n_vocab]
    logits, cache = gpt2(ids[:prefill], **params, n_head=n_head)
    for token in ids[prefill:]:
        logits, cache = gpt2([token], **params, n_head=n_head, kvcache=cache)  # [1, n_vocab]
    return full[-1], logits[-1], full
