"""A claim's result keeps its few shapes (issue 34): registry ``Claim`` -> ``Verdict`` (the judge) ->
``ClaimEntry`` (one test's result, on its item, sent with each phase; folded into the claim's row of
claims.json, written and read by the same class) -> the page's row. A module that builds one of these
elsewhere, or reads claims.json's JSON itself, is a new shape: it fails here, by name."""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).parents[2] / "claimcheck"

#: where each value may be made (paths relative to claimcheck/)
MADE_IN = {
    "Verdict": {"verdict.py", "recorder.py"},  # the judge (what-if's formulas too); claim.skip
    # a test's result (recorder, plugin/*), a claim's row (report, runs, editor), a value to show (pages)
    "ClaimEntry": {
        "results.py",
        "recorder.py",
        "report.py",
        "plugin/state.py",
        "plugin/running.py",
        "plugin/phases.py",
        "runs.py",
        "editor.py",
        "pages/__init__.py",
        "pages/summary.py",
    },
}
#: the modules that parse JSON text: claims.json only in results.py (fileio: is a file ours to overwrite)
PARSES_JSON = {"results.py", "fileio.py", "plugin/parallel.py"}


def _modules():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        if not rel.startswith("llm/"):  # the kit measures; it makes no result
            yield rel, ast.parse(path.read_text(encoding="utf-8"))


def _called(tree, name: str) -> bool:
    return any(
        isinstance(n, ast.Call)
        and (
            (isinstance(n.func, ast.Name) and n.func.id == name)
            or (isinstance(n.func, ast.Attribute) and n.func.attr == name)
        )
        for n in ast.walk(tree)
    )


@pytest.mark.parametrize("name", sorted(MADE_IN))
def test_a_result_is_made_only_where_its_verdict_is_decided(name):
    made = {rel for rel, tree in _modules() if _called(tree, name)}
    assert made <= MADE_IN[name], f"{name} is made in {sorted(made - MADE_IN[name])}: a new shape?"


def _parses_json(tree) -> bool:
    return any(
        isinstance(n, ast.Call)
        and isinstance(n.func, ast.Attribute)
        and n.func.attr in ("load", "loads")
        and isinstance(n.func.value, ast.Name)
        and n.func.value.id == "json"
        for n in ast.walk(tree)
    )


def test_only_results_reads_a_claims_json():
    parsing = {rel for rel, tree in _modules() if _parses_json(tree)}
    assert parsing <= PARSES_JSON, f"JSON parsed in {sorted(parsing - PARSES_JSON)}: read it as a ClaimsDoc"


def test_no_record_travels_in_user_properties():
    named = [
        rel for rel, _ in _modules() for _ in range((PACKAGE / rel).read_text().count("user_properties"))
    ]
    assert len(named) <= 3, named
