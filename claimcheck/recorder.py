"""Compare a measured value with its claim, record the result for the reports, and fail clearly.

A claim test receives a :class:`ClaimRecorder` (the ``claim`` fixture) and calls
:meth:`ClaimRecorder.check` with what it measured. The recorder converts units, applies the
claim's tolerance, stores chapter value / measured value / tolerance / verdict on the test item
(``user_properties``, which also travel from xdist workers), and fails the test with a message that
says what, by how much, on what hardware, and what to do next.
"""

from __future__ import annotations

import math

import pytest

from claimcheck.interval import Interval
from claimcheck.registry import Claim
from claimcheck.units import convert

PLOTS_KEY = pytest.StashKey[list]()  # [(name, base64 PNG), ...] for the HTML report
RECORD_KEY = "claimcheck.record"
CLAIM_ID_KEY = "claimcheck.id"
KIND_KEY = "claimcheck.kind"  # "placeholder" | "registry-error" for synthetic items


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


def _jsonable(value):
    if isinstance(value, Interval):
        return [value.lo, value.hi]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


class ClaimRecorder:
    """The ``claim`` fixture: one claim of the registry, bound to the running test."""

    def __init__(self, claim: Claim, item, runner: str | None, hardware: str, runner_desc: dict):
        self.claim = claim
        self._item = item
        self._runner = runner
        self._hardware = hardware
        self._runner_desc = runner_desc
        self.details: dict = {}

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

    def require(self, condition: bool, message: str) -> None:
        """Fail the claim with ``message`` unless ``condition`` holds (a second, qualitative check)."""
        __tracebackhide__ = True
        if not condition:
            self.details.setdefault("failed_conditions", []).append(message)
            self._store(None, "fail", message)
            pytest.fail(f"{self.claim.id}: {message}\n  hardware: {self._hardware}", pytrace=False)

    # -------------------------------------------------------------------------------------
    def _convert(self, measured, unit):
        if unit is None or unit == self.claim.unit:
            return measured
        if isinstance(measured, Interval):
            return Interval(convert(measured.lo, unit, self.claim.unit), convert(measured.hi, unit, self.claim.unit))
        return convert(measured, unit, self.claim.unit)

    def _store(self, value, verdict, reason):
        props = self._item.user_properties
        previous = next((v for k, v in props if k == RECORD_KEY), None)
        record = dict(previous or {})
        record.update({
            "id": self.claim.id,
            "stated": self.claim.stated,
            "unit": self.claim.unit,
            "tolerance": self.claim.tolerance_text,
        })
        if value is not None:
            record["measured"] = _jsonable(value)
            record["measured_display"] = format_value(value, self.claim.unit)
        if verdict is not None:
            record["verdict"] = verdict
            record["reason"] = reason
        record["details"] = dict(self.details)
        props[:] = [(k, v) for k, v in props if k != RECORD_KEY] + [(RECORD_KEY, record)]

    def _message(self, value, failure) -> str:
        c = self.claim
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
                  f"  hardware:  {self._hardware}",
                  f"  next: if the text changed, update 'stated' of {c.id} in {c.path}; if not, "
                  f"the chapter's figure does not hold on this runner: report it to the author."]
        return "\n".join(lines)
