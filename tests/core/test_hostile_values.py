"""Hostile values of the settings (issue 37, round two): a ``CLAIMCHECK_*`` variable or option
holding a terminal escape, or megabytes, is quoted escaped and cut in its usage error."""

import pytest

from claimcheck import settings


@pytest.mark.parametrize(
    ("env", "said"),
    [
        ({"CLAIMCHECK_PROFILE": "\x1b[31m"}, "CLAIMCHECK_PROFILE='\\x1b[31m': unknown size profile"),
        ({"CLAIMCHECK_RUNNER": "\u202e"}, "CLAIMCHECK_RUNNER='\\u202e': a runner profile is a name"),
        (
            {"CLAIMCHECK_PROFIL": "\x1b]8;;http://evil/\x07"},
            "CLAIMCHECK_PROFIL='\\x1b]8;;http://evil/\\x07': not a",
        ),
        ({"CLAIMCHECK_\x1b[2J": "x"}, "'CLAIMCHECK_\\x1b[2J'=x: not a claimcheck setting"),
    ],
)
def test_a_control_character_in_a_setting_is_escaped(env, said):
    with pytest.raises(settings.SettingsError) as info:
        settings.resolve(env=env)
    message = str(info.value)
    assert said in message  # was: ESC, CSI, BEL and U+202E printed raw at the start of the message
    assert not any(not c.isprintable() for c in message)


@pytest.mark.parametrize("var", ["CLAIMCHECK_PROFILE", "CLAIMCHECK_RUNNER", "CLAIMCHECK_REPORT_DIR"])
def test_a_megabyte_setting_is_refused_in_a_short_message(var):
    with pytest.raises(settings.SettingsError) as info:
        settings.resolve(env={var: "x" * 1_000_000})
    message = str(info.value)
    assert len(message) < 600  # was 2 MB: the value, then the value again in the validator's words
    assert (
        f"{var}='{'x' * 200}'… (1,000,000 characters): 1,000,000 characters: a setting holds at most 4,000"
        in message
    )


def test_an_ordinary_setting_is_shown_as_written():
    with pytest.raises(
        settings.SettingsError, match=r"^CLAIMCHECK_PROFILE=quik: unknown size profile 'quik'"
    ):
        settings.resolve(env={"CLAIMCHECK_PROFILE": "quik"})
    assert settings.resolve(env={"CLAIMCHECK_PROFILE": "quick"}).size_profile == "quick"


def test_one_claim_given_two_figures_by_claims_stated_is_refused():
    stated = next(o for o in settings.OPTIONS if o.flag == "--claims-stated")
    with pytest.raises(ValueError, match=r"C01 is given two figures, '7' and '5': give it one"):
        stated.parse(["C01=7", "C02=3", "C01=5"])  # was: the last silently won
    assert stated.parse(["C01=7", "C01=7%", "ch2:C01=5"]) == (("C01", "7"), ("C01", "7"), ("ch2:C01", "5"))
