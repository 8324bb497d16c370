"""The results file as one typed document (claimcheck.results), and a results file as untrusted
input (issue 26, item 5): report, merge, summary and diff read no file outside the results file's
folder, render only http(s) or relative links, and name every malformed field (file, claim key,
field) with exit 2, never a traceback."""

import json
import os

import pytest

from claimcheck.cli import main
from claimcheck.pages.words import deselected_words
from claimcheck.results import ClaimEntry, ClaimsDoc, read_document, safe_link


def entry(cid="C01", outcome="passed", **kw):
    return {
        "key": f"ch15:{cid}",
        "chapter": "ch15",
        "id": cid,
        "outcome": outcome,
        "title": f"claim {cid}",
        "stated": "36",
        "measured": 36.0,
        "measured_display": "36 KiB/token",
        "unit": "KiB/token",
        "tolerance": "printed",
        "reason": "",
        "details": {},
        "tests": [f"claims/ch15/test_x.py::test_{cid}"],
        "duration_s": 0.4,
        "selected": True,
        "drifted": False,
        "locations": [{"test": "t", "file": "claims/ch15/test_x.py", "line": 10}],
        "registry_line": 12,
        "plots": [],
        **kw,
    }


def write(folder, *claims, **top):
    folder.mkdir(parents=True, exist_ok=True)
    doc = {
        "schema": 2,
        "generated": "2026-12-01T10:00:00Z",
        "runner": {"cpu": "x"},
        "settings": {"size_profile": "quick"},
        "chapters": [{"id": "ch15", "title": "Chapter 15", "registry": "claims/ch15/claims.toml"}],
        "registries": [
            {
                "path": "claims/ch15/claims.toml",
                "chapter": {},
                "chapter_id": "ch15",
                "runners": {},
                "issues": [],
            }
        ],
        "claims": list(claims) or [entry()],
        **top,
    }
    path = folder / "claims.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


# --- one typed document ----------------------------------------------------------------------
def test_a_document_reads_into_typed_entries_and_writes_back_the_same_json(tmp_path):
    raw = json.loads(write(tmp_path, entry(), entry("C02", carried={"from": "T1", "file": "x"})).read_text())
    doc = read_document(tmp_path / "claims.json")
    assert isinstance(doc, ClaimsDoc) and doc.issues == []
    c01, c02 = doc.claims
    assert isinstance(c01, ClaimEntry) and c01.key == "ch15:C01" and c01.duration_s == 0.4
    assert c02.carried is not None and c02.carried.from_ == "T1" and not c02.unselected
    back = doc.to_json()
    for name in ("schema", "generated", "runner", "settings", "chapters", "registries"):
        assert back[name] == raw[name], name
    for written, read in zip(back["claims"], raw["claims"]):  # every field read is written back as read
        assert {k: written[k] for k in read} == read


def test_a_result_travels_as_json_and_back_the_same():
    result = ClaimEntry(
        "ch15:C18",
        "C18",
        stated="36864",
        unit="B/token",
        tolerance="rel 1%",
        measured=36864.0,
        verdict="passed",
    )
    sent = json.loads(json.dumps(result.sent()))  # what an xdist worker sends
    assert ClaimEntry.received(sent) == result and "verdict_reason" not in sent  # None fields left out
    with pytest.raises(ValueError, match="record"):
        ClaimEntry.received({"key": "C18", "id": "C18", "record": {}})  # a field this version does not know


def test_a_later_result_of_a_claim_adds_to_the_earlier_one():
    measured = ClaimEntry(
        "C18", "C18", measured=1.0, verdict="failed", verdict_reason="short", details={"device": "cpu"}
    )
    drift = ClaimEntry("C18", "C18", stated="2", details={"drift": {"status": "ok"}})
    merged = measured.merged(drift)
    assert (merged.stated, merged.measured, merged.verdict_reason) == (
        "2",
        1.0,
        "short",
    )  # None does not erase
    assert merged.details == {"device": "cpu", "drift": {"status": "ok"}}


def test_unknown_keys_are_kept_as_read():
    e = ClaimEntry.from_dict(entry(model="smollm2"))
    assert e.model == "smollm2" and e.to_json()["model"] == "smollm2"


def test_the_model_is_the_extra_keys_else_the_lanes_name():
    assert ClaimEntry.from_dict(entry(details={"model": {"name": "smollm2"}})).model == "smollm2"
    assert ClaimEntry.from_dict(entry(details={"model": "not an object"})).model == ""
    assert ClaimEntry.from_dict(entry()).model == ""


def test_timing_verdicts_of_older_files_read_as_outcome_words(tmp_path):
    forms = {
        "conditions": {"a": {"verdict": "pass"}, "b": "junk"},
        "exact": {"x": {"verdict": "machine-bound"}},
    }
    doc = read_document(write(tmp_path, entry(details=forms), entry("C02", details="junk")))
    assert doc.claims[0].details["conditions"] == {"a": {"verdict": "passed"}, "b": "junk"}
    assert doc.claims[0].details["exact"] == {"x": {"verdict": "skipped"}}


def test_a_malformed_field_of_a_deselected_group_is_an_issue_and_dropped(tmp_path):
    # the pages count a group's tests with int(): a string there used to stop the whole claims page
    group = {"kind": "lane", "tests": "xxx", "claims": ["ch15:C31", 3], "why": "asked for", "run": "pytest"}
    doc = read_document(write(tmp_path, entry(), deselected=[group, "junk"]))
    assert doc.deselected == [{"kind": "lane", "why": "asked for", "run": "pytest"}]
    assert [i.split(": ", 1)[1] for i in doc.issues] == [
        "field 'deselected[1]' is a str, expected an object; ignored",
        "field 'deselected[0].tests' is 'xxx', expected a non-negative number; ignored",
        "field 'deselected[0].claims' is a list, expected a list of strings; ignored",
    ]
    assert deselected_words(doc.deselected[0]) == ("0 tests deselected: asked for.", "pytest")


def test_a_verdict_that_is_no_word_is_read_as_it_is(tmp_path):
    # a list or an object is no verdict word: the file is read, not refused with a TypeError
    forms = {"conditions": {"a": {"verdict": []}}, "exact": {"x": {"verdict": {"v": 1}}, "y": {"verdict": 3}}}
    doc = read_document(write(tmp_path, entry(details=forms)))
    assert doc.claims[0].details == forms and doc.claims[0].outcome == "passed"


def test_from_dict_names_the_malformed_field():
    with pytest.raises(ValueError, match="claim ch15:C01: field 'duration_s' is 'slow'"):
        ClaimEntry.from_dict(entry(duration_s="slow"))


# --- malformed fields: named, dropped, the rest kept ------------------------------------------------
@pytest.mark.parametrize(
    "bad, words",
    [
        (
            {"duration_s": "slow"},
            "claim ch15:C01: field 'duration_s' is 'slow', expected a non-negative number",
        ),
        ({"tests": 5}, "claim ch15:C01: field 'tests' is 5, expected a list of strings"),
        ({"registry_line": "12"}, "claim ch15:C01: field 'registry_line' is '12', expected a line number"),
        (
            {"locations": [{"test": "t", "file": "f.py", "line": "x"}]},
            "claim ch15:C01: field 'locations[0].line' is 'x', expected a line number",
        ),
        ({"plots": [{"name": "p", "file": "/etc/passwd"}]}, "field 'plots[0].file' is '/etc/passwd'"),
        ({"plots": [{"name": "p", "file": "../../x.png"}]}, "field 'plots[0].file' is '../../x.png'"),
        ({"selected": "yes"}, "claim ch15:C01: field 'selected' is 'yes', expected true or false"),
        ({"carried": "T1"}, "claim ch15:C01: field 'carried' is a str, expected an object"),
    ],
)
def test_a_malformed_entry_field_is_named_and_dropped(tmp_path, bad, words):
    path = write(tmp_path, entry(**bad), entry("C02"))
    doc = read_document(path)
    assert len(doc.issues) == 1 and doc.issues[0].startswith(f"{path}: ") and words in doc.issues[0]
    assert [e.key for e in doc.claims] == ["ch15:C01", "ch15:C02"]  # nothing else lost


@pytest.mark.parametrize(
    "top, words",
    [
        ({"selection": {"partial": True, "selected": 5}}, "field 'selection.selected' is 5"),
        ({"wall_s": "long"}, "field 'wall_s' is 'long'"),
        ({"test_log": "javascript:alert(1)"}, "field 'test_log' is 'javascript:alert(1)'"),
        ({"manuscripts": [{"path": "m.md", "audit": {"unbound_numbers": [{"line": "7"}]}}]}, "line' is '7'"),
        ({"registries": [{"path": "r.toml", "problems": [{"message": "m", "line": 1.5}]}]}, "line' is 1.5"),
    ],
)
def test_a_malformed_document_field_is_named(tmp_path, top, words):
    doc = read_document(write(tmp_path, **top))
    assert len(doc.issues) == 1 and words in doc.issues[0], doc.issues


def test_links_are_only_http_or_relative():
    assert safe_link("tests.html") == "tests.html" and safe_link("../log/tests.html") == "../log/tests.html"
    assert safe_link("https://ci.example/run/1") == "https://ci.example/run/1"
    for bad in (
        "javascript:alert(1)",
        " JavaScript:x",
        "data:text/html,x",
        "file:///etc/passwd",
        "//evil",
        "a\nb",
        "/etc/passwd",  # issue 37: an absolute path is no link of a results file
    ):
        assert safe_link(bad) == "", bad


# --- the commands: exit 2, named, never a traceback ---------------------------------------------
MALFORMED = [
    ("duration_s", entry(duration_s="slow"), {}),
    ("tests", entry(tests=5), {}),
    ("selection.selected", entry(), {"selection": {"partial": True, "selected": 5}}),
    (
        "locations[0].line",
        entry(outcome="failed", locations=[{"test": "t", "file": "f.py", "line": "x"}]),
        {},
    ),
    ("registry_line", entry(outcome="error", locations=[], registry_line="12"), {}),
    # issue 37: a failed row's details the pages read, of the wrong type (was a TypeError)
    ("details.failed_conditions", entry(outcome="failed", details={"failed_conditions": 5}), {}),
    ("details.drift.quotes", entry(outcome="failed", details={"drift": {"quotes": 5}}), {}),
    ("details.caveat", entry(outcome="passed", details={"caveat": ["x"]}, reason=""), {}),
    ("details.ci.low", entry(outcome="inconclusive", details={"ci": {"low": "fast", "high": 2.0}}), {}),
]


@pytest.mark.parametrize("field, bad, top", MALFORMED, ids=[m[0] for m in MALFORMED])
@pytest.mark.parametrize(
    "command",
    [["report"], ["summary"], ["summary", "--annotations"], ["merge", "-o", "{out}"], ["diff", "{path}"]],
    ids=["report", "summary", "annotations", "merge", "diff"],
)
def test_every_command_names_a_malformed_field_with_exit_2(tmp_path, capsys, field, bad, top, command):
    path = write(tmp_path / "run", bad, **top)
    args = [a.format(out=tmp_path / "m.html", path=path) for a in command]
    assert main([args[0], str(path), *args[1:]]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}: " in err and f"field '{field}'" in err and "Traceback" not in err


def test_report_embeds_no_file_outside_the_results_folder(tmp_path, capsys):
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET", encoding="utf-8")
    path = write(
        tmp_path / "run",
        entry(plots=[{"name": "p", "file": str(secret)}]),
        manuscripts=[{"path": str(secret), "registry": str(secret), "chapter": "ch15"}],
    )
    assert main(["report", str(path)]) == 2  # the plot's path is a malformed field
    err = capsys.readouterr().err
    assert "plots[0].file" in err and "not read" in err and "outside the results file's folder" in err
    page = (path.parent / "claims.html").read_text(encoding="utf-8")
    assert "TOP-SECRET" not in page and "VE9QLVNFQ1JFVA" not in page  # nor its base64
    assert not (path.parent / "manuscript.html").exists()


@pytest.mark.parametrize("schema", [True, "2", 2.0])
def test_a_claims_json_whose_schema_is_no_integer_is_not_ours_to_overwrite(tmp_path, schema):
    from claimcheck.fileio import not_ours

    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"schema": schema, "claims": []}), encoding="utf-8")
    assert "was not written by claimcheck" in (not_ours(path) or "")
    path.write_text(json.dumps({"schema": 2, "claims": []}), encoding="utf-8")
    assert not_ours(path) is None


def test_a_test_log_that_is_not_http_or_relative_is_no_link(tmp_path, capsys):
    path = write(tmp_path / "run", test_log="javascript:alert(1)")
    assert main(["report", str(path)]) == 2
    assert "field 'test_log'" in capsys.readouterr().err
    page = (path.parent / "claims.html").read_text(encoding="utf-8")
    assert "javascript:" not in page


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_plot_that_is_not_a_regular_file_is_refused(tmp_path, capsys):
    folder = tmp_path / "run"
    (folder / "plots").mkdir(parents=True)
    os.mkfifo(folder / "plots" / "fifo.png")  # reading it would block forever
    (folder / "plots" / "zero.png").symlink_to("/dev/zero")  # reading it would fill memory
    path = write(
        folder,
        entry(plots=[{"name": "fifo", "file": "plots/fifo.png"}, {"name": "zero", "file": "plots/zero.png"}]),
    )
    assert main(["report", str(path)]) == 0
    page = (folder / "claims.html").read_text(encoding="utf-8")
    assert "not a regular file" in page and "not inside the results file" in page


def test_a_large_plot_is_refused_by_size(tmp_path, monkeypatch):
    from claimcheck.pages import claims_page, claims_view

    monkeypatch.setattr(claims_view, "MAX_PLOT_BYTES", 10)
    folder = tmp_path / "run"
    (folder / "plots").mkdir(parents=True)
    (folder / "plots" / "big.png").write_bytes(b"x" * 11)
    path = write(folder, entry(plots=[{"name": "big", "file": "plots/big.png"}]))
    page = claims_page(read_document(path), folder)
    assert "11 bytes, over 10" in page


def test_a_drift_quote_with_a_line_that_is_no_integer_is_named_and_annotated_without_a_line(tmp_path, capsys):
    quote = {"status": "drift", "line": "7; rm -rf", "name": "stated", "manuscript": "38", "registry": "36"}
    drift = {"manuscript": "ch15.md", "quotes": [quote]}
    path = write(tmp_path, entry(drifted=True, details={"drift": drift}))
    assert main(["summary", str(path), "--annotations"]) == 2
    captured = capsys.readouterr()
    assert "claim ch15:C01: field 'details.drift.quotes[0].line' is '7; rm -rf'" in captured.err
    out = captured.out  # the quote is pointed at the claim's registry line instead
    assert out.startswith("::error file=claims/ch15/claims.toml,line=12,title=C01 locator drift::")
    assert "rm -rf" not in out


def test_a_matrix_with_fields_of_the_wrong_type_is_summarised_without_a_traceback(tmp_path, capsys):
    matrix = {
        "runners": [{"label": "a"}, "junk"],
        "split": [1, 2],
        "errors": "x",
        "claims": [
            {"key": "ch15:C01", "cells": {"a": ["passed"]}},
            {"key": "ch15:C02", "cells": {"a": {"measured": {}}}},
        ],
    }
    path = tmp_path / "matrix.json"
    path.write_text(json.dumps(matrix), encoding="utf-8")
    assert main(["summary", str(path)]) == 0
    out = capsys.readouterr().out
    assert (
        "**ch15:C01**" in out and "**ch15:C02**" in out and "Pass on one runner, fail on another: 1, 2" in out
    )


# --- hostile numbers and records (issue 34's attack) -----------------------------------------------
@pytest.mark.parametrize("digits", [400, 5000])  # past a float's range; past Python's int-string limit
@pytest.mark.parametrize(
    "command",
    [["report"], ["summary"], ["summary", "--annotations"], ["merge", "-o", "{out}"], ["diff", "{path}"]],
    ids=["report", "summary", "annotations", "merge", "diff"],
)
def test_an_integer_past_a_floats_range_reads_as_infinity_not_a_traceback(tmp_path, capsys, digits, command):
    path = write(tmp_path / "run", entry(duration_s=0), entry("C02", measured=0))
    text = path.read_text(encoding="utf-8").replace('"duration_s": 0,', f'"duration_s": {"9" * digits},')
    path.write_text(text.replace('"measured": 0,', f'"measured": {"9" * digits},'), encoding="utf-8")
    args = [a.format(out=tmp_path / "m.html", path=path) for a in command]
    assert main([args[0], str(path), *args[1:]]) == 2  # was: OverflowError, or ValueError (4300 digits)
    err = capsys.readouterr().err
    assert "claim ch15:C01: field 'duration_s' is inf, expected a non-negative number" in err
    assert "Traceback" not in err and "measured" not in err  # a measured value may be infinite
    assert read_document(path).by_key()["ch15:C02"].measured == float("inf")


def test_a_chapter_or_section_without_an_id_is_left_out_not_a_traceback(tmp_path):
    path = write(
        tmp_path,
        chapters=[{"title": "no id"}, {"id": "ch15", "title": "Chapter 15"}],
        sections=[{"title": "no id"}, {"id": "s1", "chapter": "ch15"}],
    )
    doc = read_document(path)  # was: TypeError, ChapterInfo.__init__() missing 'id'
    assert [c.id for c in doc.chapters] == ["ch15"] and [s.id for s in doc.sections] == ["s1"]
    assert main(["report", str(path)]) == 0
