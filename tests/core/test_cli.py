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
