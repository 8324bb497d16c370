"""Compare a measured value with its claim, record the result for the reports, and fail clearly.

A claim test receives a :class:`ClaimRecorder` (the ``claim`` fixture) and calls
:meth:`ClaimRecorder.check` with what it measured. The recorder converts units, applies the
claim's tolerance, stores chapter value / measured value / tolerance / verdict on the test item
(``user_properties``, which also travel from xdist workers), and fails the test with a message that
says what, by how much, on what hardware, and what to do next.
"""

from __future__ import annotations

import math
from typing import Protocol

import pytest

from claimcheck.interval import Interval
from claimcheck.registry import Claim
from claimcheck.units import convert

PLOTS_KEY = pytest.StashKey[list]()  # [(name, base64 PNG), ...] for the HTML report
PLOTS_ATTR = "claimcheck_plots"  # the same list on the call report (travels from xdist workers)
RECORD_KEY = "claimcheck.record"  # user property: the claim's record as a JSON string (see encode_record)
CLAIM_ID_KEY = "claimcheck.id"
KIND_KEY = "claimcheck.kind"  # "placeholder" | "registry-error" | "module-error" | "drift" | "audit" for synthetic items
NEAR_TIE_VERDICT = "near-tie"  # a record's verdict: a difference a near-tie explains (check_comparison)
ERROR_KEY = "claimcheck.error"  # on a phase report: the test raised (not a verdict): "Type: message"
EXPECTED_FAIL_KEY = "claimcheck.expected_fail"  # on a phase report: the registry's expected_fail of an xfailed test


def encode_record(record: dict) -> str:
    """A claim's record as the JSON text stored in the test's ``user_properties``.

    JSON (not the dict itself) because every consumer of user properties stringifies them: pytest's
    ``--junitxml`` writes ``str(value)``, which for a dict is a Python repr no tool reads back.
    """
    import json

    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)


def decode_record(value) -> dict:
    """The record of a ``RECORD_KEY`` user property: its JSON text parsed (a dict is returned as is).

    Raises:
        ValueError: the text is not a JSON object (the property was not written by :func:`encode_record`).
    """
    if isinstance(value, dict):
        return value
    import json

    record = json.loads(value)
    if not isinstance(record, dict):
        raise ValueError(f"{RECORD_KEY} is not a JSON object: {value[:80]!r}")
    return record


def stored_record(props) -> dict:
    """The record among ``user_properties`` (a list of pairs), or {} when the test has none."""
    value = next((v for k, v in props if k == RECORD_KEY), None)
    return {} if value is None else decode_record(value)


def format_value(value, unit: str = "") -> str:
    """Human form of a measured value: 5 significant digits, intervals as [lo, hi], with unit."""
    if value is None:
        return "-"
    if isinstance(value, Interval):
        text = str(value) if value.lo == value.hi else f"[{value.lo:.5g}, {value.hi:.5g}]"
    elif isinstance(value, (list, tuple)) and len(value) == 2:
        text = f"[{value[0]:.5g}, {value[1]:.5g}]"
    elif isinstance(value, bool):
        text = str(value)
    elif isinstance(value, int):
        text = f"{value:,}" if abs(value) >= 10000 else str(value)
    else:
        text = f"{float(value):.5g}"
    return f"{text} {unit}".strip()


def _load_note(claim) -> str:
    """For timing claims: the machine's load now, since a busy machine distorts every timing verdict."""
    from claimcheck.load import busy_by_load, load_average

    if "time" not in claim.needs:
        return ""
    load, cores = load_average()
    if load is None:
        return ""
    busy = " (busy: other work shares the cores, so timing verdicts are unreliable; rerun on a quiet machine)" \
        if busy_by_load(load, cores) else ""
    return f"; 1-min load average {load:.1f} on {cores} cores{busy}"


def _jsonable(value):
    if isinstance(value, Interval):
        return [value.lo, value.hi]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


class Comparison(Protocol):
    """What :meth:`ClaimRecorder.check_comparison` needs of a comparison of a measurement with a
    reference where some differences are explained by a stated tolerance of the method (a near-tie:
    two decoders doing the same maths in another order may flip a token where two logits tie).

    ``measured``: the number the claim's tolerance judges (e.g. differing tokens); ``near_tie``:
    the difference is explained by a near-tie; ``diverged``: a difference that is not;
    ``describe()``: one line for the report; ``details()``: facts for the report row (JSON values).
    """

    measured: float
    near_tie: bool
    diverged: bool

    def describe(self) -> str: ...

    def details(self) -> dict: ...


class ClaimRecorder:
    """The ``claim`` fixture: one claim of the registry, bound to the running test."""

    def __init__(self, claim: Claim, item, runner: str | None, hardware: str, runner_desc: dict,
                 strict_timing: bool = False):
        self.claim = claim
        self._strict_timing = strict_timing
        self._item = item
        self._runner = runner
        self._hardware = hardware
        self._runner_desc = runner_desc
        self.details: dict = {}
        self.model: str | None = None  # set by on_model(): the portable-LM lane's model
        self._form: dict = {}  # stated/unit/tolerance of a portable form (check_form)

    # -------------------------------------------------------------------------------------
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

    def value(self, name: str) -> str:
        """Return the printed number ``name`` of the claim's ``values`` table (a string).

        Raises:
            KeyError: the registry entry has no such value; the message names claim and file.
        """
        try:
            return self.claim.values[name]
        except KeyError:
            raise KeyError(f"{self.claim.path}: claim {self.claim.id}: no value {name!r} in 'values' "
                           f"(has: {', '.join(self.claim.values) or 'none'})") from None

    def detail(self, **items) -> None:
        """Attach extra facts (sizes, samples, conventions) to this claim's report row."""
        self.details.update({k: _jsonable(v) for k, v in items.items()})
        self._store(None, None, None)

    def plot(self, png: bytes, name: str) -> None:
        """Attach a PNG (bytes) to this claim's row of the HTML report (embedded, self-contained)."""
        import base64

        self._item.stash.setdefault(PLOTS_KEY, []).append((name, base64.b64encode(png).decode("ascii")))

    # -------------------------------------------------------------------------------------
    def check(self, measured, unit: str | None = None, **details) -> None:
        """Compare ``measured`` with the claim's stated value under its tolerance.

        Args:
            measured: a number or an :class:`~claimcheck.interval.Interval`.
            unit: the unit ``measured`` is in (pint syntax); converted to the claim's unit.
                Default: already in the claim's unit.
            **details: extra facts for the report.

        Machine-bound claims (a registry ``runner``) are enforced only when this run's
        ``--claims-runner`` names that runner; elsewhere the measured value is recorded beside
        the chapter's and the test is skipped with that reason.

        Raises:
            pytest.fail.Exception: the value is outside the tolerance (the test fails).
            pytest.skip.Exception: a machine-bound claim on another runner.
        """
        __tracebackhide__ = True
        if self.model and not self.claim.portable:
            raise TypeError(f"{self.claim.id} is about GPT-2's own numbers (no 'portable = true' in {self.claim.path}): "
                            f"on {self.model} check its portable form with claim.check_form(measured, expected, ...)")
        if details:
            self.details.update({k: _jsonable(v) for k, v in details.items()})
        value = self._convert(measured, unit)
        c = self.claim
        if c.runner and self._runner != c.runner:
            reason = (f"machine-bound: the chapter's {c.stated} {c.unit} was measured on runner "
                      f"'{c.runner}'; this runner is '{self._runner or 'unnamed'}' "
                      f"(--claims-runner), measured here {format_value(value, c.unit)}. Its portable "
                      f"form is checked by another claim; enforce this one with --claims-runner {c.runner}.")
            self._store(value, "machine-bound", reason)
            pytest.skip(reason)
        failure = c.tolerance(value, c.stated or None)
        self._store(value, "fail" if failure else "pass", failure)
        if failure:
            pytest.fail(self._message(value, failure), pytrace=False)

    def check_comparison(self, comparison: "Comparison", **details) -> None:
        """Give the verdict of a comparison in which a near-tie may explain a difference (see :class:`Comparison`;
        the LLM kit's tie-aware token-stream comparison, :func:`claimcheck.llm.generation.compare_streams`, is one).

        No difference: :meth:`check` of ``comparison.measured`` (the claim's tolerance, e.g. ``<=0``
        differing tokens). A difference explained by a near-tie: the verdict ``near-tie`` is
        recorded with ``comparison.describe()`` and the call returns (the test passes in pytest's
        terms, shown as NEAR-TIE; a later ``check`` that holds does not upgrade it). Any other
        difference: fails, with the description. pytest's xfail plays no part: a claim test's
        xfail is an error (see :mod:`claimcheck.plugin.running`).

        Raises:
            pytest.fail.Exception: as above.
        """
        __tracebackhide__ = True
        self.detail(comparison=comparison.describe(), **comparison.details(), **details)
        n = comparison.measured
        if comparison.near_tie:
            self._store(n, NEAR_TIE_VERDICT, comparison.describe())
            return
        if comparison.diverged:
            failure = f"{self.claim.tolerance(n, self.claim.stated or None) or 'differs'}; {comparison.describe()}"
            self._store(n, "fail", failure)
            pytest.fail(self._message(n, failure), pytrace=False)
        self.check(n)

    def on_model(self, name: str, info: dict | None = None) -> None:
        """Mark this claim as measured on another causal LM (the portable-LM lane), named ``name``.

        The report row then names the model. From here on :meth:`check`, which compares with the
        chapter's stated value, is refused unless the registry marks the claim ``portable = true``;
        a claim about GPT-2's own numbers is checked in its portable form with :meth:`check_form`.
        """
        self.model = name
        self.details["model"] = {**{k: _jsonable(v) for k, v in (info or {}).items()}, "name": name}
        self._store(None, None, None)

    def check_form(self, measured, expected, tolerance: str = "exact", unit: str = "", form: str = "", **details) -> None:
        """Check the portable form of a claim on the lane's model: ``measured`` vs ``expected``.

        ``expected`` is computed for this model (e.g. the KV-bytes formula from its config), never
        the chapter's GPT-2 value; the row shows it in place of the chapter's value, with ``form``
        saying what is checked. ``tolerance`` uses the registry's syntax (``exact``, ``<=0``...).

        Raises:
            ValueError: a bad ``tolerance`` string, or no :meth:`on_model` before.
            pytest.fail.Exception: ``measured`` is outside the tolerance.
        """
        __tracebackhide__ = True
        from claimcheck.tolerance import parse_tolerance

        if not self.model:
            raise ValueError(f"{self.claim.id}: check_form() is for the portable-LM lane; call claim.on_model(name) first")
        tol = parse_tolerance(tolerance)
        stated = expected if isinstance(expected, str) else repr(expected)
        self._form = {"stated": stated, "unit": unit, "tolerance": tolerance, "form": form}
        self.details.update({k: _jsonable(v) for k, v in details.items()})
        self.details["portable_form"] = form
        failure = tol(measured, stated)
        self._store(measured, "fail" if failure else "pass", failure)
        if failure:
            pytest.fail(self._message(measured, failure), pytrace=False)

    def require(self, condition: bool, message: str, *, measured=None, unit: str | None = None) -> None:
        """Fail the claim with ``message`` unless ``condition`` holds (a second, qualitative check).

        ``measured`` (in ``unit``, default the claim's): the claim's headline value, recorded when the
        condition fails before :meth:`check` could record it, so the report still shows what this
        runner measured.

        Raises:
            pytest.fail.Exception: ``condition`` is false.
        """
        __tracebackhide__ = True
        if not condition:
            self.details.setdefault("failed_conditions", []).append(message)
            self._store(None if measured is None else self._convert(measured, unit), "fail", message)
            pytest.fail(f"{self.claim.id}: {message}\n  hardware: {self._hardware}{_load_note(self.claim)}", pytrace=False)

    def check_ci(self, ci, unit: str | None = None, *, conditions=(), exact=None, **details) -> None:
        """Decide a timing claim from confidence intervals (the rule of :mod:`claimcheck.stats`).

        Args:
            ci: a :class:`claimcheck.stats.CI` of the claim's statistic, in ``unit`` (default the
                claim's unit), judged against the claim's tolerance region.
            conditions: ``[(condition, CI), ...]``: further statistics with bars of their own
                (objects with ``name``, ``region`` and ``text``, e.g.
                :class:`claimcheck.llm.verdicts.Condition`).
            exact: ``{name: (value, (lo, hi), text)}``: exact, deterministic forms of the claim
                (counts, FLOPs) checked beside the timing; one outside its region fails the claim.
            **details: extra facts for the report (rounds, budget, the machine's load...).

        Outcome: ``failed`` when an exact form fails or any interval lies wholly outside its bar
        (on a machine the ``load`` detail marks busy, such an interval makes the claim
        ``inconclusive`` instead: load biases timing forms toward failing); ``passed`` when every
        interval lies inside its bar; else ``inconclusive``: skipped with the intervals, or failed
        under ``--claims-strict-timing``. Machine-bound claims are
        recorded and skipped as in :meth:`check`.

        Raises:
            pytest.fail.Exception, pytest.skip.Exception: as above.
        """
        __tracebackhide__ = True
        from claimcheck.outcomes import INCONCLUSIVE
        from claimcheck.stats import FAIL, PASS, decide, region_text

        c = self.claim
        lo, hi, value = (self._convert(x, unit) for x in (ci.low, ci.high, ci.value))
        region = c.tolerance.region(c.stated or None)
        verdicts = {c.id: decide(type(ci)(value, lo, hi, ci.level, ci.method, ci.n, ci.coverage), region)}
        record_ci = {"low": lo, "high": hi, "value": value, "level": ci.level, "method": ci.method,
                     "rounds": ci.n, "bar": region_text(region)}
        conds = {}
        for cond, cci in conditions:
            verdicts[cond.name] = decide(cci, cond.region)
            conds[cond.name] = {"text": cond.text, "low": cci.low, "high": cci.high, "value": cci.value,
                                "bar": region_text(cond.region), "verdict": verdicts[cond.name]}
        exact_rec = {}
        for name, (v, (elo, ehi), text) in (exact or {}).items():
            ok = elo <= v <= ehi
            exact_rec[name] = {"text": text, "value": _jsonable(v), "bar": region_text((elo, ehi)),
                               "verdict": PASS if ok else FAIL}
        self.details.update({k: _jsonable(v) for k, v in details.items()})
        self.details["ci"] = record_ci
        if conds:
            self.details["conditions"] = conds
        if exact_rec:
            self.details["exact"] = exact_rec
        if c.runner and self._runner != c.runner:
            self.check(value)  # machine-bound: recorded beside the chapter's value and skipped
        summary = "; ".join(
            [f"{c.id}: {self._ci_text(lo, hi, ci.level, c.unit)} vs bar {record_ci['bar']} -> {verdicts[c.id]}"]
            + [f"{n} ({d['text']}): [{d['low']:.4g}, {d['high']:.4g}] vs {d['bar']} -> {d['verdict']}"
               for n, d in conds.items()]
            + [f"{n} ({d['text']}): {d['value']} vs {d['bar']} -> {d['verdict']}" for n, d in exact_rec.items()])
        load = details.get("load") or {}
        timing_failed = [n for n, v in verdicts.items() if v == FAIL]
        # On a busy machine a timing interval outside its bar is not a failure of the chapter:
        # other work's stalls hit every operation alike, so they inflate short passes and decode
        # steps more than long ones and bias growth and ratio forms toward failing (seen: C16's
        # exponent [1.08, 1.31] and C13's latency ratio [0.60, 1.15] at a load of 4 on 2 cores, both
        # passing idle). Exact forms are deterministic and fail whatever the load.
        if [n for n, d in exact_rec.items() if d["verdict"] == FAIL] or (timing_failed and not load.get("busy")):
            self._store(value, "fail", summary)
            pytest.fail(self._message(value, summary), pytrace=False)
        if all(v == PASS for v in verdicts.values()):
            self._store(value, "pass", None)
            return
        distrusted = (f"; {', '.join(timing_failed)} lay outside the bar, but on a busy machine, whose stalls "
                      "bias timing forms toward failing, so that is not taken as a failure") if timing_failed else ""
        reason = (f"inconclusive: {summary}{distrusted}; after {details.get('rounds', ci.n)} rounds within a budget of "
                  f"{details.get('budget_s', '?')} s; machine load: {load.get('loadavg_1m', '?')} on "
                  f"{load.get('cores', '?')} cores" + (f" (busy: {load['why']})" if load.get("busy") else "")
                  + ". A quieter machine or a larger profile (--claims-profile standard/full) narrows the interval.")
        self._store(value, INCONCLUSIVE, reason)
        if self._strict_timing:
            pytest.fail(f"{c.id} (--claims-strict-timing): {reason}", pytrace=False)
        raise pytest.skip.Exception(reason, _use_item_location=True)

    @staticmethod
    def _ci_text(lo, hi, level, unit) -> str:
        return f"{level:.0%} CI [{lo:.4g}, {hi:.4g}] {unit}".rstrip()

    def convert(self, measured, unit):
        """``measured`` (a number or an Interval in ``unit``) in the claim's unit (pint)."""
        return self._convert(measured, unit)

    # -------------------------------------------------------------------------------------
    def _convert(self, measured, unit):
        if unit is None or unit == self.claim.unit:
            return measured
        if isinstance(measured, Interval):
            return Interval(convert(measured.lo, unit, self.claim.unit), convert(measured.hi, unit, self.claim.unit))
        return convert(measured, unit, self.claim.unit)

    def _store(self, value, verdict, reason):
        props = self._item.user_properties
        record = stored_record(props)
        record.update({
            "id": self.claim.id,
            "stated": self._form.get("stated", self.claim.stated),
            "unit": self._form.get("unit", self.claim.unit),
            "tolerance": self._form.get("tolerance", self.claim.tolerance_text),
        })
        if self.model:
            record["model"] = self.model
        if value is not None:
            record["measured"] = _jsonable(value)
            record["measured_display"] = format_value(value, record["unit"])
        if verdict is not None and not (verdict == "pass" and record.get("verdict") == NEAR_TIE_VERDICT):
            record["verdict"] = verdict  # a near-tie stands against a later check that holds
            record["reason"] = reason
        record["details"] = dict(self.details)
        props[:] = [(k, v) for k, v in props if k != RECORD_KEY] + [(RECORD_KEY, encode_record(record))]

    def _message(self, value, failure) -> str:
        c = self.claim
        if self.model:
            form = self._form
            lines = [f"{c.id} ({form.get('form') or 'portable form'}) does not hold on {self.model}",
                     f"  expected:  {form.get('stated', c.stated)} {form.get('unit', c.unit)}  (for this model, not the chapter's GPT-2 value)",
                     f"  measured:  {format_value(value, form.get('unit', c.unit))}",
                     f"  tolerance: {form.get('tolerance', c.tolerance_text)} -> {failure}",
                     f"  hardware:  {self._hardware}"]
            return "\n".join(lines)
        lines = [f"{c.id} does not hold: {c.title}",
                 f"  chapter:   {c.stated} {c.unit}  (locator: {c.locator!r})",
                 f"  measured:  {format_value(value, c.unit)}"]
        try:
            stated = c.stated_value
            if stated is None:
                raise ValueError("no stated number")
            m = value.mid if isinstance(value, Interval) else float(value)
            diff = m - stated
            rel = f" ({diff / stated:+.2%})" if stated else ""
            lines.append(f"  difference: {diff:+.5g} {c.unit}{rel}".rstrip())
        except (TypeError, ValueError):
            pass
        lines += [f"  tolerance: {c.tolerance_text} -> {failure}",
                  f"  hardware:  {self._hardware}{_load_note(c)}",
                  f"  next: if the text changed, update 'stated' of {c.id} in {c.path}; if not, "
                  f"the chapter's figure does not hold on this runner: report it to the author."]
        return "\n".join(lines)
