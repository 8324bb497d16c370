"""The number tokeniser (claimcheck.printed): every format the chapter uses, names, glued cells."""

import re
import threading
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.printed import compile_locator, find_numbers, normalise, parse_number, same_printed


def texts(s):
    return [n.text for n in find_numbers(s)]


@pytest.mark.parametrize(
    "text, printed, scale, value",
    [
        ("约 2.66 亿次", "2.66", "亿", 2.66e8),
        ("有 8506 万个参数", "8506", "万", 85_060_000),
        ("最大只差 5.8 × 10⁻⁶。", "5.8e-6", "", 5.8e-6),
        ("差 5.8 x 10^-6", "5.8e-6", "", 5.8e-6),
        ("差 5.8e-6", "5.8e-6", "", 5.8e-6),
        ("概率 99.16%", "99.16", "%", 0.9916),
        ("命中率 87.5％", "87.5", "%", 0.875),
        ("原价的 1/20", "1/20", "", 0.05),
        ("一共 1,048,576 字节", "1048576", "", 1_048_576),
        ("缓存 １２８ 个", "128", "", 128),
        ("一段 128K token", "128", "K", 128_000),
        ("0.20 美元", "0.20", "", 0.2),
    ],
)
def test_one_number_per_format(text, printed, scale, value):
    [n] = find_numbers(text)
    assert (n.printed, n.scale) == (printed, scale)
    assert n.value == pytest.approx(value)
    assert text[n.start : n.end] == n.text


def test_units_are_read_after_numbers():
    units = {
        n.text: n.unit
        for n in find_numbers("36 KiB/token，500 MB，5.21 s，98 token/s，0.01 比特，4 美元，5 倍")
    }
    assert units == {
        "36": "KiB/token",
        "500": "MB",
        "5.21": "s",
        "98": "token/s",
        "0.01": "比特",
        "4": "美元",
        "5": "倍",
    }


def test_names_are_not_numbers():
    assert texts('GPT-2 small 的权重（float32），gpt2，Llama-3-8B，open("chatgpt-2026-10-21.txt")') == []


def test_a_unit_closes_a_glued_table_cell():
    assert texts("5.21 s98 token") == ["5.21", "98"]
    assert texts("512 个 token0.086 s5947 token") == ["512", "0.086", "5947"]


def test_numbers_glued_to_numbers_are_one_number_until_a_locator_splits_them():
    assert texts("2568.41 s2.58 s3.26 倍") == ["2568.41", "2.58", "3.26"]
    pattern = compile_locator("256¦8.41 s")
    m = pattern.regex.search(normalise("2568.41 s2.58"))
    assert m.groups() == ("256", "8.41")
    # the label keeps its printed shape, so a changed value is read as the value, not the label
    assert pattern.regex.search("25610.5 s").groups() == ("256", "10.5")


def test_a_multiplication_is_not_an_exponent():
    assert texts("2（键和值）× 12 层 × 768 维 × 2 字节") == ["2", "12", "768", "2"]
    assert texts("2 × 8506 万 ≈ 1.7 亿") == ["2", "8506 万", "1.7 亿"]


def test_commas_are_thousands_separators_only_in_groups_of_three():
    assert texts("range(1, 512)") == ["1", "512"]
    assert texts("36,864 and 1,2") == ["36,864", "1", "2"]


def test_lines_are_counted():
    nums = find_numbers("a 1\nb\nc 2 3")
    assert [n.line for n in nums] == [1, 3, 3]


@pytest.mark.parametrize(
    "registry, printed, same",
    [
        ("36864", "36,864", True),
        ("5.8e-6", "5.8 × 10⁻⁶", True),
        ("99.16", "99.16%", True),
        ("8506", "8506 万", True),
        ("20", "1/20", True),
        ("10", "1/20", False),
        ("15/20", "15/20", True),
        ("0.20", "0.2", False),
        ("98", "９８", True),
        ("60", "60.6", False),
    ],
)
def test_same_printed(registry, printed, same):
    assert same_printed(registry, printed) is same


def test_locator_whitespace_is_elastic_but_not_optional_inside_text():
    p = compile_locator("' much' 99.16%")
    assert p.regex.search("' much'  99.16%") and not p.regex.search("'much' 99.16%")
    assert compile_locator("读比写快 60.6 倍").regex.search("读比写快60.6倍")


@pytest.mark.parametrize("bad", ["¦4", "a¦b", "4¦¦5", " "])
def test_misplaced_split_marks_are_errors(bad):
    if bad == "¦4":  # a leading mark is allowed: the first number is glued to one before the locator
        assert compile_locator(bad).numbers[0].text == "4"
        return
    with pytest.raises(ValueError):
        compile_locator(bad)


def test_parse_number_rejects_text():
    with pytest.raises(ValueError, match="not a printed number"):
        parse_number("abc")


def _fullwidth(s):
    return "".join(chr(ord(c) + 0xFEE0) if c.isdigit() else c for c in s)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 4).flatmap(
        lambda places: st.decimals(
            min_value=0, max_value=10**9, places=places, allow_nan=False, allow_infinity=False
        )
    ),
    st.sampled_from(["plain", "commas", "fullwidth", "percent", "wan"]),
    st.sampled_from(["约{}个", "读 {} token/s", "（{}）", "是{}，", "{}"]),
)
def test_any_printed_decimal_is_read_back_with_its_digits(d, style, frame):
    text = format(d, "f")
    if style == "commas":
        whole, _, frac = text.partition(".")
        text = f"{int(whole):,}" + (f".{frac}" if frac else "")
    elif style == "fullwidth":
        text = _fullwidth(text)
    elif style == "percent":
        text += "%"
    elif style == "wan":
        text += " 万"
    [n] = find_numbers(frame.format(text))
    assert Decimal(n.mantissa).as_tuple() == Decimal(format(d, "f")).as_tuple()
    assert same_printed(format(d, "f"), n)


@pytest.mark.parametrize("text", ["x e-३", "e-३0", "K३३.^2,000⁺⁷K"])
def test_a_digit_outside_ascii_after_a_name_ends_the_scan(text):
    """A non-ASCII digit continuing a Latin name (``e-३``) matches no name tail: the scan steps past
    it instead of searching the same place for ever (a manuscript could hang check-manuscript)."""
    found: list = []
    scan = threading.Thread(target=lambda: found.append(find_numbers(text)), daemon=True)
    scan.start()
    scan.join(timeout=10)
    assert found, f"find_numbers({text!r}) did not return within 10 s"
    assert all(0 <= n.start < n.end <= len(text) for n in found[0])


# --- a figure as a person types it (what-if, --claims-stated) --------------------------------------
@pytest.mark.parametrize(
    "typed, unit, figure",
    [
        ("2.96 亿", "亿 FLOP/token", "2.96"),
        ("2.96亿", "亿 FLOP/token", "2.96"),
        ("2.96 亿 FLOP/token", "亿 FLOP/token", "2.96"),
        ("７０ 亿", "亿 param", "70"),
        ("99.16%", "percent", "99.16"),
        ("99.16 %", "%", "99.16"),
        ("38 KiB", "KiB/token", "38"),
        ("38 KiB/token", "KiB/token", "38"),
        ("58×", "x", "58"),
        ("58x", "x", "58"),
        ("58 倍", "x", "58"),
        ("36,864", "B/token", "36864"),
        ("5.8 × 10⁻⁶", "", "5.8e-6"),
        ("-3.2", "x", "-3.2"),
        ("61", "x", "61"),
    ],
)
def test_a_typed_figure_is_read_in_the_claims_unit(typed, unit, figure):
    from claimcheck.printed import figure_in_unit

    assert figure_in_unit(typed, unit) == figure


@pytest.mark.parametrize(
    "typed, unit, said",
    [
        ("70 亿", "param", "'70 亿' is written in 亿, but the claim's unit is param: give it as 7000000000"),
        ("2.66 亿", "FLOP/token", "give it as 266000000"),
        (
            "38 MiB",
            "KiB/token",
            "is written in MiB, but the claim's unit is KiB/token: give the figure in KiB/token",
        ),
        ("58 token", "token/s", "give the figure in token/s"),  # a rate without its /s is a count
        ("99.16%", "", "the claim's unit is none (a plain count): give the number alone"),
        ("abc", "x", "not a printed decimal number: 'abc'"),
        ("1/20", "", "not a printed decimal number"),
    ],
)
def test_a_typed_figure_in_another_unit_is_refused_saying_what_to_type(typed, unit, said):
    from claimcheck.printed import figure_in_unit

    with pytest.raises(ValueError, match=re.escape(said)):
        figure_in_unit(typed, unit)
