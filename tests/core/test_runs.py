"""Results of several runs: loading claims.json files, the claim x runner matrix, the run-to-run diff.

The inputs are small hand-written claims.json documents (the shape claimcheck.report writes), plus
one end-to-end case that merges files written by real pytester runs.
"""

import json

import pytest

from claimcheck.cli import main
from claimcheck.pages import matrix_page
from claimcheck.results import ClaimEntry
from claimcheck.results import read_document as load_result
from claimcheck.runs import (
    ResultFileError,
    counts,
    diff,
    load_results,
    matrix_json,
    merge,
    outcome_change_kind,
    run_labels,
    value_move,
)
from claimcheck.tolerance import ToleranceError, parse_tolerance
from tests.claimkit import claim_toml, claims_project

CPU = {
    "cpu": "AMD EPYC",
    "cores": 2,
    "ram_bytes": 24 * 2**30,
    "gpu": None,
    "os": "Linux",
    "machine": "x86_64",
    "python": "3.11.7",
    "torch": "2.13.0+cpu",
    "transformers": "5.24.0",
    "torch_threads": 2,
    "runner_profile": None,
}
GPU = dict(
    CPU,
    cpu="Intel Xeon",
    cores=16,
    torch="2.13.0+cu126",
    weights_sha256="9f86d081884c7d65",
    gpu={
        "name": "NVIDIA H100",
        "memory_bytes": 80 * 2**30,
        "driver": "550.54.15",
        "cuda": "12.6",
        "count": 1,
    },
)


def entry(cid, outcome, measured=None, stated="36", unit="KiB/token", tolerance="printed", reason=""):
    return {
        "id": cid,
        "outcome": outcome,
        "title": f"claim {cid}",
        "stated": stated,
        "measured": measured,
        "unit": unit,
        "tolerance": tolerance,
        "reason": reason,
    }


def doc(*claims, runner=CPU, profile="quick"):
    return {
        "schema": 1,
        "generated": "2026-11-30T12:00:00Z",
        "runner": runner,
        "settings": {"profile": profile, "runner": None},
        "claims": list(claims),
    }


def write(path, document):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


@pytest.fixture
def three(tmp_path):
    """Two complete runs (CPU passes C05, GPU fails it) and a third without C02."""
    a = write(
        tmp_path / "claims-ubuntu" / "claims.json",
        doc(
            entry("C01", "passed", 36.0),
            entry("C02", "skipped", reason="needs a CUDA GPU"),
            entry("C05", "passed", 17.2, stated="60", unit="x", tolerance=">=10"),
            entry("C07", "not-run", reason="no test yet"),
        ),
    )
    b = write(
        tmp_path / "claims-gpu" / "claims.json",
        doc(
            entry("C01", "passed", 36.0),
            entry("C02", "passed", 61.0, stated="", unit="x", tolerance=">=10"),
            entry(
                "C05",
                "failed",
                8.1,
                stated="60",
                unit="x",
                tolerance=">=10",
                reason="8.1 < 10 (short by 1.9)",
            ),
            entry("C07", "not-run"),
            runner=GPU,
        ),
    )
    c = write(
        tmp_path / "macos.json",
        doc(
            entry("C01", "passed", 36.0),
            entry("C05", "passed", 25.0, stated="60", unit="x", tolerance=">=10"),
            entry("C07", "not-run"),
        ),
    )
    return a, b, c


# --- loading --------------------------------------------------------------------------------------
def test_load_result_keeps_file_order_and_fingerprint(three):
    run = load_result(three[1])
    assert list(run.by_key()) == ["C01", "C02", "C05", "C07"]
    assert run.runner["gpu"]["name"] == "NVIDIA H100" and run.settings["profile"] == "quick"
    assert counts(run) == {"passed": 2, "failed": 1, "not-run": 1}
    assert run.issues == []


@pytest.mark.parametrize(
    "text, message",
    [
        ("", "is empty"),
        ('{"runner": {}, "claims": [{"id": "C01", "outcome": "pas', "not valid JSON (Unterminated string"),
        ("[1, 2]", "top level is a JSON list"),
        ('{"runner": {}}', "field 'claims' is missing"),
        ('{"runner": {}, "claims": {}}', "field 'claims' is a dict, expected a list"),
        ('{"runner": [], "claims": []}', "field 'runner' is a list"),
        (b"\xff\xfe{", "cannot be read"),
    ],
)
def test_unusable_file_one_clear_error_naming_it(tmp_path, text, message):
    bad = tmp_path / "bad.json"
    (bad.write_bytes if isinstance(text, bytes) else bad.write_text)(text)
    with pytest.raises(ResultFileError) as info:
        load_result(bad)
    assert str(info.value).startswith(f"{bad}: ") and message in str(info.value)


def test_truncated_file_says_so(tmp_path, three):
    cut = tmp_path / "cut.json"
    cut.write_text(three[0].read_text()[:-40])
    with pytest.raises(ResultFileError, match="ends early: truncated"):
        load_result(cut)


def test_missing_file(tmp_path):
    with pytest.raises(ResultFileError, match="no such file"):
        load_result(tmp_path / "nope.json")


def test_bad_entries_name_file_id_and_field_and_lose_nothing_else(tmp_path):
    path = write(
        tmp_path / "r.json",
        doc(
            entry("C01", "passed", 36.0),
            {"outcome": "passed"},
            entry("C02", "pased", 1.0),
            entry("C03", "passed", {"v": 1}),
            entry("C01", "failed"),
            "junk",
            entry("C04", "passed", 2.0, tolerance=5),
        ),
    )
    run = load_result(path)
    claims = run.by_key()
    assert list(claims) == ["C01", "C02", "C03", "C04"]
    assert claims["C01"].outcome == "passed"  # the first of the duplicates
    assert claims["C02"].outcome == "invalid" and claims["C03"].measured is None
    assert run.issues == [
        f"{path}: claims[1]: field 'id' is missing or not a string (None); entry skipped",
        f"{path}: claim C02: field 'outcome' is 'pased', expected one of passed, failed, inconclusive, near-tie, error, skipped, not-run",
        f"{path}: claim C03: field 'measured' is {{'v': 1}}, expected a number, [lo, hi] or null; ignored",
        f"{path}: claim C01: field 'id' appears twice (claims[4]); the first entry is kept",
        f"{path}: claims[5]: entry is a str, expected an object; skipped",
        f"{path}: claim C04: field 'tolerance' is 5, expected a string; ignored",
    ]


def test_load_results_goes_on_after_a_bad_file_and_labels_runs(tmp_path, three):
    bad = tmp_path / "broken" / "claims.json"
    bad.parent.mkdir()
    bad.write_text("{")
    runs, errors = load_results([three[0], bad, three[1], three[2], three[0]])
    assert run_labels(runs) == ["claims-ubuntu", "claims-gpu", "macos", "claims-ubuntu (2)"]
    assert merge(runs).labels == run_labels(runs)
    assert len(errors) == 1 and errors[0].path == str(bad)


# --- the matrix -----------------------------------------------------------------------------------
def test_merge_never_drops_a_claim_and_marks_absent_as_not_run(three):
    runs, errors = load_results(three)
    m = merge(runs, errors)
    assert [r.id for r in m.rows] == ["C01", "C02", "C05", "C07"]
    c02 = next(r for r in m.rows if r.id == "C02")
    assert [c.outcome for c in c02.cells] == ["skipped", "passed", "not-run"]
    assert c02.cells[2].reason == f"not in this results file ({three[2]})"
    assert m.split_ids == ["C05"]  # passed on ubuntu and macos, failed on the GPU


def test_merge_keeps_file_order_for_ids_only_in_later_files(tmp_path):
    a = write(tmp_path / "a.json", doc(entry("C01", "passed"), entry("C05", "passed")))
    b = write(
        tmp_path / "b.json",
        doc(entry("C01", "passed"), entry("C03", "passed"), entry("C05", "passed"), entry("C09", "passed")),
    )
    runs, _ = load_results([a, b])
    assert [r.id for r in merge(runs).rows] == ["C01", "C03", "C05", "C09"]


def test_split_needs_a_pass_and_a_failure():
    from claimcheck.runs import MatrixRow

    def row(*outcomes):
        return MatrixRow("C1", cells=[ClaimEntry("C1", "C1", outcome=o) for o in outcomes])

    assert row("passed", "error").split
    assert not row("passed", "skipped", "not-run", "near-tie").split
    assert not row("failed", "failed").split


def test_merge_notes_registry_fields_that_differ(tmp_path):
    a = write(tmp_path / "a.json", doc(entry("C05", "passed", 17.0, stated="60", tolerance=">=10")))
    b = write(tmp_path / "b.json", doc(entry("C05", "passed", 17.0, stated="58", tolerance=">=10")))
    runs, _ = load_results([a, b])
    assert merge(runs).rows[0].differs == ["stated: 58 | 60"]


def test_html_is_self_contained_with_every_claim_fingerprint_and_errors(three, tmp_path):
    runs, errors = load_results([*three, tmp_path / "lost.json"])
    page = matrix_page(merge(runs, errors))
    for cid in ("C01", "C02", "C05", "C07"):
        assert page.count(f'<tr id="claim-{cid}"') == 1
    assert '<tr id="claim-C05" class="split differs">' in page and 'href="#claim-C05"' in page
    assert '<span class="badge o-not-run">not run</span>' in page and "not in this results file" in page
    assert "GPU: NVIDIA H100, 80 GiB, driver 550.54.15, CUDA 12.6" in page
    assert "CPU: Intel Xeon (16 cores, 24 GiB RAM)" in page and "torch 2.13.0+cu126" in page
    assert "weights_sha256: 9f86d081884c7d65" in page  # an extra fingerprint field is shown too
    assert "GPU: none" in page and "profile: quick" in page
    assert f"{tmp_path / 'lost.json'}: no such file" in page
    assert "8.1 &lt; 10 (short by 1.9)" in page  # escaped
    for outside in ("<script", "<link", "src=", "http://", "https://"):
        assert outside not in page


def test_matrix_json_for_machines(three):
    runs, errors = load_results(three)
    j = matrix_json(merge(runs, errors))
    assert [r["label"] for r in j["runners"]] == ["claims-ubuntu", "claims-gpu", "macos"]
    c02 = next(c for c in j["claims"] if c["id"] == "C02")
    assert c02["cells"]["macos"]["outcome"] == "not-run" and c02["cells"]["claims-gpu"]["measured"] == 61.0
    assert j["split"] == ["C05"] and j["errors"] == []
    json.dumps(j)  # serialisable


# --- diff -----------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "old, new, kind",
    [
        ("passed", "failed", "regression"),
        ("passed", "error", "regression"),
        ("near-tie", "failed", "regression"),
        ("failed", "passed", "improved"),
        ("error", "near-tie", "improved"),
        ("near-tie", "passed", "improved"),
        ("passed", "near-tie", "changed"),
        ("passed", "skipped", "changed"),
        ("skipped", "failed", "changed"),
        ("not-run", "passed", "changed"),
        ("failed", "error", "changed"),
    ],
)
def test_outcome_change_kind(old, new, kind):
    assert outcome_change_kind(old, new) == kind


@pytest.mark.parametrize(
    "tolerance, stated, old, limit",
    [
        ("exact", "36864", 36864.0, 0.0),
        ("printed", "99.16", 99.16, 0.005),  # half a unit in the last printed digit
        ("printed", "36", 36.0, 0.5),
        ("abs:1e-4", "0", 0.0, 1e-4),
        ("rel:25%", "5947", 100.0, 25.0),  # relative to the old measurement, not the chapter's 5947
        ("range:0.98..1.02", "", 1.0, 0.02),  # half the range's width
        (">=10", "60", 17.2, 4.3),  # one-sided bar: 25% of the old value
        ("<=1e-5", "", 2e-6, 5e-7),
    ],
)
def test_move_limit_per_tolerance_kind(tolerance, stated, old, limit):
    got, rule = parse_tolerance(tolerance).move_limit(old, stated=stated, bound_move=0.25)
    assert got == pytest.approx(limit, rel=1e-12, abs=1e-18) and rule


def test_move_limit_rejects_a_bad_tolerance():
    with pytest.raises(ToleranceError, match="'rel:five'"):
        parse_tolerance("rel:five").move_limit(1.0, stated="1", bound_move=0.25)


def value_move_of(old: dict, new: dict, **kw):
    return value_move(ClaimEntry.from_dict(old), ClaimEntry.from_dict(new), **kw)


def test_value_move():
    c05 = dict(entry("C05", "passed", 17.2, stated="60", unit="x", tolerance=">=10"))
    assert value_move_of(c05, dict(c05, measured=20.0)) is None  # +16%: within 25%
    moved = value_move_of(c05, dict(c05, measured=12.0))  # -30%, still >= 10
    assert moved.startswith(
        "17.2× -> 12×: moved by 5.2 (30.2%), >=10 is a one-sided bar"
    )  # display.format_value
    assert value_move_of(c05, dict(c05, measured=12.0), bound_move=0.5) is None
    p = entry("C30", "passed", [0.0877, 0.1278], stated="0.10", unit="bit")
    assert value_move_of(p, dict(p, measured=[0.0879, 0.1276])) is None  # ends moved by 2e-4 <= 0.005
    assert "moved by 0.006" in value_move_of(p, dict(p, measured=[0.0937, 0.1278]))
    assert value_move_of(p, dict(p, unit="nat")).startswith("unit changed from 'bit' to 'nat'")
    assert value_move_of(p, dict(p, measured=None)) is None
    assert value_move_of(dict(p, measured="inf"), dict(p, measured=1.0)) == "inf bits -> 1 bit"


def test_diff_lists_outcome_changes_moves_added_removed(three):
    d = diff(load_result(three[0]), load_result(three[1]))
    got = [(c.id, c.kind, c.text) for c in d.changes]
    assert got == [
        ("C02", "changed", "skipped -> passed"),
        ("C05", "regression", "passed -> failed: 8.1 < 10 (short by 1.9)"),
        (
            "C05",
            "moved",
            "17.2× -> 8.1×: moved by 9.1 (52.9%), >=10 is a one-sided bar: more than 25% of the "
            "old value (--bound-move)",
        ),
    ]
    assert [c.id for c in d.regressions] == ["C05"]
    assert "runner gpu: None -> NVIDIA H100" in d.runner_notes
    d2 = diff(load_result(three[0]), load_result(three[2]))
    assert [(c.id, c.kind) for c in d2.changes] == [("C02", "removed"), ("C05", "moved")]


def test_diff_reports_an_unusable_tolerance_and_compares_the_rest(tmp_path):
    a = write(
        tmp_path / "a.json", doc(entry("C01", "passed", 1.0, tolerance="rel:five"), entry("C02", "passed"))
    )
    b = write(
        tmp_path / "b.json", doc(entry("C01", "passed", 2.0, tolerance="rel:five"), entry("C02", "failed"))
    )
    d = diff(load_result(a), load_result(b))
    assert len(d.issues) == 1
    assert d.issues[0].startswith(f"{b}: claim C01: field 'tolerance': bad tolerance 'rel:five'")
    assert d.issues[0].endswith("; values not compared")
    assert [(c.id, c.kind) for c in d.changes] == [("C02", "regression")]


# --- command line ---------------------------------------------------------------------------------
def test_cli_merge_three_files_and_a_malformed_fourth(three, tmp_path, capsys):
    out = tmp_path / "out" / "matrix.html"
    assert main(["merge", *map(str, three), "-o", str(out), "--json", str(tmp_path / "m.json")]) == 0
    page = out.read_text(encoding="utf-8")
    assert (
        page.count('<td class="cell o-not-run"') == 4
    )  # C02 absent from macos.json + C07 not-run in three files
    err = capsys.readouterr().err
    assert "4 claims x 3 runners" in err and "fail on another: C05" in err

    bad = tmp_path / "gpu2.json"
    bad.write_text(three[1].read_text()[:200])
    assert main(["merge", *map(str, three), str(bad), "-o", str(out)]) == 1  # page written, exit 1
    err = capsys.readouterr().err
    assert err.count("error: ") == 1 and f"error: {bad}: not valid JSON" in err
    page = out.read_text(encoding="utf-8")
    assert "Input problems" in page and str(bad) in page
    for cid in ("C01", "C02", "C05", "C07"):
        assert page.count(f'<tr id="claim-{cid}"') == 1
    assert json.loads((tmp_path / "m.json").read_text())["split"] == ["C05"]


def test_cli_merge_nothing_readable(tmp_path, capsys):
    out = tmp_path / "m.html"
    assert main(["merge", str(tmp_path / "a.json"), "-o", str(out)]) == 2
    assert not out.exists() and "no readable results file" in capsys.readouterr().err


def test_cli_diff_exit_codes(three, tmp_path, capsys):
    a, b, c = map(str, three)
    assert main(["diff", a, b]) == 1  # C05 passed -> failed
    out = capsys.readouterr().out
    assert "REGRESSION C05  passed -> failed" in out and "summary: 1 changed, 1 regression, 1 moved" in out
    assert main(["diff", b, a]) == 0  # an improvement is no regression
    assert main(["diff", a, c]) == 0  # C05 moved 17.2 -> 25 (+45%): listed, not gating...
    assert main(["diff", a, c, "--fail-on-move"]) == 1  # ...unless asked
    assert main(["diff", a, c, "--bound-move", "50%", "--fail-on-move"]) == 0
    assert main(["diff", a, a]) == 0 and "summary: no changes" in capsys.readouterr().out
    assert main(["diff", a, str(tmp_path / "missing.json")]) == 2
    assert "missing.json: no such file" in capsys.readouterr().err


def test_cli_diff_json(three, tmp_path):
    out = tmp_path / "d.json"
    assert main(["diff", str(three[0]), str(three[1]), "--json", str(out)]) == 1
    d = json.loads(out.read_text())
    assert [(c["id"], c["kind"], c["old"], c["new"]) for c in d["changes"]] == [
        ("C02", "changed", "skipped", "passed"),
        ("C05", "regression", "passed", "failed"),
        ("C05", "moved", "passed", "failed"),
    ]


def test_cli_diff_bad_entry_is_trouble(tmp_path, three):
    bad = write(tmp_path / "bad.json", doc(entry("C01", "passed", 36.0), entry("C05", "pased", 17.2)))
    assert main(["diff", str(three[0]), str(bad)]) == 2


def test_cli_bad_bound_move(three, capsys):
    with pytest.raises(SystemExit) as info:
        main(["diff", str(three[0]), str(three[1]), "--bound-move", "lots"])
    assert (
        info.value.code == 2
        and "expected a fraction such as 0.25 or 25%, got 'lots'" in capsys.readouterr().err
    )


# --- end to end: files written by real runs -------------------------------------------------------
REAL_REGISTRY = claim_toml("C01", title="ratio", stated="60", unit="x", tolerance=">=10") + claim_toml(
    "C02", title="bytes"
)

REAL_TESTS = """
import os
import pytest

@pytest.mark.claim("C01")
def test_c01(claim):
    claim.check(float(os.environ["RATIO"]))

@pytest.mark.claim("C02")
def test_c02(claim):
    claim.check(36864, "B/token")
"""


def test_merge_and_diff_files_written_by_real_runs(pytester, monkeypatch, tmp_path, capsys):
    project = claims_project(pytester, REAL_REGISTRY, REAL_TESTS, monkeypatch=monkeypatch)
    files = []
    for name, ratio in (("fast", "17.2"), ("slow", "8.0")):
        monkeypatch.setenv("RATIO", ratio)
        project.run("--claims-report-dir", f"runs/{name}")
        files.append(str(pytester.path / "runs" / name / "claims.json"))
    assert main(["diff", *files]) == 1
    assert "REGRESSION claims:C01  passed -> failed" in capsys.readouterr().out
    out = tmp_path / "m.html"
    assert main(["merge", *files, "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    assert (
        '<tr id="claim-claims-C01" class="split differs">' in page
        and "17.2×" in page
        and "36 KiB/token" in page
    )


def test_diff_a_passing_claim_that_vanished_is_a_regression(tmp_path):
    a = write(tmp_path / "a.json", doc(entry("C01", "passed", 1.0), entry("C02", "passed")))
    b = write(tmp_path / "b.json", doc(entry("C01", "passed", 1.0)))
    d = diff(load_result(a), load_result(b))
    assert [(c.id, c.kind) for c in d.changes] == [("C02", "regression")]
    assert [c.id for c in d.regressions] == ["C02"]


def test_details_and_plots_of_the_wrong_type_are_dropped_and_every_page_still_renders(tmp_path, capsys):
    bad = entry("C05", "passed", 21.0)
    bad["details"], bad["plots"] = "ratio 21", {"png": "x"}
    path = write(tmp_path / "claims.json", doc(entry("C01", "passed", 36.0), bad))
    run = load_result(path)
    assert run.by_key()["C05"].details == {} and run.by_key()["C05"].plots == []
    assert run.issues == [
        f"{path}: claim C05: field 'details' is a str, expected an object; ignored",
        f"{path}: claim C05: field 'plots' is a dict, expected a list; ignored",
    ]
    # written, and the dropped fields make it exit 2 (issue 26: a malformed field is a named error)
    assert main(["summary", str(path)]) == 2
    assert "C05" in capsys.readouterr().out
    assert main(["summary", str(path), "--lenient"]) == 0
    capsys.readouterr()
    assert (
        main(["report", str(path), "--output", str(tmp_path / "claims.html")]) == 2
    )  # rendered, with the errors named
    err = capsys.readouterr().err
    assert "field 'details' is a str" in err and "claims.html" in err
