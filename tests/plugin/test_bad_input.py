"""Bad input never hides a claim: one clear error per fault, every other registry id still reported.

One test per row of docs/errors.md's table of bad input, on a small project of three test modules and
six claims (pytester, in process; the tiny fixtures only, so each run takes about a second).
"""

import os
import textwrap
import time

import pytest

from claimcheck.cli import main as cli
from tests.claimkit import claims_project

CLAIM = """
[[claims]]
id = "{id}"
title = "{title}"
stated = "{stated}"
unit = "x"
locator = "loc {id}"
tolerance = "{tol}"
needs = {needs}
{extra}"""

REGISTRY = (
    "# a test registry\n[chapter]\nid = \"t\"\nid_pattern = 'C\\d{2}'\n\n"
    '[runners.author-laptop]\ndescription = "the author\'s laptop"\n'
    + CLAIM.format(id="C01", title="one", stated="5", tol=">=1", needs='["arch"]', extra="")
    + CLAIM.format(id="C02", title="two", stated="5", tol=">=1", needs='["arch"]', extra="")
    + CLAIM.format(id="C03", title="three", stated="5", tol=">=1", needs='["arch"]', extra="")
    + CLAIM.format(id="C04", title="four", stated="5", tol=">=1", needs='["arch"]', extra="")
    + CLAIM.format(
        id="C05",
        title="five",
        stated="98",
        tol="rel:25%",
        needs='["time"]',
        extra='runner = "author-laptop"\n',
    )
    + CLAIM.format(id="C06", title="six", stated="99.16", tol="printed", needs='["weights"]', extra="")
)
IDS = ["C01", "C02", "C03", "C04", "C05", "C06"]

MODULES = {
    "test_a.py": """
        import pytest

        @pytest.mark.claim("C01")
        def test_c01(claim):
            claim.check(6)

        @pytest.mark.claim("C02")
        def test_c02(claim):
            claim.check(7)
    """,
    "test_b.py": """
        import pytest

        @pytest.mark.claim("C03")
        def test_c03(claim):
            claim.check(8)

        @pytest.mark.claim("C04")
        def test_c04(claim):
            claim.check(9)
    """,
    "test_c.py": """
        import pytest

        @pytest.mark.claim("C05")
        def test_c05(claim):
            claim.check(97)

        @pytest.mark.claim("C06")
        def test_c06(claim):
            raise AssertionError("must be skipped: no weights")
    """,
}


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.setenv("HF_HUB_CACHE", str(pytester.mkdir("empty-hf-cache")))  # no gpt2 in this cache
    return claims_project(pytester, REGISTRY, MODULES, ini="[pytest]\n", monkeypatch=monkeypatch)


def assert_every_other_claim_reported(rows, broken, outcome="error"):
    for cid in broken:
        assert rows[cid]["outcome"] == outcome, (cid, rows[cid])
    expected = {
        "C01": "passed",
        "C02": "passed",
        "C03": "passed",
        "C04": "passed",
        "C05": "skipped",
        "C06": "skipped",
    }
    for cid in set(IDS) - set(broken):
        assert rows[cid]["outcome"] == expected[cid], (cid, rows[cid])


def test_the_project_itself_is_good(project):
    result = project.run()
    assert result.ret == 0
    rows = project.report().claims
    assert_every_other_claim_reported(rows, [])
    assert cli(["validate", str(project.registry)]) == 0


# --- the registry ---------------------------------------------------------------------------------
def test_an_empty_registry_is_a_problem(project, capsys):
    project.registry.write_text("", encoding="utf-8")
    assert cli(["validate", str(project.registry)]) == 1
    assert "the file is empty" in capsys.readouterr().err
    result = project.run()
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*registry error: *claims.toml: field 'claims': the file is empty*"])
    rows = project.report().claims
    assert set(rows) == set(IDS) and all(r["outcome"] == "error" for r in rows.values())
    assert "the file is empty" in rows["C01"]["reason"]
    project.run("-k", "C01")  # the ids its tests name are listed even when -k leaves their tests out
    rows = project.report().claims
    assert set(rows) == set(IDS) and rows["C04"]["reason"].endswith(
        "declares no readable claim (the file is empty)"
    )


def test_an_id_off_the_pattern_and_its_orphaned_test(project, capsys):
    project.registry.write_text(REGISTRY.replace('id = "C03"', 'id = "X99"'), encoding="utf-8")
    assert cli(["validate", str(project.registry)]) == 1
    err = capsys.readouterr().err
    assert "claim X99: field 'id': id 'X99' does not match the registry's id pattern 'C\\d{2}'" in err
    assert "test_b.py:4: a test names claim 'C03'" in err and "X99: was C03 renamed?" in err
    project.run()
    rows = project.report().claims
    assert "does not match the registry's id pattern" in rows["X99"]["reason"]
    assert rows["C03"]["reason"].endswith(
        "no claim with id 'C03' (the only registry id without a test in this run is X99: was C03 renamed?)"
    )
    assert rows["X99"]["outcome"] == rows["C03"]["outcome"] == "error"
    assert_every_other_claim_reported(rows, ["C03"])


def test_an_undecodable_byte_costs_only_its_claim(project, capsys):
    raw = REGISTRY.encode("utf-8").replace(b'title = "two"', b'title = "tw\xff"')
    project.registry.write_bytes(raw)
    assert cli(["validate", str(project.registry)]) == 1
    err = capsys.readouterr().err
    assert "claim C02: field 'title': line 20: byte 0xff is not UTF-8" in err
    assert "5 valid claims, 1 problem (invalid: C02) in" in err  # the summary names what it lost
    project.run()
    rows = project.report().claims
    assert set(rows) == set(IDS)
    assert "line 20: byte 0xff is not UTF-8" in rows["C02"]["reason"]
    assert_every_other_claim_reported(rows, ["C02"])


def test_a_toml_syntax_error_costs_only_its_claim(project):
    project.registry.write_text(
        REGISTRY.replace(
            'tolerance = ">=1"\nneeds = ["arch"]\n\n[[claims]]\nid = "C04"',
            'tolerance = >=1\nneeds = ["arch"]\n\n[[claims]]\nid = "C04"',
        ),
        encoding="utf-8",
    )
    project.run()
    rows = project.report().claims
    assert "not valid TOML" in rows["C03"]["reason"] and "line 33" in rows["C03"]["reason"]
    assert_every_other_claim_reported(rows, ["C03"])


HOSTILE_FORMULAS = {  # each once stopped every claim of the book (an INTERNALERROR, exit 3)
    "C03": "1e309*0",
    "C04": "entropy_bits_top_k(50257)",
    "C05": "+".join(["1"] * 100000),
    "C06": "-" * 100000 + "1",
}


def test_a_hostile_formula_costs_only_its_claim(project, capsys):
    registry = REGISTRY
    for cid, formula in HOSTILE_FORMULAS.items():
        registry = registry.replace(
            f'id = "{cid}"',
            f'id = "{cid}"\nvalues = {{ a = "1" }}\nformula = "{formula}"\nprecision = "exact"',
        )
    registry = registry.replace('stated = "98"', 'stated = "1e309"')  # C05's stated too
    project.registry.write_text(registry, encoding="utf-8")
    assert cli(["validate", str(project.registry)]) == 1
    err = capsys.readouterr().err
    assert "claim C03: field 'formula': '1e309*0': the number '1e309' is not a finite number" in err
    assert "claim C04: field 'formula': cannot be evaluated: entropy_bits_top_k" in err
    assert "claim C05: field 'stated': '1e309' is not a finite number of sensible size" in err
    assert "claim C06: field 'formula'" in err and "a formula has at most 1000" in err
    assert len(err) < 4000  # an excerpt of each formula, never the formula
    result = project.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # not an INTERNALERROR (3)
    assert "INTERNALERROR" not in result.stdout.str() and "Traceback" not in result.stdout.str()
    rows = project.report().claims
    assert "a formula has at most 1000" in rows["C06"]["reason"] and len(rows["C06"]["reason"]) < 400
    assert_every_other_claim_reported(rows, ["C03", "C04", "C05", "C06"])


HOSTILE_TITLE = "one\\n::add-mask::x\\n::error file=a.py,line=1::pwned"  # TOML escapes: two newlines


def no_workflow_command(text: str) -> bool:
    return not any(line.lstrip().startswith("::") for line in text.splitlines())


def test_a_hostile_title_never_reaches_a_ci_log_as_a_workflow_command(project, capsys):
    project.registry.write_text(
        REGISTRY.replace('title = "one"', f'title = "{HOSTILE_TITLE}"').replace(
            'title = "two"',
            'title = "two"\n"k\\n::warning::x" = 1',  # an unknown field: its name quoted
        ),
        encoding="utf-8",
    )
    project.write("test_a.py", MODULES["test_a.py"].replace("claim.check(6)", "claim.check(0)"))
    assert cli(["validate", str(project.registry)]) == 1
    out, err = capsys.readouterr()
    assert "one%0A::add-mask::x%0A::error file=a.py,line=1::pwned" in out
    assert no_workflow_command(out) and no_workflow_command(err)
    result = project.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    text = result.stdout.str() + result.stderr.str()
    assert "C01 does not hold: one%0A::add-mask::x" in text  # the failing claim, its title on one line
    assert no_workflow_command(text)


# --- the test modules -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "body, first_line",
    [
        ("import pytest\nimport nosuchmodule\n", "ModuleNotFoundError: No module named 'nosuchmodule'"),
        ("import pytest\nraise RuntimeError('at import')\n", "RuntimeError: at import"),
        ("import pytest\ndef broken(:\n    pass\n", "SyntaxError: "),
    ],
)
def test_a_module_that_cannot_be_imported_errors_its_claims_and_the_rest_runs(project, body, first_line):
    path = project.write(
        "test_b.py", body + textwrap.dedent(MODULES["test_b.py"]).replace("import pytest\n", "", 1)
    )
    result = project.run()
    assert result.ret == pytest.ExitCode.TESTS_FAILED  # not "Interrupted: 1 error during collection" (2)
    result.stdout.fnmatch_lines([f"*test_b.py: the test module cannot be collected: {first_line}*"])
    rows = project.report().claims
    for cid in ("C03", "C04"):
        assert rows[cid]["reason"].startswith(f"{path}: the test module cannot be collected: {first_line}")
    assert_every_other_claim_reported(rows, ["C03", "C04"])
    project.run("-k", "C04")  # the error item answers -k like the test it stands for
    rows = project.report().claims
    assert rows["C04"]["outcome"] == "error" and "carried" not in rows["C04"]
    assert rows["C03"]["selected"] is False and rows["C03"]["carried"]  # not run now: kept from the last run


def test_a_test_that_raises_is_an_error_not_a_failure(project):
    project.write(
        "test_b.py",
        MODULES["test_b.py"].replace("claim.check(9)", "raise RuntimeError('the GPU driver went away')"),
    )
    project.run()
    rows = project.report().claims
    assert (
        rows["C04"]["reason"] == "RuntimeError: the GPU driver went away (raised at test_b.py:10 in test_c04)"
    )
    assert_every_other_claim_reported(rows, ["C04"])
    c04 = project.report().row_html("C04")
    assert 'class="badge o-error"' in c04 and "RuntimeError: the GPU driver went away" in c04


def test_a_claim_that_needs_the_kit_errors_in_one_line_wherever_the_import_fails(project):
    """A core-only install: a fixture's or a test's import of a kit module (torch) is the claim's error,
    one line naming the extra, never a traceback."""
    project.write(
        "test_b.py",
        """
        import pytest

        @pytest.fixture
        def model():
            raise ModuleNotFoundError("No module named 'torch'", name="torch")

        @pytest.mark.claim("C03")
        def test_c03(claim, model):
            claim.check(8)

        @pytest.mark.claim("C04")
        def test_c04(claim):
            raise ModuleNotFoundError("No module named 'torch.nn'", name="torch.nn")
        """,
    )
    result = project.run()
    needs = "needs the `claims` extra: pip install 'claimcheck[claims]' (no module named 'torch' here)"
    rows = project.report().claims
    for cid in ("C03", "C04"):
        assert (rows[cid]["outcome"], rows[cid]["reason"]) == ("error", f"{cid}: {needs}")
        result.stdout.fnmatch_lines([f"{cid}: {needs}"])
    assert "Traceback" not in result.stdout.str() and "raise ModuleNotFoundError" not in result.stdout.str()
    assert_every_other_claim_reported(rows, ["C03", "C04"])


def test_a_fixture_that_raises_is_an_error_with_its_type_and_message(project):
    project.write(
        "test_b.py",
        """
        import pytest

        @pytest.fixture
        def measurement():
            raise OSError("disk full")

        @pytest.mark.claim("C03")
        def test_c03(claim, measurement):
            claim.check(8)

        @pytest.mark.claim("C04")
        def test_c04(claim):
            claim.check(9)
    """,
    )
    project.run()
    rows = project.report().claims
    assert rows["C03"]["reason"].startswith("OSError: disk full (raised at test_b.py:")
    assert_every_other_claim_reported(rows, ["C03"])


def test_a_test_with_two_claim_marks_is_an_error_and_the_rest_run(project):
    project.write(
        "test_b.py",
        MODULES["test_b.py"].replace(
            '@pytest.mark.claim("C04")', '@pytest.mark.claim("C04")\n        @pytest.mark.claim("C03")'
        ),
    )
    result = project.run()
    rows = project.report().claims
    # pytest lists the closest mark first: the test counts as C03's, and C03's row says why
    assert rows["C03"]["outcome"] == "error"
    assert "2 claim marks ('C03', 'C04'); a test checks exactly one claim" in rows["C03"]["reason"]
    assert rows["C04"]["outcome"] != "passed"  # never passed by a test that did not check it
    assert {cid: rows[cid]["outcome"] for cid in ("C01", "C02")} == {"C01": "passed", "C02": "passed"}
    assert result.ret != 0


def test_a_verdict_is_still_a_failure(project):
    project.write("test_a.py", MODULES["test_a.py"].replace("claim.check(6)", "claim.check(0.5)"))
    project.run()
    rows = project.report().claims
    assert rows["C01"]["outcome"] == "failed" and "C01 does not hold" in rows["C01"]["reason"]


# --- settings: command line, environment, ini ---------------------------------------------------
@pytest.mark.parametrize(
    "how, shown",
    [
        ("cli", "--claims-listing-timeout 0"),
        ("env", "CLAIMCHECK_LISTING_TIMEOUT=0"),
        ("ini", "ini claims_listing_timeout = 0 (tox.ini)"),
    ],
)
def test_a_zero_listing_timeout_is_refused_from_every_source(project, monkeypatch, how, shown):
    args = ["--claims-listing-timeout=0"] if how == "cli" else []
    if how == "env":
        monkeypatch.setenv("CLAIMCHECK_LISTING_TIMEOUT", "0")
    if how == "ini":
        project.makeini("[pytest]\nclaims_listing_timeout = 0\n")
    result = project.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*claimcheck: {shown}: expected a time limit in seconds > 0, got '0'*"])


@pytest.mark.parametrize(
    "how, shown", [("cli", "--claims-runner nosuchrunner"), ("env", "CLAIMCHECK_RUNNER=nosuchrunner")]
)
def test_an_unknown_runner_profile_is_refused(project, monkeypatch, how, shown):
    args = ["--claims-runner", "nosuchrunner"] if how == "cli" else []
    if how == "env":
        monkeypatch.setenv("CLAIMCHECK_RUNNER", "nosuchrunner")
    result = project.run(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*claimcheck: {shown}: unknown runner profile; did you mean author-laptop?*"]
    )
    project.run("--claims-runner", "author-laptop")  # the declared one enforces C05
    assert project.report().claims["C05"]["outcome"] == "passed"


def test_a_misspelt_environment_variable_is_refused(project, monkeypatch):
    monkeypatch.setenv("CLAIMCHECK_PROFLE", "quick")
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*CLAIMCHECK_PROFLE=quick: not a claimcheck setting; did you mean CLAIMCHECK_PROFILE?*"]
    )


# --- the weights -----------------------------------------------------------------------------------
def test_a_download_without_network_is_a_skip_and_the_fingerprint_says_so(project, monkeypatch):
    import socket

    with socket.socket() as s:  # nothing listens there: refused at once
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    monkeypatch.setenv("HF_ENDPOINT", f"http://127.0.0.1:{port}")
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    start = time.perf_counter()
    project.run("--claims-allow-download")
    assert time.perf_counter() - start < 30
    report = project.report()
    rows, w = report.claims, report.runner["weights"]
    assert w["available"] is False and f"cannot reach http://127.0.0.1:{port}" in w["reason"]
    c06 = rows["C06"]
    assert c06["outcome"] == "skipped" and "Traceback" not in c06["reason"]
    for part in (
        "not in the Hugging Face cache",
        "--claims-allow-download: cannot reach",
        "--claims-weights DIR",
    ):
        assert part in c06["reason"], part
    assert_every_other_claim_reported(rows, [])


# --- input files named by settings ---------------------------------------------------------------
@pytest.mark.parametrize("option", ["--claims-manuscript", "--claims-listing", "--claims-corpus"])
def test_a_missing_or_folder_input_file_is_a_usage_error(project, option):
    result = project.run(f"{option}=nothere.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*claimcheck: {option} nothere.md: no such file: *nothere.md*"])
    project.mkdir("afolder")
    result = project.run(f"{option}=afolder")
    result.stderr.fnmatch_lines([f"*claimcheck: {option} afolder: is a folder, not a file*"])


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("option", ["--claims-manuscript", "--claims-listing", "--claims-corpus"])
@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_a_device_or_fifo_input_file_is_a_usage_error(project, option, kind):
    """Once a MemoryError (INTERNALERROR) from /dev/zero, or a run blocked forever on a FIFO."""
    path = "/dev/zero"
    if kind == "fifo":
        os.mkfifo(project.path / "chapter.md")
        path = "chapter.md"
    result = project.run(f"{option}={path}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    what = "a character device" if kind == "device" else "a FIFO (named pipe)"
    result.stderr.fnmatch_lines([f"*claimcheck: {option} {path}: {what}, not a regular file*"])
    assert not (project.path / "reports").exists()


def test_a_manuscript_over_the_size_limit_is_a_usage_error(project, monkeypatch):
    from claimcheck import fileio

    monkeypatch.setattr(fileio, "MAX_INPUT_BYTES", 10)
    (project.path / "chapter.md").write_text("读 5 倍 and more text\n", encoding="utf-8")
    result = project.run("--claims-manuscript=chapter.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*chapter.md: cannot read the manuscript: * bytes, over the limit of 10 bytes*"]
    )


def test_the_cli_refuses_a_device_or_fifo_manuscript_and_registry(project, capsys):
    os.mkfifo(project.path / "fifo.md")
    for path in ("/dev/zero", str(project.path / "fifo.md")):
        assert cli(["check-manuscript", path, "--registry", str(project.registry)]) == 2
        assert "not a regular file: claimcheck reads only regular files" in capsys.readouterr().err
        assert cli(["validate", path]) == 1
        assert "not a regular file" in capsys.readouterr().err
        assert cli(["init", path, "--name", "chx", "--claims-dir", str(project.path / "new")]) == 2
        assert "not a regular file" in capsys.readouterr().err


def test_a_manuscript_that_is_not_utf8_is_a_usage_error_naming_the_line(project):
    (project.path / "chapter.md").write_bytes("第一行\n读 5 倍\n".encode() + "写 5 倍\n".encode("gb18030"))
    result = project.run("--claims-manuscript=chapter.md")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*claimcheck: --claims-manuscript chapter.md: *chapter.md: the manuscript is not UTF-8: "
            "line 3, byte 0x*save it as UTF-8*"
        ]
    )


# --- the report folder -----------------------------------------------------------------------------
def test_leftovers_of_a_killed_run_never_break_the_next(project):
    reports = project.mkdir("reports")
    old = reports / ".claims.json.4242.abcdef.tmp"
    old.write_text('{"half": ', encoding="utf-8")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    fresh = reports / ".claims.html.4243.ghijkl.tmp"  # a concurrent run's, still being written
    fresh.write_text("<html>", encoding="utf-8")
    (reports / "claims.json").write_text(
        '{"truncated": ', encoding="utf-8"
    )  # killed mid-write by an old version
    project.run()
    rows = project.report().claims
    assert set(rows) == set(IDS)
    assert not old.exists() and fresh.exists()
    assert [p.name for p in reports.iterdir() if p.name.endswith(".tmp")] == [fresh.name]  # ours leave none
    assert (reports / "claims.html").read_text(encoding="utf-8").rstrip().endswith("</html>")


def test_the_html_report_is_written_atomically(project, monkeypatch):
    from claimcheck import fileio

    written = []
    real = fileio.write_atomic
    monkeypatch.setattr(
        fileio, "write_atomic", lambda path, data, **kw: (written.append(str(path)), real(path, data, **kw))
    )
    project.run()
    assert any(p.endswith("claims.html") for p in written) and any(p.endswith("claims.json") for p in written)


def test_an_unwritable_report_folder_is_a_usage_error_before_any_test(project):
    (project.path / "afile").write_text("x", encoding="utf-8")
    result = project.run("--claims-report-dir", "afile/sub")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*report folder *afile/sub (--claims-report-dir afile/sub) cannot be created*"]
    )
