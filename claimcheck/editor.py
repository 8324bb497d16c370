"""The editors' workflow, for the command line (:mod:`claimcheck.cli.editor`) and the pytest items:
the drift check's and the audit's messages, ``check-manuscript``'s text, and ``what-if`` (named
claims re-run with revised stated values: verdict and suggested figure)."""

from __future__ import annotations

import dataclasses
import os
import shlex
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

from claimcheck.book import Citation, book_of, cite, load_book
from claimcheck.display import excerpt, with_unit
from claimcheck.fields import printed_number
from claimcheck.formula import FormulaError, evaluate_claim
from claimcheck.interval import Interval, decimals_of
from claimcheck.keys import ClaimKeyError, resolve_key, split
from claimcheck.manuscript import FAILING, ClaimDrift, ManuscriptCheck, QuoteCheck, quoted_figures
from claimcheck.outcomes import ERROR, FAILED, PASSED, SKIPPED
from claimcheck.pages.words import bar_words, margin, measured_value
from claimcheck.printed import figure_in_unit, split_figure, unit_key
from claimcheck.registry import Claim, Registry, RegistryIssue, load_registry
from claimcheck.results import ClaimEntry, ResultFileError, read_document
from claimcheck.verdict import Measured, Verdict, formula_evidence, judge, judge_all


def apply_overrides(registry: Registry, overrides: dict[str, str]) -> set[str]:
    """Replace ``stated`` of the claims named in ``overrides`` (``ch15:C10``, or ``C10`` in any
    chapter -> the figure as typed, ``2.96 亿`` read in the claim's unit) in place
    (``--claims-stated``); return the names applied here. A figure in another unit than the claim's
    makes that claim a registry problem naming the option (its test errors; the rest still runs)."""
    found: set[str] = set()
    for name, value in overrides.items():
        chapter, cid = split(name)
        if chapter in (None, registry.chapter_id) and cid in registry.claims:
            claim = registry.claims[cid]
            try:
                figure = figure_in_unit(value, claim.unit or "")
            except ValueError as exc:
                problem = RegistryIssue(
                    registry.path, cid, "stated", f"--claims-stated {name}={value}: {exc}"
                )
                registry.invalidate(cid, [problem])
            else:
                registry.claims[cid] = dataclasses.replace(claim, stated=figure)
            found.add(name)
    return found


def drift_failure_message(
    drift: ClaimDrift, claim: Claim, measured: str | None, registry_path: str
) -> tuple[str, str]:
    """``(text, next step)`` of a claim's drift check's failure: every failing quote with line and all
    three values in the claim's unit (the third is what the chapter's arithmetic gives for a formula,
    none for a quote of another chapter), then what to do (the first of its ``next:`` lines is the
    row's next step): match the source's figure for a quote, else check the text's figure."""
    lines = [f"{drift.claim_id}: manuscript drift ({claim.title})"]
    source = f"{claim.cites} as {with_unit(claim.stated, claim.unit)}"  # checked by its citation check
    for q in drift.problems():
        if q.source:  # a citation: the quote against the chapter it quotes
            where = f"line {q.line}" if q.line else "citation"
            lines.append(f"  {where}: {q.message.split(': ', 1)[-1]}")
        elif q.status == "drift":
            here = ""  # the measurement is of the stated figure, not of an input
            if q.name == "stated" and claim.cites:
                here = f", quoting {source}"
            elif q.name == "stated":
                value, none = (
                    ("the chapter's arithmetic gives", "not worked out")
                    if claim.formula
                    else ("measured here", "no measurement")
                )
                here = f", {value} {measured}" if measured else f", {none} in this run"
            text, reg = _figures(q, claim.unit)
            lines.append(f"  line {q.line}: manuscript {text}, registry {reg} ({q.name}){here}")
            lines.append(f"    {q.context}")
        else:
            lines.append(f"  {q.status}: {q.message}")
    steps = []
    if any(q.source for q in drift.problems()):
        steps.append(
            f"quote the source's figure in {drift.claim_id}'s sentence and 'stated' (or revise the "
            "source, if its chapter is what changed)"
        )
    if claim.cites and not all(q.source for q in drift.problems()):
        steps.append(
            f"{drift.claim_id} quotes {source}: print {claim.cites}'s figure in the text, not one of its "
            f"own (if {claim.cites} changed, its citation check says so: then match {drift.claim_id}'s "
            f"'stated' in {registry_path} to it)."
        )
    elif not all(q.source for q in drift.problems()):
        check = "the chapter's arithmetic gives" if claim.formula else "the measurement supports"
        steps.append(
            f"if the manuscript is right, see whether {check} the text's figure "
            f"(claimcheck what-if --manuscript FILE, or what-if {claim.key}=VALUE) and update "
            f"{drift.claim_id} in {registry_path}; if the registry is right, fix the manuscript."
        )
    return "\n".join(lines + [f"  next: {step}" for step in steps]), steps[0] if steps else ""


def audit_failure_message(check: ManuscriptCheck, limit: int = 40) -> tuple[str, str]:
    """``(text, next step)`` of the number audit's failure: coverage, unbound numbers with line and
    context, then what to do."""
    a = check.audit
    lines = [
        f"number audit of {check.manuscript.path}: {a.total - a.count('unbound')} of {a.total} numbers "
        f"bound or waived = {a.coverage:.1%} (needs 100%)"
    ]
    lines += [f"  line {p.line}: {p.text}   {p.context}" for p in a.unbound()[:limit]]
    if len(a.unbound()) > limit:
        lines.append(f"  ... and {len(a.unbound()) - limit} more")
    lines += [f"  waiver problem: {w}" for w in a.problems]
    step = (
        "bind each number to its claim (a claim's locator or quotes) or waive it with a reason "
        "([[waivers]] in the registry)"
    )
    return "\n".join([*lines, f"  next: {step}"]), step


def format_check(
    check: ManuscriptCheck,
    measured: Mapping[str, str],
    verbose: bool = False,
    report_error: str | None = None,
    what_if: str | None = None,
) -> str:
    """``check-manuscript``'s report: drift per claim (line, manuscript, registry, measured), audit.
    ``measured``: claim id -> its measurement in words (:func:`report_measured`); ``report_error``:
    why the report could not be read; ``what_if``: the command suggested on drift."""
    ms, a = check.manuscript, check.audit
    out = [
        f"manuscript {ms.path} ({len(ms.text.splitlines())} lines, sha256 {ms.sha256[:12]})",
        f"registry   {check.registry_path} ({len(check.drifts)} claims)",
    ]
    missing = "- (not in the claims report: run the claim)"
    if not measured:
        missing = "- (no claims report: run the claims, or pass --report FILE)"
    if report_error:
        out.append(f"warning: {report_error}; measured values are not shown")
        missing = "- (the report cannot be read: see the warning)"
    out += [f"  registry problem: {issue}" for issue in check.registry_issues]
    in_words = [d.claim_id for d in check.drifts if d.status == "in-words"]
    quotes = [q for d in check.drifts for q in d.checks]
    out.append(
        f"\ndrift: {len(check.drifted)} of {len(check.drifts)} claims ({len(quotes)} quotes checked"
        + (f"; stated in words, nothing to compare: {', '.join(in_words)}" if in_words else "")
        + ")"
    )
    out += _drift_lines(check, measured, missing, verbose)
    drifted = {
        d.claim_id: d
        for d in check.drifts
        for q in d.checks
        if q.status == "drift" and q.name == "stated" and not q.source
    }
    stated = sorted(k for k, d in drifted.items() if not d.cites)  # a quote's fix is its source's figure
    if stated:
        judge = "measurements"
        if any(drifted[k].formula for k in stated):
            judge = "measurements (for a formula, the chapter's arithmetic)"
        out.append(
            f"  next: {what_if or f'claimcheck what-if --manuscript {ms.path}'}   (checks whether the "
            f"{judge} support the "
            f"text's figures of {', '.join(stated)}, and suggests the nearest that hold)"
        )
    quoting = sorted(f"{k} quotes {d.cites}" for k, d in drifted.items() if d.cites)
    if quoting:
        out.append(
            f"  next: {'; '.join(quoting)}: print the figure of the claim quoted (nothing here measures it)"
        )
    out.append(
        f"\nnumbers: {a.total} in the manuscript: {a.count('bound')} bound to claims, {a.count('waived')} "
        f"waived, {a.count('unbound')} unbound; coverage {a.coverage:.1%}"
    )
    out += [f"  unbound  line {p.line:<4} {p.text:>12}   {p.context}" for p in a.unbound()]
    out += [f"  waiver problem: {w}" for w in a.problems] + [f"  waiver warning: {w}" for w in a.warnings]
    if verbose:
        out += [
            f"  {p.status:7}  line {p.line:<4} {p.text:>12}  {','.join(p.by):20} {p.context}"
            for p in a.pieces
            if p.status != "unbound"
        ]
    out.append(("\nOK" if check.ok else "\nFAILED") + f" in {check.seconds:.2f} s")
    return "\n".join(out)


def _drift_lines(
    check: ManuscriptCheck, measured: Mapping[str, str], missing: str, verbose: bool
) -> list[str]:
    """``format_check``'s lines of each drifted claim (every claim with ``verbose``); the figures of the
    lines that print two are padded to the widest of them, so they align without spaces to spare."""
    shown = [d for d in check.drifts if verbose or d.failed]
    quotes = [(d, q) for d in shown for q in d.checks if verbose or q.status in FAILING]
    figures = {id(q): _figures(q, d.unit) for d, q in quotes if _two_figures(q)}
    wide = [max((len(f[i]) for f in figures.values()), default=0) for i in (0, 1)]
    out: list[str] = []
    for d, q in quotes:
        if q.source:  # a citation: both chapters, both figures
            line = f"line {q.line:<4} " if q.line else ""
            out.append(f"  {q.claim_id:10} {line}{q.status:5}  {q.message.split(': ', 1)[-1]}")
        elif id(q) in figures:
            text, reg = figures[id(q)]
            label = "the chapter's arithmetic gives" if d.formula else "measured"
            value = f"quoting {d.cites}" if d.cites else f"{label} {measured.get(d.claim_id, missing)}"
            out.append(
                f"  {q.claim_id:10} line {q.line:<4} {q.status:5}  manuscript {text:<{wide[0]}}  "
                f"registry {reg:<{wide[1]}} ({q.name})  {value}"
            )
            if q.status == "drift":
                out.append(f"  {'':10} {q.context}")
        else:
            out.append(f"  {q.claim_id:10} {q.status}: {q.message}")
    return out


def _two_figures(q: QuoteCheck) -> bool:
    """Whether ``format_check`` prints a quote's two figures: an own quote found, drifted or not."""
    return not q.source and q.status in ("drift", "ok") and q.manuscript is not None


def _figures(q: QuoteCheck, unit: str | None) -> tuple[str, str]:
    """``(the text's figure, the registry's)`` of a quote that prints a number: a stated value's in the
    claim's ``unit`` (:func:`quoted_figures`), an input's with the text's scale (:func:`_scaled_as`)."""
    if q.name == "stated":
        return quoted_figures(q, unit)
    return q.manuscript or "", _scaled_as(q.registry, q.manuscript or "")


def _scaled_as(registry: str, manuscript: str) -> str:
    """An input's registry figure with the scale the text prints beside its own (``2.66`` beside
    ``2.96 亿`` reads ``2.66 亿``, ``99.16`` beside ``89.16%`` reads ``99.16%``): the registry keeps
    the number alone (a stated value's scale is in the claim's unit: :func:`quoted_figures`)."""
    try:
        scale = split_figure(manuscript)[1]
    except ValueError:
        return registry
    return f"{registry}%" if scale == "%" else f"{registry} {scale}" if scale and registry else registry


def report_measured(
    path: str | Path, given: bool = True, chapter: str | None = None
) -> tuple[dict[str, str], str | None]:
    """``(claim id -> its measurement in words, error)`` from a ``claims.json`` (one ``chapter``'s
    claims if given): ``display (outcome, source)``, or for a claim without a value ``- (outcome in
    source: the first line of its reason)``, e.g. why it was skipped. ``error``: None when read, or
    absent and not ``given``; else the reader's words naming the file, so a broken report is said,
    never shown as "not measured"."""
    if not given and not Path(path).exists():
        return {}, None
    try:
        doc = read_document(path)
    except ResultFileError as exc:
        return {}, str(exc)
    src = f"{Path(path).name} {doc.generated or ''}".strip()
    chapters = (None, "", chapter)
    return {
        c.id: _measured_words(c, src) for c in doc.claims if chapter is None or c.chapter in chapters
    }, None


def _measured_words(c: ClaimEntry, src: str) -> str:
    """:func:`report_measured`'s words for one claim of the report ``src``."""
    if c.measured_display:
        return f"{c.measured_display} ({c.outcome}, {src})"
    # run, but no value: what happened (skipped for want of the weights, an error...)
    why = excerpt((c.reason.strip().splitlines() or [""])[0], 100, quote=False)
    return f"- ({c.outcome} in {src}{': ' + why if why else ''})"


def drifted_revisions(
    check: ManuscriptCheck, registry: Registry
) -> tuple[list[tuple[str, str]], dict[str, dict[str, str]], list[str]]:
    """``(revisions, inputs, notes)`` a manuscript's drift asks what-if to check: ``[(claim key, the
    text's stated figure in the claim's unit)]``, ``{key: {name: the text's figure}}`` of formula
    claims' inputs, and one note per figure that cannot be checked so (not a number in the claim's
    unit; a measured claim's input; of a figure printed twice, the first is taken)."""
    revisions: dict[str, str] = {}
    inputs: dict[str, dict[str, str]] = {}
    lines: dict[str, list[str]] = {}
    notes: list[str] = []
    drifted = [q for d in check.drifts for q in d.checks if q.status == "drift" and q.manuscript is not None]
    for q in drifted:
        assert q.manuscript is not None  # drifted keeps only quotes the text prints
        key = registry.key(q.claim_id)
        # the stated figure in the claim's unit (2.96 亿 of a claim in 亿 FLOP/token is 2.96); an
        # input's at its place, where the text's scale is the registry's
        unit = registry.claims[q.claim_id].unit or ""
        try:
            mantissa = (
                figure_in_unit(q.manuscript, unit) if q.name == "stated" else split_figure(q.manuscript)[0]
            )
        except ValueError as exc:
            notes.append(f"{key}: line {q.line} prints {q.manuscript!r}: {exc}")
            continue
        if q.name != "stated":
            if registry.claims[q.claim_id].formula:
                inputs.setdefault(key, {}).setdefault(q.name, mantissa)
            else:
                notes.append(
                    f"{key}: line {q.line} prints {q.name} = {q.manuscript}, the registry "
                    f"{q.registry}: an input of a measured claim, not re-measured by what-if"
                )
            continue
        lines.setdefault(key, []).append(f"{mantissa} (line {q.line})")
        if revisions.setdefault(key, mantissa) != mantissa:  # printed twice: the first is checked
            notes.append(
                f"{key}: the text prints {' and '.join(lines[key])}; checking {revisions[key]}, "
                f"then what-if {key}={mantissa}"
            )
    return list(revisions.items()), inputs, notes


def suggested_figure(measured: float | Sequence[float] | None, revised: str) -> str | None:
    """``measured`` (a number, or ``[lo, hi]``: ``"lo..hi"`` unless both ends round alike) rounded half
    to even at the printed precision of ``revised``: ``suggested_figure(60.63, "60.6") == "60.6"``."""
    if measured is None:
        return None
    quantum = Decimal(1).scaleb(-decimals_of(revised))

    def r(x: float) -> str:
        return str(Decimal(repr(float(x))).quantize(quantum, rounding=ROUND_HALF_EVEN))

    if isinstance(measured, (list, tuple)) and len(measured) == 2:
        lo, hi = r(measured[0]), r(measured[1])
        return lo if lo == hi else f"{lo}..{hi}"
    return r(measured) if isinstance(measured, (int, float)) else None


def nearest_holding(
    holds: Callable[[str], bool], revised: str, measured: float | Sequence[float] | None
) -> str | None:
    """The figure at the printed precision of ``revised`` nearest to it for which ``holds(figure)``,
    or None when none near ``measured`` (a number or ``[lo, hi]``) does. The figures that hold form
    one interval for every tolerance, so the search bisects from the measurement towards ``revised``."""
    if holds(revised):
        return revised
    start = suggested_figure(measured, revised)
    if start is None:
        return None
    quantum = Decimal(1).scaleb(-decimals_of(revised))
    lo_text, _, hi_text = start.partition("..")
    near = Decimal(hi_text or lo_text) if Decimal(revised) > Decimal(lo_text) else Decimal(lo_text)

    def text(k: int) -> str:
        return str((Decimal(k) * quantum).quantize(quantum))

    k0 = int((near / quantum).to_integral_value())
    good = next((k0 + d for d in sorted(range(-50, 51), key=abs) if holds(text(k0 + d))), None)
    if good is None:
        return None
    bad = int((Decimal(revised) / quantum).to_integral_value())
    while abs(bad - good) > 1:  # good holds, bad does not: halve the distance
        mid = (good + bad) // 2
        good, bad = (mid, bad) if holds(text(mid)) else (good, mid)
    return text(good)


def revised_verdict(claim: Claim, registry: Registry, figure: str, measured: object = None) -> Verdict:
    """The verdict of ``claim`` with ``stated`` = ``figure``, by the run's judge
    (:func:`claimcheck.verdict.judge_all`): a formula claim on its own arithmetic
    (:func:`claimcheck.verdict.formula_evidence`, the verdict's value its interval), a measured one on
    ``measured`` (a number or ``[lo, hi]`` in the claim's unit, as its report row holds it). Raises
    FormulaError: the formula cannot be evaluated."""
    revised = dataclasses.replace(claim, stated=figure)
    if not claim.formula:
        value = Interval(*measured) if isinstance(measured, (list, tuple)) else measured
        return judge(revised, Measured(value), runner=claim.runner)
    result = evaluate_claim(revised, registry)
    # the chapter's own arithmetic is the same on every runner: judged as on the claim's own
    verdict = judge_all(revised, formula_evidence(result.value, result.conditions), runner=revised.runner)
    return dataclasses.replace(verdict, value=result.value)


def _holds(claim: Claim, registry: Registry, measured: object) -> Callable[[str], bool]:
    """``holds(figure)``: :func:`revised_verdict` passes with ``stated`` = figure (a figure the
    formula cannot be evaluated with, e.g. dividing by it, is not one that holds)."""

    def holds(figure: str) -> bool:
        try:
            return revised_verdict(claim, registry, figure, measured).outcome == PASSED
        except FormulaError:
            return False

    return holds


@dataclasses.dataclass
class WhatIf:
    """The answer for one revised claim."""

    claim_id: str
    revised: str
    previous: str
    outcome: str  # the claim's outcome with the revised value on this runner
    measured: object
    measured_display: str | None
    unit: str
    tolerance: str
    reason: str
    suggested: str | None
    formula: bool = False  # judged on the chapter's own printed figures (no measurement)
    runner: str = ""  # the runner the chapter's figure was measured on (machine-bound), if any
    #: {name: (registry, text)}: revised inputs
    inputs: dict[str, tuple[str, str]] = dataclasses.field(default_factory=dict)
    #: the claimcheck.book.Citation of each claim that quotes this one, re-judged
    quoted_by: tuple[Citation, ...] = ()
    bound: bool = False  # the tolerance is a bound (>=X, <=X): the verdict is about it, not the figure

    @property
    def reproduces(self) -> bool:
        """Whether this runner's measurement prints as the revised figure at its precision (for a bar,
        the figure itself, not the bar, is what it reproduces)."""
        if self.suggested is None:
            return False
        lo, sep, hi = self.suggested.partition("..")
        return self.suggested == self.revised or bool(
            sep and Decimal(lo) <= Decimal(self.revised) <= Decimal(hi)
        )

    @property
    def verdict(self) -> str:
        """One paragraph: whether this runner's measurement supports the revised figure; a bar's claim
        (``>=10``) is "not reproduced" where its bar holds but the measurement is not the figure."""
        v, m = self.revised, self.measured_display or "no measurement"
        unit = with_unit("_", self.unit)[1:]  # glued as every value is (58×, 89.16%), nouns in words
        where, value = ("on this runner", "measured")
        if self.formula:
            where, value = ("by the chapter's own figures", "its figures give")
        why = self.reason.splitlines()[0] if self.reason else ""
        own = f"{split(self.claim_id)[1]} does not hold: "  # the run's words: the claim's title follows
        if why.startswith(own):  # which figure fails, before a title that prints the registry's
            why = (
                f"the revised figure {v}{unit} does not hold for {self.claim_id} (titled: {why[len(own) :]})"
            )
        if self.outcome == PASSED and self.bound and not self.reproduces:
            head = (
                f"not reproduced {where}: {value} {m}, which holds the bar {self.tolerance}, not the "
                f"figure {v}{unit}"
            )
        elif self.outcome == PASSED:
            head = f"supported {where}: {value} {m}, within tolerance {self.tolerance}"
        elif self.outcome == FAILED and (self.formula or self.measured_display):
            head = f"NOT supported {where}: {value} {m}; {why}"
        elif self.outcome == FAILED:  # nothing measured: a quote's drift, a bar its own figure misses
            head = f"NOT supported: {why}"
        elif self.outcome == SKIPPED and self.runner:
            head = (
                f"measured on another runner ({self.runner}): this runner measures {m}, which is not the "
                f"figure of that runner; check it there: claimcheck what-if {self.claim_id}={v} "
                f"--runner {self.runner}"
            )
        elif self.outcome == SKIPPED and self.measured is not None:
            head = f"not enforced on this runner ({self.reason.split(':', 1)[0]}); measured here {m}"
        else:
            head = f"cannot tell on this runner ({self.outcome}): {why}"
        given = "".join(f" with {n} = {text}" for n, (_, text) in self.inputs.items())
        was = "".join(f"; {n} {reg}" for n, (reg, _) in self.inputs.items())
        lines = [
            f"{self.claim_id} = {v}{unit}{given} (registry: "
            f"{self.previous + unit if self.previous else 'no number'}{was}): {head}"
        ]
        if not self.bound and self.outcome == FAILED and self.measured is not None:
            lines.append(
                f"  the nearest figure that holds at the printed precision of {v}: {self.suggested}{unit}"
                if self.suggested is not None
                else f"  no figure at the printed precision of {v} holds near the measurement {m}"
            )
        elif self.suggested is not None:
            sep = ".." in self.suggested
            ours = f", not {v}"
            if self.reproduces:
                ours = " (which includes the revised figure)" if sep else " (the revised figure)"
            lines.append(
                f"  {'the arithmetic gives' if self.formula else 'the measurement suggests'} "
                f"{'figures from ' if sep else ''}{self.suggested}{unit} at the "
                f"printed precision of {v}{ours}"
            )
            if self.bound:
                lines.append(
                    f"  note: the tolerance is a bound ({self.tolerance}): the verdict is about the bound"
                    + (
                        f"; this runner also reproduces the figure {v}"
                        if self.reproduces
                        else f", not the figure; this runner does not reproduce {v} (it measures {m}), so "
                        f"{v} can only stand as the figure of the runner it was measured on"
                    )
                )
        for c in self.quoted_by:
            still = "drifted" if c.status == "drift" else "still quotes it" if c.status == "ok" else c.status
            lines.append(f"  quoted by {c.key} ({c.quote}): {still}: {c.words}")
        return "\n".join(lines)


def run_what_if(
    revisions: list[tuple[str, str]],
    registry_path: str | os.PathLike[str] | None = None,
    claims_dir: str | os.PathLike[str] = "claims",
    profile: str | None = None,
    runner: str | None = None,
    report_dir: str | None = None,
    cwd: str | os.PathLike[str] | None = None,
    inputs: dict[str, dict[str, str]] | None = None,
) -> list[WhatIf]:
    """The answers for claims re-run with revised stated values, measured ones in a pytest subprocess
    in ``cwd`` (the project root; default the current folder), formula claims judged here.

    ``revisions``: ``[(claim, figure as typed)]`` (``("ch15:C05", "58")``, ``("C23", "2.96 亿")``: read in
    the claim's unit; a short id one chapter declares); ``registry_path``: the one registry to take claims from (default: every chapter's
    under ``claims_dir``); ``profile``, ``runner``: ``--claims-profile``/``--claims-runner``;
    ``report_dir``: where the run's reports go (default: a temporary folder); ``inputs``:
    ``{claim: {value name: printed figure}}``, formula claims re-judged with these inputs. Raises
    KeyError: a name is no claim, or one several chapters declare (naming the closest or the candidates);
    ValueError: a value is not a printed number in the claim's unit; RuntimeError: pytest wrote no report (its output's tail).
    """
    base = Path(cwd) if cwd is not None else Path.cwd()
    regs, claims, revisions = _revised(revisions, base, registry_path, claims_dir)
    quoted = requoted(revisions, book_of(regs, base / claims_dir))
    inputs = {resolve_key(name, claims): dict(v) for name, v in (inputs or {}).items()}
    revisions += [(key, claims[key][1].stated) for key in inputs if key not in dict(revisions)]
    several = len(regs) > 1
    formulas = {key for key, _ in revisions if claims[key][1].formula}
    measured = [(key, value) for key, value in revisions if key not in formulas]
    rows = _measure(measured, claims, base, profile, runner, report_dir) if measured else {}
    answers = []
    for key, value in revisions:
        reg, claim = claims[key]
        if key in inputs:  # the text's figures for the formula's inputs
            claim = dataclasses.replace(claim, values={**claim.values, **inputs[key]})
        row = None if key in formulas else rows.get(key) or ClaimEntry(key, claim.id)
        row, suggested = _judged(key, claim, reg, value, row, several)
        below = bar_refusal(key if several else claim.id, claim, value)
        if below and row.outcome not in (FAILED, ERROR):  # however the bar fares here, the figure fails it
            row = dataclasses.replace(row, outcome=FAILED, reason=below)
        answers.append(
            WhatIf(
                key if several else claim.id,
                value,
                claim.stated,
                row.outcome,
                row.measured,
                row.measured_display,
                row.unit or claim.unit or "",
                row.tolerance or claim.tolerance_text,
                row.reason,
                suggested,
                formula=key in formulas,
                runner=claim.runner or "",
                inputs={n: (claims[key][1].values.get(n, "?"), v) for n, v in inputs.get(key, {}).items()},
                quoted_by=tuple(quoted.get(key, ())),
                bound=claim.tolerance.is_bound,
            )
        )
    return answers


def _judged(
    key: str, claim: Claim, reg: Registry, value: str, row: ClaimEntry | None, several: bool
) -> tuple[ClaimEntry, str | None]:
    """``(row, suggested figure)`` of a measured claim (its report ``row``) or a formula one (``row``
    None: judged here); ``error`` rows."""
    try:
        row = row if row is not None else _formula_row(claim, reg, value)
    except FormulaError as exc:
        return ClaimEntry(key, claim.id, outcome=ERROR, reason=f"{key if several else claim.id}: {exc}"), None
    if (claim.runner and row.outcome == SKIPPED) or row.measured is None:
        return row, None  # this runner's value is not the figure of the runner it was measured on
    try:
        if claim.tolerance.is_bound:
            return row, suggested_figure(row.measured, value)
        return row, nearest_holding(_holds(claim, reg, row.measured), value, row.measured)
    except ArithmeticError:  # decimal.InvalidOperation: more digits than decimal's context holds
        return row, None


def _revised(
    revisions: list[tuple[str, str]],
    base: Path,
    registry_path: str | os.PathLike[str] | None,
    claims_dir: str | os.PathLike[str],
) -> tuple[list[Registry], dict[str, tuple[Registry, Claim]], list[tuple[str, str]]]:
    """``(registries, {key: (registry, claim)}, revisions by key)``; raises as :func:`run_what_if`."""
    regs = [load_registry(base / registry_path)] if registry_path else load_book(base / claims_dir)
    claims = {reg.key(cid): (reg, c) for reg in regs for cid, c in reg.claims.items()}
    if not claims:
        raise KeyError(
            f"no claims registry under {base / claims_dir}: run from the project's root, or pass --registry"
        )
    resolved = []
    for name, value in revisions:
        try:
            key = resolve_key(name, claims)
        except ClaimKeyError as exc:
            raise KeyError(str(exc)) from None
        try:  # as typed: "2.96 亿" of a claim in 亿 FLOP/token is its registry number 2.96
            figure = figure_in_unit(value, claims[key][1].unit or "")
            printed_number(figure)
        except ValueError as exc:
            raise ValueError(f"{name}: {exc}") from None
        refused = form_refusal(name, claims[key][1], figure)
        if refused:
            raise ValueError(refused)
        resolved.append((key, figure))
    return regs, claims, resolved


#: units of a count (as :func:`~claimcheck.printed.unit_key` spells them): a figure in one is whole
COUNT_UNITS = frozenset({"token", "example", "examples", "forward_pass", "layer", "layers"})
#: the unit of a ratio ("60 x", "60×", "60 倍" alike): a figure in it is a number > 0
RATIO_UNIT = "x"


def form_refusal(name: str, claim: Claim, figure: str) -> str | None:
    """Why the claim ``name`` (its :class:`~claimcheck.registry.Claim`) cannot read ``figure`` (a
    printed decimal in the claim's unit, :func:`~claimcheck.printed.figure_in_unit`) as its figure, or
    None when it can: a ratio (unit ``x``) that is not above 0, a count (unit
    ``token``, ``example``, ...) that is not a whole number. The message names the claim and its form."""
    unit = unit_key(claim.unit or "")
    form = f"{name}'s figure is {claim.unit or 'a number without a unit'} ({claim.title})"
    d = Decimal(figure)
    if unit == RATIO_UNIT and d <= 0:
        return f"{name}: {figure} is not a ratio: {form}, a ratio above 0"
    if unit in COUNT_UNITS and d != d.to_integral_value():
        return f"{name}: {figure} is not a whole number: {form}, a count"
    return None


def bar_refusal(name: str, claim: Claim, figure: str) -> str | None:
    """Why ``figure`` cannot be the chapter's figure of a claim whose tolerance is a bar (``>=10``):
    the figure does not hold the claim's own bar (C05 = 8 against at least 10), or None (it does, or
    the tolerance is no bar)."""
    tol = claim.tolerance
    if not tol.is_bound:
        return None
    lo, hi = tol.region(figure)
    value = float(Decimal(figure))
    if lo <= value <= hi:
        return None
    bar = tol.describe(figure, claim.unit or None)
    side = "below" if value < lo else "above"
    return (
        f"{name} = {figure} is {side} {name}'s own bar of {bar}: the chapter's figure must hold its own claim"
    )


def requoted(revisions: list[tuple[str, str]], book: Mapping[str, Registry]) -> dict[str, list[Citation]]:
    """claim key -> the citations of every claim in ``book`` (chapter id -> registry) that quotes
    it (``cites``), checked against its revised figure (``revisions``: ``[(key, printed value)]``)."""
    revised = dict(revisions)
    chapters: dict[str, Registry] = dict(book.items())
    for key, value in revisions:
        chapter, cid = split(key)
        reg = chapters.get(chapter) if chapter is not None else None  # a bare id names no chapter
        if chapter is not None and reg is not None and cid in reg.claims:
            claims = reg.claims | {cid: dataclasses.replace(reg.claims[cid], stated=value)}
            chapters[chapter] = dataclasses.replace(reg, claims=claims)
    out: dict[str, list[Citation]] = {}
    for reg in book.values():
        for c in reg.claims.values():
            if c.cites in revised:
                out.setdefault(c.cites, []).append(cite(c, chapters))
    return out


def _formula_row(claim: Claim, registry: Registry, value: str) -> ClaimEntry:
    """A formula claim judged here with ``stated`` = ``value``, its value shown as the claims page does;
    the tolerance's failure in the page's words (``not exactly 37748763 B, outside by 27 B``), the
    value being already said in full in its unit (the tolerance's own words give 6 digits, no unit)."""
    verdict = revised_verdict(claim, registry, value)
    row = ClaimEntry(
        claim.id,
        claim.id,
        stated=value,
        measured=[verdict.value.lo, verdict.value.hi],
        unit=claim.unit,
        tolerance=claim.tolerance_text,
        outcome=verdict.outcome,
        reason=verdict.reason or "",
    )
    row.measured_display = measured_value(row)
    failure = claim.tolerance(verdict.value, value)  # judge_all's last reason, the value's
    if failure and row.reason.endswith(failure):
        off = margin(row)
        row.reason = (
            row.reason.removesuffix(failure) + f"not {bar_words(row)}" + (f", {off.text}" if off else "")
        )
    return row


def _measure(
    revisions: list[tuple[str, str]],
    claims: Mapping[str, tuple[Registry, Claim]],
    base: Path,
    profile: str | None,
    runner: str | None,
    report_dir: str | None,
) -> dict[str, ClaimEntry]:
    """The claims.json entries by key of the named claims run with their revised figures by pytest."""
    with tempfile.TemporaryDirectory(prefix="claimcheck-whatif-") as tmp:
        out_dir = (base / report_dir) if report_dir else Path(tmp)
        # "--opt=value" throughout: pytest takes a plugin option's separate value for a path when it
        # picks the rootdir (plugins' options are not known yet at that point)
        paths = [Path(claims[key][0].path) for key, _ in revisions]
        folders = sorted({str(p.parent) for p in paths})
        cmd = [sys.executable, "-m", "pytest", *folders, "-q", "-p", "no:cacheprovider"]
        # the registries by name: one outside a claims/ folder (--registry) is still this run's
        registries = " ".join(shlex.quote(str(p.resolve())) for p in paths)
        cmd += ["-k", " or ".join(key for key, _ in revisions), f"--claims-report-dir={out_dir.resolve()}"]
        cmd += [f"--claims-registries={registries}", *(f"--claims-stated={k}={v}" for k, v in revisions)]
        cmd += [f"--claims-{name}={v}" for name, v in (("profile", profile), ("runner", runner)) if v]
        env = dict(os.environ, HF_HUB_OFFLINE=os.environ.get("HF_HUB_OFFLINE", "1"))
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=base)
        report = out_dir / "claims.json"
        if not report.is_file():
            tail = (proc.stdout + proc.stderr)[-3000:]
            raise RuntimeError(f"pytest wrote no report (exit {proc.returncode}): {' '.join(cmd)}\n{tail}")
        return read_document(report).by_key()
