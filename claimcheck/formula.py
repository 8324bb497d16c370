"""Claims that need no code: the chapter's arithmetic as a registry formula, and surprisal/entropy
bounds from printed probabilities (last section).

``formula = "read_tps / write_tps"`` names printed numbers (``stated``, keys of ``values``,
``C25.a_input``, ``ch15:C10.stated``), with ``conditions`` that must also hold, in interval
arithmetic: with ``precision = "printed"`` (default) "0.086" is [0.0855, 0.0865], with ``"exact"``
exact. The language is a safe subset of Python parsed with :mod:`ast`: numbers, names, ``+ - * /
**`` (integer powers), parentheses and :data:`FUNCTIONS`. In a condition ``==`` means the intervals
overlap, ``<=`` that ``a.lo <= b.hi``, ``<`` that ``a.hi < b.lo`` (``>=``, ``>`` likewise). Every
failure is a :class:`FormulaError`; every intermediate value must be finite.
"""

from __future__ import annotations

import ast
import math
import operator
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from functools import partial
from typing import Any, Protocol, cast

from claimcheck.display import excerpt
from claimcheck.interval import Interval, exact_value

PRECISIONS = ("printed", "exact")

MAX_CHARS = 1000  # the longest formula or condition (characters): the chapter's own are under 150
MAX_DEPTH = 40  # the deepest nesting of a formula's expression tree (operators, calls, parentheses)
MAX_LITERAL = 1e30  # the largest magnitude of a number written in a formula
MAX_EXACT_BITS = 4096  # an exact intermediate value's numerator or denominator beyond this: a float


def _in_float_range(x: float | Fraction) -> bool:
    """Whether ``x`` (a float, an int or a Fraction) is a finite number within a float's range."""
    try:
        return math.isfinite(x)
    except OverflowError:  # an exact rational beyond a float's range
        return False


def _bits(x: Interval) -> int:
    """The most bits of a numerator or denominator of an exact interval's ends."""
    return max(
        max(abs(f.numerator).bit_length(), f.denominator.bit_length()) for f in map(Fraction, (x.lo, x.hi))
    )


#: another chapter's value in a formula: ``ch15:C10.stated`` (chapter, claim id, value name)
XREF_RE = re.compile(r"(?<![\w.:])[a-z][a-z0-9_-]*:[A-Z]+\d+(?:\.[a-z][a-z0-9_]*)?\.[a-z][a-z0-9_]*")


def split_reference(name: str) -> tuple[str, str, str]:
    """A formula's value name as ``(chapter, claim id, value)``, "" for a part it leaves out:
    ``"ch15:C10.stated"`` -> ``("ch15", "C10", "stated")``; ``"C30.text.p_much"`` ->
    ``("", "C30.text", "p_much")``; ``"read_s"`` -> ``("", "", "read_s")``."""
    chapter, _, local = name.rpartition(":")
    claim_id, _, value = local.rpartition(".")
    return chapter, claim_id, value


class FormulaError(ValueError):
    """A formula that cannot be parsed or evaluated; ``str()`` says what and where."""


def _monotone(fn: Callable[[float], float], name: str) -> Callable[[Interval], Interval]:
    def apply(x: Interval) -> Interval:
        try:
            return Interval.coerce(x).map_monotone(fn)
        except (ValueError, OverflowError) as exc:
            raise FormulaError(f"{name}({x}): {exc}") from None

    return apply


def _entropy_top_k(vocab: Interval, *probs: Interval) -> Interval:
    if not probs:
        raise FormulaError("entropy_bits_top_k(vocab, p1, ..., pk) needs at least one probability")
    largest = int(math.floor(Interval.coerce(vocab).hi))  # the largest vocabulary: the safe upper bound
    return entropy_bounds_from_top_k([Interval.coerce(p) for p in probs], largest)


def _extreme(pick: Callable[[Iterable[float]], float], *args: Interval) -> Interval:
    xs = [Interval.coerce(x) for x in args]
    return Interval(pick(x.lo for x in xs), pick(x.hi for x in xs))


#: the functions a formula may call: name -> (function over intervals, what it computes)
FUNCTIONS: dict[str, tuple[Callable, str]] = {
    "exp": (_monotone(math.exp, "exp"), "e to a power (any power: exp(b * ln(a)))"),
    "log2": (_monotone(math.log2, "log2"), "base-2 logarithm"),
    "ln": (_monotone(math.log, "ln"), "natural logarithm"),
    "log10": (_monotone(math.log10, "log10"), "base-10 logarithm"),
    "sqrt": (_monotone(math.sqrt, "sqrt"), "square root"),
    "min": (partial(_extreme, min), "the smallest of its arguments"),
    "max": (partial(_extreme, max), "the largest of its arguments"),
    "surprisal_bits": (
        lambda p: surprisal_bits(Interval.coerce(p)),
        "-log2(p) in bits, p a probability in [0, 1]",
    ),
    "entropy_bits_top_k": (
        _entropy_top_k,
        "bounds (bits) on the entropy of a distribution over `vocab` "
        "entries known by its top-k probabilities: entropy_bits_top_k(vocab, "
        "p1, ..., pk) (claimcheck.formula)",
    ),
}

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}
# a comparison's sign, and whether it holds for two intervals of printed numbers (module doc)
_COMPARE: dict[type, tuple[str, Callable[[Interval, Interval], bool]]] = {
    ast.Eq: ("==", lambda a, b: a.overlaps(b)),
    ast.LtE: ("<=", lambda a, b: a.lo <= b.hi),
    ast.GtE: (">=", lambda a, b: a.hi >= b.lo),
    ast.Lt: ("<", lambda a, b: a.hi < b.lo),
    ast.Gt: (">", lambda a, b: a.lo > b.hi),
}


@dataclass(frozen=True)
class Formula:
    """A parsed formula or condition: its text, the names it reads, its tree."""

    text: str
    names: tuple[str, ...]
    tree: ast.Expression
    # the Python names standing for other chapters' values (``ch15:C10.stated`` is not Python): alias -> name
    aliases: Mapping[str, str] = field(default_factory=dict)

    def evaluate(self, env: Mapping[str, Interval]) -> Any:  # an Interval; for a condition, a bool
        """The value (an :class:`Interval`) or, for a condition, whether it holds, ``env`` giving each
        name. Raises FormulaError: a name is missing, a division by an interval holding 0, a function
        outside its domain."""
        if isinstance(self.tree.body, ast.Compare):
            return self.judged(env)[0]
        return _Evaluator(env, self.text, self.aliases).run(self.tree.body)

    def explain(self, env: Mapping[str, Interval]) -> str:
        """A condition's two sides as computed: ``"[11.6, 11.7] == [11.55, 11.65]"``."""
        if isinstance(self.tree.body, ast.Compare):
            return self.judged(env)[1]
        return f"{self.text} = {self.evaluate(env)}"

    def judged(self, env: Mapping[str, Interval]) -> tuple[bool, str]:
        """A condition's ``(holds, its sides as computed)`` (:meth:`explain`), each side evaluated once;
        a chain (``a < b < c``) holds where each comparison does."""
        body = cast(ast.Compare, self.tree.body)
        ev = _Evaluator(env, self.text, self.aliases)
        sides = [ev.run(side) for side in (body.left, *body.comparators)]
        signs = [_COMPARE[type(op)] for op in body.ops]
        holds = all(test(a, b) for (_, test), a, b in zip(signs, sides, sides[1:]))
        return holds, " ".join([str(sides[0]), *(f"{sign} {b}" for (sign, _), b in zip(signs, sides[1:]))])


def parse(text: str, *, condition: bool = False) -> Formula:
    """Parse a formula (an arithmetic expression) or, with ``condition``, a comparison. Raises
    FormulaError, quoting it: not valid syntax, outside the language, an unknown function, or a
    comparison where a value is expected (or the reverse)."""
    if not isinstance(text, str) or not text.strip():
        raise FormulaError('must be a non-empty expression such as "read_tps / write_tps"')
    text = text.strip()
    shown = excerpt(text)
    if len(text) > MAX_CHARS:
        raise FormulaError(f"{shown}: {len(text)} characters; a formula has at most {MAX_CHARS}")
    code, aliases = _alias_other_chapters(text)
    try:
        tree = ast.parse(code, mode="eval")
    except SyntaxError as exc:
        raise FormulaError(f"{shown} is not a valid expression ({exc.msg}, column {exc.offset})") from None
    except (RecursionError, MemoryError):
        raise FormulaError(f"{shown}: nested too deeply (at most {MAX_DEPTH} levels)") from None
    if _depth(tree.body) > MAX_DEPTH:
        raise FormulaError(f"{shown}: nested too deeply (at most {MAX_DEPTH} levels)")
    names: list[str] = []
    _check(tree.body, shown, names, top=True)
    is_cmp = isinstance(tree.body, ast.Compare)
    if condition and not is_cmp:
        raise FormulaError(
            f"{shown} is not a comparison: a condition compares two sides with ==, <=, >=, < or >"
        )
    if not condition and is_cmp:
        raise FormulaError(
            f"{shown} is a comparison: a formula computes a value (put comparisons in 'conditions')"
        )
    return Formula(text, tuple(dict.fromkeys(aliases.get(n, n) for n in names)), tree, aliases)


def _alias_other_chapters(text: str) -> tuple[str, dict[str, str]]:
    """``text`` with each ``ch15:C10.stated`` replaced by a Python name, and ``{that name: the value}``."""
    aliases: dict[str, str] = {}

    def alias(m: re.Match) -> str:
        name = next((a for a, n in aliases.items() if n == m.group(0)), None)
        if name is None:
            name = f"xref{len(aliases)}"
            while name in text:
                name += "x"
            aliases[name] = m.group(0)
        return name

    return XREF_RE.sub(alias, text), aliases


def _depth(root: ast.AST) -> int:
    """The depth of an expression tree, counted without recursion (a deep tree is what is refused)."""
    deepest, todo = 0, [(root, 1)]
    while todo:
        node, level = todo.pop()
        deepest = max(deepest, level)
        if level <= MAX_DEPTH:  # deeper than the bound: its depth is all that matters
            todo.extend((child, level + 1) for child in ast.iter_child_nodes(node))
    return deepest


def _dotted(node: ast.expr) -> str | None:
    """``C25.a_input`` (an attribute chain over a name) -> ``"C25.a_input"``; else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


def _check(node: ast.expr, text: str, names: list, top: bool = False) -> None:
    value = node.value if isinstance(node, ast.Constant) else None
    if isinstance(value, int | float) and not isinstance(value, bool):
        if not abs(value) <= MAX_LITERAL:  # also false for inf and nan
            raise FormulaError(
                f"{text}: the number {excerpt(ast.unparse(node), 24)} is not a finite number of magnitude "
                f"at most {MAX_LITERAL:g}"
            )
        return
    if isinstance(node, (ast.Name, ast.Attribute)):
        name = _dotted(node)
        if name is None:
            raise FormulaError(
                f"{text}: {excerpt(ast.unparse(node), 40)} is not a name or another claim's value (C25.a_input)"
            )
        if any(part.startswith("_") for part in name.split(".")):
            raise FormulaError(
                f"{text}: {excerpt(name, 40)}: names starting with '_' are not values (a name is 'stated', a "
                "key of 'values', or another claim's value such as C25.a_input)"
            )
        names.append(name)
        return
    if isinstance(node, ast.BinOp) and (type(node.op) in _BINARY or isinstance(node.op, ast.Pow)):
        _check(node.left, text, names)
        _check(node.right, text, names)
        power = node.right.value if isinstance(node.right, ast.Constant) else None
        if isinstance(node.op, ast.Pow) and not (isinstance(power, int) and 0 <= power <= 16):
            raise FormulaError(
                f"{text}: a power must be a small integer written as a number (x ** 2, up to ** 16)"
            )
        return
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        _check(node.operand, text, names)
        return
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and not node.keywords:
        if node.func.id not in FUNCTIONS:
            raise FormulaError(
                f"{text}: unknown function {excerpt(node.func.id, 40)}; known: {', '.join(FUNCTIONS)}"
            )
        for arg in node.args:
            _check(arg, text, names)
        return
    if isinstance(node, ast.Compare) and top and all(type(op) in _COMPARE for op in node.ops):
        for side in (node.left, *node.comparators):
            _check(side, text, names)
        return
    raise FormulaError(
        f"{text}: {excerpt(ast.unparse(node), 40)} is outside the formula language (numbers, names, "
        "+ - * / **, parentheses, " + ", ".join(FUNCTIONS) + "; one comparison in a condition)"
    )


class _Evaluator:
    def __init__(self, env: Mapping[str, Interval], text: str, aliases: Mapping[str, str] | None = None):
        self.env, self.text, self.aliases = env, excerpt(text), aliases or {}

    def run(self, node: ast.expr) -> Any:
        """Evaluate ``node``; any failure of the arithmetic is a :class:`FormulaError`."""
        try:
            return self.visit(node)
        except FormulaError:
            raise
        except (ArithmeticError, ValueError, TypeError, IndexError, RecursionError, MemoryError) as exc:
            raise FormulaError(
                f"{self.text}: cannot be computed ({type(exc).__name__}: {excerpt(str(exc), quote=False)})"
            ) from None

    def visit(self, node: ast.expr) -> Any:
        value = self._visit(node)
        if isinstance(value, Interval) and not (_in_float_range(value.lo) and _in_float_range(value.hi)):
            shown = str(value) if not value.is_exact else "beyond a float's range"
            raise FormulaError(f"{self.text}: an intermediate value is not a finite number ({shown})")
        if isinstance(value, Interval) and value.is_exact and _bits(value) > MAX_EXACT_BITS:
            value = value.as_float()  # an exact rational grown past any printed figure's digits
        return value

    def _visit(self, node: ast.expr) -> Any:
        if isinstance(node, ast.Constant):  # a literal as the decimal it is written as, exactly
            v: Any = exact_value(cast(int | float, node.value))  # parse() admits numbers only
            return Interval(v, v)
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = _dotted(node)
            name = self.aliases.get(name, name) if name else name
            if name is None or name not in self.env:
                raise FormulaError(f"{self.text}: no value named {excerpt(str(name), 40)}")
            return self.env[name]
        if isinstance(node, ast.BinOp):
            a, b = self.visit(node.left), self.visit(node.right)
            if isinstance(node.op, ast.Pow):  # by a literal integer, 0 to 16 (-1 parses as a unary minus)
                power = cast(int, cast(ast.Constant, node.right).value)  # parse(): a literal 0..16
                return math.prod([a] * power, start=Interval(1, 1))
            try:
                return _BINARY[type(node.op)](a, b)
            except ZeroDivisionError as exc:  # a division by an interval holding 0
                raise FormulaError(f"{self.text}: {exc}") from None
        if isinstance(node, ast.UnaryOp):
            v = self.visit(node.operand)
            return -v if isinstance(node.op, ast.USub) else v
        if isinstance(node, ast.Call):
            called = cast(ast.Name, node.func).id  # parse() admits calls of FUNCTIONS by name only
            fn = FUNCTIONS[called][0]
            try:
                return fn(*[self.visit(a) for a in node.args])
            except FormulaError:
                raise
            except (TypeError, ValueError, ArithmeticError, IndexError) as exc:
                raise FormulaError(
                    f"{self.text}: {called}(...): {excerpt(str(exc) or type(exc).__name__, quote=False)}"
                ) from None
        raise FormulaError(f"{self.text}: cannot evaluate {excerpt(ast.unparse(node))}")  # pragma: no cover


def value_of(printed: str, precision: str) -> Interval:
    """A printed number as an interval: every value that rounds to it (``printed``), or exactly it (the
    printed decimal as an exact rational, so ``exact`` arithmetic is exact)."""
    return Interval.printed(printed) if precision == "printed" else Interval.exact_decimal(printed)


@dataclass(frozen=True)
class Evaluation:
    """A formula claim evaluated: the formula's interval, and each condition with its two sides."""

    value: Interval
    conditions: tuple[tuple[str, bool, str], ...]  # (condition, holds, its sides as computed)


class FormulaClaim(Protocol):
    """What a formula reads of a claim (:class:`claimcheck.registry.Claim` has it; named here, not
    imported, since the registry checks its formulas with this module)."""

    @property
    def id(self) -> str: ...
    @property
    def stated(self) -> str: ...
    @property
    def values(self) -> Mapping[str, str]: ...
    @property
    def formula(self) -> str | None: ...
    @property
    def conditions(self) -> tuple[str, ...]: ...
    @property
    def precision(self) -> str: ...


class FormulaRegistry(Protocol):
    """What a formula reads of a registry: its claims by id (:class:`claimcheck.registry.Registry`)."""

    @property
    def claims(self) -> Mapping[str, FormulaClaim]: ...


def environment(
    claim: FormulaClaim,
    registry: FormulaRegistry,
    names: Iterable[str] | None = None,
    book: Mapping[str, FormulaRegistry] | None = None,
) -> dict[str, Interval]:
    """The values a formula claim may read as intervals (its precision): ``stated``, its ``values``,
    other claims' as ``<id>.<name>``, with ``book`` (chapter id -> registry) other chapters' as
    ``ch15:C10.stated``; only ``names`` when given, none a claim lacks. Raises FormulaError: a printed
    number that is not a plain decimal."""
    if names is None:
        names = ["stated", *claim.values]
        names += [f"{o.id}.{k}" for o in registry.claims.values() for k in ("stated", *o.values)]
    env: dict[str, Interval] = {}
    try:
        for name in names:
            chapter, ref, key = split_reference(name)
            source = (book or {}).get(chapter) if chapter else registry
            owner = (source.claims.get(ref) if source is not None else None) if ref else claim
            if owner is None:
                continue
            text = owner.values.get(key) if key in owner.values else owner.stated if key == "stated" else None
            if text:
                env[name] = value_of(text, claim.precision)
    except ValueError as exc:
        raise FormulaError(f"claim {claim.id}: {exc}") from None
    return env


def evaluate_claim(
    claim: FormulaClaim, registry: FormulaRegistry, book: Mapping[str, FormulaRegistry] | None = None
) -> Evaluation:
    """A claim's ``formula`` and ``conditions`` evaluated over :func:`environment`. Raises FormulaError,
    quoting the formula: the claim has none, or it cannot be evaluated (a division by an interval
    holding 0, a function outside its domain)."""
    if not claim.formula:
        raise FormulaError(f"claim {claim.id} has no formula")
    formula = parse(claim.formula)
    conditions = [parse(text, condition=True) for text in claim.conditions]
    env = environment(claim, registry, {n for f in (formula, *conditions) for n in f.names}, book)
    value = formula.evaluate(env)  # finite: the evaluator refuses every value that is not
    return Evaluation(
        value.as_float(),  # exact rationals inside, floats for the report
        tuple((t, *f.judged(env)) for t, f in zip(claim.conditions, conditions)),
    )


# --- Bounds (bits) on surprisal and entropy from printed probabilities (intervals), for registry
# formulas; the measured ones are :mod:`claimcheck.llm.lm`'s.
def surprisal_bits(p: Interval) -> Interval:
    """Surprisal -log2(p) in bits of a probability interval (decreasing in p)."""
    if p.lo <= 0:
        raise ValueError(f"probability interval must be > 0: {p}")
    return p.map_monotone(lambda x: -math.log2(x))


def entropy_term_bits(p: Interval) -> Interval:
    """The range of -p*log2(p) (bits) over a probability interval (its maximum is at 1/e)."""

    def f(x: float) -> float:
        return 0.0 if x <= 0 else -x * math.log2(x)

    ends = (f(max(p.lo, 0.0)), f(min(p.hi, 1.0)))
    return Interval(min(ends), f(1 / math.e) if p.lo <= 1 / math.e <= p.hi else max(ends))


def entropy_bounds_from_top_k(probs: list[Interval], vocab_size: int) -> Interval:
    """Bounds (bits) on the entropy of a distribution known by its k largest probabilities ``probs``
    (intervals, decreasing). The rest r = 1 - sum(probs), over ``vocab_size - k`` entries none above
    the k-th, has at least ``r * -log2(p_k.hi)`` bits (on entries at the k-th probability) and at most
    ``r * log2((vocab_size - k) / r)`` (uniform). Source: Cover & Thomas, *Elements of Information
    Theory*, 2.6. Raises ValueError: the probabilities cannot sum to at most 1."""
    listed = sum((entropy_term_bits(p) for p in probs), Interval(0.0, 0.0))
    total = sum(probs, Interval(0.0, 0.0))
    if total.lo > 1:
        raise ValueError(f"listed probabilities sum to more than 1: {total}")
    rest = Interval(max(0.0, 1 - total.hi), 1 - total.lo)
    rest_lo = rest.lo * -math.log2(probs[-1].hi) if rest.lo > 0 else 0.0  # r on entries at the k-th p
    rest_hi = rest.hi * math.log2((vocab_size - len(probs)) / rest.hi) if rest.hi > 0 else 0.0  # r uniform
    return listed + Interval(rest_lo, max(rest_lo, rest_hi))
