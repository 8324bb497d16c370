"""Tie-aware token-stream verdicts (ClaimRecorder.check_comparison), end to end through the reports.

A near-tie is constructed: two streams that differ at a step where the reference's top-2 logits
are 2e-6 apart. It must be reported as ``near-tie`` with the position and margin, neither a pass
nor a failure; the same difference with a margin of 3 logits must fail; identical streams pass.
"""

from tests.claimkit import claim_toml, claims_project

REGISTRY = "".join(
    claim_toml(cid, title=f"streams {cid}", stated="", unit="token", tolerance="<=0")
    for cid in ("C01", "C02", "C03")
)

TESTS = '''
import pytest
import torch

from claimcheck.llm.generation import compare_streams


def logits(margin):
    """[4, 10] reference logits: token 1 leads at every step; at step 2 token 3 trails it by `margin`."""
    out = torch.zeros(4, 10, dtype=torch.float64)
    out[:, 1] = 5.0
    out[2, 3] = 5.0 - margin
    return out


@pytest.mark.claim("C01")
def test_near_tie(claim):
    claim.check_comparison(compare_streams([1, 1, 1, 1], [1, 1, 3, 3], logits(2e-6), tie_tolerance=1e-4))


@pytest.mark.claim("C02")
def test_real_divergence(claim):
    claim.check_comparison(compare_streams([1, 1, 1, 1], [1, 1, 3, 3], logits(3.0), tie_tolerance=1e-4))


@pytest.mark.claim("C03")
def test_identical(claim):
    claim.check_comparison(compare_streams([1, 1, 1, 1], [1, 1, 1, 1], logits(3.0), tie_tolerance=1e-4))
'''


def test_constructed_near_tie_is_reported_as_near_tie(pytester, monkeypatch):
    project = claims_project(pytester, REGISTRY, {"test_tie_verdicts.py": TESTS}, monkeypatch=monkeypatch)
    result = project.run()
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*1 near-tie*"])  # a verdict of its own, not pytest's xfail
    report = project.report()
    rows = report.claims
    tie, real, same = rows["C01"], rows["C02"], rows["C03"]
    assert tie["outcome"] == "near-tie" and tie["measured"] == 2
    assert (
        "generated position 2" in tie["reason"]
        and "margin 2e-06" in tie["reason"]
        and "near-tie" in tie["reason"]
    )
    assert (
        tie["details"]["first_difference"] == 2 and abs(tie["details"]["margin_at_difference"] - 2e-6) < 1e-6
    )
    assert (
        real["outcome"] == "failed" and "real divergence" in real["reason"] and "margin 3" in real["reason"]
    )
    assert same["outcome"] == "passed" and same["measured"] == 0
    c01 = report.row_html("C01")
    assert "o-near-tie" in c01 and "first difference at generated position 2" in c01


def _logits(n: int):
    import torch

    return torch.zeros(max(n, 1), 10, dtype=torch.float64)


def test_an_empty_stream_is_a_divergence_not_identical():
    from claimcheck.llm.generation import DIVERGED, compare_streams

    for ref, other in (([5, 7, 9], []), ([], [5, 7, 9])):
        c = compare_streams(ref, other, _logits(3), tie_tolerance=1e-4)
        assert (c.verdict, c.position, c.measured) == (DIVERGED, 0, 3)
        assert c.diverged and not c.near_tie and "differ in length" in c.describe()


def test_a_shorter_stream_differs_where_it_ends():
    from claimcheck.llm.generation import DIVERGED, IDENTICAL, compare_streams

    c = compare_streams([5, 7, 9], [5, 7], _logits(3), tie_tolerance=1e-4)
    assert (c.verdict, c.position, c.n_compared, c.measured, c.ref_token, c.other_token) == (
        DIVERGED, 2, 2, 1, 9, None
    )  # fmt: skip
    assert "the other stream ends after 2 tokens" in c.describe()
    assert compare_streams([5, 7, 9], [5, 7, 9], _logits(3), tie_tolerance=1e-4).verdict == IDENTICAL
    # a token difference before the end still decides, and the missing tokens count as differences
    d = compare_streams([5, 7, 9], [5, 8], _logits(3), tie_tolerance=1e-4)
    assert (d.position, d.measured) == (1, 2)
