"""What a claim test does after its verdict decides the claim's row as it decides pytest's report:
an exception after an inconclusive timing is that exception's outcome (not inconclusive), a skip
after a check that held is a skip, and numpy/torch scalars are numbers (found by an attack on the
verdict module)."""

from tests.claimkit import claim_toml, claims_project

REGISTRY = "".join(claim_toml(f"C0{i}", stated="6", unit="", tolerance="exact") for i in range(1, 6))

TESTS = """
import pathlib

import numpy as np
import pytest
import torch

from claimcheck.llm.timing import Rounds, Timing


def _inconclusive(claim):
    rounds = Rounds({"a": lambda: None}, warmup=0)
    rounds.run(1)
    try:  # one round cannot decide: inconclusive
        claim.check_timing(Timing(rounds, budget_s=0.0, profile="quick"), lambda rounds: 6.0)
    except BaseException:
        pass


@pytest.mark.claim("C01")
def test_raises_after_inconclusive(claim):
    _inconclusive(claim)
    raise RuntimeError("broke after the verdict")


@pytest.mark.claim("C02")
def test_asserts_after_inconclusive(claim):
    _inconclusive(claim)
    assert 1 == 2, "its own assert"


@pytest.mark.claim("C03")
def test_skips_after_a_check_that_held(claim):
    claim.check(6)
    pytest.skip("decided not to decide")


@pytest.mark.claim("C04")
def test_numpy_scalar(claim):
    claim.check(np.float32(6), f32=np.float32(1.5), shape=(2, 3), where=pathlib.Path("a/b"))


@pytest.mark.claim("C05")
def test_nan_is_broken_not_false(claim):
    claim.check(torch.tensor(float("nan")))
"""


def test_the_row_says_what_pytest_says_after_a_verdict(pytester, monkeypatch):
    project = claims_project(pytester, REGISTRY, TESTS, monkeypatch=monkeypatch)
    result = project.run("-p", "no:html")
    result.assert_outcomes(passed=1, failed=3, skipped=1)
    rows = project.report().claims
    assert rows["C01"]["outcome"] == "error" and "broke after the verdict" in rows["C01"]["reason"]
    assert rows["C02"]["outcome"] == "failed"
    assert rows["C03"]["outcome"] == "skipped" and "decided not to decide" in rows["C03"]["reason"]
    assert rows["C04"]["outcome"] == "passed" and rows["C04"]["measured"] == 6.0
    # a detail JSON cannot hold as it is does not lose the run's claims.json: numbers, lists, text
    assert {k: rows["C04"]["details"][k] for k in ("f32", "shape", "where")} == {
        "f32": 1.5,
        "shape": [2, 3],
        "where": "a/b",
    }
    assert rows["C05"]["outcome"] == "error" and "not a finite number" in rows["C05"]["reason"]
