"""The one number test and the one "did you mean" of claimcheck (claimcheck.display)."""

import pytest

from claimcheck.display import is_number, suggest


@pytest.mark.parametrize("x, expected", [(1, True), (2.5, True), (True, False), ("1", False), (None, False)])
def test_a_number_read_from_json_is_an_int_or_a_float_not_a_bool(x, expected):
    assert is_number(x) is expected


def test_the_registrys_hint_quotes_the_closest_name():
    assert suggest("tolerence", ["tolerance", "unit"]) == " (did you mean 'tolerance'?)"
    assert suggest("zzz", ["tolerance"]) == ""  # the only choice is not offered when it is far


def test_the_options_hint_is_looser_and_offers_the_only_choice():
    assert suggest("quik", ["quick", "standard", "full"], "setting") == "; did you mean quick?"
    assert suggest("zzz", ["author-laptop"], "setting") == "; did you mean author-laptop?"
    assert suggest("zzz", ["a-b", "c-d"], "setting") == ""
    with pytest.raises(KeyError):
        suggest("x", ["y"], "other")
