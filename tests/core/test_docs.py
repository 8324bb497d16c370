"""The reference pages in docs/reference/ are what ``python -m claimcheck.docs`` writes from the tables."""

import ast
from pathlib import Path

import pytest

from claimcheck import docs
from claimcheck.fields import TABLES
from claimcheck.llm.options import OPTIONS as KIT_OPTIONS
from claimcheck.settings import OPTIONS

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("page", list(docs.RENDER))
def test_the_committed_reference_page_is_current(page):
    path = ROOT / page
    fix = f"run `{docs.REGENERATE}` from the repository root and commit the page"
    assert path.is_file(), f"{page} is missing: {fix}"
    assert path.read_text(encoding="utf-8") == docs.RENDER[page](), (
        f"{page} is not what the tables say: {fix}"
    )


def test_every_field_option_and_command_is_on_its_page():
    fields, options = docs.registry_fields(), docs.options()
    for header, _, table in TABLES:
        assert f"## `{header}`" in fields
        assert all(f"| `{f.name}` |" in fields for f in table), header
    assert all(o.flag in options and (o.env or "") in options for o in OPTIONS)
    # the kit's table, in a section of its own after the core's (found through its entry point)
    kit = options.index("### The options of the LLM kit")
    assert all(options.index(o.flag) < kit for o in OPTIONS)
    assert all(options.index(o.flag) > kit and o.env in options for o in KIT_OPTIONS)
    assert "`CLAIMCHECK_CACHE_DIR`" in options
    commands = ("validate", "init", "merge", "diff", "what-if")
    assert all(f"### claimcheck {name}" in options for name in commands)


def test_the_dense_registry_example_of_the_fields_page_loads(tmp_path):
    """The page's `[claims]` example (``[defaults]``, one line per claim, a quoted part id, a table
    of many fields) is a registry that loads without a problem, each claim with its defaults."""
    from claimcheck.registry import load_registry

    page = docs.registry_fields()
    block = page[page.index("```toml\n[defaults]") + len("```toml\n") :]
    path = tmp_path / "claims.toml"
    path.write_text(block[: block.index("```")], encoding="utf-8")
    reg = load_registry(path)
    assert reg.issues == [] and list(reg.claims) == ["C01", "C02", "C30.text", "C05"]
    got = {cid: (c.unit, c.tolerance_text, c.needs) for cid, c in reg.claims.items()}
    assert got == {
        "C01": ("token", "exact", ("tok",)),
        "C02": ("", "exact", ("tok",)),  # its own unit replaces the default
        "C30.text": ("token", "exact", ("text",)),
        "C05": ("token/s", "rel:10%", ("tok",)),
    }
    assert "| `unit` | string | yes |  | yes |" in page and "| `title` | string | yes |  | |" in page


def test_the_guide_s_dense_registry_example_loads(tmp_path):
    """docs/writing-claims.md's first registry example (``[defaults]`` and one line per claim) loads
    without a problem, each claim with the defaults it does not set."""
    from claimcheck.registry import load_registry

    guide = (ROOT / "docs" / "writing-claims.md").read_text(encoding="utf-8")
    block = guide[guide.index("```toml\n[defaults]") + len("```toml\n") :]
    path = tmp_path / "claims.toml"
    path.write_text(block[: block.index("```")], encoding="utf-8")
    reg = load_registry(path)
    assert reg.issues == [] and len(reg.claims) == 4
    assert reg.claims["C01"].unit == "token" and reg.claims["C03"].unit == "B"
    assert reg.claims["C04.text"].needs == ("text",) and reg.claims["C02"].needs == ("tok",)


def test_the_page_templates_are_package_data():
    """Each page's prose is a template of the package (claimcheck/reference_pages/), shipped in the
    wheel by pyproject's package-data: ``python -m claimcheck.docs --check`` works from an install."""
    import tomllib
    from importlib.resources import files

    shipped = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]
    assert "reference_pages/*.j2" in shipped["package-data"]["claimcheck"]
    templates = sorted(t.name for t in files("claimcheck").joinpath("reference_pages").iterdir())
    assert templates == sorted(Path(page).name + ".j2" for page in docs.RENDER)


def test_check_names_a_stale_page_and_the_command(tmp_path, capsys):
    assert docs.main(["--root", str(tmp_path)]) == 0
    assert docs.main(["--root", str(tmp_path), "--check"]) == 0
    page = tmp_path / "docs" / "reference" / "options.md"
    page.write_text(page.read_text(encoding="utf-8") + "edited by hand\n", encoding="utf-8")
    assert docs.main(["--root", str(tmp_path), "--check"]) == 1
    err = capsys.readouterr().err
    assert "docs/reference/options.md is not current: run python -m claimcheck.docs" in err


def _fixture_names(path: Path) -> set[str]:
    """Names of the ``@pytest.fixture`` functions of a module, read with ast (nothing imported)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef) and any(
            "fixture" in ast.unparse(d) for d in node.decorator_list
        ):
            names.add(node.name)
    return names


def test_every_fixture_a_chapter_can_use_is_on_the_kit_page():
    page = (ROOT / "docs" / "kit.md").read_text(encoding="utf-8")
    modules = [
        ROOT / "fixtures" / "models.py",
        ROOT / "fixtures" / "speed.py",
        ROOT / "claimcheck" / "plugin" / "fixtures.py",
        ROOT / "claimcheck" / "llm" / "pytest_kit.py",
    ]
    names = set().union(*(_fixture_names(m) for m in modules))
    assert len(names) >= 15  # the scan found the fixtures
    missing = sorted(n for n in names if f"`{n}`" not in page)
    assert not missing, f"docs/kit.md does not name these fixtures: {missing}"
