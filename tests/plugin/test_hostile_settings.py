"""Hostile registries, settings and folders in a pytest run (issue 37, part A): one clear error naming
the file (or the setting and each bad entry), the exit code docs/errors.md gives, nothing else lost;
and a project that is not a book left alone, without paying for claimcheck's core at start-up."""

import json
import os
import textwrap

import pytest

from tests.claimkit import claims_project, lean, read_report

CLAIM = """
[[claims]]
id = "{id}"
title = "{chapter} {id}"
stated = "5"
unit = "x"
locator = "loc {id}"
tolerance = ">=1"
needs = ["arch"]
"""


def chapter(pytester, folder: str, chapter_id: str, ids, extra: str = "", fields=None):
    """A chapter whose claim tests each measure 6 (every claim holds)."""
    registry = "".join(CLAIM.format(id=c, chapter=chapter_id) for c in ids) + extra
    tests = "import pytest\n" + "".join(
        textwrap.dedent(f"""
        @pytest.mark.claim("{c}")
        def test_{c.lower()}(claim):
            claim.check(6)
        """)
        for c in ids
    )
    fields = {"id": chapter_id, **(fields or {})}
    return claims_project(pytester, registry, {f"test_{chapter_id}.py": tests}, chapter=fields, folder=folder)


@pytest.fixture
def book(pytester, monkeypatch):
    """Two chapters, claims/a (C01, C02) and claims/b (C01); no CLAIMCHECK_* variable of this run."""
    for var in [v for v in os.environ if v.startswith("CLAIMCHECK_")]:
        monkeypatch.delenv(var)
    chapter(pytester, "claims/a", "cha", ["C01", "C02"])
    chapter(pytester, "claims/b", "chb", ["C01"])
    return pytester


def run(pytester, *args):
    return pytester.runpytest("claims", "-p", "no:cacheprovider", "-p", "no:html", *args)


def test_a_chapter_nested_400_deep_costs_only_its_claim(book):
    registry = book.path / "claims" / "a" / "claims.toml"
    deep = "{a=" * 400 + "1" + "}" * 400
    registry.write_text(registry.read_text() + f"\n[claims.C03]\ntitle = {deep}\n", encoding="utf-8")
    result = run(book)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # was "Interrupted" (2), no report
    text = result.stdout.str()
    assert "Interrupted" not in text and "RecursionError" not in text and "Traceback" not in text
    rows = read_report(book).claims.by_key
    assert set(rows) == {"cha:C01", "cha:C02", "cha:C03", "chb:C01"}
    assert [rows[k]["outcome"] for k in ("cha:C01", "cha:C02", "chb:C01")] == ["passed"] * 3
    assert rows["cha:C03"]["outcome"] == "error"
    assert "nested more than 32 levels deep" in rows["cha:C03"]["reason"]
    assert f"{registry}: claim C03" in text


def test_a_misspelt_chapter_key_fails_the_run_and_loses_nothing(book):
    registry = book.path / "claims" / "b" / "claims.toml"
    registry.write_text(registry.read_text().replace("[chapter]\n", "[chapter]\nid_patern = 'C\\d{2}'\n"))
    result = run(book)
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # was 0: the pattern silently not applied
    result.stdout.fnmatch_lines(
        ["*claims.toml: field 'chapter.id_patern': unknown field (did you mean 'id_pattern'?)*"]
    )
    rows = read_report(book).claims.by_key
    assert all(rows[k]["outcome"] == "passed" for k in ("cha:C01", "cha:C02", "chb:C01"))


def bad_entries(pytester) -> dict[str, str]:
    """Entries no run can read as a registry, by what each is; made in ``pytester``'s folder."""
    pytester.path.joinpath("loop-a").symlink_to("loop-b")
    pytester.path.joinpath("loop-b").symlink_to("loop-a")
    os.mkfifo(pytester.path / "pipe")
    pytester.path.joinpath("empty").mkdir()
    pytester.path.joinpath("chapter.toml").write_text("[chapter]\n", encoding="utf-8")
    outside = pytester.path.parent / f"{pytester.path.name}-outside"
    outside.mkdir(exist_ok=True)
    outside.joinpath("claims.toml").write_text("[chapter]\n", encoding="utf-8")
    return {
        "/dev/zero": "a character device, not a regular file",
        "pipe": "a FIFO (named pipe), not a regular file",
        "loop-a": "a loop of symbolic links (loop-a -> loop-b -> loop-a)",
        "nothere/claims.toml": "no such file or folder",
        str(
            outside / "claims.toml"
        ): "outside the project (*) and this run's arguments: pytest never collects it",
        "chapter.toml": "pytest collects a registry only under the name claims.toml",
        "empty": "a folder with no claims.toml in it or below it",
    }


@pytest.mark.parametrize("source", ["option", "environment", "ini"])
def test_registries_a_run_cannot_read_are_a_usage_error_naming_each(book, monkeypatch, source):
    bad = bad_entries(book)
    names = list(bad) if source != "ini" else list(bad)[1:6]
    value = " ".join(["claims/b", *names])
    args = []
    if source == "option":
        args = [f"--claims-registries={value}"]
        where = "--claims-registries"
    elif source == "environment":
        monkeypatch.setenv("CLAIMCHECK_REGISTRIES", value)
        where = "CLAIMCHECK_REGISTRIES"
    else:
        book.makeini(f"[pytest]\nclaims_registries = {value}\n")
        where = "ini claims_registries (tox.ini)"
    result = run(book, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # was: ignored, the good chapters run, exit 0
    err = result.stderr.str()
    assert f"claimcheck: {where} names what this run cannot read as a registry: " in err
    for name in names[:5]:  # each named (a long path cut to 80 characters) with why it is not read
        result.stderr.fnmatch_lines([f"*'{name[:60]}*: {bad[name]}*"])
    if len(names) > 5:
        assert f"; and {len(names) - 5} more" in err
    assert "claims/b" not in err.replace(str(book.path), "")  # the good entry is not named
    assert "Traceback" not in err + result.stdout.str()
    assert not (book.path / "reports").exists()


def test_a_link_loop_under_claims_is_named_in_one_line(book):
    up = book.path / "claims" / "b" / "up"
    up.symlink_to("..")
    result = run(book)
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # was an error of 20-30 KB naming every copy
    err = result.stderr.str()
    assert "claimcheck: claims/b/up is a symbolic link to claims, a folder that holds it" in err
    assert "add 'up' to norecursedirs" in err and len(err) < 600
    assert not (book.path / "reports").exists()
    # a link to a folder outside the book is no loop
    up.unlink()
    (book.path / "elsewhere").mkdir()
    up.symlink_to(book.path / "elsewhere")
    run(book).assert_outcomes(passed=3)


def test_a_project_checked_out_in_a_folder_named_claims_is_left_alone(pytester, monkeypatch):
    project = pytester.path / "claims"
    (project / "data").mkdir(parents=True)
    (project / "tests").mkdir()
    (project / "pyproject.toml").write_text('[project]\nname = "timeout"\nversion = "1"\n', encoding="utf-8")
    (project / "data" / "claims.toml").write_text('[policy]\nholder = "A"\n[[claims]]\namount = 300\n')
    (project / "tests" / "test_x.py").write_text("def test_one():\n    assert True\n", encoding="utf-8")
    monkeypatch.chdir(project)
    without = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:claimcheck", "-p", "no:claimcheck-llm")
    result = pytester.runpytest("-p", "no:cacheprovider")
    assert result.ret == without.ret == pytest.ExitCode.OK  # was a claims run: one registry error, exit 1
    result.assert_outcomes(passed=1)
    assert not (project / "reports").exists()
    # asked for, it is one
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "claimcheck", "-p", "no:html")
    result.stdout.fnmatch_lines(["*data/claims.toml*not a claimcheck registry*"])


PROBE = """
import json, sys

def pytest_unconfigure(config):
    with open("modules.json", "w") as f:
        json.dump(sorted(m for m in sys.modules if m.startswith("claimcheck")), f)
"""

#: what claimcheck may import in a pytest run that is not a claims run: its entry point, the options
#: module and its hook specifications, the option table (standard library only)
CORE_AT_START = {
    "claimcheck",
    "claimcheck.plugin",
    "claimcheck.plugin.options",
    "claimcheck.plugin.hookspecs",
    "claimcheck.settings",
}


def test_a_run_that_is_not_a_claims_run_imports_no_other_core_module(pytester):
    pytester.makeconftest(PROBE)
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n")
    result = pytester.runpytest_subprocess("--co", "-p", "no:cacheprovider", *lean(kit=False))
    assert result.ret == pytest.ExitCode.OK
    modules = set(json.loads((pytester.path / "modules.json").read_text()))
    assert modules == CORE_AT_START, modules - CORE_AT_START  # was 37 modules: registry, book, pages...
    # with the kit: its option table, and of the core only what that table is built from
    result = pytester.runpytest_subprocess("--co", "-p", "no:cacheprovider", *lean(kit=True))
    core = {
        m
        for m in json.loads((pytester.path / "modules.json").read_text())
        if not m.startswith("claimcheck.llm")
    }
    assert core <= CORE_AT_START | {"claimcheck.display"}, core - CORE_AT_START


def test_a_bad_registry_written_with_a_space_stops_the_run_before_it_writes(book):
    # pytest takes the value for a path of the run when it picks the rootdir: here, /
    result = run(book, "--claims-registries", "/dev/zero")
    assert result.ret == pytest.ExitCode.USAGE_ERROR  # was exit 0, and /reports/claims.json written
    result.stderr.fnmatch_lines(["*--claims-registries names*'/dev/zero': a character device*"])
