"""The ``claim`` fixture: hand a claim test's evidence to :mod:`claimcheck.verdict`, keep the test's
result, a :class:`~claimcheck.results.ClaimEntry`, on its item (``item.stash[RESULT_KEY]``; the glue
sends it with each phase, from xdist workers too), and stop the test the verdict's way
(:meth:`ClaimRecorder._settle`)."""

from __future__ import annotations

import base64
import contextlib
from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import partial
from typing import Any, Protocol

import pytest

from claimcheck.display import format_value, json_value, printable
from claimcheck.fingerprint import busy_by_load, load_average
from claimcheck.interval import Interval
from claimcheck.outcomes import FAILED, INCONCLUSIVE, SKIPPED, ends, worse
from claimcheck.pages.words import known_cause
from claimcheck.registry import Claim
from claimcheck.results import ClaimEntry
from claimcheck.verdict import (
    Compared,
    Evidence,
    Form,
    Measured,
    Requirement,
    Timed,
    Verdict,
    claim_region,
    judge,
    settled,
)

# on a test's item (its phases' reports carry them in its entry: claimcheck.plugin.phases.PHASE_ATTR)
PLOTS_KEY = pytest.StashKey[list]()  # [(name, base64 PNG), ...] for the HTML report
RESULT_KEY = pytest.StashKey[ClaimEntry]()  # the test's result so far
CLAIM_KEY = pytest.StashKey[str]()  # the key of the claim it stands for (ch15:C05)
KIND_KEY = pytest.StashKey[str]()  # "placeholder" | "registry-error" | "module-error" | "drift" | "audit" ...
VERDICT_KEY = pytest.StashKey[Verdict]()  # the claim test's standing verdict
RECORD_KEY = "claimcheck.record"  # the result as JSON text: the one user property, for --junitxml's readers


_BUSY = " (busy: other work shares the cores, so timing verdicts are unreliable; rerun on a quiet machine)"


def _load_note(claim: Claim) -> str:
    """A timing claim's note of the machine's load now (a busy machine distorts timing verdicts)."""
    if "time" not in claim.needs:
        return ""
    load, cores = load_average()
    if load is None:
        return ""
    busy = _BUSY if busy_by_load(load, cores) else ""
    return f"; 1-min load average {load:.1f} on {cores} cores{busy}"


def _jsonable(value: Any) -> Any:
    """``value`` as JSON values (:func:`~claimcheck.display.json_value`), an interval as ``[lo, hi]``."""
    return json_value(value, lambda v: [v.lo, v.hi] if isinstance(v, Interval) else str(v))


class VerdictError(Exception):
    """Raised for an ``error`` verdict: the evidence could not be judged (a unit that does not
    convert, a value that is not a number); the claim's row says error, with the reason."""


class ClaimEnd(pytest.fail.Exception):  # type: ignore[name-defined]  # pytest.fail.Exception is a class
    """A claim's test or check ended as a failure in pytest's terms (its message, no traceback) whose
    claim outcome is ``outcome``: ``failed`` for a verdict that the claim does not hold, ``error`` for a
    test that cannot stand for its claim (it xfailed, or went on without a verdict or past one;
    ``reason``: the row's words when not the message), ``inconclusive`` for an undecided timing under
    ``--claims-strict-timing``. ``facts``: what the claim's row says beside a failure, fields of its
    result (``hardware``, the machine it failed on; ``next_step``, what to do: none, the usual one)."""

    # shown as pytest's own ("Failed: message"), whose module is builtins too
    __module__ = "builtins"
    __qualname__ = "Failed"

    def __init__(self, message: str, outcome: str, reason: str | None = None, **facts: str) -> None:
        super().__init__(message, pytrace=False)
        self.outcome = outcome
        self.reason = message if reason is None else reason
        self.facts: dict[str, Any] = facts  # read by name into the result (dataclasses.replace)


def strict_timing_message(claim_id: str, verdict: Verdict) -> str:
    """The failure of an inconclusive timing under ``--claims-strict-timing``."""
    return f"{claim_id} (--claims-strict-timing): {verdict.reason or ''}"


class Comparison(Protocol):
    """What :meth:`ClaimRecorder.check_comparison` needs of a comparison a near-tie (two logits that
    tie, flipped by the same maths in another order) may explain: the fields of
    :class:`claimcheck.verdict.Compared`; ``details()``: facts for the report row (JSON values)."""

    measured: float
    near_tie: bool
    diverged: bool

    def describe(self) -> str: ...

    def details(self) -> dict: ...


class TimingMeasurement(Protocol):
    """What :meth:`ClaimRecorder.check_timing` needs of a timing (:class:`claimcheck.llm.timing.Timing`):
    ``measure`` extends its rounds while ``settled(evidence)`` is false and its budget allows."""

    def measure(
        self,
        statistic: Callable[..., Any],
        *,
        conditions: Any,
        exact: Any,
        unit: str | None,
        settled: Callable[[Timed], bool],
    ) -> Timed: ...

    def details(self) -> dict: ...


class ClaimRecorder:
    """The ``claim`` fixture: one claim of the registry, bound to the running test."""

    def __init__(
        self, claim: Claim, item: Any, runner: str | None, hardware: str, strict_timing: bool = False
    ) -> None:
        self.claim = claim
        self._item = item
        self._runner = runner
        self._hardware = hardware
        self._strict_timing = strict_timing  # --claims-strict-timing: an inconclusive timing fails
        self.details: dict = {}
        self.model: str | None = None  # set by on_model(): the portable-LM lane's model
        self._form: dict = {}  # stated/unit/tolerance of a portable form (check_form)
        self._verdict: Verdict | None = None  # the standing verdict (the worst so far)
        self._last_value: Any = None

    @property
    def id(self) -> str:
        return self.claim.id

    @property
    def runner(self) -> str | None:
        """This run's runner profile (``--claims-runner``), or None."""
        return self._runner

    @property
    def stated(self) -> str:
        return self.claim.stated

    @property
    def region(self) -> tuple[float, float] | None:
        """The values the claim's tolerance accepts, ``(lo, hi)`` in its unit (None: no region)."""
        return claim_region(self.claim)

    @property
    def on_its_runner(self) -> bool:
        """Whether this run is on the runner a machine-bound claim was measured on (and enforced on)."""
        return bool(self.claim.runner) and self.claim.runner == self._runner

    def value(self, name: str) -> str:
        """The printed number ``name`` of the claim's ``values``. Raises KeyError (naming claim and file)."""
        return self._entry(self.claim.values, "value", "values", name)

    @property
    def inputs(self) -> Mapping[str, str]:
        """The claim's ``inputs`` table, name -> the text a check feeds a model (read-only)."""
        return self.claim.inputs

    def input(self, name: str) -> str:
        """The text ``name`` of the claim's ``inputs``. Raises KeyError (naming claim and file)."""
        return self._entry(self.claim.inputs, "input", "inputs", name)

    def _entry(self, table: Mapping[str, str], what: str, field: str, name: str) -> str:
        if name not in table:
            raise KeyError(
                f"{self.claim.path}: claim {self.claim.id}: no {what} {name!r} in {field!r} "
                f"(has: {', '.join(table) or 'none'})"
            )
        return table[name]

    def holds(self, measured: Any, printed: str) -> bool:
        """Whether the claim's tolerance admits ``measured`` (in its unit) against ``printed``."""
        return self.claim.tolerance(measured, printed) is None

    def detail(self, **items: Any) -> None:
        """Attach extra facts (sizes, samples, conventions) to this claim's report row."""
        self._add(items)
        self._write()

    def plot(self, png: bytes, name: str) -> None:
        """Attach a PNG (bytes) to this claim's row of the HTML report (embedded, self-contained)."""
        self._item.stash.setdefault(PLOTS_KEY, []).append((name, base64.b64encode(png).decode("ascii")))

    def check(self, measured: Any, unit: str | None = None, **details: Any) -> None:
        """Judge ``measured`` (a number or an :class:`~claimcheck.interval.Interval` in ``unit``, default
        the claim's) by the claim's tolerance; ``details``: facts for the report. Raises
        pytest.fail.Exception: outside the tolerance; pytest.skip.Exception: machine-bound, on another
        runner; TypeError: on the portable-LM lane, a claim about GPT-2's own numbers (use check_form)."""
        __tracebackhide__ = True
        if self.model and not self.claim.portable:
            raise TypeError(
                f"{self.claim.id} is about GPT-2's own numbers (no 'portable = true' in {self.claim.path}): "
                f"on {self.model} check its portable form with claim.check_form(measured, expected, ...)"
            )
        self.decide(Measured(measured, unit), **details)

    def require(
        self, condition: bool, message: str, *, measured: Any = None, unit: str | None = None
    ) -> None:
        """Fail the claim with ``message`` unless ``condition`` holds (then no verdict of its own);
        ``measured`` (in ``unit``): the claim's headline value. Raises pytest.fail.Exception."""
        __tracebackhide__ = True
        if not condition:
            self.decide(Requirement(False, message, measured, unit))

    def check_comparison(self, comparison: Comparison, **details: Any) -> None:
        """Judge a :class:`Comparison`: no difference by the claim's tolerance; a near-tie is ``near-tie``
        (the test goes on; a later check that holds does not upgrade it); any other difference fails
        (pytest.fail.Exception)."""
        __tracebackhide__ = True
        c = comparison
        facts = {"comparison": c.describe(), **c.details(), **details}
        self.decide(Compared(c.measured, c.near_tie, c.diverged, c.describe()), **facts)

    def on_model(self, name: str, info: dict | None = None) -> None:
        """Mark this claim as measured on another causal LM ``name`` (the portable-LM lane): from here on
        :meth:`check` is refused unless the claim is ``portable = true`` (use :meth:`check_form`)."""
        self.model = name
        self.details["model"] = {**{k: _jsonable(v) for k, v in (info or {}).items()}, "name": name}
        self._write()

    def check_form(
        self,
        measured: Any,
        expected: Any,
        tolerance: str = "exact",
        unit: str = "",
        form: str = "",
        **details: Any,
    ) -> None:
        """Judge a portable form (``form`` says which) on the lane's model: ``measured`` against
        ``expected`` (for this model) under ``tolerance``. Raises ValueError: no :meth:`on_model` before;
        pytest.fail.Exception: outside the tolerance."""
        __tracebackhide__ = True
        if not self.model:
            raise ValueError(
                f"{self.claim.id}: check_form() is for the portable-LM lane; call claim.on_model(name) first"
            )
        stated = expected if isinstance(expected, str) else repr(expected)
        self._form = {"stated": stated, "unit": unit, "tolerance": tolerance, "form": form}
        self.decide(Form(measured, stated, tolerance, unit, form), **details)

    def check_timing(
        self,
        timing: TimingMeasurement,
        statistic: Callable[..., Any],
        *,
        conditions: Any = (),
        exact: Any = (),
        unit: str | None = None,
        plot: Callable[[TimingMeasurement], tuple[bytes, str]] | None = None,
        **details: Any,
    ) -> None:
        """Decide a timing claim: ``statistic`` (rounds -> the claim's value in ``unit``) over ``timing``'s
        rounds, with ``conditions`` and ``exact`` forms, measuring more rounds while undecided and the
        budget allows; ``details`` and ``plot(timing) -> (png, name)`` are recorded whatever the verdict.
        Raises pytest.fail.Exception: failed; pytest.skip.Exception: inconclusive or machine-bound."""
        __tracebackhide__ = True
        until = partial(settled, self.claim)
        evidence = timing.measure(statistic, conditions=conditions, exact=exact, unit=unit, settled=until)
        self._add(timing.details())
        if plot is not None:
            png, name = plot(timing)
            self.plot(png, name)
        self.decide(
            evidence, rounds=evidence.rounds, budget_s=evidence.budget_s, load=dict(evidence.load), **details
        )

    def skip(self, reason: str, *, cause: str | None = None, **details: Any) -> None:
        """Skip the claim (it cannot be checked here), its ``details`` recorded; ``cause``: why, a key of
        :data:`claimcheck.pages.words.CAUSES`. Raises pytest.skip.Exception; ValueError: an unknown cause."""
        __tracebackhide__ = True
        known_cause(cause)
        self._add(details)
        self._settle(Verdict(SKIPPED, None, reason, cause=cause))

    def decide(self, evidence: Evidence, **details: Any) -> None:
        """Have ``evidence`` judged (:func:`claimcheck.verdict.judge`), record the verdict with ``details``
        and end the test its way (:meth:`_settle`): every check ends here."""
        __tracebackhide__ = True
        self._add(details)
        verdict = judge(self.claim, evidence, runner=self._runner)
        if verdict.details.get("failed_condition"):
            self.details.setdefault("failed_conditions", []).append(verdict.details["failed_condition"])
        self._add({k: v for k, v in verdict.details.items() if k != "failed_condition"})
        self._settle(verdict, evidence)

    def _add(self, details: Mapping) -> None:
        self.details.update({k: _jsonable(v) for k, v in details.items()})

    def _settle(self, verdict: Verdict, evidence: Evidence | None = None) -> None:
        """Keep ``verdict`` of ``evidence`` (the standing one is the worst) and end the test its way.
        Raises ClaimEnd, VerdictError or pytest.skip.Exception."""
        __tracebackhide__ = True
        if verdict.value is not None:
            self._last_value = verdict.value
        # the standing verdict is the worst so far, even against a check reached by catching an exception
        if self._verdict is None or worse(self._verdict.outcome, verdict.outcome) == verdict.outcome:
            self._verdict = verdict
        self._item.stash[VERDICT_KEY] = self._verdict
        self._write()
        # the one place a verdict becomes pytest's control flow, as its word's ``ends`` says
        end = ends(verdict.outcome, self._strict_timing)
        if end == "fail" and verdict.outcome == INCONCLUSIVE:
            raise ClaimEnd(strict_timing_message(self.claim.id, verdict), INCONCLUSIVE)
        if end == "fail":
            raise self._failure(verdict, evidence)
        if end == "skip":
            raise pytest.skip.Exception(verdict.reason or "skipped", _use_item_location=True)
        if end == "error":
            raise VerdictError(f"{self.claim.id}: {verdict.reason}")
        if end != "return":
            raise ValueError(
                f"a verdict's outcome must be a word of claimcheck.outcomes, not {verdict.outcome!r}"
            )

    def _write(self) -> None:
        """Keep the test's result so far on its item: the terms judged, the standing verdict, details."""
        stash = self._item.stash
        terms = self._terms()
        changes: dict[str, Any] = {**terms, "details": dict(self.details)}
        v = self._verdict
        value = v.value if v is not None and v.value is not None else self._last_value
        if value is not None:
            changes |= {"measured": _jsonable(value), "measured_display": format_value(value, terms["unit"])}
        if v is not None:
            changes |= {"verdict": v.outcome, "verdict_reason": v.reason, "cause": v.cause}
        result = stash.get(RESULT_KEY, None) or ClaimEntry(self.claim.id, self.claim.id)
        stash[RESULT_KEY] = replace(result, **changes)

    def _terms(self) -> dict:
        """stated, unit and tolerance as shown: a portable form's, else the claim's."""
        own = {"stated": self.claim.stated, "unit": self.claim.unit, "tolerance": self.claim.tolerance_text}
        return {k: self._form.get(k, v) for k, v in own.items()}

    def _failure(self, verdict: Verdict, evidence: Evidence | None) -> ClaimEnd:
        """What a failed ``verdict`` of ``evidence`` raises: its message, with the hardware it failed on
        and, for a measured value's, the next step."""
        c, value, failure = self.claim, verdict.value, verdict.reason
        hardware = f"{self._hardware}{_load_note(c)}"
        if isinstance(evidence, Requirement):
            return ClaimEnd(f"{c.id}: {failure}\n  hardware: {hardware}", FAILED, hardware=hardware)
        if self.model:
            t = self._terms()
            lines = [
                f"{c.id} ({self._form.get('form') or 'portable form'}) does not hold on {self.model}",
                f"  expected:  {t['stated']} {t['unit']}  (for this model, not the chapter's GPT-2 value)",
                f"  measured:  {format_value(value, t['unit']) or '-'}",
                f"  tolerance: {t['tolerance']} -> {failure}",
                f"  hardware:  {self._hardware}",
            ]
            return ClaimEnd("\n".join(printable(line) for line in lines), FAILED, hardware=self._hardware)
        lines = [
            f"{c.id} does not hold: {c.title}",
            f"  chapter:   {c.stated} {c.unit}  (locator: {c.locator!r})",
            f"  measured:  {format_value(value, c.unit) or '-'}",
        ]
        with contextlib.suppress(TypeError, ValueError):  # no stated number, or no measured one
            stated = c.stated_value
            if stated is None:
                raise ValueError("no stated number")
            diff = (value.mid if isinstance(value, Interval) else float(value)) - stated
            rel = f" ({diff / stated:+.2%})" if stated else ""
            lines.append(f"  difference: {diff:+.5g} {c.unit}{rel}".rstrip())
        next_step = (
            f"if the text changed, update 'stated' of {c.id} in {c.path}; if not, "
            "the chapter's figure does not hold on this runner: report it to the author."
        )
        lines += [
            f"  tolerance: {c.tolerance_text} -> {failure}",
            f"  hardware:  {hardware}",
            f"  next: {next_step}",
        ]
        text = "\n".join(printable(line) for line in lines)
        return ClaimEnd(text, FAILED, hardware=hardware, next_step=next_step)
