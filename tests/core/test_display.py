"""claimcheck.display's helpers: the one number test, the one "did you mean", excerpts of hostile
input and lines safe in a CI log."""

import pytest

from claimcheck import display
from claimcheck.display import excerpt, is_number, printable, suggest, workflow_escape
from claimcheck.pages import summary


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


def test_an_excerpt_is_short_whatever_the_input():
    assert excerpt("a / b") == "'a / b'"
    long = "1+" * 500_000
    shown = excerpt(long)
    assert len(shown) < 120 and shown.endswith("… (1,000,000 characters)")
    assert excerpt("boom " * 100, 10, quote=False) == "boom boom … (500 characters)"


def test_a_line_with_a_line_break_cannot_start_a_workflow_command():
    title = "Read is fast\n::add-mask::x\r\n::error file=a::pwned"
    line = printable(f"C01 does not hold: {title}")
    assert "\n" not in line and "\r" not in line
    assert line == "C01 does not hold: Read is fast%0A::add-mask::x%0D%0A::error file=a::pwned"
    assert printable("99.16% of the mass") == "99.16% of the mass"  # an ordinary line is left as it is


def test_the_annotations_use_the_same_escaping():
    assert summary.workflow_escape is workflow_escape
    assert summary.command("error", "a\n::b") == "::error::a%0A::b"


def test_counted_says_one_thread_and_two_threads():
    assert display.counted(1, "thread") == "1 thread"
    assert display.counted(2, "thread") == "2 threads" and display.counted(0, "core") == "0 cores"


@pytest.mark.parametrize(
    "text, unit, said",
    [
        ("511", "forward_pass", "511 forward passes"),
        ("1", "forward_pass", "1 forward pass"),
        ("1023", "example", "1023 examples"),
        ("58", "x", "58×"),
        ("99.16", "percent", "99.16%"),
        ("36", "KiB/token", "36 KiB/token"),
    ],
)
def test_a_unit_reads_as_a_reader_says_it(text, unit, said):
    """The page once said "511 forward_pass" and "1023 example": a unit's name in the registry."""
    assert display.with_unit(text, unit) == said


def test_a_difference_of_ratios_is_a_plain_number():
    """A margin once read "10.9× above the bar": a difference of two ratios, not a multiple."""
    assert display.difference("13.3", "x") == "13.3"
    assert display.difference("0.5", "token/char") == "0.5 token/char"
    assert display.difference("2", "percent") == "2%"


@pytest.mark.parametrize(
    "value, exact, shown",
    [
        (248879616.0, False, "248879616 B"),  # was 2.4888e8 B beside the chapter's 248879616 B
        (170112000.0, False, "170112000 B"),
        ([2129362944.0, 2129362944.0], False, "2129362944 B"),
        (248879616, False, "248,879,616 B"),  # an int: as before
        (36864.0, False, "36864 B"),
        (170110000.5, False, "1.7011e8 B"),  # not a whole number: 5 significant digits
        (170110000.5, True, "1.701100005e8 B"),  # its tolerance is exact: every digit it has
        (0.1 + 0.2, False, "0.3 B"),
        (0.1 + 0.2, True, "0.30000000000000004 B"),
        (0.1, True, "0.1 B"),  # no digits it does not have
        (1e20, True, "1e20 B"),
    ],
)
def test_a_whole_or_exactly_judged_value_prints_in_full_digits(value, exact, shown):
    assert display.format_value(value, "B", exact=exact) == shown


def test_json_value_is_what_claims_json_can_hold():
    """One conversion for the recorder's details and json_text: numbers JSON cannot hold as text, a
    scalar as its number, any other object by ``other`` (its text by default)."""
    import pathlib

    import numpy as np

    data = {"inf": float("inf"), "f32": np.float32(1.5), "t": (1, {2}), 3: pathlib.Path("a/b")}
    assert display.json_value(data) == {"inf": "inf", "f32": 1.5, "t": [1, [2]], "3": "a/b"}
    assert display.json_value([object], other=lambda v: "other") == ["other"]
