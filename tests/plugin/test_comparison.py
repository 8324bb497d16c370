"""ClaimRecorder.check_comparison with a comparison that is not the LLM kit's: the core's protocol
(claimcheck.recorder.Comparison) is all the verdict needs, so another kind of measurement with a
tie tolerance of its own gets the same outcomes (near-tie, failed, passed)."""

from tests.claimkit import claim_toml, claims_project

REGISTRY = "".join(
    claim_toml(cid, title=f"comparison {cid}", stated="", unit="", tolerance="<=0")
    for cid in ("K01", "K02", "K03")
)

TESTS = '''
from dataclasses import dataclass

import pytest


@dataclass
class Orders:
    """Two sorts of the same rows: how many rows landed elsewhere, and whether equal keys explain it."""

    measured: int
    near_tie: bool = False
    diverged: bool = False

    def describe(self):
        return f"{self.measured} rows in another place" + (" (equal sort keys)" if self.near_tie else "")

    def details(self):
        return {"rows_moved": self.measured}


@pytest.mark.claim("K01")
def test_tie(claim):
    claim.check_comparison(Orders(2, near_tie=True))


@pytest.mark.claim("K02")
def test_real(claim):
    claim.check_comparison(Orders(3, diverged=True))


@pytest.mark.claim("K03")
def test_same(claim):
    claim.check_comparison(Orders(0), rows=10)
'''


def test_any_object_with_the_protocol_gets_the_tie_aware_verdict(pytester, monkeypatch):
    project = claims_project(pytester, REGISTRY, {"test_orders.py": TESTS}, monkeypatch=monkeypatch)
    result = project.run("-p", "no:html")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*1 near-tie*"])  # a verdict of its own, not pytest's xfail
    rows = project.report().claims
    assert (
        rows["K01"]["outcome"] == "near-tie"
        and rows["K01"]["reason"] == "2 rows in another place (equal sort keys)"
    )
    assert rows["K02"]["outcome"] == "failed" and "3 rows in another place" in rows["K02"]["reason"]
    assert rows["K03"]["outcome"] == "passed" and rows["K03"]["measured"] == 0
    assert rows["K03"]["details"] == {"comparison": "0 rows in another place", "rows_moved": 0, "rows": 10}
