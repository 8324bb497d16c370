"""Registry formulas (claimcheck.formula): the language, interval semantics, and registry validation."""

import math
import textwrap
from fractions import Fraction

import pytest

from claimcheck.formula import MAX_DEPTH, FormulaError, evaluate_claim, parse
from claimcheck.interval import Interval
from claimcheck.registry import load_registry

P = Interval.printed


def test_arithmetic_over_printed_intervals():
    f = parse("read_tokens / read_s")
    v = f.evaluate({"read_tokens": P("512"), "read_s": P("0.086")})
    assert v.lo == pytest.approx(511.5 / 0.0865) and v.hi == pytest.approx(512.5 / 0.0855)
    assert parse("(28 - 7) * 5").evaluate({}) == Interval(105, 105)
    assert parse("x ** 2").evaluate({"x": Interval(2, 3)}) == Interval(4, 9)
    assert parse("-log2(p)").evaluate({"p": Interval(0.25, 0.5)}) == Interval(1, 2)


@pytest.mark.parametrize(
    "text, env, holds",
    [
        ("a == b", {"a": Interval(1, 2.1), "b": Interval(2, 3)}, True),  # can be equal: they overlap
        # intervals that only touch are two printed figures side by side (1.5 and 2.5 at one
        # decimal), not one value
        ("a == b", {"a": Interval(1, 2), "b": Interval(2, 3)}, False),
        ("a == b", {"a": Interval(2, 2), "b": Interval(2, 3)}, True),  # an exact value at an end
        ("a == b", {"a": Interval(1, 2), "b": Interval(2.5, 3)}, False),
        ("a <= b", {"a": Interval(1, 3), "b": Interval(2, 2)}, True),  # can be at most
        ("a < b", {"a": Interval(1, 3), "b": Interval(2, 4)}, False),  # not certainly below
        ("a < b", {"a": Interval(1, 2), "b": Interval(2.5, 4)}, True),
        ("a > b", {"a": Interval(3, 4), "b": Interval(1, 2)}, True),
    ],
)
def test_conditions_ask_about_printed_numbers(text, env, holds):
    assert parse(text, condition=True).evaluate(env) is holds


@pytest.mark.parametrize(
    "text, condition, words",
    [
        ("__import__('os')", False, "unknown function"),
        ("a.b()", False, "outside the formula language"),
        ("'x' + 1", False, "outside the formula language"),
        ("a and b", False, "outside the formula language"),
        ("a ** b", False, "a power must be a small integer"),
        ("9 ** 9 ** 9", False, "a power must be a small integer"),
        ("stated.__class__", False, "names starting with '_' are not values"),
        ("a +", False, "not a valid expression"),
        ("a == b", False, "is a comparison"),
        ("a + b", True, "not a comparison"),
    ],
)
def test_outside_the_language_is_a_clear_error(text, condition, words):
    with pytest.raises(FormulaError, match=words):
        parse(text, condition=condition)


def test_division_by_an_interval_holding_zero_is_an_error():
    with pytest.raises(FormulaError, match="containing 0"):
        parse("a / b").evaluate({"a": Interval(1, 1), "b": Interval(-1, 1)})
    with pytest.raises(FormulaError) as err:
        parse("a / (b - b)").evaluate({"a": Interval(1, 1), "b": Interval(-1, 1)})
    assert str(err.value) == "'a / (b - b)': division by an interval containing 0: [-2, 2]"


def test_min_and_max_take_the_extreme_ends_of_their_arguments():
    env = {"a": Interval(1, 2), "b": Interval(0.5, 3)}
    assert str(parse("min(a, b, 7)").evaluate(env)) == "[0.5, 2]"
    assert str(parse("max(a, b)").evaluate(env)) == "[1, 3]"
    with pytest.raises(FormulaError) as err:
        parse("min()").evaluate(env)
    assert str(err.value) == "'min()': min(...): min() arg is an empty sequence"


def test_a_formula_nests_at_most_max_depth_levels():
    assert str(parse("-" * (MAX_DEPTH - 1) + "1").evaluate({})) == "-1"  # the 1 is at level MAX_DEPTH
    with pytest.raises(FormulaError, match=f"nested too deeply \\(at most {MAX_DEPTH} levels\\)"):
        parse("-" * MAX_DEPTH + "1")


def test_a_power_is_a_literal_integer_up_to_16():
    assert str(parse("b ** 3").evaluate({"b": Interval(2, 3)})) == "[8, 27]"
    assert str(parse("b ** 0").evaluate({"b": Interval(2, 3)})) == "1"
    for text in ("b ** -1", "b ** 17", "b ** 0.5", "b ** c"):
        with pytest.raises(FormulaError, match="a power must be a small integer"):
            parse(text)


REGISTRY = """
[chapter]
id = "ch16"
[[claims]]
id = "C01"
title = "prices"
stated = "105"
unit = "CNY"
locator = "105 元"
tolerance = "exact"
needs = ["text"]
values = {{ params_yi = "70", bytes = "4", fp16_gb = "7" }}
formula = "{formula}"
conditions = [{conditions}]
precision = "exact"
[[claims]]
id = "C02"
title = "other"
stated = "5"
unit = "CNY/GB"
locator = "5 元"
tolerance = "exact"
needs = ["text"]
"""


def registry(tmp_path, formula, conditions=""):
    path = tmp_path / "claims.toml"
    path.write_text(
        textwrap.dedent(REGISTRY.format(formula=formula, conditions=conditions)), encoding="utf-8"
    )
    return load_registry(path)


def test_a_claim_evaluated_with_another_claims_value(tmp_path):
    reg = registry(
        tmp_path, "(params_yi * bytes / 10 - fp16_gb) * C02.stated", '"params_yi * bytes / 10 == 28"'
    )
    assert not reg.issues
    result = evaluate_claim(reg.claims["C01"], reg)
    assert result.value == Interval(105, 105) and all(holds for _, holds, _ in result.conditions)


def test_a_failing_condition_says_both_sides(tmp_path):
    reg = registry(tmp_path, "C02.stated * 21", '"params_yi * bytes / 10 == 27"')
    result = evaluate_claim(reg.claims["C01"], reg)
    assert result.conditions == (("params_yi * bytes / 10 == 27", False, "28 == 27"),)


@pytest.mark.parametrize(
    "formula, conditions, field, words",
    [
        ("paramz * 2", "", "formula", "no value 'paramz' in this claim (did you mean 'params_yi'?)"),
        ("C03.stated", "", "formula", "names claim 'C03', which the registry does not declare"),
        ("C02.price", "", "formula", "claim C02 has no value 'price'"),
        ("a +", "", "formula", "not a valid expression"),
        ("params_yi", '"params_yi + 1"', "conditions", "not a comparison"),
        ("C02", "", "formula", "'C02' is a claim, not a value: write C02.stated"),
        (
            "params_yi / (bytes - 4)",
            "",
            "formula",
            "cannot be evaluated",
        ),  # a division by 0, found by validate
        ("log2(fp16_gb - 7)", "", "formula", "cannot be evaluated"),  # a logarithm of 0
        (
            "10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 "
            "* 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16 * 10 ** 16",
            "",
            "formula",
            "not a finite number",
        ),
    ],
)
def test_a_bad_formula_is_a_registry_problem_naming_claim_and_field(
    tmp_path, formula, conditions, field, words
):
    reg = registry(tmp_path, formula, conditions)
    assert "C01" not in reg.claims and "C02" in reg.claims  # the other claim is still loaded
    issue = next(i for i in reg.issues if i.claim_id == "C01")
    assert issue.field == field and words in issue.message and str(tmp_path) in str(issue)


@pytest.mark.parametrize(
    "formula, words",
    [
        ("1e309*0", "the number '1e309' is not a finite number"),  # inf * 0 would be nan
        ("1e309-1e309", "the number '1e309' is not a finite number"),
        ("1" + "0" * 400, "is not a finite number of magnitude at most 1e+30"),
        ("entropy_bits_top_k(50257)", "needs at least one probability"),  # an IndexError before
        ("entropy_bits_top_k(2, 0.5, 0.5, 0.5)", "sum to more than 1"),  # a ValueError of the helper
        (" * ".join(["params_yi ** 16"] * 12), "an intermediate value is not a finite number"),  # 70 ** 192
        ("+".join(["1"] * 100000), "a formula has at most 1000"),  # a RecursionError in ast before
        ("-" * 100000 + "1", "a formula has at most 1000"),  # a MemoryError before
        ("sqrt(" * 60 + "4" + ")" * 60, "nested too deeply"),
        ("+".join(["1"] * 60), "nested too deeply"),  # a chain of operators nests too
        ("-" * 500 + "1", "nested too deeply"),
    ],
)
def test_a_formula_is_data_every_failure_is_its_claims_problem(tmp_path, formula, words):
    reg = registry(tmp_path, formula)
    assert "C01" not in reg.claims and "C02" in reg.claims  # the other claim is still loaded
    (issue,) = [i for i in reg.issues if i.claim_id == "C01"]
    assert issue.field == "formula" and words in issue.message
    assert len(str(issue)) < 400  # a short excerpt of the formula, never all of it


def test_the_formula_bounds_hold_at_their_limits():
    assert parse("+".join(["1"] * 30)).evaluate({}) == Interval(30, 30)
    assert parse("(" * 100 + "1" + ")" * 100).evaluate({}) == Interval(1, 1)  # parentheses alone nest nothing
    assert parse("1e30 * 2").evaluate({}) == Interval(2 * 10**30, 2 * 10**30)  # literals are exact decimals
    with pytest.raises(FormulaError, match="at most 1000"):
        parse("1" * 1001)


@pytest.mark.parametrize("exc", [OverflowError("big"), IndexError("idx"), RecursionError(), MemoryError()])
def test_any_failure_of_a_helper_is_a_formula_error(monkeypatch, exc):
    from claimcheck import formula

    def broken(*args):
        raise exc

    monkeypatch.setitem(formula.FUNCTIONS, "sqrt", (broken, "broken"))
    with pytest.raises(FormulaError, match="sqrt"):
        parse("sqrt(4)").evaluate({})


def test_validating_many_formula_claims_reads_only_the_names_each_formula_names(tmp_path, monkeypatch):
    """Each formula claim once read every value of every claim: validate was quadratic (2,000
    claims 20 s). Now it reads the names its formula and conditions name."""
    from claimcheck import formula

    n = 300
    path = tmp_path / "claims.toml"
    path.write_text(
        '[chapter]\nid = "chv"\n'
        + "".join(
            f'[[claims]]\nid = "C{i:03d}"\ntitle = "t"\nstated = "{i}.5"\nunit = "MiB"\nlocator = "l {i}"\n'
            f'tolerance = "exact"\nneeds = ["text"]\nvalues = {{ a = "{i}" }}\nformula = "a + C001.a - 0.5"\n'
            'precision = "exact"\n'
            for i in range(1, n + 1)
        ),
        encoding="utf-8",
    )
    read = []
    real = formula.value_of
    monkeypatch.setattr(formula, "value_of", lambda *a: read.append(a) or real(*a))
    reg = load_registry(path)
    assert not reg.issues and len(reg.claims) == n
    assert len(read) <= 3 * n  # 2 per claim; 180,600 before


def test_exp_gives_the_powers_an_integer_exponent_cannot():
    """``**`` takes a small whole exponent only; exp and ln write any other power (e^(z/T) of a
    softmax table), and an overflow is the formula's error, not the run's."""
    e_half = parse("exp(z / t)").evaluate({"z": Interval(1, 1), "t": Interval(2, 2)})
    assert math.isclose(e_half.lo, math.sqrt(math.e)) and math.isclose(e_half.hi, math.sqrt(math.e))
    root2 = parse("exp(0.5 * ln(a))").evaluate({"a": Interval(2, 2)})
    assert math.isclose(root2.lo, math.sqrt(2))
    with pytest.raises(FormulaError, match="exp"):
        parse("exp(x)").evaluate({"x": Interval(1000, 1000)})


@pytest.mark.parametrize(
    "precision, ok", [("", False), ('precision = "printed"', False), ('precision = "exact"', True)]
)
def test_an_exact_formula_must_read_exact_numbers(tmp_path, precision, ok):
    """At printed precision 2 + 2 is [3, 5]: 'exact' could never accept it, so validate says so."""
    path = tmp_path / "claims.toml"
    path.write_text(
        '[chapter]\nid = "ch99"\ntitle = "t"\n\n[[claims]]\nid = "C01"\ntitle = "sum"\nstated = "4"\n'
        'unit = ""\nlocator = "= 4"\ntolerance = "exact"\nneeds = ["text"]\nformula = "a + b"\n'
        f'values = {{ a = "2", b = "2" }}\nquotes = {{ a = "2 +", b = "+ 2" }}\n{precision}\n',
        encoding="utf-8",
    )
    reg = load_registry(path)
    assert ("C01" in reg.claims) is ok
    if not ok:
        (issue,) = reg.issues
        assert (
            issue.claim_id == "C01" and issue.field == "tolerance" and 'precision = "exact"' in issue.message
        )
        assert str(path) in str(issue)


def test_exact_precision_is_the_printed_decimals_arithmetic():
    from claimcheck.formula import value_of

    env = {n: value_of(v, "exact") for n, v in (("a", "0.1"), ("b", "0.2"), ("c", "0.3"))}
    env["d"] = value_of("0.3000000000000000001", "exact")
    assert parse("a + b == c", condition=True).evaluate(env) is True  # no float rounding to absorb
    assert parse("a + b == d", condition=True).evaluate(env) is False  # once equal within a float's slack
    assert parse("a + b").evaluate(env) == Interval(Fraction(3, 10), Fraction(3, 10))
    big = {"n": value_of("36864.0000000000000000001", "exact"), "m": value_of("36864", "exact")}
    assert parse("n == m", condition=True).evaluate(big) is False
    assert parse("n > m", condition=True).evaluate(big) is True
    # printed precision keeps its slack at the ends of the printed intervals
    printed = {n: value_of(v, "printed") for n, v in (("a", "0.1"), ("b", "0.2"), ("c", "0.4"))}
    assert parse("a + b == c", condition=True).evaluate(printed) is True


def test_an_exact_formula_claim_fails_a_stated_figure_beyond_its_value(tmp_path):
    from claimcheck.editor import revised_verdict

    (tmp_path / "claims.toml").write_text(
        textwrap.dedent(
            """
            [chapter]
            id = "ch15"
            title = "t"
            id_pattern = 'C\\d{2}'

            [[claims]]
            id = "C01"
            title = "bytes"
            stated = "36864"
            unit = "B"
            locator = "36864"
            tolerance = "exact"
            precision = "exact"
            needs = ["text"]
            values = { a = "36", b = "1024" }
            formula = "a * b"
            """
        ),
        encoding="utf-8",
    )
    reg = load_registry(tmp_path / "claims.toml")
    claim = reg.claims["C01"]
    assert revised_verdict(claim, reg, "36864").outcome == "passed"
    assert revised_verdict(claim, reg, "36864.0000000000000000001").outcome == "failed"


def test_surprisal_needs_a_probability_above_zero():
    from claimcheck.formula import surprisal_bits

    with pytest.raises(ValueError, match="probability interval must be > 0"):
        surprisal_bits(Interval(0.0, 0.5))
    assert surprisal_bits(Interval(0.25, 0.5)) == Interval(1.0, 2.0)


def test_entropy_bounds_by_hand():
    from claimcheck.formula import FUNCTIONS, entropy_bounds_from_top_k, entropy_term_bits

    half, quarter = Interval(0.5, 0.5), Interval(0.25, 0.25)
    # listed: 0.5 * 1 + 0.25 * 2 = 1 bit; the rest 0.25: at least 0.25 * 2 (on entries at 0.25),
    # at most 0.25 * log2((4 - 2) / 0.25) = 0.75 (uniform over the other 2)
    assert entropy_bounds_from_top_k([half, quarter], 4) == Interval(1.5, 1.75)
    assert entropy_bounds_from_top_k([half, half], 4) == Interval(1.0, 1.0)  # sums to exactly 1: no rest
    assert entropy_bounds_from_top_k([Interval(1.0, 1.0), Interval(0.0, 0.0)], 10) == Interval(0.0, 0.0)
    top_k = FUNCTIONS["entropy_bits_top_k"][0]
    assert top_k(Interval(4, 4.9), half, quarter) == Interval(1.5, 1.75)  # the vocabulary's floor: 4
    with pytest.raises(
        FormulaError, match=r"^entropy_bits_top_k\(vocab, p1, \.\.\., pk\) needs at least one probability$"
    ):
        top_k(Interval(4, 4))
    # -p log2 p over an interval: 0 at p = 0; probabilities above 1 count as 1
    assert entropy_term_bits(Interval(0.0, 0.25)) == Interval(0.0, 0.5)
    assert entropy_term_bits(Interval(0.5, 1.5)) == Interval(0.0, 0.5)


def test_explain_says_a_formulas_value_and_a_conditions_sides():
    one_two = {"a": Interval(1, 1), "b": Interval(2, 3)}
    assert parse("a + b").explain(one_two) == "a + b = [3, 4]"
    assert (
        parse("ch15:C10.stated == 2", condition=True).explain({"ch15:C10.stated": Interval(2, 2)}) == "2 == 2"
    )
    with pytest.raises(FormulaError, match=r"^'a \+ c == b': no value named 'c'"):
        parse("a + c == b", condition=True).explain(one_two)


def test_environment_gives_every_printed_figure_a_claim_may_read(tmp_path):
    from claimcheck.formula import environment

    reg = registry(tmp_path, "params_yi * bytes")
    env = environment(reg.claims["C01"], reg)
    exact = Interval.exact_decimal
    assert env == {
        "stated": exact("105"),
        "params_yi": exact("70"),
        "bytes": exact("4"),
        "fp16_gb": exact("7"),
        "C01.stated": exact("105"),
        "C01.params_yi": exact("70"),
        "C01.bytes": exact("4"),
        "C01.fp16_gb": exact("7"),
        "C02.stated": exact("5"),
    }
    assert all(v.is_exact for v in env.values())  # precision "exact": the printed decimals themselves
    # another chapter's values through the book; a name of a chapter not in it is left out
    other = environment(
        reg.claims["C01"], reg, ["ch15:C02.stated", "ch99:C02.stated", "nosuch"], {"ch15": reg}
    )
    assert other == {"ch15:C02.stated": exact("5")}


def test_evaluate_claim_errors_name_the_claim(tmp_path):
    import dataclasses

    reg = registry(tmp_path, "params_yi * bytes")
    with pytest.raises(FormulaError, match="^claim C02 has no formula$"):
        evaluate_claim(reg.claims["C02"], reg)
    bad = dataclasses.replace(reg.claims["C01"], values={"params_yi": "7x", "bytes": "4", "fp16_gb": "7"})
    with pytest.raises(FormulaError, match="^claim C01: not a printed decimal number: '7x'$"):
        evaluate_claim(bad, reg)


def test_evaluation_errors_say_the_formula_and_why(monkeypatch):
    with pytest.raises(FormulaError, match=r"^'a \+ c': no value named 'c'$"):
        parse("a + c").evaluate({"a": Interval(1, 1)})
    with pytest.raises(FormulaError, match=r"^log2\(\[-1, 1\]\): math domain error$"):
        parse("log2(a)").evaluate({"a": Interval(-1, 1)})
    with pytest.raises(FormulaError, match=r"not a finite number \(beyond a float's range\)"):
        parse("a * a").evaluate({"a": Interval.exact_decimal("1e200")})
    with pytest.raises(FormulaError, match=r"not a finite number \(\[1e\+200, inf\]\)"):
        parse("a * a").evaluate({"a": Interval(1e100, 1e200)})
    assert parse("-a").evaluate({"a": Interval(1, 2)}) == Interval(-2, -1)
    assert parse("+a").evaluate({"a": Interval(1, 2)}) == Interval(1, 2)
    assert parse("a ** 2").evaluate({"a": Interval.exact_decimal("0.1")}).is_exact  # exact powers stay exact


def test_an_exact_rational_grown_past_its_limit_becomes_a_float(monkeypatch):
    import claimcheck.formula as formula

    third = {"a": Interval.exact_decimal("1") / Interval.exact_decimal("3")}
    assert parse("a * a").evaluate(third).is_exact
    monkeypatch.setattr(formula, "MAX_EXACT_BITS", 3)  # 1/9 needs 4 bits
    v = parse("a * a").evaluate(third)
    assert not v.is_exact and v.lo == pytest.approx(1 / 9)
    monkeypatch.setattr(formula, "MAX_EXACT_BITS", 4)  # exactly at the limit: still exact
    assert parse("a * a").evaluate(third).is_exact


def test_the_evaluators_remaining_edges():
    from claimcheck.formula import FUNCTIONS, split_reference

    assert parse("a ** 0").evaluate({"a": Interval(2, 3)}) == Interval(1, 1)
    assert split_reference("ch15:C10.stated") == ("ch15", "C10", "stated")
    assert FUNCTIONS["log2"][0](Interval(2, 4)) == Interval(1, 2)
    assert parse("ch15:C10.stated * 2").evaluate({"ch15:C10.stated": Interval(2, 2)}) == Interval(4, 4)
    with pytest.raises(
        FormulaError,
        match=r"^'a \+ 1': cannot be computed \(TypeError: float\(\) argument must be a string or a real "
        r"number, not 'object'\)$",
    ):
        parse("a + 1").evaluate({"a": object()})


@pytest.mark.parametrize(
    "text, condition, message",
    [
        (
            "1e31 + a",
            False,
            "'1e31 + a': the number '1e+31' is not a finite number of magnitude at most 1e+30",
        ),
        (
            "1111111111111111111111111111111111111111 + a",
            False,
            "'1111111111111111111111111111111111111111 + a': the number '111111111111111111111111'… (40 characters) is not a finite number of magnitude at most 1e+30",
        ),
        (
            "log2(a).x + 1",
            False,
            "'log2(a).x + 1': 'log2(a).x' is not a name or another claim's value (C25.a_input)",
        ),
        (
            "log2(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa).x",
            False,
            "'log2(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa).x': 'log2(aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'… (53 characters) is not a name or another claim's value (C25.a_input)",
        ),
        (
            "_a + 1",
            False,
            "'_a + 1': '_a': names starting with '_' are not values (a name is 'stated', a key of 'values', or another claim's value such as C25.a_input)",
        ),
        (
            "_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
            False,
            "'_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx': '_xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx'… (51 characters): names starting with '_' are not values (a name is 'stated', a key of 'values', or another claim's value such as C25.a_input)",
        ),
        (
            "(a + nosuch(b))",
            False,
            "'(a + nosuch(b))': unknown function 'nosuch'; known: exp, log2, ln, log10, sqrt, min, max, surprisal_bits, entropy_bits_top_k",
        ),
        (
            "a + fffffffffffffffffffffffffffffffffffffffffffff(b)",
            False,
            "'a + fffffffffffffffffffffffffffffffffffffffffffff(b)': unknown function 'ffffffffffffffffffffffffffffffffffffffff'… (45 characters); known: exp, log2, ln, log10, sqrt, min, max, surprisal_bits, entropy_bits_top_k",
        ),
        (
            "-(a.__x)",
            False,
            "'-(a.__x)': 'a.__x': names starting with '_' are not values (a name is 'stated', a key of 'values', or another claim's value such as C25.a_input)",
        ),
        (
            "a == b.__c",
            True,
            "'a == b.__c': 'b.__c': names starting with '_' are not values (a name is 'stated', a key of 'values', or another claim's value such as C25.a_input)",
        ),
        (
            "a[0] + 1",
            False,
            "'a[0] + 1': 'a[0]' is outside the formula language (numbers, names, + - * / **, parentheses, exp, log2, ln, log10, sqrt, min, max, surprisal_bits, entropy_bits_top_k; one comparison in a condition)",
        ),
        (
            "a[999999999999999999999999999999999999999999999]",
            False,
            "'a[999999999999999999999999999999999999999999999]': 'a[99999999999999999999999999999999999999'… (48 characters) is outside the formula language (numbers, names, + - * / **, parentheses, exp, log2, ln, log10, sqrt, min, max, surprisal_bits, entropy_bits_top_k; one comparison in a condition)",
        ),
        (
            "a + (b == c)",
            True,
            "'a + (b == c)': 'b == c' is outside the formula language (numbers, names, + - * / **, parentheses, exp, log2, ln, log10, sqrt, min, max, surprisal_bits, entropy_bits_top_k; one comparison in a condition)",
        ),
        (
            "a + (b == c)",
            False,
            "'a + (b == c)': 'b == c' is outside the formula language (numbers, names, + - * / **, parentheses, exp, log2, ln, log10, sqrt, min, max, surprisal_bits, entropy_bits_top_k; one comparison in a condition)",
        ),
        (
            "log2(a + b.__c)",
            False,
            "'log2(a + b.__c)': 'b.__c': names starting with '_' are not values (a name is 'stated', a key of 'values', or another claim's value such as C25.a_input)",
        ),
        (
            "a * b.__c",
            False,
            "'a * b.__c': 'b.__c': names starting with '_' are not values (a name is 'stated', a key of 'values', or another claim's value such as C25.a_input)",
        ),
        (
            "b.__c * a",
            False,
            "'b.__c * a': 'b.__c': names starting with '_' are not values (a name is 'stated', a key of 'values', or another claim's value such as C25.a_input)",
        ),
    ],
)
def test_a_formula_outside_the_language_is_refused_word_for_word(text, condition, message):
    """parse's messages in full: the formula, the part refused (cut at 24 or 40 characters), why."""
    with pytest.raises(FormulaError) as info:
        parse(text, condition=condition)
    assert str(info.value) == message


def test_parse_edges_and_messages():
    from claimcheck.formula import MAX_CHARS

    for empty in ("", "   ", None):
        with pytest.raises(FormulaError) as info:
            parse(empty)
        assert str(info.value) == 'must be a non-empty expression such as "read_tps / write_tps"'
    assert parse("a" * MAX_CHARS).names == ("a" * MAX_CHARS,)  # at the limit: allowed
    with pytest.raises(FormulaError) as info:
        parse("-" * 500 + "1")
    assert str(info.value).endswith(": nested too deeply (at most 40 levels)")
    assert str(info.value).startswith("'-----")
    assert parse("ch15:C10.stated * 2").names == ("ch15:C10.stated",)


def test_other_chapters_values_get_aliases_that_no_name_of_the_formula_takes():
    f = parse("xref0 + ch15:C10.stated")
    assert f.names == ("xref0", "ch15:C10.stated") and f.aliases == {"xref0x": "ch15:C10.stated"}
    assert f.evaluate({"xref0": Interval(1, 1), "ch15:C10.stated": Interval(2, 2)}) == Interval(3, 3)
    g = parse("ch15:C10.stated + ch15:C10.stated + ch90:C01.total")
    assert g.names == ("ch15:C10.stated", "ch90:C01.total")
    assert g.aliases == {"xref0": "ch15:C10.stated", "xref1": "ch90:C01.total"}
    assert g.evaluate({"ch15:C10.stated": Interval(2, 2), "ch90:C01.total": Interval(5, 5)}) == Interval(9, 9)


def test_a_missing_long_name_a_chained_comparison_and_a_claim_of_another_chapter(tmp_path):
    import dataclasses

    from claimcheck.formula import environment, evaluate_claim

    with pytest.raises(FormulaError) as info:
        parse("a" * 45).evaluate({})
    assert str(info.value).endswith(f": no value named '{'a' * 40}'… (45 characters)")
    env = {"a": Interval(1, 1), "b": Interval(2, 2), "c": Interval(3, 3)}
    assert parse("a < b < c", condition=True).evaluate(env) is True
    assert parse("a < c < b", condition=True).evaluate(env) is False
    reg = registry(tmp_path, "ch15:C02.stated * 21")
    assert evaluate_claim(reg.claims["C01"], reg, {"ch15": reg}).value == Interval(105, 105)
    # a name of no claim is left out, and the names after it are still read
    assert environment(reg.claims["C01"], reg, ["C99.stated", "C02.stated"]) == {
        "C02.stated": Interval.exact_decimal("5")
    }
    printed = dataclasses.replace(reg.claims["C01"], precision="printed")
    assert environment(printed, reg, ["stated"]) == {"stated": Interval.printed("105")}


def test_a_parser_that_runs_out_of_stack_is_nested_too_deeply(monkeypatch):
    import claimcheck.formula as formula

    def deep(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(formula.ast, "parse", deep)
    with pytest.raises(FormulaError) as info:
        parse("a + b")
    assert str(info.value) == "'a + b': nested too deeply (at most 40 levels)"
