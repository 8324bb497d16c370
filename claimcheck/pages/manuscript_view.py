"""The annotated manuscript: every number the audit found (a :class:`~claimcheck.manuscript.ManuscriptCheck`),
marked by what a ``claims.json`` says of it; a number bound to several claims takes their weakest state."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from claimcheck import outcomes as oc
from claimcheck.interval import Interval
from claimcheck.keys import qualify
from claimcheck.manuscript import ManuscriptCheck, Piece, QuoteCheck, find_sites
from claimcheck.pages import words
from claimcheck.registry import Waiver
from claimcheck.results import ClaimEntry, ClaimsDoc
from claimcheck.tolerance import Printed

#: what a number of the manuscript can be: its state and what it means, in the order the legend lists them
STATE_LABEL = {
    "held": "holds on this runner",
    "bar": "not reproduced here: its claim's bar holds (the figure is the author's)",
    "arithmetic": "the chapter's arithmetic holds (not measured here)",
    "input": "an input of a claim that holds (not itself measured here)",
    "quoted": "quotes another chapter's claim (not measured here)",
    "unmeasured": "its claim holds without a measured value of it",
    "failed": "does not hold here (or its check is broken)",
    "inconclusive": "undecided (timing)",
    "drifted": "differs from the registry (drift)",
    "unchecked": "cannot be checked here",
    "elsewhere": "measured on another runner",
    "not-run": "not run",
    "waived": "waived: not a claim",
    "unbound": "bound to no claim",
}

#: a bound number's state is the first of its claims' states in this order ("held" when all held)
WEAKEST_FIRST = (
    "drifted", "failed", "inconclusive", "not-run", "unchecked", "elsewhere",
    "unmeasured", "quoted", "input", "arithmetic", "bar", "held",
)  # fmt: skip

#: the states of a figure whose claim holds here in another form than that figure (never green)
OTHER_FORMS = ("bar", "arithmetic", "input", "quoted", "unmeasured")


@dataclass(frozen=True)
class FigureForm:
    """How a claim that holds here holds for one of its printed figures, where this runner did not
    reproduce that figure: ``state`` (one of :data:`OTHER_FORMS`), ``short`` (a few words for a badge)
    and ``words`` (which form held and what this runner measured)."""

    state: str
    short: str
    words: str


def figure_form(entry: ClaimEntry, name: str = "stated") -> FigureForm | None:
    """The :class:`FigureForm` of the figure ``name`` (``"stated"`` or a key of the claim's ``values``)
    of a claim whose verdict holds here; None where this runner reproduced that very figure: a
    measured value the claim's tolerance admits around it, and for a bar (``>=10``) one that also
    prints as the figure. A formula's figures are the chapter's arithmetic; another value of a
    measured claim is its input; a claim with no measured value holds as a quote (``cites``) or unmeasured."""
    chapter, here = words.chapter_value(entry), words.measured_value(entry)
    if entry.formula:
        what = f"{entry.id}'s formula {entry.formula} over the chapter's printed figures gives {here or 'a value'}"
        said = f"{what}: {chapter} follows from them" if name == "stated" else f"an input ({name}) of {what}"
        return FigureForm("arithmetic", "the chapter's arithmetic", f"{said}; not measured here")
    if name != "stated":
        measured = f" (measured {here})" if here else ""
        said = f"an input ({name}) of {entry.id}, which holds here for {chapter or 'its claim'}{measured}"
        return FigureForm("input", f"an input of {entry.id}", f"{said}; this figure itself is not measured")
    if entry.measured is None or not here:
        if entry.cites:
            return FigureForm(
                "quoted", f"a quote of {entry.cites}", f"{chapter} quotes {entry.cites}; not measured here"
            )
        return FigureForm(
            "unmeasured", "no measured value", f"{entry.id} holds here without a measured value of {chapter}"
        )
    tol = words.tolerance_of(entry)
    if tol is None or not tol.is_bound or not entry.stated or _prints_as(entry.measured, entry.stated):
        return None
    return FigureForm(
        "bar",
        "its bar, not this figure",
        f"the chapter's {chapter} is the author's measurement, not reproduced here; here {here}, which holds "
        f"the chapter's bar of {words.bar_words(entry)}",
    )


def _prints_as(measured: Any, stated: str) -> bool:
    """Whether ``measured`` (a number or ``[lo, hi]``) rounds to ``stated`` at its printed precision."""
    value = Interval(*measured) if isinstance(measured, list) and len(measured) == 2 else measured
    try:
        return Printed()(value, stated) is None
    except (TypeError, ValueError, AttributeError):
        return False


def held_form(entry: ClaimEntry | None, name: str = "stated") -> FigureForm | None:
    """The other form (:func:`figure_form`) in which a claim that holds here holds for its figure
    ``name``; None where it does not hold here, or holds for that very figure."""
    return figure_form(entry, name) if entry is not None and claim_state(entry) == "held" else None


def value_source(entry: ClaimEntry) -> str:
    """Where a claim's value comes from when this runner measured none: "the chapter's arithmetic" for a
    formula, "a quote of ch15:C10" for a quote (:func:`figure_form`'s words); "" for any other claim."""
    form = figure_form(entry)
    return form.short if form is not None and form.state in ("arithmetic", "quoted") else ""


def figure_state(entry: ClaimEntry | None, name: str = "stated") -> str:
    """The state a claim gives its figure ``name``: :func:`claim_state`, but where the claim holds in
    another form than that figure, the form's state (:func:`held_form`): "held" only where this
    runner reproduced the figure."""
    form = held_form(entry, name)
    return form.state if form else claim_state(entry)


#: states the manuscript page lists at its top, each a link to its line
ATTENTION = ("drifted", "failed", "inconclusive")


def claim_state(entry: ClaimEntry | None) -> str:
    """The state one claim gives the numbers it binds: its outcome's, but ``elsewhere`` for a skipped
    machine-bound claim (its figure was measured on another runner)."""
    if entry is None or entry.outcome not in oc.OUTCOMES:
        return "not-run" if entry is None else "failed"
    if entry.runner_bound and entry.outcome == oc.SKIPPED:
        return "elsewhere"
    return oc.WORD[entry.outcome].state


def weakest(states: dict[str, str]) -> tuple[str, str | None]:
    """``(state, claim that decided it)`` of a number bound to the claims ``{claim id: state}``:
    the first state of :data:`WEAKEST_FIRST` among them (``("not-run", None)`` for none)."""
    found = ((state, cid) for state in WEAKEST_FIRST for cid, s in states.items() if s == state)
    return next(found, ("not-run", None))


@dataclass
class Mark:
    """One highlighted place: a number of the audit (``kind`` "number") or the words of a claim stated
    without one ("sentence"); ``start``/``end``: its offsets in the text."""

    anchor: str
    text: str
    line: int
    state: str
    claims: list[str]
    title: str
    href: str | None = None
    decided: str = ""  # the claim whose state the place shows (the weakest of its claims)
    kind: str = "number"
    start: int = -1
    end: int = -1


#: the states that mark a claim stated without a number at its words (the numbers do not show it)
SENTENCE_STATES = ("failed", "inconclusive")


@dataclass
class ManuscriptView:
    """What the manuscript page shows, and the links the claims page needs back into it."""

    path: str
    sha256: str
    registry: str
    lines: list[list]  # per line: [str | Mark, ...]
    marks: list[Mark]
    counts: dict[str, int]
    problems: list[str] = field(default_factory=list)  # drift without a place, waiver and registry problems
    by_claim: dict[str, list[Mark]] = field(default_factory=dict)
    href: str = "manuscript.html"
    chapter: str = ""  # the chapter id of the registry it was checked against

    @property
    def attention(self) -> list[Mark]:
        """The numbers an editor must look at first (:data:`ATTENTION`), in the text's order."""
        return [m for m in self.marks if m.state in ATTENTION]

    @property
    def numbers(self) -> list[Mark]:
        return [m for m in self.marks if m.kind == "number"]

    @property
    def sentences(self) -> list[Mark]:
        return [m for m in self.marks if m.kind == "sentence"]

    @property
    def bound(self) -> int:  # numbers bound to claims (neither waived nor unbound)
        return sum(m.state not in ("waived", "unbound") for m in self.numbers)


def claim_summary(entry: ClaimEntry | None, cid: str, name: str = "stated") -> str:
    """One hover line for a claim: id, outcome, chapter value, this runner's value, the bar; where the
    claim holds in another form than its figure ``name``, which form held (:func:`figure_form`)."""
    if entry is None:
        return f"{cid}: not in the claims report"
    said = [f"{cid} {oc.label(entry.outcome)}", *words.value_words(entry), f"bar: {words.bar_words(entry)}"]
    line = " · ".join(said)
    form = held_form(entry, name)
    return f"{line} · {form.words}" if form else line


def figure_names(spans: Iterable[tuple[str, tuple[int, int], str]], start: int, end: int) -> dict[str, str]:
    """claim id -> the name of the figure (``"stated"`` or a key of its ``values``) it binds at the
    number ``[start, end)``, from ``spans`` ``[(claim id, (start, end), name)]`` of its quotes; a
    claim binding it under several names gives ``"stated"`` where one is."""
    out: dict[str, str] = {}
    for cid, (a, b), name in spans:
        if a <= start and end <= b and out.get(cid) != "stated":
            out[cid] = name
    return out


def _number_mark(
    piece: Piece,
    anchor: str,
    entries: dict[str, ClaimEntry],
    drifted: list[tuple[tuple[int, int], QuoteCheck]],
    reasons: dict[str, str],
    link: Callable[[str], str],
    names_of: dict[str, str],  # claim id -> the figure's name in that claim (figure_names)
) -> Mark:
    if piece.status in ("waived", "unbound"):
        why = "bound to no claim and not waived: bind it (a locator or quote) or waive it"
        if piece.status == "waived":
            why = "waived: " + "; ".join(reasons.get(label, label) for label in piece.by)
        return Mark(anchor, piece.text, piece.line, piece.status, [], why, start=piece.start, end=piece.end)
    cids = list(piece.by)
    hits = [q for span, q in drifted if span[0] <= piece.start and piece.end <= span[1]]
    names = {c: names_of.get(c, "stated") for c in cids}
    hover = [claim_summary(entries.get(c), c, names[c]) for c in cids]
    decided: str | None
    if hits:
        state, decided = "drifted", hits[0].claim_id
        said = "{0.claim_id} drift: the manuscript prints {0.manuscript}, the registry has {0.registry} ({0.name})"
        hover = [q.message if q.source else said.format(q) for q in hits] + hover  # a citation's names both
    else:
        state, decided = weakest({c: figure_state(entries.get(c), names[c]) for c in cids})
    weakest_of = f": decided by {decided} (the weakest of {', '.join(cids)})" if len(cids) > 1 or hits else ""
    title = "\n".join([STATE_LABEL[state] + weakest_of, *hover])
    decided = decided or cids[0]
    return Mark(
        anchor,
        piece.text,
        piece.line,
        state,
        cids,
        title,
        link(decided),
        decided,
        start=piece.start,
        end=piece.end,
    )


def _sentence_marks(
    check: ManuscriptCheck, entries: dict[str, ClaimEntry], numbered: set[str], link: Callable[[str], str]
) -> list[Mark]:
    """Marks at the words of claims no number shows, in :data:`SENTENCE_STATES`."""
    ms = check.manuscript
    by_place: dict[tuple[int, int], list[str]] = {}
    for d in check.drifts:
        state = claim_state(entries.get(d.claim_id))
        if d.claim_id in numbered or state not in SENTENCE_STATES:
            continue
        for q in d.checks:
            sites = find_sites(ms, q.locator) if q.status in ("ok", "in-words") and q.span is None else []
            if len(sites) == 1:
                by_place.setdefault((sites[0].start, sites[0].end), []).append(d.claim_id)
                break
    groups: list[tuple[int, int, list[str]]] = []  # overlapping words: one mark for their claims
    for (start, end), cids in sorted(by_place.items()):
        if groups and start < groups[-1][1]:
            groups[-1] = (groups[-1][0], max(end, groups[-1][1]), groups[-1][2] + cids)
        else:
            groups.append((start, end, cids))
    marks: list[Mark] = []
    for n, (start, end, cids) in enumerate(groups, start=1):
        state, decided = weakest({c: claim_state(entries.get(c)) for c in cids})
        decided = decided or cids[0]
        hover = [f"{STATE_LABEL[state]} (a claim the chapter states without a number)"]
        title = "\n".join(hover + [claim_summary(entries.get(c), c) for c in cids])
        text, line = ms.text[start:end], ms.line_of(start)
        marks.append(
            Mark(f"w{n}", text, line, state, cids, title, link(decided), decided, "sentence", start, end)
        )
    return marks


def _cut_lines(text: str, marks: list[Mark]) -> list[list]:
    """The text line by line, each a list of strings and (stripped, non-overlapping) marks."""
    lines: list[list] = [[]]

    def add_text(chunk: str) -> None:
        first, *rest = chunk.split("\n")
        if first:
            lines[-1].append(first)
        lines.extend([piece] if piece else [] for piece in rest)

    pos = 0
    for mark in marks:
        if mark.start < pos:  # overlaps the mark before it (never for a number): shown by its hover alone
            continue
        raw = text[mark.start : mark.end]
        core = raw.strip()
        lead = raw[: len(raw) - len(raw.lstrip())]
        add_text(text[pos : mark.start] + lead)
        mark.text = core
        lines[-1].append(mark)
        pos = mark.start + len(lead) + len(core)
    add_text(text[pos:])
    if text.endswith("\n") and not lines[-1]:
        lines.pop()
    return lines


def manuscript_view_of(
    check: ManuscriptCheck,
    doc: ClaimsDoc | None,
    waivers: Iterable[Waiver] = (),
    claims_href: str = "claims.html",
    href: str = "manuscript.html",
) -> ManuscriptView:
    """The :class:`ManuscriptView` of a :class:`claimcheck.manuscript.ManuscriptCheck` and a run's claims
    (``doc``; None: every bound number is not run). ``waivers``: the registry's; ``claims_href``: the
    claims page from this one; ``href``: this page from the claims page."""
    ms = check.manuscript
    chapter = getattr(check, "chapter", "")
    claims = doc.claims if doc else []
    entries = {e.id: e for e in claims if not chapter or e.chapter in (None, chapter)}  # the chapter's, by id

    def link(cid: str) -> str:
        return f"{claims_href}#{words.anchor(qualify(chapter, cid))}"

    reasons = {w.label: w.reason for w in waivers}
    drifted = [(q.span, q) for d in check.drifts for q in d.checks if q.status == "drift" and q.span]
    pieces = sorted(check.audit.pieces, key=lambda p: p.start)
    spans = [(q.claim_id, q.span, q.name) for d in check.drifts for q in d.checks if q.span and not q.source]
    marks = [
        _number_mark(p, f"n{n}", entries, drifted, reasons, link, figure_names(spans, p.start, p.end))
        for n, p in enumerate(pieces, 1)
    ]
    numbered = {c for m in marks for c in m.claims}
    marks = sorted(marks + _sentence_marks(check, entries, numbered, link), key=lambda m: m.start)
    lines = _cut_lines(ms.text, marks)
    counts = {s: sum(m.state == s for m in marks) for s in STATE_LABEL}
    unfound = ("not-found", "ambiguous", "unbound")
    problems = [q.message for d in check.drifts for q in d.checks if q.status in unfound]
    problems += list(check.audit.problems) + list(check.audit.warnings) + list(check.registry_issues)
    by_claim: dict[str, list[Mark]] = {}
    for m in marks:
        for c in m.claims:
            by_claim.setdefault(c, []).append(m)
    return ManuscriptView(
        ms.path, ms.sha256, check.registry_path, lines, marks, counts, problems, by_claim, href, chapter
    )
