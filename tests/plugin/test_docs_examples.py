"""The examples of docs/writing-claims.md that a chapter's author copies run as written."""

import re
from pathlib import Path

from tests.claimkit import claim_toml, claims_project

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "writing-claims.md"


def example(defines: str) -> str:
    """The guide's Python code block that defines ``defines``."""
    blocks = re.findall(r"```python\n(.*?)```", GUIDE.read_text(encoding="utf-8"), re.S)
    return next(b for b in blocks if defines in b)


def test_a_test_reaches_its_chapters_manuscript_as_the_guide_says(pytester, monkeypatch):
    registry = claim_toml("C01", title="numbers", stated="2", unit="", locator="有 2 个", needs='["text"]')
    test = '@pytest.mark.claim("C01")\ndef test_c01(claim, manuscript):\n    claim.check(len(manuscript.numbers))\n'
    project = claims_project(
        pytester,
        registry,
        {"test_ms.py": "import pytest\n\n" + test, "conftest.py": example("def manuscript(")},
        chapter={"id": "cm", "manuscript": "ch.md"},
        monkeypatch=monkeypatch,
    )
    (pytester.path / "claims" / "ch.md").write_text("这里有 2 个数，和 7。\n", encoding="utf-8")
    project.run().assert_outcomes(passed=1)
    (pytester.path / "claims" / "ch.md").unlink()
    result = project.run("-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*the chapter's text is not at *ch.md: pass --claims-manuscript=PATH*"])


def test_the_guides_timing_example_times_the_model_without_autograd():
    """kit.md: the kit's models keep gradients on, so a call is wrapped in torch.inference_mode();
    writing-claims.md's interleaved example once timed the model with autograd recording."""
    code = example("def tokenize_timing(")
    assert "with torch.inference_mode():" in code and "timing_model(" in code.split("inference_mode")[1]
