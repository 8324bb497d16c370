"""A run that selects some claims keeps the other rows of the last report, marked with its time."""

import copy
import json

from claimcheck.partial import NOT_SELECTED
from claimcheck.partial import keep_unselected as keep_in_doc
from claimcheck.results import ClaimEntry, parse_document


def keep_unselected(new: dict, previous, current=None, runner_keys=()) -> dict:
    """:func:`claimcheck.partial.keep_unselected` on a hand-written document, as claims.json holds the result."""
    doc = parse_document(copy.deepcopy(new), "new.json")
    return keep_in_doc(doc, previous, current=current, runner_keys=runner_keys).to_json()


RUNNER = {
    "cpu": "AMD EPYC",
    "cores": 2,
    "machine": "x86_64",
    "torch": "2.13.0",
    "transformers": "5.24.0",
    "gpu": None,
}


def entry(cid, outcome="passed", measured=1.0, **kw):
    return {
        "id": cid,
        "outcome": outcome,
        "measured": measured,
        "stated": "1",
        "unit": "x",
        "tolerance": ">=1",
        "reason": "",
        "selected": True,
        "details": {},
        **kw,
    }


def not_selected(cid, **kw):
    return entry(cid, "not-run", None, reason=NOT_SELECTED, selected=False, **kw)


def doc(*claims, generated="2026-12-01T10:00:00Z", profile="standard", runner=RUNNER):
    return {
        "generated": generated,
        "runner": dict(runner),
        "settings": {"size_profile": profile, "runner_profile": None, "device": "auto"},
        "claims": list(claims),
        "counts": {},
    }


def write(path, d):
    path.write_text(json.dumps(d), encoding="utf-8")
    return path


def test_a_full_run_is_left_alone(tmp_path):
    new = doc(entry("C01"), entry("C02"))
    assert keep_unselected(new, tmp_path / "none.json") == parse_document(copy.deepcopy(new), "x").to_json()


def test_rows_not_selected_now_are_kept_from_the_last_run_and_marked(tmp_path):
    old = write(
        tmp_path / "claims.json",
        doc(entry("C01", measured=3.0), entry("C02", "failed", 0.5), generated="2026-12-01T09:00:00Z"),
    )
    new = keep_unselected(doc(not_selected("C01"), entry("C02", measured=2.0)), old)
    c01, c02 = new["claims"]
    assert c01["outcome"] == "passed" and c01["measured"] == 3.0 and c01["selected"] is False
    assert c01["carried"] == {"from": "2026-12-01T09:00:00Z", "file": str(old)}
    assert c02["measured"] == 2.0 and "carried" not in c02  # what ran now is this run's
    assert new["selection"] == {
        "partial": True,
        "selected": ["C02"],
        "carried": ["C01"],
        "carried_from": "2026-12-01T09:00:00Z",
    }
    assert new["counts"] == {"passed": 2}
    assert not ClaimEntry.from_dict(c01).unselected  # a kept row is not "not selected" for diff


def test_a_kept_row_keeps_its_own_time_through_several_partial_runs(tmp_path):
    first = write(tmp_path / "claims.json", doc(entry("C01"), entry("C02"), generated="T1"))
    second = keep_unselected(doc(not_selected("C01"), entry("C02"), generated="T2"), first)
    write(first, second)
    third = keep_unselected(doc(not_selected("C01"), entry("C02"), generated="T3"), first)
    assert third["claims"][0]["carried"]["from"] == "T1"
    assert third["selection"]["carried_from"] == "T1"  # not T2, which carried the row too


def test_this_runs_drift_check_replaces_the_kept_one(tmp_path):
    old = write(tmp_path / "claims.json", doc(entry("C01", details={"drift": {"status": "ok"}, "n": 1})))
    new = keep_unselected(doc(not_selected("C01", details={"drift": {"status": "drift"}})), old)
    assert new["claims"][0]["details"] == {"drift": {"status": "drift"}, "n": 1}


def test_nothing_is_kept_from_another_runner_profile_or_registry_entry(tmp_path):
    path = tmp_path / "claims.json"
    write(path, doc(entry("C01"), profile="quick"))
    new = keep_unselected(doc(not_selected("C01"), entry("C02")), path)
    assert (
        new["claims"][0]["outcome"] == "not-run"
        and "another size profile (quick" in new["selection"]["not_carried_because"]
    )
    old_style = doc(entry("C01"))  # reports before the settings were renamed said "profile"
    old_style["settings"] = {"profile": "standard", "runner": None, "device": "auto"}
    write(path, old_style)
    assert keep_unselected(doc(not_selected("C01"), entry("C02")), path)["claims"][0]["outcome"] == "passed"
    write(path, doc(entry("C01"), runner={**RUNNER, "cpu": "Apple M3"}))
    new = keep_unselected(doc(not_selected("C01"), entry("C02")), path)
    assert "another runner (cpu: Apple M3" in new["selection"]["not_carried_because"]
    write(path, doc(entry("C01", stated="2")))
    new = keep_unselected(doc(not_selected("C01"), entry("C02")), path)
    assert (
        new["claims"][0]["outcome"] == "not-run" and "C01 changed" in new["selection"]["not_carried_because"]
    )


def test_a_kits_runner_fields_must_match_when_the_kit_names_them(tmp_path):
    # the core compares cpu, cores, machine, cpu_capability; a kit names its own fields
    # (hook pytest_claimcheck_runner_keys: the LLM kit's are torch and transformers)
    from claimcheck.llm.pytest_kit import pytest_claimcheck_runner_keys

    path = tmp_path / "claims.json"
    write(path, doc(entry("C01"), runner={**RUNNER, "torch": "2.12.0"}))
    kept = keep_unselected(doc(not_selected("C01"), entry("C02")), path)
    assert kept["claims"][0]["outcome"] == "passed"  # no kit fields named: the row stands
    new = keep_unselected(
        doc(not_selected("C01"), entry("C02")), path, runner_keys=pytest_claimcheck_runner_keys(None)
    )
    assert new["claims"][0]["outcome"] == "not-run"
    assert "another runner (torch: 2.12.0 here 2.13.0)" in new["selection"]["not_carried_because"]


def test_a_missing_or_broken_earlier_report_is_said_not_raised(tmp_path):
    new = keep_unselected(doc(not_selected("C01"), entry("C02")), tmp_path / "none.json")
    assert "no earlier report" in new["selection"]["not_carried_because"]
    bad = tmp_path / "claims.json"
    bad.write_text("{truncated", encoding="utf-8")
    new = keep_unselected(doc(not_selected("C01"), entry("C02")), bad)
    assert (
        "cannot be read" in new["selection"]["not_carried_because"]
        and new["claims"][0]["outcome"] == "not-run"
    )


def test_diff_says_unselected_claims_in_one_line(tmp_path, capsys):
    from claimcheck.cli import main

    full = write(tmp_path / "a.json", doc(*(entry(f"C{i:02d}") for i in range(1, 42))))
    partial = write(
        tmp_path / "b.json",
        doc(*(not_selected(f"C{i:02d}") for i in range(1, 41)), entry("C41", measured=5.0)),
    )
    assert main(["diff", str(full), str(partial)]) == 0
    out = capsys.readouterr().out
    assert out.count("not selected") == 1
    assert "40 claims not selected in NEW (C01, C02, C03, C04, C05, C06 and 34 more): not compared" in out


def _book(*entries, chapters=("cha", "chb"), generated="2026-12-01T09:00:00Z"):
    d = doc(*entries, generated=generated)
    d["schema"] = 2
    d["chapters"] = [{"id": c, "title": c, "registry": f"claims/{c}/claims.toml"} for c in chapters]
    d["registries"] = [{"path": f"claims/{c}/claims.toml", "chapter_id": c} for c in chapters]
    return d


def _in(chapter, e):
    return {**e, "chapter": chapter, "key": f"{chapter}:{e['id']}"}


def test_a_run_of_one_chapter_checks_the_other_chapters_rows_against_their_registry_now(tmp_path):
    old = write(
        tmp_path / "claims.json",
        _book(
            _in("cha", entry("C01", measured=3.0)),
            _in("chb", entry("C01", measured=7.0, stated="41")),
            _in("chb", entry("C02", measured=1.0)),
        ),
    )
    registries = {
        "claims/chb/claims.toml": {
            "C01": {"stated": "1", "unit": "x", "tolerance": ">=1"},
            "C02": {"stated": "1", "unit": "x", "tolerance": ">=1"},
        }
    }
    new = keep_unselected(
        _book(_in("cha", entry("C01", measured=3.5)), chapters=("cha",)), old, current=registries.get
    )
    rows = {e["key"]: e for e in new["claims"]}
    # chb:C01 was measured with a revised figure (41, a --claims-stated run): not carried as chb's own
    assert rows["chb:C01"]["outcome"] == "not-run" and rows["chb:C01"]["stated"] == "1"
    assert rows["chb:C01"]["measured"] is None and rows["chb:C01"]["details"] == {}  # not the old 7.0
    assert rows["chb:C02"]["carried"] and rows["chb:C02"]["measured"] == 1.0
    assert new["selection"]["selected"] == ["cha:C01"] and new["selection"]["carried"] == ["chb:C02"]
    assert [c["id"] for c in new["chapters"]] == ["cha", "chb"]  # the book's order, whichever ran


def test_chapters_keep_the_books_order_digits_compared_as_numbers(tmp_path):
    old = write(tmp_path / "claims.json", _book(_in("ch9", entry("C01")), chapters=("ch9",)))
    new = keep_unselected(_book(_in("ch15", entry("C01")), chapters=("ch15",)), old)
    assert [c["id"] for c in new["chapters"]] == ["ch9", "ch15"]  # not "ch15" < "ch9" as text
    assert [e["key"] for e in new["claims"]] == ["ch9:C01", "ch15:C01"]


def test_a_chapter_whose_registry_is_gone_is_dropped_and_said(tmp_path):
    old = write(tmp_path / "claims.json", _book(_in("cha", entry("C01")), _in("chb", entry("C01"))))
    new = keep_unselected(_book(_in("cha", entry("C01")), chapters=("cha",)), old, current=lambda path: None)
    assert [e["key"] for e in new["claims"]] == ["cha:C01"]
    assert "chapter chb" in new["selection"]["dropped"][0] and [c["id"] for c in new["chapters"]] == ["cha"]


def test_a_schema_1_report_of_one_chapter_is_kept_beside_a_run_of_another(tmp_path):
    old = doc(entry("C01", measured=3.0), generated="2026-12-01T09:00:00Z")
    old["registries"] = [{"path": "claims/ch15/claims.toml", "chapter": {"id": "ch15"}}]
    old = write(tmp_path / "claims.json", old)
    new = keep_unselected(_book(_in("ch16", entry("C01", measured=9.0)), chapters=("ch16",)), old)
    rows = {e["key"]: e for e in new["claims"]}
    assert (
        rows["ch15:C01"]["carried"]
        and rows["ch15:C01"]["measured"] == 3.0
        and rows["ch16:C01"]["measured"] == 9.0
    )


def test_another_chapters_rows_not_kept_show_no_earlier_measurement(tmp_path):
    """A run of one chapter at another profile keeps no row of the other chapter; those rows are
    not-run and carry none of the earlier run's value, margin or plots (found by a new author: the
    page showed ch15's standard-profile values under a quick run of ch16, as if measured now)."""
    old = _book(_in("cha", entry("C01")), _in("chb", entry("C01", measured=115.17, measured_display="115 x")))
    old["claims"][1]["details"] = {"ci": {"low": 1, "high": 2}}
    old["claims"][1]["plots"] = [{"name": "p", "file": "plots/p.png"}]
    old = write(tmp_path / "claims.json", old)
    quick = _book(_in("cha", entry("C01", measured=3.5)), chapters=("cha",))
    quick["settings"]["size_profile"] = "quick"
    new = keep_unselected(quick, old)
    row = {e["key"]: e for e in new["claims"]}["chb:C01"]
    assert (
        row["outcome"] == "not-run"
        and "carried" not in row
        and "another size profile" in str(new["selection"])
    )
    assert (row["measured"], row["measured_display"], row["details"], row["plots"]) == (None, None, {}, [])
    # the file's counts are its rows', the appended not-run row too (were left as the run had them)
    assert new["counts"] == {"passed": 1, "not-run": 1}


def test_a_row_whose_outcome_is_unusable_is_not_kept(tmp_path):
    old = write(tmp_path / "claims.json", doc(entry("C01", outcome=7), entry("C02", "failed")))
    new = keep_unselected(doc(not_selected("C01"), not_selected("C02"), entry("C03")), old)
    c01, c02, _ = new["claims"]
    # was: carried as "invalid", an outcome no reader accepts, into this run's claims.json
    assert c01["outcome"] == "not-run" and "carried" not in c01 and c01["reason"] == NOT_SELECTED
    assert c02["outcome"] == "failed" and new["selection"]["carried"] == ["C02"]
    assert not parse_document(new, "again.json").issues


def test_another_chapters_row_not_kept_keeps_no_earlier_skips_cause(tmp_path):
    skipped = entry("C01", "skipped", None, reason="needs a CUDA GPU", cause="gpu")
    old = write(tmp_path / "claims.json", _book(_in("cha", entry("C01")), _in("chb", skipped)))
    quick = _book(_in("cha", entry("C01", measured=3.5)), chapters=("cha",))
    quick["settings"]["size_profile"] = "quick"
    row = {e["key"]: e for e in keep_unselected(quick, old)["claims"]}["chb:C01"]
    assert row["outcome"] == "not-run" and "carried" not in row
    assert "cause" not in row  # was: "gpu", a not-run row said to need a GPU
