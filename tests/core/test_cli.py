"""The command line: ``claimcheck validate``."""

from claimcheck.cli import main


def test_validate_shipped_registry(capsys):
    assert main(["validate", "claims/ch15/claims.toml"]) == 0
    out, err = capsys.readouterr()
    assert "C18" in out and "0 problems" in err


def test_validate_reports_problems(tmp_path, capsys):
    bad = tmp_path / "claims.toml"
    bad.write_text(
        '[[claims]]\nid = "C01"\ntitle = "t"\nstated = "1"\nunit = "s"\nlocator = "x"\n'
        'tolerence = "printed"\nneeds = ["arch"]\n',
        encoding="utf-8",
    )
    assert main(["validate", str(bad)]) == 1
    assert "claim C01: field 'tolerence'" in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "validate" in capsys.readouterr().out


def test_validate_a_missing_or_empty_registry_is_a_problem(tmp_path, capsys):
    assert main(["validate", str(tmp_path / "nothere.toml")]) == 1
    assert "cannot read" in capsys.readouterr().err
    (tmp_path / "claims.toml").write_text("# nothing yet\n", encoding="utf-8")
    assert main(["validate", str(tmp_path / "claims.toml")]) == 1
    assert "declares no claims" in capsys.readouterr().err


def test_validate_finds_a_test_that_names_an_undeclared_claim(tmp_path, capsys):
    (tmp_path / "claims.toml").write_text(
        '[[claims]]\nid = "C01"\ntitle = "t"\nstated = "1"\nunit = "s"\n'
        'locator = "1 s"\ntolerance = "printed"\nneeds = ["arch"]\n',
        encoding="utf-8",
    )
    (tmp_path / "test_x.py").write_text(
        'import pytest\n\n@pytest.mark.claim("C01")\ndef test_a(claim):\n    pass\n\n'
        '@pytest.mark.claim("C011")\ndef test_b(claim):\n    pass\n',
        encoding="utf-8",
    )
    assert main(["validate", str(tmp_path / "claims.toml")]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'test_x.py'}:7: a test names claim 'C011'" in err and "(did you mean C01?)" in err


def test_outputs_that_cannot_be_written_are_one_error(tmp_path, capsys):
    import json

    doc = {"schema": 1, "runner": {}, "settings": {}, "claims": [{"id": "C01", "outcome": "passed"}]}
    src = tmp_path / "a" / "claims.json"
    src.parent.mkdir()
    src.write_text(json.dumps(doc), encoding="utf-8")
    (tmp_path / "afile").write_text("x", encoding="utf-8")
    assert main(["merge", str(src), "-o", str(tmp_path / "afile" / "m.html")]) == 2
    assert f"error: cannot write {tmp_path / 'afile' / 'm.html'}" in capsys.readouterr().err
    assert main(["diff", str(src), str(src), "--json", str(tmp_path / "afile" / "d.json")]) == 2
    assert f"error: cannot write {tmp_path / 'afile' / 'd.json'}" in capsys.readouterr().err


def test_a_missing_dependency_is_one_line_not_a_traceback():
    # what `pip install --no-deps .` leaves: check-manuscript validates the registry's units with pint
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    block = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'pint':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from claimcheck.cli import main\nraise SystemExit(main(sys.argv[1:]))\n"
    )
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            block,
            "check-manuscript",
            str(root / "tests/data/manuscript_zh.md"),
            "--registry",
            str(root / "tests/data/ms_registry.toml"),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: claimcheck check-manuscript needs the Python package 'pint', which is not installed "
        "(pip install claimcheck installs the core's dependencies; after --no-deps: pip install pint)"
    ]
