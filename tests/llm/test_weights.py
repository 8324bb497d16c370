"""Weights resolution and loading (claimcheck.llm.weights) on tiny saved GPT-2 folders: fast, offline."""

import hashlib
import json
import time

import pytest
import torch

from claimcheck.llm.models import random_gpt2, tiny_config
from claimcheck.llm.weights import WeightsError, load_pretrained, resolve_weights, weights_record


def save_tiny(folder, safe=True, **overrides):
    """A tiny GPT-2 (2 layers, width 64) saved by save_pretrained; returns its folder.

    ``safe=False``: the weights as a pickle (``pytorch_model.bin``) only; transformers 5 always
    writes safetensors, so the pickle is written with ``torch.save`` as older releases did.
    """
    model = random_gpt2(tiny_config(**overrides), seed=1)
    model.save_pretrained(folder)
    if not safe:
        (folder / "model.safetensors").unlink()
        torch.save(model.state_dict(), folder / "pytorch_model.bin")
    return folder


@pytest.fixture
def no_hf_cache(tmp_path):
    empty = tmp_path / "hf-cache"
    empty.mkdir()
    return str(empty)


def test_no_weights_decided_fast_with_reason(no_hf_cache):
    start = time.perf_counter()
    r = resolve_weights(None, allow_download=False, cache_dir=no_hf_cache)
    assert time.perf_counter() - start < 2.0 and r.seconds < 2.0
    assert not r.available and r.kind is None
    for part in (
        "no folder or hub id given",
        "'gpt2' is not in the Hugging Face cache",
        "no download allowed",
        "--claims-weights DIR",
        "--claims-allow-download",
    ):
        assert part in r.reason


def test_download_only_when_allowed_and_done_when_deciding(no_hf_cache, tmp_path):
    asked = []

    def download(hub_id, cache_dir):
        asked.append(hub_id)
        snap = tmp_path / "snap"
        save_tiny(snap)
        return snap

    r = resolve_weights(
        "openai-community/gpt2", allow_download=True, cache_dir=no_hf_cache, download=download
    )
    assert (
        r.available
        and r.kind == "hub"
        and r.source == str(tmp_path / "snap")
        and asked == ["openai-community/gpt2"]
    )
    assert r.weights_file == tmp_path / "snap" / "model.safetensors"
    assert weights_record(r)["sha256"]  # a downloaded file is hashed like a local one
    assert not resolve_weights(
        "openai-community/gpt2", allow_download=False, cache_dir=no_hf_cache, download=download
    ).available
    assert asked == ["openai-community/gpt2"]


def test_a_failed_download_is_unavailable_with_one_reason(no_hf_cache):
    def download(hub_id, cache_dir):
        raise WeightsError(
            "cannot reach https://huggingface.co: Name or service not known (one request, 5 s limit)"
        )

    r = resolve_weights(None, allow_download=True, cache_dir=no_hf_cache, download=download)
    assert not r.available and r.kind is None
    for part in (
        "'gpt2' is not in the Hugging Face cache",  # what was tried
        "--claims-allow-download: cannot reach https://huggingface.co",  # what failed
        "save_pretrained(DIR)",
        "--claims-weights DIR",
    ):  # how to provide them
        assert part in r.reason, part
    rec = weights_record(r)
    assert rec["available"] is False and rec["reason"] == r.reason


def test_no_network_fails_fast_without_retries(no_hf_cache, monkeypatch):
    import socket

    with socket.socket() as s:  # a port on this machine that nothing listens on: connection refused
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    start = time.perf_counter()
    r = resolve_weights(None, allow_download=True, cache_dir=no_hf_cache)
    assert time.perf_counter() - start < 5.0
    assert (
        not r.available and f"cannot reach http://127.0.0.1:{port}" in r.reason and "one request" in r.reason
    )
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    r = resolve_weights(None, allow_download=True, cache_dir=no_hf_cache)
    assert not r.available and "HF_HUB_OFFLINE" in r.reason


def test_hub_id_found_in_hf_cache_offline(tmp_path):
    snap = tmp_path / "models--gpt2" / "snapshots" / "abc123"
    snap.mkdir(parents=True)
    (tmp_path / "models--gpt2" / "refs").mkdir()
    (tmp_path / "models--gpt2" / "refs" / "main").write_text("abc123")
    (snap / "config.json").write_text("{}")
    (snap / "model.safetensors").write_bytes(b"x")
    r = resolve_weights("gpt2", allow_download=False, cache_dir=str(tmp_path))
    assert r.kind == "hf-cache" and r.source == str(snap) and r.weights_file == snap / "model.safetensors"


@pytest.mark.parametrize(
    "setup, expected",
    [
        ("missing", "does not exist"),
        ("empty", "is empty"),
        ("config-only", "has no model.safetensors or pytorch_model.bin"),
    ],
)
def test_named_folder_problems_are_reasons_not_fallbacks(tmp_path, setup, expected):
    folder = tmp_path / "weights"
    if setup != "missing":
        folder.mkdir()
    if setup == "config-only":
        (folder / "config.json").write_text("{}")
    r = resolve_weights(str(folder), allow_download=True)
    assert not r.available and expected in r.reason and str(folder) in r.reason
    assert "Hugging Face cache" not in "; ".join(r.tried)  # the user named a folder: nothing else is tried


def test_tiny_folder_loads_with_config_check_and_records_sha256(tmp_path):
    folder = save_tiny(tmp_path / "tiny", vocab_size=50257)
    r = resolve_weights(str(folder), allow_download=False)
    assert r.kind == "folder"
    with pytest.raises(WeightsError, match=r"not GPT-2 small: n_layer=2 \(GPT-2 small: 12\)"):
        load_pretrained(r)
    model, tok, info = load_pretrained(r, shape_check="config")
    digest = hashlib.sha256((folder / "model.safetensors").read_bytes()).hexdigest()
    assert info["weights_sha256"] == digest and info["weights_file"] == "model.safetensors"
    assert model.config.n_layer == 2 and model.dtype == torch.float32 and not model.training
    assert len(tok) == 50257  # no tokenizer in the folder: the offline GPT-2 BPE
    rec = weights_record(r, "config")
    assert rec["sha256"] == digest and rec["kind"] == "folder" and rec["shape_check"] == "config"
    json.dumps(rec)


def test_an_unknown_shape_check_is_a_value_error_not_a_weaker_check(tmp_path):
    """A misspelt ``gpt2-small`` would otherwise skip GPT-2 small's field check and load a tiny GPT-2."""
    r = resolve_weights(str(save_tiny(tmp_path / "tiny", vocab_size=50257)), allow_download=False)
    with pytest.raises(
        ValueError, match=r"unknown shape check 'gpt2small'; choose one of gpt2-small, config"
    ):
        load_pretrained(r, shape_check="gpt2small")


def test_safetensors_preferred_and_pickle_loaded_weights_only(tmp_path):
    folder = save_tiny(tmp_path / "bin", safe=False)
    assert (folder / "pytorch_model.bin").is_file() and not (folder / "model.safetensors").exists()
    model, _, info = load_pretrained(resolve_weights(str(folder), False), shape_check="config")
    assert info["weights_file"] == "pytorch_model.bin"
    ref = random_gpt2(tiny_config(), seed=1)
    assert torch.equal(model.transformer.wte.weight, ref.transformer.wte.weight)


class NotATensor:
    """Unpickling this runs arbitrary code paths; weights_only=True must refuse it."""


def test_pickle_with_objects_is_refused(tmp_path):
    folder = save_tiny(tmp_path / "evil", safe=False)
    sd = torch.load(folder / "pytorch_model.bin", weights_only=True)
    sd["payload"] = NotATensor()
    torch.save(sd, folder / "pytorch_model.bin")
    with pytest.raises(
        WeightsError,
        match=r"pytorch_model.bin: cannot read the weights file: UnpicklingError: Unsupported global.*NotATensor.*weights_only=True",
    ):
        load_pretrained(resolve_weights(str(folder), False), shape_check="config")


def test_tensors_with_wrong_shapes(tmp_path):
    folder = save_tiny(tmp_path / "wrong")
    cfg = json.loads((folder / "config.json").read_text())
    cfg["n_embd"] = 128  # config and tensors disagree
    (folder / "config.json").write_text(json.dumps(cfg))
    with pytest.raises(
        WeightsError,
        match=r"model.safetensors: tensors do not match config.json: wte.weight \[1000, 64\] \(expected \[1000, 128\]\)",
    ):
        load_pretrained(resolve_weights(str(folder), False), shape_check="config")


def test_corrupt_weights_file(tmp_path):
    folder = save_tiny(tmp_path / "corrupt")
    data = (folder / "model.safetensors").read_bytes()
    (folder / "model.safetensors").write_bytes(b"\xff" * 16 + data[16:1000])
    with pytest.raises(WeightsError, match=r"model.safetensors: cannot read the weights file"):
        load_pretrained(resolve_weights(str(folder), False), shape_check="config")


def test_not_a_gpt2(tmp_path):
    from transformers import LlamaConfig, LlamaForCausalLM

    folder = tmp_path / "llama"
    LlamaForCausalLM(
        LlamaConfig(
            hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=2, vocab_size=100
        )
    ).save_pretrained(folder)
    with pytest.raises(WeightsError, match="model_type 'llama', expected 'gpt2'"):
        load_pretrained(resolve_weights(str(folder), False), shape_check="config")


def test_a_pinned_revision_is_looked_up_and_downloaded_at_that_revision(tmp_path, no_hf_cache):
    """``gpt2@REV`` (what CI passes, with its Hugging Face cache keyed by REV): the cached snapshot
    of that revision is found offline, whatever ``main`` points at; missing, it is downloaded at REV."""
    for rev in ("abc123", "def456"):
        snap = tmp_path / "models--gpt2" / "snapshots" / rev
        snap.mkdir(parents=True)
        (snap / "config.json").write_text("{}")
        (snap / "model.safetensors").write_bytes(b"x")
    (tmp_path / "models--gpt2" / "refs").mkdir()
    (tmp_path / "models--gpt2" / "refs" / "main").write_text("def456")
    r = resolve_weights("gpt2@abc123", allow_download=False, cache_dir=str(tmp_path))
    assert r.kind == "hf-cache" and r.source == str(tmp_path / "models--gpt2" / "snapshots" / "abc123")

    asked = []

    def download(hub_id, cache_dir, revision=None):
        asked.append((hub_id, revision))
        raise WeightsError("offline")

    r = resolve_weights("gpt2@0123abc", allow_download=True, cache_dir=no_hf_cache, download=download)
    assert asked == [("gpt2", "0123abc")] and not r.available


def test_an_empty_or_blank_revision_downloads_without_one(no_hf_cache):
    """``gpt2@`` and ``gpt2@ `` pin nothing: the download is asked for no revision; a padded one is stripped."""
    asked = []

    def download(hub_id, cache_dir, revision=None):
        asked.append((hub_id, revision))
        raise WeightsError("offline")

    for spec in ("gpt2@", "gpt2@ ", "gpt2@ abc "):
        resolve_weights(spec, allow_download=True, cache_dir=no_hf_cache, download=download)
    assert asked == [("gpt2", None), ("gpt2", None), ("gpt2", "abc")]
