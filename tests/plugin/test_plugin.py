"""The plugin end to end, with pytester: reports, markers, registry errors, settings."""

import json

import pytest

from claimcheck import fingerprint
from tests.claimkit import claim_toml as claim
from tests.claimkit import claims_project

REGISTRY = (
    '[runners.laptop]\ndescription = "the author\'s laptop"\n'
    + claim("C01")
    + claim("C02", stated="5", unit="x", tolerance=">=10")
    + claim("C03", stated="1023", unit="example", tolerance="exact")
    + claim("C04", stated="99.16", unit="percent", needs='["tok", "weights"]')
    + claim("C05", stated="1", unit="", tolerance="abs:0.1", needs='["gpu"]')
    + claim(
        "C06", stated="98", unit="token/s", tolerance="rel:25%", needs='["time"]', extra='runner = "laptop"'
    )
)

TESTS = """
import pytest

@pytest.mark.claim("C01")
def test_c01(claim):
    claim.check(36864, "B/token")

@pytest.mark.claim("C02")
def test_c02(claim):
    claim.check(4.2)

@pytest.mark.claim("C04")
def test_c04(claim):
    raise AssertionError("must be skipped before it runs")

@pytest.mark.claim("C05")
def test_c05(claim):
    raise AssertionError("must be skipped before it runs")

@pytest.mark.claim("C06")
def test_c06(claim):
    claim.check(13.9)
"""


@pytest.fixture
def project(pytester, monkeypatch):
    monkeypatch.setattr("claimcheck.llm.device.cuda_available", lambda: False)
    return claims_project(pytester, REGISTRY, TESTS, monkeypatch=monkeypatch)


def outcomes(report):
    return {cid: c["outcome"] for cid, c in report.claims.items()}


def test_every_registry_id_in_json_and_html(project):
    result = project.run()
    result.assert_outcomes(passed=1, failed=1, skipped=4)  # C03's placeholder counts as skipped
    report = project.report()
    doc, rows = report.doc, report.claims
    assert outcomes(report) == {
        "C01": "passed",
        "C02": "failed",
        "C03": "not-run",
        "C04": "skipped",
        "C05": "skipped",
        "C06": "skipped",
    }
    assert (
        rows["C01"]["measured"] == 36.0
        and rows["C01"]["stated"] == "36"
        and rows["C01"]["unit"] == "KiB/token"
    )
    assert rows["C03"]["reason"] == "not-run: no test yet"
    assert "pretrained GPT-2 weights" in rows["C04"]["reason"] and "--claims-weights" in rows["C04"]["reason"]
    assert "CUDA GPU" in rows["C05"]["reason"]
    assert "machine-bound" in rows["C06"]["reason"] and rows["C06"]["measured"] == 13.9
    assert "4.2 < 10" in rows["C02"]["reason"]
    assert rows["C05"]["reason"].startswith("needs a CUDA GPU")  # said as pytest's own skip says it
    # why each skip could not check its claim, as a field of its row (the pages never parse the text)
    assert {cid: row.get("cause") for cid, row in rows.items()} == {
        "C01": None,
        "C02": None,
        "C03": None,
        "C04": "weights",
        "C05": "gpu",
        "C06": "machine-bound",
    }
    for key in ("cpu", "cores", "ram_bytes", "gpu", "os", "python", "torch", "transformers", "torch_threads"):
        assert key in doc["runner"]
    assert "hostname" not in json.dumps(doc["runner"]).lower()
    html = report.page()
    for column in ("Claim", "Chapter", "Here", "Bar", "Margin", "Verdict", "Why"):
        assert f">{column}</th>" in html
    for cid in ("C01", "C02", "C03", "C04", "C05", "C06"):
        assert (
            html.count(f'<tbody class="claim" id="claim-claims-{cid}"')
            + html.count(f'<tbody class="claim has-plots" id="claim-claims-{cid}"')
            == 1
        )
    assert "not-run: no test yet" in html and "short by 5.8" in html
    assert 'href="tests.html"' in html  # the test log, for tracebacks and durations
    log = report.page("tests.html")
    assert "test_c02" in log and "Traceback" not in html


def test_failure_message_says_what_by_how_much_where_and_next(project):
    result = project.run()
    result.stdout.fnmatch_lines(
        [
            "*C02 does not hold: a claim*",
            "*chapter:   5 x*",
            "*measured:  4.2×*",
            "*difference: -0.8 x (-16.00%)*",
            "*tolerance: >=10 -> 4.2 < 10 (short by 5.8)*",
            "*hardware:*cores*",
            "*next: *update 'stated' of C02*",
        ]
    )
    # the row's hardware and next step are the result's fields, from where the failure was decided
    report = project.report()
    row, describe = report.claims["C02"], fingerprint.describe(report.runner)
    assert row["hardware"] == describe and row["next_step"].startswith(
        "if the text changed, update 'stated' of C02"
    )
    assert f'<div class="facts">hardware: {describe}</div>' in report.row_html("C02")


def test_machine_bound_enforced_on_its_runner(project):
    project.run("--claims-runner", "laptop")
    assert outcomes(project.report())["C06"] == "failed"  # 13.9 vs 98 +-25%


def test_misspelled_field_one_error_others_reported(project):
    broken = REGISTRY.replace(
        'id = "C02"\ntitle = "a claim"\nstated = "5"\nunit = "x"\nlocator = "loc C02"\ntolerance',
        'id = "C02"\ntitle = "a claim"\nstated = "5"\nunit = "x"\nlocator = "loc C02"\ntolerence',
    )
    assert broken != REGISTRY
    project.write("claims.toml", "[chapter]\n" + broken)  # a registry of the run has one
    result = project.run()
    result.stdout.fnmatch_lines(
        [
            "*registry error: *claims.toml: claim C02: field 'tolerence': unknown field (did you mean 'tolerance'?)*"
        ]
    )
    report = project.report()
    o = outcomes(report)
    assert o["C02"] == "error" and "tolerence" in report.claims["C02"]["reason"]
    assert o["C01"] == "passed" and o["C03"] == "not-run" and len(o) == 6
    assert len(report["registries"][0]["issues"]) == 1


def test_k_selects_and_json_keeps_every_id(project):
    project.write(
        "test_other.py",
        """
        import pytest

        @pytest.mark.claim("C01")
        def test_named_without_the_id(claim):
            claim.check(36, "KiB/token")
    """,
    )
    result = project.run("-k", "C01")
    result.assert_outcomes(passed=2)
    report = project.report()
    assert outcomes(report)["C01"] == "passed"
    rest = [c for c in report["claims"] if c["id"] != "C01"]
    assert len(rest) == 5 and all(c["outcome"] == "not-run" and "not selected" in c["reason"] for c in rest)


def test_m_deselects_by_registry_needs(project):
    result = project.run("-m", "not pretrained and not gpu and not timing")
    result.assert_outcomes(passed=1, failed=1, skipped=1)


def test_unknown_claim_id_errors_with_suggestion(project):
    project.write(
        "test_typo.py",
        """
        import pytest

        @pytest.mark.claim("C010")
        def test_typo(claim):
            pass
    """,
    )
    result = project.runpytest("claims/test_typo.py", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no claim with id 'C010' (did you mean C01?)*"])


def test_xfail_in_a_claim_test_is_not_a_near_tie(project):
    """A near-tie is the recorder's verdict (check_comparison); pytest.xfail in a claim test is an
    error (tests/plugin/test_xfail.py has the cases)."""
    project.write(
        "test_tie.py",
        """
        import pytest

        @pytest.mark.claim("C03")
        def test_tie(claim):
            pytest.xfail("first difference at generated position 3: margin 2e-06 (near-tie)")
    """,
    )
    project.run()
    row = project.report().claims["C03"]
    assert row["outcome"] == "error" and "a claim test cannot be xfail: first difference" in row["reason"]


@pytest.mark.parametrize(
    "how, expected, source",
    [
        ("default", "standard", "default"),
        ("ini", "quick", "ini setting claims_profile"),
        ("env", "full", "environment variable CLAIMCHECK_PROFILE"),
        ("cli", "quick", "--claims-profile"),
    ],
)
def test_profile_precedence(project, monkeypatch, how, expected, source):
    args = ["-k", "C01"]
    if how in ("ini", "env", "cli"):
        project.makeini("[pytest]\nclaims_profile = quick\n")
    if how in ("env", "cli"):
        monkeypatch.setenv("CLAIMCHECK_PROFILE", "full")
    if how == "cli":
        args += ["--claims-profile", "quick"]
    project.run(*args)
    doc = project.report().doc
    assert (
        doc["settings"]["size_profile"] == expected and doc["settings"]["sources"]["size_profile"] == source
    )


def test_bad_profile_is_a_clear_usage_error(project, monkeypatch):
    result = project.runpytest("claims", "--claims-profile", "fast")
    assert result.ret != 0
    result.stderr.fnmatch_lines(
        ["*--claims-profile fast: unknown size profile 'fast'*quick, standard, full*"]
    )
    monkeypatch.setenv("CLAIMCHECK_PROFILE", "fast")
    result = project.runpytest("claims")
    result.stderr.fnmatch_lines(["*CLAIMCHECK_PROFILE=fast: unknown size profile 'fast'*"])


def test_non_claims_run_writes_no_report(pytester):
    pytester.makepyfile("def test_plain():\n    assert 1 + 1 == 2\n")
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=1)
    assert not (pytester.path / "reports").exists()


def test_plots_are_embedded_in_the_html(project):
    project.write(
        "test_plot.py",
        """
        import pytest
        from claimcheck.llm import plots

        @pytest.mark.claim("C03")
        def test_plot(claim):
            claim.plot(plots.read_write_plot([100.0, 120.0], [10.0, 11.0]), "read vs write")
            claim.check(1023, "example")
    """,
    )
    project.run("-k", "C03")
    report = project.report()
    assert "image/png;base64,iVBORw0KGgo" in report.page()  # the PNG itself, embedded
    assert report.claims["C03"]["outcome"] == "passed"


def test_registry_errors_survive_k_and_fail_the_run(project):
    broken = REGISTRY.replace(
        'id = "C02"\ntitle = "a claim"\nstated = "5"\nunit = "x"\nlocator = "loc C02"\ntolerance',
        'id = "C02"\ntitle = "a claim"\nstated = "5"\nunit = "x"\nlocator = "loc C02"\ntolerence',
    )
    project.write("claims.toml", "[chapter]\n" + broken)  # a registry of the run has one
    result = project.run("-k", "C01")
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*registry error: *claim C02: field 'tolerence'*"])


def test_a_claim_test_without_a_verdict_fails(project):
    project.write(
        "test_empty.py",
        """
        import pytest

        @pytest.mark.claim("C03")
        def test_measures_nothing(claim):
            pass
    """,
    )
    result = project.runpytest("claims/test_empty.py", "-p", "no:cacheprovider")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*passed without a verdict*"])


def test_broken_claim_errors_before_session_fixtures(project):
    project.write(
        "test_costly.py",
        """
        import pytest

        @pytest.fixture(scope="session")
        def costly():
            raise AssertionError("the session fixture must not be set up for a broken claim")

        @pytest.mark.claim("C99")
        def test_unknown(costly, claim):
            pass
    """,
    )
    result = project.runpytest("claims/test_costly.py", "-p", "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*no claim with id 'C99'*"])
    assert "must not be set up" not in result.stdout.str()


def test_unwritable_report_folder_is_a_usage_error_before_any_test(project):
    (project.path / "reports" / "claims.json").mkdir(parents=True)
    result = project.run()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*claims.json is a folder*"])
    (project.path / "afile").write_text("x")
    result = project.run("--claims-report-dir", "afile/sub")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*cannot be created*"])


def test_a_skip_with_an_unknown_cause_is_refused_by_name():
    from claimcheck.plugin.phases import Unchecked
    from claimcheck.plugin.state import skip_here

    known = r"a skip's cause is one of weights, gpu, machine-bound, external, listing, other"
    with pytest.raises(ValueError, match=r"unknown cause 'gpus' of a skip; " + known):
        skip_here("no GPU here", "gpus")
    with pytest.raises(ValueError, match=r"unknown cause 'weight' of a skip"):
        raise Unchecked("no weights here", "weight", _use_item_location=False)  # as a fixture raises it
    with pytest.raises(Unchecked):
        skip_here("no GPU here", "gpu")
    # the claim fixture's own skip refuses it too, before it records anything
    from types import SimpleNamespace

    from claimcheck.recorder import ClaimRecorder

    claim = SimpleNamespace(id="C01", stated="1", unit="s", tolerance_text="exact")
    item = SimpleNamespace(stash={})
    with pytest.raises(ValueError, match=r"unknown cause 'GPU' of a skip; " + known):
        ClaimRecorder(claim, item, None, "test hardware").skip("no GPU here", cause="GPU")  # type: ignore[arg-type]
    assert item.stash == {}
    with pytest.raises(pytest.skip.Exception):
        ClaimRecorder(claim, item, None, "test hardware").skip("no GPU here", cause="gpu")  # type: ignore[arg-type]
