"""The command line: ``claimcheck validate``."""

from claimcheck.cli import main


def test_validate_shipped_registry(capsys):
    assert main(["validate", "claims/ch15/claims.toml"]) == 0
    out, err = capsys.readouterr()
    assert "C18" in out and "0 problems" in err


def test_validate_reports_problems(tmp_path, capsys):
    bad = tmp_path / "claims.toml"
    bad.write_text('[[claims]]\nid = "C01"\ntitle = "t"\nstated = "1"\nunit = "s"\nlocator = "x"\n'
                   'tolerence = "printed"\nneeds = ["arch"]\n', encoding="utf-8")
    assert main(["validate", str(bad)]) == 1
    assert "claim C01: field 'tolerence'" in capsys.readouterr().err


def test_no_command_prints_help(capsys):
    assert main([]) == 2
    assert "validate" in capsys.readouterr().out


def test_a_missing_dependency_is_one_line_not_a_traceback():
    # what `pip install --no-deps .` leaves: check-manuscript validates the registry's units with pint
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    block = ("import sys\n"
             "class Block:\n"
             "    def find_spec(self, name, path=None, target=None):\n"
             "        if name.split('.')[0] == 'pint':\n"
             "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
             "sys.meta_path.insert(0, Block())\n"
             "from claimcheck.cli import main\nraise SystemExit(main(sys.argv[1:]))\n")
    done = subprocess.run([sys.executable, "-c", block, "check-manuscript", str(root / "tests/data/manuscript_zh.md"),
                           "--registry", str(root / "tests/data/ms_registry.toml")],
                          capture_output=True, text=True, cwd=root, timeout=60)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "error: claimcheck check-manuscript needs the Python package 'pint', which is not installed "
        "(pip install claimcheck installs the core's dependencies; after --no-deps: pip install pint)"]
