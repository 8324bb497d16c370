"""The option table (claimcheck.settings): one validator per option, the same from every source.

A run resolves the core's table and each kit's (hook ``pytest_claimcheck_options``); the fake
config answers that hook with the LLM kit's table (:mod:`claimcheck.llm.options`, no torch), so
the kit's options are checked here by the core's machinery, as in a run.
"""

from pathlib import Path

import pytest

from claimcheck import settings as S
from claimcheck.llm import options as kit

TABLES = (S.CORE, kit.TABLE)
BY_NAME = {o.name: o for t in TABLES for o in t.options}


class FakeHook:
    def pytest_claimcheck_options(self):
        return [kit.TABLE]


class FakeConfig:
    """What :func:`claimcheck.settings.resolve` reads of a pytest config: options and ini values."""

    def __init__(self, cli=None, ini=None):
        self.cli, self.ini = cli or {}, ini or {}
        self.inipath = Path("/project/pyproject.toml")
        self.hook = FakeHook()

    def getoption(self, dest, default=None):
        return self.cli.get(dest, default)

    def getini(self, name):
        return self.ini.get(name)


def resolve_from(source, option, raw):
    """Resolve with ``raw`` given for ``option`` by one source: cli, env or ini."""
    o = BY_NAME[option]
    if source == "cli":
        return S.resolve(FakeConfig(cli={o.dest: raw}), env={})
    if source == "env":
        return S.resolve(FakeConfig(), env={o.env: raw})
    return S.resolve(FakeConfig(ini={o.ini: raw}), env={})


SOURCES = ("cli", "env", "ini")
SHOWN = {
    "cli": "--claims-listing-timeout {}",
    "env": "CLAIMCHECK_LISTING_TIMEOUT={}",
    "ini": "ini claims_listing_timeout = {} (pyproject.toml)",
}


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize("raw", ["0", "0.0", "-5", "nan", "inf", "soon"])
def test_listing_timeout_zero_negative_or_junk_is_refused_from_every_source(source, raw):
    with pytest.raises(S.SettingsError) as err:
        resolve_from(source, "listing_timeout", raw)
    assert str(err.value) == f"{SHOWN[source].format(raw)}: expected a time limit in seconds > 0, got {raw!r}"


@pytest.mark.parametrize("source", SOURCES)
def test_listing_timeout_given_is_used_from_every_source(source):
    s = resolve_from(source, "listing_timeout", "30")
    assert s.listing_timeout == 30.0 and s.source("listing_timeout") != "default"


@pytest.mark.parametrize("source", SOURCES)
@pytest.mark.parametrize(
    "option, raw, words",
    [
        (
            "size_profile",
            "quik",
            "unknown size profile 'quik'; did you mean quick? (choose one of quick, standard, full)",
        ),
        ("weights_shapes", "gpt2small", "unknown weights shape check 'gpt2small'; did you mean gpt2-small?"),
        ("device", "gpu", "unknown device 'gpu'"),
        ("lm", "smolm2", "unknown portable LM 'smolm2'; did you mean smollm2?"),
        ("allow_download", "maybe", "expected true or false"),
        ("strict_timing", "2", "expected true or false"),
        ("runner_profile", "my laptop", "a runner profile is a name"),
    ],
)
def test_unknown_names_and_bad_values_name_their_source(source, option, raw, words):
    with pytest.raises(S.SettingsError) as err:
        resolve_from(source, option, raw)
    message = str(err.value)
    o = BY_NAME[option]
    assert message.startswith({"cli": o.flag, "env": f"{o.env}=", "ini": f"ini {o.ini} = "}[source]), message
    assert words in message


def test_precedence_cli_env_ini_default():
    cfg = FakeConfig(cli={"claims_profile": "quick"}, ini={"claims_profile": "full", "claims_device": "cpu"})
    s = S.resolve(
        cfg, env={"CLAIMCHECK_PROFILE": "full", "CLAIMCHECK_DEVICE": "cpu", "CLAIMCHECK_RUNNER": "lab"}
    )
    assert (s.size_profile, s.device, s.runner_profile, s.weights_shapes) == (
        "quick",
        "cpu",
        "lab",
        "gpt2-small",
    )
    assert s.source("size_profile") == "--claims-profile"
    assert s.source("device") == "environment variable CLAIMCHECK_DEVICE"
    assert s.source("weights_shapes") == "default"
    s = S.resolve(FakeConfig(ini={"claims_device": "cpu"}), env={"CLAIMCHECK_DEVICE": ""})  # empty: unset
    assert s.device == "cpu" and s.source("device") == "ini setting claims_device"


def test_strict_timing_is_a_setting_from_every_source():
    assert S.resolve(FakeConfig(), env={}).strict_timing is False
    assert S.resolve(FakeConfig(cli={"claims_strict_timing": True}), env={}).strict_timing is True
    assert S.resolve(FakeConfig(), env={"CLAIMCHECK_STRICT_TIMING": "1"}).strict_timing is True
    assert S.resolve(FakeConfig(ini={"claims_strict_timing": "false"}), env={}).strict_timing is False


def test_a_misspelt_environment_variable_is_an_error_with_a_suggestion():
    with pytest.raises(S.SettingsError) as err:
        S.resolve(FakeConfig(), env={"CLAIMCHECK_LISTING_TIMOUT": "30"})
    assert str(err.value).startswith(
        "CLAIMCHECK_LISTING_TIMOUT=30: not a claimcheck setting; did you mean CLAIMCHECK_LISTING_TIMEOUT?"
    )
    S.resolve(FakeConfig(), env={"CLAIMCHECK_CACHE_DIR": "/tmp/x", "OTHER": "1"})  # known, not a run setting


def test_stated_overrides_are_validated():
    s = S.resolve(FakeConfig(cli={"claims_stated": ["C05=58", "C11.text=61"]}), env={})
    assert s.stated == (("C05", "58"), ("C11.text", "61"))
    with pytest.raises(S.SettingsError, match=r"^--claims-stated C05: expected ID=VALUE"):
        S.resolve(FakeConfig(cli={"claims_stated": ["C05"]}), env={})


def test_runner_profile_is_checked_against_the_registries():
    s = S.resolve(FakeConfig(cli={"claims_runner": "nosuchrunner"}), env={})
    with pytest.raises(S.SettingsError) as err:
        S.check_runner_profile(s, {"author-laptop": ["claims/ch15/claims.toml"]})
    assert str(err.value) == (
        "--claims-runner nosuchrunner: unknown runner profile; did you mean author-laptop? "
        "(declared: author-laptop in claims/ch15/claims.toml)"
    )
    S.check_runner_profile(
        S.resolve(FakeConfig(cli={"claims_runner": "author-laptop"}), env={}),
        {"author-laptop": ["claims/ch15/claims.toml"]},
    )
    S.check_runner_profile(S.resolve(FakeConfig(), env={}), {})  # no runner profile: nothing to check
    env = S.resolve(FakeConfig(), env={"CLAIMCHECK_RUNNER": "laptop"})
    with pytest.raises(
        S.SettingsError,
        match=r"^CLAIMCHECK_RUNNER=laptop: unknown runner profile; did you mean author-laptop",
    ):
        S.check_runner_profile(env, {"author-laptop": ["x.toml"]})


def test_one_table_declares_every_option():
    fields = set(S.Settings.__dataclass_fields__) - {"sources", "kit", "options"}
    assert {o.name for o in S.OPTIONS} == fields
    options = [o for t in S.option_tables(FakeConfig()) for o in t.options]
    assert options == [*S.OPTIONS, *kit.OPTIONS] and not fields & {o.name for o in kit.OPTIONS}
    assert {o.name for o in kit.OPTIONS} == {
        *("weights", "weights_shapes", "allow_download", "lm", "corpus", "device", "listing"),
        *("listing_timeout", "threads"),
    }
    assert len({o.flag for o in options}) == len(options)
    for o in options:
        assert o.flag.startswith("--claims-") and o.help
        if o.kind != "append":  # --claims-stated is per run: command line only
            assert o.env == "CLAIMCHECK_" + o.flag.removeprefix("--claims-").replace("-", "_").upper(), o
            assert o.ini == o.dest
        assert o.env is None or o.env in o.help_text()
    # the two profiles cannot be confused: neither field is called plain "profile" or "runner"
    assert "profile" not in fields and "runner" not in fields and {"size_profile", "runner_profile"} <= fields


def test_pytest_help_lists_every_option_from_the_table(pytester):
    result = pytester.runpytest("--help")
    out = result.stdout.str()
    for o in (*S.OPTIONS, *kit.OPTIONS):
        assert o.flag in out, o.flag
        if o.env:
            assert o.env in out, o.env
    # without the core the kit declares no option either
    out = pytester.runpytest("-p", "no:claimcheck", "--help").stdout.str()
    assert "--claims-profile" not in out and "--claims-device" not in out


def test_a_kits_setting_is_an_attribute_and_the_report_records_what_is_marked():
    s = S.resolve(FakeConfig(cli={"claims_device": "cpu"}), env={"CLAIMCHECK_THREADS": "2"})
    assert (s.device, s.threads, s.lm, s.listing_timeout) == ("cpu", "2", None, 900.0)
    assert s.shown("device") == "--claims-device cpu" and s.shown("threads") == "CLAIMCHECK_THREADS=2"
    assert s.recorded() == {
        "size_profile": "standard",
        "runner_profile": None,
        "strict_timing": False,
        "device": "cpu",
    }
    core_only = S.resolve(None, env={})  # no kit: its settings are not there, and say so
    with pytest.raises(AttributeError, match="no claimcheck setting 'device'"):
        _ = core_only.device
    with pytest.raises(S.SettingsError, match="^CLAIMCHECK_DEVICE=cpu: not a claimcheck setting"):
        S.resolve(None, env={"CLAIMCHECK_DEVICE": "cpu"})


def test_two_tables_cannot_declare_one_option():
    clash = S.OptionTable("a copy", "copy", (BY_NAME["report_dir"],))

    class Hook:
        def pytest_claimcheck_options(self):
            return [clash]

    config = FakeConfig()
    config.hook = Hook()
    with pytest.raises(ValueError, match="option .* is declared by both claimcheck.settings and copy"):
        S.option_tables(config)
