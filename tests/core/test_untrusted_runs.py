"""Results files and registries are untrusted input, round two (issue 37): a results file over the
input limit, merge and diff linear in claims, one escaping of every text printed (terminal, CI log,
Markdown), matrix JSON without NaN, an output that would overwrite an input, init's locators on code
lines. Each test fails on ada5640."""

import json
import os
import re
from pathlib import Path

import pytest

from claimcheck.cli import main
from claimcheck.display import json_text, printable, workflow_escape
from claimcheck.manuscript import Manuscript, check_manuscript
from claimcheck.registry import load_registry
from claimcheck.scaffold import scaffold

#: what a foreign claims.json may hold to take over a CI log or a terminal
MASK = "\n::add-mask::x"
OSC8 = "\u001b]8;;http://evil/\u0007"
IMG = '<img src=x onerror="alert(1)">'


def entry(cid, outcome="passed", measured=36.0, **more):
    return {
        "id": cid,
        "key": f"ch15:{cid}",
        "chapter": "ch15",
        "outcome": outcome,
        "title": f"claim {cid}",
        "stated": "36",
        "measured": measured,
        "unit": "KiB",
        "tolerance": "printed",
        **more,
    }


def document(*claims, runner=None, title="KV caches"):
    return {
        "schema": 2,
        "generated": "2026-11-30T12:00:00Z",
        "runner": runner or {"cpu": "AMD EPYC", "cores": 2},
        "settings": {"size_profile": "quick"},
        "chapters": [{"id": "ch15", "title": title}],
        "claims": list(claims),
    }


def write(path: Path, doc) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


#: what no printed text may hold (a line feed ends a line, a tab is white space)
UNSAFE = "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"


def safe_output(text: str) -> None:
    """No line is a workflow command and nothing is a control sequence (a tab is the only control)."""
    __tracebackhide__ = True
    for line in text.splitlines():
        assert not re.match(r"\s*(::|##\[)", line), line
    assert not re.search(UNSAFE, text), text
    assert "Traceback" not in text


# --- 6. one escaping of every text printed -----------------------------------------------------------
def test_printable_escapes_line_breaks_controls_and_workflow_commands():
    assert printable("99.16% of the mass") == "99.16% of the mass"  # ordinary text as it is
    assert printable("a\n::add-mask::x") == "a%0A::add-mask::x"
    assert printable("50% " + OSC8) == "50%25 %1B]8;;http://evil/%07"
    assert printable("\x9b31m red \u202egnp.exe") == "%C2%9B31m red %E2%80%AEgnp.exe"  # 8-bit CSI, RLO
    assert printable("::error::x") == "%3A:error::x" and printable("  ##[error]x") == "  %23#[error]x"
    assert printable("# ch15: a::b") == "# ch15: a::b"
    assert printable("a\n::b\nc", lines=True) == "a\n%3A:b\nc"


def test_markdown_escaping_stops_tags_and_links_and_keeps_ordinary_text():
    assert printable(f"t {IMG} and [x](javascript:alert(1))", markdown=True) == (
        't &lt;img src=x onerror="alert(1)"> and [x]\\(javascript:alert(1))'
    )
    ordinary = "8.1 < 10 (short by 1.9); within half a unit: [35.5, 36.5] KiB/token; a <= b"
    assert printable(ordinary, markdown=True) == ordinary
    assert (
        printable("<!-- x -->, </td>, <https://evil>", markdown=True)
        == "&lt;!-- x -->, &lt;/td>, &lt;https://evil>"
    )


def test_workflow_command_data_escapes_controls_too():
    assert workflow_escape("50% a\nb" + OSC8) == "50%25 a%0Ab%1B]8;;http://evil/%07"


@pytest.fixture
def hostile(tmp_path):
    """OLD and NEW runs whose runner, claim ids, titles and reasons carry a workflow command, an OSC 8
    hyperlink and HTML."""
    old = write(tmp_path / "old" / "claims.json", document(entry("C01", title=IMG + OSC8), entry("C02")))
    evil_id = "C03" + MASK
    new = write(
        tmp_path / "new" / "claims.json",
        document(
            entry("C01", "failed", 20.0, reason="too slow" + MASK + OSC8, title=IMG + MASK),
            entry("C02", "passed", 36.0, title=OSC8 + "click\x9b31m\u202e"),
            entry(evil_id, "failed", reason=OSC8),
            runner={"cpu": "AMD" + MASK + OSC8, "cores": 2, "gpu": {"name": "H100" + MASK + "\u202e\x9b"}},
            title="KV caches" + MASK + OSC8 + IMG,
        ),
    )
    return old, new


def test_diff_prints_no_workflow_command_and_no_control_sequence(hostile, capsys):
    old, new = hostile
    assert main(["diff", str(old), str(new)]) == 1  # C01 passed -> failed: a regression, still told
    out, err = capsys.readouterr()
    safe_output(out + err)
    assert "runner cpu: AMD EPYC -> AMD%0A::add-mask::x%1B]8;;http://evil/%07" in out
    assert "REGRESSION ch15:C01" in out and "added      ch15:C03%0A::add-mask::x" in out


def test_merge_and_its_json_print_nothing_raw(hostile, tmp_path, capsys):
    old, new = hostile
    assert main(["merge", str(old), str(new), "-o", str(tmp_path / "m.html"), "--json", "-"]) == 0
    out, err = capsys.readouterr()
    safe_output(out + err)
    matrix = json.loads(out)  # the same data: JSON escapes every control character
    assert matrix["runners"][1]["runner"]["cpu"] == "AMD" + MASK + OSC8
    page = (tmp_path / "m.html").read_text(encoding="utf-8")
    assert IMG not in page  # the page is HTML-escaped


def test_summary_markdown_and_annotations_print_nothing_raw(hostile, capsys):
    _, new = hostile
    assert main(["summary", str(new)]) == 0
    out = capsys.readouterr().out
    safe_output(out)
    assert out.startswith("### claimcheck: KV caches%0A::add-mask::x%1B]8;;http://evil/%07&lt;img src=x")
    assert "<img" not in out
    assert main(["summary", "--annotations", str(new)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines and all(line.startswith(("::error", "::warning", "::notice")) for line in lines)
    assert "\x1b" not in "".join(lines) and "%1B]8;;http://evil/%07" in "".join(lines)


def test_summary_of_a_matrix_prints_nothing_raw(hostile, tmp_path, capsys):
    old, new = hostile
    matrix = tmp_path / "matrix.json"
    assert main(["merge", str(old), str(new), "-o", str(tmp_path / "m.html"), "--json", str(matrix)]) == 0
    capsys.readouterr()
    assert main(["summary", str(matrix)]) == 0
    out = capsys.readouterr().out
    safe_output(out)
    assert "<img" not in out


def test_report_prints_nothing_raw(hostile, tmp_path, capsys):
    doc = json.loads(hostile[1].read_text(encoding="utf-8"))
    new = tmp_path / ("run" + MASK + "\x1b[2J") / "claims.json"  # named in the note and the error
    doc["claims"][0]["duration_s"] = "slow" + OSC8  # a malformed field: quoted in the error
    doc["schema"] = 1  # a note naming the file
    write(new, doc)
    assert main(["report", str(new)]) == 2
    err = capsys.readouterr().err
    safe_output(err)
    assert "field 'duration_s'" in err


def test_a_results_file_whose_path_holds_a_line_break_is_named_escaped(tmp_path, capsys):
    """Own case: a CI artifact's folder name is a results file's label and is printed by merge and diff."""
    a = write(tmp_path / "claims-linux" / "claims.json", document(entry("C01")))
    b = write(tmp_path / ("gpu" + MASK + "\x1b[2J") / "claims.json", document(entry("C01", "failed", 1.0)))
    assert main(["merge", str(a), str(b), "-o", str(tmp_path / "m.html")]) == 0
    assert main(["diff", str(a), str(b)]) == 1
    missing = tmp_path / ("none" + MASK) / "claims.json"
    assert main(["diff", str(a), str(missing)]) == 2  # an error naming it: escaped too
    out, err = capsys.readouterr()
    safe_output(out + err)
    assert "gpu%0A::add-mask::x%1B[2J" in err and "gpu%0A::add-mask::x%1B[2J" in out
    assert "none%0A::add-mask::x/claims.json: no such file" in err


REGISTRY = """[chapter]
id = "ch15"
title = "KV \\u001b]8;;http://evil/\\u0007caches"
manuscript = "ch.txt"

[claims]
C01 = {{ title = "{title}", stated = "36", unit = "KiB", locator = "holds 36", tolerance = "printed", needs = ["text"] }}
"""


def test_validate_and_check_manuscript_print_a_registrys_and_a_manuscripts_text_escaped(tmp_path, capsys):
    registry = tmp_path / "claims" / "ch15" / "claims.toml"
    registry.parent.mkdir(parents=True)
    registry.write_text(REGISTRY.format(title="per token\\u001b[2J\\u009b31m\\u202e"), encoding="utf-8")
    manuscript = tmp_path / "ch.txt"
    manuscript.write_text("The cache holds 37 KiB per token.\x1b[2J\n", encoding="utf-8")
    assert main(["validate", str(registry)]) == 0
    code = main(["check-manuscript", str(manuscript), "--registry", str(registry), "--verbose"])
    assert code == 1  # 37 drifts from 36
    out, err = capsys.readouterr()
    safe_output(out + err)
    assert "per token%1B[2J%C2%9B31m%E2%80%AE" in out
    assert "drift" in out


# --- 7. smaller ------------------------------------------------------------------------------------
def test_matrix_json_holds_no_nan_or_infinity(tmp_path):
    path = tmp_path / "nan" / "claims.json"
    path.parent.mkdir()
    path.write_text(
        '{"schema": 2, "runner": {"cpu": "x", "load": NaN, "gpu": {"name": "g", "memory_bytes": Infinity}},'
        ' "settings": {"size_profile": "quick", "x": -Infinity}, "claims": ['
        '{"id": "C01", "key": "ch15:C01", "chapter": "ch15", "outcome": "passed", "measured": NaN},'
        '{"id": "C02", "key": "ch15:C02", "chapter": "ch15", "outcome": "passed", "measured": [1, Infinity]}]}',
        encoding="utf-8",
    )
    out = tmp_path / "matrix.json"
    main(["merge", str(path), "-o", str(tmp_path / "m.html"), "--json", str(out)])

    def refuse(constant):
        raise ValueError(f"{constant} is not JSON")

    matrix = json.loads(out.read_text(encoding="utf-8"), parse_constant=refuse)  # strict JSON
    assert matrix["runners"][0]["runner"]["load"] == "nan"
    assert (
        json_text({"a": float("inf"), "b": [float("-inf")]})
        == '{\n  "a": "inf",\n  "b": [\n    "-inf"\n  ]\n}'
    )


@pytest.mark.parametrize("flag", ["--json", "-o"])
def test_merge_refuses_to_write_over_one_of_its_inputs(tmp_path, capsys, flag):
    a = write(tmp_path / "a" / "claims.json", document(entry("C01")))
    b = write(tmp_path / "b" / "claims.json", document(entry("C01", "failed")))
    before = b.read_bytes()
    os.symlink(b, tmp_path / "link.json")
    for target in (str(b), str(tmp_path / "link.json"), str(tmp_path / "b" / ".." / "b" / "claims.json")):
        args = ["merge", str(a), str(b), "-o", str(tmp_path / "m.html"), "--json", str(tmp_path / "m.json")]
        args[args.index(flag) + 1] = target
        assert main(args) == 2
        err = capsys.readouterr().err
        assert (
            f"error: {flag} {target} is one of the results files merge reads ({b}); name another file" in err
        )
    assert b.read_bytes() == before


def test_diff_and_report_refuse_to_write_over_their_input(tmp_path, capsys):
    """Own case: ``diff --json OLD`` and ``report -o CLAIMS.json`` overwrote the file they read."""
    a = write(tmp_path / "a" / "claims.json", document(entry("C01")))
    b = write(tmp_path / "b" / "claims.json", document(entry("C01", "failed")))
    before = a.read_bytes(), b.read_bytes()
    assert main(["diff", str(a), str(b), "--json", str(a)]) == 2
    assert f"error: --json {a} is one of the results files diff reads ({a}); name another file" in (
        capsys.readouterr().err
    )
    assert main(["report", str(b), "-o", str(b)]) == 2
    assert f"error: -o {b} is one of the results files report reads ({b}); name another file" in (
        capsys.readouterr().err
    )
    assert (a.read_bytes(), b.read_bytes()) == before


@pytest.mark.parametrize(
    "suffix, text",
    [
        (
            ".txt",
            "The cache holds 46 KiB per token.\nb = 3j\nmm = 1,2\nThen 75 more.\n",
        ),  # "1,2": two numbers
        (
            ".md",
            "# T\n\nIt holds 72 KiB.\n\n```python\npp = 7 # 8 cats\narr[0] = 7\ne = .5\n```\n\nThen 27 more.\n",
        ),
        (".md", "# T\n\nIt holds 29 KiB.\n\nInline `e = .5` and `arr[0] = 7` here.\n"),
        (".md", '# T\n\nIt holds 80 KiB.\n\nInline `l = 4;  m = 5` and `print(f"{x:.1f} ms")` here.\n'),
        (".md", "# T\n\nIt holds 36 KiB.\n\nInline `z = [4,5, 6]` and `z = [4,5, 6]` here.\n"),
    ],
)
def test_inits_locators_on_code_lines_are_found(tmp_path, suffix, text):
    """A number the tokeniser reads after a comma or a point (``[4,5]``, ``.5``, ``{x:.1f}``) could not be
    matched by any locator (each number had to follow neither): init drafted a locator printed verbatim
    that check-manuscript called not found."""
    path = tmp_path / f"ch{suffix}"
    path.write_text(text, encoding="utf-8")
    ms = Manuscript.read(path)
    sc = scaffold(ms, "ch99")
    assert not sc.problems, sc.problems
    registry = tmp_path / "claims.toml"
    registry.write_text(sc.to_toml(), encoding="utf-8")
    check = check_manuscript(ms, load_registry(registry))
    assert check.ok and not check.audit.problems and check.audit.coverage == 1.0, (
        check.audit.problems,
        [(q.locator, q.status) for d in check.drifts for q in d.checks],
    )


def test_a_locator_with_a_glued_comma_finds_its_two_numbers_and_only_them():
    ms = Manuscript.from_text("x = [4,5, 6]\ny = 4,500 items\n")
    from claimcheck.manuscript import find_sites

    sites = find_sites(ms, "[4,5, 6]")
    assert [(s.line, [ms.scan[a:b] for a, b in s.groups]) for s in sites] == [(1, ["4", "5", "6"])]
    assert find_sites(ms, "4,500 items")[0].line == 2


def test_a_megabyte_claim_key_or_runner_field_costs_diff_one_long_line_not_one_per_claim(tmp_path, capsys):
    """Own case: diff padded every line to its longest claim key, and printed a runner field whole: a
    1 MB key in a file of 1,000 claims gave 1 GB of output."""
    huge = "C" + "x" * 1_000_000
    claims = [entry(f"C{i:04}") for i in range(1000)]
    old = write(tmp_path / "old" / "claims.json", document(*claims))
    runner = {"cpu": "AMD " + "y" * 1_000_000, "cores": 2}
    new = write(tmp_path / "new" / "claims.json", document(*claims, entry(huge), runner=runner))
    for claim in claims:
        claim["outcome"] = "failed"
    new = write(new, document(*claims, entry(huge), runner=runner))
    assert main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    assert len(out) < 1_300_000, len(out)  # the key once, 1,000 short lines
    assert "runner cpu: AMD EPYC -> AMD yyyyy" in out and "… (1,000,004 characters)" in out


def test_two_keys_that_print_alike_are_told_apart(tmp_path, capsys):
    """Own case: a zero-width space made ``ch15:C01`` and ``ch15:C01\u200b`` print alike in diff: one
    "added", one "missing from NEW", the same on screen."""
    old = write(tmp_path / "old" / "claims.json", document(entry("C01")))
    twin = dict(entry("C01"), key="ch15:C01\u200b", id="C01\u200b")
    new = write(tmp_path / "new" / "claims.json", document(twin))
    assert main(["diff", str(old), str(new)]) == 1
    out = capsys.readouterr().out
    safe_output(out)
    assert "added      ch15:C01%E2%80%8B  only in NEW" in out
    assert "REGRESSION ch15:C01   only in OLD" in out


def test_what_if_prints_its_verdicts_escaped(monkeypatch, capsys):
    """what-if's verdict quotes a registry's title and a run's reason (here, as the run gives it)."""
    from types import SimpleNamespace

    from claimcheck.cli import editor

    said = "C01 holds at 5: KV caches" + MASK + OSC8 + "\n  within half a unit"
    answer = SimpleNamespace(verdict=said, outcome="passed", quoted_by=[])
    monkeypatch.setattr(editor, "run_what_if", lambda *args: [answer])
    assert main(["what-if", "C01=5"]) == 0
    out = capsys.readouterr().out
    safe_output(out)
    assert out == "C01 holds at 5: KV caches\n%3A:add-mask::x%1B]8;;http://evil/%07\n  within half a unit\n"
