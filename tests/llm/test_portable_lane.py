"""The portable-LM lane (--claims-lm), proved on a tiny random Llama saved with save_pretrained.

The real lane module (claims/ch15/test_portable_lm.py) and registry run in a pytester project.
The rows must name the model, show expectations computed for it (never GPT-2's printed values),
go to their own report, and stay out of the default run. A random model fails the next-token
form of C30: the test checks the failure is reported on that model.
"""

import json
from pathlib import Path

import pytest

from tests.claimkit import claim_toml, claims_project

REPO = Path(__file__).resolve().parents[2]
CH15 = REPO / "claims" / "ch15"


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
    tests = [CH15 / "test_portable_lm.py", CH15 / "test_tokenizer.py"]
    conftest = 'pytest_plugins = ["fixtures.models"]\n'
    return claims_project(
        pytester, CH15 / "claims.toml", tests, conftest=conftest, ini="[pytest]\n", monkeypatch=monkeypatch
    )


def test_lane_rows_name_the_model_and_its_own_expectations(lane_project, tiny_llama):
    result = lane_project.run("--claims-lm", str(tiny_llama), "--claims-profile", "quick")
    report = lane_project.report("portable-tiny-llama/claims.json")
    doc, rows = report.doc, report.claims
    assert not (lane_project.path / "reports" / "claims.json").exists()  # the main report is left alone
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
    c18 = report.row_html("C18")
    assert "tiny-llama" in c18 and "128 B/token (for this model)" in c18
    assert "portable-LM lane on tiny-llama" in report.page()


def test_default_run_leaves_the_lane_out(lane_project):
    result = lane_project.run("-k", "C29 or C06")
    report = lane_project.report()
    doc, rows = report.doc, report.claims
    assert rows["C29"]["outcome"] == "passed" and "portable_lm" not in doc["runner"]
    assert rows["C06"]["outcome"] == "not-run"  # its only test here is the lane's, which is not run
    assert not any(c["tests"] and "portable" in c["tests"][0] for c in doc["claims"])
    result.assert_outcomes(passed=1)


def test_lane_refuses_gpt2_numbers_on_another_model(pytester, monkeypatch):
    registry = claim_toml(
        "C01", title="GPT-2's number", stated="36864", unit="B/token", locator="loc", tolerance="exact"
    ) + claim_toml(
        "C02",
        title="a property of any causal LM",
        stated="",
        unit="",
        locator="loc",
        tolerance="<=1e-5",
        extra="portable = true",
    )
    tests = """
import pytest

@pytest.mark.claim("C01")
def test_gpt2_number(claim):
    claim.on_model("other-lm")
    claim.check(36864)

@pytest.mark.claim("C02")
def test_property(claim):
    claim.on_model("other-lm")
    claim.check(0.0)
"""
    result = claims_project(pytester, registry, {"test_lane.py": tests}, monkeypatch=monkeypatch).run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*C01 is about GPT-2's own numbers (no 'portable = true'*check_form*"])
