"""The weight-bound claims end to end, on a tiny GPT-2 that the test saves with save_pretrained.

The real claim modules (claims/ch15) and the real registry are copied into a pytester project and
run against the saved folder. The tiny model has GPT-2's vocabulary (so the real tokenizer and
the chapter's token ids apply) but 2 layers of width 64, so it is accepted with
``--claims-weights-shapes config``: the default, ``gpt2-small``, rejects it (tested below), because
the claims' numbers are GPT-2 small's. A random model fails C30's and C37's numbers: the tests
check that the failure is reported with the measured values, not that it passes.
"""

import hashlib
import shutil
from pathlib import Path

import pytest

from claimcheck.llm.models import sample_text
from tests.claimkit import claims_project

REPO = Path(__file__).resolve().parents[2]
CH15 = REPO / "claims" / "ch15"


@pytest.fixture(scope="module")
def tiny_folder(tmp_path_factory):
    """A tiny GPT-2 (2 layers, width 64, GPT-2's 50,257-token vocabulary) and its tokenizer, saved."""
    from claimcheck.llm.models import gpt2_tokenizer, random_gpt2, tiny_config

    folder = tmp_path_factory.mktemp("weights") / "tiny-gpt2"
    config = tiny_config(vocab_size=50257, bos_token_id=50256, eos_token_id=50256)
    random_gpt2(config, seed=7).save_pretrained(folder)
    gpt2_tokenizer().save_pretrained(folder)
    return folder


def project(pytester, monkeypatch, *modules):
    """The chapter's registry and ``modules``; the ini puts the rootdir (and reports/) here, whatever
    paths the options name."""
    tests = [CH15 / name for name in modules]
    conftest = 'pytest_plugins = ["fixtures.models"]\n'
    return claims_project(
        pytester, CH15 / "claims.toml", tests, conftest=conftest, ini="[pytest]\n", monkeypatch=monkeypatch
    )


def report(project):
    report = project.report()
    return report.doc, report.claims


def test_weight_bound_claims_give_verdicts_with_measured_values(pytester, monkeypatch, tiny_folder):
    modules = ("test_language.py", "test_numpy_gpt2.py", "test_prefix_reuse.py", "test_speculative.py")
    p = project(pytester, monkeypatch, *modules)
    corpus = pytester.path / "corpus.txt"
    corpus.write_text(sample_text(), encoding="utf-8")
    p.run(
        "--claims-weights",
        str(tiny_folder),
        "--claims-weights-shapes",
        "config",
        "--claims-corpus",
        str(corpus),
        "--claims-profile",
        "quick",
    )
    doc, rows = report(p)
    digest = hashlib.sha256((tiny_folder / "model.safetensors").read_bytes()).hexdigest()
    w = doc["runner"]["weights"]
    assert w["sha256"] == digest and w["kind"] == "folder" and w["shape_check"] == "config" and w["available"]

    c30 = rows["C30.model"]  # a random model: " much" gets ~1/50257, nowhere near 99.16%
    assert c30["outcome"] == "failed" and isinstance(c30["measured"], float) and c30["measured"] < 1
    assert "C30.model does not hold" in c30["reason"] and "chapter:   99.16 percent" in c30["reason"]
    assert c30["details"]["weights"]["weights_sha256"] == digest
    assert set(c30["details"]["surprisal_bits"]) == {" much", " very", ",", "much", " Much"}
    assert c30["details"]["mismatches"] and "entropy_bits" in c30["details"]

    c37 = rows["C37"]
    assert c37["outcome"] == "failed" and isinstance(c37["measured"], float)
    assert (
        c37["details"]["prompts_reconstructed"] is True
        and "Germany" in c37["details"]["prompts"]["with_example"]
    )

    c31 = rows["C31"]
    assert c31["outcome"] in ("passed", "failed") and isinstance(c31["measured"], float)
    assert c31["details"]["corpus_sha256"] == hashlib.sha256(corpus.read_bytes()).hexdigest()
    assert c31["details"]["window_tokens"] == 128  # the tiny model's context, not GPT-2's 1024

    for cid in ("C17", "C28", "C32"):  # hold for any weights: pass on the saved model, and say which
        assert rows[cid]["outcome"] == "passed", (cid, rows[cid]["reason"])
        assert rows[cid]["details"]["weights"]["weights_sha256"] == digest
        assert rows[cid]["measured"] is not None
    assert rows["C17"]["details"]["loaded"].startswith("numpy read model.safetensors")
    assert rows["C17"]["details"]["numpy_vs_torch_max_abs"] <= 1e-4
    assert digest in p.report().page()


def test_no_weights_skips_fast_with_the_reason(pytester, monkeypatch):
    p = project(pytester, monkeypatch, "test_language.py", "test_tokenizer.py", "test_text.py")
    # a hub id that is in no cache: the hub-id path, without depending on this machine's HF cache
    p.run("-k", "C29 or C30 or C31 or C37", "--claims-weights", "no-such-org/no-such-gpt2")
    doc, rows = report(p)
    assert doc["runner"]["weights"]["resolve_s"] < 2.0
    for cid in ("C30.model", "C31", "C37"):
        assert rows[cid]["outcome"] == "skipped"
        assert "'no-such-org/no-such-gpt2' is not in the Hugging Face cache" in rows[cid]["reason"]
        assert "--claims-allow-download" in rows[cid]["reason"]
    assert rows["C29"]["outcome"] == "passed" and rows["C30.text"]["outcome"] == "passed"


@pytest.mark.parametrize(
    "case, outcome, message",
    [
        ("missing", "skipped", "does not exist"),
        ("empty", "skipped", "is empty"),
        ("not-gpt2-small", "error", "not GPT-2 small: n_layer=2 (GPT-2 small: 12)"),
        ("wrong-shapes", "error", "tensors do not match GPT-2 small"),
        ("corrupt", "error", "cannot read the weights file"),
        ("bad-config", "error", "config.json: not valid JSON ("),
    ],
)
def test_broken_weights_are_clear_and_others_still_reported(
    pytester, monkeypatch, tiny_folder, tmp_path, case, outcome, message
):
    folder = tmp_path / "weights"
    if case != "missing":
        folder.mkdir()
    if case in ("not-gpt2-small", "wrong-shapes", "corrupt", "bad-config"):
        for f in tiny_folder.iterdir():
            shutil.copy(f, folder / f.name)
    if case == "bad-config":  # issue 18: said twice ("During handling...") and counted as available
        text = (folder / "config.json").read_text(encoding="utf-8")
        (folder / "config.json").write_text(text[: len(text) // 2], encoding="utf-8")
    if case == "wrong-shapes":  # GPT-2 small's config.json over the tiny model's tensors
        from transformers import GPT2Config

        GPT2Config().save_pretrained(folder)
    if case == "corrupt":
        data = (folder / "model.safetensors").read_bytes()
        (folder / "model.safetensors").write_bytes(data[:8] + b"{not json" + data[17:4096])
    p = project(pytester, monkeypatch, "test_language.py", "test_tokenizer.py", "test_text.py")
    args = ["-k", "C29 or C30 or C37", "--claims-weights", str(folder)]
    if case == "corrupt":
        args += ["--claims-weights-shapes", "config"]
    result = p.run(*args)
    doc, rows = report(p)
    if outcome == "error":  # one message per test, never a chained second one
        assert "During handling of the above exception" not in result.stdout.str()
    if case == "bad-config":
        assert (
            doc["runner"]["weights"]["available"] is False and message in doc["runner"]["weights"]["reason"]
        )
    for cid in ("C30.model", "C37"):
        assert rows[cid]["outcome"] == outcome and message in rows[cid]["reason"], rows[cid]["reason"]
        assert str(folder) in rows[cid]["reason"]
    assert rows["C29"]["outcome"] == "passed" and rows["C30.text"]["outcome"] == "passed"
    from claimcheck.registry import load_registry

    assert len(rows) == len(load_registry(CH15 / "claims.toml").all_ids)  # every claim is still reported


def test_a_corpus_that_is_not_utf8_errors_c31_with_its_line(pytester, monkeypatch, tiny_folder):
    p = project(pytester, monkeypatch, "test_language.py", "test_tokenizer.py")
    corpus = pytester.path / "corpus.txt"
    corpus.write_bytes(b"first line\n" + "第二行".encode("gb18030"))
    p.run(
        "-k",
        "C31 or C29",
        "--claims-weights",
        str(tiny_folder),
        "--claims-weights-shapes",
        "config",
        f"--claims-corpus={corpus}",
    )
    _, rows = report(p)
    assert rows["C31"]["outcome"] == "error"
    assert rows["C31"]["reason"].startswith(
        f"ValueError: --claims-corpus {corpus}: not UTF-8 text (line 2, byte 11"
    )
    assert rows["C29"]["outcome"] == "passed"
