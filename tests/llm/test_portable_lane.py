"""The portable-LM lane (--claims-lm), proved on a tiny random Llama saved with save_pretrained.

The real lane module (claims/ch15/test_portable_lm.py) and registry run in a pytester project.
The rows must name the model, show expectations computed for it (never GPT-2's printed values),
go to their own report, and stay out of the default run. A random model fails the next-token
form of C30: the test checks the failure is reported on that model.
"""

import json
import shutil
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CH15 = REPO / "claims" / "ch15"
ENV = ("CLAIMCHECK_PROFILE", "CLAIMCHECK_WEIGHTS", "CLAIMCHECK_LM", "CLAIMCHECK_REPORT_DIR")


@pytest.fixture(scope="module")
def tiny_llama(tmp_path_factory):
    """A tiny Llama (2 layers, 4 query / 2 KV heads of dim 8) with GPT-2's tokenizer, saved."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    from claimcheck.llm.models import gpt2_tokenizer

    folder = tmp_path_factory.mktemp("lm") / "tiny-llama"
    config = LlamaConfig(
        hidden_size=32,
        intermediate_size=64,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        vocab_size=50257,
        max_position_embeddings=256,
        bos_token_id=50256,
        eos_token_id=50256,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    gpt2_tokenizer().save_pretrained(folder)
    return folder


@pytest.fixture
def lane_project(pytester, monkeypatch):
    for var in ENV:
        monkeypatch.delenv(var, raising=False)
    claims = pytester.mkdir("claims")
    for name in ("claims.toml", "test_portable_lm.py", "test_tokenizer.py"):
        shutil.copy(CH15 / name, claims / name)
    pytester.makeconftest('pytest_plugins = ["fixtures.models"]\n')
    pytester.makeini("[pytest]\n")
    return pytester


def test_lane_rows_name_the_model_and_its_own_expectations(lane_project, tiny_llama):
    result = lane_project.runpytest(
        "claims", "-p", "no:cacheprovider", "--claims-lm", str(tiny_llama), "--claims-profile", "quick"
    )
    path = lane_project.path / "reports" / "portable-tiny-llama" / "claims.json"
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert not (lane_project.path / "reports" / "claims.json").exists()  # the main report is left alone
    rows = {c["id"]: c for c in doc["claims"]}
    assert doc["runner"]["portable_lm"]["tiny-llama"]["model_type"] == "llama"
    lane_ids = ("C06", "C14", "C18", "C28", "C30.model")
    for cid in lane_ids:
        assert rows[cid]["details"]["model"]["name"] == "tiny-llama"
    assert (
        rows["C18"]["outcome"] == "passed" and rows["C18"]["stated"] == "128"
    )  # 2 x 2 layers x 2 heads x 8 x 2 B
    shown = {k: rows["C18"][k] for k in ("stated", "measured", "measured_display", "tolerance", "reason")}
    assert rows["C18"]["measured"] == 128 and "36864" not in json.dumps(shown)  # GPT-2's number is not used
    assert rows["C06"]["outcome"] == "passed" and rows["C28"]["outcome"] == "passed"
    assert rows["C14"]["outcome"] in ("passed", "near-tie")
    c30 = rows["C30.model"]  # random weights: " much" is not the top-1 token
    assert c30["outcome"] == "failed" and "on tiny-llama" in c30["reason"] and "99.16" not in c30["reason"]
    assert c30["stated"] == "1" and "top1_above_90_percent" in c30["details"]
    assert rows["C29"]["outcome"] == "not-run"  # the GPT-2 claims do not run in the lane
    result.stdout.fnmatch_lines(["*deselected*"])
    html = (path.parent / "claims.html").read_text(encoding="utf-8")
    c18 = html[html.index('id="claim-ch15-C18"') :]
    c18 = c18[: c18.index("</tbody>")]
    assert "tiny-llama" in c18 and "128 B/token (for this model)" in c18
    assert "portable-LM lane on tiny-llama" in html


def test_default_run_leaves_the_lane_out(lane_project):
    result = lane_project.runpytest("claims", "-p", "no:cacheprovider", "-k", "C29 or C06")
    doc = json.loads((lane_project.path / "reports" / "claims.json").read_text(encoding="utf-8"))
    rows = {c["id"]: c for c in doc["claims"]}
    assert rows["C29"]["outcome"] == "passed" and "portable_lm" not in doc["runner"]
    assert rows["C06"]["outcome"] == "not-run"  # its only test here is the lane's, which is not run
    assert not any(c["tests"] and "portable" in c["tests"][0] for c in doc["claims"])
    result.assert_outcomes(passed=1)


def test_lane_refuses_gpt2_numbers_on_another_model(pytester, monkeypatch):
    monkeypatch.delenv("CLAIMCHECK_LM", raising=False)
    claims = pytester.mkdir("claims")
    (claims / "claims.toml").write_text(
        """
[[claims]]
id = "C01"
title = "GPT-2's number"
stated = "36864"
unit = "B/token"
locator = "loc"
tolerance = "exact"
needs = ["arch"]

[[claims]]
id = "C02"
title = "a property of any causal LM"
stated = ""
unit = ""
locator = "loc"
tolerance = "<=1e-5"
needs = ["arch"]
portable = true
""",
        encoding="utf-8",
    )
    (claims / "test_lane.py").write_text(
        """
import pytest

@pytest.mark.claim("C01")
def test_gpt2_number(claim):
    claim.on_model("other-lm")
    claim.check(36864)

@pytest.mark.claim("C02")
def test_property(claim):
    claim.on_model("other-lm")
    claim.check(0.0)
""",
        encoding="utf-8",
    )
    result = pytester.runpytest("claims", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*C01 is about GPT-2's own numbers (no 'portable = true'*check_form*"])
