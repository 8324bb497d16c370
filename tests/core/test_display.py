"""claimcheck.display's text helpers: excerpts of hostile input, lines safe in a CI log."""

from claimcheck.display import excerpt, log_line, workflow_escape
from claimcheck.pages import summary


def test_an_excerpt_is_short_whatever_the_input():
    assert excerpt("a / b") == "'a / b'"
    long = "1+" * 500_000
    shown = excerpt(long)
    assert len(shown) < 120 and shown.endswith("… (1,000,000 characters)")
    assert excerpt("boom " * 100, 10, quote=False) == "boom boom … (500 characters)"


def test_a_line_with_a_line_break_cannot_start_a_workflow_command():
    title = "Read is fast\n::add-mask::x\r\n::error file=a::pwned"
    line = log_line(f"C01 does not hold: {title}")
    assert "\n" not in line and "\r" not in line
    assert line == "C01 does not hold: Read is fast%0A::add-mask::x%0D%0A::error file=a::pwned"
    assert log_line("99.16% of the mass") == "99.16% of the mass"  # an ordinary line is left as it is


def test_the_annotations_use_the_same_escaping():
    assert summary._escape_data is workflow_escape
    assert summary.command("error", "a\n::b") == "::error::a%0A::b"
